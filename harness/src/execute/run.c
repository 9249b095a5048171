/* The run phase (execute.h): the inputs for the function's signature (the suite's, or seeded
 * random ones), then the warm-up and the timed invocations, in-process on the simulator (wall
 * time by CLOCK_MONOTONIC around each) or on the executor's board (board_exec.c). */
#include <string.h>
#include <time.h>

#include "execute_internal.h"
#include "torq/base/alloc.h"
#include "torq/harness/process.h"

tq_status_t tqh__exec_make_inputs(tqh_execution_t *e, size_t n, size_t model_inputs,
                                  const char *callee, const void *signature,
                                  tqh__random_input_fn make_random) {
  const tqh_test_t *t = e->test;
  if (!t->inputs_random && model_inputs != SIZE_MAX && t->input_count != model_inputs)
    return TQ_STATUS(TQ_INVALID_ARGUMENT, "%s:%u:%u: the suite gives %zu input%s, but %s takes %zu",
                     t->loc.file ? t->loc.file : t->suite->path, t->loc.line, t->loc.col,
                     t->input_count, t->input_count == 1 ? "" : "s", callee, model_inputs);
  e->inputs = tq_calloc(n + 1, sizeof(*e->inputs));
  if (!e->inputs) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  e->num_inputs = n;
  for (size_t i = 0; i < n; i++) {
    const tqh_input_t *in = t->inputs_random ? NULL : &t->inputs[i];
    if (in && in->kind == TQH_INPUT_TEXT) {
      tqr_input_options_t io;
      tqr_input_options_initialize(&io);
      io.seed = in->seed;
      io.index = i;
      tq_status_t st = tqr_input_parse(in->text, &io, &e->inputs[i]);
      if (st)
        return tq_status_annotate(st, "input %zu (%s:%u:%u)", i, in->loc.file ? in->loc.file : "",
                                  in->loc.line, in->loc.col);
      continue;
    }
    if (!signature)
      return TQ_STATUS(TQ_INVALID_ARGUMENT,
                       "input %zu is random, which needs the model's signature (torq-test cannot "
                       "read the model)",
                       i);
    TQ_TRY(make_random(signature, i, &e->inputs[i]));
    tqr_input_random_fill(e->inputs[i], in ? in->seed : t->random_seed, i);
  }
  return NULL;
}

/* A random input of the module's function (its protobuf signature). */
static tq_status_t module_input(const void *signature, size_t i, tqr_tensor_t **out) {
  const Torq__TensorType *ty = ((const Torq__Function *)signature)->inputs[i];
  if (ty->n_dims > TQR_MAX_RANK)
    return TQ_STATUS(TQ_INVALID_INPUT, "input %zu has rank %zu", i, ty->n_dims);
  return tqr_tensor_create(ty->element_type, ty->n_dims, ty->dims, out);
}

static tq_status_t make_inputs(tqh_execution_t *e) {
  const Torq__Function *fn = tqr_module_proto(e->module)->function;
  return tqh__exec_make_inputs(e, fn->n_inputs, fn->n_inputs,
                               tqr_module_function_name(e->module), fn, module_input);
}

void tqh__exec_free_outputs(tqh_execution_t *e) {
  for (size_t o = 0; e->outputs && o < e->num_outputs; o++) {
    tqr_tensor_destroy(e->outputs[o]);
    e->outputs[o] = NULL;
  }
}

tq_status_t tqh__exec_invoke(tqh_execution_t *e, tqr_session_t *session) {
  tqh__exec_free_outputs(e);
  return tqr_session_invoke(session, (const tqr_tensor_t *const *)e->inputs, e->num_inputs,
                            e->outputs, e->num_outputs);
}

/* Warm-up, then the timed repetitions; the outputs of the last one stay in e->outputs. */
static int run_timed(tqh_execution_t *e) {
  tqh_test_result_t *r = e->r;
  const tqh_settings_t *s = &e->test->settings;
  tqr_device_t *device = NULL;
  tqr_session_t *session = NULL;
  uint64_t t0 = tqh_now_ns();
  tq_status_t st = tqr_device_sim_create(&device);
  if (!st) st = tqr_session_create(e->module, device, NULL, &session);
  if (!st) {
    e->num_outputs = tqr_module_proto(e->module)->function->n_outputs;
    e->outputs = tq_calloc(e->num_outputs + 1, sizeof(*e->outputs));
    r->samples = tq_calloc(s->repeat + 1, sizeof(double));
    if (!e->outputs || !r->samples) st = TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  }
  r->run_s += tqh__exec_seconds_since(t0);
  for (uint32_t i = 0; !st && i < s->warmup; i++) {
    tqh__exec_phase(e, "run", s->run_timeout_s);
    t0 = tqh_now_ns();
    st = tqh__exec_invoke(e, session);
    r->run_s += tqh__exec_seconds_since(t0);
    if (st) st = tq_status_annotate(st, "in warm-up run %u", i + 1);
  }
  for (uint32_t i = 0; !st && i < s->repeat; i++) {
    tqh__exec_phase(e, "run", s->run_timeout_s);
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    st = tqh__exec_invoke(e, session);
    clock_gettime(CLOCK_MONOTONIC, &b);
    double wall = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
    r->run_s += wall;
    if (st) {
      st = tq_status_annotate(st, "in run %u of %u", i + 1, s->repeat);
      break;
    }
    r->samples[r->num_samples++] = wall;
    r->has_wall_time = 1;
    if (s->repeat > 1)
      tqh__exec_log(e, "Wall time: %.6fs (run %u of %u)", wall, i + 1, s->repeat);
    else
      tqh__exec_log(e, "Wall time: %.6fs", wall);
  }
  if (!st) tqh__exec_recon_simulated(e, session);
  tqr_session_destroy(session);
  tqr_device_destroy(device);
  if (st) {
    tqh_outcome_t o =
        tq_status_code(st) == TQ_OUT_OF_MEMORY ? TQH_OUTCOME_ERROR : TQH_OUTCOME_FAILED;
    tqh_test_result_fail_status(r, o, o == TQH_OUTCOME_ERROR ? "infrastructure" : "runtime_error",
                                st);
    return 0;
  }
  return 1;
}

int tqh__exec_run_on_board(tqh_execution_t *e, const char *runtime_path) {
  tqh_test_result_t *r = e->r;
  const tqh_settings_t *s = &e->test->settings;
  tqh_board_worker_t *bw = tqh__board_worker(e->exec);
  tq_buf_t model;
  tq_buf_init(&model, 0);
  if (!e->outputs) {
    e->num_outputs = tqr_module_proto(e->module)->function->n_outputs;
    e->outputs = tq_calloc(e->num_outputs + 1, sizeof(*e->outputs));
  }
  tq_status_t st = bw && e->outputs ? tqh__exec_path_in(e, "model.vmfb", &model)
                                    : TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  if (st) {
    tq_buf_deinit(&model);
    r->infrastructure = 1;
    tqh_test_result_fail_status(r, TQH_OUTCOME_ERROR, "infrastructure", st);
    return 0;
  }
  tqh__board_test_t bt;
  memset(&bt, 0, sizeof(bt));
  bt.test = e->test;
  bt.dir = e->dir;
  bt.model_path = model.data;
  bt.inputs = e->inputs;
  bt.num_inputs = e->num_inputs;
  bt.num_outputs = e->num_outputs;
  bt.function = tqh__exec_function_wanted(e->test);
  bt.warmup = s->warmup;
  bt.repeat = s->repeat;
  bt.run_timeout_s = s->run_timeout_s;
  bt.profile = e->exec->profiling;
  bt.runtime_path = runtime_path;
  int ok = tqh__board_run_test(bw, &bt, e->io, r, e->outputs);
  tq_buf_deinit(&model);
  return ok;
}

int tqh_execute_run(tqh_execution_t *e) {
  tqh_test_result_t *r = e->r;
  if (e->external) return tqh__external_run(e);
  /* The built-in "main" names the entry point whatever it is called; a function given in a
   * config, suite, environment or command line must exist. */
  const char *want = tqh__exec_function_wanted(e->test);
  const char *have = tqr_module_function_name(e->module);
  tq_status_t st = NULL;
  if (want && strcmp(want, have) != 0)
    st = TQ_STATUS(TQ_INVALID_ARGUMENT, "the model has no function '%s' (its entry is '%s')", want,
                   have);
  uint64_t t0 = tqh_now_ns();
  if (!st) st = make_inputs(e);
  r->run_s += tqh__exec_seconds_since(t0);
  if (st) {
    tqh_test_result_fail_status(r, TQH_OUTCOME_FAILED, "input_error", st);
    return 0;
  }
  return e->exec->board ? tqh__exec_run_on_board(e, NULL) : run_timed(e);
}
