/* Tests for alloc.h: the wrappers and the fail-after-N hook. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "helpers.h"
#include "torq/base/alloc.h"
#include "torq/base/file.h"
#include "torq/base/str.h"

START_TEST(alloc_fail_after_n_allows_exactly_n_allocations) {
  void *p[3];
  tq_alloc_fail_after(3);
  p[0] = tq_malloc(8);
  p[1] = tq_calloc(2, 8);
  p[2] = tq_strndup("abc", 3);
  void *m = tq_malloc(8);
  void *c = tq_calloc(1, 1);
  char *d = tq_strndup("x", 1);
  void *hm = tq_malloc_huge((size_t)4 << 20), *hr = tq_realloc_huge(NULL, (size_t)4 << 20);
  tq_alloc_fail_after(-1);
  for (int i = 0; i < 3; i++) ck_assert_ptr_nonnull(p[i]);
  ck_assert_ptr_null(m);
  ck_assert_ptr_null(c);
  ck_assert_ptr_null(d);
  ck_assert_ptr_null(hm);
  ck_assert_ptr_null(hr);
  void *after = tq_malloc(8);
  ck_assert_ptr_nonnull(after);
  tq_free(after);
  for (int i = 0; i < 3; i++) tq_free(p[i]);
}
END_TEST

/* The VmFlags of the mapping of /proc/self/smaps that holds `addr` (heap; NULL if none), and
 * through *end where that mapping ends. */
static char *vm_flags_at(uintptr_t addr, uintptr_t *end) {
  FILE *f = fopen("/proc/self/smaps", "r");
  if (!f) return NULL;
  char line[512];
  int inside = 0;
  char *flags = NULL;
  while (!flags && fgets(line, sizeof(line), f)) {
    unsigned long lo, hi;
    if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
      inside = addr >= lo && addr < hi;
      if (inside) *end = hi;
    } else if (inside && !strncmp(line, "VmFlags:", 8)) {
      flags = strdup(line + 8);
    }
  }
  fclose(f);
  return flags;
}

/* A block of tq_malloc_huge of 2 MiB or more is advised to transparent huge pages (VmFlags "hg")
 * to its end, and stays so once tq_realloc_huge grew it, its bytes kept. Where the kernel has no
 * THP, there is nothing to advise. */
START_TEST(alloc_large_blocks_are_advised_to_huge_pages_whole) {
  if (access("/sys/kernel/mm/transparent_hugepage/enabled", R_OK) != 0) return;
  size_t size = (size_t)8 << 20;
  char *p = tq_malloc_huge(size);
  ck_assert_ptr_nonnull(p);
  uintptr_t end = 0;
  char *flags = vm_flags_at((uintptr_t)p, &end);
  ck_assert_ptr_nonnull(flags);
  ck_assert_msg(strstr(flags, " hg") != NULL, "VmFlags:%s", flags);
  ck_assert_msg(end >= (uintptr_t)p + size, "the advice stops before the block's end");
  free(flags);
  memset(p, 7, size);
  char *q = tq_realloc_huge(p, size * 4);
  ck_assert_ptr_nonnull(q);
  ck_assert_int_eq(q[size - 1], 7);
  flags = vm_flags_at((uintptr_t)q + size * 4 - 1, &end);
  ck_assert_ptr_nonnull(flags);
  ck_assert_msg(strstr(flags, " hg") != NULL, "VmFlags:%s", flags);
  free(flags);
  tq_free(q);
}
END_TEST

/* tq_malloc, tq_calloc and tq_realloc give no advice, however large the block: a buffer that is
 * seldom filled would pay for whole huge pages. (malloc maps a block this large on its own, so
 * its mapping's flags are its own.) */
START_TEST(alloc_plain_large_blocks_are_not_advised) {
  if (access("/sys/kernel/mm/transparent_hugepage/enabled", R_OK) != 0) return;
  size_t size = (size_t)8 << 20;
  char *blocks[3] = {tq_malloc(size), tq_calloc(size, 1), tq_realloc(tq_malloc(16), size)};
  for (int i = 0; i < 3; i++) {
    ck_assert_ptr_nonnull(blocks[i]);
    uintptr_t end = 0;
    char *flags = vm_flags_at((uintptr_t)blocks[i] + size / 2, &end);
    ck_assert_ptr_nonnull(flags);
    ck_assert_msg(strstr(flags, " hg") == NULL, "block %d: VmFlags:%s", i, flags);
    free(flags);
    tq_free(blocks[i]);
  }
}
END_TEST

/* A buffer's room for bytes about to be written (tq_buf_reserve_filled, and so a file's bytes
 * read whole) is advised, and so is a buffer grown by its appends; room taken ahead of its bytes
 * (tq_buf_reserve of an empty buffer) is not. */
START_TEST(alloc_filled_buffers_are_advised_and_room_ahead_not) {
  if (access("/sys/kernel/mm/transparent_hugepage/enabled", R_OK) != 0) return;
  size_t size = (size_t)6 << 20;
  char dir[] = "/tmp/torq-alloc-XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char path[64];
  snprintf(path, sizeof path, "%s/f", dir);
  FILE *f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  for (size_t i = 0; i < size; i++) fputc((int)(i % 251), f);
  ck_assert_int_eq(fclose(f), 0);
  tq_buf_t read, filled, appended, ahead;
  tq_buf_init(&filled, 0);
  tq_buf_init(&appended, 0);
  tq_buf_init(&ahead, 0);
  ck_assert_ptr_null(tq_file_read(path, 0, &read));
  ck_assert_uint_eq(read.len, size);
  ck_assert_int_eq((unsigned char)read.data[size - 1], (size - 1) % 251);
  ck_assert_ptr_null(tq_buf_reserve_filled(&filled, size));
  char line[4096];
  memset(line, 'x', sizeof line);
  while (appended.len < size) ck_assert_ptr_null(tq_buf_append(&appended, line, sizeof line));
  ck_assert_ptr_null(tq_buf_reserve(&ahead, size));
  const tq_buf_t *bufs[4] = {&read, &filled, &appended, &ahead};
  for (int i = 0; i < 4; i++) {
    uintptr_t end = 0;
    char *flags = vm_flags_at((uintptr_t)bufs[i]->data + size / 2, &end);
    ck_assert_ptr_nonnull(flags);
    ck_assert_msg((strstr(flags, " hg") != NULL) == (i < 3), "buffer %d: VmFlags:%s", i, flags);
    free(flags);
  }
  tq_buf_deinit(&read);
  tq_buf_deinit(&filled);
  tq_buf_deinit(&appended);
  tq_buf_deinit(&ahead);
  ck_assert_int_eq(unlink(path), 0);
  ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/* The AnonHugePages of the mapping of /proc/self/smaps that holds `addr`, in KiB (-1: none). */
static long anon_huge_kb_at(uintptr_t addr) {
  FILE *f = fopen("/proc/self/smaps", "r");
  if (!f) return -1;
  char line[512];
  int inside = 0;
  long kb = -1;
  while (kb < 0 && fgets(line, sizeof(line), f)) {
    unsigned long lo, hi;
    if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
      inside = addr >= lo && addr < hi;
    else if (inside && sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
      break;
  }
  fclose(f);
  return kb;
}

/* The first 2 MiB of a large block is a huge page although malloc wrote its header there before
 * the advice (which left that range to 4 KiB pages, a fault each). Where the block is not placed
 * as glibc on Linux 6.13 or later places it (16 bytes past a 2 MiB boundary: sanitizers' and
 * valgrind's allocators, older kernels) or the kernel cannot collapse pages, there is nothing to
 * check. */
START_TEST(alloc_large_blocks_start_on_a_huge_page) {
  FILE *thp = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
  char mode[128] = "";
  if (thp) {
    if (!fgets(mode, sizeof(mode), thp)) mode[0] = 0;
    fclose(thp);
  }
  if (!strstr(mode, "[madvise]") && !strstr(mode, "[always]")) return;
  size_t size = (size_t)6 << 20;
  char *p = tq_malloc_huge(size);
  ck_assert_ptr_nonnull(p);
  uintptr_t huge = (uintptr_t)2 << 20;
  if ((uintptr_t)p % huge != 16) {
    tq_free(p);
    return;
  }
  /* 2 MiB of one's own collapsed: the kernel can do it now (memory, MADV_COLLAPSE). */
  char *probe = aligned_alloc(huge, huge);
  ck_assert_ptr_nonnull(probe);
  probe[0] = 1;
  int can = madvise(probe, huge, MADV_HUGEPAGE) == 0 && madvise(probe, huge, 25) == 0;
  free(probe);
  if (can) {
    p[0] = 1;
    ck_assert_int_ge(anon_huge_kb_at((uintptr_t)p), 2048);
    /* Grown, it keeps that page (moved, not collapsed again), and its bytes. */
    p = tq_realloc_huge(p, size * 4);
    ck_assert_ptr_nonnull(p);
    ck_assert_int_eq(p[0], 1);
    if ((uintptr_t)p % huge == 16) ck_assert_int_ge(anon_huge_kb_at((uintptr_t)p), 2048);
    /* A block that grows into the advice from a small one is collapsed as a new one is. */
    char *q = tq_malloc(64 << 10);
    ck_assert_ptr_nonnull(q);
    q[0] = 2;
    q = tq_realloc_huge(q, size);
    ck_assert_ptr_nonnull(q);
    ck_assert_int_eq(q[0], 2);
    if ((uintptr_t)q % huge == 16) ck_assert_int_ge(anon_huge_kb_at((uintptr_t)q), 2048);
    tq_free(q);
  }
  tq_free(p);
}
END_TEST

START_TEST(alloc_realloc_failure_keeps_the_original_block) {
  char *p = tq_malloc(4);
  ck_assert_ptr_nonnull(p);
  memcpy(p, "abc", 4);
  tq_alloc_fail_after(0);
  char *q = tq_realloc(p, 1 << 20);
  tq_alloc_fail_after(-1);
  ck_assert_ptr_null(q);
  ck_assert_str_eq(p, "abc");
  q = tq_realloc(p, 1 << 20);
  ck_assert_ptr_nonnull(q);
  ck_assert_str_eq(q, "abc");
  tq_free(q);
}
END_TEST

START_TEST(alloc_zero_size_returns_a_freeable_pointer) {
  void *m = tq_malloc(0);
  void *c = tq_calloc(0, 16);
  void *r = tq_realloc(NULL, 0);
  void *hm = tq_malloc_huge(0), *hr = tq_realloc_huge(NULL, 0);
  ck_assert_ptr_nonnull(m);
  ck_assert_ptr_nonnull(c);
  ck_assert_ptr_nonnull(r);
  ck_assert_ptr_nonnull(hm);
  ck_assert_ptr_nonnull(hr);
  tq_free(m);
  tq_free(c);
  tq_free(r);
  tq_free(hm);
  tq_free(hr);
  tq_free(NULL);
}
END_TEST

START_TEST(alloc_strndup_copies_len_bytes_and_a_nul) {
  char *s = tq_strndup("hello world", 5);
  ck_assert_str_eq(s, "hello");
  tq_free(s);
  char *e = tq_strndup("", 0);
  ck_assert_str_eq(e, "");
  tq_free(e);
  /* Embedded NULs are copied, not stopped at. */
  char *z = tq_strndup("a\0b", 3);
  ck_assert_int_eq(memcmp(z, "a\0b\0", 4), 0);
  tq_free(z);
}
END_TEST

START_TEST(alloc_calloc_overflow_returns_null) {
  ck_assert_ptr_null(tq_calloc(SIZE_MAX / 2 + 1, 2));
}
END_TEST

/* Pages of their own: zeroed when taken, again after a block written over was given back, and
 * under the failure hook like every allocation. */
START_TEST(alloc_pages_come_zeroed_every_time) {
  const size_t size = 512 * 1024 + 3;
  for (int round = 0; round < 3; round++) {
    unsigned char *p = tq_calloc_pages(size);
    ck_assert_ptr_nonnull(p);
    for (size_t i = 0; i < size; i += 511) ck_assert_uint_eq(p[i], 0);
    ck_assert_uint_eq(p[size - 1], 0);
    memset(p, 0xA5, size);
    tq_free_pages(p, size);
  }
  tq_free_pages(NULL, size);
  tq_alloc_fail_after(0);
  ck_assert_ptr_null(tq_calloc_pages(size));
  tq_alloc_fail_after(-1);
}
END_TEST

/* A block given back with what was written in it is kept, cleared, for the next block of its
 * size: the same pages, zeroed; a few are kept, and none of another size or a large one. */
START_TEST(alloc_pages_given_back_dirty_are_kept_cleared) {
  const size_t size = 512 * 1024, other = 3 * 4096, large = 16 << 20;
  unsigned char *p = tq_calloc_pages(size);
  ck_assert_ptr_nonnull(p);
  memset(p, 0xA5, 1000);
  tq_free_pages_dirty(p, size, 1000);
  unsigned char *q = tq_calloc_pages(other);
  ck_assert_ptr_nonnull(q);
  ck_assert_ptr_ne(q, p);
  unsigned char *again = tq_calloc_pages(size);
  ck_assert_ptr_eq(again, p);
  for (size_t i = 0; i < size; i++) ck_assert_msg(again[i] == 0, "byte %zu: %u", i, again[i]);
  /* Five given back: four kept (taken again), the fifth unmapped. */
  unsigned char *blocks[5];
  blocks[0] = again;
  for (int i = 1; i < 5; i++) ck_assert_ptr_nonnull(blocks[i] = tq_calloc_pages(size));
  for (int i = 0; i < 5; i++) {
    memset(blocks[i], i + 1, size);
    tq_free_pages_dirty(blocks[i], size, size);
  }
  int reused = 0;
  for (int i = 0; i < 5; i++) {
    unsigned char *b = tq_calloc_pages(size);
    /* The fifth is a fresh mapping (perhaps at a freed block's address): no page of it is in
     * memory yet, where a kept block's cleared pages are. */
    unsigned char resident = 0;
    ck_assert_int_eq(mincore(b, 4096, &resident), 0);
    ck_assert_int_eq(resident & 1, i < 4);
    for (int k = 0; k < 5 && i < 4; k++) reused += b == blocks[k];
    for (size_t j = 0; j < size; j += 4093) ck_assert_uint_eq(b[j], 0);
    ck_assert_uint_eq(b[size - 1], 0);
    blocks[i] = b;
  }
  ck_assert_int_eq(reused, 4);
  for (int i = 0; i < 5; i++) tq_free_pages(blocks[i], size);
  tq_free_pages_dirty(q, other, other);
  ck_assert_ptr_eq(tq_calloc_pages(other), q);
  tq_free_pages(q, other);
  /* A large block is not kept; nor is NULL anything. */
  unsigned char *l = tq_calloc_pages(large);
  memset(l, 1, 4096);
  tq_free_pages_dirty(l, large, 4096);
  tq_free_pages_dirty(NULL, size, size);
  unsigned char *l2 = tq_calloc_pages(large);
  ck_assert_uint_eq(l2[0], 0);
  tq_free_pages(l2, large);
  /* The failure hook applies to a kept block too. */
  p = tq_calloc_pages(size);
  tq_free_pages_dirty(p, size, 0);
  tq_alloc_fail_after(0);
  ck_assert_ptr_null(tq_calloc_pages(size));
  tq_alloc_fail_after(-1);
  tq_free_pages(tq_calloc_pages(size), size);
}
END_TEST

Suite *alloc_suite(void) {
  Suite *s = suite_create("alloc");
  TCase *tc = tcase_create("alloc");
  tcase_add_checked_fixture(tc, NULL, th_alloc_reset);
  tcase_add_test(tc, alloc_fail_after_n_allows_exactly_n_allocations);
  tcase_add_test(tc, alloc_realloc_failure_keeps_the_original_block);
  tcase_add_test(tc, alloc_large_blocks_are_advised_to_huge_pages_whole);
  tcase_add_test(tc, alloc_large_blocks_start_on_a_huge_page);
  tcase_add_test(tc, alloc_plain_large_blocks_are_not_advised);
  tcase_add_test(tc, alloc_filled_buffers_are_advised_and_room_ahead_not);
  tcase_add_test(tc, alloc_zero_size_returns_a_freeable_pointer);
  tcase_add_test(tc, alloc_strndup_copies_len_bytes_and_a_nul);
  tcase_add_test(tc, alloc_calloc_overflow_returns_null);
  tcase_add_test(tc, alloc_pages_come_zeroed_every_time);
  tcase_add_test(tc, alloc_pages_given_back_dirty_are_kept_cleared);
  suite_add_tcase(s, tc);
  return s;
}
