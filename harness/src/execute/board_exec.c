/* One test on a board, inside its worker (execute_internal.h): the worker's board connection
 * (made on its first test, kept for the run), the lease and the runtime, the board's content
 * cache, the timed remote invocations and the downloads.
 *
 * Remote layout of a test: <board_root>/<username>/work/<run-id>/<test id, '/' made '+'>/ holds
 * output_N.npy and profile.csv; the request that runs the runtime (tqh_board_run, through the
 * board's resident agent) also removes the previous test's folder, so cleaning costs no extra
 * round trip.
 *
 * Log lines go to the execution's log (-v) or notes (always shown) and, with a UTC timestamp, to
 * board-<name>.log in the run folder, so that a run's board events (connections, runtime sync,
 * lease acquired/renewed/released) can be read after it.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "execute_internal.h"
#include "torq/base/alloc.h"
#include "torq/harness/files.h"
#include "torq/harness/process.h"
#include "torq/harness/stats.h"
#include "torq/runtime/npy.h"
#include "torq/runtime/tensor.h"

struct tqh_board_worker_s {
  tqh_executor_t *ctx;
  tqh_board_options_t options;
  tqh_board_conn_t *conn;
  int ready; /* lease and runtime checked on this connection */
  const tqh_execute_io_t *io; /* of the current test (or the idle or exit work), or NULL */
  int file_fd;     /* board-<name>.log, or -1 (not opened yet: -2 after a failure) */
  char *prev_work; /* the previous test's remote work folder, removed by the next command */
  char *run_work;  /* <user_dir>/work/<run-id> */
  char *runtime;   /* the local runtime synced to the board (an external toolchain's), or NULL */
};

/* The runtime's stdout and stderr kept per invocation. */
#define OUTPUT_LIMIT ((size_t)4 << 20)
/* Seconds a phase may take beyond its own limit before the parent kills the worker: the
 * transport kills a remote command at its timeout itself, over a second channel. */
#define SLACK_S 30.0
/* Largest output file read back. */
#define MAX_OUTPUT_BYTES ((size_t)1 << 30)

/* ---- Messages to the execution and the board log -------------------------------------------- */

static void send_phase(tqh_board_worker_t *bw, const char *name, double limit_s) {
  if (bw->io && bw->io->phase) bw->io->phase(bw->io->ctx, name, limit_s);
}

static void open_log_file(tqh_board_worker_t *bw) {
  if (bw->file_fd != -1 || !bw->ctx->run_dir) return;
  bw->file_fd = -2;
  tq_buf_t name, path;
  tq_buf_init(&name, 0);
  tq_buf_init(&path, 0);
  tq_status_t st = tqh_results_make_safe_id(bw->ctx->board->name, &name);
  if (!st) st = tq_buf_printf(&path, "%s/board-%s.log", bw->ctx->run_dir, name.data);
  if (!st) {
    int fd = open(path.data, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd >= 0) bw->file_fd = fd;
  }
  tq_status_free(st);
  tq_buf_deinit(&name);
  tq_buf_deinit(&path);
}

/* tqh_board_log_fn. */
static void sink(void *vctx, int level, const char *line) {
  tqh_board_worker_t *bw = vctx;
  open_log_file(bw);
  if (bw->file_fd >= 0) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    char stamp[64];
    size_t n = strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(stamp + n, sizeof(stamp) - n, ".%03ldZ", ts.tv_nsec / 1000000);
    char buf[1200];
    int len = snprintf(buf, sizeof(buf), "%s [%ld] %s\n", stamp, (long)getpid(), line);
    if (len > 0) {
      if ((size_t)len >= sizeof(buf)) len = (int)sizeof(buf) - 1;
      ssize_t w = write(bw->file_fd, buf, (size_t)len);
      (void)w; /* the log is a convenience; the test's result does not depend on it */
    }
  }
  void (*to)(void *, const char *, size_t) = !bw->io ? NULL : level ? bw->io->note : bw->io->log;
  if (to) to(bw->io->ctx, line, strlen(line));
}

static void logf_(tqh_board_worker_t *bw, int level, const char *fmt, ...) TQ_PRINTF(3, 4);
static void logf_(tqh_board_worker_t *bw, int level, const char *fmt, ...) {
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof(line), fmt, ap);
  va_end(ap);
  sink(bw, level, line);
}

/* ---- The worker's board ---------------------------------------------------------------------- */

tqh_board_worker_t *tqh__board_worker(tqh_executor_t *ctx) {
  if (ctx->board_worker) return ctx->board_worker;
  tqh_board_worker_t *bw = tq_calloc(1, sizeof(*bw));
  if (!bw) return NULL;
  bw->ctx = ctx;
  bw->options = *ctx->board_options;
  bw->options.log = sink;
  bw->options.log_ctx = bw;
  bw->file_fd = -1;
  ctx->board_worker = bw;
  return bw;
}

static double setup_limit(const tqh_board_worker_t *bw) {
  const tqh_board_spec_t *b = bw->ctx->board;
  double connect = (b->ssh.connect_timeout_ms ? b->ssh.connect_timeout_ms : 10000) / 1e3;
  /* Connect, wait for the lease, copy the runtime (a few MB at the I/O timeout's pace). */
  return connect * 2 + bw->options.lease_wait_s + 300 + SLACK_S;
}

/* The worker's connection, and the run's work folder on the board. */
static tq_status_t connect_board(tqh_board_worker_t *bw) {
  TQ_TRY(tqh_board_connect(bw->ctx->board, &bw->options, &bw->conn));
  bw->run_work = tq_strdup_printf("%s/work/%s", tqh_board_user_dir(bw->conn),
                                  bw->ctx->run_id ? bw->ctx->run_id : "run");
  return bw->run_work ? NULL : TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
}

/* Connected, leased, with a runtime: what every test needs first. */
static tq_status_t ensure_ready(tqh_board_worker_t *bw) {
  if (!bw->conn) {
    send_phase(bw, "connect", setup_limit(bw));
    TQ_TRY(connect_board(bw));
  } else if (!tqh_board_is_connected(bw->conn)) {
    send_phase(bw, "connect", setup_limit(bw));
    TQ_TRY(tqh_board_reconnect(bw->conn));
    bw->ready = 0;
  }
  /* Held from the first test on; acquired again when it was lost while the worker was idle. */
  if (!tqh_board_lease_held(bw->conn)) send_phase(bw, "lease", setup_limit(bw));
  TQ_TRY(tqh_board_lease_acquire(bw->conn));
  if (bw->ready) return NULL;
  if (bw->options.update_runtime)
    TQ_TRY(tqh_board_sync_runtime(bw->conn, NULL));
  else
    TQ_TRY(tqh_board_check_runtime(bw->conn));
  bw->ready = 1;
  return NULL;
}

/* After an infrastructure fault of `type`: reconnect when the connection is gone, or tell the
 * parent that this board can take no more tests. */
static void recover(tqh_board_worker_t *bw, const char *type, tqh_test_result_t *r) {
  if (!tqh_board_fault_is_transient(type) || !bw->conn) {
    r->board_down = 1;
    return;
  }
  if (tqh_board_is_connected(bw->conn)) return;
  const tqh_board_spec_t *b = bw->ctx->board;
  double connect = (b->ssh.connect_timeout_ms ? b->ssh.connect_timeout_ms : 10000) / 1e3;
  send_phase(bw, "reconnect", connect * 8 + SLACK_S);
  tq_status_t st = tqh_board_reconnect(bw->conn);
  bw->ready = 0;
  if (st) {
    char *text = tq_status_format(st, 0);
    logf_(bw, 1, "%s: cannot reconnect: %s", b->name, text ? text : tq_status_message(st));
    free(text);
    tq_status_free(st);
    r->board_down = 1;
  }
}

/* Records an infrastructure fault (ERROR of its fault type) and recovers. Returns 0. */
static int fault(tqh_board_worker_t *bw, tqh_test_result_t *r, tq_status_t st) {
  const char *type = tqh_board_fault_type(st);
  r->infrastructure = 1;
  tqh_test_result_fail_status(r, TQH_OUTCOME_ERROR, type, st);
  recover(bw, type, r);
  return 0;
}

/* ---- Helpers ----------------------------------------------------------------------------------
 */

/* The work folder's name: the test id with '/' made '+', as long as it is short enough for one
 * path component; else the file-system-safe id. */
static char *work_name(const tqh_test_t *t) {
  size_t n = strlen(t->id);
  if (n > 200 || strchr(t->id, '\n')) return tq_strdup_printf("%s", t->fs_id);
  char *s = tq_strdup_printf("%s", t->id);
  for (char *c = s; c && *c; c++)
    if (*c == '/') *c = '+';
  return s;
}

/* The µs of "torq-run-module: device_wall_time_us=N" in the runtime's stderr, or -1. */
static double device_wall_us(const char *err) {
  static const char key[] = "device_wall_time_us=";
  const char *p = err ? strstr(err, key) : NULL;
  if (!p) return -1;
  const char *last = p;
  while ((p = strstr(p + 1, key))) last = p;
  char *end = NULL;
  unsigned long long v = strtoull(last + sizeof(key) - 1, &end, 10);
  if (end == last + sizeof(key) - 1) return -1;
  return (double)v;
}

/* The runtime's own output goes into the test's stdout.txt and stderr.txt. */
static void keep_output(tqh_board_worker_t *bw, const tqh_exec_result_t *res, uint32_t run,
                        uint32_t runs) {
  static const char out_cut[] = "\n[... stdout truncated ...]\n";
  static const char err_cut[] = "\n[... stderr truncated ...]\n";
  if (runs > 1) {
    char head[64];
    int n = snprintf(head, sizeof(head), "== torq-run-module, run %u of %u ==\n", run + 1, runs);
    tqh__exec_output(bw->io, 1, head, (size_t)n);
    tqh__exec_output(bw->io, 2, head, (size_t)n);
  }
  tqh__exec_output(bw->io, 1, res->out.data, res->out.len);
  if (res->out_truncated) tqh__exec_output(bw->io, 1, out_cut, sizeof(out_cut) - 1);
  tqh__exec_output(bw->io, 2, res->err.data, res->err.len);
  if (res->err_truncated) tqh__exec_output(bw->io, 2, err_cut, sizeof(err_cut) - 1);
}

/* Judges a finished remote invocation: 1 when it succeeded; else `r` is failed. */
static int judge(tqh_board_worker_t *bw, const tqh_exec_result_t *res, tqh_test_result_t *r,
                 const char *when) {
  const char *name = bw->ctx->board->name;
  char line[512];
  tqh_board_last_line(res->err.data, line, sizeof(line));
  if (tqh_board_text_says_disk_full(res->err.data))
    return fault(
        bw, r,
        TQ_STATUS(TQ_UNAVAILABLE, "board %s: no space left on the board%s: %s", name, when, line));
  if (res->exit_status == 0 && !res->signal) return 1;
  if (res->exit_status >= 125 && res->exit_status <= 127)
    return fault(bw, r,
                 TQ_STATUS(TQ_FAILED_PRECONDITION,
                           "board %s could not start the runtime %s (exit status %d)%s: %s", name,
                           tqh_board_runtime(bw->conn), res->exit_status, when, line));
  int sig = res->signal ? res->signal : (res->exit_status > 128 ? res->exit_status - 128 : 0);
  if (sig) {
    char buf[32];
    tqh_test_result_fail(r, TQH_OUTCOME_FAILED, "runtime_error",
                         "torq-run-module was killed by %s on board %s%s%s%s",
                         tqh_signal_name(sig, buf), name, when, line[0] ? ": " : "", line);
  } else {
    tqh_test_result_fail(r, TQH_OUTCOME_FAILED, "runtime_error",
                         "torq-run-module failed on board %s with exit status %d%s%s%s", name,
                         res->exit_status, when, line[0] ? ": " : "", line);
  }
  return 0;
}

/* ---- The test ---------------------------------------------------------------------------------
 */

typedef struct job_s {
  tqh_board_worker_t *bw;
  const tqh__board_test_t *bt;
  tqh_test_result_t *r;
  char *model_remote;
  char **input_remote;
  char *work;
  const char **argv;
  size_t argc;
  char **owned; /* the argv strings made here */
  size_t num_owned;
} job_t;

static tq_status_t own(job_t *j, char *s) {
  if (!s) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  j->owned[j->num_owned++] = s;
  j->argv[j->argc++] = s;
  return NULL;
}

/* Keeps the lease through the upload of `path`: a few seconds, plus a pessimistic 1 MB/s. */
static tq_status_t keep_for_upload(tqh_board_conn_t *conn, const char *path) {
  struct stat sb;
  double bytes = stat(path, &sb) == 0 ? (double)sb.st_size : 0;
  return tqh_board_lease_keep(conn, 5 + bytes / 1e6);
}

/* An input as a .npy file in the test's folder: renamed into place, without fsync, like the
 * other files of the results (an fsync per file costs more than a small test's run). */
static tq_status_t write_input(const char *path, const tqr_tensor_t *tensor) {
  tq_buf_t buf;
  tq_buf_init(&buf, 0);
  tq_status_t st = tqr_npy_encode(tensor, &buf);
  if (!st) st = tqh_write_quick_atomic(path, buf.data ? buf.data : "", buf.len);
  tq_buf_deinit(&buf);
  return st;
}

/* Inputs as .npy files in the test's folder, then model and inputs in the board's cache.
 * Returns 1, or 0 with `r` failed. */
static int stage(job_t *j) {
  const tqh__board_test_t *bt = j->bt;
  tqh_board_conn_t *conn = j->bw->conn;
  tqh_test_result_t *r = j->r;
  j->input_remote = tq_calloc(bt->num_inputs + 1, sizeof(char *));
  tq_status_t st = j->input_remote ? NULL : TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  for (size_t i = 0; !st && i < bt->num_inputs; i++) {
    char name[32];
    snprintf(name, sizeof(name), "input_%zu.npy", i);
    char *local = tq_strdup_printf("%s/%s", bt->dir, name);
    st = local ? write_input(local, bt->inputs[i]) : TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
    if (!st) st = tqh_test_result_add_file(r, name);
    tq_free(local);
  }
  if (st) {
    /* Ours, on this side: not the board's fault. */
    r->infrastructure = 1;
    tqh_test_result_fail_status(r, TQH_OUTCOME_ERROR, "infrastructure", st);
    return 0;
  }
  st = keep_for_upload(conn, bt->model_path);
  if (!st)
    st = tqh_board_put_cached(conn, bt->model_path, ".vmfb", "model", &j->model_remote, NULL);
  for (size_t i = 0; !st && i < bt->num_inputs; i++) {
    char *local = tq_strdup_printf("%s/input_%zu.npy", bt->dir, i);
    char what[32];
    snprintf(what, sizeof(what), "input %zu", i);
    st = local ? keep_for_upload(conn, local) : TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
    if (!st) st = tqh_board_put_cached(conn, local, ".npy", what, &j->input_remote[i], NULL);
    tq_free(local);
  }
  if (st) return fault(j->bw, r, st);
  return 1;
}

/* The command line: the runtime and its options (tqh_board_run runs it in the work folder). */
static tq_status_t build_argv(job_t *j) {
  const tqh__board_test_t *bt = j->bt;
  size_t max = 16 + bt->num_inputs + bt->num_outputs;
  j->argv = tq_calloc(max, sizeof(char *));
  j->owned = tq_calloc(max, sizeof(char *));
  if (!j->argv || !j->owned) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  j->argv[j->argc++] = tqh_board_runtime(j->bw->conn);
  TQ_TRY(own(j, tq_strdup_printf("--module=%s", j->model_remote)));
  for (size_t i = 0; i < bt->num_inputs; i++)
    TQ_TRY(own(j, tq_strdup_printf("--input=@%s", j->input_remote[i])));
  for (size_t o = 0; o < bt->num_outputs; o++)
    TQ_TRY(own(j, tq_strdup_printf("--output=@%s/output_%zu.npy", j->work, o)));
  if (bt->profile) TQ_TRY(own(j, tq_strdup_printf("--torq_profile_host=%s/profile.csv", j->work)));
  if (bt->function) TQ_TRY(own(j, tq_strdup_printf("--function=%s", bt->function)));
  j->argv[j->argc] = NULL;
  return NULL;
}

/* Warm-up and timed invocations. Returns 1 when all succeeded. */
static int invoke_all(job_t *j) {
  tqh_board_worker_t *bw = j->bw;
  const tqh__board_test_t *bt = j->bt;
  tqh_test_result_t *r = j->r;
  uint32_t runs = bt->warmup + bt->repeat;
  double *device = tq_calloc(bt->repeat + 1, sizeof(double));
  r->samples = tq_calloc(bt->repeat + 1, sizeof(double));
  if (!device || !r->samples) {
    tq_free(device);
    r->infrastructure = 1;
    tqh_test_result_fail(r, TQH_OUTCOME_ERROR, "infrastructure", "out of memory");
    return 0;
  }
  size_t num_device = 0;
  int ok = 1;
  tqh_exec_options_t eo;
  tqh_exec_options_initialize(&eo);
  eo.timeout_ms = (uint32_t)(bt->run_timeout_s * 1000 > 4e9 ? 4e9 : bt->run_timeout_s * 1000);
  eo.output_limit = OUTPUT_LIMIT;
  tqh_exec_result_t res;
  tqh_exec_result_init(&res);
  for (uint32_t i = 0; i < runs && ok; i++) {
    int timed = i >= bt->warmup;
    char when[64] = "";
    if (!timed)
      snprintf(when, sizeof(when), " in warm-up run %u", i + 1);
    else if (bt->repeat > 1)
      snprintf(when, sizeof(when), " in run %u of %u", i - bt->warmup + 1, bt->repeat);
    tq_status_t st = tqh_board_lease_keep(bw->conn, bt->run_timeout_s);
    if (st) {
      ok = fault(bw, r, st);
      break;
    }
    const char *prev = i == 0 ? bw->prev_work : NULL;
    send_phase(bw, "run", bt->run_timeout_s + SLACK_S);
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    st = tqh_board_run(bw->conn, prev, j->work, j->argv, &eo, &res);
    clock_gettime(CLOCK_MONOTONIC, &b);
    double wall = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
    r->run_s += wall;
    if (i == 0 && !st) {
      tq_free(bw->prev_work);
      bw->prev_work = NULL;
    }
    keep_output(bw, &res, i, runs);
    if (st) {
      if (tq_status_code(st) == TQ_DEADLINE_EXCEEDED) {
        /* The transport names the command; say which, and where. */
        tq_status_t t = TQ_STATUS(TQ_DEADLINE_EXCEEDED,
                                  "board %s: torq-run-module ran past the run timeout of %gs%s "
                                  "and was killed",
                                  bw->ctx->board->name, bt->run_timeout_s, when);
        tq_status_free(st);
        st = t;
      }
      ok = fault(bw, r, st);
      break;
    }
    double us = device_wall_us(res.err.data);
    ok = judge(bw, &res, r, when);
    if (!ok) break;
    if (!timed) continue;
    r->samples[r->num_samples++] = wall;
    r->has_wall_time = 1;
    if (us >= 0) device[num_device++] = us / 1e6;
    char dev[64] = "";
    if (us >= 0) snprintf(dev, sizeof(dev), " (device %.6fs)", us / 1e6);
    if (bt->repeat > 1)
      logf_(bw, 0, "Wall time: %.3fs%s (run %u of %u)", wall, dev, i - bt->warmup + 1, bt->repeat);
    else
      logf_(bw, 0, "Wall time: %.3fs%s", wall, dev);
  }
  tqh_exec_result_deinit(&res);
  if (num_device) {
    r->device_samples = device;
    r->num_device_samples = num_device;
  } else {
    tq_free(device);
  }
  return ok;
}

/* profile.csv and the outputs, into the test's folder; the outputs also as tensors. */
static int fetch(job_t *j, tqr_tensor_t **outputs) {
  tqh_board_worker_t *bw = j->bw;
  const tqh__board_test_t *bt = j->bt;
  tqh_test_result_t *r = j->r;
  tqh_ssh_session_t *ssh = tqh_board_session(bw->conn);
  send_phase(bw, "fetch", 300);
  size_t n = bt->num_outputs + (bt->profile ? 1 : 0);
  for (size_t k = 0; k < n; k++) {
    char name[32];
    if (k < bt->num_outputs)
      snprintf(name, sizeof(name), "output_%zu.npy", k);
    else
      snprintf(name, sizeof(name), "profile.csv");
    char *remote = tq_strdup_printf("%s/%s", j->work, name);
    char *local = tq_strdup_printf("%s/%s", bt->dir, name);
    tq_status_t st = remote && local ? tqh_ssh_download(ssh, remote, local)
                                     : TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
    tq_free(remote);
    if (st && tq_status_code(st) == TQ_NOT_FOUND) {
      tq_status_free(st);
      tq_free(local);
      tqh_test_result_fail(r, TQH_OUTCOME_FAILED, "runtime_error",
                           "torq-run-module succeeded on board %s but wrote no %s",
                           bw->ctx->board->name, name);
      return 0;
    }
    if (!st) st = tqh_test_result_add_file(r, name);
    if (!st && k < bt->num_outputs) {
      st = tqr_npy_read(local, MAX_OUTPUT_BYTES, &outputs[k]);
      if (st) {
        tq_free(local);
        tqh_test_result_fail_status(r, TQH_OUTCOME_FAILED, "runtime_error",
                                    tq_status_annotate(st, "an output the runtime wrote"));
        return 0;
      }
    }
    tq_free(local);
    if (st) return fault(bw, r, tq_status_annotate(st, "while downloading %s", name));
  }
  return 1;
}

/* The local runtime this test wants on the board: an external toolchain's, else the options'.
 * A change makes the next ensure_ready check (or copy) it again. */
static tq_status_t want_runtime(tqh_board_worker_t *bw, const char *path) {
  const char *want = path ? path : bw->ctx->board_options->runtime_path;
  const char *now = bw->runtime ? bw->runtime : bw->ctx->board_options->runtime_path;
  if (want == now || (want && now && !strcmp(want, now))) return NULL;
  tq_free(bw->runtime);
  bw->runtime = path ? tq_strdup_printf("%s", path) : NULL;
  if (path && !bw->runtime) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  bw->options.runtime_path = bw->runtime ? bw->runtime : bw->ctx->board_options->runtime_path;
  if (bw->conn) tqh_board_set_runtime_path(bw->conn, bw->options.runtime_path);
  bw->ready = 0;
  return NULL;
}

int tqh__board_run_test(tqh_board_worker_t *bw, const tqh__board_test_t *bt,
                        const tqh_execute_io_t *io, tqh_test_result_t *r,
                        tqr_tensor_t **out_outputs) {
  bw->io = io;
  tq_status_t rst = want_runtime(bw, bt->runtime_path);
  if (rst) {
    r->infrastructure = 1;
    tqh_test_result_fail_status(r, TQH_OUTCOME_ERROR, "infrastructure", rst);
    return 0;
  }
  tq_free(r->board);
  r->board = tq_strdup_printf("%s", bw->ctx->board->name);
  tq_status_t st = ensure_ready(bw);
  if (st) return fault(bw, r, st);

  job_t j;
  memset(&j, 0, sizeof(j));
  j.bw = bw;
  j.bt = bt;
  j.r = r;
  int ok = 0;
  send_phase(bw, "upload", 600);
  if (stage(&j)) {
    char *name = work_name(bt->test);
    j.work = name ? tq_strdup_printf("%s/%s", bw->run_work, name) : NULL;
    tq_free(name);
    st = j.work ? build_argv(&j) : TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
    if (st) {
      r->infrastructure = 1;
      tqh_test_result_fail_status(r, TQH_OUTCOME_ERROR, "infrastructure", st);
    } else if (invoke_all(&j)) {
      ok = fetch(&j, out_outputs);
    }
  }
  /* The folder goes with the next command (or when the worker ends). */
  if (j.work) {
    tq_free(bw->prev_work);
    bw->prev_work = j.work;
    j.work = NULL;
  }
  tq_free(j.model_remote);
  for (size_t i = 0; j.input_remote && i < bt->num_inputs; i++) tq_free(j.input_remote[i]);
  tq_free(j.input_remote);
  for (size_t i = 0; i < j.num_owned; i++) tq_free(j.owned[i]);
  tq_free(j.owned);
  tq_free(j.argv);
  return ok;
}

/* ---- Idle and exit ------------------------------------------------------------------------------
 */

void tqh__board_worker_idle(tqh_board_worker_t *bw, const tqh_execute_io_t *io) {
  if (!bw || !bw->conn || !tqh_board_is_connected(bw->conn)) return;
  bw->io = io;
  tq_status_t st = tqh_board_lease_touch(bw->conn);
  if (!st) st = tqh_ssh_keepalive(tqh_board_session(bw->conn));
  if (st) {
    char *text = tq_status_format(st, 0);
    logf_(bw, 1, "%s: while idle: %s", bw->ctx->board->name, text ? text : "");
    free(text);
    tq_status_free(st);
    bw->ready = 0;
  }
}

/* Removes the run's work folder ($1; with $3 = kill, first kills what still runs in it: the
 * runtime of a test whose worker was killed), then the work folder ($2) if it is empty now. A
 * process is ours when its working folder is in the run's (the run script starts the runtime
 * there); the board's /proc says so, and other users' processes cannot be read, let alone
 * killed. */
static const char k_clean_script[] =
    "r=$1 w=$2\n"
    "if [ -d \"$r\" ]; then\n"
    "  if [ \"$3\" = kill ] && rr=$(cd -- \"$r\" && pwd -P); then\n"
    "    for p in /proc/[0-9]*; do\n"
    "      c=$(readlink \"$p/cwd\" 2>/dev/null) || continue\n"
    "      case $c in \"$rr\"|\"$rr\"/*) kill -s KILL \"${p#/proc/}\" 2>/dev/null;; esac\n"
    "    done\n"
    "  fi\n"
    "  rm -rf -- \"$r\" || exit 1\n"
    "fi\n"
    "rmdir -- \"$w\" 2>/dev/null\n"
    "exit 0\n";

/* Cleans the run's work folder (see k_clean_script) and gives the lease back, on a live
 * connection. With `cleanup`, the lease is given back whether or not this process took it. */
static void clean_and_release(tqh_board_worker_t *bw, int cleanup) {
  const char *name = bw->ctx->board->name;
  char *work_dir = tq_strdup_printf("%s/work", tqh_board_user_dir(bw->conn));
  if (bw->run_work && work_dir) {
    const char *argv[] = {"sh",     "-c",          k_clean_script, "torq-clean", bw->run_work,
                          work_dir, cleanup ? "kill" : "", NULL};
    tqh_exec_options_t eo;
    tqh_exec_options_initialize(&eo);
    eo.timeout_ms = 60000;
    tqh_exec_result_t res;
    tqh_exec_result_init(&res);
    tq_status_t st = tqh_ssh_exec(tqh_board_session(bw->conn), argv, &eo, &res);
    if (st || res.exit_status != 0 || res.signal) {
      char *text = st ? tq_status_format(st, 0) : NULL;
      char line[512];
      tqh_board_last_line(res.err.data, line, sizeof(line));
      logf_(bw, 1, "%s: cannot remove the work folder %s: %s", name, bw->run_work,
            text ? text : line[0] ? line : "the command failed");
      free(text);
      tq_status_free(st);
    } else if (cleanup) {
      logf_(bw, 1, "%s: work folder %s removed", name, bw->run_work);
    }
    tqh_exec_result_deinit(&res);
  }
  tq_free(work_dir);
  tq_status_t st =
      cleanup ? tqh_board_lease_give_back(bw->conn) : tqh_board_lease_release(bw->conn);
  if (st) {
    char *text = tq_status_format(st, 0);
    logf_(bw, 1, "%s: cannot release the lease: %s", name, text ? text : "");
    free(text);
    tq_status_free(st);
  }
}

static void worker_free(tqh_board_worker_t *bw) {
  tqh_board_disconnect(bw->conn);
  bw->conn = NULL;
  if (bw->file_fd >= 0) close(bw->file_fd);
  tq_free(bw->prev_work);
  tq_free(bw->run_work);
  tq_free(bw->runtime);
  bw->ctx->board_worker = NULL;
  tq_free(bw);
}

void tqh__board_worker_exit(tqh_board_worker_t *bw, const tqh_execute_io_t *io) {
  if (!bw) return;
  bw->io = io;
  if (bw->conn && tqh_board_is_connected(bw->conn)) clean_and_release(bw, 0);
  worker_free(bw);
}

void tqh__board_worker_cleanup(tqh_executor_t *exec, const tqh_execute_io_t *io) {
  tqh_board_worker_t *bw = tqh__board_worker(exec);
  if (!bw) return;
  bw->io = io;
  tq_status_t st = bw->conn ? NULL : connect_board(bw);
  if (st) {
    char *text = tq_status_format(st, 0);
    logf_(bw, 1, "%s: cannot clean up after the interrupted run: %s", exec->board->name,
          text ? text : tq_status_message(st));
    free(text);
    tq_status_free(st);
  } else {
    clean_and_release(bw, 1);
  }
  worker_free(bw);
}
