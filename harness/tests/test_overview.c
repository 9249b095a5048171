/* The Host Profile Overview as the Torq tools define it: every metric on hand-built work units
 * (overlapping programs, host programs, host copies, HAL scopes, several invocations) against
 * numbers worked out by hand; the hand-built profiles annotated (also in the Torq runtime's
 * shape, without a single warning); read back from the Perfetto trace in the new naming and the
 * old one; the printed block; durations and percentages as the Torq tools print them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "annotate/annotate_internal.h"
#include "suites.h"
#include "torq/harness/overview.h"
#include "torq/harness/perfetto.h"

/* The metrics in printed order, with their dashboard keys. */
static const char *const labels[] = {"OVERALL",   "TOTAL NPU OPERATIONS", "Dma",     "Dma Only",
                                     "Dma Total", "Cdma",                 "Dma In",  "Dma Out",
                                     "Compute",   "Compute Only",         "Slice",   "Slice 0",
                                     "Slice 1",   "Css",                  "Overlap", "Idle",
                                     "Hal",       "Host",                 "Host Copy"};
static const char *const keys[] = {
    "total_duration", "total_npu_operations", "dma_time",      "dma_only_time",
    "dma_total_time", "cdma_time",            "dma_in_time",   "dma_out_time",
    "compute_time",   "compute_only_time",    "slice_time",    "slice_0_time",
    "slice_1_time",   "css_time",             "overlap_time",  "idle_time",
    "hal_time",       "host_time",            "host_copy_time"};
#define N_METRICS (sizeof(labels) / sizeof(labels[0]))

/* Checks an overview against values in µs, given in the order above. */
static void check_metrics(const char *what, const tqh_overview_t *ov, const unsigned *us) {
  ck_assert_msg(ov->count == N_METRICS, "%s: %zu metrics", what, ov->count);
  for (size_t i = 0; i < N_METRICS; i++) {
    ck_assert_str_eq(ov->metrics[i].name, labels[i]);
    ck_assert_str_eq(ov->metrics[i].key, keys[i]);
    ck_assert_msg(ov->metrics[i].ns == us[i] * 1000ull, "%s: %s is %llu ns, expected %u µs", what,
                  labels[i], (unsigned long long)ov->metrics[i].ns, us[i]);
  }
}

#define DI TQH_UNIT_BIT(TQS_UNIT_DMA_IN)
#define DO TQH_UNIT_BIT(TQS_UNIT_DMA_OUT)
#define CD TQH_UNIT_BIT(TQS_UNIT_CDMA)
#define S0 TQH_UNIT_BIT(TQS_UNIT_SLICE0)
#define S1 TQH_UNIT_BIT(TQS_UNIT_SLICE1)
#define CS TQH_UNIT_BIT(TQS_UNIT_CSS)
#define NSS(units, a, b) {TQH_WORK_NSS, (units), (a) * 1000ull, (b) * 1000ull}
#define HOST(a, b) {TQH_WORK_HOST, 0, (a) * 1000ull, (b) * 1000ull}
#define COPY(a, b) {TQH_WORK_HOST_COPY, 0, (a) * 1000ull, (b) * 1000ull}
#define HAL(a, b) {TQH_WORK_HAL, 0, (a) * 1000ull, (b) * 1000ull}

/* Each case's metrics, µs, in printed order:
 *   OVERALL NPU Dma DmaOnly DmaTotal Cdma DmaIn DmaOut Compute ComputeOnly Slice Slice0 Slice1
 *   Css Overlap Idle Hal Host HostCopy */
static const struct {
  const char *name;
  tqh_work_unit_t units[8];
  size_t n;
  unsigned us[N_METRICS];
} cases[] = {
    /* Dma [0,10]; Cdma [12,20]; Dma Total 18; Slice 0 [5,15]; Css [12,20]; Compute [5,20] = 15;
     * Dma Only [0,5) = 5; Compute Only [10,12) = 2; Overlap [5,10) + [12,20) = 13; busy 20. */
    {"overlapping programs", {NSS(DI, 0, 10), NSS(S0, 5, 15), NSS(CD | CS, 12, 20)}, 3,
     {20, 20, 10, 5, 18, 8, 10, 0, 15, 2, 10, 10, 0, 8, 13, 0, 0, 0, 0}},
    /* OVERALL [0,35]; host time outside NPU work: [0,5) + [20,22) + [25,35) = 17, so NPU
     * 35 - 17 = 18; Host [18,22] + [25,35] = 14; busy [0,5] + [10,22] + [25,35] = 27: Idle 8. */
    {"host programs and host copies", {NSS(DO, 10, 20), HOST(25, 35), COPY(0, 5), HOST(18, 22)}, 4,
     {35, 18, 10, 10, 10, 0, 0, 10, 0, 0, 0, 0, 0, 0, 0, 8, 0, 14, 5}},
    /* HAL [0,6] (two calls that overlap) and [20,30]: 16; NPU: only the program, 4; Idle
     * 30 - 6 - 4 - 10 = 10. */
    {"HAL scopes", {HAL(0, 4), HAL(2, 6), NSS(S1, 10, 14), HAL(20, 30)}, 4,
     {30, 4, 0, 0, 0, 0, 0, 0, 4, 4, 4, 0, 4, 0, 0, 10, 16, 0, 0}},
    /* Two invocations, combined: OVERALL [0,112]; lone host copies 4, NPU 108; busy 24. */
    {"several invocations",
     {NSS(DI | S0, 0, 10), COPY(10, 12), NSS(DI | S0, 100, 110), COPY(110, 112)}, 4,
     {112, 108, 20, 0, 20, 0, 20, 0, 20, 0, 20, 20, 0, 0, 20, 88, 0, 0, 4}},
    {"a HAL call alone", {HAL(5, 9)}, 1, {4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0}},
    {"nothing", {{0}}, 0, {0}},
};

START_TEST(overview_metrics_of_hand_built_work_units) {
  tqh_overview_t ov;
  tqh_overview_init(&ov);
  TH_OK(tqh_overview_compute_units(cases[_i].units, cases[_i].n, &ov));
  check_metrics(cases[_i].name, &ov, cases[_i].us);
  ck_assert_int_eq(ov.has_start, cases[_i].n > 0);
  if (cases[_i].n) {
    uint64_t first = UINT64_MAX;
    for (size_t k = 0; k < cases[_i].n; k++)
      if (cases[_i].units[k].start_ns < first) first = cases[_i].units[k].start_ns;
    ck_assert_uint_eq(ov.start_ns, first);
  }
  tqh_overview_deinit(&ov);
}
END_TEST

/* The fixture's work units (µs), from TH_FIXTURE_PROFILE (START's BEGIN to WAIT's END):
 *   job 0 (DMA_IN, DMA_OUT) [10, 40]; job 1 (SLICE1, CSS) [12, 50]; job 2 (CDMA, SLICE0)
 *   [80, 90]; HOST_COPY [50, 60]; host program 0 [60, 80]
 * so OVERALL [10, 90] = 80; Dma = In = Out = 30; Cdma 10; Dma Total 40; Slice 0 10; Slice 1 =
 * Css = 38; Slice = Compute = 48; Dma Only [10,12) = 2; Compute Only [40,50) = 10; Overlap
 * [12,40) + [80,90) = 38; lone host time [50,80) = 30, NPU 80 - 30 = 50; busy is all: Idle 0. */
static const unsigned fixture_us[N_METRICS] = {80, 50, 30, 2,  40, 10, 30, 30, 48, 10,
                                               48, 10, 38, 38, 38, 0,  0,  20, 10};

/* TH_FIXTURE_TORQ_PROFILE: the same actions twice (runs 2 and 4, the second 70 µs later), and
 * the HAL scopes [20,24] (holding [21,23]) and [68,80] (holding [72,75] and [76,78]):
 *   NSS: job 0 [35,45] [105,115]; job 1 [36,50] [106,120]; job 2 [60,66] [130,136]
 *   host [52,60] [122,130]; host copy [50,52] [120,122]
 * OVERALL [20,136] = 116; Dma = In = Out 20; Cdma 12; Dma Total 32; Slice 0 12; Slice 1 = Css
 * 28; Slice = Compute 40; Dma Only [35,36) + [105,106) = 2; Compute Only [45,50) + [115,120) =
 * 10; Overlap 9 + 6 + 9 + 6 = 30; Hal 4 + 12 = 16; Host 16; Host Copy 4; NPU: the span of the
 * non-HAL units [35,136] = 101 less the host time outside NSS and HAL, 20: 81; busy 4 + [35,66]
 * + 12 + [105,136] = 78: Idle 38. */
static const unsigned torq_us[N_METRICS] = {116, 81, 20, 2,  32, 12, 20, 20, 40, 10,
                                            40,  12, 28, 28, 30, 38, 16, 16, 4};

static void check_profile(const char *profile, const unsigned *us, size_t diags) {
  char *dir = th_tmpdir();
  char *dbg = th_path(dir, "dbg");
  th_fixture_debug_info(dbg);
  tqh_annotation_t *ann = th_annotate_text(dir, dbg, profile);
  char *text = th_diags_text(ann);
  ck_assert_msg(ann->diags.count == diags, "%zu diagnostics, expected %zu:\n%s", ann->diags.count,
                diags, text);
  free(text);
  tqh_overview_t ov;
  tqh_overview_init(&ov);
  TH_OK(tqh_overview_compute(ann, &ov));
  check_metrics("computed", &ov, us);
  /* The same numbers come back from the Perfetto trace. */
  char *pb = th_path(dir, "t.pb");
  TH_OK(tqh_annotation_write_perfetto(ann, pb));
  tqh_overview_t back;
  const char *paths[2] = {pb, pb};
  TH_OK(tqh_overview_read(paths, 1, &back));
  check_metrics("read back", &back, us);
  tqh_overview_deinit(&back);
  /* Two files of one model add up. */
  TH_OK(tqh_overview_read(paths, 2, &back));
  uint64_t ns;
  ck_assert(tqh_overview_get(&back, "Overlap", &ns));
  ck_assert_uint_eq(ns, 2 * us[14] * 1000ull);
  tqh_overview_deinit(&back);
  tqh_overview_deinit(&ov);
  tqh_annotation_destroy(ann);
  free(pb);
  free(dbg);
  th_rmtree(dir);
}

START_TEST(overview_of_the_fixture_matches_the_hand_worked_numbers) {
  check_profile(TH_FIXTURE_PROFILE, fixture_us, 0);
}
END_TEST

START_TEST(overview_of_a_profile_in_the_torq_runtimes_shape_without_a_warning) {
  check_profile(TH_FIXTURE_TORQ_PROFILE, torq_us, 0);
}
END_TEST

START_TEST(overview_prints_the_block_of_the_torq_tools) {
  tqh_overview_t ov;
  tqh_overview_init(&ov);
  /* Added out of order: printed in the Torq tools' order, unknown metrics last. */
  TH_OK(tqh_overview_add(&ov, "A rather long metric name here", 1));
  TH_OK(tqh_overview_add(&ov, "Idle", 0));
  TH_OK(tqh_overview_add(&ov, "Dma", 453000));
  TH_OK(tqh_overview_add(&ov, "TOTAL NPU OPERATIONS", 12800000));
  TH_OK(tqh_overview_add(&ov, "OVERALL", 12845000));
  TH_OK(tqh_overview_add(&ov, "Host Copy", 1234567));
  tq_buf_t out;
  tq_buf_init(&out, 0);
  TH_OK(tqh_overview_format(&ov, "conv2d_f4_s4_64x64x16_i16", 207000000, &out));
  ck_assert_str_eq(out.data,
                   "====================== Host Profile Overview =======================\n"
                   "  Model: conv2d_f4_s4_64x64x16_i16\n"
                   "  ────────────────────────────────────────────────────\n"
                   "  WALL_TIME                       207.000ms\n"
                   "  OVERALL                          12.845ms\n"
                   "  TOTAL NPU OPERATIONS             12.800ms  (99.65%)\n"
                   "  Dma                             453.000µs  (3.53%)\n"
                   "  Idle                                  0ns  (0.00%)\n"
                   "  Host Copy                         1.235ms  (9.61%)\n"
                   "  A rather long metric name here            1ns  (0.00%)\n");
  /* Labels in 26 columns, a space, values right-aligned in 14 (µ is two bytes), the rule 52
   * wide: the lines of the seed's block, 43 characters before the percentage. */
  const char *dma = strstr(out.data, "  Dma ");
  ck_assert_ptr_nonnull(dma);
  ck_assert_ptr_eq(strstr(dma, "453.000µs") + strlen("453.000µs"), dma + 2 + 26 + 1 + 14 + 1);
  ck_assert_ptr_nonnull(strstr(out.data, "\n  WALL_TIME                       207.000ms\n"));
  /* A second from one second up. */
  tq_buf_clear(&out);
  TH_OK(tqh_overview_format(&ov, "m", 1234000000, &out));
  ck_assert_ptr_nonnull(strstr(out.data, "\n  WALL_TIME                          1.234s\n"));
  /* Below a second WALL_TIME stays in ms, as the Torq tools print it (other durations do not). */
  tq_buf_clear(&out);
  TH_OK(tqh_overview_format(&ov, "m", 863038, &out));
  ck_assert_ptr_nonnull(strstr(out.data, "\n  WALL_TIME                         0.863ms\n"));
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

START_TEST(overview_keys_of_known_and_unknown_metrics) {
  tq_buf_t k;
  tq_buf_init(&k, 0);
  static const struct {
    const char *name, *key, *percent;
  } names[] = {
      {"Dma", "dma_time", "dma_percent"},
      {"DMA", "dma_time", "dma_percent"}, /* the old label */
      {"00 OVERVIEW DMA COMBINED", "dma_total_time", "dma_total_percent"},
      {"OVERALL", "total_duration", NULL},
      {"TOTAL NPU OPERATIONS", "total_npu_operations", "total_npu_operations_percent"},
      {"Host Copy", "host_copy_time", "host_copy_percent"},
      {"Idle", "idle_time", "idle_percent"},
      {"Weird-thing 2 (x)", "weird_thing_2_x_time", "weird_thing_2_x_percent"},
      {"  ", "metric_time", "metric_percent"},
  };
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
    TH_OK(tqh_overview_key_of(names[i].name, &k));
    ck_assert_str_eq(k.data, names[i].key);
    tq_buf_t p;
    tq_buf_init(&p, 0);
    int has = tqh_overview_percent_key(names[i].key, &p);
    ck_assert_int_eq(has, names[i].percent != NULL);
    if (has) ck_assert_str_eq(p.data, names[i].percent);
    tq_buf_deinit(&p);
  }
  tq_buf_deinit(&k);
  /* Every known metric: a label, a key, a thread named as the Torq tools do, a description. */
  size_t n;
  const tqh_metric_info_t *m = tqh_overview_metrics(&n);
  ck_assert_uint_eq(n, N_METRICS);
  for (size_t i = 0; i < n; i++) {
    ck_assert_str_eq(m[i].label, labels[i]);
    ck_assert_str_eq(m[i].key, keys[i]);
    ck_assert_ptr_eq(tqh_overview_metric_find(m[i].thread), &m[i]);
    ck_assert(strlen(m[i].description) > 10);
  }
}
END_TEST

/* A trace of the old naming (a thread per metric named by its label, slices named alike): read
 * as today's metrics; a thread nobody knows is a metric of its own. */
START_TEST(overview_reads_traces_of_the_old_naming) {
  char *dir = th_tmpdir();
  char *pb = th_path(dir, "old.pb");
  tqh__pf_writer_t w;
  tqh__pf_init(&w);
  tqh__pf_track_t root, t[5];
  static const char *const old[] = {"OVERALL", "DMA", "CSS", "Idle", "Weird"};
  TH_OK(tqh__pf_track(&w, &root, 1, 0, "Host Profile Overview"));
  for (int i = 0; i < 5; i++) TH_OK(tqh__pf_track(&w, &t[i], 10 + (uint64_t)i, 1, old[i]));
  for (int i = 0; i < 5; i++)
    TH_OK(tqh__pf_slice(&w, &t[i], 5000, 5000 + 1000 * (uint64_t)(i + 1), old[i]));
  th_write(pb, "");
  FILE *f = fopen(pb, "wb");
  ck_assert_uint_eq(fwrite(w.out.data, 1, w.out.len, f), w.out.len);
  fclose(f);
  tqh__pf_deinit(&w);
  tqh_overview_t ov;
  const char *paths[1] = {pb};
  TH_OK(tqh_overview_read(paths, 1, &ov));
  ck_assert_uint_eq(ov.count, 5);
  static const char *const now[] = {"OVERALL", "Dma", "Css", "Idle", "Weird"};
  static const char *const now_keys[] = {"total_duration", "dma_time", "css_time", "idle_time",
                                         "weird_time"};
  for (int i = 0; i < 5; i++) {
    ck_assert_str_eq(ov.metrics[i].name, now[i]);
    ck_assert_str_eq(ov.metrics[i].key, now_keys[i]);
    ck_assert_uint_eq(ov.metrics[i].ns, 1000 * (uint64_t)(i + 1));
  }
  tqh_overview_deinit(&ov);
  free(pb);
  th_rmtree(dir);
}
END_TEST

/* The known metrics first, in their order, then the others as they came: with few metrics and
 * with more than the sort keeps its ranks for on the stack. */
START_TEST(overview_sort_puts_known_metrics_first_and_keeps_the_others_in_order) {
  size_t known = 0;
  const tqh_metric_info_t *info = tqh_overview_metrics(&known);
  size_t count = _i ? 90 : 7;
  tqh_overview_t ov;
  tqh_overview_init(&ov);
  size_t next_known = known, others = 0, knowns = 0;
  for (size_t i = 0; i < count; i++) {
    char name[16];
    if (i % 3 == 1 && next_known > 0) { /* known ones, last first */
      TH_OK(tqh_overview_add(&ov, info[--next_known].label, i));
      knowns++;
    } else {
      snprintf(name, sizeof(name), "other %03zu", i);
      TH_OK(tqh_overview_add(&ov, name, i));
      others++;
    }
  }
  tqh_overview_sort(&ov);
  ck_assert_uint_eq(ov.count, count);
  for (size_t i = 0; i < knowns; i++)
    ck_assert_str_eq(ov.metrics[i].name, info[known - knowns + i].label);
  for (size_t i = knowns + 1; i < count; i++) {
    ck_assert(!strncmp(ov.metrics[i].name, "other ", 6));
    ck_assert(ov.metrics[i - 1].ns < ov.metrics[i].ns); /* their order of arrival */
  }
  ck_assert_uint_eq(knowns + others, count);
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
    {1234567, "1.235ms"}, /* rounds half up */
    {1234499, "1.234ms"},
    {12845000, "12.845ms"},
    {999999499, "999.999ms"},
    {999999500, "1000.000ms"}, /* the unit goes by the value, as the Torq tools print it */
    {1000000000, "1.000s"},
    {1500000000, "1.500s"},
    {3600000000000ull, "3600.000s"},
    {18446744073709551615ull, "18446744073.710s"},
};

START_TEST(overview_formats_durations_as_the_torq_tools) {
  char out[TQH_DURATION_SIZE];
  tqh_format_duration(durations[_i].ns, out);
  ck_assert_str_eq(out, durations[_i].text);
}
END_TEST

/* WALL_TIME: "{secs:.3f}s" from one second up, else "{secs * 1000:.3f}ms". */
static const struct {
  unsigned long long ns;
  const char *text;
} wall_times[] = {
    {0, "0.000ms"},          {499, "0.000ms"},        {500, "0.001ms"},
    {863038, "0.863ms"},     {207000000, "207.000ms"}, {999999499, "999.999ms"},
    {999999500, "1000.000ms"}, {1000000000, "1.000s"},  {1234499999, "1.234s"},
    {1234500000, "1.235s"},  {3600000000000ull, "3600.000s"},
};

START_TEST(overview_formats_wall_time_as_the_torq_tools) {
  char out[TQH_DURATION_SIZE];
  tqh_format_wall_time(wall_times[_i].ns, out);
  ck_assert_str_eq(out, wall_times[_i].text);
}
END_TEST

static const struct {
  unsigned long long part, whole;
  const char *text;
} percents[] = {
    {453000, 12845000, "3.53%"}, {0, 100, "0.00%"},   {100, 100, "100.00%"},
    {1, 3, "33.33%"},            {2, 3, "66.67%"},    {1, 200000, "0.00%"},
    {1, 20000, "0.01%"},         {5, 0, "-"},         {18446744073709ull, 18446744073709ull, "100.00%"},
    {18446744073709551615ull, 1, "184467440737095516.15%"}, /* clamped */
};

START_TEST(overview_formats_percentages_with_two_decimals) {
  char out[TQH_DURATION_SIZE];
  tqh_format_percent(percents[_i].part, percents[_i].whole, out);
  ck_assert_str_eq(out, percents[_i].text);
}
END_TEST

START_TEST(overview_slice_names_as_the_torq_tools) {
  tq_buf_t b;
  tq_buf_init(&b, 0);
  TH_OK(tqh_overview_slice_name("DMA total", 453000, 12845000, 1, &b));
  ck_assert_str_eq(b.data, "DMA total: 453.000µs (3.53%)");
  TH_OK(tqh_overview_slice_name("OVERALL", 12845000, 12845000, 0, &b));
  ck_assert_str_eq(b.data, "OVERALL: 12.845ms");
  TH_OK(tqh_overview_slice_name("IDLE", 0, 0, 1, &b));
  ck_assert_str_eq(b.data, "IDLE: 0ns (0.00%)");
  tq_buf_deinit(&b);
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
  tcase_add_loop_test(tc, overview_metrics_of_hand_built_work_units, 0,
                      (int)(sizeof(cases) / sizeof(cases[0])));
  tcase_add_test(tc, overview_of_the_fixture_matches_the_hand_worked_numbers);
  tcase_add_test(tc, overview_of_a_profile_in_the_torq_runtimes_shape_without_a_warning);
  tcase_add_test(tc, overview_prints_the_block_of_the_torq_tools);
  tcase_add_test(tc, overview_keys_of_known_and_unknown_metrics);
  tcase_add_test(tc, overview_reads_traces_of_the_old_naming);
  tcase_add_loop_test(tc, overview_formats_wall_time_as_the_torq_tools, 0,
                      sizeof(wall_times) / sizeof(wall_times[0]));
  tcase_add_loop_test(tc, overview_sort_puts_known_metrics_first_and_keeps_the_others_in_order, 0,
                      2);
  tcase_add_loop_test(tc, overview_formats_durations_as_the_torq_tools, 0,
                      (int)(sizeof(durations) / sizeof(durations[0])));
  tcase_add_loop_test(tc, overview_formats_percentages_with_two_decimals, 0,
                      (int)(sizeof(percents) / sizeof(percents[0])));
  tcase_add_test(tc, overview_slice_names_as_the_torq_tools);
  tcase_add_test(tc, overview_read_refuses_a_trace_without_overview);
  suite_add_tcase(s, tc);
  return s;
}
