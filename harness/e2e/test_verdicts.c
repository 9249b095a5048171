/* Verdicts people can trust, end to end with the real torq-test:
 * - 20 tiny models, repeat 5, as the baseline; then 5 unchanged reruns while a CPU hog (a
 *   bounded busy loop in a child process) runs: no regression in any rerun, and `compare` exits
 *   0 on every pair of the six runs;
 * - a model with about 10% more work under the same test name is flagged on its deterministic
 *   metrics, each line naming the metric, the baseline, the new value and the change;
 * - the history: every run recorded, `history import|list|show`, `--baseline=history`, and the
 *   trends page that index.html links to.
 * (The loopback board's device time is test_boards.c's.) */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "e2e.h"
#include "torq/base/str.h"

Suite *e2e_suite_verdicts(void);

/* An elementwise model of `n` int32 elements: add or sub. */
static void write_elementwise(const char *path, const char *op, unsigned n) {
  char *text = e2e_path("module {\n"
                        "  func.func @main(%%arg0: tensor<%uxi32>, %%arg1: tensor<%uxi32>) -> "
                        "tensor<%uxi32> {\n"
                        "    %%0 = tosa.%s %%arg0, %%arg1 : (tensor<%uxi32>, tensor<%uxi32>) -> "
                        "tensor<%uxi32>\n"
                        "    return %%0 : tensor<%uxi32>\n"
                        "  }\n"
                        "}\n",
                        n, n, n, op, n, n, n, n);
  e2e_write(path, text);
  free(text);
}

/* A CPU hog: a child spinning until `seconds` passed or it is killed. */
static pid_t hog_start(double seconds) {
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    volatile unsigned long x = 0;
    for (;;) {
      for (int i = 0; i < 1000000; i++) x += (unsigned long)i * 2654435761u;
      clock_gettime(CLOCK_MONOTONIC, &t);
      if ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 > seconds)
        _exit(0);
    }
  }
  return pid;
}

static void hog_stop(pid_t pid) {
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
}

START_TEST(unchanged_models_under_a_cpu_hog_never_regress) {
  if (e2e_light()) {
    tq_test_skip("the CPU hog runs are heavy under valgrind");
    return;
  }
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  /* 20 models: add and sub of 4 .. 1216 elements. */
  tq_buf_t suite;
  tq_buf_init(&suite, 0);
  ck_assert_ptr_null(tq_buf_append_cstr(&suite, "suite: twenty\ndefaults:\n  repeat: 5\n"
                                                "  warmup: 1\ntests:\n"));
  for (unsigned i = 0; i < 20; i++) {
    char *model = e2e_path("%s/m%02u.mlir", s.dir, i);
    write_elementwise(model, i % 2 ? "sub" : "add", 4 + 64 * i);
    ck_assert_ptr_null(tq_buf_printf(&suite, "  - name: m%02u\n    model: m%02u.mlir\n", i, i));
    free(model);
  }
  char *suite_path = e2e_path("%s/twenty.yaml", s.dir);
  e2e_write(suite_path, suite.data);
  tq_buf_deinit(&suite);

  char *runs[6];
  e2e_proc_t p;
  e2e_run(&s, e2e_top(), NULL, (const char *const[]){suite_path, NULL}, &p);
  ck_assert_msg(p.exit_code == 0, "baseline run: exit %d\n%s%s", p.exit_code, p.out, p.err);
  runs[0] = e2e_run_folder(&p);
  e2e_proc_free(&p);
  char *baseline = e2e_path("--baseline=%s", runs[0]);
  pid_t hog = hog_start(600);
  for (int k = 1; k <= 5; k++) {
    e2e_run(&s, e2e_top(), NULL, (const char *const[]){suite_path, baseline, NULL}, &p);
    runs[k] = e2e_run_folder(&p);
    int exit_code = p.exit_code;
    size_t regressed = e2e_count(p.out, "REGRESSED") + e2e_count(p.out, "regression");
    if (exit_code != 0 || regressed) hog_stop(hog);
    ck_assert_msg(exit_code == 0 && regressed == 0, "rerun %d under the hog: exit %d\n%s%s", k,
                  exit_code, p.out, p.err);
    ck_assert_uint_eq(e2e_journal_count(runs[k], "passed"), 20);
    ck_assert_uint_eq(e2e_journal_count(runs[k], "failed"), 0);
    e2e_proc_free(&p);
    /* Every test compared, none regressed: the property says so. */
    char *journal = e2e_path("%s/journal.jsonl", runs[k]);
    char *text = e2e_read(journal);
    ck_assert_uint_eq(e2e_count(text, "\"baseline\":\"within noise\"") +
                          e2e_count(text, "\"baseline\":\"same\""),
                      20);
    free(text);
    free(journal);
  }
  hog_stop(hog);
  /* compare: every pair of the six runs. The host wall time is shown and not gated. */
  for (int a = 0; a < 6; a++)
    for (int b = a + 1; b < 6; b++) {
      e2e_run(&s, e2e_top(), NULL, (const char *const[]){"compare", runs[a], runs[b], NULL}, &p);
      ck_assert_msg(p.exit_code == 0, "compare %d %d: exit %d\n%s%s", a, b, p.exit_code, p.out,
                    p.err);
      ck_assert_msg(strstr(p.out, "20 tests compared: 0 regressed"), "%s", p.out);
      ck_assert_msg(e2e_count(p.out, "not gated") >= 1, "%s", p.out);
      e2e_proc_free(&p);
    }
  /* The six runs are in the history. */
  e2e_run(&s, e2e_top(), NULL, (const char *const[]){"history", "list", NULL}, &p);
  ck_assert_msg(p.exit_code == 0 && strstr(p.out, "6 runs in "), "%s%s", p.out, p.err);
  e2e_proc_free(&p);
  for (int k = 0; k < 6; k++) free(runs[k]);
  free(baseline);
  free(suite_path);
  e2e_scratch_free(&s);
}
END_TEST

/* The change of a metric's line in a message: the field that ends in '%' after the values. */
static double change_of(const char *message, const char *metric) {
  char *needle = e2e_path("\n  %s ", metric);
  const char *line = strstr(message, needle);
  free(needle);
  ck_assert_msg(line != NULL, "no line for %s in:\n%s", metric, message);
  const char *end = strchr(line + 1, '\n');
  for (const char *q = line + 1; q && (!end || q < end); q++) {
    if ((*q == '+' || *q == '-') && q[-1] == ' ') {
      double v = atof(q);
      const char *pct = strchr(q, '%');
      if (pct && (!end || pct < end)) return v;
    }
  }
  ck_abort_msg("no change on the line of %s", metric);
  return 0;
}

/* The message of the first failed test in a run's journal, JSON escapes undone (\n, \"). */
static char *failure_message(const char *run) {
  char *path = e2e_path("%s/journal.jsonl", run);
  char *text = e2e_read(path);
  free(path);
  ck_assert_ptr_nonnull(text);
  const char *m = strstr(text, "\"message\":\"regression: ");
  ck_assert_msg(m != NULL, "%s", text);
  m += 11;
  tq_buf_t out;
  tq_buf_init(&out, 0);
  for (; *m && *m != '"'; m++) {
    if (*m == '\\' && m[1]) {
      m++;
      ck_assert_ptr_null(tq_buf_putc(&out, *m == 'n' ? '\n' : *m));
      if (*m == 'u') m += 4; /* µ is written as itself; \u escapes are not expected here */
    } else {
      ck_assert_ptr_null(tq_buf_putc(&out, *m));
    }
  }
  free(text);
  char *s = strdup(out.data ? out.data : "");
  tq_buf_deinit(&out);
  return s;
}

START_TEST(ten_percent_more_work_is_flagged_on_deterministic_metrics) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  char *base_model = e2e_path("%s/base/add.mlir", s.dir), *more = e2e_path("%s/more/add.mlir", s.dir);
  write_elementwise(base_model, "add", 16384);
  write_elementwise(more, "add", 18022); /* +10% elements */
  const char *suite = "suite: w\ntests:\n  - name: add\n    model: add.mlir\n    repeat: 5\n";
  char *sa = e2e_path("%s/base/w.yaml", s.dir), *sb = e2e_path("%s/more/w.yaml", s.dir);
  e2e_write(sa, suite);
  e2e_write(sb, suite);
  e2e_proc_t p;
  e2e_run(&s, e2e_top(), NULL, (const char *const[]){sa, NULL}, &p);
  ck_assert_msg(p.exit_code == 0, "%s%s", p.out, p.err);
  char *base = e2e_run_folder(&p);
  e2e_proc_free(&p);
  char *opt = e2e_path("--baseline=%s", base);
  e2e_run(&s, e2e_top(), NULL, (const char *const[]){sb, opt, NULL}, &p);
  ck_assert_msg(p.exit_code == 1, "exit %d\n%s%s", p.exit_code, p.out, p.err);
  /* The progress line names what regressed. */
  ck_assert_msg(strstr(p.out, "FAILED   w/add") && strstr(p.out, ": regression: "), "%s", p.out);
  char *worse = e2e_run_folder(&p);
  e2e_proc_free(&p);
  char *msg = failure_message(worse);
  /* A header, then one line per changed metric: metric, baseline, now, change, verdict. */
  ck_assert_msg(strstr(msg, "\n  METRIC ") && strstr(msg, " BASELINE ") && strstr(msg, " NOW ") &&
                    strstr(msg, " CHANGE "),
                "%s", msg);
  double cycles = change_of(msg, "estimated_cycles"), overall = change_of(msg, "OVERALL");
  ck_assert_msg(cycles > 8 && cycles < 12, "estimated_cycles %+.1f%%\n%s", cycles, msg);
  ck_assert_msg(overall > 5 && overall < 12, "OVERALL %+.1f%%\n%s", overall, msg);
  ck_assert_msg(strstr(msg, "30908 cycles") && strstr(msg, "33808 cycles"), "%s", msg);
  ck_assert_msg(strstr(msg, "47.000µs") && strstr(msg, "51.000µs"), "%s", msg);
  ck_assert_msg(e2e_count(msg, "REGRESSED") >= 2, "%s", msg);
  /* The wall time is shown, not gated; the identical metrics are summarised in one line. */
  ck_assert_msg(strstr(msg, "\n  wall_time ") && strstr(msg, "not gated"), "%s", msg);
  ck_assert_msg(strstr(msg, " metrics identical: ") || strstr(msg, " metric identical: "), "%s",
                msg);
  free(msg);

  /* The history has both runs; the heavier run is the new baseline's latest. */
  e2e_run(&s, e2e_top(), NULL,
          (const char *const[]){"history", "show", "w/add", "--metric", "OVERALL", NULL}, &p);
  ck_assert_msg(p.exit_code == 0, "%s%s", p.out, p.err);
  ck_assert_msg(strstr(p.out, "w/add on sim: 2 runs") && strstr(p.out, "47.000µs") &&
                    strstr(p.out, "51.000µs") && strstr(p.out, "failed"),
                "%s", p.out);
  e2e_proc_free(&p);
  e2e_run(&s, e2e_top(), NULL, (const char *const[]){"history", "show", "w/nope", NULL}, &p);
  ck_assert_msg(p.exit_code == 2 && strstr(p.err, "no test 'w/nope'"), "%s%s", p.out, p.err);
  e2e_proc_free(&p);
  /* --baseline=history: against the heavier run (the latest): the same model passes. */
  e2e_run(&s, e2e_top(), NULL, (const char *const[]){sb, "--baseline=history", "-q", NULL}, &p);
  ck_assert_msg(p.exit_code == 0, "exit %d\n%s%s", p.exit_code, p.out, p.err);
  e2e_proc_free(&p);
  /* ... and against its last 1 run, the lighter model improves. */
  e2e_run(&s, e2e_top(), NULL, (const char *const[]){sa, "--baseline=history:1", NULL}, &p);
  ck_assert_msg(p.exit_code == 0 && strstr(p.out, "improved against the baseline"), "%s%s", p.out,
                p.err);
  e2e_proc_free(&p);
  /* compare history:K RUN: the heavier run against the runs before it (the base). */
  e2e_run(&s, e2e_top(), NULL, (const char *const[]){"compare", "history:5", worse, NULL}, &p);
  ck_assert_msg(p.exit_code == 1 && strstr(p.out, "1 test compared: 1 regressed"), "%s%s", p.out,
                p.err);
  e2e_proc_free(&p);
  /* --no-history: nothing recorded, and the history baseline is refused. */
  e2e_run(&s, e2e_top(), NULL,
          (const char *const[]){sa, "--no-history", "--baseline=history", NULL}, &p);
  ck_assert_msg(p.exit_code == 2, "%s%s", p.out, p.err);
  e2e_proc_free(&p);

  free(worse);
  free(opt);
  free(base);
  free(sa);
  free(sb);
  free(base_model);
  free(more);
  e2e_scratch_free(&s);
}
END_TEST

/* `history import` backfills runs made without a history, once each; what is not a run folder is
 * named and the rest still land; a later run with the history links its index.html to the trends
 * page beside the history. */
START_TEST(history_import_backfills_runs_made_without_it) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  char *model = e2e_path("%s/a.mlir", s.dir), *suite = e2e_path("%s/im.yaml", s.dir);
  e2e_write_add_model(model);
  e2e_write(suite, "suite: im\ndefaults:\n  repeat: 5\ntests:\n  - name: a\n    model: a.mlir\n");
  char *history = e2e_path("%s/results/history.sqlite", s.dir);
  char *runs[2];
  e2e_proc_t p;
  for (int k = 0; k < 2; k++) {
    e2e_run(&s, e2e_top(), NULL, (const char *const[]){suite, "--no-history", NULL}, &p);
    ck_assert_msg(p.exit_code == 0, "%s%s", p.out, p.err);
    runs[k] = e2e_run_folder(&p);
    e2e_proc_free(&p);
  }
  ck_assert_msg(!e2e_exists(history), "--no-history made %s", history);
  /* Nothing to show yet: a clear usage error. */
  e2e_run(&s, e2e_top(), NULL, (const char *const[]){"history", "list", NULL}, &p);
  ck_assert_msg(p.exit_code == 2 && strstr(p.err, "no run history at ") &&
                    strstr(p.err, "history import"),
                "%s%s", p.out, p.err);
  e2e_proc_free(&p);
  /* A folder that is not a run beside the two runs: named, and both runs still land. */
  char *stray = e2e_path("%s/not-a-run", s.dir);
  char *stray_file = e2e_path("%s/x.txt", stray);
  e2e_write(stray_file, "x"); /* creates the folder */
  free(stray_file);
  e2e_run(&s, e2e_top(), NULL,
          (const char *const[]){"history", "import", runs[0], stray, runs[1], NULL}, &p);
  ck_assert_msg(p.exit_code == 2, "exit %d\n%s%s", p.exit_code, p.out, p.err);
  ck_assert_msg(strstr(p.err, "not-a-run"), "the stray folder is not named:\n%s", p.err);
  ck_assert_uint_eq(e2e_count(p.out, "Imported "), 2);
  ck_assert_msg(strstr(p.out, ": 1 test\n"), "%s", p.out);
  e2e_proc_free(&p);
  /* Again: both are there already, nothing is added twice. */
  e2e_run(&s, e2e_top(), NULL, (const char *const[]){"history", "import", runs[1], runs[0], NULL},
          &p);
  ck_assert_msg(p.exit_code == 0 && e2e_count(p.out, "Skipped ") == 2, "%s%s", p.out, p.err);
  e2e_proc_free(&p);
  e2e_run(&s, e2e_top(), NULL, (const char *const[]){"history", "list", NULL}, &p);
  ck_assert_msg(p.exit_code == 0 && strstr(p.out, "2 runs in "), "%s%s", p.out, p.err);
  e2e_proc_free(&p);
  /* A run with the history: recorded beside the imported ones, and its index.html links to the
   * trends page, which shows the test. */
  e2e_run(&s, e2e_top(), NULL, (const char *const[]){suite, NULL}, &p);
  ck_assert_msg(p.exit_code == 0 && strstr(p.out, "History: 1 test recorded in "), "%s%s", p.out,
                p.err);
  char *third = e2e_run_folder(&p);
  e2e_proc_free(&p);
  char *index = e2e_path("%s/index.html", third);
  char *html = e2e_read(index);
  ck_assert_msg(html && strstr(html, "href=\"../trends.html\""), "no link to the trends page");
  free(html);
  char *trends = e2e_path("%s/results/trends.html", s.dir);
  html = e2e_read(trends);
  ck_assert_msg(html && strstr(html, "id=\"t-im/a\""), "the trends page misses im/a");
  free(html);
  e2e_run(&s, e2e_top(), NULL, (const char *const[]){"history", "show", "im/a", NULL}, &p);
  ck_assert_msg(p.exit_code == 0 && strstr(p.out, "im/a on sim: 3 runs") &&
                    e2e_count(p.out, "(n=5)") == 3,
                "%s%s", p.out, p.err);
  e2e_proc_free(&p);

  free(trends);
  free(index);
  free(third);
  free(stray);
  for (int k = 0; k < 2; k++) free(runs[k]);
  free(history);
  free(suite);
  free(model);
  e2e_scratch_free(&s);
}
END_TEST

Suite *e2e_suite_verdicts(void) {
  Suite *s = suite_create("verdicts");
  TCase *tc = tcase_create("verdicts");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, unchanged_models_under_a_cpu_hog_never_regress);
  tcase_add_test(tc, ten_percent_more_work_is_flagged_on_deterministic_metrics);
  tcase_add_test(tc, history_import_backfills_runs_made_without_it);
  suite_add_tcase(s, tc);
  return s;
}
