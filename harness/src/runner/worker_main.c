/* What a worker runs per test (runner_internal.h): the test's folder, with its stdout.txt and
 * stderr.txt in place of the worker's own (so that what a crashing test printed is kept there),
 * then the execution (execute.h) with its log lines, phases and notes sent to the parent and
 * what it leaves for the test's output files written there, and last the RESULT. A board's
 * worker does its idle and exit work (execute.h) the same way. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runner_internal.h"
#include "torq/base/alloc.h"
#include "torq/base/file.h"

/* Where a worker's execution reports: the parent's pipe and the test's two output files. */
typedef struct worker_io_s {
  int fd;             /* the result pipe to the parent */
  int out_fd, err_fd; /* the test's stdout.txt and stderr.txt, or -1 */
} worker_io_t;

static void send_log(void *ctx, const char *line, size_t len) {
  const worker_io_t *w = ctx;
  tq_status_free(tqh__msg_send(w->fd, TQH__MSG_LOG, line, len));
}

static void send_note(void *ctx, const char *line, size_t len) {
  const worker_io_t *w = ctx;
  tq_status_free(tqh__msg_send(w->fd, TQH__MSG_NOTE, line, len));
}

static void send_phase(void *ctx, const char *name, double limit_s) {
  const worker_io_t *w = ctx;
  tq_status_free(tqh__worker_phase(w->fd, name, limit_s));
}

static void keep_output(void *ctx, int stream, const char *data, size_t len) {
  const worker_io_t *w = ctx;
  int fd = stream == 1 ? w->out_fd : w->err_fd;
  if (fd >= 0)
    tq_status_free(tq_fd_write_all(fd, stream == 1 ? "stdout.txt" : "stderr.txt", data, len));
}

/* Without `logs` the execution has no log (it neither formats nor sends its lines): the
 * parent shows them only with -v, and a message to the parent costs both sides a system call
 * or two and a wake-up. */
static void io_init(tqh_execute_io_t *io, worker_io_t *w, int logs) {
  io->ctx = w;
  io->log = logs ? send_log : NULL;
  io->note = send_note;
  io->phase = send_phase;
  io->output = keep_output;
}

/* Makes the test's folder and points the worker's stdout and stderr at its stdout.txt and
 * stderr.txt; w->out_fd and w->err_fd are the same files (one offset each with fd 1 and 2). */
static tq_status_t redirect_output(const char *dir, worker_io_t *w) {
  static const char *const names[2] = {"stdout.txt", "stderr.txt"};
  char path[4096];
  if (mkdir(dir, 0777) != 0 && errno != EEXIST)
    return TQ_STATUS(TQ_IO, "%s: cannot create the test's folder: %s", dir, strerror(errno));
  for (int i = 0; i < 2; i++) {
    int n = snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
    if (n < 0 || (size_t)n >= sizeof(path)) return TQ_STATUS(TQ_LIMIT, "%s: path too long", dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) return TQ_STATUS(TQ_IO, "%s: cannot create: %s", path, strerror(errno));
    if (dup2(fd, i + 1) < 0) {
      close(fd);
      return TQ_STATUS(TQ_IO, "%s: dup2 failed: %s", path, strerror(errno));
    }
    *(i == 0 ? &w->out_fd : &w->err_fd) = fd;
  }
  /* Line-buffered, so that what a crashing test printed is in the file (set once per worker:
   * the streams stay, only their descriptors change). */
  static int buffering_set;
  if (!buffering_set) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    setvbuf(stderr, NULL, _IONBF, 0);
    buffering_set = 1;
  }
  return NULL;
}

/* AddressSanitizer and ThreadSanitizer reserve terabytes of address space up front: under them
 * no address-space limit can hold, and none is set. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define MEMORY_LIMIT_WORKS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define MEMORY_LIMIT_WORKS 0
#endif
#endif
#ifndef MEMORY_LIMIT_WORKS
#define MEMORY_LIMIT_WORKS 1
#endif

/* The test's memory limit as the soft RLIMIT_AS of this worker (0: none; never above the hard
 * limit, which stays, so that the next test of the worker can have more). Returns the limit set,
 * 0 when none is. */
static uint64_t limit_memory(uint64_t bytes) {
  /* The limits as this process last read or set them: only a worker sets them, and only here,
   * so one getrlimit per worker (and a setrlimit only for a change) is enough. */
  static struct rlimit rl;
  static int known;
  if (!MEMORY_LIMIT_WORKS) return 0;
  if (!known) {
    if (getrlimit(RLIMIT_AS, &rl) != 0) return 0;
    known = 1;
  }
  rlim_t want = bytes ? (rlim_t)bytes : RLIM_INFINITY;
  if (rl.rlim_max != RLIM_INFINITY && (want == RLIM_INFINITY || want > rl.rlim_max))
    want = rl.rlim_max;
  if (want != rl.rlim_cur) {
    struct rlimit next = {want, rl.rlim_max};
    if (setrlimit(RLIMIT_AS, &next) != 0) return 0;
    rl = next;
  }
  return bytes;
}

/* A test that failed for want of memory under its limit is an error that names the limit, not
 * a failure of the model. */
static void name_the_limit(tqh_test_result_t *r, uint64_t limit) {
  if (!limit || r->outcome == TQH_OUTCOME_PASSED || !r->message ||
      !strstr(r->message, "out of memory"))
    return;
  char *message = tq_strdup_printf(
      "out of memory under the test's memory limit of %.1f MiB (memory: in the suite or "
      "configs/, TORQ_MEMORY; the worker's RLIMIT_AS): %s",
      (double)limit / 1048576.0, r->message);
  if (!message) return;
  tq_free(r->message);
  r->message = message;
  tq_free(r->failure_type);
  r->failure_type = tq_strdup_printf("memory_limit");
  r->outcome = TQH_OUTCOME_ERROR;
  r->infrastructure = 0; /* the test's own doing, like a timeout: not the machine's */
}

void tqh__worker_test_main(void *vctx, size_t test, int fd) {
  tqh__worker_ctx_t *ctx = vctx;
  tqh_test_result_t r;
  tqh_test_result_init(&r);
  uint64_t limit = limit_memory(ctx->tests[test]->settings.memory_bytes);
  /* What the previous test of this worker printed stays in its own files. */
  fflush(stdout);
  worker_io_t w = {fd, -1, -1};
  tq_status_t st = redirect_output(ctx->test_dirs[test], &w);
  if (st) {
    r.infrastructure = 1;
    tqh_test_result_fail_status(&r, TQH_OUTCOME_ERROR, "infrastructure", st);
  } else {
    tq_status_free(tqh_test_result_add_file(&r, "stdout.txt"));
    tq_status_free(tqh_test_result_add_file(&r, "stderr.txt"));
    tqh_execute_io_t io;
    io_init(&io, &w, ctx->logs);
    tqh_execute_test(&ctx->exec, ctx->tests[test], ctx->test_dirs[test], &io, &r);
    name_the_limit(&r, limit);
  }
  /* Reporting must not run out: the result goes out without the test's limit. */
  limit_memory(0);
  fflush(stdout);
  if (w.out_fd >= 0) close(w.out_fd);
  if (w.err_fd >= 0) close(w.err_fd);
  tq_buf_t msg;
  tq_buf_init(&msg, 0);
  st = tqh__result_encode(&r, &msg);
  if (!st) st = tqh__msg_send(fd, TQH__MSG_RESULT, msg.data, msg.len);
  tq_status_free(st);
  tq_buf_deinit(&msg);
  /* After anything but a pass the parent retires a simulator worker (finish.c), and may have
   * sent it its next test already (runner.c): that test is for a fresh worker, not this one. */
  int last = r.outcome != TQH_OUTCOME_PASSED && !ctx->exec.board;
  tqh_test_result_deinit(&r);
  if (last) _exit(0);
}

/* A board's idle or exit work (execute.h), its notes sent to the parent on `fd`. */
static void board_work(void *vctx, int fd,
                       void (*work)(tqh_executor_t *exec, const tqh_execute_io_t *io)) {
  tqh__worker_ctx_t *ctx = vctx;
  worker_io_t w = {fd, -1, -1};
  tqh_execute_io_t io;
  io_init(&io, &w, ctx->logs);
  work(&ctx->exec, &io);
}

void tqh__worker_board_idle(void *vctx, int fd) {
  board_work(vctx, fd, tqh_executor_board_idle);
}

void tqh__worker_board_exit(void *vctx, int fd) {
  board_work(vctx, fd, tqh_executor_board_exit);
}

void tqh__worker_board_cleanup(void *vctx, size_t test, int fd) {
  (void)test;
  board_work(vctx, fd, tqh_executor_board_cleanup);
}
