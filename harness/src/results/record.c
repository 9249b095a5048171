/* Test records as JSON: written for the journal and report.json, read back from journal lines
 * (with the JSON reader of json.h). Rendering the reports from records read back is
 * what makes an incremental run and a rebuild give the same bytes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results_internal.h"
#include "torq/base/alloc.h"
#include "torq/harness/json.h"
#include "torq/harness/overview.h"

static const char *const cache_names[] = {"none", "hit", "miss"};

/* "reconciliation": {"clock_hz", "programs": [{"job", "jobs", "location", "operators": [...],
 * "estimated_cycles", "simulated_cycles", "simulated_units", "device_us", "error"}]}, or null
 * without programs; "jobs" is how many NSS programs from "job" on the entry stands for (a
 * pipeline's stages: tqh_recon_t.programs). "simulated_units" (null without simulated cycles): {"dma", "compute",
 * "overlap", "dma_only", "compute_only"}, cycles of the simulated run. */
static void write_recon(tqh_jw_t *w, const tqh_test_record_t *r) {
  tqh_jw_key(w, "reconciliation");
  if (!r->recon || !r->recon_count) {
    tqh_jw_null(w);
    return;
  }
  tqh_jw_object_begin(w);
  tqh_jw_key(w, "clock_hz");
  tqh_jw_uint(w, r->clock_hz);
  tqh_jw_key(w, "programs");
  tqh_jw_array_begin(w);
  for (size_t i = 0; i < r->recon_count; i++) {
    const tqh_recon_t *p = &r->recon[i];
    tqh_jw_object_begin(w);
    tqh_jw_key(w, "job");
    tqh_jw_uint(w, p->job_id);
    tqh_jw_key(w, "jobs");
    tqh_jw_uint(w, p->programs ? p->programs : 1);
    tqh_jw_key(w, "location");
    tqh_jw_string(w, p->location ? p->location : "");
    tqh_jw_key(w, "operators");
    tqh_jw_array_begin(w);
    for (const char *o = p->operators ? p->operators : ""; *o;) {
      size_t n = strcspn(o, " ");
      if (n) tqh_jw_stringn(w, o, n);
      o += n + (o[n] == ' ');
    }
    tqh_jw_array_end(w);
    tqh_jw_key(w, "estimated_cycles");
    tqh_jw_uint(w, p->estimated_cycles);
    tqh_jw_key(w, "simulated_cycles");
    if (p->has_simulated)
      tqh_jw_uint(w, p->simulated_cycles);
    else
      tqh_jw_null(w);
    tqh_jw_key(w, "simulated_units");
    if (p->has_simulated) {
      const uint64_t dma = p->sim_dma_cycles, compute = p->sim_compute_cycles;
      const uint64_t both = p->sim_overlap_cycles;
      tqh_jw_object_begin(w);
      tqh_jw_key(w, "dma");
      tqh_jw_uint(w, dma);
      tqh_jw_key(w, "compute");
      tqh_jw_uint(w, compute);
      tqh_jw_key(w, "overlap");
      tqh_jw_uint(w, both);
      tqh_jw_key(w, "dma_only");
      tqh_jw_uint(w, dma > both ? dma - both : 0);
      tqh_jw_key(w, "compute_only");
      tqh_jw_uint(w, compute > both ? compute - both : 0);
      tqh_jw_object_end(w);
    } else {
      tqh_jw_null(w);
    }
    tqh_jw_key(w, "device_us");
    if (p->has_device)
      tqh_jw_number(w, p->device_us);
    else
      tqh_jw_null(w);
    double error;
    tqh_jw_key(w, "error");
    if (tqh_recon_error(p, r->clock_hz, &error))
      tqh_jw_number(w, error);
    else
      tqh_jw_null(w);
    tqh_jw_object_end(w);
  }
  tqh_jw_array_end(w);
  tqh_jw_object_end(w);
}

/* "KEY_stats": {n, min, ...} and "KEY_samples": [...] of a measured time. */
static void write_stats(tqh_jw_t *w, const char *key, const tqh_stats_t *st, const double *samples,
                        size_t count) {
  char name[64];
  snprintf(name, sizeof(name), "%s_stats", key);
  tqh_jw_key(w, name);
  tqh_jw_object_begin(w);
  tqh_jw_key(w, "n");
  tqh_jw_uint(w, st->n);
  static const char *const stat_keys[] = {"min",    "max", "median",   "mean",
                                          "stddev", "mad", "ci95_low", "ci95_high"};
  const double stat_vals[] = {st->min,    st->max, st->median,   st->mean,
                              st->stddev, st->mad, st->ci95_low, st->ci95_high};
  for (size_t i = 0; i < sizeof(stat_keys) / sizeof(stat_keys[0]); i++) {
    tqh_jw_key(w, stat_keys[i]);
    tqh_jw_number(w, stat_vals[i]);
  }
  tqh_jw_object_end(w);
  snprintf(name, sizeof(name), "%s_samples", key);
  tqh_jw_key(w, name);
  tqh_jw_array_begin(w);
  for (size_t i = 0; samples && i < count; i++) tqh_jw_number(w, samples[i]);
  tqh_jw_array_end(w);
}

/* "suite/name", the test id of a record that does not carry one (written before test_id was);
 * without a suite, its folder name. */
static tq_status_t made_test_id(const tqh_test_record_t *r, tq_buf_t *out) {
  if (r->classname && *r->classname)
    return tq_buf_printf(out, "%s/%s", r->classname, r->name ? r->name : "");
  return tq_buf_append_cstr(out, r->id ? r->id : "");
}

tq_status_t tqh__record_to_json(const tqh_test_record_t *r, int pretty, tq_buf_t *out) {
  tqh_jw_t w;
  tqh_jw_init(&w, out, pretty);
  tqh_jw_object_begin(&w);
  tqh_jw_key(&w, "id");
  tqh_jw_string(&w, r->id);
  tqh_jw_key(&w, "test_id");
  if (r->test_id && *r->test_id) {
    tqh_jw_string(&w, r->test_id);
  } else {
    tq_buf_t id;
    tq_buf_init(&id, 0);
    tq_status_t s = made_test_id(r, &id);
    if (s) {
      tq_status_free(tqh_jw_finish(&w));
      tq_buf_deinit(&id);
      return s;
    }
    tqh_jw_string(&w, id.data);
    tq_buf_deinit(&id);
  }
  tqh_jw_key(&w, "name");
  tqh_jw_string(&w, r->name);
  tqh_jw_key(&w, "classname");
  tqh_jw_string(&w, r->classname);
  tqh_jw_key(&w, "model");
  tqh_jw_string(&w, r->model);
  tqh_jw_key(&w, "host");
  tqh_jw_string(&w, r->host);
  tqh_jw_key(&w, "outcome");
  tqh_jw_string(&w, tqh_outcome_name(r->outcome));
  tqh_jw_key(&w, "message");
  tqh_jw_string(&w, r->message);
  tqh_jw_key(&w, "failure_type");
  tqh_jw_string(&w, r->failure_type);
  tqh_jw_key(&w, "text");
  tqh_jw_string(&w, r->text);
  tqh_jw_key(&w, "started_at");
  tqh_jw_number(&w, r->started_at);
  tqh_jw_key(&w, "duration");
  tqh_jw_number(&w, r->duration_s);
  tqh_jw_key(&w, "wall_time");
  if (r->has_wall_time)
    tqh_jw_number(&w, r->wall_time_s);
  else
    tqh_jw_null(&w);
  write_stats(&w, "wall_time", &r->wall_stats, r->wall_samples, r->wall_sample_count);
  if (r->has_device_time) { /* boards only: simulator records stay as they were */
    tqh_jw_key(&w, "device_time");
    tqh_jw_number(&w, r->device_stats.median);
    write_stats(&w, "device_time", &r->device_stats, r->device_samples, r->device_sample_count);
  }
  tqh_jw_key(&w, "cache");
  tqh_jw_string(&w, (unsigned)r->cache < 3 ? cache_names[r->cache] : "none");
  tqh_jw_key(&w, "compile_time");
  tqh_jw_number(&w, r->compile_s);
  tqh_jw_key(&w, "run_time");
  tqh_jw_number(&w, r->run_s);
  tqh_jw_key(&w, "estimated_cycles");
  if (r->has_estimated_cycles)
    tqh_jw_uint(&w, r->estimated_cycles);
  else
    tqh_jw_null(&w);
  tqh_jw_key(&w, "metrics");
  tqh_jw_object_begin(&w);
  for (size_t i = 0; r->metrics && i < r->metric_count; i++) {
    tqh_jw_key(&w, r->metrics[i].name ? r->metrics[i].name : "");
    tqh_jw_number(&w, r->metrics[i].us);
  }
  tqh_jw_object_end(&w);
  tqh_jw_key(&w, "metric_keys");
  tqh_jw_object_begin(&w);
  tq_buf_t key;
  tq_buf_init(&key, 0);
  tq_status_t kst = NULL;
  for (size_t i = 0; r->metrics && i < r->metric_count && !kst; i++) {
    const char *name = r->metrics[i].name ? r->metrics[i].name : "";
    tqh_jw_key(&w, name);
    if (r->metrics[i].key) {
      tqh_jw_string(&w, r->metrics[i].key);
    } else if (!(kst = tqh_overview_key_of(name, &key))) {
      tqh_jw_string(&w, key.data);
    }
  }
  tq_buf_deinit(&key);
  tqh_jw_object_end(&w);
  write_recon(&w, r);
  tqh_jw_key(&w, "properties");
  tqh_jw_object_begin(&w);
  for (size_t i = 0; r->properties && i < r->property_count; i++) {
    tqh_jw_key(&w, r->properties[i].key ? r->properties[i].key : "");
    tqh_jw_string(&w, r->properties[i].value ? r->properties[i].value : "");
  }
  tqh_jw_object_end(&w);
  tqh_jw_key(&w, "files");
  tqh_jw_array_begin(&w);
  for (size_t i = 0; r->files && i < r->file_count; i++)
    tqh_jw_string(&w, r->files[i] ? r->files[i] : "");
  tqh_jw_array_end(&w);
  tqh_jw_object_end(&w);
  tq_status_t fst = tqh_jw_finish(&w);
  if (kst) {
    tq_status_free(fst);
    return kst;
  }
  return fst;
}

void tqh_records_init(tqh_records_t *list) {
  memset(list, 0, sizeof(*list));
  tq_arena_init(&list->arena, 0, 0);
}

void tqh_records_deinit(tqh_records_t *list) {
  tq_arena_deinit(&list->arena);
  tq_free(list->items);
  memset(list, 0, sizeof(*list));
}

static int cmp_by_id(const void *a, const void *b, void *ctx) {
  const tqh_test_record_t *items = ctx;
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  int c = strcmp(tqh_record_test_id(&items[x]), tqh_record_test_id(&items[y]));
  return c ? c : (x > y) - (x < y);
}

/* The indexes of the last record of each id, sorted by id, in *out (tq_free). */
static tq_status_t latest_by_id(const tqh_records_t *list, size_t **out, size_t *out_count) {
  *out = NULL;
  *out_count = 0;
  size_t n = list->count;
  size_t *sorted = tq_calloc(n + 1, sizeof(*sorted));
  if (!sorted) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  /* Sorted by id, then by position: the last of each run of equal ids is the one kept. */
  for (size_t i = 0; i < n; i++) sorted[i] = i;
  qsort_r(sorted, n, sizeof(*sorted), cmp_by_id, list->items);
  size_t kept = 0;
  for (size_t i = 0; i < n; i++)
    if (i + 1 == n || strcmp(tqh_record_test_id(&list->items[sorted[i]]),
                             tqh_record_test_id(&list->items[sorted[i + 1]])) != 0)
      sorted[kept++] = sorted[i];
  *out = sorted;
  *out_count = kept;
  return NULL;
}

static int cmp_index(const void *a, const void *b) {
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  return (x > y) - (x < y);
}

tq_status_t tqh_records_latest(const tqh_records_t *list, size_t **out_order, size_t *out_count) {
  TQ_TRY(latest_by_id(list, out_order, out_count));
  qsort(*out_order, *out_count, sizeof(**out_order), cmp_index);
  return NULL;
}

tq_status_t tqh_records_index(const tqh_records_t *list, tqh_records_index_t *out) {
  out->list = list;
  return latest_by_id(list, &out->by_id, &out->count);
}

void tqh_records_index_deinit(tqh_records_index_t *index) {
  tq_free(index->by_id);
  memset(index, 0, sizeof(*index));
}

const tqh_test_record_t *tqh_records_find(const tqh_records_index_t *index, const char *id) {
  size_t lo = 0, hi = index->count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    const tqh_test_record_t *r = &index->list->items[index->by_id[mid]];
    int c = strcmp(tqh_record_test_id(r), id);
    if (!c) return r;
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return NULL;
}

/* ---- Reading one line ---------------------------------------------------------------------- */

typedef struct rd_s {
  tq_arena_t *arena; /* the list's: where the record's strings go */
  const tqh_json_t *obj;
} rd_t;

static tq_status_t oom(void) {
  return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory reading a record");
}

static tq_status_t bad(const char *key, const char *what) {
  return TQ_STATUS(TQ_INVALID_INPUT, "\"%s\": expected %s", key, what);
}

/* A string member (null or absent: NULL unless required). */
static tq_status_t get_string(rd_t *rd, const char *key, int required, const char **out) {
  *out = NULL;
  const tqh_json_t *v = tqh_json_get(rd->obj, key);
  if (!v || v->kind == TQH_JSON_NULL) {
    if (required) return TQ_STATUS(TQ_INVALID_INPUT, "missing \"%s\"", key);
    return NULL;
  }
  if (v->kind != TQH_JSON_STRING) return bad(key, "a string");
  if (required && v->len == 0) return TQ_STATUS(TQ_INVALID_INPUT, "empty \"%s\"", key);
  *out = tq_arena_strndup(rd->arena, v->string, v->len);
  return *out ? NULL : oom();
}

static tq_status_t number_of(const tqh_json_t *v, const char *key, double *out) {
  *out = 0;
  if (!v || v->kind == TQH_JSON_NULL) return NULL;
  if (v->kind != TQH_JSON_NUMBER) return bad(key, "a number");
  *out = v->number;
  return NULL;
}

static tq_status_t get_number(rd_t *rd, const char *key, double *out) {
  return number_of(tqh_json_get(rd->obj, key), key, out);
}

static tq_status_t read_stats(rd_t *rd, const char *key, tqh_stats_t *st) {
  const tqh_json_t *v = tqh_json_get(rd->obj, key);
  if (!v || v->kind == TQH_JSON_NULL) return NULL;
  if (v->kind != TQH_JSON_OBJECT) return bad(key, "an object");
  double n;
  TQ_TRY(number_of(tqh_json_get(v, "n"), "n", &n));
  if (n < 0 || n > 1e15 || n != floor(n)) return bad("n", "a count");
  st->n = (size_t)n;
  struct {
    const char *key;
    double *dst;
  } fields[] = {{"min", &st->min},           {"max", &st->max},
                {"median", &st->median},     {"mean", &st->mean},
                {"stddev", &st->stddev},     {"mad", &st->mad},
                {"ci95_low", &st->ci95_low}, {"ci95_high", &st->ci95_high}};
  for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
    TQ_TRY(number_of(tqh_json_get(v, fields[i].key), fields[i].key, fields[i].dst));
  return NULL;
}

/* An array (or object when `object`) member; NULL when absent or null. */
static tq_status_t get_container(rd_t *rd, const char *key, int object, const tqh_json_t **out) {
  *out = NULL;
  const tqh_json_t *v = tqh_json_get(rd->obj, key);
  if (!v || v->kind == TQH_JSON_NULL) return NULL;
  if (v->kind != (object ? TQH_JSON_OBJECT : TQH_JSON_ARRAY))
    return bad(key, object ? "an object" : "an array");
  *out = v;
  return NULL;
}

/* Each metric's key: from "metric_keys", else (an older journal) the label's. */
static tq_status_t read_metric_keys(rd_t *rd, tqh_record_metric_t *m, size_t n) {
  const tqh_json_t *keys;
  TQ_TRY(get_container(rd, "metric_keys", 1, &keys));
  tq_buf_t derived;
  tq_buf_init(&derived, 0);
  tq_status_t st = NULL;
  for (size_t i = 0; !st && i < n; i++) {
    const tqh_json_t *k = keys ? tqh_json_get(keys, m[i].name) : NULL;
    if (k && k->kind != TQH_JSON_STRING) {
      st = bad("metric_keys", "string values");
    } else if (k) {
      m[i].key = tq_arena_strndup(rd->arena, k->string, k->len);
    } else if (!(st = tqh_overview_key_of(m[i].name, &derived))) {
      m[i].key = tq_arena_strndup(rd->arena, derived.data, derived.len);
    }
    if (!st && !m[i].key) st = oom();
  }
  tq_buf_deinit(&derived);
  return st;
}

/* A whole number in [0, 2^64) (null or absent: 0 and *out_has 0). */
static tq_status_t whole_of(const tqh_json_t *v, const char *key, int *out_has, uint64_t *out) {
  *out = 0;
  if (out_has) *out_has = 0;
  if (!v || v->kind == TQH_JSON_NULL) return NULL;
  double d;
  TQ_TRY(number_of(v, key, &d));
  if (!(d >= 0 && d < 0x1p64 && d == floor(d))) return bad(key, "a whole number");
  *out = (uint64_t)d;
  if (out_has) *out_has = 1;
  return NULL;
}

/* One program of "reconciliation" (write_recon). */
static tq_status_t read_recon_program(rd_t *rd, const tqh_json_t *v, tqh_recon_t *p) {
  if (v->kind != TQH_JSON_OBJECT) return bad("programs", "objects");
  uint64_t job;
  TQ_TRY(whole_of(tqh_json_get(v, "job"), "job", NULL, &job));
  if (job > UINT32_MAX) return bad("job", "a job id");
  p->job_id = (uint32_t)job;
  uint64_t jobs; /* absent (journals before pipeline stages): 1 */
  int has_jobs;
  TQ_TRY(whole_of(tqh_json_get(v, "jobs"), "jobs", &has_jobs, &jobs));
  if (!has_jobs) jobs = 1;
  if (jobs < 1 || jobs - 1 > UINT32_MAX - job) return bad("jobs", "a count of NSS programs");
  p->programs = (uint32_t)jobs;
  const tqh_json_t *loc = tqh_json_get(v, "location");
  if (loc && loc->kind != TQH_JSON_STRING && loc->kind != TQH_JSON_NULL)
    return bad("location", "a string");
  p->location = loc && loc->kind == TQH_JSON_STRING
                    ? tq_arena_strndup(rd->arena, loc->string, loc->len)
                    : tq_arena_strndup(rd->arena, "", 0);
  const tqh_json_t *ops = tqh_json_get(v, "operators");
  tq_buf_t joined;
  tq_buf_init(&joined, 0);
  tq_status_t st = NULL;
  if (ops && ops->kind != TQH_JSON_ARRAY && ops->kind != TQH_JSON_NULL)
    st = bad("operators", "an array");
  for (size_t i = 0; !st && ops && ops->kind == TQH_JSON_ARRAY && i < ops->len; i++) {
    const tqh_json_t *o = ops->items[i];
    if (o->kind != TQH_JSON_STRING) st = bad("operators", "strings");
    if (!st && i) st = tq_buf_putc(&joined, ' ');
    if (!st) st = tq_buf_append(&joined, o->string, o->len);
  }
  if (!st) p->operators = tq_arena_strndup(rd->arena, joined.data ? joined.data : "", joined.len);
  tq_buf_deinit(&joined);
  TQ_TRY(st);
  if (!p->location || !p->operators) return oom();
  TQ_TRY(whole_of(tqh_json_get(v, "estimated_cycles"), "estimated_cycles", NULL,
                  &p->estimated_cycles));
  TQ_TRY(whole_of(tqh_json_get(v, "simulated_cycles"), "simulated_cycles", &p->has_simulated,
                  &p->simulated_cycles));
  const tqh_json_t *units = tqh_json_get(v, "simulated_units");
  if (units && units->kind != TQH_JSON_OBJECT && units->kind != TQH_JSON_NULL)
    return bad("simulated_units", "an object");
  if (units && units->kind == TQH_JSON_OBJECT) {
    TQ_TRY(whole_of(tqh_json_get(units, "dma"), "dma", NULL, &p->sim_dma_cycles));
    TQ_TRY(whole_of(tqh_json_get(units, "compute"), "compute", NULL, &p->sim_compute_cycles));
    TQ_TRY(whole_of(tqh_json_get(units, "overlap"), "overlap", NULL, &p->sim_overlap_cycles));
  }
  const tqh_json_t *dev = tqh_json_get(v, "device_us");
  p->has_device = dev && dev->kind != TQH_JSON_NULL;
  return number_of(dev, "device_us", &p->device_us);
}

static tq_status_t read_recon(rd_t *rd, tqh_test_record_t *r) {
  const tqh_json_t *v;
  TQ_TRY(get_container(rd, "reconciliation", 1, &v));
  if (!v) return NULL;
  TQ_TRY(whole_of(tqh_json_get(v, "clock_hz"), "clock_hz", NULL, &r->clock_hz));
  const tqh_json_t *progs = tqh_json_get(v, "programs");
  if (!progs || progs->kind == TQH_JSON_NULL) return NULL;
  if (progs->kind != TQH_JSON_ARRAY) return bad("programs", "an array");
  if (!progs->len) return NULL;
  tqh_recon_t *p = tq_arena_calloc(rd->arena, progs->len, sizeof(*p));
  if (!p) return oom();
  for (size_t i = 0; i < progs->len; i++) TQ_TRY(read_recon_program(rd, progs->items[i], &p[i]));
  r->recon = p;
  r->recon_count = progs->len;
  return NULL;
}

/* A member that is an array of numbers (absent or null: none). */
static tq_status_t read_samples(rd_t *rd, const char *key, const double **out, size_t *out_n) {
  *out = NULL;
  *out_n = 0;
  const tqh_json_t *v = tqh_json_get(rd->obj, key);
  if (!v || v->kind == TQH_JSON_NULL) return NULL;
  if (v->kind != TQH_JSON_ARRAY) return bad(key, "an array");
  if (!v->len) return NULL;
  double *samples = tq_arena_calloc(rd->arena, v->len, sizeof(*samples));
  if (!samples) return oom();
  for (size_t i = 0; i < v->len; i++) TQ_TRY(number_of(v->items[i], key, &samples[i]));
  *out = samples;
  *out_n = v->len;
  return NULL;
}

static tq_status_t read_record(rd_t *rd, tqh_test_record_t *r) {
  memset(r, 0, sizeof(*r));
  if (rd->obj->kind != TQH_JSON_OBJECT)
    return TQ_STATUS(TQ_INVALID_INPUT, "expected a JSON object");
  TQ_TRY(get_string(rd, "id", 1, &r->id));
  TQ_TRY(get_string(rd, "test_id", 0, &r->test_id));
  TQ_TRY(get_string(rd, "name", 1, &r->name));
  TQ_TRY(get_string(rd, "classname", 0, &r->classname));
  if (!r->test_id || !*r->test_id) {
    /* A line written before records carried their test id. */
    tq_buf_t id;
    tq_buf_init(&id, 0);
    tq_status_t s = made_test_id(r, &id);
    if (!s && !(r->test_id = tq_arena_strndup(rd->arena, id.data ? id.data : "", id.len)))
      s = oom();
    tq_buf_deinit(&id);
    TQ_TRY(s);
  }
  TQ_TRY(get_string(rd, "model", 0, &r->model));
  TQ_TRY(get_string(rd, "host", 0, &r->host));
  const char *outcome;
  TQ_TRY(get_string(rd, "outcome", 1, &outcome));
  if (!outcome || !tqh_outcome_parse(tq_sv_cstr(outcome), &r->outcome))
    return TQ_STATUS(TQ_INVALID_INPUT, "unknown outcome \"%s\"", outcome);
  TQ_TRY(get_string(rd, "message", 0, &r->message));
  TQ_TRY(get_string(rd, "failure_type", 0, &r->failure_type));
  TQ_TRY(get_string(rd, "text", 0, &r->text));
  TQ_TRY(get_number(rd, "started_at", &r->started_at));
  TQ_TRY(get_number(rd, "duration", &r->duration_s));
  const tqh_json_t *wt = tqh_json_get(rd->obj, "wall_time");
  r->has_wall_time = wt && wt->kind != TQH_JSON_NULL;
  TQ_TRY(number_of(wt, "wall_time", &r->wall_time_s));
  TQ_TRY(read_stats(rd, "wall_time_stats", &r->wall_stats));
  TQ_TRY(read_samples(rd, "wall_time_samples", &r->wall_samples, &r->wall_sample_count));
  const tqh_json_t *dt = tqh_json_get(rd->obj, "device_time");
  r->has_device_time = dt && dt->kind != TQH_JSON_NULL;
  if (r->has_device_time) {
    TQ_TRY(read_stats(rd, "device_time_stats", &r->device_stats));
    TQ_TRY(read_samples(rd, "device_time_samples", &r->device_samples, &r->device_sample_count));
  }

  const tqh_json_t *v;

  const char *cache;
  TQ_TRY(get_string(rd, "cache", 0, &cache));
  r->cache = TQH_CACHE_NONE;
  if (cache && !strcmp(cache, "hit"))
    r->cache = TQH_CACHE_HIT;
  else if (cache && !strcmp(cache, "miss"))
    r->cache = TQH_CACHE_MISS;
  else if (cache && strcmp(cache, "none"))
    return TQ_STATUS(TQ_INVALID_INPUT, "unknown cache \"%s\"", cache);
  TQ_TRY(get_number(rd, "compile_time", &r->compile_s));
  TQ_TRY(get_number(rd, "run_time", &r->run_s));

  const tqh_json_t *ec = tqh_json_get(rd->obj, "estimated_cycles");
  if (ec && ec->kind != TQH_JSON_NULL) {
    double cycles;
    TQ_TRY(number_of(ec, "estimated_cycles", &cycles));
    if (!(cycles >= 0 && cycles < 0x1p64 && cycles == floor(cycles)))
      return bad("estimated_cycles", "a whole number of cycles");
    r->has_estimated_cycles = 1;
    r->estimated_cycles = (uint64_t)cycles;
  }

  TQ_TRY(get_container(rd, "metrics", 1, &v));
  if (v && v->len) {
    tqh_record_metric_t *m = tq_arena_calloc(rd->arena, v->len, sizeof(*m));
    if (!m) return oom();
    for (size_t i = 0; i < v->len; i++) {
      m[i].name = tq_arena_strndup(rd->arena, v->keys[i], strlen(v->keys[i]));
      if (!m[i].name) return oom();
      TQ_TRY(number_of(v->items[i], "metrics", &m[i].us));
    }
    r->metrics = m;
    r->metric_count = v->len;
    TQ_TRY(read_metric_keys(rd, m, v->len));
  }
  TQ_TRY(read_recon(rd, r));

  TQ_TRY(get_container(rd, "properties", 1, &v));
  if (v && v->len) {
    tqh_property_t *p = tq_arena_calloc(rd->arena, v->len, sizeof(*p));
    if (!p) return oom();
    for (size_t i = 0; i < v->len; i++) {
      if (v->items[i]->kind != TQH_JSON_STRING) return bad("properties", "string values");
      p[i].key = tq_arena_strndup(rd->arena, v->keys[i], strlen(v->keys[i]));
      p[i].value = tq_arena_strndup(rd->arena, v->items[i]->string, v->items[i]->len);
      if (!p[i].key || !p[i].value) return oom();
    }
    r->properties = p;
    r->property_count = v->len;
  }

  TQ_TRY(get_container(rd, "files", 0, &v));
  if (v && v->len) {
    const char **f = tq_arena_calloc(rd->arena, v->len, sizeof(*f));
    if (!f) return oom();
    for (size_t i = 0; i < v->len; i++) {
      if (v->items[i]->kind != TQH_JSON_STRING) return bad("files", "strings");
      f[i] = tq_arena_strndup(rd->arena, v->items[i]->string, v->items[i]->len);
      if (!f[i]) return oom();
    }
    r->files = f;
    r->file_count = v->len;
  }
  return NULL;
}

tq_status_t tqh__record_parse(tqh_records_t *list, const char *line, size_t len) {
  tq_arena_t scratch;
  tq_arena_init(&scratch, 16384, 0);
  tqh_json_t *tree = NULL;
  tq_status_t s = tqh_json_parse(&scratch, "", line, len, &tree);
  tqh_test_record_t r;
  if (!s) {
    rd_t rd = {&list->arena, tree};
    s = read_record(&rd, &r);
  }
  if (!s && list->count == list->cap) {
    size_t ncap = list->cap ? list->cap * 2 : 64;
    tqh_test_record_t *items = tq_realloc(list->items, ncap * sizeof(*items));
    if (!items) {
      s = oom();
    } else {
      list->items = items;
      list->cap = ncap;
    }
  }
  if (!s) list->items[list->count++] = r;
  tq_arena_deinit(&scratch);
  return s;
}

tq_status_t tqh_record_parse(tqh_records_t *list, const char *text, size_t len) {
  return tqh__record_parse(list, text, len);
}
