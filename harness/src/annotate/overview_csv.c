/* The Host Profile Overview from a runtime profile CSV alone (overview.h), for a toolchain whose
 * debug info torq-test cannot read and that has no annotator: without the debug info nobody
 * knows which units an NSS program uses, so what the CSV tells is the work units as a whole,
 * paired here from the events (NSS_START_BEGIN to NSS_WAIT_END first in first out per dispatch
 * run, HOST_START_BEGIN to HOST_WAIT_END likewise, HOST_COPY by action, each HAL_* scope), and
 * the metrics tqh_overview_compute_units gives that need no more than that. */
#include <string.h>

#include "torq/base/alloc.h"
#include "torq/harness/intervals.h"
#include "torq/harness/overview.h"
#include "torq/harness/profile_csv.h"
#include "torq/runtime/profile.h"

/* An open start of a work unit. */
typedef struct open_s {
  uint16_t dispatch;
  uint32_t invocation;
  int32_t action; /* HOST_COPY pairs by action, HAL scopes by kind; -1 otherwise */
  uint8_t kind;   /* tqh_work_kind_t */
  uint64_t start_us;
} open_t;

/* The work unit an event begins (*begin = 1) or ends, or -1 when it is neither. */
static int unit_of(const tqh_profile_event_t *ev, int *begin, int32_t *match) {
  *begin = ev->edge == TQR_EDGE_BEGIN;
  *match = -1;
  if (tqr_event_kind_class(ev->kind) == TQR_EVENT_CLASS_HAL) {
    *match = ev->kind;
    return ev->edge == TQR_EDGE_POINT ? -1 : TQH_WORK_HAL;
  }
  switch (ev->kind) {
    case TQR_EVENT_NSS_START:
      return *begin ? TQH_WORK_NSS : -1;
    case TQR_EVENT_NSS_WAIT:
      return *begin ? -1 : TQH_WORK_NSS;
    case TQR_EVENT_HOST_START:
      return *begin ? TQH_WORK_HOST : -1;
    case TQR_EVENT_HOST_WAIT:
      return *begin ? -1 : TQH_WORK_HOST;
    case TQR_EVENT_HOST_COPY:
      *match = ev->action_id;
      return TQH_WORK_HOST_COPY;
    default:
      return -1;
  }
}

static tq_status_t pair(const tqh_profile_t *p, open_t *open, tqh_work_unit_t *units,
                        size_t *num_units, tqh_intervals_t *nss) {
  size_t num_open = 0;
  for (size_t i = 0; i < p->count; i++) {
    const tqh_profile_event_t *ev = &p->events[i];
    int begin;
    int32_t match;
    int kind = unit_of(ev, &begin, &match);
    if (kind < 0) continue;
    if (begin) {
      open[num_open++] =
          (open_t){ev->dispatch, ev->invocation_id, match, (uint8_t)kind, ev->timestamp_us};
      continue;
    }
    for (size_t k = 0; k < num_open; k++) {
      open_t *o = &open[k];
      if (o->kind != kind || o->dispatch != ev->dispatch || o->invocation != ev->invocation_id ||
          o->action != match)
        continue;
      if (ev->timestamp_us >= o->start_us) {
        uint64_t a = o->start_us * 1000, b = ev->timestamp_us * 1000;
        units[(*num_units)++] = (tqh_work_unit_t){(uint8_t)kind, 0, a, b};
        if (kind == TQH_WORK_NSS) TQ_TRY(tqh_intervals_add(nss, a, b));
      }
      memmove(o, o + 1, (num_open - k - 1) * sizeof(*o));
      num_open--;
      break;
    }
  }
  return NULL;
}

tq_status_t tqh_overview_from_profile(const tqh_profile_t *profile, tqh_overview_t *out) {
  static const char *const kept[] = {TQH_METRIC_OVERALL, TQH_METRIC_TOTAL_NPU, NULL,
                                     "Hal",              "Host",               "Host Copy"};
  open_t *open = tq_calloc(profile->count + 1, sizeof(*open));
  tqh_work_unit_t *units = tq_calloc(profile->count + 1, sizeof(*units));
  size_t num_units = 0;
  tqh_intervals_t nss;
  tqh_intervals_init(&nss);
  tqh_overview_t all;
  tqh_overview_init(&all);
  tq_status_t st = open && units ? pair(profile, open, units, &num_units, &nss)
                                 : TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory for the overview");
  if (!st) st = tqh_overview_compute_units(units, num_units, &all);
  for (size_t i = 0; !st && i < sizeof(kept) / sizeof(kept[0]); i++) {
    uint64_t ns = 0;
    if (!kept[i])
      st = tqh_overview_add(out, "NSS Programs", tqh_intervals_total(&nss));
    else if (tqh_overview_get(&all, kept[i], &ns))
      st = tqh_overview_add(out, kept[i], ns);
  }
  tqh_overview_deinit(&all);
  tqh_intervals_deinit(&nss);
  tq_free(open);
  tq_free(units);
  return st;
}
