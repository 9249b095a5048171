/* torq-bench-sim: the simulator's throughput on one model, in one process.
 *
 *   torq-bench-sim [-n REPS] [-a] FILE
 *
 * Parses, verifies and compiles FILE, gives every XRAM buffer of the module its bytes (constants
 * from the module, everything else seeded random), runs every NSS program once untimed (the NPU
 * sizes its scratch memory on first use), then REPS times timed. Prints one tab-separated line:
 *
 *   name  macs  elements  cycles  programs  tasks  best_s  median_s  reps  peak_rss_kb  loop
 *
 * macs: UnitWork.macs summed over the slice items of MAC kernels (conv2d, depthwise_conv2d,
 * fully_connected); elements: the same for the other slice kernels (elementwise work, which the
 * module counts in the same field); cycles: simulated cycles of one run of all programs;
 * best_s/median_s: host seconds for one run of all programs; loop: the biggest MAC op of the
 * source (by MACs) as arguments for torq-bench-loop ("conv2d N IH IW IC OC KH KW SY SX DY DX PT
 * PB PL PR", "depthwise ..." with C M in place of IC OC, "matmul B M N K"), or "-" when none;
 * peak_rss_kb: this process's peak resident set (getrusage). With -a, then one line per MAC op
 * of the source, in order: "op", a tab and its loop arguments (the anchor of a whole model).
 *
 * Exits 0, 1 when the model fails (its diagnostic on stderr), 2 on bad usage.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "torq/formats/contract.h"
#include "torq/base/status.h"
#include "torq/compiler/compile.h"
#include "torq/compiler/ir.h"
#include "torq/compiler/mlir.h"
#include "torq/sim/npu.h"

#define MAX_REPS 100000

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* ---- The biggest MAC op of the source, as torq-bench-loop arguments ------------------------- */

/* The static dims of a ranked tensor type, or 0 when it is something else. */
static size_t tensor_dims(const tqc_type_t *t, const int64_t **out_dims) {
  *out_dims = NULL;
  if (!t || t->kind != TQC_TYPE_TENSOR || !t->tensor.ranked) return 0;
  for (size_t i = 0; i < t->tensor.rank; i++)
    if (t->tensor.dims[i] < 0) return 0;
  *out_dims = t->tensor.dims;
  return t->tensor.rank;
}

/* Copies an i64 dense array attribute of `op` into `out` (n entries), or leaves `out` alone. */
static void op_i64s(const tqc_op_t *op, const char *name, int64_t *out, size_t n) {
  const tqc_attr_t *a = tqc_op_attr(op, name);
  if (!a || a->kind != TQC_ATTR_DENSE_ARRAY || a->dense_array.count != n ||
      tqc_type_bit_width(a->dense_array.element) != 64)
    return;
  memcpy(out, a->dense_array.data, n * sizeof(*out));
}

/* Writes the loop arguments of `op` to `buf` and returns its MACs, or 0 for other ops. */
static uint64_t op_loop_spec(const tqc_op_t *op, char *buf, size_t cap) {
  int is_conv = tqc_op_is(op, "tosa.conv2d"), is_dw = tqc_op_is(op, "tosa.depthwise_conv2d");
  int is_mm = tqc_op_is(op, "tosa.matmul");
  if ((!is_conv && !is_dw && !is_mm) || op->num_operand_types < 2 || op->num_results < 1)
    return 0;
  const int64_t *in, *w, *out;
  size_t rin = tensor_dims(op->operand_types[0], &in), rw = tensor_dims(op->operand_types[1], &w);
  size_t rout = tensor_dims(op->results[0]->type, &out);
  if (is_mm) {
    if (rin != 3 || rw != 3 || rout != 3) return 0;
    snprintf(buf, cap, "matmul %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64, in[0], in[1], w[2],
             in[2]);
    return (uint64_t)in[0] * (uint64_t)in[1] * (uint64_t)w[2] * (uint64_t)in[2];
  }
  if (rin != 4 || rw != 4 || rout != 4) return 0;
  int64_t stride[2] = {1, 1}, dil[2] = {1, 1}, pad[4] = {0, 0, 0, 0};
  op_i64s(op, "stride", stride, 2);
  op_i64s(op, "dilation", dil, 2);
  op_i64s(op, "pad", pad, 4);
  /* conv2d weights OHWI: OC KH KW IC; depthwise HWCM: KH KW C M. */
  int64_t kh = is_conv ? w[1] : w[0], kw = is_conv ? w[2] : w[1];
  int64_t c1 = is_conv ? in[3] : w[2], c2 = is_conv ? w[0] : w[3];
  snprintf(buf, cap,
           "%s %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64
           " %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64
           " %" PRId64,
           is_conv ? "conv2d" : "depthwise", in[0], in[1], in[2], c1, c2, kh, kw, stride[0],
           stride[1], dil[0], dil[1], pad[0], pad[1], pad[2], pad[3]);
  uint64_t per_out = (uint64_t)kh * (uint64_t)kw * (is_conv ? (uint64_t)c1 : 1);
  return (uint64_t)out[0] * (uint64_t)out[1] * (uint64_t)out[2] * (uint64_t)out[3] * per_out;
}

/* The biggest MAC op's loop arguments into `buf`; with `all`, every MAC op's to it as well. */
static void mac_ops(const tqc_module_t *module, char *buf, size_t cap, FILE *all) {
  snprintf(buf, cap, "-");
  const tqc_op_t *func = tqc_module_entry(module);
  if (!func || func->num_regions < 1 || func->regions[0].num_blocks < 1) return;
  uint64_t best = 0;
  char spec[256];
  for (const tqc_op_t *op = func->regions[0].blocks[0]->first; op; op = op->next) {
    uint64_t macs = op_loop_spec(op, spec, sizeof(spec));
    if (macs && all) fprintf(all, "op\t%s\n", spec);
    if (macs > best) {
      best = macs;
      snprintf(buf, cap, "%s", spec);
    }
  }
}

/* ---- XRAM ------------------------------------------------------------------------------------ */

typedef struct xram_s {
  tqs_xram_buffer_t *bufs;
  size_t n;
} xram_t;

static uint64_t xorshift(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

static void xram_deinit(xram_t *x, const Torq__Module *m) {
  for (size_t i = 0; i < x->n; i++)
    if (m->buffers[i]->contents_case != TORQ__BUFFER__CONTENTS_VIEW) free(x->bufs[i].data);
  free(x->bufs);
  x->bufs = NULL;
  x->n = 0;
}

/* Every XRAM buffer of `m`: constants from their data, others seeded random; views into their
 * base buffer. LRAM buffers stay unallocated. */
static tq_status_t xram_init(xram_t *x, const Torq__Module *m, uint64_t seed) {
  x->n = m->n_buffers;
  x->bufs = calloc(x->n ? x->n : 1, sizeof(*x->bufs));
  if (!x->bufs) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory for the XRAM table");
  uint64_t s = seed | 1;
  for (size_t i = 0; i < m->n_buffers; i++) {
    const Torq__Buffer *b = m->buffers[i];
    if (b->contents_case == TORQ__BUFFER__CONTENTS_VIEW || b->memory != TORQ__MEMORY__XRAM)
      continue;
    x->bufs[i].size = (size_t)b->size;
    x->bufs[i].data = malloc(b->size ? (size_t)b->size : 1);
    if (!x->bufs[i].data)
      return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory for buffer %zu (%" PRIu64 " bytes)", i,
                       b->size);
    if (b->contents_case == TORQ__BUFFER__CONTENTS_CONSTANT_ID) {
      const Torq__Constant *c =
          b->constant_id < m->n_constants ? m->constants[b->constant_id] : NULL;
      if (!c || c->data.len != b->size)
        return TQ_STATUS(TQ_INVALID_INPUT, "buffer %zu: bad constant %" PRIu32, i,
                         b->constant_id);
      if (c->data.len) memcpy(x->bufs[i].data, c->data.data, c->data.len);
    } else {
      for (size_t j = 0; j < b->size; j++) x->bufs[i].data[j] = (uint8_t)xorshift(&s);
    }
  }
  for (size_t i = 0; i < m->n_buffers; i++) {
    const Torq__Buffer *b = m->buffers[i];
    if (b->contents_case != TORQ__BUFFER__CONTENTS_VIEW) continue;
    const Torq__View *v = b->view;
    if (v->buffer_id >= x->n || !x->bufs[v->buffer_id].data ||
        v->offset > x->bufs[v->buffer_id].size ||
        b->size > x->bufs[v->buffer_id].size - v->offset)
      return TQ_STATUS(TQ_INVALID_INPUT, "buffer %zu: bad view", i);
    x->bufs[i].data = x->bufs[v->buffer_id].data + v->offset;
    x->bufs[i].size = (size_t)b->size;
  }
  return NULL;
}

/* ---- The benchmark --------------------------------------------------------------------------- */

typedef struct bench_s {
  uint64_t macs, elements, cycles, tasks;
  size_t programs;
  double best_s, median_s;
  char loop[256];
} bench_t;

static int is_mac_kernel(const char *kernel) {
  tqf_kernel_t k = tqf_kernel_lookup(kernel);
  return k == TQF_KERNEL_CONV2D || k == TQF_KERNEL_DEPTHWISE_CONV2D ||
         k == TQF_KERNEL_FULLY_CONNECTED;
}

static void count_work(const Torq__Module *m, bench_t *b) {
  for (size_t p = 0; p < m->n_nss_programs; p++) {
    const Torq__NssProgram *prog = m->nss_programs[p];
    b->tasks += prog->n_tasks;
    for (size_t t = 0; t < prog->n_tasks; t++)
      for (size_t w = 0; w < prog->tasks[t]->n_work; w++) {
        const Torq__UnitWork *uw = prog->tasks[t]->work[w];
        if (uw->unit != TORQ__UNIT__SLICE0 && uw->unit != TORQ__UNIT__SLICE1) continue;
        if (is_mac_kernel(uw->kernel))
          b->macs += uw->macs;
        else
          b->elements += uw->macs;
      }
  }
}

/* One run of every NSS program of `m`; adds the simulated cycles to *cycles. */
static tq_status_t run_all(tqs_npu_t *npu, const Torq__Module *m, const xram_t *x,
                           uint64_t *cycles) {
  for (size_t p = 0; p < m->n_nss_programs; p++) {
    tqs_npu_result_t r;
    TQ_TRY(tqs_npu_run(npu, m->nss_programs[p], x->bufs, x->n, NULL, &r));
    *cycles += r.cycles;
  }
  return NULL;
}

static tq_status_t time_runs(tqs_npu_t *npu, const Torq__Module *m, const xram_t *x, long reps,
                             bench_t *b) {
  double *times = calloc((size_t)reps, sizeof(*times));
  if (!times) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory for %ld samples", reps);
  uint64_t warm = 0;
  tq_status_t st = run_all(npu, m, x, &warm);
  for (long r = 0; !st && r < reps; r++) {
    uint64_t cycles = 0;
    double t0 = now_s();
    st = run_all(npu, m, x, &cycles);
    times[r] = now_s() - t0;
    if (!st && cycles != warm)
      st = TQ_STATUS(TQ_INTERNAL, "run %ld took %" PRIu64 " cycles, the first %" PRIu64, r, cycles,
                     warm);
  }
  if (!st) {
    qsort(times, (size_t)reps, sizeof(*times), cmp_double);
    b->cycles = warm;
    b->best_s = times[0];
    b->median_s = reps % 2 ? times[reps / 2] : (times[reps / 2 - 1] + times[reps / 2]) / 2;
  }
  free(times);
  return st;
}

static tq_status_t bench_file(const char *path, long reps, FILE *all, bench_t *b) {
  tqc_module_t *src = NULL;
  tqc_compiled_t *compiled = NULL;
  tqs_npu_t *npu = NULL;
  xram_t x = {NULL, 0};
  const Torq__Module *m = NULL;
  tqc_compile_options_t options;
  tqc_compile_options_initialize(&options);
  tq_status_t st = tqc_module_parse_file(path, NULL, &src);
  if (!st) st = tqc_module_verify(src);
  if (!st) st = tqc_compile(src, &options, &compiled);
  if (!st) {
    mac_ops(src, b->loop, sizeof(b->loop), all);
    m = tqc_compiled_module(compiled);
    b->programs = m->n_nss_programs;
    count_work(m, b);
    st = xram_init(&x, m, 0x9e3779b97f4a7c15u);
  }
  if (!st) st = tqs_npu_create(&options.hw, &npu);
  if (!st) st = time_runs(npu, m, &x, reps, b);
  tqs_npu_destroy(npu);
  if (m) xram_deinit(&x, m);
  tqc_compiled_destroy(compiled);
  tqc_module_destroy(src);
  return st;
}

int main(int argc, char **argv) {
  long reps = 10;
  int first = 1, all = 0;
  if (argc > 2 && strcmp(argv[1], "-n") == 0) {
    char *end;
    reps = strtol(argv[2], &end, 10);
    if (*end || reps < 1 || reps > MAX_REPS) {
      fprintf(stderr, "torq-bench-sim: -n wants a count from 1 to %d, not '%s'\n", MAX_REPS,
              argv[2]);
      return 2;
    }
    first = 3;
  }
  if (first < argc && strcmp(argv[first], "-a") == 0) {
    all = 1;
    first++;
  }
  if (first + 1 != argc || argv[first][0] == '-') {
    fprintf(stderr, "usage: torq-bench-sim [-n REPS] [-a] FILE\n");
    return 2;
  }
  bench_t b;
  memset(&b, 0, sizeof(b));
  /* The op lines follow the result line: collected first, printed after it. */
  char *ops = NULL;
  size_t ops_len = 0;
  FILE *ops_f = all ? open_memstream(&ops, &ops_len) : NULL;
  if (all && !ops_f) {
    fprintf(stderr, "torq-bench-sim: out of memory\n");
    return 1;
  }
  tq_status_t st = bench_file(argv[first], reps, ops_f, &b);
  if (ops_f) fclose(ops_f);
  if (st) {
    char *text = tq_status_format(st, 0);
    fprintf(stderr, "torq-bench-sim: %s: %s\n", argv[first], text ? text : "out of memory");
    free(text);
    tq_status_free(st);
    free(ops);
    return 1;
  }
  struct rusage ru;
  long rss = getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : 0;
  printf("%s\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%zu\t%" PRIu64 "\t%.6f\t%.6f\t%ld\t%ld\t%s\n",
         argv[first], b.macs, b.elements, b.cycles, b.programs, b.tasks, b.best_s, b.median_s, reps,
         rss, b.loop);
  if (ops) fputs(ops, stdout);
  free(ops);
  return 0;
}
