/* tosa.matmul as the fully_connected kernel: A [N, H, K] x B [N, K, W] -> [N, H, W].
 *
 * B of one batch stays resident in LRAM (the "weights" of the pipeline); tiles are bands of rows
 * of A of one batch. When B of one batch and one row do not fit, B's columns are split into
 * groups (a strided DMA brings a group of columns in), and the output columns with them.
 */
#include <string.h>

#include "lower_internal.h"
#include "torq/sim/cost_model.h"

typedef struct mm_s {
  int64_t N, H, K, W;
  size_t a_esz, b_esz, o_esz;
  uint32_t bits;
  int64_t azp, bzp;
} mm_t;

static int mm_describe(const tqc_op_t *op, mm_t *m) {
  memset(m, 0, sizeof(*m));
  if (!tqc_op_is(op, "tosa.matmul") || op->num_operands != 4 || op->num_results != 1) return 0;
  const tqc_type_t *at = op->operands[0]->type, *bt = op->operands[1]->type;
  const tqc_type_t *ot = op->results[0]->type;
  const int64_t *ad = tqc__dims(at, 3), *bd = tqc__dims(bt, 3), *od = tqc__dims(ot, 3);
  if (!ad || !bd || !od || !tqc__is_int_tensor(at, TQC_W8 | TQC_W16) ||
      !tqc__is_int_tensor(bt, TQC_W8 | TQC_W16) ||
      !tqc__is_int_tensor(ot, TQC_W16 | TQC_W32 | TQC_W48))
    return 0;
  if (bd[0] != ad[0] || bd[1] != ad[2] || od[0] != ad[0] || od[1] != ad[1] || od[2] != bd[2])
    return 0;
  if (tqc__const_int(op->operands[2], &m->azp) || tqc__const_int(op->operands[3], &m->bzp))
    return 0;
  m->N = ad[0];
  m->H = ad[1];
  m->K = ad[2];
  m->W = bd[2];
  if (m->N < 1 || m->H < 1 || m->K < 1 || m->W < 1) return 0;
  m->a_esz = tqc__esz(at);
  m->b_esz = tqc__esz(bt);
  m->o_esz = tqc__esz(ot);
  m->bits = tqc__bits(at) > tqc__bits(bt) ? tqc__bits(at) : tqc__bits(bt);
  return 1;
}

int tqc__matmul_supports(const tqc_op_t *op) {
  mm_t m;
  return mm_describe(op, &m);
}

static int mm_fits(const tqs_hw_t *hw, const mm_t *m, int64_t R, int64_t gn, int64_t groups,
                   tqc_layout_t *out) {
  return tqc__layout(hw, (uint64_t)(m->K * gn) * m->b_esz, groups > 1 ? 2 : 1,
                     (uint64_t)(R * m->K) * m->a_esz, (uint64_t)(R * gn) * m->o_esz, out);
}

/* What a band of rows of A costs when the rows are cut into `nb` bands (tqc__best_tiles): the
 * tiles of all batches and column groups, B once per group. */
typedef struct mm_ctx_s {
  const tqs_hw_t *hw;
  const mm_t *m;
  int64_t gn, G;
} mm_ctx_t;

static void mm_cost(const void *ctx, uint64_t nb, tqc_tile_cost_t *out) {
  const mm_ctx_t *x = ctx;
  const mm_t *m = x->m;
  int64_t R = (m->H + (int64_t)nb - 1) / (int64_t)nb, bands = (m->H + R - 1) / R;
  uint64_t rows[TQS_HW_MAX_SLICES];
  tqs_split_over_slices((uint64_t)R, x->hw->slices, rows);
  uint64_t tiles = (uint64_t)(bands * m->N * x->G), w = (uint64_t)(m->K * x->gn) * m->b_esz;
  out->tiles = tiles;
  out->in = tqs_cost_dma(x->hw, (uint64_t)(R * m->K) * m->a_esz);
  out->first_in = out->in + tqs_cost_dma(x->hw, w);
  if (tiles > (uint64_t)bands && tiles > 1)
    out->in += tqs_cost_dma(x->hw, w) * (tiles / (uint64_t)bands - 1) / (tiles - 1);
  out->out = tqs_cost_dma(x->hw, (uint64_t)(R * x->gn) * m->o_esz);
  out->compute = tqs_cost_slice_macs(x->hw, rows[0] * (uint64_t)x->gn * (uint64_t)m->K, m->bits);
}

tq_status_t tqc__lower_matmul(tqc_lower_t *L, const tqc_group_t *g) {
  const tqc_op_t *op = g->main;
  const tqs_hw_t *hw = L->hw;
  mm_t m;
  if (!mm_describe(op, &m)) return tqc__op_error(L, op, "internal: matmul not supported");
  const tqc_value_t *result = tqc__group_result(g);
  m.o_esz = tqc__esz(result->type);

  int64_t gn = m.W, G = 1;
  tqc_layout_t lay;
  if (!mm_fits(hw, &m, 1, gn, m.N, &lay)) {
    int found = 0;
    for (int64_t tryG = 2; tryG <= m.W && !found; tryG++) {
      int64_t n = (m.W + tryG - 1) / tryG;
      if (n == gn) continue;
      gn = n;
      G = (m.W + n - 1) / n;
      found = mm_fits(hw, &m, 1, gn, m.N * G, &lay);
    }
    if (!found) {
      tqc_layout_t need;
      mm_fits(hw, &m, 1, 1, 2, &need);
      return tqc__lram_too_small(L, op, need.total);
    }
  }
  int64_t R = m.H;
  while (R > 1 && !mm_fits(hw, &m, R, gn, m.N * G, &lay)) R--;
  mm_ctx_t ctx = {hw, &m, gn, G};
  int64_t nb =
      (int64_t)tqc__best_tiles(L, (uint64_t)((m.H + R - 1) / R), (uint64_t)m.H, mm_cost, &ctx);
  R = (m.H + nb - 1) / nb;
  mm_fits(hw, &m, R, gn, m.N * G, &lay);

  tqc_tiles_t tiles = {0};
  tq_status_t st = NULL;
  uint32_t a_id, b_id, o_id;
  if ((st = tqc__value_buffer(L, op->operands[0], &a_id))) goto done;
  if ((st = tqc__value_buffer(L, op->operands[1], &b_id))) goto done;
  if ((st = tqc__value_buffer(L, result, &o_id))) goto done;
  Torq__ElementType at = tqc__element_type(tqc__elem(op->operands[0]->type));
  Torq__ElementType bt = tqc__element_type(tqc__elem(op->operands[1]->type));
  size_t group_index = 0;
  for (int64_t n = 0; n < m.N; n++) {
    for (int64_t gi = 0; gi < G; gi++, group_index++) {
      int64_t w0 = gi * gn, wn = m.W - w0 < gn ? m.W - w0 : gn;
      uint64_t wslot = lay.w[group_index % 2];
      for (int64_t r0 = 0; r0 < m.H; r0 += R) {
        int64_t r1 = r0 + R < m.H ? r0 + R : m.H, rows = r1 - r0;
        size_t k = tiles.count;
        tqc_tile_t *t = tqc__tiles_add(&tiles);
        if (!t) {
          st = TQC_OOM("tiling");
          goto done;
        }
        if (r0 == 0) {
          tqc_xfer_t *x = &t->win[t->n_win++];
          x->buffer = b_id;
          x->offset = (uint64_t)(n * m.K * m.W + w0) * m.b_esz;
          x->lram = wslot;
          if (wn == m.W) {
            x->size = (uint64_t)(m.K * m.W) * m.b_esz;
          } else {
            x->size = (uint64_t)wn * m.b_esz;
            x->count = (uint64_t)m.K;
            x->stride = (uint64_t)m.W * m.b_esz;
          }
        }
        uint64_t in_lram = lay.in[k % 2], out_lram = lay.out[k % 2];
        tqc_xfer_t *x = &t->in[t->n_in++];
        x->buffer = a_id;
        x->offset = (uint64_t)((n * m.H + r0) * m.K) * m.a_esz;
        x->size = (uint64_t)(rows * m.K) * m.a_esz;
        x->lram = in_lram;
        t->n_out = 1;
        t->out[0].buffer = o_id;
        t->out[0].offset = (uint64_t)((n * m.H + r0) * m.W + w0) * m.o_esz;
        t->out[0].lram = out_lram;
        if (wn == m.W) {
          t->out[0].size = (uint64_t)(rows * m.W) * m.o_esz;
        } else {
          t->out[0].size = (uint64_t)wn * m.o_esz;
          t->out[0].count = (uint64_t)rows;
          t->out[0].stride = (uint64_t)m.W * m.o_esz;
        }
        uint64_t split[TQS_HW_MAX_SLICES];
        tqs_split_over_slices((uint64_t)rows, hw->slices, split);
        int64_t a = 0;
        for (uint32_t s = 0; s < hw->slices; s++) {
          int64_t sr = (int64_t)split[s];
          if (sr == 0) continue;
          tqc_slice_work_t *w = &t->slice[s];
          w->kernel = TQF_KERNEL_FULLY_CONNECTED;
          w->regions = tq_arena_calloc(L->arena, 3, sizeof(Torq__Region *));
          w->params = tqc__params_new(L);
          if (!w->regions || !w->params) {
            st = TQC_OOM("tiling");
            goto done;
          }
          w->regions[0] = tqc__lram_region(L, in_lram + (uint64_t)(a * m.K) * m.a_esz,
                                           (uint64_t)(sr * m.K) * m.a_esz);
          w->regions[1] = tqc__lram_region(L, wslot, (uint64_t)(m.K * wn) * m.b_esz);
          w->regions[2] = tqc__lram_region(L, out_lram + (uint64_t)(a * wn) * m.o_esz,
                                           (uint64_t)(sr * wn) * m.o_esz);
          w->n_regions = 3;
          Torq__KernelParams *p = w->params;
          int64_t ishape[2] = {sr, m.K}, wshape[2] = {m.K, wn}, oshape[2] = {sr, wn};
          p->input_type = at;
          p->weight_type = bt;
          p->input_shape = tqc__i64s(L, 2, ishape);
          p->n_input_shape = 2;
          p->weight_shape = tqc__i64s(L, 2, wshape);
          p->n_weight_shape = 2;
          p->output_shape = tqc__i64s(L, 2, oshape);
          p->n_output_shape = 2;
          p->input_zp = m.azp;
          p->weight_zp = m.bzp;
          if ((st = tqc__output_stage(L, g, p, (size_t)w0, (size_t)wn))) goto done;
          if (!w->regions[0] || !w->regions[1] || !w->regions[2] || !p->input_shape ||
              !p->weight_shape || !p->output_shape) {
            st = TQC_OOM("tiling");
            goto done;
          }
          w->macs = (uint64_t)sr * (uint64_t)wn * (uint64_t)m.K;
          w->cycles = tqs_cost_slice_macs(hw, w->macs, m.bits);
          a += sr;
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
