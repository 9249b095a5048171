/* The run history: every finished run (merged runs included) recorded in one SQLite database,
 * `results/history.sqlite` by default, so that baselines (`--baseline=history[:K]`), the
 * between-run noise of the gates, `torq-test history` and the trends page can look back.
 *
 * Schema (version TQH_HISTORY_SCHEMA_VERSION, in PRAGMA user_version; an older database is
 * migrated forward when it is opened for writing, one step per version, each in a transaction;
 * a newer one is refused):
 *
 *   runs(id, run_id UNIQUE, started_at, finished_at, git_revision, target, host, suites,
 *        command, run_dir, tool_version)
 *   tests(id, run -> runs, run_started (the run's start), suite, name, target, host, outcome,
 *         message, started_at, duration, compile_time, run_time)
 *                index (suite, name, target, run_started, run, outcome, duration), index (run)
 *   metric_names(id, name UNIQUE, unit)            "wall_time" s, "device_time" s,
 *                                                 "estimated_cycles" cycles, overview metrics us
 *   metrics(test -> tests, metric -> metric_names, value, samples)   primary key (test, metric)
 *
 * Times are UNIX seconds (REAL). A metric's value is its median for measured times (whose
 * samples are a BLOB of IEEE 754 doubles, little-endian, one per repetition) and the value
 * itself for the others (no samples). Tests are keyed by suite name, test name and target
 * (never by the results folder's name).
 *
 * Durability and concurrency: WAL journal mode, a busy timeout, and one transaction per run
 * (BEGIN IMMEDIATE), so that two runs finishing at once both land (the second waits for the
 * first) and a writer killed at any point leaves a valid database without a partial run.
 *
 * Thread safety: a tqh_history_t is used by one thread at a time.
 *
 * The history component (harness/src/history/) owns the database; this is its public header.
 */
#ifndef TORQ_HARNESS_HISTORY_H
#define TORQ_HARNESS_HISTORY_H

#include <stddef.h>
#include <stdint.h>

#include "torq/base/arena.h"
#include "torq/base/status.h"
#include "torq/harness/journal.h"
#include "torq/harness/results.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TQH_HISTORY_SCHEMA_VERSION 3
#define TQH_HISTORY_FILE "history.sqlite"

typedef struct tqh_history_s tqh_history_t;

typedef struct tqh_history_options_s {
  int read_only;       /* open for reading only: no file is made, no migration is run */
  int busy_timeout_ms; /* how long a writer waits for another one; default 30000 */
} tqh_history_options_t;

void tqh_history_options_initialize(tqh_history_options_t *options);

/* Opens (for writing: creating the file and its folder when missing) the history at `path`,
 * in WAL mode with the busy timeout, and brings its schema to the current version. `options`
 * may be NULL (defaults). The caller owns *out (tqh_history_close). Errors: TQ_NOT_FOUND (read
 * only and no file), TQ_INVALID_INPUT (not a history database, or a newer schema version), TQ_IO
 * (SQLite's error, naming the path). */
tq_status_t tqh_history_open(const char *path, const tqh_history_options_t *options,
                             tqh_history_t **out) TQ_MUST_USE;
/* Closes it; accepts NULL. */
void tqh_history_close(tqh_history_t *history);
/* The path it was opened with; borrowed, lives as long as `history`. */
const char *tqh_history_path(const tqh_history_t *history);

/* Migrates nothing further than `version` (tests of the migrations make old databases with
 * it): opens `path` for writing and stops at that schema version. */
tq_status_t tqh_history_open_at_version(const char *path, int version,
                                        tqh_history_t **out) TQ_MUST_USE;
/* The database's schema version (PRAGMA user_version). */
int tqh_history_schema_version(tqh_history_t *history);

/* ---- Recording ------------------------------------------------------------------------------ */

/* A run. Strings are borrowed (NULL: unknown). */
typedef struct tqh_history_run_s {
  int64_t id;         /* the database's (when read back) */
  const char *run_id; /* required */
  double started_at, finished_at;
  const char *git_revision, *target, *host, *suites, *command, *run_dir, *tool_version;
  /* The runs (by run_id) this one replaces, removed with their tests in the same transaction:
   * the shards of a merged run, so that no test is in the history twice for one run. */
  const char *const *replaces;
  size_t replace_count;
  size_t tests;                      /* when read back: the number of its tests */
  size_t counts[TQH_OUTCOME_COUNT];  /* when read back: its tests per outcome */
} tqh_history_run_t;

/* Records `run` and its `count` test records (the last record of each test, as
 * tqh_records_latest gives them) in one transaction. A run whose run_id is there already is
 * left as it is: *out_added = 0. Each test: its suite (the record's classname), name, target
 * (its "target" property, else "sim"), outcome, message, times, and its metrics: wall_time and
 * device_time (median and samples), estimated_cycles and the overview metrics. */
tq_status_t tqh_history_add_run(tqh_history_t *history, const tqh_history_run_t *run,
                                const tqh_test_record_t *records, size_t count,
                                int *out_added) TQ_MUST_USE;

/* Records the finished run folder `run_dir`: its run.json (id, times, revision, target, host,
 * command) and the last record of each test of its journal. *out_added as above; *out_tests
 * (may be NULL) the tests recorded. Errors: TQ_NOT_FOUND (no journal), TQ_INVALID_INPUT
 * (run.json unreadable), TQ_IO. */
tq_status_t tqh_history_record_dir(tqh_history_t *history, const char *run_dir, int *out_added,
                                   size_t *out_tests) TQ_MUST_USE;
/* The same, with the run's journal already read into `records` (tqh_results_records of the
 * run just finished; the journal is not read again). NULL: read it, as tqh_history_record_dir. */
tq_status_t tqh_history_record_run(tqh_history_t *history, const char *run_dir,
                                   const tqh_records_t *records, int *out_added,
                                   size_t *out_tests) TQ_MUST_USE;
/* The same for a merged run: `run_dir` replaces the `count` runs it was merged from (their
 * folders; a folder whose run.json has no run_id is passed over), which leave the history with
 * their tests in the transaction that records it. */
tq_status_t tqh_history_record_merged(tqh_history_t *history, const char *run_dir,
                                      const char *const *shard_dirs, size_t count,
                                      int *out_added, size_t *out_tests) TQ_MUST_USE;

/* ---- Reading -------------------------------------------------------------------------------- */

/* The reads until tqh_history_read_end in one read transaction: one snapshot of the history, and
 * its lock taken once instead of once per query (a page of a thousand tests makes thousands).
 * Returns whether one began (not within another, nor after an error; the reads work either
 * way). */
int tqh_history_read_begin(tqh_history_t *history);
/* Ends the transaction tqh_history_read_begin began (`began`: what it returned). */
void tqh_history_read_end(tqh_history_t *history, int began);

/* The runs, oldest first by start time: the last `last` of them (0: all). Strings and the
 * array live in `arena`. */
tq_status_t tqh_history_list_runs(tqh_history_t *history, size_t last, tq_arena_t *arena,
                                  tqh_history_run_t **out, size_t *out_count) TQ_MUST_USE;

/* A test: suite name, test name, target. */
typedef struct tqh_history_key_s {
  const char *suite, *name, *target;
} tqh_history_key_t;

/* The key of a record: its classname, name and "target" property ("sim" without one). */
tqh_history_key_t tqh_history_key_of(const tqh_test_record_t *record);

/* The tests that ran in the last `last_runs` runs (0: all runs), sorted by suite, name and
 * target. In `arena`. */
tq_status_t tqh_history_list_tests(tqh_history_t *history, size_t last_runs, tq_arena_t *arena,
                                   tqh_history_key_t **out, size_t *out_count) TQ_MUST_USE;

/* The tests whose id "suite/name" equals `id`, or whose name equals it (any target). */
tq_status_t tqh_history_find_tests(tqh_history_t *history, const char *id, tq_arena_t *arena,
                                   tqh_history_key_t **out, size_t *out_count) TQ_MUST_USE;

typedef struct tqh_history_metric_s {
  const char *name, *unit; /* unit: "s", "us" or "cycles" */
  double value;
  const double *samples; /* NULL when the metric has none */
  size_t sample_count;
} tqh_history_metric_t;

/* One test in one run. */
typedef struct tqh_history_entry_s {
  tqh_history_run_t run; /* id, run_id, started_at, git_revision, target (no counts) */
  const char *outcome, *message;
  double duration;
  tqh_history_metric_t *metrics; /* by name */
  size_t metric_count;
} tqh_history_entry_t;

/* The test `key`'s last `last` runs (0: all) among the runs that started before `before` (0: no
 * bound) and are not `exclude_run_id` (NULL: none), oldest first, each with its metrics: all of
 * them, or (when `metrics` is not NULL) only the `metric_count` named there. In `arena`; a
 * metric's name and unit are shared by all the entries of one call (one copy per metric). */
tq_status_t tqh_history_entries(tqh_history_t *history, const tqh_history_key_t *key, size_t last,
                                double before, const char *exclude_run_id,
                                const char *const *metrics, size_t metric_count,
                                tq_arena_t *arena, tqh_history_entry_t **out,
                                size_t *out_count) TQ_MUST_USE;

/* The metric named `name` of an entry, or NULL. */
const tqh_history_metric_t *tqh_history_entry_metric(const tqh_history_entry_t *entry,
                                                     const char *name);

#ifdef __cplusplus
}
#endif
#endif
