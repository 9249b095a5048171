/* Baselines: a test's metrics compared with the same test (suite and test name) of an earlier
 * run, or of the last K runs in the run history (`torq-test --baseline=RUN_DIR|history[:K]`,
 * `torq-test compare RUN_A|history[:K] RUN_B`).
 *
 * What is gated depends on where the test ran (its record's "target" property):
 * - deterministic metrics, gated by the floor alone: any change beyond floor_pct is a verdict.
 *   On the simulator these are the overview metrics (OVERALL, ..., µs of simulated time) and,
 *   everywhere, the compiler's estimate `estimated_cycles`;
 * - measured times, gated statistically: on boards `device_time` (the runtime's own time of each
 *   repetition). A measured time is a regression (or an improvement) only when all of these
 *   hold: its median moved beyond floor_pct; the Mann-Whitney U test (stats.h) says the two
 *   sample sets differ (p < alpha); and, when the history holds at least min_runs earlier runs
 *   (and at least 2) of the test, the move is beyond the between-run noise: the median now lies
 *   outside the (1 - alpha) prediction interval of the next run's median from those runs'
 *   medians, mean m +- t(alpha, n - 1) s sqrt(1 + 1/n) (Student's t, two-sided; s their
 *   standard deviation, n their number), on the side of the change. Fewer than min_samples
 *   samples on a side: no verdict on that metric ("insufficient samples").
 * - shown, not gated: the host `wall_time` (everywhere: on the simulator it is how fast this
 *   host ran the simulator; on boards it includes SSH) and, on boards, the overview metrics (one
 *   profiled run each) -- unless the options' `gate` names them (a suite's
 *   `baseline: {gate: [wall_time]}`), which makes wall_time a statistically gated time and an
 *   overview metric a floor-gated one.
 * Every row says which conditions held. A test missing from the baseline is noted, never failed.
 *
 * Part of the results component (harness/src/results/README.md).
 */
#ifndef TORQ_HARNESS_BASELINE_H
#define TORQ_HARNESS_BASELINE_H

#include <stddef.h>

#include "torq/base/status.h"
#include "torq/base/str.h"
#include "torq/harness/history.h"
#include "torq/harness/results.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tqh_baseline_options_s {
  double floor_pct;   /* the smallest change that counts, percent; default 5 */
  double alpha;       /* the U test's significance level; default 0.01 */
  size_t min_samples; /* fewer samples on a side: no verdict; default 5 */
  size_t min_runs;    /* earlier runs needed for the between-run noise; default 3 */
  size_t runs;        /* K: history runs for `history` baselines and the noise; default 10 */
  const char *const *gate; /* metrics gated besides the target's (borrowed); may be NULL */
  size_t gate_count;
} tqh_baseline_options_t;

void tqh_baseline_options_initialize(tqh_baseline_options_t *options);

/* Parses a floor ("5", "2.5", "5%"): a number from 0 to 10000. TQ_INVALID_ARGUMENT. */
tq_status_t tqh_baseline_parse_floor(const char *text, double *out_pct) TQ_MUST_USE;

typedef enum tqh_baseline_change_e {
  TQH_BASELINE_SAME,         /* exactly equal */
  TQH_BASELINE_NOISE,        /* changed, but not every condition of a verdict held */
  TQH_BASELINE_IMPROVED,     /* fell, every condition held */
  TQH_BASELINE_REGRESSED,    /* rose, every condition held */
  TQH_BASELINE_INSUFFICIENT, /* a gated time with too few samples on a side */
  TQH_BASELINE_NOT_GATED,    /* recorded and shown, not gated here */
} tqh_baseline_change_t;

/* "same", "within noise", "improved", "REGRESSED", "insufficient samples", "not gated". */
const char *tqh_baseline_change_name(tqh_baseline_change_t change);

typedef enum tqh_baseline_gate_e {
  TQH_GATE_NONE,  /* shown, not gated */
  TQH_GATE_FLOOR, /* deterministic: the floor alone */
  TQH_GATE_STATS, /* measured: the floor, the U test and the between-run noise */
} tqh_baseline_gate_t;

typedef struct tqh_baseline_row_s {
  char metric[64];   /* "wall_time", "device_time", "OVERALL", "estimated_cycles", ... */
  const char *unit;  /* "s", "us" or "cycles" (static) */
  double base, now;  /* in `unit`; the medians of measured times */
  double change_pct; /* (now - base) / base * 100; +-inf when base is 0 and now is not */
  tqh_baseline_gate_t gate;
  double floor_pct;
  int beyond_floor;          /* |change| > floor */
  size_t n_base, n_now;      /* samples (measured times) */
  size_t min_samples;        /* how many it takes on each side */
  int tested;                /* the U test ran */
  double p, alpha;           /* its p-value and level */
  size_t earlier_runs;       /* runs whose medians measure the between-run noise */
  size_t min_runs;           /* how many it takes */
  double run_mean;           /* the mean of their medians (when earlier_runs >= min_runs, 2) */
  double run_noise_pct;      /* the half-width of their prediction interval, % of run_mean */
  double run_shift_pct;      /* (now - run_mean) / run_mean * 100 */
  tqh_baseline_change_t change;
} tqh_baseline_row_t;

typedef struct tqh_baseline_comparison_s {
  tqh_baseline_row_t *rows; /* owned: wall_time, device_time, then the metrics in `now`'s
                             * order, then estimated_cycles */
  size_t count;
  size_t regressions, improvements;
} tqh_baseline_comparison_t;

/* The medians of a measured time in earlier runs of a test (the between-run noise). */
typedef struct tqh_baseline_noise_s {
  const char *metric; /* "wall_time" or "device_time" */
  const double *medians;
  size_t count;
} tqh_baseline_noise_t;

/* Compares the test record `now` with `base` (the same test in the baseline); `noise` (may be
 * NULL) gives the earlier runs' medians of the measured times. `options` NULL: defaults. */
tq_status_t tqh_baseline_compare(const tqh_baseline_options_t *options,
                                 const tqh_test_record_t *base, const tqh_test_record_t *now,
                                 const tqh_baseline_noise_t *noise, size_t noise_count,
                                 tqh_baseline_comparison_t *out) TQ_MUST_USE;
void tqh_baseline_comparison_deinit(tqh_baseline_comparison_t *c);

/* Which conditions held, in words: "+12.0% beyond the floor 5.0%; U test p=0.0002 < 0.01;
 * +11.4% from the mean of 9 earlier runs, beyond their 99% prediction interval ±3.1%",
 * "host time: shown, not gated", ... */
tq_status_t tqh_baseline_row_why(const tqh_baseline_row_t *row, tq_buf_t *out) TQ_MUST_USE;

/* A value in its unit, scaled: "13.000µs", "2.624ms", "1.500s", "21130 cycles". */
void tqh_baseline_format_value(double v, const char *unit, char out[48]);

/* ---- Tables --------------------------------------------------------------------------------
 * One line per metric that changed (every row with `all`), the identical ones summarised in one
 * line, columns aligned over the whole table: TEST METRIC BASELINE NOW CHANGE VERDICT WHY. */

typedef struct tqh_baseline_table_s tqh_baseline_table_t;

tq_status_t tqh_baseline_table_create(tqh_baseline_table_t **out) TQ_MUST_USE;
void tqh_baseline_table_destroy(tqh_baseline_table_t *table);
/* Adds the rows of one test (`test_id` "suite/test"; NULL leaves the column out). */
tq_status_t tqh_baseline_table_add(tqh_baseline_table_t *table, const char *test_id,
                                   const tqh_baseline_comparison_t *c, int all) TQ_MUST_USE;
/* A line of its own (a test not in the baseline). */
tq_status_t tqh_baseline_table_note(tqh_baseline_table_t *table, const char *test_id,
                                    const char *note) TQ_MUST_USE;
/* Appends the table, each line starting with `indent`. */
tq_status_t tqh_baseline_table_render(const tqh_baseline_table_t *table, const char *indent,
                                      tq_buf_t *out) TQ_MUST_USE;

/* The regression message of a test: a first line naming the regressed metrics and their
 * changes ("regression: OVERALL +10.2%, estimated_cycles +9.9%"), then its table (the changed
 * metrics, the identical ones in one line). */
tq_status_t tqh_baseline_format_message(const tqh_baseline_comparison_t *c,
                                        tq_buf_t *out) TQ_MUST_USE;

/* ---- A loaded baseline ------------------------------------------------------------------- */

typedef struct tqh_baseline_s tqh_baseline_t;

/* Loads a baseline. `spec` is a run folder (its journal.jsonl), a saved journal file, or
 * "history" / "history:K" (the last K runs of each test in `history`, on the same target; K
 * from 1 to 1000, default options->runs). `history` (borrowed, may be NULL; it must outlive the
 * baseline) also gives the between-run noise. Corrupt journal lines are skipped. Errors:
 * TQ_NOT_FOUND (no journal), TQ_INVALID_ARGUMENT (a bad K, or "history" without a history),
 * TQ_IO, TQ_OUT_OF_MEMORY. `options` (NULL: defaults) is copied; its gate list is borrowed. */
tq_status_t tqh_baseline_load(const char *spec, const tqh_baseline_options_t *options,
                              tqh_history_t *history, tqh_baseline_t **out) TQ_MUST_USE;
void tqh_baseline_destroy(tqh_baseline_t *baseline);
/* The journal lines the load skipped, one "PATH:LINE: error: ..." line each (the tests they
 * held are not in the baseline), or NULL when none; borrowed, lives as long as `baseline`. */
const char *tqh_baseline_problems(const tqh_baseline_t *baseline);
/* The options the baseline was loaded with; borrowed, lives as long as `baseline`. */
const tqh_baseline_options_t *tqh_baseline_options(const tqh_baseline_t *baseline);
/* What it is, for headers: "results/RUN", "history (last 10 runs)". Borrowed. */
const char *tqh_baseline_describe(const tqh_baseline_t *baseline);
/* Only runs that started before `before` (UNIX seconds; 0: any) and are not `run_id` (NULL:
 * none) count as earlier runs, for history baselines and the noise: a finished run compared
 * with its own history. `run_id` is copied. */
tq_status_t tqh_baseline_set_now(tqh_baseline_t *baseline, double before,
                                 const char *run_id) TQ_MUST_USE;

/* Compares `record` with its test in the baseline (by suite and test name): *out_found = 0 and
 * nothing to free when it is not there. `floor_pct` < 0 and `gate` NULL keep the baseline's. */
tq_status_t tqh_baseline_compare_record(tqh_baseline_t *baseline, const tqh_test_record_t *record,
                                        double floor_pct, const char *const *gate,
                                        size_t gate_count, tqh_baseline_comparison_t *out,
                                        int *out_found) TQ_MUST_USE;

/* What applying the baseline to one finished test gave; owned strings. */
typedef struct tqh_baseline_verdict_s {
  int found;                 /* the test is in the baseline */
  size_t regressions, improvements;
  char *message;             /* the failure message (regressions), else NULL */
  char *text;                /* the table of the test, every row with why */
  char *note;                /* the "baseline" property's value */
  char *log;                 /* a line for the run's output (improvements, missing), or NULL */
  tqh_property_t *properties; /* the record's properties and "baseline" */
} tqh_baseline_verdict_t;

void tqh_baseline_verdict_init(tqh_baseline_verdict_t *v);
void tqh_baseline_verdict_deinit(tqh_baseline_verdict_t *v);

/* Compares `record` with its test in the baseline and updates it: a PASSED test that regressed
 * becomes FAILED, failure_type "regression", with the message and the table as its text; every
 * compared or missing test gets the property "baseline". `floor_pct` and `gate` are the test's
 * own (its resolved baseline settings, config.h: the suite's and the test's `baseline:` beat
 * configs/, the environment and the command line beat them); a negative floor and a NULL gate
 * keep the baseline's. The record's new pointers live in `v` (deinit it after the record was
 * used). */
tq_status_t tqh_baseline_apply(tqh_baseline_t *baseline, double floor_pct,
                               const char *const *gate, size_t gate_count,
                               tqh_test_record_t *record, tqh_baseline_verdict_t *v) TQ_MUST_USE;

/* `torq-test compare RUN_A RUN_B`: appends the table of every test of B against A (`run_a` is a
 * run folder, a journal or "history[:K]") and a closing line; *out_regressions counts the tests
 * of B that regressed. `history` may be NULL. */
tq_status_t tqh_baseline_compare_runs(const char *run_a, const char *run_b,
                                      const tqh_baseline_options_t *options,
                                      tqh_history_t *history, tq_buf_t *out,
                                      size_t *out_regressions) TQ_MUST_USE;

#ifdef __cplusplus
}
#endif
#endif
