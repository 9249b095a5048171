/* Machine-readable output: one JSON document for a run (`torq-test --json`, `torq-test report
 * RUN_DIR --json`) and for a comparison of two runs (`torq-test compare --json`). Their JSON
 * Schemas are harness/formats/torq-test-run.schema.json and torq-test-compare.schema.json (the
 * README's "JSON output" describes them); a change of shape changes the "schema" member.
 *
 * The run document, read from RUN_DIR/run.json and RUN_DIR/journal.jsonl (a later record of the
 * same test wins, as in the reports):
 *
 *   {"schema": "torq-test-run/1",
 *    "run": {"id", "dir", "started_at", "finished_at", "host", "target", "board",
 *            "tool_version", "git_revision", "command_line", "config"},
 *    "summary": {"tests", "outcomes": {passed, failed, error, skipped, xfailed, xpassed,
 *                not_run}, "duration", "cache": {"hits", "misses"}},
 *    "tests": [{"id": "smoke/conv2d", "suite", "name", "folder", "outcome", "message",
 *               "failure_type", "model", "host", "target", "tags", "started_at", "duration",
 *               "compile_time", "run_time", "cache", "wall_time": {"median", "min", "max",
 *               "mean", "stddev", "mad", "ci95_low", "ci95_high", "n", "samples"} | null,
 *               "estimated_cycles", "metrics": {NAME: µs}, "verdict": {"baseline", "note"} |
 *               null, "comparison": [rows] | null, "properties", "files"}]}
 *
 * Times are seconds, metrics microseconds (named as the record holds them, with no fixed list),
 * dates ISO 8601 UTC. "verdict" is what the run's --baseline decided for the test ("same",
 * "within noise", "improved", "regressed", "not in the baseline"); "comparison" its metrics
 * against `baseline` when one is given here (baseline.h rows: metric, unit, baseline, now,
 * change_pct, threshold_pct, verdict).
 *
 * Part of the results component (harness/src/results/README.md).
 */
#ifndef TORQ_HARNESS_RUN_JSON_H
#define TORQ_HARNESS_RUN_JSON_H

#include <stddef.h>

#include "torq/base/status.h"
#include "torq/base/str.h"
#include "torq/harness/baseline.h"
#include "torq/harness/diag.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TQH_RUN_JSON_SCHEMA "torq-test-run/1"
#define TQH_COMPARE_JSON_SCHEMA "torq-test-compare/1"

/* Appends the run document of RUN_DIR (pretty-printed, with a final newline). `baseline` (may be
 * NULL) adds each test's comparison. Corrupt journal lines and an unreadable run.json go to
 * `diags` (may be NULL). Errors: TQ_NOT_FOUND (no journal), TQ_IO, TQ_OUT_OF_MEMORY. */
tq_status_t tqh_run_json(const char *run_dir, tqh_baseline_t *baseline, tqh_diags_t *diags,
                         tq_buf_t *out) TQ_MUST_USE;

/* Appends the comparison of RUN_B against the baseline RUN_A (either a run folder or a
 * journal), as `torq-test compare` prints it in text:
 *
 *   {"schema": "torq-test-compare/1", "baseline": what A is, "run": RUN_B, "floor_pct", "alpha",
 *    "min_samples", "min_runs",
 *    "tests": [{"id", "in_baseline", "regressed", "improved", "rows": [{"metric", "unit",
 *               "baseline", "now", "change_pct" (null when infinite), "floor_pct",
 *               "gate": "none"|"floor"|"statistics", "p" (null: no U test), "run_noise_pct"
 *               (null: too few earlier runs), "verdict": "same"|"within noise"|"improved"|
 *               "regressed"|"insufficient samples"|"not gated", "why"}]}],
 *    "summary": {"compared", "regressed", "improved", "not_in_baseline"}}
 *
 * A is a run folder, a journal or "history[:K]" (`history`, may be NULL, gives the earlier runs).
 * *out_regressions counts the tests of RUN_B that regressed. Errors: those of
 * tqh_baseline_load. */
tq_status_t tqh_compare_json(const char *run_a, const char *run_b,
                             const tqh_baseline_options_t *options, tqh_history_t *history,
                             tq_buf_t *out, size_t *out_regressions) TQ_MUST_USE;

#ifdef __cplusplus
}
#endif
#endif
