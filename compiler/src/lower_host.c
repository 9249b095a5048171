/* Host programs: the operators the NPU does not run (floats, data movement, lookups, ...),
 * executed by the runtime's reference kernels on XRAM buffers. The program carries the op name,
 * its operand and result buffers (shape operands as INDEX constants) and its attributes. */
#include <string.h>

#include "lower_internal.h"
#include "print_internal.h"
#include "torq/base/alloc.h"

static tq_status_t oom(void) {
  return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory while lowering");
}

static char *arena_sv(tqc_lower_t *L, tq_sv_t s) {
  return tq_arena_strndup(L->arena, s.data ? s.data : "", s.data ? s.len : 0);
}

/* Integers (or floats) of an array attribute; 0 when it holds anything else. */
static int array_numbers(tqc_lower_t *L, const tqc_attr_t *a, Torq__Attribute *out) {
  size_t n = a->array.count;
  int ints = 1, floats = 1;
  for (size_t i = 0; i < n; i++) {
    tqc_attr_kind_t k = a->array.items[i]->kind;
    if (k != TQC_ATTR_INTEGER && k != TQC_ATTR_BOOL) ints = 0;
    if (k != TQC_ATTR_FLOAT) floats = 0;
  }
  if (n == 0 || ints) {
    Torq__Ints *v = tq_arena_alloc(L->arena, sizeof(*v));
    int64_t *vals = tq_arena_calloc(L->arena, n + 1, sizeof(*vals));
    if (!v || !vals) return -1;
    Torq__Ints init = TORQ__INTS__INIT;
    *v = init;
    for (size_t i = 0; i < n; i++) {
      const tqc_attr_t *it = a->array.items[i];
      vals[i] = it->kind == TQC_ATTR_BOOL ? it->boolean : it->integer.value;
    }
    v->values = vals;
    v->n_values = n;
    out->value_case = TORQ__ATTRIBUTE__VALUE_INTS;
    out->ints = v;
    return 1;
  }
  if (floats) {
    Torq__Floats *v = tq_arena_alloc(L->arena, sizeof(*v));
    double *vals = tq_arena_calloc(L->arena, n, sizeof(*vals));
    if (!v || !vals) return -1;
    Torq__Floats init = TORQ__FLOATS__INIT;
    *v = init;
    for (size_t i = 0; i < n; i++) vals[i] = a->array.items[i]->flt.value;
    v->values = vals;
    v->n_values = n;
    out->value_case = TORQ__ATTRIBUTE__VALUE_FLOATS;
    out->floats = v;
    return 1;
  }
  return 0;
}

static int set_ints(tqc_lower_t *L, Torq__Attribute *out, const int64_t *vals, size_t n) {
  Torq__Ints *v = tq_arena_alloc(L->arena, sizeof(*v));
  if (!v) return 0;
  Torq__Ints init = TORQ__INTS__INIT;
  *v = init;
  v->values = tqc__i64s(L, n, vals);
  v->n_values = n;
  out->value_case = TORQ__ATTRIBUTE__VALUE_INTS;
  out->ints = v;
  return v->values != NULL;
}

static int set_floats(tqc_lower_t *L, Torq__Attribute *out, const double *vals, size_t n) {
  Torq__Floats *v = tq_arena_alloc(L->arena, sizeof(*v));
  double *d = tq_arena_calloc(L->arena, n ? n : 1, sizeof(*d));
  if (!v || !d) return 0;
  Torq__Floats init = TORQ__FLOATS__INIT;
  *v = init;
  if (n) memcpy(d, vals, n * sizeof(*d));
  v->values = d;
  v->n_values = n;
  out->value_case = TORQ__ATTRIBUTE__VALUE_FLOATS;
  out->floats = v;
  return 1;
}

static int set_str(tqc_lower_t *L, Torq__Attribute *out, tq_sv_t s) {
  out->value_case = TORQ__ATTRIBUTE__VALUE_STR;
  out->str = arena_sv(L, s);
  return out->str != NULL;
}

static tq_status_t convert_attr(tqc_lower_t *L, const tqc_named_attr_t *na, Torq__Attribute **out) {
  Torq__Attribute *at = tq_arena_alloc(L->arena, sizeof(*at));
  if (!at) return oom();
  Torq__Attribute init = TORQ__ATTRIBUTE__INIT;
  *at = init;
  at->key = arena_sv(L, na->name);
  const tqc_attr_t *a = na->value;
  int ok = at->key != NULL;
  int64_t iv;
  double fv;
  switch (ok ? a->kind : TQC_ATTR_UNIT) {
    case TQC_ATTR_INTEGER:
      iv = a->integer.value;
      ok = ok && set_ints(L, at, &iv, 1);
      break;
    case TQC_ATTR_BOOL:
      iv = a->boolean != 0;
      ok = ok && set_ints(L, at, &iv, 1);
      break;
    case TQC_ATTR_UNIT:
      iv = 1;
      ok = ok && set_ints(L, at, &iv, 1);
      break;
    case TQC_ATTR_FLOAT:
      fv = a->flt.value;
      ok = set_floats(L, at, &fv, 1);
      break;
    case TQC_ATTR_STRING:
      ok = set_str(L, at, a->string);
      break;
    case TQC_ATTR_DIALECT:
      ok = set_str(L, at, a->dialect.body);
      break;
    case TQC_ATTR_OPAQUE:
      ok = set_str(L, at, a->opaque.text);
      break;
    case TQC_ATTR_SYMBOL_REF:
      ok = set_str(L, at, a->symbol_ref.names[0]);
      break;
    case TQC_ATTR_TYPE: {
      tq_buf_t b;
      tq_buf_init(&b, 0);
      tq_status_t st = tqc__print_type(a->type, &b);
      if (st) {
        tq_buf_deinit(&b);
        return st;
      }
      ok = set_str(L, at, tq_sv(b.data ? b.data : "", b.len));
      tq_buf_deinit(&b);
      break;
    }
    case TQC_ATTR_ARRAY: {
      int r = array_numbers(L, a, at);
      if (r < 0) return oom();
      if (r == 0) ok = set_str(L, at, tq_sv_cstr("<array>"));
      break;
    }
    case TQC_ATTR_DENSE_ARRAY: {
      const tqc_type_t *e = a->dense_array.element;
      size_t n = a->dense_array.count, es = tqc_type_storage_size(e);
      if (e && e->kind == TQC_TYPE_FLOAT) {
        double *d = tq_arena_calloc(L->arena, n ? n : 1, sizeof(*d));
        if (!d) return oom();
        for (size_t i = 0; i < n; i++) {
          uint64_t bits = 0;
          memcpy(&bits, a->dense_array.data + i * es, es);
          d[i] = tqc_float_decode(e->flt.fkind, bits);
        }
        ok = set_floats(L, at, d, n);
      } else {
        int64_t *v = tq_arena_calloc(L->arena, n ? n : 1, sizeof(*v));
        if (!v) return oom();
        for (size_t i = 0; i < n; i++) {
          uint64_t bits = 0;
          memcpy(&bits, a->dense_array.data + i * es, es);
          if (es < 8 && es > 0 && e && e->kind == TQC_TYPE_INTEGER &&
              e->integer.signedness != TQC_UNSIGNED && ((bits >> (es * 8 - 1)) & 1))
            bits |= ~UINT64_C(0) << (es * 8);
          v[i] = (int64_t)bits;
        }
        ok = set_ints(L, at, v, n);
      }
      break;
    }
    case TQC_ATTR_DENSE: {
      size_t size = 0;
      uint8_t *d;
      if (!tqc_type_byte_size(a->dense.type, &size)) size = a->dense.size;
      d = tq_arena_alloc(L->arena, size ? size : 1);
      if (!d) return oom();
      tqc__dense_copy(a, 0, size / (a->dense.elem_size ? a->dense.elem_size : 1), d);
      at->value_case = TORQ__ATTRIBUTE__VALUE_RAW;
      at->raw.data = d;
      at->raw.len = size;
      break;
    }
    case TQC_ATTR_DICT:
      ok = set_str(L, at, tq_sv_cstr("<dictionary>"));
      break;
  }
  if (!ok) return oom();
  *out = at;
  return NULL;
}

tq_status_t tqc__lower_host(tqc_lower_t *L, const tqc_op_t *op) {
  Torq__HostProgram *hp = tq_arena_alloc(L->arena, sizeof(*hp));
  if (!hp) return oom();
  Torq__HostProgram init = TORQ__HOST_PROGRAM__INIT;
  *hp = init;
  hp->id = (uint32_t)L->hosts.count;
  hp->op = arena_sv(L, op->name);
  hp->location = (char *)tqc__op_location(L, op);
  hp->operand_buffers = tq_arena_calloc(L->arena, op->num_operands + 1, sizeof(uint32_t));
  hp->result_buffers = tq_arena_calloc(L->arena, op->num_results + 1, sizeof(uint32_t));
  size_t na = op->properties.count + op->attributes.count;
  hp->attributes = tq_arena_calloc(L->arena, na + 1, sizeof(Torq__Attribute *));
  if (!hp->op || !hp->operand_buffers || !hp->result_buffers || !hp->attributes) return oom();
  for (size_t i = 0; i < op->num_operands; i++) {
    const tqc_value_t *v = op->operands[i];
    if (v->type && v->type->kind == TQC_TYPE_SHAPE && !tqc__const_dense(v))
      return tqc__op_error(L, op, "shape operand %zu is not a tosa.const_shape", i);
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
  char **names = tqc__op_names(L, &op, 1);
  if (!names || !tqc__ptrvec_push(L->arena, &L->hosts, hp) ||
      !tqc__ptrvec_push(L->arena, &L->host_ops, names))
    return oom();
  TQ_TRY(tqc__emit_allocs(L, hp->location));
  TQ_TRY(tqc__emit_action(L, TORQ__ACTION_KIND__HOST_START, hp->id, hp->location));
  TQ_TRY(tqc__emit_action(L, TORQ__ACTION_KIND__HOST_WAIT, hp->id, hp->location));
  return tqc__emit_deallocs(L, hp->location);
}
