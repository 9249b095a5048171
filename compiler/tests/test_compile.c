/* tqc_compile: the cost model against numbers worked out by hand from the formulas of DESIGN
 * section 4, tiling, fusion, host fallback, views, diagnostics, and the whole corpus through
 * compile, pack, unpack, trace.csv and debug info. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "module.pb-c.h"
#include "suites.h"
#include "torq/base/alloc.h"
#include "torq/base/version.h"
#include "torq/base/file.h"
#include "torq/compiler/compile.h"
#include "torq/sim/cost_model.h"
#include "torq/compiler/ir.h"
#include "torq/compiler/mlir.h"
#include "tq_test.h"

/* Asserts that a status is OK, showing the error otherwise. */
#define TC_OK(expr)                                                   \
  do {                                                                \
    tq_status_t tc__s = (expr);                                       \
    if (tc__s) {                                                      \
      char *tc__t = tq_status_format(tc__s, 1);                       \
      tq_status_free(tc__s);                                          \
      ck_abort_msg("unexpected status: %s", tc__t ? tc__t : "(oom)"); \
    }                                                                 \
  } while (0)

/* SL2610 DMA by hand: 8 bytes/cycle * 0.65 * 16 / (16 + 1.5) = 832/175 bytes per cycle, so a
 * transfer of B bytes takes ceil(B * 175 / 832) cycles, plus the estimate's 40 cycles of set-up
 * per transfer. */
#define SETUP 40
static uint64_t hand_dma(uint64_t bytes) {
  return (bytes * 175 + 831) / 832 + SETUP;
}
/* i8 slices: 256 MACs per cycle, 64 lanes, plus 64 cycles per task. */
static uint64_t hand_macs_i8(uint64_t macs) {
  return (macs + 255) / 256 + 64;
}
static uint64_t hand_lanes(uint64_t elems, uint64_t per_cycle) {
  return (elems + per_cycle - 1) / per_cycle + 64;
}
#define TASK_GAP 16 /* nss_task_overhead_cycles */

typedef struct tc_s {
  tqc_module_t *src;
  tqc_compiled_t *c;
  const Torq__Module *m;
} tc_t;

/* Compiles with the tiling `tiling`: the hand-worked tests take TQC_TILING_FEWEST (one tile
 * whenever the layer fits), whose plans a person can follow. */
static tc_t compile_tiled(const char *text, const char *hw_spec, tqc_tiling_t tiling) {
  tc_t t = {0};
  TC_OK(tqc_module_parse("t.mlir", text, strlen(text), NULL, &t.src));
  TC_OK(tqc_module_verify(t.src));
  tqc_compile_options_t o;
  tqc_compile_options_initialize(&o);
  o.tiling = tiling;
  if (hw_spec) {
    TC_OK(tqs_hw_parse(hw_spec, &o.hw));
    o.hw_spec = hw_spec;
  }
  TC_OK(tqc_compile(t.src, &o, &t.c));
  t.m = tqc_compiled_module(t.c);
  return t;
}

static tc_t compile_text(const char *text, const char *hw_spec) {
  return compile_tiled(text, hw_spec, TQC_TILING_PIPELINE);
}

static tc_t compile_fewest(const char *text, const char *hw_spec) {
  return compile_tiled(text, hw_spec, TQC_TILING_FEWEST);
}

static void tc_free(tc_t *t) {
  tqc_compiled_destroy(t->c);
  tqc_module_destroy(t->src);
}

static const Torq__UnitWork *unit_of(const Torq__NssTask *task, Torq__Unit unit) {
  for (size_t i = 0; i < task->n_work; i++)
    if (task->work[i]->unit == unit) return task->work[i];
  return NULL;
}

static uint64_t dur(const Torq__UnitWork *u) {
  return u->estimated_end - u->estimated_start;
}

/* A layer's pipeline (lower_nss.c): its three stage programs from job `first` on, checked (the
 * prologue's one task loads the first tile, the epilogue's one task stores the last), and their
 * tasks in the pipeline's order, task k of the layer's n + 2. Times stay each program's own,
 * from its start; estimated_cycles is the three programs' together. */
#define LAYER_MAX_TASKS 256
typedef struct layer_s {
  const Torq__NssProgram *stage[3];
  const Torq__NssTask *tasks[LAYER_MAX_TASKS];
  size_t n_tasks;
  uint64_t estimated_cycles;
} layer_t;

static layer_t layer_at(const Torq__Module *m, size_t first) {
  static const Torq__Stage want[3] = {TORQ__STAGE__PROLOGUE, TORQ__STAGE__STEADY,
                                      TORQ__STAGE__EPILOGUE};
  layer_t l;
  memset(&l, 0, sizeof(l));
  ck_assert_uint_ge(m->n_nss_programs, first + 3);
  for (size_t s = 0; s < 3; s++) {
    const Torq__NssProgram *p = m->nss_programs[first + s];
    ck_assert_int_eq(p->stage, want[s]);
    ck_assert_uint_eq(p->job_id, first + s);
    l.stage[s] = p;
    for (size_t k = 0; k < p->n_tasks; k++) {
      ck_assert_uint_lt(l.n_tasks, LAYER_MAX_TASKS);
      l.tasks[l.n_tasks++] = p->tasks[k];
    }
    l.estimated_cycles += p->estimated_cycles;
  }
  ck_assert_uint_eq(l.stage[0]->n_tasks, 1);
  ck_assert_uint_eq(l.stage[2]->n_tasks, 1);
  /* The prologue only loads, the epilogue only stores. */
  ck_assert_uint_eq(l.stage[0]->tasks[0]->n_work, 1);
  ck_assert_int_eq(l.stage[0]->tasks[0]->work[0]->unit, TORQ__UNIT__DMA_IN);
  ck_assert_uint_eq(l.stage[2]->tasks[0]->n_work, 1);
  ck_assert_int_eq(l.stage[2]->tasks[0]->work[0]->unit, TORQ__UNIT__DMA_OUT);
  return l;
}

/* ---- Elementwise add ------------------------------------------------------------------------ */

static const char *ADD_I8 =
    "func.func @main(%a: tensor<1x28x28x24xi32>, %b: tensor<1x28x28x24xi32>) -> "
    "tensor<1x28x28x24xi32> {\n"
    "  %0 = tosa.add %a, %b : (tensor<1x28x28x24xi32>, tensor<1x28x28x24xi32>) -> "
    "tensor<1x28x28x24xi32>\n"
    "  return %0 : tensor<1x28x28x24xi32>\n"
    "}\n";

START_TEST(compile_add_cycles_match_hand_worked_cost_model) {
  tc_t t = compile_fewest(ADD_I8, NULL);
  const uint64_t E = 28 * 28 * 24, B = 4 * E; /* 18816 i32 elements, 75264 bytes */
  /* One tile: 2 x (2B inputs + B output) = 451584 <= 512 KiB. */
  /* One layer: load, compute and store, each an NSS program of one task. */
  ck_assert_uint_eq(t.m->n_nss_programs, 3);
  const layer_t l = layer_at(t.m, 0), *p = &l;
  ck_assert_uint_eq(p->n_tasks, 3);
  const Torq__UnitWork *di = unit_of(p->tasks[0], TORQ__UNIT__DMA_IN);
  ck_assert_ptr_nonnull(di);
  ck_assert_uint_eq(di->bytes, 2 * B);
  ck_assert_uint_eq(di->n_regions, 4);  /* two transfers, [source, destination] each */
  uint64_t in_cycles = 2 * hand_dma(B); /* 2 x (ceil(75264 * 175 / 832) + 40) = 2 x 15871 */
  ck_assert_uint_eq(in_cycles, 31742);
  ck_assert_uint_eq(dur(di), in_cycles);
  /* DMA_IN equals input bytes over the throughput, plus the set-up of its two transfers, within
   * one cycle per transfer. */
  double exact = (double)(2 * B) / (8 * 0.65 * 16 / 17.5) + 2 * SETUP;
  ck_assert(dur(di) >= exact && dur(di) <= exact + 2);
  /* Slices: E / 2 elements each at 64 / 4 = 16 i32 elements per cycle, + 64. */
  const Torq__UnitWork *s0 = unit_of(p->tasks[1], TORQ__UNIT__SLICE0);
  const Torq__UnitWork *s1 = unit_of(p->tasks[1], TORQ__UNIT__SLICE1);
  ck_assert_ptr_nonnull(s0);
  ck_assert_ptr_nonnull(s1);
  ck_assert_str_eq(s0->kernel, "add");
  ck_assert_uint_eq(s0->macs, E / 2);
  ck_assert_uint_eq(dur(s1), hand_lanes(E / 2, 16)); /* 588 + 64 = 652 */
  ck_assert_uint_eq(dur(s0), 652);
  /* Each stage program starts at its own cycle 0; no NSS task gap between them (the host's
   * NSS_WAIT and NSS_START are). */
  ck_assert_uint_eq(s0->estimated_start, 0);
  ck_assert_uint_eq(l.stage[0]->estimated_cycles, in_cycles);
  ck_assert_uint_eq(l.stage[1]->estimated_cycles, 652);
  const Torq__UnitWork *dout = unit_of(p->tasks[2], TORQ__UNIT__DMA_OUT);
  ck_assert_uint_eq(dout->bytes, B);
  ck_assert_uint_eq(dout->estimated_start, 0);
  ck_assert_uint_eq(l.stage[2]->estimated_cycles, hand_dma(B));
  ck_assert_uint_eq(p->estimated_cycles, in_cycles + 652 + hand_dma(B));
  ck_assert_uint_eq(p->estimated_cycles, 48177 + 3 * SETUP - 2 * TASK_GAP);
  ck_assert_uint_eq(tqc_compiled_estimated_cycles(t.c), p->estimated_cycles);
  tc_free(&t);
}
END_TEST

/* The corpus's add.mlir: the rescale -> rescale, rescale -> add -> rescale chain is one NSS
 * program whose intermediates stay in LRAM, so DMA_IN makes one pass over the 75,264-byte input
 * (in tiles): bytes over the DMA throughput, about 15,831 cycles, plus the set-up of each
 * transfer, within one cycle per transfer; and DMA_OUT one pass over the i8 result. */
START_TEST(compile_corpus_add_dma_in_equals_bytes_over_throughput) {
  const char *corpus = tq_test_corpus();
  if (!corpus) return;
  char path[4096];
  snprintf(path, sizeof(path), "%s/add.mlir", corpus); /* in the corpus: a failure when absent */
  tqc_module_t *src = NULL;
  tqc_compiled_t *c = NULL;
  TC_OK(tqc_module_parse_file(path, NULL, &src));
  TC_OK(tqc_compile(src, NULL, &c));
  const Torq__Module *m = tqc_compiled_module(c);
  /* rescale(i8 arg) ; rescale(i32) ; rescale(i8 arg) ; add(i32, i32) ; rescale(i32) */
  const uint64_t E = 56 * 56 * 24;
  const uint64_t input_bytes = E;
  uint64_t cycles = 0, bytes = 0, transfers = 0, out_bytes = 0;
  ck_assert_uint_eq(m->n_nss_programs, 3); /* one layer: prologue, steady state, epilogue */
  (void)layer_at(m, 0);
  ck_assert_uint_eq(m->n_host_programs, 0);
  size_t kernels = 0;
  for (size_t p = 0; p < m->n_nss_programs; p++)
    for (size_t k = 0; k < m->nss_programs[p]->n_tasks; k++) {
      const Torq__NssTask *task = m->nss_programs[p]->tasks[k];
      const Torq__UnitWork *u = unit_of(task, TORQ__UNIT__DMA_IN);
      const Torq__UnitWork *o = unit_of(task, TORQ__UNIT__DMA_OUT);
      if (o) out_bytes += o->bytes;
      for (size_t w = 0; w < task->n_work; w++)
        kernels += task->work[w]->unit == TORQ__UNIT__SLICE0;
      if (!u) continue;
      cycles += dur(u);
      bytes += u->bytes;
      transfers += u->n_regions / 2;
    }
  ck_assert_uint_eq(bytes, input_bytes);
  ck_assert_uint_eq(out_bytes, E);
  ck_assert_uint_eq(kernels % 5, 0); /* slice 0 runs the five kernels on every tile */
  double exact = (double)input_bytes * 175.0 / 832.0;
  ck_assert_uint_eq((uint64_t)exact, 15830);
  ck_assert_msg(cycles >= exact + SETUP * (double)transfers &&
                    cycles <= exact + (SETUP + 1) * (double)transfers,
                "DMA_IN %llu cycles, bytes/throughput %.2f, %llu transfers",
                (unsigned long long)cycles, exact, (unsigned long long)transfers);
  ck_assert_msg(cycles <= exact * 1.05, "DMA_IN %llu cycles: not about one pass (%.0f)",
                (unsigned long long)cycles, exact);
  tqc_compiled_destroy(c);
  tqc_module_destroy(src);
}
END_TEST

/* ---- conv2d, depthwise, matmul -------------------------------------------------------------- */

static const char *CONV =
    "func.func @main(%x: tensor<1x8x8x16xi8>) -> tensor<1x8x8x32xi32> {\n"
    "  %w = \"tosa.const\"() <{values = dense<1> : tensor<32x3x3x16xi8>}> : () -> "
    "tensor<32x3x3x16xi8>\n"
    "  %b = \"tosa.const\"() <{values = dense<7> : tensor<32xi32>}> : () -> tensor<32xi32>\n"
    "  %zp = \"tosa.const\"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>\n"
    "  %0 = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = i32, dilation = array<i64: 1, 1>, "
    "pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x8x8x16xi8>, "
    "tensor<32x3x3x16xi8>, tensor<32xi32>, tensor<1xi8>, tensor<1xi8>) -> "
    "tensor<1x8x8x32xi32>\n"
    "  return %0 : tensor<1x8x8x32xi32>\n"
    "}\n";

START_TEST(compile_conv2d_cycles_match_hand_worked_cost_model) {
  tc_t t = compile_fewest(CONV, NULL);
  ck_assert_uint_eq(t.m->n_nss_programs, 3);
  const layer_t l = layer_at(t.m, 0), *p = &l;
  ck_assert_uint_eq(p->n_tasks, 3);
  /* Task 0: the packed weights+bias (32*3*3*16 + 32*4 = 4736 bytes) and the input (1024). */
  const Torq__UnitWork *di = unit_of(p->tasks[0], TORQ__UNIT__DMA_IN);
  ck_assert_uint_eq(di->n_regions, 4);
  ck_assert_uint_eq(di->regions[0]->size, 4736);
  ck_assert_uint_eq(di->regions[2]->size, 1024);
  uint64_t in_cycles = hand_dma(4736) + hand_dma(1024); /* 997 + 40 + 216 + 40 */
  ck_assert_uint_eq(dur(di), in_cycles);
  /* The packed constant: weights (all 1) then the bias 7 as little-endian i32. */
  const Torq__Buffer *wb = t.m->buffers[di->regions[0]->buffer_id];
  ck_assert_int_eq(wb->contents_case, TORQ__BUFFER__CONTENTS_CONSTANT_ID);
  const Torq__Constant *k = t.m->constants[wb->constant_id];
  ck_assert_uint_eq(k->data.len, 4736);
  ck_assert_uint_eq(k->data.data[4607], 1);
  ck_assert_uint_eq(k->data.data[4608], 7);
  ck_assert_uint_eq(k->data.data[4609], 0);
  /* Slices: 8 rows split 4/4; 4*8*32*9*16 = 147456 MACs each, /256 + 64 = 640 cycles. */
  const Torq__UnitWork *s0 = unit_of(p->tasks[1], TORQ__UNIT__SLICE0);
  const Torq__UnitWork *s1 = unit_of(p->tasks[1], TORQ__UNIT__SLICE1);
  ck_assert_str_eq(s0->kernel, "conv2d");
  ck_assert_uint_eq(s0->macs, 147456);
  ck_assert_uint_eq(s1->macs, 147456);
  ck_assert_uint_eq(dur(s0), hand_macs_i8(147456));
  ck_assert_uint_eq(dur(s0), 640);
  /* Slice 0 owns output rows 0-3: input rows 0-4 with the top pad; slice 1 rows 3-7. */
  ck_assert_int_eq(s0->params->input_shape[1], 5);
  ck_assert_int_eq(s0->params->pad[0], 1);
  ck_assert_int_eq(s0->params->pad[1], 0);
  ck_assert_int_eq(s1->params->input_shape[1], 5);
  ck_assert_int_eq(s1->params->pad[0], 0);
  ck_assert_int_eq(s1->params->pad[1], 1);
  ck_assert_uint_eq(s1->regions[0]->offset - s0->regions[0]->offset, 3 * 8 * 16);
  ck_assert_uint_eq(s0->params->n_multiplier, 0);
  ck_assert_int_eq(s0->params->clamp_min, INT32_MIN);
  /* DMA_OUT: 8*8*32*4 = 8192 bytes. */
  const Torq__UnitWork *dout = unit_of(p->tasks[2], TORQ__UNIT__DMA_OUT);
  ck_assert_uint_eq(dout->bytes, 8192);
  uint64_t end = in_cycles + 640 + hand_dma(8192);
  ck_assert_uint_eq(p->estimated_cycles, end);
  ck_assert_uint_eq(tqc_compiled_estimated_cycles(t.c), end);
  tc_free(&t);
}
END_TEST

static const char *DW =
    "func.func @main(%x: tensor<1x10x10x8xi8>) -> tensor<1x5x5x16xi32> {\n"
    "  %w = \"tosa.const\"() <{values = dense<2> : tensor<3x3x8x2xi8>}> : () -> "
    "tensor<3x3x8x2xi8>\n"
    "  %b = \"tosa.const\"() <{values = dense<0> : tensor<16xi32>}> : () -> tensor<16xi32>\n"
    "  %zp = \"tosa.const\"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>\n"
    "  %0 = tosa.depthwise_conv2d %x, %w, %b, %zp, %zp {acc_type = i32, dilation = "
    "array<i64: 1, 1>, pad = array<i64: 0, 1, 0, 1>, stride = array<i64: 2, 2>} : "
    "(tensor<1x10x10x8xi8>, tensor<3x3x8x2xi8>, tensor<16xi32>, tensor<1xi8>, tensor<1xi8>) -> "
    "tensor<1x5x5x16xi32>\n"
    "  return %0 : tensor<1x5x5x16xi32>\n"
    "}\n";

START_TEST(compile_depthwise_cycles_match_hand_worked_cost_model) {
  tc_t t = compile_fewest(DW, NULL);
  const layer_t l = layer_at(t.m, 0), *p = &l;
  ck_assert_uint_eq(p->n_tasks, 3);
  const Torq__UnitWork *di = unit_of(p->tasks[0], TORQ__UNIT__DMA_IN);
  /* weights 3*3*8*2 = 144 + bias 16*4 = 64 -> 208 bytes; input rows 0-9 (the last output row
   * reads rows 8-10, row 10 is padding): 10*10*8 = 800. */
  ck_assert_uint_eq(di->regions[0]->size, 208);
  ck_assert_uint_eq(di->regions[2]->size, 800);
  ck_assert_uint_eq(dur(di), hand_dma(208) + hand_dma(800));
  /* 5 output rows: slice 0 rows 0-2 (input rows 0-6), slice 1 rows 3-4 (input rows 6-9 + one
   * pad row). MACs: rows*5*16*9. */
  const Torq__UnitWork *s0 = unit_of(p->tasks[1], TORQ__UNIT__SLICE0);
  const Torq__UnitWork *s1 = unit_of(p->tasks[1], TORQ__UNIT__SLICE1);
  ck_assert_str_eq(s0->kernel, "depthwise_conv2d");
  ck_assert_uint_eq(s0->macs, 3 * 5 * 16 * 9);
  ck_assert_uint_eq(s1->macs, 2 * 5 * 16 * 9);
  ck_assert_uint_eq(dur(s0), hand_macs_i8(2160)); /* 9 + 64 */
  ck_assert_uint_eq(dur(s1), hand_macs_i8(1440)); /* 6 + 64 */
  ck_assert_int_eq(s0->params->input_shape[1], 7);
  ck_assert_int_eq(s1->params->input_shape[1], 4);
  ck_assert_int_eq(s1->params->pad[1], 1);
  ck_assert_int_eq(s1->params->weight_shape[2], 8);
  ck_assert_int_eq(s1->params->weight_shape[3], 2);
  ck_assert_uint_eq(s1->regions[0]->offset - s0->regions[0]->offset, 6 * 10 * 8);
  const Torq__UnitWork *dout = unit_of(p->tasks[2], TORQ__UNIT__DMA_OUT);
  ck_assert_uint_eq(dout->bytes, 5 * 5 * 16 * 4);
  uint64_t end = dur(di) + 73 + hand_dma(1600);
  ck_assert_uint_eq(p->estimated_cycles, end);
  tc_free(&t);
}
END_TEST

static const char *MATMUL =
    "func.func @main(%a: tensor<1x32x64xi8>, %b: tensor<1x64x48xi8>) -> tensor<1x32x48xi32> {\n"
    "  %zp = \"tosa.const\"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>\n"
    "  %0 = tosa.matmul %a, %b, %zp, %zp : (tensor<1x32x64xi8>, tensor<1x64x48xi8>, "
    "tensor<1xi8>, tensor<1xi8>) -> tensor<1x32x48xi32>\n"
    "  return %0 : tensor<1x32x48xi32>\n"
    "}\n";

START_TEST(compile_matmul_cycles_match_hand_worked_cost_model) {
  tc_t t = compile_fewest(MATMUL, NULL);
  const layer_t l = layer_at(t.m, 0), *p = &l;
  ck_assert_uint_eq(p->n_tasks, 3);
  const Torq__UnitWork *di = unit_of(p->tasks[0], TORQ__UNIT__DMA_IN);
  /* B resident (64*48 = 3072 bytes) first, then the rows of A (32*64 = 2048). */
  ck_assert_uint_eq(di->regions[0]->size, 3072);
  ck_assert_uint_eq(di->regions[0]->buffer_id, t.m->function->input_buffers[1]);
  ck_assert_uint_eq(di->regions[2]->size, 2048);
  ck_assert_uint_eq(dur(di), hand_dma(3072) + hand_dma(2048));
  const Torq__UnitWork *s0 = unit_of(p->tasks[1], TORQ__UNIT__SLICE0);
  ck_assert_str_eq(s0->kernel, "fully_connected");
  ck_assert_uint_eq(s0->macs, 16 * 48 * 64);
  ck_assert_uint_eq(dur(s0), hand_macs_i8(49152)); /* 192 + 64 */
  ck_assert_int_eq(s0->params->weight_shape[0], 64);
  ck_assert_int_eq(s0->params->weight_shape[1], 48);
  const Torq__UnitWork *dout = unit_of(p->tasks[2], TORQ__UNIT__DMA_OUT);
  ck_assert_uint_eq(dout->bytes, 32 * 48 * 4);
  ck_assert_uint_eq(p->estimated_cycles, dur(di) + 256 + hand_dma(6144));
  tc_free(&t);
}
END_TEST

/* ---- Tiling --------------------------------------------------------------------------------- */

static const char *BIG_CONV =
    "func.func @main(%x: tensor<1x64x64x32xi8>) -> tensor<1x64x64x32xi32> {\n"
    "  %w = \"tosa.const\"() <{values = dense<1> : tensor<32x3x3x32xi8>}> : () -> "
    "tensor<32x3x3x32xi8>\n"
    "  %b = \"tosa.const\"() <{values = dense<0> : tensor<32xi32>}> : () -> tensor<32xi32>\n"
    "  %zp = \"tosa.const\"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>\n"
    "  %0 = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = i32, dilation = array<i64: 1, 1>, "
    "pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x64x64x32xi8>, "
    "tensor<32x3x3x32xi8>, tensor<32xi32>, tensor<1xi8>, tensor<1xi8>) -> "
    "tensor<1x64x64x32xi32>\n"
    "  return %0 : tensor<1x64x64x32xi32>\n"
    "}\n";

START_TEST(compile_conv2d_tiles_when_lram_is_small) {
  tc_t t = compile_fewest(BIG_CONV, "sl2610,lram=64K");
  /* Weights 32*9*32 + 32*4 = 9344 bytes (a multiple of the 64-byte slot alignment). A band of R
   * output rows reads R + 2 input rows of 64*32 bytes and writes R*64*32*4 bytes, so the LRAM
   * holds 9344 + 2*2048*(R+2) + 2*8192*R = 17536 + 20480 R <= 65536: R = 2, 32 bands, 34 tasks. */
  ck_assert_uint_eq(t.m->n_nss_programs, 3);
  const layer_t l = layer_at(t.m, 0), *p = &l;
  ck_assert_uint_eq(p->n_tasks, 34);
  ck_assert_uint_eq(l.stage[1]->n_tasks, 32); /* the steady state: tasks 1..32 */
  uint64_t in_bytes = 0, out_bytes = 0, macs = 0;
  for (size_t k = 0; k < p->n_tasks; k++) {
    const Torq__NssTask *task = p->tasks[k];
    /* The pipeline: DMA_IN in tasks 0..31, slices in 1..32, DMA_OUT in 2..33. */
    ck_assert_int_eq(unit_of(task, TORQ__UNIT__DMA_IN) != NULL, k < 32);
    ck_assert_int_eq(unit_of(task, TORQ__UNIT__SLICE0) != NULL, k >= 1 && k <= 32);
    ck_assert_int_eq(unit_of(task, TORQ__UNIT__DMA_OUT) != NULL, k >= 2);
    /* Within a stage program, the next task starts 16 cycles after the previous one ends. */
    if (k == 1 || k == 33) ck_assert_uint_eq(task->estimated_start, 0);
    if (k > 1 && k < 33)
      ck_assert_uint_eq(task->estimated_start, p->tasks[k - 1]->estimated_end + 16);
    for (size_t w = 0; w < task->n_work; w++) {
      const Torq__UnitWork *u = task->work[w];
      ck_assert_uint_le(u->estimated_end, task->estimated_end);
      for (size_t r = 0; r < u->n_regions; r++)
        if (u->regions[r]->memory == TORQ__MEMORY__LRAM)
          ck_assert_uint_le(u->regions[r]->offset + u->regions[r]->size, 65536);
      if (u->unit == TORQ__UNIT__DMA_IN) in_bytes += u->bytes;
      if (u->unit == TORQ__UNIT__DMA_OUT) out_bytes += u->bytes;
      if (u->unit == TORQ__UNIT__SLICE0 || u->unit == TORQ__UNIT__SLICE1) {
        macs += u->macs;
        ck_assert_int_eq(u->params->output_shape[1], 1); /* 2 rows, one per slice */
      }
    }
  }
  /* Input bands: rows 0-2, then 4 rows each for 30 middle bands, rows 61-63: 3+30*4+3 = 126
   * rows of 2048 bytes; plus the weights once. */
  ck_assert_uint_eq(in_bytes, 9344 + 126 * 2048);
  ck_assert_uint_eq(out_bytes, 64 * 64 * 32 * 4);
  ck_assert_uint_eq(macs, (uint64_t)64 * 64 * 32 * 9 * 32);
  ck_assert_uint_eq(t.m->hardware->lram_bytes, 65536);
  tc_free(&t);
}
END_TEST

START_TEST(compile_reports_lram_too_small_with_location) {
  tqc_module_t *src = NULL;
  tqc_compiled_t *c = NULL;
  TC_OK(tqc_module_parse("t.mlir", BIG_CONV, strlen(BIG_CONV), NULL, &src));
  tqc_compile_options_t o;
  tqc_compile_options_initialize(&o);
  TC_OK(tqs_hw_parse("lram=1K", &o.hw));
  tq_status_t st = tqc_compile(src, &o, &c);
  ck_assert_ptr_nonnull(st);
  ck_assert_ptr_null(c);
  ck_assert_int_eq(tq_status_code(st), TQ_INVALID_INPUT);
  /* The smallest tile: one output channel per group (32 groups, so two weight slots of 3*3*32
   * + 4 = 292 bytes, 320 with the 64-byte alignment), one output row: two input bands of 3 rows
   * of 64*32 bytes (6144 each) and two output bands of 64*4 = 256 bytes:
   * 2*320 + 2*6144 + 2*256 = 13440. */
  const char *msg = tq_status_message(st);
  ck_assert_msg(strstr(msg,
                       "t.mlir:5:8: error: LRAM of 1024 bytes is too small for any tile "
                       "of tosa.conv2d (needs at least 13440)") != NULL,
                "message: %s", msg);
  ck_assert_ptr_nonnull(strstr(msg, "^"));
  tq_status_free(st);
  tqc_module_destroy(src);
}
END_TEST

/* ---- The module's limits --------------------------------------------------------------------- */

/* The limits of TQF_BUFFER_MAX_BYTES (one tensor), TQF_MODULE_MAX_TENSOR_BYTES (all of them) and
 * TQF_MODULE_MAX_BYTES (the constants), each a located error before anything is built: at an
 * argument's type, at the op that makes the tensor. `at` is where the error points: the column of
 * that text on line `line`. */
typedef struct limit_case_s {
  const char *what, *text;
  unsigned line;
  const char *at, *message;
} limit_case_t;

#define GIB_I32 "tensor<268435456xi32>" /* 1 GiB: the most one tensor may be */
#define CONST_600M(name)                                                       \
  "  %" name                                                                   \
  " = \"tosa.const\"() <{values = dense<7> : tensor<150000000xi32>}> : () -> " \
  "tensor<150000000xi32>\n"

static const limit_case_t k_limit_cases[] = {
    {"an argument of 2^32 elements",
     "func.func @main(%a: tensor<4294967296xi32>) -> tensor<4294967296xi32> {\n"
     "  return %a : tensor<4294967296xi32>\n}\n",
     1, "tensor<4294967296xi32>) ->",
     "tensor too large: tensor<4294967296xi32> is 17179869184 bytes, above the limit of "
     "1073741824 bytes for one tensor"},
    {"five arguments of 1 GiB",
     "func.func @main(%a: " GIB_I32 ", %b: " GIB_I32 ", %c: " GIB_I32 ", %d: " GIB_I32
     ", %e: " GIB_I32 ") -> " GIB_I32 " {\n"
     "  return %e : " GIB_I32 "\n}\n",
     1, GIB_I32 ") ->",
     "the model's tensors are too large: with tensor<268435456xi32> they hold 5368709120 bytes, "
     "above the limit of 4294967296 bytes for all the tensors of a model"},
    {"a broadcast to 2 GiB",
     "func.func @main(%a: tensor<1x268435456xi32>, %b: tensor<2x1xi32>) -> "
     "tensor<2x268435456xi32> {\n"
     "  %0 = tosa.add %a, %b : (tensor<1x268435456xi32>, tensor<2x1xi32>) -> "
     "tensor<2x268435456xi32>\n"
     "  return %0 : tensor<2x268435456xi32>\n}\n",
     2, "tosa.add",
     "tensor too large: tensor<2x268435456xi32> is 2147483648 bytes, above the limit of "
     "1073741824 bytes for one tensor"},
    {"two constants of 600 MB",
     "func.func @main() -> (tensor<150000000xi32>, tensor<150000000xi32>) {\n" CONST_600M("0")
         CONST_600M("1") "  return %0, %1 : tensor<150000000xi32>, tensor<150000000xi32>\n}\n",
     3, "\"tosa.const\"",
     "the model's constants are too large: with tensor<150000000xi32> they hold 1200000000 bytes, "
     "above the limit of 1073741824 bytes for a module"},
};

START_TEST(compile_refuses_what_a_module_cannot_hold_where_it_is_written) {
  const limit_case_t *k = &k_limit_cases[_i];
  tqc_module_t *src = NULL;
  tqc_compiled_t *c = NULL;
  TC_OK(tqc_module_parse("t.mlir", k->text, strlen(k->text), NULL, &src));
  TC_OK(tqc_module_verify(src));
  tq_status_t st = tqc_compile(src, NULL, &c);
  ck_assert_msg(st != NULL, "%s: compiled", k->what);
  ck_assert_ptr_null(c);
  /* The column of `at` on line `line`. */
  const char *line = k->text;
  for (unsigned i = 1; i < k->line; i++) line = strchr(line, '\n') + 1;
  const char *hit = strstr(line, k->at);
  ck_assert_ptr_nonnull(hit);
  char want[512];
  snprintf(want, sizeof(want), "t.mlir:%u:%d: error: %s", k->line, (int)(hit - line) + 1,
           k->message);
  const char *msg = tq_status_message(st);
  ck_assert_msg(strstr(msg, want) != NULL, "%s: want \"%s\", got: %s", k->what, want, msg);
  tq_status_free(st);
  tqc_module_destroy(src);
}
END_TEST

static const char *BCAST_RESCALE =
    "func.func @main(%a: tensor<1x3x5x4xi32>, %k: tensor<1x1x1x1xi32>) -> tensor<1x3x5x4xi8> {\n"
    "  %0 = tosa.sub %a, %k : (tensor<1x3x5x4xi32>, tensor<1x1x1x1xi32>) -> tensor<1x3x5x4xi32>\n"
    "  %m = \"tosa.const\"() <{values = dense<[1073741824, 1073741825, 1073741826, 1073741827]> "
    ": tensor<4xi32>}> : () -> tensor<4xi32>\n"
    "  %s = \"tosa.const\"() <{values = dense<[30, 31, 32, 33]> : tensor<4xi8>}> : () -> "
    "tensor<4xi8>\n"
    "  %iz = \"tosa.const\"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>\n"
    "  %oz = \"tosa.const\"() <{values = dense<4> : tensor<1xi8>}> : () -> tensor<1xi8>\n"
    "  %1 = tosa.rescale %0, %m, %s, %iz, %oz {input_unsigned = false, output_unsigned = false, "
    "per_channel = true, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x3x5x4xi32>, "
    "tensor<4xi32>, tensor<4xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x3x5x4xi8>\n"
    "  return %1 : tensor<1x3x5x4xi8>\n"
    "}\n";

/* The n-th work item of `unit` in a task (a slice program lists several, in order). */
static const Torq__UnitWork *nth_of(const Torq__NssTask *task, Torq__Unit unit, size_t n) {
  for (size_t i = 0; i < task->n_work; i++)
    if (task->work[i]->unit == unit && n-- == 0) return task->work[i];
  return NULL;
}

START_TEST(compile_eltwise_broadcast_and_per_channel_rescale) {
  tc_t t = compile_fewest(BCAST_RESCALE, NULL);
  /* sub -> rescale is one fused chain: one layer (its three stage programs), the i32
   * difference never leaves LRAM. */
  ck_assert_uint_eq(t.m->n_nss_programs, 3);
  const layer_t l = layer_at(t.m, 0), *p = &l;
  ck_assert_uint_eq(p->n_tasks, 3);
  /* The one-element operand is loaded once (with tile 0, into the weight slot) and broadcast. */
  const Torq__UnitWork *di = unit_of(p->tasks[0], TORQ__UNIT__DMA_IN);
  ck_assert_uint_eq(di->n_regions, 4);
  ck_assert_uint_eq(di->regions[0]->size, 4); /* %k, into the weight slot */
  ck_assert_uint_eq(di->regions[0]->buffer_id, t.m->function->input_buffers[1]);
  ck_assert_uint_eq(di->regions[2]->size, 60 * 4);
  /* Tiles hold whole rows of the rescale's 4 channels: 15 rows split 8 / 7 between the slices,
   * each running sub, then rescale on the difference it made. */
  const Torq__NssTask *task = p->tasks[1];
  ck_assert_uint_eq(task->n_work, 4);
  const Torq__UnitWork *s0 = nth_of(task, TORQ__UNIT__SLICE0, 0);
  const Torq__UnitWork *s1 = nth_of(task, TORQ__UNIT__SLICE1, 0);
  const Torq__UnitWork *r0 = nth_of(task, TORQ__UNIT__SLICE0, 1);
  const Torq__UnitWork *r1 = nth_of(task, TORQ__UNIT__SLICE1, 1);
  ck_assert_str_eq(s0->kernel, "sub");
  ck_assert_uint_eq(s0->macs, 32);
  ck_assert_uint_eq(s1->macs, 28);
  ck_assert_uint_eq(s0->regions[1]->size, 4);
  ck_assert_uint_eq(s1->regions[1]->offset, s0->regions[1]->offset);
  ck_assert_uint_eq(s1->regions[0]->offset, s0->regions[0]->offset + 32 * 4);
  ck_assert_uint_eq(dur(s0), hand_lanes(32, 16));
  /* The rescale reads what the sub of its slice wrote, after it. */
  ck_assert_str_eq(r0->kernel, "rescale");
  ck_assert_uint_eq(r0->regions[0]->offset, s0->regions[2]->offset);
  ck_assert_uint_eq(r0->regions[0]->size, s0->regions[2]->size);
  ck_assert_uint_eq(r0->estimated_start, s0->estimated_end);
  ck_assert_uint_eq(r0->params->n_input_shape, 2);
  ck_assert_int_eq(r0->params->input_shape[0], 8);
  ck_assert_int_eq(r0->params->input_shape[1], 4);
  ck_assert_int_eq(r1->params->input_shape[0], 7);
  ck_assert_uint_eq(r1->params->n_multiplier, 4);
  ck_assert_int_eq(r1->params->multiplier[3], 1073741827);
  ck_assert_int_eq(r1->params->shift[1], 31);
  ck_assert_int_eq(r1->params->output_zp, 4);
  ck_assert(!r1->params->double_round);
  ck_assert_uint_eq(r1->params->n_extra, 2);
  ck_assert_uint_eq(r1->regions[0]->offset, r0->regions[0]->offset + 8 * 4 * 4);
  ck_assert_uint_eq(r1->regions[1]->offset, r0->regions[1]->offset + 8 * 4);
  /* Only the i8 result goes out. */
  const Torq__UnitWork *dout = unit_of(p->tasks[2], TORQ__UNIT__DMA_OUT);
  ck_assert_uint_eq(dout->bytes, 60);
  ck_assert_uint_eq(dout->regions[0]->offset, r0->regions[1]->offset);
  tc_free(&t);
}
END_TEST

START_TEST(compile_depthwise_groups_channels_when_weights_do_not_fit) {
  /* DW at lram=700. All 8 channels, one output row: weights 3*3*8*2 + 16*4 = 208 (slot 256),
   * input bands of 3 rows of 10*8 bytes (240, slot 256) and output bands of 5*16*4 = 320:
   * 256 + 2*256 + 320 + 320 = 1408 > 700. Groups of gn channels (two weight slots):
   * gn = 4: 2*128 + 2*128 + 192 + 160 = 864; gn = 3: 2*128 + 2*128 + 128 + 120 = 760;
   * gn = 2: 2*64 + 2*64 + 128 + 80 = 464 fits; with 2 rows (5 input rows) it would take 736.
   * So 4 groups of 2 channels, 5 one-row bands each: 20 tiles, 22 tasks. */
  tc_t t = compile_fewest(DW, "sl2610,lram=700");
  const layer_t l = layer_at(t.m, 0), *p = &l;
  size_t groups = 0, tiles = 0;
  uint64_t w_addr[2] = {0, 0};
  for (size_t k = 0; k < p->n_tasks; k++) {
    const Torq__UnitWork *di = unit_of(p->tasks[k], TORQ__UNIT__DMA_IN);
    if (!di) continue;
    tiles++;
    if (di->n_regions == 4) {
      /* A new group: its packed weights (3*3*gn*2 + gn*2*4 bytes), then the strided input. */
      ck_assert_uint_eq(di->regions[0]->size, 3 * 3 * 2 * 2 + 2 * 2 * 4);
      if (groups < 2) w_addr[groups] = di->regions[1]->offset;
      groups++;
    }
    const Torq__Region *x = di->regions[di->n_regions - 2];
    ck_assert_uint_eq(x->n_counts, 1);
    ck_assert_uint_eq(x->size, 2);       /* 2 channels of i8 */
    ck_assert_uint_eq(x->strides[0], 8); /* out of 8 */
    for (size_t r = 0; r < di->n_regions; r++)
      if (di->regions[r]->memory == TORQ__MEMORY__LRAM)
        ck_assert_uint_le(di->regions[r]->offset + di->regions[r]->size, 700);
  }
  ck_assert_uint_eq(groups, 4);
  ck_assert_uint_eq(tiles, 20);
  ck_assert_uint_ne(w_addr[0], w_addr[1]); /* weights alternate between two slots */
  ck_assert_uint_eq(p->n_tasks, 22);
  const Torq__UnitWork *s0 = unit_of(p->tasks[1], TORQ__UNIT__SLICE0);
  ck_assert_int_eq(s0->params->input_shape[3], 2);
  ck_assert_int_eq(s0->params->output_shape[3], 4);
  ck_assert_int_eq(s0->params->weight_shape[2], 2);
  tc_free(&t);
}
END_TEST

/* ---- Fusion, host programs, views ----------------------------------------------------------- */

static const char *FUSED =
    "func.func @main(%x: tensor<1x4x4x8xi8>) -> tensor<1x4x4x2xi8> {\n"
    "  %w = \"tosa.const\"() <{values = dense<3> : tensor<2x1x1x8xi8>}> : () -> "
    "tensor<2x1x1x8xi8>\n"
    "  %b = \"tosa.const\"() <{values = dense<[5, -5]> : tensor<2xi32>}> : () -> tensor<2xi32>\n"
    "  %zp = \"tosa.const\"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>\n"
    "  %acc = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = i32, dilation = array<i64: 1, 1>, "
    "pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x8xi8>, "
    "tensor<2x1x1x8xi8>, tensor<2xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x4x2xi32>\n"
    "  %m = \"tosa.const\"() <{values = dense<[1073741824, 1518500250]> : tensor<2xi32>}> : () "
    "-> tensor<2xi32>\n"
    "  %s = \"tosa.const\"() <{values = dense<[33, 34]> : tensor<2xi8>}> : () -> tensor<2xi8>\n"
    "  %z32 = \"tosa.const\"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>\n"
    "  %oz = \"tosa.const\"() <{values = dense<-3> : tensor<1xi8>}> : () -> tensor<1xi8>\n"
    "  %q = tosa.rescale %acc, %m, %s, %z32, %oz {input_unsigned = false, output_unsigned = "
    "false, per_channel = true, rounding_mode = DOUBLE_ROUND, scale32 = true} : "
    "(tensor<1x4x4x2xi32>, tensor<2xi32>, tensor<2xi8>, tensor<1xi32>, tensor<1xi8>) -> "
    "tensor<1x4x4x2xi8>\n"
    "  %r = tosa.clamp %q {max_val = 100 : i8, min_val = 0 : i8} : (tensor<1x4x4x2xi8>) -> "
    "tensor<1x4x4x2xi8>\n"
    "  return %r : tensor<1x4x4x2xi8>\n"
    "}\n";

START_TEST(compile_fuses_conv_rescale_clamp_into_one_program) {
  tc_t t = compile_text(FUSED, NULL);
  ck_assert_uint_eq(t.m->n_nss_programs, 3); /* one layer: its three stage programs */
  const layer_t l = layer_at(t.m, 0);
  ck_assert_uint_eq(t.m->n_host_programs, 0);
  /* input, output, packed weights: no buffer for the accumulator or the rescaled value. */
  ck_assert_uint_eq(t.m->n_buffers, 3);
  const Torq__UnitWork *s0 = unit_of(l.tasks[1], TORQ__UNIT__SLICE0);
  const Torq__KernelParams *k = s0->params;
  ck_assert_int_eq(k->input_type, TORQ__ELEMENT_TYPE__I8);
  ck_assert_int_eq(k->output_type, TORQ__ELEMENT_TYPE__I8);
  ck_assert_uint_eq(k->n_multiplier, 2);
  ck_assert_int_eq(k->multiplier[0], 1073741824);
  ck_assert_int_eq(k->multiplier[1], 1518500250);
  ck_assert_int_eq(k->shift[0], 33);
  ck_assert_int_eq(k->shift[1], 34);
  ck_assert(k->double_round);
  ck_assert_int_eq(k->output_zp, -3);
  ck_assert_int_eq(k->clamp_min, 0);
  ck_assert_int_eq(k->clamp_max, 100);
  /* The output is written as i8: 4*4*2 bytes. */
  const Torq__UnitWork *dout = unit_of(l.tasks[2], TORQ__UNIT__DMA_OUT);
  ck_assert_uint_eq(dout->bytes, 32);
  /* All actions carry the conv's location. */
  for (size_t i = 0; i < t.m->n_actions; i++) {
    ck_assert_uint_eq(t.m->actions[i]->action_id, i);
    ck_assert_str_eq(t.m->actions[i]->location, "loc(\"t.mlir\":5:10)");
  }
  tc_free(&t);
}
END_TEST

static const char *HOST =
    "func.func @main(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> tensor<3x2xf32> {\n"
    "  %0 = tosa.add %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>\n"
    "  %1 = tosa.transpose %0 {perms = array<i32: 1, 0>} : (tensor<2x3xf32>) -> "
    "tensor<3x2xf32>\n"
    "  return %1 : tensor<3x2xf32>\n"
    "}\n";

START_TEST(compile_float_ops_become_host_programs) {
  tc_t t = compile_text(HOST, NULL);
  ck_assert_uint_eq(t.m->n_nss_programs, 0);
  ck_assert_uint_eq(t.m->n_host_programs, 2);
  const Torq__HostProgram *h0 = t.m->host_programs[0], *h1 = t.m->host_programs[1];
  ck_assert_str_eq(h0->op, "tosa.add");
  ck_assert_uint_eq(h0->n_operand_buffers, 2);
  ck_assert_uint_eq(h0->operand_buffers[0], t.m->function->input_buffers[0]);
  ck_assert_str_eq(h1->op, "tosa.transpose");
  ck_assert_uint_eq(h1->operand_buffers[0], h0->result_buffers[0]);
  ck_assert_uint_eq(h1->result_buffers[0], t.m->function->output_buffers[0]);
  ck_assert_uint_eq(h1->n_attributes, 1);
  ck_assert_str_eq(h1->attributes[0]->key, "perms");
  ck_assert_int_eq(h1->attributes[0]->value_case, TORQ__ATTRIBUTE__VALUE_INTS);
  ck_assert_uint_eq(h1->attributes[0]->ints->n_values, 2);
  ck_assert_int_eq(h1->attributes[0]->ints->values[0], 1);
  /* ALLOC t0, HOST 0, ALLOC out, HOST 1, DEALLOC t0. */
  static const Torq__ActionKind want[] = {
      TORQ__ACTION_KIND__ALLOC,  TORQ__ACTION_KIND__HOST_START, TORQ__ACTION_KIND__HOST_WAIT,
      TORQ__ACTION_KIND__ALLOC,  TORQ__ACTION_KIND__HOST_START, TORQ__ACTION_KIND__HOST_WAIT,
      TORQ__ACTION_KIND__DEALLOC};
  ck_assert_uint_eq(t.m->n_actions, 7);
  for (size_t i = 0; i < 7; i++) ck_assert_int_eq(t.m->actions[i]->kind, want[i]);
  ck_assert_uint_eq(t.m->actions[6]->buffer_id, h0->result_buffers[0]);
  ck_assert_str_eq(t.m->actions[4]->location, "loc(\"t.mlir\":3:8)");
  tc_free(&t);
}
END_TEST

static const char *SHAPE_HOST =
    "func.func @main(%x: tensor<4x8xi8>) -> tensor<2x4xi8> {\n"
    "  %s = tosa.const_shape {values = dense<[1, 2]> : tensor<2xindex>} : () -> "
    "!tosa.shape<2>\n"
    "  %z = tosa.const_shape {values = dense<[2, 4]> : tensor<2xindex>} : () -> "
    "!tosa.shape<2>\n"
    "  %0 = tosa.slice %x, %s, %z : (tensor<4x8xi8>, !tosa.shape<2>, !tosa.shape<2>) -> "
    "tensor<2x4xi8>\n"
    "  return %0 : tensor<2x4xi8>\n"
    "}\n";

START_TEST(compile_shape_operands_become_index_constants) {
  tc_t t = compile_text(SHAPE_HOST, NULL);
  ck_assert_uint_eq(t.m->n_host_programs, 1);
  const Torq__HostProgram *h = t.m->host_programs[0];
  ck_assert_str_eq(h->op, "tosa.slice");
  ck_assert_uint_eq(h->n_operand_buffers, 3);
  const Torq__Buffer *b = t.m->buffers[h->operand_buffers[1]];
  ck_assert_int_eq(b->contents_case, TORQ__BUFFER__CONTENTS_CONSTANT_ID);
  ck_assert_int_eq(b->type->element_type, TORQ__ELEMENT_TYPE__INDEX);
  const Torq__Constant *k = t.m->constants[b->constant_id];
  ck_assert_uint_eq(k->data.len, 16);
  ck_assert_uint_eq(k->data.data[0], 1);
  ck_assert_uint_eq(k->data.data[8], 2);
  tc_free(&t);
}
END_TEST

static const char *VIEWS =
    "func.func @main(%x: tensor<1x4x8xi8>) -> tensor<32xi8> {\n"
    "  %s = tosa.const_shape {values = dense<[4, 8]> : tensor<2xindex>} : () -> "
    "!tosa.shape<2>\n"
    "  %o = tosa.const_shape {values = dense<32> : tensor<1xindex>} : () -> !tosa.shape<1>\n"
    "  %0 = tosa.reshape %x, %s : (tensor<1x4x8xi8>, !tosa.shape<2>) -> tensor<4x8xi8>\n"
    "  %1 = tosa.clamp %0 {max_val = 10 : i8, min_val = -10 : i8} : (tensor<4x8xi8>) -> "
    "tensor<4x8xi8>\n"
    "  %2 = tosa.reshape %1, %o : (tensor<4x8xi8>, !tosa.shape<1>) -> tensor<32xi8>\n"
    "  return %2 : tensor<32xi8>\n"
    "}\n";

START_TEST(compile_reshape_is_a_view_not_a_program) {
  tc_t t = compile_text(VIEWS, NULL);
  ck_assert_uint_eq(t.m->n_nss_programs, 3);
  const layer_t l = layer_at(t.m, 0);
  ck_assert_uint_eq(t.m->n_host_programs, 0);
  ck_assert_uint_eq(t.m->n_constants, 0); /* shapes of views are compile-time only */
  uint32_t out = t.m->function->output_buffers[0];
  const Torq__Buffer *ob = t.m->buffers[out];
  ck_assert_int_eq(ob->contents_case, TORQ__BUFFER__CONTENTS_VIEW);
  ck_assert_uint_eq(ob->size, 32);
  const Torq__Buffer *root = t.m->buffers[ob->view->buffer_id];
  ck_assert_int_eq(root->contents_case, TORQ__BUFFER__CONTENTS__NOT_SET);
  /* The clamp reads the input's storage and writes the output's root, never a view id. */
  const Torq__UnitWork *di = unit_of(l.tasks[0], TORQ__UNIT__DMA_IN);
  const Torq__UnitWork *dout = unit_of(l.tasks[2], TORQ__UNIT__DMA_OUT);
  ck_assert_uint_eq(di->regions[0]->buffer_id, t.m->function->input_buffers[0]);
  ck_assert_uint_eq(dout->regions[1]->buffer_id, root->id);
  const Torq__UnitWork *s0 = unit_of(l.tasks[1], TORQ__UNIT__SLICE0);
  ck_assert_str_eq(s0->kernel, "clamp");
  ck_assert_int_eq(s0->params->clamp_min, -10);
  ck_assert_int_eq(s0->params->clamp_max, 10);
  /* ALLOC root, then NSS_START and NSS_WAIT of each stage in turn: the output's root is never
   * freed. */
  ck_assert_uint_eq(t.m->n_actions, 7);
  ck_assert_int_eq(t.m->actions[0]->kind, TORQ__ACTION_KIND__ALLOC);
  ck_assert_uint_eq(t.m->actions[0]->buffer_id, root->id);
  for (size_t a = 1; a < 7; a++) {
    ck_assert_int_eq(t.m->actions[a]->kind,
                     a % 2 ? TORQ__ACTION_KIND__NSS_START : TORQ__ACTION_KIND__NSS_WAIT);
    ck_assert_uint_eq(t.m->actions[a]->job_id, (a - 1) / 2);
  }
  tc_free(&t);
}
END_TEST

/* ---- Emitters ------------------------------------------------------------------------------- */

/* Two elementwise ops of different element counts: two NSS programs (a chain needs one count). */
static const char *TWO_PROGRAMS =
    "func.func @main(%a: tensor<32xi32>, %b: tensor<32xi32>, %c: tensor<16xi32>) -> "
    "(tensor<32xi32>, tensor<16xi32>) {\n"
    "  %0 = tosa.add %a, %b : (tensor<32xi32>, tensor<32xi32>) -> tensor<32xi32>\n"
    "  %1 = tosa.sub %c, %c : (tensor<16xi32>, tensor<16xi32>) -> tensor<16xi32>\n"
    "  return %0, %1 : tensor<32xi32>, tensor<16xi32>\n"
    "}\n";

START_TEST(compile_trace_csv_puts_programs_on_one_timeline) {
  tc_t t = compile_text(TWO_PROGRAMS, NULL);
  ck_assert_uint_eq(t.m->n_nss_programs, 6); /* two layers of three stage programs */
  const layer_t l0 = layer_at(t.m, 0), l1 = layer_at(t.m, 3);
  (void)l1;
  uint64_t c0 = l0.estimated_cycles;
  /* Layer 0: DI 2 x (ceil(128*175/832) + 40) = 2 x 67; slices 16 i32 elements each at 16 a
   * cycle: 1 + 64; DO 67. Each stage program starts where the one before it ends. */
  ck_assert_uint_eq(c0, 2 * hand_dma(128) + hand_lanes(16, 16) + hand_dma(128));
  tq_buf_t csv;
  tq_buf_init(&csv, 0);
  TC_OK(tqc_compiled_trace_csv(t.c, &csv));
  char want[2048];
  snprintf(want, sizeof(want),
           "ID,Start,End,Location,Op Type\n"
           "DI0,0,134,\"loc(\"\"t.mlir\"\":2:8)\",DMA_IN\n"
           "S0,134,199,\"loc(\"\"t.mlir\"\":2:8)\",add\n"
           "S1,134,199,\"loc(\"\"t.mlir\"\":2:8)\",add\n"
           "DO0,199,266,\"loc(\"\"t.mlir\"\":2:8)\",DMA_OUT\n"
           "DI1,%llu,%llu,\"loc(\"\"t.mlir\"\":3:8)\",DMA_IN\n",
           (unsigned long long)c0, (unsigned long long)c0 + hand_dma(64));
  ck_assert_uint_eq(c0, 266);
  ck_assert_msg(strncmp(csv.data, want, strlen(want)) == 0, "trace:\n%s", csv.data);
  tq_buf_deinit(&csv);
  /* pack -> unpack gives the same module. */
  tq_buf_t packed;
  tq_buf_init(&packed, 0);
  TC_OK(tqc_compiled_pack(t.c, &packed));
  ck_assert(memcmp(packed.data, "\x0a\x08TORQVMFB", 10) == 0);
  Torq__Module *u = torq__module__unpack(NULL, packed.len, (const uint8_t *)packed.data);
  ck_assert_ptr_nonnull(u);
  ck_assert_uint_eq(u->format_version, 1);
  ck_assert_str_eq(u->producer, "torq-compile " TQ_VERSION);
  ck_assert_str_eq(u->hardware->spec, "sl2610");
  ck_assert_uint_eq(u->n_actions, t.m->n_actions);
  /* Layer 1's prologue loads %c once; its steady state's first slice item is S2. */
  ck_assert_int_eq(u->nss_programs[3]->stage, TORQ__STAGE__PROLOGUE);
  ck_assert_uint_eq(u->nss_programs[3]->tasks[0]->work[0]->bytes, 64);
  ck_assert_int_eq(u->nss_programs[4]->stage, TORQ__STAGE__STEADY);
  ck_assert_str_eq(u->nss_programs[4]->tasks[0]->work[0]->trace_id, "S2");
  torq__module__free_unpacked(u, NULL);
  tq_buf_deinit(&packed);
  tc_free(&t);
}
END_TEST

/* Makes a fresh temporary folder (in /dev/shm when there is one: the debug-info writer fsyncs
 * every file, which costs tens of ms a file on a disk); the caller removes it with rm_rf. */
static char *make_tmpdir(void) {
  char *d = malloc(64);
  snprintf(d, 64, "%s/tqc-compile-XXXXXX", access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
  ck_assert_ptr_nonnull(mkdtemp(d));
  return d;
}

static void rm_rf(const char *dir) {
  char cmd[512];
  snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
  ck_assert_int_eq(system(cmd), 0);
}

/* The debug-info directory: manifest, source copy, and a program file our parser reads. */
static void check_debug_info(const tqc_compiled_t *c, const char *source_text, const char *base) {
  char *dir = make_tmpdir();
  char path[512];
  snprintf(path, sizeof(path), "%s/dbg", dir);
  TC_OK(tqc_compiled_write_debug_info(c, path));
  snprintf(path, sizeof(path), "%s/dbg/source/%s", dir, base);
  char *copy = tt_read_file(path);
  ck_assert_str_eq(copy, source_text);
  tq_free(copy);
  snprintf(path, sizeof(path), "%s/dbg/manifest.json", dir);
  char *manifest = tt_read_file(path);
  ck_assert_ptr_nonnull(strstr(manifest, "\"format\": 1"));
  const Torq__Module *m = tqc_compiled_module(c);
  char want[512];
  snprintf(want, sizeof(want), "\"program\": \"%s_dispatch_0.torq.mlir\"", m->function->name);
  ck_assert_msg(strstr(manifest, want) != NULL, "manifest: %s", manifest);
  ck_assert_ptr_nonnull(strstr(manifest, "\"source_sha256\": \""));
  tq_free(manifest);
  snprintf(path, sizeof(path), "%s/dbg/%s_dispatch_0.torq.mlir", dir, m->function->name);
  char *prog = tt_read_file(path);
  tqc_module_t *back = NULL;
  TC_OK(tqc_module_parse("dbg.mlir", prog, strlen(prog), NULL, &back));
  /* One torq.action per module action, in order. */
  const tqc_op_t *dispatch = tqc_module_op(back)->regions[0].blocks[0]->first;
  ck_assert(tqc_op_is(dispatch, "torq.dispatch"));
  size_t actions = 0;
  for (const tqc_op_t *op = dispatch->regions[0].blocks[0]->first; op; op = op->next) {
    if (!tqc_op_is(op, "torq.action")) continue;
    const tqc_attr_t *id = tqc_op_attr(op, "torq-action-id");
    ck_assert_ptr_nonnull(id);
    ck_assert_int_eq(id->integer.value, (int64_t)actions);
    actions++;
  }
  ck_assert_uint_eq(actions, m->n_actions);
  tqc_module_destroy(back);
  tq_free(prog);
  rm_rf(dir);
  free(dir);
}

START_TEST(compile_debug_info_reads_back) {
  tc_t t = compile_text(FUSED, NULL);
  check_debug_info(t.c, FUSED, "t.mlir");
  tq_buf_t text;
  tq_buf_init(&text, 0);
  TC_OK(tqc_compiled_debug_program(t.c, &text));
  ck_assert_ptr_nonnull(strstr(text.data,
                               "original_operators = [\"tosa.conv2d@L5\", "
                               "\"tosa.rescale@L10\", \"tosa.clamp@L11\"]"));
  ck_assert_ptr_nonnull(strstr(text.data, "{name = \"main_dispatch_0\""));
  tq_buf_deinit(&text);
  tc_free(&t);
}
END_TEST

/* ---- The corpus ----------------------------------------------------------------------------- */

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Checks trace.csv: exact header, five fields a row, rows sorted by Start. */
static void check_trace(const char *csv, const char *name) {
  const char *hdr = "ID,Start,End,Location,Op Type\n";
  ck_assert_msg(strncmp(csv, hdr, strlen(hdr)) == 0, "%s: bad header", name);
  unsigned long long prev = 0;
  for (const char *p = csv + strlen(hdr); *p;) {
    const char *nl = strchr(p, '\n');
    ck_assert_msg(nl != NULL, "%s: unterminated row", name);
    unsigned long long start = 0, end = 0;
    const char *c1 = strchr(p, ',');
    ck_assert_msg(c1 && sscanf(c1 + 1, "%llu,%llu", &start, &end) == 2, "%s: bad row", name);
    ck_assert_msg(start >= prev && end >= start, "%s: rows out of order", name);
    prev = start;
    p = nl + 1;
  }
}

START_TEST(compile_every_corpus_model) {
  char dirpath[TT_PATH_MAX], **paths;
  size_t n;
  if (!tt_corpus_paths(dirpath, &paths, &n)) return;
  double compile_time = 0;
  size_t failures = 0, nss = 0, host = 0;
  for (size_t i = 0; i < n; i++) {
    const char *path = paths[i], *name = path + strlen(dirpath) + 1;
    tqc_module_t *src = NULL;
    tqc_compiled_t *c = NULL;
    TC_OK(tqc_module_parse_file(path, NULL, &src));
    double t0 = now_s();
    tq_status_t st = tqc_compile(src, NULL, &c);
    compile_time += now_s() - t0;
    if (st) {
      char *txt = tq_status_format(st, 0);
      fprintf(stderr, "compile: %s: %s\n", name, txt ? txt : "?");
      free(txt);
      tq_status_free(st);
      tqc_module_destroy(src);
      failures++;
      continue;
    }
    const Torq__Module *m = tqc_compiled_module(c);
    nss += m->n_nss_programs;
    host += m->n_host_programs;
    tq_buf_t packed, csv;
    tq_buf_init(&packed, 0);
    tq_buf_init(&csv, 0);
    TC_OK(tqc_compiled_pack(c, &packed));
    Torq__Module *u = torq__module__unpack(NULL, packed.len, (const uint8_t *)packed.data);
    ck_assert_msg(u != NULL, "%s: does not unpack", name);
    ck_assert_uint_eq(u->n_actions, m->n_actions);
    ck_assert_uint_eq(u->n_nss_programs, m->n_nss_programs);
    for (size_t a = 0; a < u->n_actions; a++) {
      ck_assert_uint_eq(u->actions[a]->action_id, a);
      ck_assert_msg(strncmp(u->actions[a]->location, "loc(\"", 5) == 0, "%s: action %zu", name, a);
    }
    for (size_t p = 0; p < u->n_nss_programs; p++)
      for (size_t k = 0; k < u->nss_programs[p]->n_tasks; k++)
        for (size_t w = 0; w < u->nss_programs[p]->tasks[k]->n_work; w++) {
          const Torq__UnitWork *uw = u->nss_programs[p]->tasks[k]->work[w];
          for (size_t r = 0; r < uw->n_regions; r++) {
            const Torq__Region *g = uw->regions[r];
            if (g->memory == TORQ__MEMORY__LRAM) {
              ck_assert_uint_le(g->offset + g->size, u->hardware->lram_bytes);
            } else {
              uint64_t span = g->size;
              if (g->n_counts) span += (g->counts[0] - 1) * g->strides[0];
              ck_assert_msg(g->offset + span <= u->buffers[g->buffer_id]->size,
                            "%s: XRAM region past its buffer", name);
            }
          }
        }
    torq__module__free_unpacked(u, NULL);
    TC_OK(tqc_compiled_trace_csv(c, &csv));
    check_trace(csv.data, name);
    /* The debug-info directory for a sample (writing 200 folders adds nothing but time). */
    check_debug_info(c, src->text, name);
    tq_buf_deinit(&packed);
    tq_buf_deinit(&csv);
    tqc_compiled_destroy(c);
    tqc_module_destroy(src);
  }
  fprintf(stderr,
          "compile: %zu corpus models, %zu failed, %zu NSS and %zu host programs, "
          "compile time %.3f s\n",
          n, failures, nss, host, compile_time);
  tq_dir_list_free(paths, n);
  ck_assert_uint_eq(failures, 0);
}
END_TEST

Suite *compile_suite(void);
Suite *compile_suite(void) {
  Suite *s = suite_create("compile");
  TCase *tc = tcase_create("cost");
  tcase_add_test(tc, compile_add_cycles_match_hand_worked_cost_model);
  tcase_add_test(tc, compile_corpus_add_dma_in_equals_bytes_over_throughput);
  tcase_add_test(tc, compile_conv2d_cycles_match_hand_worked_cost_model);
  tcase_add_test(tc, compile_depthwise_cycles_match_hand_worked_cost_model);
  tcase_add_test(tc, compile_matmul_cycles_match_hand_worked_cost_model);
  tcase_add_test(tc, compile_conv2d_tiles_when_lram_is_small);
  tcase_add_test(tc, compile_depthwise_groups_channels_when_weights_do_not_fit);
  tcase_add_test(tc, compile_eltwise_broadcast_and_per_channel_rescale);
  tcase_add_test(tc, compile_reports_lram_too_small_with_location);
  tcase_add_loop_test(tc, compile_refuses_what_a_module_cannot_hold_where_it_is_written, 0,
                      (int)(sizeof(k_limit_cases) / sizeof(k_limit_cases[0])));
  suite_add_tcase(s, tc);
  tc = tcase_create("lowering");
  tcase_add_test(tc, compile_fuses_conv_rescale_clamp_into_one_program);
  tcase_add_test(tc, compile_float_ops_become_host_programs);
  tcase_add_test(tc, compile_shape_operands_become_index_constants);
  tcase_add_test(tc, compile_reshape_is_a_view_not_a_program);
  tcase_add_test(tc, compile_trace_csv_puts_programs_on_one_timeline);
  tcase_add_test(tc, compile_debug_info_reads_back);
  suite_add_tcase(s, tc);
  tc = tcase_create("corpus");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, compile_every_corpus_model);
  suite_add_tcase(s, tc);
  return s;
}
