/* The lexer: one table of inputs and the token kinds and texts they give. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "lexer.h"
#include "suites.h"

typedef struct lex_case_s {
  const char *input;
  tqc_tok_kind_t kind;
  const char *text; /* the first token's text */
} lex_case_t;

static const lex_case_t cases[] = {
    {"func.func", TQC_TOK_BARE_ID, "func.func"},
    {"x4xi8>", TQC_TOK_BARE_ID, "x4xi8"},
    {"a$b.c_d", TQC_TOK_BARE_ID, "a$b.c_d"},
    {"%0 ", TQC_TOK_PERCENT_ID, "%0"},
    {"%arg0:", TQC_TOK_PERCENT_ID, "%arg0"},
    {"%cst_1", TQC_TOK_PERCENT_ID, "%cst_1"},
    {"%a-b.c$", TQC_TOK_PERCENT_ID, "%a-b.c$"},
    {"%0#1", TQC_TOK_PERCENT_ID, "%0"},
    {"@main(", TQC_TOK_AT_ID, "@main"},
    {"@\"quoted sym\"", TQC_TOK_AT_ID, "@\"quoted sym\""},
    {"^bb0(", TQC_TOK_CARET_ID, "^bb0"},
    {"#loc3 ", TQC_TOK_HASH_ID, "#loc3"},
    {"#tosa.rounding_mode<", TQC_TOK_HASH_ID, "#tosa.rounding_mode"},
    {"!tosa.shape<4>", TQC_TOK_EXCL_ID, "!tosa.shape"},
    {"42,", TQC_TOK_INTEGER, "42"},
    {"0x7FC00000", TQC_TOK_INTEGER, "0x7FC00000"},
    {"1.5", TQC_TOK_FLOAT, "1.5"},
    {"6.000000e+00", TQC_TOK_FLOAT, "6.000000e+00"},
    {"1.0E-5", TQC_TOK_FLOAT, "1.0E-5"},
    {"2.", TQC_TOK_FLOAT, "2."},
    {"\"a\\\"b\\n\"", TQC_TOK_STRING, "\"a\\\"b\\n\""},
    {"->", TQC_TOK_ARROW, "->"},
    {"-5", TQC_TOK_MINUS, "-"},
    {"::", TQC_TOK_COLON_COLON, "::"},
    {":", TQC_TOK_COLON, ":"},
    {"{", TQC_TOK_LBRACE, "{"},
    {"}", TQC_TOK_RBRACE, "}"},
    {"(", TQC_TOK_LPAREN, "("},
    {")", TQC_TOK_RPAREN, ")"},
    {"[", TQC_TOK_LSQUARE, "["},
    {"]", TQC_TOK_RSQUARE, "]"},
    {"<", TQC_TOK_LESS, "<"},
    {">", TQC_TOK_GREATER, ">"},
    {",", TQC_TOK_COMMA, ","},
    {"=", TQC_TOK_EQUAL, "="},
    {"?", TQC_TOK_QUESTION, "?"},
    {"*", TQC_TOK_STAR, "*"},
    {"+", TQC_TOK_PLUS, "+"},
    {"{-#", TQC_TOK_FILE_METADATA_BEGIN, "{-#"},
    {"#-}", TQC_TOK_FILE_METADATA_END, "#-}"},
    {"// comment\n  x", TQC_TOK_BARE_ID, "x"},
    {"// only a comment", TQC_TOK_EOF, ""},
    {"", TQC_TOK_EOF, ""},
    {"\"unterminated", TQC_TOK_ERROR, "\"unterminated"},
    {"\"bad \\q escape\"", TQC_TOK_ERROR, "\"bad "},
    {"\"new\nline\"", TQC_TOK_ERROR, "\"new"},
    {"%", TQC_TOK_ERROR, "%"},
    {"`", TQC_TOK_ERROR, "`"},
};

START_TEST(lexer_first_token_kind_and_text) {
  const lex_case_t *c = &cases[_i];
  tqc_lexer_t lx;
  tqc__lexer_init(&lx, c->input, strlen(c->input));
  tqc_token_t t = tqc__lexer_next(&lx);
  ck_assert_msg(t.kind == c->kind, "'%s': kind %s, want %s", c->input, tqc__tok_kind_name(t.kind),
                tqc__tok_kind_name(c->kind));
  ck_assert_uint_eq(t.len, strlen(c->text));
  ck_assert_int_eq(memcmp(t.text, c->text, t.len), 0);
}
END_TEST

START_TEST(lexer_tracks_line_and_byte_column) {
  const char *text = "a\n  bb // c\n\t%x\n\n   \"s\"";
  tqc_lexer_t lx;
  tqc__lexer_init(&lx, text, strlen(text));
  const uint32_t want[][2] = {{1, 1}, {2, 3}, {3, 2}, {5, 4}, {5, 7}};
  for (size_t i = 0; i < 5; i++) {
    tqc_token_t t = tqc__lexer_next(&lx);
    ck_assert_uint_eq(t.line, want[i][0]);
    ck_assert_uint_eq(t.col, want[i][1]);
  }
}
END_TEST

START_TEST(lexer_splits_result_number_from_value) {
  const char *text = "%0#12";
  tqc_lexer_t lx;
  tqc__lexer_init(&lx, text, strlen(text));
  tqc_token_t a = tqc__lexer_next(&lx), b = tqc__lexer_next(&lx);
  ck_assert_int_eq(a.kind, TQC_TOK_PERCENT_ID);
  ck_assert_int_eq(b.kind, TQC_TOK_HASH_ID);
  ck_assert_uint_eq(b.len, 3);
  ck_assert_uint_eq(b.offset, 2);
}
END_TEST

START_TEST(lexer_decodes_string_escapes) {
  const char *text = "\"a\\nb\\t\\\"\\\\\\00\\4A\"";
  tqc_lexer_t lx;
  tqc__lexer_init(&lx, text, strlen(text));
  tqc_token_t t = tqc__lexer_next(&lx);
  ck_assert_int_eq(t.kind, TQC_TOK_STRING);
  char out[32];
  size_t n = tqc__string_decode(&t, out);
  ck_assert_uint_eq(n, 8);
  ck_assert_int_eq(memcmp(out, "a\nb\t\"\\\0J", 8), 0);
}
END_TEST

START_TEST(lexer_never_reads_past_the_end) {
  /* Every prefix of a tricky text lexes to the end without running over. */
  const char *text = "%a#1 @\"q\\\"\" 0x1F 1.5e+3 {-# x #-} \"\\4";
  size_t n = strlen(text);
  for (size_t len = 0; len <= n; len++) {
    char *copy = malloc(len ? len : 1);
    memcpy(copy, text, len);
    tqc_lexer_t lx;
    tqc__lexer_init(&lx, copy, len);
    size_t guard = 0;
    for (;;) {
      tqc_token_t t = tqc__lexer_next(&lx);
      ck_assert_uint_le(t.offset + t.len, len);
      if (t.kind == TQC_TOK_EOF) break;
      ck_assert_uint_lt(++guard, 100);
    }
    free(copy);
  }
}
END_TEST

Suite *lexer_suite(void) {
  Suite *s = suite_create("lexer");
  TCase *tc = tcase_create("tokens");
  tcase_add_loop_test(tc, lexer_first_token_kind_and_text, 0,
                      (int)(sizeof(cases) / sizeof(cases[0])));
  tcase_add_test(tc, lexer_tracks_line_and_byte_column);
  tcase_add_test(tc, lexer_splits_result_number_from_value);
  tcase_add_test(tc, lexer_decodes_string_escapes);
  tcase_add_test(tc, lexer_never_reads_past_the_end);
  suite_add_tcase(s, tc);
  return s;
}
