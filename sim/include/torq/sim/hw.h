/* The hardware description of the Torq NPU that the cost model, the lowering and the simulator
 * share (DESIGN section 4), and the parser of `--torq-hw=SPEC`.
 *
 * A tqs_hw_t is a plain value: no pointers, copy it freely. tqs_hw_initialize_sl2610() gives the
 * default part; tqs_hw_parse() starts from a preset and applies overrides.
 *
 * Numbers marked "documented choice" are not published facts of the SL2610. They are this
 * project's estimates, chosen so that the compile-time profile has the right shape; each says why
 * it has its value. They can all be overridden with --torq-hw.
 */
#ifndef TORQ_SIM_HW_H
#define TORQ_SIM_HW_H

#include <stdint.h>

#include "torq/base/status.h"
#include "torq/formats/module.h"

/* The NSS has units for Slice 0 and Slice 1 only, so a part has one or two slices. */
#define TQS_HW_MAX_SLICES 2u

/* The units an NSS task can start (DESIGN section 4). The values index per-unit arrays. */
typedef enum tqs_unit_e {
  TQS_UNIT_DMA_IN,  /* XRAM -> LRAM */
  TQS_UNIT_DMA_OUT, /* LRAM -> XRAM */
  TQS_UNIT_SLICE0,
  TQS_UNIT_SLICE1,
  TQS_UNIT_CDMA, /* LRAM <-> CSS ITCM/DTCM */
  TQS_UNIT_CSS,  /* the RISC-V control core */
  TQS_UNIT_COUNT
} tqs_unit_t;

/* The schema's unit (enum Unit of module.proto) of a unit index; UNIT_UNSPECIFIED for an
 * out-of-range value. */
Torq__Unit tqs_unit_to_module(tqs_unit_t unit);

/* The unit index of a schema unit. Returns 1 and sets *out_unit, or 0 for UNIT_UNSPECIFIED and
 * values outside the enum (*out_unit untouched). */
int tqs_unit_from_module(Torq__Unit unit, tqs_unit_t *out_unit);

/* The unit's name, tqf_unit_name() of its schema unit: "DMA_IN", "DMA_OUT", "SLICE0", "SLICE1",
 * "CDMA", "CSS"; "?" for an out-of-range value. */
const char *tqs_unit_name(tqs_unit_t unit);

typedef struct tqs_hw_s {
  uint64_t clock_hz;   /* NSS and slice clock: 800 MHz */
  uint64_t lram_bytes; /* on-chip SRAM the slices read: 512 KiB */
  uint32_t slices;     /* 1 or 2 */

  /* int8 multiply-accumulates per cycle per slice: 256. Wider operands use several 8x8
   * multipliers per MAC, so the rate divides by the square of the width in bytes (rounded up):
   * i1..i8 = 256, i16 = 64 (1/4), i32 = 16 (1/16), i64 = 4. bf16/f16 count as 16 bits. */
  uint32_t macs_per_slice;

  /* Elementwise work (add, sub, mul, rescale, clamp, pooling compares): int8 lanes per slice per
   * cycle, 64 (documented choice). Elementwise work has no operand reuse: every element reads
   * fresh operands from LRAM, so the vector path is bounded by the LRAM port rather than by the
   * MAC array; 64 lanes is a 512-bit port per operand, a quarter of the MAC rate. Adders scale
   * linearly with width: i16 = 32 elements/cycle, i32 = 16, i64 = 8. */
  uint32_t elementwise_lanes_per_slice;

  /* Cycles a slice spends per task before and after its MACs or lanes run: loading the kernel's
   * configuration and filling/draining the pipeline. 64 (documented choice): small against a
   * typical tile (thousands of cycles) but enough that splitting work into tiny tasks costs. It
   * is part of tqs_cost_slice_macs/_elementwise. */
  uint64_t slice_task_overhead_cycles;

  /* Cycles the NSS sequencer needs between the end of one task and the start of the next, to
   * fetch and decode the next task descriptor. 16 (documented choice): a descriptor is a few
   * 64-byte words read from LRAM. Used by tqs_task_schedule; the first task starts at 0. */
  uint64_t nss_task_overhead_cycles;

  /* DMA in and out (each its own channel): theoretical bytes per cycle (8), an efficiency factor
   * (0.65) and the MTU setting m, whose burst efficiency is 2^m / (2^m + 1.5) (m = 4). */
  uint32_t dma_bytes_per_cycle;
  double dma_efficiency; /* in (0, 1] */
  uint32_t dma_mtu_log2; /* 0..16 */
  /* Fixed cycles per transfer that the cost model (the compile-time estimate) adds to every
   * non-empty transfer: 40 (documented choice, calibrated against the NPU model: what a
   * descriptor costs there is dma_desc_cycles below; the estimate charges the same number flat
   * per transfer, where the NPU model overlaps it with the other channel's data. The
   * reconciliation of estimate and simulation, `make bench`, measures how well it holds). */
  uint64_t dma_setup_cycles;

  /* ---- Effects the NPU model (npu.h) simulates and the cost model leaves out ----------------
   * The simulator times a task from these; the estimate does not see them, so estimated and
   * simulated cycles differ by what they cost (README, "The simulator"). */

  /* Cycles a DMA channel spends on each transfer descriptor before its first byte moves:
   * fetching the descriptor and the first XRAM access. 40 (documented choice: about 50 ns, one
   * DRAM round trip at 800 MHz). */
  uint64_t dma_desc_cycles;

  /* Bytes per cycle XRAM serves to DMA in and DMA out together: 8 (documented choice: 6.4 GB/s
   * at 800 MHz, half the 12.8 GB/s peak of a 32-bit LPDDR4-3200 interface, the rest going to the
   * host CPU and the other masters). One channel alone reaches its own rate (about 4.75 bytes per
   * cycle); two moving data at once share this, so each slows down when their rates add up to
   * more. */
  uint32_t xram_bytes_per_cycle;

  /* LRAM banks: 8 (documented choice), each lram_bytes / banks of consecutive addresses with one
   * port of one 64-byte line per cycle. Every line DMA or CDMA moves into or out of a bank takes
   * that bank's port for a cycle, which a slice working from the same bank at that time loses.
   * 0 turns the bank model off (no cycle is lost). */
  uint32_t lram_banks;

  /* CDMA, LRAM <-> CSS memories: 4 bytes/cycle (documented choice: the CSS is a small 32-bit
   * RISC-V core and its TCMs have a 32-bit port). No efficiency factor: the TCMs are on chip. */
  uint32_t cdma_bytes_per_cycle;

  uint64_t itcm_bytes; /* CSS instruction memory: 8 KiB */
  uint64_t dtcm_bytes; /* CSS data memory: 32 KiB */

  /* Cycles per CSS call, whatever the work: 8000 (the reference model's choice). */
  uint64_t css_call_cycles;
} tqs_hw_t;

/* Fills `hw` with the SL2610 numbers above. */
void tqs_hw_initialize_sl2610(tqs_hw_t *hw);

/* Parses the value of `--torq-hw=SPEC` into `*out_hw` (cleared on entry, set only on success).
 *
 * SPEC is a preset name, optionally followed by comma-separated KEY=VALUE overrides applied left
 * to right (a later one wins), or overrides alone, which apply to the default preset:
 *
 *     sl2610
 *     sl2610,lram=256K,slices=1,clock=600M,mtu=3
 *     lram=128K
 *
 * Presets (case-insensitive): sl2610. Keys (lower case) and the field each sets:
 *
 *     clock=Hz            clock_hz                      >= 1
 *     lram=BYTES          lram_bytes                    >= 1
 *     slices=N            slices                        1..2
 *     macs=N              macs_per_slice                >= 1
 *     lanes=N             elementwise_lanes_per_slice   >= 1
 *     slice_overhead=CYC  slice_task_overhead_cycles
 *     task_overhead=CYC   nss_task_overhead_cycles
 *     dma_bpc=N           dma_bytes_per_cycle           >= 1
 *     dma_eff=X           dma_efficiency, a decimal     0 < X <= 1 (e.g. 0.65; no suffix)
 *     mtu=M               dma_mtu_log2                  0..16
 *     dma_setup=CYC       dma_setup_cycles
 *     dma_desc=CYC        dma_desc_cycles
 *     xram_bpc=N          xram_bytes_per_cycle          >= 1
 *     lram_banks=N        lram_banks                    0..1024 (0: no bank model)
 *     cdma_bpc=N          cdma_bytes_per_cycle          >= 1
 *     itcm=BYTES          itcm_bytes                    >= 1
 *     dtcm=BYTES          dtcm_bytes                    >= 1
 *     css=CYC             css_call_cycles
 *
 * Integer values are decimal digits with an optional suffix K, M or G (either case). For the
 * byte sizes (lram, itcm, dtcm) the suffixes are binary (K = 1024); for every other key they are
 * decimal (K = 1000), so `clock=600M` is 600 MHz and `lram=256K` is 262144 bytes.
 *
 * Errors: TQ_INVALID_ARGUMENT for an empty spec or item, an unknown preset or key, a missing
 * '=', a malformed, overflowing or out-of-range value. The message names the item and its byte
 * offset in SPEC, and shows SPEC with a caret under the offending character:
 *
 *     --torq-hw: unknown key "foo" at offset 7 (keys: clock, lram, ...)
 *       sl2610,foo=1
 *              ^
 */
tq_status_t tqs_hw_parse(const char *spec, tqs_hw_t *out_hw) TQ_MUST_USE;

#endif
