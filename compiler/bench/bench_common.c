/* The command line, clock and failure report of the compiler benches. */
#include "bench_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double bench_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int bench_parse_args(const char *tool, int argc, char **argv, long *out_reps, int *out_first) {
  long reps = 5;
  int first = 1;
  if (argc > 2 && strcmp(argv[1], "-n") == 0) {
    char *end;
    reps = strtol(argv[2], &end, 10);
    if (*end || reps < 1 || reps > 100000) {
      fprintf(stderr, "%s: -n wants a count from 1, not '%s'\n", tool, argv[2]);
      return 2;
    }
    first = 3;
  }
  if (first >= argc || argv[first][0] == '-') {
    fprintf(stderr, "usage: %s [-n REPS] FILE...\n", tool);
    return 2;
  }
  *out_reps = reps;
  *out_first = first;
  return 0;
}

void bench_report_failure(tq_status_t status) {
  fprintf(stderr, "%s\n", tq_status_message(status));
  tq_status_free(status);
}
