/* Allocation wrappers with a fail-after-N hook for out-of-memory tests. */
#include "torq/base/alloc.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

void tq_free(void *ptr) { free(ptr); }

char *tq_strndup(const char *s, size_t len) {
  if (len == SIZE_MAX) return NULL;
  char *copy = tq_malloc(len + 1);
  if (!copy) return NULL;
  if (len) memcpy(copy, s, len);
  copy[len] = '\0';
  return copy;
}
