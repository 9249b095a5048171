/* torq-test-e2e: end-to-end tests of torq-test. Runs the real binary ($TORQ_BIN/torq-test, as
 * `make check` sets it) in scratch folders. CK_RUN_SUITE / CK_RUN_CASE pick tests as usual.
 * Heavy tests are skipped under valgrind (TORQ_VALGRIND); TORQ_E2E_CORPUS=0 skips the
 * whole-corpus run. */
#include <stdlib.h>

#include "e2e.h"
#include "tq_test.h"

int main(void) {
  SRunner *sr = srunner_create(e2e_suite_internals());
  srunner_add_suite(sr, e2e_suite_cli());
  srunner_add_suite(sr, e2e_suite_run());
  srunner_add_suite(sr, e2e_suite_signals());
  srunner_add_suite(sr, e2e_suite_fetch());
  srunner_add_suite(sr, e2e_suite_corpus());
  srunner_add_suite(sr, e2e_suite_boards());
  srunner_add_suite(sr, e2e_suite_baseline());
  srunner_add_suite(sr, e2e_suite_shard());
  srunner_add_suite(sr, e2e_suite_upload());
  srunner_add_suite(sr, e2e_suite_dashboard());
  srunner_add_suite(sr, e2e_suite_html());
  srunner_add_suite(sr, e2e_suite_limits());
  srunner_add_suite(sr, e2e_suite_verdicts());
  srunner_add_suite(sr, e2e_suite_toolchain());
  srunner_add_suite(sr, e2e_suite_usability());
  return tq_test_run(sr); /* runs, then prints the skips */
}
