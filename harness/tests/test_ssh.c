/* The board transport against a real OpenSSH server on loopback (scripts/test-board), started
 * by the fixture of each test case and stopped after it. Skipped (with a message) when sshd is
 * not installed.
 *
 * Environment: TORQ_TEST_BOARD_SCRIPT overrides the path of scripts/test-board (default: from the
 * current folder, else from TORQ_BIN=<top>/build/<flavour>/bin). */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "suites.h"
#include "torq/base/sha256.h"
#include "torq/base/str.h"
#include "torq/harness/board.h"
#include "torq/harness/ssh.h"
#include "tq_test.h"

Suite *ssh_suite(void);

/* ---- The board fixture ----------------------------------------------------------------------- */

typedef struct board_s {
  int up;
  char script[4096];
  char *tmp;      /* the test case's temporary folder (owned) */
  char dir[4096]; /* the board's folder, inside tmp */
  unsigned port;
  char user[256];
  char key[4096];
  char known_hosts[4096];
} board_t;

static board_t g_board;

/* $TORQ_TEST_BOARD_SCRIPT, else the repository's scripts/test-board (whatever the working
 * directory). */
static int find_script(char *out, size_t size) {
  const char *env = getenv("TORQ_TEST_BOARD_SCRIPT");
  if (env && *env)
    snprintf(out, size, "%s", env);
  else
    snprintf(out, size, "%s/scripts/test-board", tq_test_top());
  return access(out, X_OK) == 0;
}

/* sshd as scripts/test-board finds it ($TORQ_SSHD first); the tests ask again with tq_test_tool,
 * which fails under CI or records the skip. */
#define SSHD_ENV "TORQ_SSHD"
#define SSHD_PATH "sshd"
#define SSHD_HOW "apt-get install openssh-server"

static int sshd_installed(void) {
  return tq_test_which(SSHD_ENV, SSHD_PATH) != NULL;
}

/* Runs `test-board VERB DIR` and, for start, reads its variables. */
static int board_cmd(const char *verb) {
  char cmd[9000];
  snprintf(cmd, sizeof(cmd), "'%s' %s '%s'", g_board.script, verb, g_board.dir);
  if (strcmp(verb, "start") != 0) return th_shell_ok(cmd);
  FILE *p = popen(cmd, "r");
  if (!p) return 0;
  char line[8192];
  while (fgets(line, sizeof(line), p)) {
    line[strcspn(line, "\n")] = '\0';
    char *eq = strchr(line, '=');
    if (!eq || strncmp(line, "TORQ_TEST_BOARD_", 16) != 0) continue;
    *eq = '\0';
    char *v = eq + 1;
    size_t n = strlen(v);
    if (n >= 2 && v[0] == '\'' && v[n - 1] == '\'') {
      v[n - 1] = '\0';
      v++;
    }
    const char *k = line + 16;
    if (!strcmp(k, "PORT"))
      g_board.port = (unsigned)strtoul(v, NULL, 10);
    else if (!strcmp(k, "USER"))
      snprintf(g_board.user, sizeof(g_board.user), "%s", v);
    else if (!strcmp(k, "KEY"))
      snprintf(g_board.key, sizeof(g_board.key), "%s", v);
    else if (!strcmp(k, "KNOWN_HOSTS"))
      snprintf(g_board.known_hosts, sizeof(g_board.known_hosts), "%s", v);
  }
  return pclose(p) == 0 && g_board.port;
}

static void board_setup(void) {
  memset(&g_board, 0, sizeof(g_board));
  if (!sshd_installed()) return; /* each test that needs the board says so */
  ck_assert_msg(find_script(g_board.script, sizeof(g_board.script)),
                "%s is not an executable (set TORQ_TEST_BOARD_SCRIPT or TORQ_TOP)", g_board.script);
  g_board.tmp = th_tmpdir();
  snprintf(g_board.dir, sizeof(g_board.dir), "%s/board", g_board.tmp);
  ck_assert_msg(board_cmd("start"), "scripts/test-board start failed");
  g_board.up = 1;
}

static void board_teardown(void) {
  if (g_board.tmp) {
    board_cmd("stop");
    th_rmtree(g_board.tmp);
  }
  memset(&g_board, 0, sizeof(g_board));
}

/* A test that needs the board returns when sshd is missing (a failure under CI, a counted skip
 * otherwise); a board that did not start although sshd is there is a failure. */
#define NEED_BOARD()                                                                \
  do {                                                                              \
    if (!g_board.up) {                                                              \
      if (tq_test_tool(SSHD_ENV, SSHD_PATH, SSHD_HOW))                              \
        ck_abort_msg("the board did not start although sshd is there (see above)"); \
      return;                                                                       \
    }                                                                               \
  } while (0)

static void board_options(tqh_ssh_options_t *o) {
  tqh_ssh_options_initialize(o);
  o->host = "127.0.0.1";
  o->port = g_board.port;
  o->user = g_board.user;
  o->key_file = g_board.key;
  o->known_hosts = g_board.known_hosts;
  o->use_agent = 0;
  o->connect_timeout_ms = 5000;
  o->io_timeout_ms = 10000;
}

static tqh_ssh_session_t *board_connect(void) {
  tqh_ssh_options_t o;
  board_options(&o);
  tqh_ssh_session_t *s = NULL;
  TH_OK(tqh_ssh_connect(&o, &s));
  ck_assert_ptr_nonnull(s);
  return s;
}

/* Expects `st` to have `code` and a message with every one of the NULL-terminated needles. */
static void expect_error(tq_status_t st, tq_status_code_t code, const char *const needles[]) {
  ck_assert_msg(st != NULL, "expected an error, got OK");
  const char *msg = tq_status_message(st);
  ck_assert_msg(tq_status_code(st) == code, "expected %s, got %s: %s", tq_status_code_name(code),
                tq_status_code_name(tq_status_code(st)), msg);
  for (size_t i = 0; needles && needles[i]; i++) {
    ck_assert_msg(strstr(msg, needles[i]), "message lacks '%s': %s", needles[i], msg);
  }
  tq_status_free(st);
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- Commands -------------------------------------------------------------------------------- */

START_TEST(ssh_exec_captures_stdout_stderr_and_exit_status) {
  NEED_BOARD();
  tqh_ssh_session_t *s = board_connect();
  tqh_exec_result_t r;
  tqh_exec_result_init(&r);
  const char *const echo[] = {"echo", "hello", "board", NULL};
  TH_OK(tqh_ssh_exec(s, echo, NULL, &r));
  ck_assert_int_eq(r.exit_status, 0);
  ck_assert_int_eq(r.signal, 0);
  ck_assert_str_eq(r.out.data, "hello board\n");
  ck_assert_uint_eq(r.err.len, 0);
  ck_assert_int_gt(r.remote_pid, 1);
  ck_assert_int_eq(r.timed_out, 0);

  const char *const both[] = {"sh", "-c", "echo to-out; echo to-err >&2; exit 0", NULL};
  TH_OK(tqh_ssh_exec(s, both, NULL, &r));
  ck_assert_str_eq(r.out.data, "to-out\n");
  ck_assert_str_eq(r.err.data, "to-err\n");
  ck_assert_int_eq(r.exit_status, 0);

  tqh_exec_result_deinit(&r);
  tqh_ssh_disconnect(s);
}
END_TEST

START_TEST(ssh_exec_reports_nonzero_exit_status_and_signals) {
  NEED_BOARD();
  tqh_ssh_session_t *s = board_connect();
  tqh_exec_result_t r;
  tqh_exec_result_init(&r);
  const char *const exit42[] = {"sh", "-c", "echo partial; exit 42", NULL};
  TH_OK(tqh_ssh_exec(s, exit42, NULL, &r)); /* a failing command is not a transport error */
  ck_assert_int_eq(r.exit_status, 42);
  ck_assert_str_eq(r.out.data, "partial\n");
  const char *const no_such[] = {"torq-no-such-command", "x", NULL};
  TH_OK(tqh_ssh_exec(s, no_such, NULL, &r));
  ck_assert_int_eq(r.exit_status, 127);
  ck_assert_ptr_nonnull(strstr(r.err.data, "torq-no-such-command"));
  const char *const killed[] = {"sh", "-c", "kill -SEGV $$", NULL};
  TH_OK(tqh_ssh_exec(s, killed, NULL, &r));
  ck_assert_int_eq(r.signal, SIGSEGV);
  ck_assert_int_eq(r.exit_status, -1);
  tqh_exec_result_deinit(&r);
  tqh_ssh_disconnect(s);
}
END_TEST

static const char *const k_hard_args[] = {
    "a b",
    "it's",
    "\"double\"",
    "back\\slash",
    ";",
    "a; touch /tmp/torq-pwned",
    "$(touch /tmp/torq-pwned)",
    "`id`",
    "$HOME",
    "*",
    "/*",
    "line1\nline2",
    "\n",
    "",
    "~",
    "a=b",
    "-n",
    "--",
    "|",
    "&&",
    "> x",
    "#c",
    "\t",
    "é 漢字",
    "\x01\x7f\xff",
    "{a,b}",
    "!!",
    "%s%n",
};

START_TEST(ssh_exec_passes_hard_arguments_unharmed) {
  NEED_BOARD();
  tqh_ssh_session_t *s = board_connect();
  size_t n = sizeof(k_hard_args) / sizeof(k_hard_args[0]);
  const char *argv[64];
  argv[0] = "printf";
  argv[1] = "%s\\0";
  for (size_t i = 0; i < n; i++) argv[2 + i] = k_hard_args[i];
  argv[2 + n] = NULL;
  tq_buf_t want;
  tq_buf_init(&want, 0);
  for (size_t i = 0; i < n; i++)
    TH_OK(tq_buf_append(&want, k_hard_args[i], strlen(k_hard_args[i]) + 1));
  tqh_exec_result_t r;
  tqh_exec_result_init(&r);
  TH_OK(tqh_ssh_exec(s, argv, NULL, &r));
  ck_assert_int_eq(r.exit_status, 0);
  ck_assert_uint_eq(r.out.len, want.len);
  ck_assert(memcmp(r.out.data, want.data, want.len) == 0);
  ck_assert(access("/tmp/torq-pwned", F_OK) != 0);

  /* A working folder with a space and a quote in its name. */
  char dir[8192];
  snprintf(dir, sizeof(dir), "%s/it's a dir", g_board.tmp);
  TH_OK(tqh_ssh_mkdir_p(s, dir));
  tqh_exec_options_t eo;
  tqh_exec_options_initialize(&eo);
  eo.cwd = dir;
  const char *const pwd[] = {"pwd", NULL};
  TH_OK(tqh_ssh_exec(s, pwd, &eo, &r));
  ck_assert_int_eq(r.exit_status, 0);
  char want_pwd[8200];
  snprintf(want_pwd, sizeof(want_pwd), "%s\n", dir);
  ck_assert_str_eq(r.out.data, want_pwd);
  tq_buf_deinit(&want);
  tqh_exec_result_deinit(&r);
  tqh_ssh_disconnect(s);
}
END_TEST

START_TEST(ssh_exec_feeds_stdin_and_caps_output) {
  NEED_BOARD();
  tqh_ssh_session_t *s = board_connect();
  size_t len = 3 << 20; /* more than the channel window: input and output must flow together */
  char *data = malloc(len);
  ck_assert_ptr_nonnull(data);
  for (size_t i = 0; i < len; i++) data[i] = (char)(i * 131 + (i >> 9));
  tqh_exec_options_t eo;
  tqh_exec_options_initialize(&eo);
  eo.stdin_data = data;
  eo.stdin_len = len;
  eo.output_limit = len;
  tqh_exec_result_t r;
  tqh_exec_result_init(&r);
  const char *const cat[] = {"cat", NULL};
  TH_OK(tqh_ssh_exec(s, cat, &eo, &r));
  ck_assert_int_eq(r.exit_status, 0);
  ck_assert_uint_eq(r.out.len, len);
  ck_assert(memcmp(r.out.data, data, len) == 0);
  ck_assert_int_eq(r.out_truncated, 0);

  tqh_exec_options_initialize(&eo);
  eo.output_limit = 1000;
  const char *const big[] = {"sh", "-c", "head -c 200000 /dev/zero; head -c 5000 /dev/zero >&2",
                             NULL};
  TH_OK(tqh_ssh_exec(s, big, &eo, &r));
  ck_assert_int_eq(r.exit_status, 0);
  ck_assert_uint_eq(r.out.len, 1000);
  ck_assert_uint_eq(r.err.len, 1000);
  ck_assert_int_eq(r.out_truncated, 1);
  ck_assert_int_eq(r.err_truncated, 1);
  free(data);
  tqh_exec_result_deinit(&r);
  tqh_ssh_disconnect(s);
}
END_TEST

START_TEST(ssh_exec_timeout_kills_the_remote_process) {
  NEED_BOARD();
  tqh_ssh_session_t *s = board_connect();
  char tag[64], pattern[128], check[256];
  snprintf(tag, sizeof(tag), "1000.%d", (int)getpid());
  snprintf(pattern, sizeof(pattern), "slee[p] %s", tag); /* never matches its own pgrep */
  snprintf(check, sizeof(check), "pgrep -f '%s' >/dev/null", pattern);
  tqh_exec_options_t eo;
  tqh_exec_options_initialize(&eo);
  eo.timeout_ms = 700;
  /* A child in the background and one in the foreground, as a hung runtime might have. */
  const char *const hang[] = {"sh", "-c", "sleep \"$1\" & echo started; sleep \"$1\"; wait",
                              "sh", tag,  NULL};
  tqh_exec_result_t r;
  tqh_exec_result_init(&r);
  double t0 = now_s();
  tq_status_t st = tqh_ssh_exec(s, hang, &eo, &r);
  double took = now_s() - t0;
  const char *const needles[] = {"timed out", "700 ms", "killed", NULL};
  expect_error(st, TQ_DEADLINE_EXCEEDED, needles);
  ck_assert_int_eq(r.timed_out, 1);
  ck_assert_int_eq(r.exit_status, -1);
  ck_assert_str_eq(r.out.data, "started\n");
  ck_assert_int_gt(r.remote_pid, 1);
  ck_assert_msg(took < 5.0, "the timeout took %.3f s", took);
  ck_assert_msg(!th_shell_ok(check), "the hung command still runs on the board");

  /* The session is still good. */
  const char *const echo[] = {"echo", "after", NULL};
  TH_OK(tqh_ssh_exec(s, echo, NULL, &r));
  ck_assert_str_eq(r.out.data, "after\n");

  /* The session's default timeout applies when the command has none. */
  tqh_ssh_disconnect(s);
  tqh_ssh_options_t o;
  board_options(&o);
  o.command_timeout_ms = 300;
  TH_OK(tqh_ssh_connect(&o, &s));
  const char *const sleep5[] = {"sleep", "5", NULL};
  expect_error(tqh_ssh_exec(s, sleep5, NULL, &r), TQ_DEADLINE_EXCEEDED, NULL);
  tqh_exec_result_deinit(&r);
  tqh_ssh_disconnect(s);
}
END_TEST

START_TEST(ssh_command_line_is_built_from_quoted_arguments_only) {
  tq_buf_t b;
  tq_buf_init(&b, 0);
  const char *const argv[] = {"ls", "-l", "a b;c", NULL};
  TH_OK(tqh_ssh_command_line(argv, NULL, &b));
  const char *tail = " torq-exec ls -l 'a b;c'";
  ck_assert_msg(strncmp(b.data, "exec sh -c '", 12) == 0, "%s", b.data);
  ck_assert_msg(
      strlen(b.data) > strlen(tail) && strcmp(b.data + strlen(b.data) - strlen(tail), tail) == 0,
      "%s", b.data);
  const char *const none[] = {NULL};
  tq_buf_clear(&b);
  expect_error(tqh_ssh_command_line(none, NULL, &b), TQ_INVALID_ARGUMENT, NULL);
  tq_buf_deinit(&b);
}
END_TEST

/* ---- Files ----------------------------------------------------------------------------------- */

static void sha256_hex_of_file(const char *path, char out[TQ_SHA256_HEX_SIZE]) {
  uint8_t d[TQ_SHA256_SIZE];
  TH_OK(tq_sha256_file(path, d));
  tq_sha256_hex(d, out);
}

START_TEST(ssh_upload_and_download_5mb_keep_the_bytes) {
  NEED_BOARD();
  tqh_ssh_session_t *s = board_connect();
  char *local = th_path(g_board.tmp, "big.bin");
  FILE *f = fopen(local, "wb");
  ck_assert_ptr_nonnull(f);
  uint32_t x = 2463534242u;
  for (size_t i = 0; i < (5u << 20) / 4; i++) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    ck_assert_uint_eq(fwrite(&x, 4, 1, f), 1);
  }
  ck_assert_int_eq(fclose(f), 0);

  char remote_dir[8192], remote[8300];
  snprintf(remote_dir, sizeof(remote_dir), "%s/remote/a b/c", g_board.tmp);
  TH_OK(tqh_ssh_mkdir_p(s, remote_dir));
  TH_OK(tqh_ssh_mkdir_p(s, remote_dir)); /* exists: fine */
  snprintf(remote, sizeof(remote), "%s/big file.bin", remote_dir);
  double t0 = now_s();
  TH_OK(tqh_ssh_upload(s, local, remote, 0755, 0));
  double up = now_s() - t0;

  tqh_ssh_stat_t st;
  TH_OK(tqh_ssh_stat(s, remote, &st));
  ck_assert_int_eq(st.exists, 1);
  ck_assert_int_eq(st.is_regular, 1);
  ck_assert_uint_eq(st.size, 5u << 20);
  ck_assert_uint_eq(st.mode, 0755);

  char want[TQ_SHA256_HEX_SIZE], got[TQ_SHA256_HEX_SIZE];
  sha256_hex_of_file(local, want);
  tqh_exec_result_t r;
  tqh_exec_result_init(&r);
  const char *const sum[] = {"sha256sum", "--", remote, NULL};
  TH_OK(tqh_ssh_exec(s, sum, NULL, &r));
  ck_assert_int_eq(r.exit_status, 0);
  ck_assert_int_eq(strncmp(r.out.data, want, 64), 0);

  char *back = th_path(g_board.tmp, "back.bin");
  t0 = now_s();
  TH_OK(tqh_ssh_download(s, remote, back));
  double down = now_s() - t0;
  sha256_hex_of_file(back, got);
  ck_assert_str_eq(got, want);
  fprintf(stderr, "ssh: 5 MiB upload %.1f ms, download %.1f ms\n", up * 1e3, down * 1e3);

  /* Nothing is left beside the download, also when it fails. */
  char *missing_local = th_path(g_board.tmp, "missing.bin");
  char missing[8300];
  snprintf(missing, sizeof(missing), "%s/no such file", remote_dir);
  expect_error(tqh_ssh_download(s, missing, missing_local), TQ_NOT_FOUND, NULL);
  ck_assert(access(missing_local, F_OK) != 0);
  char leftover[9000];
  snprintf(leftover, sizeof(leftover), "set -- '%s'/missing.bin.tmp-*; ! test -e \"$1\"",
           g_board.tmp);
  ck_assert(th_shell_ok(leftover));
  free(missing_local);
  free(back);
  free(local);
  tqh_exec_result_deinit(&r);
  tqh_ssh_disconnect(s);
}
END_TEST

START_TEST(ssh_small_files_stat_rename_unlink_and_exclusive_create) {
  NEED_BOARD();
  tqh_ssh_session_t *s = board_connect();
  char a[8192], b[8192];
  snprintf(a, sizeof(a), "%s/lease 'a'", g_board.tmp);
  snprintf(b, sizeof(b), "%s/lease b", g_board.tmp);

  tqh_ssh_stat_t st;
  TH_OK(tqh_ssh_stat(s, a, &st));
  ck_assert_int_eq(st.exists, 0);

  TH_OK(tqh_ssh_upload_buffer(s, "owner=me\n", 9, a, 0644, TQH_SSH_UPLOAD_EXCLUSIVE));
  const char *const needles[] = {"already exists", NULL};
  expect_error(tqh_ssh_upload_buffer(s, "x", 1, a, 0644, TQH_SSH_UPLOAD_EXCLUSIVE),
               TQ_FAILED_PRECONDITION, needles);
  tq_buf_t buf;
  tq_buf_init(&buf, 0);
  TH_OK(tqh_ssh_download_buffer(s, a, 0, &buf));
  ck_assert_str_eq(buf.data, "owner=me\n");
  tq_buf_clear(&buf);
  expect_error(tqh_ssh_download_buffer(s, a, 4, &buf), TQ_LIMIT, NULL);
  ck_assert_uint_eq(buf.len, 0);

  /* An empty file downloads as an empty string. */
  TH_OK(tqh_ssh_upload_buffer(s, "", 0, b, 0600, 0));
  TH_OK(tqh_ssh_download_buffer(s, b, 0, &buf));
  ck_assert_ptr_nonnull(buf.data);
  ck_assert_str_eq(buf.data, "");

  /* Rename replaces the target. */
  TH_OK(tqh_ssh_rename(s, a, b));
  TH_OK(tqh_ssh_stat(s, a, &st));
  ck_assert_int_eq(st.exists, 0);
  TH_OK(tqh_ssh_stat(s, b, &st));
  ck_assert_uint_eq(st.size, 9);
  expect_error(tqh_ssh_rename(s, a, b), TQ_NOT_FOUND, NULL);

  TH_OK(tqh_ssh_unlink(s, b));
  TH_OK(tqh_ssh_unlink(s, b)); /* gone already: fine */
  TH_OK(tqh_ssh_stat(s, b, &st));
  ck_assert_int_eq(st.exists, 0);

  /* A folder where a file is. */
  char file[8192], under[8300];
  snprintf(file, sizeof(file), "%s/plain-file", g_board.tmp);
  TH_OK(tqh_ssh_upload_buffer(s, "x", 1, file, 0644, 0));
  snprintf(under, sizeof(under), "%s/sub", file);
  expect_error(tqh_ssh_mkdir_p(s, under), TQ_IO, NULL);
  char nodir[8300];
  snprintf(nodir, sizeof(nodir), "%s/no-such-dir/x", g_board.tmp);
  expect_error(tqh_ssh_upload_buffer(s, "x", 1, nodir, 0644, 0), TQ_NOT_FOUND, NULL);
  tq_buf_deinit(&buf);
  tqh_ssh_disconnect(s);
}
END_TEST

/* ---- Host keys and authentication ------------------------------------------------------------ */

static void keygen(const char *path) {
  char cmd[9000];
  snprintf(cmd, sizeof(cmd), "ssh-keygen -q -t ed25519 -N '' -C other -f '%s'", path);
  ck_assert(th_shell_ok(cmd));
}

START_TEST(ssh_refuses_a_changed_host_key_with_a_clear_message) {
  NEED_BOARD();
  char *other = th_path(g_board.tmp, "other_host_key");
  keygen(other);
  char *kh = th_path(g_board.tmp, "changed_known_hosts");
  char cmd[20000];
  snprintf(cmd, sizeof(cmd), "printf '[127.0.0.1]:%u ' >'%s' && cut -d' ' -f1,2 '%s.pub' >>'%s'",
           g_board.port, kh, other, kh);
  ck_assert(th_shell_ok(cmd));
  tqh_ssh_options_t o;
  board_options(&o);
  o.known_hosts = kh;
  tqh_ssh_session_t *s = NULL;
  char host[64];
  snprintf(host, sizeof(host), "[127.0.0.1]:%u", g_board.port);
  const char *const needles[] = {
      "HOST KEY CHANGED", host, "ssh-ed25519", "SHA256:", "ssh-keygen -R", kh, NULL};
  expect_error(tqh_ssh_connect(&o, &s), TQ_FAILED_PRECONDITION, needles);
  ck_assert_ptr_null(s);
  o.accept_new_host_key = 1; /* does not override a changed key */
  expect_error(tqh_ssh_connect(&o, &s), TQ_FAILED_PRECONDITION, needles);
  ck_assert_ptr_null(s);
  free(kh);
  free(other);
}
END_TEST

START_TEST(ssh_refuses_an_unknown_host_unless_accepting_new_keys) {
  NEED_BOARD();
  char *kh = th_path(g_board.tmp, "new_known_hosts");
  th_write(kh,
           "# nothing yet\nother.example ssh-ed25519 "
           "AAAAC3NzaC1lZDI1NTE5AAAAIJdD7y3aLq454yWBdwLWbieU1ebz9/cu7/QEXn9OIeZJ\n");
  tqh_ssh_options_t o;
  board_options(&o);
  o.known_hosts = kh;
  tqh_ssh_session_t *s = NULL;
  /* The fingerprint OpenSSH prints for the board's key. */
  char cmd[9000], fp[256] = "";
  snprintf(cmd, sizeof(cmd), "ssh-keygen -lf '%s/ssh_host_ed25519_key.pub' | cut -d' ' -f2",
           g_board.dir);
  FILE *p = popen(cmd, "r");
  ck_assert_ptr_nonnull(p);
  ck_assert_ptr_nonnull(fgets(fp, sizeof(fp), p));
  pclose(p);
  fp[strcspn(fp, "\n")] = '\0';
  ck_assert_int_eq(strncmp(fp, "SHA256:", 7), 0);
  const char *const needles[] = {"unknown", "127.0.0.1", "ssh-ed25519", fp, "ssh-keyscan", NULL};
  expect_error(tqh_ssh_connect(&o, &s), TQ_FAILED_PRECONDITION, needles);

  o.accept_new_host_key = 1;
  TH_OK(tqh_ssh_connect(&o, &s));
  tqh_ssh_disconnect(s);
  /* Now known, with the lines before kept: no opt-in needed any more. */
  char *text = th_read(kh, NULL);
  ck_assert_ptr_nonnull(strstr(text, "# nothing yet\nother.example"));
  free(text);
  o.accept_new_host_key = 0;
  TH_OK(tqh_ssh_connect(&o, &s));
  tqh_ssh_disconnect(s);

  /* Hashed entries (ssh-keygen -H, HashKnownHosts) match as well. */
  snprintf(cmd, sizeof(cmd),
           "ssh-keygen -q -H -f '%s' >/dev/null 2>&1 && grep -q '^|1|' '%s' && "
           "! grep -q 127.0.0.1 '%s'",
           kh, kh, kh);
  ck_assert(th_shell_ok(cmd));
  TH_OK(tqh_ssh_connect(&o, &s));
  tqh_ssh_disconnect(s);
  free(kh);
}
END_TEST

/* ---- Known hosts as OpenSSH reads them --------------------------------------------------------
 */

/* The public key line "TYPE BASE64" of `path`.pub (heap). */
static char *pub_key(const char *path) {
  char cmd[9000];
  snprintf(cmd, sizeof(cmd), "cut -d' ' -f1,2 '%s.pub'", path);
  FILE *p = popen(cmd, "r");
  ck_assert_ptr_nonnull(p);
  char line[4096] = "";
  ck_assert_ptr_nonnull(fgets(line, sizeof(line), p));
  pclose(p);
  line[strcspn(line, "\n")] = '\0';
  return strdup(line);
}

/* The keys a known_hosts case is made of: {N} the board's name ([127.0.0.1]:PORT), {H} that name
 * hashed as ssh-keygen -H hashes it, {P} its port, {K} the board's own key, {O} another ed25519
 * key, {E} an ECDSA key, {C} a CA's key. */
typedef struct kh_keys_s {
  char name[64], port[16];
  char *hashed, *board, *other, *ecdsa, *ca;
} kh_keys_t;

static void kh_keys_make(kh_keys_t *k) {
  snprintf(k->name, sizeof(k->name), "[127.0.0.1]:%u", g_board.port);
  snprintf(k->port, sizeof(k->port), "%u", g_board.port);
  char path[8300];
  snprintf(path, sizeof(path), "%s/ssh_host_ed25519_key", g_board.dir);
  k->board = pub_key(path);
  const char *names[3] = {"kh_other", "kh_ecdsa", "kh_ca"};
  char **outs[3] = {&k->other, &k->ecdsa, &k->ca};
  for (int i = 0; i < 3; i++) {
    char *f = th_path(g_board.tmp, names[i]);
    char cmd[9000];
    snprintf(cmd, sizeof(cmd), "rm -f '%s' '%s.pub' && ssh-keygen -q -t %s -N '' -C x -f '%s'", f,
             f, i == 1 ? "ecdsa" : "ed25519", f);
    ck_assert(th_shell_ok(cmd));
    *outs[i] = pub_key(f);
    free(f);
  }
  /* ssh-keygen -H leaves marker lines alone: the hashed name comes from a plain line. */
  char *h = th_path(g_board.tmp, "kh_hashed");
  char cmd[9000];
  snprintf(cmd, sizeof(cmd), "echo '%s %s' >'%s' && ssh-keygen -q -H -f '%s' >/dev/null 2>&1",
           k->name, k->board, h, h);
  ck_assert(th_shell_ok(cmd));
  char *text = th_read(h, NULL);
  ck_assert_msg(text && !strncmp(text, "|1|", 3), "%s", text ? text : "");
  text[strcspn(text, " ")] = '\0';
  k->hashed = text;
  free(h);
}

static void kh_keys_free(kh_keys_t *k) {
  free(k->hashed);
  free(k->board);
  free(k->other);
  free(k->ecdsa);
  free(k->ca);
}

/* `text` with its {X} tokens replaced (heap). */
static char *kh_expand(const kh_keys_t *k, const char *text) {
  tq_buf_t b;
  tq_buf_init(&b, 0);
  for (const char *p = text; *p; p++) {
    const char *v = NULL;
    if (p[0] == '{' && p[1] && p[2] == '}') {
      switch (p[1]) {
        case 'N':
          v = k->name;
          break;
        case 'H':
          v = k->hashed;
          break;
        case 'P':
          v = k->port;
          break;
        case 'K':
          v = k->board;
          break;
        case 'O':
          v = k->other;
          break;
        case 'E':
          v = k->ecdsa;
          break;
        case 'C':
          v = k->ca;
          break;
        default:
          break;
      }
    }
    if (v) {
      TH_OK(tq_buf_append_cstr(&b, v));
      p += 2;
    } else {
      TH_OK(tq_buf_putc(&b, *p));
    }
  }
  return tq_buf_detach(&b);
}

/* Whether OpenSSH's own client, strict about host keys and given only `kh`, logs in. */
static int openssh_accepts(const char *kh) {
  char cmd[20000];
  snprintf(cmd, sizeof(cmd),
           "ssh -F /dev/null -o BatchMode=yes -o StrictHostKeyChecking=yes "
           "-o UserKnownHostsFile='%s' -o GlobalKnownHostsFile=/dev/null -o CheckHostIP=no "
           "-o UpdateHostKeys=no -o IdentitiesOnly=yes -o ConnectTimeout=10 -i '%s' -p %u "
           "'%s@127.0.0.1' true </dev/null >/dev/null 2>&1",
           kh, g_board.key, g_board.port, g_board.user);
  return th_shell_ok(cmd);
}

typedef struct kh_case_s {
  const char *what;
  const char *text; /* known_hosts, with {X} tokens */
  int hashed;       /* then hashed with ssh-keygen -H (HashKnownHosts) */
  int accepted;
  const char *needle; /* in the refusal */
  unsigned line;      /* the line the refusal names (0: none) */
} kh_case_t;

static const kh_case_t k_kh_cases[] = {
    {"the board's key", "{N} {K}\n", 0, 1, NULL, 0},
    {"several keys for the host, the board's last", "{N} {E}\n{N} {O}\n{N} {K}\n", 0, 1, NULL, 0},
    {"several keys, hashed", "{N} {O}\n{N} {E}\nother.example {O}\n{N} {K}\n", 1, 1, NULL, 0},
    {"the host in a list", "other.example,{N},10.0.0.1 {K}\n", 0, 1, NULL, 0},
    {"wildcards", "[127.0.0.?]:* {K}\n", 0, 1, NULL, 0},
    {"comments, blank and unreadable lines are skipped",
     "# boards\n\n{N} ssh-ed25519 not-base64!\n{N} ssh-ed25519\n  {N} {K}\n", 0, 1, NULL, 0},
    {"a negated pattern", "[127.0.0.*]:*,!{N} {K}\n", 0, 0, "is unknown", 0},
    {"another host's key only", "other.example {K}\n", 0, 0, "is unknown", 0},
    {"@revoked", "{N} {K}\n@revoked {N} {K}\n", 0, 0, "REVOKED HOST KEY", 2},
    {"@revoked for every host", "@revoked * {K}\n{N} {K}\n", 0, 0, "REVOKED HOST KEY", 1},
    {"@revoked, hashed", "{H} {K}\n@revoked {H} {K}\n", 0, 0, "REVOKED HOST KEY", 2},
    {"hashed, another host's", "|1|AAAAAAAAAAAAAAAAAAAAAAAAAAA=|AAAAAAAAAAAAAAAAAAAAAAAAAAA= {K}\n",
     0, 0, "is unknown", 0},
    {"another key @revoked", "@revoked * {O}\n{N} {K}\n", 0, 1, NULL, 0},
    {"@cert-authority only", "@cert-authority {N} {C}\n", 0, 0, "@cert-authority", 1},
    {"@cert-authority by pattern", "# CA\n@cert-authority [127.0.0.1]:* {C}\n", 0, 0,
     "@cert-authority", 2},
    {"@cert-authority and the board's key", "@cert-authority * {C}\n{N} {K}\n", 0, 1, NULL, 0},
    {"an unknown marker", "@trusted {N} {K}\n", 0, 0, "is unknown", 0},
    {"a changed key", "{N} {O}\n", 0, 0, "HOST KEY CHANGED", 1},
    {"a key of another type only", "other.example {O}\n{N} {E}\n", 0, 0, "HOST KEY CHANGED", 2},
};

/* Each known_hosts case gives OpenSSH's verdict, and the refusal names the line that decided. */
START_TEST(ssh_known_hosts_are_read_as_openssh_reads_them) {
  NEED_BOARD();
  const kh_case_t *c = &k_kh_cases[_i];
  kh_keys_t keys;
  kh_keys_make(&keys);
  char *kh = th_path(g_board.tmp, "case_known_hosts");
  char *text = kh_expand(&keys, c->text);
  th_write(kh, text);
  if (c->hashed) {
    char cmd[9000];
    snprintf(cmd, sizeof(cmd),
             "ssh-keygen -q -H -f '%s' >/dev/null 2>&1 && ! grep -q '127.0.0.1' '%s'", kh, kh);
    ck_assert_msg(th_shell_ok(cmd), "%s: ssh-keygen -H failed", c->what);
  }
  char *before = th_read(kh, NULL);
  ck_assert_msg(openssh_accepts(kh) == c->accepted, "%s: OpenSSH %s it", c->what,
                c->accepted ? "refuses" : "accepts");

  tqh_ssh_options_t o;
  board_options(&o);
  o.known_hosts = kh;
  tqh_ssh_session_t *s = NULL;
  tq_status_t st = tqh_ssh_connect(&o, &s);
  if (c->accepted) {
    ck_assert_msg(st == NULL, "%s: refused: %s", c->what, st ? tq_status_message(st) : "");
    tqh_ssh_disconnect(s);
  } else {
    ck_assert_msg(st != NULL, "%s: accepted", c->what);
    const char *msg = tq_status_message(st);
    ck_assert_int_eq(tq_status_code(st), TQ_FAILED_PRECONDITION);
    ck_assert_msg(strstr(msg, c->needle), "%s: %s", c->what, msg);
    ck_assert_msg(strstr(msg, keys.name) && strstr(msg, "SHA256:"), "%s: %s", c->what, msg);
    if (c->line) {
      char where[8400];
      snprintf(where, sizeof(where), "%s:%u", kh, c->line);
      ck_assert_msg(strstr(msg, where), "%s: no '%s' in: %s", c->what, where, msg);
    }
    tq_status_free(st);
    ck_assert_ptr_null(s);
  }
  /* Nothing was written without the opt-in. */
  char *after = th_read(kh, NULL);
  ck_assert_str_eq(after, before);
  free(after);
  free(before);
  free(text);
  free(kh);
  kh_keys_free(&keys);
}
END_TEST

/* Accepting new host keys adds an unknown key, never a revoked one, and never for a board known
 * only through a certificate authority. */
START_TEST(ssh_accepting_new_keys_never_adds_a_revoked_key_nor_bypasses_a_ca) {
  NEED_BOARD();
  kh_keys_t keys;
  kh_keys_make(&keys);
  const char *const texts[] = {"# only revoked\n@revoked {N} {K}\n",
                               "@revoked * {K}\nother.example {O}\n", "@cert-authority {N} {C}\n"};
  const char *const needles[] = {"REVOKED HOST KEY", "REVOKED HOST KEY", "@cert-authority"};
  char *kh = th_path(g_board.tmp, "accept_known_hosts");
  for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
    char *text = kh_expand(&keys, texts[i]);
    th_write(kh, text);
    tqh_ssh_options_t o;
    board_options(&o);
    o.known_hosts = kh;
    o.accept_new_host_key = 1;
    tqh_ssh_session_t *s = NULL;
    const char *const want[] = {needles[i], "accepting new host keys", NULL};
    for (int attempt = 0; attempt < 2; attempt++) {
      expect_error(tqh_ssh_connect(&o, &s), TQ_FAILED_PRECONDITION, want);
      ck_assert_ptr_null(s);
    }
    char *after = th_read(kh, NULL);
    ck_assert_msg(!strcmp(after, text), "known_hosts changed:\n%s", after);
    free(after);
    free(text);
  }
  /* The same board with nothing against its key: accepted, appended as one plain line, and
   * OpenSSH's client agrees with what was written. */
  char *text = kh_expand(&keys, "@revoked * {O}\n");
  th_write(kh, text);
  tqh_ssh_options_t o;
  board_options(&o);
  o.known_hosts = kh;
  o.accept_new_host_key = 1;
  tqh_ssh_session_t *s = NULL;
  TH_OK(tqh_ssh_connect(&o, &s));
  tqh_ssh_disconnect(s);
  char *after = th_read(kh, NULL);
  char *want = kh_expand(&keys, "@revoked * {O}\n{N} {K}\n");
  ck_assert_str_eq(after, want);
  ck_assert(openssh_accepts(kh));
  free(want);
  free(after);
  free(text);
  free(kh);
  kh_keys_free(&keys);
}
END_TEST

START_TEST(ssh_reports_a_wrong_user_key_clearly) {
  NEED_BOARD();
  char *other = th_path(g_board.tmp, "id_other");
  keygen(other);
  tqh_ssh_options_t o;
  board_options(&o);
  o.key_file = other;
  tqh_ssh_session_t *s = NULL;
  const char *const needles[] = {"authentication", g_board.user,      other,
                                 "refused",        "authorized_keys", NULL};
  tq_status_t st = tqh_ssh_connect(&o, &s);
  ck_assert_ptr_nonnull(st);
  /* No key material in the message. */
  char *priv = th_read(other, NULL);
  char *line2 = strchr(priv, '\n');
  ck_assert_ptr_nonnull(line2);
  char chunk[24];
  snprintf(chunk, sizeof(chunk), "%.20s", line2 + 1);
  ck_assert_ptr_null(strstr(tq_status_message(st), chunk));
  expect_error(st, TQ_FAILED_PRECONDITION, needles);
  ck_assert_ptr_null(s);

  char *missing = th_path(g_board.tmp, "no_such_key");
  o.key_file = missing;
  const char *const needles2[] = {missing, NULL};
  expect_error(tqh_ssh_connect(&o, &s), TQ_INVALID_ARGUMENT, needles2);

  /* A file that is not a key. */
  char *junk = th_path(g_board.tmp, "junk_key");
  th_write(junk, "not a key\n");
  o.key_file = junk;
  expect_error(tqh_ssh_connect(&o, &s), TQ_INVALID_ARGUMENT, NULL);
  free(junk);
  free(missing);
  free(priv);
  free(other);
}
END_TEST

START_TEST(ssh_connection_refused_is_unavailable) {
  NEED_BOARD();
  tqh_ssh_options_t o;
  board_options(&o);
  o.port = 1; /* nothing listens there */
  tqh_ssh_session_t *s = NULL;
  const char *const needles[] = {"127.0.0.1:1", NULL};
  expect_error(tqh_ssh_connect(&o, &s), TQ_UNAVAILABLE, needles);
  o.host = NULL;
  expect_error(tqh_ssh_connect(&o, &s), TQ_INVALID_ARGUMENT, NULL);
}
END_TEST

/* ---- Faults, reconnection, cost ------------------------------------------------------------- */

START_TEST(ssh_server_killed_mid_command_is_unavailable_and_reconnect_works) {
  NEED_BOARD();
  tqh_ssh_options_t o;
  board_options(&o);
  o.reconnect_attempts = 2;
  o.reconnect_backoff_ms = 50;
  tqh_ssh_session_t *s = NULL;
  TH_OK(tqh_ssh_connect(&o, &s));
  tqh_exec_result_t r;
  tqh_exec_result_init(&r);
  const char *const echo[] = {"echo", "before", NULL};
  TH_OK(tqh_ssh_exec(s, echo, NULL, &r));
  ck_assert_str_eq(r.out.data, "before\n");

  pid_t killer = fork();
  ck_assert_int_ge(killer, 0);
  if (killer == 0) {
    usleep(300 * 1000);
    _exit(board_cmd("kill") ? 0 : 1);
  }
  const char *const sleep30[] = {"sleep", "30", NULL};
  double t0 = now_s();
  tq_status_t st = tqh_ssh_exec(s, sleep30, NULL, &r);
  double took = now_s() - t0;
  int status = 0;
  ck_assert_int_eq(waitpid(killer, &status, 0), killer);
  ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  expect_error(st, TQ_UNAVAILABLE, NULL);
  ck_assert_msg(took < 10.0, "noticing the loss took %.3f s", took);
  ck_assert_int_eq(tqh_ssh_is_connected(s), 0);
  const char *const needles[] = {"not connected", NULL};
  expect_error(tqh_ssh_exec(s, echo, NULL, &r), TQ_UNAVAILABLE, needles);
  tqh_ssh_stat_t info;
  expect_error(tqh_ssh_stat(s, "/", &info), TQ_UNAVAILABLE, NULL);

  /* While the board is down, reconnecting fails after its attempts. */
  const char *const needles2[] = {"2 attempts", NULL};
  expect_error(tqh_ssh_reconnect(s), TQ_UNAVAILABLE, needles2);

  /* The board comes back (same port, same keys): the same session object works again. */
  ck_assert(board_cmd("start"));
  TH_OK(tqh_ssh_reconnect(s));
  ck_assert_int_eq(tqh_ssh_is_connected(s), 1);
  TH_OK(tqh_ssh_exec(s, echo, NULL, &r));
  ck_assert_str_eq(r.out.data, "before\n");
  TH_OK(tqh_ssh_stat(s, "/", &info));
  ck_assert_int_eq(info.is_dir, 1);

  /* Killed between commands, with SFTP open. */
  ck_assert(board_cmd("kill"));
  expect_error(tqh_ssh_stat(s, "/tmp", &info), TQ_UNAVAILABLE, NULL);
  ck_assert(board_cmd("start"));
  TH_OK(tqh_ssh_reconnect(s));
  TH_OK(tqh_ssh_stat(s, "/tmp", &info));
  tqh_exec_result_deinit(&r);
  tqh_ssh_disconnect(s);
}
END_TEST

START_TEST(ssh_forked_child_abandons_the_session_without_breaking_it) {
  NEED_BOARD();
  tqh_ssh_session_t *s = board_connect();
  pid_t child = fork();
  ck_assert_int_ge(child, 0);
  if (child == 0) {
    tqh_ssh_session_abandon(s);
    _exit(0);
  }
  int status = 0;
  ck_assert_int_eq(waitpid(child, &status, 0), child);
  tqh_exec_result_t r;
  tqh_exec_result_init(&r);
  const char *const echo[] = {"echo", "still", NULL};
  TH_OK(tqh_ssh_exec(s, echo, NULL, &r));
  ck_assert_str_eq(r.out.data, "still\n");
  tqh_exec_result_deinit(&r);
  tqh_ssh_disconnect(s);
}
END_TEST

START_TEST(ssh_keepalive_keeps_an_idle_session) {
  NEED_BOARD();
  tqh_ssh_options_t o;
  board_options(&o);
  o.keepalive_interval_s = 1;
  tqh_ssh_session_t *s = NULL;
  TH_OK(tqh_ssh_connect(&o, &s));
  tqh_exec_result_t r;
  tqh_exec_result_init(&r);
  const char *const slow[] = {"sh", "-c", "sleep 2.2; echo done", NULL};
  TH_OK(tqh_ssh_exec(s, slow, NULL, &r)); /* keep-alives go out while it waits */
  ck_assert_str_eq(r.out.data, "done\n");
  usleep(1200 * 1000);
  TH_OK(tqh_ssh_keepalive(s));
  TH_OK(tqh_ssh_keepalive(s));
  const char *const echo[] = {"echo", "ok", NULL};
  TH_OK(tqh_ssh_exec(s, echo, NULL, &r));
  ck_assert_str_eq(r.out.data, "ok\n");
  tqh_exec_result_deinit(&r);
  tqh_ssh_disconnect(s);
}
END_TEST


/* ---- The board's resident agent (tqh_board_run) --------------------------------------------- */

static tqh_board_conn_t *agent_board(int no_agent, char *root, size_t size) {
  snprintf(root, size, "%s/root-%d", g_board.tmp, no_agent);
  tqh_board_spec_t spec;
  memset(&spec, 0, sizeof(spec));
  spec.name = "loop";
  board_options(&spec.ssh);
  spec.ssh.reconnect_attempts = 2;
  spec.ssh.reconnect_backoff_ms = 50;
  spec.board_root = root;
  tqh_board_options_t bo;
  tqh_board_options_initialize(&bo);
  bo.no_agent = no_agent;
  tqh_board_conn_t *c = NULL;
  TH_OK(tqh_board_connect(&spec, &bo, &c));
  return c;
}

/* Runs argv in `work` (after removing `prev`); returns the result's exit status, signals as
 * 128 + N whichever way they came. */
static int board_run(tqh_board_conn_t *c, const char *prev, const char *work,
                     const char *const argv[], tqh_exec_result_t *r) {
  TH_OK(tqh_board_run(c, prev, work, argv, NULL, r));
  return r->signal > 0 ? 128 + r->signal : r->exit_status;
}

static int is_dir(const char *path) {
  struct stat sb;
  return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

START_TEST(board_run_through_the_agent_gives_what_an_exec_of_its_own_gives) {
  NEED_BOARD();
  for (int no_agent = 0; no_agent < 2; no_agent++) {
    char root[4200], w1[4300], w2[4300], file[4300], bad[4400], cwd[4400];
    tqh_board_conn_t *c = agent_board(no_agent, root, sizeof(root));
    snprintf(w1, sizeof(w1), "%s/work/t1", root);
    snprintf(w2, sizeof(w2), "%s/work/t 2 'q'", root);
    snprintf(file, sizeof(file), "%s/a-file", root);
    snprintf(bad, sizeof(bad), "%s/sub", file);
    tqh_exec_result_t r;
    tqh_exec_result_init(&r);
    /* Both streams exactly, the last line without its newline too, and the exit status. */
    const char *const both[] = {"sh", "-c", "printf 'o1\\no2'; printf 'e1\\n' >&2; exit 3", NULL};
    ck_assert_int_eq(board_run(c, NULL, w1, both, &r), 3);
    ck_assert_str_eq(r.out.data, "o1\no2");
    ck_assert_str_eq(r.err.data, "e1\n");
    /* It runs in its folder, made for it; the previous folder goes. */
    const char *const pwd[] = {"pwd", NULL};
    ck_assert_int_eq(board_run(c, w1, w2, pwd, &r), 0);
    snprintf(cwd, sizeof(cwd), "%s\n", w2);
    ck_assert_str_eq(r.out.data, cwd);
    ck_assert_int_eq(r.err.len, 0);
    const char *const t[] = {"true", NULL};
    ck_assert_int_eq(board_run(c, NULL, w2, t, &r), 0); /* the agent removed w1 after replying */
    ck_assert(!is_dir(w1));
    ck_assert(is_dir(w2));
    /* No output at all; a folder that cannot be made; a runtime that cannot be started; a
     * signal. */
    ck_assert_int_eq(board_run(c, NULL, w2, t, &r), 0);
    ck_assert_int_eq(r.out.len, 0);
    ck_assert_int_eq(r.err.len, 0);
    FILE *f = fopen(file, "w");
    ck_assert_ptr_nonnull(f);
    fclose(f);
    ck_assert_int_eq(board_run(c, NULL, bad, t, &r), 125);
    const char *const missing[] = {"/nonexistent/torq-run-module", NULL};
    ck_assert_int_eq(board_run(c, NULL, w2, missing, &r), 127);
    const char *const killed[] = {"sh", "-c", "kill -s KILL $$", NULL};
    ck_assert_int_eq(board_run(c, NULL, w2, killed, &r), 128 + SIGKILL);
    /* Arguments the shell would love to interpret reach the command unharmed (those with a
     * newline take an exec of their own). */
    size_t n = sizeof(k_hard_args) / sizeof(k_hard_args[0]);
    const char *argv[64];
    argv[0] = "printf";
    argv[1] = "%s\\0";
    for (int nl = 0; nl < 2; nl++) {
      size_t k = 2;
      tq_buf_t want;
      tq_buf_init(&want, 0);
      for (size_t i = 0; i < n; i++) {
        if (!nl && strchr(k_hard_args[i], '\n')) continue;
        argv[k++] = k_hard_args[i];
        TH_OK(tq_buf_append(&want, k_hard_args[i], strlen(k_hard_args[i]) + 1));
      }
      argv[k] = NULL;
      ck_assert_int_eq(board_run(c, NULL, w2, argv, &r), 0);
      ck_assert_uint_eq(r.out.len, want.len);
      ck_assert(memcmp(r.out.data, want.data, want.len) == 0);
      tq_buf_deinit(&want);
    }
    ck_assert(access("/tmp/torq-pwned", F_OK) != 0);
    /* Output far over the limit is cut there, and the reply still ends where it should. */
    tqh_exec_options_t eo;
    tqh_exec_options_initialize(&eo);
    eo.output_limit = 1000;
    const char *const big[] = {"sh", "-c", "i=0; while [ $i -lt 3000 ]; do echo 0123456789; "
                               "i=$((i+1)); done; echo tail >&2", NULL};
    TH_OK(tqh_board_run(c, NULL, w2, big, &eo, &r));
    ck_assert_int_eq(r.exit_status, 0);
    ck_assert_uint_eq(r.out.len, 1000);
    ck_assert_int_eq(r.out_truncated, 1);
    ck_assert_str_eq(r.err.data, "tail\n");
    /* One agent served every call (none with no_agent). */
    ck_assert_uint_eq(tqh_board_agents_started(c), no_agent ? 0 : 1);
    /* The timeout kills the command (the agent with it); the next call starts a new agent. */
    eo.timeout_ms = 500;
    const char *const sleep30[] = {"sleep", "30", NULL};
    double t0 = now_s();
    expect_error(tqh_board_run(c, NULL, w2, sleep30, &eo, &r), TQ_DEADLINE_EXCEEDED, NULL);
    ck_assert_msg(now_s() - t0 < 10.0, "the timeout took %.3f s", now_s() - t0);
    ck_assert_int_eq(r.timed_out, 1);
    const char *const echo[] = {"echo", "after", NULL};
    ck_assert_int_eq(board_run(c, NULL, w2, echo, &r), 0);
    ck_assert_str_eq(r.out.data, "after\n");
    ck_assert_uint_eq(tqh_board_agents_started(c), no_agent ? 0 : 2);
    tqh_exec_result_deinit(&r);
    tqh_board_disconnect(c);
  }
}
END_TEST

START_TEST(board_agent_that_crashes_fails_its_call_as_infra_and_the_next_call_restarts_it) {
  NEED_BOARD();
  char root[4200], w[4300];
  tqh_board_conn_t *c = agent_board(0, root, sizeof(root));
  snprintf(w, sizeof(w), "%s/work/t", root);
  tqh_exec_result_t r;
  tqh_exec_result_init(&r);
  const char *const echo[] = {"echo", "ok", NULL};
  ck_assert_int_eq(board_run(c, NULL, w, echo, &r), 0);
  /* The command kills the agent (its parent) in the middle of the call: an infrastructure error
   * of that call, the connection stays. */
  const char *const crash[] = {"sh", "-c", "echo started; kill -s KILL $PPID; exit 0", NULL};
  tq_status_t st = tqh_board_run(c, NULL, w, crash, NULL, &r);
  ck_assert_ptr_nonnull(st);
  ck_assert_str_eq(tqh_board_fault_type(st), "infra_connection");
  const char *const needles[] = {"board agent ended", "killed by signal 9", NULL};
  expect_error(st, TQ_UNAVAILABLE, needles);
  ck_assert_int_eq(tqh_board_is_connected(c), 1);
  ck_assert_ptr_nonnull(strstr(r.out.data ? r.out.data : "", "started"));
  ck_assert_int_eq(board_run(c, NULL, w, echo, &r), 0);
  ck_assert_str_eq(r.out.data, "ok\n");
  ck_assert_uint_eq(tqh_board_agents_started(c), 2);
  /* Killed while idle (from outside): the next call notices and starts another. */
  char pid[32];
  snprintf(pid, sizeof(pid), "%d", r.remote_pid);
  ck_assert_int_gt(r.remote_pid, 1);
  const char *const kill9[] = {"kill", "-s", "KILL", pid, NULL};
  tqh_exec_result_t k;
  tqh_exec_result_init(&k);
  TH_OK(tqh_ssh_exec(tqh_board_session(c), kill9, NULL, &k));
  ck_assert_int_eq(k.exit_status, 0);
  tqh_exec_result_deinit(&k);
  usleep(300 * 1000);
  ck_assert_int_eq(board_run(c, NULL, w, echo, &r), 0);
  ck_assert_str_eq(r.out.data, "ok\n");
  ck_assert_uint_eq(tqh_board_agents_started(c), 3);
  tqh_exec_result_deinit(&r);
  tqh_board_disconnect(c);
}
END_TEST

START_TEST(board_agent_goes_with_a_dropped_connection_and_comes_back_after_reconnect) {
  NEED_BOARD();
  char root[4200], w[4300];
  tqh_board_conn_t *c = agent_board(0, root, sizeof(root));
  snprintf(w, sizeof(w), "%s/work/t", root);
  tqh_exec_result_t r;
  tqh_exec_result_init(&r);
  const char *const echo[] = {"echo", "ok", NULL};
  ck_assert_int_eq(board_run(c, NULL, w, echo, &r), 0);
  /* The board goes away in the middle of a call. */
  pid_t killer = fork();
  ck_assert_int_ge(killer, 0);
  if (killer == 0) {
    usleep(300 * 1000);
    _exit(board_cmd("kill") ? 0 : 1);
  }
  const char *const sleep30[] = {"sleep", "30", NULL};
  double t0 = now_s();
  tq_status_t st = tqh_board_run(c, NULL, w, sleep30, NULL, &r);
  double took = now_s() - t0;
  int status = 0;
  ck_assert_int_eq(waitpid(killer, &status, 0), killer);
  ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  expect_error(st, TQ_UNAVAILABLE, NULL);
  ck_assert_msg(took < 10.0, "noticing the loss took %.3f s", took);
  ck_assert_int_eq(tqh_board_is_connected(c), 0);
  expect_error(tqh_board_run(c, NULL, w, echo, NULL, &r), TQ_UNAVAILABLE, NULL);
  /* Back, reconnected: a new agent on the new connection. */
  ck_assert(board_cmd("start"));
  TH_OK(tqh_board_reconnect(c));
  ck_assert_int_eq(board_run(c, NULL, w, echo, &r), 0);
  ck_assert_str_eq(r.out.data, "ok\n");
  ck_assert_uint_eq(tqh_board_agents_started(c), 2);
  /* Dropped between calls: the call says so, reconnecting brings a third agent. */
  ck_assert(board_cmd("kill"));
  expect_error(tqh_board_run(c, NULL, w, echo, NULL, &r), TQ_UNAVAILABLE, NULL);
  ck_assert(board_cmd("start"));
  TH_OK(tqh_board_reconnect(c));
  ck_assert_int_eq(board_run(c, NULL, w, echo, &r), 0);
  ck_assert_str_eq(r.out.data, "ok\n");
  ck_assert_uint_eq(tqh_board_agents_started(c), 3);
  tqh_exec_result_deinit(&r);
  tqh_board_disconnect(c);
}
END_TEST

Suite *ssh_suite(void) {
  Suite *s = suite_create("ssh");
  TCase *tc = tcase_create("board");
  tcase_add_unchecked_fixture(tc, board_setup, board_teardown);
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, ssh_command_line_is_built_from_quoted_arguments_only);
  tcase_add_test(tc, ssh_exec_captures_stdout_stderr_and_exit_status);
  tcase_add_test(tc, ssh_exec_reports_nonzero_exit_status_and_signals);
  tcase_add_test(tc, ssh_exec_passes_hard_arguments_unharmed);
  tcase_add_test(tc, ssh_exec_feeds_stdin_and_caps_output);
  tcase_add_test(tc, ssh_exec_timeout_kills_the_remote_process);
  tcase_add_test(tc, ssh_upload_and_download_5mb_keep_the_bytes);
  tcase_add_test(tc, ssh_small_files_stat_rename_unlink_and_exclusive_create);
  tcase_add_test(tc, ssh_refuses_a_changed_host_key_with_a_clear_message);
  tcase_add_test(tc, ssh_refuses_an_unknown_host_unless_accepting_new_keys);
  tcase_add_loop_test(tc, ssh_known_hosts_are_read_as_openssh_reads_them, 0,
                      (int)(sizeof(k_kh_cases) / sizeof(k_kh_cases[0])));
  tcase_add_test(tc, ssh_accepting_new_keys_never_adds_a_revoked_key_nor_bypasses_a_ca);
  tcase_add_test(tc, ssh_reports_a_wrong_user_key_clearly);
  tcase_add_test(tc, ssh_connection_refused_is_unavailable);
  tcase_add_test(tc, ssh_forked_child_abandons_the_session_without_breaking_it);
  tcase_add_test(tc, ssh_keepalive_keeps_an_idle_session);
  tcase_add_test(tc, board_run_through_the_agent_gives_what_an_exec_of_its_own_gives);
  tcase_add_test(tc, board_agent_that_crashes_fails_its_call_as_infra_and_the_next_call_restarts_it);
  suite_add_tcase(s, tc);

  /* Its own board: these tests kill and restart it. */
  TCase *faults = tcase_create("faults");
  tcase_add_unchecked_fixture(faults, board_setup, board_teardown);
  tcase_set_timeout(faults, 120);
  tcase_add_test(faults, ssh_server_killed_mid_command_is_unavailable_and_reconnect_works);
  tcase_add_test(faults, board_agent_goes_with_a_dropped_connection_and_comes_back_after_reconnect);
  suite_add_tcase(s, faults);
  return s;
}
