/* The libtorq-sim test binary: every suite, one runner. */
#include <check.h>
#include <stdlib.h>

#include "helpers.h"
#include "tq_test.h"

int main(void) {
  SRunner *sr = srunner_create(tensor_suite());
  srunner_add_suite(sr, rescale_suite());
  srunner_add_suite(sr, elementwise_suite());
  srunner_add_suite(sr, cast_suite());
  srunner_add_suite(sr, conv_suite());
  srunner_add_suite(sr, pool_suite());
  srunner_add_suite(sr, data_suite());
  srunner_add_suite(sr, reduce_suite());
  srunner_add_suite(sr, linalg_suite());
  srunner_add_suite(sr, errors_suite());
  srunner_add_suite(sr, cost_model_suite());
  srunner_add_suite(sr, npu_suite());
  return tq_test_run(sr); /* runs, then prints the skips */
}
