/* One test, phase by phase (execute.h): the execution's state, what the phases share (the log,
 * the phases, the test's folder), and the whole test in order. The phases are compile.c, run.c,
 * check.c and profile.c; a board's run is board_exec.c. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "execute_internal.h"
#include "torq/base/alloc.h"
#include "torq/harness/process.h"

void tqh__exec_log(tqh_execution_t *e, const char *fmt, ...) {
  if (!e->io || !e->io->log) return;
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof(line), fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n >= sizeof(line)) n = (int)sizeof(line) - 1;
  e->io->log(e->io->ctx, line, (size_t)n);
}

void tqh__exec_note(tqh_execution_t *e, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *text = tq_vstrdup_printf(fmt, ap);
  va_end(ap);
  if (!text) return;
  tqh__exec_log(e, "%s", text);
  char *line = tq_strdup_printf("torq-test: %s\n", text);
  if (line) tqh__exec_output(e->io, 2, line, strlen(line));
  tq_free(line);
  tq_free(text);
}

void tqh__exec_phase(tqh_execution_t *e, const char *name, double limit_s) {
  if (e->io && e->io->phase) e->io->phase(e->io->ctx, name, limit_s);
}

void tqh__exec_output(const tqh_execute_io_t *io, int stream, const char *data, size_t len) {
  if (io && io->output && len) io->output(io->ctx, stream, data, len);
}

double tqh__exec_seconds_since(uint64_t t0) {
  return (double)(tqh_now_ns() - t0) / 1e9;
}

tq_status_t tqh__exec_path_in(const tqh_execution_t *e, const char *name, tq_buf_t *out) {
  tq_buf_clear(out);
  return tq_buf_printf(out, "%s/%s", e->dir, name);
}

const char *tqh__exec_function_wanted(const tqh_test_t *t) {
  const tqh_settings_t *s = &t->settings;
  if (s->layer[TQH_SET_FUNCTION] <= TQH_LAYER_BUILTIN || !s->function || !*s->function) return NULL;
  return s->function;
}

tq_status_t tqh_execution_create(tqh_executor_t *exec, const tqh_test_t *test, const char *dir,
                                 const tqh_execute_io_t *io, tqh_test_result_t *result,
                                 tqh_execution_t **out) {
  *out = NULL;
  tqh_execution_t *e = tq_calloc(1, sizeof(*e));
  if (!e) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  e->exec = exec;
  e->test = test;
  e->dir = dir;
  e->io = io;
  e->r = result;
  tq_buf_init(&e->model_text, 0);
  *out = e;
  return NULL;
}

void tqh_execution_destroy(tqh_execution_t *e) {
  if (!e) return;
  tqh__exec_free_outputs(e);
  tq_free(e->outputs);
  for (size_t i = 0; e->inputs && i < e->num_inputs; i++) tqr_tensor_destroy(e->inputs[i]);
  tq_free(e->inputs);
  tqr_module_destroy(e->module);
  tqc_module_destroy(e->parsed);
  tq_free(e->entry_dir);
  tq_free(e->fetched_path);
  for (int i = 0; i < TQH_TOOL_COUNT; i++) tqh_tool_identity_deinit(&e->tools[i]);
  tq_buf_deinit(&e->model_text);
  tq_free(e);
}

static tqh_execute_hook_fn g_hook;

void tqh_execute_set_hook(tqh_execute_hook_fn hook) {
  g_hook = hook;
}

void tqh_execute_test(tqh_executor_t *exec, const tqh_test_t *test, const char *dir,
                      const tqh_execute_io_t *io, tqh_test_result_t *r) {
  tqh_execution_t *e = NULL;
  tq_status_t st = tqh_execution_create(exec, test, dir, io, r, &e);
  if (st) {
    r->infrastructure = 1;
    tqh_test_result_fail_status(r, TQH_OUTCOME_ERROR, "infrastructure", st);
    return;
  }
  if (tqh_execute_compile(e)) {
    if (g_hook) g_hook(test, io);
    if (tqh_execute_run(e)) {
      if (tqh_execute_check(e)) tqh_execute_profile(e);
      tqh_execute_check_expectations(e);
    }
  }
  tqh_execution_destroy(e);
}

void tqh_executor_board_idle(tqh_executor_t *exec, const tqh_execute_io_t *io) {
  tqh__board_worker_idle(exec->board_worker, io);
}

void tqh_executor_board_exit(tqh_executor_t *exec, const tqh_execute_io_t *io) {
  tqh__board_worker_exit(exec->board_worker, io);
}

void tqh_executor_board_cleanup(tqh_executor_t *exec, const tqh_execute_io_t *io) {
  if (exec->board) tqh__board_worker_cleanup(exec, io);
}
