/* The whole TOSA corpus through the real binary: suites/tosa_corpus.yaml, every model a test with
 * its result folder and its JUnit test case, and -q saying no more than the failures and one
 * summary line. A few seconds with -j 2; skipped (and counted) under
 * valgrind and when TORQ_E2E_CORPUS=0; a missing corpus is a failure under CI and a counted skip
 * otherwise. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e.h"

static size_t count_models(const char *dir) {
  DIR *d = opendir(dir);
  ck_assert_msg(d != NULL, "no corpus at %s", dir);
  size_t n = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    size_t len = strlen(e->d_name);
    if (len > 5 && !strcmp(e->d_name + len - 5, ".mlir")) n++;
  }
  closedir(d);
  return n;
}

START_TEST(corpus_suite_runs_every_model_with_a_folder_and_a_test_case) {
  const char *gate = getenv("TORQ_E2E_CORPUS");
  if (e2e_light() || (gate && !strcmp(gate, "0"))) {
    tq_test_skip("the whole corpus is left out %s",
                 e2e_light() ? "under valgrind (TORQ_VALGRIND)" : "with TORQ_E2E_CORPUS=0");
    return;
  }
  const char *corpus = tq_test_corpus();
  if (!corpus) return;
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  size_t models = count_models(corpus);
  ck_assert_uint_eq(models, 208);
  e2e_proc_t p;
  e2e_run(&s, e2e_top(), NULL,
          (const char *const[]){"suites/tosa_corpus.yaml", "-j", "2", "-q", NULL}, &p);
  /* Every corpus model compiles, runs and matches the reference. */
  ck_assert_msg(p.exit_code == 0, "exit %d\n%s\n%s", p.exit_code, p.out, p.err);
  char *run = e2e_only_run(&s);
  ck_assert_uint_eq(e2e_journal_count(run, NULL), models);
  size_t folders = 0;
  DIR *d = opendir(run);
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char *report = e2e_path("%s/%s/report.json", run, e->d_name);
    folders += e2e_exists(report);
    free(report);
  }
  closedir(d);
  ck_assert_uint_eq(folders, models);
  size_t t, f, er, sk;
  const char *parser;
  char *junit = e2e_path("%s/junit.xml", run);
  e2e_junit_counts(junit, &t, &f, &er, &sk, &parser);
  ck_assert_uint_eq(t, models);
  ck_assert_uint_eq(f, e2e_journal_count(run, "failed"));
  ck_assert_uint_eq(er, e2e_journal_count(run, "error"));
  ck_assert_uint_eq(sk, e2e_journal_count(run, "skipped") + e2e_journal_count(run, "xfailed") +
                            e2e_journal_count(run, "not_run"));
  /* -q: one line per failure and one summary line, nothing else (4,373 lines before). */
  ck_assert_msg(e2e_count(p.out, "\n") == f + er + 1, "-q printed %zu lines:\n%s",
                e2e_count(p.out, "\n"), p.out);
  ck_assert_ptr_nonnull(strstr(p.out, "208 tests: "));
  fprintf(stderr, "corpus: %zu models, %zu failures, %zu errors, %zu skipped (%s); -q: %zu line%s\n",
          t, f, er, sk, parser, e2e_count(p.out, "\n"), e2e_count(p.out, "\n") == 1 ? "" : "s");
  free(junit);
  free(run);
  e2e_proc_free(&p);
  e2e_scratch_free(&s);
}
END_TEST

Suite *e2e_suite_corpus(void) {
  Suite *s = suite_create("corpus");
  TCase *tc = tcase_create("corpus");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, corpus_suite_runs_every_model_with_a_folder_and_a_test_case);
  suite_add_tcase(s, tc);
  return s;
}
