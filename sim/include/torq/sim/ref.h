/* The reference interpreter: TOSA 1.0 operators on plain tensors.
 *
 * The runtime runs host programs (operators the NPU cannot run) with it, and tests and the
 * harness use it as the reference that NPU results are compared with. It knows nothing of MLIR:
 * an operator is its name, its attributes as a key/value list and its operand and result
 * tensors.
 *
 * Ops: abs add argmax arithmetic_right_shift avg_pool2d bitwise_and/not/or/xor cast ceil clamp
 * clz concat const const_shape conv2d cos depthwise_conv2d equal erf exp floor fully_connected
 * (pre-1.0) gather greater greater_equal identity intdiv log logical_and/left_shift/not/or/
 * right_shift/xor matmul max_pool2d maximum minimum mul negate pad pow reciprocal reduce_all/any/
 * max/min/product/sum rescale reshape resize reverse rsqrt scatter select sigmoid sin slice sub
 * table tanh tile transpose. Not supported: transpose_conv2d, conv3d, fft2d, rfft2d, variables
 * and control flow. Beyond TOSA, the one tensor-dialect op the corpus uses, named with its
 * prefix only: tensor.extract_slice (attributes static_offsets, static_sizes, static_strides,
 * one per input dimension; the result may drop unit dimensions of the sizes), and tensor.empty
 * (no operands; its contents are unspecified in MLIR: we write zeros).
 *
 * linalg structured ops on tensors, named with their prefix: linalg.generic, linalg.matmul and
 * linalg.fill, all run the same way from four attributes the compiler makes of the op
 * (compiler/src/linalg.c). Operands: the inputs, then one init tensor per result (the op's outs);
 * a scalar input is a rank-0 tensor.
 *   linalg.inputs  INTS, one value: how many operands are inputs;
 *   linalg.loops   INTS, one per loop of the iteration space: 0 parallel, 1 reduction;
 *   linalg.maps    INTS, per operand in order: its rank r, then r loop numbers, one per
 *                  dimension (-1 for the constant 0): the indexing map;
 *   linalg.body    STRING, one instruction per line. Values are numbered: the operands' elements
 *                  at the current point first (0 .. operands - 1), then each instruction's result.
 *                  A line is `<op> <type> <value>...` (type: the result's, one of i1 i8 i16 i32
 *                  i64 bf16 f16 f32), `arith.constant <type> <integer or C hex float>`,
 *                  `arith.cmpf|arith.cmpi <type> <a> <b> <predicate>` (oeq, slt, ...), and last
 *                  `linalg.yield <value>...`, one value per result.
 * Each result starts as a copy of its init tensor; at every point of the iteration space (the
 * first loop outermost) the body runs on the inputs' and the results' elements there, and the
 * yielded values are stored into the results. Body ops: arith addf subf mulf divf maximumf
 * minimumf maxnumf minnumf negf addi subi muli divsi divui remsi remui maxsi minsi maxui minui
 * andi ori xori shli shrsi shrui extf truncf extsi extui trunci sitofp uitofp fptosi fptoui
 * bitcast cmpf cmpi select constant, math exp log tanh sqrt rsqrt absf. Floats compute in f32
 * and round to their type to nearest even (as LLVM does for bf16 and f16); integers wrap at
 * their width; maximumf/minimumf propagate NaN, maxnumf/minnumf ignore it. Where LLVM leaves
 * the result poison: division by zero is TQ_INVALID_ARGUMENT, INT_MIN / -1 wraps (remainder
 * 0), a shift by the width or more gives 0 (shli, shrui) or the sign (shrsi), fptosi/fptoui
 * truncate toward zero and saturate (NaN gives 0).
 *
 * Operands are passed in TOSA 1.0 order, including those TOSA 1.0 made operands: zero points
 * (rescale, conv2d, depthwise_conv2d, matmul, avg_pool2d, negate), mul's shift, pad's pad_const,
 * and the compile-time shapes (!tosa.shape values of tosa.const_shape: reshape's shape, pad's
 * padding, slice's start and size, tile's multiples, resize's scale, offset and border), which
 * arrive as rank-1 TQS_INDEX tensors (TQS_I64 and TQS_I32 are accepted too). Where an older
 * TOSA form had an attribute instead (new_shape, padding, start, size, multiples, scale, offset,
 * border), the attribute is used when the operand is absent; zero points and shift default to
 * 0 when absent.
 *
 * The caller allocates every result with the type and shape the op declares (the compiler knows
 * them); the interpreter checks them against the operands and fills the data. Results must not
 * overlap operands.
 *
 * Choices where TOSA leaves the result undefined or the corpus goes beyond TOSA (the NPU
 * simulator makes the same choices, so that results stay comparable):
 * - Integer add, sub, mul (shift 0), abs(INT_MIN), intdiv(INT_MIN, -1), reduce_sum/product and
 *   the accumulators of conv2d, depthwise_conv2d, matmul and fully_connected wrap in two's
 *   complement at the result width (int32 add overflows in about a quarter of random full-range
 *   inputs; wrapping keeps results comparable with the NPU simulator). mul with a shift rounds
 *   and shifts the exact 64-bit product and keeps the low 32 bits. negate saturates, as the
 *   spec's clip does (-INT32_MIN = INT32_MAX).
 * - rescale computes apply_scale_32/16 with int64 intermediates exactly as the formula says and
 *   does not check the spec's |value| < 2^(shift-1) requirement (a result outside int32 is
 *   then saturated to the output type). Shifts 1..63 follow the formula; shift 0 rounds with 0.
 *   A shift outside 0..63 is TQ_INVALID_ARGUMENT. INEXACT_ROUND is computed as SINGLE_ROUND.
 *   DOUBLE_ROUND applies only with scale32 (the 16-bit form has no double rounding).
 *   Zero points are accepted for every type (TOSA allows non-zero ones only for 8-bit and
 *   unsigned 16-bit values).
 * - arithmetic_right_shift clamps the shift amount to 0..width-1; logical shifts by an amount
 *   outside 0..width-1 give 0.
 * - table i16: the slope between entries is not checked against int16 (int32 arithmetic).
 * - gather/scatter indices out of range are TQ_INVALID_ARGUMENT; scatter with a repeated index
 *   keeps the last write; intdiv by zero is TQ_INVALID_ARGUMENT.
 * - matmul with the non-TOSA combinations i8xi8->i16, i16xi16->i16 (wrapping at 16 bits),
 *   i16xi16->i32 (wrapping at 32 bits) and
 *   bf16xbf16->bf16 accumulates in the output type, as MLIR's linalg lowering does: for bf16
 *   and f16 outputs every product and every partial sum is rounded to the output type, in
 *   order of the reduction index.
 * - Floats: f32 is computed in float with the C library's float functions; bf16 and f16 are
 *   widened to f32, computed in f32 and rounded to nearest even (conv2d/depthwise accumulate in
 *   acc_type, default f32; float sums and products run in index order, and multiply-adds are
 *   not fused: the build's -std=c11 keeps -ffp-contract=off). Results are not bit-exact
 *   across implementations: compare floats with a tolerance. nan_mode PROPAGATE (default) or
 *   IGNORE for maximum, minimum, clamp, reduce_max/min, argmax and max_pool2d. Casting NaN to
 *   an integer gives 0.
 * - argmax returns the first index of the maximum; with PROPAGATE the first NaN wins; with
 *   IGNORE NaNs are skipped (all NaN gives 0).
 * - resize clamps the source indices to the image (as MLIR's lowering does).
 * - pad ignores the pre-1.0 quantization_info attribute: pad_const is the value written.
 */
#ifndef TORQ_SIM_REF_H
#define TORQ_SIM_REF_H

#include <stddef.h>
#include <stdint.h>

#include "torq/base/status.h"
#include "torq/sim/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tqs_attr_kind_e {
  TQS_ATTR_INTS,   /* integers; booleans as 0/1 */
  TQS_ATTR_FLOATS, /* floating-point values */
  TQS_ATTR_STRING, /* enum names ("DOUBLE_ROUND", "NEAREST_NEIGHBOR", "PROPAGATE") and types
                      ("i32", "f32": acc_type) */
} tqs_attr_kind_t;

/* One attribute. All pointers are borrowed for the duration of the call. */
typedef struct tqs_attr_s {
  const char *key;
  tqs_attr_kind_t kind;
  size_t count;         /* entries in `ints` or `floats` */
  const int64_t *ints;  /* TQS_ATTR_INTS */
  const double *floats; /* TQS_ATTR_FLOATS */
  const char *string;   /* TQS_ATTR_STRING */
} tqs_attr_t;

/* Attribute literals, e.g. TQS_ATTR_I("stride", 2, 2), TQS_ATTR_S("rounding_mode", "SINGLE_ROUND").
 * They are compound literals: they live as long as the enclosing block. */
#define TQS_ATTR_I(k, ...)                                                         \
  ((tqs_attr_t){.key = (k),                                                        \
                .kind = TQS_ATTR_INTS,                                             \
                .count = sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t), \
                .ints = (const int64_t[]){__VA_ARGS__}})
#define TQS_ATTR_F(k, ...)                                                       \
  ((tqs_attr_t){.key = (k),                                                      \
                .kind = TQS_ATTR_FLOATS,                                         \
                .count = sizeof((const double[]){__VA_ARGS__}) / sizeof(double), \
                .floats = (const double[]){__VA_ARGS__}})
#define TQS_ATTR_S(k, s) ((tqs_attr_t){.key = (k), .kind = TQS_ATTR_STRING, .string = (s)})

/* Runs operator `op` ("tosa.conv2d" or just "conv2d") on `inputs` and writes `outputs`.
 *
 * Booleans (scale32, per_channel, input_unsigned, output_unsigned, round) are INTS 0/1 (the
 * strings "true"/"false" are accepted too); integer attributes may also be given as FLOATS with
 * integral values, and float attributes as INTS. Attributes the op does not use are ignored.
 *
 * Ownership: everything is borrowed for the duration of the call; only the data of the output
 * tensors is written. No allocation happens in the kernels' inner loops.
 *
 * Errors: TQ_UNIMPLEMENTED for an op it does not know (the message names it);
 * TQ_INVALID_ARGUMENT, naming the op and what is wrong, for a wrong number of operands or
 * results, types or shapes that do not fit the op, a missing or malformed attribute, and the
 * data-dependent errors listed above; TQ_LIMIT/TQ_OUT_OF_MEMORY when scratch memory cannot be
 * had. On error the outputs' data is unspecified. */
tq_status_t tqs_ref_run(const char *op, const tqs_attr_t *attrs, size_t n_attrs,
                        const tqs_tensor_t *const *inputs, size_t n_inputs,
                        tqs_tensor_t *const *outputs, size_t n_outputs) TQ_MUST_USE;

/* 1 when tqs_ref_run knows `op` (TOSA ops with or without the "tosa." prefix, tensor-dialect
 * ops with theirs). */
int tqs_ref_has_op(const char *op);

#ifdef __cplusplus
}
#endif
#endif
