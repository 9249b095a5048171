/* tosa.resize (NHWC) with TOSA's integer geometry: scale = [y_n, y_d, x_n, x_d], offset =
 * [y, x], border = [y, x]. Output pixel oy samples input row (oy * y_d + offset_y) / y_n.
 * NEAREST_NEIGHBOR rounds half up; BILINEAR weights the four neighbours, in units of y_n * x_n
 * for integers (an i8 input gives i32 results scaled by y_n * x_n) and in fractions for floats.
 * Source indices are clamped to the image. */
#include <string.h>

#include "ref_internal.h"

static int64_t tqs__floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/* The two source indices and the fraction (in units of scale_n) for output coordinate o. */
static void tqs__resize_coord(int64_t o, int64_t scale_n, int64_t scale_d, int64_t offset,
                              int64_t size, int64_t *i0, int64_t *i1, int64_t *frac) {
  int64_t v = o * scale_d + offset;
  int64_t i = tqs__floor_div(v, scale_n);
  *frac = v - i * scale_n;
  *i0 = tqs__clip(i, 0, size - 1);
  *i1 = tqs__clip(i + 1, 0, size - 1);
}

tq_status_t tqs__k_resize(const tqs__op_t *op, int variant) {
  (void)variant;
  TQ_TRY(tqs__check_arity(op, 1, 4, 1));
  if (op->n_in == 2 || op->n_in == 3) {
    return TQS_FAIL(op, "expects the scale, offset and border operands, or none");
  }
  const tqs_tensor_t *x = op->in[0];
  tqs_tensor_t *y = op->out[0];
  TQ_TRY(tqs__check_type(op, x, "input", TQS__T(TQS_I8) | TQS__T(TQS_I16) | TQS__FLOATS));
  TQ_TRY(tqs__check_rank(op, x, "input", 4));
  const char *mode;
  TQ_TRY(tqs__attr_string(op, "mode", &mode));
  int bilinear;
  if (strcmp(mode, "BILINEAR") == 0) {
    bilinear = 1;
  } else if (strcmp(mode, "NEAREST_NEIGHBOR") == 0) {
    bilinear = 0;
  } else {
    return TQS_FAIL(op, "attribute 'mode' must be NEAREST_NEIGHBOR or BILINEAR, not \"%s\"", mode);
  }
  int is_float = tqs_type_is_float(x->type);
  if (is_float || !bilinear) {
    TQ_TRY(tqs__check_same_type(op, x, "input", y, "the result"));
  } else {
    TQ_TRY(tqs__check_type(op, y, "the result", TQS__T(TQS_I32) | TQS__T(TQS_I64)));
  }
  int64_t scale[4], offset[2], border[2];
  TQ_TRY(tqs__shape_arg(op, 1, "scale", 4, scale));
  TQ_TRY(tqs__shape_arg(op, 2, "offset", 2, offset));
  TQ_TRY(tqs__shape_arg(op, 3, "border", 2, border));
  for (int i = 0; i < 4; i++) {
    if (scale[i] <= 0 || scale[i] > (1 << 16)) {
      return TQS_FAIL(op, "scale[%d] = %lld must be in 1..65536", i, (long long)scale[i]);
    }
  }
  for (int i = 0; i < 2; i++) {
    if (offset[i] < -(1 << 20) || offset[i] > (1 << 20) || border[i] < -(1 << 20) ||
        border[i] > (1 << 20)) {
      return TQS_FAIL(op, "offset and border must be within +-2^20");
    }
  }
  const int64_t N = x->dims[0], IH = x->dims[1], IW = x->dims[2], C = x->dims[3];
  int64_t oh = IH ? tqs__floor_div((IH - 1) * scale[0] - offset[0] + border[0], scale[1]) + 1 : 0;
  int64_t ow = IW ? tqs__floor_div((IW - 1) * scale[2] - offset[1] + border[1], scale[3]) + 1 : 0;
  if (oh < 0 || ow < 0) return TQS_FAIL(op, "scale, offset and border give a negative size");
  int64_t want[4] = {N, oh, ow, C};
  TQ_TRY(tqs__check_dims(op, y, "the result", 4, want));
  const int64_t sn_y = scale[0], sn_x = scale[2];
  size_t o = 0;
  for (int64_t n = 0; n < N; n++) {
    for (int64_t oy = 0; oy < oh; oy++) {
      int64_t iy0, iy1, dy;
      tqs__resize_coord(oy, sn_y, scale[1], offset[0], IH, &iy0, &iy1, &dy);
      for (int64_t ox = 0; ox < ow; ox++) {
        int64_t ix0, ix1, dx;
        tqs__resize_coord(ox, sn_x, scale[3], offset[1], IW, &ix0, &ix1, &dx);
        size_t r0 = (size_t)((n * IH + iy0) * IW), r1 = (size_t)((n * IH + iy1) * IW);
        size_t p00 = (r0 + (size_t)ix0) * (size_t)C, p01 = (r0 + (size_t)ix1) * (size_t)C;
        size_t p10 = (r1 + (size_t)ix0) * (size_t)C, p11 = (r1 + (size_t)ix1) * (size_t)C;
        if (!bilinear) {
          size_t p = 2 * dy >= sn_y ? (2 * dx >= sn_x ? p11 : p10) : (2 * dx >= sn_x ? p01 : p00);
          size_t es = tqs_type_size(x->type);
          memcpy((char *)y->data + o * es, (const char *)x->data + p * es, (size_t)C * es);
          o += (size_t)C;
          continue;
        }
        for (int64_t c = 0; c < C; c++, o++) {
          if (is_float) {
            float fy = (float)dy / (float)sn_y, fx = (float)dx / (float)sn_x;
            float acc = tqs__ld_f(x, p00 + (size_t)c) * (1.0f - fy) * (1.0f - fx);
            acc += tqs__ld_f(x, p01 + (size_t)c) * (1.0f - fy) * fx;
            acc += tqs__ld_f(x, p10 + (size_t)c) * fy * (1.0f - fx);
            acc += tqs__ld_f(x, p11 + (size_t)c) * fy * fx;
            tqs__st_f(y, o, acc);
          } else {
            int64_t acc = tqs__ld_i(x, p00 + (size_t)c) * (sn_y - dy) * (sn_x - dx);
            acc += tqs__ld_i(x, p01 + (size_t)c) * (sn_y - dy) * dx;
            acc += tqs__ld_i(x, p10 + (size_t)c) * dy * (sn_x - dx);
            acc += tqs__ld_i(x, p11 + (size_t)c) * dy * dx;
            tqs__st_i(y, o, acc);
          }
        }
      }
    }
  }
  return NULL;
}
