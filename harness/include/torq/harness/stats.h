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
#include <stdint.h>

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

/* Student's t quantile for a two-sided level `alpha`: the t with P(|T| > t) = alpha for T of
 * `df` degrees of freedom (63.657 for alpha 0.01 and df = 1, 3.250 for df = 9, tending to
 * 2.576). Found by bisection on the distribution function, which for whole df is a finite sum
 * (Abramowitz & Stegun 26.7.3 and 26.7.4); to 1e-9. df = 0 or alpha outside (0, 1): 0. */
double tqh_stats_t_two_sided(double alpha, size_t df);

/* The median of `n` values, sorting `values` in place; 0 when n is 0. */
double tqh_stats_median_inplace(double *values, size_t n);

/* ---- The Mann-Whitney U test ----------------------------------------------------------------
 * Whether two sets of samples come from the same distribution (the Wilcoxon rank-sum test, the
 * one Google Benchmark's compare.py uses), two-sided, with no assumption about the shape of the
 * distributions: the m + n samples are ranked together (tied values get the mean of their
 * ranks), U of `a` = R_a - m(m + 1)/2 where R_a is the sum of a's ranks (the number of pairs
 * with a_i > b_j, plus half the pairs with a_i = b_j), and
 *   p = P(|U - mn/2| >= |u - mn/2|)
 * under the null hypothesis that every assignment of the ranks to the two sets is equally
 * likely. The distribution is exact (conditional on the ties: enumerated by dynamic
 * programming over the ranks) while that takes at most TQH_UTEST_EXACT_WORK steps (m = n = 50
 * and more, ties or not); beyond, the normal approximation with the tie correction of the
 * variance and a continuity correction of 0.5. */

#define TQH_UTEST_EXACT_WORK 50000000.0

typedef struct tqh_utest_s {
  double u;  /* U of the first set */
  double p;  /* two-sided p-value, in (0, 1]; 1 when a set is empty or every value is equal */
  int exact; /* 1: the exact distribution; 0: the normal approximation */
} tqh_utest_t;

/* Tests `a` (m samples) against `b` (n samples); both borrowed, not modified. Errors:
 * TQ_INVALID_ARGUMENT when a sample is not finite, TQ_OUT_OF_MEMORY. */
tq_status_t tqh_stats_utest(const double *a, size_t m, const double *b, size_t n,
                            tqh_utest_t *out) TQ_MUST_USE;

/* ---- Change points: E-divisive means --------------------------------------------------------
 * Where a series (a metric over runs) changes its distribution, by E-divisive means (Matteson &
 * James, "A Nonparametric Approach for Multiple Change Point Analysis of Multivariate Data",
 * JASA 2014; the method of MongoDB's performance CI and Apache Otava), univariate with the
 * distance |x - y| (alpha = 1): the split of a segment that maximises the scaled energy
 * distance between its two sides is a change point when a permutation test finds it
 * significant (the maximum over `permutations` random orders of the segment reaches it in fewer
 * than `significance` of the cases); the sides are then split the same way. Each side keeps at
 * least `min_size` points. The random orders come from `seed`, so the answer is reproducible. */

typedef struct tqh_changepoint_options_s {
  double significance; /* default 0.05 */
  size_t permutations; /* default 199 */
  size_t min_size;     /* default 2 */
  uint64_t seed;       /* default 1 */
} tqh_changepoint_options_t;

void tqh_changepoint_options_initialize(tqh_changepoint_options_t *options);

/* Finds the change points of `x` (n values; borrowed): *out (tq_free) holds *out_count indexes,
 * ascending, each the first index of a new segment. A constant series has none. Errors:
 * TQ_INVALID_ARGUMENT (a value not finite), TQ_OUT_OF_MEMORY. */
tq_status_t tqh_stats_change_points(const double *x, size_t n,
                                    const tqh_changepoint_options_t *options, size_t **out,
                                    size_t *out_count) TQ_MUST_USE;

#ifdef __cplusplus
}
#endif
#endif
