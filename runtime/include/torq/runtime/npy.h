/* NumPy .npy files, format 1.0 (REFERENCE.md): magic "\x93NUMPY", version 1 0, a little-endian
 * uint16 header length, an ASCII Python-dict header ({'descr': ..., 'fortran_order': False,
 * 'shape': (...), }) padded with spaces and '\n' so that the data starts at a multiple of 64,
 * then the C-order data.
 *
 * descr per element type: i1 '|b1', i8 '|i1', i16 '<i2', i32 '<i4', i64 and index '<i8', ui8
 * '|u1', f16 '<f2', f32 '<f4'. NumPy has no bf16: bf16 is written as '<u2' (the bit patterns),
 * and a '<u2' file reads as bf16. i48 (held as int64) is written as '<i8' and reads back as i64.
 *
 * Reading accepts versions 1.0, 2.0 and 3.0 (a uint32 header length), the dict keys in any
 * order, '<', '|' or '=' as the byte order of one-byte types and '<' or '=' for wider ones. It
 * refuses fortran_order True, big-endian data, other descrs, a rank above TQR_MAX_RANK, and data
 * that is shorter or longer than the shape says. Errors are TQ_INVALID_INPUT and name the file
 * and the byte offset: "in.npy: offset 10: expected '{' to open the header dict".
 */
#ifndef TORQ_RUNTIME_NPY_H
#define TORQ_RUNTIME_NPY_H

#include <stddef.h>

#include "torq/base/status.h"
#include "torq/base/str.h"
#include "torq/runtime/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Decodes `len` bytes of an .npy file; `name` is used in messages. The caller owns *out_tensor. */
tq_status_t tqr_npy_decode(const char *name, const void *data, size_t len,
                           tqr_tensor_t **out_tensor) TQ_MUST_USE;

/* Reads and decodes `path` (refusing files above `max_bytes`; 0 = no limit). */
tq_status_t tqr_npy_read(const char *path, size_t max_bytes, tqr_tensor_t **out_tensor) TQ_MUST_USE;

/* Appends the .npy (format 1.0) encoding of `tensor` to `out`. TQ_INVALID_ARGUMENT for an
 * unknown element type. */
tq_status_t tqr_npy_encode(const tqr_tensor_t *tensor, tq_buf_t *out) TQ_MUST_USE;

/* Encodes and writes `path` atomically (tq_file_write_atomic). */
tq_status_t tqr_npy_write(const char *path, const tqr_tensor_t *tensor) TQ_MUST_USE;

#ifdef __cplusplus
}
#endif
#endif
