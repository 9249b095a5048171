/* Located errors: compiler-style diagnostics (file:line:col, the source line, a caret, notes)
 * collected in the bounded list of diag.h and turned into one status. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "suite_internal.h"
#include "torq/base/alloc.h"
#include "torq/base/diag.h"
#include "torq/base/str.h"

/* Source snippets: columns count characters and lines break at "\n", "\r\n" and a lone "\r", as
 * libyaml counts them; lines longer than 200 bytes show a window around the column. */
static const tq_diag_style_t snippet_style = {
    200, 60, TQ_DIAG_UTF8_COLUMNS | TQ_DIAG_CR_BREAKS | TQ_DIAG_SAFE_BYTES};

/* ---- Diagnostics with the source line ------------------------------------------------------- */

void tqh__report_init(tqh__report_t *rep, const char *path, const char *text, size_t len,
                      size_t max_errors) {
  rep->path = path;
  rep->text = text;
  rep->len = len;
  tqh_diags_init_max(&rep->errors, max_errors ? max_errors : TQH_ERRORS_DEFAULT_MAX);
}

void tqh__report_deinit(tqh__report_t *rep) {
  tqh_diags_deinit(&rep->errors);
}

static tq_status_t append_head(tq_buf_t *b, const char *path, uint32_t line, uint32_t col,
                               const char *kind) {
  if (!path || !path[0]) return tq_buf_printf(b, "%s: ", kind);
  if (line == 0) return tq_buf_printf(b, "%s: %s: ", path, kind);
  if (col == 0) return tq_buf_printf(b, "%s:%u: %s: ", path, line, kind);
  return tq_buf_printf(b, "%s:%u:%u: %s: ", path, line, col, kind);
}

static void report_add(tqh__report_t *rep, uint32_t line, uint32_t col, uint32_t note_line,
                       uint32_t note_col, const char *note, const char *fmt, va_list ap) {
  char msg[1024];
  vsnprintf(msg, sizeof(msg), fmt, ap);
  tq_buf_t b;
  tq_buf_init(&b, 0);
  tq_status_t st = append_head(&b, rep->path, line, col, "error");
  if (!st) st = tq_buf_append_cstr(&b, msg);
  if (!st) st = tq_diag_append_snippet(&b, rep->text, rep->len, line, col, &snippet_style);
  if (!st && note) {
    st = tq_buf_putc(&b, '\n');
    if (!st) st = append_head(&b, rep->path, note_line, note_col, "note");
    if (!st) st = tq_buf_append_cstr(&b, note);
    if (!st) st = tq_diag_append_snippet(&b, rep->text, rep->len, note_line, note_col,
                                                    &snippet_style);
  }
  if (st) {
    tq_status_free(st);
    rep->errors.errors++; /* counted, not kept */
    rep->errors.dropped++;
  } else {
    tqh_diags_add_text(&rep->errors, rep->path ? rep->path : "", line, col, msg, b.data);
  }
  tq_buf_deinit(&b);
}

void tqh__error(tqh__report_t *rep, uint32_t line, uint32_t col, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  report_add(rep, line, col, 0, 0, NULL, fmt, ap);
  va_end(ap);
}

void tqh__error_note(tqh__report_t *rep, uint32_t line, uint32_t col, uint32_t note_line,
                     uint32_t note_col, const char *note, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  report_add(rep, line, col, note_line, note_col, note, fmt, ap);
  va_end(ap);
}

tq_status_t tqh__report_finish(tqh__report_t *rep, tqh_diags_t *out) {
  if (rep->errors.errors == 0) return NULL;
  /* In file order, as a reader goes through the file (a stable insertion sort: few errors). */
  tqh_diag_t *items = rep->errors.items;
  for (size_t i = 1; i < rep->errors.count; i++) {
    tqh_diag_t x = items[i];
    size_t j = i;
    while (j > 0 && (items[j - 1].line > x.line ||
                     (items[j - 1].line == x.line && items[j - 1].col > x.col))) {
      items[j] = items[j - 1];
      j--;
    }
    items[j] = x;
  }
  if (out) {
    for (size_t i = 0; i < rep->errors.count; i++) {
      const tqh_diag_t *e = &rep->errors.items[i];
      tqh_diags_add_text(out, e->file, e->line, e->col, e->message, e->text);
    }
    size_t more = rep->errors.errors - rep->errors.count; /* not kept here: not kept there */
    out->errors += more;
    out->dropped += more;
  }
  tq_buf_t b;
  tq_buf_init(&b, 0);
  tq_status_t st = tqh_diags_format_report(&rep->errors, &b);
  if (st) {
    tq_buf_deinit(&b);
    return st;
  }
  /* Without the trailing newline: tools print the message with one. */
  if (b.len && b.data[b.len - 1] == '\n') b.data[--b.len] = '\0';
  st = TQ_STATUS(TQ_INVALID_ARGUMENT, "%s", b.data);
  tq_buf_deinit(&b);
  return st;
}
