/* The compiler's NSS programs on the NPU model (libtorq-sim).
 *
 * Corpus: every program of every corpus model compiles, runs without error on XRAM filled from
 * its constants and seeded random bytes, reports one event per work item of its tasks, and
 * reconciles with the compiler's estimate: the NPU model times the effects the estimate leaves
 * out (npu.h, "Time"), so the two differ for most programs, by a bounded error (the aims of
 * issue 16: median |estimate - simulated| / simulated at most 10%, 90th percentile at most 25%).
 * (Bit-exact equivalence of whole corpus models with the reference interpreter is the runtime's
 * corpus test.)
 *
 * Contract: small models of each kernel, compiled for LRAM sizes that force row bands, channel
 * or column groups and one or two slices, give on the NPU model exactly the bytes the reference
 * interpreter computes for the source operators. */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "module.pb-c.h"
#include "suites.h"
#include "torq/base/file.h"
#include "torq/base/str.h"
#include "torq/compiler/compile.h"
#include "torq/sim/npu.h"
#include "torq/sim/ref.h"
#include "torq/sim/tensor.h"

static uint64_t e2e_next(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

/* XRAM for every buffer of a module: constants filled from their data, everything else from
 * seeded random bytes; views point into their base buffer. */
typedef struct e2e_xram_s {
  tqs_xram_buffer_t *bufs;
  size_t n;
} e2e_xram_t;

static void e2e_xram_init(e2e_xram_t *x, const Torq__Module *m, uint64_t seed) {
  x->n = m->n_buffers;
  x->bufs = calloc(x->n ? x->n : 1, sizeof(*x->bufs));
  ck_assert_ptr_nonnull(x->bufs);
  uint64_t s = seed | 1;
  for (size_t i = 0; i < m->n_buffers; i++) {
    const Torq__Buffer *b = m->buffers[i];
    if (b->contents_case == TORQ__BUFFER__CONTENTS_VIEW) continue;
    x->bufs[i].size = (size_t)b->size;
    x->bufs[i].data = malloc(b->size ? (size_t)b->size : 1);
    ck_assert_ptr_nonnull(x->bufs[i].data);
    if (b->contents_case == TORQ__BUFFER__CONTENTS_CONSTANT_ID) {
      ck_assert_uint_lt(b->constant_id, m->n_constants);
      const Torq__Constant *c = m->constants[b->constant_id];
      ck_assert_uint_eq(c->data.len, b->size);
      if (c->data.len) memcpy(x->bufs[i].data, c->data.data, c->data.len);
    } else {
      for (size_t j = 0; j < b->size; j++) x->bufs[i].data[j] = (uint8_t)e2e_next(&s);
    }
  }
  for (size_t i = 0; i < m->n_buffers; i++) {
    const Torq__Buffer *b = m->buffers[i];
    if (b->contents_case != TORQ__BUFFER__CONTENTS_VIEW) continue;
    const Torq__View *v = b->view;
    ck_assert_uint_lt(v->buffer_id, x->n);
    const tqs_xram_buffer_t *base = &x->bufs[v->buffer_id];
    ck_assert_ptr_nonnull(base->data);
    ck_assert_uint_le(v->offset + b->size, base->size);
    x->bufs[i].data = base->data + v->offset;
    x->bufs[i].size = (size_t)b->size;
  }
}

static void e2e_xram_deinit(e2e_xram_t *x, const Torq__Module *m) {
  for (size_t i = 0; i < x->n; i++)
    if (m->buffers[i]->contents_case != TORQ__BUFFER__CONTENTS_VIEW) free(x->bufs[i].data);
  free(x->bufs);
}

/* Checks every event against its work item: the item exists in that task, of that unit, and the
 * simulated interval lies in its task's (after the previous event of the same unit). */
typedef struct e2e_check_s {
  const Torq__NssProgram *program;
  const char *path;
  size_t events, mismatches;
  uint64_t unit_end[TQS_UNIT_COUNT];
  uint32_t task;
  char first[512];
} e2e_check_t;

static void e2e_on_work(void *user, const tqs_npu_event_t *ev) {
  e2e_check_t *c = user;
  c->events++;
  const Torq__UnitWork *found = NULL;
  if (ev->task_index < c->program->n_tasks) {
    const Torq__NssTask *t = c->program->tasks[ev->task_index];
    for (size_t i = 0; i < t->n_work; i++)
      if (strcmp(t->work[i]->trace_id, ev->trace_id) == 0) found = t->work[i];
  }
  if (ev->task_index != c->task) {
    memset(c->unit_end, 0, sizeof(c->unit_end));
    c->task = ev->task_index;
  }
  tqs_unit_t unit;
  int ok = found && tqs_unit_from_module(found->unit, &unit) && unit == ev->unit &&
           ev->end_cycle >= ev->start_cycle && ev->start_cycle >= c->unit_end[ev->unit];
  if (ok && ev->start_cycle == ev->end_cycle) ok = found->macs == 0 && found->bytes == 0;
  c->unit_end[ev->unit] = ev->end_cycle;
  if (ok) return;
  if (c->mismatches++ == 0) {
    snprintf(c->first, sizeof(c->first),
             "%s: job %" PRIu32 " task %" PRIu32 " %s: simulated %" PRIu64 "..%" PRIu64
             ", estimated %" PRIu64 "..%" PRIu64,
             c->path, ev->job_id, ev->task_index, ev->trace_id, ev->start_cycle, ev->end_cycle,
             found ? found->estimated_start : 0, found ? found->estimated_end : 0);
  }
}

static int e2e_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

START_TEST(npu_runs_every_corpus_program_and_reconciles_with_the_estimate) {
  char **paths;
  size_t n;
  if (!tt_corpus_paths(NULL, &paths, &n)) return;
  tqc_compile_options_t options;
  tqc_compile_options_initialize(&options);
  tqs_npu_t *npu = NULL;
  TT_ASSERT_OK(tqs_npu_create(&options.hw, &npu));
  size_t models = 0, programs = 0, tasks = 0, events = 0, items = 0, differ = 0;
  uint64_t cycles = 0, estimated = 0;
  size_t cap = 1024;
  double *errors = malloc(cap * sizeof(double));
  ck_assert_ptr_nonnull(errors);
  for (size_t f = 0; f < n; f++) {
    tqc_module_t *src = NULL;
    tqc_compiled_t *compiled = NULL;
    tq_status_t st = tqc_module_parse_file(paths[f], NULL, &src);
    if (!st) st = tqc_module_verify(src);
    if (!st) st = tqc_compile(src, &options, &compiled);
    if (st) {
      char *text = tq_status_format(st, 0);
      tq_status_free(st);
      ck_abort_msg("%s: %s", paths[f], text ? text : "(oom)");
    }
    const Torq__Module *m = tqc_compiled_module(compiled);
    e2e_xram_t x;
    e2e_xram_init(&x, m, 0x9e3779b97f4a7c15u + f);
    for (size_t p = 0; p < m->n_nss_programs; p++) {
      const Torq__NssProgram *prog = m->nss_programs[p];
      e2e_check_t check = {.program = prog, .path = paths[f]};
      tqs_npu_observer_t obs = {.on_unit_work = e2e_on_work, .user = &check};
      tqs_npu_result_t r;
      st = tqs_npu_run(npu, prog, x.bufs, x.n, &obs, &r);
      if (st) {
        char *text = tq_status_format(st, 0);
        tq_status_free(st);
        ck_abort_msg("%s: %s", paths[f], text ? text : "(oom)");
      }
      ck_assert_msg(r.cycles > 0 && prog->estimated_cycles > 0,
                    "%s: job %" PRIu32 " simulated %" PRIu64 " cycles, estimated %" PRIu64,
                    paths[f], prog->job_id, r.cycles, prog->estimated_cycles);
      ck_assert_msg(check.mismatches == 0, "%zu events do not match their work item; first: %s",
                    check.mismatches, check.first);
      ck_assert_uint_eq(r.tasks, prog->n_tasks);
      for (size_t k = 0; k < prog->n_tasks; k++) items += prog->tasks[k]->n_work;
      if (programs == cap) {
        cap *= 2;
        errors = realloc(errors, cap * sizeof(double));
        ck_assert_ptr_nonnull(errors);
      }
      double e = (double)prog->estimated_cycles, sim = (double)r.cycles;
      errors[programs] = (e > sim ? e - sim : sim - e) / sim;
      differ += r.cycles != prog->estimated_cycles;
      programs++;
      tasks += prog->n_tasks;
      events += check.events;
      cycles += r.cycles;
      estimated += prog->estimated_cycles;
    }
    models++;
    e2e_xram_deinit(&x, m);
    tqc_compiled_destroy(compiled);
    tqc_module_destroy(src);
  }
  tqs_npu_destroy(npu);
  tq_dir_list_free(paths, n);
  ck_assert_uint_eq(events, items); /* one event per work item */
  qsort(errors, programs, sizeof(double), e2e_cmp_double);
  double median = programs ? errors[programs / 2] : 0,
         p90 = programs ? errors[programs * 9 / 10] : 0;
  free(errors);
  fprintf(stderr,
          "npu_e2e: %zu models, %zu NSS programs, %zu tasks, %zu work items; %" PRIu64
          " cycles simulated, %" PRIu64
          " estimated; %zu programs differ from their estimate; "
          "|estimate - simulated| / simulated: median %.1f%%, p90 %.1f%%\n",
          models, programs, tasks, events, cycles, estimated, differ, 100 * median, 100 * p90);
  if (programs == 0) return;
  /* Not equal by construction: most programs differ. Bounded: the aims. */
  ck_assert_msg(differ * 2 > programs, "only %zu of %zu programs differ from their estimate",
                differ, programs);
  ck_assert_msg(median <= 0.10, "median error %.1f%% above 10%%", 100 * median);
  ck_assert_msg(p90 <= 0.25, "90th percentile error %.1f%% above 25%%", 100 * p90);
}
END_TEST

/* ---- Kernels against the reference interpreter ----------------------------------------------- */

#define E2E_MAX_TENSORS 16
static tqs_tensor_t *e2e_tensors[E2E_MAX_TENSORS];
static size_t e2e_n_tensors;
static uint64_t e2e_seed;

static void e2e_teardown(void) {
  for (size_t i = 0; i < e2e_n_tensors; i++) tqs_tensor_destroy(e2e_tensors[i]);
  e2e_n_tensors = 0;
}

/* A tensor of values in [lo, hi] (all `lo` when lo == hi), freed by the fixture. */
static tqs_tensor_t *e2e_tensor(tqs_type_t type, size_t rank, const int64_t *dims, int64_t lo,
                                int64_t hi) {
  ck_assert_uint_lt(e2e_n_tensors, E2E_MAX_TENSORS);
  tqs_tensor_t *t = NULL;
  TT_ASSERT_OK(tqs_tensor_create(type, rank, dims, &t));
  e2e_tensors[e2e_n_tensors++] = t;
  size_t n = 0;
  TT_ASSERT_OK(tqs_tensor_count(t, &n));
  for (size_t i = 0; i < n; i++)
    tqs_tensor_set_i64(t, i, lo + (int64_t)(e2e_next(&e2e_seed) % (uint64_t)(hi - lo + 1)));
  return t;
}
#define E2E_DIMS(...)                                                           \
  sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t), (const int64_t[]) { \
    __VA_ARGS__                                                                 \
  }

/* The nested list of dims[d..] of a tensor from element *at on. */
static void e2e_nested(tq_buf_t *b, const tqs_tensor_t *t, size_t d, size_t *at) {
  TT_ASSERT_OK(tq_buf_putc(b, '['));
  for (int64_t i = 0; i < t->dims[d]; i++) {
    if (i) TT_ASSERT_OK(tq_buf_append_cstr(b, ", "));
    if (d + 1 < t->rank) {
      e2e_nested(b, t, d + 1, at);
    } else {
      TT_ASSERT_OK(tq_buf_printf(b, "%" PRId64, tqs_tensor_get_i64(t, (*at)++)));
    }
  }
  TT_ASSERT_OK(tq_buf_putc(b, ']'));
}

/* "dense<[[v, ...], ...]> : tensor<AxBxT>" of a tensor, T spelled `type`. */
static void e2e_dense(tq_buf_t *b, const tqs_tensor_t *t, const char *type) {
  size_t at = 0;
  TT_ASSERT_OK(tq_buf_append_cstr(b, "dense<"));
  e2e_nested(b, t, 0, &at);
  TT_ASSERT_OK(tq_buf_append_cstr(b, "> : tensor<"));
  for (size_t i = 0; i < t->rank; i++) TT_ASSERT_OK(tq_buf_printf(b, "%" PRId64 "x", t->dims[i]));
  TT_ASSERT_OK(tq_buf_printf(b, "%s>", type));
}

/* `name = "tosa.const"() <{values = DENSE}> : () -> TYPE` */
static void e2e_const(tq_buf_t *b, const char *name, const tqs_tensor_t *t, const char *type) {
  TT_ASSERT_OK(tq_buf_printf(b, "  %%%s = \"tosa.const\"() <{values = ", name));
  e2e_dense(b, t, type);
  TT_ASSERT_OK(tq_buf_append_cstr(b, "}> : () -> tensor<"));
  for (size_t i = 0; i < t->rank; i++) TT_ASSERT_OK(tq_buf_printf(b, "%" PRId64 "x", t->dims[i]));
  TT_ASSERT_OK(tq_buf_printf(b, "%s>\n", type));
}

/* Runs the actions of a module that has no host programs: NSS programs on the NPU model, host
 * copies by hand. */
static void e2e_execute(const Torq__Module *m, tqs_npu_t *npu, e2e_xram_t *x) {
  for (size_t i = 0; i < m->n_actions; i++) {
    const Torq__Action *a = m->actions[i];
    if (a->kind == TORQ__ACTION_KIND__NSS_START) {
      ck_assert_uint_lt(a->job_id, m->n_nss_programs);
      tqs_npu_result_t r;
      TT_ASSERT_OK(tqs_npu_run(npu, m->nss_programs[a->job_id], x->bufs, x->n, NULL, &r));
      /* The simulation reconciles with the estimate within the p90 aim (npu.h, "Time"). */
      uint64_t est = m->nss_programs[a->job_id]->estimated_cycles;
      uint64_t diff = r.cycles > est ? r.cycles - est : est - r.cycles;
      ck_assert_msg(diff * 4 <= r.cycles, "simulated %" PRIu64 " cycles, estimated %" PRIu64,
                    r.cycles, est);
    } else if (a->kind == TORQ__ACTION_KIND__HOST_COPY) {
      ck_assert_uint_lt(a->buffer_id, x->n);
      ck_assert_uint_lt(a->src_buffer_id, x->n);
      ck_assert_uint_le(a->offset + a->size, x->bufs[a->buffer_id].size);
      ck_assert_uint_le(a->src_offset + a->size, x->bufs[a->src_buffer_id].size);
      memmove(x->bufs[a->buffer_id].data + a->offset,
              x->bufs[a->src_buffer_id].data + a->src_offset, (size_t)a->size);
    } else {
      ck_assert_msg(a->kind != TORQ__ACTION_KIND__HOST_START, "unexpected host program");
    }
  }
}

typedef struct e2e_model_s {
  tq_buf_t text;
  const tqs_tensor_t *in[3];
  size_t n_in;
  const tqs_tensor_t *want[3]; /* the reference results */
  size_t want_esz[3];          /* bytes per result element in XRAM (8 for i48) */
  size_t n_out;
} e2e_model_t;

/* Compiles the model for each spec, runs it and compares the result with the reference; returns
 * the most tasks any layer's pipeline had (its tiles + 2: to show that the specs tiled). */
static size_t e2e_check(e2e_model_t *md, const char *const *specs, size_t n_specs) {
  size_t most_tasks = 0;
  for (size_t k = 0; k < n_specs; k++) {
    tqc_module_t *src = NULL;
    tqc_compiled_t *c = NULL;
    TT_ASSERT_OK(tqc_module_parse("e2e.mlir", md->text.data, md->text.len, NULL, &src));
    TT_ASSERT_OK(tqc_module_verify(src));
    tqc_compile_options_t o;
    tqc_compile_options_initialize(&o);
    TT_ASSERT_OK(tqs_hw_parse(specs[k], &o.hw));
    o.hw_spec = specs[k];
    TT_ASSERT_OK(tqc_compile(src, &o, &c));
    const Torq__Module *m = tqc_compiled_module(c);
    ck_assert_msg(m->n_host_programs == 0 && m->n_nss_programs > 0, "%s: not all on the NPU",
                  specs[k]);
    for (size_t p = 0; p < m->n_nss_programs; p++) {
      /* A layer is its prologue, steady state and epilogue (one task each but the steady
       * state's, one per tile), or one whole program. */
      size_t tasks = m->nss_programs[p]->n_tasks;
      if (m->nss_programs[p]->stage == TORQ__STAGE__STEADY) tasks += 2;
      if (tasks > most_tasks) most_tasks = tasks;
    }
    e2e_xram_t x;
    e2e_xram_init(&x, m, 77 + k);
    for (size_t i = 0; i < md->n_in; i++) {
      size_t bytes = 0;
      TT_ASSERT_OK(tqs_tensor_byte_size(md->in[i], &bytes));
      uint32_t id = m->function->input_buffers[i];
      ck_assert_uint_eq(x.bufs[id].size, bytes);
      memcpy(x.bufs[id].data, md->in[i]->data, bytes);
    }
    tqs_npu_t *npu = NULL;
    TT_ASSERT_OK(tqs_npu_create(&o.hw, &npu));
    e2e_execute(m, npu, &x);
    tqs_npu_destroy(npu);
    ck_assert_uint_eq(m->function->n_output_buffers, md->n_out);
    for (size_t r = 0; r < md->n_out; r++) {
      const tqs_xram_buffer_t *out = &x.bufs[m->function->output_buffers[r]];
      size_t n = 0, esz = md->want_esz[r];
      TT_ASSERT_OK(tqs_tensor_count(md->want[r], &n));
      ck_assert_uint_eq(out->size, n * esz);
      /* Where the reference stores the type alike (i48 included: both use int64), byte for byte. */
      size_t want_bytes = 0;
      TT_ASSERT_OK(tqs_tensor_byte_size(md->want[r], &want_bytes));
      if (want_bytes == out->size) {
        for (size_t i = 0; i < want_bytes; i++)
          ck_assert_msg(out->data[i] == ((const uint8_t *)md->want[r]->data)[i],
                        "%s: result %zu byte %zu is %u, the reference's is %u", specs[k], r, i,
                        out->data[i], ((const uint8_t *)md->want[r]->data)[i]);
      }
      for (size_t i = 0; i < n; i++) {
        uint64_t u = 0;
        memcpy(&u, out->data + i * esz, esz);
        unsigned sh = 64 - 8 * (unsigned)esz;
        int64_t got = sh ? (int64_t)(u << sh) >> sh : (int64_t)u;
        int64_t want = tqs_tensor_get_i64(md->want[r], i);
        ck_assert_msg(got == want,
                      "%s: result %zu element %zu is %" PRId64 ", the reference says %" PRId64,
                      specs[k], r, i, got, want);
      }
    }
    e2e_xram_deinit(&x, m);
    tqc_compiled_destroy(c);
    tqc_module_destroy(src);
  }
  tq_buf_deinit(&md->text);
  return most_tasks;
}

#define E2E_OK(expr) TT_ASSERT_OK(expr)

/* conv2d with both zero points, stride [2, 1], dilation [1, 2], pad [1, 1, 0, 1], fused
 * per-channel DOUBLE_ROUND rescale and clamp: 1x9x7x5 -> 1x5x4x6. */
START_TEST(npu_e2e_conv2d_rescale_clamp_equals_reference) {
  e2e_seed = 11;
  tqs_tensor_t *x = e2e_tensor(TQS_I8, E2E_DIMS(1, 9, 7, 5), -128, 127);
  tqs_tensor_t *w = e2e_tensor(TQS_I8, E2E_DIMS(6, 3, 3, 5), -128, 127);
  tqs_tensor_t *b = e2e_tensor(TQS_I32, E2E_DIMS(6), -20000, 20000);
  tqs_tensor_t *m = e2e_tensor(TQS_I32, E2E_DIMS(6), 1073741824, 2147483647);
  tqs_tensor_t *s = e2e_tensor(TQS_I8, E2E_DIMS(6), 34, 40);
  tqs_tensor_t *izp = e2e_tensor(TQS_I8, E2E_DIMS(1), -3, -3);
  tqs_tensor_t *wzp = e2e_tensor(TQS_I8, E2E_DIMS(1), 2, 2);
  tqs_tensor_t *z32 = e2e_tensor(TQS_I32, E2E_DIMS(1), 0, 0);
  tqs_tensor_t *ozp = e2e_tensor(TQS_I8, E2E_DIMS(1), 5, 5);
  tqs_tensor_t *acc = e2e_tensor(TQS_I32, E2E_DIMS(1, 5, 4, 6), 0, 0);
  tqs_tensor_t *q = e2e_tensor(TQS_I8, E2E_DIMS(1, 5, 4, 6), 0, 0);
  tqs_tensor_t *want = e2e_tensor(TQS_I8, E2E_DIMS(1, 5, 4, 6), 0, 0);
  const tqs_tensor_t *conv_in[5] = {x, w, b, izp, wzp};
  tqs_tensor_t *conv_out[1] = {acc};
  const tqs_attr_t conv_attrs[4] = {TQS_ATTR_I("pad", 1, 1, 0, 1), TQS_ATTR_I("stride", 2, 1),
                                    TQS_ATTR_I("dilation", 1, 2), TQS_ATTR_S("acc_type", "i32")};
  E2E_OK(tqs_ref_run("conv2d", conv_attrs, 4, conv_in, 5, conv_out, 1));
  const tqs_tensor_t *rs_in[5] = {acc, m, s, z32, ozp};
  tqs_tensor_t *rs_out[1] = {q};
  const tqs_attr_t rs_attrs[3] = {TQS_ATTR_I("scale32", 1),
                                  TQS_ATTR_S("rounding_mode", "DOUBLE_ROUND"),
                                  TQS_ATTR_I("per_channel", 1)};
  E2E_OK(tqs_ref_run("rescale", rs_attrs, 3, rs_in, 5, rs_out, 1));
  const tqs_tensor_t *cl_in[1] = {q};
  tqs_tensor_t *cl_out[1] = {want};
  const tqs_attr_t cl_attrs[2] = {TQS_ATTR_I("min_val", -100), TQS_ATTR_I("max_val", 90)};
  E2E_OK(tqs_ref_run("clamp", cl_attrs, 2, cl_in, 1, cl_out, 1));

  e2e_model_t md = {.in = {x}, .n_in = 1, .want = {want}, .want_esz = {1}, .n_out = 1};
  tq_buf_t *t = &md.text;
  tq_buf_init(t, 0);
  E2E_OK(
      tq_buf_append_cstr(t, "func.func @main(%x: tensor<1x9x7x5xi8>) -> tensor<1x5x4x6xi8> {\n"));
  e2e_const(t, "w", w, "i8");
  e2e_const(t, "b", b, "i32");
  e2e_const(t, "izp", izp, "i8");
  e2e_const(t, "wzp", wzp, "i8");
  e2e_const(t, "m", m, "i32");
  e2e_const(t, "s", s, "i8");
  e2e_const(t, "z32", z32, "i32");
  e2e_const(t, "ozp", ozp, "i8");
  E2E_OK(tq_buf_append_cstr(
      t,
      "  %acc = tosa.conv2d %x, %w, %b, %izp, %wzp {acc_type = i32, dilation = array<i64: 1, 2>, "
      "pad = array<i64: 1, 1, 0, 1>, stride = array<i64: 2, 1>} : (tensor<1x9x7x5xi8>, "
      "tensor<6x3x3x5xi8>, tensor<6xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x5x4x6xi32>\n"
      "  %q = tosa.rescale %acc, %m, %s, %z32, %ozp {input_unsigned = false, output_unsigned = "
      "false, per_channel = true, rounding_mode = DOUBLE_ROUND, scale32 = true} : "
      "(tensor<1x5x4x6xi32>, tensor<6xi32>, tensor<6xi8>, tensor<1xi32>, tensor<1xi8>) -> "
      "tensor<1x5x4x6xi8>\n"
      "  %r = tosa.clamp %q {max_val = 90 : i8, min_val = -100 : i8} : (tensor<1x5x4x6xi8>) -> "
      "tensor<1x5x4x6xi8>\n"
      "  return %r : tensor<1x5x4x6xi8>\n}\n"));
  static const char *const specs[] = {"sl2610", "sl2610,lram=768", "sl2610,lram=600",
                                      "sl2610,lram=600,slices=1"};
  ck_assert_uint_gt(e2e_check(&md, specs, 4), 3);
}
END_TEST

/* depthwise_conv2d with channel multiplier 2, dilation [2, 1], pad 1, zero points, i32 result:
 * 1x8x6x4 -> 1x6x6x8. */
START_TEST(npu_e2e_depthwise_equals_reference) {
  e2e_seed = 12;
  tqs_tensor_t *x = e2e_tensor(TQS_I8, E2E_DIMS(1, 8, 6, 4), -128, 127);
  tqs_tensor_t *w = e2e_tensor(TQS_I8, E2E_DIMS(3, 3, 4, 2), -128, 127);
  tqs_tensor_t *b = e2e_tensor(TQS_I32, E2E_DIMS(8), -20000, 20000);
  tqs_tensor_t *izp = e2e_tensor(TQS_I8, E2E_DIMS(1), 4, 4);
  tqs_tensor_t *wzp = e2e_tensor(TQS_I8, E2E_DIMS(1), -2, -2);
  tqs_tensor_t *want = e2e_tensor(TQS_I32, E2E_DIMS(1, 6, 6, 8), 0, 0);
  const tqs_tensor_t *ins[5] = {x, w, b, izp, wzp};
  tqs_tensor_t *outs[1] = {want};
  const tqs_attr_t attrs[4] = {TQS_ATTR_I("pad", 1, 1, 1, 1), TQS_ATTR_I("stride", 1, 1),
                               TQS_ATTR_I("dilation", 2, 1), TQS_ATTR_S("acc_type", "i32")};
  E2E_OK(tqs_ref_run("depthwise_conv2d", attrs, 4, ins, 5, outs, 1));
  e2e_model_t md = {.in = {x}, .n_in = 1, .want = {want}, .want_esz = {4}, .n_out = 1};
  tq_buf_t *t = &md.text;
  tq_buf_init(t, 0);
  E2E_OK(
      tq_buf_append_cstr(t, "func.func @main(%x: tensor<1x8x6x4xi8>) -> tensor<1x6x6x8xi32> {\n"));
  e2e_const(t, "w", w, "i8");
  e2e_const(t, "b", b, "i32");
  e2e_const(t, "izp", izp, "i8");
  e2e_const(t, "wzp", wzp, "i8");
  E2E_OK(tq_buf_append_cstr(
      t,
      "  %0 = tosa.depthwise_conv2d %x, %w, %b, %izp, %wzp {acc_type = i32, dilation = "
      "array<i64: 2, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : "
      "(tensor<1x8x6x4xi8>, tensor<3x3x4x2xi8>, tensor<8xi32>, tensor<1xi8>, tensor<1xi8>) -> "
      "tensor<1x6x6x8xi32>\n"
      "  return %0 : tensor<1x6x6x8xi32>\n}\n"));
  static const char *const specs[] = {"sl2610", "sl2610,lram=1K", "sl2610,lram=700",
                                      "sl2610,lram=700,slices=1"};
  ck_assert_uint_gt(e2e_check(&md, specs, 4), 3);
}
END_TEST

/* i16 conv2d accumulating in i48 with an i48 bias: the bias constant and the result buffer
 * hold 8-byte elements (int64, sign-extended), the reference's i48 tensors byte for byte. */
START_TEST(npu_e2e_conv2d_i16_i48_equals_reference) {
  e2e_seed = 13;
  tqs_tensor_t *x = e2e_tensor(TQS_I16, E2E_DIMS(1, 6, 5, 3), -32768, 32767);
  tqs_tensor_t *w = e2e_tensor(TQS_I8, E2E_DIMS(4, 2, 2, 3), -128, 127);
  tqs_tensor_t *b = e2e_tensor(TQS_I64, E2E_DIMS(4), -(INT64_C(1) << 40), INT64_C(1) << 40);
  tqs_tensor_t *izp = e2e_tensor(TQS_I16, E2E_DIMS(1), 0, 0);
  tqs_tensor_t *wzp = e2e_tensor(TQS_I8, E2E_DIMS(1), 0, 0);
  tqs_tensor_t *want = e2e_tensor(TQS_I64, E2E_DIMS(1, 5, 4, 4), 0, 0);
  const tqs_tensor_t *ins[5] = {x, w, b, izp, wzp};
  tqs_tensor_t *outs[1] = {want};
  const tqs_attr_t attrs[4] = {TQS_ATTR_I("pad", 0, 0, 0, 0), TQS_ATTR_I("stride", 1, 1),
                               TQS_ATTR_I("dilation", 1, 1), TQS_ATTR_S("acc_type", "i48")};
  E2E_OK(tqs_ref_run("conv2d", attrs, 4, ins, 5, outs, 1));
  e2e_model_t md = {.in = {x}, .n_in = 1, .want = {want}, .want_esz = {8}, .n_out = 1};
  tq_buf_t *t = &md.text;
  tq_buf_init(t, 0);
  E2E_OK(
      tq_buf_append_cstr(t, "func.func @main(%x: tensor<1x6x5x3xi16>) -> tensor<1x5x4x4xi48> {\n"));
  e2e_const(t, "w", w, "i8");
  e2e_const(t, "b", b, "i48");
  e2e_const(t, "izp", izp, "i16");
  e2e_const(t, "wzp", wzp, "i8");
  E2E_OK(tq_buf_append_cstr(
      t,
      "  %0 = tosa.conv2d %x, %w, %b, %izp, %wzp {acc_type = i48, dilation = array<i64: 1, 1>, "
      "pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x6x5x3xi16>, "
      "tensor<4x2x2x3xi8>, tensor<4xi48>, tensor<1xi16>, tensor<1xi8>) -> tensor<1x5x4x4xi48>\n"
      "  return %0 : tensor<1x5x4x4xi48>\n}\n"));
  static const char *const specs[] = {"sl2610", "sl2610,lram=1K"};
  ck_assert_uint_gt(e2e_check(&md, specs, 2), 3);
}
END_TEST

/* matmul with zero points, B split into column groups when the LRAM is small. */
START_TEST(npu_e2e_matmul_equals_reference) {
  e2e_seed = 14;
  tqs_tensor_t *a = e2e_tensor(TQS_I8, E2E_DIMS(1, 20, 40), -128, 127);
  tqs_tensor_t *b = e2e_tensor(TQS_I8, E2E_DIMS(1, 40, 30), -128, 127);
  tqs_tensor_t *azp = e2e_tensor(TQS_I8, E2E_DIMS(1), -1, -1);
  tqs_tensor_t *bzp = e2e_tensor(TQS_I8, E2E_DIMS(1), 3, 3);
  tqs_tensor_t *want = e2e_tensor(TQS_I32, E2E_DIMS(1, 20, 30), 0, 0);
  const tqs_tensor_t *ins[4] = {a, b, azp, bzp};
  tqs_tensor_t *outs[1] = {want};
  E2E_OK(tqs_ref_run("matmul", NULL, 0, ins, 4, outs, 1));
  e2e_model_t md = {.in = {a, b}, .n_in = 2, .want = {want}, .want_esz = {4}, .n_out = 1};
  tq_buf_t *t = &md.text;
  tq_buf_init(t, 0);
  E2E_OK(tq_buf_append_cstr(t,
                            "func.func @main(%a: tensor<1x20x40xi8>, %b: tensor<1x40x30xi8>) -> "
                            "tensor<1x20x30xi32> {\n"));
  e2e_const(t, "azp", azp, "i8");
  e2e_const(t, "bzp", bzp, "i8");
  E2E_OK(tq_buf_append_cstr(
      t,
      "  %0 = tosa.matmul %a, %b, %azp, %bzp : (tensor<1x20x40xi8>, tensor<1x40x30xi8>, "
      "tensor<1xi8>, tensor<1xi8>) -> tensor<1x20x30xi32>\n"
      "  return %0 : tensor<1x20x30xi32>\n}\n"));
  static const char *const specs[] = {"sl2610", "sl2610,lram=3K", "sl2610,lram=1K",
                                      "sl2610,lram=1K,slices=1"};
  ck_assert_uint_gt(e2e_check(&md, specs, 4), 3);
}
END_TEST

/* matmul then rescale. i8 x i8 -> i32 whose accumulators overflow int32 (A and B near -128
 * with zero points 127, K = 40000): the rescale is fused and reads the accumulator wrapped to
 * 32 bits, as the reference's matmul result is. i8 x i8 -> i16 (a corpus form): the rescale is
 * not fused (the accumulator type is not the result type), the i16 result wraps, then the
 * rescale runs on its own. */
START_TEST(npu_e2e_matmul_rescale_reads_the_wrapped_accumulator) {
  for (int narrow = 0; narrow < 2; narrow++) {
    e2e_seed = 18 + (uint64_t)narrow;
    int64_t H = narrow ? 3 : 2, K = narrow ? 40 : 40000, W = narrow ? 5 : 4;
    const char *acc_t = narrow ? "i16" : "i32";
    tqs_type_t acc_type = narrow ? TQS_I16 : TQS_I32;
    int64_t hi = narrow ? 127 : -110, zp = narrow ? -3 : 127;
    tqs_tensor_t *a = e2e_tensor(TQS_I8, E2E_DIMS(1, H, K), -128, hi);
    tqs_tensor_t *b = e2e_tensor(TQS_I8, E2E_DIMS(1, K, W), -128, hi);
    tqs_tensor_t *azp = e2e_tensor(TQS_I8, E2E_DIMS(1), zp, zp);
    tqs_tensor_t *bzp = e2e_tensor(TQS_I8, E2E_DIMS(1), zp, zp);
    tqs_tensor_t *m = e2e_tensor(TQS_I32, E2E_DIMS(W), 1073741824, 2147483647);
    tqs_tensor_t *sh = e2e_tensor(TQS_I8, E2E_DIMS(W), narrow ? 36 : 56, narrow ? 38 : 56);
    tqs_tensor_t *izp = e2e_tensor(acc_type, E2E_DIMS(1), 0, 0);
    tqs_tensor_t *ozp = e2e_tensor(TQS_I8, E2E_DIMS(1), 3, 3);
    tqs_tensor_t *acc = e2e_tensor(acc_type, E2E_DIMS(1, H, W), 0, 0);
    tqs_tensor_t *want = e2e_tensor(TQS_I8, E2E_DIMS(1, H, W), 0, 0);
    {
      const tqs_tensor_t *ins[4] = {a, b, azp, bzp};
      tqs_tensor_t *outs[1] = {acc};
      E2E_OK(tqs_ref_run("matmul", NULL, 0, ins, 4, outs, 1));
    }
    {
      const tqs_tensor_t *ins[5] = {acc, m, sh, izp, ozp};
      tqs_tensor_t *outs[1] = {want};
      const tqs_attr_t attrs[3] = {TQS_ATTR_I("scale32", 1),
                                   TQS_ATTR_S("rounding_mode", "DOUBLE_ROUND"),
                                   TQS_ATTR_I("per_channel", 1)};
      E2E_OK(tqs_ref_run("rescale", attrs, 3, ins, 5, outs, 1));
    }
    /* The exact sums leave the accumulator type: every one for i32 (the wrapped ones are
     * negative), some for i16. */
    size_t outside = 0;
    for (int64_t h = 0; h < H; h++) {
      for (int64_t w = 0; w < W; w++) {
        int64_t sum = 0;
        for (int64_t k = 0; k < K; k++)
          sum += (tqs_tensor_get_i64(a, (size_t)(h * K + k)) - zp) *
                 (tqs_tensor_get_i64(b, (size_t)(k * W + w)) - zp);
        outside += narrow ? sum < INT16_MIN || sum > INT16_MAX : sum > INT32_MAX;
        if (!narrow) ck_assert_int_lt(tqs_tensor_get_i64(acc, (size_t)(h * W + w)), 0);
      }
    }
    ck_assert_uint_ge(outside, narrow ? 1 : (size_t)(H * W));
    e2e_model_t md = {.in = {a, b}, .n_in = 2, .want = {want}, .want_esz = {1}, .n_out = 1};
    tq_buf_t *t = &md.text;
    tq_buf_init(t, 0);
    E2E_OK(tq_buf_printf(t,
                         "func.func @main(%%a: tensor<1x%" PRId64 "x%" PRId64
                         "xi8>, %%b: tensor<1x%" PRId64 "x%" PRId64 "xi8>) -> tensor<1x%" PRId64
                         "x%" PRId64 "xi8> {\n",
                         H, K, K, W, H, W));
    e2e_const(t, "azp", azp, "i8");
    e2e_const(t, "bzp", bzp, "i8");
    e2e_const(t, "m", m, "i32");
    e2e_const(t, "s", sh, "i8");
    e2e_const(t, "izp", izp, acc_t);
    e2e_const(t, "ozp", ozp, "i8");
    E2E_OK(tq_buf_printf(
        t,
        "  %%acc = tosa.matmul %%a, %%b, %%azp, %%bzp : (tensor<1x%" PRId64 "x%" PRId64
        "xi8>, tensor<1x%" PRId64 "x%" PRId64
        "xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x%" PRId64 "x%" PRId64
        "x%s>\n"
        "  %%q = tosa.rescale %%acc, %%m, %%s, %%izp, %%ozp {input_unsigned = false, "
        "output_unsigned = false, per_channel = true, rounding_mode = DOUBLE_ROUND, scale32 = "
        "true} : (tensor<1x%" PRId64 "x%" PRId64 "x%s>, tensor<%" PRId64 "xi32>, tensor<%" PRId64
        "xi8>, tensor<1x%s>, tensor<1xi8>) -> tensor<1x%" PRId64 "x%" PRId64
        "xi8>\n"
        "  return %%q : tensor<1x%" PRId64 "x%" PRId64 "xi8>\n}\n",
        H, K, K, W, H, W, acc_t, H, W, acc_t, W, W, acc_t, H, W, H, W));
    static const char *const specs[] = {"sl2610", "sl2610,slices=1"};
    ck_assert_uint_gt(e2e_check(&md, specs, 2), 0);
    e2e_teardown();
  }
}
END_TEST

/* avg_pool2d (zero points, border windows of 4 and 6) and max_pool2d (padding only at the
 * bottom and the sides) in bands: 1x11x9x3 -> 1x6x5x3. */
START_TEST(npu_e2e_pools_equal_reference) {
  for (int avg = 0; avg < 2; avg++) {
    e2e_seed = 15 + (uint64_t)avg;
    tqs_tensor_t *x = e2e_tensor(TQS_I8, E2E_DIMS(1, 11, 9, 3), -128, avg ? 127 : -1);
    tqs_tensor_t *izp = e2e_tensor(TQS_I8, E2E_DIMS(1), -5, -5);
    tqs_tensor_t *ozp = e2e_tensor(TQS_I8, E2E_DIMS(1), 9, 9);
    tqs_tensor_t *want = e2e_tensor(TQS_I8, E2E_DIMS(1, 6, 5, 3), 0, 0);
    tqs_tensor_t *outs[1] = {want};
    e2e_model_t md = {.in = {x}, .n_in = 1, .want = {want}, .want_esz = {1}, .n_out = 1};
    tq_buf_t *t = &md.text;
    tq_buf_init(t, 0);
    E2E_OK(tq_buf_append_cstr(
        t, "func.func @main(%x: tensor<1x11x9x3xi8>) -> tensor<1x6x5x3xi8> {\n"));
    if (avg) {
      const tqs_tensor_t *ins[3] = {x, izp, ozp};
      const tqs_attr_t attrs[4] = {TQS_ATTR_I("kernel", 3, 3), TQS_ATTR_I("stride", 2, 2),
                                   TQS_ATTR_I("pad", 1, 1, 1, 1), TQS_ATTR_S("acc_type", "i32")};
      E2E_OK(tqs_ref_run("avg_pool2d", attrs, 4, ins, 3, outs, 1));
      e2e_const(t, "izp", izp, "i8");
      e2e_const(t, "ozp", ozp, "i8");
      E2E_OK(tq_buf_append_cstr(
          t,
          "  %0 = tosa.avg_pool2d %x, %izp, %ozp {acc_type = i32, kernel = array<i64: 3, 3>, "
          "pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 2, 2>} : (tensor<1x11x9x3xi8>, "
          "tensor<1xi8>, tensor<1xi8>) -> tensor<1x6x5x3xi8>\n"));
    } else {
      const tqs_tensor_t *ins[1] = {x};
      const tqs_attr_t attrs[3] = {TQS_ATTR_I("kernel", 2, 3), TQS_ATTR_I("stride", 2, 2),
                                   TQS_ATTR_I("pad", 0, 1, 1, 1)};
      E2E_OK(tqs_ref_run("max_pool2d", attrs, 3, ins, 1, outs, 1));
      E2E_OK(tq_buf_append_cstr(
          t,
          "  %0 = tosa.max_pool2d %x {kernel = array<i64: 2, 3>, pad = array<i64: 0, 1, 1, 1>, "
          "stride = array<i64: 2, 2>} : (tensor<1x11x9x3xi8>) -> tensor<1x6x5x3xi8>\n"));
    }
    E2E_OK(tq_buf_append_cstr(t, "  return %0 : tensor<1x6x5x3xi8>\n}\n"));
    static const char *const specs[] = {"sl2610", "sl2610,lram=512", "sl2610,lram=300"};
    ck_assert_uint_gt(e2e_check(&md, specs, 3), 3);
  }
}
END_TEST

/* sub with a one-element operand, then a per-channel rescale; mul with a shift; clamp of i16.
 * Three results. */
START_TEST(npu_e2e_eltwise_equals_reference) {
  e2e_seed = 17;
  tqs_tensor_t *a = e2e_tensor(TQS_I32, E2E_DIMS(1, 6, 5, 4), -3000000, 3000000);
  tqs_tensor_t *k = e2e_tensor(TQS_I32, E2E_DIMS(1, 1, 1, 1), -123456, -123456);
  tqs_tensor_t *c = e2e_tensor(TQS_I16, E2E_DIMS(7, 9), -32768, 32767);
  tqs_tensor_t *m = e2e_tensor(TQS_I32, E2E_DIMS(4), 1073741824, 2147483647);
  tqs_tensor_t *s = e2e_tensor(TQS_I8, E2E_DIMS(4), 36, 41);
  tqs_tensor_t *izp = e2e_tensor(TQS_I32, E2E_DIMS(1), 0, 0);
  tqs_tensor_t *ozp = e2e_tensor(TQS_I8, E2E_DIMS(1), -7, -7);
  tqs_tensor_t *sh = e2e_tensor(TQS_I8, E2E_DIMS(1), 9, 9);
  tqs_tensor_t *d = e2e_tensor(TQS_I32, E2E_DIMS(1, 6, 5, 4), 0, 0);
  tqs_tensor_t *q = e2e_tensor(TQS_I8, E2E_DIMS(1, 6, 5, 4), 0, 0);
  tqs_tensor_t *p = e2e_tensor(TQS_I32, E2E_DIMS(1, 6, 5, 4), 0, 0);
  tqs_tensor_t *r = e2e_tensor(TQS_I16, E2E_DIMS(7, 9), 0, 0);
  {
    const tqs_tensor_t *ins[2] = {a, k};
    tqs_tensor_t *outs[1] = {d};
    E2E_OK(tqs_ref_run("sub", NULL, 0, ins, 2, outs, 1));
  }
  {
    const tqs_tensor_t *ins[5] = {d, m, s, izp, ozp};
    tqs_tensor_t *outs[1] = {q};
    const tqs_attr_t attrs[3] = {TQS_ATTR_I("scale32", 1),
                                 TQS_ATTR_S("rounding_mode", "SINGLE_ROUND"),
                                 TQS_ATTR_I("per_channel", 1)};
    E2E_OK(tqs_ref_run("rescale", attrs, 3, ins, 5, outs, 1));
  }
  {
    const tqs_tensor_t *ins[3] = {a, d, sh};
    tqs_tensor_t *outs[1] = {p};
    E2E_OK(tqs_ref_run("mul", NULL, 0, ins, 3, outs, 1));
  }
  {
    const tqs_tensor_t *ins[1] = {c};
    tqs_tensor_t *outs[1] = {r};
    const tqs_attr_t attrs[2] = {TQS_ATTR_I("min_val", -1000), TQS_ATTR_I("max_val", 20000)};
    E2E_OK(tqs_ref_run("clamp", attrs, 2, ins, 1, outs, 1));
  }
  e2e_model_t md = {
      .in = {a, k, c}, .n_in = 3, .want = {q, p, r}, .want_esz = {1, 4, 2}, .n_out = 3};
  tq_buf_t *t = &md.text;
  tq_buf_init(t, 0);
  E2E_OK(tq_buf_append_cstr(
      t,
      "func.func @main(%a: tensor<1x6x5x4xi32>, %k: tensor<1x1x1x1xi32>, %c: tensor<7x9xi16>) "
      "-> (tensor<1x6x5x4xi8>, tensor<1x6x5x4xi32>, tensor<7x9xi16>) {\n"));
  e2e_const(t, "m", m, "i32");
  e2e_const(t, "s", s, "i8");
  e2e_const(t, "izp", izp, "i32");
  e2e_const(t, "ozp", ozp, "i8");
  e2e_const(t, "sh", sh, "i8");
  E2E_OK(tq_buf_append_cstr(
      t,
      "  %d = tosa.sub %a, %k : (tensor<1x6x5x4xi32>, tensor<1x1x1x1xi32>) -> tensor<1x6x5x4xi32>\n"
      "  %q = tosa.rescale %d, %m, %s, %izp, %ozp {input_unsigned = false, output_unsigned = "
      "false, "
      "per_channel = true, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x6x5x4xi32>, "
      "tensor<4xi32>, tensor<4xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x6x5x4xi8>\n"
      "  %p = tosa.mul %a, %d, %sh : (tensor<1x6x5x4xi32>, tensor<1x6x5x4xi32>, tensor<1xi8>) -> "
      "tensor<1x6x5x4xi32>\n"
      "  %r = tosa.clamp %c {max_val = 20000 : i16, min_val = -1000 : i16} : (tensor<7x9xi16>) -> "
      "tensor<7x9xi16>\n"
      "  return %q, %p, %r : tensor<1x6x5x4xi8>, tensor<1x6x5x4xi32>, tensor<7x9xi16>\n}\n"));
  static const char *const specs[] = {"sl2610", "sl2610,lram=1K", "sl2610,lram=1K,slices=1"};
  ck_assert_uint_gt(e2e_check(&md, specs, 3), 3);
}
END_TEST

Suite *npu_e2e_suite(void) {
  Suite *s = suite_create("npu_e2e");
  TCase *tc = tcase_create("corpus");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, npu_runs_every_corpus_program_and_reconciles_with_the_estimate);
  suite_add_tcase(s, tc);
  tc = tcase_create("contract");
  tcase_add_checked_fixture(tc, NULL, e2e_teardown);
  tcase_add_test(tc, npu_e2e_conv2d_rescale_clamp_equals_reference);
  tcase_add_test(tc, npu_e2e_depthwise_equals_reference);
  tcase_add_test(tc, npu_e2e_conv2d_i16_i48_equals_reference);
  tcase_add_test(tc, npu_e2e_matmul_equals_reference);
  tcase_add_test(tc, npu_e2e_matmul_rescale_reads_the_wrapped_accumulator);
  tcase_add_test(tc, npu_e2e_pools_equal_reference);
  tcase_add_test(tc, npu_e2e_eltwise_equals_reference);
  suite_add_tcase(s, tc);
  return s;
}
