/* Forked worker processes and what they send back.
 *
 * A pool of forked workers (fork, no exec: a worker already has the whole plan in its memory).
 * The parent hands a worker a test by writing a command (the test's index and the command's
 * number, two u64) to the worker's command pipe; the worker takes it (unless the parent took it
 * back: the phase board's `claim`), runs it and answers on its result pipe with framed messages
 * (u32 type, u32 length, payload; host byte order, both ends are the same program): log lines
 * while it runs, then one RESULT. Then it reads the next command; end of file on the command
 * pipe retires it.
 *
 * Reusing workers saves a fork, an exit and the copy-on-write faults of a fresh process per test
 * (most of the runner's own cost for tiny tests). Isolation does not suffer where it matters: a
 * crash or a timeout ends only the worker it happened in (a fresh one replaces it), and the
 * runner retires a worker after any test that did not pass, and after TQH__WORKER_MAX_TESTS
 * tests, so that nothing a failing test did (a leak, a corrupted heap) can reach later tests.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "runner_internal.h"
#include "torq/base/alloc.h"
#include "torq/base/checked.h"
#include "torq/base/file.h"
#include "torq/harness/process.h"

/* ---- Results on the wire -------------------------------------------------------------------- */

/* Encoding: fixed-width host-order fields and length-prefixed strings (both ends are this
 * program). */
static tq_status_t put_u64(tq_buf_t *b, uint64_t v) {
  return tq_buf_append(b, &v, sizeof(v));
}
static tq_status_t put_f64(tq_buf_t *b, double v) {
  return tq_buf_append(b, &v, sizeof(v));
}
static tq_status_t put_str(tq_buf_t *b, const char *s) {
  if (!s) return put_u64(b, UINT64_MAX);
  size_t n = strlen(s);
  TQ_TRY(put_u64(b, n));
  return tq_buf_append(b, s, n);
}

tq_status_t tqh__result_encode(const tqh_test_result_t *r, tq_buf_t *out) {
  TQ_TRY(put_u64(out, (uint64_t)r->outcome));
  TQ_TRY(put_str(out, r->message));
  TQ_TRY(put_str(out, r->failure_type));
  TQ_TRY(put_str(out, r->text));
  TQ_TRY(put_u64(out, (uint64_t)r->infrastructure));
  TQ_TRY(put_u64(out, (uint64_t)r->cache));
  TQ_TRY(put_f64(out, r->compile_s));
  TQ_TRY(put_f64(out, r->run_s));
  TQ_TRY(put_u64(out, (uint64_t)r->has_estimated_cycles));
  TQ_TRY(put_u64(out, r->estimated_cycles));
  TQ_TRY(put_u64(out, (uint64_t)r->has_wall_time));
  TQ_TRY(put_u64(out, r->num_samples));
  for (size_t i = 0; i < r->num_samples; i++) TQ_TRY(put_f64(out, r->samples[i]));
  TQ_TRY(put_u64(out, r->num_metrics));
  for (size_t i = 0; i < r->num_metrics; i++) {
    TQ_TRY(put_str(out, r->metric_names[i]));
    TQ_TRY(put_f64(out, r->metric_us[i]));
  }
  TQ_TRY(put_u64(out, r->num_files));
  for (size_t i = 0; i < r->num_files; i++) TQ_TRY(put_str(out, r->files[i]));
  TQ_TRY(put_u64(out, r->clock_hz));
  TQ_TRY(put_u64(out, r->num_recon));
  for (size_t i = 0; i < r->num_recon; i++) {
    const tqh_recon_t *p = &r->recon[i];
    TQ_TRY(put_u64(out, p->job_id));
    TQ_TRY(put_u64(out, p->programs));
    TQ_TRY(put_str(out, p->location));
    TQ_TRY(put_str(out, p->operators));
    TQ_TRY(put_u64(out, p->estimated_cycles));
    TQ_TRY(put_u64(out, (uint64_t)p->has_simulated));
    TQ_TRY(put_u64(out, p->simulated_cycles));
    TQ_TRY(put_u64(out, p->sim_dma_cycles));
    TQ_TRY(put_u64(out, p->sim_compute_cycles));
    TQ_TRY(put_u64(out, p->sim_overlap_cycles));
    TQ_TRY(put_u64(out, (uint64_t)p->has_device));
    TQ_TRY(put_f64(out, p->device_us));
  }
  TQ_TRY(put_str(out, r->board));
  TQ_TRY(put_u64(out, r->num_device_samples));
  for (size_t i = 0; i < r->num_device_samples; i++) TQ_TRY(put_f64(out, r->device_samples[i]));
  TQ_TRY(put_u64(out, (uint64_t)r->board_down));
  TQ_TRY(put_u64(out, r->num_properties));
  for (size_t i = 0; i < r->num_properties; i++) {
    TQ_TRY(put_str(out, r->property_keys[i]));
    TQ_TRY(put_str(out, r->property_values[i]));
  }
  return NULL;
}

typedef struct reader_s {
  const char *p, *end;
  int bad;
} reader_t;

/* Copies the next `n` bytes into `out`, or marks the message bad (out stays zeroed). */
static void get_raw(reader_t *rd, void *out, size_t n) {
  if ((size_t)(rd->end - rd->p) < n) {
    rd->bad = 1;
    return;
  }
  memcpy(out, rd->p, n);
  rd->p += n;
}

static uint64_t get_u64(reader_t *rd) {
  uint64_t v = 0;
  get_raw(rd, &v, sizeof(v));
  return v;
}

static double get_f64(reader_t *rd) {
  double v = 0;
  get_raw(rd, &v, sizeof(v));
  return v;
}

static char *get_str(reader_t *rd) {
  uint64_t n = get_u64(rd);
  if (rd->bad || n == UINT64_MAX) return NULL;
  if (n > (uint64_t)(rd->end - rd->p)) {
    rd->bad = 1;
    return NULL;
  }
  char *s = tq_strndup(rd->p, (size_t)n);
  if (!s) rd->bad = 1;
  rd->p += n;
  return s;
}

/* A count that cannot exceed what the remaining bytes could hold (each item >= 8 bytes). */
static size_t get_count(reader_t *rd) {
  uint64_t n = get_u64(rd);
  if (rd->bad || n > (uint64_t)(rd->end - rd->p) / 8) {
    rd->bad = 1;
    return 0;
  }
  return (size_t)n;
}

tq_status_t tqh__result_decode(const void *data, size_t len, tqh_test_result_t *r) {
  tqh_test_result_init(r);
  reader_t rd = {data, (const char *)data + len, 0};
  uint64_t outcome = get_u64(&rd);
  r->outcome = outcome < TQH_OUTCOME_COUNT ? (tqh_outcome_t)outcome : TQH_OUTCOME_ERROR;
  r->message = get_str(&rd);
  r->failure_type = get_str(&rd);
  r->text = get_str(&rd);
  r->infrastructure = (int)get_u64(&rd);
  uint64_t cache = get_u64(&rd);
  r->cache = cache <= TQH_CACHE_MISS ? (tqh_cache_t)cache : TQH_CACHE_NONE;
  r->compile_s = get_f64(&rd);
  r->run_s = get_f64(&rd);
  r->has_estimated_cycles = (int)get_u64(&rd);
  r->estimated_cycles = get_u64(&rd);
  r->has_wall_time = (int)get_u64(&rd);
  size_t n = get_count(&rd);
  if (!rd.bad && n) {
    r->samples = tq_calloc(n, sizeof(double));
    if (!r->samples) rd.bad = 1;
    for (size_t i = 0; i < n && !rd.bad; i++) r->samples[i] = get_f64(&rd);
    if (!rd.bad) r->num_samples = n;
  }
  n = get_count(&rd);
  if (!rd.bad && n) {
    r->metric_names = tq_calloc(n, sizeof(char *));
    r->metric_us = tq_calloc(n, sizeof(double));
    if (!r->metric_names || !r->metric_us) rd.bad = 1;
    for (size_t i = 0; i < n && !rd.bad; i++) {
      r->metric_names[i] = get_str(&rd);
      r->metric_us[i] = get_f64(&rd);
      r->num_metrics = i + 1;
      if (!r->metric_names[i]) rd.bad = 1;
    }
  }
  n = get_count(&rd);
  if (!rd.bad && n) {
    r->files = tq_calloc(n, sizeof(char *));
    if (!r->files) rd.bad = 1;
    for (size_t i = 0; i < n && !rd.bad; i++) {
      r->files[i] = get_str(&rd);
      r->num_files = i + 1;
      if (!r->files[i]) rd.bad = 1;
    }
  }
  r->clock_hz = get_u64(&rd);
  n = get_count(&rd);
  if (!rd.bad && n) {
    r->recon = tq_calloc(n, sizeof(*r->recon));
    if (!r->recon) rd.bad = 1;
    for (size_t i = 0; i < n && !rd.bad; i++) {
      tqh_recon_t *p = &r->recon[i];
      p->job_id = (uint32_t)get_u64(&rd);
      p->programs = (uint32_t)get_u64(&rd);
      p->location = get_str(&rd);
      p->operators = get_str(&rd);
      p->estimated_cycles = get_u64(&rd);
      p->has_simulated = (int)get_u64(&rd);
      p->simulated_cycles = get_u64(&rd);
      p->sim_dma_cycles = get_u64(&rd);
      p->sim_compute_cycles = get_u64(&rd);
      p->sim_overlap_cycles = get_u64(&rd);
      p->has_device = (int)get_u64(&rd);
      p->device_us = get_f64(&rd);
      r->num_recon = i + 1;
      if (!p->location || !p->operators) rd.bad = 1;
    }
  }
  if (!rd.bad) {
    r->board = get_str(&rd);
    n = get_count(&rd);
    if (!rd.bad && n) {
      r->device_samples = tq_calloc(n, sizeof(double));
      if (!r->device_samples) rd.bad = 1;
      for (size_t i = 0; i < n && !rd.bad; i++) r->device_samples[i] = get_f64(&rd);
      if (!rd.bad) r->num_device_samples = n;
    }
    r->board_down = (int)get_u64(&rd);
    n = get_count(&rd);
    for (size_t i = 0; i < n && !rd.bad; i++) {
      char *k = get_str(&rd), *v = get_str(&rd);
      tq_status_t pst = k && v ? tqh_test_result_add_property(r, k, v) : NULL;
      if (!k || !v || pst) rd.bad = 1;
      tq_status_free(pst);
      tq_free(k);
      tq_free(v);
    }
  }
  if (rd.bad || rd.p != rd.end) {
    tqh_test_result_deinit(r);
    tqh_test_result_init(r);
    return TQ_STATUS(TQ_INVALID_INPUT, "malformed result message from a worker");
  }
  return NULL;
}

/* ---- Messages ------------------------------------------------------------------------------- */

static tq_status_t write_all(int fd, const void *data, size_t len) {
  return tq_fd_write_all(fd, "the pipe to the runner", data, len);
}

tq_status_t tqh__msg_send(int fd, uint32_t type, const void *data, size_t len) {
  if (len > TQH__MSG_MAX) return TQ_STATUS(TQ_LIMIT, "message of %zu bytes is too long", len);
  uint32_t head[2] = {type, (uint32_t)len};
  /* One write for small messages, so that a log line is never split from its header. */
  char small[4096];
  if (len <= sizeof(small) - sizeof(head)) {
    memcpy(small, head, sizeof(head));
    if (len) memcpy(small + sizeof(head), data, len);
    return write_all(fd, small, sizeof(head) + len);
  }
  TQ_TRY(write_all(fd, head, sizeof(head)));
  return write_all(fd, data, len);
}

tq_status_t tqh__msg_send_phase(int fd, const char *name, double limit_s) {
  char msg[sizeof(double) + 16];
  memset(msg, 0, sizeof(msg));
  memcpy(msg, &limit_s, sizeof(double));
  snprintf(msg + sizeof(double), 16, "%s", name);
  return tqh__msg_send(fd, TQH__MSG_PHASE, msg, sizeof(msg));
}

/* ---- The phase board ------------------------------------------------------------------------ */

/* In a worker: its own board (NULL: none, or not a worker) and the tests it has been handed. */
static tqh__phase_board_t *own_board;
static uint64_t own_gen;

tq_status_t tqh__worker_phase(int fd, const char *name, double limit_s) {
  tqh__phase_board_t *b = own_board;
  if (!b) return tqh__msg_send_phase(fd, name, limit_s);
  uint64_t deadline = limit_s > 0 ? tqh_now_ns() + (uint64_t)(limit_s * 1e9) : 0;
  uint64_t words[2] = {0, 0}, limit_bits;
  size_t n = strnlen(name, sizeof(words) - 1);
  memcpy(words, name, n);
  memcpy(&limit_bits, &limit_s, sizeof(limit_bits));
  /* The only writer: odd while the fields change, even again after. */
  uint64_t seq = __atomic_load_n(&b->seq, __ATOMIC_RELAXED);
  __atomic_store_n(&b->seq, seq + 1, __ATOMIC_RELAXED);
  __atomic_thread_fence(__ATOMIC_RELEASE);
  __atomic_store_n(&b->gen, own_gen, __ATOMIC_RELAXED);
  __atomic_store_n(&b->deadline_ns, deadline, __ATOMIC_RELAXED);
  __atomic_store_n(&b->limit_bits, limit_bits, __ATOMIC_RELAXED);
  __atomic_store_n(&b->name[0], words[0], __ATOMIC_RELAXED);
  __atomic_store_n(&b->name[1], words[1], __ATOMIC_RELAXED);
  __atomic_store_n(&b->seq, seq + 2, __ATOMIC_RELEASE);
  /* Against tqh__worker_look_by's store and reload: either the parent sees this phase there,
   * or this load sees the parent's newer look_by_ns. */
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  uint64_t look_by = __atomic_load_n(&b->look_by_ns, __ATOMIC_RELAXED);
  if (deadline && deadline < look_by) return tqh__msg_send_phase(fd, name, limit_s);
  return NULL;
}

/* In a worker: takes command `seq` to run it (1), or finds it taken back by the parent (0). */
static int claim(uint64_t seq) {
  tqh__phase_board_t *b = own_board;
  if (!b) {
    own_gen = seq;
    return 1;
  }
  /* Each change is a compare-and-swap against the parent's (tqh__worker_take_back): when one
   * fails, the other side moved first, and the claim is looked at again. */
  for (;;) {
    uint64_t c = __atomic_load_n(&b->claim, __ATOMIC_ACQUIRE);
    if (c & TQH__CLAIM_TAKEN_BACK) {
      uint64_t last = c & ~TQH__CLAIM_TAKEN_BACK;
      if (seq < last) return 0;
      /* The last command taken back (or one after it): the commands are ours again. */
      if (!__atomic_compare_exchange_n(&b->claim, &c, own_gen, 0, __ATOMIC_ACQ_REL,
                                       __ATOMIC_ACQUIRE))
        continue;
      if (seq == last) return 0;
      continue;
    }
    if (__atomic_compare_exchange_n(&b->claim, &c, seq, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
      break;
  }
  own_gen = seq;
  __atomic_store_n(&b->begun_ns[seq % 4], tqh_now_ns(), __ATOMIC_RELAXED);
  __atomic_store_n(&b->begun_gen, seq, __ATOMIC_RELEASE);
  return 1;
}

int tqh__worker_take_back(tqh__worker_t *w, size_t *out_kept) {
  *out_kept = w->num_next;
  if (!w->board || !w->num_next) return 0;
  for (int tries = 0; tries < 8; tries++) {
    uint64_t c = __atomic_load_n(&w->board->claim, __ATOMIC_ACQUIRE);
    /* The commands up to `done` are the worker's (it took them) or taken back already. With an
     * earlier taking back that it has not come to, it has taken nothing after that range, so the
     * range can grow. */
    uint64_t done = c & ~TQH__CLAIM_TAKEN_BACK;
    /* The test the parent counts as running must be the worker's: it is never taken back. */
    if (w->gen > done) return 0;
    size_t kept = 0;
    while (kept < w->num_next && w->next[kept].seq <= done) kept++;
    if (kept == w->num_next) return 0;
    uint64_t last = w->next[w->num_next - 1].seq | TQH__CLAIM_TAKEN_BACK;
    if (__atomic_compare_exchange_n(&w->board->claim, &c, last, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE)) {
      *out_kept = kept;
      return 1;
    }
  }
  return 0;
}

int tqh__worker_taking_back(const tqh__worker_t *w) {
  return w->board &&
         (__atomic_load_n(&w->board->claim, __ATOMIC_ACQUIRE) & TQH__CLAIM_TAKEN_BACK) != 0;
}

void tqh__worker_sync_phase(tqh__worker_t *w) {
  tqh__phase_board_t *b = w->board;
  if (!b || !w->busy) return;
  /* A worker killed while writing leaves `seq` odd: the parent keeps what it had. */
  for (int tries = 0; tries < 100; tries++) {
    uint64_t seq = __atomic_load_n(&b->seq, __ATOMIC_ACQUIRE);
    if (seq & 1) continue;
    uint64_t gen = __atomic_load_n(&b->gen, __ATOMIC_RELAXED);
    uint64_t deadline = __atomic_load_n(&b->deadline_ns, __ATOMIC_RELAXED);
    uint64_t limit_bits = __atomic_load_n(&b->limit_bits, __ATOMIC_RELAXED);
    uint64_t words[2] = {__atomic_load_n(&b->name[0], __ATOMIC_RELAXED),
                         __atomic_load_n(&b->name[1], __ATOMIC_RELAXED)};
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (__atomic_load_n(&b->seq, __ATOMIC_RELAXED) != seq) continue;
    if (gen != w->gen) return; /* the phase of an earlier test: this one is at its start */
    w->deadline_ns = deadline;
    memcpy(&w->phase_s, &limit_bits, sizeof(w->phase_s));
    memcpy(w->phase, words, sizeof(w->phase) - 1);
    w->phase[sizeof(w->phase) - 1] = 0;
    return;
  }
}

uint64_t tqh__worker_begun_ns(const tqh__worker_t *w, uint64_t seq) {
  if (!w->board) return 0;
  /* The slot of command `seq` is not written again before the worker takes command seq + 4,
   * which the parent has not sent (it sends at most TQH__AHEAD ahead of the one it runs). */
  _Static_assert(TQH__AHEAD + 1 < 4, "begun_ns holds the tests a worker may have been sent");
  uint64_t begun = __atomic_load_n(&w->board->begun_gen, __ATOMIC_ACQUIRE);
  if (begun < seq || begun - seq >= 4) return 0;
  return __atomic_load_n(&w->board->begun_ns[seq % 4], __ATOMIC_RELAXED);
}

void tqh__worker_look_by(tqh__worker_t *w, uint64_t ns) {
  if (!w->board || !w->busy) return;
  __atomic_store_n(&w->board->look_by_ns, ns, __ATOMIC_RELAXED);
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  tqh__worker_sync_phase(w);
}

/* ---- Workers -------------------------------------------------------------------------------- */

/* Reads one command (a test index) from the parent; 0 at end of file (the parent retires us).
 * While none comes, calls the idle hook every hooks->idle_s. */
static int read_command(int fd, uint64_t out_cmd[2], const tqh__worker_hooks_t *hooks, void *ctx,
                        int res_fd) {
  if (hooks && hooks->idle && hooks->idle_s > 0) {
    int ms = (int)(hooks->idle_s * 1000);
    if (ms < 1) ms = 1;
    for (;;) {
      struct pollfd pfd = {fd, POLLIN, 0};
      int rc = poll(&pfd, 1, ms);
      if (rc > 0) break;
      if (rc < 0 && errno != EINTR) break;
      if (rc == 0) hooks->idle(ctx, res_fd);
    }
  }
  char *p = (char *)out_cmd;
  size_t got = 0;
  while (got < 2 * sizeof(uint64_t)) {
    ssize_t n = read(fd, p + got, 2 * sizeof(uint64_t) - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return 0;
    got += (size_t)n;
  }
  return 1;
}

tq_status_t tqh__worker_spawn(tqh__worker_t *w, const int *close_fds, size_t num_close_fds,
                              tqh__worker_main_fn main_fn, void *ctx) {
  return tqh__worker_spawn_hooks(w, close_fds, num_close_fds, main_fn, ctx, NULL);
}

tq_status_t tqh__worker_spawn_hooks(tqh__worker_t *w, const int *close_fds, size_t num_close_fds,
                                    tqh__worker_main_fn main_fn, void *ctx,
                                    const tqh__worker_hooks_t *hooks) {
  int res[2], cmd[2];
  if (pipe2(res, O_CLOEXEC) != 0)
    return TQ_STATUS(TQ_UNAVAILABLE, "cannot make a pipe for a worker: %s", strerror(errno));
  if (pipe2(cmd, O_CLOEXEC) != 0) {
    int err = errno;
    close(res[0]);
    close(res[1]);
    return TQ_STATUS(TQ_UNAVAILABLE, "cannot make a pipe for a worker: %s", strerror(err));
  }
  /* Without a board (no shared memory to be had) the phases come as messages, as they did. */
  tqh__phase_board_t *board =
      mmap(NULL, sizeof(*board), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (board == MAP_FAILED) {
    board = NULL;
  } else {
    memset(board, 0, sizeof(*board));
    board->look_by_ns = UINT64_MAX;
  }
  pid_t parent = getpid();
  /* Buffered output would be written twice (by the parent and the child). */
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    int err = errno;
    close(res[0]);
    close(res[1]);
    close(cmd[0]);
    close(cmd[1]);
    if (board) munmap(board, sizeof(*board));
    return TQ_STATUS(TQ_UNAVAILABLE, "cannot fork a worker: %s", strerror(err));
  }
  if (pid == 0) {
    own_board = board;
    own_gen = 0;
    close(res[0]);
    close(cmd[1]);
    /* The other workers' pipes: holding their command ends would keep them from ever seeing
     * end of file when the parent retires them. */
    for (size_t i = 0; i < num_close_fds; i++)
      if (close_fds[i] >= 0) close(close_fds[i]);
    /* A worker outlives nothing: when the runner dies (even by SIGKILL) its workers die too, so
     * that they never write into a results folder that is no longer being run. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(125);
    /* A process group of its own: Ctrl-C on the terminal reaches the runner alone, which stops
     * its workers itself (and records their tests as not run); no terminal input either. */
    setpgid(0, 0);
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (devnull >= 0) {
      dup2(devnull, STDIN_FILENO);
      close(devnull);
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = SIG_DFL;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sigaction(SIGPIPE, &sa, NULL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    uint64_t command[2]; /* the test, the command's number */
    while (read_command(cmd[0], command, hooks, ctx, res[1])) {
      if (!claim(command[1])) continue;
      main_fn(ctx, (size_t)command[0], res[1]);
    }
    if (hooks && hooks->exit) hooks->exit(ctx, res[1]);
    _exit(0);
  }
  close(res[1]);
  close(cmd[0]);
  int flags = fcntl(res[0], F_GETFL);
  if (flags >= 0) fcntl(res[0], F_SETFL, flags | O_NONBLOCK);
  memset(w, 0, sizeof(*w));
  w->pid = pid;
  w->fd = res[0];
  w->cmd_fd = cmd[1];
  w->board = board;
  tq_buf_init(&w->in, 0);
  tqh_test_result_init(&w->result);
  return NULL;
}

void tqh__worker_begin(tqh__worker_t *w, size_t test, uint64_t seq, uint64_t start_ns,
                       double timeout_s) {
  w->test = test;
  w->gen = seq;
  w->busy = 1;
  w->started_ns = start_ns;
  w->deadline_ns = timeout_s > 0 ? w->started_ns + (uint64_t)(timeout_s * 1e9) : 0;
  w->timed_out = 0;
  w->cancelled = 0;
  w->have_result = 0;
  snprintf(w->phase, sizeof(w->phase), "start");
  w->phase_s = timeout_s;
  tqh_test_result_deinit(&w->result);
  tqh_test_result_init(&w->result);
}

tq_status_t tqh__worker_assign(tqh__worker_t *w, size_t test, double timeout_s) {
  uint64_t seq;
  TQ_TRY(tqh__worker_send(w, test, &seq));
  tqh__worker_begin(w, test, seq, tqh_now_ns(), timeout_s);
  return NULL;
}

tq_status_t tqh__worker_send(tqh__worker_t *w, size_t test, uint64_t *out_seq) {
  uint64_t cmd[2] = {test, w->sent + 1};
  /* Sixteen bytes into a pipe that holds at most a few more commands (TQH__AHEAD, and those
   * taken back): never blocks, never split. */
  ssize_t n;
  do {
    n = write(w->cmd_fd, &cmd, sizeof(cmd));
  } while (n < 0 && errno == EINTR);
  if (n != (ssize_t)sizeof(cmd))
    return TQ_STATUS(TQ_UNAVAILABLE, "cannot hand a test to worker %ld: %s", (long)w->pid,
                     n < 0 ? strerror(errno) : "short write");
  *out_seq = ++w->sent;
  return NULL;
}

void tqh__worker_retire(tqh__worker_t *w) {
  if (w->cmd_fd >= 0) close(w->cmd_fd);
  w->cmd_fd = -1;
  w->retiring = 1;
}

tq_status_t tqh__worker_read(tqh__worker_t *w) {
  if (w->fd < 0) return NULL;
  /* Drop what was consumed before growing the buffer. */
  if (w->in_pos && w->in_pos == w->in.len) {
    tq_buf_clear(&w->in);
    w->in_pos = 0;
  }
  for (;;) {
    TQ_TRY(tq_buf_reserve(&w->in, 65536));
    size_t room = w->in.cap - w->in.len - 1;
    ssize_t n = read(w->fd, w->in.data + w->in.len, room);
    if (n > 0) {
      w->in.len += (size_t)n;
      w->in.data[w->in.len] = 0;
      /* Less than asked for: the pipe is empty now. What comes later wakes the next poll; a
       * read to see EAGAIN would be one more system call per message. */
      if ((size_t)n < room) return NULL;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return NULL;
    close(w->fd); /* end of file, or an error: either way nothing more comes */
    w->fd = -1;
    return NULL;
  }
}

tq_status_t tqh__worker_next_msg(tqh__worker_t *w, uint32_t *out_type, const char **out_data,
                                 size_t *out_len, int *out_got) {
  *out_got = 0;
  size_t avail = w->in.len - w->in_pos;
  uint32_t head[2];
  if (avail < sizeof(head)) return NULL;
  memcpy(head, w->in.data + w->in_pos, sizeof(head));
  if (head[1] > TQH__MSG_MAX)
    return TQ_STATUS(TQ_INVALID_INPUT, "a worker sent a message of %u bytes", head[1]);
  if (avail - sizeof(head) < head[1]) return NULL;
  *out_type = head[0];
  *out_data = w->in.data + w->in_pos + sizeof(head);
  *out_len = head[1];
  w->in_pos += sizeof(head) + head[1];
  *out_got = 1;
  return NULL;
}

void tqh__worker_kill(tqh__worker_t *w) {
  if (w->pid > 0) kill(w->pid, SIGKILL);
}

int tqh__worker_reap(tqh__worker_t *w) {
  int status = 0;
  if (w->cmd_fd >= 0) close(w->cmd_fd);
  w->cmd_fd = -1;
  if (w->pid > 0) {
    while (waitpid(w->pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  if (w->fd >= 0) close(w->fd);
  w->fd = -1;
  w->pid = 0;
  tq_buf_deinit(&w->in);
  w->in_pos = 0;
  if (w->board) munmap(w->board, sizeof(*w->board));
  w->board = NULL;
  w->gen = 0;
  w->sent = 0;
  return status;
}
