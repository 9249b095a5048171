/* Comparisons as text (baseline.h): tables with columns aligned over every line (by characters,
 * so that "µs" counts as two), one line per changed metric, the identical ones in one line; and
 * the regression message built from them. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "results_internal.h"
#include "torq/base/alloc.h"
#include "torq/harness/baseline.h"

enum { COL_TEST, COL_METRIC, COL_BASE, COL_NOW, COL_CHANGE, COL_VERDICT, COL_WHY, COLS };

static const char *const k_heads[COLS] = {"TEST",   "METRIC",  "BASELINE", "NOW",
                                          "CHANGE", "VERDICT", "WHY"};
static const int k_right[COLS] = {0, 0, 1, 1, 1, 0, 0};

/* A line: its cells (offsets into the table's text), or one note spanning from METRIC on. */
typedef struct line_s {
  size_t cell[COLS]; /* SIZE_MAX: empty */
  int note;          /* cell[COL_METRIC] holds the note */
} line_t;

struct tqh_baseline_table_s {
  tq_buf_t text; /* the cells, NUL-separated */
  line_t *lines;
  size_t count, cap;
  int with_test; /* some line has a test id */
};

tq_status_t tqh_baseline_table_create(tqh_baseline_table_t **out) {
  *out = tq_calloc(1, sizeof(**out));
  if (!*out) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  tq_buf_init(&(*out)->text, 0);
  return NULL;
}

void tqh_baseline_table_destroy(tqh_baseline_table_t *t) {
  if (!t) return;
  tq_buf_deinit(&t->text);
  tq_free(t->lines);
  tq_free(t);
}

static tq_status_t new_line(tqh_baseline_table_t *t, line_t **out) {
  if (t->count == t->cap) {
    size_t cap = t->cap ? t->cap * 2 : 16;
    line_t *l = tq_realloc(t->lines, cap * sizeof(*l));
    if (!l) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
    t->lines = l;
    t->cap = cap;
  }
  *out = &t->lines[t->count++];
  for (int c = 0; c < COLS; c++) (*out)->cell[c] = SIZE_MAX;
  (*out)->note = 0;
  return NULL;
}

static tq_status_t cell(tqh_baseline_table_t *t, line_t *l, int col, const char *text) {
  if (!text) return NULL;
  l->cell[col] = t->text.len;
  TQ_TRY(tq_buf_append_cstr(&t->text, text));
  return tq_buf_putc(&t->text, 0);
}

static const char *text_of(const tqh_baseline_table_t *t, const line_t *l, int col) {
  return l->cell[col] == SIZE_MAX ? "" : t->text.data + l->cell[col];
}

/* Characters, not bytes: UTF-8 continuation bytes do not count. */
static size_t width(const char *s) {
  size_t w = 0;
  for (; *s; s++) w += ((unsigned char)*s & 0xC0) != 0x80;
  return w;
}

static tq_status_t add_row(tqh_baseline_table_t *t, const char *test_id,
                           const tqh_baseline_row_t *r) {
  line_t *l;
  TQ_TRY(new_line(t, &l));
  char b[48], n[48], ch[32];
  tqh_baseline_format_value(r->base, r->unit, b);
  tqh_baseline_format_value(r->now, r->unit, n);
  if (isinf(r->change_pct))
    snprintf(ch, sizeof(ch), "%s", r->change_pct > 0 ? "+inf%" : "-inf%");
  else
    snprintf(ch, sizeof(ch), "%+.1f%%", r->change_pct);
  tq_buf_t why;
  tq_buf_init(&why, 0);
  tq_status_t st = tqh_baseline_row_why(r, &why);
  if (!st) st = cell(t, l, COL_TEST, test_id);
  if (!st) st = cell(t, l, COL_METRIC, r->metric);
  if (!st) st = cell(t, l, COL_BASE, b);
  if (!st) st = cell(t, l, COL_NOW, n);
  if (!st) st = cell(t, l, COL_CHANGE, ch);
  if (!st) st = cell(t, l, COL_VERDICT, tqh_baseline_change_name(r->change));
  if (!st) st = cell(t, l, COL_WHY, why.data ? why.data : "");
  tq_buf_deinit(&why);
  return st;
}

tq_status_t tqh_baseline_table_note(tqh_baseline_table_t *t, const char *test_id,
                                    const char *note) {
  line_t *l;
  TQ_TRY(new_line(t, &l));
  l->note = 1;
  if (test_id) t->with_test = 1;
  TQ_TRY(cell(t, l, COL_TEST, test_id));
  return cell(t, l, COL_METRIC, note);
}

tq_status_t tqh_baseline_table_add(tqh_baseline_table_t *t, const char *test_id,
                                   const tqh_baseline_comparison_t *c, int all) {
  if (test_id) t->with_test = 1;
  size_t same = 0;
  for (size_t i = 0; i < c->count; i++) {
    if (!all && c->rows[i].change == TQH_BASELINE_SAME) {
      same++;
      continue;
    }
    TQ_TRY(add_row(t, test_id, &c->rows[i]));
  }
  if (!same) return NULL;
  /* "15 metrics identical: Dma, Cdma, ... (+9 more)": names while they fit in a line. */
  tq_buf_t note;
  tq_buf_init(&note, 0);
  tq_status_t st = tq_buf_printf(&note, "%s%zu metric%s identical", same == c->count ? "all " : "",
                                 same, same == 1 ? "" : "s");
  size_t shown = 0;
  for (size_t i = 0; !st && i < c->count; i++) {
    if (c->rows[i].change != TQH_BASELINE_SAME) continue;
    if (note.len + strlen(c->rows[i].metric) > 90) break;
    st = tq_buf_printf(&note, "%s%s", shown ? ", " : ": ", c->rows[i].metric);
    shown++;
  }
  if (!st && shown < same) st = tq_buf_printf(&note, " (+%zu more)", same - shown);
  if (!st) st = tqh_baseline_table_note(t, test_id, note.data);
  tq_buf_deinit(&note);
  return st;
}

static tq_status_t pad(tq_buf_t *out, size_t n) {
  for (size_t i = 0; i < n; i++) TQ_TRY(tq_buf_putc(out, ' '));
  return NULL;
}

tq_status_t tqh_baseline_table_render(const tqh_baseline_table_t *t, const char *indent,
                                      tq_buf_t *out) {
  size_t w[COLS];
  int first = t->with_test ? COL_TEST : COL_METRIC;
  for (int c = 0; c < COLS; c++) w[c] = width(k_heads[c]);
  for (size_t i = 0; i < t->count; i++) {
    const line_t *l = &t->lines[i];
    for (int c = 0; c < COLS; c++) {
      if (l->note && c > COL_METRIC) break;
      if (l->note && c == COL_METRIC) continue; /* a note spans the other columns */
      size_t n = width(text_of(t, l, c));
      if (n > w[c]) w[c] = n;
    }
  }
  for (size_t i = 0; i <= t->count; i++) {
    const line_t *l = i ? &t->lines[i - 1] : NULL;
    TQ_TRY(tq_buf_append_cstr(out, indent ? indent : ""));
    int last = l && l->note ? COL_METRIC : COL_WHY;
    for (int c = first; c <= last; c++) {
      const char *s = l ? text_of(t, l, c) : k_heads[c];
      size_t n = width(s);
      if (c > first) TQ_TRY(tq_buf_append_cstr(out, "  "));
      if (k_right[c]) TQ_TRY(pad(out, w[c] - n));
      TQ_TRY(tq_buf_append_cstr(out, s));
      if (!k_right[c] && c < last) TQ_TRY(pad(out, w[c] - n));
    }
    /* No trailing blanks. */
    while (out->len && out->data[out->len - 1] == ' ') out->data[--out->len] = 0;
    TQ_TRY(tq_buf_putc(out, '\n'));
  }
  return NULL;
}

tq_status_t tqh_baseline_format_message(const tqh_baseline_comparison_t *c, tq_buf_t *out) {
  int first = 1;
  for (size_t i = 0; i < c->count; i++) {
    const tqh_baseline_row_t *r = &c->rows[i];
    if (r->change != TQH_BASELINE_REGRESSED) continue;
    TQ_TRY(tq_buf_printf(out, "%s%s ", first ? "regression: " : ", ", r->metric));
    if (isinf(r->change_pct))
      TQ_TRY(tq_buf_append_cstr(out, "+inf%"));
    else
      TQ_TRY(tq_buf_printf(out, "%+.1f%%", r->change_pct));
    first = 0;
  }
  if (first) return NULL;
  TQ_TRY(tq_buf_putc(out, '\n'));
  tqh_baseline_table_t *t = NULL;
  TQ_TRY(tqh_baseline_table_create(&t));
  tq_status_t st = tqh_baseline_table_add(t, NULL, c, 0);
  if (!st) st = tqh_baseline_table_render(t, "  ", out);
  tqh_baseline_table_destroy(t);
  /* The message ends with its last line, without a newline. */
  if (!st && out->len && out->data[out->len - 1] == '\n') out->data[--out->len] = 0;
  return st;
}
