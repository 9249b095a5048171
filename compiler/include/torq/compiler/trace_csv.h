/* The compile-time trace (DESIGN 5.2): one row per unit of work of the NSS programs, with its
 * estimated start and end cycles, written as CSV for `--torq-dump-profiling`:
 *
 *     ID,Start,End,Location,Op Type
 *     DI0,0,15831,"loc(""model.mlir"":12:5)",DMA_IN
 *     S0,15847,16499,"loc(""model.mlir"":12:5)",add
 *
 * The CSV follows RFC 4180 except for line endings: a field is quoted when it holds a comma, a
 * double quote, CR or LF, with each double quote doubled; other fields are written bare. Lines
 * end in LF, not the CRLF of RFC 4180: the Torq tools write LF and every CSV reader we know of
 * (Python's csv, pandas, spreadsheets) accepts it. The file ends with a LF.
 *
 * Rows sort by Start, then by ID (tqc_trace_id_compare). Rows equal in both keep the order they
 * were added in, so the output is deterministic.
 */
#ifndef TORQ_COMPILER_TRACE_CSV_H
#define TORQ_COMPILER_TRACE_CSV_H

#include <stddef.h>
#include <stdint.h>

#include "torq/base/arena.h"
#include "torq/base/status.h"
#include "torq/base/str.h"
#include "torq/sim/hw.h"

/* Room for the longest ID: a prefix, the 20 digits of a uint64_t, a NUL. */
#define TQC_TRACE_ID_MAX 32

/* The ID prefix of a unit's rows: "DI", "DO", "S" (both slices), "CDMA", "CSS"; "?" for an
 * out-of-range value. */
const char *tqc_unit_trace_prefix(tqs_unit_t unit);

/* Orders two IDs: first by prefix (everything before the trailing run of digits), compared
 * bytewise, so CDMA < CSS < DI < DO < S; then by the trailing digits as a number, so S2 < S10
 * (leading zeros ignored, any length); then, for IDs equal so far such as S01 and S1, bytewise.
 * Returns <0, 0 or >0 as strcmp does; 0 only for equal strings. */
int tqc_trace_id_compare(const char *a, const char *b);

/* Numbers the rows of each prefix from 0 (DI0, DI1, ..., S0, S1, ...). Slice 0 and Slice 1
 * share the S numbering. Caller storage; nothing to release. */
typedef struct tqc_trace_ids_s {
  uint64_t next[TQS_UNIT_COUNT]; /* indexed by unit; both slices use the SLICE0 entry */
} tqc_trace_ids_t;

void tqc_trace_ids_init(tqc_trace_ids_t *ids);

/* Writes the next ID of `unit`'s prefix into out_id and returns out_id. */
char *tqc_trace_ids_next(tqc_trace_ids_t *ids, tqs_unit_t unit, char out_id[TQC_TRACE_ID_MAX]);

typedef struct tqc_trace_row_s {
  const char *id;       /* owned by the trace */
  uint64_t start;       /* cycles from the start of the NSS program */
  uint64_t end;         /* start + duration */
  const char *location; /* owned by the trace; "" when unknown */
  const char *op_type;  /* owned by the trace */
  size_t seq;           /* order of addition, the last sort key */
} tqc_trace_row_t;

/* The rows of one trace. Caller storage: tqc_trace_init(), then tqc_trace_deinit() frees the
 * rows and every string copied into the trace. */
typedef struct tqc_trace_s {
  tq_arena_t strings;
  tqc_trace_row_t *rows;
  size_t count;
  size_t cap;
} tqc_trace_t;

void tqc_trace_init(tqc_trace_t *trace);
void tqc_trace_deinit(tqc_trace_t *trace);

/* Adds a row. The strings are copied; `location` may be NULL (written as an empty field). IDs
 * are expected to be unique (use tqc_trace_ids_t); this is not checked.
 * Errors: TQ_INVALID_ARGUMENT when id or op_type is NULL or empty or end < start;
 * TQ_OUT_OF_MEMORY. On error the trace is unchanged. */
tq_status_t tqc_trace_add(tqc_trace_t *trace, const char *id, uint64_t start, uint64_t end,
                          const char *location, const char *op_type) TQ_MUST_USE;

/* Adds the row of one unit's work in a task, with the next ID of the unit's prefix from `ids`
 * and its Op Type: tqs_unit_name() for DMA, CDMA and CSS, `kernel` (conv2d, add, ...) for the
 * slices. Errors as tqc_trace_add, plus TQ_INVALID_ARGUMENT for a slice without a kernel name;
 * the ID is consumed only on success. */
tq_status_t tqc_trace_add_unit(tqc_trace_t *trace, tqc_trace_ids_t *ids, tqs_unit_t unit,
                               uint64_t start, uint64_t end, const char *location,
                               const char *kernel) TQ_MUST_USE;

/* Sorts the rows (Start, then ID, then order of addition) in place. */
void tqc_trace_sort(tqc_trace_t *trace);

/* Sorts the rows, then appends the header and one line per row to `out`.
 * Errors: TQ_LIMIT when `out`'s limit is reached, TQ_OUT_OF_MEMORY; on error `out` holds what it
 * held before (its length is restored). */
tq_status_t tqc_trace_write_csv(tqc_trace_t *trace, tq_buf_t *out) TQ_MUST_USE;

#endif
