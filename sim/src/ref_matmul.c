/* tosa.matmul and (pre-1.0) tosa.fully_connected.
 *
 * Integer results accumulate exactly in 64 bits and keep the low bits of the result type, which
 * equals accumulating with two's-complement wrap in that type (the non-TOSA i8xi8->i16,
 * i16xi16->i16 and i16xi16->i32 included). Float results accumulate in the result type: f32 in
 * float; bf16 and f16 rounding every product and partial sum, as MLIR's lowering does. */
#include "ref_widen.h"
#include "torq/base/alloc.h"

tq_status_t tqs__k_matmul(const tqs__op_t *op, int variant) {
  (void)variant;
  TQ_TRY(tqs__check_arity(op, 2, 4, 1));
  if (op->n_in == 3) return TQS_FAIL(op, "expects both zero points or neither");
  const tqs_tensor_t *a = op->in[0], *b = op->in[1];
  tqs_tensor_t *y = op->out[0];
  TQ_TRY(tqs__check_type(op, a, "input A", TQS__T(TQS_I8) | TQS__T(TQS_I16) | TQS__FLOATS));
  TQ_TRY(tqs__check_same_type(op, a, "input A", b, "input B"));
  int is_float = tqs_type_is_float(a->type);
  TQ_TRY(tqs__check_type(
      op, y, "the result",
      is_float ? TQS__FLOATS : TQS__T(TQS_I16) | TQS__T(TQS_I32) | TQS__T(TQS_I64)));
  TQ_TRY(tqs__check_rank(op, a, "input A", 3));
  TQ_TRY(tqs__check_rank(op, b, "input B", 3));
  const int64_t N = a->dims[0], H = a->dims[1], C = a->dims[2], W = b->dims[2];
  if (b->dims[0] != N || b->dims[1] != C) {
    char da[TQS__DESC_LEN], db[TQS__DESC_LEN];
    return TQS_FAIL(op, "input A is %s and input B is %s; expected B to be %lldx%lldxW",
                    tqs__desc(a, da), tqs__desc(b, db), (long long)N, (long long)C);
  }
  int64_t want[3] = {N, H, W};
  TQ_TRY(tqs__check_dims(op, y, "the result", 3, want));
  int64_t a_zp, b_zp;
  TQ_TRY(tqs__scalar_arg(op, 2, 0, &a_zp));
  TQ_TRY(tqs__scalar_arg(op, 3, 0, &b_zp));
  void *as, *bs;
  TQ_TRY(tqs__widen_pair(op, is_float, a, a_zp, b, b_zp, 1, &as, &bs));
  size_t o = 0;
  for (int64_t n = 0; n < N; n++) {
    for (int64_t h = 0; h < H; h++) {
      size_t aoff = (size_t)((n * H + h) * C);
      for (int64_t w = 0; w < W; w++, o++) {
        size_t boff = (size_t)((n * W + w) * C);
        if (is_float) {
          const float *ap = (const float *)as + aoff, *bp = (const float *)bs + boff;
          float acc = 0.0f;
          for (int64_t c = 0; c < C; c++) acc = tqs__mac(y->type, acc, ap[c], bp[c]);
          tqs__st_f(y, o, acc);
        } else {
          const int32_t *ap = (const int32_t *)as + aoff, *bp = (const int32_t *)bs + boff;
          int64_t acc = 0;
          for (int64_t c = 0; c < C; c++) acc += (int64_t)ap[c] * bp[c];
          tqs__st_i(y, o, acc);
        }
      }
    }
  }
  tq_free(as);
  tq_free(bs);
  return NULL;
}

/* Zero point `index`, or attribute `key` (the pre-1.0 form), else 0. */
static tq_status_t tqs__fc_zp(const tqs__op_t *op, size_t index, const char *key, int64_t *out) {
  if (index < op->n_in) return tqs__scalar_arg(op, index, 0, out);
  return tqs__attr_int_opt(op, key, 0, out);
}

tq_status_t tqs__k_fully_connected(const tqs__op_t *op, int variant) {
  (void)variant;
  TQ_TRY(tqs__check_arity(op, 3, 5, 1));
  const tqs_tensor_t *x = op->in[0], *w = op->in[1], *bias = op->in[2];
  tqs_tensor_t *y = op->out[0];
  TQ_TRY(tqs__check_type(op, x, "input", TQS__T(TQS_I8) | TQS__T(TQS_I16) | TQS__FLOATS));
  int is_float = tqs_type_is_float(x->type);
  TQ_TRY(tqs__check_type(op, w, "the weights",
                         is_float ? TQS__FLOATS : TQS__T(TQS_I8) | TQS__T(TQS_I16)));
  TQ_TRY(tqs__check_type(op, bias, "the bias",
                         is_float ? TQS__FLOATS : TQS__T(TQS_I32) | TQS__T(TQS_I64)));
  TQ_TRY(tqs__check_type(op, y, "the result",
                         is_float ? TQS__FLOATS : TQS__T(TQS_I32) | TQS__T(TQS_I64)));
  TQ_TRY(tqs__check_rank(op, x, "input", 2));
  TQ_TRY(tqs__check_rank(op, w, "the weights", 2));
  const int64_t N = x->dims[0], IC = x->dims[1], OC = w->dims[0];
  if (w->dims[1] != IC) {
    return TQS_FAIL(op, "the weights have %lld input channels but the input has %lld",
                    (long long)w->dims[1], (long long)IC);
  }
  size_t bc = tqs__count(bias);
  if (bias->rank != 1 || (bc != 1 && bc != (size_t)OC)) {
    char d[TQS__DESC_LEN];
    return TQS_FAIL(op, "the bias is %s; expected %lld values or 1", tqs__desc(bias, d),
                    (long long)OC);
  }
  int64_t want[2] = {N, OC};
  TQ_TRY(tqs__check_dims(op, y, "the result", 2, want));
  int64_t x_zp, w_zp;
  TQ_TRY(tqs__fc_zp(op, 3, "input_zp", &x_zp));
  TQ_TRY(tqs__fc_zp(op, 4, "weight_zp", &w_zp));
  void *xs, *ws;
  TQ_TRY(tqs__widen_pair(op, is_float, x, x_zp, w, w_zp, 0, &xs, &ws));
  size_t o = 0;
  for (int64_t n = 0; n < N; n++) {
    for (int64_t oc = 0; oc < OC; oc++, o++) {
      size_t bi = bc == 1 ? 0 : (size_t)oc;
      if (is_float) {
        const float *xp = (const float *)xs + n * IC, *wp = (const float *)ws + oc * IC;
        float acc = 0.0f;
        for (int64_t c = 0; c < IC; c++) acc += xp[c] * wp[c];
        tqs__st_f(y, o, acc + tqs__ld_f(bias, bi));
      } else {
        const int32_t *xp = (const int32_t *)xs + n * IC, *wp = (const int32_t *)ws + oc * IC;
        int64_t acc = 0;
        for (int64_t c = 0; c < IC; c++) acc += (int64_t)xp[c] * wp[c];
        tqs__st_i(y, o, tqs__wrap_add(acc, tqs__ld_i(bias, bi)));
      }
    }
  }
  tq_free(xs);
  tq_free(ws);
  return NULL;
}
