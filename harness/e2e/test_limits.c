/* Limits and faults of the machine a run uses: a test's memory limit (RLIMIT_AS on its worker),
 * the compiler's limits through torq-test, a full results disk, and journals with torn or
 * invalid lines. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "e2e.h"
#include "torq/harness/journal.h"

/* A model whose only constant, a 64 MiB splat, is built in full when it compiles. */
static void write_big_constant_model(const char *path) {
  e2e_write(path,
            "module {\n"
            "  func.func @main() -> tensor<16777216xi32> {\n"
            "    %0 = \"tosa.const\"() <{values = dense<7> : tensor<16777216xi32>}> : () -> "
            "tensor<16777216xi32>\n"
            "    return %0 : tensor<16777216xi32>\n"
            "  }\n"
            "}\n");
}

/* Whether this build is sanitized with a sanitizer that reserves terabytes of address space:
 * torq-test (the same flavour) then sets no memory limit (worker_main.c). */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define NO_MEMORY_LIMIT 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define NO_MEMORY_LIMIT 1
#endif
#endif
#ifndef NO_MEMORY_LIMIT
#define NO_MEMORY_LIMIT 0
#endif

/* Under `memory: 48M` the compile runs out of memory: the test is an error that names the limit
 * (the memory_limit type), and the same model with the default limit passes. */
START_TEST(a_test_over_its_memory_limit_is_an_error_that_names_the_limit) {
  if (e2e_light() || NO_MEMORY_LIMIT) {
    tq_test_skip("%s", NO_MEMORY_LIMIT ? "no memory limit under AddressSanitizer"
                                       : "a 64 MiB model (under valgrind)");
    return;
  }
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  char *model = e2e_path("%s/big.mlir", s.dir);
  write_big_constant_model(model);
  char *suite = e2e_path("%s/mem.yaml", s.dir);
  e2e_write(suite,
            "suite: mem\n"
            "defaults: {reference: false}\n"
            "tests:\n"
            "  - {name: small, model: big.mlir, memory: 48M}\n"
            "  - {name: roomy, model: big.mlir}\n");
  e2e_proc_t p;
  e2e_run(&s, s.dir, NULL, (const char *const[]){suite, "--no-profiling", "-j", "2", NULL}, &p);
  char *run = e2e_only_run(&s);
  char *jp = e2e_path("%s/journal.jsonl", run);
  char *journal = e2e_read(jp);
  ck_assert_ptr_nonnull(journal);
  const char *small = strstr(journal, "\"name\":\"small\"");
  const char *roomy = strstr(journal, "\"name\":\"roomy\"");
  ck_assert_msg(small && roomy, "%s", journal);
  const char *small_end = strchr(small, '\n'), *roomy_end = strchr(roomy, '\n');
  char *small_line = strndup(small, (size_t)(small_end - small));
  char *roomy_line = strndup(roomy, (size_t)(roomy_end - roomy));
  ck_assert_msg(strstr(small_line, "\"outcome\":\"error\"") &&
                    strstr(small_line, "\"failure_type\":\"memory_limit\"") &&
                    strstr(small_line, "memory limit of 48.0 MiB") &&
                    strstr(small_line, "out of memory"),
                "%s", small_line);
  ck_assert_msg(strstr(roomy_line, "\"outcome\":\"passed\""), "%s", roomy_line);
  ck_assert_msg(p.exit_code == 1, "exit %d\n%s\n%s", p.exit_code, p.out, p.err);
  free(roomy_line);
  free(small_line);
  free(journal);
  free(jp);
  free(run);
  free(suite);
  free(model);
  e2e_proc_free(&p);
  e2e_scratch_free(&s);
}
END_TEST

/* A memory limit that is no size is a located error of the suite (exit 2), and TORQ_MEMORY is
 * checked as well. */
START_TEST(a_bad_memory_limit_is_a_usage_error) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  char *model = e2e_path("%s/add.mlir", s.dir);
  e2e_write_add_model(model);
  char *suite = e2e_path("%s/bad.yaml", s.dir);
  e2e_write(suite, "tests:\n  - {model: add.mlir, memory: 12 parsecs}\n");
  e2e_proc_t p;
  e2e_run(&s, s.dir, NULL, (const char *const[]){suite, NULL}, &p);
  ck_assert_msg(p.exit_code == 2, "exit %d\n%s\n%s", p.exit_code, p.out, p.err);
  ck_assert_msg(strstr(p.err, "bad.yaml:2:31: error: memory: expected a size"), "%s", p.err);
  e2e_proc_free(&p);
  e2e_write(suite, "tests:\n  - {model: add.mlir}\n");
  e2e_run(&s, s.dir, (const char *const[]){"TORQ_MEMORY=1K", NULL},
          (const char *const[]){suite, NULL}, &p);
  ck_assert_msg(p.exit_code == 2, "exit %d\n%s\n%s", p.exit_code, p.out, p.err);
  ck_assert_msg(strstr(p.err, "TORQ_MEMORY: memory: 1K is below the smallest limit"), "%s", p.err);
  ck_assert_uint_eq(e2e_num_runs(&s), 0);
  e2e_proc_free(&p);
  free(suite);
  free(model);
  e2e_scratch_free(&s);
}
END_TEST

/* ---- A full results disk --------------------------------------------------------------------- */

#define DISK_TESTS 8
#define DISK_BYTES (3 << 20) /* the results' disk: 3 MiB */

/* A model whose module holds a 600 KB constant: each test's folder gets a copy of it (the cache
 * is on another disk, so the harness cannot link it), and the disk fills after four tests. */
static char *write_disk_suite(const e2e_scratch_t *s) {
  char *model = e2e_path("%s/big.mlir", s->dir);
  e2e_write(model,
            "module {\n"
            "  func.func @main(%arg0: tensor<4xi32>) -> tensor<150000xi32> {\n"
            "    %0 = \"tosa.const\"() <{values = dense<7> : tensor<150000xi32>}> : () -> "
            "tensor<150000xi32>\n"
            "    return %0 : tensor<150000xi32>\n"
            "  }\n"
            "}\n");
  free(model);
  char *suite = e2e_path("%s/disk.yaml", s->dir);
  char text[1024];
  size_t len = (size_t)snprintf(text, sizeof(text), "suite: disk\ntests:\n");
  for (int i = 0; i < DISK_TESTS; i++)
    len +=
        (size_t)snprintf(text + len, sizeof(text) - len, "  - {name: t%d, model: big.mlir}\n", i);
  e2e_write(suite, text);
  return suite;
}

/* 1 when this process may mount a tmpfs in a mount namespace of its own (root, unshare -m). */
static int can_mount_tmpfs(const e2e_scratch_t *s) {
  char *dir = e2e_path("%s/probe", s->dir);
  char *keep = e2e_path("%s/.keep", dir);
  e2e_write(keep, "");
  char *cmd = e2e_path(
      "unshare -m sh -c 'mount -t tmpfs -o size=1m tmpfs \"$1\"' sh '%s' "
      ">/dev/null 2>&1",
      dir);
  int ok = system(cmd) == 0;
  free(cmd);
  free(keep);
  free(dir);
  return ok;
}

/* The results disk fills up after four tests: the test that found it full is an error, the rest
 * are recorded as not run, the journal is whole (no partial line), junit.xml and index.html list
 * every test, and torq-test exits 3. On a tmpfs of 3 MiB when this machine allows mounting one
 * (CI runs as root), else with the LD_PRELOAD shim torq-enospc.so making the results folder a
 * 3 MiB disk (TORQ_E2E_DISK=tmpfs or shim forces one). */
START_TEST(a_full_results_disk_stops_the_run_with_a_whole_journal_and_exit_3) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  char *suite = write_disk_suite(&s);
  const char *force = getenv("TORQ_E2E_DISK");
  int tmpfs = force && *force ? !strcmp(force, "tmpfs") : can_mount_tmpfs(&s);
  char *disk = e2e_path("%s/disk", s.dir);
  char *keep = e2e_path("%s/.keep", disk);
  e2e_write(keep, "");
  unlink(keep);
  e2e_proc_t p;
  char *results_opt = e2e_path("--results-dir=%s", disk);
  if (tmpfs) {
    /* torq-test in a mount namespace with the tmpfs at `disk`; what it wrote is copied out to
     * the scratch results before the namespace (and the tmpfs) goes. */
    static const char script[] =
        "size=$1 disk=$2 out=$3; shift 3\n"
        "mount -t tmpfs -o size=$size tmpfs \"$disk\" || exit 99\n"
        "mkdir -p \"$out\" || exit 98\n"
        "\"$@\"; rc=$?\n"
        "cp -a \"$disk\"/. \"$out\"/ || exit 98\n"
        "exit $rc\n";
    char size[32];
    snprintf(size, sizeof(size), "%d", DISK_BYTES);
    const char *args[] = {"-m", "sh",      "-c",      script, "sh",        size,
                          disk, s.results, e2e_bin(), suite,  results_opt, "--no-profiling",
                          NULL};
    e2e_run_program("/usr/bin/unshare", &s, s.dir, NULL, args, &p);
  } else {
    char *shim = e2e_path("%s/../tests/torq-enospc.so", tq_test_bin());
    char *budget = e2e_path("%s/budget", s.dir);
    FILE *f = fopen(budget, "wb");
    ck_assert_ptr_nonnull(f);
    int64_t bytes = DISK_BYTES;
    ck_assert_int_eq(fwrite(&bytes, sizeof(bytes), 1, f), 1);
    fclose(f);
    char *preload = e2e_path("LD_PRELOAD=%s", shim), *dir = e2e_path("TORQ_ENOSPC_DIR=%s", disk);
    char *bud = e2e_path("TORQ_ENOSPC_BUDGET=%s", budget);
    const char *env[] = {preload, dir, bud, "ASAN_OPTIONS=verify_asan_link_order=0", NULL};
    e2e_run(&s, s.dir, env, (const char *const[]){suite, results_opt, "--no-profiling", NULL}, &p);
    /* The run folder moves to the scratch results, where the checks below look. */
    char *mv = e2e_path("mkdir -p '%s' && mv '%s'/* '%s'/", s.results, disk, s.results);
    ck_assert_int_eq(system(mv), 0);
    free(mv);
    free(bud);
    free(dir);
    free(preload);
    free(budget);
    free(shim);
  }
  ck_assert_msg(p.exit_code == 3, "%s: exit %d\n%s\n%s", tmpfs ? "tmpfs" : "shim", p.exit_code,
                p.out, p.err);
  ck_assert_msg(strstr(p.out, "the run stops: a disk is full"), "%s", p.out);
  char *run = e2e_only_run(&s);

  /* The journal: whole lines only, each a record, one per test. */
  char *jp = e2e_path("%s/journal.jsonl", run);
  char *journal = e2e_read(jp);
  ck_assert_ptr_nonnull(journal);
  size_t jlen = strlen(journal);
  ck_assert_msg(jlen && journal[jlen - 1] == '\n', "the journal ends in a partial line");
  tqh_records_t records;
  tqh_records_init(&records);
  tqh_diags_t diags;
  tqh_diags_init(&diags);
  tqh_journal_read_t info;
  tq_status_t st = tqh_journal_read(jp, &records, &diags, &info);
  ck_assert_ptr_null(st);
  ck_assert_msg(diags.count == 0 && info.corrupt == 0 && !info.torn_tail, "%s", journal);
  ck_assert_uint_eq(records.count, DISK_TESTS);
  size_t passed = 0, errors = 0, not_run = 0;
  for (size_t i = 0; i < records.count; i++) {
    const tqh_test_record_t *r = &records.items[i];
    if (r->outcome == TQH_OUTCOME_PASSED) passed++;
    if (r->outcome == TQH_OUTCOME_ERROR) {
      errors++;
      ck_assert_msg(strstr(r->message, "No space left on device"), "%s", r->message);
    }
    if (r->outcome == TQH_OUTCOME_NOT_RUN) {
      not_run++;
      ck_assert_msg(
          strstr(r->message, "not run: the run stopped") && strstr(r->message, "a disk is full"),
          "%s", r->message);
    }
  }
  ck_assert_uint_ge(passed, 2);
  ck_assert_uint_eq(errors, 1);
  ck_assert_uint_ge(not_run, 1);
  ck_assert_uint_eq(passed + errors + not_run, DISK_TESTS);

  /* junit.xml, valid, with every test: the ones not run as skipped. */
  size_t t, f, e, sk;
  const char *parser;
  char *junit = e2e_path("%s/junit.xml", run);
  e2e_junit_counts(junit, &t, &f, &e, &sk, &parser);
  ck_assert_uint_eq(t, DISK_TESTS);
  ck_assert_uint_eq(sk, not_run);
  ck_assert_uint_eq(e, errors);
  char *xml = e2e_read(junit);
  ck_assert_msg(strstr(xml, "a disk is full"), "junit.xml does not say why");
  char *html = e2e_path("%s/index.html", run), *reserve = e2e_path("%s/.torq-reserve", run);
  ck_assert_msg(e2e_exists(html), "no index.html");
  ck_assert_msg(!e2e_exists(reserve), "the reserve is left behind");

  /* torq-test report reads the journal whole. */
  e2e_proc_t rep;
  e2e_run(&s, s.dir, NULL, (const char *const[]){"report", run, NULL}, &rep);
  ck_assert_msg(rep.exit_code == 0, "report: exit %d\n%s", rep.exit_code, rep.err);
  e2e_proc_free(&rep);
  free(reserve);
  free(html);
  free(xml);
  free(junit);
  tqh_diags_deinit(&diags);
  tqh_records_deinit(&records);
  free(journal);
  free(jp);
  free(run);
  free(results_opt);
  free(keep);
  free(disk);
  free(suite);
  e2e_proc_free(&p);
  e2e_scratch_free(&s);
}
END_TEST

/* ---- Journals with lines that cannot be read ----------------------------------------------------
 */

/* Every reader of a journal names a corrupt line and a torn last line (FILE:LINE) instead of
 * dropping them silently: report (which exits 3), compare, --baseline, --shard-durations, merge
 * (which leaves them out of the merged journal and exits 3) and upload. */
START_TEST(every_journal_reader_names_torn_and_invalid_lines) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  char *model = e2e_path("%s/add.mlir", s.dir);
  e2e_write_add_model(model);
  char *suite = e2e_path("%s/j.yaml", s.dir);
  e2e_write(suite,
            "suite: j\ntests:\n  - {name: a, model: add.mlir}\n  - {name: b, model: add.mlir}\n");
  e2e_proc_t p;
  e2e_run(&s, s.dir, NULL, (const char *const[]){suite, "--no-profiling", NULL}, &p);
  ck_assert_msg(p.exit_code == 0, "%s", p.err);
  e2e_proc_free(&p);
  char *run = e2e_only_run(&s);
  /* Line 2 is not a record; line 4 is cut short. */
  char *jp = e2e_path("%s/journal.jsonl", run);
  char *journal = e2e_read(jp);
  char *second = strchr(journal, '\n') + 1;
  char *damaged = e2e_path("%.*s{\"id\": oops}\n%s{\"id\":\"j+c\",\"name\":\"c\",\"outc",
                           (int)(second - journal), journal, second);
  e2e_write(jp, damaged);
  char *bad2 = e2e_path("%s:2: error: not a valid test record", jp);
  char *bad4 = e2e_path("%s:4: error: the last line is cut short", jp);

  e2e_run(&s, s.dir, NULL, (const char *const[]){"report", run, NULL}, &p);
  ck_assert_msg(p.exit_code == 3, "report: exit %d\n%s", p.exit_code, p.err);
  ck_assert_msg(strstr(p.err, bad2) && strstr(p.err, bad4), "report:\n%s", p.err);
  ck_assert_msg(strstr(p.err, "2 lines of the journal could not be read"), "%s", p.err);
  e2e_proc_free(&p);

  e2e_run(&s, s.dir, NULL, (const char *const[]){"compare", run, run, NULL}, &p);
  ck_assert_msg(strstr(p.out, bad2) && strstr(p.out, bad4), "compare:\n%s\n%s", p.out, p.err);
  e2e_proc_free(&p);

  char *base = e2e_path("--baseline=%s", run);
  e2e_run(&s, s.dir, NULL, (const char *const[]){suite, "--no-profiling", base, NULL}, &p);
  char *want = e2e_path("torq-test: baseline: %s", bad2);
  ck_assert_msg(strstr(p.err, want) && strstr(p.err, bad4), "--baseline:\n%s", p.err);
  free(want);
  e2e_proc_free(&p);

  char *durations = e2e_path("--shard-durations=%s", run);
  e2e_run(&s, s.dir, NULL,
          (const char *const[]){suite, "--no-profiling", "--shard=1/2", durations, "--list", NULL},
          &p);
  want = e2e_path("torq-test: --shard-durations: %s", bad2);
  ck_assert_msg(strstr(p.err, want) && strstr(p.err, bad4), "--shard-durations:\n%s", p.err);
  free(want);
  e2e_proc_free(&p);

  char *merged = e2e_path("--results-dir=%s/merged", s.dir);
  e2e_run(&s, s.dir, NULL, (const char *const[]){"merge", run, merged, NULL}, &p);
  ck_assert_msg(p.exit_code == 3, "merge: exit %d\n%s", p.exit_code, p.err);
  want = e2e_path("torq-test: merge: %s", bad2);
  ck_assert_msg(strstr(p.err, want) && strstr(p.err, bad4), "merge:\n%s", p.err);
  ck_assert_msg(strstr(p.err, "2 journal lines could not be read"), "%s", p.err);
  free(want);
  e2e_proc_free(&p);
  /* The merged journal holds the two good lines only. */
  char *mj_cmd = e2e_path("cat '%s'/merged/*/journal.jsonl", s.dir);
  FILE *f = popen(mj_cmd, "r");
  char mj[8192] = "";
  size_t got = fread(mj, 1, sizeof(mj) - 1, f);
  mj[got] = 0;
  pclose(f);
  ck_assert_uint_eq(e2e_count(mj, "\n"), 2);
  ck_assert_ptr_null(strstr(mj, "oops"));
  free(mj_cmd);

  e2e_run(&s, s.dir, NULL,
          (const char *const[]){"upload", run, "--upload=http://127.0.0.1:9", NULL}, &p);
  want = e2e_path("torq-test: upload: %s", bad2);
  ck_assert_msg(strstr(p.err, want) && strstr(p.err, bad4), "upload:\n%s", p.err);
  free(want);
  e2e_proc_free(&p);

  free(merged);
  free(durations);
  free(base);
  free(bad4);
  free(bad2);
  free(damaged);
  free(journal);
  free(jp);
  free(run);
  free(suite);
  free(model);
  e2e_scratch_free(&s);
}
END_TEST

Suite *e2e_suite_limits(void) {
  Suite *s = suite_create("limits");
  TCase *tc = tcase_create("limits");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, a_test_over_its_memory_limit_is_an_error_that_names_the_limit);
  tcase_add_test(tc, a_bad_memory_limit_is_a_usage_error);
  tcase_add_test(tc, a_full_results_disk_stops_the_run_with_a_whole_journal_and_exit_3);
  tcase_add_test(tc, every_journal_reader_names_torn_and_invalid_lines);
  suite_add_tcase(s, tc);
  return s;
}
