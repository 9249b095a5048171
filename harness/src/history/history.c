/* The run history (history.h): the SQLite database, its schema and migrations, and recording a
 * run. Reading it back is history_query.c. SQLite's error convention is converted here only
 * (tqh__history_error). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "history_internal.h"
#include "torq/harness/journal.h"
#include "torq/base/alloc.h"
#include "torq/base/file.h"
#include "torq/harness/json.h"
#include "torq/harness/process.h"

void tqh_history_options_initialize(tqh_history_options_t *options) {
  memset(options, 0, sizeof(*options));
  options->busy_timeout_ms = 30000;
}

tq_status_t tqh__history_error(tqh_history_t *h, int rc, const char *what) {
  tq_status_code_t code = TQ_IO;
  if (rc == SQLITE_NOTADB || rc == SQLITE_CORRUPT) code = TQ_INVALID_INPUT;
  if (rc == SQLITE_NOMEM) code = TQ_OUT_OF_MEMORY;
  const char *msg = h && h->db ? sqlite3_errmsg(h->db) : sqlite3_errstr(rc);
  return TQ_STATUS(code, "history %s: %s: %s", h && h->path ? h->path : "", what, msg);
}

tq_status_t tqh__history_exec(tqh_history_t *h, const char *sql) {
  int rc = sqlite3_exec(h->db, sql, NULL, NULL, NULL);
  return rc == SQLITE_OK ? NULL : tqh__history_error(h, rc, sql);
}

tq_status_t tqh__history_prepare(tqh_history_t *h, const char *sql, sqlite3_stmt **out) {
  int rc = sqlite3_prepare_v2(h->db, sql, -1, out, NULL);
  return rc == SQLITE_OK ? NULL : tqh__history_error(h, rc, "preparing a query");
}

/* ---- Schema --------------------------------------------------------------------------------
 * Each step takes the database from version i to i + 1. Never edit a step that shipped: add
 * one. */
static const char *const k_migrations[TQH_HISTORY_SCHEMA_VERSION] = {
    /* 0 -> 1: runs, tests, their metrics. */
    "CREATE TABLE runs("
    "  id INTEGER PRIMARY KEY,"
    "  run_id TEXT NOT NULL UNIQUE,"
    "  started_at REAL, finished_at REAL,"
    "  git_revision TEXT, target TEXT, host TEXT, suites TEXT, command TEXT, run_dir TEXT,"
    "  tool_version TEXT);"
    "CREATE TABLE tests("
    "  id INTEGER PRIMARY KEY,"
    "  run INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    "  run_started REAL,"
    "  suite TEXT NOT NULL, name TEXT NOT NULL, target TEXT NOT NULL,"
    "  outcome TEXT NOT NULL, message TEXT,"
    "  started_at REAL, duration REAL, compile_time REAL, run_time REAL);"
    /* A test's last N runs straight from the index: its run's start is kept beside it. */
    "CREATE INDEX tests_by_test ON tests(suite, name, target, run_started, run);"
    "CREATE INDEX tests_by_run ON tests(run);"
    "CREATE TABLE metric_names("
    "  id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, unit TEXT NOT NULL);"
    "CREATE TABLE metrics("
    "  test INTEGER NOT NULL REFERENCES tests(id) ON DELETE CASCADE,"
    "  metric INTEGER NOT NULL REFERENCES metric_names(id),"
    "  value REAL NOT NULL, samples BLOB,"
    "  PRIMARY KEY(test, metric)) WITHOUT ROWID;",
    /* 1 -> 2: which machine ran a test (a board's name in a pool), and runs by time (the
     * last N runs are the latest started, whatever order they were imported in). */
    "ALTER TABLE tests ADD COLUMN host TEXT;"
    "CREATE INDEX runs_by_start ON runs(started_at);",
    /* 2 -> 3: a test's runs with their outcome and duration from the index alone (history show
     * and the trends page read nothing else of the rows but a failure's message); it replaces
     * the index it extends. */
    "CREATE INDEX tests_by_test_run ON tests(suite, name, target, run_started, run, outcome, "
    "duration);"
    "DROP INDEX tests_by_test;",
};

/* The one integer a statement answers (`what` names it in an error). */
static tq_status_t query_int(tqh_history_t *h, const char *sql, const char *what, int *out) {
  sqlite3_stmt *s = NULL;
  TQ_TRY(tqh__history_prepare(h, sql, &s));
  int rc = sqlite3_step(s);
  *out = rc == SQLITE_ROW ? sqlite3_column_int(s, 0) : 0;
  sqlite3_finalize(s);
  return rc == SQLITE_ROW ? NULL : tqh__history_error(h, rc, what);
}

static tq_status_t user_version(tqh_history_t *h, int *out) {
  return query_int(h, "PRAGMA user_version", "reading the schema version", out);
}

/* Whether the database holds tables (a version-0 file that is not empty is someone else's). */
static tq_status_t has_tables(tqh_history_t *h, int *out) {
  TQ_TRY(query_int(h, "SELECT count(*) FROM sqlite_master", "reading the schema", out));
  *out = *out > 0;
  return NULL;
}

/* Brings the schema to `target`, in one transaction that holds the write lock, so that two
 * processes opening a new database at once migrate it once. */
static tq_status_t migrate(tqh_history_t *h, int target) {
  int version = 0;
  TQ_TRY(user_version(h, &version));
  if (version > TQH_HISTORY_SCHEMA_VERSION)
    return TQ_STATUS(TQ_INVALID_INPUT,
                     "history %s has schema version %d; this torq-test knows versions up to %d "
                     "(use a newer torq-test)",
                     h->path, version, TQH_HISTORY_SCHEMA_VERSION);
  if (version >= target) return NULL;
  TQ_TRY(tqh__history_exec(h, "BEGIN IMMEDIATE"));
  tq_status_t st = user_version(h, &version);
  int tables = 0;
  if (!st && version == 0) st = has_tables(h, &tables);
  if (!st && version == 0 && tables)
    st = TQ_STATUS(TQ_INVALID_INPUT, "%s is an SQLite database, but not a torq-test history",
                   h->path);
  for (; !st && version < target; version++) {
    st = tqh__history_exec(h, k_migrations[version]);
    if (!st) {
      char sql[64];
      snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", version + 1);
      st = tqh__history_exec(h, sql);
    }
    if (st) st = tq_status_annotate(st, "migrating to schema version %d", version + 1);
  }
  if (!st) return tqh__history_exec(h, "COMMIT");
  tq_status_free(tqh__history_exec(h, "ROLLBACK"));
  return st;
}

/* Puts the database in WAL mode. SQLite takes the lock for the switch without calling the busy
 * handler, so two processes opening a new history at once can find it locked ("database is
 * locked" at once): that is waited out here, up to the busy timeout, as a writer waits. */
static tq_status_t enable_wal(tqh_history_t *h, int timeout_ms) {
  struct timespec pause = {0, 1000000};
  uint64_t start = tqh_now_ns();
  for (;;) {
    int rc = sqlite3_exec(h->db, "PRAGMA journal_mode=WAL", NULL, NULL, NULL);
    if (rc == SQLITE_OK) return NULL;
    if ((rc & 0xff) != SQLITE_BUSY || tqh_now_ns() - start >= (uint64_t)timeout_ms * 1000000u)
      return tqh__history_error(h, rc, "PRAGMA journal_mode=WAL");
    nanosleep(&pause, NULL);
    if (pause.tv_nsec < 32000000) pause.tv_nsec *= 2;
  }
}

static tq_status_t open_history(const char *path, const tqh_history_options_t *o, int target,
                                tqh_history_t **out) {
  *out = NULL;
  tqh_history_options_t defaults;
  tqh_history_options_initialize(&defaults);
  if (!o) o = &defaults;
  struct stat sb;
  if (o->read_only && stat(path, &sb) != 0)
    return TQ_STATUS(TQ_NOT_FOUND, "no history at %s: %s", path, strerror(errno));
  if (!o->read_only) {
    /* Its folder, as the results folder is made. */
    char *dir = tq_strndup(path, strlen(path));
    char *slash = dir ? strrchr(dir, '/') : NULL;
    tq_status_t st = NULL;
    if (!dir) st = TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
    if (slash && slash != dir) {
      *slash = 0;
      st = tq_file_mkdirs(dir);
    }
    tq_free(dir);
    if (st) return tq_status_annotate(st, "making the history's folder");
  }
  tqh_history_t *h = tq_calloc(1, sizeof(*h));
  if (!h || !(h->path = tq_strndup(path, strlen(path)))) {
    tq_free(h);
    return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  }
  int flags = o->read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  int rc = sqlite3_open_v2(path, &h->db, flags | SQLITE_OPEN_NOMUTEX, NULL);
  tq_status_t st = rc == SQLITE_OK ? NULL : tqh__history_error(h, rc, "opening");
  int timeout_ms = o->busy_timeout_ms > 0 ? o->busy_timeout_ms : 30000;
  if (!st) sqlite3_busy_timeout(h->db, timeout_ms);
  if (!st && !o->read_only) {
    /* WAL: readers never block the writer, and a killed writer leaves the database as the
     * last committed transaction made it. NORMAL sync is safe against a killed process. */
    st = enable_wal(h, timeout_ms);
    if (!st) st = tqh__history_exec(h, "PRAGMA synchronous=NORMAL");
  }
  if (!st) st = tqh__history_exec(h, "PRAGMA foreign_keys=ON");
  /* Reading a test's runs touches pages all over a large file: map it and cache more of it
   * than SQLite's default 2 MB, instead of a pread and a copy per page. */
  if (!st) st = tqh__history_exec(h, "PRAGMA mmap_size=268435456");
  if (!st) st = tqh__history_exec(h, "PRAGMA cache_size=-65536");
  if (!st && !o->read_only) st = migrate(h, target);
  if (!st && o->read_only) {
    int version = 0;
    st = user_version(h, &version);
    if (!st && version > TQH_HISTORY_SCHEMA_VERSION)
      st = TQ_STATUS(TQ_INVALID_INPUT,
                     "history %s has schema version %d; this torq-test knows versions up to %d",
                     path, version, TQH_HISTORY_SCHEMA_VERSION);
    if (!st && version == 0)
      st = TQ_STATUS(TQ_INVALID_INPUT, "%s is not a torq-test history (no schema)", path);
  }
  if (st) {
    tqh_history_close(h);
    return st;
  }
  *out = h;
  return NULL;
}

tq_status_t tqh_history_open(const char *path, const tqh_history_options_t *options,
                             tqh_history_t **out) {
  return open_history(path, options, TQH_HISTORY_SCHEMA_VERSION, out);
}

tq_status_t tqh_history_open_at_version(const char *path, int version, tqh_history_t **out) {
  if (version < 1 || version > TQH_HISTORY_SCHEMA_VERSION)
    return TQ_STATUS(TQ_INVALID_ARGUMENT, "no schema version %d", version);
  return open_history(path, NULL, version, out);
}

int tqh_history_schema_version(tqh_history_t *history) {
  int v = 0;
  tq_status_free(user_version(history, &v));
  return v;
}

void tqh_history_close(tqh_history_t *history) {
  if (!history) return;
  tqh__history_names_clear(history);
  sqlite3_finalize(history->entries_all);
  if (history->db) sqlite3_close(history->db);
  tq_free(history->path);
  tq_free(history);
}

const char *tqh_history_path(const tqh_history_t *history) { return history->path; }

/* ---- Recording ------------------------------------------------------------------------------ */

tqh_history_key_t tqh_history_key_of(const tqh_test_record_t *r) {
  tqh_history_key_t k = {r->classname ? r->classname : "", r->name ? r->name : "", "sim"};
  for (size_t i = 0; i < r->property_count; i++)
    if (r->properties[i].key && !strcmp(r->properties[i].key, "target") && r->properties[i].value)
      k.target = r->properties[i].value;
  return k;
}

static void bind_text(sqlite3_stmt *s, int i, const char *v) {
  if (v)
    sqlite3_bind_text(s, i, v, -1, SQLITE_TRANSIENT);
  else
    sqlite3_bind_null(s, i);
}

static void bind_time(sqlite3_stmt *s, int i, double v) {
  if (v > 0 && isfinite(v))
    sqlite3_bind_double(s, i, v);
  else
    sqlite3_bind_null(s, i);
}

/* Runs a prepared insert to its end and resets it. */
static tq_status_t step_done(tqh_history_t *h, sqlite3_stmt *s, const char *what) {
  int rc = sqlite3_step(s);
  sqlite3_reset(s);
  sqlite3_clear_bindings(s);
  return rc == SQLITE_DONE ? NULL : tqh__history_error(h, rc, what);
}

/* Metric rows go in up to METRIC_ROWS at a time, in one statement: a statement's own cost (its
 * statement journal, its halt) was most of a row's, and a run writes a row per metric of every
 * test. In one statement the rows go in in order, so a later row of a test's metric replaces the
 * earlier as one statement per row did. */
enum { METRIC_ROWS = 16 };

typedef struct metric_rows_s {
  sqlite3_stmt *ins[METRIC_ROWS]; /* ins[k]: k + 1 rows; prepared when first needed */
  size_t count;
  struct {
    int64_t test, metric;
    double value;
    unsigned char *samples; /* little-endian doubles; NULL for none */
    size_t samples_size;
  } row[METRIC_ROWS];
} metric_rows_t;

static void metric_rows_deinit(metric_rows_t *rows) {
  for (size_t k = 0; k < METRIC_ROWS; k++) sqlite3_finalize(rows->ins[k]);
  for (size_t i = 0; i < rows->count; i++) tq_free(rows->row[i].samples);
  memset(rows, 0, sizeof(*rows));
}

/* Inserts the rows held, with the statement for that many. */
static tq_status_t metric_rows_flush(tqh_history_t *h, metric_rows_t *rows) {
  size_t n = rows->count;
  if (!n) return NULL;
  tq_status_t st = NULL;
  sqlite3_stmt **ins = &rows->ins[n - 1];
  if (!*ins) {
    tq_buf_t sql;
    tq_buf_init(&sql, 0);
    st = tq_buf_append_cstr(&sql,
                            "INSERT OR REPLACE INTO metrics(test, metric, value, samples) "
                            "VALUES(?, ?, ?, ?)");
    for (size_t i = 1; !st && i < n; i++) st = tq_buf_append_cstr(&sql, ", (?, ?, ?, ?)");
    if (!st) st = tqh__history_prepare(h, sql.data, ins);
    tq_buf_deinit(&sql);
  }
  for (size_t i = 0; !st && i < n; i++) {
    int at = (int)(4 * i);
    sqlite3_bind_int64(*ins, at + 1, rows->row[i].test);
    sqlite3_bind_int64(*ins, at + 2, rows->row[i].metric);
    sqlite3_bind_double(*ins, at + 3, rows->row[i].value);
    if (rows->row[i].samples)
      sqlite3_bind_blob(*ins, at + 4, rows->row[i].samples, (int)rows->row[i].samples_size,
                        SQLITE_TRANSIENT);
    else
      sqlite3_bind_null(*ins, at + 4);
  }
  if (!st) st = step_done(h, *ins, "recording a metric");
  for (size_t i = 0; i < n; i++) tq_free(rows->row[i].samples);
  rows->count = 0;
  return st;
}

/* One metric row: the value, and the samples as little-endian doubles. */
static tq_status_t put_metric(tqh_history_t *h, metric_rows_t *rows, int64_t test, const char *name,
                              const char *unit, double value, const double *samples, size_t n) {
  int64_t id = 0;
  TQ_TRY(tqh__history_name_id(h, name, unit, 1, &id));
  unsigned char *blob = NULL;
  if (samples && n) {
    blob = tq_malloc(n * 8);
    if (!blob) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
    for (size_t i = 0; i < n; i++) tqh__history_put_le64(blob + 8 * i, samples[i]);
  }
  size_t i = rows->count++;
  rows->row[i].test = test;
  rows->row[i].metric = id;
  rows->row[i].value = isfinite(value) ? value : 0.0;
  rows->row[i].samples = blob;
  rows->row[i].samples_size = n * 8;
  return rows->count == METRIC_ROWS ? metric_rows_flush(h, rows) : NULL;
}

static tq_status_t put_test(tqh_history_t *h, sqlite3_stmt *ins_test, metric_rows_t *metrics,
                            int64_t run, double run_started, const tqh_test_record_t *r) {
  tqh_history_key_t k = tqh_history_key_of(r);
  bind_text(ins_test, 1, k.suite);
  bind_text(ins_test, 2, k.name);
  bind_text(ins_test, 3, k.target);
  sqlite3_bind_int64(ins_test, 4, run);
  bind_text(ins_test, 5, tqh_outcome_name(r->outcome));
  bind_text(ins_test, 6, r->message);
  bind_time(ins_test, 7, r->started_at);
  sqlite3_bind_double(ins_test, 8, r->duration_s);
  sqlite3_bind_double(ins_test, 9, r->compile_s);
  sqlite3_bind_double(ins_test, 10, r->run_s);
  bind_text(ins_test, 11, r->host);
  bind_time(ins_test, 12, run_started);
  TQ_TRY(step_done(h, ins_test, "recording a test"));
  int64_t test = sqlite3_last_insert_rowid(h->db);
  if (r->has_wall_time)
    TQ_TRY(put_metric(h, metrics, test, "wall_time", "s", r->wall_stats.median,
                      r->wall_samples, r->wall_sample_count));
  if (r->has_device_time)
    TQ_TRY(put_metric(h, metrics, test, "device_time", "s", r->device_stats.median,
                      r->device_samples, r->device_sample_count));
  if (r->has_estimated_cycles)
    TQ_TRY(put_metric(h, metrics, test, "estimated_cycles", "cycles",
                      (double)r->estimated_cycles, NULL, 0));
  for (size_t i = 0; i < r->metric_count; i++) {
    const char *name = r->metrics[i].name;
    if (!name || !*name) continue;
    /* A name recorded twice in one record (a malformed journal line) keeps its first value. */
    int dup = 0;
    for (size_t j = 0; j < i && !dup; j++) dup = r->metrics[j].name && !strcmp(r->metrics[j].name, name);
    if (!dup) TQ_TRY(put_metric(h, metrics, test, name, "us", r->metrics[i].us, NULL, 0));
  }
  return NULL;
}

static tq_status_t add_run_locked(tqh_history_t *h, const tqh_history_run_t *run,
                                  const tqh_test_record_t *records, size_t count, int *out_added) {
  sqlite3_stmt *find = NULL, *ins_run = NULL, *ins_test = NULL;
  metric_rows_t metrics;
  memset(&metrics, 0, sizeof(metrics));
  tq_status_t st = tqh__history_prepare(h, "SELECT id FROM runs WHERE run_id = ?1", &find);
  if (!st) {
    bind_text(find, 1, run->run_id);
    int rc = sqlite3_step(find);
    if (rc == SQLITE_ROW) {
      *out_added = 0;
      sqlite3_finalize(find);
      return NULL;
    }
    if (rc != SQLITE_DONE) st = tqh__history_error(h, rc, "looking for the run");
  }
  if (!st)
    st = tqh__history_prepare(h,
                              "INSERT INTO runs(run_id, started_at, finished_at, git_revision, "
                              "target, host, suites, command, run_dir, tool_version) "
                              "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                              &ins_run);
  if (!st)
    st = tqh__history_prepare(h,
                              "INSERT INTO tests(suite, name, target, run, outcome, message, "
                              "started_at, duration, compile_time, run_time, host, run_started) "
                              "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
                              &ins_test);
  if (!st) {
    bind_text(ins_run, 1, run->run_id);
    bind_time(ins_run, 2, run->started_at);
    bind_time(ins_run, 3, run->finished_at);
    bind_text(ins_run, 4, run->git_revision);
    bind_text(ins_run, 5, run->target);
    bind_text(ins_run, 6, run->host);
    bind_text(ins_run, 7, run->suites);
    bind_text(ins_run, 8, run->command);
    bind_text(ins_run, 9, run->run_dir);
    bind_text(ins_run, 10, run->tool_version);
    st = step_done(h, ins_run, "recording the run");
  }
  int64_t id = st ? 0 : sqlite3_last_insert_rowid(h->db);
  /* The runs this one replaces (a merged run's shards), with their tests and metrics (the
   * foreign keys cascade). */
  sqlite3_stmt *del = NULL;
  if (!st && run->replace_count)
    st = tqh__history_prepare(h, "DELETE FROM runs WHERE run_id = ?1 AND id <> ?2", &del);
  for (size_t i = 0; !st && i < run->replace_count; i++) {
    if (!run->replaces[i]) continue;
    bind_text(del, 1, run->replaces[i]);
    sqlite3_bind_int64(del, 2, id);
    st = step_done(h, del, "removing a merged run's shard");
  }
  sqlite3_finalize(del);
  for (size_t i = 0; !st && i < count; i++)
    st = put_test(h, ins_test, &metrics, id, run->started_at, &records[i]);
  if (!st) st = metric_rows_flush(h, &metrics);
  metric_rows_deinit(&metrics);
  sqlite3_finalize(find);
  sqlite3_finalize(ins_run);
  sqlite3_finalize(ins_test);
  if (!st) *out_added = 1;
  return st;
}

tq_status_t tqh_history_add_run(tqh_history_t *h, const tqh_history_run_t *run,
                                const tqh_test_record_t *records, size_t count, int *out_added) {
  *out_added = 0;
  if (!run->run_id || !*run->run_id)
    return TQ_STATUS(TQ_INVALID_ARGUMENT, "a run without an id cannot be recorded");
  /* IMMEDIATE: the write lock is taken at once (waiting up to the busy timeout for another
   * writer), so that the transaction never has to give up half-way. */
  TQ_TRY(tqh__history_exec(h, "BEGIN IMMEDIATE"));
  tqh__history_names_clear(h); /* ids may come from a transaction that another writer undid */
  tq_status_t st = add_run_locked(h, run, records, count, out_added);
  if (!st) st = tqh__history_exec(h, "COMMIT");
  if (st) {
    tq_status_free(tqh__history_exec(h, "ROLLBACK"));
    tqh__history_names_clear(h);
    *out_added = 0;
  }
  return st;
}

/* ---- A run folder ---------------------------------------------------------------------------- */

/* "2026-12-02T14:55:01Z" as UNIX seconds; 0 when it is not that. */
static double parse_utc(const char *text) {
  struct tm tm;
  memset(&tm, 0, sizeof(tm));
  if (!text) return 0;
  const char *end = strptime(text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  if (!end || *end) return 0;
  return (double)timegm(&tm);
}

static const char *json_str(const tqh_json_t *obj, const char *key) {
  const tqh_json_t *v = tqh_json_get(obj, key);
  return v && v->kind == TQH_JSON_STRING ? v->string : NULL;
}

/* A run folder's run.json, parsed into `arena` (an object). */
static tq_status_t read_run_json(const char *run_dir, tq_arena_t *arena, tqh_json_t **out) {
  *out = NULL;
  tq_buf_t path, text;
  tq_buf_init(&path, 0);
  tq_buf_init(&text, 0);
  tq_status_t st = tq_buf_printf(&path, "%s/run.json", run_dir);
  if (!st) st = tq_file_read(path.data, 16u << 20, &text);
  if (!st) st = tqh_json_parse(arena, path.data, text.data ? text.data : "", text.len, out);
  if (st && tq_status_code(st) != TQ_NOT_FOUND && tq_status_code(st) != TQ_OUT_OF_MEMORY &&
      tq_status_code(st) != TQ_INVALID_INPUT)
    st = tq_status_annotate(st, "reading %s", run_dir);
  if (!st && (!*out || (*out)->kind != TQH_JSON_OBJECT))
    st = TQ_STATUS(TQ_INVALID_INPUT, "%s: expected a JSON object", path.data);
  tq_buf_deinit(&path);
  tq_buf_deinit(&text);
  return st;
}

/* `given`: the journal's records when the caller has them, else NULL (read here). */
static tq_status_t record_dir(tqh_history_t *h, const char *run_dir, const tqh_records_t *given,
                              const char *const *replaces, size_t replace_count, int *out_added,
                              size_t *out_tests) {
  *out_added = 0;
  if (out_tests) *out_tests = 0;
  tq_arena_t arena;
  tq_arena_init(&arena, 0, 0);
  tqh_records_t records;
  tqh_records_init(&records);
  tq_buf_t path, suites;
  tq_buf_init(&path, 0);
  tq_buf_init(&suites, 0);
  size_t *latest = NULL, count = 0;
  tqh_history_run_t run;
  memset(&run, 0, sizeof(run));
  tqh_json_t *info = NULL;
  tq_status_t st = NULL;
  if (!given) {
    st = tq_buf_printf(&path, "%s/journal.jsonl", run_dir);
    struct stat sb;
    if (!st && stat(path.data, &sb) != 0)
      st = TQ_STATUS(TQ_NOT_FOUND, "%s is not a run folder (no journal.jsonl)", run_dir);
    if (!st) st = tqh_journal_read(path.data, &records, NULL, &(tqh_journal_read_t){0});
    given = &records;
  }
  if (!st) st = tqh_records_latest(given, &latest, &count);
  if (!st) st = read_run_json(run_dir, &arena, &info);
  if (!st) {
    run.run_id = json_str(info, "run_id");
    run.started_at = parse_utc(json_str(info, "started_at"));
    run.finished_at = parse_utc(json_str(info, "finished_at"));
    run.git_revision = json_str(info, "git_revision");
    run.target = json_str(info, "target");
    run.host = json_str(info, "hostname");
    run.command = json_str(info, "command_line");
    run.tool_version = json_str(info, "tool_version");
    run.run_dir = run_dir;
    run.replaces = replaces;
    run.replace_count = replace_count;
    if (!run.run_id) st = TQ_STATUS(TQ_INVALID_INPUT, "%s/run.json: no \"run_id\"", run_dir);
  }
  /* The run's suites: its tests' suite names, in order of first appearance. */
  tqh_test_record_t *recs = NULL;
  double first_start = 0;
  if (!st && count) {
    recs = tq_calloc(count, sizeof(*recs));
    if (!recs) st = TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  }
  for (size_t i = 0; !st && i < count; i++) {
    recs[i] = given->items[latest[i]];
    const char *suite = recs[i].classname ? recs[i].classname : "";
    int seen = 0;
    for (size_t j = 0; j < i && !seen; j++)
      seen = !strcmp(recs[j].classname ? recs[j].classname : "", suite);
    if (!seen && *suite) st = tq_buf_printf(&suites, "%s%s", suites.len ? "," : "", suite);
    if (recs[i].started_at > 0 && (first_start == 0 || recs[i].started_at < first_start))
      first_start = recs[i].started_at;
  }
  run.suites = suites.data;
  /* Runs are ordered by their start: the first test's is exact, run.json's is whole seconds. */
  if (first_start > 0) run.started_at = first_start;
  if (!st) st = tqh_history_add_run(h, &run, recs, count, out_added);
  if (!st && out_tests) *out_tests = count;
  tq_free(recs);
  tq_free(latest);
  tq_buf_deinit(&path);
  tq_buf_deinit(&suites);
  tqh_records_deinit(&records);
  tq_arena_deinit(&arena);
  return st;
}

tq_status_t tqh_history_record_dir(tqh_history_t *h, const char *run_dir, int *out_added,
                                   size_t *out_tests) {
  return record_dir(h, run_dir, NULL, NULL, 0, out_added, out_tests);
}

tq_status_t tqh_history_record_run(tqh_history_t *h, const char *run_dir,
                                   const tqh_records_t *records, int *out_added,
                                   size_t *out_tests) {
  return record_dir(h, run_dir, records, NULL, 0, out_added, out_tests);
}

tq_status_t tqh_history_record_merged(tqh_history_t *h, const char *run_dir,
                                      const char *const *shard_dirs, size_t count,
                                      int *out_added, size_t *out_tests) {
  *out_added = 0;
  if (out_tests) *out_tests = 0;
  tq_arena_t arena;
  tq_arena_init(&arena, 0, 0);
  const char **ids = count ? tq_arena_calloc(&arena, count, sizeof(*ids)) : NULL;
  tq_status_t st = count && !ids ? TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory") : NULL;
  size_t n = 0;
  for (size_t i = 0; !st && i < count; i++) {
    tqh_json_t *info = NULL;
    tq_status_t rs = read_run_json(shard_dirs[i], &arena, &info);
    if (rs) {
      /* Not a run of ours: nothing of it can be in the history under its id. */
      st = tq_status_code(rs) == TQ_OUT_OF_MEMORY ? rs : NULL;
      if (!st) tq_status_free(rs);
      continue;
    }
    const char *id = json_str(info, "run_id");
    if (id) ids[n++] = id;
  }
  if (!st) st = record_dir(h, run_dir, NULL, ids, n, out_added, out_tests);
  tq_arena_deinit(&arena);
  return st;
}
