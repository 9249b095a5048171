/* The Host Profile Overview: metrics from an annotation, read back from Perfetto traces, and
 * printed (overview.h). */
#include "torq/harness/overview.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "torq/base/alloc.h"
#include "torq/harness/annotate.h"
#include "torq/harness/intervals.h"
#include "torq/harness/perfetto.h"
#include "torq/runtime/profile.h"

void tqh_overview_init(tqh_overview_t *ov) {
  memset(ov, 0, sizeof(*ov));
}

void tqh_overview_deinit(tqh_overview_t *ov) {
  for (size_t i = 0; i < ov->count; i++) tq_free(ov->metrics[i].name);
  tq_free(ov->metrics);
  tqh_overview_init(ov);
}

static tq_status_t oom(void) {
  return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory for the Host Profile Overview");
}

tq_status_t tqh_overview_add(tqh_overview_t *ov, const char *name, uint64_t ns) {
  for (size_t i = 0; i < ov->count; i++)
    if (strcmp(ov->metrics[i].name, name) == 0) {
      ov->metrics[i].ns += ns;
      return NULL;
    }
  if (ov->count == ov->cap) {
    size_t cap = ov->cap ? ov->cap * 2 : 16;
    tqh_overview_metric_t *m = tq_realloc(ov->metrics, cap * sizeof(*m));
    if (!m) return oom();
    ov->metrics = m;
    ov->cap = cap;
  }
  char *copy = tq_strndup(name, strlen(name));
  if (!copy) return oom();
  ov->metrics[ov->count++] = (tqh_overview_metric_t){copy, ns};
  return NULL;
}

int tqh_overview_get(const tqh_overview_t *ov, const char *name, uint64_t *out_ns) {
  for (size_t i = 0; i < ov->count; i++)
    if (strcmp(ov->metrics[i].name, name) == 0) {
      *out_ns = ov->metrics[i].ns;
      return 1;
    }
  return 0;
}

/* ---- Compute -------------------------------------------------------------------------------- */

enum {
  S_DMA,
  S_CDMA,
  S_DMA_TOTAL,
  S_SLICE0,
  S_SLICE1,
  S_SLICE,
  S_CSS,
  S_COMPUTE,
  S_DMA_ONLY,
  S_COMPUTE_ONLY,
  S_OVERLAP,
  S_HOST,
  S_HOST_COPY,
  S_BUSY,
  S_TMP,
  S_COUNT
};

static const char *const metric_names[] = {
    [S_DMA] = "DMA",         [S_CDMA] = "CDMA",         [S_DMA_TOTAL] = "DMA Total",
    [S_SLICE0] = "Slice 0",  [S_SLICE1] = "Slice 1",    [S_SLICE] = "Slice",
    [S_CSS] = "CSS",         [S_COMPUTE] = "Compute",   [S_DMA_ONLY] = "Dma Only",
    [S_COMPUTE_ONLY] = "Compute Only", [S_OVERLAP] = "Overlap", [S_HOST] = "Host",
    [S_HOST_COPY] = "Host Copy",
};

static tq_status_t compute(const tqh_annotation_t *ann, tqh_intervals_t *s, tqh_overview_t *out) {
  for (size_t i = 0; i < ann->num_nss_runs; i++) {
    const tqh_span_t *r = &ann->nss_runs[i];
    uint64_t a = r->start_us * 1000, b = r->end_us * 1000;
    if (r->units & TQH_UNITS_DMA) TQ_TRY(tqh_intervals_add(&s[S_DMA], a, b));
    if (r->units & TQH_UNIT_BIT(TQS_UNIT_CDMA)) TQ_TRY(tqh_intervals_add(&s[S_CDMA], a, b));
    if (r->units & TQH_UNIT_BIT(TQS_UNIT_SLICE0)) TQ_TRY(tqh_intervals_add(&s[S_SLICE0], a, b));
    if (r->units & TQH_UNIT_BIT(TQS_UNIT_SLICE1)) TQ_TRY(tqh_intervals_add(&s[S_SLICE1], a, b));
    if (r->units & TQH_UNIT_BIT(TQS_UNIT_CSS)) TQ_TRY(tqh_intervals_add(&s[S_CSS], a, b));
  }
  for (size_t i = 0; i < ann->num_host_runs; i++)
    TQ_TRY(tqh_intervals_add(&s[S_HOST], ann->host_runs[i].start_us * 1000,
                             ann->host_runs[i].end_us * 1000));
  for (size_t i = 0; i < ann->num_rows; i++)
    if (ann->rows[i].kind == TQR_EVENT_HOST_COPY)
      TQ_TRY(tqh_intervals_add(&s[S_HOST_COPY], ann->rows[i].start_us * 1000,
                               ann->rows[i].end_us * 1000));
  TQ_TRY(tqh_intervals_union(&s[S_DMA], &s[S_CDMA], &s[S_DMA_TOTAL]));
  TQ_TRY(tqh_intervals_union(&s[S_SLICE0], &s[S_SLICE1], &s[S_SLICE]));
  TQ_TRY(tqh_intervals_union(&s[S_SLICE], &s[S_CSS], &s[S_COMPUTE]));
  TQ_TRY(tqh_intervals_subtract(&s[S_DMA_TOTAL], &s[S_COMPUTE], &s[S_DMA_ONLY]));
  TQ_TRY(tqh_intervals_subtract(&s[S_COMPUTE], &s[S_DMA_TOTAL], &s[S_COMPUTE_ONLY]));
  TQ_TRY(tqh_intervals_intersect(&s[S_DMA_TOTAL], &s[S_COMPUTE], &s[S_OVERLAP]));
  TQ_TRY(tqh_intervals_union(&s[S_DMA_TOTAL], &s[S_COMPUTE], &s[S_TMP]));
  TQ_TRY(tqh_intervals_union(&s[S_TMP], &s[S_HOST], &s[S_BUSY]));
  TQ_TRY(tqh_intervals_union(&s[S_BUSY], &s[S_HOST_COPY], &s[S_TMP]));
  uint64_t overall = ann->has_time ? (ann->last_us - ann->first_us) * 1000 : 0;
  uint64_t busy = tqh_intervals_total(&s[S_TMP]);
  TQ_TRY(tqh_overview_add(out, TQH_METRIC_OVERALL, overall));
  for (int m = S_DMA; m <= S_HOST_COPY; m++)
    TQ_TRY(tqh_overview_add(out, metric_names[m], tqh_intervals_total(&s[m])));
  return tqh_overview_add(out, "Idle", overall > busy ? overall - busy : 0);
}

tq_status_t tqh_overview_compute(const tqh_annotation_t *ann, tqh_overview_t *out) {
  tqh_intervals_t s[S_COUNT];
  for (int i = 0; i < S_COUNT; i++) tqh_intervals_init(&s[i]);
  tq_status_t st = compute(ann, s, out);
  for (int i = 0; i < S_COUNT; i++) tqh_intervals_deinit(&s[i]);
  return st;
}

/* ---- Read ----------------------------------------------------------------------------------- */

static tq_status_t read_one(const char *path, tqh_overview_t *out) {
  tqh_trace_t tr;
  tq_status_t st = tqh_trace_read(path, &tr);
  const tqh_trace_track_t *root = st ? NULL : tqh_trace_find(&tr, TQH_TRACK_OVERVIEW, 0);
  if (!st && !root)
    st = TQ_STATUS(TQ_INVALID_INPUT, "%s: no '%s' track (not a trace of an annotated profile?)",
                   path, TQH_TRACK_OVERVIEW);
  for (size_t i = 0; !st && i < tr.num_tracks; i++) {
    const tqh_trace_track_t *t = &tr.tracks[i];
    if (t->parent_uuid != root->uuid) continue;
    uint64_t ns = 0;
    for (size_t k = 0; k < tr.num_slices; k++)
      if (tr.slices[k].track_uuid == t->uuid) ns += tr.slices[k].end_ns - tr.slices[k].start_ns;
    st = tqh_overview_add(out, t->name, ns);
  }
  tqh_trace_deinit(&tr);
  return st;
}

tq_status_t tqh_overview_read(const char *const *paths, size_t count, tqh_overview_t *out) {
  tqh_overview_init(out);
  for (size_t i = 0; i < count; i++) TQ_TRY(read_one(paths[i], out));
  return NULL;
}

/* ---- Format --------------------------------------------------------------------------------- */

void tqh_format_duration(uint64_t ns, char out[32]) {
  if (ns < 1000) {
    snprintf(out, 32, "%" PRIu64 "ns", ns);
    return;
  }
  /* Thousandths of the unit: µs are exact ns; ms and s round half up. */
  static const struct {
    uint64_t div;
    const char *unit;
  } units[] = {{1, "µs"}, {1000, "ms"}, {1000000, "s"}};
  for (size_t u = 0; u < 3; u++) {
    uint64_t v = ns / units[u].div + (units[u].div > 1 && ns % units[u].div >= units[u].div / 2);
    if (v < 1000000 || u == 2) {
      snprintf(out, 32, "%" PRIu64 ".%03" PRIu64 "%s", v / 1000, v % 1000, units[u].unit);
      return;
    }
  }
}

void tqh_format_percent(uint64_t part, uint64_t whole, char out[32]) {
  if (whole == 0) {
    snprintf(out, 32, "-");
    return;
  }
  unsigned __int128 hundredths = ((unsigned __int128)part * 10000 + whole / 2) / whole;
  uint64_t h = hundredths > UINT64_MAX ? UINT64_MAX : (uint64_t)hundredths;
  snprintf(out, 32, "%" PRIu64 ".%02" PRIu64 "%%", h / 100, h % 100);
}

static size_t columns(const char *s) {
  size_t n = 0;
  for (; *s; s++) n += ((unsigned char)*s & 0xC0) != 0x80;
  return n;
}

/* "  NAME<pad>VALUE" with VALUE ending at column 43, then "  (P%)" when given. */
static tq_status_t line(tq_buf_t *out, const char *name, uint64_t ns, const char *percent) {
  char value[32];
  tqh_format_duration(ns, value);
  size_t used = columns(name) + columns(value);
  size_t pad = used < 41 ? 41 - used : 1;
  TQ_TRY(tq_buf_printf(out, "  %s%*s%s", name, (int)pad, "", value));
  if (percent) TQ_TRY(tq_buf_printf(out, "  (%s)", percent));
  return tq_buf_putc(out, '\n');
}

tq_status_t tqh_overview_format(const tqh_overview_t *ov, const char *model, int64_t wall_time_ns,
                                tq_buf_t *out) {
  TQ_TRY(tq_buf_append_cstr(out, "====================== Host Profile Overview "
                                 "=======================\n"));
  TQ_TRY(tq_buf_printf(out, "  Model: %s\n  ", model ? model : ""));
  for (int i = 0; i < 56; i++) TQ_TRY(tq_buf_append_cstr(out, "─"));
  TQ_TRY(tq_buf_putc(out, '\n'));
  uint64_t wall;
  if (wall_time_ns >= 0)
    TQ_TRY(line(out, TQH_METRIC_WALL_TIME, (uint64_t)wall_time_ns, NULL));
  else if (tqh_overview_get(ov, TQH_METRIC_WALL_TIME, &wall))
    TQ_TRY(line(out, TQH_METRIC_WALL_TIME, wall, NULL));
  uint64_t overall = 0;
  int has_overall = tqh_overview_get(ov, TQH_METRIC_OVERALL, &overall);
  if (has_overall) TQ_TRY(line(out, TQH_METRIC_OVERALL, overall, NULL));
  for (size_t i = 0; i < ov->count; i++) {
    const tqh_overview_metric_t *m = &ov->metrics[i];
    if (strcmp(m->name, TQH_METRIC_OVERALL) == 0 || strcmp(m->name, TQH_METRIC_WALL_TIME) == 0)
      continue;
    char pct[32];
    tqh_format_percent(m->ns, overall, pct);
    TQ_TRY(line(out, m->name, m->ns, has_overall && overall ? pct : NULL));
  }
  return NULL;
}
