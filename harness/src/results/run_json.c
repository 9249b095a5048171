/* The JSON documents of a run and of a comparison (run_json.h), from the run's own files. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "results_internal.h"
#include "torq/base/alloc.h"
#include "torq/base/file.h"
#include "torq/harness/journal.h"
#include "torq/harness/json.h"
#include "torq/harness/run_json.h"

#define MAX_RUN_JSON (4u << 20)

/* A member of run.json written as it is (a string, an object), or null. */
static void copy_member(tqh_jw_t *w, const tqh_json_t *run, const char *key, const char *as) {
  tqh_jw_key(w, as ? as : key);
  tqh_jw_value(w, run ? tqh_json_get(run, key) : NULL);
}

static const char *property(const tqh_test_record_t *r, const char *key) {
  for (size_t i = 0; i < r->property_count; i++)
    if (r->properties[i].key && !strcmp(r->properties[i].key, key)) return r->properties[i].value;
  return NULL;
}

/* The verdict word of a "baseline" property ("regressed: OVERALL +20%; improved: ..."). */
static const char *verdict_word(const char *note) {
  static const char *const words[] = {"regressed",   "improved",  "within noise",
                                      "same",        "not gated", "insufficient samples",
                                      "not in the baseline"};
  for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
    if (!strncmp(note, words[i], strlen(words[i]))) return words[i];
  return "unknown";
}

static const char *change_word(tqh_baseline_change_t c) {
  switch (c) {
    case TQH_BASELINE_REGRESSED: return "regressed";
    case TQH_BASELINE_IMPROVED: return "improved";
    case TQH_BASELINE_NOISE: return "within noise";
    case TQH_BASELINE_INSUFFICIENT: return "insufficient samples";
    case TQH_BASELINE_NOT_GATED: return "not gated";
    case TQH_BASELINE_SAME: break;
  }
  return "same";
}

static const char *gate_word(tqh_baseline_gate_t g) {
  return g == TQH_GATE_FLOOR ? "floor" : g == TQH_GATE_STATS ? "statistics" : "none";
}

static tq_status_t rows(tqh_jw_t *w, const tqh_baseline_comparison_t *c) {
  tq_buf_t why;
  tq_buf_init(&why, 0);
  tq_status_t st = NULL;
  tqh_jw_array_begin(w);
  for (size_t i = 0; i < c->count; i++) {
    const tqh_baseline_row_t *r = &c->rows[i];
    tqh_jw_object_begin(w);
    tqh_jw_key(w, "metric");
    tqh_jw_string(w, r->metric);
    tqh_jw_key(w, "unit");
    tqh_jw_string(w, r->unit);
    tqh_jw_key(w, "baseline");
    tqh_jw_number(w, r->base);
    tqh_jw_key(w, "now");
    tqh_jw_number(w, r->now);
    tqh_jw_key(w, "change_pct");
    tqh_jw_number(w, r->change_pct); /* non-finite: null */
    tqh_jw_key(w, "floor_pct");
    tqh_jw_number(w, r->floor_pct);
    tqh_jw_key(w, "gate");
    tqh_jw_string(w, gate_word(r->gate));
    tqh_jw_key(w, "p");
    if (r->tested) tqh_jw_number(w, r->p);
    else tqh_jw_null(w);
    tqh_jw_key(w, "run_noise_pct");
    if (r->earlier_runs >= r->min_runs && r->min_runs) tqh_jw_number(w, r->run_noise_pct);
    else tqh_jw_null(w);
    tqh_jw_key(w, "verdict");
    tqh_jw_string(w, change_word(r->change));
    tq_buf_clear(&why);
    if (!st) st = tqh_baseline_row_why(r, &why);
    tqh_jw_key(w, "why");
    tqh_jw_string(w, why.data ? why.data : "");
    tqh_jw_object_end(w);
  }
  tqh_jw_array_end(w);
  tq_buf_deinit(&why);
  return st;
}

static const char *const cache_names[] = {"none", "hit", "miss"};

/* A measured time as a statistic (seconds), or null. */
static void time_stats(tqh_jw_t *w, int has, double median, const tqh_stats_t *s,
                       const double *samples, size_t count) {
  if (!has) {
    tqh_jw_null(w);
    return;
  }
  tqh_jw_object_begin(w);
  const struct {
    const char *key;
    double value;
  } stats[] = {{"median", median},         {"min", s->min},         {"max", s->max},
               {"mean", s->mean},          {"stddev", s->stddev},   {"mad", s->mad},
               {"ci95_low", s->ci95_low},  {"ci95_high", s->ci95_high}};
  for (size_t i = 0; i < sizeof(stats) / sizeof(stats[0]); i++) {
    tqh_jw_key(w, stats[i].key);
    tqh_jw_number(w, stats[i].value);
  }
  tqh_jw_key(w, "n");
  tqh_jw_uint(w, s->n);
  tqh_jw_key(w, "samples");
  tqh_jw_array_begin(w);
  for (size_t i = 0; samples && i < count; i++) tqh_jw_number(w, samples[i]);
  tqh_jw_array_end(w);
  tqh_jw_object_end(w);
}

static tq_status_t test(tqh_jw_t *w, const tqh_test_record_t *r, tqh_baseline_t *baseline) {
  tqh_jw_object_begin(w);
  tqh_jw_key(w, "id");
  tqh_jw_string(w, tqh_record_test_id(r));
  tqh_jw_key(w, "suite");
  tqh_jw_string(w, r->classname);
  tqh_jw_key(w, "name");
  tqh_jw_string(w, r->name);
  tqh_jw_key(w, "folder");
  tqh_jw_string(w, r->id);
  tqh_jw_key(w, "outcome");
  tqh_jw_string(w, tqh_outcome_name(r->outcome));
  const struct {
    const char *key, *value;
  } strings[] = {{"message", r->message},         {"failure_type", r->failure_type},
                 {"model", r->model},             {"host", r->host},
                 {"target", property(r, "target")}};
  for (size_t i = 0; i < sizeof(strings) / sizeof(strings[0]); i++) {
    tqh_jw_key(w, strings[i].key);
    tqh_jw_string(w, strings[i].value);
  }
  tqh_jw_key(w, "tags");
  tqh_jw_array_begin(w);
  const char *tags = property(r, "tags");
  for (const char *p = tags; p && *p;) {
    size_t n = strcspn(p, ",");
    if (n) tqh_jw_stringn(w, p, n);
    p += n + (p[n] == ',');
  }
  tqh_jw_array_end(w);
  const struct {
    const char *key;
    double value;
  } numbers[] = {{"started_at", r->started_at},
                 {"duration", r->duration_s},
                 {"compile_time", r->compile_s},
                 {"run_time", r->run_s}};
  for (size_t i = 0; i < sizeof(numbers) / sizeof(numbers[0]); i++) {
    tqh_jw_key(w, numbers[i].key);
    tqh_jw_number(w, numbers[i].value);
  }
  tqh_jw_key(w, "cache");
  tqh_jw_string(w, (unsigned)r->cache < 3 ? cache_names[r->cache] : "none");
  tqh_jw_key(w, "wall_time");
  time_stats(w, r->has_wall_time, r->wall_time_s, &r->wall_stats, r->wall_samples,
             r->wall_sample_count);
  tqh_jw_key(w, "device_time");
  time_stats(w, r->has_device_time, r->device_stats.median, &r->device_stats, r->device_samples,
             r->device_sample_count);
  tqh_jw_key(w, "estimated_cycles");
  if (r->has_estimated_cycles) tqh_jw_uint(w, r->estimated_cycles);
  else tqh_jw_null(w);
  tqh_jw_key(w, "metrics");
  tqh_jw_object_begin(w);
  for (size_t i = 0; i < r->metric_count; i++) {
    tqh_jw_key(w, r->metrics[i].name ? r->metrics[i].name : "");
    tqh_jw_number(w, r->metrics[i].us);
  }
  tqh_jw_object_end(w);
  tqh_jw_key(w, "verdict");
  const char *note = property(r, "baseline");
  if (!note) {
    tqh_jw_null(w);
  } else {
    tqh_jw_object_begin(w);
    tqh_jw_key(w, "baseline");
    tqh_jw_string(w, verdict_word(note));
    tqh_jw_key(w, "note");
    tqh_jw_string(w, note);
    tqh_jw_object_end(w);
  }
  tqh_jw_key(w, "comparison");
  tqh_baseline_comparison_t c;
  int found = 0;
  if (baseline && r->outcome != TQH_OUTCOME_SKIPPED && r->outcome != TQH_OUTCOME_NOT_RUN)
    TQ_TRY(tqh_baseline_compare_record(baseline, r, -1, NULL, 0, &c, &found));
  if (!found) {
    tqh_jw_null(w);
  } else {
    tq_status_t st = rows(w, &c);
    tqh_baseline_comparison_deinit(&c);
    TQ_TRY(st);
  }
  tqh_jw_key(w, "properties");
  tqh_jw_object_begin(w);
  for (size_t i = 0; i < r->property_count; i++) {
    tqh_jw_key(w, r->properties[i].key ? r->properties[i].key : "");
    tqh_jw_string(w, r->properties[i].value);
  }
  tqh_jw_object_end(w);
  tqh_jw_key(w, "files");
  tqh_jw_array_begin(w);
  for (size_t i = 0; i < r->file_count; i++) tqh_jw_string(w, r->files[i]);
  tqh_jw_array_end(w);
  tqh_jw_object_end(w);
  return NULL;
}

tq_status_t tqh_run_json(const char *run_dir, tqh_baseline_t *baseline, tqh_diags_t *diags,
                         tq_buf_t *out) {
  tq_buf_t path, text;
  tq_buf_init(&path, 0);
  tq_buf_init(&text, 0);
  tqh_records_t list;
  tqh_records_init(&list);
  tq_arena_t arena;
  tq_arena_init(&arena, 0, 0);
  size_t *order = NULL, count = 0;
  tqh_journal_read_t info;
  struct stat sb;
  tq_status_t st = tq_buf_printf(&path, "%s/journal.jsonl", run_dir);
  if (!st && stat(path.data, &sb) != 0)
    st = TQ_STATUS(TQ_NOT_FOUND, "%s: no journal (%s): %s", run_dir, path.data, strerror(errno));
  if (!st) st = tqh_journal_read(path.data, &list, diags, &info);
  if (!st) st = tqh_records_latest(&list, &order, &count);
  const tqh_json_t *run = NULL;
  if (!st) {
    tq_buf_clear(&path);
    tqh_json_t *v = NULL;
    tq_status_t rs = tq_buf_printf(&path, "%s/run.json", run_dir);
    if (!rs) rs = tq_file_read(path.data, MAX_RUN_JSON, &text);
    if (!rs) rs = tqh_json_parse(&arena, "run.json", text.data ? text.data : "", text.len, &v);
    if (rs) {
      if (diags) tqh_diags_add(diags, TQH_WARNING, "run.json", 0, "%s", tq_status_message(rs));
      tq_status_free(rs);
    } else if (v->kind == TQH_JSON_OBJECT) {
      run = v;
    }
  }
  if (st) goto done;

  tqh_jw_t w;
  tqh_jw_init(&w, out, 1);
  tqh_jw_object_begin(&w);
  tqh_jw_key(&w, "schema");
  tqh_jw_string(&w, TQH_RUN_JSON_SCHEMA);
  tqh_jw_key(&w, "run");
  tqh_jw_object_begin(&w);
  copy_member(&w, run, "run_id", "id");
  tqh_jw_key(&w, "dir");
  tqh_jw_string(&w, run_dir);
  copy_member(&w, run, "started_at", NULL);
  copy_member(&w, run, "finished_at", NULL);
  copy_member(&w, run, "hostname", "host");
  copy_member(&w, run, "target", NULL);
  copy_member(&w, run, "board", NULL);
  copy_member(&w, run, "tool_version", NULL);
  copy_member(&w, run, "git_revision", NULL);
  copy_member(&w, run, "command_line", NULL);
  copy_member(&w, run, "config", NULL);
  tqh_jw_object_end(&w);

  size_t counts[TQH_OUTCOME_COUNT] = {0}, hits = 0, misses = 0;
  double duration = 0;
  for (size_t k = 0; k < count; k++) {
    const tqh_test_record_t *r = &list.items[order[k]];
    if ((unsigned)r->outcome < TQH_OUTCOME_COUNT) counts[r->outcome]++;
    hits += r->cache == TQH_CACHE_HIT;
    misses += r->cache == TQH_CACHE_MISS;
    if (r->duration_s > 0) duration += r->duration_s;
  }
  tqh_jw_key(&w, "summary");
  tqh_jw_object_begin(&w);
  tqh_jw_key(&w, "tests");
  tqh_jw_uint(&w, count);
  tqh_jw_key(&w, "outcomes");
  tqh_jw_object_begin(&w);
  for (int o = 0; o < TQH_OUTCOME_COUNT; o++) {
    tqh_jw_key(&w, tqh_outcome_name((tqh_outcome_t)o));
    tqh_jw_uint(&w, counts[o]);
  }
  tqh_jw_object_end(&w);
  tqh_jw_key(&w, "duration");
  tqh_jw_number(&w, duration);
  tqh_jw_key(&w, "cache");
  tqh_jw_object_begin(&w);
  tqh_jw_key(&w, "hits");
  tqh_jw_uint(&w, hits);
  tqh_jw_key(&w, "misses");
  tqh_jw_uint(&w, misses);
  tqh_jw_object_end(&w);
  tqh_jw_object_end(&w);
  tqh_jw_key(&w, "tests");
  tqh_jw_array_begin(&w);
  for (size_t k = 0; !st && k < count; k++) st = test(&w, &list.items[order[k]], baseline);
  tqh_jw_array_end(&w);
  tqh_jw_object_end(&w);
  tq_status_t fst = tqh_jw_finish(&w);
  if (!st) st = fst;
  else tq_status_free(fst);
  if (!st) st = tq_buf_putc(out, '\n');
done:
  tq_free(order);
  tqh_records_deinit(&list);
  tq_arena_deinit(&arena);
  tq_buf_deinit(&path);
  tq_buf_deinit(&text);
  return st;
}

tq_status_t tqh_compare_json(const char *run_a, const char *run_b,
                             const tqh_baseline_options_t *options, tqh_history_t *history,
                             tq_buf_t *out, size_t *out_regressions) {
  *out_regressions = 0;
  tqh__compare_pair_t pair;
  TQ_TRY(tqh__compare_pair_open(run_a, run_b, options, history, &pair));
  tqh_baseline_t *a = pair.a;
  tq_status_t st = NULL;
  size_t compared = 0, regressed = 0, improved = 0, missing = 0;
  tqh_jw_t w;
  tqh_jw_init(&w, out, 1);
  if (!st) {
    const tqh_baseline_options_t *o = tqh_baseline_options(a);
    tqh_jw_object_begin(&w);
    tqh_jw_key(&w, "schema");
    tqh_jw_string(&w, TQH_COMPARE_JSON_SCHEMA);
    tqh_jw_key(&w, "baseline");
    tqh_jw_string(&w, tqh_baseline_describe(a));
    tqh_jw_key(&w, "run");
    tqh_jw_string(&w, run_b);
    tqh_jw_key(&w, "floor_pct");
    tqh_jw_number(&w, o->floor_pct);
    tqh_jw_key(&w, "alpha");
    tqh_jw_number(&w, o->alpha);
    tqh_jw_key(&w, "min_samples");
    tqh_jw_uint(&w, o->min_samples);
    tqh_jw_key(&w, "min_runs");
    tqh_jw_uint(&w, o->min_runs);
    tqh_jw_key(&w, "tests");
    tqh_jw_array_begin(&w);
    for (size_t i = 0; !st && i < pair.count; i++) {
      const tqh_test_record_t *now = &pair.records->items[pair.latest[i]];
      tqh_baseline_comparison_t c;
      memset(&c, 0, sizeof(c));
      int found = 0;
      st = tqh_baseline_compare_record(a, now, -1, NULL, 0, &c, &found);
      if (st) break;
      tqh_jw_object_begin(&w);
      tqh_jw_key(&w, "id");
      tqh_jw_string(&w, tqh_record_test_id(now));
      tqh_jw_key(&w, "in_baseline");
      tqh_jw_bool(&w, found);
      tqh_jw_key(&w, "regressed");
      tqh_jw_bool(&w, c.regressions > 0);
      tqh_jw_key(&w, "improved");
      tqh_jw_bool(&w, c.improvements > 0);
      tqh_jw_key(&w, "rows");
      st = rows(&w, &c);
      tqh_jw_object_end(&w);
      compared += found != 0;
      missing += found == 0;
      regressed += c.regressions > 0;
      improved += c.improvements > 0;
      tqh_baseline_comparison_deinit(&c);
    }
    tqh_jw_array_end(&w);
    tqh_jw_key(&w, "summary");
    tqh_jw_object_begin(&w);
    tqh_jw_key(&w, "compared");
    tqh_jw_uint(&w, compared);
    tqh_jw_key(&w, "regressed");
    tqh_jw_uint(&w, regressed);
    tqh_jw_key(&w, "improved");
    tqh_jw_uint(&w, improved);
    tqh_jw_key(&w, "not_in_baseline");
    tqh_jw_uint(&w, missing);
    tqh_jw_object_end(&w);
    tqh_jw_object_end(&w);
  }
  tq_status_t fst = tqh_jw_finish(&w);
  if (!st) st = fst;
  else tq_status_free(fst);
  if (!st) st = tq_buf_putc(out, '\n');
  tqh__compare_pair_close(&pair);
  *out_regressions = regressed;
  return st;
}
