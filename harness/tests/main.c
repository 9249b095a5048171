/* The harness-tests binary: every suite of the harness, one runner. */
#include <check.h>
#include <stdlib.h>

#include "suites.h"

int main(void) {
  SRunner *sr = srunner_create(NULL);
#define TH_ADD_SUITE(name) \
  if (name##_suite) srunner_add_suite(sr, name##_suite());
  TH_SUITES(TH_ADD_SUITE)
#undef TH_ADD_SUITE
  srunner_run_all(sr, CK_NORMAL);
  int failures = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failures ? 1 : 0;
}
