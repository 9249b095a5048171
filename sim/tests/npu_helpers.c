/* Helpers of the NPU model tests (npu_helpers.h). */
#include "npu_helpers.h"

#include <string.h>

/* ---- Building programs ----------------------------------------------------------------------- */

static tn_prog_t tn_storage;
static tqs_npu_t *tn_npu_1;

static void tn_teardown(void) {
  tqs_npu_destroy(tn_npu_1);
  tn_npu_1 = NULL;
  th_free_all();
}

TCase *tn_tcase(const char *name) {
  TCase *tc = tcase_create(name);
  tcase_add_checked_fixture(tc, NULL, tn_teardown);
  return tc;
}

tqs_hw_t tn_hw(void) {
  tqs_hw_t hw;
  tqs_hw_initialize_sl2610(&hw);
  return hw;
}

/* The SL2610 NPU of the test (destroyed by the fixture). */
tqs_npu_t *tn_npu(void) {
  if (!tn_npu_1) {
    tqs_hw_t hw = tn_hw();
    TH_OK(tqs_npu_create(&hw, &tn_npu_1));
  }
  return tn_npu_1;
}

tn_prog_t *tn_prog(uint32_t job, size_t n_tasks) {
  tn_prog_t *p = &tn_storage;
  memset(p, 0, sizeof(*p));
  Torq__NssProgram pi = TORQ__NSS_PROGRAM__INIT;
  p->p = pi;
  p->p.job_id = job;
  p->p.n_tasks = n_tasks;
  p->p.tasks = p->tp;
  for (size_t k = 0; k < TN_TASKS; k++) {
    Torq__NssTask ti = TORQ__NSS_TASK__INIT;
    p->t[k] = ti;
    p->t[k].work = p->wp[k];
    p->tp[k] = &p->t[k];
  }
  return p;
}

tn_work_t *tn_work(tn_prog_t *p, size_t task, Torq__Unit unit, const char *trace,
                   const char *kernel) {
  Torq__NssTask *t = &p->t[task];
  tn_work_t *w = &p->w[task][t->n_work];
  Torq__UnitWork wi = TORQ__UNIT_WORK__INIT;
  w->w = wi;
  w->w.unit = unit;
  w->w.trace_id = (char *)trace;
  if (kernel) w->w.kernel = (char *)kernel;
  w->w.regions = w->rp;
  p->wp[task][t->n_work++] = &w->w;
  return w;
}

Torq__Region *tn_reg(tn_work_t *w, Torq__Memory mem, uint32_t buffer, uint64_t offset,
                     uint64_t size) {
  size_t i = w->w.n_regions++;
  Torq__Region ri = TORQ__REGION__INIT;
  w->r[i] = ri;
  w->r[i].memory = mem;
  w->r[i].buffer_id = buffer;
  w->r[i].offset = offset;
  w->r[i].size = size;
  w->rp[i] = &w->r[i];
  return &w->r[i];
}

/* Makes the last region of `w` strided: n levels of counts and strides. */
void tn_strided(tn_work_t *w, size_t n, uint64_t c0, uint64_t s0, uint64_t c1, uint64_t s1) {
  size_t i = w->w.n_regions - 1;
  w->counts[i][0] = c0, w->strides[i][0] = s0;
  w->counts[i][1] = c1, w->strides[i][1] = s1;
  w->r[i].n_counts = w->r[i].n_strides = n;
  w->r[i].counts = w->counts[i];
  w->r[i].strides = w->strides[i];
}

uint64_t tn_dma(uint64_t bytes) {
  return (bytes * 175 + 831) / 832;
} /* SL2610 */

/* Deterministic test data: values in [lo, hi]. */
uint64_t tn_seed;
int64_t tn_rand(int64_t lo, int64_t hi) {
  tn_seed = tn_seed * 6364136223846793005u + 1442695040888963407u;
  return lo + (int64_t)((tn_seed >> 33) % (uint64_t)(hi - lo + 1));
}

tqs_tensor_t *tn_random(tqs_type_t type, size_t rank, const int64_t *dims, int64_t lo, int64_t hi) {
  tqs_tensor_t *t = th_tensor_i(type, rank, dims, NULL);
  size_t n = 0;
  TH_OK(tqs_tensor_count(t, &n));
  for (size_t i = 0; i < n; i++) tqs_tensor_set_i64(t, i, tn_rand(lo, hi));
  return t;
}

size_t tn_bytes(const tqs_tensor_t *t) {
  size_t n = 0;
  TH_OK(tqs_tensor_byte_size(t, &n));
  return n;
}

/* ---- Running one slice kernel ---------------------------------------------------------------- */

/* The program that loads the operands into LRAM (task 0), runs `kernel` on SLICE0 (task 1) and
 * stores its result (task 2) into `out`; `xram` gets n_ops + 1 buffers. */
tn_prog_t *tn_kernel_prog(const char *kernel, Torq__KernelParams *params, const tn_op_t *ops,
                          size_t n_ops, void *out, size_t out_bytes, tqs_xram_buffer_t *xram) {
  tn_prog_t *p = tn_prog(1, 3);
  tn_work_t *in = tn_work(p, 0, TORQ__UNIT__DMA_IN, "DI0", NULL);
  tn_work_t *s = tn_work(p, 1, TORQ__UNIT__SLICE0, "S0", kernel);
  tn_work_t *o = tn_work(p, 2, TORQ__UNIT__DMA_OUT, "DO0", NULL);
  uint64_t at = 0;
  for (size_t i = 0; i < n_ops; i++) {
    xram[i].data = (uint8_t *)ops[i].data;
    xram[i].size = ops[i].bytes;
    TN_XRAM(in, (uint32_t)i, 0, ops[i].bytes);
    TN_LRAM(in, at, ops[i].bytes);
    TN_LRAM(s, at, ops[i].bytes);
    at = (at + ops[i].bytes + 63) / 64 * 64;
  }
  TN_LRAM(s, at, out_bytes);
  s->w.params = params;
  TN_LRAM(o, at, out_bytes);
  TN_XRAM(o, (uint32_t)n_ops, 0, out_bytes);
  xram[n_ops].data = out;
  xram[n_ops].size = out_bytes;
  return p;
}

tq_status_t tn_kernel(const char *kernel, Torq__KernelParams *params, const tn_op_t *ops,
                      size_t n_ops, void *out, size_t out_bytes, tqs_npu_result_t *res) {
  tqs_xram_buffer_t xram[5];
  tn_prog_t *p = tn_kernel_prog(kernel, params, ops, n_ops, out, out_bytes, xram);
  return tqs_npu_run(tn_npu(), &p->p, xram, n_ops + 1, NULL, res);
}

Torq__KernelParams tn_params(void) {
  Torq__KernelParams p = TORQ__KERNEL_PARAMS__INIT;
  return p;
}

void tn_expect_bytes(const void *got, const void *want, size_t n, const char *what) {
  const uint8_t *g = got, *w = want;
  for (size_t i = 0; i < n; i++)
    ck_assert_msg(g[i] == w[i], "%s: byte %zu is %u, expected %u", what, i, g[i], w[i]);
}

void tn_on_work(void *user, const tqs_npu_event_t *ev) {
  tn_events_t *e = user;
  if (e->n < 16) e->ev[e->n++] = *ev;
}
