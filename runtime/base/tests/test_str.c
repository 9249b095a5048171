/* Tests for str.h: string views and growable buffers. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "torq/base/alloc.h"
#include "torq/base/str.h"

START_TEST(sv_compares_by_content_and_length) {
  const char text[] = "conv2d_relu";
  ck_assert_int_eq(tq_sv_eq(tq_sv(text, 6), tq_sv_cstr("conv2d")), 1);
  ck_assert_int_eq(tq_sv_eq_cstr(tq_sv(text, 6), "conv2"), 0);
  ck_assert_int_eq(tq_sv_eq_cstr(tq_sv(text, 6), "conv2d_"), 0);
  ck_assert_int_eq(tq_sv_eq(tq_sv(NULL, 0), tq_sv_cstr("")), 1);
  ck_assert_int_eq(tq_sv_starts_with(tq_sv_cstr(text), "conv"), 1);
  ck_assert_int_eq(tq_sv_starts_with(tq_sv_cstr(text), ""), 1);
  ck_assert_int_eq(tq_sv_starts_with(tq_sv(text, 3), "conv"), 0);
}
END_TEST

START_TEST(buf_starts_empty_with_null_data) {
  tq_buf_t b;
  tq_buf_init(&b, 10);
  ck_assert_ptr_null(b.data);
  ck_assert_uint_eq(b.len, 0);
  ck_assert_uint_eq(b.cap, 0);
  ck_assert_uint_eq(b.limit, 10);
  tq_buf_deinit(&b);
  ck_assert_ptr_null(b.data);
}
END_TEST

START_TEST(buf_append_concatenates_and_nul_terminates) {
  tq_buf_t b;
  tq_buf_init(&b, 0);
  TH_ASSERT_OK(tq_buf_append(&b, "ab", 2));
  TH_ASSERT_OK(tq_buf_append_cstr(&b, "cd"));
  TH_ASSERT_OK(tq_buf_putc(&b, 'e'));
  TH_ASSERT_OK(tq_buf_append(&b, "fXXX", 1));
  ck_assert_uint_eq(b.len, 6);
  ck_assert_str_eq(b.data, "abcdef");
  ck_assert_uint_ge(b.cap, b.len + 1);
  tq_buf_deinit(&b);
}
END_TEST

START_TEST(buf_append_of_nothing_still_makes_an_empty_string) {
  tq_buf_t b;
  tq_buf_init(&b, 0);
  TH_ASSERT_OK(tq_buf_append(&b, NULL, 0));
  ck_assert_ptr_nonnull(b.data);
  ck_assert_str_eq(b.data, "");
  ck_assert_uint_eq(b.len, 0);
  tq_buf_deinit(&b);
}
END_TEST

START_TEST(buf_grows_geometrically_and_keeps_content) {
  tq_buf_t b;
  tq_buf_init(&b, 0);
  int reallocs = 0;
  size_t cap = b.cap;
  for (int k = 0; k < 100000; k++) {
    TH_ASSERT_OK(tq_buf_putc(&b, (char)('a' + k % 26)));
    if (b.cap != cap) {
      reallocs++;
      ck_assert_uint_ge(b.cap, 2 * cap);
      cap = b.cap;
    }
  }
  ck_assert_uint_eq(b.len, 100000);
  ck_assert_int_le(reallocs, 12);
  for (int k = 0; k < 100000; k++) ck_assert_int_eq(b.data[k], 'a' + k % 26);
  ck_assert_int_eq(b.data[100000], '\0');
  tq_buf_deinit(&b);
}
END_TEST

START_TEST(buf_append_past_limit_fails_with_limit_and_keeps_content) {
  tq_buf_t b;
  tq_buf_init(&b, 8);
  TH_ASSERT_OK(tq_buf_append_cstr(&b, "12345"));
  tq_status_t s = tq_buf_append_cstr(&b, "6789");
  ck_assert_int_eq(tq_status_code(s), TQ_LIMIT);
  tq_status_free(s);
  ck_assert_uint_eq(b.len, 5);
  ck_assert_str_eq(b.data, "12345");
  TH_ASSERT_OK(tq_buf_append_cstr(&b, "678"));
  ck_assert_str_eq(b.data, "12345678");
  s = tq_buf_putc(&b, '9');
  ck_assert_int_eq(tq_status_code(s), TQ_LIMIT);
  tq_status_free(s);
  ck_assert_str_eq(b.data, "12345678");
  ck_assert_uint_le(b.cap, 9);
  tq_buf_deinit(&b);
}
END_TEST

START_TEST(buf_printf_past_limit_fails_with_limit_and_keeps_content) {
  tq_buf_t b;
  tq_buf_init(&b, 10);
  TH_ASSERT_OK(tq_buf_printf(&b, "%d,", 123));
  tq_status_t s = tq_buf_printf(&b, "%s", "too long here");
  ck_assert_int_eq(tq_status_code(s), TQ_LIMIT);
  tq_status_free(s);
  ck_assert_str_eq(b.data, "123,");
  ck_assert_uint_eq(b.len, 4);
  tq_buf_deinit(&b);
}
END_TEST

START_TEST(buf_reserve_past_limit_or_size_max_fails_with_limit) {
  tq_buf_t b;
  tq_buf_init(&b, 100);
  TH_ASSERT_OK(tq_buf_reserve(&b, 100));
  ck_assert_uint_ge(b.cap, 101);
  tq_status_t s = tq_buf_reserve(&b, 101);
  ck_assert_int_eq(tq_status_code(s), TQ_LIMIT);
  tq_status_free(s);
  tq_buf_deinit(&b);

  tq_buf_init(&b, 0);
  TH_ASSERT_OK(tq_buf_append_cstr(&b, "x"));
  s = tq_buf_reserve(&b, SIZE_MAX);
  ck_assert_int_eq(tq_status_code(s), TQ_LIMIT);
  tq_status_free(s);
  s = tq_buf_reserve(&b, SIZE_MAX - 1);
  ck_assert_int_eq(tq_status_code(s), TQ_LIMIT);
  tq_status_free(s);
  ck_assert_str_eq(b.data, "x");
  tq_buf_deinit(&b);
}
END_TEST

START_TEST(buf_capacity_never_exceeds_limit_plus_nul) {
  tq_buf_t b;
  tq_buf_init(&b, 100);
  for (int k = 0; k < 100; k++) TH_ASSERT_OK(tq_buf_putc(&b, 'z'));
  ck_assert_uint_eq(b.len, 100);
  ck_assert_uint_le(b.cap, 101);
  tq_buf_deinit(&b);
}
END_TEST

START_TEST(buf_printf_appends_formatted_text_of_any_length) {
  tq_buf_t b;
  tq_buf_init(&b, 0);
  TH_ASSERT_OK(tq_buf_printf(&b, "%s=%d;", "cycles", 42));
  TH_ASSERT_OK(tq_buf_printf(&b, "%0300d", 7));
  ck_assert_uint_eq(b.len, 10 + 300);
  ck_assert_int_eq(strncmp(b.data, "cycles=42;000", 13), 0);
  ck_assert_int_eq(b.data[309], '7');
  ck_assert_int_eq(b.data[310], '\0');
  TH_ASSERT_OK(tq_buf_printf(&b, "%s", ""));
  ck_assert_uint_eq(b.len, 310);
  tq_buf_deinit(&b);
}
END_TEST

/* Formatting goes straight into the room there is and again only when the text did not fit:
 * every length around the room's edges, after every prefix, gives the same bytes as snprintf,
 * and a limit just around the text's end is kept to the byte. */
START_TEST(buf_printf_fits_or_grows_at_every_edge_of_its_room) {
  char expect[700], text[400];
  for (size_t prefix = 0; prefix < 300; prefix += 7) {
    for (size_t n = 0; n < 300; n += 1 + n / 16) {
      memset(text, 'a' + (int)(n % 26), n);
      text[n] = 0;
      tq_buf_t b;
      tq_buf_init(&b, 0);
      for (size_t i = 0; i < prefix; i++) TH_ASSERT_OK(tq_buf_putc(&b, '.'));
      TH_ASSERT_OK(tq_buf_printf(&b, "%s|%zu", text, n));
      int len = snprintf(expect, sizeof(expect), "%.*s%s|%zu", (int)prefix,
                         "......................................................................"
                         "......................................................................"
                         "......................................................................"
                         "......................................................................"
                         "....................",
                         text, n);
      ck_assert_uint_eq(b.len, (size_t)len);
      ck_assert_str_eq(b.data, expect);
      tq_buf_deinit(&b);
    }
  }
  for (size_t limit = 1; limit < 140; limit++) {
    tq_buf_t b;
    tq_buf_init(&b, limit);
    TH_ASSERT_OK(tq_buf_append_cstr(&b, "x"));
    tq_status_t st = tq_buf_printf(&b, "%0*d", 120, 5);
    if (limit >= 121) {
      TH_ASSERT_OK(st);
      ck_assert_uint_eq(b.len, 121);
      ck_assert_int_eq(b.data[120], '5');
    } else {
      ck_assert_int_eq(tq_status_code(st), TQ_LIMIT);
      tq_status_free(st);
      ck_assert_str_eq(b.data, "x");
    }
    ck_assert_uint_le(b.cap, limit + 1);
    tq_buf_deinit(&b);
  }
}
END_TEST

static tq_status_t th_vprintf_twice(tq_buf_t *b, const char *fmt, ...) TQ_PRINTF(2, 3);
static tq_status_t th_vprintf_twice(tq_buf_t *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tq_status_t s = tq_buf_vprintf(b, fmt, ap);
  va_end(ap);
  if (s) return s;
  va_start(ap, fmt);
  s = tq_buf_vprintf(b, fmt, ap);
  va_end(ap);
  return s;
}

START_TEST(buf_vprintf_leaves_the_callers_va_list_usable) {
  tq_buf_t b;
  tq_buf_init(&b, 0);
  TH_ASSERT_OK(th_vprintf_twice(&b, "[%s %d]", "long enough to need the second pass", 5));
  ck_assert_str_eq(b.data,
                   "[long enough to need the second pass 5]"
                   "[long enough to need the second pass 5]");
  tq_buf_deinit(&b);
}
END_TEST

START_TEST(buf_append_under_oom_returns_out_of_memory_and_keeps_content) {
  tq_buf_t b;
  tq_buf_init(&b, 0);
  TH_ASSERT_OK(tq_buf_append_cstr(&b, "abc"));
  char big[200];
  memset(big, 'q', sizeof(big));
  tq_alloc_fail_after(0);
  tq_status_t s = tq_buf_append(&b, big, sizeof(big));
  tq_status_t p = tq_buf_printf(&b, "%0500d", 1);
  tq_alloc_fail_after(-1);
  ck_assert_int_eq(tq_status_code(s), TQ_OUT_OF_MEMORY);
  ck_assert_int_eq(tq_status_code(p), TQ_OUT_OF_MEMORY);
  tq_status_free(s);
  tq_status_free(p);
  ck_assert_uint_eq(b.len, 3);
  ck_assert_str_eq(b.data, "abc");
  tq_buf_deinit(&b);
}
END_TEST

START_TEST(buf_clear_empties_and_keeps_memory) {
  tq_buf_t b;
  tq_buf_init(&b, 0);
  TH_ASSERT_OK(tq_buf_append_cstr(&b, "something"));
  char *data = b.data;
  size_t cap = b.cap;
  tq_buf_clear(&b);
  ck_assert_uint_eq(b.len, 0);
  ck_assert_str_eq(b.data, "");
  ck_assert_ptr_eq(b.data, data);
  ck_assert_uint_eq(b.cap, cap);
  TH_ASSERT_OK(tq_buf_append_cstr(&b, "new"));
  ck_assert_str_eq(b.data, "new");
  tq_buf_deinit(&b);
}
END_TEST

START_TEST(buf_detach_hands_over_content_and_empties) {
  tq_buf_t b;
  tq_buf_init(&b, 50);
  TH_ASSERT_OK(tq_buf_append_cstr(&b, "owned"));
  char *s = tq_buf_detach(&b);
  ck_assert_str_eq(s, "owned");
  ck_assert_ptr_null(b.data);
  ck_assert_uint_eq(b.len, 0);
  ck_assert_uint_eq(b.cap, 0);
  ck_assert_uint_eq(b.limit, 50);
  tq_free(s);
  tq_buf_deinit(&b);
}
END_TEST

START_TEST(buf_detach_of_nothing_returns_an_empty_heap_string) {
  tq_buf_t b;
  tq_buf_init(&b, 0);
  char *s = tq_buf_detach(&b);
  ck_assert_ptr_nonnull(s);
  ck_assert_str_eq(s, "");
  tq_free(s);
  tq_alloc_fail_after(0);
  s = tq_buf_detach(&b);
  tq_alloc_fail_after(-1);
  ck_assert_ptr_null(s);
  tq_buf_deinit(&b);
}
END_TEST

START_TEST(strdup_printf_formats_into_a_new_heap_string) {
  char *s = tq_strdup_printf("%s/%s-%03d", "run", "t", 7);
  ck_assert_str_eq(s, "run/t-007");
  tq_free(s);
  s = tq_strdup_printf("%s", "");
  ck_assert_ptr_nonnull(s);
  ck_assert_str_eq(s, "");
  tq_free(s);
  /* Longer than any stack buffer a caller might have used instead. */
  char big[5000];
  memset(big, 'x', sizeof(big) - 1);
  big[sizeof(big) - 1] = '\0';
  s = tq_strdup_printf("<%s>", big);
  ck_assert_uint_eq(strlen(s), sizeof(big) + 1);
  ck_assert_int_eq(s[0], '<');
  ck_assert_int_eq(s[sizeof(big)], '>');
  tq_free(s);
}
END_TEST

static char *th_vdup(const char *fmt, ...) TQ_PRINTF(1, 2);
static char *th_vdup(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *s = tq_vstrdup_printf(fmt, ap);
  va_end(ap);
  return s;
}

START_TEST(strdup_printf_returns_null_when_memory_runs_out) {
  tq_alloc_fail_after(0);
  char *s = tq_strdup_printf("%d apples", 3);
  char *v = th_vdup("%s", "pears");
  tq_alloc_fail_after(-1);
  ck_assert_ptr_null(s);
  ck_assert_ptr_null(v);
  v = th_vdup("%u %s", 2u, "pears");
  ck_assert_str_eq(v, "2 pears");
  tq_free(v);
}
END_TEST

START_TEST(parse_u64_takes_whole_strings_of_digits_in_a_base) {
  uint64_t v = 0;
  ck_assert_int_eq(tq_parse_u64("0", 10, &v), 1);
  ck_assert_uint_eq(v, 0);
  ck_assert_int_eq(tq_parse_u64("18446744073709551615", 10, &v), 1);
  ck_assert_uint_eq(v, UINT64_MAX);
  ck_assert_int_eq(tq_parse_u64("ff", 16, &v), 1);
  ck_assert_uint_eq(v, 255);
  ck_assert_int_eq(tq_parse_u64("FFFFFFFFFFFFFFFF", 16, &v), 1);
  ck_assert_uint_eq(v, UINT64_MAX);
  ck_assert_int_eq(tq_parse_u64("17", 8, &v), 1);
  ck_assert_uint_eq(v, 15);
  v = 7;
  const char *bad[] = {"", "18446744073709551616", "12a", "-1", "+1", " 1", "1 "};
  for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
    ck_assert_msg(!tq_parse_u64(bad[i], 10, &v), "'%s' was taken", bad[i]);
  ck_assert_int_eq(tq_parse_u64("8", 8, &v), 0);
  ck_assert_int_eq(tq_parse_u64("10000000000000000", 16, &v), 0);
  ck_assert_int_eq(tq_parse_u64("1", 1, &v), 0);
  ck_assert_uint_eq(v, 7); /* untouched on failure */
}
END_TEST

Suite *str_suite(void) {
  Suite *s = suite_create("str");
  TCase *tc = tcase_create("sv");
  tcase_add_test(tc, sv_compares_by_content_and_length);
  suite_add_tcase(s, tc);

  tc = tcase_create("buf");
  tcase_add_checked_fixture(tc, NULL, th_alloc_reset);
  tcase_add_test(tc, buf_starts_empty_with_null_data);
  tcase_add_test(tc, buf_append_concatenates_and_nul_terminates);
  tcase_add_test(tc, buf_append_of_nothing_still_makes_an_empty_string);
  tcase_add_test(tc, buf_grows_geometrically_and_keeps_content);
  tcase_add_test(tc, buf_printf_appends_formatted_text_of_any_length);
  tcase_add_test(tc, buf_printf_fits_or_grows_at_every_edge_of_its_room);
  tcase_add_test(tc, buf_vprintf_leaves_the_callers_va_list_usable);
  tcase_add_test(tc, buf_clear_empties_and_keeps_memory);
  tcase_add_test(tc, buf_detach_hands_over_content_and_empties);
  tcase_add_test(tc, buf_detach_of_nothing_returns_an_empty_heap_string);
  tcase_add_test(tc, strdup_printf_formats_into_a_new_heap_string);
  tcase_add_test(tc, strdup_printf_returns_null_when_memory_runs_out);
  suite_add_tcase(s, tc);

  tc = tcase_create("limits");
  tcase_add_checked_fixture(tc, NULL, th_alloc_reset);
  tcase_add_test(tc, buf_append_past_limit_fails_with_limit_and_keeps_content);
  tcase_add_test(tc, buf_printf_past_limit_fails_with_limit_and_keeps_content);
  tcase_add_test(tc, buf_reserve_past_limit_or_size_max_fails_with_limit);
  tcase_add_test(tc, buf_capacity_never_exceeds_limit_plus_nul);
  tcase_add_test(tc, buf_append_under_oom_returns_out_of_memory_and_keeps_content);
  tcase_add_test(tc, parse_u64_takes_whole_strings_of_digits_in_a_base);
  suite_add_tcase(s, tc);
  return s;
}
