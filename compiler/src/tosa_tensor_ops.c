/* TOSA tensor operators: convolutions (conv2d, conv3d, depthwise_conv2d, transpose_conv2d),
 * pooling (max_pool2d, avg_pool2d) and matmul: their type combinations, attributes and output
 * shapes. */
#include "torq/base/checked.h"
#include "tosa_internal.h"

#define E(x) TQC_EM(TQC_E_##x)

/* ---- Type combinations ---------------------------------------------------------------------- */

/* One supported combination: input `a`, second input `b` (weights, matmul's B; OTHER when the
 * op has none), accumulator `acc` (OTHER when the op has no acc_type) and the result types. */
typedef struct combo_s {
  tqc_tosa_elem_t a, b, acc;
  uint32_t out;
} combo_t;

/* Convolutions (TOSA 1.0 CONV2D's supported data types). */
/* clang-format off */
static const combo_t conv_combos[] = {
    {TQC_E_I8, TQC_E_I8, TQC_E_I32, E(I32)},
    {TQC_E_I8, TQC_E_I4, TQC_E_I32, E(I32)},
    /* i16 x i8 accumulates in i48. An i64 result is not TOSA 1.0, but MLIR 22's verifier
     * accepts it (the reference lowering widens the accumulator), so it is taken here too. */
    {TQC_E_I16, TQC_E_I8, TQC_E_I48, E(I48) | E(I64)},
    {TQC_E_F16, TQC_E_F16, TQC_E_F16, E(F16)},
    {TQC_E_F16, TQC_E_F16, TQC_E_F32, E(F16)},
    {TQC_E_BF16, TQC_E_BF16, TQC_E_F32, E(BF16)},
    {TQC_E_F32, TQC_E_F32, TQC_E_F32, E(F32)},
};
/* clang-format on */

/* clang-format off */
static const combo_t avg_pool_combos[] = {
    {TQC_E_I8, TQC_E_OTHER, TQC_E_I32, E(I8)},
    {TQC_E_I16, TQC_E_OTHER, TQC_E_I32, E(I16)},
    {TQC_E_F16, TQC_E_OTHER, TQC_E_F16, E(F16)},
    {TQC_E_F16, TQC_E_OTHER, TQC_E_F32, E(F16)},
    {TQC_E_BF16, TQC_E_OTHER, TQC_E_F32, E(BF16)},
    {TQC_E_F32, TQC_E_OTHER, TQC_E_F32, E(F32)},
};
/* clang-format on */

/* matmul: TOSA 1.0 gives i8 -> i32, i16 -> i48, f16 -> f16 or f32, bf16 -> f32, f32 -> f32.
 * The corpus also has i8 x i8 -> i16, i16 x i16 -> i16 and bf16 x bf16 -> bf16 (REFERENCE.md:
 * matmul-notile, matmul-in-int8-out-int16-*, matmul-in-int16-out-int16, disable-matmul-bf16*),
 * and Torq models have i16 x i16 -> i32: not valid TOSA 1.0, but MLIR 22 verifies them; they are
 * accepted here and accumulate in the result type (wrapping), as MLIR's own lowering does. */
/* clang-format off */
static const combo_t matmul_combos[] = {
    {TQC_E_I8, TQC_E_I8, TQC_E_OTHER, E(I32) | E(I16)},
    {TQC_E_I16, TQC_E_I16, TQC_E_OTHER, E(I48) | E(I32) | E(I16)},
    {TQC_E_F16, TQC_E_F16, TQC_E_OTHER, E(F16) | E(F32)},
    {TQC_E_BF16, TQC_E_BF16, TQC_E_OTHER, E(F32) | E(BF16)},
    {TQC_E_F32, TQC_E_F32, TQC_E_OTHER, E(F32)},
};
/* clang-format on */

/* Finds the combination of `a`, `b` (NULL when none), `acc` (NULL when none) and `out`, with a
 * message naming the first type that has none. */
static tq_status_t check_combo(const tqc_tosa_ctx_t *c, const combo_t *combos, size_t n,
                               const tqc_type_t *a, const char *b_what, const tqc_type_t *b,
                               const tqc_type_t *acc, const tqc_type_t *out) {
  tqc_tosa_elem_t ea = tqc__tosa_elem(a);
  tqc_tosa_elem_t eb = b ? tqc__tosa_elem(b) : TQC_E_OTHER;
  tqc_tosa_elem_t eacc = acc ? tqc__tosa_elem(acc) : TQC_E_OTHER;
  uint32_t amask = 0, bmask = 0, accmask = 0, outmask = 0;
  for (size_t i = 0; i < n; i++) {
    amask |= TQC_EM(combos[i].a);
    if (combos[i].a != ea) continue;
    bmask |= TQC_EM(combos[i].b);
    if (combos[i].b != eb) continue;
    accmask |= TQC_EM(combos[i].acc);
    if (combos[i].acc != eacc) continue;
    outmask |= combos[i].out;
  }
  TQ_TRY(tqc__tosa_expect_elem_in(c, "input", a, amask));
  tqc_tosa_text_t at = tqc__tosa_elem_text(a);
  if (b && !(bmask & TQC_EM(eb))) {
    return tqc__tosa_fail(c, "%s element type %s is not supported with %s input (expected %s)",
                          b_what, tqc__tosa_elem_text(b).s, at.s, tqc__tosa_mask_text(bmask).s);
  }
  if (acc && !(accmask & TQC_EM(eacc))) {
    return tqc__tosa_fail(c, "acc_type %s is not supported with %s input (expected %s)",
                          tqc__tosa_type_text(acc).s, at.s, tqc__tosa_mask_text(accmask).s);
  }
  if (!(outmask & TQC_EM(tqc__tosa_elem(out)))) {
    return tqc__tosa_fail(c, "result element type %s is not supported with %s input (expected %s)",
                          tqc__tosa_elem_text(out).s, at.s, tqc__tosa_mask_text(outmask).s);
  }
  return NULL;
}

static tq_status_t acc_type(const tqc_tosa_ctx_t *c, const tqc_type_t **out_type) {
  const tqc_attr_t *a = tqc_op_attr(c->op, "acc_type");
  *out_type = NULL;
  if (!a) return tqc__tosa_fail(c, "missing attribute 'acc_type'");
  if (a->kind != TQC_ATTR_TYPE || !tqc_type_is_scalar(a->type)) {
    return tqc__tosa_fail(c, "attribute 'acc_type' must be an element type");
  }
  *out_type = a->type;
  return NULL;
}

/* ---- Sliding windows ------------------------------------------------------------------------ */

static const char *const axis_names[] = {"depth", "height", "width"};

static tq_status_t overflow(const tqc_tosa_ctx_t *c) {
  return tqc__tosa_fail(c, "output size arithmetic overflows");
}

static tq_status_t all_at_least(const tqc_tosa_ctx_t *c, const char *name, const int64_t *v,
                                size_t n, int64_t min) {
  for (size_t i = 0; i < n; i++) {
    if (v[i] < min) {
      return tqc__tosa_fail(c, "attribute '%s' value %lld is below %lld", name, (long long)v[i],
                            (long long)min);
    }
  }
  return NULL;
}

/* One output dimension of a convolution or pooling window:
 * out = (in + pad_before + pad_after - span) / stride + 1, where span is the dilated kernel
 * size (convolutions: (k - 1) * dilation + 1; pooling: k). TOSA requires the division to be
 * exact (idiv_check) and the result positive. */
static tq_status_t window_dim(const tqc_tosa_ctx_t *c, const char *axis, int64_t in, int64_t pb,
                              int64_t pa, int64_t k, int64_t dilation, int64_t stride,
                              int64_t *out_dim) {
  int64_t span, padded, num;
  if (!tq_i64_mul(k - 1, dilation, &span) || !tq_i64_add(span, 1, &span) ||
      !tq_i64_add(in, pb, &padded) || !tq_i64_add(padded, pa, &padded)) {
    return overflow(c);
  }
  num = padded - span;
  if (num < 0) {
    return tqc__tosa_fail(c, "the kernel %s %lld (dilated %lld) exceeds the padded input %s %lld",
                          axis, (long long)k, (long long)span, axis, (long long)padded);
  }
  if (num % stride != 0) {
    return tqc__tosa_fail(c,
                          "padded input %s %lld minus kernel extent %lld is %lld, not divisible by "
                          "stride %lld",
                          axis, (long long)padded, (long long)span, (long long)num,
                          (long long)stride);
  }
  *out_dim = num / stride + 1;
  return NULL;
}

/* ---- Convolutions --------------------------------------------------------------------------- */

/* What every convolution checks first: operand 0 the input and 1 the weights, both of `rank`;
 * 2 the bias, of rank 1 and the result's element type; 3 and 4 their zero points; the
 * acc_type; and the element-type combination. */
static tq_status_t check_conv_operands(const tqc_tosa_ctx_t *c, size_t rank) {
  const tqc_type_t *in = tqc__tosa_operand(c, 0), *w = tqc__tosa_operand(c, 1);
  const tqc_type_t *bias = tqc__tosa_operand(c, 2), *out = tqc__tosa_result(c, 0);
  const tqc_type_t *acc;
  TQ_TRY(acc_type(c, &acc));
  TQ_TRY(check_combo(c, conv_combos, sizeof(conv_combos) / sizeof(conv_combos[0]), in, "weight", w,
                     acc, out));
  TQ_TRY(tqc__tosa_expect_same_elem(c, "bias", bias, out));
  TQ_TRY(tqc__tosa_zero_point(c, 3, "input_zp", in));
  TQ_TRY(tqc__tosa_zero_point(c, 4, "weight_zp", w));
  TQ_TRY(tqc__tosa_expect_rank(c, "input", in, rank));
  TQ_TRY(tqc__tosa_expect_rank(c, "weight", w, rank));
  TQ_TRY(tqc__tosa_expect_rank(c, "bias", bias, 1));
  return NULL;
}

tq_status_t tqc__tosa_check_conv(const tqc_tosa_ctx_t *c, uint32_t types) {
  (void)types;
  int depthwise = tqc_op_is(c->op, "tosa.depthwise_conv2d");
  size_t sp = tqc_op_is(c->op, "tosa.conv3d") ? 3 : 2; /* spatial dimensions */
  const char *const *names = axis_names + (3 - sp);
  const tqc_type_t *in = tqc__tosa_operand(c, 0), *w = tqc__tosa_operand(c, 1);
  const tqc_type_t *bias = tqc__tosa_operand(c, 2), *out = tqc__tosa_result(c, 0);
  TQ_TRY(check_conv_operands(c, sp + 2));
  int64_t pad[6], stride[3], dilation[3];
  TQ_TRY(tqc__tosa_attr_ints(c, "pad", 64, 2 * sp, pad));
  TQ_TRY(tqc__tosa_attr_ints(c, "stride", 64, sp, stride));
  TQ_TRY(tqc__tosa_attr_ints(c, "dilation", 64, sp, dilation));
  TQ_TRY(all_at_least(c, "pad", pad, 2 * sp, 0));
  TQ_TRY(all_at_least(c, "stride", stride, sp, 1));
  TQ_TRY(all_at_least(c, "dilation", dilation, sp, 1));

  /* conv: input [N, spatial..., IC], weight [OC, kernel..., IC]. depthwise: weight
   * [KH, KW, C, M], OC = C * M. */
  int64_t ic = tqc__tosa_dim(in, sp + 1), oc;
  const int64_t *kernel;
  if (depthwise) {
    kernel = w->tensor.dims;
    if (tqc__tosa_dim(w, 2) != ic) {
      return tqc__tosa_fail(c, "weight channels %lld do not match the input channels %lld",
                            (long long)tqc__tosa_dim(w, 2), (long long)ic);
    }
    if (!tq_i64_mul(ic, tqc__tosa_dim(w, 3), &oc)) return overflow(c);
  } else {
    kernel = w->tensor.dims + 1;
    if (tqc__tosa_dim(w, sp + 1) != ic) {
      return tqc__tosa_fail(c, "weight input channels %lld do not match the input channels %lld",
                            (long long)tqc__tosa_dim(w, sp + 1), (long long)ic);
    }
    oc = tqc__tosa_dim(w, 0);
  }
  int64_t bc = tqc__tosa_dim(bias, 0);
  if (bc != oc && bc != 1) {
    return tqc__tosa_fail(c, "bias size %lld must be 1 or the output channels %lld", (long long)bc,
                          (long long)oc);
  }
  tqc_tosa_shape_t s = {sp + 2, {0}};
  s.dims[0] = tqc__tosa_dim(in, 0);
  for (size_t d = 0; d < sp; d++) {
    TQ_TRY(window_dim(c, names[d], tqc__tosa_dim(in, d + 1), pad[2 * d], pad[2 * d + 1], kernel[d],
                      dilation[d], stride[d], &s.dims[d + 1]));
  }
  s.dims[sp + 1] = oc;
  return tqc__tosa_expect_shape(c, "result", out, &s);
}

/* transpose_conv2d: input [N, IH, IW, IC], weight [OC, KH, KW, IC], out_pad [top, bottom, left,
 * right], OH = (IH - 1) * stride_y + out_pad_top + out_pad_bottom + KH. */
tq_status_t tqc__tosa_check_transpose_conv2d(const tqc_tosa_ctx_t *c, uint32_t types) {
  (void)types;
  const tqc_type_t *in = tqc__tosa_operand(c, 0), *w = tqc__tosa_operand(c, 1);
  const tqc_type_t *bias = tqc__tosa_operand(c, 2), *out = tqc__tosa_result(c, 0);
  TQ_TRY(check_conv_operands(c, 4));
  int64_t out_pad[4], stride[2];
  TQ_TRY(tqc__tosa_attr_ints(c, "out_pad", 64, 4, out_pad));
  TQ_TRY(tqc__tosa_attr_ints(c, "stride", 64, 2, stride));
  TQ_TRY(all_at_least(c, "stride", stride, 2, 1));
  if (tqc__tosa_dim(w, 3) != tqc__tosa_dim(in, 3)) {
    return tqc__tosa_fail(c, "weight input channels %lld do not match the input channels %lld",
                          (long long)tqc__tosa_dim(w, 3), (long long)tqc__tosa_dim(in, 3));
  }
  int64_t oc = tqc__tosa_dim(w, 0), bc = tqc__tosa_dim(bias, 0);
  if (bc != oc && bc != 1) {
    return tqc__tosa_fail(c, "bias size %lld must be 1 or the output channels %lld", (long long)bc,
                          (long long)oc);
  }
  tqc_tosa_shape_t s = {4, {tqc__tosa_dim(in, 0), 0, 0, oc}};
  for (size_t d = 0; d < 2; d++) {
    int64_t k = tqc__tosa_dim(w, d + 1), v;
    for (size_t i = 0; i < 2; i++) {
      if (out_pad[2 * d + i] <= -k) {
        return tqc__tosa_fail(c, "out_pad value %lld must be greater than -%lld (the kernel %s)",
                              (long long)out_pad[2 * d + i], (long long)k, axis_names[d + 1]);
      }
    }
    if (!tq_i64_mul(tqc__tosa_dim(in, d + 1) - 1, stride[d], &v) ||
        !tq_i64_add(v, out_pad[2 * d], &v) || !tq_i64_add(v, out_pad[2 * d + 1], &v) ||
        !tq_i64_add(v, k, &v)) {
      return overflow(c);
    }
    s.dims[d + 1] = v;
  }
  return tqc__tosa_expect_shape(c, "result", out, &s);
}

/* ---- Pooling -------------------------------------------------------------------------------- */

tq_status_t tqc__tosa_check_pool(const tqc_tosa_ctx_t *c, uint32_t types) {
  const tqc_type_t *in = tqc__tosa_operand(c, 0), *out = tqc__tosa_result(c, 0);
  if (tqc_op_is(c->op, "tosa.avg_pool2d")) {
    const tqc_type_t *acc;
    TQ_TRY(acc_type(c, &acc));
    TQ_TRY(check_combo(c, avg_pool_combos, sizeof(avg_pool_combos) / sizeof(avg_pool_combos[0]), in,
                       NULL, NULL, acc, out));
    TQ_TRY(tqc__tosa_zero_point(c, 1, "input_zp", in));
    TQ_TRY(tqc__tosa_zero_point(c, 2, "output_zp", out));
  } else {
    TQ_TRY(tqc__tosa_expect_elem_in(c, "input", in, types));
    TQ_TRY(tqc__tosa_check_nan_mode(c));
  }
  TQ_TRY(tqc__tosa_expect_same_elem(c, "result", out, in));
  TQ_TRY(tqc__tosa_expect_rank(c, "input", in, 4));
  int64_t kernel[2], stride[2], pad[4];
  TQ_TRY(tqc__tosa_attr_ints(c, "kernel", 64, 2, kernel));
  TQ_TRY(tqc__tosa_attr_ints(c, "stride", 64, 2, stride));
  TQ_TRY(tqc__tosa_attr_ints(c, "pad", 64, 4, pad));
  TQ_TRY(all_at_least(c, "kernel", kernel, 2, 1));
  TQ_TRY(all_at_least(c, "stride", stride, 2, 1));
  TQ_TRY(all_at_least(c, "pad", pad, 4, 0));
  tqc_tosa_shape_t s = {4, {tqc__tosa_dim(in, 0), 0, 0, tqc__tosa_dim(in, 3)}};
  for (size_t d = 0; d < 2; d++) {
    /* A window made only of padding has no value (TOSA: pad < kernel). */
    if (pad[2 * d] >= kernel[d] || pad[2 * d + 1] >= kernel[d]) {
      return tqc__tosa_fail(c, "padding %lld, %lld must be less than the kernel %s %lld",
                            (long long)pad[2 * d], (long long)pad[2 * d + 1], axis_names[d + 1],
                            (long long)kernel[d]);
    }
    TQ_TRY(window_dim(c, axis_names[d + 1], tqc__tosa_dim(in, d + 1), pad[2 * d], pad[2 * d + 1],
                      kernel[d], 1, stride[d], &s.dims[d + 1]));
  }
  return tqc__tosa_expect_shape(c, "result", out, &s);
}

/* ---- matmul --------------------------------------------------------------------------------- */

/* [N, H, C] x [N, C, W] -> [N, H, W]. */
tq_status_t tqc__tosa_check_matmul(const tqc_tosa_ctx_t *c, uint32_t types) {
  (void)types;
  const tqc_type_t *a = tqc__tosa_operand(c, 0), *b = tqc__tosa_operand(c, 1);
  const tqc_type_t *out = tqc__tosa_result(c, 0);
  TQ_TRY(check_combo(c, matmul_combos, sizeof(matmul_combos) / sizeof(matmul_combos[0]), a, "B", b,
                     NULL, out));
  TQ_TRY(tqc__tosa_zero_point(c, 2, "a_zp", a));
  TQ_TRY(tqc__tosa_zero_point(c, 3, "b_zp", b));
  TQ_TRY(tqc__tosa_expect_rank(c, "A", a, 3));
  TQ_TRY(tqc__tosa_expect_rank(c, "B", b, 3));
  if (tqc__tosa_dim(b, 0) != tqc__tosa_dim(a, 0)) {
    return tqc__tosa_fail(c, "B batch %lld does not match A batch %lld",
                          (long long)tqc__tosa_dim(b, 0), (long long)tqc__tosa_dim(a, 0));
  }
  if (tqc__tosa_dim(b, 1) != tqc__tosa_dim(a, 2)) {
    return tqc__tosa_fail(c, "B rows %lld do not match A columns %lld",
                          (long long)tqc__tosa_dim(b, 1), (long long)tqc__tosa_dim(a, 2));
  }
  tqc_tosa_shape_t s = {3, {tqc__tosa_dim(a, 0), tqc__tosa_dim(a, 1), tqc__tosa_dim(b, 2)}};
  return tqc__tosa_expect_shape(c, "result", out, &s);
}
