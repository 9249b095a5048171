/* Running a local program as a subprocess (component common/, harness/src/common/): an argv,
 * never a shell command line; the program in a process group of its own, killed as a group at
 * its timeout (and after it exits, so that nothing it started outlives it); stdin from
 * /dev/null, stdout and stderr captured; it dies with its caller (PR_SET_PDEATHSIG).
 */
#ifndef TORQ_HARNESS_SUBPROCESS_H
#define TORQ_HARNESS_SUBPROCESS_H

#include <stddef.h>

#include "torq/base/status.h"
#include "torq/base/str.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tqh_subprocess_options_s {
  double timeout_s;    /* > 0: kill the process group after this many seconds; 0: no limit */
  size_t output_limit; /* bytes kept of stdout and of stderr each (the rest is dropped) */
} tqh_subprocess_options_t;

void tqh_subprocess_options_initialize(tqh_subprocess_options_t *options);

typedef struct tqh_subprocess_result_s {
  int start_errno; /* the program could not be started (execvp's errno: ENOENT, EACCES, ...) */
  int exit_status; /* when it exited */
  int signal;      /* the signal that ended it, or 0 */
  int timed_out;   /* killed (with its process group) at the timeout */
  double seconds;  /* from the start to its end, CLOCK_MONOTONIC */
  tq_buf_t out, err;
  int out_truncated, err_truncated;
} tqh_subprocess_result_t;

void tqh_subprocess_result_init(tqh_subprocess_result_t *result);
void tqh_subprocess_result_deinit(tqh_subprocess_result_t *result);

/* Runs argv[0] (looked up in $PATH when it holds no '/') with argv (NULL-terminated) and waits
 * for it. `result` (initialized by the caller) is reset first. A program that cannot be started
 * is not an error of this call: result->start_errno says why. Errors: TQ_IO (no pipe, no fork),
 * TQ_OUT_OF_MEMORY. */
tq_status_t tqh_subprocess_run(const char *const *argv, const tqh_subprocess_options_t *options,
                               tqh_subprocess_result_t *result) TQ_MUST_USE;

/* The last `lines` lines of `text` that are not empty, joined by newlines and cut to `size` - 1
 * bytes (their end kept), into `out`; "" when there are none. */
void tqh_subprocess_last_lines(const char *text, size_t len, size_t lines, char *out, size_t size);

#ifdef __cplusplus
}
#endif
#endif
