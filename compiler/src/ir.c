/* IR queries: type equality and sizes, float encodings, attribute and op lookups. */
#include <math.h>
#include <string.h>

#include "torq/base/checked.h"
#include "torq/compiler/ir.h"

/* ---- Types ---------------------------------------------------------------------------------- */

int tqc_type_equal(const tqc_type_t *a, const tqc_type_t *b) {
  if (a == b) return 1;
  if (!a || !b || a->kind != b->kind) return 0;
  switch (a->kind) {
  case TQC_TYPE_INTEGER:
    return a->integer.width == b->integer.width && a->integer.signedness == b->integer.signedness;
  case TQC_TYPE_INDEX:
  case TQC_TYPE_NONE: return 1;
  case TQC_TYPE_FLOAT: return a->flt.fkind == b->flt.fkind;
  case TQC_TYPE_TENSOR:
    if (a->tensor.ranked != b->tensor.ranked || a->tensor.rank != b->tensor.rank) return 0;
    if (!tqc_type_equal(a->tensor.element, b->tensor.element)) return 0;
    for (size_t i = 0; i < a->tensor.rank; i++) {
      if (a->tensor.dims[i] != b->tensor.dims[i]) return 0;
    }
    /* Encodings are compared by presence only; the corpus uses none. */
    return (a->tensor.encoding == NULL) == (b->tensor.encoding == NULL);
  case TQC_TYPE_SHAPE: return a->shape.rank == b->shape.rank;
  case TQC_TYPE_FUNCTION:
    if (a->function.num_inputs != b->function.num_inputs ||
        a->function.num_results != b->function.num_results) {
      return 0;
    }
    for (size_t i = 0; i < a->function.num_inputs; i++) {
      if (!tqc_type_equal(a->function.inputs[i], b->function.inputs[i])) return 0;
    }
    for (size_t i = 0; i < a->function.num_results; i++) {
      if (!tqc_type_equal(a->function.results[i], b->function.results[i])) return 0;
    }
    return 1;
  case TQC_TYPE_OPAQUE: return tq_sv_eq(a->opaque.text, b->opaque.text);
  }
  return 0;
}

int tqc_type_is_scalar(const tqc_type_t *type) {
  return type && (type->kind == TQC_TYPE_INTEGER || type->kind == TQC_TYPE_INDEX ||
                  type->kind == TQC_TYPE_FLOAT);
}

uint32_t tqc_type_bit_width(const tqc_type_t *type) {
  if (!type) return 0;
  switch (type->kind) {
  case TQC_TYPE_INTEGER: return type->integer.width;
  case TQC_TYPE_INDEX: return 64;
  case TQC_TYPE_FLOAT: return type->flt.width;
  default: return 0;
  }
}

size_t tqc_type_storage_size(const tqc_type_t *type) {
  uint32_t bits = tqc_type_bit_width(type);
  if (bits == 0) return 0;
  if (bits <= 8) return 1;
  if (bits <= 16) return 2;
  if (bits <= 32) return 4;
  return 8;
}

int tqc_type_element_count(const tqc_type_t *type, size_t *out_count) {
  if (tqc_type_is_scalar(type)) {
    *out_count = 1;
    return 1;
  }
  if (!type || type->kind != TQC_TYPE_TENSOR || !type->tensor.ranked) return 0;
  size_t n = 1;
  for (size_t i = 0; i < type->tensor.rank; i++) {
    int64_t d = type->tensor.dims[i];
    if (d < 0 || (uint64_t)d > SIZE_MAX || !tq_size_mul(n, (size_t)d, &n)) return 0;
  }
  *out_count = n;
  return 1;
}

int tqc_type_byte_size(const tqc_type_t *type, size_t *out_size) {
  size_t n;
  if (!tqc_type_element_count(type, &n)) return 0;
  const tqc_type_t *e = type->kind == TQC_TYPE_TENSOR ? type->tensor.element : type;
  size_t es = tqc_type_storage_size(e);
  if (es == 0) return 0;
  return tq_size_mul(n, es, out_size);
}

/* ---- Floats --------------------------------------------------------------------------------- */

static void float_format(tqc_float_kind_t kind, int *out_ebits, int *out_mbits) {
  switch (kind) {
  case TQC_BF16: *out_ebits = 8, *out_mbits = 7; break;
  case TQC_F16: *out_ebits = 5, *out_mbits = 10; break;
  case TQC_F32: *out_ebits = 8, *out_mbits = 23; break;
  default: *out_ebits = 11, *out_mbits = 52; break;
  }
}

double tqc_float_decode(tqc_float_kind_t kind, uint64_t bits) {
  if (kind == TQC_F64) {
    double d;
    memcpy(&d, &bits, sizeof(d));
    return d;
  }
  int eb, mb;
  float_format(kind, &eb, &mb);
  uint64_t mant = bits & (((uint64_t)1 << mb) - 1);
  uint64_t exp = (bits >> mb) & (((uint64_t)1 << eb) - 1);
  int neg = (int)((bits >> (eb + mb)) & 1);
  int bias = (1 << (eb - 1)) - 1;
  double v;
  if (exp == ((uint64_t)1 << eb) - 1) {
    v = mant ? NAN : INFINITY;
  } else if (exp == 0) {
    v = ldexp((double)mant, 1 - bias - mb);
  } else {
    v = ldexp((double)(mant | ((uint64_t)1 << mb)), (int)exp - bias - mb);
  }
  return neg ? -v : v;
}

uint64_t tqc_float_encode(tqc_float_kind_t kind, double value) {
  if (kind == TQC_F64) {
    uint64_t b;
    memcpy(&b, &value, sizeof(b));
    return b;
  }
  int eb, mb;
  float_format(kind, &eb, &mb);
  uint64_t sign = (uint64_t)(signbit(value) ? 1 : 0) << (eb + mb);
  uint64_t emax = ((uint64_t)1 << eb) - 1;
  int bias = (1 << (eb - 1)) - 1;
  if (isnan(value)) return sign | (emax << mb) | ((uint64_t)1 << (mb - 1));
  double a = fabs(value);
  if (isinf(a)) return sign | (emax << mb);
  if (a == 0) return sign;
  int e;
  double m = frexp(a, &e); /* a = m * 2^e, m in [0.5, 1) */
  int biased = e - 1 + bias;
  if (biased >= 1) {
    /* nearbyint rounds half to even in the default rounding mode; the scaling is exact. */
    uint64_t q = (uint64_t)nearbyint(ldexp(m, mb + 1));
    if (q == (uint64_t)1 << (mb + 1)) {
      q >>= 1;
      biased++;
    }
    if ((uint64_t)biased >= emax) return sign | (emax << mb);
    return sign | ((uint64_t)biased << mb) | (q & (((uint64_t)1 << mb) - 1));
  }
  /* Subnormal; a carry into the exponent field gives the smallest normal, as it should. */
  uint64_t q = (uint64_t)nearbyint(ldexp(a, bias - 1 + mb));
  return sign | q;
}

/* ---- Attributes ----------------------------------------------------------------------------- */

const tqc_attr_t *tqc_dict_get(const tqc_dict_t *dict, const char *name) {
  tq_sv_t key = tq_sv_cstr(name);
  size_t lo = 0, hi = dict->count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    tq_sv_t k = dict->entries[mid].name;
    size_t n = k.len < key.len ? k.len : key.len;
    int c = n ? memcmp(k.data, key.data, n) : 0;
    if (c == 0) c = k.len < key.len ? -1 : k.len > key.len;
    if (c == 0) return dict->entries[mid].value;
    if (c < 0) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return NULL;
}

static uint64_t load_bits(const uint8_t *p, size_t size) {
  uint64_t v = 0;
  for (size_t i = 0; i < size; i++) v |= (uint64_t)p[i] << (8 * i);
  return v;
}

/* The integer value of an element of type `et` stored as `bits` (see tqc_dense_get_int). */
static int64_t int_from_bits(const tqc_type_t *et, uint64_t bits) {
  if (et->kind == TQC_TYPE_FLOAT) return (int64_t)tqc_float_decode(et->flt.fkind, bits);
  uint32_t w = tqc_type_bit_width(et);
  if (w >= 64) return (int64_t)bits;
  bits &= ((uint64_t)1 << w) - 1;
  if (w == 1 || (et->kind == TQC_TYPE_INTEGER && et->integer.signedness == TQC_UNSIGNED)) {
    return (int64_t)bits;
  }
  uint64_t s = (uint64_t)1 << (w - 1);
  return (int64_t)((bits ^ s) - s);
}

uint64_t tqc_dense_get_bits(const tqc_attr_t *dense, size_t index) {
  size_t es = dense->dense.elem_size;
  return load_bits(dense->dense.data + (dense->dense.splat ? 0 : index * es), es);
}

int64_t tqc_dense_get_int(const tqc_attr_t *dense, size_t index) {
  return int_from_bits(dense->dense.type->tensor.element, tqc_dense_get_bits(dense, index));
}

double tqc_dense_get_float(const tqc_attr_t *dense, size_t index) {
  const tqc_type_t *et = dense->dense.type->tensor.element;
  if (et->kind == TQC_TYPE_FLOAT) {
    return tqc_float_decode(et->flt.fkind, tqc_dense_get_bits(dense, index));
  }
  int64_t v = tqc_dense_get_int(dense, index);
  if (et->kind == TQC_TYPE_INTEGER && et->integer.signedness == TQC_UNSIGNED) {
    return (double)(uint64_t)v;
  }
  return (double)v;
}

uint64_t tqc_dense_array_get_bits(const tqc_attr_t *array, size_t index) {
  size_t es = tqc_type_storage_size(array->dense_array.element);
  return load_bits(array->dense_array.data + index * es, es);
}

int64_t tqc_dense_array_get_int(const tqc_attr_t *array, size_t index) {
  return int_from_bits(array->dense_array.element, tqc_dense_array_get_bits(array, index));
}

tq_sv_t tqc_attr_dialect_body(const tqc_attr_t *attr, const char *name) {
  if (!attr || attr->kind != TQC_ATTR_DIALECT || !tq_sv_eq_cstr(attr->dialect.name, name)) {
    return tq_sv(NULL, 0);
  }
  return attr->dialect.body;
}

/* ---- Ops and modules ------------------------------------------------------------------------ */

const tqc_op_t *tqc_module_op(const tqc_module_t *module) { return module->op; }

int tqc_op_is(const tqc_op_t *op, const char *name) { return tq_sv_eq_cstr(op->name, name); }

const tqc_attr_t *tqc_op_attr(const tqc_op_t *op, const char *name) {
  const tqc_attr_t *a = tqc_dict_get(&op->properties, name);
  return a ? a : tqc_dict_get(&op->attributes, name);
}

const char *tqc_op_const_attr_name(const tqc_op_t *op) {
  if (tqc_op_is(op, "tosa.const") || tqc_op_is(op, "tosa.const_shape")) return "values";
  if (tqc_op_is(op, "arith.constant")) return "value";
  return NULL;
}

const tqc_attr_t *tqc_value_const_dense(const tqc_value_t *value) {
  const tqc_op_t *def = value ? value->def : NULL;
  const char *name = def ? tqc_op_const_attr_name(def) : NULL;
  const tqc_attr_t *a = name ? tqc_op_attr(def, name) : NULL;
  return a && a->kind == TQC_ATTR_DENSE ? a : NULL;
}

tq_sv_t tqc_op_sym_name(const tqc_op_t *op) {
  const tqc_attr_t *a = tqc_op_attr(op, "sym_name");
  return a && a->kind == TQC_ATTR_STRING ? a->string : tq_sv("", 0);
}

const tqc_type_t *tqc_func_type(const tqc_op_t *func) {
  const tqc_attr_t *a = tqc_op_attr(func, "function_type");
  if (!a || a->kind != TQC_ATTR_TYPE || a->type->kind != TQC_TYPE_FUNCTION) return NULL;
  return a->type;
}

static const tqc_block_t *module_body(const tqc_module_t *module) {
  const tqc_op_t *m = module->op;
  if (!m || m->num_regions < 1 || m->regions[0].num_blocks < 1) return NULL;
  return m->regions[0].blocks[0];
}

const tqc_op_t *tqc_module_lookup_func(const tqc_module_t *module, const char *name) {
  const tqc_block_t *b = module_body(module);
  for (const tqc_op_t *op = b ? b->first : NULL; op; op = op->next) {
    if (tqc_op_is(op, "func.func") && tq_sv_eq_cstr(tqc_op_sym_name(op), name)) return op;
  }
  return NULL;
}

const tqc_op_t *tqc_module_entry(const tqc_module_t *module) {
  const tqc_op_t *main_fn = tqc_module_lookup_func(module, "main");
  if (main_fn) return main_fn;
  const tqc_block_t *b = module_body(module);
  for (const tqc_op_t *op = b ? b->first : NULL; op; op = op->next) {
    if (!tqc_op_is(op, "func.func")) continue;
    const tqc_attr_t *vis = tqc_op_attr(op, "sym_visibility");
    int is_public = !vis || (vis->kind == TQC_ATTR_STRING && tq_sv_eq_cstr(vis->string, "public"));
    int has_body = op->num_regions > 0 && op->regions[0].num_blocks > 0;
    if (is_public && has_body) return op;
  }
  return NULL;
}

const tqc_loc_t *tqc_loc_first_file(const tqc_loc_t *loc) {
  if (!loc) return NULL;
  switch (loc->kind) {
    case TQC_LOC_FILE:
      return loc;
    case TQC_LOC_NAME:
      return tqc_loc_first_file(loc->name.child);
    case TQC_LOC_CALLSITE:
      return tqc_loc_first_file(loc->callsite.callee);
    case TQC_LOC_FUSED:
      for (size_t i = 0; i < loc->fused.count; i++) {
        const tqc_loc_t *f = tqc_loc_first_file(loc->fused.locs[i]);
        if (f) return f;
      }
      return NULL;
    default:
      return NULL;
  }
}
