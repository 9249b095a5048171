/* The NPU model (npu.h) on hand-built NSS programs: DMA of strided regions byte for byte, every
 * slice kernel against the reference interpreter (plus the output stage) on the same data,
 * and timing worked out by hand from the cost formulas. Malformed programs: test_npu_errors.c. */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npu_helpers.h"
#include "torq/sim/cost_model.h"

/* ---- DMA ------------------------------------------------------------------------------------- */

/* Task 0 gathers two strided XRAM regions into LRAM; task 1 scatters them into another buffer
 * with blocks of another size. The estimate charges bytes over throughput and 40 cycles of
 * set-up per transfer: 15 bytes (ceil(15 * 175 / 832) = 4 + 40) and 12 (3 + 40). The NPU model
 * moves each XRAM block in whole beats and bursts, after the descriptor's 40 cycles: a block of 3
 * or 5 bytes is one beat in one burst, (1 + 1.5) / 0.65 = 3.846 cycles; 12 dense bytes are two
 * beats, 3.5 / 0.65 = 5.385. DMA_IN: 40 + 3 blocks + 40 + 4 blocks = 80 + 7 * 3.846 = 106.9 ->
 * 107; DMA_OUT: 40 + 5 blocks + 40 + 5.385 = 80 + 19.231 + 5.385 = 104.6 -> 105. */
START_TEST(npu_dma_round_trips_strided_regions) {
  uint8_t src[64], dst[48];
  for (int i = 0; i < 64; i++) src[i] = (uint8_t)i;
  memset(dst, 0xee, sizeof(dst));
  tn_prog_t *p = tn_prog(7, 2);
  tn_work_t *in = tn_work(p, 0, TORQ__UNIT__DMA_IN, "DI0", NULL);
  TN_XRAM(in, 0, 3, 5); /* 3..7, 13..17, 23..27 */
  tn_strided(in, 1, 3, 10, 0, 0);
  TN_LRAM(in, 100, 15);
  TN_XRAM(in, 0, 1, 3); /* 1..3, 8..10, 21..23, 28..30 */
  tn_strided(in, 2, 2, 20, 2, 7);
  TN_LRAM(in, 200, 12);
  in->w.bytes = 27;
  tn_work_t *out = tn_work(p, 1, TORQ__UNIT__DMA_OUT, "DO0", NULL);
  TN_LRAM(out, 100, 15);
  TN_XRAM(out, 1, 2, 3); /* five blocks of 3 at 2, 6, 10, 14, 18 */
  tn_strided(out, 1, 5, 4, 0, 0);
  TN_LRAM(out, 200, 12);
  TN_XRAM(out, 1, 30, 12);
  tqs_xram_buffer_t xram[2] = {{src, sizeof(src)}, {dst, sizeof(dst)}};
  tqs_npu_result_t r;
  TH_OK(tqs_npu_run(tn_npu(), &p->p, xram, 2, NULL, &r));
  uint8_t expect[48];
  memset(expect, 0xee, sizeof(expect));
  const uint8_t stream[15] = {3, 4, 5, 6, 7, 13, 14, 15, 16, 17, 23, 24, 25, 26, 27};
  for (int b = 0; b < 5; b++) memcpy(expect + 2 + 4 * b, stream + 3 * b, 3);
  const uint8_t second[12] = {1, 2, 3, 8, 9, 10, 21, 22, 23, 28, 29, 30};
  memcpy(expect + 30, second, 12);
  tn_expect_bytes(dst, expect, sizeof(dst), "destination");
  ck_assert_uint_eq(tn_dma(15), 4);
  ck_assert_uint_eq(tn_dma(12), 3);
  tqs_hw_t hw = tn_hw();
  ck_assert_uint_eq(tqs_cost_dma(&hw, 15) + tqs_cost_dma(&hw, 12), 4 + 40 + 3 + 40);
  ck_assert_uint_eq(r.busy_cycles[TQS_UNIT_DMA_IN], 107);
  ck_assert_uint_eq(r.busy_cycles[TQS_UNIT_DMA_OUT], 105);
  ck_assert_uint_eq(r.cycles, 107 + TN_GAP + 105);
  ck_assert_uint_eq(r.tasks, 2);
}
END_TEST

/* ---- MAC kernels ----------------------------------------------------------------------------- */

/* conv2d of an i8 tile with both zero points, stride [2, 1], dilation [1, 2], pad [1, 0, 2, 1],
 * and the fused per-channel DOUBLE_ROUND rescale and clamp, against tosa.conv2d, tosa.rescale and
 * tosa.clamp of the reference interpreter. OH = (5 + 1 - 2 - 1) / 2 + 1 = 2, OW = (6 + 3 - 4 -
 * 1) + 1 = 5. */
START_TEST(npu_conv2d_tile_matches_reference_conv_rescale_clamp) {
  tn_seed = 1;
  tqs_tensor_t *x = tn_random(TQS_I8, TH_SHAPE(1, 5, 6, 3), -128, 127);
  tqs_tensor_t *w = tn_random(TQS_I8, TH_SHAPE(4, 3, 3, 3), -128, 127);
  tqs_tensor_t *b = tn_random(TQS_I32, TH_SHAPE(4), -5000, 5000);
  tqs_tensor_t *acc = th_tensor_i(TQS_I32, TH_SHAPE(1, 2, 5, 4), NULL);
  tqs_tensor_t *q = th_tensor_i(TQS_I8, TH_SHAPE(1, 2, 5, 4), NULL);
  tqs_tensor_t *want = th_tensor_i(TQS_I8, TH_SHAPE(1, 2, 5, 4), NULL);
  static int32_t mult[4] = {1073741824, 1518500250, 2000000000, 1234567890};
  static int32_t shift[4] = {35, 36, 40, 33};
  TH_OK(tqs_ref_run("conv2d",
                    TH_ATTRS(TQS_ATTR_I("pad", 1, 0, 2, 1), TQS_ATTR_I("stride", 2, 1),
                             TQS_ATTR_I("dilation", 1, 2), TQS_ATTR_S("acc_type", "i32")),
                    TH_INS(x, w, b, th_one(TQS_I8, -2), th_one(TQS_I8, 3)), TH_OUTS(acc)));
  tqs_tensor_t *m = th_tensor_i(TQS_I32, TH_SHAPE(4), TH_I(mult[0], mult[1], mult[2], mult[3]));
  tqs_tensor_t *s = th_tensor_i(TQS_I8, TH_SHAPE(4), TH_I(shift[0], shift[1], shift[2], shift[3]));
  TH_OK(tqs_ref_run("rescale",
                    TH_ATTRS(TQS_ATTR_I("scale32", 1), TQS_ATTR_S("rounding_mode", "DOUBLE_ROUND"),
                             TQS_ATTR_I("per_channel", 1)),
                    TH_INS(acc, m, s, th_one(TQS_I32, 0), th_one(TQS_I8, 5)), TH_OUTS(q)));
  TH_OK(tqs_ref_run("clamp", TH_ATTRS(TQS_ATTR_I("min_val", -100), TQS_ATTR_I("max_val", 90)),
                    TH_INS(q), TH_OUTS(want)));

  Torq__KernelParams p = tn_params();
  p.input_type = p.weight_type = p.output_type = TORQ__ELEMENT_TYPE__I8;
  TN_SET(p, input_shape, 1, 5, 6, 3);
  TN_SET(p, weight_shape, 4, 3, 3, 3);
  TN_SET(p, output_shape, 1, 2, 5, 4);
  TN_SET(p, stride, 2, 1);
  TN_SET(p, dilation, 1, 2);
  TN_SET(p, pad, 1, 0, 2, 1);
  p.input_zp = -2;
  p.weight_zp = 3;
  p.multiplier = mult;
  p.shift = shift;
  p.n_multiplier = p.n_shift = 4;
  p.double_round = 1;
  p.output_zp = 5;
  p.clamp_min = -100;
  p.clamp_max = 90;
  int8_t out[40];
  tqs_npu_result_t r;
  tn_op_t ops[3] = {TN_OP(x), TN_OP(w), TN_OP(b)};
  TH_OK(tn_kernel("conv2d", &p, ops, 3, out, sizeof(out), &r));
  tn_expect_bytes(out, want->data, sizeof(out), "conv2d");
  /* 2*5 outputs x 9 taps x 4 channels x 3 = 1080 MACs: ceil(1080 / 256) + 64 = 69 cycles. */
  ck_assert_uint_eq(r.busy_cycles[TQS_UNIT_SLICE0], 69);
  /* Not every output is clamped or saturated: the test sees the arithmetic. */
  int inside = 0;
  for (int i = 0; i < 40; i++) inside += out[i] > -100 && out[i] < 90;
  ck_assert_int_gt(inside, 10);
}
END_TEST

/* An i16 conv2d accumulates in i48, which takes 8 bytes per element (an int64, sign-extended):
 * the bias is the reference's i48 (= i64) tensor as it is, and without a rescale the result is
 * the reference's byte for byte. With a fused rescale (i16 result) the i48 accumulator is
 * scaled as tosa.rescale reads the reference's i48 result. */
START_TEST(npu_conv2d_i16_writes_i48_accumulators) {
  for (int fused = 0; fused < 2; fused++) {
    tn_seed = 2;
    tqs_tensor_t *x = tn_random(TQS_I16, TH_SHAPE(1, 3, 3, 4), -32768, 32767);
    tqs_tensor_t *w = tn_random(TQS_I8, TH_SHAPE(2, 2, 2, 4), -128, 127);
    tqs_tensor_t *b = th_tensor_i(TQS_I64, TH_SHAPE(2), TH_I(-(INT64_C(1) << 40), 123456789012));
    if (fused) {
      tqs_tensor_set_i64(b, 0, -(INT64_C(1) << 32));
      tqs_tensor_set_i64(b, 1, 4000000000);
    }
    tqs_tensor_t *acc = th_tensor_i(TQS_I64, TH_SHAPE(1, 2, 2, 2), NULL);
    tqs_tensor_t *want = fused ? th_tensor_i(TQS_I16, TH_SHAPE(1, 2, 2, 2), NULL) : acc;
    TH_OK(tqs_ref_run("conv2d",
                      TH_ATTRS(TQS_ATTR_I("pad", 0, 0, 0, 0), TQS_ATTR_I("stride", 1, 1),
                               TQS_ATTR_I("dilation", 1, 1), TQS_ATTR_S("acc_type", "i48")),
                      TH_INS(x, w, b, th_one(TQS_I16, 0), th_one(TQS_I8, 0)), TH_OUTS(acc)));
    static int32_t mult[1] = {23170}, shift[1] = {36};
    if (fused) {
      TH_OK(tqs_ref_run(
          "rescale",
          TH_ATTRS(TQS_ATTR_I("scale32", 0), TQS_ATTR_S("rounding_mode", "SINGLE_ROUND"),
                   TQS_ATTR_I("per_channel", 0)),
          TH_INS(acc, th_one(TQS_I16, mult[0]), th_one(TQS_I8, shift[0]), th_one(TQS_I64, 0),
                 th_one(TQS_I16, 3)),
          TH_OUTS(want)));
    }
    Torq__KernelParams p = tn_params();
    p.input_type = TORQ__ELEMENT_TYPE__I16;
    p.weight_type = TORQ__ELEMENT_TYPE__I8;
    p.output_type = fused ? TORQ__ELEMENT_TYPE__I16 : TORQ__ELEMENT_TYPE__I48;
    TN_SET(p, input_shape, 1, 3, 3, 4);
    TN_SET(p, weight_shape, 2, 2, 2, 4);
    TN_SET(p, output_shape, 1, 2, 2, 2);
    TN_SET(p, stride, 1, 1);
    TN_SET(p, dilation, 1, 1);
    TN_SET(p, pad, 0, 0, 0, 0);
    if (fused) {
      p.multiplier = mult;
      p.shift = shift;
      p.n_multiplier = p.n_shift = 1;
      p.output_zp = 3;
      p.clamp_min = INT16_MIN;
      p.clamp_max = INT16_MAX;
    } else {
      p.clamp_min = -(INT64_C(1) << 47);
      p.clamp_max = (INT64_C(1) << 47) - 1;
    }
    ck_assert_uint_eq(tn_bytes(b), 16);
    uint8_t out[64];
    size_t out_bytes = tn_bytes(want);
    ck_assert_uint_eq(out_bytes, fused ? 16 : 64);
    tqs_npu_result_t r;
    tn_op_t ops[3] = {TN_OP(x), TN_OP(w), TN_OP(b)};
    TH_OK(tn_kernel("conv2d", &p, ops, 3, out, out_bytes, &r));
    tn_expect_bytes(out, want->data, out_bytes, fused ? "i48 rescaled" : "i48");
    /* The accumulators go past 32 bits (the i48 path is exercised), and stored as int64. */
    int wide = 0;
    for (size_t i = 0; i < 8; i++) {
      int64_t a = tqs_tensor_get_i64(acc, i);
      wide += a > INT32_MAX || a < INT32_MIN;
    }
    ck_assert_int_gt(wide, 0);
    /* 4 outputs x 4 taps x 2 x 4 = 128 MACs at i16 (64 per cycle): 2 + 64. */
    ck_assert_uint_eq(r.busy_cycles[TQS_UNIT_SLICE0], 66);
    th_free_all();
  }
}
END_TEST

/* The i32 accumulator of an i8 MAC kernel overflows (inputs and weights near -128 with zero
 * points 127, so every term is 237^2 .. 255^2, and tens of thousands of terms per output): with a
 * fused rescale the NPU scales the accumulator wrapped to 32 bits, as reference conv2d (or
 * matmul) followed by reference rescale does, not the exact sum. conv2d: 1x5x5x1536 input,
 * 4x5x5x1536 weights, 38400 terms per output; fully_connected: [2, 40000] x [40000, 4]. The
 * last output channel has a third to a half of its weights at the zero point and stays inside
 * int32. */
START_TEST(npu_fused_rescale_reads_the_wrapped_i32_accumulator) {
  static int32_t mult[4] = {1073741824, 1073741824, 1518500250, 2000000000};
  static int32_t shift[4] = {55, 54, 55, 56};
  const int64_t IC = 1536, T = 25 * IC, K = 40000;
  for (int fc = 0; fc < 2; fc++) {
    tn_seed = 50 + (uint64_t)fc;
    tqs_tensor_t *x, *w, *b = NULL, *acc, *want;
    int64_t exact[8];
    size_t n_out;
    if (fc) {
      n_out = 8;
      x = tn_random(TQS_I8, TH_SHAPE(1, 2, K), -128, -110);
      w = tn_random(TQS_I8, TH_SHAPE(1, K, 4), -128, -110);
      for (int64_t k = 0; k < K; k += 3) tqs_tensor_set_i64(w, (size_t)(k * 4 + 3), 127);
      acc = th_tensor_i(TQS_I32, TH_SHAPE(1, 2, 4), NULL);
      want = th_tensor_i(TQS_I8, TH_SHAPE(1, 2, 4), NULL);
      TH_OK(tqs_ref_run("matmul", TH_NO_ATTRS,
                        TH_INS(x, w, th_one(TQS_I8, 127), th_one(TQS_I8, 127)), TH_OUTS(acc)));
      for (size_t o = 0; o < n_out; o++) {
        int64_t r = (int64_t)o / 4, n = (int64_t)o % 4, sum = 0;
        for (int64_t k = 0; k < K; k++)
          sum += (tqs_tensor_get_i64(x, (size_t)(r * K + k)) - 127) *
                 (tqs_tensor_get_i64(w, (size_t)(k * 4 + n)) - 127);
        exact[o] = sum;
      }
    } else {
      n_out = 4;
      x = tn_random(TQS_I8, TH_SHAPE(1, 5, 5, IC), -128, -110);
      w = tn_random(TQS_I8, TH_SHAPE(4, 5, 5, IC), -128, -110);
      for (int64_t i = 0; i < T; i += 2) tqs_tensor_set_i64(w, (size_t)(3 * T + i), 127);
      b = th_tensor_i(TQS_I32, TH_SHAPE(4), TH_I(1000, -1000, 0, 5));
      acc = th_tensor_i(TQS_I32, TH_SHAPE(1, 1, 1, 4), NULL);
      want = th_tensor_i(TQS_I8, TH_SHAPE(1, 1, 1, 4), NULL);
      TH_OK(tqs_ref_run("conv2d",
                        TH_ATTRS(TQS_ATTR_I("pad", 0, 0, 0, 0), TQS_ATTR_I("stride", 1, 1),
                                 TQS_ATTR_I("dilation", 1, 1), TQS_ATTR_S("acc_type", "i32")),
                        TH_INS(x, w, b, th_one(TQS_I8, 127), th_one(TQS_I8, 127)), TH_OUTS(acc)));
      for (size_t o = 0; o < n_out; o++) {
        int64_t sum = tqs_tensor_get_i64(b, o);
        for (int64_t i = 0; i < T; i++)
          sum += (tqs_tensor_get_i64(x, (size_t)i) - 127) *
                 (tqs_tensor_get_i64(w, (size_t)((int64_t)o * T + i)) - 127);
        exact[o] = sum;
      }
    }
    tqs_tensor_t *m = th_tensor_i(TQS_I32, TH_SHAPE(4), TH_I(mult[0], mult[1], mult[2], mult[3]));
    tqs_tensor_t *s =
        th_tensor_i(TQS_I8, TH_SHAPE(4), TH_I(shift[0], shift[1], shift[2], shift[3]));
    TH_OK(
        tqs_ref_run("rescale",
                    TH_ATTRS(TQS_ATTR_I("scale32", 1), TQS_ATTR_S("rounding_mode", "DOUBLE_ROUND"),
                             TQS_ATTR_I("per_channel", 1)),
                    TH_INS(acc, m, s, th_one(TQS_I32, 0), th_one(TQS_I8, -2)), TH_OUTS(want)));
    /* Channels 0..2 overflow once: their exact sums are positive, the wrapped ones negative, and
     * so are the reference's rescaled results; channel 3 does not overflow. */
    for (size_t o = 0; o < n_out; o++) {
      int64_t wrapped = tqs_tensor_get_i64(acc, o);
      ck_assert_int_eq((int64_t)(int32_t)(uint32_t)(uint64_t)exact[o], wrapped);
      if (o % 4 == 3) {
        ck_assert_int_eq(exact[o], wrapped);
        ck_assert_int_gt(tqs_tensor_get_i64(want, o), -2);
      } else {
        ck_assert_int_gt(exact[o], INT32_MAX);
        ck_assert_int_lt(wrapped, 0);
        ck_assert_int_lt(tqs_tensor_get_i64(want, o), -2);
      }
    }

    Torq__KernelParams p = tn_params();
    p.input_type = p.weight_type = p.output_type = TORQ__ELEMENT_TYPE__I8;
    if (fc) {
      TN_SET(p, input_shape, 2, 40000);
      TN_SET(p, weight_shape, 40000, 4);
      TN_SET(p, output_shape, 2, 4);
    } else {
      TN_SET(p, input_shape, 1, 5, 5, 1536);
      TN_SET(p, weight_shape, 4, 5, 5, 1536);
      TN_SET(p, output_shape, 1, 1, 1, 4);
      TN_SET(p, stride, 1, 1);
      TN_SET(p, dilation, 1, 1);
      TN_SET(p, pad, 0, 0, 0, 0);
    }
    p.input_zp = p.weight_zp = 127;
    p.multiplier = mult;
    p.shift = shift;
    p.n_multiplier = p.n_shift = 4;
    p.double_round = 1;
    p.output_zp = -2;
    p.clamp_min = INT8_MIN;
    p.clamp_max = INT8_MAX;
    int8_t out[8];
    tqs_npu_result_t r;
    tn_op_t ops[3] = {TN_OP(x), TN_OP(w), fc ? (tn_op_t){NULL, 0} : TN_OP(b)};
    TH_OK(tn_kernel(fc ? "fully_connected" : "conv2d", &p, ops, fc ? 2 : 3, out, n_out, &r));
    tn_expect_bytes(out, want->data, n_out, fc ? "fully_connected" : "conv2d");
    th_free_all();
  }
}
END_TEST

/* conv2d with many output channels and few inputs per tap runs over the channels (weights
 * transposed in scratch): same results as the reference. */
START_TEST(npu_conv2d_many_output_channels_matches_reference) {
  tn_seed = 5;
  tqs_tensor_t *x = tn_random(TQS_I8, TH_SHAPE(1, 4, 5, 3), -128, 127);
  tqs_tensor_t *w = tn_random(TQS_I8, TH_SHAPE(20, 2, 3, 3), -128, 127);
  tqs_tensor_t *b = tn_random(TQS_I32, TH_SHAPE(20), -100000, 100000);
  /* OH = (4 + 0 + 1 - 2) / 1 + 1 = 4, OW = (5 + 1 + 1 - 3) / 2 + 1 = 3. */
  tqs_tensor_t *want = th_tensor_i(TQS_I32, TH_SHAPE(1, 4, 3, 20), NULL);
  TH_OK(tqs_ref_run("conv2d",
                    TH_ATTRS(TQS_ATTR_I("pad", 0, 1, 1, 1), TQS_ATTR_I("stride", 1, 2),
                             TQS_ATTR_I("dilation", 1, 1), TQS_ATTR_S("acc_type", "i32")),
                    TH_INS(x, w, b, th_one(TQS_I8, -1), th_one(TQS_I8, 4)), TH_OUTS(want)));
  Torq__KernelParams p = tn_params();
  p.input_type = p.weight_type = TORQ__ELEMENT_TYPE__I8;
  p.output_type = TORQ__ELEMENT_TYPE__I32;
  TN_SET(p, input_shape, 1, 4, 5, 3);
  TN_SET(p, weight_shape, 20, 2, 3, 3);
  TN_SET(p, output_shape, 1, 4, 3, 20);
  TN_SET(p, stride, 1, 2);
  TN_SET(p, dilation, 1, 1);
  TN_SET(p, pad, 0, 1, 1, 1);
  p.input_zp = -1;
  p.weight_zp = 4;
  p.clamp_min = INT32_MIN;
  p.clamp_max = INT32_MAX;
  int32_t out[240];
  tqs_npu_result_t r;
  tn_op_t ops[3] = {TN_OP(x), TN_OP(w), TN_OP(b)};
  TH_OK(tn_kernel("conv2d", &p, ops, 3, out, sizeof(out), &r));
  tn_expect_bytes(out, want->data, sizeof(out), "conv2d by channel");
}
END_TEST

/* Weights are converted once and reused while their LRAM bytes stay the same: both slices of a
 * task share them, and weights loaded later into the same LRAM replace them. Tasks: 0 loads W1
 * and the input; 1 runs conv on both slices (rows 0-1 and 2-3); 2 loads W2 over W1 and stores
 * the first result; 3 runs conv with W2; 4 stores the second result. */
START_TEST(npu_reloaded_weights_replace_the_converted_ones) {
  tn_seed = 6;
  tqs_tensor_t *x = tn_random(TQS_I8, TH_SHAPE(1, 4, 4, 8), -128, 127);
  tqs_tensor_t *w1 = tn_random(TQS_I8, TH_SHAPE(16, 1, 1, 8), -128, 127);
  tqs_tensor_t *w2 = tn_random(TQS_I8, TH_SHAPE(16, 1, 1, 8), -128, 127);
  tqs_tensor_t *b = tn_random(TQS_I32, TH_SHAPE(16), -1000, 1000);
  tqs_tensor_t *want1 = th_tensor_i(TQS_I32, TH_SHAPE(1, 4, 4, 16), NULL);
  tqs_tensor_t *want2 = th_tensor_i(TQS_I32, TH_SHAPE(1, 4, 4, 16), NULL);
  TH_OK(tqs_ref_run("conv2d",
                    TH_ATTRS(TQS_ATTR_I("pad", 0, 0, 0, 0), TQS_ATTR_I("stride", 1, 1),
                             TQS_ATTR_I("dilation", 1, 1)),
                    TH_INS(x, w1, b, th_one(TQS_I8, 0), th_one(TQS_I8, 0)), TH_OUTS(want1)));
  TH_OK(tqs_ref_run("conv2d",
                    TH_ATTRS(TQS_ATTR_I("pad", 0, 0, 0, 0), TQS_ATTR_I("stride", 1, 1),
                             TQS_ATTR_I("dilation", 1, 1)),
                    TH_INS(x, w2, b, th_one(TQS_I8, 0), th_one(TQS_I8, 0)), TH_OUTS(want2)));
  Torq__KernelParams p = tn_params();
  p.input_type = p.weight_type = TORQ__ELEMENT_TYPE__I8;
  p.output_type = TORQ__ELEMENT_TYPE__I32;
  TN_SET(p, input_shape, 1, 2, 4, 8);
  TN_SET(p, weight_shape, 16, 1, 1, 8);
  TN_SET(p, output_shape, 1, 2, 4, 16);
  TN_SET(p, stride, 1, 1);
  TN_SET(p, dilation, 1, 1);
  TN_SET(p, pad, 0, 0, 0, 0);
  p.clamp_min = INT32_MIN;
  p.clamp_max = INT32_MAX;
  /* LRAM: W at 0 (128 bytes), bias at 128 (64), input at 256 (128), results at 512 and 1536. */
  int32_t out1[256], out2[256];
  tn_prog_t *pr = tn_prog(4, 5);
  tn_work_t *w = tn_work(pr, 0, TORQ__UNIT__DMA_IN, "DI0", NULL);
  TN_XRAM(w, 0, 0, 128);
  TN_LRAM(w, 0, 128);
  TN_XRAM(w, 2, 0, 64);
  TN_LRAM(w, 128, 64);
  TN_XRAM(w, 3, 0, 128);
  TN_LRAM(w, 256, 128);
  for (int pass = 0; pass < 2; pass++) {
    uint64_t res = pass ? 1536 : 512;
    for (int sl = 0; sl < 2; sl++) {
      w = tn_work(pr, pass ? 3 : 1, sl ? TORQ__UNIT__SLICE1 : TORQ__UNIT__SLICE0, sl ? "S1" : "S0",
                  "conv2d");
      TN_LRAM(w, 256 + 64u * (unsigned)sl, 64);
      TN_LRAM(w, 0, 128);
      TN_LRAM(w, 128, 64);
      TN_LRAM(w, res + 512u * (unsigned)sl, 512);
      w->w.params = &p;
    }
  }
  w = tn_work(pr, 2, TORQ__UNIT__DMA_IN, "DI1", NULL);
  TN_XRAM(w, 1, 0, 128);
  TN_LRAM(w, 0, 128);
  w = tn_work(pr, 2, TORQ__UNIT__DMA_OUT, "DO0", NULL);
  TN_LRAM(w, 512, 1024);
  TN_XRAM(w, 4, 0, 1024);
  w = tn_work(pr, 4, TORQ__UNIT__DMA_OUT, "DO1", NULL);
  TN_LRAM(w, 1536, 1024);
  TN_XRAM(w, 5, 0, 1024);
  tqs_xram_buffer_t xram[6] = {{w1->data, 128}, {w2->data, 128},         {b->data, 64},
                               {x->data, 128},  {(uint8_t *)out1, 1024}, {(uint8_t *)out2, 1024}};
  tqs_npu_result_t r;
  TH_OK(tqs_npu_run(tn_npu(), &pr->p, xram, 6, NULL, &r));
  tn_expect_bytes(out1, want1->data, sizeof(out1), "with W1");
  tn_expect_bytes(out2, want2->data, sizeof(out2), "with W2");
  /* Each slice: 2 * 4 * 16 * 8 = 1024 MACs -> 4 + 64 cycles, twice. */
  ck_assert_uint_eq(r.busy_cycles[TQS_UNIT_SLICE0], 2 * 68);
  ck_assert_uint_eq(r.busy_cycles[TQS_UNIT_SLICE1], 2 * 68);
}
END_TEST

/* depthwise_conv2d with channel multiplier 2, stride 2, pad [1, 1, 1, 0], zero points, and one
 * SINGLE_ROUND multiplier for every channel. OH = (5 + 2 - 3) / 2 + 1 = 3, OW = (4 + 1 - 3) / 2
 * + 1 = 2. */
START_TEST(npu_depthwise_matches_reference) {
  tn_seed = 3;
  tqs_tensor_t *x = tn_random(TQS_I8, TH_SHAPE(1, 5, 4, 3), -128, 127);
  tqs_tensor_t *w = tn_random(TQS_I8, TH_SHAPE(3, 3, 3, 2), -128, 127);
  tqs_tensor_t *b = tn_random(TQS_I32, TH_SHAPE(6), -1000, 1000);
  tqs_tensor_t *acc = th_tensor_i(TQS_I32, TH_SHAPE(1, 3, 2, 6), NULL);
  tqs_tensor_t *want = th_tensor_i(TQS_I8, TH_SHAPE(1, 3, 2, 6), NULL);
  TH_OK(tqs_ref_run("depthwise_conv2d",
                    TH_ATTRS(TQS_ATTR_I("pad", 1, 1, 1, 0), TQS_ATTR_I("stride", 2, 2),
                             TQS_ATTR_I("dilation", 1, 1), TQS_ATTR_S("acc_type", "i32")),
                    TH_INS(x, w, b, th_one(TQS_I8, 7), th_one(TQS_I8, -1)), TH_OUTS(acc)));
  TH_OK(tqs_ref_run("rescale",
                    TH_ATTRS(TQS_ATTR_I("scale32", 1), TQS_ATTR_S("rounding_mode", "SINGLE_ROUND"),
                             TQS_ATTR_I("per_channel", 0)),
                    TH_INS(acc, th_one(TQS_I32, 1431655765), th_one(TQS_I8, 39), th_one(TQS_I32, 0),
                           th_one(TQS_I8, -4)),
                    TH_OUTS(want)));
  static int32_t mult[1] = {1431655765}, shift[1] = {39};
  Torq__KernelParams p = tn_params();
  p.input_type = p.weight_type = p.output_type = TORQ__ELEMENT_TYPE__I8;
  TN_SET(p, input_shape, 1, 5, 4, 3);
  TN_SET(p, weight_shape, 3, 3, 3, 2);
  TN_SET(p, output_shape, 1, 3, 2, 6);
  TN_SET(p, stride, 2, 2);
  TN_SET(p, dilation, 1, 1);
  TN_SET(p, pad, 1, 1, 1, 0);
  p.input_zp = 7;
  p.weight_zp = -1;
  p.multiplier = mult;
  p.shift = shift;
  p.n_multiplier = p.n_shift = 1;
  p.output_zp = -4;
  p.clamp_min = -128;
  p.clamp_max = 127;
  int8_t out[36];
  tqs_npu_result_t r;
  tn_op_t ops[3] = {TN_OP(x), TN_OP(w), TN_OP(b)};
  TH_OK(tn_kernel("depthwise_conv2d", &p, ops, 3, out, sizeof(out), &r));
  tn_expect_bytes(out, want->data, sizeof(out), "depthwise_conv2d");
  /* 3*2 outputs x 9 taps x 6 channels = 324 MACs: 2 + 64. */
  ck_assert_uint_eq(r.busy_cycles[TQS_UNIT_SLICE0], 66);
}
END_TEST

/* fully_connected: rows of A times B with zero points, i32 result; and i8 x i8 -> i16, which
 * wraps the accumulator to 16 bits as the reference's matmul does. */
START_TEST(npu_fully_connected_matches_reference_matmul) {
  static const tqs_type_t outs[2] = {TQS_I32, TQS_I16};
  for (int t = 0; t < 2; t++) {
    tn_seed = 4 + (uint64_t)t;
    tqs_tensor_t *a = tn_random(TQS_I8, TH_SHAPE(1, 3, 70), -128, 127);
    tqs_tensor_t *b = tn_random(TQS_I8, TH_SHAPE(1, 70, 5), -128, 127);
    tqs_tensor_t *want = th_tensor_i(outs[t], TH_SHAPE(1, 3, 5), NULL);
    TH_OK(tqs_ref_run("matmul", TH_NO_ATTRS, TH_INS(a, b, th_one(TQS_I8, -3), th_one(TQS_I8, 11)),
                      TH_OUTS(want)));
    Torq__KernelParams p = tn_params();
    p.input_type = p.weight_type = TORQ__ELEMENT_TYPE__I8;
    p.output_type = t == 0 ? TORQ__ELEMENT_TYPE__I32 : TORQ__ELEMENT_TYPE__I16;
    TN_SET(p, input_shape, 3, 70);
    TN_SET(p, weight_shape, 70, 5);
    TN_SET(p, output_shape, 3, 5);
    p.input_zp = -3;
    p.weight_zp = 11;
    p.clamp_min = t == 0 ? INT32_MIN : INT16_MIN;
    p.clamp_max = t == 0 ? INT32_MAX : INT16_MAX;
    uint8_t out[60];
    size_t n = t == 0 ? 60 : 30;
    tqs_npu_result_t r;
    tn_op_t ops[2] = {TN_OP(a), TN_OP(b)};
    TH_OK(tn_kernel("fully_connected", &p, ops, 2, out, n, &r));
    tn_expect_bytes(out, want->data, n, t == 0 ? "fully_connected i32" : "fully_connected i16");
    /* 3 x 5 x 70 = 1050 MACs: 5 + 64. */
    ck_assert_uint_eq(r.busy_cycles[TQS_UNIT_SLICE0], 69);
  }
}
END_TEST

/* ---- Pools ----------------------------------------------------------------------------------- */

/* 3x3 windows, stride 2, pad [1, 1, 1, 1] over 1x6x5x2: border windows hold 4 or 6 positions,
 * which changes avg_pool2d's reciprocal; padding never wins in max_pool2d (all inputs negative
 * shows it). OH = (6 + 2 - 3) / 2 + 1 = 3, OW = (5 + 2 - 3) / 2 + 1 = 3. */
START_TEST(npu_pools_match_reference) {
  for (int avg = 0; avg < 2; avg++) {
    tn_seed = 10 + (uint64_t)avg;
    tqs_tensor_t *x = tn_random(TQS_I8, TH_SHAPE(1, 6, 5, 2), -128, avg ? 127 : -1);
    tqs_tensor_t *want = th_tensor_i(TQS_I8, TH_SHAPE(1, 3, 3, 2), NULL);
    if (avg) {
      TH_OK(tqs_ref_run("avg_pool2d",
                        TH_ATTRS(TQS_ATTR_I("kernel", 3, 3), TQS_ATTR_I("stride", 2, 2),
                                 TQS_ATTR_I("pad", 1, 1, 1, 1), TQS_ATTR_S("acc_type", "i32")),
                        TH_INS(x, th_one(TQS_I8, -5), th_one(TQS_I8, 9)), TH_OUTS(want)));
    } else {
      TH_OK(tqs_ref_run("max_pool2d",
                        TH_ATTRS(TQS_ATTR_I("kernel", 3, 3), TQS_ATTR_I("stride", 2, 2),
                                 TQS_ATTR_I("pad", 1, 1, 1, 1)),
                        TH_INS(x), TH_OUTS(want)));
    }
    Torq__KernelParams p = tn_params();
    p.input_type = p.output_type = TORQ__ELEMENT_TYPE__I8;
    TN_SET(p, input_shape, 1, 6, 5, 2);
    TN_SET(p, output_shape, 1, 3, 3, 2);
    TN_SET(p, kernel, 3, 3);
    TN_SET(p, stride, 2, 2);
    TN_SET(p, pad, 1, 1, 1, 1);
    if (avg) p.input_zp = -5, p.output_zp = 9;
    int8_t out[18];
    tqs_npu_result_t r;
    tn_op_t ops[1] = {TN_OP(x)};
    TH_OK(tn_kernel(avg ? "avg_pool2d" : "max_pool2d", &p, ops, 1, out, sizeof(out), &r));
    tn_expect_bytes(out, want->data, sizeof(out), avg ? "avg_pool2d" : "max_pool2d");
    /* 9 outputs x 9 taps x 2 channels = 162 elements at 64 per cycle: 3 + 64. */
    ck_assert_uint_eq(r.busy_cycles[TQS_UNIT_SLICE0], 67);
  }
}
END_TEST

/* ---- Elementwise ----------------------------------------------------------------------------- */

/* add and sub of i32 with a one-element b broadcast, wrapping on overflow; mul of i32 with a
 * rounding shift; against the reference with b as a [1] tensor broadcast to [N]. */
START_TEST(npu_add_sub_mul_broadcast_a_single_element) {
  static const char *const kernels[3] = {"add", "sub", "mul"};
  for (int k = 0; k < 3; k++) {
    tn_seed = 20 + (uint64_t)k;
    tqs_tensor_t *a = tn_random(TQS_I32, TH_SHAPE(1, 37), INT32_MIN, INT32_MAX);
    tqs_tensor_set_i64(a, 0, INT32_MAX); /* add/sub overflow on element 0 */
    int64_t bv = k == 2 ? 98765 : k == 0 ? 5 : -5;
    tqs_tensor_t *b = th_tensor_i(TQS_I32, TH_SHAPE(1, 1), TH_I(bv));
    tqs_tensor_t *want = th_tensor_i(TQS_I32, TH_SHAPE(1, 37), NULL);
    if (k == 2) {
      TH_OK(tqs_ref_run("mul", TH_NO_ATTRS, TH_INS(a, b, th_one(TQS_I8, 20)), TH_OUTS(want)));
    } else {
      TH_OK(tqs_ref_run(kernels[k], TH_NO_ATTRS, TH_INS(a, b), TH_OUTS(want)));
    }
    Torq__KernelParams p = tn_params();
    p.input_type = p.output_type = TORQ__ELEMENT_TYPE__I32;
    TN_SET(p, input_shape, 37);
    TN_SET(p, output_shape, 37);
    static int32_t shift[1] = {20};
    if (k == 2) p.shift = shift, p.n_shift = 1;
    int32_t out[37];
    tqs_npu_result_t r;
    tn_op_t ops[2] = {TN_OP(a), TN_OP(b)};
    TH_OK(tn_kernel(kernels[k], &p, ops, 2, out, sizeof(out), &r));
    tn_expect_bytes(out, want->data, sizeof(out), kernels[k]);
    /* 37 i32 elements at 16 per cycle: 3 + 64. */
    ck_assert_uint_eq(r.busy_cycles[TQS_UNIT_SLICE0], 67);
  }
}
END_TEST

/* rescale i32 -> i8 per channel (3 channels, the innermost index), DOUBLE_ROUND, zero points;
 * and i8 read as unsigned -> i16 with an unsigned result, one multiplier. */
START_TEST(npu_rescale_per_channel_and_unsigned_match_reference) {
  tn_seed = 30;
  tqs_tensor_t *x = tn_random(TQS_I32, TH_SHAPE(4, 3), -2000000, 2000000);
  tqs_tensor_t *want = th_tensor_i(TQS_I8, TH_SHAPE(4, 3), NULL);
  static int32_t mult[3] = {1518500250, 1073741824, 2101000000};
  static int32_t shift[3] = {40, 38, 44};
  TH_OK(tqs_ref_run("rescale",
                    TH_ATTRS(TQS_ATTR_I("scale32", 1), TQS_ATTR_S("rounding_mode", "DOUBLE_ROUND"),
                             TQS_ATTR_I("per_channel", 1)),
                    TH_INS(x, th_tensor_i(TQS_I32, TH_SHAPE(3), TH_I(mult[0], mult[1], mult[2])),
                           th_tensor_i(TQS_I8, TH_SHAPE(3), TH_I(shift[0], shift[1], shift[2])),
                           th_one(TQS_I32, 17), th_one(TQS_I8, -6)),
                    TH_OUTS(want)));
  Torq__KernelParams p = tn_params();
  p.input_type = TORQ__ELEMENT_TYPE__I32;
  p.output_type = TORQ__ELEMENT_TYPE__I8;
  TN_SET(p, input_shape, 4, 3);
  TN_SET(p, output_shape, 4, 3);
  p.multiplier = mult;
  p.shift = shift;
  p.n_multiplier = p.n_shift = 3;
  p.double_round = 1;
  p.input_zp = 17;
  p.output_zp = -6;
  TN_SET(p, extra, 0, 0);
  int8_t out[12];
  tqs_npu_result_t r;
  tn_op_t ops[1] = {TN_OP(x)};
  TH_OK(tn_kernel("rescale", &p, ops, 1, out, sizeof(out), &r));
  tn_expect_bytes(out, want->data, sizeof(out), "rescale per channel");
  ck_assert_uint_eq(r.busy_cycles[TQS_UNIT_SLICE0], 1 + 64); /* 12 at 16 per cycle (i32) */

  /* Unsigned: the bytes 0x00..0xff read as 0..255, input_zp 128; output_unsigned, zp 32768. */
  tqs_tensor_t *ux = tn_random(TQS_I8, TH_SHAPE(20), -128, 127);
  tqs_tensor_set_i64(ux, 0, -1); /* 255 unsigned */
  tqs_tensor_t *uwant = th_tensor_i(TQS_I16, TH_SHAPE(20), NULL);
  TH_OK(tqs_ref_run("rescale",
                    TH_ATTRS(TQS_ATTR_I("scale32", 1), TQS_ATTR_S("rounding_mode", "SINGLE_ROUND"),
                             TQS_ATTR_I("per_channel", 0), TQS_ATTR_I("input_unsigned", 1),
                             TQS_ATTR_I("output_unsigned", 1)),
                    TH_INS(ux, th_one(TQS_I32, 1717986918), th_one(TQS_I8, 32),
                           th_one(TQS_I8, -128), th_tensor_i(TQS_I16, TH_SHAPE(1), TH_I(-32768))),
                    TH_OUTS(uwant)));
  static int32_t um[1] = {1717986918}, us[1] = {32};
  Torq__KernelParams u = tn_params();
  u.input_type = TORQ__ELEMENT_TYPE__I8;
  u.output_type = TORQ__ELEMENT_TYPE__I16;
  TN_SET(u, input_shape, 20);
  TN_SET(u, output_shape, 20);
  u.multiplier = um;
  u.shift = us;
  u.n_multiplier = u.n_shift = 1;
  u.input_zp = 128;
  u.output_zp = 32768;
  TN_SET(u, extra, 1, 1);
  uint16_t uout[20];
  tn_op_t uops[1] = {TN_OP(ux)};
  TH_OK(tn_kernel("rescale", &u, uops, 1, uout, sizeof(uout), &r));
  tn_expect_bytes(uout, uwant->data, sizeof(uout), "rescale unsigned");
  /* 255 - 128 = 127; 127 * 0.4 (1717986918 / 2^32) -> 51 (rounded) + 32768 = 32819. */
  ck_assert_uint_eq(uout[0], 32819);
}
END_TEST

/* The scale step against the reference's rescale over random multipliers (negative ones
 * too), every shift 2..62 and both rounding modes, on full-range i32 values. */
START_TEST(npu_rescale_random_scales_match_reference) {
  static int32_t mult[8], shift[8];
  for (int round = 0; round < 2; round++) {
    for (int rep = 0; rep < 8; rep++) {
      tn_seed = 100 + (uint64_t)(round * 8 + rep);
      tqs_tensor_t *x = tn_random(TQS_I32, TH_SHAPE(32, 8), INT32_MIN, INT32_MAX);
      tqs_tensor_t *m = th_tensor_i(TQS_I32, TH_SHAPE(8), NULL);
      tqs_tensor_t *sh = th_tensor_i(TQS_I8, TH_SHAPE(8), NULL);
      for (int c = 0; c < 8; c++) {
        mult[c] = (int32_t)tn_rand(INT32_MIN, INT32_MAX);
        shift[c] = 2 + (rep * 8 + c) % 61;
        tqs_tensor_set_i64(m, (size_t)c, mult[c]);
        tqs_tensor_set_i64(sh, (size_t)c, shift[c]);
      }
      int64_t izp = tn_rand(-1000, 1000), ozp = tn_rand(-100, 100);
      tqs_tensor_t *want = th_tensor_i(TQS_I32, TH_SHAPE(32, 8), NULL);
      TH_OK(
          tqs_ref_run("rescale",
                      TH_ATTRS(TQS_ATTR_I("scale32", 1),
                               TQS_ATTR_S("rounding_mode", round ? "DOUBLE_ROUND" : "SINGLE_ROUND"),
                               TQS_ATTR_I("per_channel", 1)),
                      TH_INS(x, m, sh, th_one(TQS_I32, izp), th_one(TQS_I32, ozp)), TH_OUTS(want)));
      Torq__KernelParams p = tn_params();
      p.input_type = p.output_type = TORQ__ELEMENT_TYPE__I32;
      TN_SET(p, output_shape, 32, 8);
      p.multiplier = mult;
      p.shift = shift;
      p.n_multiplier = p.n_shift = 8;
      p.double_round = round;
      p.input_zp = izp;
      p.output_zp = ozp;
      int32_t out[256];
      tqs_npu_result_t r;
      tn_op_t ops[1] = {TN_OP(x)};
      TH_OK(tn_kernel("rescale", &p, ops, 1, out, sizeof(out), &r));
      tn_expect_bytes(out, want->data, sizeof(out), round ? "double round" : "single round");
      th_free_all();
    }
  }
}
END_TEST

START_TEST(npu_clamp_matches_reference) {
  tn_seed = 40;
  tqs_tensor_t *x = tn_random(TQS_I16, TH_SHAPE(50), -32768, 32767);
  tqs_tensor_t *want = th_tensor_i(TQS_I16, TH_SHAPE(50), NULL);
  TH_OK(tqs_ref_run("clamp", TH_ATTRS(TQS_ATTR_I("min_val", -1000), TQS_ATTR_I("max_val", 3000)),
                    TH_INS(x), TH_OUTS(want)));
  Torq__KernelParams p = tn_params();
  p.input_type = p.output_type = TORQ__ELEMENT_TYPE__I16;
  TN_SET(p, input_shape, 50);
  TN_SET(p, output_shape, 50);
  p.clamp_min = -1000;
  p.clamp_max = 3000;
  int16_t out[50];
  tqs_npu_result_t r;
  tn_op_t ops[1] = {TN_OP(x)};
  TH_OK(tn_kernel("clamp", &p, ops, 1, out, sizeof(out), &r));
  tn_expect_bytes(out, want->data, sizeof(out), "clamp");
  ck_assert_uint_eq(r.busy_cycles[TQS_UNIT_SLICE0], 2 + 64); /* 50 at 32 per cycle (i16) */
}
END_TEST

/* ---- Timing ---------------------------------------------------------------------------------- */

/* Three tasks, worked out by hand on the SL2610's NPU model (npu.h, "Time"):
 *   task 0 at 0: DMA_IN of 1000 bytes: 40 of set-up, then 125 beats in 8 bursts:
 *     40 + (125 + 12) / 0.65 = 250.77                                            -> ends 251
 *   task 1 at 251 + 16 = 267: DMA_IN 416 bytes: 40 + (52 + 6) / 0.65 = 129.23 -> 130, moving
 *     its 6.5 lines into LRAM bank 0 over [40, 129.23); SLICE0 add of 500 i8 (ceil(500 / 64)
 *     + 64 = 72) in bank 0 too, so it loses the lines that land while it works, [40, 72):
 *     6.5 * 32 / 89.23 = 2.33 -> 3 cycles: 75; SLICE1 the same (75); CSS call (8000) -> ends 8267
 *   task 2 at 8283: DMA_OUT 1000 bytes (251), CDMA 10 bytes (ceil(10 / 4) = 3)  -> ends 8534
 * The estimate (the cost model: 211 + 40 per transfer, 88 + 40, 72) differs unit by unit, and
 * here agrees on the total, which the CSS call bounds. */
START_TEST(npu_three_task_program_times_by_hand) {
  static uint8_t a[1000], b[416], o[1000];
  for (int i = 0; i < 1000; i++) a[i] = (uint8_t)(i * 7);
  for (int i = 0; i < 416; i++) b[i] = (uint8_t)i;
  tn_prog_t *p = tn_prog(3, 3);
  tn_work_t *w = tn_work(p, 0, TORQ__UNIT__DMA_IN, "DI0", NULL);
  TN_XRAM(w, 0, 0, 1000);
  TN_LRAM(w, 0, 1000);
  w = tn_work(p, 1, TORQ__UNIT__DMA_IN, "DI1", NULL);
  TN_XRAM(w, 1, 0, 416);
  TN_LRAM(w, 4096, 416);
  Torq__KernelParams k = tn_params();
  k.input_type = k.output_type = TORQ__ELEMENT_TYPE__I8;
  TN_SET(k, output_shape, 500);
  for (int s = 0; s < 2; s++) {
    w = tn_work(p, 1, s ? TORQ__UNIT__SLICE1 : TORQ__UNIT__SLICE0, s ? "S1" : "S0", "add");
    TN_LRAM(w, 500u * (unsigned)s, 500);
    TN_LRAM(w, 500u * (unsigned)s, 500); /* a + a */
    TN_LRAM(w, 2048 + 500u * (unsigned)s, 500);
    w->w.params = &k;
    w->w.macs = 500;
  }
  tn_work(p, 1, TORQ__UNIT__CSS, "CSS0", NULL);
  w = tn_work(p, 2, TORQ__UNIT__DMA_OUT, "DO0", NULL);
  TN_LRAM(w, 2048, 1000);
  TN_XRAM(w, 2, 0, 1000);
  w = tn_work(p, 2, TORQ__UNIT__CDMA, "CDMA0", NULL);
  w->w.bytes = 10;
  TN_LRAM(w, 8192, 10);
  tqs_xram_buffer_t xram[3] = {{a, sizeof(a)}, {b, sizeof(b)}, {o, sizeof(o)}};
  tn_events_t ev = {0};
  tqs_npu_observer_t obs = {tn_on_work, &ev};
  tqs_npu_result_t r;
  TH_OK(tqs_npu_run(tn_npu(), &p->p, xram, 3, &obs, &r));
  for (int i = 0; i < 1000; i++) ck_assert_uint_eq(o[i], (uint8_t)(a[i] * 2));
  ck_assert_uint_eq(r.cycles, 8534);
  ck_assert_uint_eq(r.tasks, 3);
  ck_assert_uint_eq(r.busy_cycles[TQS_UNIT_DMA_IN], 251 + 130);
  ck_assert_uint_eq(r.busy_cycles[TQS_UNIT_DMA_OUT], 251);
  ck_assert_uint_eq(r.busy_cycles[TQS_UNIT_SLICE0], 75);
  ck_assert_uint_eq(r.busy_cycles[TQS_UNIT_SLICE1], 75);
  ck_assert_uint_eq(r.busy_cycles[TQS_UNIT_CSS], 8000);
  ck_assert_uint_eq(r.busy_cycles[TQS_UNIT_CDMA], 3);
  static const struct {
    uint32_t task;
    tqs_unit_t unit;
    const char *id;
    uint64_t start, end;
  } want[7] = {
      {0, TQS_UNIT_DMA_IN, "DI0", 0, 251},     {1, TQS_UNIT_DMA_IN, "DI1", 267, 397},
      {1, TQS_UNIT_SLICE0, "S0", 267, 342},    {1, TQS_UNIT_SLICE1, "S1", 267, 342},
      {1, TQS_UNIT_CSS, "CSS0", 267, 8267},    {2, TQS_UNIT_DMA_OUT, "DO0", 8283, 8534},
      {2, TQS_UNIT_CDMA, "CDMA0", 8283, 8286},
  };
  ck_assert_uint_eq(ev.n, 7);
  for (int i = 0; i < 7; i++) {
    ck_assert_uint_eq(ev.ev[i].job_id, 3);
    ck_assert_uint_eq(ev.ev[i].task_index, want[i].task);
    ck_assert_int_eq(ev.ev[i].unit, want[i].unit);
    ck_assert_str_eq(ev.ev[i].trace_id, want[i].id);
    ck_assert_uint_eq(ev.ev[i].start_cycle, want[i].start);
    ck_assert_uint_eq(ev.ev[i].end_cycle, want[i].end);
  }
  /* The estimate: tqs_task_schedule, the rule the compiler uses, with the cost model's cycles.
   * Its units differ (DI1 128, the slices 72) but not its total here. */
  tqs_hw_t hw = tn_hw();
  tqs_task_timing_t t[3];
  memset(t, 0, sizeof(t));
  t[0].cycles[TQS_UNIT_DMA_IN] = tqs_cost_dma(&hw, 1000);
  t[1].cycles[TQS_UNIT_DMA_IN] = tqs_cost_dma(&hw, 416);
  t[1].cycles[TQS_UNIT_SLICE0] = t[1].cycles[TQS_UNIT_SLICE1] =
      tqs_cost_slice_elementwise(&hw, 500, 8);
  t[1].cycles[TQS_UNIT_CSS] = tqs_cost_css(&hw);
  t[2].cycles[TQS_UNIT_DMA_OUT] = tqs_cost_dma(&hw, 1000);
  t[2].cycles[TQS_UNIT_CDMA] = tqs_cost_cdma(&hw, 10);
  ck_assert_uint_eq(t[1].cycles[TQS_UNIT_DMA_IN], 88 + 40);
  ck_assert_uint_eq(tqs_task_schedule(&hw, t, 3), 8534);
}
END_TEST

/* The same program and inputs give the same bytes and cycles, and a run never sees what an
 * earlier run left in LRAM: LRAM starts zeroed. */
START_TEST(npu_runs_are_deterministic_and_start_from_zeroed_lram) {
  uint8_t src[64], out1[64], out2[64];
  for (int i = 0; i < 64; i++) src[i] = (uint8_t)(i + 1);
  /* Program A writes LRAM [0, 64); program B only stores LRAM [0, 64). */
  tn_prog_t *p = tn_prog(0, 1);
  tn_work_t *w = tn_work(p, 0, TORQ__UNIT__DMA_IN, "DI0", NULL);
  TN_XRAM(w, 0, 0, 64);
  TN_LRAM(w, 0, 64);
  tqs_xram_buffer_t xa[1] = {{src, 64}};
  tqs_npu_result_t r1, r2;
  TH_OK(tqs_npu_run(tn_npu(), &p->p, xa, 1, NULL, &r1));
  p = tn_prog(1, 1);
  w = tn_work(p, 0, TORQ__UNIT__DMA_OUT, "DO0", NULL);
  TN_LRAM(w, 0, 64);
  TN_XRAM(w, 0, 0, 64);
  tqs_xram_buffer_t xb1[1] = {{out1, 64}}, xb2[1] = {{out2, 64}};
  memset(out1, 0x55, 64);
  memset(out2, 0x66, 64);
  TH_OK(tqs_npu_run(tn_npu(), &p->p, xb1, 1, NULL, &r1));
  TH_OK(tqs_npu_run(tn_npu(), &p->p, xb2, 1, NULL, &r2));
  for (int i = 0; i < 64; i++) ck_assert_uint_eq(out1[i], 0);
  tn_expect_bytes(out1, out2, 64, "second run");
  ck_assert_uint_eq(r1.cycles, r2.cycles);
  ck_assert_uint_eq(r1.cycles, 55); /* 40 + (8 beats + 1.5) / 0.65 = 54.6 */
}
END_TEST

/* A new NPU model starts from a zeroed LRAM even where the one destroyed before it wrote, at
 * both ends of the LRAM (its block may be the same one, kept and cleared). */
START_TEST(npu_a_new_model_starts_from_zeroed_lram) {
  tqs_hw_t hw = tn_hw();
  const uint64_t high = hw.lram_bytes - 64;
  uint8_t src[64], out[128];
  memset(src, 0xC3, sizeof(src));
  for (int round = 0; round < 3; round++) {
    tqs_npu_t *a = NULL, *b = NULL;
    TH_OK(tqs_npu_create(&hw, &a));
    tn_prog_t *p = tn_prog(0, 2);
    tn_work_t *w = tn_work(p, 0, TORQ__UNIT__DMA_IN, "DI0", NULL);
    TN_XRAM(w, 0, 0, 64);
    TN_LRAM(w, 0, 64);
    w = tn_work(p, 1, TORQ__UNIT__DMA_IN, "DI1", NULL);
    TN_XRAM(w, 0, 0, 64);
    TN_LRAM(w, high, 64);
    tqs_xram_buffer_t xa[1] = {{src, 64}};
    tqs_npu_result_t r;
    TH_OK(tqs_npu_run(a, &p->p, xa, 1, NULL, &r));
    tqs_npu_destroy(a);
    TH_OK(tqs_npu_create(&hw, &b));
    p = tn_prog(1, 2);
    w = tn_work(p, 0, TORQ__UNIT__DMA_OUT, "DO0", NULL);
    TN_LRAM(w, 0, 64);
    TN_XRAM(w, 0, 0, 64);
    w = tn_work(p, 1, TORQ__UNIT__DMA_OUT, "DO1", NULL);
    TN_LRAM(w, high, 64);
    TN_XRAM(w, 0, 64, 64);
    memset(out, 0x55, sizeof(out));
    tqs_xram_buffer_t xb[1] = {{out, sizeof(out)}};
    TH_OK(tqs_npu_run(b, &p->p, xb, 1, NULL, &r));
    for (size_t i = 0; i < sizeof(out); i++)
      ck_assert_msg(out[i] == 0, "round %d, byte %zu: %u", round, i, out[i]);
    tqs_npu_destroy(b);
  }
}
END_TEST

/* The stages of a small pipeline over XRAM buffers 0 (source), 1 and 2 (stores), built in the
 * helpers' one program storage: the prologue loads buffer 0 into LRAM [0, 64); the steady state
 * stores LRAM [0, 64) into buffer 1 while it loads a second copy into [64, 128); the epilogue
 * stores [64, 128) into buffer 2. */
static const Torq__NssProgram *tn_stage(Torq__Stage stage, uint32_t job) {
  tn_prog_t *p = tn_prog(job, 1);
  p->p.stage = stage;
  tn_work_t *w;
  if (stage != TORQ__STAGE__EPILOGUE) {
    w = tn_work(p, 0, TORQ__UNIT__DMA_IN, "DI", NULL);
    TN_XRAM(w, 0, 0, 64);
    TN_LRAM(w, stage == TORQ__STAGE__PROLOGUE ? 0 : 64, 64);
  }
  if (stage != TORQ__STAGE__PROLOGUE) {
    w = tn_work(p, 0, TORQ__UNIT__DMA_OUT, "DO", NULL);
    TN_LRAM(w, stage == TORQ__STAGE__EPILOGUE ? 64 : 0, 64);
    TN_XRAM(w, stage == TORQ__STAGE__EPILOGUE ? 2 : 1, 0, 64);
  }
  return &p->p;
}

/* A pipeline's stages (contract.h, "Stages of a pipeline"): the steady state reads what its
 * prologue left in LRAM and the epilogue what the steady state left; each runs only right after
 * its predecessor, and a prologue or whole program still starts from a zeroed LRAM. */
START_TEST(npu_pipeline_stages_continue_their_predecessors_lram) {
  uint8_t src[64], mid[64], out[64];
  for (int i = 0; i < 64; i++) src[i] = (uint8_t)(3 * i + 1);
  memset(mid, 0x55, 64);
  memset(out, 0x66, 64);
  tqs_xram_buffer_t x[3] = {{src, 64}, {mid, 64}, {out, 64}};
  tqs_npu_result_t r;
  tqs_npu_t *npu = tn_npu();
  TH_OK(tqs_npu_run(npu, tn_stage(TORQ__STAGE__PROLOGUE, 0), x, 3, NULL, &r));
  TH_OK(tqs_npu_run(npu, tn_stage(TORQ__STAGE__STEADY, 1), x, 3, NULL, &r));
  TH_OK(tqs_npu_run(npu, tn_stage(TORQ__STAGE__EPILOGUE, 2), x, 3, NULL, &r));
  tn_expect_bytes(mid, src, 64, "what the steady state stored");
  tn_expect_bytes(out, src, 64, "what the epilogue stored");
  /* Each stage times its own tasks from cycle 0: the epilogue is one store. */
  ck_assert_uint_eq(r.cycles, 55);
  ck_assert_uint_eq(r.dma_cycles, 55);
  ck_assert_uint_eq(r.compute_cycles, 0);

  /* Out of order: the steady state after the epilogue. */
  tq_status_t st = tqs_npu_run(npu, tn_stage(TORQ__STAGE__STEADY, 1), x, 3, NULL, &r);
  TH_ERROR(st, TQ_INVALID_INPUT,
           "NSS job 1: the steady state continues the LRAM of job 0 (its prologue), but the NPU's "
           "last program was job 2 (epilogue)",
           NULL);
  TH_OK(tqs_npu_run(npu, tn_stage(TORQ__STAGE__PROLOGUE, 0), x, 3, NULL, &r));
  st = tqs_npu_run(npu, tn_stage(TORQ__STAGE__EPILOGUE, 2), x, 3, NULL, &r);
  TH_ERROR(st, TQ_INVALID_INPUT,
           "NSS job 2: the epilogue continues the LRAM of job 1 (its steady state), but the NPU's "
           "last program was job 0 (prologue)",
           NULL);
  /* A refused program leaves no predecessor: what LRAM holds now is no stage's. */
  st = tqs_npu_run(npu, tn_stage(TORQ__STAGE__STEADY, 1), x, 3, NULL, &r);
  TH_ERROR(st, TQ_INVALID_INPUT, "but the NPU's last program was none that succeeded", NULL);
  /* A stage cannot be job 0, and a stage outside the enum is refused. */
  st = tqs_npu_run(npu, tn_stage(TORQ__STAGE__STEADY, 0), x, 3, NULL, &r);
  TH_ERROR(st, TQ_INVALID_INPUT,
           "NSS job 0: a steady state cannot be job 0: it continues its prologue, the job before "
           "it",
           NULL);
  st = tqs_npu_run(npu, tn_stage((Torq__Stage)7, 1), x, 3, NULL, &r);
  TH_ERROR(st, TQ_INVALID_INPUT, "NSS job 1: unknown stage 7", NULL);

  /* A prologue starts from a zeroed LRAM again: after a prologue wrote [0, 64) and a steady
   * state loaded [64, 128), a new prologue and a whole program that stores [64, 128) see zeros. */
  TH_OK(tqs_npu_run(npu, tn_stage(TORQ__STAGE__PROLOGUE, 0), x, 3, NULL, &r));
  TH_OK(tqs_npu_run(npu, tn_stage(TORQ__STAGE__STEADY, 1), x, 3, NULL, &r));
  TH_OK(tqs_npu_run(npu, tn_stage(TORQ__STAGE__PROLOGUE, 0), x, 3, NULL, &r));
  const Torq__NssProgram *whole = tn_stage(TORQ__STAGE__EPILOGUE, 3);
  ((Torq__NssProgram *)whole)->stage = TORQ__STAGE__WHOLE;
  TH_OK(tqs_npu_run(npu, whole, x, 3, NULL, &r));
  for (int i = 0; i < 64; i++) ck_assert_uint_eq(out[i], 0);
}
END_TEST

/* Zero-sized work is well defined: an empty transfer and a kernel with an empty result take no
 * cycles and touch nothing; an empty program takes 0 cycles. */
START_TEST(npu_empty_work_takes_no_cycles) {
  tqs_npu_result_t r;
  tn_prog_t *p = tn_prog(0, 0);
  TH_OK(tqs_npu_run(tn_npu(), &p->p, NULL, 0, NULL, &r));
  ck_assert_uint_eq(r.cycles, 0);
  ck_assert_uint_eq(r.tasks, 0);
  uint8_t buf[4] = {9, 9, 9, 9};
  p = tn_prog(0, 2);
  tn_work_t *w = tn_work(p, 0, TORQ__UNIT__DMA_IN, "DI0", NULL);
  TN_XRAM(w, 0, 4, 0); /* empty, at the very end of the buffer */
  TN_LRAM(w, 524288, 0);
  Torq__KernelParams k = tn_params();
  k.input_type = k.output_type = TORQ__ELEMENT_TYPE__I8;
  TN_SET(k, output_shape, 0);
  w = tn_work(p, 1, TORQ__UNIT__SLICE0, "S0", "clamp");
  TN_LRAM(w, 0, 0);
  TN_LRAM(w, 0, 0);
  w->w.params = &k;
  tqs_xram_buffer_t x[1] = {{buf, 4}};
  TH_OK(tqs_npu_run(tn_npu(), &p->p, x, 1, NULL, &r));
  ck_assert_uint_eq(r.cycles, TN_GAP); /* task 1 starts at 0 + 16 and ends there */
  ck_assert_uint_eq(r.busy_cycles[TQS_UNIT_DMA_IN], 0);
  ck_assert_uint_eq(r.busy_cycles[TQS_UNIT_SLICE0], 0);
  ck_assert_uint_eq(buf[0], 9);
}
END_TEST

Suite *npu_suite(void) {
  Suite *s = suite_create("npu");
  TCase *tc = tn_tcase("dma");
  tcase_add_test(tc, npu_dma_round_trips_strided_regions);
  suite_add_tcase(s, tc);
  tc = tn_tcase("kernels");
  tcase_add_test(tc, npu_conv2d_tile_matches_reference_conv_rescale_clamp);
  tcase_add_test(tc, npu_conv2d_i16_writes_i48_accumulators);
  tcase_add_test(tc, npu_fused_rescale_reads_the_wrapped_i32_accumulator);
  tcase_add_test(tc, npu_conv2d_many_output_channels_matches_reference);
  tcase_add_test(tc, npu_reloaded_weights_replace_the_converted_ones);
  tcase_add_test(tc, npu_depthwise_matches_reference);
  tcase_add_test(tc, npu_fully_connected_matches_reference_matmul);
  tcase_add_test(tc, npu_pools_match_reference);
  tcase_add_test(tc, npu_add_sub_mul_broadcast_a_single_element);
  tcase_add_test(tc, npu_rescale_per_channel_and_unsigned_match_reference);
  tcase_add_test(tc, npu_rescale_random_scales_match_reference);
  tcase_add_test(tc, npu_clamp_matches_reference);
  suite_add_tcase(s, tc);
  tc = tn_tcase("timing");
  tcase_add_test(tc, npu_three_task_program_times_by_hand);
  tcase_add_test(tc, npu_runs_are_deterministic_and_start_from_zeroed_lram);
  tcase_add_test(tc, npu_a_new_model_starts_from_zeroed_lram);
  tcase_add_test(tc, npu_pipeline_stages_continue_their_predecessors_lram);
  tcase_add_test(tc, npu_empty_work_takes_no_cycles);
  suite_add_tcase(s, tc);
  tn_add_error_tests(s);
  tn_add_time_tests(s);
  tn_add_fast_tests(s);
  return s;
}
