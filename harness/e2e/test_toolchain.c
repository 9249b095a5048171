/* An external Torq toolchain: torq-test driving torq-compile, torq-run-module and an annotator as
 * programs. The programs are scripts/fake-toolchain's wrappers, which run this build's own tools
 * as separate processes (so the outputs, profiles and traces are real), installed by its
 * `install` into folders whose names hold spaces and quotes; the failure wrappers exit 1 with a
 * located error, crash, hang or write wrong outputs. */
#include <dirent.h>
#include <errno.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "e2e.h"
#include "torq/runtime/npy.h"
#include "torq/runtime/tensor.h"

/* A folder name with a space, an apostrophe and double quotes. */
#define ODD "it's \"odd\" x"

/* Runs argv (no shell) and returns its exit status. */
static int run_argv(const char *const *argv) {
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    execv(argv[0], (char *const *)argv);
    _exit(127);
  }
  int status = 0;
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The folder of this build's tools. */
static char *bin_dir(void) {
  const char *bin = e2e_bin();
  const char *slash = strrchr(bin, '/');
  return e2e_path("%.*s", (int)(slash - bin), bin);
}

/* scripts/fake-toolchain/install into s->dir/NAME; the folder. */
static char *install_tools(const e2e_scratch_t *s, const char *name) {
  char *dir = e2e_path("%s/%s", s->dir, name);
  char *script = e2e_path("%s/scripts/fake-toolchain/install", e2e_top());
  char *bin = bin_dir();
  const char *argv[] = {"/bin/sh", script, dir, bin, NULL};
  ck_assert_int_eq(run_argv(argv), 0);
  free(script);
  free(bin);
  return dir;
}

/* "..." for YAML: the text with \ and " escaped. */
static char *yq(const char *text) {
  size_t n = strlen(text);
  char *out = malloc(2 * n + 3), *o = out;
  *o++ = '"';
  for (const char *p = text; *p; p++) {
    if (*p == '"' || *p == '\\') *o++ = '\\';
    *o++ = *p;
  }
  *o++ = '"';
  *o = 0;
  return out;
}

/* A copy of `s` whose runs go to s->dir/NAME (one run folder per name). */
static e2e_scratch_t results_in(const e2e_scratch_t *s, const char *name) {
  e2e_scratch_t r = *s;
  r.results = e2e_path("%s/%s", s->dir, name);
  return r;
}

static char *test_file(const char *run, const char *test, const char *name) {
  char *path = e2e_path("%s/%s/%s", run, test, name);
  char *text = e2e_read(path);
  ck_assert_msg(text != NULL, "no %s", path);
  free(path);
  return text;
}

/* ---- The smoke suite through the wrappers --------------------------------------------------- */

START_TEST(smoke_suite_runs_through_the_wrappers_with_and_without_an_annotator) {
  if (e2e_light()) {
    tq_test_skip("heavy: the smoke suite twice through external programs");
    return;
  }
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  char *tools = install_tools(&s, "tools " ODD);
  char *suite = e2e_path("%s/suites/smoke.yaml", e2e_top());
  char *compile = e2e_path("--toolchain-compile=%s/torq-compile", tools);
  char *run = e2e_path("--toolchain-run=%s/torq-run-module", tools);
  char *annotate = e2e_path("--toolchain-annotate=%s/torq-annotate", tools);

  e2e_scratch_t r1 = results_in(&s, "r1");
  e2e_proc_t p;
  const char *args1[] = {suite, compile, run, "--repeat", "2", "-j", "2", NULL};
  e2e_run(&r1, s.dir, NULL, args1, &p);
  ck_assert_msg(p.exit_code == 0, "exit %d\n%s\n%s", p.exit_code, p.out, p.err);
  ck_assert_msg(strstr(p.out, "7 tests: 7 passed"), "%s", p.out);
  ck_assert_msg(strstr(p.out, "Cache: 0 hits, 7 misses"), "%s", p.out);
  /* Without an annotator: what the CSV alone tells, and the block says so. */
  ck_assert_msg(strstr(p.out, "Model: conv2d_3x3_16x16x8_i8 (profile.csv alone: no annotator)"),
                "%s", p.out);
  ck_assert_msg(strstr(p.out, "NSS Programs") && strstr(p.out, "Host Copy") && strstr(p.out, "Hal"),
                "%s", p.out);
  ck_assert_msg(!strstr(p.out, "Slice 0"), "%s", p.out);
  char *run1 = e2e_only_run(&r1);
  size_t t = 0, f = 0, er = 0, sk = 0;
  const char *parser = NULL;
  char *junit = e2e_path("%s/junit.xml", run1);
  e2e_junit_counts(junit, &t, &f, &er, &sk, &parser);
  ck_assert_uint_eq(t, 7);
  ck_assert_uint_eq(f + er, 0);
  /* The outputs were compared with the reference interpreter's (a wrong output fails below). */
  char *out = test_file(run1, "smoke+conv2d", "stderr.txt");
  ck_assert_msg(strstr(out, "== torq-run-module in run 2 of 2 =="), "%s", out);
  free(out);
  char *npy = e2e_path("%s/smoke+conv2d/output_0.npy", run1);
  ck_assert_msg(e2e_exists(npy), "no %s", npy);
  free(npy);
  /* Provenance: each program's path, SHA-256 and --version, per test and for the run. */
  char *compile_path = e2e_path("%s/torq-compile", tools);
  char *sha = e2e_sha256_file(compile_path);
  char *report = test_file(run1, "smoke+conv2d", "report.json");
  ck_assert_msg(strstr(report, "\"toolchain.compile\"") && strstr(report, sha) &&
                    strstr(report, "version torq-compile "),
                "%s", report);
  ck_assert_msg(strstr(report, "\"toolchain.run\"") && strstr(report, "torq-run-module"), "%s",
                report);
  char *runjson_path = e2e_path("%s/run.json", run1);
  char *runjson = e2e_read(runjson_path);
  ck_assert_msg(runjson && strstr(runjson, "\"toolchain\"") && strstr(runjson, sha), "%s", runjson);

  /* With the annotator: the .pb it writes gives the overview; the cache has every module. */
  e2e_proc_free(&p);
  e2e_scratch_t r2 = results_in(&s, "r2");
  const char *args2[] = {suite, compile, run, annotate, "-j", "2", NULL};
  e2e_run(&r2, s.dir, NULL, args2, &p);
  ck_assert_msg(p.exit_code == 0, "exit %d\n%s\n%s", p.exit_code, p.out, p.err);
  ck_assert_msg(strstr(p.out, "Cache: 7 hits, 0 misses"), "%s", p.out);
  ck_assert_msg(strstr(p.out, "Slice 0") && strstr(p.out, "Model: conv2d_3x3_16x16x8_i8\n"), "%s",
                p.out);
  ck_assert_msg(!strstr(p.out, "no annotator"), "%s", p.out);
  char *run2 = e2e_only_run(&r2);
  static const char *const made[] = {"profile.pb", "annotated.csv", "profile.xlsx", "profile.csv"};
  for (size_t i = 0; i < 4; i++) {
    char *file = e2e_path("%s/smoke+matmul/%s", run2, made[i]);
    ck_assert_msg(e2e_exists(file), "no %s", file);
    free(file);
  }
  junit = (free(junit), e2e_path("%s/junit.xml", run2));
  e2e_junit_counts(junit, &t, &f, &er, &sk, &parser);
  ck_assert_uint_eq(t, 7);
  ck_assert_uint_eq(f + er, 0);
  e2e_proc_free(&p);
  free(junit);
  free(run1);
  free(run2);
  free(report);
  free(runjson);
  free(runjson_path);
  free(sha);
  free(compile_path);
  free(r1.results);
  free(r2.results);
  free(compile);
  free(run);
  free(annotate);
  free(suite);
  free(tools);
  e2e_scratch_free(&s);
}
END_TEST

/* ---- The cache ------------------------------------------------------------------------------ */

static char *write_add_suite(const e2e_scratch_t *s, const char *tools, const char *extra) {
  char *model = e2e_path("%s/models %s/add.mlir", s->dir, ODD);
  e2e_write_add_model(model);
  char *compile = e2e_path("%s/torq-compile", tools), *run = e2e_path("%s/torq-run-module", tools);
  char *qm = yq(model), *qc = yq(compile), *qr = yq(run);
  char *text = e2e_path(
      "suite: tc\ndefaults:\n  toolchain: {compile: %s, run: %s}\n"
      "  inputs: [\"4xi32=1,2,3,4\", \"4xi32=10,20,30,40\"]\ntests:\n  - name: add\n"
      "    model: %s\n%s",
      qc, qr, qm, extra ? extra : "");
  char *path = e2e_path("%s/tc.yaml", s->dir);
  e2e_write(path, text);
  free(text);
  free(qm);
  free(qc);
  free(qr);
  free(compile);
  free(run);
  free(model);
  return path;
}

START_TEST(a_new_compiler_binary_misses_the_cache_and_the_same_one_hits) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  char *tools = install_tools(&s, "tools");
  char *suite = write_add_suite(&s, tools, NULL);
  const char *args[] = {suite, NULL};
  static const char *const want[] = {"Cache: 0 hits, 1 miss\n", "Cache: 1 hit, 0 misses\n",
                                     "Cache: 0 hits, 1 miss\n", "Cache: 1 hit, 0 misses\n"};
  for (int i = 0; i < 4; i++) {
    if (i == 2) {
      /* A rebuilt compiler: the same program, other bytes. */
      char *path = e2e_path("%s/torq-compile", tools);
      FILE *fp = fopen(path, "a");
      ck_assert_ptr_nonnull(fp);
      fputs("# rebuilt\n", fp);
      fclose(fp);
      free(path);
    }
    e2e_proc_t p;
    e2e_run(&s, s.dir, NULL, args, &p);
    ck_assert_msg(p.exit_code == 0, "run %d: exit %d\n%s\n%s", i, p.exit_code, p.out, p.err);
    ck_assert_msg(strstr(p.out, want[i]), "run %d: want %s\n%s", i, want[i], p.out);
    e2e_proc_free(&p);
  }
  free(suite);
  free(tools);
  e2e_scratch_free(&s);
}
END_TEST

/* ---- Golden files --------------------------------------------------------------------------- */

static void write_i32(const char *path, const int32_t *v, int64_t n) {
  tqr_tensor_t *t = NULL;
  tq_status_t st = tqr_tensor_create(TORQ__ELEMENT_TYPE__I32, 1, &n, &t);
  ck_assert_msg(!st, "%s", tq_status_message(st));
  memcpy(t->data, v, (size_t)n * 4);
  st = tqr_npy_write(path, t);
  ck_assert_msg(!st, "%s", tq_status_message(st));
  tqr_tensor_destroy(t);
}

START_TEST(golden_files_pass_when_equal_and_fail_with_the_number_of_differences) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  char *tools = install_tools(&s, "tools");
  static const int32_t good[] = {11, 22, 33, 44}, bad[] = {11, 22, 34, 44};
  char *gp = e2e_path("%s/golden/good.npy", s.dir), *bp = e2e_path("%s/golden/bad.npy", s.dir);
  e2e_write(gp, "");
  write_i32(gp, good, 4);
  write_i32(bp, bad, 4);
  /* The same model with the built-in toolchain and with the external one. */
  char *qm = yq("models " ODD "/add.mlir");
  char *suite_text = e2e_path(
      "    reference: {golden: [golden/good.npy]}\n"
      "  - name: add_bad\n    model: %s\n    reference: {golden: [golden/bad.npy]}\n"
      "  - name: builtin_good\n    model: %s\n    toolchain: builtin\n"
      "    reference: {golden: [golden/good.npy]}\n"
      "  - name: builtin_bad\n    model: %s\n    toolchain: builtin\n"
      "    reference: {golden: [golden/bad.npy]}\n",
      qm, qm, qm);
  free(qm);
  char *suite = write_add_suite(&s, tools, suite_text);
  e2e_proc_t p;
  e2e_run(&s, s.dir, NULL, (const char *const[]){suite, NULL}, &p);
  ck_assert_msg(p.exit_code == 1, "exit %d\n%s\n%s", p.exit_code, p.out, p.err);
  ck_assert_msg(strstr(p.out, "4 tests: 2 passed, 2 failed"), "%s", p.out);
  char *run = e2e_only_run(&s);
  static const char *const bads[] = {"tc+add_bad", "tc+builtin_bad"};
  for (size_t i = 0; i < 2; i++) {
    char *report = test_file(run, bads[i], "report.json");
    ck_assert_msg(strstr(report, "differs from golden file bad.npy: Number of differences: 1") &&
                      strstr(report, "first at [2]: got 33, expected 34"),
                  "%s", report);
    ck_assert_msg(strstr(report, "\"mismatch\""), "%s", report);
    free(report);
  }
  e2e_proc_free(&p);
  free(run);
  free(suite);
  free(suite_text);
  free(gp);
  free(bp);
  free(tools);
  e2e_scratch_free(&s);
}
END_TEST

/* ---- Failures ------------------------------------------------------------------------------- */

/* Whether process `pid` runs (a zombie does not: it is dead, waiting for its reaper). */
static int pid_alive(long pid) {
  char *path = e2e_path("/proc/%ld/stat", pid);
  FILE *f = fopen(path, "r");
  free(path);
  char state = 'Z';
  int alive = f && fscanf(f, "%*d %*s %c", &state) == 1 && state != 'Z';
  if (f) fclose(f);
  return alive;
}

START_TEST(each_failure_wrapper_is_classified_and_the_run_goes_on) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  char *tools = install_tools(&s, "tools " ODD);
  char *model = e2e_path("%s/add.mlir", s.dir);
  e2e_write_add_model(model);
  static const struct {
    const char *name, *compile, *run, *outcome, *type, *says;
  } cases[] = {
      {"c_error", "torq-compile-error", "torq-run-module", "failed", "compile_error",
       "add.mlir:1:1: error: fake-toolchain"},
      {"c_crash", "torq-compile-crash", "torq-run-module", "error", "crash", "killed by SIGSEGV"},
      {"c_hang", "torq-compile-hang", "torq-run-module", "error", "timeout",
       "the compile phase took longer than 2s"},
      {"c_missing", "no-such-compiler", "torq-run-module", "error", "toolchain",
       "no-such-compiler: No such file or directory"},
      {"r_crash", "torq-compile", "torq-run-module-crash", "error", "crash", "torq-run-module ("},
      {"r_hang", "torq-compile", "torq-run-module-hang", "error", "timeout",
       "the run phase took longer than 2s"},
      {"r_wrong", "torq-compile", "torq-run-module-wrong", "failed", "mismatch",
       "Number of differences: 1"},
      {"ok", "torq-compile", "torq-run-module", "passed", NULL, NULL},
  };
  size_t n = sizeof(cases) / sizeof(cases[0]);
  char *text = strdup("suite: fail\ndefaults:\n  timeout: 2\ntests:\n");
  for (size_t i = 0; i < n; i++) {
    char *c = e2e_path("%s/%s", tools, cases[i].compile),
         *r = e2e_path("%s/%s", tools, cases[i].run);
    char *qc = yq(c), *qr = yq(r);
    char *t =
        e2e_path("%s  - name: %s\n    model: add.mlir\n    toolchain: {compile: %s, run: %s}\n",
                 text, cases[i].name, qc, qr);
    free(text);
    text = t;
    free(c);
    free(r);
    free(qc);
    free(qr);
  }
  char *suite = e2e_path("%s/fail.yaml", s.dir);
  e2e_write(suite, text);
  char *pids = e2e_path("%s/pids", s.dir);
  char *pids_env = e2e_path("TORQ_FAKE_PIDS=%s", pids);
  e2e_proc_t p;
  e2e_run(&s, s.dir, (const char *const[]){pids_env, NULL}, (const char *const[]){suite, NULL}, &p);
  ck_assert_msg(p.exit_code == 1, "exit %d\n%s\n%s", p.exit_code, p.out, p.err);
  ck_assert_msg(strstr(p.out, "8 tests: 1 passed, 2 failed, 5 error"), "%s", p.out);
  char *run = e2e_only_run(&s);
  for (size_t i = 0; i < n; i++) {
    char *folder = e2e_path("fail+%s", cases[i].name);
    char *report = test_file(run, folder, "report.json");
    char *outcome = e2e_path("\"outcome\": \"%s\"", cases[i].outcome);
    char *outcome2 = e2e_path("\"outcome\":\"%s\"", cases[i].outcome);
    ck_assert_msg(strstr(report, outcome) || strstr(report, outcome2), "%s: %s", cases[i].name,
                  report);
    if (cases[i].type) {
      char *type = e2e_path("\"%s\"", cases[i].type);
      ck_assert_msg(strstr(report, type) && strstr(report, cases[i].says), "%s: %s", cases[i].name,
                    report);
      free(type);
    }
    free(outcome);
    free(outcome2);
    free(report);
    free(folder);
  }
  /* The hanging programs' children went with their process groups. */
  char *listed = e2e_read(pids);
  ck_assert_msg(listed && e2e_count(listed, "\n") == 2, "%s", listed ? listed : "no pids");
  for (char *line = strtok(listed, "\n"); line; line = strtok(NULL, "\n")) {
    long pid = atol(line);
    for (int i = 0; i < 100 && pid_alive(pid); i++) usleep(10000);
    ck_assert_msg(!pid_alive(pid), "the hanging wrapper's child %ld outlived its test", pid);
  }
  free(listed);
  free(pids);
  free(pids_env);
  e2e_proc_free(&p);
  free(run);
  free(suite);
  free(text);
  free(model);
  free(tools);
  e2e_scratch_free(&s);
}
END_TEST

/* ---- A loopback board ----------------------------------------------------------------------- */

/* The boards a test started, one folder per line: a test that fails stops short of stopping its
 * board, so the tcase's teardown (in the parent) stops what is listed. */
static char g_boards[4096];

static void boards_setup(void) {
  const char *tmp = getenv("TMPDIR");
  snprintf(g_boards, sizeof(g_boards), "%s/torq-e2e-toolchain-boards-%ld.list",
           tmp && *tmp ? tmp : "/tmp", (long)getpid());
  unlink(g_boards);
}

static void boards_teardown(void) {
  char *list = e2e_read(g_boards);
  char *script = e2e_path("%s/scripts/test-board", e2e_top());
  for (char *line = list ? strtok(list, "\n") : NULL; line; line = strtok(NULL, "\n")) {
    const char *stop[] = {"/bin/sh", "-c", "\"$0\" stop \"$1\" >/dev/null 2>&1",
                          script,    line, NULL};
    pid_t pid = fork();
    if (pid == 0) {
      execv(stop[0], (char *const *)stop);
      _exit(127);
    }
    if (pid > 0) waitpid(pid, NULL, 0);
  }
  free(script);
  free(list);
  unlink(g_boards);
}

static int have_board_tools(void) {
  if (!tq_test_tool("TORQ_SSHD", "sshd", "apt-get install openssh-server")) return 0;
  if (system("command -v ssh-keygen >/dev/null 2>&1") == 0) return 1;
  tq_test_missing("ssh-keygen: not found in $PATH", "apt-get install openssh-client");
  return 0;
}

START_TEST(board_and_local_runs_take_paths_with_spaces_and_quotes) {
  if (!have_board_tools()) return;
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  char *tools = install_tools(&s, "tools " ODD);
  char *bdir = e2e_path("%s/board", s.dir);
  char *script = e2e_path("%s/scripts/test-board", e2e_top());
  FILE *list = fopen(g_boards, "a");
  if (list) {
    fprintf(list, "%s\n", bdir);
    fclose(list);
  }
  const char *start[] = {"/bin/sh", "-c", "\"$0\" start \"$1\" >/dev/null", script, bdir, NULL};
  ck_assert_int_eq(run_argv(start), 0);
  char *port_path = e2e_path("%s/port", bdir);
  char *port = e2e_read(port_path);
  ck_assert_ptr_nonnull(port);
  struct passwd *pw = getpwuid(getuid());
  char *root = e2e_path("%s/root " ODD, s.dir);
  char *qroot = yq(root), *qkey = NULL, *qkh = NULL;
  char *key = e2e_path("%s/id_ed25519", bdir), *kh = e2e_path("%s/known_hosts", bdir);
  qkey = yq(key);
  qkh = yq(kh);
  char *config = e2e_path(
      "boards:\n  - name: astra1\n    host: 127.0.0.1\n    port: %d\n    user: %s\n"
      "    key_file: %s\n    known_hosts: %s\n    board_root: %s\n",
      atoi(port), pw ? pw->pw_name : "root", qkey, qkh, qroot);
  char *config_path = e2e_path("%s/configs/boards.yaml", s.dir);
  e2e_write(config_path, config);
  /* The compiler and the annotator as argv lists (an interpreter and its script). */
  char *compile = e2e_path("%s/torq-compile", tools), *run = e2e_path("%s/torq-run-module", tools);
  char *annotate = e2e_path("%s/torq-annotate", tools);
  char *qc = yq(compile), *qr = yq(run), *qa = yq(annotate);
  char *qm = yq("models " ODD "/add.mlir");
  /* add: with the annotator; add_csv: without (the suite's defaults). */
  char *extra = e2e_path(
      "    toolchain: {compile: [/bin/sh, %s], run: %s, annotate: [/bin/sh, %s]}\n"
      "  - name: add_csv\n    model: %s\n",
      qc, qr, qa, qm);
  free(qm);
  char *suite = write_add_suite(&s, tools, extra);
  e2e_scratch_t local = results_in(&s, "local"), board = results_in(&s, "onboard");
  e2e_proc_t p;
  e2e_run(&local, s.dir, NULL, (const char *const[]){suite, "-v", NULL}, &p);
  ck_assert_msg(p.exit_code == 0, "exit %d\n%s\n%s", p.exit_code, p.out, p.err);
  ck_assert_msg(strstr(p.out, "2 tests: 2 passed"), "%s", p.out);
  ck_assert_msg(e2e_count(p.out, "reference: 1 output match") == 2, "%s", p.out);
  e2e_proc_free(&p);
  e2e_run(&board, s.dir, NULL,
          (const char *const[]){suite, "--torq-runtime-hw-type=astra_machina",
                                "--update-astra-runtime", "-v", NULL},
          &p);
  ck_assert_msg(p.exit_code == 0, "exit %d\n%s\n%s", p.exit_code, p.out, p.err);
  ck_assert_msg(strstr(p.out, "runtime uploaded ("), "%s", p.out);
  ck_assert_msg(strstr(p.out, "2 tests: 2 passed"), "%s", p.out);
  ck_assert_msg(e2e_count(p.out, "reference: 1 output match") == 2, "%s", p.out);
  /* The overview with the annotator's .pb, and from the CSV alone. */
  ck_assert_msg(strstr(p.out, "Model: add\n") && strstr(p.out, "Slice 0"), "%s", p.out);
  ck_assert_msg(strstr(p.out, "Model: add (profile.csv alone: no annotator)"), "%s", p.out);
  /* The board's runtime is the external one, byte for byte. */
  char *remote = e2e_path("%s/%s/torq-run-module", root, pw ? pw->pw_name : "root");
  char *want = e2e_sha256_file(run), *have = e2e_sha256_file(remote);
  ck_assert_msg(have && !strcmp(want, have), "%s is not the external runtime", remote);
  char *runb = e2e_only_run(&board);
  char *report = test_file(runb, "tc+add", "report.json");
  ck_assert_msg(strstr(report, "\"board\"") && strstr(report, "\"toolchain.run\""), "%s", report);
  e2e_proc_free(&p);
  /* The smoke suite on the board through the wrappers, annotated. */
  char *smoke = e2e_path("%s/suites/smoke.yaml", e2e_top());
  char *oc = e2e_path("--toolchain-compile=%s", compile), *orun = e2e_path("--toolchain-run=%s", run);
  char *oa = e2e_path("--toolchain-annotate=%s", annotate);
  e2e_scratch_t board_smoke = results_in(&s, "onboard-smoke");
  /* The smoke suite's project has its own configs/: the board's comes with --config. */
  char *oconf = e2e_path("--config=%s/configs", s.dir);
  e2e_run(&board_smoke, s.dir, NULL,
          (const char *const[]){smoke, oc, orun, oa, oconf, "--torq-runtime-hw-type=astra_machina",
                                "--repeat", "1", NULL},
          &p);
  free(oconf);
  ck_assert_msg(p.exit_code == 0, "exit %d\n%s\n%s", p.exit_code, p.out, p.err);
  ck_assert_msg(strstr(p.out, "7 tests: 7 passed") && strstr(p.out, "Slice 0"), "%s", p.out);
  char *runs = e2e_only_run(&board_smoke);
  size_t t = 0, f = 0, er = 0, sk = 0;
  const char *parser = NULL;
  char *junit = e2e_path("%s/junit.xml", runs);
  e2e_junit_counts(junit, &t, &f, &er, &sk, &parser);
  ck_assert_uint_eq(t, 7);
  ck_assert_uint_eq(f + er, 0);
  e2e_proc_free(&p);
  free(junit);
  free(runs);
  free(board_smoke.results);
  free(oc);
  free(orun);
  free(oa);
  free(smoke);
  const char *stop[] = {"/bin/sh", "-c", "\"$0\" stop \"$1\" >/dev/null", script, bdir, NULL};
  ck_assert_int_eq(run_argv(stop), 0);
  free(report);
  free(runb);
  free(want);
  free(have);
  free(remote);
  free(suite);
  free(extra);
  free(qc);
  free(qr);
  free(qa);
  free(compile);
  free(run);
  free(annotate);
  free(config_path);
  free(config);
  free(key);
  free(kh);
  free(qkey);
  free(qkh);
  free(qroot);
  free(root);
  free(port);
  free(port_path);
  free(script);
  free(bdir);
  free(local.results);
  free(board.results);
  free(tools);
  e2e_scratch_free(&s);
}
END_TEST

Suite *e2e_suite_toolchain(void) {
  Suite *s = suite_create("toolchain");
  TCase *tc = tcase_create("toolchain");
  tcase_set_timeout(tc, 300);
  tcase_add_unchecked_fixture(tc, boards_setup, boards_teardown);
  tcase_add_test(tc, smoke_suite_runs_through_the_wrappers_with_and_without_an_annotator);
  tcase_add_test(tc, a_new_compiler_binary_misses_the_cache_and_the_same_one_hits);
  tcase_add_test(tc, golden_files_pass_when_equal_and_fail_with_the_number_of_differences);
  tcase_add_test(tc, each_failure_wrapper_is_classified_and_the_run_goes_on);
  tcase_add_test(tc, board_and_local_runs_take_paths_with_spaces_and_quotes);
  suite_add_tcase(s, tc);
  return s;
}
