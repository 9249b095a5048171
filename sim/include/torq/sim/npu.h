/* The Torq NPU model: executes NSS programs from a module, functionally (the slices really
 * compute on LRAM data, DMA really moves bytes between XRAM and LRAM) and in time (the NSS task
 * rule, with what each unit really takes in its task), deterministically.
 *
 * ==== Time ====================================================================================
 *
 * Tasks follow the NPU contract's NSS task rule (tqf_nss_clock_t), the clock the cost model's
 * estimate steps too. What a unit takes within a task is where the two differ: the estimate
 * charges each work item the cost model's cycles alone; this model times the task's items
 * together, with these effects (numbers in the hardware description, hw.h, --torq-hw keys):
 *   - DMA descriptors (dma_desc): each transfer of a DMA_IN or DMA_OUT item first spends
 *     dma_desc_cycles on its descriptor, moving nothing; the transfers of an item run in order.
 *   - Bursts (dma_bpc, dma_eff, mtu): a transfer moves its XRAM blocks in whole beats of
 *     dma_bytes_per_cycle bytes and whole bursts of 2^m beats, 1.5 beats of overhead a burst, at
 *     dma_efficiency (tqs_cost_dma_blocks): a long dense block at the estimate's throughput, short
 *     or partial blocks slower.
 *   - Shared XRAM (xram_bpc): while DMA_IN and DMA_OUT both move data, XRAM serves them at most
 *     xram_bytes_per_cycle together; when their full rates add up to more, both slow down in
 *     proportion. The model steps from event to event (a set-up or a transfer ending), so the
 *     share follows what really overlaps. One channel alone runs at its full rate.
 *   - LRAM banks (lram_banks): LRAM is lram_banks banks of consecutive addresses, each with one
 *     port of one 64-byte line a cycle. Every line a DMA transfer or a CDMA copy moves in or out
 *     of a bank, while a slice item works in that bank, costs the item a cycle (the DMA has the
 *     port first). A transfer's lines are spread evenly over the time it moves data and over its
 *     LRAM extent; a CDMA copy's over its whole time. 0 banks: no bank model.
 * Slice items take the cost model's cycles plus their bank cycles, one after the other on their
 * slice; CDMA and CSS take the cost model's cycles. Times are computed in doubles from integers
 * in a fixed order and each item's end is rounded up to whole cycles, so a program takes the same
 * cycles on every run and host. With the effects switched off (dma_desc=0, an xram_bpc above
 * both channels' rates, lram_banks=0, and the estimate's dma_setup=0), dense transfers of whole
 * bursts take exactly the estimate's cycles: the difference is the effects alone.
 *
 * What each unit does, and when, is the NPU contract, torq/formats/contract.h ("What a slice
 * kernel computes", "DMA work", "Time: the NSS task rule"): the compiler and this model implement
 * the two sides of it.
 *
 * Errors (TQ_INVALID_INPUT, with the job id, task index, unit and trace id in the message): a
 * region outside LRAM or outside its XRAM buffer, an unknown kernel or unit, operand shapes or
 * types that do not match the regions, a malformed program. Never memory corruption.
 */
#ifndef TORQ_SIM_NPU_H
#define TORQ_SIM_NPU_H

#include <stddef.h>
#include <stdint.h>

#include "torq/base/status.h"
#include "torq/formats/contract.h"
#include "torq/sim/hw.h"

typedef struct tqs_npu_s tqs_npu_t;

/* An XRAM buffer as the runtime allocated it: `size` bytes at `data` (borrowed for the call).
 * The module's buffer ids index an array of these; views are resolved by the caller (a view's
 * entry points into its base buffer's bytes). A NULL `data` means "not allocated now". */
typedef struct tqs_xram_buffer_s {
  uint8_t *data;
  size_t size;
} tqs_xram_buffer_t;

/* Timing of one unit's work item, reported to an observer as the program runs. */
typedef struct tqs_npu_event_s {
  uint32_t job_id;
  uint32_t task_index;
  tqs_unit_t unit;
  const char *trace_id; /* borrowed from the program: "DI0", "S3" */
  uint64_t start_cycle; /* from the start of the program */
  uint64_t end_cycle;
} tqs_npu_event_t;

typedef struct tqs_npu_observer_s {
  void (*on_unit_work)(void *user, const tqs_npu_event_t *event); /* must not fail */
  void *user;
} tqs_npu_observer_t;

typedef struct tqs_npu_result_s {
  uint64_t cycles;                      /* end of the last task */
  uint64_t busy_cycles[TQS_UNIT_COUNT]; /* per unit, summed over its work items */
  uint64_t tasks;
  /* Where the program's DMA works against its compute, in cycles: when DMA in, DMA out or the
   * CDMA works (dma), when a slice or the CSS works (compute), and both at once (overlap), each
   * the length of a union over the program's work items. A double-buffered program overlaps
   * the DMA of tile n + 1 with the compute of tile n: overlap below dma, its first loads and
   * last stores DMA alone. The overview of the Torq tools (harness overview.h) counts a
   * program's whole slot for every unit it uses: it sees a pipeline's DMA-only prologue and
   * epilogue programs, not what overlaps within its steady state. */
  uint64_t dma_cycles, compute_cycles, overlap_cycles;
} tqs_npu_result_t;

/* Creates an NPU for `hw` (copied): an LRAM of hw->lram_bytes, zero-filled. Caller owns it. */
tq_status_t tqs_npu_create(const tqs_hw_t *hw, tqs_npu_t **out_npu) TQ_MUST_USE;

/* Runs `program` to completion. `xram` has `num_xram` entries indexed by buffer id. `observer`
 * may be NULL. *out_result is cleared on entry and filled on success. Does not allocate per task
 * or per work item (scratch memory is sized on first use and kept).
 *
 * Time: the contract's NSS task rule (tqf_nss_clock_t, the one the cost model's
 * tqs_task_schedule() steps too) with each unit's cycles as "Time" above says, so a compiled
 * program takes its estimated_cycles plus what the effects cost (the reconciliation measures
 * it). Observer events come in task order, then work-list order, one per work item (a slice's
 * items one after the other).
 *
 * Semantics: a run starts from a zeroed LRAM, except a pipeline's STEADY or EPILOGUE program
 * (NssProgram.stage; contract.h, "Stages of a pipeline"), which reads the LRAM its predecessor
 * (job job_id - 1, of the stage before) left and is refused unless that job is the last one this
 * NPU ran successfully. The units of a task run concurrently, so an
 * item that writes bytes an item of another unit of the task reads or writes is an error ("LRAM
 * hazard", "XRAM hazard"; strided regions count by their extent), as is a slice result
 * overlapping its own operands; the items of one slice run in order and may read what an
 * earlier one wrote. The whole program is validated before anything runs: on error no XRAM byte has
 * changed. CDMA moves no bytes (the CSS memories are not modelled; its regions must lie in
 * LRAM); the contract defines no CSS kernels, so only a CSS call without a kernel is accepted. */
tq_status_t tqs_npu_run(tqs_npu_t *npu, const Torq__NssProgram *program,
                        const tqs_xram_buffer_t *xram, size_t num_xram,
                        const tqs_npu_observer_t *observer,
                        tqs_npu_result_t *out_result) TQ_MUST_USE;

void tqs_npu_destroy(tqs_npu_t *npu);

#endif
