/* Locations: loc("file":line:col), loc(unknown), loc("name"(child)), loc(callsite(a at b)),
 * loc(fused[...]) and loc(#alias), whose definitions MLIR writes at the end of the file. */
#include <stdio.h>
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

static tq_status_t add_pending(tqc_parser_t *p, tqc_loc_t *l) {
  if (p->num_pending_locs == p->cap_pending_locs) {
    size_t cap = p->cap_pending_locs ? p->cap_pending_locs * 2 : 16;
    tqc_loc_t **v = tq_realloc(p->pending_locs, cap * sizeof(*v));
    if (!v) return tqc__nomem(p);
    p->pending_locs = v;
    p->cap_pending_locs = cap;
  }
  p->pending_locs[p->num_pending_locs++] = l;
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
    l->alias.line = p->tok.line;
    l->alias.col = p->tok.col;
    TQ_TRY(add_pending(p, l));
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

/* ---- Alias resolution ---------------------------------------------------------------------- */

/* Before any placeholder is replaced, every alias reachable from a reference is walked once to
 * find undefined aliases and cycles (which would make the resolved location infinite), chains
 * that nest deeper than max_nesting (whatever recurses over a location later, the printer or
 * debug info, would overflow its stack) and aliases that share so much that the locations they
 * stand for, written out in full as the printer does, would not fit in the arena when read again
 * (a few lines of `#a = loc(fused[#b, #b])` stand for millions). Each alias is walked once. */

typedef enum alias_state_e { ALIAS_WALKING = 1, ALIAS_DONE } alias_state_t;

/* A location as resolved: how deep it nests and how many locations it holds in all. */
typedef struct loc_measure_s {
  size_t height, size;
} loc_measure_t;

typedef struct alias_info_s {
  alias_state_t state;
  loc_measure_t measure; /* ALIAS_DONE */
  const tqc_loc_t *via;  /* ALIAS_WALKING: the reference that entered it */
} alias_info_t;

typedef struct alias_walk_s {
  tqc_parser_t *p;
  tqc_map_t index; /* alias name -> index into info */
  alias_info_t *info;
  size_t count, cap;
  size_t max_size; /* locations all references together may stand for */
  size_t total;
} alias_walk_t;

/* A resolved location costs about this many arena bytes once printed and read back. */
#define LOC_BYTES_WHEN_REREAD 256

static tq_status_t loc_measure(alias_walk_t *w, const tqc_loc_t *l, const tqc_loc_t *via,
                               size_t level, loc_measure_t *out);

static tq_status_t alias_error(alias_walk_t *w, const tqc_loc_t *ref, const char *what) {
  return tqc__error_at(w->p, ref->alias.line, ref->alias.col, "location alias '%.*s' %s",
                       (int)ref->alias.name.len, ref->alias.name.data, what);
}

/* a + b, held at max + 1 once past max (so that it cannot overflow). */
static size_t add_capped(size_t a, size_t b, size_t max) {
  return a > max || b > max - a ? max + 1 : a + b;
}

/* What `ref` (an alias placeholder) resolves to. */
static tq_status_t alias_measure(alias_walk_t *w, const tqc_loc_t *ref, size_t level,
                                 loc_measure_t *out) {
  size_t *def = tqc__map_find(&w->p->loc_aliases, ref->alias.name);
  if (!def) return alias_error(w, ref, "is not defined");
  size_t *slot = tqc__map_find(&w->index, ref->alias.name);
  if (slot) {
    const alias_info_t *info = &w->info[*slot];
    if (info->state == ALIAS_WALKING) {
      return alias_error(w, info->via, "is defined in terms of itself");
    }
    *out = info->measure;
    return NULL;
  }
  if (w->count == w->cap) {
    size_t cap = w->cap ? w->cap * 2 : 16;
    alias_info_t *v = tq_realloc(w->info, cap * sizeof(*v));
    if (!v) return TQ_STATUS(TQ_OUT_OF_MEMORY, "%s: out of memory resolving locations", w->p->path);
    w->info = v;
    w->cap = cap;
  }
  size_t i = w->count++;
  w->info[i] = (alias_info_t){ALIAS_WALKING, {0, 0}, ref};
  TQ_TRY(tqc__map_put(&w->index, ref->alias.name, i));
  loc_measure_t m = {0, 0};
  TQ_TRY(loc_measure(w, (const tqc_loc_t *)*def, ref, level + 1, &m));
  w->info[i].state = ALIAS_DONE;
  w->info[i].measure = m;
  *out = m;
  return NULL;
}

/* `via` is the alias reference that led to `l`, where a problem is reported. */
static tq_status_t loc_measure(alias_walk_t *w, const tqc_loc_t *l, const tqc_loc_t *via,
                               size_t level, loc_measure_t *out) {
  if (level > w->p->max_nesting) {
    char what[96];
    snprintf(what, sizeof(what), "nests locations deeper than the limit of %zu",
             w->p->max_nesting);
    return alias_error(w, via, what);
  }
  loc_measure_t m = {0, 0}, child;
  const tqc_loc_t *pair[2];
  const tqc_loc_t *const *children = NULL;
  size_t count = 0;
  switch (l->kind) {
  case TQC_LOC_UNKNOWN:
  case TQC_LOC_FILE: break;
  case TQC_LOC_NAME:
    children = &l->name.child;
    count = l->name.child != NULL;
    break;
  case TQC_LOC_CALLSITE:
    pair[0] = l->callsite.callee;
    pair[1] = l->callsite.caller;
    children = pair;
    count = 2;
    break;
  case TQC_LOC_FUSED:
    children = l->fused.locs;
    count = l->fused.count;
    break;
  case TQC_LOC_ALIAS:
    /* The placeholder becomes a copy of the alias's location: no level of its own. */
    return alias_measure(w, l, level, out);
  }
  for (size_t i = 0; i < count; i++) {
    TQ_TRY(loc_measure(w, children[i], via, level + 1, &child));
    if (child.height > m.height) m.height = child.height;
    m.size = add_capped(m.size, child.size, w->max_size);
  }
  m.height++;
  m.size = add_capped(m.size, 1, w->max_size);
  *out = m;
  return NULL;
}

static tq_status_t check_aliases(tqc_parser_t *p) {
  alias_walk_t w;
  memset(&w, 0, sizeof(w));
  w.p = p;
  w.max_size = (p->arena->limit ? p->arena->limit : (size_t)4 << 30) / LOC_BYTES_WHEN_REREAD;
  tq_status_t st = NULL;
  for (size_t i = 0; !st && i < p->num_pending_locs; i++) {
    loc_measure_t m = {0, 0};
    st = alias_measure(&w, p->pending_locs[i], 0, &m);
    if (st) break;
    w.total = add_capped(w.total, m.size, w.max_size);
    if (w.total > w.max_size) {
      char what[96];
      snprintf(what, sizeof(what), "takes the module past the limit of %zu locations, written out",
               w.max_size);
      st = alias_error(&w, p->pending_locs[i], what);
    }
  }
  tqc__map_deinit(&w.index);
  tq_free(w.info);
  return st;
}

/* Replaces every alias placeholder by a copy of what its alias names (another placeholder's
 * alias is followed to its end; check_aliases has ruled out cycles and undefined aliases). */
tq_status_t tqc__resolve_locs(tqc_parser_t *p) {
  TQ_TRY(check_aliases(p));
  for (size_t i = 0; i < p->num_pending_locs; i++) {
    tqc_loc_t *l = p->pending_locs[i];
    const tqc_loc_t *target = l;
    while (target->kind == TQC_LOC_ALIAS) {
      target = (const tqc_loc_t *)*tqc__map_find(&p->loc_aliases, target->alias.name);
    }
    *l = *target;
  }
  return NULL;
}
