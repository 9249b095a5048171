/* Shared by the runtime tests: a builder of hand-made modules (protobuf-c structs), the standard
 * small modules, a fake device (a test double of the device interface), and file helpers. */
#ifndef TORQ_RUNTIME_TESTS_HELPERS_H
#define TORQ_RUNTIME_TESTS_HELPERS_H

#include <check.h>
#include <stddef.h>
#include <stdint.h>

#include "module.pb-c.h"
#include "torq/base/arena.h"
#include "torq/base/str.h"
#include "torq/runtime/runtime.h"

/* Fails the test with the formatted status when `expr` is not OK. */
#define TQ_CK(expr)                                                  \
  do {                                                               \
    tq_status_t ck__st = (expr);                                     \
    if (ck__st) {                                                    \
      char *ck__msg = tq_status_format(ck__st, 1);                   \
      ck_abort_msg("%s failed: %s", #expr, ck__msg ? ck__msg : "?"); \
    }                                                                \
  } while (0)

/* Asserts that `st` is an error of `code` whose message contains `needle`; frees it. */
void ck_status(tq_status_t st, tq_status_code_t code, const char *needle);

#define TB_MAX 64
#define TB_DIMS(...) \
  (sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), ((const int64_t[]){__VA_ARGS__})

typedef struct tb_s {
  tq_arena_t arena;
  Torq__Module m;
  Torq__Hardware hw;
  Torq__Function fn;
  Torq__Constant *constants[TB_MAX];
  Torq__Buffer *buffers[TB_MAX];
  Torq__Action *actions[4 * TB_MAX];
  Torq__NssProgram *programs[TB_MAX];
  Torq__HostProgram *hosts[TB_MAX];
  uint32_t in_bufs[8], out_bufs[8];
  Torq__TensorType *in_types[8], *out_types[8];
} tb_t;

/* An empty module: magic, version 1, sl2610 hardware, function "main". */
void tb_init(tb_t *tb);
void tb_deinit(tb_t *tb);
Torq__TensorType *tb_type(tb_t *tb, Torq__ElementType et, size_t rank, const int64_t *dims);
uint32_t tb_buffer(tb_t *tb, Torq__ElementType et, size_t rank, const int64_t *dims);
uint32_t tb_const(tb_t *tb, Torq__ElementType et, size_t rank, const int64_t *dims,
                  const void *data);
uint32_t tb_view(tb_t *tb, uint32_t base, uint64_t offset, Torq__ElementType et, size_t rank,
                 const int64_t *dims);
void tb_input(tb_t *tb, uint32_t buffer);
void tb_output(tb_t *tb, uint32_t buffer);
uint32_t tb_action(tb_t *tb, Torq__ActionKind kind, uint32_t arg);
uint32_t tb_copy(tb_t *tb, uint32_t dst, uint64_t dst_offset, uint32_t src, uint64_t src_offset,
                 uint64_t size);
/* An NSS program of two tasks: DMA_IN `bytes` of buffer src to LRAM 0, then DMA_OUT LRAM 0 to
 * buffer dst. Returns the job id. */
uint32_t tb_dma_program(tb_t *tb, uint32_t src, uint32_t dst, uint64_t bytes);
/* The region `k` of work `w` of task `t` of program `job`, for tests that corrupt it. */
Torq__Region *tb_region(tb_t *tb, uint32_t job, size_t t, size_t w, size_t k);
uint32_t tb_host(tb_t *tb, const char *op, size_t n_ops, const uint32_t *ops, size_t n_res,
                 const uint32_t *res);
void tb_host_attr_ints(tb_t *tb, uint32_t host, const char *key, size_t n, const int64_t *values);
void tb_host_attr_str(tb_t *tb, uint32_t host, const char *key, const char *value);
/* Packs the module into `out` (initialized by the call; caller deinits). */
void tb_pack(tb_t *tb, tq_buf_t *out);
/* Packs and loads. */
tq_status_t tb_load(tb_t *tb, tqr_module_t **out_module) TQ_MUST_USE;

/* The tiny module used for profile goldens: every action kind.
 *   in  buf0 1x4xi8          c buf1 1x4xi8 = {1, 2, 3, 4}     t buf2 1x4xi8     o buf3 1x4xi8
 *   0 ALLOC c  1 ALLOC t  2 HOST_START h0 (tosa.add in, c -> t)  3 HOST_WAIT h0  4 DEALLOC c
 *   5 ALLOC o  6 NSS_START j0 (DMA t -> LRAM -> o)  7 NSS_WAIT j0
 *   8 HOST_COPY o[0..2) <- t[2..4)  9 DEALLOC t
 * Output for input [a b c d]: [c+3 d+4 c+3 d+4]. */
void tb_tiny(tb_t *tb);
/* input buf0 1x4xi8 -> NSS DMA copy -> output buf1. */
void tb_copy_module(tb_t *tb);

/* ---- Fake device ---------------------------------------------------------------------------- */

typedef struct fake_device_s {
  tqr_device_t base;
  char log[4096];          /* "prepare;start 0;wait 0;" */
  uint64_t cycles_per_job; /* cycles reported = cycles_per_job * (job_id + 1) */
  int64_t fail_start_job;  /* -1: never */
  int64_t fail_wait_job;   /* -1: never */
  uint8_t *lram;           /* a real LRAM: DMA work of dense regions is executed */
  size_t lram_size;
  int64_t pending[TB_MAX]; /* started jobs */
} fake_device_t;

/* A fake device (caller owns; tqr_device_destroy). `flags` as tqr_device_t.flags. */
fake_device_t *fake_device_create(uint32_t flags);

/* ---- Files ---------------------------------------------------------------------------------- */

/* A fresh temporary folder (mkdtemp) in `out` (PATH_MAX); removed by tmpdir_remove. */
void tmpdir_make(char *out);
void tmpdir_remove(const char *dir);
/* Reads a whole file into a heap string (tq_free), NULL if it cannot be read. */
char *slurp(const char *path, size_t *out_len);

/* The path of one of our models (suites/models/NAME.mlir) compiled by make check into
 * $TORQ_TEST_MODULES (default: test-modules beside this build's bin folder): "<dir>/NAME.vmfb". */
void test_module_path(const char *name, char out[4096]);
void write_file(const char *path, const void *data, size_t len);

/* A host-only module: in buf0 (4xi32), c buf1 (4xi32 constant `c`), o buf2 (4xi32);
 *   0 ALLOC c  1 ALLOC o  2 HOST_START h0 (op in, c -> o)  3 HOST_WAIT h0  4 DEALLOC c */
void tb_host_module(tb_t *tb, const char *op, const int32_t c[4]);

/* Runs `module` once on `device` with one input parsed from `input` and checks the first
 * output's printed form (tqr_tensor_format) against `expected`. */
void run_and_expect(const tqr_module_t *module, tqr_device_t *device, tqr_profile_t *profile,
                    const char *input, const char *expected);
#endif
