/* torq-enospc.so, for the end-to-end tests only: an LD_PRELOAD shim that makes one folder behave
 * as a small disk that fills up, where a test cannot mount a real one (mounting a tmpfs needs
 * root and a mount namespace; test_limits.c uses that when it can).
 *
 *   TORQ_ENOSPC_DIR=/abs/folder     the "disk": regular files under it count
 *   TORQ_ENOSPC_BUDGET=/abs/file    8 bytes, the free bytes left (an int64, shared by every
 *                                   process of the run through a MAP_SHARED mapping)
 *
 * A write to a file under the folder takes its bytes from the budget; one that does not fit
 * writes what fits (a short write, as a filling disk gives) and the next fails with ENOSPC.
 * Space comes back as a real file system gives it back: a removed file, a file renamed over,
 * truncated (open with O_TRUNC, ftruncate). posix_fallocate takes its length. A hard link into
 * the folder from outside fails with EXDEV, as across file systems. It covers the
 * system calls the harness writes files with (write, writev, pwrite); stdio's internal writes
 * are not seen (the harness writes its results without stdio), so the budget is an
 * approximation of a disk, not a model of one.
 *
 * Why a shim and not RLIMIT_FSIZE: that limit is per file and fails with EFBIG and SIGXFSZ, not
 * ENOSPC, so it would test another error; the shim gives the product the errno of a full disk,
 * in every process of the run (the runner and its forked workers inherit it), with space that
 * comes back when files are removed, as the product's reserve relies on. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

static int64_t *g_budget;
static char g_dir[PATH_MAX];
static size_t g_dir_len;
static int g_ready; /* 0 not yet, 1 on, -1 off */

static void setup(void) {
  if (g_ready) return;
  g_ready = -1;
  const char *dir = getenv("TORQ_ENOSPC_DIR"), *budget = getenv("TORQ_ENOSPC_BUDGET");
  if (!dir || !budget || strlen(dir) >= sizeof(g_dir)) return;
  int (*real_open)(const char *, int, ...) = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT,
                                                                                   "open");
  int fd = real_open(budget, O_RDWR | O_CLOEXEC);
  if (fd < 0) return;
  void *p = mmap(NULL, sizeof(int64_t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (p == MAP_FAILED) return;
  g_budget = p;
  snprintf(g_dir, sizeof(g_dir), "%s", dir);
  g_dir_len = strlen(g_dir);
  while (g_dir_len > 1 && g_dir[g_dir_len - 1] == '/') g_dir[--g_dir_len] = 0;
  g_ready = 1;
}

static int under_dir(const char *path) {
  return path && !strncmp(path, g_dir, g_dir_len) && (path[g_dir_len] == '/' || !path[g_dir_len]);
}

/* Whether descriptor `fd` is a regular file under the folder. */
static int counted_fd(int fd) {
  setup();
  if (g_ready != 1) return 0;
  char link[64], path[PATH_MAX];
  snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, path, sizeof(path) - 1);
  if (n <= 0) return 0;
  path[n] = 0;
  struct stat sb;
  return under_dir(path) && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* The size a path's regular file (under the folder, with one link) gives back when it goes. */
static off_t freed_by(int dirfd, const char *path) {
  setup();
  if (g_ready != 1) return 0;
  char full[2 * PATH_MAX + 2];
  if (path[0] != '/') {
    char base[PATH_MAX];
    if (dirfd == AT_FDCWD) {
      if (!getcwd(base, sizeof(base))) return 0;
    } else {
      char link[64];
      snprintf(link, sizeof(link), "/proc/self/fd/%d", dirfd);
      ssize_t n = readlink(link, base, sizeof(base) - 1);
      if (n <= 0) return 0;
      base[n] = 0;
    }
    snprintf(full, sizeof(full), "%s/%s", base, path);
  } else {
    snprintf(full, sizeof(full), "%s", path);
  }
  struct stat sb;
  if (!under_dir(full) || lstat(full, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_nlink != 1)
    return 0;
  return sb.st_size;
}

static void give_back(off_t bytes) {
  if (bytes > 0 && g_budget) __atomic_add_fetch(g_budget, (int64_t)bytes, __ATOMIC_SEQ_CST);
}

/* Takes up to `want` bytes from the budget: what may be written (0: the disk is full). */
static size_t take(size_t want) {
  int64_t have = __atomic_load_n(g_budget, __ATOMIC_SEQ_CST);
  for (;;) {
    if (have <= 0) return 0;
    int64_t got = (int64_t)want < have ? (int64_t)want : have;
    if (__atomic_compare_exchange_n(g_budget, &have, have - got, 0, __ATOMIC_SEQ_CST,
                                    __ATOMIC_SEQ_CST))
      return (size_t)got;
  }
}

/* The next definition of `name` (libc's), found once. */
#define REAL(name)                        \
  static __typeof__(&name) real_##name; \
  if (!real_##name) real_##name = (__typeof__(&name))dlsym(RTLD_NEXT, #name)

ssize_t write(int fd, const void *buf, size_t n) {
  REAL(write);
  if (!n || !counted_fd(fd)) return real_write(fd, buf, n);
  size_t may = take(n);
  if (!may) {
    errno = ENOSPC;
    return -1;
  }
  ssize_t done = real_write(fd, buf, may);
  give_back((off_t)may - (done > 0 ? done : 0));
  return done;
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off) {
  REAL(pwrite);
  if (!n || !counted_fd(fd)) return real_pwrite(fd, buf, n, off);
  size_t may = take(n);
  if (!may) {
    errno = ENOSPC;
    return -1;
  }
  ssize_t done = real_pwrite(fd, buf, may, off);
  give_back((off_t)may - (done > 0 ? done : 0));
  return done;
}

ssize_t writev(int fd, const struct iovec *iov, int cnt) {
  REAL(writev);
  size_t n = 0;
  for (int i = 0; i < cnt; i++) n += iov[i].iov_len;
  if (!n || !counted_fd(fd)) return real_writev(fd, iov, cnt);
  size_t may = take(n);
  if (!may) {
    errno = ENOSPC;
    return -1;
  }
  /* What fits, cut at the budget. */
  struct iovec cut[64];
  int k = 0;
  for (size_t left = may; k < cnt && k < 64 && left; k++) {
    cut[k] = iov[k];
    if (cut[k].iov_len > left) cut[k].iov_len = left;
    left -= cut[k].iov_len;
  }
  ssize_t done = real_writev(fd, cut, k);
  give_back((off_t)may - (done > 0 ? done : 0));
  return done;
}

int posix_fallocate(int fd, off_t off, off_t len) {
  REAL(posix_fallocate);
  if (len <= 0 || !counted_fd(fd)) return real_posix_fallocate(fd, off, len);
  struct stat sb;
  off_t grow = fstat(fd, &sb) == 0 && off + len > sb.st_size ? off + len - sb.st_size : 0;
  size_t got = grow ? take((size_t)grow) : 0;
  if (got < (size_t)grow) {
    give_back((off_t)got);
    return ENOSPC;
  }
  int rc = real_posix_fallocate(fd, off, len);
  if (rc) give_back(grow);
  return rc;
}
int posix_fallocate64(int fd, off_t off, off_t len) __attribute__((alias("posix_fallocate")));

int ftruncate(int fd, off_t len) {
  REAL(ftruncate);
  struct stat sb;
  off_t before = counted_fd(fd) && fstat(fd, &sb) == 0 ? sb.st_size : -1;
  int rc = real_ftruncate(fd, len);
  if (rc == 0 && before > len) give_back(before - len);
  return rc;
}

int unlink(const char *path) {
  REAL(unlink);
  off_t size = freed_by(AT_FDCWD, path);
  int rc = real_unlink(path);
  if (rc == 0) give_back(size);
  return rc;
}

int unlinkat(int dirfd, const char *path, int flags) {
  REAL(unlinkat);
  off_t size = flags & AT_REMOVEDIR ? 0 : freed_by(dirfd, path);
  int rc = real_unlinkat(dirfd, path, flags);
  if (rc == 0) give_back(size);
  return rc;
}

int rename(const char *from, const char *to) {
  REAL(rename);
  off_t size = freed_by(AT_FDCWD, to);
  int rc = real_rename(from, to);
  if (rc == 0) give_back(size);
  return rc;
}

int renameat(int fromfd, const char *from, int tofd, const char *to) {
  REAL(renameat);
  off_t size = freed_by(tofd, to);
  int rc = real_renameat(fromfd, from, tofd, to);
  if (rc == 0) give_back(size);
  return rc;
}

/* A hard link from outside the folder into it crosses "disks": EXDEV, as from another file
 * system (the harness then copies the file, and the copy takes space). */
static int crosses(int fromfd, const char *from, int tofd, const char *to) {
  char a[2 * PATH_MAX + 2], b[2 * PATH_MAX + 2], base[PATH_MAX];
  setup();
  if (g_ready != 1) return 0;
  const char *paths[2] = {from, to};
  int fds[2] = {fromfd, tofd};
  char *outs[2] = {a, b};
  for (int i = 0; i < 2; i++) {
    if (paths[i][0] == '/') {
      snprintf(outs[i], sizeof(a), "%s", paths[i]);
      continue;
    }
    if (fds[i] == AT_FDCWD) {
      if (!getcwd(base, sizeof(base))) return 0;
    } else {
      char link[64];
      snprintf(link, sizeof(link), "/proc/self/fd/%d", fds[i]);
      ssize_t n = readlink(link, base, sizeof(base) - 1);
      if (n <= 0) return 0;
      base[n] = 0;
    }
    snprintf(outs[i], sizeof(a), "%s/%s", base, paths[i]);
  }
  return under_dir(a) != under_dir(b);
}

int link(const char *from, const char *to) {
  REAL(link);
  if (crosses(AT_FDCWD, from, AT_FDCWD, to)) {
    errno = EXDEV;
    return -1;
  }
  return real_link(from, to);
}

int linkat(int fromfd, const char *from, int tofd, const char *to, int flags) {
  REAL(linkat);
  if (crosses(fromfd, from, tofd, to)) {
    errno = EXDEV;
    return -1;
  }
  return real_linkat(fromfd, from, tofd, to, flags);
}

/* open(..., O_TRUNC) of an existing file gives its bytes back. */
static int open_common(int dirfd, const char *path, int flags, mode_t mode) {
  REAL(openat);
  off_t size = flags & O_TRUNC ? freed_by(dirfd, path) : 0;
  int fd = real_openat(dirfd, path, flags, mode);
  if (fd >= 0) give_back(size);
  return fd;
}

int open(const char *path, int flags, ...) {
  mode_t mode = 0;
  if (flags & (O_CREAT | O_TMPFILE)) {
    va_list ap;
    va_start(ap, flags);
    mode = (mode_t)va_arg(ap, int);
    va_end(ap);
  }
  return open_common(AT_FDCWD, path, flags, mode);
}
int open64(const char *path, int flags, ...) __attribute__((alias("open")));

int openat(int dirfd, const char *path, int flags, ...) {
  mode_t mode = 0;
  if (flags & (O_CREAT | O_TMPFILE)) {
    va_list ap;
    va_start(ap, flags);
    mode = (mode_t)va_arg(ap, int);
    va_end(ap);
  }
  return open_common(dirfd, path, flags, mode);
}
int openat64(int dirfd, const char *path, int flags, ...) __attribute__((alias("openat")));
