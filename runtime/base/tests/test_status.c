/* Tests for status.h: making, annotating, formatting and freeing statuses, exit codes. */
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "torq/base/alloc.h"
#include "torq/base/status.h"

START_TEST(status_make_stores_code_message_file_and_line) {
  tq_status_t s = tq_status_make(TQ_INVALID_INPUT, "model.c", 42, "bad %s at %d", "token", 7);
  ck_assert_int_eq(tq_status_code(s), TQ_INVALID_INPUT);
  ck_assert_str_eq(tq_status_message(s), "bad token at 7");
  ck_assert_str_eq(tq_status_file(s), "model.c");
  ck_assert_int_eq(tq_status_line(s), 42);
  tq_status_free(s);
}
END_TEST

START_TEST(status_macro_records_the_calling_file_and_line) {
  int line = __LINE__ + 1;
  tq_status_t s = TQ_STATUS(TQ_IO, "disk %d", 3);
  ck_assert_str_eq(tq_status_file(s), __FILE__);
  ck_assert_int_eq(tq_status_line(s), line);
  ck_assert_str_eq(tq_status_message(s), "disk 3");
  tq_status_free(s);
}
END_TEST

START_TEST(status_make_keeps_messages_longer_than_any_fixed_buffer) {
  char big[3000];
  memset(big, 'x', sizeof(big) - 1);
  big[sizeof(big) - 1] = '\0';
  tq_status_t s = tq_status_make(TQ_INTERNAL, "f.c", 1, "<%s>", big);
  const char *m = tq_status_message(s);
  ck_assert_uint_eq(strlen(m), sizeof(big) + 1);
  ck_assert_int_eq(m[0], '<');
  ck_assert_int_eq(m[sizeof(big)], '>');
  ck_assert_int_eq(memcmp(m + 1, big, sizeof(big) - 1), 0);
  tq_status_free(s);
}
END_TEST

START_TEST(status_make_with_ok_code_still_reports_an_error) {
  tq_status_t s = tq_status_make(TQ_OK, "f.c", 1, "misuse");
  ck_assert_int_eq(tq_status_code(s), TQ_INTERNAL);
  tq_status_free(s);
}
END_TEST

START_TEST(status_null_is_ok_everywhere) {
  ck_assert_int_eq(tq_status_code(NULL), TQ_OK);
  ck_assert_str_eq(tq_status_message(NULL), "ok");
  ck_assert_int_eq(tq_status_line(NULL), 0);
  ck_assert_ptr_null(tq_status_annotate(NULL, "ignored %d", 1));
  char *text = tq_status_format(NULL, 1);
  ck_assert_str_eq(text, "ok");
  free(text);
  tq_status_free(NULL);
}
END_TEST

START_TEST(status_format_is_error_and_message) {
  tq_status_t s = tq_status_make(TQ_NOT_FOUND, "f.c", 9, "%s: no such file", "a.yaml");
  char *text = tq_status_format(s, 0);
  ck_assert_str_eq(text, "error: a.yaml: no such file");
  free(text);
  tq_status_free(s);
}
END_TEST

START_TEST(status_format_with_origin_appends_file_and_line) {
  tq_status_t s = tq_status_make(TQ_IO, "src/x.c", 123, "boom");
  char *text = tq_status_format(s, 1);
  ck_assert_str_eq(text, "error: boom [src/x.c:123]");
  free(text);
  tq_status_free(s);
}
END_TEST

START_TEST(status_annotate_adds_notes_in_the_order_added) {
  tq_status_t s = tq_status_make(TQ_INVALID_INPUT, "p.c", 5, "unexpected '}'");
  tq_status_t same = tq_status_annotate(s, "while parsing %s", "m.mlir");
  ck_assert_ptr_eq(same, s);
  s = tq_status_annotate(s, "in test %d", 3);
  s = tq_status_annotate(s, "in suite smoke");
  char *text = tq_status_format(s, 0);
  ck_assert_str_eq(text,
                   "error: unexpected '}'\n"
                   "  note: while parsing m.mlir\n"
                   "  note: in test 3\n"
                   "  note: in suite smoke");
  free(text);
  text = tq_status_format(s, 1);
  ck_assert_str_eq(text,
                   "error: unexpected '}' [p.c:5]\n"
                   "  note: while parsing m.mlir\n"
                   "  note: in test 3\n"
                   "  note: in suite smoke");
  free(text);
  ck_assert_str_eq(tq_status_message(s), "unexpected '}'");
  tq_status_free(s);
}
END_TEST

static int th_try_reached_end;

static tq_status_t th_step(int fail) {
  return fail ? TQ_STATUS(TQ_UNAVAILABLE, "board down") : NULL;
}

static tq_status_t th_two_steps(int fail_first) {
  TQ_TRY(th_step(fail_first));
  TQ_TRY(th_step(0));
  th_try_reached_end = 1;
  return NULL;
}

START_TEST(status_try_returns_early_with_the_failing_status) {
  th_try_reached_end = 0;
  TH_ASSERT_STATUS(th_two_steps(1), TQ_UNAVAILABLE, "board down");
  ck_assert_int_eq(th_try_reached_end, 0);
  ck_assert_ptr_null(th_two_steps(0));
  ck_assert_int_eq(th_try_reached_end, 1);
}
END_TEST

START_TEST(status_make_under_oom_returns_the_static_oom_status) {
  tq_alloc_fail_after(0);
  tq_status_t a = tq_status_make(TQ_INVALID_INPUT, "f.c", 1, "never stored");
  tq_status_t b = tq_status_make(TQ_IO, "g.c", 2, "neither");
  tq_alloc_fail_after(-1);
  ck_assert_ptr_nonnull(a);
  ck_assert_ptr_eq(a, b);
  ck_assert_int_eq(tq_status_code(a), TQ_OUT_OF_MEMORY);
  ck_assert_str_eq(tq_status_message(a), "out of memory");
  /* Annotating leaves the shared status alone, so the next user sees no stale notes. */
  ck_assert_ptr_eq(tq_status_annotate(a, "while doing %s", "x"), a);
  char *text = tq_status_format(a, 1);
  ck_assert_str_eq(text, "error: out of memory");
  free(text);
  tq_status_free(a);
  tq_status_free(b);
  /* Still intact after being "freed" twice. */
  ck_assert_int_eq(tq_status_code(a), TQ_OUT_OF_MEMORY);
  ck_assert_int_eq(tq_status_exit_code(a), 1);
}
END_TEST

START_TEST(status_annotate_under_oom_keeps_the_status_without_the_note) {
  tq_status_t s = tq_status_make(TQ_LIMIT, "f.c", 1, "too deep");
  s = tq_status_annotate(s, "kept");
  tq_alloc_fail_after(0);
  tq_status_t t = tq_status_annotate(s, "dropped");
  tq_alloc_fail_after(-1);
  ck_assert_ptr_eq(t, s);
  char *text = tq_status_format(s, 0);
  ck_assert_str_eq(text, "error: too deep\n  note: kept");
  free(text);
  tq_status_free(s);
}
END_TEST

START_TEST(status_format_under_oom_returns_null) {
  tq_status_t s = tq_status_make(TQ_IO, "f.c", 1, "x");
  tq_alloc_fail_after(0);
  char *text = tq_status_format(s, 1);
  tq_alloc_fail_after(-1);
  ck_assert_ptr_null(text);
  tq_status_free(s);
}
END_TEST

static const struct {
  tq_status_code_t code;
  const char *name;
  int exit_code;
} th_codes[] = {
    {TQ_INVALID_ARGUMENT, "invalid argument", 2},
    {TQ_INVALID_INPUT, "invalid input", 1},
    {TQ_NOT_FOUND, "not found", 1},
    {TQ_IO, "i/o error", 1},
    {TQ_OUT_OF_MEMORY, "out of memory", 1},
    {TQ_LIMIT, "limit exceeded", 1},
    {TQ_UNIMPLEMENTED, "unimplemented", 1},
    {TQ_FAILED_PRECONDITION, "failed precondition", 1},
    {TQ_UNAVAILABLE, "unavailable", 3},
    {TQ_DEADLINE_EXCEEDED, "deadline exceeded", 3},
    {TQ_CANCELLED, "cancelled", 130},
    {TQ_INTERNAL, "internal error", 1},
};

START_TEST(status_code_has_its_name_and_exit_code) {
  tq_status_t s = tq_status_make(th_codes[_i].code, "f.c", 1, "m");
  ck_assert_str_eq(tq_status_code_name(th_codes[_i].code), th_codes[_i].name);
  ck_assert_int_eq(tq_status_exit_code(s), th_codes[_i].exit_code);
  tq_status_free(s);
}
END_TEST

START_TEST(status_exit_code_of_ok_is_zero_and_unknown_code_has_a_name) {
  ck_assert_int_eq(tq_status_exit_code(NULL), 0);
  ck_assert_str_eq(tq_status_code_name(TQ_OK), "ok");
  ck_assert_str_eq(tq_status_code_name(TQ_STATUS_CODE_COUNT), "unknown");
  ck_assert_str_eq(tq_status_code_name((tq_status_code_t)-1), "unknown");
  /* The table above names every code but OK. */
  ck_assert_int_eq((int)(sizeof(th_codes) / sizeof(th_codes[0])), TQ_STATUS_CODE_COUNT - 1);
}
END_TEST

Suite *status_suite(void) {
  Suite *s = suite_create("status");
  TCase *tc = tcase_create("make");
  tcase_add_checked_fixture(tc, NULL, th_alloc_reset);
  tcase_add_test(tc, status_make_stores_code_message_file_and_line);
  tcase_add_test(tc, status_macro_records_the_calling_file_and_line);
  tcase_add_test(tc, status_make_keeps_messages_longer_than_any_fixed_buffer);
  tcase_add_test(tc, status_make_with_ok_code_still_reports_an_error);
  tcase_add_test(tc, status_null_is_ok_everywhere);
  tcase_add_test(tc, status_try_returns_early_with_the_failing_status);
  suite_add_tcase(s, tc);

  tc = tcase_create("format");
  tcase_add_checked_fixture(tc, NULL, th_alloc_reset);
  tcase_add_test(tc, status_format_is_error_and_message);
  tcase_add_test(tc, status_format_with_origin_appends_file_and_line);
  tcase_add_test(tc, status_annotate_adds_notes_in_the_order_added);
  suite_add_tcase(s, tc);

  tc = tcase_create("oom");
  tcase_add_checked_fixture(tc, NULL, th_alloc_reset);
  tcase_add_test(tc, status_make_under_oom_returns_the_static_oom_status);
  tcase_add_test(tc, status_annotate_under_oom_keeps_the_status_without_the_note);
  tcase_add_test(tc, status_format_under_oom_returns_null);
  suite_add_tcase(s, tc);

  tc = tcase_create("codes");
  tcase_add_loop_test(tc, status_code_has_its_name_and_exit_code, 0,
                      (int)(sizeof(th_codes) / sizeof(th_codes[0])));
  tcase_add_test(tc, status_exit_code_of_ok_is_zero_and_unknown_code_has_a_name);
  suite_add_tcase(s, tc);
  return s;
}
