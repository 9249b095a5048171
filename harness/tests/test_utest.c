/* The Mann-Whitney U test against values computed independently: a brute-force enumeration of
 * the exact null distribution (every way to split the pooled samples, U counted pair by pair,
 * ties included), the critical values of the published tables, and the normal approximation's
 * formula written out here from its textbook form. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "torq/harness/stats.h"

Suite *utest_suite(void);

/* U of `a` against `b` by counting pairs: a_i > b_j counts 1, a_i == b_j counts 1/2. */
static double u_by_pairs(const double *a, size_t m, const double *b, size_t n) {
  double u = 0;
  for (size_t i = 0; i < m; i++)
    for (size_t j = 0; j < n; j++) u += a[i] > b[j] ? 1.0 : a[i] == b[j] ? 0.5 : 0.0;
  return u;
}

/* The exact two-sided p by enumerating every m-subset of the pooled values (bit masks). */
static double p_by_enumeration(const double *a, size_t m, const double *b, size_t n) {
  size_t N = m + n;
  double pool[24];
  ck_assert(N <= 24);
  memcpy(pool, a, m * sizeof(double));
  memcpy(pool + m, b, n * sizeof(double));
  double u0 = u_by_pairs(a, m, b, n), centre = (double)m * (double)n / 2.0;
  double dev = fabs(u0 - centre);
  double total = 0, tail = 0;
  for (unsigned long mask = 0; mask < (1ul << N); mask++) {
    if ((size_t)__builtin_popcountl(mask) != m) continue;
    double x[24], y[24];
    size_t nx = 0, ny = 0;
    for (size_t i = 0; i < N; i++) {
      if (mask & (1ul << i))
        x[nx++] = pool[i];
      else
        y[ny++] = pool[i];
    }
    double u = u_by_pairs(x, nx, y, ny);
    total += 1;
    if (fabs(u - centre) >= dev - 1e-9) tail += 1;
  }
  return tail / total;
}

static const struct {
  double a[10], b[10];
  size_t m, n;
} cases[] = {
    {{1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}, 5, 5},               /* separated: 2/252 */
    {{1, 3, 5, 7, 9}, {2, 4, 6, 8, 10}, 5, 5},               /* interleaved */
    {{1, 2, 2, 3, 3}, {2, 3, 3, 4, 4}, 5, 5},                /* many ties */
    {{5, 5, 5, 5, 5}, {5, 5, 5, 5, 6}, 5, 5},                /* nearly all tied */
    {{4, 4, 4, 4, 4}, {4, 4, 4, 4, 4}, 5, 5},                /* all tied: p = 1 */
    {{1.5, 2.5, 2.5, 7, 8, 8, 9}, {2.5, 3, 3, 3, 10, 11}, 7, 6}, /* unequal sizes, ties across */
    {{10, 11, 12, 13, 14, 15, 16, 17, 18}, {1, 2, 3, 19, 20}, 9, 5},
    {{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8}, {0.45, 0.55, 0.65, 0.75, 0.85, 0.95, 1.05, 1.15},
     8, 8},
    {{1, 1, 2, 2, 3, 3, 4, 4, 5, 5}, {3, 3, 4, 4, 5, 5, 6, 6, 7, 7}, 10, 10},
};

START_TEST(u_and_exact_p_match_brute_force_enumeration) {
  const double *a = cases[_i].a, *b = cases[_i].b;
  size_t m = cases[_i].m, n = cases[_i].n;
  tqh_utest_t r;
  TH_OK(tqh_stats_utest(a, m, b, n, &r));
  ck_assert_int_eq(r.exact, 1);
  ck_assert_double_eq_tol(r.u, u_by_pairs(a, m, b, n), 1e-9);
  double want = p_by_enumeration(a, m, b, n);
  ck_assert_msg(fabs(r.p - want) < 1e-12, "case %d: p %.15g, enumeration %.15g", _i, r.p, want);
  /* Two-sided: swapping the sets gives the same p and U' = mn - U. */
  tqh_utest_t s;
  TH_OK(tqh_stats_utest(b, n, a, m, &s));
  ck_assert_double_eq_tol(s.p, r.p, 1e-12);
  ck_assert_double_eq_tol(s.u, (double)(m * n) - r.u, 1e-9);
}
END_TEST

/* Published critical values of U (two-tailed, no ties; e.g. the tables of Mann & Whitney 1947
 * as reprinted in statistics textbooks): the largest U with p <= alpha.
 *   n1 = n2 = 5:  alpha 0.05 -> 2, alpha 0.01 -> 0
 *   n1 = n2 = 10: alpha 0.05 -> 23, alpha 0.01 -> 16
 *   n1 = 8, n2 = 8: alpha 0.05 -> 13, alpha 0.01 -> 7 */
static void sets_with_u(size_t m, size_t n, size_t u, double *a, double *b) {
  /* a's values interleave with b's so that exactly `u` pairs have a_i > b_j: b = 0..n-1 (times
   * 10), a_i placed above the right number of b's. */
  for (size_t j = 0; j < n; j++) b[j] = 10.0 * (double)j;
  size_t left = u;
  for (size_t i = 0; i < m; i++) {
    size_t above = left > n ? n : left; /* how many b's a_i exceeds */
    left -= above;
    a[i] = above == 0 ? -5.0 - (double)i * 0.01 : 10.0 * (double)(above - 1) + 5.0 + (double)i * 0.01;
  }
}

START_TEST(critical_values_match_the_published_tables) {
  static const struct {
    size_t m, n;
    double alpha;
    size_t critical;
  } t[] = {{5, 5, 0.05, 2}, {5, 5, 0.01, 0}, {10, 10, 0.05, 23}, {10, 10, 0.01, 16},
           {8, 8, 0.05, 13}, {8, 8, 0.01, 7}};
  for (size_t k = 0; k < sizeof(t) / sizeof(t[0]); k++) {
    double a[16], b[16];
    tqh_utest_t r;
    sets_with_u(t[k].m, t[k].n, t[k].critical, a, b);
    TH_OK(tqh_stats_utest(a, t[k].m, b, t[k].n, &r));
    ck_assert_double_eq_tol(r.u, (double)t[k].critical, 1e-9);
    ck_assert_msg(r.p <= t[k].alpha, "%zux%zu U=%zu: p %g > %g", t[k].m, t[k].n, t[k].critical,
                  r.p, t[k].alpha);
    sets_with_u(t[k].m, t[k].n, t[k].critical + 1, a, b);
    TH_OK(tqh_stats_utest(a, t[k].m, b, t[k].n, &r));
    ck_assert_msg(r.p > t[k].alpha, "%zux%zu U=%zu: p %g <= %g", t[k].m, t[k].n,
                  t[k].critical + 1, r.p, t[k].alpha);
  }
  /* Complete separation of 5 and 5: p = 2 / C(10, 5) = 2/252. */
  const double lo[] = {1, 2, 3, 4, 5}, hi[] = {6, 7, 8, 9, 10};
  tqh_utest_t r;
  TH_OK(tqh_stats_utest(lo, 5, hi, 5, &r));
  ck_assert_double_eq_tol(r.p, 2.0 / 252.0, 1e-15);
  ck_assert_double_eq_tol(r.u, 0, 1e-12);
}
END_TEST

/* Large sets take the normal approximation; its value is recomputed here from the formula:
 * sigma^2 = mn/12 ((N + 1) - sum(t^3 - t) / (N (N - 1))), z = (|U - mn/2| - 0.5) / sigma,
 * p = erfc(z / sqrt 2), with U counted pair by pair and the ties counted by hand. */
START_TEST(large_sets_use_the_tie_corrected_normal_approximation) {
  enum { M = 400, N2 = 300 };
  static double a[M], b[N2];
  for (size_t i = 0; i < M; i++) a[i] = (double)(i % 50);        /* 50 values, 8 times each */
  for (size_t j = 0; j < N2; j++) b[j] = (double)(j % 60) + 3.0; /* 60 values, 5 times each */
  tqh_utest_t r;
  TH_OK(tqh_stats_utest(a, M, b, N2, &r));
  ck_assert_int_eq(r.exact, 0);
  double u = u_by_pairs(a, M, b, N2);
  ck_assert_double_eq_tol(r.u, u, 1e-6);
  /* Ties: values 3..49 appear 8 + 5 = 13 times, 0..2 8 times, 50..62 5 times. */
  double ties = 47.0 * (13.0 * 13 * 13 - 13) + 3.0 * (8.0 * 8 * 8 - 8) + 13.0 * (5.0 * 5 * 5 - 5);
  double Nn = M + N2;
  double var = (double)M * N2 / 12.0 * ((Nn + 1) - ties / (Nn * (Nn - 1)));
  double z = (fabs(u - (double)M * N2 / 2.0) - 0.5) / sqrt(var);
  double want = erfc(z / sqrt(2.0));
  ck_assert_msg(fabs(r.p - want) < 1e-12 * (want > 1e-300 ? 1 : 0) + 1e-15, "p %g want %g", r.p,
                want);
  ck_assert(r.p < 1e-6); /* b sits clearly higher */
}
END_TEST

/* Between the two: where both apply, the approximation is close to the exact value. */
START_TEST(exact_and_approximation_agree_near_the_switch) {
  enum { K = 30 };
  double a[K], b[K];
  for (size_t i = 0; i < K; i++) {
    a[i] = (double)i;
    b[i] = (double)i + 6.5;
  }
  tqh_utest_t r;
  TH_OK(tqh_stats_utest(a, K, b, K, &r));
  ck_assert_int_eq(r.exact, 1);
  double u = u_by_pairs(a, K, b, K);
  double var = K * K / 12.0 * (2 * K + 1);
  double z = (fabs(u - K * K / 2.0) - 0.5) / sqrt(var);
  double approx = erfc(z / sqrt(2.0));
  ck_assert_msg(fabs(r.p - approx) < 0.1 * approx, "exact %g approx %g", r.p, approx);
}
END_TEST

START_TEST(empty_sets_and_bad_samples) {
  const double a[] = {1, 2, 3};
  tqh_utest_t r;
  TH_OK(tqh_stats_utest(a, 3, NULL, 0, &r));
  ck_assert(r.p == 1.0);
  const double bad[] = {1, NAN};
  tq_status_t st = tqh_stats_utest(a, 3, bad, 2, &r);
  ck_assert_int_eq(tq_status_code(st), TQ_INVALID_ARGUMENT);
  tq_status_free(st);
}
END_TEST

Suite *utest_suite(void) {
  Suite *s = suite_create("utest");
  TCase *tc = tcase_create("utest");
  tcase_add_loop_test(tc, u_and_exact_p_match_brute_force_enumeration, 0,
                      (int)(sizeof(cases) / sizeof(cases[0])));
  tcase_add_test(tc, critical_values_match_the_published_tables);
  tcase_add_test(tc, large_sets_use_the_tie_corrected_normal_approximation);
  tcase_add_test(tc, exact_and_approximation_agree_near_the_switch);
  tcase_add_test(tc, empty_sets_and_bad_samples);
  suite_add_tcase(s, tc);
  return s;
}
