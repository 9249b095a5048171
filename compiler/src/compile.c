/* tqc_compile and the module emitters: the packed module and the compile-time trace. */
#include <inttypes.h>
#include <string.h>

#include "lower_internal.h"
#include "parser_internal.h"
#include "torq/base/alloc.h"
#include "torq/base/version.h"
#include "torq/compiler/compile.h"
#include "torq/compiler/tosa.h"
#include "torq/formats/module.h"

#define TQC_PRODUCER "torq-compile " TQ_VERSION

void tqc_compile_options_initialize(tqc_compile_options_t *options) {
  memset(options, 0, sizeof(*options));
  tqs_hw_initialize_sl2610(&options->hw);
  options->hw_spec = "sl2610";
}

static char *arena_str(tq_arena_t *arena, const char *s) {
  return tq_arena_strndup(arena, s ? s : "", s ? strlen(s) : 0);
}

/* Moves a pointer vector into a protobuf repeated field. */
#define TQC_SET_REPEATED(field, n_field, vec, type) \
  do {                                              \
    (field) = (type **)(vec).items;                 \
    (n_field) = (vec).count;                        \
  } while (0)

tq_status_t tqc_compile(const tqc_module_t *module, const tqc_compile_options_t *options,
                        tqc_compiled_t **out_compiled) {
  *out_compiled = NULL;
  tqc_compile_options_t defaults;
  if (!options) {
    tqc_compile_options_initialize(&defaults);
    options = &defaults;
  }
  if (options->hw.slices < 1 || options->hw.slices > TQS_HW_MAX_SLICES)
    return TQ_STATUS(TQ_INVALID_ARGUMENT, "the hardware has %u slices; 1 or 2 are supported",
                     options->hw.slices);
  TQ_TRY(tqc_tosa_check(module));
  const tqc_op_t *func = tqc_module_entry(module);
  const char *path = module->path ? module->path : "<input>";
  if (!func)
    return tqc__diag(path, module->text, module->text_len, 1, 1,
                     "no entry function: need @main or a public func.func with a body");
  if (func->num_regions != 1 || func->regions[0].num_blocks != 1)
    return tqc__diag(path, module->text, module->text_len, func->pos.line, func->pos.col,
                     "the entry function must have exactly one block");

  tqc_compiled_t *c = tq_calloc(1, sizeof(*c));
  if (!c) return TQC_OOM("compiling");
  tq_arena_init(&c->arena, 0, 0);
  c->hw = options->hw;
  tqc_lower_t L;
  memset(&L, 0, sizeof(L));
  tq_status_t st = NULL;
  L.arena = &c->arena;
  L.src = module;
  L.hw = &c->hw;
  L.tiling = options->tiling;
  L.vals = tq_calloc(module->num_values ? module->num_values : 1, sizeof(*L.vals));
  Torq__Module *m = tq_arena_alloc(&c->arena, sizeof(*m));
  Torq__Hardware *hw = tq_arena_alloc(&c->arena, sizeof(*hw));
  Torq__Function *fn = tq_arena_alloc(&c->arena, sizeof(*fn));
  if (!L.vals || !m || !hw || !fn) {
    st = TQC_OOM("compiling");
    goto fail;
  }
  for (size_t i = 0; i < module->num_values; i++) L.vals[i].buffer = -1;
  Torq__Module minit = TORQ__MODULE__INIT;
  Torq__Hardware hinit = TORQ__HARDWARE__INIT;
  Torq__Function finit = TORQ__FUNCTION__INIT;
  *m = minit;
  *hw = hinit;
  *fn = finit;
  tq_sv_t fname = tqc_op_sym_name(func);
  m->magic = arena_str(&c->arena, TQF_MODULE_MAGIC);
  m->format_version = TQF_MODULE_FORMAT_VERSION;
  m->producer = arena_str(&c->arena, TQC_PRODUCER);
  m->source_name = arena_str(&c->arena, module->path);
  hw->spec = arena_str(&c->arena, options->hw_spec ? options->hw_spec : "sl2610");
  hw->clock_hz = c->hw.clock_hz;
  hw->lram_bytes = c->hw.lram_bytes;
  hw->slices = c->hw.slices;
  fn->name = tq_arena_strndup(&c->arena, fname.data ? fname.data : "", fname.len);
  m->hardware = hw;
  m->function = fn;
  c->module = m;
  c->func_name = fn->name;
  c->source_path = m->source_name;
  c->source_text = tq_arena_strndup(&c->arena, module->text ? module->text : "", module->text_len);
  c->source_len = module->text_len;
  if (!m->magic || !m->producer || !m->source_name || !hw->spec || !fn->name || !c->source_text) {
    st = TQC_OOM("compiling");
    goto fail;
  }
  L.module = m;
  if ((st = tqc__lower(&L, func))) goto fail;
  TQC_SET_REPEATED(m->constants, m->n_constants, L.constants, Torq__Constant);
  TQC_SET_REPEATED(m->buffers, m->n_buffers, L.buffers, Torq__Buffer);
  TQC_SET_REPEATED(m->actions, m->n_actions, L.actions, Torq__Action);
  TQC_SET_REPEATED(m->nss_programs, m->n_nss_programs, L.programs, Torq__NssProgram);
  TQC_SET_REPEATED(m->host_programs, m->n_host_programs, L.hosts, Torq__HostProgram);
  c->program_ops = (char ***)L.program_ops.items;
  c->host_ops = (char ***)L.host_ops.items;
  tq_free(L.vals);
  tq_free(L.bufs);
  tq_free(L.touched);
  *out_compiled = c;
  return NULL;
fail:
  tq_free(L.vals);
  tq_free(L.bufs);
  tq_free(L.touched);
  tqc_compiled_destroy(c);
  return st;
}

tq_status_t tqc_compiled_pack(const tqc_compiled_t *compiled, tq_buf_t *out) {
  size_t size = torq__module__get_packed_size(compiled->module);
  /* A module the runtime would refuse is never written. */
  if (size > TQF_MODULE_MAX_BYTES)
    return TQ_STATUS(TQ_LIMIT,
                     "%s: the compiled module would be %zu bytes, above the limit of %" PRIu64
                     " bytes for a module (the runtime loads no larger file)",
                     compiled->source_path ? compiled->source_path : "<input>", size,
                     TQF_MODULE_MAX_BYTES);
  TQ_TRY(tq_buf_reserve_filled(out, size));
  size_t written = torq__module__pack(compiled->module, (uint8_t *)out->data + out->len);
  if (written != size)
    return TQ_STATUS(TQ_INTERNAL, "protobuf-c packed %zu bytes of %zu", written, size);
  out->len += size;
  out->data[out->len] = '\0';
  return NULL;
}

/* The unit's name for DMA, CDMA and CSS rows; the kernel for slices. */
static const char *op_type(const Torq__UnitWork *u) {
  if (u->unit == TORQ__UNIT__DMA_IN || u->unit == TORQ__UNIT__DMA_OUT ||
      u->unit == TORQ__UNIT__CDMA || u->unit == TORQ__UNIT__CSS)
    return tqf_unit_name(u->unit);
  return u->kernel && *u->kernel ? u->kernel : "?";
}

/* One compile-time timeline for the whole module: NSS program k starts when program k - 1
 * ended. Host programs run on the host CPU, which the cost model does not estimate, so they take
 * 0 cycles on this timeline (the runtime profile measures them). */
tq_status_t tqc_compiled_trace_csv(const tqc_compiled_t *compiled, tq_buf_t *out) {
  const Torq__Module *m = compiled->module;
  tqc_trace_t trace;
  tqc_trace_init(&trace);
  tq_status_t st = NULL;
  uint64_t offset = 0;
  for (size_t p = 0; p < m->n_nss_programs && !st; p++) {
    const Torq__NssProgram *prog = m->nss_programs[p];
    for (size_t t = 0; t < prog->n_tasks && !st; t++) {
      const Torq__NssTask *task = prog->tasks[t];
      for (size_t w = 0; w < task->n_work && !st; w++) {
        const Torq__UnitWork *u = task->work[w];
        st = tqc_trace_add(&trace, u->trace_id, offset + u->estimated_start,
                           offset + u->estimated_end, u->location, op_type(u));
      }
    }
    offset += prog->estimated_cycles;
  }
  if (!st) st = tqc_trace_write_csv(&trace, out);
  tqc_trace_deinit(&trace);
  return st;
}

uint64_t tqc_module_estimated_cycles(const struct Torq__Module *module) {
  uint64_t total = 0;
  for (size_t p = 0; module && p < module->n_nss_programs; p++)
    total += module->nss_programs[p]->estimated_cycles;
  return total;
}

uint64_t tqc_compiled_estimated_cycles(const tqc_compiled_t *compiled) {
  return compiled ? tqc_module_estimated_cycles(compiled->module) : 0;
}

void tqc_compiled_destroy(tqc_compiled_t *compiled) {
  if (!compiled) return;
  tq_arena_deinit(&compiled->arena);
  tq_free(compiled);
}
