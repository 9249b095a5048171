/* The reference evaluator (reference.h): a function of the IR, op by op, on tqs_ref_run. */
#include "torq/compiler/reference.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "linalg_internal.h"
#include "lower_internal.h"
#include "torq/base/alloc.h"
#include "torq/compiler/ir.h"
#include "torq/sim/ref.h"

/* One evaluation. Values are indexed by their id: `vals` is what an operand reads (borrowed
 * inputs or tensors of `own`), `own` the tensors this run made and frees, `uses` the reads still
 * to come (a tensor is freed after its last one). */
typedef struct ref_run_s {
  const tqc_module_t *module;
  tq_arena_t arena; /* converted attributes */
  const tqs_tensor_t **vals;
  tqs_tensor_t **own;
  size_t *uses;
} ref_run_t;

/* The reference interpreter's element type of an IR scalar type; 0 when it has none. */
static int ref_elem(const tqc_type_t *e, tqs_type_t *out) {
  if (!e) return 0;
  switch (e->kind) {
    case TQC_TYPE_INDEX:
      *out = TQS_INDEX;
      return 1;
    case TQC_TYPE_FLOAT:
      switch (e->flt.fkind) {
        case TQC_BF16:
          *out = TQS_BF16;
          return 1;
        case TQC_F16:
          *out = TQS_F16;
          return 1;
        case TQC_F32:
          *out = TQS_F32;
          return 1;
        default:
          return 0;
      }
    case TQC_TYPE_INTEGER:
      if (e->integer.signedness == TQC_UNSIGNED) {
        if (e->integer.width == 8 || e->integer.width == 16) {
          *out = e->integer.width == 8 ? TQS_U8 : TQS_U16;
          return 1;
        }
        return 0;
      }
      switch (e->integer.width) {
        case 1:
          *out = TQS_I1;
          return 1;
        case 8:
          *out = TQS_I8;
          return 1;
        case 16:
          *out = TQS_I16;
          return 1;
        case 32:
          *out = TQS_I32;
          return 1;
        case 48: /* held in 64 bits, as the reference interpreter and the runtime do */
        case 64:
          *out = TQS_I64;
          return 1;
        default:
          return 0;
      }
    default:
      return 0;
  }
}

/* The tensor a value of `type` is: a ranked static tensor, or a !tosa.shape<N> (N indices). */
typedef struct ref_spec_s {
  tqs_type_t type;
  size_t rank;
  int64_t dims[TQS_MAX_RANK];
} ref_spec_t;

static int ref_spec(const tqc_type_t *type, ref_spec_t *out) {
  if (!type) return 0;
  if (type->kind == TQC_TYPE_SHAPE) {
    out->type = TQS_INDEX;
    out->rank = 1;
    out->dims[0] = (int64_t)type->shape.rank;
    return 1;
  }
  if (type->kind != TQC_TYPE_TENSOR || !type->tensor.ranked || type->tensor.rank > TQS_MAX_RANK ||
      !ref_elem(type->tensor.element, &out->type))
    return 0;
  out->rank = type->tensor.rank;
  for (size_t i = 0; i < out->rank; i++) {
    if (type->tensor.dims[i] < 0) return 0;
    out->dims[i] = type->tensor.dims[i];
  }
  return 1;
}

/* "tensor<1x4xi8>" for messages. */
static void spec_text(const ref_spec_t *s, char *out, size_t cap) {
  size_t n = (size_t)snprintf(out, cap, "tensor<");
  for (size_t i = 0; i < s->rank && n < cap; i++)
    n += (size_t)snprintf(out + n, cap - n, "%" PRId64 "x", s->dims[i]);
  if (n < cap) snprintf(out + n, cap - n, "%s>", tqs_type_name(s->type));
}

/* Adds where `op` is to an error from it. */
static tq_status_t at_op(const ref_run_t *r, const tqc_op_t *op, tq_status_t st) {
  if (!st) return NULL;
  return tq_status_annotate(st, "in %.*s at %s:%" PRIu32 ":%" PRIu32, (int)op->name.len,
                            op->name.data, r->module->path ? r->module->path : "<input>",
                            op->pos.line, op->pos.col);
}

static tq_status_t unsupported_type(const tqc_op_t *op, const char *what, size_t index) {
  return TQ_STATUS(TQ_UNIMPLEMENTED,
                   "%s %zu has a type the reference interpreter cannot hold (it needs a static "
                   "tensor of i1, i8, i16, i32, i48, i64, ui8, ui16, bf16, f16, f32 or index)",
                   what, index);
}

static tq_status_t new_tensor(const ref_spec_t *s, tqs_tensor_t **out) {
  return tqs_tensor_create(s->type, s->rank, s->dims, out);
}

/* A scalar arith.constant as a rank-0 tensor (linalg.fill's value). */
static tq_status_t eval_scalar_const(ref_run_t *r, const tqc_op_t *op) {
  const tqc_value_t *v = op->results[0];
  const tqc_attr_t *a = tqc_op_attr(op, "value");
  tqs_type_t type;
  if (!a || !ref_elem(v->type, &type)) return unsupported_type(op, "result", 0);
  tqs_tensor_t *t = NULL;
  TQ_TRY(tqs_tensor_create(type, 0, NULL, &t));
  if (a->kind == TQC_ATTR_FLOAT) {
    size_t es = tqs_type_size(type);
    for (size_t k = 0; k < es; k++) ((uint8_t *)t->data)[k] = (uint8_t)(a->flt.bits >> (8 * k));
  } else {
    tqs_tensor_set_i64(t, 0, a->kind == TQC_ATTR_BOOL ? a->boolean != 0 : a->integer.value);
  }
  r->own[v->id] = t;
  r->vals[v->id] = t;
  return NULL;
}

/* The tensor of a constant op (tosa.const, arith.constant, tosa.const_shape). */
static tq_status_t eval_const(ref_run_t *r, const tqc_op_t *op) {
  const tqc_value_t *v = op->num_results == 1 ? op->results[0] : NULL;
  if (v && tqc_type_is_scalar(v->type)) return eval_scalar_const(r, op);
  const tqc_attr_t *d = v ? tqc_value_const_dense(v) : NULL;
  ref_spec_t s;
  if (!d) return TQ_STATUS(TQ_UNIMPLEMENTED, "a constant needs one result and a dense attribute");
  if (!ref_spec(d->dense.type, &s)) return unsupported_type(op, "result", 0);
  tqs_tensor_t *t = NULL;
  TQ_TRY(new_tensor(&s, &t));
  size_t count = d->dense.count;
  if (tqs_type_is_float(s.type)) {
    /* The bit patterns as written (NaN payloads included); the dense storage has the width of
     * the float type. */
    size_t es = tqs_type_size(s.type);
    for (size_t i = 0; i < count; i++)
      memcpy((uint8_t *)t->data + i * es, d->dense.data + (d->dense.splat ? 0 : i * es), es);
  } else {
    for (size_t i = 0; i < count; i++) tqs_tensor_set_i64(t, i, tqc_dense_get_int(d, i));
  }
  r->own[v->id] = t;
  r->vals[v->id] = t;
  return NULL;
}

/* Any other op: tqs_ref_run with its operands, new results and converted attributes. */
static tq_status_t eval_op(ref_run_t *r, const tqc_op_t *op) {
  size_t n_in = op->num_operands, n_out = op->num_results;
  tqc_named_attr_t *extra = NULL; /* a linalg op's semantics for the interpreter */
  size_t n_extra = 0;
  TQ_TRY(tqc__linalg_attrs(&r->arena, op, &extra, &n_extra));
  size_t n_attrs = op->properties.count + op->attributes.count + n_extra;
  const tqs_tensor_t **ins = tq_arena_calloc(&r->arena, n_in + 1, sizeof(*ins));
  tqs_tensor_t **outs = tq_arena_calloc(&r->arena, n_out + 1, sizeof(*outs));
  tqs_attr_t *attrs = tq_arena_calloc(&r->arena, n_attrs + 1, sizeof(*attrs));
  if (!ins || !outs || !attrs) return TQC_OOM("in the reference evaluator");
  for (size_t i = 0; i < n_in; i++) {
    ins[i] = r->vals[op->operands[i]->id];
    if (!ins[i])
      return TQ_STATUS(TQ_INVALID_INPUT, "operand %zu (%.*s) has no value", i,
                       (int)op->operands[i]->name.len, op->operands[i]->name.data);
  }
  for (size_t i = 0; i < n_out; i++) {
    const tqc_value_t *v = op->results[i];
    ref_spec_t s;
    if (!ref_spec(v->type, &s)) return unsupported_type(op, "result", i);
    TQ_TRY(new_tensor(&s, &outs[i]));
    r->own[v->id] = outs[i];
    r->vals[v->id] = outs[i];
  }
  size_t k = 0;
  const tqc_dict_t *dicts[2] = {&op->properties, &op->attributes};
  for (int dict = 0; dict < 2; dict++) {
    for (size_t i = 0; i < dicts[dict]->count; i++) {
      int converted = 0;
      TQ_TRY(tqc__attr_to_ref(&r->arena, &dicts[dict]->entries[i], &attrs[k], &converted));
      k += converted != 0;
    }
  }
  for (size_t i = 0; i < n_extra; i++) {
    int converted = 0;
    TQ_TRY(tqc__attr_to_ref(&r->arena, &extra[i], &attrs[k], &converted));
    k += converted != 0;
  }
  return tqs_ref_run(op->name.data, attrs, k, ins, n_in, outs, n_out);
}

/* Frees the tensors whose last reader `op` was. */
static void release_operands(ref_run_t *r, const tqc_op_t *op) {
  for (size_t i = 0; i < op->num_operands; i++) {
    size_t id = op->operands[i]->id;
    if (r->uses[id] > 0 && --r->uses[id] == 0 && r->own[id]) {
      tqs_tensor_destroy(r->own[id]);
      r->own[id] = NULL;
      r->vals[id] = NULL;
    }
  }
}

static tq_status_t check_inputs(const tqc_block_t *block, const char *fname,
                                const tqs_tensor_t *const *inputs, size_t n) {
  if (n != block->num_args)
    return TQ_STATUS(TQ_INVALID_ARGUMENT, "function %s takes %zu inputs, %zu given", fname,
                     block->num_args, n);
  for (size_t i = 0; i < n; i++) {
    ref_spec_t want, got;
    if (!ref_spec(block->args[i]->type, &want))
      return TQ_STATUS(TQ_UNIMPLEMENTED,
                       "argument %zu of function %s has a type the reference interpreter "
                       "cannot hold",
                       i, fname);
    const tqs_tensor_t *in = inputs ? inputs[i] : NULL;
    int same = in && in->type == want.type && in->rank == want.rank;
    for (size_t d = 0; same && d < want.rank; d++) same = in->dims[d] == want.dims[d];
    if (!same) {
      char w[160], g[160] = "nothing";
      spec_text(&want, w, sizeof(w));
      if (in && in->rank <= TQS_MAX_RANK) {
        got.type = in->type;
        got.rank = in->rank;
        memcpy(got.dims, in->dims, in->rank * sizeof(int64_t));
        spec_text(&got, g, sizeof(g));
      }
      return TQ_STATUS(TQ_INVALID_ARGUMENT, "input %zu of function %s: expected %s, given %s", i,
                       fname, w, g);
    }
  }
  return NULL;
}

/* Copies the returned values into new tensors the caller owns. */
static tq_status_t take_outputs(ref_run_t *r, const tqc_op_t *ret, tqs_tensor_t **out, size_t n) {
  if (ret->num_operands != n)
    return TQ_STATUS(TQ_INVALID_ARGUMENT, "the function returns %zu values, room for %zu given",
                     ret->num_operands, n);
  for (size_t i = 0; i < n; i++) {
    const tqs_tensor_t *v = r->vals[ret->operands[i]->id];
    if (!v) return TQ_STATUS(TQ_INVALID_INPUT, "returned value %zu has no value", i);
    size_t bytes = 0;
    TQ_TRY(tqs_tensor_create(v->type, v->rank, v->dims, &out[i]));
    TQ_TRY(tqs_tensor_byte_size(v, &bytes));
    if (bytes) memcpy(out[i]->data, v->data, bytes);
  }
  return NULL;
}

static tq_status_t run_block(ref_run_t *r, const tqc_block_t *block, const char *fname,
                             const tqs_tensor_t *const *inputs, tqs_tensor_t **out_outputs,
                             size_t num_outputs) {
  for (size_t i = 0; i < block->num_args; i++) r->vals[block->args[i]->id] = inputs[i];
  for (const tqc_op_t *op = block->first; op; op = op->next)
    for (size_t i = 0; i < op->num_operands; i++) r->uses[op->operands[i]->id]++;
  for (const tqc_op_t *op = block->first; op; op = op->next) {
    if (tqc_op_is(op, "func.return"))
      return at_op(r, op, take_outputs(r, op, out_outputs, num_outputs));
    TQ_TRY(at_op(r, op, tqc_op_const_attr_name(op) ? eval_const(r, op) : eval_op(r, op)));
    release_operands(r, op);
  }
  return TQ_STATUS(TQ_INVALID_INPUT, "function %s does not end with func.return", fname);
}

tq_status_t tqc_reference_run(const tqc_module_t *module, const char *function,
                              const tqs_tensor_t *const *inputs, size_t num_inputs,
                              tqs_tensor_t **out_outputs, size_t num_outputs) {
  for (size_t i = 0; i < num_outputs; i++) out_outputs[i] = NULL;
  const tqc_op_t *func =
      function ? tqc_module_lookup_func(module, function) : tqc_module_entry(module);
  if (!func)
    return function ? TQ_STATUS(TQ_NOT_FOUND, "the module has no function %s", function)
                    : TQ_STATUS(TQ_NOT_FOUND, "the module has no entry function");
  tq_sv_t name = tqc_op_sym_name(func);
  const char *fname = name.data ? name.data : "?";
  if (func->num_regions < 1 || func->regions[0].num_blocks != 1)
    return TQ_STATUS(TQ_UNIMPLEMENTED, "function %s must have one block to be evaluated", fname);
  const tqc_type_t *ftype = tqc_func_type(func);
  if (ftype && ftype->function.num_results != num_outputs)
    return TQ_STATUS(TQ_INVALID_ARGUMENT, "function %s has %zu outputs, room for %zu given", fname,
                     ftype->function.num_results, num_outputs);
  const tqc_block_t *block = func->regions[0].blocks[0];
  TQ_TRY(check_inputs(block, fname, inputs, num_inputs));

  ref_run_t r = {.module = module};
  size_t nv = module->num_values ? module->num_values : 1;
  tq_arena_init(&r.arena, 0, 0);
  r.vals = tq_calloc(nv, sizeof(*r.vals));
  r.own = tq_calloc(nv, sizeof(*r.own));
  r.uses = tq_calloc(nv, sizeof(*r.uses));
  tq_status_t st = r.vals && r.own && r.uses
                       ? run_block(&r, block, fname, inputs, out_outputs, num_outputs)
                       : TQC_OOM("in the reference evaluator");
  if (r.own)
    for (size_t i = 0; i < nv; i++) tqs_tensor_destroy(r.own[i]);
  tq_free(r.vals);
  tq_free(r.own);
  tq_free(r.uses);
  tq_arena_deinit(&r.arena);
  if (st) {
    for (size_t i = 0; i < num_outputs; i++) {
      tqs_tensor_destroy(out_outputs[i]);
      out_outputs[i] = NULL;
    }
    st = tq_status_annotate(st, "while evaluating function %s on the reference interpreter", fname);
  }
  return st;
}
