/* Slice kernels of the NPU model: decoding and validation of every kernel's parameters against
 * its regions, the cycles of the compiler's cost formula for it, and the MAC kernels (conv2d,
 * depthwise_conv2d, fully_connected) and pools, exactly as the NPU contract
 * (torq/formats/contract.h) says.
 *
 * The MAC kernels first copy their operands to scratch with the zero point subtracted: as int16
 * when every difference fits ("narrow": 8- and 16-bit data with zero points that keep them in
 * range), so every product fits int32 and an int32 partial sum holds `chunk` of them before it
 * is added to the int64 accumulator (or each product is added in int64 when chunk is 0); as
 * int32 with int64 products otherwise. Both give the exact sums (zero points are limited to
 * |zp| <= 2^16, so no product overflows), wrapped at 64 bits at most; the output stage wraps
 * them to the accumulator type (I32, or I48 = int64) before a fused rescale, and to the output
 * type without one. Converted weights stay in scratch for the next work item that reads the
 * same LRAM bytes (tqs__wcache_t).
 */
#include <inttypes.h>

#include "npu_internal.h"
#include "ref_internal.h"
#include "torq/base/checked.h"

#define TQS__DIM_MAX (INT64_C(1) << 30)
#define TQS__ZP_MAX (INT64_C(1) << 16)

/* ---- Parameter checks ------------------------------------------------------------------------ */

/* `n` values of a repeated field into out[], each in [min, 2^30]. */
static tq_status_t tqs__ints(const tqs__where_t *where, const char *kernel, const char *what,
                             const int64_t *v, size_t n, size_t want, int64_t min, int64_t *out) {
  if (n != want || (n && !v)) {
    return TQS__NPU_FAIL(where, "%s: %s has %zu entries; expected %zu", kernel, what, n, want);
  }
  for (size_t i = 0; i < n; i++) {
    if (v[i] < min || v[i] > TQS__DIM_MAX) {
      return TQS__NPU_FAIL(where, "%s: %s[%zu] = %" PRId64 " is outside [%" PRId64 ", 2^30]",
                           kernel, what, i, v[i], min);
    }
    out[i] = v[i];
  }
  return NULL;
}

/* Region i holds exactly `elems` elements of `type`. */
static tq_status_t tqs__bytes(const tqs__where_t *where, const char *kernel, const tqs__span_t *s,
                              size_t i, const char *what, uint64_t elems, int type) {
  uint64_t want = 0;
  const tqf_element_info_t *t = tqf_element_info(type);
  if (!tq_u64_mul(elems, t->size, &want) || s->bytes != want) {
    return TQS__NPU_FAIL(where,
                         "%s: region %zu (%s) holds %" PRIu64 " bytes; %" PRIu64
                         " elements of %s need %" PRIu64,
                         kernel, i, what, s->bytes, elems, t->schema_name, want);
  }
  return NULL;
}

static uint64_t tqs__prod(const int64_t *v, size_t n) {
  uint64_t p = 1;
  for (size_t i = 0; i < n; i++)
    if (!tq_u64_mul(p, (uint64_t)v[i], &p)) return UINT64_MAX;
  return p;
}

/* The element type `type` is one of `allowed` (a bit mask of Torq__ElementType values). */
static tq_status_t tqs__type(const tqs__where_t *where, const char *kernel, const char *what,
                             int type, unsigned allowed) {
  const tqf_element_info_t *t = tqf_element_info(type);
  if (t->size && (allowed & (1u << type))) return NULL;
  return TQS__NPU_FAIL(where, "%s: %s %s is not supported", kernel, what, t->schema_name);
}

#define TQS__ET(x) (1u << TORQ__ELEMENT_TYPE__##x)
#define TQS__MAC_IN (TQS__ET(I8) | TQS__ET(I16))
#define TQS__ET_INTS \
  (TQS__ET(I8) | TQS__ET(U8) | TQS__ET(I16) | TQS__ET(I32) | TQS__ET(I48) | TQS__ET(I64))

static tq_status_t tqs__zp(const tqs__where_t *where, const char *kernel, const char *what,
                           int64_t zp) {
  if (zp < -TQS__ZP_MAX || zp > TQS__ZP_MAX) {
    return TQS__NPU_FAIL(where, "%s: %s %" PRId64 " is outside [-65536, 65536]", kernel, what, zp);
  }
  return NULL;
}

/* The range of v - zp over a type's values. */
static void tqs__diff_range(int type, int64_t zp, int64_t *lo, int64_t *hi) {
  const tqf_element_info_t *t = tqf_element_info(type);
  *lo = t->min - zp;
  *hi = t->max - zp;
}

static size_t tqs__align(size_t n) {
  return (n + 15) & ~(size_t)15;
}

/* Chooses narrow or wide operands and sizes the scratch: `nw` weight and `nin` input values,
 * then `acc64` int64 and `acc32` int32 accumulators. */
static void tqs__mac_setup(tqs__kern_t *k, uint64_t nin, uint64_t nw, uint64_t acc64,
                           uint64_t acc32) {
  int64_t alo, ahi, wlo, whi;
  tqs__diff_range(k->in_t, k->input_zp, &alo, &ahi);
  tqs__diff_range(k->w_t, k->weight_zp, &wlo, &whi);
  k->narrow = alo >= INT16_MIN && ahi <= INT16_MAX && wlo >= INT16_MIN && whi <= INT16_MAX;
  if (k->narrow) {
    int64_t da = -alo > ahi ? -alo : ahi, dw = -wlo > whi ? -wlo : whi;
    uint64_t chunk = (uint64_t)INT32_MAX / (uint64_t)(da * dw);
    k->chunk = chunk >= 16 ? (size_t)chunk : 0;
  }
  size_t esz = k->narrow ? 2 : 4;
  /* Every count is bounded by a region, so by the LRAM this process allocated. */
  k->scratch_bytes = tqs__align((size_t)nw * esz) + tqs__align((size_t)nin * esz) +
                     tqs__align((size_t)acc64 * 8) + tqs__align((size_t)acc32 * 4);
}

/* [k0, k1): the taps k in [0, K) with 0 <= base + k * d < N. */
static void tqs__taps(int64_t base, int64_t d, int64_t K, int64_t N, int64_t *k0, int64_t *k1) {
  int64_t lo = base >= 0 ? 0 : (-base + d - 1) / d;
  int64_t hi = base >= N ? 0 : (N - 1 - base) / d + 1;
  if (hi > K) hi = K;
  if (lo > hi) lo = hi;
  *k0 = lo;
  *k1 = hi;
}

/* ---- Decoding -------------------------------------------------------------------------------- */

static tq_status_t tqs__decode_conv(const tqs_hw_t *hw, const Torq__KernelParams *p,
                                    const tqs__span_t *s, const tqs__where_t *where, const char *kn,
                                    tqs__kern_t *k) {
  int dw = k->id == TQF_KERNEL_DEPTHWISE_CONV2D;
  int64_t in[4], w[4], out[4], st[2], dil[2], pad[4];
  TQ_TRY(tqs__type(where, kn, "input_type", p->input_type, TQS__MAC_IN));
  TQ_TRY(tqs__type(where, kn, "weight_type", p->weight_type, TQS__MAC_IN));
  TQ_TRY(tqs__type(where, kn, "output_type", p->output_type, TQS__ET_INTS));
  TQ_TRY(tqs__ints(where, kn, "input_shape", p->input_shape, p->n_input_shape, 4, 0, in));
  TQ_TRY(tqs__ints(where, kn, "weight_shape", p->weight_shape, p->n_weight_shape, 4, 1, w));
  TQ_TRY(tqs__ints(where, kn, "output_shape", p->output_shape, p->n_output_shape, 4, 0, out));
  TQ_TRY(tqs__ints(where, kn, "stride", p->stride, p->n_stride, 2, 1, st));
  TQ_TRY(tqs__ints(where, kn, "dilation", p->dilation, p->n_dilation, 2, 1, dil));
  TQ_TRY(tqs__ints(where, kn, "pad", p->pad, p->n_pad, 4, 0, pad));
  TQ_TRY(tqs__zp(where, kn, "input_zp", p->input_zp));
  TQ_TRY(tqs__zp(where, kn, "weight_zp", p->weight_zp));
  if (in[0] != 1 || out[0] != 1) return TQS__NPU_FAIL(where, "%s: the batch of a tile is 1", kn);
  k->in_t = p->input_type;
  k->w_t = p->weight_type;
  k->out_t = p->output_type;
  k->b_t = tqf_kernel_acc_type(p->input_type);
  k->IH = in[1], k->IW = in[2], k->IC = in[3];
  k->OH = out[1], k->OW = out[2], k->OC = out[3];
  k->sy = st[0], k->sx = st[1], k->dy = dil[0], k->dx = dil[1], k->pt = pad[0], k->pl = pad[2];
  k->input_zp = p->input_zp;
  k->weight_zp = p->weight_zp;
  uint64_t nw;
  if (dw) {
    k->KH = w[0], k->KW = w[1], k->M = w[3];
    if (w[2] != k->IC || k->OC != k->IC * k->M) {
      return TQS__NPU_FAIL(where,
                           "%s: weights [%" PRId64 ", %" PRId64 ", %" PRId64 ", %" PRId64
                           "] do not fit %" PRId64 " input and %" PRId64 " output channels",
                           kn, w[0], w[1], w[2], w[3], k->IC, k->OC);
    }
  } else {
    k->KH = w[1], k->KW = w[2], k->M = 1;
    if (w[3] != k->IC || w[0] != k->OC) {
      return TQS__NPU_FAIL(where,
                           "%s: weights [%" PRId64 ", %" PRId64 ", %" PRId64 ", %" PRId64
                           "] do not fit %" PRId64 " input and %" PRId64 " output channels",
                           kn, w[0], w[1], w[2], w[3], k->IC, k->OC);
    }
  }
  nw = tqs__prod(w, 4);
  uint64_t nin = tqs__prod(in, 4), nout = tqs__prod(out, 4);
  TQ_TRY(tqs__bytes(where, kn, &s[0], 0, "input", nin, k->in_t));
  TQ_TRY(tqs__bytes(where, kn, &s[1], 1, "weights", nw, k->w_t));
  TQ_TRY(tqs__bytes(where, kn, &s[2], 2, "bias", (uint64_t)k->OC, k->b_t));
  TQ_TRY(tqs__bytes(where, kn, &s[3], 3, "result", nout, k->out_t));
  TQ_TRY(tqs__ostage_decode(p, k->OC, where, kn, &k->os));
  k->os.acc_shift = 64u - tqf_element_info(k->b_t)->wrap_bits;
  k->in = s[0].base + s[0].offset;
  k->w = s[1].base + s[1].offset;
  k->w_lo = s[1].offset, k->w_hi = s[1].end;
  k->bias = s[2].base + s[2].offset;
  k->out = s[3].base + s[3].offset;
  k->out_lo = s[3].offset, k->out_hi = s[3].end;
  int64_t taps[4] = {k->OH * k->OW, k->KH * k->KW, k->OC, dw ? 1 : k->IC};
  k->macs = tqs__prod(taps, 4);
  unsigned bits = tqf_element_info(k->in_t)->bits, wb = tqf_element_info(k->w_t)->bits;
  k->cycles = tqs_cost_slice_macs(hw, k->macs, bits > wb ? bits : wb);
  tqs__mac_setup(k, nin, nw, 2 * (uint64_t)k->OC, (uint64_t)k->OC);
  /* Many output channels and little work per dot product: run over the channels instead. */
  k->by_channel =
      !dw && k->narrow && k->chunk && k->OC >= 16 && k->IC * (k->dx == 1 ? k->KW : 1) < 64;
  return NULL;
}

static tq_status_t tqs__decode_fc(const tqs_hw_t *hw, const Torq__KernelParams *p,
                                  const tqs__span_t *s, const tqs__where_t *where, const char *kn,
                                  tqs__kern_t *k) {
  int64_t in[2], w[2], out[2];
  TQ_TRY(tqs__type(where, kn, "input_type", p->input_type, TQS__MAC_IN));
  TQ_TRY(tqs__type(where, kn, "weight_type", p->weight_type, TQS__MAC_IN));
  TQ_TRY(tqs__type(where, kn, "output_type", p->output_type, TQS__ET_INTS));
  TQ_TRY(tqs__ints(where, kn, "input_shape", p->input_shape, p->n_input_shape, 2, 0, in));
  TQ_TRY(tqs__ints(where, kn, "weight_shape", p->weight_shape, p->n_weight_shape, 2, 0, w));
  TQ_TRY(tqs__ints(where, kn, "output_shape", p->output_shape, p->n_output_shape, 2, 0, out));
  TQ_TRY(tqs__zp(where, kn, "input_zp", p->input_zp));
  TQ_TRY(tqs__zp(where, kn, "weight_zp", p->weight_zp));
  if (w[0] != in[1] || out[0] != in[0] || out[1] != w[1]) {
    return TQS__NPU_FAIL(where,
                         "%s: [%" PRId64 ", %" PRId64 "] x [%" PRId64 ", %" PRId64
                         "] does not give [%" PRId64 ", %" PRId64 "]",
                         kn, in[0], in[1], w[0], w[1], out[0], out[1]);
  }
  k->in_t = p->input_type;
  k->w_t = p->weight_type;
  k->out_t = p->output_type;
  k->OH = in[0], k->OW = 1, k->IC = in[1], k->OC = w[1];
  k->input_zp = p->input_zp;
  k->weight_zp = p->weight_zp;
  uint64_t nin = tqs__prod(in, 2), nw = tqs__prod(w, 2), nout = tqs__prod(out, 2);
  TQ_TRY(tqs__bytes(where, kn, &s[0], 0, "input", nin, k->in_t));
  TQ_TRY(tqs__bytes(where, kn, &s[1], 1, "weights", nw, k->w_t));
  TQ_TRY(tqs__bytes(where, kn, &s[2], 2, "result", nout, k->out_t));
  TQ_TRY(tqs__ostage_decode(p, k->OC, where, kn, &k->os));
  k->os.acc_shift = 64u - tqf_element_info(tqf_kernel_acc_type(k->in_t))->wrap_bits;
  k->in = s[0].base + s[0].offset;
  k->w = s[1].base + s[1].offset;
  k->w_lo = s[1].offset, k->w_hi = s[1].end;
  k->out = s[2].base + s[2].offset;
  k->out_lo = s[2].offset, k->out_hi = s[2].end;
  int64_t m[3] = {k->OH, k->OC, k->IC};
  k->macs = tqs__prod(m, 3);
  unsigned bits = tqf_element_info(k->in_t)->bits, wb = tqf_element_info(k->w_t)->bits;
  k->cycles = tqs_cost_slice_macs(hw, k->macs, bits > wb ? bits : wb);
  tqs__mac_setup(k, nin, nw, (uint64_t)k->OC, (uint64_t)k->OC);
  return NULL;
}

static tq_status_t tqs__decode_pool(const tqs_hw_t *hw, const Torq__KernelParams *p,
                                    const tqs__span_t *s, const tqs__where_t *where, const char *kn,
                                    tqs__kern_t *k) {
  int64_t in[4], out[4], st[2], ker[2], pad[4];
  TQ_TRY(tqs__type(where, kn, "input_type", p->input_type, TQS__ET_INTS));
  TQ_TRY(tqs__type(where, kn, "output_type", p->output_type, TQS__ET_INTS));
  TQ_TRY(tqs__ints(where, kn, "input_shape", p->input_shape, p->n_input_shape, 4, 0, in));
  TQ_TRY(tqs__ints(where, kn, "output_shape", p->output_shape, p->n_output_shape, 4, 0, out));
  TQ_TRY(tqs__ints(where, kn, "kernel", p->kernel, p->n_kernel, 2, 1, ker));
  TQ_TRY(tqs__ints(where, kn, "stride", p->stride, p->n_stride, 2, 1, st));
  TQ_TRY(tqs__ints(where, kn, "pad", p->pad, p->n_pad, 4, 0, pad));
  if (in[0] != 1 || out[0] != 1) return TQS__NPU_FAIL(where, "%s: the batch of a tile is 1", kn);
  if (in[3] != out[3]) {
    return TQS__NPU_FAIL(where, "%s: %" PRId64 " input channels but %" PRId64 " output channels",
                         kn, in[3], out[3]);
  }
  if (k->id == TQF_KERNEL_MAX_POOL2D && p->input_type != p->output_type)
    return TQS__NPU_FAIL(where, "%s: the input and output types differ", kn);
  k->in_t = p->input_type;
  k->out_t = p->output_type;
  k->IH = in[1], k->IW = in[2], k->IC = in[3];
  k->OH = out[1], k->OW = out[2], k->OC = out[3];
  k->KH = ker[0], k->KW = ker[1];
  k->sy = st[0], k->sx = st[1], k->dy = k->dx = 1, k->pt = pad[0], k->pl = pad[2];
  k->input_zp = p->input_zp;
  k->os.output_zp = p->output_zp;
  k->os.out = tqf_element_info(k->out_t);
  TQ_TRY(tqs__bytes(where, kn, &s[0], 0, "input", tqs__prod(in, 4), k->in_t));
  TQ_TRY(tqs__bytes(where, kn, &s[1], 1, "result", tqs__prod(out, 4), k->out_t));
  /* Every window must hold an input position (TOSA's pad < kernel ensures it for whole tensors;
   * bands keep the tensor's border). An empty result has no windows. */
  for (int64_t oy = 0; oy < k->OH && k->OW && k->OC; oy++) {
    int64_t a, b;
    tqs__taps(oy * k->sy - k->pt, 1, k->KH, k->IH, &a, &b);
    if (a == b)
      return TQS__NPU_FAIL(where, "%s: the window of output row %" PRId64 " holds no input row", kn,
                           oy);
  }
  for (int64_t ox = 0; ox < k->OW && k->OH && k->OC; ox++) {
    int64_t a, b;
    tqs__taps(ox * k->sx - k->pl, 1, k->KW, k->IW, &a, &b);
    if (a == b)
      return TQS__NPU_FAIL(
          where, "%s: the window of output column %" PRId64 " holds no input column", kn, ox);
  }
  if ((k->KH < k->IH ? k->KH : k->IH) * (k->KW < k->IW ? k->KW : k->IW) > INT32_MAX)
    return TQS__NPU_FAIL(where, "%s: the window is too large", kn);
  k->in = s[0].base + s[0].offset;
  k->out = s[1].base + s[1].offset;
  k->out_lo = s[1].offset, k->out_hi = s[1].end;
  int64_t taps[4] = {k->OH * k->OW, k->KH, k->KW, k->OC};
  k->macs = tqs__prod(taps, 4);
  k->cycles = tqs_cost_slice_elementwise(hw, k->macs, tqf_element_info(k->in_t)->bits);
  return NULL;
}

tq_status_t tqs__kern_decode(const tqs_hw_t *hw, tqf_kernel_t id, const Torq__UnitWork *w,
                             const tqs__span_t *spans, const tqs__where_t *where,
                             tqs__kern_t *out) {
  memset(out, 0, sizeof(*out));
  const char *kn = w->kernel ? w->kernel : "";
  out->id = id;
  const Torq__KernelParams *p = w->params;
  if (!p) return TQS__NPU_FAIL(where, "%s: the work has no kernel parameters", kn);
  switch (out->id) {
    case TQF_KERNEL_CONV2D:
    case TQF_KERNEL_DEPTHWISE_CONV2D:
      return tqs__decode_conv(hw, p, spans, where, kn, out);
    case TQF_KERNEL_FULLY_CONNECTED:
      return tqs__decode_fc(hw, p, spans, where, kn, out);
    case TQF_KERNEL_MAX_POOL2D:
    case TQF_KERNEL_AVG_POOL2D:
      return tqs__decode_pool(hw, p, spans, where, kn, out);
    default: {
      TQ_TRY(tqs__eltwise_decode(p, spans, where, kn, out));
      unsigned bits = tqf_element_info(out->in_t)->bits, ob = tqf_element_info(out->out_t)->bits;
      out->cycles = tqs_cost_slice_elementwise(hw, out->macs, bits > ob ? bits : ob);
      return NULL;
    }
  }
}

/* ---- Execution ------------------------------------------------------------------------------- */

/* Operands minus their zero point, as int16 or int32 (|zp| <= 2^16, so int32 arithmetic). */
static void tqs__widen16(const uint8_t *src, int type, int64_t zp, size_t n, int16_t *dst) {
  int32_t z = (int32_t)zp;
  if (type == TORQ__ELEMENT_TYPE__I8) {
    const int8_t *s = (const int8_t *)src;
    size_t i = 0;
    for (; i + 16 <= n; i += 16)
      for (size_t j = 0; j < 16; j++) dst[i + j] = (int16_t)(s[i + j] - z);
    for (; i < n; i++) dst[i] = (int16_t)(s[i] - z);
  } else {
    for (size_t i = 0; i < n; i++)
      dst[i] = (int16_t)((int32_t)tqf_element_load_int(src + 2 * i, type) - z);
  }
}

static void tqs__widen32(const uint8_t *src, int type, int64_t zp, size_t n, int32_t *dst) {
  size_t esz = tqf_element_info(type)->size;
  for (size_t i = 0; i < n; i++) dst[i] = (int32_t)(tqf_element_load_int(src + esz * i, type) - zp);
}

/* The hot loops run in blocks of TQS__BLOCK with a constant trip count, which GCC vectorizes at
 * -O2 (its cheap cost model refuses loops that would need a scalar epilogue); a plain loop does
 * the rest. */
#define TQS__BLOCK 16

/* Exact sums of products: int32 partial sums of at most `chunk` terms, or (chunk 0) every
 * int32 product added in int64. */
static int64_t tqs__dot16(const int16_t *a, const int16_t *b, size_t n, size_t chunk) {
  int64_t total = 0;
  if (chunk == 0) {
    size_t i = 0;
    for (; i + TQS__BLOCK <= n; i += TQS__BLOCK) {
      int64_t t = 0;
      for (size_t j = 0; j < TQS__BLOCK; j++) t += (int32_t)(a[i + j] * b[i + j]);
      total += t;
    }
    for (; i < n; i++) total += (int32_t)(a[i] * b[i]);
    return total;
  }
  while (n) {
    size_t m = n < chunk ? n : chunk, i = 0;
    int32_t s = 0;
    for (; i + TQS__BLOCK <= m; i += TQS__BLOCK) {
      int32_t t = 0;
      for (size_t j = 0; j < TQS__BLOCK; j++) t += a[i + j] * b[i + j];
      s += t;
    }
    for (; i < m; i++) s += a[i] * b[i];
    total += s;
    a += m, b += m, n -= m;
  }
  return total;
}

static int64_t tqs__dot32(const int32_t *a, const int32_t *b, size_t n) {
  uint64_t s = 0;
  size_t i = 0;
  for (; i + TQS__BLOCK <= n; i += TQS__BLOCK) {
    uint64_t t = 0;
    for (size_t j = 0; j < TQS__BLOCK; j++) t += (uint64_t)((int64_t)a[i + j] * b[i + j]);
    s += t;
  }
  for (; i < n; i++) s += (uint64_t)((int64_t)a[i] * b[i]);
  return (int64_t)s;
}

/* acc[n] += v * row[n] for n < N. */
static inline void tqs__axpy16(int32_t *acc, int32_t v, const int16_t *row, size_t N) {
  size_t n = 0;
  for (; n + TQS__BLOCK <= N; n += TQS__BLOCK)
    for (size_t j = 0; j < TQS__BLOCK; j++) acc[n + j] += v * row[n + j];
  for (; n < N; n++) acc[n] += v * row[n];
}

static void tqs__axpy16w(int64_t *acc, int32_t v, const int16_t *row, size_t N) {
  size_t n = 0;
  for (; n + TQS__BLOCK <= N; n += TQS__BLOCK)
    for (size_t j = 0; j < TQS__BLOCK; j++) acc[n + j] += (int32_t)(v * row[n + j]);
  for (; n < N; n++) acc[n] += (int32_t)(v * row[n]);
}

static void tqs__axpy32(int64_t *acc, int64_t v, const int32_t *row, size_t N) {
  size_t n = 0;
  for (; n + TQS__BLOCK <= N; n += TQS__BLOCK)
    for (size_t j = 0; j < TQS__BLOCK; j++)
      acc[n + j] = (int64_t)((uint64_t)acc[n + j] + (uint64_t)(v * row[n + j]));
  for (; n < N; n++) acc[n] = (int64_t)((uint64_t)acc[n] + (uint64_t)(v * row[n]));
}

/* The operands of a MAC kernel in scratch: input, then weights, then accumulators. */
typedef struct tqs__ops_s {
  void *in, *w;
  int64_t *acc64;
  int32_t *acc32;
} tqs__ops_t;

static tqs__ops_t tqs__prepare(const tqs__kern_t *k, void *scratch, tqs__wcache_t *cache,
                               size_t nin, size_t nw, size_t nacc64) {
  size_t esz = k->narrow ? 2 : 4;
  uint8_t *p = scratch;
  tqs__ops_t o;
  o.w = p;
  p += tqs__align(nw * esz);
  o.in = p;
  p += tqs__align(nin * esz);
  o.acc64 = (int64_t *)(void *)p;
  p += tqs__align(nacc64 * 8);
  o.acc32 = (int32_t *)(void *)p;
  int cached = cache->valid && cache->lo == k->w_lo && cache->hi == k->w_hi &&
               cache->type == k->w_t && cache->narrow == k->narrow && cache->zp == k->weight_zp &&
               cache->transposed == k->by_channel;
  if (k->narrow) {
    tqs__widen16(k->in, k->in_t, k->input_zp, nin, o.in);
    if (!cached && k->by_channel) {
      /* OHWI -> HWIO: w[oc][t] to wt[t][oc], t over KH * KW * IC. */
      size_t OC = (size_t)k->OC, T = nw / OC, wsz = tqf_element_info(k->w_t)->size;
      int16_t *wt = o.w;
      for (size_t oc = 0; oc < OC; oc++)
        for (size_t t = 0; t < T; t++)
          wt[t * OC + oc] =
              (int16_t)(tqf_element_load_int(k->w + (oc * T + t) * wsz, k->w_t) - k->weight_zp);
    } else if (!cached) {
      tqs__widen16(k->w, k->w_t, k->weight_zp, nw, o.w);
    }
  } else {
    tqs__widen32(k->in, k->in_t, k->input_zp, nin, o.in);
    if (!cached) tqs__widen32(k->w, k->w_t, k->weight_zp, nw, o.w);
  }
  cache->valid = 1;
  cache->lo = k->w_lo, cache->hi = k->w_hi;
  cache->type = k->w_t, cache->narrow = k->narrow, cache->zp = k->weight_zp;
  cache->transposed = k->by_channel;
  return o;
}

static int64_t tqs__dot(const tqs__kern_t *k, const tqs__ops_t *o, size_t ia, size_t iw, size_t n) {
  if (k->narrow)
    return tqs__dot16((const int16_t *)o->in + ia, (const int16_t *)o->w + iw, n, k->chunk);
  return tqs__dot32((const int32_t *)o->in + ia, (const int32_t *)o->w + iw, n);
}

/* The bias of every output channel as int64, at the end of the int64 accumulators. */
static int64_t *tqs__bias64(const tqs__kern_t *k, const tqs__ops_t *o, size_t n) {
  int64_t *bias = o->acc64 + n;
  size_t bsz = tqf_element_info(k->b_t)->size;
  for (size_t i = 0; i < n; i++) bias[i] = tqf_element_load_int(k->bias + i * bsz, k->b_t);
  return bias;
}

/* conv2d over the output channels: per output position, every in-bounds tap adds input value x
 * times the tap's row of OC weights (HWIO) to int32 partial sums. */
static void tqs__run_conv_by_channel(const tqs__kern_t *k, void *scratch, tqs__wcache_t *cache) {
  size_t IW = (size_t)k->IW, IC = (size_t)k->IC, KH = (size_t)k->KH, KW = (size_t)k->KW;
  size_t OC = (size_t)k->OC;
  tqs__ops_t o =
      tqs__prepare(k, scratch, cache, (size_t)k->IH * IW * IC, OC * KH * KW * IC, 2 * OC);
  int64_t *acc = o.acc64, *bias = tqs__bias64(k, &o, OC);
  int32_t *part = o.acc32;
  const int16_t *xin = o.in, *wt = o.w;
  size_t row_bytes = OC * k->os.out->size;
  uint8_t *out = k->out;
  for (int64_t oy = 0; oy < k->OH; oy++) {
    int64_t ybase = oy * k->sy - k->pt, ky0, ky1;
    tqs__taps(ybase, k->dy, k->KH, k->IH, &ky0, &ky1);
    for (int64_t ox = 0; ox < k->OW; ox++, out += row_bytes) {
      int64_t xbase = ox * k->sx - k->pl, kx0, kx1;
      tqs__taps(xbase, k->dx, k->KW, k->IW, &kx0, &kx1);
      memcpy(acc, bias, OC * sizeof(*acc));
      memset(part, 0, OC * sizeof(*part));
      size_t terms = 0;
      for (int64_t ky = ky0; ky < ky1; ky++) {
        for (int64_t kx = kx0; kx < kx1; kx++) {
          const int16_t *xp =
              xin + ((size_t)(ybase + ky * k->dy) * IW + (size_t)(xbase + kx * k->dx)) * IC;
          const int16_t *wp = wt + ((size_t)ky * KW + (size_t)kx) * IC * OC;
          for (size_t ic = 0; ic < IC; ic++) {
            if (!xp[ic]) continue;
            tqs__axpy16(part, xp[ic], wp + ic * OC, OC);
            if (++terms == k->chunk) {
              for (size_t c = 0; c < OC; c++) acc[c] += part[c];
              memset(part, 0, OC * sizeof(*part));
              terms = 0;
            }
          }
        }
      }
      for (size_t c = 0; c < OC; c++) acc[c] += part[c];
      tqs__ostage_row(&k->os, acc, OC, out);
    }
  }
}

static void tqs__run_conv(const tqs__kern_t *k, void *scratch, tqs__wcache_t *cache) {
  if (k->by_channel) {
    tqs__run_conv_by_channel(k, scratch, cache);
    return;
  }
  size_t IW = (size_t)k->IW, IC = (size_t)k->IC, KH = (size_t)k->KH, KW = (size_t)k->KW;
  size_t OC = (size_t)k->OC;
  tqs__ops_t o =
      tqs__prepare(k, scratch, cache, (size_t)k->IH * IW * IC, OC * KH * KW * IC, 2 * OC);
  int64_t *acc = o.acc64, *bias = tqs__bias64(k, &o, OC);
  size_t row_bytes = OC * k->os.out->size;
  uint8_t *out = k->out;
  for (int64_t oy = 0; oy < k->OH; oy++) {
    int64_t ybase = oy * k->sy - k->pt, ky0, ky1;
    tqs__taps(ybase, k->dy, k->KH, k->IH, &ky0, &ky1);
    for (int64_t ox = 0; ox < k->OW; ox++, out += row_bytes) {
      int64_t xbase = ox * k->sx - k->pl, kx0, kx1;
      tqs__taps(xbase, k->dx, k->KW, k->IW, &kx0, &kx1);
      for (size_t oc = 0; oc < OC; oc++) {
        int64_t a = bias[oc];
        for (int64_t ky = ky0; ky < ky1 && kx1 > kx0; ky++) {
          size_t y = (size_t)(ybase + ky * k->dy);
          size_t wrow = (oc * KH + (size_t)ky) * KW;
          if (k->dx == 1) {
            size_t x = (size_t)(xbase + kx0);
            a = tqs__wrap_add(a, tqs__dot(k, &o, (y * IW + x) * IC, (wrow + (size_t)kx0) * IC,
                                          (size_t)(kx1 - kx0) * IC));
          } else {
            for (int64_t kx = kx0; kx < kx1; kx++) {
              size_t x = (size_t)(xbase + kx * k->dx);
              a = tqs__wrap_add(a,
                                tqs__dot(k, &o, (y * IW + x) * IC, (wrow + (size_t)kx) * IC, IC));
            }
          }
        }
        acc[oc] = a;
      }
      tqs__ostage_row(&k->os, acc, OC, out);
    }
  }
}

static void tqs__run_depthwise(const tqs__kern_t *k, void *scratch, tqs__wcache_t *cache) {
  size_t IW = (size_t)k->IW, C = (size_t)k->IC, M = (size_t)k->M, CM = C * M;
  size_t KW = (size_t)k->KW;
  tqs__ops_t o =
      tqs__prepare(k, scratch, cache, (size_t)k->IH * IW * C, (size_t)k->KH * KW * CM, 2 * CM);
  int64_t *acc = o.acc64, *bias = tqs__bias64(k, &o, CM);
  size_t row_bytes = CM * k->os.out->size;
  uint8_t *out = k->out;
  for (int64_t oy = 0; oy < k->OH; oy++) {
    int64_t ybase = oy * k->sy - k->pt, ky0, ky1;
    tqs__taps(ybase, k->dy, k->KH, k->IH, &ky0, &ky1);
    for (int64_t ox = 0; ox < k->OW; ox++) {
      int64_t xbase = ox * k->sx - k->pl, kx0, kx1;
      tqs__taps(xbase, k->dx, k->KW, k->IW, &kx0, &kx1);
      memcpy(acc, bias, CM * sizeof(*acc));
      for (int64_t ky = ky0; ky < ky1; ky++) {
        for (int64_t kx = kx0; kx < kx1; kx++) {
          size_t ia = ((size_t)(ybase + ky * k->dy) * IW + (size_t)(xbase + kx * k->dx)) * C;
          size_t iw = ((size_t)ky * KW + (size_t)kx) * CM;
          if (k->narrow) {
            const int16_t *a = (const int16_t *)o.in + ia, *w = (const int16_t *)o.w + iw;
            for (size_t c = 0; c < C; c++)
              for (size_t m = 0; m < M; m++) acc[c * M + m] += a[c] * w[c * M + m];
          } else {
            const int32_t *a = (const int32_t *)o.in + ia, *w = (const int32_t *)o.w + iw;
            for (size_t c = 0; c < C; c++)
              for (size_t m = 0; m < M; m++)
                acc[c * M + m] = tqs__wrap_add(acc[c * M + m], (int64_t)a[c] * w[c * M + m]);
          }
        }
      }
      tqs__ostage_row(&k->os, acc, CM, out);
      out += row_bytes;
    }
  }
}

static void tqs__run_fc(const tqs__kern_t *k, void *scratch, tqs__wcache_t *cache) {
  size_t R = (size_t)k->OH, K = (size_t)k->IC, N = (size_t)k->OC;
  tqs__ops_t o = tqs__prepare(k, scratch, cache, R * K, K * N, N);
  size_t row_bytes = N * k->os.out->size;
  uint8_t *out = k->out;
  for (size_t r = 0; r < R; r++) {
    int64_t *acc = o.acc64;
    memset(acc, 0, N * sizeof(*acc));
    if (k->narrow && k->chunk == 0) {
      const int16_t *a = (const int16_t *)o.in + r * K;
      for (size_t i = 0; i < K; i++)
        if (a[i]) tqs__axpy16w(acc, a[i], (const int16_t *)o.w + i * N, N);
    } else if (k->narrow) {
      const int16_t *a = (const int16_t *)o.in + r * K;
      for (size_t k0 = 0; k0 < K; k0 += k->chunk) {
        size_t k1 = K - k0 < k->chunk ? K : k0 + k->chunk;
        int32_t *part = o.acc32;
        memset(part, 0, N * sizeof(*part));
        for (size_t i = k0; i < k1; i++)
          if (a[i]) tqs__axpy16(part, a[i], (const int16_t *)o.w + i * N, N);
        for (size_t n = 0; n < N; n++) acc[n] += part[n];
      }
    } else {
      const int32_t *a = (const int32_t *)o.in + r * K;
      for (size_t i = 0; i < K; i++)
        if (a[i]) tqs__axpy32(acc, a[i], (const int32_t *)o.w + i * N, N);
    }
    tqs__ostage_row(&k->os, acc, N, out);
    out += row_bytes;
  }
}

static void tqs__run_pool(const tqs__kern_t *k) {
  size_t IW = (size_t)k->IW, C = (size_t)k->IC;
  size_t isz = tqf_element_info(k->in_t)->size, osz = k->os.out->size;
  int avg = k->id == TQF_KERNEL_AVG_POOL2D;
  int64_t lo = k->os.out->min, hi = k->os.out->max;
  uint8_t *out = k->out;
  for (int64_t oy = 0; oy < k->OH; oy++) {
    int64_t ybase = oy * k->sy - k->pt, y0, y1;
    tqs__taps(ybase, 1, k->KH, k->IH, &y0, &y1);
    for (int64_t ox = 0; ox < k->OW; ox++) {
      int64_t xbase = ox * k->sx - k->pl, x0, x1;
      tqs__taps(xbase, 1, k->KW, k->IW, &x0, &x1);
      int64_t multiplier = 0;
      int shift = 0;
      if (avg) tqs__reciprocal_scale((uint32_t)((y1 - y0) * (x1 - x0)), &multiplier, &shift);
      for (size_t c = 0; c < C; c++, out += osz) {
        int64_t v = avg ? 0 : INT64_MIN;
        for (int64_t ky = y0; ky < y1; ky++) {
          const uint8_t *row = k->in + (((size_t)(ybase + ky) * IW) * C + c) * isz;
          for (int64_t kx = x0; kx < x1; kx++) {
            int64_t e = tqf_element_load_int(row + (size_t)(xbase + kx) * C * isz, k->in_t);
            if (avg)
              v = tqs__wrap_add(v, tqs__wrap_sub(e, k->input_zp));
            else if (e > v)
              v = e;
          }
        }
        if (avg) {
          v = tqs__wrap_add(tqs__apply_scale_32(v, multiplier, shift, 0), k->os.output_zp);
          v = tqs__clip(v, lo, hi);
        }
        tqf_element_store_int(out, k->out_t, v);
      }
    }
  }
}

void tqs__kern_run(const tqs__kern_t *k, void *scratch, tqs__wcache_t *cache) {
  /* An empty result: nothing to compute (and no loop over the other dimensions). */
  if (k->id <= TQF_KERNEL_AVG_POOL2D && (k->OH == 0 || k->OW == 0 || k->OC == 0)) return;
  switch (k->id) {
    case TQF_KERNEL_CONV2D:
      tqs__run_conv(k, scratch, cache);
      break;
    case TQF_KERNEL_DEPTHWISE_CONV2D:
      tqs__run_depthwise(k, scratch, cache);
      break;
    case TQF_KERNEL_FULLY_CONNECTED:
      tqs__run_fc(k, scratch, cache);
      break;
    case TQF_KERNEL_MAX_POOL2D:
    case TQF_KERNEL_AVG_POOL2D:
      tqs__run_pool(k);
      break;
    default:
      tqs__eltwise_run(k);
      break;
  }
}
