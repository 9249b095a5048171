/* Tests for data movement: transpose, pad, slice, concat, reshape, tile, reverse, gather,
 * scatter and resize. Shapes that TOSA 1.0 passes as !tosa.shape operands are index tensors. */
#include <stdint.h>

#include "helpers.h"

/* in[i][j][k] = 12i + 4j + k (2x3x4); perms [2, 0, 1] gives out[k][i][j] = in[i][j][k], 4x2x3. */
START_TEST(transpose_3d) {
  int64_t v[24];
  for (int i = 0; i < 24; i++) v[i] = i;
  tqs_tensor_t *x = th_tensor_i(TQS_I16, TH_SHAPE(2, 3, 4), v);
  tqs_tensor_t *y = th_tensor_i(TQS_I16, TH_SHAPE(4, 2, 3), NULL);
  TH_OK(
      tqs_ref_run("tosa.transpose", TH_ATTRS(TQS_ATTR_I("perms", 2, 0, 1)), TH_INS(x), TH_OUTS(y)));
  TH_EXPECT_I(y, 0, 4, 8, 12, 16, 20, 1, 5, 9, 13, 17, 21, 2, 6, 10, 14, 18, 22, 3, 7, 11, 15, 19,
              23);
  TH_ERROR(
      tqs_ref_run("tosa.transpose", TH_ATTRS(TQS_ATTR_I("perms", 2, 0, 0)), TH_INS(x), TH_OUTS(y)),
      TQ_INVALID_ARGUMENT, "tosa.transpose", "permutation");
}
END_TEST

/* padding [0,0, 1,0, 0,2, 0,0] on 1x2x2x1 [1 2; 3 4] with pad_const -100: one row on top, two
 * columns on the right. */
START_TEST(pad_with_constant) {
  tqs_tensor_t *x = th_tensor_i(TQS_I8, TH_SHAPE(1, 2, 2, 1), TH_I(1, 2, 3, 4));
  tqs_tensor_t *y = th_tensor_i(TQS_I8, TH_SHAPE(1, 3, 4, 1), NULL);
  TH_OK(tqs_ref_run("tosa.pad", TH_NO_ATTRS,
                    TH_INS(x, th_index(8, TH_I(0, 0, 1, 0, 0, 2, 0, 0)), th_one(TQS_I8, -100)),
                    TH_OUTS(y)));
  TH_EXPECT_I(y, -100, -100, -100, -100, 1, 2, -100, -100, 3, 4, -100, -100);
  /* bf16 pad value 0.5 around a 1-element tensor. */
  tqs_tensor_t *f = th_tensor_f(TQS_BF16, TH_SHAPE(1), TH_F(-2.0));
  tqs_tensor_t *g = th_tensor_f(TQS_BF16, TH_SHAPE(3), NULL);
  tqs_tensor_t *c = th_tensor_f(TQS_BF16, TH_SHAPE(1), TH_F(0.5));
  TH_OK(tqs_ref_run("tosa.pad", TH_NO_ATTRS, TH_INS(f, th_index(2, TH_I(1, 1)), c), TH_OUTS(g)));
  TH_EXPECT_F(g, 0.0, 0.5, -2.0, 0.5);
}
END_TEST

/* 3x4 of 0..11, start [1, 1], size [2, 2]: [5 6; 9 10]. */
START_TEST(slice_takes_a_window) {
  int64_t v[12];
  for (int i = 0; i < 12; i++) v[i] = i;
  tqs_tensor_t *x = th_tensor_i(TQS_I32, TH_SHAPE(3, 4), v);
  tqs_tensor_t *y = th_tensor_i(TQS_I32, TH_SHAPE(2, 2), NULL);
  TH_OK(tqs_ref_run("tosa.slice", TH_NO_ATTRS,
                    TH_INS(x, th_index(2, TH_I(1, 1)), th_index(2, TH_I(2, 2))), TH_OUTS(y)));
  TH_EXPECT_I(y, 5, 6, 9, 10);
  TH_ERROR(tqs_ref_run("tosa.slice", TH_NO_ATTRS,
                       TH_INS(x, th_index(2, TH_I(2, 1)), th_index(2, TH_I(2, 2))), TH_OUTS(y)),
           TQ_INVALID_ARGUMENT, "tosa.slice", "dim 0");
}
END_TEST

/* concat along axis 1: [10; 20] (2x1) and [1 2; 3 4] (2x2) -> [10 1 2; 20 3 4]. */
START_TEST(concat_along_an_axis) {
  tqs_tensor_t *a = th_tensor_i(TQS_I8, TH_SHAPE(2, 1), TH_I(10, 20));
  tqs_tensor_t *b = th_tensor_i(TQS_I8, TH_SHAPE(2, 2), TH_I(1, 2, 3, 4));
  tqs_tensor_t *y = th_tensor_i(TQS_I8, TH_SHAPE(2, 3), NULL);
  TH_OK(tqs_ref_run("tosa.concat", TH_ATTRS(TQS_ATTR_I("axis", 1)), TH_INS(a, b), TH_OUTS(y)));
  TH_EXPECT_I(y, 10, 1, 2, 20, 3, 4);
  tqs_tensor_t *z = th_tensor_i(TQS_I8, TH_SHAPE(4, 2), NULL);
  TH_OK(tqs_ref_run("tosa.concat", TH_ATTRS(TQS_ATTR_I("axis", 0)), TH_INS(b, b), TH_OUTS(z)));
  TH_EXPECT_I(z, 1, 2, 3, 4, 1, 2, 3, 4);
}
END_TEST

START_TEST(reshape_tile_and_reverse) {
  tqs_tensor_t *x = th_tensor_i(TQS_I8, TH_SHAPE(3, 2), TH_I(1, 2, 3, 4, 5, 6));
  tqs_tensor_t *r = th_tensor_i(TQS_I8, TH_SHAPE(2, 3), NULL);
  TH_OK(tqs_ref_run("tosa.reshape", TH_NO_ATTRS, TH_INS(x, th_index(2, TH_I(2, 3))), TH_OUTS(r)));
  TH_EXPECT_I(r, 1, 2, 3, 4, 5, 6);
  tqs_tensor_t *bad = th_tensor_i(TQS_I8, TH_SHAPE(4), NULL);
  TH_ERROR(tqs_ref_run("tosa.reshape", TH_NO_ATTRS, TH_INS(x, th_index(1, TH_I(4))), TH_OUTS(bad)),
           TQ_INVALID_ARGUMENT, "tosa.reshape", "element counts");
  /* tile [5 6] (1x2) by [2, 3] -> 2x6. */
  tqs_tensor_t *t = th_tensor_i(TQS_I8, TH_SHAPE(1, 2), TH_I(5, 6));
  tqs_tensor_t *ty = th_tensor_i(TQS_I8, TH_SHAPE(2, 6), NULL);
  TH_OK(tqs_ref_run("tosa.tile", TH_NO_ATTRS, TH_INS(t, th_index(2, TH_I(2, 3))), TH_OUTS(ty)));
  TH_EXPECT_I(ty, 5, 6, 5, 6, 5, 6, 5, 6, 5, 6, 5, 6);
  /* reverse axis 0 of [1 2; 3 4; 5 6] -> [5 6; 3 4; 1 2]; axis 1 -> [2 1; 4 3; 6 5]. */
  tqs_tensor_t *v = th_tensor_i(TQS_I8, TH_SHAPE(3, 2), NULL);
  TH_OK(tqs_ref_run("tosa.reverse", TH_ATTRS(TQS_ATTR_I("axis", 0)), TH_INS(x), TH_OUTS(v)));
  TH_EXPECT_I(v, 5, 6, 3, 4, 1, 2);
  TH_OK(tqs_ref_run("tosa.reverse", TH_ATTRS(TQS_ATTR_I("axis", 1)), TH_INS(x), TH_OUTS(v)));
  TH_EXPECT_I(v, 2, 1, 4, 3, 6, 5);
}
END_TEST

/* gather: values [N=1, K=4, C=2] rows [0 1], [10 11], [20 21], [30 31]; indices [3, 0, 3]. */
START_TEST(gather_picks_rows) {
  tqs_tensor_t *values = th_tensor_i(TQS_I8, TH_SHAPE(1, 4, 2), TH_I(0, 1, 10, 11, 20, 21, 30, 31));
  tqs_tensor_t *idx = th_tensor_i(TQS_I32, TH_SHAPE(1, 3), TH_I(3, 0, 3));
  tqs_tensor_t *y = th_tensor_i(TQS_I8, TH_SHAPE(1, 3, 2), NULL);
  TH_OK(tqs_ref_run("tosa.gather", TH_NO_ATTRS, TH_INS(values, idx), TH_OUTS(y)));
  TH_EXPECT_I(y, 30, 31, 0, 1, 30, 31);
  tqs_tensor_t *bad = th_tensor_i(TQS_I32, TH_SHAPE(1, 3), TH_I(3, 4, 0));
  TH_ERROR(tqs_ref_run("tosa.gather", TH_NO_ATTRS, TH_INS(values, bad), TH_OUTS(y)),
           TQ_INVALID_ARGUMENT, "tosa.gather", "index 4");
}
END_TEST

/* scatter: values_in [0 0 0 0] (1x4x1), indices [2, 0], input [7, 9]: out[2] = 7, out[0] = 9. */
START_TEST(scatter_writes_rows) {
  tqs_tensor_t *values = th_tensor_i(TQS_I8, TH_SHAPE(1, 4, 1), TH_I(0, 0, 0, 0));
  tqs_tensor_t *idx = th_tensor_i(TQS_I32, TH_SHAPE(1, 2), TH_I(2, 0));
  tqs_tensor_t *input = th_tensor_i(TQS_I8, TH_SHAPE(1, 2, 1), TH_I(7, 9));
  tqs_tensor_t *y = th_tensor_i(TQS_I8, TH_SHAPE(1, 4, 1), NULL);
  TH_OK(tqs_ref_run("tosa.scatter", TH_NO_ATTRS, TH_INS(values, idx, input), TH_OUTS(y)));
  TH_EXPECT_I(y, 9, 0, 7, 0);
  tqs_tensor_t *neg = th_tensor_i(TQS_I32, TH_SHAPE(1, 2), TH_I(-1, 0));
  TH_ERROR(tqs_ref_run("tosa.scatter", TH_NO_ATTRS, TH_INS(values, neg, input), TH_OUTS(y)),
           TQ_INVALID_ARGUMENT, "tosa.scatter", "index -1");
}
END_TEST

/* Nearest neighbour x2 on [1 2; 3 4] with scale [4, 2, 4, 2]. Output row oy samples
 * y = 2 oy + offset in units of 1/4 pixel: iy = floor(y / 4), dy = y - 4 iy, and takes iy + 1
 * when 2 dy >= 4, clamped to the image.
 *   offset -1, border 1 (half-pixel centres): y = -1, 1, 3, 5 -> rows 0, 0, 1, 1.
 *     OH = ((2 - 1) * 4 + 1 + 1) / 2 + 1 = 4.
 *   offset 1, border 3 (the corpus's form): y = 1, 3, 5, 7 -> rows 0, 1, 1, 1 (2 clamps to 1). */
START_TEST(resize_nearest_on_a_2x2) {
  tqs_tensor_t *x = th_tensor_i(TQS_I8, TH_SHAPE(1, 2, 2, 1), TH_I(1, 2, 3, 4));
  tqs_tensor_t *y = th_tensor_i(TQS_I8, TH_SHAPE(1, 4, 4, 1), NULL);
  TH_OK(tqs_ref_run(
      "tosa.resize", TH_ATTRS(TQS_ATTR_S("mode", "NEAREST_NEIGHBOR")),
      TH_INS(x, th_index(4, TH_I(4, 2, 4, 2)), th_index(2, TH_I(-1, -1)), th_index(2, TH_I(1, 1))),
      TH_OUTS(y)));
  TH_EXPECT_I(y, 1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4);
  TH_OK(tqs_ref_run(
      "tosa.resize", TH_ATTRS(TQS_ATTR_S("mode", "NEAREST_NEIGHBOR")),
      TH_INS(x, th_index(4, TH_I(4, 2, 4, 2)), th_index(2, TH_I(1, 1)), th_index(2, TH_I(3, 3))),
      TH_OUTS(y)));
  TH_EXPECT_I(y, 1, 2, 2, 2, 3, 4, 4, 4, 3, 4, 4, 4, 3, 4, 4, 4);
}
END_TEST

/* Bilinear, scale [2, 1, 2, 1], offset 0, border 0 on [0 4; 8 12]: OH = (1 * 2) / 1 + 1 = 3.
 * Row oy: iy = floor(oy / 2), dy = oy mod 2 (units of 1/2). Integer results are scaled by
 * 2 * 2 = 4: out = v00 (2-dy)(2-dx) + v01 (2-dy) dx + v10 dy (2-dx) + v11 dy dx.
 *   row 0: 0, 4*2*1 = 8, 4*4 = 16;  row 1: 8*2 = 16, 0+4+8+12 = 24, 4*2 + 12*2 = 32;
 *   row 2: 8*4 = 32, 8*2 + 12*2 = 40, 12*4 = 48. */
START_TEST(resize_bilinear_integer_scaling) {
  tqs_tensor_t *x = th_tensor_i(TQS_I8, TH_SHAPE(1, 2, 2, 1), TH_I(0, 4, 8, 12));
  tqs_tensor_t *y = th_tensor_i(TQS_I32, TH_SHAPE(1, 3, 3, 1), NULL);
  TH_OK(tqs_ref_run(
      "tosa.resize", TH_ATTRS(TQS_ATTR_S("mode", "BILINEAR")),
      TH_INS(x, th_index(4, TH_I(2, 1, 2, 1)), th_index(2, TH_I(0, 0)), th_index(2, TH_I(0, 0))),
      TH_OUTS(y)));
  TH_EXPECT_I(y, 0, 8, 16, 16, 24, 32, 32, 40, 48);
  /* The same in f32 gives the fractions: values / 4. */
  tqs_tensor_t *f = th_tensor_f(TQS_F32, TH_SHAPE(1, 2, 2, 1), TH_F(0.0, 4.0, 8.0, 12.0));
  tqs_tensor_t *g = th_tensor_f(TQS_F32, TH_SHAPE(1, 3, 3, 1), NULL);
  TH_OK(tqs_ref_run(
      "tosa.resize", TH_ATTRS(TQS_ATTR_S("mode", "BILINEAR")),
      TH_INS(f, th_index(4, TH_I(2, 1, 2, 1)), th_index(2, TH_I(0, 0)), th_index(2, TH_I(0, 0))),
      TH_OUTS(g)));
  TH_EXPECT_F(g, 0.0, 0.0, 2.0, 4.0, 4.0, 6.0, 8.0, 8.0, 10.0, 12.0);
}
END_TEST

START_TEST(identity_and_const_copy) {
  tqs_tensor_t *x = th_tensor_f(TQS_F16, TH_SHAPE(2), TH_F(1.5, -0.25));
  tqs_tensor_t *y = th_tensor_f(TQS_F16, TH_SHAPE(2), NULL);
  TH_OK(tqs_ref_run("tosa.identity", TH_NO_ATTRS, TH_INS(x), TH_OUTS(y)));
  TH_EXPECT_F(y, 0.0, 1.5, -0.25);
  tqs_tensor_t *z = th_tensor_f(TQS_F16, TH_SHAPE(1, 2), NULL);
  TH_OK(tqs_ref_run("tosa.const", TH_NO_ATTRS, TH_INS(x), TH_OUTS(z)));
  TH_EXPECT_F(z, 0.0, 1.5, -0.25);
}
END_TEST

Suite *data_suite(void) {
  Suite *s = suite_create("data");
  TCase *tc = th_tcase("data");
  tcase_add_test(tc, transpose_3d);
  tcase_add_test(tc, pad_with_constant);
  tcase_add_test(tc, slice_takes_a_window);
  tcase_add_test(tc, concat_along_an_axis);
  tcase_add_test(tc, reshape_tile_and_reverse);
  tcase_add_test(tc, gather_picks_rows);
  tcase_add_test(tc, scatter_writes_rows);
  tcase_add_test(tc, resize_nearest_on_a_2x2);
  tcase_add_test(tc, resize_bilinear_integer_scaling);
  tcase_add_test(tc, identity_and_const_copy);
  suite_add_tcase(s, tc);
  return s;
}
