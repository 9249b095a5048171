/* torq-run-module end to end: the real binary (this build's, tq_test_own_tool) in a child process,
 * on hand-made module files; and DESIGN's seed flow with the real torq-compile on the corpus's
 * add.mlir (a missing corpus is a failure under CI and a counted skip otherwise; a torq-compile
 * that fails is a failure). */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"
#include "torq/base/version.h"
#include "suites.h"
#include "torq/base/alloc.h"
#include "tq_test.h"

typedef struct tool_run_s {
  int status;
  char *out, *err; /* tq_free */
} tool_run_t;

/* This build's tool `name` in `out` (PATH_MAX bytes); a failure when it is missing. */
static void tool_path(const char *name, char *out) {
  snprintf(out, PATH_MAX, "%s", tq_test_own_tool(name));
}

/* Runs argv (argv[0] a path) with stdout and stderr into files of `dir`. */
static void run_tool(const char *dir, char *const argv[], tool_run_t *r) {
  char out_path[PATH_MAX + 16], err_path[PATH_MAX + 16];
  snprintf(out_path, sizeof(out_path), "%s/stdout.txt", dir);
  snprintf(err_path, sizeof(err_path), "%s/stderr.txt", dir);
  fflush(NULL);
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    int o = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int e = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0) _exit(127);
    execv(argv[0], argv);
    _exit(127);
  }
  int status;
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  ck_assert_msg(WIFEXITED(status), "%s did not exit normally", argv[0]);
  r->status = WEXITSTATUS(status);
  r->out = slurp(out_path, NULL);
  r->err = slurp(err_path, NULL);
  ck_assert_ptr_nonnull(r->out);
  ck_assert_ptr_nonnull(r->err);
}

static void tool_run_free(tool_run_t *r) {
  tq_free(r->out);
  tq_free(r->err);
}

static void write_module(tb_t *tb, const char *path) {
  tq_buf_t b;
  tb_pack(tb, &b);
  write_file(path, b.data, b.len);
  tq_buf_deinit(&b);
}

/* A digit string follows "device_wall_time_us=" and ends the line. */
static void ck_wall_time_line(const char *err) {
  const char *p = strstr(err, "torq-run-module: device_wall_time_us=");
  ck_assert_msg(p != NULL, "no wall time line in: %s", err);
  p += strlen("torq-run-module: device_wall_time_us=");
  ck_assert(*p >= '0' && *p <= '9');
  while (*p >= '0' && *p <= '9') p++;
  ck_assert_int_eq(*p, '\n');
}

START_TEST(tool_runs_a_module_and_prints_results) {
  char tool[PATH_MAX], dir[PATH_MAX], mod[PATH_MAX + 32], arg[PATH_MAX + 64];
  tool_path("torq-run-module", tool);
  tmpdir_make(dir);
  snprintf(mod, sizeof(mod), "%s/m.vmfb", dir);
  snprintf(arg, sizeof(arg), "--module=%s", mod);
  tb_t tb;
  const int32_t c[4] = {1, 2, 3, 4};
  tb_host_module(&tb, "tosa.add", c);
  write_module(&tb, mod);
  char *argv[] = {tool, arg, "--input=4xi32=10,20,30,40", "--function=@main", NULL};
  tool_run_t r;
  run_tool(dir, argv, &r);
  ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
  ck_assert_str_eq(r.out, "EXEC @main\nresult[0]: hal.buffer_view\n4xi32=11 22 33 44\n");
  ck_wall_time_line(r.err);
  tool_run_free(&r);
  tb_deinit(&tb);
  tmpdir_remove(dir);
}
END_TEST

START_TEST(tool_writes_the_profile_and_output_files) {
  char tool[PATH_MAX], dir[PATH_MAX], mod[PATH_MAX + 32], a_mod[PATH_MAX + 64];
  char a_prof[PATH_MAX + 64], a_out[PATH_MAX + 64], a_in[PATH_MAX + 64], prof[PATH_MAX + 32];
  char npy_in[PATH_MAX + 32], npy_out[PATH_MAX + 32];
  tool_path("torq-run-module", tool);
  tmpdir_make(dir);
  snprintf(mod, sizeof(mod), "%s/m.vmfb", dir);
  snprintf(prof, sizeof(prof), "%s/profile.csv", dir);
  snprintf(npy_in, sizeof(npy_in), "%s/in.npy", dir);
  snprintf(npy_out, sizeof(npy_out), "%s/out.npy", dir);
  snprintf(a_mod, sizeof(a_mod), "--module=%s", mod);
  snprintf(a_prof, sizeof(a_prof), "--torq_profile_host=%s", prof);
  snprintf(a_out, sizeof(a_out), "--output=@%s", npy_out);
  snprintf(a_in, sizeof(a_in), "--input=@%s", npy_in);
  tb_t tb;
  const int32_t c[4] = {1, 2, 3, 4};
  tb_host_module(&tb, "tosa.add", c);
  write_module(&tb, mod);
  tqr_tensor_t *in, *out;
  TQ_CK(tqr_input_parse("4xi32=5,6,7,8", NULL, &in));
  TQ_CK(tqr_npy_write(npy_in, in));
  char *argv[] = {tool, a_mod, a_in, a_out, a_prof, "--repeat=3", NULL};
  tool_run_t r;
  run_tool(dir, argv, &r);
  ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
  ck_assert_str_eq(r.out, "EXEC @main\n");
  TQ_CK(tqr_npy_read(npy_out, 0, &out));
  const int32_t want[4] = {6, 8, 10, 12};
  ck_assert_mem_eq(out->data, want, 16);
  char *csv = slurp(prof, NULL);
  ck_assert_ptr_nonnull(csv);
  /* INIT is invocation 0; the third run is 3 (each run: 5 us of actions). */
  ck_assert_ptr_nonnull(strstr(csv, "main_dispatch_0,0,-1,10,INIT_END\n"
                                    "main_dispatch_0,1,-1,10,DISPATCH_BEGIN\n"));
  ck_assert_str_eq(strstr(csv, "main_dispatch_0,3,-1,"),
                   "main_dispatch_0,3,-1,20,DISPATCH_BEGIN\n"
                   "main_dispatch_0,3,-1,20,DISPATCH_SYNC_BINDINGS_IN_BEGIN\n"
                   "main_dispatch_0,3,-1,20,DISPATCH_SYNC_BINDINGS_IN_END\n"
                   "main_dispatch_0,3,-1,20,DISPATCH_EXECUTE_ACTIONS_BEGIN\n"
                   "main_dispatch_0,3,0,20,ALLOC_BEGIN\n"
                   "main_dispatch_0,3,0,21,ALLOC_END\n"
                   "main_dispatch_0,3,1,21,ALLOC_BEGIN\n"
                   "main_dispatch_0,3,1,22,ALLOC_END\n"
                   "main_dispatch_0,3,2,22,HOST_START_BEGIN\n"
                   "main_dispatch_0,3,2,23,HOST_START_END\n"
                   "main_dispatch_0,3,3,23,HOST_WAIT_BEGIN\n"
                   "main_dispatch_0,3,3,24,HOST_WAIT_END\n"
                   "main_dispatch_0,3,4,24,DEALLOC_BEGIN\n"
                   "main_dispatch_0,3,4,25,DEALLOC_END\n"
                   "main_dispatch_0,3,-1,25,DISPATCH_EXECUTE_ACTIONS_END\n"
                   "main_dispatch_0,3,-1,25,DISPATCH_SYNC_BINDINGS_OUT_BEGIN\n"
                   "main_dispatch_0,3,-1,25,DISPATCH_SYNC_BINDINGS_OUT_END\n"
                   "main_dispatch_0,3,-1,25,DISPATCH_END\n");
  tq_free(csv);
  tqr_tensor_destroy(in);
  tqr_tensor_destroy(out);
  tool_run_free(&r);
  tb_deinit(&tb);
  tmpdir_remove(dir);
}
END_TEST

START_TEST(tool_reads_and_writes_raw_bin_files) {
  char tool[PATH_MAX], dir[PATH_MAX], mod[PATH_MAX + 32], bin_in[PATH_MAX + 32],
      bin_out[PATH_MAX + 32];
  char a_mod[PATH_MAX + 64], a_in[PATH_MAX + 64], a_out[PATH_MAX + 64];
  tool_path("torq-run-module", tool);
  tmpdir_make(dir);
  snprintf(mod, sizeof(mod), "%s/m.vmfb", dir);
  snprintf(bin_in, sizeof(bin_in), "%s/in.bin", dir);
  snprintf(bin_out, sizeof(bin_out), "%s/out.bin", dir);
  snprintf(a_mod, sizeof(a_mod), "--module=%s", mod);
  snprintf(a_in, sizeof(a_in), "--input=4xi32=@%s", bin_in);
  snprintf(a_out, sizeof(a_out), "--output=@%s", bin_out);
  tb_t tb;
  const int32_t c[4] = {100, 200, 300, 400};
  tb_host_module(&tb, "tosa.add", c);
  write_module(&tb, mod);
  const int32_t in[4] = {1, -2, 3, -4}, want[4] = {101, 198, 303, 396};
  write_file(bin_in, in, sizeof(in));
  char *argv[] = {tool, a_mod, a_in, a_out, NULL};
  tool_run_t r;
  run_tool(dir, argv, &r);
  ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
  size_t len;
  char *got = slurp(bin_out, &len);
  ck_assert_uint_eq(len, 16);
  ck_assert_mem_eq(got, want, 16);
  tq_free(got);
  tool_run_free(&r);
  tb_deinit(&tb);
  tmpdir_remove(dir);
}
END_TEST

typedef struct exit_case_s {
  const char *args[4]; /* "$M" is the module path, "$G" a garbage file, "$D" the dividing module */
  int status;
  const char *stream; /* "out" or "err" */
  const char *needle;
} exit_case_t;

static const exit_case_t exit_cases[] = {
    {{"--help"}, 0, "out", "usage: torq-run-module --module=FILE"},
    {{"--version"}, 0, "out", "torq-run-module " TQ_VERSION " (module format 1)"},
    {{"--input=4xi32=1"}, 2, "err", "missing --module=FILE"},
    {{"$M", "--frobnicate"}, 2, "err", "unknown option '--frobnicate'"},
    {{"$M", "extra"}, 2, "err", "unexpected argument 'extra'"},
    {{"$M", "--input=4xq32=1"}, 2, "err", "unknown element type \"q32\""},
    {{"$M", "--input=4xi32=1,2"}, 2, "err", "2 values for 4 elements"},
    {{"$M", "--input=4xi32=1", "--function=predict"},
     2,
     "err",
     "has no function 'predict'; its function is 'main'"},
    {{"$M", "--input=4xi32=1", "--output=o.npy"}, 2, "err", "--output=o.npy: expected @FILE.npy"},
    {{"$M", "--input=4xi32=1", "--output=-", "--output=-"},
     2,
     "err",
     "2 --output given, but function main has 1 result"},
    {{"$M", "--repeat=0"}, 2, "err", "--repeat needs an integer from 1"},
    {{"--module=/nonexistent/m.vmfb"}, 1, "err", "/nonexistent/m.vmfb"},
    {{"$G", "--input=4xi32=1"}, 1, "err", "not a Torq module or truncated"},
    {{"$M", "--input=1x4xi32=1"},
     1,
     "err",
     "input 0 of function main: expected 4xi32, given 1x4xi32"},
    {{"$M"}, 1, "err", "function main takes 1 inputs, 0 given"},
    {{"$M", "--input=@/nonexistent/in.npy"}, 1, "err", "/nonexistent/in.npy"},
    {{"$D", "--input=4xi32=1"},
     1,
     "err",
     "in action 2 (HOST_START) of main_dispatch_0, invocation 1"},
    {{"$M", "--input=4xi32=1", "--output="}, 0, "out", "EXEC @main\n"},
};

START_TEST(tool_exit_codes_and_messages) {
  const exit_case_t *c = &exit_cases[_i];
  char tool[PATH_MAX], dir[PATH_MAX], mod[PATH_MAX + 32], garbage[PATH_MAX + 32];
  char divmod[PATH_MAX + 32], a_mod[PATH_MAX + 64], a_garbage[PATH_MAX + 64], a_div[PATH_MAX + 64];
  tool_path("torq-run-module", tool);
  tmpdir_make(dir);
  snprintf(mod, sizeof(mod), "%s/m.vmfb", dir);
  snprintf(garbage, sizeof(garbage), "%s/g.vmfb", dir);
  snprintf(divmod, sizeof(divmod), "%s/d.vmfb", dir);
  snprintf(a_mod, sizeof(a_mod), "--module=%s", mod);
  snprintf(a_garbage, sizeof(a_garbage), "--module=%s", garbage);
  snprintf(a_div, sizeof(a_div), "--module=%s", divmod);
  tb_t tb;
  const int32_t one[4] = {1, 1, 1, 1}, zero[4] = {0, 0, 0, 0};
  tb_host_module(&tb, "tosa.add", one);
  write_module(&tb, mod);
  tb_deinit(&tb);
  tb_host_module(&tb, "tosa.intdiv", zero);
  write_module(&tb, divmod);
  tb_deinit(&tb);
  write_file(garbage, "garbage!", 8);
  char *argv[8] = {tool};
  int n = 1;
  for (int i = 0; i < 4 && c->args[i]; i++) {
    const char *a = c->args[i];
    argv[n++] = !strcmp(a, "$M")   ? a_mod
                : !strcmp(a, "$G") ? a_garbage
                : !strcmp(a, "$D") ? a_div
                                   : (char *)a;
  }
  argv[n] = NULL;
  tool_run_t r;
  run_tool(dir, argv, &r);
  ck_assert_msg(r.status == c->status, "exit %d, expected %d: %s", r.status, c->status, r.err);
  const char *text = !strcmp(c->stream, "out") ? r.out : r.err;
  ck_assert_msg(strstr(text, c->needle) != NULL, "\"%s\" not in: %s", c->needle, text);
  tool_run_free(&r);
  tmpdir_remove(dir);
}
END_TEST

START_TEST(tool_profile_is_valid_when_the_run_fails) {
  char tool[PATH_MAX], dir[PATH_MAX], mod[PATH_MAX + 32], prof[PATH_MAX + 32];
  char a_mod[PATH_MAX + 64], a_prof[PATH_MAX + 64];
  tool_path("torq-run-module", tool);
  tmpdir_make(dir);
  snprintf(mod, sizeof(mod), "%s/d.vmfb", dir);
  snprintf(prof, sizeof(prof), "%s/p.csv", dir);
  snprintf(a_mod, sizeof(a_mod), "--module=%s", mod);
  snprintf(a_prof, sizeof(a_prof), "--torq_profile_host=%s", prof);
  tb_t tb;
  const int32_t zero[4] = {0, 0, 0, 0};
  tb_host_module(&tb, "tosa.intdiv", zero);
  write_module(&tb, mod);
  char *argv[] = {tool, a_mod, "--input=4xi32=1", a_prof, NULL};
  tool_run_t r;
  run_tool(dir, argv, &r);
  ck_assert_int_eq(r.status, 1);
  ck_wall_time_line(r.err);
  char *csv = slurp(prof, NULL);
  ck_assert_str_eq(csv, TQR_PROFILE_CSV_HEADER
                   "main_dispatch_0,0,-1,0,INIT_BEGIN\n"
                   "main_dispatch_0,0,-1,0,INIT_COMPUTE_XRAM_FOOTPRINT_BEGIN\n"
                   "main_dispatch_0,0,-1,0,INIT_COMPUTE_XRAM_FOOTPRINT_END\n"
                   "main_dispatch_0,0,-1,0,INIT_CLEAR_MEMORY_BEGIN\n"
                   "main_dispatch_0,0,-1,0,INIT_CLEAR_MEMORY_END\n"
                   "main_dispatch_0,0,-1,0,INIT_HW_OPEN_BEGIN\n"
                   "main_dispatch_0,0,-1,10,INIT_HW_OPEN_END\n"
                   "main_dispatch_0,0,-1,10,INIT_LOAD_HOST_CODE_BEGIN\n"
                   "main_dispatch_0,0,-1,10,INIT_LOAD_HOST_CODE_END\n"
                   "main_dispatch_0,0,-1,10,INIT_END\n"
                   "main_dispatch_0,1,-1,10,DISPATCH_BEGIN\n"
                   "main_dispatch_0,1,-1,10,DISPATCH_SYNC_BINDINGS_IN_BEGIN\n"
                   "main_dispatch_0,1,-1,10,DISPATCH_SYNC_BINDINGS_IN_END\n"
                   "main_dispatch_0,1,-1,10,DISPATCH_EXECUTE_ACTIONS_BEGIN\n"
                   "main_dispatch_0,1,0,10,ALLOC_BEGIN\n"
                   "main_dispatch_0,1,0,11,ALLOC_END\n"
                   "main_dispatch_0,1,1,11,ALLOC_BEGIN\n"
                   "main_dispatch_0,1,1,12,ALLOC_END\n"
                   "main_dispatch_0,1,2,12,HOST_START_BEGIN\n"
                   "main_dispatch_0,1,2,12,ERROR\n");
  tq_free(csv);
  tool_run_free(&r);
  tb_deinit(&tb);
  tmpdir_remove(dir);
}
END_TEST

/* DESIGN's seed commands: torq-compile writes the module, trace and debug info; torq-run-module
 * runs it with the profile. */
START_TEST(tool_seed_flow_compile_then_run) {
  char compile[PATH_MAX], run[PATH_MAX], dir[PATH_MAX];
  tool_path("torq-compile", compile);
  tool_path("torq-run-module", run);
  const char *corpus = tq_test_corpus();
  if (!corpus) return;
  char model[PATH_MAX + 32];
  snprintf(model, sizeof(model), "%s/add.mlir", corpus);
  ck_assert_msg(access(model, R_OK) == 0, "the corpus has no %s", model);
  tmpdir_make(dir);
  char vmfb[PATH_MAX + 32], trace[PATH_MAX + 64], dbg[PATH_MAX + 64], prof[PATH_MAX + 64],
      dispatch[PATH_MAX + 64];
  snprintf(vmfb, sizeof(vmfb), "%s/model.vmfb", dir);
  snprintf(trace, sizeof(trace), "--torq-dump-profiling=%s/trace.csv", dir);
  snprintf(dbg, sizeof(dbg), "--torq-debug-info=%s/debug", dir);
  snprintf(prof, sizeof(prof), "--torq_profile_host=%s/model_profile.csv", dir);
  char *cargv[] = {compile, model, "-o", vmfb, "--torq-enable-profiling", trace, dbg, NULL};
  tool_run_t r;
  run_tool(dir, cargv, &r);
  ck_assert_msg(r.status == 0, "torq-compile failed on the seed command (exit %d): %s", r.status,
                r.err);
  tool_run_free(&r);
  char a_mod[PATH_MAX + 64];
  snprintf(a_mod, sizeof(a_mod), "--module=%s", vmfb);
  char *rargv[] = {run, a_mod, "--input=1x56x56x24xi8=1", prof, "--print_max_element_count=4",
                   NULL};
  run_tool(dir, rargv, &r);
  ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
  ck_assert_ptr_nonnull(strstr(r.out, "result[0]: hal.buffer_view\n1x56x56x24xi8=[[["));
  ck_wall_time_line(r.err);
  tool_run_free(&r);
  char csv_path[PATH_MAX + 32];
  snprintf(csv_path, sizeof(csv_path), "%s/model_profile.csv", dir);
  char *csv = slurp(csv_path, NULL);
  ck_assert_ptr_nonnull(csv);
  ck_assert_int_eq(strncmp(csv, TQR_PROFILE_CSV_HEADER, strlen(TQR_PROFILE_CSV_HEADER)), 0);
  ck_assert_ptr_nonnull(strstr(csv, "main_dispatch_0,0,-1,"));
  ck_assert_ptr_nonnull(strstr(csv, ",DISPATCH_END\n"));
  tq_free(csv);
  /* The compiler's debug info names the dispatch as the profile does. */
  snprintf(dispatch, sizeof(dispatch), "%s/debug/main_dispatch_0.torq.mlir", dir);
  ck_assert_msg(access(dispatch, R_OK) == 0, "%s is missing", dispatch);
  char cmd[PATH_MAX + 16];
  snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
  ck_assert_int_eq(system(cmd), 0);
}
END_TEST

Suite *tool_suite(void) {
  Suite *s = suite_create("tool");
  TCase *tc = tcase_create("torq-run-module");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, tool_runs_a_module_and_prints_results);
  tcase_add_test(tc, tool_writes_the_profile_and_output_files);
  tcase_add_test(tc, tool_reads_and_writes_raw_bin_files);
  tcase_add_loop_test(tc, tool_exit_codes_and_messages, 0,
                      sizeof(exit_cases) / sizeof(exit_cases[0]));
  tcase_add_test(tc, tool_profile_is_valid_when_the_run_fails);
  tcase_add_test(tc, tool_seed_flow_compile_then_run);
  suite_add_tcase(s, tc);
  return s;
}
