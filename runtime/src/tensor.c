/* Runtime tensors: element types, creation, and IREE-style printing. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "torq/base/alloc.h"
#include "torq/base/checked.h"
#include "torq/runtime/tensor.h"
#include "torq/sim/tensor.h"

int tqr_element_parse(tq_sv_t name, Torq__ElementType *out_type) {
  Torq__ElementType type;
  if (!tqf_element_parse(name, &type) || type == TORQ__ELEMENT_TYPE__I48 ||
      type == TORQ__ELEMENT_TYPE__INDEX)
    return 0;
  *out_type = type;
  return 1;
}

tq_status_t tqr_tensor_byte_size(Torq__ElementType type, size_t rank, const int64_t *dims,
                                 size_t *out_size) {
  size_t esz = tqf_element_size(type);
  if (esz == 0) return TQ_STATUS(TQ_INVALID_ARGUMENT, "unknown element type %d", (int)type);
  if (rank > TQR_MAX_RANK)
    return TQ_STATUS(TQ_INVALID_ARGUMENT, "rank %zu is above the limit of %d", rank, TQR_MAX_RANK);
  size_t size = esz;
  for (size_t i = 0; i < rank; i++) {
    if (dims[i] < 0)
      return TQ_STATUS(TQ_INVALID_ARGUMENT, "dim %zu is negative (%" PRId64 ")", i, dims[i]);
    if ((uint64_t)dims[i] > SIZE_MAX || !tq_size_mul(size, (size_t)dims[i], &size))
      return TQ_STATUS(TQ_LIMIT, "tensor size overflows");
  }
  *out_size = size;
  return NULL;
}

tq_status_t tqr_tensor_create(Torq__ElementType type, size_t rank, const int64_t *dims,
                              tqr_tensor_t **out_tensor) {
  *out_tensor = NULL;
  size_t size = 0;
  TQ_TRY(tqr_tensor_byte_size(type, rank, dims, &size));
  tqr_tensor_t *t = tq_calloc(1, sizeof(*t));
  if (!t) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory for a tensor");
  t->type = type;
  t->rank = rank;
  if (rank) memcpy(t->dims, dims, rank * sizeof(*dims));
  t->size = size;
  if (size) {
    t->data = tq_calloc(1, size);
    if (!t->data) {
      tq_free(t);
      return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory for a tensor of %zu bytes", size);
    }
  }
  *out_tensor = t;
  return NULL;
}

void tqr_tensor_destroy(tqr_tensor_t *tensor) {
  if (!tensor) return;
  tq_free(tensor->data);
  tq_free(tensor);
}

size_t tqr_tensor_count(const tqr_tensor_t *tensor) {
  size_t n = 1;
  for (size_t i = 0; i < tensor->rank; i++) n *= (size_t)tensor->dims[i];
  return n;
}

tq_status_t tqr_tensor_format_type(const tqr_tensor_t *tensor, tq_buf_t *out) {
  for (size_t i = 0; i < tensor->rank; i++)
    TQ_TRY(tq_buf_printf(out, "%" PRId64 "x", tensor->dims[i]));
  return tq_buf_append_cstr(out, tqf_element_name(tensor->type));
}

static tq_status_t format_element(const tqr_tensor_t *t, size_t index, tq_buf_t *out) {
  const uint8_t *p = t->data + index * tqf_element_size(t->type);
  if (t->type == TORQ__ELEMENT_TYPE__I1) return tq_buf_printf(out, "%d", p[0] != 0);
  if (t->type == TORQ__ELEMENT_TYPE__F32) {
    float f;
    memcpy(&f, p, 4);
    return tq_buf_printf(out, "%G", (double)f);
  }
  if (t->type == TORQ__ELEMENT_TYPE__BF16 || t->type == TORQ__ELEMENT_TYPE__F16) {
    uint16_t bits;
    memcpy(&bits, p, 2);
    float f = t->type == TORQ__ELEMENT_TYPE__BF16 ? tqs_bf16_to_f32(bits) : tqs_f16_to_f32(bits);
    return tq_buf_printf(out, "%G", (double)f);
  }
  if (tqf_element_size(t->type) == 0) return tq_buf_append_cstr(out, "?");
  return tq_buf_printf(out, "%" PRId64, tqf_element_load_int(p, t->type));
}

/* IREE's iree_hal_format_buffer_elements_recursive, over dims[0..rank) starting at element
 * `first`. */
static tq_status_t format_level(const tqr_tensor_t *t, size_t level, size_t first, size_t *budget,
                                tq_buf_t *out) {
  if (t->rank == 0 || level + 1 == t->rank) {
    size_t n = t->rank == 0 ? 1 : (size_t)t->dims[level];
    size_t shown = n < *budget ? n : *budget;
    *budget -= shown;
    for (size_t i = 0; i < shown; i++) {
      if (i) TQ_TRY(tq_buf_putc(out, ' '));
      TQ_TRY(format_element(t, first + i, out));
    }
    if (shown < n) TQ_TRY(tq_buf_append_cstr(out, "..."));
    return NULL;
  }
  size_t stride = 1;
  for (size_t i = level + 1; i < t->rank; i++) stride *= (size_t)t->dims[i];
  for (int64_t i = 0; i < t->dims[level]; i++) {
    TQ_TRY(tq_buf_putc(out, '['));
    TQ_TRY(format_level(t, level + 1, first + (size_t)i * stride, budget, out));
    TQ_TRY(tq_buf_putc(out, ']'));
  }
  return NULL;
}

tq_status_t tqr_tensor_format(const tqr_tensor_t *tensor, size_t max_elements, tq_buf_t *out) {
  TQ_TRY(tqr_tensor_format_type(tensor, out));
  TQ_TRY(tq_buf_putc(out, '='));
  size_t budget = max_elements;
  return format_level(tensor, 0, 0, &budget, out);
}
