/* One test's execution, phase by phase, in this process (execute.h): no worker, no redirected
 * stdio; what an execution reports is what its result and its callbacks received. */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "suites.h"
#include "tq_test.h"
#include "torq/base/str.h"
#include "torq/harness/execute.h"
#include "torq/harness/suite.h"

static const char k_add_model[] =
    "module {\n"
    "  func.func @main(%arg0: tensor<4xi32>, %arg1: tensor<4xi32>) -> tensor<4xi32> {\n"
    "    %0 = tosa.add %arg0, %arg1 : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>\n"
    "    return %0 : tensor<4xi32>\n"
    "  }\n"
    "}\n";

/* Parses, but the types do not agree: the compiler refuses it with a located error. */
static const char k_broken_model[] =
    "module {\n"
    "  func.func @main(%arg0: tensor<4xi32>, %arg1: tensor<4xi32>) -> tensor<4xi32> {\n"
    "    %0 = tosa.add %arg0, %arg1 : (tensor<4xi32>, tensor<4xi32>) -> tensor<8xi32>\n"
    "    return %0 : tensor<8xi32>\n"
    "  }\n"
    "}\n";

/* What the callbacks received: every log line and phase name, one per line; the output
 * streams. */
typedef struct seen_s {
  tq_buf_t log, phases, out, err;
  size_t hooks;
} seen_t;

static void on_log(void *ctx, const char *line, size_t len) {
  seen_t *s = ctx;
  TH_OK(tq_buf_append(&s->log, line, len));
  TH_OK(tq_buf_putc(&s->log, '\n'));
}

static void on_phase(void *ctx, const char *name, double limit_s) {
  seen_t *s = ctx;
  ck_assert(limit_s > 0);
  TH_OK(tq_buf_printf(&s->phases, "%s\n", name));
}

static void on_output(void *ctx, int stream, const char *data, size_t len) {
  seen_t *s = ctx;
  TH_OK(tq_buf_append(stream == 1 ? &s->out : &s->err, data, len));
}

static void seen_init(seen_t *s, tqh_execute_io_t *io) {
  memset(s, 0, sizeof(*s));
  tq_buf_init(&s->log, 0);
  tq_buf_init(&s->phases, 0);
  tq_buf_init(&s->out, 0);
  tq_buf_init(&s->err, 0);
  memset(io, 0, sizeof(*io));
  io->ctx = s;
  io->log = on_log;
  io->phase = on_phase;
  io->output = on_output;
}

static void seen_deinit(seen_t *s) {
  tq_buf_deinit(&s->log);
  tq_buf_deinit(&s->phases);
  tq_buf_deinit(&s->out);
  tq_buf_deinit(&s->err);
}

static const char *text(const tq_buf_t *b) {
  return b->data ? b->data : "";
}

static size_t count(const char *haystack, const char *needle) {
  size_t n = 0;
  for (const char *p = strstr(haystack, needle); p; p = strstr(p + 1, needle)) n++;
  return n;
}

static int has_file(const tqh_test_result_t *r, const char *name) {
  for (size_t i = 0; i < r->num_files; i++)
    if (!strcmp(r->files[i], name)) return 1;
  return 0;
}

/* A scratch folder with the models, a suite of them, a compile cache and a test folder. */
typedef struct fx_s {
  char *dir, *test_dir;
  tqh_suite_t *suite;
  tqh_compile_cache_t cache;
  tqh_executor_t exec;
} fx_t;

static void fx_init(fx_t *fx, const char *yaml) {
  memset(fx, 0, sizeof(*fx));
  fx->dir = th_tmpdir();
  char *p = th_path(fx->dir, "add.mlir");
  th_write(p, k_add_model);
  free(p);
  p = th_path(fx->dir, "broken.mlir");
  th_write(p, k_broken_model);
  free(p);
  p = th_path(fx->dir, "x.yaml");
  tqh_suite_options_t o;
  tqh_suite_options_initialize(&o);
  TH_OK(tqh_suite_load_buffer(p, yaml, strlen(yaml), &o, &fx->suite));
  free(p);
  p = th_path(fx->dir, "cache");
  TH_OK(tqh_compile_cache_init(&fx->cache, p, 0));
  free(p);
  fx->test_dir = th_path(fx->dir, "t");
  ck_assert_int_eq(mkdir(fx->test_dir, 0777), 0);
  fx->exec.cache = &fx->cache;
  fx->exec.profiling = 1;
}

static void fx_deinit(fx_t *fx) {
  tqh_executor_forget(&fx->exec);
  tqh_compile_cache_deinit(&fx->cache);
  tqh_suite_destroy(fx->suite);
  free(fx->test_dir);
  th_rmtree(fx->dir);
}

START_TEST(phases_run_in_process_and_report_through_callbacks) {
  fx_t fx;
  fx_init(&fx,
          "suite: x\n"
          "tests:\n"
          "  - name: add\n"
          "    model: add.mlir\n"
          "    inputs: ['4xi32=1,2,3,4', '4xi32=10']\n"
          "    repeat: 3\n"
          "    warmup: 1\n");
  const tqh_test_t *t = &fx.suite->tests[0];
  seen_t seen;
  tqh_execute_io_t io;
  seen_init(&seen, &io);
  tqh_test_result_t r;
  tqh_test_result_init(&r);
  tqh_execution_t *e = NULL;
  TH_OK(tqh_execution_create(&fx.exec, t, fx.test_dir, &io, &r, &e));

  ck_assert_int_eq(tqh_execute_compile(e), 1);
  ck_assert_int_eq(r.cache, TQH_CACHE_MISS);
  ck_assert(has_file(&r, "model.vmfb") && has_file(&r, "trace.csv") && has_file(&r, "debug"));
  ck_assert_int_eq(r.has_estimated_cycles, 1);
  ck_assert_ptr_nonnull(strstr(text(&seen.log), "compile: compiled ("));

  ck_assert_int_eq(tqh_execute_run(e), 1);
  ck_assert_uint_eq(r.num_samples, 3);
  ck_assert_int_eq(r.has_wall_time, 1);
  ck_assert_uint_eq(count(text(&seen.log), "Wall time: "), 3);

  ck_assert_int_eq(tqh_execute_check(e), 1);
  ck_assert_ptr_nonnull(strstr(text(&seen.log), "reference: 1 output match"));

  ck_assert_int_eq(tqh_execute_profile(e), 1);
  static const char *const profiled[] = {"profile.csv", "annotated.csv", "profile.xlsx",
                                         "profile.pb"};
  for (size_t i = 0; i < 4; i++) ck_assert_msg(has_file(&r, profiled[i]), "%s", profiled[i]);
  double overall = -1;
  for (size_t m = 0; m < r.num_metrics; m++)
    if (!strcmp(r.metric_names[m], "OVERALL")) overall = r.metric_us[m];
  ck_assert_msg(overall > 0, "OVERALL %g", overall);

  tqh_execute_check_expectations(e);
  ck_assert_int_eq(r.outcome, TQH_OUTCOME_PASSED);
  ck_assert_ptr_null(r.message);
  /* compile, then one "run" per invocation (warm-up, timed, profiled). */
  ck_assert_str_eq(text(&seen.phases), "compile\nrun\nrun\nrun\nrun\nrun\n");
  /* Nothing for the test's output files on the simulator. */
  ck_assert_uint_eq(seen.out.len + seen.err.len, 0);
  tqh_execution_destroy(e);
  tqh_test_result_deinit(&r);

  /* The same test again: the compile phase takes the cache's entry. */
  tqh_test_result_init(&r);
  TH_OK(tqh_execution_create(&fx.exec, t, fx.test_dir, NULL, &r, &e));
  ck_assert_int_eq(tqh_execute_compile(e), 1);
  ck_assert_int_eq(r.cache, TQH_CACHE_HIT);
  tqh_execution_destroy(e);
  tqh_test_result_deinit(&r);
  seen_deinit(&seen);
  fx_deinit(&fx);
}
END_TEST

/* The overview metric named `name`, whatever its case ("DMA Total", "Dma Total"); -1 if none. */
/* Runs the quantized add `model` (rescale -> add -> rescale: one fused NSS program) through
 * every phase and checks what issue 16 asks of it: the program's estimate reconciled with its
 * simulated cycles (a bounded error, not zero), its operators all named, and a simulated run
 * whose DMA overlaps its compute but not all of it (the pipeline overlaps the DMA of tile n + 1
 * with the compute of tile n; its first load and last store cannot). */
static void check_fused_add(const char *model, size_t operators) {
  fx_t fx;
  char yaml[8192];
  snprintf(yaml, sizeof(yaml),
           "suite: x\ntests:\n  - name: add\n    model: '%s'\n    inputs: {random: 3}\n", model);
  fx_init(&fx, yaml);
  tqh_test_result_t r;
  tqh_test_result_init(&r);
  tqh_execution_t *e = NULL;
  TH_OK(tqh_execution_create(&fx.exec, &fx.suite->tests[0], fx.test_dir, NULL, &r, &e));
  ck_assert_int_eq(tqh_execute_compile(e), 1);
  ck_assert_uint_eq(r.num_recon, 1);
  const tqh_recon_t *p = &r.recon[0];
  ck_assert_uint_eq(p->estimated_cycles, r.estimated_cycles);
  ck_assert_int_eq(p->has_simulated, 0);
  ck_assert_uint_eq(r.clock_hz, 800000000u);
  size_t named = 0;
  for (const char *o = p->operators; (o = strstr(o, "tosa.")) != NULL; o++) named++;
  ck_assert_msg(named == operators, "operators: %s", p->operators);
  ck_assert_ptr_nonnull(strstr(p->operators, "tosa.add@L"));
  ck_assert_ptr_nonnull(strstr(p->location, ".mlir\":"));
  ck_assert_int_eq(tqh_execute_run(e), 1);
  ck_assert_int_eq(tqh_execute_check(e), 1);
  ck_assert_int_eq(tqh_execute_profile(e), 1);
  ck_assert_int_eq(p->has_simulated, 1);
  double error;
  ck_assert(tqh_recon_error(p, r.clock_hz, &error));
  ck_assert_msg(error > 0 && error <= 0.25, "estimated %llu, simulated %llu",
                (unsigned long long)p->estimated_cycles, (unsigned long long)p->simulated_cycles);
  ck_assert_msg(
      p->sim_overlap_cycles > 0 && p->sim_overlap_cycles < p->sim_dma_cycles &&
          p->sim_compute_cycles <= p->simulated_cycles && p->sim_dma_cycles <= p->simulated_cycles,
      "simulated %llu cycles: DMA %llu, compute %llu, overlap %llu",
      (unsigned long long)p->simulated_cycles, (unsigned long long)p->sim_dma_cycles,
      (unsigned long long)p->sim_compute_cycles, (unsigned long long)p->sim_overlap_cycles);
  ck_assert_int_eq(r.outcome, TQH_OUTCOME_PASSED);
  tqh_execution_destroy(e);
  tqh_test_result_deinit(&r);
  fx_deinit(&fx);
}

START_TEST(smoke_add_is_reconciled) {
  char *model = th_path(tq_test_top(), "suites/models/add_rescaled_28x28x32_i8.mlir");
  check_fused_add(model, 4);
  free(model);
}
END_TEST

START_TEST(corpus_add_is_reconciled) {
  const char *corpus = tq_test_corpus();
  if (!corpus) return;
  char *model = th_path(corpus, "add.mlir");
  check_fused_add(model, 5);
  free(model);
}
END_TEST

/* The operators of test `i` after its compile phase with the fixture's executor (heap). */
static char *compiled_operators(fx_t *fx, size_t i) {
  tqh_test_result_t r;
  tqh_test_result_init(&r);
  tqh_execution_t *e = NULL;
  TH_OK(tqh_execution_create(&fx->exec, &fx->suite->tests[i], fx->test_dir, NULL, &r, &e));
  ck_assert_int_eq(tqh_execute_compile(e), 1);
  ck_assert_uint_ge(r.num_recon, 1);
  char *ops = strdup(r.recon[0].operators);
  tqh_execution_destroy(e);
  tqh_test_result_deinit(&r);
  return ops;
}

/* The executor keeps the operators of the model it compiled last: the next test of the same
 * model gets the same ones, a test of another model its own, and the first model again its
 * first ones, whatever the executor kept in between. */
START_TEST(operators_follow_the_model_the_executor_kept) {
  char *smoke = th_path(tq_test_top(), "suites/models/add_rescaled_28x28x32_i8.mlir");
  char yaml[8192];
  snprintf(yaml, sizeof(yaml),
           "suite: x\ntests:\n  - name: fused\n    model: '%s'\n    inputs: {random: 3}\n"
           "  - name: plain\n    model: add.mlir\n    inputs: {random: 3}\n",
           smoke);
  fx_t fx;
  fx_init(&fx, yaml);
  char *first = compiled_operators(&fx, 0);
  ck_assert_ptr_nonnull(fx.exec.memo);
  ck_assert_ptr_nonnull(strstr(first, "tosa.add@L"));
  ck_assert_ptr_nonnull(strstr(first, "tosa.rescale@L"));
  char *again = compiled_operators(&fx, 0);
  ck_assert_str_eq(again, first);
  char *plain = compiled_operators(&fx, 1);
  ck_assert_ptr_nonnull(strstr(plain, "tosa.add@L"));
  ck_assert_ptr_null(strstr(plain, "tosa.rescale"));
  char *back = compiled_operators(&fx, 0);
  ck_assert_str_eq(back, first);
  /* A fresh executor reads the same from the debug info. */
  tqh_executor_forget(&fx.exec);
  ck_assert_ptr_null(fx.exec.memo);
  char *fresh = compiled_operators(&fx, 1);
  ck_assert_str_eq(fresh, plain);
  free(fresh);
  free(back);
  free(plain);
  free(again);
  free(first);
  free(smoke);
  fx_deinit(&fx);
}
END_TEST

/* One profiled test of `fx`'s first test in folder NAME (made here), `removed` (a path in it, or
 * NULL) deleted once the compile phase linked it; with `hit`, a cache hit that passes. Its
 * result's metrics as "name=us;" text (caller frees) and what went to its stderr into *err
 * (caller frees). */
static char *profiled_test(fx_t *fx, const char *name, const char *removed, int hit, char **err) {
  char *dir = th_path(fx->dir, name);
  ck_assert_int_eq(mkdir(dir, 0777), 0);
  seen_t seen;
  tqh_execute_io_t io;
  seen_init(&seen, &io);
  tqh_test_result_t r;
  tqh_test_result_init(&r);
  tqh_execution_t *e = NULL;
  TH_OK(tqh_execution_create(&fx->exec, &fx->suite->tests[0], dir, &io, &r, &e));
  ck_assert_int_eq(tqh_execute_compile(e), 1);
  if (hit) ck_assert_int_eq(r.cache, TQH_CACHE_HIT);
  if (removed) {
    char *path = th_path(dir, removed);
    ck_assert_int_eq(unlink(path), 0);
    free(path);
  }
  ck_assert_int_eq(tqh_execute_run(e), 1);
  ck_assert_int_eq(tqh_execute_check(e), 1);
  ck_assert_int_eq(tqh_execute_profile(e), 1);
  if (hit) ck_assert_int_eq(r.outcome, TQH_OUTCOME_PASSED);
  tq_buf_t metrics;
  tq_buf_init(&metrics, 0);
  for (size_t m = 0; m < r.num_metrics; m++)
    TH_OK(tq_buf_printf(&metrics, "%s=%.3f;", r.metric_names[m], r.metric_us[m]));
  ck_assert_uint_gt(r.num_metrics, 0);
  tqh_execution_destroy(e);
  tqh_test_result_deinit(&r);
  *err = strdup(text(&seen.err));
  seen_deinit(&seen);
  free(dir);
  return tq_buf_detach(&metrics);
}

/* The tests of one model in a row read its debug info once: the second test's annotation is
 * the first one's without reading its own copy of the lowered program (removed here), while
 * its manifest.json is the same file. An entry whose manifest.json is another file (rebuilt
 * meanwhile) is read again: here a broken one, which the annotation reports. */
START_TEST(a_model_annotated_again_reads_its_debug_info_once) {
  fx_t fx;
  fx_init(&fx, "suite: x\ntests:\n  - name: add\n    model: add.mlir\n    inputs: {random: 3}\n");
  char *err1 = NULL, *err2 = NULL, *err3 = NULL;
  char *first = profiled_test(&fx, "a", NULL, 0, &err1);
  ck_assert_str_eq(err1, "");
  /* The second test's copy loses its program once linked (the compile phase links it). */
  char *again = profiled_test(&fx, "b", "debug/main_dispatch_0.torq.mlir", 1, &err2);
  ck_assert_str_eq(again, first);
  char *a_csv = th_path(fx.dir, "a/annotated.csv"), *b_csv = th_path(fx.dir, "b/annotated.csv");
  char *a_text = th_read(a_csv, NULL), *b_text = th_read(b_csv, NULL);
  ck_assert_str_eq(b_text, a_text);
  /* The entry rebuilt: its manifest.json a new file (a broken one). */
  char *pattern = th_path(fx.dir, "cache/v1/*/*/debug/manifest.json");
  glob_t g;
  ck_assert_int_eq(glob(pattern, 0, NULL, &g), 0);
  ck_assert_uint_eq(g.gl_pathc, 1);
  char *fresh = th_path(fx.dir, "manifest.new");
  th_write(fresh, "{\"format\": ");
  ck_assert_int_eq(rename(fresh, g.gl_pathv[0]), 0);
  globfree(&g);
  char *third = profiled_test(&fx, "c", NULL, 0, &err3);
  ck_assert_msg(strstr(err3, "manifest.json") != NULL, "stderr: %s", err3);
  free(fresh);
  free(pattern);
  free(third);
  free(err3);
  free(a_text);
  free(b_text);
  free(a_csv);
  free(b_csv);
  free(again);
  free(err2);
  free(first);
  free(err1);
  fx_deinit(&fx);
}
END_TEST

/* The executor keeps the model's bytes and its entry's files for the next test of the same
 * model, but a model file changed between two tests is read again: the same length with other
 * bytes is another cache key (a miss), and the kept entry's links still come out whole. */
START_TEST(a_model_changed_between_tests_is_read_again) {
  fx_t fx;
  fx_init(&fx, "suite: x\ntests:\n  - name: add\n    model: add.mlir\n    inputs: {random: 3}\n");
  static const tqh_cache_t want[] = {TQH_CACHE_MISS, TQH_CACHE_HIT, TQH_CACHE_MISS,
                                             TQH_CACHE_HIT};
  for (size_t k = 0; k < 4; k++) {
    if (k == 2) {
      /* Same length, other bytes: the operands swapped. */
      char swapped[sizeof(k_add_model)];
      memcpy(swapped, k_add_model, sizeof(k_add_model));
      char *ops = strstr(swapped, "%arg0, %arg1 :");
      ck_assert_ptr_nonnull(ops);
      memcpy(ops, "%arg1, %arg0", 12);
      char *p = th_path(fx.dir, "add.mlir");
      th_write(p, swapped);
      free(p);
    }
    tqh_test_result_t r;
    tqh_test_result_init(&r);
    tqh_execution_t *e = NULL;
    TH_OK(tqh_execution_create(&fx.exec, &fx.suite->tests[0], fx.test_dir, NULL, &r, &e));
    ck_assert_int_eq(tqh_execute_compile(e), 1);
    ck_assert_msg(r.cache == want[k], "test %zu: cache %d", k, (int)r.cache);
    ck_assert_ptr_nonnull(fx.exec.files);
    ck_assert(has_file(&r, "model.vmfb") && has_file(&r, "trace.csv") && has_file(&r, "debug"));
    char *vmfb = th_path(fx.test_dir, "model.vmfb");
    struct stat sb;
    ck_assert_int_eq(stat(vmfb, &sb), 0);
    ck_assert_int_gt(sb.st_size, 0);
    free(vmfb);
    ck_assert_int_eq(tqh_execute_run(e), 1);
    ck_assert_int_eq(tqh_execute_check(e), 1);
    tqh_execution_destroy(e);
    tqh_test_result_deinit(&r);
  }
  tqh_executor_forget(&fx.exec);
  ck_assert_ptr_null(fx.exec.files);
  fx_deinit(&fx);
}
END_TEST

/* Every expectation that does not hold is in the message, each in plain decimals. */
START_TEST(expectations_report_every_failing_bound_in_one_notation) {
  fx_t fx;
  fx_init(&fx,
          "suite: x\ntests:\n  - name: slow\n    model: add.mlir\n    repeat: 2\n"
          "    expect:\n      wall_time_s: {max: 0.000000001}\n      overall_ms: {max: 100}\n"
          "      idle_pct: {min: 100.5}\n      nothing_us: 5\n");
  tqh_test_result_t r;
  tqh_test_result_init(&r);
  tqh_execution_t *e = NULL;
  TH_OK(tqh_execution_create(&fx.exec, &fx.suite->tests[0], fx.test_dir, NULL, &r, &e));
  ck_assert_int_eq(tqh_execute_compile(e), 1);
  ck_assert_int_eq(tqh_execute_run(e), 1);
  ck_assert_int_eq(tqh_execute_check(e), 1);
  ck_assert_int_eq(tqh_execute_profile(e), 1);
  tqh_execute_check_expectations(e);
  ck_assert_int_eq(r.outcome, TQH_OUTCOME_FAILED);
  ck_assert_str_eq(r.failure_type, "expectation");
  /* Three of four fail (overall_ms holds); each with its place, none in e-notation. */
  ck_assert_msg(strstr(r.message, "wall_time_s (median) = 0.") &&
                    strstr(r.message, ", above max 0.000000001 (") &&
                    strstr(r.message, "idle_pct (median) = ") &&
                    strstr(r.message, ", below min 100.5 (") &&
                    strstr(r.message, "expectation nothing_us: the run has no metric 'nothing'"),
                "%s", r.message);
  ck_assert_msg(!strstr(r.message, "overall_ms"), "%s", r.message);
  ck_assert_ptr_null(strstr(r.message, "e-"));
  ck_assert_uint_eq(count(r.message, "; "), 2);
  ck_assert_msg(strstr(r.message, "x.yaml:7:7)") != NULL, "%s", r.message); /* wall_time_s */
  tqh_execution_destroy(e);
  tqh_test_result_deinit(&r);
  fx_deinit(&fx);
}
END_TEST

START_TEST(compile_phase_fails_a_model_the_compiler_refuses_with_its_location) {
  fx_t fx;
  fx_init(&fx, "suite: x\ntests:\n  - name: broken\n    model: broken.mlir\n");
  tqh_test_result_t r;
  tqh_test_result_init(&r);
  tqh_execution_t *e = NULL;
  TH_OK(tqh_execution_create(&fx.exec, &fx.suite->tests[0], fx.test_dir, NULL, &r, &e));
  ck_assert_int_eq(tqh_execute_compile(e), 0);
  ck_assert_int_eq(r.outcome, TQH_OUTCOME_FAILED);
  ck_assert_str_eq(r.failure_type, "compile_error");
  ck_assert_msg(strstr(r.message, "broken.mlir:4:5: error: returned value") != NULL, "%s",
                r.message);
  ck_assert_int_eq(r.infrastructure, 0);
  tqh_execution_destroy(e);
  tqh_test_result_deinit(&r);
  fx_deinit(&fx);
}
END_TEST

START_TEST(run_phase_fails_inputs_that_do_not_fit_the_signature) {
  fx_t fx;
  fx_init(&fx, "suite: x\ntests:\n  - name: one\n    model: add.mlir\n    inputs: ['4xi32=1']\n");
  tqh_test_result_t r;
  tqh_test_result_init(&r);
  tqh_execution_t *e = NULL;
  TH_OK(tqh_execution_create(&fx.exec, &fx.suite->tests[0], fx.test_dir, NULL, &r, &e));
  ck_assert_int_eq(tqh_execute_compile(e), 1);
  ck_assert_int_eq(tqh_execute_run(e), 0);
  ck_assert_int_eq(r.outcome, TQH_OUTCOME_FAILED);
  ck_assert_str_eq(r.failure_type, "input_error");
  ck_assert_msg(strstr(r.message, "the suite gives 1 input, but main takes 2") != NULL, "%s",
                r.message);
  ck_assert_uint_eq(r.num_samples, 0);
  tqh_execution_destroy(e);
  tqh_test_result_deinit(&r);
  fx_deinit(&fx);
}
END_TEST

static seen_t *g_hook_seen;

static void count_hook(const tqh_test_t *test, const tqh_execute_io_t *io) {
  ck_assert_str_eq(test->id, "x/add");
  ck_assert_ptr_eq(io->ctx, g_hook_seen);
  g_hook_seen->hooks++;
}

START_TEST(whole_test_calls_the_hook_between_compile_and_run) {
  fx_t fx;
  fx_init(&fx, "suite: x\ntests:\n  - name: add\n    model: add.mlir\n");
  fx.exec.profiling = 0;
  seen_t seen;
  tqh_execute_io_t io;
  seen_init(&seen, &io);
  g_hook_seen = &seen;
  tqh_execute_set_hook(count_hook);
  tqh_test_result_t r;
  tqh_test_result_init(&r);
  tqh_execute_test(&fx.exec, &fx.suite->tests[0], fx.test_dir, &io, &r);
  tqh_execute_set_hook(NULL);
  ck_assert_int_eq(r.outcome, TQH_OUTCOME_PASSED);
  ck_assert_uint_eq(seen.hooks, 1);
  ck_assert_uint_eq(r.num_samples, 1);
  ck_assert(!has_file(&r, "profile.pb"));
  tqh_test_result_deinit(&r);
  /* Without the hook, the same test runs alike. */
  tqh_test_result_init(&r);
  tqh_execute_test(&fx.exec, &fx.suite->tests[0], fx.test_dir, &io, &r);
  ck_assert_int_eq(r.outcome, TQH_OUTCOME_PASSED);
  ck_assert_uint_eq(seen.hooks, 1);
  tqh_test_result_deinit(&r);
  seen_deinit(&seen);
  fx_deinit(&fx);
}
END_TEST

Suite *execute_suite(void) {
  Suite *s = suite_create("execute");
  TCase *tc = tcase_create("phases");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, phases_run_in_process_and_report_through_callbacks);
  tcase_add_test(tc, smoke_add_is_reconciled);
  tcase_add_test(tc, corpus_add_is_reconciled);
  tcase_add_test(tc, operators_follow_the_model_the_executor_kept);
  tcase_add_test(tc, a_model_annotated_again_reads_its_debug_info_once);
  tcase_add_test(tc, a_model_changed_between_tests_is_read_again);
  tcase_add_test(tc, expectations_report_every_failing_bound_in_one_notation);
  tcase_add_test(tc, compile_phase_fails_a_model_the_compiler_refuses_with_its_location);
  tcase_add_test(tc, run_phase_fails_inputs_that_do_not_fit_the_signature);
  tcase_add_test(tc, whole_test_calls_the_hook_between_compile_and_run);
  suite_add_tcase(s, tc);
  return s;
}
