/* The harness-tests binary: every suite of the harness, one runner. */
#include <check.h>
#include <stdlib.h>

#include "suites.h"
#include "tq_test.h"

int main(void) {
  SRunner *sr = srunner_create(NULL);
#define TH_ADD_SUITE(name) \
  if (name##_suite) srunner_add_suite(sr, name##_suite());
  TH_SUITES(TH_ADD_SUITE)
#undef TH_ADD_SUITE
  return tq_test_run(sr); /* runs, then prints the skips */
}
