/* POSIX single-quote quoting of command-line arguments (shell_quote.h). */
#include "torq/harness/shell_quote.h"

#include <string.h>

/* Characters no POSIX shell treats specially anywhere in a word. '=' is left out (a first word
 * with '=' is an assignment) and so is '~' (tilde expansion). */
static int is_plain(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         strchr("_@%+:,./-", c) != NULL;
}

tq_status_t tqh_shell_quote_n(const char *arg, size_t len, tq_buf_t *out) {
  if (len > 0 && memchr(arg, '\0', len)) {
    return TQ_STATUS(TQ_INVALID_ARGUMENT,
                     "an argument contains a NUL byte, which no command line can carry");
  }
  int plain = len > 0;
  for (size_t i = 0; i < len && plain; i++) plain = is_plain((unsigned char)arg[i]) && arg[i];
  if (plain) return tq_buf_append(out, arg, len);

  size_t start_len = out->len;
  tq_status_t st = tq_buf_putc(out, '\'');
  size_t from = 0;
  for (size_t i = 0; !st && i <= len; i++) {
    if (i < len && arg[i] != '\'') continue;
    st = tq_buf_append(out, arg + from, i - from);
    if (!st && i < len) st = tq_buf_append(out, "'\\''", 4);
    from = i + 1;
  }
  if (!st) st = tq_buf_putc(out, '\'');
  if (st) {
    /* Leave the buffer as it was: a half-quoted argument must never reach a command line. */
    out->len = start_len;
    if (out->data) out->data[start_len] = '\0';
  }
  return st;
}

tq_status_t tqh_shell_quote(const char *arg, tq_buf_t *out) {
  if (!arg) return TQ_STATUS(TQ_INVALID_ARGUMENT, "shell quoting: NULL argument");
  return tqh_shell_quote_n(arg, strlen(arg), out);
}

tq_status_t tqh_shell_quote_argv(const char *const argv[], tq_buf_t *out) {
  if (!argv || !argv[0]) return TQ_STATUS(TQ_INVALID_ARGUMENT, "an empty command (argv)");
  size_t start_len = out->len;
  tq_status_t st = NULL;
  for (size_t i = 0; argv[i] && !st; i++) {
    if (i > 0) st = tq_buf_putc(out, ' ');
    if (!st) st = tqh_shell_quote(argv[i], out);
  }
  if (st) {
    out->len = start_len;
    if (out->data) out->data[start_len] = '\0';
  }
  return st;
}
