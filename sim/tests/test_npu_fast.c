/* The fast paths of the NPU model's MAC kernels (npu_mac.c: dot products in blocks of 8 channels,
 * four output channels at once, fully_connected's weights transposed, depthwise in int32
 * partial sums, the 8-bit output stage with every field hoisted) against the reference
 * interpreter, byte for byte, on the shapes where they could go wrong: output channels that are
 * not a multiple of four, strided and dilated taps, padding, zero points, per-tensor and
 * per-channel scales with shifts on both sides of 31 (double rounding), clamps, and 16-bit
 * inputs whose dot products need several int32 pieces. Each case is a row of a table. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>

#include "npu_helpers.h"

typedef enum fk_kind_e { FK_CONV, FK_DEPTHWISE, FK_FC } fk_kind_t;

typedef struct fk_case_s {
  const char *name;
  fk_kind_t kind;
  tqs_type_t in_t;
  int64_t in_lo, in_hi, w_lo, w_hi; /* the range of the random operands */
  /* conv2d / depthwise: N H W C input, OHWI / HWCM weights, NHWC result; fully_connected: [R, K]
   * input, [K, N] weights, [R, N] result (first two entries). */
  int64_t in[4], w[4], out[4];
  int64_t stride[2], dil[2], pad[4];
  int64_t izp, wzp;
  int n_scale;      /* 0: the accumulator type out; 1: per tensor; else one per channel */
  int double_round; /* with a scale */
  int shift0;       /* the shift of channel c is shift0 + c % 4 - 1 */
  int mult_bits;    /* multipliers in [2^(mult_bits - 1), 2^mult_bits) */
  tqs_type_t out_t;
  int64_t cmin, cmax;
} fk_case_t;

/* clang-format off */
static const fk_case_t fk_cases[] = {
    /* Taps one by one (dilation 2 across), stride 2, 7 output channels (4 + 3), per-channel
     * double rounding with shifts on both sides of 31. */
    {"conv2d_strided_dilated_oc7", FK_CONV, TQS_I8, -128, 127, -128, 127,
     {1, 7, 9, 16}, {7, 3, 3, 16}, {1, 4, 3, 7}, {2, 2}, {1, 2}, {1, 1, 1, 0},
     -5, 3, 7, 1, 31, 21, TQS_I8, -100, 90},
    /* Rows of taps as one contiguous dot product, per-tensor single rounding, a ReLU-like clamp. */
    {"conv2d_3x3_same_oc12", FK_CONV, TQS_I8, -128, 127, -128, 127,
     {1, 6, 5, 8}, {12, 3, 3, 8}, {1, 6, 5, 12}, {1, 1}, {1, 1}, {1, 1, 1, 1},
     -128, 0, 1, 0, 41, 31, TQS_I8, -128, 60},
    /* A 1x1 convolution to the accumulator type, no scale: the exact sums. */
    {"conv2d_1x1_i32_oc9", FK_CONV, TQS_I8, -128, 127, -128, 127,
     {1, 3, 4, 24}, {9, 1, 1, 24}, {1, 3, 4, 9}, {1, 1}, {1, 1}, {0, 0, 0, 0},
     17, -9, 0, 0, 0, 0, TQS_I32, INT32_MIN, INT32_MAX},
    /* i16 x i8 products near 2^22: 1024 of them overflow an int32, so the dot products run in
     * pieces of 504 (the chunk, 511, rounded down to the block); i48 results. */
    {"conv2d_i16_extremes_need_pieces", FK_CONV, TQS_I16, -32768, -32700, -128, -120,
     {1, 2, 2, 1024}, {5, 1, 1, 1024}, {1, 2, 2, 5}, {1, 1}, {1, 1}, {0, 0, 0, 0},
     0, 0, 0, 0, 0, 0, TQS_I64, -(INT64_C(1) << 47), (INT64_C(1) << 47) - 1},
    /* The same with a fused rescale of the i48 accumulator to i16 (16-bit multipliers), per
     * channel. */
    {"conv2d_i16_rescaled_per_channel", FK_CONV, TQS_I16, -32768, 32767, -128, 127,
     {1, 3, 3, 32}, {6, 2, 2, 32}, {1, 2, 2, 6}, {1, 1}, {1, 1}, {0, 0, 0, 0},
     0, 2, 6, 1, 27, 15, TQS_I16, -30000, 30000},
    /* Transposed weights, 6 columns (4 + 2), zero points, i32 results. */
    {"fully_connected_k72_n6", FK_FC, TQS_I8, -128, 127, -128, 127,
     {3, 72}, {72, 6}, {3, 6}, {0}, {0}, {0},
     -3, 11, 0, 0, 0, 0, TQS_I32, INT32_MIN, INT32_MAX},
    /* Per-channel single rounding to i8, 9 columns (8 + 1). */
    {"fully_connected_k64_n9_rescaled", FK_FC, TQS_I8, -128, 127, -128, 127,
     {5, 64}, {64, 9}, {5, 9}, {0}, {0}, {0},
     4, 0, 9, 0, 41, 31, TQS_I8, -128, 127},
    /* Channels in a block of 16 and a tail of 4, dilation, stride 2, padding, per-channel double
     * rounding. */
    {"depthwise_c20_strided_dilated", FK_DEPTHWISE, TQS_I8, -128, 127, -128, 127,
     {1, 9, 8, 20}, {3, 3, 20, 1}, {1, 3, 4, 20}, {2, 2}, {2, 1}, {1, 0, 1, 1},
     -128, 2, 20, 1, 32, 23, TQS_I8, -128, 100},
    /* A 5x5 window, 40 channels, per-tensor double rounding. */
    {"depthwise_5x5_c40", FK_DEPTHWISE, TQS_I8, -128, 127, -128, 127,
     {1, 6, 6, 40}, {5, 5, 40, 1}, {1, 6, 6, 40}, {1, 1}, {1, 1}, {2, 2, 2, 2},
     9, -1, 1, 1, 42, 31, TQS_I8, -128, 127},
};
/* clang-format on */

static int fk_fc(const fk_case_t *c) {
  return c->kind == FK_FC;
}

START_TEST(npu_fast_mac_kernels_match_reference) {
  const fk_case_t *c = &fk_cases[_i];
  tn_seed = 100 + (uint64_t)_i;
  int fc = fk_fc(c);
  int wide = c->in_t == TQS_I16;
  tqs_type_t acc_t = wide ? TQS_I64 : TQS_I32; /* TQS_I64: TOSA's i48 */
  int64_t oc = fc ? c->out[1] : c->out[3];
  tqs_tensor_t *x, *w, *b = NULL, *acc, *want;
  if (fc) {
    x = tn_random(c->in_t, TH_SHAPE(1, c->in[0], c->in[1]), c->in_lo, c->in_hi);
    w = tn_random(c->in_t, TH_SHAPE(1, c->w[0], c->w[1]), c->w_lo, c->w_hi);
    acc = th_tensor_i(acc_t, TH_SHAPE(1, c->out[0], c->out[1]), NULL);
    TH_OK(tqs_ref_run("matmul", TH_NO_ATTRS,
                      TH_INS(x, w, th_one(c->in_t, c->izp), th_one(c->in_t, c->wzp)),
                      TH_OUTS(acc)));
  } else {
    x = tn_random(c->in_t, TH_SHAPE(c->in[0], c->in[1], c->in[2], c->in[3]), c->in_lo, c->in_hi);
    w = tn_random(TQS_I8, TH_SHAPE(c->w[0], c->w[1], c->w[2], c->w[3]), c->w_lo, c->w_hi);
    b = tn_random(acc_t, TH_SHAPE(oc), -20000, 20000);
    acc = th_tensor_i(acc_t, TH_SHAPE(c->out[0], c->out[1], c->out[2], c->out[3]), NULL);
    TH_OK(tqs_ref_run(c->kind == FK_CONV ? "conv2d" : "depthwise_conv2d",
                      TH_ATTRS(TQS_ATTR_I("pad", c->pad[0], c->pad[1], c->pad[2], c->pad[3]),
                               TQS_ATTR_I("stride", c->stride[0], c->stride[1]),
                               TQS_ATTR_I("dilation", c->dil[0], c->dil[1]),
                               TQS_ATTR_S("acc_type", c->in_t == TQS_I16 ? "i48" : "i32")),
                      TH_INS(x, w, b, th_one(c->in_t, c->izp), th_one(TQS_I8, c->wzp)),
                      TH_OUTS(acc)));
  }
  /* 16-bit multipliers for the i48 accumulator (scale32 false). */
  static int32_t mult[64], shift[64];
  int n_scale = c->n_scale;
  for (int i = 0; i < n_scale; i++) {
    mult[i] = (int32_t)tn_rand(INT64_C(1) << (c->mult_bits - 1), (INT64_C(1) << c->mult_bits) - 1);
    shift[i] = c->shift0 + i % 4 - 1;
  }
  int64_t dims[4] = {c->out[0], c->out[1], c->out[2], c->out[3]};
  size_t rank = fc ? 2 : 4;
  if (fc) dims[0] = 1, dims[1] = c->out[0], dims[2] = c->out[1];
  size_t ref_rank = fc ? 3 : 4;
  want = acc; /* without a scale: the accumulator type, as it is */
  if (n_scale) {
    tqs_tensor_t *scaled = th_tensor_i(c->out_t, ref_rank, dims, NULL);
    int64_t mv[64], sv[64], ns = n_scale;
    for (int i = 0; i < n_scale; i++) mv[i] = mult[i], sv[i] = shift[i];
    TH_OK(tqs_ref_run(
        "rescale",
        TH_ATTRS(TQS_ATTR_I("scale32", !wide),
                 TQS_ATTR_S("rounding_mode", c->double_round ? "DOUBLE_ROUND" : "SINGLE_ROUND"),
                 TQS_ATTR_I("per_channel", n_scale > 1)),
        TH_INS(acc, th_tensor_i(wide ? TQS_I16 : TQS_I32, 1, &ns, mv),
               th_tensor_i(TQS_I8, 1, &ns, sv), th_one(acc_t, 0), th_one(c->out_t, 0)),
        TH_OUTS(scaled)));
    want = th_tensor_i(c->out_t, ref_rank, dims, NULL);
    TH_OK(tqs_ref_run("clamp",
                      TH_ATTRS(TQS_ATTR_I("min_val", c->cmin), TQS_ATTR_I("max_val", c->cmax)),
                      TH_INS(scaled), TH_OUTS(want)));
  }
  size_t n_out = 0;
  TH_OK(tqs_tensor_count(want, &n_out));

  Torq__KernelParams p = tn_params();
  p.input_type = (int)c->in_t == TQS_I16 ? TORQ__ELEMENT_TYPE__I16 : TORQ__ELEMENT_TYPE__I8;
  p.weight_type = fc ? p.input_type : TORQ__ELEMENT_TYPE__I8;
  p.output_type = c->out_t == TQS_I8    ? TORQ__ELEMENT_TYPE__I8
                  : c->out_t == TQS_I16 ? TORQ__ELEMENT_TYPE__I16
                  : c->out_t == TQS_I32 ? TORQ__ELEMENT_TYPE__I32
                                        : TORQ__ELEMENT_TYPE__I48;
  int64_t in_shape[4], w_shape[4], out_shape[4], stride[2], dil[2], pad[4];
  for (int i = 0; i < 4; i++)
    in_shape[i] = c->in[i], w_shape[i] = c->w[i], out_shape[i] = c->out[i];
  for (int i = 0; i < 2; i++) stride[i] = c->stride[i], dil[i] = c->dil[i];
  for (int i = 0; i < 4; i++) pad[i] = c->pad[i];
  p.input_shape = in_shape, p.n_input_shape = rank;
  p.weight_shape = w_shape, p.n_weight_shape = rank;
  p.output_shape = out_shape, p.n_output_shape = rank;
  if (!fc) {
    p.stride = stride, p.n_stride = 2;
    p.dilation = dil, p.n_dilation = 2;
    p.pad = pad, p.n_pad = 4;
  }
  p.input_zp = c->izp;
  p.weight_zp = c->wzp;
  p.multiplier = mult;
  p.shift = shift;
  p.n_multiplier = p.n_shift = (size_t)n_scale;
  p.double_round = c->double_round;
  p.clamp_min = c->cmin;
  p.clamp_max = c->cmax;
  size_t out_bytes = tn_bytes(want);
  static uint8_t out[16384];
  ck_assert_uint_le(out_bytes, sizeof(out));
  tqs_npu_result_t r;
  tn_op_t ops[3] = {TN_OP(x), TN_OP(w), {NULL, 0}};
  if (b) ops[2] = (tn_op_t)TN_OP(b);
  TH_OK(tn_kernel(fc                   ? "fully_connected"
                  : c->kind == FK_CONV ? "conv2d"
                                       : "depthwise_conv2d",
                  &p, ops, b ? 3 : 2, out, out_bytes, &r));
  tn_expect_bytes(out, want->data, out_bytes, c->name);
  /* The outputs are not all clamped or saturated: the case sees the arithmetic. */
  size_t inside = 0;
  for (size_t i = 0; i < n_out; i++) {
    int64_t v = tqs_tensor_get_i64(want, i);
    inside += v > c->cmin && v < c->cmax;
  }
  /* The i48 sums of the extremes pass 2^31: the int32 pieces were needed. */
  if (wide && !n_scale) ck_assert_int_gt(tqs_tensor_get_i64(want, 0), INT32_MAX);
  ck_assert_msg(inside * 2 > n_out, "%s: only %zu of %zu outputs inside the clamp", c->name, inside,
                n_out);
}
END_TEST

void tn_add_fast_tests(Suite *s) {
  TCase *tc = tn_tcase("fast_paths");
  tcase_add_loop_test(tc, npu_fast_mac_kernels_match_reference, 0,
                      (int)(sizeof(fk_cases) / sizeof(fk_cases[0])));
  suite_add_tcase(s, tc);
}
