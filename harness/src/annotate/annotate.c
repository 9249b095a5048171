/* Annotation: pairs the BEGIN and END rows of the runtime profile, joins every executed action
 * with the debug info and makes the work units (annotate.h). One pass over the events; the set
 * of open BEGINs stays tiny (a host runs one action at a time; phases and HAL scopes nest) and is
 * searched linearly, and capped, so that a file of BEGINs without ENDs stays linear too; so is
 * the set of programs started and not yet waited for. */
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "annotate_internal.h"
#include "torq/base/alloc.h"
#include "torq/harness/annotate.h"
#include "torq/runtime/profile.h"

/* Open BEGINs kept at most; past it the oldest is reported as a BEGIN without END. */
#define TQH_MAX_OPEN 256
/* Programs started and not yet waited for, kept at most; past it the oldest is forgotten. */
#define TQH_MAX_PENDING 1024

typedef struct open_s {
  tqh_profile_event_t begin; /* a copy: a streamed read reuses the places of its events */
} open_t;

/* A program whose START ended and whose WAIT has not come yet. */
typedef struct pending_s {
  uint16_t dispatch;
  uint8_t wait_kind; /* NSS_WAIT or HOST_WAIT */
  uint32_t invocation;
  int64_t id; /* job or host program id; -1 when the debug info does not say */
  uint64_t start_us, ready_us; /* the START's BEGIN and END */
} pending_t;

typedef struct ctx_s {
  tqh_annotation_t *ann;
  const tqh_profile_t *profile;
  const char *path;
  const tqh_dispatch_t *dispatch[TQH_PROFILE_MAX_DISPATCHES]; /* NULL: not in the debug info */
  open_t open[TQH_MAX_OPEN];
  size_t num_open;
  pending_t pending[TQH_MAX_PENDING];
  size_t num_pending;
  /* Actions the debug info does not know as the profile has them: one such action is reported as
   * it is; several mean the debug info is of another model (or stale), said once (wrong_model). */
  size_t mismatches, actions;
  uint32_t first_mismatch_line;
  char first_mismatch[384];
  /* A streamed read (run_streamed): the dispatches looked up so far, and the first line and
   * first action line of each. */
  size_t mapped;
  uint32_t first_line[TQH_PROFILE_MAX_DISPATCHES], action_line[TQH_PROFILE_MAX_DISPATCHES];
} ctx_t;

static const tqh_profile_event_t *open_begin(const ctx_t *c, size_t i) {
  return &c->open[i].begin;
}

/* An action the debug info does not know, or knows as another kind. */
static void mismatch(ctx_t *c, uint32_t line, const char *fmt, ...) TQ_PRINTF(3, 4);
static void mismatch(ctx_t *c, uint32_t line, const char *fmt, ...) {
  if (c->mismatches++) return;
  c->first_mismatch_line = line;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c->first_mismatch, sizeof(c->first_mismatch), fmt, ap);
  va_end(ap);
}

static void report_mismatches(ctx_t *c) {
  if (!c->mismatches) return;
  const tqh_debug_info_t *info = c->ann->debug_info;
  if (c->mismatches == 1) {
    tqh_diags_add(&c->ann->diags, TQH_ERROR, c->path, c->first_mismatch_line,
                  "%s: the debug info is stale or of another model (compile again with "
                  "--torq-debug-info)",
                  c->first_mismatch);
    return;
  }
  tqh_diags_add(&c->ann->diags, TQH_ERROR, c->path, c->first_mismatch_line,
                "wrong model: the debug info %s does not match this profile (%zu of the "
                "profile's %zu actions differ; the first: %s): it is stale or of another model "
                "(compile again with --torq-debug-info)",
                info && info->dir ? info->dir : "", c->mismatches, c->actions, c->first_mismatch);
}

void tqh_annotate_options_initialize(tqh_annotate_options_t *options) {
  memset(options, 0, sizeof(*options));
}

static tq_status_t oom(void) {
  return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory while annotating");
}

#define GROW(arr, count, cap)                                                                     \
  do {                                                                                            \
    if ((count) == (cap)) {                                                                       \
      size_t ncap_ = (cap) ? (cap) * 2 : 256;                                                     \
      if (ncap_ > SIZE_MAX / sizeof(*(arr))) return oom();                                        \
      void *p_ = tq_realloc_huge((arr), ncap_ * sizeof(*(arr)));                                  \
      if (!p_) return oom();                                                                      \
      (arr) = p_;                                                                                 \
      (cap) = ncap_;                                                                              \
    }                                                                                             \
  } while (0)

static int is_action(uint8_t kind) {
  return tqr_event_kind_class(kind) == TQR_EVENT_CLASS_ACTION;
}

/* The kinds whose END closes an invocation: a dispatch run, INIT, a HAL scope. */
static int is_scope(uint8_t kind) {
  return kind == TQR_EVENT_DISPATCH || kind == TQR_EVENT_INIT || kind == TQR_EVENT_HAL_CALL;
}

static tq_status_t add_span(ctx_t *c, tqh_span_t **arr, size_t *count, size_t *cap,
                            const tqh_span_t *s) {
  GROW(*arr, *count, *cap);
  (*arr)[(*count)++] = *s;
  return NULL;
}

/* A START ended: its program waits for its WAIT. */
static void program_started(ctx_t *c, const tqh_profile_event_t *b, uint8_t wait_kind, int64_t id,
                            uint64_t end_us) {
  if (c->num_pending == TQH_MAX_PENDING) {
    memmove(&c->pending[0], &c->pending[1], (TQH_MAX_PENDING - 1) * sizeof(c->pending[0]));
    c->num_pending--;
  }
  c->pending[c->num_pending++] =
      (pending_t){b->dispatch, wait_kind, b->invocation_id, id, b->timestamp_us, end_us};
}

/* A WAIT ended at `end_us`: the work unit of its program, from its START's BEGIN. A WAIT whose
 * START is not there (a profile cut at its start) makes none. */
static tq_status_t program_waited(ctx_t *c, const tqh_profile_event_t *b, int64_t id,
                                  uint64_t end_us, const tqh_dispatch_t *d) {
  size_t i = 0;
  for (; i < c->num_pending; i++) {
    const pending_t *p = &c->pending[i];
    if (p->dispatch == b->dispatch && p->wait_kind == b->kind &&
        p->invocation == b->invocation_id && p->id == id)
      break;
  }
  if (i == c->num_pending) return NULL;
  pending_t p = c->pending[i];
  memmove(&c->pending[i], &c->pending[i + 1], (c->num_pending - i - 1) * sizeof(c->pending[0]));
  c->num_pending--;
  tqh_annotation_t *ann = c->ann;
  tqh_span_t s = {p.start_us < end_us ? p.start_us : end_us, end_us,
                  p.ready_us < end_us ? p.ready_us : end_us, b->invocation_id, b->dispatch, id,
                  b->kind, 0, NULL, ""};
  if (b->kind == TQR_EVENT_NSS_WAIT) {
    if (d && id >= 0 && (size_t)id < d->num_programs && d->programs[id].present) {
      s.program = &d->programs[id];
      s.units = s.program->units;
      s.name = s.program->kernels;
    }
    return add_span(c, &ann->nss_runs, &ann->num_nss_runs, &ann->cap_nss, &s);
  }
  if (d && id >= 0 && (size_t)id < d->num_host_programs && d->host_programs[id].present)
    s.name = d->host_programs[id].op;
  return add_span(c, &ann->host_runs, &ann->num_host_runs, &ann->cap_host, &s);
}

/* Makes the row of an action that began at `b` and ended at `end_us` (an END or an ERROR), and
 * the program work units its START and WAIT delimit. */
static tq_status_t finish_action(ctx_t *c, const tqh_profile_event_t *b, uint64_t end_us) {
  tqh_annotation_t *ann = c->ann;
  tqh_row_t r;
  memset(&r, 0, sizeof(r));
  r.invocation_id = b->invocation_id;
  r.action_id = b->action_id;
  r.job_id = -1;
  r.kind = b->kind;
  r.invocation_names = r.original_operators = r.location = "";
  r.start_us = b->timestamp_us;
  r.end_us = end_us;
  r.line = b->line;
  const tqh_dispatch_t *d = c->dispatch[b->dispatch];
  int64_t program = -1; /* the job or host program of a START or WAIT, when the debug info says */
  c->actions += d != NULL;
  if (d && (size_t)b->action_id < d->num_actions && d->actions[b->action_id].present) {
    const tqh_action_t *a = &d->actions[b->action_id];
    if (a->kind != b->kind) {
      mismatch(c, b->line, "action %d is %s in the debug info, but the profile has %s",
               (int)b->action_id, tqh_event_kind_name(a->kind), tqh_event_kind_name(b->kind));
    } else {
      r.location = a->location;
      r.original_operators = a->original_operators;
      if (a->job_id >= 0) {
        r.job_id = program = a->job_id;
        if ((size_t)a->job_id < d->num_programs && d->programs[a->job_id].present) {
          const tqh_nss_program_t *p = &d->programs[a->job_id];
          r.units = p->units;
          r.invocation_names = p->kernels;
        }
      } else if (a->host_program_id >= 0) {
        program = a->host_program_id;
        if ((size_t)a->host_program_id < d->num_host_programs &&
            d->host_programs[a->host_program_id].present)
          r.invocation_names = d->host_programs[a->host_program_id].op;
      }
    }
  } else if (d) {
    mismatch(c, b->line, "action_id %d is not in the debug info (dispatch %s has %zu actions)",
             (int)b->action_id, d->name, d->num_actions);
  }
  switch (b->kind) {
    case TQR_EVENT_NSS_START: program_started(c, b, TQR_EVENT_NSS_WAIT, program, end_us); break;
    case TQR_EVENT_HOST_START: program_started(c, b, TQR_EVENT_HOST_WAIT, program, end_us); break;
    case TQR_EVENT_NSS_WAIT:
    case TQR_EVENT_HOST_WAIT: TQ_TRY(program_waited(c, b, program, end_us, d)); break;
    default: break;
  }
  GROW(ann->rows, ann->num_rows, ann->cap_rows);
  ann->rows[ann->num_rows++] = r;
  return NULL;
}

/* A phase or a HAL call that began at `b`. */
static tq_status_t finish_span(ctx_t *c, const tqh_profile_event_t *b, uint64_t end_us) {
  tqh_annotation_t *ann = c->ann;
  int hal = tqr_event_kind_class(b->kind) == TQR_EVENT_CLASS_HAL;
  tqh_span_t s = {b->timestamp_us, end_us, b->timestamp_us, b->invocation_id, b->dispatch,
                  hal ? b->action_id : -1, b->kind, 0, NULL, tqh_event_kind_name(b->kind)};
  if (hal) return add_span(c, &ann->hal_calls, &ann->num_hal_calls, &ann->cap_hal, &s);
  return add_span(c, &ann->phases, &ann->num_phases, &ann->cap_phases, &s);
}

static void drop_open(ctx_t *c, size_t i) {
  memmove(&c->open[i], &c->open[i + 1], (c->num_open - i - 1) * sizeof(c->open[0]));
  c->num_open--;
}

static void report_unclosed(ctx_t *c, const tqh_profile_event_t *b, const char *why) {
  char name[TQR_EVENT_NAME_SIZE];
  tqh_event_name(b->kind, TQR_EDGE_BEGIN, name);
  if (is_action(b->kind))
    tqh_diags_add(&c->ann->diags, TQH_ERROR, c->path, b->line,
                  "%s of action %d has no %s_END (%s); no row for it", name, (int)b->action_id,
                  tqh_event_kind_name(b->kind), why);
  else
    tqh_diags_add(&c->ann->diags, TQH_ERROR, c->path, b->line, "%s has no %s_END (%s)", name,
                  tqh_event_kind_name(b->kind), why);
}

/* BEGIN and END belong together when they have the same dispatch, invocation and action; for
 * phases and HAL calls also the same event type. */
static int same_key(const tqh_profile_event_t *a, const tqh_profile_event_t *b) {
  if (a->dispatch != b->dispatch || a->invocation_id != b->invocation_id ||
      a->action_id != b->action_id)
    return 0;
  int action = is_action(a->kind);
  if (action != is_action(b->kind)) return 0;
  return action || a->kind == b->kind;
}

static int same_invocation(const tqh_profile_event_t *a, const tqh_profile_event_t *b) {
  return a->dispatch == b->dispatch && a->invocation_id == b->invocation_id;
}

static tq_status_t on_begin(ctx_t *c, const tqh_profile_event_t *e) {
  for (size_t i = 0; i < c->num_open; i++) {
    if (!same_key(open_begin(c, i), e)) continue;
    char name[TQR_EVENT_NAME_SIZE];
    tqh_event_name(e->kind, TQR_EDGE_BEGIN, name);
    if (is_action(e->kind))
      tqh_diags_add(&c->ann->diags, TQH_ERROR, c->path, open_begin(c, i)->line,
                    "%s of action %d has no END before it begins again at line %u", name,
                    (int)e->action_id, (unsigned)e->line);
    else
      tqh_diags_add(&c->ann->diags, TQH_ERROR, c->path, open_begin(c, i)->line,
                    "%s has no END before it begins again at line %u", name, (unsigned)e->line);
    drop_open(c, i);
    break;
  }
  if (c->num_open == TQH_MAX_OPEN) {
    report_unclosed(c, open_begin(c, 0), "too many actions open at once");
    drop_open(c, 0);
  }
  c->open[c->num_open++].begin = *e;
  return NULL;
}

static tq_status_t on_end(ctx_t *c, const tqh_profile_event_t *e) {
  tqh_annotation_t *ann = c->ann;
  size_t i = c->num_open;
  while (i-- > 0)
    if (same_key(open_begin(c, i), e)) break;
  char name[TQR_EVENT_NAME_SIZE]; /* for diagnostics only: formatting it for every row cost */
  if (i == (size_t)-1) {
    tqh_event_name(e->kind, TQR_EDGE_END, name);
    if (is_action(e->kind))
      tqh_diags_add(&ann->diags, TQH_ERROR, c->path, e->line,
                    "%s of action %d without a BEGIN; row skipped", name, (int)e->action_id);
    else
      tqh_diags_add(&ann->diags, TQH_ERROR, c->path, e->line, "%s without a BEGIN", name);
    return NULL;
  }
  tqh_profile_event_t begin = *open_begin(c, i);
  const tqh_profile_event_t *b = &begin;
  drop_open(c, i);
  if (b->kind != e->kind) {
    char bname[TQR_EVENT_NAME_SIZE];
    tqh_event_name(e->kind, TQR_EDGE_END, name);
    tqh_event_name(b->kind, TQR_EDGE_BEGIN, bname);
    tqh_diags_add(&ann->diags, TQH_ERROR, c->path, e->line,
                  "%s of action %d, but the action began as %s at line %u; row skipped", name,
                  (int)e->action_id, bname, (unsigned)b->line);
    return NULL;
  }
  if (e->timestamp_us < b->timestamp_us) {
    tqh_event_name(e->kind, TQR_EDGE_END, name);
    tqh_diags_add(&ann->diags, TQH_ERROR, c->path, e->line,
                  "%s at %" PRIu64 " us is before its BEGIN at %" PRIu64
                  " us (line %u); row skipped",
                  name, e->timestamp_us, b->timestamp_us, (unsigned)b->line);
    return NULL;
  }
  /* The end of a dispatch run, INIT or HAL scope: what it left open never ends. */
  for (size_t k = 0; is_scope(e->kind) && k < c->num_open;) {
    if (same_invocation(open_begin(c, k), e)) {
      report_unclosed(c, open_begin(c, k), "its invocation ended");
      drop_open(c, k);
    } else {
      k++;
    }
  }
  return is_action(e->kind) ? finish_action(c, b, e->timestamp_us)
                            : finish_span(c, b, e->timestamp_us);
}

/* ERROR: the run failed; the failing action (if any) and the open phases of its invocation end
 * here. */
static tq_status_t on_error(ctx_t *c, const tqh_profile_event_t *e) {
  tqh_annotation_t *ann = c->ann;
  if (e->action_id >= 0)
    tqh_diags_add(&ann->diags, TQH_WARNING, c->path, e->line,
                  "the run failed in action %d (ERROR row)", (int)e->action_id);
  else
    tqh_diags_add(&ann->diags, TQH_WARNING, c->path, e->line,
                  "the run failed outside an action (ERROR row)");
  for (size_t i = 0; i < c->num_open;) {
    if (!same_invocation(open_begin(c, i), e)) {
      i++;
      continue;
    }
    tqh_profile_event_t begin = *open_begin(c, i);
    const tqh_profile_event_t *b = &begin;
    drop_open(c, i);
    uint64_t end = e->timestamp_us < b->timestamp_us ? b->timestamp_us : e->timestamp_us;
    if (!is_action(b->kind))
      TQ_TRY(finish_span(c, b, end));
    else if (b->action_id == e->action_id)
      TQ_TRY(finish_action(c, b, end));
    else
      report_unclosed(c, b, "the run failed before it ended");
  }
  return NULL;
}

static tq_status_t on_event(ctx_t *c, const tqh_profile_event_t *e) {
  if (e->edge == TQR_EDGE_BEGIN) return on_begin(c, e);
  if (e->edge == TQR_EDGE_END) return on_end(c, e);
  return on_error(c, e);
}

/* Takes room for `n` elements for the empty array `arr` (none when n is 0). */
#define RESERVE(arr, cap, n)                                                                      \
  do {                                                                                            \
    if ((n) > SIZE_MAX / sizeof(*(arr))) return oom();                                            \
    if ((n) && !((arr) = tq_malloc_huge((n) * sizeof(*(arr))))) return oom();                     \
    (cap) = (n);                                                                                  \
  } while (0)

/* Room for the rows and spans the profile's END events make, taken once: growing them as they
 * came copied each array at every doubling and faulted its pages in again (with the events' own
 * growth, half of the time on a million events). An ERROR may end more than that; those grow as
 * before. */
static tq_status_t reserve_outputs(tqh_annotation_t *ann, const tqh_profile_t *p) {
  size_t rows = 0, nss = 0, host = 0, hal = 0, phases = 0;
  for (size_t k = 0; k < p->count; k++) {
    const tqh_profile_event_t *e = &p->events[k];
    if (e->edge != TQR_EDGE_END) continue;
    switch (tqr_event_kind_class(e->kind)) {
      case TQR_EVENT_CLASS_ACTION:
        rows++;
        nss += e->kind == TQR_EVENT_NSS_WAIT;
        host += e->kind == TQR_EVENT_HOST_WAIT;
        break;
      case TQR_EVENT_CLASS_HAL: hal++; break;
      case TQR_EVENT_CLASS_PHASE: phases++; break;
      default: break;
    }
  }
  RESERVE(ann->rows, ann->cap_rows, rows);
  RESERVE(ann->nss_runs, ann->cap_nss, nss);
  RESERVE(ann->host_runs, ann->cap_host, host);
  RESERVE(ann->hal_calls, ann->cap_hal, hal);
  RESERVE(ann->phases, ann->cap_phases, phases);
  return NULL;
}

static int by_line(const void *pa, const void *pb) {
  const tqh_row_t *a = pa, *b = pb;
  return (a->line > b->line) - (a->line < b->line);
}

static char *model_name_of(const tqh_debug_info_t *info, const char *dir) {
  const char *p = info && info->model && *info->model ? info->model : (dir ? dir : "");
  size_t len = strlen(p);
  while (len > 1 && p[len - 1] == '/') len--;
  const char *base = p;
  for (size_t i = 0; i < len; i++)
    if (p[i] == '/') base = p + i + 1;
  size_t n = (size_t)(p + len - base);
  if (n > 5 && memcmp(base + n - 5, ".mlir", 5) == 0) n -= 5;
  return tq_strndup(base, n);
}

static void check_source(ctx_t *c, const tqh_annotate_options_t *options) {
  const tqh_debug_info_t *info = c->ann->debug_info;
  if (info && options && options->expected_source_sha256 &&
      strcmp(options->expected_source_sha256, info->source_sha256) != 0)
    tqh_diags_add(&c->ann->diags, TQH_ERROR, info->dir, 0,
                  "the debug info is of another model (source sha256 %s, expected %s)",
                  info->source_sha256, options->expected_source_sha256);
}

static tq_status_t copy_dispatch_names(ctx_t *c) {
  tqh_annotation_t *ann = c->ann;
  const tqh_profile_t *p = c->profile;
  ann->dispatch_names = tq_calloc(p->num_dispatches + 1, sizeof(char *));
  if (!ann->dispatch_names) return oom();
  for (size_t i = 0; i < p->num_dispatches; i++) {
    const char *name = p->dispatch_names[i];
    if (!(ann->dispatch_names[i] = tq_strndup(name, strlen(name)))) return oom();
    ann->num_dispatches = i + 1;
  }
  return NULL;
}

/* A dispatch with actions must be in the debug info (HAL scopes, and phases alone, need not):
 * the error for dispatch `i`, whose first event is at line `first`. */
static void dispatch_missing(ctx_t *c, size_t i, uint32_t first) {
  const tqh_debug_info_t *info = c->ann->debug_info;
  tqh_diags_add(&c->ann->diags, TQH_ERROR, c->path, first,
                "dispatch '%s' is not in the debug info %s (which has '%s'): the debug info is of "
                "another model",
                c->profile->dispatch_names[i], info->dir,
                info->num_dispatches ? info->dispatches[0].name : "");
}

/* Checks event `e` against the one before it (`prev`; NULL for the first), and annotates it. */
static tq_status_t step(ctx_t *c, const tqh_profile_event_t *e, const tqh_profile_event_t *prev) {
  tqh_annotation_t *ann = c->ann;
  if (!prev) {
    ann->first_us = ann->last_us = e->timestamp_us;
    ann->has_time = 1;
  } else {
    if (e->timestamp_us < prev->timestamp_us)
      tqh_diags_add(&ann->diags, TQH_ERROR, c->path, e->line,
                    "timestamp %" PRIu64 " us goes backwards (line %u has %" PRIu64 " us)",
                    e->timestamp_us, (unsigned)prev->line, prev->timestamp_us);
    if (e->timestamp_us < ann->first_us) ann->first_us = e->timestamp_us;
    if (e->timestamp_us > ann->last_us) ann->last_us = e->timestamp_us;
  }
  return on_event(c, e);
}

/* After the last event: what is still open, the mismatches, the rows in file order. */
static void finish_run(ctx_t *c) {
  tqh_annotation_t *ann = c->ann;
  for (size_t i = 0; i < c->num_open; i++)
    report_unclosed(c, open_begin(c, i), "the profile ends first");
  c->num_open = 0;
  report_mismatches(c);
  for (size_t i = 1; i < ann->num_rows; i++)
    if (ann->rows[i].line < ann->rows[i - 1].line) {
      qsort(ann->rows, ann->num_rows, sizeof(*ann->rows), by_line);
      break;
    }
}

static tq_status_t run(ctx_t *c, const tqh_annotate_options_t *options) {
  tqh_annotation_t *ann = c->ann;
  const tqh_profile_t *p = c->profile;
  const tqh_debug_info_t *info = ann->debug_info;
  check_source(c, options);
  /* Map the profile's dispatch names to the debug info's. */
  TQ_TRY(copy_dispatch_names(c));
  for (size_t i = 0; i < p->num_dispatches; i++) {
    c->dispatch[i] = tqh_debug_info_dispatch(info, p->dispatch_names[i]);
    if (c->dispatch[i] || !info) continue;
    uint32_t first = 0, action = 0;
    for (size_t k = 0; k < p->count && !action; k++) {
      if (p->events[k].dispatch != i) continue;
      if (!first) first = p->events[k].line;
      if (is_action(p->events[k].kind)) action = p->events[k].line;
    }
    if (action) dispatch_missing(c, i, first);
  }
  TQ_TRY(reserve_outputs(ann, p));
  for (size_t k = 0; k < p->count; k++)
    TQ_TRY(step(c, &p->events[k], k ? &p->events[k - 1] : NULL));
  finish_run(c);
  return NULL;
}

/* ---- Annotating while the profile is read ---------------------------------------------------

 * A large profile is parsed on a thread of its own while this one annotates the events parsed
 * so far: the two passes took about the same time, one after the other. The annotation is the
 * one tqh_annotate_parsed makes of the whole profile: the same rows, spans and diagnostics in
 * the same order (what depends on the whole profile waits for its end: the dispatches missing
 * from the debug info are said before the events' diagnostics, as they are there). */

/* From this size on (4 of the reader's chunks): below it, a thread costs more than it saves. */
size_t tqh__annotate_stream_min_bytes = (size_t)4 << 20;

static _Atomic uint64_t g_streamed;

uint64_t tqh__annotate_streamed(void) {
  return g_streamed;
}

/* The events as they are published (event k at k % cap: a ring, or the whole profile when it
 * was read at once), each place given back once annotated; what each dispatch is, as it first
 * comes. */
static tq_status_t run_streamed(ctx_t *c, tqh__profile_stream_t *s) {
  const tqh_debug_info_t *info = c->ann->debug_info;
  tq_status_t st = NULL;
  tqh_profile_event_t prev;
  for (size_t k = 0;;) {
    pthread_mutex_lock(&s->mu);
    s->consumed = k;
    pthread_cond_signal(&s->room);
    while (s->published == k && !s->done) pthread_cond_wait(&s->cv, &s->mu);
    size_t n = s->published;
    int done = s->done;
    pthread_mutex_unlock(&s->mu);
    const tqh_profile_event_t *events = c->profile->events;
    size_t cap = c->profile->cap;
    for (; !st && k < n; k++) {
      const tqh_profile_event_t *e = &events[k % cap];
      size_t d = e->dispatch;
      for (; c->mapped <= d; c->mapped++) { /* a dispatch's name comes with its first event */
        c->dispatch[c->mapped] =
            tqh_debug_info_dispatch(info, c->profile->dispatch_names[c->mapped]);
        c->first_line[c->mapped] = e->line;
      }
      if (!c->dispatch[d] && !c->action_line[d] && is_action(e->kind)) c->action_line[d] = e->line;
      st = step(c, e, k ? &prev : NULL);
      prev = *e;
    }
    if (st || done) return st;
  }
}

/* The profile is read: the diagnostics in tqh_annotate_parsed's order (the profile's, the
 * source's, the missing dispatches', then the events' of run_streamed), and the end. */
static tq_status_t finish_streamed(ctx_t *c, const tqh_annotate_options_t *options,
                                   tqh_diags_t *diags) {
  tqh_annotation_t *ann = c->ann;
  tqh_diags_t events = ann->diags;
  ann->diags = *diags;
  tqh_diags_init_max(diags, diags->max_kept);
  check_source(c, options);
  tq_status_t st = copy_dispatch_names(c);
  for (size_t i = 0; !st && i < c->profile->num_dispatches; i++)
    if (!c->dispatch[i] && ann->debug_info && c->action_line[i])
      dispatch_missing(c, i, c->first_line[i]);
  tqh_diags_append(&ann->diags, &events);
  if (!st) finish_run(c);
  return st;
}

typedef struct reader_s {
  const char *path;
  tqh_diags_t *diags;
  tqh_profile_t *profile;
  tqh__profile_stream_t stream;
  tq_status_t status;
} reader_t;

static void *reader_main(void *arg) {
  reader_t *r = arg;
  r->status = tqh__profile_read_stream(r->path, r->diags, r->profile, &r->stream);
  return NULL;
}

/* A new annotation with `debug_info` (taken over: destroyed when there is no memory), and
 * `diags` moved into it (left empty). */
static tqh_annotation_t *new_annotation(tqh_debug_info_t *debug_info, tqh_diags_t *diags) {
  tqh_annotation_t *ann = tq_calloc(1, sizeof(*ann));
  if (!ann) {
    tqh_debug_info_destroy(debug_info);
    return NULL;
  }
  ann->debug_info = debug_info;
  ann->clock_hz = debug_info ? debug_info->clock_hz : 800000000u;
  if (diags) {
    ann->diags = *diags;
    tqh_diags_init_max(diags, diags->max_kept);
  } else {
    tqh_diags_init(&ann->diags);
  }
  ann->model_name = model_name_of(debug_info, debug_info ? debug_info->dir : NULL);
  if (!ann->model_name) {
    tqh_annotation_destroy(ann);
    return NULL;
  }
  return ann;
}

/* tqh_profile_read and tqh_annotate_parsed in one, the read on a thread (*profile is the
 * caller's to deinit). 1 when no thread could be started (nothing is done then). */
static int annotate_streamed(tqh_debug_info_t *info, tqh_diags_t *diags, const char *path,
                             const tqh_annotate_options_t *options, tqh_profile_t *profile,
                             tqh_annotation_t **out, tq_status_t *out_st) {
  tqh_profile_init(profile);
  reader_t *r = tq_calloc(1, sizeof(*r));
  if (!r) return 1;
  r->path = path;
  r->diags = diags;
  r->profile = profile;
  int ok = tqh__profile_stream_init(&r->stream);
  tqh_diags_t events;
  tqh_diags_init_max(&events, diags->max_kept);
  tqh_annotation_t *ann = NULL;
  ctx_t *c = ok ? tq_calloc(1, sizeof(*c)) : NULL;
  pthread_t thread;
  if (c && pthread_create(&thread, NULL, reader_main, r) != 0) {
    tq_free(c);
    c = NULL;
  }
  if (!c) {
    if (ok) tqh__profile_stream_deinit(&r->stream);
    tq_free(r);
    return 1;
  }
  g_streamed++;
  tq_status_t st = (ann = new_annotation(info, &events)) ? NULL : oom();
  if (!st) {
    c->ann = ann;
    c->profile = profile;
    c->path = path;
    st = run_streamed(c, &r->stream);
  }
  if (st) {
    pthread_mutex_lock(&r->stream.mu);
    r->stream.stop = 1;
    pthread_cond_signal(&r->stream.room);
    pthread_mutex_unlock(&r->stream.mu);
  }
  pthread_join(thread, NULL);
  tqh__profile_stream_deinit(&r->stream);
  if (st) tq_status_free(r->status);
  else st = r->status;
  if (!st) st = finish_streamed(c, options, diags);
  tq_free(c);
  tq_free(r);
  if (st) {
    tqh_annotation_destroy(ann);
    ann = NULL;
  }
  *out = ann;
  *out_st = st;
  return 0;
}

tq_status_t tqh_annotate_parsed(tqh_debug_info_t *debug_info, const tqh_profile_t *profile,
                                const tqh_annotate_options_t *options, tqh_diags_t *diags,
                                tqh_annotation_t **out) {
  *out = NULL;
  tqh_annotation_t *ann = new_annotation(debug_info, diags);
  if (!ann) return oom();
  ctx_t *c = tq_calloc(1, sizeof(*c));
  tq_status_t st = c ? NULL : oom();
  if (!st) {
    c->ann = ann;
    c->profile = profile;
    c->path = profile->path ? profile->path : "<profile>";
    st = run(c, options);
  }
  tq_free(c);
  if (st) {
    tqh_annotation_destroy(ann);
    return st;
  }
  *out = ann;
  return NULL;
}

/* The profile read and annotated with `info` (one holder, given to the annotation). */
static tq_status_t annotate_loaded(tqh_debug_info_t *info, tqh_diags_t *diags,
                                   const char *debug_dir, const char *profile_path,
                                   const tqh_annotate_options_t *options, tqh_annotation_t **out) {
  tqh_profile_t profile;
  tq_status_t st = NULL;
  struct stat sb;
  if (stat(profile_path, &sb) != 0 || !S_ISREG(sb.st_mode) ||
      (uintmax_t)sb.st_size < tqh__annotate_stream_min_bytes ||
      annotate_streamed(info, diags, profile_path, options, &profile, out, &st)) {
    st = tqh_profile_read(profile_path, diags, &profile);
    if (!st) st = tqh_annotate_parsed(info, &profile, options, diags, out);
    else tqh_debug_info_destroy(info);
  }
  tqh_profile_deinit(&profile);
  tqh_diags_deinit(diags);
  if (!st && *out && !(*out)->debug_info && (*out)->model_name && !*(*out)->model_name) {
    tq_free((*out)->model_name);
    (*out)->model_name = model_name_of(NULL, debug_dir);
    if (!(*out)->model_name) {
      tqh_annotation_destroy(*out);
      *out = NULL;
      return oom();
    }
  }
  return st;
}

tq_status_t tqh_annotate(const char *debug_dir, const char *profile_path,
                         const tqh_annotate_options_t *options, tqh_annotation_t **out) {
  *out = NULL;
  tqh_diags_t diags;
  tqh_diags_init(&diags);
  tqh_debug_info_t *info = NULL;
  tq_status_t st = tqh_debug_info_load(debug_dir, &diags, &info);
  if (st) {
    if (tq_status_code(st) == TQ_OUT_OF_MEMORY) {
      tqh_diags_deinit(&diags);
      return st;
    }
    char *msg = tq_status_format(st, 0);
    tq_status_free(st);
    /* "error: " is the formatter's; the diagnostic adds its own severity. */
    const char *m = msg ? msg : "cannot be read";
    if (strncmp(m, "error: ", 7) == 0) m += 7;
    tqh_diags_add(&diags, TQH_ERROR, debug_dir, 0, "no annotation from the debug info: %s", m);
    tq_free(msg);
  }
  return annotate_loaded(info, &diags, debug_dir, profile_path, options, out);
}

tq_status_t tqh_annotate_with(tqh_debug_info_t *debug_info, const char *profile_path,
                              const tqh_annotate_options_t *options, tqh_annotation_t **out) {
  *out = NULL;
  tqh_diags_t diags;
  tqh_diags_init(&diags);
  return annotate_loaded(tqh_debug_info_ref(debug_info), &diags,
                         debug_info ? debug_info->dir : NULL, profile_path, options, out);
}

void tqh_annotation_destroy(tqh_annotation_t *ann) {
  if (!ann) return;
  tqh_debug_info_destroy(ann->debug_info);
  tq_free(ann->model_name);
  tq_free(ann->rows);
  tq_free(ann->nss_runs);
  tq_free(ann->host_runs);
  tq_free(ann->hal_calls);
  tq_free(ann->phases);
  for (size_t i = 0; i < ann->num_dispatches; i++) tq_free(ann->dispatch_names[i]);
  tq_free(ann->dispatch_names);
  tqh_diags_deinit(&ann->diags);
  tq_free(ann);
}
