/* Real runs: the smoke suite, the cache, failures that stay in their test, reports. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e.h"
#include "runner/runner_internal.h"
#include "torq/base/str.h"

/* The overview blocks of summary.txt without the WALL_TIME lines (host timing varies). */
static char *overview_without_wall_time(const char *run_dir) {
  char *path = e2e_path("%s/summary.txt", run_dir);
  char *text = e2e_read(path);
  free(path);
  ck_assert_ptr_nonnull(text);
  char *start = strstr(text, "Host Profile Overview");
  ck_assert_msg(start != NULL, "summary.txt has no Host Profile Overview:\n%s", text);
  size_t cap = strlen(start) + 1, len = 0;
  char *out = calloc(cap, 1);
  for (char *line = start; *line;) {
    char *nl = strchr(line, '\n');
    size_t n = nl ? (size_t)(nl - line + 1) : strlen(line);
    if (!memmem(line, n, "WALL_TIME", 9)) {
      memcpy(out + len, line, n);
      len += n;
    }
    line += n;
  }
  free(text);
  return out;
}

/* Every test folder named in the journal holds the files of DESIGN 5.7. */
static size_t check_test_folders(const char *run_dir, int profiling) {
  DIR *d = opendir(run_dir);
  ck_assert_ptr_nonnull(d);
  size_t n = 0;
  struct dirent *e;
  static const char *const always[] = {"wall_time.txt", "report.json", "model.vmfb", "trace.csv",
                                       "debug/manifest.json", "stdout.txt", "stderr.txt"};
  static const char *const profiled[] = {"profile.csv", "profile.pb", "profile.xlsx",
                                         "annotated.csv"};
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char *dir = e2e_path("%s/%s", run_dir, e->d_name);
    char *report = e2e_path("%s/report.json", dir);
    int is_test = e2e_exists(report);
    free(report);
    if (is_test) {
      n++;
      for (size_t i = 0; i < sizeof(always) / sizeof(always[0]); i++) {
        char *f = e2e_path("%s/%s", dir, always[i]);
        ck_assert_msg(e2e_exists(f), "missing %s", f);
        free(f);
      }
      for (size_t i = 0; profiling && i < sizeof(profiled) / sizeof(profiled[0]); i++) {
        char *f = e2e_path("%s/%s", dir, profiled[i]);
        ck_assert_msg(e2e_exists(f), "missing %s", f);
        free(f);
      }
      char *wt = e2e_path("%s/wall_time.txt", dir);
      char *text = e2e_read(wt);
      double v = -1;
      char tail = 0;
      ck_assert_msg(sscanf(text, "%lf%c", &v, &tail) == 2 && tail == '\n' && v > 0 && v < 60,
                    "%s: %s", wt, text);
      free(text);
      free(wt);
    }
    free(dir);
  }
  closedir(d);
  return n;
}

START_TEST(smoke_suite_passes_and_writes_the_results_folder) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  e2e_proc_t p;
  e2e_run(&s, e2e_top(), NULL, (const char *const[]){"suites/smoke.yaml", "-j", "2", NULL}, &p);
  ck_assert_msg(p.exit_code == 0, "exit %d\nstdout:\n%s\nstderr:\n%s", p.exit_code, p.out, p.err);
  char *run = e2e_only_run(&s);
  static const char *const files[] = {"run.json", "journal.jsonl", "junit.xml", "summary.txt"};
  for (size_t i = 0; i < 4; i++) {
    char *f = e2e_path("%s/%s", run, files[i]);
    ck_assert_msg(e2e_exists(f), "missing %s", f);
    free(f);
  }
  size_t tests = e2e_journal_count(run, NULL);
  ck_assert_uint_ge(tests, 6);
  ck_assert_uint_eq(e2e_journal_count(run, "passed"), tests);
  ck_assert_uint_eq(check_test_folders(run, 1), tests);
  size_t t, f, e, sk;
  const char *parser;
  char *junit = e2e_path("%s/junit.xml", run);
  e2e_junit_counts(junit, &t, &f, &e, &sk, &parser);
  ck_assert_uint_eq(t, tests);
  ck_assert_uint_eq(f + e + sk, 0);
  /* The summary printed at the end is summary.txt, WALL_TIME first in each overview block. */
  char *sp = e2e_path("%s/summary.txt", run);
  char *summary = e2e_read(sp);
  ck_assert_msg(strstr(p.out, summary) != NULL, "stdout does not hold summary.txt:\n%s", p.out);
  ck_assert_uint_eq(e2e_count(summary, "Host Profile Overview"), tests);
  char *block = strstr(summary, "Host Profile Overview");
  char *wall = strstr(block, "WALL_TIME"), *overall = strstr(block, "OVERALL");
  ck_assert(wall && overall && wall < overall);
  free(summary);
  free(sp);
  free(junit);
  free(run);
  e2e_proc_free(&p);
  e2e_scratch_free(&s);
}
END_TEST

START_TEST(second_run_compiles_nothing_and_gives_the_same_overview) {
  if (e2e_light()) {
    tq_test_skip("two runs of the smoke suite are too slow under valgrind (TORQ_VALGRIND)");
    return;
  }
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  const char *const args[] = {"suites/smoke.yaml", "-q", NULL};
  e2e_proc_t p;
  e2e_run(&s, e2e_top(), NULL, args, &p);
  ck_assert_msg(p.exit_code == 0, "%s%s", p.out, p.err);
  char *first = e2e_only_run(&s);
  size_t tests = e2e_journal_count(first, NULL);
  char *journal = e2e_path("%s/journal.jsonl", first);
  char *text = e2e_read(journal);
  ck_assert_uint_eq(e2e_count(text, "\"cache\":\"miss\""), tests);
  free(text);
  free(journal);
  char *ov1 = overview_without_wall_time(first);
  e2e_proc_free(&p);
  /* Move the first run aside so that the second is the only one. */
  char *aside = e2e_path("%s/first", s.dir);
  ck_assert_int_eq(rename(first, aside), 0);

  /* Without -q: the whole summary, with its cache line. */
  e2e_run(&s, e2e_top(), NULL, (const char *const[]){"suites/smoke.yaml", NULL}, &p);
  ck_assert_msg(p.exit_code == 0, "%s%s", p.out, p.err);
  char *second = e2e_only_run(&s);
  journal = e2e_path("%s/journal.jsonl", second);
  text = e2e_read(journal);
  ck_assert_uint_eq(e2e_count(text, "\"cache\":\"hit\""), tests);
  ck_assert_uint_eq(e2e_count(text, "\"cache\":\"miss\""), 0);
  free(text);
  free(journal);
  /* Visible in the summary. */
  char *hits = e2e_path("%zu hit", tests);
  ck_assert_msg(strstr(p.out, hits) != NULL, "the summary does not show %s:\n%s", hits, p.out);
  free(hits);
  char *ov2 = overview_without_wall_time(second);
  ck_assert_str_eq(ov1, ov2);
  e2e_proc_free(&p);
  char *aside2 = e2e_path("%s/second", s.dir);
  ck_assert_int_eq(rename(second, aside2), 0);

  /* --recompute-cache compiles every model again. */
  e2e_run(&s, e2e_top(), NULL,
          (const char *const[]){"suites/smoke.yaml", "-q", "--recompute-cache", NULL}, &p);
  ck_assert_msg(p.exit_code == 0, "%s%s", p.out, p.err);
  char *third = e2e_only_run(&s);
  journal = e2e_path("%s/journal.jsonl", third);
  text = e2e_read(journal);
  ck_assert_uint_eq(e2e_count(text, "\"cache\":\"miss\""), tests);
  free(text);
  free(journal);
  char *ov3 = overview_without_wall_time(third);
  ck_assert_str_eq(ov1, ov3);
  e2e_proc_free(&p);
  free(ov1);
  free(ov2);
  free(ov3);
  free(first);
  free(second);
  free(third);
  free(aside);
  free(aside2);
  e2e_scratch_free(&s);
}
END_TEST

/* A suite where every kind of failure happens once, beside tests that pass. */
static char *write_mixed_suite(const e2e_scratch_t *s) {
  char *add = e2e_path("%s/m/add.mlir", s->dir), *broken = e2e_path("%s/m/broken.mlir", s->dir);
  e2e_write_add_model(add);
  e2e_write_broken_model(broken);
  char *suite = e2e_path("%s/mixed.yaml", s->dir);
  e2e_write(suite,
            "suite: mixed\n"
            "defaults:\n"
            "  timeout: {compile: 60, run: 2}\n"
            "tests:\n"
            "  - name: good_first\n"
            "    model: m/add.mlir\n"
            "    inputs: ['4xi32=1,2,3,4', '4xi32=10']\n"
            "  - name: does_not_compile\n"
            "    model: m/broken.mlir\n"
            "  - name: too_slow_for_its_gate\n"
            "    model: m/add.mlir\n"
            "    expect:\n"
            "      overall_us: {max: 0.001}\n"
            "  - name: crashes\n"
            "    model: m/add.mlir\n"
            "  - name: hangs\n"
            "    model: m/add.mlir\n"
            "  - name: known_broken\n"
            "    model: m/broken.mlir\n"
            "    xfail: the compiler rejects mismatched shapes\n"
            "  - name: skipped_one\n"
            "    model: m/add.mlir\n"
            "    skip: not today\n"
            "  - name: good_last\n"
            "    model: m/add.mlir\n");
  free(add);
  free(broken);
  return suite;
}

static char *journal_line_of(const char *run_dir, const char *name) {
  char *path = e2e_path("%s/journal.jsonl", run_dir);
  char *text = e2e_read(path);
  free(path);
  char *needle = e2e_path("\"name\":\"%s\"", name);
  char *hit = strstr(text, needle);
  ck_assert_msg(hit != NULL, "no journal line for %s", name);
  char *start = hit;
  while (start > text && start[-1] != '\n') start--;
  char *end = strchr(hit, '\n');
  char *line = strndup(start, end ? (size_t)(end - start) : strlen(start));
  free(needle);
  free(text);
  return line;
}

/* Serially too: there the next test is sent to the worker ahead (runner.c), and goes to a fresh
 * worker instead after a test that did not pass, a crash or a timeout. */
START_TEST(each_failure_stays_in_its_test_and_the_rest_run) {
  for (int serial = 0; serial < 2; serial++) {
    e2e_scratch_t s;
    e2e_scratch_init(&s);
    char *suite = write_mixed_suite(&s);
    e2e_proc_t p;
    char *fault = e2e_path("TORQ_TEST_FAULT=trail:%s/trail;crash:crashes;hang:hangs", s.dir);
    e2e_run_faults(&s, e2e_top(), (const char *const[]){fault, NULL},
                   (const char *const[]){suite, "-j", serial ? "1" : "2", NULL}, &p);
    free(fault);
    ck_assert_msg(p.exit_code == 1, "exit %d\n%s\n%s", p.exit_code, p.out, p.err);
    char *run = e2e_only_run(&s);
    ck_assert_uint_eq(e2e_journal_count(run, NULL), 8);
    ck_assert_uint_eq(e2e_journal_count(run, "passed"), 2);
    ck_assert_uint_eq(e2e_journal_count(run, "failed"), 2);
    ck_assert_uint_eq(e2e_journal_count(run, "error"), 2);
    ck_assert_uint_eq(e2e_journal_count(run, "xfailed"), 1);
    ck_assert_uint_eq(e2e_journal_count(run, "skipped"), 1);
    static const struct {
      const char *name, *outcome, *type, *says;
    } want[] = {
        {"good_first", "passed", NULL, NULL},
        {"does_not_compile", "failed", "compile_error", "broken.mlir:4:5: error: returned value"},
        {"too_slow_for_its_gate", "failed", "expectation", "overall_us"},
        {"crashes", "error", "crash", "SIGSEGV"},
        {"hangs", "error", "timeout", "timeout"},
        {"known_broken", "xfailed", "compile_error", "the compiler rejects"},
        {"skipped_one", "skipped", NULL, "not today"},
        {"good_last", "passed", NULL, NULL},
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
      char *line = journal_line_of(run, want[i].name);
      char *o = e2e_path("\"outcome\":\"%s\"", want[i].outcome);
      ck_assert_msg(strstr(line, o) != NULL, "%s: %s", want[i].name, line);
      if (want[i].type) {
        char *t = e2e_path("\"failure_type\":\"%s\"", want[i].type);
        ck_assert_msg(strstr(line, t) != NULL, "%s: %s", want[i].name, line);
        free(t);
      }
      if (want[i].says)
        ck_assert_msg(strstr(line, want[i].says) != NULL, "%s: %s", want[i].name, line);
      free(o);
      free(line);
    }
    size_t t, f, e, sk;
    const char *parser;
    char *junit = e2e_path("%s/junit.xml", run);
    e2e_junit_counts(junit, &t, &f, &e, &sk, &parser);
    ck_assert_uint_eq(t, 8);
    ck_assert_uint_eq(f, 2);
    ck_assert_uint_eq(e, 2);
    ck_assert_uint_eq(sk, 2); /* skipped + xfailed */
    /* Each test ran once; serially, the test after one that did not pass ran in a fresh
     * worker (not in the one it was sent to ahead). */
    char *trail_path = e2e_path("%s/trail", s.dir);
    char *trail = e2e_read(trail_path);
    ck_assert_ptr_nonnull(trail);
    static const char *const ran[] = {"good_first", "too_slow_for_its_gate", "crashes", "hangs",
                                      "good_last"};
    long pid[5];
    for (size_t i = 0; i < 5; i++) {
      char *key = e2e_path("mixed/%s ", ran[i]);
      const char *at = strstr(trail, key);
      ck_assert_msg(at != NULL, "%s did not run:\n%s", ran[i], trail);
      ck_assert_msg(strstr(at + 1, key) == NULL, "%s ran twice:\n%s", ran[i], trail);
      pid[i] = atol(at + strlen(key));
      free(key);
    }
    if (serial) {
      ck_assert_msg(pid[1] != pid[0], "%s", trail); /* does_not_compile failed in between */
      ck_assert_msg(pid[2] != pid[1], "%s", trail); /* too_slow_for_its_gate failed */
      ck_assert_msg(pid[3] != pid[2], "%s", trail); /* crashes crashed */
      ck_assert_msg(pid[4] != pid[3], "%s", trail); /* hangs timed out */
    }
    free(trail);
    free(trail_path);
    /* The crash left what the worker printed in its stderr.txt. */
    char *crash_err = e2e_path("%s/mixed+crashes/stderr.txt", run);
    char *text = e2e_read(crash_err);
    ck_assert_msg(text && strstr(text, "crashing on purpose"), "%s", crash_err);
    free(text);
    free(crash_err);
    free(junit);
    free(run);
    free(suite);
    e2e_proc_free(&p);
    e2e_scratch_free(&s);
  }
}
END_TEST

/* Serially, past the tests one worker runs before a fresh one replaces it: the tests sent
 * ahead never cross to the fresh worker, every test is recorded once, in order, and passes, also
 * when one read of the worker's pipe brings several results. */
START_TEST(a_serial_run_outlasting_its_workers_records_every_test_once) {
  const size_t n = TQH__WORKER_MAX_TESTS + 80;
  if (e2e_light()) {
    tq_test_skip("%zu tests in a row are left out under valgrind (TORQ_VALGRIND)", n);
    return;
  }
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  char *add = e2e_path("%s/add.mlir", s.dir), *suite = e2e_path("%s/long.yaml", s.dir);
  e2e_write_add_model(add);
  tq_buf_t yaml;
  tq_buf_init(&yaml, 0);
  ck_assert_ptr_null(tq_buf_printf(&yaml, "suite: long\ntests:\n"));
  for (size_t i = 0; i < n; i++)
    ck_assert_ptr_null(tq_buf_printf(
        &yaml, "  - {name: t%04zu, model: add.mlir, inputs: ['4xi32=%zu,2,3,4', '4xi32=1']}\n", i,
        i));
  e2e_write(suite, yaml.data);
  tq_buf_deinit(&yaml);
  e2e_proc_t p;
  e2e_run(&s, s.dir, NULL, (const char *const[]){suite, "-j", "1", "--no-profiling", "-q", NULL},
          &p);
  ck_assert_msg(p.exit_code == 0, "exit %d\n%s\n%s", p.exit_code, p.out, p.err);
  char *run = e2e_only_run(&s);
  ck_assert_uint_eq(e2e_journal_count(run, NULL), n);
  ck_assert_uint_eq(e2e_journal_count(run, "passed"), n);
  char *journal_path = e2e_path("%s/journal.jsonl", run);
  char *journal = e2e_read(journal_path);
  ck_assert_ptr_nonnull(journal);
  const char *at = journal;
  for (size_t i = 0; i < n; i++) {
    char key[64];
    snprintf(key, sizeof(key), "\"id\":\"long+t%04zu\"", i);
    const char *line = strstr(at, key);
    ck_assert_msg(line != NULL, "long/t%04zu is not recorded after long/t%04zu", i, i - 1);
    at = line + strlen(key);
  }
  free(journal);
  free(journal_path);
  free(run);
  free(add);
  free(suite);
  e2e_proc_free(&p);
  e2e_scratch_free(&s);
}
END_TEST

/* With -j 2, the tests sent ahead to a worker held up by a long test are taken back by the other
 * worker once the queue is empty: none waits behind the long one. */
START_TEST(tests_sent_ahead_do_not_wait_behind_a_long_test) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  char *add = e2e_path("%s/add.mlir", s.dir), *suite = e2e_path("%s/lag.yaml", s.dir);
  e2e_write_add_model(add);
  e2e_write(suite, "suite: lag\ntests:\n"
                   "  - {name: long_one, model: add.mlir}\n"
                   "  - {name: t1, model: add.mlir}\n  - {name: t2, model: add.mlir}\n"
                   "  - {name: t3, model: add.mlir}\n  - {name: t4, model: add.mlir}\n"
                   "  - {name: t5, model: add.mlir}\n  - {name: t6, model: add.mlir}\n");
  char *fault = e2e_path("TORQ_TEST_FAULT=trail:%s/trail;nap:long_one", s.dir);
  e2e_proc_t p;
  e2e_run_faults(&s, s.dir, (const char *const[]){fault, NULL},
                 (const char *const[]){suite, "-j", "2", "--no-profiling", NULL}, &p);
  ck_assert_msg(p.exit_code == 0, "exit %d\n%s\n%s", p.exit_code, p.out, p.err);
  char *run = e2e_only_run(&s);
  ck_assert_uint_eq(e2e_journal_count(run, "passed"), 7);
  /* Each short test is recorded before the long one, and ran in the other worker. */
  char *journal_path = e2e_path("%s/journal.jsonl", run);
  char *journal = e2e_read(journal_path);
  char *trail_path = e2e_path("%s/trail", s.dir);
  char *trail = e2e_read(trail_path);
  ck_assert_ptr_nonnull(journal);
  ck_assert_ptr_nonnull(trail);
  const char *long_at = strstr(journal, "\"id\":\"lag+long_one\"");
  const char *long_trail = strstr(trail, "lag/long_one ");
  ck_assert_ptr_nonnull(long_at);
  ck_assert_ptr_nonnull(long_trail);
  long long_pid = atol(long_trail + strlen("lag/long_one "));
  for (int i = 1; i <= 6; i++) {
    char key[64], who[32];
    snprintf(key, sizeof(key), "\"id\":\"lag+t%d\"", i);
    snprintf(who, sizeof(who), "lag/t%d ", i);
    const char *at = strstr(journal, key), *ran = strstr(trail, who);
    ck_assert_msg(at && at < long_at, "t%d is recorded after long_one", i);
    ck_assert_msg(ran && atol(ran + strlen(who)) != long_pid, "t%d ran behind long_one:\n%.400s",
                  i, trail);
  }
  free(trail);
  free(trail_path);
  free(journal);
  free(journal_path);
  free(run);
  free(fault);
  free(add);
  free(suite);
  e2e_proc_free(&p);
  e2e_scratch_free(&s);
}
END_TEST

/* -x with -j 2: once a test fails, no test starts, also none of those sent ahead to the worker
 * still in a long test. */
START_TEST(exitfirst_starts_none_of_the_tests_sent_ahead) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  char *add = e2e_path("%s/add.mlir", s.dir), *bad = e2e_path("%s/bad.mlir", s.dir);
  char *suite = e2e_path("%s/x.yaml", s.dir);
  e2e_write_add_model(add);
  e2e_write_broken_model(bad);
  e2e_write(suite, "suite: x\ntests:\n"
                   "  - {name: long_one, model: add.mlir}\n  - {name: bad, model: bad.mlir}\n"
                   "  - {name: a, model: add.mlir}\n  - {name: b, model: add.mlir}\n"
                   "  - {name: c, model: add.mlir}\n  - {name: d, model: add.mlir}\n");
  e2e_proc_t p;
  e2e_run_faults(&s, s.dir, (const char *const[]){"TORQ_TEST_FAULT=nap:long_one", NULL},
                 (const char *const[]){suite, "-j", "2", "-x", "--no-profiling", NULL}, &p);
  ck_assert_msg(p.exit_code == 1, "exit %d\n%s\n%s", p.exit_code, p.out, p.err);
  char *run = e2e_only_run(&s);
  ck_assert_uint_eq(e2e_journal_count(run, NULL), 6);
  ck_assert_uint_eq(e2e_journal_count(run, "passed"), 1); /* long_one, started before */
  ck_assert_uint_eq(e2e_journal_count(run, "failed"), 1);
  ck_assert_uint_eq(e2e_journal_count(run, "not_run"), 4);
  free(run);
  free(add);
  free(bad);
  free(suite);
  e2e_proc_free(&p);
  e2e_scratch_free(&s);
}
END_TEST

/* Fault injection lives only in torq-test-faults: the shipped torq-test runs the same suite with
 * TORQ_TEST_FAULT set as if it were not. */
START_TEST(shipped_binary_ignores_fault_injection) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  char *model = e2e_path("%s/add.mlir", s.dir);
  e2e_write_add_model(model);
  char *suite = e2e_path("%s/f.yaml", s.dir);
  e2e_write(suite,
            "suite: f\ndefaults:\n  timeout: {compile: 60, run: 2}\ntests:\n"
            "  - name: crashes\n    model: add.mlir\n"
            "  - name: hangs\n    model: add.mlir\n");
  e2e_proc_t p;
  e2e_run(&s, e2e_top(),
          (const char *const[]){"TORQ_TEST_FAULT=crash:crashes;hang:hangs;sleep:30", NULL},
          (const char *const[]){suite, "--no-profiling", NULL}, &p);
  ck_assert_msg(p.exit_code == 0, "exit %d\n%s\n%s", p.exit_code, p.out, p.err);
  char *run = e2e_only_run(&s);
  ck_assert_uint_eq(e2e_journal_count(run, NULL), 2);
  ck_assert_uint_eq(e2e_journal_count(run, "passed"), 2);
  char *err_path = e2e_path("%s/f+crashes/stderr.txt", run);
  char *err = e2e_read(err_path);
  ck_assert_ptr_nonnull(err);
  ck_assert_ptr_null(strstr(err, "crashing on purpose"));
  free(err);
  free(err_path);
  free(run);
  free(suite);
  free(model);
  e2e_proc_free(&p);
  e2e_scratch_free(&s);
}
END_TEST

START_TEST(expected_failure_that_passes_is_xpassed_or_failed_when_strict) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  char *model = e2e_path("%s/add.mlir", s.dir);
  e2e_write_add_model(model);
  char *suite = e2e_path("%s/x.yaml", s.dir);
  e2e_write(suite,
            "suite: x\ntests:\n  - name: fixed\n    model: add.mlir\n"
            "    xfail: was broken once\n");
  e2e_proc_t p;
  e2e_run(&s, e2e_top(), NULL, (const char *const[]){suite, "--no-profiling", NULL}, &p);
  ck_assert_msg(p.exit_code == 0, "%s%s", p.out, p.err);
  char *run = e2e_only_run(&s);
  ck_assert_uint_eq(e2e_journal_count(run, "xpassed"), 1);
  char *aside = e2e_path("%s/first", s.dir);
  ck_assert_int_eq(rename(run, aside), 0);
  e2e_proc_free(&p);
  e2e_run(&s, e2e_top(), NULL, (const char *const[]){suite, "--no-profiling", "--strict", NULL},
          &p);
  ck_assert_msg(p.exit_code == 1, "%s%s", p.out, p.err);
  free(run);
  run = e2e_only_run(&s);
  ck_assert_uint_eq(e2e_journal_count(run, "failed"), 1);
  char *line = journal_line_of(run, "fixed");
  ck_assert_ptr_nonnull(strstr(line, "XPASS(strict)"));
  free(line);
  free(run);
  free(aside);
  free(suite);
  free(model);
  e2e_proc_free(&p);
  e2e_scratch_free(&s);
}
END_TEST

START_TEST(report_rebuilds_the_same_reports_from_the_journal) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  char *model = e2e_path("%s/add.mlir", s.dir);
  e2e_write_add_model(model);
  char *suite = e2e_path("%s/r.yaml", s.dir);
  e2e_write(suite,
            "suite: r\ntests:\n  - name: a\n    model: add.mlir\n    repeat: 2\n"
            "  - name: b\n    model: add.mlir\n    repeat: 3\n");
  char *copy = e2e_path("%s/copy/junit.xml", s.dir);
  char *opt = e2e_path("--junitxml=%s", copy);
  char *profdir = e2e_path("%s/profiles", s.dir);
  char *opt2 = e2e_path("--torq-runtime-profiling-output-dir=%s", profdir);
  e2e_proc_t p;
  e2e_run(&s, e2e_top(), NULL, (const char *const[]){suite, opt, opt2, "-v", NULL}, &p);
  ck_assert_msg(p.exit_code == 0, "%s%s", p.out, p.err);
  /* -v logs the wall time of every timed run. */
  ck_assert_uint_eq(e2e_count(p.out, "Wall time: "), 5);
  char *run = e2e_only_run(&s);
  char *junit = e2e_path("%s/junit.xml", run), *summary = e2e_path("%s/summary.txt", run);
  char *j1 = e2e_read(junit), *s1 = e2e_read(summary), *c1 = e2e_read(copy);
  ck_assert_ptr_nonnull(c1);
  ck_assert_str_eq(j1, c1);
  char *pb = e2e_path("%s/r+b/profile.pb", profdir);
  ck_assert_msg(e2e_exists(pb), "no %s", pb);
  ck_assert_int_eq(remove(junit), 0);
  ck_assert_int_eq(remove(summary), 0);
  e2e_proc_free(&p);
  e2e_run(&s, e2e_top(), NULL, (const char *const[]){"report", run, NULL}, &p);
  ck_assert_msg(p.exit_code == 0, "%s%s", p.out, p.err);
  char *j2 = e2e_read(junit), *s2 = e2e_read(summary);
  ck_assert_ptr_nonnull(j2);
  ck_assert_str_eq(j1, j2);
  ck_assert_str_eq(s1, s2);
  ck_assert_ptr_nonnull(strstr(p.out, s1));
  free(j1);
  free(j2);
  free(s1);
  free(s2);
  free(c1);
  free(pb);
  free(junit);
  free(summary);
  free(run);
  free(copy);
  free(opt);
  free(opt2);
  free(profdir);
  free(suite);
  free(model);
  e2e_proc_free(&p);
  e2e_scratch_free(&s);
}
END_TEST

Suite *e2e_suite_run(void) {
  Suite *s = suite_create("run");
  TCase *tc = tcase_create("run");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, smoke_suite_passes_and_writes_the_results_folder);
  tcase_add_test(tc, second_run_compiles_nothing_and_gives_the_same_overview);
  tcase_add_test(tc, each_failure_stays_in_its_test_and_the_rest_run);
  tcase_add_test(tc, a_serial_run_outlasting_its_workers_records_every_test_once);
  tcase_add_test(tc, tests_sent_ahead_do_not_wait_behind_a_long_test);
  tcase_add_test(tc, exitfirst_starts_none_of_the_tests_sent_ahead);
  tcase_add_test(tc, shipped_binary_ignores_fault_injection);
  tcase_add_test(tc, expected_failure_that_passes_is_xpassed_or_failed_when_strict);
  tcase_add_test(tc, report_rebuilds_the_same_reports_from_the_journal);
  suite_add_tcase(s, tc);
  return s;
}
