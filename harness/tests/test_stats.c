/* Statistics of repetitions against hand-worked values. */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "results_testutil.h"
#include "torq/base/alloc.h"
#include "torq/harness/stats.h"

Suite *stats_suite(void);

#define EPS 1e-6
#define CLOSE(a, b) ck_assert_double_eq_tol((a), (b), EPS)

/* {2, 4, 4, 5, 10}: sorted the same; median 4; mean 25/5 = 5; squared deviations 9+1+1+0+25 =
 * 36, sample variance 36/4 = 9, stddev 3; |x - 4| = {2, 0, 0, 1, 6} → median 1 = MAD;
 * t(0.975, 4) = 2.776445, half-width 2.776445 · 3 / √5 = 3.724992. */
START_TEST(stats_of_five_samples_match_hand_worked_values) {
  const double x[] = {10, 4, 2, 5, 4};
  tqh_stats_t st;
  RT_OK(tqh_stats_compute(x, 5, &st));
  ck_assert_uint_eq(st.n, 5);
  CLOSE(st.min, 2);
  CLOSE(st.max, 10);
  CLOSE(st.median, 4);
  CLOSE(st.mean, 5);
  CLOSE(st.stddev, 3);
  CLOSE(st.mad, 1);
  CLOSE(st.ci95_low, 5 - 3.724992);
  CLOSE(st.ci95_high, 5 + 3.724992);
  /* The input is not reordered. */
  ck_assert(x[0] == 10 && x[1] == 4 && x[2] == 2 && x[3] == 5 && x[4] == 4);
}
END_TEST

/* {1, 2, 3, 4}: median (2+3)/2 = 2.5; stddev √(5/3) = 1.290994; |x - 2.5| = {1.5, .5, .5, 1.5}
 * → MAD 1; t(3) = 3.182446, half-width 3.182446 · 1.290994 / 2 = 2.054260. */
START_TEST(stats_of_an_even_count_average_the_middle_values) {
  const double x[] = {4, 3, 2, 1};
  tqh_stats_t st;
  RT_OK(tqh_stats_compute(x, 4, &st));
  CLOSE(st.median, 2.5);
  CLOSE(st.mean, 2.5);
  CLOSE(st.stddev, 1.290994);
  CLOSE(st.mad, 1.0);
  CLOSE(st.ci95_low, 2.5 - 2.054260);
  CLOSE(st.ci95_high, 2.5 + 2.054260);
}
END_TEST

START_TEST(stats_of_one_sample_have_no_spread) {
  const double x[] = {0.207123};
  tqh_stats_t st;
  RT_OK(tqh_stats_compute(x, 1, &st));
  ck_assert_uint_eq(st.n, 1);
  ck_assert(st.min == 0.207123 && st.max == 0.207123 && st.median == 0.207123);
  ck_assert(st.mean == 0.207123);
  ck_assert(st.stddev == 0 && st.mad == 0);
  ck_assert(st.ci95_low == 0.207123 && st.ci95_high == 0.207123);
}
END_TEST

START_TEST(stats_of_no_samples_are_zero) {
  tqh_stats_t st;
  st.mean = 42;
  RT_OK(tqh_stats_compute(NULL, 0, &st));
  ck_assert_uint_eq(st.n, 0);
  ck_assert(st.min == 0 && st.max == 0 && st.mean == 0 && st.median == 0 && st.stddev == 0);
  ck_assert(st.ci95_low == 0 && st.ci95_high == 0);
}
END_TEST

START_TEST(stats_of_equal_samples_have_a_zero_width_interval) {
  const double x[] = {0.1, 0.1, 0.1};
  tqh_stats_t st;
  RT_OK(tqh_stats_compute(x, 3, &st));
  ck_assert(st.mean == 0.1 && st.median == 0.1);
  CLOSE(st.stddev, 0);
  CLOSE(st.ci95_high - st.ci95_low, 0);
  ck_assert(st.mad == 0);
}
END_TEST

/* 1..101 (beyond the 64-sample stack buffer): median 51, mean 51, |x - 51| has median 25;
 * stddev √(101·102/12) = 29.300170. */
START_TEST(stats_of_many_samples_use_the_heap) {
  double x[101];
  for (int i = 0; i < 101; i++) x[100 - i] = i + 1;
  tqh_stats_t st;
  RT_OK(tqh_stats_compute(x, 101, &st));
  CLOSE(st.median, 51);
  CLOSE(st.mean, 51);
  CLOSE(st.mad, 25);
  CLOSE(st.stddev, 29.300170);
  double half = tqh_stats_t975(100) * 29.300170 / sqrt(101.0);
  ck_assert_double_eq_tol(st.ci95_high, 51 + half, 1e-5);
}
END_TEST

START_TEST(stats_report_out_of_memory_for_many_samples) {
  double x[100] = {0};
  tqh_stats_t st;
  tq_alloc_fail_after(0);
  tq_status_t s = tqh_stats_compute(x, 100, &st);
  tq_alloc_fail_after(-1);
  ck_assert_int_eq(tq_status_code(s), TQ_OUT_OF_MEMORY);
  tq_status_free(s);
  /* Small sets need no heap. */
  tq_alloc_fail_after(0);
  s = tqh_stats_compute(x, 10, &st);
  tq_alloc_fail_after(-1);
  RT_OK(s);
}
END_TEST

START_TEST(stats_reject_non_finite_samples) {
  const double x[] = {1, NAN, 2};
  tqh_stats_t st;
  RT_FAILS(tqh_stats_compute(x, 3, &st), TQ_INVALID_ARGUMENT);
  const double y[] = {INFINITY};
  RT_FAILS(tqh_stats_compute(y, 1, &st), TQ_INVALID_ARGUMENT);
}
END_TEST

static const struct {
  size_t df;
  double t;
} t_cases[] = {
    {0, 0.0},       {1, 12.706205},  {2, 4.302653},  {4, 2.776445},
    {10, 2.228139}, {30, 2.042272},  {31, 2.039513}, {40, 2.021075},
    {60, 2.000298}, {120, 1.979930}, {1000000, 1.959966},
};

START_TEST(t_quantiles_match_the_table) {
  ck_assert_double_eq_tol(tqh_stats_t975(t_cases[_i].df), t_cases[_i].t, 2e-6);
}
END_TEST

/* Two-sided 1% quantiles, from published tables of Student's t (0.995 column). */
static const struct {
  size_t df;
  double t;
} t99_cases[] = {
    {1, 63.656741}, {2, 9.924843},  {3, 5.840909},  {4, 4.604095},   {9, 3.249836},
    {10, 3.169273}, {29, 2.756386}, {30, 2.749996}, {60, 2.660283}, {120, 2.617421},
};

START_TEST(t_two_sided_quantiles_match_the_tables) {
  ck_assert_double_eq_tol(tqh_stats_t_two_sided(0.01, t99_cases[_i].df), t99_cases[_i].t,
                          2e-6 * t99_cases[_i].t);
}
END_TEST

/* The same function at 5% agrees with the other implementation (the 0.975 table up to 30
 * degrees of freedom, the expansion beyond); it tends to the normal quantile. */
START_TEST(t_two_sided_agrees_with_t975) {
  for (size_t df = 1; df <= 200; df++)
    ck_assert_msg(fabs(tqh_stats_t_two_sided(0.05, df) - tqh_stats_t975(df)) < 2e-6,
                  "df %zu: %.7f against %.7f", df, tqh_stats_t_two_sided(0.05, df),
                  tqh_stats_t975(df));
  /* z + (z^3 + z) / (4 df) with z = 2.5758293, the normal quantile. */
  ck_assert_double_eq_tol(tqh_stats_t_two_sided(0.01, 100000), 2.5758785, 2e-6);
  ck_assert(tqh_stats_t_two_sided(0.01, 0) == 0);
  ck_assert(tqh_stats_t_two_sided(0, 5) == 0 && tqh_stats_t_two_sided(1, 5) == 0);
  ck_assert(tqh_stats_t_two_sided(NAN, 5) == 0);
}
END_TEST

START_TEST(median_inplace_sorts) {
  double x[] = {3, 1, 2};
  ck_assert(tqh_stats_median_inplace(x, 3) == 2);
  ck_assert(x[0] == 1 && x[1] == 2 && x[2] == 3);
  ck_assert(tqh_stats_median_inplace(NULL, 0) == 0);
}
END_TEST

Suite *stats_suite(void) {
  Suite *s = suite_create("stats");
  TCase *tc = tcase_create("stats");
  tcase_add_test(tc, stats_of_five_samples_match_hand_worked_values);
  tcase_add_test(tc, stats_of_an_even_count_average_the_middle_values);
  tcase_add_test(tc, stats_of_one_sample_have_no_spread);
  tcase_add_test(tc, stats_of_no_samples_are_zero);
  tcase_add_test(tc, stats_of_equal_samples_have_a_zero_width_interval);
  tcase_add_test(tc, stats_of_many_samples_use_the_heap);
  tcase_add_test(tc, stats_report_out_of_memory_for_many_samples);
  tcase_add_test(tc, stats_reject_non_finite_samples);
  tcase_add_loop_test(tc, t_quantiles_match_the_table, 0,
                      (int)(sizeof(t_cases) / sizeof(t_cases[0])));
  tcase_add_loop_test(tc, t_two_sided_quantiles_match_the_tables, 0,
                      (int)(sizeof(t99_cases) / sizeof(t99_cases[0])));
  tcase_add_test(tc, t_two_sided_agrees_with_t975);
  tcase_add_test(tc, median_inplace_sorts);
  suite_add_tcase(s, tc);
  return s;
}
