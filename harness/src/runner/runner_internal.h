/* Private parts of the test runner (runner.h): the compile cache (cache.c), forked workers and
 * the messages they send (worker.c), the progress display (progress.c) and the work of one test
 * inside a worker (execute.c). Tests include this header to test them directly. */
#ifndef TORQ_HARNESS_SRC_RUNNER_INTERNAL_H
#define TORQ_HARNESS_SRC_RUNNER_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "torq/base/sha256.h"
#include "torq/base/status.h"
#include "torq/base/str.h"
#include "torq/harness/board.h"
#include "torq/harness/cache.h"
#include "torq/harness/process.h"
#include "torq/harness/results.h"
#include "torq/harness/runner.h"

/* ---- What a worker reports (worker.c) ------------------------------------------------------ */

/* A finished test as the worker saw it; owns its strings and arrays. */
typedef struct tqh__result_s {
  tqh_outcome_t outcome; /* PASSED, FAILED or ERROR from the worker */
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
  /* On a board: */
  char *board;         /* the board's name, or NULL (the simulator) */
  int has_device_wall; /* the runtime reported device_wall_time_us */
  double device_wall_s; /* its median over the timed runs */
  int board_down;      /* the board cannot be reached again: give it no more tests */
} tqh__result_t;

void tqh__result_init(tqh__result_t *r);
void tqh__result_deinit(tqh__result_t *r);
/* Sets outcome, type and message (printf) unless a failure is already recorded (the first
 * failure wins). Never fails: without memory the message is dropped. */
void tqh__result_fail(tqh__result_t *r, tqh_outcome_t outcome, const char *type, const char *fmt,
                      ...) TQ_PRINTF(4, 5);
/* As tqh__result_fail with the status's formatted text as the message (the status is freed). */
void tqh__result_fail_status(tqh__result_t *r, tqh_outcome_t outcome, const char *type,
                             tq_status_t status);
tq_status_t tqh__result_add_file(tqh__result_t *r, const char *name) TQ_MUST_USE;
tq_status_t tqh__result_add_metric(tqh__result_t *r, const char *name, double us) TQ_MUST_USE;

tq_status_t tqh__result_encode(const tqh__result_t *r, tq_buf_t *out) TQ_MUST_USE;
/* Decodes into `r` (initialized by the call); TQ_INVALID_INPUT for a malformed message. */
tq_status_t tqh__result_decode(const void *data, size_t len, tqh__result_t *r) TQ_MUST_USE;

/* Framed messages from a worker to the parent: u32 type, u32 length, payload. */
/* LOG: a line for -v. PHASE: a double, the seconds the phase that starts now may take (the
 * parent moves the worker's deadline). RESULT: an encoded tqh__result_t, last. NOTE: a line
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
  tqh__result_t result;
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
  FILE *out;
  int tty, color, verbosity;
  size_t total, done;
  size_t counts[TQH_OUTCOME_COUNT];
  size_t running;
  uint64_t start_ns, last_draw_ns;
  int line_shown;
} tqh__progress_t;

void tqh__progress_init(tqh__progress_t *p, FILE *out, int tty, int color, int verbosity,
                        size_t total);
/* A test finished: on a TTY the failures (and, with -v, every test) print above the live line;
 * otherwise one plain line per test. `seconds` is its wall time (< 0: none). */
void tqh__progress_test(tqh__progress_t *p, const char *name, tqh_outcome_t outcome,
                        double seconds, const char *message);
/* A log line of a running test (shown with -v). */
void tqh__progress_log(tqh__progress_t *p, const char *name, const char *text, size_t len);
/* Redraws the live line when due (at most ten times a second). */
void tqh__progress_tick(tqh__progress_t *p, size_t running);
/* Clears the live line. */
void tqh__progress_clear(tqh__progress_t *p);
/* Any text for the user, above the live line. */
void tqh__progress_print(tqh__progress_t *p, const char *text);
/* The colored word for an outcome ("PASSED"), with escapes when `color`. */
const char *tqh__outcome_word(tqh_outcome_t outcome, int color, const char **out_reset);

/* ---- Outputs against the reference (compare.c) ------------------------------------------------ */

struct tqr_tensor_s;
struct tqs_tensor_s;

/* A view (tqs_tensor_init, borrowing the data) of a runtime tensor for the reference
 * interpreter: the same storage. TQ_UNIMPLEMENTED for an element type it does not have. */
tq_status_t tqh__as_sim_tensor(const struct tqr_tensor_s *t, struct tqs_tensor_s *out) TQ_MUST_USE;

/* Compares output `o` with its reference: 1 when equal within the tolerance; else 0 with the
 * verdict in `msg` (how many elements differ, the first one's index and values, the largest
 * difference). Integer types compare exactly; floats pass when |got - want| <= atol + rtol *
 * |want|, NaN matches NaN and an infinity only itself. Types and shapes must agree. */
int tqh__compare_output(size_t o, const struct tqs_tensor_s *got, const struct tqs_tensor_s *want,
                        double atol, double rtol, char *msg, size_t size);

/* ---- One test in a worker (execute.c) ------------------------------------------------------- */

typedef struct tqh__board_worker_s tqh__board_worker_t;

typedef struct tqh__exec_ctx_s {
  const tqh_runner_options_t *options;
  const tqh_test_t *const *tests;
  char **test_dirs; /* absolute folders, made by the parent */
  tqh_compile_cache_t *cache;
  const char *run_dir, *run_id;
  /* A board worker: its board (NULL: the simulator) and the options of every board. */
  const tqh_board_spec_t *board;
  const tqh_board_options_t *board_options;
  tqh__board_worker_t *board_worker; /* made in the worker process on its first test */
} tqh__exec_ctx_t;

/* The worker's main (tqh__worker_main_fn): runs test `test` and sends its result on `fd`. */
void tqh__exec_main(void *ctx, size_t test, int fd);

/* The worker hooks of a board worker (tqh__worker_hooks_t): keep the lease and the session
 * alive while idle; release the lease and disconnect when retired. */
void tqh__exec_idle(void *ctx, int fd);
void tqh__exec_exit(void *ctx, int fd);

/* Runs the test, filling `r`; `log_fd` (or -1) receives log lines as TQH__MSG_LOG messages. */
void tqh__exec_test(tqh__exec_ctx_t *ctx, size_t test, int log_fd, tqh__result_t *r);

/* ---- One test on a board, in a board worker (board_exec.c) ----------------------------------- */

struct tqr_tensor_s;

/* What execute.c hands the board: the compiled model and the inputs it made. Borrowed. */
typedef struct tqh__board_test_s {
  const tqh_test_t *test; /* its id names the work folder on the board */
  const char *dir;        /* the test's local folder */
  const char *model_path; /* the local model.vmfb */
  struct tqr_tensor_s *const *inputs;
  size_t num_inputs;
  size_t num_outputs;
  const char *function; /* NULL: the module's entry point */
  uint32_t warmup, repeat;
  double run_timeout_s;
  int profile; /* ask the runtime for profile.csv and download it */
} tqh__board_test_t;

/* The board worker of `ctx` (made on first use, in the worker process). NULL without memory. */
tqh__board_worker_t *tqh__board_worker(tqh__exec_ctx_t *ctx);

/* Runs the test on the board: connects (once per worker), takes the lease and checks or syncs the
 * runtime (once per connection), puts the model and inputs in the board's cache, runs warm-up
 * and timed invocations (wall time by CLOCK_MONOTONIC around each remote command; device time
 * from the runtime's stderr), and downloads profile.csv and the outputs (*out_outputs,
 * num_outputs tensors the caller destroys) into the test's folder. Returns 1 when the outputs
 * are there; else 0 with `r` failed: an infrastructure fault as ERROR with its fault type (after
 * which the worker reconnects, or marks r->board_down), a runtime failure as FAILED. `log_fd`
 * receives log lines and phases. */
int tqh__board_run_test(tqh__board_worker_t *bw, const tqh__board_test_t *bt, int log_fd,
                        tqh__result_t *r, struct tqr_tensor_s **out_outputs);

/* Idle and exit work of a board worker (see tqh__exec_idle, tqh__exec_exit). */
void tqh__board_worker_idle(tqh__board_worker_t *bw, int fd);
void tqh__board_worker_exit(tqh__board_worker_t *bw, int fd);

#endif
