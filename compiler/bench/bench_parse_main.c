/* torq-bench-parse: times the MLIR front end in one process.
 *
 *   torq-bench-parse [-n REPS] FILE...
 *
 * Each repetition reads, parses, verifies and prints (into a memory buffer) every FILE in turn,
 * timing each with CLOCK_MONOTONIC. Prints one line per file and a TOTAL line, tab-separated:
 *
 *   name  best_ms  median_ms  bytes
 *
 * Exits 0, 1 when a file fails (its diagnostic on stderr), 2 on bad usage.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bench_common.h"
#include "torq/base/alloc.h"
#include "torq/base/status.h"
#include "torq/base/str.h"
#include "torq/compiler/mlir.h"

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Sorts `v` in place; writes its smallest value and its median. */
static void best_and_median(double *v, size_t n, double *out_best, double *out_median) {
  qsort(v, n, sizeof(*v), compare_doubles);
  *out_best = v[0];
  *out_median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Reads, parses, verifies and prints one file into `out` (cleared first). */
static tq_status_t run_one(const char *path, tq_buf_t *out) {
  tqc_module_t *module = NULL;
  TQ_TRY(tqc_module_parse_file(path, NULL, &module));
  tq_status_t status = tqc_module_verify(module);
  tq_buf_clear(out);
  if (!status) status = tqc_module_print(module, out);
  tqc_module_destroy(module);
  return status;
}

int main(int argc, char **argv) {
  long reps;
  int first;
  int usage = bench_parse_args("torq-bench-parse", argc, argv, &reps, &first);
  if (usage) return usage;
  size_t files = (size_t)(argc - first);
  double *times = tq_calloc(files * (size_t)reps, sizeof(double)); /* [file][rep] */
  double *totals = tq_calloc((size_t)reps, sizeof(double));
  size_t *bytes = tq_calloc(files, sizeof(size_t));
  if (!times || !totals || !bytes) {
    fprintf(stderr, "torq-bench-parse: out of memory\n");
    return 1;
  }
  tq_buf_t printed;
  tq_buf_init(&printed, 0);
  int rc = 0;
  for (long r = 0; r < reps && rc == 0; r++) {
    for (size_t f = 0; f < files; f++) {
      double t0 = bench_now_ms();
      tq_status_t status = run_one(argv[first + (int)f], &printed);
      double ms = bench_now_ms() - t0;
      if (status) {
        bench_report_failure(status);
        rc = 1;
        break;
      }
      times[f * (size_t)reps + (size_t)r] = ms;
      totals[r] += ms;
      bytes[f] = printed.len;
    }
  }
  if (rc == 0) {
    double best, median;
    size_t all_bytes = 0;
    for (size_t f = 0; f < files; f++) {
      best_and_median(&times[f * (size_t)reps], (size_t)reps, &best, &median);
      printf("%s\t%.3f\t%.3f\t%zu\n", argv[first + (int)f], best, median, bytes[f]);
      all_bytes += bytes[f];
    }
    best_and_median(totals, (size_t)reps, &best, &median);
    printf("TOTAL\t%.3f\t%.3f\t%zu\n", best, median, all_bytes);
  }
  tq_buf_deinit(&printed);
  tq_free(times);
  tq_free(totals);
  tq_free(bytes);
  return rc;
}
