/* Diagnostics: the one bounded list of located messages (diag.h). */
#include "torq/harness/diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "torq/base/alloc.h"
#include "torq/base/str.h"

void tqh_diags_init_max(tqh_diags_t *diags, size_t max_kept) {
  memset(diags, 0, sizeof(*diags));
  diags->max_kept = max_kept ? max_kept : TQH_DIAGS_MAX_KEPT;
}

void tqh_diags_init(tqh_diags_t *diags) {
  tqh_diags_init_max(diags, 0);
}

void tqh_diags_deinit(tqh_diags_t *diags) {
  for (size_t i = 0; i < diags->count; i++) {
    tq_free(diags->items[i].file);
    tq_free(diags->items[i].message);
    tq_free(diags->items[i].text);
  }
  tq_free(diags->items);
  tqh_diags_init_max(diags, diags->max_kept);
}

/* Counts a diagnostic, and stores `d` (taking its strings) when there is room; frees them when
 * it is dropped. */
static void add(tqh_diags_t *diags, tqh_diag_t d, int ok) {
  if (d.severity == TQH_ERROR)
    diags->errors++;
  else
    diags->warnings++;
  if (ok && diags->count < diags->max_kept && diags->count == diags->cap) {
    size_t cap = diags->cap ? diags->cap * 2 : 16;
    tqh_diag_t *items = tq_realloc(diags->items, cap * sizeof(*items));
    if (items) {
      diags->items = items;
      diags->cap = cap;
    }
  }
  if (!ok || diags->count >= diags->max_kept || diags->count == diags->cap) {
    tq_free(d.file);
    tq_free(d.message);
    tq_free(d.text);
    diags->dropped++;
    return;
  }
  diags->items[diags->count++] = d;
}

void tqh_diags_append(tqh_diags_t *to, tqh_diags_t *from) {
  /* What `from` counted and did not keep, `to` counts as dropped too (add counts the rest). */
  size_t kept_errors = 0;
  for (size_t i = 0; i < from->count; i++) kept_errors += from->items[i].severity == TQH_ERROR;
  for (size_t i = 0; i < from->count; i++) add(to, from->items[i], 1);
  to->errors += from->errors - kept_errors;
  to->warnings += from->warnings - (from->count - kept_errors);
  to->dropped += from->dropped;
  tq_free(from->items);
  tqh_diags_init_max(from, from->max_kept);
}

void tqh_diags_add(tqh_diags_t *diags, tqh_severity_t severity, const char *file, uint32_t line,
                   const char *fmt, ...) {
  if (diags->count >= diags->max_kept) {
    add(diags, (tqh_diag_t){.severity = severity}, 0);
    return;
  }
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  const char *f = file ? file : "";
  tqh_diag_t d = {severity, tq_strndup(f, strlen(f)), line, 0, tq_strndup(msg, strlen(msg)), NULL};
  add(diags, d, d.file && d.message);
}

void tqh_diags_add_text(tqh_diags_t *diags, const char *file, uint32_t line, uint32_t col,
                        const char *message, const char *text) {
  if (diags->count >= diags->max_kept) {
    add(diags, (tqh_diag_t){.severity = TQH_ERROR}, 0);
    return;
  }
  tqh_diag_t d = {TQH_ERROR, tq_strndup(file, strlen(file)),       line,
                  col,       tq_strndup(message, strlen(message)), tq_strndup(text, strlen(text))};
  add(diags, d, d.file && d.message && d.text);
}

static tq_status_t format_one(const tqh_diag_t *d, tq_buf_t *out) {
  if (d->text) return tq_buf_printf(out, "%s\n", d->text);
  const char *sev = d->severity == TQH_ERROR ? "error" : "warning";
  if (d->line)
    return tq_buf_printf(out, "%s:%u: %s: %s\n", d->file, (unsigned)d->line, sev, d->message);
  return tq_buf_printf(out, "%s: %s: %s\n", d->file, sev, d->message);
}

tq_status_t tqh_diags_format(const tqh_diags_t *diags, tq_buf_t *out) {
  for (size_t i = 0; i < diags->count; i++) TQ_TRY(format_one(&diags->items[i], out));
  if (diags->dropped)
    TQ_TRY(tq_buf_printf(out, "... and %zu more diagnostics\n", diags->dropped));
  return NULL;
}

tq_status_t tqh_diags_format_report(const tqh_diags_t *diags, tq_buf_t *out) {
  for (size_t i = 0; i < diags->count; i++) TQ_TRY(format_one(&diags->items[i], out));
  if (diags->dropped)
    TQ_TRY(tq_buf_printf(out, "... and %zu more errors (only the first %zu are shown)\n",
                         diags->dropped, diags->count));
  else
    TQ_TRY(tq_buf_printf(out, "%zu error%s\n", diags->errors, diags->errors == 1 ? "" : "s"));
  return NULL;
}

/* Levenshtein distance of two short words (99 beyond 40 bytes: never "near"). */
static size_t edit_distance(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  if (la > 40 || lb > 40) return 99;
  size_t row[41];
  for (size_t j = 0; j <= lb; j++) row[j] = j;
  for (size_t i = 1; i <= la; i++) {
    size_t prev = row[0];
    row[0] = i;
    for (size_t j = 1; j <= lb; j++) {
      size_t cur = row[j];
      size_t best = prev + (a[i - 1] != b[j - 1]);
      if (row[j] + 1 < best) best = row[j] + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      row[j] = best;
      prev = cur;
    }
  }
  return row[lb];
}

const char *tqh_did_you_mean(const char *word, const char *const *candidates) {
  const char *near = NULL;
  size_t near_d = 3;
  for (size_t j = 0; candidates && candidates[j]; j++) {
    size_t d = edit_distance(word, candidates[j]);
    if (d < near_d) {
      near_d = d;
      near = candidates[j];
    }
  }
  return near;
}
