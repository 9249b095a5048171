/* Files on the board over SFTP (ssh.h): upload from a file or a buffer, download to a file
 * (atomically on this side) or a buffer, stat, mkdir -p, unlink; rename through SFTP's rename,
 * else through `mv -f`, since libssh2 1.10 cannot ask for OpenSSH's posix-rename and plain SFTP
 * rename refuses to replace.
 * The session is in blocking mode here, with io_timeout_ms as libssh2's API timeout. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "board_internal.h"
#include "torq/base/alloc.h"
#include "torq/base/file.h"

#define CHUNK ((size_t)1 << 20)

void tqh__ssh_sftp_close(tqh_ssh_session_t *s) {
  if (s->sftp) libssh2_sftp_shutdown(s->sftp);
  s->sftp = NULL;
}

static tq_status_t sftp_ready(tqh_ssh_session_t *s) {
  TQ_TRY(tqh__ssh_ready(s));
  if (s->sftp) return NULL;
  s->sftp = libssh2_sftp_init(s->ssh);
  if (!s->sftp) return tqh__ssh_error(s, 0, "starting SFTP");
  return NULL;
}

/* The SFTP status of the last failed call (0 when it was not an SFTP status). */
static unsigned long last_fx(tqh_ssh_session_t *s) {
  if (!s->ssh || !s->sftp || libssh2_session_last_errno(s->ssh) != LIBSSH2_ERROR_SFTP_PROTOCOL)
    return 0;
  return libssh2_sftp_last_error(s->sftp);
}

static tq_status_t stat_path(tqh_ssh_session_t *s, const char *path, tqh_ssh_stat_t *out) {
  memset(out, 0, sizeof(*out));
  LIBSSH2_SFTP_ATTRIBUTES a;
  memset(&a, 0, sizeof(a));
  int rc = libssh2_sftp_stat_ex(s->sftp, path, (unsigned)strlen(path), LIBSSH2_SFTP_STAT, &a);
  if (rc) {
    unsigned long fx = last_fx(s);
    if (fx == LIBSSH2_FX_NO_SUCH_FILE || fx == LIBSSH2_FX_NO_SUCH_PATH) return NULL;
    return tqh__ssh_error(s, rc, "stat %s", path);
  }
  out->exists = 1;
  if (a.flags & LIBSSH2_SFTP_ATTR_PERMISSIONS) {
    out->is_dir = LIBSSH2_SFTP_S_ISDIR(a.permissions);
    out->is_regular = LIBSSH2_SFTP_S_ISREG(a.permissions);
    out->mode = (unsigned)(a.permissions & 07777);
  }
  if (a.flags & LIBSSH2_SFTP_ATTR_SIZE) out->size = a.filesize;
  if (a.flags & LIBSSH2_SFTP_ATTR_ACMODTIME) out->mtime = (int64_t)a.mtime;
  return NULL;
}

tq_status_t tqh_ssh_stat(tqh_ssh_session_t *session, const char *path, tqh_ssh_stat_t *out_stat) {
  memset(out_stat, 0, sizeof(*out_stat));
  TQ_TRY(sftp_ready(session));
  return stat_path(session, path, out_stat);
}

/* ---- Upload -----------------------------------------------------------------------------------
 */

typedef struct source_s {
  int fd;           /* a local file, or -1 */
  const char *data; /* else a buffer */
  size_t len, pos;
  const char *name; /* for messages */
} source_t;

/* Up to `cap` bytes of the source; 0 at its end. */
static tq_status_t source_read(source_t *src, char *buf, size_t cap, size_t *out_n) {
  if (src->fd < 0) {
    size_t n = src->len - src->pos < cap ? src->len - src->pos : cap;
    if (n) memcpy(buf, src->data + src->pos, n);
    src->pos += n;
    *out_n = n;
    return NULL;
  }
  for (;;) {
    ssize_t n = read(src->fd, buf, cap);
    if (n >= 0) {
      *out_n = (size_t)n;
      return NULL;
    }
    if (errno != EINTR) return TQ_STATUS(TQ_IO, "reading %s: %s", src->name, strerror(errno));
  }
}

static tq_status_t upload(tqh_ssh_session_t *s, source_t *src, const char *remote, unsigned mode,
                          unsigned flags) {
  TQ_TRY(sftp_ready(s));
  unsigned long open_flags =
      LIBSSH2_FXF_WRITE | LIBSSH2_FXF_CREAT |
      ((flags & TQH_SSH_UPLOAD_EXCLUSIVE) ? LIBSSH2_FXF_EXCL : LIBSSH2_FXF_TRUNC);
  LIBSSH2_SFTP_HANDLE *h =
      libssh2_sftp_open_ex(s->sftp, remote, (unsigned)strlen(remote), open_flags,
                           (long)(mode & 07777), LIBSSH2_SFTP_OPENFILE);
  if (!h) {
    tq_status_t st = tqh__ssh_error(s, 0, "creating %s", remote);
    if ((flags & TQH_SSH_UPLOAD_EXCLUSIVE) && s->connected &&
        tq_status_code(st) != TQ_UNAVAILABLE) {
      tqh_ssh_stat_t info;
      tq_status_t sst = stat_path(s, remote, &info);
      if (!sst && info.exists) {
        tq_status_free(st);
        return TQ_STATUS(TQ_FAILED_PRECONDITION, "%s already exists on %s", remote, s->target);
      }
      tq_status_free(sst);
    }
    return st;
  }
  /* The server's umask must not change the mode asked for (0755 for a runtime). */
  LIBSSH2_SFTP_ATTRIBUTES attrs;
  memset(&attrs, 0, sizeof(attrs));
  attrs.flags = LIBSSH2_SFTP_ATTR_PERMISSIONS;
  attrs.permissions = mode & 07777;
  int rc = libssh2_sftp_fsetstat(h, &attrs);
  tq_status_t st = rc ? tqh__ssh_error(s, rc, "setting the mode of %s", remote) : NULL;

  char *buf = st ? NULL : tq_malloc(CHUNK);
  if (!st && !buf) st = TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  while (!st && buf) {
    size_t n = 0;
    st = source_read(src, buf, CHUNK, &n);
    if (st || n == 0) break;
    for (size_t off = 0; off < n && !st;) {
      ssize_t w = libssh2_sftp_write(h, buf + off, n - off);
      if (w < 0) {
        st = tqh__ssh_error(s, (int)w, "writing %s", remote);
        if (tq_status_code(st) == TQ_IO && last_fx(s) == LIBSSH2_FX_FAILURE) {
          /* OpenSSH's server says only "failure" for a full disk, the usual cause. */
          tq_status_t full =
              TQ_STATUS(TQ_UNAVAILABLE, "%s (is the board's disk full?)", tq_status_message(st));
          tq_status_free(st);
          st = full;
        }
      } else {
        off += (size_t)w;
      }
    }
  }
  tq_free(buf);
  rc = s->connected ? libssh2_sftp_close_handle(h) : 0;
  if (!st && rc) st = tqh__ssh_error(s, rc, "closing %s", remote);
  return st;
}

tq_status_t tqh_ssh_upload(tqh_ssh_session_t *session, const char *local_path,
                           const char *remote_path, unsigned mode, unsigned flags) {
  int fd = open(local_path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return TQ_STATUS(errno == ENOENT ? TQ_NOT_FOUND : TQ_IO, "cannot read %s: %s", local_path,
                     strerror(errno));
  }
  source_t src = {.fd = fd, .name = local_path};
  tq_status_t st = upload(session, &src, remote_path, mode, flags);
  close(fd);
  return tq_status_annotate(st, "while uploading %s to %s:%s", local_path,
                            tqh_ssh_session_target(session), remote_path);
}

tq_status_t tqh_ssh_upload_buffer(tqh_ssh_session_t *session, const void *data, size_t len,
                                  const char *remote_path, unsigned mode, unsigned flags) {
  if (!data && len) return TQ_STATUS(TQ_INVALID_ARGUMENT, "upload of %zu bytes from NULL", len);
  source_t src = {.fd = -1, .data = data ? data : "", .len = len, .name = "(buffer)"};
  return upload(session, &src, remote_path, mode, flags);
}

/* ---- Download ---------------------------------------------------------------------------------
 */

/* Reads the whole remote file, handing each piece to `sink` (ctx); `limit` 0 = none.
 * libssh2 asks for as much as the read's buffer ahead, in 30 kB requests the server answers one by
 * one: a 1 MB buffer for a file of 200 bytes costs 35 requests and answers. So the buffer follows
 * the size the handle's stat gives (one request), up to CHUNK; a file that grows meanwhile is read
 * on to its end all the same. */
typedef tq_status_t (*sink_fn)(void *ctx, const char *data, size_t n);

static tq_status_t download(tqh_ssh_session_t *s, const char *remote, size_t limit, sink_fn sink,
                            void *ctx) {
  TQ_TRY(sftp_ready(s));
  LIBSSH2_SFTP_HANDLE *h = libssh2_sftp_open_ex(s->sftp, remote, (unsigned)strlen(remote),
                                                LIBSSH2_FXF_READ, 0, LIBSSH2_SFTP_OPENFILE);
  if (!h) return tqh__ssh_error(s, 0, "opening %s", remote);
  tq_status_t st = NULL;
  LIBSSH2_SFTP_ATTRIBUTES a;
  memset(&a, 0, sizeof(a));
  int rc = libssh2_sftp_fstat(h, &a);
  if (rc)
    st = tqh__ssh_error(s, rc, "stat %s", remote);
  else if (limit && (a.flags & LIBSSH2_SFTP_ATTR_SIZE) && a.filesize > limit)
    st = TQ_STATUS(TQ_LIMIT, "%s on %s has %llu bytes, more than the %zu allowed", remote,
                   s->target, (unsigned long long)a.filesize, limit);
  uint64_t expect = (a.flags & LIBSSH2_SFTP_ATTR_SIZE) ? a.filesize : CHUNK;
  size_t cap = expect + 1 < CHUNK ? (size_t)expect + 1 : CHUNK;
  if (cap < 4096) cap = 4096;
  char *buf = st ? NULL : tq_malloc(cap);
  if (!st && !buf) st = TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  size_t total = 0;
  while (!st && buf) {
    /* What is still expected (and a byte to see the end), at least 4 kB once that is read. */
    size_t want = total < expect ? (size_t)(expect - total) + 1 : 4096;
    ssize_t n = libssh2_sftp_read(h, buf, want < cap ? want : cap);
    if (n < 0) {
      st = tqh__ssh_error(s, (int)n, "reading %s", remote);
      break;
    }
    if (n == 0) break;
    total += (size_t)n;
    if (limit && total > limit) {
      st = TQ_STATUS(TQ_LIMIT, "%s on %s has more than the %zu bytes allowed", remote, s->target,
                     limit);
      break;
    }
    st = sink(ctx, buf, (size_t)n);
  }
  tq_free(buf);
  rc = s->connected ? libssh2_sftp_close_handle(h) : 0;
  if (!st && rc) st = tqh__ssh_error(s, rc, "closing %s", remote);
  return st;
}

typedef struct file_sink_s {
  int fd;
  const char *path;
} file_sink_t;

static tq_status_t to_file(void *ctx, const char *data, size_t n) {
  file_sink_t *f = ctx;
  return tq_fd_write_all(f->fd, f->path, data, n);
}

static tq_status_t to_buf(void *ctx, const char *data, size_t n) {
  return tq_buf_append(ctx, data, n);
}

tq_status_t tqh_ssh_download(tqh_ssh_session_t *session, const char *remote_path,
                             const char *local_path) {
  size_t len = strlen(local_path);
  char *tmp = tq_malloc(len + 16);
  if (!tmp) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  memcpy(tmp, local_path, len);
  memcpy(tmp + len, ".tmp-XXXXXX", 12);
  int fd = mkostemp(tmp, O_CLOEXEC);
  if (fd < 0) {
    tq_status_t st = TQ_STATUS(errno == ENOENT ? TQ_NOT_FOUND : TQ_IO,
                               "cannot create a file beside %s: %s", local_path, strerror(errno));
    tq_free(tmp);
    return st;
  }
  (void)fchmod(fd, 0644);
  file_sink_t sink = {.fd = fd, .path = tmp};
  tq_status_t st = download(session, remote_path, 0, to_file, &sink);
  if (close(fd) != 0 && !st) st = TQ_STATUS(TQ_IO, "closing %s: %s", tmp, strerror(errno));
  if (!st && rename(tmp, local_path) != 0) {
    st = TQ_STATUS(TQ_IO, "cannot rename %s to %s: %s", tmp, local_path, strerror(errno));
  }
  if (st) unlink(tmp);
  tq_free(tmp);
  return tq_status_annotate(st, "while downloading %s:%s to %s", tqh_ssh_session_target(session),
                            remote_path, local_path);
}

tq_status_t tqh_ssh_download_buffer(tqh_ssh_session_t *session, const char *remote_path,
                                    size_t limit, tq_buf_t *out) {
  size_t start = out->len;
  tq_status_t st = download(session, remote_path, limit, to_buf, out);
  if (st) {
    out->len = start;
    if (out->data) out->data[start] = '\0';
  } else if (!out->data) {
    st = tq_buf_reserve(out, 0); /* an empty file still gives a NUL-terminated string */
  }
  return st;
}

/* ---- Folders, unlink, rename --------------------------------------------------------------- */

static tq_status_t mkdir_p(tqh_ssh_session_t *s, char *path, unsigned depth) {
  if (depth > 256) return TQ_STATUS(TQ_LIMIT, "folder path too deep: %s", path);
  tqh_ssh_stat_t info;
  TQ_TRY(stat_path(s, path, &info));
  if (info.exists) {
    if (info.is_dir) return NULL;
    return TQ_STATUS(TQ_IO, "%s on %s exists and is not a folder", path, s->target);
  }
  char *slash = strrchr(path, '/');
  while (slash && slash > path && slash[-1] == '/') slash--;
  if (slash && slash != path) {
    *slash = '\0';
    tq_status_t st = mkdir_p(s, path, depth + 1);
    *slash = '/';
    TQ_TRY(st);
  }
  int rc = libssh2_sftp_mkdir_ex(s->sftp, path, (unsigned)strlen(path), 0755);
  if (rc) {
    tq_status_t st = tqh__ssh_error(s, rc, "creating the folder %s", path);
    if (!s->connected) return st;
    /* Someone else may have made it meanwhile. */
    tq_status_t sst = stat_path(s, path, &info);
    if (!sst && info.is_dir) {
      tq_status_free(st);
      return NULL;
    }
    tq_status_free(sst);
    return st;
  }
  return NULL;
}

tq_status_t tqh_ssh_mkdir_p(tqh_ssh_session_t *session, const char *path) {
  if (!path || !*path) return TQ_STATUS(TQ_INVALID_ARGUMENT, "mkdir -p: an empty path");
  TQ_TRY(sftp_ready(session));
  size_t len = strlen(path);
  char *copy = tq_strndup(path, len);
  if (!copy) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  while (len > 1 && copy[len - 1] == '/') copy[--len] = '\0';
  tq_status_t st = mkdir_p(session, copy, 0);
  tq_free(copy);
  return st;
}

tq_status_t tqh_ssh_unlink(tqh_ssh_session_t *session, const char *path) {
  TQ_TRY(sftp_ready(session));
  int rc = libssh2_sftp_unlink_ex(session->sftp, path, (unsigned)strlen(path));
  if (!rc) return NULL;
  unsigned long fx = last_fx(session);
  if (fx == LIBSSH2_FX_NO_SUCH_FILE || fx == LIBSSH2_FX_NO_SUCH_PATH) return NULL;
  return tqh__ssh_error(session, rc, "removing %s", path);
}

tq_status_t tqh_ssh_rename(tqh_ssh_session_t *session, const char *from, const char *to) {
  /* SFTP's own rename first: one request where `to` does not exist yet (a new file of the
   * board's cache, the usual case); it refuses to replace, and then `mv -f` does. */
  TQ_TRY(sftp_ready(session));
  if (libssh2_sftp_rename_ex(session->sftp, from, (unsigned)strlen(from), to, (unsigned)strlen(to),
                             LIBSSH2_SFTP_RENAME_ATOMIC | LIBSSH2_SFTP_RENAME_NATIVE) == 0)
    return NULL;
  TQ_TRY(tqh__ssh_ready(session));
  const char *const argv[] = {"mv", "-f", "--", from, to, NULL};
  tqh_exec_result_t res;
  tqh_exec_result_init(&res);
  tq_status_t st = tqh__ssh_exec_simple(session, argv, session->options.io_timeout_ms, &res);
  if (!st && res.exit_status != 0) {
    tqh_ssh_stat_t info;
    tq_status_t sst = tqh_ssh_stat(session, from, &info);
    int missing = !sst && !info.exists;
    tq_status_free(sst);
    const char *why = res.err.len ? res.err.data : "no message";
    size_t why_len = strcspn(why, "\n");
    st = TQ_STATUS(missing ? TQ_NOT_FOUND : TQ_IO, "cannot rename %s to %s on %s: %.*s", from, to,
                   session->target, (int)why_len, why);
  }
  tqh_exec_result_deinit(&res);
  return st;
}
