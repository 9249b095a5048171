/* Helpers of the end-to-end tests: processes, scratch folders, files, junit.xml validation. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "e2e.h"
#include "torq/base/sha256.h"

extern char **environ;

const char *e2e_top(void) {
  return tq_test_top();
}

const char *e2e_bin(void) {
  static char bin[PATH_MAX + 64];
  if (!bin[0]) snprintf(bin, sizeof(bin), "%s/torq-test", tq_test_bin());
  return bin;
}

const char *e2e_bin_faults(void) {
  static char bin[PATH_MAX + 64];
  if (!bin[0]) snprintf(bin, sizeof(bin), "%s/../tests/torq-test-faults", tq_test_bin());
  return bin;
}

int e2e_light(void) {
  const char *v = getenv("TORQ_VALGRIND");
  return v && *v;
}

char *e2e_path(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *s = NULL;
  int n = vasprintf(&s, fmt, ap);
  va_end(ap);
  ck_assert_int_ge(n, 0);
  return s;
}

static void mkdirs(const char *path) {
  char *p = strdup(path);
  for (char *q = p + 1; *q; q++) {
    if (*q != '/') continue;
    *q = 0;
    mkdir(p, 0777);
    *q = '/';
  }
  mkdir(p, 0777);
  free(p);
}

void e2e_write(const char *path, const char *text) {
  char *dir = strdup(path);
  char *slash = strrchr(dir, '/');
  if (slash) {
    *slash = 0;
    mkdirs(dir);
  }
  free(dir);
  FILE *f = fopen(path, "w");
  ck_assert_msg(f != NULL, "cannot write %s: %s", path, strerror(errno));
  fputs(text, f);
  ck_assert_int_eq(fclose(f), 0);
}

char *e2e_read(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 4096, len = 0;
  char *data = malloc(cap);
  size_t n;
  while ((n = fread(data + len, 1, cap - len - 1, f)) > 0) {
    len += n;
    if (cap - len < 2) data = realloc(data, cap *= 2);
  }
  fclose(f);
  data[len] = 0;
  return data;
}

int e2e_exists(const char *path) { return access(path, F_OK) == 0; }

size_t e2e_count(const char *haystack, const char *needle) {
  size_t n = 0, len = strlen(needle);
  if (!haystack || !len) return 0;
  for (const char *p = haystack; (p = strstr(p, needle)); p += len) n++;
  return n;
}

static void remove_tree(const char *path) {
  struct stat sb;
  if (lstat(path, &sb) != 0) return;
  if (S_ISDIR(sb.st_mode)) {
    DIR *d = opendir(path);
    struct dirent *e;
    while (d && (e = readdir(d))) {
      if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
      char *child = e2e_path("%s/%s", path, e->d_name);
      remove_tree(child);
      free(child);
    }
    if (d) closedir(d);
    rmdir(path);
  } else {
    unlink(path);
  }
}

void e2e_scratch_init(e2e_scratch_t *s) {
  const char *tmp = getenv("TMPDIR");
  char *templ = e2e_path("%s/torq-e2e-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  ck_assert_msg(mkdtemp(templ) != NULL, "mkdtemp: %s", strerror(errno));
  s->dir = templ;
  s->results = e2e_path("%s/results", templ);
  s->cache = e2e_path("%s/cache", templ);
}

void e2e_scratch_free(e2e_scratch_t *s) {
  const char *keep = getenv("TORQ_E2E_KEEP");
  if (!(keep && *keep)) remove_tree(s->dir);
  free(s->dir);
  free(s->results);
  free(s->cache);
}

/* Whether `env` holds the bare NAME of the variable `var` ("NAME=VALUE"): unset it. */
static int unset_by(const char *const *env, const char *var) {
  size_t n = strcspn(var, "=");
  for (size_t i = 0; env && env[i]; i++)
    if (!strchr(env[i], '=') && strlen(env[i]) == n && !strncmp(env[i], var, n)) return 1;
  return 0;
}

/* The child's environment: ours (but the settings the tests set themselves, and a Torq dashboard
 * a developer's shell points at: no test uploads there unless it says so), the scratch folders,
 * then `env` (where a bare NAME unsets). */
static char **child_env(const e2e_scratch_t *s, const char *const *env) {
  size_t n = 0, extra = 0;
  while (environ[n]) n++;
  while (env && env[extra]) extra++;
  char **v = calloc(n + extra + 4, sizeof(char *));
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    if (!strncmp(environ[i], "TORQ_CACHE_DIR=", 15) || !strncmp(environ[i], "TORQ_RESULTS_DIR=", 17) ||
        !strncmp(environ[i], "TORQ_JOBS=", 10) || !strncmp(environ[i], "TORQ_REPEAT=", 12) ||
        !strncmp(environ[i], "TORQ_WARMUP=", 12) || !strncmp(environ[i], "TORQ_CONFIG=", 12) ||
        !strncmp(environ[i], "CK_", 3) || !strncmp(environ[i], "TORQ_PERF_", 10))
      continue;
    v[k++] = strdup(environ[i]);
  }
  const char *cache = "TORQ_CACHE_DIR=", *results = "TORQ_RESULTS_DIR=";
  if (!unset_by(env, cache)) v[k++] = e2e_path("%s%s", cache, s->cache);
  if (!unset_by(env, results)) v[k++] = e2e_path("%s%s", results, s->results);
  for (size_t i = 0; i < extra; i++)
    if (strchr(env[i], '=')) v[k++] = strdup(env[i]);
  v[k] = NULL;
  return v;
}

static void free_env(char **v) {
  for (size_t i = 0; v[i]; i++) free(v[i]);
  free(v);
}

static pid_t start(const char *bin, const e2e_scratch_t *s, const char *cwd, const char *const *env,
                   const char *const *args, int out_fd, int err_fd) {
  size_t n = 0;
  while (args[n]) n++;
  char **argv = calloc(n + 2, sizeof(char *));
  argv[0] = (char *)bin;
  for (size_t i = 0; i < n; i++) argv[i + 1] = (char *)args[i];
  char **envp = child_env(s, env);
  fflush(NULL);
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    if (cwd && chdir(cwd) != 0) _exit(126);
    int devnull = open("/dev/null", O_RDONLY);
    dup2(devnull, 0);
    dup2(out_fd, 1);
    dup2(err_fd, 2);
    /* The tool must see the signals its tests send. */
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    execve(argv[0], argv, envp);
    _exit(127);
  }
  free(argv);
  free_env(envp);
  return pid;
}

int e2e_wait(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

static void run_bin(const char *bin, const e2e_scratch_t *s, const char *cwd,
                    const char *const *env, const char *const *args, e2e_proc_t *out) {
  char *outp = e2e_path("%s/.stdout", s->dir), *errp = e2e_path("%s/.stderr", s->dir);
  int of = open(outp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  int ef = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ck_assert(of >= 0 && ef >= 0);
  pid_t pid = start(bin, s, cwd, env, args, of, ef);
  close(of);
  close(ef);
  out->exit_code = e2e_wait(pid);
  out->out = e2e_read(outp);
  out->err = e2e_read(errp);
  free(outp);
  free(errp);
}

static pid_t spawn_bin(const char *bin, const e2e_scratch_t *s, const char *cwd,
                       const char *const *env, const char *const *args) {
  char *outp = e2e_path("%s/.stdout", s->dir), *errp = e2e_path("%s/.stderr", s->dir);
  int of = open(outp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  int ef = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ck_assert(of >= 0 && ef >= 0);
  pid_t pid = start(bin, s, cwd, env, args, of, ef);
  close(of);
  close(ef);
  free(outp);
  free(errp);
  return pid;
}

void e2e_run_program(const char *program, const e2e_scratch_t *s, const char *cwd,
                     const char *const *env, const char *const *args, e2e_proc_t *out) {
  run_bin(program, s, cwd, env, args, out);
}

void e2e_run(const e2e_scratch_t *s, const char *cwd, const char *const *env,
             const char *const *args, e2e_proc_t *out) {
  run_bin(e2e_bin(), s, cwd, env, args, out);
}

void e2e_run_faults(const e2e_scratch_t *s, const char *cwd, const char *const *env,
                    const char *const *args, e2e_proc_t *out) {
  run_bin(e2e_bin_faults(), s, cwd, env, args, out);
}

pid_t e2e_spawn(const e2e_scratch_t *s, const char *cwd, const char *const *env,
                const char *const *args) {
  return spawn_bin(e2e_bin(), s, cwd, env, args);
}

pid_t e2e_spawn_faults(const e2e_scratch_t *s, const char *cwd, const char *const *env,
                       const char *const *args) {
  return spawn_bin(e2e_bin_faults(), s, cwd, env, args);
}

void e2e_proc_free(e2e_proc_t *p) {
  free(p->out);
  free(p->err);
  p->out = p->err = NULL;
}

static size_t list_runs(const e2e_scratch_t *s, char **first) {
  DIR *d = opendir(s->results);
  size_t n = 0;
  if (first) *first = NULL;
  struct dirent *e;
  while (d && (e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char *p = e2e_path("%s/%s", s->results, e->d_name);
    struct stat sb;
    if (stat(p, &sb) == 0 && S_ISDIR(sb.st_mode)) {
      n++;
      if (first && !*first) {
        *first = p;
        p = NULL;
      }
    }
    free(p);
  }
  if (d) closedir(d);
  return n;
}

size_t e2e_num_runs(const e2e_scratch_t *s) { return list_runs(s, NULL); }

char *e2e_run_folder(const e2e_proc_t *p) {
  const char *r = strstr(p->out, "Results: ");
  ck_assert_msg(r != NULL, "no Results line:\n%s\n%s", p->out, p->err);
  r += 9;
  size_t n = strcspn(r, "\n");
  if (n && r[n - 1] == '/') n--;
  return strndup(r, n);
}

char *e2e_only_run(const e2e_scratch_t *s) {
  char *first = NULL;
  size_t n = list_runs(s, &first);
  ck_assert_msg(n == 1, "expected one run folder under %s, found %zu", s->results, n);
  return first;
}

size_t e2e_journal_count(const char *run_dir, const char *outcome) {
  char *path = e2e_path("%s/journal.jsonl", run_dir);
  char *text = e2e_read(path);
  free(path);
  if (!text) return 0;
  size_t n;
  if (outcome) {
    char *needle = e2e_path("\"outcome\":\"%s\"", outcome);
    n = e2e_count(text, needle);
    free(needle);
  } else {
    n = e2e_count(text, "\n");
  }
  free(text);
  return n;
}

static const char k_junit_py[] =
    "import sys\n"
    "from junitparser import JUnitXml, TestSuite, Failure, Error, Skipped\n"
    "xml = JUnitXml.fromfile(sys.argv[1])\n"
    "suites = [xml] if isinstance(xml, TestSuite) else list(xml)\n"
    "t = f = e = s = 0\n"
    "for suite in suites:\n"
    "    n = 0\n"
    "    for case in suite:\n"
    "        n += 1\n"
    "        r = case.result\n"
    "        f += any(isinstance(x, Failure) for x in r)\n"
    "        e += any(isinstance(x, Error) for x in r)\n"
    "        s += any(isinstance(x, Skipped) for x in r)\n"
    "    assert suite.tests == n, (suite.name, suite.tests, n)\n"
    "    t += n\n"
    "print(t, f, e, s)\n";

void e2e_junit_counts(const char *path, size_t *tests, size_t *failures, size_t *errors,
                      size_t *skipped, const char **out_parser) {
  *tests = *failures = *errors = *skipped = 0;
  const char *python = tq_test_python_module("junitparser", "python3-junitparser");
  if (python) {
    *out_parser = "python3-junitparser";
    char *script = e2e_path("%s.check.py", path);
    e2e_write(script, k_junit_py);
    char *cmd = e2e_path("'%s' '%s' '%s' 2>&1", python, script, path);
    FILE *p = popen(cmd, "r");
    ck_assert(p != NULL);
    char line[4096] = {0};
    size_t len = fread(line, 1, sizeof(line) - 1, p);
    line[len] = 0;
    int rc = pclose(p);
    ck_assert_msg(rc == 0, "junitparser rejected %s:\n%s", path, line);
    ck_assert_msg(sscanf(line, "%zu %zu %zu %zu", tests, failures, errors, skipped) == 4,
                  "unexpected output: %s", line);
    unlink(script);
    free(script);
    free(cmd);
    return;
  }
  /* No junitparser (outside CI, a counted skip): the structure CI readers need, checked by hand. */
  *out_parser = "structural check";
  char *xml = e2e_read(path);
  ck_assert_msg(xml != NULL, "no %s", path);
  ck_assert_msg(!strncmp(xml, "<?xml", 5), "%s: no XML declaration", path);
  ck_assert_msg(strstr(xml, "</testsuites>") != NULL, "%s: not closed", path);
  *tests = e2e_count(xml, "<testcase ");
  *failures = e2e_count(xml, "<failure ");
  *errors = e2e_count(xml, "<error ");
  *skipped = e2e_count(xml, "<skipped");
  ck_assert_uint_eq(e2e_count(xml, "<testsuite "), e2e_count(xml, "</testsuite>"));
  free(xml);
}

void e2e_write_add_model(const char *path) {
  e2e_write(path,
            "module {\n"
            "  func.func @main(%arg0: tensor<4xi32>, %arg1: tensor<4xi32>) -> tensor<4xi32> {\n"
            "    %0 = tosa.add %arg0, %arg1 : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>\n"
            "    return %0 : tensor<4xi32>\n"
            "  }\n"
            "}\n");
}

void e2e_write_broken_model(const char *path) {
  /* Parses, but the types do not agree: the compiler refuses it with a located error. */
  e2e_write(path,
            "module {\n"
            "  func.func @main(%arg0: tensor<4xi32>, %arg1: tensor<4xi32>) -> tensor<4xi32> {\n"
            "    %0 = tosa.add %arg0, %arg1 : (tensor<4xi32>, tensor<4xi32>) -> tensor<8xi32>\n"
            "    return %0 : tensor<8xi32>\n"
            "  }\n"
            "}\n");
}

int e2e_server_start(const e2e_scratch_t *s, const char *script, const char *dir,
                     const char *const *args, e2e_server_t *out) {
  char *path = e2e_path("%s/server.py", s->dir);
  e2e_write(path, script);
  int started = e2e_server_start_file(s, path, dir, args, out);
  free(path);
  return started;
}

int e2e_server_start_file(const e2e_scratch_t *s, const char *path, const char *dir,
                          const char *const *args, e2e_server_t *out) {
  const char *python = tq_test_python();
  if (!python) return 0;
  char *portfile = e2e_path("%s/.port", dir);
  unlink(portfile);
  out->log = e2e_path("%s/server.log", s->dir);
  const char *argv[16] = {"python3", path, dir};
  size_t n = 3;
  for (size_t i = 0; args && args[i] && n < 15; i++) argv[n++] = args[i];
  argv[n] = NULL;
  fflush(NULL);
  out->pid = fork();
  ck_assert_int_ge(out->pid, 0);
  if (out->pid == 0) {
    FILE *log = freopen(out->log, "w", stderr);
    (void)log;
    execv(python, (char *const *)argv);
    _exit(127);
  }
  char *text = NULL;
  for (int i = 0; i < 1000 && !text; i++) {
    text = e2e_read(portfile);
    if (!text) {
      struct timespec ts = {0, 10000000};
      nanosleep(&ts, NULL);
    }
  }
  ck_assert_msg(text != NULL, "the HTTP server did not start (see %s)", out->log);
  out->port = atoi(text);
  free(text);
  free(portfile);
  return 1;
}

void e2e_server_stop(e2e_server_t *srv) {
  kill(srv->pid, SIGTERM);
  e2e_wait(srv->pid);
  free(srv->log);
}

char *e2e_sha256_file(const char *path) {
  uint8_t d[TQ_SHA256_SIZE];
  char hex[TQ_SHA256_HEX_SIZE];
  tq_status_t st = tq_sha256_file(path, d);
  ck_assert_msg(st == NULL, "cannot hash %s", path);
  tq_sha256_hex(d, hex);
  return strdup(hex);
}

void e2e_upload_sends_nothing(const e2e_scratch_t *s, const char *const *env, const char *run,
                              const char *log_path, const char *log) {
  e2e_proc_t again;
  e2e_run(s, e2e_top(), env, (const char *const[]){"upload", run, NULL}, &again);
  ck_assert_msg(again.exit_code == 0, "exit %d\n%s\n%s", again.exit_code, again.out, again.err);
  ck_assert_ptr_nonnull(strstr(again.out, "Upload: 0 items sent"));
  char *after = e2e_read(log_path);
  ck_assert_str_eq(after, log);
  free(after);
  e2e_proc_free(&again);
}
