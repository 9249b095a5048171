/* Baselines (baseline.h): where a test's earlier values come from (a run's journal, or the last
 * K runs of the history), applying the verdicts to a finished test, and `compare`. The verdicts
 * themselves are verdict.c's, the tables baseline_format.c's. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "results_internal.h"
#include "torq/base/alloc.h"
#include "torq/base/file.h"
#include "torq/harness/baseline.h"
#include "torq/harness/diag.h"
#include "torq/harness/json.h"

struct tqh_baseline_s {
  tqh_baseline_options_t options;
  tqh_history_t *history; /* borrowed; may be NULL */
  int from_history;       /* "history[:K]": no records, the history is the baseline */
  tqh_records_t records;
  size_t *by_key; /* the last record of each test, sorted by suite and name */
  size_t key_count;
  double before;   /* earlier runs started before this (0: any) */
  char *exclude;   /* ... and are not this run */
  char *describe;
  char *problems; /* the journal's lines that were skipped, named; NULL: none */
};

/* ---- Records by suite and test name ---------------------------------------------------------- */

static int cmp_key(const tqh_test_record_t *a, const char *suite, const char *name) {
  int c = strcmp(a->classname ? a->classname : "", suite);
  return c ? c : strcmp(a->name ? a->name : "", name);
}

static int cmp_records(const void *x, const void *y, void *ctx) {
  const tqh_test_record_t *items = ctx;
  const tqh_test_record_t *a = &items[*(const size_t *)x], *b = &items[*(const size_t *)y];
  return cmp_key(a, b->classname ? b->classname : "", b->name ? b->name : "");
}

static tq_status_t index_records(tqh_baseline_t *b) {
  TQ_TRY(tqh_records_latest(&b->records, &b->by_key, &b->key_count));
  qsort_r(b->by_key, b->key_count, sizeof(*b->by_key), cmp_records, b->records.items);
  return NULL;
}

static const tqh_test_record_t *find(const tqh_baseline_t *b, const tqh_test_record_t *now) {
  const char *suite = now->classname ? now->classname : "", *name = now->name ? now->name : "";
  size_t lo = 0, hi = b->key_count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    const tqh_test_record_t *r = &b->records.items[b->by_key[mid]];
    int c = cmp_key(r, suite, name);
    if (!c) return r;
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return NULL;
}

/* ---- Loading --------------------------------------------------------------------------------- */

/* "history" or "history:K": 1 with *out_k (0: the default), else 0; -1 for a bad K. */
static int history_spec(const char *spec, size_t *out_k) {
  *out_k = 0;
  if (strncmp(spec, "history", 7) != 0 || (spec[7] && spec[7] != ':')) return 0;
  if (!spec[7]) return 1;
  char *end = NULL;
  errno = 0;
  long k = strtol(spec + 8, &end, 10);
  if (!spec[8] || *end || errno || k < 1 || k > 1000) return -1;
  *out_k = (size_t)k;
  return 1;
}

tq_status_t tqh_baseline_load(const char *spec, const tqh_baseline_options_t *options,
                              tqh_history_t *history, tqh_baseline_t **out) {
  *out = NULL;
  tqh_baseline_t *b = tq_calloc(1, sizeof(*b));
  if (!b) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory loading the baseline");
  if (options)
    b->options = *options;
  else
    tqh_baseline_options_initialize(&b->options);
  b->history = history;
  tqh_records_init(&b->records);
  size_t k = 0;
  int hs = history_spec(spec, &k);
  tq_status_t st = NULL;
  if (hs < 0) {
    st = TQ_STATUS(TQ_INVALID_ARGUMENT,
                   "baseline %s: expected history or history:K, K a number of runs from 1 to 1000",
                   spec);
  } else if (hs > 0) {
    if (!history)
      st = TQ_STATUS(TQ_INVALID_ARGUMENT,
                     "baseline %s needs the run history, and it is off (--no-history)", spec);
    b->from_history = 1;
    if (k) b->options.runs = k;
    b->describe = tq_strdup_printf("the history %s (last %zu runs of each test)",
                                   history ? tqh_history_path(history) : "", b->options.runs);
  } else {
    struct stat sb;
    tq_buf_t journal;
    tq_buf_init(&journal, 0);
    if (stat(spec, &sb) == 0 && S_ISREG(sb.st_mode))
      st = tq_buf_append_cstr(&journal, spec);
    else
      st = tq_buf_printf(&journal, "%s/journal.jsonl", spec);
    if (!st && stat(journal.data, &sb) != 0)
      st = TQ_STATUS(TQ_NOT_FOUND, "baseline %s: no journal (%s): %s", spec, journal.data,
                     strerror(errno));
    tqh_diags_t diags;
    tqh_diags_init(&diags);
    if (!st) st = tqh_journal_read(journal.data, &b->records, &diags, &(tqh_journal_read_t){0});
    if (!st && diags.count) {
      tq_buf_t text;
      tq_buf_init(&text, 0);
      st = tqh_diags_format(&diags, &text);
      if (!st && !(b->problems = tq_buf_detach(&text)))
        st = TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory loading the baseline");
      tq_buf_deinit(&text);
    }
    tqh_diags_deinit(&diags);
    if (!st) st = index_records(b);
    if (st) st = tq_status_annotate(st, "while loading the baseline %s", spec);
    tq_buf_deinit(&journal);
    b->describe = tq_strdup_printf("%s", spec);
  }
  if (!st && !b->describe) st = TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  if (st) {
    tqh_baseline_destroy(b);
    return st;
  }
  *out = b;
  return NULL;
}

void tqh_baseline_destroy(tqh_baseline_t *baseline) {
  if (!baseline) return;
  tq_free(baseline->by_key);
  tqh_records_deinit(&baseline->records);
  tq_free(baseline->exclude);
  tq_free(baseline->describe);
  tq_free(baseline->problems);
  tq_free(baseline);
}

const char *tqh_baseline_problems(const tqh_baseline_t *baseline) {
  return baseline->problems;
}

const tqh_baseline_options_t *tqh_baseline_options(const tqh_baseline_t *baseline) {
  return &baseline->options;
}

const char *tqh_baseline_describe(const tqh_baseline_t *baseline) { return baseline->describe; }

tq_status_t tqh_baseline_set_now(tqh_baseline_t *baseline, double before, const char *run_id) {
  baseline->before = before;
  tq_free(baseline->exclude);
  baseline->exclude = NULL;
  if (run_id && !(baseline->exclude = tq_strndup(run_id, strlen(run_id))))
    return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  return NULL;
}

/* ---- One test against the baseline ----------------------------------------------------------- */

/* The samples of `metric` in every entry, pooled, and each entry's median. */
static tq_status_t pool(tq_arena_t *a, const tqh_history_entry_t *e, size_t n, const char *metric,
                        double **out_samples, size_t *out_ns, double **out_medians,
                        size_t *out_nm) {
  size_t total = 0;
  for (size_t i = 0; i < n; i++) {
    const tqh_history_metric_t *m = tqh_history_entry_metric(&e[i], metric);
    if (m) total += m->sample_count;
  }
  *out_samples = tq_arena_calloc(a, total + 1, sizeof(double));
  *out_medians = tq_arena_calloc(a, n + 1, sizeof(double));
  if (!*out_samples || !*out_medians) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  *out_ns = *out_nm = 0;
  for (size_t i = 0; i < n; i++) {
    const tqh_history_metric_t *m = tqh_history_entry_metric(&e[i], metric);
    if (!m) continue;
    (*out_medians)[(*out_nm)++] = m->value;
    for (size_t k = 0; k < m->sample_count; k++) (*out_samples)[(*out_ns)++] = m->samples[k];
  }
  return NULL;
}

/* The baseline record of a history baseline: the measured times' samples pooled over the
 * entries, the deterministic metrics of the latest entry that has them. */
static tq_status_t synthesize(tq_arena_t *a, const tqh_history_entry_t *e, size_t n,
                              const tqh_test_record_t *now, double *const samples[2],
                              const size_t counts[2], tqh_test_record_t *out) {
  memset(out, 0, sizeof(*out));
  out->id = now->id;
  out->name = now->name;
  out->classname = now->classname;
  out->outcome = TQH_OUTCOME_PASSED;
  out->properties = now->properties;
  out->property_count = now->property_count;
  if (counts[0]) {
    out->has_wall_time = 1;
    TQ_TRY(tqh_stats_compute(samples[0], counts[0], &out->wall_stats));
    out->wall_time_s = out->wall_stats.median;
    out->wall_samples = samples[0];
    out->wall_sample_count = counts[0];
  }
  if (counts[1]) {
    out->has_device_time = 1;
    TQ_TRY(tqh_stats_compute(samples[1], counts[1], &out->device_stats));
    out->device_samples = samples[1];
    out->device_sample_count = counts[1];
  }
  const tqh_history_entry_t *last = NULL;
  for (size_t i = n; i-- > 0 && !last;)
    for (size_t k = 0; k < e[i].metric_count && !last; k++)
      if (strcmp(e[i].metrics[k].unit, "s") != 0) last = &e[i];
  if (!last) return NULL;
  tqh_record_metric_t *m = tq_arena_calloc(a, last->metric_count + 1, sizeof(*m));
  if (!m) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  /* In the order `now` lists them, so that the rows follow the trace's order. */
  for (size_t i = 0; i < now->metric_count; i++) {
    const tqh_history_metric_t *x =
        now->metrics[i].name ? tqh_history_entry_metric(last, now->metrics[i].name) : NULL;
    if (x && !strcmp(x->unit, "us")) m[out->metric_count++] = (tqh_record_metric_t){x->name, x->value, now->metrics[i].key};
  }
  out->metrics = m;
  const tqh_history_metric_t *c = tqh_history_entry_metric(last, "estimated_cycles");
  if (c && c->value >= 0) {
    out->has_estimated_cycles = 1;
    out->estimated_cycles = (uint64_t)c->value;
  }
  return NULL;
}

tq_status_t tqh_baseline_compare_record(tqh_baseline_t *b, const tqh_test_record_t *now,
                                        double floor_pct, const char *const *gate,
                                        size_t gate_count, tqh_baseline_comparison_t *out,
                                        int *out_found) {
  memset(out, 0, sizeof(*out));
  *out_found = 0;
  tqh_baseline_options_t o = b->options;
  if (floor_pct >= 0) o.floor_pct = floor_pct;
  if (gate) {
    o.gate = gate;
    o.gate_count = gate_count;
  }
  tq_arena_t arena;
  tq_arena_init(&arena, 0, 0);
  tqh_history_entry_t *e = NULL;
  size_t n = 0;
  tq_status_t st = NULL;
  if (b->history) {
    tqh_history_key_t key = tqh_history_key_of(now);
    st = tqh_history_entries(b->history, &key, o.runs, b->before, b->exclude, NULL, 0,
                             &arena, &e, &n);
  }
  static const char *const timed[2] = {"wall_time", "device_time"};
  double *samples[2] = {NULL, NULL}, *medians[2] = {NULL, NULL};
  size_t ns[2] = {0, 0}, nm[2] = {0, 0};
  for (int i = 0; !st && i < 2; i++)
    st = pool(&arena, e, n, timed[i], &samples[i], &ns[i], &medians[i], &nm[i]);
  tqh_baseline_noise_t noise[2] = {{timed[0], medians[0], nm[0]}, {timed[1], medians[1], nm[1]}};
  tqh_test_record_t synth;
  const tqh_test_record_t *base = NULL;
  if (!st && b->from_history && n) {
    st = synthesize(&arena, e, n, now, samples, ns, &synth);
    base = &synth;
  } else if (!st && !b->from_history) {
    base = find(b, now);
  }
  if (!st && base) {
    st = tqh_baseline_compare(&o, base, now, noise, 2, out);
    *out_found = !st;
  }
  tq_arena_deinit(&arena);
  return st;
}

/* ---- Applying it to a finished test ----------------------------------------------------------- */

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
    TQ_TRY(tq_buf_printf(out, "%s%s ", first ? "" : ", ", c->rows[i].metric));
    if (isinf(c->rows[i].change_pct))
      TQ_TRY(tq_buf_append_cstr(out, c->rows[i].change_pct > 0 ? "+inf%" : "-inf%"));
    else
      TQ_TRY(tq_buf_printf(out, "%+.1f%%", c->rows[i].change_pct));
    first = 0;
  }
  return NULL;
}

/* The test's table with every row and why. */
static tq_status_t full_table(const tqh_baseline_comparison_t *c, const char *describe,
                              tq_buf_t *out) {
  TQ_TRY(tq_buf_printf(out, "Against the baseline %s:\n", describe));
  tqh_baseline_table_t *t = NULL;
  TQ_TRY(tqh_baseline_table_create(&t));
  tq_status_t st = tqh_baseline_table_add(t, NULL, c, 1);
  if (!st) st = tqh_baseline_table_render(t, "  ", out);
  tqh_baseline_table_destroy(t);
  return st;
}

tq_status_t tqh_baseline_apply(tqh_baseline_t *baseline, double floor_pct,
                               const char *const *gate, size_t gate_count,
                               tqh_test_record_t *record, tqh_baseline_verdict_t *v) {
  tqh_baseline_verdict_init(v);
  if (record->outcome == TQH_OUTCOME_NOT_RUN || record->outcome == TQH_OUTCOME_SKIPPED)
    return NULL;
  tq_buf_t note, log, msg, text;
  tq_buf_init(&note, 0);
  tq_buf_init(&log, 0);
  tq_buf_init(&msg, 0);
  tq_buf_init(&text, 0);
  tqh_baseline_comparison_t c;
  int found = 0;
  tq_status_t st =
      tqh_baseline_compare_record(baseline, record, floor_pct, gate, gate_count, &c, &found);
  if (!st && !found) {
    st = tq_buf_append_cstr(&note, "not in the baseline");
    if (!st) st = tq_buf_printf(&log, "%s: not in the baseline\n", tqh_record_test_id(record));
  } else if (!st) {
    v->found = 1;
    v->regressions = c.regressions;
    v->improvements = c.improvements;
    st = full_table(&c, baseline->describe, &text);
    if (!st && c.regressions) {
      st = tq_buf_append_cstr(&note, "regressed: ");
      if (!st) st = list_rows(&c, TQH_BASELINE_REGRESSED, &note);
      if (!st) st = tqh_baseline_format_message(&c, &msg);
    }
    if (!st && c.improvements) {
      st = tq_buf_append_cstr(&note, c.regressions ? "; improved: " : "improved: ");
      if (!st) st = tq_buf_printf(&log, "%s: improved against the baseline: ",
                                  tqh_record_test_id(record));
      if (!st) st = list_rows(&c, TQH_BASELINE_IMPROVED, &note);
      if (!st) st = list_rows(&c, TQH_BASELINE_IMPROVED, &log);
      if (!st) st = tq_buf_putc(&log, '\n');
    }
    if (!st && !c.regressions && !c.improvements) {
      int changed = 0, insufficient = 0;
      for (size_t i = 0; i < c.count; i++) {
        changed |= c.rows[i].change == TQH_BASELINE_NOISE || c.rows[i].change == TQH_BASELINE_NOT_GATED;
        insufficient |= c.rows[i].change == TQH_BASELINE_INSUFFICIENT;
      }
      st = tq_buf_append_cstr(&note, changed ? "within noise" : "same");
      if (!st && insufficient) st = tq_buf_append_cstr(&note, " (insufficient samples)");
    }
    tqh_baseline_comparison_deinit(&c);
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

/* ---- compare ---------------------------------------------------------------------------------- */

/* The run id in RUN_DIR/run.json (NULL when there is none). */
static char *run_id_of(const char *run_dir) {
  char *path = tq_strdup_printf("%s/run.json", run_dir);
  tq_buf_t text;
  char *id = NULL;
  tq_status_t rs = path ? tq_file_read(path, 16u << 20, &text) : NULL;
  if (rs) {
    tq_status_free(rs); /* not one of ours: no id */
  } else if (path) {
    tq_arena_t a;
    tq_arena_init(&a, 0, 0);
    tqh_json_t *root = NULL;
    tq_status_t st = tqh_json_parse(&a, path, text.data ? text.data : "", text.len, &root);
    const tqh_json_t *v = st ? NULL : tqh_json_get(root, "run_id");
    if (v && v->kind == TQH_JSON_STRING) id = tq_strndup(v->string, v->len);
    tq_status_free(st);
    tq_arena_deinit(&a);
    tq_buf_deinit(&text);
  }
  tq_free(path);
  return id;
}

tq_status_t tqh__compare_pair_open(const char *run_a, const char *run_b,
                                   const tqh_baseline_options_t *options, tqh_history_t *history,
                                   tqh__compare_pair_t *out) {
  memset(out, 0, sizeof(*out));
  TQ_TRY(tqh_baseline_load(run_a, options, history, &out->a));
  tq_status_t st = tqh_baseline_load(run_b, options, NULL, &out->b);
  if (!st && out->b->from_history)
    st = TQ_STATUS(TQ_INVALID_ARGUMENT, "compare: the second run must be a run folder, not %s",
                   run_b);
  if (!st) st = tqh_records_latest(&out->b->records, &out->latest, &out->count);
  if (!st) {
    out->records = &out->b->records;
    /* B's earlier runs: those that started before its first test and are not B. */
    double first = 0;
    for (size_t i = 0; i < out->count; i++) {
      double t = out->records->items[out->latest[i]].started_at;
      if (t > 0 && (first == 0 || t < first)) first = t;
    }
    char *id = run_id_of(run_b);
    st = tqh_baseline_set_now(out->a, first, id);
    tq_free(id);
  }
  if (st) tqh__compare_pair_close(out);
  return st;
}

void tqh__compare_pair_close(tqh__compare_pair_t *p) {
  tq_free(p->latest);
  tqh_baseline_destroy(p->a);
  tqh_baseline_destroy(p->b);
  memset(p, 0, sizeof(*p));
}

tq_status_t tqh_baseline_compare_runs(const char *run_a, const char *run_b,
                                      const tqh_baseline_options_t *options,
                                      tqh_history_t *history, tq_buf_t *out,
                                      size_t *out_regressions) {
  *out_regressions = 0;
  tqh__compare_pair_t pair;
  TQ_TRY(tqh__compare_pair_open(run_a, run_b, options, history, &pair));
  tqh_baseline_t *a = pair.a, *b = pair.b;
  tqh_baseline_table_t *table = NULL;
  size_t compared = 0, improved = 0, missing = 0, regressed = 0;
  tq_status_t st = tqh_baseline_table_create(&table);
  for (size_t i = 0; !st && i < pair.count; i++) {
    const tqh_test_record_t *now = &pair.records->items[pair.latest[i]];
    const char *test_id = tqh_record_test_id(now);
    tqh_baseline_comparison_t c;
    int found = 0;
    st = tqh_baseline_compare_record(a, now, -1, NULL, 0, &c, &found);
    if (st) break;
    if (!found) {
      missing++;
      st = tqh_baseline_table_note(table, test_id, "not in the baseline");
      continue;
    }
    st = tqh_baseline_table_add(table, test_id, &c, 0);
    compared++;
    if (c.regressions) regressed++;
    if (c.improvements) improved++;
    tqh_baseline_comparison_deinit(&c);
  }
  if (!st) {
    const tqh_baseline_options_t *o = &a->options;
    st = tq_buf_printf(out,
                       "Baseline %s, now %s\n(a verdict needs a change beyond the floor %.1f%%; "
                       "measured times also a U test p < %g on at least %zu samples a side and, "
                       "with %zu or more earlier runs, a median beyond their %g%% prediction "
                       "interval; the host wall_time is gated only when asked: baseline: {gate: "
                       "[wall_time]})\n",
                       a->describe, run_b, o->floor_pct, o->alpha, o->min_samples, o->min_runs,
                       (1 - o->alpha) * 100);
  }
  /* Lines of either journal that could not be read: their tests are not compared. */
  if (!st && a->problems) st = tq_buf_append_cstr(out, a->problems);
  if (!st && b->problems) st = tq_buf_append_cstr(out, b->problems);
  if (!st) st = tqh_baseline_table_render(table, NULL, out);
  if (!st)
    st = tq_buf_printf(out, "%zu test%s compared: %zu regressed, %zu improved, %zu not in the "
                            "baseline\n",
                       compared, compared == 1 ? "" : "s", regressed, improved, missing);
  tqh_baseline_table_destroy(table);
  tqh__compare_pair_close(&pair);
  *out_regressions = regressed;
  return st;
}
