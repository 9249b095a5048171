/* TOSA semantics (tqc_tosa_check): every corpus model passes; each rule, broken on its own in a
 * small model that the generic verifier accepts, gives a located diagnostic naming the op and
 * the quantity; valid edge cases (broadcasts, rank 0, the documented non-TOSA combinations) pass.
 *
 * "MLIR rejects it too" notes were checked with /usr/lib/llvm-22/bin/mlir-opt on the case's text;
 * "--tosa-validate" means mlir-opt rejects it only with
 * --tosa-attach-target="profiles=pro_int,pro_fp extensions=int16,int4,bf16"
 * --tosa-validate="strict-op-spec-alignment" (TOSA's profile rules), not with its op verifier.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "torq/base/file.h"
#include "torq/base/status.h"
#include "torq/compiler/ir.h"
#include "torq/compiler/mlir.h"
#include "torq/compiler/tosa.h"

Suite *tosa_check_suite(void);

/* ---- Helpers -------------------------------------------------------------------------------- */

static void fail_status(tq_status_t st, const char *what) {
  char *text = tq_status_format(st, 1);
  tq_status_free(st);
  ck_abort_msg("%s: unexpected status: %s", what, text ? text : "(oom)");
}

/* Parses and verifies `text` as "t.mlir" (both must succeed), then runs the TOSA check and
 * returns its status. */
static tq_status_t check_text(const char *text) {
  tqc_module_t *m = NULL;
  tq_status_t st = tqc_module_parse("t.mlir", text, strlen(text), NULL, &m);
  if (st) fail_status(st, "parse");
  st = tqc_module_verify(m);
  if (st) {
    tqc_module_destroy(m);
    fail_status(st, "verify");
  }
  st = tqc_tosa_check(m);
  tqc_module_destroy(m);
  return st;
}

/* ---- Models --------------------------------------------------------------------------------- */

/* Each macro writes one MLIR line per string line; the comment says where the op under test
 * is. */
/* clang-format off */

/* One op on function arguments: `%0 = OP OPERANDS : (IN) -> OUT` at line 2, column 8. */
#define ONE_OP(ARGS, OP, OPERANDS, IN, OUT)                                                        \
  "func.func @main(" ARGS ") -> " OUT " {\n"                                                       \
  "  %0 = " OP " " OPERANDS " : (" IN ") -> " OUT "\n"                                             \
  "  return %0 : " OUT "\n}\n"

/* OP is the op with its operand (%a) and attributes. */
#define UNARY(OP, T, U) ONE_OP("%a: " T, OP, "", T, U)
#define BINARY(OP, T1, T2, U) ONE_OP("%a: " T1 ", %b: " T2, OP, "%a, %b", T1 ", " T2, U)

#define CONST_LINE(NAME, VALUE, TYPE)                                                              \
  "  " NAME " = \"tosa.const\"() <{values = dense<" VALUE "> : " TYPE "}> : () -> " TYPE "\n"

#define SHAPE_LINE(NAME, N, VALUES)                                                                \
  "  " NAME " = tosa.const_shape {values = dense<" VALUES "> : tensor<" N "xindex>} : () -> "      \
  "!tosa.shape<" N ">\n"

/* A constant at line 2, then the op at line 3, column 8. */
#define WITH_CONST(ARGS, CNAME, CVAL, CTYPE, OP, OPERANDS, IN, OUT)                                \
  "func.func @main(" ARGS ") -> " OUT " {\n"                                                       \
  CONST_LINE(CNAME, CVAL, CTYPE)                                                                   \
  "  %0 = " OP " " OPERANDS " : (" IN ") -> " OUT "\n"                                             \
  "  return %0 : " OUT "\n}\n"

#define MUL(T, U, SHIFT)                                                                           \
  WITH_CONST("%a: " T, "%s", SHIFT, "tensor<1xi8>", "tosa.mul", "%a, %a, %s",                      \
             T ", " T ", tensor<1xi8>", U)

/* A convolution with constant zero points, both ZIV (lines 2, 3); the op at line 4, column 8. */
#define CONV(OP, IN, W, B, OUT, ZIT, ZIV, ZWT, ATTRS)                                              \
  "func.func @main(%a: tensor<" IN ">, %w: tensor<" W ">, %b: tensor<" B ">) -> tensor<" OUT       \
  "> {\n"                                                                                          \
  CONST_LINE("%zi", ZIV, "tensor<1x" ZIT ">")                                                      \
  CONST_LINE("%zw", ZIV, "tensor<1x" ZWT ">")                                                      \
  "  %0 = " OP " %a, %w, %b, %zi, %zw {" ATTRS "} : (tensor<" IN ">, tensor<" W ">, tensor<" B     \
  ">, tensor<1x" ZIT ">, tensor<1x" ZWT ">) -> tensor<" OUT ">\n"                                  \
  "  return %0 : tensor<" OUT ">\n}\n"

#define CONV_ATTRS(ACC, PAD, STRIDE, DIL)                                                          \
  "acc_type = " ACC ", dilation = array<i64: " DIL ">, pad = array<i64: " PAD                      \
  ">, stride = array<i64: " STRIDE ">"

#define CONV_I8(IN, W, B, OUT, ATTRS)                                                              \
  CONV("tosa.conv2d", IN "xi8", W "xi8", B "xi32", OUT "xi32", "i8", "0", "i8", ATTRS)

/* matmul with constant zero points (lines 2, 3); the op at line 4, column 8. */
#define MATMUL(A, B, OUT, ZT, ZV)                                                                  \
  "func.func @main(%a: tensor<" A ">, %b: tensor<" B ">) -> tensor<" OUT "> {\n"                   \
  CONST_LINE("%za", ZV, "tensor<1x" ZT ">")                                                        \
  CONST_LINE("%zb", ZV, "tensor<1x" ZT ">")                                                        \
  "  %0 = tosa.matmul %a, %b, %za, %zb : (tensor<" A ">, tensor<" B ">, tensor<1x" ZT              \
  ">, tensor<1x" ZT ">) -> tensor<" OUT ">\n"                                                      \
  "  return %0 : tensor<" OUT ">\n}\n"

#define MAX_POOL(IN, OUT, KERNEL, PAD, STRIDE)                                                     \
  UNARY("tosa.max_pool2d %a {kernel = array<i64: " KERNEL ">, pad = array<i64: " PAD               \
        ">, stride = array<i64: " STRIDE ">}",                                                     \
        "tensor<" IN ">", "tensor<" OUT ">")

/* A shape constant at line 2, then the op at line 3, column 8. */
#define WITH_SHAPE(ARGS, N, VALUES, OP, OPERANDS, IN, OUT)                                         \
  "func.func @main(" ARGS ") -> " OUT " {\n"                                                       \
  SHAPE_LINE("%s", N, VALUES)                                                                      \
  "  %0 = " OP " " OPERANDS " : (" IN ") -> " OUT "\n"                                             \
  "  return %0 : " OUT "\n}\n"

#define RESHAPE(IN, N, VALUES, OUT)                                                                \
  WITH_SHAPE("%a: " IN, N, VALUES, "tosa.reshape", "%a, %s", IN ", !tosa.shape<" N ">", OUT)

/* Two shape constants (lines 2, 3), the op at line 4, column 8. */
#define SLICE(IN, N, START, SIZE, OUT)                                                             \
  "func.func @main(%a: " IN ") -> " OUT " {\n"                                                     \
  SHAPE_LINE("%s", N, START)                                                                       \
  SHAPE_LINE("%z", N, SIZE)                                                                        \
  "  %0 = tosa.slice %a, %s, %z : (" IN ", !tosa.shape<" N ">, !tosa.shape<" N ">) -> " OUT "\n"   \
  "  return %0 : " OUT "\n}\n"

/* A shape (line 2) and a pad constant (line 3); the op at line 4, column 8. */
#define PAD(IN, N, PADDING, OUT)                                                                   \
  "func.func @main(%a: " IN ") -> " OUT " {\n"                                                     \
  SHAPE_LINE("%s", N, PADDING)                                                                     \
  CONST_LINE("%c", "0", "tensor<1xi8>")                                                            \
  "  %0 = tosa.pad %a, %s, %c : (" IN ", !tosa.shape<" N ">, tensor<1xi8>) -> " OUT "\n"           \
  "  return %0 : " OUT "\n}\n"

/* rescale with its four constants (lines 2 to 5); the op at line 6, column 8. */
#define RESCALE(IN, OUT, MT, NC, ZIT, ZIV, ZOT, ATTRS)                                             \
  "func.func @main(%a: " IN ") -> " OUT " {\n"                                                     \
  CONST_LINE("%m", "16384", "tensor<" NC "x" MT ">")                                               \
  CONST_LINE("%s", "10", "tensor<" NC "xi8>")                                                      \
  CONST_LINE("%zi", ZIV, "tensor<1x" ZIT ">")                                                      \
  CONST_LINE("%zo", "0", "tensor<1x" ZOT ">")                                                      \
  "  %0 = tosa.rescale %a, %m, %s, %zi, %zo {" ATTRS "} : (" IN ", tensor<" NC "x" MT              \
  ">, tensor<" NC "xi8>, tensor<1x" ZIT ">, tensor<1x" ZOT ">) -> " OUT "\n"                       \
  "  return %0 : " OUT "\n}\n"

#define RESCALE_ATTRS(SCALE32, MODE, PER_CHANNEL)                                                  \
  "input_unsigned = false, output_unsigned = false, per_channel = " PER_CHANNEL                    \
  ", rounding_mode = " MODE ", scale32 = " SCALE32

/* resize with its three shapes (lines 2 to 4); the op at line 5, column 8. */
#define RESIZE(IN, OUT, SCALE, OFFSET, BORDER, MODE)                                               \
  "func.func @main(%a: " IN ") -> " OUT " {\n"                                                     \
  SHAPE_LINE("%s", "4", SCALE)                                                                     \
  SHAPE_LINE("%o", "2", OFFSET)                                                                    \
  SHAPE_LINE("%b", "2", BORDER)                                                                    \
  "  %0 = tosa.resize %a, %s, %o, %b {mode = " MODE "} : (" IN                                     \
  ", !tosa.shape<4>, !tosa.shape<2>, !tosa.shape<2>) -> " OUT "\n"                                 \
  "  return %0 : " OUT "\n}\n"

/* tensor.extract_slice at line 2, column 8. */
#define EXTRACT_SLICE(IN, OFFSETS, SIZES, STRIDES, OUT)                                            \
  "func.func @main(%a: " IN ") -> " OUT " {\n"                                                     \
  "  %0 = tensor.extract_slice %a[" OFFSETS "] [" SIZES "] [" STRIDES "] : " IN " to " OUT "\n"    \
  "  return %0 : " OUT "\n}\n"

/* clang-format on */

/* ---- Rules, each broken once ---------------------------------------------------------------- */

typedef struct bad_case_s {
  const char *name;
  const char *text;
  unsigned line, col;
  const char *want; /* a substring of the message */
} bad_case_t;

static const bad_case_t bad_cases[] = {
    /* Ops the compiler cannot lower. */
    {"op of another dialect", UNARY("\"foo.bar\"(%a)", "tensor<2xi8>", "tensor<2xi8>"), 2, 8,
     "unsupported op 'foo.bar'"},
    {"arith op other than constant",
     ONE_OP("%a: tensor<2xi32>", "\"arith.addi\"", "(%a, %a)", "tensor<2xi32>, tensor<2xi32>",
            "tensor<2xi32>"),
     2, 8, "unsupported op 'arith.addi'"},
    {"unknown tosa op", UNARY("\"tosa.frobnicate\"(%a)", "tensor<2xi8>", "tensor<2xi8>"), 2, 8,
     "unsupported op 'tosa.frobnicate'"},

    /* Static shapes only: the compiler cannot tile anything else (mlir-opt's op verifier accepts
     * all three; its --tosa-validate level check rejects them). */
    {"dynamic result dimension",
     "func.func @main(%a: tensor<2x4xi32>) -> tensor<2x4xi32> {\n"
     "  %0 = tosa.abs %a : (tensor<2x4xi32>) -> tensor<?x4xi32>\n"
     "  %1 = tosa.abs %0 : (tensor<?x4xi32>) -> tensor<2x4xi32>\n"
     "  return %1 : tensor<2x4xi32>\n}\n",
     2, 8, "tosa.abs: dynamic shapes are not supported: result #0 has type tensor<?x4xi32>"},
    {"dynamic function argument", UNARY("tosa.abs %a", "tensor<?x4xi32>", "tensor<2x4xi32>"), 1, 1,
     "func.func: dynamic shapes are not supported: argument #0 has type tensor<?x4xi32>"},
    {"unranked operand",
     "func.func @main(%a: tensor<2xi32>) -> tensor<2xi32> {\n"
     "  %0 = tosa.abs %a : (tensor<2xi32>) -> tensor<*xi32>\n"
     "  %1 = tosa.abs %0 : (tensor<*xi32>) -> tensor<2xi32>\n"
     "  return %1 : tensor<2xi32>\n}\n",
     2, 8, "dynamic shapes are not supported"},
    /* MLIR rejects it too ("must be tosa-conformant tensor"). */
    {"empty dimension", UNARY("tosa.abs %a", "tensor<2x0xi32>", "tensor<2x0xi32>"), 2, 8,
     "tosa.abs: operand #0 has an empty dimension"},

    /* Operand counts and element types. MLIR rejects the count, logical_and of i8 and the unary
     * result type too. */
    {"operand count",
     ONE_OP("%a: tensor<2xi32>", "\"tosa.add\"", "(%a, %a, %a)",
            "tensor<2xi32>, tensor<2xi32>, tensor<2xi32>", "tensor<2xi32>"),
     2, 8, "tosa.add: expected 2 operands, got 3"},
    /* --tosa-validate rejects the next two too. */
    {"abs of i8", UNARY("tosa.abs %a", "tensor<2xi8>", "tensor<2xi8>"), 2, 8,
     "tosa.abs: input element type i8 is not supported (expected i32, f16, bf16, f32)"},
    {"add of i16", BINARY("tosa.add", "tensor<2xi16>", "tensor<2xi16>", "tensor<2xi16>"), 2, 8,
     "tosa.add: input element type i16 is not supported"},
    {"logical_and of i8",
     BINARY("tosa.logical_and", "tensor<2xi8>", "tensor<2xi8>", "tensor<2xi8>"), 2, 8,
     "tosa.logical_and: input element type i8 is not supported (expected i1)"},
    {"unary result type", UNARY("tosa.exp %a", "tensor<2xf32>", "tensor<2xbf16>"), 2, 8,
     "tosa.exp: result element type bf16 does not match the expected f32"},

    /* Broadcasting. MLIR rejects all three. */
    {"broadcast of unequal dimensions",
     BINARY("tosa.add", "tensor<2x3xi32>", "tensor<2x4xi32>", "tensor<2x4xi32>"), 2, 8,
     "tosa.add: operand shapes 2x3 and 2x4 do not broadcast (dimension 1)"},
    {"broadcast of unequal ranks",
     BINARY("tosa.sub", "tensor<2x3xi32>", "tensor<3xi32>", "tensor<2x3xi32>"), 2, 8,
     "tosa.sub: operands #0 and #1 have different ranks (2 and 1)"},
    {"broadcast result shape",
     BINARY("tosa.maximum", "tensor<2x3xi32>", "tensor<1x3xi32>", "tensor<1x3xi32>"), 2, 8,
     "tosa.maximum: result shape 1x3 does not match the inferred 2x3"},

    /* Comparisons give i1 (MLIR rejects it too). */
    {"comparison result type",
     BINARY("tosa.greater", "tensor<4xi32>", "tensor<4xi32>", "tensor<4xi32>"), 2, 8,
     "tosa.greater: result element type i32 is not supported (expected i1)"},
    {"select condition type",
     ONE_OP("%c: tensor<4xi8>, %a: tensor<4xi8>", "tosa.select", "%c, %a, %a",
            "tensor<4xi8>, tensor<4xi8>, tensor<4xi8>", "tensor<4xi8>"),
     2, 8, "tosa.select: condition element type i8 is not supported (expected i1)"},
    /* mul: --tosa-validate rejects all three too; MLIR rejects the missing round. */
    {"mul of i8 into i8", MUL("tensor<2x3xi8>", "tensor<2x3xi8>", "0"), 3, 8,
     "tosa.mul: result element type i8 is not supported (expected i32)"},
    {"mul shift of i8", MUL("tensor<2x3xi8>", "tensor<2x3xi32>", "1"), 3, 8,
     "tosa.mul: shift 1 is out of range"},
    {"mul shift not constant",
     ONE_OP("%a: tensor<2xi32>, %s: tensor<1xi8>", "tosa.mul", "%a, %a, %s",
            "tensor<2xi32>, tensor<2xi32>, tensor<1xi8>", "tensor<2xi32>"),
     2, 8, "tosa.mul: shift (operand #2) must be a constant"},
    {"arithmetic_right_shift without round",
     BINARY("tosa.arithmetic_right_shift", "tensor<2xi32>", "tensor<2xi32>", "tensor<2xi32>"), 2, 8,
     "tosa.arithmetic_right_shift: missing attribute 'round'"},

    /* conv2d. MLIR rejects the first seven too (the first for its bias, which it compares with the
     * declared result); it does not compare the weight's channels with the input's. */
    {"conv2d result shape",
     CONV_I8("1x16x16x4", "16x3x3x4", "16", "1x16x16x8",
             CONV_ATTRS("i32", "1, 1, 1, 1", "1, 1", "1, 1")),
     4, 8, "tosa.conv2d: result shape 1x16x16x8 does not match the inferred 1x16x16x16"},
    {"conv2d pad count",
     CONV_I8("1x8x8x4", "8x3x3x4", "8", "1x6x6x8", CONV_ATTRS("i32", "0, 0, 0", "1, 1", "1, 1")), 4,
     8, "tosa.conv2d: attribute 'pad' has 3 values, expected 4"},
    {"conv2d stride zero",
     CONV_I8("1x8x8x4", "8x3x3x4", "8", "1x6x6x8", CONV_ATTRS("i32", "0, 0, 0, 0", "0, 1", "1, 1")),
     4, 8, "tosa.conv2d: attribute 'stride' value 0 is below 1"},
    {"conv2d stride does not divide",
     CONV_I8("1x8x8x4", "8x3x3x4", "8", "1x3x3x8", CONV_ATTRS("i32", "0, 0, 0, 0", "2, 2", "1, 1")),
     4, 8,
     "tosa.conv2d: padded input height 8 minus kernel extent 3 is 5, not divisible by "
     "stride 2"},
    {"conv2d accumulator type",
     CONV_I8("1x8x8x4", "8x3x3x4", "8", "1x6x6x8", CONV_ATTRS("i48", "0, 0, 0, 0", "1, 1", "1, 1")),
     4, 8, "tosa.conv2d: acc_type i48 is not supported with i8 input (expected i32)"},
    {"conv2d missing dilation",
     CONV_I8("1x8x8x4", "8x3x3x4", "8", "1x6x6x8",
             "acc_type = i32, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>"),
     4, 8, "tosa.conv2d: missing attribute 'dilation'"},
    {"conv2d bias size",
     CONV_I8("1x8x8x4", "8x3x3x4", "3", "1x6x6x8", CONV_ATTRS("i32", "0, 0, 0, 0", "1, 1", "1, 1")),
     4, 8, "tosa.conv2d: bias size 3 must be 1 or the output channels 8"},
    {"conv2d weight channels",
     CONV_I8("1x8x8x4", "8x3x3x5", "8", "1x6x6x8", CONV_ATTRS("i32", "0, 0, 0, 0", "1, 1", "1, 1")),
     4, 8, "tosa.conv2d: weight input channels 5 do not match the input channels 4"},
    /* --tosa-validate rejects the next one, MLIR the two after it. */
    {"conv2d i16 result type",
     CONV("tosa.conv2d", "1x8x8x4xi16", "8x3x3x4xi8", "8xi32", "1x6x6x8xi32", "i16", "0", "i8",
          CONV_ATTRS("i48", "0, 0, 0, 0", "1, 1", "1, 1")),
     4, 8,
     "tosa.conv2d: result element type i32 is not supported with i16 input (expected i48, "
     "i64)"},
    {"conv2d i16 input zero point",
     CONV("tosa.conv2d", "1x8x8x4xi16", "8x3x3x4xi8", "8xi48", "1x6x6x8xi48", "i16", "3", "i8",
          CONV_ATTRS("i48", "0, 0, 0, 0", "1, 1", "1, 1")),
     4, 8, "tosa.conv2d: input_zp must be 0 for i16 data, got 3"},
    {"depthwise_conv2d output channels",
     CONV("tosa.depthwise_conv2d", "1x8x8x4xi8", "3x3x4x2xi8", "8xi32", "1x6x6x4xi32", "i8", "0",
          "i8", CONV_ATTRS("i32", "0, 0, 0, 0", "1, 1", "1, 1")),
     4, 8, "tosa.depthwise_conv2d: result shape 1x6x6x4 does not match the inferred 1x6x6x8"},

    /* matmul: the first is not in the documented non-TOSA list either (--tosa-validate rejects
     * it); MLIR 22 does not compare the inner dimensions, which TOSA requires equal. */
    {"matmul i8 into i8", MATMUL("1x4x8xi8", "1x8x3xi8", "1x4x3xi8", "i8", "0"), 4, 8,
     "tosa.matmul: result element type i8 is not supported with i8 input (expected i16, i32)"},
    {"matmul inner dimensions", MATMUL("1x4x8xi8", "1x7x3xi8", "1x4x3xi32", "i8", "0"), 4, 8,
     "tosa.matmul: B rows 7 do not match A columns 8"},

    /* Pooling (MLIR rejects all four too). */
    {"max_pool2d padding not below kernel",
     MAX_POOL("1x8x8x4xi8", "1x9x8x4xi8", "3, 3", "3, 0, 0, 0", "1, 1"), 2, 8,
     "tosa.max_pool2d: padding 3, 0 must be less than the kernel height 3"},
    {"max_pool2d kernel zero", MAX_POOL("1x8x8x4xi8", "1x8x8x4xi8", "0, 1", "0, 0, 0, 0", "1, 1"),
     2, 8, "tosa.max_pool2d: attribute 'kernel' value 0 is below 1"},
    {"max_pool2d result shape", MAX_POOL("1x8x8x4xi8", "1x4x4x4xi8", "2, 2", "0, 0, 0, 0", "1, 1"),
     2, 8, "tosa.max_pool2d: result shape 1x4x4x4 does not match the inferred 1x7x7x4"},
    {"avg_pool2d accumulator type",
     "func.func @main(%a: tensor<1x4x4x2xi8>) -> tensor<1x1x1x2xi8> {\n"
     "  %z = \"tosa.const\"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>\n"
     "  %0 = tosa.avg_pool2d %a, %z, %z {acc_type = i16, kernel = array<i64: 4, 4>, pad = "
     "array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xi8>, tensor<1xi8>, "
     "tensor<1xi8>) -> tensor<1x1x1x2xi8>\n"
     "  return %0 : tensor<1x1x1x2xi8>\n}\n",
     3, 8, "tosa.avg_pool2d: acc_type i16 is not supported with i8 input (expected i32)"},

    /* Data layout. MLIR rejects all but the two slices (MLIR 22 checks neither the bounds, a TOSA
     * ERROR_IF, nor the result shape of tosa.slice) and the negative padding (--tosa-validate
     * only). */
    {"transpose perms not a permutation",
     UNARY("tosa.transpose %a {perms = array<i32: 0, 0, 1>}", "tensor<2x3x4xi8>",
           "tensor<2x2x3xi8>"),
     2, 8, "tosa.transpose: perms 0x0x1 is not a permutation of 0..2"},
    {"transpose result shape",
     UNARY("tosa.transpose %a {perms = array<i32: 2, 0, 1>}", "tensor<2x3x4xi8>",
           "tensor<2x3x4xi8>"),
     2, 8, "tosa.transpose: result shape 2x3x4 does not match the inferred 4x2x3"},
    {"reshape element count", RESHAPE("tensor<4x6xi8>", "2", "[5, 5]", "tensor<5x5xi8>"), 3, 8,
     "tosa.reshape: result shape 5x5 has 25 elements, the input 4x6 has 24"},
    {"reshape shape operand", RESHAPE("tensor<4x6xi8>", "2", "[3, 8]", "tensor<8x3xi8>"), 3, 8,
     "tosa.reshape: shape operand 3x8 does not match the result shape 8x3"},
    {"reshape shape not constant",
     ONE_OP("%a: tensor<4x6xi8>, %s: !tosa.shape<2>", "tosa.reshape", "%a, %s",
            "tensor<4x6xi8>, !tosa.shape<2>", "tensor<8x3xi8>"),
     2, 8, "tosa.reshape: operand #1 must be defined by tosa.const_shape"},
    {"slice outside the input", SLICE("tensor<4x6xi8>", "2", "[2, 0]", "[3, 6]", "tensor<3x6xi8>"),
     4, 8, "tosa.slice: slice [2, 2 + 3) of dimension 0 is outside the input size 4"},
    {"slice result shape", SLICE("tensor<4x6xi8>", "2", "[1, 1]", "[2, 5]", "tensor<2x4xi8>"), 4, 8,
     "tosa.slice: result shape 2x4 does not match the inferred 2x5"},
    {"pad negative", PAD("tensor<4x6xi8>", "4", "[-1, 0, 0, 1]", "tensor<3x7xi8>"), 4, 8,
     "tosa.pad: padding of dimension 0 is negative (-1, 0)"},
    {"pad result shape", PAD("tensor<4x6xi8>", "4", "[1, 0, 0, 1]", "tensor<5x6xi8>"), 4, 8,
     "tosa.pad: result shape 5x6 does not match the inferred 5x7"},
    {"pad shape count", PAD("tensor<4x6xi8>", "2", "[1, 1]", "tensor<6x6xi8>"), 4, 8,
     "tosa.pad: padding (operand #1) has 2 values, expected 4"},
    {"tile multiple zero",
     WITH_SHAPE("%a: tensor<4x6xi8>", "2", "[1, 0]", "tosa.tile", "%a, %s",
                "tensor<4x6xi8>, !tosa.shape<2>", "tensor<4x6xi8>"),
     3, 8, "tosa.tile: multiple 0 of dimension 1 must be >= 1"},
    {"concat axis out of range",
     ONE_OP("%a: tensor<1x4xi8>, %b: tensor<1x4xi8>", "tosa.concat", "%a, %b {axis = 2 : i32}",
            "tensor<1x4xi8>, tensor<1x4xi8>", "tensor<2x4xi8>"),
     2, 8, "tosa.concat: axis 2 is out of range for rank 2"},
    {"concat other dimension",
     ONE_OP("%a: tensor<1x4xi8>, %b: tensor<1x5xi8>", "tosa.concat", "%a, %b {axis = 0 : i32}",
            "tensor<1x4xi8>, tensor<1x5xi8>", "tensor<2x4xi8>"),
     2, 8, "tosa.concat: input #1 shape 1x5 differs from input #0 shape 1x4 outside axis 0"},
    {"reverse axis", UNARY("tosa.reverse %a {axis = 1 : i32}", "tensor<4xi8>", "tensor<4xi8>"), 2,
     8, "tosa.reverse: axis 1 is out of range for rank 1"},

    /* Reductions keep the axis as 1; argmax drops it (MLIR rejects both). */
    {"reduce_sum drops the axis",
     UNARY("tosa.reduce_sum %a {axis = 1 : i32}", "tensor<2x5xi32>", "tensor<2xi32>"), 2, 8,
     "tosa.reduce_sum: result shape 2 does not match the inferred 2x1"},
    {"argmax keeps the axis",
     UNARY("tosa.argmax %a {axis = 1 : i32}", "tensor<2x5xi8>", "tensor<2x1xi32>"), 2, 8,
     "tosa.argmax: result shape 2x1 does not match the inferred 2"},
    {"argmax result type",
     UNARY("tosa.argmax %a {axis = 1 : i32}", "tensor<2x5xi8>", "tensor<2xi8>"), 2, 8,
     "tosa.argmax: result element type i8 is not supported (expected i32)"},

    /* Elementwise with attributes and constants. */
    {"clamp bounds reversed",
     UNARY("tosa.clamp %a {max_val = 5 : i8, min_val = 6 : i8}", "tensor<4xi8>", "tensor<4xi8>"), 2,
     8, "tosa.clamp: min_val 6 is greater than max_val 5"},
    {"clamp bound type",
     UNARY("tosa.clamp %a {max_val = 5 : i16, min_val = 0 : i16}", "tensor<4xi8>", "tensor<4xi8>"),
     2, 8, "tosa.clamp: attribute 'min_val' must be a i8 value"},
    {"cast to the same type", UNARY("tosa.cast %a", "tensor<4xi8>", "tensor<4xi8>"), 2, 8,
     "tosa.cast: cast from i8 to i8 is not supported"},
    {"negate zero point of i16",
     WITH_CONST("%a: tensor<4xi16>", "%z", "5", "tensor<1xi16>", "tosa.negate", "%a, %z, %z",
                "tensor<4xi16>, tensor<1xi16>, tensor<1xi16>", "tensor<4xi16>"),
     3, 8, "tosa.negate: input1_zp must be 0 for i16 data, got 5"},
    {"table size",
     WITH_CONST("%a: tensor<4xi8>", "%t", "0", "tensor<513xi8>", "tosa.table", "%a, %t",
                "tensor<4xi8>, tensor<513xi8>", "tensor<4xi8>"),
     3, 8, "tosa.table: table shape 513 does not match the inferred 256"},
    {"table of i16 gives i32",
     WITH_CONST("%a: tensor<4xi16>", "%t", "0", "tensor<513xi16>", "tosa.table", "%a, %t",
                "tensor<4xi16>, tensor<513xi16>", "tensor<4xi16>"),
     3, 8, "tosa.table: result element type i16 is not supported (expected i32)"},

    /* rescale (MLIR's op verifier rejects the last three; --tosa-validate the first). */
    {"rescale DOUBLE_ROUND without scale32",
     RESCALE("tensor<4xi8>", "tensor<4xi32>", "i16", "1", "i8", "0", "i32",
             RESCALE_ATTRS("false", "DOUBLE_ROUND", "false")),
     6, 8, "tosa.rescale: rounding_mode DOUBLE_ROUND needs scale32 = true"},
    {"rescale per-channel multiplier size",
     RESCALE("tensor<2x3xi8>", "tensor<2x3xi32>", "i32", "2", "i8", "0", "i32",
             RESCALE_ATTRS("true", "SINGLE_ROUND", "true")),
     6, 8, "tosa.rescale: multiplier shape 2 does not match the inferred 3"},
    {"rescale input zero point of i16",
     RESCALE("tensor<4xi16>", "tensor<4xi8>", "i32", "1", "i16", "3", "i8",
             RESCALE_ATTRS("true", "SINGLE_ROUND", "false")),
     6, 8, "tosa.rescale: input_zp must be 0 for i16 data, got 3"},
    {"rescale missing rounding_mode",
     RESCALE("tensor<4xi8>", "tensor<4xi32>", "i32", "1", "i8", "0", "i32",
             "input_unsigned = false, output_unsigned = false, per_channel = false, "
             "scale32 = true"),
     6, 8, "tosa.rescale: missing attribute 'rounding_mode'"},

    /* gather, scatter, resize (MLIR rejects the first three; it does not tie the type of a
     * bilinear result to the mode, but TOSA's RESIZE table does). */
    {"gather result shape",
     BINARY("tosa.gather", "tensor<1x8x4xi8>", "tensor<1x3xi32>", "tensor<1x8x4xi8>"), 2, 8,
     "tosa.gather: result shape 1x8x4 does not match the inferred 1x3x4"},
    {"scatter more indices than values",
     ONE_OP("%v: tensor<1x4x2xi8>, %i: tensor<1x6xi32>, %x: tensor<1x6x2xi8>", "tosa.scatter",
            "%v, %i, %x", "tensor<1x4x2xi8>, tensor<1x6xi32>, tensor<1x6x2xi8>",
            "tensor<1x4x2xi8>"),
     2, 8, "tosa.scatter: W 6 (indices per batch) exceeds K 4 (values per batch)"},
    {"resize result shape",
     RESIZE("tensor<1x4x4x2xi8>", "tensor<1x7x8x2xi8>", "[4, 2, 4, 2]", "-1", "1",
            "NEAREST_NEIGHBOR"),
     5, 8, "tosa.resize: result shape 1x7x8x2 does not match the inferred 1x8x8x2"},
    {"resize bilinear of i8 gives i32",
     RESIZE("tensor<1x4x4x2xi8>", "tensor<1x8x8x2xi8>", "[4, 2, 4, 2]", "-1", "1", "BILINEAR"), 5,
     8, "tosa.resize: result element type i8 is not supported (expected i32)"},

    /* The non-TOSA slice of the corpus, out of bounds (MLIR rejects it too). */
    {"extract_slice outside the input",
     EXTRACT_SLICE("tensor<2x4xi8>", "0, 2", "2, 3", "1, 1", "tensor<2x3xi8>"), 2, 8,
     "tensor.extract_slice: slice of dimension 1 (offset 2, size 3, stride 1) is outside"},
    {"tosa.const of f64",
     "func.func @main() -> tensor<2xf64> {\n"
     "  %0 = \"tosa.const\"() <{values = dense<1.0> : tensor<2xf64>}> : () -> tensor<2xf64>\n"
     "  return %0 : tensor<2xf64>\n}\n",
     2, 8, "tosa.const: result element type f64 is not supported"},
};

START_TEST(tosa_check_reports_each_broken_rule_at_the_op) {
  const bad_case_t *c = &bad_cases[_i];
  tq_status_t st = check_text(c->text);
  ck_assert_msg(st != NULL, "%s: accepted, expected '%s'", c->name, c->want);
  ck_assert_int_eq(tq_status_code(st), TQ_INVALID_INPUT);
  const char *msg = tq_status_message(st);
  char prefix[64];
  snprintf(prefix, sizeof(prefix), "t.mlir:%u:%u: error: ", c->line, c->col);
  int located = strncmp(msg, prefix, strlen(prefix)) == 0;
  int names = strstr(msg, c->want) != NULL;
  char *copy = strdup(msg);
  tq_status_free(st);
  ck_assert_msg(located && names, "%s: message '%s' does not start with '%s' and contain '%s'",
                c->name, copy ? copy : "?", prefix, c->want);
  free(copy);
}
END_TEST

/* ---- Valid edge cases ----------------------------------------------------------------------- */

typedef struct good_case_s {
  const char *name;
  const char *text;
} good_case_t;

static const good_case_t good_cases[] = {
    {"broadcast both ways",
     BINARY("tosa.add", "tensor<1x3x1xi32>", "tensor<2x1x4xi32>", "tensor<2x3x4xi32>")},
    {"rank 0", BINARY("tosa.add", "tensor<i32>", "tensor<i32>", "tensor<i32>")},
    {"comparison of bf16",
     BINARY("tosa.greater_equal", "tensor<4xbf16>", "tensor<1xbf16>", "tensor<4xi1>")},
    {"select with broadcast",
     ONE_OP("%c: tensor<4x1xi1>, %a: tensor<1x3xi8>", "tosa.select", "%c, %a, %a",
            "tensor<4x1xi1>, tensor<1x3xi8>, tensor<1x3xi8>", "tensor<4x3xi8>")},
    {"mul of i32 with a shift", MUL("tensor<2x3xi32>", "tensor<2x3xi32>", "31")},
    /* Not TOSA 1.0: MLIR 22 accepts an i64 result for i16 x i8. */
    {"conv2d i16 into i64",
     CONV("tosa.conv2d", "1x8x8x4xi16", "8x3x3x4xi8", "8xi64", "1x6x6x8xi64", "i16", "0", "i8",
          CONV_ATTRS("i48", "0, 0, 0, 0", "1, 1", "1, 1"))},
    {"conv2d with dilation, stride and a size-1 bias",
     CONV_I8("1x10x10x4", "8x3x3x4", "1", "1x4x4x8",
             CONV_ATTRS("i32", "1, 0, 0, 1", "2, 2", "2, 2"))},
    {"conv2d of bf16",
     CONV("tosa.conv2d", "1x5x5x3xbf16", "4x3x3x3xbf16", "4xbf16", "1x3x3x4xbf16", "bf16", "0.0",
          "bf16", CONV_ATTRS("f32", "0, 0, 0, 0", "1, 1", "1, 1"))},
    {"conv3d",
     CONV("tosa.conv3d", "1x4x6x6x2xi8", "3x2x3x3x2xi8", "3xi32", "1x3x4x4x3xi32", "i8", "-3", "i8",
          "acc_type = i32, dilation = array<i64: 1, 1, 1>, pad = array<i64: 0, 0, 0, 0, 0, 0>, "
          "stride = array<i64: 1, 1, 1>")},
    {"transpose_conv2d",
     CONV("tosa.transpose_conv2d", "1x4x4x2xi8", "3x3x3x2xi8", "3xi32", "1x9x9x3xi32", "i8", "0",
          "i8", "acc_type = i32, out_pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>")},
    /* The documented non-TOSA matmuls of the corpus. */
    {"matmul i8 into i16", MATMUL("1x4x8xi8", "1x8x3xi8", "1x4x3xi16", "i8", "0")},
    {"matmul i16 into i16", MATMUL("1x4x8xi16", "1x8x3xi16", "1x4x3xi16", "i16", "0")},
    {"matmul bf16 into bf16", MATMUL("2x4x8xbf16", "2x8x3xbf16", "2x4x3xbf16", "bf16", "0.0")},
    {"max_pool2d with padding",
     MAX_POOL("1x8x8x4xi16", "1x4x4x4xi16", "3, 3", "0, 1, 0, 1", "2, 2")},
    {"reshape with -1", RESHAPE("tensor<4x6xi8>", "3", "[2, -1, 3]", "tensor<2x4x3xi8>")},
    {"reshape to rank 0", RESHAPE("tensor<1x1xi32>", "0", "", "tensor<i32>")},
    {"slice to the end", SLICE("tensor<4x6xi8>", "2", "[1, 2]", "[3, -1]", "tensor<3x4xi8>")},
    {"rank-reducing extract_slice",
     EXTRACT_SLICE("tensor<2x4x8xi8>", "0, 1, 0", "1, 2, 4", "1, 1, 2", "tensor<2x4xi8>")},
    {"rescale of unsigned input",
     RESCALE("tensor<4xui8>", "tensor<4xi8>", "i32", "1", "i8", "128", "i8",
             "input_unsigned = true, output_unsigned = false, "
             "per_channel = false, rounding_mode = SINGLE_ROUND, "
             "scale32 = true")},
    {"rescale per channel with a 16-bit multiplier",
     RESCALE("tensor<2x3xi16>", "tensor<2x3xi8>", "i16", "3", "i16", "0", "i8",
             RESCALE_ATTRS("false", "SINGLE_ROUND", "true"))},
    {"resize bilinear",
     RESIZE("tensor<1x4x4x2xi8>", "tensor<1x8x8x2xi32>", "[4, 2, 4, 2]", "-1", "1", "BILINEAR")},
    {"concat of three",
     ONE_OP("%a: tensor<1x2xf32>, %b: tensor<3x2xf32>", "tosa.concat %a, %b, %a {axis = 0 : i32}",
            "", "tensor<1x2xf32>, tensor<3x2xf32>, tensor<1x2xf32>", "tensor<5x2xf32>")},
    {"cast of booleans", UNARY("tosa.cast %a", "tensor<4xi1>", "tensor<4xi16>")},
    {"argmax of rank 1", UNARY("tosa.argmax %a {axis = 0 : i32}", "tensor<7xf32>", "tensor<i32>")},
};

START_TEST(tosa_check_accepts_valid_edge_cases) {
  const good_case_t *c = &good_cases[_i];
  tq_status_t st = check_text(c->text);
  if (st) {
    char *text = tq_status_format(st, 0);
    tq_status_free(st);
    ck_abort_msg("%s: rejected: %s", c->name, text ? text : "(oom)");
  }
}
END_TEST

/* ---- The corpus ----------------------------------------------------------------------------- */

START_TEST(tosa_check_accepts_every_corpus_model) {
  char dir[TT_PATH_MAX], **paths;
  size_t n;
  if (!tt_corpus_paths(dir, &paths, &n)) return;
  for (size_t i = 0; i < n; i++) {
    tqc_module_t *m = NULL;
    tq_status_t st = tqc_module_parse_file(paths[i], NULL, &m);
    if (!st) st = tqc_module_verify(m);
    if (!st) st = tqc_tosa_check(m);
    tqc_module_destroy(m);
    if (st) fail_status(st, paths[i]);
  }
  tq_dir_list_free(paths, n);
  ck_assert_msg(n > 0, "no .mlir files in %s", dir);
}
END_TEST

START_TEST(tosa_is_known_names_the_lowerable_ops) {
  tqc_module_t *m = NULL;
  const char *text =
      "func.func @main(%a: tensor<2xi32>) -> tensor<2xi32> {\n"
      "  %c = arith.constant dense<1> : tensor<2xi32>\n"
      "  %0 = tosa.add %a, %c : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>\n"
      "  %1 = \"tosa.frobnicate\"(%0) : (tensor<2xi32>) -> tensor<2xi32>\n"
      "  %2 = \"foo.bar\"(%1) : (tensor<2xi32>) -> tensor<2xi32>\n"
      "  return %2 : tensor<2xi32>\n}\n";
  tq_status_t st = tqc_module_parse("t.mlir", text, strlen(text), NULL, &m);
  if (st) fail_status(st, "parse");
  const tqc_op_t *f = tqc_module_entry(m);
  ck_assert_ptr_nonnull(f);
  const int want[] = {1, 1, 0, 0, 1};
  size_t i = 0;
  for (const tqc_op_t *op = f->regions[0].blocks[0]->first; op; op = op->next, i++) {
    ck_assert_uint_lt(i, sizeof(want) / sizeof(want[0]));
    ck_assert_msg(tqc_tosa_is_known(op) == want[i], "op #%zu '%.*s'", i, (int)op->name.len,
                  op->name.data);
  }
  ck_assert_uint_eq(i, sizeof(want) / sizeof(want[0]));
  tqc_module_destroy(m);
}
END_TEST

Suite *tosa_check_suite(void) {
  Suite *s = suite_create("tosa_check");
  TCase *tc = tcase_create("rules");
  tcase_add_loop_test(tc, tosa_check_reports_each_broken_rule_at_the_op, 0,
                      (int)(sizeof(bad_cases) / sizeof(bad_cases[0])));
  tcase_add_loop_test(tc, tosa_check_accepts_valid_edge_cases, 0,
                      (int)(sizeof(good_cases) / sizeof(good_cases[0])));
  tcase_add_test(tc, tosa_is_known_names_the_lowerable_ops);
  suite_add_tcase(s, tc);
  TCase *corpus = tcase_create("corpus");
  tcase_set_timeout(corpus, 120);
  tcase_add_test(corpus, tosa_check_accepts_every_corpus_model);
  suite_add_tcase(s, corpus);
  return s;
}
