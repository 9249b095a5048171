/* Tests for the elementwise operators: integer wrap, mul's shift, shifts, clz, clamp, negate,
 * comparisons, select, broadcasting and the float functions. */
#include <math.h>
#include <stdint.h>

#include "helpers.h"

/* int32 add/sub overflow is undefined in TOSA; we wrap in two's complement:
 * INT32_MAX + 1 = INT32_MIN, INT32_MIN + -1 = INT32_MAX. */
START_TEST(add_i32_wraps_on_overflow) {
  tqs_tensor_t *a = th_tensor_i(TQS_I32, TH_SHAPE(3), TH_I(INT32_MAX, INT32_MIN, 5));
  tqs_tensor_t *b = th_tensor_i(TQS_I32, TH_SHAPE(3), TH_I(1, -1, -7));
  tqs_tensor_t *y = th_tensor_i(TQS_I32, TH_SHAPE(3), NULL);
  TH_OK(tqs_ref_run("tosa.add", TH_NO_ATTRS, TH_INS(a, b), TH_OUTS(y)));
  TH_EXPECT_I(y, INT32_MIN, INT32_MAX, -2);
}
END_TEST

/* INT32_MIN - 1 = INT32_MAX; 0 - INT32_MIN = 2^31, which wraps to INT32_MIN. */
START_TEST(sub_i32_wraps_on_overflow) {
  tqs_tensor_t *a = th_tensor_i(TQS_I32, TH_SHAPE(3), TH_I(INT32_MIN, 0, 10));
  tqs_tensor_t *b = th_tensor_i(TQS_I32, TH_SHAPE(3), TH_I(1, INT32_MIN, 3));
  tqs_tensor_t *y = th_tensor_i(TQS_I32, TH_SHAPE(3), NULL);
  TH_OK(tqs_ref_run("sub", TH_NO_ATTRS, TH_INS(a, b), TH_OUTS(y)));
  TH_EXPECT_I(y, INT32_MAX, INT32_MIN, 7);
}
END_TEST

/* [2,3] + [1,3] broadcasts the row; [2,3] - [2,1] broadcasts the column. */
START_TEST(binary_ops_broadcast_dims_of_one) {
  tqs_tensor_t *a = th_tensor_i(TQS_I32, TH_SHAPE(2, 3), TH_I(1, 2, 3, 4, 5, 6));
  tqs_tensor_t *row = th_tensor_i(TQS_I32, TH_SHAPE(1, 3), TH_I(10, 20, 30));
  tqs_tensor_t *col = th_tensor_i(TQS_I32, TH_SHAPE(2, 1), TH_I(1, 2));
  tqs_tensor_t *y = th_tensor_i(TQS_I32, TH_SHAPE(2, 3), NULL);
  TH_OK(tqs_ref_run("tosa.add", TH_NO_ATTRS, TH_INS(a, row), TH_OUTS(y)));
  TH_EXPECT_I(y, 11, 22, 33, 14, 25, 36);
  TH_OK(tqs_ref_run("tosa.sub", TH_NO_ATTRS, TH_INS(col, a), TH_OUTS(y)));
  TH_EXPECT_I(y, 0, -1, -2, -2, -3, -4);
  /* bf16 with a broadcast scalar: 1.5 + 0.25 = 1.75, -3 + 0.25 = -2.75 (both exact in bf16). */
  tqs_tensor_t *f = th_tensor_f(TQS_BF16, TH_SHAPE(1, 2), TH_F(1.5, -3.0));
  tqs_tensor_t *s = th_tensor_f(TQS_BF16, TH_SHAPE(1, 1), TH_F(0.25));
  tqs_tensor_t *fy = th_tensor_f(TQS_BF16, TH_SHAPE(1, 2), NULL);
  TH_OK(tqs_ref_run("tosa.add", TH_NO_ATTRS, TH_INS(f, s), TH_OUTS(fy)));
  TH_EXPECT_F(fy, 0.0, 1.75, -2.75);
}
END_TEST

/* i32 mul with shift s: (a * b + (1 << (s - 1))) >> s, low 32 bits kept.
 *   3*5 = 15, s=1: 16 >> 1 = 8;  -15: -14 >> 1 = -7;  7*1: 8 >> 1 = 4;
 *   100000^2 = 10^10, s=1: 5*10^9, which keeps its low 32 bits: 5000000000 - 2^32 = 705032704. */
START_TEST(mul_i32_with_shift_rounds_and_keeps_low_bits) {
  tqs_tensor_t *a = th_tensor_i(TQS_I32, TH_SHAPE(4), TH_I(3, -3, 7, 100000));
  tqs_tensor_t *b = th_tensor_i(TQS_I32, TH_SHAPE(4), TH_I(5, 5, 1, 100000));
  tqs_tensor_t *y = th_tensor_i(TQS_I32, TH_SHAPE(4), NULL);
  TH_OK(tqs_ref_run("tosa.mul", TH_NO_ATTRS, TH_INS(a, b, th_one(TQS_I8, 1)), TH_OUTS(y)));
  TH_EXPECT_I(y, 8, -7, 4, 705032704);
  /* Q31 0.5 * 0.5, shift 31: (2^60 + 2^30) >> 31 = 2^29. */
  tqs_tensor_t *q = th_tensor_i(TQS_I32, TH_SHAPE(1), TH_I(INT64_C(1) << 30));
  tqs_tensor_t *qy = th_tensor_i(TQS_I32, TH_SHAPE(1), NULL);
  TH_OK(tqs_ref_run("tosa.mul", TH_NO_ATTRS, TH_INS(q, q, th_one(TQS_I8, 31)), TH_OUTS(qy)));
  TH_EXPECT_I(qy, INT64_C(1) << 29);
}
END_TEST

/* i8 x i8 -> i32 (TOSA): -128 * -128 = 16384, 127 * 127 = 16129, with a broadcast operand. */
START_TEST(mul_i8_widens_to_i32) {
  tqs_tensor_t *a = th_tensor_i(TQS_I8, TH_SHAPE(1, 3), TH_I(-128, 127, -5));
  tqs_tensor_t *b = th_tensor_i(TQS_I8, TH_SHAPE(1, 3), TH_I(-128, 127, 7));
  tqs_tensor_t *y = th_tensor_i(TQS_I32, TH_SHAPE(1, 3), NULL);
  TH_OK(tqs_ref_run("tosa.mul", TH_NO_ATTRS, TH_INS(a, b, th_one(TQS_I8, 0)), TH_OUTS(y)));
  TH_EXPECT_I(y, 16384, 16129, -35);
  TH_ERROR(tqs_ref_run("tosa.mul", TH_NO_ATTRS, TH_INS(a, b, th_one(TQS_I8, 2)), TH_OUTS(y)),
           TQ_INVALID_ARGUMENT, "tosa.mul", "only allowed for i32");
}
END_TEST

/* round = true adds bit (s - 1) of the input:
 *   5 >> 1 = 2, bit 0 of 5 is 1: 3;  -5 >> 1 = -3, bit 0 is 1: -2;  7 >> 2 = 1, bit 1 is 1: 2;
 *   -8 >> 2 = -2, bit 1 of -8 is 0: -2;  shift 0: 6 unchanged. */
START_TEST(arithmetic_right_shift_rounds_when_asked) {
  tqs_tensor_t *a = th_tensor_i(TQS_I32, TH_SHAPE(5), TH_I(5, -5, 7, -8, 6));
  tqs_tensor_t *b = th_tensor_i(TQS_I32, TH_SHAPE(5), TH_I(1, 1, 2, 2, 0));
  tqs_tensor_t *y = th_tensor_i(TQS_I32, TH_SHAPE(5), NULL);
  TH_OK(tqs_ref_run("tosa.arithmetic_right_shift", TH_ATTRS(TQS_ATTR_I("round", 1)), TH_INS(a, b),
                    TH_OUTS(y)));
  TH_EXPECT_I(y, 3, -2, 2, -2, 6);
  TH_OK(tqs_ref_run("tosa.arithmetic_right_shift", TH_ATTRS(TQS_ATTR_S("round", "false")),
                    TH_INS(a, b), TH_OUTS(y)));
  TH_EXPECT_I(y, 2, -3, 1, -2, 6);
}
END_TEST

/* Left: 1 << 31 = INT32_MIN; -1 << 4 = -16. Right (logical, on the 32-bit pattern):
 * 0xffffffff >> 28 = 15; 0xfffffff0 >> 2 = 0x3ffffffc = 1073741820; i8 0xff >> 4 = 15. */
START_TEST(logical_shifts_work_on_the_bit_pattern) {
  tqs_tensor_t *a = th_tensor_i(TQS_I32, TH_SHAPE(3), TH_I(1, -1, 3));
  tqs_tensor_t *b = th_tensor_i(TQS_I32, TH_SHAPE(3), TH_I(31, 4, 0));
  tqs_tensor_t *y = th_tensor_i(TQS_I32, TH_SHAPE(3), NULL);
  TH_OK(tqs_ref_run("tosa.logical_left_shift", TH_NO_ATTRS, TH_INS(a, b), TH_OUTS(y)));
  TH_EXPECT_I(y, INT32_MIN, -16, 3);
  tqs_tensor_t *c = th_tensor_i(TQS_I32, TH_SHAPE(3), TH_I(-1, -16, 8));
  tqs_tensor_t *d = th_tensor_i(TQS_I32, TH_SHAPE(3), TH_I(28, 2, 3));
  TH_OK(tqs_ref_run("tosa.logical_right_shift", TH_NO_ATTRS, TH_INS(c, d), TH_OUTS(y)));
  TH_EXPECT_I(y, 15, 1073741820, 1);
  tqs_tensor_t *e = th_tensor_i(TQS_I8, TH_SHAPE(1), TH_I(-1));
  tqs_tensor_t *f = th_tensor_i(TQS_I8, TH_SHAPE(1), TH_I(4));
  tqs_tensor_t *g = th_tensor_i(TQS_I8, TH_SHAPE(1), NULL);
  TH_OK(tqs_ref_run("tosa.logical_right_shift", TH_NO_ATTRS, TH_INS(e, f), TH_OUTS(g)));
  TH_EXPECT_I(g, 15);
}
END_TEST

/* clz(0) = 32, clz(1) = 31, clz(-1) = 0, clz(0x10000) = 15. */
START_TEST(clz_counts_leading_zeros_of_32_bits) {
  tqs_tensor_t *a = th_tensor_i(TQS_I32, TH_SHAPE(4), TH_I(0, 1, -1, 0x10000));
  tqs_tensor_t *y = th_tensor_i(TQS_I32, TH_SHAPE(4), NULL);
  TH_OK(tqs_ref_run("tosa.clz", TH_NO_ATTRS, TH_INS(a), TH_OUTS(y)));
  TH_EXPECT_I(y, 32, 31, 0, 15);
}
END_TEST

START_TEST(clamp_limits_integers_and_floats) {
  tqs_tensor_t *a = th_tensor_i(TQS_I8, TH_SHAPE(5), TH_I(-128, -127, 0, 126, 127));
  tqs_tensor_t *y = th_tensor_i(TQS_I8, TH_SHAPE(5), NULL);
  TH_OK(tqs_ref_run("tosa.clamp", TH_ATTRS(TQS_ATTR_I("min_val", -127), TQS_ATTR_I("max_val", 126)),
                    TH_INS(a), TH_OUTS(y)));
  TH_EXPECT_I(y, -127, -127, 0, 126, 126);
  /* bf16 ReLU6; NaN propagates by default and becomes min_val with IGNORE. */
  tqs_tensor_t *f = th_tensor_f(TQS_BF16, TH_SHAPE(4), TH_F(-1.5, 3.25, 7.0, NAN));
  tqs_tensor_t *fy = th_tensor_f(TQS_BF16, TH_SHAPE(4), NULL);
  TH_OK(tqs_ref_run("tosa.clamp", TH_ATTRS(TQS_ATTR_F("min_val", 0.0), TQS_ATTR_F("max_val", 6.0)),
                    TH_INS(f), TH_OUTS(fy)));
  TH_EXPECT_F(fy, 0.0, 0.0, 3.25, 6.0, NAN);
  TH_OK(tqs_ref_run("tosa.clamp",
                    TH_ATTRS(TQS_ATTR_F("min_val", 0.0), TQS_ATTR_F("max_val", 6.0),
                             TQS_ATTR_S("nan_mode", "IGNORE")),
                    TH_INS(f), TH_OUTS(fy)));
  TH_EXPECT_F(fy, 0.0, 0.0, 3.25, 6.0, 0.0);
  TH_ERROR(tqs_ref_run("tosa.clamp", TH_ATTRS(TQS_ATTR_I("min_val", 5), TQS_ATTR_I("max_val", 4)),
                       TH_INS(a), TH_OUTS(y)),
           TQ_INVALID_ARGUMENT, "tosa.clamp", "above max_val");
}
END_TEST

/* negate with zero points: out = clip(out_zp - (in - in_zp)). in_zp = -10, out_zp = 5:
 * 20 -> 5 - 30 = -25;  -128 -> 5 - (-118) = 123;  120 -> 5 - 130 = -125;  127 -> 5 - 137 = -132
 * saturates to -128. i32: -INT32_MIN saturates to INT32_MAX. */
START_TEST(negate_applies_zero_points_and_saturates) {
  tqs_tensor_t *a = th_tensor_i(TQS_I8, TH_SHAPE(4), TH_I(20, -128, 120, 127));
  tqs_tensor_t *y = th_tensor_i(TQS_I8, TH_SHAPE(4), NULL);
  TH_OK(tqs_ref_run("tosa.negate", TH_NO_ATTRS, TH_INS(a, th_one(TQS_I8, -10), th_one(TQS_I8, 5)),
                    TH_OUTS(y)));
  TH_EXPECT_I(y, -25, 123, -125, -128);
  tqs_tensor_t *b = th_tensor_i(TQS_I32, TH_SHAPE(2), TH_I(INT32_MIN, 7));
  tqs_tensor_t *z = th_tensor_i(TQS_I32, TH_SHAPE(2), NULL);
  TH_OK(tqs_ref_run("tosa.negate", TH_NO_ATTRS, TH_INS(b, th_one(TQS_I32, 0), th_one(TQS_I32, 0)),
                    TH_OUTS(z)));
  TH_EXPECT_I(z, INT32_MAX, -7);
}
END_TEST

/* Comparisons give i1; NaN compares false. */
START_TEST(comparisons_give_booleans) {
  tqs_tensor_t *a = th_tensor_f(TQS_BF16, TH_SHAPE(4), TH_F(1.0, 2.0, NAN, -1.0));
  tqs_tensor_t *b = th_tensor_f(TQS_BF16, TH_SHAPE(4), TH_F(1.0, 1.0, NAN, 0.0));
  tqs_tensor_t *y = th_tensor_i(TQS_I1, TH_SHAPE(4), NULL);
  TH_OK(tqs_ref_run("tosa.equal", TH_NO_ATTRS, TH_INS(a, b), TH_OUTS(y)));
  TH_EXPECT_I(y, 1, 0, 0, 0);
  TH_OK(tqs_ref_run("tosa.greater", TH_NO_ATTRS, TH_INS(a, b), TH_OUTS(y)));
  TH_EXPECT_I(y, 0, 1, 0, 0);
  TH_OK(tqs_ref_run("tosa.greater_equal", TH_NO_ATTRS, TH_INS(a, b), TH_OUTS(y)));
  TH_EXPECT_I(y, 1, 1, 0, 0);
  tqs_tensor_t *c = th_tensor_i(TQS_I32, TH_SHAPE(4), TH_I(INT32_MIN, 5, -3, 0));
  tqs_tensor_t *d = th_tensor_i(TQS_I32, TH_SHAPE(4), TH_I(INT32_MAX, 5, -4, 0));
  TH_OK(tqs_ref_run("tosa.greater", TH_NO_ATTRS, TH_INS(c, d), TH_OUTS(y)));
  TH_EXPECT_I(y, 0, 0, 1, 0);
}
END_TEST

START_TEST(select_and_logical_ops) {
  tqs_tensor_t *p = th_tensor_i(TQS_I1, TH_SHAPE(4), TH_I(1, 0, 1, 0));
  tqs_tensor_t *q = th_tensor_i(TQS_I1, TH_SHAPE(4), TH_I(1, 1, 0, 0));
  tqs_tensor_t *y = th_tensor_i(TQS_I1, TH_SHAPE(4), NULL);
  TH_OK(tqs_ref_run("tosa.logical_and", TH_NO_ATTRS, TH_INS(p, q), TH_OUTS(y)));
  TH_EXPECT_I(y, 1, 0, 0, 0);
  TH_OK(tqs_ref_run("tosa.logical_or", TH_NO_ATTRS, TH_INS(p, q), TH_OUTS(y)));
  TH_EXPECT_I(y, 1, 1, 1, 0);
  TH_OK(tqs_ref_run("tosa.logical_xor", TH_NO_ATTRS, TH_INS(p, q), TH_OUTS(y)));
  TH_EXPECT_I(y, 0, 1, 1, 0);
  TH_OK(tqs_ref_run("tosa.logical_not", TH_NO_ATTRS, TH_INS(p), TH_OUTS(y)));
  TH_EXPECT_I(y, 0, 1, 0, 1);
  tqs_tensor_t *a = th_tensor_i(TQS_I16, TH_SHAPE(4), TH_I(1, 2, 3, 4));
  tqs_tensor_t *b = th_tensor_i(TQS_I16, TH_SHAPE(1), TH_I(-9));
  tqs_tensor_t *z = th_tensor_i(TQS_I16, TH_SHAPE(4), NULL);
  TH_OK(tqs_ref_run("tosa.select", TH_NO_ATTRS, TH_INS(p, a, b), TH_OUTS(z)));
  TH_EXPECT_I(z, 1, -9, 3, -9);
}
END_TEST

/* 0x0f0f & 0x00ff = 0x000f; | = 0x0fff; ^ = 0x0ff0; ~0x0f0f = 0xf0f0 = -3856 as i16. */
START_TEST(bitwise_ops_and_abs) {
  tqs_tensor_t *a = th_tensor_i(TQS_I16, TH_SHAPE(1), TH_I(0x0f0f));
  tqs_tensor_t *b = th_tensor_i(TQS_I16, TH_SHAPE(1), TH_I(0x00ff));
  tqs_tensor_t *y = th_tensor_i(TQS_I16, TH_SHAPE(1), NULL);
  TH_OK(tqs_ref_run("tosa.bitwise_and", TH_NO_ATTRS, TH_INS(a, b), TH_OUTS(y)));
  TH_EXPECT_I(y, 0x000f);
  TH_OK(tqs_ref_run("tosa.bitwise_or", TH_NO_ATTRS, TH_INS(a, b), TH_OUTS(y)));
  TH_EXPECT_I(y, 0x0fff);
  TH_OK(tqs_ref_run("tosa.bitwise_xor", TH_NO_ATTRS, TH_INS(a, b), TH_OUTS(y)));
  TH_EXPECT_I(y, 0x0ff0);
  TH_OK(tqs_ref_run("tosa.bitwise_not", TH_NO_ATTRS, TH_INS(a), TH_OUTS(y)));
  TH_EXPECT_I(y, -3856);
  /* abs wraps at INT32_MIN (documented). */
  tqs_tensor_t *c = th_tensor_i(TQS_I32, TH_SHAPE(3), TH_I(-5, 5, INT32_MIN));
  tqs_tensor_t *z = th_tensor_i(TQS_I32, TH_SHAPE(3), NULL);
  TH_OK(tqs_ref_run("tosa.abs", TH_NO_ATTRS, TH_INS(c), TH_OUTS(z)));
  TH_EXPECT_I(z, 5, 5, INT32_MIN);
}
END_TEST

START_TEST(maximum_minimum_and_nan_modes) {
  tqs_tensor_t *a = th_tensor_f(TQS_F32, TH_SHAPE(3), TH_F(1.0, NAN, -2.0));
  tqs_tensor_t *b = th_tensor_f(TQS_F32, TH_SHAPE(3), TH_F(2.0, 3.0, -5.0));
  tqs_tensor_t *y = th_tensor_f(TQS_F32, TH_SHAPE(3), NULL);
  TH_OK(tqs_ref_run("tosa.maximum", TH_NO_ATTRS, TH_INS(a, b), TH_OUTS(y)));
  TH_EXPECT_F(y, 0.0, 2.0, NAN, -2.0);
  TH_OK(tqs_ref_run("tosa.minimum", TH_ATTRS(TQS_ATTR_S("nan_mode", "IGNORE")), TH_INS(a, b),
                    TH_OUTS(y)));
  TH_EXPECT_F(y, 0.0, 1.0, 3.0, -5.0);
  tqs_tensor_t *c = th_tensor_i(TQS_I32, TH_SHAPE(2), TH_I(INT32_MIN, 4));
  tqs_tensor_t *d = th_tensor_i(TQS_I32, TH_SHAPE(1), TH_I(0));
  tqs_tensor_t *z = th_tensor_i(TQS_I32, TH_SHAPE(2), NULL);
  TH_OK(tqs_ref_run("tosa.maximum", TH_NO_ATTRS, TH_INS(c, d), TH_OUTS(z)));
  TH_EXPECT_I(z, 0, 4);
}
END_TEST

START_TEST(float_unary_functions) {
  tqs_tensor_t *a = th_tensor_f(TQS_F32, TH_SHAPE(4), TH_F(0.0, -1.5, 4.0, 1.0));
  tqs_tensor_t *y = th_tensor_f(TQS_F32, TH_SHAPE(4), NULL);
  TH_OK(tqs_ref_run("tosa.exp", TH_NO_ATTRS, TH_INS(a), TH_OUTS(y)));
  TH_EXPECT_F(y, 1e-5, 1.0, 0.22313016014843, 54.598150033144236, 2.718281828459045);
  TH_OK(tqs_ref_run("tosa.floor", TH_NO_ATTRS, TH_INS(a), TH_OUTS(y)));
  TH_EXPECT_F(y, 0.0, 0.0, -2.0, 4.0, 1.0);
  TH_OK(tqs_ref_run("tosa.ceil", TH_NO_ATTRS, TH_INS(a), TH_OUTS(y)));
  TH_EXPECT_F(y, 0.0, 0.0, -1.0, 4.0, 1.0);
  TH_OK(tqs_ref_run("tosa.reciprocal", TH_NO_ATTRS, TH_INS(a), TH_OUTS(y)));
  TH_EXPECT_F(y, 1e-6, INFINITY, -0.6666666666666666, 0.25, 1.0);
  TH_OK(tqs_ref_run("tosa.sigmoid", TH_NO_ATTRS, TH_INS(a), TH_OUTS(y)));
  TH_EXPECT_F(y, 1e-6, 0.5, 0.18242552380635635, 0.9820137900379085, 0.7310585786300049);
  TH_OK(tqs_ref_run("tosa.tanh", TH_NO_ATTRS, TH_INS(a), TH_OUTS(y)));
  TH_EXPECT_F(y, 1e-6, 0.0, -0.9051482536448664, 0.999329299739067, 0.7615941559557649);
  /* bf16 results are rounded: exp(1) = 2.71828 -> 2.71875 (the nearest bf16). */
  tqs_tensor_t *b = th_tensor_f(TQS_BF16, TH_SHAPE(1), TH_F(1.0));
  tqs_tensor_t *z = th_tensor_f(TQS_BF16, TH_SHAPE(1), NULL);
  TH_OK(tqs_ref_run("tosa.exp", TH_NO_ATTRS, TH_INS(b), TH_OUTS(z)));
  TH_EXPECT_F(z, 0.0, 2.71875);
}
END_TEST

Suite *elementwise_suite(void) {
  Suite *s = suite_create("elementwise");
  TCase *tc = th_tcase("elementwise");
  tcase_add_test(tc, add_i32_wraps_on_overflow);
  tcase_add_test(tc, sub_i32_wraps_on_overflow);
  tcase_add_test(tc, binary_ops_broadcast_dims_of_one);
  tcase_add_test(tc, mul_i32_with_shift_rounds_and_keeps_low_bits);
  tcase_add_test(tc, mul_i8_widens_to_i32);
  tcase_add_test(tc, arithmetic_right_shift_rounds_when_asked);
  tcase_add_test(tc, logical_shifts_work_on_the_bit_pattern);
  tcase_add_test(tc, clz_counts_leading_zeros_of_32_bits);
  tcase_add_test(tc, clamp_limits_integers_and_floats);
  tcase_add_test(tc, negate_applies_zero_points_and_saturates);
  tcase_add_test(tc, comparisons_give_booleans);
  tcase_add_test(tc, select_and_logical_ops);
  tcase_add_test(tc, bitwise_ops_and_abs);
  tcase_add_test(tc, maximum_minimum_and_nan_modes);
  tcase_add_test(tc, float_unary_functions);
  suite_add_tcase(s, tc);
  return s;
}
