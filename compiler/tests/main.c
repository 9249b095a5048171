/* The compiler-tests binary: every suite of libtorq-compiler, one runner. */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "suites.h"
#include "torq/base/alloc.h"
#include "torq/base/file.h"
#include "tq_test.h"

tqc_module_t *tt_parse(const char *text) {
  tqc_module_t *m = NULL;
  TT_ASSERT_OK(tqc_module_parse("t.mlir", text, strlen(text), NULL, &m));
  ck_assert_ptr_nonnull(m);
  return m;
}

char *tt_expect_error(const char *text, const char *prefix) {
  tqc_module_t *m = NULL;
  tq_status_t st = tqc_module_parse("t.mlir", text, strlen(text), NULL, &m);
  if (!st) {
    st = tqc_module_verify(m);
    tqc_module_destroy(m);
  }
  ck_assert_msg(st != NULL, "expected an error starting with '%s'", prefix);
  ck_assert_int_eq(tq_status_code(st), TQ_INVALID_INPUT);
  const char *msg = tq_status_message(st);
  ck_assert_msg(strncmp(msg, prefix, strlen(prefix)) == 0, "message '%s' does not start with '%s'",
                msg, prefix);
  char *copy = tq_strndup(msg, strlen(msg));
  tq_status_free(st);
  ck_assert_ptr_nonnull(copy);
  return copy;
}

char *tt_print(const tqc_module_t *module) {
  tq_buf_t buf;
  tq_buf_init(&buf, 0);
  TT_ASSERT_OK(tqc_module_print(module, &buf));
  char *s = tq_buf_detach(&buf);
  ck_assert_ptr_nonnull(s);
  return s;
}

char *tt_read_file(const char *path) {
  tq_buf_t b;
  TT_ASSERT_OK(tq_file_read(path, 0, &b));
  char *s = tq_buf_detach(&b);
  ck_assert_ptr_nonnull(s);
  return s;
}

int tt_spawn_mlir_opt(const char *mlir_opt, const char *in, const char *out) {
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    int devnull = open("/dev/null", O_WRONLY);
    if (devnull >= 0) dup2(devnull, 2);
    execl(mlir_opt, "mlir-opt", "--mlir-print-op-generic", "--mlir-print-debuginfo",
          "--mlir-print-local-scope", in, "-o", out, (char *)NULL);
    _exit(127);
  }
  return pid;
}

int tt_corpus_paths(char *dir, char ***out_paths, size_t *out_count) {
  *out_paths = NULL;
  *out_count = 0;
  const char *corpus = tq_test_corpus();
  if (!corpus) return 0;
  char own_dir[TT_PATH_MAX];
  if (!dir) dir = own_dir;
  snprintf(dir, TT_PATH_MAX, "%s", corpus);
  char **paths;
  size_t n;
  tq_status_t st = tq_dir_list(dir, ".mlir", &paths, &n);
  if (st) {
    char *text = tq_status_format(st, 0);
    tq_status_free(st);
    ck_abort_msg("cannot list the corpus: %s", text ? text : "(oom)");
  }
  for (size_t i = 0; i < n; i++) { /* each name becomes its path */
    size_t size = strlen(dir) + strlen(paths[i]) + 2;
    char *path = tq_malloc(size);
    ck_assert_ptr_nonnull(path);
    snprintf(path, size, "%s/%s", dir, paths[i]);
    tq_free(paths[i]);
    paths[i] = path;
  }
  *out_paths = paths;
  *out_count = n;
  return 1;
}

int main(void) {
  SRunner *sr = srunner_create(NULL);
#define TT_ADD_SUITE(name) \
  if (name##_suite) srunner_add_suite(sr, name##_suite());
  TT_SUITES(TT_ADD_SUITE)
#undef TT_ADD_SUITE
  return tq_test_run(sr); /* runs, then prints the skips */
}
