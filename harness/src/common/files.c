/* Writing files whole, mirroring and removing folder trees (files.h). */
#include "torq/harness/files.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "torq/base/file.h"

tq_status_t tqh_errno_status(int err, const char *path, const char *what) {
  return TQ_STATUS(err == ENOENT ? TQ_NOT_FOUND : TQ_IO, "%s: %s: %s", path, what, strerror(err));
}

/* `needle` in `text`, ignoring ASCII case. */
static int contains_ci(const char *text, const char *needle) {
  size_t n = strlen(needle);
  for (const char *p = text; p && *p; p++)
    if (!strncasecmp(p, needle, n)) return 1;
  return 0;
}

int tqh_text_says_disk_full(const char *text) {
  return contains_ci(text, "no space left") || contains_ci(text, "disk quota exceeded") ||
         contains_ci(text, "ENOSPC") || contains_ci(text, "EDQUOT");
}

tq_status_t tqh_write_plain(const char *path, const void *data, size_t len) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) return tqh_errno_status(errno, path, "cannot create");
  tq_status_t st = tq_fd_write_all(fd, path, data, len);
  if (close(fd) != 0 && !st) st = tqh_errno_status(errno, path, "close failed");
  return st;
}

tq_status_t tqh_write_quick_atomic(const char *path, const void *data, size_t len) {
  /* The pid and a counter keep the temporary name apart from other processes and threads. */
  static unsigned long counter;
  unsigned long n = __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED);
  const char *slash = strrchr(path, '/');
  size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0;
  tq_buf_t tmp;
  tq_buf_init(&tmp, 0);
  tq_status_t st = tq_buf_append(&tmp, path, dir_len);
  if (!st) st = tq_buf_printf(&tmp, ".%s.tmp.%ld.%lu", path + dir_len, (long)getpid(), n);
  if (st) {
    tq_buf_deinit(&tmp);
    return st;
  }
  /* O_EXCL with 0666: the mode a new file gets from the umask, and no clash with a stale file. */
  int fd = open(tmp.data, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) {
    st = tqh_errno_status(errno, path, "cannot create a temporary file");
    tq_buf_deinit(&tmp);
    return st;
  }
  st = tq_fd_write_all(fd, tmp.data, data, len);
  if (close(fd) != 0 && !st) st = tqh_errno_status(errno, tmp.data, "close failed");
  if (!st && rename(tmp.data, path) != 0)
    st = tqh_errno_status(errno, path, "cannot rename into place");
  /* Whatever failed, the temporary goes: a failed write must not leave litter beside `path`. */
  if (st) unlink(tmp.data);
  tq_buf_deinit(&tmp);
  return st;
}

/* Copies the regular file `from` to `to`, keeping its permission bits. An existing `to` is
 * removed first, never written through: it may be a hard link to another tree's file. */
static tq_status_t copy_file(const char *from, const char *to, mode_t mode) {
  int in = open(from, O_RDONLY | O_CLOEXEC);
  if (in < 0) return tqh_errno_status(errno, from, "cannot open");
  int out = -1;
  if (unlink(to) == 0 || errno == ENOENT)
    out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode & 0777);
  if (out < 0) {
    tq_status_t st = tqh_errno_status(errno, to, "cannot create");
    close(in);
    return st;
  }
  char buf[65536];
  tq_status_t st = NULL;
  while (!st) {
    ssize_t n = read(in, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) st = tqh_errno_status(errno, from, "read failed");
    if (n <= 0) break;
    st = tq_fd_write_all(out, to, buf, (size_t)n);
  }
  close(in);
  if (close(out) != 0 && !st) st = tqh_errno_status(errno, to, "close failed");
  return st;
}

tq_status_t tqh_link_tree(const char *from, const char *to) {
  struct stat sb;
  if (lstat(from, &sb) != 0) return tqh_errno_status(errno, from, "cannot stat");
  if (S_ISDIR(sb.st_mode)) {
    if (mkdir(to, 0777) != 0 && errno != EEXIST)
      return tqh_errno_status(errno, to, "cannot create");
    DIR *d = opendir(from);
    if (!d) return tqh_errno_status(errno, from, "cannot open");
    tq_status_t st = NULL;
    struct dirent *e;
    tq_buf_t a, b;
    tq_buf_init(&a, 0);
    tq_buf_init(&b, 0);
    while (!st && (e = readdir(d))) {
      if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
      tq_buf_clear(&a);
      tq_buf_clear(&b);
      st = tq_buf_printf(&a, "%s/%s", from, e->d_name);
      if (!st) st = tq_buf_printf(&b, "%s/%s", to, e->d_name);
      if (!st) st = tqh_link_tree(a.data, b.data);
    }
    closedir(d);
    tq_buf_deinit(&a);
    tq_buf_deinit(&b);
    return st;
  }
  if (S_ISLNK(sb.st_mode)) {
    char target[PATH_MAX];
    ssize_t n = readlink(from, target, sizeof(target) - 1);
    if (n < 0) return tqh_errno_status(errno, from, "cannot read link");
    target[n] = 0;
    if (symlink(target, to) == 0) return NULL;
    if (errno == EEXIST && unlink(to) == 0 && symlink(target, to) == 0) return NULL;
    return tqh_errno_status(errno, to, "cannot create link");
  }
  if (!S_ISREG(sb.st_mode)) return NULL; /* sockets, FIFOs: not results */
  if (link(from, to) == 0) return NULL;
  if (errno == EEXIST && unlink(to) == 0 && link(from, to) == 0) return NULL;
  return copy_file(from, to, sb.st_mode);
}

tq_status_t tqh_remove_tree(const char *path) {
  struct stat sb;
  if (lstat(path, &sb) != 0)
    return errno == ENOENT ? NULL : tqh_errno_status(errno, path, "cannot stat");
  if (!S_ISDIR(sb.st_mode)) {
    if (unlink(path) != 0 && errno != ENOENT) return tqh_errno_status(errno, path, "cannot remove");
    return NULL;
  }
  DIR *d = opendir(path);
  if (!d) return tqh_errno_status(errno, path, "cannot open");
  tq_status_t st = NULL;
  tq_buf_t child;
  tq_buf_init(&child, 0);
  struct dirent *e;
  while (!st && (e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    tq_buf_clear(&child);
    st = tq_buf_printf(&child, "%s/%s", path, e->d_name);
    if (!st) st = tqh_remove_tree(child.data);
  }
  closedir(d);
  tq_buf_deinit(&child);
  if (!st && rmdir(path) != 0 && errno != ENOENT)
    st = tqh_errno_status(errno, path, "cannot remove");
  return st;
}
