/* Files: whole-file reads with a size limit, and atomic writes (temporary name, fsync, rename), so
 * that a crash never leaves a torn file. */
#ifndef TORQ_BASE_FILE_H
#define TORQ_BASE_FILE_H

#include <stddef.h>

#include "torq/base/status.h"
#include "torq/base/str.h"

/* Reads the whole of `path` into `out_buf` (initialized by the call; the caller deinits it, also
 * on error). Errors: TQ_NOT_FOUND (no such file), TQ_INVALID_ARGUMENT (a directory or not a
 * regular file), TQ_LIMIT (larger than `limit` bytes; 0 = no limit), TQ_IO; each names the path. */
tq_status_t tq_file_read(const char *path, size_t limit, tq_buf_t *out_buf) TQ_MUST_USE;

/* Writes `len` bytes to `path` atomically: to a temporary file in the same folder, fsync, then
 * rename over `path`. On error nothing is left at `path` that was not there before, and the
 * temporary is removed. */
tq_status_t tq_file_write_atomic(const char *path, const void *data, size_t len) TQ_MUST_USE;

/* Creates a folder and its parents (mkdir -p), mode 0777 before umask. */
tq_status_t tq_file_mkdirs(const char *path) TQ_MUST_USE;

#endif
