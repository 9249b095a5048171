/* The NPU contract: what the work of an NSS program means. The compiler's lowering writes
 * programs by it (compiler/src/lower*.c) and the NPU model executes them by it (sim/src/npu*.c);
 * the cost model and the NPU model time them by its task rule. The module format is module.h,
 * the element types element.h.
 *
 * ==== What a slice kernel computes ===========================================================
 *
 * A slice UnitWork (unit SLICE0 or SLICE1) names its kernel (tqf_kernel_name) and lists LRAM
 * regions, operands in kernel order, then the result (tqf_kernel_regions of them). Every region
 * is dense, row-major, with the element storage of element.h. The KernelParams give the types
 * and shapes OF THE SLICE'S OWN PIECE OF WORK (not of the whole tensor). Integer arithmetic is
 * exact in 64 bits unless said otherwise; "wrap to T" keeps the low bits of T's width as two's
 * complement, where I48 counts as 64 bits wide (wrap_bits: the reference interpreter computes
 * i48 as i64, so an I48 value is never wrapped at 48 bits; TOSA-valid i48 accumulators stay in
 * range); "saturate to T" clips to T's range (min..max of element.h: the 48-bit range for I48;
 * the unsigned range for an output_unsigned rescale).
 *
 * The accumulator type of conv2d, depthwise_conv2d and fully_connected is I32 for I8 input
 * and I48 for I16 input (TOSA's acc_type; the bias type of the convolutions):
 * tqf_kernel_acc_type().
 *
 * conv2d          regions [input, weights, bias, output]
 *   input   [1, IH, IW, IC]  input_type    = params.input_shape    (NHWC; IH rows of the band)
 *   weights [OC, KH, KW, IC] weight_type   = params.weight_shape   (OHWI; OC = this group's)
 *   bias    [OC]             accumulator type: I32 for I8 input, I48 for I16 input
 *   output  [1, OH, OW, OC]  output_type   = params.output_shape
 *   stride [sy, sx], dilation [dy, dx], pad [top, bottom, left, right] (trimmed to the band:
 *   rows outside IH at the top and bottom are padding only where the whole tensor has it).
 *     acc(oy, ox, oc) = bias[oc] + sum over ky < KH, kx < KW, ic < IC of
 *         (in[y, x, ic] - input_zp) * (w[oc, ky, kx, ic] - weight_zp),
 *       y = oy * sy - top + ky * dy, x = ox * sx - left + kx * dx,
 *       terms with y outside [0, IH) or x outside [0, IW) are skipped (TOSA padding).
 *   Then the output stage below.
 *
 * depthwise_conv2d regions [input, weights, bias, output]
 *   input   [1, IH, IW, C]       weights [KH, KW, C, M] (HWCM)   bias [C * M]
 *   output  [1, OH, OW, C * M]   (C = this group's channels; output channel c * M + m)
 *     acc(oy, ox, c * M + m) = bias[c * M + m] + sum over ky, kx of
 *         (in[y, x, c] - input_zp) * (w[ky, kx, c, m] - weight_zp), y, x and skipping as conv2d.
 *   Then the output stage below.
 *
 * fully_connected regions [input, weights, output]
 *   input [R, K] (rows of A), weights [K, N] (columns of B), output [R, N]; no bias.
 *     acc(r, n) = sum over k of (a[r, k] - input_zp) * (b[k, n] - weight_zp)
 *   Then the output stage below. Matmuls whose result type is narrower than TOSA's accumulator
 *   (the corpus's i8 x i8 -> i16 and i16 x i16 -> i16, Torq models' i16 x i16 -> i32) accumulate
 *   in the result type, as MLIR's own lowering does: with no fused rescale the result is acc
 *   wrapped to output_type (the same value as wrapping every step, since wrapping commutes with
 *   + and *). The compiler fuses a rescale
 *   into a conv2d, depthwise_conv2d or matmul only when the op's result type IS the accumulator
 *   type above (so never into those corpus matmuls).
 *
 * The output stage of conv2d, depthwise_conv2d and fully_connected, per output element of
 * output channel oc (the innermost index of the output region):
 *   - no fused rescale (multiplier empty): v = acc wrapped to output_type (the accumulator type
 *     I32/I48, or the matmul result type);
 *   - fused tosa.rescale (multiplier non-empty; one entry for all channels, or one per output
 *     channel of THIS group, indexed by oc): first acc = acc wrapped to the accumulator type
 *     (I32: its low 32 bits; I48: unchanged, 64 bits), the value the reference's conv2d /
 *     depthwise_conv2d / matmul result holds when tosa.rescale reads it; then the TOSA rescale
 *     of acc with input_zp 0:
 *       m = multiplier[oc or 0], s = shift[oc or 0], r = 1 << (s - 1),
 *       if double_round and s > 31: r += acc >= 0 ? 1 << 30 : -(1 << 30),
 *       v = ((acc * m + r) >> s) + output_zp    (arithmetic shift, 64-bit, s in 2..62),
 *       then v saturated to output_type;
 *   - then the clamp: v = min(max(v, clamp_min), clamp_max). The compiler always sets the
 *     bounds; without a fused tosa.clamp they are output_type's full range.
 *
 * Where TOSA leaves the result undefined, the kernels make the reference interpreter's choices
 * (sim/include/torq/sim/ref.h), so that the two stay bit-exact: an accumulator or an add, sub or
 * mul result that leaves its type wraps (two's complement); a scale step whose value breaks
 * apply_scale_32's REQUIRE |value| < 2^(s - 1) computes the formula above exactly in 64 bits
 * and saturates the result (MLIR 22 keeps the low 32 bits instead: the oracle tests list the
 * models where this shows, runtime/tests/oracle/exceptions.txt); INEXACT_ROUND rounds once.
 *
 * max_pool2d regions [input, output]: input [1, IH, IW, C], output [1, OH, OW, C]; kernel
 *   [KH, KW], stride, pad as conv2d (dilation 1): out = max of in[y, x, c] over the in-bounds
 *   window positions (padding never wins).
 * avg_pool2d regions [input, output]: as max_pool2d, the TOSA 1.0 integer avg_pool2d: acc = sum
 *   of (in - input_zp) over the in-bounds window positions, count = their number; (multiplier,
 *   shift) = TOSA reciprocal_scale(count); v = apply_scale_32(acc, multiplier, shift, false) +
 *   output_zp, saturated to output_type. Pads trimmed to the band are exactly the tensor's
 *   border, so counts equal those of the untiled op.
 *
 * add, sub, mul regions [a, b, output]: flat vectors of params.output_shape[0] elements; an
 *   operand region holding exactly one element is broadcast over the output (TOSA's broadcast
 *   of a single-element operand). a and b have input_type, the output output_type.
 *     add: a + b wrapped to output_type; sub: a - b wrapped (TOSA leaves overflow undefined;
 *     we wrap). mul: p = a * b (64-bit); if output_type is I32 and shift[0] > 0:
 *     p = (p + (1 << (shift[0] - 1))) >> shift[0]; result p wrapped to output_type.
 * rescale regions [input, output]: input_shape [E] (or [E / C, C] when per-channel with C
 *   multipliers: the channel of an element is its index in the innermost dimension). TOSA 1.0
 *   rescale: value = in (read as unsigned when extra[TQF_RESCALE_INPUT_UNSIGNED] is 1) -
 *   input_zp, then the scale step of the output stage above with this kernel's multiplier/
 *   shift/double_round, + output_zp, saturated to output_type (unsigned range when
 *   extra[TQF_RESCALE_OUTPUT_UNSIGNED] is 1; the stored byte pattern is then the unsigned
 *   value). The zero point of an unsigned side is given as its unsigned value (128, not -128).
 * clamp regions [input, output]: out = min(max(in, clamp_min), clamp_max), same type.
 *
 * CSS: the contract defines no CSS kernels; a CSS call names none and takes no regions.
 *
 * ==== DMA work ================================================================================
 *
 * A DMA_IN or DMA_OUT UnitWork holds one or more transfers, each a pair of regions [source,
 * destination] (XRAM: buffer_id + offset, strided when counts are set; LRAM: address), run one
 * after the other on the unit's channel; its cycles are the sum of the cost model's
 * tqs_cost_dma_transfer() per transfer (of its XRAM blocks: bytes over the throughput for a dense
 * one, whole bursts per block for a strided one; plus the set-up). DMA_IN
 * moves XRAM -> LRAM, DMA_OUT LRAM -> XRAM. A CDMA UnitWork's regions lie in LRAM (the CSS
 * memories are its other side) and it takes tqs_cost_cdma() of its `bytes`.
 *
 * ==== Work items of a task ====================================================================
 *
 * A task holds at most one work item for DMA_IN, DMA_OUT, CDMA and CSS. A slice may hold several:
 * a slice program of several kernels, which the slice runs one after the other in the task's
 * order (a fused chain such as rescale -> add -> rescale, its intermediates in LRAM). Items of
 * the same slice may therefore read what an earlier one of them wrote; items of different units
 * run at the same time and must not touch bytes another unit's item of the task writes.
 *
 * ==== Stages of a pipeline ====================================================================
 *
 * A layer's software-pipelined, double-buffered tiles (tile k loaded in task k, computed in task
 * k + 1, stored in task k + 2) are three NSS programs, as an NPU compiler emits a pipelined loop
 * (NssProgram.stage): the PROLOGUE (the first tile's DMA in, with its weights), the STEADY state
 * (compute of tile n while the DMA brings tile n + 1 in and takes tile n - 1 out) and the
 * EPILOGUE (the last tile's DMA out). Each is started and waited for on its own, so a profile
 * shows the DMA-only stages apart from the overlapped one; each costs the host its NSS_START and
 * NSS_WAIT. A single-tile layer is the same three programs (load, compute, store). A program
 * may only read LRAM that it wrote itself, except a STEADY program, which reads what its
 * PROLOGUE (job job_id - 1) left in LRAM, and an EPILOGUE, which reads what its STEADY (job
 * job_id - 1) left: the NPU runs such a program right after that job or refuses it. WHOLE
 * programs (a layer in one program) and PROLOGUEs start from nothing in LRAM; the NPU model
 * clears LRAM before them, so their results never depend on an earlier program.
 *
 * ==== Time: the NSS task rule =================================================================
 *
 * The NSS runs a program's tasks in order. The first task starts at cycle 0; each next one
 * starts when the previous one has ended plus the hardware's NSS task overhead. Every unit a
 * task uses starts at the task's start and works for the cycles of its work items (DMA and CDMA
 * as above; a slice the sum over its items of tqs_cost_slice_macs() for conv2d, depthwise_conv2d
 * and fully_connected, tqs_cost_slice_elementwise() for the others; CSS tqs_cost_css()); the
 * task ends when its last unit ends (at its start when it uses none), and the program when its
 * last task ends. Cycles saturate at UINT64_MAX instead of wrapping. The clock below is that
 * rule, and the only place it is written: the cost model's estimate (tqs_task_schedule) and the
 * NPU model's simulated time (tqs_npu_run) both step it.
 *
 * The two differ in the cycles they pass in. The estimate charges each unit the cost model's
 * cycles above. The NPU model charges what its units really take in the task, with effects the
 * cost model leaves out (sim/include/torq/sim/npu.h, "Time"): a DMA descriptor's set-up before
 * each transfer, burst granularity of short blocks, XRAM bandwidth shared by DMA in and DMA out
 * while both move data, and LRAM bank cycles a slice loses to DMA or CDMA lines in its banks.
 * So estimated and simulated cycles differ by what those effects cost, and their difference is
 * a measurement of the estimate, not zero by construction.
 */
#ifndef TORQ_FORMATS_CONTRACT_H
#define TORQ_FORMATS_CONTRACT_H

#include <stddef.h>
#include <stdint.h>

#include "torq/formats/element.h"
#include "torq/formats/module.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The slice kernels, by UnitWork.kernel. */
typedef enum tqf_kernel_e {
  TQF_KERNEL_CONV2D,
  TQF_KERNEL_DEPTHWISE_CONV2D,
  TQF_KERNEL_FULLY_CONNECTED,
  TQF_KERNEL_MAX_POOL2D,
  TQF_KERNEL_AVG_POOL2D,
  TQF_KERNEL_ADD,
  TQF_KERNEL_SUB,
  TQF_KERNEL_MUL,
  TQF_KERNEL_RESCALE,
  TQF_KERNEL_CLAMP,
  TQF_KERNEL_COUNT
} tqf_kernel_t;

/* The meaning of KernelParams.extra for rescale: [input_unsigned, output_unsigned], each 0 or
 * 1; fewer entries read as 0. */
enum {
  TQF_RESCALE_INPUT_UNSIGNED = 0,
  TQF_RESCALE_OUTPUT_UNSIGNED = 1,
  TQF_RESCALE_EXTRA_COUNT = 2
};

/* UnitWork.kernel of a kernel: "conv2d", "depthwise_conv2d", "fully_connected", "max_pool2d",
 * "avg_pool2d", "add", "sub", "mul", "rescale", "clamp"; "?" for a value outside the enum. The
 * string is static. */
const char *tqf_kernel_name(tqf_kernel_t kernel);

/* The kernel named `name` (a NUL-terminated UnitWork.kernel), or TQF_KERNEL_COUNT. */
tqf_kernel_t tqf_kernel_lookup(const char *name);

/* How many regions the kernel's work lists: its operands, then the result (4 for conv2d and
 * depthwise_conv2d, 3 for fully_connected, add, sub and mul, 2 for the others). */
size_t tqf_kernel_regions(tqf_kernel_t kernel);

/* The accumulator type of conv2d, depthwise_conv2d and fully_connected for an input type: I32
 * for I8, I48 for I16 (the only inputs they take). */
Torq__ElementType tqf_kernel_acc_type(Torq__ElementType input_type);

/* Whether a program of `stage` continues the LRAM of the program before it (job_id - 1), whose
 * stage must then be *out_before: 1 for STEADY (before: PROLOGUE) and EPILOGUE (before: STEADY),
 * 0 for WHOLE and PROLOGUE, -1 for a value outside the enum (*out_before untouched unless 1). */
int tqf_nss_stage_continues(Torq__Stage stage, Torq__Stage *out_before);

/* "whole program", "prologue", "steady state", "epilogue"; "?" outside the enum. Static. */
const char *tqf_nss_stage_name(Torq__Stage stage);

/* The NSS task rule as a clock that a caller steps through a program: for each task,
 * tqf_nss_task_begin(), then tqf_nss_unit() once per unit it uses; clock.end is then the end of
 * the task (and of the program so far). A plain value in caller storage; nothing to release. */
typedef struct tqf_nss_clock_s {
  uint64_t task_overhead; /* cycles the NSS takes between a task's end and the next start */
  uint64_t tasks;         /* tasks begun */
  uint64_t start;         /* the current task's start */
  uint64_t end;           /* the current task's end so far: its latest unit end (0 at first) */
} tqf_nss_clock_t;

/* A clock before the first task of a program, for hardware whose NSS takes
 * `task_overhead_cycles` between tasks. */
void tqf_nss_clock_init(tqf_nss_clock_t *clock, uint64_t task_overhead_cycles);

/* Begins the next task and returns its start: 0 for the first task, else the previous task's
 * end plus the overhead. */
uint64_t tqf_nss_task_begin(tqf_nss_clock_t *clock);

/* A unit of the current task works `cycles`: returns its end (the task's start + cycles) and
 * makes it the task's end when it is the latest. */
uint64_t tqf_nss_unit(tqf_nss_clock_t *clock, uint64_t cycles);

#ifdef __cplusplus
}
#endif
#endif
