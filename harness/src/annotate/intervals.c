/* Interval sets: sort-and-merge normalization, then linear sweeps over two normalized sets. */
#include "torq/harness/intervals.h"

#include <stdlib.h>
#include <string.h>

#include "torq/base/alloc.h"

void tqh_intervals_init(tqh_intervals_t *set) {
  memset(set, 0, sizeof(*set));
  set->normalized = 1;
}

void tqh_intervals_deinit(tqh_intervals_t *set) {
  tq_free(set->items);
  tqh_intervals_init(set);
}

void tqh_intervals_clear(tqh_intervals_t *set) {
  set->count = 0;
  set->normalized = 1;
}

static tq_status_t reserve(tqh_intervals_t *set, size_t extra) {
  if (set->cap - set->count >= extra) return NULL;
  size_t cap = set->cap ? set->cap : 16;
  while (cap - set->count < extra) {
    if (cap > SIZE_MAX / 2 / sizeof(tqh_interval_t))
      return TQ_STATUS(TQ_OUT_OF_MEMORY, "interval set too large");
    cap *= 2;
  }
  /* An empty set's old items need no copy. */
  if (!set->count) {
    tq_free(set->items);
    set->items = NULL;
    set->cap = 0;
  }
  tqh_interval_t *items = tq_realloc_huge(set->items, cap * sizeof(*items));
  if (!items) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory for %zu intervals", cap);
  set->items = items;
  set->cap = cap;
  return NULL;
}

tq_status_t tqh_intervals_reserve(tqh_intervals_t *set, size_t n) { return reserve(set, n); }

/* Appends to a set that the caller keeps normalized (merging with the last item when touching). */
static tq_status_t push(tqh_intervals_t *set, uint64_t start, uint64_t end) {
  if (end <= start) return NULL;
  if (set->count && set->items[set->count - 1].end >= start) {
    if (set->items[set->count - 1].end < end) set->items[set->count - 1].end = end;
    return NULL;
  }
  TQ_TRY(reserve(set, 1));
  set->items[set->count].start = start;
  set->items[set->count].end = end;
  set->count++;
  return NULL;
}

/* An interval that starts within the last one (most do: work comes in time order, one piece
 * after the other) widens it, which keeps the set as small as its union and, when it was
 * normalized, normalized; one that starts before the last one leaves sorting to normalize. */
tq_status_t tqh_intervals_add(tqh_intervals_t *set, uint64_t start, uint64_t end) {
  if (end <= start) return NULL;
  if (set->count) {
    tqh_interval_t *last = &set->items[set->count - 1];
    if (start >= last->start && start <= last->end) {
      if (last->end < end) last->end = end;
      return NULL;
    }
    if (start < last->start) set->normalized = 0;
  }
  TQ_TRY(reserve(set, 1));
  set->items[set->count].start = start;
  set->items[set->count].end = end;
  set->count++;
  return NULL;
}

static int by_start(const void *pa, const void *pb) {
  const tqh_interval_t *a = pa, *b = pb;
  if (a->start != b->start) return a->start < b->start ? -1 : 1;
  return (a->end > b->end) - (a->end < b->end);
}

void tqh_intervals_normalize(tqh_intervals_t *set) {
  if (set->normalized) return;
  size_t sorted = 1;
  while (sorted < set->count && by_start(&set->items[sorted - 1], &set->items[sorted]) <= 0)
    sorted++;
  if (sorted < set->count) qsort(set->items, set->count, sizeof(*set->items), by_start);
  size_t n = 0;
  for (size_t i = 0; i < set->count; i++) {
    tqh_interval_t it = set->items[i];
    if (n && set->items[n - 1].end >= it.start) {
      if (set->items[n - 1].end < it.end) set->items[n - 1].end = it.end;
    } else {
      set->items[n++] = it;
    }
  }
  set->count = n;
  set->normalized = 1;
}

tq_status_t tqh_intervals_union(tqh_intervals_t *a, tqh_intervals_t *b, tqh_intervals_t *out) {
  tqh_intervals_normalize(a);
  tqh_intervals_normalize(b);
  tqh_intervals_clear(out);
  TQ_TRY(reserve(out, a->count + b->count)); /* room for the most it can hold */
  size_t i = 0, j = 0;
  while (i < a->count || j < b->count) {
    const tqh_interval_t *next;
    if (j >= b->count || (i < a->count && a->items[i].start <= b->items[j].start))
      next = &a->items[i++];
    else
      next = &b->items[j++];
    TQ_TRY(push(out, next->start, next->end));
  }
  return NULL;
}

tq_status_t tqh_intervals_intersect(tqh_intervals_t *a, tqh_intervals_t *b,
                                    tqh_intervals_t *out) {
  tqh_intervals_normalize(a);
  tqh_intervals_normalize(b);
  tqh_intervals_clear(out);
  TQ_TRY(reserve(out, a->count + b->count)); /* room for the most it can hold */
  size_t i = 0, j = 0;
  while (i < a->count && j < b->count) {
    uint64_t s = a->items[i].start > b->items[j].start ? a->items[i].start : b->items[j].start;
    uint64_t e = a->items[i].end < b->items[j].end ? a->items[i].end : b->items[j].end;
    TQ_TRY(push(out, s, e));
    if (a->items[i].end < b->items[j].end)
      i++;
    else
      j++;
  }
  return NULL;
}

tq_status_t tqh_intervals_subtract(tqh_intervals_t *a, tqh_intervals_t *b,
                                   tqh_intervals_t *out) {
  tqh_intervals_normalize(a);
  tqh_intervals_normalize(b);
  tqh_intervals_clear(out);
  TQ_TRY(reserve(out, a->count + b->count)); /* room for the most it can hold */
  size_t j = 0;
  for (size_t i = 0; i < a->count; i++) {
    uint64_t s = a->items[i].start, e = a->items[i].end;
    while (j < b->count && b->items[j].end <= s) j++;
    /* b's intervals from j on end after s; cut them out of [s, e). */
    size_t k = j;
    while (s < e && k < b->count && b->items[k].start < e) {
      if (b->items[k].start > s) TQ_TRY(push(out, s, b->items[k].start));
      if (b->items[k].end > s) s = b->items[k].end;
      k++;
    }
    if (s < e) TQ_TRY(push(out, s, e));
  }
  return NULL;
}

uint64_t tqh_intervals_total(tqh_intervals_t *set) {
  tqh_intervals_normalize(set);
  uint64_t total = 0;
  for (size_t i = 0; i < set->count; i++) total += set->items[i].end - set->items[i].start;
  return total;
}
