/* The cost model of the Torq NPU (DESIGN section 4): how many cycles a DMA transfer, a slice
 * program, a CDMA copy and a CSS call take, and how an NSS program's tasks line up in time.
 *
 * Every function is pure: the result depends only on the arguments, nothing is allocated, nothing
 * fails. Cycles are uint64_t and saturate at TQS_CYCLES_MAX instead of wrapping, so a caller that
 * computed sizes from a file can test for TQS_CYCLES_MAX once at the end. Hardware fields that
 * divide (bytes or MACs per cycle) count as 1 when 0, so a hand-built tqs_hw_t never divides by
 * zero; tqs_hw_parse() never produces such a description.
 *
 * Element widths are in bits (8 for i8, 16 for bf16, 1 for i1); 0 counts as 8.
 */
#ifndef TORQ_SIM_COST_MODEL_H
#define TORQ_SIM_COST_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "torq/sim/hw.h"

#define TQS_CYCLES_MAX UINT64_MAX

/* DMA bytes per cycle in practice, per channel:
 *
 *     dma_bytes_per_cycle * dma_efficiency * (2^m / (2^m + 1.5)),   m = dma_mtu_log2
 *
 * evaluated in that order in double precision. For the SL2610 this is 8 * 0.65 * (16 / 17.5),
 * the double 4.7542857142857144 (exactly 832/175 = 4.754285714285714... in real numbers). */
double tqs_cost_dma_throughput(const tqs_hw_t *hw);

/* Cycles of one DMA transfer (in or out; the channels are alike) of `bytes` bytes:
 *
 *     ceil(bytes / tqs_cost_dma_throughput(hw)) + dma_setup_cycles,   0 for 0 bytes.
 *
 * A quotient less than 4 * DBL_EPSILON (relative, about 9e-16) above an integer counts as that
 * integer, so the rounding of 0.65 in binary does not add a cycle where the real-number quotient
 * is whole (832 bytes are 175 cycles on the SL2610, not 176). The result is within one cycle of
 * bytes / throughput (plus setup) for any size below 2^53 bytes. */
uint64_t tqs_cost_dma(const tqs_hw_t *hw, uint64_t bytes);

/* Cycles one DMA channel needs, alone and after its descriptor's set-up, to move `blocks`
 * contiguous XRAM blocks of `block_bytes` each, in whole beats and whole bursts: each block is
 * ceil(block_bytes / dma_bytes_per_cycle) beats sent in bursts of at most 2^m beats, each burst
 * with the 1.5 beats of overhead of the throughput formula above, all at dma_efficiency:
 *
 *     blocks * (beats + 1.5 * ceil(beats / 2^m)) / dma_efficiency.
 *
 * For a long dense block this is bytes / tqs_cost_dma_throughput() up to the rounding to whole
 * bursts; short or strided blocks cost more, which the estimate does not see. The NPU model times
 * DMA with it (npu.h, "Time"). 0 for no bytes. */
double tqs_cost_dma_blocks(const tqs_hw_t *hw, uint64_t blocks, uint64_t block_bytes);

/* Cycles of one transfer of `blocks` contiguous XRAM blocks of `block_bytes` each, as the
 * estimate charges it: a dense transfer (blocks <= 1) is tqs_cost_dma(block_bytes); a strided one
 * starts new bursts with every block, so it is ceil(tqs_cost_dma_blocks()) + dma_setup_cycles,
 * and short blocks cost more than their bytes over the throughput. 0 for no bytes. */
uint64_t tqs_cost_dma_transfer(const tqs_hw_t *hw, uint64_t blocks, uint64_t block_bytes);

/* MACs per cycle of one slice at an operand width: macs_per_slice / ceil(bits / 8)^2, at least
 * 1 (a wider MAC uses several 8x8 multipliers). SL2610: i8 256, i16 64, i32 16, i64 4. */
uint64_t tqs_cost_macs_per_cycle(const tqs_hw_t *hw, uint32_t element_bits);

/* Cycles of one slice program doing `macs` multiply-accumulates at `element_bits`:
 *
 *     ceil(macs / tqs_cost_macs_per_cycle(hw, element_bits)) + slice_task_overhead_cycles,
 *
 * 0 when macs is 0 (the slice takes no part in the task). The MACs are the slice's share:
 * split a layer's work with tqs_split_over_slices() first. */
uint64_t tqs_cost_slice_macs(const tqs_hw_t *hw, uint64_t macs, uint32_t element_bits);

/* Elements per cycle of one slice's vector path: elementwise_lanes_per_slice / ceil(bits / 8),
 * at least 1. SL2610: i8 64, i16 32, i32 16, i64 8. */
uint64_t tqs_cost_elementwise_per_cycle(const tqs_hw_t *hw, uint32_t element_bits);

/* Cycles of one slice program producing `elements` output elements of elementwise work:
 *
 *     ceil(elements / tqs_cost_elementwise_per_cycle(hw, element_bits))
 *         + slice_task_overhead_cycles,
 *
 * 0 when elements is 0. Use the widest operand's width. */
uint64_t tqs_cost_slice_elementwise(const tqs_hw_t *hw, uint64_t elements, uint32_t element_bits);

/* Cycles of one CDMA copy: ceil(bytes / cdma_bytes_per_cycle), 0 for 0 bytes. */
uint64_t tqs_cost_cdma(const tqs_hw_t *hw, uint64_t bytes);

/* Cycles of one CSS call: css_call_cycles, whatever the work. */
uint64_t tqs_cost_css(const tqs_hw_t *hw);

/* Splits `total_units` (MACs, output rows, elements) over `slices` slices as evenly as whole
 * units allow: each gets total_units / slices and the first total_units % slices get one more,
 * so slice 0 holds the remainder with 2 slices (7 -> 4, 3). Writes out_per_slice[0..slices-1]
 * (the caller's array of at least `slices` entries); writes nothing when slices is 0. */
void tqs_split_over_slices(uint64_t total_units, uint32_t slices, uint64_t out_per_slice[]);

/* One task of an NSS program, for tqs_task_schedule(). */
typedef struct tqs_task_timing_s {
  /* In: cycles each unit works in this task (from the tqs_cost_* functions); 0 = unit idle. */
  uint64_t cycles[TQS_UNIT_COUNT];
  /* Out: when the task starts and ends; every unit starts at `start` and unit u ends at
   * unit_end[u] = start + cycles[u] (= start for an idle unit, which has no trace row).
   * end = the latest unit_end, or start when every unit is idle. */
  uint64_t start;
  uint64_t end;
  uint64_t unit_end[TQS_UNIT_COUNT];
} tqs_task_timing_t;

/* Lays out the tasks of one NSS program by the NPU contract's NSS task rule (tqf_nss_clock_t,
 * torq/formats/contract.h, with hw's nss_task_overhead_cycles): a task starts all of its units
 * at once and ends when the last of them ends; the first task starts at cycle 0 and each next
 * one starts nss_task_overhead_cycles after the previous one ends. Fills the "out" fields of
 * tasks[0..count-1] (count may be 0) and returns the program's total cycles, the end of its last
 * task (0 for no tasks). */
uint64_t tqs_task_schedule(const tqs_hw_t *hw, tqs_task_timing_t *tasks, size_t count);

#endif
