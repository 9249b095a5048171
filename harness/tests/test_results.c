/* The results directory: folder and run id, run.json, per-test files, the journal, reports that
 * a rebuild reproduces byte for byte, throttling, safe ids, and no temporary files left behind. */
#include <check.h>
#include <dirent.h>
#include <pthread.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "results/results_internal.h"
#include "results_testutil.h"
#include "torq/base/alloc.h"
#include "torq/harness/json.h"
#include "torq/harness/results.h"

Suite *results_suite(void);

static const double samples[] = {0.21, 0.207123, 0.2};
static const tqh_record_metric_t metrics[] = {
    {"OVERALL", 12845, NULL}, {"DMA", 453, NULL}, {"Slice 0", 11000.5, NULL}, {"Idle", 0.999, NULL}};
static const char *const files[] = {"profile.pb", "stdout.txt"};

static tqh_test_record_t record(const char *id, tqh_outcome_t outcome) {
  tqh_test_record_t r;
  memset(&r, 0, sizeof(r));
  r.id = id;
  r.name = id;
  r.classname = "smoke";
  r.outcome = outcome;
  r.started_at = 1796223301;
  r.duration_s = 0.5;
  if (outcome == TQH_OUTCOME_PASSED || outcome == TQH_OUTCOME_FAILED) {
    r.has_wall_time = 1;
    r.wall_time_s = 0.207123;
    RT_OK(tqh_stats_compute(samples, 3, &r.wall_stats));
    r.wall_samples = samples;
    r.wall_sample_count = 3;
    r.cache = TQH_CACHE_HIT;
    r.metrics = metrics;
    r.metric_count = 4;
    r.files = files;
    r.file_count = 2;
  }
  if (outcome == TQH_OUTCOME_FAILED) {
    r.message = "mismatch \"out\" <1>";
    r.failure_type = "mismatch";
    r.cache = TQH_CACHE_MISS;
  }
  return r;
}

static tqh_results_t *create(const char *root, const char *run_id) {
  tqh_results_options_t o;
  tqh_results_options_initialize(&o);
  o.root = root;
  o.run_id = run_id;
  o.hostname = "test-host";
  o.sync = 0;
  o.regen_share_pct = 100; /* regenerate after every test, however fast */
  static const tqh_property_t config[] = {{"jobs", "2"}, {"suite", "suites/smoke.yaml"}};
  tqh_run_info_t info;
  memset(&info, 0, sizeof(info));
  info.tool_version = "0.1.0";
  info.target = "sim";
  info.git_revision = "abc123";
  info.config = config;
  info.config_count = 2;
  info.config_json = "{\"repeat\": 3}";
  tqh_results_t *r = NULL;
  RT_OK(tqh_results_create(&o, &info, &r));
  ck_assert_ptr_nonnull(r);
  return r;
}

static char *run_file(tqh_results_t *r, const char *name) {
  char *p = rt_path(tqh_results_run_dir(r), name);
  char *text = rt_read(p);
  free(p);
  return text;
}

static int count_of(const char *hay, const char *needle) {
  int n = 0;
  for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) n++;
  return n;
}

START_TEST(run_id_is_utc_time_and_four_hex_digits) {
  char id[32];
  tqh_results_format_run_id(1796223301, 0x12347f3a, id, sizeof id);
  ck_assert_str_eq(id, "20261202T145501Z-7f3a");
  tqh_results_format_run_id(0, 0, id, sizeof id);
  ck_assert_str_eq(id, "19700101T000000Z-0000");
}
END_TEST

START_TEST(create_makes_a_fresh_run_folder_with_run_json) {
  char *root = rt_tmpdir();
  char *nested = rt_path(root, "a/b");
  tqh_results_options_t o;
  tqh_results_options_initialize(&o);
  o.root = nested;
  tqh_results_t *r = NULL;
  RT_OK(tqh_results_create(&o, NULL, &r));
  regex_t re;
  ck_assert_int_eq(regcomp(&re, "^[0-9]{8}T[0-9]{6}Z-[0-9a-f]{4}$", REG_EXTENDED | REG_NOSUB), 0);
  ck_assert_msg(regexec(&re, tqh_results_run_id(r), 0, NULL, 0) == 0, "%s", tqh_results_run_id(r));
  regfree(&re);
  char *expect_dir = rt_path(nested, tqh_results_run_id(r));
  ck_assert_str_eq(tqh_results_run_dir(r), expect_dir);
  free(expect_dir);
  char *journal = run_file(r, "journal.jsonl");
  ck_assert_str_eq(journal, "");
  tq_free(journal);
  tqh_results_destroy(r);
  tqh_results_destroy(NULL);

  r = create(root, "fixed-run");
  char *run = run_file(r, "run.json");
  tq_arena_t arena;
  tq_arena_init(&arena, 0, 0);
  tqh_json_t *v;
  RT_OK(tqh_json_parse(&arena, "run.json", run, strlen(run), &v));
  ck_assert_str_eq(tqh_json_get(v, "run_id")->string, "fixed-run");
  ck_assert_str_eq(tqh_json_get(v, "hostname")->string, "test-host");
  ck_assert_str_eq(tqh_json_get(v, "git_revision")->string, "abc123");
  ck_assert_str_eq(tqh_json_get(v, "target")->string, "sim");
  ck_assert_ptr_null(tqh_json_get(v, "board"));
  ck_assert_str_eq(tqh_json_get(tqh_json_get(v, "config"), "suite")->string, "suites/smoke.yaml");
  ck_assert(tqh_json_get(tqh_json_get(v, "config_json"), "repeat")->number == 3);
  ck_assert_ptr_null(tqh_json_get(v, "finished_at"));
  tq_free(run);

  tqh_test_record_t t = record("t1", TQH_OUTCOME_PASSED);
  RT_OK(tqh_results_test_finished(r, &t));
  RT_OK(tqh_results_finish(r));
  run = run_file(r, "run.json");
  RT_OK(tqh_json_parse(&arena, "run.json", run, strlen(run), &v));
  ck_assert_ptr_nonnull(tqh_json_get(v, "finished_at"));
  ck_assert(tqh_json_get(v, "tests")->number == 1);
  ck_assert(tqh_json_get(tqh_json_get(v, "outcomes"), "passed")->number == 1);
  tq_free(run);
  tq_arena_deinit(&arena);
  tqh_results_destroy(r);

  /* The same id again: refused, nothing overwritten. */
  tqh_results_options_initialize(&o);
  o.root = root;
  o.run_id = "fixed-run";
  RT_FAILS(tqh_results_create(&o, NULL, &r), TQ_FAILED_PRECONDITION);
  ck_assert_ptr_null(r);
  o.run_id = "../escape";
  RT_FAILS(tqh_results_create(&o, NULL, &r), TQ_INVALID_ARGUMENT);
  o.run_id = NULL;
  tqh_run_info_t info;
  memset(&info, 0, sizeof(info));
  info.config_json = "{\"a\": }";
  RT_FAILS(tqh_results_create(&o, &info, &r), TQ_INVALID_ARGUMENT);
  free(nested);
  rt_tmpdir_remove(root);
}
END_TEST

/* What a run prints at its end, as asked: run order or sorted, one line with -q, the overview
 * blocks of all, the failed or no tests, the slowest tests with their compile/run split. */
START_TEST(summary_follows_run_order_or_sorts_and_shortens_on_request) {
  tqh_test_record_t r[3];
  r[0] = record("b", TQH_OUTCOME_PASSED);
  r[0].started_at = 20;
  r[0].duration_s = 0.1;
  r[1] = record("a", TQH_OUTCOME_FAILED);
  r[1].started_at = 30;
  r[1].duration_s = 0.9;
  r[1].compile_s = 0.6;
  r[1].run_s = 0.2;
  r[2] = record("c", TQH_OUTCOME_PASSED);
  r[2].classname = "other";
  r[2].started_at = 10;
  r[2].duration_s = 0.5;
  r[0].test_id = "smoke/b", r[1].test_id = "smoke/a", r[2].test_id = "other/c";
  tqh_summary_options_t o;
  tqh_summary_options_initialize(&o);
  tq_buf_t out;
  tq_buf_init(&out, 0);
  RT_OK(tqh_summary_render(r, 3, &o, &out));
  /* Run order: by start time, whatever the journal's order. */
  const char *c = strstr(out.data, "  other/c  "), *b = strstr(out.data, "  smoke/b  "),
             *a = strstr(out.data, "  smoke/a  ");
  ck_assert_msg(c && b && a && c < b && b < a, "%s", out.data);
  ck_assert_int_eq(count_of(out.data, "Host Profile Overview"), 3);
  ck_assert_ptr_null(strstr(out.data, "Slowest"));

  tq_buf_clear(&out);
  o.order = TQH_SUMMARY_BY_ID;
  o.overview = TQH_OVERVIEW_FAILED;
  RT_OK(tqh_summary_render(r, 3, &o, &out));
  c = strstr(out.data, "  other/c  "), b = strstr(out.data, "  smoke/b  "),
  a = strstr(out.data, "  smoke/a  ");
  ck_assert_msg(c && b && a && c < a && a < b, "%s", out.data);
  ck_assert_int_eq(count_of(out.data, "Host Profile Overview"), 1);
  ck_assert_ptr_nonnull(strstr(out.data, "  Test: smoke/a  Model: a\n"));

  tq_buf_clear(&out);
  o.order = TQH_SUMMARY_BY_OUTCOME;
  o.overview = TQH_OVERVIEW_NONE;
  o.durations = 2;
  RT_OK(tqh_summary_render(r, 3, &o, &out));
  ck_assert_int_eq(count_of(out.data, "Host Profile Overview"), 0);
  ck_assert_msg(strstr(out.data, "  smoke/a  ") < strstr(out.data, "  other/c  "), "%s", out.data);
  const char *slow = strstr(out.data, "=== Slowest 2 tests ===");
  ck_assert_msg(slow != NULL, "%s", out.data);
  ck_assert_ptr_nonnull(strstr(slow, "TOTAL      COMPILE          RUN        OTHER  TEST\n"));
  ck_assert_ptr_nonnull(strstr(slow, "  900.000ms    600.000ms    200.000ms    100.000ms  smoke/a\n"));
  ck_assert_ptr_nonnull(strstr(slow, "  500.000ms          0ns          0ns    500.000ms  other/c\n"));
  ck_assert_ptr_null(strstr(slow, "smoke/b"));

  /* -q: one line. */
  tq_buf_clear(&out);
  tqh_summary_options_initialize(&o);
  o.brief = 1;
  o.elapsed_s = 1.5;
  o.run_dir = "results/R";
  RT_OK(tqh_summary_render(r, 3, &o, &out));
  ck_assert_str_eq(out.data, "3 tests: 2 passed, 1 failed in 1.500s; results in results/R/\n");
  tq_buf_deinit(&out);

  tqh_summary_order_t order;
  tqh_overview_shown_t shown;
  ck_assert(tqh_summary_order_parse("duration", &order) && order == TQH_SUMMARY_BY_DURATION);
  ck_assert(!tqh_summary_order_parse("name", &order));
  ck_assert(tqh_overview_shown_parse("failed", &shown) && shown == TQH_OVERVIEW_FAILED);
  ck_assert(!tqh_overview_shown_parse("some", &shown));
}
END_TEST

START_TEST(finished_test_writes_its_files_journal_and_reports) {
  char *root = rt_tmpdir();
  tqh_results_t *r = create(root, "run");
  char *dir = NULL;
  RT_OK(tqh_results_test_dir(r, "conv", &dir));
  struct stat st;
  ck_assert_int_eq(stat(dir, &st), 0);
  ck_assert(S_ISDIR(st.st_mode));
  RT_OK(tqh_results_write_file(r, "conv", "stdout.txt", "hello\n", 6));
  RT_OK(tqh_results_write_file(r, "conv", "debug/program.txt", "p", 1));
  tq_free(dir);

  tqh_test_record_t t = record("conv", TQH_OUTCOME_PASSED);
  RT_OK(tqh_results_test_finished(r, &t));
  tqh_test_record_t f = record("add", TQH_OUTCOME_FAILED);
  f.classname = "tosa";
  RT_OK(tqh_results_test_finished(r, &f));
  tqh_test_record_t s = record("pool", TQH_OUTCOME_SKIPPED);
  RT_OK(tqh_results_test_finished(r, &s));

  char *wall = run_file(r, "conv/wall_time.txt");
  ck_assert_str_eq(wall, "0.207123000\n");
  tq_free(wall);
  char *out = run_file(r, "conv/stdout.txt");
  ck_assert_str_eq(out, "hello\n");
  tq_free(out);
  char *prog = run_file(r, "conv/debug/program.txt");
  ck_assert_str_eq(prog, "p");
  tq_free(prog);
  /* A skipped test has a report but no wall time. */
  char *p = rt_path(tqh_results_run_dir(r), "pool/wall_time.txt");
  ck_assert_int_ne(access(p, F_OK), 0);
  free(p);

  /* report.json is the record, pretty, and reads back. */
  char *report = run_file(r, "add/report.json");
  ck_assert_ptr_nonnull(strstr(report, "\n  \"outcome\": \"failed\",\n"));
  tqh_records_t list;
  tqh_records_init(&list);
  RT_OK(tqh__record_parse(&list, report, strlen(report)));
  ck_assert_str_eq(list.items[0].message, "mismatch \"out\" <1>");
  ck_assert_str_eq(list.items[0].host, "test-host");
  tqh_records_deinit(&list);
  tq_free(report);

  char *journal = run_file(r, "journal.jsonl");
  ck_assert_int_eq(count_of(journal, "\n"), 3);
  ck_assert_ptr_nonnull(strstr(journal, "{\"id\":\"conv\",\"test_id\":\"smoke/conv\",\"name\":\"conv\",\"classname\":\"smoke\""));
  tq_free(journal);

  size_t counts[TQH_OUTCOME_COUNT];
  ck_assert_uint_eq(tqh_results_count(r, counts), 3);
  ck_assert_uint_eq(counts[TQH_OUTCOME_PASSED], 1);
  ck_assert_uint_eq(counts[TQH_OUTCOME_FAILED], 1);
  ck_assert_uint_eq(counts[TQH_OUTCOME_SKIPPED], 1);

  /* The reports are already up to date before finish. */
  char *junit = run_file(r, "junit.xml");
  ck_assert_ptr_nonnull(strstr(junit, "<testsuites name=\"torq-test\" tests=\"3\" failures=\"1\" "
                                      "errors=\"0\" skipped=\"1\""));
  ck_assert_ptr_nonnull(strstr(junit, "<failure message=\"mismatch &quot;out&quot; &lt;1&gt; (wall "
                                      "time 207.123ms)\" type=\"mismatch\">"));
  char attach[4200];
  char resolved[4096];
  ck_assert_ptr_nonnull(realpath(tqh_results_run_dir(r), resolved));
  snprintf(attach, sizeof attach, "[[ATTACHMENT|%s/conv/profile.pb]]", resolved);
  ck_assert_ptr_nonnull(strstr(junit, attach));
  ck_assert_ptr_nonnull(strstr(junit, "hostname=\"test-host\""));
  tq_free(junit);

  char *summary = run_file(r, "summary.txt");
  ck_assert_msg(strstr(summary, "  3 tests: 1 passed, 1 failed, 1 skipped\n"
                                "  Cache: 1 hit, 1 miss\n") != NULL,
                "%s", summary);
  /* One id per test, suite/test, as everywhere; in run order. */
  ck_assert_ptr_nonnull(
      strstr(summary, "  smoke/conv  passed              207.123ms    12.845ms\n"));
  ck_assert_ptr_nonnull(
      strstr(summary, "  smoke/pool  skipped                     -           -\n"));
  ck_assert(strstr(summary, "  smoke/conv  ") < strstr(summary, "  tosa/add    ") &&
            strstr(summary, "  tosa/add    ") < strstr(summary, "  smoke/pool  "));
  ck_assert_ptr_nonnull(strstr(summary, "  Test: smoke/conv  Model: conv\n"));
  ck_assert_int_eq(count_of(summary, "Host Profile Overview"), 2);
  /* WALL_TIME first, then OVERALL, then the rest with shares of OVERALL. */
  const char *w = strstr(summary, "WALL_TIME");
  const char *o = strstr(summary, "OVERALL   ");
  ck_assert_ptr_nonnull(w);
  ck_assert_ptr_nonnull(o);
  ck_assert(w < o);
  ck_assert_ptr_nonnull(strstr(summary, "453.000µs  (3.53%)"));
  char *text = NULL;
  RT_OK(tqh_results_summary(r, &text));
  ck_assert_str_eq(text, summary);
  tq_free(text);
  tq_free(summary);
  RT_OK(tqh_results_finish(r));
  tqh_results_destroy(r);
  rt_tmpdir_remove(root);
}
END_TEST

/* Every file name under `dir`, recursively, that looks like a temporary. */
static int count_temporaries(const char *dir) {
  DIR *d = opendir(dir);
  ck_assert_ptr_nonnull(d);
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    if (strstr(e->d_name, ".tmp") || e->d_name[0] == '.') n++;
    char *sub = rt_path(dir, e->d_name);
    struct stat st;
    if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode)) n += count_temporaries(sub);
    free(sub);
  }
  closedir(d);
  return n;
}

START_TEST(rebuild_from_the_journal_equals_the_incremental_reports) {
  char *root = rt_tmpdir();
  tqh_results_t *r = create(root, "run");
  static const tqh_outcome_t outcomes[] = {TQH_OUTCOME_PASSED,  TQH_OUTCOME_FAILED,
                                           TQH_OUTCOME_ERROR,   TQH_OUTCOME_SKIPPED,
                                           TQH_OUTCOME_XFAILED, TQH_OUTCOME_XPASSED,
                                           TQH_OUTCOME_NOT_RUN};
  char ids[7][8];
  for (int i = 0; i < 7; i++) {
    snprintf(ids[i], sizeof ids[i], "t%d", i);
    tqh_test_record_t t = record(ids[i], outcomes[i]);
    t.name = i == 3 ? "weird \"name\"\x01\t<&>\xff" : ids[i];
    t.classname = i % 3 ? "smoke" : "tosa \xc3\xa9";
    t.started_at = 1796223301.123456789 + i;
    t.duration_s = 0.1 * i + 1.0 / 3.0;
    t.wall_time_s = 0.2071234567891;
    RT_OK(tqh_results_test_finished(r, &t));
  }
  RT_OK(tqh_results_finish(r));
  char *junit = run_file(r, "junit.xml");
  char *summary = run_file(r, "summary.txt");
  ck_assert_int_eq(count_temporaries(tqh_results_run_dir(r)), 0);

  char *jpath = rt_path(tqh_results_run_dir(r), "junit.xml");
  char *spath = rt_path(tqh_results_run_dir(r), "summary.txt");
  ck_assert_int_eq(unlink(jpath), 0);
  ck_assert_int_eq(unlink(spath), 0);
  char *problems = (char *)"untouched";
  RT_OK(tqh_results_rebuild(tqh_results_run_dir(r), "other-host", &problems));
  ck_assert_ptr_null(problems);
  char *junit2 = rt_read(jpath);
  char *summary2 = rt_read(spath);
  ck_assert_str_eq(junit2, junit);
  ck_assert_str_eq(summary2, summary);
  ck_assert_int_eq(count_temporaries(tqh_results_run_dir(r)), 0);
  tq_free(junit2);
  tq_free(summary2);

  /* A crash: a torn line at the end and a corrupt line in the middle. The rebuild keeps the
   * others and names both, at the journal's path. */
  char *journal = run_file(r, "journal.jsonl");
  char *jl = rt_path(tqh_results_run_dir(r), "journal.jsonl");
  char *nl = strchr(journal, '\n');
  tq_buf_t damaged;
  tq_buf_init(&damaged, 0);
  RT_OK(tq_buf_append(&damaged, journal, (size_t)(nl - journal) + 1));
  RT_OK(tq_buf_append_cstr(&damaged, "{\"id\": oops}\n"));
  RT_OK(tq_buf_append_cstr(&damaged, nl + 1));
  RT_OK(tq_buf_append_cstr(&damaged, "{\"id\":\"t9\",\"name\":\"t9\",\"outc"));
  RT_OK(tq_file_write_atomic(jl, damaged.data, damaged.len));
  RT_OK(tqh_results_rebuild(tqh_results_run_dir(r), NULL, &problems));
  ck_assert_ptr_nonnull(problems);
  char want[8192];
  snprintf(want, sizeof(want),
           "%s:2: error: not a valid test record (column 8: expected a value); skipped\n"
           "%s:9: error: the last line is cut short (28 bytes without a newline: the run was "
           "stopped while writing it); that test's record is lost\n",
           jl, jl);
  ck_assert_str_eq(problems, want);
  tq_free(problems);
  junit2 = rt_read(jpath);
  ck_assert_str_eq(junit2, junit);
  tq_free(junit2);
  tq_buf_deinit(&damaged);
  free(jl);
  tq_free(journal);

  free(jpath);
  free(spath);
  tq_free(junit);
  tq_free(summary);
  tqh_results_destroy(r);

  RT_FAILS(tqh_results_rebuild(root, NULL, NULL), TQ_NOT_FOUND);
  RT_FAILS(tqh_results_rebuild("/nonexistent/run", NULL, NULL), TQ_NOT_FOUND);
  rt_tmpdir_remove(root);
}
END_TEST

/* The throttle keeps regenerating within its share as the records grow: the next one is
 * expected to cost in proportion to the records, and a run of growing reports spends at most
 * the share on them. */
START_TEST(regeneration_keeps_its_share_as_the_reports_grow) {
  /* 10 ms for 100 records; 5%: 190 ms later with 100 records, 380 ms with 200. */
  ck_assert(!tqh__regeneration_due(189000000, 10000000, 100, 100, 5));
  ck_assert(tqh__regeneration_due(190000000, 10000000, 100, 100, 5));
  ck_assert(!tqh__regeneration_due(379000000, 10000000, 100, 200, 5));
  ck_assert(tqh__regeneration_due(380000000, 10000000, 100, 200, 5));
  /* None yet: now. 100%: after every test. */
  ck_assert(tqh__regeneration_due(0, 0, 0, 1, 5));
  ck_assert(tqh__regeneration_due(0, 10000000, 100, 200, 100));
  /* A run of tests of 0.5 ms, each regeneration 15 us per record: the share holds. */
  uint64_t now = 0, last = 0, cost = 0, spent = 0;
  size_t at = 0, regens = 0;
  for (size_t n = 1; n <= 20000; n++) {
    now += 500000;
    if (tqh__regeneration_due(now - last, cost, at, n, 5)) {
      cost = 15000 * (uint64_t)n;
      now += cost;
      spent += cost;
      last = now;
      at = n;
      regens++;
    }
  }
  ck_assert_msg((double)spent <= 0.055 * (double)now, "%.1f%% of the run in %zu regenerations",
                100.0 * (double)spent / (double)now, regens);
  ck_assert_uint_gt(regens, 5);
}
END_TEST

/* Each test's pieces of junit.xml and summary.txt are rendered when it is recorded: the files
 * a run writes from them, with no regeneration but the last one, are those rendered from its
 * journal in one go; tests of another class (another <testsuite>) and without metrics included. */
START_TEST(reports_from_pieces_rendered_as_tests_finish_equal_a_render_of_the_journal) {
  char *root = rt_tmpdir();
  tqh_results_options_t o;
  tqh_results_options_initialize(&o);
  o.root = root;
  o.run_id = "run";
  o.hostname = "test-host";
  o.sync = 0;
  o.throttle_after = 0;
  o.throttle_ms = 3600 * 1000;
  tqh_results_t *r = NULL;
  RT_OK(tqh_results_create(&o, NULL, &r));
  static const tqh_outcome_t outcomes[] = {TQH_OUTCOME_PASSED, TQH_OUTCOME_FAILED,
                                           TQH_OUTCOME_SKIPPED, TQH_OUTCOME_PASSED};
  const char *ids[] = {"a", "b", "c", "d"};
  for (int i = 0; i < 4; i++) {
    tqh_test_record_t t = record(ids[i], outcomes[i]);
    if (i == 3) t.classname = "other";
    if (i == 2) t.classname = "";
    RT_OK(tqh_results_test_finished(r, &t));
  }
  RT_OK(tqh_results_finish(r));
  char *jl = rt_path(tqh_results_run_dir(r), "journal.jsonl");
  tqh_records_t list;
  tqh_records_init(&list);
  tqh_journal_read_t info;
  RT_OK(tqh_journal_read(jl, &list, NULL, &info));
  ck_assert_uint_eq(list.count, 4);
  tq_buf_t want;
  tq_buf_init(&want, 0);
  tqh_junit_options_t jo;
  tqh_junit_options_initialize(&jo);
  char *abs = realpath(tqh_results_run_dir(r), NULL);
  jo.run_dir = abs;
  jo.hostname = "test-host";
  RT_OK(tqh_junit_render(list.items, list.count, &jo, &want));
  char *junit = run_file(r, "junit.xml");
  ck_assert_str_eq(junit, want.data);
  ck_assert_int_eq(count_of(junit, "<testsuite "), 3);
  tq_buf_clear(&want);
  RT_OK(tqh_summary_render(list.items, list.count, NULL, &want));
  char *summary = run_file(r, "summary.txt");
  ck_assert_str_eq(summary, want.data);
  ck_assert_int_eq(count_of(summary, "Host Profile Overview"), 3);
  tq_free(summary);
  tq_free(junit);
  free(abs);
  tq_buf_deinit(&want);
  tqh_records_deinit(&list);
  free(jl);
  tqh_results_destroy(r);
  rt_tmpdir_remove(root);
}
END_TEST

START_TEST(reports_are_throttled_beyond_the_threshold_and_finished_at_the_end) {
  char *root = rt_tmpdir();
  char *copy = rt_path(root, "copy.xml");
  tqh_results_options_t o;
  tqh_results_options_initialize(&o);
  o.root = root;
  o.run_id = "run";
  o.sync = 0;
  o.throttle_after = 2;
  o.throttle_ms = 3600 * 1000;
  o.regen_share_pct = 100;
  o.fsync_files = 1; /* through tq_file_write_atomic */
  o.junit_copy = copy;
  tqh_results_t *r = NULL;
  RT_OK(tqh_results_create(&o, NULL, &r));
  const char *ids[] = {"a", "b", "c", "d"};
  for (int i = 0; i < 4; i++) {
    tqh_test_record_t t = record(ids[i], TQH_OUTCOME_PASSED);
    RT_OK(tqh_results_test_finished(r, &t));
  }
  char *junit = run_file(r, "junit.xml");
  ck_assert_int_eq(count_of(junit, "<testcase "), 2);
  tq_free(junit);
  char *journal = run_file(r, "journal.jsonl");
  ck_assert_int_eq(count_of(journal, "\n"), 4);
  tq_free(journal);
  RT_OK(tqh_results_finish(r));
  junit = run_file(r, "junit.xml");
  ck_assert_int_eq(count_of(junit, "<testcase "), 4);
  char *c = rt_read(copy);
  ck_assert_str_eq(c, junit);
  tq_free(c);
  tq_free(junit);
  tqh_results_destroy(r);
  free(copy);
  rt_tmpdir_remove(root);
}
END_TEST

static const struct {
  const char *id;
  int safe;
} ids[] = {
    {"conv2d_f4", 1},  {"a.b-c+d=e,f@g", 1}, {"", 0},          {".hidden", 0}, {"..", 0},
    {"a/b", 0},        {"a b", 0},           {"run.json", 0},  {"junit.xml", 0},
    {"journal.jsonl", 0}, {"summary.txt", 0}, {"caf\xc3\xa9", 0}, {"x\n", 0},
};

START_TEST(test_ids_must_be_safe_folder_names) {
  ck_assert_int_eq(tqh_results_id_is_safe(ids[_i].id), ids[_i].safe);
}
END_TEST

START_TEST(unsafe_ids_and_names_are_refused) {
  char *root = rt_tmpdir();
  tqh_results_t *r = create(root, "run");
  char long_id[202];
  memset(long_id, 'a', 201);
  long_id[201] = 0;
  ck_assert_int_eq(tqh_results_id_is_safe(long_id), 0);
  long_id[200] = 0;
  ck_assert_int_eq(tqh_results_id_is_safe(long_id), 1);
  ck_assert_int_eq(tqh_results_id_is_safe(NULL), 0);
  char *dir = NULL;
  RT_FAILS(tqh_results_test_dir(r, "../x", &dir), TQ_INVALID_ARGUMENT);
  ck_assert_ptr_null(dir);
  RT_FAILS(tqh_results_write_file(r, "t", "../x", "", 0), TQ_INVALID_ARGUMENT);
  RT_FAILS(tqh_results_write_file(r, "t", "/etc/x", "", 0), TQ_INVALID_ARGUMENT);
  RT_FAILS(tqh_results_write_file(r, "t", "a//b", "", 0), TQ_INVALID_ARGUMENT);
  RT_FAILS(tqh_results_write_file(r, "t", "a/", "", 0), TQ_INVALID_ARGUMENT);
  RT_FAILS(tqh_results_write_file(r, "t", "./a", "", 0), TQ_INVALID_ARGUMENT);
  tqh_test_record_t t = record("x/y", TQH_OUTCOME_PASSED);
  RT_FAILS(tqh_results_test_finished(r, &t), TQ_INVALID_ARGUMENT);
  t = record("ok", TQH_OUTCOME_PASSED);
  t.name = "";
  RT_FAILS(tqh_results_test_finished(r, &t), TQ_INVALID_ARGUMENT);
  t.name = "ok";
  t.outcome = TQH_OUTCOME_COUNT;
  RT_FAILS(tqh_results_test_finished(r, &t), TQ_INVALID_ARGUMENT);
  ck_assert_uint_eq(tqh_results_count(r, NULL), 0);
  tqh_results_destroy(r);
  rt_tmpdir_remove(root);
}
END_TEST

static const struct {
  const char *name, *id;
} safe_ids[] = {
    {"conv 2d/x.mlir", "conv_2d_x.mlir"},
    {".a", "_a"},
    {"", "_"},
    {"run.json", "run.json_"},
    {"caf\xc3\xa9[1]", "caf___1_"},
};

START_TEST(make_safe_id_replaces_unsafe_bytes) {
  tq_buf_t b;
  tq_buf_init(&b, 0);
  RT_OK(tqh_results_make_safe_id(safe_ids[_i].name, &b));
  ck_assert_str_eq(b.data, safe_ids[_i].id);
  ck_assert(tqh_results_id_is_safe(b.data));
  tq_buf_deinit(&b);
}
END_TEST

START_TEST(outcome_names_parse_back) {
  for (int i = 0; i < TQH_OUTCOME_COUNT; i++) {
    tqh_outcome_t o;
    ck_assert(tqh_outcome_parse(tq_sv_cstr(tqh_outcome_name((tqh_outcome_t)i)), &o));
    ck_assert_int_eq(o, i);
  }
  tqh_outcome_t o;
  ck_assert(!tqh_outcome_parse(tq_sv_cstr("pass"), &o));
  ck_assert_str_eq(tqh_outcome_name(TQH_OUTCOME_COUNT), "unknown");
  ck_assert_str_eq(tqh_outcome_name(TQH_OUTCOME_NOT_RUN), "not_run");
}
END_TEST

typedef struct worker_arg_s {
  tqh_results_t *results;
  int first;
} worker_arg_t;

static void *worker(void *p) {
  worker_arg_t *a = p;
  for (int i = 0; i < 25; i++) {
    char id[32];
    snprintf(id, sizeof id, "w%d", a->first + i);
    tqh_test_record_t t = record(id, TQH_OUTCOME_PASSED);
    tq_status_t s = tqh_results_test_finished(a->results, &t);
    if (s) {
      tq_status_free(s);
      return (void *)1;
    }
  }
  return NULL;
}

START_TEST(parallel_workers_append_whole_lines) {
  char *root = rt_tmpdir();
  tqh_results_t *r = create(root, "run");
  pthread_t th[4];
  worker_arg_t args[4];
  for (int i = 0; i < 4; i++) {
    args[i] = (worker_arg_t){r, i * 100};
    ck_assert_int_eq(pthread_create(&th[i], NULL, worker, &args[i]), 0);
  }
  for (int i = 0; i < 4; i++) {
    void *rc;
    pthread_join(th[i], &rc);
    ck_assert_ptr_null(rc);
  }
  RT_OK(tqh_results_finish(r));
  char *jl = rt_path(tqh_results_run_dir(r), "journal.jsonl");
  tqh_records_t list;
  tqh_records_init(&list);
  tqh_journal_read_t info;
  RT_OK(tqh_journal_read(jl, &list, NULL, &info));
  ck_assert_uint_eq(list.count, 100);
  ck_assert_uint_eq(info.corrupt, 0);
  /* The records the run holds are the journal's, line for line in its order. */
  const tqh_records_t *held = tqh_results_records(r);
  ck_assert_uint_eq(held->count, 100);
  for (size_t i = 0; i < list.count; i++) {
    ck_assert_str_eq(held->items[i].id, list.items[i].id);
    ck_assert_int_eq(held->items[i].outcome, list.items[i].outcome);
  }
  tqh_records_deinit(&list);
  char *junit = run_file(r, "junit.xml");
  ck_assert_int_eq(count_of(junit, "<testcase "), 100);
  tq_free(junit);
  free(jl);
  tqh_results_destroy(r);
  rt_tmpdir_remove(root);
}
END_TEST

/* SQLite style: every allocation in turn fails; each call reports TQ_OUT_OF_MEMORY (or succeeds
 * when it needed no more), never crashes or leaks (valgrind and ASan check the latter). */
START_TEST(out_of_memory_is_reported_at_every_allocation) {
  char *root = rt_tmpdir();
  int succeeded = 0;
  char id[32];
  for (long n = 0; n < 5000 && !succeeded; n++) {
    snprintf(id, sizeof id, "run%ld", n);
    tqh_results_t *r = create(root, id);
    tqh_test_record_t t = record("t", TQH_OUTCOME_FAILED);
    tq_alloc_fail_after(n);
    tq_status_t s = tqh_results_test_finished(r, &t);
    if (!s) s = tqh_results_finish(r);
    char *text = NULL;
    if (!s) s = tqh_results_summary(r, &text);
    tq_alloc_fail_after(-1);
    if (s) {
      ck_assert_msg(tq_status_code(s) == TQ_OUT_OF_MEMORY, "after %ld allocations: %s", n,
                    tq_status_message(s));
      tq_status_free(s);
    } else {
      succeeded = 1;
      ck_assert_ptr_nonnull(text);
    }
    tq_free(text);
    tqh_results_destroy(r);
  }
  ck_assert(succeeded);
  /* The rebuild, the same way. */
  succeeded = 0;
  char *run = rt_path(root, id); /* the run where everything succeeded */
  for (long n = 0; n < 5000 && !succeeded; n++) {
    char *problems = NULL;
    tq_alloc_fail_after(n);
    tq_status_t s = tqh_results_rebuild(run, "h", &problems);
    tq_alloc_fail_after(-1);
    if (s) {
      ck_assert_int_eq(tq_status_code(s), TQ_OUT_OF_MEMORY);
      tq_status_free(s);
    } else {
      succeeded = 1;
    }
    tq_free(problems);
  }
  ck_assert(succeeded);
  free(run);
  rt_tmpdir_remove(root);
}
END_TEST

Suite *results_suite(void) {
  Suite *s = suite_create("results");
  TCase *tc = tcase_create("results");
  tcase_add_test(tc, run_id_is_utc_time_and_four_hex_digits);
  tcase_add_test(tc, create_makes_a_fresh_run_folder_with_run_json);
  tcase_add_test(tc, finished_test_writes_its_files_journal_and_reports);
  tcase_add_test(tc, summary_follows_run_order_or_sorts_and_shortens_on_request);
  tcase_add_test(tc, rebuild_from_the_journal_equals_the_incremental_reports);
  tcase_add_test(tc, reports_are_throttled_beyond_the_threshold_and_finished_at_the_end);
  tcase_add_test(tc, regeneration_keeps_its_share_as_the_reports_grow);
  tcase_add_test(tc, reports_from_pieces_rendered_as_tests_finish_equal_a_render_of_the_journal);
  tcase_add_loop_test(tc, test_ids_must_be_safe_folder_names, 0,
                      (int)(sizeof(ids) / sizeof(ids[0])));
  tcase_add_test(tc, unsafe_ids_and_names_are_refused);
  tcase_add_loop_test(tc, make_safe_id_replaces_unsafe_bytes, 0,
                      (int)(sizeof(safe_ids) / sizeof(safe_ids[0])));
  tcase_add_test(tc, outcome_names_parse_back);
  tcase_add_test(tc, parallel_workers_append_whole_lines);
  tcase_add_test(tc, out_of_memory_is_reported_at_every_allocation);
  tcase_set_timeout(tc, 60);
  suite_add_tcase(s, tc);
  return s;
}
