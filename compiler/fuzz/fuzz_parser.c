/* libFuzzer target for the MLIR front end.
 *
 * Each input is parsed as "fuzz.mlir". A rejected input must come back as a status (a diagnostic
 * with a location when it is invalid input). An accepted one is verified; a verified module is
 * printed, and the printed text must parse, verify and print again to the very same text. Any
 * other outcome aborts, so that libFuzzer keeps the input: that is a bug in the front end.
 *
 *   make fuzz FUZZ_SECONDS=60
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "torq/base/status.h"
#include "torq/base/str.h"
#include "torq/compiler/mlir.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, tq_status_t status) {
  fprintf(stderr, "fuzz_parser: %s: %s\n", what, status ? tq_status_message(status) : "ok");
  abort();
}

/* Limits well below the defaults, so that a hostile input hits them long before libFuzzer's
 * memory limit (2 GB) does. */
static void fuzz_options(tqc_parse_options_t *options) {
  tqc_parse_options_initialize(options);
  options->max_arena_bytes = 256u << 20;
}

/* Prints `module` into `out`; a verified module always prints. */
static void print_or_abort(const tqc_module_t *module, tq_buf_t *out) {
  tq_status_t status = tqc_module_print(module, out);
  if (status) fail("a verified module does not print", status);
}

/* A rejection is fine, as long as it is a located diagnostic when the input was the problem. */
static void check_rejection(tq_status_t status) {
  if (tq_status_code(status) == TQ_INVALID_INPUT && !strstr(tq_status_message(status), ": error: "))
    fail("an invalid-input status without a diagnostic", status);
  tq_status_free(status);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tqc_parse_options_t options;
  fuzz_options(&options);
  tqc_module_t *module = NULL;
  tq_status_t status = tqc_module_parse("fuzz.mlir", (const char *)data, size, &options, &module);
  if (status) {
    if (module) fail("a failed parse returned a module", status);
    check_rejection(status);
    return 0;
  }
  status = tqc_module_verify(module);
  if (status) {
    check_rejection(status);
    tqc_module_destroy(module);
    return 0;
  }

  tq_buf_t first, second;
  tq_buf_init(&first, 0);
  tq_buf_init(&second, 0);
  print_or_abort(module, &first);
  tqc_module_destroy(module);

  module = NULL;
  status = tqc_module_parse("fuzz.mlir", first.data, first.len, &options, &module);
  if (status) {
    fprintf(stderr, "---- printed text ----\n%s\n----\n", first.data);
    fail("the printed text does not parse", status);
  }
  status = tqc_module_verify(module);
  if (status) {
    fprintf(stderr, "---- printed text ----\n%s\n----\n", first.data);
    fail("the printed text does not verify", status);
  }
  print_or_abort(module, &second);
  tqc_module_destroy(module);
  if (first.len != second.len || memcmp(first.data, second.data, first.len) != 0) {
    fprintf(stderr, "---- first print ----\n%s\n---- second print ----\n%s\n----\n", first.data,
            second.data);
    fail("printing the printed text gives different text", NULL);
  }
  tq_buf_deinit(&first);
  tq_buf_deinit(&second);
  return 0;
}
