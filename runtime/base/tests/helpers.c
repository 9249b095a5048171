/* Test helpers shared by the libtorq-base suites. */
#include "helpers.h"

#include <dirent.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "torq/base/alloc.h"

static char th__tmpdir[TH_PATH_MAX];

void th_alloc_reset(void) { tq_alloc_fail_after(-1); }

void th_tmpdir_setup(void) {
  snprintf(th__tmpdir, sizeof(th__tmpdir), "/tmp/torq-base-tests.XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(th__tmpdir));
}

static int th__remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  return remove(path);
}

void th_tmpdir_teardown(void) {
  if (th__tmpdir[0]) nftw(th__tmpdir, th__remove_entry, 16, FTW_DEPTH | FTW_PHYS);
  th__tmpdir[0] = '\0';
}

const char *th_tmpdir(void) { return th__tmpdir; }

char *th_path(char *out, const char *name) {
  int n = snprintf(out, TH_PATH_MAX, "%s/%s", th__tmpdir, name);
  ck_assert(n > 0 && n < TH_PATH_MAX);
  return out;
}

void th_write_file(const char *path, const void *data, size_t len) {
  FILE *f = fopen(path, "wb");
  ck_assert_msg(f != NULL, "cannot create %s", path);
  ck_assert_uint_eq(fwrite(data, 1, len, f), len);
  ck_assert_int_eq(fclose(f), 0);
}

int th_count_entries(const char *dir) {
  DIR *d = opendir(dir);
  ck_assert_msg(d != NULL, "cannot open %s", dir);
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL)
    if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) n++;
  closedir(d);
  return n;
}
