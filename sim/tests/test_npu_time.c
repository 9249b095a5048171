/* The NPU model's time beyond the cost model (npu.h, "Time"): XRAM shared by DMA in and DMA out,
 * LRAM bank cycles lost to DMA, slice programs of several kernels, and, with every effect off,
 * the estimate's cycles exactly. Numbers worked out by hand on the SL2610. */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "npu_helpers.h"
#include "torq/sim/cost_model.h"

static tq_status_t tt_run(const tqs_hw_t *hw, tn_prog_t *p, tqs_xram_buffer_t *xram, size_t n,
                          tn_events_t *ev, tqs_npu_result_t *r) {
  tqs_npu_t *npu = NULL;
  tq_status_t st = tqs_npu_create(hw, &npu);
  tqs_npu_observer_t obs = {tn_on_work, ev};
  if (!st) st = tqs_npu_run(npu, &p->p, xram, n, ev ? &obs : NULL, r);
  tqs_npu_destroy(npu);
  return st;
}

/* One task: DMA_IN of 4000 bytes and DMA_OUT of 4000 bytes. Alone, each takes 40 cycles of
 * set-up, then 500 beats in 32 bursts: (500 + 48) / 0.65 = 843.08 cycles at 4000 / 843.08 =
 * 4.74 bytes a cycle. Together they ask for 9.49 bytes a cycle of XRAM, which serves 8: both
 * move their 8000 bytes in 1000 cycles and end at 1040. With an XRAM that serves them both in
 * full, each ends at 40 + 843.08 -> 884. The estimate says 842 + 40 = 882 for each. */
START_TEST(npu_dma_in_and_out_share_xram_bandwidth) {
  static uint8_t a[4000], b[4000];
  for (int i = 0; i < 4000; i++) a[i] = (uint8_t)(i * 13);
  tn_prog_t *p = tn_prog(1, 1);
  tn_work_t *in = tn_work(p, 0, TORQ__UNIT__DMA_IN, "DI0", NULL);
  TN_XRAM(in, 0, 0, 4000);
  TN_LRAM(in, 0, 4000);
  tn_work_t *out = tn_work(p, 0, TORQ__UNIT__DMA_OUT, "DO0", NULL);
  TN_LRAM(out, 8192, 4000);
  TN_XRAM(out, 1, 0, 4000);
  tqs_xram_buffer_t xram[2] = {{a, sizeof(a)}, {b, sizeof(b)}};
  tqs_hw_t hw = tn_hw();
  tn_events_t ev = {0};
  tqs_npu_result_t r;
  TH_OK(tt_run(&hw, p, xram, 2, &ev, &r));
  ck_assert_uint_eq(r.cycles, 1040);
  ck_assert_uint_eq(r.busy_cycles[TQS_UNIT_DMA_IN], 1040);
  ck_assert_uint_eq(r.busy_cycles[TQS_UNIT_DMA_OUT], 1040);
  ck_assert_uint_eq(ev.n, 2);
  ck_assert_uint_eq(ev.ev[0].end_cycle, 1040);
  ck_assert_uint_eq(tqs_cost_dma(&hw, 4000), 882);
  hw.xram_bytes_per_cycle = 16;
  TH_OK(tt_run(&hw, p, xram, 2, NULL, &r));
  ck_assert_uint_eq(r.cycles, 884);
  /* A channel alone is never held back by the other's share. */
  tn_prog_t *q = tn_prog(2, 1);
  in = tn_work(q, 0, TORQ__UNIT__DMA_IN, "DI0", NULL);
  TN_XRAM(in, 0, 0, 4000);
  TN_LRAM(in, 0, 4000);
  hw = tn_hw();
  TH_OK(tt_run(&hw, q, xram, 2, NULL, &r));
  ck_assert_uint_eq(r.cycles, 884);
}
END_TEST

/* One task: SLICE0 adds 6400 i8 elements, ceil(6400 / 64) + 64 = 164 cycles, from LRAM bank 0
 * (banks of 64 KiB), while DMA_IN writes 6400 bytes: 40 + (800 + 75) / 0.65 = 1386.15, its 100
 * lines spread over [40, 1386.15). Into bank 0, the slice loses the lines of [40, 164):
 * 100 * 124 / 1346.15 = 9.21 -> 10 cycles, 174. Into bank 1, or with the bank model off, none. */
START_TEST(npu_slice_loses_bank_cycles_to_dma_in_its_bank) {
  static uint8_t a[6400];
  for (int i = 0; i < 6400; i++) a[i] = (uint8_t)i;
  Torq__KernelParams k = tn_params();
  k.input_type = k.output_type = TORQ__ELEMENT_TYPE__I8;
  TN_SET(k, output_shape, 6400);
  uint64_t lost[3];
  for (int c = 0; c < 3; c++) {
    tn_prog_t *p = tn_prog(1, 1);
    tn_work_t *in = tn_work(p, 0, TORQ__UNIT__DMA_IN, "DI0", NULL);
    TN_XRAM(in, 0, 0, 6400);
    TN_LRAM(in, c == 1 ? 65536 : 32768, 6400);
    tn_work_t *s = tn_work(p, 0, TORQ__UNIT__SLICE0, "S0", "add");
    TN_LRAM(s, 0, 6400);
    TN_LRAM(s, 0, 6400);
    TN_LRAM(s, 8192, 6400);
    s->w.params = &k;
    tqs_xram_buffer_t xram[1] = {{a, sizeof(a)}};
    tqs_hw_t hw = tn_hw();
    if (c == 2) hw.lram_banks = 0;
    tqs_npu_result_t r;
    TH_OK(tt_run(&hw, p, xram, 1, NULL, &r));
    ck_assert_uint_eq(r.busy_cycles[TQS_UNIT_DMA_IN], 1387);
    lost[c] = r.busy_cycles[TQS_UNIT_SLICE0] - 164;
    ck_assert_uint_eq(tqs_cost_slice_elementwise(&hw, 6400, 8), 164);
  }
  ck_assert_uint_eq(lost[0], 10);
  ck_assert_uint_eq(lost[1], 0);
  ck_assert_uint_eq(lost[2], 0);
}
END_TEST

/* A slice program of two kernels in one task: SLICE0 adds a + b into LRAM 1024, then clamps
 * that into LRAM 2048; the second reads what the first wrote. They run one after the other:
 * 16 i8 elements are ceil(16 / 64) + 64 = 65 cycles each, so S0 at 0..65 and S1 at 65..130 of
 * the task, which starts at 40 + 2.5 / 0.65... after task 0: DMA_IN of 2 x 16 bytes, each 40 +
 * (2 + 1.5) / 0.65 = 45.38, 90.77 -> 91, then 16 of overhead: task 1 at 107. */
START_TEST(npu_slice_program_runs_its_kernels_in_order) {
  int8_t a[16], b[16], out[16];
  for (int i = 0; i < 16; i++) a[i] = (int8_t)(i * 9 - 60), b[i] = (int8_t)(50 - i * 7);
  tn_prog_t *p = tn_prog(4, 3);
  tn_work_t *in = tn_work(p, 0, TORQ__UNIT__DMA_IN, "DI0", NULL);
  TN_XRAM(in, 0, 0, 16);
  TN_LRAM(in, 0, 16);
  TN_XRAM(in, 1, 0, 16);
  TN_LRAM(in, 64, 16);
  Torq__KernelParams add = tn_params(), clamp = tn_params();
  add.input_type = add.output_type = TORQ__ELEMENT_TYPE__I8;
  TN_SET(add, output_shape, 16);
  add.clamp_min = -128;
  add.clamp_max = 127;
  clamp = add;
  clamp.clamp_min = -20;
  clamp.clamp_max = 30;
  tn_work_t *s = tn_work(p, 1, TORQ__UNIT__SLICE0, "S0", "add");
  TN_LRAM(s, 0, 16);
  TN_LRAM(s, 64, 16);
  TN_LRAM(s, 1024, 16);
  s->w.params = &add;
  s = tn_work(p, 1, TORQ__UNIT__SLICE0, "S1", "clamp");
  TN_LRAM(s, 1024, 16);
  TN_LRAM(s, 2048, 16);
  s->w.params = &clamp;
  tn_work_t *o = tn_work(p, 2, TORQ__UNIT__DMA_OUT, "DO0", NULL);
  TN_LRAM(o, 2048, 16);
  TN_XRAM(o, 2, 0, 16);
  tqs_xram_buffer_t xram[3] = {{(uint8_t *)a, 16}, {(uint8_t *)b, 16}, {(uint8_t *)out, 16}};
  tqs_hw_t hw = tn_hw();
  tn_events_t ev = {0};
  tqs_npu_result_t r;
  TH_OK(tt_run(&hw, p, xram, 3, &ev, &r));
  for (int i = 0; i < 16; i++) {
    int v = (int8_t)(uint8_t)(a[i] + b[i]); /* add wraps to i8 */
    v = v < -20 ? -20 : v > 30 ? 30 : v;
    ck_assert_int_eq(out[i], v);
  }
  ck_assert_uint_eq(ev.n, 4);
  ck_assert_str_eq(ev.ev[1].trace_id, "S0");
  ck_assert_uint_eq(ev.ev[1].start_cycle, 107);
  ck_assert_uint_eq(ev.ev[1].end_cycle, 107 + 65);
  ck_assert_str_eq(ev.ev[2].trace_id, "S1");
  ck_assert_uint_eq(ev.ev[2].start_cycle, 107 + 65);
  ck_assert_uint_eq(ev.ev[2].end_cycle, 107 + 130);
  ck_assert_uint_eq(r.busy_cycles[TQS_UNIT_SLICE0], 130);
}
END_TEST

/* With the effects switched off (no descriptor set-up, an XRAM that serves both channels in full,
 * no bank model) and the estimate's set-up at 0, a program of dense transfers of whole bursts
 * takes exactly the cycles of the estimate: what tells them apart is those effects alone. */
/* The estimate of the program below on `hw`: the cost model's cycles on the NSS task rule. */
static uint64_t tt_estimate(const tqs_hw_t *hw) {
  tqs_task_timing_t t[3];
  memset(t, 0, sizeof(t));
  t[0].cycles[TQS_UNIT_DMA_IN] = tqs_cost_dma(hw, 2048);
  t[1].cycles[TQS_UNIT_DMA_IN] = tqs_cost_dma(hw, 4096);
  t[1].cycles[TQS_UNIT_SLICE0] = tqs_cost_slice_elementwise(hw, 2048, 8);
  t[2].cycles[TQS_UNIT_DMA_OUT] = tqs_cost_dma(hw, 2048);
  t[2].cycles[TQS_UNIT_DMA_IN] = tqs_cost_dma(hw, 4096);
  return tqs_task_schedule(hw, t, 3);
}

START_TEST(npu_without_its_effects_takes_the_estimated_cycles) {
  static uint8_t a[2048], b[4096], o[2048];
  tn_prog_t *p = tn_prog(1, 3);
  tn_work_t *w = tn_work(p, 0, TORQ__UNIT__DMA_IN, "DI0", NULL);
  TN_XRAM(w, 0, 0, 2048);
  TN_LRAM(w, 0, 2048);
  w = tn_work(p, 1, TORQ__UNIT__DMA_IN, "DI1", NULL);
  TN_XRAM(w, 1, 0, 4096);
  TN_LRAM(w, 8192, 4096);
  Torq__KernelParams k = tn_params();
  k.input_type = k.output_type = TORQ__ELEMENT_TYPE__I8;
  TN_SET(k, output_shape, 2048);
  k.clamp_min = -128;
  k.clamp_max = 127;
  w = tn_work(p, 1, TORQ__UNIT__SLICE0, "S0", "clamp");
  TN_LRAM(w, 0, 2048);
  TN_LRAM(w, 4096, 2048);
  w->w.params = &k;
  w = tn_work(p, 2, TORQ__UNIT__DMA_OUT, "DO0", NULL);
  TN_LRAM(w, 4096, 2048);
  TN_XRAM(w, 2, 0, 2048);
  w = tn_work(p, 2, TORQ__UNIT__DMA_IN, "DI2", NULL);
  TN_XRAM(w, 1, 0, 4096);
  TN_LRAM(w, 16384, 4096);
  tqs_xram_buffer_t xram[3] = {{a, sizeof(a)}, {b, sizeof(b)}, {o, sizeof(o)}};
  tqs_hw_t hw = tn_hw();
  hw.dma_setup_cycles = hw.dma_desc_cycles = 0;
  hw.xram_bytes_per_cycle = 1u << 20;
  hw.lram_banks = 0;
  tqs_npu_result_t r;
  TH_OK(tt_run(&hw, p, xram, 3, NULL, &r));
  uint64_t estimate = tt_estimate(&hw);
  /* 2048 bytes: 431 cycles, 4096: 862; the clamp 96: 431 + 16 + 862 + 16 + 862 = 2187. */
  ck_assert_uint_eq(estimate, 2187);
  ck_assert_uint_eq(r.cycles, estimate);
  /* With the SL2610's effects on, the same program takes longer than its estimate. */
  tqs_hw_t real = tn_hw();
  TH_OK(tt_run(&real, p, xram, 3, NULL, &r));
  ck_assert_uint_gt(r.cycles, tt_estimate(&real));
}
END_TEST

/* Where DMA and compute overlap (tqs_npu_result_t's dma, compute and overlap cycles), on a
 * three-task pipeline of two 6400-byte tiles: task 0 loads tile 0 alone (40 + 1346.15 -> 1387
 * cycles, DMA only); task 1 loads tile 1 into bank 1 while SLICE0 adds tile 0 in bank 0 (164
 * cycles, no bank cycles lost: under the DMA); task 2 adds tile 1 alone (164, compute only).
 * DMA 2 x 1387 = 2774, compute 2 x 164 = 328, overlap 164; the program, with 16 cycles of
 * overhead before each task after the first: 1387 + 16 + 1387 + 16 + 164 = 2970. */
START_TEST(npu_result_tells_where_dma_and_compute_overlap) {
  static uint8_t a[12800];
  for (int i = 0; i < 12800; i++) a[i] = (uint8_t)(i * 7);
  Torq__KernelParams k = tn_params();
  k.input_type = k.output_type = TORQ__ELEMENT_TYPE__I8;
  TN_SET(k, output_shape, 6400);
  tn_prog_t *p = tn_prog(1, 3);
  for (int t = 0; t < 2; t++) {
    tn_work_t *in = tn_work(p, (size_t)t, TORQ__UNIT__DMA_IN, t ? "DI1" : "DI0", NULL);
    TN_XRAM(in, 0, (uint64_t)t * 6400, 6400);
    TN_LRAM(in, (uint64_t)t * 65536, 6400);
    uint64_t tile = (uint64_t)t * 65536;
    tn_work_t *s = tn_work(p, (size_t)t + 1, TORQ__UNIT__SLICE0, t ? "S1" : "S0", "add");
    TN_LRAM(s, tile, 6400);
    TN_LRAM(s, tile, 6400);
    TN_LRAM(s, tile + 8192, 6400);
    s->w.params = &k;
  }
  tqs_xram_buffer_t xram[1] = {{a, sizeof(a)}};
  tqs_hw_t hw = tn_hw();
  tqs_npu_result_t r;
  TH_OK(tt_run(&hw, p, xram, 1, NULL, &r));
  ck_assert_uint_eq(r.cycles, 2970);
  ck_assert_uint_eq(r.busy_cycles[TQS_UNIT_SLICE0], 328);
  ck_assert_uint_eq(r.dma_cycles, 2774);
  ck_assert_uint_eq(r.compute_cycles, 328);
  ck_assert_uint_eq(r.overlap_cycles, 164);
}
END_TEST

void tn_add_time_tests(Suite *s) {
  TCase *tc = tn_tcase("effects");
  tcase_add_test(tc, npu_dma_in_and_out_share_xram_bandwidth);
  tcase_add_test(tc, npu_slice_loses_bank_cycles_to_dma_in_its_bank);
  tcase_add_test(tc, npu_slice_program_runs_its_kernels_in_order);
  tcase_add_test(tc, npu_without_its_effects_takes_the_estimated_cycles);
  tcase_add_test(tc, npu_result_tells_where_dma_and_compute_overlap);
  suite_add_tcase(s, tc);
}
