/* The JSON writer with a sticky error, and the UTF-8 decoder that the writers share (json.h). */
#include <math.h>
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

tq_status_t tqh_format_double(tq_buf_t *out, double v) {
  char text[40];
  if (!isfinite(v)) return tq_buf_append_cstr(out, "null");
  if (v == 0) v = 0; /* -0 reads back as 0 */
  snprintf(text, sizeof(text), "%.15g", v);
  if (strtod(text, NULL) != v) snprintf(text, sizeof(text), "%.17g", v);
  return tq_buf_append_cstr(out, text);
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
