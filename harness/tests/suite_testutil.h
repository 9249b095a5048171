/* Helpers of the suite, config and select tests: a temporary folder with model files, and
 * loading a suite from text with its errors kept. */
#ifndef TORQ_HARNESS_TESTS_SUITE_TESTUTIL_H
#define TORQ_HARNESS_TESTS_SUITE_TESTUTIL_H

#include <check.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "torq/harness/config.h"
#include "torq/harness/suite.h"

static int st__rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
  (void)sb;
  (void)flag;
  (void)ftw;
  return remove(path);
}

/* Removes a folder and everything in it, then frees `path`. */
static inline void st_rmtree(char *path) {
  if (path) nftw(path, st__rm_one, 16, FTW_DEPTH | FTW_PHYS);
  free(path);
}

/* A fresh temporary folder (heap; st_rmtree). */
static inline char *st_tmpdir(void) {
  const char *base = getenv("TMPDIR");
  char tmpl[4096];
  snprintf(tmpl, sizeof(tmpl), "%s/torq-suite-XXXXXX", base && *base ? base : "/tmp");
  ck_assert_ptr_nonnull(mkdtemp(tmpl));
  char *s = strdup(tmpl);
  ck_assert_ptr_nonnull(s);
  return s;
}

/* Writes `text` to dir/name, making the folders on the way. */
static inline void st_write(const char *dir, const char *name, const char *text) {
  char path[4096];
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  for (char *p = path + strlen(dir) + 1; *p; p++) {
    if (*p != '/') continue;
    *p = '\0';
    mkdir(path, 0777);
    *p = '/';
  }
  FILE *f = fopen(path, "wb");
  ck_assert_msg(f != NULL, "cannot write %s", path);
  fputs(text, f);
  fclose(f);
}

static inline void st_mkdir(const char *dir, const char *name) {
  char path[4096];
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  ck_assert_int_eq(mkdir(path, 0777), 0);
}

/* dir/name in a static buffer (one at a time). */
static inline const char *st_path(const char *dir, const char *name) {
  static char path[4096];
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  return path;
}

/* The error at line:col whose message holds `needle`, or NULL. */
static inline const tqh_diag_t *st_find_error(const tqh_diags_t *errors, uint32_t line,
                                              uint32_t col, const char *needle) {
  for (size_t i = 0; i < errors->count; i++) {
    const tqh_diag_t *e = &errors->items[i];
    if (e->line == line && e->col == col && strstr(e->message, needle)) return e;
  }
  return NULL;
}

/* Every error as text (heap), for failure messages. */
static inline char *st_errors_text(const tqh_diags_t *errors) {
  tq_buf_t b;
  tq_buf_init(&b, 0);
  tq_status_free(tqh_diags_format_report(errors, &b));
  char *s = strdup(b.data ? b.data : "");
  tq_buf_deinit(&b);
  return s;
}

#endif
