/* The suites of the compiler-tests binary, one per test file, and helpers they share. */
#ifndef TORQ_COMPILER_TESTS_SUITES_H
#define TORQ_COMPILER_TESTS_SUITES_H

#include <check.h>

#include "torq/base/status.h"
#include "torq/compiler/ir.h"
#include "torq/compiler/mlir.h"

/* Every suite of the binary, in run order. A suite whose file is not linked is skipped: the
 * declarations are weak, so the runner never needs editing when a suite is added or removed. */
#define TT_SUITES(X) \
  X(lexer) \
  X(parser) \
  X(printer) \
  X(verifier) \
  X(corpus) \
  X(bad_input) \
  X(trace_csv) \
  X(tosa_check) \
  X(front_end) \
  X(compile) \
  X(golden) \
  X(npu_e2e)

#define TT_DECLARE_SUITE(name) Suite *name##_suite(void) __attribute__((weak));
TT_SUITES(TT_DECLARE_SUITE)
#undef TT_DECLARE_SUITE

/* Asserts that a status is OK, showing the error otherwise (and freeing it). */
#define TT_ASSERT_OK(status)                                                  \
  do {                                                                        \
    tq_status_t tt__s = (status);                                             \
    if (tt__s) {                                                              \
      char *tt__text = tq_status_format(tt__s, 1);                            \
      tq_status_free(tt__s);                                                  \
      ck_abort_msg("unexpected status: %s", tt__text ? tt__text : "(oom)"); \
    }                                                                         \
  } while (0)

/* Parses `text` as "t.mlir"; fails the test on error. */
tqc_module_t *tt_parse(const char *text);

/* Parses and verifies `text`, expecting TQ_INVALID_INPUT whose message starts with `prefix`
 * (e.g. "t.mlir:3:5: error: use of undefined"). Returns the message (heap, caller frees). */
char *tt_expect_error(const char *text, const char *prefix);

/* Prints a module; fails the test on error. Heap string, caller frees with tq_free. */
char *tt_print(const tqc_module_t *module);

/* The whole file at `path` as a string; fails the test on error. Heap string, caller frees
 * with tq_free. */
char *tt_read_file(const char *path);

/* Starts mlir-opt (`mlir_opt`) printing `in` in MLIR's generic form with locations into `out`
 * (its stderr to /dev/null); returns its pid for waitpid. */
int tt_spawn_mlir_opt(const char *mlir_opt, const char *in, const char *out);

/* The corpus: writes its folder (tq_test_corpus: $TORQ_TESTDATA/tosa_ops) into `dir` (TT_PATH_MAX
 * bytes; may be NULL) and stores the paths ("DIR/NAME") of its *.mlir files, sorted by name
 * (tq_dir_list); 1 then, with at least one path. When the corpus is missing, returns 0 with no
 * paths after tq_test_missing (a failure under CI, a counted skip otherwise): the caller returns.
 * Free the paths with tq_dir_list_free. */
#define TT_PATH_MAX 4096
int tt_corpus_paths(char *dir, char ***out_paths, size_t *out_count);

#endif
