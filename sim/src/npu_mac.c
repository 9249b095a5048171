/* The MAC kernels of the NPU model (conv2d, depthwise_conv2d, fully_connected), exactly as the
 * NPU contract (torq/formats/contract.h) says.
 *
 * They first copy their operands to scratch with the zero point subtracted: as int16 when every
 * difference fits ("narrow": 8- and 16-bit data with zero points that keep them in range), so
 * every product fits int32 and an int32 partial sum holds `chunk` of them before it is added to
 * the int64 accumulator (or each product is added in int64 when chunk is 0); as int32 with int64
 * products otherwise. Both give the exact sums (zero points are limited to |zp| <= 2^16, so no
 * product overflows), wrapped at 64 bits at most; the output stage wraps them to the accumulator
 * type (I32, or I48 = int64) before a fused rescale, and to the output type without one.
 * Converted weights stay in scratch for the next work item that reads the same LRAM bytes
 * (tqs__wcache_t).
 *
 * The fast paths (tqs__kern_t.fast, the common case of 8-bit models) are written for the
 * compiler's vectorizer at the build's flags: dot products of int16 over whole blocks of
 * TQS__DOT_BLOCK, four output channels at once on contiguous weight rows (conv2d's OHWI as it
 * is, fully_connected's weights transposed once per weight tile), int32 partial sums that the
 * chunk keeps exact, no branch per element. Since every partial sum is exact, the order of the
 * additions does not change a result.
 */
#include "npu_internal.h"
#include "ref_internal.h"

/* Operands minus their zero point, as int16 or int32 (|zp| <= 2^16, so int32 arithmetic). */
static void tqs__widen16(const uint8_t *restrict src, int type, int64_t zp, size_t n,
                         int16_t *restrict dst) {
  int32_t z = (int32_t)zp;
  if (type == TORQ__ELEMENT_TYPE__I8) {
    const int8_t *restrict s = (const int8_t *)src;
    size_t i = 0;
    for (; i + 16 <= n; i += 16)
      for (size_t j = 0; j < 16; j++) dst[i + j] = (int16_t)(s[i + j] - z);
    for (; i < n; i++) dst[i] = (int16_t)(s[i] - z);
  } else {
    for (size_t i = 0; i < n; i++)
      dst[i] = (int16_t)((int32_t)tqf_element_load_int(src + 2 * i, type) - z);
  }
}

static void tqs__widen32(const uint8_t *src, int type, int64_t zp, size_t n, int32_t *dst) {
  size_t esz = tqf_element_info(type)->size;
  for (size_t i = 0; i < n; i++) dst[i] = (int32_t)(tqf_element_load_int(src + esz * i, type) - zp);
}

/* The hot loops run in blocks of TQS__BLOCK with a constant trip count, which GCC vectorizes at
 * -O2 (its cheap cost model refuses loops that would need a scalar epilogue); a plain loop does
 * the rest. */
#define TQS__BLOCK 16

/* Exact sums of products: int32 partial sums of at most `chunk` terms, or (chunk 0) every
 * int32 product added in int64. */
static int64_t tqs__dot16(const int16_t *a, const int16_t *b, size_t n, size_t chunk) {
  int64_t total = 0;
  if (chunk == 0) {
    size_t i = 0;
    for (; i + TQS__BLOCK <= n; i += TQS__BLOCK) {
      int64_t t = 0;
      for (size_t j = 0; j < TQS__BLOCK; j++) t += (int32_t)(a[i + j] * b[i + j]);
      total += t;
    }
    for (; i < n; i++) total += (int32_t)(a[i] * b[i]);
    return total;
  }
  while (n) {
    size_t m = n < chunk ? n : chunk, i = 0;
    int32_t s = 0;
    for (; i + TQS__BLOCK <= m; i += TQS__BLOCK) {
      int32_t t = 0;
      for (size_t j = 0; j < TQS__BLOCK; j++) t += a[i + j] * b[i + j];
      s += t;
    }
    for (; i < m; i++) s += a[i] * b[i];
    total += s;
    a += m, b += m, n -= m;
  }
  return total;
}

static int64_t tqs__dot32(const int32_t *a, const int32_t *b, size_t n) {
  uint64_t s = 0;
  size_t i = 0;
  for (; i + TQS__BLOCK <= n; i += TQS__BLOCK) {
    uint64_t t = 0;
    for (size_t j = 0; j < TQS__BLOCK; j++) t += (uint64_t)((int64_t)a[i + j] * b[i + j]);
    s += t;
  }
  for (; i < n; i++) s += (uint64_t)((int64_t)a[i] * b[i]);
  return (int64_t)s;
}

/* acc[n] += v * row[n] for n < N. */
static inline void tqs__axpy16(int32_t *acc, int32_t v, const int16_t *row, size_t N) {
  size_t n = 0;
  for (; n + TQS__BLOCK <= N; n += TQS__BLOCK)
    for (size_t j = 0; j < TQS__BLOCK; j++) acc[n + j] += v * row[n + j];
  for (; n < N; n++) acc[n] += v * row[n];
}

static void tqs__axpy16w(int64_t *acc, int32_t v, const int16_t *row, size_t N) {
  size_t n = 0;
  for (; n + TQS__BLOCK <= N; n += TQS__BLOCK)
    for (size_t j = 0; j < TQS__BLOCK; j++) acc[n + j] += (int32_t)(v * row[n + j]);
  for (; n < N; n++) acc[n] += (int32_t)(v * row[n]);
}

static void tqs__axpy32(int64_t *acc, int64_t v, const int32_t *row, size_t N) {
  size_t n = 0;
  for (; n + TQS__BLOCK <= N; n += TQS__BLOCK)
    for (size_t j = 0; j < TQS__BLOCK; j++)
      acc[n + j] = (int64_t)((uint64_t)acc[n + j] + (uint64_t)(v * row[n + j]));
  for (; n < N; n++) acc[n] = (int64_t)((uint64_t)acc[n] + (uint64_t)(v * row[n]));
}

/* The operands of a MAC kernel in scratch: input, then weights, then accumulators. */
typedef struct tqs__ops_s {
  void *in, *w;
  int64_t *acc64;
  int32_t *acc32;
} tqs__ops_t;

static tqs__wlayout_t tqs__wlayout(const tqs__kern_t *k) {
  if (k->by_channel) return TQS__W_HWIO;
  if (k->id == TQF_KERNEL_FULLY_CONNECTED && k->fast) return TQS__W_NK;
  return TQS__W_AS_STORED;
}

/* Weights [R, C] (R rows of C values as stored) minus zp, transposed to dst[c][r]. */
static void tqs__transpose16(const tqs__kern_t *k, size_t R, size_t C, int16_t *dst) {
  size_t wsz = tqf_element_info(k->w_t)->size;
  for (size_t r = 0; r < R; r++)
    for (size_t c = 0; c < C; c++)
      dst[c * R + r] =
          (int16_t)(tqf_element_load_int(k->w + (r * C + c) * wsz, k->w_t) - k->weight_zp);
}

static tqs__ops_t tqs__prepare(const tqs__kern_t *k, void *scratch, tqs__wcache_t *cache,
                               size_t nin, size_t nw, size_t nacc64) {
  size_t esz = k->narrow ? 2 : 4;
  uint8_t *p = scratch;
  tqs__ops_t o;
  o.w = p;
  p += tqs__align(nw * esz);
  o.in = p;
  p += tqs__align(nin * esz);
  o.acc64 = (int64_t *)(void *)p;
  p += tqs__align(nacc64 * 8);
  o.acc32 = (int32_t *)(void *)p;
  tqs__wlayout_t layout = tqs__wlayout(k);
  int cached = cache->valid && cache->lo == k->w_lo && cache->hi == k->w_hi &&
               cache->type == k->w_t && cache->narrow == k->narrow && cache->zp == k->weight_zp &&
               cache->layout == layout;
  if (k->narrow) {
    tqs__widen16(k->in, k->in_t, k->input_zp, nin, o.in);
    if (!cached && layout == TQS__W_HWIO) {
      /* OHWI -> HWIO: w[oc][t] to wt[t][oc], t over KH * KW * IC. */
      tqs__transpose16(k, (size_t)k->OC, nw / (size_t)k->OC, o.w);
    } else if (!cached && layout == TQS__W_NK) {
      tqs__transpose16(k, (size_t)k->IC, (size_t)k->OC, o.w);
    } else if (!cached) {
      tqs__widen16(k->w, k->w_t, k->weight_zp, nw, o.w);
    }
  } else {
    tqs__widen32(k->in, k->in_t, k->input_zp, nin, o.in);
    if (!cached) tqs__widen32(k->w, k->w_t, k->weight_zp, nw, o.w);
  }
  cache->valid = 1;
  cache->lo = k->w_lo, cache->hi = k->w_hi;
  cache->type = k->w_t, cache->narrow = k->narrow, cache->zp = k->weight_zp;
  cache->layout = layout;
  return o;
}

static int64_t tqs__dot(const tqs__kern_t *k, const tqs__ops_t *o, size_t ia, size_t iw, size_t n) {
  if (k->narrow)
    return tqs__dot16((const int16_t *)o->in + ia, (const int16_t *)o->w + iw, n, k->chunk);
  return tqs__dot32((const int32_t *)o->in + ia, (const int32_t *)o->w + iw, n);
}

/* The bias of every output channel as int64, at the end of the int64 accumulators. */
static int64_t *tqs__bias64(const tqs__kern_t *k, const tqs__ops_t *o, size_t n) {
  int64_t *bias = o->acc64 + n;
  size_t bsz = tqf_element_info(k->b_t)->size;
  for (size_t i = 0; i < n; i++) bias[i] = tqf_element_load_int(k->bias + i * bsz, k->b_t);
  return bias;
}

/* ---- The fast paths --------------------------------------------------------------------------
 *
 * GCC vectorizes these at -O2: its very cheap cost model takes a loop whose trip count is known
 * to be a multiple of the vector length (here nb * TQS__DOT_BLOCK), and turns the int16 dot
 * products into pmaddwd (SSE2) or its wider forms. */

/* out[j] = a . w_j over nb blocks, w_j = w + j * ldw, for j < 4; every partial sum in int32
 * (the caller keeps nb * TQS__DOT_BLOCK within the chunk). */
static void tqs__dot4_blocks(const int16_t *restrict a, const int16_t *restrict w, size_t ldw,
                             size_t nb, int32_t *restrict out) {
  const int16_t *w0 = w, *w1 = w + ldw, *w2 = w + 2 * ldw, *w3 = w + 3 * ldw;
  size_t n = nb * TQS__DOT_BLOCK;
  int32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  for (size_t i = 0; i < n; i++) {
    s0 += a[i] * w0[i];
    s1 += a[i] * w1[i];
    s2 += a[i] * w2[i];
    s3 += a[i] * w3[i];
  }
  out[0] = s0, out[1] = s1, out[2] = s2, out[3] = s3;
}

static int32_t tqs__dot1_blocks(const int16_t *restrict a, const int16_t *restrict w, size_t nb) {
  size_t n = nb * TQS__DOT_BLOCK;
  int32_t s = 0;
  for (size_t i = 0; i < n; i++) s += a[i] * w[i];
  return s;
}

/* acc[j] += a . (w + j * ldw) for j < ncols, over n values (a multiple of TQS__DOT_BLOCK), in
 * int32 pieces of at most `piece` products (a multiple of TQS__DOT_BLOCK), wrapping at 64 bits
 * like tqs__wrap_add. */
static void tqs__dots(const int16_t *a, const int16_t *w, size_t ldw, size_t ncols, size_t n,
                      size_t piece, int64_t *acc) {
  for (size_t i0 = 0; i0 < n; i0 += piece) {
    size_t nb = (n - i0 < piece ? n - i0 : piece) / TQS__DOT_BLOCK;
    size_t j = 0;
    for (; j + 4 <= ncols; j += 4) {
      int32_t part[4];
      tqs__dot4_blocks(a + i0, w + j * ldw + i0, ldw, nb, part);
      for (size_t q = 0; q < 4; q++)
        acc[j + q] = (int64_t)((uint64_t)acc[j + q] + (uint64_t)(int64_t)part[q]);
    }
    for (; j < ncols; j++)
      acc[j] = (int64_t)((uint64_t)acc[j] +
                         (uint64_t)(int64_t)tqs__dot1_blocks(a + i0, w + j * ldw + i0, nb));
  }
}

/* The products an int32 piece of tqs__dots holds. */
static size_t tqs__piece(const tqs__kern_t *k) {
  return k->chunk / TQS__DOT_BLOCK * TQS__DOT_BLOCK;
}

/* conv2d, IC a multiple of the block: per output position and row of taps, the dot products of
 * the row's contiguous input (dx 1) or of each tap's channels with four weight rows at once. */
static void tqs__run_conv_dots(const tqs__kern_t *k, void *scratch, tqs__wcache_t *cache) {
  size_t IW = (size_t)k->IW, IC = (size_t)k->IC, KH = (size_t)k->KH, KW = (size_t)k->KW;
  size_t OC = (size_t)k->OC, T = KH * KW * IC, piece = tqs__piece(k);
  tqs__ops_t o = tqs__prepare(k, scratch, cache, (size_t)k->IH * IW * IC, OC * T, 2 * OC);
  int64_t *acc = o.acc64, *bias = tqs__bias64(k, &o, OC);
  const int16_t *xin = o.in, *w = o.w;
  size_t row_bytes = OC * k->os.out->size;
  uint8_t *out = k->out;
  for (int64_t oy = 0; oy < k->OH; oy++) {
    int64_t ybase = oy * k->sy - k->pt, ky0, ky1;
    tqs__taps(ybase, k->dy, k->KH, k->IH, &ky0, &ky1);
    for (int64_t ox = 0; ox < k->OW; ox++, out += row_bytes) {
      int64_t xbase = ox * k->sx - k->pl, kx0, kx1;
      tqs__taps(xbase, k->dx, k->KW, k->IW, &kx0, &kx1);
      memcpy(acc, bias, OC * sizeof(*acc));
      for (int64_t ky = ky0; ky < ky1 && kx1 > kx0; ky++) {
        size_t y = (size_t)(ybase + ky * k->dy);
        if (k->dx == 1) {
          size_t x = (size_t)(xbase + kx0);
          tqs__dots(xin + (y * IW + x) * IC, w + ((size_t)ky * KW + (size_t)kx0) * IC, T, OC,
                    (size_t)(kx1 - kx0) * IC, piece, acc);
        } else {
          for (int64_t kx = kx0; kx < kx1; kx++) {
            size_t x = (size_t)(xbase + kx * k->dx);
            tqs__dots(xin + (y * IW + x) * IC, w + ((size_t)ky * KW + (size_t)kx) * IC, T, OC, IC,
                      piece, acc);
          }
        }
      }
      tqs__ostage_row(&k->os, acc, OC, out);
    }
  }
}

/* fully_connected, K a multiple of the block: the dot products of each input row with the
 * weight columns, stored as rows ([N, K]). */
static void tqs__run_fc_dots(const tqs__kern_t *k, void *scratch, tqs__wcache_t *cache) {
  size_t R = (size_t)k->OH, K = (size_t)k->IC, N = (size_t)k->OC;
  tqs__ops_t o = tqs__prepare(k, scratch, cache, R * K, K * N, N);
  size_t row_bytes = N * k->os.out->size, piece = tqs__piece(k);
  uint8_t *out = k->out;
  for (size_t r = 0; r < R; r++, out += row_bytes) {
    memset(o.acc64, 0, N * sizeof(*o.acc64));
    tqs__dots((const int16_t *)o.in + r * K, o.w, K, N, K, piece, o.acc64);
    tqs__ostage_row(&k->os, o.acc64, N, out);
  }
}

/* depthwise_conv2d with M 1: per output position, every tap adds the products of its channels
 * to int32 partial sums (the decode checked that all the taps fit one), then the bias. */
static void tqs__run_depthwise_fast(const tqs__kern_t *k, void *scratch, tqs__wcache_t *cache) {
  size_t IW = (size_t)k->IW, C = (size_t)k->IC, KW = (size_t)k->KW;
  tqs__ops_t o =
      tqs__prepare(k, scratch, cache, (size_t)k->IH * IW * C, (size_t)k->KH * KW * C, 2 * C);
  int64_t *acc = o.acc64, *bias = tqs__bias64(k, &o, C);
  int32_t *part = o.acc32;
  const int16_t *xin = o.in, *wt = o.w;
  size_t row_bytes = C * k->os.out->size;
  uint8_t *out = k->out;
  for (int64_t oy = 0; oy < k->OH; oy++) {
    int64_t ybase = oy * k->sy - k->pt, ky0, ky1;
    tqs__taps(ybase, k->dy, k->KH, k->IH, &ky0, &ky1);
    for (int64_t ox = 0; ox < k->OW; ox++, out += row_bytes) {
      int64_t xbase = ox * k->sx - k->pl, kx0, kx1;
      tqs__taps(xbase, k->dx, k->KW, k->IW, &kx0, &kx1);
      memset(part, 0, C * sizeof(*part));
      for (int64_t ky = ky0; ky < ky1; ky++) {
        for (int64_t kx = kx0; kx < kx1; kx++) {
          const int16_t *a =
              xin + ((size_t)(ybase + ky * k->dy) * IW + (size_t)(xbase + kx * k->dx)) * C;
          const int16_t *w = wt + ((size_t)ky * KW + (size_t)kx) * C;
          size_t c = 0;
          for (; c + TQS__BLOCK <= C; c += TQS__BLOCK)
            for (size_t j = 0; j < TQS__BLOCK; j++) part[c + j] += a[c + j] * w[c + j];
          for (; c < C; c++) part[c] += a[c] * w[c];
        }
      }
      for (size_t c = 0; c < C; c++) acc[c] = tqs__wrap_add(bias[c], part[c]);
      tqs__ostage_row(&k->os, acc, C, out);
    }
  }
}

/* conv2d over the output channels: per output position, every in-bounds tap adds input value x
 * times the tap's row of OC weights (HWIO) to int32 partial sums. */
static void tqs__run_conv_by_channel(const tqs__kern_t *k, void *scratch, tqs__wcache_t *cache) {
  size_t IW = (size_t)k->IW, IC = (size_t)k->IC, KH = (size_t)k->KH, KW = (size_t)k->KW;
  size_t OC = (size_t)k->OC;
  tqs__ops_t o =
      tqs__prepare(k, scratch, cache, (size_t)k->IH * IW * IC, OC * KH * KW * IC, 2 * OC);
  int64_t *acc = o.acc64, *bias = tqs__bias64(k, &o, OC);
  int32_t *part = o.acc32;
  const int16_t *xin = o.in, *wt = o.w;
  size_t row_bytes = OC * k->os.out->size;
  uint8_t *out = k->out;
  for (int64_t oy = 0; oy < k->OH; oy++) {
    int64_t ybase = oy * k->sy - k->pt, ky0, ky1;
    tqs__taps(ybase, k->dy, k->KH, k->IH, &ky0, &ky1);
    for (int64_t ox = 0; ox < k->OW; ox++, out += row_bytes) {
      int64_t xbase = ox * k->sx - k->pl, kx0, kx1;
      tqs__taps(xbase, k->dx, k->KW, k->IW, &kx0, &kx1);
      memcpy(acc, bias, OC * sizeof(*acc));
      memset(part, 0, OC * sizeof(*part));
      size_t terms = 0;
      for (int64_t ky = ky0; ky < ky1; ky++) {
        for (int64_t kx = kx0; kx < kx1; kx++) {
          const int16_t *xp =
              xin + ((size_t)(ybase + ky * k->dy) * IW + (size_t)(xbase + kx * k->dx)) * IC;
          const int16_t *wp = wt + ((size_t)ky * KW + (size_t)kx) * IC * OC;
          for (size_t ic = 0; ic < IC; ic++) {
            if (!xp[ic]) continue;
            tqs__axpy16(part, xp[ic], wp + ic * OC, OC);
            if (++terms == k->chunk) {
              for (size_t c = 0; c < OC; c++) acc[c] += part[c];
              memset(part, 0, OC * sizeof(*part));
              terms = 0;
            }
          }
        }
      }
      for (size_t c = 0; c < OC; c++) acc[c] += part[c];
      tqs__ostage_row(&k->os, acc, OC, out);
    }
  }
}

void tqs__run_conv(const tqs__kern_t *k, void *scratch, tqs__wcache_t *cache) {
  if (k->fast) {
    tqs__run_conv_dots(k, scratch, cache);
    return;
  }
  if (k->by_channel) {
    tqs__run_conv_by_channel(k, scratch, cache);
    return;
  }
  size_t IW = (size_t)k->IW, IC = (size_t)k->IC, KH = (size_t)k->KH, KW = (size_t)k->KW;
  size_t OC = (size_t)k->OC;
  tqs__ops_t o =
      tqs__prepare(k, scratch, cache, (size_t)k->IH * IW * IC, OC * KH * KW * IC, 2 * OC);
  int64_t *acc = o.acc64, *bias = tqs__bias64(k, &o, OC);
  size_t row_bytes = OC * k->os.out->size;
  uint8_t *out = k->out;
  for (int64_t oy = 0; oy < k->OH; oy++) {
    int64_t ybase = oy * k->sy - k->pt, ky0, ky1;
    tqs__taps(ybase, k->dy, k->KH, k->IH, &ky0, &ky1);
    for (int64_t ox = 0; ox < k->OW; ox++, out += row_bytes) {
      int64_t xbase = ox * k->sx - k->pl, kx0, kx1;
      tqs__taps(xbase, k->dx, k->KW, k->IW, &kx0, &kx1);
      for (size_t oc = 0; oc < OC; oc++) {
        int64_t a = bias[oc];
        for (int64_t ky = ky0; ky < ky1 && kx1 > kx0; ky++) {
          size_t y = (size_t)(ybase + ky * k->dy);
          size_t wrow = (oc * KH + (size_t)ky) * KW;
          if (k->dx == 1) {
            size_t x = (size_t)(xbase + kx0);
            a = tqs__wrap_add(a, tqs__dot(k, &o, (y * IW + x) * IC, (wrow + (size_t)kx0) * IC,
                                          (size_t)(kx1 - kx0) * IC));
          } else {
            for (int64_t kx = kx0; kx < kx1; kx++) {
              size_t x = (size_t)(xbase + kx * k->dx);
              a = tqs__wrap_add(a,
                                tqs__dot(k, &o, (y * IW + x) * IC, (wrow + (size_t)kx) * IC, IC));
            }
          }
        }
        acc[oc] = a;
      }
      tqs__ostage_row(&k->os, acc, OC, out);
    }
  }
}

void tqs__run_depthwise(const tqs__kern_t *k, void *scratch, tqs__wcache_t *cache) {
  if (k->fast) {
    tqs__run_depthwise_fast(k, scratch, cache);
    return;
  }
  size_t IW = (size_t)k->IW, C = (size_t)k->IC, M = (size_t)k->M, CM = C * M;
  size_t KW = (size_t)k->KW;
  tqs__ops_t o =
      tqs__prepare(k, scratch, cache, (size_t)k->IH * IW * C, (size_t)k->KH * KW * CM, 2 * CM);
  int64_t *acc = o.acc64, *bias = tqs__bias64(k, &o, CM);
  size_t row_bytes = CM * k->os.out->size;
  uint8_t *out = k->out;
  for (int64_t oy = 0; oy < k->OH; oy++) {
    int64_t ybase = oy * k->sy - k->pt, ky0, ky1;
    tqs__taps(ybase, k->dy, k->KH, k->IH, &ky0, &ky1);
    for (int64_t ox = 0; ox < k->OW; ox++) {
      int64_t xbase = ox * k->sx - k->pl, kx0, kx1;
      tqs__taps(xbase, k->dx, k->KW, k->IW, &kx0, &kx1);
      memcpy(acc, bias, CM * sizeof(*acc));
      for (int64_t ky = ky0; ky < ky1; ky++) {
        for (int64_t kx = kx0; kx < kx1; kx++) {
          size_t ia = ((size_t)(ybase + ky * k->dy) * IW + (size_t)(xbase + kx * k->dx)) * C;
          size_t iw = ((size_t)ky * KW + (size_t)kx) * CM;
          if (k->narrow) {
            const int16_t *a = (const int16_t *)o.in + ia, *w = (const int16_t *)o.w + iw;
            for (size_t c = 0; c < C; c++)
              for (size_t m = 0; m < M; m++) acc[c * M + m] += a[c] * w[c * M + m];
          } else {
            const int32_t *a = (const int32_t *)o.in + ia, *w = (const int32_t *)o.w + iw;
            for (size_t c = 0; c < C; c++)
              for (size_t m = 0; m < M; m++)
                acc[c * M + m] = tqs__wrap_add(acc[c * M + m], (int64_t)a[c] * w[c * M + m]);
          }
        }
      }
      tqs__ostage_row(&k->os, acc, CM, out);
      out += row_bytes;
    }
  }
}

void tqs__run_fc(const tqs__kern_t *k, void *scratch, tqs__wcache_t *cache) {
  if (k->fast) {
    tqs__run_fc_dots(k, scratch, cache);
    return;
  }
  size_t R = (size_t)k->OH, K = (size_t)k->IC, N = (size_t)k->OC;
  tqs__ops_t o = tqs__prepare(k, scratch, cache, R * K, K * N, N);
  size_t row_bytes = N * k->os.out->size;
  uint8_t *out = k->out;
  for (size_t r = 0; r < R; r++) {
    int64_t *acc = o.acc64;
    memset(acc, 0, N * sizeof(*acc));
    if (k->narrow && k->chunk == 0) {
      const int16_t *a = (const int16_t *)o.in + r * K;
      for (size_t i = 0; i < K; i++)
        if (a[i]) tqs__axpy16w(acc, a[i], (const int16_t *)o.w + i * N, N);
    } else if (k->narrow) {
      const int16_t *a = (const int16_t *)o.in + r * K;
      for (size_t k0 = 0; k0 < K; k0 += k->chunk) {
        size_t k1 = K - k0 < k->chunk ? K : k0 + k->chunk;
        int32_t *part = o.acc32;
        memset(part, 0, N * sizeof(*part));
        for (size_t i = k0; i < k1; i++)
          if (a[i]) tqs__axpy16(part, a[i], (const int16_t *)o.w + i * N, N);
        for (size_t n = 0; n < N; n++) acc[n] += part[n];
      }
    } else {
      const int32_t *a = (const int32_t *)o.in + r * K;
      for (size_t i = 0; i < K; i++)
        if (a[i]) tqs__axpy32(acc, a[i], (const int32_t *)o.w + i * N, N);
    }
    tqs__ostage_row(&k->os, acc, N, out);
    out += row_bytes;
  }
}
