/* Baselines: hand-made journals and records, so that every sample is known. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "torq/base/alloc.h"
#include "torq/harness/baseline.h"
#include "torq/harness/history.h"
#include "torq/harness/journal.h"

Suite *baseline_suite(void);

/* One journal line of test s/NAME (folder s+NAME, no test_id: as older journals hold it, the id
 * comes from the suite and the name): wall time median/mad (s) and OVERALL (µs). */
static void line(tq_buf_t *b, const char *id, double median, double mad, double overall) {
  TH_OK(tq_buf_printf(b,
                      "{\"id\":\"s+%s\",\"name\":\"%s\",\"classname\":\"s\",\"outcome\":\"passed\","
                      "\"wall_time\":%.9f,\"wall_time_stats\":{\"n\":5,\"min\":%.9f,\"max\":%.9f,"
                      "\"median\":%.9f,\"mean\":%.9f,\"stddev\":0,\"mad\":%.9f,\"ci95_low\":0,"
                      "\"ci95_high\":0},\"metrics\":{\"OVERALL\":%g,\"DMA\":4},"
                      "\"properties\":{\"target\":\"sim\"}}\n",
                      id, id, median, median, median, median, median, mad, overall));
}

static tqh_baseline_t *load(const char *dir, const char *name, const char *text) {
  char *p = th_path(dir, name);
  th_write(p, text);
  tqh_baseline_t *b = NULL;
  TH_OK(tqh_baseline_load(p, NULL, NULL, &b));
  free(p);
  return b;
}

/* The record of test `name` in a baseline loaded from a journal (the "now" side). */
static tqh_test_record_t record_of(tqh_baseline_t *now, const char *name) {
  tqh_test_record_t probe;
  memset(&probe, 0, sizeof(probe));
  probe.classname = "s";
  probe.name = name;
  (void)now;
  return probe;
}

START_TEST(simulator_gates_deterministic_metrics_and_shows_wall_time) {
  char *dir = th_tmpdir();
  tq_buf_t a, c;
  tq_buf_init(&a, 0);
  tq_buf_init(&c, 0);
  line(&a, "noisy", 0.001, 0.0001, 18);
  line(&a, "quiet", 0.001, 0, 18);
  line(&a, "fast", 0.001, 0, 18);
  line(&c, "noisy", 0.0015, 0.0001, 18); /* wall time +50%: shown, not gated on the simulator */
  line(&c, "quiet", 0.001, 0, 40);       /* OVERALL +122.2% */
  line(&c, "fast", 0.001, 0, 9);         /* OVERALL -50% */
  line(&c, "new", 0.001, 0, 9);
  char *pa = th_path(dir, "a.jsonl"), *pc = th_path(dir, "c.jsonl");
  th_write(pa, a.data);
  th_write(pc, c.data);
  tqh_baseline_t *base = load(dir, "a.jsonl", a.data);
  tqh_records_t now;
  tqh_records_init(&now);
  TH_OK(tqh_journal_read(pc, &now, NULL, &(tqh_journal_read_t){0}));
  const tqh_outcome_t want[] = {TQH_OUTCOME_PASSED, TQH_OUTCOME_FAILED, TQH_OUTCOME_PASSED,
                                TQH_OUTCOME_PASSED};
  const char *note[] = {"within noise", "regressed: OVERALL +122.2%", "improved: OVERALL -50.0%",
                        "not in the baseline"};
  for (size_t i = 0; i < 4; i++) {
    tqh_test_record_t rec = now.items[i];
    tqh_baseline_verdict_t v;
    TH_OK(tqh_baseline_apply(base, -1, NULL, 0, &rec, &v));
    ck_assert_msg(rec.outcome == want[i], "%s: %s", rec.name, tqh_outcome_name(rec.outcome));
    ck_assert_str_eq(rec.properties[rec.property_count - 1].key, "baseline");
    ck_assert_str_eq(rec.properties[rec.property_count - 1].value, note[i]);
    if (want[i] == TQH_OUTCOME_FAILED) {
      ck_assert_str_eq(rec.failure_type, "regression");
      /* One line naming what regressed, then one aligned line per changed metric (units
       * scaled), the identical ones in one line. */
      ck_assert_str_eq(rec.message,
                       "regression: OVERALL +122.2%\n"
                       "  METRIC   BASELINE       NOW   CHANGE  VERDICT    WHY\n"
                       "  OVERALL  18.000µs  40.000µs  +122.2%  REGRESSED  +122.2% beyond the "
                       "floor 5.0% (deterministic)\n"
                       "  2 metrics identical: wall_time, DMA");
      ck_assert_ptr_nonnull(strstr(rec.text, "REGRESSED"));
      ck_assert_ptr_nonnull(strstr(rec.text, "  DMA  "));
    }
    tqh_baseline_verdict_deinit(&v);
  }
  /* The noisy test: wall time +50% is shown, not gated. */
  tqh_baseline_comparison_t cmp;
  int found = 0;
  TH_OK(tqh_baseline_compare_record(base, &now.items[0], -1, NULL, 0, &cmp, &found));
  ck_assert(found);
  ck_assert_str_eq(cmp.rows[0].metric, "wall_time");
  ck_assert_int_eq(cmp.rows[0].gate, TQH_GATE_NONE);
  ck_assert_int_eq(cmp.rows[0].change, TQH_BASELINE_NOT_GATED);
  ck_assert(fabs(cmp.rows[0].change_pct - 50.0) < 1e-6);
  tqh_baseline_comparison_deinit(&cmp);
  tqh_test_record_t missing = record_of(base, "nope");
  TH_OK(tqh_baseline_compare_record(base, &missing, -1, NULL, 0, &cmp, &found));
  ck_assert(!found);

  /* compare: the same table for two journals; one test regressed. */
  tq_buf_t out;
  tq_buf_init(&out, 0);
  size_t regressed = 9;
  TH_OK(tqh_baseline_compare_runs(pa, pc, NULL, NULL, &out, &regressed));
  ck_assert_uint_eq(regressed, 1);
  ck_assert_msg(strstr(out.data, "1 regressed, 1 improved, 1 not in the baseline"), "%s", out.data);
  ck_assert_msg(strstr(out.data, "\ns/new    not in the baseline\n"), "%s", out.data);
  ck_assert_msg(strstr(out.data, "\ns/quiet  2 metrics identical: wall_time, DMA\n"), "%s", out.data);
  tq_buf_deinit(&out);
  free(pa);
  free(pc);

  double f = 0;
  TH_OK(tqh_baseline_parse_floor("2.5%", &f));
  ck_assert(f == 2.5);
  tq_status_t st = tqh_baseline_parse_floor("x", &f);
  ck_assert_ptr_nonnull(st);
  tq_status_free(st);
  tqh_baseline_t *none = NULL;
  st = tqh_baseline_load(dir, NULL, NULL, &none); /* a folder without a journal */
  ck_assert_int_eq(tq_status_code(st), TQ_NOT_FOUND);
  tq_status_free(st);
  st = tqh_baseline_load("history", NULL, NULL, &none); /* no history to use */
  ck_assert_int_eq(tq_status_code(st), TQ_INVALID_ARGUMENT);
  tq_status_free(st);
  st = tqh_baseline_load("history:0", NULL, NULL, &none);
  ck_assert_int_eq(tq_status_code(st), TQ_INVALID_ARGUMENT);
  tq_status_free(st);

  tqh_baseline_destroy(base);
  tqh_records_deinit(&now);
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
    TH_OK(tqh_baseline_compare(NULL, &base, &now, NULL, 0, &c));
    ck_assert_uint_eq(c.count, cases[i].rows);
    if (c.count) {
      ck_assert_str_eq(c.rows[0].metric, "estimated_cycles");
      ck_assert_str_eq(c.rows[0].unit, "cycles");
      ck_assert(c.rows[0].base == 1000 && c.rows[0].now == (double)cases[i].now);
      ck_assert(c.rows[0].floor_pct == 5.0);
      ck_assert_int_eq(c.rows[0].change, cases[i].change);
    }
    if (cases[i].change == TQH_BASELINE_REGRESSED) {
      tq_buf_t msg;
      tq_buf_init(&msg, 0);
      TH_OK(tqh_baseline_format_message(&c, &msg));
      ck_assert_str_eq(msg.data,
                       "regression: estimated_cycles +6.0%\n"
                       "  METRIC               BASELINE          NOW  CHANGE  VERDICT    WHY\n"
                       "  estimated_cycles  1000 cycles  1060 cycles   +6.0%  REGRESSED  +6.0% "
                       "beyond the floor 5.0% (deterministic)");
      tq_buf_deinit(&msg);
    }
    tqh_baseline_comparison_deinit(&c);
  }
}
END_TEST

/* OVERALL 18 us -> 19.5 us (+8.3%): the floor decides. */
START_TEST(apply_uses_the_tests_floor_over_the_baselines) {
  char *dir = th_tmpdir();
  char *pa = th_path(dir, "a.jsonl"), *pc = th_path(dir, "c.jsonl");
  tq_buf_t a, c;
  tq_buf_init(&a, 0);
  tq_buf_init(&c, 0);
  line(&a, "t", 0.001, 0, 18);
  line(&c, "t", 0.001, 0, 19.5);
  th_write(pa, a.data);
  th_write(pc, c.data);
  tqh_baseline_options_t loaded;
  tqh_baseline_options_initialize(&loaded);
  loaded.floor_pct = 20; /* the run-wide floor the baseline was loaded with */
  tqh_baseline_t *base = NULL;
  TH_OK(tqh_baseline_load(pa, &loaded, NULL, &base));
  tqh_records_t now;
  tqh_records_init(&now);
  TH_OK(tqh_journal_read(pc, &now, NULL, &(tqh_journal_read_t){0}));
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
    tqh_test_record_t rec = now.items[0];
    tqh_baseline_verdict_t v;
    TH_OK(tqh_baseline_apply(base, cases[i].floor, NULL, 0, &rec, &v));
    ck_assert_msg(rec.outcome == cases[i].outcome, "floor %g: %s %s %s", cases[i].floor,
                  tqh_outcome_name(rec.outcome), v.note, v.text);
    ck_assert_str_eq(rec.properties[rec.property_count - 1].value, cases[i].note);
    if (cases[i].outcome == TQH_OUTCOME_FAILED) {
      char want[128];
      snprintf(want, sizeof(want), "OVERALL  18.000µs  19.500µs   +8.3%%  REGRESSED  +8.3%% "
               "beyond the floor %.1f%% (deterministic)", cases[i].floor);
      ck_assert_msg(strstr(rec.message, want), "%s\n%s", want, rec.message);
    }
    tqh_baseline_verdict_deinit(&v);
  }
  tqh_baseline_destroy(base);
  tqh_records_deinit(&now);
  tq_buf_deinit(&a);
  tq_buf_deinit(&c);
  free(pa);
  free(pc);
  th_rmtree(dir);
}
END_TEST

/* ---- Measured times: the floor, the U test, the between-run noise, too few samples ---------- */

/* A record on `target` whose wall time and device time have these samples (seconds). */
typedef struct timed_s {
  tqh_test_record_t r;
  tqh_property_t prop;
} timed_t;

static void timed(timed_t *t, const char *target, const double *s, size_t n) {
  memset(t, 0, sizeof(*t));
  t->r.id = t->r.name = "t";
  t->r.classname = "s";
  t->r.outcome = TQH_OUTCOME_PASSED;
  t->prop = (tqh_property_t){"target", target};
  t->r.properties = &t->prop;
  t->r.property_count = 1;
  t->r.has_wall_time = 1;
  TH_OK(tqh_stats_compute(s, n, &t->r.wall_stats));
  t->r.wall_time_s = t->r.wall_stats.median;
  t->r.wall_samples = s;
  t->r.wall_sample_count = n;
  if (strcmp(target, "sim") != 0) {
    t->r.has_device_time = 1;
    t->r.device_stats = t->r.wall_stats;
    t->r.device_samples = s;
    t->r.device_sample_count = n;
  }
}

static const double k_base[] = {1.00, 1.01, 0.99, 1.02, 0.98};
static const double k_up20[] = {1.20, 1.21, 1.19, 1.22, 1.18};       /* +20%, apart */
static const double k_mixed[] = {0.97, 1.25, 0.99, 1.21, 1.20};      /* median +20%, overlaps */
static const double k_up3[] = {1.030, 1.031, 1.029, 1.032, 1.0305};  /* +3%, apart */
static const double k_four[] = {1.20, 1.21, 1.19, 1.22};             /* too few */

START_TEST(measured_times_need_every_condition) {
  static const char *const gate_wall[] = {"wall_time"};
  tqh_baseline_options_t o;
  tqh_baseline_options_initialize(&o);
  o.gate = gate_wall;
  o.gate_count = 1;
  const struct {
    const double *now;
    size_t n;
    const double *medians; /* earlier runs' medians; NULL: none */
    size_t runs;
    tqh_baseline_change_t change;
    const char *why;
  } cases[] = {
      {k_up20, 5, NULL, 0, TQH_BASELINE_REGRESSED,
       "+20.0% beyond the floor 5.0%; U test p=0.0079 < 0.01; between-run noise: 0 earlier "
       "runs, 3 needed"},
      {k_mixed, 5, NULL, 0, TQH_BASELINE_NOISE,
       "+20.0% beyond the floor 5.0%; U test p=0.45 >= 0.01; between-run noise: 0 earlier runs, "
       "3 needed"},
      {k_up3, 5, NULL, 0, TQH_BASELINE_NOISE,
       "+3.0% within the floor 5.0%; U test p=0.0079 < 0.01; between-run noise: 0 earlier runs, "
       "3 needed"},
      {k_four, 4, NULL, 0, TQH_BASELINE_INSUFFICIENT,
       "5 samples in the baseline, 4 now: 5 needed on each side"},
      /* Earlier runs' medians 0.9, 1.0, 1.2: mean 1.0333, s 0.15275; t(0.01, 2) = 9.9248
       * (tables): the interval 9.9248 * 0.15275 * sqrt(4/3) = 169.4% swallows +16.1%. */
      {k_up20, 5, (const double[]){0.9, 1.0, 1.2}, 3, TQH_BASELINE_NOISE,
       "+20.0% beyond the floor 5.0%; U test p=0.0079 < 0.01; +16.1% from the mean of 3 earlier "
       "runs, within their 99% prediction interval ±169.4%"},
      /* 0.98, 1.0, 1.02, 1.01: mean 1.0025, s 0.017078, t(0.01, 3) = 5.8409: ±11.1%. */
      {k_up20, 5, (const double[]){0.98, 1.0, 1.02, 1.01}, 4, TQH_BASELINE_REGRESSED,
       "+20.0% beyond the floor 5.0%; U test p=0.0079 < 0.01; +19.7% from the mean of 4 earlier "
       "runs, beyond their 99% prediction interval ±11.1%"},
      /* Up from the baseline run, but below the earlier runs (1.29 .. 1.31): not beyond them on
       * the side of the change. */
      {k_up20, 5, (const double[]){1.29, 1.30, 1.31}, 3, TQH_BASELINE_NOISE,
       "+20.0% beyond the floor 5.0%; U test p=0.0079 < 0.01; -7.7% from the mean of 3 earlier "
       "runs, within their 99% prediction interval ±8.8%"},
      /* Two earlier runs are not enough to measure the noise: they are not used. */
      {k_up20, 5, (const double[]){0.5, 1.5}, 2, TQH_BASELINE_REGRESSED,
       "+20.0% beyond the floor 5.0%; U test p=0.0079 < 0.01; between-run noise: 2 earlier "
       "runs, 3 needed"},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    timed_t b, n;
    timed(&b, "sim", k_base, 5);
    timed(&n, "sim", cases[i].now, cases[i].n);
    tqh_baseline_noise_t noise = {"wall_time", cases[i].medians, cases[i].runs};
    tqh_baseline_comparison_t c;
    TH_OK(tqh_baseline_compare(&o, &b.r, &n.r, &noise, 1, &c));
    ck_assert_uint_eq(c.count, 1);
    ck_assert_int_eq(c.rows[0].gate, TQH_GATE_STATS);
    ck_assert_msg(c.rows[0].change == cases[i].change, "case %zu: %s", i,
                  tqh_baseline_change_name(c.rows[0].change));
    tq_buf_t why;
    tq_buf_init(&why, 0);
    TH_OK(tqh_baseline_row_why(&c.rows[0], &why));
    ck_assert_str_eq(why.data, cases[i].why);
    tq_buf_deinit(&why);
    tqh_baseline_comparison_deinit(&c);
  }
}
END_TEST

START_TEST(boards_gate_device_time_and_show_the_rest) {
  timed_t b, n;
  timed(&b, "astra1", k_base, 5);
  timed(&n, "astra1", k_up20, 5);
  tqh_record_metric_t mb[] = {{"OVERALL", 100, NULL}}, mn[] = {{"OVERALL", 150, NULL}};
  b.r.metrics = mb;
  n.r.metrics = mn;
  b.r.metric_count = n.r.metric_count = 1;
  b.r.has_estimated_cycles = n.r.has_estimated_cycles = 1;
  b.r.estimated_cycles = 1000;
  n.r.estimated_cycles = 1200;
  tqh_baseline_comparison_t c;
  TH_OK(tqh_baseline_compare(NULL, &b.r, &n.r, NULL, 0, &c));
  ck_assert_uint_eq(c.count, 4);
  ck_assert_str_eq(c.rows[0].metric, "wall_time"); /* includes SSH: shown */
  ck_assert_int_eq(c.rows[0].change, TQH_BASELINE_NOT_GATED);
  ck_assert_str_eq(c.rows[1].metric, "device_time");
  ck_assert_int_eq(c.rows[1].change, TQH_BASELINE_REGRESSED);
  ck_assert_str_eq(c.rows[2].metric, "OVERALL"); /* one profiled run: shown */
  ck_assert_int_eq(c.rows[2].change, TQH_BASELINE_NOT_GATED);
  ck_assert_str_eq(c.rows[3].metric, "estimated_cycles");
  ck_assert_int_eq(c.rows[3].change, TQH_BASELINE_REGRESSED);
  ck_assert_uint_eq(c.regressions, 2);
  tqh_baseline_comparison_deinit(&c);
  /* Asked for, OVERALL is gated by the floor and wall_time statistically. */
  static const char *const gate[] = {"OVERALL", "wall_time"};
  tqh_baseline_options_t o;
  tqh_baseline_options_initialize(&o);
  o.gate = gate;
  o.gate_count = 2;
  TH_OK(tqh_baseline_compare(&o, &b.r, &n.r, NULL, 0, &c));
  ck_assert_int_eq(c.rows[0].change, TQH_BASELINE_REGRESSED);
  ck_assert_int_eq(c.rows[2].change, TQH_BASELINE_REGRESSED);
  ck_assert_uint_eq(c.regressions, 4);
  tqh_baseline_comparison_deinit(&c);
}
END_TEST

/* --baseline=history:K: the last K runs of the test, samples pooled, their medians the noise. */
START_TEST(history_baselines_pool_the_last_runs) {
  char *dir = th_tmpdir();
  char *path = th_path(dir, "h.sqlite");
  tqh_history_t *h = NULL;
  TH_OK(tqh_history_open(path, NULL, &h));
  /* Five earlier runs, medians 1.002 .. 1.042, OVERALL 100 then 120 (last). */
  for (int r = 0; r < 5; r++) {
    double s[5];
    for (int k = 0; k < 5; k++) s[k] = 1.0 + 0.01 * r + 0.001 * k;
    timed_t t;
    timed(&t, "astra1", s, 5);
    tqh_record_metric_t m[] = {{"OVERALL", r == 4 ? 120 : 100, NULL}};
    t.r.metrics = m;
    t.r.metric_count = 1;
    char id[16];
    snprintf(id, sizeof(id), "run%d", r);
    tqh_history_run_t run = {.run_id = id, .started_at = 100 + r};
    int added = 0;
    TH_OK(tqh_history_add_run(h, &run, &t.r, 1, &added));
  }
  static const char *const gate[] = {"OVERALL"};
  tqh_baseline_options_t o;
  tqh_baseline_options_initialize(&o);
  o.gate = gate;
  o.gate_count = 1;
  tqh_baseline_t *b = NULL;
  TH_OK(tqh_baseline_load("history:4", &o, h, &b));
  ck_assert_ptr_nonnull(strstr(tqh_baseline_describe(b), "last 4 runs"));
  timed_t now;
  tqh_record_metric_t m[] = {{"OVERALL", 120, NULL}};
  timed(&now, "astra1", k_up20, 5);
  now.r.metrics = m;
  now.r.metric_count = 1;
  tqh_baseline_comparison_t c;
  int found = 0;
  TH_OK(tqh_baseline_compare_record(b, &now.r, -1, NULL, 0, &c, &found));
  ck_assert(found);
  ck_assert_str_eq(c.rows[1].metric, "device_time");
  ck_assert_uint_eq(c.rows[1].n_base, 20); /* 4 runs x 5 samples */
  ck_assert_uint_eq(c.rows[1].earlier_runs, 4);
  /* The last 4: 1.012 .. 1.042, mean 1.027, s = sqrt(0.0005 / 3); t(0.01, 3) = 5.840909. */
  ck_assert_double_eq_tol(c.rows[1].run_mean, 1.027, 1e-9);
  ck_assert_double_eq_tol(c.rows[1].run_noise_pct,
                          5.840909 * sqrt(0.0005 / 3) * sqrt(1.25) / 1.027 * 100, 1e-4);
  ck_assert_int_eq(c.rows[1].change, TQH_BASELINE_REGRESSED);
  ck_assert_str_eq(c.rows[2].metric, "OVERALL"); /* the latest run's value */
  ck_assert(c.rows[2].base == 120 && c.rows[2].change == TQH_BASELINE_SAME);
  tqh_baseline_comparison_deinit(&c);
  /* A test the history never saw. */
  now.r.name = "other";
  TH_OK(tqh_baseline_compare_record(b, &now.r, -1, NULL, 0, &c, &found));
  ck_assert(!found);
  /* The run itself is not its own history. */
  now.r.name = "t";
  TH_OK(tqh_baseline_set_now(b, 103.5, NULL)); /* runs 0..3 only */
  TH_OK(tqh_baseline_compare_record(b, &now.r, -1, NULL, 0, &c, &found));
  ck_assert(found && c.rows[2].base == 100);
  tqh_baseline_comparison_deinit(&c);
  tqh_baseline_destroy(b);
  tqh_history_close(h);
  free(path);
  th_rmtree(dir);
}
END_TEST

Suite *baseline_suite(void) {
  Suite *s = suite_create("baseline");
  TCase *tc = tcase_create("baseline");
  tcase_add_test(tc, simulator_gates_deterministic_metrics_and_shows_wall_time);
  tcase_add_test(tc, estimated_cycles_compared_against_the_floor);
  tcase_add_test(tc, apply_uses_the_tests_floor_over_the_baselines);
  tcase_add_test(tc, measured_times_need_every_condition);
  tcase_add_test(tc, boards_gate_device_time_and_show_the_rest);
  tcase_add_test(tc, history_baselines_pool_the_last_runs);
  suite_add_tcase(s, tc);
  return s;
}
