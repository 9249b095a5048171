/* Diagnostics: a bounded list of located messages. */
#include "torq/harness/diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "torq/base/alloc.h"
#include "torq/base/str.h"

void tqh_diags_init(tqh_diags_t *diags) {
  memset(diags, 0, sizeof(*diags));
  diags->max_kept = TQH_DIAGS_MAX_KEPT;
}

void tqh_diags_deinit(tqh_diags_t *diags) {
  for (size_t i = 0; i < diags->count; i++) {
    tq_free(diags->items[i].file);
    tq_free(diags->items[i].message);
  }
  tq_free(diags->items);
  size_t max_kept = diags->max_kept;
  tqh_diags_init(diags);
  diags->max_kept = max_kept;
}

void tqh_diags_add(tqh_diags_t *diags, tqh_severity_t severity, const char *file, uint32_t line,
                   const char *fmt, ...) {
  if (severity == TQH_ERROR)
    diags->errors++;
  else
    diags->warnings++;
  if (diags->count >= diags->max_kept) {
    diags->dropped++;
    return;
  }
  if (diags->count == diags->cap) {
    size_t cap = diags->cap ? diags->cap * 2 : 16;
    tqh_diag_t *items = tq_realloc(diags->items, cap * sizeof(*items));
    if (!items) {
      diags->dropped++;
      return;
    }
    diags->items = items;
    diags->cap = cap;
  }
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  const char *f = file ? file : "";
  tqh_diag_t d = {severity, tq_strndup(f, strlen(f)), line, tq_strndup(msg, strlen(msg))};
  if (!d.file || !d.message) {
    tq_free(d.file);
    tq_free(d.message);
    diags->dropped++;
    return;
  }
  diags->items[diags->count++] = d;
}

tq_status_t tqh_diags_format(const tqh_diags_t *diags, tq_buf_t *out) {
  for (size_t i = 0; i < diags->count; i++) {
    const tqh_diag_t *d = &diags->items[i];
    const char *sev = d->severity == TQH_ERROR ? "error" : "warning";
    if (d->line)
      TQ_TRY(tq_buf_printf(out, "%s:%u: %s: %s\n", d->file, (unsigned)d->line, sev, d->message));
    else
      TQ_TRY(tq_buf_printf(out, "%s: %s: %s\n", d->file, sev, d->message));
  }
  if (diags->dropped)
    TQ_TRY(tq_buf_printf(out, "... and %zu more diagnostics\n", diags->dropped));
  return NULL;
}
