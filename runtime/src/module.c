/* Module loading: unpack, check magic and version, validate every cross reference (module.h
 * lists the checks), and derive the tables the session uses. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "runtime_internal.h"
#include "torq/base/alloc.h"
#include "torq/base/checked.h"
#include "torq/base/file.h"
#include "torq/runtime/profile.h"
#include "torq/runtime/tensor.h"

void tqr_module_options_initialize(tqr_module_options_t *options) {
  memset(options, 0, sizeof(*options));
  options->max_file_bytes = (size_t)TQF_MODULE_MAX_BYTES;
  options->max_buffer_bytes = TQF_BUFFER_MAX_BYTES;
}

/* Validation state. */
typedef struct loader_s {
  const char *name;
  const tqr_module_options_t *options;
  tqr_module_t *m;
  const Torq__Module *p;
} loader_t;

static tq_status_t bad(const loader_t *L, const char *fmt, ...) TQ_PRINTF(2, 3);
static tq_status_t bad(const loader_t *L, const char *fmt, ...) {
  char msg[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  return TQ_STATUS(TQ_INVALID_INPUT, "%s: %s", L->name, msg);
}

static tq_status_t oom(const loader_t *L) {
  return TQ_STATUS(TQ_OUT_OF_MEMORY, "%s: out of memory while loading the module", L->name);
}

/* A printable, bounded copy of a string from the file, for messages. */
static void printable(const char *s, char *out, size_t cap) {
  size_t n = 0;
  for (; s && *s && n + 4 < cap; s++) out[n++] = (*s >= 0x20 && *s < 0x7f) ? *s : '?';
  if (s && *s) {
    memcpy(out + n, "...", 3);
    n += 3;
  }
  out[n] = 0;
}

/* Checks a tensor type; stores its byte size and element count. `what` names its owner. */
static tq_status_t check_type(const loader_t *L, const char *what, const Torq__TensorType *t,
                              uint64_t *out_size, uint64_t *out_elements) {
  if (!t) return bad(L, "%s has no tensor type", what);
  uint64_t esz = tqf_element_size(t->element_type);
  if (esz == 0) return bad(L, "%s has an invalid element type (%d)", what, (int)t->element_type);
  if (t->n_dims > TQR_MAX_RANK)
    return bad(L, "%s has rank %zu, above the limit of %d", what, t->n_dims, TQR_MAX_RANK);
  uint64_t elements = 1;
  for (size_t i = 0; i < t->n_dims; i++) {
    if (t->dims[i] < 0)
      return bad(L, "%s has a negative dim %zu (%" PRId64 ")", what, i, t->dims[i]);
    if (!tq_u64_mul(elements, (uint64_t)t->dims[i], &elements))
      return bad(L, "%s: the element count overflows", what);
  }
  uint64_t size;
  if (!tq_u64_mul(elements, esz, &size) || size > SIZE_MAX)
    return bad(L, "%s: the byte size overflows", what);
  *out_size = size;
  if (out_elements) *out_elements = elements;
  return NULL;
}

static int symbol_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '$' || c == '-';
}

static tq_status_t check_header(loader_t *L) {
  const Torq__Module *p = L->p;
  char shown[64];
  if (!p->magic || strcmp(p->magic, TQF_MODULE_MAGIC) != 0) {
    printable(p->magic, shown, sizeof(shown));
    return bad(L, "not a Torq module: magic is \"%s\", expected \"" TQF_MODULE_MAGIC "\"", shown);
  }
  if (p->format_version != TQF_MODULE_FORMAT_VERSION)
    return bad(L,
               "module format version %" PRIu32
               " is not supported: this runtime reads version %u "
               "(compile the model with a torq-compile that matches this runtime)",
               p->format_version, TQF_MODULE_FORMAT_VERSION);
  const Torq__Hardware *hw = p->hardware;
  if (!hw) return bad(L, "the module has no hardware description");
  if (!hw->spec || !*hw->spec) return bad(L, "the hardware description has an empty spec");
  tq_status_t st = tqs_hw_parse(hw->spec, &L->m->hw);
  if (st) {
    printable(hw->spec, shown, sizeof(shown));
    tq_status_t r = bad(L, "hardware spec \"%s\" is invalid: %s", shown, tq_status_message(st));
    tq_status_free(st);
    return r;
  }
  const tqs_hw_t *h = &L->m->hw;
  if (h->clock_hz != hw->clock_hz || h->lram_bytes != hw->lram_bytes || h->slices != hw->slices) {
    printable(hw->spec, shown, sizeof(shown));
    return bad(L,
               "hardware spec \"%s\" means clock %" PRIu64 " Hz, LRAM %" PRIu64 " bytes, %" PRIu32
               " slices, but the module records clock %" PRIu64 " Hz, LRAM %" PRIu64
               " bytes, %" PRIu32 " slices",
               shown, h->clock_hz, h->lram_bytes, h->slices, hw->clock_hz, hw->lram_bytes,
               hw->slices);
  }
  const Torq__Function *fn = p->function;
  if (!fn) return bad(L, "the module has no function");
  if (!fn->name || !*fn->name) return bad(L, "the function has no name");
  for (const char *c = fn->name; *c; c++) {
    if (!symbol_char(*c) || c - fn->name > 200) {
      printable(fn->name, shown, sizeof(shown));
      return bad(L, "function name \"%s\" is not a valid symbol name", shown);
    }
  }
  size_t n = strlen(fn->name) + sizeof("_dispatch_0");
  L->m->dispatch_name = tq_malloc(n);
  if (!L->m->dispatch_name) return oom(L);
  snprintf(L->m->dispatch_name, n, "%s_dispatch_0", fn->name);
  return NULL;
}

static tq_status_t check_constants(loader_t *L) {
  const Torq__Module *p = L->p;
  char what[64];
  for (size_t i = 0; i < p->n_constants; i++) {
    const Torq__Constant *c = p->constants[i];
    if (c->id != i) return bad(L, "constant %zu has id %" PRIu32 " (ids are positions)", i, c->id);
    snprintf(what, sizeof(what), "constant %zu", i);
    uint64_t size = 0;
    TQ_TRY(check_type(L, what, c->type, &size, NULL));
    if (c->data.len != size)
      return bad(L, "constant %zu holds %zu bytes, but its type %s needs %" PRIu64, i, c->data.len,
                 tqf_element_name(c->type->element_type), size);
  }
  return NULL;
}

static tq_status_t check_buffers(loader_t *L) {
  const Torq__Module *p = L->p;
  tqr_module_t *m = L->m;
  size_t n = p->n_buffers;
  m->buffers = tq_calloc(n ? n : 1, sizeof(*m->buffers));
  if (!m->buffers) return oom(L);
  char what[64];
  uint64_t total = 0;
  for (size_t i = 0; i < n; i++) {
    const Torq__Buffer *b = p->buffers[i];
    tqr__buffer_t *info = &m->buffers[i];
    info->base = (uint32_t)i;
    info->input = -1;
    info->next_view = -1;
    if (b->id != i) return bad(L, "buffer %zu has id %" PRIu32 " (ids are positions)", i, b->id);
    if (b->memory != TORQ__MEMORY__XRAM)
      return bad(L, "buffer %zu is not in XRAM (memory %d); only XRAM buffers are supported", i,
                 (int)b->memory);
    snprintf(what, sizeof(what), "buffer %zu", i);
    uint64_t size = 0;
    TQ_TRY(check_type(L, what, b->type, &size, &info->elements));
    if (b->size != size)
      return bad(L, "buffer %zu has size %" PRIu64 ", but its type needs %" PRIu64 " bytes", i,
                 b->size, size);
    if (size > L->options->max_buffer_bytes)
      return bad(L, "buffer %zu has %" PRIu64 " bytes, above the limit of %" PRIu64, i, size,
                 L->options->max_buffer_bytes);
    info->size = size;
    if (b->contents_case != TORQ__BUFFER__CONTENTS_VIEW &&
        (total += size) > TQF_MODULE_MAX_TENSOR_BYTES)
      return bad(L, "buffers 0 to %zu hold %" PRIu64 " bytes, above the limit of %" PRIu64, i,
                 total, TQF_MODULE_MAX_TENSOR_BYTES);
    if (b->contents_case == TORQ__BUFFER__CONTENTS_CONSTANT_ID) {
      if (b->constant_id >= p->n_constants)
        return bad(L, "buffer %zu refers to constant %" PRIu32 ", but the module has %zu constants",
                   i, b->constant_id, p->n_constants);
      size_t len = p->constants[b->constant_id]->data.len;
      if (len != size)
        return bad(L, "buffer %zu has %" PRIu64 " bytes, but its constant %" PRIu32 " has %zu", i,
                   size, b->constant_id, len);
    }
  }
  /* Views, once every buffer's size is known. */
  for (size_t i = 0; i < n; i++) {
    const Torq__Buffer *b = p->buffers[i];
    if (b->contents_case != TORQ__BUFFER__CONTENTS_VIEW) continue;
    const Torq__View *v = b->view;
    if (!v) return bad(L, "buffer %zu is a view without a base", i);
    if (v->buffer_id >= n)
      return bad(L, "buffer %zu is a view of buffer %" PRIu32 ", but the module has %zu buffers", i,
                 v->buffer_id, n);
    const Torq__Buffer *base = p->buffers[v->buffer_id];
    if (base->contents_case == TORQ__BUFFER__CONTENTS_VIEW)
      return bad(L, "buffer %zu is a view of buffer %" PRIu32 ", which is a view itself", i,
                 v->buffer_id);
    uint64_t end;
    if (!tq_u64_add(v->offset, b->size, &end) || end > base->size)
      return bad(L,
                 "buffer %zu is a view of bytes [%" PRIu64 ", %" PRIu64 " + %" PRIu64
                 ") of buffer %" PRIu32 ", which has %" PRIu64 " bytes",
                 i, v->offset, v->offset, b->size, v->buffer_id, base->size);
    m->buffers[i].base = v->buffer_id;
    m->buffers[i].offset = v->offset;
    m->buffers[i].next_view = m->buffers[v->buffer_id].next_view;
    m->buffers[v->buffer_id].next_view = (int32_t)i;
  }
  return NULL;
}

static tq_status_t check_function(loader_t *L) {
  const Torq__Module *p = L->p;
  const Torq__Function *fn = p->function;
  tqr_module_t *m = L->m;
  char what[64];
  if (fn->n_inputs != fn->n_input_buffers)
    return bad(L, "the function has %zu inputs but %zu input buffers", fn->n_inputs,
               fn->n_input_buffers);
  if (fn->n_outputs != fn->n_output_buffers)
    return bad(L, "the function has %zu outputs but %zu output buffers", fn->n_outputs,
               fn->n_output_buffers);
  for (int out = 0; out < 2; out++) {
    size_t count = out ? fn->n_outputs : fn->n_inputs;
    const char *role = out ? "output" : "input";
    for (size_t i = 0; i < count; i++) {
      uint32_t id = out ? fn->output_buffers[i] : fn->input_buffers[i];
      const Torq__TensorType *t = out ? fn->outputs[i] : fn->inputs[i];
      if (id >= p->n_buffers)
        return bad(L,
                   "function %s %zu refers to buffer %" PRIu32 ", but the module has %zu buffers",
                   role, i, id, p->n_buffers);
      snprintf(what, sizeof(what), "function %s %zu", role, i);
      uint64_t size = 0;
      TQ_TRY(check_type(L, what, t, &size, NULL));
      if (size != p->buffers[id]->size)
        return bad(L,
                   "function %s %zu has %" PRIu64 " bytes, but its buffer %" PRIu32 " has %" PRIu64,
                   role, i, size, id, p->buffers[id]->size);
      if (out) continue;
      if (p->buffers[id]->contents_case != TORQ__BUFFER__CONTENTS__NOT_SET)
        return bad(
            L, "function input %zu uses buffer %" PRIu32 ", which is a %s", i, id,
            p->buffers[id]->contents_case == TORQ__BUFFER__CONTENTS_VIEW ? "view" : "constant");
      if (m->buffers[id].input >= 0)
        return bad(L, "function inputs %" PRId32 " and %zu share buffer %" PRIu32,
                   m->buffers[id].input, i, id);
      m->buffers[id].input = (int32_t)i;
    }
  }
  return NULL;
}

/* The end (exclusive) of the bytes a region touches, with checked arithmetic. */
static int region_end(const Torq__Region *r, uint64_t *out_end) {
  uint64_t end;
  if (!tq_u64_add(r->offset, r->size, &end)) return 0;
  for (size_t i = 0; i < r->n_counts; i++) {
    if (r->counts[i] == 0) {
      *out_end = r->offset;
      return 1;
    }
    uint64_t span;
    if (!tq_u64_mul(r->counts[i] - 1, r->strides[i], &span) || !tq_u64_add(end, span, &end))
      return 0;
  }
  *out_end = end;
  return 1;
}

static tq_status_t check_region(loader_t *L, size_t job, size_t task, size_t w, size_t k,
                                const Torq__Region *r) {
  const Torq__Module *p = L->p;
  char where[160];
  snprintf(where, sizeof(where), "NSS program %zu task %zu work %zu region %zu", job, task, w, k);
  if (!r) return bad(L, "%s is empty", where);
  if (r->n_counts != r->n_strides)
    return bad(L, "%s has %zu counts but %zu strides", where, r->n_counts, r->n_strides);
  uint64_t end;
  if (!region_end(r, &end)) return bad(L, "%s: its extent overflows", where);
  if (r->memory == TORQ__MEMORY__LRAM) {
    if (end > L->m->hw.lram_bytes)
      return bad(L, "%s ends at LRAM byte %" PRIu64 ", but the LRAM has %" PRIu64 " bytes", where,
                 end, L->m->hw.lram_bytes);
  } else if (r->memory == TORQ__MEMORY__XRAM) {
    if (r->buffer_id >= p->n_buffers)
      return bad(L, "%s refers to buffer %" PRIu32 ", but the module has %zu buffers", where,
                 r->buffer_id, p->n_buffers);
    if (end > p->buffers[r->buffer_id]->size)
      return bad(L,
                 "%s ends at byte %" PRIu64 " of buffer %" PRIu32 ", which has %" PRIu64 " bytes",
                 where, end, r->buffer_id, p->buffers[r->buffer_id]->size);
  } else {
    return bad(L, "%s has an invalid memory (%d)", where, (int)r->memory);
  }
  return NULL;
}

static tq_status_t check_programs(loader_t *L) {
  const Torq__Module *p = L->p;
  tqr_module_t *m = L->m;
  size_t nj = p->n_nss_programs;
  uint64_t *stamp = tq_calloc(p->n_buffers ? p->n_buffers : 1, sizeof(*stamp));
  m->job_start = tq_calloc(nj + 1, sizeof(*m->job_start));
  if (!stamp || !m->job_start) {
    tq_free(stamp);
    return oom(L);
  }
  tq_status_t st = NULL;
  size_t total = 0;
  /* Pass 0 validates and counts the distinct base buffers per program; pass 1 lists them. */
  for (int pass = 0; pass < 2 && !st; pass++) {
    if (pass == 1) {
      m->job_buffers = tq_calloc(total ? total : 1, sizeof(*m->job_buffers));
      if (!m->job_buffers) {
        st = oom(L);
        break;
      }
      total = 0;
    }
    for (size_t j = 0; j < nj && !st; j++) {
      const Torq__NssProgram *prog = p->nss_programs[j];
      uint64_t mark = (uint64_t)pass * (nj + 1) + j + 1;
      m->job_start[j] = total;
      if (pass == 0 && prog->job_id != j) {
        st = bad(L, "NSS program %zu has job_id %" PRIu32 " (ids are positions)", j, prog->job_id);
        break;
      }
      for (size_t t = 0; t < prog->n_tasks && !st; t++) {
        const Torq__NssTask *task = prog->tasks[t];
        for (size_t w = 0; w < task->n_work && !st; w++) {
          const Torq__UnitWork *work = task->work[w];
          if (pass == 0) {
            if (work->unit < TORQ__UNIT__DMA_IN || work->unit > TORQ__UNIT__CSS) {
              st = bad(L, "NSS program %zu task %zu work %zu has an invalid unit (%d)", j, t, w,
                       (int)work->unit);
              break;
            }
            if (work->unit == TORQ__UNIT__SLICE1 && m->hw.slices < 2) {
              st = bad(
                  L, "NSS program %zu task %zu work %zu uses SLICE1, but the hardware has 1 slice",
                  j, t, w);
              break;
            }
          }
          for (size_t k = 0; k < work->n_regions && !st; k++) {
            const Torq__Region *r = work->regions[k];
            if (pass == 0 && (st = check_region(L, j, t, w, k, r))) break;
            if (r->memory != TORQ__MEMORY__XRAM) continue;
            uint32_t base = m->buffers[r->buffer_id].base;
            if (stamp[base] == mark) continue;
            stamp[base] = mark;
            if (pass == 1) m->job_buffers[total] = base;
            total++;
          }
        }
      }
    }
    m->job_start[nj] = total;
  }
  tq_free(stamp);
  return st;
}

static int ranges_overlap(const tqr__buffer_t *a, const tqr__buffer_t *b) {
  if (a->base != b->base || a->size == 0 || b->size == 0) return 0;
  return a->offset < b->offset + b->size && b->offset < a->offset + a->size;
}

static tq_status_t check_hosts(loader_t *L) {
  const Torq__Module *p = L->p;
  tqr_module_t *m = L->m;
  size_t nh = p->n_host_programs, n_attrs = 0;
  char shown[64];
  for (size_t h = 0; h < nh; h++) {
    const Torq__HostProgram *hp = p->host_programs[h];
    if (hp->id != h)
      return bad(L, "host program %zu has id %" PRIu32 " (ids are positions)", h, hp->id);
    if (!hp->op || !tqs_ref_has_op(hp->op)) {
      printable(hp->op, shown, sizeof(shown));
      return bad(L, "host program %zu: operator \"%s\" is not supported by the reference kernels",
                 h, shown);
    }
    for (int res = 0; res < 2; res++) {
      size_t count = res ? hp->n_result_buffers : hp->n_operand_buffers;
      const uint32_t *ids = res ? hp->result_buffers : hp->operand_buffers;
      for (size_t i = 0; i < count; i++)
        if (ids[i] >= p->n_buffers)
          return bad(L,
                     "host program %zu %s %zu refers to buffer %" PRIu32
                     ", but the module has %zu buffers",
                     h, res ? "result" : "operand", i, ids[i], p->n_buffers);
    }
    for (size_t r = 0; r < hp->n_result_buffers; r++) {
      const tqr__buffer_t *rb = &m->buffers[hp->result_buffers[r]];
      for (size_t o = 0; o < hp->n_operand_buffers; o++)
        if (ranges_overlap(rb, &m->buffers[hp->operand_buffers[o]]))
          return bad(L,
                     "host program %zu: result %zu (buffer %" PRIu32
                     ") overlaps operand %zu (buffer %" PRIu32 ")",
                     h, r, hp->result_buffers[r], o, hp->operand_buffers[o]);
      for (size_t o = 0; o < r; o++)
        if (ranges_overlap(rb, &m->buffers[hp->result_buffers[o]]))
          return bad(L, "host program %zu: results %zu and %zu overlap", h, o, r);
    }
    size_t tensors = hp->n_operand_buffers + hp->n_result_buffers;
    if (tensors > m->max_host_tensors) m->max_host_tensors = tensors;
    for (size_t a = 0; a < hp->n_attributes; a++) {
      int c = hp->attributes[a]->value_case;
      n_attrs += c == TORQ__ATTRIBUTE__VALUE_INTS || c == TORQ__ATTRIBUTE__VALUE_FLOATS ||
                 c == TORQ__ATTRIBUTE__VALUE_STR;
    }
  }
  m->attr_start = tq_calloc(nh + 1, sizeof(*m->attr_start));
  m->host_attrs = tq_calloc(n_attrs ? n_attrs : 1, sizeof(*m->host_attrs));
  m->host_elements = tq_calloc(nh ? nh : 1, sizeof(*m->host_elements));
  if (!m->attr_start || !m->host_attrs || !m->host_elements) return oom(L);
  /* Attributes for tqs_ref_run; raw (dense data) attributes have no tqs_attr_t form and are left
   * out: the reference kernels take such data as operands. */
  size_t k = 0;
  for (size_t h = 0; h < nh; h++) {
    const Torq__HostProgram *hp = p->host_programs[h];
    m->attr_start[h] = k;
    for (size_t a = 0; a < hp->n_attributes; a++) {
      const Torq__Attribute *at = hp->attributes[a];
      tqs_attr_t attr = {.key = at->key ? at->key : ""};
      if (at->value_case == TORQ__ATTRIBUTE__VALUE_INTS && at->ints) {
        attr.kind = TQS_ATTR_INTS;
        attr.count = at->ints->n_values;
        attr.ints = at->ints->values;
      } else if (at->value_case == TORQ__ATTRIBUTE__VALUE_FLOATS && at->floats) {
        attr.kind = TQS_ATTR_FLOATS;
        attr.count = at->floats->n_values;
        attr.floats = at->floats->values;
      } else if (at->value_case == TORQ__ATTRIBUTE__VALUE_STR) {
        attr.kind = TQS_ATTR_STRING;
        attr.string = at->str ? at->str : "";
      } else {
        continue;
      }
      m->host_attrs[k++] = attr;
    }
    uint64_t elements = 0;
    for (size_t i = 0; i < hp->n_operand_buffers; i++)
      if (!tq_u64_add(elements, m->buffers[hp->operand_buffers[i]].elements, &elements))
        elements = UINT64_MAX;
    for (size_t i = 0; i < hp->n_result_buffers; i++)
      if (!tq_u64_add(elements, m->buffers[hp->result_buffers[i]].elements, &elements))
        elements = UINT64_MAX;
    m->host_elements[h] = elements;
  }
  m->attr_start[nh] = k;
  return NULL;
}

/* ---- The action list: references and the allocation state ---------------------------------- */

typedef struct flow_s {
  uint8_t *allocated; /* per base buffer */
  int64_t *job_by;    /* per NSS program: the action that started it and is not waited, or -1 */
  int64_t *host_by;   /* per host program, likewise */
  uint32_t *inflight; /* started, not waited: NSS jobs (value) and host programs (value | bit 31) */
  size_t n_inflight;
  int64_t last_started; /* the NSS program the last NSS_START started, or -1 */
} flow_t;

const char *tqr__action_kind_name(int kind) {
  /* The action kinds are the first event kinds (profile.h): one table of names. */
  return kind >= TQR_EVENT_ALLOC && kind <= TQR_EVENT_HOST_WAIT ? tqr_event_kind_name((uint8_t)kind)
                                                                : "?";
}

/* Storage of buffer `id` is allocated now (inputs always are). */
static int is_live(const loader_t *L, const flow_t *f, uint32_t id) {
  const tqr__buffer_t *b = &L->m->buffers[id];
  return L->m->buffers[b->base].input >= 0 || f->allocated[b->base];
}

static tq_status_t need_live(const loader_t *L, const flow_t *f, size_t action, uint32_t id,
                             const char *role) {
  if (is_live(L, f, id)) return NULL;
  uint32_t base = L->m->buffers[id].base;
  if (base != id)
    return bad(L,
               "action %zu (%s) uses %s buffer %" PRIu32 ", a view of buffer %" PRIu32
               ", which is not allocated at that point",
               action, tqr__action_kind_name(L->p->actions[action]->kind), role, id, base);
  return bad(L, "action %zu (%s) uses %s buffer %" PRIu32 ", which is not allocated at that point",
             action, tqr__action_kind_name(L->p->actions[action]->kind), role, id);
}

static tq_status_t check_dealloc_hazard(const loader_t *L, const flow_t *f, size_t action,
                                        uint32_t base) {
  const Torq__Module *p = L->p;
  for (size_t i = 0; i < f->n_inflight; i++) {
    uint32_t v = f->inflight[i];
    if (v & 0x80000000u) {
      uint32_t h = v & 0x7fffffffu;
      const Torq__HostProgram *hp = p->host_programs[h];
      for (int res = 0; res < 2; res++) {
        size_t count = res ? hp->n_result_buffers : hp->n_operand_buffers;
        const uint32_t *ids = res ? hp->result_buffers : hp->operand_buffers;
        for (size_t k = 0; k < count; k++)
          if (L->m->buffers[ids[k]].base == base)
            return bad(L,
                       "action %zu frees buffer %" PRIu32 " while host program %" PRIu32
                       " (started by action %" PRId64 ") still uses it",
                       action, base, h, f->host_by[h]);
      }
    } else {
      for (size_t k = L->m->job_start[v]; k < L->m->job_start[v + 1]; k++)
        if (L->m->job_buffers[k] == base)
          return bad(L,
                     "action %zu frees buffer %" PRIu32 " while NSS program %" PRIu32
                     " (started by action %" PRId64 ") still uses it",
                     action, base, v, f->job_by[v]);
    }
  }
  return NULL;
}

static void drop_inflight(flow_t *f, uint32_t v) {
  for (size_t i = 0; i < f->n_inflight; i++) {
    if (f->inflight[i] == v) {
      f->inflight[i] = f->inflight[--f->n_inflight];
      return;
    }
  }
}

static tq_status_t check_action(const loader_t *L, flow_t *f, size_t i) {
  const Torq__Module *p = L->p;
  const tqr_module_t *m = L->m;
  const Torq__Action *a = p->actions[i];
  size_t nb = p->n_buffers;
  if (a->action_id != i)
    return bad(L, "action %zu has action_id %" PRIu32 " (ids are positions)", i, a->action_id);
  switch (a->kind) {
    case TORQ__ACTION_KIND__ALLOC:
    case TORQ__ACTION_KIND__DEALLOC: {
      const char *k = tqr__action_kind_name(a->kind);
      if (a->buffer_id >= nb)
        return bad(L, "action %zu refers to buffer %" PRIu32 ", but the module has %zu buffers", i,
                   a->buffer_id, nb);
      uint32_t b = a->buffer_id;
      if (m->buffers[b].base != b)
        return bad(L, "action %zu (%s) names buffer %" PRIu32 ", which is a view", i, k, b);
      if (m->buffers[b].input >= 0)
        return bad(L,
                   "action %zu (%s) names buffer %" PRIu32 ", which holds function input %" PRId32,
                   i, k, b, m->buffers[b].input);
      if (a->kind == TORQ__ACTION_KIND__ALLOC) {
        if (f->allocated[b])
          return bad(L, "action %zu allocates buffer %" PRIu32 ", which is already allocated", i,
                     b);
        f->allocated[b] = 1;
      } else {
        if (!f->allocated[b])
          return bad(L, "action %zu frees buffer %" PRIu32 ", which is not allocated", i, b);
        TQ_TRY(check_dealloc_hazard(L, f, i, b));
        f->allocated[b] = 0;
      }
      return NULL;
    }
    case TORQ__ACTION_KIND__HOST_COPY: {
      uint32_t ids[2] = {a->buffer_id, a->src_buffer_id};
      uint64_t offs[2] = {a->offset, a->src_offset};
      const char *roles[2] = {"destination", "source"};
      for (int k = 0; k < 2; k++) {
        if (ids[k] >= nb)
          return bad(L, "action %zu refers to buffer %" PRIu32 ", but the module has %zu buffers",
                     i, ids[k], nb);
        uint64_t end;
        if (!tq_u64_add(offs[k], a->size, &end) || end > p->buffers[ids[k]]->size)
          return bad(L,
                     "action %zu (HOST_COPY) %s bytes [%" PRIu64 ", %" PRIu64 " + %" PRIu64
                     ") lie outside buffer %" PRIu32 " (%" PRIu64 " bytes)",
                     i, roles[k], offs[k], offs[k], a->size, ids[k], p->buffers[ids[k]]->size);
        TQ_TRY(need_live(L, f, i, ids[k], roles[k]));
      }
      return NULL;
    }
    case TORQ__ACTION_KIND__NSS_START:
    case TORQ__ACTION_KIND__NSS_WAIT: {
      uint32_t j = a->job_id;
      if (j >= p->n_nss_programs)
        return bad(L, "action %zu refers to NSS program %" PRIu32 ", but the module has %zu", i, j,
                   p->n_nss_programs);
      if (a->kind == TORQ__ACTION_KIND__NSS_START) {
        if (f->job_by[j] >= 0)
          return bad(L,
                     "action %zu starts NSS program %" PRIu32 ", already started by action %" PRId64
                     " and not waited for",
                     i, j, f->job_by[j]);
        /* A pipeline's steady state or epilogue continues the LRAM of job j - 1, its stage
         * before: it must be started right after that job (contract.h, "Stages of a pipeline"). */
        Torq__Stage stage = p->nss_programs[j]->stage, before = TORQ__STAGE__WHOLE;
        int continues = tqf_nss_stage_continues(stage, &before);
        if (continues < 0)
          return bad(L, "NSS program %" PRIu32 " has an unknown stage (%d)", j, (int)stage);
        if (continues &&
            (j == 0 || p->nss_programs[j - 1]->stage != before || f->last_started != j - 1))
          return bad(L,
                     "action %zu starts NSS program %" PRIu32
                     " (a %s), which must follow its %s, program %" PRId64
                     ", right after that one",
                     i, j, tqf_nss_stage_name(stage), tqf_nss_stage_name(before), (int64_t)j - 1);
        f->last_started = j;
        for (size_t k = m->job_start[j]; k < m->job_start[j + 1]; k++)
          TQ_TRY(need_live(L, f, i, m->job_buffers[k], "XRAM"));
        f->job_by[j] = (int64_t)i;
        f->inflight[f->n_inflight++] = j;
      } else {
        if (f->job_by[j] < 0)
          return bad(L, "action %zu waits for NSS program %" PRIu32 ", which was not started", i,
                     j);
        f->job_by[j] = -1;
        drop_inflight(f, j);
      }
      return NULL;
    }
    case TORQ__ACTION_KIND__HOST_START:
    case TORQ__ACTION_KIND__HOST_WAIT: {
      uint32_t h = a->host_program_id;
      if (h >= p->n_host_programs)
        return bad(L, "action %zu refers to host program %" PRIu32 ", but the module has %zu", i, h,
                   p->n_host_programs);
      if (a->kind == TORQ__ACTION_KIND__HOST_START) {
        if (f->host_by[h] >= 0)
          return bad(L,
                     "action %zu starts host program %" PRIu32
                     ", already started by action %" PRId64 " and not waited for",
                     i, h, f->host_by[h]);
        const Torq__HostProgram *hp = p->host_programs[h];
        for (size_t k = 0; k < hp->n_operand_buffers; k++)
          TQ_TRY(need_live(L, f, i, hp->operand_buffers[k], "operand"));
        for (size_t k = 0; k < hp->n_result_buffers; k++)
          TQ_TRY(need_live(L, f, i, hp->result_buffers[k], "result"));
        f->host_by[h] = (int64_t)i;
        f->inflight[f->n_inflight++] = h | 0x80000000u;
      } else {
        if (f->host_by[h] < 0)
          return bad(L, "action %zu waits for host program %" PRIu32 ", which was not started", i,
                     h);
        f->host_by[h] = -1;
        drop_inflight(f, h | 0x80000000u);
      }
      return NULL;
    }
    default:
      return bad(L, "action %zu has an invalid kind (%d)", i, (int)a->kind);
  }
}

static tq_status_t check_actions(loader_t *L) {
  const Torq__Module *p = L->p;
  flow_t f;
  memset(&f, 0, sizeof(f));
  size_t nb = p->n_buffers, nj = p->n_nss_programs, nh = p->n_host_programs;
  f.allocated = tq_calloc(nb ? nb : 1, 1);
  f.job_by = tq_malloc((nj ? nj : 1) * sizeof(*f.job_by));
  f.host_by = tq_malloc((nh ? nh : 1) * sizeof(*f.host_by));
  f.inflight = tq_malloc((nj + nh + 1) * sizeof(*f.inflight));
  tq_status_t st = NULL;
  if (!f.allocated || !f.job_by || !f.host_by || !f.inflight) {
    st = oom(L);
    goto done;
  }
  for (size_t j = 0; j < nj; j++) f.job_by[j] = -1;
  for (size_t h = 0; h < nh; h++) f.host_by[h] = -1;
  f.last_started = -1;
  for (size_t i = 0; i < p->n_actions && !st; i++) st = check_action(L, &f, i);
  for (size_t j = 0; j < nj && !st; j++)
    if (f.job_by[j] >= 0)
      st = bad(L, "NSS program %zu is started by action %" PRId64 " but never waited for", j,
               f.job_by[j]);
  for (size_t h = 0; h < nh && !st; h++)
    if (f.host_by[h] >= 0)
      st = bad(L, "host program %zu is started by action %" PRId64 " but never waited for", h,
               f.host_by[h]);
  const Torq__Function *fn = p->function;
  for (size_t o = 0; o < fn->n_output_buffers && !st; o++)
    if (!is_live(L, &f, fn->output_buffers[o]))
      st = bad(L, "function output %zu (buffer %" PRIu32 ") is not allocated when the actions end",
               o, fn->output_buffers[o]);
done:
  tq_free(f.allocated);
  tq_free(f.job_by);
  tq_free(f.host_by);
  tq_free(f.inflight);
  return st;
}

/* ---- Public API ----------------------------------------------------------------------------- */

tq_status_t tqr_module_load(const char *name, const void *data, size_t len,
                            const tqr_module_options_t *options, tqr_module_t **out_module) {
  *out_module = NULL;
  tqr_module_options_t defaults;
  if (!options) {
    tqr_module_options_initialize(&defaults);
    options = &defaults;
  }
  if (!name) name = "<module>";
  loader_t L = {.name = name, .options = options};
  if (len == 0) return bad(&L, "empty file: not a Torq module");
  if (len > options->max_file_bytes)
    return TQ_STATUS(TQ_LIMIT, "%s: %zu bytes is above the limit of %zu", name, len,
                     options->max_file_bytes);
  tqr_module_t *m = tq_calloc(1, sizeof(*m));
  if (!m) return oom(&L);
  L.m = m;
  m->name = tq_strndup(name, strlen(name));
  m->proto = torq__module__unpack(NULL, len, data);
  tq_status_t st = NULL;
  if (!m->name) {
    st = oom(&L);
  } else if (!m->proto) {
    st = bad(&L, "not a Torq module or truncated (protobuf unpack failed)");
  } else {
    L.p = m->proto;
    if (!(st = check_header(&L)) && !(st = check_constants(&L)) && !(st = check_buffers(&L)) &&
        !(st = check_function(&L)) && !(st = check_programs(&L)) && !(st = check_hosts(&L)))
      st = check_actions(&L);
  }
  if (st) {
    tqr_module_destroy(m);
    return st;
  }
  *out_module = m;
  return NULL;
}

tq_status_t tqr_module_load_file(const char *path, const tqr_module_options_t *options,
                                 tqr_module_t **out_module) {
  *out_module = NULL;
  tqr_module_options_t defaults;
  if (!options) {
    tqr_module_options_initialize(&defaults);
    options = &defaults;
  }
  tq_buf_t buf;
  tq_status_t st = tq_file_read(path, options->max_file_bytes, &buf);
  if (!st) st = tqr_module_load(path, buf.data, buf.len, options, out_module);
  tq_buf_deinit(&buf);
  return st;
}

void tqr_module_destroy(tqr_module_t *module) {
  if (!module) return;
  if (module->proto) torq__module__free_unpacked(module->proto, NULL);
  tq_free(module->name);
  tq_free(module->dispatch_name);
  tq_free(module->buffers);
  tq_free(module->job_buffers);
  tq_free(module->job_start);
  tq_free(module->host_attrs);
  tq_free(module->attr_start);
  tq_free(module->host_elements);
  tq_free(module);
}

const Torq__Module *tqr_module_proto(const tqr_module_t *module) {
  return module->proto;
}
const char *tqr_module_name(const tqr_module_t *module) {
  return module->name;
}
const char *tqr_module_function_name(const tqr_module_t *module) {
  return module->proto->function->name;
}
const char *tqr_module_dispatch_name(const tqr_module_t *module) {
  return module->dispatch_name;
}
const tqs_hw_t *tqr_module_hw(const tqr_module_t *module) {
  return &module->hw;
}
