/* Tests for tensor.h: sizes, ownership, element access and the bf16/f16 conversions. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "helpers.h"

START_TEST(tensor_create_is_zeroed_and_sized) {
  tqs_tensor_t *t = NULL;
  TH_OK(tqs_tensor_create(TQS_I16, TH_SHAPE(2, 3), &t));
  size_t count, bytes;
  TH_OK(tqs_tensor_count(t, &count));
  TH_OK(tqs_tensor_byte_size(t, &bytes));
  ck_assert_uint_eq(count, 6);
  ck_assert_uint_eq(bytes, 12);
  ck_assert_int_eq(t->owns_data, 1);
  for (size_t i = 0; i < count; i++) ck_assert_int_eq(tqs_tensor_get_i64(t, i), 0);
  tqs_tensor_destroy(t);
  tqs_tensor_destroy(NULL);
}
END_TEST

START_TEST(tensor_rank0_holds_one_element) {
  tqs_tensor_t *t = th_tensor_i(TQS_I32, TH_SCALAR, TH_I(-7));
  size_t count;
  TH_OK(tqs_tensor_count(t, &count));
  ck_assert_uint_eq(count, 1);
  ck_assert_int_eq(tqs_tensor_get_i64(t, 0), -7);
  /* Past the end: reads 0, writes nothing. */
  ck_assert_int_eq(tqs_tensor_get_i64(t, 1), 0);
  tqs_tensor_set_i64(t, 1, 5);
  ck_assert_int_eq(tqs_tensor_get_i64(t, 0), -7);
}
END_TEST

START_TEST(tensor_rejects_bad_shapes) {
  tqs_tensor_t view;
  TH_ERROR(tqs_tensor_init(&view, TQS_I8, TH_SHAPE(2, -1), NULL), TQ_INVALID_ARGUMENT, "negative",
           NULL);
  /* 2^32 * 2^32 elements overflow size_t. */
  TH_ERROR(tqs_tensor_init(&view, TQS_I8, TH_SHAPE(INT64_C(1) << 32, INT64_C(1) << 32), NULL),
           TQ_LIMIT, "overflows", NULL);
  int64_t dims[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
  TH_ERROR(tqs_tensor_init(&view, TQS_I8, 9, dims, NULL), TQ_INVALID_ARGUMENT, "rank 9", NULL);
  TH_ERROR(tqs_tensor_init(&view, (tqs_type_t)99, TH_SHAPE(1), NULL), TQ_INVALID_ARGUMENT,
           "element type", NULL);
}
END_TEST

START_TEST(tensor_init_borrows_caller_data) {
  int8_t data[4] = {1, -2, 3, -4};
  tqs_tensor_t view;
  TH_OK(tqs_tensor_init(&view, TQS_I8, TH_SHAPE(2, 2), data));
  ck_assert_int_eq(view.owns_data, 0);
  ck_assert_int_eq(tqs_tensor_get_i64(&view, 3), -4);
  tqs_tensor_set_i64(&view, 0, 200); /* 200 wraps to 200 - 256 = -56 */
  ck_assert_int_eq(data[0], -56);
}
END_TEST

START_TEST(tensor_set_f64_rounds_half_even_and_saturates_integers) {
  tqs_tensor_t *t = th_tensor_f(TQS_I8, TH_SHAPE(6), TH_F(2.5, 3.5, -2.5, 1000.0, -1000.0, NAN));
  TH_EXPECT_I(t, 2, 4, -2, 127, -128, 0);
  tqs_tensor_t *u = th_tensor_f(TQS_U8, TH_SHAPE(2), TH_F(-3.0, 300.0));
  TH_EXPECT_I(u, 0, 255);
}
END_TEST

START_TEST(tensor_type_names_round_trip) {
  for (int t = 0; t < TQS_TYPE_COUNT; t++) {
    tqs_type_t parsed;
    ck_assert_int_eq(tqs_type_parse(tqs_type_name((tqs_type_t)t), &parsed), 1);
    ck_assert_int_eq(parsed, t);
  }
  tqs_type_t i48;
  ck_assert_int_eq(tqs_type_parse("i48", &i48), 1);
  ck_assert_int_eq(i48, TQS_I64);
  ck_assert_int_eq(tqs_type_parse("f64", &i48), 0);
  ck_assert_uint_eq(tqs_type_size(TQS_BF16), 2);
  ck_assert_uint_eq(tqs_type_size(TQS_INDEX), 8);
}
END_TEST

/* f32 -> bf16 keeps the top 16 bits after rounding to nearest even on bit 16. */
static const struct {
  uint32_t f32_bits;
  uint16_t bf16;
} th_bf16_cases[] = {
    {0x3f800000u, 0x3f80}, /* 1.0 */
    {0x3f808000u, 0x3f80}, /* 1 + 2^-8: halfway between 0x3f80 and 0x3f81, 0x3f80 is even */
    {0x3f818000u, 0x3f82}, /* 1 + 3*2^-8: halfway between 0x3f81 and 0x3f82, 0x3f82 is even */
    {0x3f808001u, 0x3f81}, /* just above halfway: up */
    {0x3f807fffu, 0x3f80}, /* just below halfway: down */
    {0xbf808000u, 0xbf80}, /* -(1 + 2^-8): ties to even by magnitude */
    {0x7f7fffffu, 0x7f80}, /* FLT_MAX rounds past the largest bf16: +inf */
    {0x7fc00000u, 0x7fc0}, /* quiet NaN stays NaN */
    {0x7f800001u, 0x7fc0}, /* signalling NaN becomes a quiet NaN, not infinity */
    {0x00000001u, 0x0000}, /* the smallest subnormal rounds to +0 */
};

START_TEST(bf16_rounds_to_nearest_even) {
  float f;
  memcpy(&f, &th_bf16_cases[_i].f32_bits, sizeof f);
  ck_assert_uint_eq(tqs_f32_to_bf16(f), th_bf16_cases[_i].bf16);
}
END_TEST

START_TEST(bf16_from_f64_rounds_once) {
  /* 1 + 2^-8 + 2^-30 is above the bf16 midpoint: rounds up to 0x3f81. Through f32 it would
   * first lose 2^-30 (to exactly the midpoint) and then tie to even, 0x3f80. */
  double x = 1.0 + ldexp(1.0, -8) + ldexp(1.0, -30);
  ck_assert_uint_eq(tqs_f64_to_bf16(x), 0x3f81);
  ck_assert_uint_eq(tqs_f32_to_bf16((float)x), 0x3f80);
  ck_assert(tqs_bf16_to_f32(0x3f81) == 1.0078125f);
  ck_assert(tqs_bf16_to_f32(0xc040) == -3.0f);
}
END_TEST

static const struct {
  double value;
  uint16_t f16;
} th_f16_cases[] = {
    {1.0, 0x3c00},
    {-2.0, 0xc000},
    {65504.0, 0x7bff},                 /* largest finite f16 */
    {65519.0, 0x7bff},                 /* below the midpoint to 65536 */
    {65520.0, 0x7c00},                 /* the midpoint: ties to "even" 2^16, i.e. +inf */
    {5.9604644775390625e-08, 0x0001},  /* 2^-24, the smallest subnormal */
    {2.98023223876953125e-08, 0x0000}, /* 2^-25: tie between 0 and 2^-24, 0 is even */
    {8.94069671630859375e-08, 0x0002}, /* 3*2^-25: tie between 1 and 2 ulps, 2 is even */
    {1.00048828125, 0x3c00},           /* 1 + 2^-11: tie, even mantissa 0 */
    {1.00146484375, 0x3c02},           /* 1 + 3*2^-11: tie, even mantissa 2 */
    {6.103515625e-05, 0x0400},         /* 2^-14, the smallest normal */
};

START_TEST(f16_rounds_to_nearest_even) {
  ck_assert_uint_eq(tqs_f64_to_f16(th_f16_cases[_i].value), th_f16_cases[_i].f16);
}
END_TEST

START_TEST(f16_widens_exactly) {
  ck_assert(tqs_f16_to_f32(0x0001) == ldexpf(1.0f, -24));
  ck_assert(tqs_f16_to_f32(0x7bff) == 65504.0f);
  ck_assert(isinf(tqs_f16_to_f32(0xfc00)) && tqs_f16_to_f32(0xfc00) < 0);
  ck_assert(isnan(tqs_f16_to_f32(0x7e00)));
  ck_assert(tqs_f16_to_f32(0x3555) == 0.333251953125f);
  ck_assert_uint_eq(tqs_f32_to_f16(0.333251953125f), 0x3555);
}
END_TEST

Suite *tensor_suite(void) {
  Suite *s = suite_create("tensor");
  TCase *tc = th_tcase("tensor");
  tcase_add_test(tc, tensor_create_is_zeroed_and_sized);
  tcase_add_test(tc, tensor_rank0_holds_one_element);
  tcase_add_test(tc, tensor_rejects_bad_shapes);
  tcase_add_test(tc, tensor_init_borrows_caller_data);
  tcase_add_test(tc, tensor_set_f64_rounds_half_even_and_saturates_integers);
  tcase_add_test(tc, tensor_type_names_round_trip);
  tcase_add_loop_test(tc, bf16_rounds_to_nearest_even, 0,
                      sizeof th_bf16_cases / sizeof th_bf16_cases[0]);
  tcase_add_test(tc, bf16_from_f64_rounds_once);
  tcase_add_loop_test(tc, f16_rounds_to_nearest_even, 0,
                      sizeof th_f16_cases / sizeof th_f16_cases[0]);
  tcase_add_test(tc, f16_widens_exactly);
  suite_add_tcase(s, tc);
  return s;
}
