/* Private to the reference interpreter: the op context, checks, attribute access, element
 * loads and stores, broadcasting, and the kernels' entry points. */
#ifndef TORQ_SIM_REF_INTERNAL_H
#define TORQ_SIM_REF_INTERNAL_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "torq/base/status.h"
#include "torq/sim/ref.h"
#include "torq/sim/tensor.h"

/* One call of tqs_ref_run. Every tensor in it has been validated (type, rank, dims, data present
 * for a non-empty tensor). `name` is the canonical "tosa.x" (or "tensor.x") name, for messages. */
typedef struct tqs__op_s {
  const char *name;
  const tqs_attr_t *attrs;
  size_t n_attrs;
  const tqs_tensor_t *const *in;
  size_t n_in;
  tqs_tensor_t *const *out;
  size_t n_out;
} tqs__op_t;

typedef tq_status_t (*tqs__kernel_t)(const tqs__op_t *op, int variant);

/* ---- Errors ---- */

/* A TQ_INVALID_ARGUMENT status whose message starts with the op's name. */
tq_status_t tqs__fail(const tqs__op_t *op, const char *file, int line, const char *fmt, ...)
    TQ_PRINTF(4, 5) TQ_MUST_USE;
#define TQS_FAIL(op, ...) tqs__fail((op), __FILE__, __LINE__, __VA_ARGS__)

/* "tensor<1x4x4xi8>" into `buf` (at least TQS__DESC_LEN bytes); returns buf. */
#define TQS__DESC_LEN 160
const char *tqs__desc(const tqs_tensor_t *t, char *buf);

/* ---- Checks ---- */

/* Type sets for tqs__check_type. */
#define TQS__T(x) (1u << (x))
#define TQS__SIGNED_INTS (TQS__T(TQS_I8) | TQS__T(TQS_I16) | TQS__T(TQS_I32) | TQS__T(TQS_I64))
#define TQS__INTS (TQS__SIGNED_INTS | TQS__T(TQS_U8) | TQS__T(TQS_U16))
#define TQS__FLOATS (TQS__T(TQS_BF16) | TQS__T(TQS_F16) | TQS__T(TQS_F32))
#define TQS__BOOL TQS__T(TQS_I1)
#define TQS__SHAPE_TYPES (TQS__T(TQS_INDEX) | TQS__T(TQS_I64) | TQS__T(TQS_I32))
#define TQS__ANY ((1u << TQS_TYPE_COUNT) - 1u)

/* The operand and result counts: min_in..max_in operands, exactly n_out results. */
tq_status_t tqs__check_arity(const tqs__op_t *op, size_t min_in, size_t max_in,
                             size_t n_out) TQ_MUST_USE;
/* `t`'s type is in `allowed`; `what` names it in the message ("input 0"). */
tq_status_t tqs__check_type(const tqs__op_t *op, const tqs_tensor_t *t, const char *what,
                            unsigned allowed) TQ_MUST_USE;
tq_status_t tqs__check_same_type(const tqs__op_t *op, const tqs_tensor_t *a, const char *what_a,
                                 const tqs_tensor_t *b, const char *what_b) TQ_MUST_USE;
tq_status_t tqs__check_same_shape(const tqs__op_t *op, const tqs_tensor_t *a, const char *what_a,
                                  const tqs_tensor_t *b, const char *what_b) TQ_MUST_USE;
tq_status_t tqs__check_rank(const tqs__op_t *op, const tqs_tensor_t *t, const char *what,
                            size_t rank) TQ_MUST_USE;
/* The output `t` has exactly `dims` (`rank` of them). */
tq_status_t tqs__check_dims(const tqs__op_t *op, const tqs_tensor_t *t, const char *what,
                            size_t rank, const int64_t *dims) TQ_MUST_USE;

/* Element count of a validated tensor. */
size_t tqs__count(const tqs_tensor_t *t);

/* ---- Attributes ---- */

const tqs_attr_t *tqs__attr_find(const tqs__op_t *op, const char *key);
/* Exactly `n` integers. */
tq_status_t tqs__attr_ints(const tqs__op_t *op, const char *key, size_t n,
                           int64_t *out) TQ_MUST_USE;
tq_status_t tqs__attr_int(const tqs__op_t *op, const char *key, int64_t *out) TQ_MUST_USE;
tq_status_t tqs__attr_int_opt(const tqs__op_t *op, const char *key, int64_t dflt,
                              int64_t *out) TQ_MUST_USE;
tq_status_t tqs__attr_bool(const tqs__op_t *op, const char *key, int *out) TQ_MUST_USE;
tq_status_t tqs__attr_bool_opt(const tqs__op_t *op, const char *key, int dflt,
                               int *out) TQ_MUST_USE;
tq_status_t tqs__attr_float(const tqs__op_t *op, const char *key, double *out) TQ_MUST_USE;
tq_status_t tqs__attr_string(const tqs__op_t *op, const char *key, const char **out) TQ_MUST_USE;
tq_status_t tqs__attr_string_opt(const tqs__op_t *op, const char *key, const char *dflt,
                                 const char **out) TQ_MUST_USE;
/* nan_mode: *out_ignore = 1 for IGNORE, 0 for PROPAGATE (the default). */
tq_status_t tqs__attr_nan_mode(const tqs__op_t *op, int *out_ignore) TQ_MUST_USE;
/* acc_type for a float op: TQS_F32 by default, or "f32", "f16", "bf16". */
tq_status_t tqs__attr_float_acc(const tqs__op_t *op, tqs_type_t *out) TQ_MUST_USE;

/* A compile-time shape of exactly `n` values: operand `index` when the op has it (a shape
 * tensor), else attribute `key`. */
tq_status_t tqs__shape_arg(const tqs__op_t *op, size_t index, const char *key, size_t n,
                           int64_t *out) TQ_MUST_USE;
/* The first element of operand `index` (a zero point, a shift), or `dflt` when absent. The
 * operand must hold at least one element. */
tq_status_t tqs__scalar_arg(const tqs__op_t *op, size_t index, int64_t dflt,
                            int64_t *out) TQ_MUST_USE;

/* ---- Element access (kernels: no checks; the index is in range) ---- */

float tqs__round_float(tqs_type_t type, float value);

static inline int64_t tqs__ld_i(const tqs_tensor_t *t, size_t i) {
  switch (t->type) {
    case TQS_I1:
      return ((const uint8_t *)t->data)[i] != 0;
    case TQS_I8:
      return ((const int8_t *)t->data)[i];
    case TQS_I16:
      return ((const int16_t *)t->data)[i];
    case TQS_I32:
      return ((const int32_t *)t->data)[i];
    case TQS_I64:
    case TQS_INDEX:
      return ((const int64_t *)t->data)[i];
    case TQS_U8:
      return ((const uint8_t *)t->data)[i];
    case TQS_U16:
      return ((const uint16_t *)t->data)[i];
    default:
      return 0;
  }
}

/* The raw bits of an integer element, zero-extended. */
static inline uint64_t tqs__ld_bits(const tqs_tensor_t *t, size_t i) {
  switch (t->type) {
    case TQS_I1:
      return ((const uint8_t *)t->data)[i] != 0;
    case TQS_I8:
    case TQS_U8:
      return ((const uint8_t *)t->data)[i];
    case TQS_I16:
    case TQS_U16:
    case TQS_BF16:
    case TQS_F16:
      return ((const uint16_t *)t->data)[i];
    case TQS_I32:
    case TQS_F32:
      return ((const uint32_t *)t->data)[i];
    default:
      return ((const uint64_t *)t->data)[i];
  }
}

static inline float tqs__ld_f(const tqs_tensor_t *t, size_t i) {
  switch (t->type) {
    case TQS_F32:
      return ((const float *)t->data)[i];
    case TQS_BF16:
      return tqs_bf16_to_f32(((const uint16_t *)t->data)[i]);
    case TQS_F16:
      return tqs_f16_to_f32(((const uint16_t *)t->data)[i]);
    default:
      return (float)tqs__ld_i(t, i);
  }
}

/* Integer types keep the low bits (two's-complement wrap); i1 stores v != 0. */
static inline void tqs__st_i(tqs_tensor_t *t, size_t i, int64_t v) {
  switch (t->type) {
    case TQS_I1:
      ((uint8_t *)t->data)[i] = v != 0;
      break;
    case TQS_I8:
    case TQS_U8:
      ((uint8_t *)t->data)[i] = (uint8_t)(uint64_t)v;
      break;
    case TQS_I16:
    case TQS_U16:
      ((uint16_t *)t->data)[i] = (uint16_t)(uint64_t)v;
      break;
    case TQS_I32:
      ((uint32_t *)t->data)[i] = (uint32_t)(uint64_t)v;
      break;
    case TQS_I64:
    case TQS_INDEX:
      ((int64_t *)t->data)[i] = v;
      break;
    case TQS_F32:
      ((float *)t->data)[i] = (float)v;
      break;
    case TQS_BF16:
      ((uint16_t *)t->data)[i] = tqs_f64_to_bf16((double)v);
      break;
    case TQS_F16:
      ((uint16_t *)t->data)[i] = tqs_f64_to_f16((double)v);
      break;
    default:
      break;
  }
}

/* Float types round to nearest even. (Kernels only store floats into float tensors.) */
static inline void tqs__st_f(tqs_tensor_t *t, size_t i, float v) {
  switch (t->type) {
    case TQS_F32:
      ((float *)t->data)[i] = v;
      break;
    case TQS_BF16:
      ((uint16_t *)t->data)[i] = tqs_f32_to_bf16(v);
      break;
    case TQS_F16:
      ((uint16_t *)t->data)[i] = tqs_f32_to_f16(v);
      break;
    default: /* not reached by the kernels; defined anyway: truncation toward 0, saturated */
      tqs__st_i(t, i,
                isnan(v)        ? 0
                : v >= 9.2e18f  ? INT64_MAX
                : v <= -9.2e18f ? INT64_MIN
                                : (int64_t)v);
      break;
  }
}

/* The range of an integer type's values. */
int64_t tqs__type_min(tqs_type_t type);
int64_t tqs__type_max(tqs_type_t type);

static inline int64_t tqs__clip(int64_t v, int64_t lo, int64_t hi) {
  return v < lo ? lo : v > hi ? hi : v;
}

/* Wrapping 64-bit arithmetic without undefined behaviour. */
static inline int64_t tqs__wrap_add(int64_t a, int64_t b) {
  return (int64_t)((uint64_t)a + (uint64_t)b);
}
static inline int64_t tqs__wrap_sub(int64_t a, int64_t b) {
  return (int64_t)((uint64_t)a - (uint64_t)b);
}
static inline int64_t tqs__wrap_mul(int64_t a, int64_t b) {
  return (int64_t)((uint64_t)a * (uint64_t)b);
}

/* TOSA's floating-point maximum/minimum with a nan_mode. */
static inline float tqs__fmax(float a, float b, int ignore_nan) {
  if (isnan(a)) return ignore_nan ? b : a;
  if (isnan(b)) return ignore_nan ? a : b;
  return a >= b ? a : b;
}
static inline float tqs__fmin(float a, float b, int ignore_nan) {
  if (isnan(a)) return ignore_nan ? b : a;
  if (isnan(b)) return ignore_nan ? a : b;
  return a <= b ? a : b;
}

/* ---- Broadcasting (operands of equal rank, each dim equal to the output's or 1) ---- */

typedef struct tqs__bcast_s {
  size_t n;                       /* operands */
  size_t rank;                    /* of the output; rows iterate dims[0..rank-2] */
  int64_t dims[TQS_MAX_RANK];     /* output dims */
  size_t stride[3][TQS_MAX_RANK]; /* per operand, 0 along broadcast dims */
  size_t rows, inner;             /* output = rows x inner (inner: the last dim) */
  size_t step[3];                 /* per operand stride along the last dim (0 or 1) */
} tqs__bcast_t;

/* Checks that `ins` (n <= 3) broadcast to exactly `out`'s shape and sets up `b`. */
tq_status_t tqs__bcast_init(const tqs__op_t *op, size_t n, const tqs_tensor_t *const *ins,
                            const tqs_tensor_t *out, tqs__bcast_t *b) TQ_MUST_USE;
/* The offsets of the first element of output row `row` in each operand. */
void tqs__bcast_row(const tqs__bcast_t *b, size_t row, size_t *offsets);

/* ---- Strided copies (data movement ops) ---- */

/* Copies the box `dims` (rank entries) of elements of `elem_size` bytes; strides in elements,
 * possibly negative. */
void tqs__copy_box(void *dst, const int64_t *dst_strides, const void *src,
                   const int64_t *src_strides, const int64_t *dims, size_t rank, size_t elem_size);
/* Row-major element strides of `t`. */
void tqs__strides(const tqs_tensor_t *t, int64_t *strides);

/* ---- rescale arithmetic, shared with avg_pool2d ---- */

/* TOSA apply_scale_32 / apply_scale_16 with int64 intermediates (wrapping), shift 0..63. */
int64_t tqs__apply_scale_32(int64_t value, int64_t multiplier, int shift, int double_round);
int64_t tqs__apply_scale_16(int64_t value, int64_t multiplier, int shift);
/* TOSA reciprocal_scale: multiplier and shift with (1 << 30) <= multiplier < (1 << 31) such that
 * apply_scale_32(v, multiplier, shift) approximates v / count (count >= 1). */
void tqs__reciprocal_scale(uint32_t count, int64_t *multiplier, int *shift);

/* ---- Kernels ---- */

enum {
  TQS__U_ABS,
  TQS__U_BITWISE_NOT,
  TQS__U_LOGICAL_NOT,
  TQS__U_CEIL,
  TQS__U_FLOOR,
  TQS__U_CLZ,
  TQS__U_EXP,
  TQS__U_LOG,
  TQS__U_RECIPROCAL,
  TQS__U_RSQRT,
  TQS__U_TANH,
  TQS__U_SIGMOID,
  TQS__U_SIN,
  TQS__U_COS,
  TQS__U_ERF,
};

enum {
  TQS__B_ADD,
  TQS__B_SUB,
  TQS__B_MAXIMUM,
  TQS__B_MINIMUM,
  TQS__B_BITWISE_AND,
  TQS__B_BITWISE_OR,
  TQS__B_BITWISE_XOR,
  TQS__B_LOGICAL_AND,
  TQS__B_LOGICAL_OR,
  TQS__B_LOGICAL_XOR,
  TQS__B_LOGICAL_LEFT_SHIFT,
  TQS__B_LOGICAL_RIGHT_SHIFT,
  TQS__B_ARITHMETIC_RIGHT_SHIFT,
  TQS__B_EQUAL,
  TQS__B_GREATER,
  TQS__B_GREATER_EQUAL,
  TQS__B_POW,
  TQS__B_INTDIV,
};

enum {
  TQS__R_ALL,
  TQS__R_ANY,
  TQS__R_MAX,
  TQS__R_MIN,
  TQS__R_PRODUCT,
  TQS__R_SUM,
};

enum { TQS__D_IDENTITY, TQS__D_CONST };

/* ref_elementwise.c */
tq_status_t tqs__k_unary(const tqs__op_t *op, int variant) TQ_MUST_USE;
tq_status_t tqs__k_binary(const tqs__op_t *op, int variant) TQ_MUST_USE;
tq_status_t tqs__k_mul(const tqs__op_t *op, int variant) TQ_MUST_USE;
tq_status_t tqs__k_select(const tqs__op_t *op, int variant) TQ_MUST_USE;
tq_status_t tqs__k_clamp(const tqs__op_t *op, int variant) TQ_MUST_USE;
tq_status_t tqs__k_negate(const tqs__op_t *op, int variant) TQ_MUST_USE;
/* ref_cast.c */
tq_status_t tqs__k_cast(const tqs__op_t *op, int variant) TQ_MUST_USE;
/* ref_rescale.c */
tq_status_t tqs__k_rescale(const tqs__op_t *op, int variant) TQ_MUST_USE;
tq_status_t tqs__k_table(const tqs__op_t *op, int variant) TQ_MUST_USE;
/* ref_conv.c */
tq_status_t tqs__k_conv2d(const tqs__op_t *op, int variant) TQ_MUST_USE;
tq_status_t tqs__k_depthwise_conv2d(const tqs__op_t *op, int variant) TQ_MUST_USE;
/* ref_matmul.c */
tq_status_t tqs__k_matmul(const tqs__op_t *op, int variant) TQ_MUST_USE;
tq_status_t tqs__k_fully_connected(const tqs__op_t *op, int variant) TQ_MUST_USE;
/* ref_pool.c */
tq_status_t tqs__k_max_pool2d(const tqs__op_t *op, int variant) TQ_MUST_USE;
tq_status_t tqs__k_avg_pool2d(const tqs__op_t *op, int variant) TQ_MUST_USE;
/* ref_data.c */
tq_status_t tqs__k_identity(const tqs__op_t *op, int variant) TQ_MUST_USE;
tq_status_t tqs__k_reshape(const tqs__op_t *op, int variant) TQ_MUST_USE;
tq_status_t tqs__k_transpose(const tqs__op_t *op, int variant) TQ_MUST_USE;
tq_status_t tqs__k_pad(const tqs__op_t *op, int variant) TQ_MUST_USE;
tq_status_t tqs__k_slice(const tqs__op_t *op, int variant) TQ_MUST_USE;
tq_status_t tqs__k_extract_slice(const tqs__op_t *op, int variant) TQ_MUST_USE;
tq_status_t tqs__k_concat(const tqs__op_t *op, int variant) TQ_MUST_USE;
tq_status_t tqs__k_tile(const tqs__op_t *op, int variant) TQ_MUST_USE;
tq_status_t tqs__k_reverse(const tqs__op_t *op, int variant) TQ_MUST_USE;
/* ref_gather.c */
tq_status_t tqs__k_gather(const tqs__op_t *op, int variant) TQ_MUST_USE;
tq_status_t tqs__k_scatter(const tqs__op_t *op, int variant) TQ_MUST_USE;
/* ref_resize.c */
tq_status_t tqs__k_resize(const tqs__op_t *op, int variant) TQ_MUST_USE;
/* ref_linalg.c */
tq_status_t tqs__k_linalg(const tqs__op_t *op, int variant) TQ_MUST_USE;
tq_status_t tqs__k_empty(const tqs__op_t *op, int variant) TQ_MUST_USE;
/* ref_reduce.c */
tq_status_t tqs__k_reduce(const tqs__op_t *op, int variant) TQ_MUST_USE;
tq_status_t tqs__k_argmax(const tqs__op_t *op, int variant) TQ_MUST_USE;

#endif
