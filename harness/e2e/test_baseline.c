/* --baseline and `compare`: a run, the unchanged model again (passes), then a deliberately slower
 * model under the same test name (fails, naming the metrics and the changes: the simulated
 * OVERALL and the compiler's estimated_cycles). The noise band of wall times is covered
 * deterministically by harness/tests/test_baseline.c. */
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

/* The run folder named on the "Results: DIR/" line of a run's output (malloc'd). */
static char *run_of(const e2e_proc_t *p) {
  const char *r = strstr(p->out, "Results: ");
  ck_assert_msg(r != NULL, "no Results line:\n%s", p->out);
  r += 9;
  size_t n = strcspn(r, "\n");
  if (n && r[n - 1] == '/') n--;
  return strndup(r, n);
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
  char *base = run_of(&p);
  e2e_proc_free(&p);
  char cache[16];
  /* The compile-time estimate of one NSS add of 4 elements, in cycles; compiled (a miss). */
  unsigned long long base_cycles = estimate_of(base, cache, sizeof(cache));
  ck_assert_str_eq(cache, "miss");
  ck_assert_uint_eq(base_cycles, 229); /* 3 transfers of 40 cycles of set-up */
  char *opt = e2e_path("--baseline=%s", base);
  /* Host wall times of a 4-element add vary a lot between processes: a wide floor, which the
   * simulated OVERALL of the slower model still exceeds. */
  const char *floor = "--baseline-floor=150";

  e2e_run(&s, e2e_top(), NULL, (const char *const[]){suite, opt, floor, NULL}, &p);
  ck_assert_msg(p.exit_code == 0, "unchanged model: exit %d\n%s%s", p.exit_code, p.out, p.err);
  char *same = run_of(&p);
  char *junit = e2e_path("%s/junit.xml", same);
  char *text = e2e_read(junit);
  ck_assert_ptr_nonnull(strstr(text, "name=\"baseline\""));
  ck_assert_msg(strstr(text, "<property name=\"estimated_cycles\" value=\"229\"/>") != NULL, "%s",
                text);
  free(text);
  free(junit);
  e2e_proc_free(&p);
  /* From the cache, the same estimate (the module carries it). */
  ck_assert_uint_eq(estimate_of(same, cache, sizeof(cache)), base_cycles);
  ck_assert_str_eq(cache, "hit");

  e2e_run(&s, e2e_top(), NULL, (const char *const[]){slow_suite, opt, floor, NULL}, &p);
  ck_assert_msg(p.exit_code == 1, "slower model: exit %d\n%s%s", p.exit_code, p.out, p.err);
  char *worse = run_of(&p);
  e2e_proc_free(&p);
  junit = e2e_path("%s/junit.xml", worse);
  text = e2e_read(junit);
  ck_assert_ptr_nonnull(text);
  ck_assert_msg(strstr(text, "type=\"regression\"") != NULL, "%s", text);
  /* OVERALL spans the work units: the add's one NSS program, 2 µs of simulated time. */
  ck_assert_msg(strstr(text, "OVERALL: baseline 2 us, now ") != NULL, "%s", text);
  ck_assert_msg(strstr(text, "%, threshold 150.0%)") != NULL, "%s", text);
  unsigned long long worse_cycles = estimate_of(worse, cache, sizeof(cache));
  ck_assert_uint_gt(worse_cycles, base_cycles * 5 / 2);
  char *named = e2e_path("estimated_cycles: baseline %llu cycles, now %llu cycles (+", base_cycles,
                         worse_cycles);
  ck_assert_msg(strstr(text, named) != NULL, "%s\n%s", named, text);
  free(named);
  free(text);
  free(junit);

  /* The test's own floor (3000%, over the suite's 2000% and the built-in 5%): OVERALL +1450% is
   * within it, the estimate is not. */
  e2e_run(&s, e2e_top(), NULL, (const char *const[]){floor_suite, opt, NULL}, &p);
  ck_assert_msg(p.exit_code == 1, "test floor: exit %d\n%s%s", p.exit_code, p.out, p.err);
  char *floored = run_of(&p);
  e2e_proc_free(&p);
  junit = e2e_path("%s/junit.xml", floored);
  text = e2e_read(junit);
  ck_assert_msg(strstr(text, "threshold 3000.0%)") != NULL, "%s", text);
  ck_assert_msg(strstr(text, "regression: OVERALL") == NULL && strstr(text, "; OVERALL") == NULL,
                "%s", text);
  ck_assert_msg(strstr(text, "estimated_cycles: baseline 229 cycles, now ") != NULL, "%s", text);
  free(text);
  free(junit);
  free(floored);

  /* compare: the same table for the finished runs; exit 1 when B regressed. */
  e2e_run(&s, e2e_top(), NULL, (const char *const[]){"compare", base, worse, NULL}, &p);
  ck_assert_msg(p.exit_code == 1, "exit %d\n%s%s", p.exit_code, p.out, p.err);
  ck_assert_ptr_nonnull(strstr(p.out, "OVERALL"));
  ck_assert_ptr_nonnull(strstr(p.out, "REGRESSED"));
  const char *row = strstr(p.out, "estimated_cycles");
  ck_assert_msg(row != NULL, "%s", p.out);
  ck_assert_msg(strstr(row, "229 cycles") && strstr(row, "REGRESSED") &&
                    strstr(row, "REGRESSED") < strchr(row, '\n'),
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
