/* Private to the runner component (runner.h): forked workers and the messages they send
 * (worker.c), what a worker runs per test (worker_main.c), the progress display (progress.c).
 * Tests include this header to test them directly. */
#ifndef TORQ_HARNESS_SRC_RUNNER_INTERNAL_H
#define TORQ_HARNESS_SRC_RUNNER_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "torq/base/sha256.h"
#include "torq/base/status.h"
#include "torq/base/str.h"
#include "torq/harness/board.h"
#include "torq/harness/cache.h"
#include "torq/harness/execute.h"
#include "torq/harness/results.h"
#include "torq/harness/runner.h"

/* ---- What a worker reports (worker.c) ------------------------------------------------------ */

tq_status_t tqh__result_encode(const tqh_test_result_t *r, tq_buf_t *out) TQ_MUST_USE;
/* Decodes into `r` (initialized by the call); TQ_INVALID_INPUT for a malformed message. */
tq_status_t tqh__result_decode(const void *data, size_t len, tqh_test_result_t *r) TQ_MUST_USE;

/* Framed messages from a worker to the parent: u32 type, u32 length, payload. */
/* LOG: a line for -v. PHASE: a double, the seconds the phase that starts now may take (the
 * parent moves the worker's deadline). RESULT: an encoded tqh_test_result_t, last. NOTE: a line
 * the user always sees (board events: runtime sync, leases, reconnections), also from an idle
 * worker. */
enum { TQH__MSG_LOG = 1, TQH__MSG_PHASE = 2, TQH__MSG_RESULT = 3, TQH__MSG_NOTE = 4 };
#define TQH__MSG_MAX ((size_t)64 << 20)

/* Writes one message (blocking, retried on EINTR). */
tq_status_t tqh__msg_send(int fd, uint32_t type, const void *data, size_t len) TQ_MUST_USE;

/* Sends PHASE: `limit_s` and `name` (at most 15 bytes kept, NUL-padded to 16). */
tq_status_t tqh__msg_send_phase(int fd, const char *name, double limit_s) TQ_MUST_USE;

/* A worker process of the pool, seen from the parent. */
typedef struct tqh__worker_s {
  pid_t pid;  /* 0: the slot is free */
  int fd;     /* read end of its result pipe; -1 after end of file */
  int cmd_fd; /* write end of its command pipe; -1 once retired */
  int busy;   /* running `test` */
  int retiring;
  size_t tests_run;
  size_t test;
  uint64_t started_ns;
  uint64_t deadline_ns; /* 0: none */
  int timed_out;        /* killed by us at the deadline */
  int cancelled;        /* killed by us on cancel */
  double phase_s;       /* the limit of the phase it is in */
  char phase[16];       /* "compile", "run" */
  tq_buf_t in;          /* received bytes not yet taken as messages */
  size_t in_pos;
  int have_result;
  tqh_test_result_t result;
} tqh__worker_t;

/* Tests a worker runs before it is replaced by a fresh one. */
#define TQH__WORKER_MAX_TESTS 256

/* What a worker runs per test: it reports through `fd` (log lines, then one RESULT) and
 * returns, ready for the next test. */
typedef void (*tqh__worker_main_fn)(void *ctx, size_t test, int fd);

/* Forks an idle worker into the free slot `w`. The child closes the descriptors in `close_fds`
 * (the other workers' pipes), restores default signal handling, asks to be killed when the
 * parent dies, then runs main(ctx, test, fd) for every test index the parent hands it. */
tq_status_t tqh__worker_spawn(tqh__worker_t *w, const int *close_fds, size_t num_close_fds,
                              tqh__worker_main_fn main_fn, void *ctx) TQ_MUST_USE;

/* What a worker does besides tests (a board worker keeps its lease and session alive). */
typedef struct tqh__worker_hooks_s {
  void (*idle)(void *ctx, int fd); /* every idle_s while it waits for a test; may be NULL */
  double idle_s;
  void (*exit)(void *ctx, int fd); /* once, when retired, before it exits; may be NULL */
} tqh__worker_hooks_t;

/* tqh__worker_spawn with hooks (NULL: none). */
tq_status_t tqh__worker_spawn_hooks(tqh__worker_t *w, const int *close_fds, size_t num_close_fds,
                                    tqh__worker_main_fn main_fn, void *ctx,
                                    const tqh__worker_hooks_t *hooks) TQ_MUST_USE;

/* Hands test `test` to the idle worker `w`, with `timeout_s` (0: none) until it reports its
 * first phase. TQ_UNAVAILABLE when the worker is gone. */
tq_status_t tqh__worker_assign(tqh__worker_t *w, size_t test, double timeout_s) TQ_MUST_USE;

/* Closes the worker's command pipe: it exits when idle; reap it at end of file. */
void tqh__worker_retire(tqh__worker_t *w);

/* Reads what is available from the worker's pipe into w->in; sets w->fd to -1 (closed) at end
 * of file. */
tq_status_t tqh__worker_read(tqh__worker_t *w) TQ_MUST_USE;

/* The next whole message in w->in: returns 1 and sets type/data/len (borrowed until the next
 * read), or 0 when none is complete. A length beyond TQH__MSG_MAX is TQ_INVALID_INPUT. */
tq_status_t tqh__worker_next_msg(tqh__worker_t *w, uint32_t *out_type, const char **out_data,
                                 size_t *out_len, int *out_got) TQ_MUST_USE;

/* Kills the worker (SIGKILL). */
void tqh__worker_kill(tqh__worker_t *w);

/* Closes its pipes, waits for the worker to exit and returns its wait status; frees the slot's
 * buffers but not w->result. */
int tqh__worker_reap(tqh__worker_t *w);

/* ---- Progress (progress.c) ------------------------------------------------------------------ */

typedef struct tqh__progress_s {
  tqh_output_fn output; /* may be NULL: nothing is shown */
  void *output_ctx;
  tq_buf_t pending; /* written, not yet handed to `output` */
  int tty, color, verbosity;
  size_t total, done;
  size_t counts[TQH_OUTCOME_COUNT];
  size_t running;
  uint64_t start_ns, last_draw_ns;
  int line_shown;
} tqh__progress_t;

void tqh__progress_init(tqh__progress_t *p, tqh_output_fn output, void *output_ctx, int tty,
                        int color, int verbosity, size_t total);
void tqh__progress_deinit(tqh__progress_t *p);
/* Hands what was written to the output callback. */
void tqh__progress_flush(tqh__progress_t *p);
/* A test finished: on a TTY the failures (and, with -v, every test) print above the live line;
 * otherwise one plain line per test. `seconds` is its wall time (< 0: none). */
void tqh__progress_test(tqh__progress_t *p, const char *name, tqh_outcome_t outcome,
                        double seconds, const char *message);
/* A log line of a running test (shown with -v). */
void tqh__progress_log(tqh__progress_t *p, const char *name, const char *text, size_t len);
/* Redraws the live line when due (at most ten times a second). */
void tqh__progress_tick(tqh__progress_t *p, size_t running);
/* Clears the live line (written with the next flush). */
void tqh__progress_clear(tqh__progress_t *p);
/* Text as it is, shown with the next flush (the summary, after the live line was cleared). */
void tqh__progress_write(tqh__progress_t *p, const char *text);
/* Any text for the user, above the live line. */
void tqh__progress_print(tqh__progress_t *p, const char *text);
/* The colored word for an outcome ("PASSED"), with escapes when `color`. */
const char *tqh__outcome_word(tqh_outcome_t outcome, int color, const char **out_reset);

/* ---- What a worker runs (worker_main.c) --------------------------------------------------- */

/* The context of the workers of one slot: the executor of its tests (execute.h; its board, for a
 * board's slot) and the plan. */
typedef struct tqh__worker_ctx_s {
  tqh_executor_t exec;
  const tqh_test_t *const *tests;
  char **test_dirs; /* absolute folders, made by the worker */
} tqh__worker_ctx_t;

/* The worker's main (tqh__worker_main_fn): points its stdout and stderr at the test's stdout.txt
 * and stderr.txt, runs test `test` (tqh_execute_test) with its log lines, phases and notes going
 * to the parent on `fd`, and sends its result. */
void tqh__worker_test_main(void *ctx, size_t test, int fd);

/* The worker hooks of a board's worker (tqh__worker_hooks_t): keep the lease and the session
 * alive while idle; release the lease and disconnect when retired. */
void tqh__worker_board_idle(void *ctx, int fd);
void tqh__worker_board_exit(void *ctx, int fd);

#endif
