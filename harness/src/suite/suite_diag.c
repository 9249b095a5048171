/* Located errors: compiler-style diagnostics (file:line:col, the source line, a caret, notes)
 * collected in a bounded list (config.h) and turned into one status. */
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

/* ---- Error lists ----------------------------------------------------------------------------- */

void tqh_errors_init(tqh_errors_t *errors, size_t max_kept) {
  memset(errors, 0, sizeof(*errors));
  errors->max_kept = max_kept ? max_kept : TQH_ERRORS_DEFAULT_MAX;
}

void tqh_errors_deinit(tqh_errors_t *errors) {
  for (size_t i = 0; i < errors->count; i++) {
    tq_free(errors->items[i].file);
    tq_free(errors->items[i].message);
    tq_free(errors->items[i].text);
  }
  tq_free(errors->items);
  size_t max_kept = errors->max_kept;
  memset(errors, 0, sizeof(*errors));
  errors->max_kept = max_kept;
}

void tqh__errors_add(tqh_errors_t *errors, const char *file, uint32_t line, uint32_t col,
                     const char *message, const char *text) {
  errors->total++;
  if (errors->count >= errors->max_kept) return;
  if (errors->count == errors->cap) {
    size_t cap = errors->cap ? errors->cap * 2 : 8;
    tqh_error_t *items = tq_realloc(errors->items, cap * sizeof(*items));
    if (!items) return;
    errors->items = items;
    errors->cap = cap;
  }
  tqh_error_t e = {tq_strndup(file, strlen(file)), line, col, tq_strndup(message, strlen(message)),
                   tq_strndup(text, strlen(text))};
  if (!e.file || !e.message || !e.text) {
    tq_free(e.file);
    tq_free(e.message);
    tq_free(e.text);
    return;
  }
  errors->items[errors->count++] = e;
}

tq_status_t tqh_errors_format(const tqh_errors_t *errors, tq_buf_t *out) {
  for (size_t i = 0; i < errors->count; i++)
    TQ_TRY(tq_buf_printf(out, "%s\n", errors->items[i].text));
  if (errors->total > errors->count)
    TQ_TRY(tq_buf_printf(out, "... and %zu more errors (only the first %zu are shown)\n",
                         errors->total - errors->count, errors->count));
  else
    TQ_TRY(tq_buf_printf(out, "%zu error%s\n", errors->total, errors->total == 1 ? "" : "s"));
  return NULL;
}

/* ---- Diagnostics with the source line ------------------------------------------------------- */

void tqh__report_init(tqh__report_t *rep, const char *path, const char *text, size_t len,
                      size_t max_errors) {
  rep->path = path;
  rep->text = text;
  rep->len = len;
  tqh_errors_init(&rep->errors, max_errors);
}

void tqh__report_deinit(tqh__report_t *rep) {
  tqh_errors_deinit(&rep->errors);
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
    rep->errors.total++;
  } else {
    tqh__errors_add(&rep->errors, rep->path ? rep->path : "", line, col, msg, b.data);
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

tq_status_t tqh__report_finish(tqh__report_t *rep, tqh_errors_t *out) {
  if (rep->errors.total == 0) return NULL;
  /* In file order, as a reader goes through the file (a stable insertion sort: few errors). */
  tqh_error_t *items = rep->errors.items;
  for (size_t i = 1; i < rep->errors.count; i++) {
    tqh_error_t x = items[i];
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
      const tqh_error_t *e = &rep->errors.items[i];
      tqh__errors_add(out, e->file, e->line, e->col, e->message, e->text);
    }
    out->total += rep->errors.total - rep->errors.count;
  }
  tq_buf_t b;
  tq_buf_init(&b, 0);
  tq_status_t st = tqh_errors_format(&rep->errors, &b);
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
