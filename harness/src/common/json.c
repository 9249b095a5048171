/* A small JSON reader, enough for manifest.json: RFC 8259 values, \u escapes (UTF-16 surrogate
 * pairs combined into UTF-8), numbers as doubles. Not a general-purpose library: no streaming,
 * no duplicate-key policy (the first wins in tqh_json_get). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "torq/harness/json.h"

#define TQH__JSON_MAX_DEPTH 64

typedef struct jp_s {
  tq_arena_t *arena;
  const char *path;
  const char *s, *p, *end;
  uint32_t line;
  const char *line_start;
} jp_t;

static tq_status_t jerr(jp_t *j, const char *what) {
  return TQ_STATUS(TQ_INVALID_INPUT, "%s:%u:%u: error: %s", j->path, (unsigned)j->line,
                   (unsigned)(j->p - j->line_start) + 1, what);
}

static void skip_ws(jp_t *j) {
  while (j->p < j->end) {
    char c = *j->p;
    if (c == '\n') {
      j->line++;
      j->line_start = j->p + 1;
    } else if (c != ' ' && c != '\t' && c != '\r') {
      return;
    }
    j->p++;
  }
}

static tq_status_t value(jp_t *j, int depth, tqh_json_t **out);

static void put_utf8(char *dst, size_t *n, uint32_t cp) {
  if (cp < 0x80) {
    dst[(*n)++] = (char)cp;
  } else if (cp < 0x800) {
    dst[(*n)++] = (char)(0xC0 | (cp >> 6));
    dst[(*n)++] = (char)(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    dst[(*n)++] = (char)(0xE0 | (cp >> 12));
    dst[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
    dst[(*n)++] = (char)(0x80 | (cp & 0x3F));
  } else {
    dst[(*n)++] = (char)(0xF0 | (cp >> 18));
    dst[(*n)++] = (char)(0x80 | ((cp >> 12) & 0x3F));
    dst[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
    dst[(*n)++] = (char)(0x80 | (cp & 0x3F));
  }
}

static int hex4(const char *p, uint32_t *out) {
  uint32_t v = 0;
  for (int i = 0; i < 4; i++) {
    char c = p[i];
    v <<= 4;
    if (c >= '0' && c <= '9')
      v |= (uint32_t)(c - '0');
    else if (c >= 'a' && c <= 'f')
      v |= (uint32_t)(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F')
      v |= (uint32_t)(c - 'A' + 10);
    else
      return 0;
  }
  *out = v;
  return 1;
}

static tq_status_t string(jp_t *j, const char **out, size_t *out_len) {
  j->p++; /* the opening quote */
  const char *q = j->p;
  while (q < j->end && *q != '"') q += (*q == '\\' && q + 1 < j->end) ? 2 : 1;
  if (q >= j->end) return jerr(j, "unterminated string");
  /* Escapes only shrink the text, so its raw length bounds the decoded one. */
  char *dst = tq_arena_alloc(j->arena, (size_t)(q - j->p) + 1);
  if (!dst) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory reading %s", j->path);
  size_t n = 0;
  while (j->p < q) {
    unsigned char c = (unsigned char)*j->p;
    if (c < 0x20) return jerr(j, "control character in a string");
    if (c != '\\') {
      dst[n++] = (char)c;
      j->p++;
      continue;
    }
    char e = j->p[1];
    j->p += 2;
    switch (e) {
      case '"': dst[n++] = '"'; break;
      case '\\': dst[n++] = '\\'; break;
      case '/': dst[n++] = '/'; break;
      case 'b': dst[n++] = '\b'; break;
      case 'f': dst[n++] = '\f'; break;
      case 'n': dst[n++] = '\n'; break;
      case 'r': dst[n++] = '\r'; break;
      case 't': dst[n++] = '\t'; break;
      case 'u': {
        uint32_t cp, lo;
        if (q - j->p < 4 || !hex4(j->p, &cp)) return jerr(j, "bad \\u escape");
        j->p += 4;
        if (cp >= 0xD800 && cp < 0xDC00 && q - j->p >= 6 && j->p[0] == '\\' && j->p[1] == 'u' &&
            hex4(j->p + 2, &lo) && lo >= 0xDC00 && lo < 0xE000) {
          cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          j->p += 6;
        }
        /* 6 escape bytes always hold the (at most 4) bytes of their UTF-8. */
        put_utf8(dst, &n, cp);
        break;
      }
      default:
        j->p -= 2;
        return jerr(j, "bad escape in a string");
    }
  }
  dst[n] = 0;
  j->p = q + 1;
  *out = dst;
  *out_len = n;
  return NULL;
}

static tq_status_t grow(jp_t *j, tqh_json_t *v, size_t *cap, int with_keys) {
  if (v->len < *cap) return NULL;
  size_t ncap = *cap ? *cap * 2 : 8;
  tqh_json_t **items = tq_arena_calloc(j->arena, ncap, sizeof(*items));
  const char **keys = with_keys ? tq_arena_calloc(j->arena, ncap, sizeof(*keys)) : NULL;
  if (!items || (with_keys && !keys))
    return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory reading %s", j->path);
  if (v->len) memcpy(items, v->items, v->len * sizeof(*items));
  if (with_keys && v->len) memcpy(keys, v->keys, v->len * sizeof(*keys));
  v->items = items;
  v->keys = keys;
  *cap = ncap;
  return NULL;
}

static tq_status_t value(jp_t *j, int depth, tqh_json_t **out) {
  if (depth > TQH__JSON_MAX_DEPTH)
    return TQ_STATUS(TQ_LIMIT, "%s: JSON nested deeper than %d levels", j->path,
                     TQH__JSON_MAX_DEPTH);
  skip_ws(j);
  if (j->p >= j->end) return jerr(j, "unexpected end of file, expected a value");
  tqh_json_t *v = tq_arena_calloc(j->arena, 1, sizeof(*v));
  if (!v) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory reading %s", j->path);
  v->line = j->line;
  v->col = (uint32_t)(j->p - j->line_start) + 1;
  char c = *j->p;
  if (c == '{' || c == '[') {
    int obj = c == '{';
    v->kind = obj ? TQH_JSON_OBJECT : TQH_JSON_ARRAY;
    j->p++;
    size_t cap = 0;
    skip_ws(j);
    if (j->p < j->end && *j->p == (obj ? '}' : ']')) {
      j->p++;
      *out = v;
      return NULL;
    }
    for (;;) {
      TQ_TRY(grow(j, v, &cap, obj));
      if (obj) {
        skip_ws(j);
        if (j->p >= j->end || *j->p != '"') return jerr(j, "expected a string key");
        size_t klen;
        TQ_TRY(string(j, &v->keys[v->len], &klen));
        skip_ws(j);
        if (j->p >= j->end || *j->p != ':') return jerr(j, "expected ':'");
        j->p++;
      }
      TQ_TRY(value(j, depth + 1, &v->items[v->len]));
      v->len++;
      skip_ws(j);
      if (j->p < j->end && *j->p == ',') {
        j->p++;
        continue;
      }
      if (j->p < j->end && *j->p == (obj ? '}' : ']')) {
        j->p++;
        break;
      }
      return jerr(j, obj ? "expected ',' or '}'" : "expected ',' or ']'");
    }
  } else if (c == '"') {
    v->kind = TQH_JSON_STRING;
    TQ_TRY(string(j, &v->string, &v->len));
  } else if ((size_t)(j->end - j->p) >= 4 && memcmp(j->p, "true", 4) == 0) {
    v->kind = TQH_JSON_BOOL;
    v->boolean = 1;
    j->p += 4;
  } else if ((size_t)(j->end - j->p) >= 5 && memcmp(j->p, "false", 5) == 0) {
    v->kind = TQH_JSON_BOOL;
    j->p += 5;
  } else if ((size_t)(j->end - j->p) >= 4 && memcmp(j->p, "null", 4) == 0) {
    v->kind = TQH_JSON_NULL;
    j->p += 4;
  } else if (c == '-' || (c >= '0' && c <= '9')) {
    char buf[64];
    size_t n = 0;
    while (j->p + n < j->end && n < sizeof(buf) - 1 && strchr("+-0123456789.eE", j->p[n])) {
      buf[n] = j->p[n];
      n++;
    }
    buf[n] = 0;
    char *endp;
    v->kind = TQH_JSON_NUMBER;
    v->number = strtod(buf, &endp);
    if (endp != buf + n || n == 0) return jerr(j, "malformed number");
    j->p += n;
  } else {
    return jerr(j, "expected a value");
  }
  *out = v;
  return NULL;
}

tq_status_t tqh_json_parse(tq_arena_t *arena, const char *path, const char *text, size_t len,
                           tqh_json_t **out_value) {
  *out_value = NULL;
  jp_t j = {arena, path, text, text, text + len, 1, text};
  tqh_json_t *v;
  TQ_TRY(value(&j, 0, &v));
  skip_ws(&j);
  if (j.p != j.end) return jerr(&j, "trailing characters after the JSON value");
  *out_value = v;
  return NULL;
}

const tqh_json_t *tqh_json_get(const tqh_json_t *object, const char *key) {
  if (!object || object->kind != TQH_JSON_OBJECT) return NULL;
  size_t klen = strlen(key);
  for (size_t i = 0; i < object->len; i++)
    if (strlen(object->keys[i]) == klen && memcmp(object->keys[i], key, klen) == 0)
      return object->items[i];
  return NULL;
}
