/* A local program as a subprocess (subprocess.h): fork and execvp with the child in its own
 * process group, pipes for stdout and stderr, a pidfd to see it end, the group killed at the
 * timeout and once it has ended. */
#include "torq/harness/subprocess.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "torq/harness/process.h"

void tqh_subprocess_options_initialize(tqh_subprocess_options_t *o) {
  memset(o, 0, sizeof(*o));
  o->output_limit = (size_t)4 << 20;
}

void tqh_subprocess_result_init(tqh_subprocess_result_t *r) {
  memset(r, 0, sizeof(*r));
  tq_buf_init(&r->out, 0);
  tq_buf_init(&r->err, 0);
}

void tqh_subprocess_result_deinit(tqh_subprocess_result_t *r) {
  tq_buf_deinit(&r->out);
  tq_buf_deinit(&r->err);
}

/* In the child: never returns. */
static void child(const char *const *argv, int out_fd, int err_fd, int status_fd, pid_t parent) {
  setpgid(0, 0);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(127);
  sigset_t all;
  sigemptyset(&all);
  sigprocmask(SIG_SETMASK, &all, NULL);
  for (int s = 1; s < 32; s++)
    if (s != SIGKILL && s != SIGSTOP) signal(s, SIG_DFL);
  int in = open("/dev/null", O_RDONLY);
  if (in < 0 || dup2(in, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(err_fd, 2) < 0) {
    int e = errno;
    ssize_t w = write(status_fd, &e, sizeof(e));
    (void)w;
    _exit(127);
  }
  execvp(argv[0], (char *const *)argv);
  int e = errno;
  ssize_t w = write(status_fd, &e, sizeof(e));
  (void)w;
  _exit(127);
}

/* Appends what `fd` has to `b` (up to `limit`): 1 after data, 2 when nothing is there yet, 0 at
 * end of file. */
static int drain(int fd, tq_buf_t *b, size_t limit, int *truncated) {
  char chunk[16384];
  ssize_t n = read(fd, chunk, sizeof(chunk));
  if (n < 0) return errno == EINTR || errno == EAGAIN ? 2 : 0;
  if (n == 0) return 0;
  size_t keep = (size_t)n;
  if (b->len + keep > limit) {
    keep = b->len < limit ? limit - b->len : 0;
    *truncated = 1;
  }
  if (keep) tq_status_free(tq_buf_append(b, chunk, keep));
  return 1;
}

tq_status_t tqh_subprocess_run(const char *const *argv, const tqh_subprocess_options_t *options,
                               tqh_subprocess_result_t *r) {
  tqh_subprocess_options_t defaults;
  if (!options) {
    tqh_subprocess_options_initialize(&defaults);
    options = &defaults;
  }
  tq_buf_clear(&r->out);
  tq_buf_clear(&r->err);
  r->start_errno = r->exit_status = r->signal = r->timed_out = 0;
  r->out_truncated = r->err_truncated = 0;
  r->seconds = 0;
  int out_p[2] = {-1, -1}, err_p[2] = {-1, -1}, st_p[2] = {-1, -1};
  if (pipe2(out_p, O_CLOEXEC) || pipe2(err_p, O_CLOEXEC) || pipe2(st_p, O_CLOEXEC)) {
    int e = errno;
    for (int i = 0; i < 2; i++) {
      if (out_p[i] >= 0) close(out_p[i]);
      if (err_p[i] >= 0) close(err_p[i]);
      if (st_p[i] >= 0) close(st_p[i]);
    }
    return TQ_STATUS(TQ_IO, "cannot make a pipe for %s: %s", argv[0], strerror(e));
  }
  pid_t parent = getpid();
  uint64_t t0 = tqh_now_ns();
  pid_t pid = fork();
  if (pid == 0) child(argv, out_p[1], err_p[1], st_p[1], parent);
  int fork_errno = errno;
  close(out_p[1]);
  close(err_p[1]);
  close(st_p[1]);
  if (pid < 0) {
    close(out_p[0]);
    close(err_p[0]);
    close(st_p[0]);
    return TQ_STATUS(TQ_IO, "cannot start %s: fork: %s", argv[0], strerror(fork_errno));
  }
  setpgid(pid, pid); /* also here: no window in which a kill of the group misses it */
  int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
  uint64_t deadline =
      options->timeout_s > 0 ? t0 + (uint64_t)(options->timeout_s * 1e9) : UINT64_MAX;
  int out_open = 1, err_open = 1, status = 0, reaped = 0;
  while (!reaped) {
    struct pollfd fds[3];
    nfds_t n = 0;
    int io = -1, ie = -1, ip = -1;
    if (out_open) fds[io = (int)n++] = (struct pollfd){out_p[0], POLLIN, 0};
    if (err_open) fds[ie = (int)n++] = (struct pollfd){err_p[0], POLLIN, 0};
    if (pidfd >= 0) fds[ip = (int)n++] = (struct pollfd){pidfd, POLLIN, 0};
    uint64_t now = tqh_now_ns();
    if (now >= deadline) {
      kill(-pid, SIGKILL);
      r->timed_out = 1;
      waitpid(pid, &status, 0);
      reaped = 1;
      break;
    }
    uint64_t left_ms = deadline == UINT64_MAX ? 1000 : (deadline - now) / 1000000 + 1;
    /* Without a pidfd, look for the end every 10 ms once the pipes are closed. */
    int wait_ms = left_ms > 1000 ? 1000 : (int)left_ms;
    if (pidfd < 0 && !out_open && !err_open) wait_ms = wait_ms > 10 ? 10 : wait_ms;
    int k = n ? poll(fds, n, wait_ms) : (usleep((useconds_t)wait_ms * 1000), 0);
    if (k < 0 && errno != EINTR) break;
    if (io >= 0 && fds[io].revents)
      out_open = drain(out_p[0], &r->out, options->output_limit, &r->out_truncated);
    if (ie >= 0 && fds[ie].revents)
      err_open = drain(err_p[0], &r->err, options->output_limit, &r->err_truncated);
    if ((ip >= 0 && fds[ip].revents) || (pidfd < 0 && !out_open && !err_open)) {
      pid_t w = waitpid(pid, &status, pidfd >= 0 ? 0 : WNOHANG);
      if (w == pid) reaped = 1;
    }
  }
  if (!reaped) waitpid(pid, &status, 0);
  r->seconds = (double)(tqh_now_ns() - t0) / 1e9;
  /* What it started and left behind goes with it. */
  kill(-pid, SIGKILL);
  /* What is left in the pipes (non-blocking: a grandchild may still hold them). */
  fcntl(out_p[0], F_SETFL, O_NONBLOCK);
  fcntl(err_p[0], F_SETFL, O_NONBLOCK);
  while (out_open && drain(out_p[0], &r->out, options->output_limit, &r->out_truncated) == 1) {
  }
  while (err_open && drain(err_p[0], &r->err, options->output_limit, &r->err_truncated) == 1) {
  }
  int e = 0;
  if (read(st_p[0], &e, sizeof(e)) == (ssize_t)sizeof(e)) r->start_errno = e;
  close(out_p[0]);
  close(err_p[0]);
  close(st_p[0]);
  if (pidfd >= 0) close(pidfd);
  if (!r->timed_out) {
    if (WIFSIGNALED(status)) r->signal = WTERMSIG(status);
    if (WIFEXITED(status)) r->exit_status = WEXITSTATUS(status);
  }
  return NULL;
}

void tqh_subprocess_last_lines(const char *text, size_t len, size_t lines, char *out, size_t size) {
  if (!size) return;
  out[0] = 0;
  if (!text) return;
  size_t end = len, found = 0, start = len;
  while (end > 0 && found < lines) {
    while (end > 0 && (text[end - 1] == '\n' || text[end - 1] == '\r')) end--;
    if (!end) break;
    size_t b = end;
    while (b > 0 && text[b - 1] != '\n') b--;
    start = b;
    found++;
    end = b;
  }
  if (!found) return;
  size_t stop = len;
  while (stop > start && (text[stop - 1] == '\n' || text[stop - 1] == '\r')) stop--;
  size_t n = stop - start;
  if (n >= size) {
    start = stop - (size - 1);
    n = size - 1;
  }
  memcpy(out, text + start, n);
  out[n] = 0;
}
