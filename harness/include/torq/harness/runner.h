/* The test runner behind torq-test: runs a plan of tests, each in a forked worker process, and
 * records every finished test in a results directory (results.h).
 *
 * Workers are a pool of forked processes (no exec), each running one test at a time; a worker
 * is replaced after a crash, a timeout, any test that did not pass, and every 256 tests.
 *
 * Per test, in the worker (the phases of execute.h):
 *   1. compile the model in-process (libtorq-compiler) through the content-addressed cache:
 *      key = SHA-256 of (model bytes, compile options, compiler identity); an entry holds
 *      model.vmfb, trace.csv and debug/, linked (hard links, else copies) into the test's folder;
 *   2. run it in-process on the simulator (libtorq-runtime): `warmup` untimed invocations, then
 *      `repeat` invocations each timed with CLOCK_MONOTONIC (the wall time);
 *   3. compare the outputs of the last invocation with the reference interpreter
 *      (tqc_reference_run) and with expected values, within the test's tolerance (integers
 *      exactly);
 *   4. with profiling on: one more invocation in a fresh session writes profile.csv (INIT and one
 *      DISPATCH, simulated time), annotated into annotated.csv, profile.xlsx and profile.pb; the
 *      Host Profile Overview metrics are read back from profile.pb.
 * The worker's stdout and stderr go to the test's stdout.txt and stderr.txt.
 *
 * Isolation: a test that crashes (a signal), hangs past its timeout (killed) or fails in any way
 * ends that test only (and its worker). `jobs` workers run at once; the parent alone writes the
 * results (one writer), so each finished test's files, its journal line and the regenerated
 * junit.xml are on disk before the next result is taken, and a runner killed at any point leaves
 * valid reports of every finished test.
 *
 * Cancellation: when *options->cancel becomes non-zero (the tool's SIGINT handler sets it) no
 * further test starts, running workers are killed, every test not finished is recorded as
 * NOT_RUN, the reports are finished and tqh_runner_run returns with summary->cancelled set. While
 * it runs, tqh_runner_run blocks SIGINT, SIGTERM and SIGHUP except while it waits (ppoll), so a
 * signal never interrupts a write half-way; workers restore the default actions. SIGPIPE is
 * ignored while it runs (a worker that died is noticed by a failed write).
 *
 * The runner component (harness/src/runner/) owns the runner, its workers, the progress and the
 * compile cache (cache.h).
 */
#ifndef TORQ_HARNESS_RUNNER_H
#define TORQ_HARNESS_RUNNER_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "torq/base/status.h"
#include "torq/harness/results.h"
#include "torq/harness/suite.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where the runner's text for the user goes (the progress, the summary): `len` bytes, a piece
 * the user should see at once (the tool writes it to its stdout and flushes). */
typedef void (*tqh_output_fn)(void *ctx, const char *text, size_t len);

typedef struct tqh_runner_options_s {
  size_t jobs;                   /* workers at once; default 1 */
  int strict;                    /* an expected failure that passes fails the test */
  size_t maxfail;                /* after this many failed or errored tests, start no more (the
                                  * running ones finish; the rest are NOT_RUN); 0: never */
  int verbosity;                 /* -1 quiet, 0 default, 1 verbose (-v: logs of every test) */
  int color;                     /* -1 auto (a TTY and no NO_COLOR), 0 off, 1 on */
  int tty;                       /* 1: the output is a terminal (live progress); 0: plain lines */
  tqh_output_fn output;          /* progress and summary; NULL: nothing is shown */
  void *output_ctx;
  const char *cache_dir;         /* the compile cache; required */
  int recompute_cache;           /* compile even when the cache has the entry */
  const char *profile_copy_dir;  /* also copy each test's profile files to DIR/<test-id>/ */
  int profiling;                 /* profile, annotate, compute the overview; default 1 */
  const volatile sig_atomic_t *cancel; /* may be NULL */
  int print_summary;             /* print the summary and overview at the end; default 1 */
  tqh_summary_options_t summary; /* how (results.h); the runner fills its elapsed_s and run_dir */
  struct tqh_baseline_s *baseline; /* --baseline: gate each test on it (baseline.h); borrowed */
  /* --upload: each recorded test is queued for it (upload.h); the workers close its pipe. */
  struct tqh_uploader_s *uploader;
} tqh_runner_options_t;

void tqh_runner_options_initialize(tqh_runner_options_t *options);

/* What the run came to. */
typedef struct tqh_runner_summary_s {
  size_t counts[TQH_OUTCOME_COUNT]; /* tests per outcome */
  size_t cache_hits, cache_misses;
  size_t infrastructure_errors; /* tests that could not be run for reasons outside the model */
  int cancelled;
  int stopped; /* maxfail was reached: tests were left out */
  double elapsed_s;
  double compile_s, run_s; /* summed over the tests: time in the compiler (cache misses) and in
                            * execution (inputs, module load, sessions, invocations, reference) */
  /* Where the parent's own time went (the runner's overhead, for benchmarks): starting workers
   * (fork) and recording finished tests (tqh_results_test_finished: report.json, wall_time.txt,
   * the journal, junit.xml and summary.txt). */
  double spawn_s, record_s;
} tqh_runner_summary_t;

/* Runs `tests` (num_tests of them, borrowed: the selected tests of the loaded suites, whose
 * settings are resolved; test ids must be unique) and records them in `results` (borrowed; the
 * caller created it and destroys it after; this function calls tqh_results_finish). Errors are
 * only those that stop the whole run (a worker cannot be forked, the results cannot be written:
 * TQ_IO, TQ_UNAVAILABLE); a test's failure is its outcome. *out_summary is filled also on
 * error, as far as the run got. */
tq_status_t tqh_runner_run(const tqh_runner_options_t *options, const tqh_test_t *const *tests,
                           size_t num_tests, tqh_results_t *results,
                           tqh_runner_summary_t *out_summary) TQ_MUST_USE;

/* The exit status of a run (DESIGN 3): 130 cancelled, 3 when an infrastructure error happened,
 * 1 when a test failed or errored (xpassed in strict mode is failed), else 0. */
int tqh_runner_exit_code(const tqh_runner_summary_t *summary);

#ifdef __cplusplus
}
#endif
#endif
