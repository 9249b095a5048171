/* Golden files: the trace.csv and the debug-info program of a few small models, compared byte for
 * byte with compiler/tests/golden/. With TORQ_UPDATE_GOLDEN=1 the test rewrites the files instead
 * (`make golden`); review the diff before committing it. The models and golden files are found in
 * the repository's top folder (tq_test_top: $TORQ_TOP, else from the binary's location), whatever
 * the working directory; a missing one fails the test. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "torq/base/alloc.h"
#include "torq/base/file.h"
#include "torq/compiler/compile.h"
#include "torq/compiler/mlir.h"
#include "tq_test.h"

#define GOLDEN_DIR "compiler/tests/golden"

static const char *const MODELS[] = {
    "add_rescaled_28x28x32_i8",
    "maxpool_2x2_s2_32x32x16_i8",
    "conv2d_3x3_16x16x8_i8",
};

#define TG_OK(expr)                                                   \
  do {                                                                \
    tq_status_t tg__s = (expr);                                       \
    if (tg__s) {                                                      \
      char *tg__t = tq_status_format(tg__s, 1);                       \
      tq_status_free(tg__s);                                          \
      ck_abort_msg("unexpected status: %s", tg__t ? tg__t : "(oom)"); \
    }                                                                 \
  } while (0)

/* The first line where two texts differ, for a readable failure. */
static size_t first_diff_line(const char *a, size_t alen, const char *b, size_t blen) {
  size_t line = 1;
  for (size_t i = 0; i < alen && i < blen; i++) {
    if (a[i] != b[i]) return line;
    if (a[i] == '\n') line++;
  }
  return line;
}

static void compare_or_update(const char *name, const tq_buf_t *got) {
  char path[4096];
  snprintf(path, sizeof(path), "%s/%s/%s", tq_test_top(), GOLDEN_DIR, name);
  const char *update = getenv("TORQ_UPDATE_GOLDEN");
  if (update && strcmp(update, "1") == 0) {
    TG_OK(tq_file_write_atomic(path, got->data, got->len));
    fprintf(stderr, "golden: rewrote %s\n", path);
    return;
  }
  tq_buf_t want;
  tq_status_t st = tq_file_read(path, 0, &want);
  if (st) {
    tq_status_free(st);
    tq_buf_deinit(&want);
    ck_abort_msg("golden file %s is missing: run `make golden`", path);
  }
  int same = want.len == got->len && memcmp(want.data, got->data, got->len) == 0;
  size_t line = same ? 0 : first_diff_line(want.data, want.len, got->data, got->len);
  tq_buf_deinit(&want);
  ck_assert_msg(same,
                "%s differs from the compiler's output from line %zu (TORQ_UPDATE_GOLDEN=1 "
                "rewrites it)",
                path, line);
}

START_TEST(golden_trace_and_debug_program_match) {
  const char *stem = MODELS[_i];
  char path[4096], base[256];
  snprintf(path, sizeof(path), "%s/suites/models/%s.mlir", tq_test_top(), stem);
  snprintf(base, sizeof(base), "%s.mlir", stem);
  tq_buf_t text;
  TG_OK(tq_file_read(path, 0, &text)); /* a missing model fails, naming the path */
  /* Parsed under its base name, so that the locations in the outputs do not depend on where the
   * repository is. */
  tqc_module_t *src = NULL;
  tqc_compiled_t *c = NULL;
  TG_OK(tqc_module_parse(base, text.data, text.len, NULL, &src));
  TG_OK(tqc_module_verify(src));
  TG_OK(tqc_compile(src, NULL, &c));
  tq_buf_t csv, prog;
  tq_buf_init(&csv, 0);
  tq_buf_init(&prog, 0);
  TG_OK(tqc_compiled_trace_csv(c, &csv));
  TG_OK(tqc_compiled_debug_program(c, &prog));
  char name[300];
  snprintf(name, sizeof(name), "%s.trace.csv", stem);
  compare_or_update(name, &csv);
  snprintf(name, sizeof(name), "%s.torq.mlir", stem);
  compare_or_update(name, &prog);
  /* The pinned program is one our parser reads. */
  tqc_module_t *back = NULL;
  TG_OK(tqc_module_parse(name, prog.data, prog.len, NULL, &back));
  tqc_module_destroy(back);
  tq_buf_deinit(&csv);
  tq_buf_deinit(&prog);
  tq_buf_deinit(&text);
  tqc_compiled_destroy(c);
  tqc_module_destroy(src);
}
END_TEST

Suite *golden_suite(void);
Suite *golden_suite(void) {
  Suite *s = suite_create("golden");
  TCase *tc = tcase_create("outputs");
  tcase_add_loop_test(tc, golden_trace_and_debug_program_match, 0,
                      (int)(sizeof(MODELS) / sizeof(MODELS[0])));
  suite_add_tcase(s, tc);
  return s;
}
