/* The libtorq-formats test binary: every suite, one runner. */
#include <check.h>
#include <stdlib.h>

#include "helpers.h"
#include "tq_test.h"

int main(void) {
  SRunner *sr = srunner_create(module_suite());
  srunner_add_suite(sr, element_suite());
  srunner_add_suite(sr, contract_suite());
  return tq_test_run(sr); /* runs, then prints the skips */
}
