/* POSIX quoting of arguments: exact forms, and hard strings round-tripped through the real
 * /bin/sh (`sh -c 'printf %s "$1"' sh QUOTED` must print the string byte for byte). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "torq/base/str.h"
#include "torq/harness/shell_quote.h"

Suite *shell_quote_suite(void);

static const char *const k_hard[] = {
    "",
    " ",
    "a b",
    "  two  spaces  ",
    "'",
    "''",
    "it's",
    "'; rm -rf /tmp/torq-never; '",
    "\"",
    "\"$HOME\"",
    "\\",
    "\\'",
    "back\\slash\\n",
    "$HOME",
    "${HOME}",
    "$(echo pwned)",
    "`echo pwned`",
    "$((1+1))",
    ";",
    "a;echo pwned",
    "a && echo pwned",
    "a || echo pwned",
    "a | cat",
    "&",
    "<",
    ">/tmp/torq-never",
    "*",
    "?",
    "[a-z]*",
    "/*",
    "~",
    "~root",
    "a=b",
    "PATH=/nowhere",
    "-n",
    "-e",
    "--",
    "\n",
    "line1\nline2\n",
    "\t",
    "tab\there",
    "\r\n",
    "!",
    "!!",
    "#not a comment",
    "a #b",
    "{a,b}",
    "%s%d%n",
    "\x01\x02\x1b[31m\x7f",
    "é ü 漢字 🙂",
    "\xff\xfe\x80 invalid utf-8",
    "plain-word_1.2:3,4@5%6+7/8",
};
#define HARD_COUNT ((int)(sizeof(k_hard) / sizeof(k_hard[0])))

/* Runs `sh -c 'printf %s "$1"' sh QUOTED` and returns its stdout (heap, free()). */
static char *through_sh(const char *quoted, size_t *out_len) {
  tq_buf_t cmd;
  tq_buf_init(&cmd, 0);
  TH_OK(tq_buf_append_cstr(&cmd, "exec /bin/sh -c 'printf %s \"$1\"' sh "));
  TH_OK(tq_buf_append_cstr(&cmd, quoted));
  FILE *p = popen(cmd.data, "r");
  ck_assert_ptr_nonnull(p);
  tq_buf_t out;
  tq_buf_init(&out, 0);
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) TH_OK(tq_buf_append(&out, buf, n));
  int rc = pclose(p);
  ck_assert_msg(rc == 0, "sh failed (%d) for: %s", rc, cmd.data);
  tq_buf_deinit(&cmd);
  *out_len = out.len;
  char *s = tq_buf_detach(&out);
  ck_assert_ptr_nonnull(s);
  return s;
}

START_TEST(shell_quote_round_trips_hard_strings_through_sh) {
  const char *arg = k_hard[_i];
  tq_buf_t q;
  tq_buf_init(&q, 0);
  TH_OK(tqh_shell_quote(arg, &q));
  size_t len = 0;
  char *got = through_sh(q.data, &len);
  ck_assert_msg(len == strlen(arg) && memcmp(got, arg, len) == 0,
                "case %d: quoted as [%s], sh printed %zu bytes [%s]", _i, q.data, len, got);
  free(got);
  tq_buf_deinit(&q);
}
END_TEST

START_TEST(shell_quote_argv_keeps_every_argument_whole) {
  /* All hard strings at once, printed NUL-separated by one printf. */
  const char *argv[HARD_COUNT + 3];
  argv[0] = "printf";
  argv[1] = "%s\\0";
  for (int i = 0; i < HARD_COUNT; i++) argv[i + 2] = k_hard[i];
  argv[HARD_COUNT + 2] = NULL;
  tq_buf_t cmd, want;
  tq_buf_init(&cmd, 0);
  tq_buf_init(&want, 0);
  TH_OK(tqh_shell_quote_argv(argv, &cmd));
  for (int i = 0; i < HARD_COUNT; i++)
    TH_OK(tq_buf_append(&want, k_hard[i], strlen(k_hard[i]) + 1));
  /* The command line is run by sh as a script: printf must see every argument as it was. */
  tq_buf_t outer;
  tq_buf_init(&outer, 0);
  TH_OK(tq_buf_append_cstr(&outer, "exec /bin/sh -c "));
  TH_OK(tqh_shell_quote(cmd.data, &outer));
  FILE *p = popen(outer.data, "r");
  ck_assert_ptr_nonnull(p);
  tq_buf_t got;
  tq_buf_init(&got, 0);
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) TH_OK(tq_buf_append(&got, buf, n));
  ck_assert_int_eq(pclose(p), 0);
  ck_assert_uint_eq(got.len, want.len);
  ck_assert(memcmp(got.data, want.data, got.len) == 0);
  tq_buf_deinit(&got);
  tq_buf_deinit(&outer);
  tq_buf_deinit(&cmd);
  tq_buf_deinit(&want);
}
END_TEST

START_TEST(shell_quote_writes_exact_forms) {
  static const struct {
    const char *in, *out;
  } cases[] = {
      {"", "''"},
      {"abc", "abc"},
      {"/home/root/iree-build-soc/x.vmfb", "/home/root/iree-build-soc/x.vmfb"},
      {"a b", "'a b'"},
      {"it's", "'it'\\''s'"},
      {"'", "''\\'''"},
      {"a=b", "'a=b'"},
      {"~", "'~'"},
      {"$x", "'$x'"},
      {"a\nb", "'a\nb'"},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    tq_buf_t q;
    tq_buf_init(&q, 0);
    TH_OK(tqh_shell_quote(cases[i].in, &q));
    ck_assert_str_eq(q.data, cases[i].out);
    tq_buf_deinit(&q);
  }
  const char *argv[] = {"mv", "-f", "--", "a b", "c'd", NULL};
  tq_buf_t q;
  tq_buf_init(&q, 0);
  TH_OK(tqh_shell_quote_argv(argv, &q));
  ck_assert_str_eq(q.data, "mv -f -- 'a b' 'c'\\''d'");
  tq_buf_deinit(&q);
}
END_TEST

START_TEST(shell_quote_rejects_nul_and_empty_argv_leaving_the_buffer_unchanged) {
  tq_buf_t q;
  tq_buf_init(&q, 0);
  TH_OK(tq_buf_append_cstr(&q, "keep"));
  tq_status_t st = tqh_shell_quote_n("a\0b", 3, &q);
  ck_assert_int_eq(tq_status_code(st), TQ_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(tq_status_message(st), "NUL"));
  tq_status_free(st);
  ck_assert_str_eq(q.data, "keep");

  const char *empty[] = {NULL};
  st = tqh_shell_quote_argv(empty, &q);
  ck_assert_int_eq(tq_status_code(st), TQ_INVALID_ARGUMENT);
  tq_status_free(st);
  st = tqh_shell_quote_argv(NULL, &q);
  ck_assert_int_eq(tq_status_code(st), TQ_INVALID_ARGUMENT);
  tq_status_free(st);

  /* A limit reached half-way leaves no half-quoted argument behind. */
  tq_buf_t small;
  tq_buf_init(&small, 8);
  TH_OK(tq_buf_append_cstr(&small, "ab"));
  st = tqh_shell_quote("it's long", &small);
  ck_assert_int_eq(tq_status_code(st), TQ_LIMIT);
  tq_status_free(st);
  ck_assert_str_eq(small.data, "ab");
  tq_buf_deinit(&small);
  tq_buf_deinit(&q);
}
END_TEST

Suite *shell_quote_suite(void) {
  Suite *s = suite_create("shell_quote");
  TCase *tc = tcase_create("quote");
  tcase_add_loop_test(tc, shell_quote_round_trips_hard_strings_through_sh, 0, HARD_COUNT);
  tcase_add_test(tc, shell_quote_argv_keeps_every_argument_whole);
  tcase_add_test(tc, shell_quote_writes_exact_forms);
  tcase_add_test(tc, shell_quote_rejects_nul_and_empty_argv_leaving_the_buffer_unchanged);
  suite_add_tcase(s, tc);
  return s;
}
