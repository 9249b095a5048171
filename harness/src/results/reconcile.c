/* The reconciliation of estimate and measurement (results.h): one program's error and the
 * percentiles the reports show. */
#include <math.h>
#include <stdlib.h>

#include "torq/harness/results.h"

int tqh_recon_error(const tqh_recon_t *p, uint64_t clock_hz, double *out_error) {
  double est = (double)p->estimated_cycles, got;
  if (p->has_simulated) {
    got = (double)p->simulated_cycles;
  } else if (p->has_device && clock_hz) {
    got = p->device_us;
    est = est / (double)clock_hz * 1e6;
  } else {
    return 0;
  }
  if (!(got > 0)) return 0;
  *out_error = fabs(est - got) / got;
  return 1;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

void tqh_recon_percentiles(double *errors, size_t n, double *out_median, double *out_p90) {
  *out_median = *out_p90 = 0;
  if (n == 0) return;
  qsort(errors, n, sizeof(double), cmp_double);
  *out_median = errors[(n - 1) / 2];
  size_t rank = (n * 9 + 9) / 10; /* ceil(0.9 n) */
  *out_p90 = errors[rank - 1];
}
