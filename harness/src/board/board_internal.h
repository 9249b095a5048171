/* Private parts of the board connection (board.h), shared by board.c, board_sync.c and
 * board_lease.c. */
#ifndef TORQ_HARNESS_SRC_BOARD_INTERNAL_H
#define TORQ_HARNESS_SRC_BOARD_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "torq/base/sha256.h"
#include "torq/harness/board.h"

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
};


/* Runs argv with `timeout_ms` (0: the session's default), output kept in `out` (initialized by
 * the caller). */
tq_status_t tqh__board_exec(tqh_board_conn_t *conn, const char *const *argv, uint32_t timeout_ms,
                            tqh_exec_result_t *out) TQ_MUST_USE;

/* A status for a command that ran but failed: its exit status and the last line of its stderr
 * (TQ_IO, or TQ_UNAVAILABLE when that line says the disk is full). */
tq_status_t tqh__board_command_failed(const tqh_board_conn_t *conn, const char *what,
                                      const tqh_exec_result_t *res) TQ_MUST_USE;

#endif
