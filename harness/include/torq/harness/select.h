/* Test selection: `-k EXPR` over test ids and `-m TAG-EXPR` over tags, with pytest's grammar:
 *
 *     expr  := or
 *     or    := and ("or" and)*
 *     and   := not ("and" not)*
 *     not   := "not" not | "(" expr ")" | WORD
 *
 * so `not` binds tighter than `and`, which binds tighter than `or`. A WORD is a run of characters
 * other than white space and parentheses that is not one of the three keywords (which are
 * lower-case, as in pytest): "conv2d", "smoke/conv2d[sim]", "i8".
 *   -k: a WORD is true when it is a case-insensitive substring of the test id.
 *   -m: a WORD is true when it equals one of the test's tags (case-sensitive, whole tag).
 * An empty (or all white space) expression selects every test.
 *
 * Errors are usage errors: TQ_INVALID_ARGUMENT, the message naming the option and the 1-based
 * column, with the expression and a caret under it:
 *     -k "conv and": column 9: expected a name, "not" or "(" after "and", found the end
 *       conv and
 *               ^   (two spaces of indent, then the caret under column 9)
 * Ownership: an expression made by tqh_select_parse is the caller's (tqh_select_destroy).
 *
 * The select component (harness/src/select/) owns test selection; this is its public header.
 */
#ifndef TORQ_HARNESS_SELECT_H
#define TORQ_HARNESS_SELECT_H

#include <stddef.h>

#include "torq/base/status.h"
#include "torq/harness/suite.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tqh_select_kind_e {
  TQH_SELECT_KEYWORD, /* -k: substrings of the id, case-insensitive */
  TQH_SELECT_MARKER,  /* -m: whole tags, case-sensitive */
} tqh_select_kind_t;

typedef struct tqh_select_s tqh_select_t;

/* Parses `text`; `option` ("-k", "-m") names it in messages. Expressions longer than 64 KiB or
 * nested deeper than 256 levels are refused (TQ_INVALID_ARGUMENT). */
tq_status_t tqh_select_parse(const char *text, tqh_select_kind_t kind, const char *option,
                             tqh_select_t **out_select) TQ_MUST_USE;

void tqh_select_destroy(tqh_select_t *select);

/* Evaluates a KEYWORD expression against a string (a test id). NULL `select` matches all. */
int tqh_select_match_id(const tqh_select_t *select, const char *id);

/* Evaluates a MARKER expression against a set of tags. NULL `select` matches all. */
int tqh_select_match_tags(const tqh_select_t *select, const char *const *tags, size_t tag_count);

/* The names of an expression, in the order written (each once per place it appears): count, and
 * name i into `out` (at most `size` bytes, cut), for checks such as "-m names a tag no suite
 * uses". */
size_t tqh_select_name_count(const tqh_select_t *select);
void tqh_select_name(const tqh_select_t *select, size_t i, char *out, size_t size);

/* Whether a test is selected by both (each may be NULL): keyword on test->id, marker on its tags.
 */
int tqh_select_test(const tqh_select_t *keyword, const tqh_select_t *marker,
                    const tqh_test_t *test);

#ifdef __cplusplus
}
#endif
#endif
