/* The libtorq-sim test binary: every suite, one runner. */
#include <check.h>
#include <stdlib.h>

#include "helpers.h"

int main(void) {
  SRunner *sr = srunner_create(tensor_suite());
  srunner_add_suite(sr, rescale_suite());
  srunner_add_suite(sr, elementwise_suite());
  srunner_add_suite(sr, cast_suite());
  srunner_add_suite(sr, conv_suite());
  srunner_add_suite(sr, pool_suite());
  srunner_add_suite(sr, data_suite());
  srunner_add_suite(sr, reduce_suite());
  srunner_add_suite(sr, errors_suite());
  srunner_add_suite(sr, cost_model_suite());
  srunner_add_suite(sr, npu_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failures = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failures ? EXIT_FAILURE : EXIT_SUCCESS;
}
