/* The external toolchain's parts, each alone: the `toolchain:` setting and golden files in
 * suites, configs, the environment and the command line (with located errors); local programs
 * as subprocesses (exit, signal, timeout of the whole process group, a program that cannot
 * start); a program's identity; the overview from a profile CSV alone. */
#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "suite_testutil.h"
#include "suites.h"
#include "torq/harness/overview.h"
#include "torq/harness/profile_csv.h"
#include "torq/harness/subprocess.h"
#include "torq/harness/toolchain.h"

static char *dir;

static void setup(void) {
  dir = st_tmpdir();
  st_write(dir, "models/a.mlir", "// a\n");
  st_write(dir, "golden/out0.npy", "npy\n");
  st_write(dir, "bin/torq-compile", "#!/bin/sh\necho 'torq-compile 9.9'\n");
  chmod(st_path(dir, "bin/torq-compile"), 0755);
}

static void teardown(void) {
  st_rmtree(dir);
  dir = NULL;
}

static tq_status_t load(const char *yaml, tqh_diags_t *errors, tqh_suite_t **out) {
  tqh_suite_options_t o;
  tqh_suite_options_initialize(&o);
  o.errors = errors;
  return tqh_suite_load_buffer(st_path(dir, "s.yaml"), yaml, strlen(yaml), &o, out);
}

/* ---- The setting ---------------------------------------------------------------------------- */

START_TEST(toolchain_paths_and_argv_lists_resolve_against_the_suite_folder) {
  static const char yaml[] =
      "defaults:\n"
      "  toolchain: {compile: bin/torq-compile, run: /opt/torq/bin/torq-run-module,\n"
      "              annotate: [python3, /opt/torq/annotate_profiling.py]}\n"
      "  reference: {golden: [golden/out0.npy]}\n"
      "tests:\n"
      "  - name: ext\n    model: models/a.mlir\n"
      "  - name: own\n    model: models/a.mlir\n    toolchain: builtin\n";
  tqh_diags_t errors;
  tqh_diags_init(&errors);
  tqh_suite_t *s = NULL;
  tq_status_t st = load(yaml, &errors, &s);
  ck_assert_msg(!st, "%s", st ? tq_status_message(st) : "");
  const tqh_settings_t *ext = &s->tests[0].settings, *own = &s->tests[1].settings;
  ck_assert(tqh_toolchain_is_external(ext));
  ck_assert(!tqh_toolchain_is_external(own));
  ck_assert_uint_eq(ext->tools[TQH_TOOL_COMPILE].argc, 1);
  ck_assert_str_eq(ext->tools[TQH_TOOL_COMPILE].argv[0], st_path(dir, "bin/torq-compile"));
  ck_assert_str_eq(ext->tools[TQH_TOOL_RUN].argv[0], "/opt/torq/bin/torq-run-module");
  ck_assert_uint_eq(ext->tools[TQH_TOOL_ANNOTATE].argc, 2);
  ck_assert_str_eq(ext->tools[TQH_TOOL_ANNOTATE].argv[0], "python3"); /* from $PATH */
  ck_assert_uint_eq(own->tools[TQH_TOOL_ANNOTATE].argc, 0);
  ck_assert_uint_eq(ext->golden_count, 1);
  ck_assert_str_eq(ext->golden[0], st_path(dir, "golden/out0.npy"));
  tqh_suite_destroy(s);
  tqh_diags_deinit(&errors);
}
END_TEST

START_TEST(toolchain_mistakes_are_located) {
  static const struct {
    const char *yaml;
    uint32_t line, col;
    const char *needle;
  } cases[] = {
      {"defaults:\n  toolchain: {compile: a}\ntests:\n  - model: models/a.mlir\n", 2, 14,
       "needs both compile (torq-compile) and run"},
      {"defaults:\n  toolchain: 5\ntests:\n  - model: models/a.mlir\n", 2, 14,
       "expected builtin or {compile"},
      {"defaults:\n  toolchain: {compile: a, run: b, anotate: c}\ntests:\n  - model: "
       "models/a.mlir\n",
       2, 35, "anotate"},
      {"defaults:\n  toolchain: {compile: [], run: b}\ntests:\n  - model: models/a.mlir\n", 2, 24,
       "an empty list"},
      {"tests:\n  - model: models/a.mlir\n    reference: {golden: [golden/none.npy]}\n", 3, 26,
       "no file"},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    tqh_diags_t errors;
    tqh_diags_init(&errors);
    tqh_suite_t *s = NULL;
    tq_status_t st = load(cases[i].yaml, &errors, &s);
    ck_assert_msg(st != NULL, "case %zu loaded", i);
    char *text = st_errors_text(&errors);
    ck_assert_msg(st_find_error(&errors, cases[i].line, cases[i].col, cases[i].needle),
                  "case %zu: want %u:%u %s\n%s", i, cases[i].line, cases[i].col, cases[i].needle,
                  text);
    free(text);
    tq_status_free(st);
    tqh_diags_deinit(&errors);
  }
}
END_TEST

START_TEST(toolchain_layers_from_configs_environment_and_command_line) {
  tqh_config_t *cfg = NULL;
  ck_assert(!tqh_config_create(&cfg));
  st_write(dir, "configs/a.yaml",
           "toolchain: {compile: bin/torq-compile, run: bin/run, annotate: bin/ann}\n");
  ck_assert(!tqh_config_load_file(cfg, st_path(dir, "configs/a.yaml"), NULL));
  ck_assert_uint_eq(cfg->defaults.tools[TQH_TOOL_ANNOTATE].argc, 1);
  ck_assert_str_eq(cfg->defaults.tools[TQH_TOOL_RUN].argv[0], st_path(dir, "configs/bin/run"));
  static const char *const env[] = {"TORQ_TOOLCHAIN_RUN=/env/run", NULL};
  ck_assert(!tqh_config_apply_env(cfg, env, NULL));
  ck_assert_str_eq(cfg->defaults.tools[TQH_TOOL_RUN].argv[0], "/env/run");
  ck_assert(!tqh_config_set(cfg, TQH_LAYER_CLI, "toolchain_compile", "/cli/compile"));
  ck_assert_str_eq(cfg->defaults.tools[TQH_TOOL_COMPILE].argv[0], "/cli/compile");
  /* The annotator stays the config's: each program is a setting of its own. */
  ck_assert_str_eq(cfg->defaults.tools[TQH_TOOL_ANNOTATE].argv[0], st_path(dir, "configs/bin/ann"));
  tq_status_t st = tqh_config_set(cfg, TQH_LAYER_CLI, "toolchain", "gcc");
  ck_assert_msg(st && strstr(tq_status_message(st), "expected builtin"), "%s",
                st ? tq_status_message(st) : "");
  tq_status_free(st);
  ck_assert(!tqh_config_set(cfg, TQH_LAYER_CLI, "toolchain", "builtin"));
  ck_assert(!tqh_toolchain_is_external(&cfg->defaults));
  tq_buf_t text;
  tq_buf_init(&text, 0);
  ck_assert(!tqh_config_describe(cfg, &text));
  ck_assert_msg(strstr(text.data, "toolchain_compile = builtin  (command line)"), "%s", text.data);
  tq_buf_deinit(&text);
  tqh_config_destroy(cfg);
}
END_TEST

/* ---- Subprocesses ---------------------------------------------------------------------------- */

START_TEST(subprocess_exit_status_output_and_signal) {
  tqh_subprocess_result_t r;
  tqh_subprocess_result_init(&r);
  const char *a1[] = {"/bin/sh", "-c", "echo out; echo err >&2; exit 3", NULL};
  ck_assert(!tqh_subprocess_run(a1, NULL, &r));
  ck_assert_int_eq(r.exit_status, 3);
  ck_assert_int_eq(r.signal, 0);
  ck_assert_str_eq(r.out.data, "out\n");
  ck_assert_str_eq(r.err.data, "err\n");
  const char *a2[] = {"/bin/sh", "-c", "kill -SEGV $$", NULL};
  ck_assert(!tqh_subprocess_run(a2, NULL, &r));
  ck_assert_int_eq(r.signal, SIGSEGV);
  ck_assert_int_eq(r.out.len, 0);
  const char *a3[] = {"/no/such/program", NULL};
  ck_assert(!tqh_subprocess_run(a3, NULL, &r));
  ck_assert_int_eq(r.start_errno, ENOENT);
  /* Arguments reach the program as they are: no shell in between. */
  const char *a4[] = {"/bin/echo", "it's \"odd\" $HOME;", NULL};
  ck_assert(!tqh_subprocess_run(a4, NULL, &r));
  ck_assert_str_eq(r.out.data, "it's \"odd\" $HOME;\n");
  tqh_subprocess_result_deinit(&r);
}
END_TEST

START_TEST(subprocess_timeout_kills_the_whole_process_group) {
  char pidfile[4096];
  snprintf(pidfile, sizeof(pidfile), "%s/child.pid", dir);
  tqh_subprocess_options_t o;
  tqh_subprocess_options_initialize(&o);
  o.timeout_s = 0.3;
  tqh_subprocess_result_t r;
  tqh_subprocess_result_init(&r);
  const char *argv[] = {"/bin/sh", "-c", "sleep 100 & echo $! > \"$0\"; wait", pidfile, NULL};
  ck_assert(!tqh_subprocess_run(argv, &o, &r));
  ck_assert_int_eq(r.timed_out, 1);
  ck_assert(r.seconds >= 0.3 && r.seconds < 5);
  FILE *f = fopen(pidfile, "r");
  ck_assert_ptr_nonnull(f);
  long pid = 0;
  ck_assert_int_eq(fscanf(f, "%ld", &pid), 1);
  fclose(f);
  /* The grandchild was killed with the group (it may linger as a zombie of init a moment). */
  int alive = 1;
  for (int i = 0; i < 100 && alive; i++) {
    char stat_path[64], state = 'R';
    snprintf(stat_path, sizeof(stat_path), "/proc/%ld/stat", pid);
    FILE *sf = fopen(stat_path, "r");
    alive = sf && fscanf(sf, "%*d %*s %c", &state) == 1 && state != 'Z';
    if (sf) fclose(sf);
    if (alive) usleep(10000);
  }
  ck_assert_msg(!alive, "the background child %ld outlived the timeout", pid);
  tqh_subprocess_result_deinit(&r);
}
END_TEST

START_TEST(tool_identity_has_path_sha256_and_version) {
  tqh_tool_t tool = {(const char *const[]){st_path(dir, "bin/torq-compile"), NULL}, 1};
  tqh_tool_identity_t id;
  ck_assert(!tqh_tool_identify(&tool, &id));
  ck_assert_ptr_null(id.error);
  ck_assert_str_eq(id.version, "torq-compile 9.9");
  ck_assert_uint_eq(strlen(id.sha256), 64);
  char first[65];
  memcpy(first, id.sha256, sizeof(first));
  tqh_tool_identity_deinit(&id);
  /* Other bytes, another identity (the per-process memory notices the change). */
  st_write(dir, "bin/torq-compile", "#!/bin/sh\necho 'torq-compile 10.0'\n");
  ck_assert(!tqh_tool_identify(&tool, &id));
  ck_assert_str_eq(id.version, "torq-compile 10.0");
  ck_assert_str_ne(id.sha256, first);
  tqh_tool_identity_deinit(&id);
  tqh_tool_t missing = {(const char *const[]){"no-such-tool-anywhere", NULL}, 1};
  ck_assert(!tqh_tool_identify(&missing, &id));
  ck_assert_msg(id.error && strstr(id.error, "not found in $PATH"), "%s", id.error);
  tqh_tool_identity_deinit(&id);
}
END_TEST

/* ---- The overview of a profile CSV alone ---------------------------------------------------- */

START_TEST(overview_from_the_csv_alone_counts_work_units_as_a_whole) {
  static const char csv[] = TQH_PROFILE_HEADER
      "\n"
      "main,0,-1,0,INIT_BEGIN\n"
      "main,0,-1,5,INIT_END\n"
      "main,1,0,10,HOST_COPY_BEGIN\n"
      "main,1,0,14,HOST_COPY_END\n"
      "main,1,1,20,NSS_START_BEGIN\n"
      "main,1,1,21,NSS_START_END\n"
      "main,1,2,25,NSS_START_BEGIN\n"
      "main,1,2,26,NSS_START_END\n"
      "main,1,3,29,NSS_WAIT_BEGIN\n"
      "main,1,3,40,NSS_WAIT_END\n"
      "main,1,4,40,NSS_WAIT_BEGIN\n"
      "main,1,4,50,NSS_WAIT_END\n"
      "main,1,5,55,HOST_START_BEGIN\n"
      "main,1,5,56,HOST_START_END\n"
      "main,1,6,56,HOST_WAIT_BEGIN\n"
      "main,1,6,70,HOST_WAIT_END\n";
  tqh_diags_t diags;
  tqh_diags_init(&diags);
  tqh_profile_t p;
  ck_assert(!tqh_profile_parse("p.csv", csv, strlen(csv), &diags, &p));
  ck_assert_uint_eq(diags.count, 0);
  tqh_overview_t ov;
  tqh_overview_init(&ov);
  ck_assert(!tqh_overview_from_profile(&p, &ov));
  uint64_t ns = 0;
  /* Work units from the host copy (10) to the host program's end (70); INIT is a phase. */
  ck_assert(tqh_overview_get(&ov, "OVERALL", &ns));
  ck_assert_uint_eq(ns, 60000);
  /* Its span (60) less the host program and copy that overlap no NSS program (15 + 4). */
  ck_assert(tqh_overview_get(&ov, "TOTAL NPU OPERATIONS", &ns));
  ck_assert_uint_eq(ns, 41000);
  /* Two NSS programs, 20-40 and 25-50, overlapping: 30 µs. */
  ck_assert(tqh_overview_get(&ov, "NSS Programs", &ns));
  ck_assert_uint_eq(ns, 30000);
  ck_assert(tqh_overview_get(&ov, "Host", &ns));
  ck_assert_uint_eq(ns, 15000);
  ck_assert(tqh_overview_get(&ov, "Host Copy", &ns));
  ck_assert_uint_eq(ns, 4000);
  ck_assert(tqh_overview_get(&ov, "Hal", &ns));
  ck_assert_uint_eq(ns, 0);
  tqh_overview_deinit(&ov);
  tqh_profile_deinit(&p);
  tqh_diags_deinit(&diags);
}
END_TEST

Suite *toolchain_suite(void) {
  Suite *s = suite_create("toolchain");
  TCase *tc = tcase_create("toolchain");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, toolchain_paths_and_argv_lists_resolve_against_the_suite_folder);
  tcase_add_test(tc, toolchain_mistakes_are_located);
  tcase_add_test(tc, toolchain_layers_from_configs_environment_and_command_line);
  tcase_add_test(tc, subprocess_exit_status_output_and_signal);
  tcase_add_test(tc, subprocess_timeout_kills_the_whole_process_group);
  tcase_add_test(tc, tool_identity_has_path_sha256_and_version);
  tcase_add_test(tc, overview_from_the_csv_alone_counts_work_units_as_a_whole);
  suite_add_tcase(s, tc);
  return s;
}
