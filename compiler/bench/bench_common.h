/* What the one-process compiler benches (torq-bench-parse, torq-bench-compile) share: their
 * command line, "[-n REPS] FILE...", the clock, and how a failed file is reported. */
#ifndef TORQ_COMPILER_BENCH_COMMON_H
#define TORQ_COMPILER_BENCH_COMMON_H

#include "torq/base/status.h"

/* CLOCK_MONOTONIC, in milliseconds. */
double bench_now_ms(void);

/* Parses "[-n REPS] FILE..." (REPS from 1 to 100000; 5 when absent): stores REPS and the index in
 * argv of the first FILE, and returns 0. On bad usage prints a message that names `tool` on
 * stderr and returns 2, the exit status. */
int bench_parse_args(const char *tool, int argc, char **argv, long *out_reps, int *out_first);

/* Prints the message of a failed file's status on stderr and frees the status. */
void bench_report_failure(tq_status_t status);

#endif
