/* Shared by the libtorq-base tests: suite constructors, a temporary folder fixture and small file
 * helpers. */
#ifndef TORQ_BASE_TESTS_HELPERS_H
#define TORQ_BASE_TESTS_HELPERS_H

#include <check.h>
#include <stddef.h>

#include "torq/base/status.h"

Suite *alloc_suite(void);
Suite *arena_suite(void);
Suite *checked_suite(void);
Suite *diag_suite(void);
Suite *file_suite(void);
Suite *sha256_suite(void);
Suite *status_suite(void);
Suite *str_suite(void);
Suite *usage_suite(void);

#define TH_PATH_MAX 4096

/* Checked fixture: disarms the allocation-failure hook, so that a failed OOM test cannot leak its
 * armed hook into the next test when running with CK_FORK=no. */
void th_alloc_reset(void);

/* Checked fixture: a fresh folder from mkdtemp under /tmp, removed with its content after. */
void th_tmpdir_setup(void);
void th_tmpdir_teardown(void);
const char *th_tmpdir(void);

/* Writes "<tmpdir>/<name>" into `out` (TH_PATH_MAX bytes) and returns it. */
char *th_path(char *out, const char *name);

/* Creates or truncates `path` with the given content; fails the test on error. */
void th_write_file(const char *path, const void *data, size_t len);

/* The number of entries in `dir`, not counting "." and "..". */
int th_count_entries(const char *dir);

/* Asserts the code and exact message of a status, then frees it. */
#define TH_ASSERT_STATUS(status, want_code, want_message)           \
  do {                                                              \
    tq_status_t th__s = (status);                                   \
    ck_assert_ptr_nonnull(th__s);                                   \
    ck_assert_str_eq(tq_status_code_name(tq_status_code(th__s)),    \
                     tq_status_code_name(want_code));               \
    ck_assert_str_eq(tq_status_message(th__s), (want_message));     \
    tq_status_free(th__s);                                          \
  } while (0)

/* Asserts that a status is OK, showing the error otherwise. */
#define TH_ASSERT_OK(status)                                                  \
  do {                                                                        \
    tq_status_t th__s = (status);                                             \
    if (th__s) {                                                              \
      char *th__text = tq_status_format(th__s, 1);                            \
      ck_abort_msg("unexpected status: %s", th__text ? th__text : "(oom)"); \
    }                                                                         \
  } while (0)

#endif
