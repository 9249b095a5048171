/* Sessions: action order on a fake device, data through every action kind, input binding,
 * repeated invocations, failures, the simulator device. */
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "suites.h"
#include "torq/base/alloc.h"

START_TEST(session_runs_actions_in_order_on_the_device) {
  tb_t tb;
  tb_tiny(&tb);
  tqr_module_t *m;
  TQ_CK(tb_load(&tb, &m));
  fake_device_t *dev = fake_device_create(0);
  run_and_expect(m, &dev->base, NULL, "1x4xi8=10,20,30,40", "1x4xi8=[33 44 33 44]");
  ck_assert_str_eq(dev->log, "prepare 1;start 0;wait 0;");
  tqr_device_destroy(&dev->base);
  tqr_module_destroy(m);
  tb_deinit(&tb);
}
END_TEST

START_TEST(session_checks_inputs_against_the_signature) {
  tb_t tb;
  tb_tiny(&tb);
  tqr_module_t *m;
  TQ_CK(tb_load(&tb, &m));
  fake_device_t *dev = fake_device_create(0);
  tqr_session_t *s;
  TQ_CK(tqr_session_create(m, &dev->base, NULL, &s));
  tqr_tensor_t *shape, *type, *out[1];
  TQ_CK(tqr_input_parse("1x8xi8=1", NULL, &shape));
  TQ_CK(tqr_input_parse("1x4xi32=1", NULL, &type));
  ck_status(tqr_session_invoke(s, (const tqr_tensor_t *const *)&shape, 1, out, 1),
            TQ_INVALID_ARGUMENT, "input 0 of function main: expected 1x4xi8, given 1x8xi8");
  ck_assert_ptr_null(out[0]);
  ck_status(tqr_session_invoke(s, (const tqr_tensor_t *const *)&type, 1, out, 1),
            TQ_INVALID_ARGUMENT, "input 0 of function main: expected 1x4xi8, given 1x4xi32");
  ck_status(tqr_session_invoke(s, NULL, 0, out, 1), TQ_INVALID_ARGUMENT,
            "function main takes 1 inputs, 0 given");
  ck_status(tqr_session_invoke(s, (const tqr_tensor_t *const *)&shape, 1, out, 0),
            TQ_INVALID_ARGUMENT, "function main has 1 outputs, room for 0 given");
  tqr_session_stats_t stats;
  tqr_session_stats(s, &stats);
  ck_assert_uint_eq(stats.invocations, 0);
  ck_assert_str_eq(dev->log, "prepare 1;");
  tqr_tensor_destroy(shape);
  tqr_tensor_destroy(type);
  tqr_session_destroy(s);
  tqr_device_destroy(&dev->base);
  tqr_module_destroy(m);
  tb_deinit(&tb);
}
END_TEST

START_TEST(session_runs_repeatedly_with_fresh_buffers) {
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
  tqr_session_t *s;
  TQ_CK(tqr_session_create(m, &dev->base, &o, &s));
  TQ_CK(tqr_profile_reserve(p, 200));
  const char *inputs[3] = {"1x4xi8=0,0,0,0", "1x4xi8=1,2,3,4", "1x4xi8=-3,-4,100,120"};
  const int8_t want[3][4] = {{3, 4, 3, 4}, {6, 8, 6, 8}, {103, 124, 103, 124}};
  for (int r = 0; r < 3; r++) {
    tqr_tensor_t *in, *out;
    TQ_CK(tqr_input_parse(inputs[r], NULL, &in));
    TQ_CK(tqr_session_invoke(s, (const tqr_tensor_t *const *)&in, 1, &out, 1));
    ck_assert_mem_eq(out->data, want[r], 4);
    tqr_tensor_destroy(in);
    tqr_tensor_destroy(out);
  }
  tqr_session_stats_t stats;
  tqr_session_stats(s, &stats);
  ck_assert_uint_eq(stats.invocations, 3);
  ck_assert_uint_eq(stats.nss_programs, 3);
  ck_assert_uint_eq(stats.host_programs, 3);
  ck_assert_uint_eq(stats.nss_cycles, 3 * 1600);
  ck_assert_uint_eq(tqr_session_job_cycles(s, 0), 1600); /* the last run of job 0 */
  ck_assert_uint_eq(tqr_session_job_cycles(s, 1), 0);    /* no such job */
  tqr_nss_result_t job;
  ck_assert_int_eq(tqr_session_job_result(s, 0, &job), 1);
  ck_assert_uint_eq(job.cycles, 1600);
  ck_assert_uint_eq(job.tasks, 2);
  ck_assert_uint_eq(job.dma_cycles, 0); /* a device that does not tell where its units work */
  ck_assert_int_eq(tqr_session_job_result(s, 1, &job), 0);
  ck_assert_uint_eq(job.cycles, 0);
  ck_assert_uint_eq(stats.time_ns, 10000 + 3 * 12026);
  size_t n;
  const tqr_event_t *ev = tqr_profile_events(p, &n);
  /* INIT: 10 events (itself and four parts); each run: 28 (DISPATCH and its three parts, two
   * for each of the 10 actions). */
  ck_assert_uint_eq(n, 10 + 3 * 28);
  ck_assert_uint_eq(ev[0].invocation_id, 0);
  ck_assert_int_eq(ev[0].kind, TQR_EVENT_INIT);
  for (int r = 0; r < 3; r++) {
    const tqr_event_t *first = &ev[10 + 28 * r], *last = &ev[10 + 28 * r + 27];
    ck_assert_uint_eq(first->invocation_id, (uint32_t)r + 1);
    ck_assert_int_eq(first->kind, TQR_EVENT_DISPATCH);
    ck_assert_int_eq(first->edge, TQR_EDGE_BEGIN);
    ck_assert_uint_eq(last->invocation_id, (uint32_t)r + 1);
    ck_assert_int_eq(last->kind, TQR_EVENT_DISPATCH);
    ck_assert_int_eq(last->edge, TQR_EDGE_END);
    ck_assert_uint_eq(last->timestamp_ns, 10000 + (uint64_t)(r + 1) * 12026);
  }
  tqr_session_destroy(s);
  tqr_profile_destroy(p);
  tqr_device_destroy(&dev->base);
  tqr_module_destroy(m);
  tb_deinit(&tb);
}
END_TEST

/* A buffer's storage outlives its DEALLOC for the next ALLOC of it (no new memory, so no fresh
 * pages), zero-filled again as new storage would be. */
START_TEST(session_reuses_released_buffers_zero_filled) {
  tb_t tb;
  tb_init(&tb);
  uint32_t in = tb_buffer(&tb, TORQ__ELEMENT_TYPE__I8, TB_DIMS(4));
  uint32_t t = tb_buffer(&tb, TORQ__ELEMENT_TYPE__I8, TB_DIMS(8));
  uint32_t o = tb_buffer(&tb, TORQ__ELEMENT_TYPE__I8, TB_DIMS(16));
  tb_input(&tb, in);
  tb_output(&tb, o);
  tb_action(&tb, TORQ__ACTION_KIND__ALLOC, o);
  tb_action(&tb, TORQ__ACTION_KIND__ALLOC, t);
  tb_copy(&tb, t, 0, in, 0, 4);
  tb_copy(&tb, o, 0, t, 0, 8);
  tb_action(&tb, TORQ__ACTION_KIND__DEALLOC, t);
  tb_action(&tb, TORQ__ACTION_KIND__ALLOC, t); /* again: what the input left must be gone */
  tb_copy(&tb, o, 8, t, 0, 8);
  tb_action(&tb, TORQ__ACTION_KIND__DEALLOC, t);
  tqr_module_t *m;
  TQ_CK(tb_load(&tb, &m));
  fake_device_t *dev = fake_device_create(0);
  tqr_session_t *s;
  TQ_CK(tqr_session_create(m, &dev->base, NULL, &s));
  const char *inputs[2] = {"4xi8=1,2,3,4", "4xi8=-5,6,-7,8"};
  const int8_t want[2][16] = {{1, 2, 3, 4}, {-5, 6, -7, 8}};
  for (int r = 0; r < 2; r++) {
    tqr_tensor_t *x, *out;
    TQ_CK(tqr_input_parse(inputs[r], NULL, &x));
    /* The output tensor takes two allocations; on the first run the buffers need theirs. */
    tq_alloc_fail_after(2);
    tq_status_t st = tqr_session_invoke(s, (const tqr_tensor_t *const *)&x, 1, &out, 1);
    tq_alloc_fail_after(-1);
    if (r == 0) {
      ck_status(st, TQ_OUT_OF_MEMORY, "out of memory");
      TQ_CK(tqr_session_invoke(s, (const tqr_tensor_t *const *)&x, 1, &out, 1));
    } else {
      TQ_CK(st);
    }
    ck_assert_mem_eq(out->data, want[r], 16);
    tqr_tensor_destroy(x);
    tqr_tensor_destroy(out);
  }
  tqr_session_destroy(s);
  tqr_device_destroy(&dev->base);
  tqr_module_destroy(m);
  tb_deinit(&tb);
}
END_TEST

START_TEST(session_resolves_views) {
  tb_t tb;
  tb_init(&tb);
  uint32_t in = tb_buffer(&tb, TORQ__ELEMENT_TYPE__I8, TB_DIMS(1, 8));
  uint32_t v = tb_view(&tb, in, 4, TORQ__ELEMENT_TYPE__I8, TB_DIMS(4));
  uint32_t o = tb_buffer(&tb, TORQ__ELEMENT_TYPE__I8, TB_DIMS(2, 4));
  uint32_t ov = tb_view(&tb, o, 0, TORQ__ELEMENT_TYPE__I8, TB_DIMS(8));
  tb_input(&tb, in);
  tb_output(&tb, ov);
  uint32_t j = tb_dma_program(&tb, v, o, 4);
  tb_action(&tb, TORQ__ACTION_KIND__ALLOC, o);
  tb_action(&tb, TORQ__ACTION_KIND__NSS_START, j);
  tb_action(&tb, TORQ__ACTION_KIND__NSS_WAIT, j);
  tqr_module_t *m;
  TQ_CK(tb_load(&tb, &m));
  fake_device_t *dev = fake_device_create(0);
  run_and_expect(m, &dev->base, NULL, "1x8xi8=1,2,3,4,5,6,7,8", "8xi8=5 6 7 8 0 0 0 0");
  tqr_device_destroy(&dev->base);
  tqr_module_destroy(m);
  tb_deinit(&tb);
}
END_TEST

START_TEST(session_runs_host_programs_on_the_reference_kernels) {
  tb_t tb;
  const int32_t c[4] = {1, 2, 3, 4};
  tb_host_module(&tb, "tosa.intdiv", c);
  tqr_module_t *m;
  TQ_CK(tb_load(&tb, &m));
  fake_device_t *dev = fake_device_create(0);
  run_and_expect(m, &dev->base, NULL, "4xi32=10,-10,9,100", "4xi32=10 -5 3 25");
  ck_assert_str_eq(dev->log, "prepare 0;");
  tqr_device_destroy(&dev->base);
  tqr_module_destroy(m);
  tb_deinit(&tb);
}
END_TEST

START_TEST(session_runs_i48_host_programs) {
  tb_t tb;
  tb_init(&tb);
  uint32_t in = tb_buffer(&tb, TORQ__ELEMENT_TYPE__I48, TB_DIMS(3));
  uint32_t mid = tb_buffer(&tb, TORQ__ELEMENT_TYPE__I48, TB_DIMS(3));
  uint32_t o = tb_buffer(&tb, TORQ__ELEMENT_TYPE__I32, TB_DIMS(3));
  tb_input(&tb, in);
  tb_output(&tb, o);
  uint32_t h0 = tb_host(&tb, "tosa.negate", 1, &in, 1, &mid);
  uint32_t h1 = tb_host(&tb, "tosa.cast", 1, &mid, 1, &o);
  tb_action(&tb, TORQ__ACTION_KIND__ALLOC, mid);
  tb_action(&tb, TORQ__ACTION_KIND__HOST_START, h0);
  tb_action(&tb, TORQ__ACTION_KIND__HOST_WAIT, h0);
  tb_action(&tb, TORQ__ACTION_KIND__ALLOC, o);
  tb_action(&tb, TORQ__ACTION_KIND__HOST_START, h1);
  tb_action(&tb, TORQ__ACTION_KIND__HOST_WAIT, h1);
  tb_action(&tb, TORQ__ACTION_KIND__DEALLOC, mid);
  tqr_module_t *m;
  TQ_CK(tb_load(&tb, &m));
  fake_device_t *dev = fake_device_create(0);
  tqr_session_t *s;
  TQ_CK(tqr_session_create(m, &dev->base, NULL, &s));
  tqr_tensor_t *t, *out;
  TQ_CK(tqr_tensor_create(TORQ__ELEMENT_TYPE__I48, 1, (const int64_t[]){3}, &t));
  const int64_t values[3] = {5, -7, 65536};
  ck_assert_uint_eq(t->size, sizeof(values));
  memcpy(t->data, values, sizeof(values));
  TQ_CK(tqr_session_invoke(s, (const tqr_tensor_t *const *)&t, 1, &out, 1));
  const int32_t want[3] = {-5, 7, -65536};
  ck_assert_mem_eq(out->data, want, 12);
  tqr_tensor_destroy(t);
  tqr_tensor_destroy(out);
  tqr_session_destroy(s);
  tqr_device_destroy(&dev->base);
  tqr_module_destroy(m);
  tb_deinit(&tb);
}
END_TEST

START_TEST(session_reports_a_failing_host_program_and_recovers) {
  tb_t tb;
  const int32_t c[4] = {1, 0, 1, 1};
  tb_host_module(&tb, "tosa.intdiv", c);
  tqr_module_t *m;
  TQ_CK(tb_load(&tb, &m));
  fake_device_t *dev = fake_device_create(0);
  tqr_session_t *s;
  TQ_CK(tqr_session_create(m, &dev->base, NULL, &s));
  tqr_tensor_t *in, *out;
  TQ_CK(tqr_input_parse("4xi32=1", NULL, &in));
  tq_status_t st = tqr_session_invoke(s, (const tqr_tensor_t *const *)&in, 1, &out, 1);
  ck_assert_ptr_null(out);
  char *text = tq_status_format(st, 0);
  ck_assert_ptr_nonnull(
      strstr(text, "in host program 0 (tosa.intdiv) at loc(\"hand-made.mlir\":2:3)"));
  ck_assert_ptr_nonnull(strstr(text, "in action 2 (HOST_START) of main_dispatch_0, invocation 1"));
  free(text);
  ck_assert_int_eq(tq_status_code(st), TQ_INVALID_ARGUMENT);
  tq_status_free(st);
  ck_assert_str_eq(dev->log, "prepare 0;reset;");
  tqr_tensor_destroy(in);
  tqr_session_destroy(s);
  tqr_device_destroy(&dev->base);
  tqr_module_destroy(m);
  tb_deinit(&tb);
}
END_TEST

START_TEST(session_device_failure_then_success) {
  tb_t tb;
  tb_tiny(&tb);
  tqr_module_t *m;
  TQ_CK(tb_load(&tb, &m));
  fake_device_t *dev = fake_device_create(0);
  dev->fail_wait_job = 0;
  tqr_session_t *s;
  TQ_CK(tqr_session_create(m, &dev->base, NULL, &s));
  tqr_tensor_t *in, *out;
  TQ_CK(tqr_input_parse("1x4xi8=10,20,30,40", NULL, &in));
  ck_status(tqr_session_invoke(s, (const tqr_tensor_t *const *)&in, 1, &out, 1), TQ_INTERNAL,
            "in action 7 (NSS_WAIT) of main_dispatch_0, invocation 1");
  dev->fail_wait_job = -1;
  TQ_CK(tqr_session_invoke(s, (const tqr_tensor_t *const *)&in, 1, &out, 1));
  const int8_t want[4] = {33, 44, 33, 44};
  ck_assert_mem_eq(out->data, want, 4);
  ck_assert_str_eq(dev->log, "prepare 1;start 0;wait 0;reset;start 0;wait 0;");
  tqr_tensor_destroy(in);
  tqr_tensor_destroy(out);
  tqr_session_destroy(s);
  tqr_device_destroy(&dev->base);
  tqr_module_destroy(m);
  tb_deinit(&tb);
}
END_TEST

START_TEST(session_runs_nss_programs_on_the_simulator) {
  tb_t tb;
  tb_copy_module(&tb);
  tqr_module_t *m;
  TQ_CK(tb_load(&tb, &m));
  tqr_device_t *dev;
  TQ_CK(tqr_device_sim_create(&dev));
  ck_assert_str_eq(dev->name, "sim");
  ck_assert_uint_eq(dev->flags & TQR_DEVICE_REAL_TIME, 0);
  tqr_session_t *s;
  TQ_CK(tqr_session_create(m, dev, NULL, &s));
  tqr_tensor_t *in, *out;
  TQ_CK(tqr_input_parse("1x4xi8=7,-8,9,-10", NULL, &in));
  TQ_CK(tqr_session_invoke(s, (const tqr_tensor_t *const *)&in, 1, &out, 1));
  ck_assert_mem_eq(out->data, in->data, 4);
  tqr_session_stats_t stats;
  tqr_session_stats(s, &stats);
  ck_assert_uint_eq(stats.nss_programs, 1);
  ck_assert_uint_gt(stats.nss_cycles, 0);
  /* The simulator tells where the program's DMA and compute worked: a copy is DMA alone. */
  tqr_nss_result_t job;
  ck_assert_int_eq(tqr_session_job_result(s, 0, &job), 1);
  ck_assert_uint_eq(job.cycles, stats.nss_cycles);
  ck_assert_uint_gt(job.dma_cycles, 0);
  ck_assert_uint_le(job.dma_cycles, job.cycles);
  ck_assert_uint_eq(job.compute_cycles, 0);
  ck_assert_uint_eq(job.overlap_cycles, 0);
  tqr_tensor_destroy(in);
  tqr_tensor_destroy(out);
  tqr_session_destroy(s);
  tqr_device_destroy(dev);
  tqr_module_destroy(m);
  tb_deinit(&tb);
}
END_TEST

START_TEST(session_real_time_device_stamps_monotonic_time) {
  tb_t tb;
  tb_tiny(&tb);
  tqr_module_t *m;
  TQ_CK(tb_load(&tb, &m));
  fake_device_t *dev = fake_device_create(TQR_DEVICE_REAL_TIME);
  tqr_profile_t *p;
  TQ_CK(tqr_profile_create(64, &p));
  run_and_expect(m, &dev->base, p, "1x4xi8=10,20,30,40", "1x4xi8=[33 44 33 44]");
  size_t n;
  const tqr_event_t *ev = tqr_profile_events(p, &n);
  ck_assert_uint_eq(n, 10 + 28);
  ck_assert_uint_gt(ev[0].timestamp_ns, 0);
  for (size_t i = 1; i < n; i++) ck_assert_uint_ge(ev[i].timestamp_ns, ev[i - 1].timestamp_ns);
  tqr_profile_destroy(p);
  tqr_device_destroy(&dev->base);
  tqr_module_destroy(m);
  tb_deinit(&tb);
}
END_TEST

Suite *session_suite(void) {
  Suite *s = suite_create("session");
  TCase *tc = tcase_create("session");
  tcase_add_test(tc, session_runs_actions_in_order_on_the_device);
  tcase_add_test(tc, session_checks_inputs_against_the_signature);
  tcase_add_test(tc, session_runs_repeatedly_with_fresh_buffers);
  tcase_add_test(tc, session_reuses_released_buffers_zero_filled);
  tcase_add_test(tc, session_resolves_views);
  tcase_add_test(tc, session_runs_host_programs_on_the_reference_kernels);
  tcase_add_test(tc, session_runs_i48_host_programs);
  tcase_add_test(tc, session_reports_a_failing_host_program_and_recovers);
  tcase_add_test(tc, session_device_failure_then_success);
  tcase_add_test(tc, session_runs_nss_programs_on_the_simulator);
  tcase_add_test(tc, session_real_time_device_stamps_monotonic_time);
  suite_add_tcase(s, tc);
  return s;
}
