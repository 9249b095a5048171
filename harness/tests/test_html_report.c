/* The HTML report: escaping, a section and a link per test, rects for the profile's events,
 * merging of crowded tracks, the baseline's change text, and a corrupt profile as a note. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/report_internal.h"
#include "suites.h"
#include "torq/base/alloc.h"
#include "torq/harness/html_report.h"

Suite *html_report_suite(void);

static size_t count(const char *haystack, const char *needle) {
  size_t n = 0;
  for (const char *p = strstr(haystack, needle); p; p = strstr(p + 1, needle)) n++;
  return n;
}

START_TEST(escape_handles_markup_quotes_and_utf8) {
  static const struct {
    const char *in, *want;
  } cases[] = {
      {"<b>a & b</b>", "&lt;b&gt;a &amp; b&lt;/b&gt;"},
      {"say \"hi\" 'there'", "say &quot;hi&quot; &apos;there&apos;"},
      {"caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80", "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"},
      {"bad \xFF byte", "bad \xEF\xBF\xBD byte"},
      {"bell\x07", "bell\xEF\xBF\xBD"},
      {"", ""},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    tq_buf_t out;
    tq_buf_init(&out, 0);
    TH_OK(tqh_html_escape(cases[i].in, strlen(cases[i].in), &out));
    ck_assert_str_eq(out.data ? out.data : "", cases[i].want);
    tq_buf_deinit(&out);
  }
}
END_TEST

START_TEST(timeline_coordinates_are_printfs_one_decimal_byte_for_byte) {
  /* Ties and near-ties (0.25 is exact, 0.15 is not), large, negative and odd values, then the
   * coordinates a timeline makes and pseudo-random ones. */
  static const double fixed[] = {0,     0.04999, 0.05,  0.15,    0.25,   0.35,   0.45,
                                 1.05,  2.5,     949.95, 1234.45, 150.75, -0.05, -3.25,
                                 1e14,  1e15,    1e300,  0.5e-300, 9.95,  99.95,  999.9500001};
  char got[TQH__FMT_1F_MAX], want[TQH__FMT_1F_MAX];
  for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
    size_t n = tqh__html_fmt_1f(got, sizeof(got), fixed[i]);
    snprintf(want, sizeof(want), "%.1f", fixed[i]);
    ck_assert_str_eq(got, want);
    ck_assert_uint_eq(n, strlen(want));
  }
  uint64_t seed = 42;
  for (int i = 0; i < 200000; i++) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    double x = i < 100000 ? 150 + (double)(seed >> 40) * 800 / (double)(1 + (seed & 0xFFFFF))
                          : (double)(seed >> 11) / (double)(1ull << 53) * 2000;
    tqh__html_fmt_1f(got, sizeof(got), x);
    snprintf(want, sizeof(want), "%.1f", x);
    ck_assert_msg(!strcmp(got, want), "%.17g: %s, printf %s", x, got, want);
  }
}
END_TEST

START_TEST(tick_steps_are_one_two_or_five_times_a_power_of_ten) {
  ck_assert_uint_eq(tqh__html_tick_step(0, 8), 1);
  ck_assert_uint_eq(tqh__html_tick_step(1000, 8), 200);  /* 125 -> 200 */
  ck_assert_uint_eq(tqh__html_tick_step(18000, 8), 5000); /* 2250 -> 5000 */
  ck_assert_uint_eq(tqh__html_tick_step(800, 8), 100);
  ck_assert_uint_eq(tqh__html_tick_step(7000, 8), 1000); /* 875 -> 1000 */
}
END_TEST

/* One journal line of the test in folder `id` ("s+ok": test s/ok); `extra` adds members
 * ("\"metrics\":{...}," and the like). */
static void line(tq_buf_t *b, const char *id, const char *outcome, const char *message,
                 const char *extra) {
  TH_OK(tq_buf_printf(b,
                      "{\"id\":\"%s\",\"name\":\"%s\",\"classname\":\"s\",\"outcome\":\"%s\","
                      "\"message\":%s,%s\"duration\":0.01}\n",
                      id, id + 2, outcome, message, extra));
}

#define METRICS(overall) \
  "\"wall_time\":0.001,\"wall_time_stats\":{\"n\":1,\"median\":0.001},\"metrics\":{\"OVERALL\":" \
  #overall ",\"DMA\":4},"

/* A run folder: s+ok with the fixture's profile, s+broken with a corrupt one, s+fail (no
 * profile, a message full of markup), s+skip. */
static char *make_run(void) {
  char *dir = th_tmpdir();
  tq_buf_t j;
  tq_buf_init(&j, 0);
  line(&j, "s+ok", "passed", "null",
       METRICS(18) "\"files\":[\"stderr.txt\",\"annotated.csv\",\"profile.pb\"],");
  line(&j, "s+broken", "passed", "null", METRICS(30));
  line(&j, "s+fail", "failed", "\"expected <1> & got \\\"2\\\" \xC3\xA9\"", "");
  line(&j, "s+skip", "skipped", "\"not on this target\"", "");
  char *p = th_path(dir, "journal.jsonl");
  th_write(p, j.data);
  free(p);
  tq_buf_deinit(&j);
  p = th_path(dir, "run.json");
  th_write(p, "{\"run_id\":\"r<1>\",\"hostname\":\"h\",\"started_at\":\"2026-12-02T16:00:00Z\"}");
  free(p);

  char *ok = th_path(dir, "s+ok"), *broken = th_path(dir, "s+broken");
  ck_assert_int_eq(mkdir(ok, 0777), 0);
  ck_assert_int_eq(mkdir(broken, 0777), 0);
  char *dbg = th_path(dir, "dbg");
  th_fixture_debug_info(dbg);
  tqh_annotation_t *ann = th_annotate_text(dir, dbg, TH_FIXTURE_PROFILE);
  char *pb = th_path(ok, "profile.pb");
  TH_OK(tqh_annotation_write_perfetto(ann, pb));
  char *csv = th_path(ok, "annotated.csv");
  TH_OK(tqh_annotation_write_csv(ann, csv));
  free(csv);
  tqh_annotation_destroy(ann);
  free(pb);
  pb = th_path(broken, "profile.pb");
  th_write(pb, "\x0a\x7fnot a trace");
  free(pb);
  free(dbg);
  free(ok);
  free(broken);
  return dir;
}

static char *page_of(const char *dir) {
  char *p = th_path(dir, TQH_HTML_REPORT_FILE);
  char *text = th_read(p, NULL);
  free(p);
  return text;
}

/* The events of the fixture's trace that the timeline draws (all but the overview's). */
static size_t drawn_events(const char *dir) {
  char *pb = th_path(dir, "s+ok/profile.pb");
  tqh_trace_t t;
  TH_OK(tqh_trace_read(pb, &t));
  const tqh_trace_track_t *ovw = tqh_trace_find(&t, TQH_TRACK_OVERVIEW, 0);
  ck_assert_ptr_nonnull(ovw);
  size_t n = 0;
  for (size_t i = 0; i < t.num_slices; i++) {
    int overview = 0;
    for (size_t k = 0; k < t.num_tracks; k++)
      if (t.tracks[k].uuid == t.slices[i].track_uuid) overview = t.tracks[k].parent_uuid == ovw->uuid;
    n += !overview;
  }
  tqh_trace_deinit(&t);
  free(pb);
  return n;
}

START_TEST(every_test_has_a_row_and_a_section_and_a_corrupt_profile_is_a_note) {
  char *dir = make_run();
  tqh_diags_t diags;
  tqh_diags_init(&diags);
  TH_OK(tqh_html_report_write(dir, NULL, NULL, &diags));
  char *page = page_of(dir);
  static const char *const ids[] = {"s/ok", "s/broken", "s/fail", "s/skip"};
  for (size_t i = 0; i < 4; i++) {
    char want[64];
    snprintf(want, sizeof(want), "<a href=\"#t-%s\">%s</a>", ids[i], ids[i]);
    ck_assert_msg(strstr(page, want) != NULL, "no row for %s", ids[i]);
    snprintf(want, sizeof(want), " class=\"test\" id=\"t-%s\">", ids[i]);
    ck_assert_msg(count(page, want) == 1, "no section for %s", ids[i]);
  }
  ck_assert_ptr_nonnull(strstr(page, "<title>Torq bench run r&lt;1&gt;</title>"));
  ck_assert_ptr_nonnull(strstr(page, "<span class=\"chip o-passed\">2 passed</span>"));
  ck_assert_ptr_nonnull(strstr(page, "<span class=\"chip o-failed\">1 failed</span>"));
  ck_assert_ptr_nonnull(strstr(page, "expected &lt;1&gt; &amp; got &quot;2&quot; \xC3\xA9"));
  ck_assert_ptr_null(strstr(page, "<1>"));
  /* One SVG (s+ok's), one rect per event: the fixture's tracks are far from crowded. */
  ck_assert_uint_eq(count(page, "<svg class=\"timeline\""), 1);
  ck_assert_uint_eq(count(page, "<rect "), drawn_events(dir));
  ck_assert_ptr_nonnull(strstr(page, ">NDMA In</text>"));
  ck_assert_ptr_nonnull(strstr(page, ">Slice 0</text>"));
  /* The failed test first, then as the tests ran. */
  ck_assert(strstr(page, "id=\"t-s/fail\"") < strstr(page, "id=\"t-s/ok\""));
  ck_assert(strstr(page, "<a href=\"#t-s/fail\">") < strstr(page, "<a href=\"#t-s/ok\">"));
  /* The corrupt profile: a note in its own section, a warning, and the rest of the page. */
  const char *broken = strstr(page, "id=\"t-s/broken\"");
  const char *next = strstr(page, "id=\"t-s/skip\"");
  const char *note = strstr(page, "The profile could not be read: ");
  ck_assert(broken && next && note && broken < note && note < next);
  ck_assert_uint_eq(diags.warnings, 1);
  ck_assert_ptr_nonnull(strstr(diags.items[0].file, "s+broken/profile.pb"));
  ck_assert_ptr_nonnull(strstr(page, "No profile.</p>")); /* s+fail */
  ck_assert_ptr_nonnull(strstr(page, "</html>\n"));
  /* Overview bars: DMA 4 of OVERALL 18. */
  ck_assert_ptr_nonnull(strstr(page, "style=\"width:22.22%\""));
  /* s/ok's operator table (from its annotated.csv, test_annotate's fixture) and the run's, its
   * files as links relative to the page, how to open profile.pb; the filter's attributes. */
  const char *ok = strstr(page, "id=\"t-s/ok\"");
  ck_assert_ptr_nonnull(strstr(ok, "<h3>Where the time went, by operator</h3>"));
  ck_assert_ptr_nonnull(strstr(ok, "<tr><td>tosa.abs</td><td class=\"n\">28.000\xC2\xB5s</td>"));
  ck_assert_ptr_nonnull(strstr(page, "<h2>Where the time went, by operator (all tests)</h2>"));
  ck_assert_uint_eq(count(page, "<tr><td>tosa.cast</td><td class=\"n\">20.000\xC2\xB5s</td>"), 2);
  ck_assert_ptr_nonnull(strstr(ok, "<li><a href=\"s+ok/annotated.csv\">annotated.csv</a></li>"));
  ck_assert_ptr_nonnull(strstr(ok, "<li><a href=\"s+ok/report.json\">report.json</a></li>"));
  ck_assert_ptr_nonnull(strstr(ok, "ui.perfetto.dev"));
  ck_assert_ptr_nonnull(strstr(page, "<tr data-outcome=\"failed\" data-f=\"s/fail expected"));
  ck_assert_ptr_nonnull(strstr(page, "<input type=\"checkbox\" class=\"fo\" value=\"skipped\""));
  /* The time bar's legend, in every section (each test has a duration). */
  ck_assert_uint_eq(count(page, "<div class=\"legend\">"), 4);
  ck_assert_ptr_nonnull(strstr(page, "<i class=\"k0\"></i>compile 0ns</span>"));
  ck_assert_ptr_nonnull(strstr(page, "<i class=\"k2\"></i>other 10.000ms</span>"));
  ck_assert_uint_eq(count(page, "<details class=\"t\" open>"), 4); /* 4 tests: all open */
  free(page);
  tqh_diags_deinit(&diags);
  th_rmtree(dir);
}
END_TEST

/* Beyond 50 tests the sections are collapsed, but for the failed ones, which come first. */
/* The SVG of the section of `id` in `page` (heap; NULL if it has none). */
static char *svg_of(const char *page, const char *id) {
  char want[64];
  snprintf(want, sizeof(want), " class=\"test\" id=\"t-%s\">", id);
  const char *sec = strstr(page, want);
  ck_assert_ptr_nonnull(sec);
  const char *end = strstr(sec + 1, "<section ");
  const char *a = strstr(sec, "<svg class=\"timeline\""), *b = a ? strstr(a, "</svg>") : NULL;
  if (!a || !b || (end && b > end)) return NULL;
  return strndup(a, (size_t)(b - a));
}

/* Tests with the same profile bytes get the same timeline (it is drawn once and reused); a
 * profile between them that differs, even a corrupt one, is read on its own. */
START_TEST(tests_with_the_same_profile_share_one_drawing) {
  char *dir = make_run();
  char *journal = th_path(dir, "journal.jsonl");
  char *text = th_read(journal, NULL);
  tq_buf_t j;
  tq_buf_init(&j, 0);
  TH_OK(tq_buf_append_cstr(&j, text));
  line(&j, "s+ok2", "passed", "null", METRICS(18) "\"files\":[\"profile.pb\"],");
  line(&j, "s+broken2", "passed", "null", METRICS(18) "\"files\":[\"profile.pb\"],");
  line(&j, "s+ok3", "passed", "null", METRICS(18) "\"files\":[\"profile.pb\"],");
  th_write(journal, j.data);
  tq_buf_deinit(&j);
  char *pb = th_path(dir, "s+ok/profile.pb");
  size_t len = 0;
  char *bytes = th_read(pb, &len);
  static const char *const copies[] = {"s+ok2", "s+ok3"};
  for (size_t i = 0; i < 2; i++) {
    char *d = th_path(dir, copies[i]);
    ck_assert_int_eq(mkdir(d, 0777), 0);
    char *to = th_path(d, "profile.pb");
    FILE *f = fopen(to, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(bytes, 1, len, f), len);
    ck_assert_int_eq(fclose(f), 0);
    free(to);
    free(d);
  }
  char *d = th_path(dir, "s+broken2");
  ck_assert_int_eq(mkdir(d, 0777), 0);
  char *to = th_path(d, "profile.pb");
  bytes[0] = 0x0f; /* the same length, refused: wire type 7 is none */
  FILE *f = fopen(to, "wb");
  ck_assert_ptr_nonnull(f);
  ck_assert_uint_eq(fwrite(bytes, 1, len, f), len);
  ck_assert_int_eq(fclose(f), 0);
  tqh_diags_t diags;
  tqh_diags_init(&diags);
  TH_OK(tqh_html_report_write(dir, NULL, NULL, &diags));
  char *page = page_of(dir);
  char *svg = svg_of(page, "s/ok"), *svg2 = svg_of(page, "s/ok2"), *svg3 = svg_of(page, "s/ok3");
  ck_assert_ptr_nonnull(svg);
  ck_assert_ptr_nonnull(svg2);
  ck_assert_ptr_nonnull(svg3);
  ck_assert_msg(!strcmp(svg2, svg), "s/ok2 drawn otherwise than s/ok");
  ck_assert_msg(!strcmp(svg3, svg), "s/ok3 drawn otherwise than s/ok");
  ck_assert_ptr_null(svg_of(page, "s/broken2"));
  ck_assert_uint_eq(count(page, "<svg class=\"timeline\""), 3);
  ck_assert_uint_eq(count(page, "The profile could not be read: "), 2);
  ck_assert_uint_eq(diags.warnings, 2);
  free(svg);
  free(svg2);
  free(svg3);
  free(page);
  tqh_diags_deinit(&diags);
  free(to);
  free(d);
  free(bytes);
  free(pb);
  free(text);
  free(journal);
  th_rmtree(dir);
}
END_TEST

START_TEST(sections_collapse_beyond_fifty_tests_but_failed_ones) {
  char *dir = th_tmpdir();
  tq_buf_t j;
  tq_buf_init(&j, 0);
  for (int i = 0; i < 60; i++) {
    char id[32];
    snprintf(id, sizeof(id), "s+t%02d", i);
    line(&j, id, i == 42 ? "failed" : "passed", i == 42 ? "\"wrong\"" : "null", "");
  }
  char *p = th_path(dir, "journal.jsonl");
  th_write(p, j.data);
  free(p);
  tq_buf_deinit(&j);
  TH_OK(tqh_html_report_write(dir, NULL, NULL, NULL));
  char *page = page_of(dir);
  ck_assert_uint_eq(count(page, "<details class=\"t\" open>"), 1);
  ck_assert_uint_eq(count(page, "<details class=\"t\">"), 59);
  const char *first = strstr(page, "<section");
  ck_assert_ptr_nonnull(strstr(first, "id=\"t-s/t42\"><details class=\"t\" open>"));
  ck_assert(strstr(first, "t-s/t42") < strstr(first, "t-s/t00"));
  ck_assert_ptr_nonnull(strstr(page, "60 of 60 tests shown"));
  ck_assert_ptr_nonnull(strstr(page, "No test of this run has an annotated profile."));
  free(page);
  th_rmtree(dir);
}
END_TEST

START_TEST(baseline_changes_are_shown_with_their_verdict) {
  char *dir = make_run();
  tq_buf_t j;
  tq_buf_init(&j, 0);
  line(&j, "s+ok", "passed", "null", METRICS(9));      /* now 18: +100% */
  line(&j, "s+broken", "passed", "null", METRICS(40)); /* now 30: -25% */
  char *p = th_path(dir, "base.jsonl");
  th_write(p, j.data);
  tq_buf_deinit(&j);
  tqh_baseline_t *base = NULL;
  TH_OK(tqh_baseline_load(p, NULL, NULL, &base));
  free(p);
  TH_OK(tqh_html_report_write(dir, base, "../trends.html", NULL));
  char *page = page_of(dir);
  ck_assert_ptr_nonnull(strstr(page, "<th>Baseline</th>"));
  ck_assert_ptr_nonnull(strstr(page, "<td class=\"n v-regression\">+100.0%</td>"));
  ck_assert_ptr_nonnull(strstr(page, "<td class=\"n v-improvement\">-25.0%</td>"));
  ck_assert_ptr_nonnull(strstr(page, "<td>OVERALL</td><td class=\"n\">9.000\xC2\xB5s</td>"
                                     "<td class=\"n\">18.000\xC2\xB5s</td>"));
  /* DMA 4 -> 4 and the wall time 1 ms -> 1 ms. */
  ck_assert_uint_eq(count(page, "<td class=\"n v-unchanged\">+0.0%</td>"), 4);
  ck_assert_ptr_nonnull(strstr(page, "<td class=\"v-regression\">regression</td>"));
  ck_assert_ptr_nonnull(strstr(page, "<td class=\"v-improvement\">improvement</td>"));
  ck_assert_ptr_nonnull(strstr(page, "Not in the baseline.")); /* s+fail */
  /* Each row says why: the floor of a deterministic metric. */
  ck_assert_ptr_nonnull(strstr(page, "<td class=\"why\">+100.0% beyond the floor 5.0% (deterministic)</td>"));
  /* The trends page is linked from the header. */
  ck_assert_ptr_nonnull(strstr(page, "<a id=\"trends\" href=\"../trends.html\">"));
  free(page);
  tqh_baseline_destroy(base);
  th_rmtree(dir);
}
END_TEST

START_TEST(a_crowded_track_is_merged_under_the_cap) {
  enum { N = 5000 };
  tqh_trace_track_t tracks[2] = {{1, 0, "Host"}, {2, 1, "Host Actions"}};
  tqh_trace_slice_t *slices = tq_calloc(N, sizeof(*slices));
  ck_assert_ptr_nonnull(slices);
  for (size_t i = 0; i < N; i++) slices[i] = (tqh_trace_slice_t){2, i * 10, i * 10 + 5, "a<b", NULL};
  tqh_trace_t t = {tracks, 2, slices, N, 0, N, N};
  tq_buf_t out;
  tq_buf_init(&out, 0);
  TH_OK(tqh__html_timeline(&t, 100, &out));
  size_t rects = count(out.data, "<rect ");
  ck_assert_msg(rects >= 50 && rects <= 101, "%zu rects", rects);
  ck_assert_ptr_nonnull(strstr(out.data, " events (a&lt;b \xE2\x80\xA6 a&lt;b): busy "));
  tq_buf_clear(&out);
  /* Below the cap, every event is its own rect. */
  t.num_slices = 60;
  TH_OK(tqh__html_timeline(&t, 100, &out));
  ck_assert_uint_eq(count(out.data, "<rect "), 60);
  ck_assert_uint_eq(count(out.data, "<title>a&lt;b: 5ns at +"), 60);
  tq_buf_deinit(&out);
  tq_free(slices);
}
END_TEST

/* Two tests with reconciled programs: each gets its table, the run its line with the median and
 * 90th percentile of the errors over all of them (20%, 10%, 50%: median 20%, p90 50%). */
START_TEST(reconciliation_is_a_table_per_test_and_a_line_for_the_run) {
  char *dir = th_tmpdir();
  tq_buf_t j;
  tq_buf_init(&j, 0);
  line(&j, "s+a", "passed", "null",
       "\"reconciliation\":{\"clock_hz\":800000000,\"programs\":[{\"job\":0,"
       "\"location\":\"loc(\\\"m.mlir\\\":4:5)\",\"operators\":[\"tosa.rescale@L4\","
       "\"tosa.add@L5\"],\"estimated_cycles\":1000,\"simulated_cycles\":1250,"
       "\"simulated_units\":{\"dma\":900,\"compute\":500,\"overlap\":300}},"
       "{\"job\":1,\"jobs\":3,\"estimated_cycles\":990,\"simulated_cycles\":900}]},");
  line(&j, "s+b", "passed", "null",
       "\"reconciliation\":{\"clock_hz\":800000000,\"programs\":[{\"job\":0,"
       "\"operators\":[\"tosa.conv2d@L9\"],\"estimated_cycles\":800,\"device_us\":2}]},");
  line(&j, "s+c", "passed", "null", "");
  char *p = th_path(dir, "journal.jsonl");
  th_write(p, j.data);
  free(p);
  tq_buf_deinit(&j);
  TH_OK(tqh_html_report_write(dir, NULL, NULL, NULL));
  p = th_path(dir, TQH_HTML_REPORT_FILE);
  char *html = th_read(p, NULL);
  ck_assert_ptr_nonnull(strstr(html,
                               "Estimate against measurement: 3 layers (5 NSS programs), "
                               "|estimate "
                               "&minus; measured| / measured: median 20.0%, 90th "
                               "percentile 50.0%."));
  ck_assert_uint_eq(count(html, "<h3>Estimate against measurement</h3>"), 2);
  /* A pipeline's three programs are one row, its jobs a range. */
  ck_assert_ptr_nonnull(strstr(html, "<tr><td class=\"n\">1&ndash;3</td><td></td>"));
  ck_assert_ptr_nonnull(
      strstr(html,
             "<tr><td class=\"n\">0</td><td>tosa.rescale@L4 tosa.add@L5"
             "</td><td>loc(&quot;m.mlir&quot;:4:5)</td><td class=\"n\">"
             "1000</td><td class=\"n\">1250</td><td class=\"n\">600</td>"
             "<td class=\"n\">300</td><td class=\"n\">200</td><td class=\"n\"></td>"
             "<td class=\"n\">20.0%</td></tr>"));
  ck_assert_ptr_nonnull(strstr(html,
                               "<td class=\"n\">800</td><td class=\"n\"></td><td class=\"n\"></td>"
                               "<td class=\"n\"></td><td class=\"n\"></td>"
                               "<td class=\"n\">2.000\xC2\xB5s</td><td class=\"n\">50.0%"));
  free(html);
  free(p);
  th_rmtree(dir);
}
END_TEST

START_TEST(a_run_without_journal_is_not_found) {
  char *dir = th_tmpdir();
  tq_status_t st = tqh_html_report_write(dir, NULL, NULL, NULL);
  ck_assert_int_eq(tq_status_code(st), TQ_NOT_FOUND);
  tq_status_free(st);
  char *p = th_path(dir, TQH_HTML_REPORT_FILE);
  ck_assert(access(p, F_OK) != 0);
  free(p);
  th_rmtree(dir);
}
END_TEST

/* Given the records the run holds, the page is the one written from its journal, and the journal
 * is not read: the run's records are the journal's lines read back. */
START_TEST(a_page_from_records_in_hand_is_the_page_from_the_journal) {
  char *dir = make_run();
  TH_OK(tqh_html_report_write(dir, NULL, "../trends.html", NULL));
  char *from_journal = page_of(dir);
  char *journal = th_path(dir, "journal.jsonl");
  tqh_records_t records;
  tqh_records_init(&records);
  tqh_journal_read_t info;
  TH_OK(tqh_journal_read(journal, &records, NULL, &info));
  ck_assert_uint_eq(records.count, 4);
  ck_assert_int_eq(unlink(journal), 0);
  char *page = th_path(dir, TQH_HTML_REPORT_FILE);
  ck_assert_int_eq(unlink(page), 0);
  TH_OK(tqh_html_report_write_records(dir, &records, NULL, "../trends.html", NULL));
  char *from_records = page_of(dir);
  ck_assert_str_eq(from_records, from_journal);
  /* Without them, the journal is what is missing. */
  tq_status_t st = tqh_html_report_write(dir, NULL, NULL, NULL);
  ck_assert_int_eq(tq_status_code(st), TQ_NOT_FOUND);
  tq_status_free(st);
  tqh_records_deinit(&records);
  free(from_records);
  free(from_journal);
  free(page);
  free(journal);
  th_rmtree(dir);
}
END_TEST

Suite *html_report_suite(void) {
  Suite *s = suite_create("html_report");
  TCase *tc = tcase_create("html_report");
  tcase_add_test(tc, escape_handles_markup_quotes_and_utf8);
  tcase_add_test(tc, tick_steps_are_one_two_or_five_times_a_power_of_ten);
  tcase_add_test(tc, timeline_coordinates_are_printfs_one_decimal_byte_for_byte);
  tcase_add_test(tc, every_test_has_a_row_and_a_section_and_a_corrupt_profile_is_a_note);
  tcase_add_test(tc, a_page_from_records_in_hand_is_the_page_from_the_journal);
  tcase_add_test(tc, tests_with_the_same_profile_share_one_drawing);
  tcase_add_test(tc, baseline_changes_are_shown_with_their_verdict);
  tcase_add_test(tc, sections_collapse_beyond_fifty_tests_but_failed_ones);
  tcase_add_test(tc, a_crowded_track_is_merged_under_the_cap);
  tcase_add_test(tc, reconciliation_is_a_table_per_test_and_a_line_for_the_run);
  tcase_add_test(tc, a_run_without_journal_is_not_found);
  suite_add_tcase(s, tc);
  return s;
}
