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

/* Returns a heap copy of the `len` bytes at `s` plus a NUL, or NULL when memory runs out. */
char *tq_strndup(const char *s, size_t len);

/* Test hook: after `n` more successful allocations, every allocation fails until reset with
 * n < 0 (the default: never fail). Not thread-safe; for tests only. */
void tq_alloc_fail_after(long n);

#endif
