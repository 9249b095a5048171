/* The Host Profile Overview from a runtime profile CSV alone (overview.h), for a toolchain whose
 * debug info torq-test cannot read and that has no annotator: without the debug info nobody
 * knows which units an NSS program uses, so what the CSV tells is the work units as a whole.
 * NSS programs (NSS_START_BEGIN to the matching NSS_WAIT_END, first in first out per dispatch
 * run), host programs (HOST_START_BEGIN to HOST_WAIT_END), host copies and HAL calls (the events
 * of the __HAL_*__ dispatches, per invocation). */
#include <string.h>

#include "torq/base/alloc.h"
#include "torq/harness/intervals.h"
#include "torq/harness/overview.h"
#include "torq/harness/profile_csv.h"
#include "torq/runtime/profile.h"

enum { U_NSS, U_HOST, U_HOST_COPY, U_HAL, U_ALL, U_COUNT };

/* Open starts of one kind, per dispatch run (first in, first out). */
typedef struct open_s {
  uint16_t dispatch;
  uint32_t invocation;
  int32_t action; /* HOST_COPY pairs by action; -1 otherwise */
  uint8_t unit;
  uint64_t start_us;
} open_t;

typedef struct hal_s {
  uint16_t dispatch;
  uint32_t invocation;
  uint64_t first_us, last_us;
} hal_t;

static int is_hal(const tqh_profile_t *p, uint16_t d) {
  return d < p->num_dispatches && !strncmp(p->dispatch_names[d], "__HAL_", 6);
}

static tq_status_t compute(const tqh_profile_t *p, tqh_intervals_t *s, open_t *open, hal_t *hal,
                           tqh_overview_t *out) {
  size_t num_open = 0, num_hal = 0;
  for (size_t i = 0; i < p->count; i++) {
    const tqh_profile_event_t *ev = &p->events[i];
    if (is_hal(p, ev->dispatch)) {
      size_t h = 0;
      while (h < num_hal &&
             (hal[h].dispatch != ev->dispatch || hal[h].invocation != ev->invocation_id))
        h++;
      if (h == num_hal)
        hal[num_hal++] =
            (hal_t){ev->dispatch, ev->invocation_id, ev->timestamp_us, ev->timestamp_us};
      if (ev->timestamp_us < hal[h].first_us) hal[h].first_us = ev->timestamp_us;
      if (ev->timestamp_us > hal[h].last_us) hal[h].last_us = ev->timestamp_us;
      continue;
    }
    int unit = -1, begin = 0;
    int32_t action = -1;
    if (ev->kind == TQR_EVENT_NSS_START && ev->edge == TQR_EDGE_BEGIN) unit = U_NSS, begin = 1;
    if (ev->kind == TQR_EVENT_NSS_WAIT && ev->edge == TQR_EDGE_END) unit = U_NSS;
    if (ev->kind == TQR_EVENT_HOST_START && ev->edge == TQR_EDGE_BEGIN) unit = U_HOST, begin = 1;
    if (ev->kind == TQR_EVENT_HOST_WAIT && ev->edge == TQR_EDGE_END) unit = U_HOST;
    if (ev->kind == TQR_EVENT_HOST_COPY) {
      unit = U_HOST_COPY;
      begin = ev->edge == TQR_EDGE_BEGIN;
      action = ev->action_id;
    }
    if (unit < 0) continue;
    if (begin) {
      open[num_open++] =
          (open_t){ev->dispatch, ev->invocation_id, action, (uint8_t)unit, ev->timestamp_us};
      continue;
    }
    for (size_t k = 0; k < num_open; k++) {
      open_t *o = &open[k];
      if (o->unit != unit || o->dispatch != ev->dispatch || o->invocation != ev->invocation_id ||
          o->action != action)
        continue;
      uint64_t a = o->start_us * 1000, b = ev->timestamp_us * 1000;
      if (b >= a) {
        TQ_TRY(tqh_intervals_add(&s[unit], a, b));
        TQ_TRY(tqh_intervals_add(&s[U_ALL], a, b));
      }
      memmove(o, o + 1, (num_open - k - 1) * sizeof(*o));
      num_open--;
      break;
    }
  }
  for (size_t h = 0; h < num_hal; h++) {
    TQ_TRY(tqh_intervals_add(&s[U_HAL], hal[h].first_us * 1000, hal[h].last_us * 1000));
    TQ_TRY(tqh_intervals_add(&s[U_ALL], hal[h].first_us * 1000, hal[h].last_us * 1000));
  }
  tqh_intervals_normalize(&s[U_ALL]);
  uint64_t overall = 0;
  if (s[U_ALL].count) overall = s[U_ALL].items[s[U_ALL].count - 1].end - s[U_ALL].items[0].start;
  TQ_TRY(tqh_overview_add(out, TQH_METRIC_OVERALL, overall));
  TQ_TRY(tqh_overview_add(out, "NSS Programs", tqh_intervals_total(&s[U_NSS])));
  TQ_TRY(tqh_overview_add(out, "Host", tqh_intervals_total(&s[U_HOST])));
  TQ_TRY(tqh_overview_add(out, "Host Copy", tqh_intervals_total(&s[U_HOST_COPY])));
  return tqh_overview_add(out, "Hal", tqh_intervals_total(&s[U_HAL]));
}

tq_status_t tqh_overview_from_profile(const tqh_profile_t *profile, tqh_overview_t *out) {
  tqh_intervals_t s[U_COUNT];
  for (int i = 0; i < U_COUNT; i++) tqh_intervals_init(&s[i]);
  open_t *open = tq_calloc(profile->count + 1, sizeof(*open));
  hal_t *hal = tq_calloc(profile->count + 1, sizeof(*hal));
  tq_status_t st = open && hal ? compute(profile, s, open, hal, out)
                               : TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory for the overview");
  tq_free(open);
  tq_free(hal);
  for (int i = 0; i < U_COUNT; i++) tqh_intervals_deinit(&s[i]);
  return st;
}
