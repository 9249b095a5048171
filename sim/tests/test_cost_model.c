/* Tests for hw.h and cost_model.h: the SL2610 description, the --torq-hw parser, and cycle
 * counts worked out by hand from the formulas of DESIGN section 4. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "torq/base/status.h"
#include "torq/sim/cost_model.h"
#include "torq/sim/hw.h"

Suite *cost_model_suite(void);

#define CM_ASSERT_OK(expr)                                                  \
  do {                                                                      \
    tq_status_t cm__s = (expr);                                             \
    if (cm__s) {                                                            \
      char *cm__text = tq_status_format(cm__s, 1);                          \
      ck_abort_msg("unexpected status: %s", cm__text ? cm__text : "(oom)"); \
    }                                                                       \
  } while (0)

static tqs_hw_t sl2610(void) {
  tqs_hw_t hw;
  tqs_hw_initialize_sl2610(&hw);
  return hw;
}

static void assert_hw_eq(const tqs_hw_t *got, const tqs_hw_t *want) {
  ck_assert_uint_eq(got->clock_hz, want->clock_hz);
  ck_assert_uint_eq(got->lram_bytes, want->lram_bytes);
  ck_assert_uint_eq(got->slices, want->slices);
  ck_assert_uint_eq(got->macs_per_slice, want->macs_per_slice);
  ck_assert_uint_eq(got->elementwise_lanes_per_slice, want->elementwise_lanes_per_slice);
  ck_assert_uint_eq(got->slice_task_overhead_cycles, want->slice_task_overhead_cycles);
  ck_assert_uint_eq(got->nss_task_overhead_cycles, want->nss_task_overhead_cycles);
  ck_assert_uint_eq(got->dma_bytes_per_cycle, want->dma_bytes_per_cycle);
  ck_assert_double_eq(got->dma_efficiency, want->dma_efficiency);
  ck_assert_uint_eq(got->dma_mtu_log2, want->dma_mtu_log2);
  ck_assert_uint_eq(got->dma_setup_cycles, want->dma_setup_cycles);
  ck_assert_uint_eq(got->dma_desc_cycles, want->dma_desc_cycles);
  ck_assert_uint_eq(got->xram_bytes_per_cycle, want->xram_bytes_per_cycle);
  ck_assert_uint_eq(got->lram_banks, want->lram_banks);
  ck_assert_uint_eq(got->cdma_bytes_per_cycle, want->cdma_bytes_per_cycle);
  ck_assert_uint_eq(got->itcm_bytes, want->itcm_bytes);
  ck_assert_uint_eq(got->dtcm_bytes, want->dtcm_bytes);
  ck_assert_uint_eq(got->css_call_cycles, want->css_call_cycles);
}

/* ---- The SL2610 description ----------------------------------------------------------------- */

START_TEST(sl2610_has_the_documented_numbers) {
  tqs_hw_t hw = sl2610();
  ck_assert_uint_eq(hw.clock_hz, 800000000u);
  ck_assert_uint_eq(hw.lram_bytes, 524288u);
  ck_assert_uint_eq(hw.slices, 2);
  ck_assert_uint_eq(hw.macs_per_slice, 256);
  ck_assert_uint_eq(hw.elementwise_lanes_per_slice, 64);
  ck_assert_uint_eq(hw.slice_task_overhead_cycles, 64);
  ck_assert_uint_eq(hw.nss_task_overhead_cycles, 16);
  ck_assert_uint_eq(hw.dma_bytes_per_cycle, 8);
  ck_assert_double_eq(hw.dma_efficiency, 0.65);
  ck_assert_uint_eq(hw.dma_mtu_log2, 4);
  ck_assert_uint_eq(hw.dma_setup_cycles, 40);
  ck_assert_uint_eq(hw.dma_desc_cycles, 40);
  ck_assert_uint_eq(hw.xram_bytes_per_cycle, 8);
  ck_assert_uint_eq(hw.lram_banks, 8);
  ck_assert_uint_eq(hw.cdma_bytes_per_cycle, 4);
  ck_assert_uint_eq(hw.itcm_bytes, 8192);
  ck_assert_uint_eq(hw.dtcm_bytes, 32768);
  ck_assert_uint_eq(hw.css_call_cycles, 8000);
}
END_TEST

START_TEST(unit_names_match_the_trace_and_module_names) {
  ck_assert_str_eq(tqs_unit_name(TQS_UNIT_DMA_IN), "DMA_IN");
  ck_assert_str_eq(tqs_unit_name(TQS_UNIT_DMA_OUT), "DMA_OUT");
  ck_assert_str_eq(tqs_unit_name(TQS_UNIT_SLICE0), "SLICE0");
  ck_assert_str_eq(tqs_unit_name(TQS_UNIT_SLICE1), "SLICE1");
  ck_assert_str_eq(tqs_unit_name(TQS_UNIT_CDMA), "CDMA");
  ck_assert_str_eq(tqs_unit_name(TQS_UNIT_CSS), "CSS");
  ck_assert_str_eq(tqs_unit_name(TQS_UNIT_COUNT), "?");
  ck_assert_str_eq(tqs_unit_name((tqs_unit_t)-1), "?");
}
END_TEST

/* ---- --torq-hw parsing ---------------------------------------------------------------------- */

static void want_defaults(tqs_hw_t *hw) {
  (void)hw;
}
static void want_readme_example(tqs_hw_t *hw) {
  hw->lram_bytes = 256ull * 1024;
  hw->slices = 1;
  hw->clock_hz = 600000000u;
  hw->dma_mtu_log2 = 3;
}
static void want_lram_128k(tqs_hw_t *hw) {
  hw->lram_bytes = 128ull * 1024;
}
static void want_lram_2k(tqs_hw_t *hw) {
  hw->lram_bytes = 2048;
}
static void want_dma_and_compute(tqs_hw_t *hw) {
  hw->dma_efficiency = 0.5;
  hw->dma_bytes_per_cycle = 16;
  hw->macs_per_slice = 512;
  hw->elementwise_lanes_per_slice = 128;
}
static void want_css_and_overheads(tqs_hw_t *hw) {
  hw->itcm_bytes = 16ull * 1024;
  hw->dtcm_bytes = 1024ull * 1024;
  hw->css_call_cycles = 4000;
  hw->cdma_bytes_per_cycle = 8;
  hw->dma_setup_cycles = 20;
  hw->nss_task_overhead_cycles = 0;
  hw->slice_task_overhead_cycles = 32;
  hw->clock_hz = 1000000000u;
}
static void want_npu_effects(tqs_hw_t *hw) {
  hw->dma_desc_cycles = 0;
  hw->xram_bytes_per_cycle = 16;
  hw->lram_banks = 0;
}
static void want_decimal_counts(tqs_hw_t *hw) {
  hw->clock_hz = 2000;
  hw->css_call_cycles = 3000000;
  hw->lram_bytes = 3ull << 30;
}
static void want_eff_quarter(tqs_hw_t *hw) {
  hw->dma_efficiency = 0.25;
  hw->dma_mtu_log2 = 0;
}
static void want_eff_one(tqs_hw_t *hw) {
  hw->dma_efficiency = 1.0;
  hw->dma_mtu_log2 = 16;
  hw->slices = 2;
}

static const struct {
  const char *spec;
  void (*want)(tqs_hw_t *hw);
} good_specs[] = {
    {"sl2610", want_defaults},
    {"SL2610", want_defaults},
    {"sl2610,lram=256K,slices=1,clock=600M,mtu=3", want_readme_example},
    {"lram=128k", want_lram_128k},
    {"sl2610,lram=1K,lram=2K", want_lram_2k},
    {"sl2610,dma_eff=0.5,dma_bpc=16,macs=512,lanes=128", want_dma_and_compute},
    {"sl2610,itcm=16K,dtcm=1M,css=4000,cdma_bpc=8,dma_setup=20,task_overhead=0,"
     "slice_overhead=32,clock=1G",
     want_css_and_overheads},
    {"sl2610,dma_desc=0,xram_bpc=16,lram_banks=0", want_npu_effects},
    {"clock=2k,css=3M,lram=3G", want_decimal_counts},
    {"sl2610,dma_eff=.25,mtu=0", want_eff_quarter},
    {"sl2610,dma_eff=1,mtu=16,slices=2", want_eff_one},
};

START_TEST(hw_parse_accepts_presets_and_overrides) {
  tqs_hw_t want = sl2610(), got;
  good_specs[_i].want(&want);
  CM_ASSERT_OK(tqs_hw_parse(good_specs[_i].spec, &got));
  assert_hw_eq(&got, &want);
}
END_TEST

static const struct {
  const char *spec;
  size_t offset;      /* where the caret must point */
  const char *phrase; /* must appear in the first line of the message */
} bad_specs[] = {
    {"", 0, "empty spec at offset 0"},
    {"sl2611", 0, "unknown preset \"sl2611\" at offset 0 (presets: sl2610)"},
    {"sl2610,foo=1", 7, "unknown key \"foo\" at offset 7"},
    {"sl2610,=5", 7, "unknown key \"\" at offset 7"},
    {"sl2610,slices=0", 14,
     "value 0 for key \"slices\" at offset 14 is out of range: must be at "
     "least 1"},
    {"sl2610,slices=3", 14,
     "value 3 for key \"slices\" at offset 14 is out of range: must be at "
     "most 2"},
    {"sl2610,lram=0", 12,
     "value 0 for key \"lram\" at offset 12 is out of range: must be at "
     "least 1"},
    {"sl2610,lram=0K", 12, "value 0 for key \"lram\" at offset 12"},
    {"sl2610,mtu=17", 11,
     "value 17 for key \"mtu\" at offset 11 is out of range: must be at most "
     "16"},
    {"sl2610,macs=4294967296", 12,
     "value 4294967296 for key \"macs\" at offset 12 is out of "
     "range: must be at most 4294967295"},
    {"sl2610,lram=12x", 12, "bad value \"12x\" for key \"lram\" at offset 12"},
    {"sl2610,lram=256KB", 12, "bad value \"256KB\" for key \"lram\" at offset 12"},
    {"sl2610,lram=", 12, "bad value \"\" for key \"lram\" at offset 12"},
    {"sl2610,lram=K", 12, "bad value \"K\" for key \"lram\" at offset 12"},
    {"sl2610,clock=-5", 13, "bad value \"-5\" for key \"clock\" at offset 13"},
    {"sl2610,clock=+5", 13, "bad value \"+5\" for key \"clock\" at offset 13"},
    {"sl2610,clock=18446744073709551616", 13,
     "bad value \"18446744073709551616\" for key "
     "\"clock\" at offset 13"},
    {"sl2610,clock=18446744073709551G", 13, "bad value \"18446744073709551G\" for key \"clock\""},
    {"sl2610,slices=1 ", 14, "bad value \"1 \" for key \"slices\" at offset 14"},
    {"sl2610,dma_eff=0", 15,
     "bad value \"0\" for key \"dma_eff\" at offset 15: expected a decimal "
     "fraction in (0, 1]"},
    {"sl2610,dma_eff=1.5", 15, "bad value \"1.5\" for key \"dma_eff\""},
    {"sl2610,dma_eff=0.6.5", 15, "bad value \"0.6.5\" for key \"dma_eff\""},
    {"sl2610,dma_eff=1e-1", 15, "bad value \"1e-1\" for key \"dma_eff\""},
    {"sl2610,dma_eff=.", 15, "bad value \".\" for key \"dma_eff\""},
    {"sl2610,dma_eff=0.1234567890123456", 15, "bad value \"0.1234567890123456\""},
    {"sl2610,,lram=1K", 7, "empty item at offset 7"},
    {"sl2610,", 7, "empty item at offset 7"},
    {",sl2610", 0, "empty item at offset 0"},
    {"sl2610,lram", 7, "expected KEY=VALUE, got \"lram\" at offset 7"},
    {"lram=1K,sl2610", 8, "expected KEY=VALUE, got \"sl2610\" at offset 8"},
};

START_TEST(hw_parse_rejects_bad_specs_naming_the_offset) {
  tqs_hw_t hw;
  memset(&hw, 0xab, sizeof(hw));
  tq_status_t st = tqs_hw_parse(bad_specs[_i].spec, &hw);
  ck_assert_ptr_nonnull(st);
  ck_assert_int_eq(tq_status_code(st), TQ_INVALID_ARGUMENT);
  const char *msg = tq_status_message(st);
  const char *nl = strchr(msg, '\n');
  ck_assert_ptr_nonnull(nl);
  char first[512];
  snprintf(first, sizeof(first), "%.*s", (int)(nl - msg), msg);
  ck_assert_msg(strncmp(first, "--torq-hw: ", 11) == 0, "message: %s", msg);
  ck_assert_msg(strstr(first, bad_specs[_i].phrase) != NULL, "want \"%s\" in: %s",
                bad_specs[_i].phrase, first);
  /* Then the spec, then the caret under the offset, both indented by two spaces. */
  char tail[512];
  snprintf(tail, sizeof(tail), "\n  %s\n  %*s^", bad_specs[_i].spec, (int)bad_specs[_i].offset, "");
  ck_assert_str_eq(nl, tail);
  tq_status_free(st);
  /* Nothing of a failed parse leaks out. */
  ck_assert_uint_eq(hw.clock_hz, 0);
  ck_assert_uint_eq(hw.lram_bytes, 0);
  ck_assert_uint_eq(hw.slices, 0);
}
END_TEST

START_TEST(hw_parse_unknown_key_message_lists_the_keys) {
  tqs_hw_t hw;
  tq_status_t st = tqs_hw_parse("sl2610,foo=1", &hw);
  ck_assert_ptr_nonnull(st);
  ck_assert_str_eq(tq_status_message(st),
                   "--torq-hw: unknown key \"foo\" at offset 7 (keys: clock, lram, slices, macs, "
                   "lanes, slice_overhead, task_overhead, dma_bpc, dma_eff, mtu, dma_setup, "
                   "dma_desc, xram_bpc, lram_banks, cdma_bpc, itcm, dtcm, css)\n"
                   "  sl2610,foo=1\n"
                   "         ^");
  tq_status_free(st);
}
END_TEST

START_TEST(hw_parse_rejects_null_spec) {
  tqs_hw_t hw;
  tq_status_t st = tqs_hw_parse(NULL, &hw);
  ck_assert_ptr_nonnull(st);
  ck_assert_int_eq(tq_status_code(st), TQ_INVALID_ARGUMENT);
  tq_status_free(st);
}
END_TEST

/* ---- DMA ------------------------------------------------------------------------------------ */

START_TEST(dma_throughput_is_832_over_175_bytes_per_cycle) {
  tqs_hw_t hw = sl2610();
  /* 8 * 0.65 * 16 / (16 + 1.5) = 5.2 * 16 / 17.5 = 83.2 / 17.5 = 832 / 175 = 4.754285714... */
  double t = tqs_cost_dma_throughput(&hw);
  ck_assert_double_eq_tol(t, 832.0 / 175.0, 1e-14);
  ck_assert_double_eq(t, 4.7542857142857144);
  /* m = 3: 8 * 0.65 * 8 / 9.5 = 41.6 / 9.5 = 4.378947... */
  hw.dma_mtu_log2 = 3;
  ck_assert_double_eq_tol(tqs_cost_dma_throughput(&hw), 41.6 / 9.5, 1e-14);
}
END_TEST

/* The SL2610 without its per-transfer set-up: bytes over throughput alone. */
static tqs_hw_t throughput_only(void) {
  tqs_hw_t hw = sl2610();
  hw.dma_setup_cycles = 0;
  return hw;
}

START_TEST(dma_of_a_1x56x56x24_i8_tensor_is_15831_cycles) {
  tqs_hw_t hw = throughput_only();
  /* 1*56*56*24 = 75,264 bytes. 75,264 / (832/175) = 75,264 * 175 / 832 = 13,171,200 / 832
   * = 15,830.769..., rounded up: 15,831 cycles; the SL2610's set-up adds 40 per transfer. */
  ck_assert_uint_eq(tqs_cost_dma(&hw, 75264), 15831);
  tqs_hw_t full = sl2610();
  ck_assert_uint_eq(tqs_cost_dma(&full, 75264), 15831 + 40);
  /* With mtu=3: 75,264 / (41.6 / 9.5) = 715,008 / 41.6 = 17,187.69..., so 17,188. */
  hw.dma_mtu_log2 = 3;
  ck_assert_uint_eq(tqs_cost_dma(&hw, 75264), 17188);
}
END_TEST

START_TEST(dma_of_a_whole_quotient_costs_no_extra_cycle) {
  tqs_hw_t hw = throughput_only();
  /* 832 bytes / (832/175) = exactly 175 cycles; 1664 -> 350; 833 -> 175.2 -> 176. */
  ck_assert_uint_eq(tqs_cost_dma(&hw, 832), 175);
  ck_assert_uint_eq(tqs_cost_dma(&hw, 1664), 350);
  ck_assert_uint_eq(tqs_cost_dma(&hw, 833), 176);
  ck_assert_uint_eq(tqs_cost_dma(&hw, 1), 1);
  ck_assert_uint_eq(tqs_cost_dma(&hw, 0), 0);
  /* dma_eff=0.7: 8 * 0.7 * 16 / 17.5 = 5.12 bytes/cycle, so 128 bytes are exactly 25 cycles, but
   * in doubles 128 / 5.12 is 25.000000000000004: that noise must not make 26. */
  hw.dma_efficiency = 0.7;
  ck_assert_double_ne(128.0 / tqs_cost_dma_throughput(&hw), 25.0);
  ck_assert_uint_eq(tqs_cost_dma(&hw, 128), 25);
  ck_assert_uint_eq(tqs_cost_dma(&hw, 384), 75);
  ck_assert_uint_eq(tqs_cost_dma(&hw, 129), 26);
}
END_TEST

START_TEST(dma_is_within_one_cycle_of_bytes_over_throughput) {
  tqs_hw_t hw = throughput_only();
  for (uint64_t bytes = 1; bytes < 200000; bytes += 97) {
    /* Exact rational: cycles = ceil(bytes * 175 / 832). */
    uint64_t exact = (bytes * 175 + 831) / 832;
    ck_assert_uint_eq(tqs_cost_dma(&hw, bytes), exact);
  }
  for (uint64_t bytes = 1; bytes < (1ull << 50); bytes = bytes * 3 + 1) {
    double q = (double)bytes / (832.0 / 175.0);
    uint64_t c = tqs_cost_dma(&hw, bytes);
    ck_assert_msg((double)c >= q - 1.0 && (double)c <= q + 1.0, "%llu bytes: %llu cycles",
                  (unsigned long long)bytes, (unsigned long long)c);
  }
}
END_TEST

START_TEST(dma_setup_cycles_are_added_to_each_non_empty_transfer) {
  tqs_hw_t hw = sl2610();
  hw.dma_setup_cycles = 100;
  ck_assert_uint_eq(tqs_cost_dma(&hw, 75264), 15831 + 100);
  ck_assert_uint_eq(tqs_cost_dma(&hw, 0), 0);
}
END_TEST

/* The NPU model's DMA time: whole beats of 8 bytes in whole bursts of 16 beats, 1.5 beats of
 * overhead a burst, at efficiency 0.65. */
START_TEST(dma_blocks_count_whole_beats_and_bursts) {
  tqs_hw_t hw = sl2610();
  /* One 75,264-byte block: 9,408 beats, 588 bursts: (9,408 + 882) / 0.65 = 15,830.77, the
   * estimate's bytes over throughput exactly (the block is whole bursts). */
  ck_assert_double_eq_tol(tqs_cost_dma_blocks(&hw, 1, 75264), 10290.0 / 0.65, 1e-9);
  ck_assert_double_eq_tol(tqs_cost_dma_blocks(&hw, 1, 75264), 75264.0 / (832.0 / 175.0), 1e-9);
  /* 24 blocks of 24 bytes: each 3 beats in one burst: 24 * 4.5 / 0.65 = 166.15 cycles, where
   * bytes over throughput says 576 / 4.754 = 121.15: short blocks cost more. */
  ck_assert_double_eq_tol(tqs_cost_dma_blocks(&hw, 24, 24), 24 * 4.5 / 0.65, 1e-9);
  ck_assert_double_gt(tqs_cost_dma_blocks(&hw, 24, 24), 576.0 / tqs_cost_dma_throughput(&hw));
  /* 1 byte is a whole beat; 129 bytes are 17 beats in 2 bursts. */
  ck_assert_double_eq_tol(tqs_cost_dma_blocks(&hw, 1, 1), 2.5 / 0.65, 1e-12);
  ck_assert_double_eq_tol(tqs_cost_dma_blocks(&hw, 1, 129), 20.0 / 0.65, 1e-12);
  ck_assert_double_eq(tqs_cost_dma_blocks(&hw, 0, 64), 0.0);
  ck_assert_double_eq(tqs_cost_dma_blocks(&hw, 3, 0), 0.0);
}
END_TEST

/* What the estimate charges a transfer: a dense one its bytes over the throughput, a strided one
 * its blocks' whole bursts; both plus the set-up. */
START_TEST(dma_transfer_charges_strided_blocks_by_their_bursts) {
  tqs_hw_t hw = sl2610();
  ck_assert_uint_eq(tqs_cost_dma_transfer(&hw, 1, 75264), tqs_cost_dma(&hw, 75264));
  ck_assert_uint_eq(tqs_cost_dma_transfer(&hw, 1, 75264), 15871);
  /* 24 blocks of 24 bytes: ceil(166.15) + 40, against ceil(576 * 175 / 832) + 40 dense. */
  ck_assert_uint_eq(tqs_cost_dma_transfer(&hw, 24, 24), 167 + 40);
  ck_assert_uint_eq(tqs_cost_dma(&hw, 576), 122 + 40);
  ck_assert_uint_eq(tqs_cost_dma_transfer(&hw, 0, 64), 0);
  ck_assert_uint_eq(tqs_cost_dma_transfer(&hw, 5, 0), 0);
  hw.dma_setup_cycles = UINT64_MAX - 5;
  ck_assert_uint_eq(tqs_cost_dma_transfer(&hw, 24, 24), TQS_CYCLES_MAX);
}
END_TEST

START_TEST(dma_saturates_instead_of_wrapping) {
  tqs_hw_t hw = sl2610();
  hw.dma_setup_cycles = UINT64_MAX - 5;
  ck_assert_uint_eq(tqs_cost_dma(&hw, 75264), TQS_CYCLES_MAX);
  hw = sl2610();
  hw.dma_efficiency = 0.0; /* hand-built, invalid: must not divide by zero */
  ck_assert_uint_eq(tqs_cost_dma(&hw, 1), TQS_CYCLES_MAX);
  hw = sl2610();
  hw.dma_efficiency = 1e-300;
  ck_assert_uint_eq(tqs_cost_dma(&hw, UINT64_MAX), TQS_CYCLES_MAX);
}
END_TEST

/* ---- Slices --------------------------------------------------------------------------------- */

static const struct {
  uint32_t bits;
  uint64_t macs_per_cycle;
  uint64_t elements_per_cycle;
} width_rates[] = {
    /* MACs: 256 / ceil(bits/8)^2; elementwise: 64 / ceil(bits/8). 0 bits counts as 8. */
    {0, 256, 64}, {1, 256, 64}, {8, 256, 64}, {9, 64, 32}, {16, 64, 32},
    {32, 16, 16}, {48, 7, 10},  {64, 4, 8},   {128, 1, 4}, {4096, 1, 1},
};

START_TEST(rates_scale_with_the_element_width) {
  tqs_hw_t hw = sl2610();
  ck_assert_uint_eq(tqs_cost_macs_per_cycle(&hw, width_rates[_i].bits),
                    width_rates[_i].macs_per_cycle);
  ck_assert_uint_eq(tqs_cost_elementwise_per_cycle(&hw, width_rates[_i].bits),
                    width_rates[_i].elements_per_cycle);
}
END_TEST

START_TEST(conv2d_3x3_on_1x56x56x24_costs_42400_cycles_per_slice) {
  tqs_hw_t hw = sl2610();
  /* conv2d i8, input 1x56x56x24, weights 32x3x3x24, stride 1, same padding: output 1x56x56x32.
   * MACs = N*OH*OW*OC*KH*KW*IC = 1*56*56*32*3*3*24 = 3,136 * 32 * 216 = 21,676,032. */
  uint64_t macs = 1ull * 56 * 56 * 32 * 3 * 3 * 24;
  ck_assert_uint_eq(macs, 21676032);
  uint64_t per_slice[2];
  tqs_split_over_slices(macs, hw.slices, per_slice);
  ck_assert_uint_eq(per_slice[0], 10838016);
  ck_assert_uint_eq(per_slice[1], 10838016);
  /* 10,838,016 / 256 = 42,336 exactly, + 64 overhead = 42,400. */
  ck_assert_uint_eq(tqs_cost_slice_macs(&hw, per_slice[0], 8), 42400);
  ck_assert_uint_eq(tqs_cost_slice_macs(&hw, per_slice[1], 8), 42400);
}
END_TEST

START_TEST(depthwise_3x3_stride2_rounds_up_to_2049_cycles_per_slice) {
  tqs_hw_t hw = sl2610();
  /* depthwise_conv2d i8, input 1x56x56x144, weights 3x3x144x1, stride 2: output 1x28x28x144.
   * MACs = N*OH*OW*C*M*KH*KW = 28*28*144*1*3*3 = 784 * 1,296 = 1,016,064. */
  uint64_t macs = 1ull * 28 * 28 * 144 * 1 * 3 * 3;
  ck_assert_uint_eq(macs, 1016064);
  uint64_t per_slice[2];
  tqs_split_over_slices(macs, 2, per_slice);
  ck_assert_uint_eq(per_slice[0], 508032);
  /* 508,032 / 256 = 1,984.5 -> 1,985, + 64 = 2,049. */
  ck_assert_uint_eq(tqs_cost_slice_macs(&hw, per_slice[0], 8), 2049);
}
END_TEST

START_TEST(matmul_1024x1000_costs_2064_cycles_per_slice_at_i8_and_8064_at_i16) {
  tqs_hw_t hw = sl2610();
  /* fully connected / matmul: [1, 1024] x [1024, 1000]. MACs = M*K*N = 1*1024*1000 = 1,024,000;
   * per slice 512,000. i8: 512,000 / 256 = 2,000 + 64 = 2,064. i16: 512,000 / 64 = 8,000 + 64 =
   * 8,064. i32: 512,000 / 16 = 32,000 + 64 = 32,064. */
  uint64_t per_slice[2];
  tqs_split_over_slices(1ull * 1024 * 1000, 2, per_slice);
  ck_assert_uint_eq(per_slice[0], 512000);
  ck_assert_uint_eq(per_slice[1], 512000);
  ck_assert_uint_eq(tqs_cost_slice_macs(&hw, per_slice[0], 8), 2064);
  ck_assert_uint_eq(tqs_cost_slice_macs(&hw, per_slice[0], 16), 8064);
  ck_assert_uint_eq(tqs_cost_slice_macs(&hw, per_slice[0], 32), 32064);
}
END_TEST

START_TEST(small_odd_matmul_puts_the_extra_mac_on_slice_0) {
  tqs_hw_t hw = sl2610();
  /* [7, 13] x [13, 5]: 7*13*5 = 455 MACs -> 228 on slice 0, 227 on slice 1; each is one cycle of
   * MACs (ceil(228/256) = 1) + 64 overhead = 65. */
  uint64_t per_slice[2];
  tqs_split_over_slices(7ull * 13 * 5, 2, per_slice);
  ck_assert_uint_eq(per_slice[0], 228);
  ck_assert_uint_eq(per_slice[1], 227);
  ck_assert_uint_eq(tqs_cost_slice_macs(&hw, per_slice[0], 8), 65);
  ck_assert_uint_eq(tqs_cost_slice_macs(&hw, per_slice[1], 8), 65);
}
END_TEST

START_TEST(elementwise_add_of_1x56x56x24_costs_652_cycles_per_slice) {
  tqs_hw_t hw = sl2610();
  /* add i8: 75,264 output elements, 37,632 per slice; 37,632 / 64 = 588 + 64 = 652. At i32:
   * 37,632 / 16 = 2,352 + 64 = 2,416. */
  uint64_t per_slice[2];
  tqs_split_over_slices(1ull * 56 * 56 * 24, 2, per_slice);
  ck_assert_uint_eq(per_slice[0], 37632);
  ck_assert_uint_eq(tqs_cost_slice_elementwise(&hw, per_slice[0], 8), 652);
  ck_assert_uint_eq(tqs_cost_slice_elementwise(&hw, per_slice[0], 32), 2416);
  /* 1 element still costs a cycle of lanes plus the overhead; none costs nothing. */
  ck_assert_uint_eq(tqs_cost_slice_elementwise(&hw, 1, 8), 65);
  ck_assert_uint_eq(tqs_cost_slice_elementwise(&hw, 0, 8), 0);
}
END_TEST

START_TEST(idle_slice_costs_nothing_and_huge_work_saturates) {
  tqs_hw_t hw = sl2610();
  ck_assert_uint_eq(tqs_cost_slice_macs(&hw, 0, 8), 0);
  /* ceil((2^64-1) / 1) + 64 does not fit. */
  ck_assert_uint_eq(tqs_cost_slice_macs(&hw, UINT64_MAX, 4096), TQS_CYCLES_MAX);
  ck_assert_uint_eq(tqs_cost_slice_elementwise(&hw, UINT64_MAX, 4096), TQS_CYCLES_MAX);
  /* A hand-built description with zero rates divides by 1, not 0. */
  hw.macs_per_slice = 0;
  hw.elementwise_lanes_per_slice = 0;
  hw.cdma_bytes_per_cycle = 0;
  ck_assert_uint_eq(tqs_cost_slice_macs(&hw, 10, 8), 10 + 64);
  ck_assert_uint_eq(tqs_cost_slice_elementwise(&hw, 10, 8), 10 + 64);
  ck_assert_uint_eq(tqs_cost_cdma(&hw, 10), 10);
}
END_TEST

/* ---- CDMA, CSS, split ----------------------------------------------------------------------- */

START_TEST(cdma_moves_4_bytes_per_cycle_and_css_costs_8000) {
  tqs_hw_t hw = sl2610();
  /* The whole 8 KiB ITCM: 8,192 / 4 = 2,048 cycles; 5 bytes: ceil(5/4) = 2. */
  ck_assert_uint_eq(tqs_cost_cdma(&hw, hw.itcm_bytes), 2048);
  ck_assert_uint_eq(tqs_cost_cdma(&hw, 5), 2);
  ck_assert_uint_eq(tqs_cost_cdma(&hw, 0), 0);
  ck_assert_uint_eq(tqs_cost_css(&hw), 8000);
  hw.css_call_cycles = 123;
  ck_assert_uint_eq(tqs_cost_css(&hw), 123);
}
END_TEST

static const struct {
  uint64_t total;
  uint32_t slices;
  uint64_t want[3];
} splits[] = {
    {7, 2, {4, 3, 99}},   {8, 2, {4, 4, 99}},
    {1, 2, {1, 0, 99}},   {0, 2, {0, 0, 99}},
    {8, 3, {3, 3, 2}},    {5, 1, {5, 99, 99}},
    {9, 0, {99, 99, 99}}, {UINT64_MAX, 2, {UINT64_MAX / 2 + 1, UINT64_MAX / 2, 99}},
};

START_TEST(split_over_slices_is_balanced_with_the_remainder_first) {
  uint64_t out[3] = {99, 99, 99}; /* 99: entries past `slices` stay untouched */
  tqs_split_over_slices(splits[_i].total, splits[_i].slices, out);
  for (int s = 0; s < 3; s++) ck_assert_uint_eq(out[s], splits[_i].want[s]);
}
END_TEST

/* ---- NSS schedule --------------------------------------------------------------------------- */

START_TEST(schedule_of_three_tasks_follows_the_nss_task_rule) {
  tqs_hw_t hw = throughput_only();
  tqs_task_timing_t tasks[3];
  memset(tasks, 0, sizeof(tasks));
  /* Task 0: DMA in the 1x56x56x24 i8 input: 15,831 cycles (worked out above). */
  tasks[0].cycles[TQS_UNIT_DMA_IN] = tqs_cost_dma(&hw, 75264);
  /* Task 1: the 3x3 conv on both slices (42,400 each) while the next tile comes in. */
  tasks[1].cycles[TQS_UNIT_SLICE0] = tqs_cost_slice_macs(&hw, 10838016, 8);
  tasks[1].cycles[TQS_UNIT_SLICE1] = tqs_cost_slice_macs(&hw, 10838016, 8);
  tasks[1].cycles[TQS_UNIT_DMA_IN] = tqs_cost_dma(&hw, 75264);
  /* Task 2: DMA out the 1x56x56x32 result, 100,352 bytes: 100,352 * 175 / 832 = 21,107.69 ->
   * 21,108; and one CSS call, 8,000. */
  tasks[2].cycles[TQS_UNIT_DMA_OUT] = tqs_cost_dma(&hw, 100352);
  tasks[2].cycles[TQS_UNIT_CSS] = tqs_cost_css(&hw);
  ck_assert_uint_eq(tasks[2].cycles[TQS_UNIT_DMA_OUT], 21108);

  uint64_t total = tqs_task_schedule(&hw, tasks, 3);

  /* Task 0: starts at 0, ends at 15,831. */
  ck_assert_uint_eq(tasks[0].start, 0);
  ck_assert_uint_eq(tasks[0].end, 15831);
  ck_assert_uint_eq(tasks[0].unit_end[TQS_UNIT_DMA_IN], 15831);
  ck_assert_uint_eq(tasks[0].unit_end[TQS_UNIT_SLICE0], 0); /* idle: ends where it starts */
  /* Task 1: 15,831 + 16 (NSS overhead) = 15,847. Every unit starts there; the DMA ends at
   * 15,847 + 15,831 = 31,678, the slices at 15,847 + 42,400 = 58,247, which ends the task. */
  ck_assert_uint_eq(tasks[1].start, 15847);
  ck_assert_uint_eq(tasks[1].unit_end[TQS_UNIT_DMA_IN], 31678);
  ck_assert_uint_eq(tasks[1].unit_end[TQS_UNIT_SLICE0], 58247);
  ck_assert_uint_eq(tasks[1].unit_end[TQS_UNIT_SLICE1], 58247);
  ck_assert_uint_eq(tasks[1].end, 58247);
  /* Task 2: 58,247 + 16 = 58,263; CSS ends at 66,263, DMA out at 58,263 + 21,108 = 79,371. */
  ck_assert_uint_eq(tasks[2].start, 58263);
  ck_assert_uint_eq(tasks[2].unit_end[TQS_UNIT_CSS], 66263);
  ck_assert_uint_eq(tasks[2].unit_end[TQS_UNIT_DMA_OUT], 79371);
  ck_assert_uint_eq(tasks[2].end, 79371);
  ck_assert_uint_eq(total, 79371);
}
END_TEST

START_TEST(schedule_without_overhead_chains_tasks_back_to_back) {
  tqs_hw_t hw = sl2610();
  hw.nss_task_overhead_cycles = 0;
  tqs_task_timing_t tasks[3];
  memset(tasks, 0, sizeof(tasks));
  tasks[0].cycles[TQS_UNIT_CDMA] = 10;
  /* Task 1 has no work at all: it still takes its place in the chain, for zero cycles. */
  tasks[2].cycles[TQS_UNIT_DMA_OUT] = 5;
  tasks[2].cycles[TQS_UNIT_SLICE1] = 7;
  ck_assert_uint_eq(tqs_task_schedule(&hw, tasks, 3), 17);
  ck_assert_uint_eq(tasks[1].start, 10);
  ck_assert_uint_eq(tasks[1].end, 10);
  ck_assert_uint_eq(tasks[2].start, 10);
  ck_assert_uint_eq(tasks[2].unit_end[TQS_UNIT_DMA_OUT], 15);
  ck_assert_uint_eq(tasks[2].end, 17);
}
END_TEST

START_TEST(schedule_of_no_tasks_is_zero_and_overflow_saturates) {
  tqs_hw_t hw = sl2610();
  ck_assert_uint_eq(tqs_task_schedule(&hw, NULL, 0), 0);
  tqs_task_timing_t tasks[2];
  memset(tasks, 0, sizeof(tasks));
  tasks[0].cycles[TQS_UNIT_CSS] = UINT64_MAX - 10;
  tasks[1].cycles[TQS_UNIT_CSS] = 100;
  ck_assert_uint_eq(tqs_task_schedule(&hw, tasks, 2), TQS_CYCLES_MAX);
  /* (2^64 - 1 - 10) + 16 overhead does not fit: task 1 starts at the saturated maximum. */
  ck_assert_uint_eq(tasks[1].start, TQS_CYCLES_MAX);
  ck_assert_uint_eq(tasks[1].end, TQS_CYCLES_MAX);
}
END_TEST

Suite *cost_model_suite(void) {
  Suite *s = suite_create("cost_model");
  TCase *tc = tcase_create("hw");
  tcase_add_test(tc, sl2610_has_the_documented_numbers);
  tcase_add_test(tc, unit_names_match_the_trace_and_module_names);
  tcase_add_loop_test(tc, hw_parse_accepts_presets_and_overrides, 0,
                      (int)(sizeof(good_specs) / sizeof(good_specs[0])));
  tcase_add_loop_test(tc, hw_parse_rejects_bad_specs_naming_the_offset, 0,
                      (int)(sizeof(bad_specs) / sizeof(bad_specs[0])));
  tcase_add_test(tc, hw_parse_unknown_key_message_lists_the_keys);
  tcase_add_test(tc, hw_parse_rejects_null_spec);
  suite_add_tcase(s, tc);

  tc = tcase_create("costs");
  tcase_add_test(tc, dma_throughput_is_832_over_175_bytes_per_cycle);
  tcase_add_test(tc, dma_of_a_1x56x56x24_i8_tensor_is_15831_cycles);
  tcase_add_test(tc, dma_of_a_whole_quotient_costs_no_extra_cycle);
  tcase_add_test(tc, dma_is_within_one_cycle_of_bytes_over_throughput);
  tcase_add_test(tc, dma_setup_cycles_are_added_to_each_non_empty_transfer);
  tcase_add_test(tc, dma_blocks_count_whole_beats_and_bursts);
  tcase_add_test(tc, dma_transfer_charges_strided_blocks_by_their_bursts);
  tcase_add_test(tc, dma_saturates_instead_of_wrapping);
  tcase_add_loop_test(tc, rates_scale_with_the_element_width, 0,
                      (int)(sizeof(width_rates) / sizeof(width_rates[0])));
  tcase_add_test(tc, conv2d_3x3_on_1x56x56x24_costs_42400_cycles_per_slice);
  tcase_add_test(tc, depthwise_3x3_stride2_rounds_up_to_2049_cycles_per_slice);
  tcase_add_test(tc, matmul_1024x1000_costs_2064_cycles_per_slice_at_i8_and_8064_at_i16);
  tcase_add_test(tc, small_odd_matmul_puts_the_extra_mac_on_slice_0);
  tcase_add_test(tc, elementwise_add_of_1x56x56x24_costs_652_cycles_per_slice);
  tcase_add_test(tc, idle_slice_costs_nothing_and_huge_work_saturates);
  tcase_add_test(tc, cdma_moves_4_bytes_per_cycle_and_css_costs_8000);
  tcase_add_loop_test(tc, split_over_slices_is_balanced_with_the_remainder_first, 0,
                      (int)(sizeof(splits) / sizeof(splits[0])));
  suite_add_tcase(s, tc);

  tc = tcase_create("schedule");
  tcase_add_test(tc, schedule_of_three_tasks_follows_the_nss_task_rule);
  tcase_add_test(tc, schedule_without_overhead_chains_tasks_back_to_back);
  tcase_add_test(tc, schedule_of_no_tasks_is_zero_and_overflow_saturates);
  suite_add_tcase(s, tc);
  return s;
}
