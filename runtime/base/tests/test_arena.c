/* Tests for arena.h: alignment, blocks, the limit and out-of-memory. */
#include <stdint.h>
#include <string.h>

#include "helpers.h"
#include "torq/base/alloc.h"
#include "torq/base/arena.h"

static const size_t th_sizes[] = {1, 3, 7, 8, 15, 16, 17, 31, 33, 100, 1000, 5000};

START_TEST(arena_alloc_returns_16_byte_aligned_non_overlapping_memory) {
  tq_arena_t a;
  tq_arena_init(&a, 1024, 0);
  size_t size = th_sizes[_i];
  unsigned char *prev = NULL;
  for (int k = 0; k < 50; k++) {
    /* An odd size in between shifts the bump pointer off alignment if rounding were missing. */
    ck_assert_ptr_nonnull(tq_arena_alloc(&a, 1));
    unsigned char *p = tq_arena_alloc(&a, size);
    ck_assert_ptr_nonnull(p);
    ck_assert_uint_eq((uintptr_t)p % 16, 0);
    memset(p, k, size);
    if (prev) {
      ck_assert_uint_eq(prev[0], (unsigned)(k - 1));
      ck_assert_uint_eq(prev[size - 1], (unsigned)(k - 1));
    }
    prev = p;
  }
  tq_arena_deinit(&a);
}
END_TEST

START_TEST(arena_zero_size_allocations_are_distinct) {
  tq_arena_t a;
  tq_arena_init(&a, 0, 0);
  void *p = tq_arena_alloc(&a, 0);
  void *q = tq_arena_alloc(&a, 0);
  ck_assert_ptr_nonnull(p);
  ck_assert_ptr_nonnull(q);
  ck_assert_ptr_ne(p, q);
  tq_arena_deinit(&a);
}
END_TEST

START_TEST(arena_default_block_size_is_64_kib) {
  tq_arena_t a;
  tq_arena_init(&a, 0, 0);
  ck_assert_uint_eq(a.block_size, 64 * 1024);
  ck_assert_ptr_null(a.head);
  ck_assert_uint_eq(a.total, 0);
  ck_assert_ptr_nonnull(tq_arena_alloc(&a, 1));
  ck_assert_uint_eq(a.total, 64 * 1024);
  tq_arena_deinit(&a);
}
END_TEST

START_TEST(arena_fills_a_block_before_starting_the_next) {
  tq_arena_t a;
  tq_arena_init(&a, 64, 0);
  unsigned char *first = tq_arena_alloc(&a, 16);
  for (int k = 1; k < 4; k++) {
    unsigned char *p = tq_arena_alloc(&a, 16);
    ck_assert_ptr_eq(p, first + 16 * k);
  }
  ck_assert_uint_eq(a.total, 64);
  ck_assert_ptr_nonnull(tq_arena_alloc(&a, 16));
  ck_assert_uint_eq(a.total, 128);
  tq_arena_deinit(&a);
}
END_TEST

START_TEST(arena_big_allocation_gets_its_own_block_and_small_ones_continue) {
  tq_arena_t a;
  tq_arena_init(&a, 256, 0);
  unsigned char *small1 = tq_arena_alloc(&a, 16);
  unsigned char *big = tq_arena_alloc(&a, 1000);
  unsigned char *small2 = tq_arena_alloc(&a, 16);
  ck_assert_ptr_nonnull(big);
  ck_assert_uint_eq((uintptr_t)big % 16, 0);
  memset(big, 0xab, 1000);
  /* The big block is exactly its (rounded) size; the current block keeps serving. */
  ck_assert_uint_eq(a.total, 256 + 1008);
  ck_assert_ptr_eq(small2, small1 + 16);
  ck_assert_uint_eq(small1 + 16 <= big || small1 >= big + 1000, 1);
  tq_arena_deinit(&a);
}
END_TEST

START_TEST(arena_limit_refuses_allocations_past_it) {
  tq_arena_t a;
  tq_arena_init(&a, 128, 256);
  ck_assert_ptr_nonnull(tq_arena_alloc(&a, 128));
  ck_assert_ptr_nonnull(tq_arena_alloc(&a, 128));
  ck_assert_uint_eq(a.total, 256);
  ck_assert_ptr_null(tq_arena_alloc(&a, 1));
  ck_assert_ptr_null(tq_arena_alloc(&a, 4096));
  ck_assert_uint_eq(a.total, 256);
  tq_arena_deinit(&a);
}
END_TEST

START_TEST(arena_limit_below_block_size_still_serves_small_allocations) {
  tq_arena_t a;
  tq_arena_init(&a, 0, 256);
  ck_assert_ptr_nonnull(tq_arena_alloc(&a, 100));
  ck_assert_uint_le(a.total, 256);
  ck_assert_ptr_null(tq_arena_alloc(&a, 200));
  ck_assert_ptr_nonnull(tq_arena_alloc(&a, 100));
  ck_assert_ptr_null(tq_arena_alloc(&a, 100));
  ck_assert_uint_le(a.total, 256);
  tq_arena_deinit(&a);
}
END_TEST

START_TEST(arena_huge_requests_return_null) {
  tq_arena_t a;
  tq_arena_init(&a, 0, 0);
  ck_assert_ptr_null(tq_arena_alloc(&a, SIZE_MAX));
  ck_assert_ptr_null(tq_arena_alloc(&a, SIZE_MAX - 8));
  ck_assert_ptr_null(tq_arena_calloc(&a, SIZE_MAX / 2 + 1, 2));
  ck_assert_ptr_null(tq_arena_calloc(&a, SIZE_MAX, SIZE_MAX));
  ck_assert_ptr_null(tq_arena_strndup(&a, "", SIZE_MAX));
  ck_assert_uint_eq(a.total, 0);
  tq_arena_deinit(&a);
}
END_TEST

START_TEST(arena_calloc_zero_fills_count_times_size_bytes) {
  tq_arena_t a;
  tq_arena_init(&a, 256, 0);
  /* Dirty the block first so that zeroes cannot come from fresh memory by luck. */
  unsigned char *dirty = tq_arena_alloc(&a, 200);
  memset(dirty, 0xff, 200);
  tq_arena_deinit(&a);
  tq_arena_init(&a, 256, 0);
  uint32_t *v = tq_arena_calloc(&a, 50, sizeof(uint32_t));
  ck_assert_ptr_nonnull(v);
  for (int k = 0; k < 50; k++) ck_assert_uint_eq(v[k], 0);
  tq_arena_deinit(&a);
}
END_TEST

START_TEST(arena_strndup_copies_and_terminates) {
  tq_arena_t a;
  tq_arena_init(&a, 0, 0);
  char *s = tq_arena_strndup(&a, "tensor<1x2xi8>", 6);
  ck_assert_str_eq(s, "tensor");
  char *e = tq_arena_strndup(&a, NULL, 0);
  ck_assert_str_eq(e, "");
  tq_arena_deinit(&a);
}
END_TEST

START_TEST(arena_alloc_under_oom_returns_null_and_arena_stays_usable) {
  tq_arena_t a;
  tq_arena_init(&a, 64, 0);
  tq_alloc_fail_after(0);
  void *p = tq_arena_alloc(&a, 8);
  tq_alloc_fail_after(-1);
  ck_assert_ptr_null(p);
  ck_assert_uint_eq(a.total, 0);
  ck_assert_ptr_null(a.head);
  ck_assert_ptr_nonnull(tq_arena_alloc(&a, 8));
  ck_assert_uint_eq(a.total, 64);
  tq_arena_deinit(&a);
}
END_TEST

START_TEST(arena_deinit_frees_all_and_allows_reuse) {
  tq_arena_t a;
  tq_arena_init(&a, 64, 0);
  for (int k = 0; k < 20; k++) ck_assert_ptr_nonnull(tq_arena_alloc(&a, 48));
  ck_assert_uint_eq(a.total, 20 * 64);
  tq_arena_deinit(&a);
  ck_assert_ptr_null(a.head);
  ck_assert_uint_eq(a.total, 0);
  tq_arena_init(&a, 64, 0);
  ck_assert_ptr_nonnull(tq_arena_alloc(&a, 48));
  tq_arena_deinit(&a);
  tq_arena_deinit(&a);
}
END_TEST

Suite *arena_suite(void) {
  Suite *s = suite_create("arena");
  TCase *tc = tcase_create("alloc");
  tcase_add_checked_fixture(tc, NULL, th_alloc_reset);
  tcase_add_loop_test(tc, arena_alloc_returns_16_byte_aligned_non_overlapping_memory, 0,
                      (int)(sizeof(th_sizes) / sizeof(th_sizes[0])));
  tcase_add_test(tc, arena_zero_size_allocations_are_distinct);
  tcase_add_test(tc, arena_default_block_size_is_64_kib);
  tcase_add_test(tc, arena_fills_a_block_before_starting_the_next);
  tcase_add_test(tc, arena_big_allocation_gets_its_own_block_and_small_ones_continue);
  tcase_add_test(tc, arena_calloc_zero_fills_count_times_size_bytes);
  tcase_add_test(tc, arena_strndup_copies_and_terminates);
  tcase_add_test(tc, arena_deinit_frees_all_and_allows_reuse);
  suite_add_tcase(s, tc);

  tc = tcase_create("limits");
  tcase_add_checked_fixture(tc, NULL, th_alloc_reset);
  tcase_add_test(tc, arena_limit_refuses_allocations_past_it);
  tcase_add_test(tc, arena_limit_below_block_size_still_serves_small_allocations);
  tcase_add_test(tc, arena_huge_requests_return_null);
  tcase_add_test(tc, arena_alloc_under_oom_returns_null_and_arena_stays_usable);
  suite_add_tcase(s, tc);
  return s;
}
