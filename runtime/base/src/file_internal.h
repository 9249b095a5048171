/* Private to libtorq-base: the file helpers that sha256.c shares with file.c, so that both map
 * errno to statuses the same way. */
#ifndef TORQ_BASE_FILE_INTERNAL_H
#define TORQ_BASE_FILE_INTERNAL_H

#include <stddef.h>

#include "torq/base/status.h"

/* A status for a failed system call on `path`: TQ_NOT_FOUND for ENOENT/ENOTDIR, TQ_IO otherwise,
 * with the message "PATH: WHAT: strerror(err)". */
tq_status_t tq__file_errno_status(int err, const char *path, const char *what, const char *file,
                                  int line) TQ_MUST_USE;
#define TQ__ERRNO_STATUS(err, path, what) \
  tq__file_errno_status((err), (path), (what), __FILE__, __LINE__)

/* Opens a regular file for reading (close-on-exec) and stores its descriptor, which the caller
 * closes, and its size. Never blocks on a FIFO. Errors: TQ_NOT_FOUND "PATH: no such file",
 * TQ_INVALID_ARGUMENT for a directory or another non-regular file, TQ_LIMIT when the size does not
 * fit size_t, TQ_IO. On error *out_fd is -1. */
tq_status_t tq__file_open_read(const char *path, int *out_fd, size_t *out_size) TQ_MUST_USE;

/* One read(2) of up to `len` bytes, retried on EINTR; *out_n 0 means end of file. */
tq_status_t tq__file_read_some(int fd, const char *path, void *dst, size_t len,
                               size_t *out_n) TQ_MUST_USE;

#endif
