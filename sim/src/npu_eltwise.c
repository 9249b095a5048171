/* Elementwise slice kernels of the NPU model (add, sub, mul, rescale, clamp) and the output stage
 * that conv2d, depthwise_conv2d and fully_connected share with rescale, as the NPU contract
 * (torq/formats/contract.h) says. */
#include <inttypes.h>

#include "npu_internal.h"
#include "ref_internal.h"
#include "torq/base/checked.h"

#define TQS__SHAPE_DIM_MAX (INT64_C(1) << 40)

/* The output stage of a fused rescale to 8 bits, for the accumulator wrapped to 32 bits (the
 * common case; tqs__ostage_row checks it), with every field in a local: `out` may alias
 * anything, so fields read through `os` in the loop would be reloaded for every element. The
 * arithmetic is tqs__ostage_apply's; `per_channel` and `double_round` are constants where it is
 * called, so each use gets a loop without their tests. The saturation to the type's range and
 * the clamp are one clip to [lo, hi], their intersection: when it is not empty, clipping to one
 * interval and then the other is clipping to it. */
static inline __attribute__((always_inline)) void tqs__ostage8(const tqs__ostage_t *os,
                                                               const int64_t *restrict acc,
                                                               size_t n, uint8_t *restrict out,
                                                               int per_channel, int double_round) {
  const int32_t *restrict mul = os->multiplier, *restrict sh = os->shift;
  uint64_t zp = (uint64_t)os->output_zp, half = UINT64_C(1) << 30;
  int64_t lo = os->sat_lo > os->clamp_min ? os->sat_lo : os->clamp_min;
  int64_t hi = os->sat_hi < os->clamp_max ? os->sat_hi : os->clamp_max;
  for (size_t i = 0; i < n; i++) {
    size_t c = per_channel ? i : 0;
    int s = sh[c];
    int64_t v = (int32_t)(uint32_t)(uint64_t)acc[i];
    uint64_t r = UINT64_C(1) << (s - 1);
    if (double_round) r += s > 31 ? (v >= 0 ? half : (uint64_t)0 - half) : 0;
    int64_t x = (int64_t)((uint64_t)v * (uint64_t)(int64_t)mul[c] + r) >> s;
    x = (int64_t)((uint64_t)x + zp);
    x = x < lo ? lo : x;
    x = x > hi ? hi : x;
    out[i] = (uint8_t)x;
  }
}

void tqs__ostage_row(const tqs__ostage_t *os, const int64_t *acc, size_t n, uint8_t *out) {
  /* The common widths get their own loops; the low bits of the value are the stored element. */
  switch (os->out->size) {
    case 1:
      if (os->n_scale && os->acc_shift == 32 && os->sat_lo <= os->clamp_max &&
          os->clamp_min <= os->sat_hi && os->clamp_min <= os->clamp_max) {
        int per_channel = os->n_scale > 1;
        if (per_channel && os->double_round)
          tqs__ostage8(os, acc, n, out, 1, 1);
        else if (per_channel)
          tqs__ostage8(os, acc, n, out, 1, 0);
        else if (os->double_round)
          tqs__ostage8(os, acc, n, out, 0, 1);
        else
          tqs__ostage8(os, acc, n, out, 0, 0);
        break;
      }
      for (size_t i = 0; i < n; i++) out[i] = (uint8_t)tqs__ostage_apply(os, acc[i], i);
      break;
    case 2:
      for (size_t i = 0; i < n; i++) {
        uint16_t v = (uint16_t)tqs__ostage_apply(os, acc[i], i);
        memcpy(out + 2 * i, &v, 2);
      }
      break;
    case 4:
      for (size_t i = 0; i < n; i++) {
        uint32_t v = (uint32_t)tqs__ostage_apply(os, acc[i], i);
        memcpy(out + 4 * i, &v, 4);
      }
      break;
    default:
      for (size_t i = 0; i < n; i++)
        tqf_element_store_int(out + i * os->out->size, os->out_type,
                              tqs__ostage_apply(os, acc[i], i));
      break;
  }
}

static tq_status_t tqs__scales(const Torq__KernelParams *p, const tqs__where_t *where,
                               const char *kernel, tqs__ostage_t *os) {
  if (p->n_shift != p->n_multiplier || (p->n_shift && (!p->shift || !p->multiplier))) {
    return TQS__NPU_FAIL(where, "%s: %zu multipliers but %zu shifts", kernel, p->n_multiplier,
                         p->n_shift);
  }
  for (size_t i = 0; i < p->n_shift; i++) {
    if (p->shift[i] < 2 || p->shift[i] > 62) {
      return TQS__NPU_FAIL(where, "%s: shift[%zu] = %" PRId32 " is outside 2..62", kernel, i,
                           p->shift[i]);
    }
  }
  os->n_scale = p->n_multiplier;
  os->multiplier = p->multiplier;
  os->shift = p->shift;
  os->double_round = p->double_round != 0;
  os->output_zp = p->output_zp;
  return NULL;
}

static tq_status_t tqs__int_type(const tqs__where_t *where, const char *kernel, const char *what,
                                 int type) {
  const tqf_element_info_t *t = tqf_element_info(type);
  if (!t->slice_int)
    return TQS__NPU_FAIL(where, "%s: %s %s is not supported", kernel, what, t->schema_name);
  return NULL;
}

tq_status_t tqs__ostage_decode(const Torq__KernelParams *p, int64_t channels,
                               const tqs__where_t *where, const char *kernel, tqs__ostage_t *os) {
  memset(os, 0, sizeof(*os));
  TQ_TRY(tqs__int_type(where, kernel, "output_type", p->output_type));
  TQ_TRY(tqs__scales(p, where, kernel, os));
  if (os->n_scale > 1 && os->n_scale != (uint64_t)channels) {
    return TQS__NPU_FAIL(where, "%s: %zu multipliers for %" PRId64 " output channels", kernel,
                         os->n_scale, channels);
  }
  os->out_type = p->output_type;
  os->out = tqf_element_info(p->output_type);
  os->sat_lo = os->out->min;
  os->sat_hi = os->out->max;
  os->clamp_min = p->clamp_min;
  os->clamp_max = p->clamp_max;
  return NULL;
}

/* The element count of output_shape; input_shape, when given, must be the same. */
static tq_status_t tqs__eltwise_count(const Torq__KernelParams *p, const tqs__where_t *where,
                                      const char *kernel, uint64_t *out_n) {
  if (p->n_output_shape == 0 || p->n_output_shape > TQS__MAX_LEVELS || !p->output_shape) {
    return TQS__NPU_FAIL(where, "%s: output_shape has %zu entries; expected 1 to %d", kernel,
                         p->n_output_shape, TQS__MAX_LEVELS);
  }
  uint64_t n = 1;
  for (size_t i = 0; i < p->n_output_shape; i++) {
    int64_t d = p->output_shape[i];
    if (d < 0 || d > TQS__SHAPE_DIM_MAX || !tq_u64_mul(n, (uint64_t)d, &n)) {
      return TQS__NPU_FAIL(where, "%s: output_shape[%zu] = %" PRId64 " is out of range", kernel, i,
                           d);
    }
  }
  if (p->n_input_shape) {
    int same = p->input_shape && p->n_input_shape == p->n_output_shape;
    for (size_t i = 0; same && i < p->n_input_shape; i++)
      same = p->input_shape[i] == p->output_shape[i];
    if (!same) return TQS__NPU_FAIL(where, "%s: input_shape differs from output_shape", kernel);
  }
  *out_n = n;
  return NULL;
}

/* Operand region i: n elements, or 1 to broadcast. Returns the element step (1 or 0). */
static tq_status_t tqs__operand(const tqs__span_t *s, size_t i, uint64_t n, int type,
                                const tqs__where_t *where, const char *kernel, uint64_t *step) {
  const tqf_element_info_t *t = tqf_element_info(type);
  uint64_t full = 0;
  if (tq_u64_mul(n, t->size, &full) && s->bytes == full) {
    *step = 1;
    return NULL;
  }
  if (s->bytes == t->size) {
    *step = 0;
    return NULL;
  }
  return TQS__NPU_FAIL(where,
                       "%s: region %zu (operand) holds %" PRIu64 " bytes; %" PRIu64
                       " elements of %s (or one, to broadcast) need %" PRIu64,
                       kernel, i, s->bytes, n, t->schema_name,
                       tq_u64_mul(n, t->size, &full) ? full : 0);
}

tq_status_t tqs__eltwise_decode(const Torq__KernelParams *p, const tqs__span_t *s,
                                const tqs__where_t *where, const char *kernel, tqs__kern_t *k) {
  TQ_TRY(tqs__int_type(where, kernel, "input_type", p->input_type));
  TQ_TRY(tqs__int_type(where, kernel, "output_type", p->output_type));
  uint64_t n = 0;
  TQ_TRY(tqs__eltwise_count(p, where, kernel, &n));
  k->in_t = p->input_type;
  k->out_t = p->output_type;
  k->n = n;
  k->macs = n;
  k->os.out = tqf_element_info(p->output_type);
  k->os.out_type = p->output_type;
  k->in = s[0].base + s[0].offset;
  size_t res = 1;
  if (k->id == TQF_KERNEL_ADD || k->id == TQF_KERNEL_SUB || k->id == TQF_KERNEL_MUL) {
    TQ_TRY(tqs__operand(&s[0], 0, n, k->in_t, where, kernel, &k->a_step));
    TQ_TRY(tqs__operand(&s[1], 1, n, k->in_t, where, kernel, &k->b_step));
    k->b = s[1].base + s[1].offset;
    res = 2;
    if (k->id == TQF_KERNEL_MUL) {
      if (p->n_shift > 1 || (p->n_shift && !p->shift)) {
        return TQS__NPU_FAIL(where, "%s: %zu shifts; expected 0 or 1", kernel, p->n_shift);
      }
      k->mul_shift = p->n_shift ? p->shift[0] : 0;
      if (k->mul_shift < 0 || k->mul_shift > 63) {
        return TQS__NPU_FAIL(where, "%s: shift %d is outside 0..63", kernel, k->mul_shift);
      }
    }
  } else {
    uint64_t in_bytes = 0;
    if (!tq_u64_mul(n, tqf_element_info(k->in_t)->size, &in_bytes) || s[0].bytes != in_bytes) {
      return TQS__NPU_FAIL(where,
                           "%s: region 0 (input) holds %" PRIu64 " bytes; %" PRIu64
                           " elements of %s need %" PRIu64,
                           kernel, s[0].bytes, n, tqf_element_info(k->in_t)->schema_name, in_bytes);
    }
  }
  uint64_t out_bytes = 0;
  if (!tq_u64_mul(n, k->os.out->size, &out_bytes) || s[res].bytes != out_bytes) {
    return TQS__NPU_FAIL(where,
                         "%s: region %zu (result) holds %" PRIu64 " bytes; %" PRIu64
                         " elements of %s need %" PRIu64,
                         kernel, res, s[res].bytes, n, k->os.out->schema_name, out_bytes);
  }
  k->out = s[res].base + s[res].offset;

  if (k->id == TQF_KERNEL_CLAMP) {
    if (p->input_type != p->output_type)
      return TQS__NPU_FAIL(where, "%s: the input and output types differ", kernel);
    k->os.clamp_min = p->clamp_min;
    k->os.clamp_max = p->clamp_max;
  } else if (k->id == TQF_KERNEL_RESCALE) {
    TQ_TRY(tqs__scales(p, where, kernel, &k->os));
    if (k->os.n_scale == 0) return TQS__NPU_FAIL(where, "%s: no multiplier", kernel);
    k->channels = 1;
    if (k->os.n_scale > 1) {
      k->channels = (uint64_t)p->output_shape[p->n_output_shape - 1];
      if (k->channels != k->os.n_scale) {
        return TQS__NPU_FAIL(where, "%s: %zu multipliers for an innermost dimension of %" PRIu64,
                             kernel, k->os.n_scale, k->channels);
      }
    }
    if (p->n_extra > TQF_RESCALE_EXTRA_COUNT || (p->n_extra && !p->extra)) {
      return TQS__NPU_FAIL(where,
                           "%s: %zu extra values; expected [input_unsigned, output_unsigned]",
                           kernel, p->n_extra);
    }
    for (size_t i = 0; i < p->n_extra; i++) {
      if (p->extra[i] != 0 && p->extra[i] != 1)
        return TQS__NPU_FAIL(where, "%s: extra[%zu] = %" PRId64 " is not 0 or 1", kernel, i,
                             p->extra[i]);
    }
    k->in_unsigned =
        p->n_extra > TQF_RESCALE_INPUT_UNSIGNED && p->extra[TQF_RESCALE_INPUT_UNSIGNED];
    int out_unsigned =
        p->n_extra > TQF_RESCALE_OUTPUT_UNSIGNED && p->extra[TQF_RESCALE_OUTPUT_UNSIGNED];
    k->input_zp = p->input_zp;
    k->os.sat_lo = k->os.out->min;
    k->os.sat_hi = k->os.out->max;
    if (out_unsigned && k->os.out->bits < 64) {
      k->os.sat_lo = 0;
      k->os.sat_hi = (int64_t)((UINT64_C(1) << k->os.out->bits) - 1);
    }
  }
  return NULL;
}

/* Add or subtract with the element types as constants where it is called (the loads and stores
 * compile to plain moves), every field in a local (`out` may alias anything). */
static inline __attribute__((always_inline)) void tqs__addsub(const tqs__kern_t *k,
                                                              Torq__ElementType it,
                                                              Torq__ElementType ot, int sub) {
  size_t isz = tqf_element_info(it)->size, osz = tqf_element_info(ot)->size;
  size_t sa = (size_t)k->a_step * isz, sb = (size_t)k->b_step * isz;
  const uint8_t *a = k->in, *b = k->b;
  uint8_t *out = k->out;
  for (uint64_t i = 0, n = k->n; i < n; i++, a += sa, b += sb, out += osz) {
    int64_t x = tqf_element_load_int(a, it), y = tqf_element_load_int(b, it);
    tqf_element_store_int(out, ot, sub ? tqs__wrap_sub(x, y) : tqs__wrap_add(x, y));
  }
}

/* Rescale, as tqs__addsub for its types; per channel or with one scale. */
static inline __attribute__((always_inline)) void tqs__rescale_run(const tqs__kern_t *k,
                                                                   Torq__ElementType it,
                                                                   Torq__ElementType ot) {
  const tqs__ostage_t os = k->os;
  size_t isz = tqf_element_info(it)->size, osz = tqf_element_info(ot)->size;
  unsigned wrap = tqf_element_info(it)->wrap_bits;
  uint64_t mask = wrap < 64 ? (UINT64_C(1) << wrap) - 1 : UINT64_MAX;
  uint64_t channels = k->channels, c = 0;
  int in_unsigned = k->in_unsigned;
  int64_t zp = k->input_zp;
  const uint8_t *a = k->in;
  uint8_t *out = k->out;
  for (uint64_t i = 0, n = k->n; i < n; i++, a += isz, out += osz) {
    int64_t v = tqf_element_load_int(a, it);
    if (in_unsigned) v = (int64_t)((uint64_t)v & mask);
    v = tqs__wrap_sub(v, zp);
    tqf_element_store_int(out, ot, tqs__ostage_scale(&os, v, (size_t)c));
    if (++c == channels) c = 0;
  }
}

#define TQS__ELT(x) TORQ__ELEMENT_TYPE__##x

void tqs__eltwise_run(const tqs__kern_t *k) {
  /* The pairs of types of 8-bit models get their own loops; the rest take the general ones. */
  int i8_i32 = k->in_t == TQS__ELT(I8) && k->out_t == TQS__ELT(I32);
  int i32_i8 = k->in_t == TQS__ELT(I32) && k->out_t == TQS__ELT(I8);
  int i32_i32 = k->in_t == TQS__ELT(I32) && k->out_t == TQS__ELT(I32);
  switch (k->id) {
    case TQF_KERNEL_ADD:
    case TQF_KERNEL_SUB: {
      int sub = k->id == TQF_KERNEL_SUB;
      if (i32_i32 && !sub)
        tqs__addsub(k, TQS__ELT(I32), TQS__ELT(I32), 0);
      else if (i32_i32)
        tqs__addsub(k, TQS__ELT(I32), TQS__ELT(I32), 1);
      else
        tqs__addsub(k, k->in_t, k->out_t, sub);
      return;
    }
    case TQF_KERNEL_RESCALE:
      if (i8_i32)
        tqs__rescale_run(k, TQS__ELT(I8), TQS__ELT(I32));
      else if (i32_i8)
        tqs__rescale_run(k, TQS__ELT(I32), TQS__ELT(I8));
      else
        tqs__rescale_run(k, k->in_t, k->out_t);
      return;
    default:
      break;
  }
  const tqf_element_info_t *it = tqf_element_info(k->in_t);
  size_t isz = it->size, osz = k->os.out->size;
  size_t sa = (size_t)k->a_step * isz, sb = (size_t)k->b_step * isz;
  const uint8_t *a = k->in, *b = k->b;
  uint8_t *out = k->out;
  int64_t n = (int64_t)k->n;
  switch (k->id) {
    case TQF_KERNEL_MUL: {
      int shift = k->out_t == TORQ__ELEMENT_TYPE__I32 ? k->mul_shift : 0;
      int64_t round = shift > 0 ? INT64_C(1) << (shift - 1) : 0;
      for (int64_t i = 0; i < n; i++, a += sa, b += sb, out += osz) {
        int64_t p =
            tqs__wrap_mul(tqf_element_load_int(a, k->in_t), tqf_element_load_int(b, k->in_t));
        if (shift > 0) p = tqs__wrap_add(p, round) >> shift;
        tqf_element_store_int(out, k->out_t, p);
      }
      break;
    }
    default: /* clamp */
      for (int64_t i = 0; i < n; i++, a += isz, out += osz) {
        int64_t v = tqf_element_load_int(a, k->in_t);
        if (v < k->os.clamp_min) v = k->os.clamp_min;
        if (v > k->os.clamp_max) v = k->os.clamp_max;
        tqf_element_store_int(out, k->out_t, v);
      }
      break;
  }
}
