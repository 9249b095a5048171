/* Suites: every feature parsed to its values, bad suites reported with file:line:col, globs,
 * ${VAR}, file-system-safe ids, expectations. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "suite_testutil.h"
#include "torq/base/alloc.h"
#include "torq/harness/suite.h"
#include "tq_test.h"

Suite *suite_suite(void);

static char *dir;

static void setup(void) {
  dir = st_tmpdir();
  st_write(dir, "models/conv.mlir", "// conv\n");
  st_write(dir, "models/b.mlir", "// b\n");
  st_write(dir, "models/a.mlir", "// a\n");
  st_write(dir, "models/C.mlir", "// C\n");
  st_write(dir, "models/a_1.mlir", "// a_1\n");
  st_write(dir, "models/notes.txt", "not a model\n");
  st_mkdir(dir, "models/folder.mlir"); /* matches the glob, but is no file */
  st_write(dir, "data/in.npy", "npy\n");
  st_write(dir, "data/raw.bin", "raw\n");
  st_mkdir(dir, "empty");
  /* Paths that exist but cannot be read as files (a FIFO would block whoever reads it). */
  ck_assert_int_eq(mkfifo(st_path(dir, "models/fifo.mlir"), 0600), 0);
  ck_assert_int_eq(mkfifo(st_path(dir, "data/fifo.npy"), 0600), 0);
}

static void teardown(void) {
  st_rmtree(dir);
  dir = NULL;
}

static const char *const test_env[] = {"TORQ_MODELS=models", "TORQ_EMPTY=", "HOME=/home/t", NULL};

/* Loads `yaml` as dir/s.yaml with the test environment; errors go to `errors`. */
static tq_status_t load(const char *yaml, tqh_diags_t *errors, tqh_suite_t **out) {
  tqh_suite_options_t o;
  tqh_suite_options_initialize(&o);
  o.env = test_env;
  o.errors = errors;
  return tqh_suite_load_buffer(st_path(dir, "s.yaml"), yaml, strlen(yaml), &o, out);
}

/* Loads a suite that must be good. */
static tqh_suite_t *load_ok(const char *yaml) {
  tqh_diags_t errors;
  tqh_diags_init_max(&errors, TQH_ERRORS_DEFAULT_MAX);
  tqh_suite_t *s = NULL;
  tq_status_t st = load(yaml, &errors, &s);
  if (st) {
    char *text = st_errors_text(&errors);
    tq_status_free(st);
    ck_abort_msg("the suite should load:\n%s", text);
  }
  tqh_diags_deinit(&errors);
  ck_assert_ptr_nonnull(s);
  return s;
}

/* ---- Bad suites ---------------------------------------------------------------------------- */

typedef struct bad_case_s {
  const char *yaml;
  uint32_t line, col;
  const char *needle;
} bad_case_t;

#define T "tests:\n  - model: models/conv.mlir\n"

static const bad_case_t bad_cases[] = {
    /* Keys and types. */
    {"suit: x\n" T, 1, 1, "unknown key \"suit\" in a suite (did you mean \"suite\"?)"},
    {T "    repat: 2\n", 3, 5,
     "unknown key \"repat\" in a test (did you mean \"repeat\"?); allowed keys: name, "
     "description, model, inputs"},
    {"defaults:\n  name: x\n" T, 2, 3, "unknown key \"name\" in defaults"},
    {"defaults:\n  xfail: x\n" T, 2, 3, "unknown key \"xfail\" in defaults"},
    {T "    repeat: many\n", 3, 13, "repeat: expected an integer, found the string \"many\""},
    {T "    repeat: -2\n", 3, 13, "repeat must be between 1 and 1000000, found -2"},
    {T "    repeat: 0\n", 3, 13, "repeat must be between 1 and 1000000, found 0"},
    {T "    warmup: 1.5\n", 3, 13, "warmup: expected an integer, found a number"},
    {T "    seed: -1\n", 3, 11, "seed must be between 0 and 18446744073709551615"},
    {T "    function: \"1abc\"\n", 3, 15, "is not a function name"},
    {T "    description: [a]\n", 3, 18, "description: expected a string, found a list"},
    {"tests:\n  - name: true\n    model: models/conv.mlir\n", 2, 11, "quote it"},
    {T "    repeat: !!int 3\n", 3, 13, "YAML tags such as"},
    {T "    [a]: 1\n", 3, 5, "a key must be a plain value"},
    {"tests:\r\n  - model: models/conv.mlir\r\n    repeat: x\r\n", 3, 13,
     "repeat: expected an integer"},
    /* The model. */
    {"tests:\n  - model: models/none.mlir\n", 2, 12,
     "model file \"models/none.mlir\" not found (looked for "},
    {"tests:\n  - model: {path: /dev/zero}\n", 2, 19,
     "model file \"/dev/zero\" is a character device, not a file"},
    {"tests:\n  - model: models\n", 2, 12,
     "model file \"models\" is a folder, not a file (looked for "},
    {"tests:\n  - model: models/fifo.mlir\n", 2, 12,
     "model file \"models/fifo.mlir\" is a FIFO (named pipe), not a file (looked for "},
    {T "    inputs: [\"1x4xi8=@data\"]\n", 3, 14, "input file \"data\" is a folder, not a file"},
    {T "    inputs: [\"@data/fifo.npy\"]\n", 3, 14,
     "input file \"data/fifo.npy\" is a FIFO (named pipe), not a file"},
    {"tests:\n  - model: \"\"\n", 2, 12, "model: the path is empty"},
    {"tests:\n  - name: x\n", 2, 5, "a test needs a model:"},
    {"tests:\n  - model: models/*.onnx\n", 2, 12, "the glob \"models/*.onnx\" matches no file"},
    {"tests:\n  - model: empty/*\n", 2, 12, "matches no file"},
    {"tests:\n  - name: fixed\n    model: models/*.mlir\n", 2, 11, "needs {stem}"},
    {"tests:\n  - model: {url: \"https://h/m.mlir\", sha256: abc}\n", 2, 46,
     "model.sha256: expected 64 hex digits, found 3 characters"},
    {"tests:\n  - model: {url: \"https://h/m.mlir\", sha256: "
     "g123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef}\n",
     2, 46, "expected 64 hex digits, found 64 characters"},
    {"tests:\n  - model: {url: \"https://h/m.mlir\"}\n", 2, 12, "needs its sha256"},
    {"tests:\n  - model: {url: \"ftp://h/m.mlir\", sha256: x}\n", 2, 18,
     "is not an http:// or https:// URL"},
    {"tests:\n  - model: {path: a, glob: b}\n", 2, 12, "give exactly one of path:, glob: or url:"},
    {"tests:\n  - model: {path: models/conv.mlir, sha256: y}\n", 2, 45,
     "only a url: model has a sha256"},
    {"tests:\n  - model: [a]\n", 2, 12, "model: expected a path, a glob or {url: URL"},
    /* Inputs. */
    {T "    inputs: [\"1x4xq8=1\"]\n", 3, 14,
     "inputs[0]: bad input spec: --input \"1x4xq8=1\": unknown element type \"q8\""},
    {T "    inputs: [\"@random\"]\n", 3, 14, "@random needs a SHAPExTYPE"},
    {T "    inputs: [\"@data/none.npy\"]\n", 3, 14, "input file \"data/none.npy\" not found"},
    {T "    inputs: [1x2xi8=300]\n", 3, 14, "is out of range for i8"},
    {T "    inputs: [1x2xi8=1,2]\n", 3, 23, "quote an input whose values hold commas"},
    {T "    inputs: [\"1x3xi8=1,2\"]\n", 3, 14, "inputs[0]: bad input spec"},
    {T "    inputs: [\"1000x1000x2xi8=1,2\"]\n", 3, 14, "a list of values for a tensor this large"},
    {T "    inputs: [1000x1000x2xi8=999]\n", 3, 14, "out of range for i8"},
    {T "    inputs: [\"@data/raw.bin\"]\n", 3, 14, "a raw file needs its SHAPExTYPE"},
    {T "    inputs: [1x4xi8=@]\n", 3, 14, "missing file name after '@'"},
    {T "    inputs: [1x4xzz=@data/raw.bin]\n", 3, 14, "unknown element type \"zz\""},
    {T "    inputs: 5\n", 3, 13, "inputs: expected random, {random: SEED} or a list"},
    {T "    inputs: {random: x}\n", 3, 22, "random: expected an integer, found the string \"x\""},
    {T "    inputs: {seed: 3}\n", 3, 14, "unknown key \"seed\" in inputs"},
    {T "    inputs: [{random: 1, seed: 2}]\n", 3, 26, "unknown key \"seed\" in inputs[0]"},
    /* Names. */
    {"tests:\n  - name: x\n    model: models/conv.mlir\n  - name: x\n    model: models/a.mlir\n", 4,
     11, "duplicate test name \"x\""},
    {"tests:\n  - model: models/a.mlir\n  - model: models/a.mlir\n", 3, 5,
     "duplicate test name \"a\""},
    {"tests:\n  - name: x\n    model: models/none.mlir\n  - name: x\n    model: models/a.mlir\n", 4,
     11, "duplicate test name \"x\""},
    {"tests:\n  - name: \"x[1]\"\n    model: models/conv.mlir\n", 2, 11, "holds '['"},
    {"tests:\n  - name: \"a//b\"\n    model: models/conv.mlir\n", 2, 11, "has an empty part"},
    {"suite: \"bad name\"\n" T, 1, 8, "is not a suite name"},
    /* Expected failures and skips. */
    {T "    xfail: true\n", 3, 12, "xfail needs a reason"},
    {T "    xfail: {strict: true}\n", 3, 12, "xfail needs a reason"},
    {T "    xfail: \"\"\n", 3, 12, "xfail: the reason is empty"},
    {T "    xfail: {reason: x, strict: maybe}\n", 3, 32, "xfail.strict: expected true or false"},
    {T "    skip: true\n", 3, 11, "skip needs a reason"},
    /* Tags and expectations. */
    {T "    tags: [\"a b\"]\n", 3, 12, "is not a tag"},
    {T "    tags: [and]\n", 3, 12, "is not a tag"},
    {T "    tags: {a: 1}\n", 3, 11, "tags: expected a tag or a list of tags, found a mapping"},
    {T "    expect: {overall: 5}\n", 3, 14, "\"overall\" is not a metric"},
    {T "    expect: {overall_us: {min: 5, max: 1}}\n", 3, 26, "min (5) is above max (1)"},
    {T "    expect: {overall_us: {baseline: 5}}\n", 3, 37, "a baseline needs a tolerance"},
    {T "    expect: {overall_us: {max: 5, stat: p99}}\n", 3, 41, "is not a statistic"},
    {T "    expect: {overall_us: {baseline: 5, tolerance: lots}}\n", 3, 51,
     "tolerance: expected a fraction"},
    {T "    expect: {overall_us: {}}\n", 3, 26, "give max:, min: or baseline:"},
    {T "    expect: {overall_us: -3}\n", 3, 26, "overall_us must be >= 0"},
    {T "    expect: [overall_us]\n", 3, 13, "expect: expected a mapping of metrics"},
    /* Settings. */
    {T "    timeout: 0\n", 3, 14, "timeout must be > 0"},
    {T "    timeout: fast\n", 3, 14, "timeout: expected seconds"},
    {T "    timeout: {compile: 1, walk: 2}\n", 3, 27, "unknown key \"walk\" in timeout"},
    {T "    reference: {atol: -1}\n", 3, 23, "reference.atol must be >= 0"},
    {T "    reference: maybe\n", 3, 16, "reference: expected true, false or"},
    {T "    targets: []\n", 3, 14, "targets: the list is empty"},
    {T "    targets: [\"bad name\"]\n", 3, 15, "is not a target"},
    {T "    targets: [sim, sim]\n", 3, 20, "\"sim\" is listed twice"},
    {T "    compile_options: [--bogus]\n", 3, 23, "unknown compile option \"--bogus\""},
    {T "    compile_options: [\"--torq-hw=nonsense\"]\n", 3, 23, "--torq-hw:"},
    {T "    compile_options: [--torq-debug-info=x]\n", 3, 23, "is set by torq-test"},
    {T "    compile_options: [torq-hw]\n", 3, 23, "compile options start with \"--\""},
    /* The baseline floor. */
    {T "    baseline: 10\n", 3, 15,
     "baseline: expected {floor: PERCENT, gate: [METRIC, ...]}, found an integer"},
    {T "    baseline: {gate: [wall_time, 3]}\n", 3, 34,
     "baseline.gate: expected metric names (wall_time, OVERALL, ...), found an integer"},
    {T "    baseline: {}\n", 3, 15, "baseline: expected {floor: PERCENT}"},
    {T "    baseline: {floor: -1}\n", 3, 23, "baseline.floor must be >= 0, found -1"},
    {T "    baseline: {floor: 20000}\n", 3, 23, "baseline.floor must be <= 10000 (percent)"},
    {T "    baseline: {floor: true}\n", 3, 23,
     "baseline.floor: expected a number, found the boolean true"},
    {T "    baseline: {floor: lots}\n", 3, 23,
     "baseline.floor: 'lots': expected a percentage from 0 to 10000"},
    {T "    baseline: {floor: \"-5%\"}\n", 3, 23, "baseline.floor: '-5%': expected a percentage"},
    {T "    baseline: {flor: 10}\n", 3, 16,
     "unknown key \"flor\" in baseline (did you mean \"floor\"?); allowed keys: floor"},
    {"defaults:\n  baseline:\n    floor: 3\n    k: 2\n" T, 4, 5, "unknown key \"k\" in baseline"},
    {"baseline: {floor: 10}\n" T, 1, 1, "unknown key \"baseline\" in a suite"},
    /* The suite's shape. */
    {"suite: s\n", 1, 1, "a suite needs tests:"},
    {"tests: []\n", 1, 8, "tests: the list is empty"},
    {"tests: {a: 1}\n", 1, 8, "tests: expected a list of tests, found a mapping"},
    {"tests:\n  - models/conv.mlir\n", 2, 5, "each test is a mapping"},
    {"- a\n- b\n", 1, 1, "a suite is a mapping"},
    {"", 0, 0, "the file is empty"},
    {"# only a comment\n", 0, 0, "the file is empty"},
    /* YAML itself. */
    {"tests: [\n", 2, 1, "YAML: "},
    {"tests:\n  - model: @x\n", 2, 12, "must be quoted: \"@in.npy\""},
    {T "    model: models/a.mlir\n", 3, 5, "duplicate key \"model\""},
    {T "---\ntests: []\n", 3, 1, "a second YAML document"},
    {"tests:\n  - model: *m\n", 2, 12, "unknown alias *m"},
    {"tests: &x [*x]\n", 1, 12, "refers to a node that contains it"},
    {"a: &a [x, x, x, x, x, x, x, x, x, x]\n"
     "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
     "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
     "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
     "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n",
     5, 36, "more than 100000 nodes once its aliases are expanded"},
    {"tests:\n  - model: \"a\xff\"\n", 2, 14, "(suites are UTF-8 text)"},
    /* ${VAR}. */
    {"tests:\n  - model: ${TORQ_NOPE}/a.mlir\n", 2, 12,
     "environment variable TORQ_NOPE is not set (set it, or give a default"},
    {"tests:\n  - model: models/${1X}.mlir\n", 2, 19, "expected a name after \"${\""},
    {"tests:\n  - model: models/${X\n", 2, 19, "unterminated \"${X\""},
    {"tests:\n  - model: models/${X:-a\n", 2, 19, "unterminated \"${X:-\""},
    {"tests:\n  - model: models/${X?}\n", 2, 19, "expected '}' or ':-DEFAULT}'"},
    {"tests:\n  - model: ${TORQ_EMPTY}/a.mlir\n", 2, 12, "TORQ_EMPTY is not set"},
};

#define BAD_CASE_COUNT ((int)(sizeof(bad_cases) / sizeof(bad_cases[0])))

START_TEST(suite_rejects_bad_suite_with_location) {
  const bad_case_t *c = &bad_cases[_i];
  tqh_diags_t errors;
  tqh_diags_init_max(&errors, TQH_ERRORS_DEFAULT_MAX);
  tqh_suite_t *s = NULL;
  tq_status_t st = load(c->yaml, &errors, &s);
  ck_assert_ptr_null(s);
  ck_assert_msg(st != NULL, "case %d should fail", _i);
  ck_assert_int_eq(tq_status_code(st), TQ_INVALID_ARGUMENT);
  const tqh_diag_t *e = st_find_error(&errors, c->line, c->col, c->needle);
  char *text = st_errors_text(&errors);
  ck_assert_msg(e != NULL, "case %d: no error at %u:%u with \"%s\"; got:\n%s", _i, c->line, c->col,
                c->needle, text);
  /* The status holds the same text, led by file:line:col. */
  char head[4200];
  if (c->line)
    snprintf(head, sizeof(head), "%s:%u:%u: error: ", st_path(dir, "s.yaml"), c->line, c->col);
  else
    snprintf(head, sizeof(head), "%s: error: ", st_path(dir, "s.yaml"));
  ck_assert_msg(strstr(tq_status_message(st), head) != NULL, "case %d: no \"%s\" in:\n%s", _i, head,
                tq_status_message(st));
  ck_assert_str_eq(e->file, st_path(dir, "s.yaml"));
  free(text);
  tq_status_free(st);
  tqh_diags_deinit(&errors);
}
END_TEST

START_TEST(suite_error_shows_source_line_and_caret) {
  tqh_diags_t errors;
  tqh_diags_init_max(&errors, TQH_ERRORS_DEFAULT_MAX);
  tqh_suite_t *s = NULL;
  tq_status_t st = load(T "    repeat: many\n", &errors, &s);
  ck_assert_ptr_nonnull(st);
  ck_assert_int_eq(errors.count, 1);
  char want[4400];
  snprintf(want, sizeof(want),
           "%s:3:13: error: repeat: expected an integer, found the string \"many\"\n"
           "    repeat: many\n"
           "            ^",
           st_path(dir, "s.yaml"));
  ck_assert_str_eq(errors.items[0].text, want);
  snprintf(want + strlen(want), sizeof(want) - strlen(want), "\n1 error");
  ck_assert_str_eq(tq_status_message(st), want);
  tq_status_free(st);
  tqh_diags_deinit(&errors);
}
END_TEST

START_TEST(suite_caret_counts_characters_not_bytes) {
  tqh_diags_t errors;
  tqh_diags_init_max(&errors, TQH_ERRORS_DEFAULT_MAX);
  tqh_suite_t *s = NULL;
  tq_status_t st = load(
      "description: \"\xc3\xa9\xc3\xa9\"\ntests:\n  - model: models/conv.mlir\n"
      "    tags: [\xc3\xa9, \"b c\"]\n",
      &errors, &s);
  ck_assert_ptr_nonnull(st);
  /* é is one character: "    tags: [é, " puts "b c" at column 15. */
  const tqh_diag_t *e = st_find_error(&errors, 4, 12, "is not a tag");
  ck_assert_ptr_nonnull(e);
  e = st_find_error(&errors, 4, 15, "is not a tag");
  ck_assert_ptr_nonnull(e);
  ck_assert_ptr_nonnull(strstr(e->text, "\n    tags: [\xc3\xa9, \"b c\"]\n              ^"));
  tq_status_free(st);
  tqh_diags_deinit(&errors);
}
END_TEST

START_TEST(suite_duplicate_name_names_both_locations) {
  tqh_diags_t errors;
  tqh_diags_init_max(&errors, TQH_ERRORS_DEFAULT_MAX);
  tqh_suite_t *s = NULL;
  tq_status_t st = load(
      "tests:\n  - name: x\n    model: models/conv.mlir\n  - name: x\n"
      "    model: models/a.mlir\n",
      &errors, &s);
  ck_assert_ptr_nonnull(st);
  ck_assert_int_eq(errors.errors, 1);
  char want[4400];
  snprintf(want, sizeof(want), "%s:2:11: note: first defined here\n  - name: x\n          ^",
           st_path(dir, "s.yaml"));
  ck_assert_ptr_nonnull(strstr(errors.items[0].text, want));
  tq_status_free(st);
  tqh_diags_deinit(&errors);
}
END_TEST

START_TEST(suite_collects_every_error_in_file_order) {
  tqh_diags_t errors;
  tqh_diags_init_max(&errors, TQH_ERRORS_DEFAULT_MAX);
  tqh_suite_t *s = NULL;
  tq_status_t st = load(
      "tests:\n"
      "  - model: models/none.mlir\n"
      "    repeat: -1\n"
      "  - model: models/*.onnx\n"
      "    xfail: true\n"
      "  - name: a\n"
      "    model: models/a.mlir\n"
      "    inputs: [\"1x2xq8=1\"]\n",
      &errors, &s);
  ck_assert_ptr_nonnull(st);
  ck_assert_int_eq(errors.errors, 5);
  ck_assert_int_eq(errors.count, 5);
  uint32_t lines[] = {2, 3, 4, 5, 8};
  for (size_t i = 0; i < 5; i++) ck_assert_uint_eq(errors.items[i].line, lines[i]);
  /* Line 7 (a good model) has no error; the others are in file order. */
  ck_assert_ptr_nonnull(strstr(tq_status_message(st), "5 errors"));
  tq_status_free(st);
  tqh_diags_deinit(&errors);
}
END_TEST

START_TEST(suite_limits_kept_errors) {
  tq_buf_t y;
  tq_buf_init(&y, 0);
  ck_assert_ptr_null(tq_buf_append_cstr(&y, "tests:\n"));
  for (int i = 0; i < 60; i++)
    ck_assert_ptr_null(tq_buf_printf(&y,
                                     "  - name: t%d\n    model: models/conv.mlir\n"
                                     "    repeat: -1\n",
                                     i));
  tqh_diags_t errors;
  tqh_diags_init_max(&errors, TQH_ERRORS_DEFAULT_MAX);
  tqh_suite_options_t o;
  tqh_suite_options_initialize(&o);
  o.errors = &errors;
  o.max_errors = 10;
  tqh_suite_t *s = NULL;
  tq_status_t st = tqh_suite_load_buffer(st_path(dir, "s.yaml"), y.data, y.len, &o, &s);
  ck_assert_ptr_nonnull(st);
  ck_assert_int_eq(errors.count, 10);
  ck_assert_int_eq(errors.errors, 60);
  ck_assert_ptr_nonnull(strstr(tq_status_message(st), "... and 50 more errors"));
  tq_status_free(st);
  tqh_diags_deinit(&errors);
  tq_buf_deinit(&y);
}
END_TEST

START_TEST(suite_load_of_missing_file_is_a_usage_error) {
  tqh_suite_t *s = NULL;
  tq_status_t st = tqh_suite_load(st_path(dir, "nope.yaml"), NULL, &s);
  ck_assert_ptr_null(s);
  ck_assert_int_eq(tq_status_code(st), TQ_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(tq_status_message(st), "cannot read the suite"));
  tq_status_free(st);
}
END_TEST

/* ---- Good suites --------------------------------------------------------------------------- */

static const char full_suite[] =
    "suite: full\n"
    "description: every feature\n"
    "defaults:\n"
    "  targets: [sim]\n"
    "  repeat: 4\n"
    "  warmup: 2\n"
    "  timeout: {compile: 100, run: 7.5}\n"
    "  reference: {compare: true, atol: 0.01, rtol: 0.02}\n"
    "  seed: 11\n"
    "  compile_options: [\"--torq-hw=sl2610,lram=256K\"]\n"
    "  function: main\n"
    "  tags: [base, shared]\n"
    "  inputs: random\n"
    "  expect:\n"
    "    wall_time_s: {max: 0.5}\n"
    "    overall_us: {max: 1200}\n"
    "tests:\n"
    "  - name: conv\n" /* 18 */
    "    description: a conv\n"
    "    model: ${TORQ_MODELS}/conv.mlir\n"
    "    inputs:\n"
    "      - 1x4xi8=1\n" /* 22 */
    "      - \"2x2xi32=1,2,3,4\"\n"
    "      - \"@data/in.npy\"\n"
    "      - 1x4xi8=@data/raw.bin\n"
    "      - 1x4xi8=@random\n"
    "      - random\n"
    "      - {random: 99}\n"
    "    tags: [conv, shared]\n"
    "    expect:\n"
    "      overall_us: {baseline: 1000, tolerance: 10%, stat: min}\n"
    "      dma_total_pct: {min: 5, max: 50}\n"
    "    xfail: {reason: known bug, strict: true}\n"
    "  - name: url_model\n" /* 34 */
    "    model: {url: \"https://example.com/m/net.mlir?x=1\", sha256: "
    "ABCDEF0123456789abcdef0123456789ABCDEF0123456789abcdef0123456789}\n"
    "    inputs: {random: 5}\n"
    "    targets: [sim, board1]\n"
    "    repeat: 9\n"
    "    timeout: 30\n"
    "    reference: false\n"
    "    skip: needs the network\n"
    "    compile_options: []\n"
    "  - model: models/a.mlir\n" /* 43 */
    "    xfail: plain reason\n"
    "    seed: 0x10\n"
    "  - name: \"glob/{stem}\"\n" /* 46 */
    "    model: {glob: \"models/[ab]*.mlir\"}\n";

START_TEST(suite_parses_every_feature) {
  tqh_suite_t *s = load_ok(full_suite);
  ck_assert_str_eq(s->name, "full");
  ck_assert_str_eq(s->description, "every feature");
  ck_assert_str_eq(s->dir, dir);
  /* conv, url_model x2 targets, a, glob/a glob/a_1 glob/b */
  ck_assert_int_eq(s->test_count, 7);

  const tqh_test_t *t = &s->tests[0];
  ck_assert_ptr_eq(t->suite, s);
  ck_assert_int_eq(t->index, 0);
  ck_assert_str_eq(t->name, "conv");
  ck_assert_str_eq(t->id, "full/conv");
  ck_assert_str_eq(t->fs_id, "full+conv");
  ck_assert_str_eq(t->description, "a conv");
  ck_assert_str_eq(t->target, "sim");
  ck_assert_int_eq(t->model.kind, TQH_MODEL_PATH);
  ck_assert_str_eq(t->model.path, st_path(dir, "models/conv.mlir"));
  ck_assert_ptr_null(t->model.glob);
  ck_assert_uint_eq(t->model.loc.line, 20);
  ck_assert_uint_eq(t->model.loc.col, 12);
  ck_assert_uint_eq(t->loc.line, 18);
  ck_assert_uint_eq(t->loc.col, 5);
  ck_assert_str_eq(t->loc.file, st_path(dir, "s.yaml"));
  /* Settings inherited from the defaults. */
  ck_assert_uint_eq(t->settings.repeat, 4);
  ck_assert_uint_eq(t->settings.warmup, 2);
  ck_assert_double_eq(t->settings.compile_timeout_s, 100);
  ck_assert_double_eq(t->settings.run_timeout_s, 7.5);
  ck_assert_int_eq(t->settings.reference, 1);
  ck_assert_double_eq(t->settings.atol, 0.01);
  ck_assert_double_eq(t->settings.rtol, 0.02);
  ck_assert_uint_eq(t->settings.seed, 11);
  ck_assert_int_eq(t->settings.compile_option_count, 1);
  ck_assert_str_eq(t->settings.compile_options[0], "--torq-hw=sl2610,lram=256K");
  ck_assert_str_eq(t->settings.function, "main");
  ck_assert_int_eq(t->settings.layer[TQH_SET_REPEAT], TQH_LAYER_SUITE);
  ck_assert_int_eq(t->settings.layer[TQH_SET_FUNCTION], TQH_LAYER_SUITE);
  /* Inputs, each resolved. */
  ck_assert_int_eq(t->inputs_random, 0);
  ck_assert_int_eq(t->input_count, 7);
  ck_assert_int_eq(t->inputs[0].kind, TQH_INPUT_TEXT);
  ck_assert_str_eq(t->inputs[0].text, "1x4xi8=1");
  ck_assert_ptr_null(t->inputs[0].file);
  ck_assert_uint_eq(t->inputs[0].seed, 11);
  ck_assert_uint_eq(t->inputs[0].loc.line, 22);
  ck_assert_uint_eq(t->inputs[0].loc.col, 9);
  ck_assert_str_eq(t->inputs[1].text, "2x2xi32=1,2,3,4");
  char want[4200];
  snprintf(want, sizeof(want), "@%s", st_path(dir, "data/in.npy"));
  ck_assert_str_eq(t->inputs[2].text, want);
  ck_assert_str_eq(t->inputs[2].file, st_path(dir, "data/in.npy"));
  snprintf(want, sizeof(want), "1x4xi8=@%s", st_path(dir, "data/raw.bin"));
  ck_assert_str_eq(t->inputs[3].text, want);
  ck_assert_str_eq(t->inputs[3].file, st_path(dir, "data/raw.bin"));
  ck_assert_str_eq(t->inputs[4].text, "1x4xi8=@random");
  ck_assert_ptr_null(t->inputs[4].file);
  ck_assert_int_eq(t->inputs[5].kind, TQH_INPUT_RANDOM);
  ck_assert_uint_eq(t->inputs[5].seed, 11);
  ck_assert_int_eq(t->inputs[6].kind, TQH_INPUT_RANDOM);
  ck_assert_uint_eq(t->inputs[6].seed, 99);
  /* Tags: the defaults', then the test's, without duplicates. */
  ck_assert_int_eq(t->tag_count, 3);
  ck_assert_str_eq(t->tags[0], "base");
  ck_assert_str_eq(t->tags[1], "shared");
  ck_assert_str_eq(t->tags[2], "conv");
  /* Expectations: wall_time from the defaults, overall replaced, dma_total added. */
  ck_assert_int_eq(t->expect_count, 3);
  ck_assert_str_eq(t->expects[0].key, "wall_time_s");
  ck_assert_str_eq(t->expects[0].metric, "wall_time");
  ck_assert_int_eq(t->expects[0].unit, TQH_UNIT_TIME);
  ck_assert_double_eq(t->expects[0].scale, 1.0);
  ck_assert_int_eq(t->expects[0].has_max, 1);
  ck_assert_double_eq(t->expects[0].max, 0.5);
  ck_assert_int_eq(t->expects[0].stat, TQH_STAT_MEDIAN);
  ck_assert_str_eq(t->expects[1].key, "overall_us");
  ck_assert_str_eq(t->expects[1].metric, "overall");
  ck_assert_double_eq(t->expects[1].scale, 1e-6);
  ck_assert_int_eq(t->expects[1].has_baseline, 1);
  ck_assert_double_eq(t->expects[1].baseline, 1000);
  ck_assert_double_eq_tol(t->expects[1].tolerance, 0.1, 1e-12);
  ck_assert_double_eq_tol(t->expects[1].max, 1100, 1e-9);
  ck_assert_int_eq(t->expects[1].stat, TQH_STAT_MIN);
  ck_assert_str_eq(t->expects[2].metric, "dma_total");
  ck_assert_int_eq(t->expects[2].unit, TQH_UNIT_PERCENT);
  ck_assert_int_eq(t->expects[2].has_min, 1);
  ck_assert_double_eq(t->expects[2].min, 5);
  ck_assert_double_eq(t->expects[2].max, 50);
  ck_assert_int_eq(t->xfail.expected, 1);
  ck_assert_str_eq(t->xfail.reason, "known bug");
  ck_assert_int_eq(t->xfail.strict, 1);
  ck_assert_ptr_null(t->skip);

  /* A URL model with two targets: two tests. */
  for (int k = 1; k <= 2; k++) {
    t = &s->tests[k];
    ck_assert_str_eq(t->name, "url_model");
    ck_assert_str_eq(t->target, k == 1 ? "sim" : "board1");
    ck_assert_str_eq(t->id, k == 1 ? "full/url_model[sim]" : "full/url_model[board1]");
    ck_assert_str_eq(t->fs_id, k == 1 ? "full+url_model%5Bsim%5D" : "full+url_model%5Bboard1%5D");
    ck_assert_int_eq(t->model.kind, TQH_MODEL_URL);
    ck_assert_ptr_null(t->model.path);
    ck_assert_str_eq(t->model.url, "https://example.com/m/net.mlir?x=1");
    ck_assert_str_eq(t->model.sha256,
                     "abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789");
    ck_assert_int_eq(t->inputs_random, 1);
    ck_assert_uint_eq(t->random_seed, 5);
    ck_assert_int_eq(t->input_count, 0);
    ck_assert_int_eq(t->settings.target_count, 2);
    ck_assert_uint_eq(t->settings.repeat, 9);
    ck_assert_int_eq(t->settings.layer[TQH_SET_REPEAT], TQH_LAYER_TEST);
    ck_assert_uint_eq(t->settings.warmup, 2);
    ck_assert_double_eq(t->settings.compile_timeout_s, 30);
    ck_assert_double_eq(t->settings.run_timeout_s, 30);
    ck_assert_int_eq(t->settings.reference, 0);
    ck_assert_double_eq(t->settings.atol, 0.01); /* still the defaults' */
    ck_assert_int_eq(t->settings.compile_option_count, 0);
    ck_assert_str_eq(t->skip, "needs the network");
    ck_assert_int_eq(t->xfail.expected, 0);
    ck_assert_int_eq(t->tag_count, 2);
    ck_assert_int_eq(t->expect_count, 2);
  }

  /* Name from the stem; inputs random from the defaults with the test's seed. */
  t = &s->tests[3];
  ck_assert_str_eq(t->id, "full/a");
  ck_assert_str_eq(t->xfail.reason, "plain reason");
  ck_assert_int_eq(t->xfail.strict, 0);
  ck_assert_int_eq(t->inputs_random, 1);
  ck_assert_uint_eq(t->settings.seed, 16);
  ck_assert_uint_eq(t->random_seed, 16);

  /* The glob, in byte order, files only. */
  const char *ids[] = {"full/glob/a", "full/glob/a_1", "full/glob/b"};
  const char *files[] = {"models/a.mlir", "models/a_1.mlir", "models/b.mlir"};
  for (int k = 0; k < 3; k++) {
    t = &s->tests[4 + k];
    ck_assert_str_eq(t->id, ids[k]);
    ck_assert_str_eq(t->model.path, st_path(dir, files[k]));
    ck_assert_str_eq(t->model.glob, st_path(dir, "models/[ab]*.mlir"));
    ck_assert_uint_eq(t->loc.line, 46);
  }
  ck_assert_str_eq(s->tests[4].fs_id, "full+glob+a");
  tqh_suite_destroy(s);
}
END_TEST

START_TEST(suite_glob_expands_sorted_by_bytes) {
  tqh_suite_t *s = load_ok("tests:\n  - model: models/*.mlir\n");
  const char *names[] = {"C", "a", "a_1", "b", "conv"}; /* folder.mlir is a folder */
  ck_assert_int_eq(s->test_count, 5);
  for (int i = 0; i < 5; i++) {
    ck_assert_str_eq(s->tests[i].name, names[i]);
    ck_assert_int_eq(s->tests[i].index, i);
  }
  /* No suite: key: the file name makes the suite name. */
  ck_assert_str_eq(s->name, "s");
  ck_assert_str_eq(s->tests[0].id, "s/C");
  tqh_suite_destroy(s);
}
END_TEST

START_TEST(suite_defaults_when_nothing_is_said) {
  tqh_suite_t *s = load_ok("tests:\n  - model: models/conv.mlir\n");
  const tqh_test_t *t = &s->tests[0];
  ck_assert_str_eq(t->target, "sim");
  ck_assert_uint_eq(t->settings.repeat, 1);
  ck_assert_uint_eq(t->settings.warmup, 0);
  ck_assert_int_eq(t->settings.reference, 1);
  ck_assert_int_eq(t->inputs_random, 1);
  ck_assert_uint_eq(t->random_seed, 0);
  ck_assert_int_eq(t->settings.layer[TQH_SET_REPEAT], TQH_LAYER_BUILTIN);
  ck_assert_double_eq(t->settings.baseline_floor_pct, 5);
  ck_assert_int_eq(t->settings.layer[TQH_SET_BASELINE_FLOOR], TQH_LAYER_BUILTIN);
  ck_assert_int_eq(t->tag_count, 0);
  ck_assert_int_eq(t->expect_count, 0);
  ck_assert_int_eq(t->xfail.expected, 0);
  tqh_suite_destroy(s);
}
END_TEST

/* defaults: sets the suite's floor, a test its own; a number or a percentage. */
START_TEST(suite_baseline_floor_from_defaults_and_tests) {
  tqh_suite_t *s = load_ok(
      "defaults:\n"
      "  baseline: {floor: 10}\n"
      "tests:\n"
      "  - name: a\n    model: models/a.mlir\n"
      "  - name: b\n    model: models/b.mlir\n    baseline: {floor: 2.5}\n"
      "  - name: c\n    model: models/C.mlir\n    baseline:\n      floor: \"7%\"\n"
      "  - name: d\n    model: models/conv.mlir\n    baseline: {floor: 0}\n");
  ck_assert_int_eq(s->test_count, 4);
  static const double want[] = {10, 2.5, 7, 0};
  static const tqh_layer_t layer[] = {TQH_LAYER_SUITE, TQH_LAYER_TEST, TQH_LAYER_TEST,
                                      TQH_LAYER_TEST};
  for (size_t i = 0; i < 4; i++) {
    ck_assert_double_eq(s->tests[i].settings.baseline_floor_pct, want[i]);
    ck_assert_int_eq(s->tests[i].settings.layer[TQH_SET_BASELINE_FLOOR], layer[i]);
  }
  tqh_suite_destroy(s);
}
END_TEST

START_TEST(suite_substitutes_environment_variables) {
  tqh_suite_t *s = load_ok(
      "tests:\n"
      "  - name: a\n    model: ${TORQ_MODELS}/a.mlir\n"
      "  - name: b\n    model: ${TORQ_UNSET:-models}/b.mlir\n"
      "  - name: c\n    model: ${TORQ_EMPTY:-models}/C.mlir\n"
      "  - name: d\n    model: ${TORQ_UNSET:-${TORQ_ALSO_UNSET:-models}}/conv.mlir\n"
      "  - name: e\n    model: \"${TORQ_UNSET:-mod}els/a_1.mlir\"\n");
  ck_assert_int_eq(s->test_count, 5);
  ck_assert_str_eq(s->tests[0].model.path, st_path(dir, "models/a.mlir"));
  ck_assert_str_eq(s->tests[1].model.path, st_path(dir, "models/b.mlir"));
  ck_assert_str_eq(s->tests[2].model.path, st_path(dir, "models/C.mlir"));
  ck_assert_str_eq(s->tests[3].model.path, st_path(dir, "models/conv.mlir"));
  ck_assert_str_eq(s->tests[4].model.path, st_path(dir, "models/a_1.mlir"));
  tqh_suite_destroy(s);
  /* $$ is a literal $, and $ without a brace stays. */
  st_write(dir, "models/$x$HOME.mlir", "// dollar\n");
  s = load_ok("tests:\n  - model: models/$$x$HOME.mlir\n");
  ck_assert_str_eq(s->tests[0].model.path, st_path(dir, "models/$x$HOME.mlir"));
  tqh_suite_destroy(s);
}
END_TEST

START_TEST(suite_aliases_share_values) {
  tqh_suite_t *s = load_ok(
      "tests:\n"
      "  - model: models/a.mlir\n"
      "    inputs: &in [\"1x4xi8=1\"]\n"
      "  - model: models/b.mlir\n"
      "    inputs: *in\n");
  ck_assert_int_eq(s->test_count, 2);
  ck_assert_str_eq(s->tests[1].inputs[0].text, "1x4xi8=1");
  tqh_suite_destroy(s);
}
END_TEST

START_TEST(suite_without_filesystem_checks_nothing_on_disk) {
  tqh_suite_options_t o;
  tqh_suite_options_initialize(&o);
  o.no_filesystem = 1;
  const char *yaml =
      "tests:\n  - model: nowhere/x.mlir\n    inputs: [\"@nowhere.npy\"]\n"
      "  - name: \"g/{stem}\"\n    model: nowhere/*.mlir\n";
  tqh_suite_t *s = NULL;
  tq_status_t st = tqh_suite_load_buffer("suites/s.yaml", yaml, strlen(yaml), &o, &s);
  ck_assert_ptr_null(st);
  ck_assert_int_eq(s->test_count, 2);
  ck_assert_str_eq(s->tests[0].model.path, "suites/nowhere/x.mlir");
  ck_assert_str_eq(s->tests[0].inputs[0].text, "@suites/nowhere.npy");
  ck_assert_str_eq(s->tests[1].id, "s/g/*");
  ck_assert_str_eq(s->tests[1].fs_id, "s+g+%2A");
  tqh_suite_destroy(s);
}
END_TEST

START_TEST(suite_uses_config_defaults) {
  tqh_config_t *cfg = NULL;
  ck_assert_ptr_null(tqh_config_create(&cfg));
  ck_assert_ptr_null(tqh_config_set(cfg, TQH_LAYER_CONFIG, "repeat", "7"));
  ck_assert_ptr_null(tqh_config_set(cfg, TQH_LAYER_CLI, "warmup", "3"));
  tqh_suite_options_t o;
  tqh_suite_options_initialize(&o);
  o.config = cfg;
  o.env = test_env;
  const char *yaml = "defaults: {warmup: 9}\ntests:\n  - model: models/a.mlir\n";
  tqh_suite_t *s = NULL;
  ck_assert_ptr_null(tqh_suite_load_buffer(st_path(dir, "s.yaml"), yaml, strlen(yaml), &o, &s));
  ck_assert_uint_eq(s->tests[0].settings.repeat, 7);
  ck_assert_uint_eq(s->tests[0].settings.warmup, 3); /* the command line beats the suite */
  tqh_suite_destroy(s);
  tqh_config_destroy(cfg);
}
END_TEST

START_TEST(suite_ships_smoke_and_corpus) {
  /* The shipped suites load: the repository's files, whatever the working directory. */
  char smoke[4096], corpus[4096];
  snprintf(smoke, sizeof(smoke), "%s/suites/smoke.yaml", tq_test_top());
  snprintf(corpus, sizeof(corpus), "%s/suites/tosa_corpus.yaml", tq_test_top());
  tqh_suite_t *s = NULL;
  tq_status_t st = tqh_suite_load(smoke, NULL, &s);
  ck_assert_msg(st == NULL, "%s", tq_status_message(st));
  ck_assert_str_eq(s->name, "smoke");
  ck_assert_int_eq(s->test_count, 7);
  for (size_t i = 0; i < s->test_count; i++) {
    ck_assert_uint_eq(s->tests[i].settings.repeat, 5);
    ck_assert_uint_eq(s->tests[i].settings.warmup, 1);
    ck_assert_int_eq(s->tests[i].settings.reference, 1);
    ck_assert_int_ge(s->tests[i].tag_count, 2);
  }
  tqh_suite_destroy(s);
  /* The corpus: one test per model of the shared test data (a missing corpus is a failure under
   * CI, a counted skip otherwise). The suite finds it through $TORQ_TESTDATA, else beside the
   * repository, as tq_test_corpus does. */
  if (!tq_test_corpus()) return;
  st = tqh_suite_load(corpus, NULL, &s);
  ck_assert_msg(st == NULL, "%s", tq_status_message(st));
  ck_assert_int_eq(s->test_count, 208);
  for (size_t i = 1; i < s->test_count; i++) {
    ck_assert_int_lt(strcmp(s->tests[i - 1].model.path, s->tests[i].model.path), 0);
    ck_assert_int_eq(s->tests[i].inputs_random, 1);
    ck_assert_ptr_nonnull(strstr(s->tests[i].id, "tosa_corpus/"));
  }
  tqh_suite_destroy(s);
}
END_TEST

/* ---- File-system-safe ids ------------------------------------------------------------------ */

static const struct {
  const char *id, *fs;
} fs_cases[] = {
    {"smoke/conv2d", "smoke+conv2d"},
    {"s/a b", "s+a%20b"},
    {"s/a+b", "s+a%2Bb"},
    {"s/a/b", "s+a+b"},
    {"s/a%2Bb", "s+a%252Bb"},
    {"s/x[sim]", "s+x%5Bsim%5D"},
    {"s/..", "s+.."},
    {"s/\xc3\xa9", "s+%C3%A9"},
    {"s/a~b", "s+a%7Eb"},
    {"s/A-z_0.9", "s+A-z_0.9"},
};

START_TEST(suite_fs_id_escapes) {
  tq_buf_t b;
  tq_buf_init(&b, 0);
  ck_assert_ptr_null(tqh_test_fs_id(fs_cases[_i].id, &b));
  ck_assert_str_eq(b.data, fs_cases[_i].fs);
  tq_buf_deinit(&b);
}
END_TEST

START_TEST(suite_fs_id_is_injective_and_bounded) {
  size_t n = sizeof(fs_cases) / sizeof(fs_cases[0]);
  for (size_t i = 0; i < n; i++)
    for (size_t j = i + 1; j < n; j++) ck_assert_str_ne(fs_cases[i].fs, fs_cases[j].fs);
  /* Long ids: cut, hashed, still distinct, never cut inside an escape. */
  char a[400], c[400];
  memset(a, ' ', sizeof(a));
  memcpy(a, "s/", 2);
  a[sizeof(a) - 1] = '\0';
  memcpy(c, a, sizeof(c));
  c[sizeof(c) - 2] = 'x';
  tq_buf_t ba, bc;
  tq_buf_init(&ba, 0);
  tq_buf_init(&bc, 0);
  ck_assert_ptr_null(tqh_test_fs_id(a, &ba));
  ck_assert_ptr_null(tqh_test_fs_id(c, &bc));
  ck_assert_uint_le(ba.len, TQH_FS_ID_MAX);
  ck_assert_uint_le(bc.len, TQH_FS_ID_MAX);
  ck_assert_str_ne(ba.data, bc.data);
  const char *tilde = strchr(ba.data, '~');
  ck_assert_ptr_nonnull(tilde);
  ck_assert_uint_eq(strlen(tilde), 17);
  /* Before the '~': whole escapes only ("%20" repeated after "s+"). */
  ck_assert_uint_eq((size_t)(tilde - ba.data - 2) % 3, 0);
  ck_assert_int_eq(tilde[-3], '%');
  /* An id that fits is never hashed. */
  char fit[TQH_FS_ID_MAX + 1];
  memset(fit, 'a', TQH_FS_ID_MAX);
  fit[1] = '/';
  fit[TQH_FS_ID_MAX] = '\0';
  tq_buf_t bf;
  tq_buf_init(&bf, 0);
  ck_assert_ptr_null(tqh_test_fs_id(fit, &bf));
  ck_assert_uint_eq(bf.len, TQH_FS_ID_MAX);
  ck_assert_ptr_null(strchr(bf.data, '~'));
  tq_buf_deinit(&ba);
  tq_buf_deinit(&bc);
  tq_buf_deinit(&bf);
}
END_TEST

START_TEST(suite_name_validity) {
  ck_assert_int_eq(tqh_suite_name_valid("smoke"), 1);
  ck_assert_int_eq(tqh_suite_name_valid("tosa_corpus.v2-x"), 1);
  ck_assert_int_eq(tqh_suite_name_valid(""), 0);
  ck_assert_int_eq(tqh_suite_name_valid(".hidden"), 0);
  ck_assert_int_eq(tqh_suite_name_valid("a/b"), 0);
  ck_assert_int_eq(tqh_suite_name_valid("a b"), 0);
}
END_TEST

/* ---- Expectations -------------------------------------------------------------------------- */

START_TEST(suite_expect_check_bounds) {
  tqh_expect_t x;
  memset(&x, 0, sizeof(x));
  x.key = "overall_us";
  x.metric = "overall";
  x.unit = TQH_UNIT_TIME;
  x.scale = 1e-6;
  x.has_max = 1;
  x.max = 1200;
  char msg[256];
  ck_assert_int_eq(tqh_expect_check(&x, 1100e-6, msg, sizeof(msg)), 1);
  ck_assert_str_eq(msg, "");
  ck_assert_int_eq(tqh_expect_check(&x, 1345.5e-6, msg, sizeof(msg)), 0);
  ck_assert_str_eq(msg, "overall_us (median) = 1345.5, above max 1200");
  x.has_min = 1;
  x.min = 100;
  x.stat = TQH_STAT_MEAN;
  ck_assert_int_eq(tqh_expect_check(&x, 50e-6, msg, sizeof(msg)), 0);
  ck_assert_str_eq(msg, "overall_us (mean) = 50, below min 100");
  ck_assert_int_eq(tqh_expect_check(&x, NAN, NULL, 0), 0);
  x.has_baseline = 1;
  x.baseline = 1000;
  x.tolerance = 0.2;
  ck_assert_int_eq(tqh_expect_check(&x, 1300e-6, msg, sizeof(msg)), 0);
  ck_assert_ptr_nonnull(strstr(msg, "(baseline 1000 + 20%)"));
  /* A value and its bound in one notation, plain decimals, whatever their size. */
  memset(&x, 0, sizeof(x));
  x.key = "wall_time_s";
  x.metric = "wall_time";
  x.unit = TQH_UNIT_TIME;
  x.scale = 1;
  x.has_max = 1;
  x.max = 1e-6;
  ck_assert_int_eq(tqh_expect_check(&x, 0.00325711, msg, sizeof(msg)), 0);
  ck_assert_str_eq(msg, "wall_time_s (median) = 0.00325711, above max 0.000001");
  x.max = 2.5e7;
  ck_assert_int_eq(tqh_expect_check(&x, 123456789, msg, sizeof(msg)), 0);
  ck_assert_str_eq(msg, "wall_time_s (median) = 123456789, above max 25000000");
}
END_TEST

/* ---- Out of memory ------------------------------------------------------------------------- */

START_TEST(suite_survives_allocation_failure) {
  /* Every allocation that fails gives an error (or the load still succeeds), never a crash or a
   * leak. */
  for (long n = 0; n < 400; n += (n < 100 ? 1 : 7)) {
    tqh_diags_t errors;
    tqh_diags_init_max(&errors, TQH_ERRORS_DEFAULT_MAX);
    tqh_suite_t *s = NULL;
    tq_alloc_fail_after(n);
    tq_status_t st = load(full_suite, &errors, &s);
    tq_alloc_fail_after(-1);
    ck_assert_msg((st == NULL) != (s == NULL), "n=%ld: a status or a suite", n);
    tq_status_free(st);
    tqh_suite_destroy(s);
    tqh_diags_deinit(&errors);
  }
}
END_TEST

Suite *suite_suite(void) {
  Suite *s = suite_create("suite");
  TCase *tc = tcase_create("bad");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_loop_test(tc, suite_rejects_bad_suite_with_location, 0, BAD_CASE_COUNT);
  tcase_add_test(tc, suite_error_shows_source_line_and_caret);
  tcase_add_test(tc, suite_caret_counts_characters_not_bytes);
  tcase_add_test(tc, suite_duplicate_name_names_both_locations);
  tcase_add_test(tc, suite_collects_every_error_in_file_order);
  tcase_add_test(tc, suite_limits_kept_errors);
  tcase_add_test(tc, suite_load_of_missing_file_is_a_usage_error);
  suite_add_tcase(s, tc);

  tc = tcase_create("good");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, suite_parses_every_feature);
  tcase_add_test(tc, suite_glob_expands_sorted_by_bytes);
  tcase_add_test(tc, suite_defaults_when_nothing_is_said);
  tcase_add_test(tc, suite_baseline_floor_from_defaults_and_tests);
  tcase_add_test(tc, suite_substitutes_environment_variables);
  tcase_add_test(tc, suite_aliases_share_values);
  tcase_add_test(tc, suite_without_filesystem_checks_nothing_on_disk);
  tcase_add_test(tc, suite_uses_config_defaults);
  tcase_add_test(tc, suite_ships_smoke_and_corpus);
  tcase_add_test(tc, suite_survives_allocation_failure);
  suite_add_tcase(s, tc);

  tc = tcase_create("ids");
  tcase_add_loop_test(tc, suite_fs_id_escapes, 0, (int)(sizeof(fs_cases) / sizeof(fs_cases[0])));
  tcase_add_test(tc, suite_fs_id_is_injective_and_bounded);
  tcase_add_test(tc, suite_name_validity);
  tcase_add_test(tc, suite_expect_check_bounds);
  suite_add_tcase(s, tc);
  return s;
}
