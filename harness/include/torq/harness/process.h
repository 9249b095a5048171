/* What the harness asks of the process it runs in (component common/, harness/src/common/): the
 * two clocks, and the names of the signals that end processes. */
#ifndef TORQ_HARNESS_PROCESS_H
#define TORQ_HARNESS_PROCESS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* CLOCK_MONOTONIC in nanoseconds: for durations and deadlines. */
uint64_t tqh_now_ns(void);

/* CLOCK_REALTIME in seconds since the Unix epoch: for the times written into results. */
double tqh_now_unix(void);

/* "SIGSEGV" for 11; "signal N" for unknown ones (a static string, or written into `buf`). */
const char *tqh_signal_name(int sig, char buf[32]);

#ifdef __cplusplus
}
#endif
#endif
