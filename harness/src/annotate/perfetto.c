/* Perfetto traces: the writer of annotated profiles and the checking reader (perfetto.h), with
 * protobuf-c and our own schema (harness/formats/perfetto_trace.proto). */
#include "torq/harness/files.h"
#include "torq/harness/perfetto.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "annotate_internal.h"
#include "perfetto_trace.pb-c.h"
#include "torq/base/alloc.h"
#include "torq/base/file.h"
#include "torq/harness/annotate.h"
#include "torq/harness/overview.h"
#include "torq/runtime/profile.h"


static tq_status_t oom(void) {
  return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory writing a Perfetto trace");
}

/* Slice names, built without printf (which cost as much as the encoding). Like snprintf into
 * `size` bytes: what does not fit is cut. */
typedef struct name_s {
  char text[192];
  size_t len, max;
} name_t;

static void name_start(name_t *n, size_t size) {
  n->len = 0;
  n->max = size - 1;
}

/* At most `limit` bytes of s (a printf precision). */
static void name_str(name_t *n, const char *s, size_t limit) {
  size_t k = strnlen(s, limit);
  if (k > n->max - n->len) k = n->max - n->len;
  memcpy(n->text + n->len, s, k);
  n->len += k;
}

static void name_u64(name_t *n, uint64_t v) {
  char d[20];
  size_t k = 0;
  do {
    d[k++] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  while (k && n->len < n->max) n->text[n->len++] = d[--k];
}

static void name_i64(name_t *n, int64_t v) {
  if (v < 0) name_str(n, "-", 1);
  name_u64(n, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v);
}

/* A slice named by `n`; `intern`: a name that repeats (an action's, a program's, an estimate's),
 * interned from its second use; names used once (phases, HAL calls: they hold their invocation)
 * stay inline. */
static tq_status_t named_slice(tqh__pf_writer_t *w, tqh__pf_track_t *track, uint64_t start_ns,
                               uint64_t end_ns, const name_t *n, int intern) {
  return tqh__pf_slice_n(w, track, start_ns, end_ns, n->text, n->len, NULL, intern);
}

/* ---- The annotation's trace ----------------------------------------------------------------- */

/* The overview's threads have uuids from here (the fixed tracks have 1 to T_COUNT). */
#define TQH__PF_OVERVIEW_UUID0 1000

enum {
  T_HOST,
  T_DISPATCH,
  T_NSS_PROGRAMS,
  T_HOST_PROGRAMS,
  T_HAL,
  T_NSS_ACTIONS,
  T_HOST_ACTIONS,
  T_HOST_COPY,
  T_ALLOC,
  T_NPU,
  T_UNIT0,                           /* + tqs_unit_t: the programs that use the unit */
  T_TASKS_EST = T_UNIT0 + TQS_UNIT_COUNT, /* the compiler's estimates */
  T_EST0,                            /* + tqs_unit_t */
  T_OVERVIEW = T_EST0 + TQS_UNIT_COUNT,
  T_COUNT
};

static const char *const track_names[T_COUNT] = {
    [T_HOST] = TQH_TRACK_HOST,
    [T_DISPATCH] = "Dispatch",
    [T_NSS_PROGRAMS] = "NSS Programs",
    [T_HOST_PROGRAMS] = "Host Programs",
    [T_HAL] = "HAL",
    [T_NSS_ACTIONS] = "NSS Actions",
    [T_HOST_ACTIONS] = "Host Actions",
    [T_HOST_COPY] = "Host Copy",
    [T_ALLOC] = "Alloc",
    [T_NPU] = TQH_TRACK_NPU,
    [T_UNIT0 + TQS_UNIT_DMA_IN] = "NDMA In",
    [T_UNIT0 + TQS_UNIT_DMA_OUT] = "NDMA Out",
    [T_UNIT0 + TQS_UNIT_CDMA] = "CDMA",
    [T_UNIT0 + TQS_UNIT_SLICE0] = "Slice 0",
    [T_UNIT0 + TQS_UNIT_SLICE1] = "Slice 1",
    [T_UNIT0 + TQS_UNIT_CSS] = "CSS",
    [T_TASKS_EST] = "NSS CFG Tasks" TQH_TRACK_COMPILE_SUFFIX,
    [T_EST0 + TQS_UNIT_DMA_IN] = "NDMA In" TQH_TRACK_COMPILE_SUFFIX,
    [T_EST0 + TQS_UNIT_DMA_OUT] = "NDMA Out" TQH_TRACK_COMPILE_SUFFIX,
    [T_EST0 + TQS_UNIT_CDMA] = "CDMA" TQH_TRACK_COMPILE_SUFFIX,
    [T_EST0 + TQS_UNIT_SLICE0] = "Slice 0" TQH_TRACK_COMPILE_SUFFIX,
    [T_EST0 + TQS_UNIT_SLICE1] = "Slice 1" TQH_TRACK_COMPILE_SUFFIX,
    [T_EST0 + TQS_UNIT_CSS] = "CSS" TQH_TRACK_COMPILE_SUFFIX,
    [T_OVERVIEW] = TQH_TRACK_OVERVIEW,
};

/* The unit tracks in the order people read a breakdown. */
static const tqs_unit_t unit_order[TQS_UNIT_COUNT] = {TQS_UNIT_DMA_IN, TQS_UNIT_DMA_OUT,
                                                      TQS_UNIT_CDMA,   TQS_UNIT_SLICE0,
                                                      TQS_UNIT_SLICE1, TQS_UNIT_CSS};

/* Descriptors in this order: each process, then its threads. */
static const int track_order[] = {
    T_HOST, T_DISPATCH, T_NSS_PROGRAMS, T_HOST_PROGRAMS, T_HAL, T_NSS_ACTIONS, T_HOST_ACTIONS,
    T_HOST_COPY, T_ALLOC, T_NPU,
    T_UNIT0 + TQS_UNIT_DMA_IN, T_UNIT0 + TQS_UNIT_DMA_OUT, T_UNIT0 + TQS_UNIT_CDMA,
    T_UNIT0 + TQS_UNIT_SLICE0, T_UNIT0 + TQS_UNIT_SLICE1, T_UNIT0 + TQS_UNIT_CSS, T_TASKS_EST,
    T_EST0 + TQS_UNIT_DMA_IN, T_EST0 + TQS_UNIT_DMA_OUT, T_EST0 + TQS_UNIT_CDMA,
    T_EST0 + TQS_UNIT_SLICE0, T_EST0 + TQS_UNIT_SLICE1, T_EST0 + TQS_UNIT_CSS, T_OVERVIEW};

static int parent_of(int t) {
  if (t == T_HOST || t == T_NPU || t == T_OVERVIEW) return -1;
  return t < T_NPU ? T_HOST : T_NPU;
}

static uint64_t cycles_ns(uint64_t cycles, uint64_t clock_hz) {
  return (uint64_t)(((unsigned __int128)cycles * 1000000000u + clock_hz / 2) / clock_hz);
}

/* The compiler's estimates of a program's tasks and units, on the (Compile) tracks, from the
 * moment the device could start it (the END of its NSS_START), as long as estimated: they are
 * what the compiler expected, not what the run measured, so they are never fitted into the
 * measured program. */
static tq_status_t write_estimates(tqh__pf_writer_t *w, tqh__pf_track_t *tr,
                                   const tqh_annotation_t *ann, const tqh_span_t *run) {
  const tqh_nss_program_t *p = run->program;
  if (!p) return NULL;
  uint64_t t0 = run->ready_us * 1000, hz = ann->clock_hz ? ann->clock_hz : 1;
  name_t name;
  for (size_t t = 0; t < p->num_tasks; t++) {
    const tqh_task_t *task = &p->tasks[t];
    name_start(&name, 160);
    name_str(&name, "job ", SIZE_MAX);
    name_u64(&name, p->job_id);
    name_str(&name, " task ", SIZE_MAX);
    name_u64(&name, t);
    TQ_TRY(named_slice(w, &tr[T_TASKS_EST], t0 + cycles_ns(task->start, hz),
                       t0 + cycles_ns(task->end, hz), &name, 1));
    for (size_t k = 0; k < task->num_work; k++) {
      const tqh_unit_work_t *u = &task->work[k];
      if ((unsigned)u->unit >= TQS_UNIT_COUNT) continue;
      name_start(&name, 160);
      name_str(&name, u->id, SIZE_MAX);
      if (*u->kernel && strcmp(u->kernel, tqs_unit_name(u->unit)) != 0) {
        name_str(&name, " ", SIZE_MAX);
        name_str(&name, u->kernel, SIZE_MAX);
      }
      TQ_TRY(named_slice(w, &tr[T_EST0 + u->unit], t0 + cycles_ns(u->start, hz),
                         t0 + cycles_ns(u->end, hz), &name, 1));
    }
  }
  return NULL;
}

/* "job 3: conv2d ...": the kind, the id, then at most 160 bytes of the program's name. */
static void program_name(name_t *n, const char *kind, const tqh_span_t *s) {
  name_start(n, sizeof(n->text));
  name_str(n, kind, SIZE_MAX);
  if (s->id >= 0) name_i64(n, s->id);
  else name_str(n, "?", SIZE_MAX);
  if (*s->name) {
    name_str(n, ": ", SIZE_MAX);
    name_str(n, s->name, 160);
  }
}

/* "HAL_QUEUE_WAIT __HAL_QUEUE_EXECUTE__ #7": the event type, its scope and invocation. */
static void hal_name(name_t *n, const tqh_annotation_t *ann, const tqh_span_t *s) {
  name_start(n, sizeof(n->text));
  name_str(n, s->name, SIZE_MAX);
  if (s->dispatch < ann->num_dispatches) {
    name_str(n, " ", SIZE_MAX);
    name_str(n, ann->dispatch_names[s->dispatch], 120);
  }
  name_str(n, " #", SIZE_MAX);
  name_u64(n, s->invocation_id);
}

/* The `Host Profile Overview` process: one thread per metric, in the order of the threads'
 * names (the Torq tools' 00 to 15, then ours), one slice each from the run's start. */
static tq_status_t write_overview(tqh__pf_writer_t *w, const tqh_overview_t *ov,
                                  uint64_t parent, uint64_t t0, tqh_overview_t *written) {
  size_t n;
  const tqh_metric_info_t *known = tqh_overview_metrics(&n);
  const tqh_metric_info_t *order[64];
  if (n > 64) n = 64;
  for (size_t i = 0; i < n; i++) {
    size_t k = i;
    while (k > 0 && strcmp(order[k - 1]->thread, known[i].thread) > 0) {
      order[k] = order[k - 1];
      k--;
    }
    order[k] = &known[i];
  }
  uint64_t overall = 0;
  tqh_overview_get(ov, TQH_METRIC_OVERALL, &overall);
  tq_buf_t name;
  tq_buf_init(&name, 0);
  tq_status_t st = NULL;
  for (size_t i = 0; !st && i < n; i++) {
    uint64_t ns;
    if (!tqh_overview_get(ov, order[i]->label, &ns)) continue;
    tqh__pf_track_t tr;
    st = tqh__pf_track(w, &tr, TQH__PF_OVERVIEW_UUID0 + i, parent, order[i]->thread);
    int with_percent = strcmp(order[i]->label, TQH_METRIC_OVERALL) != 0;
    if (!st) st = tqh_overview_slice_name(order[i]->trace_label, ns, overall, with_percent, &name);
    if (!st) st = tqh__pf_slice_cat(w, &tr, t0, t0 + ns, name.data, TQH_OVERVIEW_CATEGORY);
    /* Its thread's metric, and the one slice's length: what reading the trace gives. */
    if (!st && written) st = tqh_overview_add(written, order[i]->label, ns);
  }
  if (!st && written) tqh_overview_sort(written);
  tq_buf_deinit(&name);
  return st;
}

/* The invocations whose NSS programs get the compiler's estimates: the first `max` distinct
 * (dispatch, invocation) in the order their programs ended; a hash set of dispatch << 32 |
 * invocation + 1 (0: empty). */
typedef struct detail_s {
  size_t max, count, cap;
  uint64_t *keys;
  size_t omitted; /* program runs left without estimates */
} detail_t;

static tq_status_t detail_admits(detail_t *d, const tqh_span_t *s, int *out) {
  *out = 1;
  if (d->max == SIZE_MAX) return NULL;
  uint64_t key = ((uint64_t)s->dispatch << 32 | s->invocation_id) + 1;
  for (size_t k = d->cap ? (size_t)(key * 0x9E3779B97F4A7C15u) & (d->cap - 1) : 0; d->cap;
       k = (k + 1) & (d->cap - 1)) {
    if (d->keys[k] == key) return NULL;
    if (!d->keys[k]) break;
  }
  if (d->count == d->max) {
    *out = 0;
    d->omitted++;
    return NULL;
  }
  if (2 * (d->count + 1) > d->cap) {
    size_t cap = d->cap ? d->cap * 2 : 64;
    uint64_t *keys = tq_calloc(cap, sizeof(*keys));
    if (!keys) return oom();
    for (size_t i = 0; i < d->cap; i++) {
      if (!d->keys[i]) continue;
      size_t k = (size_t)(d->keys[i] * 0x9E3779B97F4A7C15u) & (cap - 1);
      while (keys[k]) k = (k + 1) & (cap - 1);
      keys[k] = d->keys[i];
    }
    tq_free(d->keys);
    d->keys = keys;
    d->cap = cap;
  }
  size_t k = (size_t)(key * 0x9E3779B97F4A7C15u) & (d->cap - 1);
  while (d->keys[k]) k = (k + 1) & (d->cap - 1);
  d->keys[k] = key;
  d->count++;
  return NULL;
}

/* The overview of an annotation with this many rows or more is worked out on a thread while the
 * slices are written (it is needed only at the end): a tenth of a million-event trace's time.
 * Below, a thread costs more than it saves. Tests set it. */
size_t tqh__overview_thread_rows = 65536;

typedef struct overview_job_s {
  const tqh_annotation_t *ann;
  tqh_overview_t ov;
  tq_status_t st;
} overview_job_t;

static void *overview_main(void *arg) {
  overview_job_t *job = arg;
  job->st = tqh_overview_compute(job->ann, &job->ov);
  return NULL;
}

static tq_status_t write_annotation(tqh__pf_writer_t *w, const tqh_annotation_t *ann,
                                    detail_t *detail, tqh_overview_t *written) {
  tqh__pf_track_t tr[T_COUNT];
  overview_job_t job = {ann, {0}, NULL};
  tqh_overview_init(&job.ov);
  pthread_t thread;
  int threaded = ann->num_rows >= tqh__overview_thread_rows &&
                 pthread_create(&thread, NULL, overview_main, &job) == 0;
  if (!threaded) job.st = tqh_overview_compute(ann, &job.ov);
  tq_status_t st = threaded ? NULL : job.st;
  for (size_t i = 0; !st && i < sizeof(track_order) / sizeof(track_order[0]); i++) {
    int t = track_order[i];
    int parent = parent_of(t);
    st = tqh__pf_track_ordered(w, &tr[t], (uint64_t)t + 1, parent < 0 ? 0 : (uint64_t)parent + 1,
                               track_names[t], parent < 0 ? TQH__PF_CHRONOLOGICAL : 0);
  }
  /* Host: phases, HAL calls, actions, programs. */
  name_t name;
  for (size_t i = 0; !st && i < ann->num_phases; i++) {
    const tqh_span_t *s = &ann->phases[i];
    name_start(&name, sizeof(name.text));
    name_str(&name, s->name, SIZE_MAX);
    name_str(&name, " #", SIZE_MAX);
    name_u64(&name, s->invocation_id);
    st = named_slice(w, &tr[T_DISPATCH], s->start_us * 1000, s->end_us * 1000, &name, 0);
  }
  for (size_t i = 0; !st && i < ann->num_hal_calls; i++) {
    const tqh_span_t *s = &ann->hal_calls[i];
    hal_name(&name, ann, s);
    st = named_slice(w, &tr[T_HAL], s->start_us * 1000, s->end_us * 1000, &name, 0);
  }
  for (size_t i = 0; !st && i < ann->num_rows; i++) {
    const tqh_row_t *r = &ann->rows[i];
    int t;
    switch (r->kind) {
      case TQR_EVENT_NSS_START:
      case TQR_EVENT_NSS_WAIT: t = T_NSS_ACTIONS; break;
      case TQR_EVENT_HOST_START:
      case TQR_EVENT_HOST_WAIT: t = T_HOST_ACTIONS; break;
      case TQR_EVENT_HOST_COPY: t = T_HOST_COPY; break;
      default: t = T_ALLOC; break;
    }
    name_start(&name, sizeof(name.text));
    name_str(&name, tqh_event_kind_name(r->kind), SIZE_MAX);
    name_str(&name, " ", SIZE_MAX);
    name_i64(&name, r->action_id);
    st = named_slice(w, &tr[t], r->start_us * 1000, r->end_us * 1000, &name, 1);
  }
  /* NSS programs: measured on the Host and on the NPU's tracks of the units they use; the
   * compiler's estimates on the (Compile) tracks. */
  for (size_t i = 0; !st && i < ann->num_nss_runs; i++) {
    const tqh_span_t *s = &ann->nss_runs[i];
    program_name(&name, "job ", s);
    st = named_slice(w, &tr[T_NSS_PROGRAMS], s->start_us * 1000, s->end_us * 1000, &name, 1);
    for (int u = 0; !st && u < TQS_UNIT_COUNT; u++)
      if (s->units & TQH_UNIT_BIT(unit_order[u]))
        st = named_slice(w, &tr[T_UNIT0 + unit_order[u]], s->start_us * 1000, s->end_us * 1000,
                         &name, 1);
    int drawn = 0;
    if (!st && s->program && s->program->num_tasks) st = detail_admits(detail, s, &drawn);
    if (!st && drawn) st = write_estimates(w, tr, ann, s);
  }
  for (size_t i = 0; !st && i < ann->num_host_runs; i++) {
    const tqh_span_t *s = &ann->host_runs[i];
    program_name(&name, "host ", s);
    st = named_slice(w, &tr[T_HOST_PROGRAMS], s->start_us * 1000, s->end_us * 1000, &name, 1);
  }
  if (threaded) {
    pthread_join(thread, NULL);
    if (!st) st = job.st;
    else tq_status_free(job.st);
  }
  const tqh_overview_t *ov = &job.ov;
  uint64_t t0 = ov->has_start ? ov->start_ns : ann->has_time ? ann->first_us * 1000 : 0;
  if (!st) st = write_overview(w, ov, (uint64_t)T_OVERVIEW + 1, t0, written);
  tqh_overview_deinit(&job.ov);
  return st;
}

void tqh_perfetto_options_initialize(tqh_perfetto_options_t *options) {
  memset(options, 0, sizeof(*options));
  options->max_detail_invocations = TQH_DEFAULT_MAX_DETAIL_INVOCATIONS;
}

tq_status_t tqh_annotation_write_perfetto(const tqh_annotation_t *ann, const char *path) {
  tqh_perfetto_options_t options;
  tqh_perfetto_options_initialize(&options);
  return tqh_annotation_write_perfetto_opt(ann, path, &options);
}

tq_status_t tqh_annotation_write_perfetto_opt(const tqh_annotation_t *ann, const char *path,
                                              tqh_perfetto_options_t *options) {
  detail_t detail = {options->max_detail_invocations, 0, 0, NULL, 0};
  options->omitted_detail_runs = 0;
  if (options->overview) tqh_overview_init(options->overview);
  tqh__pf_writer_t w;
  tqh__pf_init(&w);
  tq_status_t st = tqh_out_file_open(&w.file, path);
  if (st) {
    tqh__pf_deinit(&w);
    return st;
  }
  w.streaming = 1;
  /* streaming: every packet goes to w.file */
  st = write_annotation(&w, ann, &detail, options->overview);
  if (!st)
    st = tqh_out_file_commit(&w.file);
  else
    tqh_out_file_abort(&w.file);
  if (st && options->overview) tqh_overview_deinit(options->overview);
  tqh__pf_deinit(&w);
  tq_free(detail.keys);
  options->omitted_detail_runs = detail.omitted;
  return st;
}

/* ---- Reader --------------------------------------------------------------------------------- */

typedef struct open_slice_s {
  uint64_t start;
  char *name, *category;
} open_slice_t;

typedef struct track_state_s {
  uint64_t uuid;
  size_t index; /* into trace->tracks */
  open_slice_t *open;
  size_t num_open, cap_open;
} track_state_t;

static int by_uuid(const void *pa, const void *pb) {
  const track_state_t *a = pa, *b = pb;
  return (a->uuid > b->uuid) - (a->uuid < b->uuid);
}

static tq_status_t bad(const char *name, size_t packet, const char *fmt, ...) TQ_PRINTF(3, 4);
static tq_status_t bad(const char *name, size_t packet, const char *fmt, ...) {
  char what[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof(what), fmt, ap);
  va_end(ap);
  return TQ_STATUS(TQ_INVALID_INPUT, "%s: packet %zu: %s", name, packet, what);
}

static char *dup_str(const char *s) {
  const char *t = s ? s : "";
  return tq_strndup(t, strlen(t));
}

/* Interned names of the sequence (borrowed from the unpacked trace), indexed by iid. */
#define TQH_TRACE_MAX_IID ((uint64_t)1 << 24)
typedef struct interned_s {
  const char **names;
  size_t cap;
} interned_t;

static tq_status_t intern_define(interned_t *t, uint64_t iid, const char *name) {
  if (iid == 0 || iid >= TQH_TRACE_MAX_IID) return TQ_STATUS(TQ_INVALID_INPUT, "iid %" PRIu64, iid);
  if (iid >= t->cap) {
    size_t cap = t->cap ? t->cap : 64;
    while (cap <= iid) cap *= 2;
    const char **n = tq_realloc(t->names, cap * sizeof(*n));
    if (!n) return oom();
    memset(n + t->cap, 0, (cap - t->cap) * sizeof(*n));
    t->names = n;
    t->cap = cap;
  }
  t->names[iid] = name ? name : "";
  return NULL;
}

static const char *intern_find(const interned_t *t, uint64_t iid) {
  return iid < t->cap ? t->names[iid] : NULL;
}

/* The packet's interned data into the tables; a cleared sequence forgets what came before. */
static tq_status_t read_interned(const char *name, size_t i, const TqhPf__TracePacket *p,
                                 interned_t *names, interned_t *cats) {
  if (p->has_sequence_flags && (p->sequence_flags & 1)) {
    if (names->cap) memset(names->names, 0, names->cap * sizeof(*names->names));
    if (cats->cap) memset(cats->names, 0, cats->cap * sizeof(*cats->names));
  }
  const TqhPf__InternedData *d = p->interned_data;
  if (!d) return NULL;
  for (size_t k = 0; k < d->n_event_names + d->n_event_categories; k++) {
    int is_name = k < d->n_event_names;
    const TqhPf__EventName *en = is_name ? d->event_names[k] : NULL;
    const TqhPf__EventCategory *ec = is_name ? NULL : d->event_categories[k - d->n_event_names];
    uint64_t iid = is_name ? (en->has_iid ? en->iid : 0) : (ec->has_iid ? ec->iid : 0);
    tq_status_t st = intern_define(is_name ? names : cats, iid, is_name ? en->name : ec->name);
    if (st) {
      if (tq_status_code(st) == TQ_OUT_OF_MEMORY) return st;
      tq_status_free(st);
      return bad(name, i, "an interned %s with iid %" PRIu64 " (expected 1 to %" PRIu64 ")",
                 is_name ? "event name" : "category", iid, TQH_TRACE_MAX_IID - 1);
    }
  }
  return NULL;
}

/* One TrackEvent packet: a SLICE_BEGIN opens a slice on its track, a SLICE_END closes the last one
 * opened. Names and categories inline or by their iid. */
static tq_status_t read_event(const char *name, size_t i, const TqhPf__TracePacket *p,
                              tqh_trace_t *out, track_state_t *ts, const interned_t *names,
                              const interned_t *cats, size_t *cap_slices) {
  const TqhPf__TrackEvent *ev = p->track_event;
  if (!p->has_timestamp) return bad(name, i, "a track event without timestamp");
  if (!p->has_trusted_packet_sequence_id || p->trusted_packet_sequence_id != 1)
    return bad(name, i, "a track event not on trusted_packet_sequence_id 1");
  if (!ev->has_track_uuid) return bad(name, i, "a track event without track_uuid");
  track_state_t key = {.uuid = ev->track_uuid};
  track_state_t *t = bsearch(&key, ts, out->num_tracks, sizeof(*ts), by_uuid);
  if (!t) return bad(name, i, "an event on an undeclared track");
  if (ev->type == TQH_PF__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN) {
    out->begins++;
    if (t->num_open == t->cap_open) {
      size_t cap = t->cap_open ? t->cap_open * 2 : 8;
      open_slice_t *o = tq_realloc(t->open, cap * sizeof(*o));
      if (!o) return oom();
      t->open = o;
      t->cap_open = cap;
    }
    const char *nm = ev->name, *category = ev->n_categories ? ev->categories[0] : NULL;
    if (!nm && ev->has_name_iid && !(nm = intern_find(names, ev->name_iid)))
      return bad(name, i, "event name iid %" PRIu64 " that no packet before it defined",
                 ev->name_iid);
    if (!category && ev->n_category_iids &&
        !(category = intern_find(cats, ev->category_iids[0])))
      return bad(name, i, "category iid %" PRIu64 " that no packet before it defined",
                 ev->category_iids[0]);
    char *n = dup_str(nm);
    char *cat = category ? dup_str(category) : NULL;
    if (!n || (category && !cat)) {
      tq_free(n);
      tq_free(cat);
      return oom();
    }
    t->open[t->num_open++] = (open_slice_t){p->timestamp, n, cat};
  } else if (ev->type == TQH_PF__TRACK_EVENT__TYPE__TYPE_SLICE_END) {
    out->ends++;
    if (t->num_open == 0)
      return bad(name, i, "SLICE_END without SLICE_BEGIN on track '%s'",
                 out->tracks[t->index].name);
    open_slice_t o = t->open[--t->num_open];
    if (p->timestamp < o.start) {
      tq_free(o.name);
      tq_free(o.category);
      return bad(name, i, "a slice on track '%s' ends before it begins",
                 out->tracks[t->index].name);
    }
    if (out->num_slices == (*cap_slices)) {
      size_t cap = (*cap_slices) ? (*cap_slices) * 2 : 64;
      tqh_trace_slice_t *s = tq_realloc(out->slices, cap * sizeof(*s));
      if (!s) {
        tq_free(o.name);
        tq_free(o.category);
        return oom();
      }
      out->slices = s;
      (*cap_slices) = cap;
    }
    out->slices[out->num_slices++] =
        (tqh_trace_slice_t){t->uuid, o.start, p->timestamp, o.name, o.category};
  }
  return NULL;
}

static tq_status_t read_events(const char *name, const TqhPf__Trace *tr, tqh_trace_t *out,
                               track_state_t *ts) {
  size_t cap_slices = 0;
  interned_t names = {NULL, 0}, cats = {NULL, 0};
  tq_status_t st = NULL;
  for (size_t i = 0; !st && i < tr->n_packet; i++) {
    const TqhPf__TracePacket *p = tr->packet[i];
    st = read_interned(name, i, p, &names, &cats);
    if (!st && p->track_event) st = read_event(name, i, p, out, ts, &names, &cats, &cap_slices);
  }
  tq_free(names.names);
  tq_free(cats.names);
  if (st) return st;
  for (size_t k = 0; k < out->num_tracks; k++)
    if (ts[k].num_open)
      return TQ_STATUS(TQ_INVALID_INPUT, "%s: slice '%s' on track '%s' never ends (no SLICE_END)",
                       name, ts[k].open[ts[k].num_open - 1].name, out->tracks[ts[k].index].name);
  return NULL;
}

tq_status_t tqh_trace_parse(const char *name, const void *data, size_t len, tqh_trace_t *out) {
  memset(out, 0, sizeof(*out));
  TqhPf__Trace *tr = tqh_pf__trace__unpack(NULL, len, data);
  if (!tr)
    return TQ_STATUS(TQ_INVALID_INPUT, "%s: not a Perfetto trace, or truncated (protobuf unpack "
                     "failed)", name);
  out->packets = tr->n_packet;
  size_t ntracks = 0;
  for (size_t i = 0; i < tr->n_packet; i++) ntracks += tr->packet[i]->track_descriptor != NULL;
  tq_status_t st = NULL;
  track_state_t *ts = tq_calloc(ntracks ? ntracks : 1, sizeof(*ts));
  out->tracks = tq_calloc(ntracks ? ntracks : 1, sizeof(*out->tracks));
  if (!ts || !out->tracks) st = oom();
  for (size_t i = 0; !st && i < tr->n_packet; i++) {
    const TqhPf__TrackDescriptor *td = tr->packet[i]->track_descriptor;
    if (!td) continue;
    if (!td->has_uuid) {
      st = bad(name, i, "a track descriptor without uuid");
      break;
    }
    tqh_trace_track_t *t = &out->tracks[out->num_tracks];
    t->uuid = td->uuid;
    t->parent_uuid = td->has_parent_uuid ? td->parent_uuid : 0;
    t->name = dup_str(td->name);
    if (!t->name) st = oom();
    ts[out->num_tracks].uuid = td->uuid;
    ts[out->num_tracks].index = out->num_tracks;
    out->num_tracks++;
  }
  if (!st) {
    qsort(ts, out->num_tracks, sizeof(*ts), by_uuid);
    for (size_t k = 1; k < out->num_tracks && !st; k++)
      if (ts[k].uuid == ts[k - 1].uuid)
        st = TQ_STATUS(TQ_INVALID_INPUT, "%s: two track descriptors with uuid %" PRIu64, name,
                       ts[k].uuid);
  }
  if (!st) st = read_events(name, tr, out, ts);
  for (size_t k = 0; ts && k < out->num_tracks; k++) {
    for (size_t o = 0; o < ts[k].num_open; o++) {
      tq_free(ts[k].open[o].name);
      tq_free(ts[k].open[o].category);
    }
    tq_free(ts[k].open);
  }
  tq_free(ts);
  tqh_pf__trace__free_unpacked(tr, NULL);
  return st;
}

tq_status_t tqh_trace_read(const char *path, tqh_trace_t *out) {
  memset(out, 0, sizeof(*out));
  tq_buf_t buf;
  tq_status_t st = tq_file_read(path, TQH_TRACE_MAX_BYTES, &buf);
  if (!st) st = tqh_trace_parse(path, buf.data ? buf.data : "", buf.len, out);
  tq_buf_deinit(&buf);
  return st;
}

void tqh_trace_deinit(tqh_trace_t *trace) {
  for (size_t i = 0; i < trace->num_tracks; i++) tq_free(trace->tracks[i].name);
  for (size_t i = 0; i < trace->num_slices; i++) {
    tq_free(trace->slices[i].name);
    tq_free(trace->slices[i].category);
  }
  tq_free(trace->tracks);
  tq_free(trace->slices);
  memset(trace, 0, sizeof(*trace));
}

const tqh_trace_track_t *tqh_trace_find(const tqh_trace_t *trace, const char *name,
                                        uint64_t parent_uuid) {
  for (size_t i = 0; i < trace->num_tracks; i++)
    if (trace->tracks[i].parent_uuid == parent_uuid && strcmp(trace->tracks[i].name, name) == 0)
      return &trace->tracks[i];
  return NULL;
}
