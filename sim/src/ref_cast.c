/* tosa.cast: between every pair of integer (bool included) and float types.
 *
 * int -> int keeps the low bits (TOSA truncates), bool -> int gives 0/1 and int -> bool gives
 * value != 0. int -> float rounds once, to nearest even, from the exact value. float -> int
 * rounds to nearest with ties to even and saturates; NaN gives 0. float -> float rounds to
 * nearest even; out-of-range values become infinities. */
#include <math.h>

#include "ref_internal.h"

static int64_t tqs__float_to_int(float v, tqs_type_t type) {
  if (isnan(v)) return 0;
  if (type == TQS_I1) return v != 0.0f;
  double r = nearbyint((double)v);
  int64_t lo = tqs__type_min(type), hi = tqs__type_max(type);
  if (r <= (double)lo) return lo;
  if (r >= (double)hi) return hi;
  return (int64_t)r;
}

tq_status_t tqs__k_cast(const tqs__op_t *op, int variant) {
  (void)variant;
  TQ_TRY(tqs__check_arity(op, 1, 1, 1));
  const tqs_tensor_t *x = op->in[0];
  tqs_tensor_t *y = op->out[0];
  TQ_TRY(tqs__check_same_shape(op, x, "input", y, "the result"));
  size_t n = tqs__count(x);
  int from_float = tqs_type_is_float(x->type), to_float = tqs_type_is_float(y->type);
  if (from_float && to_float) {
    for (size_t i = 0; i < n; i++) tqs__st_f(y, i, tqs__ld_f(x, i));
  } else if (from_float) {
    for (size_t i = 0; i < n; i++) tqs__st_i(y, i, tqs__float_to_int(tqs__ld_f(x, i), y->type));
  } else {
    /* st_i converts integers to floats from their exact value, and truncates into integers. */
    for (size_t i = 0; i < n; i++) tqs__st_i(y, i, tqs__ld_i(x, i));
  }
  return NULL;
}
