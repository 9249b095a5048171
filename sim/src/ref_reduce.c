/* Reductions along one axis: reduce_all/any/max/min/product/sum keep the axis as a dim of 1;
 * argmax removes it. Integer sums and products wrap at the type's width; float sums and products
 * accumulate in f32 in index order and round once at the end. */
#include "ref_internal.h"

/* outer x len x inner around `axis`. */
static void tqs__split(const tqs_tensor_t *x, int64_t axis, size_t *outer, size_t *len,
                       size_t *inner) {
  *outer = *inner = 1;
  for (int64_t i = 0; i < axis; i++) *outer *= (size_t)x->dims[i];
  *len = (size_t)x->dims[axis];
  for (size_t i = (size_t)axis + 1; i < x->rank; i++) *inner *= (size_t)x->dims[i];
}

static tq_status_t tqs__axis(const tqs__op_t *op, const tqs_tensor_t *x, int64_t *axis) {
  TQ_TRY(tqs__attr_int(op, "axis", axis));
  if (*axis < 0 || *axis >= (int64_t)x->rank) {
    return TQS_FAIL(op, "axis %lld is outside 0..%lld", (long long)*axis, (long long)x->rank - 1);
  }
  return NULL;
}

tq_status_t tqs__k_reduce(const tqs__op_t *op, int variant) {
  TQ_TRY(tqs__check_arity(op, 1, 1, 1));
  const tqs_tensor_t *x = op->in[0];
  tqs_tensor_t *y = op->out[0];
  unsigned types =
      variant == TQS__R_ALL || variant == TQS__R_ANY ? TQS__BOOL : TQS__INTS | TQS__FLOATS;
  TQ_TRY(tqs__check_type(op, x, "input", types));
  TQ_TRY(tqs__check_same_type(op, x, "input", y, "the result"));
  int64_t axis;
  TQ_TRY(tqs__axis(op, x, &axis));
  int ignore_nan = 0;
  if (variant == TQS__R_MAX || variant == TQS__R_MIN) TQ_TRY(tqs__attr_nan_mode(op, &ignore_nan));
  int64_t want[TQS_MAX_RANK];
  for (size_t i = 0; i < x->rank; i++) want[i] = x->dims[i];
  want[axis] = 1;
  TQ_TRY(tqs__check_dims(op, y, "the result", x->rank, want));
  size_t outer, len, inner;
  tqs__split(x, axis, &outer, &len, &inner);
  int is_float = tqs_type_is_float(x->type);
  for (size_t a = 0; a < outer; a++) {
    for (size_t b = 0; b < inner; b++) {
      size_t base = a * len * inner + b;
      if (is_float) {
        float acc = variant == TQS__R_MAX   ? -INFINITY
                    : variant == TQS__R_MIN ? INFINITY
                    : variant == TQS__R_SUM ? 0.0f
                                            : 1.0f;
        for (size_t k = 0; k < len; k++) {
          float v = tqs__ld_f(x, base + k * inner);
          if (variant == TQS__R_MAX) {
            acc = tqs__fmax(acc, v, ignore_nan);
          } else if (variant == TQS__R_MIN) {
            acc = tqs__fmin(acc, v, ignore_nan);
          } else if (variant == TQS__R_SUM) {
            acc += v;
          } else {
            acc *= v;
          }
        }
        tqs__st_f(y, a * inner + b, acc);
        continue;
      }
      int64_t acc;
      switch (variant) {
        case TQS__R_ALL:
        case TQS__R_PRODUCT:
          acc = 1;
          break;
        case TQS__R_MAX:
          acc = tqs__type_min(x->type);
          break;
        case TQS__R_MIN:
          acc = tqs__type_max(x->type);
          break;
        default:
          acc = 0;
          break;
      }
      for (size_t k = 0; k < len; k++) {
        int64_t v = tqs__ld_i(x, base + k * inner);
        switch (variant) {
          case TQS__R_ALL:
            acc = acc && v;
            break;
          case TQS__R_ANY:
            acc = acc || v;
            break;
          case TQS__R_MAX:
            acc = v > acc ? v : acc;
            break;
          case TQS__R_MIN:
            acc = v < acc ? v : acc;
            break;
          case TQS__R_PRODUCT:
            acc = tqs__wrap_mul(acc, v);
            break;
          default:
            acc = tqs__wrap_add(acc, v);
            break;
        }
      }
      tqs__st_i(y, a * inner + b, acc);
    }
  }
  return NULL;
}

tq_status_t tqs__k_argmax(const tqs__op_t *op, int variant) {
  (void)variant;
  TQ_TRY(tqs__check_arity(op, 1, 1, 1));
  const tqs_tensor_t *x = op->in[0];
  tqs_tensor_t *y = op->out[0];
  TQ_TRY(tqs__check_type(op, x, "input", TQS__INTS | TQS__FLOATS));
  TQ_TRY(
      tqs__check_type(op, y, "the result", TQS__T(TQS_I32) | TQS__T(TQS_I64) | TQS__T(TQS_INDEX)));
  int64_t axis;
  TQ_TRY(tqs__axis(op, x, &axis));
  int ignore_nan;
  TQ_TRY(tqs__attr_nan_mode(op, &ignore_nan));
  int64_t want[TQS_MAX_RANK];
  size_t r = 0;
  for (size_t i = 0; i < x->rank; i++) {
    if ((int64_t)i != axis) want[r++] = x->dims[i];
  }
  TQ_TRY(tqs__check_dims(op, y, "the result", r, want));
  size_t outer, len, inner;
  tqs__split(x, axis, &outer, &len, &inner);
  int is_float = tqs_type_is_float(x->type);
  for (size_t a = 0; a < outer; a++) {
    for (size_t b = 0; b < inner; b++) {
      size_t base = a * len * inner + b, best = 0;
      if (is_float) {
        float max = -INFINITY;
        for (size_t k = 0; k < len; k++) {
          float v = tqs__ld_f(x, base + k * inner);
          if (isnan(v)) {
            if (ignore_nan) continue;
            best = k;
            break;
          }
          if (v > max) {
            max = v;
            best = k;
          }
        }
      } else {
        int64_t max = tqs__type_min(x->type);
        for (size_t k = 0; k < len; k++) {
          int64_t v = tqs__ld_i(x, base + k * inner);
          if (v > max) {
            max = v;
            best = k;
          }
        }
      }
      tqs__st_i(y, a * inner + b, (int64_t)best);
    }
  }
  return NULL;
}
