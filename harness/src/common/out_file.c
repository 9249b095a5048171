/* Streaming atomic file output (files.h). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "torq/base/alloc.h"
#include "torq/harness/files.h"

/* The writer of a file that outgrows one chunk: a thread that writes each full chunk while the
 * caller formats the next one (two buffers, swapped at each hand-off). A million-event output
 * is about a hundred chunks, and their writes (the copy into the page cache, the file system's
 * block allocation) were a sixth of torq-annotate's time, on the thread that also formats. It
 * also asks the kernel to start writing each chunk back (sync_file_range, no waiting): renaming
 * over an existing file makes ext4 (auto_da_alloc) allocate every block of the new one first,
 * on the renaming thread, which took as long again when an output replaced the last one. A file
 * of one chunk (every output of a small test) never starts it. */
typedef struct writer_s {
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  tq_buf_t job; /* the chunk being written; empty and free when !busy */
  int busy, stop;
  int failed; /* errno of the first failed write, or 0 */
  int fd;
  off_t written;
} writer_t;

/* Writes all of data[0, len) to fd; 0, or the errno. */
static int write_all(int fd, const char *data, size_t len) {
  while (len) {
    ssize_t n = write(fd, data, len);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno ? errno : EIO;
    if (n == 0) return EIO;
    data += n;
    len -= (size_t)n;
  }
  return 0;
}

static void *writer_main(void *arg) {
  writer_t *w = arg;
  pthread_mutex_lock(&w->mu);
  for (;;) {
    while (!w->busy && !w->stop) pthread_cond_wait(&w->cv, &w->mu);
    if (!w->busy) break;
    int failed = w->failed;
    pthread_mutex_unlock(&w->mu);
    if (!failed) failed = write_all(w->fd, w->job.data, w->job.len);
    if (!failed) {
      (void)sync_file_range(w->fd, w->written, (off_t)w->job.len, SYNC_FILE_RANGE_WRITE);
      w->written += (off_t)w->job.len;
    }
    pthread_mutex_lock(&w->mu);
    w->failed = failed;
    tq_buf_clear(&w->job);
    w->busy = 0;
    pthread_cond_broadcast(&w->cv);
  }
  pthread_mutex_unlock(&w->mu);
  return NULL;
}

/* With w->mu held: waits until the writer is idle; its first error then goes to out->failed. */
static void writer_idle(tqh_out_file_t *out, writer_t *w) {
  while (w->busy) pthread_cond_wait(&w->cv, &w->mu);
  if (w->failed && !out->failed) out->failed = w->failed;
}

static void writer_wait(tqh_out_file_t *out) {
  writer_t *w = out->writer;
  pthread_mutex_lock(&w->mu);
  writer_idle(out, w);
  pthread_mutex_unlock(&w->mu);
}

/* Stops the writer (after the chunk it has) and frees it. */
static void writer_end(tqh_out_file_t *out) {
  writer_t *w = out->writer;
  if (!w) return;
  pthread_mutex_lock(&w->mu);
  writer_idle(out, w);
  w->stop = 1;
  pthread_cond_broadcast(&w->cv);
  pthread_mutex_unlock(&w->mu);
  pthread_join(w->thread, NULL);
  pthread_cond_destroy(&w->cv);
  pthread_mutex_destroy(&w->mu);
  tq_buf_deinit(&w->job);
  tq_free(w);
  out->writer = NULL;
}

/* A writer for `out`, or NULL (no memory or no thread: the caller writes itself). */
static writer_t *writer_start(tqh_out_file_t *out) {
  writer_t *w = tq_calloc(1, sizeof(*w));
  if (!w) return NULL;
  w->fd = out->fd;
  tq_buf_init(&w->job, 0);
  if (tq_buf_reserve(&w->job, TQH_OUT_FILE_CHUNK + 4096) || pthread_mutex_init(&w->mu, NULL)) {
    tq_buf_deinit(&w->job);
    tq_free(w);
    return NULL;
  }
  int ok = pthread_cond_init(&w->cv, NULL) == 0;
  if (ok && pthread_create(&w->thread, NULL, writer_main, w) != 0) {
    pthread_cond_destroy(&w->cv);
    ok = 0;
  }
  if (!ok) {
    pthread_mutex_destroy(&w->mu);
    tq_buf_deinit(&w->job);
    tq_free(w);
    return NULL;
  }
  return w;
}

tq_status_t tqh_out_file_open(tqh_out_file_t *out, const char *path) {
  memset(out, 0, sizeof(*out));
  out->fd = -1;
  tq_buf_init(&out->buf, 0);
  size_t n = strlen(path) + 32;
  out->path = tq_strndup(path, strlen(path));
  out->tmp = tq_malloc(n);
  if (!out->path || !out->tmp) {
    tqh_out_file_abort(out);
    return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory writing %s", path);
  }
  snprintf(out->tmp, n, "%s.tmp%ld", path, (long)getpid());
  out->fd = open(out->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY, 0666);
  if (out->fd < 0) {
    int err = errno;
    tqh_out_file_abort(out);
    return TQ_STATUS(TQ_IO, "cannot create %s: %s", path, strerror(err));
  }
  tq_status_t st = tq_buf_reserve(&out->buf, TQH_OUT_FILE_CHUNK + 4096);
  if (st) tqh_out_file_abort(out);
  return st;
}

static tq_status_t write_failed(const tqh_out_file_t *out) {
  return TQ_STATUS(TQ_IO, "cannot write %s: %s", out->path, strerror(out->failed));
}

/* Writes the buffer here and now (the last bytes, or when there is no writer). */
static tq_status_t flush_here(tqh_out_file_t *out) {
  if (out->writer) writer_wait(out);
  if (out->buf.len && !out->failed) out->failed = write_all(out->fd, out->buf.data, out->buf.len);
  tq_buf_clear(&out->buf);
  return out->failed ? write_failed(out) : NULL;
}

tq_status_t tqh_out_file_maybe_flush(tqh_out_file_t *out) {
  if (out->buf.len < TQH_OUT_FILE_CHUNK) return NULL;
  if (!out->writer && !out->no_writer && !(out->writer = writer_start(out))) out->no_writer = 1;
  if (!out->writer) return flush_here(out);
  writer_t *w = out->writer;
  pthread_mutex_lock(&w->mu);
  writer_idle(out, w);
  if (!out->failed) {
    tq_buf_t full = out->buf;
    out->buf = w->job; /* empty, with its room */
    w->job = full;
    w->busy = 1;
    pthread_cond_broadcast(&w->cv);
  }
  pthread_mutex_unlock(&w->mu);
  if (out->failed) {
    tq_buf_clear(&out->buf);
    return write_failed(out);
  }
  return NULL;
}

tq_status_t tqh_out_file_commit(tqh_out_file_t *out) {
  tq_status_t st = flush_here(out);
  writer_end(out);
  /* No fsync (as tqh_write_quick_atomic): the rename keeps a killed process from leaving a torn
   * file; durability across a power loss is the results' option (fsync_files), not every
   * output's, and an fsync per file was most of a profiled test's cost. */
  int fd = out->fd;
  out->fd = -1;
  if (close(fd) != 0 && !st) st = TQ_STATUS(TQ_IO, "cannot write %s: %s", out->path, strerror(errno));
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
  out->fd = -1;
  return NULL;
}

void tqh_out_file_abort(tqh_out_file_t *out) {
  writer_end(out);
  if (out->tmp && out->fd >= 0) close(out->fd);
  if (out->tmp) remove(out->tmp);
  tq_buf_deinit(&out->buf);
  tq_free(out->path);
  tq_free(out->tmp);
  memset(out, 0, sizeof(*out));
  out->fd = -1;
}
