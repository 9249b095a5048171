/* Printer pieces other parts of the compiler use (private). */
#ifndef TORQ_COMPILER_PRINT_INTERNAL_H
#define TORQ_COMPILER_PRINT_INTERNAL_H

#include "torq/base/str.h"
#include "torq/compiler/ir.h"

/* Appends a type as MLIR writes it. */
/* The MLIR keyword of a float kind: "bf16", "f16", "f32", "f64". */
const char *tqc__float_name(tqc_float_kind_t kind);

tq_status_t tqc__print_type(const tqc_type_t *type, tq_buf_t *out) TQ_MUST_USE;

/* Appends `s` as an MLIR string literal, quotes included, escaped as llvm::printEscapedString:
 * backslash doubled, printable ASCII other than '"' kept, every other byte as \XX. */
tq_status_t tqc__print_string(tq_sv_t s, tq_buf_t *out) TQ_MUST_USE;

#endif
