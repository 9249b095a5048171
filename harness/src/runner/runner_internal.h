/* Private to the runner component (runner.h): forked workers and the messages they send
 * (worker.c), what a worker runs per test (worker_main.c), the progress display (progress.c),
 * the run (runner.c) and what a finished test becomes (finish.c). Tests include this header to
 * test them directly. */
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

/* ---- What a worker reports (worker.c) ------------------------------------------------------- */

tq_status_t tqh__result_encode(const tqh_test_result_t *r, tq_buf_t *out) TQ_MUST_USE;
/* Decodes into `r` (initialized by the call); TQ_INVALID_INPUT for a malformed message. */
tq_status_t tqh__result_decode(const void *data, size_t len, tqh_test_result_t *r) TQ_MUST_USE;

/* Framed messages from a worker to the parent: u32 type, u32 length, payload. */
/* LOG: a line for -v. PHASE: a double, the seconds the phase that starts now may take (the
 * parent moves the worker's deadline; with a phase board, the board says it and the message only
 * wakes the parent). RESULT: an encoded tqh_test_result_t, last. NOTE: a line
 * the user always sees (board events: runtime sync, leases, reconnections), also from an idle
 * worker. */
enum { TQH__MSG_LOG = 1, TQH__MSG_PHASE = 2, TQH__MSG_RESULT = 3, TQH__MSG_NOTE = 4 };
#define TQH__MSG_MAX ((size_t)64 << 20)

/* Writes one message (blocking, retried on EINTR). */
tq_status_t tqh__msg_send(int fd, uint32_t type, const void *data, size_t len) TQ_MUST_USE;

/* Sends PHASE: `limit_s` and `name` (at most 15 bytes kept, NUL-padded to 16). */
tq_status_t tqh__msg_send_phase(int fd, const char *name, double limit_s) TQ_MUST_USE;

/* The phase a worker is in, in memory it shares with the parent (made at spawn). The worker
 * writes it (a sequence lock: `seq` is odd while it does) at every phase, which costs no system
 * call; the parent reads it when it sets its next wake-up, checks the deadlines or names the
 * phase of a timeout or a crash. The parent writes `look_by_ns`: it reads the board again by
 * then at the latest. A PHASE message, a wake-up, is sent only for a deadline before that. */
typedef struct tqh__phase_board_s {
  uint64_t seq;
  uint64_t gen;         /* the command (the test) whose phase this is */
  uint64_t deadline_ns; /* tqh_now_ns's clock (shared by both processes); 0: none */
  uint64_t limit_bits;  /* the phase's limit, a double's bits */
  uint64_t name[2];     /* the phase's name, NUL-padded (15 bytes at most) */
  uint64_t look_by_ns;  /* the parent's: UINT64_MAX while it may sleep without end */
  uint64_t claim;       /* the command the worker took last, or the last one taken back */
  uint64_t begun_gen;   /* the last command the worker took from its pipe */
  uint64_t begun_ns[4]; /* when it took command g, at g % 4 (written before begun_gen) */
} tqh__phase_board_t;

/* In `claim`: the parent has taken back the commands sent after the one the worker took last,
 * up to this one (with the bit cleared); the worker skips them, then takes commands again. */
#define TQH__CLAIM_TAKEN_BACK (1ull << 63)

/* The parent looks at a busy worker's board at least this often, so that a phase of a longer
 * limit than this needs no wake-up (nanoseconds). */
#define TQH__PHASE_LOOK_NS 2000000000ull

/* In a worker: enters phase `name` of `limit_s` seconds (0: no limit) of the current test: on
 * the board, and a PHASE message when the parent must wake for it (or when there is no board). */
tq_status_t tqh__worker_phase(int fd, const char *name, double limit_s) TQ_MUST_USE;

/* The tests a worker may be sent ahead of the one it runs (runner.c). */
#define TQH__AHEAD 2

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
  tqh__phase_board_t *board; /* shared with the worker; NULL: phases come as messages only */
  uint64_t sent;             /* the commands sent to it: each has the next number */
  uint64_t gen;              /* the command of its test (tqh__phase_board_t.gen) */
  struct {
    size_t test;
    uint64_t seq;
  } next[TQH__AHEAD]; /* tests sent ahead, in its command pipe (runner.c), in order */
  size_t num_next;
  int have_result;
  tqh_test_result_t result;
} tqh__worker_t;

/* Tests a worker runs before it is replaced by a fresh one. */
#define TQH__WORKER_MAX_TESTS 1024

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

/* The two halves of tqh__worker_assign: the test's index goes into the worker's command pipe,
 * as command *out_seq (a worker that is still busy reads it when its test is over: a test sent
 * ahead); the parent's view of `w` becomes test `test` of command `seq`, begun at `start_ns`,
 * in its start phase. */
tq_status_t tqh__worker_send(tqh__worker_t *w, size_t test, uint64_t *out_seq) TQ_MUST_USE;
void tqh__worker_begin(tqh__worker_t *w, size_t test, uint64_t seq, uint64_t start_ns,
                       double timeout_s);

/* Takes back from busy `w` the tests sent ahead that its worker has not taken yet (it will skip
 * their commands): returns 1 and sets *out_kept to how many of w->next it still runs; 0 when
 * none can be had now. */
int tqh__worker_take_back(tqh__worker_t *w, size_t *out_kept) TQ_MUST_USE;
/* Whether commands taken back from `w` are still ahead of its worker (it is in a long test). */
int tqh__worker_taking_back(const tqh__worker_t *w);

/* Takes the phase of busy `w`'s test from its board into w->phase, w->phase_s and
 * w->deadline_ns (nothing when the board holds an earlier test's phase or is being written). */
void tqh__worker_sync_phase(tqh__worker_t *w);

/* When `w`'s worker took command `seq` from its pipe (tqh_now_ns), or 0 when it has not yet
 * (or took a later one since, or there is no board). */
uint64_t tqh__worker_begun_ns(const tqh__worker_t *w, uint64_t seq);

/* Tells busy `w`'s worker that the parent looks at its board again by `ns` (UINT64_MAX: it may
 * not); then takes the phase again (a phase entered meanwhile is seen here, or woken for). */
void tqh__worker_look_by(tqh__worker_t *w, uint64_t ns);

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
  const char *running_id;    /* the test running longest (borrowed), or NULL */
  uint64_t running_since_ns; /* when it started */
  uint64_t start_ns, last_draw_ns, last_done_ns;
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
/* Redraws the live line when due (at most ten times a second): `running` tests, the one running
 * longest `oldest_id` (borrowed until the next tick; NULL: not named) since `oldest_since_ns`. */
void tqh__progress_tick(tqh__progress_t *p, size_t running, const char *oldest_id,
                        uint64_t oldest_since_ns);
/* Clears the live line (written with the next flush). */
void tqh__progress_clear(tqh__progress_t *p);
/* Text as it is, shown with the next flush (the summary, after the live line was cleared). */
void tqh__progress_write(tqh__progress_t *p, const char *text);
/* Any text for the user, above the live line. */
void tqh__progress_print(tqh__progress_t *p, const char *text);
/* The colored word for an outcome ("PASSED"), with escapes when `color`. */
const char *tqh__outcome_word(tqh_outcome_t outcome, int color, const char **out_reset);

/* ---- What a worker runs (worker_main.c) ----------------------------------------------------- */

/* The context of the workers of one slot: the executor of its tests (execute.h; its board, for a
 * board's slot) and the plan. */
typedef struct tqh__worker_ctx_s {
  tqh_executor_t exec;
  const tqh_test_t *const *tests;
  char **test_dirs; /* absolute folders, made by the worker */
  int logs;         /* the parent shows the log lines (-v): else they are not sent */
} tqh__worker_ctx_t;

/* The worker's main (tqh__worker_main_fn): points its stdout and stderr at the test's stdout.txt
 * and stderr.txt, runs test `test` (tqh_execute_test) with its log lines, phases and notes going
 * to the parent on `fd`, and sends its result. */
void tqh__worker_test_main(void *ctx, size_t test, int fd);

/* The worker hooks of a board's worker (tqh__worker_hooks_t): keep the lease and the session
 * alive while idle; release the lease and disconnect when retired. */
void tqh__worker_board_idle(void *ctx, int fd);
void tqh__worker_board_exit(void *ctx, int fd);
/* The main of a process that cleans up after a board's worker killed mid-test
 * (tqh_executor_board_cleanup); `test` is not used. */
void tqh__worker_board_cleanup(void *ctx, size_t test, int fd);

/* ---- The run (runner.c) and what a finished test becomes (finish.c) ------------------------- */

/* A finished test's result, recorded once the next test has started. */
typedef struct tqh__pending_s {
  size_t test;
  uint64_t ended_ns; /* when its end was seen (its RESULT, or its worker's end): its duration's */
  tqh_test_result_t result;
} tqh__pending_t;

/* Tests waiting for a slot, in order; room in front for the retried ones. */
typedef struct tqh__queue_s {
  size_t *items;
  size_t head, tail;
} tqh__queue_t;

enum { TQH__CLASS_SIM = 0 }; /* then 1 + board index; then the pool */

/* One run, in the parent: the plan, the workers, the queues and what is waiting to be recorded. */
typedef struct tqh__run_s {
  const tqh_runner_options_t *options;
  const tqh_test_t *const *tests;
  size_t num_tests;
  tqh_results_t *results;
  tqh_runner_summary_t *summary;
  tqh__progress_t progress;
  tqh__worker_ctx_t exec;
  tqh_compile_cache_t cache;
  tqh__worker_t *workers;
  size_t num_workers, running;
  /* Finished, not yet recorded: at most 1 + TQH__AHEAD per worker (the results one read of its
   * pipe can hold), recorded before the next read. */
  tqh__pending_t *pending;
  size_t num_pending;
  double *started_at; /* CLOCK_REALTIME per test */
  uint64_t *started_ns;

  const tqh_runner_boards_t *boards; /* NULL: the simulator only */
  size_t num_boards, num_sim;        /* slots: num_sim simulator workers, then the boards */
  tqh__worker_ctx_t *ctxs;           /* per slot */
  tqh_board_options_t board_options;
  char *lease_owner;
  tqh__worker_hooks_t board_hooks;
  int *board_dead;
  int *board_dirty; /* its worker was killed mid-test: the board needs cleaning up */
  tqh__queue_t *queues; /* TQH__CLASS_SIM, 1 + board, pool */
  size_t num_queues, pool_class;
  size_t *test_class;
  unsigned char *attempts;
  char **retry_note; /* why the first attempt of a retried test failed */
  size_t queued;     /* tests in the queues */
  /* Why the run stops early when the machine fails it (its results cannot be written, a disk is
   * full); NULL while it has not. The rest of the tests are then recorded as not run. */
  char *fault;
  size_t unrecorded; /* records that could not be written after the fault */
  size_t failures;   /* failed or errored tests so far (for maxfail), recorded or pending */
} tqh__run_t;

static inline int tqh__run_slot_board(const tqh__run_t *run, size_t k) {
  return k >= run->num_sim ? (int)(k - run->num_sim) : -1;
}

static inline int tqh__run_worker_board(const tqh__run_t *run, const tqh__worker_t *w) {
  return tqh__run_slot_board(run, (size_t)(w - run->workers));
}

static inline void tqh__run_queue_push(tqh__run_t *run, size_t cls, size_t test) {
  run->queues[cls].items[run->queues[cls].tail++] = test;
  run->queued++;
}

static inline void tqh__run_queue_push_front(tqh__run_t *run, size_t cls, size_t test) {
  run->queues[cls].items[--run->queues[cls].head] = test;
  run->queued++;
}

static inline int tqh__run_queue_pop(tqh__run_t *run, size_t cls, size_t *out_test) {
  tqh__queue_t *q = &run->queues[cls];
  if (q->head == q->tail) return 0;
  *out_test = q->items[q->head++];
  run->queued--;
  return 1;
}

static inline int tqh__run_any_board_alive(const tqh__run_t *run) {
  for (size_t b = 0; b < run->num_boards; b++)
    if (!run->board_dead[b]) return 1;
  return 0;
}

static inline int tqh__run_cancelled(const tqh__run_t *run) {
  return run->options->cancel && *run->options->cancel;
}

/* The test of worker `w` is over: by its RESULT (`status` < 0; the worker lives on), or because
 * the worker died (`status`: its wait status). Queues the test's result, which is recorded after
 * the next test has started, so that writing the reports overlaps that test's work; or queues
 * the test again after an infrastructure fault on a board. */
void tqh__run_finish_test(tqh__run_t *run, tqh__worker_t *w, int status);

/* Records test `i` that never ran (skipped, not run, its board down) with `outcome`, its failure
 * type and message. */
tq_status_t tqh__run_record_simple(tqh__run_t *run, size_t i, tqh_outcome_t outcome,
                                   const char *type, const char *message) TQ_MUST_USE;

/* The tests that only dead boards could run end as errors. */
tq_status_t tqh__run_fail_orphans(tqh__run_t *run) TQ_MUST_USE;

/* Records the queued results, in the order their tests finished. */
tq_status_t tqh__run_record_pending(tqh__run_t *run) TQ_MUST_USE;

/* The machine failed the run (`why`: the results cannot be written, a disk is full): the run
 * stops as an infrastructure fault. A full disk gets the results' reserve back, so that the
 * records of the tests not run and the reports still fit. Only the first fault counts. */
void tqh__run_fault(tqh__run_t *run, const char *why);

/* The message of a test not run because the run stopped (heap; tq_free): interrupted, or the
 * fault. */
char *tqh__run_not_run_message(const tqh__run_t *run, int was_running);

#endif
