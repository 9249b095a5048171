/* The run history (history.h): runs recorded and read back, migrations of older schemas, the
 * refusal of what is not a history, two writers at once, and a writer killed mid-transaction. */
#include <check.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "history/history_internal.h"
#include "suites.h"
#include "torq/base/alloc.h"
#include "torq/harness/history.h"

Suite *history_suite(void);

/* Records of `count` tests named t0, t1, ... of suite "s": wall time samples {base, base*1.01,
 * ...} (5 of them), OVERALL = 10 + i µs, estimated_cycles 100 + i. */
typedef struct fake_s {
  tqh_test_record_t *recs;
  tqh_record_metric_t *metrics;
  double *samples;
  char **names;
  tqh_property_t prop;
  size_t count;
} fake_t;

static void fake_init(fake_t *f, size_t count, double base) {
  f->count = count;
  f->recs = calloc(count, sizeof(*f->recs));
  f->metrics = calloc(count * 2, sizeof(*f->metrics));
  f->samples = calloc(count * 5, sizeof(double));
  f->names = calloc(count, sizeof(char *));
  f->prop = (tqh_property_t){"target", "sim"};
  for (size_t i = 0; i < count; i++) {
    tqh_test_record_t *r = &f->recs[i];
    f->names[i] = malloc(16);
    snprintf(f->names[i], 16, "t%zu", i);
    r->id = r->name = f->names[i];
    r->classname = "s";
    r->outcome = TQH_OUTCOME_PASSED;
    r->started_at = 1e9;
    double *s = &f->samples[5 * i];
    for (int k = 0; k < 5; k++) s[k] = base * (1.0 + 0.01 * k);
    r->has_wall_time = 1;
    ck_assert_ptr_null(tqh_stats_compute(s, 5, &r->wall_stats));
    r->wall_time_s = r->wall_stats.median;
    r->wall_samples = s;
    r->wall_sample_count = 5;
    r->has_estimated_cycles = 1;
    r->estimated_cycles = 100 + i;
    f->metrics[2 * i] = (tqh_record_metric_t){"OVERALL", 10.0 + (double)i, NULL};
    f->metrics[2 * i + 1] = (tqh_record_metric_t){"Dma", 4, NULL};
    r->metrics = &f->metrics[2 * i];
    r->metric_count = 2;
    r->properties = &f->prop;
    r->property_count = 1;
  }
}

static void fake_free(fake_t *f) {
  for (size_t i = 0; i < f->count; i++) free(f->names[i]);
  free(f->names);
  free(f->recs);
  free(f->metrics);
  free(f->samples);
}

static void add(tqh_history_t *h, const char *run_id, double started, fake_t *f, int want_added) {
  tqh_history_run_t run;
  memset(&run, 0, sizeof(run));
  run.run_id = run_id;
  run.started_at = started;
  run.git_revision = "abc123";
  run.target = "sim";
  int added = -1;
  TH_OK(tqh_history_add_run(h, &run, f->recs, f->count, &added));
  ck_assert_int_eq(added, want_added);
}

START_TEST(runs_are_recorded_and_read_back) {
  char *dir = th_tmpdir();
  char *path = th_path(dir, "sub/history.sqlite"); /* its folder is made */
  tqh_history_t *h = NULL;
  TH_OK(tqh_history_open(path, NULL, &h));
  ck_assert_int_eq(tqh_history_schema_version(h), TQH_HISTORY_SCHEMA_VERSION);
  fake_t a, b;
  fake_init(&a, 3, 0.001);
  fake_init(&b, 2, 0.002);
  add(h, "run-b", 2000, &b, 1); /* imported out of order: listed by start time */
  add(h, "run-a", 1000, &a, 1);
  add(h, "run-a", 1000, &a, 0); /* the same run again: left as it is */

  tq_arena_t arena;
  tq_arena_init(&arena, 0, 0);
  tqh_history_run_t *runs = NULL;
  size_t n = 0;
  TH_OK(tqh_history_list_runs(h, 0, &arena, &runs, &n));
  ck_assert_uint_eq(n, 2);
  ck_assert_str_eq(runs[0].run_id, "run-a");
  ck_assert_str_eq(runs[1].run_id, "run-b");
  ck_assert_uint_eq(runs[0].tests, 3);
  ck_assert_uint_eq(runs[0].counts[TQH_OUTCOME_PASSED], 3);
  ck_assert_str_eq(runs[0].git_revision, "abc123");
  TH_OK(tqh_history_list_runs(h, 1, &arena, &runs, &n));
  ck_assert_uint_eq(n, 1);
  ck_assert_str_eq(runs[0].run_id, "run-b");

  tqh_history_key_t *keys = NULL;
  TH_OK(tqh_history_list_tests(h, 0, &arena, &keys, &n));
  ck_assert_uint_eq(n, 3);
  ck_assert_str_eq(keys[2].name, "t2");
  ck_assert_str_eq(keys[2].target, "sim");
  TH_OK(tqh_history_list_tests(h, 1, &arena, &keys, &n)); /* run-b has t0, t1 */
  ck_assert_uint_eq(n, 2);
  TH_OK(tqh_history_find_tests(h, "s/t1", &arena, &keys, &n));
  ck_assert_uint_eq(n, 1);
  TH_OK(tqh_history_find_tests(h, "t1", &arena, &keys, &n));
  ck_assert_uint_eq(n, 1);
  TH_OK(tqh_history_find_tests(h, "x/t1", &arena, &keys, &n));
  ck_assert_uint_eq(n, 0);

  tqh_history_key_t k = {"s", "t1", "sim"};
  tqh_history_entry_t *e = NULL;
  TH_OK(tqh_history_entries(h, &k, 0, 0, NULL, NULL, 0, &arena, &e, &n));
  ck_assert_uint_eq(n, 2);
  ck_assert_str_eq(e[0].run.run_id, "run-a");
  ck_assert_str_eq(e[1].run.run_id, "run-b");
  ck_assert_str_eq(e[0].outcome, "passed");
  ck_assert_uint_eq(e[0].metric_count, 4); /* Dma OVERALL estimated_cycles wall_time */
  const tqh_history_metric_t *w = tqh_history_entry_metric(&e[1], "wall_time");
  ck_assert_ptr_nonnull(w);
  ck_assert_str_eq(w->unit, "s");
  ck_assert_uint_eq(w->sample_count, 5);
  for (int i = 0; i < 5; i++) ck_assert(w->samples[i] == 0.002 * (1.0 + 0.01 * i));
  ck_assert_double_eq_tol(w->value, 0.002 * 1.02, 1e-15);
  const tqh_history_metric_t *o = tqh_history_entry_metric(&e[0], "OVERALL");
  ck_assert(o && o->value == 11.0 && !o->samples && !strcmp(o->unit, "us"));
  o = tqh_history_entry_metric(&e[0], "estimated_cycles");
  ck_assert(o && o->value == 101.0 && !strcmp(o->unit, "cycles"));
  /* Bounds: before run-b started, without run-a, one metric, the last one. */
  TH_OK(tqh_history_entries(h, &k, 0, 1500, NULL, NULL, 0, &arena, &e, &n));
  ck_assert(n == 1 && !strcmp(e[0].run.run_id, "run-a"));
  TH_OK(tqh_history_entries(h, &k, 0, 0, "run-a", (const char *[]){"OVERALL"}, 1, &arena, &e, &n));
  ck_assert(n == 1 && !strcmp(e[0].run.run_id, "run-b") && e[0].metric_count == 1);
  TH_OK(tqh_history_entries(h, &k, 1, 0, NULL, (const char *[]){"nothing"}, 1, &arena, &e, &n));
  ck_assert(n == 1 && !strcmp(e[0].run.run_id, "run-b") && e[0].metric_count == 0);

  tq_arena_deinit(&arena);
  tqh_history_close(h);
  /* Read only: the same, and no writing. */
  tqh_history_options_t ro;
  tqh_history_options_initialize(&ro);
  ro.read_only = 1;
  TH_OK(tqh_history_open(path, &ro, &h));
  tq_status_t st = tqh_history_add_run(h, &(tqh_history_run_t){.run_id = "x"}, NULL, 0, &(int){0});
  ck_assert_ptr_nonnull(st);
  tq_status_free(st);
  tqh_history_close(h);
  char *missing = th_path(dir, "none.sqlite");
  st = tqh_history_open(missing, &ro, &h);
  ck_assert_int_eq(tq_status_code(st), TQ_NOT_FOUND);
  tq_status_free(st);
  free(missing);
  fake_free(&a);
  fake_free(&b);
  free(path);
  th_rmtree(dir);
}
END_TEST

START_TEST(an_older_schema_is_migrated_with_its_data) {
  char *dir = th_tmpdir();
  char *path = th_path(dir, "h.sqlite");
  tqh_history_t *h = NULL;
  TH_OK(tqh_history_open_at_version(path, 1, &h));
  ck_assert_int_eq(tqh_history_schema_version(h), 1);
  /* A version-1 writer's rows (tests had no host then). */
  TH_OK(tqh__history_exec(h, "INSERT INTO runs(id, run_id, started_at) VALUES(1, 'old', 5);"
                             "INSERT INTO tests(id, run, suite, name, target, outcome) "
                             "VALUES(1, 1, 's', 't', 'sim', 'passed');"
                             "INSERT INTO runs(id, run_id, started_at) VALUES(2, 'old2', 6);"
                             "INSERT INTO tests(id, run, suite, name, target, outcome, message) "
                             "VALUES(2, 2, 's', 't', 'sim', 'failed', 'it broke');"
                             "INSERT INTO metric_names(id, name, unit) VALUES(1, 'OVERALL', 'us');"
                             "INSERT INTO metrics(test, metric, value) VALUES(1, 1, 42);"));
  tqh_history_close(h);
  tq_arena_t arena;
  tq_arena_init(&arena, 0, 0);
  tqh_history_entry_t *e = NULL;
  size_t n = 0;
  tqh_history_key_t k = {"s", "t", "sim"};
  /* Read as it is (no migration when reading): the same answers as after it. */
  for (int write = 0; write < 2; write++) {
    tqh_history_options_t o;
    tqh_history_options_initialize(&o);
    o.read_only = !write;
    TH_OK(tqh_history_open(path, &o, &h));
    ck_assert_int_eq(tqh_history_schema_version(h), write ? TQH_HISTORY_SCHEMA_VERSION : 1);
    TH_OK(tqh_history_entries(h, &k, 0, 0, NULL, NULL, 0, &arena, &e, &n));
    ck_assert_uint_eq(n, 2);
    ck_assert(e[0].metric_count == 1 && e[0].metrics[0].value == 42);
    ck_assert_str_eq(e[0].outcome, "passed");
    ck_assert_ptr_null(e[0].message);
    ck_assert_str_eq(e[1].outcome, "failed");
    ck_assert_str_eq(e[1].message, "it broke");
    ck_assert_uint_eq(e[1].metric_count, 0);
    if (!write) tqh_history_close(h);
  }
  /* Version 3 reads a test's runs from one index, which replaced the narrower one. */
  sqlite3_stmt *q = NULL;
  TH_OK(tqh__history_prepare(h, "SELECT group_concat(name) FROM (SELECT name FROM sqlite_master "
                                "WHERE type = 'index' AND tbl_name = 'tests' ORDER BY name)", &q));
  ck_assert_int_eq(sqlite3_step(q), SQLITE_ROW);
  ck_assert_str_eq((const char *)sqlite3_column_text(q, 0), "tests_by_run,tests_by_test_run");
  sqlite3_finalize(q);
  /* The new column is there. */
  TH_OK(tqh__history_exec(h, "UPDATE tests SET host = 'board1'"));
  fake_t f;
  fake_init(&f, 1, 0.001);
  add(h, "new", 6, &f, 1);
  fake_free(&f);
  tq_arena_deinit(&arena);
  tqh_history_close(h);
  free(path);
  th_rmtree(dir);
}
END_TEST

START_TEST(what_is_not_a_history_is_refused) {
  char *dir = th_tmpdir();
  tqh_history_t *h = NULL;
  /* A newer schema than this build knows. */
  char *newer = th_path(dir, "newer.sqlite");
  TH_OK(tqh_history_open(newer, NULL, &h));
  TH_OK(tqh__history_exec(h, "PRAGMA user_version = 99"));
  tqh_history_close(h);
  tq_status_t st = tqh_history_open(newer, NULL, &h);
  ck_assert_int_eq(tq_status_code(st), TQ_INVALID_INPUT);
  ck_assert_msg(strstr(tq_status_message(st), "schema version 99") &&
                    strstr(tq_status_message(st), "up to 3"),
                "%s", tq_status_message(st));
  tq_status_free(st);
  /* Someone else's SQLite database. */
  char *other = th_path(dir, "other.sqlite");
  TH_OK(tqh_history_open_at_version(other, 1, &h));
  TH_OK(tqh__history_exec(h, "DROP TABLE metrics; DROP TABLE metric_names; DROP TABLE tests;"
                             "DROP TABLE runs; PRAGMA user_version = 0; CREATE TABLE x(y)"));
  tqh_history_close(h);
  st = tqh_history_open(other, NULL, &h);
  ck_assert_int_eq(tq_status_code(st), TQ_INVALID_INPUT);
  ck_assert_msg(strstr(tq_status_message(st), "not a torq-test history"), "%s",
                tq_status_message(st));
  tq_status_free(st);
  /* Not SQLite at all. */
  char *text = th_path(dir, "text.sqlite");
  th_write(text, "this is not a database, but it is long enough to have a header of sorts\n");
  st = tqh_history_open(text, NULL, &h);
  ck_assert_int_eq(tq_status_code(st), TQ_INVALID_INPUT);
  ck_assert_msg(strstr(tq_status_message(st), text), "%s", tq_status_message(st));
  tq_status_free(st);
  free(newer);
  free(other);
  free(text);
  th_rmtree(dir);
}
END_TEST

/* Counts rows with one query; -1 on error. */
static long count_rows(const char *path, const char *sql) {
  sqlite3 *db = NULL;
  long n = -1;
  if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK) {
    sqlite3_busy_timeout(db, 10000);
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
      n = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
  }
  sqlite3_close(db);
  return n;
}

/* Rows of metrics go in many to a statement: each lands with its own test, and a metric named
 * twice in one record keeps the later row, also when the two rows are in different statements. */
START_TEST(many_metrics_of_many_tests_each_land_with_their_test) {
  enum { TESTS = 5, METRICS = 21 };
  char *dir = th_tmpdir();
  char *path = th_path(dir, "history.sqlite");
  tqh_history_t *h = NULL;
  TH_OK(tqh_history_open(path, NULL, &h));
  fake_t f;
  fake_init(&f, TESTS, 0.001);
  char names[METRICS][8];
  for (int j = 0; j < METRICS; j++) snprintf(names[j], sizeof(names[j]), "m%02d", j);
  tqh_record_metric_t metrics[TESTS][METRICS];
  for (int i = 0; i < TESTS; i++) {
    for (int j = 0; j < METRICS; j++)
      metrics[i][j] = (tqh_record_metric_t){names[j], 1000.0 * i + j, NULL};
    f.recs[i].metrics = metrics[i];
    f.recs[i].metric_count = METRICS;
    f.samples[5 * i] = 0.5 + i; /* each test's own first sample */
  }
  metrics[0][METRICS - 1].name = "wall_time"; /* 22 rows after the wall time's own */
  add(h, "run", 1000, &f, 1);

  tq_arena_t arena;
  tq_arena_init(&arena, 0, 0);
  for (int i = 0; i < TESTS; i++) {
    tqh_history_key_t k = {"s", f.names[i], "sim"};
    tqh_history_entry_t *e = NULL;
    size_t n = 0;
    TH_OK(tqh_history_entries(h, &k, 0, 0, NULL, NULL, 0, &arena, &e, &n));
    ck_assert_uint_eq(n, 1);
    ck_assert_uint_eq(e[0].metric_count, (i ? METRICS + 2 : METRICS + 1));
    for (int j = 0; j < METRICS - (i == 0); j++) {
      const tqh_history_metric_t *m = tqh_history_entry_metric(&e[0], names[j]);
      ck_assert_msg(m && m->value == 1000.0 * i + j, "t%d %s", i, names[j]);
    }
    const tqh_history_metric_t *w = tqh_history_entry_metric(&e[0], "wall_time");
    ck_assert_ptr_nonnull(w);
    if (i == 0) {
      ck_assert(w->value == METRICS - 1 && !w->samples);
    } else {
      ck_assert_uint_eq(w->sample_count, 5);
      ck_assert(w->samples[0] == 0.5 + i && w->samples[4] == 0.001 * 1.04);
    }
    const tqh_history_metric_t *c = tqh_history_entry_metric(&e[0], "estimated_cycles");
    ck_assert(c && c->value == 100.0 + i);
  }
  ck_assert_int_eq(count_rows(path, "SELECT count(*) FROM metrics"), TESTS * (METRICS + 2) - 1);
  tq_arena_deinit(&arena);
  tqh_history_close(h);
  fake_free(&f);
  free(path);
  th_rmtree(dir);
}
END_TEST

/* A child that records one run of `tests` tests once it reads a byte from `go`: it opens the
 * history before that byte, or after it when `open_late`. Exits 0 when the run landed. */
static pid_t writer(const char *path, const char *run_id, size_t tests, int go, int open_late) {
  pid_t pid = fork();
  if (pid) return pid;
  char c;
  tqh_history_t *h = NULL;
  if (open_late && read(go, &c, 1) != 1) _exit(3);
  tq_status_t st = tqh_history_open(path, NULL, &h);
  if (!st && !open_late && read(go, &c, 1) != 1) _exit(3);
  fake_t f;
  fake_init(&f, tests, 0.001);
  tqh_history_run_t run = {.run_id = run_id, .started_at = 1};
  int added = 0;
  if (!st) st = tqh_history_add_run(h, &run, f.recs, f.count, &added);
  tqh_history_close(h);
  if (st) fprintf(stderr, "writer %s: %s\n", run_id, tq_status_message(st));
  _exit(st ? 1 : added ? 0 : 2);
}

START_TEST(two_runs_finishing_at_once_both_land) {
  char *dir = th_tmpdir();
  char *path = th_path(dir, "h.sqlite");
  for (int round = 0; round < 3; round++) {
    int go[2];
    ck_assert_int_eq(pipe(go), 0);
    char a[16], b[16];
    snprintf(a, sizeof(a), "a%d", round);
    snprintf(b, sizeof(b), "b%d", round);
    /* Both open the database (the first round: both create and migrate it), then both write
     * at the same moment. */
    pid_t pa = writer(path, a, 300, go[0], 0), pb = writer(path, b, 300, go[0], 0);
    ck_assert_int_eq(write(go[1], "xx", 2), 2);
    close(go[0]);
    close(go[1]);
    int sa = 0, sb = 0;
    waitpid(pa, &sa, 0);
    waitpid(pb, &sb, 0);
    ck_assert_msg(WIFEXITED(sa) && WEXITSTATUS(sa) == 0, "writer a: %d", sa);
    ck_assert_msg(WIFEXITED(sb) && WEXITSTATUS(sb) == 0, "writer b: %d", sb);
  }
  ck_assert_int_eq(count_rows(path, "SELECT count(*) FROM runs"), 6);
  ck_assert_int_eq(count_rows(path, "SELECT count(*) FROM tests"), 6 * 300);
  ck_assert_int_eq(count_rows(path, "SELECT count(*) FROM metrics"), 6 * 300 * 4);
  free(path);
  th_rmtree(dir);
}
END_TEST

/* Eight processes creating one new history at the same moment all record their run: the
 * switch to WAL, which SQLite makes without its busy handler, waits for the others. */
START_TEST(processes_creating_one_history_at_once_all_land) {
  char *dir = th_tmpdir();
  enum { WRITERS = 8, ROUNDS = 30 };
  for (int round = 0; round < ROUNDS; round++) {
    char name[32];
    snprintf(name, sizeof(name), "h%d.sqlite", round);
    char *path = th_path(dir, name);
    int go[2];
    ck_assert_int_eq(pipe(go), 0);
    pid_t pids[WRITERS];
    char ids[WRITERS][16];
    for (int i = 0; i < WRITERS; i++) {
      snprintf(ids[i], sizeof(ids[i]), "w%d", i);
      pids[i] = writer(path, ids[i], 2, go[0], 1);
    }
    char bytes[WRITERS];
    memset(bytes, 'x', sizeof(bytes));
    ck_assert_int_eq(write(go[1], bytes, WRITERS), WRITERS);
    close(go[0]);
    close(go[1]);
    int failed = 0;
    for (int i = 0; i < WRITERS; i++) {
      int status = 0;
      waitpid(pids[i], &status, 0);
      failed += !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    ck_assert_msg(failed == 0, "round %d: %d of %d writers failed", round, failed, WRITERS);
    ck_assert_int_eq(count_rows(path, "SELECT count(*) FROM runs"), WRITERS);
    ck_assert_int_eq(count_rows(path, "PRAGMA user_version"), TQH_HISTORY_SCHEMA_VERSION);
    free(path);
  }
  th_rmtree(dir);
}
END_TEST

/* The reads between tqh_history_read_begin and _end see one snapshot: a run another connection
 * records meanwhile (WAL lets it) shows only after the end; a begin within a begin is none. */
START_TEST(reads_in_one_transaction_see_one_snapshot) {
  char *dir = th_tmpdir();
  char *path = th_path(dir, "h.sqlite");
  tqh_history_t *h = NULL;
  TH_OK(tqh_history_open(path, NULL, &h));
  fake_t a;
  fake_init(&a, 2, 0.001);
  add(h, "run-a", 1000, &a, 1);
  tq_arena_t arena;
  tq_arena_init(&arena, 0, 0);
  tqh_history_run_t *runs = NULL;
  size_t n = 0;
  int began = tqh_history_read_begin(h);
  ck_assert_int_eq(began, 1);
  ck_assert_int_eq(tqh_history_read_begin(h), 0);
  TH_OK(tqh_history_list_runs(h, 0, &arena, &runs, &n));
  ck_assert_uint_eq(n, 1);
  /* Another connection (another run) records a run meanwhile. */
  tqh_history_t *other = NULL;
  TH_OK(tqh_history_open(path, NULL, &other));
  fake_t b;
  fake_init(&b, 3, 0.002);
  add(other, "run-b", 2000, &b, 1);
  tqh_history_close(other);
  fake_free(&b);
  TH_OK(tqh_history_list_runs(h, 0, &arena, &runs, &n));
  ck_assert_uint_eq(n, 1);
  tqh_history_read_end(h, 0); /* the inner begin's end: nothing */
  TH_OK(tqh_history_list_runs(h, 0, &arena, &runs, &n));
  ck_assert_uint_eq(n, 1);
  tqh_history_read_end(h, began);
  TH_OK(tqh_history_list_runs(h, 0, &arena, &runs, &n));
  ck_assert_uint_eq(n, 2);
  tq_arena_deinit(&arena);
  tqh_history_close(h);
  fake_free(&a);
  free(path);
  th_rmtree(dir);
}
END_TEST

/* PRAGMA integrity_check's first answer ("ok" when sound). */
static char *integrity(const char *path) {
  sqlite3 *db = NULL;
  char *answer = NULL;
  if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK) {
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &s, NULL) == SQLITE_OK &&
        sqlite3_step(s) == SQLITE_ROW)
      answer = strdup((const char *)sqlite3_column_text(s, 0));
    sqlite3_finalize(s);
  }
  sqlite3_close(db);
  return answer ? answer : strdup("(could not open)");
}

START_TEST(a_writer_killed_mid_transaction_leaves_a_valid_database) {
  char *dir = th_tmpdir();
  char *path = th_path(dir, "h.sqlite");
  enum { TESTS = 1500 };
  for (int round = 0; round < 3; round++) {
    pid_t pid = fork();
    if (pid == 0) {
      /* Runs back to back, each one transaction of TESTS tests (tens of ms each). */
      tqh_history_t *h = NULL;
      if (tqh_history_open(path, NULL, &h)) _exit(1);
      fake_t f;
      fake_init(&f, TESTS, 0.001);
      for (int i = 0;; i++) {
        char id[32];
        snprintf(id, sizeof(id), "r%d-%d", round, i);
        tqh_history_run_t run = {.run_id = id, .started_at = 1 + i};
        int added;
        tq_status_t st = tqh_history_add_run(h, &run, f.recs, f.count, &added);
        if (st) _exit(2);
      }
    }
    /* Wait for a few committed runs, then kill it a little after the last commit: in the
     * middle of the next transaction. */
    long before = count_rows(path, "SELECT count(*) FROM runs");
    if (before < 0) before = 0;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    long now = before;
    while (now < before + 2) {
      usleep(2000);
      long c = count_rows(path, "SELECT count(*) FROM runs");
      if (c > 0) now = c;
      struct timespec t1;
      clock_gettime(CLOCK_MONOTONIC, &t1);
      ck_assert_msg(t1.tv_sec - t0.tv_sec < 60, "the writer made no progress");
    }
    usleep(5000 + 7000 * (useconds_t)round);
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    char *ok = integrity(path);
    ck_assert_msg(!strcmp(ok, "ok"), "integrity_check: %s", ok);
    free(ok);
    /* Every run there is whole: no run lost tests to the kill. */
    ck_assert_int_eq(count_rows(path, "SELECT count(*) FROM (SELECT run, count(*) AS n FROM "
                                      "tests GROUP BY run HAVING n <> 1500)"),
                     0);
    ck_assert_int_eq(count_rows(path, "SELECT count(*) FROM runs WHERE id NOT IN "
                                      "(SELECT run FROM tests)"),
                     0);
    /* And it opens for writing again. */
    tqh_history_t *h = NULL;
    TH_OK(tqh_history_open(path, NULL, &h));
    tqh_history_close(h);
  }
  free(path);
  th_rmtree(dir);
}
END_TEST

/* A merged run takes the place of its shards: they leave with their tests and metrics in the
 * transaction that records it, so that no test counts twice for one run. */
START_TEST(a_merged_run_replaces_its_shards) {
  char *dir = th_tmpdir();
  char *path = th_path(dir, "h.sqlite");
  tqh_history_t *h = NULL;
  TH_OK(tqh_history_open(path, NULL, &h));
  fake_t one, two, all;
  fake_init(&one, 2, 0.001);
  fake_init(&two, 3, 0.001);
  fake_init(&all, 5, 0.001);
  add(h, "earlier", 500, &all, 1);
  add(h, "shard-1", 1000, &one, 1);
  add(h, "shard-2", 1001, &two, 1);
  const char *shards[] = {"shard-1", "shard-2", "never-recorded"};
  tqh_history_run_t run = {.run_id = "merged", .started_at = 1000, .replaces = shards,
                           .replace_count = 3};
  int added = 0;
  TH_OK(tqh_history_add_run(h, &run, all.recs, all.count, &added));
  ck_assert_int_eq(added, 1);
  ck_assert_int_eq(count_rows(path, "SELECT count(*) FROM runs"), 2);
  ck_assert_int_eq(count_rows(path, "SELECT count(*) FROM runs WHERE run_id LIKE 'shard-%'"), 0);
  ck_assert_int_eq(count_rows(path, "SELECT count(*) FROM tests"), 2 * 5);
  ck_assert_int_eq(count_rows(path, "SELECT count(*) FROM metrics"), 2 * 5 * 4);
  ck_assert_int_eq(count_rows(path, "SELECT count(*) FROM metrics WHERE test NOT IN "
                                    "(SELECT id FROM tests)"),
                   0);
  /* A test's runs: the earlier one and the merged one, once each. */
  tq_arena_t arena;
  tq_arena_init(&arena, 0, 0);
  tqh_history_key_t k = {"s", "t1", "sim"};
  tqh_history_entry_t *e = NULL;
  size_t n = 0;
  TH_OK(tqh_history_entries(h, &k, 0, 0, NULL, NULL, 0, &arena, &e, &n));
  ck_assert_uint_eq(n, 2);
  ck_assert_str_eq(e[1].run.run_id, "merged");
  /* Recorded already: left as it is, and what it names is not removed again. */
  add(h, "shard-1", 1000, &one, 1);
  TH_OK(tqh_history_add_run(h, &run, all.recs, all.count, &added));
  ck_assert_int_eq(added, 0);
  ck_assert_int_eq(count_rows(path, "SELECT count(*) FROM runs"), 3);
  tq_arena_deinit(&arena);
  tqh_history_close(h);
  fake_free(&one);
  fake_free(&two);
  fake_free(&all);
  free(path);
  th_rmtree(dir);
}
END_TEST

/* A run folder's run.json and journal: two tests, one of them recorded twice (the later wins). */
static char *journal_run(void) {
  char *dir = th_tmpdir();
  char *p = th_path(dir, "run.json");
  th_write(p, "{\"run_id\":\"r1\",\"hostname\":\"h\",\"target\":\"sim\","
              "\"started_at\":\"2026-12-02T16:00:00Z\",\"finished_at\":\"2026-12-02T16:00:05Z\"}");
  free(p);
  p = th_path(dir, "journal.jsonl");
  th_write(p, "{\"id\":\"s+a\",\"name\":\"a\",\"classname\":\"s\",\"outcome\":\"failed\","
              "\"message\":\"first\",\"duration\":0.01}\n"
              "{\"id\":\"s+b\",\"name\":\"b\",\"classname\":\"s\",\"outcome\":\"passed\","
              "\"message\":null,\"wall_time\":0.002,\"wall_time_stats\":{\"n\":1,\"median\":0.002},"
              "\"metrics\":{\"OVERALL\":18},\"duration\":0.01}\n"
              "{\"id\":\"s+a\",\"name\":\"a\",\"classname\":\"s\",\"outcome\":\"passed\","
              "\"message\":null,\"metrics\":{\"OVERALL\":7},\"duration\":0.01}\n");
  free(p);
  return dir;
}

/* A run recorded from the records in hand is the run recorded from its folder's journal, and the
 * journal is not read for it. */
START_TEST(a_run_recorded_from_records_in_hand_is_the_run_of_its_journal) {
  char *dir = journal_run();
  char *journal = th_path(dir, "journal.jsonl");
  tqh_records_t records;
  tqh_records_init(&records);
  tqh_journal_read_t info;
  TH_OK(tqh_journal_read(journal, &records, NULL, &info));
  tqh_history_t *h[2] = {NULL, NULL};
  char *db[2] = {th_path(dir, "from-dir.sqlite"), th_path(dir, "from-records.sqlite")};
  for (int i = 0; i < 2; i++) TH_OK(tqh_history_open(db[i], NULL, &h[i]));
  int added = 0;
  size_t tests = 0;
  TH_OK(tqh_history_record_dir(h[0], dir, &added, &tests));
  ck_assert(added == 1 && tests == 2);
  ck_assert_int_eq(unlink(journal), 0);
  TH_OK(tqh_history_record_run(h[1], dir, &records, &added, &tests));
  ck_assert(added == 1 && tests == 2);

  tq_arena_t arena;
  tq_arena_init(&arena, 0, 0);
  tqh_history_run_t *runs[2];
  tqh_history_entry_t *e[2];
  size_t n[2];
  tqh_history_key_t a = {"s", "a", "sim"}, b = {"s", "b", "sim"};
  for (int i = 0; i < 2; i++) {
    TH_OK(tqh_history_list_runs(h[i], 0, &arena, &runs[i], &n[i]));
    ck_assert_uint_eq(n[i], 1);
  }
  ck_assert_str_eq(runs[1]->run_id, "r1");
  ck_assert_str_eq(runs[1]->suites, runs[0]->suites);
  ck_assert(runs[1]->started_at == runs[0]->started_at);
  ck_assert(runs[1]->finished_at == runs[0]->finished_at);
  ck_assert_uint_eq(runs[1]->tests, 2);
  ck_assert_uint_eq(runs[1]->counts[TQH_OUTCOME_PASSED], 2);
  ck_assert_uint_eq(runs[0]->counts[TQH_OUTCOME_PASSED], 2);
  for (int k = 0; k < 2; k++) {
    for (int i = 0; i < 2; i++)
      TH_OK(tqh_history_entries(h[i], k ? &b : &a, 0, 0, NULL, NULL, 0, &arena, &e[i], &n[i]));
    ck_assert(n[0] == 1 && n[1] == 1);
    ck_assert_str_eq(e[1]->outcome, e[0]->outcome);
    ck_assert_uint_eq(e[1]->metric_count, e[0]->metric_count);
    const tqh_history_metric_t *o[2] = {tqh_history_entry_metric(e[0], "OVERALL"),
                                        tqh_history_entry_metric(e[1], "OVERALL")};
    ck_assert(o[0] && o[1] && o[0]->value == o[1]->value);
    ck_assert(o[1]->value == (k ? 18.0 : 7.0)); /* s+a: its later record */
  }
  tq_arena_deinit(&arena);
  for (int i = 0; i < 2; i++) {
    tqh_history_close(h[i]);
    free(db[i]);
  }
  tqh_records_deinit(&records);
  free(journal);
  th_rmtree(dir);
}
END_TEST

Suite *history_suite(void) {
  Suite *s = suite_create("history");
  TCase *tc = tcase_create("history");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, runs_are_recorded_and_read_back);
  tcase_add_test(tc, many_metrics_of_many_tests_each_land_with_their_test);
  tcase_add_test(tc, an_older_schema_is_migrated_with_its_data);
  tcase_add_test(tc, what_is_not_a_history_is_refused);
  tcase_add_test(tc, two_runs_finishing_at_once_both_land);
  tcase_add_test(tc, processes_creating_one_history_at_once_all_land);
  tcase_add_test(tc, reads_in_one_transaction_see_one_snapshot);
  tcase_add_test(tc, a_writer_killed_mid_transaction_leaves_a_valid_database);
  tcase_add_test(tc, a_merged_run_replaces_its_shards);
  tcase_add_test(tc, a_run_recorded_from_records_in_hand_is_the_run_of_its_journal);
  suite_add_tcase(s, tc);
  return s;
}
