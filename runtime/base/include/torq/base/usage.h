/* The bad-usage message every command-line tool prints, in one place. */
#ifndef TORQ_BASE_USAGE_H
#define TORQ_BASE_USAGE_H

#include "torq/base/status.h"

/* Prints "TOOL: MESSAGE" and "Try 'TOOL --help' for more information." to stderr and returns 2,
 * the exit status of bad usage (DESIGN section 3). */
int tq_usage_error(const char *tool, const char *fmt, ...) TQ_PRINTF(2, 3);

#endif
