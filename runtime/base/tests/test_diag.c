/* Tests for diag.h: the source line and caret of a compiler-style diagnostic. */
#include <stdint.h>
#include <string.h>

#include "helpers.h"
#include "torq/base/diag.h"
#include "torq/base/str.h"

/* The harness's style (YAML): character columns, "\r" breaks, safe bytes, a short window. */
static const tq_diag_style_t yaml_style = {
    20, 5, TQ_DIAG_UTF8_COLUMNS | TQ_DIAG_CR_BREAKS | TQ_DIAG_SAFE_BYTES};
/* A byte-column style with a short window. */
static const tq_diag_style_t short_window = {20, 5, 0};

typedef struct snippet_case_s {
  const char *name;
  const char *text;
  size_t len; /* 0: strlen(text) */
  uint32_t line, col;
  const tq_diag_style_t *style;
  const char *want;
} snippet_case_t;

static const snippet_case_t cases[] = {
    {"first line", "abc\ndef\n", 0, 1, 2, NULL, "\nabc\n ^"},
    {"second line", "abc\ndef\n", 0, 2, 3, NULL, "\ndef\n  ^"},
    {"tab before the column", "\tx = \t1\n", 0, 1, 7, NULL, "\n\tx = \t1\n\t    \t^"},
    {"column past the end", "ab\n", 0, 1, 9, NULL, "\nab\n  ^"},
    {"column 0 is column 1", "ab\n", 0, 1, 0, NULL, "\nab\n^"},
    {"empty line after the final newline", "ab\n", 0, 2, 1, NULL, "\n\n^"},
    {"line past the end", "ab\n", 0, 3, 1, NULL, ""},
    {"line past the end without newline", "ab", 0, 2, 1, NULL, ""},
    {"line 0", "ab\n", 0, 0, 1, NULL, ""},
    {"empty text", "", 0, 1, 1, NULL, "\n\n^"},
    {"CRLF", "ab\r\ncd\r\n", 0, 2, 2, NULL, "\ncd\n ^"},
    {"CRLF at the end of the text", "ab\r", 0, 1, 3, NULL, "\nab\n  ^"},
    {"lone CR is no break by default", "a\rb\nc", 0, 2, 1, NULL, "\nc\n^"},
    {"lone CR breaks with the flag", "a\rb\nc", 0, 2, 1, &yaml_style, "\nb\n^"},
    {"CRLF with CR breaks", "ab\r\ncd\r\n", 0, 2, 2, &yaml_style, "\ncd\n ^"},
    {"long line windowed", "0123456789abcdefghijKLMNOP", 0, 1, 12, &short_window,
     "\n...6789abcdef...\n        ^"},
    {"long line cut only at the end", "0123456789abcdefghijKLMNOP", 0, 1, 2, &short_window,
     "\n012345...\n ^"},
    {"long line cut only at the start", "0123456789abcdefghijKLMNOP", 0, 1, 25, &short_window,
     "\n...jKLMNOP\n        ^"},
    {"short line not windowed", "0123456789abcdefghij", 0, 1, 20, &short_window,
     "\n0123456789abcdefghij\n                   ^"},
    {"long line with the default window", NULL, 0, 1, 2, NULL, NULL},
    {"UTF-8 columns count characters", "\xc3\xa9t\xc3\xa9: x\n", 0, 1, 4, &yaml_style,
     "\n\xc3\xa9t\xc3\xa9: x\n   ^"},
    {"byte columns count bytes", "\xc3\xa9t\xc3\xa9: x\n", 0, 1, 6, NULL,
     "\n\xc3\xa9t\xc3\xa9: x\n     ^"},
    {"control bytes shown safely", "a\x01\x7f\tb\n", 0, 1, 5, &yaml_style, "\na??\tb\n   \t^"},
    {"NUL ends the shown line", "ab\0cd\n", 6, 1, 5, NULL, "\nab\n    ^"},
};

START_TEST(snippet_cases) {
  const snippet_case_t *c = &cases[_i];
  tq_buf_t b;
  tq_buf_init(&b, 0);
  if (!c->text) {
    /* A 5000-byte line: longer than the default 4096, windowed 80 bytes either side. */
    char line[5000];
    memset(line, 'x', sizeof(line));
    line[0] = 'A';
    line[199] = 'B';
    TH_ASSERT_OK(tq_diag_append_snippet(&b, line, sizeof(line), 1, 200, NULL));
    ck_assert_uint_eq(b.len, 4 + 160 + 4 + 3 + 80 + 1);
    ck_assert_int_eq(memcmp(b.data, "\n...", 4), 0);
    ck_assert_int_eq(b.data[4 + 80], 'B');
    ck_assert_int_eq(memcmp(b.data + 4 + 160, "...\n   ", 7), 0);
    ck_assert_int_eq(b.data[b.len - 1], '^');
    tq_buf_deinit(&b);
    return;
  }
  size_t len = c->len ? c->len : strlen(c->text);
  TH_ASSERT_OK(tq_diag_append_snippet(&b, c->text, len, c->line, c->col, c->style));
  ck_assert_msg(strcmp(b.data ? b.data : "", c->want) == 0, "%s: got '%s', want '%s'", c->name,
                b.data ? b.data : "", c->want);
  tq_buf_deinit(&b);
}
END_TEST

START_TEST(snippet_of_null_text_is_empty) {
  tq_buf_t b;
  tq_buf_init(&b, 0);
  TH_ASSERT_OK(tq_diag_append_snippet(&b, NULL, 0, 1, 1, NULL));
  ck_assert_uint_eq(b.len, 0);
  tq_buf_deinit(&b);
}
END_TEST

START_TEST(snippet_appends_after_existing_text) {
  tq_buf_t b;
  tq_buf_init(&b, 0);
  TH_ASSERT_OK(tq_buf_append_cstr(&b, "t.mlir:1:3: error: bad"));
  TH_ASSERT_OK(tq_diag_append_snippet(&b, "a b c", 5, 1, 3, NULL));
  ck_assert_str_eq(b.data, "t.mlir:1:3: error: bad\na b c\n  ^");
  tq_buf_deinit(&b);
}
END_TEST

START_TEST(snippet_fails_at_the_buffer_limit) {
  tq_buf_t b;
  tq_buf_init(&b, 4);
  tq_status_t st = tq_diag_append_snippet(&b, "abcdef", 6, 1, 3, NULL);
  ck_assert_ptr_nonnull(st);
  ck_assert_int_eq(tq_status_code(st), TQ_LIMIT);
  tq_status_free(st);
  tq_buf_deinit(&b);
}
END_TEST

Suite *diag_suite(void) {
  Suite *s = suite_create("diag");
  TCase *tc = tcase_create("snippet");
  tcase_add_loop_test(tc, snippet_cases, 0, (int)(sizeof(cases) / sizeof(cases[0])));
  tcase_add_test(tc, snippet_of_null_text_is_empty);
  tcase_add_test(tc, snippet_appends_after_existing_text);
  tcase_add_test(tc, snippet_fails_at_the_buffer_limit);
  suite_add_tcase(s, tc);
  return s;
}
