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

int tqh_history_read_begin(tqh_history_t *h) {
  if (!sqlite3_get_autocommit(h->db)) return 0;
  tq_status_t st = tqh__history_exec(h, "BEGIN");
  tq_status_free(st);
  return st == NULL;
}

void tqh_history_read_end(tqh_history_t *h, int began) {
  if (began) tq_status_free(tqh__history_exec(h, "COMMIT"));
}

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
 * One query whatever the number of runs: the test's rows (newest first, limited) in a
 * subquery, each joined with its metrics, oldest first. The rows come from the index on
 * (suite, name, target, run_started, run, outcome, duration) alone; a row's message (failures
 * only) is the one read from the table. The rows are not sorted by SQLite (a sort of every
 * metric row costs more than the read): they are gathered by test row, whatever order they come
 * in, and the entries put in order after. The statement without a metric filter (the trends
 * page's, once per test) is kept prepared in the handle. */

#define ENTRY_QUERY(FILTER)                                                                   \
  "SELECT e.tid, e.rid, e.run_id, e.started_at, e.git_revision, e.target, e.outcome, "       \
  "e.message, e.duration, m.metric, m.value, m.samples, e.rs, e.rn FROM ("                    \
  "SELECT t.id AS tid, r.id AS rid, r.run_id, r.started_at, r.git_revision, r.target, "      \
  "t.outcome, CASE WHEN t.outcome <> 'passed' THEN "                                         \
  "(SELECT x.message FROM tests x WHERE x.id = t.id) END AS message, t.duration, "           \
  "t.run_started AS rs, t.run AS rn "                                                         \
  "FROM tests t JOIN runs r ON r.id = t.run "                                                \
  "WHERE t.suite = ?1 AND t.name = ?2 AND t.target = ?3 AND (?4 <= 0 OR t.run_started < ?4) " \
  "AND (?5 IS NULL OR r.run_id <> ?5) ORDER BY t.run_started DESC, t.run DESC LIMIT ?6) e "  \
  "LEFT JOIN metrics m ON m.test = e.tid" FILTER

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

typedef struct order_s {
  int64_t test;   /* the test row */
  double started; /* its run's start */
  int64_t run;
  size_t entry;   /* its entry, in the order rows came */
} order_t;

static int cmp_order(const void *a, const void *b) {
  const order_t *x = a, *y = b;
  if (x->started != y->started) return x->started < y->started ? -1 : 1;
  return (x->run > y->run) - (x->run < y->run);
}

static int cmp_metric(const void *a, const void *b) {
  return strcmp(((const tqh_history_metric_t *)a)->name, ((const tqh_history_metric_t *)b)->name);
}

/* The metric names and units of one call, copied into its arena once per metric id. */
typedef struct interned_s {
  int64_t id;
  const char *name, *unit;
} interned_t;

typedef struct interner_s {
  interned_t *items;
  size_t count, cap;
} interner_t;

static tq_status_t intern(tqh_history_t *h, tq_arena_t *arena, interner_t *in, int64_t id,
                          const interned_t **out) {
  *out = NULL;
  for (size_t i = 0; i < in->count; i++)
    if (in->items[i].id == id) {
      *out = &in->items[i];
      return NULL;
    }
  const tqh__history_name_t *name = tqh__history_name_of(h, id);
  if (!name) return NULL; /* a metric whose name is gone: left out */
  in->items = grow(arena, in->items, in->count, &in->cap, sizeof(*in->items));
  if (!in->items) return oom();
  interned_t *x = &in->items[in->count];
  x->id = id;
  x->name = tq_arena_strndup(arena, name->name, strlen(name->name));
  x->unit = tq_arena_strndup(arena, name->unit, strlen(name->unit));
  if (!x->name || !x->unit) return oom();
  in->count++;
  *out = x;
  return NULL;
}

/* Adds the metric of row `s` (columns 9..11) to entry `e`. */
static tq_status_t add_metric(tqh_history_t *h, sqlite3_stmt *s, tq_arena_t *arena,
                              interner_t *names, tqh_history_entry_t *e, size_t *cap) {
  const interned_t *name = NULL;
  TQ_TRY(intern(h, arena, names, sqlite3_column_int64(s, 9), &name));
  if (!name) return NULL;
  e->metrics = grow(arena, e->metrics, e->metric_count, cap, sizeof(*e->metrics));
  if (!e->metrics) return oom();
  tqh_history_metric_t *x = &e->metrics[e->metric_count++];
  memset(x, 0, sizeof(*x));
  x->name = name->name;
  x->unit = name->unit;
  x->value = sqlite3_column_double(s, 10);
  const unsigned char *blob = sqlite3_column_blob(s, 11);
  size_t n = (size_t)sqlite3_column_bytes(s, 11) / 8;
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
  sqlite3_stmt *s = NULL;
  if (nonly) {
    char filter[MAX_FILTER * 5 + 32];
    size_t len = (size_t)snprintf(filter, sizeof(filter), " AND m.metric IN (");
    for (size_t i = 0; i < nonly; i++) /* ?7, ?8, ...: after ?1..?6 */
      len += (size_t)snprintf(filter + len, sizeof(filter) - len, "%s?%zu", i ? "," : "", 7 + i);
    snprintf(filter + len, sizeof(filter) - len, ")");
    char *sql = tq_strdup_printf(ENTRY_QUERY("%s"), filter);
    tq_status_t st = sql ? tqh__history_prepare(h, sql, &s) : oom();
    tq_free(sql);
    if (st) return st;
    for (size_t i = 0; i < nonly; i++) sqlite3_bind_int64(s, 7 + (int)i, only[i]);
  } else {
    if (!h->entries_all) TQ_TRY(tqh__history_prepare(h, ENTRY_QUERY(""), &h->entries_all));
    s = h->entries_all;
  }
  bind_entry_query(s, key, last, before, exclude_run_id);
  tqh_history_entry_t *entries = NULL;
  order_t *order = NULL; /* per entry: its test row, and where it goes */
  interner_t names = {0};
  size_t n = 0, cap = 0, ocap = 0, at = 0;
  size_t *mcaps = NULL, mcaps_cap = 0;
  tq_status_t st = NULL;
  int rc;
  while (!st && (rc = sqlite3_step(s)) == SQLITE_ROW) {
    int64_t tid = sqlite3_column_int64(s, 0);
    if (!n || order[at].test != tid) {
      /* Another test row: seen before (rows out of order), or new. */
      size_t i = n;
      while (i > 0 && order[i - 1].test != tid) i--;
      if (i) {
        at = i - 1;
      } else {
        entries = grow(arena, entries, n, &cap, sizeof(*entries));
        order = grow(arena, order, n, &ocap, sizeof(*order));
        mcaps = grow(arena, mcaps, n, &mcaps_cap, sizeof(*mcaps));
        if (!entries || !order || !mcaps) {
          st = oom();
          break;
        }
        at = n++;
        tqh_history_entry_t *e = &entries[at];
        memset(e, 0, sizeof(*e));
        order[at] = (order_t){tid, sqlite3_column_double(s, 12), sqlite3_column_int64(s, 13), at};
        mcaps[at] = 0;
        e->run.id = sqlite3_column_int64(s, 1);
        st = col_text(arena, s, 2, &e->run.run_id);
        e->run.started_at = sqlite3_column_double(s, 3);
        if (!st) st = col_text(arena, s, 4, &e->run.git_revision);
        if (!st) st = col_text(arena, s, 5, &e->run.target);
        if (!st) st = col_text(arena, s, 6, &e->outcome);
        if (!st) st = col_text(arena, s, 7, &e->message);
        e->duration = sqlite3_column_double(s, 8);
      }
    }
    if (!st && sqlite3_column_type(s, 9) != SQLITE_NULL)
      st = add_metric(h, s, arena, &names, &entries[at], &mcaps[at]);
  }
  if (!st && rc != SQLITE_DONE) st = tqh__history_error(h, rc, "reading a test's runs");
  if (s == h->entries_all) {
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
  } else {
    sqlite3_finalize(s);
  }
  if (st) return st;
  /* Oldest first; each entry's metrics by name (they came in id order). */
  if (n > 1) qsort(order, n, sizeof(*order), cmp_order);
  tqh_history_entry_t *sorted = n ? tq_arena_calloc(arena, n, sizeof(*sorted)) : NULL;
  if (n && !sorted) return oom();
  for (size_t i = 0; i < n; i++) {
    sorted[i] = entries[order[i].entry];
    if (sorted[i].metric_count > 1)
      qsort(sorted[i].metrics, sorted[i].metric_count, sizeof(*sorted[i].metrics), cmp_metric);
  }
  entries = sorted;
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
