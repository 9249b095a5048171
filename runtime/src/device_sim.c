/* The simulator device: wraps libtorq-sim's NPU model. A program runs to completion in
 * nss_start (functionally and in time); nss_wait hands back its cycles. */
#include <string.h>

#include "torq/base/alloc.h"
#include "torq/runtime/device.h"

typedef struct sim_job_s {
  int done;
  tqs_npu_result_t result;
} sim_job_t;

typedef struct sim_device_s {
  tqr_device_t base;
  tqs_npu_t *npu;
  sim_job_t *jobs;
  size_t n_jobs;
} sim_device_t;

static void sim_destroy(tqr_device_t *device) {
  sim_device_t *d = (sim_device_t *)device;
  tqs_npu_destroy(d->npu);
  tq_free(d->jobs);
  tq_free(d);
}

static tq_status_t sim_prepare(tqr_device_t *device, const tqr_module_t *module,
                               const tqs_hw_t *hw) {
  sim_device_t *d = (sim_device_t *)device;
  size_t n = tqr_module_proto(module)->n_nss_programs;
  sim_job_t *jobs = tq_calloc(n ? n : 1, sizeof(*jobs));
  if (!jobs) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory for the simulator's job table");
  tqs_npu_t *npu = NULL;
  tq_status_t st = tqs_npu_create(hw, &npu);
  if (st) {
    tq_free(jobs);
    return st;
  }
  tqs_npu_destroy(d->npu);
  tq_free(d->jobs);
  d->npu = npu;
  d->jobs = jobs;
  d->n_jobs = n;
  return NULL;
}

static tq_status_t sim_nss_start(tqr_device_t *device, const Torq__NssProgram *program,
                                 const tqs_xram_buffer_t *xram, size_t num_xram) {
  sim_device_t *d = (sim_device_t *)device;
  if (!d->npu || program->job_id >= d->n_jobs)
    return TQ_STATUS(TQ_FAILED_PRECONDITION, "simulator: job %u outside the prepared module",
                     program->job_id);
  sim_job_t *job = &d->jobs[program->job_id];
  job->done = 0;
  TQ_TRY(tqs_npu_run(d->npu, program, xram, num_xram, NULL, &job->result));
  job->done = 1;
  return NULL;
}

static tq_status_t sim_nss_wait(tqr_device_t *device, uint32_t job_id,
                                tqr_nss_result_t *out_result) {
  sim_device_t *d = (sim_device_t *)device;
  if (job_id >= d->n_jobs || !d->jobs[job_id].done)
    return TQ_STATUS(TQ_FAILED_PRECONDITION, "simulator: job %u was not started", job_id);
  sim_job_t *job = &d->jobs[job_id];
  out_result->cycles = job->result.cycles;
  out_result->tasks = job->result.tasks;
  out_result->dma_cycles = job->result.dma_cycles;
  out_result->compute_cycles = job->result.compute_cycles;
  out_result->overlap_cycles = job->result.overlap_cycles;
  job->done = 0;
  return NULL;
}

static void sim_reset(tqr_device_t *device) {
  sim_device_t *d = (sim_device_t *)device;
  for (size_t i = 0; i < d->n_jobs; i++) d->jobs[i].done = 0;
}

static const tqr_device_vtable_t sim_vtable = {
    .destroy = sim_destroy,
    .prepare = sim_prepare,
    .nss_start = sim_nss_start,
    .nss_wait = sim_nss_wait,
    .reset = sim_reset,
};

tq_status_t tqr_device_sim_create(tqr_device_t **out_device) {
  *out_device = NULL;
  sim_device_t *d = tq_calloc(1, sizeof(*d));
  if (!d) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory for the simulator device");
  d->base.vtable = &sim_vtable;
  d->base.flags = 0;
  d->base.name = "sim";
  *out_device = &d->base;
  return NULL;
}
