/* The Torq NPU model: executes NSS programs from a module, functionally (the slices really
 * compute on LRAM data, DMA really moves bytes between XRAM and LRAM) and in time (cycles from
 * the cost model, on the NSS task rule), deterministically.
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
  uint64_t cycles;                     /* end of the last task */
  uint64_t busy_cycles[TQS_UNIT_COUNT]; /* per unit, summed over its work items */
  uint64_t tasks;
} tqs_npu_result_t;

/* Creates an NPU for `hw` (copied): an LRAM of hw->lram_bytes, zero-filled. Caller owns it. */
tq_status_t tqs_npu_create(const tqs_hw_t *hw, tqs_npu_t **out_npu) TQ_MUST_USE;

/* Runs `program` to completion. `xram` has `num_xram` entries indexed by buffer id. `observer`
 * may be NULL. *out_result is cleared on entry and filled on success. Does not allocate per task
 * or per work item (scratch memory is sized on first use and kept).
 *
 * Time: the contract's NSS task rule (tqf_nss_clock_t, the one the cost model's
 * tqs_task_schedule() steps too), each item costing what the contract charges for it (the same
 * tqs_cost_* as the lowering), so a compiled program takes exactly its estimated_cycles.
 * Observer events come in task order, then work-list order.
 *
 * Semantics: every run starts from a zeroed LRAM. The items of a task run concurrently, so one
 * that writes bytes another item of the task reads or writes is an error ("LRAM hazard",
 * "XRAM hazard"; strided regions count by their extent), as is a slice result overlapping its
 * own operands. The whole program is validated before anything runs: on error no XRAM byte has
 * changed. CDMA moves no bytes (the CSS memories are not modelled; its regions must lie in
 * LRAM); the contract defines no CSS kernels, so only a CSS call without a kernel is accepted. */
tq_status_t tqs_npu_run(tqs_npu_t *npu, const Torq__NssProgram *program,
                        const tqs_xram_buffer_t *xram, size_t num_xram,
                        const tqs_npu_observer_t *observer,
                        tqs_npu_result_t *out_result) TQ_MUST_USE;

void tqs_npu_destroy(tqs_npu_t *npu);

#endif
