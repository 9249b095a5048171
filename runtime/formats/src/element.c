/* The element type table of the NPU contract (element.h). */
#include "torq/formats/element.h"

#include <stdint.h>

#define TQF__INT(name_, schema_, npy_, size_, bits_, uns_, min_, max_)                           \
  {                                                                                              \
    .name = (name_), .schema_name = (schema_), .npy_descr = (npy_), .size = (size_),             \
    .bits = (bits_), .wrap_bits = (bits_), .is_unsigned = (uns_), .slice_int = 1, .min = (min_), \
    .max = (max_)                                                                                \
  }
#define TQF__FLOAT(name_, schema_, npy_, size_)                                      \
  {                                                                                  \
    .name = (name_), .schema_name = (schema_), .npy_descr = (npy_), .size = (size_), \
    .bits = 8 * (size_), .wrap_bits = 8 * (size_), .is_float = 1                     \
  }

static const tqf_element_info_t tqf__elements[] = {
    [TORQ__ELEMENT_TYPE__ELEMENT_TYPE_UNSPECIFIED] = {.name = "?", .schema_name = "UNSPECIFIED"},
    /* i1 holds 0 or 1; slice kernels do not compute with it. */
    [TORQ__ELEMENT_TYPE__I1] = {.name = "i1",
                                .schema_name = "I1",
                                .npy_descr = "|b1",
                                .size = 1,
                                .bits = 1,
                                .wrap_bits = 1,
                                .is_unsigned = 1,
                                .min = 0,
                                .max = 1},
    [TORQ__ELEMENT_TYPE__I8] = TQF__INT("i8", "I8", "|i1", 1, 8, 0, INT8_MIN, INT8_MAX),
    [TORQ__ELEMENT_TYPE__I16] = TQF__INT("i16", "I16", "<i2", 2, 16, 0, INT16_MIN, INT16_MAX),
    [TORQ__ELEMENT_TYPE__I32] = TQF__INT("i32", "I32", "<i4", 4, 32, 0, INT32_MIN, INT32_MAX),
    [TORQ__ELEMENT_TYPE__I64] = TQF__INT("i64", "I64", "<i8", 8, 64, 0, INT64_MIN, INT64_MAX),
    [TORQ__ELEMENT_TYPE__U8] = TQF__INT("ui8", "U8", "|u1", 1, 8, 1, 0, UINT8_MAX),
    /* NumPy has no bf16: its bit patterns are written as uint16. */
    [TORQ__ELEMENT_TYPE__BF16] = TQF__FLOAT("bf16", "BF16", "<u2", 2),
    [TORQ__ELEMENT_TYPE__F16] = TQF__FLOAT("f16", "F16", "<f2", 2),
    [TORQ__ELEMENT_TYPE__F32] = TQF__FLOAT("f32", "F32", "<f4", 4),
    /* Shapes (tosa.const_shape): an int64, not a type the kernels compute with. */
    [TORQ__ELEMENT_TYPE__INDEX] = {.name = "index",
                                   .schema_name = "INDEX",
                                   .npy_descr = "<i8",
                                   .size = 8,
                                   .bits = 64,
                                   .wrap_bits = 64,
                                   .min = INT64_MIN,
                                   .max = INT64_MAX},
    /* Held and computed as an int64 (wrap_bits 64), so an I48 value is the reference
     * interpreter's i48 (= i64) value byte for byte; 48 bits for the cost model, and the 48-bit
     * range for saturation. */
    [TORQ__ELEMENT_TYPE__I48] = {.name = "i48",
                                 .schema_name = "I48",
                                 .npy_descr = "<i8",
                                 .size = 8,
                                 .bits = 48,
                                 .wrap_bits = 64,
                                 .slice_int = 1,
                                 .min = -(INT64_C(1) << 47),
                                 .max = (INT64_C(1) << 47) - 1},
};

#define TQF__ELEMENT_COUNT (sizeof(tqf__elements) / sizeof(tqf__elements[0]))

const tqf_element_info_t *tqf_element_info(Torq__ElementType type) {
  if ((unsigned)type >= TQF__ELEMENT_COUNT) return &tqf__elements[0];
  return &tqf__elements[type];
}

size_t tqf_element_size(Torq__ElementType type) {
  return tqf_element_info(type)->size;
}

const char *tqf_element_name(Torq__ElementType type) {
  return tqf_element_info(type)->name;
}

int tqf_element_is_float(Torq__ElementType type) {
  return tqf_element_info(type)->is_float;
}

int tqf_element_parse(tq_sv_t name, Torq__ElementType *out_type) {
  for (size_t t = 1; t < TQF__ELEMENT_COUNT; t++) {
    if (tq_sv_eq_cstr(name, tqf__elements[t].name)) {
      *out_type = (Torq__ElementType)t;
      return 1;
    }
  }
  return 0;
}

Torq__ElementType tqf_element_of_npy_code(const char code[2]) {
  for (size_t t = 1; t < TQF__ELEMENT_COUNT; t++) {
    const char *d = tqf__elements[t].npy_descr;
    if (d && d[1] == code[0] && d[2] == code[1]) return (Torq__ElementType)t;
  }
  return TORQ__ELEMENT_TYPE__ELEMENT_TYPE_UNSPECIFIED;
}
