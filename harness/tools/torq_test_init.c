/* `torq-test config` (the effective configuration and where each value came from) and
 * `torq-test init [DIR]` (a commented starter suite and configuration) (torq_test.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "torq_test.h"
#include "torq/base/alloc.h"
#include "torq/base/file.h"

/* ---- config --------------------------------------------------------------------------------- */

static void setting_row(const char *key, const char *value, tqh_layer_t layer,
                        const char *source) {
  printf("  %-16s %-28s %-13s %s\n", key, *value ? value : "(none)", tqh_layer_name(layer),
         source ? source : "");
}

/* What a suite's defaults set: the layer its first test holds each setting at. */
static void suite_rows(const tqh_suite_t *s) {
  printf("\nSuite %s (%s, %zu test%s): what its defaults: set (a test may set its own)\n", s->name,
         s->path, s->test_count, s->test_count == 1 ? "" : "s");
  if (!s->test_count) return;
  const tqh_settings_t *t = &s->tests[0].settings;
  char v[512];
  int any = 0;
  for (int i = 0; i < TQH_SETTING_COUNT; i++) {
    if (t->layer[i] != TQH_LAYER_SUITE) continue;
    any = 1;
    tqh_settings_format(t, (tqh_setting_t)i, v, sizeof(v));
    setting_row(tqh_setting_key((tqh_setting_t)i), v, TQH_LAYER_SUITE, s->path);
  }
  if (!any) printf("  (nothing: its tests take the configuration above)\n");
}

int tt_run_config(const cli_t *cli_in, int argc, char **argv) {
  (void)argc, (void)argv;
  cli_t cli = *cli_in;
  tqh_config_t *cfg = NULL;
  tq_status_t st = tt_build_config(&cli, &cfg);
  if (st) return tt_fail(st, EXIT_USAGE);
  tqh_suite_t **suites = NULL;
  size_t num_suites = 0;
  int rc = cli.num_suites ? tt_load_suites(&cli, cfg, &suites, &num_suites) : 0;
  if (!rc && cli.json) {
    tq_buf_t text;
    tq_buf_init(&text, 0);
    st = tqh_config_to_json(cfg, &text);
    if (!st) st = tq_buf_putc(&text, '\n');
    if (st) rc = tt_fail(st, EXIT_INFRA);
    else if (!*cli.json) fputs(text.data, stdout);
    else if ((st = tq_file_write_atomic(cli.json, text.data, text.len)))
      rc = tt_fail(tq_status_annotate(st, "--json=%s", cli.json), EXIT_INFRA);
    tq_buf_deinit(&text);
  } else if (!rc) {
    if (cfg->project_dir)
      printf("Project: %s (the nearest folder with configs/, from %s upwards)\n",
             cfg->project_dir, cli.num_suites ? cli.suites[0] : "the working directory");
    else
      printf("Project: none (no folder with configs/ from %s upwards): built-in defaults\n",
             cli.num_suites ? cli.suites[0] : "the working directory");
    printf("Files read, each overriding the ones before:%s\n", cfg->file_count ? "" : " none");
    for (size_t i = 0; i < cfg->file_count; i++) printf("  %s\n", cfg->files[i]);
    printf("\nSettings:\n  %-16s %-28s %-13s %s\n", "KEY", "VALUE", "FROM", "WHERE");
    char text[4096];
    for (size_t k = 0; tqh_config_keys[k]; k++) {
      tqh_layer_t layer;
      const char *source;
      tqh_config_get(cfg, tqh_config_keys[k], text, sizeof(text), &layer, &source);
      setting_row(tqh_config_keys[k], text, layer, source);
    }
    printf("\nBoards:%s\n", cfg->board_count ? "" : " none");
    for (size_t i = 0; i < cfg->board_count; i++) {
      const tqh_board_t *b = &cfg->boards[i];
      printf("  %-16s %s%s%s:%u  %s:%u\n", b->name, b->user ? b->user : "", b->user ? "@" : "",
             b->host, b->port, b->loc.file, b->loc.line);
    }
    for (size_t i = 0; i < num_suites; i++) suite_rows(suites[i]);
  }
  for (size_t i = 0; i < num_suites; i++) tqh_suite_destroy(suites[i]);
  tq_free(suites);
  tqh_config_destroy(cfg);
  return rc;
}

/* ---- init ----------------------------------------------------------------------------------- */

static const char k_config[] =
    "# torq-test's configuration for this project (written by `torq-test init`).\n"
    "# Every *.yaml here is read in name order, a later file overriding an earlier one; then\n"
    "# $TORQ_CONFIG and --config=FILE; the suites override these, and TORQ_* variables and the\n"
    "# command line override everything. `torq-test config` shows what is in effect and why.\n"
    "# Relative paths are relative to the project (the folder that holds configs/).\n"
    "\n"
    "results_dir: results          # where runs are written (TORQ_RESULTS_DIR, --results-dir)\n"
    "cache_dir: build/cache        # the compile cache (TORQ_CACHE_DIR)\n"
    "jobs: 1                       # tests at once; `auto` is one per processor (-j)\n"
    "\n"
    "# What every test inherits unless its suite says otherwise.\n"
    "targets: [sim]                # sim, or board names from `boards:` below\n"
    "repeat: 3                     # timed runs per test (--repeat)\n"
    "warmup: 1                     # untimed runs before them (--warmup)\n"
    "timeout: {compile: 300, run: 60}   # seconds\n"
    "reference: {compare: true, atol: 1.0e-5, rtol: 1.0e-3}   # outputs against the reference\n"
    "seed: 0                       # seed of random inputs that give none\n"
    "baseline: {floor: 5}          # percent: the smallest regression --baseline reports\n"
    "\n"
    "# Boards (SSH hosts) that `targets:` may name. Never secrets here: keys are files or an\n"
    "# ssh-agent.\n"
    "#   - name: astra1\n"
    "#     host: 192.168.1.40\n"
    "#     user: root\n"
    "#     key_file: ~/.ssh/id_ed25519\n"
    "boards: []\n";

static const char k_suite[] =
    "# A starter suite (written by `torq-test init`); the schema is in the README, \"Suites\".\n"
    "# Run it:      torq-test suites/example.yaml\n"
    "# List it:     torq-test suites/example.yaml --list\n"
    "# Paths are relative to this file's folder.\n"
    "suite: example                 # the suite's name: test ids are example/<test>\n"
    "description: A first suite to copy from.\n"
    "\n"
    "defaults:                      # what every test below inherits\n"
    "  repeat: 5                    # timed runs (statistics: median, MAD, confidence interval)\n"
    "  warmup: 1\n"
    "  tags: [example]              # for -m 'example and not slow'\n"
    "  compile_options: [--torq-enable-profiling]\n"
    "\n"
    "tests:\n"
    "  - name: add                  # the id is example/add\n"
    "    model: models/example_add.mlir\n"
    "    inputs: {random: 1}        # seeded random values of the signature's shapes\n"
    "    tags: [elementwise]\n"
    "    expect:                    # regression gates: the test fails outside them\n"
    "      wall_time_s: {max: 10}   # median wall time of one invocation, seconds\n"
    "\n"
    "  # One test per file of a glob, named from each file's stem:\n"
    "  # - name: \"more/{stem}\"\n"
    "  #   model: models/more/*.mlir\n"
    "  #\n"
    "  # A known failure, with its reason (XFAIL; with strict: true an unexpected pass fails):\n"
    "  # - name: flaky\n"
    "  #   model: models/flaky.mlir\n"
    "  #   xfail: \"rounds differently on the host\"\n";

static const char k_model[] =
    "// A tiny TOSA model for the starter suite: two int32 tensors added on the NPU.\n"
    "module {\n"
    "  func.func @main(%arg0: tensor<1x8x8x16xi32>, %arg1: tensor<1x8x8x16xi32>) -> "
    "tensor<1x8x8x16xi32> {\n"
    "    %0 = tosa.add %arg0, %arg1 : (tensor<1x8x8x16xi32>, tensor<1x8x8x16xi32>) -> "
    "tensor<1x8x8x16xi32>\n"
    "    return %0 : tensor<1x8x8x16xi32>\n"
    "  }\n"
    "}\n";

int tt_run_init(const cli_t *cli, int argc, char **argv) {
  (void)argc, (void)argv;
  const char *dir = cli->num_args ? cli->args[0] : ".";
  const struct {
    const char *name, *text;
  } files[] = {{"configs/default.yaml", k_config},
               {"suites/example.yaml", k_suite},
               {"suites/models/example_add.mlir", k_model}};
  size_t n = sizeof(files) / sizeof(files[0]);
  char path[3][4096];
  int exists = 0;
  for (size_t i = 0; i < n; i++) {
    snprintf(path[i], sizeof(path[i]), "%s/%s", dir, files[i].name);
    if (access(path[i], F_OK) == 0 && !cli->force) {
      fprintf(stderr, TOOL ": init: %s exists; it is kept (--force overwrites it)\n", path[i]);
      exists = 1;
    }
  }
  if (exists) return EXIT_USAGE;
  for (size_t i = 0; i < n; i++) {
    char folder[sizeof(path[i])];
    memcpy(folder, path[i], sizeof(folder));
    *strrchr(folder, '/') = 0;
    tq_status_t st = tq_file_mkdirs(folder);
    if (!st) st = tq_file_write_atomic(path[i], files[i].text, strlen(files[i].text));
    if (st) return tt_fail(tq_status_annotate(st, "init"), EXIT_INFRA);
    printf("wrote %s\n", path[i]);
  }
  printf("Next: " TOOL " %s%ssuites/example.yaml    (and " TOOL " config %s%ssuites/example.yaml)\n",
         strcmp(dir, ".") ? dir : "", strcmp(dir, ".") ? "/" : "", strcmp(dir, ".") ? dir : "",
         strcmp(dir, ".") ? "/" : "");
  return 0;
}
