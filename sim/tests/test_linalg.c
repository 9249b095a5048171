/* tensor.empty and the linalg structured ops of the reference interpreter (ref.h, "linalg"), on
 * hand-computed values: maps with broadcasting and reductions, the body's scalar arithmetic
 * (float rounding to bf16, integer wrapping, the choices where LLVM leaves a result poison), and
 * malformed maps and bodies refused. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "helpers.h"

/* y[i, j] = relu(x[i, j] * g[j] + y0[i, j]) in bf16: a broadcast operand, every op rounded to
 * bf16, a constant, a comparison and a select. 3 * bf16(1/3) = 1.001953125 rounds to 1. */
START_TEST(linalg_generic_runs_its_body_at_every_point_with_broadcast_maps) {
  tqs_tensor_t *x = th_tensor_f(TQS_BF16, TH_SHAPE(2, 3), TH_F(1, -2, 3, 0.5, 1.5, -1));
  tqs_tensor_t *g = th_tensor_f(TQS_BF16, TH_SHAPE(3), TH_F(2, 0.5, 1.0 / 3.0));
  tqs_tensor_t *init = th_tensor_f(TQS_BF16, TH_SHAPE(2, 3), TH_F(0, 0, 1, 0, 0, 0));
  tqs_tensor_t *y = th_tensor_f(TQS_BF16, TH_SHAPE(2, 3), NULL);
  TH_OK(tqs_ref_run("linalg.generic",
                    TH_ATTRS(TQS_ATTR_I("linalg.inputs", 2), TQS_ATTR_I("linalg.loops", 0, 0),
                             TQS_ATTR_I("linalg.maps", 2, 0, 1, 1, 1, 2, 0, 1),
                             TQS_ATTR_S("linalg.body",
                                        "arith.mulf bf16 0 1\n"
                                        "arith.addf bf16 3 2\n"
                                        "arith.constant bf16 0x0p+0\n"
                                        "arith.cmpf i1 4 5 ogt\n"
                                        "arith.select bf16 6 4 5\n"
                                        "linalg.yield 7\n")),
                    TH_INS(x, g, init), TH_OUTS(y)));
  TH_EXPECT_F(y, 0, 2, 0, 2, 1, 0.75, 0);
  TH_EXPECT_F(init, 0, 0, 0, 1, 0, 0, 0); /* the init operand is read, not written */
}
END_TEST

/* Row sums of i32 into an init of [10, 20], wrapping: 20 + 2147483647 + 1 + 0. */
START_TEST(linalg_reduction_accumulates_into_the_init_and_wraps) {
  tqs_tensor_t *x = th_tensor_i(TQS_I32, TH_SHAPE(2, 3), TH_I(1, 2, 3, 2147483647, 1, 0));
  tqs_tensor_t *init = th_tensor_i(TQS_I32, TH_SHAPE(2), TH_I(10, 20));
  tqs_tensor_t *y = th_tensor_i(TQS_I32, TH_SHAPE(2), NULL);
  TH_OK(tqs_ref_run("linalg.generic",
                    TH_ATTRS(TQS_ATTR_I("linalg.inputs", 1), TQS_ATTR_I("linalg.loops", 0, 1),
                             TQS_ATTR_I("linalg.maps", 2, 0, 1, 1, 0),
                             TQS_ATTR_S("linalg.body", "arith.addi i32 0 1\nlinalg.yield 2\n")),
                    TH_INS(x, init), TH_OUTS(y)));
  TH_EXPECT_I(y, 16, -2147483628);
}
END_TEST

/* linalg.matmul's body for i8 x i8 -> i32 (MLIR's: extsi, extsi, muli, addi). */
START_TEST(linalg_matmul_runs_the_body_mlir_gives_it) {
  tqs_tensor_t *a = th_tensor_i(TQS_I8, TH_SHAPE(2, 2), TH_I(-128, 127, 1, -1));
  tqs_tensor_t *b = th_tensor_i(TQS_I8, TH_SHAPE(2, 2), TH_I(-128, 1, 2, 3));
  tqs_tensor_t *c = th_tensor_i(TQS_I32, TH_SHAPE(2, 2), TH_I(0, 0, 0, 5));
  tqs_tensor_t *y = th_tensor_i(TQS_I32, TH_SHAPE(2, 2), NULL);
  TH_OK(tqs_ref_run("linalg.matmul",
                    TH_ATTRS(TQS_ATTR_I("linalg.inputs", 2), TQS_ATTR_I("linalg.loops", 0, 0, 1),
                             TQS_ATTR_I("linalg.maps", 2, 0, 2, 2, 2, 1, 2, 0, 1),
                             TQS_ATTR_S("linalg.body",
                                        "arith.extsi i32 0\narith.extsi i32 1\n"
                                        "arith.muli i32 3 4\narith.addi i32 2 5\n"
                                        "linalg.yield 6\n")),
                    TH_INS(a, b, c), TH_OUTS(y)));
  TH_EXPECT_I(y, 16638, 253, -130, 3);
}
END_TEST

/* linalg.fill of a rank-0 value, and tensor.empty's zeros. */
START_TEST(linalg_fill_and_tensor_empty) {
  tqs_tensor_t *v = th_tensor_f(TQS_F32, TH_SCALAR, TH_F(7.5));
  tqs_tensor_t *init = th_tensor_f(TQS_F32, TH_SHAPE(2, 2), TH_F(1, 2, 3, 4));
  tqs_tensor_t *y = th_tensor_f(TQS_F32, TH_SHAPE(2, 2), NULL);
  TH_OK(tqs_ref_run("linalg.fill",
                    TH_ATTRS(TQS_ATTR_I("linalg.inputs", 1), TQS_ATTR_I("linalg.loops", 0, 0),
                             TQS_ATTR_I("linalg.maps", 0, 2, 0, 1),
                             TQS_ATTR_S("linalg.body", "linalg.yield 0\n")),
                    TH_INS(v, init), TH_OUTS(y)));
  TH_EXPECT_F(y, 0, 7.5, 7.5, 7.5, 7.5);
  tqs_tensor_t *e = th_tensor_i(TQS_I16, TH_SHAPE(3), TH_I(5, -6, 7));
  TH_OK(tqs_ref_run("tensor.empty", TH_NO_ATTRS, NULL, 0, TH_OUTS(e)));
  TH_EXPECT_I(e, 0, 0, 0);
  ck_assert(tqs_ref_has_op("linalg.generic") && tqs_ref_has_op("tensor.empty"));
  ck_assert(!tqs_ref_has_op("linalg.conv_2d_nhwc_hwcf"));
}
END_TEST

/* One body line on one-element operands a and b; the result's first element as a double. */
typedef struct scalar_case_s {
  const char *line;
  tqs_type_t ta, tout;
  double a, b, want;
} scalar_case_t;

static const scalar_case_t scalar_cases[] = {
    {"arith.divsi i32 0 1", TQS_I32, TQS_I32, -2147483648.0, -1, -2147483648.0}, /* wraps */
    {"arith.remsi i32 0 1", TQS_I32, TQS_I32, -2147483648.0, -1, 0},
    {"arith.divsi i32 0 1", TQS_I32, TQS_I32, 7, -2, -3}, /* toward zero */
    {"arith.remui i8 0 1", TQS_I8, TQS_I8, -1, 10, 5},    /* 255 % 10 */
    {"arith.shli i32 0 1", TQS_I32, TQS_I32, 1, 32, 0},
    {"arith.shli i32 0 1", TQS_I32, TQS_I32, 1, 31, -2147483648.0},
    {"arith.shrsi i32 0 1", TQS_I32, TQS_I32, -8, 40, -1},
    {"arith.shrui i32 0 1", TQS_I32, TQS_I32, -8, 28, 15},
    {"arith.maxui i32 0 1", TQS_I32, TQS_I32, -1, 5, -1},
    {"arith.minsi i32 0 1", TQS_I32, TQS_I32, -1, 5, -1},
    {"arith.addi i8 0 1", TQS_I8, TQS_I8, 127, 1, -128},
    {"arith.muli i16 0 1", TQS_I16, TQS_I16, 300, 300, 24464}, /* 90000 - 65536 */
    {"arith.fptosi i32 0", TQS_F32, TQS_I32, 3e9, 0, 2147483647},
    {"arith.fptosi i32 0", TQS_F32, TQS_I32, -2.7, 0, -2},
    {"arith.fptosi i32 0", TQS_F32, TQS_I32, NAN, 0, 0},
    {"arith.fptoui i8 0", TQS_F32, TQS_I8, 300, 0, -1}, /* saturates at 255 */
    {"arith.sitofp f32 0", TQS_I32, TQS_F32, 16777217, 0, 16777216},
    {"arith.cmpf i1 0 1 ult", TQS_F32, TQS_I1, NAN, 1, 1},
    {"arith.cmpf i1 0 1 olt", TQS_F32, TQS_I1, NAN, 1, 0},
    {"arith.cmpi i1 0 1 ult", TQS_I32, TQS_I1, 1, -1, 1},
    {"arith.cmpi i1 0 1 slt", TQS_I32, TQS_I1, 1, -1, 0},
    {"arith.maximumf f32 0 1", TQS_F32, TQS_F32, NAN, 1, NAN},
    {"arith.maxnumf f32 0 1", TQS_F32, TQS_F32, NAN, 1, 1},
    {"arith.minimumf f32 0 1", TQS_F32, TQS_F32, 0.0, -0.0, -0.0},
    {"arith.truncf bf16 0", TQS_F32, TQS_BF16, 1.00390625, 0, 1},        /* a tie: to even */
    {"arith.truncf bf16 0", TQS_F32, TQS_BF16, 1.01171875, 0, 1.015625}, /* a tie: to even */
    {"arith.addf bf16 0 1", TQS_BF16, TQS_BF16, 256, 1, 256},            /* 257 rounds down */
    {"arith.divf f32 0 1", TQS_F32, TQS_F32, 1, 3, (double)(1.0f / 3.0f)},
    {"math.rsqrt f32 0", TQS_F32, TQS_F32, 4, 0, 0.5},
    {"math.absf f32 0", TQS_F32, TQS_F32, -2.5, 0, 2.5},
    {"arith.negf f32 0", TQS_F32, TQS_F32, 2.5, 0, -2.5},
    {"arith.extsi i32 0", TQS_I1, TQS_I32, 1, 0, -1},
    {"arith.extui i32 0", TQS_I1, TQS_I32, 1, 0, 1},
    {"arith.trunci i8 0", TQS_I32, TQS_I8, 511, 0, -1},
    {"arith.bitcast i32 0", TQS_F32, TQS_I32, 1, 0, 1065353216},
    {"arith.bitcast bf16 0", TQS_I16, TQS_BF16, 16256, 0, 1}, /* 0x3f80 */
};

START_TEST(linalg_body_arithmetic_follows_llvm_and_our_documented_choices) {
  const scalar_case_t *c = &scalar_cases[_i];
  tqs_tensor_t *a = tqs_type_is_float(c->ta) ? th_tensor_f(c->ta, TH_SHAPE(1), TH_F(c->a))
                                             : th_tensor_i(c->ta, TH_SHAPE(1), TH_I((int64_t)c->a));
  tqs_tensor_t *b = tqs_type_is_float(c->ta) ? th_tensor_f(c->ta, TH_SHAPE(1), TH_F(c->b))
                                             : th_tensor_i(c->ta, TH_SHAPE(1), TH_I((int64_t)c->b));
  tqs_tensor_t *init = th_tensor_i(c->tout, TH_SHAPE(1), NULL);
  tqs_tensor_t *y = th_tensor_i(c->tout, TH_SHAPE(1), NULL);
  char body[128];
  snprintf(body, sizeof(body), "%s\nlinalg.yield 3\n", c->line);
  TH_OK(tqs_ref_run(
      "linalg.generic",
      TH_ATTRS(TQS_ATTR_I("linalg.inputs", 2), TQS_ATTR_I("linalg.loops", 0),
               TQS_ATTR_I("linalg.maps", 1, 0, 1, 0, 1, 0), TQS_ATTR_S("linalg.body", body)),
      TH_INS(a, b, init), TH_OUTS(y)));
  double got = tqs_tensor_get_f64(y, 0);
  if (isnan(c->want)) {
    ck_assert_msg(isnan(got), "%s: %g, want NaN", c->line, got);
  } else {
    ck_assert_msg(got == c->want && signbit(got) == signbit(c->want), "%s: %.9g, want %.9g",
                  c->line, got, c->want);
  }
}
END_TEST

typedef struct bad_case_s {
  const char *body;
  int64_t maps[8];
  size_t n_maps;
  const char *needle;
} bad_case_t;

#define MAPS1 {1, 0, 1, 0}, 4

static const bad_case_t bad_cases[] = {
    {"arith.frob i32 0\nlinalg.yield 1\n", MAPS1, "unknown instruction 'arith.frob'"},
    {"arith.addi i32 0 9\nlinalg.yield 2\n", MAPS1, "operand 9 of 'arith.addi i32 0 9'"},
    {"arith.addi u7 0 1\nlinalg.yield 2\n", MAPS1, "unknown type 'u7'"},
    {"arith.addi i32 0\nlinalg.yield 2\n", MAPS1, "takes 2 operands"},
    {"arith.cmpi i1 0 1 sometimes\nlinalg.yield 2\n", MAPS1, "bad predicate"},
    {"arith.cmpf i1 0 1\nlinalg.yield 2\n", MAPS1, "names no predicate"},
    {"arith.constant f32 x1\nlinalg.yield 2\n", MAPS1, "bad constant"},
    {"arith.addi i32 0 1\n", MAPS1, "must end with linalg.yield"},
    {"linalg.yield 0 1\n", MAPS1, "yield one value per output"},
    {"arith.divsi i32 0 0\nlinalg.yield 2\n", MAPS1, "arith.divsi by zero"},
    {"linalg.yield 0\n", {1, 0, 1}, 3, "linalg.maps is too short"},
    {"linalg.yield 0\n", {1, 0, 1, 0, 7}, 5, "linalg.maps is too long"},
    {"linalg.yield 0\n", {1, 0, 2, 0, 1}, 5, "does not have its rank 1"},
    {"linalg.yield 0\n", {1, 3, 1, 0}, 4, "loop 3 of operand 0 is out of range"},
};

START_TEST(linalg_refuses_malformed_maps_and_bodies) {
  const bad_case_t *c = &bad_cases[_i];
  tqs_tensor_t *a = th_tensor_i(TQS_I32, TH_SHAPE(2), TH_I(4, 0));
  tqs_tensor_t *init = th_tensor_i(TQS_I32, TH_SHAPE(2), NULL);
  tqs_tensor_t *y = th_tensor_i(TQS_I32, TH_SHAPE(2), NULL);
  tqs_attr_t attrs[4] = {
      TQS_ATTR_I("linalg.inputs", 1),
      TQS_ATTR_I("linalg.loops", 0),
      {.key = "linalg.maps", .kind = TQS_ATTR_INTS, .count = c->n_maps, .ints = c->maps},
      TQS_ATTR_S("linalg.body", c->body)};
  TH_ERROR(tqs_ref_run("linalg.generic", attrs, 4, TH_INS(a, init), TH_OUTS(y)),
           TQ_INVALID_ARGUMENT, "linalg.generic: ", c->needle);
}
END_TEST

/* Two operands that give one loop different extents, and missing attributes. */
START_TEST(linalg_refuses_inconsistent_extents_and_missing_attributes) {
  tqs_tensor_t *a = th_tensor_i(TQS_I32, TH_SHAPE(3), NULL);
  tqs_tensor_t *init = th_tensor_i(TQS_I32, TH_SHAPE(2), NULL);
  tqs_tensor_t *y = th_tensor_i(TQS_I32, TH_SHAPE(2), NULL);
  TH_ERROR(tqs_ref_run("linalg.generic",
                       TH_ATTRS(TQS_ATTR_I("linalg.inputs", 1), TQS_ATTR_I("linalg.loops", 0),
                                TQS_ATTR_I("linalg.maps", 1, 0, 1, 0),
                                TQS_ATTR_S("linalg.body", "linalg.yield 0\n")),
                       TH_INS(a, init), TH_OUTS(y)),
           TQ_INVALID_ARGUMENT, "loop 0 runs to 3 for one operand and 2 for operand 1", NULL);
  TH_ERROR(tqs_ref_run("linalg.generic", TH_ATTRS(TQS_ATTR_I("linalg.inputs", 1)), TH_INS(a, init),
                       TH_OUTS(y)),
           TQ_INVALID_ARGUMENT, "needs the integer attributes linalg.maps and linalg.loops", NULL);
  TH_ERROR(tqs_ref_run("linalg.generic", TH_ATTRS(TQS_ATTR_I("linalg.inputs", 2)), TH_INS(a, init),
                       TH_OUTS(y)),
           TQ_INVALID_ARGUMENT, "one init operand per result", NULL);
}
END_TEST

Suite *linalg_suite(void) {
  Suite *s = suite_create("linalg");
  TCase *tc = th_tcase("linalg");
  tcase_add_test(tc, linalg_generic_runs_its_body_at_every_point_with_broadcast_maps);
  tcase_add_test(tc, linalg_reduction_accumulates_into_the_init_and_wraps);
  tcase_add_test(tc, linalg_matmul_runs_the_body_mlir_gives_it);
  tcase_add_test(tc, linalg_fill_and_tensor_empty);
  tcase_add_loop_test(tc, linalg_body_arithmetic_follows_llvm_and_our_documented_choices, 0,
                      (int)(sizeof(scalar_cases) / sizeof(scalar_cases[0])));
  tcase_add_loop_test(tc, linalg_refuses_malformed_maps_and_bodies, 0,
                      (int)(sizeof(bad_cases) / sizeof(bad_cases[0])));
  tcase_add_test(tc, linalg_refuses_inconsistent_extents_and_missing_attributes);
  suite_add_tcase(s, tc);
  return s;
}
