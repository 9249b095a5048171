/* Runs that end early: SIGKILL (nothing can be done, so what is on disk must already be valid)
 * and SIGINT (stop, record the rest as not run, exit 130). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "e2e.h"

#define TESTS 12

/* TESTS tests of a tiny model; with TORQ_TEST_FAULT=sleep:S each takes about S seconds. */
static char *write_slow_suite(const e2e_scratch_t *s) {
  char *model = e2e_path("%s/add.mlir", s->dir);
  e2e_write_add_model(model);
  free(model);
  char *suite = e2e_path("%s/slow.yaml", s->dir);
  char text[4096];
  size_t len = (size_t)snprintf(text, sizeof(text), "suite: slow\ntests:\n");
  for (int i = 0; i < TESTS; i++)
    len += (size_t)snprintf(text + len, sizeof(text) - len,
                            "  - name: t%02d\n    model: add.mlir\n", i);
  e2e_write(suite, text);
  return suite;
}

/* Waits until the run's journal has at least `lines` lines (or fails the test after 60 s). */
static char *wait_for_journal(const e2e_scratch_t *s, size_t lines) {
  for (int tries = 0; tries < 6000; tries++) {
    if (e2e_num_runs(s) == 1) {
      char *run = e2e_only_run(s);
      if (e2e_journal_count(run, NULL) >= lines) return run;
      free(run);
    }
    struct timespec ts = {0, 10000000};
    nanosleep(&ts, NULL);
  }
  ck_abort_msg("the journal never reached %zu lines", lines);
  return NULL;
}

/* Every test that passed according to the journal has its report.json (whole JSON) and
 * wall_time.txt. Returns how many were checked. */
static int check_finished_tests_intact(const char *run) {
  char *jp = e2e_path("%s/journal.jsonl", run);
  char *journal = e2e_read(jp);
  free(jp);
  int checked = 0;
  for (int i = 0; i < TESTS; i++) {
    char *name = e2e_path("\"name\":\"t%02d\"", i);
    char *at = strstr(journal, name);
    char *eol = at ? strchr(at, '\n') : NULL;
    char *ok = at ? strstr(at, "\"outcome\":\"passed\"") : NULL;
    if (at && ok && (!eol || ok < eol)) {
      checked++;
      char *rp = e2e_path("%s/slow+t%02d/report.json", run, i);
      char *report = e2e_read(rp);
      ck_assert_msg(report != NULL, "missing %s", rp);
      size_t n = strlen(report);
      while (n && (report[n - 1] == '\n' || report[n - 1] == ' ')) n--;
      ck_assert_msg(report[0] == '{' && n && report[n - 1] == '}', "torn %s", rp);
      ck_assert_ptr_nonnull(strstr(report, "\"outcome\":"));
      char *wp = e2e_path("%s/slow+t%02d/wall_time.txt", run, i);
      char *wt = e2e_read(wp);
      double v = 0;
      ck_assert_msg(wt && sscanf(wt, "%lf", &v) == 1 && v > 0, "bad %s", wp);
      free(wt);
      free(wp);
      free(report);
      free(rp);
    }
    free(name);
  }
  free(journal);
  return checked;
}

START_TEST(sigkill_mid_run_leaves_valid_reports_of_finished_tests) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  char *suite = write_slow_suite(&s);
  pid_t pid =
      e2e_spawn_faults(&s, e2e_top(), (const char *const[]){"TORQ_TEST_FAULT=sleep:0.2", NULL},
                       (const char *const[]){suite, "--no-profiling", NULL});
  char *run = wait_for_journal(&s, 3);
  ck_assert_int_eq(kill(pid, SIGKILL), 0);
  ck_assert_int_eq(e2e_wait(pid), 128 + SIGKILL);
  size_t finished = e2e_journal_count(run, NULL);
  ck_assert_uint_ge(finished, 3);
  ck_assert_uint_lt(finished, TESTS);
  size_t t, f, e, sk;
  const char *parser;
  char *junit = e2e_path("%s/junit.xml", run);
  e2e_junit_counts(junit, &t, &f, &e, &sk, &parser);
  /* junit.xml follows the journal line of each test: killed between the two, it is one behind. */
  ck_assert_msg(t == finished || t + 1 == finished, "junit.xml has %zu tests, the journal %zu", t,
                finished);
  ck_assert_uint_eq(f + e + sk, 0);
  ck_assert_int_ge(check_finished_tests_intact(run), (int)finished - 1);
  /* The workers died with the runner: nothing writes into the run any more. */
  sleep(1);
  size_t later = e2e_journal_count(run, NULL);
  ck_assert_uint_eq(later, finished);
  /* And the reports can be rebuilt from the journal to hold every finished test. */
  e2e_proc_t p;
  e2e_run(&s, e2e_top(), NULL, (const char *const[]){"report", run, NULL}, &p);
  ck_assert_msg(p.exit_code == 0, "%s", p.err);
  e2e_junit_counts(junit, &t, &f, &e, &sk, &parser);
  ck_assert_uint_eq(t, finished);
  e2e_proc_free(&p);
  free(junit);
  free(run);
  free(suite);
  e2e_scratch_free(&s);
}
END_TEST

START_TEST(sigint_stops_marks_the_rest_not_run_and_exits_130) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  char *suite = write_slow_suite(&s);
  pid_t pid =
      e2e_spawn_faults(&s, e2e_top(), (const char *const[]){"TORQ_TEST_FAULT=sleep:0.2", NULL},
                       (const char *const[]){suite, "--no-profiling", "-j", "2", NULL});
  char *run = wait_for_journal(&s, 2);
  ck_assert_int_eq(kill(pid, SIGINT), 0);
  ck_assert_int_eq(e2e_wait(pid), 130);
  /* Every test is in the journal: the finished ones, and the rest as not run. */
  size_t all = e2e_journal_count(run, NULL);
  size_t passed = e2e_journal_count(run, "passed"), not_run = e2e_journal_count(run, "not_run");
  ck_assert_uint_eq(all, TESTS);
  ck_assert_uint_ge(passed, 2);
  ck_assert_uint_ge(not_run, 1);
  ck_assert_uint_eq(passed + not_run, TESTS);
  size_t t, f, e, sk;
  const char *parser;
  char *junit = e2e_path("%s/junit.xml", run);
  e2e_junit_counts(junit, &t, &f, &e, &sk, &parser);
  ck_assert_uint_eq(t, TESTS);
  ck_assert_uint_eq(sk, not_run);
  ck_assert_uint_eq(f + e, 0);
  ck_assert_int_eq(check_finished_tests_intact(run), (int)passed);
  char *out = e2e_path("%s/.stdout", s.dir);
  char *text = e2e_read(out);
  ck_assert_ptr_nonnull(strstr(text, "interrupted"));
  free(text);
  free(out);
  free(junit);
  free(run);
  free(suite);
  e2e_scratch_free(&s);
}
END_TEST

Suite *e2e_suite_signals(void) {
  Suite *s = suite_create("signals");
  TCase *tc = tcase_create("signals");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, sigkill_mid_run_leaves_valid_reports_of_finished_tests);
  tcase_add_test(tc, sigint_stops_marks_the_rest_not_run_and_exits_130);
  suite_add_tcase(s, tc);
  return s;
}
