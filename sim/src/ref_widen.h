/* Private: scratch copies of operands widened for the multiply-accumulate kernels (conv2d,
 * depthwise_conv2d, matmul, fully_connected), so that their inner loops read plain arrays. */
#ifndef TORQ_SIM_REF_WIDEN_H
#define TORQ_SIM_REF_WIDEN_H

#include "ref_internal.h"

/* A heap array of `count` elements of `elem_size` bytes (uninitialised); the caller frees it
 * with tq_free. TQ_LIMIT or TQ_OUT_OF_MEMORY naming the op. */
tq_status_t tqs__scratch(const tqs__op_t *op, size_t count, size_t elem_size,
                         void **out) TQ_MUST_USE;

/* The two operands of a multiply-accumulate kernel as heap arrays of their values minus their
 * zero points: `a` less `a_zp` and `b` less `b_zp`, as float when `is_float`, else as int32, in
 * the tensors' element order; with `transpose_b`, b's last two dims swapped (for the right-hand
 * side of a matmul). The caller frees *out_a and *out_b with tq_free; on error both are NULL. */
tq_status_t tqs__widen_pair(const tqs__op_t *op, int is_float, const tqs_tensor_t *a, int64_t a_zp,
                            const tqs_tensor_t *b, int64_t b_zp, int transpose_b, void **out_a,
                            void **out_b) TQ_MUST_USE;

/* One step of a float accumulation in `acc_type`: acc + a * b, every operation rounded to
 * acc_type (f32 needs no extra rounding). */
static inline float tqs__mac(tqs_type_t acc_type, float acc, float a, float b) {
  if (acc_type == TQS_F32) return acc + a * b;
  return tqs__round_float(acc_type, acc + tqs__round_float(acc_type, a * b));
}

#endif
