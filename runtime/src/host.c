/* Host programs: operators the NPU cannot run, executed on the reference kernels (tqs_ref_run)
 * over the session's XRAM buffers. */
#include <string.h>

#include "runtime_internal.h"
#include "torq/base/alloc.h"

int tqr__tqs_type(Torq__ElementType type, tqs_type_t *out_type) {
  /* The reference interpreter's types carry the same MLIR names (i48 reads as its i64). */
  return tqs_type_parse(tqf_element_name(type), out_type);
}

tq_status_t tqr__host_scratch_init(tqr__host_scratch_t *scratch, size_t capacity) {
  memset(scratch, 0, sizeof(*scratch));
  size_t n = capacity ? capacity : 1;
  scratch->tensors = tq_calloc(n, sizeof(*scratch->tensors));
  scratch->inputs = tq_calloc(n, sizeof(const tqs_tensor_t *));
  scratch->outputs = tq_calloc(n, sizeof(tqs_tensor_t *));
  scratch->capacity = n;
  if (!scratch->tensors || !scratch->inputs || !scratch->outputs) {
    tqr__host_scratch_deinit(scratch);
    return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory for host program scratch");
  }
  return NULL;
}

void tqr__host_scratch_deinit(tqr__host_scratch_t *scratch) {
  tq_free(scratch->tensors);
  tq_free(scratch->inputs);
  tq_free(scratch->outputs);
  memset(scratch, 0, sizeof(*scratch));
}

tq_status_t tqr__host_run(const tqr_module_t *module, uint32_t id, const tqs_xram_buffer_t *xram,
                          tqr__host_scratch_t *scratch) {
  const Torq__HostProgram *hp = module->proto->host_programs[id];
  size_t n_in = hp->n_operand_buffers, n_out = hp->n_result_buffers;
  if (n_in + n_out > scratch->capacity)
    return TQ_STATUS(TQ_INTERNAL, "host program %u: scratch too small", id);
  tq_status_t st = NULL;
  for (size_t i = 0; i < n_in + n_out && !st; i++) {
    uint32_t b = i < n_in ? hp->operand_buffers[i] : hp->result_buffers[i - n_in];
    const Torq__TensorType *t = module->proto->buffers[b]->type;
    tqs_type_t type;
    if (!tqr__tqs_type(t->element_type, &type) || !xram[b].data) {
      st = TQ_STATUS(TQ_INTERNAL, "host program %u: buffer %u is not usable", id, b);
      break;
    }
    st = tqs_tensor_init(&scratch->tensors[i], type, t->n_dims, t->dims, xram[b].data);
    if (i < n_in)
      scratch->inputs[i] = &scratch->tensors[i];
    else
      scratch->outputs[i - n_in] = &scratch->tensors[i];
  }
  if (!st) {
    const tqs_attr_t *attrs = module->host_attrs + module->attr_start[id];
    size_t n_attrs = module->attr_start[id + 1] - module->attr_start[id];
    st = tqs_ref_run(hp->op, attrs, n_attrs, scratch->inputs, n_in, scratch->outputs, n_out);
  }
  if (st)
    st = tq_status_annotate(st, "in host program %u (%s) at %s", id, hp->op,
                            hp->location && *hp->location ? hp->location : "unknown location");
  return st;
}
