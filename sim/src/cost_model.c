/* The Torq NPU cost model: cycles per DMA transfer, slice program, CDMA copy and CSS call, and
 * the NSS task schedule. */
#include "torq/sim/cost_model.h"

#include <float.h>
#include <math.h>

#include "torq/base/checked.h"
#include "torq/formats/contract.h"

/* Rates of 0 (a hardware description that leaves one out) count as 1 per cycle. */
static uint64_t tqs__ceil_div(uint64_t n, uint64_t d) { return tq_u64_div_ceil(n, d ? d : 1); }

/* ceil(max(bits, 1) / 8), with 0 bits counting as 8. */
static uint64_t tqs__width_bytes(uint32_t element_bits) {
  if (element_bits == 0) return 1;
  return ((uint64_t)element_bits + 7) / 8;
}

/* Beats of overhead per DMA burst (the 1.5 of the burst efficiency 2^m / (2^m + 1.5)). */
#define TQS__BURST_OVERHEAD_BEATS 1.5

double tqs_cost_dma_throughput(const tqs_hw_t *hw) {
  double burst = ldexp(1.0, (int)hw->dma_mtu_log2);
  double bpc = hw->dma_bytes_per_cycle ? (double)hw->dma_bytes_per_cycle : 1.0;
  return bpc * hw->dma_efficiency * (burst / (burst + TQS__BURST_OVERHEAD_BEATS));
}

double tqs_cost_dma_blocks(const tqs_hw_t *hw, uint64_t blocks, uint64_t block_bytes) {
  if (blocks == 0 || block_bytes == 0) return 0.0;
  uint64_t beats = tqs__ceil_div(block_bytes, hw->dma_bytes_per_cycle);
  uint64_t bursts = tq_u64_div_ceil(beats, UINT64_C(1) << (hw->dma_mtu_log2 & 63));
  double eff = hw->dma_efficiency > 0.0 ? hw->dma_efficiency : 1.0;
  return (double)blocks * ((double)beats + TQS__BURST_OVERHEAD_BEATS * (double)bursts) / eff;
}

uint64_t tqs_cost_dma(const tqs_hw_t *hw, uint64_t bytes) {
  if (bytes == 0) return 0;
  double throughput = tqs_cost_dma_throughput(hw);
  if (!(throughput > 0.0)) return TQS_CYCLES_MAX;
  double q = (double)bytes / throughput;
  /* Binary rounding of the efficiency can leave a whole real-number quotient a few ulps above an
   * integer; that must not cost a cycle. The margin is relative to q's own precision, so it never
   * exceeds a small fraction of a cycle. */
  double c = ceil(q - q * (4 * DBL_EPSILON));
  if (!(c < 18446744073709551616.0)) return TQS_CYCLES_MAX;
  return tq_u64_add_sat((uint64_t)c, hw->dma_setup_cycles);
}

uint64_t tqs_cost_dma_transfer(const tqs_hw_t *hw, uint64_t blocks, uint64_t block_bytes) {
  if (blocks <= 1) return blocks ? tqs_cost_dma(hw, block_bytes) : 0;
  if (block_bytes == 0) return 0;
  double q = tqs_cost_dma_blocks(hw, blocks, block_bytes);
  double c = ceil(q - q * (4 * DBL_EPSILON));
  if (!(c < 18446744073709551616.0)) return TQS_CYCLES_MAX;
  return tq_u64_add_sat((uint64_t)c, hw->dma_setup_cycles);
}

uint64_t tqs_cost_macs_per_cycle(const tqs_hw_t *hw, uint32_t element_bits) {
  uint64_t w = tqs__width_bytes(element_bits);
  uint64_t rate = hw->macs_per_slice / (w * w);
  return rate ? rate : 1;
}

uint64_t tqs_cost_slice_macs(const tqs_hw_t *hw, uint64_t macs, uint32_t element_bits) {
  if (macs == 0) return 0;
  return tq_u64_add_sat(tqs__ceil_div(macs, tqs_cost_macs_per_cycle(hw, element_bits)),
                      hw->slice_task_overhead_cycles);
}

uint64_t tqs_cost_elementwise_per_cycle(const tqs_hw_t *hw, uint32_t element_bits) {
  uint64_t rate = hw->elementwise_lanes_per_slice / tqs__width_bytes(element_bits);
  return rate ? rate : 1;
}

uint64_t tqs_cost_slice_elementwise(const tqs_hw_t *hw, uint64_t elements, uint32_t element_bits) {
  if (elements == 0) return 0;
  return tq_u64_add_sat(tqs__ceil_div(elements, tqs_cost_elementwise_per_cycle(hw, element_bits)),
                      hw->slice_task_overhead_cycles);
}

uint64_t tqs_cost_cdma(const tqs_hw_t *hw, uint64_t bytes) {
  return tqs__ceil_div(bytes, hw->cdma_bytes_per_cycle);
}

uint64_t tqs_cost_css(const tqs_hw_t *hw) {
  return hw->css_call_cycles;
}

void tqs_split_over_slices(uint64_t total_units, uint32_t slices, uint64_t out_per_slice[]) {
  if (slices == 0) return;
  uint64_t base = total_units / slices, extra = total_units % slices;
  for (uint32_t s = 0; s < slices; s++) out_per_slice[s] = base + (s < extra);
}

uint64_t tqs_task_schedule(const tqs_hw_t *hw, tqs_task_timing_t *tasks, size_t count) {
  tqf_nss_clock_t clock;
  tqf_nss_clock_init(&clock, hw->nss_task_overhead_cycles);
  for (size_t i = 0; i < count; i++) {
    tqs_task_timing_t *t = &tasks[i];
    t->start = tqf_nss_task_begin(&clock);
    for (int u = 0; u < TQS_UNIT_COUNT; u++) t->unit_end[u] = tqf_nss_unit(&clock, t->cycles[u]);
    t->end = clock.end;
  }
  return clock.end;
}
