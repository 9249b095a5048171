/* Tensors from IREE's --input syntax (iree-run-module), as torq-run-module accepts them:
 *
 *     1x56x56x24xi8=1          splat: every element 1
 *     2x2xi32=1,2,3,4          all elements, row-major (commas and/or whitespace between them;
 *                              brackets are ignored, so 2x2xi32=[1 2][3 4] works too)
 *     i32=5                    a scalar (rank 0)
 *     @in.npy   =@in.npy       a NumPy file (npy.h); with SHAPExTYPE before '=' the file must
 *     1x4xi8=@in.npy           have that shape and type
 *     1x4xi8=@in.bin           raw little-endian bytes (any other extension); SHAPExTYPE is
 *                              required and the file must hold exactly that many bytes
 *     1x4xi8=@random           seeded random values (tqr_input_random_fill); a file literally
 *                              named "random" is @./random
 * Element types: i1 i8 i16 i32 i64 ui8 bf16 f16 f32. Values: integers in decimal or 0x hex for
 * integer types (signless types accept the signed and the unsigned range of their width, as IREE
 * does: i8 takes -128..255), 0/1/true/false for i1, decimal floats (and inf, nan) for float
 * types, rounded to nearest even for bf16/f16.
 *
 * Errors: TQ_INVALID_ARGUMENT for the syntax (the message quotes the input and says what is
 * wrong: an unknown type, a bad dim, a value out of range, the wrong number of values, a missing
 * SHAPExTYPE for .bin or @random); file errors from tq_file_read (TQ_NOT_FOUND, TQ_IO, TQ_LIMIT)
 * and TQ_INVALID_INPUT for a malformed npy or a file that does not match the given shape/type.
 */
#ifndef TORQ_RUNTIME_INPUT_H
#define TORQ_RUNTIME_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "torq/base/status.h"
#include "torq/runtime/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tqr_input_options_s {
  uint64_t seed;         /* for @random; default 0 */
  size_t index;          /* the input's position (0, 1, ...): @random streams differ per input */
  size_t max_file_bytes; /* default 1 GiB */
} tqr_input_options_t;

void tqr_input_options_initialize(tqr_input_options_t *options);

/* Parses one --input value and makes its tensor; the caller owns *out_tensor. `options` may be
 * NULL (defaults). */
tq_status_t tqr_input_parse(const char *text, const tqr_input_options_t *options,
                            tqr_tensor_t **out_tensor) TQ_MUST_USE;

/* Fills `tensor` with values from a splitmix64 stream seeded by (seed, index): integers uniform
 * over every bit pattern of their width (i1: 0 or 1), floats uniform in [-1, 1) rounded to the
 * type. The same (seed, index, type, shape) always gives the same bytes. */
void tqr_input_random_fill(tqr_tensor_t *tensor, uint64_t seed, size_t index);

#ifdef __cplusplus
}
#endif
#endif
