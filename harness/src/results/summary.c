/* summary.txt: the table of tests, the outcome counts, the cache line, then the Host Profile
 * Overview blocks. The blocks and durations come from overview.h, so that the summary prints
 * exactly what torq-annotate prints. */
#include <math.h>
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
    size_t c = columns(records[i].name);
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
    TQ_TRY(cell(out, r->name, name_w + 2, name_w));
    TQ_TRY(cell(out, tqh_outcome_name(r->outcome), outcome_w, outcome_w));
    TQ_TRY(right(out, wall, wall_w));
    TQ_TRY(right(out, overall, overall_w));
    TQ_TRY(tq_buf_putc(out, '\n'));
  }
  return NULL;
}

static tq_status_t totals(const tqh_test_record_t *records, size_t count, tq_buf_t *out) {
  size_t counts[TQH_OUTCOME_COUNT] = {0};
  size_t hits = 0, misses = 0;
  for (size_t i = 0; i < count; i++) {
    if ((unsigned)records[i].outcome < TQH_OUTCOME_COUNT) counts[records[i].outcome]++;
    hits += records[i].cache == TQH_CACHE_HIT;
    misses += records[i].cache == TQH_CACHE_MISS;
  }
  TQ_TRY(tq_buf_printf(out, "  %zu test%s", count, count == 1 ? "" : "s"));
  const char *sep = ": ";
  for (int o = 0; o < TQH_OUTCOME_COUNT; o++) {
    if (!counts[o]) continue;
    TQ_TRY(tq_buf_printf(out, "%s%zu %s", sep, counts[o], tqh_outcome_name((tqh_outcome_t)o)));
    sep = ", ";
  }
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
  if (!s) s = tqh_overview_format(&ov, title(r), wall, out);
  tqh_overview_deinit(&ov);
  return s;
}

/* The summary lists tests by id, not in the order they finished, so that two runs of the same
 * suite print the same text whatever the number of workers. */
static int by_id(const void *a, const void *b, void *records) {
  const tqh_test_record_t *r = records;
  const char *x = r[*(const size_t *)a].id, *y = r[*(const size_t *)b].id;
  return strcmp(x ? x : "", y ? y : "");
}

tq_status_t tqh__summary_render(const tqh_test_record_t *records, size_t count,
                                tqh__pieces_t *cache, tq_buf_t *out) {
  size_t *order = tq_calloc(count ? count : 1, sizeof(*order));
  if (!order) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory rendering the summary");
  for (size_t i = 0; i < count; i++) order[i] = i;
  qsort_r(order, count, sizeof(*order), by_id, (void *)records);
  tq_status_t s = tq_buf_append_cstr(out,
                                     "============================== Summary "
                                     "===============================\n");
  if (!s) s = table(records, order, count, out);
  if (!s) s = tq_buf_append_cstr(out, "  ");
  for (int i = 0; i < 56 && !s; i++) s = tq_buf_append_cstr(out, "─");
  if (!s) s = tq_buf_putc(out, '\n');
  if (!s) s = totals(records, count, out);
  /* Blocks are cached by journal position, which does not change as tests are added. */
  for (size_t k = 0; k < count && !s; k++) {
    size_t i = order[k];
    if (!records[i].metric_count) continue;
    if (cache && tqh__pieces_get(cache, i, out, &s)) continue;
    size_t start = out->len;
    s = block(&records[i], out);
    if (!s && cache) s = tqh__pieces_put(cache, i, out, start);
  }
  tq_free(order);
  return s;
}
