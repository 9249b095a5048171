/* Helpers of the NPU model tests (test_npu.c, test_npu_errors.c): NSS programs built in static
 * storage, deterministic random data, and a harness that runs one slice kernel between a DMA in
 * and a DMA out. */
#ifndef TORQ_SIM_TESTS_NPU_HELPERS_H
#define TORQ_SIM_TESTS_NPU_HELPERS_H

#include <check.h>
#include <stddef.h>
#include <stdint.h>

#include "helpers.h"
#include "module.pb-c.h"
#include "torq/sim/npu.h"

#define TN_TASKS 6
#define TN_REGS 8
#define TN_GAP 16 /* SL2610 nss_task_overhead_cycles */

/* A work item with room for its regions and their counts and strides. */
typedef struct tn_work_s {
  Torq__UnitWork w;
  Torq__Region r[TN_REGS];
  Torq__Region *rp[TN_REGS];
  uint64_t counts[TN_REGS][2], strides[TN_REGS][2];
} tn_work_t;

typedef struct tn_prog_s {
  Torq__NssProgram p;
  Torq__NssTask t[TN_TASKS];
  Torq__NssTask *tp[TN_TASKS];
  tn_work_t w[TN_TASKS][TQS_UNIT_COUNT];
  Torq__UnitWork *wp[TN_TASKS][TQS_UNIT_COUNT];
} tn_prog_t;

/* A TCase whose checked teardown destroys the test's NPU and the th_ tensors. */
TCase *tn_tcase(const char *name);

tqs_hw_t tn_hw(void); /* the SL2610 */

/* The SL2610 NPU of the test (destroyed by the fixture). */
tqs_npu_t *tn_npu(void);

/* Resets the one static program to `n_tasks` empty tasks and returns it. */
tn_prog_t *tn_prog(uint32_t job, size_t n_tasks);

/* Appends a work item to a task; `kernel` may be NULL. */
tn_work_t *tn_work(tn_prog_t *p, size_t task, Torq__Unit unit, const char *trace,
                   const char *kernel);

/* Appends a dense region to a work item. */
Torq__Region *tn_reg(tn_work_t *w, Torq__Memory mem, uint32_t buffer, uint64_t offset,
                     uint64_t size);
#define TN_LRAM(w, off, size) tn_reg((w), TORQ__MEMORY__LRAM, 0, (off), (size))
#define TN_XRAM(w, buf, off, size) tn_reg((w), TORQ__MEMORY__XRAM, (buf), (off), (size))

/* Makes the last region of `w` strided: n (1 or 2) levels of counts and strides. */
void tn_strided(tn_work_t *w, size_t n, uint64_t c0, uint64_t s0, uint64_t c1, uint64_t s1);

/* SL2610 DMA cycles by hand: ceil(bytes * 175 / 832). */
uint64_t tn_dma(uint64_t bytes);

/* Deterministic data: tn_seed, then values in [lo, hi]. */
extern uint64_t tn_seed;
int64_t tn_rand(int64_t lo, int64_t hi);
tqs_tensor_t *tn_random(tqs_type_t type, size_t rank, const int64_t *dims, int64_t lo, int64_t hi);
size_t tn_bytes(const tqs_tensor_t *t);

typedef struct tn_op_s {
  const void *data;
  size_t bytes;
} tn_op_t;
#define TN_OP(t) ((tn_op_t){(t)->data, tn_bytes(t)})

/* The program that loads the operands into LRAM (task 0), runs `kernel` on SLICE0 (task 1) and
 * stores its result (task 2) into `out`; `xram` gets n_ops + 1 buffers. */
tn_prog_t *tn_kernel_prog(const char *kernel, Torq__KernelParams *params, const tn_op_t *ops,
                          size_t n_ops, void *out, size_t out_bytes, tqs_xram_buffer_t *xram);
/* Builds and runs that program on tn_npu(). */
tq_status_t tn_kernel(const char *kernel, Torq__KernelParams *params, const tn_op_t *ops,
                      size_t n_ops, void *out, size_t out_bytes, tqs_npu_result_t *res);

Torq__KernelParams tn_params(void);
/* Sets a repeated int64 field from a static array of the values. */
#define TN_SET(p, field, ...)                         \
  do {                                                \
    static int64_t tn__v[] = {__VA_ARGS__};           \
    (p).field = tn__v;                                \
    (p).n_##field = sizeof(tn__v) / sizeof(tn__v[0]); \
  } while (0)

void tn_expect_bytes(const void *got, const void *want, size_t n, const char *what);

/* The events an observer saw (the first 16). */
typedef struct tn_events_s {
  tqs_npu_event_t ev[16];
  size_t n;
} tn_events_t;
/* An observer callback that records into a tn_events_t. */
void tn_on_work(void *user, const tqs_npu_event_t *ev);

/* test_npu_errors.c: malformed programs and random mutations. */
void tn_add_error_tests(Suite *s);
/* test_npu_time.c: the effects of the NPU model's time. */
void tn_add_time_tests(Suite *s);
/* test_npu_fast.c: the fast paths of the MAC kernels against the reference. */
void tn_add_fast_tests(Suite *s);

#endif
