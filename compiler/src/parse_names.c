/* SSA value and block names (MLIR's scoping rules): a stack of name entries per scope, a region
 * opening a scope that sees the names of the scopes around it unless it is isolated from above
 * (func.func, builtin.module); definitions, uses (a use before the definition makes a forward
 * placeholder that the definition fills in) and block labels. */
#include <string.h>

#include "parser_internal.h"
#include "torq/base/alloc.h"

#define NONE SIZE_MAX

tq_status_t tqc__push_scope(tqc_parser_t *p, int isolated) {
  if (p->num_scopes == p->cap_scopes) {
    size_t cap = p->cap_scopes ? p->cap_scopes * 2 : 16;
    tqc_scope_t *s = tq_realloc(p->scopes, cap * sizeof(*s));
    if (!s) return tqc__nomem(p);
    p->scopes = s;
    p->cap_scopes = cap;
  }
  tqc_scope_t *s = &p->scopes[p->num_scopes];
  s->entries_start = p->num_entries;
  s->barrier =
      isolated || p->num_scopes == 0 ? p->num_scopes : p->scopes[p->num_scopes - 1].barrier;
  p->num_scopes++;
  return NULL;
}

void tqc__pop_scope(tqc_parser_t *p) {
  tqc_scope_t *s = &p->scopes[--p->num_scopes];
  while (p->num_entries > s->entries_start) {
    tqc_name_entry_t *e = &p->entries[--p->num_entries];
    p->heads[e->key] = e->prev;
  }
}

/* The visible entry of `name`, or NONE. */
static size_t lookup(const tqc_parser_t *p, tq_sv_t name) {
  size_t *k = tqc__map_find(&p->names, name);
  if (!k) return NONE;
  size_t h = p->heads[*k];
  if (h == NONE || p->num_scopes == 0) return NONE;
  return p->entries[h].level >= p->scopes[p->num_scopes - 1].barrier ? h : NONE;
}

/* Makes `name` visible in the current scope, shadowing any outer entry; `forward` marks a name
 * used before its definition. */
static tq_status_t add_entry(tqc_parser_t *p, tq_sv_t name, void *ptr, int forward,
                             tqc_srcpos_t pos) {
  size_t *k = tqc__map_find(&p->names, name);
  size_t key;
  if (k) {
    key = *k;
  } else {
    if (p->num_heads == p->cap_heads) {
      size_t cap = p->cap_heads ? p->cap_heads * 2 : 64;
      size_t *h = tq_realloc(p->heads, cap * sizeof(*h));
      if (!h) return tqc__nomem(p);
      p->heads = h;
      p->cap_heads = cap;
    }
    key = p->num_heads++;
    p->heads[key] = NONE;
    TQ_TRY(tqc__map_put(&p->names, name, key));
  }
  if (p->num_entries == p->cap_entries) {
    size_t cap = p->cap_entries ? p->cap_entries * 2 : 64;
    tqc_name_entry_t *e = tq_realloc(p->entries, cap * sizeof(*e));
    if (!e) return tqc__nomem(p);
    p->entries = e;
    p->cap_entries = cap;
  }
  tqc_name_entry_t *e = &p->entries[p->num_entries];
  e->key = key;
  e->prev = p->heads[key];
  e->level = p->num_scopes - 1;
  e->ptr = ptr;
  e->forward = forward;
  e->pos = pos;
  e->name = name;
  p->heads[key] = p->num_entries++;
  return NULL;
}

tqc_value_t *tqc__new_value(tqc_parser_t *p) {
  tqc_value_t *v = tqc__calloc(p, 1, sizeof(*v));
  if (v) v->id = p->module->num_values++;
  return v;
}

tq_status_t tqc__define_value(tqc_parser_t *p, tq_sv_t name, tqc_srcpos_t pos,
                              tqc_value_t **io_value) {
  size_t h = lookup(p, name);
  if (h != NONE) {
    tqc_name_entry_t *e = &p->entries[h];
    if (!e->forward) {
      return tqc__error_at(p, pos.line, pos.col, "redefinition of SSA value '%.*s'", (int)name.len,
                           name.data);
    }
    tqc_value_t *ph = e->ptr;
    tqc_value_t *v = *io_value;
    ph->type = v->type;
    ph->def = v->def;
    ph->block = v->block;
    ph->index = v->index;
    ph->loc = v->loc;
    ph->pos = pos;
    ph->type_pos = v->type_pos;
    e->forward = 0;
    *io_value = ph;
    return NULL;
  }
  (*io_value)->name = name;
  (*io_value)->pos = pos;
  return add_entry(p, name, *io_value, 0, pos);
}

tq_status_t tqc__parse_value_use(tqc_parser_t *p, tqc_value_t **out_value, tqc_srcpos_t *out_pos) {
  if (!tqc__is(p, TQC_TOK_PERCENT_ID)) return tqc__expected(p, "an SSA value");
  tqc_srcpos_t pos = {p->tok.line, p->tok.col};
  tq_sv_t name = tq_sv(p->tok.text, p->tok.len);
  tqc__advance(p);
  /* %name#N: result N of a group, written without spaces. */
  if (tqc__is(p, TQC_TOK_HASH_ID) && p->tok.offset == (size_t)(name.data - p->text) + name.len) {
    tq_sv_t num = tq_sv(p->tok.text + 1, p->tok.len - 1);
    for (size_t i = 0; i < num.len; i++) {
      if (num.data[i] < '0' || num.data[i] > '9') return tqc__error(p, "invalid result number");
    }
    if (!tq_sv_eq_cstr(num, "0")) {
      name = tq_sv(name.data, name.len + p->tok.len);
    }
    tqc__advance(p);
  }
  size_t h = lookup(p, name);
  tqc_value_t *v;
  if (h != NONE) {
    v = p->entries[h].ptr;
  } else {
    v = tqc__new_value(p);
    if (!v) return tqc__nomem(p);
    v->name = name;
    v->pos = pos;
    TQ_TRY(add_entry(p, name, v, 1, pos));
  }
  *out_value = v;
  *out_pos = pos;
  return NULL;
}

tqc_block_t *tqc__new_block(tqc_parser_t *p) {
  return tqc__calloc(p, 1, sizeof(tqc_block_t));
}

tq_status_t tqc__parse_block_use(tqc_parser_t *p, tqc_block_t **out) {
  if (!tqc__is(p, TQC_TOK_CARET_ID)) return tqc__expected(p, "a block label");
  tq_sv_t name = tq_sv(p->tok.text, p->tok.len);
  tqc_srcpos_t pos = {p->tok.line, p->tok.col};
  size_t h = lookup(p, name);
  if (h != NONE) {
    *out = p->entries[h].ptr;
  } else {
    tqc_block_t *b = tqc__new_block(p);
    if (!b) return tqc__nomem(p);
    TQ_TRY(add_entry(p, name, b, 1, pos));
    *out = b;
  }
  tqc__advance(p);
  return NULL;
}

tq_status_t tqc__define_block(tqc_parser_t *p, tq_sv_t name, tqc_srcpos_t pos, tqc_block_t **out) {
  *out = NULL;
  size_t h = lookup(p, name);
  int here = h != NONE && p->scopes[p->num_scopes - 1].entries_start <= h;
  if (here && p->entries[h].forward) {
    *out = p->entries[h].ptr;
    p->entries[h].forward = 0;
    return NULL;
  }
  if (here) return tqc__error(p, "redefinition of block '%.*s'", (int)name.len, name.data);
  tqc_block_t *b = tqc__new_block(p);
  if (!b) return tqc__nomem(p);
  *out = b;
  return add_entry(p, name, b, 0, pos);
}
