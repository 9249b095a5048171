/* Baselines (baseline.h): a run's tests compared with the same tests of an earlier run. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "results_internal.h"
#include "torq/base/alloc.h"
#include "torq/harness/baseline.h"

void tqh_baseline_options_initialize(tqh_baseline_options_t *options) {
  options->floor_pct = 5.0;
  options->k = 3.0;
}

const char *tqh_baseline_change_name(tqh_baseline_change_t change) {
  switch (change) {
    case TQH_BASELINE_SAME: return "same";
    case TQH_BASELINE_NOISE: return "within noise";
    case TQH_BASELINE_IMPROVED: return "improved";
    case TQH_BASELINE_REGRESSED: return "REGRESSED";
  }
  return "?";
}

static double noise_pct(const tqh_baseline_options_t *o, const tqh_stats_t *s) {
  return s->median > 0 ? o->k * 100.0 * s->mad / s->median : 0;
}

static void classify(tqh_baseline_row_t *row) {
  if (row->now == row->base) {
    row->change_pct = 0;
    row->change = TQH_BASELINE_SAME;
    return;
  }
  row->change_pct = row->base != 0 ? (row->now - row->base) / fabs(row->base) * 100.0
                                   : (row->now > 0 ? INFINITY : -INFINITY);
  if (row->change_pct > row->threshold_pct)
    row->change = TQH_BASELINE_REGRESSED;
  else if (row->change_pct < -row->threshold_pct)
    row->change = TQH_BASELINE_IMPROVED;
  else
    row->change = TQH_BASELINE_NOISE;
}

tq_status_t tqh_baseline_compare(const tqh_baseline_options_t *options,
                                 const tqh_test_record_t *base, const tqh_test_record_t *now,
                                 tqh_baseline_comparison_t *out) {
  memset(out, 0, sizeof(*out));
  tqh_baseline_options_t defaults;
  tqh_baseline_options_initialize(&defaults);
  if (!options) options = &defaults;
  out->rows = tq_calloc(now->metric_count + 3, sizeof(*out->rows));
  if (!out->rows) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory comparing with the baseline");
  if (base->has_wall_time && now->has_wall_time) {
    tqh_baseline_row_t *row = &out->rows[out->count++];
    snprintf(row->metric, sizeof(row->metric), "wall_time");
    row->unit = "us";
    row->base = base->wall_stats.median * 1e6;
    row->now = now->wall_stats.median * 1e6;
    double t = options->floor_pct;
    double nb = noise_pct(options, &base->wall_stats), nn = noise_pct(options, &now->wall_stats);
    if (nb > t) t = nb;
    if (nn > t) t = nn;
    row->threshold_pct = t;
    classify(row);
  }
  for (size_t i = 0; i < now->metric_count; i++) {
    const char *name = now->metrics[i].name ? now->metrics[i].name : "";
    for (size_t j = 0; j < base->metric_count; j++) {
      if (!base->metrics[j].name || strcmp(base->metrics[j].name, name) != 0) continue;
      tqh_baseline_row_t *row = &out->rows[out->count++];
      snprintf(row->metric, sizeof(row->metric), "%s", name);
      row->unit = "us";
      row->base = base->metrics[j].us;
      row->now = now->metrics[i].us;
      row->threshold_pct = options->floor_pct;
      classify(row);
      break;
    }
  }
  if (base->has_estimated_cycles && now->has_estimated_cycles) {
    tqh_baseline_row_t *row = &out->rows[out->count++];
    snprintf(row->metric, sizeof(row->metric), "estimated_cycles");
    row->unit = "cycles";
    row->base = (double)base->estimated_cycles;
    row->now = (double)now->estimated_cycles;
    row->threshold_pct = options->floor_pct;
    classify(row);
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

static void format_value(double v, const char *unit, char *buf, size_t size) {
  if (v == floor(v) && fabs(v) < 1e15)
    snprintf(buf, size, "%.0f %s", v, unit);
  else
    snprintf(buf, size, "%.3f %s", v, unit);
}

static void format_change(double pct, char *buf, size_t size) {
  if (isinf(pct))
    snprintf(buf, size, "%s", pct > 0 ? "+inf%" : "-inf%");
  else
    snprintf(buf, size, "%+.1f%%", pct);
}

tq_status_t tqh_baseline_format_message(const tqh_baseline_comparison_t *c, tq_buf_t *out) {
  int first = 1;
  for (size_t i = 0; i < c->count; i++) {
    const tqh_baseline_row_t *r = &c->rows[i];
    if (r->change != TQH_BASELINE_REGRESSED) continue;
    char b[48], n[48], ch[32];
    format_value(r->base, r->unit, b, sizeof(b));
    format_value(r->now, r->unit, n, sizeof(n));
    format_change(r->change_pct, ch, sizeof(ch));
    TQ_TRY(tq_buf_printf(out, "%s%s: baseline %s, now %s (%s, threshold %.1f%%)",
                         first ? "regression: " : "; ", r->metric, b, n, ch, r->threshold_pct));
    first = 0;
  }
  return NULL;
}

tq_status_t tqh_baseline_format_rows(const char *test_id, const tqh_baseline_comparison_t *c,
                                     int all, tq_buf_t *out) {
  for (size_t i = 0; i < c->count; i++) {
    const tqh_baseline_row_t *r = &c->rows[i];
    if (!all && i > 0 && r->change == TQH_BASELINE_SAME && strcmp(r->metric, "wall_time") != 0)
      continue;
    char b[48], n[48], ch[32];
    format_value(r->base, r->unit, b, sizeof(b));
    format_value(r->now, r->unit, n, sizeof(n));
    format_change(r->change_pct, ch, sizeof(ch));
    TQ_TRY(tq_buf_printf(out, "%-32s %-18s %16s %16s %9s %9.1f%%  %s\n", test_id, r->metric, b, n,
                         ch, r->threshold_pct, tqh_baseline_change_name(r->change)));
  }
  return NULL;
}

static tq_status_t format_header(tq_buf_t *out) {
  return tq_buf_printf(out, "%-32s %-18s %16s %16s %9s %10s  %s\n", "TEST", "METRIC", "BASELINE",
                       "NOW", "CHANGE", "THRESHOLD", "VERDICT");
}

/* ---- A loaded baseline ------------------------------------------------------------------- */

struct tqh_baseline_s {
  tqh_baseline_options_t options;
  tqh_records_t records;
  tqh_records_index_t index; /* every finished test looks itself up: by id, not a scan */
  char *problems;            /* the journal's lines that were skipped, named; NULL: none */
};

tq_status_t tqh_baseline_load(const char *path, const tqh_baseline_options_t *options,
                              tqh_baseline_t **out) {
  *out = NULL;
  tqh_baseline_t *b = tq_calloc(1, sizeof(*b));
  if (!b) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory loading the baseline");
  if (options)
    b->options = *options;
  else
    tqh_baseline_options_initialize(&b->options);
  tqh_records_init(&b->records);
  struct stat sb;
  tq_buf_t journal;
  tq_buf_init(&journal, 0);
  tq_status_t st = NULL;
  if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode))
    st = tq_buf_append_cstr(&journal, path);
  else
    st = tq_buf_printf(&journal, "%s/journal.jsonl", path);
  if (!st && stat(journal.data, &sb) != 0)
    st = TQ_STATUS(TQ_NOT_FOUND, "baseline %s: no journal (%s): %s", path, journal.data,
                   strerror(errno));
  tqh_journal_read_t info;
  tqh_diags_t diags;
  tqh_diags_init(&diags);
  if (!st) st = tqh_journal_read(journal.data, &b->records, &diags, &info);
  if (!st && diags.count) {
    tq_buf_t text;
    tq_buf_init(&text, 0);
    st = tqh_diags_format(&diags, &text);
    if (!st && !(b->problems = tq_buf_detach(&text)))
      st = TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory loading the baseline");
    tq_buf_deinit(&text);
  }
  tqh_diags_deinit(&diags);
  if (!st) st = tqh_records_index(&b->records, &b->index);
  if (st) st = tq_status_annotate(st, "while loading the baseline %s", path);
  tq_buf_deinit(&journal);
  if (st) {
    tqh_baseline_destroy(b);
    return st;
  }
  *out = b;
  return NULL;
}

void tqh_baseline_destroy(tqh_baseline_t *baseline) {
  if (!baseline) return;
  tqh_records_index_deinit(&baseline->index);
  tqh_records_deinit(&baseline->records);
  tq_free(baseline->problems);
  tq_free(baseline);
}

const char *tqh_baseline_problems(const tqh_baseline_t *baseline) {
  return baseline->problems;
}

const tqh_test_record_t *tqh_baseline_find(const tqh_baseline_t *baseline, const char *id) {
  return tqh_records_find(&baseline->index, id);
}

const tqh_baseline_options_t *tqh_baseline_options(const tqh_baseline_t *baseline) {
  return &baseline->options;
}

void tqh_baseline_verdict_init(tqh_baseline_verdict_t *v) { memset(v, 0, sizeof(*v)); }

void tqh_baseline_verdict_deinit(tqh_baseline_verdict_t *v) {
  tq_free(v->message);
  tq_free(v->text);
  tq_free(v->note);
  tq_free(v->log);
  tq_free(v->properties);
  memset(v, 0, sizeof(*v));
}

static char *detach(tq_buf_t *b) {
  char *s = tq_buf_detach(b);
  tq_buf_deinit(b);
  return s ? s : tq_strndup("", 0);
}

/* "OVERALL -20.0%, wall_time -8.1%" for the rows of `change`. */
static tq_status_t list_rows(const tqh_baseline_comparison_t *c, tqh_baseline_change_t change,
                             tq_buf_t *out) {
  int first = 1;
  for (size_t i = 0; i < c->count; i++) {
    if (c->rows[i].change != change) continue;
    char ch[32];
    format_change(c->rows[i].change_pct, ch, sizeof(ch));
    TQ_TRY(tq_buf_printf(out, "%s%s %s", first ? "" : ", ", c->rows[i].metric, ch));
    first = 0;
  }
  return NULL;
}

tq_status_t tqh_baseline_apply(const tqh_baseline_t *baseline, double floor_pct,
                               tqh_test_record_t *record, tqh_baseline_verdict_t *v) {
  tqh_baseline_verdict_init(v);
  if (record->outcome == TQH_OUTCOME_NOT_RUN || record->outcome == TQH_OUTCOME_SKIPPED)
    return NULL;
  const tqh_test_record_t *base = tqh_baseline_find(baseline, record->id);
  tq_buf_t note, log, msg, text;
  tq_buf_init(&note, 0);
  tq_buf_init(&log, 0);
  tq_buf_init(&msg, 0);
  tq_buf_init(&text, 0);
  tq_status_t st = NULL;
  tqh_baseline_comparison_t c;
  memset(&c, 0, sizeof(c));
  if (!base) {
    st = tq_buf_append_cstr(&note, "not in the baseline");
    if (!st) st = tq_buf_printf(&log, "%s: not in the baseline\n", record->id);
  } else {
    v->found = 1;
    tqh_baseline_options_t options = baseline->options;
    if (floor_pct >= 0) options.floor_pct = floor_pct;
    st = tqh_baseline_compare(&options, base, record, &c);
    v->regressions = c.regressions;
    v->improvements = c.improvements;
    if (!st) st = format_header(&text);
    if (!st) st = tqh_baseline_format_rows(record->id, &c, 0, &text);
    if (!st && c.regressions) {
      st = tq_buf_append_cstr(&note, "regressed: ");
      if (!st) st = list_rows(&c, TQH_BASELINE_REGRESSED, &note);
      if (!st) st = tqh_baseline_format_message(&c, &msg);
    }
    if (!st && c.improvements) {
      st = tq_buf_append_cstr(&note, c.regressions ? "; improved: " : "improved: ");
      if (!st) st = tq_buf_printf(&log, "%s: improved against the baseline: ", record->id);
      if (!st) st = list_rows(&c, TQH_BASELINE_IMPROVED, &note);
      if (!st) st = list_rows(&c, TQH_BASELINE_IMPROVED, &log);
      if (!st) st = tq_buf_putc(&log, '\n');
    }
    if (!st && !c.regressions && !c.improvements) {
      int changed = 0;
      for (size_t i = 0; i < c.count; i++) changed |= c.rows[i].change != TQH_BASELINE_SAME;
      st = tq_buf_append_cstr(&note, changed ? "within noise" : "same");
    }
  }
  if (!st) {
    v->properties = tq_calloc(record->property_count + 1, sizeof(*v->properties));
    if (!v->properties) st = TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  }
  if (!st) {
    v->note = detach(&note);
    v->log = log.len ? detach(&log) : NULL;
    v->text = text.len ? detach(&text) : NULL;
    v->message = msg.len ? detach(&msg) : NULL;
    if (!v->note) st = TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  }
  tq_buf_deinit(&note);
  tq_buf_deinit(&log);
  tq_buf_deinit(&msg);
  tq_buf_deinit(&text);
  tqh_baseline_comparison_deinit(&c);
  if (st) {
    tqh_baseline_verdict_deinit(v);
    return st;
  }
  for (size_t i = 0; i < record->property_count; i++) v->properties[i] = record->properties[i];
  v->properties[record->property_count] = (tqh_property_t){"baseline", v->note};
  record->properties = v->properties;
  record->property_count++;
  if (v->regressions && record->outcome == TQH_OUTCOME_PASSED && v->message) {
    record->outcome = TQH_OUTCOME_FAILED;
    record->failure_type = "regression";
    record->message = v->message;
    record->text = v->text;
  }
  return NULL;
}

tq_status_t tqh_baseline_compare_runs(const char *run_a, const char *run_b,
                                      const tqh_baseline_options_t *options, tq_buf_t *out,
                                      size_t *out_regressions) {
  *out_regressions = 0;
  tqh_baseline_t *a = NULL, *b = NULL;
  TQ_TRY(tqh_baseline_load(run_a, options, &a));
  tq_status_t st = tqh_baseline_load(run_b, options, &b);
  size_t compared = 0, improved = 0, missing = 0, regressed = 0;
  if (!st)
    st = tq_buf_printf(out, "Baseline %s, now %s (floor %.1f%%, k %g)\n", run_a, run_b,
                       a->options.floor_pct, a->options.k);
  /* Lines of either journal that could not be read: their tests are not compared. */
  if (!st && a->problems) st = tq_buf_append_cstr(out, a->problems);
  if (!st && b->problems) st = tq_buf_append_cstr(out, b->problems);
  if (!st) st = format_header(out);
  size_t *latest = NULL, count = 0; /* a later line of the same test wins */
  if (!st) st = tqh_records_latest(&b->records, &latest, &count);
  for (size_t i = 0; !st && i < count; i++) {
    const tqh_test_record_t *now = &b->records.items[latest[i]];
    const tqh_test_record_t *base = tqh_baseline_find(a, now->id);
    if (!base) {
      missing++;
      st = tq_buf_printf(out, "%-32s (not in the baseline)\n", now->id);
      continue;
    }
    tqh_baseline_comparison_t c;
    st = tqh_baseline_compare(&a->options, base, now, &c);
    if (!st) st = tqh_baseline_format_rows(now->id, &c, 0, out);
    compared++;
    if (c.regressions) regressed++;
    if (c.improvements) improved++;
    tqh_baseline_comparison_deinit(&c);
  }
  if (!st)
    st = tq_buf_printf(out, "%zu test%s compared: %zu regressed, %zu improved, %zu not in the "
                            "baseline\n",
                       compared, compared == 1 ? "" : "s", regressed, improved, missing);
  tq_free(latest);
  tqh_baseline_destroy(a);
  tqh_baseline_destroy(b);
  *out_regressions = regressed;
  return st;
}
