/* The suites of the harness-tests binary, one per test file, and the helpers they share. */
#ifndef TORQ_HARNESS_TESTS_SUITES_H
#define TORQ_HARNESS_TESTS_SUITES_H

#include <check.h>
#include <stddef.h>

#include "torq/base/status.h"
#include "torq/harness/annotate.h"

/* Every suite of the binary, in run order. A suite whose file is not linked is skipped: the
 * declarations are weak, so adding a file means adding its name here only. */
#define TH_SUITES(X) \
  X(intervals)       \
  X(profile_csv)     \
  X(annotate)        \
  X(annotate_stream) \
  X(bad_input)       \
  X(overview)        \
  X(overview_golden) \
  X(perfetto)        \
  X(annotate_corpus) \
  X(stats)           \
  X(utest)           \
  X(changepoint)     \
  X(journal)         \
  X(junit)           \
  X(results)         \
  X(config)          \
  X(suite)           \
  X(select)          \
  X(shell_quote)     \
  X(ssh)             \
  X(board)           \
  X(baseline)        \
  X(history)         \
  X(upload)          \
  X(html_report)     \
  X(trends)          \
  X(execute)         \
  X(toolchain)       \
  X(out_file)

#define TH_DECLARE_SUITE(name) Suite *name##_suite(void) __attribute__((weak));
TH_SUITES(TH_DECLARE_SUITE)
#undef TH_DECLARE_SUITE

/* Fails the test with the formatted status when `expr` is not OK. */
#define TH_OK(expr)                                                     \
  do {                                                                  \
    tq_status_t th__st = (expr);                                        \
    if (th__st) {                                                       \
      char *th__msg = tq_status_format(th__st, 1);                      \
      tq_status_free(th__st);                                           \
      ck_abort_msg("%s failed: %s", #expr, th__msg ? th__msg : "(oom)"); \
    }                                                                   \
  } while (0)

/* A fresh temporary folder (heap string, free with th_rmtree). */
char *th_tmpdir(void);
/* Removes a folder and everything in it, then frees `path`. */
void th_rmtree(char *path);
/* dir + "/" + name, heap (free()). */
char *th_path(const char *dir, const char *name);
void th_write(const char *path, const char *text);
/* The file's bytes, heap and NUL-terminated (free()); *out_len may be NULL. */
char *th_read(const char *path, size_t *out_len);

/* The hand-made fixture: a debug-info directory (manifest, source copy m.mlir with one
 * `tosa.abs` at line 2, col 8, and the program below) in `dir`:
 *   actions 0 NSS_START job 0, 1 NSS_START job 1, 2 NSS_WAIT job 0, 3 NSS_WAIT job 1,
 *           4 HOST_COPY, 5 HOST_START host 0, 6 HOST_WAIT host 0, 7 NSS_START job 2,
 *           8 NSS_WAIT job 2, 9 ALLOC
 *   job 0: DMA_IN, DMA_OUT; job 1: SLICE1 (kernel "add"), CSS; job 2: CDMA, SLICE0 ("conv2d")
 *   host program 0: tosa.cast
 * Its profile TH_FIXTURE_PROFILE runs them once (times in the overview test). */
void th_fixture_debug_info(const char *dir);
/* The same with `dispatches` (1 to 9) dispatches, main_dispatch_0, main_dispatch_1, ..., each
 * with the program above. */
void th_fixture_debug_info_dispatches(const char *dir, int dispatches);
extern const char TH_FIXTURE_PROFILE[];
/* The same actions in the Torq runtime's shape: INIT and its parts, two HAL scopes and two
 * dispatch runs, each with its own invocation id, interleaved in time order. */
extern const char TH_FIXTURE_TORQ_PROFILE[];

/* Writes `profile` to dir/p.csv and annotates it with the debug info in `debug_dir`. */
tqh_annotation_t *th_annotate_text(const char *dir, const char *debug_dir, const char *profile);

/* 1 when the annotation has a diagnostic of `severity` at `line` whose message contains
 * `needle`. */
int th_has_diag(const tqh_annotation_t *ann, tqh_severity_t severity, unsigned line,
                const char *needle);
/* All diagnostics as text (heap, free()), for failure messages. */
char *th_diags_text(const tqh_annotation_t *ann);

/* 1 when `cmd` (run by /bin/sh) exits 0. */
int th_shell_ok(const char *cmd);

#endif
