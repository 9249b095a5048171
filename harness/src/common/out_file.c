/* Streaming atomic file output (files.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "torq/base/alloc.h"
#include "torq/harness/files.h"

tq_status_t tqh_out_file_open(tqh_out_file_t *out, const char *path) {
  memset(out, 0, sizeof(*out));
  tq_buf_init(&out->buf, 0);
  size_t n = strlen(path) + 32;
  out->path = tq_strndup(path, strlen(path));
  out->tmp = tq_malloc(n);
  if (!out->path || !out->tmp) {
    tqh_out_file_abort(out);
    return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory writing %s", path);
  }
  snprintf(out->tmp, n, "%s.tmp%ld", path, (long)getpid());
  out->file = fopen(out->tmp, "wb");
  if (!out->file) {
    int err = errno;
    tqh_out_file_abort(out);
    return TQ_STATUS(TQ_IO, "cannot create %s: %s", path, strerror(err));
  }
  tq_status_t st = tq_buf_reserve(&out->buf, TQH_OUT_FILE_CHUNK + 4096);
  if (st) tqh_out_file_abort(out);
  return st;
}

static tq_status_t flush(tqh_out_file_t *out) {
  if (out->buf.len && !out->failed &&
      fwrite(out->buf.data, 1, out->buf.len, (FILE *)out->file) != out->buf.len)
    out->failed = errno ? errno : EIO;
  tq_buf_clear(&out->buf);
  if (out->failed)
    return TQ_STATUS(TQ_IO, "cannot write %s: %s", out->path, strerror(out->failed));
  return NULL;
}

tq_status_t tqh_out_file_maybe_flush(tqh_out_file_t *out) {
  return out->buf.len >= TQH_OUT_FILE_CHUNK ? flush(out) : NULL;
}

tq_status_t tqh_out_file_commit(tqh_out_file_t *out) {
  tq_status_t st = flush(out);
  FILE *f = out->file;
  /* No fsync (as tqh_write_quick_atomic): the rename keeps a killed process from leaving a torn
   * file; durability across a power loss is the results' option (fsync_files), not every
   * output's, and an fsync per file was most of a profiled test's cost. */
  if (!st && fflush(f) != 0)
    st = TQ_STATUS(TQ_IO, "cannot write %s: %s", out->path, strerror(errno));
  out->file = NULL;
  if (fclose(f) != 0 && !st) st = TQ_STATUS(TQ_IO, "cannot write %s: %s", out->path, strerror(errno));
  if (!st && rename(out->tmp, out->path) != 0)
    st = TQ_STATUS(TQ_IO, "cannot rename %s to %s: %s", out->tmp, out->path, strerror(errno));
  if (st) {
    tqh_out_file_abort(out);
    return st;
  }
  tq_buf_deinit(&out->buf);
  tq_free(out->path);
  tq_free(out->tmp);
  memset(out, 0, sizeof(*out));
  return NULL;
}

void tqh_out_file_abort(tqh_out_file_t *out) {
  if (out->file) fclose((FILE *)out->file);
  if (out->tmp) remove(out->tmp);
  tq_buf_deinit(&out->buf);
  tq_free(out->path);
  tq_free(out->tmp);
  memset(out, 0, sizeof(*out));
}
