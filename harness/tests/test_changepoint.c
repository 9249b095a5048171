/* Change points by E-divisive means: steps are found where they are, noise and constants give
 * none, and the split chosen is the one a direct evaluation of the energy statistic picks. */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "suites.h"
#include "torq/base/alloc.h"
#include "torq/harness/stats.h"

Suite *changepoint_suite(void);

/* Deterministic noise in [-1, 1). */
static double noise(unsigned *state) {
  *state = *state * 1103515245u + 12345u;
  return ((double)((*state >> 8) & 0xFFFF) / 32768.0) - 1.0;
}

static size_t points(const double *x, size_t n, size_t **out) {
  size_t count = 0;
  TH_OK(tqh_stats_change_points(x, n, NULL, out, &count));
  return count;
}

START_TEST(a_step_is_found_where_it_begins) {
  double x[30];
  unsigned st = 7;
  for (size_t i = 0; i < 30; i++) x[i] = (i < 17 ? 100.0 : 110.0) + noise(&st);
  size_t *cp = NULL;
  ck_assert_uint_eq(points(x, 30, &cp), 1);
  ck_assert_uint_eq(cp[0], 17);
  tq_free(cp);
}
END_TEST

START_TEST(two_steps_are_both_found) {
  double x[45];
  unsigned st = 3;
  for (size_t i = 0; i < 45; i++) x[i] = (i < 15 ? 50.0 : i < 30 ? 60.0 : 45.0) + noise(&st);
  size_t *cp = NULL;
  ck_assert_uint_eq(points(x, 45, &cp), 2);
  ck_assert_uint_eq(cp[0], 15);
  ck_assert_uint_eq(cp[1], 30);
  tq_free(cp);
}
END_TEST

START_TEST(a_deterministic_metric_that_changes_once) {
  double x[20];
  for (size_t i = 0; i < 20; i++) x[i] = i < 12 ? 1000 : 1100;
  size_t *cp = NULL;
  ck_assert_uint_eq(points(x, 20, &cp), 1);
  ck_assert_uint_eq(cp[0], 12);
  tq_free(cp);
}
END_TEST

START_TEST(noise_and_constants_have_none) {
  double x[40];
  unsigned st = 11;
  for (size_t i = 0; i < 40; i++) x[i] = 100.0 + 3.0 * noise(&st);
  size_t *cp = NULL;
  ck_assert_uint_eq(points(x, 40, &cp), 0);
  tq_free(cp);
  for (size_t i = 0; i < 40; i++) x[i] = 5;
  ck_assert_uint_eq(points(x, 40, &cp), 0);
  ck_assert_uint_eq(points(x, 3, &cp), 0); /* too short to split */
  tq_free(cp);
}
END_TEST

/* The energy statistic of a split written out from its definition, O(n^2) per split. */
static double q_direct(const double *x, size_t n, size_t t) {
  double cross = 0, wl = 0, wr = 0;
  for (size_t i = 0; i < t; i++)
    for (size_t j = t; j < n; j++) cross += fabs(x[i] - x[j]);
  for (size_t i = 0; i < t; i++)
    for (size_t k = i + 1; k < t; k++) wl += fabs(x[i] - x[k]);
  for (size_t j = t; j < n; j++)
    for (size_t k = j + 1; k < n; k++) wr += fabs(x[j] - x[k]);
  double a = (double)t, b = (double)(n - t);
  return a * b / (a + b) *
         (2 * cross / (a * b) - wl / (a * (a - 1) / 2) - wr / (b * (b - 1) / 2));
}

START_TEST(the_split_is_the_statistics_maximum) {
  double x[24];
  unsigned st = 5;
  for (size_t i = 0; i < 24; i++) x[i] = (i < 9 ? 10.0 : 13.0) + 2.0 * noise(&st);
  size_t best = 0;
  double q = -1;
  for (size_t t = 2; t <= 22; t++) {
    double v = q_direct(x, 24, t);
    if (v > q) q = v, best = t;
  }
  size_t *cp = NULL;
  ck_assert_uint_ge(points(x, 24, &cp), 1);
  int has = 0;
  for (size_t i = 0; cp && i < 24 && i < 3; i++) has |= cp[i] == best;
  ck_assert_msg(has, "the direct maximum is at %zu", best);
  tq_free(cp);
}
END_TEST

Suite *changepoint_suite(void) {
  Suite *s = suite_create("changepoint");
  TCase *tc = tcase_create("changepoint");
  tcase_add_test(tc, a_step_is_found_where_it_begins);
  tcase_add_test(tc, two_steps_are_both_found);
  tcase_add_test(tc, a_deterministic_metric_that_changes_once);
  tcase_add_test(tc, noise_and_constants_have_none);
  tcase_add_test(tc, the_split_is_the_statistics_maximum);
  suite_add_tcase(s, tc);
  return s;
}
