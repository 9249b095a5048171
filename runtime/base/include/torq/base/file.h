/* Files: whole-file reads with a size limit, atomic writes (temporary name, fsync, rename), so
 * that a crash never leaves a torn file, and sorted folder listings. */
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

/* Writes all `len` bytes to the descriptor `fd`, completing short writes and retrying on EINTR.
 * `path` names what `fd` writes to, in messages only. Errors: TQ_IO "PATH: write failed: ..."
 * (then an unknown part of the data was written). */
tq_status_t tq_fd_write_all(int fd, const char *path, const void *data, size_t len) TQ_MUST_USE;

/* Creates a folder and its parents (mkdir -p), mode 0777 before umask. */
tq_status_t tq_file_mkdirs(const char *path) TQ_MUST_USE;

/* Lists the names (not paths) of the entries of folder `dir` that end in `suffix` (NULL or "":
 * every entry), leaving out "." and ".."; a name must be longer than the suffix, so a file named
 * just ".mlir" is not listed. The names are sorted with strcmp, so that the order, and any id
 * taken from a position in it, is the same on every run and file system. Entries of any type are
 * listed.
 *
 * On success *out_names holds *out_count heap strings in a heap array, all owned by the caller,
 * who frees them with tq_dir_list_free; when the count is 0 the array is NULL. On error
 * *out_names is NULL and *out_count 0. Errors name the folder: TQ_NOT_FOUND (no such
 * folder, or not a folder), TQ_OUT_OF_MEMORY, TQ_IO. */
tq_status_t tq_dir_list(const char *dir, const char *suffix, char ***out_names,
                        size_t *out_count) TQ_MUST_USE;

/* Frees what tq_dir_list returned: each of the `count` strings (with tq_free) and the array.
 * Accepts NULL. */
void tq_dir_list_free(char **names, size_t count);

#endif
