/* The corpus: every model of $TORQ_TESTDATA/tosa_ops parses, verifies, prints, and prints the
 * same text again after a re-parse; and mlir-opt-22 ($TORQ_MLIR_OPT, else Debian's), given the
 * printed text, accepts it and prints it back byte for byte (skipped under valgrind with
 * TORQ_VALGRIND set, where it is slow). A missing corpus or mlir-opt is a failure under CI and a
 * counted skip otherwise (tq_test.h). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "suites.h"
#include "torq/base/alloc.h"
#include "torq/base/file.h"
#include "tq_test.h"

#define MLIR_OPT "/usr/lib/llvm-22/bin/mlir-opt"
#define PARALLEL 8

static char *parse_print(const char *path, const char *text, size_t len) {
  tqc_module_t *m = NULL;
  TT_ASSERT_OK(tqc_module_parse(path, text, len, NULL, &m));
  TT_ASSERT_OK(tqc_module_verify(m));
  char *s = tt_print(m);
  tqc_module_destroy(m);
  return s;
}

START_TEST(corpus_parses_verifies_and_round_trips) {
  char **paths;
  size_t n;
  if (!tt_corpus_paths(NULL, &paths, &n)) return;
  for (size_t i = 0; i < n; i++) {
    tqc_module_t *m = NULL;
    tq_status_t st = tqc_module_parse_file(paths[i], NULL, &m);
    if (st) {
      char *t = tq_status_format(st, 0);
      ck_abort_msg("%s: %s", paths[i], t ? t : "?");
    }
    TT_ASSERT_OK(tqc_module_verify(m));
    ck_assert_msg(tqc_module_entry(m) != NULL, "%s has no entry point", paths[i]);
    char *first = tt_print(m);
    tqc_module_destroy(m);
    char *second = parse_print(paths[i], first, strlen(first));
    ck_assert_msg(strcmp(first, second) == 0, "%s: the reprint differs", paths[i]);
    tq_free(first);
    tq_free(second);
  }
  fprintf(stderr, "corpus: %zu models parse, verify and round-trip\n", n);
  tq_dir_list_free(paths, n);
}
END_TEST

START_TEST(corpus_printed_form_is_accepted_and_kept_by_mlir_opt) {
  if (getenv("TORQ_VALGRIND")) {
    tq_test_skip("mlir-opt is too slow under valgrind (TORQ_VALGRIND)");
    return;
  }
  const char *mlir_opt = tq_test_tool("TORQ_MLIR_OPT", MLIR_OPT,
                                      "apt-get install mlir-22-tools (scripts/install-test-tools)");
  if (!mlir_opt) return;
  char **paths;
  size_t n;
  if (!tt_corpus_paths(NULL, &paths, &n)) return;
  char dir[] = "/tmp/torq-corpus-XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char **printed = calloc(n, sizeof(*printed));
  size_t accepted = 0, identical = 0;
  for (size_t start = 0; start < n; start += PARALLEL) {
    size_t end = start + PARALLEL < n ? start + PARALLEL : n;
    pid_t pids[PARALLEL];
    char in[PARALLEL][4200], out[PARALLEL][4200];
    for (size_t i = start; i < end; i++) {
      tq_buf_t text;
      TT_ASSERT_OK(tq_file_read(paths[i], 0, &text));
      printed[i] = parse_print(paths[i], text.data, text.len);
      tq_buf_deinit(&text);
      snprintf(in[i - start], sizeof(in[0]), "%s/%zu.in.mlir", dir, i);
      snprintf(out[i - start], sizeof(out[0]), "%s/%zu.out.mlir", dir, i);
      TT_ASSERT_OK(tq_file_write_atomic(in[i - start], printed[i], strlen(printed[i])));
      pids[i - start] = tt_spawn_mlir_opt(mlir_opt, in[i - start], out[i - start]);
      ck_assert_int_gt(pids[i - start], 0);
    }
    for (size_t i = start; i < end; i++) {
      int status = 0;
      ck_assert_int_eq(waitpid(pids[i - start], &status, 0), pids[i - start]);
      ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                    "mlir-opt rejects the printed form of %s", paths[i]);
      accepted++;
      tq_buf_t back;
      TT_ASSERT_OK(tq_file_read(out[i - start], 0, &back));
      ck_assert_msg(back.len == strlen(printed[i]) && memcmp(back.data, printed[i], back.len) == 0,
                    "mlir-opt prints %s differently", paths[i]);
      identical++;
      tq_buf_deinit(&back);
      unlink(in[i - start]);
      unlink(out[i - start]);
      tq_free(printed[i]);
    }
  }
  rmdir(dir);
  free(printed);
  fprintf(stderr, "corpus: mlir-opt accepts %zu of %zu printed models, %zu kept byte for byte\n",
          accepted, n, identical);
  tq_dir_list_free(paths, n);
}
END_TEST

Suite *corpus_suite(void) {
  Suite *s = suite_create("corpus");
  TCase *tc = tcase_create("tosa_ops");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, corpus_parses_verifies_and_round_trips);
  tcase_add_test(tc, corpus_printed_form_is_accepted_and_kept_by_mlir_opt);
  suite_add_tcase(s, tc);
  return s;
}
