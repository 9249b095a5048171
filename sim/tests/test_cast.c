/* Tests for tosa.cast: rounding half to even, saturation, truncation and single rounding. */
#include <math.h>
#include <stdint.h>

#include "helpers.h"

/* float -> int rounds to nearest, ties to even, and saturates; NaN gives 0:
 * 0.5 -> 0, 1.5 -> 2, 2.5 -> 2, -0.5 -> 0, -1.5 -> -2, -2.5 -> -2, 2.4999 -> 2,
 * 300 -> 127, -300 -> -128, +inf -> 127, NaN -> 0. */
START_TEST(cast_f32_to_int_rounds_half_even_and_saturates) {
  tqs_tensor_t *a =
      th_tensor_f(TQS_F32, TH_SHAPE(11),
                  TH_F(0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 2.4999, 300.0, -300.0, INFINITY, NAN));
  tqs_tensor_t *y = th_tensor_i(TQS_I8, TH_SHAPE(11), NULL);
  TH_OK(tqs_ref_run("tosa.cast", TH_NO_ATTRS, TH_INS(a), TH_OUTS(y)));
  TH_EXPECT_I(y, 0, 2, 2, 0, -2, -2, 2, 127, -128, 127, 0);
  /* To i32: 3e9 saturates to INT32_MAX, -2147483648 is exact. */
  tqs_tensor_t *b = th_tensor_f(TQS_F32, TH_SHAPE(2), TH_F(3e9, -2147483648.0));
  tqs_tensor_t *z = th_tensor_i(TQS_I32, TH_SHAPE(2), NULL);
  TH_OK(tqs_ref_run("tosa.cast", TH_NO_ATTRS, TH_INS(b), TH_OUTS(z)));
  TH_EXPECT_I(z, INT32_MAX, INT32_MIN);
}
END_TEST

/* bf16 -> int: 2.5 -> 2, -3.5 -> -4 (even), 1000 -> 127 in i8. */
START_TEST(cast_bf16_to_int) {
  tqs_tensor_t *a = th_tensor_f(TQS_BF16, TH_SHAPE(3), TH_F(2.5, -3.5, 1000.0));
  tqs_tensor_t *y = th_tensor_i(TQS_I8, TH_SHAPE(3), NULL);
  TH_OK(tqs_ref_run("tosa.cast", TH_NO_ATTRS, TH_INS(a), TH_OUTS(y)));
  TH_EXPECT_I(y, 2, -4, 127);
  tqs_tensor_t *z = th_tensor_i(TQS_I32, TH_SHAPE(3), NULL);
  TH_OK(tqs_ref_run("tosa.cast", TH_NO_ATTRS, TH_INS(a), TH_OUTS(z)));
  TH_EXPECT_I(z, 2, -4, 1000);
}
END_TEST

/* Narrowing int casts keep the low bits: 300 -> 300 - 256 = 44, -129 -> 127, 127 -> 127.
 * Widening sign-extends; bool -> int gives 0/1 and int -> bool value != 0. */
START_TEST(cast_int_to_int_truncates) {
  tqs_tensor_t *a = th_tensor_i(TQS_I32, TH_SHAPE(3), TH_I(300, -129, 127));
  tqs_tensor_t *y = th_tensor_i(TQS_I8, TH_SHAPE(3), NULL);
  TH_OK(tqs_ref_run("tosa.cast", TH_NO_ATTRS, TH_INS(a), TH_OUTS(y)));
  TH_EXPECT_I(y, 44, 127, 127);
  tqs_tensor_t *w = th_tensor_i(TQS_I16, TH_SHAPE(3), NULL);
  TH_OK(tqs_ref_run("tosa.cast", TH_NO_ATTRS, TH_INS(y), TH_OUTS(w)));
  TH_EXPECT_I(w, 44, 127, 127);
  tqs_tensor_t *n = th_tensor_i(TQS_I8, TH_SHAPE(3), TH_I(-1, 0, 5));
  tqs_tensor_t *b = th_tensor_i(TQS_I1, TH_SHAPE(3), NULL);
  TH_OK(tqs_ref_run("tosa.cast", TH_NO_ATTRS, TH_INS(n), TH_OUTS(b)));
  TH_EXPECT_I(b, 1, 0, 1);
  tqs_tensor_t *c = th_tensor_i(TQS_I32, TH_SHAPE(3), NULL);
  TH_OK(tqs_ref_run("tosa.cast", TH_NO_ATTRS, TH_INS(b), TH_OUTS(c)));
  TH_EXPECT_I(c, 1, 0, 1);
}
END_TEST

/* int -> bf16 rounds once: 16842753 = 2^24 * (1 + 2^-8 + 2^-24) is above the midpoint of
 * 2^24 and 2^24 * (1 + 2^-7), so it rounds up to 16908288 (bits 0x4b81). Rounding through f32
 * first would give 16842752, exactly the midpoint, then 2^24 (0x4b80). */
START_TEST(cast_int_to_bf16_rounds_once) {
  tqs_tensor_t *a = th_tensor_i(TQS_I32, TH_SHAPE(2), TH_I(16842753, -3));
  tqs_tensor_t *y = th_tensor_f(TQS_BF16, TH_SHAPE(2), NULL);
  TH_OK(tqs_ref_run("tosa.cast", TH_NO_ATTRS, TH_INS(a), TH_OUTS(y)));
  ck_assert_uint_eq(th_bits16(y, 0), 0x4b81);
  ck_assert_uint_eq(th_bits16(y, 1), 0xc040);
  /* i8 -> f32 is exact; i32 -> f32 rounds 16777217 = 2^24 + 1 (a tie) to even 2^24. */
  tqs_tensor_t *b = th_tensor_i(TQS_I32, TH_SHAPE(2), TH_I(16777217, -128));
  tqs_tensor_t *z = th_tensor_f(TQS_F32, TH_SHAPE(2), NULL);
  TH_OK(tqs_ref_run("tosa.cast", TH_NO_ATTRS, TH_INS(b), TH_OUTS(z)));
  TH_EXPECT_F(z, 0.0, 16777216.0, -128.0);
}
END_TEST

/* f32 -> bf16 ties to even (1 + 2^-8 -> 1.0, 1 + 3*2^-8 -> 1 + 2^-6); bf16 -> f32 is exact. */
START_TEST(cast_between_floats_rounds_to_nearest_even) {
  tqs_tensor_t *a = th_tensor_f(TQS_F32, TH_SHAPE(3), TH_F(1.00390625, 1.01171875, 1e39));
  tqs_tensor_t *y = th_tensor_f(TQS_BF16, TH_SHAPE(3), NULL);
  TH_OK(tqs_ref_run("tosa.cast", TH_NO_ATTRS, TH_INS(a), TH_OUTS(y)));
  ck_assert_uint_eq(th_bits16(y, 0), 0x3f80);
  ck_assert_uint_eq(th_bits16(y, 1), 0x3f82);
  ck_assert_uint_eq(th_bits16(y, 2), 0x7f80); /* f32 +inf (1e39 overflowed f32) stays inf */
  tqs_tensor_t *z = th_tensor_f(TQS_F32, TH_SHAPE(3), NULL);
  TH_OK(tqs_ref_run("tosa.cast", TH_NO_ATTRS, TH_INS(y), TH_OUTS(z)));
  TH_EXPECT_F(z, 0.0, 1.0, 1.015625, INFINITY);
  /* f32 -> f16: 70000 is beyond 65504 + half an ulp: +inf. */
  tqs_tensor_t *h = th_tensor_f(TQS_F16, TH_SHAPE(3), NULL);
  tqs_tensor_t *c = th_tensor_f(TQS_F32, TH_SHAPE(3), TH_F(70000.0, 0.1, -0.0));
  TH_OK(tqs_ref_run("tosa.cast", TH_NO_ATTRS, TH_INS(c), TH_OUTS(h)));
  ck_assert_uint_eq(th_bits16(h, 0), 0x7c00);
  ck_assert_uint_eq(th_bits16(h, 1), 0x2e66); /* 0.1 -> 0.0999755859375 */
  ck_assert_uint_eq(th_bits16(h, 2), 0x8000);
}
END_TEST

Suite *cast_suite(void) {
  Suite *s = suite_create("cast");
  TCase *tc = th_tcase("cast");
  tcase_add_test(tc, cast_f32_to_int_rounds_half_even_and_saturates);
  tcase_add_test(tc, cast_bf16_to_int);
  tcase_add_test(tc, cast_int_to_int_truncates);
  tcase_add_test(tc, cast_int_to_bf16_rounds_once);
  tcase_add_test(tc, cast_between_floats_rounds_to_nearest_even);
  suite_add_tcase(s, tc);
  return s;
}
