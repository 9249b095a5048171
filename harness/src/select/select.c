/* -k and -m expressions (select.h): a small recursive-descent parser into a node array. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "torq/base/alloc.h"
#include "torq/harness/select.h"

#define SELECT_MAX_LEN ((size_t)64 * 1024)
#define SELECT_MAX_DEPTH 256

typedef enum op_e { OP_WORD, OP_NOT, OP_AND, OP_OR } op_t;

typedef struct node_s {
  op_t op;
  size_t a, b;      /* operand indices */
  size_t word, len; /* OP_WORD: offset and length in text */
} node_t;

struct tqh_select_s {
  tqh_select_kind_t kind;
  char *text;    /* owned copy */
  node_t *nodes; /* owned */
  size_t count, cap;
  size_t root; /* SIZE_MAX: empty expression (match all) */
};

typedef enum tok_e { T_END, T_WORD, T_AND, T_OR, T_NOT, T_LPAREN, T_RPAREN } tok_t;

typedef struct parser_s {
  tqh_select_t *sel;
  const char *text;
  const char *option;
  size_t pos; /* next byte */
  tok_t tok;  /* current token */
  size_t tok_start, tok_len;
  size_t depth;
  tq_status_t error;
} parser_t;

static int is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static void next(parser_t *p) {
  const char *t = p->text;
  while (is_space(t[p->pos])) p->pos++;
  p->tok_start = p->pos;
  char c = t[p->pos];
  if (!c) {
    p->tok = T_END;
    p->tok_len = 0;
    return;
  }
  if (c == '(' || c == ')') {
    p->tok = c == '(' ? T_LPAREN : T_RPAREN;
    p->tok_len = 1;
    p->pos++;
    return;
  }
  size_t e = p->pos;
  while (t[e] && !is_space(t[e]) && t[e] != '(' && t[e] != ')') e++;
  p->tok_len = e - p->pos;
  p->pos = e;
  const char *w = t + p->tok_start;
  if (p->tok_len == 3 && !memcmp(w, "and", 3))
    p->tok = T_AND;
  else if (p->tok_len == 2 && !memcmp(w, "or", 2))
    p->tok = T_OR;
  else if (p->tok_len == 3 && !memcmp(w, "not", 3))
    p->tok = T_NOT;
  else
    p->tok = T_WORD;
}

/* The 1-based column of byte `at` (characters, for UTF-8). */
static size_t column(const char *text, size_t at) {
  size_t col = 1;
  for (size_t i = 0; i < at && text[i]; i++)
    if (((unsigned char)text[i] & 0xC0) != 0x80) col++;
  return col;
}

static void fail(parser_t *p, size_t at, const char *fmt, ...) TQ_PRINTF(3, 4);
static void fail(parser_t *p, size_t at, const char *fmt, ...) {
  if (p->error) return;
  char msg[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  tq_buf_t b;
  tq_buf_init(&b, 0);
  size_t len = strlen(p->text);
  tq_status_t st = tq_buf_printf(&b, "%s \"%.200s%s\": column %zu: %s\n  ", p->option, p->text,
                                 len > 200 ? "..." : "", column(p->text, at), msg);
  /* The expression and a caret, when the line is short enough to read. */
  if (!st && len <= 200) {
    for (size_t i = 0; !st && i < len; i++) {
      unsigned char c = (unsigned char)p->text[i];
      st = tq_buf_putc(&b, c < 0x20 ? ' ' : (char)c);
    }
    if (!st) st = tq_buf_append_cstr(&b, "\n  ");
    for (size_t i = 0; !st && i < at && i < len; i++)
      if (((unsigned char)p->text[i] & 0xC0) != 0x80) st = tq_buf_putc(&b, ' ');
    if (!st) st = tq_buf_putc(&b, '^');
  }
  p->error = st ? st : TQ_STATUS(TQ_INVALID_ARGUMENT, "%s", b.data);
  tq_buf_deinit(&b);
}

static size_t add(parser_t *p, node_t n) {
  tqh_select_t *s = p->sel;
  if (s->count == s->cap) {
    size_t cap = s->cap ? s->cap * 2 : 16;
    node_t *nodes = tq_realloc(s->nodes, cap * sizeof(*nodes));
    if (!nodes) {
      if (!p->error) p->error = TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory parsing %s", p->option);
      return 0;
    }
    s->nodes = nodes;
    s->cap = cap;
  }
  s->nodes[s->count] = n;
  return s->count++;
}

static const char *tok_desc(tok_t t) {
  switch (t) {
    case T_END:
      return "the end";
    case T_AND:
      return "\"and\"";
    case T_OR:
      return "\"or\"";
    case T_NOT:
      return "\"not\"";
    case T_LPAREN:
      return "\"(\"";
    case T_RPAREN:
      return "\")\"";
    case T_WORD:
      break;
  }
  return "a name";
}

static size_t parse_or(parser_t *p);

static size_t parse_not(parser_t *p, const char *after) {
  if (p->error) return 0;
  if (++p->depth > SELECT_MAX_DEPTH) {
    fail(p, p->tok_start, "nested deeper than %d levels", SELECT_MAX_DEPTH);
    return 0;
  }
  size_t r = 0;
  if (p->tok == T_NOT) {
    next(p);
    size_t a = parse_not(p, "\"not\"");
    r = add(p, (node_t){OP_NOT, a, 0, 0, 0});
  } else if (p->tok == T_LPAREN) {
    size_t open = p->tok_start;
    next(p);
    r = parse_or(p);
    if (!p->error && p->tok != T_RPAREN) {
      if (p->tok == T_END)
        fail(p, p->tok_start, "missing \")\" to close the \"(\" at column %zu",
             column(p->text, open));
      else
        fail(p, p->tok_start, "expected \"and\", \"or\" or \")\", found %s \"%.*s\"",
             tok_desc(p->tok), (int)(p->tok_len > 40 ? 40 : p->tok_len), p->text + p->tok_start);
    }
    next(p);
  } else if (p->tok == T_WORD) {
    r = add(p, (node_t){OP_WORD, 0, 0, p->tok_start, p->tok_len});
    next(p);
  } else if (after) {
    fail(p, p->tok_start, "expected a name, \"not\" or \"(\" after %s, found %s", after,
         tok_desc(p->tok));
  } else {
    fail(p, p->tok_start, "expected a name, \"not\" or \"(\", found %s", tok_desc(p->tok));
  }
  p->depth--;
  return r;
}

static size_t parse_and(parser_t *p) {
  size_t a = parse_not(p, NULL);
  while (!p->error && p->tok == T_AND) {
    next(p);
    size_t b = parse_not(p, "\"and\"");
    a = add(p, (node_t){OP_AND, a, b, 0, 0});
  }
  return a;
}

static size_t parse_or(parser_t *p) {
  size_t a = parse_and(p);
  while (!p->error && p->tok == T_OR) {
    next(p);
    if (p->tok != T_WORD && p->tok != T_NOT && p->tok != T_LPAREN) {
      fail(p, p->tok_start, "expected a name, \"not\" or \"(\" after \"or\", found %s",
           tok_desc(p->tok));
      return a;
    }
    size_t b = parse_and(p);
    a = add(p, (node_t){OP_OR, a, b, 0, 0});
  }
  return a;
}

tq_status_t tqh_select_parse(const char *text, tqh_select_kind_t kind, const char *option,
                             tqh_select_t **out_select) {
  *out_select = NULL;
  if (!option) option = kind == TQH_SELECT_KEYWORD ? "-k" : "-m";
  size_t len = strlen(text);
  if (len > SELECT_MAX_LEN)
    return TQ_STATUS(TQ_INVALID_ARGUMENT, "%s: the expression is longer than %zu bytes", option,
                     SELECT_MAX_LEN);
  tqh_select_t *s = tq_calloc(1, sizeof(*s));
  if (!s || !(s->text = tq_strndup(text, len))) {
    tq_free(s);
    return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory parsing %s", option);
  }
  s->kind = kind;
  s->root = SIZE_MAX;
  parser_t p = {s, s->text, option, 0, T_END, 0, 0, 0, NULL};
  next(&p);
  if (p.tok != T_END) {
    s->root = parse_or(&p);
    if (!p.error && p.tok != T_END) {
      if (p.tok == T_RPAREN)
        fail(&p, p.tok_start, "unexpected \")\" (no \"(\" to close)");
      else
        fail(&p, p.tok_start, "expected \"and\", \"or\" or the end, found %s \"%.*s\"",
             tok_desc(p.tok), (int)(p.tok_len > 40 ? 40 : p.tok_len), p.text + p.tok_start);
    }
  }
  if (p.error) {
    tqh_select_destroy(s);
    return p.error;
  }
  *out_select = s;
  return NULL;
}

void tqh_select_destroy(tqh_select_t *select) {
  if (!select) return;
  tq_free(select->nodes);
  tq_free(select->text);
  tq_free(select);
}

static int contains_nocase(const char *hay, const char *needle, size_t n) {
  if (n == 0) return 1;
  for (const char *h = hay; *h; h++) {
    size_t i = 0;
    while (i < n && h[i] && tolower((unsigned char)h[i]) == tolower((unsigned char)needle[i])) i++;
    if (i == n) return 1;
  }
  return 0;
}

typedef struct subject_s {
  const char *id;
  const char *const *tags;
  size_t tag_count;
} subject_t;

static int eval(const tqh_select_t *s, size_t i, const subject_t *subj) {
  const node_t *n = &s->nodes[i];
  switch (n->op) {
    case OP_WORD: {
      const char *w = s->text + n->word;
      if (s->kind == TQH_SELECT_KEYWORD) return subj->id && contains_nocase(subj->id, w, n->len);
      for (size_t t = 0; t < subj->tag_count; t++)
        if (strlen(subj->tags[t]) == n->len && !memcmp(subj->tags[t], w, n->len)) return 1;
      return 0;
    }
    case OP_NOT:
      return !eval(s, n->a, subj);
    case OP_AND:
    case OP_OR: {
      /* Chains are left-deep ("a or b or c" is ((a or b) or c)): walk the spine in a loop, so
       * that a long chain costs no stack. */
      op_t op = n->op;
      size_t cur = i;
      while (s->nodes[cur].op == op) {
        int v = eval(s, s->nodes[cur].b, subj);
        if (op == OP_OR ? v : !v) return op == OP_OR;
        cur = s->nodes[cur].a;
      }
      return eval(s, cur, subj);
    }
  }
  return 0;
}

int tqh_select_match_id(const tqh_select_t *select, const char *id) {
  if (!select || select->root == SIZE_MAX) return 1;
  subject_t subj = {id, NULL, 0};
  return eval(select, select->root, &subj);
}

int tqh_select_match_tags(const tqh_select_t *select, const char *const *tags, size_t tag_count) {
  if (!select || select->root == SIZE_MAX) return 1;
  subject_t subj = {NULL, tags, tag_count};
  return eval(select, select->root, &subj);
}

size_t tqh_select_name_count(const tqh_select_t *select) {
  size_t n = 0;
  for (size_t i = 0; select && i < select->count; i++) n += select->nodes[i].op == OP_WORD;
  return n;
}

void tqh_select_name(const tqh_select_t *select, size_t i, char *out, size_t size) {
  if (!size) return;
  out[0] = 0;
  /* Words are made in the order the parser meets them, which is the order written. */
  for (size_t k = 0; select && k < select->count; k++) {
    const node_t *n = &select->nodes[k];
    if (n->op != OP_WORD || i--) continue;
    snprintf(out, size, "%.*s", (int)n->len, select->text + n->word);
    return;
  }
}

int tqh_select_test(const tqh_select_t *keyword, const tqh_select_t *marker,
                    const tqh_test_t *test) {
  return tqh_select_match_id(keyword, test->id) &&
         tqh_select_match_tags(marker, test->tags, test->tag_count);
}
