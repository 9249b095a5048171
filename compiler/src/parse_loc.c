/* Locations: loc("file":line:col), loc(unknown), loc("name"(child)), loc(callsite(a at b)),
 * loc(fused[...]) and loc(#alias), whose definitions MLIR writes at the end of the file. */
#include <string.h>

#include "parser_internal.h"
#include "torq/base/alloc.h"

static tqc_loc_t *new_loc(tqc_parser_t *p, tqc_loc_kind_t kind) {
  tqc_loc_t *l = tqc__calloc(p, 1, sizeof(*l));
  if (l) l->kind = kind;
  return l;
}

const tqc_loc_t *tqc__make_file_loc(tqc_parser_t *p, uint32_t line, uint32_t col) {
  tqc_loc_t *l = new_loc(p, TQC_LOC_FILE);
  if (!l) return NULL;
  l->file.file = tq_sv(p->module->path, strlen(p->module->path));
  l->file.line = line;
  l->file.col = col;
  return l;
}

static tq_status_t parse_u32(tqc_parser_t *p, uint32_t *out) {
  if (!tqc__is(p, TQC_TOK_INTEGER) || (p->tok.len > 1 && p->tok.text[1] == 'x')) {
    return tqc__expected(p, "a line or column number");
  }
  uint64_t v = 0;
  for (size_t i = 0; i < p->tok.len; i++) {
    v = v * 10 + (uint64_t)(p->tok.text[i] - '0');
    if (v > UINT32_MAX) return tqc__error(p, "line or column number out of range");
  }
  *out = (uint32_t)v;
  tqc__advance(p);
  return NULL;
}

static tq_status_t add_pending(tqc_parser_t *p, tqc_loc_t *l, tqc_srcpos_t pos) {
  if (p->num_pending_locs == p->cap_pending_locs) {
    size_t cap = p->cap_pending_locs ? p->cap_pending_locs * 2 : 16;
    tqc_loc_t **v = tq_realloc(p->pending_locs, cap * sizeof(*v));
    if (!v) return tqc__nomem(p);
    p->pending_locs = v;
    tqc_srcpos_t *w = tq_realloc(p->pending_loc_pos, cap * sizeof(*w));
    if (!w) return tqc__nomem(p);
    p->pending_loc_pos = w;
    p->cap_pending_locs = cap;
  }
  p->pending_locs[p->num_pending_locs] = l;
  p->pending_loc_pos[p->num_pending_locs] = pos;
  p->num_pending_locs++;
  return NULL;
}

static tq_status_t parse_inner(tqc_parser_t *p, const tqc_loc_t **out) {
  tqc_loc_t *l = NULL;
  if (tqc__is(p, TQC_TOK_STRING)) {
    tq_sv_t s;
    TQ_TRY(tqc__string_value(p, &p->tok, &s));
    tqc__advance(p);
    if (tqc__accept(p, TQC_TOK_COLON)) {
      l = new_loc(p, TQC_LOC_FILE);
      if (!l) return tqc__nomem(p);
      l->file.file = s;
      TQ_TRY(parse_u32(p, &l->file.line));
      TQ_TRY(tqc__expect(p, TQC_TOK_COLON, "':' and a column"));
      TQ_TRY(parse_u32(p, &l->file.col));
    } else {
      l = new_loc(p, TQC_LOC_NAME);
      if (!l) return tqc__nomem(p);
      l->name.name = s;
      if (tqc__accept(p, TQC_TOK_LPAREN)) {
        TQ_TRY(tqc__parse_loc_inner(p, &l->name.child));
        TQ_TRY(tqc__expect(p, TQC_TOK_RPAREN, "')' after the child location"));
      }
    }
  } else if (tqc__accept_keyword(p, "unknown")) {
    l = new_loc(p, TQC_LOC_UNKNOWN);
    if (!l) return tqc__nomem(p);
  } else if (tqc__accept_keyword(p, "callsite")) {
    l = new_loc(p, TQC_LOC_CALLSITE);
    if (!l) return tqc__nomem(p);
    TQ_TRY(tqc__expect(p, TQC_TOK_LPAREN, "'(' after 'callsite'"));
    TQ_TRY(tqc__parse_loc_inner(p, &l->callsite.callee));
    if (!tqc__accept_keyword(p, "at")) return tqc__expected(p, "'at' in a callsite location");
    TQ_TRY(tqc__parse_loc_inner(p, &l->callsite.caller));
    TQ_TRY(tqc__expect(p, TQC_TOK_RPAREN, "')' to end the callsite location"));
  } else if (tqc__accept_keyword(p, "fused")) {
    l = new_loc(p, TQC_LOC_FUSED);
    if (!l) return tqc__nomem(p);
    if (tqc__accept(p, TQC_TOK_LESS)) {
      TQ_TRY(tqc__parse_attr(p, &l->fused.metadata));
      TQ_TRY(tqc__expect(p, TQC_TOK_GREATER, "'>' after the fused metadata"));
    }
    TQ_TRY(tqc__expect(p, TQC_TOK_LSQUARE, "'[' in a fused location"));
    size_t mark = p->scratch.len;
    if (!tqc__is(p, TQC_TOK_RSQUARE)) {
      do {
        const tqc_loc_t *item = NULL;
        TQ_TRY(tqc__parse_loc_inner(p, &item));
        TQ_TRY(tqc__push(p, &item, sizeof(item)));
      } while (tqc__accept(p, TQC_TOK_COMMA));
    }
    TQ_TRY(tqc__expect(p, TQC_TOK_RSQUARE, "']' to end the fused location"));
    void *items = NULL;
    size_t bytes = 0;
    TQ_TRY(tqc__pop_to_arena(p, mark, &items, &bytes));
    l->fused.count = bytes / sizeof(tqc_loc_t *);
    l->fused.locs = items;
  } else if (tqc__is(p, TQC_TOK_HASH_ID)) {
    l = new_loc(p, TQC_LOC_ALIAS);
    if (!l) return tqc__nomem(p);
    l->alias.name = tq_sv(p->tok.text, p->tok.len);
    tqc_srcpos_t pos = {p->tok.line, p->tok.col};
    TQ_TRY(add_pending(p, l, pos));
    tqc__advance(p);
  } else {
    return tqc__expected(p, "a location");
  }
  *out = l;
  return NULL;
}

tq_status_t tqc__parse_loc_inner(tqc_parser_t *p, const tqc_loc_t **out) {
  TQ_TRY(tqc__enter(p));
  tq_status_t st = parse_inner(p, out);
  tqc__leave(p);
  return st;
}

tq_status_t tqc__parse_loc(tqc_parser_t *p, const tqc_loc_t **out) {
  if (!tqc__accept_keyword(p, "loc")) return tqc__expected(p, "'loc'");
  TQ_TRY(tqc__expect(p, TQC_TOK_LPAREN, "'(' after 'loc'"));
  TQ_TRY(tqc__parse_loc_inner(p, out));
  return tqc__expect(p, TQC_TOK_RPAREN, "')' to end the location");
}

/* Replaces every alias placeholder by a copy of what its alias names. An alias may name another
 * alias; a chain longer than the number of aliases is a cycle. */
tq_status_t tqc__resolve_locs(tqc_parser_t *p) {
  for (size_t i = 0; i < p->num_pending_locs; i++) {
    tqc_loc_t *l = p->pending_locs[i];
    const tqc_loc_t *target = l;
    size_t steps = 0;
    while (target->kind == TQC_LOC_ALIAS) {
      size_t *def = tqc__map_find(&p->loc_aliases, target->alias.name);
      if (!def) {
        tqc_srcpos_t pos = p->pending_loc_pos[i];
        return tqc__error_at(p, pos.line, pos.col, "undefined location alias '%.*s'",
                             (int)target->alias.name.len, target->alias.name.data);
      }
      target = (const tqc_loc_t *)*def;
      if (++steps > p->loc_aliases.count + 1) {
        tqc_srcpos_t pos = p->pending_loc_pos[i];
        return tqc__error_at(p, pos.line, pos.col, "location aliases form a cycle");
      }
    }
    *l = *target;
  }
  return NULL;
}
