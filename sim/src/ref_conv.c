/* tosa.conv2d and tosa.depthwise_conv2d (NHWC input; OHWI and HWCM weights), and the widening
 * helpers the multiply-accumulate kernels share. */
#include <string.h>

#include "ref_widen.h"
#include "torq/base/alloc.h"
#include "torq/base/checked.h"

tq_status_t tqs__scratch(const tqs__op_t *op, size_t count, size_t elem_size, void **out) {
  size_t bytes;
  *out = NULL;
  if (!tq_size_mul(count ? count : 1, elem_size, &bytes)) {
    return tq_status_make(TQ_LIMIT, __FILE__, __LINE__, "%s: scratch size overflows", op->name);
  }
  *out = tq_malloc(bytes);
  if (!*out) {
    return tq_status_make(TQ_OUT_OF_MEMORY, __FILE__, __LINE__,
                          "%s: out of memory for %zu bytes of scratch", op->name, bytes);
  }
  return NULL;
}

/* The source index of element i of the widened copy. */
static size_t tqs__widen_src(const tqs_tensor_t *t, int transpose_last2, size_t i) {
  if (!transpose_last2 || t->rank < 2) return i;
  size_t rows = (size_t)t->dims[t->rank - 2], cols = (size_t)t->dims[t->rank - 1];
  size_t plane = rows * cols, base = i / plane * plane, r = i % plane;
  /* The copy is cols x rows: element (c, r2) comes from (r2, c). */
  size_t c = r / rows, r2 = r % rows;
  return base + r2 * cols + c;
}

/* A heap array of `t`'s values minus `zp` as int32, or (below) float. */
static tq_status_t tqs__widen_i32(const tqs__op_t *op, const tqs_tensor_t *t, int64_t zp,
                                  int transpose_last2, int32_t **out) {
  size_t n = tqs__count(t);
  TQ_TRY(tqs__scratch(op, n, sizeof **out, (void **)out));
  for (size_t i = 0; i < n; i++) {
    (*out)[i] = (int32_t)(tqs__ld_i(t, tqs__widen_src(t, transpose_last2, i)) - zp);
  }
  return NULL;
}

static tq_status_t tqs__widen_f32(const tqs__op_t *op, const tqs_tensor_t *t, float zp,
                                  int transpose_last2, float **out) {
  size_t n = tqs__count(t);
  TQ_TRY(tqs__scratch(op, n, sizeof **out, (void **)out));
  for (size_t i = 0; i < n; i++) {
    (*out)[i] = tqs__ld_f(t, tqs__widen_src(t, transpose_last2, i)) - zp;
  }
  return NULL;
}

tq_status_t tqs__widen_pair(const tqs__op_t *op, int is_float, const tqs_tensor_t *a, int64_t a_zp,
                            const tqs_tensor_t *b, int64_t b_zp, int transpose_b, void **out_a,
                            void **out_b) {
  *out_a = *out_b = NULL;
  tq_status_t status;
  if (is_float) {
    status = tqs__widen_f32(op, a, (float)a_zp, 0, (float **)out_a);
    if (!status) status = tqs__widen_f32(op, b, (float)b_zp, transpose_b, (float **)out_b);
  } else {
    status = tqs__widen_i32(op, a, a_zp, 0, (int32_t **)out_a);
    if (!status) status = tqs__widen_i32(op, b, b_zp, transpose_b, (int32_t **)out_b);
  }
  if (status) {
    tq_free(*out_a);
    tq_free(*out_b);
    *out_a = *out_b = NULL;
  }
  return status;
}

typedef struct tqs__conv_s {
  int64_t n, ih, iw, ic; /* input */
  int64_t kh, kw;        /* kernel */
  int64_t oh, ow, oc;    /* output */
  int64_t pad[4];        /* top, bottom, left, right */
  int64_t stride[2], dilation[2];
  int is_float;
  tqs_type_t acc_type; /* float accumulation */
  int64_t input_zp, weight_zp;
} tqs__conv_t;

/* Checks the operands shared by both convolutions (input, bias, zero points, attributes, result
 * shape) once the caller has filled kh, kw and oc from the weights. */
static tq_status_t tqs__conv_setup(const tqs__op_t *op, tqs__conv_t *cv) {
  const tqs_tensor_t *x = op->in[0], *w = op->in[1], *bias = op->in[2];
  const tqs_tensor_t *y = op->out[0];
  TQ_TRY(tqs__check_type(op, x, "input", TQS__T(TQS_I8) | TQS__T(TQS_I16) | TQS__FLOATS));
  cv->is_float = tqs_type_is_float(x->type);
  if (cv->is_float) {
    TQ_TRY(tqs__check_type(op, w, "the weights", TQS__FLOATS));
    TQ_TRY(tqs__check_type(op, bias, "the bias", TQS__FLOATS));
    TQ_TRY(tqs__check_type(op, y, "the result", TQS__FLOATS));
    TQ_TRY(tqs__attr_float_acc(op, &cv->acc_type));
  } else {
    TQ_TRY(tqs__check_type(op, w, "the weights", TQS__T(TQS_I8) | TQS__T(TQS_I16)));
    TQ_TRY(tqs__check_type(op, bias, "the bias", TQS__T(TQS_I32) | TQS__T(TQS_I64)));
    TQ_TRY(tqs__check_type(op, y, "the result", TQS__T(TQS_I32) | TQS__T(TQS_I64)));
    cv->acc_type = y->type;
  }
  TQ_TRY(tqs__check_rank(op, x, "input", 4));
  cv->n = x->dims[0];
  cv->ih = x->dims[1];
  cv->iw = x->dims[2];
  cv->ic = x->dims[3];
  TQ_TRY(tqs__attr_ints(op, "pad", 4, cv->pad));
  TQ_TRY(tqs__attr_ints(op, "stride", 2, cv->stride));
  TQ_TRY(tqs__attr_ints(op, "dilation", 2, cv->dilation));
  for (int i = 0; i < 4; i++) {
    if (cv->pad[i] < 0) return TQS_FAIL(op, "pad[%d] is negative (%lld)", i, (long long)cv->pad[i]);
  }
  for (int i = 0; i < 2; i++) {
    if (cv->stride[i] < 1 || cv->dilation[i] < 1) {
      return TQS_FAIL(op, "stride and dilation must be at least 1");
    }
  }
  TQ_TRY(tqs__scalar_arg(op, 3, 0, &cv->input_zp));
  TQ_TRY(tqs__scalar_arg(op, 4, 0, &cv->weight_zp));
  int64_t span_y = cv->ih - 1 + cv->pad[0] + cv->pad[1] - (cv->kh - 1) * cv->dilation[0];
  int64_t span_x = cv->iw - 1 + cv->pad[2] + cv->pad[3] - (cv->kw - 1) * cv->dilation[1];
  if (span_y < 0 || span_x < 0) {
    return TQS_FAIL(op, "the dilated kernel %lldx%lld is larger than the padded input",
                    (long long)cv->kh, (long long)cv->kw);
  }
  cv->oh = span_y / cv->stride[0] + 1;
  cv->ow = span_x / cv->stride[1] + 1;
  int64_t want[4] = {cv->n, cv->oh, cv->ow, cv->oc};
  TQ_TRY(tqs__check_dims(op, y, "the result", 4, want));
  size_t bc = tqs__count(bias);
  char d[TQS__DESC_LEN];
  if (bias->rank != 1 || (bc != 1 && bc != (size_t)cv->oc)) {
    return TQS_FAIL(op, "the bias is %s; expected %lld values or 1", tqs__desc(bias, d),
                    (long long)cv->oc);
  }
  return NULL;
}

tq_status_t tqs__k_conv2d(const tqs__op_t *op, int variant) {
  (void)variant;
  TQ_TRY(tqs__check_arity(op, 3, 5, 1));
  const tqs_tensor_t *x = op->in[0], *w = op->in[1], *bias = op->in[2];
  tqs_tensor_t *y = op->out[0];
  tqs__conv_t cv;
  memset(&cv, 0, sizeof cv);
  TQ_TRY(tqs__check_rank(op, w, "the weights", 4));
  cv.oc = w->dims[0];
  cv.kh = w->dims[1];
  cv.kw = w->dims[2];
  TQ_TRY(tqs__conv_setup(op, &cv));
  if (w->dims[3] != cv.ic) {
    return TQS_FAIL(op, "the weights have %lld input channels but the input has %lld",
                    (long long)w->dims[3], (long long)cv.ic);
  }
  int per_oc_bias = tqs__count(bias) != 1;
  void *xs, *ws;
  TQ_TRY(tqs__widen_pair(op, cv.is_float, x, cv.input_zp, w, cv.weight_zp, 0, &xs, &ws));
  const int64_t IH = cv.ih, IW = cv.iw, IC = cv.ic, KH = cv.kh, KW = cv.kw;
  size_t o = 0;
  for (int64_t n = 0; n < cv.n; n++) {
    for (int64_t oy = 0; oy < cv.oh; oy++) {
      for (int64_t ox = 0; ox < cv.ow; ox++) {
        int64_t iy = oy * cv.stride[0] - cv.pad[0], ix = ox * cv.stride[1] - cv.pad[2];
        for (int64_t oc = 0; oc < cv.oc; oc++, o++) {
          size_t bi = per_oc_bias ? (size_t)oc : 0;
          int64_t iacc = 0;
          float facc = 0.0f;
          for (int64_t ky = 0; ky < KH; ky++) {
            int64_t yy = iy + ky * cv.dilation[0];
            if (yy < 0 || yy >= IH) continue;
            for (int64_t kx = 0; kx < KW; kx++) {
              int64_t xx = ix + kx * cv.dilation[1];
              if (xx < 0 || xx >= IW) continue;
              size_t ioff = (size_t)(((n * IH + yy) * IW + xx) * IC);
              size_t woff = (size_t)(((oc * KH + ky) * KW + kx) * IC);
              if (cv.is_float) {
                const float *ip = (const float *)xs + ioff, *wp = (const float *)ws + woff;
                for (int64_t c = 0; c < IC; c++) facc = tqs__mac(cv.acc_type, facc, ip[c], wp[c]);
              } else {
                const int32_t *ip = (const int32_t *)xs + ioff, *wp = (const int32_t *)ws + woff;
                int64_t sum = 0;
                for (int64_t c = 0; c < IC; c++) sum += (int64_t)ip[c] * wp[c];
                iacc += sum;
              }
            }
          }
          if (cv.is_float) {
            facc = tqs__round_float(cv.acc_type, facc + tqs__ld_f(bias, bi));
            tqs__st_f(y, o, facc);
          } else {
            tqs__st_i(y, o, tqs__wrap_add(iacc, tqs__ld_i(bias, bi)));
          }
        }
      }
    }
  }
  tq_free(xs);
  tq_free(ws);
  return NULL;
}

tq_status_t tqs__k_depthwise_conv2d(const tqs__op_t *op, int variant) {
  (void)variant;
  TQ_TRY(tqs__check_arity(op, 3, 5, 1));
  const tqs_tensor_t *x = op->in[0], *w = op->in[1], *bias = op->in[2];
  tqs_tensor_t *y = op->out[0];
  tqs__conv_t cv;
  memset(&cv, 0, sizeof cv);
  TQ_TRY(tqs__check_rank(op, w, "the weights", 4));
  cv.kh = w->dims[0];
  cv.kw = w->dims[1];
  const int64_t M = w->dims[3];
  cv.oc = w->dims[2] * M;
  TQ_TRY(tqs__conv_setup(op, &cv));
  if (w->dims[2] != cv.ic) {
    return TQS_FAIL(op, "the weights have %lld channels but the input has %lld",
                    (long long)w->dims[2], (long long)cv.ic);
  }
  int per_oc_bias = tqs__count(bias) != 1;
  const int64_t IH = cv.ih, IW = cv.iw, C = cv.ic, KW = cv.kw, OC = cv.oc;
  void *xs, *ws, *acc;
  TQ_TRY(tqs__widen_pair(op, cv.is_float, x, cv.input_zp, w, cv.weight_zp, 0, &xs, &ws));
  tq_status_t status =
      tqs__scratch(op, (size_t)OC, cv.is_float ? sizeof(float) : sizeof(int64_t), &acc);
  if (status) {
    tq_free(xs);
    tq_free(ws);
    return status;
  }
  float *facc = acc;
  int64_t *iacc = acc;
  size_t o = 0;
  for (int64_t n = 0; n < cv.n; n++) {
    for (int64_t oy = 0; oy < cv.oh; oy++) {
      for (int64_t ox = 0; ox < cv.ow; ox++) {
        int64_t iy = oy * cv.stride[0] - cv.pad[0], ix = ox * cv.stride[1] - cv.pad[2];
        if (cv.is_float) {
          for (int64_t k = 0; k < OC; k++) facc[k] = 0.0f;
        } else {
          for (int64_t k = 0; k < OC; k++) iacc[k] = 0;
        }
        for (int64_t ky = 0; ky < cv.kh; ky++) {
          int64_t yy = iy + ky * cv.dilation[0];
          if (yy < 0 || yy >= IH) continue;
          for (int64_t kx = 0; kx < KW; kx++) {
            int64_t xx = ix + kx * cv.dilation[1];
            if (xx < 0 || xx >= IW) continue;
            size_t ioff = (size_t)(((n * IH + yy) * IW + xx) * C);
            size_t woff = (size_t)((ky * KW + kx) * OC);
            if (cv.is_float) {
              const float *ip = (const float *)xs + ioff, *wp = (const float *)ws + woff;
              for (int64_t c = 0; c < C; c++) {
                for (int64_t m = 0; m < M; m++) {
                  facc[c * M + m] = tqs__mac(cv.acc_type, facc[c * M + m], ip[c], wp[c * M + m]);
                }
              }
            } else {
              const int32_t *ip = (const int32_t *)xs + ioff, *wp = (const int32_t *)ws + woff;
              for (int64_t c = 0; c < C; c++) {
                for (int64_t m = 0; m < M; m++) iacc[c * M + m] += (int64_t)ip[c] * wp[c * M + m];
              }
            }
          }
        }
        for (int64_t k = 0; k < OC; k++, o++) {
          size_t bi = per_oc_bias ? (size_t)k : 0;
          if (cv.is_float) {
            tqs__st_f(y, o, tqs__round_float(cv.acc_type, facc[k] + tqs__ld_f(bias, bi)));
          } else {
            tqs__st_i(y, o, tqs__wrap_add(iacc[k], tqs__ld_i(bias, bi)));
          }
        }
      }
    }
  }
  tq_free(xs);
  tq_free(ws);
  tq_free(acc);
  return NULL;
}
