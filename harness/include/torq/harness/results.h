/* The results directory of a run (DESIGN 5.7): its folder and id, run.json, one folder per test
 * with wall_time.txt and report.json, the append-only journal (journal.jsonl, the source of
 * truth) and the reports regenerated from it (junit.xml, summary.txt).
 *
 *   results/<run-id>/                 run-id: UTC timestamp + 4 hex digits, 20261202T145501Z-7f3a
 *     run.json                        what the runner passed in tqh_run_info_t
 *     journal.jsonl                   one JSON line per finished test, appended with one write()
 *     junit.xml summary.txt           regenerated from the journal
 *     <test-id>/wall_time.txt         "0.207123000\n" (seconds, 9 decimals)
 *     <test-id>/report.json           the test's record (the same fields as its journal line)
 *
 * Every file is written atomically (temporary name, then rename: never torn); the journal is
 * appended and fsync'd, so after a crash every finished test is in it and the reports can be
 * rebuilt (tqh_results_rebuild, for `torq-test report RUN_DIR`). See the options for fsync.
 *
 * Typical use by the runner:
 *
 *   tqh_results_options_t opts;
 *   tqh_results_options_initialize(&opts);
 *   opts.root = "results";
 *   TQ_TRY(tqh_results_create(&opts, &info, &results));
 *   for each test:
 *     TQ_TRY(tqh_results_test_dir(results, folder, &dir));    // mkdir; put profile.pb etc. there
 *     ... run it, fill a tqh_test_record_t ...
 *     TQ_TRY(tqh_results_test_finished(results, &record));    // report.json, journal, reports
 *   TQ_TRY(tqh_results_finish(results));                      // final junit.xml, summary.txt
 *   tqh_results_destroy(results);
 *
 * Thread safety: tqh_results_test_finished, tqh_results_test_dir and tqh_results_write_file may
 * be called from several worker threads at once (they lock internally). Create, finish and
 * destroy are not concurrent with anything.
 *
 * The results component (harness/src/results/) owns the results directory, the journal and its
 * records (journal.h), JUnit (junit.h), the summary, baselines and statistics (baseline.h,
 * stats.h), sharding and merging (shard.h).
 */
#ifndef TORQ_HARNESS_RESULTS_H
#define TORQ_HARNESS_RESULTS_H

#include <stddef.h>
#include <stdint.h>

#include "torq/base/status.h"
#include "torq/base/str.h"
#include "torq/harness/stats.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- What a finished test reports --------------------------------------------------------- */

/* The outcome of a test. The runner decides it (an expected failure that passes is XPASSED, or
 * FAILED in strict mode); the reports only render it. In JUnit: FAILED → <failure>, ERROR
 * (infrastructure fault, crash, timeout) → <error>, SKIPPED, XFAILED and NOT_RUN → <skipped>,
 * PASSED and XPASSED → a plain test case. */
#define TQH_OUTCOMES(X)    \
  X(PASSED, "passed")      \
  X(FAILED, "failed")      \
  X(ERROR, "error")        \
  X(SKIPPED, "skipped")    \
  X(XFAILED, "xfailed")    \
  X(XPASSED, "xpassed")    \
  X(NOT_RUN, "not_run")

typedef enum tqh_outcome_e {
#define TQH__OUTCOME_ENUM(name, text) TQH_OUTCOME_##name,
  TQH_OUTCOMES(TQH__OUTCOME_ENUM)
#undef TQH__OUTCOME_ENUM
      TQH_OUTCOME_COUNT
} tqh_outcome_t;

/* "passed", "failed", ... (the journal's spelling); "unknown" for an out-of-range value. */
const char *tqh_outcome_name(tqh_outcome_t outcome);

/* Parses an outcome name; returns 0 when `name` is not one. */
int tqh_outcome_parse(tq_sv_t name, tqh_outcome_t *out_outcome);

/* Whether the compiled module came from the cache. */
typedef enum tqh_cache_e {
  TQH_CACHE_NONE, /* nothing was compiled (skipped, not run) or unknown */
  TQH_CACHE_HIT,
  TQH_CACHE_MISS,
} tqh_cache_t;

/* One Host Profile Overview metric (DESIGN 5.6) of a test, e.g. {"OVERALL", 12845.0,
 * "total_duration"}; overview.h counts in ns: us = ns / 1000.0.
 *
 * In the journal and report.json, "metrics" maps each label to its µs (as it always did, so
 * that readers of older journals and of this one agree), and "metric_keys" maps each label to
 * its dashboard key. A journal without "metric_keys" (written before the keys existed) reads
 * with the keys tqh_overview_key_of gives its labels, old labels ("DMA") included. */
typedef struct tqh_record_metric_s {
  const char *name; /* borrowed: the label ("Dma Total") */
  double us;        /* microseconds */
  const char *key;  /* borrowed: the dashboard key ("dma_total_time"); NULL: the label's */
} tqh_record_metric_t;

/* A free-form property (key → string), e.g. {"target", "sim"}; rendered in JUnit <properties>. */
typedef struct tqh_property_s {
  const char *key;   /* borrowed */
  const char *value; /* borrowed */
} tqh_property_t;

/* One layer of a test (an NSS program, or a pipeline's stage programs): the compiler's estimate
 * against what it took (the reconciliation, README "Reconciliation"). A fused layer stands for
 * every source operator lowered into it: `operators` lists them, `location` is the one it was
 * lowered at. */
typedef struct tqh_recon_s {
  uint32_t job_id;
  const char *location;      /* its NSS_START's: loc("model.mlir":12:5); "" when unknown */
  const char *operators;     /* space-separated: "tosa.rescale@L6 tosa.add@L9"; "" unknown */
  uint64_t estimated_cycles; /* NssProgram.estimated_cycles */
  int has_simulated;
  uint64_t simulated_cycles; /* on the simulator: the cycles it took (its last timed run) */
  int has_device;
  double device_us; /* on a board: its programs' measured slots in the profile (each the mean
                     * over invocations), summed */
  /* With the simulated cycles: the cycles of that run in which its DMA (in, out, CDMA) worked,
   * its compute (slices, CSS) worked, and both at once (tqr_nss_result_t), summed over its
   * programs. Dma Only is dma - overlap, Compute Only compute - overlap: the layer's own split,
   * finer than the overview's (whole slots per program and unit used, as the Torq tools count),
   * which sees the pipeline's stage programs but not what overlaps within one. */
  uint64_t sim_dma_cycles, sim_compute_cycles, sim_overlap_cycles;
  /* The NSS programs reconciled together, jobs job_id .. job_id + programs - 1: a layer's
   * pipeline stages (prologue, steady state, epilogue; module.proto's Stage) count as one, their
   * cycles and device times summed. 0 reads as 1. */
  uint32_t programs;
} tqh_recon_t;

/* |estimate - measured| / measured of one program: against its simulated cycles when it has
 * them, else against its device time (the estimate converted at `clock_hz`). Returns 1 with
 * *out_error set, 0 when there is nothing to compare with (or the measurement is 0). */
int tqh_recon_error(const tqh_recon_t *program, uint64_t clock_hz, double *out_error);

/* The median (the lower one of an even count) and the 90th percentile (nearest rank: the
 * ceil(0.9 n)-th smallest) of `n` errors, which are sorted in place; both 0 when n is 0. The
 * statistics the reports and `make bench` show of a test's or a corpus's reconciliation. */
void tqh_recon_percentiles(double *errors, size_t n, double *out_median, double *out_p90);

/* Everything the reports know about one finished test. All pointers are borrowed for the
 * duration of the call that receives the record; NULL strings count as empty. Strings are UTF-8
 * (malformed bytes become U+FFFD); control characters are kept in the journal (JSON-escaped) and
 * replaced by U+FFFD in the XML. */
typedef struct tqh_test_record_s {
  const char *id;           /* file-system-safe id: the test's folder name (required) */
  const char *test_id;      /* the test's id as shown everywhere, "smoke/conv2d"; NULL: made
                             * from classname/name when the record is written (and when an
                             * older journal line without it is read) */
  const char *name;         /* test name within its suite, JUnit testcase name (required) */
  const char *classname;    /* the suite, JUnit classname and testsuite name */
  const char *model;        /* the Host Profile Overview block's title; NULL: `name` */
  const char *host;         /* machine that ran the test; NULL: the run's hostname */
  tqh_outcome_t outcome;
  const char *message;      /* one line: why it failed / was skipped (the verdict) */
  const char *failure_type; /* e.g. "mismatch", "compile_error", "timeout", "crash" */
  const char *text;         /* longer details (the body of <failure>/<error>), may be NULL */
  double started_at;        /* UNIX time (CLOCK_REALTIME) in seconds at the test's start; 0 unknown */
  double duration_s;        /* the whole test (compile + run + annotation), seconds */

  int has_wall_time;        /* 0: never executed; the wall time fields are ignored */
  double wall_time_s;       /* representative wall time: the median of the repetitions */
  tqh_stats_t wall_stats;   /* statistics over the repetitions (stats.h), seconds */
  const double *wall_samples; /* each repetition's wall time, seconds; may be NULL */
  size_t wall_sample_count;

  /* On a board: the runtime's own device time of each repetition (what torq-run-module reports
   * as device_wall_time_us), a statistic like the wall time; the median is device_stats.median.
   * 0: not measured (the simulator, or a runtime that did not report it). */
  int has_device_time;
  tqh_stats_t device_stats;     /* seconds */
  const double *device_samples; /* seconds; may be NULL */
  size_t device_sample_count;

  tqh_cache_t cache;
  double compile_s; /* time inside the compiler (0 on a cache hit or when not compiled) */
  double run_s;     /* time inside execution, all repetitions and warm-up */

  /* The compiler's estimate of the model's NSS cycles (the sum of NssProgram.estimated_cycles,
   * what tqc_compiled_estimated_cycles gives), also on a cache hit. Cycles, not µs, so it is not
   * an overview metric: the overview blocks never see it; baselines compare it. */
  int has_estimated_cycles; /* 0: not compiled (or an old record) */
  uint64_t estimated_cycles;

  const tqh_record_metric_t *metrics; /* the overview metrics, in the trace's order; may be NULL */
  size_t metric_count;
  /* The reconciliation: one entry per NSS program, in job order; may be NULL. clock_hz (the
   * module's) converts cycles to time; 0 when there is none. */
  const tqh_recon_t *recon;
  size_t recon_count;
  uint64_t clock_hz;
  const tqh_property_t *properties; /* may be NULL */
  size_t property_count;
  const char *const *files; /* the test's files, relative to its folder ("profile.pb") */
  size_t file_count;
} tqh_test_record_t;

/* The id a record shows and is matched by ("smoke/conv2d"): test_id, else the folder name. Records
 * read back from a journal always have a test_id. */
static inline const char *tqh_record_test_id(const tqh_test_record_t *r) {
  return r->test_id && *r->test_id ? r->test_id : r->id;
}

/* ---- The run ------------------------------------------------------------------------------ */

/* What run.json holds; the runner fills it, the results only write it (NULL fields omitted). */
typedef struct tqh_run_info_s {
  const char *tool_version;     /* torq-test --version */
  const char *compiler_version;
  const char *runtime_version;
  const char *target;           /* "sim" or a board name */
  const char *board;            /* board description (host:port), NULL on the simulator */
  const char *git_revision;     /* `git rev-parse HEAD` of the checkout, NULL when unknown */
  const char *command_line;     /* as typed */
  const char *toolchain;        /* an external toolchain's programs (path, SHA-256, version) */
  const tqh_property_t *config; /* the effective configuration, key → string, in this order */
  size_t config_count;
  const char *config_json; /* or: the configuration as one JSON value (validated;
                            * TQ_INVALID_ARGUMENT if malformed), written verbatim as "config"
                            * when `config` is empty, else beside it as "config_json" */
} tqh_run_info_t;

/* When the reports are regenerated after a test: while at most `throttle_after` tests were
 * recorded, after every test; beyond, when `throttle_ms` passed since the last time. Either way
 * only when the time since the last regeneration is at least (100 - share) / share times what
 * that regeneration took, so that regenerating never takes more than `regen_share_pct` percent
 * of the run (with tests of a few ms, junit.xml may then lag a few tests behind the journal;
 * tqh_results_finish and `torq-test report` catch up). 100 = no such limit.
 *
 * Durability: each journal line is one write(), which survives the runner being killed (even
 * by SIGKILL); with `sync` the journal is also fsync'd, at most once per `sync_interval_ms` and
 * at the end, against power loss (at most the last interval of finished tests is lost to a power
 * cut; an fsync per line would cost a millisecond per test on a disk). Every other file is written to a
 * temporary name and renamed into place, so neither a crash nor a kill ever leaves a torn file;
 * `fsync_files` adds an fsync per file (tq_file_write_atomic) against power loss, at about a
 * millisecond per file: off by default, as all of them can be rebuilt from the journal. */
typedef struct tqh_results_options_s {
  const char *root;         /* the folder that holds the runs; default "results"; created */
  const char *run_id;       /* NULL: generated; otherwise used as is (must be a safe name) */
  const char *hostname;     /* NULL: gethostname() */
  const char *junit_copy;   /* --junitxml PATH: junit.xml is also written there; NULL none */
  size_t throttle_after;    /* default 1000 */
  unsigned throttle_ms;     /* default 1000 */
  unsigned regen_share_pct; /* 1..100, default 5 */
  int sync;                 /* fsync the journal (default 1) ... */
  unsigned sync_interval_ms; /* ... at most this often, and at the end (default 1000; 0: every line) */
  int fsync_files;          /* fsync every other file too (default 0) */
} tqh_results_options_t;

/* Fills the defaults above. */
void tqh_results_options_initialize(tqh_results_options_t *options);

typedef struct tqh_results_s tqh_results_t;

/* Creates ROOT/<run-id>/ (a fresh folder: TQ_FAILED_PRECONDITION if it exists), writes run.json
 * and an empty journal. `info` is borrowed for the call (may be NULL). On success *out_results
 * is owned by the caller (tqh_results_destroy). Errors: TQ_IO naming the path,
 * TQ_INVALID_ARGUMENT for an unsafe run id or malformed config_json. */
tq_status_t tqh_results_create(const tqh_results_options_t *options, const tqh_run_info_t *info,
                               tqh_results_t **out_results) TQ_MUST_USE;

/* The run folder ("results/20261202T145501Z-7f3a") and its id; borrowed, live as long as
 * `results`. */
const char *tqh_results_run_dir(const tqh_results_t *results);
const char *tqh_results_run_id(const tqh_results_t *results);

/* Creates the test's folder RUN_DIR/<folder>/ (no error if it exists) and returns its path in
 * *out_path (heap, caller frees with tq_free). TQ_INVALID_ARGUMENT when `folder` is not a
 * safe name (see tqh_results_id_is_safe). */
tq_status_t tqh_results_test_dir(tqh_results_t *results, const char *folder,
                                 char **out_path) TQ_MUST_USE;

/* Writes RUN_DIR/<folder>/<name> atomically (creating the folder). `name` is a relative path
 * without ".." components (e.g. "stdout.txt"). */
tq_status_t tqh_results_write_file(tqh_results_t *results, const char *folder, const char *name,
                                   const void *data, size_t len) TQ_MUST_USE;

/* Records a finished test: writes its report.json and (when it has a wall time) wall_time.txt,
 * appends its line to the journal (one write(); fsync'd per the options), then regenerates junit.xml and
 * summary.txt as the options say. The reports are rendered from the journal's records as read back, so they equal
 * what tqh_results_rebuild gives. `record` is borrowed for the call. Errors: TQ_INVALID_ARGUMENT
 * (missing id or name, unsafe id), TQ_IO; a failed regeneration is returned after the journal
 * line was written (the test is not lost). */
tq_status_t tqh_results_test_finished(tqh_results_t *results,
                                      const tqh_test_record_t *record) TQ_MUST_USE;

/* The number of tests recorded so far and how many had each outcome (`out_counts` may be NULL;
 * otherwise TQH_OUTCOME_COUNT entries). */
size_t tqh_results_count(tqh_results_t *results, size_t *out_counts);

/* The records of the run's journal, each line as written and read back: what tqh_journal_read
 * gives for RUN_DIR/journal.jsonl. Borrowed; after tqh_results_finish they stay as they are
 * until tqh_results_destroy (before it, tqh_results_test_finished adds to them). */
struct tqh_records_s;
const struct tqh_records_s *tqh_results_records(const tqh_results_t *results);

/* Regenerates junit.xml and summary.txt now (whatever the throttle) and rewrites run.json with
 * the finish time and the outcome counts. Call once, after the last test (also after SIGINT,
 * once the remaining tests were recorded as NOT_RUN). */
tq_status_t tqh_results_finish(tqh_results_t *results) TQ_MUST_USE;

/* The summary text as written to summary.txt (the table, the cache line and the Host Profile
 * Overview blocks), for the runner to print at the end. Heap string, caller frees with tq_free;
 * TQ_OUT_OF_MEMORY. */
tq_status_t tqh_results_summary(tqh_results_t *results, char **out_text) TQ_MUST_USE;

/* ---- The summary, as the user asks for it ----------------------------------------------------
 * summary.txt always holds the whole summary in run order. What a run prints at its end may be
 * shorter (-q: one line after the failures), sorted (--sort), hold fewer overview blocks
 * (--overview) or more (--durations: the slowest tests with their compile/run split). */

typedef enum tqh_summary_order_e {
  TQH_SUMMARY_RUN_ORDER, /* the order the tests started (the journal's order for equal times) */
  TQH_SUMMARY_BY_ID,     /* by test id (byte order) */
  TQH_SUMMARY_BY_DURATION, /* the slowest test first */
  TQH_SUMMARY_BY_OUTCOME,  /* failed and errors first, then run order */
} tqh_summary_order_t;

typedef enum tqh_overview_shown_e {
  TQH_OVERVIEW_ALL,    /* one Host Profile Overview block per test that has metrics */
  TQH_OVERVIEW_FAILED, /* only those of failed and errored tests */
  TQH_OVERVIEW_NONE,
} tqh_overview_shown_t;

typedef struct tqh_summary_options_s {
  tqh_summary_order_t order;
  tqh_overview_shown_t overview;
  int brief;          /* one line: the counts, the elapsed time and the run folder */
  size_t durations;   /* after the rest, the N slowest tests (SIZE_MAX: all; 0: none) */
  double elapsed_s;   /* the run's wall-clock time for the brief line; < 0: not shown */
  const char *run_dir; /* named by the brief line; NULL: not named */
} tqh_summary_options_t;

/* Run order, every overview block, not brief, no durations, elapsed unknown. */
void tqh_summary_options_initialize(tqh_summary_options_t *options);

/* Parses "run", "id", "duration", "outcome" / "all", "failed", "none"; 0 when unknown. */
int tqh_summary_order_parse(const char *text, tqh_summary_order_t *out);
int tqh_overview_shown_parse(const char *text, tqh_overview_shown_t *out);

/* Appends the summary of `count` records (a journal's, in its order) as `options` ask. */
tq_status_t tqh_summary_render(const tqh_test_record_t *records, size_t count,
                               const tqh_summary_options_t *options, tq_buf_t *out) TQ_MUST_USE;

/* tqh_results_summary with options (NULL: the defaults, which give summary.txt). */
tq_status_t tqh_results_summary_with(tqh_results_t *results, const tqh_summary_options_t *options,
                                     char **out_text) TQ_MUST_USE;

/* Frees the results object (the files stay). Accepts NULL. */
void tqh_results_destroy(tqh_results_t *results);

/* ---- A full disk ---------------------------------------------------------------------------- */

/* The reserve's file in the run folder. */
#define TQH_RESULTS_RESERVE_FILE ".torq-reserve"

/* Sets aside `bytes` of the results' file system (RUN_DIR/.torq-reserve, allocated now), so that
 * when the disk fills up the run can still record the tests it did not run and write its
 * reports: tqh_results_release_reserve gives the space back, and finishing or destroying the
 * results removes the file. Returns 1 when the space was set aside, 0 when it could not be (the
 * disk is nearly full already: no reserve). */
int tqh_results_reserve(tqh_results_t *results, uint64_t bytes);
/* Frees the reserve now (idempotent); 1 when there was one. */
int tqh_results_release_reserve(tqh_results_t *results);

/* Rebuilds RUN_DIR/junit.xml and RUN_DIR/summary.txt from RUN_DIR/journal.jsonl alone (for
 * `torq-test report RUN_DIR`): the same bytes the run wrote for the same journal. Corrupt lines
 * and a torn last line (a crash mid-append) are skipped and, when `out_problems` is not NULL,
 * described there (heap string, one "RUN_DIR/journal.jsonl:LINE: error: ..." per line; NULL when
 * none; caller frees with tq_free). `hostname` names the host for tests without one (NULL:
 * gethostname()). Errors: TQ_NOT_FOUND (no journal), TQ_IO. */
tq_status_t tqh_results_rebuild(const char *run_dir, const char *hostname,
                                char **out_problems) TQ_MUST_USE;

/* Whether `id` may be a folder name inside a run: 1..200 bytes of [A-Za-z0-9._+=,@-], not
 * starting with '.', and not one of the run's own file names (run.json, journal.jsonl, ...). */
int tqh_results_id_is_safe(const char *id);

/* Appends to `out` a safe id made from `name`: every byte outside [A-Za-z0-9._+=,@-] becomes
 * '_', a leading '.' becomes '_', long names are cut to 200 bytes, an empty name gives "_", and a
 * run file's name ("run.json") gets a '_' appended.
 * Uniqueness is the caller's business. TQ_OUT_OF_MEMORY. */
tq_status_t tqh_results_make_safe_id(const char *name, tq_buf_t *out) TQ_MUST_USE;

/* Makes a run id: the UTC time `unix_seconds` as YYYYMMDDTHHMMSSZ, '-', 4 hex digits of
 * `random`. `out` must hold at least 24 bytes. */
void tqh_results_format_run_id(int64_t unix_seconds, uint32_t random, char *out, size_t out_size);

#ifdef __cplusplus
}
#endif
#endif
