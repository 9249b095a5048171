/* Bump arena over a list of blocks from tq_malloc. */
#include "torq/base/arena.h"

#include <stdalign.h>
#include <stdint.h>
#include <string.h>

#include "torq/base/alloc.h"
#include "torq/base/checked.h"

#define TQ_ARENA_ALIGN ((size_t)16)
#define TQ_ARENA_DEFAULT_BLOCK ((size_t)64 * 1024)

/* Block bases come from malloc, which aligns for max_align_t; with a header padded to 16 bytes
 * every offset that is a multiple of 16 is then a 16-aligned address. */
_Static_assert(alignof(max_align_t) >= 16, "malloc must return 16-aligned memory");

struct tq_arena_block_s {
  tq_arena_block_t *next;
  size_t size; /* usable bytes after the header */
  size_t used; /* always a multiple of TQ_ARENA_ALIGN */
};

#define TQ_ARENA_HEADER \
  ((sizeof(tq_arena_block_t) + TQ_ARENA_ALIGN - 1) & ~(TQ_ARENA_ALIGN - 1))

static unsigned char *tq__block_data(tq_arena_block_t *b) {
  return (unsigned char *)b + TQ_ARENA_HEADER;
}

void tq_arena_init(tq_arena_t *arena, size_t block_size, size_t limit) {
  arena->head = NULL;
  block_size = block_size ? block_size : TQ_ARENA_DEFAULT_BLOCK;
  /* Rounded up so that a fresh block always ends on an aligned offset. */
  if (block_size > SIZE_MAX - TQ_ARENA_ALIGN) block_size = SIZE_MAX - TQ_ARENA_ALIGN;
  arena->block_size = (block_size + TQ_ARENA_ALIGN - 1) & ~(TQ_ARENA_ALIGN - 1);
  arena->limit = limit;
  arena->total = 0;
}

void tq_arena_deinit(tq_arena_t *arena) {
  tq_arena_block_t *b = arena->head;
  while (b) {
    tq_arena_block_t *next = b->next;
    tq_free(b);
    b = next;
  }
  arena->head = NULL;
  arena->total = 0;
}

/* Adds a block with room for at least `need` bytes; NULL past the limit or out of memory. */
static tq_arena_block_t *tq__arena_grow(tq_arena_t *arena, size_t need) {
  size_t size = need > arena->block_size ? need : arena->block_size;
  size_t total;
  if (arena->limit) {
    if (!tq_size_add(arena->total, need, &total) || total > arena->limit) return NULL;
    /* Near the limit a smaller block still serves this request. */
    if (size > arena->limit - arena->total)
      size = (arena->limit - arena->total) & ~(TQ_ARENA_ALIGN - 1);
  }
  size_t bytes;
  if (!tq_size_add(size, TQ_ARENA_HEADER, &bytes)) return NULL;
  /* A block for one large request is filled by it (a copied model text, a literal's bytes). */
  tq_arena_block_t *b = size > arena->block_size ? tq_malloc_huge(bytes) : tq_malloc(bytes);
  if (!b) return NULL;
  b->size = size;
  b->used = 0;
  /* A block made for one large request goes behind the current block, whose free space stays in
   * use for the small allocations that follow. */
  if (size > arena->block_size && arena->head && arena->head->used < arena->head->size) {
    b->next = arena->head->next;
    arena->head->next = b;
  } else {
    b->next = arena->head;
    arena->head = b;
  }
  arena->total += size;
  return b;
}

void *tq_arena_alloc(tq_arena_t *arena, size_t size) {
  if (size > SIZE_MAX - TQ_ARENA_ALIGN) return NULL;
  /* Zero-size requests still consume a slot so that each returns a distinct pointer. */
  size_t need = size ? (size + TQ_ARENA_ALIGN - 1) & ~(TQ_ARENA_ALIGN - 1) : TQ_ARENA_ALIGN;
  tq_arena_block_t *b = arena->head;
  if (!b || b->size - b->used < need) {
    b = tq__arena_grow(arena, need);
    if (!b) return NULL;
  }
  void *p = tq__block_data(b) + b->used;
  b->used += need;
  return p;
}

void *tq_arena_calloc(tq_arena_t *arena, size_t count, size_t size) {
  size_t bytes;
  if (!tq_size_mul(count, size, &bytes)) return NULL;
  void *p = tq_arena_alloc(arena, bytes);
  if (p && bytes) memset(p, 0, bytes);
  return p;
}

char *tq_arena_strndup(tq_arena_t *arena, const char *s, size_t len) {
  size_t bytes;
  if (!tq_size_add(len, 1, &bytes)) return NULL;
  char *copy = tq_arena_alloc(arena, bytes);
  if (!copy) return NULL;
  if (len) memcpy(copy, s, len);
  copy[len] = '\0';
  return copy;
}
