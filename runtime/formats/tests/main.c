/* The libtorq-formats test binary: every suite, one runner. */
#include <check.h>
#include <stdlib.h>

#include "helpers.h"

int main(void) {
  SRunner *sr = srunner_create(module_suite());
  srunner_add_suite(sr, element_suite());
  srunner_add_suite(sr, contract_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failures = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failures ? 1 : 0;
}
