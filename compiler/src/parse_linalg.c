/* Custom op forms of models that mix TOSA with linalg on tensors: tensor.empty, linalg.fill and
 * linalg.matmul (named structured ops), linalg.generic, linalg.yield, and the scalar arith and
 * math ops of a linalg body. Each builds the IR MLIR 22 builds for it, checked against
 * mlir-opt-22 --mlir-print-op-generic: a named op gets the body MLIR gives it (its region is
 * implicit in the custom form), float ops the default fastmath flags, integer ops the default
 * overflow flags, comparisons their predicate number. */
#include <string.h>

#include "parser_internal.h"

/* ---- Which ops ------------------------------------------------------------------------------- */

typedef enum form_e {
  FORM_NONE,
  FORM_EMPTY,   /* tensor.empty() : T */
  FORM_NAMED,   /* linalg.fill / linalg.matmul [{attrs}] ins(...) outs(...) -> T */
  FORM_GENERIC, /* linalg.generic {attrs} ins(...) outs(...) [attrs = {...}] {body} -> T */
  FORM_YIELD,   /* linalg.yield %a, %b : A, B */
  FORM_BINARY,  /* arith.addf %a, %b [fastmath<...>|overflow<...>] : T */
  FORM_UNARY,   /* arith.negf / math.exp %a [fastmath<...>] : T */
  FORM_CAST,    /* arith.extsi %a [overflow<...>] : A to B */
  FORM_COMPARE, /* arith.cmpf ogt, %a, %b [fastmath<...>] : T */
  FORM_SELECT,  /* arith.select %c, %a, %b : T */
} form_t;

/* Default properties MLIR 22 adds. */
enum { FLAGS_NONE = 0, FLAGS_FASTMATH = 1, FLAGS_OVERFLOW = 2 };

typedef struct scalar_op_s {
  const char *name;
  form_t form;
  int flags;
} scalar_op_t;

/* clang-format off */
static const scalar_op_t scalar_ops[] = {
    {"arith.addf", FORM_BINARY, FLAGS_FASTMATH},    {"arith.subf", FORM_BINARY, FLAGS_FASTMATH},
    {"arith.mulf", FORM_BINARY, FLAGS_FASTMATH},    {"arith.divf", FORM_BINARY, FLAGS_FASTMATH},
    {"arith.maximumf", FORM_BINARY, FLAGS_FASTMATH}, {"arith.minimumf", FORM_BINARY, FLAGS_FASTMATH},
    {"arith.maxnumf", FORM_BINARY, FLAGS_FASTMATH}, {"arith.minnumf", FORM_BINARY, FLAGS_FASTMATH},
    {"arith.addi", FORM_BINARY, FLAGS_OVERFLOW},    {"arith.subi", FORM_BINARY, FLAGS_OVERFLOW},
    {"arith.muli", FORM_BINARY, FLAGS_OVERFLOW},    {"arith.shli", FORM_BINARY, FLAGS_OVERFLOW},
    {"arith.divsi", FORM_BINARY, FLAGS_NONE},       {"arith.divui", FORM_BINARY, FLAGS_NONE},
    {"arith.remsi", FORM_BINARY, FLAGS_NONE},       {"arith.remui", FORM_BINARY, FLAGS_NONE},
    {"arith.maxsi", FORM_BINARY, FLAGS_NONE},       {"arith.minsi", FORM_BINARY, FLAGS_NONE},
    {"arith.maxui", FORM_BINARY, FLAGS_NONE},       {"arith.minui", FORM_BINARY, FLAGS_NONE},
    {"arith.andi", FORM_BINARY, FLAGS_NONE},        {"arith.ori", FORM_BINARY, FLAGS_NONE},
    {"arith.xori", FORM_BINARY, FLAGS_NONE},        {"arith.shrsi", FORM_BINARY, FLAGS_NONE},
    {"arith.shrui", FORM_BINARY, FLAGS_NONE},
    {"arith.negf", FORM_UNARY, FLAGS_FASTMATH},     {"math.exp", FORM_UNARY, FLAGS_FASTMATH},
    {"math.log", FORM_UNARY, FLAGS_FASTMATH},       {"math.tanh", FORM_UNARY, FLAGS_FASTMATH},
    {"math.sqrt", FORM_UNARY, FLAGS_FASTMATH},      {"math.rsqrt", FORM_UNARY, FLAGS_FASTMATH},
    {"math.absf", FORM_UNARY, FLAGS_FASTMATH},
    {"arith.extf", FORM_CAST, FLAGS_NONE},          {"arith.truncf", FORM_CAST, FLAGS_NONE},
    {"arith.extsi", FORM_CAST, FLAGS_NONE},         {"arith.extui", FORM_CAST, FLAGS_NONE},
    {"arith.trunci", FORM_CAST, FLAGS_OVERFLOW},    {"arith.sitofp", FORM_CAST, FLAGS_NONE},
    {"arith.uitofp", FORM_CAST, FLAGS_NONE},        {"arith.fptosi", FORM_CAST, FLAGS_NONE},
    {"arith.fptoui", FORM_CAST, FLAGS_NONE},        {"arith.bitcast", FORM_CAST, FLAGS_NONE},
    {"arith.cmpf", FORM_COMPARE, FLAGS_FASTMATH},   {"arith.cmpi", FORM_COMPARE, FLAGS_NONE},
    {"arith.select", FORM_SELECT, FLAGS_NONE},
    {"linalg.yield", FORM_YIELD, FLAGS_NONE},       {"linalg.generic", FORM_GENERIC, FLAGS_NONE},
    {"linalg.fill", FORM_NAMED, FLAGS_NONE},        {"linalg.matmul", FORM_NAMED, FLAGS_NONE},
    {"tensor.empty", FORM_EMPTY, FLAGS_NONE},
};
/* clang-format on */

/* The predicates of arith.cmpf and arith.cmpi, in the order of their enum values. */
static const char *const cmpf_predicates[] = {"false", "oeq", "ogt", "oge",  "olt", "ole",
                                              "one",   "ord", "ueq", "ugt",  "uge", "ult",
                                              "ule",   "une", "uno", "true", NULL};
static const char *const cmpi_predicates[] = {"eq",  "ne",  "slt", "sle", "sgt", "sge",
                                              "ult", "ule", "ugt", "uge", NULL};

static const scalar_op_t *find(tq_sv_t name) {
  for (size_t i = 0; i < sizeof(scalar_ops) / sizeof(scalar_ops[0]); i++)
    if (tq_sv_eq_cstr(name, scalar_ops[i].name)) return &scalar_ops[i];
  return NULL;
}

const char *tqc__linalg_form_name(tq_sv_t name) {
  const scalar_op_t *s = find(name);
  return s ? s->name : NULL;
}

/* ---- Helpers --------------------------------------------------------------------------------- */

/* `T, U, ...` (exactly n) into out[]. */
static tq_status_t parse_types(tqc_parser_t *p, size_t n, const tqc_type_t **out) {
  for (size_t i = 0; i < n; i++) {
    if (i) TQ_TRY(tqc__expect(p, TQC_TOK_COMMA, "',' and the next type"));
    TQ_TRY(tqc__parse_type(p, &out[i]));
  }
  return NULL;
}

/* The flags property: the written `fastmath<...>` / `overflow<...>` when `written` (and there is
 * one), else MLIR's default (none). */
static tq_status_t flags_prop(tqc_parser_t *p, tqc_op_t *op, int flags, int written) {
  if (flags == FLAGS_NONE) return NULL;
  const char *word = flags == FLAGS_FASTMATH ? "fastmath" : "overflow";
  const char *dialect = flags == FLAGS_FASTMATH ? "arith.fastmath" : "arith.overflow";
  const char *prop = flags == FLAGS_FASTMATH ? "fastmath" : "overflowFlags";
  tq_sv_t body = tq_sv_cstr("none");
  if (written && tqc__is_keyword(p, word) && tqc__next_char(p) == '<') {
    tqc__advance(p);
    TQ_TRY(tqc__expect(p, TQC_TOK_LESS, "'<'"));
    size_t start = p->tok.offset;
    while (!tqc__is(p, TQC_TOK_GREATER) && !tqc__is(p, TQC_TOK_EOF)) tqc__advance(p);
    body = tq_sv(p->text + start, p->tok.offset - start);
    TQ_TRY(tqc__expect(p, TQC_TOK_GREATER, "'>' to end the flags"));
  }
  return tqc__add_prop(p, op, prop, tqc__make_dialect_attr(p, dialect, body));
}

static tq_status_t parse_attr_dict(tqc_parser_t *p, tqc_op_t *op) {
  if (!tqc__is(p, TQC_TOK_LBRACE)) return NULL;
  tqc_dict_t d;
  TQ_TRY(tqc__parse_dict(p, NULL, &d));
  return tqc__split_inherent(p, op, d);
}

/* ---- Scalar ops ------------------------------------------------------------------------------ */

static tq_status_t parse_scalar(tqc_parser_t *p, tqc_op_t *op, const scalar_op_t *s) {
  const tqc_type_t *t[3] = {NULL, NULL, NULL};
  if (s->form == FORM_COMPARE) {
    const char *const *names = s->flags == FLAGS_FASTMATH ? cmpf_predicates : cmpi_predicates;
    int64_t pred = -1;
    for (int64_t i = 0; names[i]; i++)
      if (tqc__is_keyword(p, names[i])) pred = i;
    if (pred < 0) return tqc__expected(p, "a comparison predicate");
    tqc__advance(p);
    TQ_TRY(tqc__expect(p, TQC_TOK_COMMA, "',' after the predicate"));
    tqc_attr_t *a = tqc__calloc(p, 1, sizeof(*a));
    if (!a) return tqc__nomem(p);
    a->kind = TQC_ATTR_INTEGER;
    a->integer.value = pred;
    a->integer.type = tqc__int_type(p, 64, TQC_SIGNLESS);
    TQ_TRY(tqc__add_prop(p, op, "predicate", a));
  }
  TQ_TRY(tqc__parse_operand_list(p, op));
  TQ_TRY(flags_prop(p, op, s->flags, 1));
  TQ_TRY(parse_attr_dict(p, op));
  TQ_TRY(tqc__expect(p, TQC_TOK_COLON, "':' and the type"));
  TQ_TRY(tqc__parse_type(p, &t[0]));
  size_t want = s->form == FORM_UNARY || s->form == FORM_CAST ? 1 : s->form == FORM_SELECT ? 3 : 2;
  if (op->num_operands != want)
    return tqc__error_at(p, op->pos.line, op->pos.col, "'%.*s' takes %zu operands, %zu given",
                         (int)op->name.len, op->name.data, want, op->num_operands);
  if (s->form == FORM_CAST) {
    if (!tqc__accept_keyword(p, "to")) return tqc__expected(p, "'to' and the result type");
    const tqc_type_t *out = NULL;
    TQ_TRY(tqc__parse_type(p, &out));
    return tqc__set_op_types(p, op, 1, t, 1, &out);
  }
  if (s->form == FORM_SELECT) {
    const tqc_type_t *in[3] = {tqc__int_type(p, 1, TQC_SIGNLESS), t[0], t[0]};
    return tqc__set_op_types(p, op, 3, in, 1, &t[0]);
  }
  const tqc_type_t *in[2] = {t[0], t[0]};
  const tqc_type_t *out = s->form == FORM_COMPARE ? tqc__int_type(p, 1, TQC_SIGNLESS) : t[0];
  return tqc__set_op_types(p, op, want, in, 1, &out);
}

static tq_status_t parse_yield(tqc_parser_t *p, tqc_op_t *op) {
  if (!tqc__is(p, TQC_TOK_PERCENT_ID)) return tqc__set_op_types(p, op, 0, NULL, 0, NULL);
  TQ_TRY(tqc__parse_operand_list(p, op));
  TQ_TRY(tqc__expect(p, TQC_TOK_COLON, "':' and the operand types"));
  const tqc_type_t **t = tqc__calloc(p, op->num_operands, sizeof(*t));
  if (!t) return tqc__nomem(p);
  TQ_TRY(parse_types(p, op->num_operands, t));
  return tqc__set_op_types(p, op, op->num_operands, t, 0, NULL);
}

/* ---- tensor.empty, linalg.fill, linalg.matmul, linalg.generic ------------------------------- */

static tq_status_t parse_empty(tqc_parser_t *p, tqc_op_t *op) {
  TQ_TRY(tqc__expect(p, TQC_TOK_LPAREN, "'('"));
  if (!tqc__is(p, TQC_TOK_RPAREN))
    return tqc__error(p, "tensor.empty with dynamic sizes is not supported");
  TQ_TRY(tqc__expect(p, TQC_TOK_RPAREN, "')'"));
  TQ_TRY(parse_attr_dict(p, op));
  TQ_TRY(tqc__expect(p, TQC_TOK_COLON, "':' and the result type"));
  const tqc_type_t *t = NULL;
  TQ_TRY(tqc__parse_type(p, &t));
  return tqc__set_op_types(p, op, 0, NULL, 1, &t);
}

/* `ins(%a, %b : A, B) outs(%c : C)`: operands and their types; `ins(...)` may be absent. */
static tq_status_t parse_ins_outs(tqc_parser_t *p, tqc_op_t *op, size_t *out_ins,
                                  const tqc_type_t ***out_types) {
  size_t mark = p->scratch.len, n[2] = {0, 0};
  static const char *const words[2] = {"ins", "outs"};
  const tqc_type_t *tbuf[64];
  for (int k = 0; k < 2; k++) {
    if (!tqc__accept_keyword(p, words[k])) {
      if (k == 0) continue;
      return tqc__expected(p, "'outs(...)'");
    }
    TQ_TRY(tqc__expect(p, TQC_TOK_LPAREN, "'('"));
    do {
      tqc_operand_ref_t r;
      TQ_TRY(tqc__parse_value_use(p, &r.value, &r.pos));
      TQ_TRY(tqc__push(p, &r, sizeof(r)));
      n[k]++;
    } while (tqc__accept(p, TQC_TOK_COMMA));
    TQ_TRY(tqc__expect(p, TQC_TOK_COLON, "':' and the operand types"));
    if (n[0] + n[1] > 64) return tqc__error(p, "more than 64 operands");
    TQ_TRY(parse_types(p, n[k], tbuf + (k ? n[0] : 0)));
    TQ_TRY(tqc__expect(p, TQC_TOK_RPAREN, "')'"));
  }
  void *data = NULL;
  size_t bytes = 0;
  TQ_TRY(tqc__pop_to_arena(p, mark, &data, &bytes));
  TQ_TRY(tqc__set_operands(p, op, data, n[0] + n[1]));
  const tqc_type_t **types = tqc__calloc(p, n[0] + n[1], sizeof(*types));
  if (!types) return tqc__nomem(p);
  memcpy(types, tbuf, (n[0] + n[1]) * sizeof(*types));
  *out_ins = n[0];
  *out_types = types;
  int32_t seg[2] = {(int32_t)n[0], (int32_t)n[1]};
  int64_t seg64[2] = {seg[0], seg[1]};
  return tqc__add_prop(p, op, "operandSegmentSizes",
                       tqc__make_dense_array(p, tqc__int_type(p, 32, TQC_SIGNLESS), seg64, 2));
}

/* `-> T, U` after a structured op: its results (none when absent). */
static tq_status_t parse_results(tqc_parser_t *p, tqc_op_t *op, const tqc_type_t **in) {
  const tqc_type_t *out[16];
  size_t nr = 0;
  if (tqc__accept(p, TQC_TOK_ARROW)) {
    do {
      if (nr == 16) return tqc__error(p, "more than 16 results");
      TQ_TRY(tqc__parse_type(p, &out[nr++]));
    } while (tqc__accept(p, TQC_TOK_COMMA));
  }
  return tqc__set_op_types(p, op, op->num_operands, in, nr, out);
}

/* A block of the implicit body of a named op: arguments of `types` (loc(unknown)). */
static tqc_block_t *body_block(tqc_parser_t *p, tqc_op_t *op, size_t n,
                               const tqc_type_t *const *types) {
  tqc_region_t *r = tqc__calloc(p, 1, sizeof(*r));
  tqc_block_t **blocks = tqc__calloc(p, 1, sizeof(*blocks));
  tqc_block_t *b = tqc__new_block(p);
  tqc_value_t **args = tqc__calloc(p, n, sizeof(*args));
  if (!r || !blocks || !b || !args) return NULL;
  for (size_t i = 0; i < n; i++) {
    if (!(args[i] = tqc__new_value(p))) return NULL;
    args[i]->type = types[i];
    args[i]->block = b;
    args[i]->index = i;
  }
  b->args = args;
  b->num_args = n;
  b->parent = r;
  blocks[0] = b;
  r->blocks = blocks;
  r->num_blocks = 1;
  r->parent = op;
  op->regions = r;
  op->num_regions = 1;
  return b;
}

/* Appends `name`(operands) -> result type `rt` (NULL: none) to block `b`; returns its result
 * (or a non-NULL dummy for no result), NULL when memory runs out. */
static tqc_value_t *body_op(tqc_parser_t *p, tqc_block_t *b, const char *name, size_t n,
                            tqc_value_t *const *operands, const tqc_type_t *rt, int flags) {
  tqc_op_t *op = tqc__new_op(p, name, (tqc_srcpos_t){0, 0});
  if (!op) return NULL;
  tqc_operand_ref_t refs[2];
  const tqc_type_t *in[2];
  for (size_t i = 0; i < n; i++) {
    refs[i].value = operands[i];
    refs[i].pos = (tqc_srcpos_t){0, 0};
    in[i] = operands[i]->type;
  }
  tq_status_t st = tqc__set_operands(p, op, refs, n);
  if (!st) st = flags_prop(p, op, flags, 0);
  if (!st) st = tqc__set_op_types(p, op, n, in, rt ? 1 : 0, &rt);
  if (st) {
    tq_status_free(st);
    return NULL;
  }
  op->parent = b;
  if (b->last)
    b->last->next = op;
  else
    b->first = op;
  b->last = op;
  b->num_ops++;
  return rt ? op->results[0] : operands[0];
}

/* The cast linalg's named ops apply (cast_signed) from `v`'s type to `to`; `v` when equal. */
static tqc_value_t *body_cast(tqc_parser_t *p, tqc_block_t *b, tqc_value_t *v,
                              const tqc_type_t *to) {
  const tqc_type_t *from = v->type;
  if (tqc_type_equal(from, to)) return v;
  int fi = from->kind == TQC_TYPE_INTEGER, ti = to->kind == TQC_TYPE_INTEGER;
  uint32_t fw = tqc_type_bit_width(from), tw = tqc_type_bit_width(to);
  const char *name = fi && ti  ? (tw > fw ? "arith.extsi" : "arith.trunci")
                     : fi      ? "arith.sitofp"
                     : ti      ? "arith.fptosi"
                     : tw > fw ? "arith.extf"
                               : "arith.truncf";
  return body_op(p, b, name, 1, &v, to, strcmp(name, "arith.trunci") == 0 ? FLAGS_OVERFLOW : 0);
}

/* The body MLIR gives linalg.fill and linalg.matmul, from the element types of the operands. */
static tq_status_t named_body(tqc_parser_t *p, tqc_op_t *op, const tqc_type_t **types) {
  const tqc_type_t *elem[3];
  size_t n = op->num_operands;
  int fill = tq_sv_eq_cstr(op->name, "linalg.fill");
  if (n != (fill ? 2u : 3u))
    return tqc__error_at(p, op->pos.line, op->pos.col, "'%.*s' takes %s", (int)op->name.len,
                         op->name.data,
                         fill ? "one input and one output" : "two inputs and one output");
  for (size_t i = 0; i < n; i++) {
    elem[i] = types[i]->kind == TQC_TYPE_TENSOR ? types[i]->tensor.element : types[i];
    if (elem[i]->kind != TQC_TYPE_INTEGER && elem[i]->kind != TQC_TYPE_FLOAT)
      return tqc__error_at(p, op->pos.line, op->pos.col,
                           "'%.*s': operand %zu has no integer or float elements",
                           (int)op->name.len, op->name.data, i);
  }
  tqc_block_t *b = body_block(p, op, n, elem);
  if (!b) return tqc__nomem(p);
  tqc_value_t *v;
  if (n == 2) {
    if (!tqc_type_equal(elem[0], elem[1]))
      return tqc__error_at(p, op->pos.line, op->pos.col,
                           "linalg.fill of a value of another type than the output's elements is "
                           "not supported");
    v = b->args[0];
  } else {
    tqc_value_t *a = body_cast(p, b, b->args[0], elem[2]);
    tqc_value_t *c = a ? body_cast(p, b, b->args[1], elem[2]) : NULL;
    int fl = elem[2]->kind == TQC_TYPE_FLOAT;
    tqc_value_t *mul_in[2] = {a, c};
    tqc_value_t *mul = c ? body_op(p, b, fl ? "arith.mulf" : "arith.muli", 2, mul_in, elem[2],
                                   fl ? FLAGS_FASTMATH : FLAGS_OVERFLOW)
                         : NULL;
    tqc_value_t *add_in[2] = {b->args[2], mul};
    v = mul ? body_op(p, b, fl ? "arith.addf" : "arith.addi", 2, add_in, elem[2],
                      fl ? FLAGS_FASTMATH : FLAGS_OVERFLOW)
            : NULL;
  }
  if (!v || !body_op(p, b, "linalg.yield", 1, &v, NULL, 0)) return tqc__nomem(p);
  return NULL;
}

/* The default indexing maps of linalg.matmul, which MLIR 22 writes as a property. */
static tq_status_t matmul_maps(tqc_parser_t *p, tqc_op_t *op) {
  static const char *const maps[3] = {"affine_map<(d0, d1, d2) -> (d0, d2)>",
                                      "affine_map<(d0, d1, d2) -> (d2, d1)>",
                                      "affine_map<(d0, d1, d2) -> (d0, d1)>"};
  const tqc_attr_t **items = tqc__calloc(p, 3, sizeof(*items)); /* the array keeps them */
  if (!items) return tqc__nomem(p);
  for (int i = 0; i < 3; i++) {
    tqc_attr_t *a = tqc__calloc(p, 1, sizeof(*a));
    if (!a) return tqc__nomem(p);
    a->kind = TQC_ATTR_OPAQUE;
    a->opaque.text = tq_sv_cstr(maps[i]);
    items[i] = a;
  }
  return tqc__add_prop(p, op, "indexing_maps", tqc__make_array_attr(p, 3, items));
}

static tq_status_t parse_named(tqc_parser_t *p, tqc_op_t *op) {
  if (tqc__is_keyword(p, "indexing_maps"))
    return tqc__error(p, "linalg.matmul with explicit indexing_maps is not supported");
  TQ_TRY(parse_attr_dict(p, op));
  size_t ins = 0;
  const tqc_type_t **types = NULL;
  TQ_TRY(parse_ins_outs(p, op, &ins, &types));
  if (tq_sv_eq_cstr(op->name, "linalg.matmul")) TQ_TRY(matmul_maps(p, op));
  TQ_TRY(parse_results(p, op, types));
  return named_body(p, op, types);
}

/* iterator_types = ["parallel", "reduction"] becomes MLIR 22's #linalg.iterator_type<...>. */
static tq_status_t iterator_types(tqc_parser_t *p, tqc_dict_t *d) {
  for (size_t i = 0; i < d->count; i++) {
    const tqc_attr_t *a = d->entries[i].value;
    if (!tq_sv_eq_cstr(d->entries[i].name, "iterator_types") || a->kind != TQC_ATTR_ARRAY) continue;
    const tqc_attr_t **items = tqc__calloc(p, a->array.count + 1, sizeof(*items));
    if (!items) return tqc__nomem(p);
    for (size_t k = 0; k < a->array.count; k++) {
      items[k] = a->array.items[k];
      if (items[k]->kind != TQC_ATTR_STRING) continue;
      items[k] = tqc__make_dialect_attr(p, "linalg.iterator_type", items[k]->string);
      if (!items[k]) return tqc__nomem(p);
    }
    tqc_named_attr_t *e = tqc__calloc(p, d->count, sizeof(*e));
    if (!e) return tqc__nomem(p);
    memcpy(e, d->entries, d->count * sizeof(*e));
    e[i].value = tqc__make_array_attr(p, a->array.count, items);
    if (!e[i].value) return tqc__nomem(p);
    d->entries = e;
  }
  return NULL;
}

static tq_status_t parse_generic(tqc_parser_t *p, tqc_op_t *op) {
  tqc_dict_t d;
  if (!tqc__is(p, TQC_TOK_LBRACE)) return tqc__expected(p, "'{' and the indexing maps");
  TQ_TRY(tqc__parse_dict(p, NULL, &d));
  TQ_TRY(iterator_types(p, &d));
  TQ_TRY(tqc__split_inherent(p, op, d));
  size_t ins = 0;
  const tqc_type_t **types = NULL;
  TQ_TRY(parse_ins_outs(p, op, &ins, &types));
  if (tqc__accept_keyword(p, "attrs")) {
    TQ_TRY(tqc__expect(p, TQC_TOK_EQUAL, "'=' after 'attrs'"));
    tqc_dict_t extra;
    TQ_TRY(tqc__parse_dict(p, NULL, &extra));
    op->attributes = extra;
  }
  op->regions = tqc__calloc(p, 1, sizeof(tqc_region_t));
  if (!op->regions) return tqc__nomem(p);
  op->num_regions = 1;
  TQ_TRY(tqc__parse_region(p, op, &op->regions[0], NULL, NULL, 0, 0));
  return parse_results(p, op, types);
}

tq_status_t tqc__parse_linalg_form(tqc_parser_t *p, tqc_op_t *op) {
  const scalar_op_t *s = find(op->name);
  if (!s) return tqc__error_at(p, op->pos.line, op->pos.col, "internal: no custom form");
  switch (s->form) {
    case FORM_EMPTY:
      return parse_empty(p, op);
    case FORM_NAMED:
      return parse_named(p, op);
    case FORM_GENERIC:
      return parse_generic(p, op);
    case FORM_YIELD:
      return parse_yield(p, op);
    default:
      return parse_scalar(p, op, s);
  }
}
