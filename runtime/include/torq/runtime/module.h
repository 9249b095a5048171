/* Loading a Torq module (.vmfb, DESIGN 5.1) and validating it before anything uses it.
 *
 * The loader unpacks the protobuf (protobuf-c), checks the magic and the format version
 * (TQF_MODULE_MAGIC, TQF_MODULE_FORMAT_VERSION of torq/formats/module.h), then checks every cross
 * reference of the module so that nothing downstream (the session, the reference kernels, the
 * simulator) ever follows a bad id or reads out of bounds:
 *   - ids are positions (constants[k].id == k, and so on for buffers, actions, programs);
 *   - tensor types: a known element type, rank <= TQR_MAX_RANK, dims >= 0, byte sizes computed
 *     with checked arithmetic; every buffer's size equals its type's size, and is at most
 *     options.max_buffer_bytes;
 *   - constants: data size equals the type's size; a constant buffer's constant exists;
 *   - views: the base exists, is not a view itself, and the view lies inside it;
 *   - the hardware: the spec parses (tqs_hw_parse) and agrees with clock_hz, lram_bytes and
 *     slices;
 *   - the function: a name, input/output buffers that exist, whose sizes match the signature;
 *     inputs are plain XRAM buffers (no view, no constant), distinct;
 *   - actions: the buffers, NSS programs and host programs they name exist; and, walking the
 *     action list once, the allocation state: ALLOC only of an unallocated buffer with storage
 *     (not an input, not a view), DEALLOC only of an allocated one, NSS and host programs and
 *     HOST_COPY only on allocated buffers (inputs always are), nothing freed while a started
 *     program that uses it has not been waited for, every START waited for exactly once, and
 *     the outputs allocated at the end;
 *   - NSS programs: known units (SLICE1 only with 2 slices), strided regions with as many
 *     strides as counts, XRAM regions inside their buffer, LRAM regions inside hardware.lram;
 *   - host programs: an operator the reference kernels know, operand and result buffers that
 *     exist, results that do not overlap operands.
 *
 * Errors are TQ_INVALID_INPUT and name the file and the element:
 *     model.vmfb: action 12 refers to buffer 40, but the module has 38 buffers
 * Bytes that are not a module at all: "model.vmfb: not a Torq module or truncated (protobuf
 * unpack failed)". A version mismatch names both versions.
 *
 * Ownership: a tqr_module_t owns the unpacked message and everything derived from it; it is
 * immutable after loading and may be shared by several sessions, which borrow it (destroy it
 * after them).
 */
#ifndef TORQ_RUNTIME_MODULE_H
#define TORQ_RUNTIME_MODULE_H

#include <stddef.h>
#include <stdint.h>

#include "torq/base/status.h"
#include "torq/formats/module.h"
#include "torq/sim/hw.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tqr_module_s tqr_module_t;

typedef struct tqr_module_options_s {
  size_t max_file_bytes;     /* files larger than this are refused (TQ_LIMIT); default 1 GiB */
  uint64_t max_buffer_bytes; /* larger buffers are refused (TQ_INVALID_INPUT); default 1 GiB */
} tqr_module_options_t;

void tqr_module_options_initialize(tqr_module_options_t *options);

/* Loads and validates the module in `len` bytes at `data` (copied as needed; the bytes need not
 * outlive the call). `name` names the module in messages (a path, as given). `options` may be
 * NULL (defaults). On success the caller owns *out_module. */
tq_status_t tqr_module_load(const char *name, const void *data, size_t len,
                            const tqr_module_options_t *options,
                            tqr_module_t **out_module) TQ_MUST_USE;

/* Reads `path` (refusing files above options.max_file_bytes) and loads it as above. File errors
 * come from tq_file_read (TQ_NOT_FOUND, TQ_IO, TQ_LIMIT, ...), naming the path. */
tq_status_t tqr_module_load_file(const char *path, const tqr_module_options_t *options,
                                 tqr_module_t **out_module) TQ_MUST_USE;

void tqr_module_destroy(tqr_module_t *module);

/* The unpacked, validated message; borrowed, read-only, valid until tqr_module_destroy(). */
const Torq__Module *tqr_module_proto(const tqr_module_t *module);

/* The name the module was loaded under (for messages). */
const char *tqr_module_name(const tqr_module_t *module);

/* The entry function's name ("main"). */
const char *tqr_module_function_name(const tqr_module_t *module);

/* "<function>_dispatch_0": the dispatch name of the runtime profile (DESIGN 5.4), the same name
 * the compiler's debug info uses. */
const char *tqr_module_dispatch_name(const tqr_module_t *module);

/* The hardware the module was compiled for, rebuilt from Hardware.spec. */
const tqs_hw_t *tqr_module_hw(const tqr_module_t *module);

#ifdef __cplusplus
}
#endif
#endif
