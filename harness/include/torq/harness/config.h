/* Configuration of torq-test: the settings every test inherits, where results go, the boards.
 *
 * Precedence, lowest first (DESIGN 5.8):
 *
 *     built-in < configs/NAME.yaml < the suite (defaults:, then the test) < TORQ_* environment
 *     < command line
 *
 * Every setting remembers the layer it came from (tqh_layer_t), so that a suite value replaces a
 * config value but never an environment or command-line value. A tool builds its configuration in
 * this order before it loads any suite:
 *
 *     tqh_config_create(&cfg);                        built-in defaults
 *     tqh_config_load_dir(cfg, "configs", ...);       configs/NAME.yaml, in name order
 *     tqh_config_apply_env(cfg, NULL, ...);           TORQ_RESULTS_DIR, TORQ_REPEAT, ...
 *     tqh_config_set(cfg, TQH_LAYER_CLI, "repeat", "3");   one call per command-line option
 *     tqh_suite_load(path, &options with .config = cfg, &suite);
 *
 * Setting keys: the same names in tqh_config_set and, upper-cased after "TORQ_", in the
 * environment. In YAML (configs and suites) `timeout` is SECONDS or {compile: S, run: S} and the
 * tolerances are `reference: {compare: BOOL, atol: X, rtol: Y}` (or `reference: BOOL`), and the
 * floor and gate are `baseline: {floor: PCT, gate: [METRIC, ...]}`, so compile_timeout,
 * run_timeout, atol, rtol, baseline_floor and baseline_gate are not YAML keys of their own.
 * `history` is a path, or false for none.
 *
 *     key               value                          suite?  environment
 *     targets           sim and/or board names         yes     TORQ_TARGETS=sim,board1
 *     repeat            measured repetitions, >= 1     yes     TORQ_REPEAT=5
 *     warmup            unmeasured runs first, >= 0    yes     TORQ_WARMUP=1
 *     timeout           seconds (> 0) for compile+run  yes     TORQ_TIMEOUT=60
 *     compile_timeout   seconds for the compile        yes     TORQ_COMPILE_TIMEOUT=300
 *     run_timeout       seconds for one run            yes     TORQ_RUN_TIMEOUT=60
 *     reference         compare with the reference     yes     TORQ_REFERENCE=true|false
 *     atol, rtol        float tolerances (>= 0)        yes     TORQ_ATOL=1e-5 TORQ_RTOL=1e-3
 *     seed              default seed of random inputs  yes     TORQ_SEED=0
 *     compile_options   torq-compile options           yes     TORQ_COMPILE_OPTIONS="--a --b"
 *     function          the entry function             yes     TORQ_FUNCTION=main
 *     baseline_floor    smallest regression threshold  yes     TORQ_BASELINE_FLOOR=5
 *                       of --baseline, percent 0-10000
 *     baseline_gate     metrics gated besides those    yes     TORQ_BASELINE_GATE=wall_time
 *                       of the target (baseline.h)
 *     history           the run history's file         no      TORQ_HISTORY=PATH (off: off)
 *     toolchain         `builtin` (all three tools)    yes     TORQ_TOOLCHAIN=builtin
 *     toolchain_compile the external torq-compile      yes     TORQ_TOOLCHAIN_COMPILE=PATH
 *     toolchain_run     the external torq-run-module   yes     TORQ_TOOLCHAIN_RUN=PATH
 *     toolchain_annotate the external annotator        yes     TORQ_TOOLCHAIN_ANNOTATE=PATH
 *                       (YAML: `toolchain: builtin` or {compile: P, run: P, annotate: P}, each a
 *                       path or an argv list; `reference: {golden: [out0.npy, ...]}`)
 *     results_dir       where runs write               no      TORQ_RESULTS_DIR=results
 *     cache_dir         the compile cache              no      TORQ_CACHE_DIR=build/cache
 *     jobs              parallel workers, >= 1         no      TORQ_JOBS=4
 *
 * In tqh_config_set and the environment, list values are comma separated (targets) or
 * whitespace separated (compile_options, whose items hold commas).
 *
 * Errors: every function that reads a file or the environment collects ALL its errors (up to a
 * limit) before it returns. It then returns TQ_INVALID_ARGUMENT (exit status 2: bad
 * configuration) whose message is the complete, compiler-style text of every error
 * ("file:line:col: error: ...", the source line, a caret; print it as it is), and appends the
 * errors, one by one, to a diagnostic list (diag.h) when the caller passes one.
 *
 * Part of the suite component (harness/src/suite/README.md).
 */
#ifndef TORQ_HARNESS_CONFIG_H
#define TORQ_HARNESS_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "torq/base/arena.h"
#include "torq/base/status.h"
#include "torq/base/str.h"
#include "torq/harness/diag.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Places --------------------------------------------------------------------------------- */

/* A place in a text file: 1-based line and column (columns count characters); line 0 means "no
 * place" (an environment variable, a whole file). `file` is borrowed from the object that holds
 * the location (a suite, a config) and lives as long as it. */
typedef struct tqh_loc_s {
  const char *file;
  uint32_t line, col;
} tqh_loc_t;

/* At most this many errors are kept and shown of a file (and of a run's configuration). */
#define TQH_ERRORS_DEFAULT_MAX 50

/* ---- Settings ------------------------------------------------------------------------------ */

/* The layers of the precedence, lowest first. UNSET: the value was never given. */
typedef enum tqh_layer_e {
  TQH_LAYER_UNSET = 0,
  TQH_LAYER_BUILTIN,
  TQH_LAYER_CONFIG, /* configs/NAME.yaml */
  TQH_LAYER_SUITE,  /* the suite's defaults: */
  TQH_LAYER_TEST,   /* the test entry */
  TQH_LAYER_ENV,    /* TORQ_* variables */
  TQH_LAYER_CLI,    /* the command line */
} tqh_layer_t;

/* "built-in", "config", "suite", "test", "environment", "command line" ("unset" for UNSET). */
const char *tqh_layer_name(tqh_layer_t layer);

/* The settings a test inherits, indexed for their layers. */
typedef enum tqh_setting_e {
  TQH_SET_TARGETS,
  TQH_SET_REPEAT,
  TQH_SET_WARMUP,
  TQH_SET_COMPILE_TIMEOUT,
  TQH_SET_RUN_TIMEOUT,
  TQH_SET_REFERENCE,
  TQH_SET_ATOL,
  TQH_SET_RTOL,
  TQH_SET_SEED,
  TQH_SET_COMPILE_OPTIONS,
  TQH_SET_FUNCTION,
  TQH_SET_BASELINE_FLOOR,
  TQH_SET_MEMORY,
  TQH_SET_BASELINE_GATE,
  TQH_SET_TOOL_COMPILE, /* the toolchain's programs (tqh_tool_t), one setting each */
  TQH_SET_TOOL_RUN,
  TQH_SET_TOOL_ANNOTATE,
  TQH_SET_GOLDEN,
  TQH_SETTING_COUNT
} tqh_setting_t;

/* The default memory limit of a test (`memory:`), in bytes: 8 GiB. */
#define TQH_MEMORY_DEFAULT ((uint64_t)8 << 30)
/* The smallest one accepted (a smaller one could not even start a test). */
#define TQH_MEMORY_MIN ((uint64_t)16 << 20)

/* A memory size: bytes, or a number (decimals allowed) with K, M, G or T, each a power of 1024
 * ("512M", "8GiB", "1.5g"); "none" or 0 is no limit. 0 on success with *out_bytes (0: none);
 * otherwise -1 with `msg` saying what is wrong. */
int tqh_parse_memory(const char *text, uint64_t *out_bytes, char *msg, size_t msg_size);

/* The Torq toolchain's programs, by role: torq-compile, torq-run-module and the annotator. */
typedef enum tqh_tool_role_e {
  TQH_TOOL_COMPILE,
  TQH_TOOL_RUN,
  TQH_TOOL_ANNOTATE,
  TQH_TOOL_COUNT
} tqh_tool_role_t;

/* One external program: its argv (a path, or a program and its first arguments); argc 0: none,
 * the built-in libraries do that work. A relative argv[0] holding a '/' is resolved against the
 * folder of the file that names it (the working directory for the environment and the command
 * line); one without a '/' is looked up in $PATH when it runs. */
typedef struct tqh_tool_s {
  const char *const *argv;
  size_t argc;
} tqh_tool_t;

/* Strings and arrays are borrowed from the object that holds the settings (a config or a suite)
 * and live as long as it. */
typedef struct tqh_settings_s {
  const char *const *targets; /* "sim" or board names; target_count >= 1 */
  size_t target_count;
  uint32_t repeat;          /* >= 1 */
  uint32_t warmup;          /* >= 0 */
  double compile_timeout_s; /* > 0 */
  double run_timeout_s;     /* > 0, for one invocation */
  int reference;            /* 1: compare outputs with the reference interpreter */
  double atol, rtol;        /* floats pass when |out - ref| <= atol + rtol * |ref|; ints exact */
  uint64_t seed;            /* seed of random inputs that do not name their own */
  const char *const *compile_options; /* torq-compile options ("--torq-hw=sl2610,lram=256K") */
  size_t compile_option_count;
  const char *function;             /* the entry function, "main" by default */
  double baseline_floor_pct;        /* --baseline's smallest threshold, percent; 5 by default */
  uint64_t memory_bytes; /* the test's address space (RLIMIT_AS of its worker); 0: no limit */
  const char *const *baseline_gate; /* metrics gated besides the target's ("wall_time") */
  size_t baseline_gate_count;
  tqh_tool_t tools[TQH_TOOL_COUNT]; /* `toolchain:`; all argc 0 (the default): `builtin` */
  const char *const *golden;        /* `reference: {golden: [...]}`: expected outputs (.npy) */
  size_t golden_count;
  uint8_t layer[TQH_SETTING_COUNT]; /* tqh_layer_t: where each value came from */
} tqh_settings_t;

/* ---- Boards (used from step 6; configs/ only, never secrets) -------------------------------- */

typedef struct tqh_board_s {
  const char *name; /* what `targets:` names */
  const char *host;
  uint16_t port;           /* 22 unless given */
  const char *user;        /* NULL: the local user name */
  const char *key_file;    /* NULL: ssh-agent, then ~/.ssh/id_ed25519, id_ecdsa, id_rsa */
  const char *known_hosts; /* NULL: ~/.ssh/known_hosts */
  const char *board_root;  /* NULL: /home/root/iree-build-soc */
  tqh_loc_t loc;
} tqh_board_t;

/* ---- The configuration --------------------------------------------------------------------- */

typedef struct tqh_config_s {
  tqh_settings_t defaults; /* what tests inherit */
  const char *results_dir; /* "results" (PROJECT/results in a project) */
  const char *cache_dir;   /* "build/cache" (PROJECT/build/cache in a project) */
  uint32_t jobs;           /* 1 */
  const char *history;     /* the run history: NULL = <results_dir>/history.sqlite, "" = none */
  tqh_layer_t results_dir_layer, cache_dir_layer, jobs_layer, history_layer;
  /* Where each value came from, beyond its layer: "configs/default.yaml:7" (a file and line),
   * "TORQ_REPEAT" (a variable), "--repeat" (an option), or NULL (a built-in value). */
  const char *sources[TQH_SETTING_COUNT];
  const char *results_dir_source, *cache_dir_source, *jobs_source, *history_source;
  const char *project_dir; /* the project whose configs/ were read (tqh_config_load_project) */
  tqh_board_t *boards; /* board_count of them, in the order of the files */
  size_t board_count;
  /* Private. */
  tq_arena_t arena; /* every string and array above */
  char **files;     /* the paths of the files read, in order, for locations */
  size_t file_count;
} tqh_config_t;

/* Makes a configuration holding the built-in defaults: targets [sim], repeat 1, warmup 0,
 * compile_timeout 300 s, run_timeout 60 s, reference on, atol 1e-5, rtol 1e-3, seed 0, no compile
 * options, function "main", baseline_floor 5, results_dir "results", cache_dir "build/cache",
 * jobs 1, no boards.
 * The caller owns *out_config (tqh_config_destroy). Errors: TQ_OUT_OF_MEMORY. */
tq_status_t tqh_config_create(tqh_config_t **out_config) TQ_MUST_USE;

/* Frees the configuration and everything it holds; accepts NULL. */
void tqh_config_destroy(tqh_config_t *config);

/* Reads one YAML configuration file (layer CONFIG; later files override earlier ones). Keys:
 * results_dir, cache_dir, jobs (a number or "auto": the online processors), history, targets, repeat,
 * warmup, timeout, reference, seed, compile_options, function, baseline (as in suites) and
 * `boards`, a list of {name, host, port, user, key_file, known_hosts, board_root}; ${VAR} works
 * in paths and board fields. Relative results_dir and cache_dir stay relative to the working
 * directory. Errors (all collected): as the suite loader's (unknown keys, wrong types, a board
 * name given twice ...). `errors` may be NULL. On error the configuration is left as it was. */
tq_status_t tqh_config_load_file(tqh_config_t *config, const char *path,
                                 tqh_diags_t *errors) TQ_MUST_USE;

/* As tqh_config_load_file, with relative results_dir and cache_dir joined to `base_dir` (NULL:
 * left relative to the working directory). */
tq_status_t tqh_config_load_file_at(tqh_config_t *config, const char *path, const char *base_dir,
                                    tqh_diags_t *errors) TQ_MUST_USE;

/* Reads every DIR/ *.yaml in name order (strcmp); a missing folder is not an error. */
tq_status_t tqh_config_load_dir(tqh_config_t *config, const char *dir,
                                tqh_diags_t *errors) TQ_MUST_USE;

/* ---- Where configuration is found ---------------------------------------------------------------
 * A project is the nearest folder, from a suite's folder upwards, that holds a configs/ folder
 * (the repository of torq-test, a copy made by `torq-test init`). A run reads, each file
 * overriding the ones before it (all at layer CONFIG, below the suites):
 *
 *     PROJECT/configs/ *.yaml  <  $TORQ_CONFIG (files or folders, ':'-separated)
 *     <  --config=FILE (repeatable; a file or a folder)
 *
 * and, in a project, results and the cache go to PROJECT/results and PROJECT/build/cache unless
 * a setting says otherwise. Relative results_dir and cache_dir in PROJECT/configs are relative to
 * the project; in other files, to the file's folder. */

/* The project that holds `start` (a file or a folder, which need not exist; its folder is where
 * the search begins): *out_dir is "." when that is the working directory, its absolute path
 * otherwise, and NULL when no folder up to the root holds configs/ (heap string, tq_free).
 * Errors: TQ_OUT_OF_MEMORY. */
tq_status_t tqh_config_find_project(const char *start, char **out_dir) TQ_MUST_USE;

/* Makes `project_dir` the configuration's project: the built-in results_dir and cache_dir become
 * PROJECT/results and PROJECT/build/cache, then PROJECT/configs/ *.yaml are read (as
 * tqh_config_load_dir, relative paths against the project). */
tq_status_t tqh_config_load_project(tqh_config_t *config, const char *project_dir,
                                    tqh_diags_t *errors) TQ_MUST_USE;

/* Reads a file, or every *.yaml of a folder, with relative paths against the file's folder (for
 * TORQ_CONFIG and --config). A missing path is an error naming it. */
tq_status_t tqh_config_load_path(tqh_config_t *config, const char *path,
                                 tqh_diags_t *errors) TQ_MUST_USE;

/* Applies the TORQ_* variables of the table above (layer ENV) from `env` ("NAME=VALUE" strings,
 * NULL-terminated; NULL means the process environment). Other variables, TORQ_ ones included
 * (TORQ_TESTDATA is a suite variable), are ignored. A bad value is an error naming the variable.
 * `errors` may be NULL. */
tq_status_t tqh_config_apply_env(tqh_config_t *config, const char *const *env,
                                 tqh_diags_t *errors) TQ_MUST_USE;

/* Sets one setting from its text, as the command line gives it, at `layer` (normally
 * TQH_LAYER_CLI): tqh_config_set(cfg, TQH_LAYER_CLI, "targets", "sim"). The value is copied.
 * A value from a lower layer than the one already there is ignored (not an error). Errors:
 * TQ_INVALID_ARGUMENT naming the key and saying what is expected (unknown key, "abc" for
 * repeat, a negative number ...); the configuration is then unchanged. */
tq_status_t tqh_config_set(tqh_config_t *config, tqh_layer_t layer, const char *key,
                           const char *value) TQ_MUST_USE;

/* The run history's path (the `history` setting, else RESULTS_DIR/history.sqlite), or NULL when
 * it is off; heap, caller frees with tq_free. */
char *tqh_config_history_path(const tqh_config_t *config);

/* tqh_config_set that also records where the value came from ("--repeat", "TORQ_REPEAT"; copied;
 * NULL: the layer's name alone). */
tq_status_t tqh_config_set_from(tqh_config_t *config, tqh_layer_t layer, const char *key,
                                const char *value, const char *source) TQ_MUST_USE;

/* The board of that name, or NULL. Borrowed from the configuration. */
const tqh_board_t *tqh_config_find_board(const tqh_config_t *config, const char *name);

/* Appends "key = value  (layer: source)\n" for every setting, then "board NAME = ..." lines. */
tq_status_t tqh_config_describe(const tqh_config_t *config, tq_buf_t *out) TQ_MUST_USE;

/* Appends the effective configuration as one JSON object (for run.json and `torq-test config
 * --json`): {"project": DIR|null, "files": [paths read], "settings": {KEY: {"value": V, "layer":
 * "config", "source": "configs/default.yaml:7"|null}, ...}, "boards": [{name, host, port, user,
 * key_file, known_hosts, board_root, "source": "FILE:LINE"}]}; values are numbers, booleans,
 * strings or lists of strings as the setting is. */
tq_status_t tqh_config_to_json(const tqh_config_t *config, tq_buf_t *out) TQ_MUST_USE;

/* The keys of the settings, in the order describe and the JSON list them ("targets", "repeat",
 * ..., "results_dir", "cache_dir", "jobs"), NULL-terminated. */
extern const char *const tqh_config_keys[];

/* The key of a setting ("compile_timeout": tqh_config_keys[setting]). */
const char *tqh_setting_key(tqh_setting_t setting);

/* One setting of `settings` as text ("3", "sim,astra1", "--a --b", "true"), at most `size`
 * bytes (cut): for `torq-test config` and tqh_config_get. */
void tqh_settings_format(const tqh_settings_t *settings, tqh_setting_t setting, char *text,
                         size_t size);

/* The value of setting `key` as text ("3", "sim,astra1", "--a --b") with its layer and source
 * (NULL for built-in); 0 when `key` is not a setting. `text` gets at most `size` bytes. */
int tqh_config_get(const tqh_config_t *config, const char *key, char *text, size_t size,
                   tqh_layer_t *out_layer, const char **out_source);

/* Merges settings: every value of `src` whose layer is at least that of the same value in `dst`
 * replaces it (with its layer). Borrowed pointers are copied as pointers. */
void tqh_settings_merge(tqh_settings_t *dst, const tqh_settings_t *src);

#ifdef __cplusplus
}
#endif
#endif
