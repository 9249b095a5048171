/* The check against golden files (execute_internal.h): `reference: {golden: [out0.npy, ...]}`
 * gives one expected output per output of the model, compared as the reference interpreter's
 * are (compare.c), with the built-in and with an external toolchain. */
#include <string.h>

#include "execute_internal.h"
#include "torq/base/alloc.h"
#include "torq/harness/process.h"
#include "torq/runtime/npy.h"
#include "torq/sim/tensor.h"

/* The largest golden file read. */
#define MAX_GOLDEN_BYTES ((size_t)1 << 30)

int tqh__check_golden(tqh_execution_t *e) {
  tqh_test_result_t *r = e->r;
  const tqh_settings_t *s = &e->test->settings;
  if (e->num_outputs != s->golden_count) {
    tqh_test_result_fail(r, TQH_OUTCOME_FAILED, "mismatch",
                         "the model has %zu output%s, but reference.golden lists %zu file%s",
                         e->num_outputs, e->num_outputs == 1 ? "" : "s", s->golden_count,
                         s->golden_count == 1 ? "" : "s");
    return 0;
  }
  uint64_t t0 = tqh_now_ns();
  int ok = 1;
  for (size_t o = 0; o < e->num_outputs && ok; o++) {
    tqr_tensor_t *want = NULL;
    tqs_tensor_t got_view, want_view;
    tq_status_t st = tqr_npy_read(s->golden[o], MAX_GOLDEN_BYTES, &want);
    if (st) {
      tqh_test_result_fail_status(r, TQH_OUTCOME_FAILED, "reference_error",
                                  tq_status_annotate(st, "golden file of output %zu", o));
      return 0;
    }
    st = tqh__as_sim_tensor(e->outputs[o], &got_view);
    if (!st) st = tqh__as_sim_tensor(want, &want_view);
    if (st) {
      tqh_test_result_fail_status(r, TQH_OUTCOME_FAILED, "reference_error", st);
      ok = 0;
    } else {
      const char *base = strrchr(s->golden[o], '/');
      char *against = tq_strdup_printf("golden file %s", base ? base + 1 : s->golden[o]);
      char msg[512];
      if (!tqh__compare_output_with(o, &got_view, &want_view, s->atol, s->rtol,
                                    against ? against : "its golden file", msg, sizeof(msg))) {
        tqh_test_result_fail(r, TQH_OUTCOME_FAILED, "mismatch", "%s", msg);
        ok = 0;
      }
      tq_free(against);
    }
    tqr_tensor_destroy(want);
  }
  if (ok)
    tqh__exec_log(e, "reference: %zu output%s match the golden files", e->num_outputs,
                  e->num_outputs == 1 ? "" : "s");
  r->run_s += tqh__exec_seconds_since(t0);
  return ok;
}
