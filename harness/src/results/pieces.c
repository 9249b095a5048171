/* Rendered pieces of the reports kept between regenerations (results_internal.h). */
#include <stdint.h>
#include <string.h>

#include "results_internal.h"
#include "torq/base/alloc.h"

void tqh__pieces_init(tqh__pieces_t *pieces) {
  memset(pieces, 0, sizeof(*pieces));
  tq_buf_init(&pieces->text, 0);
}

void tqh__pieces_deinit(tqh__pieces_t *pieces) {
  tq_buf_deinit(&pieces->text);
  tq_free(pieces->off);
  tq_free(pieces->len);
  memset(pieces, 0, sizeof(*pieces));
}

tq_status_t tqh__pieces_reserve(tqh__pieces_t *pieces, size_t count) {
  if (count > pieces->cap) {
    size_t cap = pieces->cap ? pieces->cap : 64;
    while (cap < count) cap *= 2;
    size_t *off = tq_realloc(pieces->off, cap * sizeof(*off));
    if (!off) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory for report pieces");
    pieces->off = off;
    size_t *len = tq_realloc(pieces->len, cap * sizeof(*len));
    if (!len) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory for report pieces");
    pieces->len = len;
    pieces->cap = cap;
  }
  for (size_t i = pieces->count; i < count; i++) pieces->len[i] = SIZE_MAX;
  if (count > pieces->count) pieces->count = count;
  return NULL;
}

int tqh__pieces_get(const tqh__pieces_t *pieces, size_t i, tq_buf_t *out, tq_status_t *out_status) {
  *out_status = NULL;
  if (i >= pieces->count || pieces->len[i] == SIZE_MAX) return 0;
  *out_status = tq_buf_append(out, pieces->text.data + pieces->off[i], pieces->len[i]);
  return 1;
}

tq_status_t tqh__pieces_put(tqh__pieces_t *pieces, size_t i, const tq_buf_t *out, size_t start) {
  TQ_TRY(tqh__pieces_reserve(pieces, i + 1));
  size_t off = pieces->text.len;
  TQ_TRY(tq_buf_append(&pieces->text, out->data + start, out->len - start));
  pieces->off[i] = off;
  pieces->len[i] = out->len - start;
  return NULL;
}
