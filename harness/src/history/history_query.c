/* Reading the run history back (history.h): runs, tests, a test's entries with their metrics;
 * and the cache of metric names both directions use. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "history_internal.h"
#include "torq/base/alloc.h"

/* ---- Metric names --------------------------------------------------------------------------- */

void tqh__history_names_clear(tqh_history_t *h) {
  for (size_t i = 0; i < h->name_count; i++) {
    tq_free(h->names[i].name);
    tq_free(h->names[i].unit);
  }
  tq_free(h->names);
  h->names = NULL;
  h->name_count = h->name_cap = 0;
}

static tq_status_t remember(tqh_history_t *h, int64_t id, const char *name, const char *unit) {
  if (h->name_count == h->name_cap) {
    size_t cap = h->name_cap ? h->name_cap * 2 : 32;
    tqh__history_name_t *n = tq_realloc(h->names, cap * sizeof(*n));
    if (!n) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
    h->names = n;
    h->name_cap = cap;
  }
  tqh__history_name_t *e = &h->names[h->name_count];
  e->id = id;
  e->name = tq_strndup(name, strlen(name));
  e->unit = tq_strndup(unit, strlen(unit));
  if (!e->name || !e->unit) {
    tq_free(e->name);
    tq_free(e->unit);
    return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  }
  h->name_count++;
  return NULL;
}

/* Reads the whole table into the cache (it holds tens of names). */
static tq_status_t load_names(tqh_history_t *h) {
  tqh__history_names_clear(h);
  sqlite3_stmt *s = NULL;
  TQ_TRY(tqh__history_prepare(h, "SELECT id, name, unit FROM metric_names", &s));
  tq_status_t st = NULL;
  int rc;
  while (!st && (rc = sqlite3_step(s)) == SQLITE_ROW)
    st = remember(h, sqlite3_column_int64(s, 0), (const char *)sqlite3_column_text(s, 1),
                  (const char *)sqlite3_column_text(s, 2));
  if (!st && rc != SQLITE_DONE) st = tqh__history_error(h, rc, "reading the metric names");
  sqlite3_finalize(s);
  return st;
}

static const tqh__history_name_t *cached(const tqh_history_t *h, const char *name) {
  for (size_t i = 0; i < h->name_count; i++)
    if (!strcmp(h->names[i].name, name)) return &h->names[i];
  return NULL;
}

tq_status_t tqh__history_name_id(tqh_history_t *h, const char *name, const char *unit, int create,
                                 int64_t *out_id) {
  *out_id = 0;
  const tqh__history_name_t *c = cached(h, name);
  if (!c) {
    TQ_TRY(load_names(h));
    c = cached(h, name);
  }
  if (c) {
    *out_id = c->id;
    return NULL;
  }
  if (!create) return NULL;
  sqlite3_stmt *s = NULL;
  TQ_TRY(tqh__history_prepare(h, "INSERT INTO metric_names(name, unit) VALUES(?1, ?2)", &s));
  sqlite3_bind_text(s, 1, name, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(s, 2, unit, -1, SQLITE_TRANSIENT);
  int rc = sqlite3_step(s);
  sqlite3_finalize(s);
  if (rc != SQLITE_DONE) return tqh__history_error(h, rc, "recording a metric name");
  *out_id = sqlite3_last_insert_rowid(h->db);
  return remember(h, *out_id, name, unit);
}

const tqh__history_name_t *tqh__history_name_of(tqh_history_t *h, int64_t id) {
  for (int pass = 0; pass < 2; pass++) {
    for (size_t i = 0; i < h->name_count; i++)
      if (h->names[i].id == id) return &h->names[i];
    if (pass == 0) {
      tq_status_t st = load_names(h);
      if (st) {
        tq_status_free(st);
        return NULL;
      }
    }
  }
  return NULL;
}

/* ---- Helpers -------------------------------------------------------------------------------- */

static tq_status_t oom(void) { return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory"); }

/* A text column copied into the arena (NULL stays NULL). */
static tq_status_t col_text(tq_arena_t *a, sqlite3_stmt *s, int i, const char **out) {
  const unsigned char *t = sqlite3_column_text(s, i);
  *out = NULL;
  if (!t) return NULL;
  *out = tq_arena_strndup(a, (const char *)t, (size_t)sqlite3_column_bytes(s, i));
  return *out ? NULL : oom();
}

/* Grows an arena array of `size`-byte items to hold one more. */
static void *grow(tq_arena_t *a, void *items, size_t count, size_t *cap, size_t size) {
  if (count < *cap) return items;
  size_t ncap = *cap ? *cap * 2 : 16;
  void *n = tq_arena_calloc(a, ncap, size);
  if (!n) return NULL;
  if (count) memcpy(n, items, count * size);
  *cap = ncap;
  return n;
}

/* ---- Runs ----------------------------------------------------------------------------------- */

tq_status_t tqh_history_list_runs(tqh_history_t *h, size_t last, tq_arena_t *arena,
                                  tqh_history_run_t **out, size_t *out_count) {
  *out = NULL;
  *out_count = 0;
  sqlite3_stmt *s = NULL, *c = NULL;
  TQ_TRY(tqh__history_prepare(h,
                              "SELECT id, run_id, started_at, finished_at, git_revision, target, "
                              "host, suites, command, run_dir, tool_version FROM runs "
                              "ORDER BY started_at DESC, id DESC LIMIT ?1",
                              &s));
  tq_status_t st = tqh__history_prepare(h,
                                        "SELECT outcome, count(*) FROM tests WHERE run = ?1 "
                                        "GROUP BY outcome",
                                        &c);
  sqlite3_bind_int64(s, 1, last ? (sqlite3_int64)last : -1);
  tqh_history_run_t *runs = NULL;
  size_t n = 0, cap = 0;
  int rc = SQLITE_DONE;
  while (!st && (rc = sqlite3_step(s)) == SQLITE_ROW) {
    runs = grow(arena, runs, n, &cap, sizeof(*runs));
    if (!runs) {
      st = oom();
      break;
    }
    tqh_history_run_t *r = &runs[n++];
    memset(r, 0, sizeof(*r));
    r->id = sqlite3_column_int64(s, 0);
    st = col_text(arena, s, 1, &r->run_id);
    r->started_at = sqlite3_column_double(s, 2);
    r->finished_at = sqlite3_column_double(s, 3);
    const char **texts[] = {&r->git_revision, &r->target, &r->host,   &r->suites,
                            &r->command,      &r->run_dir, &r->tool_version};
    for (int i = 0; !st && i < 7; i++) st = col_text(arena, s, 4 + i, texts[i]);
    sqlite3_bind_int64(c, 1, r->id);
    int crc;
    while (!st && (crc = sqlite3_step(c)) == SQLITE_ROW) {
      const char *outcome = (const char *)sqlite3_column_text(c, 0);
      size_t k = (size_t)sqlite3_column_int64(c, 1);
      r->tests += k;
      tqh_outcome_t o;
      if (outcome && tqh_outcome_parse(tq_sv_cstr(outcome), &o)) r->counts[o] += k;
    }
    sqlite3_reset(c);
  }
  if (!st && rc != SQLITE_DONE) st = tqh__history_error(h, rc, "listing the runs");
  sqlite3_finalize(s);
  sqlite3_finalize(c);
  if (st) return st;
  /* Oldest first. */
  for (size_t i = 0; i < n / 2; i++) {
    tqh_history_run_t t = runs[i];
    runs[i] = runs[n - 1 - i];
    runs[n - 1 - i] = t;
  }
  *out = runs;
  *out_count = n;
  return NULL;
}

/* ---- Tests ---------------------------------------------------------------------------------- */

static tq_status_t read_keys(tqh_history_t *h, sqlite3_stmt *s, tq_arena_t *arena,
                             tqh_history_key_t **out, size_t *out_count) {
  tqh_history_key_t *keys = NULL;
  size_t n = 0, cap = 0;
  tq_status_t st = NULL;
  int rc;
  while (!st && (rc = sqlite3_step(s)) == SQLITE_ROW) {
    keys = grow(arena, keys, n, &cap, sizeof(*keys));
    if (!keys) {
      st = oom();
      break;
    }
    tqh_history_key_t *k = &keys[n++];
    st = col_text(arena, s, 0, &k->suite);
    if (!st) st = col_text(arena, s, 1, &k->name);
    if (!st) st = col_text(arena, s, 2, &k->target);
  }
  if (!st && rc != SQLITE_DONE) st = tqh__history_error(h, rc, "listing the tests");
  if (!st) {
    *out = keys;
    *out_count = n;
  }
  return st;
}

tq_status_t tqh_history_list_tests(tqh_history_t *h, size_t last_runs, tq_arena_t *arena,
                                   tqh_history_key_t **out, size_t *out_count) {
  *out = NULL;
  *out_count = 0;
  sqlite3_stmt *s = NULL;
  TQ_TRY(tqh__history_prepare(h,
                              "SELECT DISTINCT suite, name, target FROM tests WHERE run IN "
                              "(SELECT id FROM runs ORDER BY started_at DESC, id DESC LIMIT ?1) "
                              "ORDER BY suite, name, target",
                              &s));
  sqlite3_bind_int64(s, 1, last_runs ? (sqlite3_int64)last_runs : -1);
  tq_status_t st = read_keys(h, s, arena, out, out_count);
  sqlite3_finalize(s);
  return st;
}

tq_status_t tqh_history_find_tests(tqh_history_t *h, const char *id, tq_arena_t *arena,
                                   tqh_history_key_t **out, size_t *out_count) {
  *out = NULL;
  *out_count = 0;
  /* "suite/name" splits at its first '/' (suite names hold none) and is found through the
   * index; a bare name (or a name with '/' whose first part is no suite) matches any suite. */
  const char *slash = strchr(id, '/');
  tq_status_t st = NULL;
  for (int pass = slash ? 0 : 1; pass < 2 && !st && !*out_count; pass++) {
    sqlite3_stmt *s = NULL;
    TQ_TRY(tqh__history_prepare(h,
                                pass == 0 ? "SELECT DISTINCT suite, name, target FROM tests "
                                            "WHERE suite = ?1 AND name = ?2 "
                                            "ORDER BY suite, name, target"
                                          : "SELECT DISTINCT suite, name, target FROM tests "
                                            "WHERE name = ?3 ORDER BY suite, name, target",
                                &s));
    if (pass == 0) {
      sqlite3_bind_text(s, 1, id, (int)(slash - id), SQLITE_TRANSIENT);
      sqlite3_bind_text(s, 2, slash + 1, -1, SQLITE_TRANSIENT);
    } else {
      sqlite3_bind_text(s, 3, id, -1, SQLITE_TRANSIENT);
    }
    st = read_keys(h, s, arena, out, out_count);
    sqlite3_finalize(s);
  }
  return st;
}

/* ---- Entries --------------------------------------------------------------------------------
 * Two queries whatever the number of runs: the test's rows (newest first, limited), then every
 * metric of those rows at once, matched back to its entry by test id. */

#define ENTRY_ROWS                                                                            \
  "FROM tests t JOIN runs r ON r.id = t.run "                                                \
  "WHERE t.suite = ?1 AND t.name = ?2 AND t.target = ?3 AND (?4 <= 0 OR t.run_started < ?4) " \
  "AND (?5 IS NULL OR r.run_id <> ?5) ORDER BY t.run_started DESC, t.run DESC LIMIT ?6"

static void bind_entry_query(sqlite3_stmt *s, const tqh_history_key_t *key, size_t last,
                             double before, const char *exclude_run_id) {
  sqlite3_bind_text(s, 1, key->suite, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(s, 2, key->name, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(s, 3, key->target ? key->target : "sim", -1, SQLITE_TRANSIENT);
  sqlite3_bind_double(s, 4, before);
  if (exclude_run_id)
    sqlite3_bind_text(s, 5, exclude_run_id, -1, SQLITE_TRANSIENT);
  else
    sqlite3_bind_null(s, 5);
  sqlite3_bind_int64(s, 6, last ? (sqlite3_int64)last : -1);
}

typedef struct by_test_s {
  int64_t test;
  size_t entry;
} by_test_t;

static int cmp_by_test(const void *a, const void *b) {
  int64_t x = ((const by_test_t *)a)->test, y = ((const by_test_t *)b)->test;
  return (x > y) - (x < y);
}

static int cmp_metric(const void *a, const void *b) {
  return strcmp(((const tqh_history_metric_t *)a)->name, ((const tqh_history_metric_t *)b)->name);
}

/* Adds the metric of row `m` to entry `e`. */
static tq_status_t add_metric(tqh_history_t *h, sqlite3_stmt *m, tq_arena_t *arena,
                              tqh_history_entry_t *e, size_t *cap) {
  const tqh__history_name_t *name = tqh__history_name_of(h, sqlite3_column_int64(m, 1));
  if (!name) return NULL;
  e->metrics = grow(arena, e->metrics, e->metric_count, cap, sizeof(*e->metrics));
  if (!e->metrics) return oom();
  tqh_history_metric_t *x = &e->metrics[e->metric_count++];
  memset(x, 0, sizeof(*x));
  x->name = tq_arena_strndup(arena, name->name, strlen(name->name));
  x->unit = tq_arena_strndup(arena, name->unit, strlen(name->unit));
  if (!x->name || !x->unit) return oom();
  x->value = sqlite3_column_double(m, 2);
  const unsigned char *blob = sqlite3_column_blob(m, 3);
  size_t n = (size_t)sqlite3_column_bytes(m, 3) / 8;
  if (blob && n) {
    double *v = tq_arena_calloc(arena, n, sizeof(*v));
    if (!v) return oom();
    for (size_t i = 0; i < n; i++) v[i] = tqh__history_get_le64(blob + 8 * i);
    x->samples = v;
    x->sample_count = n;
  }
  return NULL;
}

enum { MAX_FILTER = 32 };

tq_status_t tqh_history_entries(tqh_history_t *h, const tqh_history_key_t *key, size_t last,
                                double before, const char *exclude_run_id,
                                const char *const *metrics, size_t metric_count,
                                tq_arena_t *arena, tqh_history_entry_t **out,
                                size_t *out_count) {
  *out = NULL;
  *out_count = 0;
  /* The metrics asked for, as ids (one that was never recorded matches nothing: id -1). */
  int64_t only[MAX_FILTER];
  size_t nonly = 0;
  if (metrics && metric_count > MAX_FILTER)
    return TQ_STATUS(TQ_INVALID_ARGUMENT, "at most %d metrics at once", MAX_FILTER);
  for (size_t i = 0; metrics && i < metric_count; i++) {
    TQ_TRY(tqh__history_name_id(h, metrics[i], "", 0, &only[nonly]));
    if (!only[nonly]) only[nonly] = -1;
    nonly++;
  }
  if (metrics && !nonly) only[nonly++] = -1;
  char filter[MAX_FILTER * 5 + 32] = "";
  if (nonly) {
    size_t len = (size_t)snprintf(filter, sizeof(filter), "m.metric IN (");
    for (size_t i = 0; i < nonly; i++) /* ?7, ?8, ...: after the row query's ?1..?6 */
      len += (size_t)snprintf(filter + len, sizeof(filter) - len, "%s?%zu", i ? "," : "", 7 + i);
    snprintf(filter + len, sizeof(filter) - len, ") AND ");
  }
  sqlite3_stmt *s = NULL, *m = NULL;
  TQ_TRY(tqh__history_prepare(h,
                              "SELECT t.id, r.id, r.run_id, r.started_at, r.git_revision, "
                              "r.target, t.outcome, t.message, t.duration " ENTRY_ROWS,
                              &s));
  char *sql = tq_strdup_printf("SELECT m.test, m.metric, m.value, m.samples FROM metrics m "
                               "WHERE %sm.test IN (SELECT t.id " ENTRY_ROWS ") ORDER BY m.test",
                               filter);
  tq_status_t st = sql ? tqh__history_prepare(h, sql, &m) : oom();
  tq_free(sql);
  bind_entry_query(s, key, last, before, exclude_run_id);
  tqh_history_entry_t *entries = NULL;
  by_test_t *ids = NULL;
  size_t n = 0, cap = 0, ids_cap = 0;
  int rc = SQLITE_DONE;
  while (!st && (rc = sqlite3_step(s)) == SQLITE_ROW) {
    entries = grow(arena, entries, n, &cap, sizeof(*entries));
    ids = grow(arena, ids, n, &ids_cap, sizeof(*ids));
    if (!entries || !ids) {
      st = oom();
      break;
    }
    tqh_history_entry_t *e = &entries[n];
    memset(e, 0, sizeof(*e));
    ids[n] = (by_test_t){sqlite3_column_int64(s, 0), n};
    n++;
    e->run.id = sqlite3_column_int64(s, 1);
    st = col_text(arena, s, 2, &e->run.run_id);
    e->run.started_at = sqlite3_column_double(s, 3);
    if (!st) st = col_text(arena, s, 4, &e->run.git_revision);
    if (!st) st = col_text(arena, s, 5, &e->run.target);
    if (!st) st = col_text(arena, s, 6, &e->outcome);
    if (!st) st = col_text(arena, s, 7, &e->message);
    e->duration = sqlite3_column_double(s, 8);
  }
  if (!st && rc != SQLITE_DONE) st = tqh__history_error(h, rc, "reading a test's runs");
  if (!st && n) {
    qsort(ids, n, sizeof(*ids), cmp_by_test);
    bind_entry_query(m, key, last, before, exclude_run_id);
    for (size_t i = 0; i < nonly; i++) sqlite3_bind_int64(m, 7 + (int)i, only[i]);
    size_t k = 0, mcap = 0;
    while (!st && (rc = sqlite3_step(m)) == SQLITE_ROW) {
      int64_t test = sqlite3_column_int64(m, 0);
      while (k < n && ids[k].test < test) k++, mcap = 0;
      if (k < n && ids[k].test == test) st = add_metric(h, m, arena, &entries[ids[k].entry], &mcap);
    }
    if (!st && rc != SQLITE_DONE) st = tqh__history_error(h, rc, "reading metrics");
  }
  sqlite3_finalize(s);
  sqlite3_finalize(m);
  if (st) return st;
  for (size_t i = 0; i < n; i++)
    if (entries[i].metric_count > 1)
      qsort(entries[i].metrics, entries[i].metric_count, sizeof(*entries[i].metrics), cmp_metric);
  for (size_t i = 0; i < n / 2; i++) {
    tqh_history_entry_t t = entries[i];
    entries[i] = entries[n - 1 - i];
    entries[n - 1 - i] = t;
  }
  *out = entries;
  *out_count = n;
  return NULL;
}

const tqh_history_metric_t *tqh_history_entry_metric(const tqh_history_entry_t *entry,
                                                     const char *name) {
  size_t lo = 0, hi = entry->metric_count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = strcmp(entry->metrics[mid].name, name);
    if (!c) return &entry->metrics[mid];
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return NULL;
}
