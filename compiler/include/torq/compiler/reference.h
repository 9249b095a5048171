/* The reference evaluator: runs a function of a parsed TOSA module op by op on the reference
 * interpreter of libtorq-sim (torq/sim/ref.h), with no lowering in between. Tests and the harness
 * use its results as "the reference" that NPU execution is compared with.
 *
 * What it does, in program order over the function's single block:
 *   - tosa.const, arith.constant and tosa.const_shape become tensors of their dense attribute
 *     (a !tosa.shape<N> value is a rank-1 tensor of N TQS_INDEX elements);
 *   - every other op runs through tqs_ref_run() with its operands, its results allocated from
 *     the declared result types, and its attributes (properties, then discardable attributes)
 *     converted exactly as the lowering converts them for host programs: integers and booleans
 *     as INTS, floats as FLOATS, #tosa.rounding_mode<DOUBLE_ROUND> as "DOUBLE_ROUND", type
 *     attributes as MLIR prints them (acc_type = "i32"); dense elements attributes are left out;
 *   - func.return names the outputs.
 * Element types: i1 i8 i16 i32 i48 (held as TQS_I64, as the runtime does) i64, ui8 ui16, bf16
 * f16 f32, index. Only static shapes.
 */
#ifndef TORQ_COMPILER_REFERENCE_H
#define TORQ_COMPILER_REFERENCE_H

#include <stddef.h>

#include "torq/base/status.h"
#include "torq/compiler/mlir.h"
#include "torq/sim/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Runs `function` of `module` (NULL: the entry point, tqc_module_entry) once.
 *
 * `module` should have passed tqc_module_verify(); an unverified one gives errors, not crashes.
 * `inputs` (num_inputs of them, borrowed for the call) must match the function's arguments in
 * count, element type and shape. `out_outputs` has room for `num_outputs` tensors, which must be
 * the function's result count (its function type's results: tqc_func_type()); on success entry
 * i receives a new tensor for result i, owned by the caller (tqs_tensor_destroy); on error every
 * entry is NULL.
 *
 * Errors: TQ_NOT_FOUND when the function does not exist; TQ_INVALID_ARGUMENT for inputs or an
 * output count that do not fit the signature; TQ_UNIMPLEMENTED for what it cannot evaluate (a
 * dynamic or unsupported type, a function of several blocks, a constant without a dense
 * attribute, an op the reference interpreter does not know); TQ_INVALID_INPUT for an operand
 * without a value; the reference interpreter's errors (tqs_ref_run). Every error from an op is
 * annotated with the op's name and its position in the source ("model.mlir:12:10");
 * TQ_OUT_OF_MEMORY when memory runs out. */
tq_status_t tqc_reference_run(const tqc_module_t *module, const char *function,
                              const tqs_tensor_t *const *inputs, size_t num_inputs,
                              tqs_tensor_t **out_outputs, size_t num_outputs) TQ_MUST_USE;

#ifdef __cplusplus
}
#endif
#endif
