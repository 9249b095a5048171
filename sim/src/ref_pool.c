/* tosa.max_pool2d and tosa.avg_pool2d (NHWC). Padding never contributes: max_pool2d takes the
 * maximum of the valid elements (as padding with the type's minimum would), avg_pool2d divides
 * by the number of valid elements. */
#include "ref_internal.h"

typedef struct tqs__pool_s {
  int64_t n, ih, iw, c, oh, ow;
  int64_t kernel[2], stride[2], pad[4];
} tqs__pool_t;

static tq_status_t tqs__pool_setup(const tqs__op_t *op, unsigned types, tqs__pool_t *p) {
  const tqs_tensor_t *x = op->in[0], *y = op->out[0];
  TQ_TRY(tqs__check_type(op, x, "input", types));
  TQ_TRY(tqs__check_same_type(op, x, "input", y, "the result"));
  TQ_TRY(tqs__check_rank(op, x, "input", 4));
  TQ_TRY(tqs__attr_ints(op, "kernel", 2, p->kernel));
  TQ_TRY(tqs__attr_ints(op, "stride", 2, p->stride));
  TQ_TRY(tqs__attr_ints(op, "pad", 4, p->pad));
  for (int i = 0; i < 2; i++) {
    if (p->kernel[i] < 1 || p->stride[i] < 1) {
      return TQS_FAIL(op, "kernel and stride must be at least 1");
    }
  }
  for (int i = 0; i < 4; i++) {
    if (p->pad[i] < 0 || p->pad[i] >= p->kernel[i / 2]) {
      return TQS_FAIL(op, "pad[%d] = %lld must be in 0..kernel-1 (%lld)", i, (long long)p->pad[i],
                      (long long)(p->kernel[i / 2] - 1));
    }
  }
  p->n = x->dims[0];
  p->ih = x->dims[1];
  p->iw = x->dims[2];
  p->c = x->dims[3];
  int64_t span_y = p->ih + p->pad[0] + p->pad[1] - p->kernel[0];
  int64_t span_x = p->iw + p->pad[2] + p->pad[3] - p->kernel[1];
  if (span_y < 0 || span_x < 0) return TQS_FAIL(op, "the kernel is larger than the padded input");
  p->oh = span_y / p->stride[0] + 1;
  p->ow = span_x / p->stride[1] + 1;
  int64_t want[4] = {p->n, p->oh, p->ow, p->c};
  return tqs__check_dims(op, y, "the result", 4, want);
}

/* The valid window rows [*y0, *y1) and columns [*x0, *x1) of output (oy, ox). */
static void tqs__pool_window(const tqs__pool_t *p, int64_t oy, int64_t ox, int64_t *y0, int64_t *y1,
                             int64_t *x0, int64_t *x1) {
  int64_t iy = oy * p->stride[0] - p->pad[0], ix = ox * p->stride[1] - p->pad[2];
  *y0 = iy < 0 ? 0 : iy;
  *y1 = iy + p->kernel[0] > p->ih ? p->ih : iy + p->kernel[0];
  *x0 = ix < 0 ? 0 : ix;
  *x1 = ix + p->kernel[1] > p->iw ? p->iw : ix + p->kernel[1];
}

tq_status_t tqs__k_max_pool2d(const tqs__op_t *op, int variant) {
  (void)variant;
  TQ_TRY(tqs__check_arity(op, 1, 1, 1));
  tqs__pool_t p;
  TQ_TRY(tqs__pool_setup(op, TQS__INTS | TQS__FLOATS, &p));
  int ignore_nan;
  TQ_TRY(tqs__attr_nan_mode(op, &ignore_nan));
  const tqs_tensor_t *x = op->in[0];
  tqs_tensor_t *y = op->out[0];
  int is_float = tqs_type_is_float(x->type);
  int64_t lowest = tqs__type_min(x->type);
  size_t o = 0;
  for (int64_t n = 0; n < p.n; n++) {
    for (int64_t oy = 0; oy < p.oh; oy++) {
      for (int64_t ox = 0; ox < p.ow; ox++) {
        int64_t y0, y1, x0, x1;
        tqs__pool_window(&p, oy, ox, &y0, &y1, &x0, &x1);
        for (int64_t c = 0; c < p.c; c++, o++) {
          int64_t imax = lowest;
          float fmax = -INFINITY;
          for (int64_t yy = y0; yy < y1; yy++) {
            for (int64_t xx = x0; xx < x1; xx++) {
              size_t i = (size_t)(((n * p.ih + yy) * p.iw + xx) * p.c + c);
              if (is_float) {
                fmax = tqs__fmax(fmax, tqs__ld_f(x, i), ignore_nan);
              } else {
                int64_t v = tqs__ld_i(x, i);
                if (v > imax) imax = v;
              }
            }
          }
          if (is_float) {
            tqs__st_f(y, o, fmax);
          } else {
            tqs__st_i(y, o, imax);
          }
        }
      }
    }
  }
  return NULL;
}

tq_status_t tqs__k_avg_pool2d(const tqs__op_t *op, int variant) {
  (void)variant;
  TQ_TRY(tqs__check_arity(op, 1, 3, 1));
  if (op->n_in == 2) return TQS_FAIL(op, "expects both zero points or neither");
  tqs__pool_t p;
  TQ_TRY(tqs__pool_setup(op, TQS__T(TQS_I8) | TQS__T(TQS_I16) | TQS__FLOATS, &p));
  const tqs_tensor_t *x = op->in[0];
  tqs_tensor_t *y = op->out[0];
  int is_float = tqs_type_is_float(x->type);
  tqs_type_t acc_type = TQS_I32;
  int64_t in_zp, out_zp;
  TQ_TRY(tqs__scalar_arg(op, 1, 0, &in_zp));
  TQ_TRY(tqs__scalar_arg(op, 2, 0, &out_zp));
  if (is_float) {
    TQ_TRY(tqs__attr_float_acc(op, &acc_type));
  } else {
    const char *acc;
    TQ_TRY(tqs__attr_string_opt(op, "acc_type", "i32", &acc));
    if (!tqs_type_parse(acc, &acc_type) || acc_type != TQS_I32) {
      return TQS_FAIL(op, "attribute 'acc_type' is \"%s\"; integer pooling accumulates in i32",
                      acc);
    }
  }
  if (p.kernel[0] * p.kernel[1] > INT32_MAX) return TQS_FAIL(op, "the kernel is too large");
  int64_t lo = tqs__type_min(x->type), hi = tqs__type_max(x->type);
  size_t o = 0;
  for (int64_t n = 0; n < p.n; n++) {
    for (int64_t oy = 0; oy < p.oh; oy++) {
      for (int64_t ox = 0; ox < p.ow; ox++) {
        int64_t y0, y1, x0, x1;
        tqs__pool_window(&p, oy, ox, &y0, &y1, &x0, &x1);
        uint32_t count = (uint32_t)((y1 - y0) * (x1 - x0));
        int64_t multiplier;
        int shift;
        tqs__reciprocal_scale(count, &multiplier, &shift);
        for (int64_t c = 0; c < p.c; c++, o++) {
          int64_t iacc = 0;
          float facc = 0.0f;
          for (int64_t yy = y0; yy < y1; yy++) {
            for (int64_t xx = x0; xx < x1; xx++) {
              size_t i = (size_t)(((n * p.ih + yy) * p.iw + xx) * p.c + c);
              if (is_float) {
                facc = tqs__round_float(acc_type, facc + tqs__ld_f(x, i));
              } else {
                iacc += tqs__ld_i(x, i) - in_zp;
              }
            }
          }
          if (is_float) {
            tqs__st_f(y, o, tqs__round_float(acc_type, facc / (float)count));
          } else {
            int64_t r = tqs__apply_scale_32(iacc, multiplier, shift, 0) + out_zp;
            tqs__st_i(y, o, tqs__clip(r, lo, hi));
          }
        }
      }
    }
  }
  return NULL;
}
