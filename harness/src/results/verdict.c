/* The verdict of each metric of a test against its baseline (baseline.h): what is gated where,
 * the floor, the U test and the between-run noise, and the words that say which held. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results_internal.h"
#include "torq/base/alloc.h"
#include "torq/harness/baseline.h"
#include "torq/harness/overview.h"

void tqh_baseline_options_initialize(tqh_baseline_options_t *options) {
  memset(options, 0, sizeof(*options));
  options->floor_pct = 5.0;
  options->alpha = 0.01;
  options->min_samples = 5;
  options->min_runs = 3;
  options->runs = 10;
}

const char *tqh_baseline_change_name(tqh_baseline_change_t change) {
  switch (change) {
    case TQH_BASELINE_SAME: return "same";
    case TQH_BASELINE_NOISE: return "within noise";
    case TQH_BASELINE_IMPROVED: return "improved";
    case TQH_BASELINE_REGRESSED: return "REGRESSED";
    case TQH_BASELINE_INSUFFICIENT: return "insufficient samples";
    case TQH_BASELINE_NOT_GATED: return "not gated";
  }
  return "?";
}

void tqh_baseline_format_value(double v, const char *unit, char out[48]) {
  if (!isfinite(v) || v < 0 || v > 1e15) {
    snprintf(out, 48, "%g %s", v, unit);
  } else if (!strcmp(unit, "s") || !strcmp(unit, "us")) {
    char d[32];
    tqh_format_duration((uint64_t)llround(v * (unit[0] == 's' ? 1e9 : 1e3)), d);
    snprintf(out, 48, "%s", d);
  } else {
    snprintf(out, 48, "%.0f %s", v, unit);
  }
}

static int requested(const tqh_baseline_options_t *o, const char *metric) {
  for (size_t i = 0; o->gate && i < o->gate_count; i++)
    if (o->gate[i] && !strcmp(o->gate[i], metric)) return 1;
  return 0;
}

static int on_board(const tqh_test_record_t *r) {
  tqh_history_key_t k = tqh_history_key_of(r);
  return strcmp(k.target, "sim") != 0;
}

static void set_change(tqh_baseline_row_t *row) {
  if (row->now == row->base)
    row->change_pct = 0;
  else if (row->base != 0)
    row->change_pct = (row->now - row->base) / fabs(row->base) * 100.0;
  else
    row->change_pct = row->now > 0 ? INFINITY : -INFINITY;
  row->beyond_floor = fabs(row->change_pct) > row->floor_pct;
}

/* A row gated by the floor alone (or not gated). */
static void decide_floor(tqh_baseline_row_t *row) {
  set_change(row);
  if (row->now == row->base)
    row->change = TQH_BASELINE_SAME;
  else if (row->gate == TQH_GATE_NONE)
    row->change = TQH_BASELINE_NOT_GATED;
  else if (row->beyond_floor)
    row->change = row->change_pct > 0 ? TQH_BASELINE_REGRESSED : TQH_BASELINE_IMPROVED;
  else
    row->change = TQH_BASELINE_NOISE;
}

/* The between-run noise: the (1 - alpha) prediction interval of the next run's median from the
 * earlier runs' medians x_1..x_n, mean m and standard deviation s,
 *   m +- t(alpha, n - 1) s sqrt(1 + 1/n)
 * (Student's t, two-sided), as a percentage of m; and where `now` lies from m, percent. Unlike
 * the range of the medians, its false-alarm rate does not grow as the history shortens. */
static void run_noise(const tqh_baseline_options_t *o, const double *medians, size_t n, double now,
                      tqh_baseline_row_t *row) {
  double sum = 0, ss = 0;
  for (size_t i = 0; i < n; i++) sum += medians[i];
  double mean = sum / (double)n;
  for (size_t i = 0; i < n; i++) ss += (medians[i] - mean) * (medians[i] - mean);
  double sd = n > 1 ? sqrt(ss / (double)(n - 1)) : 0;
  double half = tqh_stats_t_two_sided(o->alpha, n - 1) * sd * sqrt(1 + 1.0 / (double)n);
  row->run_mean = mean;
  if (!(mean > 0) || !isfinite(half)) { /* no scale to compare with: never beyond */
    row->run_noise_pct = INFINITY;
    row->run_shift_pct = 0;
    return;
  }
  row->run_noise_pct = half / mean * 100.0;
  row->run_shift_pct = (now - mean) / mean * 100.0;
}

/* Enough earlier runs to measure the between-run noise (at least two, whatever min_runs). */
static int measures_noise(const tqh_baseline_row_t *r) {
  return r->earlier_runs >= r->min_runs && r->earlier_runs >= 2;
}

/* The move is beyond the between-run noise, in the direction of the change. */
static int beyond_run_noise(const tqh_baseline_row_t *r) {
  if (r->change_pct > 0) return r->run_shift_pct > r->run_noise_pct;
  return r->run_shift_pct < -r->run_noise_pct;
}

/* A measured time: medians, samples, the U test, the noise of earlier runs. */
static tq_status_t decide_stats(const tqh_baseline_options_t *o, tqh_baseline_row_t *row,
                                const double *bs, size_t bn, const double *ns, size_t nn,
                                const tqh_baseline_noise_t *noise) {
  row->n_base = bs ? bn : 0;
  row->n_now = ns ? nn : 0;
  row->alpha = o->alpha;
  row->min_runs = o->min_runs;
  if (noise) {
    row->earlier_runs = noise->count;
    if (noise->count >= o->min_runs && noise->count >= 2)
      run_noise(o, noise->medians, noise->count, row->now, row);
  }
  if (row->gate == TQH_GATE_NONE) {
    decide_floor(row);
    return NULL;
  }
  set_change(row);
  if (row->n_base < o->min_samples || row->n_now < o->min_samples) {
    row->change = TQH_BASELINE_INSUFFICIENT;
    return NULL;
  }
  tqh_utest_t u;
  TQ_TRY(tqh_stats_utest(bs, bn, ns, nn, &u));
  row->tested = 1;
  row->p = u.p;
  int differ = u.p < o->alpha;
  int beyond_runs = !measures_noise(row) || beyond_run_noise(row);
  if (row->beyond_floor && differ && beyond_runs)
    row->change = row->change_pct > 0 ? TQH_BASELINE_REGRESSED : TQH_BASELINE_IMPROVED;
  else
    row->change = row->now == row->base ? TQH_BASELINE_SAME : TQH_BASELINE_NOISE;
  return NULL;
}

static const tqh_baseline_noise_t *noise_of(const tqh_baseline_noise_t *noise, size_t count,
                                            const char *metric) {
  for (size_t i = 0; noise && i < count; i++)
    if (noise[i].metric && !strcmp(noise[i].metric, metric)) return &noise[i];
  return NULL;
}

static tqh_baseline_row_t *new_row(tqh_baseline_comparison_t *out, const char *metric,
                                   const char *unit, const tqh_baseline_options_t *o) {
  tqh_baseline_row_t *row = &out->rows[out->count++];
  snprintf(row->metric, sizeof(row->metric), "%s", metric);
  row->unit = unit;
  row->floor_pct = o->floor_pct;
  row->alpha = o->alpha;
  row->min_runs = o->min_runs;
  row->min_samples = o->min_samples;
  return row;
}

tq_status_t tqh_baseline_compare(const tqh_baseline_options_t *options,
                                 const tqh_test_record_t *base, const tqh_test_record_t *now,
                                 const tqh_baseline_noise_t *noise, size_t noise_count,
                                 tqh_baseline_comparison_t *out) {
  memset(out, 0, sizeof(*out));
  tqh_baseline_options_t defaults;
  tqh_baseline_options_initialize(&defaults);
  const tqh_baseline_options_t *o = options ? options : &defaults;
  out->rows = tq_calloc(now->metric_count + 4, sizeof(*out->rows));
  if (!out->rows) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory comparing with the baseline");
  int board = on_board(now);
  tq_status_t st = NULL;
  if (base->has_wall_time && now->has_wall_time) {
    tqh_baseline_row_t *row = new_row(out, "wall_time", "s", o);
    row->base = base->wall_stats.median;
    row->now = now->wall_stats.median;
    row->gate = requested(o, "wall_time") ? TQH_GATE_STATS : TQH_GATE_NONE;
    st = decide_stats(o, row, base->wall_samples, base->wall_sample_count, now->wall_samples,
                      now->wall_sample_count, noise_of(noise, noise_count, "wall_time"));
  }
  if (!st && base->has_device_time && now->has_device_time) {
    tqh_baseline_row_t *row = new_row(out, "device_time", "s", o);
    row->base = base->device_stats.median;
    row->now = now->device_stats.median;
    row->gate = TQH_GATE_STATS;
    st = decide_stats(o, row, base->device_samples, base->device_sample_count,
                      now->device_samples, now->device_sample_count,
                      noise_of(noise, noise_count, "device_time"));
  }
  for (size_t i = 0; !st && i < now->metric_count; i++) {
    const char *name = now->metrics[i].name ? now->metrics[i].name : "";
    for (size_t j = 0; j < base->metric_count; j++) {
      if (!base->metrics[j].name || strcmp(base->metrics[j].name, name) != 0) continue;
      tqh_baseline_row_t *row = new_row(out, name, "us", o);
      row->base = base->metrics[j].us;
      row->now = now->metrics[i].us;
      /* On a board a profile metric is one measured run: shown, gated only on request. */
      row->gate = board && !requested(o, name) ? TQH_GATE_NONE : TQH_GATE_FLOOR;
      decide_floor(row);
      break;
    }
  }
  if (!st && base->has_estimated_cycles && now->has_estimated_cycles) {
    tqh_baseline_row_t *row = new_row(out, "estimated_cycles", "cycles", o);
    row->base = (double)base->estimated_cycles;
    row->now = (double)now->estimated_cycles;
    row->gate = TQH_GATE_FLOOR;
    decide_floor(row);
  }
  if (st) {
    tqh_baseline_comparison_deinit(out);
    return st;
  }
  for (size_t i = 0; i < out->count; i++) {
    if (out->rows[i].change == TQH_BASELINE_REGRESSED) out->regressions++;
    if (out->rows[i].change == TQH_BASELINE_IMPROVED) out->improvements++;
  }
  return NULL;
}

void tqh_baseline_comparison_deinit(tqh_baseline_comparison_t *c) {
  tq_free(c->rows);
  memset(c, 0, sizeof(*c));
}

static tq_status_t change_words(const tqh_baseline_row_t *r, tq_buf_t *out) {
  if (isinf(r->change_pct)) return tq_buf_append_cstr(out, r->change_pct > 0 ? "+inf%" : "-inf%");
  return tq_buf_printf(out, "%+.1f%%", r->change_pct);
}

tq_status_t tqh_baseline_row_why(const tqh_baseline_row_t *r, tq_buf_t *out) {
  if (r->gate == TQH_GATE_NONE) {
    if (!strcmp(r->metric, "wall_time"))
      return tq_buf_append_cstr(out, "host time: shown, not gated");
    return tq_buf_append_cstr(out, "one profiled run on a board: shown, not gated");
  }
  if (r->change == TQH_BASELINE_SAME && r->gate == TQH_GATE_FLOOR)
    return tq_buf_append_cstr(out, "identical");
  if (r->change == TQH_BASELINE_INSUFFICIENT)
    return tq_buf_printf(out, "%zu sample%s in the baseline, %zu now: %zu needed on each side",
                         r->n_base, r->n_base == 1 ? "" : "s", r->n_now, r->min_samples);
  TQ_TRY(change_words(r, out));
  TQ_TRY(tq_buf_printf(out, " %s the floor %.1f%%", r->beyond_floor ? "beyond" : "within",
                       r->floor_pct));
  if (r->gate == TQH_GATE_FLOOR) return tq_buf_append_cstr(out, " (deterministic)");
  if (r->tested)
    TQ_TRY(tq_buf_printf(out, "; U test p=%.2g %s %g", r->p, r->p < r->alpha ? "<" : ">=",
                         r->alpha));
  if (measures_noise(r))
    return tq_buf_printf(out, "; %+.1f%% from the mean of %zu earlier runs, %s their %g%% "
                              "prediction interval ±%.1f%%",
                         r->run_shift_pct, r->earlier_runs,
                         beyond_run_noise(r) ? "beyond" : "within", (1 - r->alpha) * 100,
                         r->run_noise_pct);
  size_t needed = r->min_runs > 2 ? r->min_runs : 2;
  return tq_buf_printf(out, "; between-run noise: %zu earlier run%s, %zu needed",
                       r->earlier_runs, r->earlier_runs == 1 ? "" : "s", needed);
}
