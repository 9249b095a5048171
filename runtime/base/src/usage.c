/* The bad-usage message of the command-line tools, written where the tool says. */
#include "torq/base/usage.h"

#include <stdarg.h>

int tq_usage_error(FILE *err, const char *tool, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(err, "%s: ", tool);
  vfprintf(err, fmt, ap);
  va_end(ap);
  fprintf(err, "\nTry '%s --help' for more information.\n", tool);
  return 2;
}
