/* Tests for usage.h: the bad-usage message goes to the stream the tool hands in, nowhere else. */
#include <stdio.h>
#include <stdlib.h>

#include "helpers.h"
#include "torq/base/usage.h"

START_TEST(usage_error_writes_the_message_and_the_help_hint_to_the_given_stream) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  ck_assert_ptr_nonnull(f);
  ck_assert_int_eq(tq_usage_error(f, "torq-x", "unknown option '%s'", "--frob"), 2);
  fclose(f);
  ck_assert_str_eq(text,
                   "torq-x: unknown option '--frob'\nTry 'torq-x --help' for more information.\n");
  free(text);
}
END_TEST

Suite *usage_suite(void) {
  Suite *s = suite_create("usage");
  TCase *tc = tcase_create("usage");
  tcase_add_test(tc, usage_error_writes_the_message_and_the_help_hint_to_the_given_stream);
  suite_add_tcase(s, tc);
  return s;
}
