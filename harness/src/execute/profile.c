/* The profile phase (execute.h): with profiling on, one more invocation on the simulator in a
 * fresh session writes profile.csv (a board's run downloads its own); it is annotated with the
 * debug info into annotated.csv, profile.xlsx and profile.pb, whose overview metrics go into the
 * result; --torq-runtime-profiling-output-dir gets a copy. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "execute_internal.h"
#include "torq/base/file.h"
#include "torq/harness/annotate.h"
#include "torq/harness/files.h"
#include "torq/harness/overview.h"
#include "torq/harness/process.h"

/* The overview metrics into the result: those profile.pb holds (so the reports show what the
 * trace shows). */
static tq_status_t add_overview(const tqh_overview_t *ov, tqh_test_result_t *r) {
  tq_status_t st = NULL;
  for (size_t i = 0; !st && i < ov->count; i++)
    st = tqh_test_result_add_metric(r, ov->metrics[i].name, (double)ov->metrics[i].ns / 1e3);
  return st;
}

/* Read back from a trace another tool wrote. */
tq_status_t tqh__exec_read_overview(const char *pb_path, tqh_test_result_t *r) {
  tqh_overview_t ov;
  const char *paths[1] = {pb_path};
  tq_status_t st = tqh_overview_read(paths, 1, &ov);
  if (!st) st = add_overview(&ov, r);
  tqh_overview_deinit(&ov);
  return st;
}

/* profile.csv (in the test's folder) annotated into annotated.csv, profile.xlsx and profile.pb,
 * and the overview metrics profile.pb holds. */
static int annotate_profile(tqh_execution_t *e) {
  tqh_test_result_t *r = e->r;
  tq_buf_t path, debug;
  tq_buf_init(&path, 0);
  tq_buf_init(&debug, 0);
  tqh_annotation_t *ann = NULL;
  tq_status_t st = tqh__exec_path_in(e, "profile.csv", &path);
  if (!st) st = tqh__exec_path_in(e, "debug", &debug);
  /* The tests of one model in a row read its debug info once (a load with no diagnostic). */
  tqh_debug_info_t *kept = st ? NULL : tqh__exec_kept_debug_info(e, debug.data);
  if (!st && kept) {
    st = tqh_annotate_with(kept, path.data, NULL, &ann);
  } else if (!st) {
    st = tqh_annotate(debug.data, path.data, NULL, &ann);
    if (!st && ann->debug_info && !ann->diags.count)
      tqh__exec_keep_debug_info(e, ann->debug_info, debug.data);
  }
  if (!st && ann->diags.count) {
    tq_buf_t text;
    tq_buf_init(&text, 0);
    if (!tqh_diags_format(&ann->diags, &text) && text.data)
      tqh__exec_output(e->io, 2, text.data, text.len);
    tqh__exec_log(e, "annotation: %zu error%s, %zu warning%s (see stderr.txt)", ann->diags.errors,
                  ann->diags.errors == 1 ? "" : "s", ann->diags.warnings,
                  ann->diags.warnings == 1 ? "" : "s");
    tq_buf_deinit(&text);
  }
  if (!st && e->exec->board) tqh__exec_recon_device(e, ann);
  static const char *const outputs[] = {"annotated.csv", "profile.xlsx", "profile.pb"};
  tqh_overview_t ov;
  tqh_overview_init(&ov);
  tqh_perfetto_options_t po;
  tqh_perfetto_options_initialize(&po);
  po.overview = &ov;
  for (size_t i = 0; !st && i < 3; i++) {
    st = tqh__exec_path_in(e, outputs[i], &path);
    if (!st)
      st = i == 2 ? tqh_annotation_write_perfetto_opt(ann, path.data, &po)
                  : tqh_annotation_write(ann, path.data);
    if (!st) st = tqh_test_result_add_file(r, outputs[i]);
  }
  tqh_annotation_destroy(ann);
  if (!st) st = add_overview(&ov, r);
  tqh_overview_deinit(&ov);
  tq_buf_deinit(&path);
  tq_buf_deinit(&debug);
  if (st) {
    tqh_test_result_fail_status(r, TQH_OUTCOME_FAILED, "annotation_error", st);
    return 0;
  }
  return 1;
}

/* One more invocation in a fresh session with the profile on: profile.csv then holds INIT and
 * one DISPATCH in simulated time, the same on every run. Then the annotation. */
static int profile_and_annotate(tqh_execution_t *e) {
  tqh_test_result_t *r = e->r;
  tq_buf_t path;
  tq_buf_init(&path, 0);
  tqr_device_t *device = NULL;
  tqr_profile_t *profile = NULL;
  tqr_session_t *session = NULL;
  tqh__exec_phase(e, "run", e->test->settings.run_timeout_s);
  uint64_t t0 = tqh_now_ns();
  tq_status_t st = tqh__exec_path_in(e, "profile.csv", &path);
  if (!st) st = tqr_profile_create(0, &profile);
  if (!st) st = tqr_profile_open_csv(profile, path.data);
  if (!st) st = tqr_device_sim_create(&device);
  if (!st) {
    tqr_session_options_t so;
    tqr_session_options_initialize(&so);
    so.profile = profile;
    st = tqr_session_create(e->module, device, &so, &session);
  }
  if (!st) st = tqh__exec_invoke(e, session);
  tqr_session_destroy(session);
  if (profile) {
    tq_status_t cst = tqr_profile_close(profile);
    if (!st)
      st = cst;
    else
      tq_status_free(cst);
    tqr_profile_destroy(profile);
  }
  tqr_device_destroy(device);
  r->run_s += tqh__exec_seconds_since(t0);
  tq_buf_deinit(&path);
  if (!st) st = tqh_test_result_add_file(r, "profile.csv");
  if (st) {
    tqh_test_result_fail_status(r, TQH_OUTCOME_FAILED, "runtime_error",
                                tq_status_annotate(st, "in the profiled run"));
    return 0;
  }
  return annotate_profile(e);
}

/* Copies the profile files to --torq-runtime-profiling-output-dir/<test folder>/. */
void tqh__exec_copy_profiles(tqh_execution_t *e) {
  const char *root = e->exec->profile_copy_dir;
  if (!root) return;
  const char *base = strrchr(e->dir, '/');
  base = base ? base + 1 : e->dir;
  tq_buf_t to, from;
  tq_buf_init(&to, 0);
  tq_buf_init(&from, 0);
  tq_status_t st = tq_buf_printf(&to, "%s/%s", root, base);
  if (!st) st = tq_file_mkdirs(to.data);
  static const char *const names[] = {"profile.csv", "annotated.csv", "profile.xlsx", "profile.pb"};
  for (size_t i = 0; !st && i < 4; i++) {
    tq_buf_clear(&to);
    tq_buf_clear(&from);
    st = tq_buf_printf(&to, "%s/%s/%s", root, base, names[i]);
    if (!st) st = tqh__exec_path_in(e, names[i], &from);
    if (!st && access(from.data, F_OK) == 0) st = tqh_link_tree(from.data, to.data);
  }
  if (st) {
    char *text = tq_status_format(st, 0);
    tqh__exec_log(e, "cannot copy the profile: %s", text ? text : "");
    free(text);
    tq_status_free(st);
  }
  tq_buf_deinit(&to);
  tq_buf_deinit(&from);
}

int tqh_execute_profile(tqh_execution_t *e) {
  if (!e->exec->profiling) return 1;
  if (e->external) return tqh__external_profile(e);
  if (!(e->exec->board ? annotate_profile(e) : profile_and_annotate(e))) return 0;
  tqh__exec_copy_profiles(e);
  return 1;
}
