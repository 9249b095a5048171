/* The command line of the real binary: usage, selection, bad suites, boards, report. */
#include <stdlib.h>
#include <string.h>

#include "e2e.h"

START_TEST(help_and_version_exit_0) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  e2e_proc_t p;
  e2e_run(&s, e2e_top(), NULL, (const char *const[]){"--help", NULL}, &p);
  ck_assert_int_eq(p.exit_code, 0);
  static const char *const options[] = {"-k EXPR", "-m TAG-EXPR", "--list", "-j, --jobs N",
                                        "--repeat N", "--warmup N", "--junitxml=FILE",
                                        "--results-dir=DIR", "--torq-runtime-hw-type=sim|astra_machina",
                                        "--torq-addr=user@host[:port]",
                                        "--torq-runtime-profiling-output-dir=DIR",
                                        "--recompute-cache", "--update-astra-runtime", "-q, --quiet",
                                        "-v, --verbose", "--no-color", "--strict", "report RUN_DIR"};
  for (size_t i = 0; i < sizeof(options) / sizeof(options[0]); i++)
    ck_assert_msg(strstr(p.out, options[i]) != NULL, "--help does not mention %s", options[i]);
  e2e_proc_free(&p);
  e2e_run(&s, e2e_top(), NULL, (const char *const[]){"--version", NULL}, &p);
  ck_assert_int_eq(p.exit_code, 0);
  ck_assert_msg(!strncmp(p.out, "torq-test ", 10), "%s", p.out);
  e2e_proc_free(&p);
  ck_assert_uint_eq(e2e_num_runs(&s), 0);
  e2e_scratch_free(&s);
}
END_TEST

/* Usage errors: exit 2, a message naming the problem, and no run folder. */
static const struct {
  const char *args[4];
  const char *says;
} k_usage[] = {
    {{"--bogus", NULL}, "unknown option '--bogus'"},
    {{"-j", NULL}, "option '-j' needs a value"},
    {{"-j", "zero", NULL}, "-j zero"},
    {{"--repeat=0", NULL}, "--repeat 0"},
    {{"--list=yes", NULL}, "takes no value"},
    {{"-k", "conv and", NULL}, "column"},
    {{"-m", "(smoke", NULL}, "-m"},
    {{"--torq-runtime-hw-type=fpga", NULL}, "expected 'sim' or 'astra_machina'"},
    {{"--torq-runtime-hw-type=astra_machina", NULL}, "needs a board"},
    {{"--torq-addr=root@:22", NULL}, "host is empty"},
    {{"--update-astra-runtime", NULL}, "needs a board"},
    {{"report", NULL}, "needs the run folder"},
};

START_TEST(usage_errors_exit_2_before_any_work) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  e2e_proc_t p;
  e2e_run(&s, e2e_top(), NULL, k_usage[_i].args, &p);
  ck_assert_msg(p.exit_code == 2, "%s: exit %d\n%s", k_usage[_i].args[0], p.exit_code, p.err);
  ck_assert_msg(strstr(p.err, k_usage[_i].says) != NULL, "%s: stderr lacks \"%s\":\n%s",
                k_usage[_i].args[0], k_usage[_i].says, p.err);
  ck_assert_uint_eq(e2e_num_runs(&s), 0);
  e2e_proc_free(&p);
  e2e_scratch_free(&s);
}
END_TEST

START_TEST(report_of_a_folder_without_journal_exits_2) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  e2e_proc_t p;
  e2e_run(&s, e2e_top(), NULL, (const char *const[]){"report", s.dir, NULL}, &p);
  ck_assert_int_eq(p.exit_code, 2);
  ck_assert_ptr_nonnull(strstr(p.err, "journal"));
  e2e_proc_free(&p);
  e2e_scratch_free(&s);
}
END_TEST

/* A suite of three tiny tests with tags, for selection. */
static char *write_tagged_suite(const e2e_scratch_t *s) {
  char *model = e2e_path("%s/add.mlir", s->dir);
  e2e_write_add_model(model);
  char *suite = e2e_path("%s/sel.yaml", s->dir);
  e2e_write(suite,
            "suite: sel\n"
            "tests:\n"
            "  - name: add_small\n"
            "    model: add.mlir\n"
            "    tags: [fast, add]\n"
            "  - name: add_other\n"
            "    model: add.mlir\n"
            "    tags: [slow]\n"
            "  - name: conv_like\n"
            "    model: add.mlir\n"
            "    tags: [fast]\n");
  free(model);
  return suite;
}

START_TEST(list_shows_the_tests_selected_by_k_and_m) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  char *suite = write_tagged_suite(&s);
  e2e_proc_t p;
  e2e_run(&s, e2e_top(), NULL, (const char *const[]){suite, "--list", "-k", "add and not other", NULL}, &p);
  ck_assert_msg(p.exit_code == 0, "%s", p.err);
  ck_assert_ptr_nonnull(strstr(p.out, "sel/add_small"));
  ck_assert_ptr_null(strstr(p.out, "sel/add_other"));
  ck_assert_ptr_null(strstr(p.out, "sel/conv_like"));
  ck_assert_ptr_nonnull(strstr(p.out, "1 of 3 tests selected"));
  e2e_proc_free(&p);
  e2e_run(&s, e2e_top(), NULL, (const char *const[]){suite, "--list", "-m", "fast", NULL}, &p);
  ck_assert_msg(p.exit_code == 0, "%s", p.err);
  ck_assert_ptr_nonnull(strstr(p.out, "sel/add_small"));
  ck_assert_ptr_nonnull(strstr(p.out, "sel/conv_like"));
  ck_assert_ptr_null(strstr(p.out, "sel/add_other"));
  ck_assert_ptr_nonnull(strstr(p.out, "2 of 3 tests selected"));
  e2e_proc_free(&p);
  /* Nothing selected is not a green run: exit 5, as pytest's "no tests collected". */
  e2e_run(&s, e2e_top(), NULL, (const char *const[]){suite, "-k", "nothing_has_this", NULL}, &p);
  ck_assert_int_eq(p.exit_code, 5);
  ck_assert_ptr_nonnull(strstr(p.err, "no test selected"));
  e2e_proc_free(&p);
  ck_assert_uint_eq(e2e_num_runs(&s), 0);
  free(suite);
  e2e_scratch_free(&s);
}
END_TEST

START_TEST(bad_suites_exit_2_with_every_location_before_any_test_runs) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  char *model = e2e_path("%s/add.mlir", s.dir);
  e2e_write_add_model(model);
  char *good = e2e_path("%s/good.yaml", s.dir);
  e2e_write(good, "suite: good\ntests:\n  - name: add\n    model: add.mlir\n");
  char *bad1 = e2e_path("%s/bad1.yaml", s.dir);
  e2e_write(bad1,
            "suite: bad1\n"
            "tests:\n"
            "  - name: a\n"
            "    model: add.mlir\n"
            "    repat: 3\n"              /* line 5: unknown key */
            "  - name: b\n"
            "    model: missing.mlir\n"); /* line 7: missing model file */
  char *bad2 = e2e_path("%s/bad2.yaml", s.dir);
  e2e_write(bad2,
            "suite: bad2\n"
            "tests:\n"
            "  - name: a\n"
            "    model: add.mlir\n"
            "    repeat: lots\n" /* line 5: wrong type */
            "  - name: a\n"      /* line 6: duplicate name */
            "    model: add.mlir\n"
            "  - name: 'g_{stem}'\n"
            "    model: 'nothing/*.mlir'\n"); /* line 9: a glob that matches nothing */
  e2e_proc_t p;
  e2e_run(&s, e2e_top(), NULL, (const char *const[]){good, bad1, bad2, NULL}, &p);
  ck_assert_msg(p.exit_code == 2, "exit %d\n%s", p.exit_code, p.err);
  static const char *const where[] = {"bad1.yaml:5:", "bad1.yaml:7:", "bad2.yaml:5:",
                                      "bad2.yaml:6:", "bad2.yaml:9:"};
  for (size_t i = 0; i < sizeof(where) / sizeof(where[0]); i++)
    ck_assert_msg(strstr(p.err, where[i]) != NULL, "stderr lacks %s:\n%s", where[i], p.err);
  /* A caret under the place, as a compiler shows it. */
  ck_assert_ptr_nonnull(strstr(p.err, "^"));
  ck_assert_ptr_nonnull(strstr(p.err, "no test was run"));
  /* Nothing ran: no run folder, nothing compiled. */
  ck_assert_uint_eq(e2e_num_runs(&s), 0);
  ck_assert(!e2e_exists(s.cache));
  e2e_proc_free(&p);
  free(model);
  free(good);
  free(bad1);
  free(bad2);
  e2e_scratch_free(&s);
}
END_TEST

Suite *e2e_suite_cli(void) {
  Suite *s = suite_create("cli");
  TCase *tc = tcase_create("cli");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, help_and_version_exit_0);
  tcase_add_loop_test(tc, usage_errors_exit_2_before_any_work, 0,
                      (int)(sizeof(k_usage) / sizeof(k_usage[0])));
  tcase_add_test(tc, report_of_a_folder_without_journal_exits_2);
  tcase_add_test(tc, list_shows_the_tests_selected_by_k_and_m);
  tcase_add_test(tc, bad_suites_exit_2_with_every_location_before_any_test_runs);
  suite_add_tcase(s, tc);
  return s;
}
