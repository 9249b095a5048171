/* Annotation of the hand-made fixture: every row's fields, the CSV text, and torq-annotate as a
 * process (exit codes, messages). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "annotate/annotate_internal.h"
#include "suites.h"
#include "torq/base/alloc.h"
#include "torq/harness/overview.h"
#include "torq/harness/perfetto.h"
#include "torq/harness/operators.h"
#include "torq/runtime/profile.h"
#include "tq_test.h"

typedef struct want_s {
  int action;
  const char *csv_row; /* everything but the location column */
} want_t;

static const want_t want[] = {
    {0, "0,0,NSS_START,,tosa.abs@L2,2,false,false,true,true,false,false,10,12"},
    {1, "1,1,NSS_START,add,tosa.add@L9 tosa.abs@L2,2,false,true,false,false,false,true,12,14"},
    {2, "2,0,NSS_WAIT,,tosa.abs@L2,26,false,false,true,true,false,false,14,40"},
    {3, "3,1,NSS_WAIT,add,tosa.add@L9 tosa.abs@L2,10,false,true,false,false,false,true,40,50"},
    {4, "4,,HOST_COPY,,tosa.abs@L2,10,false,false,false,false,false,false,50,60"},
    {5, "5,,HOST_START,tosa.cast,tosa.cast@L2,2,false,false,false,false,false,false,60,62"},
    {6, "6,,HOST_WAIT,tosa.cast,tosa.cast@L2,18,false,false,false,false,false,false,62,80"},
    {7, "7,2,NSS_START,conv2d,tosa.conv2d@L3,1,true,false,false,false,true,false,80,81"},
    {8, "8,2,NSS_WAIT,conv2d,tosa.conv2d@L3,9,true,false,false,false,true,false,81,90"},
    {9, "9,,ALLOC,,tosa.abs@L2,1,false,false,false,false,false,false,90,91"},
};

START_TEST(annotate_fixture_gives_one_row_per_action_with_program_fields) {
  char *dir = th_tmpdir();
  char *dbg = th_path(dir, "dbg");
  th_fixture_debug_info(dbg);
  tqh_annotation_t *ann = th_annotate_text(dir, dbg, TH_FIXTURE_PROFILE);
  char *diags = th_diags_text(ann);
  ck_assert_msg(ann->diags.count == 0, "unexpected diagnostics: %s", diags);
  free(diags);
  ck_assert_uint_eq(ann->num_rows, 10);
  ck_assert_str_eq(ann->model_name, "m");
  tq_buf_t csv;
  tq_buf_init(&csv, 0);
  TH_OK(tqh_annotation_format_csv(ann, &csv));
  const char *line = csv.data;
  ck_assert_int_eq(strncmp(line, TQH_ANNOTATED_CSV_HEADER "\n", strlen(TQH_ANNOTATED_CSV_HEADER) + 1), 0);
  line = strchr(line, '\n') + 1;
  for (size_t i = 0; i < 10; i++) {
    const char *nl = strchr(line, '\n');
    ck_assert_ptr_nonnull(nl);
    char row[512];
    snprintf(row, sizeof(row), "%.*s", (int)(nl - line), line);
    char expect[512];
    snprintf(expect, sizeof(expect), "%s,\"loc(\"\"m.mlir\"\":2:8)\"", want[i].csv_row);
    ck_assert_str_eq(row, expect);
    line = nl + 1;
  }
  ck_assert_int_eq(*line, 0);
  /* The programs' work units: START's BEGIN to WAIT's END; jobs 0 and 1 overlap. */
  ck_assert_uint_eq(ann->num_nss_runs, 3);
  ck_assert_uint_eq(ann->nss_runs[0].start_us, 10);
  ck_assert_uint_eq(ann->nss_runs[0].ready_us, 12);
  ck_assert_uint_eq(ann->nss_runs[0].end_us, 40);
  ck_assert_int_eq(ann->nss_runs[0].id, 0);
  ck_assert_uint_eq(ann->nss_runs[1].start_us, 12);
  ck_assert_uint_eq(ann->nss_runs[1].ready_us, 14);
  ck_assert_uint_eq(ann->nss_runs[1].end_us, 50);
  ck_assert_int_eq(ann->nss_runs[1].id, 1);
  ck_assert_str_eq(ann->nss_runs[1].name, "add");
  ck_assert_uint_eq(ann->nss_runs[2].start_us, 80);
  ck_assert_uint_eq(ann->num_host_runs, 1);
  ck_assert_uint_eq(ann->host_runs[0].start_us, 60);
  ck_assert_uint_eq(ann->host_runs[0].end_us, 80);
  ck_assert_str_eq(ann->host_runs[0].name, "tosa.cast");
  ck_assert_uint_eq(ann->num_hal_calls, 0);
  ck_assert_uint_eq(ann->num_phases, 2);
  ck_assert_uint_eq(ann->first_us, 0);
  ck_assert_uint_eq(ann->last_us, 100);
  tq_buf_deinit(&csv);
  tqh_annotation_destroy(ann);
  free(dbg);
  th_rmtree(dir);
}
END_TEST

START_TEST(annotate_repeated_invocations_give_rows_per_invocation) {
  char *dir = th_tmpdir();
  char *dbg = th_path(dir, "dbg");
  th_fixture_debug_info(dbg);
  /* The fixture twice, the second as invocation 1 shifted by 100 µs, without INIT. */
  tq_buf_t p;
  tq_buf_init(&p, 0);
  TH_OK(tq_buf_append_cstr(&p, TH_FIXTURE_PROFILE));
  const char *rows = strchr(TH_FIXTURE_PROFILE, '\n') + 1;
  for (const char *l = rows; *l;) {
    const char *nl = strchr(l, '\n');
    char d[64], ev[64];
    unsigned inv;
    int act;
    unsigned long long ts;
    ck_assert_int_eq(sscanf(l, "%63[^,],%u,%d,%llu,%63[^\n]", d, &inv, &act, &ts, ev), 5);
    if (strncmp(ev, "INIT", 4) != 0)
      TH_OK(tq_buf_printf(&p, "%s,1,%d,%llu,%s\n", d, act, ts + 100, ev));
    l = nl + 1;
  }
  tqh_annotation_t *ann = th_annotate_text(dir, dbg, p.data);
  ck_assert_uint_eq(ann->diags.count, 0);
  ck_assert_uint_eq(ann->num_rows, 20);
  ck_assert_uint_eq(ann->rows[10].invocation_id, 1);
  ck_assert_int_eq(ann->rows[10].action_id, 0);
  ck_assert_uint_eq(ann->rows[19].end_us, 191);
  ck_assert_uint_eq(ann->num_nss_runs, 6);
  ck_assert_uint_eq(ann->last_us, 200);
  tqh_annotation_destroy(ann);
  tq_buf_deinit(&p);
  free(dbg);
  th_rmtree(dir);
}
END_TEST

START_TEST(annotate_failed_run_keeps_the_failing_action_up_to_the_error) {
  char *dir = th_tmpdir();
  char *dbg = th_path(dir, "dbg");
  th_fixture_debug_info(dbg);
  const char *text = TQH_PROFILE_HEADER "\n"
                     "main_dispatch_0,0,-1,0,DISPATCH_BEGIN\n"
                     "main_dispatch_0,0,0,1,NSS_START_BEGIN\n"
                     "main_dispatch_0,0,0,2,NSS_START_END\n"
                     "main_dispatch_0,0,1,2,NSS_START_BEGIN\n"
                     "main_dispatch_0,0,1,7,ERROR\n";
  tqh_annotation_t *ann = th_annotate_text(dir, dbg, text);
  ck_assert(th_has_diag(ann, TQH_WARNING, 6, "the run failed in action 1"));
  ck_assert_uint_eq(ann->diags.errors, 0);
  ck_assert_uint_eq(ann->num_rows, 2);
  ck_assert_uint_eq(ann->rows[1].end_us, 7);
  ck_assert_uint_eq(ann->num_phases, 1);
  ck_assert_uint_eq(ann->phases[0].end_us, 7);
  tqh_annotation_destroy(ann);
  free(dbg);
  th_rmtree(dir);
}
END_TEST

/* Runs this build's torq-annotate with `args`; returns its exit status, stderr in `err`. */
static int run_tool(const char *dir, const char *args, char **err) {
  const char *tool = tq_test_own_tool("torq-annotate");
  char cmd[8192], *errf = th_path(dir, "stderr.txt");
  snprintf(cmd, sizeof(cmd), "cd '%s' && '%s' %s >stdout.txt 2>'%s'", dir, tool, args, errf);
  int rc = system(cmd);
  *err = th_read(errf, NULL);
  free(errf);
  return rc == -1 ? -1 : WEXITSTATUS(rc);
}

START_TEST(torq_annotate_exit_codes_and_messages) {
  char *dir = th_tmpdir();
  char *dbg = th_path(dir, "dbg");
  th_fixture_debug_info(dbg);
  char *p = th_path(dir, "p.csv");
  th_write(p, TH_FIXTURE_PROFILE);
  char *err;
  ck_assert_int_eq(run_tool(dir, "dbg p.csv a.csv a.xlsx a.pb --overview", &err), 0);
  ck_assert_str_eq(err, "");
  free(err);
  char *out = th_path(dir, "stdout.txt");
  char *text = th_read(out, NULL);
  ck_assert_ptr_nonnull(strstr(text, "  Model: m\n"));
  ck_assert_ptr_nonnull(strstr(text, "  Overlap                          38.000µs  (47.50%)\n"));
  free(text);
  /* A bad row: exit 1, the message names the line, the outputs are still written. */
  char *bad = strdup(TH_FIXTURE_PROFILE);
  char *row = strstr(bad, "main_dispatch_0,0,4,50,HOST_COPY_BEGIN");
  memcpy(row + 20, "5x", 2);
  th_write(p, bad);
  free(bad);
  ck_assert_int_eq(run_tool(dir, "dbg p.csv b.csv", &err), 1);
  ck_assert_msg(strstr(err, "p.csv:13: error: timestamp_us '5x'") != NULL, "stderr: %s", err);
  ck_assert_msg(strstr(err, "p.csv:14: error: HOST_COPY_END of action 4 without a BEGIN") != NULL,
                "stderr: %s", err);
  free(err);
  char *b = th_path(dir, "b.csv");
  size_t n = 0;
  text = th_read(b, NULL);
  for (const char *c = text; *c; c++) n += *c == '\n';
  ck_assert_uint_eq(n, 1 + 9);
  free(text);
  free(b);
  /* The debug info of another model: exit 1 and one message saying so, not one per row. */
  th_write(p, TQH_PROFILE_HEADER "\nmain_dispatch_0,0,-1,0,DISPATCH_BEGIN\n"
              "main_dispatch_0,0,40,1,ALLOC_BEGIN\nmain_dispatch_0,0,40,2,ALLOC_END\n"
              "main_dispatch_0,0,41,2,ALLOC_BEGIN\nmain_dispatch_0,0,41,3,ALLOC_END\n"
              "main_dispatch_0,0,42,3,ALLOC_BEGIN\nmain_dispatch_0,0,42,4,ALLOC_END\n"
              "main_dispatch_0,0,-1,5,DISPATCH_END\n");
  ck_assert_int_eq(run_tool(dir, "dbg p.csv d.csv", &err), 1);
  ck_assert_msg(strstr(err, "p.csv:3: error: wrong model: ") != NULL, "stderr: %s", err);
  size_t errors = 0;
  for (const char *c = err; (c = strstr(c, ": error: ")); c++) errors++;
  ck_assert_msg(errors == 1, "stderr: %s", err);
  free(err);
  /* Usage errors: exit 2. */
  ck_assert_int_eq(run_tool(dir, "dbg p.csv out.txt", &err), 2);
  ck_assert_ptr_nonnull(strstr(err, "extension must be .csv, .xlsx or .pb"));
  free(err);
  ck_assert_int_eq(run_tool(dir, "dbg", &err), 2);
  free(err);
  ck_assert_int_eq(run_tool(dir, "--bogus", &err), 2);
  free(err);
  ck_assert_int_eq(run_tool(dir, "--help", &err), 0);
  free(err);
  ck_assert_int_eq(run_tool(dir, "--version", &err), 0);
  free(err);
  /* A missing profile: exit 1, naming it. */
  ck_assert_int_eq(run_tool(dir, "dbg missing.csv c.csv", &err), 1);
  ck_assert_ptr_nonnull(strstr(err, "missing.csv"));
  free(err);
  free(out);
  free(p);
  free(dbg);
  th_rmtree(dir);
}
END_TEST

/* torq-annotate on a profile in the Torq runtime's shape: INIT and its parts, HAL scopes (one
 * with an action id), two dispatch runs, rows interleaved across invocations. Every action of
 * both runs is annotated, and nothing is reported: no row is unknown to the reader. */
START_TEST(torq_annotate_reads_the_torq_runtimes_shape_without_a_word) {
  char *dir = th_tmpdir();
  char *dbg = th_path(dir, "dbg");
  th_fixture_debug_info(dbg);
  char *p = th_path(dir, "p.csv");
  th_write(p, TH_FIXTURE_TORQ_PROFILE);
  char *err;
  ck_assert_int_eq(run_tool(dir, "dbg p.csv a.csv a.pb --overview", &err), 0);
  ck_assert_str_eq(err, "");
  free(err);
  char *out = th_path(dir, "stdout.txt");
  char *text = th_read(out, NULL);
  /* The numbers test_overview.c works out. */
  static const char *const lines[] = {
      "  OVERALL                         116.000µs\n",
      "  TOTAL NPU OPERATIONS             81.000µs  (69.83%)\n",
      "  Dma Total                        32.000µs  (27.59%)\n",
      "  Overlap                          30.000µs  (25.86%)\n",
      "  Idle                             38.000µs  (32.76%)\n",
      "  Hal                              16.000µs  (13.79%)\n",
      "  Host Copy                         4.000µs  (3.45%)\n",
  };
  for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
    ck_assert_msg(strstr(text, lines[i]) != NULL, "no '%s' in:\n%s", lines[i], text);
  free(text);
  char *csv = th_path(dir, "a.csv");
  text = th_read(csv, NULL);
  size_t n = 0;
  for (const char *c = text; *c; c++) n += *c == '\n';
  ck_assert_uint_eq(n, 1 + 20); /* both runs' ten actions */
  ck_assert_ptr_nonnull(strstr(text, "\n8,2,NSS_WAIT,conv2d,tosa.conv2d@L3,5,true,false,false,false,"
                                     "true,false,131,136,"));
  free(text);
  /* The HAL calls are on their own track of the trace. */
  char *pb = th_path(dir, "a.pb");
  tqh_trace_t t;
  TH_OK(tqh_trace_read(pb, &t));
  const tqh_trace_track_t *hal = tqh_trace_find(&t, "HAL", tqh_trace_find(&t, "Host", 0)->uuid);
  ck_assert_ptr_nonnull(hal);
  size_t hal_slices = 0;
  for (size_t i = 0; i < t.num_slices; i++) hal_slices += t.slices[i].track_uuid == hal->uuid;
  ck_assert_uint_eq(hal_slices, 5);
  tqh_trace_deinit(&t);
  free(pb);
  free(csv);
  free(out);
  free(p);
  free(dbg);
  th_rmtree(dir);
}
END_TEST

/* Several dispatches: runs of main_dispatch_0 and main_dispatch_1 alternate, each annotated with
 * its own program, their work units combined. */
START_TEST(annotate_several_dispatches_each_with_its_debug_info) {
  char *dir = th_tmpdir();
  char *dbg = th_path(dir, "dbg");
  th_fixture_debug_info_dispatches(dbg, 2);
  /* The Torq-shape fixture, its second run as main_dispatch_1. */
  char *p = strdup(TH_FIXTURE_TORQ_PROFILE);
  for (char *l = strstr(p, "main_dispatch_0,4,"); l; l = strstr(l + 1, "main_dispatch_0,4,"))
    l[strlen("main_dispatch_")] = '1';
  tqh_annotation_t *ann = th_annotate_text(dir, dbg, p);
  char *diags = th_diags_text(ann);
  ck_assert_msg(ann->diags.count == 0, "unexpected diagnostics: %s", diags);
  free(diags);
  ck_assert_uint_eq(ann->num_dispatches, 4); /* two dispatches, two HAL scopes */
  ck_assert_uint_eq(ann->num_rows, 20);
  ck_assert_uint_eq(ann->num_nss_runs, 6);
  ck_assert_str_eq(ann->dispatch_names[ann->nss_runs[5].dispatch], "main_dispatch_1");
  ck_assert_str_eq(ann->rows[19].original_operators, "tosa.abs@L2");
  tqh_overview_t ov;
  tqh_overview_init(&ov);
  TH_OK(tqh_overview_compute(ann, &ov));
  uint64_t ns;
  ck_assert(tqh_overview_get(&ov, "Overlap", &ns));
  ck_assert_uint_eq(ns, 30000);
  tqh_overview_deinit(&ov);
  tqh_annotation_destroy(ann);
  free(p);
  free(dbg);
  th_rmtree(dir);
}
END_TEST

typedef struct seen_units_s {
  tqh_work_unit_t units[64];
  size_t count, stop_at; /* stop_at: the call that fails (0: none) */
} seen_units_t;

static tq_status_t see_unit(void *ctx, const tqh_work_unit_t *u) {
  seen_units_t *seen = ctx;
  ck_assert_uint_lt(seen->count, 64);
  seen->units[seen->count++] = *u;
  if (seen->count == seen->stop_at) return TQ_STATUS(TQ_FAILED_PRECONDITION, "stop here");
  return NULL;
}

/* The overview reads the work units without an array of them: the same units in the same order
 * as tqh_annotation_work_units, and the visit stops at the first error. */
START_TEST(annotate_work_units_visited_are_those_of_the_array) {
  char *dir = th_tmpdir();
  char *dbg = th_path(dir, "dbg");
  th_fixture_debug_info(dbg);
  tqh_annotation_t *ann = th_annotate_text(dir, dbg, TH_FIXTURE_PROFILE);
  tqh_work_unit_t *units;
  size_t n;
  TH_OK(tqh_annotation_work_units(ann, &units, &n));
  ck_assert_uint_ge(n, 3);
  seen_units_t seen = {.count = 0, .stop_at = 0};
  TH_OK(tqh_annotation_each_work_unit(ann, see_unit, &seen));
  ck_assert_uint_eq(seen.count, n);
  for (size_t i = 0; i < n; i++) {
    ck_assert_int_eq(seen.units[i].kind, units[i].kind);
    ck_assert_uint_eq(seen.units[i].units, units[i].units);
    ck_assert_uint_eq(seen.units[i].start_ns, units[i].start_ns);
    ck_assert_uint_eq(seen.units[i].end_ns, units[i].end_ns);
  }
  seen = (seen_units_t){.count = 0, .stop_at = 2};
  tq_status_t st = tqh_annotation_each_work_unit(ann, see_unit, &seen);
  ck_assert_int_eq(tq_status_code(st), TQ_FAILED_PRECONDITION);
  tq_status_free(st);
  ck_assert_uint_eq(seen.count, 2);
  tq_free(units);
  tqh_annotation_destroy(ann);
  free(dbg);
  th_rmtree(dir);
}
END_TEST

/* The time by operator (operators.h) of the fixture's annotated CSV, as the report shows it. */
START_TEST(operator_table_sums_the_annotated_csv_per_source_operator) {
  char *dir = th_tmpdir();
  char *dbg = th_path(dir, "dbg");
  th_fixture_debug_info(dbg);
  tqh_annotation_t *ann = th_annotate_text(dir, dbg, TH_FIXTURE_PROFILE);
  tq_buf_t csv;
  tq_buf_init(&csv, 0);
  TH_OK(tqh_annotation_format_csv(ann, &csv));
  tqh_op_table_t t;
  tqh_op_table_init(&t);
  TH_OK(tqh_op_table_parse(&t, "a.csv", csv.data, csv.len, NULL));
  tqh_op_table_sort(&t);
  static const struct {
    const char *name;
    double us;
    size_t count;
  } rows[] = {{"tosa.abs", 28, 1},   {"tosa.cast", 20, 1},   {"tosa.add+tosa.abs", 12, 1},
              {"HOST_COPY", 10, 1},  {"tosa.conv2d", 10, 1}, {"ALLOC", 1, 1}};
  ck_assert_uint_eq(t.count, 6);
  for (size_t i = 0; i < 6; i++) {
    ck_assert_str_eq(t.ops[i].name, rows[i].name);
    ck_assert_double_eq(t.ops[i].us, rows[i].us);
    ck_assert_uint_eq(t.ops[i].count, rows[i].count);
  }
  ck_assert_double_eq(t.total_us, 81);
  /* A second table adds up (the report's table over the run). */
  TH_OK(tqh_op_table_parse(&t, "a.csv", csv.data, csv.len, NULL));
  ck_assert_uint_eq(t.count, 6);
  ck_assert_double_eq(t.total_us, 162);
  tqh_op_table_deinit(&t);
  /* Bad rows are warnings and skipped; a file that is not an annotated CSV is an error. */
  const char *bad = "total_time,operation,x,original_operators\n"
                    "5,NSS_START,\"a,\"\"b\"\"\",tosa.mul@L3\n"
                    "5,NSS_WAIT\n"
                    "x,ALLOC,,\n"
                    "\n"
                    "7,NSS_WAIT,,tosa.mul@L3\n";
  tqh_diags_t diags;
  tqh_diags_init(&diags);
  tqh_op_table_init(&t);
  TH_OK(tqh_op_table_parse(&t, "bad.csv", bad, strlen(bad), &diags));
  ck_assert_uint_eq(t.count, 1);
  ck_assert_str_eq(t.ops[0].name, "tosa.mul");
  ck_assert_double_eq(t.ops[0].us, 12);
  ck_assert_uint_eq(t.ops[0].count, 1);
  ck_assert_uint_eq(diags.warnings, 2);
  ck_assert_uint_eq(diags.items[0].line, 3);
  ck_assert_uint_eq(diags.items[1].line, 4);
  tqh_diags_deinit(&diags);
  tq_status_t st = tqh_op_table_parse(&t, "p.csv", TH_FIXTURE_PROFILE, strlen(TH_FIXTURE_PROFILE),
                                      NULL);
  ck_assert_int_eq(tq_status_code(st), TQ_INVALID_INPUT);
  tq_status_free(st);
  st = tqh_op_table_read(&t, "/nonexistent/annotated.csv", NULL);
  ck_assert_ptr_nonnull(st);
  ck_assert_ptr_nonnull(strstr(tq_status_message(st), "/nonexistent/annotated.csv"));
  tq_status_free(st);
  tqh_op_table_deinit(&t);
  tq_buf_deinit(&csv);
  tqh_annotation_destroy(ann);
  free(dbg);
  th_rmtree(dir);
}
END_TEST

/* --max-detail-invocations: a count or all; a note says what the trace left out. */
/* The workbook's sheet, read back by Python's zipfile (which checks every CRC-32): texts escaped
 * as Excel reads them, integers exactly, empty fields left out, one deflated part per file. */
static const char xlsx_read_py[] =
    "import sys, zipfile\n"
    "z = zipfile.ZipFile(sys.argv[1])\n"
    "assert z.testzip() is None\n"
    "names = sorted(z.namelist())\n"
    "assert all(i.compress_type == zipfile.ZIP_DEFLATED for i in z.infolist()), names\n"
    "print(' '.join(names))\n"
    "sys.stdout.write(z.read('xl/worksheets/sheet1.xml').decode())\n";

START_TEST(xlsx_escapes_texts_and_writes_numbers_as_excel_reads_them) {
  const char *python = tq_test_python_module("zipfile", "python3");
  if (!python) return;
  char *dir = th_tmpdir();
  tqh_row_t rows[2];
  memset(rows, 0, sizeof(rows));
  rows[0] = (tqh_row_t){.action_id = 7, .job_id = -1, .kind = TQR_EVENT_HOST_COPY,
                        .invocation_names = "", .original_operators = " a&b<c>\"d\"\x01",
                        .location = "", .start_us = 123456789012345ull,
                        .end_us = 123456789012346ull};
  rows[1] = (tqh_row_t){.action_id = 8, .job_id = 3, .kind = TQR_EVENT_NSS_WAIT,
                        .units = TQH_UNIT_BIT(TQS_UNIT_SLICE1), .invocation_names = "k\tk",
                        .original_operators = "x\n", .location = "loc(\"\xc3\xa9.mlir\":1:2)",
                        .start_us = 10000000000000000ull, .end_us = 10000000000000001ull};
  tqh_annotation_t ann;
  memset(&ann, 0, sizeof(ann));
  ann.rows = rows;
  ann.num_rows = 2;
  char *xlsx = th_path(dir, "a.xlsx"), *py = th_path(dir, "read.py"), *out = th_path(dir, "out");
  TH_OK(tqh_annotation_write_xlsx(&ann, xlsx));
  th_write(py, xlsx_read_py);
  char cmd[2048];
  snprintf(cmd, sizeof(cmd), "'%s' '%s' '%s' > '%s'", python, py, xlsx, out);
  ck_assert_int_eq(system(cmd), 0);
  char *text = th_read(out, NULL);
  ck_assert_ptr_nonnull(strstr(text, "[Content_Types].xml _rels/.rels docProps/app.xml "
                                     "docProps/core.xml xl/_rels/workbook.xml.rels "
                                     "xl/styles.xml xl/workbook.xml xl/worksheets/sheet1.xml\n"));
  ck_assert_ptr_nonnull(strstr(text, "<dimension ref=\"A1:O3\"/>"));
  ck_assert_ptr_nonnull(strstr(
      text, "<row r=\"2\"><c r=\"A2\"><v>7</v></c><c r=\"C2\" t=\"inlineStr\"><is><t>HOST_COPY"
            "</t></is></c><c r=\"E2\" t=\"inlineStr\"><is><t xml:space=\"preserve\"> a&amp;b&lt;"
            "c&gt;\"d\"_x0001_</t></is></c><c r=\"F2\"><v>1</v></c><c r=\"G2\" t=\"b\"><v>0</v>"
            "</c>"));
  ck_assert_ptr_nonnull(strstr(text, "<c r=\"M2\"><v>123456789012345</v></c><c r=\"N2\"><v>"
                                     "123456789012346</v></c></row>"));
  ck_assert_ptr_nonnull(strstr(text, "<c r=\"B3\"><v>3</v></c>"));
  ck_assert_ptr_nonnull(strstr(text, "<c r=\"D3\" t=\"inlineStr\"><is><t>k\tk</t></is></c>"));
  ck_assert_ptr_nonnull(strstr(text, "<is><t xml:space=\"preserve\">x\n</t></is>"));
  ck_assert_ptr_nonnull(strstr(text, "<c r=\"H3\" t=\"b\"><v>1</v></c>"));
  ck_assert_ptr_nonnull(strstr(text, "<c r=\"M3\"><v>1E+16</v></c>"));
  ck_assert_ptr_nonnull(strstr(text, "<is><t>loc(\"\xc3\xa9.mlir\":1:2)</t></is></c></row>"
                                     "</sheetData><autoFilter ref=\"A1:O3\"/>"));
  /* Widths: "loc("é.mlir":1:2)" is 17 characters (18 bytes), + 2 -> 19 -> stored 19.7109375;
   * the header "Location" + filter button is narrower. */
  ck_assert_ptr_nonnull(strstr(text, "<col min=\"15\" max=\"15\" width=\"19.7109375\" "
                                     "customWidth=\"1\"/>"));
  /* A text Excel cannot hold is an error naming the cell; no workbook is left behind. */
  char *big = calloc(40000, 1);
  memset(big, 'a', 32768);
  rows[1].location = big;
  char *bad = th_path(dir, "b.xlsx");
  tq_status_t st = tqh_annotation_write_xlsx(&ann, bad);
  ck_assert_ptr_nonnull(st);
  ck_assert_ptr_nonnull(strstr(tq_status_message(st), "cell O3: 32768 bytes"));
  tq_status_free(st);
  ck_assert_int_ne(access(bad, F_OK), 0);
  free(big);
  free(bad);
  free(text);
  free(xlsx);
  free(py);
  free(out);
  th_rmtree(dir);
}
END_TEST

/* A workbook written again in the same process takes its parts from the memo of deflated
 * parts: byte for byte the first one (both written within one second, whose time core.xml
 * holds), and one with another row its own sheet, every CRC-32 right. */
START_TEST(xlsx_written_again_is_the_same_file_and_another_one_its_own) {
  const char *python = tq_test_python_module("zipfile", "python3");
  if (!python) return;
  char *dir = th_tmpdir();
  tqh_row_t row = {.action_id = 7, .job_id = 2, .kind = TQR_EVENT_NSS_WAIT,
                   .invocation_names = "inv", .original_operators = "tosa.add@L3",
                   .location = "loc", .start_us = 10, .end_us = 25};
  tqh_annotation_t ann;
  memset(&ann, 0, sizeof(ann));
  ann.rows = &row;
  ann.num_rows = 1;
  char *a = th_path(dir, "a.xlsx"), *b = th_path(dir, "b.xlsx"), *c = th_path(dir, "c.xlsx");
  int same_second = 0;
  uint64_t served = 0;
  for (int attempt = 0; attempt < 5 && !same_second; attempt++) {
    time_t t0 = time(NULL);
    TH_OK(tqh_annotation_write_xlsx(&ann, a));
    uint64_t before = tqh__xlsx_memo_served();
    TH_OK(tqh_annotation_write_xlsx(&ann, b));
    served = tqh__xlsx_memo_served() - before;
    same_second = time(NULL) == t0;
  }
  ck_assert(same_second);
  /* All 8 parts: the second workbook's text is the first one's. */
  ck_assert_uint_eq(served, 8);
  size_t na = 0, nb = 0;
  char *da = th_read(a, &na), *db = th_read(b, &nb);
  ck_assert_uint_eq(na, nb);
  ck_assert(memcmp(da, db, na) == 0);
  row.original_operators = "tosa.mul@L9";
  TH_OK(tqh_annotation_write_xlsx(&ann, c));
  char *py = th_path(dir, "read.py"), *out = th_path(dir, "out");
  th_write(py, xlsx_read_py);
  char cmd[2048];
  snprintf(cmd, sizeof(cmd), "'%s' '%s' '%s' > '%s'", python, py, c, out);
  ck_assert_int_eq(system(cmd), 0);
  char *text = th_read(out, NULL);
  ck_assert_ptr_nonnull(strstr(text, "<t>tosa.mul@L9</t>"));
  ck_assert_ptr_null(strstr(text, "tosa.add"));
  free(text);
  snprintf(cmd, sizeof(cmd), "'%s' '%s' '%s' > '%s'", python, py, b, out);
  ck_assert_int_eq(system(cmd), 0);
  text = th_read(out, NULL);
  ck_assert_ptr_nonnull(strstr(text, "<t>tosa.add@L3</t>"));
  free(text);
  free(da);
  free(db);
  free(py);
  free(out);
  free(a);
  free(b);
  free(c);
  th_rmtree(dir);
}
END_TEST

START_TEST(torq_annotate_max_detail_invocations) {
  char *dir = th_tmpdir();
  char *dbg = th_path(dir, "dbg");
  th_fixture_debug_info(dbg);
  char *p = th_path(dir, "p.csv");
  /* The fixture's dispatch run again as invocation 1, 100 µs later. */
  const char *run = strstr(TH_FIXTURE_PROFILE, "main_dispatch_0,0,-1,10,DISPATCH_BEGIN");
  tq_buf_t b;
  tq_buf_init(&b, 0);
  TH_OK(tq_buf_append_cstr(&b, TH_FIXTURE_PROFILE));
  for (const char *c = run; *c;) {
    const char *nl = strchr(c, '\n');
    int action;
    unsigned ts;
    char ev[64];
    ck_assert_int_eq(sscanf(c, "main_dispatch_0,0,%d,%u,%63[A-Z_]", &action, &ts, ev), 3);
    TH_OK(tq_buf_printf(&b, "main_dispatch_0,1,%d,%u,%s\n", action, ts + 100, ev));
    c = nl + 1;
  }
  th_write(p, b.data);
  tq_buf_deinit(&b);
  char *err;
  ck_assert_int_eq(run_tool(dir, "dbg p.csv a.pb --max-detail-invocations=1", &err), 0);
  ck_assert_msg(strstr(err, "torq-annotate: note: a.pb: the compiler's per-task estimates are "
                            "drawn for the NSS programs of the first 1 invocations; 3 later "
                            "program runs are drawn without them") != NULL,
                "stderr: %s", err);
  free(err);
  ck_assert_int_eq(run_tool(dir, "dbg p.csv a.pb --max-detail-invocations all", &err), 0);
  ck_assert_str_eq(err, "");
  free(err);
  ck_assert_int_eq(run_tool(dir, "dbg p.csv a.pb", &err), 0);
  ck_assert_str_eq(err, "");
  free(err);
  ck_assert_int_eq(run_tool(dir, "dbg p.csv a.pb --max-detail-invocations=-1", &err), 2);
  ck_assert_ptr_nonnull(strstr(err, "--max-detail-invocations: '-1' is not a count (or all)"));
  free(err);
  ck_assert_int_eq(run_tool(dir, "dbg p.csv a.pb --max-detail-invocations=", &err), 2);
  free(err);
  free(p);
  free(dbg);
  th_rmtree(dir);
}
END_TEST

Suite *annotate_suite(void) {
  Suite *s = suite_create("annotate");
  TCase *tc = tcase_create("annotate");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, annotate_fixture_gives_one_row_per_action_with_program_fields);
  tcase_add_test(tc, annotate_repeated_invocations_give_rows_per_invocation);
  tcase_add_test(tc, annotate_failed_run_keeps_the_failing_action_up_to_the_error);
  tcase_add_test(tc, torq_annotate_exit_codes_and_messages);
  tcase_add_test(tc, torq_annotate_max_detail_invocations);
  tcase_add_test(tc, torq_annotate_reads_the_torq_runtimes_shape_without_a_word);
  tcase_add_test(tc, annotate_several_dispatches_each_with_its_debug_info);
  tcase_add_test(tc, annotate_work_units_visited_are_those_of_the_array);
  tcase_add_test(tc, operator_table_sums_the_annotated_csv_per_source_operator);
  tcase_add_test(tc, xlsx_escapes_texts_and_writes_numbers_as_excel_reads_them);
  tcase_add_test(tc, xlsx_written_again_is_the_same_file_and_another_one_its_own);
  suite_add_tcase(s, tc);
  return s;
}
