/* The bad-usage message of the command-line tools. */
#include "torq/base/usage.h"

#include <stdarg.h>
#include <stdio.h>

int tq_usage_error(const char *tool, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "%s: ", tool);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\nTry '%s --help' for more information.\n", tool);
  return 2;
}
