/* The first hour of a new user, end to end (issue 19): -q, one test id in every output, the
 * project's configuration from any folder and `config` showing where each value came from,
 * --help of every subcommand, `init`, pytest's habits (-x, --maxfail, --lf, --ff, --durations,
 * exit 5, an unknown -m tag) and --json validated against its JSON Schema. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "e2e.h"

static size_t lines(const char *text) {
  return e2e_count(text, "\n");
}

/* SCRATCH/NAME.yaml: suite NAME with a passing test `add` and, when `broken`, a test `broken`
 * whose model does not compile (first). */
static char *write_suite(const e2e_scratch_t *s, const char *name, int broken) {
  char *add = e2e_path("%s/add.mlir", s->dir), *bad = e2e_path("%s/broken.mlir", s->dir);
  e2e_write_add_model(add);
  e2e_write_broken_model(bad);
  char *path = e2e_path("%s/%s.yaml", s->dir, name);
  char *text = e2e_path("suite: %s\ntests:\n%s  - name: add\n    model: add.mlir\n"
                        "    repeat: 2\n    tags: [fast]\n",
                        name, broken ? "  - name: broken\n    model: broken.mlir\n" : "");
  e2e_write(path, text);
  free(text);
  free(add);
  free(bad);
  return path;
}

START_TEST(quiet_prints_the_failures_and_one_summary_line) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  char *suite = write_suite(&s, "q", 1);
  e2e_proc_t p;
  e2e_run(&s, s.dir, NULL, (const char *const[]){suite, "-q", NULL}, &p);
  ck_assert_msg(p.exit_code == 1, "exit %d\n%s%s", p.exit_code, p.out, p.err);
  /* One line for the failure, one for the summary; no table, no overview block. */
  ck_assert_msg(lines(p.out) == 2, "%s", p.out);
  ck_assert_ptr_nonnull(strstr(p.out, "FAILED   q/broken"));
  ck_assert_ptr_nonnull(strstr(p.out, "2 tests: 1 passed, 1 failed in "));
  ck_assert_ptr_null(strstr(p.out, "Host Profile Overview"));
  ck_assert_str_eq(p.err, "");
  e2e_proc_free(&p);
  /* --overview asks for the blocks back: of the failed tests only, here none has metrics. */
  e2e_run(&s, s.dir, NULL, (const char *const[]){suite, "--overview=all", NULL}, &p);
  ck_assert_uint_eq(e2e_count(p.out, "Host Profile Overview"), 1);
  e2e_proc_free(&p);
  e2e_run(&s, s.dir, NULL, (const char *const[]){suite, "--overview=none", NULL}, &p);
  ck_assert_uint_eq(e2e_count(p.out, "Host Profile Overview"), 0);
  ck_assert_ptr_nonnull(strstr(p.out, "=== Summary ==="));
  e2e_proc_free(&p);
  e2e_run(&s, s.dir, NULL, (const char *const[]){suite, "--overview=some", NULL}, &p);
  ck_assert_int_eq(p.exit_code, 2);
  ck_assert_ptr_nonnull(strstr(p.err, "expected all, failed or none"));
  e2e_proc_free(&p);
  free(suite);
  e2e_scratch_free(&s);
}
END_TEST

START_TEST(one_test_id_in_every_output) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  char *a = write_suite(&s, "mybench", 1), *b = write_suite(&s, "other", 0);
  char *json = e2e_path("%s/run.json", s.dir);
  char *json_opt = e2e_path("--json=%s", json);
  e2e_proc_t p;
  e2e_run(&s, s.dir, NULL, (const char *const[]){a, b, json_opt, NULL}, &p);
  ck_assert_msg(p.exit_code == 1, "exit %d\n%s%s", p.exit_code, p.out, p.err);
  /* Progress (plain lines off a terminal), summary rows, overview headers. */
  ck_assert_ptr_nonnull(strstr(p.out, "PASSED   mybench/add ("));
  ck_assert_ptr_nonnull(strstr(p.out, "FAILED   mybench/broken"));
  ck_assert_ptr_nonnull(strstr(p.out, "PASSED   other/add ("));
  ck_assert_ptr_nonnull(strstr(p.out, "\n  mybench/add     passed"));
  ck_assert_ptr_nonnull(strstr(p.out, "\n  other/add       passed"));
  ck_assert_ptr_nonnull(strstr(p.out, "  Test: mybench/add  Model: add\n"));
  ck_assert_ptr_nonnull(strstr(p.out, "  Test: other/add  Model: add\n"));
  /* Run order: as the tests started, whatever their order of finishing. */
  ck_assert(strstr(p.out, "\n  mybench/broken") < strstr(p.out, "\n  mybench/add ") &&
            strstr(p.out, "\n  mybench/add ") < strstr(p.out, "\n  other/add "));
  ck_assert_ptr_null(strstr(p.out, "mybench+"));
  e2e_proc_free(&p);
  char *run = e2e_only_run(&s);
  char *junit_path = e2e_path("%s/junit.xml", run), *html_path = e2e_path("%s/index.html", run);
  char *junit = e2e_read(junit_path), *html = e2e_read(html_path), *doc = e2e_read(json);
  ck_assert_ptr_nonnull(strstr(junit, "<testcase classname=\"mybench\" name=\"add\""));
  ck_assert_ptr_nonnull(strstr(junit, "<testcase classname=\"other\" name=\"add\""));
  ck_assert_ptr_nonnull(strstr(html, ">mybench/add</a>"));
  ck_assert_ptr_nonnull(strstr(html, ">other/add</a>"));
  /* The folder name shows only as a path (links to the test's files). */
  ck_assert_uint_eq(e2e_count(html, "mybench+add"), e2e_count(html, "\"mybench+add/"));
  ck_assert_ptr_nonnull(strstr(doc, "\"id\": \"mybench/add\""));
  ck_assert_ptr_nonnull(strstr(doc, "\"id\": \"other/add\""));
  ck_assert_ptr_nonnull(strstr(doc, "\"folder\": \"mybench+add\""));
  /* compare names tests by the same id. */
  e2e_run(&s, s.dir, NULL, (const char *const[]){"compare", run, run, NULL}, &p);
  ck_assert_msg(p.exit_code == 0, "exit %d\n%s%s", p.exit_code, p.out, p.err);
  ck_assert_ptr_nonnull(strstr(p.out, "mybench/add "));
  ck_assert_ptr_nonnull(strstr(p.out, "other/add "));
  ck_assert_ptr_null(strstr(p.out, "mybench+"));
  e2e_proc_free(&p);
  free(junit);
  free(html);
  free(doc);
  free(junit_path);
  free(html_path);
  free(run);
  free(json_opt);
  free(json);
  free(a);
  free(b);
  e2e_scratch_free(&s);
}
END_TEST

/* A project (proj/configs/, proj/suites/) and a folder elsewhere to run from. */
static void write_project(const e2e_scratch_t *s) {
  char *p = e2e_path("%s/proj/configs/site.yaml", s->dir);
  e2e_write(p, "repeat: 2\nresults_dir: out\ncache_dir: cache\nwarmup: 0\n");
  free(p);
  p = e2e_path("%s/proj/suites/add.mlir", s->dir);
  e2e_write_add_model(p);
  free(p);
  p = e2e_path("%s/proj/suites/s.yaml", s->dir);
  e2e_write(p, "suite: s\ntests:\n  - name: add\n    model: add.mlir\n");
  free(p);
  p = e2e_path("%s/elsewhere", s->dir);
  mkdir(p, 0777);
  free(p);
}

START_TEST(a_run_from_another_folder_uses_the_projects_configuration) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  write_project(&s);
  char *cwd = e2e_path("%s/elsewhere", s.dir);
  e2e_proc_t p;
  /* Without TORQ_RESULTS_DIR and TORQ_CACHE_DIR: the project decides. */
  const char *const env[] = {"TORQ_RESULTS_DIR", "TORQ_CACHE_DIR", NULL};
  e2e_run(&s, cwd, env, (const char *const[]){"../proj/suites/s.yaml", "-q", NULL}, &p);
  ck_assert_msg(p.exit_code == 0, "exit %d\n%s%s", p.exit_code, p.out, p.err);
  e2e_proc_free(&p);
  /* Nothing in the working folder; the results and the cache where the project says. */
  char *here_results = e2e_path("%s/results", cwd), *here_cache = e2e_path("%s/build", cwd);
  ck_assert(!e2e_exists(here_results) && !e2e_exists(here_cache));
  char *cache = e2e_path("%s/proj/cache", s.dir);
  ck_assert(e2e_exists(cache));
  e2e_scratch_t proj = s;
  proj.results = e2e_path("%s/proj/out", s.dir);
  char *run = e2e_only_run(&proj);
  char *journal_path = e2e_path("%s/journal.jsonl", run), *run_json_path = e2e_path("%s/run.json", run);
  char *journal = e2e_read(journal_path), *run_json = e2e_read(run_json_path);
  ck_assert_msg(strstr(journal, "\"wall_time_stats\":{\"n\":2,") != NULL, "%s", journal);
  /* run.json: the settings as JSON, each with its source. */
  const char *repeat = strstr(run_json, "\"repeat\": {\n        \"value\": 2,\n"
                                        "        \"layer\": \"config\",\n        \"source\": \"");
  ck_assert_msg(repeat != NULL, "%s", run_json);
  ck_assert_ptr_nonnull(strstr(repeat, "proj/configs/site.yaml:1\"\n"));
  free(journal);
  free(run_json);
  /* --config and TORQ_CONFIG come after the project's files; the command line after them. */
  char *extra = e2e_path("%s/extra.yaml", s.dir), *more = e2e_path("%s/more.yaml", s.dir);
  e2e_write(extra, "repeat: 3\n");
  e2e_write(more, "repeat: 4\nwarmup: 1\n");
  char *config_opt = e2e_path("--config=%s", more), *torq_config = e2e_path("TORQ_CONFIG=%s", extra);
  const char *const env2[] = {"TORQ_RESULTS_DIR", "TORQ_CACHE_DIR", torq_config, NULL};
  e2e_run(&s, cwd, env2, (const char *const[]){"config", "../proj/suites/s.yaml", config_opt, NULL},
          &p);
  ck_assert_msg(p.exit_code == 0, "exit %d\n%s%s", p.exit_code, p.out, p.err);
  ck_assert_ptr_nonnull(strstr(p.out, "  repeat           4 "));
  ck_assert_ptr_nonnull(strstr(p.out, "more.yaml:1\n"));
  e2e_proc_free(&p);
  /* A config that cannot be read is a configuration error. */
  e2e_run(&s, cwd, env, (const char *const[]){"../proj/suites/s.yaml", "--config=nothing.yaml", NULL},
          &p);
  ck_assert_int_eq(p.exit_code, 2);
  ck_assert_ptr_nonnull(strstr(p.err, "nothing.yaml"));
  e2e_proc_free(&p);
  free(config_opt);
  free(torq_config);
  free(extra);
  free(more);
  free(journal_path);
  free(run_json_path);
  free(run);
  free(proj.results);
  free(cache);
  free(here_results);
  free(here_cache);
  free(cwd);
  e2e_scratch_free(&s);
}
END_TEST

START_TEST(config_shows_where_each_value_came_from) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  write_project(&s);
  char *cwd = e2e_path("%s/elsewhere", s.dir);
  e2e_proc_t p;
  const char *const env[] = {"TORQ_RESULTS_DIR", "TORQ_CACHE_DIR", "TORQ_SEED=9",
                             "TORQ_MEMORY=4G", NULL};
  e2e_run(&s, cwd, env,
          (const char *const[]){"config", "../proj/suites/s.yaml", "--warmup", "3", NULL}, &p);
  ck_assert_msg(p.exit_code == 0, "exit %d\n%s%s", p.exit_code, p.out, p.err);
  /* Each layer with its source: a file and line, a variable, an option, built-in. */
  ck_assert_msg(strstr(p.out, "  repeat           2                            config        ") &&
                    strstr(p.out, "proj/configs/site.yaml:1\n"),
                "%s", p.out);
  ck_assert_ptr_nonnull(
      strstr(p.out, "  seed             9                            environment   TORQ_SEED\n"));
  ck_assert_ptr_nonnull(
      strstr(p.out, "  warmup           3                            command line  --warmup\n"));
  ck_assert_ptr_nonnull(strstr(p.out, "  function         main                         built-in"));
  ck_assert_ptr_nonnull(
      strstr(p.out, "  memory           4294967296                   environment   TORQ_MEMORY\n"));
  ck_assert_ptr_nonnull(strstr(p.out, "/proj/out "));
  ck_assert_ptr_nonnull(strstr(p.out, "Project: "));
  e2e_proc_free(&p);
  /* The same as JSON. */
  e2e_run(&s, cwd, env, (const char *const[]){"config", "../proj/suites/s.yaml", "--json", NULL},
          &p);
  ck_assert_msg(p.exit_code == 0, "exit %d\n%s%s", p.exit_code, p.out, p.err);
  ck_assert_ptr_nonnull(strstr(p.out, "\"seed\":{\"value\":9,\"layer\":\"environment\","
                                      "\"source\":\"TORQ_SEED\"}"));
  ck_assert_ptr_nonnull(strstr(p.out, "\"memory\":{\"value\":4294967296,\"layer\":\"environment\","
                                      "\"source\":\"TORQ_MEMORY\"}"));
  e2e_proc_free(&p);
  free(cwd);
  e2e_scratch_free(&s);
}
END_TEST

static const char *const k_commands[] = {"run",    "report", "compare", "merge",  "upload",
                                         "config", "init",   "history", "trends"};

START_TEST(every_subcommand_has_its_own_help) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  e2e_proc_t p;
  const char *cmd = k_commands[_i];
  e2e_run(&s, s.dir, NULL, (const char *const[]){cmd, "--help", NULL}, &p);
  ck_assert_msg(p.exit_code == 0, "%s --help: exit %d\n%s", cmd, p.exit_code, p.err);
  char *usage = e2e_path("usage: torq-test %s%s", !strcmp(cmd, "run") ? "[run]" : cmd,
                         !strcmp(cmd, "run") ? "" : " ");
  ck_assert_msg(!strncmp(p.out, usage, strlen(usage)), "%s --help:\n%s", cmd, p.out);
  ck_assert_ptr_nonnull(strstr(p.out, "-h, --help"));
  ck_assert_str_eq(p.err, "");
  free(usage);
  e2e_proc_free(&p);
  ck_assert_uint_eq(e2e_num_runs(&s), 0);
  e2e_scratch_free(&s);
}
END_TEST

START_TEST(options_go_anywhere_and_unknown_ones_get_a_suggestion) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  char *suite = write_suite(&s, "o", 0);
  e2e_proc_t p;
  e2e_run(&s, s.dir, NULL, (const char *const[]){suite, "-q", NULL}, &p);
  ck_assert_int_eq(p.exit_code, 0);
  e2e_proc_free(&p);
  char *run = e2e_only_run(&s);
  /* Options before the positionals (the subcommand's). */
  e2e_run(&s, s.dir, NULL, (const char *const[]){"compare", "--json", run, run, NULL}, &p);
  ck_assert_msg(p.exit_code == 0, "exit %d\n%s", p.exit_code, p.err);
  ck_assert_ptr_nonnull(strstr(p.out, "\"schema\": \"torq-test-compare/1\""));
  e2e_proc_free(&p);
  e2e_run(&s, s.dir, NULL, (const char *const[]){"--repat=3", suite, NULL}, &p);
  ck_assert_int_eq(p.exit_code, 2);
  ck_assert_ptr_nonnull(strstr(p.err, "unknown option '--repat=3' (did you mean '--repeat'?)"));
  e2e_proc_free(&p);
  e2e_run(&s, s.dir, NULL, (const char *const[]){"compre", run, run, NULL}, &p);
  ck_assert_int_eq(p.exit_code, 2);
  ck_assert_ptr_nonnull(strstr(p.err, "(did you mean 'compare'?)"));
  e2e_proc_free(&p);
  e2e_run(&s, s.dir, NULL, (const char *const[]){"report", run, "-k", "x", NULL}, &p);
  ck_assert_int_eq(p.exit_code, 2);
  ck_assert_ptr_nonnull(strstr(p.err, "option '-k' does not apply to 'report'"));
  e2e_proc_free(&p);
  ck_assert_uint_eq(e2e_num_runs(&s), 1);
  free(run);
  free(suite);
  e2e_scratch_free(&s);
}
END_TEST

START_TEST(init_writes_a_starter_that_runs) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  char *dir = e2e_path("%s/new", s.dir);
  e2e_proc_t p;
  e2e_run(&s, s.dir, NULL, (const char *const[]){"init", dir, NULL}, &p);
  ck_assert_msg(p.exit_code == 0, "exit %d\n%s", p.exit_code, p.err);
  e2e_proc_free(&p);
  char *config = e2e_path("%s/configs/default.yaml", dir);
  char *text = e2e_read(config);
  ck_assert_ptr_nonnull(text);
  ck_assert_uint_gt(e2e_count(text, "# "), 10); /* commented */
  free(text);
  /* A second init keeps what is there. */
  e2e_run(&s, s.dir, NULL, (const char *const[]){"init", dir, NULL}, &p);
  ck_assert_int_eq(p.exit_code, 2);
  ck_assert_ptr_nonnull(strstr(p.err, "exists"));
  e2e_proc_free(&p);
  /* Its suite runs as it is, with its project's configuration. */
  char *suite = e2e_path("%s/suites/example.yaml", dir);
  const char *const env[] = {"TORQ_RESULTS_DIR", NULL};
  e2e_run(&s, s.dir, env, (const char *const[]){suite, "-q", NULL}, &p);
  ck_assert_msg(p.exit_code == 0, "exit %d\n%s%s", p.exit_code, p.out, p.err);
  ck_assert_ptr_nonnull(strstr(p.out, "1 test: 1 passed"));
  ck_assert_ptr_nonnull(strstr(p.out, "/new/results/"));
  e2e_proc_free(&p);
  free(suite);
  free(config);
  free(dir);
  e2e_scratch_free(&s);
}
END_TEST

/* A suite of a failing test first, then three passing ones. */
static char *write_four(const e2e_scratch_t *s) {
  char *add = e2e_path("%s/add.mlir", s->dir), *bad = e2e_path("%s/broken.mlir", s->dir);
  e2e_write_add_model(add);
  e2e_write_broken_model(bad);
  char *path = e2e_path("%s/four.yaml", s->dir);
  e2e_write(path,
            "suite: four\ntests:\n  - name: bad\n    model: broken.mlir\n"
            "  - name: a\n    model: add.mlir\n  - name: b\n    model: add.mlir\n"
            "  - name: c\n    model: add.mlir\n");
  free(add);
  free(bad);
  return path;
}

START_TEST(exitfirst_and_maxfail_stop_the_run) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  char *suite = write_four(&s);
  e2e_proc_t p;
  e2e_run(&s, s.dir, NULL, (const char *const[]){suite, "-x", NULL}, &p);
  ck_assert_msg(p.exit_code == 1, "exit %d\n%s%s", p.exit_code, p.out, p.err);
  ck_assert_ptr_nonnull(strstr(p.out, "stopping after 1 failed test (-x)"));
  e2e_proc_free(&p);
  char *run = e2e_only_run(&s);
  ck_assert_uint_eq(e2e_journal_count(run, "failed"), 1);
  ck_assert_uint_eq(e2e_journal_count(run, "not_run"), 3);
  ck_assert_uint_eq(e2e_journal_count(run, "passed"), 0);
  char *aside = e2e_path("%s/aside", s.dir);
  ck_assert_int_eq(rename(run, aside), 0);
  /* --maxfail=2 with one failure runs everything. */
  e2e_run(&s, s.dir, NULL, (const char *const[]){suite, "--maxfail=2", "-q", NULL}, &p);
  ck_assert_int_eq(p.exit_code, 1);
  e2e_proc_free(&p);
  char *run2 = e2e_only_run(&s);
  ck_assert_uint_eq(e2e_journal_count(run2, "passed"), 3);
  ck_assert_uint_eq(e2e_journal_count(run2, "not_run"), 0);
  e2e_run(&s, s.dir, NULL, (const char *const[]){suite, "--maxfail=0", NULL}, &p);
  ck_assert_int_eq(p.exit_code, 2);
  e2e_proc_free(&p);
  free(run2);
  free(aside);
  free(run);
  free(suite);
  e2e_scratch_free(&s);
}
END_TEST

START_TEST(last_failed_and_failed_first_use_the_last_run) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  char *suite = write_four(&s);
  e2e_proc_t p;
  /* No earlier run: --lf runs everything. */
  e2e_run(&s, s.dir, NULL, (const char *const[]){suite, "--lf", NULL}, &p);
  ck_assert_int_eq(p.exit_code, 1);
  ck_assert_ptr_nonnull(strstr(p.out, "--lf: no earlier run"));
  e2e_proc_free(&p);
  ck_assert_uint_eq(e2e_num_runs(&s), 1);
  /* Now only four/bad failed: --lf runs it alone, --ff first. Run ids sort by the second. */
  sleep(1);
  e2e_run(&s, s.dir, NULL, (const char *const[]){suite, "--lf", "--list", NULL}, &p);
  ck_assert_msg(p.exit_code == 0, "exit %d\n%s%s", p.exit_code, p.out, p.err);
  ck_assert_ptr_nonnull(strstr(p.out, "--lf: 1 selected test failed in the last run"));
  ck_assert_ptr_nonnull(strstr(p.out, "four/bad\n1 of 4 tests selected"));
  e2e_proc_free(&p);
  e2e_run(&s, s.dir, NULL, (const char *const[]){suite, "--ff", "--list", "-k", "not four/a", NULL}, &p);
  ck_assert_msg(p.exit_code == 0, "exit %d\n%s%s", p.exit_code, p.out, p.err);
  ck_assert_ptr_nonnull(strstr(p.out, "four/bad\nfour/b\nfour/c\n3 of 4 tests selected"));
  e2e_proc_free(&p);
  e2e_run(&s, s.dir, NULL, (const char *const[]){suite, "--lf", "-q", NULL}, &p);
  ck_assert_int_eq(p.exit_code, 1);
  ck_assert_ptr_nonnull(strstr(p.out, "1 test: 1 failed"));
  e2e_proc_free(&p);
  ck_assert_uint_eq(e2e_num_runs(&s), 2);
  free(suite);
  e2e_scratch_free(&s);
}
END_TEST

START_TEST(durations_list_the_slowest_tests_with_their_split) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  char *suite = write_four(&s);
  e2e_proc_t p;
  e2e_run(&s, s.dir, NULL,
          (const char *const[]){suite, "-q", "--durations=2", "-j", "auto", NULL}, &p);
  ck_assert_msg(p.exit_code == 1, "exit %d\n%s%s", p.exit_code, p.out, p.err);
  const char *slow = strstr(p.out, "=== Slowest 2 tests ===");
  ck_assert_msg(slow != NULL, "%s", p.out);
  ck_assert_ptr_nonnull(strstr(slow, "TOTAL      COMPILE          RUN        OTHER  TEST\n"));
  ck_assert_uint_eq(e2e_count(slow, "  four/"), 2);
  e2e_proc_free(&p);
  free(suite);
  e2e_scratch_free(&s);
}
END_TEST

START_TEST(nothing_selected_exits_5_and_an_unknown_tag_warns) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  char *suite = write_suite(&s, "t", 0);
  e2e_proc_t p;
  e2e_run(&s, s.dir, NULL, (const char *const[]){suite, "-m", "fsat", NULL}, &p);
  ck_assert_int_eq(p.exit_code, 5);
  ck_assert_ptr_nonnull(strstr(p.err, "warning: -m: no test has the tag 'fsat' (did you mean "
                                      "'fast'?)"));
  ck_assert_ptr_nonnull(strstr(p.err, "no test selected"));
  e2e_proc_free(&p);
  e2e_run(&s, s.dir, NULL, (const char *const[]){suite, "--collect-only", "-k", "zzz", NULL}, &p);
  ck_assert_int_eq(p.exit_code, 5);
  ck_assert_ptr_nonnull(strstr(p.out, "0 of 1 test selected"));
  e2e_proc_free(&p);
  e2e_run(&s, s.dir, NULL, (const char *const[]){suite, "--collect-only", NULL}, &p);
  ck_assert_int_eq(p.exit_code, 0);
  ck_assert_ptr_nonnull(strstr(p.out, "t/add  [fast]\n1 of 1 test selected"));
  e2e_proc_free(&p);
  ck_assert_uint_eq(e2e_num_runs(&s), 0);
  free(suite);
  e2e_scratch_free(&s);
}
END_TEST

/* Validates `doc` against `schema` with python3-jsonschema; 1 when it did, 0 when the module is
 * missing (a counted skip, a failure under CI). `valid` is what is expected. */
static int validate(const e2e_scratch_t *s, const char *schema, const char *doc, int valid) {
  const char *python = tq_test_python_module("jsonschema", "python3-jsonschema");
  if (!python) return 0;
  char *script = e2e_path("%s/validate.py", s->dir);
  e2e_write(script,
            "import json, sys, jsonschema\n"
            "schema = json.load(open(sys.argv[1]))\n"
            "jsonschema.Draft202012Validator.check_schema(schema)\n"
            "errors = list(jsonschema.Draft202012Validator(schema).iter_errors(\n"
            "    json.load(open(sys.argv[2]))))\n"
            "for e in errors[:5]: print(list(e.absolute_path), e.message)\n"
            "sys.exit(1 if errors else 0)\n");
  char *cmd = e2e_path("'%s' '%s' '%s' '%s' 2>&1", python, script, schema, doc);
  FILE *f = popen(cmd, "r");
  ck_assert_ptr_nonnull(f);
  char out[4096] = {0};
  size_t n = fread(out, 1, sizeof(out) - 1, f);
  out[n] = 0;
  int rc = pclose(f);
  ck_assert_msg((rc == 0) == valid, "%s: %s against %s:\n%s", valid ? "invalid" : "valid", doc,
                schema, out);
  free(cmd);
  free(script);
  return 1;
}

START_TEST(json_validates_against_its_schema) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  char *suite = write_suite(&s, "j", 1);
  e2e_proc_t p;
  e2e_run(&s, s.dir, NULL, (const char *const[]){suite, "-q", NULL}, &p);
  ck_assert_int_eq(p.exit_code, 1);
  e2e_proc_free(&p);
  char *first = e2e_only_run(&s);
  char *aside = e2e_path("%s/first", s.dir);
  ck_assert_int_eq(rename(first, aside), 0);
  /* Against a baseline: verdicts and comparisons in the document; --json alone: stdout holds
   * the document only, the rest goes to stderr. */
  char *baseline = e2e_path("--baseline=%s", aside);
  e2e_run(&s, s.dir, NULL, (const char *const[]){suite, "--json", baseline, NULL}, &p);
  ck_assert_msg(p.exit_code == 1, "exit %d\n%s", p.exit_code, p.err);
  ck_assert_msg(p.out[0] == '{' && strstr(p.out, "\n}\n") == p.out + strlen(p.out) - 3, "%s",
                p.out);
  ck_assert_ptr_nonnull(strstr(p.err, "=== Summary ==="));
  ck_assert_ptr_nonnull(strstr(p.out, "\"verdict\": {\n"));
  ck_assert_ptr_nonnull(strstr(p.out, "\"comparison\": [\n"));
  ck_assert_ptr_nonnull(strstr(p.out, "\"metric\": \"wall_time\""));
  ck_assert_ptr_nonnull(strstr(p.out, "\"outcome\": \"failed\""));
  char *doc = e2e_path("%s/run-doc.json", s.dir);
  e2e_write(doc, p.out);
  e2e_proc_free(&p);
  char *run_schema = e2e_path("%s/harness/formats/torq-test-run.schema.json", e2e_top());
  char *compare_schema = e2e_path("%s/harness/formats/torq-test-compare.schema.json", e2e_top());
  if (validate(&s, run_schema, doc, 1)) {
    /* The validator does reject: a test without its id is not a run document. */
    char *text = e2e_read(doc);
    char *id = strstr(text, "\"id\": \"j/");
    ck_assert_ptr_nonnull(id);
    memcpy(id, "\"xx\"", 4);
    char *bad = e2e_path("%s/bad-doc.json", s.dir);
    e2e_write(bad, text);
    validate(&s, run_schema, bad, 0);
    free(bad);
    free(text);
  }
  /* report --json=FILE of the same run, and compare --json. */
  char *run = e2e_only_run(&s);
  char *from_report = e2e_path("%s/report-doc.json", s.dir);
  char *opt = e2e_path("--json=%s", from_report);
  e2e_run(&s, s.dir, NULL, (const char *const[]){"report", run, opt, "-q", NULL}, &p);
  ck_assert_msg(p.exit_code == 0, "exit %d\n%s", p.exit_code, p.err);
  e2e_proc_free(&p);
  validate(&s, run_schema, from_report, 1);
  char *cmp = e2e_path("%s/compare-doc.json", s.dir);
  free(opt);
  opt = e2e_path("--json=%s", cmp);
  e2e_run(&s, s.dir, NULL, (const char *const[]){"compare", aside, run, opt, NULL}, &p);
  ck_assert_msg(p.exit_code <= 1, "exit %d\n%s", p.exit_code, p.err);
  e2e_proc_free(&p);
  char *cmp_text = e2e_read(cmp);
  ck_assert_ptr_nonnull(strstr(cmp_text, "\"id\": \"j/add\""));
  free(cmp_text);
  validate(&s, compare_schema, cmp, 1);
  free(cmp);
  free(opt);
  free(from_report);
  free(run);
  free(run_schema);
  free(compare_schema);
  free(doc);
  free(baseline);
  free(aside);
  free(first);
  free(suite);
  e2e_scratch_free(&s);
}
END_TEST

Suite *e2e_suite_usability(void) {
  Suite *s = suite_create("usability");
  TCase *tc = tcase_create("usability");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, quiet_prints_the_failures_and_one_summary_line);
  tcase_add_test(tc, one_test_id_in_every_output);
  tcase_add_test(tc, a_run_from_another_folder_uses_the_projects_configuration);
  tcase_add_test(tc, config_shows_where_each_value_came_from);
  tcase_add_loop_test(tc, every_subcommand_has_its_own_help, 0,
                      (int)(sizeof(k_commands) / sizeof(k_commands[0])));
  tcase_add_test(tc, options_go_anywhere_and_unknown_ones_get_a_suggestion);
  tcase_add_test(tc, init_writes_a_starter_that_runs);
  tcase_add_test(tc, exitfirst_and_maxfail_stop_the_run);
  tcase_add_test(tc, last_failed_and_failed_first_use_the_last_run);
  tcase_add_test(tc, durations_list_the_slowest_tests_with_their_split);
  tcase_add_test(tc, nothing_selected_exits_5_and_an_unknown_tag_warns);
  tcase_add_test(tc, json_validates_against_its_schema);
  suite_add_tcase(s, tc);
  return s;
}
