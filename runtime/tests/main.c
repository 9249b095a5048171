/* The runtime test binary: every suite, Check's fork mode unless CK_FORK=no. */
#include <stdlib.h>

#include "suites.h"
#include "tq_test.h"

int main(void) {
  SRunner *sr = srunner_create(input_suite());
  srunner_add_suite(sr, tensor_suite());
  srunner_add_suite(sr, npy_suite());
  srunner_add_suite(sr, module_suite());
  srunner_add_suite(sr, robust_suite());
  srunner_add_suite(sr, session_suite());
  srunner_add_suite(sr, profile_suite());
  srunner_add_suite(sr, tool_suite());
  srunner_add_suite(sr, corpus_e2e_suite());
  srunner_add_suite(sr, host_linalg_suite());
  srunner_add_suite(sr, oracle_suite());
  return tq_test_run(sr); /* runs, then prints the skips */
}
