/* Slice kernels of the NPU model: decoding and validation of every kernel's parameters against
 * its regions, the cycles of the compiler's cost formula for it, the choice of a MAC kernel's
 * operand width and path (executed by npu_mac.c), and the pools, exactly as the NPU contract
 * (torq/formats/contract.h) says.
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
  if (dw) {
    /* Every tap of an output fits one int32 partial sum. */
    k->fast = k->narrow && k->chunk && k->M == 1 && (uint64_t)(k->KH * k->KW) <= k->chunk;
  } else {
    /* Dot products over whole blocks of 8 channels; else, with many output channels and little
     * work per dot product, run over the channels. */
    k->fast = k->narrow && k->chunk && k->IC % TQS__DOT_BLOCK == 0;
    k->by_channel =
        !k->fast && k->narrow && k->chunk && k->OC >= 16 && k->IC * (k->dx == 1 ? k->KW : 1) < 64;
  }
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
  k->fast = k->narrow && k->chunk && k->IC % TQS__DOT_BLOCK == 0;
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

/* ---- Pools ----------------------------------------------------------------------------------- */

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
