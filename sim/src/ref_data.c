/* Data movement: identity/const, reshape, transpose, pad, slice, concat, tile, reverse. Every
 * kernel copies raw elements, so it works for every element type. */
#include <stdio.h>
#include <string.h>

#include "ref_internal.h"

static size_t tqs__esize(const tqs_tensor_t *t) {
  return tqs_type_size(t->type);
}

static void *tqs__at(const tqs_tensor_t *t, int64_t index) {
  return (char *)t->data + (size_t)index * tqs__esize(t);
}

tq_status_t tqs__k_identity(const tqs__op_t *op, int variant) {
  TQ_TRY(tqs__check_arity(op, 1, 1, 1));
  const tqs_tensor_t *x = op->in[0];
  tqs_tensor_t *y = op->out[0];
  TQ_TRY(tqs__check_same_type(op, x, "the value", y, "the result"));
  if (variant == TQS__D_CONST) {
    if (tqs__count(x) != tqs__count(y)) {
      char dx[TQS__DESC_LEN], dy[TQS__DESC_LEN];
      return TQS_FAIL(op, "the value is %s but the result is %s", tqs__desc(x, dx),
                      tqs__desc(y, dy));
    }
  } else {
    TQ_TRY(tqs__check_same_shape(op, x, "input", y, "the result"));
  }
  size_t bytes = tqs__count(x) * tqs__esize(x);
  if (bytes) memcpy(y->data, x->data, bytes);
  return NULL;
}

tq_status_t tqs__k_reshape(const tqs__op_t *op, int variant) {
  (void)variant;
  TQ_TRY(tqs__check_arity(op, 1, 2, 1));
  const tqs_tensor_t *x = op->in[0];
  tqs_tensor_t *y = op->out[0];
  TQ_TRY(tqs__check_same_type(op, x, "input", y, "the result"));
  if (op->n_in == 2 || tqs__attr_find(op, "new_shape")) {
    int64_t shape[TQS_MAX_RANK];
    TQ_TRY(tqs__shape_arg(op, 1, "new_shape", y->rank, shape));
    for (size_t i = 0; i < y->rank; i++) {
      if (shape[i] != y->dims[i] && shape[i] != -1) {
        char d[TQS__DESC_LEN];
        return TQS_FAIL(op, "the shape operand says dim %zu is %lld but the result is %s", i,
                        (long long)shape[i], tqs__desc(y, d));
      }
    }
  }
  if (tqs__count(x) != tqs__count(y)) {
    char dx[TQS__DESC_LEN], dy[TQS__DESC_LEN];
    return TQS_FAIL(op, "input %s and result %s have different element counts", tqs__desc(x, dx),
                    tqs__desc(y, dy));
  }
  size_t bytes = tqs__count(x) * tqs__esize(x);
  if (bytes) memcpy(y->data, x->data, bytes);
  return NULL;
}

tq_status_t tqs__k_transpose(const tqs__op_t *op, int variant) {
  (void)variant;
  TQ_TRY(tqs__check_arity(op, 1, 1, 1));
  const tqs_tensor_t *x = op->in[0];
  tqs_tensor_t *y = op->out[0];
  TQ_TRY(tqs__check_same_type(op, x, "input", y, "the result"));
  int64_t perms[TQS_MAX_RANK], want[TQS_MAX_RANK];
  TQ_TRY(tqs__attr_ints(op, "perms", x->rank, perms));
  int seen[TQS_MAX_RANK] = {0};
  for (size_t i = 0; i < x->rank; i++) {
    if (perms[i] < 0 || perms[i] >= (int64_t)x->rank || seen[perms[i]]) {
      return TQS_FAIL(op, "attribute 'perms' is not a permutation of 0..%zu", x->rank - 1);
    }
    seen[perms[i]] = 1;
    want[i] = x->dims[perms[i]];
  }
  TQ_TRY(tqs__check_dims(op, y, "the result", x->rank, want));
  int64_t xs[TQS_MAX_RANK], ys[TQS_MAX_RANK], src[TQS_MAX_RANK];
  tqs__strides(x, xs);
  tqs__strides(y, ys);
  for (size_t i = 0; i < x->rank; i++) src[i] = xs[perms[i]];
  tqs__copy_box(y->data, ys, x->data, src, y->dims, y->rank, tqs__esize(x));
  return NULL;
}

tq_status_t tqs__k_pad(const tqs__op_t *op, int variant) {
  (void)variant;
  TQ_TRY(tqs__check_arity(op, 1, 3, 1));
  const tqs_tensor_t *x = op->in[0];
  tqs_tensor_t *y = op->out[0];
  TQ_TRY(tqs__check_same_type(op, x, "input", y, "the result"));
  int64_t padding[2 * TQS_MAX_RANK], want[TQS_MAX_RANK];
  TQ_TRY(tqs__shape_arg(op, 1, "padding", 2 * x->rank, padding));
  for (size_t i = 0; i < x->rank; i++) {
    if (padding[2 * i] < 0 || padding[2 * i + 1] < 0) {
      return TQS_FAIL(op, "padding of dim %zu is negative", i);
    }
    want[i] = x->dims[i] + padding[2 * i] + padding[2 * i + 1];
  }
  TQ_TRY(tqs__check_dims(op, y, "the result", x->rank, want));
  size_t es = tqs__esize(y), n = tqs__count(y);
  unsigned char value[8] = {0};
  if (op->n_in == 3) {
    const tqs_tensor_t *pc = op->in[2];
    TQ_TRY(tqs__check_same_type(op, x, "input", pc, "pad_const"));
    if (tqs__count(pc) < 1) return TQS_FAIL(op, "pad_const is empty");
    memcpy(value, pc->data, es);
  }
  for (size_t i = 0; i < n; i++) memcpy((char *)y->data + i * es, value, es);
  int64_t xs[TQS_MAX_RANK], ys[TQS_MAX_RANK], base = 0;
  tqs__strides(x, xs);
  tqs__strides(y, ys);
  for (size_t i = 0; i < x->rank; i++) base += padding[2 * i] * ys[i];
  if (n) tqs__copy_box(tqs__at(y, base), ys, x->data, xs, x->dims, x->rank, es);
  return NULL;
}

tq_status_t tqs__k_slice(const tqs__op_t *op, int variant) {
  (void)variant;
  TQ_TRY(tqs__check_arity(op, 1, 3, 1));
  if (op->n_in == 2) return TQS_FAIL(op, "expects both start and size operands or neither");
  const tqs_tensor_t *x = op->in[0];
  tqs_tensor_t *y = op->out[0];
  TQ_TRY(tqs__check_same_type(op, x, "input", y, "the result"));
  int64_t start[TQS_MAX_RANK], size[TQS_MAX_RANK];
  TQ_TRY(tqs__shape_arg(op, 1, "start", x->rank, start));
  TQ_TRY(tqs__shape_arg(op, 2, "size", x->rank, size));
  int64_t base = 0, xs[TQS_MAX_RANK], ys[TQS_MAX_RANK];
  tqs__strides(x, xs);
  for (size_t i = 0; i < x->rank; i++) {
    if (size[i] == -1) size[i] = x->dims[i] - start[i];
    if (start[i] < 0 || size[i] < 0 || start[i] > x->dims[i] - size[i]) {
      return TQS_FAIL(op, "start %lld and size %lld of dim %zu do not fit its %lld elements",
                      (long long)start[i], (long long)size[i], i, (long long)x->dims[i]);
    }
    base += start[i] * xs[i];
  }
  TQ_TRY(tqs__check_dims(op, y, "the result", x->rank, size));
  tqs__strides(y, ys);
  if (tqs__count(y))
    tqs__copy_box(y->data, ys, tqs__at(x, base), xs, y->dims, y->rank, tqs__esize(x));
  return NULL;
}

/* MLIR's tensor.extract_slice with static offsets, sizes and strides (the attributes
 * static_offsets, static_sizes, static_strides, one per input dimension). The result holds the
 * sizes, in order, of which unit dimensions may be dropped (a rank-reducing slice): dropping them
 * leaves the row-major order of the elements unchanged. */
tq_status_t tqs__k_extract_slice(const tqs__op_t *op, int variant) {
  (void)variant;
  TQ_TRY(tqs__check_arity(op, 1, 1, 1));
  const tqs_tensor_t *x = op->in[0];
  tqs_tensor_t *y = op->out[0];
  TQ_TRY(tqs__check_same_type(op, x, "input", y, "the result"));
  int64_t offset[TQS_MAX_RANK], size[TQS_MAX_RANK], stride[TQS_MAX_RANK];
  TQ_TRY(tqs__attr_ints(op, "static_offsets", x->rank, offset));
  TQ_TRY(tqs__attr_ints(op, "static_sizes", x->rank, size));
  TQ_TRY(tqs__attr_ints(op, "static_strides", x->rank, stride));
  int64_t base = 0, xs[TQS_MAX_RANK], src[TQS_MAX_RANK], dst[TQS_MAX_RANK];
  tqs__strides(x, xs);
  size_t r = 0;
  for (size_t i = 0; i < x->rank; i++) {
    /* offset + (size - 1) * stride < dim, written so that it cannot overflow. */
    int64_t dim = x->dims[i];
    if (offset[i] < 0 || offset[i] > dim || size[i] < 0 || stride[i] < 1 ||
        (size[i] > 0 && (offset[i] >= dim || size[i] - 1 > (dim - 1 - offset[i]) / stride[i]))) {
      return TQS_FAIL(op,
                      "offset %lld, size %lld and stride %lld of dim %zu do not fit its %lld "
                      "elements",
                      (long long)offset[i], (long long)size[i], (long long)stride[i], i,
                      (long long)dim);
    }
    base += offset[i] * xs[i];
    src[i] = size[i] > 1 ? xs[i] * stride[i] : 0;
    if (r < y->rank && y->dims[r] == size[i])
      r++;
    else if (size[i] != 1)
      r = TQS_MAX_RANK + 1;
  }
  if (r != y->rank) {
    char d[TQS__DESC_LEN];
    return TQS_FAIL(op, "the result %s does not hold the slice sizes", tqs__desc(y, d));
  }
  /* The destination, seen with the unreduced sizes: row-major strides of `size`. */
  int64_t step = 1;
  for (size_t i = x->rank; i-- > 0;) {
    dst[i] = step;
    step *= size[i];
  }
  if (tqs__count(y))
    tqs__copy_box(y->data, dst, tqs__at(x, base), src, size, x->rank, tqs__esize(x));
  return NULL;
}

tq_status_t tqs__k_concat(const tqs__op_t *op, int variant) {
  (void)variant;
  if (op->n_in < 1) return TQS_FAIL(op, "expects at least one operand");
  TQ_TRY(tqs__check_arity(op, 1, op->n_in, 1));
  tqs_tensor_t *y = op->out[0];
  int64_t axis;
  TQ_TRY(tqs__attr_int(op, "axis", &axis));
  if (axis < 0 || axis >= (int64_t)y->rank) {
    return TQS_FAIL(op, "axis %lld is outside 0..%zu", (long long)axis, y->rank ? y->rank - 1 : 0);
  }
  int64_t total = 0;
  char what[32];
  for (size_t k = 0; k < op->n_in; k++) {
    const tqs_tensor_t *x = op->in[k];
    snprintf(what, sizeof what, "input %zu", k);
    TQ_TRY(tqs__check_same_type(op, y, "the result", x, what));
    int64_t want[TQS_MAX_RANK];
    memcpy(want, y->dims, sizeof want);
    want[axis] = x->rank == y->rank ? x->dims[axis] : 0;
    TQ_TRY(tqs__check_dims(op, x, what, y->rank, want));
    total += x->dims[axis];
  }
  if (total != y->dims[axis]) {
    return TQS_FAIL(op, "the inputs add up to %lld along axis %lld but the result has %lld",
                    (long long)total, (long long)axis, (long long)y->dims[axis]);
  }
  int64_t ys[TQS_MAX_RANK], xs[TQS_MAX_RANK], offset = 0;
  tqs__strides(y, ys);
  for (size_t k = 0; k < op->n_in; k++) {
    const tqs_tensor_t *x = op->in[k];
    tqs__strides(x, xs);
    if (tqs__count(x)) {
      tqs__copy_box(tqs__at(y, offset * ys[axis]), ys, x->data, xs, x->dims, x->rank,
                    tqs__esize(x));
    }
    offset += x->dims[axis];
  }
  return NULL;
}

tq_status_t tqs__k_tile(const tqs__op_t *op, int variant) {
  (void)variant;
  TQ_TRY(tqs__check_arity(op, 1, 2, 1));
  const tqs_tensor_t *x = op->in[0];
  tqs_tensor_t *y = op->out[0];
  TQ_TRY(tqs__check_same_type(op, x, "input", y, "the result"));
  int64_t multiples[TQS_MAX_RANK], want[TQS_MAX_RANK];
  TQ_TRY(tqs__shape_arg(op, 1, "multiples", x->rank, multiples));
  for (size_t i = 0; i < x->rank; i++) {
    if (multiples[i] < 0) return TQS_FAIL(op, "multiple %zu is negative", i);
    want[i] = x->dims[i] * multiples[i];
  }
  TQ_TRY(tqs__check_dims(op, y, "the result", x->rank, want));
  if (tqs__count(y) == 0) return NULL;
  int64_t xs[TQS_MAX_RANK], ys[TQS_MAX_RANK], tile[TQS_MAX_RANK] = {0};
  tqs__strides(x, xs);
  tqs__strides(y, ys);
  size_t tiles = 1;
  for (size_t i = 0; i < x->rank; i++) tiles *= (size_t)multiples[i];
  for (size_t t = 0; t < tiles; t++) {
    int64_t base = 0;
    for (size_t i = 0; i < x->rank; i++) base += tile[i] * x->dims[i] * ys[i];
    tqs__copy_box(tqs__at(y, base), ys, x->data, xs, x->dims, x->rank, tqs__esize(x));
    for (size_t i = x->rank; i-- > 0;) {
      if (++tile[i] < multiples[i]) break;
      tile[i] = 0;
    }
  }
  return NULL;
}

tq_status_t tqs__k_reverse(const tqs__op_t *op, int variant) {
  (void)variant;
  TQ_TRY(tqs__check_arity(op, 1, 1, 1));
  const tqs_tensor_t *x = op->in[0];
  tqs_tensor_t *y = op->out[0];
  TQ_TRY(tqs__check_same_type(op, x, "input", y, "the result"));
  TQ_TRY(tqs__check_same_shape(op, x, "input", y, "the result"));
  int64_t axis;
  TQ_TRY(tqs__attr_int(op, "axis", &axis));
  if (axis < 0 || axis >= (int64_t)x->rank) {
    return TQS_FAIL(op, "axis %lld is outside 0..%zu", (long long)axis, x->rank ? x->rank - 1 : 0);
  }
  if (tqs__count(x) == 0) return NULL;
  int64_t xs[TQS_MAX_RANK], ys[TQS_MAX_RANK];
  tqs__strides(x, xs);
  tqs__strides(y, ys);
  int64_t base = (x->dims[axis] - 1) * xs[axis];
  xs[axis] = -xs[axis];
  tqs__copy_box(y->data, ys, tqs__at(x, base), xs, y->dims, y->rank, tqs__esize(x));
  return NULL;
}
