/* Private to runtime/src: what the loader derives from a module for the session and the host
 * program runner. */
#ifndef TORQ_RUNTIME_INTERNAL_H
#define TORQ_RUNTIME_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "torq/formats/element.h"
#include "torq/runtime/module.h"
#include "torq/sim/hw.h"
#include "torq/sim/npu.h"
#include "torq/sim/ref.h"

/* Per buffer: where its bytes live. */
typedef struct tqr__buffer_s {
  uint32_t base;     /* itself, or the base buffer of a view */
  uint64_t offset;   /* into the base (0 for a non-view) */
  uint64_t size;     /* bytes */
  int32_t input;     /* input index, or -1 */
  int32_t next_view; /* for a base: its first view; for a view: the next view of the base; -1 */
  uint64_t elements; /* element count of its type */
} tqr__buffer_t;

struct tqr_module_s {
  char *name;
  Torq__Module *proto; /* protobuf-c's; freed with torq__module__free_unpacked */
  tqs_hw_t hw;
  char *dispatch_name;
  tqr__buffer_t *buffers; /* n_buffers */
  /* The distinct base buffers each NSS program touches: job_buffers[job_start[j] ..
   * job_start[j + 1]). */
  uint32_t *job_buffers;
  size_t *job_start;
  /* Host programs: their attributes converted for tqs_ref_run (host_attrs[attr_start[h] ..
   * attr_start[h + 1])), and the element count of operands plus results. */
  tqs_attr_t *host_attrs;
  size_t *attr_start;
  uint64_t *host_elements;
  size_t max_host_tensors; /* operands + results of the largest host program */
};

/* "NSS_START" for an action kind (Torq__ActionKind), "?" for one that does not exist (module.c). */
const char *tqr__action_kind_name(int kind);

/* Element type mapping for the reference kernels (i48, held as int64, maps to TQS_I64). */
int tqr__tqs_type(Torq__ElementType type, tqs_type_t *out_type);

/* Scratch for tqr__host_run, sized for the module by tqr__host_scratch_init. */
typedef struct tqr__host_scratch_s {
  tqs_tensor_t *tensors;
  const tqs_tensor_t **inputs;
  tqs_tensor_t **outputs;
  size_t capacity;
} tqr__host_scratch_t;

tq_status_t tqr__host_scratch_init(tqr__host_scratch_t *scratch, size_t capacity) TQ_MUST_USE;
void tqr__host_scratch_deinit(tqr__host_scratch_t *scratch);

/* Runs host program `id` of `module` on the XRAM buffers (`xram`, per buffer id, views resolved;
 * every operand and result allocated: the loader checked it). Errors of tqs_ref_run, annotated
 * with the program id, op and location. */
tq_status_t tqr__host_run(const tqr_module_t *module, uint32_t id, const tqs_xram_buffer_t *xram,
                          tqr__host_scratch_t *scratch) TQ_MUST_USE;

#endif
