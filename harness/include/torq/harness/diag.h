/* Diagnostics of annotation: problems in the inputs that do not stop the work. A malformed row of
 * a profile is reported and skipped, and annotation goes on with the rest ("the tool continues
 * where it can", DESIGN 7); the tool prints the list and exits 1 when it holds an error.
 *
 * Each diagnostic names a file and a 1-based line (0 when the problem is the whole file) and says
 * what is wrong and, where it helps, what to do. At most `max_kept` are stored (default
 * TQH_DIAGS_MAX_KEPT) so that a file of a million bad rows cannot fill the memory; the others are
 * only counted.
 *
 * Ownership: a tqh_diags_t in caller storage owns its items, their messages and file names.
 */
#ifndef TORQ_HARNESS_DIAG_H
#define TORQ_HARNESS_DIAG_H

#include <stddef.h>
#include <stdint.h>

#include "torq/base/status.h"
#include "torq/base/str.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TQH_DIAGS_MAX_KEPT 1000

typedef enum tqh_severity_e {
  TQH_ERROR,   /* the input is wrong: the output lacks or distrusts something */
  TQH_WARNING, /* worth knowing, the output is complete (e.g. the run failed half-way) */
} tqh_severity_t;

typedef struct tqh_diag_s {
  tqh_severity_t severity;
  char *file;    /* owned */
  uint32_t line; /* 1-based; 0 = the file as a whole */
  char *message; /* owned */
} tqh_diag_t;

typedef struct tqh_diags_s {
  tqh_diag_t *items; /* owned; `count` of them */
  size_t count, cap;
  size_t max_kept;
  size_t errors, warnings; /* all of them, kept or not */
  size_t dropped;          /* not kept (max_kept reached, or no memory) */
} tqh_diags_t;

void tqh_diags_init(tqh_diags_t *diags);
void tqh_diags_deinit(tqh_diags_t *diags);

/* Adds a diagnostic. Never fails: when memory runs out the diagnostic is counted as dropped. */
void tqh_diags_add(tqh_diags_t *diags, tqh_severity_t severity, const char *file, uint32_t line,
                   const char *fmt, ...) TQ_PRINTF(5, 6);

/* Appends every diagnostic as "file:line: error: message\n" (no ":line" for line 0), then
 * "... and N more" when some were dropped. */
tq_status_t tqh_diags_format(const tqh_diags_t *diags, tq_buf_t *out) TQ_MUST_USE;

#ifdef __cplusplus
}
#endif
#endif
