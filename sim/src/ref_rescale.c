/* tosa.rescale and tosa.table: the integer requantization arithmetic of TOSA 1.0. */
#include <string.h>

#include "ref_internal.h"

int64_t tqs__apply_scale_32(int64_t value, int64_t multiplier, int shift, int double_round) {
  int64_t round = shift > 0 ? (int64_t)1 << (shift - 1) : 0;
  if (double_round && shift > 31) round += value >= 0 ? ((int64_t)1 << 30) : -((int64_t)1 << 30);
  return tqs__wrap_add(tqs__wrap_mul(value, multiplier), round) >> shift;
}

int64_t tqs__apply_scale_16(int64_t value, int64_t multiplier, int shift) {
  return tqs__apply_scale_32(value, multiplier, shift, 0);
}

/* An integer value read as unsigned (zero-extended) or signed (sign-extended). */
static int64_t tqs__ld_ext(const tqs_tensor_t *t, size_t i, int as_unsigned) {
  return as_unsigned ? (int64_t)tqs__ld_bits(t, i) : tqs__ld_i(t, i);
}

tq_status_t tqs__k_rescale(const tqs__op_t *op, int variant) {
  (void)variant;
  TQ_TRY(tqs__check_arity(op, 3, 5, 1));
  if (op->n_in == 4) return TQS_FAIL(op, "expects both zero points or neither");
  const tqs_tensor_t *x = op->in[0], *mult = op->in[1], *shift = op->in[2];
  tqs_tensor_t *y = op->out[0];
  const unsigned io_types = TQS__INTS & ~TQS__T(TQS_I1);
  TQ_TRY(tqs__check_type(op, x, "input", io_types));
  TQ_TRY(tqs__check_type(op, y, "the result", io_types & ~TQS__T(TQS_I64)));
  TQ_TRY(tqs__check_same_shape(op, x, "input", y, "the result"));
  int scale32, per_channel, in_unsigned, out_unsigned;
  const char *mode;
  TQ_TRY(tqs__attr_bool(op, "scale32", &scale32));
  TQ_TRY(tqs__attr_bool(op, "per_channel", &per_channel));
  TQ_TRY(tqs__attr_string(op, "rounding_mode", &mode));
  TQ_TRY(tqs__attr_bool_opt(op, "input_unsigned", 0, &in_unsigned));
  TQ_TRY(tqs__attr_bool_opt(op, "output_unsigned", 0, &out_unsigned));
  int double_round;
  if (strcmp(mode, "DOUBLE_ROUND") == 0) {
    double_round = scale32;
  } else if (strcmp(mode, "SINGLE_ROUND") == 0 || strcmp(mode, "INEXACT_ROUND") == 0) {
    double_round = 0;
  } else {
    return TQS_FAIL(op,
                    "attribute 'rounding_mode' must be SINGLE_ROUND, DOUBLE_ROUND or "
                    "INEXACT_ROUND, not \"%s\"",
                    mode);
  }
  in_unsigned = in_unsigned || tqs_type_is_unsigned(x->type);
  out_unsigned = out_unsigned || tqs_type_is_unsigned(y->type);
  TQ_TRY(tqs__check_type(op, mult, "the multiplier",
                         scale32 ? TQS__T(TQS_I32) : TQS__T(TQS_I16) | TQS__T(TQS_I32)));
  TQ_TRY(tqs__check_type(op, shift, "the shift", TQS__SIGNED_INTS));
  size_t channels = 1;
  if (per_channel) {
    if (x->rank == 0) return TQS_FAIL(op, "per_channel needs an input of rank 1 or more");
    channels = (size_t)x->dims[x->rank - 1];
  }
  char d[TQS__DESC_LEN];
  if (mult->rank != 1 || tqs__count(mult) != channels) {
    return TQS_FAIL(op, "the multiplier is %s; expected %zu values", tqs__desc(mult, d), channels);
  }
  if (shift->rank != 1 || tqs__count(shift) != channels) {
    return TQS_FAIL(op, "the shift is %s; expected %zu values", tqs__desc(shift, d), channels);
  }
  for (size_t c = 0; c < channels; c++) {
    int64_t s = tqs__ld_i(shift, c);
    if (s < 0 || s > 63) {
      return TQS_FAIL(op, "shift %lld (channel %zu) is outside 0..63", (long long)s, c);
    }
  }
  int64_t in_zp = 0, out_zp = 0;
  if (op->n_in == 5) {
    const tqs_tensor_t *izp = op->in[3], *ozp = op->in[4];
    TQ_TRY(tqs__check_type(op, izp, "the input zero point", io_types));
    TQ_TRY(tqs__check_type(op, ozp, "the output zero point", io_types));
    if (tqs__count(izp) < 1 || tqs__count(ozp) < 1) {
      return TQS_FAIL(op, "a zero point operand is empty");
    }
    in_zp = tqs__ld_ext(izp, 0, in_unsigned);
    out_zp = tqs__ld_ext(ozp, 0, out_unsigned);
  }
  int64_t lo, hi;
  if (out_unsigned) {
    lo = 0;
    hi = (int64_t)(((uint64_t)1 << tqs_type_bits(y->type)) - 1);
  } else {
    lo = tqs__type_min(y->type);
    hi = tqs__type_max(y->type);
  }
  size_t n = tqs__count(x);
  for (size_t i = 0; i < n; i++) {
    size_t c = per_channel && channels ? i % channels : 0;
    int64_t m = tqs__ld_i(mult, c);
    int s = (int)tqs__ld_i(shift, c);
    int64_t v = tqs__wrap_sub(tqs__ld_ext(x, i, in_unsigned), in_zp);
    int64_t r = scale32 ? tqs__apply_scale_32(v, m, s, double_round) : tqs__apply_scale_16(v, m, s);
    r = tqs__wrap_add(r, out_zp);
    tqs__st_i(y, i, tqs__clip(r, lo, hi));
  }
  return NULL;
}

tq_status_t tqs__k_table(const tqs__op_t *op, int variant) {
  (void)variant;
  TQ_TRY(tqs__check_arity(op, 2, 2, 1));
  const tqs_tensor_t *x = op->in[0], *table = op->in[1];
  tqs_tensor_t *y = op->out[0];
  TQ_TRY(tqs__check_type(op, x, "input", TQS__T(TQS_I8) | TQS__T(TQS_I16)));
  TQ_TRY(tqs__check_same_type(op, x, "input", table, "the table"));
  TQ_TRY(tqs__check_same_shape(op, x, "input", y, "the result"));
  size_t entries = x->type == TQS_I8 ? 256 : 513;
  char d[TQS__DESC_LEN];
  if (table->rank != 1 || tqs__count(table) != entries) {
    return TQS_FAIL(op, "the table is %s; a %s table has %zu entries", tqs__desc(table, d),
                    tqs_type_name(x->type), entries);
  }
  size_t n = tqs__count(x);
  if (x->type == TQS_I8) {
    TQ_TRY(tqs__check_type(op, y, "the result", TQS__T(TQS_I8)));
    for (size_t i = 0; i < n; i++)
      tqs__st_i(y, i, tqs__ld_i(table, (size_t)(tqs__ld_i(x, i) + 128)));
    return NULL;
  }
  TQ_TRY(tqs__check_type(op, y, "the result", TQS__T(TQS_I32)));
  /* apply_lookup_s: the top 9 bits pick an entry, the low 7 bits interpolate to the next. */
  for (size_t i = 0; i < n; i++) {
    int32_t value = (int32_t)tqs__ld_i(x, i);
    int32_t index = (value + 32768) >> 7;
    int32_t fraction = value & 0x7f;
    int32_t base = (int32_t)tqs__ld_i(table, (size_t)index);
    int32_t next = (int32_t)tqs__ld_i(table, (size_t)index + 1);
    tqs__st_i(y, i, (int64_t)base * 128 + (int64_t)(next - base) * fraction);
  }
  return NULL;
}

void tqs__reciprocal_scale(uint32_t count, int64_t *multiplier, int *shift) {
  int k = count > 1 ? 32 - __builtin_clz(count - 1) : 0;
  int64_t numerator = (((int64_t)1 << 30) + 1) << k;
  *multiplier = numerator / count;
  *shift = 30 + k;
}
