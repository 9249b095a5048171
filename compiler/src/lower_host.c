/* Host programs: the operators the NPU does not run (floats, data movement, lookups, ...),
 * executed by the runtime's reference kernels on XRAM buffers. The program carries the op name,
 * its operand and result buffers (shape operands as INDEX constants) and its attributes. */
#include <string.h>

#include "linalg_internal.h"
#include "lower_internal.h"
#include "print_internal.h"
#include "torq/base/alloc.h"

static char *arena_sv(tqc_lower_t *L, tq_sv_t s) {
  return tq_arena_strndup(L->arena, s.data ? s.data : "", s.data ? s.len : 0);
}

/* The numbers of an array attribute as INTS (integers and booleans, or an empty array) or FLOATS
 * in `arena`; 0 when it holds anything else, -1 when memory runs out. */
static int array_numbers(tq_arena_t *arena, const tqc_attr_t *a, tqs_attr_t *out) {
  size_t n = a->array.count;
  int ints = 1, floats = 1;
  for (size_t i = 0; i < n; i++) {
    tqc_attr_kind_t k = a->array.items[i]->kind;
    if (k != TQC_ATTR_INTEGER && k != TQC_ATTR_BOOL) ints = 0;
    if (k != TQC_ATTR_FLOAT) floats = 0;
  }
  if (n == 0 || ints) {
    int64_t *vals = tq_arena_calloc(arena, n + 1, sizeof(*vals));
    if (!vals) return -1;
    for (size_t i = 0; i < n; i++) {
      const tqc_attr_t *it = a->array.items[i];
      vals[i] = it->kind == TQC_ATTR_BOOL ? it->boolean : it->integer.value;
    }
    out->kind = TQS_ATTR_INTS;
    out->ints = vals;
    out->count = n;
    return 1;
  }
  if (floats) {
    double *vals = tq_arena_calloc(arena, n, sizeof(*vals));
    if (!vals) return -1;
    for (size_t i = 0; i < n; i++) vals[i] = a->array.items[i]->flt.value;
    out->kind = TQS_ATTR_FLOATS;
    out->floats = vals;
    out->count = n;
    return 1;
  }
  return 0;
}

static int set_ref_ints(tq_arena_t *arena, tqs_attr_t *out, int64_t value) {
  int64_t *v = tq_arena_alloc(arena, sizeof(*v));
  if (!v) return 0;
  *v = value;
  out->kind = TQS_ATTR_INTS;
  out->ints = v;
  out->count = 1;
  return 1;
}

static int set_ref_str(tq_arena_t *arena, tqs_attr_t *out, tq_sv_t s) {
  out->kind = TQS_ATTR_STRING;
  out->string = tq_arena_strndup(arena, s.data ? s.data : "", s.data ? s.len : 0);
  return out->string != NULL;
}

tq_status_t tqc__attr_to_ref(tq_arena_t *arena, const tqc_named_attr_t *na, tqs_attr_t *out_attr,
                             int *out_converted) {
  memset(out_attr, 0, sizeof(*out_attr));
  *out_converted = 0;
  const tqc_attr_t *a = na->value;
  if (a->kind == TQC_ATTR_DENSE) return NULL;
  out_attr->key =
      tq_arena_strndup(arena, na->name.data ? na->name.data : "", na->name.data ? na->name.len : 0);
  int ok = out_attr->key != NULL;
  switch (ok ? a->kind : TQC_ATTR_DENSE) {
    case TQC_ATTR_INTEGER:
      ok = set_ref_ints(arena, out_attr, a->integer.value);
      break;
    case TQC_ATTR_BOOL:
      ok = set_ref_ints(arena, out_attr, a->boolean != 0);
      break;
    case TQC_ATTR_UNIT:
      ok = set_ref_ints(arena, out_attr, 1);
      break;
    case TQC_ATTR_FLOAT: {
      double *v = tq_arena_alloc(arena, sizeof(*v));
      ok = v != NULL;
      if (ok) {
        *v = a->flt.value;
        out_attr->kind = TQS_ATTR_FLOATS;
        out_attr->floats = v;
        out_attr->count = 1;
      }
      break;
    }
    case TQC_ATTR_STRING:
      ok = set_ref_str(arena, out_attr, a->string);
      break;
    case TQC_ATTR_DIALECT:
      ok = set_ref_str(arena, out_attr, a->dialect.body);
      break;
    case TQC_ATTR_OPAQUE:
      ok = set_ref_str(arena, out_attr, a->opaque.text);
      break;
    case TQC_ATTR_SYMBOL_REF:
      ok = set_ref_str(arena, out_attr, a->symbol_ref.names[0]);
      break;
    case TQC_ATTR_TYPE: {
      tq_buf_t b;
      tq_buf_init(&b, 0);
      tq_status_t st = tqc__print_type(a->type, &b);
      if (st) {
        tq_buf_deinit(&b);
        return st;
      }
      ok = set_ref_str(arena, out_attr, tq_sv(b.data ? b.data : "", b.len));
      tq_buf_deinit(&b);
      break;
    }
    case TQC_ATTR_ARRAY: {
      int r = array_numbers(arena, a, out_attr);
      ok = r >= 0 && (r == 1 || set_ref_str(arena, out_attr, tq_sv_cstr("<array>")));
      break;
    }
    case TQC_ATTR_DENSE_ARRAY: {
      const tqc_type_t *e = a->dense_array.element;
      size_t n = a->dense_array.count;
      if (e && e->kind == TQC_TYPE_FLOAT) {
        double *d = tq_arena_calloc(arena, n ? n : 1, sizeof(*d));
        if (!(ok = d != NULL)) break;
        for (size_t i = 0; i < n; i++)
          d[i] = tqc_float_decode(e->flt.fkind, tqc_dense_array_get_bits(a, i));
        out_attr->kind = TQS_ATTR_FLOATS;
        out_attr->floats = d;
      } else {
        int64_t *v = tq_arena_calloc(arena, n ? n : 1, sizeof(*v));
        if (!(ok = v != NULL)) break;
        for (size_t i = 0; i < n; i++) v[i] = tqc_dense_array_get_int(a, i);
        out_attr->kind = TQS_ATTR_INTS;
        out_attr->ints = v;
      }
      out_attr->count = n;
      break;
    }
    case TQC_ATTR_DICT:
      ok = set_ref_str(arena, out_attr, tq_sv_cstr("<dictionary>"));
      break;
    case TQC_ATTR_DENSE:
      break;
  }
  if (!ok) return TQC_OOM("while lowering");
  *out_converted = 1;
  return NULL;
}

/* A host program attribute: the reference kernels' form (tqc__attr_to_ref) as Ints, Floats or a
 * string, and dense elements attributes as raw bytes. */
static tq_status_t convert_attr(tqc_lower_t *L, const tqc_named_attr_t *na, Torq__Attribute **out) {
  Torq__Attribute *at = tq_arena_alloc(L->arena, sizeof(*at));
  if (!at) return TQC_OOM("while lowering");
  Torq__Attribute init = TORQ__ATTRIBUTE__INIT;
  *at = init;
  at->key = arena_sv(L, na->name);
  if (!at->key) return TQC_OOM("while lowering");
  const tqc_attr_t *a = na->value;
  if (a->kind == TQC_ATTR_DENSE) {
    size_t size = 0;
    uint8_t *d;
    if (!tqc_type_byte_size(a->dense.type, &size)) size = a->dense.size;
    d = tq_arena_alloc(L->arena, size ? size : 1);
    if (!d) return TQC_OOM("while lowering");
    tqc__dense_copy(a, 0, size / (a->dense.elem_size ? a->dense.elem_size : 1), d);
    at->value_case = TORQ__ATTRIBUTE__VALUE_RAW;
    at->raw.data = d;
    at->raw.len = size;
    *out = at;
    return NULL;
  }
  tqs_attr_t ref;
  int converted = 0;
  TQ_TRY(tqc__attr_to_ref(L->arena, na, &ref, &converted));
  switch (ref.kind) {
    case TQS_ATTR_INTS: {
      Torq__Ints *v = tq_arena_alloc(L->arena, sizeof(*v));
      if (!v) return TQC_OOM("while lowering");
      Torq__Ints vinit = TORQ__INTS__INIT;
      *v = vinit;
      v->values = tqc__i64s(L, ref.count, ref.ints);
      v->n_values = ref.count;
      if (!v->values) return TQC_OOM("while lowering");
      at->value_case = TORQ__ATTRIBUTE__VALUE_INTS;
      at->ints = v;
      break;
    }
    case TQS_ATTR_FLOATS: {
      Torq__Floats *v = tq_arena_alloc(L->arena, sizeof(*v));
      double *d = tq_arena_calloc(L->arena, ref.count ? ref.count : 1, sizeof(*d));
      if (!v || !d) return TQC_OOM("while lowering");
      Torq__Floats vinit = TORQ__FLOATS__INIT;
      *v = vinit;
      if (ref.count) memcpy(d, ref.floats, ref.count * sizeof(*d));
      v->values = d;
      v->n_values = ref.count;
      at->value_case = TORQ__ATTRIBUTE__VALUE_FLOATS;
      at->floats = v;
      break;
    }
    case TQS_ATTR_STRING:
      at->value_case = TORQ__ATTRIBUTE__VALUE_STR;
      at->str = arena_sv(L, tq_sv_cstr(ref.string));
      if (!at->str) return TQC_OOM("while lowering");
      break;
  }
  *out = at;
  return NULL;
}

/* A scalar operand (linalg.fill's value) as a rank-0 constant buffer: it must come from a scalar
 * arith.constant. */
static tq_status_t scalar_buffer(tqc_lower_t *L, const tqc_op_t *op, size_t i, uint32_t *out_id) {
  const tqc_value_t *v = op->operands[i];
  const tqc_attr_t *a =
      v->def && tqc_op_is(v->def, "arith.constant") ? tqc_op_attr(v->def, "value") : NULL;
  Torq__ElementType et = tqc__element_type(v->type);
  size_t size = tqc_type_storage_size(v->type);
  uint8_t bytes[8] = {0};
  if (!a || et == TORQ__ELEMENT_TYPE__ELEMENT_TYPE_UNSPECIFIED || size == 0 || size > 8)
    return tqc__op_error(L, op, "scalar operand %zu is not a constant of a supported type", i);
  uint64_t bits = a->kind == TQC_ATTR_FLOAT  ? a->flt.bits
                  : a->kind == TQC_ATTR_BOOL ? (uint64_t)(a->boolean != 0)
                                             : (uint64_t)a->integer.value;
  for (size_t k = 0; k < size; k++) bytes[k] = (uint8_t)(bits >> (8 * k));
  return tqc__new_constant(L, et, NULL, 0, bytes, size, out_id);
}

tq_status_t tqc__lower_host(tqc_lower_t *L, const tqc_op_t *op) {
  Torq__HostProgram *hp = tq_arena_alloc(L->arena, sizeof(*hp));
  if (!hp) return TQC_OOM("while lowering");
  Torq__HostProgram init = TORQ__HOST_PROGRAM__INIT;
  *hp = init;
  hp->id = (uint32_t)L->hosts.count;
  hp->op = arena_sv(L, op->name);
  hp->location = (char *)tqc__op_location(L, op);
  hp->operand_buffers = tq_arena_calloc(L->arena, op->num_operands + 1, sizeof(uint32_t));
  hp->result_buffers = tq_arena_calloc(L->arena, op->num_results + 1, sizeof(uint32_t));
  tqc_named_attr_t *extra = NULL; /* a linalg op's semantics for the reference interpreter */
  size_t n_extra = 0;
  tq_status_t st = tqc__linalg_attrs(L->arena, op, &extra, &n_extra);
  if (st) {
    tq_status_t located =
        tqc__op_error(L, op, "%.*s: %s", (int)op->name.len, op->name.data, tq_status_message(st));
    tq_status_free(st);
    return located;
  }
  size_t na = op->properties.count + op->attributes.count + n_extra;
  hp->attributes = tq_arena_calloc(L->arena, na + 1, sizeof(Torq__Attribute *));
  if (!hp->op || !hp->operand_buffers || !hp->result_buffers || !hp->attributes)
    return TQC_OOM("while lowering");
  for (size_t i = 0; i < op->num_operands; i++) {
    const tqc_value_t *v = op->operands[i];
    if (v->type && v->type->kind == TQC_TYPE_SHAPE && !tqc_value_const_dense(v))
      return tqc__op_error(L, op, "shape operand %zu is not a tosa.const_shape", i);
    if (tqc_type_is_scalar(v->type)) {
      TQ_TRY(scalar_buffer(L, op, i, &hp->operand_buffers[i]));
      continue;
    }
    TQ_TRY(tqc__value_buffer(L, v, &hp->operand_buffers[i]));
  }
  hp->n_operand_buffers = op->num_operands;
  for (size_t i = 0; i < op->num_results; i++)
    TQ_TRY(tqc__value_buffer(L, op->results[i], &hp->result_buffers[i]));
  hp->n_result_buffers = op->num_results;
  const tqc_dict_t *dicts[2] = {&op->properties, &op->attributes};
  for (int d = 0; d < 2; d++)
    for (size_t i = 0; i < dicts[d]->count; i++)
      TQ_TRY(convert_attr(L, &dicts[d]->entries[i], &hp->attributes[hp->n_attributes++]));
  for (size_t i = 0; i < n_extra; i++)
    TQ_TRY(convert_attr(L, &extra[i], &hp->attributes[hp->n_attributes++]));
  char **names = tqc__op_names(L, &op, 1);
  if (!names || !tqc__ptrvec_push(L->arena, &L->hosts, hp) ||
      !tqc__ptrvec_push(L->arena, &L->host_ops, names))
    return TQC_OOM("while lowering");
  TQ_TRY(tqc__emit_allocs(L, hp->location));
  TQ_TRY(tqc__emit_action(L, TORQ__ACTION_KIND__HOST_START, hp->id, hp->location));
  TQ_TRY(tqc__emit_action(L, TORQ__ACTION_KIND__HOST_WAIT, hp->id, hp->location));
  return tqc__emit_deallocs(L, hp->location);
}
