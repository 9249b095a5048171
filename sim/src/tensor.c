/* Tensors: types, sizes, creation and element access for glue code and tests. */
#include "torq/sim/tensor.h"

#include <math.h>
#include <string.h>

#include "ref_internal.h"
#include "torq/base/alloc.h"
#include "torq/base/checked.h"
#include "torq/formats/element.h"

/* The reference interpreter's types are the module's element types (whose facts it takes from
 * the contract, torq/formats/element.h), i48 excepted (computed as i64), plus ui16, a TOSA type
 * that no module holds. */
static const Torq__ElementType tqs__module_types[TQS_TYPE_COUNT] = {
    [TQS_I1] = TORQ__ELEMENT_TYPE__I1,
    [TQS_I8] = TORQ__ELEMENT_TYPE__I8,
    [TQS_I16] = TORQ__ELEMENT_TYPE__I16,
    [TQS_I32] = TORQ__ELEMENT_TYPE__I32,
    [TQS_I64] = TORQ__ELEMENT_TYPE__I64,
    [TQS_U8] = TORQ__ELEMENT_TYPE__U8,
    [TQS_U16] = TORQ__ELEMENT_TYPE__ELEMENT_TYPE_UNSPECIFIED,
    [TQS_BF16] = TORQ__ELEMENT_TYPE__BF16,
    [TQS_F16] = TORQ__ELEMENT_TYPE__F16,
    [TQS_F32] = TORQ__ELEMENT_TYPE__F32,
    [TQS_INDEX] = TORQ__ELEMENT_TYPE__INDEX,
};

static const tqf_element_info_t tqs__u16 = {.name = "ui16",
                                            .size = 2,
                                            .bits = 16,
                                            .wrap_bits = 16,
                                            .is_unsigned = 1,
                                            .min = 0,
                                            .max = UINT16_MAX};

static int tqs__type_valid(tqs_type_t type) {
  return (unsigned)type < TQS_TYPE_COUNT;
}

/* The facts of a type: the UNSPECIFIED entry (name "?", size 0) for an invalid value. */
static const tqf_element_info_t *tqs__info(tqs_type_t type) {
  if (type == TQS_U16) return &tqs__u16;
  return tqf_element_info(tqs__type_valid(type) ? tqs__module_types[type]
                                                : TORQ__ELEMENT_TYPE__ELEMENT_TYPE_UNSPECIFIED);
}

const char *tqs_type_name(tqs_type_t type) {
  return tqs__info(type)->name;
}

int tqs_type_parse(const char *name, tqs_type_t *out_type) {
  if (!name) return 0;
  if (strcmp(name, tqf_element_name(TORQ__ELEMENT_TYPE__I48)) == 0) {
    *out_type = TQS_I64;
    return 1;
  }
  for (int t = 0; t < TQS_TYPE_COUNT; t++) {
    if (strcmp(name, tqs__info((tqs_type_t)t)->name) == 0) {
      *out_type = (tqs_type_t)t;
      return 1;
    }
  }
  return 0;
}

size_t tqs_type_size(tqs_type_t type) {
  return tqs__info(type)->size;
}

unsigned tqs_type_bits(tqs_type_t type) {
  return tqs__info(type)->bits;
}

int tqs_type_is_float(tqs_type_t type) {
  return tqs__info(type)->is_float;
}

int tqs_type_is_integer(tqs_type_t type) {
  return tqs__type_valid(type) && !tqs_type_is_float(type);
}

int tqs_type_is_unsigned(tqs_type_t type) {
  return tqs__info(type)->is_unsigned;
}

/* Integer types: their range. Floats (and invalid values) have none: 0 and INT64_MAX. */
int64_t tqs__type_min(tqs_type_t type) {
  return tqs_type_is_integer(type) ? tqs__info(type)->min : 0;
}

int64_t tqs__type_max(tqs_type_t type) {
  return tqs_type_is_integer(type) ? tqs__info(type)->max : INT64_MAX;
}

static tq_status_t tqs__shape_count(tqs_type_t type, size_t rank, const int64_t *dims,
                                    size_t *out_count) {
  if (!tqs__type_valid(type)) {
    return TQ_STATUS(TQ_INVALID_ARGUMENT, "tensor: invalid element type %d", (int)type);
  }
  if (rank > TQS_MAX_RANK) {
    return TQ_STATUS(TQ_INVALID_ARGUMENT, "tensor: rank %zu is above the maximum %d", rank,
                     TQS_MAX_RANK);
  }
  size_t count = 1;
  for (size_t i = 0; i < rank; i++) {
    if (dims[i] < 0) {
      return TQ_STATUS(TQ_INVALID_ARGUMENT, "tensor: dim %zu is negative (%lld)", i,
                       (long long)dims[i]);
    }
    if ((uint64_t)dims[i] > SIZE_MAX || !tq_size_mul(count, (size_t)dims[i], &count)) {
      return TQ_STATUS(TQ_LIMIT, "tensor: element count overflows");
    }
  }
  size_t bytes;
  if (!tq_size_mul(count, tqs_type_size(type), &bytes)) {
    return TQ_STATUS(TQ_LIMIT, "tensor: byte size overflows");
  }
  *out_count = count;
  return NULL;
}

tq_status_t tqs_tensor_count(const tqs_tensor_t *tensor, size_t *out_count) {
  *out_count = 0;
  return tqs__shape_count(tensor->type, tensor->rank, tensor->dims, out_count);
}

tq_status_t tqs_tensor_byte_size(const tqs_tensor_t *tensor, size_t *out_size) {
  *out_size = 0;
  size_t count;
  TQ_TRY(tqs__shape_count(tensor->type, tensor->rank, tensor->dims, &count));
  *out_size = count * tqs_type_size(tensor->type);
  return NULL;
}

tq_status_t tqs_tensor_init(tqs_tensor_t *tensor, tqs_type_t type, size_t rank, const int64_t *dims,
                            void *data) {
  memset(tensor, 0, sizeof *tensor);
  size_t count;
  TQ_TRY(tqs__shape_count(type, rank, dims, &count));
  tensor->type = type;
  tensor->rank = rank;
  if (rank) memcpy(tensor->dims, dims, rank * sizeof *dims);
  tensor->data = data;
  tensor->owns_data = 0;
  return NULL;
}

tq_status_t tqs_tensor_create(tqs_type_t type, size_t rank, const int64_t *dims,
                              tqs_tensor_t **out_tensor) {
  *out_tensor = NULL;
  size_t count;
  TQ_TRY(tqs__shape_count(type, rank, dims, &count));
  tqs_tensor_t *tensor = tq_calloc(1, sizeof *tensor);
  void *data = tq_calloc(count, tqs_type_size(type));
  if (!tensor || !data) {
    tq_free(tensor);
    tq_free(data);
    return TQ_STATUS(TQ_OUT_OF_MEMORY, "tensor: out of memory for %zu elements of %s", count,
                     tqs_type_name(type));
  }
  tensor->type = type;
  tensor->rank = rank;
  if (rank) memcpy(tensor->dims, dims, rank * sizeof *dims);
  tensor->data = data;
  tensor->owns_data = 1;
  *out_tensor = tensor;
  return NULL;
}

void tqs_tensor_destroy(tqs_tensor_t *tensor) {
  if (!tensor) return;
  if (tensor->owns_data) tq_free(tensor->data);
  tq_free(tensor);
}

/* 1 when `index` addresses an element of a valid tensor with data. */
static int tqs__index_ok(const tqs_tensor_t *tensor, size_t index) {
  size_t count = 0;
  if (!tensor || !tensor->data) return 0;
  tq_status_t status = tqs__shape_count(tensor->type, tensor->rank, tensor->dims, &count);
  if (status) {
    tq_status_free(status);
    return 0;
  }
  return index < count;
}

int64_t tqs_tensor_get_i64(const tqs_tensor_t *tensor, size_t index) {
  if (!tqs__index_ok(tensor, index)) return 0;
  if (!tqs_type_is_float(tensor->type)) return tqs__ld_i(tensor, index);
  double v = tqs__ld_f(tensor, index);
  if (isnan(v)) return 0;
  if (v >= 9223372036854775808.0) return INT64_MAX;
  if (v < -9223372036854775808.0) return INT64_MIN;
  return (int64_t)v;
}

double tqs_tensor_get_f64(const tqs_tensor_t *tensor, size_t index) {
  if (!tqs__index_ok(tensor, index)) return 0.0;
  if (tqs_type_is_float(tensor->type)) return tqs__ld_f(tensor, index);
  return (double)tqs__ld_i(tensor, index);
}

void tqs_tensor_set_i64(tqs_tensor_t *tensor, size_t index, int64_t value) {
  if (!tqs__index_ok(tensor, index)) return;
  tqs__st_i(tensor, index, value);
}

void tqs_tensor_set_f64(tqs_tensor_t *tensor, size_t index, double value) {
  if (!tqs__index_ok(tensor, index)) return;
  switch (tensor->type) {
    case TQS_F32:
      ((float *)tensor->data)[index] = (float)value;
      return;
    case TQS_BF16:
      ((uint16_t *)tensor->data)[index] = tqs_f64_to_bf16(value);
      return;
    case TQS_F16:
      ((uint16_t *)tensor->data)[index] = tqs_f64_to_f16(value);
      return;
    default:
      break;
  }
  if (isnan(value)) {
    tqs__st_i(tensor, index, 0);
    return;
  }
  double r = nearbyint(value);
  double lo = (double)tqs__type_min(tensor->type), hi = (double)tqs__type_max(tensor->type);
  int64_t v;
  if (r <= lo) {
    v = tqs__type_min(tensor->type);
  } else if (r >= hi) {
    v = tqs__type_max(tensor->type);
  } else {
    v = (int64_t)r;
  }
  tqs__st_i(tensor, index, v);
}
