/* Boards: Torq NPU boards reached over SSH (DESIGN section 6), on top of the transport (ssh.h).
 *
 * A board connection (tqh_board_conn_t) is one SSH session plus what the harness keeps on the
 * board, all under the board root (default /home/root/iree-build-soc):
 *
 *     <board_root>/.torq-lease                    the lease: who holds the board, until when
 *     <board_root>/<username>/torq-run-module     the runtime (--update-astra-runtime)
 *     <board_root>/<username>/cache/<sha256>.vmfb models and inputs (.npy), by content hash
 *     <board_root>/<username>/work/<run>/<test>/  one work folder per test (outputs, profile)
 *
 * <username> is the local user running the harness, so that people sharing a board never
 * overwrite each other's runtime.
 *
 * Lease. A board is held by a one-line file, "<owner> expiry=<epoch seconds>", where the owner is
 * "user=U host=H pid=P run=R" (the runner's identity). Every change to it (acquire, renew, take
 * over, release) runs on the board as one small shell script, under a mutex made with mkdir
 * (atomic on every POSIX file system), and compares expiry with the BOARD's clock, so that the
 * runners' clocks need not agree. A lease is free when the file is missing, when it names the
 * same owner (a worker of the same run, restarted), or when it expired; then it is taken (and a
 * takeover is logged with the previous owner). Otherwise acquire polls until lease_wait_s.
 * tqh_board_lease_keep renews it every lease_renew_s, and before a step that may last `need_s`
 * it extends the expiry to cover the step, so a killed run holds a board at most
 * (longest step + lease_ttl_s) seconds. A lease that expired while the run was busy elsewhere
 * (a long compile) and was taken by another runner is waited for again, like a first acquire:
 * the runs then take turns. A mutex left by a process killed inside the (tiny) critical section
 * is broken after 10 s.
 *
 * Errors follow ssh.h: TQ_UNAVAILABLE (the connection; also the lease not obtained in time),
 * TQ_DEADLINE_EXCEEDED (a command's timeout), TQ_FAILED_PRECONDITION (host key,
 * authentication, the runtime missing on the board), TQ_IO, TQ_NOT_FOUND, TQ_INVALID_ARGUMENT.
 * tqh_board_fault_type names the JUnit error type of an infrastructure fault.
 *
 * A connection belongs to the process that made it; a forked child must not use it (ssh.h).
 *
 * The board component (harness/src/board/) owns boards and SSH: this header, ssh.h (the
 * transport) and shell_quote.h.
 */
#ifndef TORQ_HARNESS_BOARD_H
#define TORQ_HARNESS_BOARD_H

#include <stddef.h>
#include <stdint.h>

#include "torq/base/status.h"
#include "torq/base/str.h"
#include "torq/harness/results.h"
#include "torq/harness/runner.h"
#include "torq/harness/ssh.h"
#include "torq/harness/suite.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TQH_BOARD_ROOT_DEFAULT "/home/root/iree-build-soc"
#define TQH_BOARD_LEASE_NAME ".torq-lease"
#define TQH_BOARD_RUNTIME_NAME "torq-run-module"

/* ---- Addresses ------------------------------------------------------------------------------ */

/* "user@host:port" split up. host may be an IPv6 address in brackets ("[::1]:2222"). */
typedef struct tqh_board_addr_s {
  char user[128]; /* "" when not given */
  char host[256];
  unsigned port; /* 0 when not given */
} tqh_board_addr_t;

/* Parses "host", "user@host", "host:port", "user@host:port" or "user@[v6]:port".
 * Errors: TQ_INVALID_ARGUMENT saying what is wrong (an empty host, a port that is not 1..65535,
 * a name too long). */
tq_status_t tqh_board_addr_parse(const char *text, tqh_board_addr_t *out_addr) TQ_MUST_USE;

/* ---- What a run needs to know about a board ------------------------------------------------- */

typedef struct tqh_board_spec_s {
  const char *name;       /* for messages and results: "astra1", "root@127.0.0.1:2222" */
  tqh_ssh_options_t ssh;  /* host, port, user, key_file, known_hosts ... (strings borrowed) */
  const char *board_root; /* NULL: TQH_BOARD_ROOT_DEFAULT */
} tqh_board_spec_t;

/* A line for the user: level 0 details (shown with -v), level 1 notes (always shown). */
typedef void (*tqh_board_log_fn)(void *ctx, int level, const char *line);

typedef struct tqh_board_options_s {
  const char *local_user;   /* the <username> folder; NULL: $USER, else the password database */
  const char *runtime_path; /* the local torq-run-module, for update_runtime */
  int update_runtime;       /* copy the runtime when its SHA-256 differs from the board's */
  double lease_ttl_s;       /* lease lifetime without renewal; default 60 (at least 1) */
  double lease_renew_s;     /* renew after this long; default 10 */
  double lease_wait_s;      /* wait this long for a lease someone else holds; default 600 */
  const char *lease_owner;  /* "user=U host=H pid=P run=R"; NULL: made from this process */
  int no_agent;             /* tqh_board_run without the resident agent: an exec per call */
  tqh_board_log_fn log;     /* may be NULL */
  void *log_ctx;
} tqh_board_options_t;

void tqh_board_options_initialize(tqh_board_options_t *options);

/* ---- Connections ---------------------------------------------------------------------------- */

typedef struct tqh_board_conn_s tqh_board_conn_t;

/* Connects to the board and makes <board_root>/<username>/cache. `spec` and `options` are copied
 * (their strings too). On success the caller owns *out_conn (tqh_board_disconnect). Errors: those
 * of tqh_ssh_connect, annotated with the board's name and what to check. */
tq_status_t tqh_board_connect(const tqh_board_spec_t *spec, const tqh_board_options_t *options,
                              tqh_board_conn_t **out_conn) TQ_MUST_USE;

/* Runs argv (the runtime and its options) in the folder `work` on the board, made first, after
 * removing the folder `prev` (NULL or "": none), with options' timeout_ms and output_limit, and
 * fills `out` as tqh_ssh_exec does: exit status 125 when `work` cannot be made, 126/127 when argv
 * cannot be started, 128 + N (or `signal`) when signal N killed it. Through the board's resident
 * agent (board_agent.c: started on the connection's first call, one framed request per call on
 * its kept channel), else (no_agent, or an argument with a newline) one exec of its own.
 * Errors: TQ_DEADLINE_EXCEEDED (killed at the timeout; `out` holds what it wrote), TQ_UNAVAILABLE
 * (the connection was lost, or the agent ended during the call: the next call starts a new one),
 * TQ_INVALID_ARGUMENT, TQ_OUT_OF_MEMORY. */
tq_status_t tqh_board_run(tqh_board_conn_t *conn, const char *prev, const char *work,
                          const char *const argv[], const tqh_exec_options_t *options,
                          tqh_exec_result_t *out) TQ_MUST_USE;

/* How many agents tqh_board_run started on this connection so far (for logs and tests). */
unsigned tqh_board_agents_started(const tqh_board_conn_t *conn);

/* Closes the session (a held lease is NOT released: call tqh_board_lease_release first) and frees
 * the connection. Accepts NULL. */
void tqh_board_disconnect(tqh_board_conn_t *conn);

/* Connects again after a connection error (ssh.h: tqh_ssh_reconnect, with its back-off). */
tq_status_t tqh_board_reconnect(tqh_board_conn_t *conn) TQ_MUST_USE;

int tqh_board_is_connected(const tqh_board_conn_t *conn);

/* Borrowed, live as long as the connection. */
tqh_ssh_session_t *tqh_board_session(tqh_board_conn_t *conn);
const char *tqh_board_user_dir(const tqh_board_conn_t *conn); /* <board_root>/<username> */
const char *tqh_board_runtime(const tqh_board_conn_t *conn);  /* .../torq-run-module */

/* Logs through the options' log function ("<board>: <text>"). */
void tqh_board_log(const tqh_board_conn_t *conn, int level, const char *fmt, ...) TQ_PRINTF(3, 4);

/* ---- Runtime sync (board_sync.c) ------------------------------------------------------------ */

/* Makes <board_root>/<username>/torq-run-module the local options->runtime_path: compares the
 * SHA-256 of both (`sha256sum` on the board) and, when they differ or the board has none,
 * uploads it to a temporary name, makes it executable and renames it into place (atomic: a
 * runner using the old one never sees a torn file). Logs "runtime up to date" or "runtime
 * uploaded (N bytes)". *out_uploaded (may be NULL) says which. */
tq_status_t tqh_board_sync_runtime(tqh_board_conn_t *conn, int *out_uploaded) TQ_MUST_USE;

/* The local runtime that tqh_board_sync_runtime copies from now on (an external toolchain's
 * torq-run-module); borrowed. NULL keeps the options' runtime_path. */
void tqh_board_set_runtime_path(tqh_board_conn_t *conn, const char *path);
/* The local runtime tqh_board_sync_runtime copies. */
const char *tqh_board_runtime_path(const tqh_board_conn_t *conn);

/* Checks that the board has an executable runtime at tqh_board_runtime(); TQ_FAILED_PRECONDITION
 * naming the path and --update-astra-runtime when not. */
tq_status_t tqh_board_check_runtime(tqh_board_conn_t *conn) TQ_MUST_USE;

/* ---- Leases (board_lease.c) ----------------------------------------------------------------- */

/* Takes the board's lease, waiting up to options.lease_wait_s while someone else holds it (logging
 * who, once), taking over an expired one. OK at once when already held. Errors: TQ_UNAVAILABLE
 * (still held by another after the wait: the message names the holder and the expiry; or the
 * connection), TQ_IO (the lease file cannot be written). */
tq_status_t tqh_board_lease_acquire(tqh_board_conn_t *conn) TQ_MUST_USE;

/* Renews the held lease when lease_renew_s has passed, or when it would expire within `need_s`
 * (plus the renewal period): its expiry becomes now + need_s + ttl. When it had expired and
 * another runner holds it now, waits for it as tqh_board_lease_acquire does. Does nothing when
 * no lease is held. TQ_UNAVAILABLE when the wait gives up. */
tq_status_t tqh_board_lease_keep(tqh_board_conn_t *conn, double need_s) TQ_MUST_USE;

/* For an idle connection: renews the held lease when lease_renew_s has passed, never waiting;
 * when it expired and another runner holds it now, forgets it (the next tqh_board_lease_keep or
 * acquire waits for it). */
tq_status_t tqh_board_lease_touch(tqh_board_conn_t *conn) TQ_MUST_USE;

/* Removes the lease file if this runner holds it. */
tq_status_t tqh_board_lease_release(tqh_board_conn_t *conn) TQ_MUST_USE;

/* Removes the lease file if it names this connection's lease_owner, whether or not this
 * connection took it: for the process that cleans up after a worker killed while it held the
 * lease (same owner text: the runner's pid and run). Errors as tqh_board_lease_release. */
tq_status_t tqh_board_lease_give_back(tqh_board_conn_t *conn) TQ_MUST_USE;

int tqh_board_lease_held(const tqh_board_conn_t *conn);

/* The lease text "user=U host=H pid=P run=R" for this process and `run_id` (heap; tq_free). */
char *tqh_board_lease_owner(const char *run_id);

/* ---- Files by content ----------------------------------------------------------------------- */

/* Puts the local file on the board as <board_root>/<username>/cache/<sha256><ext> unless it is
 * there already (remembered per connection; else asked with a stat), uploading to a temporary
 * name and renaming. `what` ("model", "input") is for the log: "model cached on board" or "model
 * uploaded (N bytes)". *out_remote (heap, tq_free) is the remote path; *out_uploaded (may be
 * NULL) says whether bytes were sent. */
tq_status_t tqh_board_put_cached(tqh_board_conn_t *conn, const char *local_path, const char *ext,
                                 const char *what, char **out_remote,
                                 int *out_uploaded) TQ_MUST_USE;

/* ---- Failures ------------------------------------------------------------------------------- */

/* 1 when `text` (an error message or a command's stderr) says the board's disk is full
 * (ENOSPC: "No space left on device", "Disk quota exceeded"). */
int tqh_board_text_says_disk_full(const char *text);

/* The last non-empty line of `text` (a command's stderr; NULL: none) into `out`, truncated to
 * `size` bytes: what a failure message quotes of a remote command. */
void tqh_board_last_line(const char *text, char *out, size_t size);

/* The JUnit error type of an infrastructure fault:
 *   infra_disk_full   no space left on the board
 *   infra_timeout     a remote command ran past its timeout (TQ_DEADLINE_EXCEEDED)
 *   infra_host_key    an unknown or changed host key
 *   infra_auth        authentication refused, an unusable key
 *   infra_lease       the lease was not obtained in time, or was lost
 *   infra_setup       the board lacks what a run needs (the runtime, writable folders)
 *   infra_connection  the connection was refused, lost or timed out; anything else
 * Never NULL. */
const char *tqh_board_fault_type(const struct tq_status_s *status);

/* 1 when a fault of this type may go away by reconnecting (connection, timeout, disk full); 0
 * when retrying cannot help (host key, authentication, setup). */
int tqh_board_fault_is_transient(const char *fault_type);

/* ---- The runner on boards ------------------------------------------------------------------- */

typedef struct tqh_runner_boards_s {
  const tqh_board_spec_t *boards; /* borrowed; `count` of them, unique names */
  size_t count;
  int all_tests; /* 1: every test runs on these boards, a pool (--torq-runtime-hw-type=
                  * astra_machina), whatever its target; 0: tests whose target names a board run
                  * on it, the others ("sim") on the simulator */
  tqh_board_options_t options; /* log, log_ctx and lease_owner are set by the runner */
} tqh_runner_boards_t;

/* tqh_runner_run with boards: one worker per board, each with its own SSH session for the whole
 * run (made in the worker, after the fork), its lease and its runtime check or sync; tests are
 * handed out as boards free up. A test that hit an infrastructure fault (tqh_board_fault_type) is
 * retried once, on the same board after a reconnect or on another one of the pool; a board that
 * cannot be reached again is dropped, and the tests left for it end as errors of type
 * infra_board_down when no other board can run them. Product failures (wrong outputs, the
 * runtime's errors) are never retried. `boards` may be NULL (the simulator only, as
 * tqh_runner_run). Errors: those of tqh_runner_run; TQ_INVALID_ARGUMENT for a test whose target
 * is neither "sim" nor a board of `boards`. */
tq_status_t tqh_runner_run_boards(const tqh_runner_options_t *options,
                                  const tqh_runner_boards_t *boards, const tqh_test_t *const *tests,
                                  size_t num_tests, tqh_results_t *results,
                                  tqh_runner_summary_t *out_summary) TQ_MUST_USE;

#ifdef __cplusplus
}
#endif
#endif
