/* Private to the board component: the SSH transport's session (ssh.h), shared by ssh.c,
 * ssh_known_hosts.c, ssh_exec.c and ssh_sftp.c, and the board connection (board.h), shared by
 * board.c, board_sync.c and board_lease.c. */
#ifndef TORQ_HARNESS_SRC_BOARD_INTERNAL_H
#define TORQ_HARNESS_SRC_BOARD_INTERNAL_H

#include <libssh2.h>
#include <libssh2_sftp.h>
#include <stddef.h>
#include <stdint.h>

#include "torq/base/sha256.h"
#include "torq/base/status.h"
#include "torq/harness/board.h"
#include "torq/harness/ssh.h"

/* ---- The SSH transport (ssh*.c) ------------------------------------------------------------- */

struct tqh_ssh_session_s {
  tqh_ssh_options_t options; /* strings point into the owned copies below */
  char *host;
  char *user;
  char *key_file;
  char *key_passphrase;
  char *known_hosts;
  char *target; /* "user@host:port" */
  int sock;     /* -1 when disconnected */
  LIBSSH2_SESSION *ssh;
  LIBSSH2_SFTP *sftp; /* opened on first use */
  int connected;
  unsigned generation;        /* counts connections: a kept channel of an older one is gone */
  uint64_t next_keepalive_ns; /* CLOCK_MONOTONIC */
};

/* The deadline `ms` from now (0 = none: UINT64_MAX). */
uint64_t tqh__ssh_deadline(uint32_t ms);

/* THE conversion of libssh2's errors into statuses: `rc` is what the libssh2 call returned (a
 * LIBSSH2_ERROR_* code; 0 makes it read the session's last error), `what` says what was being
 * done ("uploading x to y"). Connection-level errors mark the session disconnected and become
 * TQ_UNAVAILABLE; SFTP status codes map to NOT_FOUND, IO, UNAVAILABLE (disk full); the message
 * ends with libssh2's own text. */
tq_status_t tqh__ssh_error(tqh_ssh_session_t *s, int rc, const char *what, ...)
    TQ_PRINTF(3, 4) TQ_MUST_USE;

/* TQ_UNAVAILABLE when the session is not connected (after a connection error), else NULL; sends a
 * keep-alive when one is due. Every public operation starts with it. */
tq_status_t tqh__ssh_ready(tqh_ssh_session_t *s) TQ_MUST_USE;

/* Waits (poll) until the socket is ready in the direction libssh2 last blocked on, the deadline
 * passes (returns NULL: the caller checks the time) or a keep-alive is due (sent). Errors:
 * TQ_UNAVAILABLE (poll failed, keep-alive failed). */
tq_status_t tqh__ssh_wait(tqh_ssh_session_t *s, uint64_t deadline_ns) TQ_MUST_USE;

/* Verifies the server's host key of the just-handshaken session against the known_hosts file
 * (ssh_known_hosts.c); with accept_new_host_key appends an unknown key. */
tq_status_t tqh__ssh_check_host_key(tqh_ssh_session_t *s) TQ_MUST_USE;

/* Before the handshake: prefers the host key types known_hosts holds for the host (as OpenSSH
 * does), so that a host known by its ed25519 key is not asked for its ECDSA key. */
tq_status_t tqh__ssh_prefer_known_key_types(tqh_ssh_session_t *s) TQ_MUST_USE;

/* Closes the SFTP channel if it is open (on disconnect). */
void tqh__ssh_sftp_close(tqh_ssh_session_t *s);

/* Runs argv on the session in non-blocking mode with the given deadline, for internal requests
 * (mv, kill): like tqh_ssh_exec. */
tq_status_t tqh__ssh_exec_simple(tqh_ssh_session_t *s, const char *const argv[],
                                 uint32_t timeout_ms, tqh_exec_result_t *out) TQ_MUST_USE;

/* ---- The board connection (board*.c) -------------------------------------------------------- */

struct tqh_board_conn_s {
  char *name;
  tqh_ssh_options_t ssh_options; /* its strings point at the owned copies below */
  char *host, *user, *key_file, *known_hosts;
  tqh_board_options_t options; /* its strings point at the owned copies below */
  char *local_user, *runtime_path, *lease_owner;
  char *board_root; /* owned */
  char *user_dir;   /* <board_root>/<username> */
  char *cache_dir;  /* <user_dir>/cache */
  char *runtime;    /* <user_dir>/torq-run-module */
  char *lease_path; /* <board_root>/.torq-lease */
  tqh_ssh_session_t *ssh;

  int leased;
  uint64_t lease_renewed_ns; /* CLOCK_MONOTONIC of the last acquire or renewal */
  uint64_t lease_until_ns;   /* what that renewal bought, on our clock */

  /* Content hashes known to be in the board's cache (so a second test with the same model asks
   * nothing). */
  char (*known)[TQ_SHA256_HEX_SIZE];
  size_t num_known, cap_known;

  /* The resident agent (board_agent.c): its kept channel (NULL: none yet, or it ended) and the
   * key of its reply markers. */
  tqh_ssh_channel_t *agent;
  char agent_key[64];
  unsigned agents_started;
};

/* Ends the agent, if any (before the session goes). */
void tqh__board_agent_stop(tqh_board_conn_t *conn);

/* Runs argv with `timeout_ms` (0: the session's default), output kept in `out` (initialized by
 * the caller). */
tq_status_t tqh__board_exec(tqh_board_conn_t *conn, const char *const *argv, uint32_t timeout_ms,
                            tqh_exec_result_t *out) TQ_MUST_USE;

/* A status for a command that ran but failed: its exit status and the last line of its stderr
 * (TQ_IO, or TQ_UNAVAILABLE when that line says the disk is full). */
tq_status_t tqh__board_command_failed(const tqh_board_conn_t *conn, const char *what,
                                      const tqh_exec_result_t *res) TQ_MUST_USE;

#endif
