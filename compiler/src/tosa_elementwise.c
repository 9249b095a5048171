/* Elementwise TOSA ops: unary, binary with broadcast, comparisons, select, mul, negate, clamp,
 * cast, table and rescale. */
#include <string.h>

#include "tosa_internal.h"

#define E(x) TQC_EM(TQC_E_##x)

/* The unary ops: the result has the input's type. */
tq_status_t tqc__tosa_check_unary(const tqc_tosa_ctx_t *c, uint32_t types) {
  const tqc_type_t *in = tqc__tosa_operand(c, 0), *out = tqc__tosa_result(c, 0);
  TQ_TRY(tqc__tosa_expect_elem_in(c, "input", in, types));
  TQ_TRY(tqc__tosa_expect_same_elem(c, "result", out, in));
  tqc_tosa_shape_t s = tqc__tosa_shape_of(in);
  return tqc__tosa_expect_shape(c, "result", out, &s);
}

/* TOSA broadcasting: equal ranks, and each dimension equal or 1 (the result takes the other). */
static tq_status_t broadcast(const tqc_tosa_ctx_t *c, size_t n, tqc_tosa_shape_t *out_shape) {
  const tqc_type_t *first = tqc__tosa_operand(c, 0);
  *out_shape = tqc__tosa_shape_of(first);
  for (size_t i = 1; i < n; i++) {
    const tqc_type_t *t = tqc__tosa_operand(c, i);
    if (t->tensor.rank != first->tensor.rank) {
      return tqc__tosa_fail(c, "operands #0 and #%zu have different ranks (%zu and %zu)", i,
                            first->tensor.rank, t->tensor.rank);
    }
    for (size_t d = 0; d < t->tensor.rank; d++) {
      int64_t a = out_shape->dims[d], b = t->tensor.dims[d];
      if (a == b || b == 1) continue;
      if (a == 1) {
        out_shape->dims[d] = b;
        continue;
      }
      return tqc__tosa_fail(c, "operand shapes %s and %s do not broadcast (dimension %zu)",
                            tqc__tosa_dims_text(out_shape->dims, out_shape->rank).s,
                            tqc__tosa_dims_text(t->tensor.dims, t->tensor.rank).s, d);
    }
  }
  return NULL;
}

/* Operands first..first+n-1 share one element type from `types`. */
static tq_status_t same_typed_inputs(const tqc_tosa_ctx_t *c, size_t first, size_t n,
                                     uint32_t types) {
  const tqc_type_t *a = tqc__tosa_operand(c, first);
  TQ_TRY(tqc__tosa_expect_elem_in(c, "input", a, types));
  for (size_t i = first + 1; i < first + n; i++) {
    TQ_TRY(tqc__tosa_expect_same_elem(c, "input", tqc__tosa_operand(c, i), a));
  }
  return NULL;
}

tq_status_t tqc__tosa_check_binary(const tqc_tosa_ctx_t *c, uint32_t types) {
  const tqc_type_t *out = tqc__tosa_result(c, 0);
  TQ_TRY(same_typed_inputs(c, 0, 2, types));
  if (tqc_op_is(c->op, "tosa.maximum") || tqc_op_is(c->op, "tosa.minimum")) {
    TQ_TRY(tqc__tosa_check_nan_mode(c));
  }
  TQ_TRY(tqc__tosa_expect_same_elem(c, "result", out, tqc__tosa_operand(c, 0)));
  tqc_tosa_shape_t s;
  TQ_TRY(broadcast(c, 2, &s));
  return tqc__tosa_expect_shape(c, "result", out, &s);
}

tq_status_t tqc__tosa_check_shift(const tqc_tosa_ctx_t *c, uint32_t types) {
  int round;
  TQ_TRY(tqc__tosa_attr_bool(c, "round", 1, 0, &round));
  return tqc__tosa_check_binary(c, types);
}

/* equal, greater, greater_equal: the result is i1. */
tq_status_t tqc__tosa_check_compare(const tqc_tosa_ctx_t *c, uint32_t types) {
  const tqc_type_t *out = tqc__tosa_result(c, 0);
  TQ_TRY(same_typed_inputs(c, 0, 2, types));
  TQ_TRY(tqc__tosa_expect_elem_in(c, "result", out, E(BOOL)));
  tqc_tosa_shape_t s;
  TQ_TRY(broadcast(c, 2, &s));
  return tqc__tosa_expect_shape(c, "result", out, &s);
}

tq_status_t tqc__tosa_check_select(const tqc_tosa_ctx_t *c, uint32_t types) {
  const tqc_type_t *out = tqc__tosa_result(c, 0);
  TQ_TRY(tqc__tosa_expect_elem_in(c, "condition", tqc__tosa_operand(c, 0), E(BOOL)));
  TQ_TRY(same_typed_inputs(c, 1, 2, types));
  TQ_TRY(tqc__tosa_expect_same_elem(c, "result", out, tqc__tosa_operand(c, 1)));
  tqc_tosa_shape_t s;
  TQ_TRY(broadcast(c, 3, &s));
  return tqc__tosa_expect_shape(c, "result", out, &s);
}

/* mul: integers multiply into i32 (i32 inputs with an optional rounding shift), floats keep
 * their type; `shift` is a constant tensor<1xi8>. */
tq_status_t tqc__tosa_check_mul(const tqc_tosa_ctx_t *c, uint32_t types) {
  const tqc_type_t *a = tqc__tosa_operand(c, 0), *out = tqc__tosa_result(c, 0);
  TQ_TRY(same_typed_inputs(c, 0, 2, types));
  tqc_tosa_elem_t ea = tqc__tosa_elem(a);
  int is_int = ea == TQC_E_I8 || ea == TQC_E_I16 || ea == TQC_E_I32;
  if (is_int) {
    TQ_TRY(tqc__tosa_expect_elem_in(c, "result", out, E(I32)));
  } else {
    TQ_TRY(tqc__tosa_expect_same_elem(c, "result", out, a));
  }
  const tqc_type_t *shift_t = tqc__tosa_operand(c, 2);
  if (tqc__tosa_elem(shift_t) != TQC_E_I8) {
    return tqc__tosa_fail(c, "shift (operand #2) must be a tensor<1xi8>, got %s",
                          tqc__tosa_type_text(shift_t).s);
  }
  int64_t shift;
  TQ_TRY(tqc__tosa_scalar_operand(c, 2, "shift", shift_t, &shift));
  if (ea == TQC_E_I32 ? shift < 0 || shift > 63 : shift != 0) {
    return tqc__tosa_fail(
        c, "shift %lld is out of range (%s)", (long long)shift,
        ea == TQC_E_I32 ? "0 to 63 for i32" : "must be 0 unless the input is i32");
  }
  tqc_tosa_shape_t s;
  TQ_TRY(broadcast(c, 2, &s));
  return tqc__tosa_expect_shape(c, "result", out, &s);
}

tq_status_t tqc__tosa_check_negate(const tqc_tosa_ctx_t *c, uint32_t types) {
  const tqc_type_t *in = tqc__tosa_operand(c, 0);
  TQ_TRY(tqc__tosa_check_unary(c, types));
  TQ_TRY(tqc__tosa_zero_point(c, 1, "input1_zp", in));
  return tqc__tosa_zero_point(c, 2, "output_zp", in);
}

/* min_val and max_val are attributes of the element type; min_val <= max_val. */
tq_status_t tqc__tosa_check_clamp(const tqc_tosa_ctx_t *c, uint32_t types) {
  const tqc_type_t *in = tqc__tosa_operand(c, 0);
  TQ_TRY(tqc__tosa_check_unary(c, types));
  TQ_TRY(tqc__tosa_check_nan_mode(c));
  const tqc_type_t *et = tqc__tosa_elem_type(in);
  const char *names[2] = {"min_val", "max_val"};
  double v[2];
  for (int i = 0; i < 2; i++) {
    const tqc_attr_t *a = tqc_op_attr(c->op, names[i]);
    if (!a) return tqc__tosa_fail(c, "missing attribute '%s'", names[i]);
    const tqc_type_t *at = a->kind == TQC_ATTR_INTEGER ? a->integer.type
                           : a->kind == TQC_ATTR_FLOAT ? a->flt.type
                                                       : NULL;
    if (!at || !tqc_type_equal(at, et)) {
      return tqc__tosa_fail(c, "attribute '%s' must be a %s value", names[i],
                            tqc__tosa_elem_text(in).s);
    }
    v[i] = a->kind == TQC_ATTR_INTEGER ? (double)a->integer.value : a->flt.value;
  }
  if (!(v[0] <= v[1])) {
    return tqc__tosa_fail(c, "min_val %g is greater than max_val %g", v[0], v[1]);
  }
  return NULL;
}

/* The conversions TOSA 1.0 defines (CAST's supported data types); a cast to the same type is
 * not one of them. */
tq_status_t tqc__tosa_check_cast(const tqc_tosa_ctx_t *c, uint32_t types) {
  (void)types;
  /* clang-format off */
  static const struct {
    tqc_tosa_elem_t from;
    uint32_t to;
  } casts[] = {
      {TQC_E_BOOL, TQC_EM_INT},
      {TQC_E_I8, E(BOOL) | E(I16) | E(I32) | TQC_EM_FP},
      {TQC_E_I16, E(BOOL) | E(I8) | E(I32) | TQC_EM_FP},
      {TQC_E_I32, E(BOOL) | E(I8) | E(I16) | TQC_EM_FP},
      {TQC_E_F16, TQC_EM_INT | E(F32)},
      {TQC_E_BF16, TQC_EM_INT | E(F32)},
      {TQC_E_F32, TQC_EM_INT | E(F16) | E(BF16)},
  };
  /* clang-format on */
  const tqc_type_t *in = tqc__tosa_operand(c, 0), *out = tqc__tosa_result(c, 0);
  tqc_tosa_elem_t from = tqc__tosa_elem(in);
  uint32_t to = 0;
  for (size_t i = 0; i < sizeof(casts) / sizeof(casts[0]); i++) {
    if (casts[i].from == from) to = casts[i].to;
  }
  if (!to) {
    return tqc__tosa_fail(c, "input element type %s is not supported", tqc__tosa_elem_text(in).s);
  }
  if (!(to & TQC_EM(tqc__tosa_elem(out)))) {
    return tqc__tosa_fail(c, "cast from %s to %s is not supported", tqc__tosa_elem_text(in).s,
                          tqc__tosa_elem_text(out).s);
  }
  tqc_tosa_shape_t s = tqc__tosa_shape_of(in);
  return tqc__tosa_expect_shape(c, "result", out, &s);
}

/* table: i8 data with a 256-entry i8 table gives i8; i16 data with a 513-entry i16 table gives
 * i32 (the interpolated value with 7 fraction bits). */
tq_status_t tqc__tosa_check_table(const tqc_tosa_ctx_t *c, uint32_t types) {
  const tqc_type_t *in = tqc__tosa_operand(c, 0), *table = tqc__tosa_operand(c, 1);
  const tqc_type_t *out = tqc__tosa_result(c, 0);
  TQ_TRY(tqc__tosa_expect_elem_in(c, "input", in, types));
  int is_i8 = tqc__tosa_elem(in) == TQC_E_I8;
  TQ_TRY(tqc__tosa_expect_same_elem(c, "table", table, in));
  tqc_tosa_shape_t ts = {1, {is_i8 ? 256 : 513}};
  TQ_TRY(tqc__tosa_expect_shape(c, "table", table, &ts));
  const tqc_attr_t *v;
  TQ_TRY(tqc__tosa_require_const(c, 1, "table", &v));
  TQ_TRY(tqc__tosa_expect_elem_in(c, "result", out, is_i8 ? E(I8) : E(I32)));
  tqc_tosa_shape_t s = tqc__tosa_shape_of(in);
  return tqc__tosa_expect_shape(c, "result", out, &s);
}

/* ---- rescale -------------------------------------------------------------------------------- */

/* A rescale zero point: any value for 8-bit data, 0 or 32768 for unsigned 16-bit data, else 0. */
static tq_status_t rescale_zero_point(const tqc_tosa_ctx_t *c, size_t i, const char *what,
                                      const tqc_type_t *data, int is_unsigned) {
  int64_t zp;
  TQ_TRY(tqc__tosa_scalar_operand(c, i, what, data, &zp));
  uint32_t bits = tqc_type_bit_width(tqc__tosa_elem_type(data));
  if (bits == 8 || zp == 0) return NULL;
  if (bits == 16 && is_unsigned) {
    if ((zp & 0xffff) == 32768) return NULL;
    return tqc__tosa_fail(c, "%s must be 0 or 32768 for unsigned 16-bit data, got %lld", what,
                          (long long)zp);
  }
  return tqc__tosa_fail(c, "%s must be 0 for %s data, got %lld", what, tqc__tosa_elem_text(data).s,
                        (long long)zp);
}

/* Checks one side's unsigned flag against its element type. TOSA 1.0 has signless types and
 * the flag; the corpus also writes ui8 element types (MLIR accepts them), taken here only with
 * the flag set. */
static tq_status_t rescale_sign(const tqc_tosa_ctx_t *c, const char *side, const tqc_type_t *t,
                                int is_unsigned) {
  tqc_tosa_elem_t e = tqc__tosa_elem(t);
  if ((e == TQC_E_U8 || e == TQC_E_U16) && !is_unsigned) {
    return tqc__tosa_fail(c, "%s element type %s needs %s_unsigned = true", side,
                          tqc__tosa_elem_text(t).s, side);
  }
  if (is_unsigned && e != TQC_E_I8 && e != TQC_E_I16 && e != TQC_E_U8 && e != TQC_E_U16) {
    return tqc__tosa_fail(c, "%s_unsigned = true needs 8- or 16-bit %s data, got %s", side, side,
                          tqc__tosa_elem_text(t).s);
  }
  return NULL;
}

tq_status_t tqc__tosa_check_rescale(const tqc_tosa_ctx_t *c, uint32_t types) {
  (void)types;
  static const char *const modes[] = {"SINGLE_ROUND", "INEXACT_ROUND", "DOUBLE_ROUND", NULL};
  enum { DOUBLE_ROUND = 2 };
  const tqc_type_t *in = tqc__tosa_operand(c, 0), *out = tqc__tosa_result(c, 0);
  TQ_TRY(
      tqc__tosa_expect_elem_in(c, "input", in, E(I8) | E(I16) | E(I32) | E(I48) | E(U8) | E(U16)));
  TQ_TRY(tqc__tosa_expect_elem_in(c, "result", out, E(I8) | E(I16) | E(I32) | E(U8) | E(U16)));
  int scale32, per_channel, in_unsigned, out_unsigned, mode;
  TQ_TRY(tqc__tosa_attr_bool(c, "scale32", 1, 0, &scale32));
  TQ_TRY(tqc__tosa_attr_enum(c, "rounding_mode", "tosa.rounding_mode", modes, 1, &mode));
  TQ_TRY(tqc__tosa_attr_bool(c, "per_channel", 1, 0, &per_channel));
  TQ_TRY(tqc__tosa_attr_bool(c, "input_unsigned", 1, 0, &in_unsigned));
  TQ_TRY(tqc__tosa_attr_bool(c, "output_unsigned", 1, 0, &out_unsigned));
  TQ_TRY(rescale_sign(c, "input", in, in_unsigned));
  TQ_TRY(rescale_sign(c, "output", out, out_unsigned));
  if (in_unsigned && out_unsigned) {
    return tqc__tosa_fail(c, "input_unsigned and output_unsigned cannot both be true");
  }
  /* Unsigned data converts only to and from 8- and 16-bit data. */
  tqc_tosa_elem_t ein = tqc__tosa_elem(in), eout = tqc__tosa_elem(out);
  if (out_unsigned && (ein == TQC_E_I32 || ein == TQC_E_I48)) {
    return tqc__tosa_fail(c, "output_unsigned = true is not allowed with %s input",
                          tqc__tosa_elem_text(in).s);
  }
  if (in_unsigned && eout == TQC_E_I32) {
    return tqc__tosa_fail(c, "input_unsigned = true is not allowed with i32 output");
  }
  if (scale32 && ein == TQC_E_I48) {
    return tqc__tosa_fail(c, "scale32 = true is not allowed with i48 input");
  }
  if (!scale32 && mode == DOUBLE_ROUND) {
    return tqc__tosa_fail(c, "rounding_mode DOUBLE_ROUND needs scale32 = true");
  }
  /* multiplier and shift: one value, or one per channel (the input's last dimension). */
  int64_t channels = 1;
  if (per_channel) {
    if (in->tensor.rank == 0) return tqc__tosa_fail(c, "per_channel needs an input of rank >= 1");
    channels = in->tensor.dims[in->tensor.rank - 1];
  }
  tqc_tosa_shape_t cs = {1, {channels}};
  const tqc_type_t *mult = tqc__tosa_operand(c, 1), *shift = tqc__tosa_operand(c, 2);
  TQ_TRY(tqc__tosa_expect_elem_in(c, "multiplier", mult, scale32 ? E(I32) : E(I16)));
  TQ_TRY(tqc__tosa_expect_shape(c, "multiplier", mult, &cs));
  TQ_TRY(tqc__tosa_expect_elem_in(c, "shift", shift, E(I8)));
  TQ_TRY(tqc__tosa_expect_shape(c, "shift", shift, &cs));
  const tqc_attr_t *v;
  TQ_TRY(tqc__tosa_require_const(c, 1, "multiplier", &v));
  TQ_TRY(tqc__tosa_require_const(c, 2, "shift", &v));
  TQ_TRY(rescale_zero_point(c, 3, "input_zp", in, in_unsigned));
  TQ_TRY(rescale_zero_point(c, 4, "output_zp", out, out_unsigned));
  tqc_tosa_shape_t s = tqc__tosa_shape_of(in);
  return tqc__tosa_expect_shape(c, "result", out, &s);
}
