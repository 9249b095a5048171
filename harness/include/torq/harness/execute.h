/* One test's execution (component execute/, harness/src/execute/): compile the model through
 * the compile cache (cache.h), run it on the simulator with warm-up and timed repetitions or on
 * a board (board.h), compare the outputs with the reference interpreter, profile and annotate
 * the run (annotate.h), check the performance expectations. Everything lands in the test's
 * folder; the verdict and the numbers are a tqh_test_result_t.
 *
 * The runner (runner.h) executes each test inside a forked worker, which sends what the
 * execution reports (tqh_execute_io_t) to the parent; nothing here depends on that: every phase
 * can be called in-process, in order, and reports only through the result and the callbacks.
 *
 * Failure types (the JUnit `type` of <failure>/<error>):
 *   compile_error   the model does not parse, verify or compile            FAILED
 *   input_error     an input cannot be made for the function's signature   FAILED
 *   runtime_error   the runtime refused the module or an invocation failed  FAILED
 *   mismatch        outputs differ from the reference interpreter's         FAILED
 *   expectation     a performance expectation (`expect:`) does not hold      FAILED
 *   annotation_error  the profile could not be annotated                    FAILED
 *   infrastructure  the harness itself could not work (files, memory)       ERROR
 *   infra_*         a board's infrastructure fault (tqh_board_fault_type):  ERROR
 *                   connection, timeout, disk_full, host_key, auth, lease, setup
 * and, decided by the runner: crash (a signal), timeout, infra_board_down.
 */
#ifndef TORQ_HARNESS_EXECUTE_H
#define TORQ_HARNESS_EXECUTE_H

#include <stddef.h>
#include <stdint.h>

#include "torq/base/status.h"
#include "torq/harness/board.h"
#include "torq/harness/cache.h"
#include "torq/harness/results.h"
#include "torq/harness/suite.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- The result ----------------------------------------------------------------------------- */

/* What the execution of one test found; owns its strings and arrays. The runner sends it from
 * the worker to the parent, which turns it into the test's record (results.h). */
typedef struct tqh_test_result_s {
  tqh_outcome_t outcome; /* PASSED, FAILED or ERROR */
  char *message;
  char *failure_type;
  char *text;
  int infrastructure; /* an ERROR not caused by the model */
  tqh_cache_t cache;
  double compile_s, run_s;
  int has_estimated_cycles; /* the module loaded: estimated_cycles is its compile-time estimate */
  uint64_t estimated_cycles;
  int has_wall_time;
  double *samples; /* seconds, one per timed repetition */
  size_t num_samples;
  char **metric_names;
  double *metric_us;
  size_t num_metrics;
  char **files; /* relative to the test's folder */
  size_t num_files;
  /* The reconciliation (results.h): one entry per NSS program of the module, with its estimate,
   * location and source operators once it compiled; the simulated cycles after the timed runs
   * on the simulator, the device time after a board's profile is annotated. Owns the entries'
   * strings. clock_hz: the module's. */
  tqh_recon_t *recon;
  size_t num_recon;
  uint64_t clock_hz;
  /* On a board: */
  char *board;          /* the board's name, or NULL (the simulator) */
  double *device_samples; /* seconds, the runtime's device time of each timed run that reported
                           * one (device_wall_time_us); NULL when none did */
  size_t num_device_samples;
  int board_down;       /* the board cannot be reached again: give it no more tests */
  /* Free-form properties (report.json, JUnit): the external toolchain's provenance. */
  char **property_keys, **property_values;
  size_t num_properties; /* at most TQH_RESULT_MAX_PROPERTIES */
} tqh_test_result_t;

#define TQH_RESULT_MAX_PROPERTIES 8

void tqh_test_result_init(tqh_test_result_t *r);
void tqh_test_result_deinit(tqh_test_result_t *r);
/* Sets outcome, type and message (printf) unless a failure is already recorded (the first
 * failure wins). Never fails: without memory the message is dropped. */
void tqh_test_result_fail(tqh_test_result_t *r, tqh_outcome_t outcome, const char *type,
                          const char *fmt, ...) TQ_PRINTF(4, 5);
/* As tqh_test_result_fail with the status's formatted text as the message (the status is freed). */
void tqh_test_result_fail_status(tqh_test_result_t *r, tqh_outcome_t outcome, const char *type,
                                 tq_status_t status);
tq_status_t tqh_test_result_add_file(tqh_test_result_t *r, const char *name) TQ_MUST_USE;
tq_status_t tqh_test_result_add_metric(tqh_test_result_t *r, const char *name,
                                       double us) TQ_MUST_USE;
/* Adds a property (copied); TQ_LIMIT past TQH_RESULT_MAX_PROPERTIES. */
tq_status_t tqh_test_result_add_property(tqh_test_result_t *r, const char *key,
                                         const char *value) TQ_MUST_USE;

/* ---- Where an execution reports ------------------------------------------------------------- */

/* The callbacks of an execution; each may be NULL (what it would get is dropped). `ctx` is
 * passed to each. Texts are borrowed for the call. */
typedef struct tqh_execute_io_s {
  void *ctx;
  /* A log line of the test (shown with -v), without a newline. */
  void (*log)(void *ctx, const char *line, size_t len);
  /* A line the user always sees (board events: runtime sync, leases, reconnections). */
  void (*note)(void *ctx, const char *line, size_t len);
  /* The phase that starts now ("fetch", "compile", "run", "upload", ...) and the seconds it may
   * take (the runner moves the worker's deadline). */
  void (*phase)(void *ctx, const char *name, double limit_s);
  /* Text for the test's stdout.txt (stream 1) or stderr.txt (stream 2): what the runtime
   * printed on a board, and the notes the execution leaves there. */
  void (*output)(void *ctx, int stream, const char *data, size_t len);
} tqh_execute_io_t;

/* ---- The executor: what the tests of one worker share --------------------------------------- */

typedef struct tqh_board_worker_s tqh_board_worker_t;

typedef struct tqh_executor_s {
  tqh_compile_cache_t *cache;   /* borrowed; required */
  const char *run_dir, *run_id; /* the run (board logs, the board's work folders); may be NULL */
  int profiling;                /* profile, annotate, read back the overview */
  const char *profile_copy_dir; /* also copy the profile files to DIR/<test folder>/; or NULL */
  /* A board's worker: its board (NULL: the simulator) and the options of every board. */
  const tqh_board_spec_t *board;
  const tqh_board_options_t *board_options;
  /* The board connection, lease and cache of this process, made on its first test (owned;
   * released by tqh_executor_board_exit). */
  tqh_board_worker_t *board_worker;
  /* The source operators of the last compiled model's NSS programs (from its debug info), kept
   * for the next test of the same model (owned; tqh_executor_forget). */
  struct tqh_executor_memo_s *memo;
  /* The last model's bytes and its cache entry's file trees and module, kept for the next test
   * of the same model (owned; tqh_executor_forget). */
  struct tqh_executor_files_s *files;
} tqh_executor_t;

/* Frees what the executor kept between tests (accepts one that kept nothing); fields set by the
 * caller stay. */
void tqh_executor_forget(tqh_executor_t *exec);

/* ---- One test, phase by phase --------------------------------------------------------------- */

/* The state of one test between its phases: the model, the loaded module, inputs and outputs. */
typedef struct tqh_execution_s tqh_execution_t;

/* Starts the execution of `test` in its folder `dir` (which exists), reporting through `io` and
 * into `result` (initialized by the caller). Borrows everything for its life. TQ_OUT_OF_MEMORY. */
tq_status_t tqh_execution_create(tqh_executor_t *exec, const tqh_test_t *test, const char *dir,
                                 const tqh_execute_io_t *io, tqh_test_result_t *result,
                                 tqh_execution_t **out) TQ_MUST_USE;
/* Frees the execution's state (accepts NULL); the result stays the caller's. */
void tqh_execution_destroy(tqh_execution_t *e);

/* Each phase returns 1 when the test may go on, else 0 with the result failed (the first
 * failure wins). In this order: */

/* Compile: fetches a URL model, compiles it through the cache (or takes the cache's entry),
 * loads the module and links model.vmfb, trace.csv and debug/ into the test's folder. */
int tqh_execute_compile(tqh_execution_t *e);

/* Run: makes the inputs for the function's signature, then runs the warm-up and timed
 * invocations on the simulator, or on the executor's board; the wall time of each timed one goes
 * into the result's samples, the outputs of the last one are kept for the check. */
int tqh_execute_run(tqh_execution_t *e);

/* Check: compares the outputs with the reference interpreter's within the test's tolerance
 * (nothing to do when the test turns the reference off). */
int tqh_execute_check(tqh_execution_t *e);

/* Profile: with profiling on, one more invocation (on the simulator) writes profile.csv, which
 * (or the board's) is annotated into annotated.csv, profile.xlsx and profile.pb; the overview
 * metrics go into the result. */
int tqh_execute_profile(tqh_execution_t *e);

/* Last, on a test that passed: its performance expectations against the samples and metrics. */
void tqh_execute_check_expectations(tqh_execution_t *e);

/* The whole test: every phase in order, as far as the test goes. */
void tqh_execute_test(tqh_executor_t *exec, const tqh_test_t *test, const char *dir,
                      const tqh_execute_io_t *io, tqh_test_result_t *result);

/* A board's worker between tests: keeps the lease and the session alive. */
void tqh_executor_board_idle(tqh_executor_t *exec, const tqh_execute_io_t *io);
/* A board's worker that ends: removes its work folders, releases the lease, disconnects. */
void tqh_executor_board_exit(tqh_executor_t *exec, const tqh_execute_io_t *io);
/* After a board's worker was killed in the middle of a test (an interrupted run): in a fresh
 * process of the same run, connects to the board, kills what the run still runs there, removes
 * the run's work folder and gives back the run's lease. What fails is a note on `io`. */
void tqh_executor_board_cleanup(tqh_executor_t *exec, const tqh_execute_io_t *io);

/* ---- A hook for tests ----------------------------------------------------------------------- */

/* Called after a test's compile phase, before its run phase, with its callbacks. None is set in
 * torq-test; the end-to-end tests' build of it (harness/e2e/fault_hook.c) sets one that makes
 * chosen tests crash, hang or sleep. Process-wide; set it before any test runs. */
typedef void (*tqh_execute_hook_fn)(const tqh_test_t *test, const tqh_execute_io_t *io);
void tqh_execute_set_hook(tqh_execute_hook_fn hook);

#ifdef __cplusplus
}
#endif
#endif
