/* libFuzzer target: load a suite from arbitrary bytes (tqh_suite_load_buffer) without touching
 * the file system, then read every test, as a runner would. Any crash, leak, sanitizer report or
 * a load that returns neither a suite nor an error is a bug.
 *
 *   clang -fsanitize=fuzzer,address,undefined ... harness/fuzz/fuzz_suite.c (see module.mk)
 *   build/fuzz/fuzz-suite -dict=harness/fuzz/fuzz_suite.dict harness/fuzz/suite_seeds
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "torq/harness/select.h"
#include "torq/harness/suite.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const env[] = {"TORQ_TESTDATA=/data", "TORQ_EMPTY=", "HOME=/home/f", NULL};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tqh_diags_t errors;
  tqh_diags_init_max(&errors, TQH_ERRORS_DEFAULT_MAX);
  tqh_suite_options_t o;
  tqh_suite_options_initialize(&o);
  o.env = env;
  o.errors = &errors;
  o.no_filesystem = 1;
  tqh_suite_t *suite = NULL;
  tq_status_t st = tqh_suite_load_buffer("fuzz/suite.yaml", (const char *)data, size, &o, &suite);
  if ((st == NULL) == (suite == NULL)) abort();
  if (st && errors.errors == 0) abort(); /* an error always says where */
  size_t sum = 0;
  for (size_t i = 0; suite && i < suite->test_count; i++) {
    const tqh_test_t *t = &suite->tests[i];
    if (!t->id || !t->fs_id || !t->target || strlen(t->fs_id) > TQH_FS_ID_MAX) abort();
    sum += strlen(t->id) + t->input_count + t->tag_count + t->expect_count;
    for (size_t k = 0; k < t->input_count; k++)
      if (t->inputs[k].kind == TQH_INPUT_TEXT) sum += strlen(t->inputs[k].text);
    for (size_t k = 0; k < t->expect_count; k++)
      sum += (size_t)tqh_expect_check(&t->expects[k], 1.0, NULL, 0);
    if (t->xfail.expected && !t->xfail.reason) abort();
    sum += (size_t)tqh_select_test(NULL, NULL, t);
  }
  (void)sum;
  tq_status_free(st);
  tqh_suite_destroy(suite);
  tqh_diags_deinit(&errors);
  return 0;
}
