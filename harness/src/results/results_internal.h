/* Private parts of the results directory (results.h): the JSON writer, the test record as JSON,
 * the journal, and the summary text. Tests include this header to test them directly. */
#ifndef TORQ_HARNESS_SRC_RESULTS_INTERNAL_H
#define TORQ_HARNESS_SRC_RESULTS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "torq/base/arena.h"
#include "torq/base/status.h"
#include "torq/base/str.h"
#include "torq/harness/baseline.h"
#include "torq/harness/diag.h"
#include "torq/harness/journal.h"
#include "torq/harness/json.h"
#include "torq/harness/junit.h"
#include "torq/harness/results.h"

/* ---- Test records as JSON (record.c) ----------------------------------------------------------
 * The journal line and report.json hold one object with these keys, in this order:
 *   id (the folder) test_id ("smoke/conv2d"; made from classname/name when absent) name
 *   classname model host outcome message failure_type text started_at duration
 *   wall_time (null when not measured) wall_time_stats {n min max median mean stddev mad
 *   ci95_low ci95_high} wall_time_samples [..], on boards device_time (the median)
 *   device_time_stats {...} device_time_samples [..] (absent when not measured), cache ("hit"|"miss"|"none") compile_time run_time
 *   estimated_cycles (cycles; null when not compiled, absent in older records) metrics {NAME: µs}
 *   properties {KEY: string} files [relative paths]
 * Times are in seconds. */

/* Appends `record` as JSON (one line unless `pretty`), no trailing newline. */
tq_status_t tqh__record_to_json(const tqh_test_record_t *record, int pretty,
                                tq_buf_t *out) TQ_MUST_USE;

/* Parses one journal line (`len` bytes, no newline) and appends the record to `list`.
 * TQ_INVALID_INPUT with a message without location ("expected a JSON object", "missing
 * \"id\"", or the JSON error "1:5: error: ...") when the line is not a valid record;
 * TQ_OUT_OF_MEMORY. On error the list is unchanged (arena memory may be used). */
tq_status_t tqh__record_parse(tqh_records_t *list, const char *line, size_t len) TQ_MUST_USE;

/* Whether the reports are regenerated now (results.c): `since_ns` after the last regeneration,
 * which took `last_cost_ns` for `last_records` records, with `records` recorded now, so that
 * regenerating takes at most `share_pct` percent of the time. */
int tqh__regeneration_due(uint64_t since_ns, uint64_t last_cost_ns, size_t last_records,
                          size_t records, unsigned share_pct);

/* ---- Rendered pieces kept between regenerations (junit.c, summary.c) ----------------------
 * A test's JUnit <testcase> element and its overview block never change once it is recorded, so
 * a run renders each once and regenerating a report is mostly copying. Pieces are stored back to
 * back in `text`; entry i belongs to record i. */
typedef struct tqh__pieces_s {
  tq_buf_t text;
  size_t *off, *len; /* len[i] == SIZE_MAX: not rendered yet */
  size_t count, cap;
} tqh__pieces_t;

void tqh__pieces_init(tqh__pieces_t *pieces);
void tqh__pieces_deinit(tqh__pieces_t *pieces);
/* Makes room for `count` entries (new ones not rendered). */
tq_status_t tqh__pieces_reserve(tqh__pieces_t *pieces, size_t count) TQ_MUST_USE;
/* Appends piece i to `out` when it was rendered; returns 0 otherwise. */
int tqh__pieces_get(const tqh__pieces_t *pieces, size_t i, tq_buf_t *out, tq_status_t *out_status);
/* Stores out[start, out->len) as piece i. */
tq_status_t tqh__pieces_put(tqh__pieces_t *pieces, size_t i, const tq_buf_t *out,
                            size_t start) TQ_MUST_USE;

/* tqh_junit_render with a piece cache for the <testcase> elements (NULL: none). The cache is only
 * valid for the same options and for records that only grow at the end. */
tq_status_t tqh__junit_render(const tqh_test_record_t *records, size_t count,
                              const tqh_junit_options_t *options, tqh__pieces_t *cache,
                              tq_buf_t *out) TQ_MUST_USE;

/* Renders record i's <testcase> element into `cache` now, when it is not there yet, as
 * tqh__junit_render would (`scratch`: a buffer for it). */
tq_status_t tqh__junit_piece(const tqh_test_record_t *record, size_t i,
                             const tqh_junit_options_t *options, tqh__pieces_t *cache,
                             tq_buf_t *scratch) TQ_MUST_USE;

/* ---- The summary (summary.c) ---------------------------------------------------------------- */

/* Appends the summary for `count` records as `options` say (NULL: summary.txt): a table of the
 * tests (id, outcome, wall time median, OVERALL), the outcome counts, the cache line, and one
 * Host Profile Overview block per test that has overview metrics (WALL_TIME first). `cache` (may
 * be NULL) keeps the blocks. */
tq_status_t tqh__summary_render(const tqh_test_record_t *records, size_t count,
                                const tqh_summary_options_t *options, tqh__pieces_t *cache,
                                tq_buf_t *out) TQ_MUST_USE;
/* The same for record i's overview block (none without metrics). */
tq_status_t tqh__summary_piece(const tqh_test_record_t *record, size_t i, tqh__pieces_t *cache,
                               tq_buf_t *scratch) TQ_MUST_USE;

/* The two sides of `compare A B` (baseline.c): A the baseline (a run, a journal or the history),
 * its earlier runs those before B; B's records, the latest line of each test in `latest`. */
typedef struct tqh__compare_pair_s {
  tqh_baseline_t *a, *b;
  const tqh_records_t *records; /* B's */
  size_t *latest, count;
} tqh__compare_pair_t;
tq_status_t tqh__compare_pair_open(const char *run_a, const char *run_b,
                                   const tqh_baseline_options_t *options, tqh_history_t *history,
                                   tqh__compare_pair_t *out) TQ_MUST_USE;
void tqh__compare_pair_close(tqh__compare_pair_t *pair);

#endif
