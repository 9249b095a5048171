/* Files as the harness writes them (component common/, harness/src/common/): whole files, plain
 * or atomic; a streaming writer for outputs too large to hold in memory; folder trees mirrored
 * with hard links, and removed. Every error names the path. */
#ifndef TORQ_HARNESS_FILES_H
#define TORQ_HARNESS_FILES_H

#include <stddef.h>

#include "torq/base/status.h"
#include "torq/base/str.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The status of a failed system call on `path`: TQ_NOT_FOUND for ENOENT, else TQ_IO, with the
 * message "PATH: WHAT: strerror(err)". */
tq_status_t tqh_errno_status(int err, const char *path, const char *what) TQ_MUST_USE;

/* Whether an error's text says that a disk is full (ENOSPC's "No space left on device", EDQUOT's
 * "Disk quota exceeded", or the names themselves), whatever wrote it: this process, a tool, a
 * board's shell. */
int tqh_text_says_disk_full(const char *text);

/* Writes `len` bytes to `path` (create or truncate), without fsync. */
tq_status_t tqh_write_plain(const char *path, const void *data, size_t len) TQ_MUST_USE;

/* Writes to a temporary name beside `path` and renames it into place: never torn by a killed
 * process (no fsync: not durable across a power loss). On error the temporary is removed and
 * `path` is as it was. */
tq_status_t tqh_write_quick_atomic(const char *path, const void *data, size_t len) TQ_MUST_USE;
/* The same at `rel` within the folder open as `dir_fd` (AT_FDCWD: the working folder), which
 * spares the kernel the walk down the folders above; `path`, the file's whole path, ends in
 * `rel` (whole components) and names it in messages. */
tq_status_t tqh_write_quick_atomic_at(int dir_fd, const char *rel, const char *path,
                                      const void *data, size_t len) TQ_MUST_USE;

/* Mirrors `from` (a file or a folder tree) at `to` with hard links, copying where linking fails
 * (another file system; the copy keeps the file's permission bits). Symbolic links are recreated;
 * other special files are left out. Existing files and links at `to` are replaced. */
tq_status_t tqh_link_tree(const char *from, const char *to) TQ_MUST_USE;

/* A file tree as tqh_link_tree finds it, kept to mirror it again without reading its folders
 * (a compile-cache entry, whose files never change once it is published): each entry's path
 * relative to the root ("" for the root itself), parents before their children. */
typedef enum { TQH_TREE_DIR, TQH_TREE_FILE, TQH_TREE_LINK } tqh_tree_kind_t;
typedef struct tqh_tree_entry_s {
  char *path;
  tqh_tree_kind_t kind;
  unsigned mode;  /* a file's permission bits (for a copy) */
  char *target;   /* a symbolic link's target, else NULL */
} tqh_tree_entry_t;
typedef struct tqh_tree_s {
  tqh_tree_entry_t *entries;
  size_t count, cap;
} tqh_tree_t;

void tqh_tree_init(tqh_tree_t *tree);
void tqh_tree_deinit(tqh_tree_t *tree);
/* Reads the tree at `from` (a file or a folder) into `tree` (emptied first). */
tq_status_t tqh_tree_read(const char *from, tqh_tree_t *tree) TQ_MUST_USE;
/* Mirrors `tree`, read at `from`, at `to` as tqh_link_tree does. */
tq_status_t tqh_tree_link(const tqh_tree_t *tree, const char *from, const char *to) TQ_MUST_USE;

/* rm -rf `path`; a missing path is fine. */
tq_status_t tqh_remove_tree(const char *path) TQ_MUST_USE;

/* ---- Streaming atomic file output ----------------------------------------------------------- */

/* Writes a file through a buffer into `path`.tmp<pid>, renamed over `path` on commit, so large
 * outputs need no memory of their size and a failure leaves no torn file. The writer owns its
 * buffer, paths, open file and thread until commit or abort; one writer is used by one thread. */
typedef struct tqh_out_file_s {
  tq_buf_t buf; /* pending bytes; flushed past TQH_OUT_FILE_CHUNK */
  int fd;       /* of the temporary; valid while `tmp` is set */
  char *path, *tmp;
  int failed;    /* errno of the first failed write, or 0 */
  void *writer;  /* the thread writing full chunks (out_file.c), from the first one */
  int no_writer; /* 1: none could be started; chunks are written by the caller */
} tqh_out_file_t;

/* Half a MiB: a million-event output is written in about a hundred writes, and the buffer (the
 * chunk and a record, doubled: 1 MiB) stays small for the three outputs of each profiled test
 * of a runner. Its room is taken ahead of its bytes, so it gets no huge-page advice (str.h). A
 * file of more chunks has a second buffer: a thread writes one chunk while the next is made. */
#define TQH_OUT_FILE_CHUNK ((size_t)512 << 10)

tq_status_t tqh_out_file_open(tqh_out_file_t *out, const char *path) TQ_MUST_USE;
/* Writes out the buffer when it holds TQH_OUT_FILE_CHUNK bytes or more (call between records). */
tq_status_t tqh_out_file_maybe_flush(tqh_out_file_t *out) TQ_MUST_USE;
/* Flushes, closes and renames into place (no fsync: never torn by a killed process, not durable
 * across a power loss, as tqh_write_quick_atomic). */
tq_status_t tqh_out_file_commit(tqh_out_file_t *out) TQ_MUST_USE;
/* Closes and removes the temporary (after an error, or without commit); accepts a closed one. */
void tqh_out_file_abort(tqh_out_file_t *out);

#ifdef __cplusplus
}
#endif
#endif
