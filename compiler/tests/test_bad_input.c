/* Bad input for the MLIR front end.
 *
 * Every malformed model must give a located diagnostic (`path:line:col: error: message`, then the
 * source line and a caret under the column), through the library API and through torq-compile,
 * and must never crash, hang or exhaust the process. Inputs that happen to be valid (a truncation
 * that keeps the whole module, a harmless mutation) must parse, verify and print text that parses
 * again to the same text.
 *
 * Corpus-based cases read $TORQ_TESTDATA/tosa_ops; command-line cases run $TORQ_BIN/torq-compile.
 * Either missing: those cases say so and pass. TORQ_VALGRIND scales the big cases down.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "suites.h"
#include "torq/base/alloc.h"
#include "torq/base/file.h"
#include "torq/base/status.h"
#include "torq/base/str.h"
#include "torq/compiler/mlir.h"
#include "tq_test.h"

/* ---- helpers: environment, time, files ------------------------------------------------------ */

static int under_valgrind(void) {
  return getenv("TORQ_VALGRIND") != NULL;
}

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *status_text(tq_status_t status) {
  return status ? tq_status_message(status) : "ok";
}

/* A copy of `len` bytes in an allocation of exactly that size, without a terminator, so that a
 * parser that reads past `len` trips AddressSanitizer or valgrind. */
static char *dup_exact(const char *text, size_t len) {
  char *copy = malloc(len ? len : 1);
  ck_assert_ptr_nonnull(copy);
  if (len) memcpy(copy, text, len);
  return copy;
}

/* The size of corpus model `name`, 0 when it is not there. Called while the suite is built, before
 * any test runs, so it only looks. */
static size_t corpus_size(const char *name) {
  char path[PATH_MAX];
  snprintf(path, sizeof(path), "%.*s/tosa_ops/%s", PATH_MAX - 128, tq_test_testdata(), name);
  struct stat st;
  return stat(path, &st) == 0 ? (size_t)st.st_size : 0;
}

/* Reads corpus model `name` into `out` (initialized here; the caller deinits it). Returns 0 when
 * the corpus is missing (tq_test_corpus: a failure under CI, a counted skip otherwise); a corpus
 * without that model fails the test. */
static int corpus_read(const char *name, tq_buf_t *out) {
  char path[PATH_MAX];
  tq_buf_init(out, 0);
  const char *corpus = tq_test_corpus();
  if (!corpus) return 0;
  snprintf(path, sizeof(path), "%.*s/%s", PATH_MAX - 128, corpus, name);
  tq_status_t status = tq_file_read(path, 0, out);
  ck_assert_msg(status == NULL, "reading %s: %s", path, status_text(status));
  return 1;
}

/* One temporary folder per test case, made and removed by the parent process (an unchecked
 * fixture), so that it goes away even when a forked test fails. */
static char tmp_dir[PATH_MAX];

static void tmp_setup(void) {
  const char *base = getenv("TMPDIR");
  snprintf(tmp_dir, sizeof(tmp_dir), "%s/torq-bad-input-XXXXXX", base && *base ? base : "/tmp");
  if (!mkdtemp(tmp_dir)) {
    fprintf(stderr, "bad_input: mkdtemp %s: %s\n", tmp_dir, strerror(errno));
    abort();
  }
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  return remove(path);
}

static void tmp_teardown(void) {
  nftw(tmp_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* tmp_dir/name into `out`. */
static void tmp_path(const char *name, char out[PATH_MAX]) {
  int n = snprintf(out, PATH_MAX, "%s/%s", tmp_dir, name);
  ck_assert(n > 0 && n < PATH_MAX);
}

static void tmp_write(const char *name, const char *data, size_t len, char out_path[PATH_MAX]) {
  tmp_path(name, out_path);
  tq_status_t status = tq_file_write_atomic(out_path, data, len);
  ck_assert_msg(status == NULL, "writing %s: %s", out_path, status_text(status));
}

/* ---- parsing and checking diagnostics ------------------------------------------------------- */

/* Parses and verifies `text`; on success prints it into `printed` when that is not NULL. Returns
 * the first failure. */
static tq_status_t parse_verify_print(const char *path, const char *text, size_t len,
                                      const tqc_parse_options_t *options, tq_buf_t *printed) {
  tqc_module_t *module = NULL;
  tq_status_t status = tqc_module_parse(path, text, len, options, &module);
  if (status) {
    ck_assert_msg(module == NULL, "%s: a failed parse left a module behind", path);
    return status;
  }
  ck_assert_ptr_nonnull(module);
  status = tqc_module_verify(module);
  if (!status && printed) status = tqc_module_print(module, printed);
  tqc_module_destroy(module);
  return status;
}

/* A valid input: it printed `printed`, which must parse, verify and print to the same text. */
static void check_round_trip(const char *what, const tq_buf_t *printed) {
  ck_assert_msg(printed->len > 0, "%s: printed nothing", what);
  char *copy = dup_exact(printed->data, printed->len);
  tq_buf_t again;
  tq_buf_init(&again, 0);
  tq_status_t status = parse_verify_print("printed.mlir", copy, printed->len, NULL, &again);
  ck_assert_msg(status == NULL, "%s: its printed form does not parse again: %s", what,
                status_text(status));
  ck_assert_msg(again.len == printed->len && memcmp(again.data, printed->data, again.len) == 0,
                "%s: printing the printed form again gives different text", what);
  tq_buf_deinit(&again);
  free(copy);
}

/* Finds line `line` (1-based) of `text`. The line after a final newline exists and is empty
 * (where an end-of-file diagnostic points). Returns 0 past that. */
static int text_line(const char *text, size_t len, long line, const char **out_start,
                     size_t *out_len) {
  const char *p = text, *end = text + len;
  for (long i = 1; i < line; i++) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    if (!nl) return 0;
    p = nl + 1;
  }
  const char *nl = memchr(p, '\n', (size_t)(end - p));
  *out_start = p;
  *out_len = (size_t)((nl ? nl : end) - p);
  return 1;
}

static long line_of_offset(const char *text, size_t offset) {
  long line = 1;
  for (size_t i = 0; i < offset; i++) line += text[i] == '\n';
  return line;
}

/* Printable ASCII and tabs only: a line a diagnostic can echo byte for byte. */
static int is_plain(const char *s, size_t len) {
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)s[i];
    if ((c < 0x20 && c != '\t') || c >= 0x7f) return 0;
  }
  return 1;
}

typedef struct expect_s {
  long line_min, line_max; /* accepted lines */
  long cols[4];            /* accepted columns; all 0: any column on the line */
  const char *words;       /* '|'-separated; one must be in the message (any case); NULL: none */
} expect_t;

static int has_any_word(const char *message, const char *words) {
  char word[64];
  for (const char *w = words; *w;) {
    size_t n = strcspn(w, "|");
    snprintf(word, sizeof(word), "%.*s", (int)n, w);
    if (strcasestr(message, word)) return 1;
    w += n + (w[n] == '|');
  }
  return 0;
}

/* Checks that `diag` is a diagnostic for `text` (named `path`) as `e` expects: the header line,
 * the line and column, the message words, then the echoed source line and the caret under the
 * column. */
static void check_diagnostic(const char *what, const char *diag, const char *path, const char *text,
                             size_t len, const expect_t *e) {
  size_t plen = strlen(path);
  ck_assert_msg(strncmp(diag, path, plen) == 0 && diag[plen] == ':',
                "%s: the diagnostic does not start with '%s:': %.400s", what, path, diag);
  char *end;
  long line = strtol(diag + plen + 1, &end, 10);
  ck_assert_msg(*end == ':', "%s: no line number: %.400s", what, diag);
  long col = strtol(end + 1, &end, 10);
  ck_assert_msg(strncmp(end, ": error: ", 9) == 0, "%s: no ': error: ': %.400s", what, diag);
  const char *message = end + 9;
  const char *header_end = strchr(message, '\n');

  ck_assert_msg(line >= e->line_min && line <= e->line_max,
                "%s: error on line %ld, expected %ld..%ld: %.400s", what, line, e->line_min,
                e->line_max, diag);
  const char *src;
  size_t src_len;
  ck_assert_msg(text_line(text, len, line, &src, &src_len),
                "%s: line %ld is past the end of the input: %.400s", what, line, diag);
  ck_assert_msg(col >= 1 && (size_t)col <= src_len + 1,
                "%s: column %ld is outside line %ld (%zu bytes): %.400s", what, col, line, src_len,
                diag);
  if (e->cols[0]) {
    int ok = 0;
    for (int i = 0; i < 4; i++) ok |= e->cols[i] != 0 && e->cols[i] == col;
    ck_assert_msg(ok, "%s: error at column %ld, expected one of %ld %ld %ld %ld: %.400s", what, col,
                  e->cols[0], e->cols[1], e->cols[2], e->cols[3], diag);
  }
  if (e->words) {
    char *header = strndup(message, header_end ? (size_t)(header_end - message) : strlen(message));
    ck_assert_ptr_nonnull(header);
    int found = has_any_word(header, e->words);
    ck_assert_msg(found, "%s: the message names none of '%s': %.400s", what, e->words, diag);
    free(header);
  }

  ck_assert_msg(header_end != NULL, "%s: no source line after the header: %.400s", what, diag);
  if (!is_plain(src, src_len) || src_len > 4096) return;
  const char *echo = header_end + 1;
  const char *echo_end = strchr(echo, '\n');
  ck_assert_msg(echo_end != NULL, "%s: no caret line: %.400s", what, diag);
  ck_assert_msg((size_t)(echo_end - echo) == src_len && memcmp(echo, src, src_len) == 0,
                "%s: the echoed line is not line %ld of the input: %.400s", what, line, diag);
  const char *caret = echo_end + 1;
  size_t caret_len = strcspn(caret, "\n");
  ck_assert_msg(caret_len >= (size_t)col && caret[col - 1] == '^' &&
                    strspn(caret, " \t") == (size_t)(col - 1),
                "%s: the caret is not under column %ld: %.400s", what, col, diag);
}

/* Parses and verifies `text`, expecting an invalid-input status that check_diagnostic accepts. */
static void expect_rejected(const char *what, const char *path, const char *text, size_t len,
                            const tqc_parse_options_t *options, const expect_t *e) {
  char *copy = dup_exact(text, len);
  tq_status_t status = parse_verify_print(path, copy, len, options, NULL);
  ck_assert_msg(status != NULL, "%s: accepted", what);
  ck_assert_msg(tq_status_code(status) == TQ_INVALID_INPUT, "%s: code '%s', not invalid input: %s",
                what, tq_status_code_name(tq_status_code(status)), status_text(status));
  check_diagnostic(what, tq_status_message(status), path, copy, len, e);
  tq_status_free(status);
  free(copy);
}

/* Either outcome is acceptable, but each must be right: a diagnostic as `e` expects (invalid input
 * or a limit), or a module that verifies and round-trips. Returns 1 when it was accepted. */
static int expect_rejected_or_valid(const char *what, const char *path, const char *text,
                                    size_t len, const expect_t *e) {
  char *copy = dup_exact(text, len);
  tq_buf_t printed;
  tq_buf_init(&printed, 0);
  tq_status_t status = parse_verify_print(path, copy, len, NULL, &printed);
  int accepted = status == NULL;
  if (accepted) {
    check_round_trip(what, &printed);
  } else {
    tq_status_code_t code = tq_status_code(status);
    ck_assert_msg(code == TQ_INVALID_INPUT || code == TQ_LIMIT, "%s: code '%s': %s", what,
                  tq_status_code_name(code), status_text(status));
    check_diagnostic(what, tq_status_message(status), path, copy, len, e);
    tq_status_free(status);
  }
  tq_buf_deinit(&printed);
  free(copy);
  return accepted;
}

/* ---- a table of malformed models ------------------------------------------------------------ */

#define SIG "module {\n  func.func @main(%arg0: tensor<4xi8>) -> tensor<4xi8> {\n"
#define RET "    return %0 : tensor<4xi8>\n  }\n}\n"
#define ADD "    %0 = tosa.add %arg0, %arg0 : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>\n"
#define CONST(dense) \
  SIG "    %0 = \"tosa.const\"() <{values = " dense " : tensor<4xi8>}> : () -> tensor<4xi8>\n" RET
#define VALID_FUNC                                                       \
  "module {\n  func.func @main(%arg0: tensor<4xi8>) -> tensor<4xi8> {\n" \
  "    return %arg0 : tensor<4xi8>\n  }\n"
#define VALID VALID_FUNC "}\n"

typedef struct bad_case_s {
  const char *name;
  const char *text;
  long line, line_alt; /* the error's line; line_alt 0: no other */
  const char *at[4];   /* the column: where one of these first occurs in that line ("\n": its
                          end); none: any column */
  const char *words;   /* see expect_t */
} bad_case_t;

/* One case in a few lines reads better than one field per line. */
// clang-format off
static const bad_case_t bad_cases[] = {
    {"unterminated_string",
     SIG "    %0 = \"tosa.add(%arg0, %arg0) : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>\n" RET, 3,
     0, {"\"tosa", "\n"}, "string|quote|\"|terminat"},
    {"unterminated_string_at_eof", SIG "    %0 = \"tosa.const\"() <{values = dense<\"0x0102", 3, 0,
     {"\"0x", "\n"}, "string|quote|\"|terminat|end"},
    {"unterminated_dense_at_eof", SIG "    %0 = \"tosa.const\"() <{values = dense<[1, 2, 3, 4]", 3,
     0, {"\n", "dense"}, ">|end|eof|terminat|dense"},
    {"unterminated_dense", CONST("dense<[1, 2, 3, 4]"), 3, 0, {": tensor<4xi8>}>", "dense"},
     ">|expected"},
    {"unknown_element_type",
     SIG "    %0 = tosa.add %arg0, %arg0 : (tensor<4xfoo>, tensor<4xi8>) -> tensor<4xi8>\n" RET, 3,
     0, {"foo", "tensor<4xfoo"}, "foo|type"},
    {"unknown_type",
     SIG "    %0 = tosa.add %arg0, %arg0 : (tensr<4xi8>, tensor<4xi8>) -> tensor<4xi8>\n" RET, 3, 0,
     {"tensr"}, "tensr|type"},
    {"unknown_type_in_signature",
     "module {\n  func.func @main(%arg0: tensor<4xq8>) -> tensor<4xi8> {\n" ADD RET, 2, 0,
     {"q8", "tensor<4xq8"}, "q8|type"},
    {"undefined_value",
     SIG "    %0 = tosa.add %arg0, %x : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>\n" RET, 3, 0,
     {"%x"}, "%x|undeclared|undefined|not defined|unknown"},
    {"redefinition", SIG ADD ADD RET, 4, 0, {"%0"}, "%0|redefin|already|twice"},
    {"use_before_definition",
     SIG "    %0 = tosa.add %1, %1 : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>\n"
         "    %1 = tosa.add %arg0, %arg0 : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>\n" RET,
     3, 0, {"%1", "%0", "tosa.add"}, "%1|domin|before|undefined|undeclared"},
    {"operand_type_mismatch",
     SIG "    %0 = tosa.add %arg0, %arg0 : (tensor<4xi16>, tensor<4xi8>) -> tensor<4xi8>\n" RET, 3,
     0, {"%arg0", "%0", "tosa.add"}, "type|i16"},
    {"operand_type_mismatch_generic",
     SIG "    %0 = \"tosa.add\"(%arg0, %arg0) : (tensor<4xi16>, tensor<4xi8>) -> tensor<4xi8>\n" RET,
     3, 0, {"%arg0", "%0", "\"tosa"}, "type|i16"},
    {"use_type_differs_from_definition",
     SIG "    %0 = tosa.add %arg0, %arg0 : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi16>\n" RET, 4,
     0, {"%0", "return"}, "type|i16"},
    {"too_many_results",
     SIG "    %0, %1 = tosa.add %arg0, %arg0 : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>\n" RET,
     3, 0, {"%0", "tosa.add"}, "result"},
    {"result_count_generic",
     SIG "    %0 = \"tosa.add\"(%arg0, %arg0) : (tensor<4xi8>, tensor<4xi8>) -> "
         "(tensor<4xi8>, tensor<4xi8>)\n" RET,
     3, 0, {"%0", "\"tosa"}, "result"},
    {"operand_count_generic",
     SIG "    %0 = \"tosa.add\"(%arg0) : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>\n" RET, 3, 0,
     {"(tensor", "%0", "\"tosa"}, "operand"},
    {"return_type_mismatch",
     "module {\n  func.func @main(%arg0: tensor<4xi8>) -> tensor<4xi16> {\n" ADD RET, 4, 0,
     {"return"}, "return|result|type"},
    {"return_count_mismatch", SIG ADD "    return\n  }\n}\n", 4, 0, {"return"},
     "return|result|operand"},
    {"missing_terminator", "module {\n  func.func @main(%arg0: tensor<4xi8>) -> tensor<4xi8> {\n  }\n}\n",
     2, 3, {0}, "return|terminator|empty"},
    {"dense_i8_overflow", CONST("dense<[1, 300, 3, 4]>"), 3, 0, {"300", "dense", "[1"},
     "300|range|overflow|fit|i8"},
    {"dense_i8_underflow_splat", CONST("dense<-129>"), 3, 0, {"-129", "dense"},
     "-129|range|overflow|fit|i8"},
    {"dense_i1_out_of_range",
     SIG "    %0 = \"tosa.const\"() <{values = dense<2> : tensor<4xi1>}> : () -> tensor<4xi1>\n" RET,
     3, 0, {"2>", "dense"}, "range|overflow|fit|i1"},
    {"dense_count_mismatch", CONST("dense<[1, 2, 3]>"), 3, 0, {"dense", "[1", "]>"},
     "shape|count|element|number"},
    {"dense_ragged", CONST("dense<[[1, 2], [3]]>"), 3, 0, {"[3]", "dense", "[[1", "]]"},
     "shape|rank|element|inconsistent|ragged|count"},
    {"dense_float_for_integer", CONST("dense<1.5>"), 3, 0, {"1.5", "dense"},
     "float|integer|1.5"},
    {"hex_odd_length", CONST("dense<\"0x0102030\">"), 3, 0, {"\"0x", "dense", "0102030"},
     "hex|odd|digit"},
    {"hex_not_hex", CONST("dense<\"0x010203GG\">"), 3, 0, {"\"0x", "dense", "GG"},
     "hex|digit"},
    {"hex_wrong_size", CONST("dense<\"0x010203\">"), 3, 0, {"\"0x", "dense"},
     "hex|size|byte|length"},
    {"unknown_string_escape", CONST("dense<\"\\q\">"), 3, 0, {"\\q", "\"\\q"}, "escape|\\q"},
    {"loc_alias_undefined",
     SIG "    %0 = tosa.add %arg0, %arg0 : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8> loc(#loc3)\n" RET,
     3, 0, {"#loc3", "loc(", "%0"}, "loc3|alias"},
    {"bad_location",
     SIG "    %0 = tosa.add %arg0, %arg0 : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8> "
         "loc(\"a.mlir\":x:1)\n" RET,
     3, 0, {"x:1", "loc(", "\"a.mlir"}, "loc|integer|line|number|expected"},
    {"missing_brace_at_eof",
     "module {\n  func.func @main(%arg0: tensor<4xi8>) -> tensor<4xi8> {\n"
     "    return %arg0 : tensor<4xi8>\n  }\n",
     4, 5, {0}, "}|end|eof|brace|unterminated|unclosed"},
    {"stray_brace", VALID "}\n", 6, 0, {"}"}, "}|unexpected|stray|operation|expected"},
    {"func_without_name",
     "module {\n  func.func (%arg0: tensor<4xi8>) -> tensor<4xi8> {\n    return %arg0 : "
     "tensor<4xi8>\n  }\n}\n",
     2, 0, {"(%arg0", "func.func"}, "name|@|symbol"},
    {"unknown_custom_op", SIG "    %0 = mydialect.frob<%arg0> : tensor<4xi8>\n" RET, 3, 0,
     {"mydialect", "<%arg0", "%0"}, "mydialect|unknown|custom|op"},
    {"unexpected_character",
     SIG "    %0 = tosa.add %arg0, %arg0 $ : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>\n" RET, 3,
     0, {"$"}, "$|unexpected|character|invalid"},
    {"invalid_utf8_outside_string",
     SIG "    %0 = tosa.add %arg0, %arg0 \xff\xfe : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>\n" RET,
     3, 0, {"\xff"}, "unexpected|character|invalid|byte|utf"},
    {"duplicate_argument",
     "module {\n  func.func @main(%arg0: tensor<4xi8>, %arg0: tensor<4xi16>) -> tensor<4xi8> {\n"
     "    return %arg0 : tensor<4xi8>\n  }\n}\n",
     2, 0, {"%arg0: tensor<4xi16>"}, "%arg0|redefin|already|duplicate|twice|use"},
    {"invalid_result_number",
     SIG "    %0 = tosa.add %arg0#3, %arg0 : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>\n" RET, 3,
     0, {"%arg0#3"}, "#3|result|number"},
    {"duplicate_attribute",
     SIG "    %0 = tosa.add %arg0, %arg0 {torq.a = 1, torq.a = 2} : (tensor<4xi8>, tensor<4xi8>) -> "
         "tensor<4xi8>\n" RET,
     3, 0, {"torq.a = 2", "{torq"}, "duplicate|twice|again|torq.a"},
    {"negative_dimension",
     SIG "    %0 = tosa.add %arg0, %arg0 : (tensor<4x-1xi8>, tensor<4xi8>) -> tensor<4xi8>\n" RET, 3,
     0, {"-1", "tensor<4x-"}, "dim|-1|expected|negative"},
    {"dimension_overflow",
     SIG "    %0 = tosa.add %arg0, %arg0 : (tensor<99999999999999999999xi8>, tensor<4xi8>) -> "
         "tensor<4xi8>\n" RET,
     3, 0, {"99999", "tensor<9"}, "dim|overflow|large|range"},
    /* The 349-byte bomb's constant: 4 bytes that would expand to 4 GB, refused at the literal
     * before anything is built (torq-compile's own run: scripts/bench-limits). */
    {"constant_above_the_module_limit",
     SIG "    %0 = \"tosa.const\"() <{values = dense<\"0x01000000\"> : tensor<1000000000xi32>}> : "
         "() -> tensor<1000000000xi32>\n" RET,
     3, 0, {"dense<\""}, "constant too large|4000000000 bytes|1073741824"},
    {"tensor_size_overflow",
     SIG "    %0 = tosa.add %arg0, %arg0 : (tensor<4294967296x4294967296xi32>, tensor<4xi8>) -> "
         "tensor<4xi8>\n" RET,
     3, 0, {"tensor<4294967296x"}, "tensor type too large|64 bits"},
    {"integer_width_overflow",
     SIG "    %0 = tosa.add %arg0, %arg0 : (tensor<4xi99999999>, tensor<4xi8>) -> tensor<4xi8>\n" RET,
     3, 0, {"i9999", "tensor<4xi9"}, "width|i99999999|large|range|type"},
    /* An alias that reaches itself through callsite, fused or a name location: MLIR rejects it
     * as undefined where it refers to itself. */
    {"loc_alias_cycle_callsite",
     "module {\n  func.func @main() {\n    return loc(#loc1)\n  }\n}\n"
     "#loc1 = loc(callsite(#loc1 at \"b.mlir\":2:2))\n",
     6, 3, {0}, "loc1|cycle|alias|undefined"},
    {"loc_alias_cycle_fused",
     "module {\n  func.func @main() {\n    return loc(#loc1)\n  }\n}\n"
     "#loc1 = loc(fused[\"a.mlir\":1:1, #loc2])\n#loc2 = loc(\"n\"(#loc1))\n",
     6, 3, {0}, "loc1|loc2|cycle|alias|undefined"},
    {"loc_alias_cycle_name", "module {\n  func.func @main() {\n    return loc(#loc1)\n  }\n}\n"
     "#loc1 = loc(\"n\"(#loc1))\n",
     6, 3, {0}, "loc1|cycle|alias|undefined"},
    {"duplicate_function",
     VALID_FUNC "  func.func @main(%arg0: tensor<4xi8>) -> tensor<4xi8> {\n"
     "    return %arg0 : tensor<4xi8>\n  }\n}\n",
     5, 0, {"func.func", "@main"}, "main|redefin|duplicate|already|symbol"},
    {"generic_func_without_name",
     "module {\n  \"func.func\"() <{function_type = (tensor<4xi8>) -> tensor<4xi8>}> ({\n"
     "  ^bb0(%arg0: tensor<4xi8>):\n    \"func.return\"(%arg0) : (tensor<4xi8>) -> ()\n"
     "  }) : () -> ()\n}\n",
     2, 0, {"\"func.func"}, "sym_name|name|symbol"},
    {"op_after_return", SIG "    return %arg0 : tensor<4xi8>\n" ADD "  }\n}\n", 3, 0, {"return"},
     "return|last|terminator"},
    {"missing_type_after_colon", SIG "    %0 = tosa.add %arg0, %arg0 :\n" RET, 4, 0, {"return"},
     "type"},
};
// clang-format on
#define BAD_CASE_COUNT ((int)(sizeof(bad_cases) / sizeof(bad_cases[0])))

/* The expectation of a table case: markers turned into columns. */
static expect_t bad_case_expect(const bad_case_t *c) {
  expect_t e = {c->line, c->line_alt ? c->line_alt : c->line, {0}, c->words};
  if (c->line_alt && c->line_alt < c->line) e.line_min = c->line_alt;
  if (c->line_alt && c->line_alt > c->line) e.line_max = c->line_alt;
  const char *src;
  size_t src_len;
  ck_assert_msg(text_line(c->text, strlen(c->text), c->line, &src, &src_len), "%s: bad table line",
                c->name);
  for (int i = 0; i < 4 && c->at[i]; i++) {
    if (strcmp(c->at[i], "\n") == 0) {
      e.cols[i] = (long)src_len + 1;
      continue;
    }
    char *line = strndup(src, src_len);
    ck_assert_ptr_nonnull(line);
    const char *hit = strstr(line, c->at[i]);
    ck_assert_msg(hit != NULL, "%s: marker '%s' not on line %ld", c->name, c->at[i], c->line);
    e.cols[i] = (long)(hit - line) + 1;
    free(line);
  }
  return e;
}

START_TEST(parser_rejects_bad_model_with_location) {
  const bad_case_t *c = &bad_cases[_i];
  expect_t e = bad_case_expect(c);
  expect_rejected(c->name, "bad.mlir", c->text, strlen(c->text), NULL, &e);
}
END_TEST

/* A NUL byte at 3:12. */
static const char nul_model[] =
    "module {\n  func.func @main(%arg0: tensor<4xi8>) -> tensor<4xi8> {\n"
    "    return \0%arg0 : tensor<4xi8>\n  }\n}\n";

START_TEST(parser_rejects_nul_byte_with_location) {
  expect_t e = {3, 3, {12}, NULL};
  expect_rejected("nul_byte", "nul.mlir", nul_model, sizeof(nul_model) - 1, NULL, &e);
}
END_TEST

/* MLIR itself accepts any bytes in a string; either a located error or an exact round trip. */
START_TEST(parser_handles_invalid_utf8_in_string) {
  static const bad_case_t c = {
      "invalid_utf8_in_string",
      "module {\n  func.func @main(%arg0: tensor<4xi8> {torq.name = \"a\xff\xfe\xc0z\"}) -> "
      "tensor<4xi8> {\n    return %arg0 : tensor<4xi8>\n  }\n}\n",
      2,
      0,
      {"\"a", "\xff"},
      "utf|byte|character|invalid|string"};
  expect_t e = bad_case_expect(&c);
  expect_rejected_or_valid(c.name, "utf8.mlir", c.text, strlen(c.text), &e);
}
END_TEST

/* MLIR reads an empty or comment-only file as an empty module; rejecting it is as sensible. Either
 * is accepted here, each checked: an error at the start or end, or an empty module. */
static void check_empty_like(const char *what, const char *text) {
  size_t len = strlen(text);
  expect_t e = {1, line_of_offset(text, len), {0}, NULL};
  char *copy = dup_exact(text, len);
  tq_buf_t printed;
  tq_buf_init(&printed, 0);
  tq_status_t status = parse_verify_print("empty.mlir", copy, len, NULL, &printed);
  if (status) {
    ck_assert_int_eq(tq_status_code(status), TQ_INVALID_INPUT);
    check_diagnostic(what, tq_status_message(status), "empty.mlir", copy, len, &e);
    tq_status_free(status);
  } else {
    ck_assert_msg(strstr(printed.data, "builtin.module") && !strstr(printed.data, "func"),
                  "%s: accepted, but printed %.300s", what, printed.data);
    check_round_trip(what, &printed);
  }
  tq_buf_deinit(&printed);
  free(copy);
}

START_TEST(parser_handles_empty_file) {
  check_empty_like("empty_file", "");
}
END_TEST

START_TEST(parser_handles_whitespace_and_comments_only) {
  check_empty_like("comments_only", "  \n\t// only a comment\n\n   // and another\n");
}
END_TEST

/* Literals at the edges of their types are valid; each must print text that parses and prints
 * again to the same text (a value that overflows f64 is +inf, printed in hex with its type). */
static const char *const edge_literals[] = {
    "module attributes {torq.a = 1.0e400 : f64, torq.b = 1.0e400, torq.c = -1.0e400} {\n}\n",
    "module attributes {torq.a = 0x7FF8000000000001 : f64, torq.b = 0x7FC00001 : f32} {\n}\n",
    "module attributes {torq.a = -0.0 : f32, torq.b = 1.0e-45 : f32, torq.c = 4.9e-324} {\n}\n",
    "module attributes {torq.a = 65504.0 : f16, torq.b = 3.0e38 : bf16, torq.c = 0.1 : bf16} "
    "{\n}\n",
    "module attributes {torq.a = -9223372036854775808 : i64, torq.b = 255 : ui8,"
    " torq.c = -128 : si8, torq.d = true} {\n}\n",
    "module attributes {torq.a = \"q\\\"b\\\\s\\n\\t\\00\\FF\"} {\n}\n",
    "module {\n  func.func @main() -> f64 {\n    %0 = arith.constant 1.0e400 : f64\n"
    "    return %0 : f64\n  }\n}\n",
    "module {\n  func.func @main() -> tensor<2xf32> {\n"
    "    %0 = \"tosa.const\"() <{values = dense<[0x7FC00001, -0.0]> : tensor<2xf32>}> : () -> "
    "tensor<2xf32>\n    return %0 : tensor<2xf32>\n  }\n}\n",
};

START_TEST(parser_round_trips_edge_literals) {
  const char *text = edge_literals[_i];
  tq_buf_t printed;
  tq_buf_init(&printed, 0);
  tq_status_t status = parse_verify_print("edge.mlir", text, strlen(text), NULL, &printed);
  ck_assert_msg(status == NULL, "edge literal %d rejected: %s", _i, status_text(status));
  char what[32];
  snprintf(what, sizeof(what), "edge literal %d", _i);
  check_round_trip(what, &printed);
  tq_buf_deinit(&printed);
}
END_TEST

/* Out of memory at every point of a parse: a clean TQ_OUT_OF_MEMORY, never a crash. */
START_TEST(parser_survives_allocation_failure) {
  tq_buf_t model;
  if (!corpus_read("add.mlir", &model)) return;
  tq_alloc_fail_after(_i);
  tq_buf_t printed;
  tq_buf_init(&printed, 0);
  tq_status_t status = parse_verify_print("add.mlir", model.data, model.len, NULL, &printed);
  tq_alloc_fail_after(-1);
  ck_assert_msg(_i > 0 || status != NULL, "no allocation went through the failure hook");
  ck_assert_msg(status == NULL || tq_status_code(status) == TQ_OUT_OF_MEMORY,
                "failing allocation %d: code '%s': %s", _i,
                tq_status_code_name(tq_status_code(status)), status_text(status));
  tq_status_free(status);
  tq_buf_deinit(&printed);
  tq_buf_deinit(&model);
}
END_TEST

/* ---- nesting -------------------------------------------------------------------------------- */

typedef enum nest_kind_e { NEST_BRACKETS, NEST_PARENS, NEST_REGIONS } nest_kind_t;

/* A model nesting `depth` levels of one construct: `[` in an attribute, `(` in a type (nested
 * function types), or regions (nested modules). `closed` 0 stops after the openings. */
static char *nested_model(nest_kind_t kind, size_t depth, int closed, size_t *out_len,
                          long *out_line) {
  static const char *const parts[][4] = {
      /* prefix, open, close, suffix */
      {"module attributes {torq.a = ", "[", "]", "} {\n}\n"},
      {"module {\n  func.func @main(%arg0: ", "(", ") -> i8", ") {\n    return\n  }\n}\n"},
      {"", "module {", "}", "\n"},
  };
  const char *const *p = parts[kind];
  size_t cap = strlen(p[0]) + depth * (strlen(p[1]) + strlen(p[2])) + strlen(p[3]) + 8;
  char *text = malloc(cap);
  ck_assert_ptr_nonnull(text);
  size_t n = 0;
  n += (size_t)sprintf(text + n, "%s", p[0]);
  for (size_t i = 0; i < depth; i++) n += (size_t)sprintf(text + n, "%s", p[1]);
  if (closed) {
    if (kind == NEST_PARENS) n += (size_t)sprintf(text + n, "i8");
    for (size_t i = 0; i < depth; i++) n += (size_t)sprintf(text + n, "%s", p[2]);
    n += (size_t)sprintf(text + n, "%s", p[3]);
  }
  *out_len = n;
  *out_line = kind == NEST_PARENS ? 2 : 1;
  return text;
}

START_TEST(parser_limits_deep_nesting) {
  static const char *const names[] = {"brackets", "parens", "regions"};
  nest_kind_t kind = (nest_kind_t)(_i % 3);
  int closed = _i / 3;
  size_t len;
  long line;
  char *text = nested_model(kind, 100000, closed, &len, &line);
  char what[64];
  snprintf(what, sizeof(what), "100000 nested %s%s", names[kind], closed ? "" : ", unclosed");
  expect_t e = {line, line, {0}, "nest|depth|deep|limit"};
  char *copy = dup_exact(text, len);
  tq_status_t status = parse_verify_print("deep.mlir", copy, len, NULL, NULL);
  ck_assert_msg(status != NULL, "%s: accepted", what);
  tq_status_code_t code = tq_status_code(status);
  ck_assert_msg(code == TQ_INVALID_INPUT || code == TQ_LIMIT, "%s: code '%s': %s", what,
                tq_status_code_name(code), status_text(status));
  check_diagnostic(what, tq_status_message(status), "deep.mlir", copy, len, &e);
  tq_status_free(status);
  free(copy);
  free(text);
}
END_TEST

/* Nesting well inside the limit is valid MLIR and must parse; the limit is the option's. */
START_TEST(parser_accepts_nesting_within_limit) {
  nest_kind_t kind = (nest_kind_t)_i;
  size_t len;
  long line;
  char *text = nested_model(kind, 50, 1, &len, &line);
  tq_buf_t printed;
  tq_buf_init(&printed, 0);
  tq_status_t status = parse_verify_print("nest.mlir", text, len, NULL, &printed);
  ck_assert_msg(status == NULL, "50 levels of nesting (kind %d) rejected: %s", _i,
                status_text(status));
  check_round_trip("nest.mlir", &printed);
  tq_buf_deinit(&printed);

  tqc_parse_options_t options;
  tqc_parse_options_initialize(&options);
  ck_assert_uint_ge(options.max_nesting, 50);
  options.max_nesting = 20;
  expect_t e = {line, line, {0}, "nest|depth|deep|limit"};
  char *copy = dup_exact(text, len);
  status = parse_verify_print("nest.mlir", copy, len, &options, NULL);
  ck_assert_msg(status != NULL, "50 levels accepted with max_nesting 20 (kind %d)", _i);
  check_diagnostic("max_nesting 20", tq_status_message(status), "nest.mlir", copy, len, &e);
  tq_status_free(status);
  free(copy);
  free(text);
}
END_TEST

/* ---- truncated and mutated corpus models ---------------------------------------------------- */

#define TRUNC_SMALL "add.mlir"
#define TRUNC_MID "mbv2-softmax-i8.mlir"

/* A forked test per case would cost more than the parse itself under AddressSanitizer, so each
 * test takes a batch of truncations or mutants; failure messages name the one that failed. */
#define TRUNC_BATCH 16
#define MUTANT_BATCH 10

static size_t truncation_stride(void) {
  return under_valgrind() ? 97 : 7;
}

/* Cuts at 0, stride, 2*stride, ... and at the full length. */
static size_t truncation_cuts(size_t len) {
  return len / truncation_stride() + 2;
}

static int truncation_batches(const char *name) {
  return (int)((truncation_cuts(corpus_size(name)) + TRUNC_BATCH - 1) / TRUNC_BATCH);
}

/* A prefix of a model either keeps the whole module (then it must be valid) or ends inside it
 * (then the error is at its end: between the line of its last token and end of file). */
static void check_truncation(const char *name, const tq_buf_t *model, size_t cut) {
  const char *last_brace = memrchr(model->data, '}', model->len);
  ck_assert_ptr_nonnull(last_brace);
  size_t last_tok = cut;
  while (last_tok > 0 && strchr(" \t\r\n", model->data[last_tok - 1])) last_tok--;
  char what[128];
  snprintf(what, sizeof(what), "%s cut at byte %zu of %zu", name, cut, model->len);
  expect_t e = {line_of_offset(model->data, last_tok ? last_tok - 1 : 0),
                line_of_offset(model->data, cut),
                {0},
                NULL};
  int accepted = expect_rejected_or_valid(what, "trunc.mlir", model->data, cut, &e);
  if (cut > (size_t)(last_brace - model->data))
    ck_assert_msg(accepted, "%s: the whole module is there, yet it was rejected", what);
  else if (cut > 0)
    ck_assert_msg(!accepted, "%s: accepted an unfinished module", what);
}

static void check_truncation_batch(const char *name, int batch) {
  tq_buf_t model;
  if (!corpus_read(name, &model)) return;
  size_t cuts = truncation_cuts(model.len);
  for (size_t i = (size_t)batch * TRUNC_BATCH; i < (size_t)(batch + 1) * TRUNC_BATCH && i < cuts;
       i++) {
    size_t cut = i * truncation_stride();
    check_truncation(name, &model, cut < model.len ? cut : model.len);
  }
  tq_buf_deinit(&model);
}

START_TEST(parser_rejects_truncated_small_model) {
  check_truncation_batch(TRUNC_SMALL, _i);
}
END_TEST

START_TEST(parser_rejects_truncated_mid_size_model) {
  check_truncation_batch(TRUNC_MID, _i);
}
END_TEST

static uint64_t rng_next(uint64_t *state) {
  uint64_t x = *state;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  *state = x;
  return x * 0x2545F4914F6CDD1DULL;
}

/* Mutant `seed` of a model: one to four bytes replaced by a syntax character, a random byte or a
 * bit flip. Its error, if any, cannot be before the first changed byte. */
static void check_mutant(const tq_buf_t *original, int seed) {
  static const char syntax[] = "{}[]()<>\"%:=,#@!^-+.x0123456789 \n\t\\/\0\xff";
  char *text = dup_exact(original->data, original->len);
  size_t len = original->len;
  uint64_t state = 0x9E3779B97F4A7C15ULL ^ ((uint64_t)seed * 0x100000001B3ULL);
  size_t first = len;
  int flips = 1 + (int)(rng_next(&state) % 4);
  for (int k = 0; k < flips; k++) {
    size_t at = rng_next(&state) % len;
    uint64_t r = rng_next(&state);
    switch (r % 3) {
      case 0:
        text[at] = syntax[(r >> 8) % (sizeof(syntax) - 1)];
        break;
      case 1:
        text[at] = (char)(r >> 8);
        break;
      default:
        text[at] = (char)(text[at] ^ (1 << ((r >> 8) % 8)));
        break;
    }
    if (at < first) first = at;
  }
  char what[64];
  snprintf(what, sizeof(what), "mutant %d of %s", seed, TRUNC_SMALL);
  expect_t e = {line_of_offset(text, first), line_of_offset(text, len), {0}, NULL};
  expect_rejected_or_valid(what, "mutant.mlir", text, len, &e);
  free(text);
}

START_TEST(parser_survives_mutated_model) {
  tq_buf_t model;
  if (!corpus_read(TRUNC_SMALL, &model)) return;
  for (int seed = _i * MUTANT_BATCH; seed < (_i + 1) * MUTANT_BATCH; seed++)
    check_mutant(&model, seed);
  tq_buf_deinit(&model);
}
END_TEST

/* ---- huge literals -------------------------------------------------------------------------- */

static size_t huge_bytes(void) {
  return under_valgrind() ? 2500000 : 25000000;
}

static unsigned char huge_byte(size_t i) {
  return (unsigned char)(i * 131u + (i >> 9));
}

/* A model returning one constant of `count` i8 elements, written as a hex blob (two digits per
 * byte: a 50 MB literal for 25 MB) or as a decimal list (about 4.7 bytes per element). `odd_hex`
 * drops the last digit. */
static char *huge_model(size_t count, int as_list, int odd_hex, size_t *out_len) {
  static const char hexdig[] = "0123456789ABCDEF";
  char head[256], tail[256];
  int hn = snprintf(head, sizeof(head),
                    "module {\n  func.func @main() -> tensor<%zuxi8> {\n"
                    "    %%0 = \"tosa.const\"() <{values = dense<%s",
                    count, as_list ? "[" : "\"0x");
  int tn = snprintf(tail, sizeof(tail),
                    "%s> : tensor<%zuxi8>}> : () -> tensor<%zuxi8>\n"
                    "    return %%0 : tensor<%zuxi8>\n  }\n}\n",
                    as_list ? "]" : "\"", count, count, count);
  size_t cap = (size_t)hn + (size_t)tn + count * 6;
  char *text = malloc(cap);
  ck_assert_ptr_nonnull(text);
  memcpy(text, head, (size_t)hn);
  size_t n = (size_t)hn;
  for (size_t i = 0; i < count; i++) {
    unsigned char b = huge_byte(i);
    if (as_list) {
      n += (size_t)sprintf(text + n, i ? ", %d" : "%d", (int)(signed char)b);
    } else {
      text[n++] = hexdig[b >> 4];
      text[n++] = hexdig[b & 15];
    }
  }
  if (odd_hex) n--;
  memcpy(text + n, tail, (size_t)tn);
  *out_len = n + (size_t)tn;
  return text;
}

static int hex_value(char c) {
  return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

/* The printed constant must hold exactly the `count` generated bytes, whichever form the printer
 * chose: a hex blob or a list. */
static void check_huge_printed(const tq_buf_t *printed, size_t count) {
  const char *hex = strstr(printed->data, "dense<\"0x");
  if (hex) {
    hex += 9;
    size_t digits = strspn(hex, "0123456789abcdefABCDEF");
    ck_assert_msg(digits == 2 * count, "printed %zu hex digits for %zu bytes", digits, count);
    size_t i = 0;
    while (i < count && (hex_value(hex[2 * i]) << 4 | hex_value(hex[2 * i + 1])) == huge_byte(i))
      i++;
    ck_assert_msg(i == count, "byte %zu printed as %.2s, not %02X", i, hex + 2 * i, huge_byte(i));
    return;
  }
  const char *list = strstr(printed->data, "dense<[");
  ck_assert_msg(list != NULL, "no dense literal in the printed module");
  char *p = (char *)list + 7;
  size_t i = 0;
  long v = 0;
  /* No ck_assert inside the loops: in fork mode each one is a message to the parent process. */
  while (i < count && (v = strtol(p, &p, 10)) == (signed char)huge_byte(i)) {
    p += strspn(p, ", ");
    i++;
  }
  ck_assert_msg(i == count, "element %zu printed as %ld", i, v);
  ck_assert_msg(*p == ']', "more than %zu elements printed", count);
}

static void check_huge(int as_list) {
  size_t count = as_list ? huge_bytes() * 2 / 5 : huge_bytes();
  size_t len;
  char *text = huge_model(count, as_list, 0, &len);
  tq_buf_t printed;
  tq_buf_init(&printed, 0);
  /* How fast is scripts/bench-parse's question; the test case's timeout only stops a hang. */
  tq_status_t status = parse_verify_print("huge.mlir", text, len, NULL, &printed);
  ck_assert_msg(status == NULL, "a %zu-byte model was rejected: %.300s", len, status_text(status));
  check_huge_printed(&printed, count);
  tq_buf_deinit(&printed);
  free(text);
}

START_TEST(parser_reads_huge_hex_literal) {
  check_huge(0);
}
END_TEST

START_TEST(parser_reads_huge_list_literal) {
  check_huge(1);
}
END_TEST

START_TEST(parser_rejects_huge_malformed_literal) {
  size_t len;
  char *text = huge_model(huge_bytes(), 0, 1, &len);
  expect_t e = {3, 3, {0}, "hex|odd|digit|size|byte|length"};
  expect_rejected("huge odd hex literal", "huge.mlir", text, len, NULL, &e);
  free(text);
}
END_TEST

/* The IR memory cap stops a big literal cleanly. */
START_TEST(parser_honours_arena_limit) {
  size_t len;
  char *text = huge_model(huge_bytes() / 10, 0, 0, &len);
  tqc_parse_options_t options;
  tqc_parse_options_initialize(&options);
  options.max_arena_bytes = 256 * 1024;
  tq_status_t status = parse_verify_print("huge.mlir", text, len, &options, NULL);
  ck_assert_msg(status != NULL, "a %zu-byte constant fitted in a 256 KiB arena", len / 2);
  tq_status_code_t code = tq_status_code(status);
  ck_assert_msg(code == TQ_LIMIT || code == TQ_OUT_OF_MEMORY || code == TQ_INVALID_INPUT,
                "code '%s': %s", tq_status_code_name(code), status_text(status));
  tq_status_free(status);
  free(text);
}
END_TEST

/* ---- files through the API ------------------------------------------------------------------ */

START_TEST(parse_file_names_missing_file) {
  char path[PATH_MAX];
  tmp_path("no-such-model.mlir", path);
  tqc_module_t *module = NULL;
  tq_status_t status = tqc_module_parse_file(path, NULL, &module);
  ck_assert_ptr_null(module);
  ck_assert_msg(tq_status_code(status) == TQ_NOT_FOUND, "code '%s': %s",
                tq_status_code_name(tq_status_code(status)), status_text(status));
  ck_assert_msg(strstr(tq_status_message(status), path), "the path is not named: %s",
                status_text(status));
  tq_status_free(status);
}
END_TEST

START_TEST(parse_file_rejects_directory) {
  tqc_module_t *module = NULL;
  tq_status_t status = tqc_module_parse_file(tmp_dir, NULL, &module);
  ck_assert_ptr_null(module);
  tq_status_code_t code = tq_status_code(status);
  ck_assert_msg(code == TQ_INVALID_ARGUMENT || code == TQ_IO, "code '%s': %s",
                tq_status_code_name(code), status_text(status));
  ck_assert_msg(strstr(tq_status_message(status), tmp_dir), "the path is not named: %s",
                status_text(status));
  tq_status_free(status);
}
END_TEST

START_TEST(parse_file_locates_errors_in_that_file) {
  const bad_case_t *c = &bad_cases[0];
  char path[PATH_MAX];
  tmp_write("bad-file.mlir", c->text, strlen(c->text), path);
  tqc_module_t *module = NULL;
  tq_status_t status = tqc_module_parse_file(path, NULL, &module);
  ck_assert_ptr_null(module);
  ck_assert_msg(status != NULL, "accepted");
  expect_t e = bad_case_expect(c);
  check_diagnostic(c->name, tq_status_message(status), path, c->text, strlen(c->text), &e);
  tq_status_free(status);
}
END_TEST

/* ---- the torq-compile command line ---------------------------------------------------------- */

typedef struct cli_result_s {
  int exit_code; /* -1 when killed by a signal */
  int signal;
  tq_buf_t err; /* what it wrote to stderr (the first MiB) */
  double seconds;
} cli_result_t;

/* This build's torq-compile ($TORQ_BIN, else beside the test binary); a failure when missing. */
static const char *cli_path(void) {
  return tq_test_own_tool("torq-compile");
}

/* Runs torq-compile with `args` (NULL-terminated), stdout to /dev/null and stderr through a pipe,
 * killing it after `timeout` seconds. */
static void cli_run(const char *tool, const char *const args[], double timeout, cli_result_t *out) {
  char *argv[16];
  int argc = 0;
  argv[argc++] = (char *)tool;
  while (*args && argc < 15) argv[argc++] = (char *)*args++;
  argv[argc] = NULL;
  int fds[2];
  ck_assert_int_eq(pipe(fds), 0);
  double t0 = now_seconds();
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    int null_fd = open("/dev/null", O_WRONLY);
    if (null_fd < 0 || dup2(null_fd, STDOUT_FILENO) < 0 || dup2(fds[1], STDERR_FILENO) < 0)
      _exit(126);
    close(fds[0]);
    close(fds[1]);
    execv(tool, argv);
    _exit(127);
  }
  close(fds[1]);
  tq_buf_init(&out->err, 0);
  char chunk[4096];
  int killed = 0;
  for (;;) {
    struct pollfd pfd = {fds[0], POLLIN, 0};
    int ready = poll(&pfd, 1, 200);
    if (ready > 0) {
      ssize_t n = read(fds[0], chunk, sizeof(chunk));
      if (n == 0) break;
      if (n > 0 && out->err.len < (1u << 20)) {
        tq_status_t status = tq_buf_append(&out->err, chunk, (size_t)n);
        ck_assert(status == NULL);
      }
      if (n < 0 && errno != EINTR) break;
    } else if (now_seconds() - t0 > timeout) {
      kill(pid, SIGKILL);
      killed = 1;
      break;
    }
  }
  close(fds[0]);
  int wstatus;
  while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  out->seconds = now_seconds() - t0;
  ck_assert_msg(!killed, "%s hung (killed after %.0f s)", argv[1] ? argv[1] : tool, timeout);
  tq_status_t status = tq_buf_append(&out->err, "", 0);
  ck_assert(status == NULL);
  out->exit_code = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;
  out->signal = WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : 0;
  ck_assert_msg(out->signal == 0, "torq-compile died of signal %d; stderr: %.400s", out->signal,
                out->err.data ? out->err.data : "");
  ck_assert_msg(out->exit_code != 126 && out->exit_code != 127, "could not run %s", tool);
}

/* Runs torq-compile on `text` written to a file, expecting exit 1 and the diagnostic `e` on stderr,
 * and no output file. */
static void cli_expect_rejected(const char *what, const char *text, size_t len, const expect_t *e) {
  const char *tool = cli_path();
  char model[PATH_MAX], output[PATH_MAX + 8];
  char name[96];
  snprintf(name, sizeof(name), "%s.mlir", what);
  tmp_write(name, text, len, model);
  snprintf(output, sizeof(output), "%s.out", model);
  const char *args[] = {model, "--compile-to=input", "-o", output, NULL};
  cli_result_t r;
  cli_run(tool, args, 60.0, &r);
  ck_assert_msg(r.exit_code == 1, "%s: exit %d, expected 1; stderr: %.400s", what, r.exit_code,
                r.err.data);
  check_diagnostic(what, r.err.data, model, text, len, e);
  ck_assert_msg(access(output, F_OK) != 0, "%s: an output file was left after an error", what);
  tq_buf_deinit(&r.err);
}

static const char *const cli_case_names[] = {
    "undefined_value",      "unterminated_string", "return_type_mismatch",     "redefinition",
    "hex_odd_length",       "dense_i8_overflow",   "missing_brace_at_eof",     "func_without_name",
    "unknown_element_type", "loc_alias_undefined", "loc_alias_cycle_callsite",
};
#define CLI_CASE_COUNT ((int)(sizeof(cli_case_names) / sizeof(cli_case_names[0])))

START_TEST(cli_rejects_bad_model_with_location) {
  const bad_case_t *c = NULL;
  for (int i = 0; i < BAD_CASE_COUNT; i++)
    if (strcmp(bad_cases[i].name, cli_case_names[_i]) == 0) c = &bad_cases[i];
  ck_assert_msg(c != NULL, "no table case %s", cli_case_names[_i]);
  expect_t e = bad_case_expect(c);
  cli_expect_rejected(c->name, c->text, strlen(c->text), &e);
}
END_TEST

START_TEST(cli_rejects_nul_byte) {
  expect_t e = {3, 3, {12}, NULL};
  cli_expect_rejected("nul_byte", nul_model, sizeof(nul_model) - 1, &e);
}
END_TEST

START_TEST(cli_rejects_deep_nesting) {
  size_t len;
  long line;
  char *text = nested_model(NEST_BRACKETS, 100000, 1, &len, &line);
  expect_t e = {line, line, {0}, "nest|depth|deep|limit"};
  cli_expect_rejected("deep_nesting", text, len, &e);
  free(text);
}
END_TEST

START_TEST(cli_rejects_truncated_model) {
  tq_buf_t model;
  if (!corpus_read(TRUNC_SMALL, &model)) return;
  size_t cut = model.len / 2;
  expect_t e = {line_of_offset(model.data, cut - 1), line_of_offset(model.data, cut), {0}, NULL};
  cli_expect_rejected("truncated", model.data, cut, &e);
  tq_buf_deinit(&model);
}
END_TEST

/* Usage errors exit 2 and say what was wrong. "@M" stands for a valid model's path. */
typedef struct usage_case_s {
  const char *args[5];
  const char *words;
} usage_case_t;

static const usage_case_t usage_cases[] = {
    {{NULL}, "usage|model|missing|argument"},
    {{"@M", "--frobnicate", "--compile-to=input", NULL}, "frobnicate"},
    {{"@M", "--compile-to=bogus", NULL}, "bogus"},
    {{"@M", "--compile-to=input", "-o", NULL}, "-o|argument|missing|usage"},
};

START_TEST(cli_rejects_bad_usage) {
  const char *tool = cli_path();
  char model[PATH_MAX];
  tmp_write("usage.mlir", VALID, strlen(VALID), model);
  const char *args[6] = {NULL};
  for (int i = 0; i < 5 && usage_cases[_i].args[i]; i++)
    args[i] = strcmp(usage_cases[_i].args[i], "@M") == 0 ? model : usage_cases[_i].args[i];
  cli_result_t r;
  cli_run(tool, args, 30.0, &r);
  ck_assert_msg(r.exit_code == 2, "usage case %d: exit %d, expected 2; stderr: %.300s", _i,
                r.exit_code, r.err.data);
  ck_assert_msg(has_any_word(r.err.data, usage_cases[_i].words),
                "usage case %d: stderr names none of '%s': %.300s", _i, usage_cases[_i].words,
                r.err.data);
  tq_buf_deinit(&r.err);
}
END_TEST

/* A model path that is missing or a directory: exit 1 or 2, naming the path. */
static void cli_expect_unreadable(const char *path) {
  const char *tool = cli_path();
  const char *args[] = {path, "--compile-to=input", NULL};
  cli_result_t r;
  cli_run(tool, args, 30.0, &r);
  ck_assert_msg(r.exit_code == 1 || r.exit_code == 2, "%s: exit %d; stderr: %.300s", path,
                r.exit_code, r.err.data);
  ck_assert_msg(strstr(r.err.data, path) != NULL, "stderr does not name %s: %.300s", path,
                r.err.data);
  tq_buf_deinit(&r.err);
}

START_TEST(cli_rejects_missing_file) {
  char path[PATH_MAX];
  tmp_path("no-such-model.mlir", path);
  cli_expect_unreadable(path);
}
END_TEST

START_TEST(cli_rejects_directory) {
  cli_expect_unreadable(tmp_dir);
}
END_TEST

/* The control case: the same files that fail above, fixed, pass. Also the huge literal, once. */
static void cli_expect_accepted(const char *name, const char *text, size_t len, double max_seconds,
                                size_t min_output) {
  const char *tool = cli_path();
  char model[PATH_MAX], output[PATH_MAX + 8];
  tmp_write(name, text, len, model);
  snprintf(output, sizeof(output), "%s.out", model);
  const char *args[] = {model, "--compile-to=input", "-o", output, NULL};
  cli_result_t r;
  cli_run(tool, args, 120.0, &r);
  ck_assert_msg(r.exit_code == 0, "%s: exit %d; stderr: %.300s", name, r.exit_code, r.err.data);
  struct stat st;
  ck_assert_msg(stat(output, &st) == 0, "%s: no output file", name);
  ck_assert_msg((size_t)st.st_size >= min_output, "%s: %lld bytes of output, expected %zu+", name,
                (long long)st.st_size, min_output);
  if (!under_valgrind()) ck_assert_msg(r.seconds < max_seconds, "%s took %.1f s", name, r.seconds);
  tq_buf_deinit(&r.err);
}

START_TEST(cli_accepts_valid_model) {
  cli_expect_accepted("valid.mlir", VALID, strlen(VALID), 10.0, 40);
}
END_TEST

/* A compilation that fails after parsing (here: no tile of the conv fits a 1 KiB LRAM) exits 1
 * with a located diagnostic and leaves the output path as it was: absent stays absent, an
 * existing module keeps its bytes (the module is written to a temporary name and renamed). */
START_TEST(cli_failed_compile_leaves_output_alone) {
  const char *tool = cli_path();
  static const char conv[] =
      "func.func @main(%arg0: tensor<1x8x8x64xi8>) -> tensor<1x8x8x64xi32> {\n"
      "  %w = \"tosa.const\"() <{values = dense<3> : tensor<64x3x3x64xi8>}> : () -> "
      "tensor<64x3x3x64xi8>\n"
      "  %b = \"tosa.const\"() <{values = dense<0> : tensor<64xi32>}> : () -> tensor<64xi32>\n"
      "  %zp = \"tosa.const\"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>\n"
      "  %0 = tosa.conv2d %arg0, %w, %b, %zp, %zp {acc_type = i32, dilation = array<i64: 1, 1>, "
      "pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x8x8x64xi8>, "
      "tensor<64x3x3x64xi8>, tensor<64xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x8x64xi32>\n"
      "  return %0 : tensor<1x8x8x64xi32>\n"
      "}\n";
  char model[PATH_MAX], output[PATH_MAX];
  tmp_write("conv.mlir", conv, sizeof(conv) - 1, model);
  tmp_path("conv.vmfb", output);
  const char *small[] = {model, "-o", output, "--torq-hw=sl2610,lram=1K", NULL};
  cli_result_t r;
  cli_run(tool, small, 60.0, &r);
  ck_assert_msg(r.exit_code == 1, "exit %d, expected 1; stderr: %.400s", r.exit_code, r.err.data);
  ck_assert_msg(strstr(r.err.data, ":5:8: error: ") && strstr(r.err.data, "LRAM"),
                "no located LRAM diagnostic: %.400s", r.err.data);
  ck_assert_msg(access(output, F_OK) != 0, "a module was left after a failed compile");
  tq_buf_deinit(&r.err);

  /* The same model compiles with the default LRAM; a failed compile then keeps those bytes. */
  const char *ok[] = {model, "-o", output, NULL};
  cli_run(tool, ok, 60.0, &r);
  ck_assert_msg(r.exit_code == 0, "exit %d; stderr: %.400s", r.exit_code, r.err.data);
  tq_buf_deinit(&r.err);
  tq_buf_t before, after;
  TT_ASSERT_OK(tq_file_read(output, 0, &before));
  ck_assert_uint_gt(before.len, 8);
  ck_assert_int_eq(memcmp(before.data + 2, "TORQVMFB", 8), 0);
  cli_run(tool, small, 60.0, &r);
  ck_assert_int_eq(r.exit_code, 1);
  tq_buf_deinit(&r.err);
  TT_ASSERT_OK(tq_file_read(output, 0, &after));
  ck_assert_uint_eq(after.len, before.len);
  ck_assert_int_eq(memcmp(after.data, before.data, before.len), 0);
  tq_buf_deinit(&before);
  tq_buf_deinit(&after);

  const char *bad_hw[] = {model, "-o", output, "--torq-hw=sl2610,lram=", NULL};
  cli_run(tool, bad_hw, 60.0, &r);
  ck_assert_msg(r.exit_code == 2, "bad --torq-hw: exit %d, expected 2; stderr: %.400s",
                r.exit_code, r.err.data);
  ck_assert_msg(strstr(r.err.data, "--torq-hw"), "message does not name --torq-hw: %.400s",
                r.err.data);
  tq_buf_deinit(&r.err);
}
END_TEST

START_TEST(cli_reads_huge_literal) {
  size_t len;
  char *text = huge_model(huge_bytes(), 0, 0, &len);
  cli_expect_accepted("huge.mlir", text, len, 30.0, 2 * huge_bytes());
  free(text);
}
END_TEST

/* ---- the suite ------------------------------------------------------------------------------ */

static TCase *tcase_new(Suite *suite, const char *name, double timeout, int with_tmp) {
  TCase *tc = tcase_create(name);
  tcase_set_timeout(tc, timeout);
  if (with_tmp) tcase_add_unchecked_fixture(tc, tmp_setup, tmp_teardown);
  suite_add_tcase(suite, tc);
  return tc;
}

Suite *bad_input_suite(void) {
  Suite *s = suite_create("bad_input");
  TCase *tc = tcase_new(s, "malformed", 10, 0);
  tcase_add_loop_test(tc, parser_rejects_bad_model_with_location, 0, BAD_CASE_COUNT);
  tcase_add_test(tc, parser_rejects_nul_byte_with_location);
  tcase_add_test(tc, parser_handles_invalid_utf8_in_string);
  tcase_add_test(tc, parser_handles_empty_file);
  tcase_add_test(tc, parser_handles_whitespace_and_comments_only);
  tcase_add_loop_test(tc, parser_round_trips_edge_literals, 0,
                      (int)(sizeof(edge_literals) / sizeof(edge_literals[0])));
  tcase_add_loop_test(tc, parser_survives_allocation_failure, 0, 64);

  tc = tcase_new(s, "nesting", 30, 0);
  tcase_add_loop_test(tc, parser_limits_deep_nesting, 0, 6);
  tcase_add_loop_test(tc, parser_accepts_nesting_within_limit, 0, 3);

  tc = tcase_new(s, "truncated", 10, 0);
  tcase_add_loop_test(tc, parser_rejects_truncated_small_model, 0, truncation_batches(TRUNC_SMALL));
  tcase_add_loop_test(tc, parser_rejects_truncated_mid_size_model, 0,
                      truncation_batches(TRUNC_MID));

  tc = tcase_new(s, "mutated", 10, 0);
  tcase_add_loop_test(tc, parser_survives_mutated_model, 0,
                      (under_valgrind() ? 30 : 300) / MUTANT_BATCH);

  tc = tcase_new(s, "huge", 120, 0);
  tcase_add_test(tc, parser_reads_huge_hex_literal);
  tcase_add_test(tc, parser_reads_huge_list_literal);
  tcase_add_test(tc, parser_rejects_huge_malformed_literal);
  tcase_add_test(tc, parser_honours_arena_limit);

  tc = tcase_new(s, "files", 10, 1);
  tcase_add_test(tc, parse_file_names_missing_file);
  tcase_add_test(tc, parse_file_rejects_directory);
  tcase_add_test(tc, parse_file_locates_errors_in_that_file);

  tc = tcase_new(s, "cli", 60, 1);
  tcase_add_loop_test(tc, cli_rejects_bad_model_with_location, 0, CLI_CASE_COUNT);
  tcase_add_loop_test(tc, cli_rejects_bad_usage, 0,
                      (int)(sizeof(usage_cases) / sizeof(usage_cases[0])));
  tcase_add_test(tc, cli_rejects_nul_byte);
  tcase_add_test(tc, cli_rejects_deep_nesting);
  tcase_add_test(tc, cli_rejects_truncated_model);
  tcase_add_test(tc, cli_rejects_missing_file);
  tcase_add_test(tc, cli_rejects_directory);
  tcase_add_test(tc, cli_accepts_valid_model);
  tcase_add_test(tc, cli_failed_compile_leaves_output_alone);

  tc = tcase_new(s, "cli_huge", 180, 1);
  tcase_add_test(tc, cli_reads_huge_literal);
  return s;
}
