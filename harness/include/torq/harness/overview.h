/* The Host Profile Overview (DESIGN 5.6): how long the run kept each part of the machine busy.
 *
 * Metrics, each the total length of a union of intervals (overlaps counted once), in ns:
 *   OVERALL       last timestamp - first timestamp of the run (phases included)
 *   DMA           slots of NSS programs that use DMA in or DMA out
 *   CDMA          slots of NSS programs that use the CDMA
 *   DMA Total     DMA ∪ CDMA
 *   Slice 0, Slice 1   slots of NSS programs that use that slice; Slice: either
 *   CSS           slots of NSS programs that use the CSS
 *   Compute       Slice 0 ∪ Slice 1 ∪ CSS
 *   Dma Only      DMA Total − Compute;   Compute Only: Compute − DMA Total
 *   Overlap       DMA Total ∩ Compute
 *   Host          slots of host programs;   Host Copy: HOST_COPY actions
 *   Idle          OVERALL − |DMA Total ∪ Compute ∪ Host ∪ Host Copy|, never below 0
 * (slots as annotate.h measures them). tqh_overview_compute gives them in this order, and the
 * Perfetto writer stores them as the tracks of `Host Profile Overview`; tqh_overview_read takes
 * whatever metrics a trace holds there, in the trace's order, with no fixed list.
 *
 * Printed as (tqh_overview_format):
 *     ====================== Host Profile Overview =======================
 *       Model: conv2d_f4_s4_64x64x16_i16
 *       ────────────────────────────────────────────────────────
 *       WALL_TIME                       207.000ms
 *       OVERALL                          12.845ms
 *       DMA                             453.000µs  (3.53%)
 * WALL_TIME (the harness's measured time, when given) first, then the metrics; durations with
 * three decimals in s, ms or µs, or whole ns below 1 µs; each metric but WALL_TIME and OVERALL
 * with its share of OVERALL in percent with two decimals (when OVERALL is present and not 0).
 *
 * Ownership: a tqh_overview_t in caller storage owns its metrics and their names.
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
#define TQH_METRIC_WALL_TIME "WALL_TIME"

typedef struct tqh_overview_metric_s {
  char *name; /* owned */
  uint64_t ns;
} tqh_overview_metric_t;

typedef struct tqh_overview_s {
  tqh_overview_metric_t *metrics; /* in order */
  size_t count, cap;
} tqh_overview_t;

void tqh_overview_init(tqh_overview_t *overview);
void tqh_overview_deinit(tqh_overview_t *overview);

/* Adds `ns` to the metric `name`, appending it when new. */
tq_status_t tqh_overview_add(tqh_overview_t *overview, const char *name,
                             uint64_t ns) TQ_MUST_USE;

/* 1 and *out_ns when the overview has the metric; 0 otherwise. */
int tqh_overview_get(const tqh_overview_t *overview, const char *name, uint64_t *out_ns);

struct tqh_annotation_s;
/* The metrics above from an annotation (appended to `out`, which the caller initialized). */
tq_status_t tqh_overview_compute(const struct tqh_annotation_s *annotation,
                                 tqh_overview_t *out) TQ_MUST_USE;

/* Reads the `Host Profile Overview` metrics of `count` Perfetto traces of one model (repetitions
 * of a run, or its parts) into `out` (initialized by the call): each metric's slices summed over
 * the files, in the order of first appearance. Errors: those of tqh_trace_read (naming the
 * file), and TQ_INVALID_INPUT when a trace has no `Host Profile Overview` track. */
tq_status_t tqh_overview_read(const char *const *paths, size_t count,
                              tqh_overview_t *out) TQ_MUST_USE;

/* Appends the printed block (above) for `model`; `wall_time_ns` < 0 leaves WALL_TIME out unless
 * the overview has a WALL_TIME metric of its own. */
tq_status_t tqh_overview_format(const tqh_overview_t *overview, const char *model,
                                int64_t wall_time_ns, tq_buf_t *out) TQ_MUST_USE;

/* "207.000ms", "453.000µs", "1.500s", "999ns": three decimals in the largest unit (s, ms, µs)
 * in which the rounded value is at least 1; whole ns below 1 µs. Rounds half up. */
void tqh_format_duration(uint64_t ns, char out[32]);

/* "3.53%": part / whole in percent, two decimals, rounded half up; "-" when whole is 0. */
void tqh_format_percent(uint64_t part, uint64_t whole, char out[32]);

#ifdef __cplusplus
}
#endif
#endif
