/* The device interface: how a session reaches an NPU. A table of function pointers (IREE HAL
 * style), so that the simulator, a real board's driver or a test double can stand behind it.
 *
 * A device is used by one session at a time, from one thread. The session calls, in order:
 *   prepare(module)                     once, when the session is created
 *   nss_start(program, xram) ... nss_wait(job_id, &result)   per NSS_START / NSS_WAIT action
 * Every started job is waited for exactly once (the module loader guarantees it for valid
 * modules); after a failed invocation the session calls reset() so that the device forgets
 * started jobs.
 *
 * xram: one entry per module buffer id, as tqs_npu_run takes it (views already point into their
 * base buffer; NULL data = not allocated now). It is borrowed for the duration of nss_start; a
 * device that runs a program asynchronously must finish with the buffers before nss_wait
 * returns, and the session keeps them allocated until then.
 */
#ifndef TORQ_RUNTIME_DEVICE_H
#define TORQ_RUNTIME_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#include "module.pb-c.h"
#include "torq/base/status.h"
#include "torq/runtime/module.h"
#include "torq/sim/npu.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tqr_device_s tqr_device_t;

/* What a finished NSS program reports. */
typedef struct tqr_nss_result_s {
  uint64_t cycles; /* NPU clock cycles from the start of the program to the end of its last task */
  uint64_t tasks;
  /* Cycles in which its DMA (in, out, CDMA) works, its compute (slices, CSS) works, and both at
   * once (tqs_npu_result_t's); 0 from a device that cannot tell. */
  uint64_t dma_cycles, compute_cycles, overlap_cycles;
} tqr_nss_result_t;

/* Device flags. */
enum {
  /* Timestamps of the runtime profile come from CLOCK_MONOTONIC (real hardware). Without it the
   * session keeps a simulated clock (session.h), so that simulator profiles are deterministic. */
  TQR_DEVICE_REAL_TIME = 1u << 0,
};

typedef struct tqr_device_vtable_s {
  /* Frees the device (and what prepare made). */
  void (*destroy)(tqr_device_t *device);
  /* Gets ready to run the programs of `module` on the hardware `hw` (the module's). */
  tq_status_t (*prepare)(tqr_device_t *device, const tqr_module_t *module, const tqs_hw_t *hw);
  /* Starts NSS program `program` (borrowed from the module) on `xram`. */
  tq_status_t (*nss_start)(tqr_device_t *device, const Torq__NssProgram *program,
                           const tqs_xram_buffer_t *xram, size_t num_xram);
  /* Waits for job `job_id` and fills *out_result (cleared by the caller). */
  tq_status_t (*nss_wait)(tqr_device_t *device, uint32_t job_id, tqr_nss_result_t *out_result);
  /* Forgets started jobs after a failure; must not fail. May be NULL. */
  void (*reset)(tqr_device_t *device);
} tqr_device_vtable_t;

/* The common head of every device; an implementation embeds it first. */
struct tqr_device_s {
  const tqr_device_vtable_t *vtable;
  uint32_t flags;   /* TQR_DEVICE_* */
  const char *name; /* "sim"; static storage */
};

/* Dispatch helpers: argument checks, then the vtable. */
tq_status_t tqr_device_prepare(tqr_device_t *device, const tqr_module_t *module) TQ_MUST_USE;
tq_status_t tqr_device_nss_start(tqr_device_t *device, const Torq__NssProgram *program,
                                 const tqs_xram_buffer_t *xram, size_t num_xram) TQ_MUST_USE;
tq_status_t tqr_device_nss_wait(tqr_device_t *device, uint32_t job_id,
                                tqr_nss_result_t *out_result) TQ_MUST_USE;
void tqr_device_reset(tqr_device_t *device);
/* Accepts NULL. */
void tqr_device_destroy(tqr_device_t *device);

/* The embedded simulator (libtorq-sim's NPU model, tqs_npu_*): prepare() builds an NPU for the
 * module's hardware; nss_start runs the program to completion (functionally and in time) and
 * nss_wait returns its cycles. Deterministic. Flags: none (simulated time). The caller owns
 * *out_device (tqr_device_destroy). */
tq_status_t tqr_device_sim_create(tqr_device_t **out_device) TQ_MUST_USE;

#ifdef __cplusplus
}
#endif
#endif
