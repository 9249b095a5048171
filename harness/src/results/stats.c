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

/* P(|T| < t) for T of df degrees of freedom: with c = cos(atan(t / sqrt(df))), s = sin(...),
 *   odd df:  2/pi (theta + s (c + 2/3 c^3 + 2*4/(3*5) c^5 + ... up to c^(df-2)))   (0 terms: df 1)
 *   even df: s (1 + 1/2 c^2 + 1*3/(2*4) c^4 + ... up to c^(df-2)). */
static double t_within(double t, size_t df) {
  double theta = atan(t / sqrt((double)df)), s = sin(theta), c = cos(theta), c2 = c * c;
  if (df % 2) {
    double sum = 0, term = c;
    for (size_t k = 3; k <= df; k += 2) { /* term = c^(k-2) times (2*4*...)/(3*5*...) */
      sum += term;
      term *= c2 * (double)(k - 1) / (double)k;
    }
    return 2.0 / 3.14159265358979323846 * (theta + s * sum);
  }
  double sum = 0, term = 1;
  for (size_t k = 2; k <= df; k += 2) { /* term = c^(k-2) times (1*3*...)/(2*4*...) */
    sum += term;
    term *= c2 * (double)(k - 1) / (double)k;
  }
  return s * sum;
}

double tqh_stats_t_two_sided(double alpha, size_t df) {
  if (df == 0 || !(alpha > 0 && alpha < 1)) return 0.0;
  double lo = 0, hi = 1, want = 1 - alpha;
  while (t_within(hi, df) < want && hi < 1e12) lo = hi, hi *= 2;
  for (int i = 0; i < 200 && hi - lo > 1e-10 * hi; i++) {
    double mid = (lo + hi) / 2;
    if (t_within(mid, df) < want)
      lo = mid;
    else
      hi = mid;
  }
  return (lo + hi) / 2;
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

/* ---- The Mann-Whitney U test ---------------------------------------------------------------- */

typedef struct ranked_s {
  double v;
  int first; /* from `a` */
} ranked_t;

static int cmp_ranked(const void *x, const void *y) {
  double a = ((const ranked_t *)x)->v, b = ((const ranked_t *)y)->v;
  return (a > b) - (a < b);
}

/* p = P(|T - E| >= |t - E|) for T the sum of k of the N doubled ranks w (integers), each choice
 * equally likely; E = k (N + 1) is T's mean. Counts by dynamic programming over the ranks:
 * ways[j][s] = the number of j-subsets of the ranks seen so far with sum s. NULL on success. */
static tq_status_t exact_p(const long *w, size_t N, size_t k, long t, double *out_p) {
  long smax = 0;
  for (size_t i = 0; i < k; i++) smax += w[N - 1 - i]; /* w is sorted: the k largest */
  size_t width = (size_t)smax + 1;
  double *ways = tq_calloc((k + 1) * width, sizeof(double));
  if (!ways) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory for the U test");
  ways[0] = 1;
  long reach = 0; /* the largest sum any subset reaches so far */
  for (size_t i = 0; i < N; i++) {
    reach += w[i];
    if (reach > smax) reach = smax;
    size_t jmax = i + 1 < k ? i + 1 : k;
    for (size_t j = jmax; j >= 1; j--) {
      double *row = ways + j * width, *prev = ways + (j - 1) * width;
      for (long s = reach; s >= w[i]; s--) row[s] += prev[s - w[i]];
    }
  }
  long mean2 = (long)k * (long)(N + 1); /* E, doubled ranks: k (N + 1) */
  long dev = labs(t - mean2);
  double total = 0, tail = 0;
  const double *row = ways + k * width;
  for (long s = 0; s <= smax; s++) {
    total += row[s];
    if (labs(s - mean2) >= dev) tail += row[s];
  }
  tq_free(ways);
  double p = total > 0 ? tail / total : 1.0;
  *out_p = p > 1.0 ? 1.0 : p;
  return NULL;
}

tq_status_t tqh_stats_utest(const double *a, size_t m, const double *b, size_t n,
                            tqh_utest_t *out) {
  memset(out, 0, sizeof(*out));
  out->p = 1.0;
  for (size_t i = 0; i < m; i++)
    if (!isfinite(a[i])) return TQ_STATUS(TQ_INVALID_ARGUMENT, "U test: a sample is not finite");
  for (size_t i = 0; i < n; i++)
    if (!isfinite(b[i])) return TQ_STATUS(TQ_INVALID_ARGUMENT, "U test: a sample is not finite");
  if (!m || !n) return NULL;
  size_t N = m + n;
  ranked_t *all = tq_calloc(N, sizeof(*all));
  long *w = tq_calloc(N, sizeof(*w));
  if (!all || !w) {
    tq_free(all);
    tq_free(w);
    return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory for the U test");
  }
  for (size_t i = 0; i < m; i++) all[i] = (ranked_t){a[i], 1};
  for (size_t i = 0; i < n; i++) all[m + i] = (ranked_t){b[i], 0};
  qsort(all, N, sizeof(*all), cmp_ranked);
  /* Doubled mid-ranks, so that they stay integers: a tie group at 1-based positions i..j has
   * the rank (i + j) / 2. */
  long ra2 = 0, rb2 = 0;
  double ties = 0; /* sum of t^3 - t over the tie groups */
  for (size_t i = 0; i < N;) {
    size_t j = i;
    while (j + 1 < N && all[j + 1].v == all[i].v) j++;
    long r2 = (long)(i + 1) + (long)(j + 1);
    double t = (double)(j - i + 1);
    ties += t * t * t - t;
    for (size_t q = i; q <= j; q++) {
      w[q] = r2;
      if (all[q].first)
        ra2 += r2;
      else
        rb2 += r2;
    }
    i = j + 1;
  }
  double md = (double)m, nd = (double)n, Nd = (double)N;
  out->u = (double)ra2 / 2.0 - md * (md + 1) / 2.0;
  tq_status_t st = NULL;
  size_t k = m < n ? m : n;
  long t = m < n ? ra2 : rb2;
  double smax = 2.0 * (double)k * Nd;
  if (Nd * (double)(k + 1) * (smax + 1) <= TQH_UTEST_EXACT_WORK) {
    st = exact_p(w, N, k, t, &out->p);
    out->exact = 1;
  } else {
    double var = md * nd / 12.0 * ((Nd + 1) - ties / (Nd * (Nd - 1)));
    double dev = fabs(out->u - md * nd / 2.0) - 0.5;
    if (var <= 0) {
      out->p = 1.0;
    } else {
      double z = dev > 0 ? dev / sqrt(var) : 0;
      out->p = erfc(z / sqrt(2.0));
      if (out->p > 1.0) out->p = 1.0;
    }
  }
  tq_free(all);
  tq_free(w);
  return st;
}
