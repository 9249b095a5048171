/* A session runs a module's function on a device: it binds inputs, executes the action list in
 * order, and returns the outputs. One session can run the function many times (invocation_id
 * 0, 1, 2 ... in the profile).
 *
 * What the actions do:
 *   ALLOC       allocates the XRAM buffer (zero-filled; a constant buffer is filled from its
 *               constant); views of it point into it from then on
 *   DEALLOC     frees it
 *   HOST_COPY   copies `size` bytes between two buffers
 *   NSS_START   starts the NSS program on the device; NSS_WAIT waits for it
 *   HOST_START  runs the host program on the reference kernels (tqs_ref_run, with the module's
 *               attributes); HOST_WAIT completes it
 * Input buffers are owned by the session (allocated once, when it is created) and filled from
 * the bound inputs at the start of every invocation. Buffers still allocated when an invocation
 * ends (the outputs) are freed after the outputs were copied out, also after a failure.
 *
 * The profile (profile.h), in the Torq runtime's shape: creating a session is INIT, with its own
 * invocation id and the parts it has: INIT_COMPUTE_XRAM_FOOTPRINT (the table of the module's
 * buffers), INIT_CLEAR_MEMORY (the zero-filled input buffers), INIT_HW_OPEN (the device's
 * prepare()), INIT_LOAD_HOST_CODE (the host programs' working memory). Every run of the function
 * is a DISPATCH with the next invocation id: DISPATCH_SYNC_BINDINGS_IN (the inputs copied into
 * XRAM), DISPATCH_EXECUTE_ACTIONS (the action list, one BEGIN/END per action), then
 * DISPATCH_SYNC_BINDINGS_OUT (the outputs copied out). There is no HAL (HAL_* scopes) and no
 * hardware to acquire here, so those types never appear.
 *
 * Time (the profile's timestamps). On a device with TQR_DEVICE_REAL_TIME every event is stamped
 * with CLOCK_MONOTONIC. Otherwise (the simulator) the session keeps a simulated clock in
 * nanoseconds, starting at 0 when the session is created and never reset, advanced by this host
 * cost model (documented choices: a small embedded Linux host, rounded numbers):
 *   INIT                      TQR_SIM_INIT_NS (10 us), all in INIT_HW_OPEN
 *   binding inputs, outputs   nothing (the SYNC phases take no simulated time)
 *   every action              TQR_SIM_ACTION_NS (1 us) of host overhead, plus:
 *   ALLOC of a constant       its bytes at TQR_SIM_HOST_BYTES_PER_NS (4 bytes/ns = 4 GB/s)
 *   HOST_COPY                 its bytes at the same rate
 *   NSS_START                 the program starts on the NSS when the START action ends, or when
 *                             the NSS finishes the program before it (one program at a time);
 *                             it runs ceil(cycles * 1e9 / clock_hz) ns, cycles from the device's
 *                             result and clock_hz from the module's hardware
 *   NSS_WAIT                  ends TQR_SIM_ACTION_NS after the later of its start and the
 *                             program's end
 *   HOST_START / HOST_WAIT    the same with the host program, which runs from the end of
 *                             HOST_START for TQR_SIM_HOST_NS_PER_ELEMENT (2 ns) per element of
 *                             its operands and results together (host programs run one at a time)
 * Rows are integer microseconds (floor). Two runs of the same module and inputs give the same
 * timestamps; the clock does not depend on the host running the simulation.
 */
#ifndef TORQ_RUNTIME_SESSION_H
#define TORQ_RUNTIME_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "torq/base/status.h"
#include "torq/runtime/device.h"
#include "torq/runtime/module.h"
#include "torq/runtime/profile.h"
#include "torq/runtime/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TQR_SIM_INIT_NS UINT64_C(10000)
#define TQR_SIM_ACTION_NS UINT64_C(1000)
#define TQR_SIM_HOST_BYTES_PER_NS UINT64_C(4)
#define TQR_SIM_HOST_NS_PER_ELEMENT UINT64_C(2)

typedef struct tqr_session_s tqr_session_t;

typedef struct tqr_session_options_s {
  /* Where events go; borrowed, may be NULL (no profiling). The session reserves room for one
   * invocation's events and flushes after INIT and after every invocation. */
  tqr_profile_t *profile;
} tqr_session_options_t;

void tqr_session_options_initialize(tqr_session_options_t *options);

/* Totals over the session's invocations so far (the simulator's numbers for reports). */
typedef struct tqr_session_stats_s {
  uint32_t invocations;   /* started, successful or not */
  uint64_t nss_cycles;    /* sum of the NSS programs' cycles */
  uint64_t nss_programs;  /* NSS programs waited for */
  uint64_t host_programs; /* host programs run */
  uint64_t time_ns;       /* the session clock now (simulated ns; 0 on a real-time device) */
} tqr_session_stats_t;

/* Makes a session for `module` on `device` (both borrowed; they must outlive the session): calls
 * the device's prepare(), allocates the input buffers and the bookkeeping of the action list,
 * and records INIT. `options` may be NULL. The caller owns *out_session. */
tq_status_t tqr_session_create(const tqr_module_t *module, tqr_device_t *device,
                               const tqr_session_options_t *options,
                               tqr_session_t **out_session) TQ_MUST_USE;

/* Runs the function once. `inputs` are borrowed for the call and must match the signature in
 * count, element type and shape (else TQ_INVALID_ARGUMENT naming the input index, expected and
 * given, before anything runs and without using an invocation id). On success out_outputs[i]
 * (num_outputs must equal the function's output count) receives a new tensor the caller owns;
 * on error every entry is NULL. A failing action gives its error annotated with the action id
 * and kind, the dispatch and invocation; the profile then ends that dispatch with ERROR. */
tq_status_t tqr_session_invoke(tqr_session_t *session, const tqr_tensor_t *const *inputs,
                               size_t num_inputs, tqr_tensor_t **out_outputs,
                               size_t num_outputs) TQ_MUST_USE;

void tqr_session_stats(const tqr_session_t *session, tqr_session_stats_t *out_stats);

/* The NPU cycles NSS program `job_id` took the last time it ran in this session, as the device
 * reported them (the simulated cycles on the simulator: what the reconciliation compares with
 * the program's estimated_cycles); 0 when it has not run or the job does not exist. */
uint64_t tqr_session_job_cycles(const tqr_session_t *session, uint32_t job_id);

/* What NSS program `job_id` reported the last time it ran in this session (its cycles and, on
 * the simulator, where its DMA and compute worked: tqr_nss_result_t) into *out_result; 1 then,
 * 0 (and *out_result cleared) when it has not run or the job does not exist. */
int tqr_session_job_result(const tqr_session_t *session, uint32_t job_id,
                           tqr_nss_result_t *out_result);

/* Frees the session and every buffer it holds; accepts NULL. */
void tqr_session_destroy(tqr_session_t *session);

#ifdef __cplusplus
}
#endif
#endif
