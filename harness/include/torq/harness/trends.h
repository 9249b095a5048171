/* The trends page: a static HTML page (inline CSS and SVG, nothing fetched, like index.html) of
 * the run history (history.h): per test and metric a small chart of its last N runs with the
 * change points marked, and a table of the largest changes with the run (and git revision) where
 * each began.
 *
 * Change points are found by E-divisive means with a permutation test (stats.h) on each series
 * (a metric's value per run: the median of the measured times). A change's size is the change
 * of the median from the segment before it to the segment it begins.
 *
 * Part of the report component (harness/src/report/README.md).
 */
#ifndef TORQ_HARNESS_TRENDS_H
#define TORQ_HARNESS_TRENDS_H

#include <stddef.h>

#include "torq/base/status.h"
#include "torq/harness/history.h"
#include "torq/harness/select.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TQH_TRENDS_FILE "trends.html"
#define TQH_TRENDS_LAST_DEFAULT 30
#define TQH_TRENDS_MAX_CHANGES 25 /* rows of the table of changes */

typedef struct tqh_trends_options_s {
  size_t last;                 /* runs per test (the tests of the last `last` runs); default 30 */
  const tqh_select_t *keyword; /* -k over "suite/test"; NULL: every test */
} tqh_trends_options_t;

void tqh_trends_options_initialize(tqh_trends_options_t *options);

/* What the page shows. */
typedef struct tqh_trends_summary_s {
  size_t tests, charts, change_points;
} tqh_trends_summary_t;

/* Writes the page to `path` atomically. `options` may be NULL. Errors: TQ_IO (naming the file),
 * the history's errors, TQ_OUT_OF_MEMORY. `out` may be NULL. */
tq_status_t tqh_trends_write(tqh_history_t *history, const tqh_trends_options_t *options,
                             const char *path, tqh_trends_summary_t *out) TQ_MUST_USE;

#ifdef __cplusplus
}
#endif
#endif
