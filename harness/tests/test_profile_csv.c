/* The runtime profile CSV reader on its own: good rows, and each kind of bad row reported with
 * its line number while the good rows around it are kept. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "torq/harness/profile_csv.h"
#include "torq/runtime/profile.h"

#define HDR TQH_PROFILE_HEADER "\n"

static int has(const tqh_diags_t *d, unsigned line, const char *needle) {
  for (size_t i = 0; i < d->count; i++)
    if (d->items[i].line == line && strstr(d->items[i].message, needle)) return 1;
  return 0;
}

START_TEST(profile_csv_reads_every_event_kind) {
  const char *text = HDR "main_dispatch_0,0,-1,0,INIT_BEGIN\n"
                         "main_dispatch_0,0,-1,10,INIT_END\n"
                         "main_dispatch_0,3,7,11,HOST_COPY_BEGIN\r\n"
                         "main_dispatch_0,3,7,18446744073709551,HOST_COPY_END\n"
                         "other_dispatch_0,4,2147483647,12,NSS_WAIT_BEGIN\n"
                         "main_dispatch_0,4,-1,13,ERROR\n"
                         "main_dispatch_0,5,-1,14,INIT_LOAD_CODE_SEGMENTS_BEGIN\n"
                         "main_dispatch_0,5,-1,14,DISPATCH_RELEASE_HW_RESOURCES_END\n"
                         "__HAL_QUEUE_EXECUTE__,6,-1,15,HAL_CALL_BEGIN\n"
                         "__HAL_QUEUE_EXECUTE__,6,7,16,HAL_COMMAND_BUFFER_PUSH_DESCRIPTOR_SET_END";
  tqh_diags_t d;
  tqh_diags_init(&d);
  tqh_profile_t p;
  TH_OK(tqh_profile_parse("p.csv", text, strlen(text), &d, &p));
  ck_assert_uint_eq(d.count, 0);
  ck_assert_uint_eq(p.count, 10);
  ck_assert_uint_eq(p.num_dispatches, 3);
  ck_assert_str_eq(p.dispatch_names[1], "other_dispatch_0");
  ck_assert_int_eq(p.events[0].kind, TQR_EVENT_INIT);
  ck_assert_int_eq(p.events[0].edge, TQR_EDGE_BEGIN);
  ck_assert_int_eq(p.events[0].action_id, -1);
  ck_assert_int_eq(p.events[2].kind, TQR_EVENT_HOST_COPY);
  ck_assert_uint_eq(p.events[2].invocation_id, 3);
  ck_assert_uint_eq(p.events[3].timestamp_us, 18446744073709551ull);
  ck_assert_int_eq(p.events[4].action_id, 2147483647);
  ck_assert_uint_eq(p.events[4].dispatch, 1);
  ck_assert_int_eq(p.events[5].kind, TQR_EVENT_ERROR);
  ck_assert_int_eq(p.events[5].edge, TQR_EDGE_POINT);
  ck_assert_uint_eq(p.events[5].line, 7);
  ck_assert_int_eq(p.events[6].kind, TQR_EVENT_INIT_LOAD_CODE_SEGMENTS);
  ck_assert_int_eq(p.events[7].kind, TQR_EVENT_DISPATCH_RELEASE_HW_RESOURCES);
  ck_assert_int_eq(p.events[7].edge, TQR_EDGE_END);
  ck_assert_str_eq(p.dispatch_names[2], "__HAL_QUEUE_EXECUTE__");
  ck_assert_int_eq(p.events[8].kind, TQR_EVENT_HAL_CALL);
  /* HAL events may carry the action id the HAL gives them. */
  ck_assert_int_eq(p.events[9].kind, TQR_EVENT_HAL_COMMAND_BUFFER_PUSH_DESCRIPTOR_SET);
  ck_assert_int_eq(p.events[9].action_id, 7);
  ck_assert_uint_eq(p.unknown_rows, 0);
  tqh_profile_deinit(&p);
  tqh_diags_deinit(&d);
}
END_TEST

typedef struct bad_s {
  const char *row;
  const char *needle;
  int warning;
} bad_t;

static const bad_t bad_rows[] = {
    {"main_dispatch_0,0,1,10", "4 columns, expected 5", 0},
    {"main_dispatch_0,0,1,10,ALLOC_BEGIN,x", "6 columns, expected 5", 0},
    {"", "empty line", 0},
    {",0,1,10,ALLOC_BEGIN", "empty dispatch_name", 0},
    {"main_dispatch_0,x,1,10,ALLOC_BEGIN", "invocation_id 'x'", 0},
    {"main_dispatch_0,-1,1,10,ALLOC_BEGIN", "invocation_id '-1'", 0},
    {"main_dispatch_0,4294967296,1,10,ALLOC_BEGIN", "invocation_id '4294967296'", 0},
    {"main_dispatch_0,0,one,10,ALLOC_BEGIN", "action_id 'one'", 0},
    {"main_dispatch_0,0,-2,10,ALLOC_BEGIN", "action_id '-2'", 0},
    {"main_dispatch_0,0,2147483648,10,ALLOC_BEGIN", "action_id '2147483648'", 0},
    {"main_dispatch_0,0,1,1.5,ALLOC_BEGIN", "timestamp_us '1.5'", 0},
    {"main_dispatch_0,0,1,,ALLOC_BEGIN", "timestamp_us ''", 0},
    {"main_dispatch_0,0,1,99999999999999999999,ALLOC_BEGIN", "timestamp_us", 0},
    {"main_dispatch_0,0,1,10,ALLOC", "unknown event 'ALLOC'", 0},
    {"main_dispatch_0,0,1,10,alloc_begin", "unknown event", 0},
    {"main_dispatch_0,0,1,10,ERROR_BEGIN", "unknown event", 0},
    {"main_dispatch_0,0,-1,10,ALLOC_BEGIN", "action event ALLOC with action_id -1", 0},
    {"main_dispatch_0,0,3,10,DISPATCH_BEGIN", "phase event DISPATCH with action_id 3", 0},
    {"main_dispatch_0,0,3,10,INIT_HW_OPEN_BEGIN", "phase event INIT_HW_OPEN with action_id 3", 0},
    {"main_dispatch_0,0,-1,10,HAL_CALL", "unknown event 'HAL_CALL'", 0},
    {"main_dispatch_0,0,-1,10,WARMUP_BEGIN",
     "1 row of event types this reader does not know ignored: WARMUP (1)", 1},
    {"main_dispatch_0,0,1,10,ALL\x01OC_BEGIN", "unknown event 'ALL?OC_BEGIN'", 0},
};

START_TEST(profile_csv_reports_bad_rows_with_their_line_and_keeps_the_rest) {
  const bad_t *b = &bad_rows[_i];
  char text[512];
  snprintf(text, sizeof(text),
           HDR "main_dispatch_0,0,-1,0,INIT_BEGIN\n%s\nmain_dispatch_0,0,-1,10,INIT_END\n", b->row);
  tqh_diags_t d;
  tqh_diags_init(&d);
  tqh_profile_t p;
  TH_OK(tqh_profile_parse("p.csv", text, strlen(text), &d, &p));
  ck_assert_msg(has(&d, 3, b->needle), "row '%s': no diagnostic at line 3 with '%s' (%zu diags%s%s)",
                b->row, b->needle, d.count, d.count ? ": " : "", d.count ? d.items[0].message : "");
  ck_assert_uint_eq(d.count, 1);
  ck_assert_uint_eq(b->warning ? d.warnings : d.errors, 1);
  ck_assert_uint_eq(p.count, 2);
  ck_assert_uint_eq(p.events[1].line, 4);
  tqh_profile_deinit(&p);
  tqh_diags_deinit(&d);
}
END_TEST

/* A newer runtime's event types on many rows: counted, and reported once, not per row. */
START_TEST(profile_csv_counts_unknown_event_types_and_reports_them_once) {
  tq_buf_t b;
  tq_buf_init(&b, 0);
  TH_OK(tq_buf_append_cstr(&b, HDR "main_dispatch_0,0,-1,0,INIT_BEGIN\n"));
  for (int i = 0; i < 300; i++)
    TH_OK(tq_buf_printf(&b, "main_dispatch_0,0,-1,%d,WARMUP_%s\n", i + 1, i % 2 ? "END" : "BEGIN"));
  TH_OK(tq_buf_append_cstr(&b, "main_dispatch_0,0,-1,400,INIT_END\n"
                               "main_dispatch_0,0,2,401,PREFETCH\n"
                               "main_dispatch_0,0,2,402,PREFETCH\n"));
  tqh_diags_t d;
  tqh_diags_init(&d);
  tqh_profile_t p;
  TH_OK(tqh_profile_parse("p.csv", b.data, b.len, &d, &p));
  ck_assert_uint_eq(p.count, 2);
  ck_assert_uint_eq(p.unknown_rows, 302);
  ck_assert_uint_eq(d.count, 1);
  ck_assert_uint_eq(d.warnings, 1);
  ck_assert_uint_eq(d.errors, 0);
  ck_assert(has(&d, 3, "302 rows of event types this reader does not know ignored: WARMUP (300), "
                       "PREFETCH (2)"));
  tqh_profile_deinit(&p);
  tqh_diags_deinit(&d);
  tq_buf_deinit(&b);
}
END_TEST

START_TEST(profile_csv_reports_empty_files_and_bad_headers) {
  static const struct {
    const char *text;
    size_t events;
    const char *needle;
  } files[] = {
      {"", 0, "empty file"},
      {"\n\n", 0, "empty file"},
      {"dispatch_name,invocation_id,action_id,timestamp_ns,event\nm,0,-1,0,INIT_BEGIN\n", 1,
       "header 'dispatch_name,invocation_id,action_id,timestamp_ns,event'"},
      {"m,0,-1,0,INIT_BEGIN\nm,0,-1,1,INIT_END\n", 2, "no header"},
      {"dispatch_name,invocation_id,action_id\n", 0, "(3 columns)"},
  };
  for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
    tqh_diags_t d;
    tqh_diags_init(&d);
    tqh_profile_t p;
    TH_OK(tqh_profile_parse("p.csv", files[i].text, strlen(files[i].text), &d, &p));
    ck_assert_msg(has(&d, 1, files[i].needle), "file %zu: no '%s' at line 1 (%s)", i,
                  files[i].needle, d.count ? d.items[0].message : "no diagnostic");
    ck_assert_uint_eq(p.count, files[i].events);
    tqh_profile_deinit(&p);
    tqh_diags_deinit(&d);
  }
}
END_TEST

START_TEST(profile_csv_keeps_at_most_the_diagnostic_limit) {
  tq_buf_t b;
  tq_buf_init(&b, 0);
  TH_OK(tq_buf_append_cstr(&b, HDR));
  for (int i = 0; i < 5000; i++) TH_OK(tq_buf_append_cstr(&b, "garbage\n"));
  tqh_diags_t d;
  tqh_diags_init(&d);
  tqh_profile_t p;
  TH_OK(tqh_profile_parse("p.csv", b.data, b.len, &d, &p));
  ck_assert_uint_eq(d.errors, 5000);
  ck_assert_uint_eq(d.count, TQH_DIAGS_MAX_KEPT);
  ck_assert_uint_eq(d.dropped, 5000 - TQH_DIAGS_MAX_KEPT);
  ck_assert_uint_eq(d.items[TQH_DIAGS_MAX_KEPT - 1].line, TQH_DIAGS_MAX_KEPT + 1);
  tq_buf_t out;
  tq_buf_init(&out, 0);
  TH_OK(tqh_diags_format(&d, &out));
  ck_assert_ptr_nonnull(strstr(out.data, "p.csv:2: error: 1 columns"));
  ck_assert_ptr_nonnull(strstr(out.data, "... and 4000 more diagnostics"));
  tq_buf_deinit(&out);
  tqh_profile_deinit(&p);
  tqh_diags_deinit(&d);
  tq_buf_deinit(&b);
}
END_TEST


/* tqh_profile_read reads a file in chunks of 1 MiB: what it gives equals tqh_profile_parse of the
 * same bytes, events and diagnostics, whatever falls on a chunk's edge (a row, a CR LF, a bad
 * row, a whitespace prefix longer than a chunk, a byte order mark, a file of exactly one chunk,
 * a last line without LF). */
static void same_as_parse(const char *dir, const char *name, const char *data, size_t len) {
  char *path = th_path(dir, name);
  FILE *f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  ck_assert_uint_eq(fwrite(data, 1, len, f), len);
  fclose(f);
  tqh_diags_t d1, d2;
  tqh_diags_init(&d1);
  tqh_diags_init(&d2);
  tqh_profile_t a, b;
  TH_OK(tqh_profile_parse(path, data, len, &d1, &a));
  TH_OK(tqh_profile_read(path, &d2, &b));
  ck_assert_uint_eq(a.count, b.count);
  ck_assert_uint_eq(a.lines, b.lines);
  ck_assert_uint_eq(a.unknown_rows, b.unknown_rows);
  ck_assert_uint_eq(a.num_dispatches, b.num_dispatches);
  ck_assert(a.count == 0 || memcmp(a.events, b.events, a.count * sizeof(*a.events)) == 0);
  ck_assert_uint_eq(d1.count, d2.count);
  ck_assert_uint_eq(d1.errors, d2.errors);
  for (size_t i = 0; i < d1.count; i++) {
    ck_assert_uint_eq(d1.items[i].line, d2.items[i].line);
    ck_assert_str_eq(d1.items[i].message, d2.items[i].message);
  }
  tqh_profile_deinit(&a);
  tqh_profile_deinit(&b);
  tqh_diags_deinit(&d1);
  tqh_diags_deinit(&d2);
  free(path);
}

START_TEST(profile_csv_read_in_chunks_equals_parse) {
  char *dir = th_tmpdir();
  const size_t chunk = (size_t)1 << 20;
  tq_buf_t b;
  tq_buf_init(&b, 0);
  /* Rows of varying length across three chunks, CR LF line ends, a bad row now and then. */
  TH_OK(tq_buf_append_cstr(&b, "\xEF\xBB\xBF" TQH_PROFILE_HEADER "\r\n"));
  for (unsigned i = 0; b.len < 3 * chunk + 100; i++) {
    if (i % 9973 == 0)
      TH_OK(tq_buf_printf(&b, "main_dispatch_%u,x,%u,%u,ALLOC_BEGIN\r\n", i % 3, i, i));
    TH_OK(tq_buf_printf(&b, "main_dispatch_%u,%u,-1,%u,INIT_BEGIN\r\n", i % 3, i, i));
    TH_OK(tq_buf_printf(&b, "main_dispatch_%u,%u,-1,%u,INIT_END\r\n", i % 3, i, i));
  }
  same_as_parse(dir, "rows.csv", b.data, b.len);
  /* Cut right after a CR, right before an LF, and at exactly one chunk. */
  same_as_parse(dir, "one.csv", b.data, chunk);
  same_as_parse(dir, "cr.csv", b.data, chunk + 1);
  /* Without the last LF. */
  same_as_parse(dir, "nolf.csv", b.data, b.len - 1);
  /* Whitespace longer than a chunk, then rows; and whitespace only. */
  tq_buf_t w;
  tq_buf_init(&w, 0);
  for (size_t i = 0; i < chunk + 7; i++) TH_OK(tq_buf_putc(&w, i % 1000 == 999 ? '\n' : ' '));
  same_as_parse(dir, "blank.csv", w.data, w.len);
  TH_OK(tq_buf_append_cstr(&w, HDR "m,0,-1,0,INIT_BEGIN\nm,0,-1,1,INIT_END\n"));
  same_as_parse(dir, "prefix.csv", w.data, w.len);
  same_as_parse(dir, "empty.csv", "", 0);
  tq_buf_deinit(&w);
  tq_buf_deinit(&b);
  th_rmtree(dir);
}
END_TEST

Suite *profile_csv_suite(void) {
  Suite *s = suite_create("profile_csv");
  TCase *tc = tcase_create("profile_csv");
  tcase_add_test(tc, profile_csv_reads_every_event_kind);
  tcase_add_loop_test(tc, profile_csv_reports_bad_rows_with_their_line_and_keeps_the_rest, 0,
                      (int)(sizeof(bad_rows) / sizeof(bad_rows[0])));
  tcase_add_test(tc, profile_csv_counts_unknown_event_types_and_reports_them_once);
  tcase_add_test(tc, profile_csv_reports_empty_files_and_bad_headers);
  tcase_add_test(tc, profile_csv_keeps_at_most_the_diagnostic_limit);
  tcase_add_test(tc, profile_csv_read_in_chunks_equals_parse);
  suite_add_tcase(s, tc);
  return s;
}
