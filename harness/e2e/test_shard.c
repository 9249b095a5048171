/* Sharding: --shard=K/N slices, CI_NODE_INDEX/CI_NODE_TOTAL, and `merge` of the shards. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e.h"

/* Nine tiny tests (one does not compile, so that outcomes differ). */
static char *write_nine(const e2e_scratch_t *s) {
  char *model = e2e_path("%s/add.mlir", s->dir);
  char *broken = e2e_path("%s/broken.mlir", s->dir);
  e2e_write_add_model(model);
  e2e_write_broken_model(broken);
  char *suite = e2e_path("%s/nine.yaml", s->dir);
  char text[2048];
  size_t n = (size_t)snprintf(text, sizeof(text), "suite: nine\ntests:\n");
  for (int i = 1; i <= 9; i++)
    n += (size_t)snprintf(text + n, sizeof(text) - n, "  - name: t%d\n    model: %s\n", i,
                          i == 5 ? "broken.mlir" : "add.mlir");
  e2e_write(suite, text);
  free(model);
  free(broken);
  return suite;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "classname/name=outcome" per <testcase> of a junit.xml, sorted, joined by newlines. */
static char *junit_cases(const char *path) {
  char *xml = e2e_read(path);
  ck_assert_msg(xml != NULL, "no %s", path);
  char *items[64];
  size_t n = 0;
  for (char *p = strstr(xml, "<testcase "); p; p = strstr(p + 1, "<testcase ")) {
    ck_assert_uint_lt(n, 64);
    char cls[256] = "", name[256] = "", outcome[64] = "";
    char *c = strstr(p, "classname=\""), *m = strstr(p, " name=\"");
    char *o = strstr(p, "<property name=\"outcome\" value=\"");
    ck_assert(c && m && o);
    sscanf(c + 11, "%255[^\"]", cls);
    sscanf(m + 7, "%255[^\"]", name);
    sscanf(o + 32, "%63[^\"]", outcome);
    items[n++] = e2e_path("%s/%s=%s", cls, name, outcome);
  }
  free(xml);
  qsort(items, n, sizeof(items[0]), cmp_str);
  size_t len = 1;
  for (size_t i = 0; i < n; i++) len += strlen(items[i]) + 1;
  char *out = calloc(1, len);
  for (size_t i = 0; i < n; i++) {
    strcat(out, items[i]);
    strcat(out, "\n");
    free(items[i]);
  }
  return out;
}

/* The run folder that appeared after `before` runs (list is sorted by id, so the newest is
 * not necessarily last: find the one not in `known`). */
static char *new_run(const e2e_scratch_t *s, char **known, size_t num_known) {
  for (int tries = 0; tries < 1; tries++) {
    char *cmd = e2e_path("ls -1 '%s'", s->results);
    FILE *p = popen(cmd, "r");
    free(cmd);
    ck_assert_ptr_nonnull(p);
    char line[512];
    char *found = NULL;
    while (fgets(line, sizeof(line), p)) {
      line[strcspn(line, "\n")] = 0;
      int seen = 0;
      for (size_t i = 0; i < num_known; i++) seen |= !strcmp(strrchr(known[i], '/') + 1, line);
      if (!seen && !found) found = e2e_path("%s/%s", s->results, line);
    }
    pclose(p);
    if (found) return found;
  }
  ck_abort_msg("no new run folder");
  return NULL;
}

START_TEST(shards_run_every_test_once_and_merge_equals_unsharded) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  char *suite = write_nine(&s);
  char *runs[5];
  size_t num_runs = 0;
  e2e_proc_t p;
  /* Unsharded. */
  e2e_run(&s, s.dir, NULL, (const char *const[]){suite, "-q", NULL}, &p);
  ck_assert_msg(p.exit_code == 1, "exit %d\n%s", p.exit_code, p.err);
  e2e_proc_free(&p);
  runs[num_runs] = new_run(&s, runs, num_runs);
  num_runs++;
  /* Three shards: each a third, together every test exactly once. */
  for (int k = 1; k <= 3; k++) {
    char opt[32];
    snprintf(opt, sizeof(opt), "--shard=%d/3", k);
    e2e_run(&s, s.dir, NULL, (const char *const[]){suite, opt, "-q", NULL}, &p);
    ck_assert_msg(p.exit_code == 0 || p.exit_code == 1, "%s: exit %d\n%s", opt, p.exit_code,
                  p.err);
    e2e_proc_free(&p);
    runs[num_runs] = new_run(&s, runs, num_runs);
    ck_assert_uint_eq(e2e_journal_count(runs[num_runs], NULL), 3);
    num_runs++;
  }
  for (int i = 1; i <= 9; i++) {
    char id[32];
    snprintf(id, sizeof(id), "\"id\":\"nine+t%d\"", i);
    size_t seen = 0;
    for (size_t r = 1; r < 4; r++) {
      char *j = e2e_path("%s/journal.jsonl", runs[r]);
      char *text = e2e_read(j);
      seen += e2e_count(text, id);
      free(text);
      free(j);
    }
    ck_assert_msg(seen == 1, "%s ran %zu times across the shards", id, seen);
  }
  /* Merged: the same tests and outcomes as the unsharded run. */
  e2e_run(&s, s.dir, NULL, (const char *const[]){"merge", runs[1], runs[2], runs[3], NULL}, &p);
  ck_assert_msg(p.exit_code == 1, "merge: exit %d\n%s", p.exit_code, p.err);
  e2e_proc_free(&p);
  runs[num_runs] = new_run(&s, runs, num_runs);
  char *merged = runs[num_runs++];
  char *a = e2e_path("%s/junit.xml", runs[0]), *b = e2e_path("%s/junit.xml", merged);
  char *ca = junit_cases(a), *cb = junit_cases(b);
  ck_assert_uint_eq(e2e_count(ca, "\n"), 9);
  ck_assert_ptr_nonnull(strstr(ca, "nine/t5=failed"));
  ck_assert_str_eq(ca, cb);
  size_t tests, failures, errors, skipped;
  const char *parser;
  e2e_junit_counts(b, &tests, &failures, &errors, &skipped, &parser);
  ck_assert_uint_eq(tests, 9);
  ck_assert_uint_eq(e2e_journal_count(merged, NULL), 9);
  char *folder = e2e_path("%s/nine+t1/report.json", merged);
  ck_assert(e2e_exists(folder));
  free(folder);
  ck_assert(e2e_exists(b));
  free(a);
  free(b);
  free(ca);
  free(cb);
  /* The run history: each shard recorded itself, and the merged run took their place, so that
   * every test is there once for the unsharded run and once for the merged one. */
  e2e_run(&s, s.dir, NULL, (const char *const[]){"history", "list", NULL}, &p);
  ck_assert_msg(p.exit_code == 0 && strstr(p.out, "\n2 runs in "), "%s%s", p.out, p.err);
  ck_assert_uint_eq(e2e_count(p.out, "  9  "), 2); /* the TESTS column of both */
  e2e_proc_free(&p);
  e2e_run(&s, s.dir, NULL, (const char *const[]){"history", "show", "nine/t4", NULL}, &p);
  ck_assert_msg(p.exit_code == 0 && strstr(p.out, "nine/t4 on sim: 2 runs"), "%s%s", p.out,
                p.err);
  e2e_proc_free(&p);
  /* Merging overlapping runs is an error naming the test (by its id, not its folder). */
  e2e_run(&s, s.dir, NULL, (const char *const[]){"merge", runs[0], runs[1], NULL}, &p);
  ck_assert_msg(p.exit_code == 2, "exit %d", p.exit_code);
  ck_assert_ptr_nonnull(strstr(p.err, "nine/t1"));
  e2e_proc_free(&p);
  for (size_t i = 0; i < num_runs; i++) free(runs[i]);
  free(suite);
  e2e_scratch_free(&s);
}
END_TEST

START_TEST(ci_node_variables_and_bad_shards) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  char *suite = write_nine(&s);
  e2e_proc_t p;
  e2e_run(&s, s.dir, (const char *const[]){"CI_NODE_INDEX=2", "CI_NODE_TOTAL=3", NULL},
          (const char *const[]){suite, "--list", NULL}, &p);
  ck_assert_msg(p.exit_code == 0, "%s", p.err);
  ck_assert_ptr_nonnull(strstr(p.out, "3 of 9 tests selected"));
  ck_assert_ptr_nonnull(strstr(p.out, "nine/t2\n"));
  ck_assert_ptr_null(strstr(p.out, "nine/t1\n"));
  e2e_proc_free(&p);
  /* The option wins over the environment. */
  e2e_run(&s, s.dir, (const char *const[]){"CI_NODE_INDEX=2", "CI_NODE_TOTAL=3", NULL},
          (const char *const[]){suite, "--list", "--shard=1/3", NULL}, &p);
  ck_assert_ptr_nonnull(strstr(p.out, "nine/t1\n"));
  e2e_proc_free(&p);
  static const char *const bad[] = {"--shard=4/3", "--shard=0/3", "--shard=1/0", "--shard=a/b",
                                    "--shard=3"};
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    e2e_run(&s, s.dir, NULL, (const char *const[]){suite, bad[i], NULL}, &p);
    ck_assert_msg(p.exit_code == 2, "%s: exit %d", bad[i], p.exit_code);
    ck_assert_ptr_nonnull(strstr(p.err, "--shard"));
    e2e_proc_free(&p);
  }
  e2e_run(&s, s.dir, (const char *const[]){"CI_NODE_INDEX=5", "CI_NODE_TOTAL=3", NULL},
          (const char *const[]){suite, NULL}, &p);
  ck_assert_int_eq(p.exit_code, 2);
  ck_assert_ptr_nonnull(strstr(p.err, "CI_NODE_INDEX"));
  e2e_proc_free(&p);
  ck_assert_uint_eq(e2e_num_runs(&s), 0);
  free(suite);
  e2e_scratch_free(&s);
}
END_TEST

Suite *e2e_suite_shard(void) {
  Suite *s = suite_create("shard");
  TCase *tc = tcase_create("shard");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, shards_run_every_test_once_and_merge_equals_unsharded);
  tcase_add_test(tc, ci_node_variables_and_bad_shards);
  suite_add_tcase(s, tc);
  return s;
}
