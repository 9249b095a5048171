/* NumPy .npy read and write (npy.h). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "torq/base/checked.h"
#include "torq/base/file.h"
#include "torq/runtime/npy.h"

static const char npy_magic[6] = {'\x93', 'N', 'U', 'M', 'P', 'Y'};

static tq_status_t bad(const char *name, size_t offset, const char *fmt, ...) TQ_PRINTF(3, 4);
static tq_status_t bad(const char *name, size_t offset, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  return TQ_STATUS(TQ_INVALID_INPUT, "%s: offset %zu: %s", name, offset, msg);
}

/* The element type of a descr, or 0: its code names a type (element.h), and its byte-order mark
 * is little-endian ('<') or native ('=', this host being little-endian), or '|' for one byte. */
static Torq__ElementType type_of_descr(const char *d, size_t len) {
  if (len != 3) return TORQ__ELEMENT_TYPE__ELEMENT_TYPE_UNSPECIFIED;
  Torq__ElementType type = tqf_element_of_npy_code(d + 1);
  int one_byte = tqf_element_size(type) == 1;
  if (d[0] == '<' || d[0] == '=' || (one_byte && d[0] == '|')) return type;
  return TORQ__ELEMENT_TYPE__ELEMENT_TYPE_UNSPECIFIED;
}

/* A cursor over the header dict text. `base` is the file offset of text[0]. */
typedef struct cursor_s {
  const char *name;
  const char *text;
  size_t len, pos, base;
} cursor_t;

static void skip_ws(cursor_t *c) {
  while (c->pos < c->len && (c->text[c->pos] == ' ' || c->text[c->pos] == '\t' ||
                             c->text[c->pos] == '\n' || c->text[c->pos] == '\r'))
    c->pos++;
}

static int peek(const cursor_t *c) {
  return c->pos < c->len ? (unsigned char)c->text[c->pos] : -1;
}

static tq_status_t expect(cursor_t *c, char ch, const char *what) {
  skip_ws(c);
  if (peek(c) != ch) {
    if (peek(c) < 0)
      return bad(c->name, c->base + c->pos, "header ends where %s was expected", what);
    return bad(c->name, c->base + c->pos, "expected %s, found '%c'", what, c->text[c->pos]);
  }
  c->pos++;
  return NULL;
}

/* A Python string literal ('...' or "...", no escapes). */
static tq_status_t parse_string(cursor_t *c, const char **out, size_t *out_len) {
  skip_ws(c);
  int q = peek(c);
  if (q != '\'' && q != '"') {
    if (q < 0) return bad(c->name, c->base + c->pos, "header ends where a string was expected");
    return bad(c->name, c->base + c->pos, "expected a quoted string, found '%c'", q);
  }
  size_t start = ++c->pos;
  while (c->pos < c->len && c->text[c->pos] != q) {
    if (c->text[c->pos] == '\\')
      return bad(c->name, c->base + c->pos, "escapes in strings are not supported");
    c->pos++;
  }
  if (c->pos == c->len) return bad(c->name, c->base + start - 1, "unterminated string");
  *out = c->text + start;
  *out_len = c->pos - start;
  c->pos++;
  return NULL;
}

static int match_word(cursor_t *c, const char *word) {
  size_t n = strlen(word);
  if (c->len - c->pos < n || memcmp(c->text + c->pos, word, n) != 0) return 0;
  c->pos += n;
  return 1;
}

static tq_status_t parse_shape(cursor_t *c, size_t *out_rank, int64_t *dims) {
  TQ_TRY(expect(c, '(', "'(' to open the shape tuple"));
  size_t rank = 0;
  for (;;) {
    skip_ws(c);
    if (peek(c) == ')') {
      c->pos++;
      break;
    }
    size_t at = c->pos;
    if (peek(c) < '0' || peek(c) > '9')
      return bad(c->name, c->base + at, "expected a dim (a non-negative integer) or ')'");
    uint64_t v = 0;
    while (peek(c) >= '0' && peek(c) <= '9') {
      if (v > (uint64_t)(INT64_MAX - 9) / 10) return bad(c->name, c->base + at, "dim is too large");
      v = v * 10 + (uint64_t)(c->text[c->pos++] - '0');
    }
    if (peek(c) == 'L') c->pos++; /* Python 2 longs */
    if (rank == TQR_MAX_RANK) return bad(c->name, c->base + at, "more than %d dims", TQR_MAX_RANK);
    dims[rank++] = (int64_t)v;
    skip_ws(c);
    if (peek(c) == ',') {
      c->pos++;
    } else if (peek(c) != ')') {
      return bad(c->name, c->base + c->pos, "expected ',' or ')' in the shape tuple");
    }
  }
  *out_rank = rank;
  return NULL;
}

tq_status_t tqr_npy_decode(const char *name, const void *data, size_t len,
                           tqr_tensor_t **out_tensor) {
  *out_tensor = NULL;
  const uint8_t *b = data;
  if (len < 10 || memcmp(b, npy_magic, 6) != 0)
    return bad(name, 0, "not an npy file (no \\x93NUMPY magic)");
  uint8_t major = b[6], minor = b[7];
  size_t hlen, hstart;
  if (major == 1) {
    hlen = (size_t)b[8] | (size_t)b[9] << 8;
    hstart = 10;
  } else if (major == 2 || major == 3) {
    if (len < 12) return bad(name, 8, "file ends inside the header length");
    hlen = (size_t)b[8] | (size_t)b[9] << 8 | (size_t)b[10] << 16 | (size_t)b[11] << 24;
    hstart = 12;
  } else {
    return bad(name, 6, "npy format version %u.%u is not supported (1.0, 2.0 and 3.0 are)", major,
               minor);
  }
  if (hlen > len - hstart)
    return bad(name, 8, "header length %zu runs past the end of the file (%zu bytes)", hlen, len);
  cursor_t c = {.name = name, .text = (const char *)b + hstart, .len = hlen, .base = hstart};
  TQ_TRY(expect(&c, '{', "'{' to open the header dict"));
  const char *descr = NULL;
  size_t descr_len = 0, rank = 0, descr_at = 0;
  int have_fortran = 0, have_shape = 0;
  int64_t dims[TQR_MAX_RANK];
  for (;;) {
    skip_ws(&c);
    if (peek(&c) == '}') {
      c.pos++;
      break;
    }
    size_t key_at = c.pos;
    const char *key = NULL;
    size_t key_len = 0;
    TQ_TRY(parse_string(&c, &key, &key_len));
    TQ_TRY(expect(&c, ':', "':' after a key"));
    skip_ws(&c);
    if (key_len == 5 && !memcmp(key, "descr", 5)) {
      if (descr) return bad(name, hstart + key_at, "key 'descr' appears twice");
      descr_at = c.pos;
      TQ_TRY(parse_string(&c, &descr, &descr_len));
    } else if (key_len == 13 && !memcmp(key, "fortran_order", 13)) {
      if (have_fortran) return bad(name, hstart + key_at, "key 'fortran_order' appears twice");
      size_t at = c.pos;
      if (match_word(&c, "True"))
        return bad(name, hstart + at, "fortran_order True is not supported (C order only)");
      if (!match_word(&c, "False"))
        return bad(name, hstart + at, "fortran_order must be True or False");
      have_fortran = 1;
    } else if (key_len == 5 && !memcmp(key, "shape", 5)) {
      if (have_shape) return bad(name, hstart + key_at, "key 'shape' appears twice");
      TQ_TRY(parse_shape(&c, &rank, dims));
      have_shape = 1;
    } else {
      return bad(name, hstart + key_at, "unknown header key '%.*s'", (int)key_len, key);
    }
    skip_ws(&c);
    if (peek(&c) == ',') {
      c.pos++;
    } else if (peek(&c) < 0) {
      return bad(name, hstart + c.pos, "header ends where ',' or '}' was expected");
    } else if (peek(&c) != '}') {
      return bad(name, hstart + c.pos, "expected ',' or '}' after a value");
    }
  }
  skip_ws(&c);
  if (c.pos != c.len) return bad(name, hstart + c.pos, "unexpected text after the header dict");
  if (!descr) return bad(name, hstart, "the header has no 'descr'");
  if (!have_fortran) return bad(name, hstart, "the header has no 'fortran_order'");
  if (!have_shape) return bad(name, hstart, "the header has no 'shape'");
  /* A descr is printable ASCII; any other byte is named, never printed (a NUL would cut the
   * message short and make it name another descr). */
  for (size_t i = 0; i < descr_len; i++) {
    unsigned char ch = (unsigned char)descr[i];
    size_t at = (size_t)((const uint8_t *)descr + i - b);
    if (!ch) return bad(name, at, "descr holds a NUL byte (at its byte %zu)", i);
    if (ch < 0x20 || ch >= 0x7f)
      return bad(name, at, "descr holds the byte 0x%02x (at its byte %zu); a descr is ASCII", ch,
                 i);
  }
  Torq__ElementType type = type_of_descr(descr, descr_len);
  if (type == TORQ__ELEMENT_TYPE__ELEMENT_TYPE_UNSPECIFIED) {
    if (descr_len == 3 && descr[0] == '>')
      return bad(name, hstart + descr_at, "big-endian data ('%.*s') is not supported",
                 (int)descr_len, descr);
    return bad(name, hstart + descr_at,
               "descr '%.*s' is not supported (|b1 |i1 <i2 <i4 <i8 |u1 <u2 (bf16) <f2 <f4)",
               (int)descr_len, descr);
  }
  size_t data_at = hstart + hlen, size;
  tq_status_t st = tqr_tensor_byte_size(type, rank, dims, &size);
  if (st) {
    tq_status_free(st);
    return bad(name, hstart, "the shape's byte size overflows");
  }
  if (len - data_at != size)
    return bad(name, data_at, "%zu bytes of data, but the shape and descr need %zu", len - data_at,
               size);
  tqr_tensor_t *t;
  TQ_TRY(tqr_tensor_create(type, rank, dims, &t));
  if (size) memcpy(t->data, b + data_at, size);
  if (type == TORQ__ELEMENT_TYPE__I1)
    for (size_t i = 0; i < size; i++) t->data[i] = t->data[i] != 0;
  *out_tensor = t;
  return NULL;
}

tq_status_t tqr_npy_read(const char *path, size_t max_bytes, tqr_tensor_t **out_tensor) {
  *out_tensor = NULL;
  tq_buf_t buf;
  tq_status_t st = tq_file_read(path, max_bytes, &buf);
  if (!st) st = tqr_npy_decode(path, buf.data ? buf.data : "", buf.len, out_tensor);
  tq_buf_deinit(&buf);
  return st;
}

tq_status_t tqr_npy_encode(const tqr_tensor_t *tensor, tq_buf_t *out) {
  const char *descr = tqf_element_info(tensor->type)->npy_descr;
  if (!descr)
    return TQ_STATUS(TQ_INVALID_ARGUMENT, "%s tensors have no npy form (write a .bin file)",
                     tqf_element_name(tensor->type));
  char header[256];
  int n =
      snprintf(header, sizeof(header), "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
  for (size_t i = 0; i < tensor->rank; i++)
    n += snprintf(header + n, sizeof(header) - (size_t)n, "%s%" PRId64, i ? ", " : "",
                  tensor->dims[i]);
  n += snprintf(header + n, sizeof(header) - (size_t)n, "%s), }", tensor->rank == 1 ? "," : "");
  /* Pad with spaces and a final newline so that the data starts at a multiple of 64. */
  size_t hlen = (size_t)n + 1;
  size_t total = 10 + hlen;
  size_t pad = (64 - total % 64) % 64;
  hlen += pad;
  uint8_t pre[10];
  memcpy(pre, npy_magic, 6);
  pre[6] = 1;
  pre[7] = 0;
  pre[8] = (uint8_t)(hlen & 0xff);
  pre[9] = (uint8_t)(hlen >> 8);
  TQ_TRY(tq_buf_append(out, pre, sizeof(pre)));
  TQ_TRY(tq_buf_append(out, header, (size_t)n));
  for (size_t i = 0; i < pad; i++) TQ_TRY(tq_buf_putc(out, ' '));
  TQ_TRY(tq_buf_putc(out, '\n'));
  if (tensor->size) TQ_TRY(tq_buf_append(out, tensor->data, tensor->size));
  return NULL;
}

tq_status_t tqr_npy_write(const char *path, const tqr_tensor_t *tensor) {
  tq_buf_t buf;
  tq_buf_init(&buf, 0);
  tq_status_t st = tqr_npy_encode(tensor, &buf);
  if (!st) st = tq_file_write_atomic(path, buf.data ? buf.data : "", buf.len);
  tq_buf_deinit(&buf);
  return st;
}
