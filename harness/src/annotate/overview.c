/* The Host Profile Overview: its metrics, computed from work units, read back from Perfetto
 * traces, and printed (overview.h). */
#include "torq/harness/overview.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "torq/base/alloc.h"
#include "torq/harness/annotate.h"
#include "torq/harness/intervals.h"
#include "torq/harness/perfetto.h"

/* ---- The metrics ------------------------------------------------------------------------------ */

/* Printed order. Threads and slice labels are the Torq tools' (00 to 15); the three metrics those
 * tools do not draw get the next numbers. */
static const tqh_metric_info_t k_metrics[] = {
    {TQH_METRIC_OVERALL, "total_duration", "15 OVERALL", "OVERALL", NULL,
     "Earliest start to latest end of all work units, HAL calls included"},
    {TQH_METRIC_TOTAL_NPU, "total_npu_operations", "18 OVERVIEW TOTAL NPU OPERATIONS",
     "TOTAL NPU OPERATIONS", NULL,
     "Span of the non-HAL work units without the host time that overlaps no NPU work nor HAL"},
    {"Dma", "dma_time", "02 OVERVIEW DMA", "DMA total", "DMA",
     "NSS programs that use DMA in or out (union)"},
    {"Dma Only", "dma_only_time", "08 OVERVIEW DMA ONLY", "DMA/CDMA ONLY (no compute)", NULL,
     "DMA or CDMA busy while no compute is"},
    {"Dma Total", "dma_total_time", "00 OVERVIEW DMA COMBINED", "DMA+CDMA union", "DMA Total",
     "NSS programs that use DMA or CDMA (union)"},
    {"Cdma", "cdma_time", "03 OVERVIEW CDMA", "CDMA total", "CDMA",
     "NSS programs that use the CDMA (union)"},
    {"Dma In", "dma_in_time", "16 OVERVIEW DMA IN", "DMA IN total", NULL,
     "NSS programs that use DMA in (union)"},
    {"Dma Out", "dma_out_time", "17 OVERVIEW DMA OUT", "DMA OUT total", NULL,
     "NSS programs that use DMA out (union)"},
    {"Compute", "compute_time", "01 OVERVIEW COMPUTE COMBINED", "SLICE+CSS union", NULL,
     "NSS programs that use a slice or the CSS (union)"},
    {"Compute Only", "compute_only_time", "09 OVERVIEW COMPUTE ONLY", "COMPUTE ONLY (no DMA/CDMA)",
     NULL, "Compute busy while no DMA nor CDMA is"},
    {"Slice", "slice_time", "04 OVERVIEW SLICE", "SLICE 0 + 1 union", NULL,
     "NSS programs that use slice 0 or 1 (union)"},
    {"Slice 0", "slice_0_time", "05 OVERVIEW SLICE 0", "SLICE 0", NULL,
     "NSS programs that use slice 0 (union)"},
    {"Slice 1", "slice_1_time", "06 OVERVIEW SLICE 1", "SLICE 1", NULL,
     "NSS programs that use slice 1 (union)"},
    {"Css", "css_time", "07 OVERVIEW CSS", "CSS", "CSS", "NSS programs that use the CSS (union)"},
    {"Overlap", "overlap_time", "10 OVERVIEW DMA COMPUTE OVERLAP", "DMA/CDMA<->COMPUTE overlap",
     NULL, "DMA or CDMA and compute busy at once"},
    {"Idle", "idle_time", "14 OVERVIEW IDLE", "IDLE", NULL,
     "Time in OVERALL when no DMA, compute, HAL, host program nor host copy runs"},
    {"Hal", "hal_time", "11 OVERVIEW HAL", "HAL total", NULL, "HAL calls (union)"},
    {"Host", "host_time", "12 OVERVIEW HOST", "HOST total", NULL, "Host programs (union)"},
    {"Host Copy", "host_copy_time", "13 OVERVIEW HOST COPY", "HOST COPY total", NULL,
     "Host copies (union)"},
};
#define N_METRICS (sizeof(k_metrics) / sizeof(k_metrics[0]))

/* Indexes into k_metrics. */
enum {
  M_OVERALL,
  M_TOTAL_NPU,
  M_DMA,
  M_DMA_ONLY,
  M_DMA_TOTAL,
  M_CDMA,
  M_DMA_IN,
  M_DMA_OUT,
  M_COMPUTE,
  M_COMPUTE_ONLY,
  M_SLICE,
  M_SLICE0,
  M_SLICE1,
  M_CSS,
  M_OVERLAP,
  M_IDLE,
  M_HAL,
  M_HOST,
  M_HOST_COPY,
  M_COUNT
};
_Static_assert(M_COUNT == N_METRICS, "one index per metric");

const tqh_metric_info_t *tqh_overview_metrics(size_t *out_count) {
  *out_count = N_METRICS;
  return k_metrics;
}

const tqh_metric_info_t *tqh_overview_metric_find(const char *name) {
  for (size_t i = 0; i < N_METRICS; i++) {
    const tqh_metric_info_t *m = &k_metrics[i];
    if (!strcmp(name, m->label) || !strcmp(name, m->thread) ||
        (m->old_label && !strcmp(name, m->old_label)))
      return m;
  }
  return NULL;
}

tq_status_t tqh_overview_key_of(const char *name, tq_buf_t *out) {
  tq_buf_clear(out);
  const tqh_metric_info_t *m = tqh_overview_metric_find(name);
  if (m) return tq_buf_append_cstr(out, m->key);
  int gap = 0;
  for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
    int alnum = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9');
    if (!alnum) {
      gap = out->len > 0;
      continue;
    }
    if (gap) TQ_TRY(tq_buf_putc(out, '_'));
    gap = 0;
    TQ_TRY(tq_buf_putc(out, (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p)));
  }
  return tq_buf_append_cstr(out, out->len ? "_time" : "metric_time");
}

int tqh_overview_percent_key(const char *key, tq_buf_t *out) {
  tq_buf_clear(out);
  if (!strcmp(key, k_metrics[M_OVERALL].key)) return 0;
  size_t n = strlen(key);
  if (n > 5 && !strcmp(key + n - 5, "_time")) n -= 5;
  tq_status_t st = tq_buf_append(out, key, n);
  if (!st) st = tq_buf_append_cstr(out, "_percent");
  if (st) {
    tq_status_free(st);
    tq_buf_clear(out);
    return 0;
  }
  return 1;
}

/* ---- The overview as a list ----------------------------------------------------------------- */

void tqh_overview_init(tqh_overview_t *ov) {
  memset(ov, 0, sizeof(*ov));
}

void tqh_overview_deinit(tqh_overview_t *ov) {
  for (size_t i = 0; i < ov->count; i++) {
    tq_free(ov->metrics[i].name);
    tq_free(ov->metrics[i].key);
  }
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
  tq_buf_t key;
  tq_buf_init(&key, 0);
  tq_status_t st = tqh_overview_key_of(name, &key);
  char *copy = st ? NULL : tq_strndup(name, strlen(name));
  char *k = st ? NULL : tq_buf_detach(&key);
  tq_buf_deinit(&key);
  if (st || !copy || !k) {
    tq_free(copy);
    tq_free(k);
    tq_status_free(st);
    return oom();
  }
  ov->metrics[ov->count++] = (tqh_overview_metric_t){copy, k, ns};
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

/* The sets: one per metric that is a union of work units, and the helpers. */
enum {
  S_NSS = M_COUNT,
  S_NON_HAL,
  S_ALL,
  S_HOSTS,
  S_NPU_HAL,
  S_TMP,
  S_TMP2,
  S_COUNT
};
_Static_assert(S_COUNT <= 32, "a work unit's sets are bits of a uint32_t");

/* The sets a work unit belongs to, as bits 1 << set. */
static uint32_t sets_of(const tqh_work_unit_t *u) {
  unsigned m = u->units;
  int nss = u->kind == TQH_WORK_NSS;
  uint32_t b = 1u << S_ALL;
  b |= (uint32_t)(u->kind != TQH_WORK_HAL) << S_NON_HAL;
  b |= (uint32_t)nss << S_NSS;
  b |= (uint32_t)(u->kind == TQH_WORK_HAL) << M_HAL;
  b |= (uint32_t)(u->kind == TQH_WORK_HOST) << M_HOST;
  b |= (uint32_t)(u->kind == TQH_WORK_HOST_COPY) << M_HOST_COPY;
  b |= (uint32_t)(nss && (m & TQH_UNITS_DMA)) << M_DMA;
  b |= (uint32_t)(nss && (m & TQH_UNIT_BIT(TQS_UNIT_DMA_IN))) << M_DMA_IN;
  b |= (uint32_t)(nss && (m & TQH_UNIT_BIT(TQS_UNIT_DMA_OUT))) << M_DMA_OUT;
  b |= (uint32_t)(nss && (m & TQH_UNIT_BIT(TQS_UNIT_CDMA))) << M_CDMA;
  b |= (uint32_t)(nss && (m & TQH_UNIT_BIT(TQS_UNIT_SLICE0))) << M_SLICE0;
  b |= (uint32_t)(nss && (m & TQH_UNIT_BIT(TQS_UNIT_SLICE1))) << M_SLICE1;
  b |= (uint32_t)(nss && (m & TQH_UNIT_BIT(TQS_UNIT_CSS))) << M_CSS;
  return b;
}

/* Where the work units come from: an array, or an annotation's spans (no array of them: on a
 * million-event profile it was 16 MiB of fresh pages). */
typedef struct source_s {
  const tqh_work_unit_t *units;
  size_t count;
  const tqh_annotation_t *ann; /* when set, the units are its */
} source_t;

static tq_status_t each_unit(const source_t *src, tqh_work_unit_fn fn, void *ctx) {
  if (src->ann) return tqh_annotation_each_work_unit(src->ann, fn, ctx);
  for (size_t i = 0; i < src->count; i++) TQ_TRY(fn(ctx, &src->units[i]));
  return NULL;
}

static tq_status_t count_sets(void *ctx, const tqh_work_unit_t *u) {
  size_t *n = ctx;
  for (uint32_t b = sets_of(u); b; b &= b - 1) n[__builtin_ctz(b)]++;
  return NULL;
}

static tq_status_t add_to_sets(void *ctx, const tqh_work_unit_t *u) {
  tqh_intervals_t *s = ctx;
  for (uint32_t b = sets_of(u); b; b &= b - 1)
    TQ_TRY(tqh_intervals_add(&s[__builtin_ctz(b)], u->start_ns, u->end_ns));
  return NULL;
}

/* Every work unit into the sets it belongs to, each set's room taken first: growing them one
 * doubling at a time copied them (realloc on the heap) and faulted their pages in again. */
static tq_status_t add_units(const source_t *src, tqh_intervals_t *s) {
  size_t n[S_COUNT] = {0};
  TQ_TRY(each_unit(src, count_sets, n));
  for (int k = 0; k < S_COUNT; k++) TQ_TRY(tqh_intervals_reserve(&s[k], n[k]));
  return each_unit(src, add_to_sets, s);
}

/* The span of a set: from its first start to its last end. */
static uint64_t span(tqh_intervals_t *set, uint64_t *out_start) {
  tqh_intervals_normalize(set);
  if (!set->count) return 0;
  *out_start = set->items[0].start;
  return set->items[set->count - 1].end - set->items[0].start;
}

static tq_status_t compute(const source_t *src, tqh_intervals_t *s, uint64_t *v,
                           tqh_overview_t *out) {
  TQ_TRY(add_units(src, s));
  TQ_TRY(tqh_intervals_union(&s[M_DMA], &s[M_CDMA], &s[M_DMA_TOTAL]));
  TQ_TRY(tqh_intervals_union(&s[M_SLICE0], &s[M_SLICE1], &s[M_SLICE]));
  TQ_TRY(tqh_intervals_union(&s[M_SLICE], &s[M_CSS], &s[M_COMPUTE]));
  TQ_TRY(tqh_intervals_subtract(&s[M_DMA_TOTAL], &s[M_COMPUTE], &s[M_DMA_ONLY]));
  TQ_TRY(tqh_intervals_subtract(&s[M_COMPUTE], &s[M_DMA_TOTAL], &s[M_COMPUTE_ONLY]));
  TQ_TRY(tqh_intervals_intersect(&s[M_DMA_TOTAL], &s[M_COMPUTE], &s[M_OVERLAP]));
  for (int m = M_DMA; m < M_COUNT; m++)
    if (m != M_IDLE) v[m] = tqh_intervals_total(&s[m]);
  uint64_t start = 0, ignored = 0;
  v[M_OVERALL] = span(&s[S_ALL], &start);
  out->has_start = s[S_ALL].count > 0;
  out->start_ns = start;
  /* TOTAL NPU OPERATIONS: host time outside NPU work and HAL does not count. */
  TQ_TRY(tqh_intervals_union(&s[M_HOST], &s[M_HOST_COPY], &s[S_HOSTS]));
  TQ_TRY(tqh_intervals_union(&s[S_NSS], &s[M_HAL], &s[S_NPU_HAL]));
  TQ_TRY(tqh_intervals_subtract(&s[S_HOSTS], &s[S_NPU_HAL], &s[S_TMP]));
  uint64_t npu_span = span(&s[S_NON_HAL], &ignored), lone_host = tqh_intervals_total(&s[S_TMP]);
  v[M_TOTAL_NPU] = npu_span > lone_host ? npu_span - lone_host : 0;
  /* Idle: OVERALL without the busy time. */
  TQ_TRY(tqh_intervals_union(&s[M_DMA_TOTAL], &s[M_COMPUTE], &s[S_TMP]));
  TQ_TRY(tqh_intervals_union(&s[S_TMP], &s[M_HAL], &s[S_TMP2]));
  TQ_TRY(tqh_intervals_union(&s[S_TMP2], &s[S_HOSTS], &s[S_TMP]));
  uint64_t busy = tqh_intervals_total(&s[S_TMP]);
  v[M_IDLE] = v[M_OVERALL] > busy ? v[M_OVERALL] - busy : 0;
  for (int m = 0; m < M_COUNT; m++) TQ_TRY(tqh_overview_add(out, k_metrics[m].label, v[m]));
  return NULL;
}

static tq_status_t compute_from(const source_t *src, tqh_overview_t *out) {
  tqh_intervals_t s[S_COUNT];
  uint64_t v[M_COUNT] = {0};
  for (int i = 0; i < S_COUNT; i++) tqh_intervals_init(&s[i]);
  tq_status_t st = compute(src, s, v, out);
  for (int i = 0; i < S_COUNT; i++) tqh_intervals_deinit(&s[i]);
  return st;
}

tq_status_t tqh_overview_compute_units(const tqh_work_unit_t *units, size_t count,
                                       tqh_overview_t *out) {
  source_t src = {units, count, NULL};
  return compute_from(&src, out);
}

tq_status_t tqh_overview_compute(const tqh_annotation_t *ann, tqh_overview_t *out) {
  source_t src = {NULL, 0, ann};
  return compute_from(&src, out);
}

/* ---- Read ----------------------------------------------------------------------------------- */

/* The metric a track of the overview stands for: a known thread or label, else the label its
 * slices give ("FOO total: 1.000µs" is "FOO total"), else its name. */
static tq_status_t track_metric(const tqh_trace_t *tr, const tqh_trace_track_t *t, tq_buf_t *out) {
  tq_buf_clear(out);
  const tqh_metric_info_t *m = tqh_overview_metric_find(t->name);
  if (m) return tq_buf_append_cstr(out, m->label);
  for (size_t k = 0; k < tr->num_slices; k++) {
    if (tr->slices[k].track_uuid != t->uuid) continue;
    const char *colon = strstr(tr->slices[k].name, ": ");
    if (colon && colon > tr->slices[k].name)
      return tq_buf_append(out, tr->slices[k].name, (size_t)(colon - tr->slices[k].name));
    break;
  }
  return tq_buf_append_cstr(out, t->name);
}

static tq_status_t read_one(const char *path, tqh_overview_t *out) {
  tqh_trace_t tr;
  tq_status_t st = tqh_trace_read(path, &tr);
  const tqh_trace_track_t *root = st ? NULL : tqh_trace_find(&tr, TQH_TRACK_OVERVIEW, 0);
  if (!st && !root)
    st = TQ_STATUS(TQ_INVALID_INPUT, "%s: no '%s' track (not a trace of an annotated profile?)",
                   path, TQH_TRACK_OVERVIEW);
  tq_buf_t name;
  tq_buf_init(&name, 0);
  for (size_t i = 0; !st && i < tr.num_tracks; i++) {
    const tqh_trace_track_t *t = &tr.tracks[i];
    if (t->parent_uuid != root->uuid) continue;
    uint64_t ns = 0;
    for (size_t k = 0; k < tr.num_slices; k++)
      if (tr.slices[k].track_uuid == t->uuid) ns += tr.slices[k].end_ns - tr.slices[k].start_ns;
    st = track_metric(&tr, t, &name);
    if (!st) st = tqh_overview_add(out, name.data ? name.data : "", ns);
  }
  tq_buf_deinit(&name);
  tqh_trace_deinit(&tr);
  return st;
}

/* Where a metric goes: the known ones in their order, then the others as they came. */
static size_t rank_of(const tqh_overview_metric_t *m) {
  for (size_t k = 0; k < N_METRICS; k++)
    if (!strcmp(m->name, k_metrics[k].label)) return k;
  return N_METRICS;
}

/* Metric i's rank: from `ranks` when there, else found again. */
static size_t rank_at(const tqh_overview_t *ov, const size_t *ranks, size_t i) {
  return ranks ? ranks[i] : rank_of(&ov->metrics[i]);
}

void tqh_overview_sort(tqh_overview_t *ov) {
  /* A stable insertion sort by rank (a trace has tens of metrics), each rank found once: the
   * sort is done for every test's overview. */
  size_t local[64];
  size_t *ranks = ov->count <= 64 ? local : tq_malloc(ov->count * sizeof(*ranks));
  for (size_t i = 0; ranks && i < ov->count; i++) ranks[i] = rank_of(&ov->metrics[i]);
  for (size_t i = 1; i < ov->count; i++) {
    tqh_overview_metric_t m = ov->metrics[i];
    size_t r = rank_at(ov, ranks, i), k = i;
    for (; k > 0 && rank_at(ov, ranks, k - 1) > r; k--) {
      ov->metrics[k] = ov->metrics[k - 1];
      if (ranks) ranks[k] = ranks[k - 1];
    }
    ov->metrics[k] = m;
    if (ranks) ranks[k] = r;
  }
  if (ranks != local) tq_free(ranks);
}

tq_status_t tqh_overview_read(const char *const *paths, size_t count, tqh_overview_t *out) {
  tqh_overview_init(out);
  for (size_t i = 0; i < count; i++) TQ_TRY(read_one(paths[i], out));
  tqh_overview_sort(out);
  return NULL;
}

/* ---- Format --------------------------------------------------------------------------------- */

/* v / 10^decimals with its `decimals` digits (0, 2 or 3), then `unit`, as printf's
 * "%" PRIu64 ".%03" PRIu64 "%s" writes it, without printf: the overview of every test writes
 * a few of these per metric. */
static void decimal(uint64_t v, int decimals, const char *unit, char out[TQH_DURATION_SIZE]) {
  char digits[24];
  char *o = digits + sizeof(digits);
  uint64_t scale = 1;
  for (int i = 0; i < decimals; i++) scale *= 10;
  uint64_t whole = v / scale, frac = v % scale;
  for (int i = 0; i < decimals; i++, frac /= 10) *--o = (char)('0' + frac % 10);
  if (decimals) *--o = '.';
  do *--o = (char)('0' + whole % 10);
  while (whole /= 10);
  size_t n = (size_t)(digits + sizeof(digits) - o), u = strlen(unit);
  if (n > TQH_DURATION_SIZE - 1) n = TQH_DURATION_SIZE - 1;
  memcpy(out, o, n);
  if (u > TQH_DURATION_SIZE - 1 - n) u = TQH_DURATION_SIZE - 1 - n;
  memcpy(out + n, unit, u);
  out[n + u] = '\0';
}

void tqh_format_duration(uint64_t ns, char out[TQH_DURATION_SIZE]) {
  static const struct {
    uint64_t from; /* ns */
    const char *unit;
  } units[] = {{1000000000, "s"}, {1000000, "ms"}, {1000, "µs"}};
  for (size_t u = 0; u < 3; u++) {
    if (ns < units[u].from) continue;
    /* Thousandths of the unit, rounded half up. */
    uint64_t div = units[u].from / 1000;
    uint64_t v = ns / div + (div > 1 && ns % div >= div / 2);
    decimal(v, 3, units[u].unit, out);
    return;
  }
  decimal(ns, 0, "ns", out);
}

void tqh_format_wall_time(uint64_t ns, char out[TQH_DURATION_SIZE]) {
  uint64_t div = ns >= 1000000000 ? 1000000 : 1000; /* thousandths of a second or of a ms */
  uint64_t v = ns / div + (ns % div >= div / 2);
  decimal(v, 3, ns >= 1000000000 ? "s" : "ms", out);
}

void tqh_format_percent(uint64_t part, uint64_t whole, char out[TQH_DURATION_SIZE]) {
  if (whole == 0) {
    snprintf(out, TQH_DURATION_SIZE, "-");
    return;
  }
  unsigned __int128 hundredths = ((unsigned __int128)part * 10000 + whole / 2) / whole;
  uint64_t h = hundredths > UINT64_MAX ? UINT64_MAX : (uint64_t)hundredths;
  decimal(h, 2, "%", out);
}

tq_status_t tqh_overview_slice_name(const char *label, uint64_t ns, uint64_t overall_ns,
                                    int with_percent, tq_buf_t *out) {
  char value[TQH_DURATION_SIZE], pct[TQH_DURATION_SIZE];
  tqh_format_duration(ns, value);
  tq_buf_clear(out);
  TQ_TRY(tq_buf_append_cstr(out, label));
  TQ_TRY(tq_buf_append(out, ": ", 2));
  TQ_TRY(tq_buf_append_cstr(out, value));
  if (!with_percent) return NULL;
  if (overall_ns)
    tqh_format_percent(ns, overall_ns, pct);
  else
    snprintf(pct, sizeof(pct), "0.00%%");
  TQ_TRY(tq_buf_append(out, " (", 2));
  TQ_TRY(tq_buf_append_cstr(out, pct));
  return tq_buf_putc(out, ')');
}

#define LABEL_COLS 26
#define VALUE_COLS 14
#define RULE_COLS 52

static size_t columns(const char *s) {
  size_t n = 0;
  for (; *s; s++) n += ((unsigned char)*s & 0xC0) != 0x80;
  return n;
}

static tq_status_t pad(tq_buf_t *out, size_t n) {
  static const char spaces[] = "                                ";
  for (; n > sizeof(spaces) - 1; n -= sizeof(spaces) - 1)
    TQ_TRY(tq_buf_append(out, spaces, sizeof(spaces) - 1));
  return tq_buf_append(out, spaces, n);
}

/* "  NAME" left-aligned in 26 columns, a space, the value right-aligned in 14, then "  (P%)" when
 * given: the Torq tools' "  {label:<26s} {value:>14s}  ({pct}%)" (a longer name pushes the
 * value right, never into it). */
static tq_status_t line(tq_buf_t *out, const char *name, const char *value, const char *percent) {
  size_t n = columns(name), v = columns(value);
  size_t gap = (n < LABEL_COLS ? LABEL_COLS - n : 0) + 1 + (v < VALUE_COLS ? VALUE_COLS - v : 0);
  TQ_TRY(tq_buf_append(out, "  ", 2));
  TQ_TRY(tq_buf_append_cstr(out, name));
  TQ_TRY(pad(out, gap));
  TQ_TRY(tq_buf_append_cstr(out, value));
  if (percent) {
    TQ_TRY(tq_buf_append(out, "  (", 3));
    TQ_TRY(tq_buf_append_cstr(out, percent));
    TQ_TRY(tq_buf_putc(out, ')'));
  }
  return tq_buf_putc(out, '\n');
}

static tq_status_t metric_line(const tqh_overview_metric_t *m, int has_overall, uint64_t overall,
                               tq_buf_t *out) {
  char pct[TQH_DURATION_SIZE], value[TQH_DURATION_SIZE];
  tqh_format_percent(m->ns, overall, pct);
  tqh_format_duration(m->ns, value);
  int with = has_overall && overall && strcmp(m->name, TQH_METRIC_OVERALL) != 0;
  return line(out, m->name, value, with ? pct : NULL);
}

tq_status_t tqh_overview_format(const tqh_overview_t *ov, const char *model, int64_t wall_time_ns,
                                tq_buf_t *out) {
  return tqh_overview_format_test(ov, NULL, model, wall_time_ns, out);
}

tq_status_t tqh_overview_format_test(const tqh_overview_t *ov, const char *test_id,
                                     const char *model, int64_t wall_time_ns, tq_buf_t *out) {
  TQ_TRY(tq_buf_append_cstr(out, "====================== Host Profile Overview "
                                 "=======================\n"));
  if (test_id)
    TQ_TRY(tq_buf_printf(out, "  Test: %s  Model: %s\n  ", test_id, model ? model : ""));
  else
    TQ_TRY(tq_buf_printf(out, "  Model: %s\n  ", model ? model : ""));
  for (int i = 0; i < RULE_COLS; i++) TQ_TRY(tq_buf_append_cstr(out, "─"));
  TQ_TRY(tq_buf_putc(out, '\n'));
  uint64_t wall = 0;
  int has_wall = wall_time_ns >= 0 || tqh_overview_get(ov, TQH_METRIC_WALL_TIME, &wall);
  if (wall_time_ns >= 0) wall = (uint64_t)wall_time_ns;
  if (has_wall) {
    char value[TQH_DURATION_SIZE];
    tqh_format_wall_time(wall, value);
    TQ_TRY(line(out, TQH_METRIC_WALL_TIME, value, NULL));
  }
  uint64_t overall = 0;
  int has_overall = tqh_overview_get(ov, TQH_METRIC_OVERALL, &overall);
  /* The known metrics in their order, then the others in the overview's. */
  for (size_t k = 0; k < N_METRICS; k++)
    for (size_t i = 0; i < ov->count; i++)
      if (!strcmp(ov->metrics[i].name, k_metrics[k].label))
        TQ_TRY(metric_line(&ov->metrics[i], has_overall, overall, out));
  for (size_t i = 0; i < ov->count; i++) {
    const tqh_overview_metric_t *m = &ov->metrics[i];
    const tqh_metric_info_t *known = tqh_overview_metric_find(m->name);
    if ((known && !strcmp(known->label, m->name)) || !strcmp(m->name, TQH_METRIC_WALL_TIME))
      continue;
    TQ_TRY(metric_line(m, has_overall, overall, out));
  }
  return NULL;
}
