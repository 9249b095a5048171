/* The bad-usage message every command-line tool prints, in one place. The library writes it to
 * the stream the tool hands it (its main owns stderr): libraries never print on their own. */
#ifndef TORQ_BASE_USAGE_H
#define TORQ_BASE_USAGE_H

#include <stdio.h>

#include "torq/base/status.h"

/* Writes "TOOL: MESSAGE" and "Try 'TOOL --help' for more information." to `err` (the tool's
 * stderr) and returns 2, the exit status of bad usage (DESIGN section 3). */
int tq_usage_error(FILE *err, const char *tool, const char *fmt, ...) TQ_PRINTF(3, 4);

#endif
