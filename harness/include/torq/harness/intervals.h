/* Sets of time intervals and their arithmetic (union, intersection, difference): the Host
 * Profile Overview (DESIGN 5.6) measures how long some set of activities kept the machine busy,
 * counting overlapping time once.
 *
 * An interval is half-open, [start, end), in nanoseconds; an empty one (end <= start) holds no
 * time and is dropped. A set is *normalized* when its intervals are sorted by start, disjoint
 * and not touching (end < next start): the canonical form, in which equal sets have equal items.
 * tqh_intervals_add appends without normalizing (cheap, for building); the operations below
 * accept any set and always produce a normalized one.
 *
 * Ownership: a tqh_intervals_t in caller storage owns `items`; tqh_intervals_deinit frees it.
 * Output sets are cleared on entry and may not alias an input.
 *
 * Part of the annotate component (harness/src/annotate/README.md).
 */
#ifndef TORQ_HARNESS_INTERVALS_H
#define TORQ_HARNESS_INTERVALS_H

#include <stddef.h>
#include <stdint.h>

#include "torq/base/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tqh_interval_s {
  uint64_t start, end; /* [start, end) ns */
} tqh_interval_t;

typedef struct tqh_intervals_s {
  tqh_interval_t *items; /* owned */
  size_t count, cap;
  int normalized; /* 1 when known to be normalized */
} tqh_intervals_t;

void tqh_intervals_init(tqh_intervals_t *set);
void tqh_intervals_deinit(tqh_intervals_t *set);
void tqh_intervals_clear(tqh_intervals_t *set);

/* Appends [start, end); an empty interval is ignored. TQ_OUT_OF_MEMORY on failure (the set is
 * unchanged). */
tq_status_t tqh_intervals_add(tqh_intervals_t *set, uint64_t start, uint64_t end) TQ_MUST_USE;

/* Takes room for `n` more intervals at once (a set that will get many grows once).
 * TQ_OUT_OF_MEMORY on failure (the set is unchanged). */
tq_status_t tqh_intervals_reserve(tqh_intervals_t *set, size_t n) TQ_MUST_USE;

/* Sorts and merges in place (overlapping or touching intervals become one). Never fails. */
void tqh_intervals_normalize(tqh_intervals_t *set);

/* out = a ∪ b, a ∩ b, a − b. Inputs are normalized in place first when they are not. */
tq_status_t tqh_intervals_union(tqh_intervals_t *a, tqh_intervals_t *b,
                                tqh_intervals_t *out) TQ_MUST_USE;
tq_status_t tqh_intervals_intersect(tqh_intervals_t *a, tqh_intervals_t *b,
                                    tqh_intervals_t *out) TQ_MUST_USE;
tq_status_t tqh_intervals_subtract(tqh_intervals_t *a, tqh_intervals_t *b,
                                   tqh_intervals_t *out) TQ_MUST_USE;

/* The time the set covers, overlaps counted once (normalizes in place when needed). */
uint64_t tqh_intervals_total(tqh_intervals_t *set);

#ifdef __cplusplus
}
#endif
#endif
