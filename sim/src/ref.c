/* The reference interpreter's entry point: op lookup, operand validation, and the helpers every
 * kernel shares (errors, checks, attributes, broadcasting, strided copies). */
#include "torq/sim/ref.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ref_internal.h"

/* ---- The op table ---- */

typedef struct tqs__entry_s {
  const char *name; /* without "tosa." */
  tqs__kernel_t kernel;
  int variant;
} tqs__entry_t;

static const tqs__entry_t tqs__ops[] = {
    {"abs", tqs__k_unary, TQS__U_ABS},
    {"add", tqs__k_binary, TQS__B_ADD},
    {"argmax", tqs__k_argmax, 0},
    {"arithmetic_right_shift", tqs__k_binary, TQS__B_ARITHMETIC_RIGHT_SHIFT},
    {"avg_pool2d", tqs__k_avg_pool2d, 0},
    {"bitwise_and", tqs__k_binary, TQS__B_BITWISE_AND},
    {"bitwise_not", tqs__k_unary, TQS__U_BITWISE_NOT},
    {"bitwise_or", tqs__k_binary, TQS__B_BITWISE_OR},
    {"bitwise_xor", tqs__k_binary, TQS__B_BITWISE_XOR},
    {"cast", tqs__k_cast, 0},
    {"ceil", tqs__k_unary, TQS__U_CEIL},
    {"clamp", tqs__k_clamp, 0},
    {"clz", tqs__k_unary, TQS__U_CLZ},
    {"concat", tqs__k_concat, 0},
    {"const", tqs__k_identity, TQS__D_CONST},
    {"const_shape", tqs__k_identity, TQS__D_CONST},
    {"conv2d", tqs__k_conv2d, 0},
    {"cos", tqs__k_unary, TQS__U_COS},
    {"depthwise_conv2d", tqs__k_depthwise_conv2d, 0},
    {"equal", tqs__k_binary, TQS__B_EQUAL},
    {"erf", tqs__k_unary, TQS__U_ERF},
    {"exp", tqs__k_unary, TQS__U_EXP},
    {"floor", tqs__k_unary, TQS__U_FLOOR},
    {"fully_connected", tqs__k_fully_connected, 0},
    {"gather", tqs__k_gather, 0},
    {"greater", tqs__k_binary, TQS__B_GREATER},
    {"greater_equal", tqs__k_binary, TQS__B_GREATER_EQUAL},
    {"identity", tqs__k_identity, TQS__D_IDENTITY},
    {"intdiv", tqs__k_binary, TQS__B_INTDIV},
    {"log", tqs__k_unary, TQS__U_LOG},
    {"logical_and", tqs__k_binary, TQS__B_LOGICAL_AND},
    {"logical_left_shift", tqs__k_binary, TQS__B_LOGICAL_LEFT_SHIFT},
    {"logical_not", tqs__k_unary, TQS__U_LOGICAL_NOT},
    {"logical_or", tqs__k_binary, TQS__B_LOGICAL_OR},
    {"logical_right_shift", tqs__k_binary, TQS__B_LOGICAL_RIGHT_SHIFT},
    {"logical_xor", tqs__k_binary, TQS__B_LOGICAL_XOR},
    {"matmul", tqs__k_matmul, 0},
    {"max_pool2d", tqs__k_max_pool2d, 0},
    {"maximum", tqs__k_binary, TQS__B_MAXIMUM},
    {"minimum", tqs__k_binary, TQS__B_MINIMUM},
    {"mul", tqs__k_mul, 0},
    {"negate", tqs__k_negate, 0},
    {"pad", tqs__k_pad, 0},
    {"pow", tqs__k_binary, TQS__B_POW},
    {"reciprocal", tqs__k_unary, TQS__U_RECIPROCAL},
    {"reduce_all", tqs__k_reduce, TQS__R_ALL},
    {"reduce_any", tqs__k_reduce, TQS__R_ANY},
    {"reduce_max", tqs__k_reduce, TQS__R_MAX},
    {"reduce_min", tqs__k_reduce, TQS__R_MIN},
    {"reduce_product", tqs__k_reduce, TQS__R_PRODUCT},
    {"reduce_sum", tqs__k_reduce, TQS__R_SUM},
    {"rescale", tqs__k_rescale, 0},
    {"reshape", tqs__k_reshape, 0},
    {"resize", tqs__k_resize, 0},
    {"reverse", tqs__k_reverse, 0},
    {"rsqrt", tqs__k_unary, TQS__U_RSQRT},
    {"scatter", tqs__k_scatter, 0},
    {"select", tqs__k_select, 0},
    {"sigmoid", tqs__k_unary, TQS__U_SIGMOID},
    {"sin", tqs__k_unary, TQS__U_SIN},
    {"slice", tqs__k_slice, 0},
    {"sub", tqs__k_binary, TQS__B_SUB},
    {"table", tqs__k_table, 0},
    {"tanh", tqs__k_unary, TQS__U_TANH},
    {"tile", tqs__k_tile, 0},
    {"transpose", tqs__k_transpose, 0},
};

/* Ops of MLIR's tensor dialect that the corpus uses; they are named with their dialect prefix
 * only ("tensor.extract_slice"). */
static const tqs__entry_t tqs__tensor_ops[] = {
    {"empty", tqs__k_empty, 0},
    {"extract_slice", tqs__k_extract_slice, 0},
};

/* linalg structured ops on tensors, named with their prefix ("linalg.generic"). */
static const tqs__entry_t tqs__linalg_ops[] = {
    {"fill", tqs__k_linalg, 0},
    {"generic", tqs__k_linalg, 0},
    {"matmul", tqs__k_linalg, 0},
};

/* The entry of `op` and its dialect ("tosa", "tensor" or "linalg"), or NULL. */
static const tqs__entry_t *tqs__lookup(const char *op, const char **out_dialect) {
  if (!op) return NULL;
  const tqs__entry_t *table = tqs__ops;
  size_t n = sizeof tqs__ops / sizeof tqs__ops[0];
  *out_dialect = "tosa";
  if (strncmp(op, "tosa.", 5) == 0) {
    op += 5;
  } else if (strncmp(op, "tensor.", 7) == 0) {
    op += 7;
    table = tqs__tensor_ops;
    n = sizeof tqs__tensor_ops / sizeof tqs__tensor_ops[0];
    *out_dialect = "tensor";
  } else if (strncmp(op, "linalg.", 7) == 0) {
    op += 7;
    table = tqs__linalg_ops;
    n = sizeof tqs__linalg_ops / sizeof tqs__linalg_ops[0];
    *out_dialect = "linalg";
  }
  for (size_t i = 0; i < n; i++) {
    if (strcmp(table[i].name, op) == 0) return &table[i];
  }
  return NULL;
}

int tqs_ref_has_op(const char *op) {
  const char *dialect;
  return tqs__lookup(op, &dialect) != NULL;
}

static tq_status_t tqs__check_tensor(const tqs__op_t *op, const tqs_tensor_t *t, const char *kind,
                                     size_t index) {
  if (!t) return TQS_FAIL(op, "%s %zu is NULL", kind, index);
  size_t count;
  tq_status_t status = tqs_tensor_count(t, &count);
  if (status) {
    char message[256];
    snprintf(message, sizeof message, "%s", tq_status_message(status));
    tq_status_free(status);
    return TQS_FAIL(op, "%s %zu is malformed (%s)", kind, index, message);
  }
  if (count && !t->data) return TQS_FAIL(op, "%s %zu has no data", kind, index);
  return NULL;
}

tq_status_t tqs_ref_run(const char *op_name, const tqs_attr_t *attrs, size_t n_attrs,
                        const tqs_tensor_t *const *inputs, size_t n_inputs,
                        tqs_tensor_t *const *outputs, size_t n_outputs) {
  const char *dialect = NULL;
  const tqs__entry_t *entry = tqs__lookup(op_name, &dialect);
  if (!entry) {
    return TQ_STATUS(TQ_UNIMPLEMENTED, "reference interpreter: unknown op '%s'",
                     op_name ? op_name : "(null)");
  }
  char name[64];
  snprintf(name, sizeof name, "%s.%s", dialect, entry->name);
  tqs__op_t op = {name,
                  attrs,
                  attrs ? n_attrs : 0,
                  inputs,
                  inputs ? n_inputs : 0,
                  outputs,
                  outputs ? n_outputs : 0};
  for (size_t i = 0; i < op.n_attrs; i++) {
    if (!attrs[i].key) return TQS_FAIL(&op, "attribute %zu has no key", i);
    int bad = 0;
    switch (attrs[i].kind) {
      case TQS_ATTR_INTS:
        bad = attrs[i].count && !attrs[i].ints;
        break;
      case TQS_ATTR_FLOATS:
        bad = attrs[i].count && !attrs[i].floats;
        break;
      case TQS_ATTR_STRING:
        bad = !attrs[i].string;
        break;
      default:
        bad = 1;
        break;
    }
    if (bad) return TQS_FAIL(&op, "attribute '%s' is malformed", attrs[i].key);
  }
  for (size_t i = 0; i < op.n_in; i++) TQ_TRY(tqs__check_tensor(&op, inputs[i], "input", i));
  for (size_t i = 0; i < op.n_out; i++) TQ_TRY(tqs__check_tensor(&op, outputs[i], "output", i));
  return entry->kernel(&op, entry->variant);
}

/* ---- Errors ---- */

tq_status_t tqs__fail(const tqs__op_t *op, const char *file, int line, const char *fmt, ...) {
  char message[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(message, sizeof message, fmt, ap);
  va_end(ap);
  return tq_status_make(TQ_INVALID_ARGUMENT, file, line, "%s: %s", op->name, message);
}

const char *tqs__desc(const tqs_tensor_t *t, char *buf) {
  size_t len = 0;
  len += (size_t)snprintf(buf, TQS__DESC_LEN, "tensor<");
  for (size_t i = 0; i < t->rank && i < TQS_MAX_RANK; i++) {
    len += (size_t)snprintf(buf + len, TQS__DESC_LEN - len, "%lldx", (long long)t->dims[i]);
  }
  snprintf(buf + len, TQS__DESC_LEN - len, "%s>", tqs_type_name(t->type));
  return buf;
}

/* ---- Checks ---- */

size_t tqs__count(const tqs_tensor_t *t) {
  size_t count = 1;
  for (size_t i = 0; i < t->rank; i++) count *= (size_t)t->dims[i];
  return count;
}

tq_status_t tqs__check_arity(const tqs__op_t *op, size_t min_in, size_t max_in, size_t n_out) {
  if (op->n_in < min_in || op->n_in > max_in) {
    if (min_in == max_in) {
      return TQS_FAIL(op, "expects %zu operands, got %zu", min_in, op->n_in);
    }
    return TQS_FAIL(op, "expects %zu to %zu operands, got %zu", min_in, max_in, op->n_in);
  }
  if (op->n_out != n_out) return TQS_FAIL(op, "expects %zu results, got %zu", n_out, op->n_out);
  return NULL;
}

tq_status_t tqs__check_type(const tqs__op_t *op, const tqs_tensor_t *t, const char *what,
                            unsigned allowed) {
  if (allowed & TQS__T(t->type)) return NULL;
  char list[160] = "";
  size_t len = 0;
  for (int ty = 0; ty < TQS_TYPE_COUNT; ty++) {
    if (!(allowed & TQS__T(ty))) continue;
    len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", len ? ", " : "",
                            tqs_type_name((tqs_type_t)ty));
    if (len >= sizeof list) break;
  }
  return TQS_FAIL(op, "%s has element type %s; expected %s", what, tqs_type_name(t->type), list);
}

tq_status_t tqs__check_same_type(const tqs__op_t *op, const tqs_tensor_t *a, const char *what_a,
                                 const tqs_tensor_t *b, const char *what_b) {
  if (a->type == b->type) return NULL;
  return TQS_FAIL(op, "%s has element type %s but %s has %s", what_b, tqs_type_name(b->type),
                  what_a, tqs_type_name(a->type));
}

tq_status_t tqs__check_same_shape(const tqs__op_t *op, const tqs_tensor_t *a, const char *what_a,
                                  const tqs_tensor_t *b, const char *what_b) {
  int same = a->rank == b->rank;
  for (size_t i = 0; same && i < a->rank; i++) same = a->dims[i] == b->dims[i];
  if (same) return NULL;
  char da[TQS__DESC_LEN], db[TQS__DESC_LEN];
  return TQS_FAIL(op, "%s is %s but %s is %s; their shapes must be equal", what_a, tqs__desc(a, da),
                  what_b, tqs__desc(b, db));
}

tq_status_t tqs__check_rank(const tqs__op_t *op, const tqs_tensor_t *t, const char *what,
                            size_t rank) {
  if (t->rank == rank) return NULL;
  char d[TQS__DESC_LEN];
  return TQS_FAIL(op, "%s is %s; expected rank %zu", what, tqs__desc(t, d), rank);
}

tq_status_t tqs__check_dims(const tqs__op_t *op, const tqs_tensor_t *t, const char *what,
                            size_t rank, const int64_t *dims) {
  int same = t->rank == rank;
  for (size_t i = 0; same && i < rank; i++) same = t->dims[i] == dims[i];
  if (same) return NULL;
  tqs_tensor_t want = {.type = t->type, .rank = rank};
  memcpy(want.dims, dims, rank * sizeof *dims);
  char dt[TQS__DESC_LEN], dw[TQS__DESC_LEN];
  return TQS_FAIL(op, "%s is %s; expected %s", what, tqs__desc(t, dt), tqs__desc(&want, dw));
}

/* ---- Attributes ---- */

const tqs_attr_t *tqs__attr_find(const tqs__op_t *op, const char *key) {
  for (size_t i = 0; i < op->n_attrs; i++) {
    if (strcmp(op->attrs[i].key, key) == 0) return &op->attrs[i];
  }
  return NULL;
}

static tq_status_t tqs__attr_int_at(const tqs__op_t *op, const tqs_attr_t *a, size_t i,
                                    int64_t *out) {
  if (a->kind == TQS_ATTR_INTS) {
    *out = a->ints[i];
    return NULL;
  }
  if (a->kind == TQS_ATTR_FLOATS) {
    double v = a->floats[i];
    if (v >= -9.2e18 && v <= 9.2e18 && v == floor(v)) {
      *out = (int64_t)v;
      return NULL;
    }
    return TQS_FAIL(op, "attribute '%s' must hold integers; %g is not one", a->key, v);
  }
  return TQS_FAIL(op, "attribute '%s' must hold integers, not a string", a->key);
}

tq_status_t tqs__attr_ints(const tqs__op_t *op, const char *key, size_t n, int64_t *out) {
  const tqs_attr_t *a = tqs__attr_find(op, key);
  if (!a) return TQS_FAIL(op, "missing attribute '%s'", key);
  if (a->kind == TQS_ATTR_STRING || a->count != n) {
    return TQS_FAIL(op, "attribute '%s' must hold %zu integers", key, n);
  }
  for (size_t i = 0; i < n; i++) TQ_TRY(tqs__attr_int_at(op, a, i, &out[i]));
  return NULL;
}

tq_status_t tqs__attr_int(const tqs__op_t *op, const char *key, int64_t *out) {
  return tqs__attr_ints(op, key, 1, out);
}

tq_status_t tqs__attr_int_opt(const tqs__op_t *op, const char *key, int64_t dflt, int64_t *out) {
  if (!tqs__attr_find(op, key)) {
    *out = dflt;
    return NULL;
  }
  return tqs__attr_ints(op, key, 1, out);
}

tq_status_t tqs__attr_bool(const tqs__op_t *op, const char *key, int *out) {
  const tqs_attr_t *a = tqs__attr_find(op, key);
  if (!a) return TQS_FAIL(op, "missing attribute '%s'", key);
  if (a->kind == TQS_ATTR_STRING) {
    if (strcmp(a->string, "true") == 0) {
      *out = 1;
      return NULL;
    }
    if (strcmp(a->string, "false") == 0) {
      *out = 0;
      return NULL;
    }
    return TQS_FAIL(op, "attribute '%s' must be a boolean, not \"%s\"", key, a->string);
  }
  int64_t v;
  TQ_TRY(tqs__attr_ints(op, key, 1, &v));
  if (v != 0 && v != 1)
    return TQS_FAIL(op, "attribute '%s' must be 0 or 1, not %lld", key, (long long)v);
  *out = (int)v;
  return NULL;
}

tq_status_t tqs__attr_bool_opt(const tqs__op_t *op, const char *key, int dflt, int *out) {
  if (!tqs__attr_find(op, key)) {
    *out = dflt;
    return NULL;
  }
  return tqs__attr_bool(op, key, out);
}

tq_status_t tqs__attr_float(const tqs__op_t *op, const char *key, double *out) {
  const tqs_attr_t *a = tqs__attr_find(op, key);
  if (!a) return TQS_FAIL(op, "missing attribute '%s'", key);
  if (a->kind == TQS_ATTR_STRING || a->count != 1) {
    return TQS_FAIL(op, "attribute '%s' must hold one number", key);
  }
  *out = a->kind == TQS_ATTR_FLOATS ? a->floats[0] : (double)a->ints[0];
  return NULL;
}

tq_status_t tqs__attr_string(const tqs__op_t *op, const char *key, const char **out) {
  const tqs_attr_t *a = tqs__attr_find(op, key);
  if (!a) return TQS_FAIL(op, "missing attribute '%s'", key);
  if (a->kind != TQS_ATTR_STRING) return TQS_FAIL(op, "attribute '%s' must be a string", key);
  *out = a->string;
  return NULL;
}

tq_status_t tqs__attr_string_opt(const tqs__op_t *op, const char *key, const char *dflt,
                                 const char **out) {
  if (!tqs__attr_find(op, key)) {
    *out = dflt;
    return NULL;
  }
  return tqs__attr_string(op, key, out);
}

tq_status_t tqs__attr_nan_mode(const tqs__op_t *op, int *out_ignore) {
  const char *mode = "PROPAGATE";
  TQ_TRY(tqs__attr_string_opt(op, "nan_mode", "PROPAGATE", &mode));
  if (strcmp(mode, "PROPAGATE") == 0) {
    *out_ignore = 0;
  } else if (strcmp(mode, "IGNORE") == 0) {
    *out_ignore = 1;
  } else {
    return TQS_FAIL(op, "attribute 'nan_mode' must be PROPAGATE or IGNORE, not \"%s\"", mode);
  }
  return NULL;
}

tq_status_t tqs__attr_float_acc(const tqs__op_t *op, tqs_type_t *out) {
  const char *name = "f32";
  TQ_TRY(tqs__attr_string_opt(op, "acc_type", "f32", &name));
  tqs_type_t type;
  if (!tqs_type_parse(name, &type) || !tqs_type_is_float(type)) {
    return TQS_FAIL(
        op, "attribute 'acc_type' is \"%s\"; a float op accumulates in f32, f16 or bf16", name);
  }
  *out = type;
  return NULL;
}

tq_status_t tqs__shape_arg(const tqs__op_t *op, size_t index, const char *key, size_t n,
                           int64_t *out) {
  if (index < op->n_in) {
    const tqs_tensor_t *t = op->in[index];
    char what[32], d[TQS__DESC_LEN];
    snprintf(what, sizeof what, "operand %zu (%s)", index, key);
    TQ_TRY(tqs__check_type(op, t, what, TQS__SHAPE_TYPES));
    if (t->rank > 1 || tqs__count(t) != n) {
      return TQS_FAIL(op, "%s is %s; expected %zu values", what, tqs__desc(t, d), n);
    }
    for (size_t i = 0; i < n; i++) out[i] = tqs__ld_i(t, i);
    return NULL;
  }
  if (!tqs__attr_find(op, key)) return TQS_FAIL(op, "missing operand or attribute '%s'", key);
  return tqs__attr_ints(op, key, n, out);
}

tq_status_t tqs__scalar_arg(const tqs__op_t *op, size_t index, int64_t dflt, int64_t *out) {
  if (index >= op->n_in) {
    *out = dflt;
    return NULL;
  }
  const tqs_tensor_t *t = op->in[index];
  if (tqs__count(t) < 1) return TQS_FAIL(op, "operand %zu is empty; expected one value", index);
  *out = tqs_tensor_get_i64(t, 0);
  return NULL;
}

/* ---- Broadcasting ---- */

tq_status_t tqs__bcast_init(const tqs__op_t *op, size_t n, const tqs_tensor_t *const *ins,
                            const tqs_tensor_t *out, tqs__bcast_t *b) {
  memset(b, 0, sizeof *b);
  b->n = n;
  b->rank = out->rank;
  char d1[TQS__DESC_LEN], d2[TQS__DESC_LEN];
  for (size_t k = 0; k < n; k++) {
    if (ins[k]->rank != out->rank) {
      return TQS_FAIL(op, "operand %zu is %s but the result is %s; ranks must be equal", k,
                      tqs__desc(ins[k], d1), tqs__desc(out, d2));
    }
  }
  for (size_t i = 0; i < out->rank; i++) {
    int64_t want = 1;
    for (size_t k = 0; k < n; k++) {
      int64_t d = ins[k]->dims[i];
      if (d == 1) continue;
      if (want != 1 && d != want) {
        return TQS_FAIL(op, "operand %zu is %s; dim %zu (%lld) does not broadcast with %lld", k,
                        tqs__desc(ins[k], d1), i, (long long)d, (long long)want);
      }
      want = d;
    }
    if (out->dims[i] != want) {
      return TQS_FAIL(op, "the result is %s; dim %zu must be %lld, the broadcast of the operands",
                      tqs__desc(out, d1), i, (long long)want);
    }
    b->dims[i] = want;
  }
  for (size_t k = 0; k < n; k++) {
    size_t s = 1;
    for (size_t i = out->rank; i-- > 0;) {
      b->stride[k][i] = ins[k]->dims[i] == 1 ? 0 : s;
      s *= (size_t)ins[k]->dims[i];
    }
    b->step[k] = out->rank ? b->stride[k][out->rank - 1] : 0;
  }
  b->inner = out->rank ? (size_t)out->dims[out->rank - 1] : 1;
  b->rows = 1;
  for (size_t i = 0; i + 1 < out->rank; i++) b->rows *= (size_t)out->dims[i];
  if (b->inner == 0) b->rows = 0;
  return NULL;
}

void tqs__bcast_row(const tqs__bcast_t *b, size_t row, size_t *offsets) {
  for (size_t k = 0; k < b->n; k++) offsets[k] = 0;
  if (b->rank < 2) return;
  for (size_t i = b->rank - 1; i-- > 0;) {
    size_t d = (size_t)b->dims[i];
    size_t coord = row % d;
    row /= d;
    for (size_t k = 0; k < b->n; k++) offsets[k] += coord * b->stride[k][i];
  }
}

/* ---- Strided copies ---- */

void tqs__strides(const tqs_tensor_t *t, int64_t *strides) {
  int64_t s = 1;
  for (size_t i = t->rank; i-- > 0;) {
    strides[i] = s;
    s *= t->dims[i];
  }
}

#define TQS__COPY_ROW(type)                                      \
  do {                                                           \
    type *d = (type *)dst + doff;                                \
    const type *s = (const type *)src + soff;                    \
    for (int64_t j = 0; j < n; j++) d[j * dstep] = s[j * sstep]; \
  } while (0)

void tqs__copy_box(void *dst, const int64_t *dst_strides, const void *src,
                   const int64_t *src_strides, const int64_t *dims, size_t rank, size_t elem_size) {
  int64_t count = 1;
  for (size_t i = 0; i < rank; i++) count *= dims[i];
  if (count == 0) return;
  int64_t n = rank ? dims[rank - 1] : 1;
  int64_t dstep = rank ? dst_strides[rank - 1] : 1, sstep = rank ? src_strides[rank - 1] : 1;
  int64_t rows = count / n;
  int64_t coord[TQS_MAX_RANK] = {0};
  int64_t doff = 0, soff = 0;
  for (int64_t r = 0; r < rows; r++) {
    switch (elem_size) {
      case 1:
        TQS__COPY_ROW(uint8_t);
        break;
      case 2:
        TQS__COPY_ROW(uint16_t);
        break;
      case 4:
        TQS__COPY_ROW(uint32_t);
        break;
      default:
        TQS__COPY_ROW(uint64_t);
        break;
    }
    /* Advance the outer coordinates like an odometer. */
    if (rank < 2) continue;
    for (size_t i = rank - 1; i-- > 0;) {
      coord[i]++;
      doff += dst_strides[i];
      soff += src_strides[i];
      if (coord[i] < dims[i]) break;
      doff -= coord[i] * dst_strides[i];
      soff -= coord[i] * src_strides[i];
      coord[i] = 0;
    }
  }
}
