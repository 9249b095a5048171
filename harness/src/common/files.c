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

#include "torq/base/alloc.h"
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
  return tqh_write_quick_atomic_at(AT_FDCWD, path, path, data, len);
}

tq_status_t tqh_write_quick_atomic_at(int dir_fd, const char *rel, const char *path,
                                      const void *data, size_t len) {
  size_t path_len = strlen(path), rel_len = strlen(rel);
  if (!rel_len || rel_len > path_len || strcmp(path + path_len - rel_len, rel) != 0 ||
      (rel_len < path_len && path[path_len - rel_len - 1] != '/'))
    return TQ_STATUS(TQ_INVALID_ARGUMENT, "%s: does not end in '%s'", path, rel);
  /* The pid and a counter keep the temporary name apart from other processes and threads. */
  static unsigned long counter;
  unsigned long n = __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED);
  const char *slash = strrchr(path, '/');
  size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0;
  /* The temporary's whole path, for messages; its tail, from where `rel` starts, for the calls. */
  tq_buf_t tmp;
  tq_buf_init(&tmp, 0);
  tq_status_t st = tq_buf_append(&tmp, path, dir_len);
  if (!st) st = tq_buf_printf(&tmp, ".%s.tmp.%ld.%lu", path + dir_len, (long)getpid(), n);
  if (st) {
    tq_buf_deinit(&tmp);
    return st;
  }
  const char *tmp_rel = tmp.data + (path_len - rel_len);
  /* O_EXCL with 0666: the mode a new file gets from the umask, and no clash with a stale file. */
  int fd = openat(dir_fd, tmp_rel, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) {
    st = tqh_errno_status(errno, path, "cannot create a temporary file");
    tq_buf_deinit(&tmp);
    return st;
  }
  st = tq_fd_write_all(fd, tmp.data, data, len);
  if (close(fd) != 0 && !st) st = tqh_errno_status(errno, tmp.data, "close failed");
  if (!st && renameat(dir_fd, tmp_rel, dir_fd, rel) != 0)
    st = tqh_errno_status(errno, path, "cannot rename into place");
  /* Whatever failed, the temporary goes: a failed write must not leave litter beside `path`. */
  if (st) unlinkat(dir_fd, tmp_rel, 0);
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

void tqh_tree_init(tqh_tree_t *tree) { memset(tree, 0, sizeof(*tree)); }

static void tree_clear(tqh_tree_t *tree) {
  for (size_t i = 0; i < tree->count; i++) {
    tq_free(tree->entries[i].path);
    tq_free(tree->entries[i].target);
  }
  tree->count = 0;
}

void tqh_tree_deinit(tqh_tree_t *tree) {
  tree_clear(tree);
  tq_free(tree->entries);
  tqh_tree_init(tree);
}

/* Appends an entry (its strings copied). */
static tq_status_t tree_add(tqh_tree_t *tree, const char *path, tqh_tree_kind_t kind,
                            unsigned mode, const char *target) {
  if (tree->count == tree->cap) {
    size_t cap = tree->cap ? tree->cap * 2 : 8;
    tqh_tree_entry_t *entries = tq_realloc(tree->entries, cap * sizeof(*entries));
    if (!entries) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
    tree->entries = entries;
    tree->cap = cap;
  }
  tqh_tree_entry_t *e = &tree->entries[tree->count];
  e->path = tq_strdup_printf("%s", path);
  e->kind = kind;
  e->mode = mode;
  e->target = target ? tq_strdup_printf("%s", target) : NULL;
  if (!e->path || (target && !e->target)) {
    tq_free(e->path);
    tq_free(e->target);
    return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  }
  tree->count++;
  return NULL;
}

/* Adds `from` (at `rel` within the tree) and, for a folder, what it holds. */
static tq_status_t tree_walk(const char *from, const char *rel, tqh_tree_t *tree) {
  struct stat sb;
  if (lstat(from, &sb) != 0) return tqh_errno_status(errno, from, "cannot stat");
  if (S_ISLNK(sb.st_mode)) {
    char target[PATH_MAX];
    ssize_t n = readlink(from, target, sizeof(target) - 1);
    if (n < 0) return tqh_errno_status(errno, from, "cannot read link");
    target[n] = 0;
    return tree_add(tree, rel, TQH_TREE_LINK, 0, target);
  }
  if (S_ISREG(sb.st_mode)) return tree_add(tree, rel, TQH_TREE_FILE, sb.st_mode & 07777, NULL);
  if (!S_ISDIR(sb.st_mode)) return NULL; /* sockets, FIFOs: not results */
  TQ_TRY(tree_add(tree, rel, TQH_TREE_DIR, 0, NULL));
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
    if (!st) st = tq_buf_printf(&b, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
    if (!st) st = tree_walk(a.data, b.data, tree);
  }
  closedir(d);
  tq_buf_deinit(&a);
  tq_buf_deinit(&b);
  return st;
}

tq_status_t tqh_tree_read(const char *from, tqh_tree_t *tree) {
  tree_clear(tree);
  return tree_walk(from, "", tree);
}

/* `root`, or `root/rel`. */
static tq_status_t tree_path(tq_buf_t *out, const char *root, const char *rel) {
  tq_buf_clear(out);
  return *rel ? tq_buf_printf(out, "%s/%s", root, rel) : tq_buf_append_cstr(out, root);
}

static tq_status_t link_entry(const tqh_tree_entry_t *e, const char *from, const char *to) {
  switch (e->kind) {
  case TQH_TREE_DIR:
    if (mkdir(to, 0777) != 0 && errno != EEXIST) return tqh_errno_status(errno, to, "cannot create");
    return NULL;
  case TQH_TREE_LINK:
    if (symlink(e->target, to) == 0) return NULL;
    if (errno == EEXIST && unlink(to) == 0 && symlink(e->target, to) == 0) return NULL;
    return tqh_errno_status(errno, to, "cannot create link");
  case TQH_TREE_FILE:
    if (link(from, to) == 0) return NULL;
    if (errno == EEXIST && unlink(to) == 0 && link(from, to) == 0) return NULL;
    return copy_file(from, to, (mode_t)e->mode);
  }
  return NULL;
}

tq_status_t tqh_tree_link(const tqh_tree_t *tree, const char *from, const char *to) {
  tq_buf_t a, b;
  tq_buf_init(&a, 0);
  tq_buf_init(&b, 0);
  tq_status_t st = NULL;
  for (size_t i = 0; !st && i < tree->count; i++) {
    const tqh_tree_entry_t *e = &tree->entries[i];
    st = tree_path(&a, from, e->path);
    if (!st) st = tree_path(&b, to, e->path);
    if (!st) st = link_entry(e, a.data, b.data);
  }
  tq_buf_deinit(&a);
  tq_buf_deinit(&b);
  return st;
}

tq_status_t tqh_link_tree(const char *from, const char *to) {
  tqh_tree_t tree;
  tqh_tree_init(&tree);
  tq_status_t st = tqh_tree_read(from, &tree);
  if (!st) st = tqh_tree_link(&tree, from, to);
  tqh_tree_deinit(&tree);
  return st;
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
