/* The HTML report of a run: RUN_DIR/index.html, one static page (no scripts, fonts, images or
 * styles fetched from anywhere: the CSS is inline and a few lines of inline JavaScript sort the
 * summary table and filter the tests).
 *
 * What the page holds, all of it read from the run folder (DESIGN 5.7):
 * - a header: run id, start and finish time, host, target, git revision, command line (run.json),
 *   the number of tests per outcome (the journal's records) and, when the run history has a
 *   trends page, a link to it;
 * - a filter: a checkbox per outcome and a text box (matched, case-insensitive, against each
 *   test's id and message) that hide the other rows and sections; the address presets it
 *   (index.html#outcome=failed,error&q=conv), and index.html#t-<test id> opens that section;
 * - the summary table, one row per test (id, suite, outcome, median wall time, OVERALL, cache,
 *   message; with a baseline also the verdict against it), failed and errored tests first, then
 *   in run order (as the tests started), sortable by a click on a column header (numeric
 *   columns by the value in their cells' data-v attribute); each id links to the test's section;
 * - where the time went by operator over the whole run: every test's table (below) summed;
 * - one section per test (anchor "t-<test id>"), in the table's order, open when the run has at
 *   most 50 tests (beyond, only the failed tests' are, up to 50): its message and failure text,
 *   its facts, links to every file of the test (relative to the page) with how to open
 *   profile.pb in ui.perfetto.dev, where its time went (compile, run, the rest: a bar with its
 *   legend), its time by operator from annotated.csv (operators.h: time, share, count; the ten
 *   longest, the rest folded), a timeline drawn as inline SVG from its profile.pb
 *   (every track of the Perfetto exporter (perfetto.h) but the overview's: the Host rows and the
 *   NPU unit tracks, a time axis with ticks, each event a <rect> with a <title>), its Host
 *   Profile Overview metrics as bars, and, with a baseline, each compared metric's baseline
 *   value, new value, change in percent, verdict and the conditions that held (baseline.h).
 * A track with more than TQH_HTML_MAX_RECTS events is drawn with about that many rects: the
 * events that start within (plot width / TQH_HTML_MAX_RECTS) of the first event of a rect are
 * merged into it, and its title says how many it holds and how long they were busy, so a page
 * stays small whatever the profile's size (about 1.7 MB for the 208 corpus tests). A test without a
 * profile (skipped, failed before running, profiling off) still gets its row and section; a
 * profile that cannot be read is a note in its test's section and a warning in `diags`, never a
 * failure of the report. Every text is HTML-escaped (tqh_html_escape).
 *
 * The report component (harness/src/report/) owns the HTML report; this is its public header.
 */
#ifndef TORQ_HARNESS_HTML_REPORT_H
#define TORQ_HARNESS_HTML_REPORT_H

#include <stddef.h>

#include "torq/base/status.h"
#include "torq/base/str.h"
#include "torq/harness/baseline.h"
#include "torq/harness/diag.h"
#include "torq/harness/journal.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TQH_HTML_REPORT_FILE "index.html"
#define TQH_HTML_MAX_RECTS 200 /* per timeline track */

/* Appends `len` bytes of UTF-8 `text` escaped for HTML text and double- or single-quoted
 * attribute values: & < > " ' become references, control characters and malformed UTF-8 become
 * U+FFFD (what XML 1.0 allows is a subset of what HTML does: junit.h's escaper). */
tq_status_t tqh_html_escape(const char *text, size_t len, tq_buf_t *out) TQ_MUST_USE;

/* Writes RUN_DIR/index.html (above) atomically (a temporary name renamed into place) from
 * RUN_DIR/run.json, RUN_DIR/journal.jsonl (a later record of the same test id wins, as in the
 * reports) and each test's profile.pb. `baseline` (borrowed; NULL: none) adds the comparisons,
 * with the baseline's own options. `trends_href` (NULL: none) is the link to the trends page,
 * relative to the run folder or absolute. Problems that do not stop the page (corrupt journal
 * lines, an unreadable run.json or profile) go to `diags` (may be NULL). Errors: TQ_NOT_FOUND
 * (no journal), TQ_IO (naming the file), TQ_OUT_OF_MEMORY. */
tq_status_t tqh_html_report_write(const char *run_dir, tqh_baseline_t *baseline,
                                  const char *trends_href, tqh_diags_t *diags) TQ_MUST_USE;
/* The same, with the run's journal already read into `records` (tqh_results_records of the
 * run just finished; the journal is not read again). NULL: read it, as tqh_html_report_write. */
tq_status_t tqh_html_report_write_records(const char *run_dir, const tqh_records_t *records,
                                          tqh_baseline_t *baseline, const char *trends_href,
                                          tqh_diags_t *diags) TQ_MUST_USE;

#ifdef __cplusplus
}
#endif
#endif
