/* The journal: journal.jsonl, one JSON line per finished test, the run's source of truth.
 *
 * Appends go through one writev() of the whole line and its newline on an O_APPEND descriptor, so
 * that lines of parallel workers never interleave and a crash can tear at most the last line. A
 * write that fails (a full disk: ENOSPC, EDQUOT; EIO) is undone: the file is truncated back to
 * where the line began, so a failed append leaves no partial line for a reader to trip on.
 * A line that writev() accepted is in the kernel's page cache: it survives the runner being
 * killed, even with SIGKILL. fsync only matters for a power cut or a kernel crash, and costs
 * about a millisecond on a disk, so it runs at most once per interval (default 1 s: a power cut
 * loses at most the last second of finished tests, all of which are rebuilt by a rerun) and when
 * the journal is closed. The reader keeps every valid line, reports the
 * corrupt ones by line number, and treats a last line without newline that does not parse as a
 * torn append. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "results_internal.h"
#include "torq/base/alloc.h"
#include "torq/base/file.h"
#include "torq/harness/process.h"

tq_status_t tqh_journal_open(tqh_journal_t *journal, const char *path, int sync,
                             unsigned sync_interval_ms) {
  journal->fd = -1;
  journal->sync = sync;
  journal->sync_interval_ms = sync_interval_ms;
  journal->last_sync_ns = tqh_now_ns();
  journal->unsynced = 0;
  journal->path = tq_strndup(path, strlen(path));
  if (!journal->path) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory opening %s", path);
  journal->fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
  if (journal->fd < 0) {
    int e = errno;
    tq_free(journal->path);
    journal->path = NULL;
    return TQ_STATUS(TQ_IO, "%s: cannot open the journal: %s", path, strerror(e));
  }
  return NULL;
}

void tqh_journal_close(tqh_journal_t *journal) {
  /* Best effort: the lines are written; a failed fsync here only weakens power-cut safety. */
  if (journal->fd >= 0 && journal->sync && journal->unsynced) (void)fdatasync(journal->fd);
  if (journal->fd >= 0) close(journal->fd);
  journal->fd = -1;
  tq_free(journal->path);
  journal->path = NULL;
}

tq_status_t tqh_journal_append(tqh_journal_t *journal, const char *line, size_t len) {
  if (memchr(line, '\n', len))
    return TQ_STATUS(TQ_INVALID_ARGUMENT, "%s: a journal line may not hold a newline",
                     journal->path);
  /* Where the line begins: the file's end (this process is the journal's only writer). */
  off_t start = lseek(journal->fd, 0, SEEK_END);
  if (start < 0) return TQ_STATUS(TQ_IO, "%s: cannot seek: %s", journal->path, strerror(errno));
  /* The line and its newline in one system call, without copying the line to add the newline.
   * After a short write (a full disk) the rest follows with tq_fd_write_all. */
  struct iovec iov[2] = {{(void *)line, len}, {(void *)"\n", 1}};
  ssize_t n;
  do {
    n = writev(journal->fd, iov, 2);
  } while (n < 0 && errno == EINTR);
  tq_status_t s = NULL;
  size_t done = n < 0 ? 0 : (size_t)n;
  if (n < 0) s = TQ_STATUS(TQ_IO, "%s: write failed: %s", journal->path, strerror(errno));
  if (!s && done < len) s = tq_fd_write_all(journal->fd, journal->path, line + done, len - done);
  if (!s && done <= len) s = tq_fd_write_all(journal->fd, journal->path, "\n", 1);
  int sync_now = 0;
  uint64_t now = 0;
  if (!s && journal->sync) {
    journal->unsynced++;
    now = tqh_now_ns();
    sync_now = now - journal->last_sync_ns >= (uint64_t)journal->sync_interval_ms * 1000000u;
  }
  if (!s && sync_now && fdatasync(journal->fd) != 0)
    s = TQ_STATUS(TQ_IO, "%s: fsync failed: %s", journal->path, strerror(errno));
  if (s) {
    /* Not a byte of a line that did not make it. */
    if (ftruncate(journal->fd, start) != 0)
      return tq_status_annotate(s, "and the partial line could not be removed: %s",
                                strerror(errno));
    return s;
  }
  if (sync_now) {
    journal->last_sync_ns = now;
    journal->unsynced = 0;
  }
  return NULL;
}

/* The JSON reader names positions "PATH:LINE:COL: error: what"; within one journal line only the
 * column matters. */
static const char *strip_position(const char *msg, unsigned *out_col) {
  unsigned line, col;
  int used = 0;
  *out_col = 0;
  if (sscanf(msg, ":%u:%u: error: %n", &line, &col, &used) == 2 && used > 0) {
    *out_col = col;
    return msg + used;
  }
  return msg;
}

tq_status_t tqh_journal_parse(const char *name, const char *data, size_t len, tqh_records_t *list,
                              tqh_diags_t *diags, tqh_journal_read_t *out_info) {
  memset(out_info, 0, sizeof(*out_info));
  size_t pos = 0;
  uint32_t lineno = 0;
  while (pos < len) {
    const char *line = data + pos;
    const char *nl = memchr(line, '\n', len - pos);
    size_t n = nl ? (size_t)(nl - line) : len - pos;
    pos += n + (nl ? 1 : 0);
    lineno++;
    if (nl) out_info->lines++;
    size_t k = 0;
    while (k < n && (line[k] == ' ' || line[k] == '\t' || line[k] == '\r')) k++;
    if (k == n) continue;
    tq_status_t s = tqh__record_parse(list, line, n);
    if (!s) continue;
    if (tq_status_code(s) == TQ_OUT_OF_MEMORY) return s;
    if (!nl) {
      out_info->torn_tail = 1;
      if (diags)
        tqh_diags_add(diags, TQH_ERROR, name, lineno,
                      "the last line is cut short (%zu bytes without a newline: the run was "
                      "stopped while writing it); that test's record is lost",
                      n);
    } else {
      out_info->corrupt++;
      unsigned col;
      const char *what = strip_position(tq_status_message(s), &col);
      if (diags) {
        if (col)
          tqh_diags_add(diags, TQH_ERROR, name, lineno,
                        "not a valid test record (column %u: %s); "
                        "skipped",
                        col, what);
        else
          tqh_diags_add(diags, TQH_ERROR, name, lineno, "not a valid test record (%s); skipped",
                        what);
      }
    }
    tq_status_free(s);
  }
  return NULL;
}

tq_status_t tqh_journal_read(const char *path, tqh_records_t *list, tqh_diags_t *diags,
                             tqh_journal_read_t *out_info) {
  memset(out_info, 0, sizeof(*out_info));
  tq_buf_t buf;
  tq_buf_init(&buf, 0);
  tq_status_t s = tq_file_read(path, 0, &buf);
  if (!s) s = tqh_journal_parse(path, buf.data ? buf.data : "", buf.len, list, diags, out_info);
  tq_buf_deinit(&buf);
  return s;
}
