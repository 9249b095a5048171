/* Lowering of a TOSA entry function to a Torq module (private to compiler/src).
 *
 * Files: lower.c (values, buffers, actions, fusion, the walk over the function), lower_nss.c
 * (LRAM layout, the double-buffered task pipeline of an NSS program and the choice of its tile
 * count), lower_conv.c (row-band tiling: conv2d, depthwise_conv2d, max_pool2d, avg_pool2d),
 * lower_matmul.c (fully_connected), lower_eltwise.c (add, sub, mul, rescale, clamp: support and
 * parameters), lower_chain.c (fused elementwise chains), lower_host.c (host programs),
 * compile.c (the public API and emitters), debug_info.c (the debug-info directory).
 *
 * The programs follow the NPU contract, torq/formats/contract.h: what each slice kernel
 * computes, what DMA work means and the NSS task rule, which the simulator implements too.
 */
#ifndef TORQ_COMPILER_LOWER_INTERNAL_H
#define TORQ_COMPILER_LOWER_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "torq/base/arena.h"
#include "torq/base/status.h"
#include "torq/sim/hw.h"
#include "torq/sim/ref.h"
#include "torq/compiler/ir.h"
#include "torq/compiler/compile.h"
#include "torq/compiler/trace_csv.h"
#include "torq/formats/contract.h"

/* Out of memory in compiling; `doing` is a string literal saying in what ("tiling"). A macro so
 * that the status records the file and line where the allocation failed. */
#define TQC_OOM(doing) TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory " doing)

/* The result of tqc_compile (compile.h). Everything lives in `arena`. */
struct tqc_compiled_s {
  tq_arena_t arena;
  Torq__Module *module;
  tqs_hw_t hw;
  const char *source_path; /* as the parser was given it */
  const char *source_text; /* a copy of the model text */
  size_t source_len;
  const char *func_name;
  /* Per NSS program (by job id) and per host program: a NULL-terminated list of the source
   * operators it came from, "tosa.conv2d@L12". */
  char ***program_ops;
  char ***host_ops;
};

/* A growable array of pointers in an arena (old arrays stay in the arena until it is freed). */
typedef struct tqc_ptrvec_s {
  void **items;
  size_t count, cap;
} tqc_ptrvec_t;

int tqc__ptrvec_push(tq_arena_t *arena, tqc_ptrvec_t *vec, void *item);

/* What the walk knows about one SSA value of the entry function. */
typedef struct tqc_lval_s {
  const tqc_value_t *root; /* the value whose storage this one views (itself if not a view) */
  int64_t buffer;          /* buffer id, or -1 before one is made */
  size_t last_use;         /* emission index of the last op that reads the root (views included) */
  int keep;                /* root of a function output: never freed */
  int is_input;            /* a function argument */
  const tqc_op_t *user;    /* the only user when uses == 1 */
  size_t uses;
} tqc_lval_t;

/* Per buffer: allocation state for the action list. */
typedef struct tqc_lbuf_s {
  int allocated, freed, is_input, keep, is_view;
  size_t last_use;
} tqc_lbuf_t;

typedef struct tqc_lower_s {
  tq_arena_t *arena; /* the compiled module's arena: everything built lands here */
  const tqc_module_t *src;
  const tqs_hw_t *hw;
  tqc_tiling_t tiling;
  Torq__Module *module;
  tqc_ptrvec_t constants, buffers, actions, programs, hosts;
  tqc_lbuf_t *bufs; /* heap, parallel to buffers */
  size_t bufs_cap;
  tqc_lval_t *vals; /* heap, indexed by value id */
  tqc_trace_ids_t ids;
  size_t op_index; /* emission index of the op being lowered */
  /* Bytes of the buffers made so far that hold their own data (views excluded), and of the
   * constants among them: bounded by TQF_MODULE_MAX_TENSOR_BYTES and TQF_MODULE_MAX_BYTES. */
  uint64_t tensor_bytes, constant_bytes;
  /* Buffers the current program touches, for ALLOC before and DEALLOC after. */
  uint32_t *touched;
  size_t n_touched, cap_touched;
  /* Per program, the source operators it came from ("tosa.conv2d@L12"), parallel to programs
   * and hosts; and its location string. */
  tqc_ptrvec_t program_ops, host_ops;
} tqc_lower_t;

/* Lowers the entry function into `L->module` (the caller set up L). */
tq_status_t tqc__lower(tqc_lower_t *L, const tqc_op_t *func) TQ_MUST_USE;

/* ---- lower.c helpers used by the per-op lowerings ------------------------------------------ */

/* The arena copy of `loc("file":line:col)` for an op (its first file location, else the op's
 * position in the parsed text). */
const char *tqc__op_location(tqc_lower_t *L, const tqc_op_t *op);

/* A located diagnostic (TQ_INVALID_INPUT) at `op`. */
tq_status_t tqc__op_error(tqc_lower_t *L, const tqc_op_t *op, const char *fmt, ...)
    TQ_PRINTF(3, 4) TQ_MUST_USE;

/* The located error of an op whose smallest tile needs `need` bytes, more than L->hw's LRAM. */
tq_status_t tqc__lram_too_small(tqc_lower_t *L, const tqc_op_t *op, uint64_t need) TQ_MUST_USE;

/* The buffer of `value` (made on first use: constants get a Constant, views a View) and marks it
 * touched by the current program. */
tq_status_t tqc__value_buffer(tqc_lower_t *L, const tqc_value_t *value,
                              uint32_t *out_id) TQ_MUST_USE;

/* A new constant of `size` raw bytes typed `type` (dims) with its buffer, freed after the
 * current program; returns the buffer id. `data` is copied. */
tq_status_t tqc__new_constant(tqc_lower_t *L, Torq__ElementType et, const int64_t *dims,
                              size_t rank, const void *data, size_t size,
                              uint32_t *out_id) TQ_MUST_USE;

/* Element type mapping; ELEMENT_TYPE_UNSPECIFIED for a type the module cannot hold. */
Torq__ElementType tqc__element_type(const tqc_type_t *scalar);

/* Integer range of an element type (output saturation bounds). */
void tqc__int_range(const tqc_type_t *scalar, int64_t *out_min, int64_t *out_max);

/* Scalar element of a tensor type (NULL if not a tensor). */
const tqc_type_t *tqc__elem(const tqc_type_t *tensor);

/* 1 when the type is a ranked static tensor of signless/signed integers of a width in the
 * mask (bit w set for width w in 8, 16, 32, 48). */
int tqc__is_int_tensor(const tqc_type_t *type, unsigned widths);
#define TQC_W8 1u
#define TQC_W16 2u
#define TQC_W32 4u
#define TQC_W48 8u

/* Arena helpers. */
int64_t *tqc__i64s(tqc_lower_t *L, size_t n, const int64_t *src);
Torq__KernelParams *tqc__params_new(tqc_lower_t *L);
Torq__Region *tqc__lram_region(tqc_lower_t *L, uint64_t addr, uint64_t size);

/* ---- lower_nss.c: the pipeline ------------------------------------------------------------- */

/* An XRAM piece: `count` blocks of `size` bytes, `stride` apart (count 0 = one block). */
typedef struct tqc_xfer_s {
  uint32_t buffer;
  uint64_t offset, size, count, stride;
  uint64_t lram; /* LRAM address of the (dense) LRAM side */
} tqc_xfer_t;

#define TQC_TILE_MAX_IN 8
#define TQC_TILE_MAX_W 8
#define TQC_TILE_MAX_OUT 4

/* One kernel a slice runs on a tile. A slice program of several kernels (a fused elementwise
 * chain) is a list through `next`, run in order within one task (contract.h, "Work items of a
 * task"). */
typedef struct tqc_slice_work_s {
  tqf_kernel_t kernel;
  Torq__Region **regions; /* arena, LRAM */
  size_t n_regions;
  Torq__KernelParams *params;
  uint64_t macs, cycles;
  const char *location;          /* the source operator's; NULL: the program's */
  struct tqc_slice_work_s *next; /* arena */
} tqc_slice_work_t;

/* One tile of the pipeline: loaded in task k, computed in task k + 1, stored in task k + 2. */
typedef struct tqc_tile_s {
  tqc_xfer_t win[TQC_TILE_MAX_W]; /* weights (of a new group) to load with this tile's input */
  size_t n_win;
  tqc_xfer_t in[TQC_TILE_MAX_IN];
  size_t n_in;
  tqc_xfer_t out[TQC_TILE_MAX_OUT];
  size_t n_out;
  tqc_slice_work_t slice[TQS_HW_MAX_SLICES]; /* cycles 0 = slice idle */
} tqc_tile_t;

/* The LRAM of a program: weight slots (nw of 0..2), two input and two output slots, each
 * 64-byte aligned, from address 0. */
typedef struct tqc_layout_s {
  uint64_t w[2], in[2], out[2];
  uint64_t total;
} tqc_layout_t;

/* Lays the slots out; returns 1 when they fit in hw->lram_bytes. */
int tqc__layout(const tqs_hw_t *hw, uint64_t w_bytes, int nw, uint64_t in_bytes, uint64_t out_bytes,
                tqc_layout_t *out_layout);

/* A growable list of tiles (heap). */
typedef struct tqc_tiles_s {
  tqc_tile_t *items;
  size_t count, cap;
} tqc_tiles_t;

tqc_tile_t *tqc__tiles_add(tqc_tiles_t *tiles); /* zeroed; NULL when out of memory */
void tqc__tiles_deinit(tqc_tiles_t *tiles);

/* Builds the NSS programs of `tiles` (tasks, DMA work, schedule, trace IDs): the pipeline's
 * prologue, steady state and epilogue (lower_nss.c), each added to the module with its
 * NSS_START/NSS_WAIT actions, the ALLOCs before the first and the DEALLOCs after the last, at
 * `op`. `ops` is the list of source operators fused into them (for the debug info). */
tq_status_t tqc__emit_nss(tqc_lower_t *L, const tqc_op_t *op, const tqc_tiles_t *tiles,
                          const tqc_op_t *const *ops, size_t n_ops) TQ_MUST_USE;

/* What one typical tile of a pipeline costs, in cycles of the cost model: its DMA in (and the
 * first tile's, which also brings the weights), the slices' work (the busier slice) and its DMA
 * out. */
typedef struct tqc_tile_cost_s {
  uint64_t first_in, in, compute, out;
  uint64_t tiles; /* how many tiles that makes (0: the count asked for) */
} tqc_tile_cost_t;

/* The estimated cycles of `ntiles` such tiles through the pipeline (the NSS task rule over the
 * ntiles + 2 tasks of tqc__emit_nss, in its three stage programs: the sum of their cycles). */
uint64_t tqc__pipeline_cycles(const tqs_hw_t *hw, uint64_t ntiles, const tqc_tile_cost_t *cost);

/* The tile count a layer gets, from `lo` (the fewest tiles that fit, >= 1) to `hi`: with
 * TQC_TILING_FEWEST, lo; by default the count with the fewest estimated cycles, `cost(ctx, n,
 * &c)` giving a typical tile's costs for n tiles. One tile keeps a small layer whole in LRAM;
 * more tiles let the DMA of tile n + 1 overlap the compute of tile n, at a cost per tile (DMA
 * set-up, slice and NSS overheads, halo rows). Ties go to fewer tiles. Candidates are bounded
 * (hi is clipped to lo + 63). */
uint64_t tqc__best_tiles(const tqc_lower_t *L, uint64_t lo, uint64_t hi,
                         void (*cost)(const void *ctx, uint64_t ntiles, tqc_tile_cost_t *out),
                         const void *ctx);

/* Emits ALLOCs for the touched buffers not yet allocated, then returns. */
tq_status_t tqc__emit_allocs(tqc_lower_t *L, const char *location) TQ_MUST_USE;
/* Emits DEALLOCs for touched buffers whose last use is the current op; clears the touched set. */
tq_status_t tqc__emit_deallocs(tqc_lower_t *L, const char *location) TQ_MUST_USE;
tq_status_t tqc__emit_action(tqc_lower_t *L, Torq__ActionKind kind, uint32_t arg,
                             const char *location) TQ_MUST_USE;
/* Records "op@Lline" strings for a program's source operators. */
char **tqc__op_names(tqc_lower_t *L, const tqc_op_t *const *ops, size_t n);

/* ---- the per-op lowerings: each returns NULL and sets *out_done = 0 when the op is not one the
 * NPU runs (the caller falls back to a host program). ------------------------------------------ */

/* A fused group: a main op and the rescale and clamp folded into its output stage. */
typedef struct tqc_group_s {
  const tqc_op_t *main, *rescale, *clamp;
} tqc_group_t;

/* The output stage of a group into `p` (multiplier/shift/zp/double_round/clamp, output_type);
 * `oc0`, `ocn` select the per-channel multipliers of an output-channel group. */
tq_status_t tqc__output_stage(tqc_lower_t *L, const tqc_group_t *g, Torq__KernelParams *p,
                              size_t oc0, size_t ocn) TQ_MUST_USE;
/* The final result value of a group and its type. */
const tqc_value_t *tqc__group_result(const tqc_group_t *g);

/* 1 when the rescale `op` can be folded into an accumulator of the producer (constant params,
 * input zp 0, signed types, SINGLE/DOUBLE_ROUND). */
int tqc__rescale_foldable(const tqc_op_t *op);
/* 1 when `op` is a tosa.clamp on integers (foldable). */
int tqc__clamp_foldable(const tqc_op_t *op);

/* 1 when the op (conv2d, depthwise_conv2d, matmul, pools, add, sub, mul, rescale, clamp) meets
 * the NPU's conditions. */
int tqc__npu_supports(const tqc_op_t *op);

/* A fused elementwise chain (lower_chain.c): consecutive elementwise operators the NPU runs, all
 * making results of one element count, in program order. is_output[m]: something outside the
 * chain reads member m's result (or the function returns it); the others stay in LRAM. */
#define TQC_CHAIN_MAX 16
typedef struct tqc_chain_s {
  const tqc_op_t *ops[TQC_CHAIN_MAX];
  int is_output[TQC_CHAIN_MAX];
  size_t n;
} tqc_chain_t;

/* 1 when a tile can hold the chain: its outside operands, one-element operands and outputs fit
 * the pipeline's transfer lists. */
int tqc__chain_fits_tile(const tqc_lower_t *L, const tqc_chain_t *c);

/* The channels of a per-channel rescale (its result's innermost dimension), else 0. */
int tqc__eltwise_channels(const tqc_op_t *op);

/* The kernel of an elementwise op, its parameters for the whole tensor (shapes left empty) and
 * the widest element width of its operands and result (what the cost model charges). */
tq_status_t tqc__eltwise_params(tqc_lower_t *L, const tqc_op_t *op, Torq__KernelParams *base,
                                tqf_kernel_t *out_kernel, uint32_t *out_bits) TQ_MUST_USE;

tq_status_t tqc__lower_band(tqc_lower_t *L, const tqc_group_t *g) TQ_MUST_USE;
tq_status_t tqc__lower_matmul(tqc_lower_t *L, const tqc_group_t *g) TQ_MUST_USE;
tq_status_t tqc__lower_chain(tqc_lower_t *L, const tqc_chain_t *c) TQ_MUST_USE;
tq_status_t tqc__lower_host(tqc_lower_t *L, const tqc_op_t *op) TQ_MUST_USE;

/* An op attribute in the form the reference kernels take it (tqs_ref_run), as host programs
 * carry it and the reference evaluator (reference.c) passes it: integers, booleans (0/1) and
 * unit (1) as one INT; floats as one FLOAT; arrays of integers/booleans (or empty) and integer
 * dense arrays as INTS (sign-extended unless unsigned); arrays of floats and float dense arrays
 * as FLOATS; strings as themselves, dialect attributes as their body ("DOUBLE_ROUND" from
 * #tosa.rounding_mode<DOUBLE_ROUND>), types as MLIR prints them ("i32"), symbol references as
 * their root name, opaque attributes as their text, other arrays as "<array>" and dictionaries
 * as "<dictionary>". Dense elements attributes have no such form: *out_converted = 0 and
 * *out_attr is cleared. The key and the values are allocated in `arena`. TQ_OUT_OF_MEMORY when
 * the arena runs out. */
tq_status_t tqc__attr_to_ref(tq_arena_t *arena, const tqc_named_attr_t *attr, tqs_attr_t *out_attr,
                             int *out_converted) TQ_MUST_USE;

int tqc__band_supports(const tqc_op_t *op);
int tqc__matmul_supports(const tqc_op_t *op);
int tqc__eltwise_supports(const tqc_op_t *op);

/* Reads exactly `n` integers of an array<i64: ...> (or [..] of integers) attribute; 0 on
 * success. */
int tqc__attr_i64s(const tqc_op_t *op, const char *name, int64_t *out, size_t n);

/* Copies elements [first, first + n) of a dense attribute's storage (splats repeat) to dst. */
void tqc__dense_copy(const tqc_attr_t *dense, size_t first, size_t n, uint8_t *dst);

/* Element size in bytes and bits of a tensor's element type. */
size_t tqc__esz(const tqc_type_t *tensor);
uint32_t tqc__bits(const tqc_type_t *tensor);

/* The dims of a ranked tensor type (NULL when not one). */
const int64_t *tqc__dims(const tqc_type_t *tensor, size_t rank);

/* Reads an integer scalar from a constant operand (element 0); 0 on success. */
int tqc__const_int(const tqc_value_t *value, int64_t *out);

#endif
