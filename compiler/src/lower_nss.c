/* NSS programs: the LRAM layout of a layer and its double-buffered, software-pipelined tiles.
 *
 * Tile k is loaded (DMA_IN) in task k, computed by the slices in task k + 1 and stored (DMA_OUT)
 * in task k + 2, so a layer of n tiles has n + 2 tasks and, in the steady state, the three stages
 * of three tiles run at once (the NSS task rule: a task starts all its units and waits for all of
 * them). Tiles alternate between two input and two output slots (k % 2), which is what makes the
 * overlap safe: tile k + 2 reuses tile k's slots only after tile k was stored. Weights of an
 * output-channel group (or a batch's B matrix) arrive with the group's first tile; with more
 * than one group they alternate between two weight slots for the same reason.
 *
 * The tasks become three NSS programs, as an NPU compiler emits a software-pipelined loop
 * (contract.h, "Stages of a pipeline"): the prologue (task 0, the first tile's DMA in), the
 * steady state (tasks 1 .. n: compute of tile k - 1 while DMA brings tile k in and takes tile
 * k - 2 out) and the epilogue (task n + 1, the last tile's DMA out). Each program has its own
 * NSS_START and NSS_WAIT, so the runtime's profile shows the DMA-only stages before and after
 * the overlapped one, and each costs the host its start and wait. A single-tile layer is the same
 * three programs: load, compute, store, none of them overlapping the others. The LRAM a stage
 * leaves is what the next one reads.
 */
#include <string.h>

#include "lower_internal.h"
#include "torq/base/alloc.h"
#include "torq/sim/cost_model.h"

#define TQC_LRAM_ALIGN 64u

/* Rounds up to the slot alignment; sizes past UINT64_MAX / 2 never fit anyway. */
static uint64_t align_up(uint64_t x) {
  if (x > UINT64_MAX / 2) return UINT64_MAX / 2;
  return (x + TQC_LRAM_ALIGN - 1) / TQC_LRAM_ALIGN * TQC_LRAM_ALIGN;
}

static uint64_t sat_add(uint64_t a, uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

int tqc__layout(const tqs_hw_t *hw, uint64_t w_bytes, int nw, uint64_t in_bytes, uint64_t out_bytes,
                tqc_layout_t *out_layout) {
  tqc_layout_t l;
  memset(&l, 0, sizeof(l));
  uint64_t at = 0;
  uint64_t w = align_up(w_bytes), in = align_up(in_bytes), out = align_up(out_bytes);
  for (int i = 0; i < nw; i++) {
    l.w[i] = at;
    at = sat_add(at, w);
  }
  for (int i = 0; i < 2; i++) {
    l.in[i] = at;
    at = sat_add(at, in);
  }
  l.out[0] = at;
  l.out[1] = sat_add(at, out);
  /* The last slot need not be padded to the alignment. */
  l.total = sat_add(l.out[1], out_bytes);
  if (out_layout) *out_layout = l;
  return l.total <= hw->lram_bytes;
}

tqc_tile_t *tqc__tiles_add(tqc_tiles_t *tiles) {
  if (tiles->count == tiles->cap) {
    size_t cap = tiles->cap ? tiles->cap * 2 : 16;
    tqc_tile_t *t = tq_realloc(tiles->items, cap * sizeof(*t));
    if (!t) return NULL;
    tiles->items = t;
    tiles->cap = cap;
  }
  tqc_tile_t *t = &tiles->items[tiles->count++];
  memset(t, 0, sizeof(*t));
  return t;
}

void tqc__tiles_deinit(tqc_tiles_t *tiles) {
  tq_free(tiles->items);
  memset(tiles, 0, sizeof(*tiles));
}

static uint64_t xfer_bytes(const tqc_xfer_t *x) {
  return x->count ? x->size * x->count : x->size;
}

/* The XRAM side of a transfer. A view (reshape) is resolved to the buffer that holds the bytes,
 * so NSS programs only name buffers with storage. */
static Torq__Region *xram_region(tqc_lower_t *L, const tqc_xfer_t *x) {
  Torq__Region *r = tq_arena_alloc(L->arena, sizeof(*r));
  if (!r) return NULL;
  Torq__Region init = TORQ__REGION__INIT;
  *r = init;
  r->memory = TORQ__MEMORY__XRAM;
  r->buffer_id = x->buffer;
  r->offset = x->offset;
  const Torq__Buffer *b = L->buffers.items[x->buffer];
  if (b->contents_case == TORQ__BUFFER__CONTENTS_VIEW) {
    r->buffer_id = b->view->buffer_id;
    r->offset += b->view->offset;
  }
  r->size = x->size;
  if (x->count) {
    r->n_counts = r->n_strides = 1;
    r->counts = tq_arena_alloc(L->arena, sizeof(uint64_t));
    r->strides = tq_arena_alloc(L->arena, sizeof(uint64_t));
    if (!r->counts || !r->strides) return NULL;
    r->counts[0] = x->count;
    r->strides[0] = x->stride;
  }
  return r;
}

static Torq__UnitWork *unit_new(tqc_lower_t *L, Torq__Unit unit, const char *location) {
  Torq__UnitWork *u = tq_arena_alloc(L->arena, sizeof(*u));
  if (!u) return NULL;
  Torq__UnitWork init = TORQ__UNIT_WORK__INIT;
  *u = init;
  u->unit = unit;
  u->location = (char *)location;
  return u;
}

/* A DMA unit moving `n` transfers; `in` says XRAM -> LRAM. */
static Torq__UnitWork *dma_unit(tqc_lower_t *L, int in, const tqc_xfer_t *const *xs, size_t n,
                                const char *location, uint64_t *out_cycles) {
  Torq__UnitWork *u = unit_new(L, in ? TORQ__UNIT__DMA_IN : TORQ__UNIT__DMA_OUT, location);
  if (!u) return NULL;
  u->regions = tq_arena_calloc(L->arena, 2 * n, sizeof(Torq__Region *));
  if (!u->regions) return NULL;
  uint64_t cycles = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t bytes = xfer_bytes(xs[i]);
    Torq__Region *x = xram_region(L, xs[i]);
    Torq__Region *l = tqc__lram_region(L, xs[i]->lram, bytes);
    if (!x || !l) return NULL;
    u->regions[u->n_regions++] = in ? x : l;
    u->regions[u->n_regions++] = in ? l : x;
    u->bytes += bytes;
    cycles += tqs_cost_dma_transfer(L->hw, xs[i]->count ? xs[i]->count : 1, xs[i]->size);
  }
  *out_cycles = cycles;
  return u;
}

static tq_status_t set_trace_id(tqc_lower_t *L, Torq__UnitWork *u, tqs_unit_t unit) {
  char id[TQC_TRACE_ID_MAX];
  tqc_trace_ids_next(&L->ids, unit, id);
  u->trace_id = tq_arena_strndup(L->arena, id, strlen(id));
  return u->trace_id ? NULL : TQC_OOM("while lowering");
}

uint64_t tqc__pipeline_cycles(const tqs_hw_t *hw, uint64_t ntiles, const tqc_tile_cost_t *c) {
  /* Three programs (pipeline_stages): the clock starts again at the steady state's first task
   * and at the epilogue's. */
  uint64_t total = 0;
  tqf_nss_clock_t clock;
  tqf_nss_clock_init(&clock, hw->nss_task_overhead_cycles);
  for (uint64_t k = 0; k < ntiles + 2; k++) {
    if (k == 0 || k == 1 || k == ntiles + 1) {
      total = k ? sat_add(total, clock.end) : 0;
      tqf_nss_clock_init(&clock, hw->nss_task_overhead_cycles);
    }
    tqf_nss_task_begin(&clock);
    if (k < ntiles) tqf_nss_unit(&clock, k == 0 ? c->first_in : c->in);
    if (k >= 1 && k <= ntiles) tqf_nss_unit(&clock, c->compute);
    if (k >= 2) tqf_nss_unit(&clock, c->out);
  }
  return sat_add(total, clock.end);
}

uint64_t tqc__best_tiles(const tqc_lower_t *L, uint64_t lo, uint64_t hi,
                         void (*cost)(const void *ctx, uint64_t ntiles, tqc_tile_cost_t *out),
                         const void *ctx) {
  const tqs_hw_t *hw = L->hw;
  if (lo < 1) lo = 1;
  if (L->tiling == TQC_TILING_FEWEST) return lo;
  if (hi < lo) hi = lo;
  if (hi - lo > 63) hi = lo + 63;
  uint64_t best = lo, best_cycles = UINT64_MAX;
  for (uint64_t n = lo; n <= hi; n++) {
    tqc_tile_cost_t c;
    memset(&c, 0, sizeof(c));
    cost(ctx, n, &c);
    uint64_t cycles = tqc__pipeline_cycles(hw, c.tiles ? c.tiles : n, &c);
    if (cycles < best_cycles) best = n, best_cycles = cycles;
  }
  return best;
}

/* The slice work items of a compute stage: each slice's chain in order, the slices' items
 * interleaved in the order they start (slice 0's first kernel, slice 1's first, slice 0's
 * second, ...), which is the order of their trace IDs. */
static tq_status_t slice_units(tqc_lower_t *L, const tqc_tile_t *t, const char *location,
                               Torq__UnitWork **out, size_t *n_out, uint64_t *cycles) {
  const tqc_slice_work_t *next[TQS_HW_MAX_SLICES] = {&t->slice[0], &t->slice[1]};
  uint64_t at[TQS_HW_MAX_SLICES] = {0, 0}; /* where each slice's next item starts */
  while (next[0] || next[1]) {
    uint32_t s = !next[0] || (next[1] && at[1] < at[0]) ? 1 : 0;
    const tqc_slice_work_t *w = next[s];
    next[s] = w->next;
    at[s] += w->cycles;
    if (!w->cycles) continue;
    tqs_unit_t unit = s == 0 ? TQS_UNIT_SLICE0 : TQS_UNIT_SLICE1;
    Torq__UnitWork *u = unit_new(L, s == 0 ? TORQ__UNIT__SLICE0 : TORQ__UNIT__SLICE1,
                                 w->location ? w->location : location);
    if (!u) return TQC_OOM("while lowering");
    u->kernel = (char *)tqf_kernel_name(w->kernel);
    u->macs = w->macs;
    u->regions = w->regions;
    u->n_regions = w->n_regions;
    u->params = w->params;
    /* Each item's own cycles ride in estimated_end until the schedule is known. */
    u->estimated_start = 0;
    u->estimated_end = w->cycles;
    out[(*n_out)++] = u;
    cycles[unit] += w->cycles;
  }
  return NULL;
}

/* The work items of one task: DMA_IN, DMA_OUT, then the slices' items. */
typedef struct task_items_s {
  Torq__UnitWork **items; /* heap */
  size_t n;
} task_items_t;

static size_t chain_length(const tqc_tile_t *t) {
  size_t n = 0;
  for (uint32_t s = 0; s < TQS_HW_MAX_SLICES; s++)
    for (const tqc_slice_work_t *w = &t->slice[s]; w; w = w->next) n++;
  return n;
}

/* The stages of a pipeline of `ntasks` tasks (contract.h, "Stages of a pipeline"): its prologue
 * (task 0: the first tile's DMA in), steady state (tasks 1 .. ntasks - 2) and epilogue (the last
 * task: the last tile's DMA out), each an NSS program of its own; or one WHOLE program when a
 * stage would hold no work (a pipeline without a load or a store of its own). Returns the number
 * of programs and fills first[0..count] with their first tasks (first[count] = ntasks). */
static size_t pipeline_stages(const task_items_t *items, size_t ntasks, size_t first[4],
                              Torq__Stage stage[3]) {
  first[0] = 0;
  if (ntasks >= 3 && items[0].n && items[ntasks - 1].n) {
    size_t steady = 0;
    for (size_t k = 1; k + 1 < ntasks; k++) steady += items[k].n;
    if (steady) {
      first[1] = 1, first[2] = ntasks - 1, first[3] = ntasks;
      stage[0] = TORQ__STAGE__PROLOGUE, stage[1] = TORQ__STAGE__STEADY;
      stage[2] = TORQ__STAGE__EPILOGUE;
      return 3;
    }
  }
  first[1] = ntasks;
  stage[0] = TORQ__STAGE__WHOLE;
  return 1;
}

/* Makes the NSS program of tasks [lo, hi) of a pipeline (their timing scheduled from cycle 0,
 * their items given their estimated times and trace IDs) and adds it to the module with its
 * NSS_START and NSS_WAIT actions. */
static tq_status_t emit_program(tqc_lower_t *L, const char *location, tqs_task_timing_t *timing,
                                const task_items_t *items, size_t lo, size_t hi,
                                Torq__Stage stage, char **names) {
  Torq__NssProgram *prog = tq_arena_alloc(L->arena, sizeof(*prog));
  Torq__NssTask **tasks = tq_arena_calloc(L->arena, hi - lo, sizeof(Torq__NssTask *));
  if (!prog || !tasks) return TQC_OOM("while lowering");
  Torq__NssProgram pinit = TORQ__NSS_PROGRAM__INIT;
  *prog = pinit;
  prog->estimated_cycles = tqs_task_schedule(L->hw, timing + lo, hi - lo);
  for (size_t k = lo; k < hi; k++) {
    Torq__NssTask *task = tq_arena_alloc(L->arena, sizeof(*task));
    Torq__UnitWork **work = tq_arena_calloc(L->arena, items[k].n + 1, sizeof(Torq__UnitWork *));
    if (!task || !work) return TQC_OOM("while lowering");
    Torq__NssTask tinit = TORQ__NSS_TASK__INIT;
    *task = tinit;
    task->estimated_start = timing[k].start;
    task->estimated_end = timing[k].end;
    task->work = work;
    uint64_t slice_at[TQS_HW_MAX_SLICES] = {timing[k].start, timing[k].start};
    for (size_t i = 0; i < items[k].n; i++) {
      Torq__UnitWork *w = items[k].items[i];
      tqs_unit_t u;
      if (!tqs_unit_from_module(w->unit, &u)) u = TQS_UNIT_DMA_IN;
      if (u == TQS_UNIT_SLICE0 || u == TQS_UNIT_SLICE1) {
        uint64_t *at = &slice_at[u == TQS_UNIT_SLICE0 ? 0 : 1];
        uint64_t own = w->estimated_end;
        w->estimated_start = *at;
        w->estimated_end = *at += own;
      } else {
        w->estimated_start = timing[k].start;
        w->estimated_end = timing[k].unit_end[u];
      }
      TQ_TRY(set_trace_id(L, w, u));
      work[task->n_work++] = w;
    }
    tasks[k - lo] = task;
  }
  prog->job_id = (uint32_t)L->programs.count;
  prog->tasks = tasks;
  prog->n_tasks = hi - lo;
  prog->stage = stage;
  if (!tqc__ptrvec_push(L->arena, &L->programs, prog) ||
      !tqc__ptrvec_push(L->arena, &L->program_ops, names))
    return TQC_OOM("while lowering");
  TQ_TRY(tqc__emit_action(L, TORQ__ACTION_KIND__NSS_START, prog->job_id, location));
  return tqc__emit_action(L, TORQ__ACTION_KIND__NSS_WAIT, prog->job_id, location);
}

tq_status_t tqc__emit_nss(tqc_lower_t *L, const tqc_op_t *op, const tqc_tiles_t *tiles,
                          const tqc_op_t *const *ops, size_t n_ops) {
  const char *location = tqc__op_location(L, op);
  size_t n = tiles->count, ntasks = n + 2;
  tqs_task_timing_t *timing = tq_calloc(ntasks, sizeof(*timing));
  task_items_t *items = tq_calloc(ntasks, sizeof(*items));
  tq_status_t st = NULL;
  if (!timing || !items) {
    st = TQC_OOM("while lowering");
    goto done;
  }
  for (size_t k = 0; k < ntasks; k++) {
    size_t room = 2 + (k >= 1 && k - 1 < n ? chain_length(&tiles->items[k - 1]) : 0);
    items[k].items = tq_calloc(room, sizeof(Torq__UnitWork *));
    if (!items[k].items) {
      st = TQC_OOM("while lowering");
      goto done;
    }
    if (k < n) {
      const tqc_tile_t *t = &tiles->items[k];
      const tqc_xfer_t *xs[TQC_TILE_MAX_W + TQC_TILE_MAX_IN];
      size_t nx = 0;
      for (size_t i = 0; i < t->n_win; i++) xs[nx++] = &t->win[i];
      for (size_t i = 0; i < t->n_in; i++) xs[nx++] = &t->in[i];
      if (nx) {
        Torq__UnitWork *u = dma_unit(L, 1, xs, nx, location, &timing[k].cycles[TQS_UNIT_DMA_IN]);
        if (!u) {
          st = TQC_OOM("while lowering");
          goto done;
        }
        items[k].items[items[k].n++] = u;
      }
    }
    if (k >= 2 && tiles->items[k - 2].n_out) {
      const tqc_tile_t *t = &tiles->items[k - 2];
      const tqc_xfer_t *xs[TQC_TILE_MAX_OUT];
      for (size_t i = 0; i < t->n_out; i++) xs[i] = &t->out[i];
      Torq__UnitWork *u =
          dma_unit(L, 0, xs, t->n_out, location, &timing[k].cycles[TQS_UNIT_DMA_OUT]);
      if (!u) {
        st = TQC_OOM("while lowering");
        goto done;
      }
      items[k].items[items[k].n++] = u;
    }
    if (k >= 1 && k - 1 < n &&
        (st = slice_units(L, &tiles->items[k - 1], location, items[k].items, &items[k].n,
                          timing[k].cycles)))
      goto done;
  }
  /* The stages run one after the other, their buffers allocated before the first and freed
   * after the last. */
  size_t first[4];
  Torq__Stage stage[3];
  size_t nstages = pipeline_stages(items, ntasks, first, stage);
  char **names = tqc__op_names(L, ops, n_ops);
  if (!names) {
    st = TQC_OOM("while lowering");
    goto done;
  }
  if ((st = tqc__emit_allocs(L, location))) goto done;
  for (size_t s = 0; s < nstages && !st; s++)
    st = emit_program(L, location, timing, items, first[s], first[s + 1], stage[s], names);
  if (!st) st = tqc__emit_deallocs(L, location);
done:
  if (items)
    for (size_t k = 0; k < ntasks; k++) tq_free(items[k].items);
  tq_free(items);
  tq_free(timing);
  return st;
}
