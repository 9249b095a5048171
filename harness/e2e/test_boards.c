/* Boards: the real torq-test against a real board, an OpenSSH server on loopback that each test
 * starts and stops with scripts/test-board (its own host key, client key, known_hosts and port).
 * A missing sshd ($TORQ_SSHD, else found as scripts/test-board does) or ssh-keygen is a failure
 * under CI and a counted skip otherwise.
 *
 * The board's file system is this machine's, so the tests look at what torq-test left on the
 * board (the runtime at the per-user path, the lease file, the cache) and at the board's processes
 * directly; a "runtime" that is a shell script stands in for torq-run-module where a test needs
 * one that hangs, fails, fills the disk or records the command line it was given. */
#include <dirent.h>
#include <errno.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "e2e.h"
#include "torq/base/sha256.h"
#include "torq/harness/results.h"

/* ---- The board ------------------------------------------------------------------------------- */

typedef struct board_s {
  char *dir; /* scripts/test-board's folder: keys, known_hosts, sshd config */
  int port;
  char *key, *known_hosts;
} board_t;

/* sshd (as scripts/test-board finds it: $TORQ_SSHD first) and ssh-keygen; when one is missing, 0
 * after tq_test_missing (a failure under CI, a counted skip otherwise). */
static int have_sshd(void) {
  if (!tq_test_tool("TORQ_SSHD", "sshd", "apt-get install openssh-server")) return 0;
  if (system("command -v ssh-keygen >/dev/null 2>&1") == 0) return 1;
  tq_test_missing("ssh-keygen: not found in $PATH", "apt-get install openssh-client");
  return 0;
}

/* The value of NAME=VALUE (VALUE maybe single-quoted) in test-board's output. */
static char *var(const char *text, const char *name) {
  char *key = e2e_path("%s=", name);
  const char *p = text;
  char *value = NULL;
  while ((p = strstr(p, key))) {
    if (p == text || p[-1] == '\n') {
      p += strlen(key);
      size_t n = strcspn(p, "\n");
      if (n >= 2 && p[0] == '\'' && p[n - 1] == '\'')
        value = strndup(p + 1, n - 2);
      else
        value = strndup(p, n);
      break;
    }
    p++;
  }
  free(key);
  return value;
}

static char *run_capture(const char *cmd, int *out_rc) {
  FILE *f = popen(cmd, "r");
  ck_assert(f != NULL);
  size_t cap = 4096, len = 0;
  char *text = malloc(cap);
  size_t n;
  while ((n = fread(text + len, 1, cap - len - 1, f)) > 0) {
    len += n;
    if (cap - len < 2) text = realloc(text, cap *= 2);
  }
  text[len] = 0;
  int rc = pclose(f);
  if (out_rc) *out_rc = WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
  return text;
}

/* Every board a test started, one folder per line: a test that fails stops short of its
 * board_free (its forked process exits at the failed assertion), so the tcase's teardown, in the
 * parent, stops whatever is listed. */
static char g_started[4096];

static void boards_setup(void) {
  const char *tmp = getenv("TMPDIR");
  snprintf(g_started, sizeof(g_started), "%s/torq-e2e-boards-%ld.list", tmp && *tmp ? tmp : "/tmp",
           (long)getpid());
  unlink(g_started);
}

static void boards_teardown(void) {
  char *list = e2e_read(g_started);
  for (char *line = list ? strtok(list, "\n") : NULL; line; line = strtok(NULL, "\n")) {
    char *cmd = e2e_path("'%s/scripts/test-board' stop '%s' >/dev/null 2>&1", e2e_top(), line);
    if (system(cmd) != 0) fprintf(stderr, "boards: cannot stop the board in %s\n", line);
    free(cmd);
  }
  free(list);
  unlink(g_started);
}

/* Starts a board in `dir` (a fresh folder name); 0 when the machine has no sshd (have_sshd). */
static int board_start(board_t *b, const char *dir) {
  memset(b, 0, sizeof(*b));
  if (!have_sshd()) return 0;
  FILE *f = fopen(g_started, "a");
  if (f) {
    fprintf(f, "%s\n", dir);
    fclose(f);
  }
  char *cmd = e2e_path("'%s/scripts/test-board' start '%s' 2>&1", e2e_top(), dir);
  int rc = 0;
  char *out = run_capture(cmd, &rc);
  ck_assert_msg(rc == 0, "scripts/test-board start failed:\n%s", out);
  char *port = var(out, "TORQ_TEST_BOARD_PORT");
  b->dir = var(out, "TORQ_TEST_BOARD_DIR");
  b->key = var(out, "TORQ_TEST_BOARD_KEY");
  b->known_hosts = var(out, "TORQ_TEST_BOARD_KNOWN_HOSTS");
  ck_assert_msg(port && b->dir && b->key && b->known_hosts, "unexpected output:\n%s", out);
  b->port = atoi(port);
  free(port);
  free(out);
  free(cmd);
  return 1;
}

/* `kill` ends the server and every session but keeps the folder; `stop` removes it too. */
static void board_script(const board_t *b, const char *verb) {
  char *cmd = e2e_path("'%s/scripts/test-board' %s '%s' >/dev/null 2>&1", e2e_top(), verb, b->dir);
  ck_assert_int_eq(system(cmd), 0);
  free(cmd);
}

static void board_free(board_t *b) {
  if (b->dir) board_script(b, "stop");
  free(b->dir);
  free(b->key);
  free(b->known_hosts);
  memset(b, 0, sizeof(*b));
}

/* ---- Scratch files ----------------------------------------------------------------------------
 */

/* The <username> folder torq-test uses on the board (as board.c picks it). */
static const char *local_user(void) {
  const char *u = getenv("USER");
  if (u && *u) return u;
  struct passwd *pw = getpwuid(getuid());
  return pw ? pw->pw_name : "unknown";
}

/* configs/boards.yaml in the scratch folder: one board per (name, board, root). */
static void write_config(const e2e_scratch_t *s, size_t n, const char *const *names,
                         board_t *const *boards, const char *const *roots) {
  char *text = strdup("boards:\n");
  for (size_t i = 0; i < n; i++) {
    char *entry = e2e_path(
        "%s  - name: %s\n    host: 127.0.0.1\n    port: %d\n    user: root\n"
        "    key_file: %s\n    known_hosts: %s\n    board_root: %s\n",
        text, names[i], boards[i]->port, boards[i]->key, boards[i]->known_hosts, roots[i]);
    free(text);
    text = entry;
  }
  char *path = e2e_path("%s/configs/boards.yaml", s->dir);
  e2e_write(path, text);
  free(path);
  free(text);
}

/* A suite of `n` tests of the tiny add model, named NAME0, NAME1 ... (or `names`). */
static char *write_suite(const e2e_scratch_t *s, const char *extra, size_t n, const char *prefix) {
  char *model = e2e_path("%s/models/add.mlir", s->dir);
  e2e_write_add_model(model);
  char *text = e2e_path("suite: boards\ndefaults:\n  repeat: 1\n%stests:\n", extra ? extra : "");
  for (size_t i = 0; i < n; i++) {
    char *t = e2e_path("%s  - name: %s%zu\n    model: models/add.mlir\n", text, prefix, i);
    free(text);
    text = t;
  }
  char *path = e2e_path("%s/boards.yaml", s->dir);
  e2e_write(path, text);
  free(text);
  free(model);
  return path;
}

static char *sha256_of(const char *path) {
  uint8_t d[TQ_SHA256_SIZE];
  char hex[TQ_SHA256_HEX_SIZE];
  tq_status_t st = tq_sha256_file(path, d);
  if (st) {
    tq_status_free(st);
    return NULL;
  }
  tq_sha256_hex(d, hex);
  return strdup(hex);
}

static const char *real_runtime(void) {
  static char path[4096];
  if (!path[0]) {
    const char *bin = e2e_bin();
    const char *slash = strrchr(bin, '/');
    snprintf(path, sizeof(path), "%.*s/torq-run-module", (int)(slash - bin), bin);
  }
  return path;
}

/* An executable shell script standing in for the runtime. */
static char *write_fake_runtime(const e2e_scratch_t *s, const char *name, const char *body) {
  char *path = e2e_path("%s/%s", s->dir, name);
  char *text = e2e_path("#!/bin/sh\n%s", body);
  e2e_write(path, text);
  ck_assert_int_eq(chmod(path, 0755), 0);
  free(text);
  return path;
}

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

/* Waits until the only run folder's journal has `lines` lines (or `seconds` pass). */
static char *wait_for_journal(const e2e_scratch_t *s, size_t lines, int seconds) {
  for (int i = 0; i < seconds * 20; i++) {
    if (e2e_num_runs(s) == 1) {
      char *run = e2e_only_run(s);
      if (e2e_journal_count(run, NULL) >= lines) return run;
      free(run);
    }
    sleep_ms(50);
  }
  ck_abort_msg("the journal did not reach %zu lines in %d s", lines, seconds);
  return NULL;
}

/* Whether a process whose command line holds the NUL-separated words of `argv0` and `arg1`
 * runs (anywhere: the board's processes are this machine's). */
static int process_running(const char *argv0, const char *arg1) {
  DIR *d = opendir("/proc");
  struct dirent *e;
  int found = 0;
  while (d && (e = readdir(d)) && !found) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    char *path = e2e_path("/proc/%s/cmdline", e->d_name);
    FILE *f = fopen(path, "rb");
    free(path);
    if (!f) continue;
    char buf[4096];
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = 0;
    size_t first = strlen(buf);
    const char *base = strrchr(buf, '/');
    base = base ? base + 1 : buf;
    if (!strcmp(base, argv0) && first + 1 < n && !strcmp(buf + first + 1, arg1)) found = 1;
  }
  if (d) closedir(d);
  return found;
}

/* The args of torq-test on the board of the config: astra_machina, no per-test options. */
#define BOARD_ARGS "--torq-runtime-hw-type=astra_machina", "--no-color"

/* ---- The fixture ------------------------------------------------------------------------------
 */

/* One test's scratch folder (and a second runner's), its boards with their roots, the last
 * torq-test it ran and every string it allocated: fx_free releases them all and stops the
 * boards. */
typedef struct fx_s {
  e2e_scratch_t s;
  e2e_scratch_t s2; /* after fx_second */
  int has_s2;
  size_t nb;
  board_t b[2];
  char *bdir[2], *root[2];
  e2e_proc_t p; /* after fx_run */
  int has_p;
  char *owned[64];
  size_t n_owned;
} fx_t;

/* Keeps `p` (maybe NULL) until fx_free; returns it. */
static char *fx_own(fx_t *fx, char *p) {
  ck_assert_msg(fx->n_owned < sizeof(fx->owned) / sizeof(fx->owned[0]), "fixture: too many strings");
  fx->owned[fx->n_owned++] = p;
  return p;
}

#define FX_PATH(fx, ...) fx_own((fx), e2e_path(__VA_ARGS__))

/* A scratch folder with `n` (1 or 2) boards in it, at board/ with root/ as their board root (or
 * board1/, root1/ ...); 0 when the machine has no sshd: the test then only calls fx_free. */
static int fx_start(fx_t *fx, size_t n) {
  memset(fx, 0, sizeof(*fx));
  e2e_scratch_init(&fx->s);
  fx->nb = n;
  for (size_t i = 0; i < n; i++)
    fx->bdir[i] = n == 1 ? FX_PATH(fx, "%s/board", fx->s.dir)
                         : FX_PATH(fx, "%s/board%zu", fx->s.dir, i + 1);
  if (!board_start(&fx->b[0], fx->bdir[0])) return 0;
  for (size_t i = 1; i < n; i++) board_start(&fx->b[i], fx->bdir[i]);
  for (size_t i = 0; i < n; i++)
    fx->root[i] = n == 1 ? FX_PATH(fx, "%s/root", fx->s.dir)
                         : FX_PATH(fx, "%s/root%zu", fx->s.dir, i + 1);
  return 1;
}

/* A second runner's scratch folder. */
static e2e_scratch_t *fx_second(fx_t *fx) {
  e2e_scratch_init(&fx->s2);
  fx->has_s2 = 1;
  return &fx->s2;
}

static void fx_free(fx_t *fx) {
  if (fx->has_p) e2e_proc_free(&fx->p);
  for (size_t i = fx->nb; i-- > 0;) board_free(&fx->b[i]);
  while (fx->n_owned) free(fx->owned[--fx->n_owned]);
  if (fx->has_s2) e2e_scratch_free(&fx->s2);
  e2e_scratch_free(&fx->s);
}

/* configs/boards.yaml in `s` naming the fixture's boards astra1 (or b1, b2), at `roots` or, when
 * NULL, at the fixture's roots. */
static void fx_config(fx_t *fx, const e2e_scratch_t *s, const char *const *roots) {
  static const char *const one[] = {"astra1"}, *const two[] = {"b1", "b2"};
  board_t *bs[] = {&fx->b[0], &fx->b[1]};
  write_config(s, fx->nb, fx->nb == 1 ? one : two, bs,
               roots ? roots : (const char *const *)fx->root);
}

static char *fx_suite(fx_t *fx, const e2e_scratch_t *s, const char *extra, size_t n,
                      const char *prefix) {
  return fx_own(fx, write_suite(s, extra, n, prefix));
}

/* Runs torq-test in `s` and waits; what it gave lasts until the next fx_run. */
static const e2e_proc_t *fx_run(fx_t *fx, const e2e_scratch_t *s, const char *const *env,
                                const char *const *args) {
  if (fx->has_p) e2e_proc_free(&fx->p);
  e2e_run(s, s->dir, env, args, &fx->p);
  fx->has_p = 1;
  return &fx->p;
}

static char *fx_only_run(fx_t *fx, const e2e_scratch_t *s) {
  return fx_own(fx, e2e_only_run(s));
}

/* The text of a run folder's journal.jsonl. */
static char *fx_journal(fx_t *fx, const char *run) {
  return fx_own(fx, e2e_read(FX_PATH(fx, "%s/journal.jsonl", run)));
}

/* What a torq-test started with e2e_spawn printed. */
static char *fx_stdout(fx_t *fx) {
  return fx_own(fx, e2e_read(FX_PATH(fx, "%s/.stdout", fx->s.dir)));
}

/* The counts of tests, failures and errors in a run folder's junit.xml; returns its text. */
static char *fx_junit(fx_t *fx, const char *run, size_t *tests, size_t *failures,
                      size_t *errors) {
  char *junit = FX_PATH(fx, "%s/junit.xml", run);
  size_t skipped;
  const char *parser;
  e2e_junit_counts(junit, tests, failures, errors, &skipped, &parser);
  return fx_own(fx, e2e_read(junit));
}

/* `name` in torq-test's per-user folder under a board root. */
static char *fx_on_board(fx_t *fx, const char *root, const char *name) {
  return FX_PATH(fx, "%s/%s/%s", root, local_user(), name);
}

/* ---- The seed flow ----------------------------------------------------------------------------
 */

START_TEST(seed_flow_runs_on_the_board_and_a_second_run_uploads_nothing) {
  fx_t fx;
  if (!fx_start(&fx, 1)) goto out;
  const char *root = fx.root[0];
  fx_config(&fx, &fx.s, NULL);
  char *suite = fx_suite(&fx, &fx.s, NULL, 2, "add");
  char *addr = FX_PATH(&fx, "root@127.0.0.1:%d", fx.b[0].port);
  const char *args[] = {suite,
                        "--torq-runtime-hw-type=astra_machina",
                        "--torq-addr",
                        addr,
                        "--torq-runtime-profiling-output-dir=./profile",
                        "--update-astra-runtime",
                        "--recompute-cache",
                        "-k",
                        "add1",
                        "-v",
                        NULL};
  const e2e_proc_t *p = fx_run(&fx, &fx.s, NULL, args);
  ck_assert_msg(p->exit_code == 0, "exit %d\n%s\n%s", p->exit_code, p->out, p->err);
  ck_assert_msg(strstr(p->out, "runtime uploaded ("), "%s", p->out);
  ck_assert_msg(strstr(p->out, "model uploaded ("), "%s", p->out);
  /* Board messages say times as people read them, never as epochs. */
  ck_assert_msg(strstr(p->out, "astra1: lease acquired until ") &&
                    strstr(p->out, " UTC on the board's clock (60 s)") &&
                    strstr(p->out, "astra1: lease released at "),
                "%s", p->out);
  ck_assert_msg(!strstr(p->out, "expires at") && !strstr(p->out, "board time"), "%s", p->out);
  char *named = FX_PATH(&fx, "on 1 board (astra1=%s)", addr);
  ck_assert_msg(strstr(p->out, named), "%s", p->out);
  ck_assert_msg(strstr(p->out, "Wall time: "), "%s", p->out);
  const char *overview = strstr(p->out, "Host Profile Overview");
  ck_assert_msg(overview && strstr(overview, "WALL_TIME") && strstr(overview, "OVERALL"), "%s",
                p->out);
  ck_assert_msg(strstr(overview, "WALL_TIME") < strstr(overview, "OVERALL"), "%s", p->out);
  /* The runtime at the per-user path, byte for byte this build's. */
  char *remote_rt = fx_on_board(&fx, root, "torq-run-module");
  char *want = fx_own(&fx, sha256_of(real_runtime())), *have = fx_own(&fx, sha256_of(remote_rt));
  ck_assert_msg(have && !strcmp(want, have), "%s is not this build's runtime", remote_rt);
  struct stat sb;
  ck_assert_int_eq(stat(remote_rt, &sb), 0);
  ck_assert_msg(sb.st_mode & 0100, "the runtime on the board is not executable");
  /* The result folder of the test, with the wall time and the board's profile. */
  char *run = fx_only_run(&fx, &fx.s);
  char *wall = FX_PATH(&fx, "%s/boards+add1/wall_time.txt", run);
  char *wall_text = fx_own(&fx, e2e_read(wall));
  ck_assert_msg(wall_text && atof(wall_text) > 0, "no wall time in %s", wall);
  char *prof = FX_PATH(&fx, "%s/profile/boards+add1/profile.csv", fx.s.dir);
  ck_assert_msg(e2e_exists(prof), "no %s", prof);
  /* The reconciliation: the program's estimate against its device time on the board. */
  char *report = fx_own(&fx, e2e_read(FX_PATH(&fx, "%s/boards+add1/report.json", run)));
  const char *recon = report ? strstr(report, "\"reconciliation\": {") : NULL;
  ck_assert_msg(recon && strstr(recon, "\"simulated_cycles\": null") &&
                    strstr(recon, "\"device_us\": ") && !strstr(recon, "\"device_us\": null") &&
                    !strstr(recon, "\"error\": null"),
                "%s", report ? report : "(no report.json)");
  size_t t, f, er;
  char *xml = fx_junit(&fx, run, &t, &f, &er);
  ck_assert_uint_eq(t, 1);
  ck_assert_uint_eq(f + er, 0);
  ck_assert_msg(strstr(xml, "name=\"wall_time\"") && strstr(xml, "name=\"device_time\"") &&
                    strstr(xml, "name=\"device_time_mad\"") &&
                    strstr(xml, "name=\"board\" value=\"astra1\""),
                "%s", xml);
  /* The board's lease was released at the end; its work folders are gone. */
  char *lease = FX_PATH(&fx, "%s/.torq-lease", root);
  ck_assert_msg(!e2e_exists(lease), "the lease is still there");
  char *work = fx_on_board(&fx, root, "work");
  ck_assert_msg(!e2e_exists(work), "the work folder is still there");

  /* Again: nothing to upload, neither the runtime nor the model or its inputs. */
  p = fx_run(&fx, &fx.s, NULL, args);
  ck_assert_msg(p->exit_code == 0, "exit %d\n%s\n%s", p->exit_code, p->out, p->err);
  ck_assert_msg(strstr(p->out, "runtime up to date"), "%s", p->out);
  ck_assert_msg(strstr(p->out, "model cached on board"), "%s", p->out);
  ck_assert_msg(!strstr(p->out, "uploaded"), "a second run uploaded something:\n%s", p->out);

  /* A board named by its address alone (no configs/ board): the address is said once. */
  e2e_scratch_t *bare = fx_second(&fx);
  char *bare_suite = fx_suite(&fx, bare, NULL, 1, "add");
  char *key = FX_PATH(&fx, "TORQ_SSH_KEY=%s", fx.b[0].key);
  char *known = FX_PATH(&fx, "TORQ_KNOWN_HOSTS=%s", fx.b[0].known_hosts);
  char *board_root = FX_PATH(&fx, "TORQ_BOARD_ROOT=%s", root);
  const char *const env[] = {key, known, board_root, NULL};
  const char *bare_args[] = {bare_suite, "--torq-runtime-hw-type=astra_machina", "--torq-addr",
                             addr, "-v", NULL};
  p = fx_run(&fx, bare, env, bare_args);
  ck_assert_msg(p->exit_code == 0, "exit %d\n%s\n%s", p->exit_code, p->out, p->err);
  char *once = FX_PATH(&fx, "on 1 board (%s), results", addr);
  char *connected = FX_PATH(&fx, "%s: connected in ", addr);
  ck_assert_msg(strstr(p->out, once) && strstr(p->out, connected), "%s", p->out);
  char *twice = FX_PATH(&fx, "%s=%s", addr, addr);
  ck_assert_msg(!strstr(p->out, twice) && !strstr(p->out, "connected to "), "%s", p->out);
out:
  fx_free(&fx);
}
END_TEST

/* ---- Device time ------------------------------------------------------------------------------ */

/* An int32 add of `n` elements in `dir`/add.mlir and a suite of one test "add" (repeat 10). */
static char *device_suite(fx_t *fx, const char *dir, unsigned n) {
  char *model = FX_PATH(fx, "%s/add.mlir", dir);
  char *text = FX_PATH(fx,
                       "module {\n  func.func @main(%%a: tensor<%uxi32>, %%b: tensor<%uxi32>) -> "
                       "tensor<%uxi32> {\n    %%0 = tosa.add %%a, %%b : (tensor<%uxi32>, "
                       "tensor<%uxi32>) -> tensor<%uxi32>\n    return %%0 : tensor<%uxi32>\n  }\n}\n",
                       n, n, n, n, n, n, n);
  e2e_write(model, text);
  char *suite = FX_PATH(fx, "%s/dev.yaml", dir);
  e2e_write(suite, "suite: dev\ntests:\n  - name: add\n    model: add.mlir\n    repeat: 10\n"
                   "    warmup: 1\n");
  return suite;
}

/* On a board the runtime's own device time is a statistic of its repetitions and the gated
 * time: a model with 30% more work (same test name) is flagged on it, with repeat 10. The
 * device time of a loopback board is this host's, which other work on a loaded machine slows at
 * random: an attempt whose noise hides the change (the U test or the floor does not hold) is
 * made again, at most five times; every attempt must at least flag the compile-time estimate,
 * and one must flag device_time. Each attempt has a history of its own: in a shared one the
 * heavier run of an earlier attempt would be part of the between-run noise, which then always
 * covers the change. */
/* The 1-minute load average, as /proc/loadavg says it ("?" when unknown). */
static const char *load_average(void) {
  static char text[32];
  snprintf(text, sizeof(text), "?");
  FILE *f = fopen("/proc/loadavg", "r");
  if (f) {
    if (fscanf(f, "%31s", text) != 1) snprintf(text, sizeof(text), "?");
    fclose(f);
  }
  return text;
}

START_TEST(thirty_percent_more_work_is_flagged_on_device_time) {
  fx_t fx;
  if (!fx_start(&fx, 1)) goto out;
  fx_config(&fx, &fx.s, NULL);
  char *base_dir = FX_PATH(&fx, "%s/base", fx.s.dir), *more_dir = FX_PATH(&fx, "%s/more", fx.s.dir);
  char *base_suite = device_suite(&fx, base_dir, 131072);
  char *more_suite = device_suite(&fx, more_dir, 170394); /* +30% */
  int flagged = 0;
  for (int attempt = 0; attempt < 5 && !flagged; attempt++) {
    char *history = FX_PATH(&fx, "--history=%s/history-%d.sqlite", fx.s.dir, attempt);
    const char *args[] = {base_suite, BOARD_ARGS, "--update-astra-runtime", history, NULL};
    const e2e_proc_t *p = fx_run(&fx, &fx.s, NULL, args);
    ck_assert_msg(p->exit_code == 0, "exit %d\n%s\n%s", p->exit_code, p->out, p->err);
    const char *r = strstr(p->out, "Results: ");
    ck_assert_ptr_nonnull(r);
    char *base = FX_PATH(&fx, "%.*s", (int)strcspn(r + 9, "\n"), r + 9);
    char *journal = fx_journal(&fx, base);
    /* The device time: all ten samples and their statistics. */
    ck_assert_msg(strstr(journal, "\"device_time\":") && strstr(journal, "\"device_time_stats\":{\"n\":10,") &&
                      strstr(journal, "\"device_time_samples\":["),
                  "%s", journal);
    char *opt = FX_PATH(&fx, "--baseline=%s", base);
    const char *again[] = {more_suite, BOARD_ARGS, opt, history, NULL};
    p = fx_run(&fx, &fx.s, NULL, again);
    ck_assert_msg(p->exit_code == 1, "exit %d\n%s\n%s", p->exit_code, p->out, p->err);
    const char *line = strstr(p->out, "regression: ");
    ck_assert_msg(line && strstr(line, "estimated_cycles +"), "%s", p->out);
    const char *nl = strchr(line, '\n');
    const char *dev = strstr(line, "device_time +");
    flagged = dev && (!nl || dev < nl);
    if (!flagged) {
      /* Why: the device_time row of the failure (the journal holds the whole message). */
      const char *rr = strstr(p->out, "Results: ");
      char *j = rr ? fx_journal(&fx, FX_PATH(&fx, "%.*s", (int)strcspn(rr + 9, "\n"), rr + 9)) : NULL;
      const char *why = j ? strstr(j, "\\n  device_time ") : NULL;
      fprintf(stderr, "boards: device_time not flagged in attempt %d (load %s): %.*s\n", attempt + 1,
              load_average(), why ? (int)strcspn(why + 2, "\\") : 0, why ? why + 2 : "");
    }
  }
  ck_assert_msg(flagged, "device_time was never flagged in 5 attempts");
  /* What the failure says about it: both medians, the change, and every condition. */
  const char *row = strstr(fx.p.out, "\n  device_time ");
  char *journal = NULL;
  if (!row) {
    /* The progress line shows only the first line: the journal has the whole message. */
    const char *r = strstr(fx.p.out, "Results: ");
    journal = fx_journal(&fx, FX_PATH(&fx, "%.*s", (int)strcspn(r + 9, "\n"), r + 9));
    row = strstr(journal, "\\n  device_time ");
  }
  ck_assert_msg(row && strstr(row, "REGRESSED") && strstr(row, "beyond the floor 5.0%") &&
                    strstr(row, "U test p="),
                "%s", journal ? journal : fx.p.out);
out:
  fx_free(&fx);
}
END_TEST

/* ---- Faults -----------------------------------------------------------------------------------
 */

START_TEST(sshd_killed_mid_run_keeps_finished_results_and_ends_cleanly) {
  fx_t fx;
  if (!fx_start(&fx, 1)) goto out;
  fx_config(&fx, &fx.s, NULL);
  char *suite = fx_suite(&fx, &fx.s, NULL, 4, "t");
  const char *args[] = {suite, BOARD_ARGS, "--update-astra-runtime", NULL};
  /* Each test waits a second before it runs: time to pull the board away. */
  const char *env[] = {"TORQ_TEST_FAULT=sleep:1", NULL};
  pid_t pid = e2e_spawn_faults(&fx.s, fx.s.dir, env, args);
  char *run = fx_own(&fx, wait_for_journal(&fx.s, 1, 60));
  board_script(&fx.b[0], "kill");
  int rc = e2e_wait(pid);
  char *out = fx_stdout(&fx);
  ck_assert_msg(rc == 3, "exit %d (want 3: infrastructure errors only)\n%s", rc, out);
  /* The finished test is intact; the one that was running is an infrastructure error; the rest
   * never ran on a board that is gone. */
  ck_assert_uint_eq(e2e_journal_count(run, "passed"), 1);
  ck_assert_uint_eq(e2e_journal_count(run, NULL), 4);
  ck_assert_uint_eq(e2e_journal_count(run, "error"), 3);
  char *journal = fx_journal(&fx, run);
  ck_assert_msg(strstr(journal, "\"failure_type\":\"infra_connection\""), "%s", journal);
  ck_assert_msg(strstr(journal, "\"failure_type\":\"infra_board_down\""), "%s", journal);
  char *wall = FX_PATH(&fx, "%s/boards+t0/wall_time.txt", run);
  ck_assert_msg(e2e_exists(wall), "the finished test lost its wall_time.txt");
  size_t t, f, er;
  char *xml = fx_junit(&fx, run, &t, &f, &er);
  ck_assert_uint_eq(t, 4);
  ck_assert_uint_eq(er, 3);
  ck_assert_uint_eq(f, 0);
  ck_assert_msg(strstr(xml, "<error") && strstr(xml, "type=\"infra_connection\""), "%s", xml);
out:
  fx_free(&fx);
}
END_TEST

START_TEST(wrong_host_key_is_refused_and_nothing_reaches_the_board) {
  fx_t fx;
  if (!fx_start(&fx, 1)) goto out;
  board_t *b = &fx.b[0];
  /* known_hosts names another key for the board's address. */
  char *other = FX_PATH(&fx, "%s/other_host_key", fx.s.dir);
  char *cmd = FX_PATH(&fx, "ssh-keygen -q -t ed25519 -N '' -f '%s'", other);
  ck_assert_int_eq(system(cmd), 0);
  char *pub = fx_own(&fx, e2e_read(FX_PATH(&fx, "%s.pub", other)));
  char *kh = FX_PATH(&fx, "[127.0.0.1]:%d %s", b->port, pub);
  free(b->known_hosts);
  b->known_hosts = e2e_path("%s/wrong_known_hosts", fx.s.dir);
  e2e_write(b->known_hosts, kh);
  const char *root = fx.root[0];
  fx_config(&fx, &fx.s, NULL);
  char *suite = fx_suite(&fx, &fx.s, NULL, 2, "t");
  const char *args[] = {suite, BOARD_ARGS, "--update-astra-runtime", NULL};
  const e2e_proc_t *p = fx_run(&fx, &fx.s, NULL, args);
  ck_assert_msg(p->exit_code == 3, "exit %d\n%s\n%s", p->exit_code, p->out, p->err);
  ck_assert_msg(strstr(p->out, "host key"), "%s", p->out);
  char *run = fx_only_run(&fx, &fx.s);
  char *journal = fx_journal(&fx, run);
  ck_assert_msg(strstr(journal, "\"failure_type\":\"infra_host_key\""), "%s", journal);
  ck_assert_uint_eq(e2e_journal_count(run, "error"), 2);
  char *rt = fx_on_board(&fx, root, "torq-run-module");
  ck_assert_msg(!e2e_exists(rt), "the runtime reached a board whose key is wrong");
  /* A host key is not retried: one connection attempt, no "trying once more". */
  ck_assert_msg(!strstr(p->out, "trying once more"), "%s", p->out);
out:
  fx_free(&fx);
}
END_TEST

START_TEST(wrong_user_key_gives_a_clear_error) {
  fx_t fx;
  if (!fx_start(&fx, 1)) goto out;
  char *wrong = FX_PATH(&fx, "%s/wrong_key", fx.s.dir);
  char *cmd = FX_PATH(&fx, "ssh-keygen -q -t ed25519 -N '' -f '%s'", wrong);
  ck_assert_int_eq(system(cmd), 0);
  fx_config(&fx, &fx.s, NULL);
  char *suite = fx_suite(&fx, &fx.s, NULL, 1, "t");
  char *key_opt = FX_PATH(&fx, "--torq-ssh-key=%s", wrong);
  const char *args[] = {suite, BOARD_ARGS, key_opt, NULL};
  const e2e_proc_t *p = fx_run(&fx, &fx.s, NULL, args);
  ck_assert_msg(p->exit_code == 3, "exit %d\n%s\n%s", p->exit_code, p->out, p->err);
  char *run = fx_only_run(&fx, &fx.s);
  char *journal = fx_journal(&fx, run);
  ck_assert_msg(strstr(journal, "\"failure_type\":\"infra_auth\""), "%s", journal);
  /* The message says who was refused, with which key; the details say what to do. */
  ck_assert_msg(strstr(p->out, "'root'") && strstr(p->out, wrong), "%s", p->out);
  ck_assert_msg(strstr(journal, "--torq-ssh-key"), "%s", journal);
out:
  fx_free(&fx);
}
END_TEST

START_TEST(hanging_runtime_times_out_and_is_killed_on_the_board) {
  fx_t fx;
  if (!fx_start(&fx, 1)) goto out;
  fx_config(&fx, &fx.s, NULL);
  char marker[64];
  snprintf(marker, sizeof(marker), "%d.%ld", 900 + (int)(getpid() % 97), (long)getpid());
  char *body = FX_PATH(&fx, "exec sleep %s\n", marker);
  char *fake = fx_own(&fx, write_fake_runtime(&fx.s, "hang-runtime", body));
  char *suite = fx_suite(&fx, &fx.s, "  timeout: {run: 1.5}\n", 1, "t");
  char *rt_opt = FX_PATH(&fx, "--torq-run-module=%s", fake);
  const char *args[] = {suite, BOARD_ARGS, "--update-astra-runtime", rt_opt, NULL};
  const e2e_proc_t *p = fx_run(&fx, &fx.s, NULL, args);
  ck_assert_msg(p->exit_code == 3, "exit %d\n%s\n%s", p->exit_code, p->out, p->err);
  char *run = fx_only_run(&fx, &fx.s);
  char *journal = fx_journal(&fx, run);
  ck_assert_msg(strstr(journal, "\"failure_type\":\"infra_timeout\""), "%s", journal);
  /* Retried once (a timeout is an infrastructure fault), and both attempts' processes are gone
   * from the board. */
  ck_assert_msg(strstr(journal, "first attempt: infra_timeout"), "%s", journal);
  ck_assert_msg(strstr(p->out, "trying once more"), "%s", p->out);
  ck_assert_msg(!process_running("sleep", marker), "'sleep %s' still runs on the board", marker);
out:
  fx_free(&fx);
}
END_TEST

START_TEST(runtime_failure_is_a_failure_and_a_full_disk_an_infra_error) {
  fx_t fx;
  if (!fx_start(&fx, 1)) goto out;
  fx_config(&fx, &fx.s, NULL);
  char *suite = fx_suite(&fx, &fx.s, NULL, 1, "t");
  const char *bodies[2] = {"echo 'torq-run-module: error: the NPU said no' >&2\nexit 1\n",
                           "echo 'write: No space left on device' >&2\nexit 1\n"};
  for (int k = 0; k < 2; k++) {
    char *fake =
        fx_own(&fx, write_fake_runtime(&fx.s, k ? "full-runtime" : "failing-runtime", bodies[k]));
    char *rt_opt = FX_PATH(&fx, "--torq-run-module=%s", fake);
    const char *args[] = {suite, BOARD_ARGS, "--update-astra-runtime", rt_opt, NULL};
    const e2e_proc_t *p = fx_run(&fx, &fx.s, NULL, args);
    char *results = FX_PATH(&fx, "%s/results", fx.s.dir);
    char *newest = fx_own(&fx, run_capture(FX_PATH(&fx, "cd '%s' && ls -td */ | head -n 1", results), NULL));
    newest[strcspn(newest, "/\n")] = 0; /* run folders only: the history is beside them */
    char *journal = fx_journal(&fx, FX_PATH(&fx, "%s/%s", results, newest));
    if (k == 0) {
      /* A product failure: <failure>, exit 1, never retried. */
      ck_assert_msg(p->exit_code == 1, "exit %d\n%s\n%s", p->exit_code, p->out, p->err);
      ck_assert_msg(strstr(journal, "\"outcome\":\"failed\"") &&
                        strstr(journal, "\"failure_type\":\"runtime_error\"") &&
                        strstr(journal, "the NPU said no"),
                    "%s", journal);
      ck_assert_msg(!strstr(p->out, "trying once more"), "%s", p->out);
    } else {
      ck_assert_msg(p->exit_code == 3, "exit %d\n%s\n%s", p->exit_code, p->out, p->err);
      ck_assert_msg(strstr(journal, "\"failure_type\":\"infra_disk_full\""), "%s", journal);
      ck_assert_msg(strstr(p->out, "trying once more"), "%s", p->out);
    }
  }
out:
  fx_free(&fx);
}
END_TEST

/* ---- Leases -----------------------------------------------------------------------------------
 */

/* "YYYY-MM-DDTHH:MM:SS.mmmZ" of the first line of `log` holding `what`, or "". */
static void stamp_of(const char *log, const char *what, char out[32]) {
  out[0] = 0;
  const char *p = log ? strstr(log, what) : NULL;
  if (!p) return;
  while (p > log && p[-1] != '\n') p--;
  snprintf(out, 32, "%.24s", p);
}

static char *board_log(const char *run) {
  char *cmd = e2e_path("cat '%s'/board-*.log", run);
  char *text = run_capture(cmd, NULL);
  free(cmd);
  return text;
}

START_TEST(stale_lease_of_a_killed_run_is_taken_over_after_it_expires) {
  fx_t fx;
  if (!fx_start(&fx, 1)) goto out;
  fx_config(&fx, &fx.s, NULL);
  char *suite = fx_suite(&fx, &fx.s, "  timeout: {run: 2}\n", 2, "t");
  /* Run A: the first test passes (the lease is taken), the second hangs; then A is killed. */
  const char *args_a[] = {
      suite, BOARD_ARGS, "--update-astra-runtime", "--torq-lease-ttl=2", "--torq-lease-renew=1",
      NULL};
  const char *env_a[] = {"TORQ_TEST_FAULT=hang:t1", NULL};
  pid_t a = e2e_spawn_faults(&fx.s, fx.s.dir, env_a, args_a);
  fx_own(&fx, wait_for_journal(&fx.s, 1, 60));
  kill(a, SIGKILL);
  e2e_wait(a);
  char *lease = FX_PATH(&fx, "%s/.torq-lease", fx.root[0]);
  char *stale = fx_own(&fx, e2e_read(lease));
  ck_assert_msg(stale && strstr(stale, "expiry="), "no lease left by the killed run");
  char pid_field[32];
  snprintf(pid_field, sizeof(pid_field), "pid=%d ", (int)a);
  ck_assert_msg(strstr(stale, pid_field), "the lease names another run: %s", stale);

  /* Run B waits for it, then takes it over. */
  e2e_scratch_t *s2 = fx_second(&fx);
  fx_config(&fx, s2, NULL);
  char *suite2 = fx_suite(&fx, s2, NULL, 1, "t");
  const char *args_b[] = {
      suite2, BOARD_ARGS, "--torq-lease-ttl=2", "--torq-lease-renew=1", "--torq-lease-wait=60",
      NULL};
  const e2e_proc_t *p = fx_run(&fx, s2, NULL, args_b);
  ck_assert_msg(p->exit_code == 0, "exit %d\n%s\n%s", p->exit_code, p->out, p->err);
  ck_assert_msg(strstr(p->out, "waiting for the lease") || strstr(p->out, "lease taken over"),
                "%s", p->out);
  ck_assert_msg(strstr(p->out, "lease taken over"), "%s", p->out);
  ck_assert_msg(strstr(p->out, pid_field), "B does not name the run it took over from:\n%s",
                p->out);
  ck_assert_msg(!e2e_exists(lease), "B did not release the lease");
out:
  fx_free(&fx);
}
END_TEST

START_TEST(busy_board_is_waited_for_then_given_up_after_the_lease_wait) {
  fx_t fx;
  if (!fx_start(&fx, 1)) goto out;
  const char *root = fx.root[0];
  fx_config(&fx, &fx.s, NULL);
  char *suite = fx_suite(&fx, &fx.s, NULL, 2, "t");
  /* Another runner holds the board for an hour. */
  char *lease = FX_PATH(&fx, "%s/.torq-lease", root);
  char *held = FX_PATH(&fx, "user=someone host=elsewhere pid=1 run=theirs expiry=%ld\n",
                       (long)time(NULL) + 3600);
  e2e_write(lease, held);
  const char *args[] = {suite, BOARD_ARGS, "--update-astra-runtime", "--torq-lease-wait=1.5", NULL};
  time_t t0 = time(NULL);
  const e2e_proc_t *p = fx_run(&fx, &fx.s, NULL, args);
  ck_assert_msg(p->exit_code == 3, "exit %d\n%s\n%s", p->exit_code, p->out, p->err);
  ck_assert_msg(time(NULL) - t0 >= 1, "gave up without waiting");
  ck_assert_msg(strstr(p->out, "waiting for the lease: held by user=someone host=elsewhere"), "%s",
                p->out);
  char *run = fx_only_run(&fx, &fx.s);
  char *journal = fx_journal(&fx, run);
  ck_assert_msg(strstr(journal, "\"failure_type\":\"infra_lease\""), "%s", journal);
  ck_assert_msg(strstr(journal, "is leased by user=someone"), "%s", journal);
  ck_assert_uint_eq(e2e_journal_count(run, "error"), 2);
  /* Their lease is untouched, and nothing of ours reached the board. */
  char *now = fx_own(&fx, e2e_read(lease));
  ck_assert_str_eq(now, held);
  char *rt = fx_on_board(&fx, root, "torq-run-module");
  ck_assert_msg(!e2e_exists(rt), "the runtime was copied to a board we did not hold");
out:
  fx_free(&fx);
}
END_TEST

START_TEST(two_runners_on_one_board_take_turns) {
  fx_t fx;
  if (!fx_start(&fx, 1)) goto out;
  e2e_scratch_t *s1 = &fx.s, *s2 = fx_second(&fx);
  fx_config(&fx, s1, NULL);
  fx_config(&fx, s2, NULL);
  char *suite1 = fx_suite(&fx, s1, NULL, 3, "t");
  char *suite2 = fx_suite(&fx, s2, NULL, 3, "t");
  const char *args1[] = {suite1,
                         BOARD_ARGS,
                         "--update-astra-runtime",
                         "--torq-lease-ttl=2",
                         "--torq-lease-renew=1",
                         "--torq-lease-wait=60",
                         NULL};
  const char *args2[] = {suite2,
                         BOARD_ARGS,
                         "--update-astra-runtime",
                         "--torq-lease-ttl=2",
                         "--torq-lease-renew=1",
                         "--torq-lease-wait=60",
                         NULL};
  /* Slow enough tests that the two runs surely meet on the board. */
  const char *env[] = {"TORQ_TEST_FAULT=sleep:0.3", NULL};
  pid_t p1 = e2e_spawn_faults(s1, s1->dir, env, args1);
  pid_t p2 = e2e_spawn_faults(s2, s2->dir, env, args2);
  int rc1 = e2e_wait(p1), rc2 = e2e_wait(p2);
  char *run1 = fx_only_run(&fx, s1), *run2 = fx_only_run(&fx, s2);
  char *log1 = fx_own(&fx, board_log(run1)), *log2 = fx_own(&fx, board_log(run2));
  ck_assert_msg(rc1 == 0 && rc2 == 0, "exits %d %d\n%s\n---\n%s", rc1, rc2, log1, log2);
  ck_assert_uint_eq(e2e_journal_count(run1, "passed"), 3);
  ck_assert_uint_eq(e2e_journal_count(run2, "passed"), 3);
  char a1[32], r1[32], a2[32], r2[32];
  stamp_of(log1, "lease acquired", a1);
  stamp_of(log1, "lease released", r1);
  stamp_of(log2, "lease acquired", a2);
  stamp_of(log2, "lease released", r2);
  ck_assert_msg(a1[0] && r1[0] && a2[0] && r2[0], "%s\n---\n%s", log1, log2);
  /* One after the other: [a1, r1] and [a2, r2] do not overlap; the second one waited. */
  int first_is_1 = strcmp(a1, a2) < 0;
  ck_assert_msg(first_is_1 ? strcmp(r1, a2) <= 0 : strcmp(r2, a1) <= 0,
                "leases overlap: run 1 %s..%s, run 2 %s..%s", a1, r1, a2, r2);
  ck_assert_msg(strstr(first_is_1 ? log2 : log1, "waiting for the lease"), "%s\n---\n%s", log1,
                log2);
out:
  fx_free(&fx);
}
END_TEST

/* ---- Interruption -----------------------------------------------------------------------------
 */

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A runtime that hangs (as `sleep MARKER`) in test t1 and runs the real one for the others. */
static char *fx_hang_runtime(fx_t *fx, const char *marker) {
  char *body = FX_PATH(fx, "case \"$*\" in *boards+t1/*) exec sleep %s;; esac\nexec '%s' \"$@\"\n",
                       marker, real_runtime());
  return fx_own(fx, write_fake_runtime(&fx->s, "hang-t1-runtime", body));
}

/* Starts a board run of t0..t3 whose t1 hangs on the board; returns once t0 is recorded and t1's
 * runtime runs there. */
static pid_t fx_start_hanging_run(fx_t *fx, const char *marker) {
  fx_config(fx, &fx->s, NULL);
  char *suite = fx_suite(fx, &fx->s, "  timeout: {run: 120}\n", 4, "t");
  char *rt_opt = FX_PATH(fx, "--torq-run-module=%s", fx_hang_runtime(fx, marker));
  const char *args[] = {suite, BOARD_ARGS, "--update-astra-runtime", rt_opt, NULL};
  pid_t pid = e2e_spawn(&fx->s, fx->s.dir, NULL, args);
  fx_own(fx, wait_for_journal(&fx->s, 1, 60));
  for (int i = 0; i < 600 && !process_running("sleep", marker); i++) sleep_ms(50);
  ck_assert_msg(process_running("sleep", marker), "t1's runtime never started on the board");
  return pid;
}

/* SIGINT or SIGTERM in the middle of a board test: the run gives its lease back, kills what it
 * ran on the board, removes its work folder, records the tests not run with the board as their
 * target, and the next run gets the board at once. */
START_TEST(interrupted_board_run_gives_back_its_lease_and_leaves_nothing_on_the_board) {
  const int sig = _i == 0 ? SIGINT : SIGTERM;
  fx_t fx;
  if (!fx_start(&fx, 1)) goto out;
  const char *root = fx.root[0];
  char marker[64];
  /* A minute and a unique fraction: never left running for long, even by a failed test. */
  snprintf(marker, sizeof(marker), "%d.%ld", 60 + _i, (long)getpid());
  pid_t pid = fx_start_hanging_run(&fx, marker);
  char *lease = FX_PATH(&fx, "%s/.torq-lease", root);
  ck_assert_msg(e2e_exists(lease), "no lease while the run holds the board");
  double t0 = now_s();
  ck_assert_int_eq(kill(pid, sig), 0);
  int rc = e2e_wait(pid);
  double took = now_s() - t0;
  char *out = fx_stdout(&fx);
  ck_assert_msg(rc == 130, "exit %d\n%s", rc, out);
  ck_assert_msg(took < 15, "the interrupted run took %.1f s to end\n%s", took, out);
  /* Nothing of the run is left on the board. */
  ck_assert_msg(!e2e_exists(lease), "the lease is still there:\n%s", out);
  ck_assert_msg(!process_running("sleep", marker), "t1's runtime still runs on the board");
  char *work = fx_on_board(&fx, root, "work");
  ck_assert_msg(!e2e_exists(work), "the work folder %s is still there:\n%s", work, out);
  ck_assert_msg(strstr(out, "lease released"), "%s", out);
  /* Every test is recorded, on the board: t0 passed, the others not run. */
  char *run = fx_only_run(&fx, &fx.s);
  ck_assert_uint_eq(e2e_journal_count(run, NULL), 4);
  ck_assert_uint_eq(e2e_journal_count(run, "passed"), 1);
  ck_assert_uint_eq(e2e_journal_count(run, "not_run"), 3);
  size_t t, f, er;
  char *xml = fx_junit(&fx, run, &t, &f, &er);
  ck_assert_uint_eq(t, 4);
  ck_assert_uint_eq(e2e_count(xml, "name=\"target\" value=\"astra1\""), 4);
  ck_assert_msg(!strstr(xml, "name=\"target\" value=\"sim\""), "%s", xml);

  /* The next run takes the board at once. */
  const char *args[] = {fx_suite(&fx, &fx.s, NULL, 1, "t"), BOARD_ARGS, "--update-astra-runtime",
                        "-v", NULL};
  t0 = now_s();
  const e2e_proc_t *p = fx_run(&fx, &fx.s, NULL, args);
  took = now_s() - t0;
  ck_assert_msg(p->exit_code == 0, "exit %d\n%s\n%s", p->exit_code, p->out, p->err);
  ck_assert_msg(!strstr(p->out, "waiting for the lease"), "%s", p->out);
  fprintf(stderr, "boards: after %s, the next run took the lease at once; it ran in %.2f s\n",
          sig == SIGINT ? "SIGINT" : "SIGTERM", took);
out:
  fx_free(&fx);
}
END_TEST

/* A second interrupt ends the run at once, even while it is cleaning up the board (held here by
 * a lease mutex left behind, which the cleanup waits out for 10 s). */
START_TEST(a_second_interrupt_exits_at_once) {
  fx_t fx;
  if (!fx_start(&fx, 1)) goto out;
  char marker[64];
  snprintf(marker, sizeof(marker), "%d.%ld", 62, (long)getpid());
  pid_t pid = fx_start_hanging_run(&fx, marker);
  char *mutex = FX_PATH(&fx, "%s/.torq-lease.lock", fx.root[0]);
  ck_assert_int_eq(mkdir(mutex, 0755), 0);
  ck_assert_int_eq(kill(pid, SIGINT), 0);
  char *outp = FX_PATH(&fx, "%s/.stdout", fx.s.dir);
  char *text = NULL;
  for (int i = 0; i < 400; i++) {
    free(text);
    text = e2e_read(outp);
    if (text && strstr(text, "giving back its lease")) break;
    sleep_ms(25);
  }
  ck_assert_msg(text && strstr(text, "giving back its lease"), "%s", text ? text : "");
  free(text);
  sleep_ms(500);
  double t0 = now_s();
  ck_assert_int_eq(kill(pid, SIGINT), 0);
  int rc = e2e_wait(pid);
  double took = now_s() - t0;
  ck_assert_msg(rc == 130, "exit %d", rc);
  ck_assert_msg(took < 2, "the second interrupt took %.1f s to end the run", took);
  char *err = fx_own(&fx, e2e_read(FX_PATH(&fx, "%s/.stderr", fx.s.dir)));
  ck_assert_msg(err && strstr(err, "interrupted again: exiting now"), "%s", err ? err : "");
  /* What was written is whole: the journal's lines and junit.xml. */
  char *run = fx_only_run(&fx, &fx.s);
  ck_assert_uint_ge(e2e_journal_count(run, "passed"), 1);
  size_t t, f, er;
  fx_junit(&fx, run, &t, &f, &er);
  ck_assert_uint_ge(t, 1);
  rmdir(mutex);
out:
  fx_free(&fx);
}
END_TEST

/* ---- Pools ------------------------------------------------------------------------------------
 */

START_TEST(pool_hands_out_tests_and_moves_a_test_off_a_board_that_died) {
  fx_t fx;
  if (!fx_start(&fx, 2)) goto out;
  fx_config(&fx, &fx.s, NULL);
  char *suite = fx_suite(&fx, &fx.s, NULL, 6, "t");
  const char *args[] = {suite, BOARD_ARGS, "--update-astra-runtime", NULL};
  const char *env[] = {"TORQ_TEST_FAULT=sleep:0.5", NULL};
  pid_t pid = e2e_spawn_faults(&fx.s, fx.s.dir, env, args);
  char *run = fx_own(&fx, wait_for_journal(&fx.s, 2, 60));
  board_script(&fx.b[0], "kill");
  int rc = e2e_wait(pid);
  char *out = fx_stdout(&fx);
  /* Every test passed: the one b1 was running went to b2. */
  ck_assert_msg(rc == 0, "exit %d\n%s", rc, out);
  ck_assert_uint_eq(e2e_journal_count(run, "passed"), 6);
  char *journal = fx_journal(&fx, run);
  ck_assert_msg(strstr(journal, "\"host\":\"b1\"") && strstr(journal, "\"host\":\"b2\""),
                "both boards should have run tests:\n%s", journal);
  ck_assert_msg(strstr(journal, "first attempt: infra_connection on board b1"), "%s", journal);
  ck_assert_msg(strstr(out, "board b1 is down"), "%s", out);
out:
  fx_free(&fx);
}
END_TEST

/* ---- Quoting ----------------------------------------------------------------------------------
 */

START_TEST(names_paths_and_arguments_with_shell_characters_reach_the_board_unharmed) {
  fx_t fx;
  if (!fx_start(&fx, 1)) goto out;
  char pwned[64];
  snprintf(pwned, sizeof(pwned), "PWNED-%ld", (long)getpid());
  /* A board root, a test name and a model path full of what a shell would act on. */
  char *root = FX_PATH(&fx, "%s/board root 'q' \"dq\"; touch %s; $(touch %s) `touch %s` x",
                       fx.s.dir, pwned, pwned, pwned);
  const char *roots[] = {"/unused"};
  fx_config(&fx, &fx.s, roots);
  char *model = FX_PATH(&fx, "%s/models/my model's; \"x\".mlir", fx.s.dir);
  e2e_write_add_model(model);
  char *suite = FX_PATH(&fx, "%s/boards.yaml", fx.s.dir);
  /* Test names with such characters become result folders with %XX escapes (suite.h), which
   * the results directory must accept; until it does, the name stays plain here. */
  int odd_names = tqh_results_id_is_safe("boards+it%27s%20x");
  if (!odd_names)
    fprintf(stderr,
            "boards: note: the results directory refuses test ids with %%XX escapes "
            "(tqh_results_id_is_safe); the test name is left plain\n");
  char *test_name =
      fx_own(&fx, odd_names ? e2e_path("it's \"odd\"; touch %s $(touch %s) & x", pwned, pwned)
                            : strdup("plain"));
  /* The same name in a YAML double-quoted string. */
  char *yaml_name = fx_own(
      &fx, odd_names ? e2e_path("\"it's \\\"odd\\\"; touch %s $(touch %s) & x\"", pwned, pwned)
                     : strdup("plain"));
  char *text = FX_PATH(&fx,
                       "suite: boards\ntests:\n"
                       "  - name: %s\n"
                       "    model: \"models/my model's; \\\"x\\\".mlir\"\n",
                       yaml_name);
  e2e_write(suite, text);
  /* A runtime that writes down where it ran and what it was given, then runs the real one. */
  char *body = FX_PATH(&fx,
                       "{ pwd; for a in \"$@\"; do printf '%%s\\n' \"$a\"; done; } "
                       "> \"${0%%/*}/argv.log\"\nexec '%s' \"$@\"\n",
                       real_runtime());
  char *fake = fx_own(&fx, write_fake_runtime(&fx.s, "recording-runtime", body));
  char *root_opt = FX_PATH(&fx, "--torq-board-root=%s", root);
  char *rt_opt = FX_PATH(&fx, "--torq-run-module=%s", fake);
  const char *args[] = {suite, BOARD_ARGS, "--update-astra-runtime", root_opt, rt_opt, NULL};
  const e2e_proc_t *p = fx_run(&fx, &fx.s, NULL, args);
  ck_assert_msg(p->exit_code == 0, "exit %d\n%s\n%s", p->exit_code, p->out, p->err);
  char *argv_log = fx_on_board(&fx, root, "argv.log");
  char *got = fx_own(&fx, e2e_read(argv_log));
  ck_assert_msg(got != NULL, "the runtime did not run at %s", argv_log);
  char *run = fx_only_run(&fx, &fx.s);
  const char *run_id = strrchr(run, '/') + 1;
  char *want_cwd =
      FX_PATH(&fx, "%s/%s/work/%s/boards+%s\n", root, local_user(), run_id, test_name);
  ck_assert_msg(!strncmp(got, want_cwd, strlen(want_cwd)), "got:\n%s\nwant first line:\n%s", got,
                want_cwd);
  char *want_module = FX_PATH(&fx, "\n--module=%s/%s/cache/", root, local_user());
  ck_assert_msg(strstr(got, want_module), "got:\n%s", got);
  char *want_output = FX_PATH(&fx, "\n--output=@%s", want_cwd);
  want_output[strlen(want_output) - 1] = 0;
  ck_assert_msg(strstr(got, want_output), "got:\n%s\nwant %s", got, want_output);
  /* Nothing ran that the names spelt: no file of that name anywhere it could have landed. */
  const char *places[] = {fx.s.dir, fx.bdir[0], "/root", "/tmp", getenv("HOME")};
  for (size_t i = 0; i < sizeof(places) / sizeof(places[0]); i++) {
    if (!places[i]) continue;
    char *f = e2e_path("%s/%s", places[i], pwned);
    ck_assert_msg(!e2e_exists(f), "%s exists: a name was run by a shell", f);
    free(f);
  }
  char *rf = fx_on_board(&fx, root, pwned);
  ck_assert_msg(!e2e_exists(rf), "%s exists", rf);
out:
  fx_free(&fx);
}
END_TEST


START_TEST(board_agent_killed_mid_test_is_an_infra_error_and_the_next_attempt_runs) {
  fx_t fx;
  if (!fx_start(&fx, 1)) goto out;
  fx_config(&fx, &fx.s, NULL);
  char *suite = fx_suite(&fx, &fx.s, NULL, 3, "t");
  /* The first call kills the board agent (the runtime's parent) in the middle of the test; the
   * others run the real runtime. */
  char *flag = FX_PATH(&fx, "%s/agent-killed", fx.s.dir);
  char *body = FX_PATH(&fx,
                       "if [ ! -e '%s' ]; then : > '%s'; echo partial; kill -s KILL $PPID; "
                       "exit 0; fi\nexec '%s' \"$@\"\n",
                       flag, flag, real_runtime());
  char *fake = fx_own(&fx, write_fake_runtime(&fx.s, "agent-killing-runtime", body));
  char *rt_opt = FX_PATH(&fx, "--torq-run-module=%s", fake);
  const char *args[] = {suite, BOARD_ARGS, "--update-astra-runtime", rt_opt, "-v", NULL};
  const e2e_proc_t *p = fx_run(&fx, &fx.s, NULL, args);
  /* An infrastructure error for the test that was running, retried once on a new agent; every
   * test passes in the end. */
  ck_assert_msg(p->exit_code == 0, "exit %d\n%s\n%s", p->exit_code, p->out, p->err);
  ck_assert_msg(e2e_exists(flag), "the runtime never ran");
  char *run = fx_only_run(&fx, &fx.s);
  char *journal = fx_journal(&fx, run);
  ck_assert_msg(strstr(journal, "first attempt: infra_connection"), "%s", journal);
  ck_assert_msg(strstr(journal, "board agent ended"), "%s", journal);
  ck_assert_msg(strstr(p->out, "trying once more"), "%s", p->out);
  char *log = fx_own(&fx, board_log(run));
  const char *first = strstr(log, "board agent started");
  ck_assert_msg(first && strstr(first + 1, "board agent started"), "%s", log);
  size_t tests = 0, failures = 0, errors = 0;
  fx_junit(&fx, run, &tests, &failures, &errors);
  ck_assert_uint_eq(tests, 3);
  ck_assert_uint_eq(failures + errors, 0);
out:
  fx_free(&fx);
}
END_TEST

Suite *e2e_suite_boards(void) {
  Suite *s = suite_create("boards");
  TCase *tc = tcase_create("boards");
  tcase_set_timeout(tc, 300);
  tcase_add_unchecked_fixture(tc, boards_setup, boards_teardown);
  tcase_add_test(tc, seed_flow_runs_on_the_board_and_a_second_run_uploads_nothing);
  tcase_add_test(tc, sshd_killed_mid_run_keeps_finished_results_and_ends_cleanly);
  tcase_add_test(tc, wrong_host_key_is_refused_and_nothing_reaches_the_board);
  tcase_add_test(tc, wrong_user_key_gives_a_clear_error);
  tcase_add_test(tc, hanging_runtime_times_out_and_is_killed_on_the_board);
  tcase_add_test(tc, runtime_failure_is_a_failure_and_a_full_disk_an_infra_error);
  tcase_add_test(tc, board_agent_killed_mid_test_is_an_infra_error_and_the_next_attempt_runs);
  tcase_add_test(tc, stale_lease_of_a_killed_run_is_taken_over_after_it_expires);
  tcase_add_test(tc, busy_board_is_waited_for_then_given_up_after_the_lease_wait);
  tcase_add_test(tc, two_runners_on_one_board_take_turns);
  tcase_add_loop_test(tc, interrupted_board_run_gives_back_its_lease_and_leaves_nothing_on_the_board,
                      0, 2);
  tcase_add_test(tc, a_second_interrupt_exits_at_once);
  tcase_add_test(tc, pool_hands_out_tests_and_moves_a_test_off_a_board_that_died);
  tcase_add_test(tc, names_paths_and_arguments_with_shell_characters_reach_the_board_unharmed);
  tcase_add_test(tc, thirty_percent_more_work_is_flagged_on_device_time);
  suite_add_tcase(s, tc);
  return s;
}
