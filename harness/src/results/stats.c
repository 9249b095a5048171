/* Statistics of repeated measurements: order statistics from a sorted copy, moments in two passes
 * (numerically stable enough for wall times), Student's t from a table and an expansion. */
#include "torq/harness/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "torq/base/alloc.h"

/* t(0.975, df) for df = 1..30. */
static const double t975_table[30] = {
    12.706205, 4.302653, 3.182446, 2.776445, 2.570582, 2.446912, 2.364624, 2.306004,
    2.262157,  2.228139, 2.200985, 2.178813, 2.160369, 2.144787, 2.131450, 2.119905,
    2.109816,  2.100922, 2.093024, 2.085963, 2.079614, 2.073873, 2.068658, 2.063899,
    2.059539,  2.055529, 2.051831, 2.048407, 2.045230, 2.042272,
};

double tqh_stats_t975(size_t df) {
  if (df == 0) return 0.0;
  if (df <= 30) return t975_table[df - 1];
  /* Cornish-Fisher expansion of t in powers of 1/df around the normal quantile; beyond 30
   * degrees of freedom its error is below 1e-6. */
  const double z = 1.959963984540054;
  double z2 = z * z, z3 = z2 * z, z5 = z3 * z2, z7 = z5 * z2, z9 = z7 * z2;
  double g1 = (z3 + z) / 4.0;
  double g2 = (5 * z5 + 16 * z3 + 3 * z) / 96.0;
  double g3 = (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / 384.0;
  double g4 = (79 * z9 + 776 * z7 + 1482 * z5 - 1920 * z3 - 945 * z) / 92160.0;
  double v = (double)df;
  return z + g1 / v + g2 / (v * v) + g3 / (v * v * v) + g4 / (v * v * v * v);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double tqh_stats_median_inplace(double *values, size_t n) {
  if (n == 0) return 0.0;
  qsort(values, n, sizeof(*values), cmp_double);
  if (n % 2) return values[n / 2];
  return (values[n / 2 - 1] + values[n / 2]) / 2.0;
}

tq_status_t tqh_stats_compute(const double *samples, size_t n, tqh_stats_t *out_stats) {
  memset(out_stats, 0, sizeof(*out_stats));
  if (n == 0) return NULL;
  for (size_t i = 0; i < n; i++)
    if (!isfinite(samples[i]))
      return TQ_STATUS(TQ_INVALID_ARGUMENT, "sample %zu of %zu is not a finite number", i, n);

  double local[64];
  double *sorted = local;
  if (n > sizeof(local) / sizeof(local[0])) {
    sorted = tq_calloc(n, sizeof(*sorted));
    if (!sorted) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory for %zu samples", n);
  }
  memcpy(sorted, samples, n * sizeof(*sorted));

  tqh_stats_t st = {0};
  st.n = n;
  st.median = tqh_stats_median_inplace(sorted, n);
  st.min = sorted[0];
  st.max = sorted[n - 1];
  double sum = 0;
  for (size_t i = 0; i < n; i++) sum += sorted[i];
  st.mean = sum / (double)n;
  /* Clamp: rounding can put the mean a hair outside [min, max] for equal samples. */
  if (st.mean < st.min) st.mean = st.min;
  if (st.mean > st.max) st.mean = st.max;
  if (n > 1) {
    double ss = 0;
    for (size_t i = 0; i < n; i++) ss += (sorted[i] - st.mean) * (sorted[i] - st.mean);
    st.stddev = sqrt(ss / (double)(n - 1));
    for (size_t i = 0; i < n; i++) sorted[i] = fabs(sorted[i] - st.median);
    st.mad = tqh_stats_median_inplace(sorted, n);
  }
  double half = tqh_stats_t975(n - 1) * st.stddev / sqrt((double)n);
  st.ci95_low = st.mean - half;
  st.ci95_high = st.mean + half;
  if (sorted != local) tq_free(sorted);
  *out_stats = st;
  return NULL;
}
