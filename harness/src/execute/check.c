/* The check phase (execute.h): the outputs against the reference interpreter's (compare.c),
 * and, last, the performance expectations of the suite (`expect:`) against the wall times and
 * the overview metrics. */
#include <stdlib.h>
#include <string.h>

#include "execute_internal.h"
#include "torq/base/alloc.h"
#include "torq/compiler/reference.h"
#include "torq/harness/process.h"
#include "torq/harness/stats.h"
#include "torq/sim/tensor.h"

/* ---- The reference -------------------------------------------------------------------------- */

int tqh_execute_check(tqh_execution_t *e) {
  tqh_test_result_t *r = e->r;
  const tqh_settings_t *s = &e->test->settings;
  if (!s->reference) return 1;
  if (s->golden_count) return tqh__check_golden(e);
  uint64_t t0 = tqh_now_ns();
  tq_status_t st = tqh__exec_parse_model(e);
  if (st && e->external) {
    /* The external compiler took a model our front end cannot read: nothing to compare with. */
    char *text = tq_status_format(st, 0);
    tqh__exec_note(e,
                   "reference not compared: the reference interpreter cannot read the model "
                   "(%s); give golden outputs (reference: {golden: [...]})",
                   text ? text : tq_status_message(st));
    free(text);
    tq_status_free(st);
    return 1;
  }
  if (st) {
    tqh_test_result_fail_status(r, TQH_OUTCOME_FAILED, "compile_error", st);
    return 0;
  }
  tqs_tensor_t *in_views = tq_calloc(e->num_inputs + 1, sizeof(tqs_tensor_t));
  const tqs_tensor_t **in_ptrs = tq_calloc(e->num_inputs + 1, sizeof(*in_ptrs));
  tqs_tensor_t **ref = tq_calloc(e->num_outputs + 1, sizeof(*ref));
  if (!in_views || !in_ptrs || !ref) st = TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  for (size_t i = 0; !st && i < e->num_inputs; i++) {
    st = tqh__as_sim_tensor(e->inputs[i], &in_views[i]);
    in_ptrs[i] = &in_views[i];
  }
  const char *fn = tqh__exec_function_wanted(e->test);
  if (!st) st = tqc_reference_run(e->parsed, fn, in_ptrs, e->num_inputs, ref, e->num_outputs);
  int ok = 1;
  if (st && tq_status_code(st) == TQ_UNIMPLEMENTED) {
    /* The reference cannot evaluate this model: nothing to compare with, which is not the
     * model's failure. Said in the log and in stderr.txt. */
    char *text = tq_status_format(st, 0);
    tqh__exec_log(e, "reference: not compared: %s", text ? text : tq_status_message(st));
    char *note = tq_strdup_printf("torq-test: reference not compared: %s\n", text ? text : "");
    if (note) tqh__exec_output(e->io, 2, note, strlen(note));
    tq_free(note);
    free(text);
    tq_status_free(st);
    st = NULL;
  } else if (st) {
    tqh_test_result_fail_status(r, TQH_OUTCOME_FAILED, "reference_error", st);
    st = NULL;
    ok = 0;
  } else {
    for (size_t o = 0; o < e->num_outputs && ok; o++) {
      tqs_tensor_t got;
      st = tqh__as_sim_tensor(e->outputs[o], &got);
      if (st) break;
      char msg[512];
      if (!tqh__compare_output(o, &got, ref[o], s->atol, s->rtol, msg, sizeof(msg))) {
        tqh_test_result_fail(r, TQH_OUTCOME_FAILED, "mismatch", "%s", msg);
        ok = 0;
      }
    }
    if (ok && !st)
      tqh__exec_log(e, "reference: %zu output%s match", e->num_outputs,
                    e->num_outputs == 1 ? "" : "s");
  }
  if (st) {
    tqh_test_result_fail_status(r, TQH_OUTCOME_ERROR, "infrastructure", st);
    r->infrastructure = 1;
    ok = 0;
  }
  for (size_t o = 0; ref && o < e->num_outputs; o++) tqs_tensor_destroy(ref[o]);
  tq_free(ref);
  tq_free(in_ptrs);
  tq_free(in_views);
  r->run_s += tqh__exec_seconds_since(t0);
  return ok;
}

/* ---- Performance expectations --------------------------------------------------------------- */

/* "Dma Total" -> "dma_total". */
static int metric_matches(const char *name, const char *key) {
  for (; *name && *key; name++, key++) {
    char c = *name == ' ' ? '_' : (char)(*name >= 'A' && *name <= 'Z' ? *name + 32 : *name);
    if (c != *key) return 0;
  }
  return !*name && !*key;
}

static double stat_value(const tqh_stats_t *s, tqh_stat_t which) {
  switch (which) {
    case TQH_STAT_MEAN:
      return s->mean;
    case TQH_STAT_MIN:
      return s->min;
    case TQH_STAT_MAX:
      return s->max;
    default:
      return s->median;
  }
}

void tqh_execute_check_expectations(tqh_execution_t *e) {
  const tqh_test_t *t = e->test;
  tqh_test_result_t *r = e->r;
  if (!t->expect_count || r->outcome != TQH_OUTCOME_PASSED) return;
  tqh_stats_t stats;
  memset(&stats, 0, sizeof(stats));
  tq_status_free(tqh_stats_compute(r->samples, r->num_samples, &stats));
  double overall_us = -1;
  tq_buf_t failed;
  tq_buf_init(&failed, 0);
  for (size_t m = 0; m < r->num_metrics; m++)
    if (!strcmp(r->metric_names[m], "OVERALL")) overall_us = r->metric_us[m];
  for (size_t i = 0; i < t->expect_count; i++) {
    const tqh_expect_t *x = &t->expects[i];
    double value = 0;
    int found = 0;
    if (!strcmp(x->metric, "wall_time") && x->unit == TQH_UNIT_TIME) {
      found = r->num_samples > 0;
      value = stat_value(&stats, x->stat);
    } else {
      for (size_t m = 0; m < r->num_metrics && !found; m++) {
        if (!metric_matches(r->metric_names[m], x->metric)) continue;
        found = 1;
        value = x->unit == TQH_UNIT_PERCENT
                    ? (overall_us > 0 ? r->metric_us[m] / overall_us * 100 : 0)
                    : r->metric_us[m] * 1e-6;
      }
    }
    /* Every bound that does not hold is reported, not only the first. */
    if (!found) {
      tq_status_free(tq_buf_printf(&failed, "%s%s:%u:%u: expectation %s: the run has no metric "
                                   "'%s'%s", failed.len ? "; " : "", x->loc.file, x->loc.line,
                                   x->loc.col, x->key, x->metric,
                                   e->exec->profiling ? "" : " (profiling is off)"));
      continue;
    }
    char msg[256];
    if (!tqh_expect_check(x, value, msg, sizeof(msg))) {
      tq_status_free(tq_buf_printf(&failed, "%s%s (%s:%u:%u)", failed.len ? "; " : "", msg,
                                   x->loc.file, x->loc.line, x->loc.col));
      continue;
    }
    tqh__exec_log(e, "expectation %s holds", x->key);
  }
  if (failed.len)
    tqh_test_result_fail(r, TQH_OUTCOME_FAILED, "expectation", "%s", failed.data);
  tq_buf_deinit(&failed);
}
