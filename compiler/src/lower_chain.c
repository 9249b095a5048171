/* Fused elementwise chains: a run of elementwise operators (rescale, add, sub, mul, clamp) of one
 * element count becomes one NSS program whose intermediates stay in LRAM.
 *
 * The walk (lower.c) takes consecutive operators that the NPU runs elementwise and that make
 * results of the same element count (constants and views between them do not break a run). Each
 * value the chain makes is an output when anything outside the chain reads it (the function's
 * return included), else an intermediate. A tile is a range of the flat element order (whole rows
 * of the innermost dimension when a per-channel rescale is in the chain, so that an element's
 * channel is its index in that dimension). Per tile, DMA in brings each distinct outside operand
 * once; each slice runs the chain's kernels in order on its share of the tile, reading and
 * writing intermediates in a scratch area of LRAM, outputs in the tile's output slot; DMA out
 * stores the outputs. Operands of one element are loaded once, as the pipeline's "weights", and
 * broadcast. The tile count is the cost model's choice (tqc__best_tiles).
 */
#include <string.h>

#include "lower_internal.h"
#include "torq/sim/cost_model.h"

#define ALIGN 64u

static uint64_t align_up(uint64_t x) {
  return x > UINT64_MAX / 2 ? UINT64_MAX / 2 : (x + ALIGN - 1) / ALIGN * ALIGN;
}

static size_t elements(const tqc_type_t *t) {
  size_t n = 0;
  if (!t || t->kind != TQC_TYPE_TENSOR || !tqc_type_element_count(t, &n)) return 0;
  return n;
}

static int is_binary(const tqc_op_t *op) {
  return tqc_op_is(op, "tosa.add") || tqc_op_is(op, "tosa.sub") || tqc_op_is(op, "tosa.mul");
}

static size_t n_data_operands(const tqc_op_t *op) {
  return is_binary(op) ? 2 : 1;
}

/* ---- Shape of a chain ----------------------------------------------------------------------- */

/* Where each operand of each member comes from, and where values live. */
typedef struct plan_s {
  size_t n;      /* elements of every member's result */
  uint64_t unit; /* elements per tile unit (channels of a per-channel rescale) */
  const tqc_value_t *ext[TQC_TILE_MAX_IN]; /* full-size outside operands (roots), loaded per tile */
  size_t n_ext;
  const tqc_value_t *bc[TQC_TILE_MAX_W]; /* one-element outside operands (roots), loaded once */
  size_t n_bc;
  size_t n_out;
  /* per member: -1 - k for ext[k], -100 - k for bc[k], m >= 0 for member m's result */
  int src[TQC_CHAIN_MAX][2];
} plan_t;

static int member_of(const tqc_chain_t *c, const tqc_value_t *root) {
  for (size_t m = 0; m < c->n; m++)
    if (c->ops[m]->results[0] == root) return (int)m;
  return -1;
}

/* Classifies every operand; 0 when the chain needs more inputs, weights or outputs than a tile
 * holds. */
static int plan_chain(const tqc_lower_t *L, const tqc_chain_t *c, plan_t *p) {
  memset(p, 0, sizeof(*p));
  p->n = elements(c->ops[0]->results[0]->type);
  p->unit = 1;
  for (size_t m = 0; m < c->n; m++) {
    int ch = tqc__eltwise_channels(c->ops[m]);
    if (ch) p->unit = (uint64_t)ch;
    if (c->is_output[m]) p->n_out++;
    for (size_t o = 0; o < n_data_operands(c->ops[m]); o++) {
      const tqc_value_t *v = c->ops[m]->operands[o];
      const tqc_value_t *root = L->vals[v->id].root;
      int k = member_of(c, root);
      if (k >= 0 && (size_t)k < m) {
        p->src[m][o] = k;
        continue;
      }
      int bcast = elements(v->type) == 1 && p->n > 1;
      const tqc_value_t **list = bcast ? p->bc : p->ext;
      size_t *count = bcast ? &p->n_bc : &p->n_ext, cap = bcast ? TQC_TILE_MAX_W : TQC_TILE_MAX_IN;
      size_t at = 0;
      while (at < *count && list[at] != root) at++;
      if (at == *count) {
        if (*count == cap) return 0;
        list[(*count)++] = root;
      }
      p->src[m][o] = bcast ? -100 - (int)at : -1 - (int)at;
    }
  }
  return p->n_out >= 1 && p->n_out <= TQC_TILE_MAX_OUT && p->n % p->unit == 0;
}

int tqc__chain_fits_tile(const tqc_lower_t *L, const tqc_chain_t *c) {
  plan_t p;
  return plan_chain(L, c, &p);
}

/* ---- LRAM ------------------------------------------------------------------------------------ */

/* Bytes per element: of the per-tile inputs, outputs and intermediates. */
typedef struct sizes_s {
  uint64_t in, out, scratch, weights;
  uint64_t in_off[TQC_TILE_MAX_IN], w_off[TQC_TILE_MAX_W];
  uint64_t off[TQC_CHAIN_MAX]; /* per member: offset (per element) in the output slot or scratch */
  size_t esz[TQC_CHAIN_MAX];
  uint32_t bits[TQC_CHAIN_MAX];
} sizes_t;

static void chain_sizes(const tqc_chain_t *c, const plan_t *p, sizes_t *z) {
  memset(z, 0, sizeof(*z));
  for (size_t k = 0; k < p->n_ext; k++) {
    z->in_off[k] = z->in;
    z->in += tqc__esz(p->ext[k]->type);
  }
  for (size_t k = 0; k < p->n_bc; k++) {
    z->w_off[k] = z->weights;
    z->weights += tqc__esz(p->bc[k]->type);
  }
  for (size_t m = 0; m < c->n; m++) {
    z->esz[m] = tqc__esz(c->ops[m]->results[0]->type);
    uint64_t *at = c->is_output[m] ? &z->out : &z->scratch;
    z->off[m] = *at;
    *at += z->esz[m];
  }
}

/* The LRAM of a chain whose tiles hold `elems` elements: the tqc__layout slots, then scratch. */
static int chain_layout(const tqs_hw_t *hw, const sizes_t *z, uint64_t elems, tqc_layout_t *lay,
                        uint64_t *scratch_at) {
  if (!tqc__layout(hw, z->weights, z->weights ? 1 : 0, elems * z->in, elems * z->out, lay))
    return 0;
  *scratch_at = align_up(lay->total);
  uint64_t need = elems * z->scratch;
  return *scratch_at <= hw->lram_bytes && need <= hw->lram_bytes - *scratch_at;
}

/* ---- Tiling ---------------------------------------------------------------------------------- */

typedef struct cost_ctx_s {
  const tqs_hw_t *hw;
  const tqc_chain_t *c;
  const plan_t *p;
  const sizes_t *z;
  uint64_t units;
} cost_ctx_t;

static void tile_cost(const void *ctx, uint64_t ntiles, tqc_tile_cost_t *out) {
  const cost_ctx_t *x = ctx;
  uint64_t E = (x->units + ntiles - 1) / ntiles, elems = E * x->p->unit;
  uint64_t split[TQS_HW_MAX_SLICES];
  tqs_split_over_slices(E, x->hw->slices, split);
  memset(out, 0, sizeof(*out));
  for (size_t k = 0; k < x->p->n_ext; k++)
    out->in += tqs_cost_dma(x->hw, elems * tqc__esz(x->p->ext[k]->type));
  out->first_in = out->in;
  for (size_t k = 0; k < x->p->n_bc; k++)
    out->first_in += tqs_cost_dma(x->hw, tqc__esz(x->p->bc[k]->type));
  for (size_t m = 0; m < x->c->n; m++) {
    out->compute += tqs_cost_slice_elementwise(x->hw, split[0] * x->p->unit, x->z->bits[m]);
    if (x->c->is_output[m]) out->out += tqs_cost_dma(x->hw, elems * x->z->esz[m]);
  }
}

/* The regions and parameters of member m's work on one slice: elements [a, a + len) of the tile
 * whose slots are in_slot and out_slot. */
static tq_status_t member_work(tqc_lower_t *L, const tqc_chain_t *c, const plan_t *p,
                               const sizes_t *z, size_t m, const Torq__KernelParams *base,
                               tqf_kernel_t kernel, const tqc_layout_t *lay, uint64_t E,
                               uint64_t in_slot, uint64_t out_slot, uint64_t scratch, uint64_t a,
                               uint64_t len, tqc_slice_work_t *w) {
  const tqc_op_t *op = c->ops[m];
  size_t nops = n_data_operands(op);
  uint64_t elems = E * p->unit;
  w->kernel = kernel;
  w->location = tqc__op_location(L, op);
  w->regions = tq_arena_calloc(L->arena, nops + 1, sizeof(Torq__Region *));
  w->params = tqc__params_new(L);
  if (!w->regions || !w->params) return TQC_OOM("tiling");
  for (size_t o = 0; o <= nops; o++) {
    int src = o < nops ? p->src[m][o] : (int)m;
    Torq__Region *r;
    if (src <= -100) {
      size_t k = (size_t)(-100 - src);
      r = tqc__lram_region(L, lay->w[0] + z->w_off[k], tqc__esz(p->bc[k]->type));
    } else if (src < 0) {
      size_t k = (size_t)(-1 - src), esz = tqc__esz(p->ext[k]->type);
      r = tqc__lram_region(L, in_slot + elems * z->in_off[k] + a * esz, len * esz);
    } else {
      uint64_t slot = c->is_output[src] ? out_slot : scratch;
      r = tqc__lram_region(L, slot + elems * z->off[src] + a * z->esz[src], len * z->esz[src]);
    }
    if (!r) return TQC_OOM("tiling");
    w->regions[w->n_regions++] = r;
  }
  Torq__KernelParams *pp = w->params;
  const ProtobufCMessageDescriptor *keep = pp->base.descriptor;
  *pp = *base;
  pp->base.descriptor = keep;
  int64_t shape[2] = {(int64_t)len, 0};
  size_t rank = 1;
  int ch = tqc__eltwise_channels(op);
  if (ch) {
    shape[0] = (int64_t)(len / (uint64_t)ch);
    shape[1] = ch;
    rank = 2;
  }
  pp->input_shape = tqc__i64s(L, rank, shape);
  pp->output_shape = tqc__i64s(L, rank, shape);
  if (!pp->input_shape || !pp->output_shape) return TQC_OOM("tiling");
  pp->n_input_shape = pp->n_output_shape = rank;
  w->macs = len;
  w->cycles = tqs_cost_slice_elementwise(L->hw, len, z->bits[m]);
  return NULL;
}

tq_status_t tqc__lower_chain(tqc_lower_t *L, const tqc_chain_t *c) {
  const tqs_hw_t *hw = L->hw;
  const tqc_op_t *first = c->ops[0];
  plan_t p;
  sizes_t z;
  if (!plan_chain(L, c, &p)) return tqc__op_error(L, first, "internal: chain does not fit a tile");
  chain_sizes(c, &p, &z);
  Torq__KernelParams base[TQC_CHAIN_MAX];
  tqf_kernel_t kernel[TQC_CHAIN_MAX];
  for (size_t m = 0; m < c->n; m++)
    TQ_TRY(tqc__eltwise_params(L, c->ops[m], &base[m], &kernel[m], &z.bits[m]));

  /* The fewest tiles that fit (the largest tile, by bisection: fitting is monotone in it). */
  uint64_t units = p.n / p.unit, lo = 0, hi = units, scratch = 0;
  tqc_layout_t lay;
  while (lo < hi) {
    uint64_t mid = lo + (hi - lo + 1) / 2;
    if (chain_layout(hw, &z, mid * p.unit, &lay, &scratch))
      lo = mid;
    else
      hi = mid - 1;
  }
  if (lo == 0) {
    chain_layout(hw, &z, p.unit, &lay, &scratch);
    return tqc__lram_too_small(L, first, scratch + p.unit * z.scratch);
  }
  cost_ctx_t ctx = {hw, c, &p, &z, units};
  uint64_t fewest = (units + lo - 1) / lo;
  uint64_t ntiles = tqc__best_tiles(L, fewest, units, tile_cost, &ctx);
  uint64_t E = (units + ntiles - 1) / ntiles;
  chain_layout(hw, &z, E * p.unit, &lay, &scratch);

  tqc_tiles_t tiles = {0};
  tq_status_t st = NULL;
  uint32_t ext_id[TQC_TILE_MAX_IN], bc_id[TQC_TILE_MAX_W], out_id[TQC_CHAIN_MAX];
  for (size_t k = 0; k < p.n_ext && !st; k++) st = tqc__value_buffer(L, p.ext[k], &ext_id[k]);
  for (size_t k = 0; k < p.n_bc && !st; k++) st = tqc__value_buffer(L, p.bc[k], &bc_id[k]);
  for (size_t m = 0; m < c->n && !st; m++)
    if (c->is_output[m]) st = tqc__value_buffer(L, c->ops[m]->results[0], &out_id[m]);
  if (st) goto done;

  for (uint64_t e0 = 0; e0 < units; e0 += E) {
    uint64_t e1 = e0 + E < units ? e0 + E : units, elems = E * p.unit;
    uint64_t first_el = e0 * p.unit, count = (e1 - e0) * p.unit;
    size_t k = tiles.count;
    tqc_tile_t *t = tqc__tiles_add(&tiles);
    if (!t) {
      st = TQC_OOM("tiling");
      goto done;
    }
    uint64_t in_slot = lay.in[k % 2], out_slot = lay.out[k % 2];
    for (size_t j = 0; e0 == 0 && j < p.n_bc; j++) {
      tqc_xfer_t *x = &t->win[t->n_win++];
      x->buffer = bc_id[j];
      x->size = tqc__esz(p.bc[j]->type);
      x->lram = lay.w[0] + z.w_off[j];
    }
    for (size_t j = 0; j < p.n_ext; j++) {
      size_t esz = tqc__esz(p.ext[j]->type);
      tqc_xfer_t *x = &t->in[t->n_in++];
      x->buffer = ext_id[j];
      x->offset = first_el * esz;
      x->size = count * esz;
      x->lram = in_slot + elems * z.in_off[j];
    }
    for (size_t m = 0; m < c->n; m++) {
      if (!c->is_output[m]) continue;
      tqc_xfer_t *x = &t->out[t->n_out++];
      x->buffer = out_id[m];
      x->offset = first_el * z.esz[m];
      x->size = count * z.esz[m];
      x->lram = out_slot + elems * z.off[m];
    }
    uint64_t split[TQS_HW_MAX_SLICES];
    tqs_split_over_slices(e1 - e0, hw->slices, split);
    uint64_t a = 0;
    for (uint32_t s = 0; s < hw->slices; s++) {
      if (split[s] == 0) continue;
      tqc_slice_work_t *w = &t->slice[s];
      for (size_t m = 0; m < c->n; m++) {
        if (m > 0) {
          w->next = tq_arena_alloc(L->arena, sizeof(*w->next));
          if (!w->next) {
            st = TQC_OOM("tiling");
            goto done;
          }
          memset(w->next, 0, sizeof(*w->next));
          w = w->next;
        }
        if ((st = member_work(L, c, &p, &z, m, &base[m], kernel[m], &lay, E, in_slot, out_slot,
                              scratch, a * p.unit, split[s] * p.unit, w)))
          goto done;
      }
      a += split[s];
    }
  }
  st = tqc__emit_nss(L, first, &tiles, c->ops, c->n);
done:
  tqc__tiles_deinit(&tiles);
  return st;
}
