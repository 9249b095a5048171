/* Elementwise kernels on the slices' vector path: add, sub, mul, rescale, clamp (which of them
 * the NPU runs, and the kernel parameters of each; lower_chain.c tiles and fuses them); and the
 * output stage (rescale, clamp) that conv2d, depthwise_conv2d and fully_connected fold in.
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

/* ---- Kernel parameters ---------------------------------------------------------------------- */

int tqc__eltwise_channels(const tqc_op_t *op) {
  if (!tqc_op_is(op, "tosa.rescale") || !attr_bool(op, "per_channel")) return 0;
  const tqc_type_t *ot = op->results[0]->type;
  int64_t c = ot->tensor.rank ? ot->tensor.dims[ot->tensor.rank - 1] : 0;
  return c > 0 && c <= INT32_MAX ? (int)c : 0;
}

tq_status_t tqc__eltwise_params(tqc_lower_t *L, const tqc_op_t *op, Torq__KernelParams *base,
                                tqf_kernel_t *out_kernel, uint32_t *out_bits) {
  *out_kernel = tqc_op_is(op, "tosa.add")       ? TQF_KERNEL_ADD
                : tqc_op_is(op, "tosa.sub")     ? TQF_KERNEL_SUB
                : tqc_op_is(op, "tosa.mul")     ? TQF_KERNEL_MUL
                : tqc_op_is(op, "tosa.rescale") ? TQF_KERNEL_RESCALE
                                                : TQF_KERNEL_CLAMP;
  int binary = tqc_op_is(op, "tosa.add") || tqc_op_is(op, "tosa.sub") || tqc_op_is(op, "tosa.mul");
  const tqc_type_t *ot = op->results[0]->type;
  uint32_t bits = tqc__bits(ot);
  for (size_t j = 0; j < (binary ? 2u : 1u); j++)
    if (tqc__bits(op->operands[j]->type) > bits) bits = tqc__bits(op->operands[j]->type);
  *out_bits = bits;
  Torq__KernelParams init = TORQ__KERNEL_PARAMS__INIT;
  *base = init;
  base->input_type = tqc__element_type(tqc__elem(op->operands[0]->type));
  base->output_type = tqc__element_type(tqc__elem(ot));
  tqc__int_range(tqc__elem(ot), &base->clamp_min, &base->clamp_max);
  if (tqc_op_is(op, "tosa.rescale")) {
    if (!rescale_params(L, op, 0, tqc_value_const_dense(op->operands[1])->dense.count, base))
      return TQC_OOM("tiling");
    (void)tqc__const_int(op->operands[3], &base->input_zp);
    int64_t extra[TQF_RESCALE_EXTRA_COUNT] = {0, 0};
    int in_unsigned = attr_bool(op, "input_unsigned");
    int out_unsigned = attr_bool(op, "output_unsigned");
    extra[TQF_RESCALE_INPUT_UNSIGNED] = in_unsigned;
    extra[TQF_RESCALE_OUTPUT_UNSIGNED] = out_unsigned;
    /* Zero points of an unsigned side are unsigned too (written as signless constants). */
    uint32_t ibits = tqc__bits(op->operands[0]->type), obits = tqc__bits(ot);
    if (in_unsigned && ibits < 64) base->input_zp &= (int64_t)((UINT64_C(1) << ibits) - 1);
    if (out_unsigned && obits < 64) base->output_zp &= (int64_t)((UINT64_C(1) << obits) - 1);
    if (out_unsigned) {
      base->clamp_min = 0;
      base->clamp_max = (int64_t)((UINT64_C(1) << tqc__bits(ot)) - 1);
    }
    base->extra = tqc__i64s(L, TQF_RESCALE_EXTRA_COUNT, extra);
    if (!base->extra) return TQC_OOM("tiling");
    base->n_extra = TQF_RESCALE_EXTRA_COUNT;
  } else if (tqc_op_is(op, "tosa.clamp")) {
    clamp_bounds(op, &base->clamp_min, &base->clamp_max);
  } else if (tqc_op_is(op, "tosa.mul")) {
    int64_t sh = 0;
    (void)tqc__const_int(op->operands[2], &sh);
    base->shift = tq_arena_calloc(L->arena, 1, sizeof(int32_t));
    if (!base->shift) return TQC_OOM("tiling");
    base->shift[0] = (int32_t)sh;
    base->n_shift = 1;
  }
  return NULL;
}
