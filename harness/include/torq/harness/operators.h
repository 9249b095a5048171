/* Where the time went, by operator: the annotated CSV of a test (annotate.h) summed per source
 * operator, for the HTML report's tables ("conv2d 3.3 ms, depthwise 1.5 ms, rescale 1.3 ms,
 * ALLOC 0.9 ms").
 *
 * Grouping, per row of the annotated CSV:
 *   - an NSS or host program's actions (NSS_START, NSS_WAIT, HOST_START, HOST_WAIT) count for the
 *     operators the program came from (`original_operators` without their locations), a fused
 *     chain as one entry: "tosa.conv2d+tosa.rescale+tosa.clamp";
 *   - every other action (ALLOC, DEALLOC, HOST_COPY, ...) counts under its operation: "ALLOC".
 * An entry's time is the sum of its rows' total_time (µs); its count, how many times it ran: the
 * START rows of a program, every row of the other actions.
 *
 * Ownership: a tqh_op_table_t in caller storage owns its entries and their names.
 *
 * Part of the annotate component (harness/src/annotate/README.md).
 */
#ifndef TORQ_HARNESS_OPERATORS_H
#define TORQ_HARNESS_OPERATORS_H

#include <stddef.h>

#include "torq/base/status.h"
#include "torq/harness/diag.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tqh_op_time_s {
  char *name; /* owned */
  double us;
  size_t count;
} tqh_op_time_t;

typedef struct tqh_op_table_s {
  tqh_op_time_t *ops; /* owned; `count` of them */
  size_t count, cap;
  double total_us; /* every entry's time summed */
} tqh_op_table_t;

void tqh_op_table_init(tqh_op_table_t *table);
void tqh_op_table_deinit(tqh_op_table_t *table);

/* Adds `us` and `count` to the entry `name` (made when new). TQ_OUT_OF_MEMORY. */
tq_status_t tqh_op_table_add(tqh_op_table_t *table, const char *name, double us,
                             size_t count) TQ_MUST_USE;

/* Adds every row of the annotated CSV `len` bytes of `data` (named `name` in diagnostics): the
 * header names the columns (operation, original_operators and total_time are needed; their order
 * does not matter). A row that cannot be read is a warning in `diags` (may be NULL) and is
 * skipped; a file without those columns is TQ_INVALID_INPUT. */
tq_status_t tqh_op_table_parse(tqh_op_table_t *table, const char *name, const char *data,
                               size_t len, tqh_diags_t *diags) TQ_MUST_USE;

/* The same from a file; TQ_NOT_FOUND or TQ_IO naming it when it cannot be read. */
tq_status_t tqh_op_table_read(tqh_op_table_t *table, const char *path,
                              tqh_diags_t *diags) TQ_MUST_USE;

/* Sorts the entries by time, the longest first (then by name). */
void tqh_op_table_sort(tqh_op_table_t *table);

#ifdef __cplusplus
}
#endif
#endif
