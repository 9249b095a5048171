/* The board transport: options, connection (TCP, handshake, authentication), keep-alive,
 * reconnection and the one conversion of libssh2's errors (ssh.h). Host keys are in
 * ssh_known_hosts.c, commands in ssh_exec.c, files in ssh_sftp.c.
 *
 * The session runs in libssh2's blocking mode with an API timeout (connect_timeout_ms while
 * connecting, io_timeout_ms afterwards), which keeps authentication and SFTP simple; commands
 * switch to non-blocking mode for their duration, to read stdout and stderr, write stdin and watch
 * their deadline at once (ssh_exec.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "board_internal.h"
#include "torq/base/alloc.h"
#include "torq/harness/process.h"

/* ---- Small helpers ------------------------------------------------------------------------ */

uint64_t tqh__ssh_deadline(uint32_t ms) {
  return ms ? tqh_now_ns() + (uint64_t)ms * 1000000u : UINT64_MAX;
}

static void sleep_ms(uint32_t ms) {
  struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

static int file_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* A heap copy of `s` (NULL stays NULL); *ok = 0 when memory ran out. */
static char *dup_or_null(const char *s, int *ok) {
  if (!s) return NULL;
  char *d = tq_strndup(s, strlen(s));
  if (!d) *ok = 0;
  return d;
}

static char *path_join(const char *dir, const char *name) {
  return tq_strdup_printf("%s/%s", dir, name);
}

static const char *home_dir(void) {
  const char *home = getenv("HOME");
  if (home && *home) return home;
  struct passwd *pw = getpwuid(getuid());
  return pw && pw->pw_dir ? pw->pw_dir : NULL;
}

/* ---- Options ------------------------------------------------------------------------------ */

void tqh_ssh_options_initialize(tqh_ssh_options_t *options) {
  memset(options, 0, sizeof(*options));
  options->port = 22;
  options->use_agent = 1;
  options->connect_timeout_ms = 10000;
  options->io_timeout_ms = 60000;
  options->keepalive_interval_s = 15;
  options->command_timeout_ms = 600000;
  options->reconnect_attempts = 5;
  options->reconnect_backoff_ms = 250;
}

void tqh_exec_options_initialize(tqh_exec_options_t *options) {
  memset(options, 0, sizeof(*options));
  options->output_limit = (size_t)1 << 20;
}

void tqh_exec_result_init(tqh_exec_result_t *result) {
  memset(result, 0, sizeof(*result));
  tq_buf_init(&result->out, 0);
  tq_buf_init(&result->err, 0);
}

void tqh_exec_result_deinit(tqh_exec_result_t *result) {
  if (!result) return;
  tq_buf_deinit(&result->out);
  tq_buf_deinit(&result->err);
  memset(result, 0, sizeof(*result));
}

/* ---- libssh2 errors: the one conversion -------------------------------------------------- */

static const char *sftp_status_text(unsigned long fx) {
  switch (fx) {
    case LIBSSH2_FX_EOF:
      return "end of file";
    case LIBSSH2_FX_NO_SUCH_FILE:
      return "no such file";
    case LIBSSH2_FX_PERMISSION_DENIED:
      return "permission denied";
    case LIBSSH2_FX_FAILURE:
      return "failure";
    case LIBSSH2_FX_BAD_MESSAGE:
      return "bad message";
    case LIBSSH2_FX_NO_CONNECTION:
      return "no connection";
    case LIBSSH2_FX_CONNECTION_LOST:
      return "connection lost";
    case LIBSSH2_FX_OP_UNSUPPORTED:
      return "operation unsupported";
    case LIBSSH2_FX_INVALID_HANDLE:
      return "invalid handle";
    case LIBSSH2_FX_NO_SUCH_PATH:
      return "no such path";
    case LIBSSH2_FX_FILE_ALREADY_EXISTS:
      return "file already exists";
    case LIBSSH2_FX_WRITE_PROTECT:
      return "write protected";
    case LIBSSH2_FX_NO_MEDIA:
      return "no media";
    case LIBSSH2_FX_NO_SPACE_ON_FILESYSTEM:
      return "no space left on the board";
    case LIBSSH2_FX_QUOTA_EXCEEDED:
      return "quota exceeded";
    case LIBSSH2_FX_NOT_A_DIRECTORY:
      return "not a directory";
    case LIBSSH2_FX_DIR_NOT_EMPTY:
      return "folder not empty";
    case LIBSSH2_FX_LINK_LOOP:
      return "too many symbolic links";
    default:
      return "unknown SFTP status";
  }
}

/* Errors after which the connection cannot be trusted any more. */
static int is_connection_error(int rc) {
  switch (rc) {
    case LIBSSH2_ERROR_SOCKET_NONE:
    case LIBSSH2_ERROR_BANNER_RECV:
    case LIBSSH2_ERROR_BANNER_SEND:
    case LIBSSH2_ERROR_INVALID_MAC:
    case LIBSSH2_ERROR_KEX_FAILURE:
    case LIBSSH2_ERROR_SOCKET_SEND:
    case LIBSSH2_ERROR_KEY_EXCHANGE_FAILURE:
    case LIBSSH2_ERROR_TIMEOUT:
    case LIBSSH2_ERROR_HOSTKEY_INIT:
    case LIBSSH2_ERROR_HOSTKEY_SIGN:
    case LIBSSH2_ERROR_DECRYPT:
    case LIBSSH2_ERROR_SOCKET_DISCONNECT:
    case LIBSSH2_ERROR_PROTO:
    case LIBSSH2_ERROR_SOCKET_TIMEOUT:
    case LIBSSH2_ERROR_SOCKET_RECV:
    case LIBSSH2_ERROR_ENCRYPT:
    case LIBSSH2_ERROR_BAD_SOCKET:
      return 1;
    default:
      return 0;
  }
}

tq_status_t tqh__ssh_error(tqh_ssh_session_t *s, int rc, const char *what, ...) {
  char doing[1024];
  va_list ap;
  va_start(ap, what);
  vsnprintf(doing, sizeof(doing), what, ap);
  va_end(ap);

  char *msg = NULL;
  int last = s->ssh ? libssh2_session_last_error(s->ssh, &msg, NULL, 0) : 0;
  if (rc == 0 || rc == LIBSSH2_ERROR_EAGAIN) rc = last;
  const char *text = msg && *msg ? msg : "no detail";

  if (rc == LIBSSH2_ERROR_SFTP_PROTOCOL && s->sftp) {
    unsigned long fx = libssh2_sftp_last_error(s->sftp);
    tq_status_code_t code = TQ_IO;
    if (fx == LIBSSH2_FX_NO_SUCH_FILE || fx == LIBSSH2_FX_NO_SUCH_PATH) code = TQ_NOT_FOUND;
    if (fx == LIBSSH2_FX_NO_SPACE_ON_FILESYSTEM || fx == LIBSSH2_FX_QUOTA_EXCEEDED)
      code = TQ_UNAVAILABLE;
    if (fx == LIBSSH2_FX_FILE_ALREADY_EXISTS) code = TQ_FAILED_PRECONDITION;
    if (fx == LIBSSH2_FX_CONNECTION_LOST || fx == LIBSSH2_FX_NO_CONNECTION) {
      code = TQ_UNAVAILABLE;
      s->connected = 0;
    }
    return TQ_STATUS(code, "%s on %s: %s (SFTP status %lu)", doing, s->target, sftp_status_text(fx),
                     fx);
  }
  if (is_connection_error(rc)) {
    s->connected = 0;
    return TQ_STATUS(TQ_UNAVAILABLE, "%s on %s: the connection failed: %s (libssh2 error %d)",
                     doing, s->target, text, rc);
  }
  tq_status_code_t code = TQ_IO;
  switch (rc) {
    case LIBSSH2_ERROR_ALLOC:
      code = TQ_OUT_OF_MEMORY;
      break;
    case LIBSSH2_ERROR_CHANNEL_FAILURE:
    case LIBSSH2_ERROR_CHANNEL_REQUEST_DENIED:
    case LIBSSH2_ERROR_CHANNEL_OUTOFORDER:
    case LIBSSH2_ERROR_CHANNEL_UNKNOWN:
      code = TQ_UNAVAILABLE;
      break;
    case LIBSSH2_ERROR_AUTHENTICATION_FAILED:
    case LIBSSH2_ERROR_PUBLICKEY_UNVERIFIED:
      code = TQ_FAILED_PRECONDITION;
      break;
    case LIBSSH2_ERROR_FILE:
    case LIBSSH2_ERROR_INVAL:
    case LIBSSH2_ERROR_METHOD_NOT_SUPPORTED:
      code = TQ_INVALID_ARGUMENT;
      break;
    default:
      break;
  }
  return TQ_STATUS(code, "%s on %s: %s (libssh2 error %d)", doing, s->target, text, rc);
}

/* ---- Waiting and keep-alive ----------------------------------------------------------------- */

static tq_status_t keepalive_if_due(tqh_ssh_session_t *s) {
  if (!s->options.keepalive_interval_s || !s->connected) return NULL;
  uint64_t now = tqh_now_ns();
  if (now < s->next_keepalive_ns) return NULL;
  int next_s = 0;
  int rc = libssh2_keepalive_send(s->ssh, &next_s);
  if (rc && rc != LIBSSH2_ERROR_EAGAIN) return tqh__ssh_error(s, rc, "sending a keep-alive");
  if (next_s <= 0) next_s = 1;
  s->next_keepalive_ns = now + (uint64_t)next_s * 1000000000u;
  return NULL;
}

tq_status_t tqh_ssh_keepalive(tqh_ssh_session_t *session) {
  return tqh__ssh_ready(session);
}

tq_status_t tqh__ssh_ready(tqh_ssh_session_t *s) {
  if (!s->connected || !s->ssh) {
    return TQ_STATUS(TQ_UNAVAILABLE,
                     "not connected to %s (the connection was lost; reconnect first)", s->target);
  }
  return keepalive_if_due(s);
}

tq_status_t tqh__ssh_wait(tqh_ssh_session_t *s, uint64_t deadline_ns) {
  int dir = libssh2_session_block_directions(s->ssh);
  struct pollfd pfd = {.fd = s->sock, .events = 0};
  if (dir & LIBSSH2_SESSION_BLOCK_INBOUND) pfd.events |= POLLIN;
  if (dir & LIBSSH2_SESSION_BLOCK_OUTBOUND) pfd.events |= POLLOUT;
  if (!pfd.events) pfd.events = POLLIN;

  uint64_t now = tqh_now_ns();
  uint64_t until = deadline_ns;
  if (s->options.keepalive_interval_s && s->next_keepalive_ns < until) until = s->next_keepalive_ns;
  int timeout_ms = 0;
  if (until > now) {
    uint64_t ms = (until - now + 999999u) / 1000000u;
    timeout_ms = ms > 1000 ? 1000 : (int)ms; /* wake now and then: deadlines are re-checked */
  }
  /* Acknowledge what comes at once: sshd does not set TCP_NODELAY on a channel without a
   * terminal, so its second small packet of a reply (stderr after stdout, the exit status) waits
   * for our ACK of the first, which the kernel would delay by up to 40 ms. The option does not
   * stay set, hence before every wait. */
  int one = 1;
  (void)setsockopt(s->sock, IPPROTO_TCP, TCP_QUICKACK, &one, sizeof(one));
  int rc = poll(&pfd, 1, timeout_ms);
  if (rc < 0 && errno != EINTR) {
    s->connected = 0;
    return TQ_STATUS(TQ_UNAVAILABLE, "waiting for %s: poll: %s", s->target, strerror(errno));
  }
  return keepalive_if_due(s);
}

/* ---- Connecting ----------------------------------------------------------------------------- */

static pthread_once_t g_libssh2_once = PTHREAD_ONCE_INIT;
static int g_libssh2_init_rc;
static void libssh2_init_once(void) {
  g_libssh2_init_rc = libssh2_init(0);
}

/* Connects a TCP socket to host:port within the deadline, trying every address in turn. */
static tq_status_t tcp_connect(tqh_ssh_session_t *s, uint64_t deadline, int *out_fd) {
  *out_fd = -1;
  char port[16];
  snprintf(port, sizeof(port), "%u", s->options.port);
  struct addrinfo hints, *res = NULL;
  memset(&hints, 0, sizeof(hints));
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  int gai = getaddrinfo(s->host, port, &hints, &res);
  if (gai) {
    return TQ_STATUS(TQ_UNAVAILABLE, "cannot resolve board host '%s': %s", s->host,
                     gai_strerror(gai));
  }
  int last_err = 0;
  for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
    int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
    if (fd < 0) {
      last_err = errno;
      continue;
    }
    int rc = connect(fd, ai->ai_addr, ai->ai_addrlen);
    if (rc != 0 && errno == EINPROGRESS) {
      for (;;) {
        uint64_t now = tqh_now_ns();
        if (now >= deadline) {
          errno = ETIMEDOUT;
          break;
        }
        uint64_t left = (deadline - now) / 1000000u;
        struct pollfd pfd = {.fd = fd, .events = POLLOUT};
        int pr = poll(&pfd, 1, left > 1000 ? 1000 : (int)left + 1);
        if (pr < 0 && errno == EINTR) continue;
        if (pr > 0) {
          int err = 0;
          socklen_t len = sizeof(err);
          getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
          rc = err ? -1 : 0;
          errno = err;
          break;
        }
      }
    }
    if (rc == 0) {
      int one = 1;
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
      if (s->options.keepalive_interval_s) {
        /* A board that vanishes without a word (power, cable) leaves our keep-alives
         * unacknowledged: the kernel then fails the connection instead of retrying for many
         * minutes. */
        unsigned user_timeout = s->options.keepalive_interval_s * 4000u;
        if (user_timeout < 20000u) user_timeout = 20000u;
        setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
        setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &user_timeout, sizeof(user_timeout));
      }
      freeaddrinfo(res);
      *out_fd = fd;
      return NULL;
    }
    last_err = errno;
    close(fd);
  }
  freeaddrinfo(res);
  if (last_err == ETIMEDOUT) {
    return TQ_STATUS(TQ_UNAVAILABLE, "connecting to %s timed out after %u ms", s->target,
                     s->options.connect_timeout_ms);
  }
  return TQ_STATUS(TQ_UNAVAILABLE, "cannot connect to %s: %s", s->target,
                   last_err ? strerror(last_err) : "no address");
}

/* Tries one key file; *out_ok = 1 when the server accepted it. Only the file name goes into
 * messages, never the key or its passphrase. */
static tq_status_t auth_key_file(tqh_ssh_session_t *s, const char *priv, int explicit_choice,
                                 int *out_ok, tq_buf_t *tried) {
  *out_ok = 0;
  char *pub = tq_malloc(strlen(priv) + 5);
  if (!pub) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  sprintf(pub, "%s.pub", priv);
  int rc = libssh2_userauth_publickey_fromfile_ex(s->ssh, s->user, (unsigned)strlen(s->user),
                                                  file_exists(pub) ? pub : NULL, priv,
                                                  s->key_passphrase ? s->key_passphrase : "");
  tq_free(pub);
  if (rc == 0) {
    *out_ok = 1;
    return NULL;
  }
  if (rc == LIBSSH2_ERROR_FILE) {
    if (explicit_choice) {
      return TQ_STATUS(TQ_INVALID_ARGUMENT,
                       "cannot use the key file %s for %s: it is not a private key libssh2 can "
                       "read, or its passphrase is wrong or missing",
                       priv, s->target);
    }
    return tq_buf_printf(tried, "%s%s (unreadable or encrypted)", tried->len ? ", " : "", priv);
  }
  if (rc == LIBSSH2_ERROR_AUTHENTICATION_FAILED || rc == LIBSSH2_ERROR_PUBLICKEY_UNVERIFIED) {
    return tq_buf_printf(tried, "%s%s (refused)", tried->len ? ", " : "", priv);
  }
  return tqh__ssh_error(s, rc, "authenticating with %s", priv);
}

static tq_status_t auth_agent(tqh_ssh_session_t *s, int *out_ok, tq_buf_t *tried) {
  *out_ok = 0;
  const char *sock = getenv("SSH_AUTH_SOCK");
  if (!sock || !*sock) return NULL;
  LIBSSH2_AGENT *agent = libssh2_agent_init(s->ssh);
  if (!agent) return NULL;
  unsigned count = 0;
  if (libssh2_agent_connect(agent) == 0 && libssh2_agent_list_identities(agent) == 0) {
    struct libssh2_agent_publickey *id = NULL, *prev = NULL;
    while (libssh2_agent_get_identity(agent, &id, prev) == 0) {
      count++;
      if (libssh2_agent_userauth(agent, s->user, id) == 0) {
        *out_ok = 1;
        break;
      }
      if (is_connection_error(libssh2_session_last_errno(s->ssh))) break;
      prev = id;
    }
    libssh2_agent_disconnect(agent);
  }
  libssh2_agent_free(agent);
  if (*out_ok) return NULL;
  return tq_buf_printf(tried, "%sssh-agent (%u key%s refused)", tried->len ? ", " : "", count,
                       count == 1 ? "" : "s");
}

static tq_status_t authenticate(tqh_ssh_session_t *s) {
  char *methods = libssh2_userauth_list(s->ssh, s->user, (unsigned)strlen(s->user));
  if (!methods) {
    if (libssh2_userauth_authenticated(s->ssh)) return NULL;
    return tqh__ssh_error(s, 0, "asking how %s may log in", s->user);
  }
  if (!strstr(methods, "publickey")) {
    return TQ_STATUS(TQ_FAILED_PRECONDITION,
                     "%s does not accept public-key authentication (it offers: %s); enable "
                     "PubkeyAuthentication on the board",
                     s->target, methods);
  }
  tq_buf_t tried;
  tq_buf_init(&tried, 0);
  int ok = 0;
  tq_status_t st = NULL;
  if (s->key_file) {
    st = auth_key_file(s, s->key_file, 1, &ok, &tried);
  } else {
    if (s->options.use_agent) st = auth_agent(s, &ok, &tried);
    const char *home = home_dir();
    static const char *const names[] = {".ssh/id_ed25519", ".ssh/id_ecdsa", ".ssh/id_rsa"};
    for (size_t i = 0; !st && !ok && home && i < sizeof(names) / sizeof(names[0]); i++) {
      char *path = path_join(home, names[i]);
      if (!path) {
        st = TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
        break;
      }
      if (file_exists(path)) st = auth_key_file(s, path, 0, &ok, &tried);
      tq_free(path);
    }
  }
  if (!st && !ok) {
    if (!tried.len) {
      st = TQ_STATUS(TQ_FAILED_PRECONDITION,
                     "no key to log in to %s with: no ssh-agent ($SSH_AUTH_SOCK) and none of "
                     "~/.ssh/id_ed25519, id_ecdsa, id_rsa exists; create one with ssh-keygen or "
                     "name a key file",
                     s->target);
    } else {
      st = TQ_STATUS(TQ_FAILED_PRECONDITION,
                     "authentication as '%s' to %s failed: the board accepted no key (tried: %s); "
                     "add the public key to ~%s/.ssh/authorized_keys on the board, or choose "
                     "another key",
                     s->user, s->target, tried.data, s->user);
    }
  }
  tq_buf_deinit(&tried);
  return st;
}

/* Drops the connection; `polite` sends the SSH disconnect message first. */
static void teardown(tqh_ssh_session_t *s, int polite) {
  if (s->ssh) {
    if (polite && s->connected) {
      libssh2_session_set_blocking(s->ssh, 1);
      libssh2_session_set_timeout(s->ssh, 2000);
      tqh__ssh_sftp_close(s);
      libssh2_session_disconnect(s->ssh, "torq-bench: done");
    } else {
      /* Nothing more goes out on this connection: the session's last words (channel close
       * messages while freeing) would go nowhere or, after a fork, into the parent's
       * connection. Writes to /dev/null as a socket fail at once, and libssh2 frees anyway. */
      int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
      if (devnull >= 0 && s->sock >= 0) dup2(devnull, s->sock);
      if (devnull >= 0) close(devnull);
      libssh2_session_set_blocking(s->ssh, 0);
      tqh__ssh_sftp_close(s);
    }
    libssh2_session_free(s->ssh); /* and with it every channel */
    s->ssh = NULL;
    s->sftp = NULL;
    s->generation++;
  }
  if (s->sock >= 0) close(s->sock);
  s->sock = -1;
  s->connected = 0;
}

static tq_status_t connect_once(tqh_ssh_session_t *s) {
  pthread_once(&g_libssh2_once, libssh2_init_once);
  if (g_libssh2_init_rc)
    return TQ_STATUS(TQ_INTERNAL, "libssh2_init failed (%d)", g_libssh2_init_rc);
  uint64_t deadline = tqh__ssh_deadline(s->options.connect_timeout_ms);
  TQ_TRY(tcp_connect(s, deadline, &s->sock));
  s->ssh = libssh2_session_init();
  if (!s->ssh) {
    teardown(s, 0);
    return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory (libssh2 session)");
  }
  libssh2_session_set_blocking(s->ssh, 1);
  libssh2_session_set_timeout(s->ssh, (long)s->options.connect_timeout_ms);
  tq_status_t st = tqh__ssh_prefer_known_key_types(s);
  if (!st) {
    int rc = libssh2_session_handshake(s->ssh, s->sock);
    if (rc) {
      st = tqh__ssh_error(s, rc, "SSH handshake");
      if (tq_status_code(st) != TQ_OUT_OF_MEMORY && tq_status_code(st) != TQ_UNAVAILABLE) {
        tq_status_t wrapped = TQ_STATUS(TQ_UNAVAILABLE, "%s", tq_status_message(st));
        tq_status_free(st);
        st = wrapped;
      }
    }
  }
  if (!st) s->connected = 1; /* errors below may mark it 0 again */
  if (!st) st = tqh__ssh_check_host_key(s);
  if (!st) st = authenticate(s);
  if (st || !s->connected) {
    if (!st)
      st = TQ_STATUS(TQ_UNAVAILABLE, "the connection to %s was lost while logging in", s->target);
    teardown(s, 0);
    return st;
  }
  if (s->options.keepalive_interval_s) {
    libssh2_keepalive_config(s->ssh, 1, s->options.keepalive_interval_s);
  }
  s->next_keepalive_ns = tqh_now_ns() + (uint64_t)s->options.keepalive_interval_s * 1000000000u;
  libssh2_session_set_timeout(s->ssh, (long)s->options.io_timeout_ms);
  return NULL;
}

static void session_free(tqh_ssh_session_t *s) {
  tq_free(s->host);
  tq_free(s->user);
  tq_free(s->key_file);
  if (s->key_passphrase) {
    /* A passphrase does not outlive the session in memory. */
    volatile char *p = s->key_passphrase;
    while (*p) *p++ = 0;
  }
  tq_free(s->key_passphrase);
  tq_free(s->known_hosts);
  tq_free(s->target);
  tq_free(s);
}

tq_status_t tqh_ssh_connect(const tqh_ssh_options_t *options, tqh_ssh_session_t **out_session) {
  *out_session = NULL;
  if (!options || !options->host || !*options->host) {
    return TQ_STATUS(TQ_INVALID_ARGUMENT, "no board host given");
  }
  if (options->port == 0 || options->port > 65535) {
    return TQ_STATUS(TQ_INVALID_ARGUMENT, "board port %u is not a TCP port (1-65535)",
                     options->port);
  }
  tqh_ssh_session_t *s = tq_calloc(1, sizeof(*s));
  if (!s) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  s->sock = -1;
  s->options = *options;
  int ok = 1;
  s->host = dup_or_null(options->host, &ok);
  const char *user = options->user;
  struct passwd *pw = NULL;
  if (!user || !*user) user = getenv("USER");
  if (!user || !*user) {
    pw = getpwuid(getuid());
    user = pw ? pw->pw_name : NULL;
  }
  if (!user) {
    session_free(s);
    return TQ_STATUS(TQ_INVALID_ARGUMENT, "no board user given and none known for uid %u",
                     (unsigned)getuid());
  }
  s->user = dup_or_null(user, &ok);
  s->key_file =
      dup_or_null(options->key_file && *options->key_file ? options->key_file : NULL, &ok);
  s->key_passphrase = dup_or_null(options->key_passphrase, &ok);
  if (options->known_hosts && *options->known_hosts) {
    s->known_hosts = dup_or_null(options->known_hosts, &ok);
  } else {
    const char *home = home_dir();
    if (!home) {
      session_free(s);
      return TQ_STATUS(TQ_INVALID_ARGUMENT,
                       "no known_hosts file given and no home folder to find ~/.ssh/known_hosts");
    }
    s->known_hosts = path_join(home, ".ssh/known_hosts");
    if (!s->known_hosts) ok = 0;
  }
  if (ok) {
    size_t n = strlen(s->user) + strlen(s->host) + 16;
    s->target = tq_malloc(n);
    if (s->target)
      snprintf(s->target, n, "%s@%s:%u", s->user, s->host, options->port);
    else
      ok = 0;
  }
  if (!ok) {
    session_free(s);
    return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  }
  s->options.host = s->host;
  s->options.user = s->user;
  s->options.key_file = s->key_file;
  s->options.key_passphrase = s->key_passphrase;
  s->options.known_hosts = s->known_hosts;
  if (s->key_file && access(s->key_file, R_OK) != 0) {
    tq_status_t st = TQ_STATUS(TQ_INVALID_ARGUMENT, "cannot read the key file %s: %s", s->key_file,
                               strerror(errno));
    session_free(s);
    return st;
  }
  tq_status_t st = connect_once(s);
  if (st) {
    session_free(s);
    return st;
  }
  *out_session = s;
  return NULL;
}

tq_status_t tqh_ssh_reconnect(tqh_ssh_session_t *s) {
  teardown(s, s->connected);
  uint32_t wait_ms = s->options.reconnect_backoff_ms;
  uint32_t max_wait = wait_ms * 10;
  unsigned attempts = s->options.reconnect_attempts ? s->options.reconnect_attempts : 1;
  tq_status_t last = NULL;
  for (unsigned i = 0; i < attempts; i++) {
    if (i > 0) {
      sleep_ms(wait_ms);
      wait_ms = wait_ms * 2 > max_wait ? max_wait : wait_ms * 2;
    }
    tq_status_free(last);
    last = connect_once(s);
    if (!last) return NULL;
    /* A host key or an authentication problem will not go away by itself. */
    if (tq_status_code(last) != TQ_UNAVAILABLE) return last;
  }
  tq_status_t st =
      TQ_STATUS(TQ_UNAVAILABLE, "could not reconnect to %s after %u attempt%s: %s", s->target,
                attempts, attempts == 1 ? "" : "s", tq_status_message(last));
  tq_status_free(last);
  return st;
}

int tqh_ssh_is_connected(const tqh_ssh_session_t *session) {
  return session && session->connected && session->ssh;
}

const char *tqh_ssh_session_target(const tqh_ssh_session_t *session) {
  return session->target;
}

void tqh_ssh_disconnect(tqh_ssh_session_t *session) {
  if (!session) return;
  teardown(session, 1);
  session_free(session);
}

void tqh_ssh_session_abandon(tqh_ssh_session_t *session) {
  if (!session) return;
  teardown(session, 0);
  session_free(session);
}
