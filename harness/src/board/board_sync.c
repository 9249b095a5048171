/* Runtime sync (board.h, --update-astra-runtime): the local torq-run-module goes to
 * <board_root>/<username>/torq-run-module when its SHA-256 differs from the board's copy. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "board_internal.h"
#include "torq/base/alloc.h"

/* The board's sha256 of `path` in `hex` ("" when there is no such file). */
static tq_status_t remote_sha256(tqh_board_conn_t *c, const char *path,
                                 char hex[TQ_SHA256_HEX_SIZE]) {
  hex[0] = 0;
  static const char script[] = "if [ -f \"$1\" ]; then sha256sum -- \"$1\"; fi";
  const char *argv[] = {"sh", "-c", script, "torq-sha256", path, NULL};
  tqh_exec_result_t res;
  tqh_exec_result_init(&res);
  tq_status_t st = tqh__board_exec(c, argv, 60000, &res);
  if (!st && res.exit_status != 0) st = tqh__board_command_failed(c, "sha256sum", &res);
  if (!st && res.out.data) {
    size_t n = strspn(res.out.data, "0123456789abcdef");
    if (n == 64) {
      memcpy(hex, res.out.data, 64);
      hex[64] = 0;
    } else if (res.out.len) {
      st = TQ_STATUS(TQ_IO, "board %s: unexpected output of sha256sum: %.80s", c->name,
                     res.out.data);
    }
  }
  tqh_exec_result_deinit(&res);
  return st;
}

tq_status_t tqh_board_sync_runtime(tqh_board_conn_t *conn, int *out_uploaded) {
  if (out_uploaded) *out_uploaded = 0;
  const char *local = conn->options.runtime_path;
  if (!local) return TQ_STATUS(TQ_INVALID_ARGUMENT, "no local torq-run-module to copy");
  struct stat sb;
  if (stat(local, &sb) != 0)
    return TQ_STATUS(TQ_NOT_FOUND, "%s: %s (build it with make, or give --torq-run-module)", local,
                     strerror(errno));
  uint8_t digest[TQ_SHA256_SIZE];
  char want[TQ_SHA256_HEX_SIZE], have[TQ_SHA256_HEX_SIZE];
  TQ_TRY(tq_sha256_file(local, digest));
  tq_sha256_hex(digest, want);
  tq_status_t st = tqh_ssh_mkdir_p(conn->ssh, conn->user_dir);
  if (!st) st = remote_sha256(conn, conn->runtime, have);
  if (st) return tq_status_annotate(st, "while checking the runtime on board %s", conn->name);
  if (!strcmp(want, have)) {
    tqh_board_log(conn, 1, "runtime up to date (%s)", conn->runtime);
    return NULL;
  }
  /* The lease must outlast the upload: a few seconds, plus a pessimistic 1 MB/s. */
  st = tqh_board_lease_keep(conn, 5 + (double)sb.st_size / 1e6);
  if (st) return st;
  tq_buf_t tmp;
  tq_buf_init(&tmp, 0);
  st = tq_buf_printf(&tmp, "%s.tmp.%ld", conn->runtime, (long)getpid());
  if (!st) st = tqh_ssh_upload(conn->ssh, local, tmp.data, 0755, 0);
  if (!st) st = tqh_ssh_rename(conn->ssh, tmp.data, conn->runtime);
  if (st && tmp.data && tqh_ssh_is_connected(conn->ssh))
    tq_status_free(tqh_ssh_unlink(conn->ssh, tmp.data));
  tq_buf_deinit(&tmp);
  if (!st) {
    /* The SFTP server applies its umask to the mode: make sure it can run. */
    tqh_ssh_stat_t rs;
    st = tqh_ssh_stat(conn->ssh, conn->runtime, &rs);
    if (!st && (rs.mode & 0100) == 0) {
      const char *argv[] = {"chmod", "+x", conn->runtime, NULL};
      tqh_exec_result_t res;
      tqh_exec_result_init(&res);
      st = tqh__board_exec(conn, argv, 60000, &res);
      if (!st && res.exit_status != 0) st = tqh__board_command_failed(conn, "chmod", &res);
      tqh_exec_result_deinit(&res);
    }
  }
  if (st)
    return tq_status_annotate(st, "while copying the runtime to %s on board %s", conn->runtime,
                              conn->name);
  tqh_board_log(conn, 1, "runtime uploaded (%lld bytes) to %s", (long long)sb.st_size,
                conn->runtime);
  if (out_uploaded) *out_uploaded = 1;
  return NULL;
}

tq_status_t tqh_board_check_runtime(tqh_board_conn_t *conn) {
  tqh_ssh_stat_t rs;
  TQ_TRY(tqh_ssh_stat(conn->ssh, conn->runtime, &rs));
  if (!rs.exists || !rs.is_regular || (rs.mode & 0111) == 0)
    return TQ_STATUS(TQ_FAILED_PRECONDITION,
                     "board %s has no runtime at %s%s; run once with --update-astra-runtime "
                     "to copy this build's torq-run-module there",
                     conn->name, conn->runtime, rs.exists ? " (not an executable file)" : "");
  return NULL;
}

void tqh_board_set_runtime_path(tqh_board_conn_t *conn, const char *path) {
  if (path) conn->options.runtime_path = path;
}

const char *tqh_board_runtime_path(const tqh_board_conn_t *conn) {
  return conn->options.runtime_path;
}
