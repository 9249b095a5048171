/* The libtorq-base test binary: every suite, one runner. */
#include <check.h>
#include <stdlib.h>

#include "helpers.h"
#include "tq_test.h"

int main(void) {
  SRunner *sr = srunner_create(status_suite());
  srunner_add_suite(sr, alloc_suite());
  srunner_add_suite(sr, checked_suite());
  srunner_add_suite(sr, arena_suite());
  srunner_add_suite(sr, str_suite());
  srunner_add_suite(sr, file_suite());
  srunner_add_suite(sr, sha256_suite());
  srunner_add_suite(sr, diag_suite());
  srunner_add_suite(sr, usage_suite());
  return tq_test_run(sr); /* runs, then prints the skips */
}
