/* Custom op forms the corpus uses: module, func.func, return, arith.constant, the default TOSA
 * form `tosa.op %a, %b {attrs} : (T, T) -> T`, and tensor.extract_slice; the linalg ones are in
 * parse_linalg.c. Each builds the same IR
 * as the generic form MLIR 22 prints for it (checked against mlir-opt --mlir-print-op-generic). */
#include <string.h>

#include "parser_internal.h"
#include "torq/base/alloc.h"

/* ---- Inherent attributes and defaults ------------------------------------------------------- */

typedef struct inherent_s {
  const char *op;
  const char *attrs[8];
} inherent_t;

/* The attributes MLIR 22 keeps as properties of each op; any other attribute written in custom
 * form stays discardable (e.g. quantization_info on tosa.pad). */
static const inherent_t inherent[] = {
    {"func.func",
     {"sym_name", "function_type", "arg_attrs", "res_attrs", "sym_visibility", "no_inline"}},
    {"builtin.module", {"sym_name", "sym_visibility"}},
    {"arith.constant", {"value"}},
    {"tosa.argmax", {"axis", "nan_mode"}},
    {"tosa.avg_pool2d", {"kernel", "stride", "pad", "acc_type"}},
    {"tosa.conv2d", {"pad", "stride", "dilation", "acc_type", "local_bound"}},
    {"tosa.conv3d", {"pad", "stride", "dilation", "acc_type", "local_bound"}},
    {"tosa.depthwise_conv2d", {"pad", "stride", "dilation", "acc_type", "local_bound"}},
    {"tosa.transpose_conv2d", {"out_pad", "stride", "acc_type", "local_bound"}},
    {"tosa.fft2d", {"inverse", "local_bound"}},
    {"tosa.rfft2d", {"local_bound"}},
    {"tosa.max_pool2d", {"kernel", "stride", "pad", "nan_mode"}},
    {"tosa.clamp", {"min_val", "max_val", "nan_mode"}},
    {"tosa.maximum", {"nan_mode"}},
    {"tosa.minimum", {"nan_mode"}},
    {"tosa.reduce_max", {"axis", "nan_mode"}},
    {"tosa.reduce_min", {"axis", "nan_mode"}},
    {"tosa.reduce_sum", {"axis"}},
    {"tosa.reduce_product", {"axis"}},
    {"tosa.reduce_all", {"axis"}},
    {"tosa.reduce_any", {"axis"}},
    {"tosa.arithmetic_right_shift", {"round"}},
    {"tosa.rescale",
     {"scale32", "rounding_mode", "per_channel", "input_unsigned", "output_unsigned"}},
    {"tosa.concat", {"axis"}},
    {"tosa.reverse", {"axis"}},
    {"tosa.transpose", {"perms"}},
    {"tosa.resize", {"mode"}},
    {"tosa.const", {"values"}},
    {"tosa.const_shape", {"values"}},
    {"tosa.custom", {"operator_name", "domain_name", "implementation_attrs"}},
    {"tosa.variable", {"sym_name", "var_shape", "type", "initial_value"}},
    {"tosa.variable_read", {"name"}},
    {"tosa.variable_write", {"name"}},
    {"tensor.extract_slice",
     {"static_offsets", "static_sizes", "static_strides", "operandSegmentSizes"}},
    {"linalg.generic",
     {"indexing_maps", "iterator_types", "doc", "library_call", "operandSegmentSizes"}},
    {"linalg.matmul", {"indexing_maps", "cast", "operandSegmentSizes"}},
    {"linalg.fill", {"operandSegmentSizes"}},
};

/* Ops whose nan_mode property MLIR fills in with PROPAGATE when it is not written. */
static const char *const nan_mode_ops[] = {"tosa.argmax",     "tosa.clamp",      "tosa.maximum",
                                           "tosa.minimum",    "tosa.max_pool2d", "tosa.reduce_max",
                                           "tosa.reduce_min"};

static int is_inherent(tq_sv_t op, tq_sv_t attr) {
  for (size_t i = 0; i < sizeof(inherent) / sizeof(inherent[0]); i++) {
    if (!tq_sv_eq_cstr(op, inherent[i].op)) continue;
    for (size_t j = 0; j < 8 && inherent[i].attrs[j]; j++) {
      if (tq_sv_eq_cstr(attr, inherent[i].attrs[j])) return 1;
    }
    return 0;
  }
  return 0;
}

/* Adds entries to a dictionary (which must not hold them yet), keeping it sorted. */
static tq_status_t dict_add(tqc_parser_t *p, tqc_dict_t *dict, const tqc_named_attr_t *add,
                            size_t num_add) {
  tqc_named_attr_t *e = tqc__calloc(p, dict->count + num_add, sizeof(*e));
  if (!e) return tqc__nomem(p);
  if (dict->count) memcpy(e, dict->entries, dict->count * sizeof(*e));
  memcpy(e + dict->count, add, num_add * sizeof(*e));
  tqc_srcpos_t nowhere = {p->tok.line, p->tok.col};
  return tqc__dict_finish(p, e, dict->count + num_add, nowhere, dict);
}

tq_status_t tqc__split_inherent(tqc_parser_t *p, tqc_op_t *op, tqc_dict_t dict) {
  size_t ni = 0;
  for (size_t i = 0; i < dict.count; i++) ni += is_inherent(op->name, dict.entries[i].name);
  tqc_named_attr_t *props = tqc__calloc(p, ni ? ni : 1, sizeof(*props));
  tqc_named_attr_t *attrs = tqc__calloc(p, dict.count - ni ? dict.count - ni : 1, sizeof(*attrs));
  if (!props || !attrs) return tqc__nomem(p);
  size_t a = 0, b = 0;
  for (size_t i = 0; i < dict.count; i++) {
    if (is_inherent(op->name, dict.entries[i].name)) {
      props[a++] = dict.entries[i];
    } else {
      attrs[b++] = dict.entries[i];
    }
  }
  /* Both halves come from one sorted dictionary, so they are sorted already. */
  if (op->properties.count) {
    TQ_TRY(dict_add(p, &op->properties, props, a));
  } else {
    op->properties.count = a;
    op->properties.entries = props;
  }
  op->attributes.count = b;
  op->attributes.entries = attrs;
  return NULL;
}

static tq_status_t add_module_block(tqc_parser_t *p, tqc_op_t *op);

/* ---- Older spellings -------------------------------------------------------------------------
 * Models written for older MLIR releases spell some TOSA attributes differently. They are
 * normalised on read to MLIR 22's form, so that the IR (and its printed form, which mlir-opt-22
 * must accept) is the same as for the current spelling:
 *   - an enum attribute as a string, rounding_mode = "DOUBLE_ROUND" (nan_mode = "PROPAGATE",
 *     mode = "BILINEAR"): MLIR 20 and 21 had them as string attributes; MLIR 22 has the dialect
 *     enums #tosa.rounding_mode<DOUBLE_ROUND>, #tosa.nan_mode<...>, #tosa.resize_mode<...>;
 *   - rescale's boolean double_round (MLIR 19 and 20): rounding_mode DOUBLE_ROUND or
 *     SINGLE_ROUND, unless a rounding_mode is written too.
 * A string that is not an enum spelling (upper-case letters and '_') is left for the TOSA
 * checker to reject. */

static int is_enum_spelling(tq_sv_t s) {
  if (s.len == 0) return 0;
  for (size_t i = 0; i < s.len; i++)
    if (!((s.data[i] >= 'A' && s.data[i] <= 'Z') || s.data[i] == '_')) return 0;
  return 1;
}

/* `dict` with string-valued enum attributes made dialect attributes; the entry named `drop`
 * (when not NULL) removed and stored in *out_dropped. */
static tq_status_t normalise_dict(tqc_parser_t *p, tqc_dict_t *dict, const char *drop,
                                  const tqc_attr_t **out_dropped) {
  size_t changes = 0;
  for (size_t i = 0; i < dict->count; i++) {
    const tqc_named_attr_t *e = &dict->entries[i];
    if (drop && tq_sv_eq_cstr(e->name, drop)) changes++;
    if (e->value->kind == TQC_ATTR_STRING && tqc__enum_attr_name(e->name) &&
        is_enum_spelling(e->value->string))
      changes++;
  }
  if (!changes) return NULL;
  tqc_named_attr_t *out = tqc__calloc(p, dict->count ? dict->count : 1, sizeof(*out));
  if (!out) return tqc__nomem(p);
  size_t n = 0;
  for (size_t i = 0; i < dict->count; i++) {
    tqc_named_attr_t e = dict->entries[i];
    if (drop && tq_sv_eq_cstr(e.name, drop)) {
      *out_dropped = e.value;
      continue;
    }
    const char *dialect = tqc__enum_attr_name(e.name);
    if (e.value->kind == TQC_ATTR_STRING && dialect && is_enum_spelling(e.value->string)) {
      e.value = tqc__make_dialect_attr(p, dialect, e.value->string);
      if (!e.value) return tqc__nomem(p);
    }
    out[n++] = e;
  }
  dict->entries = out;
  dict->count = n;
  return NULL;
}

static tq_status_t normalise_old_spellings(tqc_parser_t *p, tqc_op_t *op) {
  if (!tq_sv_starts_with(op->name, "tosa.")) return NULL;
  const char *drop = tq_sv_eq_cstr(op->name, "tosa.rescale") ? "double_round" : NULL;
  const tqc_attr_t *double_round = NULL;
  TQ_TRY(normalise_dict(p, &op->properties, drop, &double_round));
  TQ_TRY(normalise_dict(p, &op->attributes, drop, &double_round));
  if (!double_round || tqc_op_attr(op, "rounding_mode")) return NULL;
  int on = double_round->kind == TQC_ATTR_BOOL && double_round->boolean;
  tqc_named_attr_t e = {tq_sv_cstr("rounding_mode"),
                        tqc__make_dialect_attr(p, "tosa.rounding_mode",
                                               tq_sv_cstr(on ? "DOUBLE_ROUND" : "SINGLE_ROUND"))};
  if (!e.value) return tqc__nomem(p);
  return dict_add(p, &op->properties, &e, 1);
}

tq_status_t tqc__add_default_attrs(tqc_parser_t *p, tqc_op_t *op) {
  TQ_TRY(normalise_old_spellings(p, op));
  /* A module always has its one block, also when written `module {}`. */
  if (tq_sv_eq_cstr(op->name, "builtin.module") && op->num_regions == 1) {
    TQ_TRY(add_module_block(p, op));
  }
  for (size_t i = 0; i < sizeof(nan_mode_ops) / sizeof(nan_mode_ops[0]); i++) {
    if (!tq_sv_eq_cstr(op->name, nan_mode_ops[i])) continue;
    if (tqc_op_attr(op, "nan_mode")) return NULL;
    tqc_named_attr_t e;
    e.name = tq_sv_cstr("nan_mode");
    e.value = tqc__make_dialect_attr(p, "tosa.nan_mode", tq_sv_cstr("PROPAGATE"));
    if (!e.value) return tqc__nomem(p);
    return dict_add(p, &op->properties, &e, 1);
  }
  return NULL;
}

/* ---- Helpers -------------------------------------------------------------------------------- */

tq_status_t tqc__parse_operand_list(tqc_parser_t *p, tqc_op_t *op) {
  size_t mark = p->scratch.len;
  if (tqc__is(p, TQC_TOK_PERCENT_ID)) {
    do {
      tqc_operand_ref_t r;
      TQ_TRY(tqc__parse_value_use(p, &r.value, &r.pos));
      TQ_TRY(tqc__push(p, &r, sizeof(r)));
    } while (tqc__accept(p, TQC_TOK_COMMA));
  }
  void *data = NULL;
  size_t bytes = 0;
  TQ_TRY(tqc__pop_to_arena(p, mark, &data, &bytes));
  return tqc__set_operands(p, op, data, bytes / sizeof(tqc_operand_ref_t));
}

tq_status_t tqc__set_op_types(tqc_parser_t *p, tqc_op_t *op, size_t ni,
                              const tqc_type_t *const *inputs, size_t nr,
                              const tqc_type_t *const *results) {
  const tqc_type_t **a = tqc__calloc(p, ni + nr + 1, sizeof(*a));
  if (!a) return tqc__nomem(p);
  if (ni) memcpy(a, inputs, ni * sizeof(*a));
  if (nr) memcpy(a + ni, results, nr * sizeof(*a));
  const tqc_type_t *fn = tqc__make_function_type(p, ni, a, nr, a + ni);
  if (!fn) return tqc__nomem(p);
  return tqc__finish_op_types(p, op, fn);
}

tq_status_t tqc__add_prop(tqc_parser_t *p, tqc_op_t *op, const char *name,
                          const tqc_attr_t *value) {
  if (!value) return tqc__nomem(p);
  tqc_named_attr_t e = {tq_sv_cstr(name), value};
  return dict_add(p, &op->properties, &e, 1);
}

static tq_status_t parse_optional_attr_dict(tqc_parser_t *p, tqc_op_t *op, const char *enum_op) {
  if (!tqc__is(p, TQC_TOK_LBRACE)) return NULL;
  tqc_dict_t d;
  TQ_TRY(tqc__parse_dict(p, enum_op, &d));
  return tqc__split_inherent(p, op, d);
}

static tq_status_t add_module_block(tqc_parser_t *p, tqc_op_t *op) {
  tqc_region_t *r = &op->regions[0];
  if (r->num_blocks) return NULL;
  tqc_block_t **blocks = tqc__calloc(p, 1, sizeof(*blocks));
  tqc_block_t *b = tqc__calloc(p, 1, sizeof(*b));
  if (!blocks || !b) return tqc__nomem(p);
  b->parent = r;
  blocks[0] = b;
  r->blocks = blocks;
  r->num_blocks = 1;
  return NULL;
}

static tq_status_t parse_symbol_name(tqc_parser_t *p, tq_sv_t *out) {
  if (!tqc__is(p, TQC_TOK_AT_ID)) return tqc__expected(p, "a symbol name");
  if (p->tok.len > 1 && p->tok.text[1] == '"') {
    TQ_TRY(tqc__string_value(p, &p->tok, out));
  } else {
    *out = tq_sv(p->tok.text + 1, p->tok.len - 1);
  }
  tqc__advance(p);
  return NULL;
}

/* ---- The forms ------------------------------------------------------------------------------ */

static tq_status_t parse_module(tqc_parser_t *p, tqc_op_t *op) {
  if (tqc__is(p, TQC_TOK_AT_ID)) {
    tq_sv_t name;
    TQ_TRY(parse_symbol_name(p, &name));
    TQ_TRY(tqc__add_prop(p, op, "sym_name", tqc__make_string_attr(p, name)));
  }
  if (tqc__accept_keyword(p, "attributes")) TQ_TRY(parse_optional_attr_dict(p, op, NULL));
  op->regions = tqc__calloc(p, 1, sizeof(tqc_region_t));
  if (!op->regions) return tqc__nomem(p);
  op->num_regions = 1;
  TQ_TRY(tqc__parse_region(p, op, &op->regions[0], NULL, NULL, 0, 1));
  return tqc__set_op_types(p, op, 0, NULL, 0, NULL);
}

/* One function argument or result: its type, attributes, and (arguments) name and location. */
typedef struct func_arg_s {
  tqc_value_t *value; /* NULL for results and declarations */
  tqc_srcpos_t pos;
  const tqc_type_t *type;
  tqc_dict_t attrs;
} func_arg_t;

static tq_status_t parse_func_arg(tqc_parser_t *p, int named, func_arg_t *a) {
  memset(a, 0, sizeof(*a));
  a->pos.line = p->tok.line;
  a->pos.col = p->tok.col;
  if (named) {
    if (!tqc__is(p, TQC_TOK_PERCENT_ID)) return tqc__expected(p, "an argument name");
    a->value = tqc__new_value(p);
    if (!a->value) return tqc__nomem(p);
    a->value->name = tq_sv(p->tok.text, p->tok.len);
    tqc__advance(p);
    TQ_TRY(tqc__expect(p, TQC_TOK_COLON, "':' and the argument type"));
    a->value->type_pos = (tqc_srcpos_t){p->tok.line, p->tok.col};
  }
  TQ_TRY(tqc__parse_type(p, &a->type));
  if (tqc__is(p, TQC_TOK_LBRACE)) TQ_TRY(tqc__parse_dict(p, NULL, &a->attrs));
  if (a->value) {
    a->value->type = a->type;
    if (tqc__is_keyword(p, "loc") && tqc__next_char(p) == '(') {
      TQ_TRY(tqc__parse_loc(p, &a->value->loc));
    } else {
      a->value->loc = tqc__make_file_loc(p, a->pos.line, a->pos.col);
      if (!a->value->loc) return tqc__nomem(p);
    }
  }
  return NULL;
}

/* arg_attrs / res_attrs: an array with one dictionary per entry, present when any is non-empty. */
static tq_status_t add_arg_attrs(tqc_parser_t *p, tqc_op_t *op, const char *name,
                                 const func_arg_t *args, size_t n) {
  int any = 0;
  for (size_t i = 0; i < n; i++) any |= args[i].attrs.count > 0;
  if (!any) return NULL;
  const tqc_attr_t **items = tqc__calloc(p, n, sizeof(*items));
  if (!items) return tqc__nomem(p);
  for (size_t i = 0; i < n; i++) {
    items[i] = tqc__make_dict_attr(p, args[i].attrs);
    if (!items[i]) return tqc__nomem(p);
  }
  return tqc__add_prop(p, op, name, tqc__make_array_attr(p, n, items));
}

static tq_status_t parse_func(tqc_parser_t *p, tqc_op_t *op) {
  if (tqc__is_keyword(p, "private") || tqc__is_keyword(p, "public") ||
      tqc__is_keyword(p, "nested")) {
    TQ_TRY(tqc__add_prop(p, op, "sym_visibility",
                         tqc__make_string_attr(p, tq_sv(p->tok.text, p->tok.len))));
    tqc__advance(p);
  }
  tq_sv_t name;
  TQ_TRY(parse_symbol_name(p, &name));
  TQ_TRY(tqc__add_prop(p, op, "sym_name", tqc__make_string_attr(p, name)));
  TQ_TRY(tqc__expect(p, TQC_TOK_LPAREN, "'(' and the function arguments"));
  size_t mark = p->scratch.len;
  int named = tqc__is(p, TQC_TOK_PERCENT_ID);
  if (!tqc__is(p, TQC_TOK_RPAREN)) {
    do {
      func_arg_t a;
      TQ_TRY(parse_func_arg(p, named, &a));
      TQ_TRY(tqc__push(p, &a, sizeof(a)));
    } while (tqc__accept(p, TQC_TOK_COMMA));
  }
  TQ_TRY(tqc__expect(p, TQC_TOK_RPAREN, "')' to end the function arguments"));
  void *data = NULL;
  size_t bytes = 0;
  TQ_TRY(tqc__pop_to_arena(p, mark, &data, &bytes));
  func_arg_t *args = data;
  size_t nargs = bytes / sizeof(func_arg_t);
  func_arg_t *res = NULL;
  size_t nres = 0;
  if (tqc__accept(p, TQC_TOK_ARROW)) {
    mark = p->scratch.len;
    if (tqc__accept(p, TQC_TOK_LPAREN)) {
      if (!tqc__is(p, TQC_TOK_RPAREN)) {
        do {
          func_arg_t a;
          TQ_TRY(parse_func_arg(p, 0, &a));
          TQ_TRY(tqc__push(p, &a, sizeof(a)));
        } while (tqc__accept(p, TQC_TOK_COMMA));
      }
      TQ_TRY(tqc__expect(p, TQC_TOK_RPAREN, "')' to end the function results"));
    } else {
      func_arg_t a;
      memset(&a, 0, sizeof(a));
      TQ_TRY(tqc__parse_type(p, &a.type));
      TQ_TRY(tqc__push(p, &a, sizeof(a)));
    }
    TQ_TRY(tqc__pop_to_arena(p, mark, &data, &bytes));
    res = data;
    nres = bytes / sizeof(func_arg_t);
  }
  const tqc_type_t **in = tqc__calloc(p, nargs ? nargs : 1, sizeof(*in));
  const tqc_type_t **out = tqc__calloc(p, nres ? nres : 1, sizeof(*out));
  if (!in || !out) return tqc__nomem(p);
  for (size_t i = 0; i < nargs; i++) in[i] = args[i].type;
  for (size_t i = 0; i < nres; i++) out[i] = res[i].type;
  const tqc_type_t *fn = tqc__make_function_type(p, nargs, in, nres, out);
  if (!fn) return tqc__nomem(p);
  TQ_TRY(tqc__add_prop(p, op, "function_type", tqc__make_type_attr(p, fn)));
  TQ_TRY(add_arg_attrs(p, op, "arg_attrs", args, nargs));
  TQ_TRY(add_arg_attrs(p, op, "res_attrs", res, nres));
  if (tqc__accept_keyword(p, "attributes")) {
    if (!tqc__is(p, TQC_TOK_LBRACE)) return tqc__expected(p, "'{' after 'attributes'");
    TQ_TRY(parse_optional_attr_dict(p, op, NULL));
  }
  op->regions = tqc__calloc(p, 1, sizeof(tqc_region_t));
  if (!op->regions) return tqc__nomem(p);
  op->num_regions = 1;
  op->regions[0].parent = op;
  if (tqc__is(p, TQC_TOK_LBRACE)) {
    if (!named && nargs > 0) {
      return tqc__error(p, "a function with a body needs named arguments");
    }
    tqc_value_t **values = tqc__calloc(p, nargs ? nargs : 1, sizeof(*values));
    tqc_srcpos_t *pos = tqc__calloc(p, nargs ? nargs : 1, sizeof(*pos));
    if (!values || !pos) return tqc__nomem(p);
    for (size_t i = 0; i < nargs; i++) {
      values[i] = args[i].value;
      pos[i] = args[i].pos;
    }
    TQ_TRY(tqc__parse_region(p, op, &op->regions[0], values, pos, nargs, 1));
  } else if (named) {
    return tqc__expected(p, "'{' and the function body");
  }
  return tqc__set_op_types(p, op, 0, NULL, 0, NULL);
}

static tq_status_t parse_return(tqc_parser_t *p, tqc_op_t *op) {
  TQ_TRY(tqc__parse_operand_list(p, op));
  size_t mark = p->scratch.len;
  if (op->num_operands > 0) {
    TQ_TRY(tqc__expect(p, TQC_TOK_COLON, "':' and the operand types"));
    do {
      const tqc_type_t *t = NULL;
      TQ_TRY(tqc__parse_type(p, &t));
      TQ_TRY(tqc__push(p, &t, sizeof(t)));
    } while (tqc__accept(p, TQC_TOK_COMMA));
  }
  void *data = NULL;
  size_t bytes = 0;
  TQ_TRY(tqc__pop_to_arena(p, mark, &data, &bytes));
  return tqc__set_op_types(p, op, bytes / sizeof(tqc_type_t *), data, 0, NULL);
}

static tq_status_t parse_constant(tqc_parser_t *p, tqc_op_t *op) {
  TQ_TRY(parse_optional_attr_dict(p, op, NULL));
  tqc_srcpos_t at = {p->tok.line, p->tok.col};
  const tqc_attr_t *value = NULL;
  TQ_TRY(tqc__parse_attr(p, &value));
  const tqc_type_t *type = NULL;
  switch (value->kind) {
  case TQC_ATTR_INTEGER: type = value->integer.type; break;
  case TQC_ATTR_FLOAT: type = value->flt.type; break;
  case TQC_ATTR_BOOL: type = tqc__int_type(p, 1, TQC_SIGNLESS); break;
  case TQC_ATTR_DENSE: type = value->dense.type; break;
  default: return tqc__error_at(p, at.line, at.col, "arith.constant needs a typed value");
  }
  if (!type) return tqc__nomem(p);
  TQ_TRY(tqc__add_prop(p, op, "value", value));
  return tqc__set_op_types(p, op, 0, NULL, 1, &type);
}

/* tosa.op %a, %b {attrs} : (T, T) -> T, or `: T` for ops whose operands and result share T. */
static tq_status_t parse_tosa(tqc_parser_t *p, tqc_op_t *op) {
  TQ_TRY(tqc__parse_operand_list(p, op));
  TQ_TRY(parse_optional_attr_dict(p, op, op->name.data));
  TQ_TRY(tqc__expect(p, TQC_TOK_COLON, "':' and the operation type"));
  const tqc_type_t *t = NULL;
  TQ_TRY(tqc__parse_type(p, &t));
  if (t->kind == TQC_TYPE_FUNCTION) return tqc__finish_op_types(p, op, t);
  const tqc_type_t **in = tqc__calloc(p, op->num_operands ? op->num_operands : 1, sizeof(*in));
  if (!in) return tqc__nomem(p);
  for (size_t i = 0; i < op->num_operands; i++) in[i] = t;
  return tqc__set_op_types(p, op, op->num_operands, in, 1, &t);
}

/* One of the bracketed lists of tensor.extract_slice: integers or SSA values. */
static tq_status_t parse_slice_list(tqc_parser_t *p, const tqc_attr_t **out_static,
                                    size_t *io_num_dynamic) {
  TQ_TRY(tqc__expect(p, TQC_TOK_LSQUARE, "'['"));
  size_t mark = p->scratch.len;
  if (!tqc__is(p, TQC_TOK_RSQUARE)) {
    do {
      int64_t v = TQC_DYNAMIC;
      if (tqc__is(p, TQC_TOK_PERCENT_ID)) {
        tqc_operand_ref_t r;
        TQ_TRY(tqc__parse_value_use(p, &r.value, &r.pos));
        /* Dynamic entries are kept after the static ones; see parse_extract_slice. */
        (*io_num_dynamic)++;
        v = TQC_DYNAMIC;
      } else {
        int neg = tqc__accept(p, TQC_TOK_MINUS);
        if (!tqc__is(p, TQC_TOK_INTEGER) || p->tok.len > 18 || p->tok.text[1] == 'x') {
          return tqc__expected(p, "an integer or SSA value");
        }
        v = 0;
        for (size_t i = 0; i < p->tok.len; i++) v = v * 10 + (p->tok.text[i] - '0');
        if (neg) v = -v;
        tqc__advance(p);
      }
      TQ_TRY(tqc__push(p, &v, sizeof(v)));
    } while (tqc__accept(p, TQC_TOK_COMMA));
  }
  TQ_TRY(tqc__expect(p, TQC_TOK_RSQUARE, "']'"));
  void *data = NULL;
  size_t bytes = 0;
  TQ_TRY(tqc__pop_to_arena(p, mark, &data, &bytes));
  const tqc_type_t *i64 = tqc__int_type(p, 64, TQC_SIGNLESS);
  if (!i64) return tqc__nomem(p);
  *out_static = tqc__make_dense_array(p, i64, data, bytes / sizeof(int64_t));
  return *out_static ? NULL : tqc__nomem(p);
}

static tq_status_t parse_extract_slice(tqc_parser_t *p, tqc_op_t *op) {
  tqc_operand_ref_t src;
  TQ_TRY(tqc__parse_value_use(p, &src.value, &src.pos));
  size_t n[3] = {0, 0, 0};
  const tqc_attr_t *lists[3];
  for (int i = 0; i < 3; i++) TQ_TRY(parse_slice_list(p, &lists[i], &n[i]));
  if (n[0] + n[1] + n[2] > 0) {
    return tqc__error(p, "dynamic tensor.extract_slice offsets, sizes or strides are not "
                         "supported in custom form; use the generic form");
  }
  TQ_TRY(tqc__set_operands(p, op, &src, 1));
  TQ_TRY(parse_optional_attr_dict(p, op, NULL));
  TQ_TRY(tqc__expect(p, TQC_TOK_COLON, "':' and the source type"));
  const tqc_type_t *in = NULL, *out = NULL;
  TQ_TRY(tqc__parse_type(p, &in));
  if (!tqc__accept_keyword(p, "to")) return tqc__expected(p, "'to' and the result type");
  TQ_TRY(tqc__parse_type(p, &out));
  TQ_TRY(tqc__add_prop(p, op, "static_offsets", lists[0]));
  TQ_TRY(tqc__add_prop(p, op, "static_sizes", lists[1]));
  TQ_TRY(tqc__add_prop(p, op, "static_strides", lists[2]));
  int64_t seg[4] = {1, 0, 0, 0};
  const tqc_type_t *i32 = tqc__int_type(p, 32, TQC_SIGNLESS);
  if (!i32) return tqc__nomem(p);
  TQ_TRY(tqc__add_prop(p, op, "operandSegmentSizes", tqc__make_dense_array(p, i32, seg, 4)));
  const tqc_type_t **ins = tqc__calloc(p, 1, sizeof(*ins));
  if (!ins) return tqc__nomem(p);
  ins[0] = in;
  return tqc__set_op_types(p, op, 1, ins, 1, &out);
}

tq_status_t tqc__parse_custom_op(tqc_parser_t *p, tqc_op_t **out) {
  tq_sv_t name = tq_sv(p->tok.text, p->tok.len);
  tqc_srcpos_t pos = {p->tok.line, p->tok.col};
  const char *full = NULL;
  int linalg = 0;
  if (tq_sv_eq_cstr(name, "module") || tq_sv_eq_cstr(name, "builtin.module")) {
    full = "builtin.module";
  } else if (tq_sv_eq_cstr(name, "func.func")) {
    full = "func.func";
  } else if (tq_sv_eq_cstr(name, "return") || tq_sv_eq_cstr(name, "func.return")) {
    full = "func.return";
  } else if (tq_sv_eq_cstr(name, "arith.constant")) {
    full = "arith.constant";
  } else if (tq_sv_eq_cstr(name, "tensor.extract_slice")) {
    full = "tensor.extract_slice";
  } else if (tq_sv_starts_with(name, "tosa.")) {
    full = NULL;
  } else if ((full = tqc__linalg_form_name(name))) {
    linalg = 1;
  } else {
    return tqc__error(p, "custom assembly form of '%.*s' is not supported; write it in the "
                         "generic form (\"%.*s\"(...) : (...) -> ...)",
                      (int)name.len, name.data, (int)name.len, name.data);
  }
  tqc_op_t *op;
  if (full) {
    op = tqc__new_op(p, full, pos);
  } else {
    op = tqc__calloc(p, 1, sizeof(*op));
    if (op) {
      op->name = tqc__strdup(p, name.data, name.len);
      op->pos = pos;
    }
  }
  if (!op || !op->name.data) return tqc__nomem(p);
  tqc__advance(p);
  if (linalg) {
    TQ_TRY(tqc__parse_linalg_form(p, op));
  } else if (!full) {
    TQ_TRY(parse_tosa(p, op));
  } else if (!strcmp(full, "builtin.module")) {
    TQ_TRY(parse_module(p, op));
  } else if (!strcmp(full, "func.func")) {
    TQ_TRY(parse_func(p, op));
  } else if (!strcmp(full, "func.return")) {
    TQ_TRY(parse_return(p, op));
  } else if (!strcmp(full, "arith.constant")) {
    TQ_TRY(parse_constant(p, op));
  } else {
    TQ_TRY(parse_extract_slice(p, op));
  }
  TQ_TRY(tqc__add_default_attrs(p, op));
  *out = op;
  return NULL;
}
