/* The corpus end to end: every model of $TORQ_TESTDATA/tosa_ops is compiled (parse, verify,
 * tqc_compile, pack), loaded with tqr_module_load and run once on the simulator device through a
 * session, on seeded random inputs (the "SHAPExTYPE=@random" inputs of torq-run-module, seeded
 * per model by its file name). Its outputs are compared with the reference evaluator's
 * (tqc_reference_run: the source function op by op on the reference interpreter, no lowering):
 * integers byte for byte, floats within the tolerance below. The cycles every layer takes on
 * the simulator (an NSS program, or a pipeline's prologue, steady state and epilogue programs
 * together) are reconciled with the compiler's estimate (NssProgram.estimated_cycles): the
 * simulator times effects the estimate leaves out (sim/include/torq/sim/npu.h, "Time"), so most
 * layers differ from their estimate, and |estimate - simulated| / simulated over the corpus
 * stays within the aims (median at most 10%, 90th percentile at most 25%).
 *
 * Under valgrind (TORQ_VALGRIND set) every tenth model runs, to keep the time reasonable.
 *
 * The reference evaluator itself is checked against hand-computed values on small models. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "suites.h"
#include "torq/base/alloc.h"
#include "torq/base/file.h"
#include "torq/compiler/compile.h"
#include "torq/compiler/ir.h"
#include "torq/compiler/reference.h"
#include "torq/formats/contract.h"
#include "torq/sim/tensor.h"
#include "tq_test.h"

#define E2E_MAX_IO 16

/* ---- Float tolerance -----------------------------------------------------------------------
 * An NPU value a matches the reference value b when |a - b| <= atol + rtol * |b|, NaN matches
 * NaN only, and an infinity matches only the same infinity.
 *
 * Today the NPU's kernels are integer only, so float operators run as host programs on the very
 * reference kernels the evaluator calls, in the same order: every float output is expected to be
 * bit-exact, and the summary shows the largest difference seen (0 so far). The tolerance admits
 * what a different but correct float implementation may legitimately differ by: the rounding of a
 * reordered accumulation (a tiled NPU kernel sums in another order), a few units in the last
 * place of the result. So rtol is 4 ulps of the type at 1.0 (4 * epsilon: f32 2^-21, f16 2^-8,
 * bf16 2^-5). atol is the same number: random inputs lie in [-1, 1), and a result near zero comes
 * from the cancellation of terms of that size, whose rounding errors are absolute, not relative
 * to the small result. */
static double e2e_eps(tqs_type_t type) {
  switch (type) {
    case TQS_BF16:
      return 0x1p-7;
    case TQS_F16:
      return 0x1p-10;
    default:
      return 0x1p-23;
  }
}
#define E2E_ULPS 4.0

/* ---- The corpus ----------------------------------------------------------------------------- */

/* The sorted *.mlir names of the corpus (tq_test_corpus: $TORQ_TESTDATA/tosa_ops), that folder in
 * `dir` (4096 bytes); no names, after tq_test_missing, when the corpus is missing. */
static size_t e2e_corpus(char *dir, char ***out_names) {
  size_t n = 0;
  *out_names = NULL;
  const char *corpus = tq_test_corpus();
  if (!corpus) return 0;
  snprintf(dir, 4096, "%s", corpus);
  tq_status_t st = tq_dir_list(dir, ".mlir", out_names, &n);
  ck_assert_msg(st == NULL, "cannot list %s: %s", dir, st ? tq_status_message(st) : "");
  return n;
}

static const char *e2e_base(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

/* The model's seed: FNV-1a of its file name, so that every model gets its own fixed inputs. */
static uint64_t e2e_seed(const char *name) {
  uint64_t h = UINT64_C(14695981039346656037);
  for (const unsigned char *p = (const unsigned char *)name; *p; p++)
    h = (h ^ *p) * UINT64_C(1099511628211);
  return h;
}

/* ---- A device that reports the cycles of each program ---------------------------------------
 * It forwards to the simulator device and keeps the cycles each NSS_WAIT handed the session. */

typedef struct e2e_device_s {
  tqr_device_t base;
  tqr_device_t *sim;
  uint64_t *cycles; /* per job id; UINT64_MAX until waited for */
  size_t n_jobs;
} e2e_device_t;

static void e2e_dev_destroy(tqr_device_t *device) {
  e2e_device_t *d = (e2e_device_t *)device;
  tqr_device_destroy(d->sim);
  free(d->cycles);
  free(d);
}

static tq_status_t e2e_dev_prepare(tqr_device_t *device, const tqr_module_t *module,
                                   const tqs_hw_t *hw) {
  (void)hw;
  e2e_device_t *d = (e2e_device_t *)device;
  size_t n = tqr_module_proto(module)->n_nss_programs;
  free(d->cycles);
  d->cycles = malloc((n ? n : 1) * sizeof(*d->cycles));
  if (!d->cycles) return TQ_STATUS(TQ_OUT_OF_MEMORY, "e2e device: out of memory");
  for (size_t i = 0; i < n; i++) d->cycles[i] = UINT64_MAX;
  d->n_jobs = n;
  return tqr_device_prepare(d->sim, module);
}

static tq_status_t e2e_dev_start(tqr_device_t *device, const Torq__NssProgram *program,
                                 const tqs_xram_buffer_t *xram, size_t num_xram) {
  e2e_device_t *d = (e2e_device_t *)device;
  return tqr_device_nss_start(d->sim, program, xram, num_xram);
}

static tq_status_t e2e_dev_wait(tqr_device_t *device, uint32_t job_id,
                                tqr_nss_result_t *out_result) {
  e2e_device_t *d = (e2e_device_t *)device;
  TQ_TRY(tqr_device_nss_wait(d->sim, job_id, out_result));
  if (job_id < d->n_jobs) d->cycles[job_id] = out_result->cycles;
  return NULL;
}

static void e2e_dev_reset(tqr_device_t *device) {
  tqr_device_reset(((e2e_device_t *)device)->sim);
}

static const tqr_device_vtable_t e2e_vtable = {
    .destroy = e2e_dev_destroy,
    .prepare = e2e_dev_prepare,
    .nss_start = e2e_dev_start,
    .nss_wait = e2e_dev_wait,
    .reset = e2e_dev_reset,
};

static e2e_device_t *e2e_device_create(void) {
  e2e_device_t *d = calloc(1, sizeof(*d));
  ck_assert_ptr_nonnull(d);
  d->base.vtable = &e2e_vtable;
  d->base.name = "sim";
  TQ_CK(tqr_device_sim_create(&d->sim));
  return d;
}

/* ---- One model ------------------------------------------------------------------------------ */

typedef struct e2e_totals_s {
  size_t models, outputs, int_outputs, int_exact, float_outputs, float_within, float_exact;
  size_t programs, programs_exact;
  double errors[4096]; /* |estimate - simulated| / simulated per NSS program */
  double max_float_err;
  char failures[16384]; /* the first failures, one per line */
  size_t n_failures;
} e2e_totals_t;

static void e2e_fail(e2e_totals_t *t, const char *model, const char *fmt, ...) TQ_PRINTF(3, 4);
static void e2e_fail(e2e_totals_t *t, const char *model, const char *fmt, ...) {
  size_t len = strlen(t->failures);
  t->n_failures++;
  if (len + 2 >= sizeof(t->failures)) return;
  len += (size_t)snprintf(t->failures + len, sizeof(t->failures) - len, "\n  %s: ", model);
  if (len >= sizeof(t->failures)) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(t->failures + len, sizeof(t->failures) - len, fmt, ap);
  va_end(ap);
}

/* Records a failing status (freed) under `step`; returns 1 when there was one. */
static int e2e_status(e2e_totals_t *t, const char *model, const char *step, tq_status_t st) {
  if (!st) return 0;
  char *text = tq_status_format(st, 0);
  e2e_fail(t, model, "%s: %s", step, text ? text : "?");
  free(text);
  tq_status_free(st);
  return 1;
}

/* A runtime tensor seen as a reference tensor (borrowing its data). */
static tq_status_t e2e_view(const tqr_tensor_t *in, tqs_tensor_t *out) {
  tqs_type_t type;
  if (!tqs_type_parse(tqf_element_name(in->type), &type))
    return TQ_STATUS(TQ_UNIMPLEMENTED, "no reference type for %s", tqf_element_name(in->type));
  return tqs_tensor_init(out, type, in->rank, in->dims, in->data);
}

/* Compares output `o`: NPU `npu` against reference `ref`. */
static void e2e_compare(e2e_totals_t *t, const char *model, size_t o, const tqr_tensor_t *npu,
                        const tqs_tensor_t *ref) {
  tqs_tensor_t a;
  tq_status_t st = e2e_view(npu, &a);
  if (e2e_status(t, model, "output view", st)) return;
  int same = a.type == ref->type && a.rank == ref->rank;
  for (size_t d = 0; same && d < a.rank; d++) same = a.dims[d] == ref->dims[d];
  if (!same) {
    e2e_fail(t, model, "output %zu: the NPU gives %s of rank %zu, the reference %s of rank %zu", o,
             tqs_type_name(a.type), a.rank, tqs_type_name(ref->type), ref->rank);
    return;
  }
  size_t count = tqr_tensor_count(npu);
  t->outputs++;
  if (!tqs_type_is_float(a.type)) {
    t->int_outputs++;
    if (npu->size == 0 || memcmp(npu->data, ref->data, npu->size) == 0) {
      t->int_exact++;
      return;
    }
    size_t first = count, bad = 0;
    for (size_t i = 0; i < count; i++) {
      if (tqs_tensor_get_i64(&a, i) == tqs_tensor_get_i64(ref, i)) continue;
      if (first == count) first = i;
      bad++;
    }
    e2e_fail(t, model,
             "output %zu (%s): %zu of %zu elements differ; first at %zu: NPU %" PRId64
             ", reference %" PRId64,
             o, tqs_type_name(a.type), bad, count, first, tqs_tensor_get_i64(&a, first),
             tqs_tensor_get_i64(ref, first));
    return;
  }
  t->float_outputs++;
  double tol = E2E_ULPS * e2e_eps(a.type), worst = 0;
  size_t bad = 0, first = count;
  for (size_t i = 0; i < count; i++) {
    double x = tqs_tensor_get_f64(&a, i), y = tqs_tensor_get_f64(ref, i);
    int ok;
    if (isnan(x) || isnan(y)) {
      ok = isnan(x) && isnan(y);
    } else if (isinf(x) || isinf(y)) {
      ok = x == y;
    } else {
      double err = fabs(x - y);
      if (err > worst) worst = err;
      ok = err <= tol + tol * fabs(y);
    }
    if (!ok && bad++ == 0) first = i;
  }
  if (worst > t->max_float_err) t->max_float_err = worst;
  if (npu->size == 0 || memcmp(npu->data, ref->data, npu->size) == 0) t->float_exact++;
  if (bad == 0) {
    t->float_within++;
    return;
  }
  e2e_fail(t, model,
           "output %zu (%s): %zu of %zu elements beyond the tolerance; first at %zu: NPU %.9g, "
           "reference %.9g",
           o, tqs_type_name(a.type), bad, count, first, tqs_tensor_get_f64(&a, first),
           tqs_tensor_get_f64(ref, first));
}

/* The input text of torq-run-module for a random input of `type`: "1x4xi8=@random". */
static void e2e_input_text(const Torq__TensorType *type, char *out, size_t cap) {
  size_t n = 0;
  out[0] = 0;
  for (size_t d = 0; d < type->n_dims && n < cap; d++)
    n += (size_t)snprintf(out + n, cap - n, "%" PRId64 "x", type->dims[d]);
  if (n < cap) snprintf(out + n, cap - n, "%s=@random", tqf_element_name(type->element_type));
}

static void e2e_run_model(e2e_totals_t *t, const char *path) {
  const char *model = e2e_base(path);
  tqc_module_t *src = NULL;
  tqc_compiled_t *compiled = NULL;
  tqr_module_t *mod = NULL;
  e2e_device_t *dev = NULL;
  tqr_session_t *session = NULL;
  tqr_tensor_t *in[E2E_MAX_IO] = {0}, *out[E2E_MAX_IO] = {0};
  tqs_tensor_t views[E2E_MAX_IO];
  const tqs_tensor_t *view_ptrs[E2E_MAX_IO];
  tqs_tensor_t *ref[E2E_MAX_IO] = {0};
  size_t n_in = 0, n_out = 0;
  tq_buf_t packed;
  tq_buf_init(&packed, 0);

  if (e2e_status(t, model, "parse", tqc_module_parse_file(path, NULL, &src)) ||
      e2e_status(t, model, "verify", tqc_module_verify(src)) ||
      e2e_status(t, model, "compile", tqc_compile(src, NULL, &compiled)) ||
      e2e_status(t, model, "pack", tqc_compiled_pack(compiled, &packed)) ||
      e2e_status(t, model, "load", tqr_module_load(model, packed.data, packed.len, NULL, &mod)))
    goto done;
  const Torq__Module *proto = tqr_module_proto(mod);
  n_in = proto->function->n_inputs;
  n_out = proto->function->n_outputs;
  if (n_in > E2E_MAX_IO || n_out > E2E_MAX_IO) {
    e2e_fail(t, model, "%zu inputs and %zu outputs: more than the test's %d", n_in, n_out,
             E2E_MAX_IO);
    n_in = n_out = 0;
    goto done;
  }
  tqr_input_options_t io;
  tqr_input_options_initialize(&io);
  io.seed = e2e_seed(model);
  for (size_t i = 0; i < n_in; i++) {
    char text[256];
    e2e_input_text(proto->function->inputs[i], text, sizeof(text));
    io.index = i;
    if (e2e_status(t, model, text, tqr_input_parse(text, &io, &in[i])) ||
        e2e_status(t, model, "input view", e2e_view(in[i], &views[i])))
      goto done;
    view_ptrs[i] = &views[i];
  }

  dev = e2e_device_create();
  if (e2e_status(t, model, "session", tqr_session_create(mod, &dev->base, NULL, &session)) ||
      e2e_status(t, model, "simulator",
                 tqr_session_invoke(session, (const tqr_tensor_t *const *)in, n_in, out, n_out)) ||
      e2e_status(t, model, "reference", tqc_reference_run(src, NULL, view_ptrs, n_in, ref, n_out)))
    goto done;

  t->models++;
  for (size_t o = 0; o < n_out; o++) e2e_compare(t, model, o, out[o], ref[o]);

  /* Reconciled per layer: an NSS program, or a pipeline's prologue, steady state and epilogue
   * together (contract.h, "Stages of a pipeline"), whose DMA-only stages the estimate and the
   * simulator time alike. */
  uint64_t total = 0, simulated = 0, layer_want = 0, layer_got = 0;
  for (size_t j = 0; j < proto->n_nss_programs; j++) {
    uint64_t want = proto->nss_programs[j]->estimated_cycles, got = dev->cycles[j];
    total += want;
    if (got == UINT64_MAX || got == 0) {
      e2e_fail(t, model, "NSS program %zu never finished", j);
      continue;
    }
    simulated += got;
    if (tqr_session_job_cycles(session, (uint32_t)j) != got)
      e2e_fail(t, model,
               "NSS program %zu: the session says %" PRIu64 " cycles, the device %" PRIu64, j,
               tqr_session_job_cycles(session, (uint32_t)j), got);
    layer_want += want;
    layer_got += got;
    Torq__Stage before;
    if (j + 1 < proto->n_nss_programs &&
        tqf_nss_stage_continues(proto->nss_programs[j + 1]->stage, &before) == 1)
      continue; /* the layer goes on */
    if (layer_got == layer_want) t->programs_exact++;
    if (t->programs < sizeof(t->errors) / sizeof(t->errors[0]))
      t->errors[t->programs] =
          (double)(layer_got > layer_want ? layer_got - layer_want : layer_want - layer_got) /
          (double)layer_got;
    t->programs++;
    layer_want = layer_got = 0;
  }
  tqr_session_stats_t stats;
  tqr_session_stats(session, &stats);
  if (stats.nss_programs != proto->n_nss_programs || stats.nss_cycles != simulated ||
      total != tqc_compiled_estimated_cycles(compiled))
    e2e_fail(t, model,
             "session: %" PRIu64 " programs, %" PRIu64 " cycles; module: %zu programs, %" PRIu64
             " cycles simulated, %" PRIu64 " estimated",
             stats.nss_programs, stats.nss_cycles, proto->n_nss_programs, simulated, total);

done:
  for (size_t i = 0; i < E2E_MAX_IO; i++) {
    tqr_tensor_destroy(in[i]);
    tqr_tensor_destroy(out[i]);
    tqs_tensor_destroy(ref[i]);
  }
  tqr_session_destroy(session);
  if (dev) tqr_device_destroy(&dev->base);
  tqr_module_destroy(mod);
  tq_buf_deinit(&packed);
  tqc_compiled_destroy(compiled);
  tqc_module_destroy(src);
}

static int e2e_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

START_TEST(corpus_npu_outputs_equal_the_reference_and_cycles_reconcile_with_the_estimate) {
  char dir[4096], **names;
  size_t n = e2e_corpus(dir, &names);
  if (n == 0) return; /* the corpus is missing: tq_test_missing said so */
  size_t every = getenv("TORQ_VALGRIND") ? 10 : 1;
  e2e_totals_t *t = calloc(1, sizeof(*t));
  ck_assert_ptr_nonnull(t);
  size_t tried = 0;
  for (size_t i = 0; i < n; i += every, tried++) {
    char path[8192];
    snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
    e2e_run_model(t, path);
  }
  size_t counted = t->programs < sizeof(t->errors) / sizeof(t->errors[0])
                       ? t->programs
                       : sizeof(t->errors) / sizeof(t->errors[0]);
  qsort(t->errors, counted, sizeof(double), e2e_cmp_double);
  double median = counted ? t->errors[counted / 2] : 0,
         p90 = counted ? t->errors[counted * 9 / 10] : 0;
  fprintf(stderr,
          "corpus e2e: %zu of %zu models run%s; %zu outputs compared: %zu of %zu integer outputs "
          "bit-exact, %zu of %zu float outputs within tolerance (%zu bit-exact; |a-b| <= %g eps "
          "* (1 + |b|)), max float error %g; %zu of %zu layers at exactly their estimated "
          "cycles; |estimate - simulated| / simulated: median %.1f%%, p90 %.1f%%\n",
          t->models, tried, every > 1 ? " (every 10th: TORQ_VALGRIND)" : "", t->outputs,
          t->int_exact, t->int_outputs, t->float_within, t->float_outputs, t->float_exact, E2E_ULPS,
          t->max_float_err, t->programs_exact, t->programs, 100 * median, 100 * p90);
  tq_dir_list_free(names, n);
  size_t failures = t->n_failures, models = t->models;
  size_t programs = t->programs, exact = t->programs_exact;
  char *msg = strdup(t->failures);
  free(t);
  ck_assert_msg(failures == 0, "%zu failures:%s", failures, msg ? msg : "");
  ck_assert_uint_eq(models, tried);
  free(msg);
  /* Not equal by construction, and within the aims. */
  ck_assert_msg(exact * 2 < programs, "%zu of %zu layers at exactly their estimate", exact,
                programs);
  ck_assert_msg(median <= 0.10, "median |estimate - simulated| / simulated %.1f%% > 10%%",
                100 * median);
  ck_assert_msg(p90 <= 0.25, "90th percentile %.1f%% > 25%%", 100 * p90);
}
END_TEST

/* ---- The reference evaluator on hand-computed values ---------------------------------------- */

static tqc_module_t *e2e_parse(const char *text) {
  tqc_module_t *m = NULL;
  TQ_CK(tqc_module_parse("t.mlir", text, strlen(text), NULL, &m));
  TQ_CK(tqc_module_verify(m));
  return m;
}

static tqs_tensor_t *e2e_tensor(tqs_type_t type, size_t rank, const int64_t *dims,
                                const int64_t *values) {
  tqs_tensor_t *t = NULL;
  TQ_CK(tqs_tensor_create(type, rank, dims, &t));
  size_t count = 1;
  for (size_t i = 0; i < rank; i++) count *= (size_t)dims[i];
  for (size_t i = 0; i < count; i++) tqs_tensor_set_i64(t, i, values[i]);
  return t;
}

static void e2e_expect(const tqs_tensor_t *t, tqs_type_t type, size_t rank, const int64_t *dims,
                       const int64_t *values) {
  ck_assert_str_eq(tqs_type_name(t->type), tqs_type_name(type));
  ck_assert_uint_eq(t->rank, rank);
  size_t count = 1;
  for (size_t i = 0; i < rank; i++) {
    ck_assert_int_eq(t->dims[i], dims[i]);
    count *= (size_t)dims[i];
  }
  for (size_t i = 0; i < count; i++)
    ck_assert_msg(tqs_tensor_get_i64(t, i) == values[i], "element %zu: %" PRId64 ", want %" PRId64,
                  i, tqs_tensor_get_i64(t, i), values[i]);
}

/* Constants of all three kinds, a wrapping i8 add, a reshape by a !tosa.shape, and a rescale
 * whose DOUBLE_ROUND (shift 32) must reach the kernel: single rounding would give 1 and 0 for
 * the first two elements. */
START_TEST(reference_evaluator_runs_constants_shapes_and_rounding_modes) {
  tqc_module_t *m = e2e_parse(
      "module {\n"
      "  func.func @main(%a: tensor<4xi8>) -> (tensor<2x2xi32>, tensor<4xi8>) {\n"
      "    %c = \"tosa.const\"() <{values = dense<[1, -2, 3, 127]> : tensor<4xi8>}> : () -> "
      "tensor<4xi8>\n"
      "    %s = tosa.add %a, %c : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>\n"
      "    %shape = tosa.const_shape {values = dense<2> : tensor<2xindex>} : () -> "
      "!tosa.shape<2>\n"
      "    %r = tosa.reshape %s, %shape : (tensor<4xi8>, !tosa.shape<2>) -> tensor<2x2xi8>\n"
      "    %mult = arith.constant dense<1073741824> : tensor<1xi32>\n"
      "    %shift = arith.constant dense<32> : tensor<1xi8>\n"
      "    %izp = arith.constant dense<0> : tensor<1xi8>\n"
      "    %ozp = arith.constant dense<0> : tensor<1xi32>\n"
      "    %q = tosa.rescale %r, %mult, %shift, %izp, %ozp {input_unsigned = false, "
      "output_unsigned = false, per_channel = false, rounding_mode = DOUBLE_ROUND, scale32 = "
      "true} : (tensor<2x2xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi32>) -> "
      "tensor<2x2xi32>\n"
      "    return %q, %s : tensor<2x2xi32>, tensor<4xi8>\n"
      "  }\n"
      "}\n");
  tqs_tensor_t *a = e2e_tensor(TQS_I8, 1, (const int64_t[]){4}, (const int64_t[]){4, 3, -1, 1});
  tqs_tensor_t *out[2];
  TQ_CK(tqc_reference_run(m, NULL, (const tqs_tensor_t *const *)&a, 1, out, 2));
  /* s = a + c wraps: 1 + 127 = -128. q = s * 2^30 / 2^32 with double rounding. */
  e2e_expect(out[1], TQS_I8, 1, (const int64_t[]){4}, (const int64_t[]){5, 1, 2, -128});
  e2e_expect(out[0], TQS_I32, 2, (const int64_t[]){2, 2}, (const int64_t[]){2, 1, 1, -32});
  tqs_tensor_destroy(out[0]);
  tqs_tensor_destroy(out[1]);
  tqs_tensor_destroy(a);
  tqc_module_destroy(m);
}
END_TEST

/* tensor.extract_slice with strides and a dropped unit dimension: rows 1 and 3, columns 0 and 2
 * of a 4x3 matrix holding 0..11. */
START_TEST(reference_evaluator_runs_strided_rank_reducing_extract_slice) {
  tqc_module_t *m = e2e_parse(
      "module {\n"
      "  func.func @main(%a: tensor<1x4x3xi16>) -> tensor<2x2xi16> {\n"
      "    %0 = tensor.extract_slice %a[0, 1, 0] [1, 2, 2] [1, 2, 2] : tensor<1x4x3xi16> to "
      "tensor<2x2xi16>\n"
      "    return %0 : tensor<2x2xi16>\n"
      "  }\n"
      "}\n");
  int64_t values[12];
  for (int i = 0; i < 12; i++) values[i] = i;
  tqs_tensor_t *a = e2e_tensor(TQS_I16, 3, (const int64_t[]){1, 4, 3}, values);
  tqs_tensor_t *out;
  TQ_CK(tqc_reference_run(m, "main", (const tqs_tensor_t *const *)&a, 1, &out, 1));
  e2e_expect(out, TQS_I16, 2, (const int64_t[]){2, 2}, (const int64_t[]){3, 5, 9, 11});
  tqs_tensor_destroy(out);
  tqc_module_destroy(m);
  /* Rows 1, 3 and 5 of 4: the verifier leaves bounds to TOSA checks; the kernel refuses. */
  m = e2e_parse(
      "module {\n"
      "  func.func @main(%a: tensor<1x4x3xi16>) -> tensor<3x3xi16> {\n"
      "    %0 = tensor.extract_slice %a[0, 1, 0] [1, 3, 3] [1, 2, 1] : tensor<1x4x3xi16> to "
      "tensor<3x3xi16>\n"
      "    return %0 : tensor<3x3xi16>\n"
      "  }\n"
      "}\n");
  ck_status(tqc_reference_run(m, NULL, (const tqs_tensor_t *const *)&a, 1, &out, 1),
            TQ_INVALID_ARGUMENT,
            "tensor.extract_slice: offset 1, size 3 and stride 2 of dim 1 do not fit its 4 "
            "elements");
  tqs_tensor_destroy(a);
  tqc_module_destroy(m);
}
END_TEST

START_TEST(reference_evaluator_reports_bad_calls_and_located_op_errors) {
  tqc_module_t *m = e2e_parse(
      "module {\n"
      "  func.func @main(%a: tensor<2xi32>) -> tensor<2xi32> {\n"
      "    %z = \"tosa.const\"() <{values = dense<0> : tensor<2xi32>}> : () -> tensor<2xi32>\n"
      "    %0 = tosa.intdiv %a, %z : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>\n"
      "    return %0 : tensor<2xi32>\n"
      "  }\n"
      "}\n");
  tqs_tensor_t *a = e2e_tensor(TQS_I32, 1, (const int64_t[]){2}, (const int64_t[]){7, 8});
  tqs_tensor_t *wrong = e2e_tensor(TQS_I16, 1, (const int64_t[]){2}, (const int64_t[]){7, 8});
  tqs_tensor_t *out = (tqs_tensor_t *)1;
  const tqs_tensor_t *const *ins = (const tqs_tensor_t *const *)&a;
  ck_status(tqc_reference_run(m, "other", ins, 1, &out, 1), TQ_NOT_FOUND,
            "the module has no function other");
  ck_status(tqc_reference_run(m, NULL, (const tqs_tensor_t *const *)&wrong, 1, &out, 1),
            TQ_INVALID_ARGUMENT,
            "input 0 of function main: expected tensor<2xi32>, given "
            "tensor<2xi16>");
  ck_status(tqc_reference_run(m, NULL, ins, 0, &out, 1), TQ_INVALID_ARGUMENT,
            "function main takes 1 inputs, 0 given");
  tqs_tensor_t *two[2];
  ck_status(tqc_reference_run(m, NULL, ins, 1, two, 2), TQ_INVALID_ARGUMENT,
            "function main has 1 outputs, room for 2 given");
  ck_assert_ptr_null(two[0]);
  ck_assert_ptr_null(two[1]);
  ck_status(tqc_reference_run(m, NULL, ins, 1, &out, 1), TQ_INVALID_ARGUMENT,
            "in tosa.intdiv at t.mlir:4:10");
  ck_assert_ptr_null(out);
  tqs_tensor_destroy(a);
  tqs_tensor_destroy(wrong);
  tqc_module_destroy(m);
}
END_TEST

Suite *corpus_e2e_suite(void) {
  Suite *s = suite_create("corpus_e2e");
  TCase *tc = tcase_create("reference");
  tcase_add_test(tc, reference_evaluator_runs_constants_shapes_and_rounding_modes);
  tcase_add_test(tc, reference_evaluator_runs_strided_rank_reducing_extract_slice);
  tcase_add_test(tc, reference_evaluator_reports_bad_calls_and_located_op_errors);
  suite_add_tcase(s, tc);
  tc = tcase_create("corpus");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, corpus_npu_outputs_equal_the_reference_and_cycles_reconcile_with_the_estimate);
  suite_add_tcase(s, tc);
  return s;
}
