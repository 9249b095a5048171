/* Heap allocation for the Torq libraries.
 *
 * Every library allocates through these wrappers so that tests can make allocation fail after N
 * calls (SQLite style) and check that out-of-memory paths report TQ_OUT_OF_MEMORY instead of
 * crashing. They behave as malloc/calloc/realloc/free otherwise.
 */
#ifndef TORQ_BASE_ALLOC_H
#define TORQ_BASE_ALLOC_H

#include <stddef.h>

void *tq_malloc(size_t size);
void *tq_calloc(size_t count, size_t size);
void *tq_realloc(void *ptr, size_t size);
void tq_free(void *ptr);

/* For a large array that is written from its start soon after it is taken (a file's bytes, the
 * events of a profile as they are read, the rows made from them): a block of 2 MiB or more is
 * asked to be backed by transparent huge pages where the system offers them on request (Debian's
 * default), a page fault per 2 MiB instead of per 4 KiB, and at most one huge page past its last
 * written byte is filled for nothing. tq_malloc and tq_realloc give no such advice: a large
 * buffer that is seldom filled would pay for whole huge pages. Otherwise as tq_malloc and
 * tq_realloc (freed with tq_free, grown with either). */
void *tq_malloc_huge(size_t size);
void *tq_realloc_huge(void *ptr, size_t size);

/* `size` zeroed bytes in a mapping of their own, for a large block that is taken and given back
 * again and again and of which little may be touched (the simulator's LRAM, per session): its
 * pages come zeroed from the kernel as they are first touched, never cleared here. (calloc
 * clears the whole block each time once malloc serves blocks of that size from its heap.)
 * Freed with tq_free_pages and the same size, or with tq_free_pages_dirty by an owner that knows
 * which bytes it wrote: those are cleared and the block is kept (a few, of up to 8 MiB) for the
 * next tq_calloc_pages of that size, which saves the unmapping and the fresh page faults of a
 * block taken and given back per test. Thread-safe. */
void *tq_calloc_pages(size_t size);
void tq_free_pages(void *ptr, size_t size);
/* Gives back a block of tq_calloc_pages of which only the first `dirty` bytes may be non-zero. */
void tq_free_pages_dirty(void *ptr, size_t size, size_t dirty);

/* Returns a heap copy of the `len` bytes at `s` plus a NUL, or NULL when memory runs out. */
char *tq_strndup(const char *s, size_t len);

/* Test hook: after `n` more successful allocations, every allocation fails until reset with
 * n < 0 (the default: never fail). Not thread-safe; for tests only. */
void tq_alloc_fail_after(long n);

#endif
