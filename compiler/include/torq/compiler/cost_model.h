/* Transitional: the cost model moved to libtorq-sim (torq/sim/cost_model.h). */
#ifndef TORQ_COMPILER_COST_MODEL_H
#define TORQ_COMPILER_COST_MODEL_H
#include "torq/compiler/hw.h"
#include "torq/sim/cost_model.h"
#define tqc_cost_dma tqs_cost_dma
#define tqc_cost_dma_throughput tqs_cost_dma_throughput
#define tqc_cost_slice_macs tqs_cost_slice_macs
#define tqc_cost_slice_elementwise tqs_cost_slice_elementwise
#define tqc_cost_macs_per_cycle tqs_cost_macs_per_cycle
#define tqc_cost_elementwise_per_cycle tqs_cost_elementwise_per_cycle
#define tqc_cost_cdma tqs_cost_cdma
#define tqc_cost_css tqs_cost_css
#define tqc_split_over_slices tqs_split_over_slices
#define tqc_task_schedule tqs_task_schedule
#define tqc_task_timing_t tqs_task_timing_t
#define TQC_CYCLES_MAX TQS_CYCLES_MAX
#endif
