/* Compiling a parsed, verified TOSA module for the Torq NPU: lowering, cost model, the module
 * (.vmfb), the compile-time trace (trace.csv) and the debug-info directory (DESIGN 5.1 to 5.3).
 */
#ifndef TORQ_COMPILER_COMPILE_H
#define TORQ_COMPILER_COMPILE_H

#include "torq/base/status.h"
#include "torq/base/str.h"
#include "torq/sim/hw.h"
#include "torq/compiler/mlir.h"

/* How the lowering cuts a layer into tiles (lower_internal.h, "the pipeline"). */
typedef enum tqc_tiling_e {
  /* The default: the tile count with the fewest estimated cycles, so that the DMA of tile n + 1
   * overlaps the compute of tile n where that pays, and a small layer stays whole in LRAM where
   * it does not. */
  TQC_TILING_PIPELINE = 0,
  /* The largest tiles that fit LRAM (one tile whenever the layer fits): no overlap of DMA and
   * compute within a layer. For comparisons and hand-worked tests. */
  TQC_TILING_FEWEST = 1,
} tqc_tiling_t;

typedef struct tqc_compile_options_s {
  tqs_hw_t hw;         /* the target; tqs_hw_initialize_sl2610 by default */
  const char *hw_spec; /* the --torq-hw text recorded in the module; "sl2610" by default */
  tqc_tiling_t tiling; /* TQC_TILING_PIPELINE by default */
} tqc_compile_options_t;

void tqc_compile_options_initialize(tqc_compile_options_t *options);

/* The result of a compilation: the module in memory and what the emitters need. Owns everything
 * it points to; free with tqc_compiled_destroy(). It does not borrow from the source module. */
typedef struct tqc_compiled_s tqc_compiled_t;

/* Checks TOSA semantics (tqc_tosa_check), then lowers the entry function of `module`. Errors are
 * located diagnostics (TQ_INVALID_INPUT), e.g. an LRAM too small for any tile of an op. */
tq_status_t tqc_compile(const tqc_module_t *module, const tqc_compile_options_t *options,
                        tqc_compiled_t **out_compiled) TQ_MUST_USE;

/* Appends the packed module (.vmfb bytes) to `out`. */
tq_status_t tqc_compiled_pack(const tqc_compiled_t *compiled, tq_buf_t *out) TQ_MUST_USE;

/* Appends the compile-time trace (DESIGN 5.2) to `out`. */
tq_status_t tqc_compiled_trace_csv(const tqc_compiled_t *compiled, tq_buf_t *out) TQ_MUST_USE;

/* Writes the debug-info directory (DESIGN 5.3; the layout is in the README) to `dir`, creating
 * it; every file is written atomically. */
tq_status_t tqc_compiled_write_debug_info(const tqc_compiled_t *compiled,
                                          const char *dir) TQ_MUST_USE;

/* The lowered program of the entry function as MLIR generic-form text (the
 * `<func>_dispatch_0.torq.mlir` file of the debug-info directory; tqc_module_parse reads it),
 * appended to `out`. */
tq_status_t tqc_compiled_debug_program(const tqc_compiled_t *compiled, tq_buf_t *out) TQ_MUST_USE;

/* The module in memory (the generated module.pb-c.h describes it); borrowed, valid until
 * tqc_compiled_destroy(). Read-only. */
struct Torq__Module;
const struct Torq__Module *tqc_compiled_module(const tqc_compiled_t *compiled);

/* Total estimated cycles of all NSS programs, in program order (a summary for people). */
uint64_t tqc_compiled_estimated_cycles(const tqc_compiled_t *compiled);
/* The same of a module however it was obtained (compiled, or loaded from a .vmfb: each NSS
 * program carries its estimate). NULL: 0. */
uint64_t tqc_module_estimated_cycles(const struct Torq__Module *module);

void tqc_compiled_destroy(tqc_compiled_t *compiled);

#endif
