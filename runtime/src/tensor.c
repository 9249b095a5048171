/* Runtime tensors: element types, creation, and IREE-style printing. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "torq/base/alloc.h"
#include "torq/base/checked.h"
#include "torq/runtime/tensor.h"
#include "torq/sim/tensor.h"

size_t tqr_element_size(Torq__ElementType type) {
  switch (type) {
    case TORQ__ELEMENT_TYPE__I1:
    case TORQ__ELEMENT_TYPE__I8:
    case TORQ__ELEMENT_TYPE__U8:
      return 1;
    case TORQ__ELEMENT_TYPE__I16:
    case TORQ__ELEMENT_TYPE__BF16:
    case TORQ__ELEMENT_TYPE__F16:
      return 2;
    case TORQ__ELEMENT_TYPE__I32:
    case TORQ__ELEMENT_TYPE__F32:
      return 4;
    case TORQ__ELEMENT_TYPE__I48:
    case TORQ__ELEMENT_TYPE__I64:
    case TORQ__ELEMENT_TYPE__INDEX:
      return 8;
    default:
      return 0;
  }
}

const char *tqr_element_name(Torq__ElementType type) {
  switch (type) {
    case TORQ__ELEMENT_TYPE__I1:
      return "i1";
    case TORQ__ELEMENT_TYPE__I8:
      return "i8";
    case TORQ__ELEMENT_TYPE__I16:
      return "i16";
    case TORQ__ELEMENT_TYPE__I32:
      return "i32";
    case TORQ__ELEMENT_TYPE__I64:
      return "i64";
    case TORQ__ELEMENT_TYPE__U8:
      return "ui8";
    case TORQ__ELEMENT_TYPE__BF16:
      return "bf16";
    case TORQ__ELEMENT_TYPE__F16:
      return "f16";
    case TORQ__ELEMENT_TYPE__F32:
      return "f32";
    case TORQ__ELEMENT_TYPE__INDEX:
      return "index";
    case TORQ__ELEMENT_TYPE__I48:
      return "i48";
    default:
      return "?";
  }
}

int tqr_element_parse(tq_sv_t name, Torq__ElementType *out_type) {
  static const Torq__ElementType user_types[] = {
      TORQ__ELEMENT_TYPE__I1,   TORQ__ELEMENT_TYPE__I8,  TORQ__ELEMENT_TYPE__I16,
      TORQ__ELEMENT_TYPE__I32,  TORQ__ELEMENT_TYPE__I64, TORQ__ELEMENT_TYPE__U8,
      TORQ__ELEMENT_TYPE__BF16, TORQ__ELEMENT_TYPE__F16, TORQ__ELEMENT_TYPE__F32,
  };
  for (size_t i = 0; i < sizeof(user_types) / sizeof(user_types[0]); i++) {
    if (tq_sv_eq_cstr(name, tqr_element_name(user_types[i]))) {
      *out_type = user_types[i];
      return 1;
    }
  }
  return 0;
}

int tqr_element_is_float(Torq__ElementType type) {
  return type == TORQ__ELEMENT_TYPE__BF16 || type == TORQ__ELEMENT_TYPE__F16 ||
         type == TORQ__ELEMENT_TYPE__F32;
}

tq_status_t tqr_tensor_byte_size(Torq__ElementType type, size_t rank, const int64_t *dims,
                                 size_t *out_size) {
  size_t esz = tqr_element_size(type);
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
  return tq_buf_append_cstr(out, tqr_element_name(tensor->type));
}

static tq_status_t format_element(const tqr_tensor_t *t, size_t index, tq_buf_t *out) {
  const uint8_t *p = t->data + index * tqr_element_size(t->type);
  switch (t->type) {
    case TORQ__ELEMENT_TYPE__I1:
      return tq_buf_printf(out, "%d", p[0] != 0);
    case TORQ__ELEMENT_TYPE__I8:
      return tq_buf_printf(out, "%d", (int)(int8_t)p[0]);
    case TORQ__ELEMENT_TYPE__U8:
      return tq_buf_printf(out, "%u", (unsigned)p[0]);
    case TORQ__ELEMENT_TYPE__I16: {
      int16_t v;
      memcpy(&v, p, 2);
      return tq_buf_printf(out, "%d", (int)v);
    }
    case TORQ__ELEMENT_TYPE__I32: {
      int32_t v;
      memcpy(&v, p, 4);
      return tq_buf_printf(out, "%" PRId32, v);
    }
    case TORQ__ELEMENT_TYPE__I48:
    case TORQ__ELEMENT_TYPE__I64:
    case TORQ__ELEMENT_TYPE__INDEX: {
      int64_t v;
      memcpy(&v, p, 8);
      return tq_buf_printf(out, "%" PRId64, v);
    }
    case TORQ__ELEMENT_TYPE__BF16:
    case TORQ__ELEMENT_TYPE__F16: {
      uint16_t bits;
      memcpy(&bits, p, 2);
      float f = t->type == TORQ__ELEMENT_TYPE__BF16 ? tqs_bf16_to_f32(bits) : tqs_f16_to_f32(bits);
      return tq_buf_printf(out, "%G", (double)f);
    }
    case TORQ__ELEMENT_TYPE__F32: {
      float f;
      memcpy(&f, p, 4);
      return tq_buf_printf(out, "%G", (double)f);
    }
    default:
      return tq_buf_append_cstr(out, "?");
  }
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
