/* Tests for the reductions (the axis stays as a dim of 1) and argmax (the axis goes away). */
#include <math.h>
#include <stdint.h>

#include "helpers.h"

/* 2x3x2 of 0..11, axis 1: out[i][0][k] = sum over j of 6i + 2j + k:
 * [0+2+4, 1+3+5, 6+8+10, 7+9+11] = [6, 9, 24, 27]. */
START_TEST(reduce_sum_keeps_the_axis_as_one) {
  int64_t v[12];
  for (int i = 0; i < 12; i++) v[i] = i;
  tqs_tensor_t *x = th_tensor_i(TQS_I32, TH_SHAPE(2, 3, 2), v);
  tqs_tensor_t *y = th_tensor_i(TQS_I32, TH_SHAPE(2, 1, 2), NULL);
  TH_OK(tqs_ref_run("tosa.reduce_sum", TH_ATTRS(TQS_ATTR_I("axis", 1)), TH_INS(x), TH_OUTS(y)));
  TH_EXPECT_I(y, 6, 9, 24, 27);
  /* Axis 0: [0+6, 1+7, ..., 5+11]. */
  tqs_tensor_t *z = th_tensor_i(TQS_I32, TH_SHAPE(1, 3, 2), NULL);
  TH_OK(tqs_ref_run("tosa.reduce_sum", TH_ATTRS(TQS_ATTR_I("axis", 0)), TH_INS(x), TH_OUTS(z)));
  TH_EXPECT_I(z, 6, 8, 10, 12, 14, 16);
  /* i32 sums wrap: INT32_MAX + 1 = INT32_MIN. */
  tqs_tensor_t *w = th_tensor_i(TQS_I32, TH_SHAPE(1, 2), TH_I(INT32_MAX, 1));
  tqs_tensor_t *wy = th_tensor_i(TQS_I32, TH_SHAPE(1, 1), NULL);
  TH_OK(tqs_ref_run("tosa.reduce_sum", TH_ATTRS(TQS_ATTR_I("axis", 1)), TH_INS(w), TH_OUTS(wy)));
  TH_EXPECT_I(wy, INT32_MIN);
}
END_TEST

START_TEST(reduce_max_min_product_all_any) {
  tqs_tensor_t *x = th_tensor_i(TQS_I8, TH_SHAPE(2, 3), TH_I(-128, -5, -7, 3, 2, -1));
  tqs_tensor_t *y = th_tensor_i(TQS_I8, TH_SHAPE(2, 1), NULL);
  TH_OK(tqs_ref_run("tosa.reduce_max", TH_ATTRS(TQS_ATTR_I("axis", 1)), TH_INS(x), TH_OUTS(y)));
  TH_EXPECT_I(y, -5, 3);
  TH_OK(tqs_ref_run("tosa.reduce_min", TH_ATTRS(TQS_ATTR_I("axis", 1)), TH_INS(x), TH_OUTS(y)));
  TH_EXPECT_I(y, -128, -1);
  tqs_tensor_t *f = th_tensor_f(TQS_F32, TH_SHAPE(1, 4), TH_F(1.5, -2.0, 4.0, 0.5));
  tqs_tensor_t *fy = th_tensor_f(TQS_F32, TH_SHAPE(1, 1), NULL);
  TH_OK(
      tqs_ref_run("tosa.reduce_product", TH_ATTRS(TQS_ATTR_I("axis", 1)), TH_INS(f), TH_OUTS(fy)));
  TH_EXPECT_F(fy, 0.0, -6.0);
  TH_OK(tqs_ref_run("tosa.reduce_sum", TH_ATTRS(TQS_ATTR_I("axis", 1)), TH_INS(f), TH_OUTS(fy)));
  TH_EXPECT_F(fy, 0.0, 4.0);
  tqs_tensor_t *n = th_tensor_f(TQS_F32, TH_SHAPE(1, 3), TH_F(1.0, NAN, 3.0));
  TH_OK(tqs_ref_run("tosa.reduce_max", TH_ATTRS(TQS_ATTR_I("axis", 1)), TH_INS(n), TH_OUTS(fy)));
  TH_EXPECT_F(fy, 0.0, NAN);
  TH_OK(tqs_ref_run("tosa.reduce_max",
                    TH_ATTRS(TQS_ATTR_I("axis", 1), TQS_ATTR_S("nan_mode", "IGNORE")), TH_INS(n),
                    TH_OUTS(fy)));
  TH_EXPECT_F(fy, 0.0, 3.0);
  tqs_tensor_t *b = th_tensor_i(TQS_I1, TH_SHAPE(2, 2), TH_I(1, 1, 0, 1));
  tqs_tensor_t *by = th_tensor_i(TQS_I1, TH_SHAPE(2, 1), NULL);
  TH_OK(tqs_ref_run("tosa.reduce_all", TH_ATTRS(TQS_ATTR_I("axis", 1)), TH_INS(b), TH_OUTS(by)));
  TH_EXPECT_I(by, 1, 0);
  tqs_tensor_t *bz = th_tensor_i(TQS_I1, TH_SHAPE(1, 2), NULL);
  TH_OK(tqs_ref_run("tosa.reduce_any", TH_ATTRS(TQS_ATTR_I("axis", 0)), TH_INS(b), TH_OUTS(bz)));
  TH_EXPECT_I(bz, 1, 1);
}
END_TEST

/* Ties give the first index; a row of the type's minimum gives 0. */
START_TEST(argmax_ties_give_the_first_index) {
  tqs_tensor_t *x =
      th_tensor_i(TQS_I8, TH_SHAPE(3, 4), TH_I(1, 5, 5, 2, -128, -128, -128, -128, 7, -1, 7, 9));
  tqs_tensor_t *y = th_tensor_i(TQS_I32, TH_SHAPE(3), NULL);
  TH_OK(tqs_ref_run("tosa.argmax", TH_ATTRS(TQS_ATTR_I("axis", 1)), TH_INS(x), TH_OUTS(y)));
  TH_EXPECT_I(y, 1, 0, 3);
  /* Axis 0: columns [1 -128 7], [5 -128 -1], [5 -128 7], [2 -128 9]. */
  tqs_tensor_t *z = th_tensor_i(TQS_I32, TH_SHAPE(4), NULL);
  TH_OK(tqs_ref_run("tosa.argmax", TH_ATTRS(TQS_ATTR_I("axis", 0)), TH_INS(x), TH_OUTS(z)));
  TH_EXPECT_I(z, 2, 0, 2, 2);
}
END_TEST

/* PROPAGATE: the first NaN wins; IGNORE: NaNs are skipped. */
START_TEST(argmax_nan_modes) {
  tqs_tensor_t *x = th_tensor_f(TQS_F32, TH_SHAPE(4), TH_F(1.0, NAN, 3.0, NAN));
  tqs_tensor_t *y = th_tensor_i(TQS_I32, TH_SCALAR, NULL);
  TH_OK(tqs_ref_run("tosa.argmax", TH_ATTRS(TQS_ATTR_I("axis", 0)), TH_INS(x), TH_OUTS(y)));
  TH_EXPECT_I(y, 1);
  TH_OK(tqs_ref_run("tosa.argmax",
                    TH_ATTRS(TQS_ATTR_I("axis", 0), TQS_ATTR_S("nan_mode", "IGNORE")), TH_INS(x),
                    TH_OUTS(y)));
  TH_EXPECT_I(y, 2);
}
END_TEST

Suite *reduce_suite(void) {
  Suite *s = suite_create("reduce");
  TCase *tc = th_tcase("reduce");
  tcase_add_test(tc, reduce_sum_keeps_the_axis_as_one);
  tcase_add_test(tc, reduce_max_min_product_all_any);
  tcase_add_test(tc, argmax_ties_give_the_first_index);
  tcase_add_test(tc, argmax_nan_modes);
  suite_add_tcase(s, tc);
  return s;
}
