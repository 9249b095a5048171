/* TOSA 1.0 semantics for the ops the corpus uses: the checks a TOSA-aware verifier makes after
 * the generic MLIR verifier (tqc_module_verify) has passed.
 *
 * For every op of the entry function (and every function of the module) it checks the operand
 * count, the element types allowed by the TOSA specification (plus the documented non-TOSA
 * combinations the corpus uses, see REFERENCE.md), the attributes the op requires and their
 * values, that shapes are static, and that the declared result type equals the result type the
 * specification infers from the operands and attributes. tensor.empty and the linalg structured
 * ops (linalg.fill, linalg.matmul, linalg.generic) are checked for static tensors and for what
 * the reference interpreter can run them by (indexing maps of loop dimensions and zeros, the
 * body's ops and types: sim/include/torq/sim/ref.h). Errors are TQ_INVALID_INPUT located
 * diagnostics (path:line:col, source line, caret) at the offending op.
 */
#ifndef TORQ_COMPILER_TOSA_H
#define TORQ_COMPILER_TOSA_H

#include "torq/base/status.h"
#include "torq/compiler/ir.h"

tq_status_t tqc_tosa_check(const tqc_module_t *module) TQ_MUST_USE;

/* 1 when `op` names an op this checker knows (tosa.*, arith.constant, func.return,
 * tensor.extract_slice, the one non-TOSA op of the corpus, and the linalg ops on tensors that
 * models mix with TOSA: tensor.empty, linalg.fill, linalg.matmul, linalg.generic). */
int tqc_tosa_is_known(const tqc_op_t *op);

#endif
