/* Outputs against the reference: the runtime's tensors seen as the reference interpreter's, and
 * the comparison with the suite's tolerance (integers exactly; floats within atol + rtol * |ref|,
 * NaN equal to NaN, infinities equal only to themselves). A mismatch says "Number of
 * differences: N", with the first differing index and values. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "execute_internal.h"
#include "torq/runtime/tensor.h"
#include "torq/sim/tensor.h"

/* A tqs view of a runtime tensor (same storage: little-endian, one byte per i1, i48 as int64). */
tq_status_t tqh__as_sim_tensor(const tqr_tensor_t *t, tqs_tensor_t *out) {
  tqs_type_t type;
  if (!tqs_type_parse(tqf_element_name(t->type), &type))
    return TQ_STATUS(TQ_UNIMPLEMENTED, "no reference type for %s", tqf_element_name(t->type));
  return tqs_tensor_init(out, type, t->rank, t->dims, t->data);
}

/* "[0,3,1]": the index of flat element `flat` in a row-major tensor of `dims`. */
static void format_index(const int64_t *dims, size_t rank, size_t flat, char *buf, size_t size) {
  int64_t idx[TQS_MAX_RANK];
  for (size_t d = rank; d-- > 0;) {
    int64_t dim = dims[d] > 0 ? dims[d] : 1;
    idx[d] = (int64_t)(flat % (size_t)dim);
    flat /= (size_t)dim;
  }
  size_t pos = 0;
  buf[0] = 0;
  for (size_t d = 0; d <= rank; d++) {
    int n = d == rank ? snprintf(buf + pos, size - pos, "]")
                      : snprintf(buf + pos, size - pos, "%s%" PRId64, d ? "," : "[", idx[d]);
    if (n < 0 || (size_t)n >= size - pos) return; /* cut short, still terminated */
    pos += (size_t)n;
  }
}

int tqh__compare_output(size_t o, const tqs_tensor_t *got, const tqs_tensor_t *want, double atol,
                        double rtol, char *msg, size_t size) {
  return tqh__compare_output_with(o, got, want, atol, rtol, "the reference", msg, size);
}

int tqh__compare_output_with(size_t o, const tqs_tensor_t *got, const tqs_tensor_t *want,
                             double atol, double rtol, const char *against, char *msg,
                             size_t size) {
  if (got->type != want->type || got->rank != want->rank ||
      memcmp(got->dims, want->dims, got->rank * sizeof(int64_t)) != 0) {
    snprintf(msg, size, "output %zu: type or shape differs from %s (%s vs %s)", o, against,
             tqs_type_name(got->type), tqs_type_name(want->type));
    return 0;
  }
  size_t count = 0;
  tq_status_free(tqs_tensor_count(got, &count));
  int is_float = tqs_type_is_float(got->type);
  size_t bad = 0, first = 0;
  double max_diff = 0, first_got = 0, first_want = 0;
  for (size_t i = 0; i < count; i++) {
    int ok;
    double diff = 0;
    if (is_float) {
      double a = tqs_tensor_get_f64(got, i), b = tqs_tensor_get_f64(want, i);
      if (isnan(a) || isnan(b))
        ok = isnan(a) && isnan(b);
      else if (isinf(a) || isinf(b))
        ok = a == b;
      else {
        diff = fabs(a - b);
        ok = diff <= atol + rtol * fabs(b);
      }
      if (!ok && !bad) first_got = a, first_want = b;
    } else {
      int64_t a = tqs_tensor_get_i64(got, i), b = tqs_tensor_get_i64(want, i);
      ok = a == b;
      diff = fabs((double)a - (double)b);
      if (!ok && !bad) first_got = (double)a, first_want = (double)b;
    }
    if (!ok) {
      if (!bad) first = i;
      bad++;
      if (diff > max_diff) max_diff = diff;
    }
  }
  if (!bad) return 1;
  char where[256];
  format_index(got->dims, got->rank, first, where, sizeof(where));
  /* "Number of differences: N" is what the Torq dashboard recognizes an output mismatch by. */
  if (is_float)
    snprintf(msg, size,
             "output %zu differs from %s: Number of differences: %zu (of %zu elements "
             "out of tolerance, atol %g, rtol %g); first at %s: got %.9g, expected %.9g; max abs "
             "diff %g",
             o, against, bad, count, atol, rtol, where, first_got, first_want, max_diff);
  else
    snprintf(msg, size,
             "output %zu differs from %s: Number of differences: %zu (of %zu "
             "elements); first at %s: got %.0f, expected %.0f; max abs diff %.0f",
             o, against, bad, count, where, first_got, first_want, max_diff);
  return 0;
}
