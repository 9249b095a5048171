/* Limits and faults of the machine a run uses: a test's memory limit (RLIMIT_AS on its worker),
 * the compiler's limits through torq-test, a full results disk, and journals with torn or
 * invalid lines. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e.h"

/* A model whose only constant, a 64 MiB splat, is built in full when it compiles. */
static void write_big_constant_model(const char *path) {
  e2e_write(path,
            "module {\n"
            "  func.func @main() -> tensor<16777216xi32> {\n"
            "    %0 = \"tosa.const\"() <{values = dense<7> : tensor<16777216xi32>}> : () -> "
            "tensor<16777216xi32>\n"
            "    return %0 : tensor<16777216xi32>\n"
            "  }\n"
            "}\n");
}

/* Whether this build is sanitized with a sanitizer that reserves terabytes of address space:
 * torq-test (the same flavour) then sets no memory limit (worker_main.c). */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define NO_MEMORY_LIMIT 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define NO_MEMORY_LIMIT 1
#endif
#endif
#ifndef NO_MEMORY_LIMIT
#define NO_MEMORY_LIMIT 0
#endif

/* Under `memory: 48M` the compile runs out of memory: the test is an error that names the limit
 * (the memory_limit type), and the same model with the default limit passes. */
START_TEST(a_test_over_its_memory_limit_is_an_error_that_names_the_limit) {
  if (e2e_light() || NO_MEMORY_LIMIT) {
    tq_test_skip("%s", NO_MEMORY_LIMIT ? "no memory limit under AddressSanitizer"
                                       : "a 64 MiB model (under valgrind)");
    return;
  }
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  char *model = e2e_path("%s/big.mlir", s.dir);
  write_big_constant_model(model);
  char *suite = e2e_path("%s/mem.yaml", s.dir);
  e2e_write(suite,
            "suite: mem\n"
            "defaults: {reference: false}\n"
            "tests:\n"
            "  - {name: small, model: big.mlir, memory: 48M}\n"
            "  - {name: roomy, model: big.mlir}\n");
  e2e_proc_t p;
  e2e_run(&s, s.dir, NULL, (const char *const[]){suite, "--no-profiling", "-j", "2", NULL}, &p);
  char *run = e2e_only_run(&s);
  char *jp = e2e_path("%s/journal.jsonl", run);
  char *journal = e2e_read(jp);
  ck_assert_ptr_nonnull(journal);
  const char *small = strstr(journal, "\"name\":\"small\"");
  const char *roomy = strstr(journal, "\"name\":\"roomy\"");
  ck_assert_msg(small && roomy, "%s", journal);
  const char *small_end = strchr(small, '\n'), *roomy_end = strchr(roomy, '\n');
  char *small_line = strndup(small, (size_t)(small_end - small));
  char *roomy_line = strndup(roomy, (size_t)(roomy_end - roomy));
  ck_assert_msg(strstr(small_line, "\"outcome\":\"error\"") &&
                    strstr(small_line, "\"failure_type\":\"memory_limit\"") &&
                    strstr(small_line, "memory limit of 48.0 MiB") &&
                    strstr(small_line, "out of memory"),
                "%s", small_line);
  ck_assert_msg(strstr(roomy_line, "\"outcome\":\"passed\""), "%s", roomy_line);
  ck_assert_msg(p.exit_code == 1, "exit %d\n%s\n%s", p.exit_code, p.out, p.err);
  free(roomy_line);
  free(small_line);
  free(journal);
  free(jp);
  free(run);
  free(suite);
  free(model);
  e2e_proc_free(&p);
  e2e_scratch_free(&s);
}
END_TEST

/* A memory limit that is no size is a located error of the suite (exit 2), and TORQ_MEMORY is
 * checked as well. */
START_TEST(a_bad_memory_limit_is_a_usage_error) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  char *model = e2e_path("%s/add.mlir", s.dir);
  e2e_write_add_model(model);
  char *suite = e2e_path("%s/bad.yaml", s.dir);
  e2e_write(suite, "tests:\n  - {model: add.mlir, memory: 12 parsecs}\n");
  e2e_proc_t p;
  e2e_run(&s, s.dir, NULL, (const char *const[]){suite, NULL}, &p);
  ck_assert_msg(p.exit_code == 2, "exit %d\n%s\n%s", p.exit_code, p.out, p.err);
  ck_assert_msg(strstr(p.err, "bad.yaml:2:31: error: memory: expected a size"), "%s", p.err);
  e2e_proc_free(&p);
  e2e_write(suite, "tests:\n  - {model: add.mlir}\n");
  e2e_run(&s, s.dir, (const char *const[]){"TORQ_MEMORY=1K", NULL},
          (const char *const[]){suite, NULL}, &p);
  ck_assert_msg(p.exit_code == 2, "exit %d\n%s\n%s", p.exit_code, p.out, p.err);
  ck_assert_msg(strstr(p.err, "TORQ_MEMORY: memory: 1K is below the smallest limit"), "%s", p.err);
  ck_assert_uint_eq(e2e_num_runs(&s), 0);
  e2e_proc_free(&p);
  free(suite);
  free(model);
  e2e_scratch_free(&s);
}
END_TEST

Suite *e2e_suite_limits(void) {
  Suite *s = suite_create("limits");
  TCase *tc = tcase_create("limits");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, a_test_over_its_memory_limit_is_an_error_that_names_the_limit);
  tcase_add_test(tc, a_bad_memory_limit_is_a_usage_error);
  suite_add_tcase(s, tc);
  return s;
}
