/* The timeline of one test as inline SVG (report_internal.h), from the tracks and slices of its
 * Perfetto trace as perfetto.h reads them back. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"
#include "torq/base/alloc.h"
#include "torq/harness/html_report.h"
#include "torq/harness/overview.h"

#define LABEL_W 150 /* the track names */
#define PLOT_W 800  /* the time axis */
#define ROW_H 14
#define ROW_STEP 18
#define AXIS_H 22
#define MAX_TICKS 8
#define COLORS 8

uint64_t tqh__html_tick_step(uint64_t span_ns, unsigned max_ticks) {
  uint64_t raw = span_ns / (max_ticks ? max_ticks : 1);
  if (span_ns % (max_ticks ? max_ticks : 1)) raw++;
  if (raw <= 1) return 1;
  uint64_t p = 1;
  while (p <= raw / 10) p *= 10;
  if (raw <= p) return p;
  if (raw <= 2 * p) return 2 * p;
  if (raw <= 5 * p) return 5 * p;
  return p > UINT64_MAX / 10 ? UINT64_MAX : 10 * p;
}

size_t tqh__html_fmt_1f(char *p, size_t size, double x) {
  /* Tenths, rounded to nearest. x * 10 is itself rounded, so a value within a hair of a tie
   * (where printf's exact decimal expansion decides) goes to printf, as does anything large,
   * negative or not finite. */
  double t = x * 10;
  if (!(x >= 0 && t < 1e15)) return (size_t)snprintf(p, size, "%.1f", x);
  double f = floor(t), frac = t - f;
  if (fabs(frac - 0.5) < 1e-6) return (size_t)snprintf(p, size, "%.1f", x);
  uint64_t v = (uint64_t)f + (frac > 0.5);
  char tmp[24];
  size_t n = 0;
  tmp[n++] = (char)('0' + v % 10);
  tmp[n++] = '.';
  v /= 10;
  do {
    tmp[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  for (size_t i = 0; i < n; i++) p[i] = tmp[n - 1 - i];
  p[n] = 0;
  return n;
}

/* Appends the literal `s`. */
#define LIT(out, s) tq_buf_append((out), (s), sizeof(s) - 1)

static tq_status_t put_1f(tq_buf_t *out, double x) {
  char num[TQH__FMT_1F_MAX];
  return tq_buf_append(out, num, tqh__html_fmt_1f(num, sizeof(num), x));
}

static tq_status_t put_int(tq_buf_t *out, long long v) {
  char num[32];
  int n = snprintf(num, sizeof(num), "%lld", v);
  return tq_buf_append(out, num, (size_t)n);
}

/* A drawn row: a top-level track's heading or one of its tracks. */
typedef struct row_s {
  const tqh_trace_track_t *track;
  int heading;
} row_t;

typedef struct ev_s {
  size_t row;
  uint64_t start, end;
  const char *name; /* borrowed from the trace */
} ev_t;

static int cmp_ev(const void *a, const void *b) {
  const ev_t *x = a, *y = b;
  if (x->row != y->row) return x->row < y->row ? -1 : 1;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  return (x->end > y->end) - (x->end < y->end);
}

static int has_children(const tqh_trace_t *trace, uint64_t uuid) {
  for (size_t i = 0; i < trace->num_tracks; i++)
    if (trace->tracks[i].parent_uuid == uuid) return 1;
  return 0;
}

/* The rows in the trace's order: each top-level track but the overview's, as a heading
 * followed by its children (or as a row of its own when it has none). */
static size_t collect_rows(const tqh_trace_t *trace, row_t *rows) {
  size_t n = 0;
  for (size_t i = 0; i < trace->num_tracks; i++) {
    const tqh_trace_track_t *top = &trace->tracks[i];
    if (top->parent_uuid || !strcmp(top->name, TQH_TRACK_OVERVIEW)) continue;
    int kids = has_children(trace, top->uuid);
    rows[n++] = (row_t){top, kids};
    for (size_t k = 0; kids && k < trace->num_tracks; k++)
      if (trace->tracks[k].parent_uuid == top->uuid) rows[n++] = (row_t){&trace->tracks[k], 0};
  }
  return n;
}

static size_t row_of(const row_t *rows, size_t count, uint64_t uuid) {
  for (size_t r = 0; r < count; r++)
    if (!rows[r].heading && rows[r].track->uuid == uuid) return r;
  return SIZE_MAX;
}

typedef struct plot_s {
  uint64_t t0, span;
  tq_buf_t *out;
} plot_t;

static double x_of(const plot_t *p, uint64_t t) {
  return LABEL_W + (double)(t - p->t0) * PLOT_W / (double)p->span;
}

static tq_status_t text(tq_buf_t *out, const char *s) {
  return tqh_html_escape(s, strlen(s), out);
}

static tq_status_t axis(const plot_t *p, int height) {
  uint64_t step = tqh__html_tick_step(p->span, MAX_TICKS);
  for (uint64_t t = 0; t <= p->span; t += step) {
    char label[32];
    tqh_format_duration(t, label);
    double x = x_of(p, p->t0 + t);
    TQ_TRY(tq_buf_printf(p->out,
                         "<line class=\"tick\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>"
                         "<text class=\"tl\" x=\"%.1f\" y=\"%d\">",
                         x, AXIS_H - 6, x, height, x, AXIS_H - 9));
    TQ_TRY(text(p->out, label));
    TQ_TRY(tq_buf_append_cstr(p->out, "</text>"));
    if (t > UINT64_MAX - step) break;
  }
  return NULL;
}

/* One rect for events [first, last] of a row (merged when more than one). */
static tq_status_t rect(const plot_t *p, const ev_t *ev, size_t first, size_t last, int y) {
  uint64_t start = ev[first].start, end = ev[first].end, busy = 0;
  for (size_t i = first; i <= last; i++) {
    if (ev[i].end > end) end = ev[i].end;
    busy += ev[i].end - ev[i].start;
  }
  double x = x_of(p, start), w = x_of(p, end) - x;
  if (w < 0.5) w = 0.5;
  static const char cls[COLORS] = {'0', '1', '2', '3', '4', '5', '6', '7'};
  TQ_TRY(LIT(p->out, "<rect class=\"c"));
  TQ_TRY(tq_buf_append(p->out, &cls[ev[first].row % COLORS], 1));
  TQ_TRY(LIT(p->out, "\" x=\""));
  TQ_TRY(put_1f(p->out, x));
  TQ_TRY(LIT(p->out, "\" y=\""));
  TQ_TRY(put_int(p->out, y));
  TQ_TRY(LIT(p->out, "\" width=\""));
  TQ_TRY(put_1f(p->out, w));
  TQ_TRY(LIT(p->out, "\" height=\""));
  TQ_TRY(put_int(p->out, ROW_H));
  TQ_TRY(LIT(p->out, "\"><title>"));
  char d[32], at[32];
  tqh_format_duration(start - p->t0, at);
  if (first == last) {
    tqh_format_duration(end - start, d);
    TQ_TRY(text(p->out, ev[first].name));
    TQ_TRY(tq_buf_append_cstr(p->out, ": "));
    TQ_TRY(text(p->out, d));
  } else {
    char span[32];
    tqh_format_duration(busy, d);
    tqh_format_duration(end - start, span);
    TQ_TRY(tq_buf_printf(p->out, "%zu events (", last - first + 1));
    TQ_TRY(text(p->out, ev[first].name));
    TQ_TRY(tq_buf_append_cstr(p->out, " \xE2\x80\xA6 "));
    TQ_TRY(text(p->out, ev[last].name));
    TQ_TRY(tq_buf_append_cstr(p->out, "): busy "));
    TQ_TRY(text(p->out, d));
    TQ_TRY(tq_buf_append_cstr(p->out, " of "));
    TQ_TRY(text(p->out, span));
  }
  TQ_TRY(tq_buf_append_cstr(p->out, " at +"));
  TQ_TRY(text(p->out, at));
  return tq_buf_append_cstr(p->out, "</title></rect>");
}

/* The rects of one row's events ev[0..n). With `gap` > 0, an event that starts less than `gap`
 * pixels after the start of the rect before it joins that rect, so that a row holds at most
 * about PLOT_W / gap rects, each still in its place. */
static tq_status_t row_rects(const plot_t *p, const ev_t *ev, size_t n, double gap, int y) {
  size_t first = 0;
  for (size_t i = 1; i <= n; i++) {
    if (i < n && gap > 0 && x_of(p, ev[i].start) < x_of(p, ev[first].start) + gap) continue;
    TQ_TRY(rect(p, ev, first, i - 1, y));
    first = i;
  }
  return NULL;
}

static tq_status_t draw(const row_t *rows, size_t num_rows, ev_t *ev, size_t n, size_t max_rects,
                        tq_buf_t *out) {
  plot_t p = {UINT64_MAX, 0, out};
  uint64_t t1 = 0;
  for (size_t i = 0; i < n; i++) {
    if (ev[i].start < p.t0) p.t0 = ev[i].start;
    if (ev[i].end > t1) t1 = ev[i].end;
  }
  p.span = t1 > p.t0 ? t1 - p.t0 : 1;
  qsort(ev, n, sizeof(*ev), cmp_ev);
  int height = AXIS_H + (int)num_rows * ROW_STEP + 4;
  TQ_TRY(tq_buf_printf(out,
                       "<svg class=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" "
                       "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">",
                       LABEL_W + PLOT_W + 40, height, LABEL_W + PLOT_W + 40, height));
  TQ_TRY(axis(&p, height));
  double gap = (double)PLOT_W / (double)(max_rects ? max_rects : 1);
  if (gap < 1) gap = 1;
  size_t e = 0;
  for (size_t r = 0; r < num_rows; r++) {
    int y = AXIS_H + (int)r * ROW_STEP;
    TQ_TRY(tq_buf_printf(out, "<text class=\"%s\" x=\"%d\" y=\"%d\">",
                         rows[r].heading ? "th" : "tn", rows[r].heading ? 2 : 12, y + ROW_H - 3));
    TQ_TRY(text(out, rows[r].track->name));
    TQ_TRY(tq_buf_append_cstr(out, "</text>"));
    size_t first = e;
    while (e < n && ev[e].row == r) e++;
    if (e > first) TQ_TRY(row_rects(&p, ev + first, e - first, e - first > max_rects ? gap : 0, y));
  }
  return tq_buf_append_cstr(out, "</svg>\n");
}

tq_status_t tqh__html_timeline(const tqh_trace_t *trace, size_t max_rects, tq_buf_t *out) {
  row_t *rows = tq_calloc(trace->num_tracks + 1, sizeof(*rows));
  ev_t *ev = tq_calloc(trace->num_slices + 1, sizeof(*ev));
  if (!rows || !ev) {
    tq_free(rows);
    tq_free(ev);
    return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory drawing a timeline");
  }
  size_t num_rows = collect_rows(trace, rows), n = 0;
  for (size_t i = 0; i < trace->num_slices; i++) {
    const tqh_trace_slice_t *s = &trace->slices[i];
    size_t r = row_of(rows, num_rows, s->track_uuid);
    if (r == SIZE_MAX || s->end_ns < s->start_ns) continue;
    ev[n++] = (ev_t){r, s->start_ns, s->end_ns, s->name ? s->name : ""};
  }
  tq_status_t st =
      n ? draw(rows, num_rows, ev, n, max_rects, out)
        : tq_buf_append_cstr(out, "<p class=\"note\">The profile holds no events.</p>\n");
  tq_free(rows);
  tq_free(ev);
  return st;
}
