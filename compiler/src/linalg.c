/* The reference interpreter's form of linalg structured ops (linalg_internal.h). */
#include "linalg_internal.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lower_internal.h"
#include "torq/base/str.h"
#include "torq/formats/element.h"

#define MAX_OPERANDS 16
#define MAX_LOOPS 16

/* The scalar ops a body may hold (the reference interpreter runs exactly these). */
static const char *const body_ops[] = {
    "arith.addf",     "arith.subf",    "arith.mulf",    "arith.divf",   "arith.maximumf",
    "arith.minimumf", "arith.maxnumf", "arith.minnumf", "arith.negf",   "arith.addi",
    "arith.subi",     "arith.muli",    "arith.divsi",   "arith.divui",  "arith.remsi",
    "arith.remui",    "arith.maxsi",   "arith.minsi",   "arith.maxui",  "arith.minui",
    "arith.andi",     "arith.ori",     "arith.xori",    "arith.shli",   "arith.shrsi",
    "arith.shrui",    "arith.extf",    "arith.truncf",  "arith.extsi",  "arith.extui",
    "arith.trunci",   "arith.sitofp",  "arith.uitofp",  "arith.fptosi", "arith.fptoui",
    "arith.bitcast",  "arith.cmpf",    "arith.cmpi",    "arith.select", "math.exp",
    "math.log",       "math.tanh",     "math.sqrt",     "math.rsqrt",   "math.absf",
    "linalg.yield",
};

static const char *const cmpf_predicates[] = {"false", "oeq", "ogt", "oge", "olt", "ole",
                                              "one",   "ord", "ueq", "ugt", "uge", "ult",
                                              "ule",   "une", "uno", "true"};
static const char *const cmpi_predicates[] = {"eq",  "ne",  "slt", "sle", "sgt",
                                              "sge", "ult", "ule", "ugt", "uge"};

int tqc__linalg_is_op(const tqc_op_t *op) {
  return tqc_op_is(op, "tensor.empty") || tqc_op_is(op, "linalg.fill") ||
         tqc_op_is(op, "linalg.matmul") || tqc_op_is(op, "linalg.generic");
}

/* ---- Scalar types --------------------------------------------------------------------------- */

/* The interpreter's name of a scalar type (element.h's name of i1 i8 i16 i32 i64 bf16 f16 f32);
 * NULL for the others. */
static const char *scalar_name(const tqc_type_t *t) {
  if (!t) return NULL;
  int ok = t->kind == TQC_TYPE_FLOAT ? t->flt.fkind != TQC_F64
           : t->kind == TQC_TYPE_INTEGER
               ? t->integer.signedness != TQC_UNSIGNED &&
                     (t->integer.width == 1 || t->integer.width == 8 || t->integer.width == 16 ||
                      t->integer.width == 32 || t->integer.width == 64)
               : 0;
  return ok ? tqf_element_name(tqc__element_type(t)) : NULL;
}

/* ---- Indexing maps -------------------------------------------------------------------------- */

static const char *skip_space(const char *s, const char *end) {
  while (s < end && (*s == ' ' || *s == '\n' || *s == '\t')) s++;
  return s;
}

/* A parenthesised list of words, "(d0, d1)" or "()", at *s: the words (at most `cap`) in out[]
 * and their count, *s moved past the list; -1 when it is not one. A word runs up to a comma, a
 * parenthesis or a space. */
static int word_list(const char **s, const char *end, tq_sv_t *out, size_t cap) {
  const char *p = skip_space(*s, end);
  size_t n = 0;
  if (p >= end || *p++ != '(') return -1;
  p = skip_space(p, end);
  while (p < end && *p != ')') {
    const char *b = p;
    while (p < end && *p != ',' && *p != ')' && *p != ' ' && *p != '(') p++;
    if (p == b || n == cap) return -1;
    out[n++] = tq_sv(b, (size_t)(p - b));
    p = skip_space(p, end);
    if (p < end && *p == ',') p = skip_space(p + 1, end);
  }
  if (p >= end) return -1;
  *s = p + 1;
  return (int)n;
}

/* An affine map as text, "affine_map<(d0, d1) -> (d1, 0)>": its results as loop indices (-1 for
 * the constant 0) in out[] (at most `cap`). Returns the number of results, or -1 for a map that
 * is not a list of dimensions and zeros over `loops` dimensions (symbols `[s0]` are refused). */
static int parse_map(tq_sv_t text, size_t loops, int64_t *out, size_t cap) {
  const char *s = text.data, *end = text.data + text.len;
  tq_sv_t dims[MAX_LOOPS], results[MAX_LOOPS];
  if (text.len < 12 || memcmp(s, "affine_map<", 11) != 0) return -1;
  s += 11;
  int nd = word_list(&s, end, dims, MAX_LOOPS);
  s = skip_space(s, end);
  if (nd < 0 || (size_t)nd != loops || s + 1 >= end || s[0] != '-' || s[1] != '>') return -1;
  s += 2;
  int nr = word_list(&s, end, results, cap < MAX_LOOPS ? cap : MAX_LOOPS);
  s = skip_space(s, end);
  if (nr < 0 || s >= end || *s != '>') return -1;
  for (int r = 0; r < nr; r++) {
    out[r] = tq_sv_eq_cstr(results[r], "0") ? -1 : -2;
    for (int d = 0; d < nd && out[r] == -2; d++)
      if (tq_sv_eq(results[r], dims[d])) out[r] = d;
    if (out[r] == -2) return -1;
  }
  return nr;
}

static size_t rank_of(const tqc_type_t *t) {
  return t && t->kind == TQC_TYPE_TENSOR && t->tensor.ranked ? t->tensor.rank : 0;
}

/* ---- The body ------------------------------------------------------------------------------- */

typedef struct body_s {
  tq_buf_t text;
  const tqc_value_t *vals[256]; /* value number -> value */
  size_t n;
} body_t;

/* TQ_UNIMPLEMENTED "<what> is not supported" (the caller says where). */
static tq_status_t unsupported(const tqc_op_t *op, const char *fmt, ...) TQ_PRINTF(2, 3);
static tq_status_t unsupported(const tqc_op_t *op, const char *fmt, ...) {
  char msg[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  (void)op;
  return TQ_STATUS(TQ_UNIMPLEMENTED, "%s is not supported", msg);
}

/* The number of `v` in the body, emitting a constant defined outside it on first use. */
static tq_status_t value_number(const tqc_op_t *op, body_t *b, const tqc_value_t *v, size_t *out);

static tq_status_t emit_constant(const tqc_op_t *op, body_t *b, const tqc_value_t *v) {
  const tqc_attr_t *a = v->def ? tqc_op_attr(v->def, "value") : NULL;
  const char *type = scalar_name(v->type);
  if (!a || !type || !tqc_op_is(v->def, "arith.constant"))
    return unsupported(op, "a value from outside the body that is not a constant");
  if (b->n == sizeof(b->vals) / sizeof(b->vals[0]))
    return unsupported(op, "a body of more than 256 values");
  if (a->kind == TQC_ATTR_FLOAT) {
    TQ_TRY(tq_buf_printf(&b->text, "arith.constant %s %a\n", type,
                         tqc_float_decode(a->flt.type->flt.fkind, a->flt.bits)));
  } else if (a->kind == TQC_ATTR_INTEGER || a->kind == TQC_ATTR_BOOL) {
    int64_t value = a->kind == TQC_ATTR_BOOL ? a->boolean : a->integer.value;
    TQ_TRY(tq_buf_printf(&b->text, "arith.constant %s %" PRId64 "\n", type, value));
  } else {
    return unsupported(op, "a body constant that is not an integer or a float");
  }
  b->vals[b->n++] = v;
  return NULL;
}

static tq_status_t value_number(const tqc_op_t *op, body_t *b, const tqc_value_t *v, size_t *out) {
  for (size_t i = 0; i < b->n; i++) {
    if (b->vals[i] == v) {
      *out = i;
      return NULL;
    }
  }
  TQ_TRY(emit_constant(op, b, v));
  *out = b->n - 1;
  return NULL;
}

static int known_body_op(const tqc_op_t *o) {
  for (size_t i = 0; i < sizeof(body_ops) / sizeof(body_ops[0]); i++)
    if (tqc_op_is(o, body_ops[i])) return 1;
  return tqc_op_is(o, "arith.constant");
}

/* One line per body op: "<op> <result type> <operand numbers>" ("<op> <type> <value>" for a
 * constant, the predicate's name last for a comparison, no type for linalg.yield). */
static tq_status_t encode_body(const tqc_op_t *op, const tqc_block_t *blk, size_t n_outs,
                               body_t *b) {
  if (blk->num_args != op->num_operands)
    return TQ_STATUS(TQ_INVALID_INPUT, "the body has %zu arguments for %zu operands",
                     blk->num_args, op->num_operands);
  for (size_t i = 0; i < blk->num_args; i++) {
    if (!scalar_name(blk->args[i]->type))
      return unsupported(op,
                         "a body argument of a type other than i1, i8, i16, i32, i64, bf16, "
                         "f16 or f32");
    b->vals[b->n++] = blk->args[i];
  }
  for (const tqc_op_t *o = blk->first; o; o = o->next) {
    char name[64];
    snprintf(name, sizeof(name), "%.*s", (int)o->name.len, o->name.data);
    if (!known_body_op(o)) return unsupported(op, "the body op %s", name);
    if (tqc_op_is(o, "arith.constant")) {
      TQ_TRY(emit_constant(op, b, o->results[0]));
      continue;
    }
    size_t nums[8];
    if (o->num_operands > 8 || o->num_results > 1)
      return unsupported(op, "the body op %s with more than 8 operands or 1 result", name);
    for (size_t i = 0; i < o->num_operands; i++)
      TQ_TRY(value_number(op, b, o->operands[i], &nums[i]));
    if (tqc_op_is(o, "linalg.yield")) {
      if (o->num_operands != n_outs || o->next)
        return unsupported(op,
                           "a body that does not end with linalg.yield of one value per "
                           "output");
      TQ_TRY(tq_buf_append_cstr(&b->text, "linalg.yield"));
    } else {
      const char *type = o->num_results ? scalar_name(o->results[0]->type) : NULL;
      if (!type) return unsupported(op, "the result type of the body op %s", name);
      TQ_TRY(tq_buf_printf(&b->text, "%s %s", name, type));
    }
    for (size_t i = 0; i < o->num_operands; i++) TQ_TRY(tq_buf_printf(&b->text, " %zu", nums[i]));
    int cmpf = tqc_op_is(o, "arith.cmpf");
    if (cmpf || tqc_op_is(o, "arith.cmpi")) {
      const tqc_attr_t *p = tqc_op_attr(o, "predicate");
      int64_t k = p && p->kind == TQC_ATTR_INTEGER ? p->integer.value : -1;
      if (k < 0 || k >= (cmpf ? 16 : 10)) return unsupported(op, "the predicate %" PRId64, k);
      TQ_TRY(tq_buf_printf(&b->text, " %s", cmpf ? cmpf_predicates[k] : cmpi_predicates[k]));
    }
    TQ_TRY(tq_buf_append_cstr(&b->text, "\n"));
    if (o->num_results) {
      if (b->n == sizeof(b->vals) / sizeof(b->vals[0]))
        return unsupported(op, "a body of more than 256 values");
      b->vals[b->n++] = o->results[0];
    }
  }
  if (!blk->last || !tqc_op_is(blk->last, "linalg.yield"))
    return unsupported(op, "a body that does not end with linalg.yield");
  return NULL;
}

/* ---- The attributes ------------------------------------------------------------------------- */

static const tqc_type_t i64_type = {.kind = TQC_TYPE_INTEGER, .integer = {64, TQC_SIGNLESS}};

static tqc_attr_t *ints_attr(tq_arena_t *arena, const int64_t *v, size_t n) {
  tqc_attr_t *a = tq_arena_calloc(arena, 1, sizeof(*a));
  uint8_t *data = tq_arena_calloc(arena, n ? n : 1, 8);
  if (!a || !data) return NULL;
  memcpy(data, v, n * 8); /* little-endian, as element.h requires of the host */
  a->kind = TQC_ATTR_DENSE_ARRAY;
  a->dense_array.element = &i64_type;
  a->dense_array.count = n;
  a->dense_array.data = data;
  return a;
}

tq_status_t tqc__linalg_attrs(tq_arena_t *arena, const tqc_op_t *op, tqc_named_attr_t **out_attrs,
                              size_t *out_count) {
  *out_attrs = NULL;
  *out_count = 0;
  if (!tqc__linalg_is_op(op) || tqc_op_is(op, "tensor.empty")) return NULL;
  size_t n = op->num_operands, ins = 0;
  const tqc_attr_t *seg = tqc_op_attr(op, "operandSegmentSizes");
  if (!seg || seg->kind != TQC_ATTR_DENSE_ARRAY || seg->dense_array.count != 2 ||
      tqc_dense_array_get_int(seg, 0) + tqc_dense_array_get_int(seg, 1) != (int64_t)n)
    return TQ_STATUS(TQ_INVALID_INPUT, "its operandSegmentSizes do not count its operands");
  ins = (size_t)tqc_dense_array_get_int(seg, 0);
  size_t outs = n - ins;
  if (n > MAX_OPERANDS || outs < 1 || op->num_results != outs)
    return unsupported(op, "anything but one tensor result per output and at most 16 operands");
  for (size_t i = 0; i < op->num_results; i++)
    if (op->results[i]->type->kind != TQC_TYPE_TENSOR)
      return unsupported(op, "a result that is not a tensor");

  /* Loops and maps. */
  int64_t loops[MAX_LOOPS], maps[MAX_OPERANDS * (MAX_LOOPS + 1)];
  size_t n_loops = 0, n_maps = 0;
  const tqc_attr_t *it = tqc_op_attr(op, "iterator_types");
  if (tqc_op_is(op, "linalg.fill")) {
    n_loops = rank_of(op->operands[1]->type);
    if (n != 2 || n_loops > MAX_LOOPS) return unsupported(op, "a fill of rank above 16");
    for (size_t l = 0; l < n_loops; l++) loops[l] = 0;
    maps[n_maps++] = 0; /* the value: a scalar or a rank-0 tensor */
    if (rank_of(op->operands[0]->type) != 0)
      return unsupported(op, "a fill value that is not a scalar");
    maps[n_maps++] = (int64_t)n_loops;
    for (size_t l = 0; l < n_loops; l++) maps[n_maps++] = (int64_t)l;
  } else {
    const tqc_attr_t *m = tqc_op_attr(op, "indexing_maps");
    if (tqc_op_is(op, "linalg.matmul")) {
      n_loops = 3;
      loops[0] = loops[1] = 0;
      loops[2] = 1;
    } else {
      if (!it || it->kind != TQC_ATTR_ARRAY || it->array.count > MAX_LOOPS)
        return unsupported(op, "iterator_types that are not a list of at most 16");
      n_loops = it->array.count;
      for (size_t l = 0; l < n_loops; l++) {
        tq_sv_t body = tqc_attr_dialect_body(it->array.items[l], "linalg.iterator_type");
        if (tq_sv_eq_cstr(body, "parallel"))
          loops[l] = 0;
        else if (tq_sv_eq_cstr(body, "reduction"))
          loops[l] = 1;
        else
          return unsupported(op, "an iterator type other than parallel or reduction");
      }
    }
    if (!m || m->kind != TQC_ATTR_ARRAY || m->array.count != n)
      return TQ_STATUS(TQ_INVALID_INPUT, "expected one indexing map per operand");
    for (size_t k = 0; k < n; k++) {
      const tqc_attr_t *a = m->array.items[k];
      int r = a->kind == TQC_ATTR_OPAQUE
                  ? parse_map(a->opaque.text, n_loops, maps + n_maps + 1, MAX_LOOPS)
                  : -1;
      if (r < 0)
        return unsupported(op,
                           "indexing map %zu: a map whose results are not loop dimensions "
                           "and 0",
                           k);
      if ((size_t)r != rank_of(op->operands[k]->type))
        return TQ_STATUS(TQ_INVALID_INPUT,
                         "the indexing map of operand %zu has %d results but the operand has "
                         "rank %zu",
                         k, r, rank_of(op->operands[k]->type));
      maps[n_maps] = r;
      n_maps += 1 + (size_t)r;
    }
  }

  /* The body. */
  if (op->num_regions != 1 || op->regions[0].num_blocks != 1)
    return unsupported(op, "a body that is not one block");
  body_t *b = tq_arena_calloc(arena, 1, sizeof(*b));
  if (!b)
    return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory encoding %.*s", (int)op->name.len,
                     op->name.data);
  tq_buf_init(&b->text, 0);
  tq_status_t st = encode_body(op, op->regions[0].blocks[0], outs, b);
  char *body = st ? NULL : tq_arena_strndup(arena, b->text.data ? b->text.data : "", b->text.len);
  tq_buf_deinit(&b->text);
  TQ_TRY(st);

  tqc_named_attr_t *attrs = tq_arena_calloc(arena, 4, sizeof(*attrs));
  tqc_attr_t *text = tq_arena_calloc(arena, 1, sizeof(*text));
  int64_t n_ins = (int64_t)ins;
  if (!attrs || !text || !body) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory encoding linalg");
  text->kind = TQC_ATTR_STRING;
  text->string = tq_sv_cstr(body);
  attrs[0] = (tqc_named_attr_t){tq_sv_cstr("linalg.body"), text};
  attrs[1] = (tqc_named_attr_t){tq_sv_cstr("linalg.inputs"), ints_attr(arena, &n_ins, 1)};
  attrs[2] = (tqc_named_attr_t){tq_sv_cstr("linalg.loops"), ints_attr(arena, loops, n_loops)};
  attrs[3] = (tqc_named_attr_t){tq_sv_cstr("linalg.maps"), ints_attr(arena, maps, n_maps)};
  if (!attrs[1].value || !attrs[2].value || !attrs[3].value)
    return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory encoding linalg");
  *out_attrs = attrs;
  *out_count = 4;
  return NULL;
}
