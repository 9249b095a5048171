/* Test support shared by every test binary: the one way to skip, prerequisites, and the paths of
 * this repository (tq_test.h). */
#include "tq_test.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define TQ_TEST_MARKER "runtime/base/testing/tq_test.h"

int tq_test_ci(void) {
  const char *v = getenv("CI");
  return v && *v && strcmp(v, "0") != 0 && strcasecmp(v, "false") != 0;
}

/* ---- Recording skips ------------------------------------------------------------------------ */

static void record(const char *reason) {
  const char *test = tcase_name();
  char line[4096];
  int n = snprintf(line, sizeof(line), "%s: %s: %s", program_invocation_short_name,
                   test ? test : "?", reason);
  if (n < 0) return;
  size_t len = (size_t)n < sizeof(line) - 1 ? (size_t)n : sizeof(line) - 2;
  for (size_t i = 0; i < len; i++)
    if (line[i] == '\n' || line[i] == '\r') line[i] = ' ';
  line[len++] = '\n';
  fprintf(stderr, "SKIPPED %.*s", (int)len, line);
  const char *log = getenv("TORQ_SKIP_LOG");
  if (!log || !*log) return;
  /* One write of one line with O_APPEND: lines from forked tests never interleave. */
  int fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    fprintf(stderr, "tq_test: cannot record the skip in %s: %s\n", log, strerror(errno));
    return;
  }
  if (write(fd, line, len) != (ssize_t)len)
    fprintf(stderr, "tq_test: cannot record the skip in %s: %s\n", log, strerror(errno));
  close(fd);
}

void tq_test_skip(const char *fmt, ...) {
  char reason[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(reason, sizeof(reason), fmt, ap);
  va_end(ap);
  record(reason);
}

void tq_test__missing(const char *file, int line, const char *what, const char *how) {
  if (tq_test_ci())
    _ck_assert_failed(file, line, "Failed",
                      "missing prerequisite: %s; install it: %s (CI is set, so a missing "
                      "prerequisite fails the test; without CI it is a skip)",
                      what, how);
  tq_test_skip("missing prerequisite: %s; install it: %s", what, how);
}

/* ---- The summary ---------------------------------------------------------------------------- */

static long file_size(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 ? (long)st.st_size : 0;
}

/* The "binary: test" part of a skip line: its length up to the second ": ". */
static size_t test_key_len(const char *line) {
  const char *a = strstr(line, ": ");
  const char *b = a ? strstr(a + 2, ": ") : NULL;
  return b ? (size_t)(b - line) : strlen(line);
}

/* Prints the skips recorded in `log` from byte `from` on: the number of tests, then each distinct
 * line once (a loop test skips once per iteration), with how many times it came. */
static void print_skips(const char *log, long from) {
  FILE *f = fopen(log, "r");
  if (!f) return;
  if (fseek(f, from, SEEK_SET) != 0) {
    fclose(f);
    return;
  }
  struct {
    char *text;
    size_t times;
  } *lines = NULL;
  size_t n = 0, cap = 0, tests = 0;
  char *line = NULL;
  size_t size = 0;
  ssize_t len;
  while ((len = getline(&line, &size, f)) > 0) {
    if (line[len - 1] == '\n') line[--len] = 0;
    size_t key = test_key_len(line), same = n;
    int seen = 0;
    for (size_t i = 0; i < n; i++) {
      seen |= test_key_len(lines[i].text) == key && strncmp(lines[i].text, line, key) == 0;
      if (strcmp(lines[i].text, line) == 0) same = i;
    }
    tests += !seen;
    if (same < n) {
      lines[same].times++;
      continue;
    }
    if (n == cap) {
      size_t grown = cap ? 2 * cap : 16;
      void *more = realloc(lines, grown * sizeof(*lines));
      if (!more) break;
      lines = more;
      cap = grown;
    }
    lines[n].text = strdup(line);
    lines[n].times = 1;
    if (lines[n].text) n++;
  }
  free(line);
  fclose(f);
  if (n) {
    printf("%zu test%s skipped:\n", tests, tests == 1 ? "" : "s");
    for (size_t i = 0; i < n; i++) {
      if (lines[i].times > 1)
        printf("  %s (%zu times)\n", lines[i].text, lines[i].times);
      else
        printf("  %s\n", lines[i].text);
    }
  }
  for (size_t i = 0; i < n; i++) free(lines[i].text);
  free(lines);
  fflush(stdout);
}

int tq_test_run(SRunner *sr) {
  char own[PATH_MAX] = "";
  const char *log = getenv("TORQ_SKIP_LOG");
  if (!log || !*log) {
    const char *tmp = getenv("TMPDIR");
    snprintf(own, sizeof(own), "%s/torq-skips-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    int fd = mkstemp(own);
    if (fd >= 0) {
      close(fd);
      setenv("TORQ_SKIP_LOG", own, 1);
    } else {
      own[0] = 0;
    }
    log = own[0] ? own : NULL;
  }
  long from = log ? file_size(log) : 0;
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  if (log) print_skips(log, from);
  if (own[0]) {
    unlink(own);
    unsetenv("TORQ_SKIP_LOG");
  }
  return failed ? 1 : 0;
}

/* ---- Paths ---------------------------------------------------------------------------------- */

static int is_executable_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* The folder of the running binary, or "" when /proc/self/exe cannot be read. */
static const char *exe_dir(void) {
  static char dir[PATH_MAX];
  if (!dir[0]) {
    ssize_t n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
    dir[n > 0 ? n : 0] = 0;
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
  }
  return dir;
}

/* Walks up from `start` to the folder that holds TQ_TEST_MARKER; writes it into `out`. */
static int find_top_from(const char *start, char out[PATH_MAX]) {
  char dir[PATH_MAX];
  snprintf(dir, sizeof(dir), "%s", start);
  while (dir[0]) {
    char probe[PATH_MAX + sizeof(TQ_TEST_MARKER) + 1];
    snprintf(probe, sizeof(probe), "%s/%s", dir, TQ_TEST_MARKER);
    if (access(probe, F_OK) == 0) {
      snprintf(out, PATH_MAX, "%s", dir);
      return 1;
    }
    char *slash = strrchr(dir, '/');
    if (!slash) break;
    *slash = 0;
  }
  return 0;
}

const char *tq_test_top(void) {
  static char top[PATH_MAX];
  if (!top[0]) {
    const char *env = getenv("TORQ_TOP");
    char cwd[PATH_MAX];
    if (env && *env)
      snprintf(top, sizeof(top), "%s", env);
    else if (!find_top_from(exe_dir(), top) &&
             !(getcwd(cwd, sizeof(cwd)) && find_top_from(cwd, top)))
      snprintf(top, sizeof(top), "."); /* not found: the paths below name what is missing */
  }
  return top;
}

const char *tq_test_bin(void) {
  static char bin[PATH_MAX];
  if (!bin[0]) {
    const char *env = getenv("TORQ_BIN");
    if (env && *env)
      snprintf(bin, sizeof(bin), "%s", env);
    else
      snprintf(bin, sizeof(bin), "%.*s/../bin", PATH_MAX - 8, exe_dir());
  }
  return bin;
}

const char *tq_test_testdata(void) {
  static char data[PATH_MAX];
  if (!data[0]) {
    const char *env = getenv("TORQ_TESTDATA");
    if (env && *env)
      snprintf(data, sizeof(data), "%s", env);
    else
      snprintf(data, sizeof(data), "%.*s/../shared/testdata", PATH_MAX - 32, tq_test_top());
  }
  return data;
}

const char *tq_test__own_tool(const char *file, int line, const char *name) {
  static char path[PATH_MAX];
  snprintf(path, sizeof(path), "%s/%s", tq_test_bin(), name);
  if (!is_executable_file(path))
    _ck_assert_failed(file, line, "Failed",
                      "%s is not there: build it with make (the tools are found in $TORQ_BIN, else "
                      "beside the test binary's folder)",
                      path);
  return path;
}

/* ---- Prerequisites -------------------------------------------------------------------------- */

/* Looks `name` (no slash) up in $PATH, then in the sbin folders (sshd lives there and a user's
 * $PATH often lacks them); writes the hit into `out`. */
static int search_path(const char *name, char out[PATH_MAX]) {
  const char *paths[] = {getenv("PATH"), "/usr/local/sbin:/usr/sbin:/sbin"};
  for (size_t i = 0; i < 2; i++) {
    for (const char *p = paths[i] ? paths[i] : ""; *p;) {
      size_t len = strcspn(p, ":");
      snprintf(out, PATH_MAX, "%.*s/%s", (int)len, len ? p : ".", name);
      if (is_executable_file(out)) return 1;
      p += len + (p[len] == ':');
    }
  }
  return 0;
}

/* One slot per variable, so that two tools can be held at once. */
static char *tool_slot(const char *env) {
  static struct {
    const char *env;
    char path[PATH_MAX];
  } slots[16];
  size_t i = 0;
  while (i < 16 && slots[i].env && strcmp(slots[i].env, env) != 0) i++;
  if (i == 16) i = 0;
  slots[i].env = env;
  return slots[i].path;
}

/* The value asked for: $ENV when set and non-empty, else `fallback`. */
static const char *tool_wanted(const char *env, const char *fallback) {
  const char *value = getenv(env);
  return value && *value ? value : fallback;
}

const char *tq_test_which(const char *env, const char *fallback) {
  char *out = tool_slot(env);
  const char *want = tool_wanted(env, fallback);
  if (strchr(want, '/')) {
    snprintf(out, PATH_MAX, "%s", want);
    return is_executable_file(out) ? out : NULL;
  }
  return search_path(want, out) ? out : NULL;
}

const char *tq_test__tool(const char *file, int line, const char *env, const char *fallback,
                          const char *how) {
  const char *found = tq_test_which(env, fallback);
  if (found) return found;
  const char *want = tool_wanted(env, fallback);
  int from_env = want != fallback;
  const char *base = strrchr(fallback, '/') ? strrchr(fallback, '/') + 1 : fallback;
  char what[PATH_MAX + 256];
  if (from_env)
    snprintf(what, sizeof(what), "%s: %s (from $%s) is not an executable", base, want, env);
  else if (strchr(want, '/'))
    snprintf(what, sizeof(what), "%s: %s is not an executable (set $%s to use another)", base, want,
             env);
  else
    snprintf(what, sizeof(what), "%s: not found in $PATH (set $%s to its path)", base, env);
  tq_test__missing(file, line, what, how);
  return NULL;
}

/* Runs `argv` with stdin, stdout and stderr on /dev/null; 1 when it exits 0. */
static int runs_ok(char *const argv[]) {
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) return 0;
  if (pid == 0) {
    int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
      dup2(null, 0);
      dup2(null, 1);
      dup2(null, 2);
    }
    execv(argv[0], argv);
    _exit(127);
  }
  int status;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return 0;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

const char *tq_test__python_module(const char *file, int line, const char *module,
                                   const char *package) {
  const char *python =
      tq_test__tool(file, line, "TORQ_PYTHON3", "/usr/bin/python3", "apt-get install python3");
  if (!python) return NULL;
  char code[256], how[256], what[PATH_MAX + 256];
  snprintf(code, sizeof(code), "import %s", module);
  char *const argv[] = {(char *)python, "-c", code, NULL};
  if (runs_ok(argv)) return python;
  snprintf(what, sizeof(what), "the Python module %s (%s cannot import it)", module, python);
  snprintf(how, sizeof(how), "apt-get install %s", package);
  tq_test__missing(file, line, what, how);
  return NULL;
}

const char *tq_test__corpus(const char *file, int line) {
  static char dir[PATH_MAX];
  snprintf(dir, sizeof(dir), "%.*s/tosa_ops", PATH_MAX - 16, tq_test_testdata());
  size_t models = 0;
  DIR *d = opendir(dir);
  if (d) {
    struct dirent *e;
    while ((e = readdir(d))) {
      size_t len = strlen(e->d_name);
      models += len > 5 && strcmp(e->d_name + len - 5, ".mlir") == 0;
    }
    closedir(d);
  }
  if (models) return dir;
  char what[PATH_MAX + 128];
  snprintf(what, sizeof(what), "the TOSA corpus: %s %s", dir,
           d ? "holds no *.mlir model" : "is not there");
  tq_test__missing(file, line, what,
                   "put the shared test data beside the repository (../shared/testdata) or set "
                   "$TORQ_TESTDATA to the folder that holds tosa_ops/");
  return NULL;
}

const char *tq_test__mlir_oracle(const char *file, int line) {
  static char script[PATH_MAX];
  const char *llvm = getenv("MLIR_ORACLE_LLVM");
  if (!llvm || !*llvm) llvm = "/usr/lib/llvm-22";
  static const char *const tools[] = {"mlir-opt", "mlir-runner"};
  char what[PATH_MAX + 256];
  for (size_t i = 0; i < 2; i++) {
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%.*s/bin/%s", PATH_MAX - 32, llvm, tools[i]);
    if (is_executable_file(path)) continue;
    snprintf(what, sizeof(what),
             "%s (the MLIR oracle runs it): %s is not an executable (set $MLIR_ORACLE_LLVM to "
             "the LLVM 22 folder)",
             tools[i], path);
    tq_test__missing(file, line, what,
                     "apt-get install mlir-22-tools (scripts/install-test-tools)");
    return NULL;
  }
  if (!tq_test__python_module(file, line, "numpy", "python3-numpy (scripts/install-test-tools)"))
    return NULL;
  const char *env = getenv("TORQ_MLIR_ORACLE");
  if (env && *env)
    snprintf(script, sizeof(script), "%s", env);
  else
    snprintf(script, sizeof(script), "%.*s/../tools/mlir_oracle.py", PATH_MAX - 32,
             tq_test_testdata());
  struct stat st;
  if (stat(script, &st) == 0 && S_ISREG(st.st_mode) && access(script, R_OK) == 0) return script;
  snprintf(what, sizeof(what), "the MLIR oracle: %s is not there%s", script,
           env && *env ? " (from $TORQ_MLIR_ORACLE)" : " (set $TORQ_MLIR_ORACLE to use another)");
  tq_test__missing(file, line, what,
                   "put the shared tools beside the repository (../shared/tools/mlir_oracle.py) "
                   "or set $TORQ_MLIR_ORACLE to the script");
  return NULL;
}
