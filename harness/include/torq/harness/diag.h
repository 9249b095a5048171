/* Diagnostics (component common/, harness/src/common/): the one bounded list of located messages
 * that every part of the harness collects problems in.
 *
 * Annotation reports a malformed row of a profile and goes on with the rest ("the tool continues
 * where it can", DESIGN 7); reading a journal reports a corrupt line and keeps the others; suites
 * and configuration report every error of a file, compiler-style (file:line:col, the source line,
 * a caret, notes), before any test runs.
 *
 * Each diagnostic names a file, a 1-based line (0 when the problem is the whole file or has no
 * place) and column (0: none), says what is wrong and, where it helps, what to do, and may carry
 * its complete text as shown (with the source line). At most `max_kept` are stored (default
 * TQH_DIAGS_MAX_KEPT) so that a file of a million bad rows cannot fill the memory; the others are
 * only counted.
 *
 * Ownership: a tqh_diags_t in caller storage owns its items, their messages, texts and file
 * names.
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
  char *file;    /* owned; "" when the diagnostic has no file (an environment variable) */
  uint32_t line; /* 1-based; 0 = the file as a whole, or no place */
  uint32_t col;  /* 1-based; 0 = no column */
  char *message; /* owned: the message alone ("unknown key \"repat\" in a test; ...") */
  char *text;    /* owned, or NULL: the complete diagnostic as shown (source line, caret, notes) */
} tqh_diag_t;

typedef struct tqh_diags_s {
  tqh_diag_t *items; /* owned; `count` of them */
  size_t count, cap;
  size_t max_kept;
  size_t errors, warnings; /* all of them, kept or not */
  size_t dropped;          /* not kept (max_kept reached, or no memory) */
} tqh_diags_t;

/* An empty list keeping at most TQH_DIAGS_MAX_KEPT, or `max_kept` (0: TQH_DIAGS_MAX_KEPT). */
void tqh_diags_init(tqh_diags_t *diags);
void tqh_diags_init_max(tqh_diags_t *diags, size_t max_kept);
/* Frees the items; the list is empty again (with the same max_kept). */
void tqh_diags_deinit(tqh_diags_t *diags);
/* Moves the items of `from` to the end of `to`, and its counts, as if each had been added to
 * `to` in its place (past to's max_kept they are dropped); `from` is left empty. */
void tqh_diags_append(tqh_diags_t *to, tqh_diags_t *from);

/* Adds a diagnostic (its message from printf, at most 1023 bytes). Never fails: when memory runs
 * out the diagnostic is counted as dropped. */
void tqh_diags_add(tqh_diags_t *diags, tqh_severity_t severity, const char *file, uint32_t line,
                   const char *fmt, ...) TQ_PRINTF(5, 6);

/* Adds an error at line:col with its message and complete text (both copied). Never fails, as
 * tqh_diags_add. */
void tqh_diags_add_text(tqh_diags_t *diags, const char *file, uint32_t line, uint32_t col,
                        const char *message, const char *text);

/* Appends one line per diagnostic, "file:line: error: message\n" (no ":line" for line 0; the
 * text instead when it has one), then "... and N more diagnostics" when some were dropped. */
tq_status_t tqh_diags_format(const tqh_diags_t *diags, tq_buf_t *out) TQ_MUST_USE;

/* Appends the diagnostics as a compiler reports errors: each one's text (or its line), then
 * "N errors", or "... and N more errors (only the first M are shown)" when some were dropped. */
tq_status_t tqh_diags_format_report(const tqh_diags_t *diags, tq_buf_t *out) TQ_MUST_USE;

/* "Did you mean": the candidate (NULL-terminated list) nearest to `word` by edit distance, when
 * it is at most 2 edits away (the first of equally near ones), else NULL. The suite checker's
 * unknown keys and torq-test's unknown options and subcommands use it. Borrowed from `candidates`. */
const char *tqh_did_you_mean(const char *word, const char *const *candidates);

#ifdef __cplusplus
}
#endif
#endif
