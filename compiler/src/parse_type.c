/* Types: integers, index, floats, none, tensors, !tosa.shape, function types, and other dialect
 * types kept verbatim. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "parser_internal.h"
#include "print_internal.h"
#include "torq/base/checked.h"
#include "torq/formats/module.h"

static tqc_type_t *new_type(tqc_parser_t *p, tqc_type_kind_t kind) {
  tqc_type_t *t = tqc__calloc(p, 1, sizeof(*t));
  if (t) t->kind = kind;
  return t;
}

const tqc_type_t *tqc__int_type(tqc_parser_t *p, uint32_t width, tqc_signedness_t sign) {
  if (sign == TQC_SIGNLESS && width <= 64 && p->int_cache[width]) return p->int_cache[width];
  tqc_type_t *t = new_type(p, TQC_TYPE_INTEGER);
  if (!t) return NULL;
  t->integer.width = width;
  t->integer.signedness = sign;
  if (sign == TQC_SIGNLESS && width <= 64) p->int_cache[width] = t;
  return t;
}

const tqc_type_t *tqc__index_type(tqc_parser_t *p) {
  if (!p->index_type) {
    tqc_type_t *t = new_type(p, TQC_TYPE_INDEX);
    p->index_type = t;
  }
  return p->index_type;
}

const tqc_type_t *tqc__float_type(tqc_parser_t *p, tqc_float_kind_t kind) {
  static const uint32_t widths[4] = {16, 16, 32, 64};
  if (!p->float_cache[kind]) {
    tqc_type_t *t = new_type(p, TQC_TYPE_FLOAT);
    if (!t) return NULL;
    t->flt.fkind = kind;
    t->flt.width = widths[kind];
    p->float_cache[kind] = t;
  }
  return p->float_cache[kind];
}

const tqc_type_t *tqc__make_function_type(tqc_parser_t *p, size_t num_inputs,
                                          const tqc_type_t *const *inputs, size_t num_results,
                                          const tqc_type_t *const *results) {
  tqc_type_t *t = new_type(p, TQC_TYPE_FUNCTION);
  if (!t) return NULL;
  t->function.num_inputs = num_inputs;
  t->function.inputs = inputs;
  t->function.num_results = num_results;
  t->function.results = results;
  return t;
}

/* iN, siN, uiN with 1 <= N <= 64; 0 when `s` is not an integer type name. */
static int int_type_name(tq_sv_t s, uint32_t *out_width, tqc_signedness_t *out_sign) {
  size_t i = 0;
  tqc_signedness_t sign = TQC_SIGNLESS;
  if (s.len >= 2 && s.data[0] == 's' && s.data[1] == 'i') {
    sign = TQC_SIGNED;
    i = 2;
  } else if (s.len >= 2 && s.data[0] == 'u' && s.data[1] == 'i') {
    sign = TQC_UNSIGNED;
    i = 2;
  } else if (s.len >= 1 && s.data[0] == 'i') {
    i = 1;
  } else {
    return 0;
  }
  if (i == s.len || s.data[i] == '0') return 0;
  uint64_t w = 0;
  for (; i < s.len; i++) {
    if (s.data[i] < '0' || s.data[i] > '9') return 0;
    w = w * 10 + (uint64_t)(s.data[i] - '0');
    if (w > 1u << 24) return 0;
  }
  *out_width = (uint32_t)w;
  *out_sign = sign;
  return 1;
}

tq_status_t tqc__scan_balanced(tqc_parser_t *p, size_t *out_end) {
  const char *t = p->text;
  size_t n = p->text_len;
  size_t i = p->lex.at.pos;
  size_t depth = 0;
  if (i >= n || t[i] != '<') return tqc__expected(p, "'<'");
  for (; i < n; i++) {
    char c = t[i];
    if (c == '"') {
      for (i++; i < n && t[i] != '"'; i++) {
        if (t[i] == '\\') i++;
      }
      if (i >= n) break;
    } else if (c == '<' || c == '(' || c == '[' || c == '{') {
      depth++;
    } else if (c == '-' && i + 1 < n && t[i + 1] == '>') {
      i++;
    } else if (c == '>' || c == ')' || c == ']' || c == '}') {
      if (depth == 0) break;
      depth--;
      if (depth == 0) {
        if (c != '>') break;
        *out_end = i + 1;
        return NULL;
      }
    } else if (c == '\n') {
      break;
    }
  }
  return tqc__error(p, "unbalanced '<' in dialect text");
}

/* Moves the lexer to `end` (inside the current line) and lexes the next token. */
static void skip_to(tqc_parser_t *p, size_t end) {
  p->lex.at.pos = end;
  tqc__advance(p);
}

/* `type` as MLIR text, cut to fit `size`. */
static void type_text(const tqc_type_t *type, char *out, size_t size) {
  tq_buf_t b;
  tq_buf_init(&b, 0);
  tq_status_t st = tqc__print_type(type, &b);
  snprintf(out, size, "%s", !st && b.data ? b.data : "the tensor");
  tq_status_free(st);
  tq_buf_deinit(&b);
}

tq_status_t tqc__check_constant_size(tqc_parser_t *p, tqc_srcpos_t at, const tqc_type_t *type,
                                     size_t count, size_t elem_size) {
  size_t bytes = 0;
  int fits = tq_size_mul(count, elem_size, &bytes);
  if (fits && bytes <= TQF_BUFFER_MAX_BYTES) return NULL;
  char text[160];
  type_text(type, text, sizeof(text));
  char size[48];
  if (fits)
    snprintf(size, sizeof(size), "%zu bytes", bytes);
  else
    snprintf(size, sizeof(size), "more than %zu bytes", SIZE_MAX);
  return tqc__error_at(p, at.line, at.col,
                       "constant too large: %s holds %s, above the limit of %" PRIu64
                       " bytes for one tensor (the runtime loads no larger buffer)",
                       text, size, TQF_BUFFER_MAX_BYTES);
}

static tq_status_t parse_tensor(tqc_parser_t *p, const tqc_type_t **out) {
  tqc_srcpos_t at = {p->tok.line, p->tok.col};
  tqc_lexer_t *lx = &p->lex;
  const char *t = p->text;
  size_t n = p->text_len;
  tqc__lexer_skip_space(lx);
  if (lx->at.pos >= n || t[lx->at.pos] != '<') {
    tqc__advance(p);
    return tqc__expected(p, "'<' after 'tensor'");
  }
  lx->at.pos++;
  /* Dimensions are lexed by hand: MLIR's `4x64xi32` is one run of characters. */
  size_t mark = p->scratch.len;
  int ranked = 1;
  for (;;) {
    tqc__lexer_skip_space(lx);
    size_t i = lx->at.pos;
    int64_t dim;
    if (i < n && t[i] == '*') {
      ranked = 0;
      i++;
    } else if (i < n && t[i] == '?') {
      dim = TQC_DYNAMIC;
      i++;
    } else if (i < n && t[i] >= '0' && t[i] <= '9') {
      dim = 0;
      while (i < n && t[i] >= '0' && t[i] <= '9') {
        if (!tq_i64_mul(dim, 10, &dim) || !tq_i64_add(dim, t[i] - '0', &dim)) {
          tqc__advance(p);
          return tqc__error(p, "tensor dimension too large");
        }
        i++;
      }
    } else {
      break;
    }
    lx->at.pos = i;
    tqc__lexer_skip_space(lx);
    if (lx->at.pos >= n || t[lx->at.pos] != 'x') {
      tqc__advance(p);
      return tqc__expected(p, "'x' in tensor dimension list");
    }
    lx->at.pos++;
    if (!ranked) break;
    TQ_TRY(tqc__push(p, &dim, sizeof(dim)));
  }
  if (!ranked && p->scratch.len != mark) {
    tqc__advance(p);
    return tqc__error(p, "unranked tensor with dimensions");
  }
  void *dims = NULL;
  size_t bytes = 0;
  TQ_TRY(tqc__pop_to_arena(p, mark, &dims, &bytes));
  tqc__advance(p);
  const tqc_type_t *element = NULL;
  tqc_srcpos_t epos = {p->tok.line, p->tok.col};
  TQ_TRY(tqc__parse_type(p, &element));
  if (!tqc_type_is_scalar(element)) {
    return tqc__error_at(p, epos.line, epos.col, "invalid tensor element type");
  }
  const tqc_attr_t *encoding = NULL;
  if (tqc__accept(p, TQC_TOK_COMMA)) TQ_TRY(tqc__parse_attr(p, &encoding));
  TQ_TRY(tqc__expect(p, TQC_TOK_GREATER, "'>' to end the tensor type"));
  tqc_type_t *type = new_type(p, TQC_TYPE_TENSOR);
  if (!type) return tqc__nomem(p);
  type->tensor.ranked = ranked;
  type->tensor.rank = bytes / sizeof(int64_t);
  type->tensor.dims = dims;
  type->tensor.element = element;
  type->tensor.encoding = encoding;
  /* Sizes are size_t everywhere after this: a static type whose byte size does not fit is
   * refused here, where it is written. */
  int dynamic = !ranked;
  for (size_t i = 0; i < type->tensor.rank; i++) dynamic |= type->tensor.dims[i] == TQC_DYNAMIC;
  size_t type_bytes;
  if (!dynamic && !tqc_type_byte_size(type, &type_bytes)) {
    char text[160];
    type_text(type, text, sizeof(text));
    return tqc__error_at(p, at.line, at.col,
                         "tensor type too large: %s has more than %zu bytes (its size does not "
                         "fit in 64 bits)",
                         text, SIZE_MAX);
  }
  *out = type;
  return NULL;
}

/* A type list in parens, or a single type: the results of a function type. */
static tq_status_t parse_type_list(tqc_parser_t *p, int parens_open, size_t *out_count,
                                   const tqc_type_t *const **out_types) {
  size_t mark = p->scratch.len;
  if (!parens_open || !tqc__is(p, TQC_TOK_RPAREN)) {
    do {
      const tqc_type_t *t = NULL;
      TQ_TRY(tqc__parse_type(p, &t));
      TQ_TRY(tqc__push(p, &t, sizeof(t)));
    } while (parens_open && tqc__accept(p, TQC_TOK_COMMA));
  }
  if (parens_open) TQ_TRY(tqc__expect(p, TQC_TOK_RPAREN, "')' to end the type list"));
  void *items = NULL;
  size_t bytes = 0;
  TQ_TRY(tqc__pop_to_arena(p, mark, &items, &bytes));
  *out_count = bytes / sizeof(tqc_type_t *);
  *out_types = items;
  return NULL;
}

tq_status_t tqc__parse_function_type(tqc_parser_t *p, const tqc_type_t **out) {
  TQ_TRY(tqc__expect(p, TQC_TOK_LPAREN, "'(' to start a function type"));
  size_t ni = 0, nr = 0;
  const tqc_type_t *const *inputs = NULL, *const *results = NULL;
  TQ_TRY(parse_type_list(p, 1, &ni, &inputs));
  TQ_TRY(tqc__expect(p, TQC_TOK_ARROW, "'->' in a function type"));
  int paren = tqc__accept(p, TQC_TOK_LPAREN);
  TQ_TRY(parse_type_list(p, paren, &nr, &results));
  const tqc_type_t *t = tqc__make_function_type(p, ni, inputs, nr, results);
  if (!t) return tqc__nomem(p);
  *out = t;
  return NULL;
}

static tq_status_t parse_dialect_type(tqc_parser_t *p, const tqc_type_t **out) {
  tq_sv_t name = tq_sv(p->tok.text, p->tok.len);
  size_t *alias = tqc__map_find(&p->type_aliases, name);
  if (alias) {
    *out = (const tqc_type_t *)*alias;
    tqc__advance(p);
    return NULL;
  }
  if (tq_sv_eq_cstr(name, "!tosa.shape")) {
    tqc__advance(p);
    TQ_TRY(tqc__expect(p, TQC_TOK_LESS, "'<' after '!tosa.shape'"));
    if (!tqc__is(p, TQC_TOK_INTEGER) || p->tok.len > 18 || p->tok.text[1] == 'x') {
      return tqc__expected(p, "a rank");
    }
    size_t rank = 0;
    for (size_t i = 0; i < p->tok.len; i++) rank = rank * 10 + (size_t)(p->tok.text[i] - '0');
    tqc__advance(p);
    TQ_TRY(tqc__expect(p, TQC_TOK_GREATER, "'>' to end '!tosa.shape'"));
    tqc_type_t *t = new_type(p, TQC_TYPE_SHAPE);
    if (!t) return tqc__nomem(p);
    t->shape.rank = rank;
    *out = t;
    return NULL;
  }
  if (!memchr(name.data, '.', name.len)) {
    return tqc__error(p, "undefined type alias '%.*s'", (int)name.len, name.data);
  }
  size_t start = p->tok.offset, end = p->tok.offset + p->tok.len;
  if (tqc__next_char(p) == '<') TQ_TRY(tqc__scan_balanced(p, &end));
  tqc_type_t *t = new_type(p, TQC_TYPE_OPAQUE);
  if (!t) return tqc__nomem(p);
  t->opaque.text = tqc__strdup(p, p->text + start, end - start);
  if (!t->opaque.text.data) return tqc__nomem(p);
  skip_to(p, end);
  *out = t;
  return NULL;
}

tq_status_t tqc__parse_type(tqc_parser_t *p, const tqc_type_t **out) {
  TQ_TRY(tqc__enter(p));
  tq_status_t st = NULL;
  const tqc_type_t *t = NULL;
  if (tqc__is(p, TQC_TOK_LPAREN)) {
    st = tqc__parse_function_type(p, &t);
  } else if (tqc__is(p, TQC_TOK_EXCL_ID)) {
    st = parse_dialect_type(p, &t);
  } else if (tqc__is(p, TQC_TOK_BARE_ID)) {
    tq_sv_t s = tq_sv(p->tok.text, p->tok.len);
    uint32_t width;
    tqc_signedness_t sign;
    if (int_type_name(s, &width, &sign)) {
      if (width > 64) {
        st = tqc__error(p, "integer types wider than 64 bits are not supported");
      } else {
        t = tqc__int_type(p, width, sign);
        if (!t) st = tqc__nomem(p);
        tqc__advance(p);
      }
    } else if (tq_sv_eq_cstr(s, "tensor")) {
      st = parse_tensor(p, &t);
    } else {
      int known = 0;
      for (int k = TQC_BF16; k <= TQC_F64 && !known; k++) {
        if (tq_sv_eq_cstr(s, tqc__float_name((tqc_float_kind_t)k))) {
          t = tqc__float_type(p, (tqc_float_kind_t)k);
          known = 1;
        }
      }
      if (!known && tq_sv_eq_cstr(s, "index")) {
        t = tqc__index_type(p);
        known = 1;
      }
      if (!known && tq_sv_eq_cstr(s, "none")) {
        if (!p->none_type) p->none_type = new_type(p, TQC_TYPE_NONE);
        t = p->none_type;
        known = 1;
      }
      if (!known) {
        st = tqc__error(p, "unknown or unsupported type '%.*s'", (int)s.len, s.data);
      } else if (!t) {
        st = tqc__nomem(p);
      } else {
        tqc__advance(p);
      }
    }
  } else {
    st = tqc__expected(p, "a type");
  }
  tqc__leave(p);
  if (!st) *out = t;
  return st;
}
