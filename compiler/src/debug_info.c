/* The debug-info directory (DESIGN 5.3):
 *
 *     DIR/manifest.json                 format, model path, source copy and its sha256, hardware,
 *                                       the dispatches and their program files
 *     DIR/source/<basename of model>    a byte copy of the model text
 *     DIR/<func>_dispatch_0.torq.mlir   the lowered program, MLIR generic form
 *
 * The program file is one `builtin.module` holding one `torq.dispatch` (name = the dispatch name
 * of the runtime profile), whose region lists, in this order:
 *   "torq.buffer"        id, size, kind (input, output, constant, view, buffer), type, view_of
 *   "torq.action"        "torq-action-id", kind, and "torq-job-id" (NSS_START/NSS_WAIT),
 *                        "torq-host-program-id" (HOST_*), buffer (ALLOC/DEALLOC); loc = operator
 *   "torq.nss_program"   "torq-job-id", "torq-action-id" (of its NSS_START), cycles, kernel
 *                        (its distinct slice kernels in order, space-separated: "rescale add"),
 *                        original_operators ["tosa.conv2d@L12", ...], units (those it uses);
 *                        its region holds "torq.task" ops (index, start, end), each holding
 *                        "torq.unit" ops: id (trace ID), unit, kernel, start, end, bytes or macs
 *   "torq.host_program"  id, "torq-host-program-id", "torq-action-id" (of its HOST_START), op,
 *                        original_operators
 * Cycles are estimates from the start of the NSS program; locations are the source operator's.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "lower_internal.h"
#include "print_internal.h"
#include "torq/base/alloc.h"
#include "torq/base/file.h"
#include "torq/base/sha256.h"
#include "torq/compiler/compile.h"
#include "torq/formats/element.h"

const struct Torq__Module *tqc_compiled_module(const tqc_compiled_t *compiled) {
  return compiled->module;
}

/* An MLIR string literal (also valid JSON for the printable ASCII we produce, except that JSON
 * needs \uXXXX for control bytes: json_string handles JSON). */
static tq_status_t mlir_string(tq_buf_t *out, const char *s) {
  return tqc__print_string(tq_sv_cstr(s ? s : ""), out);
}

static tq_status_t json_string(tq_buf_t *out, const char *s) {
  TQ_TRY(tq_buf_putc(out, '"'));
  for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
    if (*p == '"' || *p == '\\') {
      TQ_TRY(tq_buf_putc(out, '\\'));
      TQ_TRY(tq_buf_putc(out, (char)*p));
    } else if (*p < 0x20) {
      TQ_TRY(tq_buf_printf(out, "\\u%04x", *p));
    } else {
      TQ_TRY(tq_buf_putc(out, (char)*p));
    }
  }
  return tq_buf_putc(out, '"');
}

static const char *action_kind(Torq__ActionKind k) {
  const char *name = tqf_action_kind_name(k);
  return name ? name : "UNSPECIFIED";
}

static tq_status_t loc(tq_buf_t *out, const char *location) {
  if (location && strncmp(location, "loc(", 4) == 0) return tq_buf_printf(out, " %s\n", location);
  return tq_buf_append_cstr(out, " loc(unknown)\n");
}

static tq_status_t op_list(tq_buf_t *out, char **names) {
  TQ_TRY(tq_buf_append_cstr(out, "["));
  for (size_t i = 0; names && names[i]; i++) {
    if (i) TQ_TRY(tq_buf_append_cstr(out, ", "));
    TQ_TRY(mlir_string(out, names[i]));
  }
  return tq_buf_append_cstr(out, "]");
}

static tq_status_t buffers_text(const Torq__Module *m, tq_buf_t *out) {
  const Torq__Function *fn = m->function;
  for (size_t i = 0; i < m->n_buffers; i++) {
    const Torq__Buffer *b = m->buffers[i];
    const char *kind = "buffer";
    for (size_t k = 0; k < fn->n_input_buffers; k++)
      if (fn->input_buffers[k] == b->id) kind = "input";
    for (size_t k = 0; k < fn->n_output_buffers; k++)
      if (fn->output_buffers[k] == b->id) kind = "output";
    if (b->contents_case == TORQ__BUFFER__CONTENTS_CONSTANT_ID) kind = "constant";
    if (b->contents_case == TORQ__BUFFER__CONTENTS_VIEW) kind = "view";
    TQ_TRY(tq_buf_printf(out,
                         "    \"torq.buffer\"() {id = %" PRIu32
                         " : i64, kind = \"%s\", size = %" PRIu64 " : i64, type = \"",
                         b->id, kind, b->size));
    for (size_t d = 0; b->type && d < b->type->n_dims; d++)
      TQ_TRY(tq_buf_printf(out, "%" PRId64 "x", b->type->dims[d]));
    TQ_TRY(tq_buf_printf(out, "%s\"", tqf_element_name(b->type ? b->type->element_type : 0)));
    if (b->contents_case == TORQ__BUFFER__CONTENTS_VIEW)
      TQ_TRY(tq_buf_printf(out, ", view_of = %" PRIu32 " : i64", b->view->buffer_id));
    TQ_TRY(tq_buf_append_cstr(out, "} : () -> () loc(unknown)\n"));
  }
  return NULL;
}

static tq_status_t host_program_text(const tqc_compiled_t *c, const Torq__HostProgram *h,
                                     uint32_t action_id, tq_buf_t *out) {
  TQ_TRY(tq_buf_printf(out,
                       "    \"torq.host_program\"() {id = %" PRIu32
                       " : i64, \"torq-host-program-id\" = %" PRIu32
                       " : i64, \"torq-action-id\" = %" PRIu32 " : i64, op = ",
                       h->id, h->id, action_id));
  TQ_TRY(mlir_string(out, h->op));
  TQ_TRY(tq_buf_append_cstr(out, ", original_operators = "));
  TQ_TRY(op_list(out, c->host_ops[h->id]));
  TQ_TRY(tq_buf_append_cstr(out, "} : () -> ()"));
  return loc(out, h->location);
}

/* Appends `kernel` to the space-separated list `kernels` unless it is there already. */
static tq_status_t add_kernel(tq_buf_t *kernels, const char *kernel) {
  size_t n = strlen(kernel);
  for (const char *k = kernels->data; k && *k;) {
    const char *end = strchr(k, ' ');
    size_t len = end ? (size_t)(end - k) : strlen(k);
    if (len == n && memcmp(k, kernel, n) == 0) return NULL;
    k += len + (end != NULL);
  }
  if (kernels->len) TQ_TRY(tq_buf_putc(kernels, ' '));
  return tq_buf_append_cstr(kernels, kernel);
}

static tq_status_t program_text(const tqc_compiled_t *c, const Torq__NssProgram *p,
                                uint32_t action_id, tq_buf_t *out, tq_buf_t *kernels) {
  const char *location = NULL;
  int used[7] = {0};
  kernels->len = 0;
  if (kernels->data) kernels->data[0] = 0;
  TQ_TRY(tq_buf_append_cstr(out, "    \"torq.nss_program\"() ({\n"));
  for (size_t t = 0; t < p->n_tasks; t++) {
    const Torq__NssTask *task = p->tasks[t];
    TQ_TRY(tq_buf_append_cstr(out, "      \"torq.task\"() ({\n"));
    for (size_t w = 0; w < task->n_work; w++) {
      const Torq__UnitWork *u = task->work[w];
      int slice = u->unit == TORQ__UNIT__SLICE0 || u->unit == TORQ__UNIT__SLICE1;
      if ((unsigned)u->unit < 7) used[u->unit] = 1;
      if (slice) TQ_TRY(add_kernel(kernels, u->kernel));
      location = u->location;
      TQ_TRY(tq_buf_printf(out,
                           "        \"torq.unit\"() {id = \"%s\", unit = \"%s\", kernel = \"%s\", "
                           "start = %" PRIu64 " : i64, end = %" PRIu64 " : i64, ",
                           u->trace_id, tqf_unit_name(u->unit),
                           slice ? u->kernel : tqf_unit_name(u->unit), u->estimated_start,
                           u->estimated_end));
      if (slice)
        TQ_TRY(tq_buf_printf(out, "macs = %" PRIu64 " : i64}", u->macs));
      else
        TQ_TRY(tq_buf_printf(out, "bytes = %" PRIu64 " : i64}", u->bytes));
      TQ_TRY(tq_buf_append_cstr(out, " : () -> ()"));
      TQ_TRY(loc(out, u->location));
    }
    TQ_TRY(tq_buf_printf(out,
                         "      }) {index = %zu : i64, start = %" PRIu64 " : i64, end = %" PRIu64
                         " : i64} : () -> () loc(unknown)\n",
                         t, task->estimated_start, task->estimated_end));
  }
  TQ_TRY(tq_buf_printf(out,
                       "    }) {\"torq-job-id\" = %" PRIu32 " : i64, \"torq-action-id\" = %" PRIu32
                       " : i64, cycles = %" PRIu64 " : i64, kernel = \"%s\", original_operators = ",
                       p->job_id, action_id, p->estimated_cycles,
                       kernels->data ? kernels->data : ""));
  TQ_TRY(op_list(out, c->program_ops[p->job_id]));
  /* A pipeline's stage (lower_nss.c): "prologue", "steady state" or "epilogue". */
  if (p->stage != TORQ__STAGE__WHOLE)
    TQ_TRY(tq_buf_printf(out, ", stage = \"%s\"", tqf_nss_stage_name(p->stage)));
  TQ_TRY(tq_buf_append_cstr(out, ", units = ["));
  int first = 1;
  for (int u = 1; u < 7; u++) {
    if (!used[u]) continue;
    TQ_TRY(tq_buf_printf(out, "%s\"%s\"", first ? "" : ", ", tqf_unit_name((Torq__Unit)u)));
    first = 0;
  }
  TQ_TRY(tq_buf_append_cstr(out, "]} : () -> ()"));
  return loc(out, location);
}

tq_status_t tqc_compiled_debug_program(const tqc_compiled_t *c, tq_buf_t *out) {
  const Torq__Module *m = c->module;
  TQ_TRY(tq_buf_append_cstr(out, "\"builtin.module\"() ({\n  \"torq.dispatch\"() ({\n"));
  TQ_TRY(buffers_text(m, out));
  for (size_t i = 0; i < m->n_actions; i++) {
    const Torq__Action *a = m->actions[i];
    TQ_TRY(tq_buf_printf(
        out, "    \"torq.action\"() {\"torq-action-id\" = %" PRIu32 " : i64, kind = \"%s\"",
        a->action_id, action_kind(a->kind)));
    switch (a->kind) {
      case TORQ__ACTION_KIND__NSS_START:
      case TORQ__ACTION_KIND__NSS_WAIT:
        TQ_TRY(tq_buf_printf(out, ", \"torq-job-id\" = %" PRIu32 " : i64", a->job_id));
        break;
      case TORQ__ACTION_KIND__HOST_START:
      case TORQ__ACTION_KIND__HOST_WAIT:
        TQ_TRY(tq_buf_printf(out, ", \"torq-host-program-id\" = %" PRIu32 " : i64",
                             a->host_program_id));
        break;
      default:
        TQ_TRY(tq_buf_printf(out, ", buffer = %" PRIu32 " : i64", a->buffer_id));
        break;
    }
    TQ_TRY(tq_buf_append_cstr(out, "} : () -> ()"));
    TQ_TRY(loc(out, a->location));
  }
  tq_buf_t kernels;
  tq_buf_init(&kernels, 0);
  tq_status_t st = NULL;
  for (size_t i = 0; i < m->n_actions && !st; i++) {
    const Torq__Action *a = m->actions[i];
    if (a->kind == TORQ__ACTION_KIND__NSS_START && a->job_id < m->n_nss_programs)
      st = program_text(c, m->nss_programs[a->job_id], a->action_id, out, &kernels);
    if (a->kind == TORQ__ACTION_KIND__HOST_START && a->host_program_id < m->n_host_programs)
      st = host_program_text(c, m->host_programs[a->host_program_id], a->action_id, out);
  }
  tq_buf_deinit(&kernels);
  TQ_TRY(st);
  char dispatch[300];
  snprintf(dispatch, sizeof(dispatch), "%.256s_dispatch_0", c->func_name);
  TQ_TRY(tq_buf_append_cstr(out, "  }) {name = "));
  TQ_TRY(mlir_string(out, dispatch));
  TQ_TRY(tq_buf_append_cstr(out, ", function = "));
  TQ_TRY(mlir_string(out, c->func_name));
  return tq_buf_append_cstr(out, "} : () -> () loc(unknown)\n}) : () -> () loc(unknown)\n");
}

static const char *basename_of(const char *path) {
  if (!path || !*path) return "model.mlir";
  const char *slash = strrchr(path, '/');
  const char *base = slash ? slash + 1 : path;
  return *base ? base : "model.mlir";
}

static tq_status_t write_file(const char *dir, const char *name, const tq_buf_t *data) {
  tq_buf_t path;
  tq_buf_init(&path, 0);
  tq_status_t st = tq_buf_printf(&path, "%s/%s", dir, name);
  if (!st) st = tq_file_write_atomic(path.data, data->data ? data->data : "", data->len);
  tq_buf_deinit(&path);
  return st;
}

tq_status_t tqc_compiled_write_debug_info(const tqc_compiled_t *c, const char *dir) {
  tq_buf_t path, text;
  tq_buf_init(&path, 0);
  tq_buf_init(&text, 0);
  const char *base = basename_of(c->source_path);
  char dispatch[300];
  snprintf(dispatch, sizeof(dispatch), "%.256s_dispatch_0", c->func_name);
  uint8_t digest[TQ_SHA256_SIZE];
  char hex[TQ_SHA256_HEX_SIZE];
  tq_status_t st = tq_file_mkdirs(dir);
  if (!st) st = tq_buf_printf(&path, "%s/source", dir);
  if (!st) st = tq_file_mkdirs(path.data);
  if (!st) st = tq_buf_append(&text, c->source_text, c->source_len);
  if (!st && !text.data) st = tq_buf_append(&text, "", 0);
  if (!st) {
    tq_buf_clear(&path);
    st = tq_buf_printf(&path, "source/%s", base);
  }
  if (!st) st = write_file(dir, path.data, &text);
  if (!st) st = tq_sha256(c->source_text, c->source_len, digest);
  if (!st) {
    tq_sha256_hex(digest, hex);
    tq_buf_clear(&text);
    st = tqc_compiled_debug_program(c, &text);
  }
  if (!st) {
    tq_buf_clear(&path);
    st = tq_buf_printf(&path, "%s.torq.mlir", dispatch);
  }
  if (!st) st = write_file(dir, path.data, &text);
  if (!st) {
    const Torq__Hardware *hw = c->module->hardware;
    tq_buf_clear(&text);
    st = tq_buf_append_cstr(&text, "{\n  \"format\": 1,\n  \"model\": ");
    if (!st) st = json_string(&text, c->source_path);
    if (!st) st = tq_buf_append_cstr(&text, ",\n  \"source\": ");
    if (!st) {
      tq_buf_clear(&path);
      st = tq_buf_printf(&path, "source/%s", base);
    }
    if (!st) st = json_string(&text, path.data);
    if (!st) st = tq_buf_printf(&text, ",\n  \"source_sha256\": \"%s\",\n  \"function\": ", hex);
    if (!st) st = json_string(&text, c->func_name);
    if (!st) st = tq_buf_append_cstr(&text, ",\n  \"hardware\": {\"spec\": ");
    if (!st) st = json_string(&text, hw->spec);
    if (!st)
      st = tq_buf_printf(&text,
                         ", \"clock_hz\": %" PRIu64 ", \"lram_bytes\": %" PRIu64
                         ", \"slices\": %" PRIu32 "},\n  \"dispatches\": [{\"name\": ",
                         hw->clock_hz, hw->lram_bytes, hw->slices);
    if (!st) st = json_string(&text, dispatch);
    if (!st) st = tq_buf_append_cstr(&text, ", \"program\": ");
    if (!st) {
      tq_buf_clear(&path);
      st = tq_buf_printf(&path, "%s.torq.mlir", dispatch);
    }
    if (!st) st = json_string(&text, path.data);
    if (!st) st = tq_buf_append_cstr(&text, "}]\n}\n");
    if (!st) st = write_file(dir, "manifest.json", &text);
  }
  tq_buf_deinit(&path);
  tq_buf_deinit(&text);
  return st;
}
