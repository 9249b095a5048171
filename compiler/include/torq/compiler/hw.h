/* Transitional: the hardware description moved to libtorq-sim (torq/sim/hw.h). */
#ifndef TORQ_COMPILER_HW_H
#define TORQ_COMPILER_HW_H
#include "torq/sim/hw.h"
#define tqc_hw_t tqs_hw_t
#define tqc_unit_t tqs_unit_t
#define tqc_unit_name tqs_unit_name
#define tqc_hw_initialize_sl2610 tqs_hw_initialize_sl2610
#define tqc_hw_parse tqs_hw_parse
#define TQC_HW_MAX_SLICES TQS_HW_MAX_SLICES
#define TQC_UNIT_DMA_IN TQS_UNIT_DMA_IN
#define TQC_UNIT_DMA_OUT TQS_UNIT_DMA_OUT
#define TQC_UNIT_SLICE0 TQS_UNIT_SLICE0
#define TQC_UNIT_SLICE1 TQS_UNIT_SLICE1
#define TQC_UNIT_CDMA TQS_UNIT_CDMA
#define TQC_UNIT_CSS TQS_UNIT_CSS
#define TQC_UNIT_COUNT TQS_UNIT_COUNT
#endif
