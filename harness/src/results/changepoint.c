/* Change points by E-divisive means (stats.h): binary segmentation, each split the maximum of
 * the scaled energy statistic, kept when a permutation test finds it significant. The statistic
 * of every split of a segment is computed in one O(n^2) pass from running sums of distances. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "torq/base/alloc.h"
#include "torq/harness/stats.h"

void tqh_changepoint_options_initialize(tqh_changepoint_options_t *options) {
  options->significance = 0.05;
  options->permutations = 199;
  options->min_size = 2;
  options->seed = 1;
}

/* The best split of x[0, n): *out_tau in [m, n - m], its statistic returned (-1: none).
 *   Q(t) = t (n - t) / n * (2/(t (n - t)) C - W_L / C(t, 2) - W_R / C(n - t, 2))
 * with C the sum of |x_i - x_j| across the split and W_L, W_R the sums within each side. */
static double best_split(const double *x, size_t n, size_t m, size_t *out_tau) {
  if (m < 2) m = 2;
  if (n < 2 * m) return -1;
  double total = 0; /* every pair of the segment */
  for (size_t i = 0; i < n; i++)
    for (size_t j = i + 1; j < n; j++) total += fabs(x[i] - x[j]);
  /* t = 1: left {x0}. */
  double wl = 0, cross = 0;
  for (size_t j = 1; j < n; j++) cross += fabs(x[0] - x[j]);
  double best = -1;
  for (size_t t = 1; t + 1 < n; t++) {
    if (t >= m && n - t >= m) {
      double a = (double)t, b = (double)(n - t);
      double wr = total - wl - cross;
      double q = a * b / (a + b) *
                 (2.0 * cross / (a * b) - wl / (a * (a - 1) / 2) - wr / (b * (b - 1) / 2));
      if (q > best) {
        best = q;
        *out_tau = t;
      }
    }
    /* Move x[t] from the right side to the left. */
    for (size_t i = 0; i < t; i++) {
      double d = fabs(x[i] - x[t]);
      wl += d;
      cross -= d;
    }
    for (size_t j = t + 1; j < n; j++) cross += fabs(x[t] - x[j]);
  }
  return best;
}

static uint64_t next_random(uint64_t *s) { /* splitmix64 */
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

typedef struct seg_s {
  const double *x;
  size_t *points, count;
  const tqh_changepoint_options_t *o;
  uint64_t rng;
  double *scratch;
} seg_t;

/* Splits x[lo, hi) while the permutation test says so. */
static void split(seg_t *s, size_t lo, size_t hi, int depth) {
  size_t n = hi - lo, tau = 0;
  if (depth > 64) return;
  double q = best_split(s->x + lo, n, s->o->min_size, &tau);
  if (q <= 0) return;
  /* Permutation test: how often a random order of the segment does as well. It stops as soon as
   * that is often enough to make the split insignificant. */
  size_t reach = 0, r = s->o->permutations;
  double limit = s->o->significance * (double)(r + 1) - 1;
  memcpy(s->scratch, s->x + lo, n * sizeof(double));
  size_t done = 0;
  for (; done < r && (double)reach <= limit; done++) {
    for (size_t i = n - 1; i > 0; i--) {
      size_t j = (size_t)(next_random(&s->rng) % (i + 1));
      double t = s->scratch[i];
      s->scratch[i] = s->scratch[j];
      s->scratch[j] = t;
    }
    size_t ignored;
    if (best_split(s->scratch, n, s->o->min_size, &ignored) >= q * (1 - 1e-12)) reach++;
  }
  double p = ((double)reach + 1) / ((double)r + 1);
  if (done < r || p >= s->o->significance) return;
  s->points[s->count++] = lo + tau;
  split(s, lo, lo + tau, depth + 1);
  split(s, lo + tau, hi, depth + 1);
}

static int cmp_size(const void *a, const void *b) {
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  return (x > y) - (x < y);
}

tq_status_t tqh_stats_change_points(const double *x, size_t n,
                                    const tqh_changepoint_options_t *options, size_t **out,
                                    size_t *out_count) {
  *out = NULL;
  *out_count = 0;
  tqh_changepoint_options_t defaults;
  tqh_changepoint_options_initialize(&defaults);
  const tqh_changepoint_options_t *o = options ? options : &defaults;
  int constant = 1;
  for (size_t i = 0; i < n; i++) {
    if (!isfinite(x[i]))
      return TQ_STATUS(TQ_INVALID_ARGUMENT, "change points: value %zu is not finite", i);
    if (x[i] != x[0]) constant = 0;
  }
  if (constant || n < 2 * (o->min_size < 2 ? 2 : o->min_size)) return NULL;
  seg_t s = {x, tq_calloc(n, sizeof(size_t)), 0, o, o->seed, tq_calloc(n, sizeof(double))};
  if (!s.points || !s.scratch) {
    tq_free(s.points);
    tq_free(s.scratch);
    return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory finding change points");
  }
  split(&s, 0, n, 0);
  tq_free(s.scratch);
  qsort(s.points, s.count, sizeof(size_t), cmp_size);
  *out = s.points;
  *out_count = s.count;
  return NULL;
}
