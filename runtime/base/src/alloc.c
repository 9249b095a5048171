/* Allocation wrappers with a fail-after-N hook for out-of-memory tests. */
#include "torq/base/alloc.h"

#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Allocations left before failing; negative: never fail. Atomic only so that threads that merely
 * allocate while no test armed the hook do not race on it. */
static _Atomic long tq__fail_countdown = -1;

/* Returns 1 when this allocation must fail. */
static int tq__alloc_should_fail(void) {
  long n = atomic_load_explicit(&tq__fail_countdown, memory_order_relaxed);
  if (n < 0) return 0;
  if (n == 0) return 1;
  atomic_store_explicit(&tq__fail_countdown, n - 1, memory_order_relaxed);
  return 0;
}

void tq_alloc_fail_after(long n) {
  atomic_store_explicit(&tq__fail_countdown, n < 0 ? -1 : n, memory_order_relaxed);
}

/* A block of tq_malloc_huge this large (which malloc maps on its own, untouched) is asked to be
 * backed by transparent huge pages where the system offers them on request (enabled = madvise,
 * Debian's default): a million-event profile's arrays otherwise take a page fault per 4 KiB, and
 * the faults were a quarter of torq-annotate's time. From 2 MiB (not 4): the overview's interval
 * sets of such a profile are 2 to 4 MiB each, and were half the faults of writing its .pb.
 * Nothing changes where THP is off or always on. */
#define TQ_HUGE_MIN ((size_t)2 << 20)
#define TQ_HUGE_PAGE ((size_t)2 << 20)

#ifdef MADV_COLLAPSE
#define TQ_MADV_COLLAPSE MADV_COLLAPSE
#else
#define TQ_MADV_COLLAPSE 25 /* asm-generic/mman-common.h; glibc 2.36's headers lack it */
#endif

/* What to ask malloc for, for a block of `size` bytes to be advised. A huge page backs only an
 * aligned 2 MiB of one mapping, and Linux (6.13 on) places an anonymous mapping on a 2 MiB
 * boundary only when its length is a multiple of 2 MiB. glibc maps n bytes as n + 32 rounded up
 * to pages (its 16-byte header first), so asking for a multiple of 2 MiB less 32 makes the
 * mapping whole huge pages. The bytes added are never touched: address space only. */
#define TQ_MALLOC_OVERHEAD ((size_t)32)

static size_t tq__huge_request(size_t size) {
  if (size < TQ_HUGE_MIN || size > SIZE_MAX - TQ_HUGE_PAGE - TQ_MALLOC_OVERHEAD) return size;
  size_t whole = (size + TQ_MALLOC_OVERHEAD + TQ_HUGE_PAGE - 1) & ~(TQ_HUGE_PAGE - 1);
  return whole - TQ_MALLOC_OVERHEAD;
}

/* `collapse`: the block is new to the advice (a block grown from one already advised has its
 * first huge page: collapsing it again copied 2 MiB at every doubling of a growing array). */
static void *tq__advise_huge(void *p, size_t size, int collapse) {
#ifdef MADV_HUGEPAGE
  if (p && size >= TQ_HUGE_MIN) {
    /* The block's pages, whole: malloc maps a block this large on its own, from the page its
     * header starts to the page its end is on, and advice for all of that mapping keeps it one
     * mapping (advice for a part would split it, and realloc could no longer grow it with
     * mremap). */
    uintptr_t page = 4096;
    uintptr_t lo = (uintptr_t)p & ~(page - 1);
    uintptr_t hi = ((uintptr_t)p + size + page - 1) & ~(page - 1);
    (void)madvise((void *)lo, (size_t)(hi - lo), MADV_HUGEPAGE);
    /* malloc wrote its header before the advice, so the first 2 MiB already has a small page
     * and the rest of it would fault 4 KiB at a time (512 faults per array; 2.6k of the 2.9k
     * faults of annotating a million events): made one huge page now where the kernel can
     * (Linux 6.1 on; elsewhere the call fails and nothing changes). */
    if (collapse && lo % TQ_HUGE_PAGE == 0 && lo + TQ_HUGE_PAGE <= hi)
      (void)madvise((void *)lo, TQ_HUGE_PAGE, TQ_MADV_COLLAPSE);
  }
#endif
  return p;
}

/* Zero-size requests get one byte, so that NULL always means out of memory. */
void *tq_malloc(size_t size) {
  if (tq__alloc_should_fail()) return NULL;
  return malloc(size ? size : 1);
}

void *tq_calloc(size_t count, size_t size) {
  if (tq__alloc_should_fail()) return NULL;
  if (count == 0 || size == 0) count = size = 1;
  /* Checked here rather than left to calloc, which sanitizers report as a fault. */
  if (count > SIZE_MAX / size) return NULL;
  return calloc(count, size);
}

void *tq_realloc(void *ptr, size_t size) {
  if (tq__alloc_should_fail()) return NULL;
  return realloc(ptr, size ? size : 1);
}

void *tq_malloc_huge(size_t size) {
  if (tq__alloc_should_fail()) return NULL;
  size_t n = tq__huge_request(size ? size : 1);
  return tq__advise_huge(malloc(n), n, 1);
}

void *tq_realloc_huge(void *ptr, size_t size) {
  if (tq__alloc_should_fail()) return NULL;
  size_t n = tq__huge_request(size ? size : 1);
  int advised = ptr && malloc_usable_size(ptr) >= TQ_HUGE_MIN;
  return tq__advise_huge(realloc(ptr, n), n, !advised);
}

void tq_free(void *ptr) { free(ptr); }

/* Blocks given back by tq_free_pages_dirty, zeroed again, for the next tq_calloc_pages of their
 * size: a few (a profiled test holds two LRAMs at once), none above TQ_PAGES_KEEP_MAX. */
enum { TQ_PAGES_SLOTS = 4 };
#define TQ_PAGES_KEEP_MAX ((size_t)8 << 20)
static struct {
  void *ptr;
  size_t size;
} tq__kept_pages[TQ_PAGES_SLOTS];
static pthread_mutex_t tq__kept_pages_mu = PTHREAD_MUTEX_INITIALIZER;

static void *take_kept_pages(size_t size) {
  void *p = NULL;
  pthread_mutex_lock(&tq__kept_pages_mu);
  for (int i = 0; i < TQ_PAGES_SLOTS && !p; i++) {
    if (tq__kept_pages[i].ptr && tq__kept_pages[i].size == size) {
      p = tq__kept_pages[i].ptr;
      tq__kept_pages[i].ptr = NULL;
    }
  }
  pthread_mutex_unlock(&tq__kept_pages_mu);
  return p;
}

void *tq_calloc_pages(size_t size) {
  if (tq__alloc_should_fail()) return NULL;
  if (!size) size = 1;
  void *p = take_kept_pages(size);
  if (p) return p;
  p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

void tq_free_pages(void *ptr, size_t size) {
  if (ptr) munmap(ptr, size ? size : 1);
}

void tq_free_pages_dirty(void *ptr, size_t size, size_t dirty) {
  if (!ptr) return;
  if (!size) size = 1;
  int kept = 0;
  if (size <= TQ_PAGES_KEEP_MAX) {
    /* Only [0, dirty) may hold anything: cleared, the block is as a fresh mapping. */
    memset(ptr, 0, dirty < size ? dirty : size);
    pthread_mutex_lock(&tq__kept_pages_mu);
    for (int i = 0; i < TQ_PAGES_SLOTS && !kept; i++) {
      if (!tq__kept_pages[i].ptr) {
        tq__kept_pages[i].ptr = ptr;
        tq__kept_pages[i].size = size;
        kept = 1;
      }
    }
    pthread_mutex_unlock(&tq__kept_pages_mu);
  }
  if (!kept) munmap(ptr, size);
}

char *tq_strndup(const char *s, size_t len) {
  if (len == SIZE_MAX) return NULL;
  char *copy = tq_malloc(len + 1);
  if (!copy) return NULL;
  if (len) memcpy(copy, s, len);
  copy[len] = '\0';
  return copy;
}
