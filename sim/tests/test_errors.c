/* Tests for error reporting: every error names the op and what is wrong. */
#include <stdint.h>

#include "helpers.h"
#include "torq/base/alloc.h"

START_TEST(unknown_op_is_unimplemented_and_named) {
  tqs_tensor_t *x = th_tensor_i(TQS_I8, TH_SHAPE(1), NULL);
  TH_ERROR(tqs_ref_run("tosa.frobnicate", TH_NO_ATTRS, TH_INS(x), TH_OUTS(x)), TQ_UNIMPLEMENTED,
           "tosa.frobnicate", NULL);
  TH_ERROR(tqs_ref_run(NULL, TH_NO_ATTRS, TH_INS(x), TH_OUTS(x)), TQ_UNIMPLEMENTED, "(null)", NULL);
  ck_assert(tqs_ref_has_op("add"));
  ck_assert(tqs_ref_has_op("tosa.conv2d"));
  ck_assert(!tqs_ref_has_op("tosa.conv3d"));
}
END_TEST

START_TEST(mismatched_shapes_are_invalid) {
  tqs_tensor_t *a = th_tensor_i(TQS_I32, TH_SHAPE(2, 3), NULL);
  tqs_tensor_t *b = th_tensor_i(TQS_I32, TH_SHAPE(2, 4), NULL);
  tqs_tensor_t *y = th_tensor_i(TQS_I32, TH_SHAPE(2, 3), NULL);
  TH_ERROR(tqs_ref_run("add", TH_NO_ATTRS, TH_INS(a, b), TH_OUTS(y)), TQ_INVALID_ARGUMENT,
           "tosa.add", "does not broadcast");
  tqs_tensor_t *c = th_tensor_i(TQS_I32, TH_SHAPE(3), NULL);
  TH_ERROR(tqs_ref_run("tosa.sub", TH_NO_ATTRS, TH_INS(a, c), TH_OUTS(y)), TQ_INVALID_ARGUMENT,
           "tosa.sub", "ranks must be equal");
  /* A declared result shape that is not the broadcast shape. */
  tqs_tensor_t *big = th_tensor_i(TQS_I32, TH_SHAPE(4, 3), NULL);
  TH_ERROR(tqs_ref_run("tosa.add", TH_NO_ATTRS, TH_INS(a, a), TH_OUTS(big)), TQ_INVALID_ARGUMENT,
           "tosa.add", "the result is tensor<4x3xi32>");
  /* conv2d with a result of the wrong size. */
  tqs_tensor_t *x = th_tensor_i(TQS_I8, TH_SHAPE(1, 4, 4, 1), NULL);
  tqs_tensor_t *w = th_tensor_i(TQS_I8, TH_SHAPE(1, 3, 3, 1), NULL);
  tqs_tensor_t *bias = th_tensor_i(TQS_I32, TH_SHAPE(1), NULL);
  tqs_tensor_t *out = th_tensor_i(TQS_I32, TH_SHAPE(1, 4, 4, 1), NULL);
  TH_ERROR(tqs_ref_run("tosa.conv2d",
                       TH_ATTRS(TQS_ATTR_I("pad", 0, 0, 0, 0), TQS_ATTR_I("stride", 1, 1),
                                TQS_ATTR_I("dilation", 1, 1)),
                       TH_INS(x, w, bias), TH_OUTS(out)),
           TQ_INVALID_ARGUMENT, "tosa.conv2d", "expected tensor<1x2x2x1xi32>");
}
END_TEST

START_TEST(missing_attribute_is_invalid_and_named) {
  tqs_tensor_t *x = th_tensor_i(TQS_I8, TH_SHAPE(1, 4, 4, 1), NULL);
  tqs_tensor_t *w = th_tensor_i(TQS_I8, TH_SHAPE(1, 3, 3, 1), NULL);
  tqs_tensor_t *bias = th_tensor_i(TQS_I32, TH_SHAPE(1), NULL);
  tqs_tensor_t *y = th_tensor_i(TQS_I32, TH_SHAPE(1, 2, 2, 1), NULL);
  TH_ERROR(tqs_ref_run("tosa.conv2d",
                       TH_ATTRS(TQS_ATTR_I("pad", 0, 0, 0, 0), TQS_ATTR_I("dilation", 1, 1)),
                       TH_INS(x, w, bias), TH_OUTS(y)),
           TQ_INVALID_ARGUMENT, "tosa.conv2d", "missing attribute 'stride'");
  TH_ERROR(tqs_ref_run("tosa.conv2d",
                       TH_ATTRS(TQS_ATTR_I("pad", 0, 0), TQS_ATTR_I("stride", 1, 1),
                                TQS_ATTR_I("dilation", 1, 1)),
                       TH_INS(x, w, bias), TH_OUTS(y)),
           TQ_INVALID_ARGUMENT, "tosa.conv2d", "'pad' must hold 4 integers");
  tqs_tensor_t *r = th_tensor_i(TQS_I8, TH_SHAPE(2), NULL);
  TH_ERROR(tqs_ref_run("tosa.reduce_sum", TH_NO_ATTRS, TH_INS(r), TH_OUTS(r)), TQ_INVALID_ARGUMENT,
           "tosa.reduce_sum", "missing attribute 'axis'");
  TH_ERROR(
      tqs_ref_run("tosa.resize", TH_ATTRS(TQS_ATTR_S("mode", "BICUBIC")), TH_INS(x), TH_OUTS(x)),
      TQ_INVALID_ARGUMENT, "tosa.resize", "BICUBIC");
}
END_TEST

START_TEST(wrong_arity_and_types_are_invalid) {
  tqs_tensor_t *a = th_tensor_i(TQS_I32, TH_SHAPE(2), NULL);
  tqs_tensor_t *b = th_tensor_i(TQS_I8, TH_SHAPE(2), NULL);
  TH_ERROR(tqs_ref_run("tosa.add", TH_NO_ATTRS, TH_INS(a), TH_OUTS(a)), TQ_INVALID_ARGUMENT,
           "tosa.add", "expects 2 operands, got 1");
  TH_ERROR(tqs_ref_run("tosa.add", TH_NO_ATTRS, TH_INS(a, b), TH_OUTS(a)), TQ_INVALID_ARGUMENT,
           "tosa.add", "input 1 has element type i8");
  TH_ERROR(tqs_ref_run("tosa.exp", TH_NO_ATTRS, TH_INS(a), TH_OUTS(a)), TQ_INVALID_ARGUMENT,
           "tosa.exp", "expected bf16, f16, f32");
  TH_ERROR(
      tqs_ref_run("tosa.add", TH_NO_ATTRS, (const tqs_tensor_t *const[]){a, NULL}, 2, TH_OUTS(a)),
      TQ_INVALID_ARGUMENT, "tosa.add", "input 1 is NULL");
  tqs_tensor_t nodata = {.type = TQS_I32, .rank = 1, .dims = {2}, .data = NULL};
  TH_ERROR(tqs_ref_run("tosa.add", TH_NO_ATTRS, TH_INS(a, a), TH_OUTS(&nodata)),
           TQ_INVALID_ARGUMENT, "tosa.add", "output 0 has no data");
}
END_TEST

START_TEST(intdiv_by_zero_is_invalid) {
  tqs_tensor_t *a = th_tensor_i(TQS_I32, TH_SHAPE(3), TH_I(7, -7, INT32_MIN));
  tqs_tensor_t *b = th_tensor_i(TQS_I32, TH_SHAPE(3), TH_I(2, 2, -1));
  tqs_tensor_t *y = th_tensor_i(TQS_I32, TH_SHAPE(3), NULL);
  TH_OK(tqs_ref_run("tosa.intdiv", TH_NO_ATTRS, TH_INS(a, b), TH_OUTS(y)));
  TH_EXPECT_I(y, 3, -3, INT32_MIN); /* truncates toward zero; INT32_MIN / -1 wraps */
  tqs_tensor_t *z = th_tensor_i(TQS_I32, TH_SHAPE(3), TH_I(1, 0, 1));
  TH_ERROR(tqs_ref_run("tosa.intdiv", TH_NO_ATTRS, TH_INS(a, z), TH_OUTS(y)), TQ_INVALID_ARGUMENT,
           "tosa.intdiv", "division by zero at result element 1");
}
END_TEST

/* Scratch allocation failures surface as TQ_OUT_OF_MEMORY, not crashes. (While the hook is
 * armed every allocation fails, the status's own included, so the message is the shared static
 * "out of memory" one.) */
START_TEST(out_of_memory_is_reported) {
  tqs_tensor_t *a = th_tensor_i(TQS_I8, TH_SHAPE(1, 2, 3), TH_I(1, 2, 3, 4, 5, 6));
  tqs_tensor_t *b = th_tensor_i(TQS_I8, TH_SHAPE(1, 3, 2), TH_I(7, 8, 9, 10, 11, 12));
  tqs_tensor_t *y = th_tensor_i(TQS_I32, TH_SHAPE(1, 2, 2), NULL);
  for (long n = 0; n < 2; n++) {
    tq_alloc_fail_after(n);
    tq_status_t status = tqs_ref_run("tosa.matmul", TH_NO_ATTRS, TH_INS(a, b), TH_OUTS(y));
    tq_alloc_fail_after(-1);
    TH_ERROR(status, TQ_OUT_OF_MEMORY, "out of memory", NULL);
  }
  tqs_tensor_t *t = NULL;
  tq_alloc_fail_after(0);
  tq_status_t status = tqs_tensor_create(TQS_I8, TH_SHAPE(4), &t);
  tq_alloc_fail_after(-1);
  TH_ERROR(status, TQ_OUT_OF_MEMORY, "out of memory", NULL);
  ck_assert_ptr_null(t);
}
END_TEST

static void th_alloc_reset(void) {
  tq_alloc_fail_after(-1);
}

Suite *errors_suite(void) {
  Suite *s = suite_create("errors");
  TCase *tc = th_tcase("errors");
  tcase_add_checked_fixture(tc, NULL, th_alloc_reset);
  tcase_add_test(tc, unknown_op_is_unimplemented_and_named);
  tcase_add_test(tc, mismatched_shapes_are_invalid);
  tcase_add_test(tc, missing_attribute_is_invalid_and_named);
  tcase_add_test(tc, wrong_arity_and_types_are_invalid);
  tcase_add_test(tc, intdiv_by_zero_is_invalid);
  tcase_add_test(tc, out_of_memory_is_reported);
  suite_add_tcase(s, tc);
  return s;
}
