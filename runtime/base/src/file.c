/* Whole-file reads, atomic writes, mkdir -p and sorted folder listings. */
#include "torq/base/file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file_internal.h"
#include "torq/base/alloc.h"
#include "torq/base/checked.h"

#define TQ_FILE_READ_CHUNK ((size_t)64 * 1024)

tq_status_t tq__file_errno_status(int err, const char *path, const char *what, const char *file,
                                  int line) {
  char text[256];
  /* The GNU strerror_r: thread-safe, returns the text (not always in `text`). */
  const char *msg = strerror_r(err, text, sizeof(text));
  tq_status_code_t code = (err == ENOENT || err == ENOTDIR) ? TQ_NOT_FOUND
                          : err == ENOMEM                   ? TQ_OUT_OF_MEMORY
                                                            : TQ_IO;
  return tq_status_make(code, file, line, "%s: %s: %s", path, what, msg);
}

tq_status_t tq__file_open_read(const char *path, int *out_fd, size_t *out_size) {
  *out_fd = -1;
  *out_size = 0;
  int fd;
  /* O_NONBLOCK so that opening a FIFO with no writer returns at once and is then rejected. */
  do {
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) return TQ_STATUS(TQ_NOT_FOUND, "%s: no such file", path);
    return TQ__ERRNO_STATUS(errno, path, "cannot open");
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    tq_status_t s = TQ__ERRNO_STATUS(errno, path, "cannot stat");
    close(fd);
    return s;
  }
  if (S_ISDIR(st.st_mode)) {
    close(fd);
    return TQ_STATUS(TQ_INVALID_ARGUMENT, "%s: is a directory", path);
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return TQ_STATUS(TQ_INVALID_ARGUMENT, "%s: not a regular file", path);
  }
  if (st.st_size < 0 || (uintmax_t)st.st_size > SIZE_MAX) {
    close(fd);
    return TQ_STATUS(TQ_LIMIT, "%s: too large to read into memory", path);
  }
  /* O_NONBLOCK stays: Linux ignores it for regular files (open(2)), and two fcntl calls per
   * file read are a measurable part of a tiny test's cost. A file system that does answer
   * EAGAIN gets the flag cleared then (tq__file_read_some). */
  *out_fd = fd;
  *out_size = (size_t)st.st_size;
  return NULL;
}

tq_status_t tq__file_read_some(int fd, const char *path, void *dst, size_t len, size_t *out_n) {
  *out_n = 0;
  if (len > SSIZE_MAX) len = SSIZE_MAX;
  for (;;) {
    ssize_t n = read(fd, dst, len);
    if (n >= 0) {
      *out_n = (size_t)n;
      return NULL;
    }
    int err = errno;
    if (err == EAGAIN || err == EWOULDBLOCK) {
      int flags = fcntl(fd, F_GETFL);
      if (flags >= 0 && (flags & O_NONBLOCK) && fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == 0)
        continue;
    }
    if (err != EINTR) return TQ__ERRNO_STATUS(err, path, "read failed");
  }
}

/* Reads until end of file: st_size is only a hint, since files in /proc report 0 and a file may
 * grow while it is read. */
static tq_status_t tq__file_read_fd(int fd, const char *path, size_t size, size_t limit,
                                    tq_buf_t *buf) {
  /* One byte beyond the expected size lets the final, end-of-file read happen without growing.
   * The reads fill that room at once. */
  size_t first = size < SIZE_MAX - 1 ? size + 1 : size;
  TQ_TRY(tq_buf_reserve_filled(buf, first));
  for (;;) {
    if (buf->cap - buf->len <= 1) TQ_TRY(tq_buf_reserve(buf, TQ_FILE_READ_CHUNK));
    size_t n;
    TQ_TRY(tq__file_read_some(fd, path, buf->data + buf->len, buf->cap - buf->len - 1, &n));
    if (n == 0) return NULL;
    buf->len += n;
    buf->data[buf->len] = '\0';
    if (limit && buf->len > limit)
      return TQ_STATUS(TQ_LIMIT, "%s: larger than the limit of %zu bytes", path, limit);
  }
}

tq_status_t tq_file_read(const char *path, size_t limit, tq_buf_t *out_buf) {
  tq_buf_init(out_buf, 0);
  int fd;
  size_t size;
  TQ_TRY(tq__file_open_read(path, &fd, &size));
  tq_status_t s = NULL;
  if (limit && size > limit)
    s = TQ_STATUS(TQ_LIMIT, "%s: %zu bytes is larger than the limit of %zu bytes", path, size,
                  limit);
  else
    s = tq__file_read_fd(fd, path, size, limit, out_buf);
  close(fd);
  return s;
}

/* The mode a new file would get from open(..., 0666): mkstemp makes 0600 whatever the umask, and
 * umask() cannot be read without setting it, which would race with other threads. */
static mode_t tq__file_default_mode(void) {
  mode_t mask = 022;
  FILE *f = fopen("/proc/self/status", "re");
  if (f) {
    char line[256];
    while (fgets(line, sizeof(line), f)) {
      unsigned int m;
      if (sscanf(line, "Umask: %o", &m) == 1) {
        mask = (mode_t)m;
        break;
      }
    }
    fclose(f);
  }
  return 0666 & ~mask;
}

tq_status_t tq_fd_write_all(int fd, const char *path, const void *data, size_t len) {
  const char *p = data;
  while (len > 0) {
    size_t chunk = len > SSIZE_MAX ? SSIZE_MAX : len;
    ssize_t n = write(fd, p, chunk);
    if (n < 0) {
      if (errno == EINTR) continue;
      return TQ__ERRNO_STATUS(errno, path, "write failed");
    }
    if (n == 0) return TQ_STATUS(TQ_IO, "%s: write made no progress", path);
    p += n;
    len -= (size_t)n;
  }
  return NULL;
}

/* Makes the rename durable; a failure here loses nothing already written, so it is ignored. */
static void tq__file_sync_dir(const char *dir) {
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  (void)fsync(fd);
  close(fd);
}

tq_status_t tq_file_write_atomic(const char *path, const void *data, size_t len) {
  const char *slash = strrchr(path, '/');
  const char *base = slash ? slash + 1 : path;
  if (!*base) return TQ_STATUS(TQ_INVALID_ARGUMENT, "%s: not a file name", path);
  size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0; /* with the slash */

  tq_buf_t tmp;
  tq_buf_init(&tmp, 0);
  tq_status_t s = tq_buf_append(&tmp, path, dir_len);
  if (!s) s = tq_buf_printf(&tmp, ".%s.tmp.XXXXXX", base);
  char *dir = NULL;
  if (!s) {
    dir = dir_len == 0 ? tq_strndup(".", 1) : tq_strndup(path, dir_len == 1 ? 1 : dir_len - 1);
    if (!dir) s = TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  }
  if (s) {
    tq_buf_deinit(&tmp);
    return s;
  }

  struct stat st;
  mode_t mode = stat(path, &st) == 0 && S_ISREG(st.st_mode) ? (st.st_mode & 07777)
                                                            : tq__file_default_mode();
  int fd = mkostemp(tmp.data, O_CLOEXEC);
  if (fd < 0) {
    s = TQ__ERRNO_STATUS(errno, path, "cannot create a temporary file");
    goto out;
  }
  s = tq_fd_write_all(fd, tmp.data, data, len);
  if (!s && fchmod(fd, mode) != 0) s = TQ__ERRNO_STATUS(errno, tmp.data, "cannot set mode");
  if (!s && fsync(fd) != 0) s = TQ__ERRNO_STATUS(errno, tmp.data, "fsync failed");
  /* close() reports deferred write errors on some file systems (NFS), so it is checked. */
  if (close(fd) != 0 && !s) s = TQ__ERRNO_STATUS(errno, tmp.data, "close failed");
  if (!s && rename(tmp.data, path) != 0) s = TQ__ERRNO_STATUS(errno, path, "cannot replace");
  if (s)
    unlink(tmp.data);
  else
    tq__file_sync_dir(dir);
out:
  tq_free(dir);
  tq_buf_deinit(&tmp);
  return s;
}

tq_status_t tq_file_mkdirs(const char *path) {
  size_t len = strlen(path);
  if (len == 0) return TQ_STATUS(TQ_INVALID_ARGUMENT, "cannot create a folder with an empty name");
  char *p = tq_strndup(path, len);
  if (!p) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  tq_status_t s = NULL;
  /* Each prefix that ends a component, then the whole path; a leading '/' is not a component. */
  for (size_t i = 1; i <= len && !s; i++) {
    if (i < len && (p[i] != '/' || p[i - 1] == '/')) continue;
    char saved = p[i];
    p[i] = '\0';
    if (mkdir(p, 0777) != 0) {
      int err = errno;
      struct stat st;
      /* Whatever mkdir says (EEXIST, or EACCES on an existing parent), an existing folder is
       * fine and anything else in the way is an error. */
      if (stat(p, &st) == 0) {
        if (!S_ISDIR(st.st_mode))
          s = TQ_STATUS(TQ_INVALID_ARGUMENT, "%s: exists and is not a folder", p);
      } else {
        s = TQ__ERRNO_STATUS(err, p, "cannot create folder");
      }
    }
    p[i] = saved;
  }
  tq_free(p);
  return s;
}

static int tq__dir_cmp(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

void tq_dir_list_free(char **names, size_t count) {
  if (!names) return;
  for (size_t i = 0; i < count; i++) tq_free(names[i]);
  tq_free(names);
}

tq_status_t tq_dir_list(const char *dir, const char *suffix, char ***out_names, size_t *out_count) {
  *out_names = NULL;
  *out_count = 0;
  size_t suffix_len = suffix ? strlen(suffix) : 0;
  DIR *d = opendir(dir);
  if (!d) return TQ__ERRNO_STATUS(errno, dir, "cannot list folder");
  char **names = NULL;
  size_t n = 0, cap = 0;
  tq_status_t s = NULL;
  for (;;) {
    errno = 0;
    struct dirent *e = readdir(d);
    if (!e) {
      if (errno) s = TQ__ERRNO_STATUS(errno, dir, "cannot list folder");
      break;
    }
    const char *name = e->d_name;
    if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) continue;
    size_t len = strlen(name);
    if (len <= suffix_len || (suffix_len && strcmp(name + len - suffix_len, suffix) != 0)) continue;
    if (n == cap) {
      size_t new_cap = cap ? cap * 2 : 16, bytes;
      char **grown = tq_size_mul(new_cap, sizeof(*names), &bytes) ? tq_realloc(names, bytes) : NULL;
      if (!grown) {
        s = TQ_STATUS(TQ_OUT_OF_MEMORY, "%s: out of memory listing the folder", dir);
        break;
      }
      names = grown;
      cap = new_cap;
    }
    names[n] = tq_strndup(name, len);
    if (!names[n]) {
      s = TQ_STATUS(TQ_OUT_OF_MEMORY, "%s: out of memory listing the folder", dir);
      break;
    }
    n++;
  }
  closedir(d);
  if (s) {
    tq_dir_list_free(names, n);
    return s;
  }
  if (n) qsort(names, n, sizeof(*names), tq__dir_cmp);
  *out_names = names;
  *out_count = n;
  return NULL;
}
