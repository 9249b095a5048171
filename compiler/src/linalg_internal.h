/* The linalg ops on tensors that models mix with TOSA (private to compiler/src): tensor.empty
 * and the structured ops linalg.fill, linalg.matmul and linalg.generic. They run as host
 * programs on the reference interpreter, which reads a structured op's semantics from the
 * attributes made here (sim/include/torq/sim/ref.h, "linalg"): the loop index each operand
 * dimension reads (from its indexing map), the iterator types, how many operands are inputs and
 * the body as a list of scalar instructions. linalg.c. */
#ifndef TORQ_COMPILER_LINALG_INTERNAL_H
#define TORQ_COMPILER_LINALG_INTERNAL_H

#include <stddef.h>

#include "torq/base/arena.h"
#include "torq/base/status.h"
#include "torq/compiler/ir.h"

/* 1 for tensor.empty, linalg.fill, linalg.matmul and linalg.generic. */
int tqc__linalg_is_op(const tqc_op_t *op);

/* The attributes the reference interpreter needs to run `op` (linalg.maps, linalg.loops,
 * linalg.inputs, linalg.body: four in *out_attrs, in `arena`), or none (count 0) for tensor.empty
 * and ops that are not linalg. Errors: TQ_UNIMPLEMENTED naming what is not supported (an indexing
 * map beyond loop indices and 0, a body op or type the interpreter lacks, a non-constant value
 * from outside the body), TQ_INVALID_INPUT for what does not fit (map and operand counts or
 * ranks), TQ_OUT_OF_MEMORY; messages do not name the op (the caller says where). */
tq_status_t tqc__linalg_attrs(tq_arena_t *arena, const tqc_op_t *op, tqc_named_attr_t **out_attrs,
                              size_t *out_count) TQ_MUST_USE;

#endif
