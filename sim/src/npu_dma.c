/* Regions of the NPU model: validation against LRAM and the XRAM buffers with checked arithmetic,
 * and the byte stream a DMA transfer moves between two of them. */
#include <inttypes.h>
#include <stdio.h>

#include "npu_internal.h"
#include "torq/base/checked.h"

/* "LRAM (524288 bytes)" or "XRAM buffer 3 (1024 bytes)", for messages. */
static const char *tqs__memname(const Torq__Region *region, uint64_t limit, char *buf) {
  if (region->memory == TORQ__MEMORY__LRAM)
    snprintf(buf, 64, "LRAM (%" PRIu64 " bytes)", limit);
  else
    snprintf(buf, 64, "XRAM buffer %" PRIu32 " (%" PRIu64 " bytes)", region->buffer_id, limit);
  return buf;
}

tq_status_t tqs__span_init(tqs_npu_t *npu, const tqs_xram_buffer_t *xram, size_t num_xram,
                           const Torq__Region *region, size_t index, const char *what,
                           const tqs__where_t *where, tqs__span_t *out) {
  memset(out, 0, sizeof(*out));
  if (!region) return TQS__NPU_FAIL(where, "region %zu (%s) is missing", index, what);
  if (region->n_counts != region->n_strides) {
    return TQS__NPU_FAIL(where, "region %zu (%s) has %zu counts but %zu strides", index, what,
                         region->n_counts, region->n_strides);
  }
  if (region->n_counts > TQS__MAX_LEVELS) {
    return TQS__NPU_FAIL(where, "region %zu (%s) has %zu levels of strides; at most %d", index,
                         what, region->n_counts, TQS__MAX_LEVELS);
  }
  if (region->n_counts && (!region->counts || !region->strides))
    return TQS__NPU_FAIL(where, "region %zu (%s) has no count or stride data", index, what);

  uint64_t limit;
  if (region->memory == TORQ__MEMORY__LRAM) {
    out->base = npu->lram;
    limit = npu->hw.lram_bytes;
  } else if (region->memory == TORQ__MEMORY__XRAM) {
    if (region->buffer_id >= num_xram) {
      return TQS__NPU_FAIL(where,
                           "region %zu (%s) names XRAM buffer %" PRIu32
                           ", which does not exist (%zu buffers)",
                           index, what, region->buffer_id, num_xram);
    }
    const tqs_xram_buffer_t *b = &xram[region->buffer_id];
    if (!b->data) {
      return TQS__NPU_FAIL(where,
                           "region %zu (%s) names XRAM buffer %" PRIu32 ", which is not allocated",
                           index, what, region->buffer_id);
    }
    out->base = b->data;
    out->xram = 1;
    limit = b->size;
  } else {
    return TQS__NPU_FAIL(where, "region %zu (%s) is in memory %d, neither XRAM nor LRAM", index,
                         what, (int)region->memory);
  }

  char memname[64];
  out->offset = region->offset;
  out->size = region->size;
  out->levels = region->n_counts;
  int empty = region->size == 0;
  for (size_t i = 0; i < out->levels; i++) {
    out->counts[i] = region->counts[i];
    out->strides[i] = region->strides[i];
    if (out->counts[i] == 0) empty = 1;
  }
  if (empty) {
    out->bytes = 0;
    out->end = out->offset;
    if (out->offset > limit) {
      return TQS__NPU_FAIL(where,
                           "region %zu (%s) is empty but starts at %" PRIu64 ", past the end of %s",
                           index, what, out->offset, tqs__memname(region, limit, memname));
    }
    return NULL;
  }
  uint64_t bytes = out->size, last = out->offset;
  int ok = 1;
  for (size_t i = 0; i < out->levels && ok; i++) {
    uint64_t reach;
    ok = tq_u64_mul(bytes, out->counts[i], &bytes) &&
         tq_u64_mul(out->counts[i] - 1, out->strides[i], &reach) && tq_u64_add(last, reach, &last);
  }
  if (ok) ok = tq_u64_add(last, out->size, &out->end);
  if (!ok) {
    return TQS__NPU_FAIL(where, "region %zu (%s) at %" PRIu64 " overflows 64-bit addresses", index,
                         what, out->offset);
  }
  if (out->end > limit) {
    return TQS__NPU_FAIL(where, "region %zu (%s) [%" PRIu64 ", %" PRIu64 ") is past the end of %s",
                         index, what, out->offset, out->end, tqs__memname(region, limit, memname));
  }
  out->bytes = bytes;
  return NULL;
}

/* A position in a span's sequence of blocks. */
typedef struct tqs__cursor_s {
  const tqs__span_t *s;
  uint64_t idx[TQS__MAX_LEVELS];
  uint64_t block; /* offset of the current block */
  uint64_t used;  /* bytes of it already moved */
} tqs__cursor_t;

/* Steps to the next block, odometer style, innermost level first. Offsets wrap modulo 2^64 on
 * the way back, which is exact: every block the span names was checked to be in bounds. */
static void tqs__cursor_next(tqs__cursor_t *c) {
  const tqs__span_t *s = c->s;
  c->used = 0;
  for (size_t i = s->levels; i-- > 0;) {
    c->block += s->strides[i];
    if (++c->idx[i] < s->counts[i]) return;
    c->block -= s->counts[i] * s->strides[i];
    c->idx[i] = 0;
  }
}

void tqs__span_copy(const tqs__span_t *dst, const tqs__span_t *src) {
  uint64_t left = src->bytes < dst->bytes ? src->bytes : dst->bytes;
  if (left == 0) return;
  if (src->levels == 0 && dst->levels == 0) {
    memcpy(dst->base + dst->offset, src->base + src->offset, (size_t)left);
    return;
  }
  tqs__cursor_t s = {.s = src, .block = src->offset}, d = {.s = dst, .block = dst->offset};
  while (left) {
    uint64_t n = src->size - s.used, room = dst->size - d.used;
    if (room < n) n = room;
    if (left < n) n = left;
    memcpy(dst->base + d.block + d.used, src->base + s.block + s.used, (size_t)n);
    left -= n;
    s.used += n;
    d.used += n;
    if (s.used == src->size) tqs__cursor_next(&s);
    if (d.used == dst->size) tqs__cursor_next(&d);
  }
}
