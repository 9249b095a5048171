/* IREE's --input syntax (input.h). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "torq/base/file.h"
#include "torq/runtime/input.h"
#include "torq/runtime/npy.h"
#include "torq/sim/tensor.h"

void tqr_input_options_initialize(tqr_input_options_t *options) {
  memset(options, 0, sizeof(*options));
  options->max_file_bytes = (size_t)1 << 30;
}

static tq_status_t bad(const char *text, const char *fmt, ...) TQ_PRINTF(2, 3);
static tq_status_t bad(const char *text, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  size_t len = strlen(text);
  if (len > 80) return TQ_STATUS(TQ_INVALID_ARGUMENT, "--input \"%.72s...\": %s", text, msg);
  return TQ_STATUS(TQ_INVALID_ARGUMENT, "--input \"%s\": %s", text, msg);
}

static int is_digit(char c) {
  return c >= '0' && c <= '9';
}

/* The SHAPExTYPE part, [spec, end). */
static tq_status_t parse_type(const char *text, const char *spec, const char *end,
                              Torq__ElementType *out_type, size_t *out_rank, int64_t *dims) {
  const char *c = spec;
  size_t rank = 0;
  while (c < end && is_digit(*c)) {
    uint64_t v = 0;
    const char *start = c;
    for (; c < end && is_digit(*c); c++) {
      if (v > (uint64_t)(INT64_MAX - 9) / 10)
        return bad(text, "dim %zu (\"%.*s...\") is too large", rank, (int)(c - start), start);
      v = v * 10 + (uint64_t)(*c - '0');
    }
    if (c == end) return bad(text, "missing element type after the shape (e.g. 1x4xi8=...)");
    if (*c != 'x') return bad(text, "expected 'x' after dim %zu, found '%c'", rank, *c);
    if (rank == TQR_MAX_RANK) return bad(text, "more than %d dims", TQR_MAX_RANK);
    dims[rank++] = (int64_t)v;
    c++;
  }
  if (!tqr_element_parse(tq_sv(c, (size_t)(end - c)), out_type)) {
    if (c < end && *c == 'x') return bad(text, "empty dim in the shape");
    return bad(text, "unknown element type \"%.*s\" (types: i1 i8 i16 i32 i64 ui8 bf16 f16 f32)",
               (int)(end - c), c);
  }
  *out_rank = rank;
  return NULL;
}

/* Parses an integer token: decimal or 0x hex, optional sign. Returns 0 on bad syntax or overflow
 * of the 64-bit magnitude. */
static int parse_integer(const char *s, size_t len, int *out_neg, uint64_t *out_mag) {
  size_t i = 0;
  int neg = 0;
  if (i < len && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
  int base = 10;
  if (i + 1 < len && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
    base = 16;
    i += 2;
  }
  if (i == len) return 0;
  uint64_t v = 0;
  for (; i < len; i++) {
    int d;
    char c = s[i];
    if (c >= '0' && c <= '9')
      d = c - '0';
    else if (base == 16 && c >= 'a' && c <= 'f')
      d = c - 'a' + 10;
    else if (base == 16 && c >= 'A' && c <= 'F')
      d = c - 'A' + 10;
    else
      return 0;
    if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base) return 0;
    v = v * (uint64_t)base + (uint64_t)d;
  }
  *out_neg = neg;
  *out_mag = v;
  return 1;
}

/* Stores one value token into element `index` of `t`. */
static tq_status_t store_value(const char *text, tqr_tensor_t *t, size_t index, const char *tok,
                               size_t len) {
  uint8_t *dst = t->data + index * tqf_element_size(t->type);
  const char *tn = tqf_element_name(t->type);
  if (tqf_element_is_float(t->type)) {
    char buf[72];
    if (len >= sizeof(buf)) return bad(text, "value %zu is too long", index);
    memcpy(buf, tok, len);
    buf[len] = 0;
    char *endp;
    errno = 0;
    double d = strtod(buf, &endp);
    if (endp != buf + len || len == 0)
      return bad(text, "value %zu (\"%s\") is not a number", index, buf);
    if (t->type == TORQ__ELEMENT_TYPE__F32) {
      float f = (float)d;
      memcpy(dst, &f, 4);
    } else {
      uint16_t bits = t->type == TORQ__ELEMENT_TYPE__BF16 ? tqs_f64_to_bf16(d) : tqs_f64_to_f16(d);
      memcpy(dst, &bits, 2);
    }
    return NULL;
  }
  if (t->type == TORQ__ELEMENT_TYPE__I1) {
    if ((len == 1 && tok[0] == '1') || (len == 4 && !memcmp(tok, "true", 4))) {
      dst[0] = 1;
    } else if ((len == 1 && tok[0] == '0') || (len == 5 && !memcmp(tok, "false", 5))) {
      dst[0] = 0;
    } else {
      return bad(text, "value %zu (\"%.*s\") is not an i1 (0, 1, true or false)", index, (int)len,
                 tok);
    }
    return NULL;
  }
  int neg;
  uint64_t mag;
  if (!parse_integer(tok, len, &neg, &mag))
    return bad(text, "value %zu (\"%.*s\") is not an integer%s", index, (int)len, tok,
               memchr(tok, '.', len) ? " (floats need an f16, bf16 or f32 type)" : "");
  size_t bytes = tqf_element_size(t->type);
  unsigned bits = (unsigned)bytes * 8;
  int is_unsigned = t->type == TORQ__ELEMENT_TYPE__U8;
  uint64_t max_pos = bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
  uint64_t max_neg = is_unsigned ? 0 : (UINT64_C(1) << (bits - 1));
  if ((neg && mag > max_neg) || (!neg && mag > max_pos)) {
    if (is_unsigned)
      return bad(text, "value %zu (\"%.*s\") is out of range for %s (0..%" PRIu64 ")", index,
                 (int)len, tok, tn, max_pos);
    return bad(text, "value %zu (\"%.*s\") is out of range for %s (-%" PRIu64 "..%" PRIu64 ")",
               index, (int)len, tok, tn, max_neg, max_pos);
  }
  uint64_t v = neg ? (uint64_t)0 - mag : mag;
  memcpy(dst, &v, bytes); /* little-endian host: the low bytes */
  return NULL;
}

static int is_separator(char c) {
  return c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '[' || c == ']';
}

static tq_status_t parse_values(const char *text, const char *values, tqr_tensor_t *t) {
  size_t count = tqr_tensor_count(t), n = 0;
  const char *c = values;
  while (*c) {
    while (*c && is_separator(*c)) c++;
    if (!*c) break;
    const char *tok = c;
    while (*c && !is_separator(*c)) c++;
    if (n >= count)
      return bad(text, "more values than the %zu element%s of the tensor", count,
                 count == 1 ? "" : "s");
    TQ_TRY(store_value(text, t, n, tok, (size_t)(c - tok)));
    n++;
  }
  if (n == 1 && count > 1) {
    size_t esz = tqf_element_size(t->type);
    for (size_t i = 1; i < count; i++) memcpy(t->data + i * esz, t->data, esz);
  } else if (n != count) {
    if (n == 0) return bad(text, "no values after '='");
    return bad(text, "%zu values for %zu elements (give 1 value to splat, or %zu)", n, count,
               count);
  }
  return NULL;
}

static uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
  z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
  return z ^ (z >> 31);
}

void tqr_input_random_fill(tqr_tensor_t *tensor, uint64_t seed, size_t index) {
  uint64_t state = seed ^ (UINT64_C(0xD1B54A32D192ED03) * ((uint64_t)index + 1));
  size_t count = tqr_tensor_count(tensor), esz = tqf_element_size(tensor->type);
  for (size_t i = 0; i < count; i++) {
    uint64_t r = splitmix64(&state);
    uint8_t *dst = tensor->data + i * esz;
    if (tqf_element_is_float(tensor->type)) {
      double d = (double)(r >> 11) * 0x1.0p-53 * 2.0 - 1.0;
      if (tensor->type == TORQ__ELEMENT_TYPE__F32) {
        float f = (float)d;
        if (f >= 1.0f) f = nextafterf(1.0f, 0.0f);
        memcpy(dst, &f, 4);
      } else {
        uint16_t bits =
            tensor->type == TORQ__ELEMENT_TYPE__BF16 ? tqs_f64_to_bf16(d) : tqs_f64_to_f16(d);
        memcpy(dst, &bits, 2);
      }
    } else if (tensor->type == TORQ__ELEMENT_TYPE__I1) {
      dst[0] = (uint8_t)(r >> 63);
    } else {
      memcpy(dst, &r, esz);
    }
  }
}

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

static void describe(const tqr_tensor_t *t, char *out, size_t cap) {
  tq_buf_t b;
  tq_buf_init(&b, 0);
  tq_status_t st = tqr_tensor_format_type(t, &b);
  snprintf(out, cap, "%s", st || !b.data ? "?" : b.data);
  tq_status_free(st);
  tq_buf_deinit(&b);
}

/* A zeroed tensor for an input, at most options->max_file_bytes large. */
static tq_status_t make_tensor(const char *text, const tqr_input_options_t *options,
                               Torq__ElementType type, size_t rank, const int64_t *dims,
                               tqr_tensor_t **out) {
  size_t size = 0;
  tq_status_t st = tqr_tensor_byte_size(type, rank, dims, &size);
  if (!st && size > options->max_file_bytes)
    st = TQ_STATUS(TQ_LIMIT, "the tensor has %zu bytes, above the limit of %zu", size,
                   options->max_file_bytes);
  if (!st) st = tqr_tensor_create(type, rank, dims, out);
  if (!st) return NULL;
  tq_status_t r = bad(text, "%s", tq_status_message(st));
  tq_status_free(st);
  return r;
}

tq_status_t tqr_input_parse(const char *text, const tqr_input_options_t *options,
                            tqr_tensor_t **out_tensor) {
  *out_tensor = NULL;
  tqr_input_options_t defaults;
  if (!options) {
    tqr_input_options_initialize(&defaults);
    options = &defaults;
  }
  const char *value;
  const char *spec_end;
  if (text[0] == '@') {
    value = text;
    spec_end = text;
  } else {
    const char *eq = strchr(text, '=');
    if (!eq)
      return bad(text, "expected SHAPExTYPE=VALUE (1x4xi8=1), SHAPExTYPE=@FILE or @FILE.npy");
    spec_end = eq;
    value = eq + 1;
  }
  int typed = spec_end > text;
  Torq__ElementType type = TORQ__ELEMENT_TYPE__ELEMENT_TYPE_UNSPECIFIED;
  size_t rank = 0;
  int64_t dims[TQR_MAX_RANK];
  if (typed) TQ_TRY(parse_type(text, text, spec_end, &type, &rank, dims));

  if (value[0] != '@') {
    if (!typed) return bad(text, "values need a SHAPExTYPE before '=' (e.g. 1x4xi8=1)");
    tqr_tensor_t *t = NULL;
    TQ_TRY(make_tensor(text, options, type, rank, dims, &t));
    tq_status_t st = parse_values(text, value, t);
    if (st) {
      tqr_tensor_destroy(t);
      return st;
    }
    *out_tensor = t;
    return NULL;
  }
  const char *path = value + 1;
  if (!*path) return bad(text, "missing file name after '@'");
  if (!strcmp(path, "random")) {
    if (!typed) return bad(text, "@random needs a SHAPExTYPE before '=' (e.g. 1x4xi8=@random)");
    tqr_tensor_t *t = NULL;
    TQ_TRY(make_tensor(text, options, type, rank, dims, &t));
    tqr_input_random_fill(t, options->seed, options->index);
    *out_tensor = t;
    return NULL;
  }
  if (ends_with(path, ".npy")) {
    tqr_tensor_t *t = NULL;
    TQ_TRY(tqr_npy_read(path, options->max_file_bytes, &t));
    int same = !typed || (t->type == type && t->rank == rank);
    for (size_t i = 0; same && typed && i < rank; i++) same = t->dims[i] == dims[i];
    if (!same) {
      char got[160];
      describe(t, got, sizeof(got));
      tqr_tensor_destroy(t);
      return TQ_STATUS(TQ_INVALID_INPUT, "%s holds %s, but --input \"%.*s\" says otherwise", path,
                       got, (int)(spec_end - text), text);
    }
    *out_tensor = t;
    return NULL;
  }
  if (!typed)
    return bad(text,
               "a raw file needs its SHAPExTYPE before '=' (e.g. 1x4xi8=@%s); only .npy "
               "files carry their own",
               path);
  tqr_tensor_t *t = NULL;
  TQ_TRY(make_tensor(text, options, type, rank, dims, &t));
  tq_buf_t buf;
  tq_status_t st = tq_file_read(path, options->max_file_bytes, &buf);
  if (!st && buf.len != t->size)
    st = TQ_STATUS(TQ_INVALID_INPUT, "%s has %zu bytes, but %.*s needs %zu", path, buf.len,
                   (int)(spec_end - text), text, t->size);
  if (!st && t->size) memcpy(t->data, buf.data, t->size);
  tq_buf_deinit(&buf);
  if (st) {
    tqr_tensor_destroy(t);
    return st;
  }
  *out_tensor = t;
  return NULL;
}
