/* The trends page (trends.h): the history's tests, a chart per metric with its change points,
 * and the table of the largest changes. The sections are rendered first (into memory) while the
 * changes are collected, so that the table can lead the page. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report_internal.h"
#include "torq/base/alloc.h"
#include "torq/harness/baseline.h"
#include "torq/harness/files.h"
#include "torq/harness/html_report.h"
#include "torq/harness/stats.h"
#include "torq/harness/trends.h"

void tqh_trends_options_initialize(tqh_trends_options_t *options) {
  memset(options, 0, sizeof(*options));
  options->last = TQH_TRENDS_LAST_DEFAULT;
}

enum { W = 200, H = 60, PAD_L = 5, PAD_R = 5, PAD_T = 8, PAD_B = 6 };

static const char *k_css =
    "body{font:14px/1.4 system-ui,sans-serif;margin:16px 24px;color:#222}"
    "h1{font-size:22px;margin:0 0 8px}h2{font-size:17px;margin:16px 0 6px}"
    "h3{font-size:14px;margin:0 0 6px}"
    "table{border-collapse:collapse}td,th{padding:2px 8px;border-bottom:1px solid #ddd;"
    "text-align:left;vertical-align:top}th{background:#f3f3f3}td.n{text-align:right}"
    "dl{display:grid;grid-template-columns:max-content auto;gap:0 12px;margin:0}dt{color:#666}"
    "dd{margin:0}section.test{border-top:2px solid #ccc;padding:10px 0;margin-top:10px}"
    ".charts{display:flex;flex-wrap:wrap;gap:10px}figure{margin:0;width:200px}"
    "figcaption{font-size:12px;display:flex;justify-content:space-between}"
    "figcaption b{font-weight:600}svg{display:block;background:#fafafa;border:1px solid #eee}"
    "polyline{fill:none;stroke:#3b6ea8;stroke-width:1.5}circle{fill:#3b6ea8}"
    "line.cp{stroke:#b3261e;stroke-width:1.5;stroke-dasharray:3 2}.up{color:#b3261e}"
    ".down{color:#17702b}.note{color:#666}svg text{font:10px sans-serif;fill:#777}";

static tq_status_t esc(tq_buf_t *out, const char *s) {
  return s ? tqh_html_escape(s, strlen(s), out) : NULL;
}

/* A change point of one series, for the table. */
typedef struct change_s {
  char *test, *metric, *run_id, *revision; /* arena */
  double when, before, after, pct;
  const char *unit;
} change_t;

typedef struct page_s {
  tq_arena_t arena;   /* what the page keeps to its end (the change points) */
  tq_arena_t scratch; /* one test's section: emptied after each, so that a page of a thousand
                       * tests reuses its memory instead of touching new pages for each */
  change_t *changes;
  size_t change_count, change_cap;
  tqh_trends_summary_t summary;
} page_t;

static char *dup(page_t *p, const char *s) {
  return s ? tq_arena_strndup(&p->arena, s, strlen(s)) : NULL;
}

static tq_status_t add_change(page_t *p, const change_t *c) {
  if (p->change_count == p->change_cap) {
    size_t cap = p->change_cap ? p->change_cap * 2 : 64;
    change_t *n = tq_realloc(p->changes, cap * sizeof(*n));
    if (!n) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
    p->changes = n;
    p->change_cap = cap;
  }
  p->changes[p->change_count++] = *c;
  return NULL;
}

/* Measured times first, then the estimate, then the others by name. */
static int rank(const char *name) {
  if (!strcmp(name, "device_time")) return 0;
  if (!strcmp(name, "wall_time")) return 1;
  if (!strcmp(name, "estimated_cycles")) return 2;
  return 3;
}

static int cmp_names(const void *a, const void *b) {
  const char *x = *(const char *const *)a, *y = *(const char *const *)b;
  int r = rank(x) - rank(y);
  return r ? r : strcmp(x, y);
}

static double median_of(const double *v, size_t n) {
  double *c = tq_calloc(n ? n : 1, sizeof(double));
  if (!c) return v[0];
  memcpy(c, v, n * sizeof(double));
  double m = tqh_stats_median_inplace(c, n);
  tq_free(c);
  return m;
}

static tq_status_t value_text(tq_buf_t *out, double v, const char *unit) {
  char t[48];
  tqh_baseline_format_value(v, unit, t);
  return esc(out, t);
}

/* printf's "%.1f" of a chart coordinate, without printf (a page holds hundreds of thousands):
 * rounded to tenths, half away from zero. */
static tq_status_t coord(tq_buf_t *out, double v) {
  if (!isfinite(v) || fabs(v) > 1e15) return tq_buf_printf(out, "%.1f", v);
  long long tenths = llround(v * 10);
  unsigned long long u = tenths < 0 ? (unsigned long long)-tenths : (unsigned long long)tenths;
  char t[32], *p = t + sizeof(t);
  *--p = (char)('0' + u % 10);
  *--p = '.';
  u /= 10;
  do *--p = (char)('0' + u % 10); while (u /= 10);
  if (tenths < 0) *--p = '-';
  return tq_buf_append(out, p, (size_t)(t + sizeof(t) - p));
}

static void date_of(double t, char out[32]) {
  time_t s = (time_t)t;
  struct tm tm;
  if (t > 0 && gmtime_r(&s, &tm))
    strftime(out, 32, "%Y-%m-%d %H:%M", &tm);
  else
    snprintf(out, 32, "-");
}

/* One chart: the series of `metric` over the entries that have it. */
static tq_status_t chart(page_t *p, const char *test_id, const tqh_history_entry_t *e, size_t n,
                         const char *const *labels, const char *metric, tq_buf_t *out) {
  double *v = tq_arena_calloc(&p->scratch, n + 1, sizeof(double));
  size_t *at = tq_arena_calloc(&p->scratch, n + 1, sizeof(size_t));
  if (!v || !at) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  const char *unit = "";
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    const tqh_history_metric_t *m = tqh_history_entry_metric(&e[i], metric);
    if (!m || !isfinite(m->value)) continue;
    unit = m->unit;
    at[k] = i;
    v[k++] = m->value;
  }
  if (!k) return NULL;
  size_t *cp = NULL, ncp = 0;
  TQ_TRY(tqh_stats_change_points(v, k, NULL, &cp, &ncp));
  double lo = v[0], hi = v[0];
  for (size_t i = 0; i < k; i++) lo = v[i] < lo ? v[i] : lo, hi = v[i] > hi ? v[i] : hi;
  tq_status_t st = tq_buf_append_cstr(out, "<figure data-metric=\"");
  if (!st) st = esc(out, metric);
  if (!st) st = tq_buf_append_cstr(out, "\"><figcaption><b>");
  if (!st) st = esc(out, metric);
  if (!st) st = tq_buf_append_cstr(out, "</b><span>");
  if (!st) st = value_text(out, v[k - 1], unit);
  if (!st && ncp) st = tq_buf_printf(out, " &middot; %zu change%s", ncp, ncp == 1 ? "" : "s");
  if (!st) st = tq_buf_printf(out, "</span></figcaption><svg width=\"%d\" height=\"%d\" "
                                   "viewBox=\"0 0 %d %d\" role=\"img\">", W, H, W, H);
  double xs = k > 1 ? (double)(W - PAD_L - PAD_R) / (double)(k - 1) : 0;
  double ys = hi > lo ? (double)(H - PAD_T - PAD_B) / (hi - lo) : 0;
#define X(i) (PAD_L + xs * (double)(i) + (k > 1 ? 0 : (W - PAD_L - PAD_R) / 2.0))
#define Y(x) (hi > lo ? (double)(H - PAD_B) - ((x)-lo) * ys : H / 2.0)
  if (!st && hi > lo) {
    char lab[48];
    tqh_baseline_format_value(hi, unit, lab);
    st = tq_buf_printf(out, "<text x=\"%d\" y=\"%d\">%s</text>", W - 62, PAD_T + 1, lab);
    tqh_baseline_format_value(lo, unit, lab);
    if (!st) st = tq_buf_printf(out, "<text x=\"%d\" y=\"%d\">%s</text>", W - 62, H - 1, lab);
  }
  /* Change points: a dashed line between the last run before and the first after. */
  size_t seg = 0;
  for (size_t c = 0; !st && c < ncp; c++) {
    size_t t = cp[c], end = c + 1 < ncp ? cp[c + 1] : k;
    double before = median_of(v + seg, t - seg), after = median_of(v + t, end - t);
    seg = t;
    double pct = before != 0 ? (after - before) / fabs(before) * 100.0 : 0;
    const tqh_history_entry_t *began = &e[at[t]];
    double x = (X(t - 1) + X(t)) / 2;
    st = tq_buf_printf(out, "<line class=\"cp\" x1=\"%.1f\" x2=\"%.1f\" y1=\"0\" y2=\"%d\">"
                            "<title>change point: %+.1f%% from run ", x, x, H, pct);
    if (!st) st = esc(out, began->run.run_id);
    if (!st) st = tq_buf_append_cstr(out, "</title></line>");
    change_t ch = {dup(p, test_id), dup(p, metric), dup(p, began->run.run_id),
                   dup(p, began->run.git_revision), began->run.started_at, before, after, pct,
                   dup(p, unit)};
    if (!st) st = add_change(p, &ch);
    p->summary.change_points++;
  }
  if (!st) st = tq_buf_append_cstr(out, "<polyline points=\"");
  for (size_t i = 0; !st && i < k; i++) {
    if (i) st = tq_buf_append(out, " ", 1);
    if (!st) st = coord(out, X(i));
    if (!st) st = tq_buf_append(out, ",", 1);
    if (!st) st = coord(out, Y(v[i]));
  }
  if (!st) st = tq_buf_append_cstr(out, "\"/>");
  /* A point per run with what it was; a constant series needs none. */
  for (size_t i = 0; !st && hi > lo && i < k; i++) {
    st = tq_buf_append_cstr(out, "<circle cx=\"");
    if (!st) st = coord(out, X(i));
    if (!st) st = tq_buf_append_cstr(out, "\" cy=\"");
    if (!st) st = coord(out, Y(v[i]));
    if (!st) st = tq_buf_append_cstr(out, "\" r=\"2\"><title>");
    if (!st) st = tq_buf_append_cstr(out, labels[at[i]]);
    if (!st) st = value_text(out, v[i], unit);
    if (!st) st = tq_buf_append_cstr(out, "</title></circle>");
  }
#undef X
#undef Y
  if (!st && hi == lo)
    st = tq_buf_printf(out, "<title>%zu run%s, all the same</title>", k, k == 1 ? "" : "s");
  if (!st) st = tq_buf_append_cstr(out, "</svg></figure>\n");
  tq_free(cp);
  p->summary.charts++;
  return st;
}

static tq_status_t section(page_t *p, tqh_history_t *h, const tqh_history_key_t *key,
                           const char *test_id, size_t last, tq_buf_t *out) {
  tqh_history_entry_t *e = NULL;
  size_t n = 0;
  TQ_TRY(tqh_history_entries(h, key, last, 0, NULL, NULL, 0, &p->scratch, &e, &n));
  /* The metrics any of its runs has. */
  size_t cap = 0, count = 0;
  for (size_t i = 0; i < n; i++) cap += e[i].metric_count;
  const char **names = tq_arena_calloc(&p->scratch, cap + 1, sizeof(*names));
  if (!names) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  for (size_t i = 0; i < n; i++)
    for (size_t m = 0; m < e[i].metric_count; m++) {
      size_t j = 0;
      /* The names of one read are shared (history.h): the same pointer, mostly. */
      while (j < count && names[j] != e[i].metrics[m].name &&
             strcmp(names[j], e[i].metrics[m].name) != 0)
        j++;
      if (j == count) names[count++] = e[i].metrics[m].name;
    }
  qsort(names, count, sizeof(*names), cmp_names);
  /* Each run's words in a point's title ("run (revision): "), escaped once for all its charts. */
  const char **labels = tq_arena_calloc(&p->scratch, n + 1, sizeof(*labels));
  if (!labels) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  tq_buf_t label;
  tq_buf_init(&label, 0);
  tq_status_t st = NULL;
  for (size_t i = 0; !st && i < n; i++) {
    tq_buf_clear(&label);
    st = esc(&label, e[i].run.run_id);
    if (!st && e[i].run.git_revision) st = tq_buf_printf(&label, " (%.10s)", e[i].run.git_revision);
    if (!st) st = tq_buf_append_cstr(&label, ": ");
    if (!st && !(labels[i] = tq_arena_strndup(&p->scratch, label.data, label.len)))
      st = TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  }
  tq_buf_deinit(&label);
  TQ_TRY(st);
  TQ_TRY(tq_buf_append_cstr(out, "<section class=\"test\" id=\"t-"));
  TQ_TRY(esc(out, test_id));
  TQ_TRY(tq_buf_append_cstr(out, "\"><h3>"));
  TQ_TRY(esc(out, test_id));
  TQ_TRY(tq_buf_printf(out, " <span class=\"note\">%zu run%s", n, n == 1 ? "" : "s"));
  if (n) {
    char d0[32], d1[32];
    date_of(e[0].run.started_at, d0);
    date_of(e[n - 1].run.started_at, d1);
    TQ_TRY(tq_buf_printf(out, ", %s to %s, last %s", d0, d1, e[n - 1].outcome));
  }
  TQ_TRY(tq_buf_append_cstr(out, "</span></h3>\n<div class=\"charts\">\n"));
  for (size_t i = 0; i < count; i++) TQ_TRY(chart(p, test_id, e, n, labels, names[i], out));
  if (!count) TQ_TRY(tq_buf_append_cstr(out, "<p class=\"note\">No metrics recorded.</p>"));
  return tq_buf_append_cstr(out, "</div></section>\n");
}

static int cmp_changes(const void *a, const void *b) {
  const change_t *x = a, *y = b;
  double d = fabs(y->pct) - fabs(x->pct);
  if (d != 0) return d > 0 ? 1 : -1;
  return (y->when > x->when) - (y->when < x->when);
}

static tq_status_t changes_table(page_t *p, tq_buf_t *out) {
  TQ_TRY(tq_buf_append_cstr(out, "<h2>Largest changes</h2>\n"));
  if (!p->change_count)
    return tq_buf_append_cstr(out, "<p class=\"note\" id=\"changes\">No change point in these "
                                   "runs.</p>\n");
  qsort(p->changes, p->change_count, sizeof(*p->changes), cmp_changes);
  TQ_TRY(tq_buf_append_cstr(out, "<table id=\"changes\"><thead><tr><th>Test</th><th>Metric</th>"
                                 "<th>Began in run</th><th>Revision</th><th>Date</th>"
                                 "<th class=\"n\">Before</th><th class=\"n\">After</th>"
                                 "<th class=\"n\">Change</th></tr></thead><tbody>\n"));
  for (size_t i = 0; i < p->change_count && i < TQH_TRENDS_MAX_CHANGES; i++) {
    const change_t *c = &p->changes[i];
    char d[32];
    date_of(c->when, d);
    TQ_TRY(tq_buf_append_cstr(out, "<tr><td><a href=\"#t-"));
    TQ_TRY(esc(out, c->test));
    TQ_TRY(tq_buf_append_cstr(out, "\">"));
    TQ_TRY(esc(out, c->test));
    TQ_TRY(tq_buf_append_cstr(out, "</a></td><td>"));
    TQ_TRY(esc(out, c->metric));
    TQ_TRY(tq_buf_append_cstr(out, "</td><td>"));
    TQ_TRY(esc(out, c->run_id));
    TQ_TRY(tq_buf_append_cstr(out, "</td><td>"));
    TQ_TRY(esc(out, c->revision ? c->revision : "-"));
    TQ_TRY(tq_buf_printf(out, "</td><td>%s</td><td class=\"n\">", d));
    TQ_TRY(value_text(out, c->before, c->unit));
    TQ_TRY(tq_buf_append_cstr(out, "</td><td class=\"n\">"));
    TQ_TRY(value_text(out, c->after, c->unit));
    TQ_TRY(tq_buf_printf(out, "</td><td class=\"n %s\">%+.1f%%</td></tr>\n",
                         c->pct > 0 ? "up" : "down", c->pct));
  }
  return tq_buf_append_cstr(out, "</tbody></table>\n");
}

tq_status_t tqh_trends_write(tqh_history_t *h, const tqh_trends_options_t *options,
                             const char *path, tqh_trends_summary_t *out) {
  if (out) memset(out, 0, sizeof(*out));
  tqh_trends_options_t o;
  if (options)
    o = *options;
  else
    tqh_trends_options_initialize(&o);
  if (!o.last) o.last = TQH_TRENDS_LAST_DEFAULT;
  page_t p;
  memset(&p, 0, sizeof(p));
  tq_arena_init(&p.arena, 0, 0);
  tq_arena_init(&p.scratch, 0, 0);
  tq_buf_t body, id;
  tq_buf_init(&body, 0);
  tq_buf_init(&id, 0);
  tqh_history_key_t *keys = NULL;
  size_t nkeys = 0, runs = 0;
  tqh_history_run_t *all = NULL;
  int reading = tqh_history_read_begin(h);
  tq_status_t st = tqh_history_list_runs(h, o.last, &p.arena, &all, &runs);
  if (!st) st = tqh_history_list_tests(h, o.last, &p.arena, &keys, &nkeys);
  for (size_t i = 0; !st && i < nkeys; i++) {
    tq_buf_clear(&id);
    st = tq_buf_printf(&id, "%s/%s", keys[i].suite, keys[i].name);
    if (!st && strcmp(keys[i].target, "sim") != 0 && !strchr(keys[i].name, '['))
      st = tq_buf_printf(&id, "[%s]", keys[i].target);
    if (st || !tqh_select_match_id(o.keyword, id.data)) continue;
    st = section(&p, h, &keys[i], id.data, o.last, &body);
    tq_arena_deinit(&p.scratch);
    tq_arena_init(&p.scratch, 0, 0);
    p.summary.tests++;
  }
  tqh_history_read_end(h, reading);
  tqh_out_file_t file;
  if (!st) st = tqh_out_file_open(&file, path);
  if (!st) {
    tq_buf_t *w = &file.buf;
    st = tq_buf_printf(w, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                          "<title>Torq bench trends</title><style>%s</style></head>\n<body>\n"
                          "<header><h1>Trends</h1><dl><dt>History</dt><dd>",
                       k_css);
    if (!st) st = esc(w, tqh_history_path(h));
    if (!st)
      st = tq_buf_printf(w, "</dd><dt>Runs</dt><dd>the last %zu of each test (%zu shown from "
                            "%s",
                         o.last, runs, runs && all[0].run_id ? "" : "none");
    if (!st && runs) st = esc(w, all[0].run_id);
    if (!st && runs) st = tq_buf_append_cstr(w, " to ");
    if (!st && runs) st = esc(w, all[runs - 1].run_id);
    if (!st)
      st = tq_buf_printf(w, ")</dd><dt>Tests</dt><dd id=\"tests\">%zu</dd><dt>Change points</dt>"
                            "<dd>E-divisive means (Matteson &amp; James 2014) with a permutation "
                            "test: p &lt; 0.05 over 199 random orders, at least 2 runs a side; "
                            "dashed red lines</dd></dl></header>\n",
                         p.summary.tests);
    if (!st) st = changes_table(&p, w);
    if (!st) st = tq_buf_printf(w, "<h2>Tests</h2>\n");
    if (!st && !p.summary.tests)
      st = tq_buf_append_cstr(w, "<p class=\"note\">No test in the history matches.</p>\n");
    if (!st) st = tq_buf_append(w, body.data ? body.data : "", body.len);
    if (!st) st = tq_buf_append_cstr(w, "</body></html>\n");
    if (!st) st = tqh_out_file_commit(&file);
    else tqh_out_file_abort(&file);
  }
  if (st) st = tq_status_annotate(st, "while writing the trends page %s", path);
  if (!st && out) *out = p.summary;
  tq_free(p.changes);
  tq_buf_deinit(&body);
  tq_buf_deinit(&id);
  tq_arena_deinit(&p.arena);
  tq_arena_deinit(&p.scratch);
  return st;
}
