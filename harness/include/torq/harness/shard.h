/* Sharding a run across machines (`torq-test --shard=K/N`) and merging the shards' results
 * (`torq-test merge RUN_DIR...`).
 *
 * A shard is a deterministic slice of the selected tests: every machine that selects the same
 * tests and asks for K/N (1 <= K <= N) gets the same slice, and the N slices together hold every
 * test exactly once. The tests are ordered by id (strcmp). Without durations, test i of that
 * order goes to shard i mod N + 1 (round-robin). With the durations of a previous run (its
 * journal.jsonl), the tests are taken longest first (ties by id) and each goes to the shard with
 * the least total so far (ties: the lowest index), the greedy longest-processing-time rule; a
 * test the previous run did not record counts as the mean of the recorded ones (1 s when none).
 * Within a shard the tests keep the order in which they were selected.
 *
 * Part of the results component (harness/src/results/README.md).
 */
#ifndef TORQ_HARNESS_SHARD_H
#define TORQ_HARNESS_SHARD_H

#include <stddef.h>

#include "torq/base/status.h"
#include "torq/harness/diag.h"
#include "torq/harness/results.h"
#include "torq/harness/suite.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Parses "K/N" (decimal, 1 <= K <= N <= 100000). `what` names the source in the error
 * (e.g. "--shard", "CI_NODE_INDEX/CI_NODE_TOTAL"). TQ_INVALID_ARGUMENT. */
tq_status_t tqh_shard_parse(const char *text, const char *what, size_t *out_index,
                            size_t *out_total) TQ_MUST_USE;

/* The shard from CI_NODE_INDEX and CI_NODE_TOTAL (GitLab's `parallel:`) when both are set and
 * non-empty: *out_set = 1 and the values checked as above; otherwise *out_set = 0. */
tq_status_t tqh_shard_from_env(size_t *out_index, size_t *out_total, int *out_set) TQ_MUST_USE;

/* Keeps in tests[0 .. *count) only the tests of shard `index` of `total` (in place, in their
 * order) and updates *count. `durations_run_dir`: a previous run's folder whose journal.jsonl
 * gives each test's duration (NULL: round-robin); its lines that cannot be read are named in
 * `diags` (may be NULL) and their tests get the mean duration. Errors: TQ_NOT_FOUND / TQ_IO (the
 * journal cannot be read), TQ_INVALID_ARGUMENT (bad index), TQ_OUT_OF_MEMORY. */
tq_status_t tqh_shard_select(tqh_test_t **tests, size_t *count, size_t index, size_t total,
                             const char *durations_run_dir, tqh_diags_t *diags) TQ_MUST_USE;

/* Merges finished runs (merge.c): creates a new run folder under options->root (as
 * tqh_results_create does, with `info` in run.json), whose journal.jsonl is the concatenation of
 * the runs' journals in the order given (their lines that cannot be read, corrupt or torn, are
 * left out and named in `diags`, which may be NULL), whose per-test folders are hard links (else
 * copies) of
 * theirs, and whose junit.xml and summary.txt are rebuilt from that journal
 * (tqh_results_rebuild). A test id found in more than one run is TQ_INVALID_ARGUMENT naming every
 * such id and the runs, checked before anything is created; a run without a journal is
 * TQ_NOT_FOUND. On success *out_run_dir is the new folder (heap, tq_free) and out_counts (may be
 * NULL, else TQH_OUTCOME_COUNT entries) the tests per outcome. */
tq_status_t tqh_merge_runs(const char *const *run_dirs, size_t num_runs,
                           const tqh_results_options_t *options, const tqh_run_info_t *info,
                           char **out_run_dir, size_t *out_counts, tqh_diags_t *diags) TQ_MUST_USE;

#ifdef __cplusplus
}
#endif
#endif
