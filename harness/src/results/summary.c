/* summary.txt: the table of tests (by test id, in run order), the outcome counts, the cache
 * line, then the Host Profile Overview blocks; and the shorter or longer forms a run prints as
 * asked (results.h). The blocks and durations come from overview.h, so that the summary prints
 * exactly what torq-annotate prints. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results_internal.h"
#include "torq/base/alloc.h"
#include "torq/harness/overview.h"

#define NAME_MAX_COLS 60

/* Display columns of UTF-8 text (code points; no wide characters in our names). */
static size_t columns(const char *s) {
  size_t n = 0;
  for (; *s; s++)
    if (((unsigned char)*s & 0xC0) != 0x80) n++;
  return n;
}

static tq_status_t spaces(tq_buf_t *out, size_t n) {
  for (size_t i = 0; i < n; i++) TQ_TRY(tq_buf_putc(out, ' '));
  return NULL;
}

/* Appends `s` with control characters shown as '?' (one line per test), cut to `max` columns,
 * padded to `width` columns. */
static tq_status_t cell(tq_buf_t *out, const char *s, size_t width, size_t max) {
  size_t cols = 0;
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    int start = (*p & 0xC0) != 0x80;
    if (start && cols == max) break;
    cols += start;
    TQ_TRY(tq_buf_putc(out, *p < 0x20 || *p == 0x7F ? '?' : (char)*p));
  }
  return spaces(out, width > cols ? width - cols : 0);
}

static tq_status_t right(tq_buf_t *out, const char *s, size_t width) {
  size_t cols = columns(s);
  TQ_TRY(spaces(out, width > cols ? width - cols : 0));
  return tq_buf_append_cstr(out, s);
}

static uint64_t to_ns(double seconds_or_us, double scale) {
  double v = seconds_or_us * scale;
  if (!isfinite(v) || v <= 0) return 0;
  if (v >= 1.8e19) return UINT64_MAX;
  return (uint64_t)llround(v);
}

static const char *title(const tqh_test_record_t *r) {
  return r->model && *r->model ? r->model : r->name;
}

static int find_metric(const tqh_test_record_t *r, const char *name, double *out_us) {
  for (size_t i = 0; i < r->metric_count; i++) {
    if (strcmp(r->metrics[i].name, name) == 0) {
      *out_us = r->metrics[i].us;
      return 1;
    }
  }
  return 0;
}

static tq_status_t table(const tqh_test_record_t *records, const size_t *order, size_t count,
                         tq_buf_t *out) {
  size_t name_w = 4; /* "TEST" */
  for (size_t i = 0; i < count; i++) {
    size_t c = columns(tqh_record_test_id(&records[i]));
    if (c > name_w) name_w = c > NAME_MAX_COLS ? NAME_MAX_COLS : c;
  }
  const size_t outcome_w = 9, wall_w = 20, overall_w = 12;
  TQ_TRY(tq_buf_append_cstr(out, "  "));
  TQ_TRY(cell(out, "TEST", name_w + 2, name_w));
  TQ_TRY(cell(out, "OUTCOME", outcome_w, outcome_w));
  TQ_TRY(right(out, "WALL TIME (median)", wall_w));
  TQ_TRY(right(out, "OVERALL", overall_w));
  TQ_TRY(tq_buf_putc(out, '\n'));
  for (size_t k = 0; k < count; k++) {
    const tqh_test_record_t *r = &records[order[k]];
    char wall[32] = "-", overall[32] = "-";
    double us;
    if (r->has_wall_time) tqh_format_duration(to_ns(r->wall_time_s, 1e9), wall);
    if (find_metric(r, TQH_METRIC_OVERALL, &us)) tqh_format_duration(to_ns(us, 1e3), overall);
    TQ_TRY(tq_buf_append_cstr(out, "  "));
    TQ_TRY(cell(out, tqh_record_test_id(r), name_w + 2, name_w));
    TQ_TRY(cell(out, tqh_outcome_name(r->outcome), outcome_w, outcome_w));
    TQ_TRY(right(out, wall, wall_w));
    TQ_TRY(right(out, overall, overall_w));
    TQ_TRY(tq_buf_putc(out, '\n'));
  }
  return NULL;
}

/* "7 tests: 6 passed, 1 failed" */
static tq_status_t counts_line(const tqh_test_record_t *records, size_t count, tq_buf_t *out) {
  size_t counts[TQH_OUTCOME_COUNT] = {0};
  for (size_t i = 0; i < count; i++)
    if ((unsigned)records[i].outcome < TQH_OUTCOME_COUNT) counts[records[i].outcome]++;
  TQ_TRY(tq_buf_printf(out, "%zu test%s", count, count == 1 ? "" : "s"));
  const char *sep = ": ";
  for (int o = 0; o < TQH_OUTCOME_COUNT; o++) {
    if (!counts[o]) continue;
    TQ_TRY(tq_buf_printf(out, "%s%zu %s", sep, counts[o], tqh_outcome_name((tqh_outcome_t)o)));
    sep = ", ";
  }
  return NULL;
}

static tq_status_t totals(const tqh_test_record_t *records, size_t count, tq_buf_t *out) {
  size_t hits = 0, misses = 0;
  for (size_t i = 0; i < count; i++) {
    hits += records[i].cache == TQH_CACHE_HIT;
    misses += records[i].cache == TQH_CACHE_MISS;
  }
  TQ_TRY(tq_buf_append_cstr(out, "  "));
  TQ_TRY(counts_line(records, count, out));
  TQ_TRY(tq_buf_printf(out, "\n  Cache: %zu hit%s, %zu miss%s\n", hits, hits == 1 ? "" : "s",
                       misses, misses == 1 ? "" : "es"));
  return NULL;
}

static tq_status_t block(const tqh_test_record_t *r, tq_buf_t *out) {
  tqh_overview_t ov;
  tqh_overview_init(&ov);
  tq_status_t s = NULL;
  for (size_t i = 0; !s && i < r->metric_count; i++)
    s = tqh_overview_add(&ov, r->metrics[i].name, to_ns(r->metrics[i].us, 1e3));
  int64_t wall = -1;
  if (r->has_wall_time) wall = (int64_t)(to_ns(r->wall_time_s, 1e9) & INT64_MAX);
  if (!s) s = tq_buf_putc(out, '\n');
  if (!s) s = tqh_overview_format_test(&ov, tqh_record_test_id(r), title(r), wall, out);
  tqh_overview_deinit(&ov);
  return s;
}

static int bad(const tqh_test_record_t *r) {
  return r->outcome == TQH_OUTCOME_FAILED || r->outcome == TQH_OUTCOME_ERROR;
}

/* Run order: when the tests started; a journal written by one runner holds them in the order
 * they finished, which with several workers is not the order they were run in. */
static int by_start(const tqh_test_record_t *r, size_t x, size_t y) {
  if (r[x].started_at != r[y].started_at) return r[x].started_at < r[y].started_at ? -1 : 1;
  return (x > y) - (x < y);
}

static int compare(const void *a, const void *b, void *ctx) {
  const void *const *c = ctx;
  const tqh_test_record_t *r = c[0];
  tqh_summary_order_t order = *(const tqh_summary_order_t *)c[1];
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  switch (order) {
    case TQH_SUMMARY_BY_ID: {
      int d = strcmp(tqh_record_test_id(&r[x]), tqh_record_test_id(&r[y]));
      return d ? d : (x > y) - (x < y);
    }
    case TQH_SUMMARY_BY_DURATION:
      if (r[x].duration_s != r[y].duration_s) return r[x].duration_s > r[y].duration_s ? -1 : 1;
      break;
    case TQH_SUMMARY_BY_OUTCOME:
      if (bad(&r[x]) != bad(&r[y])) return bad(&r[x]) ? -1 : 1;
      break;
    case TQH_SUMMARY_RUN_ORDER:
      break;
  }
  return by_start(r, x, y);
}

static tq_status_t sorted(const tqh_test_record_t *records, size_t count,
                          tqh_summary_order_t order, size_t **out) {
  size_t *o = tq_calloc(count ? count : 1, sizeof(*o));
  if (!o) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory rendering the summary");
  for (size_t i = 0; i < count; i++) o[i] = i;
  const void *ctx[2] = {records, &order};
  qsort_r(o, count, sizeof(*o), compare, (void *)ctx);
  *out = o;
  return NULL;
}

static tq_status_t rule(tq_buf_t *out, const char *title_text) {
  /* "=== Title ===" over 70 columns, as the other headings. */
  size_t n = columns(title_text) + 2, left = n < 68 ? (70 - n) / 2 : 1;
  size_t right_n = n < 68 ? 70 - n - left : 1;
  for (size_t i = 0; i < left; i++) TQ_TRY(tq_buf_putc(out, '='));
  TQ_TRY(tq_buf_printf(out, " %s ", title_text));
  for (size_t i = 0; i < right_n; i++) TQ_TRY(tq_buf_putc(out, '='));
  return tq_buf_putc(out, '\n');
}

/* The slowest tests, with where their time went. */
static tq_status_t durations(const tqh_test_record_t *records, size_t count, size_t n,
                             tq_buf_t *out) {
  size_t *o = NULL;
  TQ_TRY(sorted(records, count, TQH_SUMMARY_BY_DURATION, &o));
  if (n > count) n = count;
  char heading[64];
  snprintf(heading, sizeof(heading), "Slowest %zu test%s", n, n == 1 ? "" : "s");
  tq_status_t s = tq_buf_putc(out, '\n');
  if (!s) s = rule(out, heading);
  if (!s) s = tq_buf_printf(out, "  %12s %12s %12s %12s  %s\n", "TOTAL", "COMPILE", "RUN", "OTHER",
                            "TEST");
  for (size_t k = 0; !s && k < n; k++) {
    const tqh_test_record_t *r = &records[o[k]];
    double other = r->duration_s - r->compile_s - r->run_s;
    char d[4][32];
    tqh_format_duration(to_ns(r->duration_s, 1e9), d[0]);
    tqh_format_duration(to_ns(r->compile_s, 1e9), d[1]);
    tqh_format_duration(to_ns(r->run_s, 1e9), d[2]);
    tqh_format_duration(to_ns(other, 1e9), d[3]);
    s = tq_buf_append_cstr(out, "  ");
    for (int i = 0; !s && i < 4; i++) {
      s = right(out, d[i], 12);
      if (!s) s = tq_buf_putc(out, ' ');
    }
    if (!s) s = tq_buf_putc(out, ' ');
    if (!s) s = cell(out, tqh_record_test_id(r), 0, 200);
    if (!s) s = tq_buf_putc(out, '\n');
  }
  tq_free(o);
  return s;
}

/* -q: "7 tests: 6 passed, 1 failed in 1.234s; results in results/RUN/". */
static tq_status_t brief(const tqh_test_record_t *records, size_t count,
                         const tqh_summary_options_t *o, tq_buf_t *out) {
  TQ_TRY(counts_line(records, count, out));
  if (o->elapsed_s >= 0) {
    char d[32];
    tqh_format_duration(to_ns(o->elapsed_s, 1e9), d);
    TQ_TRY(tq_buf_printf(out, " in %s", d));
  }
  if (o->run_dir) TQ_TRY(tq_buf_printf(out, "; results in %s/", o->run_dir));
  return tq_buf_putc(out, '\n');
}

void tqh_summary_options_initialize(tqh_summary_options_t *options) {
  memset(options, 0, sizeof(*options));
  options->order = TQH_SUMMARY_RUN_ORDER;
  options->overview = TQH_OVERVIEW_ALL;
  options->elapsed_s = -1;
}

int tqh_summary_order_parse(const char *text, tqh_summary_order_t *out) {
  static const char *const names[] = {"run", "id", "duration", "outcome"};
  for (size_t i = 0; i < 4; i++)
    if (!strcmp(text, names[i])) {
      *out = (tqh_summary_order_t)i;
      return 1;
    }
  return 0;
}

int tqh_overview_shown_parse(const char *text, tqh_overview_shown_t *out) {
  static const char *const names[] = {"all", "failed", "none"};
  for (size_t i = 0; i < 3; i++)
    if (!strcmp(text, names[i])) {
      *out = (tqh_overview_shown_t)i;
      return 1;
    }
  return 0;
}

tq_status_t tqh__summary_render(const tqh_test_record_t *records, size_t count,
                                const tqh_summary_options_t *options, tqh__pieces_t *cache,
                                tq_buf_t *out) {
  tqh_summary_options_t defaults;
  tqh_summary_options_initialize(&defaults);
  const tqh_summary_options_t *o = options ? options : &defaults;
  if (o->brief) {
    TQ_TRY(brief(records, count, o, out));
    return o->durations ? durations(records, count, o->durations, out) : NULL;
  }
  size_t *order = NULL;
  TQ_TRY(sorted(records, count, o->order, &order));
  tq_status_t s = tq_buf_append_cstr(out,
                                     "============================== Summary "
                                     "===============================\n");
  if (!s) s = table(records, order, count, out);
  if (!s) s = tq_buf_append_cstr(out, "  ");
  for (int i = 0; i < 56 && !s; i++) s = tq_buf_append_cstr(out, "─");
  if (!s) s = tq_buf_putc(out, '\n');
  if (!s) s = totals(records, count, out);
  /* Blocks are cached by journal position, which does not change as tests are added. */
  for (size_t k = 0; k < count && !s && o->overview != TQH_OVERVIEW_NONE; k++) {
    size_t i = order[k];
    if (!records[i].metric_count) continue;
    if (o->overview == TQH_OVERVIEW_FAILED && !bad(&records[i])) continue;
    if (cache && tqh__pieces_get(cache, i, out, &s)) continue;
    size_t start = out->len;
    s = block(&records[i], out);
    if (!s && cache) s = tqh__pieces_put(cache, i, out, start);
  }
  if (!s && o->durations) s = durations(records, count, o->durations, out);
  tq_free(order);
  return s;
}

tq_status_t tqh__summary_piece(const tqh_test_record_t *record, size_t i, tqh__pieces_t *cache,
                               tq_buf_t *scratch) {
  if (!record->metric_count || (i < cache->count && cache->len[i] != SIZE_MAX)) return NULL;
  tq_buf_clear(scratch);
  TQ_TRY(block(record, scratch));
  return tqh__pieces_put(cache, i, scratch, 0);
}

tq_status_t tqh_summary_render(const tqh_test_record_t *records, size_t count,
                               const tqh_summary_options_t *options, tq_buf_t *out) {
  return tqh__summary_render(records, count, options, NULL, out);
}
