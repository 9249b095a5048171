/* The runtime profile: event names, recording without allocation, the CSV (golden text for the
 * tiny module), a valid file after a failure half-way, byte-identical repeated runs. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "suites.h"
#include "torq/base/alloc.h"

static const char tiny_golden[] =
    "dispatch_name,invocation_id,action_id,timestamp_us,event\n"
    "main_dispatch_0,0,-1,0,INIT_BEGIN\n"
    "main_dispatch_0,0,-1,0,INIT_COMPUTE_XRAM_FOOTPRINT_BEGIN\n"
    "main_dispatch_0,0,-1,0,INIT_COMPUTE_XRAM_FOOTPRINT_END\n"
    "main_dispatch_0,0,-1,0,INIT_CLEAR_MEMORY_BEGIN\n"
    "main_dispatch_0,0,-1,0,INIT_CLEAR_MEMORY_END\n"
    "main_dispatch_0,0,-1,0,INIT_HW_OPEN_BEGIN\n"
    "main_dispatch_0,0,-1,10,INIT_HW_OPEN_END\n"
    "main_dispatch_0,0,-1,10,INIT_LOAD_HOST_CODE_BEGIN\n"
    "main_dispatch_0,0,-1,10,INIT_LOAD_HOST_CODE_END\n"
    "main_dispatch_0,0,-1,10,INIT_END\n"
    "main_dispatch_0,1,-1,10,DISPATCH_BEGIN\n"
    "main_dispatch_0,1,-1,10,DISPATCH_SYNC_BINDINGS_IN_BEGIN\n"
    "main_dispatch_0,1,-1,10,DISPATCH_SYNC_BINDINGS_IN_END\n"
    "main_dispatch_0,1,-1,10,DISPATCH_EXECUTE_ACTIONS_BEGIN\n"
    "main_dispatch_0,1,0,10,ALLOC_BEGIN\n"
    "main_dispatch_0,1,0,11,ALLOC_END\n"
    "main_dispatch_0,1,1,11,ALLOC_BEGIN\n"
    "main_dispatch_0,1,1,12,ALLOC_END\n"
    "main_dispatch_0,1,2,12,HOST_START_BEGIN\n"
    "main_dispatch_0,1,2,13,HOST_START_END\n"
    "main_dispatch_0,1,3,13,HOST_WAIT_BEGIN\n"
    "main_dispatch_0,1,3,14,HOST_WAIT_END\n"
    "main_dispatch_0,1,4,14,DEALLOC_BEGIN\n"
    "main_dispatch_0,1,4,15,DEALLOC_END\n"
    "main_dispatch_0,1,5,15,ALLOC_BEGIN\n"
    "main_dispatch_0,1,5,16,ALLOC_END\n"
    "main_dispatch_0,1,6,16,NSS_START_BEGIN\n"
    "main_dispatch_0,1,6,17,NSS_START_END\n"
    "main_dispatch_0,1,7,17,NSS_WAIT_BEGIN\n"
    "main_dispatch_0,1,7,20,NSS_WAIT_END\n"
    "main_dispatch_0,1,8,20,HOST_COPY_BEGIN\n"
    "main_dispatch_0,1,8,21,HOST_COPY_END\n"
    "main_dispatch_0,1,9,21,DEALLOC_BEGIN\n"
    "main_dispatch_0,1,9,22,DEALLOC_END\n"
    "main_dispatch_0,1,-1,22,DISPATCH_EXECUTE_ACTIONS_END\n"
    "main_dispatch_0,1,-1,22,DISPATCH_SYNC_BINDINGS_OUT_BEGIN\n"
    "main_dispatch_0,1,-1,22,DISPATCH_SYNC_BINDINGS_OUT_END\n"
    "main_dispatch_0,1,-1,22,DISPATCH_END\n";

START_TEST(profile_event_names) {
  static const struct {
    uint8_t kind, edge;
    const char *name;
  } cases[] = {
      {TQR_EVENT_ALLOC, TQR_EDGE_BEGIN, "ALLOC_BEGIN"},
      {TQR_EVENT_DEALLOC, TQR_EDGE_END, "DEALLOC_END"},
      {TQR_EVENT_HOST_COPY, TQR_EDGE_BEGIN, "HOST_COPY_BEGIN"},
      {TQR_EVENT_NSS_START, TQR_EDGE_END, "NSS_START_END"},
      {TQR_EVENT_NSS_WAIT, TQR_EDGE_BEGIN, "NSS_WAIT_BEGIN"},
      {TQR_EVENT_HOST_START, TQR_EDGE_END, "HOST_START_END"},
      {TQR_EVENT_HOST_WAIT, TQR_EDGE_END, "HOST_WAIT_END"},
      {TQR_EVENT_INIT, TQR_EDGE_BEGIN, "INIT_BEGIN"},
      {TQR_EVENT_DISPATCH, TQR_EDGE_END, "DISPATCH_END"},
      {TQR_EVENT_ERROR, TQR_EDGE_POINT, "ERROR"},
      {TQR_EVENT_INIT_PREPARE_OUTPUT_DIRS, TQR_EDGE_BEGIN, "INIT_PREPARE_OUTPUT_DIRS_BEGIN"},
      {TQR_EVENT_INIT_COMPUTE_XRAM_FOOTPRINT, TQR_EDGE_END, "INIT_COMPUTE_XRAM_FOOTPRINT_END"},
      {TQR_EVENT_INIT_HW_OPEN, TQR_EDGE_BEGIN, "INIT_HW_OPEN_BEGIN"},
      {TQR_EVENT_INIT_CLEAR_MEMORY, TQR_EDGE_END, "INIT_CLEAR_MEMORY_END"},
      {TQR_EVENT_INIT_LOAD_CODE_SEGMENTS, TQR_EDGE_BEGIN, "INIT_LOAD_CODE_SEGMENTS_BEGIN"},
      {TQR_EVENT_INIT_LOAD_HOST_CODE, TQR_EDGE_END, "INIT_LOAD_HOST_CODE_END"},
      {TQR_EVENT_DISPATCH_SYNC_BINDINGS_IN, TQR_EDGE_BEGIN, "DISPATCH_SYNC_BINDINGS_IN_BEGIN"},
      {TQR_EVENT_DISPATCH_SYNC_BINDINGS_OUT, TQR_EDGE_END, "DISPATCH_SYNC_BINDINGS_OUT_END"},
      {TQR_EVENT_DISPATCH_ACQUIRE_HW_RESOURCES, TQR_EDGE_BEGIN,
       "DISPATCH_ACQUIRE_HW_RESOURCES_BEGIN"},
      {TQR_EVENT_DISPATCH_RELEASE_HW_RESOURCES, TQR_EDGE_END, "DISPATCH_RELEASE_HW_RESOURCES_END"},
      {TQR_EVENT_DISPATCH_EXECUTE_ACTIONS, TQR_EDGE_BEGIN, "DISPATCH_EXECUTE_ACTIONS_BEGIN"},
      {TQR_EVENT_HAL_CALL, TQR_EDGE_BEGIN, "HAL_CALL_BEGIN"},
      {TQR_EVENT_HAL_QUEUE_WAIT, TQR_EDGE_END, "HAL_QUEUE_WAIT_END"},
      {TQR_EVENT_HAL_QUEUE_APPLY_DEFERRED, TQR_EDGE_BEGIN, "HAL_QUEUE_APPLY_DEFERRED_BEGIN"},
      {TQR_EVENT_HAL_QUEUE_SIGNAL, TQR_EDGE_END, "HAL_QUEUE_SIGNAL_END"},
      {TQR_EVENT_HAL_COMMAND_BUFFER_COPY_BUFFER, TQR_EDGE_BEGIN,
       "HAL_COMMAND_BUFFER_COPY_BUFFER_BEGIN"},
      {TQR_EVENT_HAL_COMMAND_BUFFER_PUSH_DESCRIPTOR_SET, TQR_EDGE_END,
       "HAL_COMMAND_BUFFER_PUSH_DESCRIPTOR_SET_END"},
      {0, TQR_EDGE_BEGIN, "UNKNOWN"},
      {200, TQR_EDGE_BEGIN, "UNKNOWN"},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    tqr_event_t e = {.kind = cases[i].kind, .edge = cases[i].edge};
    char name[TQR_EVENT_NAME_SIZE];
    tqr_event_name(&e, name);
    ck_assert_str_eq(name, cases[i].name);
  }
  /* Every kind has a name and one class; the classes are the families of profile.h. */
  for (uint8_t k = 1; k < TQR_EVENT_KIND_COUNT; k++) {
    ck_assert_ptr_nonnull(tqr_event_kind_name(k));
    ck_assert_int_ne(tqr_event_kind_class(k), TQR_EVENT_CLASS_NONE);
  }
  ck_assert_int_eq(tqr_event_kind_class(TQR_EVENT_HOST_WAIT), TQR_EVENT_CLASS_ACTION);
  ck_assert_int_eq(tqr_event_kind_class(TQR_EVENT_DISPATCH_EXECUTE_ACTIONS), TQR_EVENT_CLASS_PHASE);
  ck_assert_int_eq(tqr_event_kind_class(TQR_EVENT_INIT), TQR_EVENT_CLASS_PHASE);
  ck_assert_int_eq(tqr_event_kind_class(TQR_EVENT_HAL_CALL), TQR_EVENT_CLASS_HAL);
  ck_assert_int_eq(tqr_event_kind_class(TQR_EVENT_ERROR), TQR_EVENT_CLASS_ERROR);
  ck_assert_int_eq(tqr_event_kind_class(0), TQR_EVENT_CLASS_NONE);
  ck_assert_int_eq(tqr_event_kind_class(TQR_EVENT_KIND_COUNT), TQR_EVENT_CLASS_NONE);
}
END_TEST

START_TEST(profile_recording_does_not_allocate) {
  tqr_profile_t *p;
  TQ_CK(tqr_profile_create(1000, &p));
  tqr_event_t e = {.dispatch = "main_dispatch_0", .kind = TQR_EVENT_ALLOC, .action_id = 3};
  tq_alloc_fail_after(0);
  for (int i = 0; i < 1000; i++) {
    e.timestamp_ns = (uint64_t)i * 1000;
    tqr_profile_record(p, &e);
  }
  tqr_profile_record(p, &e);
  tq_alloc_fail_after(-1);
  size_t n;
  const tqr_event_t *ev = tqr_profile_events(p, &n);
  ck_assert_uint_eq(n, 1000);
  ck_assert_uint_eq(ev[999].timestamp_ns, 999000);
  ck_assert_uint_eq(tqr_profile_dropped(p), 1);
  tqr_profile_destroy(p);
}
END_TEST

START_TEST(profile_reports_dropped_events_and_io_errors) {
  char dir[PATH_MAX], path[PATH_MAX + 32];
  tmpdir_make(dir);
  snprintf(path, sizeof(path), "%s/p.csv", dir);
  tqr_profile_t *p;
  TQ_CK(tqr_profile_create(1, &p));
  TQ_CK(tqr_profile_open_csv(p, path));
  ck_status(tqr_profile_open_csv(p, path), TQ_FAILED_PRECONDITION, "already writes to");
  tqr_event_t e = {
      .dispatch = "f_dispatch_0", .kind = TQR_EVENT_INIT, .action_id = -1, .timestamp_ns = 2500};
  tqr_profile_record(p, &e);
  tqr_profile_record(p, &e);
  ck_status(tqr_profile_flush(p), TQ_LIMIT, "1 events were dropped");
  TQ_CK(tqr_profile_close(p));
  char *text = slurp(path, NULL);
  ck_assert_str_eq(text, TQR_PROFILE_CSV_HEADER "f_dispatch_0,0,-1,2,INIT_BEGIN\n");
  tq_free(text);
  tqr_profile_destroy(p);
  TQ_CK(tqr_profile_create(1, &p));
  snprintf(path, sizeof(path), "%s/no/such/dir/p.csv", dir);
  ck_status(tqr_profile_open_csv(p, path), TQ_IO, "cannot create profile file");
  tqr_profile_destroy(p);
  tmpdir_remove(dir);
}
END_TEST

/* Runs the tiny module `runs` times on a fake device, writing the profile to `path`. Returns the
 * status of the last invoke. */
static tq_status_t run_tiny(const char *path, int runs, int64_t fail_start_job) {
  tb_t tb;
  tb_tiny(&tb);
  tqr_module_t *m;
  TQ_CK(tb_load(&tb, &m));
  fake_device_t *dev = fake_device_create(0);
  dev->fail_start_job = fail_start_job;
  tqr_profile_t *p;
  TQ_CK(tqr_profile_create(0, &p));
  TQ_CK(tqr_profile_open_csv(p, path));
  tqr_session_options_t o;
  tqr_session_options_initialize(&o);
  o.profile = p;
  tqr_session_t *s;
  TQ_CK(tqr_session_create(m, &dev->base, &o, &s));
  tqr_tensor_t *in, *out = NULL;
  TQ_CK(tqr_input_parse("1x4xi8=10,20,30,40", NULL, &in));
  tq_status_t st = NULL;
  for (int r = 0; r < runs && !st; r++) {
    tqr_tensor_destroy(out);
    st = tqr_session_invoke(s, (const tqr_tensor_t *const *)&in, 1, &out, 1);
  }
  tqr_tensor_destroy(out);
  tqr_tensor_destroy(in);
  tqr_session_destroy(s);
  TQ_CK(tqr_profile_close(p));
  tqr_profile_destroy(p);
  tqr_device_destroy(&dev->base);
  tqr_module_destroy(m);
  tb_deinit(&tb);
  return st;
}

START_TEST(profile_csv_of_the_tiny_module_is_golden) {
  char dir[PATH_MAX], path[PATH_MAX + 16];
  tmpdir_make(dir);
  snprintf(path, sizeof(path), "%s/profile.csv", dir);
  TQ_CK(run_tiny(path, 1, -1));
  char *text = slurp(path, NULL);
  ck_assert_str_eq(text, tiny_golden);
  tq_free(text);
  tmpdir_remove(dir);
}
END_TEST

START_TEST(profile_csv_is_complete_after_a_failure_half_way) {
  char dir[PATH_MAX], path[PATH_MAX + 16];
  tmpdir_make(dir);
  snprintf(path, sizeof(path), "%s/profile.csv", dir);
  ck_status(run_tiny(path, 1, 0), TQ_INVALID_INPUT, "fake device: job 0 fails to start");
  char *text = slurp(path, NULL);
  /* Every row of the golden up to NSS_START_BEGIN of action 6, then ERROR for action 6: no END
   * of the phases still open follows. */
  const char *cut = strstr(tiny_golden, "main_dispatch_0,1,6,17,NSS_START_END");
  ck_assert_ptr_nonnull(cut);
  size_t keep = (size_t)(cut - tiny_golden);
  ck_assert_mem_eq(text, tiny_golden, keep);
  ck_assert_str_eq(text + keep, "main_dispatch_0,1,6,16,ERROR\n");
  /* Every line has the five fields. */
  int lines = 0;
  for (char *line = text; *line; lines++) {
    char *nl = strchr(line, '\n');
    ck_assert_ptr_nonnull(nl);
    int commas = 0;
    for (char *c = line; c < nl; c++) commas += *c == ',';
    ck_assert_int_eq(commas, 4);
    line = nl + 1;
  }
  ck_assert_int_eq(lines, 29);
  tq_free(text);
  tmpdir_remove(dir);
}
END_TEST

START_TEST(profile_two_runs_are_byte_identical_on_the_simulator) {
  char dir[PATH_MAX], path[2][PATH_MAX + 16];
  tmpdir_make(dir);
  tb_t tb;
  tb_copy_module(&tb);
  for (int run = 0; run < 2; run++) {
    snprintf(path[run], sizeof(path[run]), "%s/p%d.csv", dir, run);
    tqr_module_t *m;
    TQ_CK(tb_load(&tb, &m));
    tqr_device_t *dev;
    TQ_CK(tqr_device_sim_create(&dev));
    tqr_profile_t *p;
    TQ_CK(tqr_profile_create(0, &p));
    TQ_CK(tqr_profile_open_csv(p, path[run]));
    tqr_session_options_t o;
    tqr_session_options_initialize(&o);
    o.profile = p;
    tqr_session_t *s;
    TQ_CK(tqr_session_create(m, dev, &o, &s));
    tqr_tensor_t *in, *out;
    TQ_CK(tqr_input_parse("1x4xi8=@random", NULL, &in));
    for (int r = 0; r < 3; r++) {
      TQ_CK(tqr_session_invoke(s, (const tqr_tensor_t *const *)&in, 1, &out, 1));
      tqr_tensor_destroy(out);
    }
    tqr_tensor_destroy(in);
    tqr_session_destroy(s);
    TQ_CK(tqr_profile_close(p));
    tqr_profile_destroy(p);
    tqr_device_destroy(dev);
    tqr_module_destroy(m);
  }
  size_t n0, n1;
  char *a = slurp(path[0], &n0), *b = slurp(path[1], &n1);
  ck_assert_uint_eq(n0, n1);
  ck_assert_mem_eq(a, b, n0);
  /* INIT is invocation 0, the three runs 1, 2 and 3. */
  ck_assert_ptr_nonnull(strstr(a, "main_dispatch_0,0,-1,0,INIT_BEGIN\n"));
  ck_assert_ptr_nonnull(strstr(a, "main_dispatch_0,3,-1,"));
  ck_assert_ptr_nonnull(strstr(a, "main_dispatch_0,3,2,"));
  ck_assert_ptr_null(strstr(a, "main_dispatch_0,4,"));
  ck_assert_ptr_nonnull(strstr(a, "NSS_WAIT_END\n"));
  tq_free(a);
  tq_free(b);
  tb_deinit(&tb);
  tmpdir_remove(dir);
}
END_TEST

/* The invocation ids count up through the process: two sessions writing one profile each take
 * theirs (INIT, then the runs), never the other's. */
START_TEST(profile_invocation_ids_count_up_across_sessions) {
  tb_t tb;
  tb_tiny(&tb);
  tqr_module_t *m;
  TQ_CK(tb_load(&tb, &m));
  fake_device_t *dev = fake_device_create(0);
  tqr_profile_t *p;
  TQ_CK(tqr_profile_create(0, &p));
  tqr_session_options_t o;
  tqr_session_options_initialize(&o);
  o.profile = p;
  tqr_tensor_t *in, *out;
  TQ_CK(tqr_input_parse("1x4xi8=1,2,3,4", NULL, &in));
  tqr_session_t *a, *b;
  TQ_CK(tqr_session_create(m, &dev->base, &o, &a));
  TQ_CK(tqr_profile_reserve(p, 400));
  TQ_CK(tqr_session_invoke(a, (const tqr_tensor_t *const *)&in, 1, &out, 1));
  tqr_tensor_destroy(out);
  TQ_CK(tqr_session_create(m, &dev->base, &o, &b));
  TQ_CK(tqr_session_invoke(b, (const tqr_tensor_t *const *)&in, 1, &out, 1));
  tqr_tensor_destroy(out);
  TQ_CK(tqr_session_invoke(a, (const tqr_tensor_t *const *)&in, 1, &out, 1));
  tqr_tensor_destroy(out);
  /* A call with a wrong input takes no id. */
  ck_status(tqr_session_invoke(a, NULL, 0, &out, 1), TQ_INVALID_ARGUMENT, "takes 1 inputs");
  size_t n;
  const tqr_event_t *ev = tqr_profile_events(p, &n);
  /* The id of each INIT_BEGIN and DISPATCH_BEGIN, in order. */
  uint32_t ids[8];
  uint8_t kinds[8];
  size_t k = 0;
  for (size_t i = 0; i < n && k < 8; i++)
    if ((ev[i].kind == TQR_EVENT_INIT || ev[i].kind == TQR_EVENT_DISPATCH) &&
        ev[i].edge == TQR_EDGE_BEGIN) {
      ids[k] = ev[i].invocation_id;
      kinds[k++] = ev[i].kind;
    }
  ck_assert_uint_eq(k, 5);
  static const uint8_t want_kinds[5] = {TQR_EVENT_INIT, TQR_EVENT_DISPATCH, TQR_EVENT_INIT,
                                        TQR_EVENT_DISPATCH, TQR_EVENT_DISPATCH};
  for (size_t i = 0; i < 5; i++) {
    ck_assert_uint_eq(ids[i], i);
    ck_assert_uint_eq(kinds[i], want_kinds[i]);
  }
  /* Every event of a run carries its run's id: the last one, of session a's second run, is 4. */
  ck_assert_uint_eq(ev[n - 1].invocation_id, 4);
  ck_assert_int_eq(ev[n - 1].kind, TQR_EVENT_DISPATCH);
  tqr_tensor_destroy(in);
  tqr_session_destroy(a);
  tqr_session_destroy(b);
  tqr_profile_destroy(p);
  tqr_device_destroy(&dev->base);
  tqr_module_destroy(m);
  tb_deinit(&tb);
}
END_TEST

Suite *profile_suite(void) {
  Suite *s = suite_create("profile");
  TCase *tc = tcase_create("profile");
  tcase_add_test(tc, profile_event_names);
  tcase_add_test(tc, profile_recording_does_not_allocate);
  tcase_add_test(tc, profile_reports_dropped_events_and_io_errors);
  tcase_add_test(tc, profile_csv_of_the_tiny_module_is_golden);
  tcase_add_test(tc, profile_csv_is_complete_after_a_failure_half_way);
  tcase_add_test(tc, profile_two_runs_are_byte_identical_on_the_simulator);
  tcase_add_test(tc, profile_invocation_ids_count_up_across_sessions);
  suite_add_tcase(s, tc);
  return s;
}
