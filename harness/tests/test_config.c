/* Configuration: precedence built-in < configs < suite < environment < command line, config
 * files and their errors, boards, TORQ_* variables, tqh_config_set. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "suite_testutil.h"
#include "torq/base/alloc.h"
#include "torq/harness/config.h"
#include "torq/harness/json.h"
#include "torq/harness/suite.h"
#include "tq_test.h"

Suite *config_suite(void);

static char *dir;

static void setup(void) {
  dir = st_tmpdir();
  st_write(dir, "models/m.mlir", "// m\n");
}

static void teardown(void) {
  st_rmtree(dir);
  dir = NULL;
}

static tqh_config_t *new_config(void) {
  tqh_config_t *c = NULL;
  ck_assert_ptr_null(tqh_config_create(&c));
  return c;
}

static void must(tq_status_t st) {
  if (!st) return;
  char msg[4096];
  snprintf(msg, sizeof(msg), "%s", tq_status_message(st));
  tq_status_free(st);
  ck_abort_msg("unexpected error: %s", msg);
}

/* ---- Precedence ---------------------------------------------------------------------------- */

/* Layer k (0 built-in ... 5 command line) and every layer below it set `repeat`, `warmup` and
 * the baseline floor to layer + 1: the highest wins, whatever the order the tool applies them
 * in. */
START_TEST(config_precedence_each_layer_overrides_the_one_below) {
  int k = _i;
  tqh_config_t *cfg = new_config();
  const char *env[] = {"TORQ_REPEAT=5", "TORQ_WARMUP=5", "TORQ_BASELINE_FLOOR=5", NULL};
  const char *no_env[] = {NULL};
  /* Command line first and environment after, as a tool might: order must not matter. */
  if (k >= 5) {
    must(tqh_config_set(cfg, TQH_LAYER_CLI, "repeat", "6"));
    must(tqh_config_set(cfg, TQH_LAYER_CLI, "warmup", "6"));
    must(tqh_config_set(cfg, TQH_LAYER_CLI, "baseline_floor", "6%"));
  }
  must(tqh_config_apply_env(cfg, k >= 4 ? env : no_env, NULL));
  if (k >= 1) {
    st_write(dir, "configs/default.yaml", "repeat: 2\nwarmup: 2\nbaseline: {floor: 2}\n");
    must(tqh_config_load_dir(cfg, st_path(dir, "configs"), NULL));
  }
  char yaml[512];
  snprintf(yaml, sizeof(yaml), "%stests:\n  - model: models/m.mlir\n%s",
           k >= 2 ? "defaults:\n  repeat: 3\n  warmup: 3\n  baseline: {floor: 3}\n" : "",
           k >= 3 ? "    repeat: 4\n    warmup: 4\n    baseline: {floor: \"4%\"}\n" : "");
  tqh_suite_options_t o;
  tqh_suite_options_initialize(&o);
  o.config = cfg;
  tqh_suite_t *s = NULL;
  must(tqh_suite_load_buffer(st_path(dir, "s.yaml"), yaml, strlen(yaml), &o, &s));
  const tqh_settings_t *st = &s->tests[0].settings;
  static const tqh_layer_t layers[] = {TQH_LAYER_BUILTIN, TQH_LAYER_CONFIG, TQH_LAYER_SUITE,
                                       TQH_LAYER_TEST,    TQH_LAYER_ENV,    TQH_LAYER_CLI};
  if (k == 0) {
    ck_assert_uint_eq(st->repeat, 1);
    ck_assert_uint_eq(st->warmup, 0);
    ck_assert_double_eq(st->baseline_floor_pct, 5);
  } else {
    ck_assert_uint_eq(st->repeat, (unsigned)k + 1);
    ck_assert_uint_eq(st->warmup, (unsigned)k + 1);
    ck_assert_double_eq(st->baseline_floor_pct, k + 1);
  }
  ck_assert_int_eq(st->layer[TQH_SET_REPEAT], layers[k]);
  ck_assert_int_eq(st->layer[TQH_SET_WARMUP], layers[k]);
  ck_assert_int_eq(st->layer[TQH_SET_BASELINE_FLOOR], layers[k]);
  /* What was never set stays built-in. */
  ck_assert_int_eq(st->layer[TQH_SET_SEED], TQH_LAYER_BUILTIN);
  tqh_suite_destroy(s);
  tqh_config_destroy(cfg);
}
END_TEST

START_TEST(config_precedence_of_config_only_settings) {
  tqh_config_t *cfg = new_config();
  ck_assert_str_eq(cfg->results_dir, "results");
  ck_assert_int_eq(cfg->results_dir_layer, TQH_LAYER_BUILTIN);
  st_write(dir, "c.yaml", "results_dir: r-config\ncache_dir: c-config\njobs: 2\n");
  must(tqh_config_load_file(cfg, st_path(dir, "c.yaml"), NULL));
  ck_assert_str_eq(cfg->results_dir, "r-config");
  ck_assert_uint_eq(cfg->jobs, 2);
  const char *env[] = {"TORQ_RESULTS_DIR=r-env", "TORQ_JOBS=3", NULL};
  must(tqh_config_apply_env(cfg, env, NULL));
  ck_assert_str_eq(cfg->results_dir, "r-env");
  ck_assert_int_eq(cfg->results_dir_layer, TQH_LAYER_ENV);
  ck_assert_str_eq(cfg->cache_dir, "c-config");
  ck_assert_uint_eq(cfg->jobs, 3);
  /* A file read after the environment does not override it. */
  must(tqh_config_load_file(cfg, st_path(dir, "c.yaml"), NULL));
  ck_assert_str_eq(cfg->results_dir, "r-env");
  ck_assert_uint_eq(cfg->jobs, 3);
  must(tqh_config_set(cfg, TQH_LAYER_CLI, "results_dir", "r-cli"));
  must(tqh_config_set(cfg, TQH_LAYER_CLI, "jobs", "4"));
  ck_assert_str_eq(cfg->results_dir, "r-cli");
  ck_assert_uint_eq(cfg->jobs, 4);
  ck_assert_int_eq(cfg->jobs_layer, TQH_LAYER_CLI);
  /* A lower layer afterwards is ignored, without an error. */
  must(tqh_config_set(cfg, TQH_LAYER_ENV, "results_dir", "late"));
  ck_assert_str_eq(cfg->results_dir, "r-cli");
  tqh_config_destroy(cfg);
}
END_TEST

START_TEST(config_cli_targets_override_suite_targets) {
  tqh_config_t *cfg = new_config();
  must(tqh_config_set(cfg, TQH_LAYER_CLI, "targets", "sim"));
  tqh_suite_options_t o;
  tqh_suite_options_initialize(&o);
  o.config = cfg;
  const char *yaml = "defaults: {targets: [b1, b2]}\ntests:\n  - model: models/m.mlir\n";
  tqh_suite_t *s = NULL;
  must(tqh_suite_load_buffer(st_path(dir, "s.yaml"), yaml, strlen(yaml), &o, &s));
  ck_assert_int_eq(s->test_count, 1);
  ck_assert_str_eq(s->tests[0].target, "sim");
  ck_assert_str_eq(s->tests[0].id, "s/m");
  tqh_suite_destroy(s);
  tqh_config_destroy(cfg);
}
END_TEST

START_TEST(config_settings_merge_respects_layers) {
  tqh_settings_t a, b;
  memset(&a, 0, sizeof(a));
  memset(&b, 0, sizeof(b));
  a.repeat = 1;
  a.layer[TQH_SET_REPEAT] = TQH_LAYER_ENV;
  a.seed = 1;
  a.layer[TQH_SET_SEED] = TQH_LAYER_CONFIG;
  b.repeat = 2;
  b.layer[TQH_SET_REPEAT] = TQH_LAYER_TEST;
  b.seed = 2;
  b.layer[TQH_SET_SEED] = TQH_LAYER_SUITE;
  b.warmup = 7; /* UNSET: ignored */
  tqh_settings_merge(&a, &b);
  ck_assert_uint_eq(a.repeat, 1);
  ck_assert_int_eq(a.layer[TQH_SET_REPEAT], TQH_LAYER_ENV);
  ck_assert_uint_eq(a.seed, 2);
  ck_assert_int_eq(a.layer[TQH_SET_SEED], TQH_LAYER_SUITE);
  ck_assert_uint_eq(a.warmup, 0);
  ck_assert_str_eq(tqh_layer_name(TQH_LAYER_CLI), "command line");
  ck_assert_str_eq(tqh_layer_name(TQH_LAYER_ENV), "environment");
}
END_TEST

/* ---- Files --------------------------------------------------------------------------------- */

START_TEST(config_reads_every_key_and_boards) {
  st_write(dir, "g.npy", "npy\n");
  st_write(dir, "c.yaml",
           "results_dir: out\n"
           "cache_dir: ${HOME_X:-/tmp}/cache\n"
           "jobs: 4\n"
           "targets: [sim, astra1]\n"
           "repeat: 3\n"
           "warmup: 1\n"
           "timeout: {compile: 200, run: 20}\n"
           "reference: {compare: false, atol: 0.5, rtol: 0.25, golden: [g.npy]}\n"
           "seed: 42\n"
           "compile_options: [\"--torq-hw=sl2610,lram=256K\"]\n"
           "function: forward\n"
           "boards:\n"
           "  - name: astra1\n"
           "    host: 10.0.0.2\n"
           "    port: 2222\n"
           "    user: root\n"
           "    key_file: ~/.ssh/id_lab\n"
           "    known_hosts: ~/.ssh/known_hosts\n"
           "    board_root: /home/root/iree-build-soc\n"
           "  - {name: astra2, host: board2.lan}\n"
           "baseline: {floor: 7.5, gate: [wall_time, Dma In]}\n"
           "history: runs/h.sqlite\n"
           "memory: 2G\n"
           "toolchain: {compile: /opt/torq/bin/torq-compile, run: /opt/torq/bin/run}\n");
  tqh_config_t *cfg = new_config();
  must(tqh_config_load_file(cfg, st_path(dir, "c.yaml"), NULL));
  ck_assert_str_eq(cfg->results_dir, "out");
  ck_assert_str_eq(cfg->cache_dir, "/tmp/cache");
  ck_assert_uint_eq(cfg->jobs, 4);
  const tqh_settings_t *s = &cfg->defaults;
  ck_assert_int_eq(s->target_count, 2);
  ck_assert_str_eq(s->targets[1], "astra1");
  ck_assert_uint_eq(s->repeat, 3);
  ck_assert_uint_eq(s->warmup, 1);
  ck_assert_double_eq(s->compile_timeout_s, 200);
  ck_assert_double_eq(s->run_timeout_s, 20);
  ck_assert_int_eq(s->reference, 0);
  ck_assert_double_eq(s->atol, 0.5);
  ck_assert_double_eq(s->rtol, 0.25);
  ck_assert_uint_eq(s->seed, 42);
  ck_assert_str_eq(s->compile_options[0], "--torq-hw=sl2610,lram=256K");
  ck_assert_str_eq(s->function, "forward");
  ck_assert_double_eq(s->baseline_floor_pct, 7.5);
  ck_assert_uint_eq(s->memory_bytes, (uint64_t)2 << 30);
  ck_assert_uint_eq(s->baseline_gate_count, 2);
  ck_assert_str_eq(s->baseline_gate[1], "Dma In");
  ck_assert_str_eq(cfg->history, "runs/h.sqlite");
  char *hp = tqh_config_history_path(cfg);
  ck_assert_str_eq(hp, "runs/h.sqlite");
  tq_free(hp);
  for (int i = 0; i < TQH_SETTING_COUNT; i++) ck_assert_int_eq(s->layer[i], TQH_LAYER_CONFIG);
  ck_assert_int_eq(cfg->board_count, 2);
  const tqh_board_t *b = tqh_config_find_board(cfg, "astra1");
  ck_assert_ptr_eq(b, &cfg->boards[0]);
  ck_assert_str_eq(b->host, "10.0.0.2");
  ck_assert_uint_eq(b->port, 2222);
  ck_assert_str_eq(b->user, "root");
  ck_assert_str_eq(b->key_file, "~/.ssh/id_lab");
  ck_assert_str_eq(b->known_hosts, "~/.ssh/known_hosts");
  ck_assert_str_eq(b->board_root, "/home/root/iree-build-soc");
  ck_assert_str_eq(b->loc.file, st_path(dir, "c.yaml"));
  ck_assert_uint_eq(b->loc.line, 13);
  ck_assert_uint_eq(b->loc.col, 5);
  b = tqh_config_find_board(cfg, "astra2");
  ck_assert_uint_eq(b->port, 22);
  ck_assert_ptr_null(b->user);
  ck_assert_ptr_null(b->key_file);
  ck_assert_ptr_null(tqh_config_find_board(cfg, "sim"));
  tqh_config_destroy(cfg);
}
END_TEST

START_TEST(config_ships_default_yaml) {
  /* The repository's file, whatever the working directory; missing, it fails. */
  char path[4096];
  snprintf(path, sizeof(path), "%s/configs/default.yaml", tq_test_top());
  tqh_config_t *cfg = new_config();
  must(tqh_config_load_file(cfg, path, NULL));
  ck_assert_str_eq(cfg->results_dir, "results");
  ck_assert_str_eq(cfg->defaults.targets[0], "sim");
  ck_assert_int_eq(cfg->defaults.layer[TQH_SET_REPEAT], TQH_LAYER_CONFIG);
  ck_assert_double_eq(cfg->defaults.baseline_floor_pct, 5);
  ck_assert_int_eq(cfg->defaults.layer[TQH_SET_BASELINE_FLOOR], TQH_LAYER_CONFIG);
  ck_assert_int_eq(cfg->board_count, 0);
  tqh_config_destroy(cfg);
}
END_TEST

typedef struct bad_case_s {
  const char *yaml;
  uint32_t line, col;
  const char *needle;
} bad_case_t;

static const bad_case_t bad_configs[] = {
    {"repat: 3\n", 1, 1, "unknown key \"repat\" in a configuration (did you mean \"repeat\"?)"},
    {"jobs: 0\n", 1, 7, "jobs must be between 1 and 1024, found 0"},
    {"repeat: lots\n", 1, 9, "repeat: expected an integer, found the string \"lots\""},
    {"boards: x\n", 1, 9, "boards: expected a list of boards"},
    {"boards:\n  - x\n", 2, 5, "each board is a mapping"},
    {"boards:\n  - host: h\n", 2, 5, "a board needs a name:"},
    {"boards:\n  - name: b\n", 2, 5, "a board needs a host:"},
    {"boards:\n  - name: sim\n    host: h\n", 2, 11, "and not be \"sim\""},
    {"boards:\n  - name: b\n    host: h\n    port: 70000\n", 4, 11,
     "port must be between 1 and 65535"},
    {"boards:\n  - name: b\n    host: h\n    password: x\n", 4, 5, "secrets never go in configs"},
    {"boards:\n  - name: b\n    host: h\n    password: x\n", 4, 5, "unknown key \"password\""},
    {"boards:\n  - {name: b, host: h}\n  - {name: b, host: g}\n", 3, 6,
     "board \"b\" is defined twice"},
    {"boards:\n  - name: b\n    host: \"user@h\"\n", 3, 11, "is not a host name"},
    {"boards:\n  - name: b\n    host: h\n    user: [x]\n", 4, 11, "user: expected a string"},
    {"results_dir: \"\"\n", 1, 14, "results_dir: the path is empty"},
    {"timeout: {run: -1}\n", 1, 16, "timeout.run must be > 0"},
    {"targets: [sim, \"a b\"]\n", 1, 16, "is not a target"},
    {"compile_options: [--x]\n", 1, 19, "unknown compile option"},
    {"baseline: {floor: -2}\n", 1, 19, "baseline.floor must be >= 0"},
    {"baseline: {flooor: 2}\n", 1, 12, "unknown key \"flooor\" in baseline"},
    {"- a\n", 1, 1, "a configuration is a mapping"},
    {"a: [\n", 2, 1, "YAML: "},
};

START_TEST(config_rejects_bad_file_with_location) {
  const bad_case_t *c = &bad_configs[_i];
  st_write(dir, "c.yaml", c->yaml);
  tqh_config_t *cfg = new_config();
  tqh_diags_t errors;
  tqh_diags_init_max(&errors, TQH_ERRORS_DEFAULT_MAX);
  tq_status_t st = tqh_config_load_file(cfg, st_path(dir, "c.yaml"), &errors);
  ck_assert_msg(st != NULL, "case %d should fail", _i);
  ck_assert_int_eq(tq_status_code(st), TQ_INVALID_ARGUMENT);
  char *text = st_errors_text(&errors);
  ck_assert_msg(st_find_error(&errors, c->line, c->col, c->needle) != NULL,
                "case %d: no error at %u:%u with \"%s\"; got:\n%s", _i, c->line, c->col, c->needle,
                text);
  free(text);
  tq_status_free(st);
  tqh_diags_deinit(&errors);
  tqh_config_destroy(cfg);
}
END_TEST

START_TEST(config_bad_file_leaves_config_unchanged) {
  st_write(dir, "c.yaml", "repeat: 5\nresults_dir: x\nboards: [{name: b, host: h}]\njobs: 0\n");
  tqh_config_t *cfg = new_config();
  tq_status_t st = tqh_config_load_file(cfg, st_path(dir, "c.yaml"), NULL);
  ck_assert_ptr_nonnull(st);
  tq_status_free(st);
  ck_assert_uint_eq(cfg->defaults.repeat, 1);
  ck_assert_str_eq(cfg->results_dir, "results");
  ck_assert_int_eq(cfg->board_count, 0);
  ck_assert_int_eq(cfg->defaults.layer[TQH_SET_REPEAT], TQH_LAYER_BUILTIN);
  tqh_config_destroy(cfg);
}
END_TEST

START_TEST(config_dir_reads_files_in_name_order) {
  st_write(dir, "configs/20-lab.yaml", "repeat: 3\nboards: [{name: b2, host: h2}]\n");
  st_write(dir, "configs/10-base.yaml", "repeat: 2\nwarmup: 4\nboards: [{name: b1, host: h1}]\n");
  st_write(dir, "configs/README.txt", "not yaml: [\n");
  st_write(dir, "configs/.hidden.yaml", "not yaml: [\n");
  tqh_config_t *cfg = new_config();
  must(tqh_config_load_dir(cfg, st_path(dir, "configs"), NULL));
  ck_assert_uint_eq(cfg->defaults.repeat, 3);
  ck_assert_uint_eq(cfg->defaults.warmup, 4);
  ck_assert_int_eq(cfg->board_count, 2);
  ck_assert_str_eq(cfg->boards[0].name, "b1");
  ck_assert_str_eq(cfg->boards[1].name, "b2");
  tqh_config_destroy(cfg);
  /* A missing folder is no error. */
  cfg = new_config();
  must(tqh_config_load_dir(cfg, st_path(dir, "nope"), NULL));
  tqh_config_destroy(cfg);
}
END_TEST

START_TEST(config_dir_that_is_a_file_is_refused) {
  st_write(dir, "configs", "repeat: 2\n");
  tqh_config_t *cfg = new_config();
  tq_status_t st = tqh_config_load_dir(cfg, st_path(dir, "configs"), NULL);
  ck_assert_ptr_nonnull(st);
  ck_assert_int_eq(tq_status_code(st), TQ_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(tq_status_message(st), "cannot open the configuration folder"));
  tq_status_free(st);
  tqh_config_destroy(cfg);
}
END_TEST

START_TEST(config_dir_reports_errors_of_every_file) {
  st_write(dir, "configs/a.yaml", "repeat: x\nboards: [{name: b1, host: h1}]\n");
  st_write(dir, "configs/b.yaml", "jobs: 0\n");
  st_write(dir, "configs/c.yaml", "boards: [{name: b1, host: h1}]\n");
  st_write(dir, "configs/d.yaml", "boards: [{name: b1, host: h1}]\n");
  tqh_config_t *cfg = new_config();
  tqh_diags_t errors;
  tqh_diags_init_max(&errors, TQH_ERRORS_DEFAULT_MAX);
  tq_status_t st = tqh_config_load_dir(cfg, st_path(dir, "configs"), &errors);
  ck_assert_ptr_nonnull(st);
  ck_assert_int_eq(errors.errors, 3);
  ck_assert_str_eq(errors.items[0].file, st_path(dir, "configs/a.yaml"));
  ck_assert_str_eq(errors.items[1].file, st_path(dir, "configs/b.yaml"));
  /* c.yaml defined b1 (a.yaml's was rejected with its file); d.yaml's b1 names c.yaml. */
  ck_assert_str_eq(errors.items[2].file, st_path(dir, "configs/d.yaml"));
  char want[4200];
  snprintf(want, sizeof(want), "board \"b1\" is already defined at %s:1:10",
           st_path(dir, "configs/c.yaml"));
  ck_assert_ptr_nonnull(strstr(errors.items[2].message, want));
  ck_assert_ptr_nonnull(strstr(tq_status_message(st), "a.yaml:1:9: error: repeat"));
  ck_assert_ptr_nonnull(strstr(tq_status_message(st), "b.yaml:1:7: error: jobs"));
  tq_status_free(st);
  tqh_diags_deinit(&errors);
  tqh_config_destroy(cfg);
}
END_TEST

START_TEST(config_missing_file_is_an_error) {
  tqh_config_t *cfg = new_config();
  tq_status_t st = tqh_config_load_file(cfg, st_path(dir, "none.yaml"), NULL);
  ck_assert_int_eq(tq_status_code(st), TQ_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(tq_status_message(st), "cannot read the configuration"));
  tq_status_free(st);
  tqh_config_destroy(cfg);
}
END_TEST

/* ---- Environment and command line ------------------------------------------------------------ */

START_TEST(config_env_sets_documented_variables) {
  const char *env[] = {"TORQ_REPEAT=5",
                       "TORQ_WARMUP=0",
                       "TORQ_TARGETS=sim, b1",
                       "TORQ_TIMEOUT=9",
                       "TORQ_RUN_TIMEOUT=2.5",
                       "TORQ_REFERENCE=false",
                       "TORQ_ATOL=0.5",
                       "TORQ_RTOL=1e-2",
                       "TORQ_SEED=0x20",
                       "TORQ_COMPILE_OPTIONS=--torq-hw=sl2610,lram=256K  --torq-enable-profiling",
                       "TORQ_FUNCTION=forward",
                       "TORQ_BASELINE_FLOOR=12.5%",
                       "TORQ_MEMORY=1.5GiB",
                       "TORQ_BASELINE_GATE=wall_time, Dma In ",
                       "TORQ_HISTORY=off",
                       "TORQ_CACHE_DIR=/c",
                       "TORQ_TESTDATA=/x", /* a suite variable: ignored here */
                       "TORQ_=1",
                       "PATH=/bin",
                       NULL};
  tqh_config_t *cfg = new_config();
  must(tqh_config_apply_env(cfg, env, NULL));
  const tqh_settings_t *s = &cfg->defaults;
  ck_assert_uint_eq(s->repeat, 5);
  ck_assert_uint_eq(s->warmup, 0);
  ck_assert_int_eq(s->layer[TQH_SET_WARMUP], TQH_LAYER_ENV);
  ck_assert_int_eq(s->target_count, 2);
  ck_assert_str_eq(s->targets[0], "sim");
  ck_assert_str_eq(s->targets[1], "b1");
  ck_assert_double_eq(s->compile_timeout_s, 9);
  ck_assert_double_eq(s->run_timeout_s, 2.5);
  ck_assert_int_eq(s->reference, 0);
  ck_assert_double_eq(s->atol, 0.5);
  ck_assert_double_eq(s->rtol, 0.01);
  ck_assert_uint_eq(s->seed, 32);
  ck_assert_int_eq(s->compile_option_count, 2);
  ck_assert_str_eq(s->compile_options[0], "--torq-hw=sl2610,lram=256K");
  ck_assert_str_eq(s->compile_options[1], "--torq-enable-profiling");
  ck_assert_str_eq(s->function, "forward");
  ck_assert_uint_eq(s->baseline_gate_count, 2);
  ck_assert_str_eq(s->baseline_gate[0], "wall_time");
  ck_assert_str_eq(s->baseline_gate[1], "Dma In");
  ck_assert_ptr_null(tqh_config_history_path(cfg)); /* off */
  ck_assert_str_eq(cfg->cache_dir, "/c");
  ck_assert_int_eq(cfg->cache_dir_layer, TQH_LAYER_ENV);
  ck_assert_double_eq(s->baseline_floor_pct, 12.5);
  ck_assert_int_eq(s->layer[TQH_SET_BASELINE_FLOOR], TQH_LAYER_ENV);
  ck_assert_uint_eq(s->memory_bytes, (uint64_t)3 << 29);
  ck_assert_int_eq(s->layer[TQH_SET_MEMORY], TQH_LAYER_ENV);
  tqh_config_destroy(cfg);
}
END_TEST

/* Memory sizes: powers of 1024, "none" or 0 for no limit, nothing below 16M. */
START_TEST(config_memory_sizes_parse_or_say_why_not) {
  static const struct {
    const char *text;
    uint64_t bytes;
  } good[] = {{"8GiB", (uint64_t)8 << 30}, {"8g", (uint64_t)8 << 30}, {"512M", 512u << 20},
              {"512mb", 512u << 20},       {"1.5G", (uint64_t)3 << 29}, {"16777216", 16u << 20},
              {"1T", (uint64_t)1 << 40},   {"none", 0},                {"0", 0}};
  for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
    uint64_t v = 1;
    char msg[256] = "";
    ck_assert_msg(tqh_parse_memory(good[i].text, &v, msg, sizeof(msg)) == 0, "%s: %s",
                  good[i].text, msg);
    ck_assert_msg(v == good[i].bytes, "%s: %llu", good[i].text, (unsigned long long)v);
  }
  static const struct {
    const char *text, *needle;
  } bad[] = {{"1K", "below the smallest limit, 16M"}, {"12 parsecs", "expected a size"},
             {"-1G", "expected a size"},              {"G", "expected a size"},
             {"8Q", "expected a size"},               {"", "expected a size"},
             {"1e30", "expected a size"}};
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    uint64_t v;
    char msg[256] = "";
    ck_assert_msg(tqh_parse_memory(bad[i].text, &v, msg, sizeof(msg)) != 0, "'%s' was taken",
                  bad[i].text);
    ck_assert_msg(strstr(msg, bad[i].needle), "%s: %s", bad[i].text, msg);
  }
  /* The built-in default, stated in the README. */
  tqh_config_t *cfg = new_config();
  ck_assert_uint_eq(cfg->defaults.memory_bytes, TQH_MEMORY_DEFAULT);
  ck_assert_uint_eq(TQH_MEMORY_DEFAULT, (uint64_t)8 << 30);
  tqh_config_destroy(cfg);
}
END_TEST

START_TEST(config_env_errors_are_all_reported) {
  const char *env[] = {"TORQ_REPEAT=abc", "TORQ_JOBS=0", "TORQ_TARGETS=", NULL};
  tqh_config_t *cfg = new_config();
  tqh_diags_t errors;
  tqh_diags_init_max(&errors, TQH_ERRORS_DEFAULT_MAX);
  tq_status_t st = tqh_config_apply_env(cfg, env, &errors);
  ck_assert_int_eq(tq_status_code(st), TQ_INVALID_ARGUMENT);
  ck_assert_int_eq(errors.count, 3);
  ck_assert_str_eq(errors.items[0].file, "environment");
  ck_assert_ptr_nonnull(strstr(errors.items[0].message,
                               "TORQ_REPEAT: repeat: expected an integer from 1 to 1000000, found "
                               "\"abc\""));
  ck_assert_ptr_nonnull(strstr(errors.items[1].message, "TORQ_JOBS: jobs"));
  ck_assert_ptr_nonnull(strstr(errors.items[2].message, "TORQ_TARGETS: targets"));
  ck_assert_ptr_nonnull(strstr(tq_status_message(st), "environment: error: TORQ_REPEAT"));
  ck_assert_uint_eq(cfg->defaults.repeat, 1);
  tq_status_free(st);
  tqh_diags_deinit(&errors);
  tqh_config_destroy(cfg);
}
END_TEST

static const struct {
  const char *key, *value, *needle;
} bad_sets[] = {
    {"repat", "1", "unknown setting \"repat\" (settings: targets, repeat"},
    {"repeat", "0", "repeat: expected an integer from 1 to 1000000, found \"0\""},
    {"repeat", "-3", "repeat: expected an integer"},
    {"repeat", "3x", "repeat: expected an integer"},
    {"warmup", "1000001", "warmup: expected an integer from 0 to 1000000"},
    {"timeout", "0", "timeout: expected a number of seconds > 0"},
    {"run_timeout", "inf", "run_timeout: expected a number of seconds"},
    {"compile_timeout", "", "compile_timeout: expected"},
    {"reference", "perhaps", "reference: expected true or false"},
    {"atol", "-1", "atol: expected a number >= 0"},
    {"rtol", "nan", "rtol: expected a number >= 0"},
    {"seed", "-1", "seed: expected an integer >= 0"},
    {"targets", "", "targets: expected \"sim\" or board names"},
    {"targets", "sim,a/b", "targets: expected \"sim\" or a board name"},
    {"targets", "sim,sim", "\"sim\" is listed twice"},
    {"compile_options", "--nope", "compile_options: unknown compile option"},
    {"function", "1x", "function: expected a function name"},
    {"results_dir", "", "results_dir: expected a folder"},
    {"jobs", "2000", "jobs: expected an integer from 1 to 1024"},
    {"baseline_floor", "-1", "baseline_floor: expected a percentage from 0 to 10000"},
    {"baseline_floor", "10001", "baseline_floor: expected a percentage from 0 to 10000"},
    {"baseline_floor", "5 %", "baseline_floor: expected a percentage"},
};

START_TEST(config_set_rejects_bad_values) {
  tqh_config_t *cfg = new_config();
  tq_status_t st = tqh_config_set(cfg, TQH_LAYER_CLI, bad_sets[_i].key, bad_sets[_i].value);
  ck_assert_int_eq(tq_status_code(st), TQ_INVALID_ARGUMENT);
  ck_assert_msg(strstr(tq_status_message(st), bad_sets[_i].needle) != NULL, "\"%s\" lacks \"%s\"",
                tq_status_message(st), bad_sets[_i].needle);
  tq_status_free(st);
  /* Unchanged. */
  ck_assert_uint_eq(cfg->defaults.repeat, 1);
  ck_assert_int_eq(cfg->defaults.layer[TQH_SET_REPEAT], TQH_LAYER_BUILTIN);
  tqh_config_destroy(cfg);
}
END_TEST

START_TEST(config_describe_names_each_layer) {
  tqh_config_t *cfg = new_config();
  must(tqh_config_set(cfg, TQH_LAYER_CLI, "repeat", "6"));
  must(tqh_config_set(cfg, TQH_LAYER_ENV, "repeat", "5")); /* lower: ignored */
  must(tqh_config_set(cfg, TQH_LAYER_ENV, "seed", "9"));
  st_write(dir, "c.yaml", "boards: [{name: b, host: h, user: u}]\n");
  must(tqh_config_load_file(cfg, st_path(dir, "c.yaml"), NULL));
  tq_buf_t b;
  tq_buf_init(&b, 0);
  must(tqh_config_describe(cfg, &b));
  ck_assert_ptr_nonnull(strstr(b.data, "repeat = 6  (command line)\n"));
  ck_assert_ptr_nonnull(strstr(b.data, "seed = 9  (environment)\n"));
  ck_assert_ptr_nonnull(strstr(b.data, "targets = sim  (built-in)\n"));
  ck_assert_ptr_nonnull(strstr(b.data, "baseline_floor = 5  (built-in)\n"));
  ck_assert_ptr_nonnull(strstr(b.data, "results_dir = results  (built-in)\n"));
  ck_assert_ptr_nonnull(strstr(b.data, "board b = u@h:22"));
  tq_buf_deinit(&b);
  tqh_config_destroy(cfg);
}
END_TEST

/* Each value says where it came from: the file and line, the variable, the option. */
START_TEST(config_remembers_the_source_of_every_value) {
  tqh_config_t *cfg = new_config();
  st_write(dir, "c.yaml", "# defaults\nrepeat: 3\ntimeout: {compile: 9, run: 8}\njobs: auto\n");
  must(tqh_config_load_file(cfg, st_path(dir, "c.yaml"), NULL));
  const char *env[] = {"TORQ_WARMUP=2", NULL};
  must(tqh_config_apply_env(cfg, env, NULL));
  must(tqh_config_set_from(cfg, TQH_LAYER_CLI, "seed", "7", "--seed"));
  must(tqh_config_set_from(cfg, TQH_LAYER_ENV, "seed", "8", "TORQ_SEED")); /* lower: ignored */
  char text[64], where[4200];
  tqh_layer_t layer;
  const char *source;
  ck_assert(tqh_config_get(cfg, "repeat", text, sizeof(text), &layer, &source));
  snprintf(where, sizeof(where), "%s:2", st_path(dir, "c.yaml"));
  ck_assert_str_eq(text, "3");
  ck_assert_int_eq(layer, TQH_LAYER_CONFIG);
  ck_assert_str_eq(source, where);
  ck_assert(tqh_config_get(cfg, "run_timeout", text, sizeof(text), &layer, &source));
  snprintf(where, sizeof(where), "%s:3", st_path(dir, "c.yaml"));
  ck_assert_str_eq(text, "8");
  ck_assert_str_eq(source, where);
  ck_assert(tqh_config_get(cfg, "warmup", text, sizeof(text), &layer, &source));
  ck_assert_int_eq(layer, TQH_LAYER_ENV);
  ck_assert_str_eq(source, "TORQ_WARMUP");
  ck_assert(tqh_config_get(cfg, "seed", text, sizeof(text), &layer, &source));
  ck_assert_str_eq(text, "7");
  ck_assert_str_eq(source, "--seed");
  ck_assert(tqh_config_get(cfg, "function", text, sizeof(text), &layer, &source));
  ck_assert_int_eq(layer, TQH_LAYER_BUILTIN);
  ck_assert_ptr_null(source);
  ck_assert(!tqh_config_get(cfg, "nope", text, sizeof(text), &layer, &source));
  /* jobs: auto is the processors online. */
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  ck_assert_uint_eq(cfg->jobs, cpus < 1 ? 1 : (unsigned)cpus);
  must(tqh_config_set(cfg, TQH_LAYER_CLI, "jobs", "auto"));
  ck_assert_uint_eq(cfg->jobs, cpus < 1 ? 1 : (unsigned)cpus);

  tq_buf_t b;
  tq_buf_init(&b, 0);
  must(tqh_config_describe(cfg, &b));
  ck_assert_ptr_nonnull(strstr(b.data, "warmup = 2  (environment: TORQ_WARMUP)\n"));
  ck_assert_ptr_nonnull(strstr(b.data, "seed = 7  (command line: --seed)\n"));
  tq_buf_clear(&b);
  must(tqh_config_to_json(cfg, &b));
  tq_arena_t arena;
  tq_arena_init(&arena, 0, 0);
  tqh_json_t *v = NULL;
  must(tqh_json_parse(&arena, "config", b.data, b.len, &v));
  const tqh_json_t *repeat = tqh_json_get(tqh_json_get(v, "settings"), "repeat");
  ck_assert(tqh_json_get(repeat, "value")->number == 3);
  ck_assert_str_eq(tqh_json_get(repeat, "layer")->string, "config");
  ck_assert_ptr_nonnull(strstr(tqh_json_get(repeat, "source")->string, "c.yaml:2"));
  const tqh_json_t *targets = tqh_json_get(tqh_json_get(tqh_json_get(v, "settings"), "targets"),
                                           "value");
  ck_assert_int_eq(targets->kind, TQH_JSON_ARRAY);
  ck_assert_str_eq(targets->items[0]->string, "sim");
  ck_assert_int_eq(tqh_json_get(tqh_json_get(tqh_json_get(v, "settings"), "reference"),
                                "value")->kind, TQH_JSON_BOOL);
  ck_assert_int_eq(tqh_json_get(v, "files")->len, 1);
  tq_arena_deinit(&arena);
  tq_buf_deinit(&b);
  tqh_config_destroy(cfg);
}
END_TEST

/* The project: the nearest folder upwards with configs/; its results and cache by default,
 * relative paths of its configs against it, of other files against their folder. */
START_TEST(config_project_is_found_from_the_suite_upwards) {
  st_write(dir, "proj/configs/a.yaml", "repeat: 4\ncache_dir: cache\n");
  st_write(dir, "proj/suites/deep/s.yaml", "tests: []\n");
  st_write(dir, "lone/s.yaml", "tests: []\n");
  st_write(dir, "extra/more.yaml", "results_dir: out\nwarmup: 3\n");
  char proj[4096], want[4200];
  ck_assert_ptr_nonnull(realpath(st_path(dir, "proj"), proj));
  char *found = NULL;
  must(tqh_config_find_project(st_path(dir, "proj/suites/deep/s.yaml"), &found));
  ck_assert_ptr_nonnull(found);
  ck_assert_str_eq(found, proj);
  tq_free(found);
  must(tqh_config_find_project(st_path(dir, "proj/suites"), &found));
  ck_assert_str_eq(found, proj);
  tq_free(found);
  /* A file that does not exist yet still has its folder's project. */
  must(tqh_config_find_project(st_path(dir, "proj/suites/none.yaml"), &found));
  ck_assert_str_eq(found, proj);
  tq_free(found);
  must(tqh_config_find_project(st_path(dir, "lone/s.yaml"), &found));
  ck_assert_ptr_null(found);
  must(tqh_config_find_project(st_path(dir, "missing/x/s.yaml"), &found));
  ck_assert_ptr_null(found);

  tqh_config_t *cfg = new_config();
  must(tqh_config_load_project(cfg, proj, NULL));
  ck_assert_str_eq(cfg->project_dir, proj);
  ck_assert_uint_eq(cfg->defaults.repeat, 4);
  snprintf(want, sizeof(want), "%s/results", proj);
  ck_assert_str_eq(cfg->results_dir, want);
  ck_assert_int_eq(cfg->results_dir_layer, TQH_LAYER_BUILTIN);
  snprintf(want, sizeof(want), "%s/cache", proj);
  ck_assert_str_eq(cfg->cache_dir, want);
  ck_assert_int_eq(cfg->cache_dir_layer, TQH_LAYER_CONFIG);
  /* --config / TORQ_CONFIG: a file's relative paths are against its folder; a folder's files
   * are read in order. */
  must(tqh_config_load_path(cfg, st_path(dir, "extra/more.yaml"), NULL));
  snprintf(want, sizeof(want), "%s/out", st_path(dir, "extra"));
  ck_assert_str_eq(cfg->results_dir, want);
  ck_assert_uint_eq(cfg->defaults.warmup, 3);
  ck_assert_uint_eq(cfg->defaults.repeat, 4);
  tq_status_t st = tqh_config_load_path(cfg, st_path(dir, "nothing.yaml"), NULL);
  ck_assert_int_eq(tq_status_code(st), TQ_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(tq_status_message(st), "nothing.yaml"));
  tq_status_free(st);
  tqh_config_destroy(cfg);

  cfg = new_config();
  st_write(dir, "folder/1.yaml", "repeat: 7\n");
  st_write(dir, "folder/2.yaml", "repeat: 8\n");
  must(tqh_config_load_path(cfg, st_path(dir, "folder"), NULL));
  ck_assert_uint_eq(cfg->defaults.repeat, 8);
  tqh_config_destroy(cfg);
}
END_TEST

/* SQLite style: every allocation in turn fails. Each attempt reports TQ_OUT_OF_MEMORY or, once
 * enough allocations succeed, gives the whole configuration; never a crash or a leak (valgrind
 * and ASan check the latter). */
START_TEST(config_survives_allocation_failure) {
  st_write(dir, "c.yaml",
           "repeat: 3\ntargets: [sim, b]\ncompile_options: [--torq-enable-profiling]\n"
           "boards: [{name: b, host: h}, {name: c, host: i}]\n");
  char path[4096];
  snprintf(path, sizeof(path), "%s", st_path(dir, "c.yaml"));
  long n = 0, failures = 0;
  int succeeded = 0;
  for (; n < 5000 && !succeeded; n++) {
    tqh_config_t *cfg = NULL;
    tq_alloc_fail_after(n);
    tq_status_t st = tqh_config_create(&cfg);
    if (!st) st = tqh_config_load_file(cfg, path, NULL);
    if (!st) st = tqh_config_set(cfg, TQH_LAYER_CLI, "targets", "sim,b,c");
    tq_alloc_fail_after(-1);
    if (st) {
      ck_assert_msg(tq_status_code(st) == TQ_OUT_OF_MEMORY, "after %ld allocations: %s", n,
                    tq_status_message(st));
      tq_status_free(st);
      failures++;
    } else {
      succeeded = 1;
      ck_assert_uint_eq(cfg->defaults.repeat, 3);
      ck_assert_uint_eq(cfg->defaults.target_count, 3);
      ck_assert_str_eq(cfg->defaults.targets[0], "sim");
      ck_assert_str_eq(cfg->defaults.targets[2], "c");
      ck_assert_uint_eq(cfg->defaults.compile_option_count, 1);
      ck_assert_str_eq(cfg->defaults.compile_options[0], "--torq-enable-profiling");
      ck_assert_uint_eq(cfg->board_count, 2);
      ck_assert_str_eq(cfg->boards[1].name, "c");
      ck_assert_str_eq(cfg->boards[1].host, "i");
    }
    tqh_config_destroy(cfg);
  }
  ck_assert_msg(succeeded, "no attempt succeeded in %ld", n);
  /* Each allocation up to the last one failed in turn: the hook did reach every one. */
  ck_assert_int_eq(failures, n - 1);
  ck_assert_int_gt(failures, 5);
}
END_TEST

Suite *config_suite(void) {
  Suite *s = suite_create("config");
  TCase *tc = tcase_create("precedence");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_loop_test(tc, config_precedence_each_layer_overrides_the_one_below, 0, 6);
  tcase_add_test(tc, config_precedence_of_config_only_settings);
  tcase_add_test(tc, config_cli_targets_override_suite_targets);
  tcase_add_test(tc, config_settings_merge_respects_layers);
  suite_add_tcase(s, tc);

  tc = tcase_create("files");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, config_reads_every_key_and_boards);
  tcase_add_test(tc, config_ships_default_yaml);
  tcase_add_loop_test(tc, config_rejects_bad_file_with_location, 0,
                      (int)(sizeof(bad_configs) / sizeof(bad_configs[0])));
  tcase_add_test(tc, config_bad_file_leaves_config_unchanged);
  tcase_add_test(tc, config_dir_reads_files_in_name_order);
  tcase_add_test(tc, config_dir_reports_errors_of_every_file);
  tcase_add_test(tc, config_dir_that_is_a_file_is_refused);
  tcase_add_test(tc, config_missing_file_is_an_error);
  tcase_add_test(tc, config_survives_allocation_failure);
  suite_add_tcase(s, tc);

  tc = tcase_create("env_cli");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, config_env_sets_documented_variables);
  tcase_add_test(tc, config_env_errors_are_all_reported);
  tcase_add_test(tc, config_memory_sizes_parse_or_say_why_not);
  tcase_add_loop_test(tc, config_set_rejects_bad_values, 0,
                      (int)(sizeof(bad_sets) / sizeof(bad_sets[0])));
  tcase_add_test(tc, config_describe_names_each_layer);
  tcase_add_test(tc, config_remembers_the_source_of_every_value);
  tcase_add_test(tc, config_project_is_found_from_the_suite_upwards);
  suite_add_tcase(s, tc);
  return s;
}
