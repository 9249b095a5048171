/* libtorq-formats, the bottom layer with libtorq-base: every library above uses it, in the order
 * base -> formats -> sim -> compiler, runtime -> harness. It owns the NPU contract, the facts the
 * compiler writes and the simulator and runtime read, each defined here and nowhere else:
 *
 *   torq/formats/module.h    the module format: the schema (module.proto, compiled by protoc-c
 *                            into module.pb-c.h, included here), its magic, its format version
 *                            and the names of the units an NSS task starts;
 *   torq/formats/element.h   the element types and their facts (storage, width, signedness, the
 *                            MLIR and NumPy names);
 *   torq/formats/contract.h  what each slice kernel computes, what DMA work means, and the NSS
 *                            task-timing rule.
 *
 * The compiler and the simulator implement the two sides of these headers; a change to the NPU
 * model starts here.
 */
#ifndef TORQ_FORMATS_MODULE_H
#define TORQ_FORMATS_MODULE_H

#include "module.pb-c.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Module.magic: every module's field 1, so a module starts with 0A 08 'T' 'O' 'R' 'Q' 'V' 'M' 'F'
 * 'B'. A reader rejects any other value before it looks at anything else. */
#define TQF_MODULE_MAGIC "TORQVMFB"

/* Module.format_version: the version of module.proto this tree writes and reads. A reader
 * rejects any other. Bump it with every change a reader of the previous version would
 * misread. */
#define TQF_MODULE_FORMAT_VERSION 1u

/* The sizes a module may have: the runtime's loader refuses more (TQ_LIMIT, TQ_INVALID_INPUT),
 * so the compiler never writes more (a located error instead). A module file; one buffer (a
 * tensor: an argument, a result, an intermediate or a constant); all the buffers of a module
 * together (views excluded: they share their base's bytes). */
#define TQF_MODULE_MAX_BYTES ((uint64_t)1 << 30)
#define TQF_BUFFER_MAX_BYTES ((uint64_t)1 << 30)
#define TQF_MODULE_MAX_TENSOR_BYTES ((uint64_t)4 << 30)

/* The schema's name of an action kind (enum ActionKind): "ALLOC", "DEALLOC", "HOST_COPY",
 * "NSS_START", "NSS_WAIT", "HOST_START", "HOST_WAIT"; also the action types of the runtime
 * profile. NULL for ACTION_KIND_UNSPECIFIED or a value outside the enum. */
const char *tqf_action_kind_name(Torq__ActionKind kind);

/* The schema's name of a unit (enum Unit): "DMA_IN", "DMA_OUT", "SLICE0", "SLICE1", "CDMA",
 * "CSS"; also the Op Type of the DMA, CDMA and CSS rows of trace.csv. "?" for UNIT_UNSPECIFIED
 * or a value outside the enum. */
const char *tqf_unit_name(Torq__Unit unit);

#ifdef __cplusplus
}
#endif
#endif
