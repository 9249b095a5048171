/* The NPU contract's kernels and its NSS task rule (contract.h). */
#include "torq/formats/contract.h"

#include <string.h>

#include "torq/base/checked.h"

static const struct {
  const char *name;
  size_t regions; /* operands, then the result */
} tqf__kernels[TQF_KERNEL_COUNT] = {
    [TQF_KERNEL_CONV2D] = {"conv2d", 4},
    [TQF_KERNEL_DEPTHWISE_CONV2D] = {"depthwise_conv2d", 4},
    [TQF_KERNEL_FULLY_CONNECTED] = {"fully_connected", 3},
    [TQF_KERNEL_MAX_POOL2D] = {"max_pool2d", 2},
    [TQF_KERNEL_AVG_POOL2D] = {"avg_pool2d", 2},
    [TQF_KERNEL_ADD] = {"add", 3},
    [TQF_KERNEL_SUB] = {"sub", 3},
    [TQF_KERNEL_MUL] = {"mul", 3},
    [TQF_KERNEL_RESCALE] = {"rescale", 2},
    [TQF_KERNEL_CLAMP] = {"clamp", 2},
};

const char *tqf_kernel_name(tqf_kernel_t kernel) {
  if ((unsigned)kernel >= TQF_KERNEL_COUNT) return "?";
  return tqf__kernels[kernel].name;
}

tqf_kernel_t tqf_kernel_lookup(const char *name) {
  for (int k = 0; k < TQF_KERNEL_COUNT; k++)
    if (strcmp(name, tqf__kernels[k].name) == 0) return (tqf_kernel_t)k;
  return TQF_KERNEL_COUNT;
}

size_t tqf_kernel_regions(tqf_kernel_t kernel) {
  if ((unsigned)kernel >= TQF_KERNEL_COUNT) return 0;
  return tqf__kernels[kernel].regions;
}

Torq__ElementType tqf_kernel_acc_type(Torq__ElementType input_type) {
  return input_type == TORQ__ELEMENT_TYPE__I8 ? TORQ__ELEMENT_TYPE__I32 : TORQ__ELEMENT_TYPE__I48;
}

int tqf_nss_stage_continues(Torq__Stage stage, Torq__Stage *out_before) {
  switch (stage) {
    case TORQ__STAGE__WHOLE:
    case TORQ__STAGE__PROLOGUE:
      return 0;
    case TORQ__STAGE__STEADY:
      *out_before = TORQ__STAGE__PROLOGUE;
      return 1;
    case TORQ__STAGE__EPILOGUE:
      *out_before = TORQ__STAGE__STEADY;
      return 1;
    default:
      return -1;
  }
}

const char *tqf_nss_stage_name(Torq__Stage stage) {
  switch (stage) {
    case TORQ__STAGE__WHOLE:
      return "whole program";
    case TORQ__STAGE__PROLOGUE:
      return "prologue";
    case TORQ__STAGE__STEADY:
      return "steady state";
    case TORQ__STAGE__EPILOGUE:
      return "epilogue";
    default:
      return "?";
  }
}

void tqf_nss_clock_init(tqf_nss_clock_t *clock, uint64_t task_overhead_cycles) {
  memset(clock, 0, sizeof(*clock));
  clock->task_overhead = task_overhead_cycles;
}

uint64_t tqf_nss_task_begin(tqf_nss_clock_t *clock) {
  clock->start = clock->tasks == 0 ? 0 : tq_u64_add_sat(clock->end, clock->task_overhead);
  clock->end = clock->start;
  clock->tasks++;
  return clock->start;
}

uint64_t tqf_nss_unit(tqf_nss_clock_t *clock, uint64_t cycles) {
  uint64_t end = tq_u64_add_sat(clock->start, cycles);
  if (end > clock->end) clock->end = end;
  return end;
}
