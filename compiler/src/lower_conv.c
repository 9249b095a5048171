/* Row-band tiling: tosa.conv2d, tosa.depthwise_conv2d, tosa.max_pool2d, tosa.avg_pool2d.
 *
 * A tile is a band of output rows of one batch, all columns, and one group of channels: for
 * conv2d a group of output channels (all input channels are read), for depthwise and pooling a
 * group of input channels (and the output channels they make). The input band is the rows the
 * output band reads, halo included, with the padding trimmed to the band. The largest band is
 * chosen such that two input bands, two output bands and the weights fit in LRAM; channels are
 * grouped only when the weights of all channels (or one row of all channels) do not fit.
 */
#include <string.h>

#include "lower_internal.h"
#include "torq/base/alloc.h"
#include "torq/sim/cost_model.h"

typedef enum band_kind_e { BAND_CONV, BAND_DW, BAND_MAX, BAND_AVG } band_kind_t;

typedef struct band_s {
  band_kind_t kind;
  tqf_kernel_t kernel;
  int64_t N, IH, IW, C, OH, OW, OC, M, KH, KW;
  int64_t stride[2], dil[2], pad[4];
  size_t in_esz, out_esz, w_esz, b_esz;
  uint32_t in_bits, w_bits;
  const tqc_attr_t *wdense, *bdense; /* constant weights / bias, or NULL */
  int64_t bias_count;
  int64_t izp, wzp, ozp;
  int64_t GD; /* the grouped dimension: OC for conv2d, C otherwise */
} band_t;

static band_kind_t kind_of(const tqc_op_t *op) {
  if (tqc_op_is(op, "tosa.conv2d")) return BAND_CONV;
  if (tqc_op_is(op, "tosa.depthwise_conv2d")) return BAND_DW;
  if (tqc_op_is(op, "tosa.max_pool2d")) return BAND_MAX;
  return BAND_AVG;
}

/* Fills `b` from the op; 0 when the NPU cannot run it. */
static int band_describe(const tqc_op_t *op, band_t *b) {
  memset(b, 0, sizeof(*b));
  if (!(tqc_op_is(op, "tosa.conv2d") || tqc_op_is(op, "tosa.depthwise_conv2d") ||
        tqc_op_is(op, "tosa.max_pool2d") || tqc_op_is(op, "tosa.avg_pool2d")))
    return 0;
  b->kind = kind_of(op);
  if (op->num_results != 1 || op->num_operands < 1) return 0;
  const tqc_type_t *in = op->operands[0]->type, *out = op->results[0]->type;
  const int64_t *id = tqc__dims(in, 4), *od = tqc__dims(out, 4);
  if (!id || !od || !tqc__is_int_tensor(in, TQC_W8 | TQC_W16)) return 0;
  b->N = id[0];
  b->IH = id[1];
  b->IW = id[2];
  b->C = id[3];
  b->OH = od[1];
  b->OW = od[2];
  b->OC = od[3];
  b->M = 1;
  b->in_esz = tqc__esz(in);
  b->in_bits = tqc__bits(in);
  b->out_esz = tqc__esz(out);
  b->dil[0] = b->dil[1] = 1;
  if (od[0] != b->N || tqc__attr_i64s(op, "stride", b->stride, 2) ||
      tqc__attr_i64s(op, "pad", b->pad, 4))
    return 0;
  if (b->kind == BAND_CONV || b->kind == BAND_DW) {
    b->kernel = b->kind == BAND_CONV ? TQF_KERNEL_CONV2D : TQF_KERNEL_DEPTHWISE_CONV2D;
    if (op->num_operands != 5 || tqc__attr_i64s(op, "dilation", b->dil, 2)) return 0;
    const tqc_type_t *wt = op->operands[1]->type, *bt = op->operands[2]->type;
    const int64_t *wd = tqc__dims(wt, 4), *bd = tqc__dims(bt, 1);
    if (!wd || !bd || !tqc__is_int_tensor(wt, TQC_W8 | TQC_W16) ||
        !tqc__is_int_tensor(bt, TQC_W32 | TQC_W48) || !tqc__is_int_tensor(out, TQC_W32 | TQC_W48))
      return 0;
    /* The bias and the result have the kernel's accumulator type (torq/formats/contract.h). */
    uint32_t acc_bits =
        tqf_element_info(tqf_kernel_acc_type(tqc__element_type(tqc__elem(in))))->bits;
    if (tqc__bits(bt) != acc_bits || tqc__bits(out) != acc_bits) return 0;
    if (tqc__const_int(op->operands[3], &b->izp) || tqc__const_int(op->operands[4], &b->wzp))
      return 0;
    if (b->kind == BAND_CONV) {
      if (wd[0] != b->OC || wd[3] != b->C) return 0;
      b->KH = wd[1];
      b->KW = wd[2];
      b->GD = b->OC;
    } else {
      if (wd[2] != b->C || wd[3] * b->C != b->OC) return 0;
      b->KH = wd[0];
      b->KW = wd[1];
      b->M = wd[3];
      b->GD = b->C;
    }
    b->w_esz = tqc__esz(wt);
    b->w_bits = tqc__bits(wt);
    b->b_esz = tqc__esz(bt);
    b->wdense = tqc_value_const_dense(op->operands[1]);
    b->bdense = tqc_value_const_dense(op->operands[2]);
    b->bias_count = bd[0];
    if (b->bias_count != b->OC && !(b->bias_count == 1 && b->bdense)) return 0;
  } else {
    b->kernel = b->kind == BAND_MAX ? TQF_KERNEL_MAX_POOL2D : TQF_KERNEL_AVG_POOL2D;
    int64_t k[2];
    if (tqc__attr_i64s(op, "kernel", k, 2)) return 0;
    b->KH = k[0];
    b->KW = k[1];
    if (b->OC != b->C || !tqc_type_equal(tqc__elem(in), tqc__elem(out))) return 0;
    b->GD = b->C;
    if (b->kind == BAND_AVG) {
      if (op->num_operands != 3 || tqc__const_int(op->operands[1], &b->izp) ||
          tqc__const_int(op->operands[2], &b->ozp))
        return 0;
    } else if (op->num_operands != 1) {
      return 0;
    }
  }
  for (int i = 0; i < 2; i++)
    if (b->stride[i] < 1 || b->dil[i] < 1) return 0;
  for (int i = 0; i < 4; i++)
    if (b->pad[i] < 0) return 0;
  if (b->KH < 1 || b->KW < 1 || b->OH < 1 || b->OW < 1 || b->C < 1) return 0;
  /* The result shape must be the one the attributes give (tqc_tosa_check verified it; the
   * lowering relies on it, so it checks again rather than compute garbage). */
  if ((b->IH + b->pad[0] + b->pad[1] - (b->KH - 1) * b->dil[0] - 1) / b->stride[0] + 1 != b->OH ||
      (b->IW + b->pad[2] + b->pad[3] - (b->KW - 1) * b->dil[1] - 1) / b->stride[1] + 1 != b->OW)
    return 0;
  return 1;
}

int tqc__band_supports(const tqc_op_t *op) {
  band_t b;
  return band_describe(op, &b);
}

/* Channels of a group of `gn` along the grouped dimension. */
static int64_t in_ch(const band_t *b, int64_t gn) {
  return b->kind == BAND_CONV ? b->C : gn;
}
static int64_t out_ch(const band_t *b, int64_t gn) {
  return b->kind == BAND_CONV ? gn : gn * b->M;
}
static uint64_t w_bytes(const band_t *b, int64_t gn) {
  if (b->kind == BAND_CONV)
    return (uint64_t)(gn * b->KH * b->KW * b->C) * b->w_esz + (uint64_t)gn * b->b_esz;
  if (b->kind == BAND_DW)
    return (uint64_t)(b->KH * b->KW * gn * b->M) * b->w_esz + (uint64_t)(gn * b->M) * b->b_esz;
  return 0;
}
static uint64_t w_only_bytes(const band_t *b, int64_t gn) {
  return b->kind == BAND_CONV ? (uint64_t)(gn * b->KH * b->KW * b->C) * b->w_esz
                              : (uint64_t)(b->KH * b->KW * gn * b->M) * b->w_esz;
}
static int64_t in_rows_max(const band_t *b, int64_t R) {
  int64_t r = (R - 1) * b->stride[0] + (b->KH - 1) * b->dil[0] + 1;
  return r < b->IH ? r : b->IH;
}

static int fits(const tqs_hw_t *hw, const band_t *b, int64_t R, int64_t gn, int64_t G,
                tqc_layout_t *out) {
  uint64_t in = (uint64_t)(in_rows_max(b, R) * b->IW * in_ch(b, gn)) * b->in_esz;
  uint64_t o = (uint64_t)(R * b->OW * out_ch(b, gn)) * b->out_esz;
  uint64_t w = w_bytes(b, gn);
  return tqc__layout(hw, w, w ? (G > 1 ? 2 : 1) : 0, in, o, out);
}

/* What a band of the layer costs when its output rows are cut into `nb` bands (tqc__best_tiles):
 * the tiles of all groups and batches, weights once per group. */
typedef struct band_ctx_s {
  const tqs_hw_t *hw;
  const band_t *b;
  int64_t gn, G;
} band_ctx_t;

static void band_cost(const void *ctx, uint64_t nb, tqc_tile_cost_t *out) {
  const band_ctx_t *x = ctx;
  const band_t *b = x->b;
  int64_t R = (b->OH + (int64_t)nb - 1) / (int64_t)nb, bands = (b->OH + R - 1) / R;
  uint64_t in = (uint64_t)(in_rows_max(b, R) * b->IW * in_ch(b, x->gn)) * b->in_esz;
  uint64_t o = (uint64_t)(R * b->OW * out_ch(b, x->gn)) * b->out_esz;
  uint64_t rows[TQS_HW_MAX_SLICES];
  tqs_split_over_slices((uint64_t)R, x->hw->slices, rows);
  uint64_t taps = rows[0] * (uint64_t)b->OW * (uint64_t)(b->KH * b->KW);
  uint64_t w = w_bytes(b, x->gn), tiles = (uint64_t)(bands * b->N * x->G);
  out->tiles = tiles;
  /* A group of channels comes in as one block per input pixel. */
  out->in = in_ch(b, x->gn) == b->C
                ? tqs_cost_dma(x->hw, in)
                : tqs_cost_dma_transfer(x->hw, in / ((uint64_t)in_ch(b, x->gn) * b->in_esz),
                                        (uint64_t)in_ch(b, x->gn) * b->in_esz);
  out->first_in = out->in + tqs_cost_dma(x->hw, w);
  if (x->G > 1 && tiles > 1) out->in += tqs_cost_dma(x->hw, w) * (uint64_t)(x->G - 1) / (tiles - 1);
  out->out = tqs_cost_dma(x->hw, o);
  if (b->kind <= BAND_DW) {
    uint64_t macs = taps * (uint64_t)out_ch(b, x->gn) * (uint64_t)(b->kind == BAND_CONV ? b->C : 1);
    out->compute =
        tqs_cost_slice_macs(x->hw, macs, b->w_bits > b->in_bits ? b->w_bits : b->in_bits);
  } else {
    out->compute = tqs_cost_slice_elementwise(x->hw, taps * (uint64_t)out_ch(b, x->gn), b->in_bits);
  }
}

static void put_le(uint8_t *dst, int64_t v, size_t n) {
  for (size_t i = 0; i < n; i++) dst[i] = (uint8_t)((uint64_t)v >> (8 * i));
}

/* The weight and bias transfers of group [c0, c0 + gn) into LRAM at `at`. */
static tq_status_t group_weights(tqc_lower_t *L, const tqc_op_t *op, const band_t *b, int64_t c0,
                                 int64_t gn, uint64_t at, tqc_tile_t *t) {
  uint64_t wb = w_only_bytes(b, gn), bb = w_bytes(b, gn) - wb;
  int64_t oc0 = b->kind == BAND_CONV ? c0 : c0 * b->M, ocn = out_ch(b, gn);
  uint8_t *pack = tq_malloc(wb + bb);
  if (!pack) return TQC_OOM("packing weights");
  size_t packed = 0;
  tq_status_t st = NULL;
  if (b->wdense) {
    if (b->kind == BAND_CONV) {
      size_t per = (size_t)(b->KH * b->KW * b->C);
      tqc__dense_copy(b->wdense, (size_t)c0 * per, (size_t)gn * per, pack);
    } else {
      size_t row = (size_t)(gn * b->M);
      for (int64_t k = 0; k < b->KH * b->KW; k++)
        tqc__dense_copy(b->wdense, (size_t)((k * b->C + c0) * b->M), row,
                        pack + (size_t)k * row * b->w_esz);
    }
    packed = wb;
  } else {
    uint32_t wid;
    if ((st = tqc__value_buffer(L, op->operands[1], &wid))) goto done;
    tqc_xfer_t *x = &t->win[t->n_win++];
    x->buffer = wid;
    x->lram = at;
    if (b->kind == BAND_CONV) {
      x->offset = (uint64_t)c0 * (wb / (uint64_t)gn);
      x->size = wb;
    } else {
      x->offset = (uint64_t)(c0 * b->M) * b->w_esz;
      x->size = (uint64_t)(gn * b->M) * b->w_esz;
      x->count = (uint64_t)(b->KH * b->KW);
      x->stride = (uint64_t)(b->C * b->M) * b->w_esz;
      if (x->count == 1) x->count = 0;
    }
  }
  if (b->bdense) {
    for (int64_t i = 0; i < ocn; i++)
      put_le(pack + packed + (size_t)i * b->b_esz,
             tqc_dense_get_int(b->bdense, b->bias_count == 1 ? 0 : (size_t)(oc0 + i)), b->b_esz);
    packed += bb;
  }
  if (packed) {
    uint32_t cid;
    int64_t dims[1] = {(int64_t)packed};
    if ((st = tqc__new_constant(L, TORQ__ELEMENT_TYPE__I8, dims, 1, pack, packed, &cid))) goto done;
    tqc_xfer_t *x = &t->win[t->n_win++];
    x->buffer = cid;
    x->size = packed;
    x->lram = b->wdense ? at : at + wb;
  }
  if (!b->bdense) {
    uint32_t bid;
    if ((st = tqc__value_buffer(L, op->operands[2], &bid))) goto done;
    tqc_xfer_t *x = &t->win[t->n_win++];
    x->buffer = bid;
    x->offset = (uint64_t)oc0 * b->b_esz;
    x->size = bb;
    x->lram = at + wb;
  }
done:
  tq_free(pack);
  return st;
}

tq_status_t tqc__lower_band(tqc_lower_t *L, const tqc_group_t *g) {
  const tqc_op_t *op = g->main;
  band_t b;
  if (!band_describe(op, &b)) return tqc__op_error(L, op, "internal: band op not supported");
  const tqc_value_t *result = tqc__group_result(g);
  b.out_esz = tqc__esz(result->type);
  const tqs_hw_t *hw = L->hw;

  /* Channel groups: all at once when the weights and one row fit, else the fewest groups. */
  int64_t gn = b.GD, G = 1;
  tqc_layout_t lay;
  if (!fits(hw, &b, 1, gn, G, &lay)) {
    int found = 0;
    for (int64_t tryG = 2; tryG <= b.GD && !found; tryG++) {
      int64_t n = (b.GD + tryG - 1) / tryG, realG = (b.GD + n - 1) / n;
      if (n == gn) continue;
      gn = n;
      G = realG;
      found = fits(hw, &b, 1, gn, G, &lay);
    }
    if (!found) {
      tqc_layout_t need;
      fits(hw, &b, 1, 1, b.GD, &need);
      return tqc__lram_too_small(L, op, need.total);
    }
  }
  int64_t R = b.OH;
  while (R > 1 && !fits(hw, &b, R, gn, G, &lay)) R--;
  band_ctx_t ctx = {hw, &b, gn, G};
  int64_t nbands =
      (int64_t)tqc__best_tiles(L, (uint64_t)((b.OH + R - 1) / R), (uint64_t)b.OH, band_cost, &ctx);
  R = (b.OH + nbands - 1) / nbands;
  fits(hw, &b, R, gn, G, &lay);

  tqc_tiles_t tiles = {0};
  tq_status_t st = NULL;
  uint32_t in_id, out_id;
  if ((st = tqc__value_buffer(L, op->operands[0], &in_id))) goto done;
  if ((st = tqc__value_buffer(L, result, &out_id))) goto done;
  const tqc_type_t *in_t = tqc__elem(op->operands[0]->type);
  const tqc_type_t *w_t = b.kind <= BAND_DW ? tqc__elem(op->operands[1]->type) : NULL;
  const tqc_type_t *out_t = tqc__elem(result->type);
  uint32_t bits = b.w_bits > b.in_bits ? b.w_bits : b.in_bits;
  for (int64_t gi = 0; gi < G; gi++) {
    int64_t c0 = gi * gn, cn = b.GD - c0 < gn ? b.GD - c0 : gn;
    int64_t ich = in_ch(&b, cn), och = out_ch(&b, cn);
    int64_t ic0 = b.kind == BAND_CONV ? 0 : c0, oc0 = b.kind == BAND_CONV ? c0 : c0 * b.M;
    uint64_t wslot = lay.w[gi % 2], wb = w_only_bytes(&b, cn);
    for (int64_t n = 0; n < b.N; n++) {
      for (int64_t oy0 = 0; oy0 < b.OH; oy0 += R) {
        int64_t oy1 = oy0 + R < b.OH ? oy0 + R : b.OH, rows = oy1 - oy0;
        size_t k = tiles.count;
        tqc_tile_t *t = tqc__tiles_add(&tiles);
        if (!t) {
          st = TQC_OOM("tiling");
          goto done;
        }
        if (b.kind <= BAND_DW && n == 0 && oy0 == 0 &&
            (st = group_weights(L, op, &b, c0, cn, wslot, t)))
          goto done;
        int64_t ys = oy0 * b.stride[0] - b.pad[0];
        int64_t ye = (oy1 - 1) * b.stride[0] - b.pad[0] + (b.KH - 1) * b.dil[0] + 1;
        int64_t cs = ys > 0 ? ys : 0, ce = ye < b.IH ? ye : b.IH;
        uint64_t row_bytes = (uint64_t)(b.IW * ich) * b.in_esz;
        uint64_t in_lram = lay.in[k % 2], out_lram = lay.out[k % 2];
        if (ce > cs) {
          tqc_xfer_t *x = &t->in[t->n_in++];
          x->buffer = in_id;
          x->offset = (uint64_t)(((n * b.IH + cs) * b.IW) * b.C + ic0) * b.in_esz;
          x->lram = in_lram;
          if (ich == b.C) {
            x->size = (uint64_t)(ce - cs) * row_bytes;
          } else {
            x->size = (uint64_t)ich * b.in_esz;
            x->count = (uint64_t)((ce - cs) * b.IW);
            x->stride = (uint64_t)b.C * b.in_esz;
          }
        }
        t->n_out = 1;
        t->out[0].buffer = out_id;
        t->out[0].offset = (uint64_t)(((n * b.OH + oy0) * b.OW) * b.OC + oc0) * b.out_esz;
        t->out[0].lram = out_lram;
        if (och == b.OC) {
          t->out[0].size = (uint64_t)(rows * b.OW * b.OC) * b.out_esz;
        } else {
          t->out[0].size = (uint64_t)och * b.out_esz;
          t->out[0].count = (uint64_t)(rows * b.OW);
          t->out[0].stride = (uint64_t)b.OC * b.out_esz;
        }
        uint64_t split[TQS_HW_MAX_SLICES];
        tqs_split_over_slices((uint64_t)rows, hw->slices, split);
        int64_t a = oy0;
        for (uint32_t s = 0; s < hw->slices; s++) {
          int64_t sr = (int64_t)split[s], e = a + sr;
          if (sr == 0) continue;
          int64_t sys = a * b.stride[0] - b.pad[0];
          int64_t sye = (e - 1) * b.stride[0] - b.pad[0] + (b.KH - 1) * b.dil[0] + 1;
          int64_t scs = sys > 0 ? sys : 0, sce = sye < b.IH ? sye : b.IH;
          int64_t srows = sce > scs ? sce - scs : 0;
          if (sce <= scs) scs = cs;
          tqc_slice_work_t *w = &t->slice[s];
          w->kernel = b.kernel;
          size_t nr = b.kind <= BAND_DW ? 4 : 2;
          w->regions = tq_arena_calloc(L->arena, nr, sizeof(Torq__Region *));
          w->params = tqc__params_new(L);
          if (!w->regions || !w->params) {
            st = TQC_OOM("tiling");
            goto done;
          }
          w->regions[w->n_regions++] = tqc__lram_region(
              L, in_lram + (uint64_t)(scs - cs) * row_bytes, (uint64_t)srows * row_bytes);
          if (b.kind <= BAND_DW) {
            w->regions[w->n_regions++] = tqc__lram_region(L, wslot, wb);
            w->regions[w->n_regions++] = tqc__lram_region(L, wslot + wb, (uint64_t)och * b.b_esz);
          }
          w->regions[w->n_regions++] =
              tqc__lram_region(L, out_lram + (uint64_t)((a - oy0) * b.OW * och) * b.out_esz,
                               (uint64_t)(sr * b.OW * och) * b.out_esz);
          for (size_t r = 0; r < w->n_regions; r++)
            if (!w->regions[r]) {
              st = TQC_OOM("tiling");
              goto done;
            }
          Torq__KernelParams *p = w->params;
          int64_t ishape[4] = {1, srows, b.IW, ich}, oshape[4] = {1, sr, b.OW, och};
          int64_t pad[4] = {sys < 0 ? -sys : 0, sye > b.IH ? sye - b.IH : 0, b.pad[2], b.pad[3]};
          int64_t kern[2] = {b.KH, b.KW};
          p->input_type = tqc__element_type(in_t);
          p->input_shape = tqc__i64s(L, 4, ishape);
          p->n_input_shape = 4;
          p->output_shape = tqc__i64s(L, 4, oshape);
          p->n_output_shape = 4;
          p->stride = tqc__i64s(L, 2, b.stride);
          p->n_stride = 2;
          p->dilation = tqc__i64s(L, 2, b.dil);
          p->n_dilation = 2;
          p->pad = tqc__i64s(L, 4, pad);
          p->n_pad = 4;
          p->input_zp = b.izp;
          p->weight_zp = b.wzp;
          uint64_t taps = (uint64_t)(sr * b.OW) * (uint64_t)(b.KH * b.KW);
          if (b.kind <= BAND_DW) {
            int64_t wshape[4] = {cn, b.KH, b.KW, b.C};
            if (b.kind == BAND_DW) {
              wshape[0] = b.KH;
              wshape[1] = b.KW;
              wshape[2] = cn;
              wshape[3] = b.M;
            }
            p->weight_type = tqc__element_type(w_t);
            p->weight_shape = tqc__i64s(L, 4, wshape);
            p->n_weight_shape = 4;
            if ((st = tqc__output_stage(L, g, p, (size_t)oc0, (size_t)och))) goto done;
            w->macs = taps * (uint64_t)och * (uint64_t)(b.kind == BAND_CONV ? b.C : 1);
            w->cycles = tqs_cost_slice_macs(hw, w->macs, bits);
          } else {
            p->kernel = tqc__i64s(L, 2, kern);
            p->n_kernel = 2;
            p->output_type = tqc__element_type(out_t);
            p->output_zp = b.ozp;
            tqc__int_range(out_t, &p->clamp_min, &p->clamp_max);
            w->macs = taps * (uint64_t)och;
            w->cycles = tqs_cost_slice_elementwise(hw, w->macs, b.in_bits);
          }
          if (!p->input_shape || !p->output_shape || !p->stride || !p->dilation || !p->pad) {
            st = TQC_OOM("tiling");
            goto done;
          }
          a = e;
        }
      }
    }
  }
  {
    const tqc_op_t *ops[3] = {g->main, g->rescale, g->clamp};
    size_t n_ops = g->clamp ? 3 : g->rescale ? 2 : 1;
    st = tqc__emit_nss(L, op, &tiles, ops, n_ops);
  }
done:
  tqc__tiles_deinit(&tiles);
  return st;
}
