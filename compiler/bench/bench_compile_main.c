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

#include "bench_common.h"
#include "module.pb-c.h"
#include "torq/base/status.h"
#include "torq/base/str.h"
#include "torq/compiler/compile.h"
#include "torq/compiler/mlir.h"

typedef struct sample_s {
  double parse_ms, compile_ms;
  size_t programs;
  uint64_t cycles;
} sample_t;

static tq_status_t run_one(const char *path, tq_buf_t *scratch, sample_t *out) {
  double t0 = bench_now_ms();
  tqc_module_t *module = NULL;
  TQ_TRY(tqc_module_parse_file(path, NULL, &module));
  tq_status_t st = tqc_module_verify(module);
  double t1 = bench_now_ms();
  tqc_compile_options_t options;
  tqc_compile_options_initialize(&options);
  tqc_compiled_t *compiled = NULL;
  if (!st) st = tqc_compile(module, &options, &compiled);
  tq_buf_clear(scratch);
  if (!st) st = tqc_compiled_pack(compiled, scratch);
  if (!st) st = tqc_compiled_trace_csv(compiled, scratch);
  double t2 = bench_now_ms();
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
  long reps;
  int first;
  int usage = bench_parse_args("torq-bench-compile", argc, argv, &reps, &first);
  if (usage) return usage;
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
        bench_report_failure(st);
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
