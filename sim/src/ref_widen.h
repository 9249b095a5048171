/* Private: scratch copies of operands widened for the multiply-accumulate kernels (conv2d,
 * depthwise_conv2d, matmul, fully_connected), so that their inner loops read plain arrays. */
#ifndef TORQ_SIM_REF_WIDEN_H
#define TORQ_SIM_REF_WIDEN_H

#include "ref_internal.h"

/* A heap array of `count` elements of `elem_size` bytes (uninitialised); the caller frees it
 * with tq_free. TQ_LIMIT or TQ_OUT_OF_MEMORY naming the op. */
tq_status_t tqs__scratch(const tqs__op_t *op, size_t count, size_t elem_size,
                         void **out) TQ_MUST_USE;

/* A heap array of `t`'s values minus `zp` as int32 (integer operands) or float (float operands),
 * in `t`'s element order; or, with `transpose_last2`, with its last two dims swapped (for the
 * right-hand side of a matmul). The caller frees it with tq_free. */
tq_status_t tqs__widen_i32(const tqs__op_t *op, const tqs_tensor_t *t, int64_t zp,
                           int transpose_last2, int32_t **out) TQ_MUST_USE;
tq_status_t tqs__widen_f32(const tqs__op_t *op, const tqs_tensor_t *t, float zp,
                           int transpose_last2, float **out) TQ_MUST_USE;

/* One step of a float accumulation in `acc_type`: acc + a * b, every operation rounded to
 * acc_type (f32 needs no extra rounding). */
static inline float tqs__mac(tqs_type_t acc_type, float acc, float a, float b) {
  if (acc_type == TQS_F32) return acc + a * b;
  return tqs__round_float(acc_type, acc + tqs__round_float(acc_type, a * b));
}

#endif
