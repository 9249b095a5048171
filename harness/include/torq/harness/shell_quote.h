/* POSIX shell quoting of single arguments, for the remote command lines of the board transport
 * (ssh.h). A remote command line is built ONLY from quoted arguments joined by spaces, so no
 * argument is ever split, globbed or substituted by the remote shell.
 *
 * Quoting: the argument inside single quotes, each ' written as '\'' ; an empty argument is ''.
 * Arguments made only of characters that are never special to a POSIX shell
 * ([A-Za-z0-9_@%+:,./-], not empty; no '=' so that no word is taken for an assignment, no '~')
 * are written as they are, which keeps logs readable. Any byte other than NUL is allowed (newlines,
 * UTF-8, control bytes): inside single quotes the shell takes every byte literally.
 *
 * Part of the board component (harness/src/board/README.md).
 */
#ifndef TORQ_HARNESS_SHELL_QUOTE_H
#define TORQ_HARNESS_SHELL_QUOTE_H

#include <stddef.h>

#include "torq/base/status.h"
#include "torq/base/str.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Appends `arg` (NUL-terminated) quoted to `out`. Errors: TQ_OUT_OF_MEMORY, TQ_LIMIT (the
 * buffer's limit). */
tq_status_t tqh_shell_quote(const char *arg, tq_buf_t *out) TQ_MUST_USE;

/* Appends `len` bytes at `arg` quoted to `out`. A NUL byte cannot be passed through a command line:
 * TQ_INVALID_ARGUMENT. */
tq_status_t tqh_shell_quote_n(const char *arg, size_t len, tq_buf_t *out) TQ_MUST_USE;

/* Appends argv[0..] (NULL-terminated), each quoted, separated by single spaces.
 * Errors: TQ_INVALID_ARGUMENT (argv NULL or empty), TQ_OUT_OF_MEMORY, TQ_LIMIT. */
tq_status_t tqh_shell_quote_argv(const char *const argv[], tq_buf_t *out) TQ_MUST_USE;

#ifdef __cplusplus
}
#endif
#endif
