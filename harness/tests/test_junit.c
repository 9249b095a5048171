/* JUnit XML: the exact document of a small run, the outcome mapping and counts, XML escaping,
 * and Debian's junitparser reading what we write. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "results/results_internal.h"
#include "results_testutil.h"
#include "torq/base/alloc.h"
#include "torq/harness/junit.h"
#include "tq_test.h"

Suite *junit_suite(void);

static const double conv_samples[] = {0.21, 0.207123, 0.2};
static const tqh_record_metric_t conv_metrics[] = {{"OVERALL", 12845, NULL},
                                                    {"Dma Only", 453.5, NULL}};
static const tqh_property_t conv_props[] = {{"tags", "conv smoke"}};
static const char *const conv_files[] = {"profile.pb", "stdout.txt"};

/* Three tests in two suites: smoke/conv passed, tosa/add failed, smoke/pool skipped. */
static void small_run(tqh_test_record_t r[3]) {
  memset(r, 0, 3 * sizeof(*r));
  r[0].id = "conv";
  r[0].name = "conv";
  r[0].classname = "smoke";
  r[0].host = "builder";
  r[0].outcome = TQH_OUTCOME_PASSED;
  r[0].started_at = 1796223301.25; /* 2026-12-02T14:55:01Z */
  r[0].duration_s = 0.5;
  r[0].has_wall_time = 1;
  r[0].wall_time_s = 0.207123;
  r[0].wall_samples = conv_samples;
  r[0].wall_sample_count = 3;
  RT_OK(tqh_stats_compute(conv_samples, 3, &r[0].wall_stats));
  r[0].cache = TQH_CACHE_HIT;
  r[0].run_s = 0.45;
  r[0].metrics = conv_metrics;
  r[0].metric_count = 2;
  r[0].properties = conv_props;
  r[0].property_count = 1;
  r[0].files = conv_files;
  r[0].file_count = 2;

  r[1].id = "add";
  r[1].name = "add";
  r[1].classname = "tosa";
  r[1].outcome = TQH_OUTCOME_FAILED;
  r[1].message = "mismatch: 3 != 4";
  r[1].failure_type = "mismatch";
  r[1].text = "out[0] = 3, expected 4";
  r[1].started_at = 1796223302;
  r[1].duration_s = 0.25;
  r[1].has_wall_time = 1;
  r[1].wall_time_s = 0.1;
  static const double one[] = {0.1};
  RT_OK(tqh_stats_compute(one, 1, &r[1].wall_stats));
  r[1].cache = TQH_CACHE_MISS;
  r[1].compile_s = 0.125;
  r[1].run_s = 0.1;

  r[2].id = "pool";
  r[2].name = "pool";
  r[2].classname = "smoke";
  r[2].outcome = TQH_OUTCOME_SKIPPED;
  r[2].message = "needs a board";
  r[2].started_at = 1796223300;
}

static const char small_xml[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<testsuites name=\"torq-test\" tests=\"3\" failures=\"1\" errors=\"0\" skipped=\"1\" "
    "time=\"0.750000\">\n"
    "  <testsuite name=\"smoke\" tests=\"2\" failures=\"0\" errors=\"0\" skipped=\"1\" "
    "time=\"0.500000\" timestamp=\"2026-12-02T14:55:00\" hostname=\"builder\">\n"
    "    <testcase classname=\"smoke\" name=\"conv\" time=\"0.500000\">\n"
    "      <properties>\n"
    "        <property name=\"outcome\" value=\"passed\"/>\n"
    "        <property name=\"wall_time\" value=\"0.207123000\"/>\n"
    "        <property name=\"wall_time_n\" value=\"3\"/>\n"
    "        <property name=\"wall_time_min\" value=\"0.200000000\"/>\n"
    "        <property name=\"wall_time_median\" value=\"0.207123000\"/>\n"
    "        <property name=\"wall_time_mean\" value=\"0.205707667\"/>\n"
    "        <property name=\"wall_time_stddev\" value=\"0.005148046\"/>\n"
    "        <property name=\"wall_time_mad\" value=\"0.002877000\"/>\n"
    "        <property name=\"wall_time_ci95_low\" value=\"0.192919211\"/>\n"
    "        <property name=\"wall_time_ci95_high\" value=\"0.218496122\"/>\n"
    "        <property name=\"cache\" value=\"hit\"/>\n"
    "        <property name=\"compile_time\" value=\"0.000000000\"/>\n"
    "        <property name=\"run_time\" value=\"0.450000000\"/>\n"
    "        <property name=\"overview.OVERALL_us\" value=\"12845\"/>\n"
    "        <property name=\"overview.Dma Only_us\" value=\"453.5\"/>\n"
    "        <property name=\"tags\" value=\"conv smoke\"/>\n"
    "      </properties>\n"
    "      <system-out>outcome: passed\n"
    "Wall time: 207.123ms (median of 3; min 200.000ms, mean 205.708ms, stddev 5.148ms, MAD "
    "2.877ms, 95% CI [192.919ms, 218.496ms])\n"
    "Compile: 0ns (cache hit), run: 450.000ms, total: 500.000ms\n"
    "OVERALL: 12.845ms\n"
    "[[ATTACHMENT|/runs/r1/conv/profile.pb]]\n"
    "[[ATTACHMENT|/runs/r1/conv/stdout.txt]]\n"
    "</system-out>\n"
    "    </testcase>\n"
    "    <testcase classname=\"smoke\" name=\"pool\" time=\"0.000000\">\n"
    "      <properties>\n"
    "        <property name=\"outcome\" value=\"skipped\"/>\n"
    "        <property name=\"cache\" value=\"none\"/>\n"
    "        <property name=\"compile_time\" value=\"0.000000000\"/>\n"
    "        <property name=\"run_time\" value=\"0.000000000\"/>\n"
    "      </properties>\n"
    "      <skipped message=\"needs a board\" type=\"skipped\"/>\n"
    "      <system-out>outcome: skipped\n"
    "Compile: 0ns (cache none), run: 0ns, total: 0ns\n"
    "</system-out>\n"
    "    </testcase>\n"
    "  </testsuite>\n"
    "  <testsuite name=\"tosa\" tests=\"1\" failures=\"1\" errors=\"0\" skipped=\"0\" "
    "time=\"0.250000\" timestamp=\"2026-12-02T14:55:02\" hostname=\"ci-host\">\n"
    "    <testcase classname=\"tosa\" name=\"add\" time=\"0.250000\">\n"
    "      <properties>\n"
    "        <property name=\"outcome\" value=\"failed\"/>\n"
    "        <property name=\"wall_time\" value=\"0.100000000\"/>\n"
    "        <property name=\"wall_time_n\" value=\"1\"/>\n"
    "        <property name=\"wall_time_min\" value=\"0.100000000\"/>\n"
    "        <property name=\"wall_time_median\" value=\"0.100000000\"/>\n"
    "        <property name=\"wall_time_mean\" value=\"0.100000000\"/>\n"
    "        <property name=\"wall_time_stddev\" value=\"0.000000000\"/>\n"
    "        <property name=\"wall_time_mad\" value=\"0.000000000\"/>\n"
    "        <property name=\"wall_time_ci95_low\" value=\"0.100000000\"/>\n"
    "        <property name=\"wall_time_ci95_high\" value=\"0.100000000\"/>\n"
    "        <property name=\"cache\" value=\"miss\"/>\n"
    "        <property name=\"compile_time\" value=\"0.125000000\"/>\n"
    "        <property name=\"run_time\" value=\"0.100000000\"/>\n"
    "      </properties>\n"
    "      <failure message=\"mismatch: 3 != 4 (wall time 100.000ms)\" type=\"mismatch\">"
    "out[0] = 3, expected 4</failure>\n"
    "      <system-out>outcome: failed\n"
    "Wall time: 100.000ms\n"
    "Compile: 125.000ms (cache miss), run: 100.000ms, total: 250.000ms\n"
    "</system-out>\n"
    "    </testcase>\n"
    "  </testsuite>\n"
    "</testsuites>\n";

START_TEST(junit_of_a_small_run_is_exactly_as_expected) {
  tqh_test_record_t r[3];
  small_run(r);
  tqh_junit_options_t o;
  tqh_junit_options_initialize(&o);
  o.hostname = "ci-host";
  o.run_dir = "/runs/r1";
  tq_buf_t out;
  tq_buf_init(&out, 0);
  RT_OK(tqh_junit_render(r, 3, &o, &out));
  if (strcmp(out.data, small_xml) != 0) {
    size_t i = 0;
    while (out.data[i] && out.data[i] == small_xml[i]) i++;
    ck_abort_msg("differs at byte %zu:\n%s", i, out.data + (i > 40 ? i - 40 : 0));
  }
  tq_buf_deinit(&out);
}
END_TEST

START_TEST(junit_of_no_tests_is_an_empty_testsuites) {
  tq_buf_t out;
  tq_buf_init(&out, 0);
  RT_OK(tqh_junit_render(NULL, 0, NULL, &out));
  ck_assert_str_eq(out.data, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                             "<testsuites name=\"torq-test\" tests=\"0\" failures=\"0\" "
                             "errors=\"0\" skipped=\"0\" time=\"0.000000\">\n</testsuites>\n");
  tq_buf_deinit(&out);
}
END_TEST

/* One record per outcome, suites interleaved (a, b, a, ...): the verdict element of each. */
static void every_outcome(tqh_test_record_t r[TQH_OUTCOME_COUNT], char names[][16]) {
  memset(r, 0, TQH_OUTCOME_COUNT * sizeof(*r));
  for (int i = 0; i < TQH_OUTCOME_COUNT; i++) {
    snprintf(names[i], 16, "t%d", i);
    r[i].id = names[i];
    r[i].name = names[i];
    r[i].classname = i % 2 ? "b" : "a";
    r[i].outcome = (tqh_outcome_t)i;
    r[i].duration_s = 1;
  }
}

START_TEST(junit_maps_each_outcome_to_its_element) {
  tqh_test_record_t r[TQH_OUTCOME_COUNT];
  char names[TQH_OUTCOME_COUNT][16];
  every_outcome(r, names);
  r[TQH_OUTCOME_XFAILED].message = "known bug #12";
  tq_buf_t out;
  tq_buf_init(&out, 0);
  RT_OK(tqh_junit_render(r, TQH_OUTCOME_COUNT, NULL, &out));
  const char *x = out.data;
  ck_assert_ptr_nonnull(strstr(x, "<testsuites name=\"torq-test\" tests=\"7\" failures=\"1\" "
                                  "errors=\"1\" skipped=\"3\" time=\"7.000000\">"));
  /* a: passed(0) error(2) xfailed(4) not_run(6); b: failed(1) skipped(3) xpassed(5). */
  ck_assert_ptr_nonnull(strstr(x, "<testsuite name=\"a\" tests=\"4\" failures=\"0\" errors=\"1\" "
                                  "skipped=\"2\" time=\"4.000000\" hostname=\"localhost\">"));
  ck_assert_ptr_nonnull(strstr(x, "<testsuite name=\"b\" tests=\"3\" failures=\"1\" errors=\"0\" "
                                  "skipped=\"1\" time=\"3.000000\" hostname=\"localhost\">"));
  ck_assert(strstr(x, "name=\"a\"") < strstr(x, "name=\"b\""));
  ck_assert(strstr(x, "name=\"t2\"") < strstr(x, "name=\"t4\""));
  ck_assert_ptr_nonnull(strstr(x, "<failure message=\"failed\" type=\"failure\">failed</failure>"));
  ck_assert_ptr_nonnull(strstr(x, "<error message=\"error\" type=\"error\">error</error>"));
  ck_assert_ptr_nonnull(strstr(x, "<skipped message=\"skipped\" type=\"skipped\"/>"));
  ck_assert_ptr_nonnull(strstr(x, "<skipped message=\"known bug #12\" type=\"xfailed\"/>"));
  ck_assert_ptr_nonnull(strstr(x, "<skipped message=\"not run\" type=\"not_run\"/>"));
  ck_assert_ptr_nonnull(strstr(x, "<property name=\"outcome\" value=\"xpassed\"/>"));
  /* No attachments without a run folder. */
  ck_assert_ptr_null(strstr(x, "ATTACHMENT"));
  tq_buf_deinit(&out);
}
END_TEST

static const struct {
  const char *in;
  size_t len; /* 0: strlen */
  const char *text, *attr;
} escapes[] = {
    {"plain", 0, "plain", "plain"},
    {"a<b>&\"'", 0, "a&lt;b&gt;&amp;&quot;&apos;", "a&lt;b&gt;&amp;&quot;&apos;"},
    {"tab\tnl\ncr\r", 0, "tab\tnl\ncr&#13;", "tab&#9;nl&#10;cr&#13;"},
    {"bell\x07" "esc\x1b" "del\x7f", 0, "bell\xef\xbf\xbd" "esc\xef\xbf\xbd" "del\xef\xbf\xbd",
     "bell\xef\xbf\xbd" "esc\xef\xbf\xbd" "del\xef\xbf\xbd"},
    {"nul\0x", 5, "nul\xef\xbf\xbdx", "nul\xef\xbf\xbdx"},
    {"caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80", 0, "caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80",
     "caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80"},
    {"bad\xff\xc3(", 0, "bad\xef\xbf\xbd\xef\xbf\xbd(", "bad\xef\xbf\xbd\xef\xbf\xbd("},
    {"surrogate\xed\xa0\x80", 0, "surrogate\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd",
     "surrogate\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"},
    {"nonchar\xef\xbf\xbf", 0, "nonchar\xef\xbf\xbd", "nonchar\xef\xbf\xbd"},
    {"c1\xc2\x85", 0, "c1\xc2\x85", "c1\xc2\x85"},
    {"]]>", 0, "]]&gt;", "]]&gt;"},
};

START_TEST(xml_escape_handles_entities_controls_and_bad_utf8) {
  size_t len = escapes[_i].len ? escapes[_i].len : strlen(escapes[_i].in);
  for (int attribute = 0; attribute < 2; attribute++) {
    tq_buf_t out;
    tq_buf_init(&out, 0);
    RT_OK(tqh_xml_escape(escapes[_i].in, len, attribute, &out));
    ck_assert_str_eq(out.data ? out.data : "", attribute ? escapes[_i].attr : escapes[_i].text);
    tq_buf_deinit(&out);
  }
}
END_TEST

START_TEST(junit_escapes_names_and_messages) {
  tqh_test_record_t r;
  memset(&r, 0, sizeof(r));
  r.id = "q";
  r.name = "say \"hi\" <&> \x01";
  r.classname = "suite's";
  r.outcome = TQH_OUTCOME_ERROR;
  r.message = "crash\nsignal 11";
  r.text = "stack:\n  #0 <main>\x02";
  tq_buf_t out;
  tq_buf_init(&out, 0);
  RT_OK(tqh_junit_render(&r, 1, NULL, &out));
  ck_assert_ptr_nonnull(strstr(out.data, "<testsuite name=\"suite&apos;s\""));
  ck_assert_ptr_nonnull(strstr(out.data, "name=\"say &quot;hi&quot; &lt;&amp;&gt; \xef\xbf\xbd\""));
  ck_assert_ptr_nonnull(strstr(out.data, "<error message=\"crash&#10;signal 11\" type=\"error\">"
                                         "stack:\n  #0 &lt;main&gt;\xef\xbf\xbd</error>"));
  tq_buf_deinit(&out);
}
END_TEST

/* Runs Debian's junitparser on `path` and returns what it printed (heap), or NULL after
 * tq_test_missing when Python or junitparser is missing. */
static char *junitparser_read(const char *path) {
  const char *python = tq_test_python_module("junitparser", "python3-junitparser");
  if (!python) return NULL;
  char cmd[8192];
  snprintf(cmd, sizeof cmd,
           "'%s' - '%s' <<'EOF'\n"
           "import sys\n"
           "from junitparser import JUnitXml, Failure, Error, Skipped\n"
           "xml = JUnitXml.fromfile(sys.argv[1])\n"
           "n = f = e = s = 0\n"
           "for suite in xml:\n"
           "    print('suite', suite.name, suite.tests, suite.failures, suite.errors, suite.skipped)\n"
           "    for case in suite:\n"
           "        n += 1\n"
           "        kinds = [type(x).__name__ for x in case.result]\n"
           "        f += 'Failure' in kinds; e += 'Error' in kinds; s += 'Skipped' in kinds\n"
           "        print('case', repr(case.classname), repr(case.name), ','.join(kinds))\n"
           "print('attrs', xml.tests, xml.failures, xml.errors, xml.skipped)\n"
           "print('cases', n, f, e, s)\n"
           "EOF\n",
           python, path);
  FILE *p = popen(cmd, "r");
  ck_assert_ptr_nonnull(p);
  tq_buf_t out;
  tq_buf_init(&out, 0);
  char chunk[4096];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, p)) > 0) RT_OK(tq_buf_append(&out, chunk, n));
  int rc = pclose(p);
  ck_assert_msg(WIFEXITED(rc) && WEXITSTATUS(rc) == 0, "junitparser failed: %s",
                out.data ? out.data : "");
  char *s = tq_buf_detach(&out);
  tq_buf_deinit(&out);
  return s;
}

START_TEST(junitparser_reads_our_counts_and_cases) {
  tqh_test_record_t r[TQH_OUTCOME_COUNT];
  char names[TQH_OUTCOME_COUNT][16];
  every_outcome(r, names);
  /* Hostile text in every field junitparser reads. */
  r[0].name = "quote\" apos' lt< amp& \x01\x1f ctl";
  r[1].message = "multi\nline \"message\" \x0b";
  r[1].text = "]]> <![CDATA[ x ]]>";
  r[2].classname = "b";
  tq_buf_t xml;
  tq_buf_init(&xml, 0);
  RT_OK(tqh_junit_render(r, TQH_OUTCOME_COUNT, NULL, &xml));
  char *dir = rt_tmpdir();
  char *path = rt_path(dir, "junit.xml");
  RT_OK(tq_file_write_atomic(path, xml.data, xml.len));
  char *seen = junitparser_read(path);
  if (seen) {
    /* a: passed, xfailed, not_run; b: failed, error, skipped, xpassed. */
    ck_assert_ptr_nonnull(strstr(seen, "suite a 3 0 0 2\n"));
    ck_assert_ptr_nonnull(strstr(seen, "suite b 4 1 1 1\n"));
    ck_assert_ptr_nonnull(strstr(seen, "attrs 7 1 1 3\n"));
    ck_assert_ptr_nonnull(strstr(seen, "cases 7 1 1 3\n"));
    ck_assert_msg(strstr(seen, "case 'a' 'quote\" apos\\' lt< amp& \xef\xbf\xbd\xef\xbf\xbd ctl' \n") !=
                      NULL, "%s", seen);
    ck_assert_ptr_nonnull(strstr(seen, "case 'b' 't1' Failure\n"));
    ck_assert_ptr_nonnull(strstr(seen, "case 'b' 't2' Error\n"));
    ck_assert_ptr_nonnull(strstr(seen, "case 'a' 't6' Skipped\n"));
    tq_free(seen);
  }
  free(path);
  rt_tmpdir_remove(dir);
  tq_buf_deinit(&xml);
}
END_TEST

Suite *junit_suite(void) {
  Suite *s = suite_create("junit");
  TCase *tc = tcase_create("junit");
  tcase_add_test(tc, junit_of_a_small_run_is_exactly_as_expected);
  tcase_add_test(tc, junit_of_no_tests_is_an_empty_testsuites);
  tcase_add_test(tc, junit_maps_each_outcome_to_its_element);
  tcase_add_loop_test(tc, xml_escape_handles_entities_controls_and_bad_utf8, 0,
                      (int)(sizeof(escapes) / sizeof(escapes[0])));
  tcase_add_test(tc, junit_escapes_names_and_messages);
  tcase_add_test(tc, junitparser_reads_our_counts_and_cases);
  tcase_set_timeout(tc, 30);
  suite_add_tcase(s, tc);
  return s;
}
