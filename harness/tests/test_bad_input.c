/* Bad inputs of annotation, each reported with its line number while the rest is annotated:
 * missing or extra columns, non-numeric fields, END without BEGIN, BEGIN without END, timestamps
 * going backwards, stale debug info, an empty file, debug info missing or of another model; a
 * HAL scope needs no debug info. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suites.h"

#define H TQH_PROFILE_HEADER "\n"
#define D "main_dispatch_0,0,"
#define BEGIN_DISPATCH D "-1,0,DISPATCH_BEGIN\n"
#define END_DISPATCH D "-1,6,DISPATCH_END\n"

typedef struct bad_case_s {
  const char *name;
  const char *profile;
  unsigned line;
  const char *needle;
  size_t rows; /* rows still annotated */
} bad_case_t;

/* The good file: ALLOC (action 9) at lines 3-4 and HOST_COPY (action 4) at lines 5-6. */
static const bad_case_t cases[] = {
    {"good", H BEGIN_DISPATCH D "9,1,ALLOC_BEGIN\n" D "9,2,ALLOC_END\n" D "4,2,HOST_COPY_BEGIN\n"
     D "4,5,HOST_COPY_END\n" END_DISPATCH, 0, NULL, 2},
    {"missing column", H BEGIN_DISPATCH D "9,1,ALLOC_BEGIN\n" D "9,2,ALLOC_END\n" D "4,2\n"
     D "4,5,HOST_COPY_END\n" END_DISPATCH, 5, "4 columns, expected 5", 1},
    {"extra column", H BEGIN_DISPATCH D "9,1,ALLOC_BEGIN,x\n" D "9,2,ALLOC_END\n"
     D "4,2,HOST_COPY_BEGIN\n" D "4,5,HOST_COPY_END\n" END_DISPATCH, 3, "6 columns, expected 5", 1},
    {"non-numeric timestamp", H BEGIN_DISPATCH D "9,1,ALLOC_BEGIN\n" D "9,2us,ALLOC_END\n"
     D "4,2,HOST_COPY_BEGIN\n" D "4,5,HOST_COPY_END\n" END_DISPATCH, 4, "timestamp_us '2us'", 1},
    {"non-numeric action id", H BEGIN_DISPATCH D "nine,1,ALLOC_BEGIN\n" D "9,2,ALLOC_END\n"
     D "4,2,HOST_COPY_BEGIN\n" D "4,5,HOST_COPY_END\n" END_DISPATCH, 3, "action_id 'nine'", 1},
    {"non-numeric invocation", H BEGIN_DISPATCH D "9,1,ALLOC_BEGIN\n" D "9,2,ALLOC_END\n"
     "main_dispatch_0,zero,4,2,HOST_COPY_BEGIN\n" D "4,5,HOST_COPY_END\n" END_DISPATCH, 5,
     "invocation_id 'zero'", 1},
    {"END without BEGIN", H BEGIN_DISPATCH D "9,2,ALLOC_END\n" D "4,2,HOST_COPY_BEGIN\n"
     D "4,5,HOST_COPY_END\n" END_DISPATCH, 3, "ALLOC_END of action 9 without a BEGIN", 1},
    {"BEGIN without END", H BEGIN_DISPATCH D "9,1,ALLOC_BEGIN\n" D "4,2,HOST_COPY_BEGIN\n"
     D "4,5,HOST_COPY_END\n" END_DISPATCH, 3, "ALLOC_BEGIN of action 9 has no ALLOC_END", 1},
    {"BEGIN without END at the end of the file", H BEGIN_DISPATCH D "9,1,ALLOC_BEGIN\n", 3,
     "has no ALLOC_END (the profile ends first)", 0},
    {"phase without END", H BEGIN_DISPATCH D "9,1,ALLOC_BEGIN\n" D "9,2,ALLOC_END\n", 2,
     "DISPATCH_BEGIN has no DISPATCH_END", 1},
    {"BEGIN twice", H BEGIN_DISPATCH D "9,1,ALLOC_BEGIN\n" D "9,1,ALLOC_BEGIN\n"
     D "9,2,ALLOC_END\n" END_DISPATCH, 3, "has no END before it begins again at line 4", 1},
    {"END of another kind", H BEGIN_DISPATCH D "9,1,ALLOC_BEGIN\n" D "9,2,DEALLOC_END\n"
     D "4,2,HOST_COPY_BEGIN\n" D "4,5,HOST_COPY_END\n" END_DISPATCH, 4,
     "but the action began as ALLOC_BEGIN at line 3", 1},
    {"timestamps going backwards", H BEGIN_DISPATCH D "9,1,ALLOC_BEGIN\n" D "9,3,ALLOC_END\n"
     D "4,2,HOST_COPY_BEGIN\n" D "4,5,HOST_COPY_END\n" END_DISPATCH, 5,
     "timestamp 2 us goes backwards (line 4 has 3 us)", 2},
    {"END before its BEGIN", H BEGIN_DISPATCH D "9,3,ALLOC_BEGIN\n" D "9,1,ALLOC_END\n"
     D "4,3,HOST_COPY_BEGIN\n" D "4,5,HOST_COPY_END\n" END_DISPATCH, 4,
     "ALLOC_END at 1 us is before its BEGIN at 3 us", 1},
    {"unknown action id (stale debug info)", H BEGIN_DISPATCH D "42,1,ALLOC_BEGIN\n"
     D "42,2,ALLOC_END\n" D "4,2,HOST_COPY_BEGIN\n" D "4,5,HOST_COPY_END\n" END_DISPATCH, 3,
     "action_id 42 is not in the debug info (dispatch main_dispatch_0 has 10 actions)", 2},
    {"action of another kind (stale debug info)", H BEGIN_DISPATCH D "9,1,HOST_COPY_BEGIN\n"
     D "9,2,HOST_COPY_END\n" D "4,2,HOST_COPY_BEGIN\n" D "4,5,HOST_COPY_END\n" END_DISPATCH, 3,
     "action 9 is ALLOC in the debug info, but the profile has HOST_COPY", 2},
    {"dispatch of another model", H "other_dispatch_0,0,-1,0,DISPATCH_BEGIN\n"
     "other_dispatch_0,0,9,1,ALLOC_BEGIN\nother_dispatch_0,0,9,2,ALLOC_END\n", 2,
     "dispatch 'other_dispatch_0' is not in the debug info", 1},
    {"HAL scope of any name, no debug info needed", H BEGIN_DISPATCH D "9,1,ALLOC_BEGIN\n"
     D "9,2,ALLOC_END\n" END_DISPATCH "__HAL_QUEUE_FLUSH__,1,-1,7,HAL_CALL_BEGIN\n"
     "__HAL_QUEUE_FLUSH__,1,3,7,HAL_QUEUE_SIGNAL_BEGIN\n__HAL_QUEUE_FLUSH__,1,3,8,HAL_QUEUE_SIGNAL_END\n"
     "__HAL_QUEUE_FLUSH__,1,-1,9,HAL_CALL_END\n", 0, NULL, 1},
    {"BEGIN left open when its invocation ends", H BEGIN_DISPATCH D "9,1,ALLOC_BEGIN\n"
     "main_dispatch_0,1,4,2,HOST_COPY_BEGIN\nmain_dispatch_0,1,4,5,HOST_COPY_END\n" END_DISPATCH,
     3, "(its invocation ended)", 1},
    {"empty file", "", 1, "empty file", 0},
    {"malformed event", H BEGIN_DISPATCH D "9,1,Alloc_Begin\n" D "9,2,ALLOC_END\n" END_DISPATCH, 3,
     "unknown event 'Alloc_Begin'", 0},
    /* An event type of a newer runtime: ignored, reported once (a warning, test_profile_csv.c);
     * what it leaves unpaired is reported where it shows. */
    {"unknown event type", H BEGIN_DISPATCH D "9,1,ALLOC_BEGUN\n" D "9,2,ALLOC_END\n" END_DISPATCH,
     4, "ALLOC_END of action 9 without a BEGIN", 0},
};

START_TEST(bad_profile_is_reported_at_its_line_and_the_rest_annotated) {
  const bad_case_t *c = &cases[_i];
  char *dir = th_tmpdir();
  char *dbg = th_path(dir, "dbg");
  th_fixture_debug_info(dbg);
  tqh_annotation_t *ann = th_annotate_text(dir, dbg, c->profile);
  char *all = th_diags_text(ann);
  if (c->needle) {
    ck_assert_msg(th_has_diag(ann, TQH_ERROR, c->line, c->needle),
                  "%s: no error at line %u containing '%s'; got:\n%s", c->name, c->line, c->needle,
                  all);
    /* The tool's message carries the file and the line. */
    char located[64];
    snprintf(located, sizeof(located), "p.csv:%u: error: ", c->line);
    ck_assert_msg(strstr(all, located) != NULL, "%s: no '%s' in:\n%s", c->name, located, all);
  } else {
    ck_assert_msg(ann->diags.count == 0, "%s: unexpected diagnostics:\n%s", c->name, all);
  }
  ck_assert_msg(ann->num_rows == c->rows, "%s: %zu rows, expected %zu", c->name, ann->num_rows,
                c->rows);
  /* Every output is still written. */
  static const char *const outs[] = {"o.csv", "o.xlsx", "o.pb"};
  for (int k = 0; k < 3; k++) {
    char *o = th_path(dir, outs[k]);
    TH_OK(tqh_annotation_write(ann, o));
    free(o);
  }
  free(all);
  tqh_annotation_destroy(ann);
  free(dbg);
  th_rmtree(dir);
}
END_TEST

static tqh_annotation_t *annotate_with(const char *dir, const char *dbg, const char *sha) {
  char *p = th_path(dir, "p.csv");
  th_write(p, TH_FIXTURE_PROFILE);
  tqh_annotate_options_t o;
  tqh_annotate_options_initialize(&o);
  o.expected_source_sha256 = sha;
  tqh_annotation_t *ann = NULL;
  TH_OK(tqh_annotate(dbg, p, &o, &ann));
  free(p);
  return ann;
}

/* Debug info of another model: one "wrong model" error, not one per row. */
START_TEST(debug_info_of_another_model_is_one_error_not_one_per_row) {
  char *dir = th_tmpdir();
  char *dbg = th_path(dir, "dbg");
  th_fixture_debug_info(dbg);
  tqh_annotation_t *ann = th_annotate_text(
      dir, dbg,
      H BEGIN_DISPATCH D "42,1,ALLOC_BEGIN\n" D "42,2,ALLOC_END\n" D "9,2,HOST_COPY_BEGIN\n"
      D "9,3,HOST_COPY_END\n" D "43,3,ALLOC_BEGIN\n" D "43,4,ALLOC_END\n"
      D "4,4,HOST_COPY_BEGIN\n" D "4,5,HOST_COPY_END\n" END_DISPATCH);
  char *all = th_diags_text(ann);
  ck_assert_msg(ann->diags.errors == 1, "%s", all);
  ck_assert_msg(th_has_diag(ann, TQH_ERROR, 3, "wrong model: the debug info ") &&
                    strstr(all, "(3 of the profile's 4 actions differ; the first: action_id 42 "
                                "is not in the debug info"),
                "%s", all);
  ck_assert_uint_eq(ann->num_rows, 4); /* the rows are still written */
  free(all);
  tqh_annotation_destroy(ann);
  free(dbg);
  th_rmtree(dir);
}
END_TEST

START_TEST(debug_info_missing_still_gives_the_measured_rows) {
  char *dir = th_tmpdir();
  char *dbg = th_path(dir, "no-such-dir");
  tqh_annotation_t *ann = annotate_with(dir, dbg, NULL);
  char *all = th_diags_text(ann);
  ck_assert_msg(th_has_diag(ann, TQH_ERROR, 0, "no manifest.json there"), "%s", all);
  ck_assert_ptr_null(ann->debug_info);
  ck_assert_uint_eq(ann->num_rows, 10);
  ck_assert_int_eq(ann->rows[0].job_id, -1);
  ck_assert_str_eq(ann->rows[0].location, "");
  ck_assert_str_eq(ann->model_name, "no-such-dir");
  free(all);
  tqh_annotation_destroy(ann);
  free(dbg);
  th_rmtree(dir);
}
END_TEST

START_TEST(debug_info_of_another_model_is_reported) {
  char *dir = th_tmpdir();
  char *dbg = th_path(dir, "dbg");
  th_fixture_debug_info(dbg);
  tqh_annotation_t *ann = annotate_with(
      dir, dbg, "0000000000000000000000000000000000000000000000000000000000000000");
  ck_assert(th_has_diag(ann, TQH_ERROR, 0, "the debug info is of another model"));
  tqh_annotation_destroy(ann);
  /* A source copy changed after the compile. */
  char *src = th_path(dbg, "source/m.mlir");
  th_write(src, "func.func @main() { return }\n");
  ann = annotate_with(dir, dbg, NULL);
  ck_assert(th_has_diag(ann, TQH_ERROR, 0, "differs from the manifest's"));
  ck_assert_uint_eq(ann->num_rows, 10);
  tqh_annotation_destroy(ann);
  free(src);
  free(dbg);
  th_rmtree(dir);
}
END_TEST

START_TEST(debug_info_malformed_is_reported_with_its_location) {
  static const struct {
    const char *file, *text, *needle;
  } cases_[] = {
      {"manifest.json", "{\"format\": 1,,}", "manifest.json:1:14: error: expected a string key"},
      {"manifest.json", "{\"format\": 2}", "\"format\" is not 1"},
      {"manifest.json", "[]", "not a JSON object"},
      {"main_dispatch_0.torq.mlir",
       "\"builtin.module\"() ({\n  \"torq.dispatch\"() ({\n    \"torq.action\"() {kind = "
       "\"ALLOC\"} : () -> ()\n  }) {name = \"main_dispatch_0\"} : () -> ()\n}) : () -> ()\n",
       "main_dispatch_0.torq.mlir:3:5: error: torq.action without torq-action-id"},
      {"main_dispatch_0.torq.mlir", "\"builtin.module\"() ({\n", "error:"},
  };
  for (size_t i = 0; i < sizeof(cases_) / sizeof(cases_[0]); i++) {
    char *dir = th_tmpdir();
    char *dbg = th_path(dir, "dbg");
    th_fixture_debug_info(dbg);
    char *f = th_path(dbg, cases_[i].file);
    th_write(f, cases_[i].text);
    tqh_annotation_t *ann = annotate_with(dir, dbg, NULL);
    char *all = th_diags_text(ann);
    ck_assert_msg(strstr(all, cases_[i].needle) != NULL, "case %zu: no '%s' in:\n%s", i,
                  cases_[i].needle, all);
    ck_assert_uint_eq(ann->num_rows, 10);
    free(all);
    tqh_annotation_destroy(ann);
    free(f);
    free(dbg);
    th_rmtree(dir);
  }
}
END_TEST

Suite *bad_input_suite(void) {
  Suite *s = suite_create("bad_input");
  TCase *tc = tcase_create("bad_input");
  tcase_add_loop_test(tc, bad_profile_is_reported_at_its_line_and_the_rest_annotated, 0,
                      (int)(sizeof(cases) / sizeof(cases[0])));
  tcase_add_test(tc, debug_info_of_another_model_is_one_error_not_one_per_row);
  tcase_add_test(tc, debug_info_missing_still_gives_the_measured_rows);
  tcase_add_test(tc, debug_info_of_another_model_is_reported);
  tcase_add_test(tc, debug_info_malformed_is_reported_with_its_location);
  suite_add_tcase(s, tc);
  return s;
}
