/* The parser: module entry points, token helpers, regions, blocks and generic operations. SSA
 * value and block names are in parse_names.c, custom op forms in parse_custom.c. */
#include <stdio.h>
#include <string.h>

#include "parser_internal.h"
#include "torq/base/alloc.h"
#include "torq/base/checked.h"
#include "torq/base/file.h"

void tqc_parse_options_initialize(tqc_parse_options_t *options) {
  options->max_file_size = (size_t)256 << 20;
  options->max_nesting = 1000;
  options->max_arena_bytes = (size_t)4 << 30;
}

/* ---- Tokens and errors ---------------------------------------------------------------------- */

void tqc__advance(tqc_parser_t *p) { p->tok = tqc__lexer_next(&p->lex); }

int tqc__is(const tqc_parser_t *p, tqc_tok_kind_t kind) { return p->tok.kind == kind; }

int tqc__is_keyword(const tqc_parser_t *p, const char *word) {
  size_t n = strlen(word);
  return p->tok.kind == TQC_TOK_BARE_ID && p->tok.len == n && memcmp(p->tok.text, word, n) == 0;
}

int tqc__accept(tqc_parser_t *p, tqc_tok_kind_t kind) {
  if (p->tok.kind != kind) return 0;
  tqc__advance(p);
  return 1;
}

int tqc__accept_keyword(tqc_parser_t *p, const char *word) {
  if (!tqc__is_keyword(p, word)) return 0;
  tqc__advance(p);
  return 1;
}

int tqc__next_char(const tqc_parser_t *p) {
  return p->lex.at.pos < p->text_len ? (unsigned char)p->text[p->lex.at.pos] : 0;
}

tq_status_t tqc__error_at(tqc_parser_t *p, uint32_t line, uint32_t col, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tq_status_t st = tqc__diagv(p->path, p->text, p->text_len, line, col, fmt, ap);
  va_end(ap);
  return st;
}

tq_status_t tqc__error(tqc_parser_t *p, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tq_status_t st = tqc__diagv(p->path, p->text, p->text_len, p->tok.line, p->tok.col, fmt, ap);
  va_end(ap);
  return st;
}

tq_status_t tqc__expected(tqc_parser_t *p, const char *what) {
  const tqc_token_t *t = &p->tok;
  if (t->kind == TQC_TOK_ERROR) return tqc__error(p, "%s", p->lex.error);
  if (t->kind == TQC_TOK_EOF) return tqc__error(p, "expected %s, found end of file", what);
  int n = t->len > 40 ? 40 : (int)t->len;
  return tqc__error(p, "expected %s, found '%.*s'%s", what, n, t->text, t->len > 40 ? "..." : "");
}

tq_status_t tqc__expect(tqc_parser_t *p, tqc_tok_kind_t kind, const char *what) {
  if (tqc__accept(p, kind)) return NULL;
  return tqc__expected(p, what);
}

tq_status_t tqc__nomem(tqc_parser_t *p) {
  if (p->arena->limit && p->arena->total + p->arena->block_size >= p->arena->limit) {
    return tqc__error(p, "the IR needs more than the limit of %zu bytes", p->arena->limit);
  }
  return TQ_STATUS(TQ_OUT_OF_MEMORY, "%s: out of memory while parsing", p->path);
}

tq_status_t tqc__enter(tqc_parser_t *p) {
  if (p->depth >= p->max_nesting) {
    return tqc__error(p, "nesting deeper than the limit of %zu", p->max_nesting);
  }
  p->depth++;
  return NULL;
}

/* ---- Memory --------------------------------------------------------------------------------- */

void *tqc__alloc(tqc_parser_t *p, size_t size) { return tq_arena_alloc(p->arena, size); }

void *tqc__calloc(tqc_parser_t *p, size_t count, size_t size) {
  return tq_arena_calloc(p->arena, count, size);
}

tq_sv_t tqc__strdup(tqc_parser_t *p, const char *s, size_t len) {
  char *d = tq_arena_strndup(p->arena, s, len);
  return tq_sv(d, d ? len : 0);
}

tq_status_t tqc__string_value(tqc_parser_t *p, const tqc_token_t *tok, tq_sv_t *out) {
  char *d = tqc__alloc(p, tok->len + 1);
  if (!d) return tqc__nomem(p);
  size_t n = tqc__string_decode(tok, d);
  d[n] = 0;
  *out = tq_sv(d, n);
  return NULL;
}

tq_status_t tqc__push(tqc_parser_t *p, const void *item, size_t size) {
  tq_status_t st = tq_buf_append(&p->scratch, item, size);
  if (st) {
    tq_status_free(st);
    return tqc__nomem(p);
  }
  return NULL;
}

tq_status_t tqc__pop_to_arena(tqc_parser_t *p, size_t mark, void **out, size_t *out_bytes) {
  size_t bytes = p->scratch.len - mark;
  void *d = tqc__alloc(p, bytes ? bytes : 1);
  if (!d) return tqc__nomem(p);
  if (bytes) memcpy(d, p->scratch.data + mark, bytes);
  p->scratch.len = mark;
  *out = d;
  *out_bytes = bytes;
  return NULL;
}

/* ---- Ops ------------------------------------------------------------------------------------ */

tqc_op_t *tqc__new_op(tqc_parser_t *p, const char *name, tqc_srcpos_t pos) {
  tqc_op_t *op = tqc__calloc(p, 1, sizeof(*op));
  if (!op) return NULL;
  op->name = tqc__strdup(p, name, strlen(name));
  if (!op->name.data) return NULL;
  op->pos = pos;
  return op;
}

int tqc__op_is_isolated(tq_sv_t name) {
  return tq_sv_eq_cstr(name, "func.func") || tq_sv_eq_cstr(name, "builtin.module");
}

static tq_status_t parse_operation(tqc_parser_t *p, tqc_block_t *block);

/* Copies regions parsed one by one into the op's array and repoints their blocks. */
static tq_status_t attach_regions(tqc_parser_t *p, tqc_op_t *op, tqc_region_t *const *parsed,
                                  size_t count) {
  tqc_region_t *regions = tqc__calloc(p, count ? count : 1, sizeof(*regions));
  if (!regions) return tqc__nomem(p);
  for (size_t i = 0; i < count; i++) {
    regions[i] = *parsed[i];
    for (size_t b = 0; b < regions[i].num_blocks; b++) regions[i].blocks[b]->parent = &regions[i];
  }
  op->regions = regions;
  op->num_regions = count;
  return NULL;
}

tq_status_t tqc__parse_region(tqc_parser_t *p, tqc_op_t *parent, tqc_region_t *region,
                              tqc_value_t *const *entry_args, const tqc_srcpos_t *entry_pos,
                              size_t num_entry_args, int isolated) {
  TQ_TRY(tqc__expect(p, TQC_TOK_LBRACE, "'{' to start a region"));
  TQ_TRY(tqc__enter(p));
  TQ_TRY(tqc__push_scope(p, isolated));
  tq_status_t st = NULL;
  size_t mark = p->scratch.len;
  region->parent = parent;
  if (entry_args) {
    tqc_block_t *b = tqc__new_block(p);
    if (!b) st = tqc__nomem(p);
    for (size_t i = 0; !st && i < num_entry_args; i++) {
      tqc_value_t *v = entry_args[i];
      v->block = b;
      v->index = i;
      st = tqc__define_value(p, v->name, entry_pos[i], &v);
      ((tqc_value_t **)entry_args)[i] = v;
    }
    if (!st) {
      b->num_args = num_entry_args;
      b->args = entry_args;
      st = tqc__push(p, &b, sizeof(b));
    }
    while (!st && !tqc__is(p, TQC_TOK_RBRACE) && !tqc__is(p, TQC_TOK_CARET_ID) &&
           !tqc__is(p, TQC_TOK_EOF)) {
      st = parse_operation(p, b);
    }
  } else if (!tqc__is(p, TQC_TOK_RBRACE) && !tqc__is(p, TQC_TOK_CARET_ID)) {
    tqc_block_t *b = tqc__new_block(p);
    if (!b) st = tqc__nomem(p);
    if (!st) st = tqc__push(p, &b, sizeof(b));
    while (!st && !tqc__is(p, TQC_TOK_RBRACE) && !tqc__is(p, TQC_TOK_CARET_ID) &&
           !tqc__is(p, TQC_TOK_EOF)) {
      st = parse_operation(p, b);
    }
  }
  while (!st && tqc__is(p, TQC_TOK_CARET_ID)) {
    tq_sv_t name = tq_sv(p->tok.text, p->tok.len);
    tqc_srcpos_t pos = {p->tok.line, p->tok.col};
    tqc_block_t *b = NULL;
    st = tqc__define_block(p, name, pos, &b);
    if (!b) break;
    tqc__advance(p);
    if (!st) st = tqc__push(p, &b, sizeof(b));
    size_t amark = p->scratch.len;
    if (!st && tqc__accept(p, TQC_TOK_LPAREN)) {
      size_t i = 0;
      do {
        tqc_value_t *v = tqc__new_value(p);
        if (!v) {
          st = tqc__nomem(p);
          break;
        }
        if (!tqc__is(p, TQC_TOK_PERCENT_ID)) {
          st = tqc__expected(p, "a block argument");
          break;
        }
        tq_sv_t vname = tq_sv(p->tok.text, p->tok.len);
        tqc_srcpos_t vpos = {p->tok.line, p->tok.col};
        tqc__advance(p);
        st = tqc__expect(p, TQC_TOK_COLON, "':' and the argument type");
        v->type_pos = (tqc_srcpos_t){p->tok.line, p->tok.col};
        if (!st) st = tqc__parse_type(p, &v->type);
        if (!st && tqc__is_keyword(p, "loc")) st = tqc__parse_loc(p, &v->loc);
        if (!st && !v->loc) {
          v->loc = tqc__make_file_loc(p, vpos.line, vpos.col);
          if (!v->loc) st = tqc__nomem(p);
        }
        v->block = b;
        v->index = i++;
        if (!st) st = tqc__define_value(p, vname, vpos, &v);
        if (!st) st = tqc__push(p, &v, sizeof(v));
      } while (!st && tqc__accept(p, TQC_TOK_COMMA));
      if (!st) st = tqc__expect(p, TQC_TOK_RPAREN, "')' to end the block arguments");
    }
    void *args = NULL;
    size_t bytes = 0;
    if (!st) st = tqc__pop_to_arena(p, amark, &args, &bytes);
    if (!st) {
      b->args = args;
      b->num_args = bytes / sizeof(tqc_value_t *);
      st = tqc__expect(p, TQC_TOK_COLON, "':' after the block label");
    }
    while (!st && !tqc__is(p, TQC_TOK_RBRACE) && !tqc__is(p, TQC_TOK_CARET_ID) &&
           !tqc__is(p, TQC_TOK_EOF)) {
      st = parse_operation(p, b);
    }
  }
  if (!st) st = tqc__expect(p, TQC_TOK_RBRACE, "'}' to end the region");
  for (size_t i = p->scopes[p->num_scopes - 1].entries_start; !st && i < p->num_entries; i++) {
    /* Blocks used but never defined; undefined values are left to the verifier. */
    const tqc_name_entry_t *e = &p->entries[i];
    if (e->forward && e->name.len && e->name.data[0] == '^') {
      st = tqc__error_at(p, e->pos.line, e->pos.col, "reference to an undefined block '%.*s'",
                         (int)e->name.len, e->name.data);
    }
  }
  void *blocks = NULL;
  size_t bytes = 0;
  if (!st) st = tqc__pop_to_arena(p, mark, &blocks, &bytes);
  if (st) p->scratch.len = mark;
  tqc__pop_scope(p);
  tqc__leave(p);
  if (st) return st;
  region->blocks = blocks;
  region->num_blocks = bytes / sizeof(tqc_block_t *);
  for (size_t i = 0; i < region->num_blocks; i++) region->blocks[i]->parent = region;
  return NULL;
}

static tq_status_t make_results(tqc_parser_t *p, tqc_op_t *op, size_t count,
                                const tqc_type_t *const *types) {
  tqc_value_t **results = tqc__calloc(p, count ? count : 1, sizeof(*results));
  if (!results) return tqc__nomem(p);
  for (size_t i = 0; i < count; i++) {
    results[i] = tqc__new_value(p);
    if (!results[i]) return tqc__nomem(p);
    results[i]->type = types[i];
    results[i]->def = op;
    results[i]->index = i;
  }
  op->results = results;
  op->num_results = count;
  return NULL;
}

tq_status_t tqc__finish_op_types(tqc_parser_t *p, tqc_op_t *op, const tqc_type_t *fn) {
  op->num_operand_types = fn->function.num_inputs;
  op->operand_types = fn->function.inputs;
  return make_results(p, op, fn->function.num_results, fn->function.results);
}

tq_status_t tqc__set_operands(tqc_parser_t *p, tqc_op_t *op, const tqc_operand_ref_t *refs,
                              size_t count) {
  tqc_value_t **values = tqc__calloc(p, count ? count : 1, sizeof(*values));
  tqc_srcpos_t *pos = tqc__calloc(p, count ? count : 1, sizeof(*pos));
  if (!values || !pos) return tqc__nomem(p);
  for (size_t i = 0; i < count; i++) {
    values[i] = refs[i].value;
    pos[i] = refs[i].pos;
  }
  op->operands = values;
  op->operand_pos = pos;
  op->num_operands = count;
  return NULL;
}

/* "dialect.op"(%a) [^bb] <{props}> ({regions}) {attrs} : (T) -> T */
static tq_status_t parse_generic_op(tqc_parser_t *p, tqc_op_t **out) {
  tqc_srcpos_t pos = {p->tok.line, p->tok.col};
  tq_sv_t name;
  TQ_TRY(tqc__string_value(p, &p->tok, &name));
  if (name.len == 0 || memchr(name.data, 0, name.len)) {
    return tqc__error(p, "invalid operation name");
  }
  tqc__advance(p);
  tqc_op_t *op = tqc__calloc(p, 1, sizeof(*op));
  if (!op) return tqc__nomem(p);
  op->name = name;
  op->pos = pos;
  TQ_TRY(tqc__expect(p, TQC_TOK_LPAREN, "'(' and the operands"));
  size_t mark = p->scratch.len;
  if (!tqc__is(p, TQC_TOK_RPAREN)) {
    do {
      tqc_operand_ref_t r;
      TQ_TRY(tqc__parse_value_use(p, &r.value, &r.pos));
      TQ_TRY(tqc__push(p, &r, sizeof(r)));
    } while (tqc__accept(p, TQC_TOK_COMMA));
  }
  TQ_TRY(tqc__expect(p, TQC_TOK_RPAREN, "')' to end the operands"));
  void *data = NULL;
  size_t bytes = 0;
  TQ_TRY(tqc__pop_to_arena(p, mark, &data, &bytes));
  TQ_TRY(tqc__set_operands(p, op, data, bytes / sizeof(tqc_operand_ref_t)));
  if (tqc__accept(p, TQC_TOK_LSQUARE)) {
    mark = p->scratch.len;
    do {
      tqc_block_t *b = NULL;
      TQ_TRY(tqc__parse_block_use(p, &b));
      TQ_TRY(tqc__push(p, &b, sizeof(b)));
    } while (tqc__accept(p, TQC_TOK_COMMA));
    TQ_TRY(tqc__expect(p, TQC_TOK_RSQUARE, "']' to end the successors"));
    TQ_TRY(tqc__pop_to_arena(p, mark, &data, &bytes));
    op->successors = data;
    op->num_successors = bytes / sizeof(tqc_block_t *);
  }
  if (tqc__accept(p, TQC_TOK_LESS)) {
    TQ_TRY(tqc__parse_dict(p, NULL, &op->properties));
    TQ_TRY(tqc__expect(p, TQC_TOK_GREATER, "'>' to end the properties"));
  }
  if (tqc__accept(p, TQC_TOK_LPAREN)) {
    mark = p->scratch.len;
    do {
      tqc_region_t *r = tqc__calloc(p, 1, sizeof(*r));
      if (!r) return tqc__nomem(p);
      TQ_TRY(tqc__parse_region(p, op, r, NULL, NULL, 0, tqc__op_is_isolated(op->name)));
      TQ_TRY(tqc__push(p, &r, sizeof(r)));
    } while (tqc__accept(p, TQC_TOK_COMMA));
    TQ_TRY(tqc__expect(p, TQC_TOK_RPAREN, "')' to end the regions"));
    TQ_TRY(tqc__pop_to_arena(p, mark, &data, &bytes));
    TQ_TRY(attach_regions(p, op, data, bytes / sizeof(tqc_region_t *)));
  }
  if (tqc__is(p, TQC_TOK_LBRACE)) TQ_TRY(tqc__parse_dict(p, NULL, &op->attributes));
  TQ_TRY(tqc__expect(p, TQC_TOK_COLON, "':' and the operation type"));
  tqc_srcpos_t tpos = {p->tok.line, p->tok.col};
  const tqc_type_t *fn = NULL;
  TQ_TRY(tqc__parse_type(p, &fn));
  if (fn->kind != TQC_TYPE_FUNCTION) {
    return tqc__error_at(p, tpos.line, tpos.col, "expected a function type for the operation");
  }
  TQ_TRY(tqc__finish_op_types(p, op, fn));
  TQ_TRY(tqc__add_default_attrs(p, op));
  *out = op;
  return NULL;
}

typedef struct result_name_s {
  tq_sv_t name;
  size_t count;
  tqc_srcpos_t pos;
} result_name_t;

static tq_status_t bind_results(tqc_parser_t *p, tqc_op_t *op, const result_name_t *names,
                                size_t num_names) {
  size_t k = 0;
  for (size_t i = 0; i < num_names; i++) {
    for (size_t j = 0; j < names[i].count; j++, k++) {
      if (k >= op->num_results) continue;
      tq_sv_t key = names[i].name;
      if (j > 0) {
        char num[32];
        int n = snprintf(num, sizeof(num), "#%zu", j);
        char *d = tqc__alloc(p, key.len + (size_t)n + 1);
        if (!d) return tqc__nomem(p);
        memcpy(d, key.data, key.len);
        memcpy(d + key.len, num, (size_t)n + 1);
        key = tq_sv(d, key.len + (size_t)n);
      }
      tqc_value_t *v = op->results[k];
      TQ_TRY(tqc__define_value(p, key, names[i].pos, &v));
      ((tqc_value_t **)op->results)[k] = v;
    }
  }
  op->num_bound_results = k;
  return NULL;
}

static tq_status_t parse_operation(tqc_parser_t *p, tqc_block_t *block) {
  size_t mark = p->scratch.len;
  if (tqc__is(p, TQC_TOK_PERCENT_ID)) {
    do {
      if (!tqc__is(p, TQC_TOK_PERCENT_ID)) return tqc__expected(p, "a result name");
      result_name_t r = {tq_sv(p->tok.text, p->tok.len), 1, {p->tok.line, p->tok.col}};
      tqc__advance(p);
      if (tqc__accept(p, TQC_TOK_COLON)) {
        if (!tqc__is(p, TQC_TOK_INTEGER) || p->tok.len > 9 || p->tok.text[1] == 'x') {
          return tqc__expected(p, "a result count");
        }
        r.count = 0;
        for (size_t i = 0; i < p->tok.len; i++) r.count = r.count * 10 + (size_t)(p->tok.text[i] - '0');
        if (r.count == 0) return tqc__error(p, "a result group needs at least one result");
        tqc__advance(p);
      }
      TQ_TRY(tqc__push(p, &r, sizeof(r)));
    } while (tqc__accept(p, TQC_TOK_COMMA));
    TQ_TRY(tqc__expect(p, TQC_TOK_EQUAL, "'=' after the result names"));
  }
  /* The names stay on the scratch stack while the op parses (it pushes and pops above them). */
  tqc_op_t *op = NULL;
  if (tqc__is(p, TQC_TOK_STRING)) {
    TQ_TRY(parse_generic_op(p, &op));
  } else if (tqc__is(p, TQC_TOK_BARE_ID)) {
    TQ_TRY(tqc__parse_custom_op(p, &op));
  } else {
    return tqc__expected(p, "an operation");
  }
  if (tqc__is_keyword(p, "loc") && tqc__next_char(p) == '(') {
    TQ_TRY(tqc__parse_loc(p, &op->loc));
  }
  if (!op->loc) {
    op->loc = tqc__make_file_loc(p, op->pos.line, op->pos.col);
    if (!op->loc) return tqc__nomem(p);
  }
  size_t num_names = (p->scratch.len - mark) / sizeof(result_name_t);
  result_name_t *names = tq_malloc(num_names ? num_names * sizeof(*names) : 1);
  if (!names) return tqc__nomem(p);
  if (num_names) memcpy(names, p->scratch.data + mark, num_names * sizeof(*names));
  p->scratch.len = mark;
  tq_status_t st = bind_results(p, op, names, num_names);
  tq_free(names);
  TQ_TRY(st);
  op->parent = block;
  if (block->last) {
    block->last->next = op;
  } else {
    block->first = op;
  }
  block->last = op;
  block->num_ops++;
  return NULL;
}

/* ---- Top level ------------------------------------------------------------------------------ */

static tq_status_t parse_alias(tqc_parser_t *p) {
  int is_type = tqc__is(p, TQC_TOK_EXCL_ID);
  tq_sv_t name = tq_sv(p->tok.text, p->tok.len);
  tqc_srcpos_t pos = {p->tok.line, p->tok.col};
  tqc__advance(p);
  TQ_TRY(tqc__expect(p, TQC_TOK_EQUAL, "'=' in an alias definition"));
  tqc_map_t *map;
  size_t value;
  if (is_type) {
    const tqc_type_t *t = NULL;
    TQ_TRY(tqc__parse_type(p, &t));
    map = &p->type_aliases;
    value = (size_t)t;
  } else if (tqc__is_keyword(p, "loc") && tqc__next_char(p) == '(') {
    const tqc_loc_t *l = NULL;
    TQ_TRY(tqc__parse_loc(p, &l));
    map = &p->loc_aliases;
    value = (size_t)l;
  } else {
    const tqc_attr_t *a = NULL;
    TQ_TRY(tqc__parse_attr(p, &a));
    map = &p->attr_aliases;
    value = (size_t)a;
  }
  if (tqc__map_find(&p->type_aliases, name) || tqc__map_find(&p->attr_aliases, name) ||
      tqc__map_find(&p->loc_aliases, name)) {
    return tqc__error_at(p, pos.line, pos.col, "redefinition of alias '%.*s'", (int)name.len,
                         name.data);
  }
  return tqc__map_put(map, name, value);
}

static tq_status_t parse_metadata(tqc_parser_t *p) {
  size_t start = p->tok.offset;
  const char *t = p->text;
  for (size_t i = p->lex.at.pos; i + 2 < p->text_len; i++) {
    if (t[i] == '#' && t[i + 1] == '-' && t[i + 2] == '}') {
      /* Lex line by line up to the end so that line numbers stay right. */
      while (p->lex.at.pos < i + 3) {
        if (t[p->lex.at.pos] == '\n') {
          p->lex.at.pos++;
          p->lex.at.line_start = p->lex.at.pos;
          p->lex.at.line++;
        } else {
          p->lex.at.pos++;
        }
      }
      p->module->metadata = tqc__strdup(p, t + start, i + 3 - start);
      if (!p->module->metadata.data) return tqc__nomem(p);
      tqc__advance(p);
      return NULL;
    }
  }
  return tqc__error(p, "'{-#' without '#-}'");
}

static tq_status_t parse_top(tqc_parser_t *p) {
  tqc_srcpos_t origin = {1, 1};
  tqc_op_t *top = tqc__new_op(p, "builtin.module", origin);
  if (!top) return tqc__nomem(p);
  tqc_loc_t *loc = tqc__calloc(p, 1, sizeof(*loc));
  tqc_region_t *region = tqc__calloc(p, 1, sizeof(*region));
  tqc_block_t *block = tqc__new_block(p);
  tqc_block_t **blocks = tqc__calloc(p, 1, sizeof(*blocks));
  if (!loc || !region || !block || !blocks) return tqc__nomem(p);
  /* MLIR gives an implicit module the location file:0:0. */
  loc->kind = TQC_LOC_FILE;
  loc->file.file = tq_sv(p->module->path, strlen(p->module->path));
  top->loc = loc;
  blocks[0] = block;
  region->parent = top;
  region->num_blocks = 1;
  region->blocks = blocks;
  block->parent = region;
  top->regions = region;
  top->num_regions = 1;
  TQ_TRY(tqc__push_scope(p, 1));
  tqc__advance(p);
  tq_status_t st = NULL;
  while (!st && !tqc__is(p, TQC_TOK_EOF)) {
    if (tqc__is(p, TQC_TOK_HASH_ID) || tqc__is(p, TQC_TOK_EXCL_ID)) {
      st = parse_alias(p);
    } else if (tqc__is(p, TQC_TOK_FILE_METADATA_BEGIN)) {
      st = parse_metadata(p);
    } else {
      st = parse_operation(p, block);
    }
  }
  tqc__pop_scope(p);
  if (st) return st;
  if (block->num_ops == 1 && tq_sv_eq_cstr(block->first->name, "builtin.module") &&
      block->first->num_results == 0) {
    top = block->first;
    top->parent = NULL;
  }
  p->module->op = top;
  return NULL;
}

/* ---- Entry points --------------------------------------------------------------------------- */

static void parser_deinit(tqc_parser_t *p) {
  tqc__map_deinit(&p->names);
  tqc__map_deinit(&p->attr_aliases);
  tqc__map_deinit(&p->type_aliases);
  tqc__map_deinit(&p->loc_aliases);
  tq_free(p->heads);
  tq_free(p->entries);
  tq_free(p->scopes);
  tq_free(p->pending_locs);
  tq_buf_deinit(&p->scratch);
}

tq_status_t tqc_module_parse(const char *path, const char *text, size_t len,
                             const tqc_parse_options_t *options, tqc_module_t **out_module) {
  *out_module = NULL;
  tqc_parse_options_t defaults;
  tqc_parse_options_initialize(&defaults);
  if (!options) options = &defaults;
  if (!path) path = "<input>";
  if (!text && len) return TQ_STATUS(TQ_INVALID_ARGUMENT, "%s: no text", path);
  if (options->max_file_size && len > options->max_file_size) {
    return TQ_STATUS(TQ_LIMIT, "%s: %zu bytes is more than the limit of %zu bytes", path, len,
                     options->max_file_size);
  }
  tqc_module_t *m = tq_calloc(1, sizeof(*m));
  if (!m) return TQ_STATUS(TQ_OUT_OF_MEMORY, "%s: out of memory", path);
  tq_arena_init(&m->arena, 0, options->max_arena_bytes);
  m->path = tq_arena_strndup(&m->arena, path, strlen(path));
  char *copy = tq_arena_alloc(&m->arena, len + 1);
  if (!m->path || !copy) {
    tqc_module_destroy(m);
    return TQ_STATUS(TQ_OUT_OF_MEMORY, "%s: out of memory copying the text", path);
  }
  if (len) memcpy(copy, text, len);
  copy[len] = 0;
  m->text = copy;
  m->text_len = len;
  tqc_parser_t p;
  memset(&p, 0, sizeof(p));
  p.module = m;
  p.arena = &m->arena;
  p.path = m->path;
  p.text = copy;
  p.text_len = len;
  p.max_nesting = options->max_nesting ? options->max_nesting : 1000;
  tq_buf_init(&p.scratch, 0);
  tqc__lexer_init(&p.lex, copy, len);
  tq_status_t st = parse_top(&p);
  if (!st) st = tqc__resolve_locs(&p);
  parser_deinit(&p);
  if (st) {
    tqc_module_destroy(m);
    return st;
  }
  *out_module = m;
  return NULL;
}

tq_status_t tqc_module_parse_file(const char *path, const tqc_parse_options_t *options,
                                  tqc_module_t **out_module) {
  *out_module = NULL;
  tqc_parse_options_t defaults;
  tqc_parse_options_initialize(&defaults);
  if (!options) options = &defaults;
  tq_buf_t buf;
  tq_status_t st = tq_file_read(path, options->max_file_size, &buf);
  if (!st) st = tqc_module_parse(path, buf.data ? buf.data : "", buf.len, options, out_module);
  tq_buf_deinit(&buf);
  return st;
}

void tqc_module_destroy(tqc_module_t *module) {
  if (!module) return;
  tq_arena_deinit(&module->arena);
  tq_free(module);
}
