/* The printer: golden generic form of small modules, and print -> parse -> print round trips. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "suites.h"
#include "torq/base/alloc.h"

static char *parse_and_print(const char *text) {
  tqc_module_t *m = tt_parse(text);
  char *s = tt_print(m);
  tqc_module_destroy(m);
  return s;
}

START_TEST(printer_writes_generic_form_with_locations) {
  char *s = parse_and_print(
      "module {\n"
      "  func.func @main(%arg0: tensor<2xi8>) -> tensor<2xi8> {\n"
      "    %cst = arith.constant dense<[1, -2]> : tensor<2xi8>\n"
      "    %0 = tosa.add %arg0, %cst : (tensor<2xi8>, tensor<2xi8>) -> tensor<2xi8>\n"
      "    return %0 : tensor<2xi8>\n"
      "  }\n"
      "}\n");
  ck_assert_str_eq(
      s,
      "\"builtin.module\"() ({\n"
      "  \"func.func\"() <{function_type = (tensor<2xi8>) -> tensor<2xi8>, sym_name = \"main\"}> "
      "({\n"
      "  ^bb0(%arg0: tensor<2xi8> loc(\"t.mlir\":2:19)):\n"
      "    %0 = \"arith.constant\"() <{value = dense<[1, -2]> : tensor<2xi8>}> : () -> "
      "tensor<2xi8> loc(\"t.mlir\":3:12)\n"
      "    %1 = \"tosa.add\"(%arg0, %0) : (tensor<2xi8>, tensor<2xi8>) -> tensor<2xi8> "
      "loc(\"t.mlir\":4:10)\n"
      "    \"func.return\"(%1) : (tensor<2xi8>) -> () loc(\"t.mlir\":5:5)\n"
      "  }) : () -> () loc(\"t.mlir\":2:3)\n"
      "}) : () -> () loc(\"t.mlir\":1:1)\n");
  tq_free(s);
}
END_TEST

typedef struct print_case_s {
  const char *input;
  const char *want; /* a piece the output must contain */
} print_case_t;

static const print_case_t pieces[] = {
    {"%0 = arith.constant 5 : i32", "<{value = 5 : i32}>"},
    /* An integer without a type is i64, which MLIR 22 writes out outside arrays. */
    {"%0 = arith.constant 5", "<{value = 5 : i64}>"},
    {"%0 = arith.constant true", "<{value = true}> : () -> i1"},
    {"%0 = arith.constant 1.5 : bf16", "<{value = 1.500000e+00 : bf16}>"},
    {"%0 = arith.constant 0.1 : f64", "<{value = 1.000000e-01 : f64}>"},
    {"%0 = arith.constant 0x7FC00000 : f32", "<{value = 0x7FC00000 : f32}>"},
    {"%0 = arith.constant dense<0.0673685893> : tensor<f32>", "dense<0.0673685893>"},
    {"%0 = arith.constant dense<[0x7F800000, -0.0]> : tensor<2xf32>",
     "dense<[0x7F800000, -0.000000e+00]>"},
    {"%0 = arith.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>", "dense<[[1, 2], [3, 4]]>"},
    {"%0 = arith.constant dense<255> : tensor<2xui8>", "dense<255> : tensor<2xui8>"},
    {"%0 = arith.constant dense<\"0x01000000\"> : tensor<3xi32>", "dense<1> : tensor<3xi32>"},
    {"\"t.op\"() {s = \"a\\\"b\\n\\\\\"} : () -> ()", "{s = \"a\\22b\\0A\\\\\"}"},
    {"\"t.op\"() {\"a b\" = unit, \"@x\" = 1} : () -> ()", "{\"@x\" = 1 : i64, \"a b\"}"},
    {"\"t.op\"() {a = [3, 4 : i64, 5 : i32]} : () -> ()", "{a = [3, 4, 5 : i32]}"},
    {"\"t.op\"() {r = @a::@\"b c\"} : () -> ()", "{r = @a::@\"b c\"}"},
    {"\"t.op\"() {a = array<i64: 1, 2>, e = array<i32>} : () -> ()",
     "{a = array<i64: 1, 2>, e = array<i32>}"},
    {"\"t.op\"() {t = tensor<?x*xi8>} : () -> ()", ""},
    {"\"t.op\"() {t = tensor<*xi8>, f = (i8) -> (i8, i8)} : () -> ()",
     "{f = (i8) -> (i8, i8), t = tensor<*xi8>}"},
    {"\"t.op\"() : () -> () loc(fused<\"m\">[\"a\", callsite(\"b\" at \"c\":1:2)])",
     "loc(fused<\"m\">[\"a\", callsite(\"b\" at \"c\":1:2)])"},
    {"%0:2 = \"t.two\"() : () -> (i8, i8)\n\"t.use\"(%0#1) : (i8) -> ()",
     "%0:2 = \"t.two\"() : () -> (i8, i8)"},
};

START_TEST(printer_writes_attributes_as_mlir_does) {
  const print_case_t *c = &pieces[_i];
  tqc_module_t *m = NULL;
  tq_status_t st = tqc_module_parse("t.mlir", c->input, strlen(c->input), NULL, &m);
  if (c->want[0] == 0) {
    /* Cases that must be rejected. */
    ck_assert_ptr_nonnull(st);
    tq_status_free(st);
    return;
  }
  TT_ASSERT_OK(st);
  char *s = tt_print(m);
  ck_assert_msg(strstr(s, c->want) != NULL, "'%s' not in:\n%s", c->want, s);
  tq_free(s);
  tqc_module_destroy(m);
}
END_TEST

static const char *const round_trips[] = {
    "module @m attributes {tfl.description = \"x\\00y\", a.b} {\n"
    "  func.func private @decl(tensor<?x2xf16>, i1) -> (i64 {x.y})\n"
    "  func.func @main(%arg0: tensor<1x2xbf16> loc(\"in\":1:1)) -> tensor<1x2xbf16> {\n"
    "    %c = arith.constant dense<[[1.0e+3, -7.25]]> : tensor<1x2xbf16>\n"
    "    %0 = tosa.clamp %arg0 {max_val = 6.0 : bf16, min_val = 0.0 : bf16} : "
    "(tensor<1x2xbf16>) -> tensor<1x2xbf16>\n"
    "    %1 = tosa.maximum %0, %c : (tensor<1x2xbf16>, tensor<1x2xbf16>) -> tensor<1x2xbf16>\n"
    "    return %1 : tensor<1x2xbf16> loc(#l)\n"
    "  }\n"
    "}\n"
    "#l = loc(\"ret\"(\"f.py\":3:4))\n",
    "\"t.outer\"() ({\n"
    "^bb0(%a: i32, %b: f32):\n"
    "  %r:2 = \"t.two\"(%a) : (i32) -> (i32, f32)\n"
    "  \"t.inner\"() ({\n"
    "  ^bb0(%c: i8):\n"
    "    \"t.use\"(%a, %r#1, %c) : (i32, f32, i8) -> ()\n"
    "  }) : () -> ()\n"
    "  \"t.br\"(%r#0)[^bb2, ^bb1] : (i32) -> ()\n"
    "^bb1:\n"
    "  \"t.end\"() : () -> ()\n"
    "^bb2(%x: i32):\n"
    "  \"t.end\"(%x) : (i32) -> ()\n"
    "}) : () -> ()\n",
    "%0 = arith.constant dense<[true, false, true]> : tensor<3xi1>\n"
    "%1 = tensor.extract_slice %0[1] [2] [1] : tensor<3xi1> to tensor<2xi1>\n"
    "%2 = \"t.x\"() {m = affine_map<(d0) -> (d0 + 1)>, k = #tosa.rounding_mode<SINGLE_ROUND>} "
    ": () -> !foo.bar<1, \"q\">\n",
};

START_TEST(printer_round_trips_exactly) {
  char *first = parse_and_print(round_trips[_i]);
  char *second = parse_and_print(first);
  ck_assert_str_eq(first, second);
  tq_free(first);
  tq_free(second);
}
END_TEST

START_TEST(printer_round_trips_large_dense_as_hex) {
  /* Over 100 elements MLIR prints hex; i1 packs eight elements a byte. */
  char text[8192];
  size_t o = (size_t)snprintf(text, sizeof(text), "%%0 = arith.constant dense<[");
  for (int i = 0; i < 300; i++) o += (size_t)snprintf(text + o, sizeof(text) - o, "%s%d", i ? ", " : "", i % 7 - 3);
  o += (size_t)snprintf(text + o, sizeof(text) - o, "]> : tensor<300xi16>\n%%1 = arith.constant dense<[");
  for (int i = 0; i < 101; i++) o += (size_t)snprintf(text + o, sizeof(text) - o, "%s%s", i ? ", " : "", i % 3 ? "true" : "false");
  snprintf(text + o, sizeof(text) - o, "]> : tensor<101xi1>\n");
  tqc_module_t *m = tt_parse(text);
  char *s = tt_print(m);
  ck_assert_ptr_nonnull(strstr(s, "dense<\"0xFDFFFEFFFFFF0000"));
  ck_assert_ptr_nonnull(strstr(s, "dense<\"0xB66DDBB66DDBB66DDBB66DDB16\"> : tensor<101xi1>"));
  tqc_module_t *m2 = tt_parse(s);
  char *s2 = tt_print(m2);
  ck_assert_str_eq(s, s2);
  const tqc_op_t *a = tqc_module_op(m)->regions[0].blocks[0]->first;
  const tqc_op_t *b = tqc_module_op(m2)->regions[0].blocks[0]->first;
  const tqc_attr_t *da = tqc_op_attr(a->next, "value"), *db = tqc_op_attr(b->next, "value");
  ck_assert_uint_eq(db->dense.size, 101);
  ck_assert_int_eq(memcmp(da->dense.data, db->dense.data, 101), 0);
  tq_free(s);
  tq_free(s2);
  tqc_module_destroy(m);
  tqc_module_destroy(m2);
}
END_TEST

Suite *printer_suite(void) {
  Suite *s = suite_create("printer");
  TCase *tc = tcase_create("print");
  tcase_add_test(tc, printer_writes_generic_form_with_locations);
  tcase_add_loop_test(tc, printer_writes_attributes_as_mlir_does, 0,
                      (int)(sizeof(pieces) / sizeof(pieces[0])));
  tcase_add_loop_test(tc, printer_round_trips_exactly, 0,
                      (int)(sizeof(round_trips) / sizeof(round_trips[0])));
  tcase_add_test(tc, printer_round_trips_large_dense_as_hex);
  suite_add_tcase(s, tc);
  return s;
}
