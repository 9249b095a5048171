/* Helpers shared by the tests of the results directory (test_results.c, test_journal.c,
 * test_junit.c, test_stats.c): status assertions, scratch folders, whole-file reads. */
#ifndef TORQ_HARNESS_TESTS_RESULTS_TESTUTIL_H
#define TORQ_HARNESS_TESTS_RESULTS_TESTUTIL_H

#include <check.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "torq/base/alloc.h"
#include "torq/base/file.h"
#include "torq/base/status.h"

/* Asserts that a status is OK, showing the error otherwise. */
#define RT_OK(expr)                                                                   \
  do {                                                                                \
    tq_status_t rt__s = (expr);                                                       \
    if (rt__s) {                                                                      \
      char *rt__text = tq_status_format(rt__s, 1);                                    \
      tq_status_free(rt__s);                                                          \
      ck_abort_msg("%s: unexpected status: %s", #expr, rt__text ? rt__text : "(oom)"); \
    }                                                                                 \
  } while (0)

/* Asserts that `expr` fails with `code`; frees the status. */
#define RT_FAILS(expr, code)                                                              \
  do {                                                                                    \
    tq_status_t rt__s = (expr);                                                           \
    ck_assert_msg(rt__s != NULL, "%s: expected an error", #expr);                         \
    ck_assert_msg(tq_status_code(rt__s) == (code), "%s: code %s, expected %s: %s", #expr, \
                  tq_status_code_name(tq_status_code(rt__s)), tq_status_code_name(code),  \
                  tq_status_message(rt__s));                                              \
    tq_status_free(rt__s);                                                                \
  } while (0)

/* A fresh folder under $TMPDIR (or /tmp); heap path, free with rt_tmpdir_remove. */
static inline char *rt_tmpdir(void) {
  const char *base = getenv("TMPDIR");
  char *path = malloc(4096);
  ck_assert_ptr_nonnull(path);
  snprintf(path, 4096, "%s/torq-results-test-XXXXXX", base && *base ? base : "/tmp");
  ck_assert_ptr_nonnull(mkdtemp(path));
  return path;
}

static inline int rt__rm(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  return remove(path);
}

/* Removes the folder and everything in it, and frees `path`. */
static inline void rt_tmpdir_remove(char *path) {
  nftw(path, rt__rm, 16, FTW_DEPTH | FTW_PHYS);
  free(path);
}

/* The whole file as a heap string (tq_free); fails the test when it cannot be read. */
static inline char *rt_read(const char *path) {
  tq_buf_t buf;
  tq_buf_init(&buf, 0);
  RT_OK(tq_file_read(path, 0, &buf));
  char *s = tq_buf_detach(&buf);
  tq_buf_deinit(&buf);
  ck_assert_ptr_nonnull(s);
  return s;
}

/* DIR/NAME as a heap string (free()). */
static inline char *rt_path(const char *dir, const char *name) {
  size_t n = strlen(dir) + strlen(name) + 2;
  char *p = malloc(n);
  ck_assert_ptr_nonnull(p);
  snprintf(p, n, "%s/%s", dir, name);
  return p;
}

#endif
