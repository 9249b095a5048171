/* Private to the NPU model (npu.c, npu_dma.c, npu_kernels.c, npu_mac.c, npu_eltwise.c): the NPU
 * object, validated regions, decoded slice kernels, element access and the error helper.
 *
 * A run has two passes over the program. The first decodes and validates every work item of
 * every task (regions inside their memory, kernel parameters consistent with the regions, no
 * hazard between the items of a task) and sizes the scratch memory; the second decodes again,
 * which cannot fail then, executes and times. So a malformed program is rejected before it
 * writes a byte, and the second pass never allocates.
 */
#ifndef TORQ_SIM_NPU_INTERNAL_H
#define TORQ_SIM_NPU_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "torq/base/status.h"
#include "torq/formats/contract.h"
#include "torq/sim/cost_model.h"
#include "torq/sim/hw.h"
#include "torq/sim/npu.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the NPU model stores elements in host order and needs a little-endian host"
#endif

/* Access records for the hazard check of one task (npu.c). */
typedef struct tqs__access_s tqs__access_t;

/* How a MAC kernel lays its converted weights out in scratch. */
typedef enum tqs__wlayout_e {
  TQS__W_AS_STORED, /* the order of LRAM: OHWI, HWCM, or [K, N] for fully_connected */
  TQS__W_HWIO,      /* conv2d by channel: [KH, KW, IC, OC] */
  TQS__W_NK         /* fully_connected dot products: [N, K] */
} tqs__wlayout_t;

/* The weights of the last MAC kernel, converted in scratch (at its start): reused by the next
 * work item that reads the same LRAM bytes the same way, until something writes those bytes. */
typedef struct tqs__wcache_s {
  int valid;
  uint64_t lo, hi; /* the LRAM bytes they came from */
  int type, narrow;
  tqs__wlayout_t layout;
  int64_t zp;
} tqs__wcache_t;

/* Forgets the cached weights when LRAM [lo, hi) is written. */
static inline void tqs__wcache_written(tqs__wcache_t *c, uint64_t lo, uint64_t hi) {
  if (c->valid && lo < c->hi && c->lo < hi) c->valid = 0;
}

/* The most work items one task may hold (a slice program of a fused chain has one per kernel). */
#define TQS_NPU_MAX_TASK_ITEMS 256

/* One DMA transfer of a task, as the timing sees it (npu_time.c). */
typedef struct tqs__xfer_s {
  uint64_t bytes;            /* moved */
  uint64_t blocks;           /* contiguous blocks on the XRAM side (1 when dense) */
  uint64_t block_bytes;      /* bytes of each */
  uint64_t lram_lo, lram_hi; /* the extent of the LRAM side */
  double t0, t1;             /* set by the timing: when it moves data, from the task's start */
} tqs__xfer_t;

typedef struct tqs__item_s tqs__item_t;

struct tqs_npu_s {
  tqs_hw_t hw;
  uint8_t *lram;       /* hw.lram_bytes, owned */
  uint64_t lram_dirty; /* bytes [0, lram_dirty) may be non-zero; cleared before a program that
                        * does not continue its predecessor's LRAM */
  /* The program the NPU ran last, when it succeeded: what a STEADY or EPILOGUE stage continues
   * (has_last 0: none, or the last one failed). */
  int has_last;
  uint32_t last_job;
  Torq__Stage last_stage;
  void *scratch;       /* kernel scratch, grown between runs' passes, never during execution */
  size_t scratch_cap;
  tqs__access_t *accesses;
  size_t accesses_cap;
  tqs__xfer_t *xfers; /* the DMA transfers of the task being run */
  size_t xfers_cap;
  tqs__item_t *items; /* the work items of the task being run */
  size_t items_cap;
  tqs__wcache_t wcache;
};

/* Where a work item is, for messages: "job 3, task 2, SLICE0 "S1"". */
typedef struct tqs__where_s {
  uint32_t job;
  size_t task;
  tqs_unit_t unit;
  const char *trace_id; /* never NULL */
} tqs__where_t;

/* TQ_INVALID_INPUT whose message starts with the place. */
tq_status_t tqs__npu_fail(const tqs__where_t *where, const char *file, int line, const char *fmt,
                          ...) TQ_PRINTF(4, 5) TQ_MUST_USE;
#define TQS__NPU_FAIL(where, ...) tqs__npu_fail((where), __FILE__, __LINE__, __VA_ARGS__)

/* ---- Element types ----------------------------------------------------------------------------
 *
 * Their facts (tqf_element_info: size, bits, wrap_bits, range) and integer access
 * (tqf_element_load_int, tqf_element_store_int) are the contract's, torq/formats/element.h. */

/* `v` wrapped to an integer type's width (wrap_bits: 64 for I48): the value its stored bits stand
 * for. */
static inline int64_t tqs__wrap_to(int64_t v, const tqf_element_info_t *t) {
  unsigned w = t->wrap_bits;
  if (w >= 64) return v;
  if (t->is_unsigned) return (int64_t)((uint64_t)v & ((UINT64_C(1) << w) - 1));
  return (int64_t)((uint64_t)v << (64 - w)) >> (64 - w);
}

/* ---- Regions --------------------------------------------------------------------------------- */

#define TQS__MAX_LEVELS 8

/* A region checked against its memory: every byte it names lies in [base, base + limit). */
typedef struct tqs__span_s {
  uint8_t *base; /* LRAM, or the XRAM buffer's data */
  int xram;
  uint64_t offset, size; /* size: bytes of the innermost block */
  size_t levels;
  uint64_t counts[TQS__MAX_LEVELS], strides[TQS__MAX_LEVELS];
  uint64_t bytes; /* size * product(counts); 0 when any count or the size is 0 */
  uint64_t end;   /* one past the highest byte named (the extent is [offset, end)) */
} tqs__span_t;

/* Validates `region` (region number `index`, named `what` in messages) against LRAM or the
 * XRAM buffers and fills `out`. */
tq_status_t tqs__span_init(tqs_npu_t *npu, const tqs_xram_buffer_t *xram, size_t num_xram,
                           const Torq__Region *region, size_t index, const char *what,
                           const tqs__where_t *where, tqs__span_t *out) TQ_MUST_USE;

/* Copies src's bytes into dst's, block by block in order; both hold the same number of bytes. */
void tqs__span_copy(const tqs__span_t *dst, const tqs__span_t *src);

/* ---- Slice kernels --------------------------------------------------------------------------- */

/* The output stage of conv2d, depthwise_conv2d and fully_connected, and the scale step of
 * rescale (torq/formats/contract.h). */
typedef struct tqs__ostage_s {
  const tqf_element_info_t *out;
  int out_type;
  /* MAC kernels with a fused rescale: the accumulator is wrapped to its type before the scale
   * step, as the reference's conv2d/matmul result is before tosa.rescale reads it: (acc <<
   * acc_shift) >> acc_shift, 32 for an I32 accumulator, 0 for I48 (int64, wrap_bits). */
  unsigned acc_shift;
  size_t n_scale; /* 0 (no fused rescale), 1, or one per output channel */
  const int32_t *multiplier, *shift;
  int double_round;
  int64_t output_zp;
  int64_t sat_lo, sat_hi; /* the output type's range */
  int64_t clamp_min, clamp_max;
} tqs__ostage_t;

/* A slice work item, decoded and validated. Pointers are into LRAM. */
typedef struct tqs__kern_s {
  tqf_kernel_t id;
  int in_t, w_t, b_t, out_t;        /* element types (Torq__ElementType) */
  const uint8_t *in, *w, *bias, *b; /* b: the second operand of add/sub/mul */
  uint8_t *out;
  /* conv2d, depthwise, pools: NHWC input and output of one batch; fully_connected: R = OH, K =
   * IC, N = OC. */
  int64_t IH, IW, IC, OH, OW, OC, KH, KW, M;
  int64_t sy, sx, dy, dx, pt, pl;
  int64_t input_zp, weight_zp;
  int narrow;     /* operands minus zero points fit int16, so a product fits int32 */
  size_t chunk;   /* narrow: products an int32 partial sum holds; 0 to sum in int64 at once */
  int by_channel; /* conv2d: vectorize over output channels (weights transposed to HWIO) */
  /* narrow with chunk, and: conv2d and fully_connected, IC a multiple of TQS__DOT_BLOCK (dot
   * products in whole blocks, fully_connected's weights as [N, K]); depthwise, M 1 and every
   * tap of an output in one int32 partial sum. */
  int fast;
  uint64_t w_lo, w_hi;     /* LRAM bytes of the weights */
  uint64_t out_lo, out_hi; /* LRAM bytes of the result */
  /* Elementwise: n output elements; a_step / b_step 0 for a broadcast operand. */
  uint64_t n, a_step, b_step, channels;
  int in_unsigned;
  int mul_shift;
  tqs__ostage_t os;
  uint64_t macs; /* MACs, or output elements of elementwise work */
  uint64_t cycles;
  size_t scratch_bytes;
} tqs__kern_t;

/* Channels per block of the dot products of the fast MAC kernels (npu_mac.c). */
#define TQS__DOT_BLOCK 8

/* Bytes `n` rounded up to a multiple of 16 (the layout of kernel scratch). */
static inline size_t tqs__align(size_t n) {
  return (n + 15) & ~(size_t)15;
}

/* [k0, k1): the taps k in [0, K) with 0 <= base + k * d < N. */
static inline void tqs__taps(int64_t base, int64_t d, int64_t K, int64_t N, int64_t *k0,
                             int64_t *k1) {
  int64_t lo = base >= 0 ? 0 : (-base + d - 1) / d;
  int64_t hi = base >= N ? 0 : (N - 1 - base) / d + 1;
  if (hi > K) hi = K;
  if (lo > hi) lo = hi;
  *k0 = lo;
  *k1 = hi;
}

/* npu_mac.c: the MAC kernels; `scratch` and `cache` as for tqs__kern_run. */
void tqs__run_conv(const tqs__kern_t *k, void *scratch, tqs__wcache_t *cache);
void tqs__run_depthwise(const tqs__kern_t *k, void *scratch, tqs__wcache_t *cache);
void tqs__run_fc(const tqs__kern_t *k, void *scratch, tqs__wcache_t *cache);

/* ---- Work items and their time --------------------------------------------------------------- */

#define TQS__ITEM_RANGES 4

/* One work item of the task being validated or run. */
struct tqs__item_s {
  const Torq__UnitWork *work;
  tqs__where_t where;
  uint64_t cycles; /* what the cost model charges for it (the estimate's cycles) */
  tqs__kern_t kern;
  uint64_t lram_end;     /* one past the highest LRAM byte it writes */
  size_t xfer0, n_xfers; /* DMA: its transfers, in the task's transfer array */
  /* Slices and CDMA: the LRAM extents it touches (more merge into the last), for the banks. */
  size_t n_ranges;
  uint64_t lo[TQS__ITEM_RANGES], hi[TQS__ITEM_RANGES];
  /* Out of tqs__task_time: when it works, in cycles from the start of its task. */
  uint64_t start, end;
};

/* Times the `n` items of one task (npu_time.c; xfers holds their DMA transfers): sets each
 * item's start and end from the task's start. The items of a slice run one after the other in
 * order; every other item starts at 0. What each takes is npu.h's "Time". Sets the transfers'
 * data windows. Deterministic; never fails. */
void tqs__task_time(const tqs_hw_t *hw, tqs__item_t *items, size_t n, tqs__xfer_t *xfers);

/* Of the `n` timed items of one task (tqs__task_time): the cycles in which a DMA unit (DMA in,
 * DMA out, CDMA) works, a compute unit (a slice, the CSS) works, and both at once, each the
 * length of a union of the items' [start, end). */
void tqs__task_busy(const tqs__item_t *items, size_t n, uint64_t *dma, uint64_t *compute,
                    uint64_t *both);

/* Decodes the slice work `w` of kernel `id` (looked up, and its regions validated into `spans`,
 * tqf_kernel_regions(id) of them, by the caller) and computes its cycles on `hw`. */
tq_status_t tqs__kern_decode(const tqs_hw_t *hw, tqf_kernel_t id, const Torq__UnitWork *w,
                             const tqs__span_t *spans, const tqs__where_t *where,
                             tqs__kern_t *out) TQ_MUST_USE;

/* Executes a decoded kernel; `scratch` holds at least k->scratch_bytes and starts with the
 * weights `cache` describes. */
void tqs__kern_run(const tqs__kern_t *k, void *scratch, tqs__wcache_t *cache);

/* npu_eltwise.c: decoding and execution of add, sub, mul, rescale, clamp, and the output stage
 * shared with the MAC kernels. */
tq_status_t tqs__eltwise_decode(const Torq__KernelParams *p, const tqs__span_t *spans,
                                const tqs__where_t *where, const char *kernel,
                                tqs__kern_t *k) TQ_MUST_USE;
void tqs__eltwise_run(const tqs__kern_t *k);

/* Fills the output stage from the params, for `channels` output channels. */
tq_status_t tqs__ostage_decode(const Torq__KernelParams *p, int64_t channels,
                               const tqs__where_t *where, const char *kernel,
                               tqs__ostage_t *os) TQ_MUST_USE;

/* The scale step of the output stage: ((v * m + r) >> s) + output_zp, saturated to the output
 * type; r = 1 << (s - 1), and with double_round and s > 31 another 2^30 away from zero. The
 * arithmetic is the reference interpreter's apply_scale_32 (64-bit, wrapping), inline here
 * because it runs once per output element. */
static inline int64_t tqs__ostage_scale(const tqs__ostage_t *os, int64_t v, size_t channel) {
  size_t i = os->n_scale == 1 ? 0 : channel;
  int s = os->shift[i];
  uint64_t r = UINT64_C(1) << (s - 1);
  if (os->double_round && s > 31)
    r += v >= 0 ? (UINT64_C(1) << 30) : (uint64_t) - (INT64_C(1) << 30);
  int64_t x = (int64_t)((uint64_t)v * (uint64_t)(int64_t)os->multiplier[i] + r) >> s;
  x = (int64_t)((uint64_t)x + (uint64_t)os->output_zp);
  return x < os->sat_lo ? os->sat_lo : x > os->sat_hi ? os->sat_hi : x;
}

/* The whole output stage for accumulator `acc` (exact, or wrapped at 64 bits) of output channel
 * `channel`: with a fused rescale, the scale step of acc wrapped to the accumulator type; else
 * acc wrapped to the output type; then the clamp. */
static inline int64_t tqs__ostage_apply(const tqs__ostage_t *os, int64_t acc, size_t channel) {
  int64_t v = os->n_scale
                  ? tqs__ostage_scale(
                        os, (int64_t)((uint64_t)acc << os->acc_shift) >> os->acc_shift, channel)
                  : tqs__wrap_to(acc, os->out);
  if (v < os->clamp_min) v = os->clamp_min;
  if (v > os->clamp_max) v = os->clamp_max;
  return v;
}

/* The output stage of a row of n accumulators (channels 0..n-1), stored at `out`. */
void tqs__ostage_row(const tqs__ostage_t *os, const int64_t *acc, size_t n, uint8_t *out);

#endif
