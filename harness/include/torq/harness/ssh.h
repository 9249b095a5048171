/* The board transport: one SSH session per board (libssh2), with remote commands over exec
 * channels, files over SFTP, host-key verification, keep-alive and reconnection (DESIGN section 6).
 *
 * Defaults follow OpenSSH, so that a user's existing set-up just works: the user from $USER (else
 * the password database), keys from ssh-agent, then ~/.ssh/id_ed25519, id_ecdsa, id_rsa; host keys
 * from ~/.ssh/known_hosts, including `[host]:port` entries and hashed entries.
 *
 * Host keys: known_hosts is read as OpenSSH reads it (patterns, hashed names, several keys per
 * host, markers). An unknown key stops the connection unless `accept_new_host_key` is set (then it
 * is appended to the known_hosts file, like OpenSSH's StrictHostKeyChecking=accept-new); a changed
 * key, a key marked `@revoked`, and a host known only through `@cert-authority` (host
 * certificates cannot be checked) always stop it. The message names the host, the key type, the
 * SHA256 fingerprint, the known_hosts line that decided and what to do.
 *
 * Remote commands are built ONLY from arguments quoted with tqh_shell_quote (shell_quote.h): the
 * caller passes an argv, never a command line. A command that needs shell syntax (a pipe, a
 * redirection) passes a CONSTANT script and its data as arguments:
 *     {"sh", "-c", "sha256sum -- \"$1\" | cut -d' ' -f1", "sh", path, NULL}
 * The remote login shell must be a POSIX shell (sh, bash, dash, busybox ash).
 *
 * Every command runs through a small wrapper that reports its PID and process group first, so a
 * command that outlives its timeout is killed on the board (SIGKILL to its process group, which is
 * the session sshd made for the channel, then to its PID) over a second channel. A process that
 * leaves that group on purpose (setsid, nohup into a new session) is not reached.
 *
 * Errors (tq_status_t codes):
 *   TQ_UNAVAILABLE        infrastructure: connection refused, lost or timed out, DNS failure, an
 *                         SFTP transfer that stalls past the I/O timeout, no space left on the
 *                         board. After a connection error tqh_ssh_is_connected() is 0 and every
 *                         further call fails with TQ_UNAVAILABLE until tqh_ssh_reconnect().
 *   TQ_DEADLINE_EXCEEDED  a remote command ran past its timeout (it was killed; the session stays
 *                         usable).
 *   TQ_FAILED_PRECONDITION an unknown, changed or revoked host key; authentication refused (no key the
 *                         server accepts); an exclusive upload onto an existing file.
 *   TQ_INVALID_ARGUMENT   bad options (no host, an unreadable key file, an empty argv), an
 *                         unreadable known_hosts file.
 *   TQ_NOT_FOUND          a remote (SFTP) or local file that does not exist.
 *   TQ_IO                 other local or remote file errors (permission denied, ...).
 *   TQ_LIMIT              a download larger than the caller's limit.
 *   TQ_OUT_OF_MEMORY.
 * A command that runs and exits non-zero is NOT an error of tqh_ssh_exec: the exit status is in
 * the result. Messages never contain key material or passphrases.
 *
 * Threads and processes: a session is used by one thread at a time. It belongs to the process that
 * connected it; a forked child that inherited one must not use or disconnect it (that would speak
 * on the parent's connection): it calls tqh_ssh_session_abandon() or nothing at all, and connects
 * its own session if it needs one.
 *
 * Part of the board component (harness/src/board/README.md).
 */
#ifndef TORQ_HARNESS_SSH_H
#define TORQ_HARNESS_SSH_H

#include <stddef.h>
#include <stdint.h>

#include "torq/base/status.h"
#include "torq/base/str.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Options ---------------------------------------------------------------------------- */

typedef struct tqh_ssh_options_s {
  const char *host;              /* name or address; required */
  unsigned port;                 /* default 22 */
  const char *user;              /* NULL: $USER, else the password database's name for getuid() */
  const char *key_file;          /* private key file; NULL: ssh-agent ($SSH_AUTH_SOCK), then
                                  * ~/.ssh/id_ed25519, id_ecdsa, id_rsa (those that exist). The
                                  * public key is read from KEY_FILE.pub when it exists. */
  const char *key_passphrase;    /* for an encrypted key file; NULL: none. Never logged. */
  int use_agent;                 /* with key_file NULL: try ssh-agent first; default 1 */
  const char *known_hosts;       /* NULL: ~/.ssh/known_hosts */
  int accept_new_host_key;       /* default 0: an unknown host key stops the connection; 1: it is
                                  * accepted and appended to known_hosts. A changed key always
                                  * stops it. */
  uint32_t connect_timeout_ms;   /* TCP connect + key exchange + authentication; default 10000 */
  uint32_t io_timeout_ms;        /* longest wait for the server on one step of an SFTP transfer or
                                  * any other request that is not a command; default 60000 */
  uint32_t keepalive_interval_s; /* SSH keep-alive every N s of idleness (sent from within calls
                                  * and by tqh_ssh_keepalive); 0 = off; default 15 */
  uint32_t command_timeout_ms;   /* default timeout of tqh_ssh_exec; 0 = none; default 600000 */
  unsigned reconnect_attempts;   /* tqh_ssh_reconnect tries this often; default 5 */
  uint32_t reconnect_backoff_ms; /* first wait between attempts, doubled each time, at most
                                  * 10x; default 250 */
} tqh_ssh_options_t;

/* Fills `options` with the defaults above (host NULL). */
void tqh_ssh_options_initialize(tqh_ssh_options_t *options);

/* ---- Sessions --------------------------------------------------------------------------- */

typedef struct tqh_ssh_session_s tqh_ssh_session_t;

/* Connects to options->host: TCP connect (within connect_timeout_ms, every address of the name
 * in turn), SSH handshake, host-key verification, public-key authentication. The options and
 * their strings are copied; the caller keeps ownership of `options`. On success *out_session is
 * a new session owned by the caller (tqh_ssh_disconnect); on error it is NULL.
 * Errors: TQ_INVALID_ARGUMENT (options), TQ_UNAVAILABLE (cannot reach or handshake),
 * TQ_FAILED_PRECONDITION (host key, authentication), TQ_OUT_OF_MEMORY. */
tq_status_t tqh_ssh_connect(const tqh_ssh_options_t *options,
                            tqh_ssh_session_t **out_session) TQ_MUST_USE;

/* Closes the connection politely (SSH disconnect message) and frees the session. Accepts NULL. */
void tqh_ssh_disconnect(tqh_ssh_session_t *session);

/* Frees the session of a process that inherited it over fork() WITHOUT speaking on the
 * connection (the parent keeps using it). Accepts NULL. */
void tqh_ssh_session_abandon(tqh_ssh_session_t *session);

/* Drops the current connection (if any) and connects again with the same options, up to
 * reconnect_attempts times, waiting reconnect_backoff_ms, then twice that, ... between attempts.
 * The host key is verified again (a key that changed meanwhile stops it). The session object
 * stays the same; on failure it stays disconnected (and can be reconnected later).
 * Errors: those of tqh_ssh_connect; TQ_UNAVAILABLE when every attempt failed to reach the
 * server (the message says how many attempts and the last error). */
tq_status_t tqh_ssh_reconnect(tqh_ssh_session_t *session) TQ_MUST_USE;

/* 1 while the connection is up as far as this side knows; 0 after a connection error. */
int tqh_ssh_is_connected(const tqh_ssh_session_t *session);

/* Sends an SSH keep-alive when one is due (keepalive_interval_s), waiting for nothing. Call it
 * while the session is idle for long (every call of this API also does). Errors: TQ_UNAVAILABLE
 * when the connection is gone. */
tq_status_t tqh_ssh_keepalive(tqh_ssh_session_t *session) TQ_MUST_USE;

/* "user@host:port", borrowed, lives as long as the session; for messages. */
const char *tqh_ssh_session_target(const tqh_ssh_session_t *session);

/* ---- Remote commands ---------------------------------------------------------------------- */

typedef struct tqh_exec_options_s {
  const void *stdin_data; /* bytes written to the command's stdin, then EOF; NULL: EOF at once.
                           * Borrowed for the call. */
  size_t stdin_len;
  uint32_t timeout_ms; /* 0: the session's command_timeout_ms (which may be 0 = none) */
  size_t output_limit; /* bytes kept of stdout and of stderr each; the rest is read and
                        * dropped (the *_truncated flags); default 1 MiB */
  const char *cwd;     /* remote working directory; NULL: the login directory */
} tqh_exec_options_t;

void tqh_exec_options_initialize(tqh_exec_options_t *options);

typedef struct tqh_exec_result_s {
  int exit_status;   /* 0..255; -1 when the command was killed by a signal or no status
                      * came (timed out) */
  int signal;        /* the signal that killed it (SIGKILL = 9, ...), 0, or -1 for a
                      * signal the server named that we do not know */
  tq_buf_t out;      /* stdout (NUL-terminated when non-empty; data may be NULL when
                      * nothing came), owned by the result */
  tq_buf_t err;      /* stderr, likewise */
  int out_truncated; /* 1 when stdout passed output_limit */
  int err_truncated;
  int timed_out;        /* 1 when it was killed for the timeout */
  int remote_pid;       /* PID of the command on the board (0 if unknown) */
  uint64_t duration_ns; /* CLOCK_MONOTONIC from opening the channel to its close */
} tqh_exec_result_t;

/* Result lifecycle: _init before use (all empty), _deinit frees the buffers. tqh_ssh_exec clears
 * the result on entry, so one result can be reused. */
void tqh_exec_result_init(tqh_exec_result_t *result);
void tqh_exec_result_deinit(tqh_exec_result_t *result);

/* Runs argv[0] with arguments argv[1..] (a NULL-terminated list, at least one element, each
 * string without NUL) on the board, in the PATH of the remote login shell, every argument quoted
 * (no word splitting, no globbing, no substitution). `options` may be NULL (defaults). Borrowed
 * for the call; `out` (initialized) receives exit status, signal and captured output.
 * Returns OK whenever the command ran to its end, whatever its exit status.
 * Errors: TQ_DEADLINE_EXCEEDED on timeout: the remote command and its process group are killed,
 *         `out` holds what it wrote until then with timed_out = 1, and the session stays usable;
 *         TQ_UNAVAILABLE when the connection fails (the command's fate is unknown);
 *         TQ_INVALID_ARGUMENT (empty argv); TQ_OUT_OF_MEMORY. */
tq_status_t tqh_ssh_exec(tqh_ssh_session_t *session, const char *const argv[],
                         const tqh_exec_options_t *options, tqh_exec_result_t *out) TQ_MUST_USE;

/* ---- Kept channels -------------------------------------------------------------------- */

/* A remote command left running on its own channel of the session (a resident agent, say),
 * started like tqh_ssh_exec (quoted argv, the wrapper and its PID line, which is taken out). */
typedef struct tqh_ssh_channel_s tqh_ssh_channel_t;

/* Starts argv on a new channel of the session. Errors: those of tqh_ssh_exec. */
tq_status_t tqh_ssh_channel_start(tqh_ssh_session_t *session, const char *const argv[],
                                  tqh_ssh_channel_t **out_channel) TQ_MUST_USE;

/* Writes all `len` bytes to the command's stdin, reading its output meanwhile (kept for the next
 * read) while the channel's window is full. Errors: TQ_UNAVAILABLE (connection lost, or the
 * channel belongs to a connection before a reconnect). */
tq_status_t tqh_ssh_channel_write(tqh_ssh_channel_t *channel, const void *data,
                                  size_t len) TQ_MUST_USE;

/* Waits until some output came, the command's output ended (*out_eof = 1) or deadline_ns
 * (CLOCK_MONOTONIC, tqh_now_ns; nothing appended, not an error), and appends what came on stdout
 * and stderr to `out` and `err` (may be the same buffer). Errors: as tqh_ssh_channel_write. */
tq_status_t tqh_ssh_channel_read(tqh_ssh_channel_t *channel, uint64_t deadline_ns, tq_buf_t *out,
                                 tq_buf_t *err, int *out_eof) TQ_MUST_USE;

/* Kills the command's process group on the board (as tqh_ssh_exec's timeout does), over a second
 * channel. Errors: TQ_UNAVAILABLE, TQ_DEADLINE_EXCEEDED (the kill itself hung). */
tq_status_t tqh_ssh_channel_kill(tqh_ssh_channel_t *channel) TQ_MUST_USE;

/* The command's PID on the board (its wrapper line), or 0 before it came. */
long tqh_ssh_channel_pid(const tqh_ssh_channel_t *channel);

/* Ends the channel: EOF on the command's stdin, its end awaited for up to 2 s, and frees it.
 * Returns its exit status (128 + N for signal N), or -1 when it did not end or is unknown (a
 * channel of a lost connection is only freed). Accepts NULL. */
int tqh_ssh_channel_close(tqh_ssh_channel_t *channel);

/* The remote command line tqh_ssh_exec sends for argv and options (the wrapper included),
 * appended to `out`; for logs and tests. Errors: TQ_INVALID_ARGUMENT, TQ_OUT_OF_MEMORY. */
tq_status_t tqh_ssh_command_line(const char *const argv[], const tqh_exec_options_t *options,
                                 tq_buf_t *out) TQ_MUST_USE;

/* ---- Files (SFTP) ------------------------------------------------------------------------- */

/* Upload flags. */
enum {
  TQH_SSH_UPLOAD_EXCLUSIVE = 1u << 0 /* fail with TQ_FAILED_PRECONDITION when remote_path exists
                                      * (O_CREAT|O_EXCL on the board: an atomic "create if
                                      * absent", e.g. for a lease file) */
};

/* Copies the local file to remote_path on the board, creating or truncating it, with permission
 * bits `mode` (e.g. 0644, 0755). The parent folder must exist (tqh_ssh_mkdir_p). Not atomic: to
 * replace a file others may read, upload to a temporary name and tqh_ssh_rename it.
 * Errors: TQ_NOT_FOUND / TQ_IO (local file), TQ_NOT_FOUND (remote folder), TQ_IO,
 * TQ_FAILED_PRECONDITION (EXCLUSIVE and it exists), TQ_UNAVAILABLE. */
tq_status_t tqh_ssh_upload(tqh_ssh_session_t *session, const char *local_path,
                           const char *remote_path, unsigned mode, unsigned flags) TQ_MUST_USE;

/* Like tqh_ssh_upload, from `len` bytes at `data` (borrowed for the call). */
tq_status_t tqh_ssh_upload_buffer(tqh_ssh_session_t *session, const void *data, size_t len,
                                  const char *remote_path, unsigned mode,
                                  unsigned flags) TQ_MUST_USE;

/* Copies remote_path to local_path, atomically on this side (a temporary file beside local_path,
 * then rename; nothing is left behind on error; no fsync, like the results' files: not durable
 * across a power loss). The local folder must exist.
 * Errors: TQ_NOT_FOUND (remote), TQ_IO, TQ_UNAVAILABLE. */
tq_status_t tqh_ssh_download(tqh_ssh_session_t *session, const char *remote_path,
                             const char *local_path) TQ_MUST_USE;

/* Appends the remote file's bytes to `out` (NUL-terminated). A file longer than `limit` bytes
 * (0 = no limit) fails with TQ_LIMIT and leaves `out` as it was. Errors: as tqh_ssh_download. */
tq_status_t tqh_ssh_download_buffer(tqh_ssh_session_t *session, const char *remote_path,
                                    size_t limit, tq_buf_t *out) TQ_MUST_USE;

/* Renames `from` to `to` on the board, replacing `to` atomically when it exists (SFTP's rename,
 * one request, where `to` does not exist; else rename(2) via `mv -f`; both on one file system;
 * `to` must not be a folder).
 * Errors: TQ_NOT_FOUND (from), TQ_IO, TQ_UNAVAILABLE. */
tq_status_t tqh_ssh_rename(tqh_ssh_session_t *session, const char *from,
                           const char *to) TQ_MUST_USE;

/* Creates the folder `path` and its missing parents (mode 0755 before umask); OK when it exists.
 * Errors: TQ_IO (a component is a file, permission), TQ_UNAVAILABLE. */
tq_status_t tqh_ssh_mkdir_p(tqh_ssh_session_t *session, const char *path) TQ_MUST_USE;

/* Removes the file `path` (not a folder); OK when it does not exist.
 * Errors: TQ_IO, TQ_UNAVAILABLE. */
tq_status_t tqh_ssh_unlink(tqh_ssh_session_t *session, const char *path) TQ_MUST_USE;

typedef struct tqh_ssh_stat_s {
  int exists; /* 0: nothing at that path (the other fields are 0) */
  int is_dir;
  int is_regular;
  uint64_t size; /* bytes */
  unsigned mode; /* permission bits (07777) */
  int64_t mtime; /* seconds since the epoch */
} tqh_ssh_stat_t;

/* What is at `path` on the board (following symbolic links). A missing path is OK with
 * exists = 0. Errors: TQ_IO (e.g. permission), TQ_UNAVAILABLE. */
tq_status_t tqh_ssh_stat(tqh_ssh_session_t *session, const char *path,
                         tqh_ssh_stat_t *out_stat) TQ_MUST_USE;

#ifdef __cplusplus
}
#endif
#endif
