/* The TOSA checker: walks every function of a module and checks each op against the rules of the
 * TOSA 1.0 specification for that op (the table below), after the checks all ops share: that the
 * op is one the compiler can lower, its operand and result counts, and static, non-empty tensor
 * shapes. */
#include <string.h>

#include "linalg_internal.h"
#include "parser_internal.h"
#include "tosa_internal.h"
#include "torq/compiler/tosa.h"

/* Operand counts above this mean "any number, at least one" (tosa.concat). */
#define VARIADIC 0xff

typedef struct op_rule_s {
  const char *name;
  uint8_t num_operands;
  uint8_t shape_operands; /* bit i: operand i is a !tosa.shape from tosa.const_shape */
  tqc_tosa_check_fn check;
  uint32_t types; /* allowed input element types, for the checkers that take them */
} op_rule_t;

#define E(x) TQC_EM(TQC_E_##x)

/* The ops the compiler can lower, with the element types TOSA 1.0 allows for each (the profiles
 * PRO-INT and PRO-FP with the extensions EXT-INT16, EXT-INT4 and EXT-BF16). Checkers that take
 * type combinations (cast, rescale, table, convolutions, pooling, matmul, resize) hold their own
 * tables. Sorted by name (bytewise). */
static const op_rule_t rules[] = {
    /* Not TOSA, but the corpus has one (identity-stride-offset-6x6xi8): a static strided slice,
     * which lowers like tosa.slice. */
    {"tensor.extract_slice", VARIADIC, 0, tqc__tosa_check_extract_slice, TQC_EM_ANY},
    {"tosa.abs", 1, 0, tqc__tosa_check_unary, E(I32) | TQC_EM_FP},
    {"tosa.add", 2, 0, tqc__tosa_check_binary, E(I32) | TQC_EM_FP},
    {"tosa.argmax", 1, 0, tqc__tosa_check_argmax, E(I8) | E(I16) | TQC_EM_FP},
    {"tosa.arithmetic_right_shift", 2, 0, tqc__tosa_check_shift, TQC_EM_INT},
    {"tosa.avg_pool2d", 3, 0, tqc__tosa_check_pool, E(I8) | E(I16) | TQC_EM_FP},
    {"tosa.bitwise_and", 2, 0, tqc__tosa_check_binary, TQC_EM_INT},
    {"tosa.bitwise_not", 1, 0, tqc__tosa_check_unary, TQC_EM_INT},
    {"tosa.bitwise_or", 2, 0, tqc__tosa_check_binary, TQC_EM_INT},
    {"tosa.bitwise_xor", 2, 0, tqc__tosa_check_binary, TQC_EM_INT},
    {"tosa.cast", 1, 0, tqc__tosa_check_cast, 0},
    {"tosa.ceil", 1, 0, tqc__tosa_check_unary, TQC_EM_FP},
    {"tosa.clamp", 1, 0, tqc__tosa_check_clamp, E(I8) | E(I16) | TQC_EM_FP},
    {"tosa.clz", 1, 0, tqc__tosa_check_unary, E(I32)},
    {"tosa.concat", VARIADIC, 0, tqc__tosa_check_concat, TQC_EM_ANY},
    {"tosa.const", 0, 0, tqc__tosa_check_const, TQC_EM_ANY | E(I4) | E(I48)},
    {"tosa.const_shape", 0, 0, tqc__tosa_check_const_shape, 0},
    {"tosa.conv2d", 5, 0, tqc__tosa_check_conv, 0},
    {"tosa.conv3d", 5, 0, tqc__tosa_check_conv, 0},
    {"tosa.cos", 1, 0, tqc__tosa_check_unary, TQC_EM_FP},
    {"tosa.depthwise_conv2d", 5, 0, tqc__tosa_check_conv, 0},
    {"tosa.equal", 2, 0, tqc__tosa_check_compare, E(I32) | TQC_EM_FP},
    {"tosa.erf", 1, 0, tqc__tosa_check_unary, TQC_EM_FP},
    {"tosa.exp", 1, 0, tqc__tosa_check_unary, TQC_EM_FP},
    {"tosa.floor", 1, 0, tqc__tosa_check_unary, TQC_EM_FP},
    {"tosa.gather", 2, 0, tqc__tosa_check_gather, TQC_EM_INT | TQC_EM_FP},
    {"tosa.greater", 2, 0, tqc__tosa_check_compare, E(I32) | TQC_EM_FP},
    {"tosa.greater_equal", 2, 0, tqc__tosa_check_compare, E(I32) | TQC_EM_FP},
    {"tosa.identity", 1, 0, tqc__tosa_check_identity, TQC_EM_ANY | E(I4) | E(I48)},
    {"tosa.intdiv", 2, 0, tqc__tosa_check_binary, E(I32)},
    {"tosa.log", 1, 0, tqc__tosa_check_unary, TQC_EM_FP},
    {"tosa.logical_and", 2, 0, tqc__tosa_check_binary, E(BOOL)},
    {"tosa.logical_left_shift", 2, 0, tqc__tosa_check_binary, TQC_EM_INT},
    {"tosa.logical_not", 1, 0, tqc__tosa_check_unary, E(BOOL)},
    {"tosa.logical_or", 2, 0, tqc__tosa_check_binary, E(BOOL)},
    {"tosa.logical_right_shift", 2, 0, tqc__tosa_check_binary, TQC_EM_INT},
    {"tosa.logical_xor", 2, 0, tqc__tosa_check_binary, E(BOOL)},
    {"tosa.matmul", 4, 0, tqc__tosa_check_matmul, 0},
    {"tosa.max_pool2d", 1, 0, tqc__tosa_check_pool, E(I8) | E(I16) | TQC_EM_FP},
    {"tosa.maximum", 2, 0, tqc__tosa_check_binary, E(I32) | TQC_EM_FP},
    {"tosa.minimum", 2, 0, tqc__tosa_check_binary, E(I32) | TQC_EM_FP},
    {"tosa.mul", 3, 0, tqc__tosa_check_mul, TQC_EM_INT | TQC_EM_FP},
    {"tosa.negate", 3, 0, tqc__tosa_check_negate, TQC_EM_INT | TQC_EM_FP},
    {"tosa.pad", 3, 1u << 1, tqc__tosa_check_pad, TQC_EM_ANY},
    {"tosa.pow", 2, 0, tqc__tosa_check_binary, TQC_EM_FP},
    {"tosa.reciprocal", 1, 0, tqc__tosa_check_unary, TQC_EM_FP},
    {"tosa.reduce_all", 1, 0, tqc__tosa_check_reduce, E(BOOL)},
    {"tosa.reduce_any", 1, 0, tqc__tosa_check_reduce, E(BOOL)},
    {"tosa.reduce_max", 1, 0, tqc__tosa_check_reduce, TQC_EM_INT | TQC_EM_FP},
    {"tosa.reduce_min", 1, 0, tqc__tosa_check_reduce, TQC_EM_INT | TQC_EM_FP},
    {"tosa.reduce_product", 1, 0, tqc__tosa_check_reduce, TQC_EM_FP},
    {"tosa.reduce_sum", 1, 0, tqc__tosa_check_reduce, E(I32) | TQC_EM_FP},
    {"tosa.rescale", 5, 0, tqc__tosa_check_rescale, 0},
    {"tosa.reshape", 2, 1u << 1, tqc__tosa_check_reshape, TQC_EM_ANY},
    {"tosa.resize", 4, (1u << 1) | (1u << 2) | (1u << 3), tqc__tosa_check_resize,
     E(I8) | E(I16) | TQC_EM_FP},
    {"tosa.reverse", 1, 0, tqc__tosa_check_reverse, TQC_EM_ANY},
    {"tosa.rsqrt", 1, 0, tqc__tosa_check_unary, TQC_EM_FP},
    {"tosa.scatter", 3, 0, tqc__tosa_check_scatter, TQC_EM_INT | TQC_EM_FP},
    {"tosa.select", 3, 0, tqc__tosa_check_select, TQC_EM_ANY},
    {"tosa.sigmoid", 1, 0, tqc__tosa_check_unary, TQC_EM_FP},
    {"tosa.sin", 1, 0, tqc__tosa_check_unary, TQC_EM_FP},
    {"tosa.slice", 3, (1u << 1) | (1u << 2), tqc__tosa_check_slice, TQC_EM_ANY},
    {"tosa.sub", 2, 0, tqc__tosa_check_binary, E(I32) | TQC_EM_FP},
    {"tosa.table", 2, 0, tqc__tosa_check_table, E(I8) | E(I16)},
    {"tosa.tanh", 1, 0, tqc__tosa_check_unary, TQC_EM_FP},
    {"tosa.tile", 2, 1u << 1, tqc__tosa_check_tile, TQC_EM_ANY},
    {"tosa.transpose", 1, 0, tqc__tosa_check_transpose, TQC_EM_ANY},
    {"tosa.transpose_conv2d", 5, 0, tqc__tosa_check_transpose_conv2d, 0},
};

#undef E

static const op_rule_t *find_rule(tq_sv_t name) {
  size_t lo = 0, hi = sizeof(rules) / sizeof(rules[0]);
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    const char *r = rules[mid].name;
    size_t rlen = strlen(r);
    size_t n = rlen < name.len ? rlen : name.len;
    int cmp = memcmp(r, name.data, n);
    if (cmp == 0) cmp = rlen < name.len ? -1 : rlen > name.len;
    if (cmp == 0) return &rules[mid];
    if (cmp < 0) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return NULL;
}

int tqc_tosa_is_known(const tqc_op_t *op) {
  return find_rule(op->name) || tqc_op_is(op, "arith.constant") || tqc_op_is(op, "func.return") ||
         tqc__linalg_is_op(op);
}

/* ---- Checks every op shares ----------------------------------------------------------------- */

static int is_dynamic(const tqc_type_t *t) {
  if (!t || t->kind != TQC_TYPE_TENSOR) return 0;
  if (!t->tensor.ranked) return 1;
  for (size_t i = 0; i < t->tensor.rank; i++) {
    if (t->tensor.dims[i] == TQC_DYNAMIC) return 1;
  }
  return 0;
}

static tq_status_t check_static(const tqc_tosa_ctx_t *c) {
  const tqc_op_t *op = c->op;
  /* Operands after the source of tensor.extract_slice are dynamic offsets, sizes or strides. */
  if (tqc_op_is(op, "tensor.extract_slice") && op->num_operands > 1) {
    return tqc__tosa_fail(c,
                          "dynamic shapes are not supported: the slice has %zu dynamic "
                          "offsets, sizes or strides",
                          op->num_operands - 1);
  }
  for (size_t i = 0; i < op->num_operands; i++) {
    const tqc_type_t *t = op->operands[i]->type;
    if (is_dynamic(t)) {
      return tqc__tosa_fail(c, "dynamic shapes are not supported: operand #%zu has type %s", i,
                            tqc__tosa_type_text(t).s);
    }
  }
  for (size_t i = 0; i < op->num_results; i++) {
    const tqc_type_t *t = op->results[i]->type;
    if (is_dynamic(t)) {
      return tqc__tosa_fail(c, "dynamic shapes are not supported: result #%zu has type %s", i,
                            tqc__tosa_type_text(t).s);
    }
  }
  return NULL;
}

/* A tensor TOSA can hold: ranked, static (checked before), every dimension >= 1, rank within
 * the limit. */
static tq_status_t check_tensor(const tqc_tosa_ctx_t *c, const char *what, size_t index,
                                const tqc_type_t *t) {
  if (t->kind != TQC_TYPE_TENSOR) {
    return tqc__tosa_fail(c, "%s #%zu must be a tensor, got %s", what, index,
                          tqc__tosa_type_text(t).s);
  }
  if (t->tensor.rank > TQC_TOSA_MAX_RANK) {
    return tqc__tosa_fail(c, "%s #%zu has rank %zu; at most %d is supported", what, index,
                          t->tensor.rank, TQC_TOSA_MAX_RANK);
  }
  for (size_t d = 0; d < t->tensor.rank; d++) {
    if (t->tensor.dims[d] < 1) {
      return tqc__tosa_fail(c, "%s #%zu has an empty dimension: %s", what, index,
                            tqc__tosa_type_text(t).s);
    }
  }
  return NULL;
}

static tq_status_t check_operands(const tqc_tosa_ctx_t *c, const op_rule_t *rule) {
  const tqc_op_t *op = c->op;
  if (rule->num_operands == VARIADIC ? op->num_operands < 1
                                     : op->num_operands != rule->num_operands) {
    if (rule->num_operands == VARIADIC) {
      return tqc__tosa_fail(c, "expected at least 1 operand, got 0");
    }
    return tqc__tosa_fail(c, "expected %u operands, got %zu", rule->num_operands, op->num_operands);
  }
  if (op->num_results != 1) {
    return tqc__tosa_fail(c, "expected 1 result, got %zu", op->num_results);
  }
  for (size_t i = 0; i < op->num_operands; i++) {
    const tqc_type_t *t = op->operands[i]->type;
    if (!t) return tqc__tosa_fail(c, "operand #%zu is undefined (run tqc_module_verify first)", i);
    if (i < 8 && (rule->shape_operands & (1u << i))) {
      if (t->kind != TQC_TYPE_SHAPE) {
        return tqc__tosa_fail(c, "operand #%zu must be a !tosa.shape, got %s", i,
                              tqc__tosa_type_text(t).s);
      }
      const tqc_op_t *def = op->operands[i]->def;
      if (!def || !tqc_op_is(def, "tosa.const_shape")) {
        return tqc__tosa_fail(c, "operand #%zu must be defined by tosa.const_shape", i);
      }
      if (t->shape.rank > 2 * TQC_TOSA_MAX_RANK) {
        return tqc__tosa_fail(c, "operand #%zu has too many values (%zu)", i, t->shape.rank);
      }
      continue;
    }
    TQ_TRY(check_tensor(c, "operand", i, t));
  }
  const tqc_type_t *rt = op->results[0]->type;
  if (tqc_op_is(op, "tosa.const_shape")) {
    if (rt->kind != TQC_TYPE_SHAPE) {
      return tqc__tosa_fail(c, "result must be a !tosa.shape, got %s", tqc__tosa_type_text(rt).s);
    }
    return NULL;
  }
  return check_tensor(c, "result", 0, rt);
}

static tq_status_t check_arith_constant(const tqc_tosa_ctx_t *c) {
  TQ_TRY(check_static(c));
  if (c->op->num_results != 1) {
    return tqc__tosa_fail(c, "expected 1 result, got %zu", c->op->num_results);
  }
  const tqc_type_t *t = c->op->results[0]->type;
  if (t->kind == TQC_TYPE_TENSOR) return check_tensor(c, "result", 0, t);
  if (tqc_type_is_scalar(t)) return NULL;
  return tqc__tosa_fail(c, "result type %s is not supported", tqc__tosa_type_text(t).s);
}

/* tensor.empty and the linalg structured ops: static tensors, and what the reference
 * interpreter runs them by can be made (linalg.c). */
static tq_status_t check_linalg(const tqc_tosa_ctx_t *c) {
  const tqc_op_t *op = c->op;
  TQ_TRY(check_static(c));
  for (size_t i = 0; i < op->num_operands; i++) {
    const tqc_type_t *t = op->operands[i]->type;
    if (!t) return tqc__tosa_fail(c, "operand #%zu is undefined (run tqc_module_verify first)", i);
    if (!tqc_type_is_scalar(t)) TQ_TRY(check_tensor(c, "operand", i, t));
  }
  for (size_t i = 0; i < op->num_results; i++)
    TQ_TRY(check_tensor(c, "result", i, op->results[i]->type));
  tq_arena_t arena;
  tq_arena_init(&arena, 0, 0);
  tqc_named_attr_t *attrs = NULL;
  size_t n = 0;
  tq_status_t st = tqc__linalg_attrs(&arena, op, &attrs, &n);
  tq_arena_deinit(&arena);
  if (!st) return NULL;
  tq_status_t located = tqc__tosa_fail(c, "%s", tq_status_message(st));
  tq_status_free(st);
  return located;
}

static tq_status_t check_op(const tqc_module_t *m, const tqc_op_t *op) {
  tqc_tosa_ctx_t c = {m, op};
  if (tqc_op_is(op, "func.return")) return check_static(&c);
  if (tqc_op_is(op, "arith.constant")) return check_arith_constant(&c);
  if (tqc__linalg_is_op(op)) return check_linalg(&c);
  const op_rule_t *rule = find_rule(op->name);
  if (!rule) {
    return tqc__diag(m->path, m->text, m->text_len, op->pos.line, op->pos.col,
                     "unsupported op '%.*s'", (int)op->name.len, op->name.data);
  }
  TQ_TRY(check_static(&c));
  TQ_TRY(check_operands(&c, rule));
  return rule->check(&c, rule->types);
}

/* ---- The walk ------------------------------------------------------------------------------- */

static tq_status_t check_func_signature(const tqc_module_t *m, const tqc_op_t *func) {
  const tqc_type_t *fn = tqc_func_type(func);
  if (!fn) return NULL; /* the verifier requires it; nothing to check without it */
  tqc_tosa_ctx_t c = {m, func};
  for (size_t i = 0; i < fn->function.num_inputs; i++) {
    if (is_dynamic(fn->function.inputs[i])) {
      return tqc__tosa_fail(&c, "dynamic shapes are not supported: argument #%zu has type %s", i,
                            tqc__tosa_type_text(fn->function.inputs[i]).s);
    }
  }
  for (size_t i = 0; i < fn->function.num_results; i++) {
    if (is_dynamic(fn->function.results[i])) {
      return tqc__tosa_fail(&c, "dynamic shapes are not supported: result #%zu has type %s", i,
                            tqc__tosa_type_text(fn->function.results[i]).s);
    }
  }
  return NULL;
}

static tq_status_t check_region_ops(const tqc_module_t *m, const tqc_op_t *parent);

static tq_status_t check_container(const tqc_module_t *m, const tqc_op_t *op) {
  if (tqc_op_is(op, "builtin.module")) return check_region_ops(m, op);
  if (tqc_op_is(op, "func.func")) {
    TQ_TRY(check_func_signature(m, op));
    return check_region_ops(m, op);
  }
  return check_op(m, op);
}

static tq_status_t check_region_ops(const tqc_module_t *m, const tqc_op_t *parent) {
  for (size_t r = 0; r < parent->num_regions; r++) {
    const tqc_region_t *region = &parent->regions[r];
    for (size_t b = 0; b < region->num_blocks; b++) {
      for (const tqc_op_t *op = region->blocks[b]->first; op; op = op->next) {
        TQ_TRY(check_container(m, op));
      }
    }
  }
  return NULL;
}

tq_status_t tqc_tosa_check(const tqc_module_t *module) {
  if (!module || !module->op) return TQ_STATUS(TQ_INVALID_ARGUMENT, "no module to check");
  return check_container(module, module->op);
}
