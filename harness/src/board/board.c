/* Board connections (board.h): addresses, connect and reconnect, the board's folders, files by
 * content hash, and the taxonomy of infrastructure faults. */
#include <errno.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "board_internal.h"
#include "torq/harness/files.h"
#include "torq/base/alloc.h"
#include "torq/harness/process.h"

/* ---- Addresses ------------------------------------------------------------------------------ */

static tq_status_t copy_part(const char *what, const char *text, const char *p, size_t n, char *out,
                             size_t size) {
  if (n == 0) return TQ_STATUS(TQ_INVALID_ARGUMENT, "'%s': the %s is empty", text, what);
  if (n >= size) return TQ_STATUS(TQ_INVALID_ARGUMENT, "'%s': the %s is too long", text, what);
  memcpy(out, p, n);
  out[n] = 0;
  return NULL;
}

tq_status_t tqh_board_addr_parse(const char *text, tqh_board_addr_t *out_addr) {
  memset(out_addr, 0, sizeof(*out_addr));
  if (!text || !*text) return TQ_STATUS(TQ_INVALID_ARGUMENT, "an empty board address");
  for (const char *c = text; *c; c++)
    if ((unsigned char)*c <= ' ')
      return TQ_STATUS(TQ_INVALID_ARGUMENT, "'%s': a board address holds no blanks", text);
  const char *host = text;
  const char *at = strrchr(text, '@');
  if (at) {
    TQ_TRY(copy_part("user name", text, text, (size_t)(at - text), out_addr->user,
                     sizeof(out_addr->user)));
    host = at + 1;
  }
  const char *port = NULL;
  if (*host == '[') {
    const char *close = strchr(host, ']');
    if (!close)
      return TQ_STATUS(TQ_INVALID_ARGUMENT, "'%s': '[' without ']' around the address", text);
    TQ_TRY(copy_part("host", text, host + 1, (size_t)(close - host - 1), out_addr->host,
                     sizeof(out_addr->host)));
    if (close[1] == ':')
      port = close + 2;
    else if (close[1])
      return TQ_STATUS(TQ_INVALID_ARGUMENT, "'%s': expected ':PORT' after ']'", text);
  } else {
    const char *colon = strchr(host, ':');
    if (colon && strchr(colon + 1, ':'))
      return TQ_STATUS(TQ_INVALID_ARGUMENT,
                       "'%s': write an IPv6 address in brackets: user@[::1]:22", text);
    size_t n = colon ? (size_t)(colon - host) : strlen(host);
    TQ_TRY(copy_part("host", text, host, n, out_addr->host, sizeof(out_addr->host)));
    if (colon) port = colon + 1;
  }
  if (port) {
    char *end = NULL;
    errno = 0;
    long v = strtol(port, &end, 10);
    if (!*port || *end || errno || v < 1 || v > 65535 || *port == '+' || *port == '-')
      return TQ_STATUS(TQ_INVALID_ARGUMENT, "'%s': the port must be a number from 1 to 65535",
                       text);
    out_addr->port = (unsigned)v;
  }
  return NULL;
}

/* ---- Options -------------------------------------------------------------------------------- */

void tqh_board_options_initialize(tqh_board_options_t *options) {
  memset(options, 0, sizeof(*options));
  options->lease_ttl_s = 60;
  options->lease_renew_s = 10;
  options->lease_wait_s = 600;
}

static char *dup_or_null(const char *s) {
  return s ? tq_strndup(s, strlen(s)) : NULL;
}

static char *local_user_name(void) {
  const char *u = getenv("USER");
  if (u && *u && !strchr(u, '/')) return dup_or_null(u);
  struct passwd *pw = getpwuid(getuid());
  if (pw && pw->pw_name && *pw->pw_name) return dup_or_null(pw->pw_name);
  char buf[32];
  snprintf(buf, sizeof(buf), "uid%ld", (long)getuid());
  return dup_or_null(buf);
}

char *tqh_board_lease_owner(const char *run_id) {
  char host[256] = "unknown";
  if (gethostname(host, sizeof(host) - 1) != 0) snprintf(host, sizeof(host), "unknown");
  host[sizeof(host) - 1] = 0;
  char *user = local_user_name();
  tq_buf_t b;
  tq_buf_init(&b, 0);
  /* The lease is one line of space-separated fields: no blanks inside a field. */
  for (char *c = host; *c; c++)
    if ((unsigned char)*c <= ' ') *c = '_';
  for (char *c = user; c && *c; c++)
    if ((unsigned char)*c <= ' ') *c = '_';
  tq_status_t st = tq_buf_printf(&b, "user=%s host=%s pid=%ld run=%s", user ? user : "unknown",
                                 host, (long)getpid(), run_id && *run_id ? run_id : "-");
  tq_free(user);
  char *s = st ? NULL : tq_buf_detach(&b);
  tq_status_free(st);
  tq_buf_deinit(&b);
  return s;
}

/* ---- Connections ---------------------------------------------------------------------------- */

void tqh_board_log(const tqh_board_conn_t *conn, int level, const char *fmt, ...) {
  if (!conn->options.log) return;
  char line[1024];
  int n = snprintf(line, sizeof(line), "%s: ", conn->name);
  if (n < 0 || (size_t)n >= sizeof(line)) n = 0;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
  va_end(ap);
  conn->options.log(conn->options.log_ctx, level, line);
}

static void conn_free(tqh_board_conn_t *c) {
  tq_free(c->name);
  tq_free(c->host);
  tq_free(c->user);
  tq_free(c->key_file);
  tq_free(c->known_hosts);
  tq_free(c->local_user);
  tq_free(c->runtime_path);
  tq_free(c->lease_owner);
  tq_free(c->board_root);
  tq_free(c->user_dir);
  tq_free(c->cache_dir);
  tq_free(c->runtime);
  tq_free(c->lease_path);
  tq_free(c->known);
  tq_free(c);
}

static char *join(const char *a, const char *b) {
  size_t n = strlen(a);
  while (n > 1 && a[n - 1] == '/') n--;
  return tq_strdup_printf("%.*s/%s", (int)n, a, b);
}

/* What to tell the user about a connection that failed. */
static tq_status_t explain_connect(const tqh_board_conn_t *c, tq_status_t st) {
  const char *type = tqh_board_fault_type(st);
  if (!strcmp(type, "infra_host_key"))
    return tq_status_annotate(st,
                              "board %s: the host key is not the one in %s; check that this "
                              "is the right board, then fix the known_hosts file (or set "
                              "known_hosts in configs/, --torq-known-hosts)",
                              c->name, c->known_hosts ? c->known_hosts : "~/.ssh/known_hosts");
  if (!strcmp(type, "infra_auth"))
    return tq_status_annotate(st,
                              "board %s: user '%s' was not let in with %s; give the key that "
                              "the board accepts (key_file in configs/, --torq-ssh-key) or add "
                              "it to an ssh-agent",
                              c->name, c->user ? c->user : "(default)",
                              c->key_file ? c->key_file : "the ssh-agent's or ~/.ssh's keys");
  return tq_status_annotate(st, "board %s (%s:%u)", c->name, c->host, c->ssh_options.port);
}

tq_status_t tqh_board_connect(const tqh_board_spec_t *spec, const tqh_board_options_t *options,
                              tqh_board_conn_t **out_conn) {
  *out_conn = NULL;
  if (!spec->ssh.host || !*spec->ssh.host)
    return TQ_STATUS(TQ_INVALID_ARGUMENT, "board %s has no host", spec->name ? spec->name : "?");
  tqh_board_conn_t *c = tq_calloc(1, sizeof(*c));
  if (!c) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  c->ssh_options = spec->ssh;
  c->options = *options;
  c->name = dup_or_null(spec->name ? spec->name : spec->ssh.host);
  c->host = dup_or_null(spec->ssh.host);
  c->user = dup_or_null(spec->ssh.user);
  c->key_file = dup_or_null(spec->ssh.key_file);
  c->known_hosts = dup_or_null(spec->ssh.known_hosts);
  c->local_user = options->local_user ? dup_or_null(options->local_user) : local_user_name();
  c->runtime_path = dup_or_null(options->runtime_path);
  c->lease_owner =
      options->lease_owner ? dup_or_null(options->lease_owner) : tqh_board_lease_owner(NULL);
  c->board_root = dup_or_null(spec->board_root ? spec->board_root : TQH_BOARD_ROOT_DEFAULT);
  c->ssh_options.host = c->host;
  c->ssh_options.user = c->user;
  c->ssh_options.key_file = c->key_file;
  c->ssh_options.known_hosts = c->known_hosts;
  c->options.local_user = c->local_user;
  c->options.runtime_path = c->runtime_path;
  c->options.lease_owner = c->lease_owner;
  if (c->options.lease_ttl_s < 1) c->options.lease_ttl_s = 1;
  if (c->options.lease_renew_s <= 0 || c->options.lease_renew_s > c->options.lease_ttl_s)
    c->options.lease_renew_s = c->options.lease_ttl_s / 2;
  if (c->board_root && c->local_user) {
    c->user_dir = join(c->board_root, c->local_user);
    c->lease_path = join(c->board_root, TQH_BOARD_LEASE_NAME);
  }
  if (c->user_dir) {
    c->cache_dir = join(c->user_dir, "cache");
    c->runtime = join(c->user_dir, TQH_BOARD_RUNTIME_NAME);
  }
  if (!c->name || !c->host || (spec->ssh.user && !c->user) ||
      (spec->ssh.key_file && !c->key_file) || (spec->ssh.known_hosts && !c->known_hosts) ||
      !c->local_user || !c->lease_owner || !c->board_root || !c->user_dir || !c->cache_dir ||
      !c->runtime || !c->lease_path || (options->runtime_path && !c->runtime_path)) {
    conn_free(c);
    return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  }
  if (c->board_root[0] != '/') {
    tq_status_t st =
        TQ_STATUS(TQ_INVALID_ARGUMENT, "board %s: board_root '%s' must be an absolute path",
                  c->name, c->board_root);
    conn_free(c);
    return st;
  }
  uint64_t t0 = tqh_now_ns();
  tq_status_t st = tqh_ssh_connect(&c->ssh_options, &c->ssh);
  if (st) {
    st = explain_connect(c, st);
    conn_free(c);
    return st;
  }
  /* The board's name is its address when --torq-addr named it: said once, not twice. */
  const char *target = tqh_ssh_session_target(c->ssh);
  int same = target && !strcmp(target, c->name);
  tqh_board_log(c, 0, "connected%s%s in %.3fs", same ? "" : " to ", same ? "" : target,
                (double)(tqh_now_ns() - t0) / 1e9);
  st = tqh_ssh_mkdir_p(c->ssh, c->cache_dir);
  if (st) {
    st = tq_status_annotate(st, "board %s: cannot make the cache folder %s", c->name, c->cache_dir);
    tqh_board_disconnect(c);
    return st;
  }
  *out_conn = c;
  return NULL;
}

void tqh_board_disconnect(tqh_board_conn_t *conn) {
  if (!conn) return;
  tqh__board_agent_stop(conn);
  tqh_ssh_disconnect(conn->ssh);
  conn_free(conn);
}

tq_status_t tqh_board_reconnect(tqh_board_conn_t *conn) {
  tqh_board_log(conn, 1, "reconnecting");
  uint64_t t0 = tqh_now_ns();
  tq_status_t st = tqh_ssh_reconnect(conn->ssh);
  if (st) return explain_connect(conn, st);
  tqh_board_log(conn, 1, "reconnected in %.3fs", (double)(tqh_now_ns() - t0) / 1e9);
  return NULL;
}

int tqh_board_is_connected(const tqh_board_conn_t *conn) {
  return conn && conn->ssh && tqh_ssh_is_connected(conn->ssh);
}

tqh_ssh_session_t *tqh_board_session(tqh_board_conn_t *conn) {
  return conn->ssh;
}
const char *tqh_board_user_dir(const tqh_board_conn_t *conn) {
  return conn->user_dir;
}
const char *tqh_board_runtime(const tqh_board_conn_t *conn) {
  return conn->runtime;
}

/* ---- Commands ------------------------------------------------------------------------------- */

tq_status_t tqh__board_exec(tqh_board_conn_t *conn, const char *const *argv, uint32_t timeout_ms,
                            tqh_exec_result_t *out) {
  tqh_exec_options_t eo;
  tqh_exec_options_initialize(&eo);
  eo.timeout_ms = timeout_ms;
  eo.output_limit = (size_t)1 << 20;
  return tqh_ssh_exec(conn->ssh, argv, &eo, out);
}

/* The last non-empty line of `text`, into `out`. */
void tqh_board_last_line(const char *text, char *out, size_t size) {
  out[0] = 0;
  if (!text) return;
  size_t n = strlen(text);
  while (n && (text[n - 1] == '\n' || text[n - 1] == '\r')) n--;
  size_t start = n;
  while (start && text[start - 1] != '\n') start--;
  snprintf(out, size, "%.*s", (int)(n - start), text + start);
}

tq_status_t tqh__board_command_failed(const tqh_board_conn_t *conn, const char *what,
                                      const tqh_exec_result_t *res) {
  char line[512];
  tqh_board_last_line(res->err.data, line, sizeof(line));
  if (!line[0]) tqh_board_last_line(res->out.data, line, sizeof(line));
  int full = tqh_board_text_says_disk_full(res->err.data);
  if (res->signal)
    return TQ_STATUS(full ? TQ_UNAVAILABLE : TQ_IO, "board %s: %s was killed by signal %d%s%s",
                     conn->name, what, res->signal, line[0] ? ": " : "", line);
  return TQ_STATUS(full ? TQ_UNAVAILABLE : TQ_IO, "board %s: %s failed (exit status %d)%s%s",
                   conn->name, what, res->exit_status, line[0] ? ": " : "", line);
}

/* ---- Files by content ----------------------------------------------------------------------- */

static int known(const tqh_board_conn_t *c, const char *hex) {
  for (size_t i = 0; i < c->num_known; i++)
    if (!strcmp(c->known[i], hex)) return 1;
  return 0;
}

static void remember(tqh_board_conn_t *c, const char *hex) {
  if (c->num_known == c->cap_known) {
    size_t cap = c->cap_known ? c->cap_known * 2 : 64;
    void *n = tq_realloc(c->known, cap * sizeof(*c->known));
    if (!n) return; /* only a cache: asking again next time is fine */
    c->known = n;
    c->cap_known = cap;
  }
  snprintf(c->known[c->num_known++], TQ_SHA256_HEX_SIZE, "%s", hex);
}

tq_status_t tqh_board_put_cached(tqh_board_conn_t *conn, const char *local_path, const char *ext,
                                 const char *what, char **out_remote, int *out_uploaded) {
  *out_remote = NULL;
  if (out_uploaded) *out_uploaded = 0;
  uint8_t digest[TQ_SHA256_SIZE];
  char hex[TQ_SHA256_HEX_SIZE];
  TQ_TRY(tq_sha256_file(local_path, digest));
  tq_sha256_hex(digest, hex);
  struct stat sb;
  if (stat(local_path, &sb) != 0) return TQ_STATUS(TQ_IO, "%s: %s", local_path, strerror(errno));
  tq_buf_t remote, tmp;
  tq_buf_init(&remote, 0);
  tq_buf_init(&tmp, 0);
  tq_status_t st = tq_buf_printf(&remote, "%s/%s%s", conn->cache_dir, hex, ext ? ext : "");
  if (!st && known(conn, hex)) {
    tqh_board_log(conn, 0, "%s cached on board (%s)", what, hex);
  } else if (!st) {
    tqh_ssh_stat_t rs;
    st = tqh_ssh_stat(conn->ssh, remote.data, &rs);
    if (!st && rs.exists && rs.is_regular && rs.size == (uint64_t)sb.st_size) {
      tqh_board_log(conn, 0, "%s cached on board (%s)", what, hex);
      remember(conn, hex);
    } else if (!st) {
      /* A temporary name of our own, then an atomic rename: a runner that finds the name in
       * the cache never reads a partial file. */
      st = tq_buf_printf(&tmp, "%s.tmp.%ld", remote.data, (long)getpid());
      if (!st) st = tqh_ssh_upload(conn->ssh, local_path, tmp.data, 0644, 0);
      if (!st) st = tqh_ssh_rename(conn->ssh, tmp.data, remote.data);
      if (st && tmp.data && tqh_ssh_is_connected(conn->ssh))
        tq_status_free(tqh_ssh_unlink(conn->ssh, tmp.data));
      if (!st) {
        tqh_board_log(conn, 0, "%s uploaded (%lld bytes)", what, (long long)sb.st_size);
        remember(conn, hex);
        if (out_uploaded) *out_uploaded = 1;
      }
    }
  }
  if (st) {
    st = tq_status_annotate(st, "board %s: while putting the %s %s in its cache", conn->name, what,
                            local_path);
    tq_buf_deinit(&remote);
  } else {
    *out_remote = tq_buf_detach(&remote);
    tq_buf_deinit(&remote);
    if (!*out_remote) st = TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  }
  tq_buf_deinit(&tmp);
  return st;
}

/* ---- Failures ------------------------------------------------------------------------------- */

static int contains_ci(const char *hay, const char *needle) {
  if (!hay) return 0;
  size_t n = strlen(needle);
  for (; *hay; hay++)
    if (!strncasecmp(hay, needle, n)) return 1;
  return 0;
}

int tqh_board_text_says_disk_full(const char *text) {
  return tqh_text_says_disk_full(text);
}

/* The status's whole text: the message and every note. */
static int status_mentions(const struct tq_status_s *st, const char *needle) {
  char *text = tq_status_format(st, 0);
  int yes = contains_ci(text ? text : tq_status_message(st), needle);
  free(text);
  return yes;
}

const char *tqh_board_fault_type(const struct tq_status_s *status) {
  if (!status) return "infra_connection";
  if (status_mentions(status, "no space left") || status_mentions(status, "disk quota") ||
      status_mentions(status, "ENOSPC"))
    return "infra_disk_full";
  tq_status_code_t code = tq_status_code(status);
  if (code == TQ_DEADLINE_EXCEEDED) return "infra_timeout";
  if (status_mentions(status, "is leased by")) return "infra_lease";
  if (code == TQ_FAILED_PRECONDITION) {
    if (status_mentions(status, "host key") || status_mentions(status, "known_hosts") ||
        status_mentions(status, "fingerprint"))
      return "infra_host_key";
    if (status_mentions(status, "runtime")) return "infra_setup";
    return "infra_auth";
  }
  if (code == TQ_INVALID_ARGUMENT) {
    if (status_mentions(status, "key")) return "infra_auth";
    return "infra_setup";
  }
  if (code == TQ_IO || code == TQ_NOT_FOUND) return "infra_setup";
  return "infra_connection";
}

int tqh_board_fault_is_transient(const char *fault_type) {
  return !strcmp(fault_type, "infra_connection") || !strcmp(fault_type, "infra_timeout") ||
         !strcmp(fault_type, "infra_disk_full");
}
