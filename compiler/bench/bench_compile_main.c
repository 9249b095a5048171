/* torq-bench-compile: times the whole compiler in one process, beside the front end alone.
 *
 *   torq-bench-compile [-n REPS] FILE...
 *
 * For each FILE and repetition: parse + verify (the front end, as torq-bench-parse times it),
 * then TOSA check + lowering + packing the module + the trace (the rest of torq-compile, minus
 * file writes). Prints one tab-separated line per file and a TOTAL line:
 *
 *   name  parse_best_ms  compile_best_ms  nss_programs  estimated_cycles
 *
 * Exits 0, 1 when a file fails (its diagnostic on stderr), 2 on bad usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "module.pb-c.h"
#include "torq/base/status.h"
#include "torq/base/str.h"
#include "torq/compiler/compile.h"
#include "torq/compiler/mlir.h"

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

typedef struct sample_s {
  double parse_ms, compile_ms;
  size_t programs;
  uint64_t cycles;
} sample_t;

static tq_status_t run_one(const char *path, tq_buf_t *scratch, sample_t *out) {
  double t0 = now_ms();
  tqc_module_t *module = NULL;
  TQ_TRY(tqc_module_parse_file(path, NULL, &module));
  tq_status_t st = tqc_module_verify(module);
  double t1 = now_ms();
  tqc_compile_options_t options;
  tqc_compile_options_initialize(&options);
  tqc_compiled_t *compiled = NULL;
  if (!st) st = tqc_compile(module, &options, &compiled);
  tq_buf_clear(scratch);
  if (!st) st = tqc_compiled_pack(compiled, scratch);
  if (!st) st = tqc_compiled_trace_csv(compiled, scratch);
  double t2 = now_ms();
  if (!st) {
    out->parse_ms = t1 - t0;
    out->compile_ms = t2 - t1;
    out->programs = tqc_compiled_module(compiled)->n_nss_programs;
    out->cycles = tqc_compiled_estimated_cycles(compiled);
  }
  tqc_compiled_destroy(compiled);
  tqc_module_destroy(module);
  return st;
}

int main(int argc, char **argv) {
  long reps = 5;
  int first = 1;
  if (argc > 2 && strcmp(argv[1], "-n") == 0) {
    char *end;
    reps = strtol(argv[2], &end, 10);
    if (*end || reps < 1 || reps > 100000) {
      fprintf(stderr, "torq-bench-compile: -n wants a count from 1, not '%s'\n", argv[2]);
      return 2;
    }
    first = 3;
  }
  if (first >= argc || argv[first][0] == '-') {
    fprintf(stderr, "usage: torq-bench-compile [-n REPS] FILE...\n");
    return 2;
  }
  tq_buf_t scratch;
  tq_buf_init(&scratch, 0);
  double total_parse = 0, total_compile = 0;
  size_t total_programs = 0;
  uint64_t total_cycles = 0;
  int rc = 0;
  for (int f = first; f < argc && rc == 0; f++) {
    sample_t best = {0, 0, 0, 0};
    for (long r = 0; r < reps; r++) {
      sample_t s;
      tq_status_t st = run_one(argv[f], &scratch, &s);
      if (st) {
        fprintf(stderr, "%s\n", tq_status_message(st));
        tq_status_free(st);
        rc = 1;
        break;
      }
      if (r == 0 || s.parse_ms < best.parse_ms) best.parse_ms = s.parse_ms;
      if (r == 0 || s.compile_ms < best.compile_ms) best.compile_ms = s.compile_ms;
      best.programs = s.programs;
      best.cycles = s.cycles;
    }
    if (rc) break;
    printf("%s\t%.3f\t%.3f\t%zu\t%llu\n", argv[f], best.parse_ms, best.compile_ms, best.programs,
           (unsigned long long)best.cycles);
    total_parse += best.parse_ms;
    total_compile += best.compile_ms;
    total_programs += best.programs;
    total_cycles += best.cycles;
  }
  if (rc == 0) {
    printf("TOTAL\t%.3f\t%.3f\t%zu\t%llu\n", total_parse, total_compile, total_programs,
           (unsigned long long)total_cycles);
  }
  tq_buf_deinit(&scratch);
  return rc;
}
