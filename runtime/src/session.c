/* Sessions: input binding, the action list on a device, outputs, and the simulated clock of
 * session.h. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "runtime_internal.h"
#include "torq/base/alloc.h"
#include "torq/base/checked.h"
#include "torq/runtime/session.h"

struct tqr_session_s {
  const tqr_module_t *module;
  const Torq__Module *proto;
  tqr_device_t *device;
  tqr_profile_t *profile;
  int real_time;
  tqs_xram_buffer_t *xram; /* per buffer id; bases own their data (inputs for the session's life) */
  /* A released buffer's storage, per base id, for its next ALLOC: every invocation runs the same
   * actions, so without this each one would ask malloc for its buffers again, and fresh pages cost
   * a fault per 4 KiB (most of a 512 KiB add's run without a profile). What is kept never
   * exceeds the most the session had allocated at once. */
  uint8_t **kept;
  size_t kept_bytes, live_bytes, peak_bytes;
  uint64_t now_ns; /* the simulated clock */
  uint64_t nss_free_ns, host_free_ns;
  uint64_t *job_ready_ns;   /* per NSS program: when its START action ended */
  tqr_nss_result_t *jobs;   /* per NSS program: what its last run reported */
  uint64_t *host_ready_ns;  /* per host program */
  uint32_t invocation;      /* of INIT, then of the dispatch run going on or last run */
  uint32_t next_invocation; /* without a profile, the session counts them itself */
  tqr_session_stats_t stats;
  tqr__host_scratch_t scratch;
};

/* Events one INIT or one dispatch run records at most: the phases (INIT and its four parts, or
 * DISPATCH and its three), two per action, an ERROR. */
#define TQR__SESSION_EVENTS(actions) (2 * (size_t)(actions) + 16)

void tqr_session_options_initialize(tqr_session_options_t *options) {
  memset(options, 0, sizeof(*options));
}

static uint64_t max_u64(uint64_t a, uint64_t b) {
  return a > b ? a : b;
}

static uint64_t cycles_to_ns(uint64_t cycles, uint64_t clock_hz) {
  unsigned __int128 ns = (unsigned __int128)cycles * 1000000000u;
  ns = ns / clock_hz + (ns % clock_hz != 0);
  return ns > UINT64_MAX ? UINT64_MAX : (uint64_t)ns;
}

/* The timestamp of an event happening now. */
static uint64_t stamp(const tqr_session_t *s) {
  if (!s->real_time) return s->now_ns;
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The next invocation id: the profile's (shared by the sessions of a process), else our own. */
static uint32_t take_invocation(tqr_session_t *s) {
  return s->profile ? tqr_profile_next_invocation(s->profile) : s->next_invocation++;
}

static void record(tqr_session_t *s, tqr_event_kind_t kind, tqr_event_edge_t edge,
                   int32_t action_id) {
  if (!s->profile) return;
  tqr_event_t e = {.dispatch = s->module->dispatch_name,
                   .timestamp_ns = stamp(s),
                   .invocation_id = s->invocation,
                   .action_id = action_id,
                   .kind = (uint8_t)kind,
                   .edge = (uint8_t)edge};
  tqr_profile_record(s->profile, &e);
}

/* Flushes the profile; a flush error replaces a NULL `st` or is added to it as context. */
static tq_status_t flush(tqr_session_t *s, tq_status_t st) {
  if (!s->profile) return st;
  tq_status_t fst = tqr_profile_flush(s->profile);
  if (!fst) return st;
  if (!st) return fst;
  st = tq_status_annotate(st, "and the profile could not be written: %s", tq_status_message(fst));
  tq_status_free(fst);
  return st;
}

/* Points the views of base `b` into its storage (or at nothing). */
static void update_views(tqr_session_t *s, uint32_t b) {
  for (int32_t v = s->module->buffers[b].next_view; v >= 0; v = s->module->buffers[v].next_view) {
    s->xram[v].data = s->xram[b].data ? s->xram[b].data + s->module->buffers[v].offset : NULL;
    s->xram[v].size = (size_t)s->module->buffers[v].size;
  }
}

static void phase(tqr_session_t *s, tqr_event_kind_t kind, tqr_event_edge_t edge) {
  record(s, kind, edge, -1);
}

/* Storage for ALLOC of base `b` (`size` bytes): what its last DEALLOC left, else new; holding
 * `contents`, or zeros without them. */
static uint8_t *take_buffer(tqr_session_t *s, uint32_t b, size_t size, const uint8_t *contents) {
  uint8_t *data = s->kept[b];
  if (data) {
    s->kept[b] = NULL;
    s->kept_bytes -= size;
    if (!contents) memset(data, 0, size);
  } else {
    data = contents ? tq_malloc(size) : tq_calloc(size, 1); /* both give a byte for size 0 */
    if (!data) return NULL;
  }
  if (contents && size) memcpy(data, contents, size);
  s->live_bytes += size;
  if (s->live_bytes > s->peak_bytes) s->peak_bytes = s->live_bytes;
  return data;
}

static void release_buffer(tqr_session_t *s, uint32_t b) {
  if (!s->xram[b].data) return;
  size_t size = s->xram[b].size;
  s->live_bytes -= size;
  if (!s->kept[b] && s->kept_bytes + size <= s->peak_bytes) {
    s->kept[b] = s->xram[b].data;
    s->kept_bytes += size;
  } else {
    tq_free(s->xram[b].data);
  }
  s->xram[b].data = NULL;
  update_views(s, b);
}

/* Frees every allocated buffer but the inputs. */
static void release_all(tqr_session_t *s) {
  for (size_t b = 0; b < s->proto->n_buffers; b++) {
    const tqr__buffer_t *info = &s->module->buffers[b];
    if (info->base == b && info->input < 0 && s->xram[b].data) release_buffer(s, (uint32_t)b);
  }
}

tq_status_t tqr_session_create(const tqr_module_t *module, tqr_device_t *device,
                               const tqr_session_options_t *options, tqr_session_t **out_session) {
  *out_session = NULL;
  if (!module || !device || !device->vtable)
    return TQ_STATUS(TQ_INVALID_ARGUMENT, "a session needs a module and a device");
  tqr_session_t *s = tq_calloc(1, sizeof(*s));
  if (!s) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory for a session");
  s->module = module;
  s->proto = module->proto;
  s->device = device;
  s->profile = options ? options->profile : NULL;
  s->real_time = (device->flags & TQR_DEVICE_REAL_TIME) != 0;
  const Torq__Module *p = s->proto;
  tq_status_t st = NULL;
  if (s->profile) {
    st = tqr_profile_reserve(s->profile, TQR__SESSION_EVENTS(p->n_actions));
    if (st) {
      tq_free(s);
      return st;
    }
  }
  s->invocation = take_invocation(s);
  phase(s, TQR_EVENT_INIT, TQR_EDGE_BEGIN);
  /* What XRAM the module needs: the session's table of its buffers. */
  phase(s, TQR_EVENT_INIT_COMPUTE_XRAM_FOOTPRINT, TQR_EDGE_BEGIN);
  s->xram = tq_calloc(p->n_buffers ? p->n_buffers : 1, sizeof(*s->xram));
  s->job_ready_ns = tq_calloc(p->n_nss_programs ? p->n_nss_programs : 1, sizeof(uint64_t));
  s->jobs = tq_calloc(p->n_nss_programs ? p->n_nss_programs : 1, sizeof(*s->jobs));
  s->host_ready_ns = tq_calloc(p->n_host_programs ? p->n_host_programs : 1, sizeof(uint64_t));
  s->kept = tq_calloc(p->n_buffers ? p->n_buffers : 1, sizeof(*s->kept));
  if (!s->xram || !s->job_ready_ns || !s->jobs || !s->host_ready_ns || !s->kept)
    st = TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory for a session");
  if (!st) phase(s, TQR_EVENT_INIT_COMPUTE_XRAM_FOOTPRINT, TQR_EDGE_END);
  /* The input buffers, zero-filled. */
  if (!st) phase(s, TQR_EVENT_INIT_CLEAR_MEMORY, TQR_EDGE_BEGIN);
  for (size_t b = 0; b < p->n_buffers && !st; b++) {
    if (module->buffers[b].input < 0) continue;
    size_t size = (size_t)module->buffers[b].size;
    s->xram[b].data = tq_calloc(size ? size : 1, 1);
    s->xram[b].size = size;
    if (!s->xram[b].data)
      st = TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory for input buffer %zu (%zu bytes)", b, size);
    else
      update_views(s, (uint32_t)b);
  }
  if (!st) phase(s, TQR_EVENT_INIT_CLEAR_MEMORY, TQR_EDGE_END);
  /* The device, for this module: where the INIT time goes. */
  if (!st) {
    phase(s, TQR_EVENT_INIT_HW_OPEN, TQR_EDGE_BEGIN);
    st = tqr_device_prepare(device, module);
  }
  if (!st) {
    s->now_ns = tq_u64_add_sat(s->now_ns, TQR_SIM_INIT_NS);
    phase(s, TQR_EVENT_INIT_HW_OPEN, TQR_EDGE_END);
    /* The host programs' working memory (they run on the reference kernels). */
    phase(s, TQR_EVENT_INIT_LOAD_HOST_CODE, TQR_EDGE_BEGIN);
    st = tqr__host_scratch_init(&s->scratch, module->max_host_tensors);
  }
  if (st) {
    record(s, TQR_EVENT_ERROR, TQR_EDGE_POINT, -1);
    st = flush(s, st);
    tqr_session_destroy(s);
    return st;
  }
  phase(s, TQR_EVENT_INIT_LOAD_HOST_CODE, TQR_EDGE_END);
  phase(s, TQR_EVENT_INIT, TQR_EDGE_END);
  st = flush(s, NULL);
  if (st) {
    tqr_session_destroy(s);
    return st;
  }
  *out_session = s;
  return NULL;
}

void tqr_session_destroy(tqr_session_t *session) {
  if (!session) return;
  for (size_t b = 0; b < session->proto->n_buffers; b++) {
    if (session->xram && session->module->buffers[b].base == b) tq_free(session->xram[b].data);
    if (session->kept) tq_free(session->kept[b]);
  }
  tq_free(session->kept);
  tq_free(session->xram);
  tq_free(session->job_ready_ns);
  tq_free(session->jobs);
  tq_free(session->host_ready_ns);
  tqr__host_scratch_deinit(&session->scratch);
  tq_free(session);
}

void tqr_session_stats(const tqr_session_t *session, tqr_session_stats_t *out_stats) {
  *out_stats = session->stats;
  out_stats->time_ns = session->real_time ? 0 : session->now_ns;
}

uint64_t tqr_session_job_cycles(const tqr_session_t *session, uint32_t job_id) {
  if (!session || job_id >= session->proto->n_nss_programs) return 0;
  return session->jobs[job_id].cycles;
}

int tqr_session_job_result(const tqr_session_t *session, uint32_t job_id,
                           tqr_nss_result_t *out_result) {
  memset(out_result, 0, sizeof(*out_result));
  if (!session || job_id >= session->proto->n_nss_programs || !session->jobs[job_id].cycles)
    return 0;
  *out_result = session->jobs[job_id];
  return 1;
}

/* ---- Binding -------------------------------------------------------------------------------- */

static void describe(Torq__ElementType type, size_t rank, const int64_t *dims, char *out,
                     size_t cap) {
  size_t n = 0;
  out[0] = 0;
  for (size_t i = 0; i < rank && n < cap; i++)
    n += (size_t)snprintf(out + n, cap - n, "%" PRId64 "x", dims[i]);
  if (n < cap) snprintf(out + n, cap - n, "%s", tqf_element_name(type));
}

static tq_status_t check_inputs(tqr_session_t *s, const tqr_tensor_t *const *inputs, size_t n) {
  const Torq__Function *fn = s->proto->function;
  if (n != fn->n_inputs)
    return TQ_STATUS(TQ_INVALID_ARGUMENT, "function %s takes %zu inputs, %zu given", fn->name,
                     fn->n_inputs, n);
  for (size_t i = 0; i < n; i++) {
    const Torq__TensorType *t = fn->inputs[i];
    const tqr_tensor_t *in = inputs[i];
    int same = in && in->type == t->element_type && in->rank == t->n_dims;
    for (size_t d = 0; same && d < in->rank; d++) same = in->dims[d] == t->dims[d];
    if (!same) {
      char want[160], got[160];
      describe(t->element_type, t->n_dims, t->dims, want, sizeof(want));
      if (in)
        describe(in->type, in->rank, in->dims, got, sizeof(got));
      else
        snprintf(got, sizeof(got), "nothing");
      return TQ_STATUS(TQ_INVALID_ARGUMENT, "input %zu of function %s: expected %s, given %s", i,
                       fn->name, want, got);
    }
  }
  return NULL;
}

/* Copies the bound inputs into their XRAM buffers (checked by check_inputs). */
static void copy_inputs(tqr_session_t *s, const tqr_tensor_t *const *inputs, size_t n) {
  const Torq__Function *fn = s->proto->function;
  for (size_t i = 0; i < n; i++) {
    uint32_t b = fn->input_buffers[i];
    if (inputs[i]->size) memcpy(s->xram[b].data, inputs[i]->data, inputs[i]->size);
  }
}

/* ---- Actions -------------------------------------------------------------------------------- */

static tq_status_t run_action(tqr_session_t *s, const Torq__Action *a) {
  const tqr_module_t *m = s->module;
  const Torq__Module *p = s->proto;
  uint64_t t = s->now_ns;
  uint64_t cost = TQR_SIM_ACTION_NS;
  switch (a->kind) {
    case TORQ__ACTION_KIND__ALLOC: {
      uint32_t b = a->buffer_id;
      size_t size = (size_t)m->buffers[b].size;
      if (s->xram[b].data)
        return TQ_STATUS(TQ_FAILED_PRECONDITION, "buffer %" PRIu32 " is already allocated", b);
      const Torq__Buffer *buf = p->buffers[b];
      const uint8_t *contents = NULL;
      if (buf->contents_case == TORQ__BUFFER__CONTENTS_CONSTANT_ID) {
        contents = p->constants[buf->constant_id]->data.data;
        cost = tq_u64_add_sat(cost, tq_u64_div_ceil(size, TQR_SIM_HOST_BYTES_PER_NS));
      }
      uint8_t *data = take_buffer(s, b, size, contents);
      if (!data)
        return TQ_STATUS(TQ_OUT_OF_MEMORY,
                         "out of memory allocating buffer %" PRIu32 " (%zu bytes)", b, size);
      s->xram[b].data = data;
      s->xram[b].size = size;
      update_views(s, b);
      break;
    }
    case TORQ__ACTION_KIND__DEALLOC:
      release_buffer(s, a->buffer_id);
      break;
    case TORQ__ACTION_KIND__HOST_COPY: {
      uint8_t *dst = s->xram[a->buffer_id].data, *src = s->xram[a->src_buffer_id].data;
      if (!dst || !src)
        return TQ_STATUS(TQ_FAILED_PRECONDITION, "HOST_COPY between unallocated buffers");
      if (a->size) memmove(dst + a->offset, src + a->src_offset, (size_t)a->size);
      cost = tq_u64_add_sat(cost, tq_u64_div_ceil(a->size, TQR_SIM_HOST_BYTES_PER_NS));
      break;
    }
    case TORQ__ACTION_KIND__NSS_START:
      TQ_TRY(tqr_device_nss_start(s->device, p->nss_programs[a->job_id], s->xram, p->n_buffers));
      s->job_ready_ns[a->job_id] = tq_u64_add_sat(t, cost);
      break;
    case TORQ__ACTION_KIND__NSS_WAIT: {
      tqr_nss_result_t result;
      TQ_TRY(tqr_device_nss_wait(s->device, a->job_id, &result));
      s->stats.nss_cycles = tq_u64_add_sat(s->stats.nss_cycles, result.cycles);
      s->jobs[a->job_id] = result;
      s->stats.nss_programs++;
      uint64_t begin = max_u64(s->job_ready_ns[a->job_id], s->nss_free_ns);
      s->nss_free_ns = tq_u64_add_sat(begin, cycles_to_ns(result.cycles, m->hw.clock_hz));
      t = max_u64(t, s->nss_free_ns);
      break;
    }
    case TORQ__ACTION_KIND__HOST_START:
      TQ_TRY(tqr__host_run(m, a->host_program_id, s->xram, &s->scratch));
      s->stats.host_programs++;
      s->host_ready_ns[a->host_program_id] = tq_u64_add_sat(t, cost);
      break;
    case TORQ__ACTION_KIND__HOST_WAIT: {
      uint64_t begin = max_u64(s->host_ready_ns[a->host_program_id], s->host_free_ns);
      uint64_t work = m->host_elements[a->host_program_id];
      work = work > UINT64_MAX / TQR_SIM_HOST_NS_PER_ELEMENT ? UINT64_MAX
                                                             : work * TQR_SIM_HOST_NS_PER_ELEMENT;
      s->host_free_ns = tq_u64_add_sat(begin, work);
      t = max_u64(t, s->host_free_ns);
      break;
    }
    default:
      return TQ_STATUS(TQ_INTERNAL, "invalid action kind %d", (int)a->kind);
  }
  s->now_ns = tq_u64_add_sat(t, cost);
  return NULL;
}

/* Copies the outputs out of XRAM into new tensors. */
static tq_status_t read_outputs(tqr_session_t *s, tqr_tensor_t **out, size_t n) {
  const Torq__Function *fn = s->proto->function;
  for (size_t o = 0; o < n; o++) {
    const Torq__TensorType *t = fn->outputs[o];
    TQ_TRY(tqr_tensor_create(t->element_type, t->n_dims, t->dims, &out[o]));
    const tqs_xram_buffer_t *x = &s->xram[fn->output_buffers[o]];
    if (!x->data)
      return TQ_STATUS(TQ_INTERNAL, "output %zu: buffer %" PRIu32 " is not allocated", o,
                       fn->output_buffers[o]);
    if (out[o]->size) memcpy(out[o]->data, x->data, out[o]->size);
  }
  return NULL;
}

tq_status_t tqr_session_invoke(tqr_session_t *s, const tqr_tensor_t *const *inputs,
                               size_t num_inputs, tqr_tensor_t **out_outputs, size_t num_outputs) {
  for (size_t o = 0; o < num_outputs; o++) out_outputs[o] = NULL;
  const Torq__Module *p = s->proto;
  if (num_outputs != p->function->n_outputs)
    return TQ_STATUS(TQ_INVALID_ARGUMENT, "function %s has %zu outputs, room for %zu given",
                     p->function->name, p->function->n_outputs, num_outputs);
  TQ_TRY(check_inputs(s, inputs, num_inputs));

  s->stats.invocations++;
  s->invocation = take_invocation(s);
  phase(s, TQR_EVENT_DISPATCH, TQR_EDGE_BEGIN);
  phase(s, TQR_EVENT_DISPATCH_SYNC_BINDINGS_IN, TQR_EDGE_BEGIN);
  copy_inputs(s, inputs, num_inputs);
  phase(s, TQR_EVENT_DISPATCH_SYNC_BINDINGS_IN, TQR_EDGE_END);
  phase(s, TQR_EVENT_DISPATCH_EXECUTE_ACTIONS, TQR_EDGE_BEGIN);
  tq_status_t st = NULL;
  for (size_t i = 0; i < p->n_actions; i++) {
    const Torq__Action *a = p->actions[i];
    record(s, (tqr_event_kind_t)a->kind, TQR_EDGE_BEGIN, (int32_t)i);
    st = run_action(s, a);
    if (st) {
      record(s, TQR_EVENT_ERROR, TQR_EDGE_POINT, (int32_t)i);
      st = tq_status_annotate(st, "in action %zu (%s) of %s, invocation %" PRIu32, i,
                              tqr__action_kind_name(a->kind), s->module->dispatch_name,
                              s->invocation);
      break;
    }
    record(s, (tqr_event_kind_t)a->kind, TQR_EDGE_END, (int32_t)i);
  }
  if (!st) {
    phase(s, TQR_EVENT_DISPATCH_EXECUTE_ACTIONS, TQR_EDGE_END);
    phase(s, TQR_EVENT_DISPATCH_SYNC_BINDINGS_OUT, TQR_EDGE_BEGIN);
    st = read_outputs(s, out_outputs, num_outputs);
    if (st) {
      record(s, TQR_EVENT_ERROR, TQR_EDGE_POINT, -1);
      st = tq_status_annotate(st, "while reading the outputs of %s, invocation %" PRIu32,
                              s->module->dispatch_name, s->invocation);
    } else {
      phase(s, TQR_EVENT_DISPATCH_SYNC_BINDINGS_OUT, TQR_EDGE_END);
      phase(s, TQR_EVENT_DISPATCH, TQR_EDGE_END);
    }
  }
  if (st) tqr_device_reset(s->device);
  release_all(s);
  st = flush(s, st); /* keeps a failure; may add the profile's own */
  if (st) {
    for (size_t o = 0; o < num_outputs; o++) {
      tqr_tensor_destroy(out_outputs[o]);
      out_outputs[o] = NULL;
    }
  }
  return st;
}
