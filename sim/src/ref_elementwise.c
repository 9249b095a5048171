/* Elementwise operators: unary and binary arithmetic, logic, shifts and comparisons (with
 * broadcasting), mul with its shift, select, clamp and negate. */
#include <math.h>
#include <string.h>

#include "ref_internal.h"

static tq_status_t tqs__check_unary(const tqs__op_t *op, unsigned allowed) {
  TQ_TRY(tqs__check_arity(op, 1, 1, 1));
  TQ_TRY(tqs__check_type(op, op->in[0], "input", allowed));
  TQ_TRY(tqs__check_same_type(op, op->in[0], "input", op->out[0], "result"));
  return tqs__check_same_shape(op, op->in[0], "input", op->out[0], "result");
}

static float tqs__unary_f(int variant, float x) {
  switch (variant) {
    case TQS__U_ABS:
      return fabsf(x);
    case TQS__U_CEIL:
      return ceilf(x);
    case TQS__U_FLOOR:
      return floorf(x);
    case TQS__U_EXP:
      return expf(x);
    case TQS__U_LOG:
      return logf(x);
    case TQS__U_RECIPROCAL:
      return 1.0f / x;
    case TQS__U_RSQRT:
      return 1.0f / sqrtf(x);
    case TQS__U_TANH:
      return tanhf(x);
    case TQS__U_SIGMOID:
      return 1.0f / (1.0f + expf(-x));
    case TQS__U_SIN:
      return sinf(x);
    case TQS__U_COS:
      return cosf(x);
    default:
      return erff(x);
  }
}

tq_status_t tqs__k_unary(const tqs__op_t *op, int variant) {
  unsigned allowed;
  switch (variant) {
    case TQS__U_ABS:
      allowed = TQS__SIGNED_INTS | TQS__FLOATS;
      break;
    case TQS__U_BITWISE_NOT:
    case TQS__U_CLZ:
      allowed = TQS__INTS;
      break;
    case TQS__U_LOGICAL_NOT:
      allowed = TQS__BOOL;
      break;
    default:
      allowed = TQS__FLOATS;
      break;
  }
  TQ_TRY(tqs__check_unary(op, allowed));
  const tqs_tensor_t *x = op->in[0];
  tqs_tensor_t *y = op->out[0];
  size_t n = tqs__count(x);
  if (tqs_type_is_float(x->type)) {
    for (size_t i = 0; i < n; i++) tqs__st_f(y, i, tqs__unary_f(variant, tqs__ld_f(x, i)));
    return NULL;
  }
  unsigned width = tqs_type_bits(x->type);
  for (size_t i = 0; i < n; i++) {
    int64_t a = tqs__ld_i(x, i), r;
    switch (variant) {
      case TQS__U_ABS:
        r = a < 0 ? tqs__wrap_sub(0, a) : a;
        break;
      case TQS__U_BITWISE_NOT:
        r = ~a;
        break;
      case TQS__U_LOGICAL_NOT:
        r = !a;
        break;
      default: { /* clz within the type's width */
        uint64_t bits = tqs__ld_bits(x, i);
        r = bits ? (int64_t)width - (64 - __builtin_clzll(bits)) : (int64_t)width;
        break;
      }
    }
    tqs__st_i(y, i, r);
  }
  return NULL;
}

static unsigned tqs__binary_types(int variant) {
  switch (variant) {
    case TQS__B_ADD:
    case TQS__B_SUB:
    case TQS__B_MAXIMUM:
    case TQS__B_MINIMUM:
    case TQS__B_EQUAL:
    case TQS__B_GREATER:
    case TQS__B_GREATER_EQUAL:
      return TQS__INTS | TQS__FLOATS;
    case TQS__B_LOGICAL_AND:
    case TQS__B_LOGICAL_OR:
    case TQS__B_LOGICAL_XOR:
      return TQS__BOOL;
    case TQS__B_POW:
      return TQS__FLOATS;
    default:
      return TQS__INTS;
  }
}

static int tqs__is_comparison(int variant) {
  return variant == TQS__B_EQUAL || variant == TQS__B_GREATER || variant == TQS__B_GREATER_EQUAL;
}

static int64_t tqs__binary_i(int variant, int64_t a, int64_t b, unsigned width, int round) {
  uint64_t mask = width >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << width) - 1);
  switch (variant) {
    case TQS__B_ADD:
      return tqs__wrap_add(a, b);
    case TQS__B_SUB:
      return tqs__wrap_sub(a, b);
    case TQS__B_MAXIMUM:
      return a > b ? a : b;
    case TQS__B_MINIMUM:
      return a < b ? a : b;
    case TQS__B_BITWISE_AND:
      return a & b;
    case TQS__B_BITWISE_OR:
      return a | b;
    case TQS__B_BITWISE_XOR:
      return a ^ b;
    case TQS__B_LOGICAL_AND:
      return a && b;
    case TQS__B_LOGICAL_OR:
      return a || b;
    case TQS__B_LOGICAL_XOR:
      return (a != 0) != (b != 0);
    case TQS__B_LOGICAL_LEFT_SHIFT:
      return b < 0 || b >= (int64_t)width ? 0 : (int64_t)((uint64_t)a << b);
    case TQS__B_LOGICAL_RIGHT_SHIFT:
      return b < 0 || b >= (int64_t)width ? 0 : (int64_t)(((uint64_t)a & mask) >> b);
    case TQS__B_ARITHMETIC_RIGHT_SHIFT: {
      int64_t s = tqs__clip(b, 0, (int64_t)width - 1);
      int64_t r = a >> s;
      if (round && s > 0 && ((a >> (s - 1)) & 1)) r += 1;
      return r;
    }
    case TQS__B_EQUAL:
      return a == b;
    case TQS__B_GREATER:
      return a > b;
    case TQS__B_GREATER_EQUAL:
      return a >= b;
    default: /* intdiv; the caller rejected b == 0 */
      return b == -1 ? tqs__wrap_sub(0, a) : b == 0 ? 0 : a / b;
  }
}

static float tqs__binary_f(int variant, float a, float b) {
  switch (variant) {
    case TQS__B_ADD:
      return a + b;
    case TQS__B_SUB:
      return a - b;
    case TQS__B_MAXIMUM:
      return tqs__fmax(a, b, 0);
    case TQS__B_MINIMUM:
      return tqs__fmin(a, b, 0);
    case TQS__B_EQUAL:
      return a == b;
    case TQS__B_GREATER:
      return a > b;
    case TQS__B_GREATER_EQUAL:
      return a >= b;
    default:
      return powf(a, b);
  }
}

tq_status_t tqs__k_binary(const tqs__op_t *op, int variant) {
  TQ_TRY(tqs__check_arity(op, 2, 2, 1));
  const tqs_tensor_t *a = op->in[0], *b = op->in[1];
  tqs_tensor_t *y = op->out[0];
  TQ_TRY(tqs__check_type(op, a, "input 0", tqs__binary_types(variant)));
  TQ_TRY(tqs__check_same_type(op, a, "input 0", b, "input 1"));
  if (tqs__is_comparison(variant)) {
    TQ_TRY(tqs__check_type(op, y, "the result", TQS__BOOL));
  } else {
    TQ_TRY(tqs__check_same_type(op, a, "input 0", y, "the result"));
  }
  int round = 0, ignore_nan = 0;
  if (variant == TQS__B_ARITHMETIC_RIGHT_SHIFT) TQ_TRY(tqs__attr_bool_opt(op, "round", 0, &round));
  if (variant == TQS__B_MAXIMUM || variant == TQS__B_MINIMUM) {
    TQ_TRY(tqs__attr_nan_mode(op, &ignore_nan));
  }
  tqs__bcast_t bc;
  TQ_TRY(tqs__bcast_init(op, 2, op->in, y, &bc));
  unsigned width = tqs_type_bits(a->type);
  int is_float = tqs_type_is_float(a->type);
  size_t off[2], o = 0;
  for (size_t row = 0; row < bc.rows; row++) {
    tqs__bcast_row(&bc, row, off);
    for (size_t j = 0; j < bc.inner; j++, o++) {
      size_t ia = off[0] + j * bc.step[0], ib = off[1] + j * bc.step[1];
      if (is_float) {
        float fa = tqs__ld_f(a, ia), fb = tqs__ld_f(b, ib), r;
        if (variant == TQS__B_MAXIMUM) {
          r = tqs__fmax(fa, fb, ignore_nan);
        } else if (variant == TQS__B_MINIMUM) {
          r = tqs__fmin(fa, fb, ignore_nan);
        } else {
          r = tqs__binary_f(variant, fa, fb);
        }
        if (tqs__is_comparison(variant)) {
          tqs__st_i(y, o, r != 0.0f);
        } else {
          tqs__st_f(y, o, r);
        }
        continue;
      }
      int64_t ea = tqs__ld_i(a, ia), eb = tqs__ld_i(b, ib);
      if (variant == TQS__B_INTDIV && eb == 0) {
        return TQS_FAIL(op, "division by zero at result element %zu", o);
      }
      tqs__st_i(y, o, tqs__binary_i(variant, ea, eb, width, round));
    }
  }
  return NULL;
}

tq_status_t tqs__k_mul(const tqs__op_t *op, int variant) {
  (void)variant;
  TQ_TRY(tqs__check_arity(op, 2, 3, 1));
  const tqs_tensor_t *a = op->in[0], *b = op->in[1];
  tqs_tensor_t *y = op->out[0];
  TQ_TRY(tqs__check_type(op, a, "input 0", TQS__INTS | TQS__FLOATS));
  TQ_TRY(tqs__check_same_type(op, a, "input 0", b, "input 1"));
  int is_float = tqs_type_is_float(a->type);
  if (is_float) {
    TQ_TRY(tqs__check_same_type(op, a, "input 0", y, "the result"));
  } else {
    TQ_TRY(tqs__check_type(op, y, "the result", TQS__INTS));
  }
  int64_t shift = 0;
  if (!is_float) {
    TQ_TRY(tqs__scalar_arg(op, 2, 0, &shift));
    if (shift < 0 || shift > 63)
      return TQS_FAIL(op, "shift %lld is outside 0..63", (long long)shift);
    if (shift && a->type != TQS_I32) {
      return TQS_FAIL(op, "shift %lld is only allowed for i32 operands, not %s", (long long)shift,
                      tqs_type_name(a->type));
    }
  }
  tqs__bcast_t bc;
  TQ_TRY(tqs__bcast_init(op, 2, op->in, y, &bc));
  size_t off[2], o = 0;
  for (size_t row = 0; row < bc.rows; row++) {
    tqs__bcast_row(&bc, row, off);
    for (size_t j = 0; j < bc.inner; j++, o++) {
      size_t ia = off[0] + j * bc.step[0], ib = off[1] + j * bc.step[1];
      if (is_float) {
        tqs__st_f(y, o, tqs__ld_f(a, ia) * tqs__ld_f(b, ib));
        continue;
      }
      int64_t product = tqs__wrap_mul(tqs__ld_i(a, ia), tqs__ld_i(b, ib));
      if (shift) product = tqs__wrap_add(product, (int64_t)1 << (shift - 1)) >> shift;
      tqs__st_i(y, o, product);
    }
  }
  return NULL;
}

static void tqs__copy_elem(tqs_tensor_t *dst, size_t di, const tqs_tensor_t *src, size_t si) {
  size_t es = tqs_type_size(dst->type);
  memcpy((char *)dst->data + di * es, (const char *)src->data + si * es, es);
}

tq_status_t tqs__k_select(const tqs__op_t *op, int variant) {
  (void)variant;
  TQ_TRY(tqs__check_arity(op, 3, 3, 1));
  TQ_TRY(tqs__check_type(op, op->in[0], "the condition", TQS__BOOL));
  TQ_TRY(tqs__check_same_type(op, op->in[1], "input 1", op->in[2], "input 2"));
  TQ_TRY(tqs__check_same_type(op, op->in[1], "input 1", op->out[0], "the result"));
  tqs__bcast_t bc;
  TQ_TRY(tqs__bcast_init(op, 3, op->in, op->out[0], &bc));
  size_t off[3], o = 0;
  for (size_t row = 0; row < bc.rows; row++) {
    tqs__bcast_row(&bc, row, off);
    for (size_t j = 0; j < bc.inner; j++, o++) {
      int take_first = tqs__ld_i(op->in[0], off[0] + j * bc.step[0]) != 0;
      size_t k = take_first ? 1 : 2;
      tqs__copy_elem(op->out[0], o, op->in[k], off[k] + j * bc.step[k]);
    }
  }
  return NULL;
}

tq_status_t tqs__k_clamp(const tqs__op_t *op, int variant) {
  (void)variant;
  TQ_TRY(tqs__check_unary(op, TQS__INTS | TQS__FLOATS));
  const tqs_tensor_t *x = op->in[0];
  tqs_tensor_t *y = op->out[0];
  size_t n = tqs__count(x);
  if (tqs_type_is_float(x->type)) {
    double lo, hi;
    int ignore_nan;
    TQ_TRY(tqs__attr_float(op, "min_val", &lo));
    TQ_TRY(tqs__attr_float(op, "max_val", &hi));
    TQ_TRY(tqs__attr_nan_mode(op, &ignore_nan));
    if (!(lo <= hi)) return TQS_FAIL(op, "min_val %g is above max_val %g", lo, hi);
    for (size_t i = 0; i < n; i++) {
      float v = tqs__fmax(tqs__ld_f(x, i), (float)lo, ignore_nan);
      tqs__st_f(y, i, tqs__fmin(v, (float)hi, ignore_nan));
    }
    return NULL;
  }
  int64_t lo, hi;
  TQ_TRY(tqs__attr_int(op, "min_val", &lo));
  TQ_TRY(tqs__attr_int(op, "max_val", &hi));
  if (lo > hi)
    return TQS_FAIL(op, "min_val %lld is above max_val %lld", (long long)lo, (long long)hi);
  for (size_t i = 0; i < n; i++) tqs__st_i(y, i, tqs__clip(tqs__ld_i(x, i), lo, hi));
  return NULL;
}

tq_status_t tqs__k_negate(const tqs__op_t *op, int variant) {
  (void)variant;
  TQ_TRY(tqs__check_arity(op, 1, 3, 1));
  if (op->n_in == 2)
    return TQS_FAIL(op, "expects the input and both zero points, or the input alone");
  const tqs_tensor_t *x = op->in[0];
  tqs_tensor_t *y = op->out[0];
  TQ_TRY(tqs__check_type(op, x, "input", TQS__SIGNED_INTS | TQS__FLOATS));
  TQ_TRY(tqs__check_same_type(op, x, "input", y, "the result"));
  TQ_TRY(tqs__check_same_shape(op, x, "input", y, "the result"));
  size_t n = tqs__count(x);
  if (tqs_type_is_float(x->type)) {
    for (size_t i = 0; i < n; i++) tqs__st_f(y, i, -tqs__ld_f(x, i));
    return NULL;
  }
  int64_t in_zp, out_zp;
  TQ_TRY(tqs__scalar_arg(op, 1, 0, &in_zp));
  TQ_TRY(tqs__scalar_arg(op, 2, 0, &out_zp));
  int64_t lo = tqs__type_min(x->type), hi = tqs__type_max(x->type);
  for (size_t i = 0; i < n; i++) {
    int64_t v = tqs__wrap_sub(tqs__ld_i(x, i), in_zp);
    v = tqs__wrap_add(tqs__wrap_sub(0, v), out_zp);
    tqs__st_i(y, i, tqs__clip(v, lo, hi));
  }
  return NULL;
}
