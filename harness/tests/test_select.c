/* -k and -m: a truth table (precedence not > and > or, parentheses, case), errors with their
 * column, limits. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "torq/harness/select.h"

Suite *select_suite(void);

static const struct {
  const char *expr, *id;
  int want;
} keyword_cases[] = {
    {"aa", "xaax", 1},
    {"AA", "xaax", 1}, /* case-insensitive both ways */
    {"aa", "XAAX", 1},
    {"aa", "xax", 0},
    {"not aa", "xaax", 0},
    {"not aa", "bb", 1},
    {"aa and bb", "aa", 0},
    {"aa and bb", "aabb", 1},
    {"aa or bb", "bb", 1},
    {"aa or bb", "cc", 0},
    /* or is loosest: aa or (bb and cc) */
    {"aa or bb and cc", "aa", 1},
    {"aa or bb and cc", "bb", 0},
    {"aa or bb and cc", "bbcc", 1},
    {"bb and cc or aa", "aa", 1},
    /* parentheses */
    {"(aa or bb) and cc", "aa", 0},
    {"(aa or bb) and cc", "aacc", 1},
    {"(aa or bb) and cc", "bbcc", 1},
    /* not binds tighter than and */
    {"not aa and bb", "bb", 1},
    {"not aa and bb", "aabb", 0},
    {"not (aa and bb)", "aabb", 0},
    {"not (aa and bb)", "aa", 1},
    {"not not aa", "aa", 1},
    {"aa and not bb or cc", "aabb", 0},
    {"aa and not bb or cc", "aabbcc", 1},
    {"aa and not bb or cc", "aa", 1},
    {"((aa))", "aa", 1},
    {"(aa)and(bb)", "aabb", 1},
    {"  aa  ", "aa", 1},
    /* words hold anything but spaces and parentheses */
    {"smoke/conv2d[sim]", "smoke/conv2d[sim]", 1},
    {"conv2d[board1]", "smoke/conv2d[sim]", 0},
    {"andy", "Andy", 1},
    {"not-a-keyword", "x/not-a-keyword", 1},
    {"", "anything", 1},
    {"   ", "anything", 1},
};

START_TEST(select_keyword_truth_table) {
  tqh_select_t *s = NULL;
  tq_status_t st = tqh_select_parse(keyword_cases[_i].expr, TQH_SELECT_KEYWORD, "-k", &s);
  ck_assert_msg(st == NULL, "%s", tq_status_message(st));
  ck_assert_msg(tqh_select_match_id(s, keyword_cases[_i].id) == keyword_cases[_i].want,
                "-k \"%s\" on \"%s\" should be %d", keyword_cases[_i].expr, keyword_cases[_i].id,
                keyword_cases[_i].want);
  tqh_select_destroy(s);
}
END_TEST

START_TEST(select_marker_matches_whole_tags) {
  const char *tags[] = {"conv", "i8", "smoke"};
  static const struct {
    const char *expr;
    int want;
  } cases[] = {
      {"conv", 1},
      {"Conv", 0},
      {"con", 0},
      {"conv and i8", 1},
      {"conv and not i8", 0},
      {"pool or i8", 1},
      {"pool or i16", 0},
      {"not (pool or i16)", 1},
      {"smoke and (conv or pool)", 1},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    tqh_select_t *s = NULL;
    ck_assert_ptr_null(tqh_select_parse(cases[i].expr, TQH_SELECT_MARKER, "-m", &s));
    ck_assert_msg(tqh_select_match_tags(s, tags, 3) == cases[i].want, "-m \"%s\"", cases[i].expr);
    ck_assert_int_eq(tqh_select_match_tags(s, NULL, 0), strncmp(cases[i].expr, "not", 3) == 0);
    tqh_select_destroy(s);
  }
}
END_TEST

START_TEST(select_test_combines_keyword_and_marker) {
  const char *tags[] = {"pool"};
  tqh_test_t t;
  memset(&t, 0, sizeof(t));
  t.id = "smoke/maxpool";
  t.tags = tags;
  t.tag_count = 1;
  tqh_select_t *k = NULL, *m = NULL;
  ck_assert_ptr_null(tqh_select_parse("max", TQH_SELECT_KEYWORD, NULL, &k));
  ck_assert_ptr_null(tqh_select_parse("pool", TQH_SELECT_MARKER, NULL, &m));
  ck_assert_int_eq(tqh_select_test(k, m, &t), 1);
  ck_assert_int_eq(tqh_select_test(NULL, NULL, &t), 1);
  ck_assert_int_eq(tqh_select_test(k, NULL, &t), 1);
  tqh_select_destroy(m);
  ck_assert_ptr_null(tqh_select_parse("conv", TQH_SELECT_MARKER, NULL, &m));
  ck_assert_int_eq(tqh_select_test(k, m, &t), 0);
  ck_assert_int_eq(tqh_select_test(NULL, m, &t), 0);
  tqh_select_destroy(k);
  tqh_select_destroy(m);
}
END_TEST

static const struct {
  const char *expr;
  unsigned col;
  const char *needle;
} bad_cases[] = {
    {"aa and", 7, "expected a name, \"not\" or \"(\" after \"and\", found the end"},
    {"and aa", 1, "expected a name, \"not\" or \"(\", found \"and\""},
    {"aa or", 6, "expected a name, \"not\" or \"(\" after \"or\", found the end"},
    {"aa or or bb", 7, "after \"or\", found \"or\""},
    {"not", 4, "after \"not\", found the end"},
    {"(aa", 4, "missing \")\" to close the \"(\" at column 1"},
    {"aa)", 3, "unexpected \")\""},
    {"aa bb", 4, "expected \"and\", \"or\" or the end, found a name \"bb\""},
    {"(aa bb)", 5, "expected \"and\", \"or\" or \")\", found a name \"bb\""},
    {"()", 2, "found \")\""},
    {"aa and ()", 9, "found \")\""},
    {"\xc3\xa9 and", 6, "after \"and\""},
};

START_TEST(select_rejects_bad_expression_with_column) {
  tqh_select_t *s = NULL;
  tq_status_t st = tqh_select_parse(bad_cases[_i].expr, TQH_SELECT_KEYWORD, "-k", &s);
  ck_assert_ptr_null(s);
  ck_assert_int_eq(tq_status_code(st), TQ_INVALID_ARGUMENT);
  char head[256];
  snprintf(head, sizeof(head), "-k \"%s\": column %u: ", bad_cases[_i].expr, bad_cases[_i].col);
  const char *msg = tq_status_message(st);
  ck_assert_msg(strncmp(msg, head, strlen(head)) == 0, "\"%s\" does not start with \"%s\"", msg,
                head);
  ck_assert_msg(strstr(msg, bad_cases[_i].needle) != NULL, "\"%s\" lacks \"%s\"", msg,
                bad_cases[_i].needle);
  tq_status_free(st);
}
END_TEST

START_TEST(select_error_shows_expression_and_caret) {
  tqh_select_t *s = NULL;
  tq_status_t st = tqh_select_parse("conv and", TQH_SELECT_MARKER, "-m", &s);
  ck_assert_str_eq(tq_status_message(st),
                   "-m \"conv and\": column 9: expected a name, \"not\" or \"(\" after \"and\", "
                   "found the end\n"
                   "  conv and\n"
                   "          ^");
  tq_status_free(st);
}
END_TEST

START_TEST(select_limits_depth_and_length) {
  char deep[1200];
  memset(deep, '(', 300);
  memcpy(deep + 300, "aa", 3);
  tqh_select_t *s = NULL;
  tq_status_t st = tqh_select_parse(deep, TQH_SELECT_KEYWORD, "-k", &s);
  ck_assert_ptr_nonnull(st);
  ck_assert_ptr_nonnull(strstr(tq_status_message(st), "nested deeper than 256 levels"));
  tq_status_free(st);
  /* 200 levels are fine. */
  memset(deep, '(', 200);
  memcpy(deep + 200, "aa", 2);
  memset(deep + 202, ')', 200);
  deep[402] = '\0';
  ck_assert_ptr_null(tqh_select_parse(deep, TQH_SELECT_KEYWORD, "-k", &s));
  ck_assert_int_eq(tqh_select_match_id(s, "xaa"), 1);
  tqh_select_destroy(s);
  /* A long flat chain costs no depth. */
  size_t n = 10000;
  char *chain = malloc(n * 6 + 8);
  ck_assert_ptr_nonnull(chain);
  char *p = chain;
  for (size_t i = 0; i < n; i++) p += sprintf(p, "%sx%zu", i ? " or " : "", i % 10);
  ck_assert_uint_lt((size_t)(p - chain), 64 * 1024);
  ck_assert_ptr_null(tqh_select_parse(chain, TQH_SELECT_KEYWORD, "-k", &s));
  ck_assert_int_eq(tqh_select_match_id(s, "x9"), 1);
  ck_assert_int_eq(tqh_select_match_id(s, "y"), 0);
  tqh_select_destroy(s);
  /* Past 64 KiB: refused. */
  char *big = malloc(70 * 1024);
  ck_assert_ptr_nonnull(big);
  memset(big, 'a', 70 * 1024 - 1);
  big[70 * 1024 - 1] = '\0';
  st = tqh_select_parse(big, TQH_SELECT_KEYWORD, "-k", &s);
  ck_assert_int_eq(tq_status_code(st), TQ_INVALID_ARGUMENT);
  tq_status_free(st);
  free(big);
  free(chain);
}
END_TEST

/* The names of an expression, for the check that -m names tags some test has. */
START_TEST(select_lists_the_names_of_an_expression) {
  tqh_select_t *sel = NULL;
  ck_assert_ptr_null(tqh_select_parse("(slow or gpu) and not smoke or slow", TQH_SELECT_MARKER,
                                      "-m", &sel));
  ck_assert_uint_eq(tqh_select_name_count(sel), 4);
  static const char *const want[] = {"slow", "gpu", "smoke", "slow"};
  char name[8];
  for (size_t i = 0; i < 4; i++) {
    tqh_select_name(sel, i, name, sizeof(name));
    ck_assert_str_eq(name, want[i]);
  }
  tqh_select_name(sel, 9, name, sizeof(name));
  ck_assert_str_eq(name, "");
  tqh_select_destroy(sel);
  ck_assert_ptr_null(tqh_select_parse("", TQH_SELECT_MARKER, "-m", &sel));
  ck_assert_uint_eq(tqh_select_name_count(sel), 0);
  tqh_select_destroy(sel);
}
END_TEST

Suite *select_suite(void) {
  Suite *s = suite_create("select");
  TCase *tc = tcase_create("select");
  tcase_add_loop_test(tc, select_keyword_truth_table, 0,
                      (int)(sizeof(keyword_cases) / sizeof(keyword_cases[0])));
  tcase_add_test(tc, select_marker_matches_whole_tags);
  tcase_add_test(tc, select_test_combines_keyword_and_marker);
  tcase_add_loop_test(tc, select_rejects_bad_expression_with_column, 0,
                      (int)(sizeof(bad_cases) / sizeof(bad_cases[0])));
  tcase_add_test(tc, select_error_shows_expression_and_caret);
  tcase_add_test(tc, select_limits_depth_and_length);
  tcase_add_test(tc, select_lists_the_names_of_an_expression);
  suite_add_tcase(s, tc);
  return s;
}
