/* Remote commands over exec channels (ssh.h): a command line made only of quoted arguments, stdin,
 * captured stdout and stderr, exit status or signal, and a timeout that kills the command on the
 * board.
 *
 * The command runs through a wrapper, itself a constant script with the arguments after it:
 *     exec sh -c 'WRAPPER' torq-exec [CWD] ARGV...
 * which first prints one line "torq-exec-pid PID PPID PGID" on stdout (taken out of the output
 * here), then execs ARGV. On timeout a second channel sends SIGKILL to the process group (when it
 * is the one sshd made for this channel: led by the wrapper or by the login shell that started it)
 * and to the PID.
 *
 * The session is switched to non-blocking mode for the command, so that one loop can read both
 * streams, write stdin and watch the deadline.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board_internal.h"
#include "torq/base/alloc.h"
#include "torq/harness/process.h"
#include "torq/harness/shell_quote.h"

#define MARKER "torq-exec-pid "
#define MARKER_SEARCH_LIMIT 65536 /* login-profile noise we look through for the marker */
#define KILL_TIMEOUT_MS 10000
#define DRAIN_AFTER_KILL_MS 3000

/* Fields 4 and 5 of /proc/PID/stat are the parent PID and the process group ("(sh)" has no
 * space). Where there is no /proc the line carries the PID only. */
#define WRAPPER_HEAD                                              \
  "p=; g=; { read -r _ _ _ p g _ </proc/$$/stat; } 2>/dev/null; " \
  "echo \"" MARKER "$$ $p $g\"; "
static const char k_wrapper[] = WRAPPER_HEAD "exec \"$@\"";
static const char k_wrapper_cwd[] = WRAPPER_HEAD "cd -- \"$1\" || exit 1; shift; exec \"$@\"";

/* kill_remote's script: $1 the process group (or empty), $2 the PID. `kill -s KILL -- -PGID` is
 * the POSIX form (dash takes no `--` after `-KILL`); the second form is for a kill without `--`. */
static const char k_kill_script[] =
    "if [ -n \"$1\" ]; then kill -s KILL -- -\"$1\" 2>/dev/null || "
    "kill -KILL -\"$1\" 2>/dev/null; fi; kill -s KILL \"$2\" 2>/dev/null; exit 0";

tq_status_t tqh_ssh_command_line(const char *const argv[], const tqh_exec_options_t *options,
                                 tq_buf_t *out) {
  if (!argv || !argv[0]) return TQ_STATUS(TQ_INVALID_ARGUMENT, "an empty remote command (argv)");
  const char *cwd = options && options->cwd ? options->cwd : NULL;
  /* `exec`: the login shell becomes the wrapper, and then the command, so that sshd reports the
   * command's own exit status or signal and its PID leads the channel's process group. */
  const char *head[] = {"sh", "-c", cwd ? k_wrapper_cwd : k_wrapper, "torq-exec", cwd, NULL};
  TQ_TRY(tq_buf_append_cstr(out, "exec "));
  TQ_TRY(tqh_shell_quote_argv(head, out));
  TQ_TRY(tq_buf_putc(out, ' '));
  return tqh_shell_quote_argv(argv, out);
}

static int signal_number(const char *name) {
  static const struct {
    const char *name;
    int number;
  } table[] = {{"HUP", SIGHUP},   {"INT", SIGINT},   {"QUIT", SIGQUIT}, {"ILL", SIGILL},
               {"TRAP", SIGTRAP}, {"ABRT", SIGABRT}, {"BUS", SIGBUS},   {"FPE", SIGFPE},
               {"KILL", SIGKILL}, {"USR1", SIGUSR1}, {"SEGV", SIGSEGV}, {"USR2", SIGUSR2},
               {"PIPE", SIGPIPE}, {"ALRM", SIGALRM}, {"TERM", SIGTERM}, {"XCPU", SIGXCPU},
               {"XFSZ", SIGXFSZ}, {"SYS", SIGSYS}};
  for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
    if (strcmp(table[i].name, name) == 0) return table[i].number;
  }
  return -1; /* a signal the server named but we do not know */
}

/* The state of one running command. */
typedef struct run_s {
  tqh_ssh_session_t *s;
  LIBSSH2_CHANNEL *ch;
  tqh_exec_result_t *out;
  size_t limit;
  tq_buf_t pre;    /* stdout until the marker line was seen */
  int marker_done; /* the marker line was found (or given up on) */
  long pid, ppid, pgid;
} run_t;

static tq_status_t keep(tq_buf_t *buf, int *truncated, size_t limit, const char *data, size_t n) {
  if (buf->len >= limit) {
    *truncated |= n > 0;
    return NULL;
  }
  size_t room = limit - buf->len;
  if (n > room) {
    *truncated = 1;
    n = room;
  }
  return tq_buf_append(buf, data, n);
}

/* Stdout bytes: look for the marker line first, then keep. */
static tq_status_t take_stdout(run_t *r, const char *data, size_t n) {
  if (r->marker_done) return keep(&r->out->out, &r->out->out_truncated, r->limit, data, n);
  TQ_TRY(tq_buf_append(&r->pre, data, n));
  const char *text = r->pre.data;
  const char *hit = NULL;
  if (r->pre.len >= sizeof(MARKER) - 1 && memcmp(text, MARKER, sizeof(MARKER) - 1) == 0) {
    hit = text;
  } else {
    hit = strstr(text, "\n" MARKER);
    if (hit) hit++;
  }
  const char *eol = hit ? memchr(hit, '\n', r->pre.len - (size_t)(hit - text)) : NULL;
  if (hit && eol) {
    long v[3] = {0, 0, 0};
    int k = 0;
    const char *p = hit + sizeof(MARKER) - 1;
    while (k < 3 && p < eol) {
      char *end = NULL;
      v[k] = strtol(p, &end, 10);
      if (end == p) break;
      k++;
      p = end;
      while (p < eol && *p == ' ') p++;
    }
    r->pid = v[0];
    r->ppid = v[1];
    r->pgid = v[2];
    r->out->remote_pid = (int)r->pid;
    r->marker_done = 1;
    /* Whatever the login profile printed before the marker is not the command's output. */
    size_t rest = r->pre.len - (size_t)(eol + 1 - text);
    return keep(&r->out->out, &r->out->out_truncated, r->limit, eol + 1, rest);
  }
  if (r->pre.len > MARKER_SEARCH_LIMIT) {
    /* No wrapper line: the remote shell is not a POSIX one. Keep it all as output. */
    r->marker_done = 1;
    return keep(&r->out->out, &r->out->out_truncated, r->limit, r->pre.data, r->pre.len);
  }
  return NULL;
}

/* Reads what is there on both streams; *out_eof = 1 when the channel reached its end. */
static tq_status_t pump(run_t *r, int *out_progress, int *out_eof) {
  char buf[32768];
  int zero = 0;
  *out_progress = 0;
  for (int stream = 0; stream < 2; stream++) {
    for (;;) {
      ssize_t n = libssh2_channel_read_ex(r->ch, stream, buf, sizeof(buf));
      if (n == LIBSSH2_ERROR_EAGAIN) break;
      if (n < 0) return tqh__ssh_error(r->s, (int)n, "reading the command's output");
      if (n == 0) {
        zero++;
        break;
      }
      *out_progress = 1;
      if (stream == 0)
        TQ_TRY(take_stdout(r, buf, (size_t)n));
      else
        TQ_TRY(keep(&r->out->err, &r->out->err_truncated, r->limit, buf, (size_t)n));
    }
  }
  *out_eof = zero == 2 && libssh2_channel_eof(r->ch);
  return NULL;
}

/* Repeats a libssh2 call while it returns EAGAIN, waiting on the socket, until the deadline. */
#define RETRY_UNTIL(rc, call, deadline, timed_out)       \
  do {                                                   \
    (timed_out) = 0;                                     \
    while (((rc) = (call)) == LIBSSH2_ERROR_EAGAIN) {    \
      if (tqh_now_ns() >= (deadline)) {                  \
        (timed_out) = 1;                                 \
        break;                                           \
      }                                                  \
      tq_status_t w__ = tqh__ssh_wait(r->s, (deadline)); \
      if (w__) return w__;                               \
    }                                                    \
  } while (0)

static tq_status_t open_and_start(run_t *r, const char *cmd, size_t cmd_len, uint64_t deadline) {
  uint64_t open_deadline = tqh__ssh_deadline(r->s->options.io_timeout_ms);
  if (deadline < open_deadline) open_deadline = deadline;
  while (!(r->ch = libssh2_channel_open_session(r->s->ssh))) {
    int e = libssh2_session_last_errno(r->s->ssh);
    if (e != LIBSSH2_ERROR_EAGAIN) return tqh__ssh_error(r->s, e, "opening a channel");
    if (tqh_now_ns() >= open_deadline) {
      r->s->connected = 0;
      return TQ_STATUS(TQ_UNAVAILABLE, "%s did not open a channel in time", r->s->target);
    }
    TQ_TRY(tqh__ssh_wait(r->s, open_deadline));
  }
  int rc, late;
  RETRY_UNTIL(rc, libssh2_channel_process_startup(r->ch, "exec", 4, cmd, (unsigned)cmd_len),
              open_deadline, late);
  if (late) {
    r->s->connected = 0;
    return TQ_STATUS(TQ_UNAVAILABLE, "%s did not start the command in time", r->s->target);
  }
  if (rc) return tqh__ssh_error(r->s, rc, "starting a remote command");
  return NULL;
}

/* Frees the channel, waiting a little for libssh2 to send the close; on a connection that does
 * not take it, the session's free does it later. */
static void channel_release(run_t *r) {
  if (!r->ch) return;
  uint64_t deadline = tqh__ssh_deadline(2000);
  int rc;
  while ((rc = libssh2_channel_free(r->ch)) == LIBSSH2_ERROR_EAGAIN && tqh_now_ns() < deadline) {
    tq_status_t w = tqh__ssh_wait(r->s, deadline);
    if (w) {
      tq_status_free(w);
      break;
    }
  }
  if (rc == LIBSSH2_ERROR_EAGAIN) r->s->connected = 0;
  r->ch = NULL;
}

static void read_exit(run_t *r) {
  int status = libssh2_channel_get_exit_status(r->ch);
  char *name = NULL;
  size_t name_len = 0;
  libssh2_channel_get_exit_signal(r->ch, &name, &name_len, NULL, NULL, NULL, NULL);
  if (name && name_len) {
    r->out->signal = signal_number(name);
    r->out->exit_status = -1;
  } else {
    r->out->exit_status = status;
  }
  if (name) libssh2_free(r->s->ssh, name);
}

/* Kills the timed-out command on the board over a second channel. */
static tq_status_t kill_remote(run_t *r) {
  if (r->pid <= 1) return NULL;
  char pid[32], group[32] = "";
  snprintf(pid, sizeof(pid), "%ld", r->pid);
  /* Only the group sshd made for this channel: led by the wrapper (the login shell exec'd it)
   * or by its parent. Any other group could be the server's own. */
  if (r->pgid > 1 && (r->pgid == r->pid || r->pgid == r->ppid)) {
    snprintf(group, sizeof(group), "%ld", r->pgid);
  }
  const char *const argv[] = {"sh", "-c", k_kill_script, "sh", group, pid, NULL};
  tqh_exec_result_t res;
  tqh_exec_result_init(&res);
  tq_status_t st = tqh__ssh_exec_simple(r->s, argv, KILL_TIMEOUT_MS, &res);
  tqh_exec_result_deinit(&res);
  return st;
}

static tq_status_t run_command(tqh_ssh_session_t *s, const char *const argv[],
                               const tqh_exec_options_t *options, uint32_t timeout_ms, int may_kill,
                               tqh_exec_result_t *out) {
  tq_buf_deinit(&out->out);
  tq_buf_deinit(&out->err);
  tqh_exec_result_init(out);
  out->exit_status = -1;
  TQ_TRY(tqh__ssh_ready(s));
  tq_buf_t cmd;
  tq_buf_init(&cmd, 0);
  tq_status_t st = tqh_ssh_command_line(argv, options, &cmd);
  if (st) {
    tq_buf_deinit(&cmd);
    return st;
  }
  run_t run = {
      .s = s, .out = out, .limit = options->output_limit ? options->output_limit : (size_t)1 << 20};
  run_t *r = &run;
  tq_buf_init(&r->pre, 0);
  uint64_t start = tqh_now_ns();
  uint64_t deadline = tqh__ssh_deadline(timeout_ms);
  const char *in = options->stdin_data;
  size_t in_len = in ? options->stdin_len : 0, in_pos = 0;
  int eof_sent = 0, eof = 0, timed_out = 0;

  st = open_and_start(r, cmd.data, cmd.len, deadline);
  tq_buf_deinit(&cmd);
  while (!st && !eof) {
    int progress = 0;
    if (!eof_sent && in_pos < in_len) {
      ssize_t n = libssh2_channel_write(r->ch, in + in_pos, in_len - in_pos);
      if (n > 0) {
        in_pos += (size_t)n;
        progress = 1;
      } else if (n != LIBSSH2_ERROR_EAGAIN && n < 0) {
        /* On a live connection the command stopped reading (it exited or closed stdin): the
         * rest of the input is not wanted. */
        tq_status_t wst = tqh__ssh_error(s, (int)n, "writing the command's input");
        if (!s->connected) {
          st = wst;
          break;
        }
        tq_status_free(wst);
        in_pos = in_len;
        eof_sent = 1;
      }
    }
    if (!eof_sent && in_pos >= in_len) {
      int rc = libssh2_channel_send_eof(r->ch);
      if (rc != LIBSSH2_ERROR_EAGAIN) {
        eof_sent = 1;
        if (rc < 0) {
          tq_status_t est = tqh__ssh_error(s, rc, "closing the command's input");
          if (!s->connected) {
            st = est;
            break;
          }
          tq_status_free(est);
        }
      }
    }
    int more = 0;
    st = pump(r, &more, &eof);
    if (st || eof) break;
    progress |= more;
    if (tqh_now_ns() >= deadline) {
      timed_out = 1;
      break;
    }
    if (!progress) st = tqh__ssh_wait(s, deadline);
  }
  if (!st && eof) {
    int rc, late;
    RETRY_UNTIL(rc, libssh2_channel_close(r->ch), deadline, late);
    if (!late && rc == 0) RETRY_UNTIL(rc, libssh2_channel_wait_closed(r->ch), deadline, late);
    if (late)
      timed_out = 1;
    else if (rc)
      st = tqh__ssh_error(s, rc, "closing the command's channel");
    else
      read_exit(r);
  }
  if (!st && timed_out) {
    out->timed_out = 1;
    tq_status_t kst = may_kill ? kill_remote(r) : NULL;
    /* Collect what it wrote until it died, and how it died. */
    uint64_t grace = tqh__ssh_deadline(DRAIN_AFTER_KILL_MS);
    int done = 0;
    while (!kst && !done && tqh_now_ns() < grace) {
      int more = 0;
      kst = pump(r, &more, &done);
      if (!kst && !done && !more) kst = tqh__ssh_wait(s, grace);
    }
    if (!kst && done) {
      int rc, late;
      RETRY_UNTIL(rc, libssh2_channel_close(r->ch), grace, late);
      if (!late && rc == 0) RETRY_UNTIL(rc, libssh2_channel_wait_closed(r->ch), grace, late);
      if (!late && rc == 0) read_exit(r);
    }
    out->exit_status = -1;
    if (kst && tq_status_code(kst) == TQ_UNAVAILABLE) {
      st = kst;
    } else {
      tq_status_free(kst);
      st = TQ_STATUS(TQ_DEADLINE_EXCEEDED, "the command '%s' on %s timed out after %u ms%s",
                     argv[0], s->target, timeout_ms,
                     !may_kill    ? ""
                     : r->pid > 1 ? " and was killed"
                                  : " (its PID is unknown: it may still run)");
    }
  }
  if (!r->marker_done && r->pre.len) {
    tq_status_t kst = keep(&out->out, &out->out_truncated, r->limit, r->pre.data, r->pre.len);
    if (!st)
      st = kst;
    else
      tq_status_free(kst);
  }
  tq_buf_deinit(&r->pre);
  channel_release(r);
  out->duration_ns = tqh_now_ns() - start;
  return st;
}

tq_status_t tqh__ssh_exec_simple(tqh_ssh_session_t *s, const char *const argv[],
                                 uint32_t timeout_ms, tqh_exec_result_t *out) {
  tqh_exec_options_t options;
  tqh_exec_options_initialize(&options);
  int was_blocking = s->ssh ? libssh2_session_get_blocking(s->ssh) : 0;
  if (s->ssh) libssh2_session_set_blocking(s->ssh, 0);
  tq_status_t st = run_command(s, argv, &options, timeout_ms, 0, out);
  if (s->ssh && was_blocking) libssh2_session_set_blocking(s->ssh, 1);
  return st;
}

tq_status_t tqh_ssh_exec(tqh_ssh_session_t *session, const char *const argv[],
                         const tqh_exec_options_t *options, tqh_exec_result_t *out) {
  tqh_exec_options_t defaults;
  if (!options) {
    tqh_exec_options_initialize(&defaults);
    options = &defaults;
  }
  if (!argv || !argv[0]) {
    tq_buf_deinit(&out->out);
    tq_buf_deinit(&out->err);
    tqh_exec_result_init(out);
    return TQ_STATUS(TQ_INVALID_ARGUMENT, "an empty remote command (argv)");
  }
  uint32_t timeout =
      options->timeout_ms ? options->timeout_ms : session->options.command_timeout_ms;
  if (session->ssh) libssh2_session_set_blocking(session->ssh, 0);
  tq_status_t st = run_command(session, argv, options, timeout, 1, out);
  if (session->ssh) libssh2_session_set_blocking(session->ssh, 1);
  return st;
}

/* ---- Kept channels ------------------------------------------------------------------------------
 * A command started as tqh_ssh_exec starts it (the wrapper, its PID line), left running: its stdin
 * written, its stdout and stderr read piece by piece, for as long as the caller wants. */

struct tqh_ssh_channel_s {
  run_t run;
  tqh_exec_result_t got; /* what came since the last read (no limit; the caller takes it) */
  unsigned generation;   /* of the session's connection it was opened on */
  int eof;
};

/* The session in non-blocking mode for a call on a kept channel; says how it was. */
static int set_nonblocking(tqh_ssh_session_t *s) {
  int was = s->ssh ? libssh2_session_get_blocking(s->ssh) : 0;
  if (s->ssh) libssh2_session_set_blocking(s->ssh, 0);
  return was;
}

static void restore_blocking(tqh_ssh_session_t *s, int was) {
  if (s->ssh && was) libssh2_session_set_blocking(s->ssh, 1);
}

/* Whether the channel still belongs to the session's current connection. */
static int channel_current(const tqh_ssh_channel_t *c) {
  return c->run.ch && c->run.s->connected && c->run.s->ssh && c->generation == c->run.s->generation;
}

tq_status_t tqh_ssh_channel_start(tqh_ssh_session_t *session, const char *const argv[],
                                  tqh_ssh_channel_t **out_channel) {
  *out_channel = NULL;
  if (!argv || !argv[0]) return TQ_STATUS(TQ_INVALID_ARGUMENT, "an empty remote command (argv)");
  TQ_TRY(tqh__ssh_ready(session));
  tqh_ssh_channel_t *c = tq_calloc(1, sizeof(*c));
  if (!c) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  tqh_exec_result_init(&c->got);
  c->run.s = session;
  c->run.out = &c->got;
  c->run.limit = SIZE_MAX;
  tq_buf_init(&c->run.pre, 0);
  tq_buf_t cmd;
  tq_buf_init(&cmd, 0);
  tq_status_t st = tqh_ssh_command_line(argv, NULL, &cmd);
  int was = set_nonblocking(session);
  if (!st) st = open_and_start(&c->run, cmd.data, cmd.len, tqh__ssh_deadline(0));
  restore_blocking(session, was);
  tq_buf_deinit(&cmd);
  c->generation = session->generation;
  if (st) {
    tqh_ssh_channel_close(c);
    return st;
  }
  *out_channel = c;
  return NULL;
}

tq_status_t tqh_ssh_channel_write(tqh_ssh_channel_t *c, const void *data, size_t len) {
  if (!channel_current(c))
    return TQ_STATUS(TQ_UNAVAILABLE, "the channel to %s is gone with its connection",
                     c->run.s->target);
  tqh_ssh_session_t *s = c->run.s;
  uint64_t deadline = tqh__ssh_deadline(s->options.io_timeout_ms);
  int was = set_nonblocking(s);
  tq_status_t st = NULL;
  size_t pos = 0;
  while (!st && pos < len) {
    ssize_t n = libssh2_channel_write(c->run.ch, (const char *)data + pos, len - pos);
    if (n >= 0) {
      pos += (size_t)n;
    } else if (n != LIBSSH2_ERROR_EAGAIN) {
      st = tqh__ssh_error(s, (int)n, "writing to the command on %s", s->target);
    } else if (tqh_now_ns() >= deadline) {
      s->connected = 0;
      st = TQ_STATUS(TQ_UNAVAILABLE, "%s took no input for %u ms", s->target,
                     s->options.io_timeout_ms);
    } else {
      /* While the window is full the command may be waiting for us to read: take its output. */
      int more = 0, eof = 0;
      st = pump(&c->run, &more, &eof);
      if (!st && eof) c->eof = 1;
      if (!st && !more) st = tqh__ssh_wait(s, deadline);
    }
  }
  restore_blocking(s, was);
  return st;
}

tq_status_t tqh_ssh_channel_read(tqh_ssh_channel_t *c, uint64_t deadline_ns, tq_buf_t *out,
                                 tq_buf_t *err, int *out_eof) {
  *out_eof = 0;
  if (!channel_current(c))
    return TQ_STATUS(TQ_UNAVAILABLE, "the channel to %s is gone with its connection",
                     c->run.s->target);
  tqh_ssh_session_t *s = c->run.s;
  int was = set_nonblocking(s);
  tq_status_t st = NULL;
  for (;;) {
    int more = 0, eof = 0;
    if (!c->eof) st = pump(&c->run, &more, &eof);
    if (st) break;
    if (eof) c->eof = 1;
    if (c->got.out.len || c->got.err.len || c->eof || tqh_now_ns() >= deadline_ns) break;
    if (!more) st = tqh__ssh_wait(s, deadline_ns);
    if (st) break;
  }
  restore_blocking(s, was);
  if (!st && c->got.out.len) st = tq_buf_append(out, c->got.out.data, c->got.out.len);
  if (!st && c->got.err.len) st = tq_buf_append(err, c->got.err.data, c->got.err.len);
  c->got.out.len = 0;
  c->got.err.len = 0;
  /* Before the wrapper's line a kept channel's stdout is still in `pre`: at its end, it is all. */
  if (!st && c->eof && !c->run.marker_done && c->run.pre.len) {
    st = tq_buf_append(out, c->run.pre.data, c->run.pre.len);
    c->run.pre.len = 0;
  }
  *out_eof = c->eof;
  return st;
}

tq_status_t tqh_ssh_channel_kill(tqh_ssh_channel_t *c) {
  if (!channel_current(c))
    return TQ_STATUS(TQ_UNAVAILABLE, "the channel to %s is gone with its connection",
                     c->run.s->target);
  int was = set_nonblocking(c->run.s);
  tq_status_t st = kill_remote(&c->run);
  restore_blocking(c->run.s, was);
  return st;
}

long tqh_ssh_channel_pid(const tqh_ssh_channel_t *c) {
  return c->run.pid;
}

/* Waits for the socket until `deadline`: 0 when it passed or the wait failed. */
static int wait_until(tqh_ssh_session_t *s, uint64_t deadline) {
  if (tqh_now_ns() >= deadline) return 0;
  tq_status_t w = tqh__ssh_wait(s, deadline);
  if (!w) return 1;
  tq_status_free(w);
  return 0;
}

int tqh_ssh_channel_close(tqh_ssh_channel_t *c) {
  if (!c) return 0;
  int status = -1;
  if (channel_current(c)) {
    tqh_ssh_session_t *s = c->run.s;
    int was = set_nonblocking(s);
    /* EOF on its stdin, then its exit status if it ends within a moment. */
    uint64_t deadline = tqh__ssh_deadline(2000);
    while (libssh2_channel_send_eof(c->run.ch) == LIBSSH2_ERROR_EAGAIN && wait_until(s, deadline)) {
    }
    tq_buf_t sink;
    tq_buf_init(&sink, 0);
    int eof = c->eof;
    while (!eof && tqh_now_ns() < deadline && s->connected) {
      tq_status_t rst = tqh_ssh_channel_read(c, deadline, &sink, &sink, &eof);
      sink.len = 0;
      if (rst) {
        tq_status_free(rst);
        break;
      }
    }
    tq_buf_deinit(&sink);
    if (eof && s->connected) {
      int rc;
      while ((rc = libssh2_channel_close(c->run.ch)) == LIBSSH2_ERROR_EAGAIN &&
             wait_until(s, deadline)) {
      }
      if (rc == 0) {
        while ((rc = libssh2_channel_wait_closed(c->run.ch)) == LIBSSH2_ERROR_EAGAIN &&
               wait_until(s, deadline)) {
        }
      }
      if (rc == 0) {
        read_exit(&c->run);
        status = c->got.signal > 0 ? 128 + c->got.signal : c->got.exit_status;
      }
    }
    if (s->connected) channel_release(&c->run);
    restore_blocking(s, was);
  }
  /* On another connection the channel went with the old session. */
  c->run.ch = NULL;
  tq_buf_deinit(&c->run.pre);
  tqh_exec_result_deinit(&c->got);
  tq_free(c);
  return status;
}
