/* Our results against an independent oracle: MLIR 22's own TOSA lowering, run by
 * ../shared/tools/mlir_oracle.py (oracle.h), which shares no code with our compiler, simulator or
 * reference interpreter. Each model is compiled (tqc_compile), run once on the simulator through
 * a session on seeded random inputs (the same inputs as the corpus end-to-end test), and every
 * output is compared with the oracle's answer for the same inputs:
 *
 *   - integers (and booleans) exactly;
 *   - floats within |ours - oracle| <= atol + rtol * |oracle| (table `tolerances` below), NaN
 *     only against NaN, an infinity only against the same infinity.
 *
 * Three sets of models: the corpus ($TORQ_TESTDATA/tosa_ops), the generated set
 * (runtime/tests/oracle/generate_models.py: every op whose arithmetic we compute, in every
 * element type the compiler accepts for it, with edge shapes) and the front-end models
 * (compiler/tests/models: what MLIR 22 verifies and Torq models use). A model outside agreement
 * must be listed in runtime/tests/oracle/exceptions.txt with its reason, so that a new
 * disagreement fails, and a listed model that agrees fails too (the list stays true). Each
 * spec-undefined exception names the input range inside which TOSA defines the result; the
 * model is run again with inputs in that range and must then agree exactly.
 *
 * $TORQ_ORACLE_SEEDS (default 1) runs every model on that many input sets: `make check-oracle`
 * is the larger sweep. */
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helpers.h"
#include "oracle.h"
#include "suites.h"
#include "torq/base/alloc.h"
#include "torq/base/file.h"
#include "torq/compiler/compile.h"
#include "torq/compiler/ir.h"
#include "torq/compiler/mlir.h"
#include "torq/runtime/input.h"
#include "torq/runtime/npy.h"
#include "tq_test.h"

/* ---- Tolerance ------------------------------------------------------------------------------
 * Integers: exact. Floats: the oracle and we may differ legitimately by the order of a sum (a
 * convolution, a matmul, a reduction), by the C library's versus LLVM's exp, tanh, sigmoid, and
 * by the rounding of a result near a tie: bf16 by 1e-2 relative (about one unit in the last of
 * its 8 bits) and f16 by 4e-3 (4 units of its 11 bits), f32 by 1e-4 relative; atol 1e-3 covers
 * results near zero, which come from the cancellation of terms of the inputs' size (random
 * inputs lie in [-1, 1)). */
typedef struct tolerance_s {
  Torq__ElementType type;
  double rtol, atol;
} tolerance_t;

static const tolerance_t tolerances[] = {
    {TORQ__ELEMENT_TYPE__F32, 1e-4, 1e-3},
    {TORQ__ELEMENT_TYPE__F16, 4e-3, 1e-3},
    {TORQ__ELEMENT_TYPE__BF16, 1e-2, 1e-3},
};

static const tolerance_t *tolerance_of(Torq__ElementType type) {
  for (size_t i = 0; i < sizeof(tolerances) / sizeof(tolerances[0]); i++)
    if (tolerances[i].type == type) return &tolerances[i];
  return NULL;
}

static double element_f64(const tqr_tensor_t *t, size_t i) {
  const uint8_t *p = t->data + i * tqf_element_size(t->type);
  switch (t->type) {
    case TORQ__ELEMENT_TYPE__F32: {
      float f;
      memcpy(&f, p, 4);
      return f;
    }
    case TORQ__ELEMENT_TYPE__BF16: {
      uint16_t b;
      memcpy(&b, p, 2);
      return tqs_bf16_to_f32(b);
    }
    case TORQ__ELEMENT_TYPE__F16: {
      uint16_t b;
      memcpy(&b, p, 2);
      return tqs_f16_to_f32(b);
    }
    default:
      return (double)tqf_element_load_int(p, t->type);
  }
}

/* The verdict on one output. */
typedef struct verdict_s {
  int agree;
  size_t differ;       /* elements outside agreement */
  size_t first;        /* the first of them */
  double ours, theirs; /* its values */
  double max_err;      /* floats: the largest |ours - theirs| of finite pairs */
  int bit_exact;
  char why[256]; /* shape or type mismatch */
} verdict_t;

/* Compares our output `ours` with the oracle's `theirs`. */
static void compare(const tqr_tensor_t *ours, const tqr_tensor_t *theirs, verdict_t *v) {
  memset(v, 0, sizeof(*v));
  int same_shape = ours->rank == theirs->rank;
  for (size_t d = 0; same_shape && d < ours->rank; d++)
    same_shape = ours->dims[d] == theirs->dims[d];
  if (ours->type != theirs->type || !same_shape) {
    tq_buf_t a, b;
    tq_buf_init(&a, 0);
    tq_buf_init(&b, 0);
    tq_status_free(tqr_tensor_format_type(ours, &a));
    tq_status_free(tqr_tensor_format_type(theirs, &b));
    snprintf(v->why, sizeof(v->why), "we give %s, the oracle %s", a.data ? a.data : "?",
             b.data ? b.data : "?");
    tq_buf_deinit(&a);
    tq_buf_deinit(&b);
    v->differ = 1;
    return;
  }
  size_t n = tqr_tensor_count(ours);
  v->bit_exact = ours->size == 0 || memcmp(ours->data, theirs->data, ours->size) == 0;
  const tolerance_t *tol = tolerance_of(ours->type);
  for (size_t i = 0; i < n && !v->bit_exact; i++) {
    double a = element_f64(ours, i), b = element_f64(theirs, i);
    int ok;
    if (!tol) {
      ok = a == b;
    } else if (isnan(a) || isnan(b)) {
      ok = isnan(a) && isnan(b);
    } else if (isinf(a) || isinf(b)) {
      ok = a == b;
    } else {
      double err = fabs(a - b);
      if (err > v->max_err) v->max_err = err;
      ok = err <= tol->atol + tol->rtol * fabs(b);
    }
    if (!ok && v->differ++ == 0) {
      v->first = i;
      v->ours = a;
      v->theirs = b;
    }
  }
  v->agree = v->differ == 0;
}

/* ---- Exceptions ----------------------------------------------------------------------------- */

#define MAX_EXCEPTIONS 64

typedef struct exception_s {
  char model[160]; /* "corpus/rescale-i32-i32" */
  char kind[32];   /* spec-undefined or difference */
  int64_t lo, hi;  /* spec-undefined: the input range in which TOSA defines the result */
  char reason[512];
  int exists, seen, agreed;
} exception_t;

typedef struct exceptions_s {
  exception_t e[MAX_EXCEPTIONS];
  size_t n;
  char path[PATH_MAX];
} exceptions_t;

/* Reads runtime/tests/oracle/exceptions.txt: "MODEL KIND [inputs=LO..HI] REASON" per line, '#'
 * comments. */
static void exceptions_read(exceptions_t *x) {
  memset(x, 0, sizeof(*x));
  snprintf(x->path, sizeof(x->path), "%.*s/runtime/tests/oracle/exceptions.txt", PATH_MAX - 64,
           tq_test_top());
  FILE *f = fopen(x->path, "r");
  ck_assert_msg(f != NULL, "%s: cannot open it", x->path);
  char line[1024];
  int lineno = 0;
  while (fgets(line, sizeof(line), f)) {
    lineno++;
    char *p = line + strspn(line, " \t");
    if (*p == '#' || *p == '\n' || *p == 0) continue;
    ck_assert_msg(x->n < MAX_EXCEPTIONS, "%s:%d: more than %d exceptions", x->path, lineno,
                  MAX_EXCEPTIONS);
    exception_t *e = &x->e[x->n++];
    int used = 0;
    ck_assert_msg(sscanf(p, "%159s %31s %n", e->model, e->kind, &used) == 2,
                  "%s:%d: expected MODEL KIND REASON", x->path, lineno);
    p += used;
    int spec = strcmp(e->kind, "spec-undefined") == 0;
    ck_assert_msg(spec || strcmp(e->kind, "difference") == 0,
                  "%s:%d: kind %s is neither spec-undefined nor difference", x->path, lineno,
                  e->kind);
    if (spec) {
      long long lo, hi;
      ck_assert_msg(sscanf(p, "inputs=%lld..%lld %n", &lo, &hi, &used) == 2 && lo <= hi,
                    "%s:%d: a spec-undefined exception names its domain: inputs=LO..HI", x->path,
                    lineno);
      e->lo = lo;
      e->hi = hi;
      p += used;
    }
    size_t len = strcspn(p, "\n");
    ck_assert_msg(len > 20, "%s:%d: the reason is missing or too short", x->path, lineno);
    snprintf(e->reason, sizeof(e->reason), "%.*s", (int)len, p);
    for (size_t i = 0; i + 1 < x->n; i++)
      ck_assert_msg(strcmp(x->e[i].model, e->model) != 0, "%s:%d: %s is listed twice", x->path,
                    lineno, e->model);
  }
  fclose(f);
}

static exception_t *exception_find(exceptions_t *x, const char *model) {
  for (size_t i = 0; i < x->n; i++)
    if (strcmp(x->e[i].model, model) == 0) return &x->e[i];
  return NULL;
}

/* ---- Models --------------------------------------------------------------------------------- */

typedef struct model_s {
  char name[160]; /* "<set>/<file name without .mlir>" */
  char path[PATH_MAX];
  char oracle_path[PATH_MAX]; /* what the oracle reads: the model, or our printed form of it */
  uint64_t seed;
  tqr_module_t *module;
  tqr_tensor_t *in[ORACLE_MAX_IO];
  size_t n_in, n_out;
  oracle_job_t job;
  char failure[768]; /* compile or run failure (not a disagreement) */
} model_t;

/* FNV-1a of the file name: the corpus end-to-end test's seed, so both see the same inputs. */
static uint64_t seed_of(const char *file) {
  uint64_t h = UINT64_C(14695981039346656037);
  for (const unsigned char *p = (const unsigned char *)file; *p; p++)
    h = (h ^ *p) * UINT64_C(1099511628211);
  return h;
}

static void set_failure(model_t *m, const char *step, tq_status_t st) {
  char *text = tq_status_format(st, 0);
  snprintf(m->failure, sizeof(m->failure), "%s: %s", step, text ? text : "?");
  free(text);
  tq_status_free(st);
}

/* Integers uniform in [lo, hi] (clipped to the type), from a splitmix64 stream. */
static void fill_range(tqr_tensor_t *t, uint64_t seed, int64_t lo, int64_t hi) {
  const tqf_element_info_t *info = tqf_element_info(t->type);
  if (lo < info->min) lo = info->min;
  if (hi > info->max) hi = info->max;
  uint64_t span = (uint64_t)hi - (uint64_t)lo + 1, s = seed;
  size_t n = tqr_tensor_count(t);
  for (size_t i = 0; i < n; i++) {
    uint64_t z = (s += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    z ^= z >> 31;
    int64_t v = (int64_t)((uint64_t)lo + (span ? z % span : z));
    tqf_element_store_int(t->data + i * info->size, t->type, v);
  }
}

/* Compiles the model; a failure is recorded in m->failure. Returns 1 on success. */
static int model_compile(model_t *m) {
  tqc_module_t *src = NULL;
  tqc_compiled_t *compiled = NULL;
  tq_buf_t packed;
  tq_buf_init(&packed, 0);
  tq_status_t st;
  if ((st = tqc_module_parse_file(m->path, NULL, &src)) || (st = tqc_module_verify(src)) ||
      (st = tqc_compile(src, NULL, &compiled)) || (st = tqc_compiled_pack(compiled, &packed)) ||
      (st = tqr_module_load(m->name, packed.data, packed.len, NULL, &m->module)))
    set_failure(m, "compile", st);
  tq_buf_deinit(&packed);
  tqc_compiled_destroy(compiled);
  tqc_module_destroy(src);
  if (!m->module) return 0;
  const Torq__Function *fn = tqr_module_proto(m->module)->function;
  m->n_in = fn->n_inputs;
  m->n_out = fn->n_outputs;
  snprintf(m->job.model, sizeof(m->job.model), "%s", m->oracle_path[0] ? m->oracle_path : m->path);
  if (m->n_in <= ORACLE_MAX_IO && m->n_out <= ORACLE_MAX_IO) return 1;
  snprintf(m->failure, sizeof(m->failure), "%zu inputs, %zu outputs: more than the test's %d",
           m->n_in, m->n_out, ORACLE_MAX_IO);
  m->n_in = 0;
  return 0;
}

/* Compiles the model and writes seeded random inputs into `dir` (input set `sweep`); a failure
 * is recorded in m->failure. `domain` (NULL: full range) limits integer inputs to
 * [domain->lo, domain->hi]. */
static void model_prepare(const oracle_t *o, model_t *m, const char *dir, size_t sweep,
                          const exception_t *domain) {
  if (!model_compile(m)) return;
  const Torq__Function *fn = tqr_module_proto(m->module)->function;
  m->job.n_inputs = m->n_in;
  uint64_t seed = m->seed + sweep * UINT64_C(0x9E3779B97F4A7C15);
  for (size_t i = 0; i < m->n_in; i++) {
    const Torq__TensorType *t = fn->inputs[i];
    TQ_CK(tqr_tensor_create(t->element_type, t->n_dims, t->dims, &m->in[i]));
    if (domain && !tqf_element_is_float(t->element_type))
      fill_range(m->in[i], seed + i, domain->lo, domain->hi);
    else
      tqr_input_random_fill(m->in[i], seed, i);
    snprintf(m->job.inputs[i], PATH_MAX, "%.*s/in%zu.npy", PATH_MAX - 32, dir, i);
    TQ_CK(tqr_npy_write(m->job.inputs[i], m->in[i]));
  }
  oracle_prepare(o, &m->job);
}

static void model_release(model_t *m) {
  for (size_t i = 0; i < ORACLE_MAX_IO; i++) tqr_tensor_destroy(m->in[i]);
  tqr_module_destroy(m->module);
  memset(m->in, 0, sizeof(m->in));
  m->module = NULL;
}

/* ---- A run over a set ----------------------------------------------------------------------- */

typedef struct totals_s {
  size_t models, agree, excepted, outputs, int_outputs, float_outputs, float_bit_exact;
  size_t cached, asked;
  double max_float_err, oracle_seconds;
  size_t failures;
  char text[32768]; /* one line per failure */
} totals_t;

static void record_failure(totals_t *t, const char *fmt, ...) TQ_PRINTF(2, 3);
static void record_failure(totals_t *t, const char *fmt, ...) {
  size_t len = strlen(t->text);
  t->failures++;
  if (len + 4 >= sizeof(t->text)) return;
  t->text[len++] = '\n';
  t->text[len++] = ' ';
  t->text[len++] = ' ';
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(t->text + len, sizeof(t->text) - len, fmt, ap);
  va_end(ap);
}

/* Runs model `m` on the simulator and compares with the oracle's answer; 1 when all outputs
 * agree, 0 when one does not (described in `diff`), -1 on a failure (recorded in `t`). */
static int model_check(model_t *m, totals_t *t, char *diff, size_t cap) {
  diff[0] = 0;
  if (m->failure[0]) {
    record_failure(t, "%s: %s", m->name, m->failure);
    return -1;
  }
  if (!m->job.answered) {
    snprintf(diff, cap, "the oracle gives no answer: %s", m->job.error);
    return 0;
  }
  tqr_device_t *dev = NULL;
  tqr_session_t *session = NULL;
  tqr_tensor_t *out[ORACLE_MAX_IO] = {0};
  int result = 1;
  tq_status_t st;
  TQ_CK(tqr_device_sim_create(&dev));
  if ((st = tqr_session_create(m->module, dev, NULL, &session)) ||
      (st = tqr_session_invoke(session, (const tqr_tensor_t *const *)m->in, m->n_in, out,
                               m->n_out))) {
    set_failure(m, "simulator", st);
    record_failure(t, "%s: %s", m->name, m->failure);
    result = -1;
    goto done;
  }
  for (size_t k = 0; k < m->n_out; k++) {
    char path[PATH_MAX];
    oracle_output_path(&m->job, k, path);
    tqr_tensor_t *theirs = NULL;
    if ((st = tqr_npy_read(path, 0, &theirs))) {
      set_failure(m, "the oracle's output", st);
      record_failure(t, "%s: %s", m->name, m->failure);
      result = -1;
      goto done;
    }
    verdict_t v;
    compare(out[k], theirs, &v);
    t->outputs++;
    if (tolerance_of(out[k]->type)) {
      t->float_outputs++;
      t->float_bit_exact += v.bit_exact;
      if (v.agree && v.max_err > t->max_float_err) t->max_float_err = v.max_err;
    } else {
      t->int_outputs++;
    }
    if (!v.agree && result == 1) {
      if (v.why[0])
        snprintf(diff, cap, "output %zu: %s", k, v.why);
      else
        snprintf(diff, cap,
                 "output %zu (%s): Number of differences: %zu of %zu; first at %zu: ours %.9g, "
                 "the oracle's %.9g",
                 k, tqf_element_name(out[k]->type), v.differ, tqr_tensor_count(out[k]), v.first,
                 v.ours, v.theirs);
      result = 0;
    }
    tqr_tensor_destroy(theirs);
  }
done:
  for (size_t k = 0; k < ORACLE_MAX_IO; k++) tqr_tensor_destroy(out[k]);
  tqr_session_destroy(session);
  tqr_device_destroy(dev);
  return result;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void remove_tree(const char *dir);

/* Our printed form of the model at `path` (tqc_module_print: MLIR 22's generic form) in `out`. */
static void print_model(const char *path, const char *out) {
  tqc_module_t *m = NULL;
  tq_buf_t text;
  tq_buf_init(&text, 0);
  TQ_CK(tqc_module_parse_file(path, NULL, &m));
  TQ_CK(tqc_module_verify(m));
  TQ_CK(tqc_module_print(m, &text));
  TQ_CK(tq_file_write_atomic(out, text.data, text.len));
  tq_buf_deinit(&text);
  tqc_module_destroy(m);
}

/* Runs the models (their paths; names "<set>/<stem>") through both sides `sweeps` times and
 * judges them against the exceptions. `domain_run`: run only the spec-undefined exceptions,
 * with inputs inside their domain, where they must agree. `printed`: the oracle reads our
 * printed form of each model, not the model (whose spelling MLIR 22 may not accept). */
static void check_set(const oracle_t *o, const char *set, char **paths, size_t n, exceptions_t *x,
                      int domain_run, int printed, totals_t *t) {
  const char *sw = getenv("TORQ_ORACLE_SEEDS");
  size_t sweeps = sw && *sw ? strtoul(sw, NULL, 10) : 1;
  if (sweeps < 1 || domain_run) sweeps = 1;
  /* Under valgrind every tenth model runs, to keep the time reasonable. */
  size_t every = getenv("TORQ_VALGRIND") ? 10 : 1;
  char tmp[PATH_MAX];
  tmpdir_make(tmp);
  model_t *models = calloc(n, sizeof(*models));
  ck_assert_ptr_nonnull(models);
  for (size_t s = 0; s < sweeps; s++) {
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
      model_t *m = &models[used];
      memset(m, 0, sizeof(*m));
      const char *file = strrchr(paths[i], '/') ? strrchr(paths[i], '/') + 1 : paths[i];
      size_t stem = strlen(file) > 5 ? strlen(file) - 5 : strlen(file);
      snprintf(m->name, sizeof(m->name), "%s/%.*s", set, (int)stem, file);
      exception_t *e = exception_find(x, m->name);
      if (e) e->exists = 1;
      if (domain_run && (!e || strcmp(e->kind, "spec-undefined") != 0)) continue;
      if (!domain_run && i % every != 0) continue;
      snprintf(m->path, sizeof(m->path), "%s", paths[i]);
      m->seed = seed_of(file);
      char dir[PATH_MAX];
      snprintf(dir, sizeof(dir), "%.*s/%zu-%zu", PATH_MAX - 64, tmp, s, i);
      ck_assert_int_eq(mkdir(dir, 0700), 0);
      if (printed) {
        snprintf(m->oracle_path, sizeof(m->oracle_path), "%.*s/%s", PATH_MAX - 300, dir, file);
        print_model(m->path, m->oracle_path);
      }
      model_prepare(o, m, dir, s, domain_run ? e : NULL);
      used++;
    }
    oracle_job_t *jobs = calloc(used ? used : 1, sizeof(*jobs));
    ck_assert_ptr_nonnull(jobs);
    for (size_t i = 0; i < used; i++) {
      jobs[i] = models[i].job;
      if (models[i].failure[0]) jobs[i].answered = 1; /* nothing to ask */
      t->cached += !models[i].failure[0] && jobs[i].cached;
      t->asked += !models[i].failure[0] && !jobs[i].cached;
    }
    double start = now();
    oracle_answer(o, jobs, used);
    t->oracle_seconds += now() - start;
    for (size_t i = 0; i < used; i++) {
      model_t *m = &models[i];
      if (!m->failure[0]) m->job = jobs[i];
      char diff[600];
      int r = model_check(m, t, diff, sizeof(diff));
      model_release(m);
      if (r < 0) continue;
      t->models++;
      exception_t *e = exception_find(x, m->name);
      if (domain_run) {
        if (r == 1)
          t->agree++;
        else
          record_failure(t,
                         "%s: disagrees even with inputs in %" PRId64 "..%" PRId64
                         ", where TOSA defines the result: %s",
                         m->name, e->lo, e->hi, diff);
        continue;
      }
      if (e) e->seen++;
      if (r == 1) {
        t->agree++;
        if (e) e->agreed++;
      } else if (e) {
        t->excepted++;
      } else {
        record_failure(t, "%s (seed %zu): %s; not in %s", m->name, s, diff, x->path);
      }
    }
    free(jobs);
  }
  free(models);
  remove_tree(tmp);
}

static void remove_tree(const char *dir) {
  char **names = NULL;
  size_t n = 0;
  tq_status_t st = tq_dir_list(dir, NULL, &names, &n);
  tq_status_free(st);
  for (size_t i = 0; i < n; i++) {
    char sub[PATH_MAX];
    snprintf(sub, sizeof(sub), "%.*s/%s", PATH_MAX - 300, dir, names[i]);
    tmpdir_remove(sub);
  }
  tq_dir_list_free(names, n);
  tmpdir_remove(dir);
}

/* The exceptions of `set` that were run must still disagree (and name models that exist). */
static void check_stale(const exceptions_t *x, const char *set, totals_t *t) {
  size_t len = strlen(set);
  for (size_t i = 0; i < x->n; i++) {
    const exception_t *e = &x->e[i];
    if (strncmp(e->model, set, len) != 0 || e->model[len] != '/') continue;
    if (!e->exists)
      record_failure(t, "%s: listed in %s but there is no such model", e->model, x->path);
    else if (e->seen && e->agreed == e->seen)
      record_failure(t, "%s: listed in %s (%s) but agrees with the oracle now: remove the line",
                     e->model, x->path, e->kind);
  }
}

static void report(const char *set, const totals_t *t, const exceptions_t *x) {
  fprintf(stderr,
          "oracle %s: %zu models run, %zu agree, %zu listed exceptions; %zu outputs (%zu integer "
          "exact, %zu float: %zu bit-exact, max error %g within the tolerance); oracle answers: "
          "%zu cached, %zu asked (%.1f s)\n",
          set, t->models, t->agree, t->excepted, t->outputs, t->int_outputs, t->float_outputs,
          t->float_bit_exact, t->max_float_err, t->cached, t->asked, t->oracle_seconds);
  size_t len = strlen(set);
  for (size_t i = 0; x && i < x->n; i++) {
    const exception_t *e = &x->e[i];
    if (strncmp(e->model, set, len) == 0 && e->model[len] == '/' && e->seen > e->agreed)
      fprintf(stderr, "  %s: %s: %s\n", e->model, e->kind, e->reason);
  }
}

/* Paths of the *.mlir files of `dir` (heap; free with free_paths). */
static char **list_models(const char *dir, size_t *out_n) {
  char **names = NULL;
  TQ_CK(tq_dir_list(dir, ".mlir", &names, out_n));
  for (size_t i = 0; i < *out_n; i++) {
    char *p = malloc(strlen(dir) + strlen(names[i]) + 2);
    ck_assert_ptr_nonnull(p);
    sprintf(p, "%s/%s", dir, names[i]);
    tq_free(names[i]);
    names[i] = p;
  }
  return names;
}

static void free_paths(char **paths, size_t n) {
  for (size_t i = 0; i < n; i++) free(paths[i]);
  tq_free(paths);
}

static void run_set(const char *set, const char *dir, int printed) {
  oracle_t o;
  if (!oracle_init(&o)) return;
  exceptions_t *x = malloc(sizeof(*x));
  totals_t *t = calloc(1, sizeof(*t));
  ck_assert_ptr_nonnull(x);
  ck_assert_ptr_nonnull(t);
  exceptions_read(x);
  size_t n = 0;
  char **paths = list_models(dir, &n);
  ck_assert_msg(n > 0, "no model in %s", dir);
  check_set(&o, set, paths, n, x, 0, printed, t);
  check_stale(x, set, t);
  report(set, t, x);
  /* The spec-undefined exceptions, inside the domain where TOSA defines their result. */
  totals_t *d = calloc(1, sizeof(*d));
  ck_assert_ptr_nonnull(d);
  check_set(&o, set, paths, n, x, 1, printed, d);
  if (d->models)
    fprintf(stderr,
            "oracle %s: %zu of %zu spec-undefined exceptions agree with inputs inside "
            "their domain\n",
            set, d->agree, d->models);
  free_paths(paths, n);
  size_t failures = t->failures + d->failures;
  char *text = malloc(2 * sizeof(t->text) + 1);
  ck_assert_ptr_nonnull(text);
  snprintf(text, 2 * sizeof(t->text) + 1, "%s%s", t->text, d->text);
  free(d);
  free(t);
  free(x);
  ck_assert_msg(failures == 0, "%zu failures:%s", failures, text ? text : "");
  free(text);
}

/* ---- The tests ------------------------------------------------------------------------------ */

START_TEST(oracle_corpus_agrees_with_mlir_22) {
  const char *corpus = tq_test_corpus();
  if (!corpus) return;
  run_set("corpus", corpus, 0);
}
END_TEST

/* Writes the generated models into `dir` (a fresh folder). */
static void generate_models(const oracle_t *o, const char *dir) {
  char script[PATH_MAX];
  snprintf(script, sizeof(script), "%.*s/runtime/tests/oracle/generate_models.py", PATH_MAX - 64,
           tq_test_top());
  fflush(NULL);
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    execl(o->python, o->python, script, dir, (char *)NULL);
    _exit(127);
  }
  int status = 0;
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s %s failed (status %d)", script,
                dir, status);
}

START_TEST(oracle_generated_models_agree_with_mlir_22) {
  oracle_t o;
  if (!oracle_init(&o)) return;
  char dir[PATH_MAX];
  tmpdir_make(dir);
  generate_models(&o, dir);
  run_set("generated", dir, 0);
  tmpdir_remove(dir);
}
END_TEST

static float bf16_at(const tqr_tensor_t *t, size_t i) {
  uint16_t b;
  memcpy(&b, t->data + 2 * i, 2);
  return tqs_bf16_to_f32(b);
}

/* A unit in the last place of bf16 at |x| (x finite, nonzero). */
static double bf16_ulp(double x) {
  int e;
  frexp(fabs(x), &e);
  return ldexp(1.0, e - 8);
}

/* The documented difference of the bf16 depthwise convolutions with a bias, shown to be what
 * exceptions.txt says: for the inputs (x, w, b) of the model with a bias and the same (x, w) fed
 * to its twin without one, MLIR 22's result is bit for bit bf16(bf16(acc) + b), its twin's
 * result bf16(acc) plus the bias rounded again, while ours is a single rounding of acc + b: it
 * lies within half a bf16 unit of bf16(acc) + b beyond the twin's own rounding. */
START_TEST(oracle_depthwise_bf16_difference_is_mlir_rounding_before_the_bias) {
  oracle_t o;
  if (!oracle_init(&o)) return;
  static const char *const pairs[] = {"depthwise-bf16-3x3-acc-f32",
                                      "depthwise-bf16-5x5-s2-acc-f32"};
  char dir[PATH_MAX], work[PATH_MAX];
  tmpdir_make(dir);
  tmpdir_make(work);
  generate_models(&o, dir);
  for (size_t p = 0; p < 2; p++) {
    model_t *m = calloc(2, sizeof(*m)); /* [0] with the bias, [1] its twin */
    ck_assert_ptr_nonnull(m);
    for (int k = 0; k < 2; k++) {
      snprintf(m[k].name, sizeof(m[k].name), "generated/%s-%s", pairs[p], k ? "zero-bias" : "bias");
      snprintf(m[k].path, sizeof(m[k].path), "%.*s/%s.mlir", PATH_MAX - 200, dir,
               m[k].name + strlen("generated/"));
      m[k].seed = seed_of(strrchr(m[k].path, '/') + 1); /* the generated test's inputs */
    }
    model_prepare(&o, &m[0], work, 0, NULL);
    ck_assert_msg(model_compile(&m[1]), "%s", m[1].failure);
    ck_assert_msg(!m[0].failure[0], "%s", m[0].failure);
    ck_assert_uint_eq(m[0].n_in, 3);
    ck_assert_uint_eq(m[1].n_in, 2);
    m[1].job.n_inputs = 2;
    for (size_t i = 0; i < 2; i++) memcpy(m[1].job.inputs[i], m[0].job.inputs[i], PATH_MAX);
    oracle_prepare(&o, &m[1].job);
    oracle_job_t jobs[2] = {m[0].job, m[1].job};
    oracle_answer(&o, jobs, 2);
    ck_assert_msg(jobs[0].answered && jobs[1].answered, "%s / %s", jobs[0].error, jobs[1].error);
    tqr_tensor_t *theirs = NULL, *twin = NULL, *ours = NULL;
    char path[PATH_MAX];
    oracle_output_path(&jobs[0], 0, path);
    TQ_CK(tqr_npy_read(path, 0, &theirs));
    oracle_output_path(&jobs[1], 0, path);
    TQ_CK(tqr_npy_read(path, 0, &twin));
    tqr_device_t *dev = NULL;
    tqr_session_t *session = NULL;
    TQ_CK(tqr_device_sim_create(&dev));
    TQ_CK(tqr_session_create(m[0].module, dev, NULL, &session));
    TQ_CK(tqr_session_invoke(session, (const tqr_tensor_t *const *)m[0].in, 3, &ours, 1));
    const tqr_tensor_t *bias = m[0].in[2];
    size_t n = tqr_tensor_count(ours), channels = tqr_tensor_count(bias), differ = 0;
    ck_assert_uint_eq(n, tqr_tensor_count(theirs));
    ck_assert_uint_eq(n, tqr_tensor_count(twin));
    for (size_t i = 0; i < n; i++) {
      float acc_rounded = bf16_at(twin, i), b = bf16_at(bias, i % channels);
      float twice = tqs_bf16_to_f32(tqs_f32_to_bf16(acc_rounded + b));
      ck_assert_msg(bf16_at(theirs, i) == twice || (isnan(twice) && isnan(bf16_at(theirs, i))),
                    "%s element %zu: MLIR gives %.9g, bf16(bf16(acc) + bias) is %.9g", pairs[p], i,
                    bf16_at(theirs, i), twice);
      double once = bf16_at(ours, i), sum = (double)acc_rounded + b;
      double slack = 0.5 * bf16_ulp(acc_rounded) + 0.5 * bf16_ulp(once ? once : 1e-38) + 1e-30;
      ck_assert_msg(fabs(once - sum) <= slack,
                    "%s element %zu: ours %.9g is not a rounding of acc + bias (%.9g +- %.3g)",
                    pairs[p], i, once, sum, slack);
      differ += once != twice;
    }
    ck_assert_msg(differ > 0, "%s: no element differs: the exception would be stale", pairs[p]);
    fprintf(stderr,
            "oracle: %s with a bias: MLIR 22 = bf16(bf16(acc) + bias) on all %zu elements; ours "
            "(one rounding) differs on %zu\n",
            pairs[p], n, differ);
    tqr_tensor_destroy(theirs);
    tqr_tensor_destroy(twin);
    tqr_tensor_destroy(ours);
    tqr_session_destroy(session);
    tqr_device_destroy(dev);
    model_release(&m[0]);
    model_release(&m[1]);
    free(m);
  }
  tmpdir_remove(work);
  tmpdir_remove(dir);
}
END_TEST

/* The front-end models (compiler/tests/models): what MLIR 22 verifies and Torq models use,
 * beyond the corpus. The oracle reads our printed form of each, so that a model in an older
 * spelling, which MLIR 22 rejects, is checked too (and our print is shown to mean to MLIR what
 * the model means to us). */
START_TEST(oracle_front_end_models_agree_with_mlir_22) {
  char dir[PATH_MAX];
  snprintf(dir, sizeof(dir), "%.*s/compiler/tests/models", PATH_MAX - 64, tq_test_top());
  run_set("front-end", dir, 1);
}
END_TEST

/* The comparison itself: exact integers, floats within the tolerance, shapes and types. */
START_TEST(oracle_comparison_is_exact_for_integers_and_within_tolerance_for_floats) {
  tqr_tensor_t *a, *b;
  TQ_CK(tqr_tensor_create(TORQ__ELEMENT_TYPE__I32, 1, (const int64_t[]){3}, &a));
  TQ_CK(tqr_tensor_create(TORQ__ELEMENT_TYPE__I32, 1, (const int64_t[]){3}, &b));
  verdict_t v;
  compare(a, b, &v);
  ck_assert(v.agree && v.bit_exact);
  ((int32_t *)b->data)[2] = 1;
  compare(a, b, &v);
  ck_assert(!v.agree);
  ck_assert_uint_eq(v.differ, 1);
  ck_assert_uint_eq(v.first, 2);
  tqr_tensor_destroy(b);
  TQ_CK(tqr_tensor_create(TORQ__ELEMENT_TYPE__I32, 2, (const int64_t[]){1, 3}, &b));
  compare(a, b, &v);
  ck_assert(!v.agree);
  ck_assert_str_eq(v.why, "we give 3xi32, the oracle 1x3xi32");
  tqr_tensor_destroy(a);
  tqr_tensor_destroy(b);
  TQ_CK(tqr_tensor_create(TORQ__ELEMENT_TYPE__F32, 1, (const int64_t[]){4}, &a));
  TQ_CK(tqr_tensor_create(TORQ__ELEMENT_TYPE__F32, 1, (const int64_t[]){4}, &b));
  float *fa = (float *)a->data, *fb = (float *)b->data;
  fa[0] = 100.0f, fb[0] = 100.0f * (1 + 5e-5f); /* relative 5e-5: within */
  fa[1] = 0.0f, fb[1] = 5e-4f;                  /* absolute 5e-4 near 0: within */
  fa[2] = NAN, fb[2] = NAN;
  fa[3] = INFINITY, fb[3] = INFINITY;
  compare(a, b, &v);
  ck_assert(v.agree && !v.bit_exact);
  fb[0] = 100.0f * (1 + 2e-4f); /* relative 2e-4: beyond */
  fb[3] = -INFINITY;
  compare(a, b, &v);
  ck_assert_uint_eq(v.differ, 2);
  ck_assert_uint_eq(v.first, 0);
  fb[0] = 100.0f;
  fb[2] = 1.0f; /* NaN against a number */
  compare(a, b, &v);
  ck_assert_uint_eq(v.first, 2);
  tqr_tensor_destroy(a);
  tqr_tensor_destroy(b);
}
END_TEST

Suite *oracle_suite(void) {
  Suite *s = suite_create("oracle");
  TCase *tc = tcase_create("compare");
  tcase_add_test(tc, oracle_comparison_is_exact_for_integers_and_within_tolerance_for_floats);
  suite_add_tcase(s, tc);
  tc = tcase_create("models");
  tcase_set_timeout(tc, 1800);
  tcase_add_test(tc, oracle_corpus_agrees_with_mlir_22);
  tcase_add_test(tc, oracle_generated_models_agree_with_mlir_22);
  tcase_add_test(tc, oracle_front_end_models_agree_with_mlir_22);
  tcase_add_test(tc, oracle_depthwise_bf16_difference_is_mlir_rounding_before_the_bias);
  suite_add_tcase(s, tc);
  return s;
}
