/* A YAML tree with line:column marks, built from libyaml's events, and typed reads of it.
 * libyaml's error convention (the parser's problem and its mark) is converted here and nowhere
 * else. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

#include "suite_internal.h"
#include "torq/base/alloc.h"
#include "torq/base/str.h"

#define TQH__YAML_MAX_DEPTH 256
#define TQH__YAML_MAX_NODES 100000

/* ---- Plain scalars: YAML 1.2 core schema ---------------------------------------------------- */

static int all_digits(const char *s, const char *digits) {
  if (!*s) return 0;
  for (; *s; s++)
    if (!strchr(digits, *s)) return 0;
  return 1;
}

static tqh__yscalar_t resolve_plain(const char *s, size_t len) {
  if (len == 0 || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") || !strcmp(s, "NULL"))
    return TQH__S_NULL;
  if (!strcmp(s, "true") || !strcmp(s, "True") || !strcmp(s, "TRUE") || !strcmp(s, "false") ||
      !strcmp(s, "False") || !strcmp(s, "FALSE"))
    return TQH__S_BOOL;
  if (strlen(s) != len) return TQH__S_STRING;
  const char *p = s;
  if (*p == '-' || *p == '+') p++;
  if (all_digits(p, "0123456789")) return TQH__S_INT;
  if ((!strncmp(s, "0x", 2) && all_digits(s + 2, "0123456789abcdefABCDEF")) ||
      (!strncmp(s, "0o", 2) && all_digits(s + 2, "01234567")))
    return TQH__S_INT;
  if (!strcmp(p, ".inf") || !strcmp(p, ".Inf") || !strcmp(p, ".INF") || !strcmp(s, ".nan") ||
      !strcmp(s, ".NaN") || !strcmp(s, ".NAN"))
    return TQH__S_FLOAT;
  /* [-+]? ( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )? */
  size_t digits = 0;
  while (*p >= '0' && *p <= '9') p++, digits++;
  if (*p == '.') {
    p++;
    while (*p >= '0' && *p <= '9') p++, digits++;
  }
  if (!digits) return TQH__S_STRING;
  if (*p == 'e' || *p == 'E') {
    p++;
    if (*p == '-' || *p == '+') p++;
    if (!(*p >= '0' && *p <= '9')) return TQH__S_STRING;
    while (*p >= '0' && *p <= '9') p++;
  }
  return *p ? TQH__S_STRING : TQH__S_FLOAT;
}

/* ---- The tree builder ------------------------------------------------------------------------ */

typedef struct frame_s {
  tqh__ynode_t *node;
  tqh__ynode_t **items, **keys; /* heap while open */
  size_t n, cap;
  tqh__ynode_t *pending_key;
  long anchor; /* index in anchors, or -1 */
} frame_t;

typedef struct anchor_s {
  const char *name;
  tqh__ynode_t *node;
  int done;
} anchor_t;

typedef struct builder_s {
  tq_arena_t *arena;
  tqh__report_t *rep;
  frame_t stack[TQH__YAML_MAX_DEPTH];
  size_t depth;
  anchor_t *anchors;
  size_t anchor_count, anchor_cap;
  tqh__ynode_t *root;
  size_t expanded; /* nodes, counting what aliases repeat */
  int failed;      /* stop building */
  int oom;
} builder_t;

static tqh__ynode_t *new_node(builder_t *b, tqh__ykind_t kind, yaml_mark_t mark) {
  tqh__ynode_t *n = tq_arena_calloc(b->arena, 1, sizeof(*n));
  if (!n) {
    b->oom = b->failed = 1;
    return NULL;
  }
  if (++b->expanded > TQH__YAML_MAX_NODES) {
    tqh__error(b->rep, (uint32_t)mark.line + 1, (uint32_t)mark.column + 1,
               "the document has more than %d nodes; split it", TQH__YAML_MAX_NODES);
    b->failed = 1;
    return NULL;
  }
  n->kind = kind;
  n->line = (uint32_t)(mark.line + 1 > UINT32_MAX ? UINT32_MAX : mark.line + 1);
  n->col = (uint32_t)(mark.column + 1 > UINT32_MAX ? UINT32_MAX : mark.column + 1);
  n->weight = 1;
  return n;
}

static int push_item(builder_t *b, frame_t *f, tqh__ynode_t *key, tqh__ynode_t *value) {
  if (f->n == f->cap) {
    size_t cap = f->cap ? f->cap * 2 : 8;
    tqh__ynode_t **items = tq_realloc(f->items, cap * sizeof(*items));
    if (!items) return b->oom = b->failed = 1, 0;
    f->items = items;
    if (f->node->kind == TQH__Y_MAP) {
      tqh__ynode_t **keys = tq_realloc(f->keys, cap * sizeof(*keys));
      if (!keys) return b->oom = b->failed = 1, 0;
      f->keys = keys;
    }
    f->cap = cap;
  }
  if (f->node->kind == TQH__Y_MAP) f->keys[f->n] = key;
  f->items[f->n++] = value;
  return 1;
}

/* Attaches a finished node to the open collection (or makes it the root). */
static void attach(builder_t *b, tqh__ynode_t *node) {
  if (b->depth == 0) {
    b->root = node;
    return;
  }
  frame_t *f = &b->stack[b->depth - 1];
  if (f->node->kind == TQH__Y_SEQ) {
    push_item(b, f, NULL, node);
  } else if (!f->pending_key) {
    if (node->kind != TQH__Y_SCALAR)
      tqh__error(b->rep, node->line, node->col, "a key must be a plain value, not %s",
                 tqh__ydescribe(node));
    f->pending_key = node;
  } else {
    push_item(b, f, f->pending_key, node);
    f->pending_key = NULL;
  }
  size_t w = f->node->weight + node->weight;
  f->node->weight = w > TQH__YAML_MAX_NODES + 1 ? TQH__YAML_MAX_NODES + 1 : w;
}

static void add_anchor(builder_t *b, const yaml_char_t *name, tqh__ynode_t *node, int done,
                       long *out_index) {
  if (out_index) *out_index = -1;
  if (!name) return;
  if (b->anchor_count == b->anchor_cap) {
    size_t cap = b->anchor_cap ? b->anchor_cap * 2 : 8;
    anchor_t *a = tq_realloc(b->anchors, cap * sizeof(*a));
    if (!a) {
      b->oom = b->failed = 1;
      return;
    }
    b->anchors = a;
    b->anchor_cap = cap;
  }
  const char *copy = tq_arena_strndup(b->arena, (const char *)name, strlen((const char *)name));
  if (!copy) {
    b->oom = b->failed = 1;
    return;
  }
  b->anchors[b->anchor_count] = (anchor_t){copy, node, done};
  if (out_index) *out_index = (long)b->anchor_count;
  b->anchor_count++;
}

typedef struct keyref_s {
  const tqh__ynode_t *key;
  size_t index;
} keyref_t;

static int keyref_cmp(const void *pa, const void *pb) {
  const keyref_t *a = pa, *b = pb;
  size_t n = a->key->len < b->key->len ? a->key->len : b->key->len;
  int c = memcmp(a->key->str, b->key->str, n);
  if (c) return c;
  if (a->key->len != b->key->len) return a->key->len < b->key->len ? -1 : 1;
  return a->index < b->index ? -1 : a->index > b->index;
}

static void check_duplicate_keys(builder_t *b, const tqh__ynode_t *map) {
  if (map->count < 2) return;
  keyref_t *refs = tq_malloc(map->count * sizeof(*refs));
  if (!refs) {
    b->oom = b->failed = 1;
    return;
  }
  size_t n = 0;
  for (size_t i = 0; i < map->count; i++)
    if (map->keys[i]->kind == TQH__Y_SCALAR) refs[n++] = (keyref_t){map->keys[i], i};
  qsort(refs, n, sizeof(*refs), keyref_cmp);
  for (size_t i = 1; i < n; i++) {
    const tqh__ynode_t *first = refs[i - 1].key, *k = refs[i].key;
    if (first->len != k->len || memcmp(first->str, k->str, k->len) != 0) continue;
    size_t j = i - 1;
    while (j > 0 && refs[j - 1].key->len == k->len && !memcmp(refs[j - 1].key->str, k->str, k->len))
      j--;
    first = refs[j].key;
    tqh__error_note(b->rep, k->line, k->col, first->line, first->col, "first given here",
                    "duplicate key \"%.100s\"", k->str);
  }
  tq_free(refs);
}

static void close_frame(builder_t *b) {
  frame_t *f = &b->stack[--b->depth];
  tqh__ynode_t *node = f->node;
  node->count = f->n;
  if (f->n) {
    node->items = tq_arena_alloc(b->arena, f->n * sizeof(*node->items));
    if (node->items) memcpy(node->items, f->items, f->n * sizeof(*node->items));
    if (node->kind == TQH__Y_MAP) {
      node->keys = tq_arena_alloc(b->arena, f->n * sizeof(*node->keys));
      if (node->keys) memcpy(node->keys, f->keys, f->n * sizeof(*node->keys));
    }
    if (!node->items || (node->kind == TQH__Y_MAP && !node->keys)) {
      node->count = 0;
      b->oom = b->failed = 1;
    }
  }
  tq_free(f->items);
  tq_free(f->keys);
  if (f->anchor >= 0) b->anchors[f->anchor].done = 1;
  if (!b->failed && node->kind == TQH__Y_MAP) check_duplicate_keys(b, node);
  if (!b->failed) attach(b, node);
}

static int tag_ok(builder_t *b, const yaml_char_t *tag, yaml_mark_t mark, const char *allowed) {
  if (!tag || !strcmp((const char *)tag, "!") || !strcmp((const char *)tag, allowed)) return 1;
  tqh__error(b->rep, (uint32_t)mark.line + 1, (uint32_t)mark.column + 1,
             "YAML tags such as \"%.60s\" are not supported here; write the plain value",
             (const char *)tag);
  return 1;
}

static void on_scalar(builder_t *b, const yaml_event_t *ev) {
  tqh__ynode_t *n = new_node(b, TQH__Y_SCALAR, ev->start_mark);
  if (!n) return;
  size_t len = ev->data.scalar.length;
  char *s = tq_arena_strndup(b->arena, (const char *)ev->data.scalar.value, len);
  if (!s) {
    b->oom = b->failed = 1;
    return;
  }
  n->str = s;
  n->len = len;
  const char *tag = (const char *)ev->data.scalar.tag;
  int is_str_tag = tag && !strcmp(tag, YAML_STR_TAG);
  tag_ok(b, ev->data.scalar.tag, ev->start_mark, YAML_STR_TAG);
  n->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
  n->scalar = n->plain && !is_str_tag ? resolve_plain(s, len) : TQH__S_STRING;
  add_anchor(b, ev->data.scalar.anchor, n, 1, NULL);
  attach(b, n);
}

static void on_start(builder_t *b, const yaml_event_t *ev, tqh__ykind_t kind) {
  const yaml_char_t *anchor =
      kind == TQH__Y_SEQ ? ev->data.sequence_start.anchor : ev->data.mapping_start.anchor;
  const yaml_char_t *tag =
      kind == TQH__Y_SEQ ? ev->data.sequence_start.tag : ev->data.mapping_start.tag;
  tag_ok(b, tag, ev->start_mark, kind == TQH__Y_SEQ ? YAML_SEQ_TAG : YAML_MAP_TAG);
  if (b->depth == TQH__YAML_MAX_DEPTH) {
    tqh__error(b->rep, (uint32_t)ev->start_mark.line + 1, (uint32_t)ev->start_mark.column + 1,
               "nesting deeper than %d levels", TQH__YAML_MAX_DEPTH);
    b->failed = 1;
    return;
  }
  tqh__ynode_t *n = new_node(b, kind, ev->start_mark);
  if (!n) return;
  frame_t *f = &b->stack[b->depth++];
  memset(f, 0, sizeof(*f));
  f->node = n;
  add_anchor(b, anchor, n, 0, &f->anchor);
}

static void on_alias(builder_t *b, const yaml_event_t *ev) {
  const char *name = (const char *)ev->data.alias.anchor;
  uint32_t line = (uint32_t)ev->start_mark.line + 1, col = (uint32_t)ev->start_mark.column + 1;
  for (size_t i = b->anchor_count; i-- > 0;) {
    if (strcmp(b->anchors[i].name, name) != 0) continue;
    if (!b->anchors[i].done) {
      tqh__error(b->rep, line, col, "alias *%.60s refers to a node that contains it", name);
      b->failed = 1;
      return;
    }
    /* An alias repeats all of its node: count it, against "billion laughs" documents. */
    b->expanded += b->anchors[i].node->weight;
    if (b->expanded > TQH__YAML_MAX_NODES) {
      tqh__error(b->rep, line, col,
                 "the document has more than %d nodes once its aliases are expanded; simplify it",
                 TQH__YAML_MAX_NODES);
      b->failed = 1;
      return;
    }
    attach(b, b->anchors[i].node);
    return;
  }
  tqh__error(b->rep, line, col, "unknown alias *%.60s (no anchor &%.60s before it)", name, name);
  b->failed = 1;
}

/* The line and column of a byte offset (reader errors carry only an offset). */
static void offset_mark(const char *text, size_t len, size_t offset, uint32_t *line,
                        uint32_t *col) {
  uint32_t l = 1, c = 1;
  for (size_t i = 0; i < offset && i < len; i++) {
    if (text[i] == '\n' || (text[i] == '\r' && !(i + 1 < len && text[i + 1] == '\n'))) {
      l++;
      c = 1;
    } else if (((unsigned char)text[i] & 0xC0) != 0x80) {
      c++;
    }
  }
  *line = l;
  *col = c;
}

static void yaml_problem(builder_t *b, const yaml_parser_t *p, const char *text, size_t len) {
  uint32_t line, col;
  if (p->error == YAML_MEMORY_ERROR) {
    b->oom = 1;
    tqh__error(b->rep, 0, 0, "out of memory reading the YAML");
    return;
  }
  if (p->error == YAML_READER_ERROR) {
    offset_mark(text, len, p->problem_offset, &line, &col);
    tqh__error(b->rep, line, col, "YAML: %s%s", p->problem ? p->problem : "cannot read the text",
               " (suites are UTF-8 text)");
    return;
  }
  line = (uint32_t)p->problem_mark.line + 1;
  col = (uint32_t)p->problem_mark.column + 1;
  const char *hint = "";
  size_t at = p->problem_mark.index;
  if (at < len && (text[at] == '@' || text[at] == '`'))
    hint = "; values that start with '@' or '`' must be quoted: \"@in.npy\"";
  if (p->context)
    tqh__error_note(b->rep, line, col, (uint32_t)p->context_mark.line + 1,
                    (uint32_t)p->context_mark.column + 1, p->context, "YAML: %s%s",
                    p->problem ? p->problem : "syntax error", hint);
  else
    tqh__error(b->rep, line, col, "YAML: %s%s", p->problem ? p->problem : "syntax error", hint);
}

tqh__ynode_t *tqh__yaml_parse(tq_arena_t *arena, tqh__report_t *rep, const char *data, size_t len) {
  builder_t *b = tq_calloc(1, sizeof(*b));
  if (!b) {
    tqh__error(rep, 0, 0, "out of memory reading the YAML");
    return NULL;
  }
  b->arena = arena;
  b->rep = rep;
  yaml_parser_t parser;
  if (!yaml_parser_initialize(&parser)) {
    tq_free(b);
    tqh__error(rep, 0, 0, "out of memory reading the YAML");
    return NULL;
  }
  yaml_parser_set_input_string(&parser, (const unsigned char *)data, len);
  size_t documents = 0;
  size_t errors_before = rep->errors.errors;
  int done = 0;
  while (!done && !b->failed) {
    yaml_event_t ev;
    if (!yaml_parser_parse(&parser, &ev)) {
      yaml_problem(b, &parser, data, len);
      b->failed = 1;
      break;
    }
    switch (ev.type) {
      case YAML_STREAM_END_EVENT:
        done = 1;
        break;
      case YAML_DOCUMENT_START_EVENT:
        if (++documents > 1) {
          tqh__error(rep, (uint32_t)ev.start_mark.line + 1, (uint32_t)ev.start_mark.column + 1,
                     "a second YAML document; a file holds one (remove the '---' line)");
          b->failed = 1;
        }
        break;
      case YAML_SCALAR_EVENT:
        on_scalar(b, &ev);
        break;
      case YAML_SEQUENCE_START_EVENT:
        on_start(b, &ev, TQH__Y_SEQ);
        break;
      case YAML_MAPPING_START_EVENT:
        on_start(b, &ev, TQH__Y_MAP);
        break;
      case YAML_SEQUENCE_END_EVENT:
      case YAML_MAPPING_END_EVENT:
        if (b->depth) close_frame(b);
        break;
      case YAML_ALIAS_EVENT:
        on_alias(b, &ev);
        break;
      default:
        break;
    }
    yaml_event_delete(&ev);
  }
  yaml_parser_delete(&parser);
  while (b->depth) {
    frame_t *f = &b->stack[--b->depth];
    tq_free(f->items);
    tq_free(f->keys);
  }
  tq_free(b->anchors);
  if (b->oom && rep->errors.errors == errors_before)
    tqh__error(rep, 0, 0, "out of memory reading the YAML");
  tqh__ynode_t *root = b->failed || rep->errors.errors != errors_before ? NULL : b->root;
  if (!b->failed && rep->errors.errors == errors_before && !root)
    tqh__error(rep, 0, 0, "the file is empty");
  if (root && root->kind == TQH__Y_SCALAR && root->scalar == TQH__S_NULL) {
    tqh__error(rep, 0, 0, "the file is empty");
    root = NULL;
  }
  tq_free(b);
  return root;
}

/* ---- Reading the tree ------------------------------------------------------------------------ */

const char *tqh__ydescribe(const tqh__ynode_t *node) {
  if (!node) return "nothing";
  switch (node->kind) {
    case TQH__Y_MAP:
      return "a mapping";
    case TQH__Y_SEQ:
      return "a list";
    case TQH__Y_SCALAR:
      break;
  }
  switch (node->scalar) {
    case TQH__S_NULL:
      return "nothing (null)";
    case TQH__S_BOOL:
      return node->str[0] == 't' || node->str[0] == 'T' ? "the boolean true" : "the boolean false";
    case TQH__S_INT:
      return "an integer";
    case TQH__S_FLOAT:
      return "a number";
    case TQH__S_STRING:
      break;
  }
  return "a string";
}

const tqh__ynode_t *tqh__yget(const tqh__ynode_t *map, const char *key,
                              const tqh__ynode_t **out_key) {
  if (out_key) *out_key = NULL;
  if (!map || map->kind != TQH__Y_MAP) return NULL;
  size_t klen = strlen(key);
  for (size_t i = 0; i < map->count; i++) {
    const tqh__ynode_t *k = map->keys[i];
    if (k->kind == TQH__Y_SCALAR && k->len == klen && !memcmp(k->str, key, klen)) {
      if (out_key) *out_key = k;
      return map->items[i];
    }
  }
  return NULL;
}

size_t tqh__ycheck_keys(tqh__report_t *rep, const tqh__ynode_t *map, const char *what,
                        const char *const *allowed) {
  size_t unknown = 0;
  for (size_t i = 0; map && map->kind == TQH__Y_MAP && i < map->count; i++) {
    const tqh__ynode_t *k = map->keys[i];
    if (k->kind != TQH__Y_SCALAR) continue; /* reported by the builder */
    int found = 0;
    for (size_t j = 0; allowed[j] && !found; j++)
      found = !strcmp(k->str, allowed[j]) && strlen(allowed[j]) == k->len;
    if (found) continue;
    const char *near = tqh_did_you_mean(k->str, allowed);
    unknown++;
    char list[512];
    size_t used = 0;
    list[0] = '\0';
    for (size_t j = 0; allowed[j] && used < sizeof(list); j++)
      used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s", j ? ", " : "", allowed[j]);
    char hint[96] = "";
    if (near) snprintf(hint, sizeof(hint), " (did you mean \"%s\"?)", near);
    if (!strcmp(k->str, "<<"))
      snprintf(hint, sizeof(hint), " (merge keys are not supported: use defaults:)");
    tqh__error(rep, k->line, k->col, "unknown key \"%.60s\" in %s%s; allowed keys: %s", k->str,
               what, hint, list);
  }
  return unknown;
}

static int mismatch(tqh__report_t *rep, const tqh__ynode_t *node, const char *key,
                    const char *expected) {
  if (node->kind == TQH__Y_SCALAR && node->scalar == TQH__S_STRING && node->len <= 40)
    tqh__error(rep, node->line, node->col, "%s: expected %s, found the string \"%s\"", key,
               expected, node->str);
  else
    tqh__error(rep, node->line, node->col, "%s: expected %s, found %s", key, expected,
               tqh__ydescribe(node));
  return 0;
}

int tqh__ystr(tqh__report_t *rep, const tqh__ynode_t *node, const char *key, const char **out) {
  if (node->kind != TQH__Y_SCALAR || node->scalar == TQH__S_NULL)
    return mismatch(rep, node, key, "a string");
  if (node->scalar == TQH__S_BOOL) {
    tqh__error(rep, node->line, node->col,
               "%s: expected a string, found %s (quote it if you mean the text: \"%s\")", key,
               tqh__ydescribe(node), node->str);
    return 0;
  }
  if (strlen(node->str) != node->len) {
    tqh__error(rep, node->line, node->col, "%s: the string holds a NUL character", key);
    return 0;
  }
  *out = node->str;
  return 1;
}

int tqh__ybool(tqh__report_t *rep, const tqh__ynode_t *node, const char *key, int *out) {
  int v;
  if (node->kind == TQH__Y_SCALAR &&
      (node->scalar == TQH__S_BOOL || (node->scalar == TQH__S_STRING && node->plain)) &&
      tqh__parse_bool(node->str, &v)) {
    *out = v;
    return 1;
  }
  return mismatch(rep, node, key, "true or false");
}

int tqh__yint(tqh__report_t *rep, const tqh__ynode_t *node, const char *key, int64_t min,
              int64_t max, int64_t *out) {
  int64_t v;
  if (node->kind != TQH__Y_SCALAR || node->scalar != TQH__S_INT)
    return mismatch(rep, node, key, "an integer");
  if (!tqh__parse_i64(node->str, &v)) {
    tqh__error(rep, node->line, node->col, "%s: %s is out of range", key, node->str);
    return 0;
  }
  if (v < min || v > max) {
    if (max == INT64_MAX)
      tqh__error(rep, node->line, node->col, "%s must be >= %lld, found %lld", key, (long long)min,
                 (long long)v);
    else
      tqh__error(rep, node->line, node->col, "%s must be between %lld and %lld, found %lld", key,
                 (long long)min, (long long)max, (long long)v);
    return 0;
  }
  *out = v;
  return 1;
}

int tqh__yu64(tqh__report_t *rep, const tqh__ynode_t *node, const char *key, uint64_t *out) {
  uint64_t v;
  if (node->kind != TQH__Y_SCALAR || node->scalar != TQH__S_INT)
    return mismatch(rep, node, key, "an integer");
  const char *s = node->str[0] == '+' ? node->str + 1 : node->str;
  if (s[0] == '-' || !tqh__parse_u64(s, &v)) {
    tqh__error(rep, node->line, node->col,
               "%s must be between 0 and 18446744073709551615, found %.40s", key, node->str);
    return 0;
  }
  *out = v;
  return 1;
}

int tqh__ynum(tqh__report_t *rep, const tqh__ynode_t *node, const char *key, double min,
              int exclusive, double *out) {
  double v;
  if (node->kind != TQH__Y_SCALAR || (node->scalar != TQH__S_INT && node->scalar != TQH__S_FLOAT))
    return mismatch(rep, node, key, "a number");
  if (!tqh__parse_double(node->str, &v)) {
    tqh__error(rep, node->line, node->col, "%s: expected a finite number, found %.40s", key,
               node->str);
    return 0;
  }
  if (exclusive ? !(v > min) : !(v >= min)) {
    tqh__error(rep, node->line, node->col, "%s must be %s %g, found %.40s", key,
               exclusive ? ">" : ">=", min, node->str);
    return 0;
  }
  *out = v;
  return 1;
}

/* ---- Text values ----------------------------------------------------------------------------- */

int tqh__parse_u64(const char *s, uint64_t *out) {
  if (!s) return 0;
  unsigned base = 10;
  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s += 2;
  } else if (s[0] == '0' && s[1] == 'o') {
    base = 8;
    s += 2;
  }
  return tq_parse_u64(s, base, out);
}

int tqh__parse_i64(const char *s, int64_t *out) {
  if (!s) return 0;
  int neg = 0;
  if (*s == '-' || *s == '+') neg = *s++ == '-';
  uint64_t m;
  if (!tqh__parse_u64(s, &m)) return 0;
  if (neg ? m > (uint64_t)INT64_MAX + 1 : m > (uint64_t)INT64_MAX) return 0;
  *out = neg ? (m == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)m) : (int64_t)m;
  return 1;
}

int tqh__parse_double(const char *s, double *out) {
  if (!s || !*s) return 0;
  int64_t i;
  if (tqh__parse_i64(s, &i)) {
    *out = (double)i;
    return 1;
  }
  for (const char *p = s; *p; p++)
    if (!strchr("0123456789+-.eE", *p)) return 0; /* no hex floats, inf, nan */
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (*end || errno == ERANGE || !isfinite(v)) return 0;
  *out = v;
  return 1;
}

int tqh__parse_bool(const char *s, int *out) {
  static const char *const yes[] = {"true", "yes", "on", "1"};
  static const char *const no[] = {"false", "no", "off", "0"};
  for (size_t i = 0; i < 4; i++) {
    if (!strcasecmp(s, yes[i])) return *out = 1, 1;
    if (!strcasecmp(s, no[i])) return *out = 0, 1;
  }
  return 0;
}
