/* The Host Profile Overview (DESIGN 5.6): how long the run kept each part of the machine busy,
 * as the Torq profiling tools define, name and print it.
 *
 * Work units (tqh_work_unit_t, from the runtime profile; every invocation of the run combined):
 * an NSS program, from its NSS_START_BEGIN to its NSS_WAIT_END; a host program, from its
 * HOST_START_BEGIN to its HOST_WAIT_END; a host copy (HOST_COPY); a HAL call (the HAL_* events of
 * the __HAL_*__ dispatches). ALLOC, DEALLOC, INIT and DISPATCH are phases, not work units.
 *
 * Metrics, in ns, each the total length of a union of intervals (overlaps counted once):
 *   OVERALL               earliest start to latest end of all work units, HAL included
 *   TOTAL NPU OPERATIONS  the span of the non-HAL work units, minus the host-program and
 *                         host-copy time that overlaps neither NSS programs nor HAL calls
 *   Dma                   NSS programs that use DMA in or out;  Dma In, Dma Out: by direction
 *   Cdma                  NSS programs that use the CDMA;       Dma Total: Dma ∪ Cdma
 *   Slice 0, Slice 1      NSS programs that use that slice;     Slice: either
 *   Css                   NSS programs that use the CSS;        Compute: Slice 0 ∪ Slice 1 ∪ Css
 *   Dma Only              Dma Total − Compute;                  Compute Only: Compute − Dma Total
 *   Overlap               Dma Total ∩ Compute
 *   Idle                  OVERALL − |Dma Total ∪ Compute ∪ Hal ∪ Host Copy ∪ Host|, never below 0
 *   Hal, Host, Host Copy  those work units
 * Percentages are of OVERALL. Each metric has a label (above: printed, and the name records and
 * reports use), the Torq dashboard's key (`dma_time`, ..., in ns; its percentage is the key
 * without `_time` and with `_percent`) and its thread in profile.pb (tqh_overview_metrics).
 *
 * In profile.pb (perfetto.h) the process `Host Profile Overview` has one thread per metric, named
 * as the Torq tools name them (`00 OVERVIEW DMA COMBINED` ... `15 OVERALL`; the metrics the Torq
 * tools do not draw follow as `16 OVERVIEW DMA IN` ...), each holding one slice from the run's
 * start (the earliest work unit) that lasts the metric, named `<label>: <duration> (<pct>%)`
 * (`OVERALL: <duration>`), category `overview`. tqh_overview_read takes whatever metrics a trace
 * holds there, with no fixed list: a thread it knows (also by the names traces had before, the
 * metric's label: `DMA`, `Idle`, ...) becomes that metric, in the order above; any other one a
 * metric of its own, after them in the trace's order.
 *
 * Printed as (tqh_overview_format):
 *     ====================== Host Profile Overview =======================
 *       Model: conv2d_f4_s4_64x64x16_i16      (in a run: Test: smoke/conv2d  Model: ...)
 *       ────────────────────────────────────────────────────
 *       WALL_TIME                       207.000ms
 *       OVERALL                          12.845ms
 *       TOTAL NPU OPERATIONS             12.800ms  (99.65%)
 *       Dma                             453.000µs  (3.53%)
 * a rule of 52 `─`, labels left-aligned in 26 columns, a space, values right-aligned in 14 (the
 * Torq tools' "  {label:<26s} {value:>14s}  ({pct}%)"); WALL_TIME (the harness's measured time,
 * when given: tqh_format_wall_time) first, then OVERALL, TOTAL NPU OPERATIONS and the others
 * in the order of tqh_overview_metrics, then metrics it does not know in the trace's order; each
 * but WALL_TIME and OVERALL with its share of OVERALL (when OVERALL is present and not 0).
 *
 * Ownership: a tqh_overview_t in caller storage owns its metrics and their strings.
 *
 * Part of the annotate component (harness/src/annotate/README.md).
 */
#ifndef TORQ_HARNESS_OVERVIEW_H
#define TORQ_HARNESS_OVERVIEW_H

#include <stddef.h>
#include <stdint.h>

#include "torq/base/status.h"
#include "torq/base/str.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TQH_METRIC_OVERALL "OVERALL"
#define TQH_METRIC_TOTAL_NPU "TOTAL NPU OPERATIONS"
#define TQH_METRIC_WALL_TIME "WALL_TIME"
/* The category of the overview's slices in profile.pb. */
#define TQH_OVERVIEW_CATEGORY "overview"

/* One metric the overview knows. */
typedef struct tqh_metric_info_s {
  const char *label;       /* "Dma Total": printed; the name in records and reports */
  const char *key;         /* "dma_total_time": the Torq dashboard's name (ns) */
  const char *thread;      /* "00 OVERVIEW DMA COMBINED": its thread in profile.pb */
  const char *trace_label; /* "DMA+CDMA union": the label of its slice there */
  const char *old_label;   /* the name traces and journals gave it before ("DMA"), or NULL */
  const char *description; /* one line, for the dashboard's list of metrics */
} tqh_metric_info_t;

/* The known metrics in printed order (OVERALL first); *out_count of them. Static. */
const tqh_metric_info_t *tqh_overview_metrics(size_t *out_count);

/* The metric whose label, old label or thread is `name`; NULL when none. */
const tqh_metric_info_t *tqh_overview_metric_find(const char *name);

/* The dashboard key of a metric named `name` into `out` (cleared first): a known metric's key,
 * else one made from the name (lower case, every run of other characters than letters and
 * digits one '_', then "_time": "Foo bar" gives "foo_bar_time"). */
tq_status_t tqh_overview_key_of(const char *name, tq_buf_t *out) TQ_MUST_USE;

/* The dashboard key of a metric's percentage into `out` (cleared first): the key without its
 * "_time", then "_percent" ("dma_time" gives "dma_percent"). 0 (nothing written) for
 * total_duration, which has none. */
int tqh_overview_percent_key(const char *key, tq_buf_t *out);

typedef struct tqh_overview_metric_s {
  char *name; /* owned: the label */
  char *key;  /* owned: the dashboard key */
  uint64_t ns;
} tqh_overview_metric_t;

typedef struct tqh_overview_s {
  tqh_overview_metric_t *metrics; /* in order */
  size_t count, cap;
  int has_start;
  uint64_t start_ns; /* the run's start: the earliest work unit (compute only) */
} tqh_overview_t;

void tqh_overview_init(tqh_overview_t *overview);
void tqh_overview_deinit(tqh_overview_t *overview);

/* Adds `ns` to the metric `name`, appending it when new (its key: tqh_overview_key_of). */
tq_status_t tqh_overview_add(tqh_overview_t *overview, const char *name,
                             uint64_t ns) TQ_MUST_USE;

/* 1 and *out_ns when the overview has the metric; 0 otherwise. */
int tqh_overview_get(const tqh_overview_t *overview, const char *name, uint64_t *out_ns);

/* ---- Computing it ----------------------------------------------------------------------------- */

typedef enum tqh_work_kind_e {
  TQH_WORK_NSS,       /* an NSS program */
  TQH_WORK_HOST,      /* a host program */
  TQH_WORK_HOST_COPY, /* a HOST_COPY action */
  TQH_WORK_HAL,       /* a HAL call */
} tqh_work_kind_t;

typedef struct tqh_work_unit_s {
  uint8_t kind;      /* tqh_work_kind_t */
  unsigned units;    /* NSS programs: the units they use (TQH_UNIT_BIT of annotate.h) */
  uint64_t start_ns, end_ns;
} tqh_work_unit_t;

/* The metrics above of `count` work units (any order, overlapping or not), appended to `out`
 * (which the caller initialized) in the order of tqh_overview_metrics; sets out->start_ns. */
tq_status_t tqh_overview_compute_units(const tqh_work_unit_t *units, size_t count,
                                       tqh_overview_t *out) TQ_MUST_USE;

struct tqh_annotation_s;
/* The work units of an annotation (tqh_annotation_work_units) and their metrics. */
tq_status_t tqh_overview_compute(const struct tqh_annotation_s *annotation,
                                 tqh_overview_t *out) TQ_MUST_USE;

struct tqh_profile_s;
/* What a runtime profile CSV alone tells (overview_csv.c), for an external toolchain without an
 * annotator: the work units paired from the profile (NSS programs first in first out per
 * dispatch run, host programs likewise, host copies by action, a HAL call per __HAL_*__
 * dispatch run), and of the metrics above those that need no debug info: OVERALL, TOTAL NPU
 * OPERATIONS, Hal, Host, Host Copy, and NSS Programs (the NSS programs as a whole: which units
 * each uses is in the debug info), appended to `out`. */
tq_status_t tqh_overview_from_profile(const struct tqh_profile_s *profile,
                                      tqh_overview_t *out) TQ_MUST_USE;

/* ---- Reading it back, printing it ------------------------------------------------------------- */

/* Reads the `Host Profile Overview` metrics of `count` Perfetto traces of one model (repetitions
 * of a run, or its parts) into `out` (initialized by the call): each metric's slices summed over
 * the files. Errors: those of tqh_trace_read (naming the
 * file), and TQ_INVALID_INPUT when a trace has no `Host Profile Overview` track. The known
 * metrics come first, in the order of tqh_overview_metrics, then the others in the order they
 * first appeared. */
tq_status_t tqh_overview_read(const char *const *paths, size_t count,
                              tqh_overview_t *out) TQ_MUST_USE;

/* Puts the metrics in tqh_overview_read's order: the known ones in the order of
 * tqh_overview_metrics, then the others as they were (a stable sort). */
void tqh_overview_sort(tqh_overview_t *overview);

/* Appends the printed block (above) for `model`; `wall_time_ns` < 0 leaves WALL_TIME out unless
 * the overview has a WALL_TIME metric of its own. */
tq_status_t tqh_overview_format(const tqh_overview_t *overview, const char *model,
                                int64_t wall_time_ns, tq_buf_t *out) TQ_MUST_USE;

/* The same block for a test of a run: its header line names the test id with the model beside
 * it ("  Test: smoke/conv2d  Model: conv2d_3x3_16x16x8_i8"); NULL `test_id`: as above. */
tq_status_t tqh_overview_format_test(const tqh_overview_t *overview, const char *test_id,
                                     const char *model, int64_t wall_time_ns,
                                     tq_buf_t *out) TQ_MUST_USE;

/* The name of a metric's slice in profile.pb: "DMA total: 453.000µs (3.53%)", "OVERALL:
 * 12.845ms" (no percentage for OVERALL; 0.00% of an OVERALL of 0), into `out` (cleared). */
tq_status_t tqh_overview_slice_name(const char *label, uint64_t ns, uint64_t overall_ns,
                                    int with_percent, tq_buf_t *out) TQ_MUST_USE;

/* Room for a duration or a percentage as text. */
#define TQH_DURATION_SIZE 32

/* "207.000ms", "453.000µs", "1.500s", "999ns": whole ns below 1 µs; from 1 µs three decimals in
 * µs, from 1 ms in ms, from 1 s in s (the unit by the exact value, then rounded half up, as the
 * Torq tools print: 999999500 ns is "1000.000ms"). */
void tqh_format_duration(uint64_t ns, char out[TQH_DURATION_SIZE]);

/* WALL_TIME as the Torq tools print it: "1.234s" from one second up, else in ms ("207.000ms",
 * "0.050ms"), three decimals rounded half up. */
void tqh_format_wall_time(uint64_t ns, char out[TQH_DURATION_SIZE]);

/* "3.53%": part / whole in percent, two decimals, rounded half up; "-" when whole is 0. */
void tqh_format_percent(uint64_t part, uint64_t whole, char out[TQH_DURATION_SIZE]);

#ifdef __cplusplus
}
#endif
#endif
