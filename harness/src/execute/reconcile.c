/* The reconciliation of a test (results.h, tqh_recon_t): per layer of the module (an NSS program,
 * or the prologue, steady state and epilogue programs of a pipeline together), its estimate, the
 * source operators lowered into it and where; then what it took, simulated (run.c) or on a
 * board's profile (profile.c). A pipeline's DMA-only stages are not reconciled on their own: the
 * estimate and the simulator time a lone DMA alike, so they would count as exact by
 * construction. */
#include <string.h>

#include "execute_internal.h"
#include "torq/base/alloc.h"
#include "torq/harness/annotate.h"

/* A pipeline's steady state or epilogue: reconciled with the program before it. */
static int continues(const Torq__NssProgram *p) {
  Torq__Stage before;
  return tqf_nss_stage_continues(p->stage, &before) == 1;
}

static char *dup_cstr(const char *s) {
  return tq_strndup(s ? s : "", s ? strlen(s) : 0);
}

/* The source operators of a cache entry's NSS programs, as its debug info names them: the entry
 * is content-addressed, so they are read once per model and worker, not once per test. */
struct tqh_executor_memo_s {
  char *entry_dir;
  char **operators; /* per NSS program of dispatch 0; NULL: none */
  size_t count;
};

/* Frees the memo alone. */
static void memo_forget(tqh_executor_t *exec) {
  struct tqh_executor_memo_s *m = exec ? exec->memo : NULL;
  if (!m) return;
  for (size_t i = 0; i < m->count; i++) tq_free(m->operators[i]);
  tq_free(m->operators);
  tq_free(m->entry_dir);
  tq_free(m);
  exec->memo = NULL;
}

void tqh_executor_forget(tqh_executor_t *exec) {
  memo_forget(exec);
  tqh__exec_files_forget(exec);
}

/* The memo of `entry_dir`, read from its debug info when it is not the one kept. A model compiled
 * without debug info, or one that cannot be read, has no operators. */
static tq_status_t operators_of(tqh_executor_t *exec, const char *entry_dir,
                                const struct tqh_executor_memo_s **out) {
  if (exec->memo && !strcmp(exec->memo->entry_dir, entry_dir)) {
    *out = exec->memo;
    return NULL;
  }
  memo_forget(exec);
  struct tqh_executor_memo_s *m = tq_calloc(1, sizeof(*m));
  if (!m) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  exec->memo = m;
  m->entry_dir = dup_cstr(entry_dir);
  tqh_debug_info_t *info = NULL;
  tq_buf_t dir;
  tq_buf_init(&dir, 0);
  tq_status_t st = m->entry_dir ? tq_buf_printf(&dir, "%s/debug", entry_dir)
                                : TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  if (!st) tq_status_free(tqh_debug_info_load(dir.data, NULL, &info));
  tq_buf_deinit(&dir);
  const tqh_dispatch_t *d = info && info->num_dispatches ? &info->dispatches[0] : NULL;
  if (!st && d && d->num_programs) {
    m->operators = tq_calloc(d->num_programs, sizeof(*m->operators));
    if (!m->operators) st = TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
    for (size_t j = 0; !st && j < d->num_programs; j++) {
      m->count = j + 1;
      if (!d->programs[j].present) continue;
      m->operators[j] = dup_cstr(d->programs[j].original_operators);
      if (!m->operators[j]) st = TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
    }
  }
  tqh_debug_info_destroy(info);
  if (st) {
    memo_forget(exec);
    return st;
  }
  *out = m;
  return NULL;
}

tq_status_t tqh__exec_recon_init(tqh_execution_t *e) {
  tqh_test_result_t *r = e->r;
  const Torq__Module *m = tqr_module_proto(e->module);
  size_t n = m->n_nss_programs;
  r->clock_hz = m->hardware ? m->hardware->clock_hz : 0;
  if (n == 0) return NULL;
  r->recon = tq_calloc(n, sizeof(*r->recon));
  if (!r->recon) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  /* The source operators are the debug info's (the module does not carry them). */
  const struct tqh_executor_memo_s *ops = NULL;
  tq_status_t st = operators_of(e->exec, e->entry_dir, &ops);
  for (size_t j = 0; !st && j < n;) {
    tqh_recon_t *p = &r->recon[r->num_recon];
    const Torq__NssProgram *prog = m->nss_programs[j];
    p->job_id = prog->job_id;
    p->programs = 1;
    p->estimated_cycles = prog->estimated_cycles;
    while (j + p->programs < n && continues(m->nss_programs[j + p->programs])) {
      p->estimated_cycles += m->nss_programs[j + p->programs]->estimated_cycles;
      p->programs++;
    }
    const char *loc = "";
    for (size_t a = 0; a < m->n_actions; a++)
      if (m->actions[a]->kind == TORQ__ACTION_KIND__NSS_START && m->actions[a]->job_id == j) {
        loc = m->actions[a]->location;
        break;
      }
    p->location = dup_cstr(loc);
    p->operators = dup_cstr(j < ops->count ? ops->operators[j] : "");
    r->num_recon++;
    j += p->programs;
    if (!p->location || !p->operators) st = TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  }
  return st;
}

void tqh__exec_recon_simulated(tqh_execution_t *e, const tqr_session_t *session) {
  tqh_test_result_t *r = e->r;
  for (size_t i = 0; i < r->num_recon; i++) {
    tqh_recon_t *p = &r->recon[i];
    p->has_simulated = 1;
    p->simulated_cycles = p->sim_dma_cycles = p->sim_compute_cycles = p->sim_overlap_cycles = 0;
    for (uint32_t k = 0; k < p->programs; k++) {
      tqr_nss_result_t got;
      p->has_simulated &= tqr_session_job_result(session, p->job_id + k, &got);
      p->simulated_cycles += got.cycles;
      p->sim_dma_cycles += got.dma_cycles;
      p->sim_compute_cycles += got.compute_cycles;
      p->sim_overlap_cycles += got.overlap_cycles;
    }
  }
}

void tqh__exec_recon_device(tqh_execution_t *e, const tqh_annotation_t *ann) {
  tqh_test_result_t *r = e->r;
  for (size_t i = 0; i < r->num_recon; i++) {
    tqh_recon_t *p = &r->recon[i];
    /* Per program the mean of its runs; a layer's programs summed. */
    p->has_device = 1;
    p->device_us = 0;
    for (uint32_t j = 0; j < p->programs; j++) {
      double sum = 0;
      size_t runs = 0;
      for (size_t k = 0; k < ann->num_nss_runs; k++) {
        const tqh_span_t *s = &ann->nss_runs[k];
        if (s->id != (int64_t)p->job_id + j || s->end_us < s->start_us) continue;
        sum += (double)(s->end_us - s->start_us);
        runs++;
      }
      p->has_device &= runs > 0;
      p->device_us += runs ? sum / (double)runs : 0;
    }
    if (!p->has_device) p->device_us = 0;
  }
}
