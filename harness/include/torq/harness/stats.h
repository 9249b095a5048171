/* Statistics of repeated measurements (wall times of the repetitions of one test): minimum,
 * maximum, median, mean, sample standard deviation, median absolute deviation and the 95%
 * confidence interval of the mean.
 *
 * Definitions (so that reports can be compared with other tools):
 * - median: the middle value of the sorted samples; the mean of the two middle values when n is
 *   even.
 * - stddev: the *sample* standard deviation, sqrt(sum((x - mean)^2) / (n - 1)).
 * - mad: the raw median absolute deviation, median(|x - median|), not scaled by 1.4826.
 * - ci95: mean ± t(0.975, n - 1) · stddev / sqrt(n), with Student's t quantile (a table up to 30
 *   degrees of freedom, a Cornish-Fisher expansion beyond, exact to 3 decimals).
 * With n = 1 the spread is unknown: stddev and mad are 0 and the interval is [mean, mean]. With
 * n = 0 every field is 0.
 *
 * Units are whatever the samples are in (the harness uses seconds).
 *
 * Part of the results component (harness/src/results/README.md).
 */
#ifndef TORQ_HARNESS_STATS_H
#define TORQ_HARNESS_STATS_H

#include <stddef.h>

#include "torq/base/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tqh_stats_s {
  size_t n; /* number of samples */
  double min, max;
  double median;
  double mean;
  double stddev; /* sample standard deviation (n - 1) */
  double mad;    /* median absolute deviation, unscaled */
  double ci95_low, ci95_high;
} tqh_stats_t;

/* Computes the statistics of `n` samples (`samples` is borrowed, not modified; it may be NULL
 * when n is 0). `out_stats` is cleared on entry. Errors: TQ_OUT_OF_MEMORY (a sorted copy is
 * needed beyond 64 samples), TQ_INVALID_ARGUMENT when a sample is NaN or infinite. */
tq_status_t tqh_stats_compute(const double *samples, size_t n, tqh_stats_t *out_stats) TQ_MUST_USE;

/* The 0.975 quantile of Student's t distribution with `df` degrees of freedom (two-sided 95%):
 * 12.706 for df = 1, 2.776 for df = 4, tending to 1.960. df = 0 returns 0 (no interval). */
double tqh_stats_t975(size_t df);

/* The median of `n` values, sorting `values` in place; 0 when n is 0. */
double tqh_stats_median_inplace(double *values, size_t n);

#ifdef __cplusplus
}
#endif
#endif
