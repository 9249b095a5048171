/* Test helpers: module builder, standard modules, fake device, files. */
#include "helpers.h"

#include <dirent.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "torq/base/alloc.h"
#include "torq/base/file.h"
#include "tq_test.h"

void ck_status(tq_status_t st, tq_status_code_t code, const char *needle) {
  ck_assert_msg(st != NULL, "expected an error containing \"%s\", got OK", needle);
  char *text = tq_status_format(st, 0);
  const char *msg = tq_status_message(st);
  int code_ok = tq_status_code(st) == code;
  int found = text && strstr(text, needle) != NULL;
  char copy[1024];
  snprintf(copy, sizeof(copy), "%s", text ? text : "?");
  free(text);
  (void)msg;
  tq_status_code_t got = tq_status_code(st);
  tq_status_free(st);
  ck_assert_msg(code_ok, "expected code %s, got %s: %s", tq_status_code_name(code),
                tq_status_code_name(got), copy);
  ck_assert_msg(found, "expected \"%s\" in: %s", needle, copy);
}

static void *zalloc(tb_t *tb, size_t size) {
  void *p = tq_arena_calloc(&tb->arena, 1, size);
  ck_assert_ptr_nonnull(p);
  return p;
}

static char *tb_strdup(tb_t *tb, const char *s) {
  char *p = tq_arena_strndup(&tb->arena, s, strlen(s));
  ck_assert_ptr_nonnull(p);
  return p;
}

void tb_init(tb_t *tb) {
  memset(tb, 0, sizeof(*tb));
  tq_arena_init(&tb->arena, 0, 0);
  Torq__Module m = TORQ__MODULE__INIT;
  Torq__Hardware hw = TORQ__HARDWARE__INIT;
  Torq__Function fn = TORQ__FUNCTION__INIT;
  tb->m = m;
  tb->hw = hw;
  tb->fn = fn;
  tb->m.magic = tb_strdup(tb, "TORQVMFB");
  tb->m.format_version = 1;
  tb->m.producer = tb_strdup(tb, "runtime-tests");
  tb->m.source_name = tb_strdup(tb, "hand-made.mlir");
  tb->hw.spec = tb_strdup(tb, "sl2610");
  tb->hw.clock_hz = 800000000u;
  tb->hw.lram_bytes = 512u * 1024u;
  tb->hw.slices = 2;
  tb->fn.name = tb_strdup(tb, "main");
  tb->m.hardware = &tb->hw;
  tb->m.function = &tb->fn;
  tb->m.constants = tb->constants;
  tb->m.buffers = tb->buffers;
  tb->m.actions = tb->actions;
  tb->m.nss_programs = tb->programs;
  tb->m.host_programs = tb->hosts;
  tb->fn.input_buffers = tb->in_bufs;
  tb->fn.output_buffers = tb->out_bufs;
  tb->fn.inputs = tb->in_types;
  tb->fn.outputs = tb->out_types;
}

void tb_deinit(tb_t *tb) {
  tq_arena_deinit(&tb->arena);
}

Torq__TensorType *tb_type(tb_t *tb, Torq__ElementType et, size_t rank, const int64_t *dims) {
  Torq__TensorType *t = zalloc(tb, sizeof(*t));
  Torq__TensorType init = TORQ__TENSOR_TYPE__INIT;
  *t = init;
  t->element_type = et;
  t->n_dims = rank;
  t->dims = zalloc(tb, (rank ? rank : 1) * sizeof(int64_t));
  if (rank) memcpy(t->dims, dims, rank * sizeof(int64_t));
  return t;
}

static Torq__Buffer *new_buffer(tb_t *tb, Torq__ElementType et, size_t rank, const int64_t *dims) {
  ck_assert_uint_lt(tb->m.n_buffers, TB_MAX);
  Torq__Buffer *b = zalloc(tb, sizeof(*b));
  Torq__Buffer init = TORQ__BUFFER__INIT;
  *b = init;
  b->id = (uint32_t)tb->m.n_buffers;
  b->memory = TORQ__MEMORY__XRAM;
  b->type = tb_type(tb, et, rank, dims);
  size_t size;
  TQ_CK(tqr_tensor_byte_size(et, rank, dims, &size));
  b->size = size;
  tb->buffers[tb->m.n_buffers++] = b;
  return b;
}

uint32_t tb_buffer(tb_t *tb, Torq__ElementType et, size_t rank, const int64_t *dims) {
  return new_buffer(tb, et, rank, dims)->id;
}

uint32_t tb_const(tb_t *tb, Torq__ElementType et, size_t rank, const int64_t *dims,
                  const void *data) {
  Torq__Buffer *b = new_buffer(tb, et, rank, dims);
  Torq__Constant *c = zalloc(tb, sizeof(*c));
  Torq__Constant init = TORQ__CONSTANT__INIT;
  *c = init;
  c->id = (uint32_t)tb->m.n_constants;
  c->type = tb_type(tb, et, rank, dims);
  c->data.len = b->size;
  c->data.data = zalloc(tb, b->size ? b->size : 1);
  if (b->size) memcpy(c->data.data, data, b->size);
  tb->constants[tb->m.n_constants++] = c;
  b->contents_case = TORQ__BUFFER__CONTENTS_CONSTANT_ID;
  b->constant_id = c->id;
  return b->id;
}

uint32_t tb_view(tb_t *tb, uint32_t base, uint64_t offset, Torq__ElementType et, size_t rank,
                 const int64_t *dims) {
  Torq__Buffer *b = new_buffer(tb, et, rank, dims);
  Torq__View *v = zalloc(tb, sizeof(*v));
  Torq__View init = TORQ__VIEW__INIT;
  *v = init;
  v->buffer_id = base;
  v->offset = offset;
  b->contents_case = TORQ__BUFFER__CONTENTS_VIEW;
  b->view = v;
  return b->id;
}

void tb_input(tb_t *tb, uint32_t buffer) {
  const Torq__TensorType *t = tb->buffers[buffer]->type;
  tb->in_types[tb->fn.n_inputs++] = tb_type(tb, t->element_type, t->n_dims, t->dims);
  tb->in_bufs[tb->fn.n_input_buffers++] = buffer;
}

void tb_output(tb_t *tb, uint32_t buffer) {
  const Torq__TensorType *t = tb->buffers[buffer]->type;
  tb->out_types[tb->fn.n_outputs++] = tb_type(tb, t->element_type, t->n_dims, t->dims);
  tb->out_bufs[tb->fn.n_output_buffers++] = buffer;
}

static Torq__Action *new_action(tb_t *tb, Torq__ActionKind kind) {
  ck_assert_uint_lt(tb->m.n_actions, 4 * TB_MAX);
  Torq__Action *a = zalloc(tb, sizeof(*a));
  Torq__Action init = TORQ__ACTION__INIT;
  *a = init;
  a->action_id = (uint32_t)tb->m.n_actions;
  a->kind = kind;
  a->location = tb_strdup(tb, "loc(\"hand-made.mlir\":1:1)");
  tb->actions[tb->m.n_actions++] = a;
  return a;
}

uint32_t tb_action(tb_t *tb, Torq__ActionKind kind, uint32_t arg) {
  Torq__Action *a = new_action(tb, kind);
  switch (kind) {
    case TORQ__ACTION_KIND__ALLOC:
    case TORQ__ACTION_KIND__DEALLOC:
      a->buffer_id = arg;
      break;
    case TORQ__ACTION_KIND__NSS_START:
    case TORQ__ACTION_KIND__NSS_WAIT:
      a->job_id = arg;
      break;
    default:
      a->host_program_id = arg;
      break;
  }
  return a->action_id;
}

uint32_t tb_copy(tb_t *tb, uint32_t dst, uint64_t dst_offset, uint32_t src, uint64_t src_offset,
                 uint64_t size) {
  Torq__Action *a = new_action(tb, TORQ__ACTION_KIND__HOST_COPY);
  a->buffer_id = dst;
  a->offset = dst_offset;
  a->src_buffer_id = src;
  a->src_offset = src_offset;
  a->size = size;
  return a->action_id;
}

static Torq__Region *region(tb_t *tb, Torq__Memory mem, uint32_t buffer, uint64_t offset,
                            uint64_t size) {
  Torq__Region *r = zalloc(tb, sizeof(*r));
  Torq__Region init = TORQ__REGION__INIT;
  *r = init;
  r->memory = mem;
  r->buffer_id = buffer;
  r->offset = offset;
  r->size = size;
  return r;
}

static Torq__NssTask *dma_task(tb_t *tb, Torq__Unit unit, const char *id, Torq__Region *src,
                               Torq__Region *dst, uint64_t start, uint64_t end) {
  Torq__UnitWork *w = zalloc(tb, sizeof(*w));
  Torq__UnitWork winit = TORQ__UNIT_WORK__INIT;
  *w = winit;
  w->unit = unit;
  w->trace_id = tb_strdup(tb, id);
  w->kernel = tb_strdup(tb, "");
  w->estimated_start = start;
  w->estimated_end = end;
  w->bytes = src->size;
  w->location = tb_strdup(tb, "loc(\"hand-made.mlir\":1:1)");
  w->n_regions = 2;
  w->regions = zalloc(tb, 2 * sizeof(*w->regions));
  w->regions[0] = src;
  w->regions[1] = dst;
  Torq__NssTask *t = zalloc(tb, sizeof(*t));
  Torq__NssTask tinit = TORQ__NSS_TASK__INIT;
  *t = tinit;
  t->estimated_start = start;
  t->estimated_end = end;
  t->n_work = 1;
  t->work = zalloc(tb, sizeof(*t->work));
  t->work[0] = w;
  return t;
}

uint32_t tb_dma_program(tb_t *tb, uint32_t src, uint32_t dst, uint64_t bytes) {
  ck_assert_uint_lt(tb->m.n_nss_programs, TB_MAX);
  Torq__NssProgram *p = zalloc(tb, sizeof(*p));
  Torq__NssProgram init = TORQ__NSS_PROGRAM__INIT;
  *p = init;
  p->job_id = (uint32_t)tb->m.n_nss_programs;
  p->n_tasks = 2;
  p->tasks = zalloc(tb, 2 * sizeof(*p->tasks));
  char in[16], out[16];
  snprintf(in, sizeof(in), "DI%u", p->job_id);
  snprintf(out, sizeof(out), "DO%u", p->job_id);
  p->tasks[0] = dma_task(tb, TORQ__UNIT__DMA_IN, in, region(tb, TORQ__MEMORY__XRAM, src, 0, bytes),
                         region(tb, TORQ__MEMORY__LRAM, 0, 0, bytes), 0, 10);
  p->tasks[1] = dma_task(tb, TORQ__UNIT__DMA_OUT, out, region(tb, TORQ__MEMORY__LRAM, 0, 0, bytes),
                         region(tb, TORQ__MEMORY__XRAM, dst, 0, bytes), 26, 36);
  p->estimated_cycles = 36;
  tb->programs[tb->m.n_nss_programs++] = p;
  return p->job_id;
}

Torq__Region *tb_region(tb_t *tb, uint32_t job, size_t t, size_t w, size_t k) {
  return tb->programs[job]->tasks[t]->work[w]->regions[k];
}

uint32_t tb_host(tb_t *tb, const char *op, size_t n_ops, const uint32_t *ops, size_t n_res,
                 const uint32_t *res) {
  ck_assert_uint_lt(tb->m.n_host_programs, TB_MAX);
  Torq__HostProgram *h = zalloc(tb, sizeof(*h));
  Torq__HostProgram init = TORQ__HOST_PROGRAM__INIT;
  *h = init;
  h->id = (uint32_t)tb->m.n_host_programs;
  h->op = tb_strdup(tb, op);
  h->location = tb_strdup(tb, "loc(\"hand-made.mlir\":2:3)");
  h->operand_buffers = zalloc(tb, (n_ops + 1) * sizeof(uint32_t));
  h->result_buffers = zalloc(tb, (n_res + 1) * sizeof(uint32_t));
  if (n_ops) memcpy(h->operand_buffers, ops, n_ops * sizeof(uint32_t));
  if (n_res) memcpy(h->result_buffers, res, n_res * sizeof(uint32_t));
  h->n_operand_buffers = n_ops;
  h->n_result_buffers = n_res;
  h->attributes = zalloc(tb, 8 * sizeof(*h->attributes));
  tb->hosts[tb->m.n_host_programs++] = h;
  return h->id;
}

static Torq__Attribute *new_attr(tb_t *tb, uint32_t host, const char *key) {
  Torq__HostProgram *h = tb->hosts[host];
  ck_assert_uint_lt(h->n_attributes, 8);
  Torq__Attribute *a = zalloc(tb, sizeof(*a));
  Torq__Attribute init = TORQ__ATTRIBUTE__INIT;
  *a = init;
  a->key = tb_strdup(tb, key);
  h->attributes[h->n_attributes++] = a;
  return a;
}

void tb_host_attr_ints(tb_t *tb, uint32_t host, const char *key, size_t n, const int64_t *values) {
  Torq__Attribute *a = new_attr(tb, host, key);
  Torq__Ints *v = zalloc(tb, sizeof(*v));
  Torq__Ints init = TORQ__INTS__INIT;
  *v = init;
  v->n_values = n;
  v->values = zalloc(tb, (n ? n : 1) * sizeof(int64_t));
  if (n) memcpy(v->values, values, n * sizeof(int64_t));
  a->value_case = TORQ__ATTRIBUTE__VALUE_INTS;
  a->ints = v;
}

void tb_host_attr_str(tb_t *tb, uint32_t host, const char *key, const char *value) {
  Torq__Attribute *a = new_attr(tb, host, key);
  a->value_case = TORQ__ATTRIBUTE__VALUE_STR;
  a->str = tb_strdup(tb, value);
}

void tb_pack(tb_t *tb, tq_buf_t *out) {
  tq_buf_init(out, 0);
  size_t n = torq__module__get_packed_size(&tb->m);
  TQ_CK(tq_buf_reserve(out, n));
  out->len = torq__module__pack(&tb->m, (uint8_t *)out->data);
  ck_assert_uint_eq(out->len, n);
  out->data[out->len] = 0;
}

tq_status_t tb_load(tb_t *tb, tqr_module_t **out_module) {
  tq_buf_t b;
  tb_pack(tb, &b);
  tq_status_t st = tqr_module_load("test.vmfb", b.data, b.len, NULL, out_module);
  tq_buf_deinit(&b);
  return st;
}

void tb_tiny(tb_t *tb) {
  tb_init(tb);
  static const int8_t c_data[4] = {1, 2, 3, 4};
  uint32_t in = tb_buffer(tb, TORQ__ELEMENT_TYPE__I8, TB_DIMS(1, 4));
  uint32_t c = tb_const(tb, TORQ__ELEMENT_TYPE__I8, TB_DIMS(1, 4), c_data);
  uint32_t t = tb_buffer(tb, TORQ__ELEMENT_TYPE__I8, TB_DIMS(1, 4));
  uint32_t o = tb_buffer(tb, TORQ__ELEMENT_TYPE__I8, TB_DIMS(1, 4));
  tb_input(tb, in);
  tb_output(tb, o);
  uint32_t ops[2] = {in, c};
  uint32_t h = tb_host(tb, "tosa.add", 2, ops, 1, &t);
  uint32_t j = tb_dma_program(tb, t, o, 4);
  tb_action(tb, TORQ__ACTION_KIND__ALLOC, c);
  tb_action(tb, TORQ__ACTION_KIND__ALLOC, t);
  tb_action(tb, TORQ__ACTION_KIND__HOST_START, h);
  tb_action(tb, TORQ__ACTION_KIND__HOST_WAIT, h);
  tb_action(tb, TORQ__ACTION_KIND__DEALLOC, c);
  tb_action(tb, TORQ__ACTION_KIND__ALLOC, o);
  tb_action(tb, TORQ__ACTION_KIND__NSS_START, j);
  tb_action(tb, TORQ__ACTION_KIND__NSS_WAIT, j);
  tb_copy(tb, o, 0, t, 2, 2);
  tb_action(tb, TORQ__ACTION_KIND__DEALLOC, t);
}

void tb_copy_module(tb_t *tb) {
  tb_init(tb);
  uint32_t in = tb_buffer(tb, TORQ__ELEMENT_TYPE__I8, TB_DIMS(1, 4));
  uint32_t o = tb_buffer(tb, TORQ__ELEMENT_TYPE__I8, TB_DIMS(1, 4));
  tb_input(tb, in);
  tb_output(tb, o);
  uint32_t j = tb_dma_program(tb, in, o, 4);
  tb_action(tb, TORQ__ACTION_KIND__ALLOC, o);
  tb_action(tb, TORQ__ACTION_KIND__NSS_START, j);
  tb_action(tb, TORQ__ACTION_KIND__NSS_WAIT, j);
}

/* ---- Fake device ---------------------------------------------------------------------------- */

static void logf_(fake_device_t *d, const char *fmt, ...) TQ_PRINTF(2, 3);
static void logf_(fake_device_t *d, const char *fmt, ...) {
  size_t n = strlen(d->log);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(d->log + n, sizeof(d->log) - n, fmt, ap);
  va_end(ap);
}

static void fake_destroy(tqr_device_t *device) {
  fake_device_t *d = (fake_device_t *)device;
  tq_free(d->lram);
  tq_free(d);
}

static tq_status_t fake_prepare(tqr_device_t *device, const tqr_module_t *module,
                                const tqs_hw_t *hw) {
  fake_device_t *d = (fake_device_t *)device;
  tq_free(d->lram);
  d->lram_size = (size_t)hw->lram_bytes;
  d->lram = tq_calloc(1, d->lram_size ? d->lram_size : 1);
  if (!d->lram) return TQ_STATUS(TQ_OUT_OF_MEMORY, "fake device: no LRAM");
  logf_(d, "prepare %zu;", tqr_module_proto(module)->n_nss_programs);
  return NULL;
}

/* Dense regions only: a pointer to the region's bytes, or NULL. */
static uint8_t *fake_span(fake_device_t *d, const Torq__Region *r, const tqs_xram_buffer_t *xram,
                          size_t num_xram) {
  if (r->n_counts) return NULL;
  if (r->memory == TORQ__MEMORY__LRAM) {
    if (r->offset > d->lram_size || r->size > d->lram_size - r->offset) return NULL;
    return d->lram + r->offset;
  }
  if (r->buffer_id >= num_xram || !xram[r->buffer_id].data) return NULL;
  if (r->offset > xram[r->buffer_id].size || r->size > xram[r->buffer_id].size - r->offset)
    return NULL;
  return xram[r->buffer_id].data + r->offset;
}

static tq_status_t fake_start(tqr_device_t *device, const Torq__NssProgram *program,
                              const tqs_xram_buffer_t *xram, size_t num_xram) {
  fake_device_t *d = (fake_device_t *)device;
  logf_(d, "start %u;", program->job_id);
  if (d->fail_start_job == (int64_t)program->job_id)
    return TQ_STATUS(TQ_INVALID_INPUT, "fake device: job %u fails to start", program->job_id);
  for (size_t t = 0; t < program->n_tasks; t++) {
    for (size_t w = 0; w < program->tasks[t]->n_work; w++) {
      const Torq__UnitWork *work = program->tasks[t]->work[w];
      if (work->unit != TORQ__UNIT__DMA_IN && work->unit != TORQ__UNIT__DMA_OUT) continue;
      for (size_t k = 0; k + 1 < work->n_regions; k += 2) {
        const Torq__Region *s = work->regions[k], *x = work->regions[k + 1];
        uint8_t *src = fake_span(d, s, xram, num_xram), *dst = fake_span(d, x, xram, num_xram);
        if (src && dst && s->size == x->size && s->size) memmove(dst, src, s->size);
      }
    }
  }
  if (program->job_id < TB_MAX) d->pending[program->job_id] = 1;
  return NULL;
}

static tq_status_t fake_wait(tqr_device_t *device, uint32_t job_id, tqr_nss_result_t *out_result) {
  fake_device_t *d = (fake_device_t *)device;
  logf_(d, "wait %u;", job_id);
  if (d->fail_wait_job == (int64_t)job_id)
    return TQ_STATUS(TQ_INTERNAL, "fake device: job %u failed", job_id);
  if (job_id < TB_MAX) d->pending[job_id] = 0;
  out_result->cycles = d->cycles_per_job * (job_id + 1);
  out_result->tasks = 2;
  return NULL;
}

static void fake_reset(tqr_device_t *device) {
  fake_device_t *d = (fake_device_t *)device;
  logf_(d, "reset;");
  memset(d->pending, 0, sizeof(d->pending));
}

static const tqr_device_vtable_t fake_vtable = {
    .destroy = fake_destroy,
    .prepare = fake_prepare,
    .nss_start = fake_start,
    .nss_wait = fake_wait,
    .reset = fake_reset,
};

fake_device_t *fake_device_create(uint32_t flags) {
  fake_device_t *d = tq_calloc(1, sizeof(*d));
  ck_assert_ptr_nonnull(d);
  d->base.vtable = &fake_vtable;
  d->base.flags = flags;
  d->base.name = "fake";
  d->cycles_per_job = 1600;
  d->fail_start_job = -1;
  d->fail_wait_job = -1;
  return d;
}

/* ---- Files ---------------------------------------------------------------------------------- */

void tmpdir_make(char *out) {
  const char *base = getenv("TMPDIR");
  snprintf(out, PATH_MAX, "%s/torq-rt-XXXXXX", base && *base ? base : "/tmp");
  ck_assert_ptr_nonnull(mkdtemp(out));
}

void tmpdir_remove(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  char path[PATH_MAX];
  while ((e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
    unlink(path);
  }
  closedir(d);
  rmdir(dir);
}

char *slurp(const char *path, size_t *out_len) {
  tq_buf_t b;
  tq_status_t st = tq_file_read(path, 0, &b);
  if (st) {
    tq_status_free(st);
    tq_buf_deinit(&b);
    return NULL;
  }
  if (out_len) *out_len = b.len;
  char *s = tq_buf_detach(&b);
  tq_buf_deinit(&b);
  return s;
}

void write_file(const char *path, const void *data, size_t len) {
  FILE *f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  ck_assert_uint_eq(fwrite(data, 1, len, f), len);
  ck_assert_int_eq(fclose(f), 0);
}

void tb_host_module(tb_t *tb, const char *op, const int32_t c[4]) {
  tb_init(tb);
  uint32_t in = tb_buffer(tb, TORQ__ELEMENT_TYPE__I32, TB_DIMS(4));
  uint32_t cb = tb_const(tb, TORQ__ELEMENT_TYPE__I32, TB_DIMS(4), c);
  uint32_t o = tb_buffer(tb, TORQ__ELEMENT_TYPE__I32, TB_DIMS(4));
  tb_input(tb, in);
  tb_output(tb, o);
  uint32_t ops[2] = {in, cb};
  uint32_t h = tb_host(tb, op, 2, ops, 1, &o);
  tb_action(tb, TORQ__ACTION_KIND__ALLOC, cb);
  tb_action(tb, TORQ__ACTION_KIND__ALLOC, o);
  tb_action(tb, TORQ__ACTION_KIND__HOST_START, h);
  tb_action(tb, TORQ__ACTION_KIND__HOST_WAIT, h);
  tb_action(tb, TORQ__ACTION_KIND__DEALLOC, cb);
}

void run_and_expect(const tqr_module_t *module, tqr_device_t *device, tqr_profile_t *profile,
                    const char *input, const char *expected) {
  tqr_session_options_t o;
  tqr_session_options_initialize(&o);
  o.profile = profile;
  tqr_session_t *s;
  TQ_CK(tqr_session_create(module, device, &o, &s));
  tqr_tensor_t *in, *out[4] = {0};
  TQ_CK(tqr_input_parse(input, NULL, &in));
  size_t n_out = tqr_module_proto(module)->function->n_outputs;
  TQ_CK(tqr_session_invoke(s, (const tqr_tensor_t *const *)&in, 1, out, n_out));
  tq_buf_t b;
  tq_buf_init(&b, 0);
  TQ_CK(tqr_tensor_format(out[0], 1024, &b));
  ck_assert_str_eq(b.data, expected);
  tq_buf_deinit(&b);
  for (size_t i = 0; i < n_out; i++) tqr_tensor_destroy(out[i]);
  tqr_tensor_destroy(in);
  tqr_session_destroy(s);
}

void test_module_path(const char *name, char out[4096]) {
  const char *dir = getenv("TORQ_TEST_MODULES");
  if (dir && *dir)
    snprintf(out, 4096, "%s/%s.vmfb", dir, name);
  else /* build/<flavour>/test-modules, beside the tools' folder */
    snprintf(out, 4096, "%s/../test-modules/%s.vmfb", tq_test_bin(), name);
}
