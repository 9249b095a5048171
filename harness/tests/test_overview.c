/* The Host Profile Overview: metrics of the hand-built fixture profile against numbers worked
 * out by hand, read back from the Perfetto trace, and the printed block. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "torq/harness/overview.h"
#include "torq/harness/perfetto.h"

/* The fixture's measured slots (µs), from TH_FIXTURE_PROFILE:
 *   job 0 (DMA_IN, DMA_OUT)  [12, 40]    its START ends at 12, its WAIT at 40
 *   job 1 (SLICE1, CSS)      [40, 50]    its START ends at 14, but the NSS is busy until 40
 *   job 2 (CDMA, SLICE0)     [81, 90]
 *   host program 0           [62, 80];   HOST_COPY [50, 60];   the run [0, 100]
 * so:
 *   DMA = [12,40] = 28        CDMA = [81,90] = 9        DMA Total = 28 + 9 = 37
 *   Slice 0 = 9   Slice 1 = 10   Slice = 19   CSS = 10   Compute = [40,50] ∪ [81,90] = 19
 *   Dma Only = DMA Total − Compute = [12,40) = 28
 *   Compute Only = Compute − DMA Total = [40,50) = 10
 *   Overlap = DMA Total ∩ Compute = [81,90) = 9
 *   Host = 18   Host Copy = 10
 *   busy = [12,60] ∪ [62,80] ∪ [81,90] = 48 + 18 + 9 = 75;   Idle = 100 − 75 = 25 */
static const struct {
  const char *name;
  unsigned us;
} expected[] = {
    {"OVERALL", 100}, {"DMA", 28},     {"CDMA", 9},     {"DMA Total", 37},  {"Slice 0", 9},
    {"Slice 1", 10},  {"Slice", 19},   {"CSS", 10},     {"Compute", 19},    {"Dma Only", 28},
    {"Compute Only", 10}, {"Overlap", 9}, {"Host", 18}, {"Host Copy", 10}, {"Idle", 25},
};
#define N_EXPECTED (sizeof(expected) / sizeof(expected[0]))

static void check_metrics(const tqh_overview_t *ov) {
  ck_assert_uint_eq(ov->count, N_EXPECTED);
  for (size_t i = 0; i < N_EXPECTED; i++) {
    ck_assert_str_eq(ov->metrics[i].name, expected[i].name);
    ck_assert_msg(ov->metrics[i].ns == expected[i].us * 1000ull, "%s: %llu ns, expected %u µs",
                  expected[i].name, (unsigned long long)ov->metrics[i].ns, expected[i].us);
  }
}

START_TEST(overview_of_the_fixture_matches_the_hand_worked_numbers) {
  char *dir = th_tmpdir();
  char *dbg = th_path(dir, "dbg");
  th_fixture_debug_info(dbg);
  tqh_annotation_t *ann = th_annotate_text(dir, dbg, TH_FIXTURE_PROFILE);
  tqh_overview_t ov;
  tqh_overview_init(&ov);
  TH_OK(tqh_overview_compute(ann, &ov));
  check_metrics(&ov);
  /* The same numbers come back from the Perfetto trace. */
  char *pb = th_path(dir, "t.pb");
  TH_OK(tqh_annotation_write_perfetto(ann, pb));
  tqh_overview_t back;
  const char *paths[2] = {pb, pb};
  TH_OK(tqh_overview_read(paths, 1, &back));
  check_metrics(&back);
  tqh_overview_deinit(&back);
  /* Two files of one model add up. */
  TH_OK(tqh_overview_read(paths, 2, &back));
  uint64_t ns;
  ck_assert(tqh_overview_get(&back, "Overlap", &ns));
  ck_assert_uint_eq(ns, 18000);
  tqh_overview_deinit(&back);
  tqh_overview_deinit(&ov);
  tqh_annotation_destroy(ann);
  free(pb);
  free(dbg);
  th_rmtree(dir);
}
END_TEST

START_TEST(overview_prints_the_block_of_the_design) {
  tqh_overview_t ov;
  tqh_overview_init(&ov);
  TH_OK(tqh_overview_add(&ov, "OVERALL", 12845000));
  TH_OK(tqh_overview_add(&ov, "Dma", 453000));
  TH_OK(tqh_overview_add(&ov, "Idle", 0));
  TH_OK(tqh_overview_add(&ov, "A rather long metric name here", 1));
  tq_buf_t out;
  tq_buf_init(&out, 0);
  TH_OK(tqh_overview_format(&ov, "conv2d_f4_s4_64x64x16_i16", 207000000, &out));
  ck_assert_str_eq(out.data,
                   "====================== Host Profile Overview =======================\n"
                   "  Model: conv2d_f4_s4_64x64x16_i16\n"
                   "  ────────────────────────────────────────────────────────\n"
                   "  WALL_TIME                       207.000ms\n"
                   "  OVERALL                          12.845ms\n"
                   "  Dma                             453.000µs  (3.53%)\n"
                   "  Idle                                  0ns  (0.00%)\n"
                   "  A rather long metric name here        1ns  (0.00%)\n");
  /* Without WALL_TIME and OVERALL: no percentages. */
  tqh_overview_t only;
  tqh_overview_init(&only);
  TH_OK(tqh_overview_add(&only, "Host", 1500));
  tq_buf_clear(&out);
  TH_OK(tqh_overview_format(&only, "m", -1, &out));
  ck_assert_ptr_nonnull(strstr(out.data, "\n  Host                              1.500µs\n"));
  ck_assert_ptr_null(strstr(out.data, "WALL_TIME"));
  tq_buf_deinit(&out);
  tqh_overview_deinit(&only);
  tqh_overview_deinit(&ov);
}
END_TEST

static const struct {
  unsigned long long ns;
  const char *text;
} durations[] = {
    {0, "0ns"},
    {999, "999ns"},
    {1000, "1.000µs"},
    {453000, "453.000µs"},
    {999999, "999.999µs"},
    {1000000, "1.000ms"},
    {1234567, "1.235ms"},  /* rounds half up */
    {1234499, "1.234ms"},
    {12845000, "12.845ms"},
    {999999499, "999.999ms"},
    {999999500, "1.000s"}, /* rounds up into the next unit */
    {1500000000, "1.500s"},
    {3600000000000ull, "3600.000s"},
};

START_TEST(overview_formats_durations_in_the_largest_unit) {
  char out[32];
  tqh_format_duration(durations[_i].ns, out);
  ck_assert_str_eq(out, durations[_i].text);
}
END_TEST

static const struct {
  unsigned long long part, whole;
  const char *text;
} percents[] = {
    {453000, 12845000, "3.53%"}, {0, 100, "0.00%"},   {100, 100, "100.00%"},
    {1, 3, "33.33%"},            {2, 3, "66.67%"},    {1, 200000, "0.00%"},
    {1, 20000, "0.01%"},         {5, 0, "-"},         {18446744073709ull, 18446744073709ull, "100.00%"},
};

START_TEST(overview_formats_percentages_with_two_decimals) {
  char out[32];
  tqh_format_percent(percents[_i].part, percents[_i].whole, out);
  ck_assert_str_eq(out, percents[_i].text);
}
END_TEST

START_TEST(overview_read_refuses_a_trace_without_overview) {
  char *dir = th_tmpdir();
  char *csv = th_path(dir, "trace.csv");
  char *pb = th_path(dir, "trace.pb");
  th_write(csv, "ID,Start,End,Location,Op Type\nDI0,0,800,,DMA_IN\n");
  tqh_diags_t d;
  tqh_diags_init(&d);
  TH_OK(tqh_compile_trace_to_perfetto(csv, 0, pb, &d));
  tqh_overview_t ov;
  const char *paths[1] = {pb};
  tq_status_t st = tqh_overview_read(paths, 1, &ov);
  ck_assert_ptr_nonnull(st);
  ck_assert_ptr_nonnull(strstr(tq_status_message(st), "no 'Host Profile Overview' track"));
  tq_status_free(st);
  tqh_overview_deinit(&ov);
  tqh_diags_deinit(&d);
  free(csv);
  free(pb);
  th_rmtree(dir);
}
END_TEST

Suite *overview_suite(void) {
  Suite *s = suite_create("overview");
  TCase *tc = tcase_create("overview");
  tcase_add_test(tc, overview_of_the_fixture_matches_the_hand_worked_numbers);
  tcase_add_test(tc, overview_prints_the_block_of_the_design);
  tcase_add_loop_test(tc, overview_formats_durations_in_the_largest_unit, 0,
                      (int)(sizeof(durations) / sizeof(durations[0])));
  tcase_add_loop_test(tc, overview_formats_percentages_with_two_decimals, 0,
                      (int)(sizeof(percents) / sizeof(percents[0])));
  tcase_add_test(tc, overview_read_refuses_a_trace_without_overview);
  suite_add_tcase(s, tc);
  return s;
}
