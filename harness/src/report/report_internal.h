/* Private to the report component (html_report.h): the timeline SVG (html_svg.c) and the tables
 * of time by operator (html_ops.c) used by the page (html_report.c). Tests include this header to
 * test them directly. */
#ifndef TORQ_HARNESS_SRC_REPORT_INTERNAL_H
#define TORQ_HARNESS_SRC_REPORT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "torq/base/status.h"
#include "torq/base/str.h"
#include "torq/harness/operators.h"
#include "torq/harness/perfetto.h"

/* The distance between the time axis' ticks for a span of `span_ns`: 1, 2 or 5 times a power of
 * ten, the smallest that gives at most `max_ticks` intervals (at least 1). */
uint64_t tqh__html_tick_step(uint64_t span_ns, unsigned max_ticks);
/* Writes `x` as printf's "%.1f" does, byte for byte, without printf for the common values (a
 * timeline has thousands of coordinates); returns the length. TQH__FMT_1F_MAX bytes hold any
 * double (DBL_MAX has 309 digits before the point). */
#define TQH__FMT_1F_MAX 320
size_t tqh__html_fmt_1f(char *p, size_t size, double x);

/* Appends the timeline of `trace` as one <svg> element: a row per track (the top-level tracks
 * as group headings, the overview's tracks left out), a time axis with ticks from the first
 * event, and a <rect> with a <title> per event, at most `max_rects` per track (closer
 * neighbours merged). A trace without events gives a <p class="note"> instead. */
tq_status_t tqh__html_timeline(const tqh_trace_t *trace, size_t max_rects,
                               tq_buf_t *out) TQ_MUST_USE;

/* ---- The reconciliation (html_reconcile.c) ------------------------------------------------- */

struct tqh_test_record_s;

/* The run's line: how many NSS programs of the `n` records were measured, and the median and
 * 90th percentile of |estimate - measured| / measured over them (nothing without programs). */
tq_status_t tqh__html_recon_summary(const struct tqh_test_record_s *const *records, size_t n,
                                    tq_buf_t *out) TQ_MUST_USE;
/* A test's table: one row per NSS program (job, operators, location, estimated and simulated
 * cycles, device time, error); nothing without programs. */
tq_status_t tqh__html_recon_table(const struct tqh_test_record_s *r, tq_buf_t *out) TQ_MUST_USE;

/* The rows of an operator table shown at first; the others are behind a <details>. */
#define TQH__HTML_TOP_OPERATORS 10

/* Appends `table` (sorted by the caller) as <table class="ops">: operator, time, share of the
 * table's total, count; the first TQH__HTML_TOP_OPERATORS rows, then the rest in a closed
 * <details>. An empty table gives a <p class="note"> saying `empty`. */
tq_status_t tqh__html_ops(const tqh_op_table_t *table, const char *empty,
                          tq_buf_t *out) TQ_MUST_USE;

#endif
