/* Compiler-style source snippets for diagnostics: the line a location points into, then a caret
 * under its column. */
#ifndef TORQ_BASE_DIAG_H
#define TORQ_BASE_DIAG_H

#include <stddef.h>
#include <stdint.h>

#include "torq/base/status.h"
#include "torq/base/str.h"

/* tq_diag_style_t.flags */
#define TQ_DIAG_UTF8_COLUMNS 1u /* `col` counts UTF-8 characters, not bytes (libyaml's marks) */
#define TQ_DIAG_CR_BREAKS 2u    /* a lone "\r" also ends a line, as libyaml counts lines */
#define TQ_DIAG_SAFE_BYTES 4u   /* control bytes other than a tab (and DEL) print as '?' */

/* How a snippet is shown. Lines longer than `long_line` bytes (0: never) show a window of
 * `window` bytes either side of the column, with "..." where it was cut. */
typedef struct tq_diag_style_s {
  size_t long_line;
  size_t window;
  unsigned flags; /* TQ_DIAG_* */
} tq_diag_style_t;

/* The style used for a NULL style: byte columns, "\n" (or "\r\n") line breaks, bytes shown as
 * they are, a window of 80 bytes either side for lines over 4096 bytes. */
#define TQ_DIAG_DEFAULT_LONG_LINE 4096
#define TQ_DIAG_DEFAULT_WINDOW 80

/* Appends "\n<line>\n<caret>" for line:col (both 1-based) of text[0, len) to `out`, or nothing
 * when the text is NULL, `line` is 0 or the text has no such line (the empty line after a final
 * newline exists). A "\r" before the line break is not shown. A column past the end of the line
 * puts the caret just after it; column 0 is treated as 1. The caret line keeps the tabs before
 * the column so that the caret lines up under them; a window's leading "..." is padded with
 * three spaces. Without TQ_DIAG_SAFE_BYTES a NUL byte ends the shown line (the caret still goes
 * under its column). Fails only when the buffer cannot grow. */
tq_status_t tq_diag_append_snippet(tq_buf_t *out, const char *text, size_t len, uint32_t line,
                                   uint32_t col, const tq_diag_style_t *style) TQ_MUST_USE;

#endif
