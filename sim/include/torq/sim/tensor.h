/* Plain tensors for the simulator and its reference interpreter.
 *
 * A tensor is an element type, a rank (0..TQS_MAX_RANK), its dims and a pointer to dense,
 * row-major (C order) data. Element storage, one element after the other with no padding:
 *   i1            one byte per element, 0 or 1
 *   i8 i16 i32 i64, u8 u16
 *                 two's-complement / unsigned native integers of that width
 *   index         int64_t (shapes from tosa.const_shape)
 *   bf16 f16      the 16-bit IEEE bit pattern in a uint16_t
 *   f32           float
 * A rank-0 tensor holds one element.
 *
 * Ownership: a tensor made by tqs_tensor_create() owns its struct and its data and is released
 * with tqs_tensor_destroy(). A tensor set up by tqs_tensor_init() lives in caller storage and
 * borrows `data`, which must stay valid (and large enough) for as long as the tensor is used;
 * nothing needs releasing.
 */
#ifndef TORQ_SIM_TENSOR_H
#define TORQ_SIM_TENSOR_H

#include <stddef.h>
#include <stdint.h>

#include "torq/base/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TQS_MAX_RANK 8

typedef enum tqs_type_e {
  TQS_I1,
  TQS_I8,
  TQS_I16,
  TQS_I32,
  TQS_I64, /* also TOSA's i48 accumulator type */
  TQS_U8,
  TQS_U16,
  TQS_BF16,
  TQS_F16,
  TQS_F32,
  TQS_INDEX, /* int64_t */
  TQS_TYPE_COUNT
} tqs_type_t;

typedef struct tqs_tensor_s {
  tqs_type_t type;
  size_t rank;
  int64_t dims[TQS_MAX_RANK]; /* rank entries, each >= 0; the rest unused */
  void *data;                 /* element storage as described above */
  int owns_data;              /* 1: tqs_tensor_destroy frees `data` */
} tqs_tensor_t;

/* The MLIR spelling of a type ("i8", "ui8", "bf16", "index"); "?" for an invalid value. */
const char *tqs_type_name(tqs_type_t type);

/* Parses an MLIR element type name: i1 i8 i16 i32 i64 ui8 ui16 bf16 f16 f32 index, and i48 as
 * TQS_I64. Returns 1 and stores the type, or 0 for anything else (*out_type untouched). */
int tqs_type_parse(const char *name, tqs_type_t *out_type);

/* Bytes per element (1 for i1); 0 for an invalid type. */
size_t tqs_type_size(tqs_type_t type);

/* Value bits: 1, 8, 16, 32, 64; bf16 and f16 16, f32 32. */
unsigned tqs_type_bits(tqs_type_t type);

int tqs_type_is_float(tqs_type_t type);    /* bf16, f16, f32 */
int tqs_type_is_integer(tqs_type_t type);  /* i1 .. i64, u8, u16, index */
int tqs_type_is_unsigned(tqs_type_t type); /* u8, u16 (and i1, which holds 0 or 1) */

/* The number of elements of `tensor` (1 for rank 0) in *out_count. TQ_INVALID_ARGUMENT for a
 * bad type, a rank above TQS_MAX_RANK or a negative dim; TQ_LIMIT when the count or the byte
 * size overflows size_t. */
tq_status_t tqs_tensor_count(const tqs_tensor_t *tensor, size_t *out_count) TQ_MUST_USE;

/* The number of data bytes of `tensor`; same errors as tqs_tensor_count. */
tq_status_t tqs_tensor_byte_size(const tqs_tensor_t *tensor, size_t *out_size) TQ_MUST_USE;

/* Makes a heap tensor of the given type and shape with zeroed data that it owns. `dims` holds
 * `rank` entries (may be NULL when rank is 0). The caller owns *out_tensor and releases it with
 * tqs_tensor_destroy(). Errors as tqs_tensor_count, and TQ_OUT_OF_MEMORY. */
tq_status_t tqs_tensor_create(tqs_type_t type, size_t rank, const int64_t *dims,
                              tqs_tensor_t **out_tensor) TQ_MUST_USE;

/* Sets up `tensor` (caller storage) as a view of `data`, which it borrows: the caller keeps
 * `data` alive and at least tqs_tensor_byte_size() bytes long while the tensor is in use.
 * Validates the type, rank and dims as tqs_tensor_count does. */
tq_status_t tqs_tensor_init(tqs_tensor_t *tensor, tqs_type_t type, size_t rank, const int64_t *dims,
                            void *data) TQ_MUST_USE;

/* Frees a tensor made by tqs_tensor_create() (and its data when it owns it); accepts NULL. */
void tqs_tensor_destroy(tqs_tensor_t *tensor);

/* Element access by flat (row-major) index, meant for tests, tools and glue code, not for
 * kernels. An index at or past the element count reads as 0 and is not written.
 *
 * get_i64: integer types give their value (u8/u16 zero-extended); float types give the value
 *   rounded toward zero and saturated to int64 (NaN gives 0).
 * get_f64: the value as a double (exact, but for i64/index beyond 2^53).
 * set_i64: integer types store the low bits of `value` (two's-complement wrap), i1 stores
 *   value != 0; float types store the value rounded to nearest even.
 * set_f64: float types store the value rounded to nearest even; integer types store it rounded
 *   to nearest with ties to even and saturated to the type's range (NaN stores 0), as tosa.cast
 *   does. */
int64_t tqs_tensor_get_i64(const tqs_tensor_t *tensor, size_t index);
double tqs_tensor_get_f64(const tqs_tensor_t *tensor, size_t index);
void tqs_tensor_set_i64(tqs_tensor_t *tensor, size_t index, int64_t value);
void tqs_tensor_set_f64(tqs_tensor_t *tensor, size_t index, double value);

/* bf16 and f16 conversions. Narrowing rounds to nearest, ties to even; values beyond the
 * largest finite number become infinities; NaN stays NaN (quiet). Widening is exact. The f64
 * forms round once, straight from the double (no double rounding through f32). */
float tqs_bf16_to_f32(uint16_t bits);
uint16_t tqs_f32_to_bf16(float value);
uint16_t tqs_f64_to_bf16(double value);
float tqs_f16_to_f32(uint16_t bits);
uint16_t tqs_f32_to_f16(float value);
uint16_t tqs_f64_to_f16(double value);

#ifdef __cplusplus
}
#endif
#endif
