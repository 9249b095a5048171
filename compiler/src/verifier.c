/* The verifier: SSA visibility and the type consistency of each op with its written type, with
 * the enclosing function's signature, and of constants with their values. */
#include <stdio.h>
#include <string.h>

#include "parser_internal.h"
#include "print_internal.h"
#include "torq/base/alloc.h"

typedef struct verifier_s {
  const tqc_module_t *m;
  size_t *level; /* per value id: scope level + 1 where visible, 0 when not */
  size_t depth;
  size_t barrier; /* lowest visible level (isolated-from-above ops raise it) */
} verifier_t;

static tq_status_t error_at(verifier_t *v, tqc_srcpos_t pos, const char *fmt, ...)
    TQ_PRINTF(3, 4);
static tq_status_t error_at(verifier_t *v, tqc_srcpos_t pos, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tq_status_t st = tqc__diagv(v->m->path, v->m->text, v->m->text_len, pos.line, pos.col, fmt, ap);
  va_end(ap);
  return st;
}

/* Two type texts for a message; "?" when memory runs out. */
typedef struct type_texts_s {
  tq_buf_t a, b;
} type_texts_t;

static void type_texts(type_texts_t *t, const tqc_type_t *a, const tqc_type_t *b) {
  tq_buf_init(&t->a, 0);
  tq_buf_init(&t->b, 0);
  tq_status_free(tqc__print_type(a, &t->a));
  tq_status_free(tqc__print_type(b, &t->b));
  if (!t->a.data) tq_status_free(tq_buf_append_cstr(&t->a, "?"));
  if (!t->b.data) tq_status_free(tq_buf_append_cstr(&t->b, "?"));
}

static const char *txt(const tq_buf_t *b) { return b->data ? b->data : "?"; }

static void type_texts_deinit(type_texts_t *t) {
  tq_buf_deinit(&t->a);
  tq_buf_deinit(&t->b);
}

static tq_status_t type_mismatch(verifier_t *v, tqc_srcpos_t pos, const char *what,
                                 const tqc_type_t *actual, const tqc_type_t *expected) {
  type_texts_t t;
  type_texts(&t, actual, expected);
  tq_status_t st = error_at(v, pos, "%s has type %s, expected %s", what, txt(&t.a), txt(&t.b));
  type_texts_deinit(&t);
  return st;
}

static tqc_srcpos_t value_pos(const tqc_value_t *val, const tqc_op_t *op) {
  return val->pos.line ? val->pos : op->pos;
}

static int op_is_isolated(const tqc_op_t *op) {
  return tqc_op_is(op, "func.func") || tqc_op_is(op, "builtin.module");
}

/* The type an attribute gives a constant: integers, floats, bools and dense elements. */
static const tqc_type_t *attr_type(const tqc_attr_t *a) {
  switch (a->kind) {
  case TQC_ATTR_INTEGER: return a->integer.type;
  case TQC_ATTR_FLOAT: return a->flt.type;
  case TQC_ATTR_DENSE: return a->dense.type;
  default: return NULL;
  }
}

static const tqc_op_t *enclosing_func(const tqc_op_t *op) {
  const tqc_block_t *b = op->parent;
  const tqc_op_t *parent = b && b->parent ? b->parent->parent : NULL;
  return parent && tqc_op_is(parent, "func.func") ? parent : NULL;
}

static tq_status_t verify_specific(verifier_t *v, const tqc_op_t *op) {
  if (tqc_op_is(op, "func.func")) {
    const tqc_attr_t *name = tqc_op_attr(op, "sym_name");
    if (!name || name->kind != TQC_ATTR_STRING) {
      return error_at(v, op->pos, "'func.func' op requires a string 'sym_name' property");
    }
    const tqc_type_t *fn = tqc_func_type(op);
    if (!fn) return error_at(v, op->pos, "'func.func' op requires a 'function_type' property");
    if (op->num_regions != 1) return error_at(v, op->pos, "'func.func' op needs one region");
    const tqc_region_t *r = &op->regions[0];
    if (r->num_blocks == 0) return NULL;
    for (size_t b = 0; b < r->num_blocks; b++) {
      /* A terminator followed by more ops is reported there, not as a missing terminator at the
       * end (the ops in the region are verified only after this). */
      for (const tqc_op_t *o = r->blocks[b]->first; o && o->next; o = o->next) {
        if (tqc_op_is(o, "func.return") || o->num_successors > 0) {
          return error_at(v, o->pos, "'%.*s' op must be the last operation in the parent block",
                          (int)o->name.len, o->name.data);
        }
      }
      const tqc_op_t *last = r->blocks[b]->last;
      if (!last || !(tqc_op_is(last, "func.return") || last->num_successors > 0)) {
        return error_at(v, last ? last->pos : op->pos,
                        "block %zu of 'func.func' @%s has no terminator: it must end with "
                        "'func.return'",
                        b, tqc_op_sym_name(op).data);
      }
    }
    const tqc_block_t *entry = r->blocks[0];
    if (entry->num_args != fn->function.num_inputs) {
      return error_at(v, op->pos, "function has %zu arguments but its type has %zu inputs",
                      entry->num_args, fn->function.num_inputs);
    }
    for (size_t i = 0; i < entry->num_args; i++) {
      if (!tqc_type_equal(entry->args[i]->type, fn->function.inputs[i])) {
        char what[64];
        snprintf(what, sizeof(what), "argument #%zu", i);
        return type_mismatch(v, value_pos(entry->args[i], op), what, entry->args[i]->type,
                             fn->function.inputs[i]);
      }
    }
    return NULL;
  }
  if (tqc_op_is(op, "func.return")) {
    if (op->next) {
      return error_at(v, op->pos,
                      "'func.return' op must be the last operation in the parent block");
    }
    const tqc_op_t *f = enclosing_func(op);
    const tqc_type_t *fn = f ? tqc_func_type(f) : NULL;
    if (!fn) return error_at(v, op->pos, "'func.return' op must be inside a func.func");
    if (op->num_operands != fn->function.num_results) {
      return error_at(v, op->pos, "'func.return' op has %zu operands, but the function returns %zu",
                      op->num_operands, fn->function.num_results);
    }
    for (size_t i = 0; i < op->num_operands; i++) {
      if (!tqc_type_equal(op->operands[i]->type, fn->function.results[i])) {
        char what[64];
        snprintf(what, sizeof(what), "returned value #%zu", i);
        return type_mismatch(v, op->pos, what, op->operands[i]->type, fn->function.results[i]);
      }
    }
    return NULL;
  }
  const char *value_name = tqc_op_const_attr_name(op);
  if (!value_name) return NULL;
  const tqc_attr_t *a = tqc_dict_get(&op->properties, value_name);
  if (!a) {
    return error_at(v, op->pos, "'%.*s' op needs a '%s' property", (int)op->name.len,
                    op->name.data, value_name);
  }
  if (op->num_results != 1) {
    return error_at(v, op->pos, "'%.*s' op needs one result", (int)op->name.len, op->name.data);
  }
  const tqc_type_t *rt = op->results[0]->type;
  const tqc_type_t *at = attr_type(a);
  if (a->kind == TQC_ATTR_BOOL && rt->kind == TQC_TYPE_INTEGER && rt->integer.width == 1 &&
      rt->integer.signedness == TQC_SIGNLESS) {
    return NULL;
  }
  if (!at) {
    return error_at(v, op->pos, "'%.*s' op needs a typed constant value", (int)op->name.len,
                    op->name.data);
  }
  if (tqc_op_is(op, "tosa.const_shape")) {
    int ok = rt->kind == TQC_TYPE_SHAPE && at->kind == TQC_TYPE_TENSOR &&
             at->tensor.rank == 1 && at->tensor.element->kind == TQC_TYPE_INDEX &&
             at->tensor.dims[0] == (int64_t)rt->shape.rank;
    if (!ok) return type_mismatch(v, op->pos, "the constant shape", at, rt);
    return NULL;
  }
  if (!tqc_type_equal(at, rt)) return type_mismatch(v, op->pos, "the constant value", at, rt);
  return NULL;
}

static tq_status_t verify_region(verifier_t *v, const tqc_region_t *r);

/* A module is a symbol table: no two ops directly in it may have the same sym_name. */
static tq_status_t verify_symbols(verifier_t *v, const tqc_op_t *module) {
  tqc_map_t seen;
  memset(&seen, 0, sizeof(seen));
  tq_status_t st = NULL;
  for (size_t i = 0; !st && i < module->num_regions; i++) {
    const tqc_region_t *r = &module->regions[i];
    for (size_t b = 0; !st && b < r->num_blocks; b++) {
      for (const tqc_op_t *op = r->blocks[b]->first; !st && op; op = op->next) {
        const tqc_attr_t *a = tqc_op_attr(op, "sym_name");
        if (!a || a->kind != TQC_ATTR_STRING) continue;
        if (tqc__map_find(&seen, a->string)) {
          st = error_at(v, op->pos, "redefinition of symbol '@%.*s'", (int)a->string.len,
                        a->string.data);
        } else {
          st = tqc__map_put(&seen, a->string, 1);
        }
      }
    }
  }
  tqc__map_deinit(&seen);
  return st;
}

static tq_status_t verify_op(verifier_t *v, const tqc_op_t *op) {
  for (size_t i = 0; i < op->num_operands; i++) {
    const tqc_value_t *val = op->operands[i];
    if (!val->type) {
      return error_at(v, op->operand_pos[i], "use of undefined value '%.*s'", (int)val->name.len,
                      val->name.data);
    }
    size_t lvl = v->level[val->id];
    if (lvl == 0 || lvl - 1 < v->barrier) {
      return error_at(v, op->operand_pos[i], "value '%.*s' is used before it is defined",
                      (int)val->name.len, val->name.data);
    }
  }
  if (op->num_operands != op->num_operand_types) {
    return error_at(v, op->pos, "'%.*s' op has %zu operands, but its type lists %zu",
                    (int)op->name.len, op->name.data, op->num_operands, op->num_operand_types);
  }
  for (size_t i = 0; i < op->num_operands; i++) {
    if (!tqc_type_equal(op->operands[i]->type, op->operand_types[i])) {
      char what[96];
      snprintf(what, sizeof(what), "operand #%zu ('%.*s')", i, (int)op->operands[i]->name.len,
               op->operands[i]->name.data);
      return type_mismatch(v, op->operand_pos[i], what, op->operands[i]->type,
                           op->operand_types[i]);
    }
  }
  if (op->num_bound_results && op->num_bound_results != op->num_results) {
    return error_at(v, op->pos, "'%.*s' op has %zu results, but %zu result names were given",
                    (int)op->name.len, op->name.data, op->num_results, op->num_bound_results);
  }
  TQ_TRY(verify_specific(v, op));
  if (tqc_op_is(op, "builtin.module")) TQ_TRY(verify_symbols(v, op));
  size_t saved = v->barrier;
  if (op_is_isolated(op)) v->barrier = v->depth + 1;
  for (size_t i = 0; i < op->num_regions; i++) {
    tq_status_t st = verify_region(v, &op->regions[i]);
    if (st) {
      v->barrier = saved;
      return st;
    }
  }
  v->barrier = saved;
  return NULL;
}

static void hide_region(verifier_t *v, const tqc_region_t *r) {
  for (size_t b = 0; b < r->num_blocks; b++) {
    const tqc_block_t *blk = r->blocks[b];
    for (size_t i = 0; i < blk->num_args; i++) v->level[blk->args[i]->id] = 0;
    for (const tqc_op_t *op = blk->first; op; op = op->next) {
      for (size_t i = 0; i < op->num_results; i++) v->level[op->results[i]->id] = 0;
    }
  }
}

static tq_status_t verify_region(verifier_t *v, const tqc_region_t *r) {
  v->depth++;
  tq_status_t st = NULL;
  for (size_t b = 0; !st && b < r->num_blocks; b++) {
    const tqc_block_t *blk = r->blocks[b];
    for (size_t i = 0; i < blk->num_args; i++) v->level[blk->args[i]->id] = v->depth + 1;
    for (const tqc_op_t *op = blk->first; !st && op; op = op->next) {
      st = verify_op(v, op);
      for (size_t i = 0; !st && i < op->num_results; i++) {
        v->level[op->results[i]->id] = v->depth + 1;
      }
    }
  }
  hide_region(v, r);
  v->depth--;
  return st;
}

tq_status_t tqc_module_verify(const tqc_module_t *module) {
  verifier_t v;
  memset(&v, 0, sizeof(v));
  v.m = module;
  v.level = tq_calloc(module->num_values ? module->num_values : 1, sizeof(size_t));
  if (!v.level) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory verifying %s", module->path);
  tq_status_t st = verify_op(&v, module->op);
  tq_free(v.level);
  return st;
}
