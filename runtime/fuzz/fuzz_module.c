/* libFuzzer target for the module loader: any bytes must give a clean error or a module whose
 * every reference holds. A module that loads is also run once, with zero inputs, on a null
 * device (NSS programs do nothing; host programs run on the reference kernels), so the session
 * is fuzzed with it. Seeds: runtime/fuzz/seeds (compiled modules).
 *
 *     make fuzz FUZZ_SECONDS=60
 */
#include <stddef.h>
#include <stdint.h>

#include "torq/base/status.h"
#include "torq/runtime/runtime.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void null_destroy(tqr_device_t *device) {
  (void)device;
}
static tq_status_t null_prepare(tqr_device_t *d, const tqr_module_t *m, const tqs_hw_t *hw) {
  (void)d, (void)m, (void)hw;
  return NULL;
}
static tq_status_t null_start(tqr_device_t *d, const Torq__NssProgram *p,
                              const tqs_xram_buffer_t *x, size_t n) {
  (void)d, (void)p, (void)x, (void)n;
  return NULL;
}
static tq_status_t null_wait(tqr_device_t *d, uint32_t job, tqr_nss_result_t *out) {
  (void)d;
  out->cycles = (uint64_t)100 * job;
  return NULL;
}
static const tqr_device_vtable_t null_vtable = {null_destroy, null_prepare, null_start, null_wait,
                                                NULL};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tqr_module_options_t options;
  tqr_module_options_initialize(&options);
  options.max_buffer_bytes = 1u << 20;
  tqr_module_t *m = NULL;
  tq_status_t st = tqr_module_load("fuzz.vmfb", data, size, &options, &m);
  if (st) {
    if (tq_status_code(st) != TQ_INVALID_INPUT && tq_status_code(st) != TQ_LIMIT &&
        tq_status_code(st) != TQ_OUT_OF_MEMORY)
      __builtin_trap();
    tq_status_free(st);
    return 0;
  }
  tqr_device_t device = {&null_vtable, 0, "null"};
  tqr_session_t *s = NULL;
  const Torq__Function *fn = tqr_module_proto(m)->function;
  tqr_tensor_t *in[16] = {0}, *out[16] = {0};
  st = tqr_session_create(m, &device, NULL, &s);
  if (!st && (fn->n_inputs > 16 || fn->n_outputs > 16)) st = TQ_STATUS(TQ_LIMIT, "too many");
  for (size_t i = 0; !st && i < fn->n_inputs; i++)
    st = tqr_tensor_create(fn->inputs[i]->element_type, fn->inputs[i]->n_dims, fn->inputs[i]->dims,
                           &in[i]);
  if (!st)
    st = tqr_session_invoke(s, (const tqr_tensor_t *const *)in, fn->n_inputs, out, fn->n_outputs);
  tq_status_free(st);
  for (size_t i = 0; i < 16; i++) {
    tqr_tensor_destroy(in[i]);
    tqr_tensor_destroy(out[i]);
  }
  tqr_session_destroy(s);
  tqr_module_destroy(m);
  return 0;
}
