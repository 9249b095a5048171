/* The JSON writer with a sticky error, and the UTF-8 decoder that the writers share (json.h). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "torq/harness/json.h"

size_t tqh_utf8_decode(const unsigned char *s, size_t len, uint32_t *out_cp) {
  unsigned char c = s[0];
  if (c < 0x80) {
    *out_cp = c;
    return 1;
  }
  size_t n;
  uint32_t cp, min;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2, cp = c & 0x1Fu, min = 0x80;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3, cp = c & 0x0Fu, min = 0x800;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4, cp = c & 0x07u, min = 0x10000;
  } else {
    return 0;
  }
  if (len < n) return 0;
  for (size_t i = 1; i < n; i++) {
    if ((s[i] & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (s[i] & 0x3Fu);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  *out_cp = cp;
  return n;
}

static void put(tqh_jw_t *w, const char *s, size_t len) {
  if (!w->error) w->error = tq_buf_append(w->out, s, len);
}

static void putc_(tqh_jw_t *w, char c) {
  if (!w->error) w->error = tq_buf_putc(w->out, c);
}

static void newline(tqh_jw_t *w) {
  putc_(w, '\n');
  for (int i = 0; i < w->depth; i++) put(w, "  ", 2);
}

/* Before a value: the comma and indentation that separate it from the previous one. */
static void before_value(tqh_jw_t *w) {
  if (w->after_key) {
    w->after_key = 0;
    return;
  }
  if (w->depth > 0) {
    if (w->count[w->depth - 1]++) putc_(w, ',');
    if (w->pretty) newline(w);
  }
}

static void begin(tqh_jw_t *w, char c) {
  before_value(w);
  if (w->depth >= TQH_JW_MAX_DEPTH) {
    if (!w->error) w->error = TQ_STATUS(TQ_LIMIT, "JSON nested deeper than %d", TQH_JW_MAX_DEPTH);
    return;
  }
  putc_(w, c);
  w->count[w->depth++] = 0;
}

static void end(tqh_jw_t *w, char c) {
  if (w->depth == 0) {
    if (!w->error) w->error = TQ_STATUS(TQ_INTERNAL, "JSON writer: unbalanced '%c'", c);
    return;
  }
  int had = w->count[--w->depth];
  if (w->pretty && had) newline(w);
  putc_(w, c);
}

void tqh_jw_init(tqh_jw_t *w, tq_buf_t *out, int pretty) {
  memset(w, 0, sizeof(*w));
  w->out = out;
  w->pretty = pretty;
}

void tqh_jw_object_begin(tqh_jw_t *w) {
  begin(w, '{');
}
void tqh_jw_object_end(tqh_jw_t *w) {
  end(w, '}');
}
void tqh_jw_array_begin(tqh_jw_t *w) {
  begin(w, '[');
}
void tqh_jw_array_end(tqh_jw_t *w) {
  end(w, ']');
}

static void string_body(tqh_jw_t *w, const char *s, size_t len) {
  static const char hex[] = "0123456789abcdef";
  const unsigned char *p = (const unsigned char *)s;
  size_t i = 0, run = 0; /* bytes [i - run, i) are plain and not yet copied */
  putc_(w, '"');
  while (i < len) {
    unsigned char c = p[i];
    const char *esc = NULL;
    char ubuf[7];
    size_t adv = 1;
    if (c == '"') {
      esc = "\\\"";
    } else if (c == '\\') {
      esc = "\\\\";
    } else if (c == '\n') {
      esc = "\\n";
    } else if (c == '\t') {
      esc = "\\t";
    } else if (c == '\r') {
      esc = "\\r";
    } else if (c < 0x20 || c == 0x7F) {
      snprintf(ubuf, sizeof(ubuf), "\\u00%c%c", hex[c >> 4], hex[c & 15]);
      esc = ubuf;
    } else if (c >= 0x80) {
      uint32_t cp;
      adv = tqh_utf8_decode(p + i, len - i, &cp);
      if (!adv) {
        adv = 1;
        esc = "\xEF\xBF\xBD"; /* U+FFFD for a malformed byte */
      }
    }
    if (!esc) {
      run += adv;
      i += adv;
      continue;
    }
    put(w, s + i - run, run);
    run = 0;
    put(w, esc, strlen(esc));
    i += adv;
  }
  put(w, s + i - run, run);
  putc_(w, '"');
}

void tqh_jw_key(tqh_jw_t *w, const char *key) {
  before_value(w);
  string_body(w, key, strlen(key));
  put(w, w->pretty ? ": " : ":", w->pretty ? 2 : 1);
  w->after_key = 1;
}

void tqh_jw_stringn(tqh_jw_t *w, const char *s, size_t len) {
  before_value(w);
  string_body(w, s, len);
}

void tqh_jw_string(tqh_jw_t *w, const char *s) {
  if (!s) {
    tqh_jw_null(w);
    return;
  }
  tqh_jw_stringn(w, s, strlen(s));
}

/* ---- Numbers: %.15g, or %.17g where that does not read back --------------------------------- */

typedef unsigned __int128 u128;

/* 5^k and 10^k, as far as format_g and tqh_format_fixed need them. */
/* clang-format off */
static const uint64_t k_pow5[27] = {
    1ull, 5ull, 25ull, 125ull, 625ull, 3125ull, 15625ull, 78125ull, 390625ull, 1953125ull,
    9765625ull, 48828125ull, 244140625ull, 1220703125ull, 6103515625ull, 30517578125ull,
    152587890625ull, 762939453125ull, 3814697265625ull, 19073486328125ull, 95367431640625ull,
    476837158203125ull, 2384185791015625ull, 11920928955078125ull, 59604644775390625ull,
    298023223876953125ull, 1490116119384765625ull};
static const uint64_t k_pow10[18] = {
    1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull, 100000000ull,
    1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull, 10000000000000ull,
    100000000000000ull, 1000000000000000ull, 10000000000000000ull, 100000000000000000ull};
/* clang-format on */

/* scaled / 2^shift rounded to the nearest in *out; 0 at an exact tie (printf's to decide). */
static int round_scaled(u128 scaled, int shift, uint64_t *out) {
  u128 rest = scaled & (((u128)1 << shift) - 1), half = (u128)1 << (shift - 1);
  if (rest == half) return 0;
  *out = (uint64_t)(scaled >> shift) + (rest > half);
  return 1;
}

/* The text of %.{p}g (p: 15 or 17) of v in `out`, as printf writes it, for the doubles that a
 * run writes most (magnitudes from 1e-10 to 1e15), without printf: printf's cost, and strtod's
 * to check that 15 digits read back, were a tenth of the runner's recording. The arithmetic is
 * exact: |v| = m 2^e2, so |v| 10^k = m 5^k / 2^shift, and m 5^k fits in 128 bits for k <= 26.
 * With `reads_back` (p = 15), whether the text reads back as v. Returns the text's length, or 0
 * where printf is to decide: outside that range, and at an exact tie, of the rounding or of the
 * reading back (the rounding modes are printf's and strtod's). */
static size_t format_g(double v, int p, char *out, int *reads_back) {
  double a = fabs(v);
  if (!(a >= 1e-10 && a < 1e15)) return 0;
  int e2;
  uint64_t m = (uint64_t)ldexp(frexp(a, &e2), 53);
  e2 -= 53;
  int e10 = (int)floor(log10(a)), k = 0, shift = 0;
  u128 scaled = 0;
  uint64_t d = 0;
  for (int tries = 0;; tries++) { /* log10 may be one off */
    k = p - 1 - e10;
    shift = -(k + e2);
    if (tries > 2 || k < 0 || k > 26 || shift <= 0 || shift >= 120) return 0;
    scaled = (u128)m * k_pow5[k];
    d = (uint64_t)(scaled >> shift);
    if (d < k_pow10[p - 1])
      e10--;
    else if (d >= k_pow10[p])
      e10++;
    else
      break;
  }
  if (!round_scaled(scaled, shift, &d)) return 0;
  if (reads_back) {
    /* The text's distance from v, in the units of `scaled`, against half an ulp (5^k / 2), or a
     * quarter just below a power of two. */
    u128 at = (u128)d << shift;
    int below = at < scaled;
    u128 dist = below ? scaled - at : at - scaled;
    u128 times = dist * (below && m == (uint64_t)1 << 52 ? 4u : 2u);
    if (times == k_pow5[k]) return 0;
    *reads_back = times < k_pow5[k];
  }
  if (d == k_pow10[p]) { /* rounded up to the next power of ten */
    d /= 10;
    e10++;
  }
  char dig[17];
  for (int i = p - 1; i >= 0; i--, d /= 10) dig[i] = (char)('0' + d % 10);
  int nd = p; /* %g drops the trailing zeros */
  while (nd > 1 && dig[nd - 1] == '0') nd--;
  char *o = out;
  if (v < 0) *o++ = '-';
  if (e10 < -4) { /* d.ddde-XX (e10 >= p is out of the range) */
    *o++ = dig[0];
    if (nd > 1) *o++ = '.';
    memcpy(o, dig + 1, (size_t)nd - 1);
    o += nd - 1;
    *o++ = 'e';
    *o++ = '-';
    *o++ = (char)('0' + -e10 / 10);
    *o++ = (char)('0' + -e10 % 10);
  } else if (e10 >= 0) {
    int whole = e10 + 1;
    memcpy(o, dig, (size_t)whole);
    o += whole;
    if (nd > whole) {
      *o++ = '.';
      memcpy(o, dig + whole, (size_t)(nd - whole));
      o += nd - whole;
    }
  } else {
    *o++ = '0';
    *o++ = '.';
    for (int i = 0; i < -e10 - 1; i++) *o++ = '0';
    memcpy(o, dig, (size_t)nd);
    o += nd;
  }
  *o = '\0';
  return (size_t)(o - out);
}

tq_status_t tqh_format_double(tq_buf_t *out, double v) {
  char text[40];
  if (!isfinite(v)) return tq_buf_append_cstr(out, "null");
  if (v == 0) return tq_buf_append_cstr(out, "0"); /* -0 too: it reads back as 0 */
  int reads_back = 0;
  size_t n = format_g(v, 15, text, &reads_back);
  if (!n) {
    n = (size_t)snprintf(text, sizeof(text), "%.15g", v);
    reads_back = strtod(text, NULL) == v;
  }
  if (!reads_back) {
    n = format_g(v, 17, text, NULL);
    if (!n) n = (size_t)snprintf(text, sizeof(text), "%.17g", v);
  }
  return tq_buf_append(out, text, n);
}

tq_status_t tqh_format_fixed(tq_buf_t *out, double v, int decimals) {
  char text[48];
  double a = fabs(v);
  int e2 = 0;
  uint64_t m = isfinite(v) ? (uint64_t)ldexp(frexp(a, &e2), 53) : 0;
  e2 -= 53;
  int shift = -(decimals + e2);
  /* Exact, as in format_g: |v| 10^d = m 5^d / 2^shift, rounded to the nearest (a tie, a whole
   * number of units or a magnitude that does not fit is printf's). */
  if (isfinite(v) && decimals >= 0 && decimals <= 9 && a < 1e9 && shift > 0 && shift < 120) {
    uint64_t units = 0;
    if (round_scaled((u128)m * k_pow5[decimals], shift, &units)) {
      uint64_t whole = units / k_pow10[decimals], frac = units % k_pow10[decimals];
      char *o = text + sizeof(text);
      for (int i = 0; i < decimals; i++, frac /= 10) *--o = (char)('0' + frac % 10);
      if (decimals) *--o = '.';
      do *--o = (char)('0' + whole % 10);
      while (whole /= 10);
      if (signbit(v)) *--o = '-';
      return tq_buf_append(out, o, (size_t)(text + sizeof(text) - o));
    }
  }
  int n = snprintf(text, sizeof(text), "%.*f", decimals, v);
  if (n < 0 || (size_t)n >= sizeof(text)) return tq_buf_printf(out, "%.*f", decimals, v);
  return tq_buf_append(out, text, (size_t)n);
}

void tqh_jw_number(tqh_jw_t *w, double v) {
  before_value(w);
  if (!w->error) w->error = tqh_format_double(w->out, v);
}

void tqh_jw_uint(tqh_jw_t *w, uint64_t v) {
  before_value(w);
  if (!w->error) w->error = tq_buf_printf(w->out, "%llu", (unsigned long long)v);
}

void tqh_jw_bool(tqh_jw_t *w, int v) {
  before_value(w);
  put(w, v ? "true" : "false", v ? 4 : 5);
}

void tqh_jw_null(tqh_jw_t *w) {
  before_value(w);
  put(w, "null", 4);
}

void tqh_jw_raw(tqh_jw_t *w, const char *json, size_t len) {
  before_value(w);
  put(w, json, len);
}

tq_status_t tqh_jw_finish(tqh_jw_t *w) {
  tq_status_t s = w->error;
  w->error = NULL;
  if (!s && (w->depth != 0 || w->after_key))
    s = TQ_STATUS(TQ_INTERNAL, "JSON writer: %d unclosed levels", w->depth);
  return s;
}

void tqh_jw_value(tqh_jw_t *w, const tqh_json_t *v) {
  switch (v ? v->kind : TQH_JSON_NULL) {
    case TQH_JSON_NULL:
      tqh_jw_null(w);
      return;
    case TQH_JSON_BOOL:
      tqh_jw_bool(w, v->boolean);
      return;
    case TQH_JSON_NUMBER:
      tqh_jw_number(w, v->number);
      return;
    case TQH_JSON_STRING:
      tqh_jw_stringn(w, v->string, v->len);
      return;
    case TQH_JSON_ARRAY:
      tqh_jw_array_begin(w);
      for (size_t i = 0; i < v->len; i++) tqh_jw_value(w, v->items[i]);
      tqh_jw_array_end(w);
      return;
    case TQH_JSON_OBJECT:
      tqh_jw_object_begin(w);
      for (size_t i = 0; i < v->len; i++) {
        tqh_jw_key(w, v->keys[i]);
        tqh_jw_value(w, v->items[i]);
      }
      tqh_jw_object_end(w);
      return;
  }
}
