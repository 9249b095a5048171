/* Elementwise kernels on the slices' vector path: add, sub, mul, rescale, clamp; and the output
 * stage (rescale, clamp) that conv2d, depthwise_conv2d and fully_connected fold in.
 *
 * Tiles are ranges of the flat element order (whole rows of the innermost dimension for a
 * per-channel rescale, so that every element's channel is its index in that dimension). An
 * operand of one element is loaded once, as the pipeline's "weights", and broadcast.
 */
#include <string.h>

#include "lower_internal.h"
#include "torq/sim/cost_model.h"

#define ELT_W (TQC_W8 | TQC_W16 | TQC_W32)

static int attr_bool(const tqc_op_t *op, const char *name) {
  const tqc_attr_t *a = tqc_op_attr(op, name);
  if (!a) return 0;
  if (a->kind == TQC_ATTR_BOOL) return a->boolean != 0;
  if (a->kind == TQC_ATTR_INTEGER) return a->integer.value != 0;
  return 0;
}

/* 1 SINGLE_ROUND, 2 DOUBLE_ROUND, 0 anything else (INEXACT_ROUND, missing). */
static int rounding(const tqc_op_t *op) {
  const tqc_attr_t *a = tqc_op_attr(op, "rounding_mode");
  tq_sv_t body = tqc_attr_dialect_body(a, "tosa.rounding_mode");
  if (!body.data && a && a->kind == TQC_ATTR_STRING) body = a->string;
  if (tq_sv_eq_cstr(body, "SINGLE_ROUND")) return 1;
  if (tq_sv_eq_cstr(body, "DOUBLE_ROUND")) return 2;
  return 0;
}

static size_t count_of(const tqc_type_t *t) {
  size_t n = 0;
  if (!t || t->kind != TQC_TYPE_TENSOR || !tqc_type_element_count(t, &n)) return 0;
  return n;
}

/* The constant multiplier/shift/zero points of a rescale; 0 when any is not constant or the
 * shapes do not match per_channel. */
static int rescale_params_ok(const tqc_op_t *op) {
  if (op->num_operands != 5 || op->num_results != 1) return 0;
  const tqc_attr_t *m = tqc_value_const_dense(op->operands[1]);
  const tqc_attr_t *s = tqc_value_const_dense(op->operands[2]);
  int64_t izp, ozp;
  if (!m || !s || tqc__const_int(op->operands[3], &izp) || tqc__const_int(op->operands[4], &ozp))
    return 0;
  const tqc_type_t *ot = op->results[0]->type;
  if (!ot || ot->kind != TQC_TYPE_TENSOR || !ot->tensor.ranked) return 0;
  size_t want = 1;
  if (attr_bool(op, "per_channel")) {
    if (ot->tensor.rank == 0) return 0;
    want = (size_t)ot->tensor.dims[ot->tensor.rank - 1];
  }
  if (m->dense.count != want || s->dense.count != want) return 0;
  for (size_t i = 0; i < want; i++) {
    int64_t sh = tqc_dense_get_int(s, i);
    if (sh < 2 || sh > 62) return 0;
  }
  return rounding(op) != 0;
}

int tqc__rescale_foldable(const tqc_op_t *op) {
  int64_t izp;
  if (!tqc_op_is(op, "tosa.rescale") || !rescale_params_ok(op)) return 0;
  if (tqc__const_int(op->operands[3], &izp) || izp != 0) return 0;
  if (attr_bool(op, "input_unsigned") || attr_bool(op, "output_unsigned")) return 0;
  return tqc__is_int_tensor(op->operands[0]->type, TQC_W16 | TQC_W32 | TQC_W48) &&
         tqc__is_int_tensor(op->results[0]->type, ELT_W);
}

static int clamp_bounds(const tqc_op_t *op, int64_t *lo, int64_t *hi) {
  const tqc_attr_t *a = tqc_op_attr(op, "min_val"), *b = tqc_op_attr(op, "max_val");
  if (!a || !b || a->kind != TQC_ATTR_INTEGER || b->kind != TQC_ATTR_INTEGER) return 0;
  *lo = a->integer.value;
  *hi = b->integer.value;
  return 1;
}

int tqc__clamp_foldable(const tqc_op_t *op) {
  int64_t lo, hi;
  return tqc_op_is(op, "tosa.clamp") && op->num_operands == 1 && op->num_results == 1 &&
         tqc__is_int_tensor(op->operands[0]->type, ELT_W) && clamp_bounds(op, &lo, &hi);
}

/* Elements [first, first + n) of a rescale's multiplier and shift, its output zero point and its
 * double rounding, into `p`. Returns 0 when memory runs out (the scale arrays then stay empty). */
static int rescale_params(tqc_lower_t *L, const tqc_op_t *rs, size_t first, size_t n,
                          Torq__KernelParams *p) {
  const tqc_attr_t *m = tqc_value_const_dense(rs->operands[1]);
  const tqc_attr_t *s = tqc_value_const_dense(rs->operands[2]);
  p->multiplier = tq_arena_calloc(L->arena, n, sizeof(int32_t));
  p->shift = tq_arena_calloc(L->arena, n, sizeof(int32_t));
  int ok = p->multiplier && p->shift;
  if (ok) {
    p->n_multiplier = p->n_shift = n;
    for (size_t i = 0; i < n; i++) {
      p->multiplier[i] = (int32_t)tqc_dense_get_int(m, first + i);
      p->shift[i] = (int32_t)tqc_dense_get_int(s, first + i);
    }
  }
  int64_t ozp = 0;
  (void)tqc__const_int(rs->operands[4], &ozp);
  p->output_zp = ozp;
  p->double_round = attr_bool(rs, "scale32") && rounding(rs) == 2;
  return ok;
}

tq_status_t tqc__output_stage(tqc_lower_t *L, const tqc_group_t *g, Torq__KernelParams *p,
                              size_t oc0, size_t ocn) {
  const tqc_type_t *out_t = tqc__elem(tqc__group_result(g)->type);
  p->output_type = tqc__element_type(out_t);
  if (g->rescale) {
    const tqc_op_t *rs = g->rescale;
    int per =
        tqc_value_const_dense(rs->operands[1])->dense.count > 1 || attr_bool(rs, "per_channel");
    if (!rescale_params(L, rs, per ? oc0 : 0, per ? ocn : 1, p)) return TQC_OOM("in the output stage");
  }
  tqc__int_range(out_t, &p->clamp_min, &p->clamp_max);
  if (g->clamp) clamp_bounds(g->clamp, &p->clamp_min, &p->clamp_max);
  return NULL;
}

/* ---- Support -------------------------------------------------------------------------------- */

int tqc__eltwise_supports(const tqc_op_t *op) {
  if (op->num_results != 1) return 0;
  const tqc_type_t *ot = op->results[0]->type;
  size_t n = count_of(ot);
  if (n == 0 || !tqc__is_int_tensor(ot, ELT_W)) return 0;
  int binary = tqc_op_is(op, "tosa.add") || tqc_op_is(op, "tosa.sub");
  int mul = tqc_op_is(op, "tosa.mul");
  if (binary || mul) {
    if (op->num_operands != (mul ? 3u : 2u)) return 0;
    const tqc_type_t *a = op->operands[0]->type, *b = op->operands[1]->type;
    if (!tqc__is_int_tensor(a, ELT_W) || !tqc_type_equal(tqc__elem(a), tqc__elem(b))) return 0;
    if (binary && !tqc_type_equal(tqc__elem(a), tqc__elem(ot))) return 0;
    size_t na = count_of(a), nb = count_of(b);
    if ((na != n && na != 1) || (nb != n && nb != 1)) return 0;
    int64_t shift;
    if (mul && (tqc__const_int(op->operands[2], &shift) || shift < 0 || shift > 63)) return 0;
    return 1;
  }
  if (tqc_op_is(op, "tosa.rescale")) {
    if (!rescale_params_ok(op) || !tqc__is_int_tensor(op->operands[0]->type, ELT_W)) return 0;
    return count_of(op->operands[0]->type) == n;
  }
  if (tqc_op_is(op, "tosa.clamp")) return tqc__clamp_foldable(op);
  return 0;
}

/* ---- Lowering ------------------------------------------------------------------------------- */

tq_status_t tqc__lower_eltwise(tqc_lower_t *L, const tqc_op_t *op) {
  const tqs_hw_t *hw = L->hw;
  tqf_kernel_t kernel = tqc_op_is(op, "tosa.add")       ? TQF_KERNEL_ADD
                        : tqc_op_is(op, "tosa.sub")     ? TQF_KERNEL_SUB
                        : tqc_op_is(op, "tosa.mul")     ? TQF_KERNEL_MUL
                        : tqc_op_is(op, "tosa.rescale") ? TQF_KERNEL_RESCALE
                                                        : TQF_KERNEL_CLAMP;
  int binary = tqc_op_is(op, "tosa.add") || tqc_op_is(op, "tosa.sub") || tqc_op_is(op, "tosa.mul");
  size_t nops = binary ? 2 : 1;
  const tqc_type_t *ot = op->results[0]->type;
  size_t total = count_of(ot), unit = 1;
  int per_channel = tqc_op_is(op, "tosa.rescale") && attr_bool(op, "per_channel");
  if (per_channel) unit = (size_t)ot->tensor.dims[ot->tensor.rank - 1];
  if (unit == 0) unit = 1;
  uint64_t units = total / unit;
  size_t o_esz = tqc__esz(ot);
  uint32_t bits = tqc__bits(ot);

  size_t esz[2] = {0, 0};
  int bcast[2] = {0, 0};
  uint64_t in_per = 0, w_total = 0, w_off[2] = {0, 0}, w_bytes[2] = {0, 0};
  for (size_t j = 0; j < nops; j++) {
    const tqc_type_t *t = op->operands[j]->type;
    esz[j] = tqc__esz(t);
    if (tqc__bits(t) > bits) bits = tqc__bits(t);
    bcast[j] = count_of(t) == 1 && total > 1;
    if (bcast[j]) {
      w_off[j] = w_total;
      w_bytes[j] = esz[j];
      w_total += esz[j];
    } else {
      in_per += unit * esz[j];
    }
  }
  uint64_t out_per = unit * o_esz;
  tqc_layout_t lay;
  /* The largest tile (in units) that fits, by bisection: fits() is monotone in the tile. */
  uint64_t lo = 0, hi = units;
  while (lo < hi) {
    uint64_t mid = lo + (hi - lo + 1) / 2;
    if (tqc__layout(hw, w_total, w_total ? 1 : 0, mid * in_per, mid * out_per, NULL))
      lo = mid;
    else
      hi = mid - 1;
  }
  if (lo == 0) {
    tqc__layout(hw, w_total, w_total ? 1 : 0, in_per, out_per, &lay);
    return tqc__lram_too_small(L, op, lay.total);
  }
  uint64_t ntiles = (units + lo - 1) / lo, E = (units + ntiles - 1) / ntiles;
  tqc__layout(hw, w_total, w_total ? 1 : 0, E * in_per, E * out_per, &lay);
  uint64_t in_off[2] = {0, 0}, at = 0;
  for (size_t j = 0; j < nops; j++) {
    if (bcast[j]) continue;
    in_off[j] = at;
    at += E * unit * esz[j];
  }

  tqc_tiles_t tiles = {0};
  tq_status_t st = NULL;
  uint32_t ids[2], out_id;
  for (size_t j = 0; j < nops; j++)
    if ((st = tqc__value_buffer(L, op->operands[j], &ids[j]))) goto done;
  if ((st = tqc__value_buffer(L, op->results[0], &out_id))) goto done;
  Torq__KernelParams base = TORQ__KERNEL_PARAMS__INIT;
  base.input_type = tqc__element_type(tqc__elem(op->operands[0]->type));
  base.output_type = tqc__element_type(tqc__elem(ot));
  tqc__int_range(tqc__elem(ot), &base.clamp_min, &base.clamp_max);
  int64_t extra[TQF_RESCALE_EXTRA_COUNT] = {0, 0};
  if (tqc_op_is(op, "tosa.rescale")) {
    if (!rescale_params(L, op, 0, tqc_value_const_dense(op->operands[1])->dense.count, &base)) {
      st = TQC_OOM("tiling");
      goto done;
    }
    (void)tqc__const_int(op->operands[3], &base.input_zp);
    int in_unsigned = attr_bool(op, "input_unsigned");
    int out_unsigned = attr_bool(op, "output_unsigned");
    extra[TQF_RESCALE_INPUT_UNSIGNED] = in_unsigned;
    extra[TQF_RESCALE_OUTPUT_UNSIGNED] = out_unsigned;
    /* Zero points of an unsigned side are unsigned too (written as signless constants). */
    uint32_t ibits = tqc__bits(op->operands[0]->type), obits = tqc__bits(ot);
    if (in_unsigned && ibits < 64) base.input_zp &= (int64_t)((UINT64_C(1) << ibits) - 1);
    if (out_unsigned && obits < 64) base.output_zp &= (int64_t)((UINT64_C(1) << obits) - 1);
    if (out_unsigned) {
      base.clamp_min = 0;
      base.clamp_max = (int64_t)((UINT64_C(1) << tqc__bits(ot)) - 1);
    }
    base.extra = tqc__i64s(L, TQF_RESCALE_EXTRA_COUNT, extra);
    base.n_extra = TQF_RESCALE_EXTRA_COUNT;
  } else if (tqc_op_is(op, "tosa.clamp")) {
    clamp_bounds(op, &base.clamp_min, &base.clamp_max);
  } else if (tqc_op_is(op, "tosa.mul")) {
    int64_t sh = 0;
    (void)tqc__const_int(op->operands[2], &sh);
    base.shift = tq_arena_calloc(L->arena, 1, sizeof(int32_t));
    if (!base.shift) {
      st = TQC_OOM("tiling");
      goto done;
    }
    base.shift[0] = (int32_t)sh;
    base.n_shift = 1;
  }

  for (uint64_t e0 = 0; e0 < units; e0 += E) {
    uint64_t e1 = e0 + E < units ? e0 + E : units;
    size_t k = tiles.count;
    tqc_tile_t *t = tqc__tiles_add(&tiles);
    if (!t) {
      st = TQC_OOM("tiling");
      goto done;
    }
    uint64_t in_lram = lay.in[k % 2], out_lram = lay.out[k % 2];
    for (size_t j = 0; j < nops; j++) {
      if (bcast[j]) {
        if (e0 == 0) {
          tqc_xfer_t *x = &t->win[t->n_win++];
          x->buffer = ids[j];
          x->size = esz[j];
          x->lram = lay.w[0] + w_off[j];
        }
        continue;
      }
      tqc_xfer_t *x = &t->in[t->n_in++];
      x->buffer = ids[j];
      x->offset = e0 * unit * esz[j];
      x->size = (e1 - e0) * unit * esz[j];
      x->lram = in_lram + in_off[j];
    }
    t->out.buffer = out_id;
    t->out.offset = e0 * out_per;
    t->out.size = (e1 - e0) * out_per;
    t->out.lram = out_lram;
    uint64_t split[TQS_HW_MAX_SLICES];
    tqs_split_over_slices(e1 - e0, hw->slices, split);
    uint64_t a = 0;
    for (uint32_t s = 0; s < hw->slices; s++) {
      uint64_t sn = split[s];
      if (sn == 0) continue;
      tqc_slice_work_t *w = &t->slice[s];
      w->regions = tq_arena_calloc(L->arena, nops + 1, sizeof(Torq__Region *));
      w->params = tqc__params_new(L);
      if (!w->regions || !w->params) {
        st = TQC_OOM("tiling");
        goto done;
      }
      for (size_t j = 0; j < nops; j++)
        w->regions[j] = bcast[j] ? tqc__lram_region(L, lay.w[0] + w_off[j], w_bytes[j])
                                 : tqc__lram_region(L, in_lram + in_off[j] + a * unit * esz[j],
                                                    sn * unit * esz[j]);
      w->regions[nops] = tqc__lram_region(L, out_lram + a * out_per, sn * out_per);
      w->n_regions = nops + 1;
      for (size_t r = 0; r < w->n_regions; r++)
        if (!w->regions[r]) {
          st = TQC_OOM("tiling");
          goto done;
        }
      Torq__KernelParams *p = w->params;
      const ProtobufCMessageDescriptor *keep = p->base.descriptor;
      *p = base;
      p->base.descriptor = keep;
      int64_t shape[2] = {(int64_t)(sn * unit), 0};
      size_t rank = 1;
      if (per_channel) {
        shape[0] = (int64_t)sn;
        shape[1] = (int64_t)unit;
        rank = 2;
      }
      p->input_shape = tqc__i64s(L, rank, shape);
      p->output_shape = tqc__i64s(L, rank, shape);
      if (!p->input_shape || !p->output_shape) {
        st = TQC_OOM("tiling");
        goto done;
      }
      p->n_input_shape = p->n_output_shape = rank;
      w->macs = sn * unit;
      w->cycles = tqs_cost_slice_elementwise(hw, w->macs, bits);
      a += sn;
    }
  }
  {
    const tqc_op_t *ops[1] = {op};
    st = tqc__emit_nss(L, op, kernel, &tiles, ops, 1);
  }
done:
  tqc__tiles_deinit(&tiles);
  return st;
}
