/* The parser: small texts and the IR they give, value by value. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "torq/base/alloc.h"

/* The first op of the first function's body (or of the module body when there is no function). */
static const tqc_op_t *first_op(const tqc_module_t *m) {
  const tqc_op_t *top = tqc_module_op(m);
  const tqc_op_t *op = top->regions[0].blocks[0]->first;
  if (op && tqc_op_is(op, "func.func")) op = op->regions[0].blocks[0]->first;
  return op;
}

/* The value attribute of `%0 = arith.constant ATTR` in a one-line module. */
static const tqc_attr_t *constant_of(const tqc_module_t *m) {
  const tqc_attr_t *a = tqc_op_attr(first_op(m), "value");
  ck_assert_ptr_nonnull(a);
  return a;
}

START_TEST(parser_decodes_dense_hex_to_little_endian_bytes) {
  tqc_module_t *m = tt_parse("%0 = arith.constant dense<\"0x0102030405060708\"> : tensor<2xi32>");
  const tqc_attr_t *a = constant_of(m);
  ck_assert_int_eq(a->kind, TQC_ATTR_DENSE);
  ck_assert_int_eq(a->dense.splat, 0);
  ck_assert_uint_eq(a->dense.count, 2);
  ck_assert_uint_eq(a->dense.size, 8);
  for (int i = 0; i < 8; i++) ck_assert_uint_eq(a->dense.data[i], i + 1);
  ck_assert_int_eq(tqc_dense_get_int(a, 0), 0x04030201);
  ck_assert_int_eq(tqc_dense_get_int(a, 1), 0x08070605);
  tqc_module_destroy(m);
}
END_TEST

START_TEST(parser_keeps_splats_as_one_element) {
  tqc_module_t *m = tt_parse("%0 = arith.constant dense<-3> : tensor<2x3xi8>\n"
                             "%1 = arith.constant dense<[7, 7, 7]> : tensor<3xi16>");
  const tqc_attr_t *a = constant_of(m);
  ck_assert_int_eq(a->dense.splat, 1);
  ck_assert_uint_eq(a->dense.count, 6);
  ck_assert_uint_eq(a->dense.size, 1);
  ck_assert_uint_eq(a->dense.data[0], 0xFD);
  ck_assert_int_eq(tqc_dense_get_int(a, 5), -3);
  /* MLIR stores equal elements as a splat too. */
  const tqc_attr_t *b = tqc_op_attr(first_op(m)->next, "value");
  ck_assert_int_eq(b->dense.splat, 1);
  ck_assert_uint_eq(b->dense.size, 2);
  ck_assert_int_eq(tqc_dense_get_int(b, 2), 7);
  tqc_module_destroy(m);
}
END_TEST

START_TEST(parser_reads_nested_dense_lists_in_row_major_order) {
  tqc_module_t *m = tt_parse("%0 = arith.constant dense<[[1, -2], [3, 32767], [-32768, 0]]> : "
                             "tensor<3x2xi16>");
  const tqc_attr_t *a = constant_of(m);
  const int64_t want[] = {1, -2, 3, 32767, -32768, 0};
  ck_assert_uint_eq(a->dense.count, 6);
  ck_assert_uint_eq(a->dense.size, 12);
  for (size_t i = 0; i < 6; i++) ck_assert_int_eq(tqc_dense_get_int(a, i), want[i]);
  tqc_module_destroy(m);
}
END_TEST

START_TEST(parser_reads_bool_and_float_dense_elements) {
  tqc_module_t *m = tt_parse("%0 = arith.constant dense<[true, false, true]> : tensor<3xi1>\n"
                             "%1 = arith.constant dense<[1.5, -2.0, 0x7FC0]> : tensor<3xbf16>\n"
                             "%2 = arith.constant dense<6.000000e+00> : tensor<2xf32>");
  const tqc_op_t *op = first_op(m);
  const tqc_attr_t *a = tqc_op_attr(op, "value");
  ck_assert_uint_eq(a->dense.elem_size, 1);
  ck_assert_uint_eq(a->dense.data[0], 1);
  ck_assert_uint_eq(a->dense.data[1], 0);
  ck_assert_uint_eq(a->dense.data[2], 1);
  const tqc_attr_t *b = tqc_op_attr(op->next, "value");
  ck_assert_uint_eq(b->dense.elem_size, 2);
  ck_assert_uint_eq(b->dense.data[0] | b->dense.data[1] << 8, 0x3FC0);
  ck_assert_uint_eq(b->dense.data[2] | b->dense.data[3] << 8, 0xC000);
  ck_assert_uint_eq(b->dense.data[4] | b->dense.data[5] << 8, 0x7FC0);
  ck_assert_double_eq(tqc_dense_get_float(b, 1), -2.0);
  const tqc_attr_t *c = tqc_op_attr(op->next->next, "value");
  ck_assert_int_eq(c->dense.splat, 1);
  ck_assert_uint_eq(c->dense.data[3], 0x40);
  ck_assert_uint_eq(c->dense.data[2], 0xC0);
  tqc_module_destroy(m);
}
END_TEST

START_TEST(parser_rejects_dense_shape_mismatch_with_location) {
  char *msg = tt_expect_error("\n  %0 = arith.constant dense<[[1, 2, 3]]> : tensor<2x2xi32>",
                              "t.mlir:2:23: error: inferred shape of elements literal ([1, 3]) "
                              "does not match type ([2, 2])");
  tq_free(msg);
  msg = tt_expect_error("%0 = arith.constant dense<[[1], [2, 3]]> : tensor<2x1xi32>",
                        "t.mlir:1:38: error: ragged dense literal: lists of different lengths");
  tq_free(msg);
}
END_TEST

START_TEST(parser_rejects_integers_that_overflow_the_element_type) {
  char *msg = tt_expect_error("%0 = arith.constant dense<[1, 256]> : tensor<2xi8>",
                              "t.mlir:1:31: error: integer literal 256 does not fit the type");
  tq_free(msg);
  msg = tt_expect_error("%0 = arith.constant -129 : i8", "t.mlir:1:21: error: integer literal");
  tq_free(msg);
  msg = tt_expect_error("%0 = arith.constant dense<-1> : tensor<2xui8>", "t.mlir:1:27: error");
  tq_free(msg);
  msg = tt_expect_error("%0 = arith.constant 99999999999999999999 : i64", "t.mlir:1:21: error");
  tq_free(msg);
  /* 255 is an i8 in MLIR (the unsigned reading of signless integers). */
  tqc_module_t *m = tt_parse("%0 = arith.constant 255 : i8");
  ck_assert_int_eq(constant_of(m)->integer.value, -1);
  tqc_module_destroy(m);
}
END_TEST

START_TEST(parser_reads_dense_arrays) {
  tqc_module_t *m = tt_parse(
      "%0 = \"t.op\"() {a = array<i64: 1, -2, 3>, b = array<i32>, c = array<i1: true, false>, "
      "d = array<f32: 1.5>} : () -> i1");
  const tqc_op_t *op = first_op(m);
  const tqc_attr_t *a = tqc_op_attr(op, "a");
  ck_assert_int_eq(a->kind, TQC_ATTR_DENSE_ARRAY);
  ck_assert_uint_eq(a->dense_array.count, 3);
  int64_t v;
  memcpy(&v, a->dense_array.data + 8, 8);
  ck_assert_int_eq(v, -2);
  ck_assert_uint_eq(tqc_op_attr(op, "b")->dense_array.count, 0);
  const tqc_attr_t *c = tqc_op_attr(op, "c");
  ck_assert_uint_eq(c->dense_array.count, 2);
  ck_assert_uint_eq(c->dense_array.data[0], 1);
  const tqc_attr_t *d = tqc_op_attr(op, "d");
  ck_assert_uint_eq(d->dense_array.data[3], 0x3F);
  ck_assert_uint_eq(d->dense_array.data[2], 0xC0);
  tqc_module_destroy(m);
}
END_TEST

START_TEST(parser_decodes_string_escapes_including_nul) {
  tqc_module_t *m = tt_parse("module attributes {s = \"a\\00b\\22\\n\\\\\"} {}");
  const tqc_attr_t *s = tqc_op_attr(tqc_module_op(m), "s");
  ck_assert_int_eq(s->kind, TQC_ATTR_STRING);
  ck_assert_uint_eq(s->string.len, 6);
  ck_assert_int_eq(memcmp(s->string.data, "a\0b\"\n\\", 6), 0);
  tqc_module_destroy(m);
}
END_TEST

START_TEST(parser_reads_dynamic_and_unranked_tensors) {
  tqc_module_t *m = tt_parse("func.func private @f(tensor<?x4x?xf32>, tensor<*xi8>, index) -> "
                             "!tosa.shape<3>");
  const tqc_op_t *f = tqc_module_op(m)->regions[0].blocks[0]->first;
  const tqc_type_t *fn = tqc_func_type(f);
  ck_assert_ptr_nonnull(fn);
  ck_assert_uint_eq(fn->function.num_inputs, 3);
  const tqc_type_t *t = fn->function.inputs[0];
  ck_assert_int_eq(t->kind, TQC_TYPE_TENSOR);
  ck_assert_uint_eq(t->tensor.rank, 3);
  ck_assert(t->tensor.dims[0] == TQC_DYNAMIC);
  ck_assert_int_eq(t->tensor.dims[1], 4);
  ck_assert(t->tensor.dims[2] == TQC_DYNAMIC);
  ck_assert_int_eq(t->tensor.element->flt.fkind, TQC_F32);
  size_t n = 0;
  ck_assert_int_eq(tqc_type_element_count(t, &n), 0);
  ck_assert_int_eq(fn->function.inputs[1]->tensor.ranked, 0);
  ck_assert_int_eq(fn->function.inputs[2]->kind, TQC_TYPE_INDEX);
  ck_assert_int_eq(fn->function.results[0]->kind, TQC_TYPE_SHAPE);
  ck_assert_uint_eq(fn->function.results[0]->shape.rank, 3);
  const tqc_attr_t *vis = tqc_op_attr(f, "sym_visibility");
  ck_assert_str_eq(vis->string.data, "private");
  ck_assert_ptr_null(tqc_module_entry(m));
  tqc_module_destroy(m);
}
END_TEST

START_TEST(parser_resolves_location_aliases_defined_at_the_end) {
  tqc_module_t *m = tt_parse(
      "module {\n"
      "  func.func @main(%arg0: tensor<2xi8> loc(#loc1)) -> tensor<2xi8> {\n"
      "    %0 = tosa.abs %arg0 : (tensor<2xi8>) -> tensor<2xi8> loc(#loc3)\n"
      "    return %0 : tensor<2xi8> loc(\"inline\"(\"m.py\":7:9))\n"
      "  } loc(fused[#loc1, unknown])\n"
      "} loc(callsite(#loc1 at #loc2))\n"
      "#loc1 = loc(\"model.py\":10:4)\n"
      "#loc2 = loc(\"caller\")\n"
      "#loc3 = loc(callsite(#loc2 at #loc1))\n");
  const tqc_op_t *mod = tqc_module_op(m);
  ck_assert_int_eq(mod->loc->kind, TQC_LOC_CALLSITE);
  ck_assert_int_eq(mod->loc->callsite.callee->kind, TQC_LOC_FILE);
  ck_assert_str_eq(mod->loc->callsite.callee->file.file.data, "model.py");
  ck_assert_uint_eq(mod->loc->callsite.callee->file.line, 10);
  ck_assert_uint_eq(mod->loc->callsite.callee->file.col, 4);
  ck_assert_str_eq(mod->loc->callsite.caller->name.name.data, "caller");
  const tqc_op_t *f = mod->regions[0].blocks[0]->first;
  ck_assert_int_eq(f->loc->kind, TQC_LOC_FUSED);
  ck_assert_uint_eq(f->loc->fused.count, 2);
  ck_assert_int_eq(f->loc->fused.locs[1]->kind, TQC_LOC_UNKNOWN);
  const tqc_value_t *arg = f->regions[0].blocks[0]->args[0];
  ck_assert_uint_eq(arg->loc->file.line, 10);
  const tqc_op_t *abs = f->regions[0].blocks[0]->first;
  ck_assert_int_eq(abs->loc->kind, TQC_LOC_CALLSITE);
  ck_assert_str_eq(abs->loc->callsite.caller->file.file.data, "model.py");
  const tqc_op_t *ret = abs->next;
  ck_assert_int_eq(ret->loc->kind, TQC_LOC_NAME);
  ck_assert_uint_eq(ret->loc->name.child->file.col, 9);
  tqc_module_destroy(m);
}
END_TEST

START_TEST(parser_gives_unlocated_ops_their_position_in_the_text) {
  tqc_module_t *m = tt_parse("module {\n  func.func @g(%a: i32) -> i32 {\n"
                             "      return %a : i32\n  }\n}\n");
  const tqc_op_t *f = tqc_module_op(m)->regions[0].blocks[0]->first;
  ck_assert_str_eq(f->loc->file.file.data, "t.mlir");
  ck_assert_uint_eq(f->loc->file.line, 2);
  ck_assert_uint_eq(f->loc->file.col, 3);
  const tqc_value_t *a = f->regions[0].blocks[0]->args[0];
  ck_assert_uint_eq(a->loc->file.line, 2);
  ck_assert_uint_eq(a->loc->file.col, 16);
  const tqc_op_t *ret = f->regions[0].blocks[0]->first;
  ck_assert_uint_eq(ret->loc->file.line, 3);
  ck_assert_uint_eq(ret->loc->file.col, 7);
  ck_assert_ptr_eq(ret->operands[0], a);
  tqc_module_destroy(m);
}
END_TEST

START_TEST(parser_maps_custom_tosa_forms_to_properties) {
  tqc_module_t *m = tt_parse(
      "func.func @main(%x: tensor<4xi8>, %m: tensor<1xi16>, %s: tensor<1xi8>, %z: tensor<1xi8>, "
      "%p: !tosa.shape<2>) -> tensor<4xi32> {\n"
      "  %0 = tosa.rescale %x, %m, %s, %z, %z {input_unsigned = false, output_unsigned = false, "
      "per_channel = false, rounding_mode = DOUBLE_ROUND, scale32 = false} : (tensor<4xi8>, "
      "tensor<1xi16>, tensor<1xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<4xi32>\n"
      "  %1 = tosa.pad %x, %p, %z {quantization_info = #tosa.pad_quant<input_zp = -100>} : "
      "(tensor<4xi8>, !tosa.shape<2>, tensor<1xi8>) -> tensor<4xi8>\n"
      "  %2 = tosa.argmax %x {axis = 0 : i32} : (tensor<4xi8>) -> tensor<i32>\n"
      "  return %0 : tensor<4xi32>\n}\n");
  const tqc_op_t *rescale = first_op(m);
  ck_assert_uint_eq(rescale->num_operands, 5);
  ck_assert_uint_eq(rescale->properties.count, 5);
  ck_assert_uint_eq(rescale->attributes.count, 0);
  tq_sv_t mode = tqc_attr_dialect_body(tqc_dict_get(&rescale->properties, "rounding_mode"),
                                       "tosa.rounding_mode");
  ck_assert(tq_sv_eq_cstr(mode, "DOUBLE_ROUND"));
  const tqc_op_t *pad = rescale->next;
  ck_assert_uint_eq(pad->properties.count, 0);
  const tqc_attr_t *q = tqc_dict_get(&pad->attributes, "quantization_info");
  ck_assert_ptr_nonnull(q);
  ck_assert(tq_sv_eq_cstr(q->dialect.text, "#tosa.pad_quant<input_zp = -100>"));
  ck_assert(tq_sv_eq_cstr(q->dialect.body, "input_zp = -100"));
  const tqc_op_t *argmax = pad->next;
  ck_assert(tq_sv_eq_cstr(tqc_attr_dialect_body(tqc_op_attr(argmax, "nan_mode"), "tosa.nan_mode"),
                          "PROPAGATE"));
  ck_assert_int_eq(tqc_op_attr(argmax, "axis")->integer.value, 0);
  ck_assert_uint_eq(tqc_op_attr(argmax, "axis")->integer.type->integer.width, 32);
  tqc_module_destroy(m);
}
END_TEST

START_TEST(parser_moves_func_arg_and_result_attrs_to_properties) {
  tqc_module_t *m = tt_parse("func.func @f(%a: i8 {n.x = \"in\"}, %b: i8) -> (i8 {n.y = 1 : i32}) "
                             "attributes {tf.entry = {inputs = \"a\"}} {\n  return %a : i8\n}");
  const tqc_op_t *f = tqc_module_op(m)->regions[0].blocks[0]->first;
  const tqc_attr_t *args = tqc_dict_get(&f->properties, "arg_attrs");
  ck_assert_ptr_nonnull(args);
  ck_assert_uint_eq(args->array.count, 2);
  ck_assert_uint_eq(args->array.items[0]->dict.count, 1);
  ck_assert_uint_eq(args->array.items[1]->dict.count, 0);
  ck_assert_ptr_nonnull(tqc_dict_get(&f->properties, "res_attrs"));
  ck_assert_ptr_nonnull(tqc_dict_get(&f->attributes, "tf.entry"));
  ck_assert_ptr_null(tqc_dict_get(&f->properties, "tf.entry"));
  ck_assert_ptr_eq(tqc_module_entry(m), f);
  tqc_module_destroy(m);
}
END_TEST

START_TEST(parser_wraps_top_level_ops_in_an_implicit_module) {
  tqc_module_t *m = tt_parse("func.func @a() {\n  return\n}\nfunc.func @b() {\n  return\n}\n");
  const tqc_op_t *top = tqc_module_op(m);
  ck_assert(tqc_op_is(top, "builtin.module"));
  ck_assert_uint_eq(top->regions[0].blocks[0]->num_ops, 2);
  ck_assert_uint_eq(top->loc->file.line, 0);
  ck_assert_ptr_eq(tqc_module_lookup_func(m, "b"), top->regions[0].blocks[0]->last);
  ck_assert_ptr_eq(tqc_module_entry(m), top->regions[0].blocks[0]->first);
  tqc_module_destroy(m);
}
END_TEST

START_TEST(parser_reads_result_groups_successors_and_regions) {
  tqc_module_t *m = tt_parse(
      "\"t.f\"() ({\n"
      "^bb0(%a: i32):\n"
      "  %r:2 = \"t.two\"(%a) : (i32) -> (i32, f32)\n"
      "  \"t.br\"(%r#1)[^bb1] : (f32) -> ()\n"
      "^bb1:\n"
      "  \"t.use\"(%r#0, %r) : (i32, i32) -> ()\n"
      "}) : () -> ()\n");
  const tqc_op_t *f = first_op(m);
  const tqc_region_t *r = &f->regions[0];
  ck_assert_uint_eq(r->num_blocks, 2);
  const tqc_op_t *two = r->blocks[0]->first;
  ck_assert_uint_eq(two->num_results, 2);
  const tqc_op_t *br = two->next;
  ck_assert_ptr_eq(br->operands[0], two->results[1]);
  ck_assert_uint_eq(br->num_successors, 1);
  ck_assert_ptr_eq(br->successors[0], r->blocks[1]);
  const tqc_op_t *use = r->blocks[1]->first;
  ck_assert_ptr_eq(use->operands[0], two->results[0]);
  ck_assert_ptr_eq(use->operands[1], two->results[0]);
  ck_assert_ptr_eq(r->blocks[1]->parent, r);
  TT_ASSERT_OK(tqc_module_verify(m));
  tqc_module_destroy(m);
}
END_TEST

START_TEST(parser_rejects_redefinition_with_location) {
  char *msg = tt_expect_error("func.func @f(%a: i8) -> i8 {\n  %a = arith.constant 1 : i8\n"
                              "  return %a : i8\n}",
                              "t.mlir:2:3: error: redefinition of SSA value '%a'\n"
                              "  %a = arith.constant 1 : i8\n  ^");
  tq_free(msg);
}
END_TEST

START_TEST(parser_rejects_undefined_blocks_and_unsupported_custom_ops) {
  char *msg = tt_expect_error("\"t.f\"() ({\n  \"t.br\"()[^bb9] : () -> ()\n}) : () -> ()",
                              "t.mlir:2:12: error: reference to an undefined block '^bb9'");
  tq_free(msg);
  msg = tt_expect_error("  %0 = scf.for x", "t.mlir:1:8: error: custom assembly form of 'scf.for'");
  tq_free(msg);
}
END_TEST

/* A text nested `depth` times around `inner`, the pieces repeated. */
static char *nested(const char *open, const char *inner, const char *close, size_t depth) {
  size_t lo = strlen(open), li = strlen(inner), lc = strlen(close);
  char *s = malloc(depth * (lo + lc) + li + 1);
  char *p = s;
  for (size_t i = 0; i < depth; i++, p += lo) memcpy(p, open, lo);
  memcpy(p, inner, li);
  p += li;
  for (size_t i = 0; i < depth; i++, p += lc) memcpy(p, close, lc);
  *p = 0;
  return s;
}

START_TEST(parser_limits_nesting_without_recursing_deeply) {
  const size_t depth = 100000;
  struct {
    const char *open, *inner, *close, *prefix;
  } cases[] = {
      {"[", "1", "]", "%0 = arith.constant dense<"},
      {"[", "1", "]", "\"t.op\"() {a = "},
      {"(", "i8", ") -> i8", "\"t.op\"() {a = "},
      {"\"t.op\"() ({\n", "", "}) : () -> ()\n", ""},
      {"{a = ", "1", "}", "\"t.op\"() {a = "},
      {"\"n\"(", "unknown", ")", "\"t.op\"() : () -> () loc("},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    char *body = nested(cases[i].open, cases[i].inner, cases[i].close, depth);
    size_t n = strlen(cases[i].prefix) + strlen(body) + 1;
    char *text = malloc(n);
    snprintf(text, n, "%s%s", cases[i].prefix, body);
    tqc_module_t *m = NULL;
    tq_status_t st = tqc_module_parse("deep.mlir", text, strlen(text), NULL, &m);
    ck_assert_msg(st != NULL, "case %zu parsed", i);
    ck_assert_int_eq(tq_status_code(st), TQ_INVALID_INPUT);
    ck_assert_msg(strncmp(tq_status_message(st), "deep.mlir:", 10) == 0 &&
                      strstr(tq_status_message(st), "nesting deeper than the limit of 1000"),
                  "%s",
                  tq_status_message(st));
    tq_status_free(st);
    ck_assert_ptr_null(m);
    free(text);
    free(body);
  }
}
END_TEST

START_TEST(parser_accepts_nesting_up_to_the_limit) {
  tqc_parse_options_t o;
  tqc_parse_options_initialize(&o);
  ck_assert_uint_eq(o.max_nesting, 1000);
  o.max_nesting = 50;
  char *body = nested("[", "1", "]", 40);
  char *text = malloc(strlen(body) + 64);
  sprintf(text, "\"t.op\"() {a = %s} : () -> ()", body);
  tqc_module_t *m = NULL;
  TT_ASSERT_OK(tqc_module_parse("t.mlir", text, strlen(text), &o, &m));
  tqc_module_destroy(m);
  free(text);
  free(body);
}
END_TEST

START_TEST(parser_keeps_file_metadata_and_opaque_attributes) {
  tqc_module_t *m = tt_parse(
      "\"t.op\"() {m = affine_map<(d0) -> (d0)>, t = !foo.bar<\"x\", 3>} : () -> ()\n"
      "{-#\n  dialect_resources: {}\n#-}\n");
  const tqc_op_t *op = first_op(m);
  ck_assert(tq_sv_eq_cstr(tqc_op_attr(op, "m")->opaque.text, "affine_map<(d0) -> (d0)>"));
  const tqc_attr_t *t = tqc_op_attr(op, "t");
  ck_assert_int_eq(t->kind, TQC_ATTR_TYPE);
  ck_assert(tq_sv_eq_cstr(t->type->opaque.text, "!foo.bar<\"x\", 3>"));
  ck_assert(tq_sv_starts_with(m->metadata, "{-#"));
  tqc_module_destroy(m);
}
END_TEST

START_TEST(parser_reads_attribute_and_type_aliases) {
  tqc_module_t *m = tt_parse("#a = [1, 2]\n!t = tensor<2xi8>\n"
                             "\"t.op\"() {x = #a} : () -> !t\n");
  const tqc_op_t *op = first_op(m);
  ck_assert_uint_eq(tqc_op_attr(op, "x")->array.count, 2);
  ck_assert_int_eq(op->results[0]->type->tensor.dims[0], 2);
  tqc_module_destroy(m);
}
END_TEST

Suite *parser_suite(void) {
  Suite *s = suite_create("parser");
  TCase *tc = tcase_create("parse");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, parser_decodes_dense_hex_to_little_endian_bytes);
  tcase_add_test(tc, parser_keeps_splats_as_one_element);
  tcase_add_test(tc, parser_reads_nested_dense_lists_in_row_major_order);
  tcase_add_test(tc, parser_reads_bool_and_float_dense_elements);
  tcase_add_test(tc, parser_rejects_dense_shape_mismatch_with_location);
  tcase_add_test(tc, parser_rejects_integers_that_overflow_the_element_type);
  tcase_add_test(tc, parser_reads_dense_arrays);
  tcase_add_test(tc, parser_decodes_string_escapes_including_nul);
  tcase_add_test(tc, parser_reads_dynamic_and_unranked_tensors);
  tcase_add_test(tc, parser_resolves_location_aliases_defined_at_the_end);
  tcase_add_test(tc, parser_gives_unlocated_ops_their_position_in_the_text);
  tcase_add_test(tc, parser_maps_custom_tosa_forms_to_properties);
  tcase_add_test(tc, parser_moves_func_arg_and_result_attrs_to_properties);
  tcase_add_test(tc, parser_wraps_top_level_ops_in_an_implicit_module);
  tcase_add_test(tc, parser_reads_result_groups_successors_and_regions);
  tcase_add_test(tc, parser_rejects_redefinition_with_location);
  tcase_add_test(tc, parser_rejects_undefined_blocks_and_unsupported_custom_ops);
  tcase_add_test(tc, parser_limits_nesting_without_recursing_deeply);
  tcase_add_test(tc, parser_accepts_nesting_up_to_the_limit);
  tcase_add_test(tc, parser_keeps_file_metadata_and_opaque_attributes);
  tcase_add_test(tc, parser_reads_attribute_and_type_aliases);
  suite_add_tcase(s, tc);
  return s;
}
