/* Annotation: pairs the BEGIN and END rows of the runtime profile and joins every executed action
 * with the debug info (annotate.h). One pass over the events; actions run one after the other on
 * the host, so the set of open BEGINs stays tiny and is searched linearly (and capped, so that a
 * file of BEGINs without ENDs stays linear too). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "torq/base/alloc.h"
#include "torq/harness/annotate.h"
#include "torq/runtime/profile.h"

/* Open BEGINs kept at most; past it the oldest is reported as a BEGIN without END. */
#define TQH_MAX_OPEN 256

typedef struct open_s {
  const tqh_profile_event_t *begin;
} open_t;

/* Per dispatch name of the profile: its debug info and the programs started but not waited. */
typedef struct dstate_s {
  const tqh_dispatch_t *d; /* NULL when the debug info does not know the dispatch */
  uint64_t *nss_start;     /* END of NSS_START per job, valid when nss_started */
  uint8_t *nss_started;
  uint64_t *host_start;
  uint8_t *host_started;
} dstate_t;

typedef struct ctx_s {
  tqh_annotation_t *ann;
  const tqh_profile_t *profile;
  const char *path;
  dstate_t ds[TQH_PROFILE_MAX_DISPATCHES];
  open_t open[TQH_MAX_OPEN];
  size_t num_open;
  /* The NSS runs one program at a time, and the host one host program: a program starts at the
   * END of its START, or when the one before it ended, whichever is later. */
  uint64_t nss_free_at, host_free_at;
} ctx_t;

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
      void *p_ = tq_realloc((arr), ncap_ * sizeof(*(arr)));                                       \
      if (!p_) return oom();                                                                      \
      (arr) = p_;                                                                                 \
      (cap) = ncap_;                                                                              \
    }                                                                                             \
  } while (0)

static int is_phase(uint8_t kind) {
  return kind == TQR_EVENT_INIT || kind == TQR_EVENT_DISPATCH;
}

static tq_status_t add_span(ctx_t *c, tqh_span_t **arr, size_t *count, size_t *cap,
                            const tqh_span_t *s) {
  GROW(*arr, *count, *cap);
  (*arr)[(*count)++] = *s;
  return NULL;
}

/* Makes the row of an action that began at `b` and ended at `end_us` (an END or an ERROR). */
static tq_status_t finish_action(ctx_t *c, const tqh_profile_event_t *b, uint64_t end_us) {
  tqh_annotation_t *ann = c->ann;
  dstate_t *ds = &c->ds[b->dispatch];
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
  const tqh_dispatch_t *d = ds->d;
  if (d && (size_t)b->action_id < d->num_actions && d->actions[b->action_id].present) {
    const tqh_action_t *a = &d->actions[b->action_id];
    if (a->kind != b->kind) {
      tqh_diags_add(&ann->diags, TQH_ERROR, c->path, b->line,
                    "action %d is %s in the debug info, but the profile has %s: the debug info "
                    "is stale or of another model (compile again with --torq-debug-info)",
                    (int)b->action_id, tqh_event_kind_name(a->kind), tqh_event_kind_name(b->kind));
    } else {
      r.location = a->location;
      r.original_operators = a->original_operators;
      if (a->job_id >= 0) {
        r.job_id = a->job_id;
        if ((size_t)a->job_id < d->num_programs && d->programs[a->job_id].present) {
          const tqh_nss_program_t *p = &d->programs[a->job_id];
          r.units = p->units;
          r.invocation_names = p->kernels;
        }
      } else if (a->host_program_id >= 0 && (size_t)a->host_program_id < d->num_host_programs &&
                 d->host_programs[a->host_program_id].present) {
        r.invocation_names = d->host_programs[a->host_program_id].op;
      }
      /* Program slots. */
      if (a->job_id >= 0 && (size_t)a->job_id < d->num_programs) {
        size_t j = (size_t)a->job_id;
        if (a->kind == TQR_EVENT_NSS_START) {
          ds->nss_start[j] = end_us;
          ds->nss_started[j] = 1;
        } else if (a->kind == TQR_EVENT_NSS_WAIT && ds->nss_started[j]) {
          ds->nss_started[j] = 0;
          const tqh_nss_program_t *p = d->programs[j].present ? &d->programs[j] : NULL;
          uint64_t start = ds->nss_start[j] > c->nss_free_at ? ds->nss_start[j] : c->nss_free_at;
          c->nss_free_at = end_us;
          tqh_span_t s = {start < end_us ? start : end_us, end_us,
                          b->invocation_id, a->job_id, TQR_EVENT_NSS_WAIT, p ? p->units : 0, p,
                          p ? p->kernels : ""};
          TQ_TRY(add_span(c, &ann->nss_runs, &ann->num_nss_runs, &ann->cap_nss, &s));
        }
      } else if (a->host_program_id >= 0 && (size_t)a->host_program_id < d->num_host_programs) {
        size_t h = (size_t)a->host_program_id;
        if (a->kind == TQR_EVENT_HOST_START) {
          ds->host_start[h] = end_us;
          ds->host_started[h] = 1;
        } else if (a->kind == TQR_EVENT_HOST_WAIT && ds->host_started[h]) {
          ds->host_started[h] = 0;
          uint64_t start =
              ds->host_start[h] > c->host_free_at ? ds->host_start[h] : c->host_free_at;
          c->host_free_at = end_us;
          tqh_span_t s = {start < end_us ? start : end_us, end_us,
                          b->invocation_id, a->host_program_id, TQR_EVENT_HOST_WAIT, 0, NULL,
                          d->host_programs[h].present ? d->host_programs[h].op : ""};
          TQ_TRY(add_span(c, &ann->host_runs, &ann->num_host_runs, &ann->cap_host, &s));
        }
      }
    }
  } else if (d) {
    tqh_diags_add(&ann->diags, TQH_ERROR, c->path, b->line,
                  "action_id %d is not in the debug info (dispatch %s has %zu actions): the debug "
                  "info is stale or of another model (compile again with --torq-debug-info)",
                  (int)b->action_id, d->name, d->num_actions);
  }
  GROW(ann->rows, ann->num_rows, ann->cap_rows);
  ann->rows[ann->num_rows++] = r;
  return NULL;
}

static tq_status_t finish_phase(ctx_t *c, const tqh_profile_event_t *b, uint64_t end_us) {
  tqh_span_t s = {b->timestamp_us, end_us, b->invocation_id, -1, b->kind, 0, NULL,
                  tqh_event_kind_name(b->kind)};
  return add_span(c, &c->ann->phases, &c->ann->num_phases, &c->ann->cap_phases, &s);
}

static void drop_open(ctx_t *c, size_t i) {
  memmove(&c->open[i], &c->open[i + 1], (c->num_open - i - 1) * sizeof(c->open[0]));
  c->num_open--;
}

static void report_unclosed(ctx_t *c, const tqh_profile_event_t *b, const char *why) {
  char name[32];
  tqh_event_name(b->kind, TQR_EDGE_BEGIN, name);
  if (b->action_id >= 0)
    tqh_diags_add(&c->ann->diags, TQH_ERROR, c->path, b->line,
                  "%s of action %d has no %s_END (%s); no row for it", name, (int)b->action_id,
                  tqh_event_kind_name(b->kind), why);
  else
    tqh_diags_add(&c->ann->diags, TQH_ERROR, c->path, b->line, "%s has no %s_END (%s)", name,
                  tqh_event_kind_name(b->kind), why);
}

static int same_key(const tqh_profile_event_t *a, const tqh_profile_event_t *b) {
  if (a->dispatch != b->dispatch || a->action_id != b->action_id) return 0;
  return a->action_id >= 0 || a->kind == b->kind;
}

static tq_status_t on_event(ctx_t *c, const tqh_profile_event_t *e) {
  tqh_annotation_t *ann = c->ann;
  if (e->edge == TQR_EDGE_BEGIN) {
    for (size_t i = 0; i < c->num_open; i++) {
      if (!same_key(c->open[i].begin, e)) continue;
      char name[32];
      tqh_event_name(e->kind, TQR_EDGE_BEGIN, name);
      if (e->action_id >= 0)
        tqh_diags_add(&ann->diags, TQH_ERROR, c->path, c->open[i].begin->line,
                      "%s of action %d has no END before it begins again at line %u", name,
                      (int)e->action_id, (unsigned)e->line);
      else
        tqh_diags_add(&ann->diags, TQH_ERROR, c->path, c->open[i].begin->line,
                      "%s has no END before it begins again at line %u", name, (unsigned)e->line);
      drop_open(c, i);
      break;
    }
    if (c->num_open == TQH_MAX_OPEN) {
      report_unclosed(c, c->open[0].begin, "too many actions open at once");
      drop_open(c, 0);
    }
    c->open[c->num_open++].begin = e;
    return NULL;
  }
  if (e->edge == TQR_EDGE_END) {
    size_t i = c->num_open;
    while (i-- > 0)
      if (same_key(c->open[i].begin, e)) break;
    char name[32]; /* for diagnostics only: formatting it for every row cost a few percent */
    if (i == (size_t)-1) {
      tqh_event_name(e->kind, TQR_EDGE_END, name);
      if (e->action_id >= 0)
        tqh_diags_add(&ann->diags, TQH_ERROR, c->path, e->line,
                      "%s of action %d without a BEGIN; row skipped", name, (int)e->action_id);
      else
        tqh_diags_add(&ann->diags, TQH_ERROR, c->path, e->line, "%s without a BEGIN", name);
      return NULL;
    }
    const tqh_profile_event_t *b = c->open[i].begin;
    drop_open(c, i);
    if (b->kind != e->kind) {
      char bname[32];
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
    return is_phase(e->kind) ? finish_phase(c, b, e->timestamp_us)
                             : finish_action(c, b, e->timestamp_us);
  }
  /* ERROR: the run failed; the failing action (if any) and the open phases end here. */
  if (e->action_id >= 0)
    tqh_diags_add(&ann->diags, TQH_WARNING, c->path, e->line,
                  "the run failed in action %d (ERROR row)", (int)e->action_id);
  else
    tqh_diags_add(&ann->diags, TQH_WARNING, c->path, e->line,
                  "the run failed outside an action (ERROR row)");
  for (size_t i = 0; i < c->num_open;) {
    const tqh_profile_event_t *b = c->open[i].begin;
    if (b->dispatch != e->dispatch || b->invocation_id != e->invocation_id) {
      i++;
      continue;
    }
    drop_open(c, i);
    uint64_t end = e->timestamp_us < b->timestamp_us ? b->timestamp_us : e->timestamp_us;
    if (is_phase(b->kind))
      TQ_TRY(finish_phase(c, b, end));
    else if (b->action_id == e->action_id)
      TQ_TRY(finish_action(c, b, end));
    else
      report_unclosed(c, b, "the run failed before it ended");
  }
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

static tq_status_t run(ctx_t *c, const tqh_annotate_options_t *options) {
  tqh_annotation_t *ann = c->ann;
  const tqh_profile_t *p = c->profile;
  const tqh_debug_info_t *info = ann->debug_info;
  if (info && options && options->expected_source_sha256 &&
      strcmp(options->expected_source_sha256, info->source_sha256) != 0)
    tqh_diags_add(&ann->diags, TQH_ERROR, info->dir, 0,
                  "the debug info is of another model (source sha256 %s, expected %s)",
                  info->source_sha256, options->expected_source_sha256);
  /* Map the profile's dispatch names to the debug info's. */
  for (size_t i = 0; i < p->num_dispatches; i++) {
    dstate_t *ds = &c->ds[i];
    ds->d = tqh_debug_info_dispatch(info, p->dispatch_names[i]);
    if (!ds->d && info) {
      uint32_t line = 0;
      for (size_t k = 0; k < p->count && !line; k++)
        if (p->events[k].dispatch == i) line = p->events[k].line;
      tqh_diags_add(&ann->diags, TQH_ERROR, c->path, line,
                    "dispatch '%s' is not in the debug info %s (which has '%s'): the debug info "
                    "is of another model",
                    p->dispatch_names[i], info->dir,
                    info->num_dispatches ? info->dispatches[0].name : "");
    }
    if (ds->d) {
      size_t np = ds->d->num_programs ? ds->d->num_programs : 1;
      size_t nh = ds->d->num_host_programs ? ds->d->num_host_programs : 1;
      ds->nss_start = tq_calloc(np, sizeof(uint64_t));
      ds->nss_started = tq_calloc(np, 1);
      ds->host_start = tq_calloc(nh, sizeof(uint64_t));
      ds->host_started = tq_calloc(nh, 1);
      if (!ds->nss_start || !ds->nss_started || !ds->host_start || !ds->host_started) return oom();
    }
  }
  uint32_t cur_inv = 0;
  for (size_t k = 0; k < p->count; k++) {
    const tqh_profile_event_t *e = &p->events[k];
    if (k == 0) {
      ann->first_us = ann->last_us = e->timestamp_us;
      ann->has_time = 1;
    } else {
      const tqh_profile_event_t *prev = &p->events[k - 1];
      if (e->timestamp_us < prev->timestamp_us)
        tqh_diags_add(&ann->diags, TQH_ERROR, c->path, e->line,
                      "timestamp %" PRIu64 " us goes backwards (line %u has %" PRIu64 " us)",
                      e->timestamp_us, (unsigned)prev->line, prev->timestamp_us);
      if (e->timestamp_us < ann->first_us) ann->first_us = e->timestamp_us;
      if (e->timestamp_us > ann->last_us) ann->last_us = e->timestamp_us;
    }
    /* A new invocation: what the previous one left open never ends. */
    if (k > 0 && e->invocation_id != cur_inv) {
      for (size_t i = 0; i < c->num_open;) {
        if (c->open[i].begin->invocation_id == cur_inv) {
          report_unclosed(c, c->open[i].begin, "its invocation ended");
          drop_open(c, i);
        } else {
          i++;
        }
      }
    }
    cur_inv = e->invocation_id;
    TQ_TRY(on_event(c, e));
  }
  for (size_t i = 0; i < c->num_open; i++)
    report_unclosed(c, c->open[i].begin, "the profile ends first");
  c->num_open = 0;
  for (size_t i = 1; i < ann->num_rows; i++)
    if (ann->rows[i].line < ann->rows[i - 1].line) {
      qsort(ann->rows, ann->num_rows, sizeof(*ann->rows), by_line);
      break;
    }
  return NULL;
}

tq_status_t tqh_annotate_parsed(tqh_debug_info_t *debug_info, const tqh_profile_t *profile,
                                const tqh_annotate_options_t *options, tqh_diags_t *diags,
                                tqh_annotation_t **out) {
  *out = NULL;
  tqh_annotation_t *ann = tq_calloc(1, sizeof(*ann));
  if (!ann) {
    tqh_debug_info_destroy(debug_info);
    return oom();
  }
  ann->debug_info = debug_info;
  ann->clock_hz = debug_info ? debug_info->clock_hz : 800000000u;
  if (diags) {
    ann->diags = *diags;
    tqh_diags_init(diags);
  } else {
    tqh_diags_init(&ann->diags);
  }
  ann->model_name = model_name_of(debug_info, debug_info ? debug_info->dir : NULL);
  ctx_t *c = tq_calloc(1, sizeof(*c));
  tq_status_t st = c && ann->model_name ? NULL : oom();
  if (!st) {
    c->ann = ann;
    c->profile = profile;
    c->path = profile->path ? profile->path : "<profile>";
    st = run(c, options);
  }
  for (size_t i = 0; c && i < TQH_PROFILE_MAX_DISPATCHES; i++) {
    tq_free(c->ds[i].nss_start);
    tq_free(c->ds[i].nss_started);
    tq_free(c->ds[i].host_start);
    tq_free(c->ds[i].host_started);
  }
  tq_free(c);
  if (st) {
    tqh_annotation_destroy(ann);
    return st;
  }
  *out = ann;
  return NULL;
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
  tqh_profile_t profile;
  st = tqh_profile_read(profile_path, &diags, &profile);
  if (!st) st = tqh_annotate_parsed(info, &profile, options, &diags, out);
  else tqh_debug_info_destroy(info);
  tqh_profile_deinit(&profile);
  tqh_diags_deinit(&diags);
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

void tqh_annotation_destroy(tqh_annotation_t *ann) {
  if (!ann) return;
  tqh_debug_info_destroy(ann->debug_info);
  tq_free(ann->model_name);
  tq_free(ann->rows);
  tq_free(ann->nss_runs);
  tq_free(ann->host_runs);
  tq_free(ann->phases);
  tqh_diags_deinit(&ann->diags);
  tq_free(ann);
}
