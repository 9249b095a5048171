/* Interval arithmetic on tables of hand-made cases. A set is written as "a-b c-d" ([a, b) ...). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "torq/harness/intervals.h"

static void set_of(const char *text, tqh_intervals_t *out) {
  tqh_intervals_init(out);
  const char *p = text;
  while (*p) {
    char *end;
    unsigned long long a = strtoull(p, &end, 10);
    ck_assert_int_eq(*end, '-');
    unsigned long long b = strtoull(end + 1, &end, 10);
    TH_OK(tqh_intervals_add(out, a, b));
    p = end;
    while (*p == ' ') p++;
  }
}

static void text_of(const tqh_intervals_t *s, char *out, size_t n) {
  size_t k = 0;
  out[0] = 0;
  for (size_t i = 0; i < s->count; i++)
    k += (size_t)snprintf(out + k, n - k, "%s%llu-%llu", i ? " " : "",
                          (unsigned long long)s->items[i].start,
                          (unsigned long long)s->items[i].end);
}

typedef struct case_s {
  const char *a, *b;
  const char *uni, *inter, *diff; /* a ∪ b, a ∩ b, a − b */
  unsigned long long total_a;
} case_t;

static const case_t cases[] = {
    {"", "", "", "", "", 0},
    {"0-10", "", "0-10", "", "0-10", 10},
    {"", "0-10", "0-10", "", "", 0},
    {"0-10", "0-10", "0-10", "0-10", "", 10},
    /* disjoint, in either order */
    {"0-10", "20-30", "0-10 20-30", "", "0-10", 10},
    {"20-30", "0-10", "0-10 20-30", "", "20-30", 10},
    /* touching intervals merge; their intersection is empty */
    {"0-10", "10-20", "0-20", "", "0-10", 10},
    /* overlap */
    {"0-10", "5-15", "0-15", "5-10", "0-5", 10},
    /* containment both ways */
    {"0-100", "10-20 30-40", "0-100", "10-20 30-40", "0-10 20-30 40-100", 100},
    {"10-20", "0-100", "0-100", "10-20", "", 10},
    /* unnormalized input: overlapping, unsorted, empty and touching pieces */
    {"30-40 0-10 5-12 12-12 40-45", "", "0-12 30-45", "", "0-12 30-45", 27},
    /* a hole cut at each end and in the middle */
    {"0-10 20-30 40-50", "5-25 45-60", "0-30 40-60", "5-10 20-25 45-50", "0-5 25-30 40-45", 30},
    /* b interval spanning several of a */
    {"0-2 4-6 8-10", "1-9", "0-10", "1-2 4-6 8-9", "0-1 9-10", 6},
    /* zero-length intervals hold no time */
    {"5-5", "0-10", "0-10", "", "", 0},
    /* large values (ns of a long run) */
    {"0-18446744073709551615", "1-2", "0-18446744073709551615", "1-2",
     "0-1 2-18446744073709551615", 18446744073709551615ull},
};

START_TEST(intervals_operations_match_hand_results) {
  const case_t *c = &cases[_i];
  tqh_intervals_t a, b, out;
  set_of(c->a, &a);
  set_of(c->b, &b);
  tqh_intervals_init(&out);
  char got[512];
  TH_OK(tqh_intervals_union(&a, &b, &out));
  text_of(&out, got, sizeof(got));
  ck_assert_msg(strcmp(got, c->uni) == 0, "case %d: %s ∪ %s = %s, expected %s", _i, c->a, c->b,
                got, c->uni);
  TH_OK(tqh_intervals_intersect(&a, &b, &out));
  text_of(&out, got, sizeof(got));
  ck_assert_msg(strcmp(got, c->inter) == 0, "case %d: %s ∩ %s = %s, expected %s", _i, c->a, c->b,
                got, c->inter);
  TH_OK(tqh_intervals_subtract(&a, &b, &out));
  text_of(&out, got, sizeof(got));
  ck_assert_msg(strcmp(got, c->diff) == 0, "case %d: %s − %s = %s, expected %s", _i, c->a, c->b,
                got, c->diff);
  ck_assert_uint_eq(tqh_intervals_total(&a), c->total_a);
  /* The identities the overview relies on: |a ∪ b| = |a − b| + |b − a| + |a ∩ b|. */
  tqh_intervals_t u, d1, d2, in;
  tqh_intervals_init(&u);
  tqh_intervals_init(&d1);
  tqh_intervals_init(&d2);
  tqh_intervals_init(&in);
  TH_OK(tqh_intervals_union(&a, &b, &u));
  TH_OK(tqh_intervals_subtract(&a, &b, &d1));
  TH_OK(tqh_intervals_subtract(&b, &a, &d2));
  TH_OK(tqh_intervals_intersect(&a, &b, &in));
  if (c->total_a < 1000000)
    ck_assert_uint_eq(tqh_intervals_total(&u), tqh_intervals_total(&d1) +
                                                   tqh_intervals_total(&d2) +
                                                   tqh_intervals_total(&in));
  tqh_intervals_deinit(&u);
  tqh_intervals_deinit(&d1);
  tqh_intervals_deinit(&d2);
  tqh_intervals_deinit(&in);
  tqh_intervals_deinit(&a);
  tqh_intervals_deinit(&b);
  tqh_intervals_deinit(&out);
}
END_TEST

START_TEST(intervals_union_of_many_random_pieces_equals_a_bitmap) {
  /* Compare against a brute-force bitmap over [0, 512). */
  unsigned seed = 12345;
  for (int round = 0; round < 50; round++) {
    unsigned char bits_a[512] = {0}, bits_b[512] = {0};
    tqh_intervals_t a, b, out;
    tqh_intervals_init(&a);
    tqh_intervals_init(&b);
    tqh_intervals_init(&out);
    for (int k = 0; k < 20; k++) {
      seed = seed * 1103515245u + 12345u;
      unsigned s = (seed >> 8) % 500, len = (seed >> 20) % 40;
      unsigned e = s + len > 512 ? 512 : s + len;
      tqh_intervals_t *t = k % 2 ? &a : &b;
      unsigned char *bits = k % 2 ? bits_a : bits_b;
      TH_OK(tqh_intervals_add(t, s, e));
      for (unsigned x = s; x < e; x++) bits[x] = 1;
    }
    unsigned want_u = 0, want_i = 0, want_d = 0;
    for (int x = 0; x < 512; x++) {
      want_u += bits_a[x] | bits_b[x];
      want_i += bits_a[x] & bits_b[x];
      want_d += bits_a[x] & !bits_b[x];
    }
    TH_OK(tqh_intervals_union(&a, &b, &out));
    ck_assert_uint_eq(tqh_intervals_total(&out), want_u);
    TH_OK(tqh_intervals_intersect(&a, &b, &out));
    ck_assert_uint_eq(tqh_intervals_total(&out), want_i);
    TH_OK(tqh_intervals_subtract(&a, &b, &out));
    ck_assert_uint_eq(tqh_intervals_total(&out), want_d);
    for (size_t i = 1; i < out.count; i++)
      ck_assert_uint_lt(out.items[i - 1].end, out.items[i].start);
    tqh_intervals_deinit(&a);
    tqh_intervals_deinit(&b);
    tqh_intervals_deinit(&out);
  }
}
END_TEST

/* Work in time order, piece after touching piece, is kept as its union while it is added: a set
 * the size of the profile would otherwise hold every piece until normalized. Pieces that start
 * before the last one still come out right. */
START_TEST(intervals_added_in_order_stay_as_small_as_their_union) {
  tqh_intervals_t a;
  tqh_intervals_init(&a);
  TH_OK(tqh_intervals_reserve(&a, 3));
  ck_assert_uint_ge(a.cap, 3);
  for (uint64_t t = 0; t < 100000; t += 10) TH_OK(tqh_intervals_add(&a, t, t + (t % 30 ? 10 : 5)));
  /* [0, 5) [10, 20) ... [30, 35) [40, 50) ...: a gap after every third piece */
  ck_assert_uint_eq(a.count, 100000 / 30 + 1);
  ck_assert_int_eq(a.normalized, 1);
  TH_OK(tqh_intervals_add(&a, 99995, 100010)); /* at the last one's end: widens it */
  ck_assert_uint_eq(a.count, 100000 / 30 + 1);
  ck_assert_int_eq(a.normalized, 1);
  TH_OK(tqh_intervals_add(&a, 7, 9)); /* before the last one: sorted by normalize */
  ck_assert_int_eq(a.normalized, 0);
  ck_assert_uint_eq(tqh_intervals_total(&a), 100000 - (100000 / 30 + 1) * 5 + 15 + 2);
  ck_assert_uint_eq(a.items[1].start, 7);
  ck_assert_uint_eq(a.items[a.count - 1].end, 100010);
  tqh_intervals_deinit(&a);
}
END_TEST

Suite *intervals_suite(void) {
  Suite *s = suite_create("intervals");
  TCase *tc = tcase_create("intervals");
  tcase_add_loop_test(tc, intervals_operations_match_hand_results, 0,
                      (int)(sizeof(cases) / sizeof(cases[0])));
  tcase_add_test(tc, intervals_union_of_many_random_pieces_equals_a_bitmap);
  tcase_add_test(tc, intervals_added_in_order_stay_as_small_as_their_union);
  suite_add_tcase(s, tc);
  return s;
}
