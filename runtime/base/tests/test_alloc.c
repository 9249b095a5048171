/* Tests for alloc.h: the wrappers and the fail-after-N hook. */
#include <string.h>

#include "helpers.h"
#include "torq/base/alloc.h"

START_TEST(alloc_fail_after_n_allows_exactly_n_allocations) {
  void *p[3];
  tq_alloc_fail_after(3);
  p[0] = tq_malloc(8);
  p[1] = tq_calloc(2, 8);
  p[2] = tq_strndup("abc", 3);
  void *m = tq_malloc(8);
  void *c = tq_calloc(1, 1);
  char *d = tq_strndup("x", 1);
  tq_alloc_fail_after(-1);
  for (int i = 0; i < 3; i++) ck_assert_ptr_nonnull(p[i]);
  ck_assert_ptr_null(m);
  ck_assert_ptr_null(c);
  ck_assert_ptr_null(d);
  void *after = tq_malloc(8);
  ck_assert_ptr_nonnull(after);
  tq_free(after);
  for (int i = 0; i < 3; i++) tq_free(p[i]);
}
END_TEST

START_TEST(alloc_realloc_failure_keeps_the_original_block) {
  char *p = tq_malloc(4);
  ck_assert_ptr_nonnull(p);
  memcpy(p, "abc", 4);
  tq_alloc_fail_after(0);
  char *q = tq_realloc(p, 1 << 20);
  tq_alloc_fail_after(-1);
  ck_assert_ptr_null(q);
  ck_assert_str_eq(p, "abc");
  q = tq_realloc(p, 1 << 20);
  ck_assert_ptr_nonnull(q);
  ck_assert_str_eq(q, "abc");
  tq_free(q);
}
END_TEST

START_TEST(alloc_zero_size_returns_a_freeable_pointer) {
  void *m = tq_malloc(0);
  void *c = tq_calloc(0, 16);
  void *r = tq_realloc(NULL, 0);
  ck_assert_ptr_nonnull(m);
  ck_assert_ptr_nonnull(c);
  ck_assert_ptr_nonnull(r);
  tq_free(m);
  tq_free(c);
  tq_free(r);
  tq_free(NULL);
}
END_TEST

START_TEST(alloc_strndup_copies_len_bytes_and_a_nul) {
  char *s = tq_strndup("hello world", 5);
  ck_assert_str_eq(s, "hello");
  tq_free(s);
  char *e = tq_strndup("", 0);
  ck_assert_str_eq(e, "");
  tq_free(e);
  /* Embedded NULs are copied, not stopped at. */
  char *z = tq_strndup("a\0b", 3);
  ck_assert_int_eq(memcmp(z, "a\0b\0", 4), 0);
  tq_free(z);
}
END_TEST

START_TEST(alloc_calloc_overflow_returns_null) {
  ck_assert_ptr_null(tq_calloc(SIZE_MAX / 2 + 1, 2));
}
END_TEST

Suite *alloc_suite(void) {
  Suite *s = suite_create("alloc");
  TCase *tc = tcase_create("alloc");
  tcase_add_checked_fixture(tc, NULL, th_alloc_reset);
  tcase_add_test(tc, alloc_fail_after_n_allows_exactly_n_allocations);
  tcase_add_test(tc, alloc_realloc_failure_keeps_the_original_block);
  tcase_add_test(tc, alloc_zero_size_returns_a_freeable_pointer);
  tcase_add_test(tc, alloc_strndup_copies_len_bytes_and_a_nul);
  tcase_add_test(tc, alloc_calloc_overflow_returns_null);
  suite_add_tcase(s, tc);
  return s;
}
