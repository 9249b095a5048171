/* The trends page from a hand-made history: a step in one test's metric is a change point,
 * marked on its chart and listed with the run and revision where it began; -k selects. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "torq/harness/history.h"
#include "torq/harness/select.h"
#include "torq/harness/trends.h"

Suite *trends_suite(void);

static size_t count(const char *hay, const char *needle) {
  size_t n = 0;
  for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle)) n++;
  return n;
}

START_TEST(a_step_is_a_change_point_listed_with_its_run) {
  char *dir = th_tmpdir();
  char *path = th_path(dir, "h.sqlite");
  tqh_history_t *h = NULL;
  TH_OK(tqh_history_open(path, NULL, &h));
  tqh_property_t target = {"target", "sim"};
  for (int r = 0; r < 12; r++) {
    tqh_record_metric_t m1[] = {{"OVERALL", r < 6 ? 100 : 120, NULL}};
    tqh_record_metric_t m2[] = {{"OVERALL", 50, NULL}};
    tqh_test_record_t recs[2];
    memset(recs, 0, sizeof(recs));
    recs[0].id = recs[0].name = "step";
    recs[1].id = recs[1].name = "flat";
    for (int k = 0; k < 2; k++) {
      recs[k].classname = "s";
      recs[k].outcome = TQH_OUTCOME_PASSED;
      recs[k].properties = &target;
      recs[k].property_count = 1;
      recs[k].metric_count = 1;
    }
    recs[0].metrics = m1;
    recs[1].metrics = m2;
    char id[16], rev[16];
    snprintf(id, sizeof(id), "run%02d", r);
    snprintf(rev, sizeof(rev), "rev%02d", r);
    tqh_history_run_t run = {.run_id = id, .git_revision = rev, .started_at = 1000 + r};
    int added = 0;
    TH_OK(tqh_history_add_run(h, &run, recs, 2, &added));
  }
  char *page = th_path(dir, "t.html");
  tqh_trends_summary_t sum;
  TH_OK(tqh_trends_write(h, NULL, page, &sum));
  ck_assert_uint_eq(sum.tests, 2);
  ck_assert_uint_eq(sum.charts, 2);
  ck_assert_uint_eq(sum.change_points, 1);
  char *html = th_read(page, NULL);
  ck_assert_ptr_nonnull(strstr(html, "id=\"t-s/step\""));
  ck_assert_ptr_nonnull(strstr(html, "id=\"t-s/flat\""));
  ck_assert_uint_eq(count(html, "<line class=\"cp\""), 1);
  /* The table: the test, the metric, the run and revision where it began, before, after. */
  const char *row = strstr(html, "<table id=\"changes\">");
  ck_assert_ptr_nonnull(row);
  ck_assert_msg(strstr(row, "<td>OVERALL</td><td>run06</td><td>rev06</td>") &&
                    strstr(row, "100.000µs</td><td class=\"n\">120.000µs</td>") &&
                    strstr(row, "+20.0%"),
                "%s", row);
  free(html);
  /* -k: only the selected test. */
  tqh_select_t *k = NULL;
  TH_OK(tqh_select_parse("flat", TQH_SELECT_KEYWORD, "-k", &k));
  tqh_trends_options_t o;
  tqh_trends_options_initialize(&o);
  o.keyword = k;
  o.last = 5; /* the last 5 runs: after the step, no change */
  TH_OK(tqh_trends_write(h, &o, page, &sum));
  ck_assert_uint_eq(sum.tests, 1);
  ck_assert_uint_eq(sum.change_points, 0);
  html = th_read(page, NULL);
  ck_assert_ptr_null(strstr(html, "id=\"t-s/step\""));
  ck_assert_ptr_nonnull(strstr(html, "No change point in these runs."));
  free(html);
  tqh_select_destroy(k);
  tqh_history_close(h);
  free(page);
  free(path);
  th_rmtree(dir);
}
END_TEST

Suite *trends_suite(void) {
  Suite *s = suite_create("trends");
  TCase *tc = tcase_create("trends");
  tcase_add_test(tc, a_step_is_a_change_point_listed_with_its_run);
  suite_add_tcase(s, tc);
  return s;
}
