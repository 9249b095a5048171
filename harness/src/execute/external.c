/* An external Torq toolchain (execute_internal.h): torq-compile, torq-run-module and an
 * annotator run as programs with the seed's flags, exactly:
 *
 *     COMPILE MODEL -o model.vmfb --torq-enable-profiling --torq-dump-profiling=trace.csv
 *             --torq-debug-info=DIR [compile_options...]
 *     RUN --module=model.vmfb --input=@input_N.npy ... --output=@output_N.npy ...
 *         [--torq_profile_host=profile.csv] [--function=F]
 *     ANNOTATE DEBUG_DIR profile.csv OUT        once per output: .pb, .csv, .xlsx
 *
 * each from an argv (never a shell line), in a process group of its own that is killed at the
 * phase's timeout. The module is opaque: never loaded here. The inputs come from the suite or,
 * random, from the signature our front end reads in the model; the outputs come back as .npy.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "execute_internal.h"
#include "torq/base/alloc.h"
#include "torq/compiler/ir.h"
#include "torq/formats/element.h"
#include "torq/harness/files.h"
#include "torq/harness/overview.h"
#include "torq/harness/process.h"
#include "torq/harness/profile_csv.h"
#include "torq/harness/subprocess.h"
#include "torq/runtime/input.h"
#include "torq/runtime/npy.h"
#include "torq/runtime/tensor.h"

/* Seconds a phase may take beyond the program's own limit before the runner kills the worker:
 * the program is killed at its limit here, and its failure reported. */
#define SLACK_S 30.0
/* What is kept of a program's stdout and stderr per invocation. */
#define OUTPUT_LIMIT ((size_t)4 << 20)
/* The largest output file read back. */
#define MAX_OUTPUT_BYTES ((size_t)1 << 30)
/* Lines of stderr in a failure's text. */
#define TAIL_LINES 20

static const char *const k_role_keys[TQH_TOOL_COUNT] = {"compile", "run", "annotate"};

static const tqh_tool_t *tool_of(const tqh_execution_t *e, tqh_tool_role_t role) {
  return &e->test->settings.tools[role];
}

/* "torq-compile (/opt/torq/bin/torq-compile)". */
static char *tool_label(const tqh_execution_t *e, tqh_tool_role_t role) {
  const char *path = e->tools[role].path ? e->tools[role].path : tool_of(e, role)->argv[0];
  return tq_strdup_printf("%s (%s)", tqh_tool_role_name(role), path);
}

/* What a program printed goes into the test's stdout.txt and stderr.txt, under a heading. */
static void keep_output(tqh_execution_t *e, const char *heading,
                        const tqh_subprocess_result_t *res) {
  char *head = tq_strdup_printf("== %s ==\n", heading);
  if (head && res->out.len) tqh__exec_output(e->io, 1, head, strlen(head));
  tqh__exec_output(e->io, 1, res->out.data, res->out.len);
  if (head && res->err.len) tqh__exec_output(e->io, 2, head, strlen(head));
  tqh__exec_output(e->io, 2, res->err.data, res->err.len);
  if (res->err_truncated) tqh__exec_output(e->io, 2, "[... stderr truncated ...]\n", 27);
  tq_free(head);
}

/* Judges a finished program: 1 when it succeeded; else the result is failed: a program that
 * cannot start is an ERROR naming it, a timeout an ERROR naming the phase, a signal a crash
 * (ERROR), a non-zero exit `type` (FAILED) with the tail of its stderr. `when` is "" or
 * " in run 2 of 5". */
static int judge(tqh_execution_t *e, tqh_tool_role_t role, const char *phase, double limit_s,
                 const char *when, const tqh_subprocess_result_t *res, const char *type) {
  tqh_test_result_t *r = e->r;
  if (!res->start_errno && !res->timed_out && !res->signal && !res->exit_status) return 1;
  char *label = tool_label(e, role);
  char last[512], tail[4096];
  tqh_subprocess_last_lines(res->err.data, res->err.len, 1, last, sizeof(last));
  if (!last[0]) tqh_subprocess_last_lines(res->out.data, res->out.len, 1, last, sizeof(last));
  tqh_subprocess_last_lines(res->err.data, res->err.len, TAIL_LINES, tail, sizeof(tail));
  const char *sep = last[0] ? ": " : "";
  if (res->start_errno) {
    tqh_test_result_fail(r, TQH_OUTCOME_ERROR, "toolchain", "cannot start %s%s: %s",
                         label ? label : "", when, strerror(res->start_errno));
  } else if (res->timed_out) {
    tqh_test_result_fail(r, TQH_OUTCOME_ERROR, "timeout",
                         "timeout: the %s phase took longer than %gs: %s was killed with its "
                         "process group%s",
                         phase, limit_s, label ? label : "", when);
  } else if (res->signal) {
    char buf[32];
    tqh_test_result_fail(r, TQH_OUTCOME_ERROR, "crash", "%s was killed by %s%s%s%s",
                         label ? label : "", tqh_signal_name(res->signal, buf), when, sep, last);
  } else {
    tqh_test_result_fail(r, TQH_OUTCOME_FAILED, type, "%s failed with exit status %d%s%s%s",
                         label ? label : "", res->exit_status, when, sep, last);
  }
  if (tail[0] && !r->text) r->text = tq_strdup_printf("%s\n", tail);
  tq_free(label);
  return 0;
}

/* Runs `argv` (NULL-terminated) with `timeout_s`, keeps its output under `heading`. */
static tq_status_t run_program(tqh_execution_t *e, const char *const *argv, double timeout_s,
                               const char *heading, tqh_subprocess_result_t *res) {
  tqh_subprocess_options_t o;
  tqh_subprocess_options_initialize(&o);
  o.timeout_s = timeout_s;
  o.output_limit = OUTPUT_LIMIT;
  TQ_TRY(tqh_subprocess_run(argv, &o, res));
  keep_output(e, heading, res);
  return NULL;
}

/* An argv: the tool's, then the arguments the harness adds (owned strings). */
typedef struct argv_s {
  const char **v;
  char **owned;
  size_t n, num_owned, cap;
} argv_t;

static tq_status_t argv_init(argv_t *a, const tqh_tool_t *tool, size_t extra) {
  memset(a, 0, sizeof(*a));
  a->cap = tool->argc + extra + 1;
  a->v = tq_calloc(a->cap, sizeof(char *));
  a->owned = tq_calloc(a->cap, sizeof(char *));
  if (!a->v || !a->owned) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  for (size_t i = 0; i < tool->argc; i++) a->v[a->n++] = tool->argv[i];
  return NULL;
}

static tq_status_t argv_add(argv_t *a, char *s) {
  if (!s) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  if (a->n + 1 >= a->cap) {
    tq_free(s);
    return TQ_STATUS(TQ_LIMIT, "too many arguments");
  }
  a->owned[a->num_owned++] = s;
  a->v[a->n++] = s;
  return NULL;
}

static void argv_deinit(argv_t *a) {
  for (size_t i = 0; i < a->num_owned; i++) tq_free(a->owned[i]);
  tq_free(a->owned);
  tq_free(a->v);
}

static int exists(const char *path) {
  struct stat sb;
  return stat(path, &sb) == 0;
}

/* ---- Compile -------------------------------------------------------------------------------- */

/* Finds and identifies the tools the test uses; their provenance becomes properties. 0 with the
 * result failed when one is missing or the toolchain is incomplete. */
static int identify_tools(tqh_execution_t *e) {
  tqh_test_result_t *r = e->r;
  const tqh_settings_t *s = &e->test->settings;
  if (!s->tools[TQH_TOOL_COMPILE].argc || !s->tools[TQH_TOOL_RUN].argc) {
    tqh_test_result_fail(r, TQH_OUTCOME_ERROR, "toolchain",
                         "toolchain: an external toolchain needs both toolchain_compile (%s) and "
                         "toolchain_run (%s)",
                         s->tools[TQH_TOOL_COMPILE].argc ? "given" : "missing",
                         s->tools[TQH_TOOL_RUN].argc ? "given" : "missing");
    return 0;
  }
  /* On a board that keeps its own runtime, the local one need not exist. */
  int need_run =
      !e->exec->board || (e->exec->board_options && e->exec->board_options->update_runtime);
  for (int role = 0; role < TQH_TOOL_COUNT; role++) {
    if (!s->tools[role].argc) continue;
    tq_status_t st = tqh_tool_identify(&s->tools[role], &e->tools[role]);
    if (st) {
      r->infrastructure = 1;
      tqh_test_result_fail_status(r, TQH_OUTCOME_ERROR, "infrastructure", st);
      return 0;
    }
    tq_buf_t text;
    tq_buf_init(&text, 0);
    char key[32];
    snprintf(key, sizeof(key), "toolchain.%s", k_role_keys[role]);
    st = tqh_tool_identity_format(&e->tools[role], &text);
    if (!st) st = tqh_test_result_add_property(r, key, text.data ? text.data : "");
    tq_buf_deinit(&text);
    tq_status_free(st);
    if (e->tools[role].error && (role != TQH_TOOL_RUN || need_run)) {
      tqh_test_result_fail(r, TQH_OUTCOME_ERROR, "toolchain", "the toolchain's %s: %s",
                           tqh_tool_role_name((tqh_tool_role_t)role), e->tools[role].error);
      return 0;
    }
  }
  return 1;
}

/* The options of the key: the compiler's identity (not its path) and the compile options. */
static tq_status_t canonical_options(const tqh_execution_t *e, tq_buf_t *out) {
  const tqh_tool_t *c = tool_of(e, TQH_TOOL_COMPILE);
  const tqh_tool_identity_t *id = &e->tools[TQH_TOOL_COMPILE];
  TQ_TRY(tq_buf_printf(out, "toolchain external\ncompiler-sha256 %s\ncompiler-version %s\n",
                       id->sha256, id->version ? id->version : ""));
  for (size_t i = 1; i < c->argc; i++)
    TQ_TRY(tq_buf_printf(out, "compiler-argument %s\n", c->argv[i]));
  const tqh_settings_t *s = &e->test->settings;
  for (size_t i = 0; i < s->compile_option_count; i++)
    TQ_TRY(tq_buf_printf(out, "option %s\n", s->compile_options[i]));
  return NULL;
}

/* tqh_compile_cache_fill_fn: the external compiler writes into the fresh entry. A failure of the
 * compiler fails the result (and the fetch). */
static tq_status_t fill_external(void *vctx, const char *dir, tq_buf_t *info) {
  tqh_execution_t *e = vctx;
  const tqh_settings_t *s = &e->test->settings;
  TQ_TRY(tq_buf_printf(
      info, "model %s\ncompiler %s\ncompiler-sha256 %s\ncompiler-version %s\n", e->model_path,
      e->tools[TQH_TOOL_COMPILE].path, e->tools[TQH_TOOL_COMPILE].sha256,
      e->tools[TQH_TOOL_COMPILE].version ? e->tools[TQH_TOOL_COMPILE].version : ""));
  argv_t a;
  tq_status_t st = argv_init(&a, tool_of(e, TQH_TOOL_COMPILE), 8 + s->compile_option_count);
  char *module = tq_strdup_printf("%s/model.vmfb", dir);
  if (!st) st = argv_add(&a, tq_strdup_printf("%s", e->model_path));
  if (!st) st = argv_add(&a, tq_strdup_printf("-o"));
  if (!st) st = argv_add(&a, tq_strdup_printf("%s", module ? module : ""));
  if (!st) st = argv_add(&a, tq_strdup_printf("--torq-enable-profiling"));
  if (!st) st = argv_add(&a, tq_strdup_printf("--torq-dump-profiling=%s/trace.csv", dir));
  if (!st) st = argv_add(&a, tq_strdup_printf("--torq-debug-info=%s/debug", dir));
  for (size_t i = 0; !st && i < s->compile_option_count; i++)
    if (strcmp(s->compile_options[i], "--torq-enable-profiling") != 0)
      st = argv_add(&a, tq_strdup_printf("%s", s->compile_options[i]));
  tqh_subprocess_result_t res;
  tqh_subprocess_result_init(&res);
  if (!st && module) st = run_program(e, a.v, s->compile_timeout_s, "torq-compile", &res);
  if (!st) {
    e->compile_s = res.seconds;
    if (!judge(e, TQH_TOOL_COMPILE, "compile", s->compile_timeout_s, "", &res, "compile_error")) {
      st = TQ_STATUS(TQ_CANCELLED, "the external compiler failed");
    } else if (!exists(module)) {
      char *label = tool_label(e, TQH_TOOL_COMPILE);
      tqh_test_result_fail(e->r, TQH_OUTCOME_FAILED, "compile_error",
                           "%s exited with status 0 but wrote no module", label ? label : "");
      tq_free(label);
      st = TQ_STATUS(TQ_CANCELLED, "the external compiler wrote no module");
    }
  }
  tqh_subprocess_result_deinit(&res);
  tq_free(module);
  argv_deinit(&a);
  return st;
}

int tqh__external_compile(tqh_execution_t *e) {
  tqh_test_result_t *r = e->r;
  const tqh_settings_t *s = &e->test->settings;
  e->external = 1;
  /* Identifying the programs runs each with --version (at most its own limit), then compiles. */
  tqh__exec_phase(e, "compile", s->compile_timeout_s * 2 + TQH_TOOL_COUNT * 30 + SLACK_S);
  if (!identify_tools(e)) return 0;
  /* The key: the model's bytes and the compiler's identity; the harness's own build is not in
   * it (the built-in compiler's identity is replaced). */
  tqh_compile_cache_t cache = *e->exec->cache;
  snprintf(cache.identity, sizeof(cache.identity), "external-toolchain");
  tq_buf_t canonical;
  tq_buf_init(&canonical, 0);
  tq_status_t st = canonical_options(e, &canonical);
  if (!st)
    st = tqh_compile_cache_key(&cache, e->model_text.data ? e->model_text.data : "",
                               e->model_text.len, canonical.data, e->cache_key);
  tq_buf_deinit(&canonical);
  if (st) {
    r->infrastructure = 1;
    tqh_test_result_fail_status(r, TQH_OUTCOME_ERROR, "infrastructure", st);
    return 0;
  }
  tqh__exec_phase(e, "compile", s->compile_timeout_s + SLACK_S);
  int hit = 0;
  st = tqh_compile_cache_fetch(e->exec->cache, e->cache_key, fill_external, e, &e->entry_dir, &hit);
  r->cache = hit ? TQH_CACHE_HIT : TQH_CACHE_MISS;
  r->compile_s = e->compile_s;
  if (st) {
    if (r->outcome == TQH_OUTCOME_PASSED) {
      r->infrastructure = 1;
      tqh_test_result_fail_status(r, TQH_OUTCOME_ERROR, "infrastructure", st);
    } else {
      tq_status_free(st);
    }
    return 0;
  }
  tqh__exec_log(e, "compile: %s (%s) by %s", hit ? "cache hit" : "compiled", e->cache_key,
                e->tools[TQH_TOOL_COMPILE].path);
  st = tqh__exec_link_compile_outputs(e, 1);
  if (st) {
    r->infrastructure = 1;
    tqh_test_result_fail_status(r, TQH_OUTCOME_ERROR, "infrastructure", st);
    return 0;
  }
  return 1;
}

/* ---- Inputs --------------------------------------------------------------------------------- */

/* A tensor of the function type's input `index` (a static tensor of a type the runtime has). */
static tq_status_t tensor_of_type(const void *signature, size_t index, tqr_tensor_t **out) {
  const tqc_type_t *ty = ((const tqc_type_t *)signature)->function.inputs[index];
  *out = NULL;
  if (!ty || ty->kind != TQC_TYPE_TENSOR || !ty->tensor.ranked || ty->tensor.rank > TQR_MAX_RANK)
    return TQ_STATUS(TQ_UNIMPLEMENTED, "input %zu is not a ranked tensor", index);
  for (size_t d = 0; d < ty->tensor.rank; d++)
    if (ty->tensor.dims[d] < 0)
      return TQ_STATUS(TQ_UNIMPLEMENTED, "input %zu has a dynamic dimension", index);
  const tqc_type_t *el = ty->tensor.element;
  char name[16] = "";
  if (el->kind == TQC_TYPE_INTEGER)
    snprintf(name, sizeof(name), "%s%u", el->integer.signedness == TQC_UNSIGNED ? "ui" : "i",
             el->integer.width);
  else if (el->kind == TQC_TYPE_FLOAT)
    snprintf(name, sizeof(name), "%s",
             el->flt.fkind == TQC_BF16  ? "bf16"
             : el->flt.fkind == TQC_F16 ? "f16"
             : el->flt.fkind == TQC_F32 ? "f32"
                                        : "f64");
  Torq__ElementType et;
  if (!name[0] || !tqf_element_parse(tq_sv_cstr(name), &et))
    return TQ_STATUS(TQ_UNIMPLEMENTED, "input %zu has an element type the runtime lacks", index);
  return tqr_tensor_create(et, ty->tensor.rank, ty->tensor.dims, out);
}

/* The inputs (the suite's, or random ones for the signature our front end reads), and the
 * number of outputs (the signature's, else the golden files'). */
static tq_status_t make_inputs(tqh_execution_t *e) {
  const tqh_test_t *t = e->test;
  const tqc_type_t *fty = NULL;
  tq_status_t pst = tqh__exec_parse_model(e);
  if (!pst) {
    const char *want = tqh__exec_function_wanted(t);
    const tqc_op_t *fn =
        want ? tqc_module_lookup_func(e->parsed, want) : tqc_module_entry(e->parsed);
    fty = fn ? tqc_func_type(fn) : NULL;
    if (fty && fty->kind != TQC_TYPE_FUNCTION) fty = NULL;
  }
  size_t n = t->inputs_random ? (fty ? fty->function.num_inputs : 0) : t->input_count;
  if (t->inputs_random && !fty) {
    tq_status_t st = TQ_STATUS(TQ_INVALID_ARGUMENT,
                               "random inputs need the model's signature, which torq-test cannot "
                               "read%s%s; give the inputs in the suite (inputs: [...])",
                               pst ? ": " : "", pst ? tq_status_message(pst) : "");
    tq_status_free(pst);
    return st;
  }
  tq_status_free(pst);
  TQ_TRY(tqh__exec_make_inputs(e, n, fty ? fty->function.num_inputs : SIZE_MAX, "the model", fty,
                               tensor_of_type));
  e->num_outputs = fty ? fty->function.num_results : t->settings.golden_count;
  e->outputs = tq_calloc(e->num_outputs + 1, sizeof(*e->outputs));
  if (!e->outputs) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  /* As .npy files in the test's folder: what the runtime reads (on a board, the board's run
   * writes and uploads them). */
  for (size_t i = 0; !e->exec->board && i < n; i++) {
    char name[32];
    snprintf(name, sizeof(name), "input_%zu.npy", i);
    tq_buf_t path;
    tq_buf_init(&path, 0);
    tq_status_t st = tqh__exec_path_in(e, name, &path);
    if (!st) st = tqr_npy_write(path.data, e->inputs[i]);
    if (!st) st = tqh_test_result_add_file(e->r, name);
    tq_buf_deinit(&path);
    TQ_TRY(st);
  }
  return NULL;
}

/* ---- Run ------------------------------------------------------------------------------------ */

static tq_status_t run_argv(tqh_execution_t *e, argv_t *a) {
  TQ_TRY(argv_init(a, tool_of(e, TQH_TOOL_RUN), 4 + e->num_inputs + e->num_outputs));
  TQ_TRY(argv_add(a, tq_strdup_printf("--module=%s/model.vmfb", e->dir)));
  for (size_t i = 0; i < e->num_inputs; i++)
    TQ_TRY(argv_add(a, tq_strdup_printf("--input=@%s/input_%zu.npy", e->dir, i)));
  for (size_t o = 0; o < e->num_outputs; o++)
    TQ_TRY(argv_add(a, tq_strdup_printf("--output=@%s/output_%zu.npy", e->dir, o)));
  if (e->exec->profiling)
    TQ_TRY(argv_add(a, tq_strdup_printf("--torq_profile_host=%s/profile.csv", e->dir)));
  const char *fn = tqh__exec_function_wanted(e->test);
  if (fn) TQ_TRY(argv_add(a, tq_strdup_printf("--function=%s", fn)));
  return NULL;
}

/* Warm-up and timed runs of the external runtime, each a process; wall time around each. */
static int run_local(tqh_execution_t *e) {
  tqh_test_result_t *r = e->r;
  const tqh_settings_t *s = &e->test->settings;
  argv_t a;
  tq_status_t st = run_argv(e, &a);
  r->samples = tq_calloc(s->repeat + 1, sizeof(double));
  if (!st && !r->samples) st = TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  tqh_subprocess_result_t res;
  tqh_subprocess_result_init(&res);
  int ok = 1;
  uint32_t runs = s->warmup + s->repeat;
  for (uint32_t i = 0; !st && ok && i < runs; i++) {
    int timed = i >= s->warmup;
    char when[64] = "";
    if (!timed)
      snprintf(when, sizeof(when), " in warm-up run %u", i + 1);
    else if (s->repeat > 1)
      snprintf(when, sizeof(when), " in run %u of %u", i - s->warmup + 1, s->repeat);
    char heading[96];
    snprintf(heading, sizeof(heading), "torq-run-module%s", when);
    tqh__exec_phase(e, "run", s->run_timeout_s + SLACK_S);
    st = run_program(e, a.v, s->run_timeout_s, heading, &res);
    if (st) break;
    r->run_s += res.seconds;
    ok = judge(e, TQH_TOOL_RUN, "run", s->run_timeout_s, when, &res, "runtime_error");
    if (!ok || !timed) continue;
    r->samples[r->num_samples++] = res.seconds;
    r->has_wall_time = 1;
    if (s->repeat > 1)
      tqh__exec_log(e, "Wall time: %.6fs (run %u of %u)", res.seconds, i - s->warmup + 1,
                    s->repeat);
    else
      tqh__exec_log(e, "Wall time: %.6fs", res.seconds);
  }
  tqh_subprocess_result_deinit(&res);
  argv_deinit(&a);
  if (st) {
    r->infrastructure = 1;
    tqh_test_result_fail_status(r, TQH_OUTCOME_ERROR, "infrastructure", st);
    return 0;
  }
  if (!ok) return 0;
  /* The outputs the last run wrote. */
  for (size_t o = 0; o < e->num_outputs; o++) {
    char name[32];
    snprintf(name, sizeof(name), "output_%zu.npy", o);
    tq_buf_t path;
    tq_buf_init(&path, 0);
    st = tqh__exec_path_in(e, name, &path);
    if (!st && !exists(path.data)) {
      char *label = tool_label(e, TQH_TOOL_RUN);
      tqh_test_result_fail(r, TQH_OUTCOME_FAILED, "runtime_error", "%s succeeded but wrote no %s",
                           label ? label : "", name);
      tq_free(label);
      tq_buf_deinit(&path);
      return 0;
    }
    if (!st) st = tqr_npy_read(path.data, MAX_OUTPUT_BYTES, &e->outputs[o]);
    tq_buf_deinit(&path);
    if (st) {
      tqh_test_result_fail_status(r, TQH_OUTCOME_FAILED, "runtime_error",
                                  tq_status_annotate(st, "an output the runtime wrote"));
      return 0;
    }
    tq_status_free(tqh_test_result_add_file(r, name));
  }
  if (e->exec->profiling) {
    tq_buf_t path;
    tq_buf_init(&path, 0);
    if (!tqh__exec_path_in(e, "profile.csv", &path) && exists(path.data))
      tq_status_free(tqh_test_result_add_file(r, "profile.csv"));
    tq_buf_deinit(&path);
  }
  return 1;
}

int tqh__external_run(tqh_execution_t *e) {
  tqh_test_result_t *r = e->r;
  uint64_t t0 = tqh_now_ns();
  tq_status_t st = make_inputs(e);
  r->run_s += tqh__exec_seconds_since(t0);
  if (st) {
    tq_status_code_t code = tq_status_code(st);
    if (code == TQ_OUT_OF_MEMORY || code == TQ_IO) {
      r->infrastructure = 1;
      tqh_test_result_fail_status(r, TQH_OUTCOME_ERROR, "infrastructure", st);
    } else {
      tqh_test_result_fail_status(r, TQH_OUTCOME_FAILED, "input_error", st);
    }
    return 0;
  }
  /* On a board the board's copy of the runtime runs (--update-astra-runtime copies this one). */
  return e->exec->board ? tqh__exec_run_on_board(e, e->tools[TQH_TOOL_RUN].path) : run_local(e);
}

/* ---- Profile -------------------------------------------------------------------------------- */

/* The external annotator, once per output: profile.pb (required: the overview is read from it),
 * then annotated.csv and profile.xlsx (a failure there is a note). */
static int annotate_external(tqh_execution_t *e) {
  tqh_test_result_t *r = e->r;
  static const char *const outputs[] = {"profile.pb", "annotated.csv", "profile.xlsx"};
  double limit = e->test->settings.compile_timeout_s;
  tq_status_t st = NULL;
  for (size_t i = 0; !st && i < 3; i++) {
    argv_t a;
    st = argv_init(&a, tool_of(e, TQH_TOOL_ANNOTATE), 4);
    if (!st) st = argv_add(&a, tq_strdup_printf("%s/debug", e->dir));
    if (!st) st = argv_add(&a, tq_strdup_printf("%s/profile.csv", e->dir));
    if (!st) st = argv_add(&a, tq_strdup_printf("%s/%s", e->dir, outputs[i]));
    tqh_subprocess_result_t res;
    tqh_subprocess_result_init(&res);
    char heading[64];
    snprintf(heading, sizeof(heading), "annotator: %s", outputs[i]);
    tqh__exec_phase(e, "profile", limit + SLACK_S);
    if (!st) st = run_program(e, a.v, limit, heading, &res);
    argv_deinit(&a);
    tq_buf_t path;
    tq_buf_init(&path, 0);
    if (!st) st = tqh__exec_path_in(e, outputs[i], &path);
    int wrote = !st && !res.start_errno && !res.timed_out && !res.signal && !res.exit_status &&
                exists(path.data);
    if (!st && wrote) st = tqh_test_result_add_file(r, outputs[i]);
    if (!st && !wrote && i == 0) {
      if (judge(e, TQH_TOOL_ANNOTATE, "profile", limit, "", &res, "annotation_error")) {
        char *label = tool_label(e, TQH_TOOL_ANNOTATE);
        tqh_test_result_fail(r, TQH_OUTCOME_FAILED, "annotation_error",
                             "%s exited with status 0 but wrote no %s", label ? label : "",
                             outputs[i]);
        tq_free(label);
      }
      tq_buf_deinit(&path);
      tqh_subprocess_result_deinit(&res);
      return 0;
    }
    if (!st && !wrote) {
      char last[256];
      tqh_subprocess_last_lines(res.err.data, res.err.len, 1, last, sizeof(last));
      tqh__exec_note(e, "the annotator did not write %s (%s%s%s)", outputs[i],
                     res.start_errno ? "cannot start"
                     : res.timed_out ? "timed out"
                                     : "failed",
                     last[0] ? ": " : "", last);
    }
    tq_buf_deinit(&path);
    tqh_subprocess_result_deinit(&res);
  }
  tq_buf_t pb;
  tq_buf_init(&pb, 0);
  if (!st) st = tqh__exec_path_in(e, "profile.pb", &pb);
  if (!st) st = tqh__exec_read_overview(pb.data, r);
  tq_buf_deinit(&pb);
  if (st) {
    tqh_test_result_fail_status(r, TQH_OUTCOME_FAILED, "annotation_error", st);
    return 0;
  }
  return 1;
}

/* Without an annotator: what profile.csv alone tells. */
static int overview_from_csv(tqh_execution_t *e, const char *csv) {
  tqh_test_result_t *r = e->r;
  tqh_diags_t diags;
  tqh_diags_init(&diags);
  tqh_profile_t profile;
  tqh_profile_init(&profile);
  tqh_overview_t ov;
  tqh_overview_init(&ov);
  tq_status_t st = tqh_profile_read(csv, &diags, &profile);
  if (!st) st = tqh_overview_from_profile(&profile, &ov);
  for (size_t i = 0; !st && i < ov.count; i++)
    st = tqh_test_result_add_metric(r, ov.metrics[i].name, (double)ov.metrics[i].ns / 1e3);
  if (!st && diags.count) {
    tq_buf_t text;
    tq_buf_init(&text, 0);
    if (!tqh_diags_format(&diags, &text) && text.data)
      tqh__exec_output(e->io, 2, text.data, text.len);
    tq_buf_deinit(&text);
  }
  if (!st) {
    static const char what[] =
        "from profile.csv alone (no annotator): OVERALL, NSS Programs, Host, Host Copy, Hal";
    tq_status_free(tqh_test_result_add_property(r, "overview", what));
    tqh__exec_note(e, "overview %s", what);
  }
  tqh_profile_deinit(&profile);
  tqh_overview_deinit(&ov);
  tqh_diags_deinit(&diags);
  if (st) {
    tqh_test_result_fail_status(r, TQH_OUTCOME_FAILED, "annotation_error", st);
    return 0;
  }
  return 1;
}

int tqh__external_profile(tqh_execution_t *e) {
  tqh_test_result_t *r = e->r;
  tq_buf_t csv;
  tq_buf_init(&csv, 0);
  tq_status_t st = tqh__exec_path_in(e, "profile.csv", &csv);
  if (st || !exists(csv.data)) {
    tq_buf_deinit(&csv);
    if (st) tq_status_free(st);
    char *label = tool_label(e, TQH_TOOL_RUN);
    tqh_test_result_fail(r, TQH_OUTCOME_FAILED, "annotation_error",
                         "%s wrote no profile.csv (--torq_profile_host)", label ? label : "");
    tq_free(label);
    return 0;
  }
  int ok =
      tool_of(e, TQH_TOOL_ANNOTATE)->argc ? annotate_external(e) : overview_from_csv(e, csv.data);
  tq_buf_deinit(&csv);
  if (ok) tqh__exec_copy_profiles(e);
  return ok;
}
