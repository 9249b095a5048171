/* Baselines: a test's metrics compared with those of the same test id in an earlier run
 * (`torq-test --baseline=RUN_DIR`, `torq-test compare RUN_A RUN_B`).
 *
 * Compared, per test:
 * - wall_time: the median of the repetitions. Its threshold comes from the measured noise:
 *   max(floor_pct, k * 100 * MAD / median of the baseline, the same of this run); a rise beyond
 *   it is a regression, a fall beyond it an improvement, anything else is within noise;
 * - every overview metric both records have (OVERALL, DMA, ..., µs of simulated time) and the
 *   compile-time cycle estimate ("estimated_cycles", in cycles, when both records have it):
 *   deterministic, so any change is reported exactly; a rise beyond floor_pct is a regression,
 *   a fall beyond it an improvement.
 * A test missing from the baseline is noted, never failed.
 *
 * Part of the results component (harness/src/results/README.md).
 */
#ifndef TORQ_HARNESS_BASELINE_H
#define TORQ_HARNESS_BASELINE_H

#include <stddef.h>

#include "torq/base/status.h"
#include "torq/base/str.h"
#include "torq/harness/results.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tqh_baseline_options_s {
  double floor_pct; /* the smallest threshold, percent; default 5 */
  double k;         /* noise multiplier on MAD/median; default 3 */
} tqh_baseline_options_t;

void tqh_baseline_options_initialize(tqh_baseline_options_t *options);

/* Parses a floor ("5", "2.5", "5%"): a number from 0 to 10000. TQ_INVALID_ARGUMENT. */
tq_status_t tqh_baseline_parse_floor(const char *text, double *out_pct) TQ_MUST_USE;

typedef enum tqh_baseline_change_e {
  TQH_BASELINE_SAME,      /* exactly equal */
  TQH_BASELINE_NOISE,     /* changed, within the threshold */
  TQH_BASELINE_IMPROVED,  /* fell beyond the threshold */
  TQH_BASELINE_REGRESSED, /* rose beyond the threshold */
} tqh_baseline_change_t;

/* "same", "within noise", "improved", "REGRESSED". */
const char *tqh_baseline_change_name(tqh_baseline_change_t change);

typedef struct tqh_baseline_row_s {
  char metric[64];     /* "wall_time", "OVERALL", "estimated_cycles", ... */
  const char *unit;    /* "us" or "cycles" (static) */
  double base, now;    /* in `unit` */
  double change_pct;   /* (now - base) / base * 100; +inf when base is 0 and now is not */
  double threshold_pct;
  tqh_baseline_change_t change;
} tqh_baseline_row_t;

typedef struct tqh_baseline_comparison_s {
  tqh_baseline_row_t *rows; /* owned: wall_time first, then the metrics in `now`'s order */
  size_t count;
  size_t regressions, improvements;
} tqh_baseline_comparison_t;

/* Compares the test record `now` with `base` (the same test in the baseline). */
tq_status_t tqh_baseline_compare(const tqh_baseline_options_t *options,
                                 const tqh_test_record_t *base, const tqh_test_record_t *now,
                                 tqh_baseline_comparison_t *out) TQ_MUST_USE;
void tqh_baseline_comparison_deinit(tqh_baseline_comparison_t *c);

/* Appends one line naming every regression: "regression: OVERALL 18 us -> 40 us (+122.2%,
 * threshold 5.0%); ...". */
tq_status_t tqh_baseline_format_message(const tqh_baseline_comparison_t *c,
                                        tq_buf_t *out) TQ_MUST_USE;
/* Appends the table rows of one test (all rows when `all`, else wall_time and the changed
 * ones): "TEST  METRIC  BASELINE  NOW  CHANGE  THRESHOLD  VERDICT". */
tq_status_t tqh_baseline_format_rows(const char *test_id, const tqh_baseline_comparison_t *c,
                                     int all, tq_buf_t *out) TQ_MUST_USE;

/* ---- A loaded baseline ------------------------------------------------------------------- */

typedef struct tqh_baseline_s tqh_baseline_t;

/* Loads RUN_DIR/journal.jsonl (or `path` itself when it is a file: a saved journal). Corrupt
 * and torn lines are skipped and named (tqh_baseline_problems). Errors: TQ_NOT_FOUND (no
 * journal), TQ_IO, TQ_OUT_OF_MEMORY. `options` (NULL: defaults) is copied. */
tq_status_t tqh_baseline_load(const char *path, const tqh_baseline_options_t *options,
                              tqh_baseline_t **out) TQ_MUST_USE;
void tqh_baseline_destroy(tqh_baseline_t *baseline);
/* The test of that id in the baseline (the last one recorded), or NULL; borrowed. */
const tqh_test_record_t *tqh_baseline_find(const tqh_baseline_t *baseline, const char *id);
/* The journal lines the load skipped, one "PATH:LINE: error: ..." line each (the tests they
 * held are not in the baseline), or NULL when none; borrowed, lives as long as `baseline`. */
const char *tqh_baseline_problems(const tqh_baseline_t *baseline);
/* The options the baseline was loaded with; borrowed, lives as long as `baseline`. */
const tqh_baseline_options_t *tqh_baseline_options(const tqh_baseline_t *baseline);

/* What applying the baseline to one finished test gave; owned strings. */
typedef struct tqh_baseline_verdict_s {
  int found;                 /* the test is in the baseline */
  size_t regressions, improvements;
  char *message;             /* the failure message (regressions), else NULL */
  char *text;                /* the table of the test */
  char *note;                /* the "baseline" property's value */
  char *log;                 /* a line for the run's output (improvements, missing), or NULL */
  tqh_property_t *properties; /* the record's properties and "baseline" */
} tqh_baseline_verdict_t;

void tqh_baseline_verdict_init(tqh_baseline_verdict_t *v);
void tqh_baseline_verdict_deinit(tqh_baseline_verdict_t *v);

/* Compares `record` with its test in the baseline and updates it: a PASSED test that regressed
 * becomes FAILED, failure_type "regression", with the message and the table as its text; every
 * compared or missing test gets the property "baseline". `floor_pct` is the test's own floor
 * (its resolved baseline_floor setting, config.h: the suite's and the test's `baseline:` beat
 * configs/, the environment and the command line beat them); a negative value keeps the floor
 * the baseline was loaded with. The record's new pointers live in `v` (deinit it after the
 * record was used). */
tq_status_t tqh_baseline_apply(const tqh_baseline_t *baseline, double floor_pct,
                               tqh_test_record_t *record, tqh_baseline_verdict_t *v) TQ_MUST_USE;

/* `torq-test compare RUN_A RUN_B`: appends the table of every test of B against A and a closing
 * line; *out_regressions counts the tests of B that regressed. */
tq_status_t tqh_baseline_compare_runs(const char *run_a, const char *run_b,
                                      const tqh_baseline_options_t *options, tq_buf_t *out,
                                      size_t *out_regressions) TQ_MUST_USE;

#ifdef __cplusplus
}
#endif
#endif
