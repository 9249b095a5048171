/* The NPU model rejects malformed programs with their place named and nothing written, and
 * survives random mutations of valid ones. */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "npu_helpers.h"

/* ---- Errors ---------------------------------------------------------------------------------- */

/* A two-task program: task 0 loads 16 bytes from buffer 0 into LRAM 0 and task 1 clamps them
 * into LRAM 64 and stores them in buffer 1. Cases break one thing each. */
typedef struct tn_case_s {
  const char *name;
  tq_status_code_t code;
  const char *needle, *needle2;
} tn_case_t;

static const tn_case_t tn_cases[] = {
    {"lram_end", TQ_INVALID_INPUT, "NSS job 5, task 0, DMA_IN \"DI0\"",
     "region 1 (destination) [524280, 524296) is past the end of LRAM (524288 bytes)"},
    {"xram_end", TQ_INVALID_INPUT, "NSS job 5, task 0, DMA_IN \"DI0\"",
     "region 0 (source) [1, 17) is past the end of XRAM buffer 0 (16 bytes)"},
    {"xram_stride_end", TQ_INVALID_INPUT, "DMA_OUT \"DO0\"",
     "region 1 (destination) [0, 22) is past the end of XRAM buffer 1 (16 bytes)"},
    {"unknown_kernel", TQ_INVALID_INPUT, "NSS job 5, task 1, SLICE0 \"S0\"",
     "unknown kernel \"softmax\""},
    {"hazard", TQ_INVALID_INPUT,
     "NSS job 5, task 1: LRAM hazard: DMA_IN \"DI1\" region 1 and SLICE0 \"S0\" region 1",
     "share bytes [64, 72), and one of them writes"},
    {"self_hazard", TQ_INVALID_INPUT, "SLICE0 \"S0\"",
     "LRAM hazard: the result [8, 24) overlaps operand 0"},
    {"no_buffer", TQ_INVALID_INPUT, "DMA_IN \"DI0\"",
     "XRAM buffer 9, which does not exist (2 buffers)"},
    {"unallocated", TQ_INVALID_INPUT, "DMA_OUT \"DO0\"", "XRAM buffer 1, which is not allocated"},
    {"size_mismatch", TQ_INVALID_INPUT, "SLICE0 \"S0\"",
     "clamp: region 1 (result) holds 15 bytes; 16 elements of I8 need 16"},
    {"empty_source", TQ_INVALID_INPUT, "DMA_IN \"DI0\"", "transfer 0 reads 0 bytes but writes 16"},
    {"zero_count", TQ_INVALID_INPUT, "DMA_IN \"DI0\"", "transfer 0 reads 16 bytes but writes 0"},
    {"no_transfers", TQ_INVALID_INPUT, "DMA_OUT \"DO0\"", "DMA work holds 0 regions"},
    {"wrong_direction", TQ_INVALID_INPUT, "DMA_IN \"DI0\"",
     "transfer 0 goes from LRAM to LRAM; DMA_IN moves XRAM -> LRAM"},
    {"two_dma_out", TQ_INVALID_INPUT, "task 2, DMA_OUT \"DO9\"", "a second work item for the unit"},
    {"slice_hazard", TQ_INVALID_INPUT,
     "NSS job 5, task 1: LRAM hazard: SLICE0 \"S0\" region 1 and SLICE1 \"S9\" region 0",
     "share bytes [64, 80), and one of them writes"},
    {"bad_unit", TQ_INVALID_INPUT, "NSS job 5, task 1: work item 1 (\"X\"): unknown unit 42", NULL},
    {"regions_count", TQ_INVALID_INPUT, "SLICE0 \"S0\"", "clamp takes 2 regions"},
    {"no_params", TQ_INVALID_INPUT, "SLICE0 \"S0\"", "clamp: the work has no kernel parameters"},
    {"float_type", TQ_INVALID_INPUT, "SLICE0 \"S0\"", "clamp: input_type F32 is not supported"},
    {"strides_mismatch", TQ_INVALID_INPUT, "DMA_IN \"DI0\"",
     "region 0 (source) has 1 counts but 0 strides"},
    {"overflow", TQ_INVALID_INPUT, "DMA_IN \"DI0\"", "overflows 64-bit addresses"},
    {"macs_mismatch", TQ_INVALID_INPUT, "SLICE0 \"S0\"",
     "the work says 17 MACs but its parameters give 16"},
    {"bytes_mismatch", TQ_INVALID_INPUT, "DMA_IN \"DI0\"",
     "the work says 15 bytes but its transfers move 16"},
    {"css_kernel", TQ_INVALID_INPUT, "CSS \"C0\"", "unknown kernel \"argmax\""},
    {"xram_hazard", TQ_INVALID_INPUT,
     "NSS job 5, task 2: XRAM hazard: DMA_OUT \"DO0\" region 1 and DMA_IN \"DI1\" region 0",
     "share 16 bytes"},
};

START_TEST(npu_rejects_malformed_programs_before_writing) {
  const tn_case_t *c = &tn_cases[_i];
  uint8_t in[16], out[16];
  for (int i = 0; i < 16; i++) in[i] = (uint8_t)(100 + i), out[i] = 0xaa;
  tn_prog_t *p = tn_prog(5, 3);
  tn_work_t *di = tn_work(p, 0, TORQ__UNIT__DMA_IN, "DI0", NULL);
  Torq__Region *src = TN_XRAM(di, 0, 0, 16);
  Torq__Region *dst = TN_LRAM(di, 0, 16);
  Torq__KernelParams k = tn_params();
  k.input_type = k.output_type = TORQ__ELEMENT_TYPE__I8;
  TN_SET(k, output_shape, 16);
  k.clamp_min = -128;
  k.clamp_max = 127;
  tn_work_t *s = tn_work(p, 1, TORQ__UNIT__SLICE0, "S0", "clamp");
  TN_LRAM(s, 0, 16);
  Torq__Region *res = TN_LRAM(s, 64, 16);
  s->w.params = &k;
  tn_work_t *dout = tn_work(p, 2, TORQ__UNIT__DMA_OUT, "DO0", NULL);
  TN_LRAM(dout, 64, 16);
  Torq__Region *xo = TN_XRAM(dout, 1, 0, 16);
  tqs_xram_buffer_t xram[2] = {{in, 16}, {out, 16}};
  tqs_npu_t *npu = tn_npu();

  if (!strcmp(c->name, "lram_end")) {
    dst->offset = 524280;
  } else if (!strcmp(c->name, "xram_end")) {
    src->offset = 1;
  } else if (!strcmp(c->name, "xram_stride_end")) {
    xo->size = 1; /* 4 x 4 blocks of one byte, the last at 3 * 5 + 3 * 2 = 21 */
    tn_strided(dout, 2, 4, 5, 4, 2);
  } else if (!strcmp(c->name, "unknown_kernel")) {
    s->w.kernel = "softmax";
  } else if (!strcmp(c->name, "hazard")) {
    tn_work_t *d2 = tn_work(p, 1, TORQ__UNIT__DMA_IN, "DI1", NULL);
    TN_XRAM(d2, 0, 0, 8);
    TN_LRAM(d2, 64, 8); /* writes into the clamp's result while it runs */
  } else if (!strcmp(c->name, "self_hazard")) {
    res->offset = 8;
  } else if (!strcmp(c->name, "no_buffer")) {
    src->buffer_id = 9;
  } else if (!strcmp(c->name, "unallocated")) {
    xram[1].data = NULL;
  } else if (!strcmp(c->name, "size_mismatch")) {
    res->size = 15;
  } else if (!strcmp(c->name, "empty_source")) {
    src->size = 0;
  } else if (!strcmp(c->name, "zero_count")) {
    tn_strided(di, 1, 0, 16, 0, 0);
  } else if (!strcmp(c->name, "no_transfers")) {
    dout->w.n_regions = 0;
  } else if (!strcmp(c->name, "wrong_direction")) {
    src->memory = TORQ__MEMORY__LRAM;
    src->offset = 1024;
  } else if (!strcmp(c->name, "two_dma_out")) {
    tn_work_t *d2 = tn_work(p, 2, TORQ__UNIT__DMA_OUT, "DO9", NULL);
    TN_LRAM(d2, 0, 16);
    TN_XRAM(d2, 1, 0, 16);
  } else if (!strcmp(c->name, "slice_hazard")) {
    /* Slice 1 reads what slice 0 writes in the same task: the slices run at the same time. */
    tn_work_t *s2 = tn_work(p, 1, TORQ__UNIT__SLICE1, "S9", "clamp");
    TN_LRAM(s2, 64, 16);
    TN_LRAM(s2, 128, 16);
    s2->w.params = &k;
  } else if (!strcmp(c->name, "bad_unit")) {
    tn_work(p, 1, (Torq__Unit)42, "X", NULL);
  } else if (!strcmp(c->name, "regions_count")) {
    TN_LRAM(s, 256, 16);
  } else if (!strcmp(c->name, "no_params")) {
    s->w.params = NULL;
  } else if (!strcmp(c->name, "float_type")) {
    k.input_type = TORQ__ELEMENT_TYPE__F32;
  } else if (!strcmp(c->name, "strides_mismatch")) {
    static uint64_t one[1] = {1};
    src->n_counts = 1;
    src->counts = one;
    src->n_strides = 0;
  } else if (!strcmp(c->name, "overflow")) {
    src->offset = UINT64_MAX - 8;
  } else if (!strcmp(c->name, "macs_mismatch")) {
    s->w.macs = 17;
  } else if (!strcmp(c->name, "bytes_mismatch")) {
    di->w.bytes = 15;
  } else if (!strcmp(c->name, "css_kernel")) {
    tn_work(p, 1, TORQ__UNIT__CSS, "C0", "argmax");
  } else if (!strcmp(c->name, "xram_hazard")) {
    tn_work_t *d2 = tn_work(p, 2, TORQ__UNIT__DMA_IN, "DI1", NULL);
    TN_XRAM(d2, 1, 0, 16); /* reads the buffer DMA_OUT writes in the same task */
    TN_LRAM(d2, 256, 16);
  }
  tqs_npu_result_t r;
  r.cycles = 12345;
  TH_ERROR(tqs_npu_run(npu, &p->p, xram, 2, NULL, &r), c->code, c->needle, c->needle2);
  ck_assert_uint_eq(r.cycles, 0); /* cleared on entry */
  for (int i = 0; i < 16; i++) ck_assert_uint_eq(out[i], 0xaa);
}
END_TEST

START_TEST(npu_rejects_slice1_on_a_one_slice_part) {
  tqs_hw_t hw = tn_hw();
  hw.slices = 1;
  tqs_npu_t *npu = NULL;
  TH_OK(tqs_npu_create(&hw, &npu));
  tn_prog_t *p = tn_prog(2, 1);
  tn_work(p, 0, TORQ__UNIT__SLICE1, "S1", "add");
  tqs_npu_result_t r;
  TH_ERROR(tqs_npu_run(npu, &p->p, NULL, 0, NULL, &r), TQ_INVALID_INPUT,
           "NSS job 2, task 0, SLICE1 \"S1\"", "the hardware has one slice");
  tqs_npu_destroy(npu);
  hw.slices = 3;
  TH_ERROR(tqs_npu_create(&hw, &npu), TQ_INVALID_ARGUMENT, "1 or 2 slices", NULL);
  ck_assert_ptr_null(npu);
}
END_TEST

/* Kernel parameters that do not fit the regions or the contract. */
START_TEST(npu_rejects_inconsistent_kernel_params) {
  static int8_t x[1 * 3 * 3 * 2], w[2 * 2 * 2 * 2];
  static int32_t b[2];
  static int32_t out[2 * 2 * 2];
  static int32_t m1[1] = {1 << 30}, s1[1] = {1};
  Torq__KernelParams p = tn_params();
  p.input_type = p.weight_type = TORQ__ELEMENT_TYPE__I8;
  p.output_type = TORQ__ELEMENT_TYPE__I32;
  TN_SET(p, input_shape, 1, 3, 3, 2);
  TN_SET(p, weight_shape, 2, 2, 2, 2);
  TN_SET(p, output_shape, 1, 2, 2, 2);
  TN_SET(p, stride, 1, 1);
  TN_SET(p, dilation, 1, 1);
  TN_SET(p, pad, 0, 0, 0, 0);
  p.clamp_min = INT32_MIN;
  p.clamp_max = INT32_MAX;
  tn_op_t ops[3] = {{x, sizeof(x)}, {w, sizeof(w)}, {b, sizeof(b)}};
  tqs_npu_result_t r;
  TH_OK(tn_kernel("conv2d", &p, ops, 3, out, sizeof(out), &r));
  /* The input region holds 18 bytes but the shape says 1x3x4x2. */
  TN_SET(p, input_shape, 1, 3, 4, 2);
  TH_ERROR(tn_kernel("conv2d", &p, ops, 3, out, sizeof(out), &r), TQ_INVALID_INPUT, "SLICE0 \"S0\"",
           "conv2d: region 0 (input) holds 18 bytes; 24 elements of I8 need 24");
  TN_SET(p, input_shape, 1, 3, 3, 2);
  TN_SET(p, weight_shape, 2, 2, 2, 3);
  TH_ERROR(tn_kernel("conv2d", &p, ops, 3, out, sizeof(out), &r), TQ_INVALID_INPUT,
           "conv2d: weights [2, 2, 2, 3] do not fit 2 input and 2 output channels", NULL);
  TN_SET(p, weight_shape, 2, 2, 2, 2);
  TN_SET(p, stride, 0, 1);
  TH_ERROR(tn_kernel("conv2d", &p, ops, 3, out, sizeof(out), &r), TQ_INVALID_INPUT,
           "conv2d: stride[0] = 0 is outside [1, 2^30]", NULL);
  TN_SET(p, stride, 1, 1);
  p.multiplier = m1;
  p.shift = s1;
  p.n_multiplier = p.n_shift = 1;
  TH_ERROR(tn_kernel("conv2d", &p, ops, 3, out, sizeof(out), &r), TQ_INVALID_INPUT,
           "conv2d: shift[0] = 1 is outside 2..62", NULL);
  p.n_multiplier = p.n_shift = 0;
  p.input_zp = 70000;
  TH_ERROR(tn_kernel("conv2d", &p, ops, 3, out, sizeof(out), &r), TQ_INVALID_INPUT,
           "conv2d: input_zp 70000 is outside [-65536, 65536]", NULL);
}
END_TEST

/* ---- Random programs ------------------------------------------------------------------------- */

static uint64_t tn_pick(uint64_t cur) {
  switch (tn_rand(0, 5)) {
    case 0:
      return 0;
    case 1:
      return cur + (uint64_t)tn_rand(1, 64);
    case 2:
      return cur - (uint64_t)tn_rand(1, 64);
    case 3:
      return (uint64_t)tn_rand(0, 4096);
    case 4:
      return UINT64_MAX - (uint64_t)tn_rand(0, 64);
    default:
      return (uint64_t)1 << tn_rand(0, 63);
  }
}

/* Valid kernel programs with random fields changed never crash, never touch memory they should
 * not (the sanitizers and valgrind watch) and fail only with TQ_INVALID_INPUT. */
START_TEST(npu_survives_random_mutations) {
  static int8_t x[1 * 6 * 5 * 4], w[4 * 3 * 3 * 4], out[2048];
  static int32_t b[4];
  static int32_t mult[4] = {1 << 30, 1 << 30, 1 << 30, 1 << 30}, shift[4] = {33, 34, 35, 36};
  static const char *const kernels[] = {"conv2d",
                                        "depthwise_conv2d",
                                        "fully_connected",
                                        "max_pool2d",
                                        "avg_pool2d",
                                        "add",
                                        "sub",
                                        "mul",
                                        "rescale",
                                        "clamp"};
  tn_seed = 99;
  for (size_t i = 0; i < sizeof(x); i++) x[i] = (int8_t)tn_rand(-128, 127);
  for (size_t i = 0; i < sizeof(w); i++) w[i] = (int8_t)tn_rand(-128, 127);
  size_t ok = 0, failed = 0;
  for (int iter = 0; iter < 3000; iter++) {
    int64_t ishape[4] = {1, 6, 5, 4}, wshape[4] = {4, 3, 3, 4}, oshape[4] = {1, 4, 3, 4};
    int64_t st[2] = {1, 1}, dil[2] = {1, 1}, pad[4] = {0, 0, 0, 0}, ker[2] = {3, 3};
    int64_t extra[2] = {0, 0};
    Torq__KernelParams p = tn_params();
    p.input_type = p.weight_type = p.output_type = TORQ__ELEMENT_TYPE__I8;
    p.input_shape = ishape, p.n_input_shape = 4;
    p.weight_shape = wshape, p.n_weight_shape = 4;
    p.output_shape = oshape, p.n_output_shape = 4;
    p.stride = st, p.n_stride = 2;
    p.dilation = dil, p.n_dilation = 2;
    p.pad = pad, p.n_pad = 4;
    p.kernel = ker, p.n_kernel = 2;
    p.extra = extra, p.n_extra = 2;
    p.multiplier = mult, p.shift = shift, p.n_multiplier = p.n_shift = 4;
    p.clamp_min = -128, p.clamp_max = 127;
    int kid = (int)tn_rand(0, 9);
    const char *kernel = kernels[kid];
    tn_op_t ops[3] = {{x, sizeof(x)}, {w, sizeof(w)}, {b, sizeof(b)}};
    size_t n_ops = 3, out_bytes = 48;
    if (kid == 1) { /* depthwise: HWCM weights, multiplier 1 */
      wshape[0] = wshape[1] = 3, wshape[2] = 4, wshape[3] = 1;
      ops[1].bytes = 36;
    } else if (kid == 2) { /* fully_connected [6, 20] x [20, 4] */
      ishape[0] = 6, ishape[1] = 20, wshape[0] = 20, wshape[1] = 4, oshape[0] = 6, oshape[1] = 4;
      p.n_input_shape = p.n_weight_shape = p.n_output_shape = 2;
      ops[1].bytes = 80;
      n_ops = 2, out_bytes = 24;
      p.n_multiplier = p.n_shift = 0;
    } else if (kid == 3 || kid == 4) {
      n_ops = 1;
    } else if (kid >= 5) { /* elementwise on 48 elements */
      oshape[0] = ishape[0] = 48;
      p.n_input_shape = p.n_output_shape = 1;
      ops[0].bytes = ops[1].bytes = 48;
      n_ops = kid <= 7 ? 2 : 1;
      if (kid == 8) { /* rescale [12, 4] per channel */
        ishape[0] = oshape[0] = 12, ishape[1] = oshape[1] = 4;
        p.n_input_shape = p.n_output_shape = 2;
      } else {
        p.n_multiplier = p.n_shift = 0;
      }
    }
    tqs_xram_buffer_t xram[5];
    tn_prog_t *prog = tn_kernel_prog(kernel, &p, ops, n_ops, out, out_bytes, xram);
    tn_work_t *works[3] = {&prog->w[0][0], &prog->w[1][0], &prog->w[2][0]};
    for (int m = (int)tn_rand(1, 4); m > 0; m--) {
      int64_t *shapes[8] = {ishape, wshape, oshape, st, dil, pad, ker, extra};
      size_t lens[8] = {4, 4, 4, 2, 2, 4, 2, 2};
      switch (tn_rand(0, 9)) {
        case 0:
        case 1: {
          tn_work_t *tw = works[tn_rand(0, 2)];
          Torq__Region *r = &tw->r[tn_rand(0, (int64_t)tw->w.n_regions - 1)];
          if (tn_rand(0, 1))
            r->offset = tn_pick(r->offset);
          else
            r->size = tn_pick(r->size);
          break;
        }
        case 2: {
          tn_work_t *tw = works[tn_rand(0, 2)];
          size_t ri = (size_t)tn_rand(0, (int64_t)tw->w.n_regions - 1);
          tw->counts[ri][0] = tn_pick(2);
          tw->strides[ri][0] = tn_pick(8);
          tw->r[ri].n_counts = tw->r[ri].n_strides = 1;
          tw->r[ri].counts = tw->counts[ri];
          tw->r[ri].strides = tw->strides[ri];
          break;
        }
        case 3:
        case 4:
        case 5: {
          int k = (int)tn_rand(0, 7);
          if (kid >= 5 && k != 0 && k != 2 && k != 7) k = 2;
          shapes[k][tn_rand(0, (int64_t)lens[k] - 1)] =
              tn_rand(0, 3) ? tn_rand(-2, 9) : (int64_t)tn_pick(1);
          break;
        }
        case 6: {
          int t = (int)tn_rand(0, 2);
          Torq__ElementType e = (Torq__ElementType)tn_rand(-1, 13);
          if (t == 0)
            p.input_type = e;
          else if (t == 1)
            p.weight_type = e;
          else
            p.output_type = e;
          break;
        }
        case 7:
          if (tn_rand(0, 1))
            p.input_zp = (int64_t)tn_pick(0);
          else
            p.weight_zp = tn_rand(-300, 300);
          break;
        case 8:
          p.n_multiplier = (size_t)tn_rand(0, 4);
          p.n_shift = tn_rand(0, 3) ? p.n_multiplier : (size_t)tn_rand(0, 4);
          break;
        default:
          works[1]->r[works[1]->w.n_regions - 1].size = (uint64_t)tn_rand(0, 2048);
          works[2]->r[0].size = works[2]->r[1].size = works[1]->r[works[1]->w.n_regions - 1].size;
          break;
      }
    }
    tqs_npu_result_t r;
    tq_status_t st2 = tqs_npu_run(tn_npu(), &prog->p, xram, n_ops + 1, NULL, &r);
    if (st2) {
      ck_assert_int_eq(tq_status_code(st2), TQ_INVALID_INPUT);
      ck_assert_ptr_nonnull(strstr(tq_status_message(st2), "NSS job 1"));
      tq_status_free(st2);
      failed++;
    } else {
      ok++;
    }
  }
  /* Both outcomes happen, so the mutations reach past the first check. */
  ck_assert_uint_gt(ok, 100);
  ck_assert_uint_gt(failed, 100);
}
END_TEST

void tn_add_error_tests(Suite *s) {
  TCase *tc = tn_tcase("errors");
  tcase_add_loop_test(tc, npu_rejects_malformed_programs_before_writing, 0,
                      (int)(sizeof(tn_cases) / sizeof(tn_cases[0])));
  tcase_add_test(tc, npu_rejects_slice1_on_a_one_slice_part);
  tcase_add_test(tc, npu_rejects_inconsistent_kernel_params);
  tcase_add_test(tc, npu_survives_random_mutations);
  suite_add_tcase(s, tc);
}
