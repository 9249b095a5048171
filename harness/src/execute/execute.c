/* One test, inside its worker process: compile (through the cache), run on the simulator with
 * warm-up and timed repetitions (or on the worker's board: board_exec.c), compare with the
 * reference, profile and annotate, check the performance expectations. Everything lands in the test's folder; the verdict and the numbers go
 * back to the parent as one RESULT message (worker.c), which alone writes the reports.
 *
 * Failure types (the JUnit `type` of <failure>/<error>):
 *   compile_error   the model does not parse, verify or compile            FAILED
 *   input_error     an input cannot be made for the function's signature   FAILED
 *   runtime_error   the runtime refused the module or an invocation failed  FAILED
 *   mismatch        outputs differ from the reference interpreter's         FAILED
 *   expectation     a performance expectation (`expect:`) does not hold      FAILED
 *   annotation_error  the profile could not be annotated                    FAILED
 *   infrastructure  the harness itself could not work (files, memory)       ERROR
 *   infra_*         a board's infrastructure fault (tqh_board_fault_type):  ERROR
 *                   connection, timeout, disk_full, host_key, auth, lease, setup
 * and, decided by the parent: crash (a signal), timeout, infra_board_down.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "runner_internal.h"
#include "torq/base/alloc.h"
#include "torq/base/file.h"
#include "torq/compiler/compile.h"
#include "torq/compiler/mlir.h"
#include "torq/compiler/reference.h"
#include "torq/harness/annotate.h"
#include "torq/harness/fetch.h"
#include "torq/harness/files.h"
#include "torq/harness/overview.h"
#include "torq/harness/process.h"
#include "torq/harness/stats.h"
#include "torq/runtime/runtime.h"
#include "torq/sim/hw.h"
#include "torq/sim/tensor.h"

/* The largest model file a test reads (as the compiler's parser allows). */
#define MAX_MODEL_BYTES ((size_t)256 << 20)

typedef struct exec_s {
  tqh__exec_ctx_t *ctx;
  const tqh_test_t *test;
  const char *dir; /* the test's folder */
  int log_fd;
  tqh__result_t *r;

  tq_buf_t model_text;    /* the model's bytes */
  const char *model_path; /* the file compiled */
  tqc_module_t *parsed;   /* parsed model (for the reference), or NULL */
  tqc_compile_options_t compile_options;
  double compile_s;

  tqr_module_t *module;
  tqr_tensor_t **inputs;
  size_t num_inputs;
  tqr_tensor_t **outputs;
  size_t num_outputs;
  char *entry_dir; /* the cache entry */
  char *fetched_path; /* a URL model's downloaded file */
  char cache_key[TQ_SHA256_HEX_SIZE];
} exec_t;

static void logf_(exec_t *e, const char *fmt, ...) TQ_PRINTF(2, 3);
static void logf_(exec_t *e, const char *fmt, ...) {
  if (e->log_fd < 0) return;
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof(line), fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n >= sizeof(line)) n = (int)sizeof(line) - 1;
  tq_status_free(tqh__msg_send(e->log_fd, TQH__MSG_LOG, line, (size_t)n));
}

static void phase(exec_t *e, const char *name, double limit_s) {
  if (e->log_fd < 0) return;
  tq_status_free(tqh__msg_send_phase(e->log_fd, name, limit_s));
}

static double seconds_since(uint64_t t0) {
  return (double)(tqh_now_ns() - t0) / 1e9;
}

static tq_status_t path_in(const exec_t *e, const char *name, tq_buf_t *out) {
  tq_buf_clear(out);
  return tq_buf_printf(out, "%s/%s", e->dir, name);
}

/* The entry function the settings ask for, or NULL for the model's entry point. */
static const char *function_wanted(const tqh_test_t *t) {
  const tqh_settings_t *s = &t->settings;
  if (s->layer[TQH_SET_FUNCTION] <= TQH_LAYER_BUILTIN || !s->function || !*s->function) return NULL;
  return s->function;
}

/* ---- Compile ----------------------------------------------------------------------------------
 */

/* Applies the test's compile options; TQ_INVALID_ARGUMENT for one that torq-compile does not
 * know. Options about outputs are accepted and ignored: the runner always writes the module, the
 * trace and the debug info. */
static tq_status_t compile_options(exec_t *e, tq_buf_t *canonical) {
  tqc_compile_options_initialize(&e->compile_options);
  const tqh_settings_t *s = &e->test->settings;
  for (size_t i = 0; i < s->compile_option_count; i++) {
    const char *o = s->compile_options[i];
    if (!strncmp(o, "--torq-hw=", 10)) {
      TQ_TRY(tqs_hw_parse(o + 10, &e->compile_options.hw));
      e->compile_options.hw_spec = o + 10;
    } else if (strcmp(o, "--torq-enable-profiling") != 0 &&
               strncmp(o, "--torq-dump-profiling=", 22) != 0 &&
               strncmp(o, "--torq-debug-info=", 18) != 0) {
      return TQ_STATUS(TQ_INVALID_ARGUMENT,
                       "unknown compile option '%s' (torq-compile takes --torq-hw=SPEC)", o);
    }
  }
  return tq_buf_printf(canonical, "hw=%s\n",
                       e->compile_options.hw_spec ? e->compile_options.hw_spec : "sl2610");
}

static tq_status_t parse_model(exec_t *e) {
  if (e->parsed) return NULL;
  TQ_TRY(tqc_module_parse(e->model_path, e->model_text.data ? e->model_text.data : "",
                          e->model_text.len, NULL, &e->parsed));
  tq_status_t st = tqc_module_verify(e->parsed);
  if (st) {
    tqc_module_destroy(e->parsed);
    e->parsed = NULL;
  }
  return st;
}

/* tqh_compile_cache_fill_fn: compiles into a fresh cache entry. */
static tq_status_t fill_entry(void *vctx, const char *dir, tq_buf_t *info) {
  exec_t *e = vctx;
  uint64_t t0 = tqh_now_ns();
  TQ_TRY(tq_buf_printf(info, "model %s\nhw %s\n", e->model_path,
                       e->compile_options.hw_spec ? e->compile_options.hw_spec : "sl2610"));
  tqc_compiled_t *compiled = NULL;
  tq_status_t pst = parse_model(e);
  if (!pst) pst = tqc_compile(e->parsed, &e->compile_options, &compiled);
  if (pst) {
    e->compile_s = seconds_since(t0);
    return pst;
  }
  tq_buf_t out, path;
  tq_buf_init(&out, 0);
  tq_buf_init(&path, 0);
  tq_status_t st = tqc_compiled_pack(compiled, &out);
  if (!st) st = tq_buf_printf(&path, "%s/model.vmfb", dir);
  if (!st) st = tqh_write_plain(path.data, out.data, out.len);
  if (!st) {
    tq_buf_clear(&out);
    tq_buf_clear(&path);
    st = tqc_compiled_trace_csv(compiled, &out);
  }
  if (!st) st = tq_buf_printf(&path, "%s/trace.csv", dir);
  if (!st) st = tqh_write_plain(path.data, out.data ? out.data : "", out.len);
  if (!st) {
    tq_buf_clear(&path);
    st = tq_buf_printf(&path, "%s/debug", dir);
  }
  if (!st) st = tqc_compiled_write_debug_info(compiled, path.data);
  tq_buf_deinit(&out);
  tq_buf_deinit(&path);
  tqc_compiled_destroy(compiled);
  e->compile_s = seconds_since(t0);
  return st;
}

static const char *const k_compile_outputs[] = {"model.vmfb", "trace.csv", "debug"};

/* The compile-time estimate, read from the loaded module: each NSS program carries the cycles
 * the compiler estimated for it, so a cache hit gives the same number as compiling
 * (tqc_compiled_estimated_cycles) without a cache format of its own. */
static void record_estimate(exec_t *e) {
  e->r->has_estimated_cycles = 1;
  e->r->estimated_cycles = tqc_module_estimated_cycles(tqr_module_proto(e->module));
}

/* Model bytes → cache entry → links in the test's folder → loaded module. */
static int compile_and_load(exec_t *e) {
  tqh__result_t *r = e->r;
  const tqh_test_t *t = e->test;
  tq_status_t st = NULL;
  if (t->model.kind == TQH_MODEL_URL) {
    phase(e, "fetch", t->settings.compile_timeout_s);
    uint64_t t0 = tqh_now_ns();
    st = tqh_fetch_model(e->ctx->cache->root, t->model.url, t->model.sha256,
                         t->settings.compile_timeout_s, &e->fetched_path);
    if (st) {
      int infra = tq_status_code(st) != TQ_INVALID_INPUT;
      r->infrastructure = infra;
      tqh__result_fail_status(r, infra ? TQH_OUTCOME_ERROR : TQH_OUTCOME_FAILED, "fetch", st);
      return 0;
    }
    logf_(e, "fetch: %s (%.3fs)", t->model.url, seconds_since(t0));
    e->model_path = e->fetched_path;
  } else {
    e->model_path = t->model.path;
  }
  st = tq_file_read(e->model_path, MAX_MODEL_BYTES, &e->model_text);
  if (st) {
    tqh__result_fail_status(r, TQH_OUTCOME_FAILED, "compile_error", st);
    return 0;
  }
  tq_buf_t canonical;
  tq_buf_init(&canonical, 0);
  st = compile_options(e, &canonical);
  if (!st)
    st = tqh_compile_cache_key(e->ctx->cache, e->model_text.data ? e->model_text.data : "",
                               e->model_text.len, canonical.data, e->cache_key);
  tq_buf_deinit(&canonical);
  if (st) {
    tqh__result_fail_status(r, TQH_OUTCOME_FAILED, "compile_error", st);
    return 0;
  }
  phase(e, "compile", t->settings.compile_timeout_s);
  for (int attempt = 0; attempt < 2; attempt++) {
    int hit = 0;
    tq_free(e->entry_dir);
    e->entry_dir = NULL;
    e->compile_s = 0;
    st = tqh_compile_cache_fetch(e->ctx->cache, e->cache_key, fill_entry, e, &e->entry_dir, &hit);
    if (st) {
      /* The compiler ran (and refused the model): a miss, with its time. */
      r->cache = TQH_CACHE_MISS;
      r->compile_s = e->compile_s;
      /* An error with a location is the compiler's diagnostic; anything else is ours. */
      tq_status_code_t code = tq_status_code(st);
      int ours = code == TQ_IO || code == TQ_OUT_OF_MEMORY;
      r->infrastructure = ours;
      tqh__result_fail_status(r, ours ? TQH_OUTCOME_ERROR : TQH_OUTCOME_FAILED,
                              ours ? "infrastructure" : "compile_error", st);
      return 0;
    }
    r->cache = hit ? TQH_CACHE_HIT : TQH_CACHE_MISS;
    r->compile_s = e->compile_s;
    logf_(e, "compile: %s (%s)", hit ? "cache hit" : "compiled", e->cache_key);
    tq_buf_t path;
    tq_buf_init(&path, 0);
    st = tq_buf_printf(&path, "%s/model.vmfb", e->entry_dir);
    uint64_t t0 = tqh_now_ns();
    if (!st) st = tqr_module_load_file(path.data, NULL, &e->module);
    r->run_s += seconds_since(t0);
    tq_buf_deinit(&path);
    if (!st) break;
    if (hit && attempt == 0) {
      /* A damaged entry (a power loss while it was written): rebuild it once. */
      logf_(e, "cache entry %s is damaged (%s); compiling again", e->cache_key,
            tq_status_message(st));
      tq_status_free(st);
      tq_status_free(tqh_compile_cache_evict(e->ctx->cache, e->cache_key));
      continue;
    }
    tqh__result_fail_status(r, TQH_OUTCOME_FAILED, "runtime_error", st);
    return 0;
  }
  record_estimate(e);
  /* The compile outputs, linked into the test's folder. */
  tq_buf_t from, to;
  tq_buf_init(&from, 0);
  tq_buf_init(&to, 0);
  for (size_t i = 0; !st && i < 3; i++) {
    tq_buf_clear(&from);
    st = tq_buf_printf(&from, "%s/%s", e->entry_dir, k_compile_outputs[i]);
    if (!st) st = path_in(e, k_compile_outputs[i], &to);
    if (!st) st = tqh_link_tree(from.data, to.data);
    if (!st) st = tqh__result_add_file(r, k_compile_outputs[i]);
  }
  tq_buf_deinit(&from);
  tq_buf_deinit(&to);
  if (st) {
    r->infrastructure = 1;
    tqh__result_fail_status(r, TQH_OUTCOME_ERROR, "infrastructure", st);
    return 0;
  }
  return 1;
}

/* ---- Inputs and execution ------------------------------------------------------------------- */

static tq_status_t make_inputs(exec_t *e) {
  const Torq__Function *fn = tqr_module_proto(e->module)->function;
  const tqh_test_t *t = e->test;
  size_t n = fn->n_inputs;
  if (!t->inputs_random && t->input_count != n)
    return TQ_STATUS(TQ_INVALID_ARGUMENT, "%s:%u:%u: the suite gives %zu input%s, but %s takes %zu",
                     t->loc.file ? t->loc.file : t->suite->path, t->loc.line, t->loc.col,
                     t->input_count, t->input_count == 1 ? "" : "s",
                     tqr_module_function_name(e->module), n);
  e->inputs = tq_calloc(n + 1, sizeof(*e->inputs));
  if (!e->inputs) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  e->num_inputs = n;
  for (size_t i = 0; i < n; i++) {
    const tqh_input_t *in = t->inputs_random ? NULL : &t->inputs[i];
    if (in && in->kind == TQH_INPUT_TEXT) {
      tqr_input_options_t io;
      tqr_input_options_initialize(&io);
      io.seed = in->seed;
      io.index = i;
      tq_status_t st = tqr_input_parse(in->text, &io, &e->inputs[i]);
      if (st)
        return tq_status_annotate(st, "input %zu (%s:%u:%u)", i, in->loc.file ? in->loc.file : "",
                                  in->loc.line, in->loc.col);
      continue;
    }
    const Torq__TensorType *ty = fn->inputs[i];
    if (ty->n_dims > TQR_MAX_RANK)
      return TQ_STATUS(TQ_INVALID_INPUT, "input %zu has rank %zu", i, ty->n_dims);
    TQ_TRY(tqr_tensor_create(ty->element_type, ty->n_dims, ty->dims, &e->inputs[i]));
    tqr_input_random_fill(e->inputs[i], in ? in->seed : t->random_seed, i);
  }
  return NULL;
}

static void free_outputs(exec_t *e) {
  for (size_t o = 0; e->outputs && o < e->num_outputs; o++) {
    tqr_tensor_destroy(e->outputs[o]);
    e->outputs[o] = NULL;
  }
}

static tq_status_t invoke(exec_t *e, tqr_session_t *session) {
  free_outputs(e);
  return tqr_session_invoke(session, (const tqr_tensor_t *const *)e->inputs, e->num_inputs,
                            e->outputs, e->num_outputs);
}

/* Warm-up, then the timed repetitions; the outputs of the last one stay in e->outputs. */
static int run_timed(exec_t *e) {
  tqh__result_t *r = e->r;
  const tqh_settings_t *s = &e->test->settings;
  tqr_device_t *device = NULL;
  tqr_session_t *session = NULL;
  uint64_t t0 = tqh_now_ns();
  tq_status_t st = tqr_device_sim_create(&device);
  if (!st) st = tqr_session_create(e->module, device, NULL, &session);
  if (!st) {
    e->num_outputs = tqr_module_proto(e->module)->function->n_outputs;
    e->outputs = tq_calloc(e->num_outputs + 1, sizeof(*e->outputs));
    r->samples = tq_calloc(s->repeat + 1, sizeof(double));
    if (!e->outputs || !r->samples) st = TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  }
  r->run_s += seconds_since(t0);
  for (uint32_t i = 0; !st && i < s->warmup; i++) {
    phase(e, "run", s->run_timeout_s);
    t0 = tqh_now_ns();
    st = invoke(e, session);
    r->run_s += seconds_since(t0);
    if (st) st = tq_status_annotate(st, "in warm-up run %u", i + 1);
  }
  for (uint32_t i = 0; !st && i < s->repeat; i++) {
    phase(e, "run", s->run_timeout_s);
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    st = invoke(e, session);
    clock_gettime(CLOCK_MONOTONIC, &b);
    double wall = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
    r->run_s += wall;
    if (st) {
      st = tq_status_annotate(st, "in run %u of %u", i + 1, s->repeat);
      break;
    }
    r->samples[r->num_samples++] = wall;
    r->has_wall_time = 1;
    if (s->repeat > 1)
      logf_(e, "Wall time: %.6fs (run %u of %u)", wall, i + 1, s->repeat);
    else
      logf_(e, "Wall time: %.6fs", wall);
  }
  tqr_session_destroy(session);
  tqr_device_destroy(device);
  if (st) {
    tqh_outcome_t o =
        tq_status_code(st) == TQ_OUT_OF_MEMORY ? TQH_OUTCOME_ERROR : TQH_OUTCOME_FAILED;
    tqh__result_fail_status(r, o, o == TQH_OUTCOME_ERROR ? "infrastructure" : "runtime_error", st);
    return 0;
  }
  return 1;
}

/* ---- The reference ----------------------------------------------------------------------------
 */

static int check_reference(exec_t *e) {
  tqh__result_t *r = e->r;
  const tqh_settings_t *s = &e->test->settings;
  uint64_t t0 = tqh_now_ns();
  tq_status_t st = parse_model(e);
  if (st) {
    tqh__result_fail_status(r, TQH_OUTCOME_FAILED, "compile_error", st);
    return 0;
  }
  tqs_tensor_t *in_views = tq_calloc(e->num_inputs + 1, sizeof(tqs_tensor_t));
  const tqs_tensor_t **in_ptrs = tq_calloc(e->num_inputs + 1, sizeof(*in_ptrs));
  tqs_tensor_t **ref = tq_calloc(e->num_outputs + 1, sizeof(*ref));
  if (!in_views || !in_ptrs || !ref) st = TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  for (size_t i = 0; !st && i < e->num_inputs; i++) {
    st = tqh__as_sim_tensor(e->inputs[i], &in_views[i]);
    in_ptrs[i] = &in_views[i];
  }
  const char *fn = function_wanted(e->test);
  if (!st) st = tqc_reference_run(e->parsed, fn, in_ptrs, e->num_inputs, ref, e->num_outputs);
  int ok = 1;
  if (st && tq_status_code(st) == TQ_UNIMPLEMENTED) {
    /* The reference cannot evaluate this model: nothing to compare with, which is not the
     * model's failure. Said in the log and in stderr.txt. */
    char *text = tq_status_format(st, 0);
    logf_(e, "reference: not compared: %s", text ? text : tq_status_message(st));
    fprintf(stderr, "torq-test: reference not compared: %s\n", text ? text : "");
    free(text);
    tq_status_free(st);
    st = NULL;
  } else if (st) {
    tqh__result_fail_status(r, TQH_OUTCOME_FAILED, "reference_error", st);
    st = NULL;
    ok = 0;
  } else {
    for (size_t o = 0; o < e->num_outputs && ok; o++) {
      tqs_tensor_t got;
      st = tqh__as_sim_tensor(e->outputs[o], &got);
      if (st) break;
      char msg[512];
      if (!tqh__compare_output(o, &got, ref[o], s->atol, s->rtol, msg, sizeof(msg))) {
        tqh__result_fail(r, TQH_OUTCOME_FAILED, "mismatch", "%s", msg);
        ok = 0;
      }
    }
    if (ok && !st)
      logf_(e, "reference: %zu output%s match", e->num_outputs, e->num_outputs == 1 ? "" : "s");
  }
  if (st) {
    tqh__result_fail_status(r, TQH_OUTCOME_ERROR, "infrastructure", st);
    r->infrastructure = 1;
    ok = 0;
  }
  for (size_t o = 0; ref && o < e->num_outputs; o++) tqs_tensor_destroy(ref[o]);
  tq_free(ref);
  tq_free(in_ptrs);
  tq_free(in_views);
  r->run_s += seconds_since(t0);
  return ok;
}

/* ---- Profiling and annotation --------------------------------------------------------------- */

/* The overview metrics, read back from the trace (so the reports show what the trace holds). */
static tq_status_t read_overview(const char *pb_path, tqh__result_t *r) {
  tqh_overview_t ov;
  tqh_overview_init(&ov);
  const char *paths[1] = {pb_path};
  tq_status_t st = tqh_overview_read(paths, 1, &ov);
  for (size_t i = 0; !st && i < ov.count; i++)
    st = tqh__result_add_metric(r, ov.metrics[i].name, (double)ov.metrics[i].ns / 1e3);
  tqh_overview_deinit(&ov);
  return st;
}

/* profile.csv (in the test's folder) annotated into annotated.csv, profile.xlsx and profile.pb,
 * and the overview metrics read back from profile.pb. */
static int annotate_profile(exec_t *e) {
  tqh__result_t *r = e->r;
  tq_buf_t path, debug;
  tq_buf_init(&path, 0);
  tq_buf_init(&debug, 0);
  tqh_annotation_t *ann = NULL;
  tq_status_t st = path_in(e, "profile.csv", &path);
  if (!st) st = path_in(e, "debug", &debug);
  if (!st) st = tqh_annotate(debug.data, path.data, NULL, &ann);
  if (!st && ann->diags.count) {
    tq_buf_t text;
    tq_buf_init(&text, 0);
    if (!tqh_diags_format(&ann->diags, &text) && text.data) fputs(text.data, stderr);
    logf_(e, "annotation: %zu error%s, %zu warning%s (see stderr.txt)", ann->diags.errors,
          ann->diags.errors == 1 ? "" : "s", ann->diags.warnings,
          ann->diags.warnings == 1 ? "" : "s");
    tq_buf_deinit(&text);
  }
  static const char *const outputs[] = {"annotated.csv", "profile.xlsx", "profile.pb"};
  for (size_t i = 0; !st && i < 3; i++) {
    st = path_in(e, outputs[i], &path);
    if (!st) st = tqh_annotation_write(ann, path.data);
    if (!st) st = tqh__result_add_file(r, outputs[i]);
  }
  tqh_annotation_destroy(ann);
  if (!st) st = path_in(e, "profile.pb", &path);
  if (!st) st = read_overview(path.data, r);
  tq_buf_deinit(&path);
  tq_buf_deinit(&debug);
  if (st) {
    tqh__result_fail_status(r, TQH_OUTCOME_FAILED, "annotation_error", st);
    return 0;
  }
  return 1;
}

/* One more invocation in a fresh session with the profile on: profile.csv then holds INIT and
 * one DISPATCH in simulated time, the same on every run. Then the annotation. */
static int profile_and_annotate(exec_t *e) {
  tqh__result_t *r = e->r;
  tq_buf_t path;
  tq_buf_init(&path, 0);
  tqr_device_t *device = NULL;
  tqr_profile_t *profile = NULL;
  tqr_session_t *session = NULL;
  phase(e, "run", e->test->settings.run_timeout_s);
  uint64_t t0 = tqh_now_ns();
  tq_status_t st = path_in(e, "profile.csv", &path);
  if (!st) st = tqr_profile_create(0, &profile);
  if (!st) st = tqr_profile_open_csv(profile, path.data);
  if (!st) st = tqr_device_sim_create(&device);
  if (!st) {
    tqr_session_options_t so;
    tqr_session_options_initialize(&so);
    so.profile = profile;
    st = tqr_session_create(e->module, device, &so, &session);
  }
  if (!st) st = invoke(e, session);
  tqr_session_destroy(session);
  if (profile) {
    tq_status_t cst = tqr_profile_close(profile);
    if (!st)
      st = cst;
    else
      tq_status_free(cst);
    tqr_profile_destroy(profile);
  }
  tqr_device_destroy(device);
  r->run_s += seconds_since(t0);
  tq_buf_deinit(&path);
  if (!st) st = tqh__result_add_file(r, "profile.csv");
  if (st) {
    tqh__result_fail_status(r, TQH_OUTCOME_FAILED, "runtime_error",
                            tq_status_annotate(st, "in the profiled run"));
    return 0;
  }
  return annotate_profile(e);
}

/* ---- On a board ------------------------------------------------------------------------------ */

/* The timed runs on the board (board_exec.c): e->outputs get the downloaded outputs and, with
 * profiling, the test's folder gets profile.csv. */
static int run_on_board(exec_t *e) {
  tqh__result_t *r = e->r;
  const tqh_settings_t *s = &e->test->settings;
  tqh__board_worker_t *bw = tqh__board_worker(e->ctx);
  tq_buf_t model;
  tq_buf_init(&model, 0);
  e->num_outputs = tqr_module_proto(e->module)->function->n_outputs;
  e->outputs = tq_calloc(e->num_outputs + 1, sizeof(*e->outputs));
  tq_status_t st = bw && e->outputs ? path_in(e, "model.vmfb", &model)
                                    : TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  if (st) {
    tq_buf_deinit(&model);
    r->infrastructure = 1;
    tqh__result_fail_status(r, TQH_OUTCOME_ERROR, "infrastructure", st);
    return 0;
  }
  tqh__board_test_t bt;
  memset(&bt, 0, sizeof(bt));
  bt.test = e->test;
  bt.dir = e->dir;
  bt.model_path = model.data;
  bt.inputs = e->inputs;
  bt.num_inputs = e->num_inputs;
  bt.num_outputs = e->num_outputs;
  bt.function = function_wanted(e->test);
  bt.warmup = s->warmup;
  bt.repeat = s->repeat;
  bt.run_timeout_s = s->run_timeout_s;
  bt.profile = e->ctx->options->profiling;
  int ok = tqh__board_run_test(bw, &bt, e->log_fd, r, e->outputs);
  tq_buf_deinit(&model);
  return ok;
}

void tqh__exec_idle(void *vctx, int fd) {
  tqh__exec_ctx_t *ctx = vctx;
  tqh__board_worker_idle(ctx->board_worker, fd);
}

void tqh__exec_exit(void *vctx, int fd) {
  tqh__exec_ctx_t *ctx = vctx;
  tqh__board_worker_exit(ctx->board_worker, fd);
}

/* Copies the profile files to --torq-runtime-profiling-output-dir/<test folder>/. */
static void copy_profiles(exec_t *e) {
  const char *root = e->ctx->options->profile_copy_dir;
  if (!root) return;
  const char *base = strrchr(e->dir, '/');
  base = base ? base + 1 : e->dir;
  tq_buf_t to, from;
  tq_buf_init(&to, 0);
  tq_buf_init(&from, 0);
  tq_status_t st = tq_buf_printf(&to, "%s/%s", root, base);
  if (!st) st = tq_file_mkdirs(to.data);
  static const char *const names[] = {"profile.csv", "annotated.csv", "profile.xlsx", "profile.pb"};
  for (size_t i = 0; !st && i < 4; i++) {
    tq_buf_clear(&to);
    tq_buf_clear(&from);
    st = tq_buf_printf(&to, "%s/%s/%s", root, base, names[i]);
    if (!st) st = path_in(e, names[i], &from);
    if (!st && access(from.data, F_OK) == 0) st = tqh_link_tree(from.data, to.data);
  }
  if (st) {
    char *text = tq_status_format(st, 0);
    logf_(e, "cannot copy the profile: %s", text ? text : "");
    free(text);
    tq_status_free(st);
  }
  tq_buf_deinit(&to);
  tq_buf_deinit(&from);
}

/* ---- Performance expectations --------------------------------------------------------------- */

/* "Dma Total" -> "dma_total". */
static int metric_matches(const char *name, const char *key) {
  for (; *name && *key; name++, key++) {
    char c = *name == ' ' ? '_' : (char)(*name >= 'A' && *name <= 'Z' ? *name + 32 : *name);
    if (c != *key) return 0;
  }
  return !*name && !*key;
}

static double stat_value(const tqh_stats_t *s, tqh_stat_t which) {
  switch (which) {
    case TQH_STAT_MEAN:
      return s->mean;
    case TQH_STAT_MIN:
      return s->min;
    case TQH_STAT_MAX:
      return s->max;
    default:
      return s->median;
  }
}

static void check_expectations(exec_t *e) {
  const tqh_test_t *t = e->test;
  tqh__result_t *r = e->r;
  if (!t->expect_count || r->outcome != TQH_OUTCOME_PASSED) return;
  tqh_stats_t stats;
  memset(&stats, 0, sizeof(stats));
  tq_status_free(tqh_stats_compute(r->samples, r->num_samples, &stats));
  double overall_us = -1;
  for (size_t m = 0; m < r->num_metrics; m++)
    if (!strcmp(r->metric_names[m], "OVERALL")) overall_us = r->metric_us[m];
  for (size_t i = 0; i < t->expect_count; i++) {
    const tqh_expect_t *x = &t->expects[i];
    double value = 0;
    int found = 0;
    if (!strcmp(x->metric, "wall_time") && x->unit == TQH_UNIT_TIME) {
      found = r->num_samples > 0;
      value = stat_value(&stats, x->stat);
    } else {
      for (size_t m = 0; m < r->num_metrics && !found; m++) {
        if (!metric_matches(r->metric_names[m], x->metric)) continue;
        found = 1;
        value = x->unit == TQH_UNIT_PERCENT
                    ? (overall_us > 0 ? r->metric_us[m] / overall_us * 100 : 0)
                    : r->metric_us[m] * 1e-6;
      }
    }
    if (!found) {
      tqh__result_fail(r, TQH_OUTCOME_FAILED, "expectation",
                       "%s:%u:%u: expectation %s: the run has no metric '%s'%s", x->loc.file,
                       x->loc.line, x->loc.col, x->key, x->metric,
                       e->ctx->options->profiling ? "" : " (profiling is off)");
      return;
    }
    char msg[256];
    if (!tqh_expect_check(x, value, msg, sizeof(msg))) {
      tqh__result_fail(r, TQH_OUTCOME_FAILED, "expectation", "%s (%s:%u:%u)", msg, x->loc.file,
                       x->loc.line, x->loc.col);
      return;
    }
    logf_(e, "expectation %s holds", x->key);
  }
}

/* ---- Fault injection (end-to-end tests) ----------------------------------------------------- */

/* TORQ_TEST_FAULT makes workers misbehave on purpose, so that the end-to-end tests can prove
 * crash isolation, timeouts and interruption on the real binary: items separated by ';',
 *   crash:WORD     tests whose id contains WORD die of SIGSEGV in the run phase
 *   hang:WORD      tests whose id contains WORD hang in the run phase (until the timeout)
 *   sleep:SECONDS  every test sleeps that long in the run phase
 * Read only inside workers; unset in normal use. */
static void inject_faults(exec_t *e) {
  const char *spec = getenv("TORQ_TEST_FAULT");
  if (!spec || !*spec) return;
  char buf[512];
  snprintf(buf, sizeof(buf), "%s", spec);
  char *save = NULL;
  for (char *item = strtok_r(buf, ";", &save); item; item = strtok_r(NULL, ";", &save)) {
    char *arg = strchr(item, ':');
    if (!arg) continue;
    *arg++ = 0;
    if (!strcmp(item, "sleep")) {
      double s = atof(arg);
      struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
      phase(e, "run", e->test->settings.run_timeout_s + s);
      while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
      }
    } else if (!strcmp(item, "crash") && strstr(e->test->id, arg)) {
      phase(e, "run", e->test->settings.run_timeout_s);
      fprintf(stderr, "torq-test: TORQ_TEST_FAULT: crashing on purpose\n");
      signal(SIGSEGV, SIG_DFL); /* a plain crash, also when a sanitizer would catch it */
      raise(SIGSEGV);
    } else if (!strcmp(item, "hang") && strstr(e->test->id, arg)) {
      phase(e, "run", e->test->settings.run_timeout_s);
      for (;;) pause();
    }
  }
}

/* ---- The test ------------------------------------------------------------------------------- */

void tqh__exec_test(tqh__exec_ctx_t *ctx, size_t test, int log_fd, tqh__result_t *r) {
  exec_t e;
  memset(&e, 0, sizeof(e));
  e.ctx = ctx;
  e.test = ctx->tests[test];
  e.dir = ctx->test_dirs[test];
  e.log_fd = log_fd;
  e.r = r;
  tq_buf_init(&e.model_text, 0);

  if (compile_and_load(&e)) {
    inject_faults(&e);
    /* The built-in "main" names the entry point whatever it is called; a function given in a
     * config, suite, environment or command line must exist. */
    const char *want = function_wanted(e.test);
    const char *have = tqr_module_function_name(e.module);
    tq_status_t st = NULL;
    if (want && strcmp(want, have) != 0)
      st = TQ_STATUS(TQ_INVALID_ARGUMENT, "the model has no function '%s' (its entry is '%s')",
                     want, have);
    uint64_t t0 = tqh_now_ns();
    if (!st) st = make_inputs(&e);
    r->run_s += seconds_since(t0);
    if (st) {
      tqh__result_fail_status(r, TQH_OUTCOME_FAILED, "input_error", st);
    } else if (ctx->board ? run_on_board(&e) : run_timed(&e)) {
      int ok = !e.test->settings.reference || check_reference(&e);
      if (ok && ctx->options->profiling &&
          (ctx->board ? annotate_profile(&e) : profile_and_annotate(&e)))
        copy_profiles(&e);
      check_expectations(&e);
    }
  }
  free_outputs(&e);
  tq_free(e.outputs);
  for (size_t i = 0; e.inputs && i < e.num_inputs; i++) tqr_tensor_destroy(e.inputs[i]);
  tq_free(e.inputs);
  tqr_module_destroy(e.module);
  tqc_module_destroy(e.parsed);
  tq_free(e.entry_dir);
  tq_free(e.fetched_path);
  tq_buf_deinit(&e.model_text);
}

/* Makes the test's folder and points the worker's stdout and stderr at its stdout.txt and
 * stderr.txt. */
static tq_status_t redirect_output(const char *dir) {
  static const char *const names[2] = {"stdout.txt", "stderr.txt"};
  char path[4096];
  if (mkdir(dir, 0777) != 0 && errno != EEXIST)
    return TQ_STATUS(TQ_IO, "%s: cannot create the test's folder: %s", dir, strerror(errno));
  for (int i = 0; i < 2; i++) {
    int n = snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
    if (n < 0 || (size_t)n >= sizeof(path)) return TQ_STATUS(TQ_LIMIT, "%s: path too long", dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) return TQ_STATUS(TQ_IO, "%s: cannot create: %s", path, strerror(errno));
    if (dup2(fd, i + 1) < 0) {
      close(fd);
      return TQ_STATUS(TQ_IO, "%s: dup2 failed: %s", path, strerror(errno));
    }
    close(fd);
  }
  /* Line-buffered, so that what a crashing test printed is in the file (set once per worker:
   * the streams stay, only their descriptors change). */
  static int buffering_set;
  if (!buffering_set) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    setvbuf(stderr, NULL, _IONBF, 0);
    buffering_set = 1;
  }
  return NULL;
}

void tqh__exec_main(void *vctx, size_t test, int fd) {
  tqh__exec_ctx_t *ctx = vctx;
  tqh__result_t r;
  tqh__result_init(&r);
  /* What the previous test of this worker printed stays in its own files. */
  fflush(stdout);
  tq_status_t st = redirect_output(ctx->test_dirs[test]);
  if (st) {
    r.infrastructure = 1;
    tqh__result_fail_status(&r, TQH_OUTCOME_ERROR, "infrastructure", st);
  } else {
    tq_status_free(tqh__result_add_file(&r, "stdout.txt"));
    tq_status_free(tqh__result_add_file(&r, "stderr.txt"));
    tqh__exec_test(ctx, test, fd, &r);
  }
  fflush(stdout);
  tq_buf_t msg;
  tq_buf_init(&msg, 0);
  st = tqh__result_encode(&r, &msg);
  if (!st) st = tqh__msg_send(fd, TQH__MSG_RESULT, msg.data, msg.len);
  tq_status_free(st);
  tq_buf_deinit(&msg);
  tqh__result_deinit(&r);
}
