/* Tests for checked.h: each operation at the edges of its type. */
#include <stdint.h>

#include "helpers.h"
#include "torq/base/checked.h"

#define TH_SENTINEL ((size_t)0x5a5a5a5a)

static const struct {
  size_t a, b;
  int ok;
  size_t sum;
} th_size_add_cases[] = {
    {0, 0, 1, 0},
    {1, 2, 1, 3},
    {SIZE_MAX, 0, 1, SIZE_MAX},
    {0, SIZE_MAX, 1, SIZE_MAX},
    {SIZE_MAX - 1, 1, 1, SIZE_MAX},
    {SIZE_MAX / 2, SIZE_MAX / 2 + 1, 1, SIZE_MAX},
    {SIZE_MAX, 1, 0, 0},
    {1, SIZE_MAX, 0, 0},
    {SIZE_MAX / 2 + 1, SIZE_MAX / 2 + 1, 0, 0},
    {SIZE_MAX, SIZE_MAX, 0, 0},
};

START_TEST(checked_size_add_detects_overflow_at_size_max) {
  size_t out = TH_SENTINEL;
  int ok = tq_size_add(th_size_add_cases[_i].a, th_size_add_cases[_i].b, &out);
  ck_assert_int_eq(ok, th_size_add_cases[_i].ok);
  ck_assert_uint_eq(out, ok ? th_size_add_cases[_i].sum : TH_SENTINEL);
}
END_TEST

static const struct {
  size_t a, b;
  int ok;
  size_t product;
} th_size_mul_cases[] = {
    {0, 0, 1, 0},
    {0, SIZE_MAX, 1, 0},
    {SIZE_MAX, 0, 1, 0},
    {SIZE_MAX, 1, 1, SIZE_MAX},
    {SIZE_MAX / 3, 3, 1, SIZE_MAX / 3 * 3},
    {SIZE_MAX / 2 + 1, 2, 0, 0},
    {SIZE_MAX, 2, 0, 0},
    {SIZE_MAX / 3 + 1, 3, 0, 0},
    {(size_t)1 << (sizeof(size_t) * 4), (size_t)1 << (sizeof(size_t) * 4), 0, 0},
    {SIZE_MAX, SIZE_MAX, 0, 0},
};

START_TEST(checked_size_mul_detects_overflow_at_size_max) {
  size_t out = TH_SENTINEL;
  int ok = tq_size_mul(th_size_mul_cases[_i].a, th_size_mul_cases[_i].b, &out);
  ck_assert_int_eq(ok, th_size_mul_cases[_i].ok);
  ck_assert_uint_eq(out, ok ? th_size_mul_cases[_i].product : TH_SENTINEL);
}
END_TEST

START_TEST(checked_i64_detects_overflow_in_both_directions) {
  int64_t out = 7;
  ck_assert_int_eq(tq_i64_add(INT64_MAX, 1, &out), 0);
  ck_assert_int_eq(tq_i64_add(INT64_MIN, -1, &out), 0);
  ck_assert_int_eq(tq_i64_mul(INT64_MIN, -1, &out), 0);
  ck_assert_int_eq(tq_i64_mul(INT64_MAX, 2, &out), 0);
  ck_assert_int_eq(out, 7);
  ck_assert_int_eq(tq_i64_add(INT64_MAX, INT64_MIN, &out), 1);
  ck_assert_int_eq(out, -1);
  ck_assert_int_eq(tq_i64_mul(INT64_MAX, -1, &out), 1);
  ck_assert_int_eq(out, -INT64_MAX);
  ck_assert_int_eq(tq_i64_mul(INT64_MIN, 1, &out), 1);
  ck_assert_int_eq(out, INT64_MIN);
}
END_TEST

START_TEST(u64_saturating_add_and_ceiling_division) {
  ck_assert_uint_eq(tq_u64_add_sat(1, 2), 3);
  ck_assert_uint_eq(tq_u64_add_sat(UINT64_MAX - 1, 1), UINT64_MAX);
  ck_assert_uint_eq(tq_u64_add_sat(UINT64_MAX - 1, 2), UINT64_MAX);
  ck_assert_uint_eq(tq_u64_add_sat(UINT64_MAX, UINT64_MAX), UINT64_MAX);
  ck_assert_uint_eq(tq_u64_div_ceil(0, 7), 0);
  ck_assert_uint_eq(tq_u64_div_ceil(14, 7), 2);
  ck_assert_uint_eq(tq_u64_div_ceil(15, 7), 3);
  ck_assert_uint_eq(tq_u64_div_ceil(UINT64_MAX, 2), UINT64_MAX / 2 + 1);
}
END_TEST

START_TEST(checked_u64_detects_overflow_at_uint64_max) {
  uint64_t out = 7;
  ck_assert_int_eq(tq_u64_add(UINT64_MAX, 1, &out), 0);
  ck_assert_int_eq(tq_u64_mul(UINT64_MAX, 2, &out), 0);
  ck_assert_int_eq(tq_u64_mul((uint64_t)1 << 32, (uint64_t)1 << 32, &out), 0);
  ck_assert_uint_eq(out, 7);
  ck_assert_int_eq(tq_u64_add(UINT64_MAX - 5, 5, &out), 1);
  ck_assert_uint_eq(out, UINT64_MAX);
  ck_assert_int_eq(tq_u64_mul((uint64_t)1 << 32, ((uint64_t)1 << 32) - 1, &out), 1);
  ck_assert_uint_eq(out, UINT64_MAX - (((uint64_t)1 << 32) - 1));
}
END_TEST

Suite *checked_suite(void) {
  Suite *s = suite_create("checked");
  TCase *tc = tcase_create("size");
  tcase_add_loop_test(tc, checked_size_add_detects_overflow_at_size_max, 0,
                      (int)(sizeof(th_size_add_cases) / sizeof(th_size_add_cases[0])));
  tcase_add_loop_test(tc, checked_size_mul_detects_overflow_at_size_max, 0,
                      (int)(sizeof(th_size_mul_cases) / sizeof(th_size_mul_cases[0])));
  suite_add_tcase(s, tc);
  tc = tcase_create("int64");
  tcase_add_test(tc, checked_i64_detects_overflow_in_both_directions);
  tcase_add_test(tc, checked_u64_detects_overflow_at_uint64_max);
  tcase_add_test(tc, u64_saturating_add_and_ceiling_division);
  suite_add_tcase(s, tc);
  return s;
}
