/* The TOSA checker's private pieces: the context of the op being checked, element type classes,
 * shape texts for messages, attribute and constant readers, and the per-op checkers that
 * tosa_check.c dispatches to (tosa_elementwise.c, tosa_tensor_ops.c, tosa_data_layout.c).
 *
 * Every checker is called only after tosa_check.c has verified the op's operand and result
 * counts, that each tensor operand and result is ranked and static with no zero-sized dimension
 * and a rank of at most TQC_TOSA_MAX_RANK, and that each shape operand is a !tosa.shape defined
 * by tosa.const_shape. Checkers return a located TQ_INVALID_INPUT diagnostic at the op.
 */
#ifndef TORQ_COMPILER_TOSA_INTERNAL_H
#define TORQ_COMPILER_TOSA_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "torq/base/status.h"
#include "torq/compiler/ir.h"

/* Ranks above this are refused; TOSA's largest level allows rank 6. */
#define TQC_TOSA_MAX_RANK 16

typedef struct tqc_tosa_ctx_s {
  const tqc_module_t *module;
  const tqc_op_t *op;
} tqc_tosa_ctx_t;

/* A diagnostic at the op: "tosa.add: <message>". */
tq_status_t tqc__tosa_fail(const tqc_tosa_ctx_t *c, const char *fmt, ...)
    TQ_PRINTF(2, 3) TQ_MUST_USE;

/* ---- Element types -------------------------------------------------------------------------- */

/* The element types TOSA knows (signless integers; ui8/ui16 only for tosa.rescale). */
typedef enum tqc_tosa_elem_e {
  TQC_E_OTHER,
  TQC_E_BOOL,
  TQC_E_I4,
  TQC_E_I8,
  TQC_E_I16,
  TQC_E_I32,
  TQC_E_I48,
  TQC_E_I64,
  TQC_E_U8,
  TQC_E_U16,
  TQC_E_F16,
  TQC_E_BF16,
  TQC_E_F32,
} tqc_tosa_elem_t;

#define TQC_EM(e) (1u << (e))
#define TQC_EM_FP (TQC_EM(TQC_E_F16) | TQC_EM(TQC_E_BF16) | TQC_EM(TQC_E_F32))
#define TQC_EM_INT (TQC_EM(TQC_E_I8) | TQC_EM(TQC_E_I16) | TQC_EM(TQC_E_I32))
/* What the data-movement ops (concat, pad, reshape, reverse, slice, tile, transpose) accept. */
#define TQC_EM_ANY (TQC_EM(TQC_E_BOOL) | TQC_EM_INT | TQC_EM_FP)

/* The class of a tensor's element type (or of a scalar type). */
tqc_tosa_elem_t tqc__tosa_elem(const tqc_type_t *type);

/* The element type of a tensor; the type itself for a scalar. */
const tqc_type_t *tqc__tosa_elem_type(const tqc_type_t *type);

/* Short texts for messages, truncated with "..." when long. */
typedef struct tqc_tosa_text_s {
  char s[400];
} tqc_tosa_text_t;

/* "i8", "bf16", "ui8". */
tqc_tosa_text_t tqc__tosa_elem_text(const tqc_type_t *type);
/* "1x16x16x8" ("?" for a dynamic dimension, "[]" for rank 0). */
tqc_tosa_text_t tqc__tosa_dims_text(const int64_t *dims, size_t rank);
/* "i8, i16, i32" for a mask of element classes. */
tqc_tosa_text_t tqc__tosa_mask_text(uint32_t mask);
/* "tensor<1x16xi8>", "!tosa.shape<4>". */
tqc_tosa_text_t tqc__tosa_type_text(const tqc_type_t *type);

/* ---- Operands, results, shapes -------------------------------------------------------------- */

const tqc_type_t *tqc__tosa_operand(const tqc_tosa_ctx_t *c, size_t i);
const tqc_type_t *tqc__tosa_result(const tqc_tosa_ctx_t *c, size_t i);

static inline int64_t tqc__tosa_dim(const tqc_type_t *t, size_t i) {
  return t->tensor.dims[i];
}

/* A shape under construction. */
typedef struct tqc_tosa_shape_s {
  size_t rank;
  int64_t dims[TQC_TOSA_MAX_RANK];
} tqc_tosa_shape_t;

/* Fails with "<what> shape A does not match the inferred B" unless `type` has exactly `shape`. */
tq_status_t tqc__tosa_expect_shape(const tqc_tosa_ctx_t *c, const char *what,
                                   const tqc_type_t *type,
                                   const tqc_tosa_shape_t *shape) TQ_MUST_USE;

/* Fails unless the tensor has rank `rank`. */
tq_status_t tqc__tosa_expect_rank(const tqc_tosa_ctx_t *c, const char *what, const tqc_type_t *type,
                                  size_t rank) TQ_MUST_USE;

/* Fails unless the element types of `type` and `want` are equal. */
tq_status_t tqc__tosa_expect_same_elem(const tqc_tosa_ctx_t *c, const char *what,
                                       const tqc_type_t *type, const tqc_type_t *want) TQ_MUST_USE;

/* Fails unless the element type of `type` is in `mask`. */
tq_status_t tqc__tosa_expect_elem_in(const tqc_tosa_ctx_t *c, const char *what,
                                     const tqc_type_t *type, uint32_t mask) TQ_MUST_USE;

/* The shape of a tensor type. */
tqc_tosa_shape_t tqc__tosa_shape_of(const tqc_type_t *type);

/* ---- Attributes ----------------------------------------------------------------------------- */

/* An array<iN: ...> attribute with exactly `count` values (at most TQC_TOSA_MAX_RANK * 2). */
tq_status_t tqc__tosa_attr_ints(const tqc_tosa_ctx_t *c, const char *name, uint32_t width,
                                size_t count, int64_t *out_values) TQ_MUST_USE;

/* An integer attribute (`axis = 1 : i32`). */
tq_status_t tqc__tosa_attr_int(const tqc_tosa_ctx_t *c, const char *name,
                               int64_t *out_value) TQ_MUST_USE;

/* A boolean attribute; when absent, fails if `required`, else stores `dflt`. */
tq_status_t tqc__tosa_attr_bool(const tqc_tosa_ctx_t *c, const char *name, int required, int dflt,
                                int *out_value) TQ_MUST_USE;

/* A TOSA enum attribute (#tosa.<dialect_name><VALUE>) whose value is one of `allowed` (a
 * NULL-terminated list); stores the index in `allowed`. When absent, fails if `required`, else
 * stores -1. */
tq_status_t tqc__tosa_attr_enum(const tqc_tosa_ctx_t *c, const char *name, const char *dialect_name,
                                const char *const *allowed, int required,
                                int *out_index) TQ_MUST_USE;

/* The optional nan_mode of an op: absent, PROPAGATE or IGNORE. */
tq_status_t tqc__tosa_check_nan_mode(const tqc_tosa_ctx_t *c) TQ_MUST_USE;

/* ---- Constant operands ---------------------------------------------------------------------- */

/* The dense value of an operand defined by tosa.const or arith.constant; NULL otherwise. */
const tqc_attr_t *tqc__tosa_const_value(const tqc_tosa_ctx_t *c, size_t operand);

/* Fails unless operand `i` is a compile-time constant; stores its dense value. */
tq_status_t tqc__tosa_require_const(const tqc_tosa_ctx_t *c, size_t i, const char *what,
                                    const tqc_attr_t **out_value) TQ_MUST_USE;

/* A zero-point or single-value operand: a constant tensor<1xT> whose element type is `elem`'s
 * (compared by width for integers: rescale pairs ui8 data with i8 zero points). Stores the value
 * (sign-extended). */
tq_status_t tqc__tosa_scalar_operand(const tqc_tosa_ctx_t *c, size_t i, const char *what,
                                     const tqc_type_t *elem, int64_t *out_value) TQ_MUST_USE;

/* A zero point: a scalar operand (as above) of `data`'s element type that must be 0 unless the
 * data is 8-bit (TOSA's ERROR_IF on zero points). */
tq_status_t tqc__tosa_zero_point(const tqc_tosa_ctx_t *c, size_t i, const char *what,
                                 const tqc_type_t *data) TQ_MUST_USE;

/* The values of a shape operand (a !tosa.shape<N> from tosa.const_shape); fails unless N equals
 * `count` (at most TQC_TOSA_MAX_RANK * 2). */
tq_status_t tqc__tosa_shape_operand(const tqc_tosa_ctx_t *c, size_t i, const char *what,
                                    size_t count, int64_t *out_values) TQ_MUST_USE;

/* ---- Per-op checkers ------------------------------------------------------------------------ */

typedef tq_status_t (*tqc_tosa_check_fn)(const tqc_tosa_ctx_t *c, uint32_t types);

/* Elementwise: tosa_elementwise.c. `types` is the mask of allowed input element types. */
tq_status_t tqc__tosa_check_unary(const tqc_tosa_ctx_t *c, uint32_t types) TQ_MUST_USE;
tq_status_t tqc__tosa_check_binary(const tqc_tosa_ctx_t *c, uint32_t types) TQ_MUST_USE;
tq_status_t tqc__tosa_check_compare(const tqc_tosa_ctx_t *c, uint32_t types) TQ_MUST_USE;
tq_status_t tqc__tosa_check_shift(const tqc_tosa_ctx_t *c, uint32_t types) TQ_MUST_USE;
tq_status_t tqc__tosa_check_mul(const tqc_tosa_ctx_t *c, uint32_t types) TQ_MUST_USE;
tq_status_t tqc__tosa_check_select(const tqc_tosa_ctx_t *c, uint32_t types) TQ_MUST_USE;
tq_status_t tqc__tosa_check_negate(const tqc_tosa_ctx_t *c, uint32_t types) TQ_MUST_USE;
tq_status_t tqc__tosa_check_clamp(const tqc_tosa_ctx_t *c, uint32_t types) TQ_MUST_USE;
tq_status_t tqc__tosa_check_cast(const tqc_tosa_ctx_t *c, uint32_t types) TQ_MUST_USE;
tq_status_t tqc__tosa_check_table(const tqc_tosa_ctx_t *c, uint32_t types) TQ_MUST_USE;
tq_status_t tqc__tosa_check_rescale(const tqc_tosa_ctx_t *c, uint32_t types) TQ_MUST_USE;

/* Convolutions, pooling, matmul: tosa_tensor_ops.c. */
tq_status_t tqc__tosa_check_conv(const tqc_tosa_ctx_t *c, uint32_t types) TQ_MUST_USE;
tq_status_t tqc__tosa_check_transpose_conv2d(const tqc_tosa_ctx_t *c, uint32_t types) TQ_MUST_USE;
tq_status_t tqc__tosa_check_pool(const tqc_tosa_ctx_t *c, uint32_t types) TQ_MUST_USE;
tq_status_t tqc__tosa_check_matmul(const tqc_tosa_ctx_t *c, uint32_t types) TQ_MUST_USE;

/* Data layout, reductions, gather/scatter, resize, constants, and tensor.extract_slice:
 * tosa_data_layout.c. */
tq_status_t tqc__tosa_check_const(const tqc_tosa_ctx_t *c, uint32_t types) TQ_MUST_USE;
tq_status_t tqc__tosa_check_const_shape(const tqc_tosa_ctx_t *c, uint32_t types) TQ_MUST_USE;
tq_status_t tqc__tosa_check_identity(const tqc_tosa_ctx_t *c, uint32_t types) TQ_MUST_USE;
tq_status_t tqc__tosa_check_reshape(const tqc_tosa_ctx_t *c, uint32_t types) TQ_MUST_USE;
tq_status_t tqc__tosa_check_transpose(const tqc_tosa_ctx_t *c, uint32_t types) TQ_MUST_USE;
tq_status_t tqc__tosa_check_pad(const tqc_tosa_ctx_t *c, uint32_t types) TQ_MUST_USE;
tq_status_t tqc__tosa_check_slice(const tqc_tosa_ctx_t *c, uint32_t types) TQ_MUST_USE;
tq_status_t tqc__tosa_check_tile(const tqc_tosa_ctx_t *c, uint32_t types) TQ_MUST_USE;
tq_status_t tqc__tosa_check_reverse(const tqc_tosa_ctx_t *c, uint32_t types) TQ_MUST_USE;
tq_status_t tqc__tosa_check_concat(const tqc_tosa_ctx_t *c, uint32_t types) TQ_MUST_USE;
tq_status_t tqc__tosa_check_reduce(const tqc_tosa_ctx_t *c, uint32_t types) TQ_MUST_USE;
tq_status_t tqc__tosa_check_argmax(const tqc_tosa_ctx_t *c, uint32_t types) TQ_MUST_USE;
tq_status_t tqc__tosa_check_gather(const tqc_tosa_ctx_t *c, uint32_t types) TQ_MUST_USE;
tq_status_t tqc__tosa_check_scatter(const tqc_tosa_ctx_t *c, uint32_t types) TQ_MUST_USE;
tq_status_t tqc__tosa_check_resize(const tqc_tosa_ctx_t *c, uint32_t types) TQ_MUST_USE;
tq_status_t tqc__tosa_check_extract_slice(const tqc_tosa_ctx_t *c, uint32_t types) TQ_MUST_USE;

#endif
