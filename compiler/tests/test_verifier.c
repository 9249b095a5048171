/* The verifier: each rule with a located diagnostic. */
#include <check.h>
#include <string.h>

#include "suites.h"
#include "torq/base/alloc.h"

typedef struct verify_case_s {
  const char *name;
  const char *text;
  const char *want; /* the start of the diagnostic */
} verify_case_t;

static const verify_case_t cases[] = {
    {"undefined value",
     "func.func @main(%a: tensor<2xi8>) -> tensor<2xi8> {\n"
     "  %0 = tosa.abs %b : (tensor<2xi8>) -> tensor<2xi8>\n"
     "  return %0 : tensor<2xi8>\n}\n",
     "t.mlir:2:17: error: use of undefined value '%b'\n"
     "  %0 = tosa.abs %b : (tensor<2xi8>) -> tensor<2xi8>\n"
     "                ^"},
    {"use before definition",
     "func.func @main(%a: i8) -> i8 {\n"
     "  %0 = \"t.neg\"(%1) : (i8) -> i8\n"
     "  %1 = \"t.neg\"(%a) : (i8) -> i8\n"
     "  return %0 : i8\n}\n",
     "t.mlir:2:16: error: value '%1' is used before it is defined"},
    {"operand type mismatch",
     "func.func @main(%a: tensor<2xi8>, %b: tensor<2xi16>) -> tensor<2xi8> {\n"
     "  %0 = tosa.add %a, %b : (tensor<2xi8>, tensor<2xi8>) -> tensor<2xi8>\n"
     "  return %0 : tensor<2xi8>\n}\n",
     "t.mlir:2:21: error: operand #1 ('%b') has type tensor<2xi16>, expected tensor<2xi8>"},
    {"operand count mismatch",
     "func.func @main(%a: i8) -> i8 {\n"
     "  %0 = \"t.add\"(%a, %a) : (i8) -> i8\n"
     "  return %0 : i8\n}\n",
     "t.mlir:2:8: error: 't.add' op has 2 operands, but its type lists 1"},
    {"wrong result count",
     "func.func @main(%a: i8) -> i8 {\n"
     "  %0, %1 = \"t.neg\"(%a) : (i8) -> i8\n"
     "  return %0 : i8\n}\n",
     "t.mlir:2:12: error: 't.neg' op has 1 results, but 2 result names were given"},
    {"wrong return type",
     "func.func @main(%a: tensor<2xi8>) -> tensor<2xi32> {\n"
     "  return %a : tensor<2xi8>\n}\n",
     "t.mlir:2:3: error: returned value #0 has type tensor<2xi8>, expected tensor<2xi32>"},
    {"wrong return count",
     "func.func @main(%a: i8) -> (i8, i8) {\n"
     "  return %a : i8\n}\n",
     "t.mlir:2:3: error: 'func.return' op has 1 operands, but the function returns 2"},
    {"block arguments against function_type",
     "\"func.func\"() <{function_type = (i8) -> (), sym_name = \"f\"}> ({\n"
     "^bb0(%x: i16):\n"
     "  \"func.return\"() : () -> ()\n"
     "}) : () -> ()\n",
     "t.mlir:2:6: error: argument #0 has type i16, expected i8"},
    {"arith.constant value type",
     "func.func @main() -> tensor<2xi8> {\n"
     "  %0 = \"arith.constant\"() <{value = dense<1> : tensor<2xi16>}> : () -> tensor<2xi8>\n"
     "  return %0 : tensor<2xi8>\n}\n",
     "t.mlir:2:8: error: the constant value has type tensor<2xi16>, expected tensor<2xi8>"},
    {"tosa.const value type",
     "func.func @main() -> tensor<3xi8> {\n"
     "  %0 = \"tosa.const\"() <{values = dense<[1, 2]> : tensor<2xi8>}> : () -> tensor<3xi8>\n"
     "  return %0 : tensor<3xi8>\n}\n",
     "t.mlir:2:8: error: the constant value has type tensor<2xi8>, expected tensor<3xi8>"},
    {"tosa.const_shape rank",
     "func.func @main() -> !tosa.shape<3> {\n"
     "  %0 = tosa.const_shape {values = dense<[1, 2]> : tensor<2xindex>} : () -> "
     "!tosa.shape<3>\n"
     "  return %0 : !tosa.shape<3>\n}\n",
     "t.mlir:2:8: error: the constant shape has type tensor<2xindex>, expected !tosa.shape<3>"},
    {"missing terminator",
     "func.func @main(%a: i8) -> i8 {\n"
     "  %0 = \"t.neg\"(%a) : (i8) -> i8\n}\n",
     "t.mlir:2:8: error: block 0 of 'func.func' @main has no terminator"},
    {"value from outside an isolated function",
     "%0 = \"t.v\"() : () -> i8\n"
     "func.func @main() -> i8 {\n"
     "  return %0 : i8\n}\n",
     "t.mlir:3:10: error: use of undefined value '%0'"},
};

START_TEST(verifier_reports_each_rule_with_location) {
  const verify_case_t *c = &cases[_i];
  char *msg = tt_expect_error(c->text, c->want);
  tq_free(msg);
}
END_TEST

START_TEST(verifier_accepts_a_consistent_module) {
  tqc_module_t *m = tt_parse(
      "module {\n"
      "  func.func @main(%a: tensor<2xi8>) -> (tensor<2xi8>, !tosa.shape<1>) {\n"
      "    %c = arith.constant dense<[1, 2]> : tensor<2xi8>\n"
      "    %s = tosa.const_shape {values = dense<2> : tensor<1xindex>} : () -> !tosa.shape<1>\n"
      "    %0 = tosa.add %a, %c : (tensor<2xi8>, tensor<2xi8>) -> tensor<2xi8>\n"
      "    return %0, %s : tensor<2xi8>, !tosa.shape<1>\n"
      "  }\n"
      "}\n");
  TT_ASSERT_OK(tqc_module_verify(m));
  tqc_module_destroy(m);
}
END_TEST

Suite *verifier_suite(void) {
  Suite *s = suite_create("verifier");
  TCase *tc = tcase_create("rules");
  tcase_add_loop_test(tc, verifier_reports_each_rule_with_location, 0,
                      (int)(sizeof(cases) / sizeof(cases[0])));
  tcase_add_test(tc, verifier_accepts_a_consistent_module);
  suite_add_tcase(s, tc);
  return s;
}
