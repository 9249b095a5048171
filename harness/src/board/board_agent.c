/* A test's runtime invocation on the board (board.h: tqh_board_run) through the board's resident
 * agent: a POSIX shell loop started once per connection on a kept channel (ssh.h), which takes
 * one request after another on its stdin and runs each in a fresh subshell. A test then costs
 * the runtime's own start and no channel, no login shell and no wrapper of its own.
 *
 * Request (on the agent's stdin): a line with the count N of the arguments that follow, then N
 * lines, one argument each, read verbatim (`read -r`, IFS empty): the previous test's folder (or
 * empty), this test's folder, the runtime and its options. Nothing of them is ever parsed by a
 * shell; an argument with a newline cannot be framed this way and takes one exec of its own.
 * Reply: the runtime's stdout and stderr on the channel's two streams, each closed by a marker
 * line that carries the agent's random key: "\n<key> <exit status>\n" on stdout, "\n<key>\n" on
 * stderr (the newline in front is the agent's, so output without a final newline stays exact).
 * The previous folder is removed after the reply, while this side reads the outputs (never when
 * it is this one: a retry).
 *
 * Failures: the agent's channel ending before both markers (the agent crashed or was killed) is
 * an infrastructure error (TQ_UNAVAILABLE) for that test, and the next test starts a new agent;
 * a lost connection drops the agent with it (the channel belonged to the old connection); on the
 * timeout the agent's process group, runtime included, is killed and the next test starts a new
 * one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "board_internal.h"
#include "torq/base/alloc.h"
#include "torq/harness/process.h"

/* $1 the key. Exit status 125 when the folder cannot be made; the subshell's 126/127 when the
 * runtime cannot be started; 128 + N when signal N killed it. */
static const char k_agent_script[] =
    "k=$1\n"
    "while IFS= read -r n; do\n"
    "  case $n in ''|*[!0-9]*) echo \"torq-agent: bad request\" >&2; exit 2;; esac\n"
    "  set --\n"
    "  while [ $# -lt \"$n\" ]; do IFS= read -r a || exit 2; set -- \"$@\" \"$a\"; done\n"
    "  p=$1 w=$2\n"
    "  shift 2\n"
    "  if mkdir -p -- \"$w\"; then\n"
    "    (cd -- \"$w\" || exit 125; exec \"$@\") </dev/null\n"
    "    rc=$?\n"
    "  else\n"
    "    rc=125\n"
    "  fi\n"
    "  printf '\\n%s %s\\n' \"$k\" \"$rc\"\n"
    "  printf '\\n%s\\n' \"$k\" >&2\n"
    "  if [ -n \"$p\" ] && [ \"$p\" != \"$w\" ]; then rm -rf -- \"$p\" 2>/dev/null; fi\n"
    "done\n";

/* The same for one invocation on its own exec channel: $1 previous folder, $2 this one. */
static const char k_run_script[] =
    "p=$1 w=$2\n"
    "shift 2\n"
    "if [ -n \"$p\" ]; then rm -rf -- \"$p\"; fi\n"
    "mkdir -p -- \"$w\" || exit 125\n"
    "cd -- \"$w\" || exit 125\n"
    "exec \"$@\"\n";

/* Seconds the agent gets to reply after its process group was killed on the timeout. */
#define DRAIN_AFTER_KILL_NS 3000000000ull

static void drop_agent(tqh_board_conn_t *conn) {
  tqh_ssh_channel_close(conn->agent);
  conn->agent = NULL;
}

void tqh__board_agent_stop(tqh_board_conn_t *conn) {
  drop_agent(conn);
}

static tq_status_t start_agent(tqh_board_conn_t *conn) {
  uint8_t raw[16];
  if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw)) {
    uint64_t t = tqh_now_ns() ^ ((uint64_t)(uintptr_t)conn << 17);
    for (size_t i = 0; i < sizeof(raw); i++) raw[i] = (uint8_t)(t >> (8 * (i % 8))) ^ (uint8_t)i;
  }
  char *p = conn->agent_key;
  p += sprintf(p, "torq-agent-");
  for (size_t i = 0; i < sizeof(raw); i++) p += sprintf(p, "%02x", raw[i]);
  const char *argv[] = {"sh", "-c", k_agent_script, "torq-agent", conn->agent_key, NULL};
  tq_status_t st = tqh_ssh_channel_start(conn->ssh, argv, &conn->agent);
  if (st) return tq_status_annotate(st, "board %s: while starting the board agent", conn->name);
  conn->agents_started++;
  tqh_board_log(conn, 0, "board agent started");
  return NULL;
}

/* An agent that ended while idle (killed on the board, say) is replaced before the request:
 * its channel's end has come by then. */
static void check_idle_agent(tqh_board_conn_t *conn) {
  tq_buf_t junk;
  tq_buf_init(&junk, 0);
  int eof = 0;
  tq_status_t st = tqh_ssh_channel_read(conn->agent, tqh_now_ns(), &junk, &junk, &eof);
  tq_buf_deinit(&junk);
  if (st || eof) {
    int status = tqh_ssh_channel_close(conn->agent);
    conn->agent = NULL;
    tqh_board_log(conn, 1, "the board agent ended while idle (status %d): starting another",
                  status);
  }
  tq_status_free(st);
}

/* One stream of the reply: bytes before the marker go to `keep` (up to `limit`), the marker's
 * line ends it. */
typedef struct stream_s {
  tq_buf_t pending; /* bytes that may still be the start of the marker */
  tq_buf_t *keep;
  int *truncated;
  size_t limit;
  int done;
  long status; /* stdout's: the exit status after the key */
} stream_t;

static tq_status_t keep_bytes(stream_t *s, const char *data, size_t n) {
  if (s->keep->len >= s->limit) {
    *s->truncated |= n > 0;
    return NULL;
  }
  size_t room = s->limit - s->keep->len;
  if (n > room) {
    *s->truncated = 1;
    n = room;
  }
  return tq_buf_append(s->keep, data, n);
}

/* Looks for "\n<key>" + (stdout: " <digits>") + "\n" in what is pending; keeps what precedes. */
static tq_status_t scan(stream_t *s, const char *key, int with_status) {
  size_t klen = strlen(key);
  const char *d = s->pending.data;
  size_t len = s->pending.len;
  size_t from = 0;
  for (size_t i = 0; i + 1 + klen <= len; i++) {
    if (d[i] != '\n' || memcmp(d + i + 1, key, klen) != 0) continue;
    const char *q = d + i + 1 + klen;
    const char *end = d + len;
    long status = 0;
    if (with_status) {
      if (q >= end) break; /* wait for more */
      if (*q != ' ') continue;
      q++;
      const char *digits = q;
      while (q < end && *q >= '0' && *q <= '9') status = status * 10 + (*q++ - '0');
      if (q >= end) break;
      if (q == digits) continue;
    }
    if (q >= end) break;
    if (*q != '\n') continue;
    TQ_TRY(keep_bytes(s, d, i));
    s->status = status;
    s->done = 1;
    s->pending.len = 0;
    return NULL;
  }
  /* No marker yet: all but a tail that could start one is output. */
  size_t tail = klen + 24;
  if (len > tail) {
    from = len - tail;
    const char *nl = memchr(d + from, '\n', tail);
    size_t cut = nl ? (size_t)(nl - d) : len;
    TQ_TRY(keep_bytes(s, d, cut));
    memmove(s->pending.data, d + cut, len - cut);
    s->pending.len = len - cut;
  }
  return NULL;
}

/* Whether every argument can go on a line of its own. */
static int framable(const char *const argv[]) {
  for (size_t i = 0; argv[i]; i++)
    if (strchr(argv[i], '\n')) return 0;
  return 1;
}

static tq_status_t send_request(tqh_board_conn_t *conn, const char *prev, const char *work,
                                const char *const argv[]) {
  tq_buf_t req;
  tq_buf_init(&req, 0);
  size_t n = 0;
  while (argv[n]) n++;
  tq_status_t st = tq_buf_printf(&req, "%zu\n%s\n%s\n", n + 2, prev ? prev : "", work);
  for (size_t i = 0; !st && i < n; i++) st = tq_buf_printf(&req, "%s\n", argv[i]);
  if (!st) st = tqh_ssh_channel_write(conn->agent, req.data, req.len);
  tq_buf_deinit(&req);
  return st;
}

/* The request's reply, until both markers came, the agent ended or the deadline passed. */
static tq_status_t await_reply(tqh_board_conn_t *conn, stream_t *out, stream_t *err,
                               uint64_t deadline, int *out_eof) {
  *out_eof = 0;
  while (!out->done || !err->done) {
    if (tqh_now_ns() >= deadline) return NULL;
    tq_buf_t a, b;
    tq_buf_init(&a, 0);
    tq_buf_init(&b, 0);
    int eof = 0;
    tq_status_t st = tqh_ssh_channel_read(conn->agent, deadline, &a, &b, &eof);
    if (!st && a.len) st = tq_buf_append(&out->pending, a.data, a.len);
    if (!st && b.len) st = tq_buf_append(&err->pending, b.data, b.len);
    tq_buf_deinit(&a);
    tq_buf_deinit(&b);
    if (!st && !out->done) st = scan(out, conn->agent_key, 1);
    if (!st && !err->done) st = scan(err, conn->agent_key, 0);
    if (st) return st;
    if (eof) {
      *out_eof = 1;
      return NULL;
    }
  }
  return NULL;
}

static tq_status_t run_exec(tqh_board_conn_t *conn, const char *prev, const char *work,
                            const char *const argv[], const tqh_exec_options_t *options,
                            tqh_exec_result_t *out) {
  size_t n = 0;
  while (argv[n]) n++;
  const char **all = tq_calloc(n + 7, sizeof(char *));
  if (!all) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  const char *head[] = {"sh", "-c", k_run_script, "torq-run", prev ? prev : "", work};
  memcpy(all, head, sizeof(head));
  memcpy(all + 6, argv, n * sizeof(char *));
  tq_status_t st = tqh_ssh_exec(conn->ssh, all, options, out);
  tq_free(all);
  return st;
}

tq_status_t tqh_board_run(tqh_board_conn_t *conn, const char *prev, const char *work,
                          const char *const argv[], const tqh_exec_options_t *options,
                          tqh_exec_result_t *out) {
  if (!argv || !argv[0] || !work)
    return TQ_STATUS(TQ_INVALID_ARGUMENT, "an empty remote command (argv)");
  /* A retry in the same folder: the agent removes `prev` after its reply, with the outputs. */
  if (prev && !strcmp(prev, work)) prev = NULL;
  if (!framable(argv) || strchr(work, '\n') || (prev && strchr(prev, '\n')) ||
      conn->options.no_agent)
    return run_exec(conn, prev, work, argv, options, out);
  tq_buf_deinit(&out->out);
  tq_buf_deinit(&out->err);
  tqh_exec_result_init(out);
  out->exit_status = -1;
  uint64_t start = tqh_now_ns();
  uint32_t timeout_ms = options && options->timeout_ms ? options->timeout_ms
                                                        : conn->ssh_options.command_timeout_ms;
  size_t limit = options && options->output_limit ? options->output_limit : (size_t)1 << 20;
  uint64_t deadline = timeout_ms ? start + (uint64_t)timeout_ms * 1000000u : UINT64_MAX;

  if (conn->agent && !tqh_ssh_is_connected(conn->ssh)) drop_agent(conn);
  if (conn->agent) check_idle_agent(conn);
  tq_status_t st = conn->agent ? NULL : start_agent(conn);
  if (!st) st = send_request(conn, prev, work, argv);
  stream_t so = {.keep = &out->out, .truncated = &out->out_truncated, .limit = limit};
  stream_t se = {.keep = &out->err, .truncated = &out->err_truncated, .limit = limit};
  tq_buf_init(&so.pending, 0);
  tq_buf_init(&se.pending, 0);
  int eof = 0;
  if (!st) st = await_reply(conn, &so, &se, deadline, &eof);
  out->remote_pid = conn->agent ? (int)tqh_ssh_channel_pid(conn->agent) : 0;
  if (!st && (!so.done || !se.done) && !eof) {
    /* The timeout: the agent's process group goes, the runtime with it; what they wrote until
     * then is kept. */
    out->timed_out = 1;
    tq_status_t kst = tqh_ssh_channel_kill(conn->agent);
    if (!kst) kst = await_reply(conn, &so, &se, tqh_now_ns() + DRAIN_AFTER_KILL_NS, &eof);
    if (kst && tq_status_code(kst) == TQ_UNAVAILABLE) {
      st = kst;
    } else {
      tq_status_free(kst);
      st = TQ_STATUS(TQ_DEADLINE_EXCEEDED, "the command '%s' on %s timed out after %u ms and was "
                     "killed", argv[0], tqh_ssh_session_target(conn->ssh), timeout_ms);
    }
    drop_agent(conn);
  } else if (!st && (!so.done || !se.done)) {
    /* The agent's channel ended in the middle of the request. */
    int status = tqh_ssh_channel_close(conn->agent);
    conn->agent = NULL;
    char how[48] = "";
    if (status > 128)
      snprintf(how, sizeof(how), " (killed by signal %d)", status - 128);
    else if (status >= 0)
      snprintf(how, sizeof(how), " (exit status %d)", status);
    char line[512];
    tqh_board_last_line(out->err.data, line, sizeof(line));
    st = TQ_STATUS(TQ_UNAVAILABLE, "board %s: the board agent ended while it ran '%s'%s%s%s",
                   conn->name, argv[0], how, line[0] ? ": " : "", line);
  } else if (!st) {
    out->exit_status = (int)so.status;
  }
  if (st && tq_status_code(st) == TQ_UNAVAILABLE && conn->agent &&
      !tqh_ssh_is_connected(conn->ssh))
    drop_agent(conn);
  if (st && tq_status_code(st) != TQ_DEADLINE_EXCEEDED) out->exit_status = -1;
  /* Whatever is still pending (no marker came) is output too. */
  if (!so.done && so.pending.len) tq_status_free(keep_bytes(&so, so.pending.data, so.pending.len));
  if (!se.done && se.pending.len) tq_status_free(keep_bytes(&se, se.pending.data, se.pending.len));
  tq_buf_deinit(&so.pending);
  tq_buf_deinit(&se.pending);
  out->duration_ns = tqh_now_ns() - start;
  return st;
}

unsigned tqh_board_agents_started(const tqh_board_conn_t *conn) {
  return conn->agents_started;
}
