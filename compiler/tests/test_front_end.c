/* What MLIR 22 verifies and Torq models use, beyond the corpus: the models of
 * compiler/tests/models (i16 x i16 -> i32 matmul, older attribute spellings, tensor.empty,
 * linalg.fill, linalg.matmul and linalg.generic in custom form) parse, pass the TOSA checks,
 * compile, print as mlir-opt-22 prints them and round-trip; older spellings are normalised on
 * read; the linalg custom forms build MLIR 22's IR (the bodies of named ops included), and what
 * cannot run is refused with a located error. runtime-tests' oracle suite runs these models
 * against MLIR 22's own lowering. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "suites.h"
#include "torq/base/alloc.h"
#include "torq/base/file.h"
#include "torq/compiler/compile.h"
#include "torq/compiler/tosa.h"
#include "tq_test.h"

#define MLIR_OPT "/usr/lib/llvm-22/bin/mlir-opt"

/* The paths of the models in compiler/tests/models (heap; free with tq_dir_list_free). */
static char **front_end_models(size_t *out_n) {
  char dir[TT_PATH_MAX];
  snprintf(dir, sizeof(dir), "%.*s/compiler/tests/models", TT_PATH_MAX - 64, tq_test_top());
  char **names = NULL;
  TT_ASSERT_OK(tq_dir_list(dir, ".mlir", &names, out_n));
  ck_assert_uint_ge(*out_n, 5);
  for (size_t i = 0; i < *out_n; i++) {
    size_t size = strlen(dir) + strlen(names[i]) + 2;
    char *path = tq_malloc(size);
    ck_assert_ptr_nonnull(path);
    snprintf(path, size, "%s/%s", dir, names[i]);
    tq_free(names[i]);
    names[i] = path;
  }
  return names;
}

static char *parse_print_file(const char *path, tqc_module_t **out_module) {
  tqc_module_t *m = NULL;
  TT_ASSERT_OK(tqc_module_parse_file(path, NULL, &m));
  TT_ASSERT_OK(tqc_module_verify(m));
  char *s = tt_print(m);
  if (out_module)
    *out_module = m;
  else
    tqc_module_destroy(m);
  return s;
}

/* Runs mlir-opt-22 on `in` printing the generic form into `out`; 1 when it exits 0. */
static int mlir_opt_generic(const char *mlir_opt, const char *in, const char *out) {
  pid_t pid = tt_spawn_mlir_opt(mlir_opt, in, out);
  ck_assert_int_gt(pid, 0);
  int status = 0;
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* Every model passes the checks, compiles, and its print parses back to the same print. */
START_TEST(front_end_models_check_compile_and_round_trip) {
  size_t n = 0;
  char **paths = front_end_models(&n);
  for (size_t i = 0; i < n; i++) {
    tqc_module_t *m = NULL;
    char *first = parse_print_file(paths[i], &m);
    TT_ASSERT_OK(tqc_tosa_check(m));
    tqc_compiled_t *c = NULL;
    TT_ASSERT_OK(tqc_compile(m, NULL, &c));
    tqc_compiled_destroy(c);
    tqc_module_destroy(m);
    tqc_module_t *again = NULL;
    TT_ASSERT_OK(tqc_module_parse("printed.mlir", first, strlen(first), NULL, &again));
    char *second = tt_print(again);
    ck_assert_msg(strcmp(first, second) == 0, "%s: the reprint differs", paths[i]);
    tqc_module_destroy(again);
    tq_free(first);
    tq_free(second);
  }
  tq_dir_list_free(paths, n);
}
END_TEST

/* mlir-opt-22 accepts our print of every model and prints it back byte for byte; and where it
 * accepts the model as written (all but the older spellings, which MLIR 22 rejects), its own
 * generic print of the model is ours: the same IR, implicit bodies of named ops included. */
START_TEST(front_end_models_print_as_mlir_opt_22_does) {
  const char *mlir_opt = tq_test_tool("TORQ_MLIR_OPT", MLIR_OPT,
                                      "apt-get install mlir-22-tools (scripts/install-test-tools)");
  if (!mlir_opt) return;
  size_t n = 0, same_as_written = 0;
  char **paths = front_end_models(&n);
  char dir[] = "/tmp/torq-front-end-XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char in[TT_PATH_MAX], out[TT_PATH_MAX];
  snprintf(in, sizeof(in), "%s/in.mlir", dir);
  snprintf(out, sizeof(out), "%s/out.mlir", dir);
  for (size_t i = 0; i < n; i++) {
    char *ours = parse_print_file(paths[i], NULL);
    TT_ASSERT_OK(tq_file_write_atomic(in, ours, strlen(ours)));
    ck_assert_msg(mlir_opt_generic(mlir_opt, in, out), "mlir-opt-22 rejects our print of %s",
                  paths[i]);
    char *back = tt_read_file(out);
    ck_assert_msg(strcmp(back, ours) == 0, "mlir-opt-22 prints our print of %s differently",
                  paths[i]);
    tq_free(back);
    int older = strstr(paths[i], "older_attribute_spellings") != NULL;
    int accepted = mlir_opt_generic(mlir_opt, paths[i], out);
    ck_assert_msg(accepted != older, "%s: mlir-opt-22 %s the model as written", paths[i],
                  accepted ? "accepts" : "rejects");
    if (accepted) {
      /* Locations name the file as written: print ours of the same path. */
      char *theirs = tt_read_file(out);
      ck_assert_msg(strcmp(theirs, ours) == 0, "%s: mlir-opt-22's generic print differs from ours",
                    paths[i]);
      tq_free(theirs);
      same_as_written++;
    }
    tq_free(ours);
  }
  unlink(in);
  unlink(out);
  rmdir(dir);
  fprintf(stderr, "front end: mlir-opt-22 keeps our print of %zu models; %zu print as it does\n", n,
          same_as_written);
  tq_dir_list_free(paths, n);
}
END_TEST

/* ---- Older spellings ------------------------------------------------------------------------ */

#define RESCALE_HEAD                                                                       \
  "func.func @main(%x: tensor<4xi32>) -> tensor<4xi8> {\n"                                 \
  "  %m = \"tosa.const\"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> "        \
  "tensor<1xi32>\n"                                                                        \
  "  %s = \"tosa.const\"() <{values = dense<33> : tensor<1xi8>}> : () -> tensor<1xi8>\n"   \
  "  %iz = \"tosa.const\"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>\n" \
  "  %oz = \"tosa.const\"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>\n"
#define RESCALE_TYPE \
  " : (tensor<4xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<4xi8>\n"
#define RESCALE_TAIL "  return %0 : tensor<4xi8>\n}\n"

typedef struct spelling_case_s {
  const char *input;
  const char *want;  /* in the printed form */
  const char *error; /* the TOSA checker's message, or NULL when it passes */
} spelling_case_t;

static const spelling_case_t spellings[] = {
    {RESCALE_HEAD "  %0 = tosa.rescale %x, %m, %s, %iz, %oz {input_unsigned = false, "
                  "output_unsigned = false, per_channel = false, rounding_mode = \"DOUBLE_ROUND\", "
                  "scale32 = true}" RESCALE_TYPE RESCALE_TAIL,
     "rounding_mode = #tosa.rounding_mode<DOUBLE_ROUND>, scale32 = true}>", NULL},
    /* The generic form of older releases. */
    {RESCALE_HEAD "  %0 = \"tosa.rescale\"(%x, %m, %s, %iz, %oz) <{input_unsigned = false, "
                  "output_unsigned = false, per_channel = false, rounding_mode = \"SINGLE_ROUND\", "
                  "scale32 = true}>" RESCALE_TYPE RESCALE_TAIL,
     "rounding_mode = #tosa.rounding_mode<SINGLE_ROUND>", NULL},
    /* MLIR 19 and 20: a boolean double_round. */
    {RESCALE_HEAD
     "  %0 = tosa.rescale %x, %m, %s, %iz, %oz {double_round = true, input_unsigned "
     "= false, output_unsigned = false, per_channel = false, scale32 = true}" RESCALE_TYPE
         RESCALE_TAIL,
     "per_channel = false, rounding_mode = #tosa.rounding_mode<DOUBLE_ROUND>, scale32 = true}> :",
     NULL},
    {RESCALE_HEAD "  %0 = \"tosa.rescale\"(%x, %m, %s, %iz, %oz) <{double_round = false, "
                  "input_unsigned = false, output_unsigned = false, per_channel = false, scale32 = "
                  "true}>" RESCALE_TYPE RESCALE_TAIL,
     "rounding_mode = #tosa.rounding_mode<SINGLE_ROUND>", NULL},
    {"func.func @main(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {\n"
     "  %0 = tosa.maximum %a, %b {nan_mode = \"IGNORE\"} : (tensor<3xf32>, tensor<3xf32>) -> "
     "tensor<3xf32>\n"
     "  return %0 : tensor<3xf32>\n}\n",
     "<{nan_mode = #tosa.nan_mode<IGNORE>}>", NULL},
    /* Not an enum spelling: left as a string, which the checker refuses. */
    {RESCALE_HEAD "  %0 = tosa.rescale %x, %m, %s, %iz, %oz {input_unsigned = false, "
                  "output_unsigned = false, per_channel = false, rounding_mode = \"double round\", "
                  "scale32 = true}" RESCALE_TYPE RESCALE_TAIL,
     "rounding_mode = \"double round\"",
     "t.mlir:6:8: error: tosa.rescale: attribute 'rounding_mode' must be a #tosa.rounding_mode"},
};

START_TEST(older_attribute_spellings_are_normalised_on_read) {
  const spelling_case_t *c = &spellings[_i];
  tqc_module_t *m = tt_parse(c->input);
  TT_ASSERT_OK(tqc_module_verify(m));
  char *s = tt_print(m);
  ck_assert_msg(strstr(s, c->want) != NULL, "'%s' not in:\n%s", c->want, s);
  ck_assert_msg(strstr(s, "double_round") == NULL, "double_round left in:\n%s", s);
  tq_status_t st = tqc_tosa_check(m);
  if (c->error) {
    ck_assert_ptr_nonnull(st);
    ck_assert_msg(strncmp(tq_status_message(st), c->error, strlen(c->error)) == 0, "got: %s",
                  tq_status_message(st));
    tq_status_free(st);
  } else {
    TT_ASSERT_OK(st);
  }
  tq_free(s);
  tqc_module_destroy(m);
}
END_TEST

/* ---- linalg custom forms -------------------------------------------------------------------- */

/* Named ops get MLIR's body: casts to the output type, multiply, accumulate; fill yields. */
START_TEST(linalg_named_ops_get_the_body_mlir_gives_them) {
  tqc_module_t *m = tt_parse(
      "func.func @main(%a: tensor<2x3xbf16>, %b: tensor<3x4xbf16>) -> tensor<2x4xf32> {\n"
      "  %z = arith.constant 0.0 : f32\n"
      "  %e = tensor.empty() : tensor<2x4xf32>\n"
      "  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x4xf32>) -> tensor<2x4xf32>\n"
      "  %r = linalg.matmul ins(%a, %b : tensor<2x3xbf16>, tensor<3x4xbf16>) "
      "outs(%f : tensor<2x4xf32>) -> tensor<2x4xf32>\n"
      "  return %r : tensor<2x4xf32>\n}\n");
  TT_ASSERT_OK(tqc_module_verify(m));
  char *s = tt_print(m);
  static const char *const want[] = {
      "%1 = \"tensor.empty\"() : () -> tensor<2x4xf32>",
      "%2 = \"linalg.fill\"(%0, %1) <{operandSegmentSizes = array<i32: 1, 1>}> ({\n"
      "    ^bb0(%arg5: f32 loc(unknown), %arg6: f32 loc(unknown)):\n"
      "      \"linalg.yield\"(%arg5) : (f32) -> () loc(unknown)\n",
      "^bb0(%arg2: bf16 loc(unknown), %arg3: bf16 loc(unknown), %arg4: f32 loc(unknown)):\n"
      "      %4 = \"arith.extf\"(%arg2) : (bf16) -> f32 loc(unknown)\n"
      "      %5 = \"arith.extf\"(%arg3) : (bf16) -> f32 loc(unknown)\n"
      "      %6 = \"arith.mulf\"(%4, %5) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32 "
      "loc(unknown)\n"
      "      %7 = \"arith.addf\"(%arg4, %6) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> "
      "f32 loc(unknown)\n",
      "indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, "
      "d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], operandSegmentSizes = array<i32: 2, 1>}>",
  };
  for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
    ck_assert_msg(strstr(s, want[i]) != NULL, "'%s' not in:\n%s", want[i], s);
  tq_free(s);
  tqc_module_destroy(m);
}
END_TEST

/* The scalar ops of a body get MLIR's default properties and their written flags. */
START_TEST(linalg_body_ops_get_mlir_22_properties) {
  tqc_module_t *m = tt_parse(
      "func.func @f(%a: f32, %b: f32, %i: i32, %j: i32) -> () {\n"
      "  %0 = arith.divf %a, %b fastmath<fast> : f32\n"
      "  %1 = arith.muli %i, %j overflow<nsw> : i32\n"
      "  %2 = arith.cmpf olt, %a, %b : f32\n"
      "  %3 = arith.cmpi uge, %i, %j : i32\n"
      "  %4 = arith.trunci %i : i32 to i8\n"
      "  %5 = arith.select %2, %a, %b : f32\n"
      "  %6 = math.exp %a : f32\n"
      "  return\n}\n");
  TT_ASSERT_OK(tqc_module_verify(m));
  char *s = tt_print(m);
  static const char *const want[] = {
      "\"arith.divf\"(%arg0, %arg1) <{fastmath = #arith.fastmath<fast>}> : (f32, f32) -> f32",
      "\"arith.muli\"(%arg2, %arg3) <{overflowFlags = #arith.overflow<nsw>}> : (i32, i32) -> i32",
      "\"arith.cmpf\"(%arg0, %arg1) <{fastmath = #arith.fastmath<none>, predicate = 4 : i64}> : "
      "(f32, f32) -> i1",
      "\"arith.cmpi\"(%arg2, %arg3) <{predicate = 9 : i64}> : (i32, i32) -> i1",
      "\"arith.trunci\"(%arg2) <{overflowFlags = #arith.overflow<none>}> : (i32) -> i8",
      "\"arith.select\"(%2, %arg0, %arg1) : (i1, f32, f32) -> f32",
      "\"math.exp\"(%arg0) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32",
  };
  for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
    ck_assert_msg(strstr(s, want[i]) != NULL, "'%s' not in:\n%s", want[i], s);
  tq_free(s);
  tqc_module_destroy(m);
}
END_TEST

typedef struct bad_case_s {
  const char *input;
  const char *error; /* the start of the parser's or the TOSA checker's message */
} bad_case_t;

#define GEN_HEAD                                            \
  "#id = affine_map<(d0) -> (d0)>\n"                        \
  "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n" \
  "  %e = tensor.empty() : tensor<4xf32>\n"

static const bad_case_t bad_linalg[] = {
    {"func.func @main(%n: index) -> () {\n  %e = tensor.empty(%n) : tensor<?xf32>\n  return\n}\n",
     "t.mlir:2:21: error: tensor.empty with dynamic sizes is not supported"},
    {"func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>, %c: tensor<2x2xf32>) -> () {\n"
     "  %r = linalg.matmul indexing_maps = [] ins(%a, %b : tensor<2x3xf32>, tensor<3x2xf32>) "
     "outs(%c : tensor<2x2xf32>) -> tensor<2x2xf32>\n  return\n}\n",
     "t.mlir:2:22: error: linalg.matmul with explicit indexing_maps is not supported"},
    {"func.func @main(%a: tensor<2xf32>) -> () {\n"
     "  %r = linalg.fill ins(%a, %a : tensor<2xf32>, tensor<2xf32>) outs(%a : tensor<2xf32>) "
     "-> tensor<2xf32>\n  return\n}\n",
     "t.mlir:2:8: error: 'linalg.fill' takes one input and one output"},
    {"func.func @main(%a: f32) -> () {\n  %r = arith.cmpf bogus, %a, %a : f32\n  return\n}\n",
     "t.mlir:2:19: error: expected a comparison predicate"},
    {"func.func @main(%a: tensor<2xf32>) -> () {\n"
     "  %r = linalg.generic {indexing_maps = [], iterator_types = []} ins(%a : tensor<2xf32>) "
     "{\n  }\n  return\n}\n",
     "t.mlir:2:89: error: expected 'outs(...)'"},
    /* The TOSA checker: what the reference interpreter cannot run. */
    {GEN_HEAD "  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = [\"parallel\"]} "
              "ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {\n"
              "  ^bb0(%in: f32, %out: f32):\n"
              "    %s = math.sin %in : f32\n"
              "    linalg.yield %s : f32\n  } -> tensor<4xf32>\n  return %r : tensor<4xf32>\n}\n",
     "t.mlir:6:10: error: custom assembly form of 'math.sin' is not supported"},
    {GEN_HEAD "  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = [\"parallel\"]} "
              "ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {\n"
              "  ^bb0(%in: f32, %out: f32):\n"
              "    %s = \"math.sin\"(%in) : (f32) -> f32\n"
              "    linalg.yield %s : f32\n  } -> tensor<4xf32>\n  return %r : tensor<4xf32>\n}\n",
     "t.mlir:4:8: error: linalg.generic: the body op math.sin is not supported"},
    {"#m = affine_map<(d0, d1) -> (d0 + d1)>\n"
     "#n = affine_map<(d0, d1) -> (d0)>\n"
     "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
     "  %e = tensor.empty() : tensor<4xf32>\n"
     "  %r = linalg.generic {indexing_maps = [#m, #n], iterator_types = [\"parallel\", "
     "\"reduction\"]} ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {\n"
     "  ^bb0(%in: f32, %out: f32):\n"
     "    linalg.yield %in : f32\n  } -> tensor<4xf32>\n  return %r : tensor<4xf32>\n}\n",
     "t.mlir:5:8: error: linalg.generic: indexing map 0: a map whose results are "
     "not loop dimensions and 0 is not supported"},
    {GEN_HEAD "  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = [\"window\"]} "
              "ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {\n"
              "  ^bb0(%in: f32, %out: f32):\n"
              "    linalg.yield %in : f32\n  } -> tensor<4xf32>\n  return %r : tensor<4xf32>\n}\n",
     "t.mlir:4:8: error: linalg.generic: an iterator type other than parallel or "
     "reduction is not supported"},
};

START_TEST(linalg_ops_the_interpreter_cannot_run_are_refused_where_written) {
  const bad_case_t *c = &bad_linalg[_i];
  tqc_module_t *m = NULL;
  tq_status_t st = tqc_module_parse("t.mlir", c->input, strlen(c->input), NULL, &m);
  if (!st) st = tqc_module_verify(m);
  if (!st) st = tqc_tosa_check(m);
  ck_assert_msg(st != NULL, "case %d: expected '%s'", _i, c->error);
  ck_assert_int_eq(tq_status_code(st), TQ_INVALID_INPUT);
  ck_assert_msg(strncmp(tq_status_message(st), c->error, strlen(c->error)) == 0,
                "case %d: got '%s'", _i, tq_status_message(st));
  tq_status_free(st);
  tqc_module_destroy(m);
}
END_TEST

Suite *front_end_suite(void) {
  Suite *s = suite_create("front_end");
  TCase *tc = tcase_create("models");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, front_end_models_check_compile_and_round_trip);
  tcase_add_test(tc, front_end_models_print_as_mlir_opt_22_does);
  suite_add_tcase(s, tc);
  tc = tcase_create("forms");
  tcase_add_loop_test(tc, older_attribute_spellings_are_normalised_on_read, 0,
                      (int)(sizeof(spellings) / sizeof(spellings[0])));
  tcase_add_test(tc, linalg_named_ops_get_the_body_mlir_gives_them);
  tcase_add_test(tc, linalg_body_ops_get_mlir_22_properties);
  tcase_add_loop_test(tc, linalg_ops_the_interpreter_cannot_run_are_refused_where_written, 0,
                      (int)(sizeof(bad_linalg) / sizeof(bad_linalg[0])));
  suite_add_tcase(s, tc);
  return s;
}
