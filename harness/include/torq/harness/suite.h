/* YAML suites: which models torq-test runs and how (DESIGN 5.8; the schema is in the README,
 * "Suites").
 *
 * A suite file is read and checked in full before any test runs: every error (unknown key, wrong
 * type, missing model file, bad input spec, duplicate test name, a glob that matches nothing ...)
 * is collected, up to a limit, with its file:line:col, the source line and a caret. Loading
 * resolves everything a runner needs, so that it reads plain values:
 *
 *   - the model of each test is a file (resolved against the suite's folder; globs are expanded to
 *     one test per file, sorted by path with strcmp so that ids are stable) or a URL with its
 *     sha256 (fetching is the runner's business);
 *   - inputs are ready for tqr_input_parse (an "@file" is rewritten to the resolved path) or say
 *     "random from the model's signature";
 *   - the settings (targets, repeat, warmup, timeouts, reference, tolerances, seed, compile
 *     options, function, baseline floor) are merged by precedence: built-in < configs < suite
 *     defaults < test < environment < command line (config.h), each value with the layer it
 *     came from;
 *   - one test per target: a test with two targets becomes two tests.
 *
 * Test ids: "<suite>/<test>", plus "[<target>]" when the test has more than one target
 * ("smoke/conv2d[board1]"). Suite names match [A-Za-z0-9_][A-Za-z0-9_.-]*, so the first '/'
 * ends the suite name and ids are unique in a run. The file-system-safe form (the result folder,
 * tqh_test_fs_id) is one path component:
 *   - bytes A-Z a-z 0-9 . _ - stay, "/" becomes "+", every other byte becomes %XX (upper-case
 *     hex; '%' and '+' themselves too), so the mapping is injective and reversible;
 *   - a form longer than TQH_FS_ID_MAX bytes is cut to TQH_FS_ID_MAX - 17 bytes (never inside an
 *     escape) and ends in "~" plus the first 16 hex digits of the sha256 of the id ('~' never
 *     appears otherwise).
 *   "smoke/conv2d" -> "smoke+conv2d"; "tosa/add 1x2[sim]" -> "tosa+add%201x2%5Bsim%5D".
 *
 * Ownership: a suite owns all its memory (one arena); every pointer in it is borrowed and lives
 * until tqh_suite_destroy. Locations' file names point into the suite.
 *
 * The suite component (harness/src/suite/) owns suites, YAML and configuration; config.h is
 * its other public header.
 */
#ifndef TORQ_HARNESS_SUITE_H
#define TORQ_HARNESS_SUITE_H

#include <stddef.h>
#include <stdint.h>

#include "torq/base/arena.h"
#include "torq/base/status.h"
#include "torq/base/str.h"
#include "torq/harness/config.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TQH_FS_ID_MAX 200

/* ---- One test ------------------------------------------------------------------------------ */

typedef enum tqh_model_kind_e {
  TQH_MODEL_PATH, /* a local file */
  TQH_MODEL_URL,  /* to fetch, then check against sha256 */
} tqh_model_kind_t;

typedef struct tqh_model_s {
  tqh_model_kind_t kind;
  const char *path;   /* PATH: the file, joined to the suite's folder (relative to the working
                         directory when the suite's path was relative); checked to exist */
  const char *url;    /* URL: http:// or https:// */
  const char *sha256; /* URL: 64 lower-case hex digits */
  const char *glob;   /* the pattern (after ${VAR} substitution) this test came from, or NULL */
  tqh_loc_t loc;      /* the model: value in the suite */
} tqh_model_t;

typedef enum tqh_input_kind_e {
  /* IREE --input text: pass `text` to tqr_input_parse with options.seed = `seed` and
   * options.index = the input's position (used by "=@random"). An "@FILE" in it is already
   * resolved against the suite's folder. */
  TQH_INPUT_TEXT,
  /* Random values of the shape and type of the function's argument at this position:
   * tqr_tensor_create + tqr_input_random_fill(tensor, seed, position). */
  TQH_INPUT_RANDOM,
} tqh_input_kind_t;

typedef struct tqh_input_s {
  tqh_input_kind_t kind;
  const char *text; /* TEXT: the --input value */
  const char *file; /* TEXT with "@FILE" (not @random): the resolved file, for cache keys and
                       uploads; else NULL. Checked to exist. */
  uint64_t seed;    /* the input's own seed, else the test's settings.seed */
  tqh_loc_t loc;
} tqh_input_t;

typedef struct tqh_xfail_s {
  int expected;       /* 1: the test is expected to fail */
  const char *reason; /* never NULL when expected */
  int strict;         /* 1: an unexpected pass is a failure */
  tqh_loc_t loc;
} tqh_xfail_t;

/* Which statistic of the repetitions an expectation compares. */
typedef enum tqh_stat_e {
  TQH_STAT_MEDIAN, /* the default */
  TQH_STAT_MEAN,
  TQH_STAT_MIN,
  TQH_STAT_MAX,
} tqh_stat_t;

/* "median", "mean", "min", "max". */
const char *tqh_stat_name(tqh_stat_t stat);

typedef enum tqh_unit_e {
  TQH_UNIT_TIME,    /* suffix _s, _ms, _us or _ns; the runner gives values in seconds */
  TQH_UNIT_PERCENT, /* suffix _pct: percent of OVERALL */
} tqh_unit_t;

/* A performance expectation (regression gate): `expect: {overall_us: {max: 1200}}`.
 * `metric` is the key without its unit suffix: "wall_time" (the harness's wall time, DESIGN 5.7)
 * or a Host Profile Overview metric with its name lower-cased and spaces made '_' ("overall",
 * "dma_total", "compute_only", "idle", ...). Bounds are in the unit the key names. */
typedef struct tqh_expect_s {
  const char *key;    /* as written: "overall_us" */
  const char *metric; /* "overall" */
  tqh_unit_t unit;
  double scale; /* the key's unit in base units: 1e-6 for _us, 1 for _s and _pct */
  int has_min, has_max;
  double min, max; /* in the key's unit; max includes baseline * (1 + tolerance) */
  int has_baseline;
  double baseline, tolerance; /* tolerance as a fraction (10% -> 0.1) */
  tqh_stat_t stat;
  tqh_loc_t loc;
} tqh_expect_t;

/* Checks `value` (in base units: seconds for TIME, percent for PERCENT) against `expect`.
 * Returns 1 when it holds; else 0 and writes a one-line explanation into `msg` (if non-NULL,
 * `cap` bytes): "overall_us (median) = 1345.2, above max 1200". */
int tqh_expect_check(const tqh_expect_t *expect, double value, char *msg, size_t cap);

typedef struct tqh_suite_s tqh_suite_t;

typedef struct tqh_test_s {
  const tqh_suite_t *suite;
  size_t index;            /* position in suite->tests */
  const char *name;        /* the test's name in the suite ("conv2d", or from a glob's {stem}) */
  const char *id;          /* "smoke/conv2d" or "smoke/conv2d[board1]" */
  const char *fs_id;       /* "smoke+conv2d": the result folder's name */
  const char *description; /* or NULL */
  const char *target;      /* "sim" or a board name: this test's one target */
  tqh_model_t model;
  int inputs_random;    /* 1: every argument random (as kind RANDOM, with random_seed); then
                           input_count is 0 */
  uint64_t random_seed; /* inputs_random: `inputs: {random: SEED}`'s seed, else settings.seed */
  const tqh_input_t *inputs; /* input_count of them, in argument order */
  size_t input_count;
  tqh_settings_t settings; /* resolved by precedence; settings.targets lists all the entry's
                              targets, `target` is this test's */
  tqh_xfail_t xfail;
  const char *skip;        /* reason to skip the test, or NULL */
  const char *const *tags; /* suite defaults' tags, then the test's, without duplicates */
  size_t tag_count;
  const tqh_expect_t *expects; /* defaults' expectations, replaced metric by metric by the test's */
  size_t expect_count;
  tqh_loc_t loc; /* the test's entry in tests: */
} tqh_test_t;

/* ---- The suite ----------------------------------------------------------------------------- */

struct tqh_suite_s {
  const char *path;        /* as given to the loader */
  const char *dir;         /* its folder ("." for a bare file name) */
  const char *name;        /* `suite:`, else the file name without .yaml/.yml */
  const char *description; /* or NULL */
  tqh_test_t *tests;       /* test_count of them, in file order (globs sorted) */
  size_t test_count;
  /* Private. */
  tq_arena_t arena;
};

typedef struct tqh_suite_options_s {
  const tqh_config_t *config; /* settings tests inherit; NULL: the built-in defaults */
  const char *const *env;     /* for ${VAR}: "NAME=VALUE" strings, NULL-terminated; NULL means
                                 the process environment */
  tqh_diags_t *errors;        /* if non-NULL, receives each error as well */
  size_t max_errors;          /* errors kept and shown; 0 = TQH_ERRORS_DEFAULT_MAX */
  int no_filesystem;          /* 1: touch no file (fuzzing, syntax checks): model and input
                                 files are not checked and a glob stands for a single test whose
                                 path is the pattern and whose {stem} is the pattern's */
} tqh_suite_options_t;

void tqh_suite_options_initialize(tqh_suite_options_t *options);

/* Reads and checks the suite at `path`; on success the caller owns *out_suite
 * (tqh_suite_destroy). `options` may be NULL (defaults). Errors: TQ_INVALID_ARGUMENT whose message
 * is the complete text of every error found (print it as it is; the exit status is 2), also when
 * the file cannot be read; TQ_OUT_OF_MEMORY. *out_suite stays NULL on error. */
tq_status_t tqh_suite_load(const char *path, const tqh_suite_options_t *options,
                           tqh_suite_t **out_suite) TQ_MUST_USE;

/* As tqh_suite_load, from `len` bytes of YAML named `path` (relative paths resolve against
 * path's folder). The bytes need not be NUL-terminated and are not kept. */
tq_status_t tqh_suite_load_buffer(const char *path, const char *data, size_t len,
                                  const tqh_suite_options_t *options,
                                  tqh_suite_t **out_suite) TQ_MUST_USE;

/* Frees the suite and everything it holds; accepts NULL. */
void tqh_suite_destroy(tqh_suite_t *suite);

/* Appends the file-system-safe form of a test id (see above) to `out`. */
tq_status_t tqh_test_fs_id(const char *id, tq_buf_t *out) TQ_MUST_USE;

/* 1 when `name` is a valid suite name ([A-Za-z0-9_][A-Za-z0-9_.-]*, at most 100 bytes). */
int tqh_suite_name_valid(const char *name);

#ifdef __cplusplus
}
#endif
#endif
