/* Checked size arithmetic: every size read from a file goes through these before it is used to
 * allocate or index. Each returns 1 and stores the result when it fits, 0 on overflow (and leaves
 * *out unchanged). */
#ifndef TORQ_BASE_CHECKED_H
#define TORQ_BASE_CHECKED_H

#include <stddef.h>
#include <stdint.h>

static inline int tq_size_add(size_t a, size_t b, size_t *out) {
  size_t r;
  if (__builtin_add_overflow(a, b, &r)) return 0;
  *out = r;
  return 1;
}

static inline int tq_size_mul(size_t a, size_t b, size_t *out) {
  size_t r;
  if (__builtin_mul_overflow(a, b, &r)) return 0;
  *out = r;
  return 1;
}

static inline int tq_i64_add(int64_t a, int64_t b, int64_t *out) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return 0;
  *out = r;
  return 1;
}

static inline int tq_i64_mul(int64_t a, int64_t b, int64_t *out) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return 0;
  *out = r;
  return 1;
}

static inline int tq_u64_add(uint64_t a, uint64_t b, uint64_t *out) {
  uint64_t r;
  if (__builtin_add_overflow(a, b, &r)) return 0;
  *out = r;
  return 1;
}

static inline int tq_u64_mul(uint64_t a, uint64_t b, uint64_t *out) {
  uint64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return 0;
  *out = r;
  return 1;
}

/* a + b, or UINT64_MAX when that overflows: clocks and cycle counts that must not wrap. */
static inline uint64_t tq_u64_add_sat(uint64_t a, uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* n / d rounded up; d must not be 0. */
static inline uint64_t tq_u64_div_ceil(uint64_t n, uint64_t d) {
  return n / d + (n % d != 0);
}

#endif
