/* Baselines: hand-made journals, so the noise is exactly known. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "torq/base/alloc.h"
#include "torq/harness/baseline.h"

Suite *baseline_suite(void);

/* One journal line: wall time median/mad (s) and OVERALL (µs). */
static void line(tq_buf_t *b, const char *id, double median, double mad, double overall) {
  TH_OK(tq_buf_printf(b,
                      "{\"id\":\"%s\",\"name\":\"%s\",\"classname\":\"s\",\"outcome\":\"passed\","
                      "\"wall_time\":%.9f,\"wall_time_stats\":{\"n\":5,\"min\":%.9f,\"max\":%.9f,"
                      "\"median\":%.9f,\"mean\":%.9f,\"stddev\":0,\"mad\":%.9f,\"ci95_low\":0,"
                      "\"ci95_high\":0},\"metrics\":{\"OVERALL\":%g,\"DMA\":4}}\n",
                      id, id, median, median, median, median, median, mad, overall));
}

static tqh_baseline_t *load(const char *dir, const char *name, const char *text) {
  char *p = th_path(dir, name);
  th_write(p, text);
  tqh_baseline_t *b = NULL;
  TH_OK(tqh_baseline_load(p, NULL, &b));
  free(p);
  return b;
}

START_TEST(noise_band_improvement_regression_and_missing) {
  char *dir = th_tmpdir();
  tq_buf_t a, c;
  tq_buf_init(&a, 0);
  tq_buf_init(&c, 0);
  /* noisy: MAD/median 10% -> threshold 30%; quiet: 5% floor. */
  line(&a, "noisy", 0.001, 0.0001, 18);
  line(&a, "quiet", 0.001, 0, 18);
  line(&a, "fast", 0.001, 0, 18);
  line(&c, "noisy", 0.00125, 0.0001, 18); /* +25%: inside its noise band */
  line(&c, "quiet", 0.001, 0, 40);        /* OVERALL +122.2% */
  line(&c, "fast", 0.001, 0, 9);          /* OVERALL -50% */
  line(&c, "new", 0.001, 0, 9);
  tqh_baseline_t *base = load(dir, "a.jsonl", a.data);
  tqh_baseline_t *now = load(dir, "c.jsonl", c.data);
  const char *ids[] = {"noisy", "quiet", "fast", "new"};
  tqh_outcome_t want[] = {TQH_OUTCOME_PASSED, TQH_OUTCOME_FAILED, TQH_OUTCOME_PASSED,
                          TQH_OUTCOME_PASSED};
  const char *note[] = {"within noise", "regressed: OVERALL +122.2%", "improved: OVERALL -50.0%",
                        "not in the baseline"};
  for (size_t i = 0; i < 4; i++) {
    tqh_test_record_t rec = *tqh_baseline_find(now, ids[i]);
    tqh_baseline_verdict_t v;
    TH_OK(tqh_baseline_apply(base, -1, &rec, &v));
    ck_assert_msg(rec.outcome == want[i], "%s: %s", ids[i], tqh_outcome_name(rec.outcome));
    ck_assert_str_eq(rec.properties[rec.property_count - 1].key, "baseline");
    ck_assert_str_eq(rec.properties[rec.property_count - 1].value, note[i]);
    if (want[i] == TQH_OUTCOME_FAILED) {
      ck_assert_str_eq(rec.failure_type, "regression");
      ck_assert_str_eq(rec.message, "regression: OVERALL: baseline 18 us, now 40 us (+122.2%, "
                                    "threshold 5.0%)");
      ck_assert_ptr_nonnull(strstr(rec.text, "REGRESSED"));
    }
    tqh_baseline_verdict_deinit(&v);
  }
  /* The noisy test's threshold is 3 * MAD/median = 30%. */
  tqh_baseline_comparison_t cmp;
  TH_OK(tqh_baseline_compare(NULL, tqh_baseline_find(base, "noisy"),
                             tqh_baseline_find(now, "noisy"), &cmp));
  ck_assert_str_eq(cmp.rows[0].metric, "wall_time");
  ck_assert(fabs(cmp.rows[0].threshold_pct - 30.0) < 1e-6);
  ck_assert_int_eq(cmp.rows[0].change, TQH_BASELINE_NOISE);
  tqh_baseline_comparison_deinit(&cmp);

  /* compare: the same table for two journals; one test regressed. */
  char *pa = th_path(dir, "a.jsonl"), *pc = th_path(dir, "c.jsonl");
  tq_buf_t out;
  tq_buf_init(&out, 0);
  size_t regressed = 9;
  TH_OK(tqh_baseline_compare_runs(pa, pc, NULL, &out, &regressed));
  ck_assert_uint_eq(regressed, 1);
  ck_assert_ptr_nonnull(strstr(out.data, "1 regressed, 1 improved, 1 not in the baseline"));
  tq_buf_deinit(&out);
  free(pa);
  free(pc);

  double f = 0;
  TH_OK(tqh_baseline_parse_floor("2.5%", &f));
  ck_assert(f == 2.5);
  tq_status_t st = tqh_baseline_parse_floor("x", &f);
  ck_assert_ptr_nonnull(st);
  tq_status_free(st);
  tqh_baseline_t *missing = NULL;
  st = tqh_baseline_load(dir, NULL, &missing); /* a folder without a journal */
  ck_assert_int_eq(tq_status_code(st), TQ_NOT_FOUND);
  tq_status_free(st);

  tqh_baseline_destroy(base);
  tqh_baseline_destroy(now);
  tq_buf_deinit(&a);
  tq_buf_deinit(&c);
  th_rmtree(dir);
}
END_TEST

/* A passed record with only an estimate (and no wall time): `cycles` < 0 leaves it out. */
static tqh_test_record_t estimate_record(long long cycles) {
  tqh_test_record_t r;
  memset(&r, 0, sizeof(r));
  r.id = r.name = "t";
  r.outcome = TQH_OUTCOME_PASSED;
  r.has_estimated_cycles = cycles >= 0;
  r.estimated_cycles = cycles >= 0 ? (uint64_t)cycles : 0;
  return r;
}

START_TEST(estimated_cycles_compared_against_the_floor) {
  tqh_test_record_t base = estimate_record(1000);
  static const struct {
    long long now;
    tqh_baseline_change_t change;
    size_t rows;
  } cases[] = {
      {1000, TQH_BASELINE_SAME, 1},      {1040, TQH_BASELINE_NOISE, 1},
      {1060, TQH_BASELINE_REGRESSED, 1}, {900, TQH_BASELINE_IMPROVED, 1},
      {-1, TQH_BASELINE_SAME, 0}, /* not recorded now: no row */
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    tqh_test_record_t now = estimate_record(cases[i].now);
    tqh_baseline_comparison_t c;
    TH_OK(tqh_baseline_compare(NULL, &base, &now, &c));
    ck_assert_uint_eq(c.count, cases[i].rows);
    if (c.count) {
      ck_assert_str_eq(c.rows[0].metric, "estimated_cycles");
      ck_assert_str_eq(c.rows[0].unit, "cycles");
      ck_assert(c.rows[0].base == 1000 && c.rows[0].now == (double)cases[i].now);
      ck_assert(c.rows[0].threshold_pct == 5.0);
      ck_assert_int_eq(c.rows[0].change, cases[i].change);
    }
    if (cases[i].change == TQH_BASELINE_REGRESSED) {
      tq_buf_t msg;
      tq_buf_init(&msg, 0);
      TH_OK(tqh_baseline_format_message(&c, &msg));
      ck_assert_str_eq(msg.data,
                       "regression: estimated_cycles: baseline 1000 cycles, now 1060 "
                       "cycles (+6.0%, threshold 5.0%)");
      tq_buf_deinit(&msg);
    }
    tqh_baseline_comparison_deinit(&c);
  }
}
END_TEST

/* OVERALL 18 us -> 19.5 us (+8.3%): the floor decides. */
START_TEST(apply_uses_the_tests_floor_over_the_baselines) {
  char *dir = th_tmpdir();
  char *pa = th_path(dir, "a.jsonl");
  tq_buf_t a, c;
  tq_buf_init(&a, 0);
  tq_buf_init(&c, 0);
  line(&a, "t", 0.001, 0, 18);
  line(&c, "t", 0.001, 0, 19.5);
  th_write(pa, a.data);
  tqh_baseline_options_t loaded;
  tqh_baseline_options_initialize(&loaded);
  loaded.floor_pct = 20; /* the run-wide floor the baseline was loaded with */
  tqh_baseline_t *base = NULL;
  TH_OK(tqh_baseline_load(pa, &loaded, &base));
  tqh_baseline_t *now = load(dir, "c.jsonl", c.data);
  static const struct {
    double floor; /* the test's; < 0: none */
    tqh_outcome_t outcome;
    const char *note;
  } cases[] = {
      {-1, TQH_OUTCOME_PASSED, "within noise"}, /* the baseline's 20% */
      {10, TQH_OUTCOME_PASSED, "within noise"},
      {5, TQH_OUTCOME_FAILED, "regressed: OVERALL +8.3%"},
      {0, TQH_OUTCOME_FAILED, "regressed: OVERALL +8.3%"},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    tqh_test_record_t rec = *tqh_baseline_find(now, "t");
    tqh_baseline_verdict_t v;
    TH_OK(tqh_baseline_apply(base, cases[i].floor, &rec, &v));
    ck_assert_msg(rec.outcome == cases[i].outcome, "floor %g: %s %s %s", cases[i].floor,
                  tqh_outcome_name(rec.outcome), v.note, v.text);
    ck_assert_str_eq(rec.properties[rec.property_count - 1].value, cases[i].note);
    if (cases[i].outcome == TQH_OUTCOME_FAILED) {
      char want[128];
      snprintf(want, sizeof(want),
               "regression: OVERALL: baseline 18 us, now 19.500 us (+8.3%%, threshold %.1f%%)",
               cases[i].floor);
      ck_assert_str_eq(rec.message, want);
    }
    tqh_baseline_verdict_deinit(&v);
  }
  tqh_baseline_destroy(base);
  tqh_baseline_destroy(now);
  tq_buf_deinit(&a);
  tq_buf_deinit(&c);
  free(pa);
  th_rmtree(dir);
}
END_TEST

Suite *baseline_suite(void) {
  Suite *s = suite_create("baseline");
  TCase *tc = tcase_create("baseline");
  tcase_add_test(tc, noise_band_improvement_regression_and_missing);
  tcase_add_test(tc, estimated_cycles_compared_against_the_floor);
  tcase_add_test(tc, apply_uses_the_tests_floor_over_the_baselines);
  suite_add_tcase(s, tc);
  return s;
}
