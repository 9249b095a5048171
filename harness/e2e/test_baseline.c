/* --baseline and `compare`: a run, the unchanged model again (passes), then a deliberately slower
 * model under the same test name (fails, naming the metrics and the changes: the simulated
 * OVERALL and the compiler's estimated_cycles). The statistics of measured times are covered
 * deterministically by harness/tests/test_baseline.c; the acceptance runs (20 models under a CPU
 * hog, a 10% heavier model) by test_verdicts.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e.h"

/* A slower variant of e2e_write_add_model: 12288 elements and a second add (one fused NSS
 * program: OVERALL about 3.4 times the add's). */
static void write_slow_model(const char *path) {
  e2e_write(path,
            "module {\n"
            "  func.func @main(%arg0: tensor<12288xi32>, %arg1: tensor<12288xi32>) -> "
            "tensor<12288xi32> {\n"
            "    %0 = tosa.add %arg0, %arg1 : (tensor<12288xi32>, tensor<12288xi32>) -> "
            "tensor<12288xi32>\n"
            "    %1 = tosa.add %0, %arg1 : (tensor<12288xi32>, tensor<12288xi32>) -> "
            "tensor<12288xi32>\n"
            "    return %1 : tensor<12288xi32>\n"
            "  }\n"
            "}\n");
}

/* The "estimated_cycles" of test b+a's report.json in `run`, and its cache line. */
static unsigned long long estimate_of(const char *run, char *cache, size_t cache_size) {
  char *path = e2e_path("%s/b+a/report.json", run);
  char *text = e2e_read(path);
  ck_assert_msg(text != NULL, "no %s", path);
  const char *e = strstr(text, "\"estimated_cycles\": ");
  ck_assert_msg(e != NULL, "%s", text);
  unsigned long long cycles = strtoull(e + 20, NULL, 10);
  const char *c = strstr(text, "\"cache\": \"");
  ck_assert_msg(c != NULL, "%s", text);
  snprintf(cache, cache_size, "%.*s", (int)strcspn(c + 10, "\""), c + 10);
  free(text);
  free(path);
  return cycles;
}

/* The line of `metric` in a failure message inside junit.xml (its lines are separated by the
 * character reference &#10;), or "" (malloc'd). */
static char *row_of(const char *xml, const char *metric) {
  char *needle = e2e_path("&#10;  %s ", metric);
  const char *r = strstr(xml, needle);
  free(needle);
  if (!r) return strdup("");
  r += 7;
  const char *end = strstr(r, "&#10;");
  const char *quote = strchr(r, '"');
  if (!end || (quote && quote < end)) end = quote;
  return strndup(r, end ? (size_t)(end - r) : strlen(r));
}

/* Whether `row` holds every one of the NULL-terminated `words`. */
static int row_has(const char *row, const char *const *words) {
  for (; *words; words++)
    if (!strstr(row, *words)) return 0;
  return 1;
}

START_TEST(slower_model_regresses_unchanged_passes) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  char *model = e2e_path("%s/add.mlir", s.dir), *slow = e2e_path("%s/slow.mlir", s.dir);
  e2e_write_add_model(model);
  write_slow_model(slow);
  char *suite = e2e_path("%s/b.yaml", s.dir), *slow_suite = e2e_path("%s/slow/b.yaml", s.dir);
  char *floor_suite = e2e_path("%s/floor/b.yaml", s.dir);
  e2e_write(suite, "suite: b\ntests:\n  - name: a\n    model: add.mlir\n    repeat: 5\n");
  e2e_write(slow_suite, "suite: b\ntests:\n  - name: a\n    model: ../slow.mlir\n    repeat: 5\n");
  e2e_write(floor_suite,
            "suite: b\ndefaults:\n  baseline: {floor: 2000}\ntests:\n  - name: a\n"
            "    model: ../slow.mlir\n    repeat: 5\n    baseline: {floor: 3000}\n");
  e2e_proc_t p;
  e2e_run(&s, e2e_top(), NULL, (const char *const[]){suite, NULL}, &p);
  ck_assert_msg(p.exit_code == 0, "%s%s", p.out, p.err);
  char *base = e2e_run_folder(&p);
  e2e_proc_free(&p);
  char cache[16];
  /* The compile-time estimate of one NSS add of 4 elements, in cycles; compiled (a miss). */
  unsigned long long base_cycles = estimate_of(base, cache, sizeof(cache));
  ck_assert_str_eq(cache, "miss");
  ck_assert_uint_eq(base_cycles, 197); /* 3 transfers of 40 cycles of set-up, 3 stages */
  char *opt = e2e_path("--baseline=%s", base);
  /* Host wall times of a 4-element add vary a lot between processes: on the simulator they are
   * shown, not gated, so even a wide floor (which the simulated OVERALL of the slower model
   * still exceeds) is only about the deterministic metrics. */
  const char *floor = "--baseline-floor=150";

  e2e_run(&s, e2e_top(), NULL, (const char *const[]){suite, opt, floor, NULL}, &p);
  ck_assert_msg(p.exit_code == 0, "unchanged model: exit %d\n%s%s", p.exit_code, p.out, p.err);
  char *same = e2e_run_folder(&p);
  char *junit = e2e_path("%s/junit.xml", same);
  char *text = e2e_read(junit);
  ck_assert_ptr_nonnull(strstr(text, "name=\"baseline\""));
  ck_assert_msg(strstr(text, "<property name=\"estimated_cycles\" value=\"197\"/>") != NULL, "%s",
                text);
  free(text);
  free(junit);
  e2e_proc_free(&p);
  /* From the cache, the same estimate (the module carries it). */
  ck_assert_uint_eq(estimate_of(same, cache, sizeof(cache)), base_cycles);
  ck_assert_str_eq(cache, "hit");

  e2e_run(&s, e2e_top(), NULL, (const char *const[]){slow_suite, opt, floor, NULL}, &p);
  ck_assert_msg(p.exit_code == 1, "slower model: exit %d\n%s%s", p.exit_code, p.out, p.err);
  char *worse = e2e_run_folder(&p);
  e2e_proc_free(&p);
  junit = e2e_path("%s/junit.xml", worse);
  text = e2e_read(junit);
  ck_assert_ptr_nonnull(text);
  ck_assert_msg(strstr(text, "type=\"regression\"") != NULL, "%s", text);
  /* OVERALL spans the work units: the add's three NSS programs (load, compute, store), 2 µs of
   * simulated time each (its start and wait on the host, 1 µs each, and a few cycles).
   * The message: what regressed, then a line per changed metric (in the XML attribute, its
   * newlines are character references). */
  ck_assert_msg(strstr(text, "message=\"regression: OVERALL +") != NULL, "%s", text);
  char *row = row_of(text, "OVERALL");
  ck_assert_msg(row_has(row, (const char *[]){"6.000µs", "37.000µs", "+516.7%", "REGRESSED",
                                              "beyond the floor 150.0% (deterministic)", NULL}),
                "OVERALL: '%s'", row);
  free(row);
  unsigned long long worse_cycles = estimate_of(worse, cache, sizeof(cache));
  ck_assert_uint_gt(worse_cycles, base_cycles * 5 / 2);
  char *b = e2e_path("%llu cycles", base_cycles), *w = e2e_path("%llu cycles", worse_cycles);
  row = row_of(text, "estimated_cycles");
  ck_assert_msg(row_has(row, (const char *[]){b, w, "REGRESSED", NULL}), "'%s'", row);
  free(row);
  free(b);
  free(w);
  free(text);
  free(junit);

  /* The test's own floor (3000%, over the suite's 2000% and the built-in 5%): OVERALL +1550% is
   * within it, the estimate is not. */
  e2e_run(&s, e2e_top(), NULL, (const char *const[]){floor_suite, opt, NULL}, &p);
  ck_assert_msg(p.exit_code == 1, "test floor: exit %d\n%s%s", p.exit_code, p.out, p.err);
  char *floored = e2e_run_folder(&p);
  e2e_proc_free(&p);
  junit = e2e_path("%s/junit.xml", floored);
  text = e2e_read(junit);
  ck_assert_msg(strstr(text, "within the floor 3000.0% (deterministic)") != NULL, "%s", text);
  ck_assert_msg(strstr(text, "regression: OVERALL") == NULL && strstr(text, ", OVERALL") == NULL,
                "%s", text);
  ck_assert_msg(strstr(text, "message=\"regression: ") && strstr(text, "estimated_cycles +"), "%s",
                text);
  row = row_of(text, "estimated_cycles");
  ck_assert_msg(row_has(row, (const char *[]){"197 cycles", "REGRESSED", NULL}), "'%s'", row);
  free(row);
  free(text);
  free(junit);
  free(floored);

  /* compare: the same table for the finished runs; exit 1 when B regressed. */
  e2e_run(&s, e2e_top(), NULL, (const char *const[]){"compare", base, worse, NULL}, &p);
  ck_assert_msg(p.exit_code == 1, "exit %d\n%s%s", p.exit_code, p.out, p.err);
  ck_assert_ptr_nonnull(strstr(p.out, "OVERALL"));
  ck_assert_ptr_nonnull(strstr(p.out, "REGRESSED"));
  const char *line = strstr(p.out, "estimated_cycles");
  ck_assert_msg(line != NULL, "%s", p.out);
  ck_assert_msg(strstr(line, "197 cycles") && strstr(line, "REGRESSED") &&
                    strstr(line, "REGRESSED") < strchr(line, '\n'),
                "%s", p.out);
  e2e_proc_free(&p);
  e2e_run(&s, e2e_top(), NULL, (const char *const[]){"compare", base, same, floor, NULL}, &p);
  ck_assert_msg(p.exit_code == 0, "exit %d\n%s%s", p.exit_code, p.out, p.err);
  ck_assert_ptr_nonnull(strstr(p.out, "1 test compared: 0 regressed"));
  e2e_proc_free(&p);

  /* A baseline that is not a run is a usage error. */
  e2e_run(&s, e2e_top(), NULL, (const char *const[]){suite, "--baseline=/nonexistent", NULL}, &p);
  ck_assert_msg(p.exit_code == 2, "exit %d\n%s%s", p.exit_code, p.out, p.err);
  e2e_proc_free(&p);

  free(base);
  free(same);
  free(worse);
  free(opt);
  free(suite);
  free(slow_suite);
  free(floor_suite);
  free(model);
  free(slow);
  e2e_scratch_free(&s);
}
END_TEST

Suite *e2e_suite_baseline(void) {
  Suite *s = suite_create("baseline");
  TCase *tc = tcase_create("baseline");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, slower_model_regresses_unchanged_passes);
  suite_add_tcase(s, tc);
  return s;
}
