/* Tests for max_pool2d and avg_pool2d at the edges: padding never takes part (max of the valid
 * elements; average over the valid count, rounded as TOSA's reciprocal_scale does). */
#include <stdint.h>

#include "helpers.h"

/* 3x3 of negative values, so that padding read as 0 would show:
 *   -5 -2 -3
 *   -4 -1 -6
 *   -7 -8 -9
 * kernel 2x2, stride 2, pad top/left 1: OH = (3 + 1 - 2) / 2 + 1 = 2.
 *   (0,0) sees only (0,0) = -5;  (0,1) sees -2, -3;  (1,0) sees -4, -7;  (1,1) sees -1 -6 -8 -9.
 * pad bottom/right 1 instead: (0,0) -5 -2 -4 -1 -> -1; (0,1) -3 -6 -> -3; (1,0) -7 -8 -> -7;
 * (1,1) -9. */
START_TEST(max_pool2d_ignores_padding_at_every_edge) {
  static const tqs_type_t types[2] = {TQS_I8, TQS_I16};
  for (int t = 0; t < 2; t++) {
    tqs_tensor_t *x =
        th_tensor_i(types[t], TH_SHAPE(1, 3, 3, 1), TH_I(-5, -2, -3, -4, -1, -6, -7, -8, -9));
    tqs_tensor_t *y = th_tensor_i(types[t], TH_SHAPE(1, 2, 2, 1), NULL);
    TH_OK(tqs_ref_run("tosa.max_pool2d",
                      TH_ATTRS(TQS_ATTR_I("kernel", 2, 2), TQS_ATTR_I("stride", 2, 2),
                               TQS_ATTR_I("pad", 1, 0, 1, 0)),
                      TH_INS(x), TH_OUTS(y)));
    TH_EXPECT_I(y, -5, -2, -4, -1);
    TH_OK(tqs_ref_run("tosa.max_pool2d",
                      TH_ATTRS(TQS_ATTR_I("kernel", 2, 2), TQS_ATTR_I("stride", 2, 2),
                               TQS_ATTR_I("pad", 0, 1, 0, 1)),
                      TH_INS(x), TH_OUTS(y)));
    TH_EXPECT_I(y, -1, -3, -7, -9);
  }
}
END_TEST

/* All -128 with 3x3 padding 1: the result is -128 everywhere, and f32 padding is not 0. */
START_TEST(max_pool2d_of_minimum_values_and_floats) {
  int64_t mins[4] = {-128, -128, -128, -128};
  tqs_tensor_t *x = th_tensor_i(TQS_I8, TH_SHAPE(1, 2, 2, 1), mins);
  tqs_tensor_t *y = th_tensor_i(TQS_I8, TH_SHAPE(1, 2, 2, 1), NULL);
  TH_OK(tqs_ref_run("tosa.max_pool2d",
                    TH_ATTRS(TQS_ATTR_I("kernel", 3, 3), TQS_ATTR_I("stride", 1, 1),
                             TQS_ATTR_I("pad", 1, 1, 1, 1)),
                    TH_INS(x), TH_OUTS(y)));
  TH_EXPECT_I(y, -128, -128, -128, -128);
  tqs_tensor_t *f = th_tensor_f(TQS_F32, TH_SHAPE(1, 1, 3, 1), TH_F(-3.5, -1.25, -2.0));
  tqs_tensor_t *g = th_tensor_f(TQS_F32, TH_SHAPE(1, 1, 2, 1), NULL);
  TH_OK(tqs_ref_run("tosa.max_pool2d",
                    TH_ATTRS(TQS_ATTR_I("kernel", 1, 2), TQS_ATTR_I("stride", 1, 2),
                             TQS_ATTR_I("pad", 0, 0, 0, 1)),
                    TH_INS(f), TH_OUTS(g)));
  TH_EXPECT_F(g, 0.0, -1.25, -2.0);
}
END_TEST

/* avg_pool2d 3x3, stride 1, pad 1 on
 *   1 2 3
 *   4 5 6
 *   7 8 10
 * Divisors are the valid counts: 4 at corners, 6 at edges, 9 in the middle. TOSA divides with
 * reciprocal_scale(count): k = 32 - clz(count - 1), multiplier = ((2^30 + 1) << k) / count,
 * shift = 30 + k, then apply_scale_32 (round half up):
 *   count 4: multiplier 2^30 + 1, shift 32;  count 6: 1431655766, shift 33;
 *   count 9: 1908874355, shift 34.
 *   (0,0) 12/4 = 3;  (0,1) 21/6 = 3.5 -> (21*1431655766 + 2^32) >> 33 = 4;  (0,2) 16/4 = 4;
 *   (1,0) 27/6 = 4.5 -> 5;  (1,1) 46/9 = 5.11 -> 5;  (1,2) 34/6 = 5.67 -> 6;
 *   (2,0) 24/4 = 6;  (2,1) 40/6 = 6.67 -> 7;  (2,2) 29/4 = 7.25 -> 7. */
START_TEST(avg_pool2d_divides_by_the_valid_count) {
  tqs_tensor_t *x = th_tensor_i(TQS_I8, TH_SHAPE(1, 3, 3, 1), TH_I(1, 2, 3, 4, 5, 6, 7, 8, 10));
  tqs_tensor_t *y = th_tensor_i(TQS_I8, TH_SHAPE(1, 3, 3, 1), NULL);
  TH_OK(tqs_ref_run("tosa.avg_pool2d",
                    TH_ATTRS(TQS_ATTR_I("kernel", 3, 3), TQS_ATTR_I("stride", 1, 1),
                             TQS_ATTR_I("pad", 1, 1, 1, 1), TQS_ATTR_S("acc_type", "i32")),
                    TH_INS(x, th_one(TQS_I8, 0), th_one(TQS_I8, 0)), TH_OUTS(y)));
  TH_EXPECT_I(y, 3, 4, 4, 5, 5, 6, 6, 7, 7);
}
END_TEST

/* A 1x2 window over [-3, -4]: sum -7, count 2 (multiplier 2^30 + 1, shift 31):
 *   (-7 (2^30 + 1) + 2^30) >> 31 = (-6 * 2^30 - 7) >> 31 = -4: the multiplier's +1 pushes
 *   -3.5 just below the half, so it rounds down.
 * With input_zp -10 and output_zp 3: values 7, 6, sum 13:
 *   (13 (2^30 + 1) + 2^30) >> 31 = (14 * 2^30 + 13) >> 31 = 7, + 3 = 10.
 * With output_zp 125: 7 + 125 = 132 saturates to 127. */
START_TEST(avg_pool2d_rounds_negative_halves_and_applies_zero_points) {
  tqs_tensor_t *x = th_tensor_i(TQS_I8, TH_SHAPE(1, 1, 2, 1), TH_I(-3, -4));
  tqs_tensor_t *y = th_tensor_i(TQS_I8, TH_SHAPE(1, 1, 1, 1), NULL);
  const tqs_attr_t attrs[] = {TQS_ATTR_I("kernel", 1, 2), TQS_ATTR_I("stride", 1, 1),
                              TQS_ATTR_I("pad", 0, 0, 0, 0)};
  TH_OK(tqs_ref_run("tosa.avg_pool2d", attrs, 3, TH_INS(x, th_one(TQS_I8, 0), th_one(TQS_I8, 0)),
                    TH_OUTS(y)));
  TH_EXPECT_I(y, -4);
  TH_OK(tqs_ref_run("tosa.avg_pool2d", attrs, 3, TH_INS(x, th_one(TQS_I8, -10), th_one(TQS_I8, 3)),
                    TH_OUTS(y)));
  TH_EXPECT_I(y, 10);
  TH_OK(tqs_ref_run("tosa.avg_pool2d", attrs, 3,
                    TH_INS(x, th_one(TQS_I8, -10), th_one(TQS_I8, 125)), TH_OUTS(y)));
  TH_EXPECT_I(y, 127);
}
END_TEST

/* Float average over valid elements: corners of [1 2; 3 4] with 2x2 kernel, pad 1 bottom and
 * right, stride 1: (1+2+3+4)/4 = 2.5, (2+4)/2 = 3, (3+4)/2 = 3.5, 4. */
START_TEST(avg_pool2d_float) {
  tqs_tensor_t *x = th_tensor_f(TQS_BF16, TH_SHAPE(1, 2, 2, 1), TH_F(1.0, 2.0, 3.0, 4.0));
  tqs_tensor_t *y = th_tensor_f(TQS_BF16, TH_SHAPE(1, 2, 2, 1), NULL);
  TH_OK(tqs_ref_run("tosa.avg_pool2d",
                    TH_ATTRS(TQS_ATTR_I("kernel", 2, 2), TQS_ATTR_I("stride", 1, 1),
                             TQS_ATTR_I("pad", 0, 1, 0, 1), TQS_ATTR_S("acc_type", "f32")),
                    TH_INS(x), TH_OUTS(y)));
  TH_EXPECT_F(y, 0.0, 2.5, 3.0, 3.5, 4.0);
}
END_TEST

START_TEST(pooling_rejects_padding_as_large_as_the_kernel) {
  tqs_tensor_t *x = th_tensor_i(TQS_I8, TH_SHAPE(1, 4, 4, 1), NULL);
  tqs_tensor_t *y = th_tensor_i(TQS_I8, TH_SHAPE(1, 3, 3, 1), NULL);
  TH_ERROR(tqs_ref_run("tosa.max_pool2d",
                       TH_ATTRS(TQS_ATTR_I("kernel", 2, 2), TQS_ATTR_I("stride", 2, 2),
                                TQS_ATTR_I("pad", 2, 0, 0, 0)),
                       TH_INS(x), TH_OUTS(y)),
           TQ_INVALID_ARGUMENT, "tosa.max_pool2d", "pad[0]");
}
END_TEST

Suite *pool_suite(void) {
  Suite *s = suite_create("pool");
  TCase *tc = th_tcase("pool");
  tcase_add_test(tc, max_pool2d_ignores_padding_at_every_edge);
  tcase_add_test(tc, max_pool2d_of_minimum_values_and_floats);
  tcase_add_test(tc, avg_pool2d_divides_by_the_valid_count);
  tcase_add_test(tc, avg_pool2d_rounds_negative_halves_and_applies_zero_points);
  tcase_add_test(tc, avg_pool2d_float);
  tcase_add_test(tc, pooling_rejects_padding_as_large_as_the_kernel);
  suite_add_tcase(s, tc);
  return s;
}
