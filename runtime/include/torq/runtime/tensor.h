/* Host tensors of the runtime: the inputs a caller binds and the outputs a session returns.
 *
 * Element types are the module's (Torq__ElementType), stored as torq/formats/element.h says
 * (little-endian, row-major; its facts, tqf_element_size() and the like, come from there).
 *
 * Ownership: a tensor made by tqr_tensor_create() owns its struct and its data; release it with
 * tqr_tensor_destroy().
 */
#ifndef TORQ_RUNTIME_TENSOR_H
#define TORQ_RUNTIME_TENSOR_H

#include <stddef.h>
#include <stdint.h>

#include "torq/base/status.h"
#include "torq/base/str.h"
#include "torq/formats/element.h"
#include "torq/sim/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The highest rank a module, an input or an output may have: the reference kernels' limit. */
#define TQR_MAX_RANK TQS_MAX_RANK

typedef struct tqr_tensor_s {
  Torq__ElementType type;
  size_t rank;
  int64_t dims[TQR_MAX_RANK]; /* rank entries, each >= 0 */
  size_t size;                /* bytes of data: element count * element size */
  uint8_t *data;              /* owned; NULL only when size is 0 */
} tqr_tensor_t;

/* Parses the element types a user may give an input (--input, suites) by their MLIR names: i1
 * i8 i16 i32 i64 ui8 bf16 f16 f32, every type but the compiler's own i48 and index. Returns 1
 * and sets *out_type, or 0 (leaving it untouched). */
int tqr_element_parse(tq_sv_t name, Torq__ElementType *out_type);

/* The byte size of a tensor of `type` and shape `dims` (rank entries) in *out_size, with checked
 * arithmetic. TQ_INVALID_ARGUMENT for an unknown type, a rank above TQR_MAX_RANK or a negative
 * dim; TQ_LIMIT when the size overflows size_t. */
tq_status_t tqr_tensor_byte_size(Torq__ElementType type, size_t rank, const int64_t *dims,
                                 size_t *out_size) TQ_MUST_USE;

/* Makes a tensor of the given type and shape with zeroed data. `dims` may be NULL when rank is 0.
 * The caller owns *out_tensor. Errors as tqr_tensor_byte_size, and TQ_OUT_OF_MEMORY. */
tq_status_t tqr_tensor_create(Torq__ElementType type, size_t rank, const int64_t *dims,
                              tqr_tensor_t **out_tensor) TQ_MUST_USE;

/* Frees the tensor and its data; accepts NULL. */
void tqr_tensor_destroy(tqr_tensor_t *tensor);

/* Element count (1 for rank 0). The tensor's dims were checked when it was made. */
size_t tqr_tensor_count(const tqr_tensor_t *tensor);

/* "1x56x56x24xi8" (the shape and type, as in IREE's --input syntax) appended to `out`. */
tq_status_t tqr_tensor_format_type(const tqr_tensor_t *tensor, tq_buf_t *out) TQ_MUST_USE;

/* Appends the tensor as iree-run-module prints a buffer view, without a newline:
 * "1x4xi8=[1 2 3 4]". Each dimension but the innermost adds a level of brackets (IREE's
 * layout: 2x2xi32=[1 2][3 4], 4xi8=1 2 3 4, a scalar i32=5); integers print in decimal, floats
 * with %G. At most `max_elements` elements print; an innermost row cut short ends in "..." (rows
 * after the limit print as "..." alone), exactly as IREE elides long tensors. */
tq_status_t tqr_tensor_format(const tqr_tensor_t *tensor, size_t max_elements,
                              tq_buf_t *out) TQ_MUST_USE;

#ifdef __cplusplus
}
#endif
#endif
