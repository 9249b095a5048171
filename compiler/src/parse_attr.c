/* Attributes: numbers, bools, strings, types, arrays, dictionaries, dense elements, dense arrays,
 * symbol references, dialect attributes (verbatim) and aliases. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parser_internal.h"
#include "torq/base/alloc.h"
#include "torq/base/checked.h"

/* A numeric literal as written, before a type gives it meaning. */
typedef struct number_s {
  int neg, is_float, is_hex;
  uint64_t mag; /* integers */
  double fval;  /* floats, sign applied */
  uint32_t line, col;
} number_t;

static tqc_attr_t *new_attr(tqc_parser_t *p, tqc_attr_kind_t kind) {
  tqc_attr_t *a = tqc__calloc(p, 1, sizeof(*a));
  if (a) a->kind = kind;
  return a;
}

const tqc_attr_t *tqc__make_type_attr(tqc_parser_t *p, const tqc_type_t *type) {
  tqc_attr_t *a = new_attr(p, TQC_ATTR_TYPE);
  if (a) a->type = type;
  return a;
}

const tqc_attr_t *tqc__make_string_attr(tqc_parser_t *p, tq_sv_t s) {
  tqc_attr_t *a = new_attr(p, TQC_ATTR_STRING);
  if (!a) return NULL;
  a->string = tqc__strdup(p, s.data, s.len);
  return a->string.data ? a : NULL;
}

const tqc_attr_t *tqc__make_dialect_attr(tqc_parser_t *p, const char *name, tq_sv_t body) {
  tqc_attr_t *a = new_attr(p, TQC_ATTR_DIALECT);
  if (!a) return NULL;
  size_t nlen = strlen(name);
  size_t len = 1 + nlen + 1 + body.len + 1;
  char *text = tqc__alloc(p, len + 1);
  if (!text) return NULL;
  text[0] = '#';
  memcpy(text + 1, name, nlen);
  text[1 + nlen] = '<';
  memcpy(text + 2 + nlen, body.data, body.len);
  text[len - 1] = '>';
  text[len] = 0;
  a->dialect.text = tq_sv(text, len);
  a->dialect.name = tq_sv(text + 1, nlen);
  a->dialect.body = tq_sv(text + 2 + nlen, body.len);
  return a;
}

const tqc_attr_t *tqc__make_array_attr(tqc_parser_t *p, size_t count,
                                       const tqc_attr_t *const *items) {
  tqc_attr_t *a = new_attr(p, TQC_ATTR_ARRAY);
  if (!a) return NULL;
  a->array.count = count;
  a->array.items = items;
  return a;
}

const tqc_attr_t *tqc__make_dict_attr(tqc_parser_t *p, tqc_dict_t dict) {
  tqc_attr_t *a = new_attr(p, TQC_ATTR_DICT);
  if (a) a->dict = dict;
  return a;
}

static void store_bits(uint8_t *dst, uint64_t bits, size_t size) {
  for (size_t i = 0; i < size; i++) dst[i] = (uint8_t)(bits >> (8 * i));
}

const tqc_attr_t *tqc__make_dense_array(tqc_parser_t *p, const tqc_type_t *element,
                                        const int64_t *values, size_t count) {
  tqc_attr_t *a = new_attr(p, TQC_ATTR_DENSE_ARRAY);
  size_t es = tqc_type_storage_size(element);
  uint8_t *data = tqc__calloc(p, count ? count : 1, es);
  if (!a || !data) return NULL;
  for (size_t i = 0; i < count; i++) store_bits(data + i * es, (uint64_t)values[i], es);
  a->dense_array.element = element;
  a->dense_array.count = count;
  a->dense_array.data = data;
  return a;
}

/* ---- Numbers -------------------------------------------------------------------------------- */

static int is_number_start(const tqc_parser_t *p) {
  return tqc__is(p, TQC_TOK_INTEGER) || tqc__is(p, TQC_TOK_FLOAT) || tqc__is(p, TQC_TOK_MINUS);
}

static tq_status_t parse_number(tqc_parser_t *p, number_t *out) {
  memset(out, 0, sizeof(*out));
  out->line = p->tok.line;
  out->col = p->tok.col;
  if (tqc__accept(p, TQC_TOK_MINUS)) out->neg = 1;
  const tqc_token_t *t = &p->tok;
  if (t->kind == TQC_TOK_INTEGER) {
    uint64_t v = 0;
    if (t->len > 2 && t->text[1] == 'x') {
      out->is_hex = 1;
      for (size_t i = 2; i < t->len; i++) {
        char c = t->text[i];
        int d = c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
        if (v >> 60) return tqc__error(p, "hexadecimal literal out of range");
        v = v * 16 + (uint64_t)d;
      }
    } else {
      for (size_t i = 0; i < t->len; i++) {
        if (!tq_u64_mul(v, 10, &v) || !tq_u64_add(v, (uint64_t)(t->text[i] - '0'), &v)) {
          return tqc__error(p, "integer literal out of range");
        }
      }
    }
    out->mag = v;
  } else if (t->kind == TQC_TOK_FLOAT) {
    char buf[512];
    if (t->len >= sizeof(buf)) return tqc__error(p, "floating point literal too long");
    memcpy(buf, t->text, t->len);
    buf[t->len] = 0;
    out->is_float = 1;
    out->fval = strtod(buf, NULL);
    if (out->neg) out->fval = -out->fval;
  } else {
    return tqc__expected(p, "a number");
  }
  tqc__advance(p);
  return NULL;
}

/* Range check of an integer literal against an integer type; MLIR accepts both the signed and
 * the unsigned reading for signless types. */
static int int_fits(uint64_t mag, int neg, const tqc_type_t *type) {
  uint32_t w = type->kind == TQC_TYPE_INDEX ? 64 : type->integer.width;
  tqc_signedness_t s = type->kind == TQC_TYPE_INDEX ? TQC_SIGNLESS : type->integer.signedness;
  uint64_t half = (uint64_t)1 << (w - 1);
  uint64_t full = w == 64 ? UINT64_MAX : ((uint64_t)1 << w) - 1;
  if (neg) return s != TQC_UNSIGNED ? mag <= half : mag == 0;
  return s == TQC_SIGNED ? mag <= half - 1 : mag <= full;
}

/* The bit pattern of a number in a scalar type; errors say why it does not fit. */
static tq_status_t number_bits(tqc_parser_t *p, const number_t *n, const tqc_type_t *type,
                               uint64_t *out_bits) {
  if (type->kind == TQC_TYPE_INTEGER || type->kind == TQC_TYPE_INDEX) {
    if (n->is_float) {
      return tqc__error_at(p, n->line, n->col, "floating point literal for an integer type");
    }
    if (!int_fits(n->mag, n->neg, type)) {
      return tqc__error_at(p, n->line, n->col, "integer literal %s%llu does not fit the type",
                           n->neg ? "-" : "", (unsigned long long)n->mag);
    }
    *out_bits = n->neg ? (uint64_t)0 - n->mag : n->mag;
    return NULL;
  }
  if (type->kind == TQC_TYPE_FLOAT) {
    if (n->is_float) {
      *out_bits = tqc_float_encode(type->flt.fkind, n->fval);
      return NULL;
    }
    if (!n->is_hex || n->neg) {
      return tqc__error_at(p, n->line, n->col,
                           "unexpected decimal integer literal for a floating point value "
                           "(add a trailing '.' or write the bits in hexadecimal)");
    }
    if (type->flt.width < 64 && (n->mag >> type->flt.width) != 0) {
      return tqc__error_at(p, n->line, n->col, "hexadecimal float literal does not fit the type");
    }
    *out_bits = n->mag;
    return NULL;
  }
  return tqc__error_at(p, n->line, n->col, "a number needs an integer or float type");
}

/* The value an integer attribute keeps: sign-extended unless unsigned. */
static int64_t extend_bits(uint64_t bits, const tqc_type_t *type) {
  uint32_t w = type->kind == TQC_TYPE_INDEX ? 64 : type->integer.width;
  if (w == 64) return (int64_t)bits;
  bits &= ((uint64_t)1 << w) - 1;
  if (type->kind == TQC_TYPE_INTEGER && type->integer.signedness == TQC_UNSIGNED) {
    return (int64_t)bits;
  }
  uint64_t sign = (uint64_t)1 << (w - 1);
  return (int64_t)((bits ^ sign) - sign);
}

static tq_status_t parse_number_attr(tqc_parser_t *p, const tqc_attr_t **out) {
  number_t n;
  TQ_TRY(parse_number(p, &n));
  const tqc_type_t *type = NULL;
  if (tqc__accept(p, TQC_TOK_COLON)) {
    tqc_srcpos_t tp = {p->tok.line, p->tok.col};
    TQ_TRY(tqc__parse_type(p, &type));
    if (!tqc_type_is_scalar(type)) {
      return tqc__error_at(p, tp.line, tp.col, "expected an integer or float type");
    }
  } else {
    type = n.is_float ? tqc__float_type(p, TQC_F64) : tqc__int_type(p, 64, TQC_SIGNLESS);
    if (!type) return tqc__nomem(p);
  }
  uint64_t bits = 0;
  TQ_TRY(number_bits(p, &n, type, &bits));
  tqc_attr_t *a;
  if (type->kind == TQC_TYPE_FLOAT) {
    a = new_attr(p, TQC_ATTR_FLOAT);
    if (!a) return tqc__nomem(p);
    a->flt.type = type;
    a->flt.bits = bits;
    a->flt.value = tqc_float_decode(type->flt.fkind, bits);
  } else if (type->kind == TQC_TYPE_INTEGER && type->integer.width == 1 &&
             type->integer.signedness == TQC_SIGNLESS) {
    a = new_attr(p, TQC_ATTR_BOOL);
    if (!a) return tqc__nomem(p);
    a->boolean = (int)(bits & 1);
  } else {
    a = new_attr(p, TQC_ATTR_INTEGER);
    if (!a) return tqc__nomem(p);
    a->integer.type = type;
    a->integer.value = extend_bits(bits, type);
  }
  *out = a;
  return NULL;
}

/* ---- Dense elements ------------------------------------------------------------------------- */

static int is_bool_token(const tqc_parser_t *p) {
  return tqc__is_keyword(p, "true") || tqc__is_keyword(p, "false");
}

/* Skips one literal element (pass 1). */
static tq_status_t skip_element(tqc_parser_t *p) {
  if (is_bool_token(p)) {
    tqc__advance(p);
    return NULL;
  }
  tqc__accept(p, TQC_TOK_MINUS);
  if (!tqc__is(p, TQC_TOK_INTEGER) && !tqc__is(p, TQC_TOK_FLOAT)) {
    return tqc__expected(p, "an element literal");
  }
  tqc__advance(p);
  return NULL;
}

/* Converts one literal element to bits of `type` (pass 2). */
static tq_status_t element_bits(tqc_parser_t *p, const tqc_type_t *type, uint64_t *out_bits) {
  if (is_bool_token(p)) {
    if (type->kind != TQC_TYPE_INTEGER || type->integer.width != 1) {
      return tqc__error(p, "expected i1 type for 'true' or 'false' values");
    }
    *out_bits = tqc__is_keyword(p, "true");
    tqc__advance(p);
    return NULL;
  }
  number_t n;
  TQ_TRY(parse_number(p, &n));
  return number_bits(p, &n, type, out_bits);
}

typedef struct shape_scan_s {
  size_t *dims, *counts;
  size_t cap;
} shape_scan_t;

static tq_status_t scan_grow(tqc_parser_t *p, shape_scan_t *s, size_t depth) {
  if (depth < s->cap) return NULL;
  size_t cap = s->cap ? s->cap * 2 : 8;
  while (cap <= depth) cap *= 2;
  size_t *d = tq_realloc(s->dims, cap * sizeof(size_t));
  if (!d) return tqc__nomem(p);
  s->dims = d;
  size_t *c = tq_realloc(s->counts, cap * sizeof(size_t));
  if (!c) return tqc__nomem(p);
  s->counts = c;
  s->cap = cap;
  return NULL;
}

/* Pass 1 over a nested list: checks the structure and infers its shape (dims[1..rank]). */
static tq_status_t scan_list(tqc_parser_t *p, shape_scan_t *s, size_t *out_rank) {
  enum { ITEM, ITEM_OR_CLOSE, COMMA_OR_CLOSE } state = ITEM;
  size_t depth = 0, rank = 0, leaf = 0;
  for (;;) {
    if (tqc__is(p, TQC_TOK_LSQUARE) && state != COMMA_OR_CLOSE) {
      depth++;
      if (depth > p->max_nesting) {
        return tqc__error(p, "nesting deeper than the limit of %zu in a dense literal", p->max_nesting);
      }
      if (leaf && depth > leaf) return tqc__error(p, "inconsistent nesting in dense literal");
      TQ_TRY(scan_grow(p, s, depth));
      s->counts[depth] = 0;
      if (depth > rank) {
        rank = depth;
        s->dims[depth] = SIZE_MAX;
      }
      state = ITEM_OR_CLOSE;
      tqc__advance(p);
    } else if (tqc__is(p, TQC_TOK_RSQUARE) && state != ITEM) {
      if (s->dims[depth] == SIZE_MAX) {
        s->dims[depth] = s->counts[depth];
      } else if (s->dims[depth] != s->counts[depth]) {
        return tqc__error(p, "ragged dense literal: lists of different lengths (%zu and %zu)",
                          s->dims[depth], s->counts[depth]);
      }
      tqc__advance(p);
      if (--depth == 0) break;
      s->counts[depth]++;
      state = COMMA_OR_CLOSE;
    } else if (tqc__is(p, TQC_TOK_COMMA) && state == COMMA_OR_CLOSE) {
      state = ITEM;
      tqc__advance(p);
    } else if (state != COMMA_OR_CLOSE && !tqc__is(p, TQC_TOK_LSQUARE)) {
      if (!leaf) leaf = depth;
      if (depth != leaf || depth < rank) {
        return tqc__error(p, "inconsistent nesting in dense literal");
      }
      TQ_TRY(skip_element(p));
      s->counts[depth]++;
      state = COMMA_OR_CLOSE;
    } else {
      return tqc__expected(p, state == COMMA_OR_CLOSE ? "',' or ']'" : "an element or '['");
    }
  }
  if (leaf && leaf != rank) return tqc__error(p, "inconsistent nesting in dense literal");
  *out_rank = rank;
  return NULL;
}

static int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

static int all_equal(const uint8_t *data, size_t count, size_t es) {
  for (size_t i = 1; i < count; i++) {
    if (memcmp(data, data + i * es, es) != 0) return 0;
  }
  return 1;
}

static void format_shape(char *buf, size_t cap, const size_t *dims, size_t rank) {
  size_t o = 0;
  buf[0] = 0;
  for (size_t i = 0; i < rank && o + 24 < cap; i++) {
    o += (size_t)snprintf(buf + o, cap - o, "%s%zu", i ? ", " : "", dims[i]);
  }
  if (rank && o + 24 >= cap) snprintf(buf + o, cap - o, ", ...");
}

static tq_status_t parse_dense_body(tqc_parser_t *p, shape_scan_t *scan, const tqc_attr_t **out) {
  tqc_srcpos_t at = {p->tok.line, p->tok.col};
  tqc__advance(p);
  if (!tqc__is(p, TQC_TOK_LESS)) return tqc__expected(p, "'<' after 'dense'");
  tqc_lex_pos_t inner = p->lex.at;
  tqc__advance(p);
  int splat = 0, hex = 0, empty = 0;
  size_t rank = 0;
  tqc_token_t hex_tok = p->tok;
  if (tqc__is(p, TQC_TOK_STRING)) {
    hex = 1;
    tqc__advance(p);
  } else if (tqc__is(p, TQC_TOK_GREATER)) {
    empty = 1;
  } else if (tqc__is(p, TQC_TOK_LSQUARE)) {
    TQ_TRY(scan_list(p, scan, &rank));
  } else {
    splat = 1;
    TQ_TRY(skip_element(p));
  }
  TQ_TRY(tqc__expect(p, TQC_TOK_GREATER, "'>' to end the dense literal"));
  TQ_TRY(tqc__expect(p, TQC_TOK_COLON, "':' and a type after a dense literal"));
  tqc_srcpos_t tpos = {p->tok.line, p->tok.col};
  const tqc_type_t *type = NULL;
  TQ_TRY(tqc__parse_type(p, &type));
  size_t count = 0;
  if (type->kind != TQC_TYPE_TENSOR || !tqc_type_is_scalar(type->tensor.element) ||
      !tqc_type_element_count(type, &count)) {
    return tqc__error_at(p, tpos.line, tpos.col,
                         "dense elements need a static tensor type of integers or floats");
  }
  const tqc_type_t *et = type->tensor.element;
  size_t es = tqc_type_storage_size(et);
  TQ_TRY(tqc__check_constant_size(p, at, type, count, es));
  tqc_attr_t *a = new_attr(p, TQC_ATTR_DENSE);
  if (!a) return tqc__nomem(p);
  a->dense.type = type;
  a->dense.count = count;
  a->dense.elem_size = es;
  if (empty) {
    if (count != 0) {
      return tqc__error_at(p, at.line, at.col, "empty dense literal for a tensor of %zu elements",
                           count);
    }
    a->dense.data = tqc__alloc(p, 1);
    if (!a->dense.data) return tqc__nomem(p);
    *out = a;
    return NULL;
  }
  if (!hex && !splat) {
    int same = rank == type->tensor.rank;
    for (size_t i = 0; same && i < rank; i++) {
      same = (int64_t)scan->dims[i + 1] == type->tensor.dims[i];
    }
    if (!same) {
      char lit[128], ty[128];
      size_t tdims[16];
      size_t tr = type->tensor.rank < 16 ? type->tensor.rank : 16;
      for (size_t i = 0; i < tr; i++) tdims[i] = (size_t)type->tensor.dims[i];
      format_shape(lit, sizeof(lit), scan->dims + 1, rank);
      format_shape(ty, sizeof(ty), tdims, tr);
      return tqc__error_at(p, at.line, at.col,
                           "inferred shape of elements literal ([%s]) does not match type ([%s])",
                           lit, ty);
    }
  }
  size_t bytes;
  if (hex) {
    /* "0x" then two hex digits per byte, little endian. */
    const char *h = hex_tok.text + 1;
    size_t hl = hex_tok.len - 2;
    if (hl < 2 || h[0] != '0' || h[1] != 'x' || (hl - 2) % 2 != 0) {
      return tqc__error_at(p, hex_tok.line, hex_tok.col,
                           "expected a hexadecimal string \"0x...\" in a dense literal");
    }
    size_t nbytes = (hl - 2) / 2;
    size_t full = 0;
    if (!tq_size_mul(count, es, &full)) return tqc__error_at(p, at.line, at.col, "too large");
    int is_i1 = et->kind == TQC_TYPE_INTEGER && et->integer.width == 1;
    int packed = 0;
    if (is_i1) {
      /* MLIR packs i1 hex literals eight to a byte; one byte of 0x00 or 0xFF is a splat. */
      int hi = hex_digit(h[2]), lo = nbytes ? hex_digit(h[3]) : 0;
      int first = hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
      if (nbytes == 1 && count > 1 && (first == 0 || first == 0xFF)) {
        splat = 1;
      } else if (nbytes == (count + 7) / 8) {
        packed = 1;
        splat = 0;
      } else {
        return tqc__error_at(p, hex_tok.line, hex_tok.col,
                             "hex dense literal has %zu bytes, an i1 tensor of %zu needs %zu",
                             nbytes, count, (count + 7) / 8);
      }
    } else if (nbytes == es && count != 1) {
      splat = 1;
    } else if (nbytes != full) {
      return tqc__error_at(p, hex_tok.line, hex_tok.col,
                           "hex dense literal has %zu bytes, the type needs %zu", nbytes, full);
    }
    uint8_t *data = tqc__alloc(p, nbytes ? nbytes : 1);
    if (!data) return tqc__nomem(p);
    for (size_t i = 0; i < nbytes; i++) {
      int hi = hex_digit(h[2 + 2 * i]), lo = hex_digit(h[3 + 2 * i]);
      if (hi < 0 || lo < 0) {
        return tqc__error_at(p, hex_tok.line, hex_tok.col,
                             "invalid hexadecimal digit in a dense literal");
      }
      data[i] = (uint8_t)(hi * 16 + lo);
    }
    if (is_i1 && splat) data[0] &= 1;
    if (packed) {
      uint8_t *bits = data;
      data = tqc__alloc(p, count ? count : 1);
      if (!data) return tqc__nomem(p);
      for (size_t i = 0; i < count; i++) data[i] = (bits[i / 8] >> (i % 8)) & 1;
      nbytes = count;
    }
    a->dense.data = data;
    bytes = nbytes;
  } else {
    size_t n = splat ? 1 : count;
    if (!tq_size_mul(n, es, &bytes)) return tqc__error_at(p, at.line, at.col, "too large");
    uint8_t *data = tqc__alloc(p, bytes ? bytes : 1);
    if (!data) return tqc__nomem(p);
    /* Pass 2: lex the literal again, now that the element type is known. */
    tqc_lex_pos_t after = p->lex.at;
    tqc_token_t after_tok = p->tok;
    p->lex.at = inner;
    tqc__advance(p);
    size_t i = 0;
    while (i < n) {
      if (tqc__is(p, TQC_TOK_LSQUARE) || tqc__is(p, TQC_TOK_RSQUARE) ||
          tqc__is(p, TQC_TOK_COMMA)) {
        tqc__advance(p);
        continue;
      }
      uint64_t bits = 0;
      TQ_TRY(element_bits(p, et, &bits));
      store_bits(data + i * es, bits, es);
      i++;
    }
    p->lex.at = after;
    p->tok = after_tok;
    a->dense.data = data;
  }
  if (!splat && count > 1 && all_equal(a->dense.data, count, es)) splat = 1;
  if (splat) bytes = es;
  a->dense.splat = splat;
  a->dense.size = bytes;
  *out = a;
  return NULL;
}

static tq_status_t parse_dense(tqc_parser_t *p, const tqc_attr_t **out) {
  shape_scan_t scan = {NULL, NULL, 0};
  tq_status_t st = parse_dense_body(p, &scan, out);
  tq_free(scan.dims);
  tq_free(scan.counts);
  return st;
}

/* array<i64: 1, 2> */
static tq_status_t parse_dense_array(tqc_parser_t *p, const tqc_attr_t **out) {
  tqc__advance(p);
  TQ_TRY(tqc__expect(p, TQC_TOK_LESS, "'<' after 'array'"));
  tqc_srcpos_t tpos = {p->tok.line, p->tok.col};
  const tqc_type_t *et = NULL;
  TQ_TRY(tqc__parse_type(p, &et));
  if (et->kind != TQC_TYPE_INTEGER && et->kind != TQC_TYPE_FLOAT) {
    return tqc__error_at(p, tpos.line, tpos.col, "expected an integer or float element type");
  }
  size_t es = tqc_type_storage_size(et);
  size_t mark = p->scratch.len;
  if (tqc__accept(p, TQC_TOK_COLON)) {
    do {
      uint64_t bits = 0;
      uint8_t buf[8];
      TQ_TRY(element_bits(p, et, &bits));
      store_bits(buf, bits, es);
      TQ_TRY(tqc__push(p, buf, es));
    } while (tqc__accept(p, TQC_TOK_COMMA));
  }
  TQ_TRY(tqc__expect(p, TQC_TOK_GREATER, "'>' to end the array"));
  void *data = NULL;
  size_t bytes = 0;
  TQ_TRY(tqc__pop_to_arena(p, mark, &data, &bytes));
  tqc_attr_t *a = new_attr(p, TQC_ATTR_DENSE_ARRAY);
  if (!a) return tqc__nomem(p);
  a->dense_array.element = et;
  a->dense_array.count = bytes / es;
  a->dense_array.data = data;
  *out = a;
  return NULL;
}

/* ---- Compound attributes -------------------------------------------------------------------- */

static tq_status_t parse_array(tqc_parser_t *p, const tqc_attr_t **out) {
  tqc__advance(p);
  size_t mark = p->scratch.len;
  if (!tqc__is(p, TQC_TOK_RSQUARE)) {
    do {
      const tqc_attr_t *item = NULL;
      TQ_TRY(tqc__parse_attr(p, &item));
      TQ_TRY(tqc__push(p, &item, sizeof(item)));
    } while (tqc__accept(p, TQC_TOK_COMMA));
  }
  TQ_TRY(tqc__expect(p, TQC_TOK_RSQUARE, "']' to end the array"));
  void *items = NULL;
  size_t bytes = 0;
  TQ_TRY(tqc__pop_to_arena(p, mark, &items, &bytes));
  const tqc_attr_t *a = tqc__make_array_attr(p, bytes / sizeof(tqc_attr_t *), items);
  if (!a) return tqc__nomem(p);
  *out = a;
  return NULL;
}

static int cmp_named(const void *a, const void *b) {
  const tqc_named_attr_t *x = a, *y = b;
  size_t n = x->name.len < y->name.len ? x->name.len : y->name.len;
  int c = n ? memcmp(x->name.data, y->name.data, n) : 0;
  if (c) return c;
  return x->name.len < y->name.len ? -1 : x->name.len > y->name.len;
}

tq_status_t tqc__dict_finish(tqc_parser_t *p, tqc_named_attr_t *entries, size_t count,
                             tqc_srcpos_t at, tqc_dict_t *out) {
  if (count > 1) qsort(entries, count, sizeof(*entries), cmp_named);
  for (size_t i = 1; i < count; i++) {
    if (tq_sv_eq(entries[i - 1].name, entries[i].name)) {
      return tqc__error_at(p, at.line, at.col, "duplicate key '%.*s' in dictionary attribute",
                           (int)entries[i].name.len, entries[i].name.data);
    }
  }
  out->count = count;
  out->entries = entries;
  return NULL;
}

const char *tqc__enum_attr_name(tq_sv_t key) {
  if (tq_sv_eq_cstr(key, "rounding_mode")) return "tosa.rounding_mode";
  if (tq_sv_eq_cstr(key, "mode")) return "tosa.resize_mode";
  if (tq_sv_eq_cstr(key, "nan_mode")) return "tosa.nan_mode";
  return NULL;
}

static int is_attr_keyword(const tqc_parser_t *p) {
  static const char *const words[] = {"true", "false", "unit", "dense", "array", "tensor",
                                      "index", "none", "bf16", "f16", "f32", "f64"};
  for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
    if (tqc__is_keyword(p, words[i])) return 1;
  }
  return 0;
}

tq_status_t tqc__parse_dict(tqc_parser_t *p, const char *enum_op, tqc_dict_t *out) {
  tqc_srcpos_t at = {p->tok.line, p->tok.col};
  TQ_TRY(tqc__expect(p, TQC_TOK_LBRACE, "'{'"));
  TQ_TRY(tqc__enter(p));
  size_t mark = p->scratch.len;
  tq_status_t st = NULL;
  if (!tqc__is(p, TQC_TOK_RBRACE)) {
    do {
      tqc_named_attr_t e;
      if (tqc__is(p, TQC_TOK_BARE_ID)) {
        e.name = tq_sv(p->tok.text, p->tok.len);
      } else if (tqc__is(p, TQC_TOK_STRING)) {
        st = tqc__string_value(p, &p->tok, &e.name);
        if (!st && e.name.len == 0) st = tqc__error(p, "empty attribute name");
      } else {
        st = tqc__expected(p, "an attribute name");
      }
      if (st) break;
      tqc__advance(p);
      if (tqc__accept(p, TQC_TOK_EQUAL)) {
        const char *en = enum_op ? tqc__enum_attr_name(e.name) : NULL;
        if (en && tqc__is(p, TQC_TOK_BARE_ID) && !is_attr_keyword(p)) {
          e.value = tqc__make_dialect_attr(p, en, tq_sv(p->tok.text, p->tok.len));
          if (!e.value) st = tqc__nomem(p);
          tqc__advance(p);
        } else {
          st = tqc__parse_attr(p, &e.value);
        }
      } else {
        tqc_attr_t *u = new_attr(p, TQC_ATTR_UNIT);
        e.value = u;
        if (!u) st = tqc__nomem(p);
      }
      if (!st) st = tqc__push(p, &e, sizeof(e));
    } while (!st && tqc__accept(p, TQC_TOK_COMMA));
  }
  if (!st) st = tqc__expect(p, TQC_TOK_RBRACE, "'}' to end the dictionary");
  void *entries = NULL;
  size_t bytes = 0;
  if (!st) st = tqc__pop_to_arena(p, mark, &entries, &bytes);
  if (!st) st = tqc__dict_finish(p, entries, bytes / sizeof(tqc_named_attr_t), at, out);
  p->scratch.len = st ? mark : p->scratch.len;
  tqc__leave(p);
  return st;
}

static tq_status_t parse_symbol_ref(tqc_parser_t *p, const tqc_attr_t **out) {
  size_t mark = p->scratch.len;
  for (;;) {
    if (!tqc__is(p, TQC_TOK_AT_ID)) return tqc__expected(p, "a symbol");
    tq_sv_t name;
    if (p->tok.len > 1 && p->tok.text[1] == '"') {
      TQ_TRY(tqc__string_value(p, &p->tok, &name));
    } else {
      name = tq_sv(p->tok.text + 1, p->tok.len - 1);
    }
    TQ_TRY(tqc__push(p, &name, sizeof(name)));
    tqc__advance(p);
    if (!tqc__accept(p, TQC_TOK_COLON_COLON)) break;
  }
  void *names = NULL;
  size_t bytes = 0;
  TQ_TRY(tqc__pop_to_arena(p, mark, &names, &bytes));
  tqc_attr_t *a = new_attr(p, TQC_ATTR_SYMBOL_REF);
  if (!a) return tqc__nomem(p);
  a->symbol_ref.count = bytes / sizeof(tq_sv_t);
  a->symbol_ref.names = names;
  *out = a;
  return NULL;
}

/* #alias or #dialect.attr<...>, the latter kept verbatim. */
static tq_status_t parse_hash_attr(tqc_parser_t *p, const tqc_attr_t **out) {
  tq_sv_t name = tq_sv(p->tok.text, p->tok.len);
  size_t *alias = tqc__map_find(&p->attr_aliases, name);
  if (alias) {
    *out = (const tqc_attr_t *)*alias;
    tqc__advance(p);
    return NULL;
  }
  int angle = tqc__next_char(p) == '<';
  if (!angle && !memchr(name.data, '.', name.len)) {
    return tqc__error(p, "undefined attribute alias '%.*s'", (int)name.len, name.data);
  }
  size_t start = p->tok.offset, end = p->tok.offset + p->tok.len;
  if (angle) TQ_TRY(tqc__scan_balanced(p, &end));
  tqc_attr_t *a = new_attr(p, TQC_ATTR_DIALECT);
  if (!a) return tqc__nomem(p);
  a->dialect.text = tqc__strdup(p, p->text + start, end - start);
  if (!a->dialect.text.data) return tqc__nomem(p);
  a->dialect.name = tq_sv(a->dialect.text.data + 1, name.len - 1);
  if (angle) {
    a->dialect.body = tq_sv(a->dialect.text.data + name.len + 1, end - start - name.len - 2);
  } else {
    a->dialect.body = tq_sv(a->dialect.text.data + name.len, 0);
  }
  p->lex.at.pos = end;
  tqc__advance(p);
  *out = a;
  return NULL;
}

/* affine_map<...> and friends: builtin attributes this front end keeps as text. */
static tq_status_t parse_opaque_attr(tqc_parser_t *p, const tqc_attr_t **out) {
  size_t start = p->tok.offset, end = 0;
  TQ_TRY(tqc__scan_balanced(p, &end));
  tqc_attr_t *a = new_attr(p, TQC_ATTR_OPAQUE);
  if (!a) return tqc__nomem(p);
  a->opaque.text = tqc__strdup(p, p->text + start, end - start);
  if (!a->opaque.text.data) return tqc__nomem(p);
  p->lex.at.pos = end;
  tqc__advance(p);
  *out = a;
  return NULL;
}

static int is_opaque_attr_keyword(const tqc_parser_t *p) {
  static const char *const words[] = {"affine_map", "affine_set", "strided", "dense_resource",
                                      "sparse"};
  for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
    if (tqc__is_keyword(p, words[i])) return tqc__next_char(p) == '<';
  }
  return 0;
}

static tq_status_t parse_attr_inner(tqc_parser_t *p, const tqc_attr_t **out) {
  if (is_number_start(p)) return parse_number_attr(p, out);
  switch (p->tok.kind) {
  case TQC_TOK_STRING: {
    tq_sv_t s;
    TQ_TRY(tqc__string_value(p, &p->tok, &s));
    tqc_attr_t *a = new_attr(p, TQC_ATTR_STRING);
    if (!a) return tqc__nomem(p);
    a->string = s;
    tqc__advance(p);
    *out = a;
    return NULL;
  }
  case TQC_TOK_LSQUARE: return parse_array(p, out);
  case TQC_TOK_LBRACE: {
    tqc_dict_t d;
    TQ_TRY(tqc__parse_dict(p, NULL, &d));
    const tqc_attr_t *a = tqc__make_dict_attr(p, d);
    if (!a) return tqc__nomem(p);
    *out = a;
    return NULL;
  }
  case TQC_TOK_AT_ID: return parse_symbol_ref(p, out);
  case TQC_TOK_HASH_ID: return parse_hash_attr(p, out);
  case TQC_TOK_BARE_ID:
    if (is_bool_token(p)) {
      tqc_attr_t *a = new_attr(p, TQC_ATTR_BOOL);
      if (!a) return tqc__nomem(p);
      a->boolean = tqc__is_keyword(p, "true");
      tqc__advance(p);
      *out = a;
      return NULL;
    }
    if (tqc__is_keyword(p, "unit")) {
      tqc_attr_t *a = new_attr(p, TQC_ATTR_UNIT);
      if (!a) return tqc__nomem(p);
      tqc__advance(p);
      *out = a;
      return NULL;
    }
    if (tqc__is_keyword(p, "dense")) return parse_dense(p, out);
    if (tqc__is_keyword(p, "array") && tqc__next_char(p) == '<') return parse_dense_array(p, out);
    if (is_opaque_attr_keyword(p)) return parse_opaque_attr(p, out);
    break;
  case TQC_TOK_LPAREN:
  case TQC_TOK_EXCL_ID: break;
  default: return tqc__expected(p, "an attribute");
  }
  const tqc_type_t *t = NULL;
  TQ_TRY(tqc__parse_type(p, &t));
  const tqc_attr_t *a = tqc__make_type_attr(p, t);
  if (!a) return tqc__nomem(p);
  *out = a;
  return NULL;
}

tq_status_t tqc__parse_attr(tqc_parser_t *p, const tqc_attr_t **out) {
  TQ_TRY(tqc__enter(p));
  tq_status_t st = parse_attr_inner(p, out);
  tqc__leave(p);
  return st;
}
