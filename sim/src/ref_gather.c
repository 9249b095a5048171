/* tosa.gather and tosa.scatter: values [N,K,C] indexed along K by indices [N,W]. An index
 * outside 0..K-1 is TQ_INVALID_ARGUMENT (TOSA leaves it undefined); scatter with a repeated
 * index keeps the last write. */
#include <string.h>

#include "ref_internal.h"

static tq_status_t tqs__check_indices(const tqs__op_t *op, const tqs_tensor_t *idx, int64_t n,
                                      int64_t w, int64_t k) {
  TQ_TRY(tqs__check_type(op, idx, "the indices",
                         TQS__T(TQS_I32) | TQS__T(TQS_I64) | TQS__T(TQS_INDEX)));
  int64_t want[2] = {n, w};
  TQ_TRY(tqs__check_dims(op, idx, "the indices", 2, want));
  size_t count = tqs__count(idx);
  for (size_t i = 0; i < count; i++) {
    int64_t v = tqs__ld_i(idx, i);
    if (v < 0 || v >= k) {
      return TQS_FAIL(op, "index %lld at position %zu is outside 0..%lld", (long long)v, i,
                      (long long)(k - 1));
    }
  }
  return NULL;
}

tq_status_t tqs__k_gather(const tqs__op_t *op, int variant) {
  (void)variant;
  TQ_TRY(tqs__check_arity(op, 2, 2, 1));
  const tqs_tensor_t *values = op->in[0], *idx = op->in[1];
  tqs_tensor_t *y = op->out[0];
  TQ_TRY(tqs__check_same_type(op, values, "the values", y, "the result"));
  TQ_TRY(tqs__check_rank(op, values, "the values", 3));
  TQ_TRY(tqs__check_rank(op, idx, "the indices", 2));
  const int64_t N = values->dims[0], K = values->dims[1], C = values->dims[2], W = idx->dims[1];
  TQ_TRY(tqs__check_indices(op, idx, N, W, K));
  int64_t want[3] = {N, W, C};
  TQ_TRY(tqs__check_dims(op, y, "the result", 3, want));
  size_t row = (size_t)C * tqs_type_size(y->type);
  if (!row) return NULL;
  for (int64_t n = 0; n < N; n++) {
    for (int64_t w = 0; w < W; w++) {
      int64_t k = tqs__ld_i(idx, (size_t)(n * W + w));
      memcpy((char *)y->data + (size_t)(n * W + w) * row,
             (const char *)values->data + (size_t)(n * K + k) * row, row);
    }
  }
  return NULL;
}

tq_status_t tqs__k_scatter(const tqs__op_t *op, int variant) {
  (void)variant;
  TQ_TRY(tqs__check_arity(op, 3, 3, 1));
  const tqs_tensor_t *values_in = op->in[0], *idx = op->in[1], *input = op->in[2];
  tqs_tensor_t *y = op->out[0];
  TQ_TRY(tqs__check_same_type(op, values_in, "values_in", y, "the result"));
  TQ_TRY(tqs__check_same_type(op, values_in, "values_in", input, "input"));
  TQ_TRY(tqs__check_same_shape(op, values_in, "values_in", y, "the result"));
  TQ_TRY(tqs__check_rank(op, values_in, "values_in", 3));
  TQ_TRY(tqs__check_rank(op, input, "input", 3));
  const int64_t N = values_in->dims[0], K = values_in->dims[1], C = values_in->dims[2];
  const int64_t W = input->dims[1];
  int64_t want[3] = {N, W, C};
  TQ_TRY(tqs__check_dims(op, input, "input", 3, want));
  TQ_TRY(tqs__check_indices(op, idx, N, W, K));
  size_t row = (size_t)C * tqs_type_size(y->type);
  size_t bytes = tqs__count(y) * tqs_type_size(y->type);
  if (bytes) memcpy(y->data, values_in->data, bytes);
  if (!row) return NULL;
  for (int64_t n = 0; n < N; n++) {
    for (int64_t w = 0; w < W; w++) {
      int64_t k = tqs__ld_i(idx, (size_t)(n * W + w));
      memcpy((char *)y->data + (size_t)(n * K + k) * row,
             (const char *)input->data + (size_t)(n * W + w) * row, row);
    }
  }
  return NULL;
}
