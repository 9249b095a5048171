/* TOSA ops that move data without arithmetic, and the reductions: constants, identity, reshape,
 * transpose, pad, slice, tile, reverse, concat, reduce_*, argmax, gather, scatter and resize;
 * and the one non-TOSA op the corpus uses, tensor.extract_slice. */
#include "torq/base/checked.h"
#include "tosa_internal.h"

#define E(x) TQC_EM(TQC_E_##x)

tq_status_t tqc__tosa_check_const(const tqc_tosa_ctx_t *c, uint32_t types) {
  return tqc__tosa_expect_elem_in(c, "result", tqc__tosa_result(c, 0), types);
}

/* The verifier checked the values against the !tosa.shape type; nothing else to check. */
tq_status_t tqc__tosa_check_const_shape(const tqc_tosa_ctx_t *c, uint32_t types) {
  (void)c;
  (void)types;
  return NULL;
}

/* The result has the input's element type. */
static tq_status_t same_elem(const tqc_tosa_ctx_t *c, uint32_t types) {
  const tqc_type_t *in = tqc__tosa_operand(c, 0);
  TQ_TRY(tqc__tosa_expect_elem_in(c, "input", in, types));
  return tqc__tosa_expect_same_elem(c, "result", tqc__tosa_result(c, 0), in);
}

tq_status_t tqc__tosa_check_identity(const tqc_tosa_ctx_t *c, uint32_t types) {
  TQ_TRY(same_elem(c, types));
  tqc_tosa_shape_t s = tqc__tosa_shape_of(tqc__tosa_operand(c, 0));
  return tqc__tosa_expect_shape(c, "result", tqc__tosa_result(c, 0), &s);
}

/* An `axis` attribute within [0, rank). */
static tq_status_t axis_attr(const tqc_tosa_ctx_t *c, size_t rank, size_t *out_axis) {
  int64_t axis;
  *out_axis = 0;
  TQ_TRY(tqc__tosa_attr_int(c, "axis", &axis));
  if (axis < 0 || (uint64_t)axis >= rank) {
    return tqc__tosa_fail(c, "axis %lld is out of range for rank %zu", (long long)axis, rank);
  }
  *out_axis = (size_t)axis;
  return NULL;
}

/* reshape: the shape operand gives the result shape (one -1 may stand for the dimension that
 * keeps the element count, as MLIR allows); the element count is unchanged. */
tq_status_t tqc__tosa_check_reshape(const tqc_tosa_ctx_t *c, uint32_t types) {
  const tqc_type_t *in = tqc__tosa_operand(c, 0), *out = tqc__tosa_result(c, 0);
  TQ_TRY(same_elem(c, types));
  tqc_tosa_shape_t s = {out->tensor.rank, {0}};
  TQ_TRY(tqc__tosa_shape_operand(c, 1, "shape", s.rank, s.dims));
  /* The counts are printed as long long, so a count past INT64_MAX overflows too. */
  size_t n_in, n_out;
  if (!tqc_type_element_count(in, &n_in) || !tqc_type_element_count(out, &n_out) ||
      n_in > INT64_MAX || n_out > INT64_MAX) {
    return tqc__tosa_fail(c, "element count overflows");
  }
  if (n_in != n_out) {
    return tqc__tosa_fail(c, "result shape %s has %lld elements, the input %s has %lld",
                          tqc__tosa_dims_text(out->tensor.dims, out->tensor.rank).s,
                          (long long)n_out, tqc__tosa_dims_text(in->tensor.dims, in->tensor.rank).s,
                          (long long)n_in);
  }
  size_t inferred = 0;
  for (size_t i = 0; i < s.rank; i++) {
    if (s.dims[i] == -1 && inferred++ == 0) {
      s.dims[i] = out->tensor.dims[i];
    }
  }
  for (size_t i = 0; i < s.rank; i++) {
    if (s.dims[i] != out->tensor.dims[i]) {
      return tqc__tosa_fail(c, "shape operand %s does not match the result shape %s",
                            tqc__tosa_dims_text(s.dims, s.rank).s,
                            tqc__tosa_dims_text(out->tensor.dims, out->tensor.rank).s);
    }
  }
  return NULL;
}

/* transpose: perms is a permutation of [0, rank); result[i] = input[perms[i]]. */
tq_status_t tqc__tosa_check_transpose(const tqc_tosa_ctx_t *c, uint32_t types) {
  const tqc_type_t *in = tqc__tosa_operand(c, 0);
  TQ_TRY(same_elem(c, types));
  size_t rank = in->tensor.rank;
  int64_t perms[TQC_TOSA_MAX_RANK];
  TQ_TRY(tqc__tosa_attr_ints(c, "perms", 32, rank, perms));
  int seen[TQC_TOSA_MAX_RANK] = {0};
  tqc_tosa_shape_t s = {rank, {0}};
  for (size_t i = 0; i < rank; i++) {
    if (perms[i] < 0 || (uint64_t)perms[i] >= rank || seen[perms[i]]) {
      return tqc__tosa_fail(c, "perms %s is not a permutation of 0..%zu",
                            tqc__tosa_dims_text(perms, rank).s, rank - 1);
    }
    seen[perms[i]] = 1;
    s.dims[i] = in->tensor.dims[perms[i]];
  }
  return tqc__tosa_expect_shape(c, "result", tqc__tosa_result(c, 0), &s);
}

/* pad: padding holds [before, after] for each dimension, all >= 0; pad_const is a constant
 * tensor<1xT> of the input's type. */
tq_status_t tqc__tosa_check_pad(const tqc_tosa_ctx_t *c, uint32_t types) {
  const tqc_type_t *in = tqc__tosa_operand(c, 0);
  TQ_TRY(same_elem(c, types));
  size_t rank = in->tensor.rank;
  int64_t padding[2 * TQC_TOSA_MAX_RANK];
  TQ_TRY(tqc__tosa_shape_operand(c, 1, "padding", 2 * rank, padding));
  int64_t pad_const;
  TQ_TRY(tqc__tosa_scalar_operand(c, 2, "pad_const", in, &pad_const));
  tqc_tosa_shape_t s = {rank, {0}};
  for (size_t i = 0; i < rank; i++) {
    if (padding[2 * i] < 0 || padding[2 * i + 1] < 0) {
      return tqc__tosa_fail(c, "padding of dimension %zu is negative (%lld, %lld)", i,
                            (long long)padding[2 * i], (long long)padding[2 * i + 1]);
    }
    if (!tq_i64_add(in->tensor.dims[i], padding[2 * i], &s.dims[i]) ||
        !tq_i64_add(s.dims[i], padding[2 * i + 1], &s.dims[i])) {
      return tqc__tosa_fail(c, "padded size overflows");
    }
  }
  return tqc__tosa_expect_shape(c, "result", tqc__tosa_result(c, 0), &s);
}

/* slice: start and size per dimension, start >= 0, size >= 1 (or -1: to the end, as MLIR
 * allows), start + size within the input. */
tq_status_t tqc__tosa_check_slice(const tqc_tosa_ctx_t *c, uint32_t types) {
  const tqc_type_t *in = tqc__tosa_operand(c, 0);
  TQ_TRY(same_elem(c, types));
  size_t rank = in->tensor.rank;
  int64_t start[TQC_TOSA_MAX_RANK], size[TQC_TOSA_MAX_RANK];
  TQ_TRY(tqc__tosa_shape_operand(c, 1, "start", rank, start));
  TQ_TRY(tqc__tosa_shape_operand(c, 2, "size", rank, size));
  tqc_tosa_shape_t s = {rank, {0}};
  for (size_t i = 0; i < rank; i++) {
    int64_t dim = in->tensor.dims[i];
    if (start[i] < 0 || start[i] >= dim) {
      return tqc__tosa_fail(c, "start %lld of dimension %zu is outside the input size %lld",
                            (long long)start[i], i, (long long)dim);
    }
    int64_t n = size[i] == -1 ? dim - start[i] : size[i];
    if (n < 1 || n > dim - start[i]) {
      return tqc__tosa_fail(c,
                            "slice [%lld, %lld + %lld) of dimension %zu is outside the input "
                            "size %lld",
                            (long long)start[i], (long long)start[i], (long long)size[i], i,
                            (long long)dim);
    }
    s.dims[i] = n;
  }
  return tqc__tosa_expect_shape(c, "result", tqc__tosa_result(c, 0), &s);
}

/* tile: result[i] = input[i] * multiples[i], multiples >= 1. */
tq_status_t tqc__tosa_check_tile(const tqc_tosa_ctx_t *c, uint32_t types) {
  const tqc_type_t *in = tqc__tosa_operand(c, 0);
  TQ_TRY(same_elem(c, types));
  size_t rank = in->tensor.rank;
  int64_t multiples[TQC_TOSA_MAX_RANK];
  TQ_TRY(tqc__tosa_shape_operand(c, 1, "multiples", rank, multiples));
  tqc_tosa_shape_t s = {rank, {0}};
  for (size_t i = 0; i < rank; i++) {
    if (multiples[i] < 1) {
      return tqc__tosa_fail(c, "multiple %lld of dimension %zu must be >= 1",
                            (long long)multiples[i], i);
    }
    if (!tq_i64_mul(in->tensor.dims[i], multiples[i], &s.dims[i])) {
      return tqc__tosa_fail(c, "tiled size overflows");
    }
  }
  return tqc__tosa_expect_shape(c, "result", tqc__tosa_result(c, 0), &s);
}

tq_status_t tqc__tosa_check_reverse(const tqc_tosa_ctx_t *c, uint32_t types) {
  const tqc_type_t *in = tqc__tosa_operand(c, 0);
  TQ_TRY(same_elem(c, types));
  size_t axis;
  TQ_TRY(axis_attr(c, in->tensor.rank, &axis));
  tqc_tosa_shape_t s = tqc__tosa_shape_of(in);
  return tqc__tosa_expect_shape(c, "result", tqc__tosa_result(c, 0), &s);
}

/* concat: inputs of one element type and rank, equal except along `axis`, where the result
 * has the sum. */
tq_status_t tqc__tosa_check_concat(const tqc_tosa_ctx_t *c, uint32_t types) {
  const tqc_type_t *first = tqc__tosa_operand(c, 0);
  TQ_TRY(same_elem(c, types));
  size_t axis;
  TQ_TRY(axis_attr(c, first->tensor.rank, &axis));
  tqc_tosa_shape_t s = tqc__tosa_shape_of(first);
  for (size_t i = 1; i < c->op->num_operands; i++) {
    const tqc_type_t *t = tqc__tosa_operand(c, i);
    TQ_TRY(tqc__tosa_expect_same_elem(c, "input", t, first));
    if (t->tensor.rank != first->tensor.rank) {
      return tqc__tosa_fail(c, "input #%zu has rank %zu, input #0 has %zu", i, t->tensor.rank,
                            first->tensor.rank);
    }
    for (size_t d = 0; d < s.rank; d++) {
      if (d == axis) continue;
      if (t->tensor.dims[d] != first->tensor.dims[d]) {
        return tqc__tosa_fail(c,
                              "input #%zu shape %s differs from input #0 shape %s outside "
                              "axis %zu",
                              i, tqc__tosa_dims_text(t->tensor.dims, t->tensor.rank).s,
                              tqc__tosa_dims_text(first->tensor.dims, first->tensor.rank).s, axis);
      }
    }
    if (!tq_i64_add(s.dims[axis], t->tensor.dims[axis], &s.dims[axis])) {
      return tqc__tosa_fail(c, "concatenated size overflows");
    }
  }
  return tqc__tosa_expect_shape(c, "result", tqc__tosa_result(c, 0), &s);
}

/* reduce_*: the reduced dimension stays, with size 1. */
tq_status_t tqc__tosa_check_reduce(const tqc_tosa_ctx_t *c, uint32_t types) {
  const tqc_type_t *in = tqc__tosa_operand(c, 0);
  TQ_TRY(same_elem(c, types));
  if (tqc_op_is(c->op, "tosa.reduce_max") || tqc_op_is(c->op, "tosa.reduce_min")) {
    TQ_TRY(tqc__tosa_check_nan_mode(c));
  }
  size_t axis;
  TQ_TRY(axis_attr(c, in->tensor.rank, &axis));
  tqc_tosa_shape_t s = tqc__tosa_shape_of(in);
  s.dims[axis] = 1;
  return tqc__tosa_expect_shape(c, "result", tqc__tosa_result(c, 0), &s);
}

/* argmax: an i32 index; the axis disappears from the shape. */
tq_status_t tqc__tosa_check_argmax(const tqc_tosa_ctx_t *c, uint32_t types) {
  const tqc_type_t *in = tqc__tosa_operand(c, 0), *out = tqc__tosa_result(c, 0);
  TQ_TRY(tqc__tosa_expect_elem_in(c, "input", in, types));
  TQ_TRY(tqc__tosa_expect_elem_in(c, "result", out, E(I32)));
  TQ_TRY(tqc__tosa_check_nan_mode(c));
  size_t axis;
  TQ_TRY(axis_attr(c, in->tensor.rank, &axis));
  tqc_tosa_shape_t s = {0, {0}};
  for (size_t i = 0; i < in->tensor.rank; i++) {
    if (i != axis) s.dims[s.rank++] = in->tensor.dims[i];
  }
  return tqc__tosa_expect_shape(c, "result", out, &s);
}

/* gather: values [N, K, C], indices [N, W] i32 -> [N, W, C]. */
tq_status_t tqc__tosa_check_gather(const tqc_tosa_ctx_t *c, uint32_t types) {
  const tqc_type_t *values = tqc__tosa_operand(c, 0), *indices = tqc__tosa_operand(c, 1);
  TQ_TRY(same_elem(c, types));
  TQ_TRY(tqc__tosa_expect_elem_in(c, "indices", indices, E(I32)));
  TQ_TRY(tqc__tosa_expect_rank(c, "values", values, 3));
  TQ_TRY(tqc__tosa_expect_rank(c, "indices", indices, 2));
  if (tqc__tosa_dim(indices, 0) != tqc__tosa_dim(values, 0)) {
    return tqc__tosa_fail(c, "indices batch %lld does not match the values batch %lld",
                          (long long)tqc__tosa_dim(indices, 0),
                          (long long)tqc__tosa_dim(values, 0));
  }
  tqc_tosa_shape_t s = {
      3, {tqc__tosa_dim(values, 0), tqc__tosa_dim(indices, 1), tqc__tosa_dim(values, 2)}};
  return tqc__tosa_expect_shape(c, "result", tqc__tosa_result(c, 0), &s);
}

/* scatter: values_in [N, K, C], indices [N, W] i32, input [N, W, C] -> [N, K, C], W <= K. */
tq_status_t tqc__tosa_check_scatter(const tqc_tosa_ctx_t *c, uint32_t types) {
  const tqc_type_t *values = tqc__tosa_operand(c, 0), *indices = tqc__tosa_operand(c, 1);
  const tqc_type_t *input = tqc__tosa_operand(c, 2);
  TQ_TRY(same_elem(c, types));
  TQ_TRY(tqc__tosa_expect_same_elem(c, "input", input, values));
  TQ_TRY(tqc__tosa_expect_elem_in(c, "indices", indices, E(I32)));
  TQ_TRY(tqc__tosa_expect_rank(c, "values_in", values, 3));
  TQ_TRY(tqc__tosa_expect_rank(c, "indices", indices, 2));
  TQ_TRY(tqc__tosa_expect_rank(c, "input", input, 3));
  int64_t n = tqc__tosa_dim(values, 0), k = tqc__tosa_dim(values, 1);
  int64_t ch = tqc__tosa_dim(values, 2), w = tqc__tosa_dim(indices, 1);
  tqc_tosa_shape_t want_input = {3, {n, w, ch}};
  if (tqc__tosa_dim(indices, 0) != n) {
    return tqc__tosa_fail(c, "indices batch %lld does not match the values batch %lld",
                          (long long)tqc__tosa_dim(indices, 0), (long long)n);
  }
  TQ_TRY(tqc__tosa_expect_shape(c, "input", input, &want_input));
  if (w > k) {
    return tqc__tosa_fail(c, "W %lld (indices per batch) exceeds K %lld (values per batch)",
                          (long long)w, (long long)k);
  }
  tqc_tosa_shape_t s = tqc__tosa_shape_of(values);
  return tqc__tosa_expect_shape(c, "result", tqc__tosa_result(c, 0), &s);
}

/* ---- resize --------------------------------------------------------------------------------- */

/* One output dimension with TOSA 1.0's RESIZE constraints on scale = n / d, offset and
 * border: out = ((in - 1) * n - offset + border) / d + 1, exactly. */
static tq_status_t resize_dim(const tqc_tosa_ctx_t *c, const char *axis, int64_t in, int64_t n,
                              int64_t d, int64_t offset, int64_t border, int64_t *out_dim) {
  if (n <= 0 || d <= 0) {
    return tqc__tosa_fail(c, "scale %s %lld/%lld must be positive", axis, (long long)n,
                          (long long)d);
  }
  if (n > 2048) {
    return tqc__tosa_fail(c, "scale %s numerator %lld exceeds 2048", axis, (long long)n);
  }
  if (d >= 16 * n) {
    return tqc__tosa_fail(c, "scale %s %lld/%lld must be greater than 1/16", axis, (long long)n,
                          (long long)d);
  }
  if (offset < -n || offset >= 16 * n) {
    return tqc__tosa_fail(c, "offset %s %lld must be in [%lld, %lld)", axis, (long long)offset,
                          (long long)-n, (long long)(16 * n));
  }
  if (border < -16 * n || border >= n) {
    return tqc__tosa_fail(c, "border %s %lld must be in [%lld, %lld)", axis, (long long)border,
                          (long long)(-16 * n), (long long)n);
  }
  int64_t num;
  if (!tq_i64_mul(in - 1, n, &num) || !tq_i64_add(num, border - offset, &num)) {
    return tqc__tosa_fail(c, "output size arithmetic overflows");
  }
  if (num < 0 || num % d != 0) {
    return tqc__tosa_fail(c,
                          "(input %s - 1) * %lld - offset + border = %lld is not a multiple of "
                          "%lld",
                          axis, (long long)n, (long long)num, (long long)d);
  }
  *out_dim = num / d + 1;
  return NULL;
}

tq_status_t tqc__tosa_check_resize(const tqc_tosa_ctx_t *c, uint32_t types) {
  static const char *const modes[] = {"NEAREST_NEIGHBOR", "BILINEAR", NULL};
  const tqc_type_t *in = tqc__tosa_operand(c, 0), *out = tqc__tosa_result(c, 0);
  TQ_TRY(tqc__tosa_expect_elem_in(c, "input", in, types));
  int mode;
  TQ_TRY(tqc__tosa_attr_enum(c, "mode", "tosa.resize_mode", modes, 1, &mode));
  /* Nearest neighbour keeps the type; bilinear widens integers (i8 -> i32, i16 -> i48). */
  tqc_tosa_elem_t e = tqc__tosa_elem(in);
  if (mode == 1 && (e == TQC_E_I8 || e == TQC_E_I16)) {
    TQ_TRY(tqc__tosa_expect_elem_in(c, "result", out, e == TQC_E_I8 ? E(I32) : E(I48)));
  } else {
    TQ_TRY(tqc__tosa_expect_same_elem(c, "result", out, in));
  }
  TQ_TRY(tqc__tosa_expect_rank(c, "input", in, 4));
  int64_t scale[4], offset[2], border[2];
  TQ_TRY(tqc__tosa_shape_operand(c, 1, "scale", 4, scale));
  TQ_TRY(tqc__tosa_shape_operand(c, 2, "offset", 2, offset));
  TQ_TRY(tqc__tosa_shape_operand(c, 3, "border", 2, border));
  tqc_tosa_shape_t s = {4, {tqc__tosa_dim(in, 0), 0, 0, tqc__tosa_dim(in, 3)}};
  TQ_TRY(resize_dim(c, "height", tqc__tosa_dim(in, 1), scale[0], scale[1], offset[0], border[0],
                    &s.dims[1]));
  TQ_TRY(resize_dim(c, "width", tqc__tosa_dim(in, 2), scale[2], scale[3], offset[1], border[1],
                    &s.dims[2]));
  return tqc__tosa_expect_shape(c, "result", out, &s);
}

/* ---- tensor.extract_slice ------------------------------------------------------------------- */

/* A static strided slice: offset + (size - 1) * stride within each dimension. The result shape
 * is the sizes, from which MLIR lets unit dimensions be dropped (a rank-reducing slice). */
tq_status_t tqc__tosa_check_extract_slice(const tqc_tosa_ctx_t *c, uint32_t types) {
  const tqc_type_t *in = tqc__tosa_operand(c, 0), *out = tqc__tosa_result(c, 0);
  TQ_TRY(same_elem(c, types));
  size_t rank = in->tensor.rank;
  int64_t offsets[TQC_TOSA_MAX_RANK], sizes[TQC_TOSA_MAX_RANK], strides[TQC_TOSA_MAX_RANK];
  TQ_TRY(tqc__tosa_attr_ints(c, "static_offsets", 64, rank, offsets));
  TQ_TRY(tqc__tosa_attr_ints(c, "static_sizes", 64, rank, sizes));
  TQ_TRY(tqc__tosa_attr_ints(c, "static_strides", 64, rank, strides));
  for (size_t i = 0; i < rank; i++) {
    if (offsets[i] == TQC_DYNAMIC || sizes[i] == TQC_DYNAMIC || strides[i] == TQC_DYNAMIC) {
      return tqc__tosa_fail(c,
                            "dynamic shapes are not supported: dimension %zu of the slice is "
                            "dynamic",
                            i);
    }
    int64_t dim = in->tensor.dims[i], last;
    if (offsets[i] < 0 || sizes[i] < 1 || strides[i] < 1 ||
        !tq_i64_mul(sizes[i] - 1, strides[i], &last) || !tq_i64_add(last, offsets[i], &last) ||
        last >= dim) {
      return tqc__tosa_fail(c,
                            "slice of dimension %zu (offset %lld, size %lld, stride %lld) is "
                            "outside the input size %lld",
                            i, (long long)offsets[i], (long long)sizes[i], (long long)strides[i],
                            (long long)dim);
    }
  }
  /* Match the result's dimensions to the sizes in order, skipping unit sizes it dropped. */
  size_t r = 0;
  for (size_t i = 0; i < rank; i++) {
    if (r < out->tensor.rank && out->tensor.dims[r] == sizes[i]) {
      r++;
    } else if (sizes[i] != 1) {
      r = SIZE_MAX;
      break;
    }
  }
  if (r != out->tensor.rank) {
    return tqc__tosa_fail(c, "result shape %s does not match the slice sizes %s",
                          tqc__tosa_dims_text(out->tensor.dims, out->tensor.rank).s,
                          tqc__tosa_dims_text(sizes, rank).s);
  }
  return NULL;
}
