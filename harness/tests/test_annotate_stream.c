/* A large profile is annotated while it is read (annotate.c): the annotation is the one made of
 * the whole profile read first, to the rows, spans, diagnostics and their order, across chunks
 * and as the reader goes round its ring of events; out of memory at any allocation is
 * reported. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "annotate/annotate_internal.h"
#include "suites.h"
#include "torq/base/alloc.h"
#include "tq_test.h"

/* The fixture's rows after its header and INIT, as invocation `inv` of `dispatch` from `t0`. */
static void append_run(tq_buf_t *b, const char *dispatch, unsigned inv, unsigned long t0) {
  const char *c = strstr(TH_FIXTURE_PROFILE, "main_dispatch_0,0,-1,10,DISPATCH_BEGIN");
  while (*c) {
    const char *nl = strchr(c, '\n');
    int action;
    unsigned ts;
    char ev[64];
    ck_assert_int_eq(sscanf(c, "main_dispatch_0,0,%d,%u,%63[A-Z_]", &action, &ts, ev), 3);
    TH_OK(tq_buf_printf(b, "%s,%u,%d,%lu,%s\n", dispatch, inv, action, t0 + ts, ev));
    c = nl + 1;
  }
}

/* About 9 MiB (nine of the reader's chunks): 450k ERROR rows of 15 bytes (more events than the
 * ring holds, so the reader waits for room, and more diagnostics than are kept), then dispatch
 * runs of two dispatches with what makes each kind of
 * diagnostic spread over them: a bad row and an unknown event, a dispatch the debug info does
 * not have, a timestamp that goes backwards, an END without a BEGIN, and a BEGIN the profile
 * ends first. */
static char *big_profile(void) {
  tq_buf_t b;
  tq_buf_init(&b, 0);
  TH_OK(tq_buf_append_cstr(&b, TQH_PROFILE_HEADER "\n"));
  for (int i = 0; i < 450000; i++) TH_OK(tq_buf_printf(&b, "e,%d,-1,0,ERROR\n", i % 10));
  unsigned inv = 10;
  unsigned long t = 0;
  for (int part = 0; part < 3; part++) {
    for (int i = 0; i < 1000; i++, inv++, t += 100) {
      append_run(&b, i % 2 ? "main_dispatch_1" : "main_dispatch_0", inv, t);
      if (part == 0 && i == 10) {
        TH_OK(tq_buf_append_cstr(&b, "main_dispatch_0,zz,1,1000,NSS_START_BEGIN\n"));
        TH_OK(tq_buf_printf(&b, "main_dispatch_0,%u,1,%lu,FUTURE_THING_BEGIN\n", inv, t + 99));
      }
      if (part == 1 && i == 500) {
        TH_OK(tq_buf_printf(&b, "other_dispatch,%u,0,%lu,NSS_START_BEGIN\n", inv, t + 99));
        TH_OK(tq_buf_printf(&b, "other_dispatch,%u,0,%lu,NSS_START_END\n", inv, t + 99));
        TH_OK(tq_buf_printf(&b, "main_dispatch_0,%u,-1,%lu,DISPATCH_END\n", inv + 1, t + 5));
      }
    }
  }
  TH_OK(tq_buf_printf(&b, "main_dispatch_1,%u,3,%lu,NSS_WAIT_BEGIN\n", inv, t));
  char *text = strdup(b.data);
  tq_buf_deinit(&b);
  return text;
}

static void assert_same_span(const tqh_span_t *a, const tqh_span_t *b, const char *what,
                             size_t i) {
  ck_assert_msg(a->start_us == b->start_us && a->end_us == b->end_us &&
                    a->ready_us == b->ready_us && a->invocation_id == b->invocation_id &&
                    a->dispatch == b->dispatch && a->id == b->id && a->kind == b->kind &&
                    a->units == b->units && a->program == b->program &&
                    strcmp(a->name, b->name) == 0,
                "%s %zu differs", what, i);
}

static void assert_same_spans(const tqh_span_t *a, size_t na, const tqh_span_t *b, size_t nb,
                              const char *what) {
  ck_assert_uint_eq(na, nb);
  for (size_t i = 0; i < na; i++) assert_same_span(&a[i], &b[i], what, i);
}

static void assert_same_annotation(const tqh_annotation_t *a, const tqh_annotation_t *b) {
  char *da = th_diags_text(a), *db = th_diags_text(b);
  ck_assert_str_eq(da, db);
  free(da);
  free(db);
  ck_assert_uint_eq(a->diags.errors, b->diags.errors);
  ck_assert_uint_eq(a->diags.warnings, b->diags.warnings);
  ck_assert_uint_eq(a->diags.dropped, b->diags.dropped);
  ck_assert_uint_eq(a->num_dispatches, b->num_dispatches);
  for (size_t i = 0; i < a->num_dispatches; i++)
    ck_assert_str_eq(a->dispatch_names[i], b->dispatch_names[i]);
  ck_assert_int_eq(a->has_time, b->has_time);
  ck_assert_uint_eq(a->first_us, b->first_us);
  ck_assert_uint_eq(a->last_us, b->last_us);
  ck_assert_uint_eq(a->num_rows, b->num_rows);
  tq_buf_t ca, cb;
  tq_buf_init(&ca, 0);
  tq_buf_init(&cb, 0);
  TH_OK(tqh_annotation_format_csv(a, &ca));
  TH_OK(tqh_annotation_format_csv(b, &cb));
  ck_assert_uint_eq(ca.len, cb.len);
  ck_assert(memcmp(ca.data, cb.data, ca.len) == 0);
  tq_buf_deinit(&ca);
  tq_buf_deinit(&cb);
  for (size_t i = 0; i < a->num_rows; i++) ck_assert_uint_eq(a->rows[i].line, b->rows[i].line);
  assert_same_spans(a->nss_runs, a->num_nss_runs, b->nss_runs, b->num_nss_runs, "NSS run");
  assert_same_spans(a->host_runs, a->num_host_runs, b->host_runs, b->num_host_runs, "host run");
  assert_same_spans(a->hal_calls, a->num_hal_calls, b->hal_calls, b->num_hal_calls, "HAL call");
  assert_same_spans(a->phases, a->num_phases, b->phases, b->num_phases, "phase");
}

/* The profile at `path` annotated with `info`, streamed or read first. */
static tqh_annotation_t *annotate(tqh_debug_info_t *info, const char *path, int streamed) {
  size_t saved = tqh__annotate_stream_min_bytes;
  uint64_t before = tqh__annotate_streamed();
  tqh__annotate_stream_min_bytes = streamed ? 0 : SIZE_MAX;
  tqh_annotation_t *ann = NULL;
  TH_OK(tqh_annotate_with(info, path, NULL, &ann));
  tqh__annotate_stream_min_bytes = saved;
  ck_assert_uint_eq(tqh__annotate_streamed() - before, streamed ? 1 : 0);
  ck_assert_ptr_nonnull(ann);
  return ann;
}

START_TEST(streamed_annotation_is_the_one_of_the_whole_profile) {
  char *dir = th_tmpdir();
  char *dbg = th_path(dir, "dbg");
  th_fixture_debug_info_dispatches(dbg, 2);
  tqh_diags_t diags;
  tqh_diags_init(&diags);
  tqh_debug_info_t *info = NULL;
  TH_OK(tqh_debug_info_load(dbg, &diags, &info));
  ck_assert_uint_eq(diags.count, 0);
  char *path = th_path(dir, "p.csv");
  char *text = big_profile();
  ck_assert_uint_gt(strlen(text), (size_t)9 << 20);
  ck_assert_uint_gt(450000, 3 * tqh__stream_ring / 2); /* round the ring more than once */
  th_write(path, text);
  tqh_annotation_t *whole = annotate(info, path, 0);
  tqh_annotation_t *streamed = annotate(info, path, 1);
  assert_same_annotation(whole, streamed);
  /* A ring of 1000 events: the reader is often a ring ahead and waits. */
  size_t saved = tqh__stream_ring;
  tqh__stream_ring = 1000;
  tqh_annotation_t *small_ring = annotate(info, path, 1);
  tqh__stream_ring = saved;
  assert_same_annotation(whole, small_ring);
  tqh_annotation_destroy(small_ring);
  /* What the profile holds is there (so the two agree on something). */
  ck_assert_uint_eq(streamed->num_rows, 3000 * 10 + 1);
  ck_assert_uint_eq(streamed->diags.dropped, streamed->diags.errors + streamed->diags.warnings -
                                                 TQH_DIAGS_MAX_KEPT);
  ck_assert_uint_ge(streamed->diags.warnings, 450000);
  /* The profile's and the missing dispatch's come first; the events' past the kept ones. */
  const char *needles[] = {"invocation_id 'zz'", "dispatch 'other_dispatch' is not in the debug",
                           "the run failed outside an action"};
  for (size_t i = 0; i < sizeof(needles) / sizeof(needles[0]); i++) {
    int found = 0;
    for (size_t k = 0; k < streamed->diags.count; k++)
      found |= strstr(streamed->diags.items[k].message, needles[i]) != NULL;
    ck_assert_msg(found, "no diagnostic with \"%s\"", needles[i]);
  }
  tqh_annotation_destroy(whole);
  tqh_annotation_destroy(streamed);
  free(text);
  tq_free(path);
  tqh_debug_info_destroy(info);
  tq_free(dbg);
  th_rmtree(dir);
}
END_TEST

/* The diagnostics in their order: the profile's (the unknown event type, said at its end), the
 * dispatch missing from the debug info, then the events' (a timestamp that goes backwards, an
 * END without a BEGIN, the BEGIN the profile ends first). */
START_TEST(streamed_annotation_of_a_small_profile_keeps_the_order) {
  char *dir = th_tmpdir();
  char *dbg = th_path(dir, "dbg");
  th_fixture_debug_info(dbg);
  tqh_diags_t diags;
  tqh_diags_init(&diags);
  tqh_debug_info_t *info = NULL;
  TH_OK(tqh_debug_info_load(dbg, &diags, &info));
  char *path = th_path(dir, "p.csv");
  tq_buf_t b;
  tq_buf_init(&b, 0);
  TH_OK(tq_buf_append_cstr(&b, TH_FIXTURE_PROFILE));
  TH_OK(tq_buf_append_cstr(&b, "main_dispatch_0,1,0,100,NEWER_BEGIN\n"
                               "other,1,0,100,NSS_START_BEGIN\nother,1,0,101,NSS_START_END\n"
                               "main_dispatch_0,1,0,99,NSS_START_END\n"
                               "main_dispatch_0,2,2,120,NSS_WAIT_BEGIN\n"));
  th_write(path, b.data);
  tq_buf_deinit(&b);
  tqh_annotation_t *whole = annotate(info, path, 0);
  tqh_annotation_t *streamed = annotate(info, path, 1);
  assert_same_annotation(whole, streamed);
  ck_assert_uint_eq(streamed->diags.count, 5);
  ck_assert_ptr_nonnull(strstr(streamed->diags.items[0].message, "this reader does not know"));
  ck_assert_ptr_nonnull(strstr(streamed->diags.items[1].message, "'other' is not in the debug"));
  ck_assert_ptr_nonnull(strstr(streamed->diags.items[4].message, "the profile ends first"));
  tqh_annotation_destroy(whole);
  tqh_annotation_destroy(streamed);
  /* SQLite style: every allocation in turn fails, on either thread; each annotation reports
   * TQ_OUT_OF_MEMORY or succeeds, and never crashes or leaks (valgrind and ASan check that). */
  int succeeded = 0;
  tqh__annotate_stream_min_bytes = 0;
  for (long n = 0; n < 2000 && !succeeded; n++) {
    tqh_annotation_t *ann = NULL;
    tq_alloc_fail_after(n);
    tq_status_t st = tqh_annotate_with(info, path, NULL, &ann);
    tq_alloc_fail_after(-1);
    if (st) {
      ck_assert_msg(tq_status_code(st) == TQ_OUT_OF_MEMORY, "after %ld: %s", n,
                    tq_status_message(st));
      ck_assert_ptr_null(ann);
      tq_status_free(st);
    } else {
      succeeded = ann->diags.dropped == 0;
      tqh_annotation_destroy(ann);
    }
  }
  tqh__annotate_stream_min_bytes = (size_t)4 << 20;
  ck_assert(succeeded);
  tq_free(path);
  tqh_debug_info_destroy(info);
  tq_free(dbg);
  th_rmtree(dir);
}
END_TEST

Suite *annotate_stream_suite(void) {
  Suite *s = suite_create("annotate_stream");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, streamed_annotation_is_the_one_of_the_whole_profile);
  tcase_add_test(tc, streamed_annotation_of_a_small_profile_keeps_the_order);
  suite_add_tcase(s, tc);
  return s;
}
