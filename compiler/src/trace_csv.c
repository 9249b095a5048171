/* The compile-time trace: rows of estimated unit work, sorted and written as CSV. */
#include "torq/compiler/trace_csv.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "torq/base/alloc.h"
#include "torq/base/checked.h"

/* Trace strings are short (IDs, locations, kernel names); small blocks keep a small trace small. */
#define TQC__TRACE_ARENA_BLOCK 4096

const char *tqc_unit_trace_prefix(tqs_unit_t unit) {
  static const char *const prefixes[TQS_UNIT_COUNT] = {"DI", "DO", "S", "S", "CDMA", "CSS"};
  if ((unsigned)unit >= (unsigned)TQS_UNIT_COUNT) return "?";
  return prefixes[unit];
}

/* The length of `s` without its trailing run of digits. */
static size_t tqc__id_prefix_len(const char *s, size_t len) {
  while (len > 0 && s[len - 1] >= '0' && s[len - 1] <= '9') len--;
  return len;
}

static int tqc__sign(int c) {
  return (c > 0) - (c < 0);
}

int tqc_trace_id_compare(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  size_t pa = tqc__id_prefix_len(a, la), pb = tqc__id_prefix_len(b, lb);
  int c = memcmp(a, b, pa < pb ? pa : pb);
  if (c) return tqc__sign(c);
  if (pa != pb) return pa < pb ? -1 : 1;
  /* Compare the numbers as digit strings, so any length works without overflow. */
  const char *na = a + pa, *nb = b + pb;
  while (*na == '0') na++;
  while (*nb == '0') nb++;
  size_t da = (size_t)(a + la - na), db = (size_t)(b + lb - nb);
  if (da != db) return da < db ? -1 : 1;
  c = memcmp(na, nb, da);
  if (c) return tqc__sign(c);
  return tqc__sign(strcmp(a, b));
}

void tqc_trace_ids_init(tqc_trace_ids_t *ids) {
  memset(ids, 0, sizeof(*ids));
}

/* Slice 1 numbers with Slice 0: both are "S". */
static size_t tqc__ids_slot(tqs_unit_t unit) {
  if ((unsigned)unit >= (unsigned)TQS_UNIT_COUNT) return TQS_UNIT_COUNT;
  return unit == TQS_UNIT_SLICE1 ? TQS_UNIT_SLICE0 : (size_t)unit;
}

char *tqc_trace_ids_next(tqc_trace_ids_t *ids, tqs_unit_t unit, char out_id[TQC_TRACE_ID_MAX]) {
  size_t slot = tqc__ids_slot(unit);
  uint64_t n = slot < TQS_UNIT_COUNT ? ids->next[slot]++ : 0;
  snprintf(out_id, TQC_TRACE_ID_MAX, "%s%" PRIu64, tqc_unit_trace_prefix(unit), n);
  return out_id;
}

void tqc_trace_init(tqc_trace_t *trace) {
  tq_arena_init(&trace->strings, TQC__TRACE_ARENA_BLOCK, 0);
  trace->rows = NULL;
  trace->count = 0;
  trace->cap = 0;
}

void tqc_trace_deinit(tqc_trace_t *trace) {
  tq_arena_deinit(&trace->strings);
  tq_free(trace->rows);
  trace->rows = NULL;
  trace->count = 0;
  trace->cap = 0;
}

tq_status_t tqc_trace_add(tqc_trace_t *trace, const char *id, uint64_t start, uint64_t end,
                          const char *location, const char *op_type) {
  if (!id || !*id) return TQ_STATUS(TQ_INVALID_ARGUMENT, "trace row without an ID");
  if (!op_type || !*op_type)
    return TQ_STATUS(TQ_INVALID_ARGUMENT, "trace row %s without an Op Type", id);
  if (end < start)
    return TQ_STATUS(TQ_INVALID_ARGUMENT,
                     "trace row %s ends at cycle %" PRIu64 ", before its start at %" PRIu64, id,
                     end, start);
  if (!location) location = "";
  if (trace->count == trace->cap) {
    size_t cap = trace->cap ? trace->cap : 16, bytes;
    if (trace->cap && !tq_size_mul(cap, 2, &cap)) return TQ_STATUS(TQ_LIMIT, "too many trace rows");
    if (!tq_size_mul(cap, sizeof(tqc_trace_row_t), &bytes))
      return TQ_STATUS(TQ_LIMIT, "too many trace rows");
    tqc_trace_row_t *rows = tq_realloc(trace->rows, bytes);
    if (!rows)
      return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory growing the trace to %zu rows", cap);
    trace->rows = rows;
    trace->cap = cap;
  }
  tqc_trace_row_t row = {
      .id = tq_arena_strndup(&trace->strings, id, strlen(id)),
      .start = start,
      .end = end,
      .location = tq_arena_strndup(&trace->strings, location, strlen(location)),
      .op_type = tq_arena_strndup(&trace->strings, op_type, strlen(op_type)),
      .seq = trace->count,
  };
  if (!row.id || !row.location || !row.op_type)
    return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory adding trace row %s", id);
  trace->rows[trace->count++] = row;
  return NULL;
}

tq_status_t tqc_trace_add_unit(tqc_trace_t *trace, tqc_trace_ids_t *ids, tqs_unit_t unit,
                               uint64_t start, uint64_t end, const char *location,
                               const char *kernel) {
  if ((unsigned)unit >= (unsigned)TQS_UNIT_COUNT)
    return TQ_STATUS(TQ_INVALID_ARGUMENT, "trace row for unknown unit %d", (int)unit);
  int slice = unit == TQS_UNIT_SLICE0 || unit == TQS_UNIT_SLICE1;
  if (slice && (!kernel || !*kernel))
    return TQ_STATUS(TQ_INVALID_ARGUMENT, "trace row for %s without a kernel name",
                     tqs_unit_name(unit));
  /* Peek at the ID and consume it only once the row is in. */
  tqc_trace_ids_t next = *ids;
  char id[TQC_TRACE_ID_MAX];
  tqc_trace_ids_next(&next, unit, id);
  TQ_TRY(tqc_trace_add(trace, id, start, end, location, slice ? kernel : tqs_unit_name(unit)));
  *ids = next;
  return NULL;
}

static int tqc__row_compare(const void *pa, const void *pb) {
  const tqc_trace_row_t *a = pa, *b = pb;
  if (a->start != b->start) return a->start < b->start ? -1 : 1;
  int c = tqc_trace_id_compare(a->id, b->id);
  if (c) return c;
  return (a->seq > b->seq) - (a->seq < b->seq);
}

void tqc_trace_sort(tqc_trace_t *trace) {
  if (trace->count > 1) qsort(trace->rows, trace->count, sizeof(trace->rows[0]), tqc__row_compare);
}

/* Appends `s` as one CSV field: bare, or quoted with quotes doubled when it needs it. */
static tq_status_t tqc__csv_field(tq_buf_t *out, const char *s) {
  if (!strpbrk(s, ",\"\r\n")) return tq_buf_append_cstr(out, s);
  TQ_TRY(tq_buf_putc(out, '"'));
  for (const char *p = s; *p;) {
    const char *q = strchr(p, '"');
    size_t n = q ? (size_t)(q - p) + 1 : strlen(p);
    TQ_TRY(tq_buf_append(out, p, n));
    if (!q) break;
    TQ_TRY(tq_buf_putc(out, '"'));
    p = q + 1;
  }
  return tq_buf_putc(out, '"');
}

static tq_status_t tqc__csv_rows(const tqc_trace_t *trace, tq_buf_t *out) {
  TQ_TRY(tq_buf_append_cstr(out, "ID,Start,End,Location,Op Type\n"));
  for (size_t i = 0; i < trace->count; i++) {
    const tqc_trace_row_t *r = &trace->rows[i];
    TQ_TRY(tqc__csv_field(out, r->id));
    TQ_TRY(tq_buf_printf(out, ",%" PRIu64 ",%" PRIu64 ",", r->start, r->end));
    TQ_TRY(tqc__csv_field(out, r->location));
    TQ_TRY(tq_buf_putc(out, ','));
    TQ_TRY(tqc__csv_field(out, r->op_type));
    TQ_TRY(tq_buf_putc(out, '\n'));
  }
  return NULL;
}

tq_status_t tqc_trace_write_csv(tqc_trace_t *trace, tq_buf_t *out) {
  tqc_trace_sort(trace);
  size_t len = out->len;
  tq_status_t st = tqc__csv_rows(trace, out);
  if (st) {
    out->len = len;
    if (out->data) out->data[len] = '\0';
  }
  return st;
}
