/* The uploader of a running run (upload.h): a child process forked before the test workers,
 * woken through a pipe whenever the runner queues an item. It sends the backlog, and when a pass
 * leaves items behind (the server is down or failing) it tries again after a pause that grows to
 * a minute; a dashboard batch that waits to be full is sent when it is due. The runner writes
 * 'f' (or closes the pipe, or dies) when the run is over: the uploader then has grace_s for what
 * is left, gives up at once on a server that refuses connections, after stall_s on one that takes
 * them but does not answer (a request in flight watches the pipe for the end of the run), and
 * exits. The runner never waits on the network: its writes to the pipe do not block (a full pipe
 * is fine, the uploader reads the queue file, not the bytes). */
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "torq/base/alloc.h"
#include "torq/harness/process.h"
#include "transfer_internal.h"

#define PAUSE_MIN_S 1.0
#define PAUSE_MAX_S 60.0
/* How long the runner waits for the uploader beyond its grace before killing it. */
#define KILL_MARGIN_S 5.0

struct tqh_uploader_s {
  pid_t pid;
  int fd; /* write end of the wake-up pipe; -1 once closed */
  char *run_dir;
  char *url, *token, *shard;
  tqh_upload_options_t options; /* its strings point into this struct */
  tqh_journal_t queue;          /* RUN_DIR/upload/queue, open for appending */
  int queue_open;
  unsigned long next_seq;
};

/* ---- In the child ------------------------------------------------------------------------------ */

typedef struct child_s {
  int fd; /* read end */
  int eof;
  int wake_on_item; /* a new item ends this wait too (a batch waiting to be full) */
  const tqh_upload_options_t *options;
} child_t;

static void start_finishing(tqh__upload_ctl_t *ctl, const child_t *c) {
  if (ctl->finishing) return;
  ctl->finishing = 1;
  ctl->finishing_ns = tqh_now_ns();
  ctl->deadline_ns = ctl->finishing_ns + (uint64_t)(c->options->grace_s * 1e9);
}

/* Reads what the runner wrote, without waiting: 1 when the run is over. */
static int take_wakeups(tqh__upload_ctl_t *ctl, child_t *c) {
  char buf[512];
  ssize_t got;
  do got = read(c->fd, buf, sizeof(buf));
  while (got < 0 && errno == EINTR);
  if (got < 0 && errno == EAGAIN) return 0; /* nothing there (the read end is non-blocking) */
  int over = got <= 0 || memchr(buf, 'f', (size_t)got) != NULL;
  if (got <= 0) c->eof = 1;
  if (over) start_finishing(ctl, c);
  return over;
}

/* During a request (tqh__upload_ctl_t.poll): has the run ended meanwhile? */
static void child_poll(tqh__upload_ctl_t *ctl) {
  child_t *c = ctl->ctx;
  if (!c->eof) take_wakeups(ctl, c);
}

/* Waits `seconds` (< 0: until the runner writes) and reads what the runner wrote. The end of
 * the run cuts any wait short; a new item only ends an unbounded one, or the wait of a batch to
 * be full (a backoff or a pause after failures is kept whatever the runner queues meanwhile). */
static void child_wait(tqh__upload_ctl_t *ctl, double seconds) {
  child_t *c = ctl->ctx;
  uint64_t end = tqh_now_ns() + (uint64_t)(seconds > 0 ? seconds * 1e9 : 0);
  if (seconds >= 0 && ctl->deadline_ns && end > ctl->deadline_ns) end = ctl->deadline_ns;
  for (;;) {
    uint64_t now = tqh_now_ns();
    int timeout_ms = seconds < 0 ? -1 : now >= end ? 0 : (int)((end - now) / 1000000) + 1;
    if (timeout_ms == 0 || (c->eof && timeout_ms < 0)) return;
    struct pollfd pfd = {c->eof ? -1 : c->fd, POLLIN, 0}; /* -1: poll only sleeps */
    int n = poll(&pfd, 1, timeout_ms);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return;
    if (n == 0) continue;
    int was = ctl->finishing;
    if (take_wakeups(ctl, c) && !was) return;
    if (seconds < 0 || c->wake_on_item) return;
  }
}

static void child_main(const char *run_dir, const tqh_upload_options_t *options, int fd) {
  /* Ctrl-C reaches the whole process group: the runner decides when the uploader stops. */
  signal(SIGINT, SIG_IGN);
  signal(SIGHUP, SIG_IGN);
  signal(SIGPIPE, SIG_IGN);
  signal(SIGTERM, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) _exit(1);
  child_t c = {fd, 0, 0, options};
  tqh__upload_ctl_t ctl;
  memset(&ctl, 0, sizeof(ctl));
  ctl.wait = child_wait;
  ctl.poll = child_poll;
  ctl.ctx = &c;
  ctl.hold_batches = 1;
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  ctl.box = tqh__upload_outbox_new(); /* NULL: every pass reads the outbox afresh */
  double pause = PAUSE_MIN_S;
  int rejected = 0;
  for (;;) {
    int finishing = ctl.finishing;
    tqh_upload_report_t report;
    memset(&report, 0, sizeof(report));
    if (!rejected) {
      tq_status_t st = tqh__upload_pass(run_dir, options, &ctl, &report);
      if (st) {
        report.remaining = 1;
        report.held = 0;
        tq_status_free(st);
      }
      rejected = report.rejected;
      /* A batch held back to fill is no failure: its pass sent what was due. */
      int failed = report.remaining > report.held;
      pause = failed ? pause * 2 : PAUSE_MIN_S;
      if (pause > PAUSE_MAX_S) pause = PAUSE_MAX_S;
    }
    /* The run was over before this pass, or the server stopped answering after it ended. */
    if (finishing || ctl.stalled) break;
    if (ctl.finishing) continue; /* the runner finished during the pass: one more */
    double wait = -1; /* until the runner writes */
    if (report.remaining > report.held && !rejected) wait = pause;
    else if (report.held) wait = ctl.hold_s;
    c.wake_on_item = report.held && report.remaining == report.held;
    child_wait(&ctl, wait);
    c.wake_on_item = 0;
  }
  curl_global_cleanup();
  _exit(0);
}

/* ---- In the runner -------------------------------------------------------------------------- */

static char *dup_or_null(const char *s, int *ok) {
  if (!s) return NULL;
  char *d = tq_strndup(s, strlen(s));
  if (!d) *ok = 0;
  return d;
}

tq_status_t tqh_uploader_create(const char *run_dir, const tqh_upload_options_t *options,
                                tqh_uploader_t **out_uploader) {
  *out_uploader = NULL;
  TQ_TRY(tqh_upload_check_url(options->url));
  tqh_uploader_t *u = tq_calloc(1, sizeof(*u));
  if (!u) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  u->fd = -1;
  int ok = 1;
  u->run_dir = dup_or_null(run_dir, &ok);
  u->url = dup_or_null(options->url, &ok);
  u->token = dup_or_null(options->token, &ok);
  u->shard = dup_or_null(options->shard, &ok);
  u->options = *options;
  u->options.url = u->url;
  u->options.token = u->token;
  u->options.shard = u->shard;
  u->next_seq = 1;
  tq_status_t st = ok ? NULL : TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  if (!st) st = tqh_upload_outbox_create(run_dir, &u->options);
  if (!st) u->queue_open = !(st = tqh__upload_queue_open(run_dir, &u->queue));
  int p[2] = {-1, -1};
  if (!st && pipe(p) != 0) st = TQ_STATUS(TQ_IO, "cannot make a pipe: %s", strerror(errno));
  if (!st) {
    fflush(NULL);
    u->pid = fork();
    if (u->pid < 0) st = TQ_STATUS(TQ_IO, "cannot start the uploader: %s", strerror(errno));
  }
  if (!st && u->pid == 0) {
    close(p[1]);
    child_main(u->run_dir, &u->options, p[0]);
  }
  if (p[0] >= 0) close(p[0]);
  if (!st) {
    u->fd = p[1];
    fcntl(u->fd, F_SETFL, fcntl(u->fd, F_GETFL) | O_NONBLOCK);
    fcntl(u->fd, F_SETFD, FD_CLOEXEC);
  } else if (p[1] >= 0) {
    close(p[1]);
  }
  if (st) {
    tqh_uploader_destroy(u);
    return st;
  }
  *out_uploader = u;
  return NULL;
}

int tqh_uploader_fd(const tqh_uploader_t *u) { return u ? u->fd : -1; }

static void wake(tqh_uploader_t *u, char c) {
  if (u->fd < 0) return;
  ssize_t n;
  do n = write(u->fd, &c, 1);
  while (n < 0 && errno == EINTR);
  /* EAGAIN: the pipe is full of wake-ups already; EPIPE: the uploader is gone (its items stay in
   * the backlog). */
}

tq_status_t tqh_uploader_test_finished(tqh_uploader_t *u, const char *test_id) {
  if (!u) return NULL;
  TQ_TRY(tqh__upload_enqueue(&u->queue, u->next_seq, "test", test_id));
  u->next_seq++;
  wake(u, 'n');
  return NULL;
}

/* Waits for the uploader to exit, up to `seconds`, then kills it. */
static void stop_child(tqh_uploader_t *u, double seconds) {
  if (u->pid <= 0) return;
  uint64_t end = tqh_now_ns() + (uint64_t)(seconds * 1e9);
  for (;;) {
    int status;
    pid_t r = waitpid(u->pid, &status, WNOHANG);
    if (r == u->pid || (r < 0 && errno != EINTR)) break;
    if (tqh_now_ns() >= end) {
      kill(u->pid, SIGKILL);
      while (waitpid(u->pid, &status, 0) < 0 && errno == EINTR) {
      }
      break;
    }
    struct timespec ts = {0, 20000000};
    nanosleep(&ts, NULL);
  }
  u->pid = 0;
}

tq_status_t tqh_uploader_finish(tqh_uploader_t *u, tqh_upload_report_t *out_report) {
  memset(out_report, 0, sizeof(*out_report));
  tq_status_t st = tqh__upload_enqueue(&u->queue, u->next_seq, "complete", "-");
  if (!st) u->next_seq++;
  wake(u, 'f');
  if (u->fd >= 0) close(u->fd);
  u->fd = -1;
  stop_child(u, u->options.grace_s + KILL_MARGIN_S);
  tq_status_t cst = tqh__upload_status(u->run_dir, out_report);
  if (!st) st = cst;
  else tq_status_free(cst);
  return st;
}

void tqh_uploader_destroy(tqh_uploader_t *u) {
  if (!u) return;
  if (u->fd >= 0) close(u->fd);
  if (u->pid > 0) {
    kill(u->pid, SIGTERM);
    stop_child(u, KILL_MARGIN_S);
  }
  if (u->queue_open) tqh_journal_close(&u->queue);
  if (u->token) memset(u->token, 0, strlen(u->token));
  tq_free(u->run_dir);
  tq_free(u->url);
  tq_free(u->token);
  tq_free(u->shard);
  tq_free(u);
}
