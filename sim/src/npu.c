/* The NPU model: the NPU object, program validation, the hazard check, and the event-driven
 * execution of an NSS program's tasks.
 *
 * Time is the NPU contract's NSS task rule (tqf_nss_clock_t of torq/formats/contract.h), the
 * clock the cost model's tqs_task_schedule() steps too: the NSS issues a task when the previous
 * one has ended plus nss_task_overhead_cycles (the first at cycle 0), every unit the task uses
 * starts then, each works for the cycles it really takes in that task (npu_time.c: the cost
 * model's cycles plus the effects it leaves out), and the task ends when its last unit does.
 *
 * The units of one task run concurrently on the hardware, so their items must not depend on each
 * other: the program is rejected ("hazard") when an item writes bytes an item of another unit of
 * the same task reads or writes. The items of one slice run in order and may depend on each
 * other. Hazard-free items give the same bytes in any order of the units; the model runs them in
 * the task's order.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "npu_internal.h"
#include "torq/base/alloc.h"
#include "torq/base/checked.h"

/* ---- Errors ---------------------------------------------------------------------------------- */

tq_status_t tqs__npu_fail(const tqs__where_t *where, const char *file, int line, const char *fmt,
                          ...) {
  char message[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(message, sizeof(message), fmt, ap);
  va_end(ap);
  return tq_status_make(TQ_INVALID_INPUT, file, line,
                        "NSS job %" PRIu32 ", task %zu, %s \"%s\": %s", where->job, where->task,
                        tqs_unit_name(where->unit), where->trace_id, message);
}

static tq_status_t tqs__task_fail(uint32_t job, size_t task, const char *fmt, ...) TQ_PRINTF(3, 4);
static tq_status_t tqs__task_fail(uint32_t job, size_t task, const char *fmt, ...) {
  char message[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(message, sizeof(message), fmt, ap);
  va_end(ap);
  return TQ_STATUS(TQ_INVALID_INPUT, "NSS job %" PRIu32 ", task %zu: %s", job, task, message);
}

static tq_status_t tqs__program_fail(uint32_t job, const char *fmt, ...) TQ_PRINTF(2, 3);
static tq_status_t tqs__program_fail(uint32_t job, const char *fmt, ...) {
  char message[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(message, sizeof(message), fmt, ap);
  va_end(ap);
  return TQ_STATUS(TQ_INVALID_INPUT, "NSS job %" PRIu32 ": %s", job, message);
}

/* ---- Lifecycle ------------------------------------------------------------------------------- */

tq_status_t tqs_npu_create(const tqs_hw_t *hw, tqs_npu_t **out_npu) {
  if (!out_npu) return TQ_STATUS(TQ_INVALID_ARGUMENT, "tqs_npu_create: out_npu is NULL");
  *out_npu = NULL;
  if (!hw) return TQ_STATUS(TQ_INVALID_ARGUMENT, "tqs_npu_create: hw is NULL");
  if (hw->lram_bytes == 0 || hw->slices < 1 || hw->slices > TQS_HW_MAX_SLICES) {
    return TQ_STATUS(TQ_INVALID_ARGUMENT,
                     "tqs_npu_create: the hardware needs LRAM and 1 or 2 slices (lram %" PRIu64
                     " bytes, %" PRIu32 " slices)",
                     hw->lram_bytes, hw->slices);
  }
  if (hw->lram_bytes > SIZE_MAX) {
    return TQ_STATUS(TQ_LIMIT, "tqs_npu_create: an LRAM of %" PRIu64 " bytes does not fit memory",
                     hw->lram_bytes);
  }
  tqs_npu_t *npu = tq_calloc(1, sizeof(*npu));
  if (!npu) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory creating the NPU model");
  npu->hw = *hw;
  npu->lram = tq_calloc_pages((size_t)hw->lram_bytes);
  if (!npu->lram) {
    tq_free(npu);
    return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory for an LRAM of %" PRIu64 " bytes",
                     hw->lram_bytes);
  }
  *out_npu = npu;
  return NULL;
}

void tqs_npu_destroy(tqs_npu_t *npu) {
  if (!npu) return;
  /* What no program wrote is still zero (lram_dirty): the next NPU model takes the block. */
  tq_free_pages_dirty(npu->lram, (size_t)npu->hw.lram_bytes, (size_t)npu->lram_dirty);
  tq_free(npu->scratch);
  tq_free(npu->accesses);
  tq_free(npu->xfers);
  tq_free(npu->items);
  tq_free(npu);
}

/* ---- Work items ------------------------------------------------------------------------------ */

struct tqs__access_s {
  uint64_t lo, hi; /* LRAM addresses, or host addresses for XRAM */
  uint32_t item;   /* index of the work item in its task */
  uint32_t region; /* its region number */
  uint8_t unit;    /* its unit: items of one unit run in order and never conflict */
  uint8_t xram, write;
};

/* What a pass over a task does besides validating. */
typedef struct tqs__pass_s {
  int execute;             /* 0: validate and record accesses; 1: also move bytes */
  tqs__access_t *accesses; /* pass 0: room for every region of the task */
  size_t n_accesses;
  tqs__xfer_t *xfers; /* room for every DMA transfer of the task */
  size_t n_xfers;
  tqs_unit_t unit; /* the unit of the item being decoded */
} tqs__pass_t;

static void tqs__record(tqs__pass_t *pass, const tqs__span_t *s, uint32_t item, size_t region,
                        int write) {
  if (pass->execute || s->bytes == 0) return;
  tqs__access_t *a = &pass->accesses[pass->n_accesses++];
  uint64_t base = s->xram ? (uint64_t)(uintptr_t)s->base : 0;
  a->lo = base + s->offset;
  a->hi = base + s->end;
  a->item = item;
  a->unit = (uint8_t)pass->unit;
  a->region = (uint32_t)region;
  a->xram = (uint8_t)s->xram;
  a->write = (uint8_t)write;
}

static tq_status_t tqs__dma(tqs_npu_t *npu, const tqs_xram_buffer_t *xram, size_t num_xram,
                            tqs__item_t *it, uint32_t index, tqs__pass_t *pass) {
  const Torq__UnitWork *w = it->work;
  const tqs__where_t *where = &it->where;
  int in = where->unit == TQS_UNIT_DMA_IN;
  if (w->n_regions == 0 || w->n_regions % 2) {
    return TQS__NPU_FAIL(where, "DMA work holds %zu regions; it needs pairs [source, destination]",
                         w->n_regions);
  }
  uint64_t total = 0, cycles = 0;
  it->xfer0 = pass->n_xfers;
  for (size_t i = 0; i < w->n_regions; i += 2) {
    tqs__span_t src, dst;
    TQ_TRY(tqs__span_init(npu, xram, num_xram, w->regions[i], i, "source", where, &src));
    TQ_TRY(
        tqs__span_init(npu, xram, num_xram, w->regions[i + 1], i + 1, "destination", where, &dst));
    if (src.xram != in || dst.xram == in) {
      return TQS__NPU_FAIL(where, "transfer %zu goes from %s to %s; %s moves %s", i / 2,
                           src.xram ? "XRAM" : "LRAM", dst.xram ? "XRAM" : "LRAM",
                           tqs_unit_name(where->unit), in ? "XRAM -> LRAM" : "LRAM -> XRAM");
    }
    if (src.bytes != dst.bytes) {
      return TQS__NPU_FAIL(where, "transfer %zu reads %" PRIu64 " bytes but writes %" PRIu64, i / 2,
                           src.bytes, dst.bytes);
    }
    total = tq_u64_add_sat(total, src.bytes);
    const tqs__span_t *xs = in ? &src : &dst, *ls = in ? &dst : &src;
    tqs__xfer_t *x = &pass->xfers[pass->n_xfers++];
    x->bytes = src.bytes;
    x->block_bytes = xs->bytes ? xs->size : 0;
    x->blocks = xs->bytes ? xs->bytes / xs->size : 0;
    x->lram_lo = ls->offset;
    x->lram_hi = ls->end;
    cycles = tq_u64_add_sat(cycles, tqs_cost_dma_transfer(&npu->hw, x->blocks, x->block_bytes));
    if (!dst.xram && dst.bytes && dst.end > it->lram_end) it->lram_end = dst.end;
    tqs__record(pass, &src, index, i, 0);
    tqs__record(pass, &dst, index, i + 1, 1);
    if (pass->execute) {
      tqs__span_copy(&dst, &src);
      if (!dst.xram) tqs__wcache_written(&npu->wcache, dst.offset, dst.end);
    }
  }
  if (w->bytes && w->bytes != total) {
    return TQS__NPU_FAIL(where, "the work says %" PRIu64 " bytes but its transfers move %" PRIu64,
                         w->bytes, total);
  }
  it->cycles = cycles;
  it->n_xfers = pass->n_xfers - it->xfer0;
  return NULL;
}

/* Notes an LRAM extent an item touches, for the bank model (npu_time.c); more than
 * TQS__ITEM_RANGES merge into their hull. */
static void tqs__item_range(tqs__item_t *it, const tqs__span_t *s) {
  if (s->xram || s->bytes == 0) return;
  if (it->n_ranges < TQS__ITEM_RANGES) {
    it->lo[it->n_ranges] = s->offset;
    it->hi[it->n_ranges++] = s->end;
    return;
  }
  size_t last = TQS__ITEM_RANGES - 1;
  if (s->offset < it->lo[last]) it->lo[last] = s->offset;
  if (s->end > it->hi[last]) it->hi[last] = s->end;
}

static tq_status_t tqs__slice(tqs_npu_t *npu, tqs__item_t *it, uint32_t index, tqs__pass_t *pass) {
  const Torq__UnitWork *w = it->work;
  const tqs__where_t *where = &it->where;
  const char *kernel = w->kernel ? w->kernel : "";
  tqf_kernel_t id = tqf_kernel_lookup(kernel);
  if (id == TQF_KERNEL_COUNT) return TQS__NPU_FAIL(where, "unknown kernel \"%s\"", kernel);
  size_t want = tqf_kernel_regions(id);
  if (w->n_regions != want) {
    return TQS__NPU_FAIL(where, "%s takes %zu regions (operands, then the result), not %zu", kernel,
                         want, w->n_regions);
  }
  tqs__span_t spans[4];
  for (size_t i = 0; i < want; i++) {
    const char *what = i + 1 == want ? "result" : "operand";
    TQ_TRY(tqs__span_init(npu, NULL, 0, w->regions[i], i, what, where, &spans[i]));
    if (spans[i].xram) return TQS__NPU_FAIL(where, "region %zu (%s) is not in LRAM", i, what);
    if (spans[i].levels) {
      return TQS__NPU_FAIL(where, "region %zu (%s) is strided; slice regions are dense", i, what);
    }
  }
  const tqs__span_t *res = &spans[want - 1];
  for (size_t i = 0; i + 1 < want; i++) {
    if (res->bytes && spans[i].bytes && res->offset < spans[i].end && spans[i].offset < res->end) {
      return TQS__NPU_FAIL(where,
                           "LRAM hazard: the result [%" PRIu64 ", %" PRIu64
                           ") overlaps operand %zu [%" PRIu64 ", %" PRIu64 ")",
                           res->offset, res->end, i, spans[i].offset, spans[i].end);
    }
  }
  TQ_TRY(tqs__kern_decode(&npu->hw, id, w, spans, where, &it->kern));
  if (w->macs && w->macs != it->kern.macs) {
    return TQS__NPU_FAIL(where, "the work says %" PRIu64 " MACs but its parameters give %" PRIu64,
                         w->macs, it->kern.macs);
  }
  it->cycles = it->kern.cycles;
  if (res->bytes) it->lram_end = res->end;
  for (size_t i = 0; i < want; i++) {
    tqs__record(pass, &spans[i], index, i, i + 1 == want);
    tqs__item_range(it, &spans[i]);
  }
  return NULL;
}

/* CDMA moves bytes between LRAM and the CSS memories, which the model does not hold: its LRAM
 * regions are checked (and count as written, whichever the direction) and it takes the cycles of
 * its `bytes`. */
static tq_status_t tqs__cdma(tqs_npu_t *npu, tqs__item_t *it, uint32_t index, tqs__pass_t *pass) {
  const Torq__UnitWork *w = it->work;
  for (size_t i = 0; i < w->n_regions; i++) {
    tqs__span_t s;
    TQ_TRY(tqs__span_init(npu, NULL, 0, w->regions[i], i, "LRAM side", &it->where, &s));
    if (s.xram) return TQS__NPU_FAIL(&it->where, "region %zu is not in LRAM", i);
    tqs__record(pass, &s, index, i, 1);
    tqs__item_range(it, &s);
  }
  it->cycles = tqs_cost_cdma(&npu->hw, w->bytes);
  return NULL;
}

/* The contract defines no CSS kernels: a CSS call without a kernel is timed, anything else is an
 * unknown kernel. */
static tq_status_t tqs__css(tqs_npu_t *npu, tqs__item_t *it) {
  const Torq__UnitWork *w = it->work;
  if (w->kernel && w->kernel[0])
    return TQS__NPU_FAIL(&it->where, "unknown kernel \"%s\"", w->kernel);
  if (w->n_regions) return TQS__NPU_FAIL(&it->where, "a CSS call takes no regions");
  it->cycles = tqs_cost_css(&npu->hw);
  return NULL;
}

/* ---- The hazard check ------------------------------------------------------------------------ */

/* The two distinct units whose intervals reach furthest, among those seen so far. The items of
 * one unit run in order, so only accesses of different units can conflict. */
typedef struct tqs__reach_s {
  uint64_t hi[2];
  size_t acc[2]; /* access index; SIZE_MAX for none */
  uint32_t unit[2];
} tqs__reach_t;

static void tqs__reach_reset(tqs__reach_t *r) {
  memset(r, 0, sizeof(*r));
  r->acc[0] = r->acc[1] = SIZE_MAX;
  r->unit[0] = r->unit[1] = UINT32_MAX;
}

static void tqs__reach_add(tqs__reach_t *r, const tqs__access_t *a, size_t index) {
  if (a->unit == r->unit[0]) {
    if (a->hi > r->hi[0]) r->hi[0] = a->hi, r->acc[0] = index;
    return;
  }
  if (a->unit == r->unit[1]) {
    if (a->hi > r->hi[1]) r->hi[1] = a->hi, r->acc[1] = index;
  } else if (r->acc[1] == SIZE_MAX || a->hi > r->hi[1]) {
    r->hi[1] = a->hi, r->acc[1] = index, r->unit[1] = a->unit;
  }
  if (r->acc[0] == SIZE_MAX || r->hi[1] > r->hi[0]) {
    tqs__reach_t t = *r;
    r->hi[0] = t.hi[1], r->acc[0] = t.acc[1], r->unit[0] = t.unit[1];
    r->hi[1] = t.hi[0], r->acc[1] = t.acc[0], r->unit[1] = t.unit[0];
  }
}

/* An earlier access of another unit that reaches past `a->lo`, or SIZE_MAX. */
static size_t tqs__reach_hit(const tqs__reach_t *r, const tqs__access_t *a) {
  int k = r->unit[0] == a->unit ? 1 : 0;
  return r->acc[k] != SIZE_MAX && r->hi[k] > a->lo ? r->acc[k] : SIZE_MAX;
}

static int tqs__access_cmp(const tqs__access_t *a, const tqs__access_t *b) {
  if (a->xram != b->xram) return a->xram < b->xram ? -1 : 1;
  if (a->lo != b->lo) return a->lo < b->lo ? -1 : 1;
  if (a->hi != b->hi) return a->hi < b->hi ? -1 : 1;
  if (a->item != b->item) return a->item < b->item ? -1 : 1;
  if (a->region != b->region) return a->region < b->region ? -1 : 1;
  return 0;
}

/* In-place heapsort: qsort may allocate for larger arrays, and a run must not. */
static void tqs__sift(tqs__access_t *a, size_t root, size_t n) {
  for (;;) {
    size_t child = 2 * root + 1;
    if (child >= n) return;
    if (child + 1 < n && tqs__access_cmp(&a[child], &a[child + 1]) < 0) child++;
    if (tqs__access_cmp(&a[root], &a[child]) >= 0) return;
    tqs__access_t t = a[root];
    a[root] = a[child];
    a[child] = t;
    root = child;
  }
}

static void tqs__sort_accesses(tqs__access_t *a, size_t n) {
  for (size_t i = n / 2; i-- > 0;) tqs__sift(a, i, n);
  for (size_t end = n; end-- > 1;) {
    tqs__access_t t = a[0];
    a[0] = a[end];
    a[end] = t;
    tqs__sift(a, 0, end);
  }
}

/* Two units of one task touching the same bytes, one of them writing: a sweep over the accesses
 * sorted by address. Strided regions count by their extent, first to last byte: exact for dense
 * regions (all the compiler makes in LRAM), conservative for interleaved strided ones. */
static tq_status_t tqs__hazards(const tqs__pass_t *pass, const tqs__item_t *items, uint32_t job,
                                size_t task) {
  tqs__access_t *acc = pass->accesses;
  size_t n = pass->n_accesses;
  tqs__sort_accesses(acc, n);
  tqs__reach_t all, writes;
  for (size_t i = 0; i < n; i++) {
    if (i == 0 || acc[i].xram != acc[i - 1].xram) {
      tqs__reach_reset(&all);
      tqs__reach_reset(&writes);
    }
    size_t j = tqs__reach_hit(acc[i].write ? &all : &writes, &acc[i]);
    if (j != SIZE_MAX) {
      const tqs__access_t *a = &acc[j], *b = &acc[i];
      const tqs__item_t *ia = &items[a->item], *ib = &items[b->item];
      uint64_t lo = b->lo, hi = a->hi < b->hi ? a->hi : b->hi;
      if (b->xram) {
        return tqs__task_fail(
            job, task,
            "XRAM hazard: %s \"%s\" region %" PRIu32 " and %s \"%s\" region %" PRIu32
            " share %" PRIu64 " bytes, and one of them writes",
            tqs_unit_name(ia->where.unit), ia->where.trace_id, a->region,
            tqs_unit_name(ib->where.unit), ib->where.trace_id, b->region, hi - lo);
      }
      return tqs__task_fail(job, task,
                            "LRAM hazard: %s \"%s\" region %" PRIu32
                            " and %s \"%s\" region %" PRIu32 " share bytes [%" PRIu64 ", %" PRIu64
                            "), and one of them writes",
                            tqs_unit_name(ia->where.unit), ia->where.trace_id, a->region,
                            tqs_unit_name(ib->where.unit), ib->where.trace_id, b->region, lo, hi);
    }
    tqs__reach_add(&all, &acc[i], i);
    if (acc[i].write) tqs__reach_add(&writes, &acc[i], i);
  }
  return NULL;
}

/* ---- Tasks ----------------------------------------------------------------------------------- */

/* Decodes (and with pass->execute, runs the DMA of) task `k` into items[0..*out_n). */
static tq_status_t tqs__task(tqs_npu_t *npu, const Torq__NssProgram *program, size_t k,
                             const tqs_xram_buffer_t *xram, size_t num_xram, tqs__pass_t *pass,
                             tqs__item_t *items, size_t *out_n) {
  const Torq__NssTask *task = program->tasks[k];
  uint32_t used = 0;
  *out_n = 0;
  pass->n_accesses = 0;
  pass->n_xfers = 0;
  for (size_t i = 0; i < task->n_work; i++) {
    const Torq__UnitWork *w = task->work[i];
    tqs__item_t *it = &items[i];
    memset(it, 0, sizeof(*it));
    it->work = w;
    it->where.job = program->job_id;
    it->where.task = k;
    it->where.trace_id = w->trace_id ? w->trace_id : "";
    if (!tqs_unit_from_module(w->unit, &it->where.unit)) {
      return tqs__task_fail(program->job_id, k, "work item %zu (\"%s\"): unknown unit %d", i,
                            it->where.trace_id, (int)w->unit);
    }
    tqs_unit_t u = it->where.unit;
    int slice = u == TQS_UNIT_SLICE0 || u == TQS_UNIT_SLICE1;
    if ((used & (1u << u)) && !slice)
      return TQS__NPU_FAIL(&it->where, "a second work item for the unit in one task");
    used |= 1u << u;
    pass->unit = u;
    if (u == TQS_UNIT_SLICE1 && npu->hw.slices < 2)
      return TQS__NPU_FAIL(&it->where, "the hardware has one slice");
    if (w->n_regions && !w->regions) return TQS__NPU_FAIL(&it->where, "no region data");
    tq_status_t st;
    switch (u) {
      case TQS_UNIT_DMA_IN:
      case TQS_UNIT_DMA_OUT:
        st = tqs__dma(npu, xram, num_xram, it, (uint32_t)i, pass);
        break;
      case TQS_UNIT_SLICE0:
      case TQS_UNIT_SLICE1:
        st = tqs__slice(npu, it, (uint32_t)i, pass);
        break;
      case TQS_UNIT_CDMA:
        st = tqs__cdma(npu, it, (uint32_t)i, pass);
        break;
      default:
        st = tqs__css(npu, it);
        break;
    }
    if (st) return st;
    *out_n = i + 1;
  }
  if (!pass->execute) TQ_TRY(tqs__hazards(pass, items, program->job_id, k));
  return NULL;
}

/* A STEADY program continues its PROLOGUE's LRAM, an EPILOGUE its STEADY's: the NPU's last
 * program must be job_id - 1 of that stage. *out_continues says whether the program continues. */
static tq_status_t tqs__stage_check(const tqs_npu_t *npu, const Torq__NssProgram *program,
                                    int *out_continues) {
  Torq__Stage stage = program->stage, before = TORQ__STAGE__WHOLE;
  int c = tqf_nss_stage_continues(stage, &before);
  *out_continues = 0;
  if (c < 0) return tqs__program_fail(program->job_id, "unknown stage %d", (int)stage);
  if (c == 0) return NULL;
  if (program->job_id == 0)
    return tqs__program_fail(program->job_id,
                             "a %s cannot be job 0: it continues its %s, the job before it",
                             tqf_nss_stage_name(stage), tqf_nss_stage_name(before));
  uint32_t want = program->job_id - 1;
  if (!npu->has_last || npu->last_job != want || npu->last_stage != before) {
    char last[64];
    if (npu->has_last)
      snprintf(last, sizeof(last), "job %" PRIu32 " (%s)", npu->last_job,
               tqf_nss_stage_name(npu->last_stage));
    else
      snprintf(last, sizeof(last), "none that succeeded");
    return tqs__program_fail(program->job_id,
                             "the %s continues the LRAM of job %" PRIu32
                             " (its %s), but the NPU's last program was %s",
                             tqf_nss_stage_name(stage), want, tqf_nss_stage_name(before), last);
  }
  *out_continues = 1;
  return NULL;
}

/* Checks the program's structure and returns the most regions and work items any task holds. */
static tq_status_t tqs__shape(const Torq__NssProgram *program, size_t *out_regions,
                              size_t *out_items) {
  *out_regions = 0;
  *out_items = 0;
  if (program->n_tasks && !program->tasks)
    return tqs__program_fail(program->job_id, "no task data");
  for (size_t k = 0; k < program->n_tasks; k++) {
    const Torq__NssTask *t = program->tasks[k];
    if (!t) return tqs__task_fail(program->job_id, k, "the task is missing");
    if (t->n_work && !t->work) return tqs__task_fail(program->job_id, k, "no work data");
    if (t->n_work > TQS_NPU_MAX_TASK_ITEMS) {
      return tqs__task_fail(program->job_id, k, "%zu work items; a task holds at most %d",
                            t->n_work, TQS_NPU_MAX_TASK_ITEMS);
    }
    if (t->n_work > *out_items) *out_items = t->n_work;
    size_t regions = 0;
    for (size_t i = 0; i < t->n_work; i++) {
      if (!t->work[i]) return tqs__task_fail(program->job_id, k, "work item %zu is missing", i);
      if (t->work[i]->n_regions > SIZE_MAX / 2 - regions)
        return tqs__task_fail(program->job_id, k, "too many regions");
      regions += t->work[i]->n_regions;
    }
    if (regions > *out_regions) *out_regions = regions;
  }
  return NULL;
}

static tq_status_t tqs__reserve(void **p, size_t *cap, size_t count, size_t size) {
  if (count <= *cap) return NULL;
  if (count > SIZE_MAX / size)
    return TQ_STATUS(TQ_LIMIT, "NPU scratch of %zu x %zu bytes", count, size);
  void *q = tq_realloc(*p, count * size);
  if (!q)
    return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory for NPU scratch (%zu bytes)", count * size);
  *p = q;
  *cap = count;
  return NULL;
}

tq_status_t tqs_npu_run(tqs_npu_t *npu, const Torq__NssProgram *program,
                        const tqs_xram_buffer_t *xram, size_t num_xram,
                        const tqs_npu_observer_t *observer, tqs_npu_result_t *out_result) {
  if (out_result) memset(out_result, 0, sizeof(*out_result));
  if (!npu || !program || !out_result || (num_xram && !xram))
    return TQ_STATUS(TQ_INVALID_ARGUMENT, "tqs_npu_run: NULL argument");

  /* A stage that continues its predecessor's LRAM runs right after it (contract.h, "Stages of
   * a pipeline"); whatever happens next, this program is the last one the NPU ran. */
  int continues = 0;
  tq_status_t refused = tqs__stage_check(npu, program, &continues);
  npu->has_last = 0;
  TQ_TRY(refused);
  size_t max_regions, max_items;
  TQ_TRY(tqs__shape(program, &max_regions, &max_items));
  TQ_TRY(tqs__reserve((void **)&npu->accesses, &npu->accesses_cap, max_regions ? max_regions : 1,
                      sizeof(tqs__access_t)));
  TQ_TRY(tqs__reserve((void **)&npu->xfers, &npu->xfers_cap, max_regions / 2 ? max_regions / 2 : 1,
                      sizeof(tqs__xfer_t)));
  TQ_TRY(tqs__reserve((void **)&npu->items, &npu->items_cap, max_items ? max_items : 1,
                      sizeof(tqs__item_t)));

  /* Pass 0: validate everything, size the scratch and the LRAM the program writes. */
  tqs__item_t *items = npu->items;
  size_t n_items, scratch = 1;
  uint64_t lram_end = 0;
  tqs__pass_t pass = {.execute = 0, .accesses = npu->accesses, .xfers = npu->xfers};
  for (size_t k = 0; k < program->n_tasks; k++) {
    TQ_TRY(tqs__task(npu, program, k, xram, num_xram, &pass, items, &n_items));
    for (size_t i = 0; i < n_items; i++) {
      if (items[i].kern.scratch_bytes > scratch) scratch = items[i].kern.scratch_bytes;
      if (items[i].lram_end > lram_end) lram_end = items[i].lram_end;
    }
  }
  TQ_TRY(tqs__reserve(&npu->scratch, &npu->scratch_cap, scratch, 1));

  /* A program starts from a zeroed LRAM, so its results never depend on an earlier program;
   * except a stage that continues the one before it, which reads what that one left. */
  if (!continues) {
    memset(npu->lram, 0, (size_t)npu->lram_dirty);
    npu->lram_dirty = lram_end;
  } else if (lram_end > npu->lram_dirty) {
    npu->lram_dirty = lram_end;
  }
  npu->wcache.valid = 0;

  /* Pass 1: run, timed by the contract's NSS task rule with the cycles the units really take in
   * the task (npu_time.c). A task starts when the NSS can issue it: every unit it uses is free
   * by then, since the previous task ended (all its units with it) before the NSS's overhead
   * began. The items of a slice run in the task's order. */
  tqf_nss_clock_t clock;
  tqf_nss_clock_init(&clock, npu->hw.nss_task_overhead_cycles);
  pass.execute = 1;
  for (size_t k = 0; k < program->n_tasks; k++) {
    TQ_TRY(tqs__task(npu, program, k, xram, num_xram, &pass, items, &n_items));
    uint64_t start = tqf_nss_task_begin(&clock);
    tqs__task_time(&npu->hw, items, n_items, pass.xfers);
    for (size_t i = 0; i < n_items; i++) {
      tqs__item_t *it = &items[i];
      tqs_unit_t u = it->where.unit;
      if (u == TQS_UNIT_SLICE0 || u == TQS_UNIT_SLICE1) {
        tqs__kern_run(&it->kern, npu->scratch, &npu->wcache);
        tqs__wcache_written(&npu->wcache, it->kern.out_lo, it->kern.out_hi);
      }
      uint64_t stop = tqf_nss_unit(&clock, it->end);
      out_result->busy_cycles[u] = tq_u64_add_sat(out_result->busy_cycles[u], it->end - it->start);
      if (observer && observer->on_unit_work) {
        tqs_npu_event_t ev = {.job_id = program->job_id,
                              .task_index = (uint32_t)k,
                              .unit = u,
                              .trace_id = it->where.trace_id,
                              .start_cycle = tq_u64_add_sat(start, it->start),
                              .end_cycle = stop};
        observer->on_unit_work(observer->user, &ev);
      }
    }
    uint64_t dma, compute, both;
    tqs__task_busy(items, n_items, &dma, &compute, &both);
    out_result->dma_cycles = tq_u64_add_sat(out_result->dma_cycles, dma);
    out_result->compute_cycles = tq_u64_add_sat(out_result->compute_cycles, compute);
    out_result->overlap_cycles = tq_u64_add_sat(out_result->overlap_cycles, both);
  }
  out_result->cycles = clock.end;
  out_result->tasks = program->n_tasks;
  npu->has_last = 1;
  npu->last_job = program->job_id;
  npu->last_stage = program->stage;
  return NULL;
}
