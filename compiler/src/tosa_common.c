/* What every TOSA op checker needs: diagnostics at the op, element type classes, texts for
 * messages, and readers for attributes, constant operands and shape operands. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "parser_internal.h"
#include "print_internal.h"
#include "tosa_internal.h"

tq_status_t tqc__tosa_fail(const tqc_tosa_ctx_t *c, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  const tqc_module_t *m = c->module;
  return tqc__diag(m->path, m->text, m->text_len, c->op->pos.line, c->op->pos.col, "%.*s: %s",
                   (int)c->op->name.len, c->op->name.data, msg);
}

/* ---- Element types -------------------------------------------------------------------------- */

const tqc_type_t *tqc__tosa_elem_type(const tqc_type_t *type) {
  if (type && type->kind == TQC_TYPE_TENSOR) return type->tensor.element;
  return type;
}

tqc_tosa_elem_t tqc__tosa_elem(const tqc_type_t *type) {
  const tqc_type_t *e = tqc__tosa_elem_type(type);
  if (!e) return TQC_E_OTHER;
  if (e->kind == TQC_TYPE_FLOAT) {
    switch (e->flt.fkind) {
      case TQC_F16:
        return TQC_E_F16;
      case TQC_BF16:
        return TQC_E_BF16;
      case TQC_F32:
        return TQC_E_F32;
      default:
        return TQC_E_OTHER;
    }
  }
  if (e->kind != TQC_TYPE_INTEGER) return TQC_E_OTHER;
  if (e->integer.signedness == TQC_UNSIGNED) {
    if (e->integer.width == 8) return TQC_E_U8;
    if (e->integer.width == 16) return TQC_E_U16;
    return TQC_E_OTHER;
  }
  if (e->integer.signedness != TQC_SIGNLESS) return TQC_E_OTHER;
  switch (e->integer.width) {
    case 1:
      return TQC_E_BOOL;
    case 4:
      return TQC_E_I4;
    case 8:
      return TQC_E_I8;
    case 16:
      return TQC_E_I16;
    case 32:
      return TQC_E_I32;
    case 48:
      return TQC_E_I48;
    case 64:
      return TQC_E_I64;
    default:
      return TQC_E_OTHER;
  }
}

/* clang-format off */
static const char *const elem_names[] = {
    [TQC_E_OTHER] = "?",   [TQC_E_BOOL] = "i1", [TQC_E_I4] = "i4",    [TQC_E_I8] = "i8",
    [TQC_E_I16] = "i16",   [TQC_E_I32] = "i32", [TQC_E_I48] = "i48",  [TQC_E_I64] = "i64",
    [TQC_E_U8] = "ui8",    [TQC_E_U16] = "ui16", [TQC_E_F16] = "f16", [TQC_E_BF16] = "bf16",
    [TQC_E_F32] = "f32",
};
/* clang-format on */

/* ---- Texts ---------------------------------------------------------------------------------- */

static void text_put(tqc_tosa_text_t *t, size_t *len, const char *s) {
  size_t n = strlen(s);
  size_t room = sizeof(t->s) - 4; /* keep space for "..." and the NUL */
  if (*len >= room) return;
  if (n > room - *len) {
    memcpy(t->s + *len, s, room - *len);
    memcpy(t->s + room, "...", 4);
    *len = room;
    return;
  }
  memcpy(t->s + *len, s, n + 1);
  *len += n;
}

tqc_tosa_text_t tqc__tosa_type_text(const tqc_type_t *type) {
  tqc_tosa_text_t t;
  size_t len = 0;
  t.s[0] = '\0';
  tq_buf_t buf;
  tq_buf_init(&buf, 0);
  tq_status_t st = tqc__print_type(type, &buf);
  if (!st) st = tq_buf_putc(&buf, '\0');
  text_put(&t, &len, !st && buf.data ? buf.data : "?");
  tq_status_free(st);
  tq_buf_deinit(&buf);
  return t;
}

tqc_tosa_text_t tqc__tosa_elem_text(const tqc_type_t *type) {
  return tqc__tosa_type_text(tqc__tosa_elem_type(type));
}

tqc_tosa_text_t tqc__tosa_dims_text(const int64_t *dims, size_t rank) {
  tqc_tosa_text_t t;
  size_t len = 0;
  t.s[0] = '\0';
  if (rank == 0) text_put(&t, &len, "[]");
  for (size_t i = 0; i < rank; i++) {
    char d[32];
    if (dims[i] == TQC_DYNAMIC) {
      snprintf(d, sizeof(d), "%s?", i ? "x" : "");
    } else {
      snprintf(d, sizeof(d), "%s%lld", i ? "x" : "", (long long)dims[i]);
    }
    text_put(&t, &len, d);
  }
  return t;
}

tqc_tosa_text_t tqc__tosa_mask_text(uint32_t mask) {
  tqc_tosa_text_t t;
  size_t len = 0;
  t.s[0] = '\0';
  for (size_t e = 1; e < sizeof(elem_names) / sizeof(elem_names[0]); e++) {
    if (!(mask & TQC_EM(e))) continue;
    if (len) text_put(&t, &len, ", ");
    text_put(&t, &len, elem_names[e]);
  }
  return t;
}

/* ---- Operands, results, shapes -------------------------------------------------------------- */

const tqc_type_t *tqc__tosa_operand(const tqc_tosa_ctx_t *c, size_t i) {
  return c->op->operands[i]->type;
}

const tqc_type_t *tqc__tosa_result(const tqc_tosa_ctx_t *c, size_t i) {
  return c->op->results[i]->type;
}

tqc_tosa_shape_t tqc__tosa_shape_of(const tqc_type_t *type) {
  tqc_tosa_shape_t s;
  memset(&s, 0, sizeof(s));
  s.rank = type->tensor.rank;
  memcpy(s.dims, type->tensor.dims, s.rank * sizeof(int64_t));
  return s;
}

tq_status_t tqc__tosa_expect_shape(const tqc_tosa_ctx_t *c, const char *what,
                                   const tqc_type_t *type, const tqc_tosa_shape_t *shape) {
  int same = type->tensor.rank == shape->rank;
  for (size_t i = 0; same && i < shape->rank; i++) same = type->tensor.dims[i] == shape->dims[i];
  if (same) return NULL;
  return tqc__tosa_fail(c, "%s shape %s does not match the inferred %s", what,
                        tqc__tosa_dims_text(type->tensor.dims, type->tensor.rank).s,
                        tqc__tosa_dims_text(shape->dims, shape->rank).s);
}

tq_status_t tqc__tosa_expect_rank(const tqc_tosa_ctx_t *c, const char *what, const tqc_type_t *type,
                                  size_t rank) {
  if (type->tensor.rank == rank) return NULL;
  return tqc__tosa_fail(c, "%s must have rank %zu, got %s", what, rank,
                        tqc__tosa_type_text(type).s);
}

tq_status_t tqc__tosa_expect_same_elem(const tqc_tosa_ctx_t *c, const char *what,
                                       const tqc_type_t *type, const tqc_type_t *want) {
  if (tqc_type_equal(tqc__tosa_elem_type(type), tqc__tosa_elem_type(want))) return NULL;
  return tqc__tosa_fail(c, "%s element type %s does not match the expected %s", what,
                        tqc__tosa_elem_text(type).s, tqc__tosa_elem_text(want).s);
}

tq_status_t tqc__tosa_expect_elem_in(const tqc_tosa_ctx_t *c, const char *what,
                                     const tqc_type_t *type, uint32_t mask) {
  if (mask & TQC_EM(tqc__tosa_elem(type))) return NULL;
  return tqc__tosa_fail(c, "%s element type %s is not supported (expected %s)", what,
                        tqc__tosa_elem_text(type).s, tqc__tosa_mask_text(mask).s);
}

/* ---- Attributes ----------------------------------------------------------------------------- */

static const tqc_attr_t *require_attr(const tqc_tosa_ctx_t *c, const char *name,
                                      tq_status_t *out_status) {
  const tqc_attr_t *a = tqc_op_attr(c->op, name);
  *out_status = a ? NULL : tqc__tosa_fail(c, "missing attribute '%s'", name);
  return a;
}

tq_status_t tqc__tosa_attr_ints(const tqc_tosa_ctx_t *c, const char *name, uint32_t width,
                                size_t count, int64_t *out_values) {
  tq_status_t st;
  const tqc_attr_t *a = require_attr(c, name, &st);
  if (st) return st;
  const tqc_type_t *e = a->kind == TQC_ATTR_DENSE_ARRAY ? a->dense_array.element : NULL;
  if (!e || e->kind != TQC_TYPE_INTEGER || e->integer.width != width) {
    return tqc__tosa_fail(c, "attribute '%s' must be an array<i%u> of %zu values", name, width,
                          count);
  }
  if (a->dense_array.count != count) {
    return tqc__tosa_fail(c, "attribute '%s' has %zu values, expected %zu", name,
                          a->dense_array.count, count);
  }
  for (size_t i = 0; i < count; i++) out_values[i] = tqc_dense_array_get_int(a, i);
  return NULL;
}

tq_status_t tqc__tosa_attr_int(const tqc_tosa_ctx_t *c, const char *name, int64_t *out_value) {
  tq_status_t st;
  *out_value = 0;
  const tqc_attr_t *a = require_attr(c, name, &st);
  if (st) return st;
  if (a->kind != TQC_ATTR_INTEGER) {
    return tqc__tosa_fail(c, "attribute '%s' must be an integer", name);
  }
  *out_value = a->integer.value;
  return NULL;
}

tq_status_t tqc__tosa_attr_bool(const tqc_tosa_ctx_t *c, const char *name, int required, int dflt,
                                int *out_value) {
  const tqc_attr_t *a = tqc_op_attr(c->op, name);
  *out_value = dflt;
  if (!a) return required ? tqc__tosa_fail(c, "missing attribute '%s'", name) : NULL;
  if (a->kind == TQC_ATTR_BOOL) {
    *out_value = a->boolean != 0;
    return NULL;
  }
  if (a->kind == TQC_ATTR_INTEGER && a->integer.type->kind == TQC_TYPE_INTEGER &&
      a->integer.type->integer.width == 1) {
    *out_value = a->integer.value != 0;
    return NULL;
  }
  return tqc__tosa_fail(c, "attribute '%s' must be a boolean", name);
}

tq_status_t tqc__tosa_attr_enum(const tqc_tosa_ctx_t *c, const char *name, const char *dialect_name,
                                const char *const *allowed, int required, int *out_index) {
  const tqc_attr_t *a = tqc_op_attr(c->op, name);
  *out_index = -1;
  if (!a) return required ? tqc__tosa_fail(c, "missing attribute '%s'", name) : NULL;
  tq_sv_t body = tqc_attr_dialect_body(a, dialect_name);
  if (body.data) {
    for (int i = 0; allowed[i]; i++) {
      if (tq_sv_eq_cstr(body, allowed[i])) {
        *out_index = i;
        return NULL;
      }
    }
  }
  tqc_tosa_text_t list;
  size_t len = 0;
  list.s[0] = '\0';
  for (int i = 0; allowed[i]; i++) {
    if (i) text_put(&list, &len, ", ");
    text_put(&list, &len, allowed[i]);
  }
  return tqc__tosa_fail(c, "attribute '%s' must be a #%s (%s)", name, dialect_name, list.s);
}

tq_status_t tqc__tosa_check_nan_mode(const tqc_tosa_ctx_t *c) {
  static const char *const modes[] = {"PROPAGATE", "IGNORE", NULL};
  int mode;
  return tqc__tosa_attr_enum(c, "nan_mode", "tosa.nan_mode", modes, 0, &mode);
}

/* ---- Constant operands ---------------------------------------------------------------------- */

const tqc_attr_t *tqc__tosa_const_value(const tqc_tosa_ctx_t *c, size_t operand) {
  const tqc_op_t *def = c->op->operands[operand]->def;
  /* A tosa.const_shape is a shape, not a tensor operand (the message of tqc__tosa_require_const
   * names the two accepted ops); the checker reads the property, which the verifier requires. */
  if (!def || tqc_op_is(def, "tosa.const_shape")) return NULL;
  const char *name = tqc_op_const_attr_name(def);
  const tqc_attr_t *a = name ? tqc_dict_get(&def->properties, name) : NULL;
  return a && a->kind == TQC_ATTR_DENSE ? a : NULL;
}

tq_status_t tqc__tosa_require_const(const tqc_tosa_ctx_t *c, size_t i, const char *what,
                                    const tqc_attr_t **out_value) {
  *out_value = tqc__tosa_const_value(c, i);
  if (*out_value) return NULL;
  return tqc__tosa_fail(c, "%s (operand #%zu) must be a constant (tosa.const or arith.constant)",
                        what, i);
}

/* Integers of one width compare equal whatever their signedness (see the header). */
static int same_elem_loose(const tqc_type_t *a, const tqc_type_t *b) {
  if (a->kind == TQC_TYPE_INTEGER && b->kind == TQC_TYPE_INTEGER) {
    return a->integer.width == b->integer.width;
  }
  return tqc_type_equal(a, b);
}

tq_status_t tqc__tosa_scalar_operand(const tqc_tosa_ctx_t *c, size_t i, const char *what,
                                     const tqc_type_t *elem, int64_t *out_value) {
  const tqc_type_t *t = tqc__tosa_operand(c, i);
  *out_value = 0;
  if (t->tensor.rank != 1 || t->tensor.dims[0] != 1 ||
      !same_elem_loose(t->tensor.element, tqc__tosa_elem_type(elem))) {
    return tqc__tosa_fail(c, "%s (operand #%zu) must be a tensor<1x%s>, got %s", what, i,
                          tqc__tosa_elem_text(elem).s, tqc__tosa_type_text(t).s);
  }
  const tqc_attr_t *v;
  TQ_TRY(tqc__tosa_require_const(c, i, what, &v));
  *out_value = v->dense.count ? tqc_dense_get_int(v, 0) : 0;
  return NULL;
}

tq_status_t tqc__tosa_shape_operand(const tqc_tosa_ctx_t *c, size_t i, const char *what,
                                    size_t count, int64_t *out_values) {
  const tqc_type_t *t = tqc__tosa_operand(c, i);
  if (t->shape.rank != count) {
    return tqc__tosa_fail(c, "%s (operand #%zu) has %zu values, expected %zu", what, i,
                          t->shape.rank, count);
  }
  /* tosa_check.c made sure that the operand comes from tosa.const_shape, and the verifier that
   * its values are an index tensor of `count` elements. */
  const tqc_attr_t *v = tqc_dict_get(&c->op->operands[i]->def->properties, "values");
  if (!v || v->kind != TQC_ATTR_DENSE || v->dense.count != count) {
    return tqc__tosa_fail(c, "%s (operand #%zu) has no constant values", what, i);
  }
  for (size_t k = 0; k < count; k++) out_values[k] = tqc_dense_get_int(v, k);
  return NULL;
}

tq_status_t tqc__tosa_zero_point(const tqc_tosa_ctx_t *c, size_t i, const char *what,
                                 const tqc_type_t *data) {
  int64_t zp;
  TQ_TRY(tqc__tosa_scalar_operand(c, i, what, data, &zp));
  tqc_tosa_elem_t e = tqc__tosa_elem(data);
  if (zp != 0 && e != TQC_E_I8 && e != TQC_E_U8) {
    return tqc__tosa_fail(c, "%s must be 0 for %s data, got %lld", what,
                          tqc__tosa_elem_text(data).s, (long long)zp);
  }
  return NULL;
}
