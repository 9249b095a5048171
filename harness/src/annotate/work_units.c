/* The work units of an annotation (annotate.h): the intervals the overview's metrics are made
 * of, one kind of work after another. */
#include "torq/base/alloc.h"
#include "torq/harness/annotate.h"
#include "torq/harness/overview.h"
#include "torq/runtime/profile.h"

static tq_status_t oom(void) {
  return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory while annotating");
}

tq_status_t tqh_annotation_each_work_unit(const tqh_annotation_t *ann, tqh_work_unit_fn fn,
                                          void *ctx) {
  tqh_work_unit_t u;
  for (size_t i = 0; i < ann->num_nss_runs; i++) {
    const tqh_span_t *s = &ann->nss_runs[i];
    u = (tqh_work_unit_t){TQH_WORK_NSS, s->units, s->start_us * 1000, s->end_us * 1000};
    TQ_TRY(fn(ctx, &u));
  }
  for (size_t i = 0; i < ann->num_host_runs; i++) {
    const tqh_span_t *s = &ann->host_runs[i];
    u = (tqh_work_unit_t){TQH_WORK_HOST, 0, s->start_us * 1000, s->end_us * 1000};
    TQ_TRY(fn(ctx, &u));
  }
  for (size_t i = 0; i < ann->num_rows; i++) {
    const tqh_row_t *r = &ann->rows[i];
    if (r->kind != TQR_EVENT_HOST_COPY) continue;
    u = (tqh_work_unit_t){TQH_WORK_HOST_COPY, 0, r->start_us * 1000, r->end_us * 1000};
    TQ_TRY(fn(ctx, &u));
  }
  for (size_t i = 0; i < ann->num_hal_calls; i++) {
    const tqh_span_t *s = &ann->hal_calls[i];
    u = (tqh_work_unit_t){TQH_WORK_HAL, 0, s->start_us * 1000, s->end_us * 1000};
    TQ_TRY(fn(ctx, &u));
  }
  return NULL;
}

typedef struct unit_array_s {
  tqh_work_unit_t *units;
  size_t count;
} unit_array_t;

static tq_status_t count_unit(void *ctx, const tqh_work_unit_t *u) {
  (void)u;
  ((unit_array_t *)ctx)->count++;
  return NULL;
}

static tq_status_t keep_unit(void *ctx, const tqh_work_unit_t *u) {
  unit_array_t *a = ctx;
  a->units[a->count++] = *u;
  return NULL;
}

tq_status_t tqh_annotation_work_units(const tqh_annotation_t *ann, tqh_work_unit_t **out_units,
                                      size_t *out_count) {
  *out_units = NULL;
  *out_count = 0;
  unit_array_t a = {NULL, 0};
  TQ_TRY(tqh_annotation_each_work_unit(ann, count_unit, &a));
  if (!a.count) return NULL;
  if (!(a.units = tq_calloc(a.count, sizeof(*a.units)))) return oom();
  a.count = 0;
  TQ_TRY(tqh_annotation_each_work_unit(ann, keep_unit, &a));
  *out_units = a.units;
  *out_count = a.count;
  return NULL;
}
