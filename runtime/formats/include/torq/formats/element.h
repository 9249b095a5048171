/* The element types of the NPU contract (enum ElementType of module.proto) and every fact about
 * them, in one table (element.c) that the compiler, the simulator, the runtime and the harness
 * read through the functions below.
 *
 * Storage, the same in constants, XRAM, LRAM, inputs, outputs and the reference interpreter:
 * dense, row-major, little-endian, ceil(width / 8) bytes per element, except
 *   I1     one byte, 0 or 1;
 *   I48    8 bytes: an int64 holding a value of the 48-bit range, sign-extended (the accumulator
 *          of i16 convolutions; the reference interpreter computes i48 as i64);
 *   INDEX  8 bytes, an int64;
 *   BF16, F16  the 16-bit pattern.
 * NumPy has no bf16: .npy files hold BF16 as "<u2" bit patterns, and I48 and INDEX as "<i8".
 */
#ifndef TORQ_FORMATS_ELEMENT_H
#define TORQ_FORMATS_ELEMENT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "torq/base/str.h"
#include "torq/formats/module.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error \
    "elements are stored little-endian and accessed in host order: a little-endian host is needed"
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tqf_element_info_s {
  const char *name;        /* the MLIR spelling: "i8", "ui8", "bf16", "i48", "index"; "?" */
  const char *schema_name; /* the module.proto spelling: "I8", "U8", "BF16"; "UNSPECIFIED" */
  const char *npy_descr;   /* the NumPy descr it is written as: "|i1", "<i2", "<u2"; NULL */
  uint8_t size;            /* storage bytes per element; 0 for UNSPECIFIED */
  uint8_t bits;            /* value bits: 1 for I1, 48 for I48, 16 for BF16 (cost-model widths) */
  uint8_t wrap_bits;       /* the width integer values wrap at: bits, but 64 for I48 */
  uint8_t is_float;        /* BF16, F16, F32 */
  uint8_t is_unsigned;     /* U8, and I1 (0 or 1): loads zero-extend */
  uint8_t slice_int;       /* an integer type slice kernels compute with: I8 I16 I32 I48 I64 U8 */
  int64_t min, max;        /* the value range of an integer type (I48: the 48-bit range); 0 */
} tqf_element_info_t;

/* The facts of `type`; the UNSPECIFIED entry (size 0, name "?") for a value outside the enum.
 * Never NULL; the entry is static. */
const tqf_element_info_t *tqf_element_info(Torq__ElementType type);

/* Shorthands for the table's fields. */
size_t tqf_element_size(Torq__ElementType type);      /* 0 for UNSPECIFIED or unknown */
const char *tqf_element_name(Torq__ElementType type); /* "?" for UNSPECIFIED or unknown */
int tqf_element_is_float(Torq__ElementType type);

/* The type whose MLIR spelling is `name` ("i8", "ui8", "bf16", "i48", "index"). Returns 1 and
 * sets *out_type, or 0 for any other text (*out_type untouched). */
int tqf_element_parse(tq_sv_t name, Torq__ElementType *out_type);

/* The type a NumPy descr stands for, from the two characters after its byte-order mark ("i2" of
 * "<i2"): the first type in enum order written with that descr, so "i8" reads as I64 and "u2"
 * as BF16. UNSPECIFIED for any other code. */
Torq__ElementType tqf_element_of_npy_code(const char code[2]);

/* The integer element at `p` of an integer type (I1, I8, I16, I32, I48, I64, U8, INDEX),
 * sign- or zero-extended to int64. Inline: the simulator's kernels call it per element. */
static inline int64_t tqf_element_load_int(const uint8_t *p, Torq__ElementType type) {
  switch (type) {
    case TORQ__ELEMENT_TYPE__I1:
    case TORQ__ELEMENT_TYPE__U8:
      return p[0];
    case TORQ__ELEMENT_TYPE__I8:
      return (int8_t)p[0];
    case TORQ__ELEMENT_TYPE__I16: {
      int16_t v;
      memcpy(&v, p, 2);
      return v;
    }
    case TORQ__ELEMENT_TYPE__I32: {
      int32_t v;
      memcpy(&v, p, 4);
      return v;
    }
    default: { /* I48, I64, INDEX: 8 bytes */
      int64_t v;
      memcpy(&v, p, 8);
      return v;
    }
  }
}

/* Stores the low bits of `v` (two's complement) as an element of an integer type at `p`. */
static inline void tqf_element_store_int(uint8_t *p, Torq__ElementType type, int64_t v) {
  switch (type) {
    case TORQ__ELEMENT_TYPE__I1:
    case TORQ__ELEMENT_TYPE__U8:
    case TORQ__ELEMENT_TYPE__I8:
      p[0] = (uint8_t)v;
      return;
    case TORQ__ELEMENT_TYPE__I16: {
      uint16_t u = (uint16_t)v;
      memcpy(p, &u, 2);
      return;
    }
    case TORQ__ELEMENT_TYPE__I32: {
      uint32_t u = (uint32_t)v;
      memcpy(p, &u, 4);
      return;
    }
    default: /* I48, I64, INDEX: 8 bytes */
      memcpy(p, &v, 8);
      return;
  }
}

#ifdef __cplusplus
}
#endif
#endif
