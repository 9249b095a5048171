/* The device interface's dispatch helpers. */
#include <string.h>

#include "torq/runtime/device.h"

#include "runtime_internal.h"

tq_status_t tqr_device_prepare(tqr_device_t *device, const tqr_module_t *module) {
  if (!device || !device->vtable || !device->vtable->prepare)
    return TQ_STATUS(TQ_INVALID_ARGUMENT, "no device");
  tq_status_t st = device->vtable->prepare(device, module, &module->hw);
  return st ? tq_status_annotate(st, "while preparing device '%s' for %s",
                                 device->name ? device->name : "?", module->name)
            : NULL;
}

tq_status_t tqr_device_nss_start(tqr_device_t *device, const Torq__NssProgram *program,
                                 const tqs_xram_buffer_t *xram, size_t num_xram) {
  return device->vtable->nss_start(device, program, xram, num_xram);
}

tq_status_t tqr_device_nss_wait(tqr_device_t *device, uint32_t job_id,
                                tqr_nss_result_t *out_result) {
  memset(out_result, 0, sizeof(*out_result));
  return device->vtable->nss_wait(device, job_id, out_result);
}

void tqr_device_reset(tqr_device_t *device) {
  if (device->vtable->reset) device->vtable->reset(device);
}

void tqr_device_destroy(tqr_device_t *device) {
  if (device && device->vtable && device->vtable->destroy) device->vtable->destroy(device);
}
