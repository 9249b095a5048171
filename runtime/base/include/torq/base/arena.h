/* A bump arena: many small allocations freed together in one call. The compiler's IR lives in
 * one arena per compilation.
 *
 * Memory comes in blocks from tq_malloc; an allocation larger than the block size gets a block of
 * its own. A `limit` (0 = none) caps the total bytes the arena may hold, so that a hostile input
 * cannot make it grow without bound; allocations past it fail like out-of-memory.
 */
#ifndef TORQ_BASE_ARENA_H
#define TORQ_BASE_ARENA_H

#include <stddef.h>

typedef struct tq_arena_block_s tq_arena_block_t;

typedef struct tq_arena_s {
  tq_arena_block_t *head; /* newest block first */
  size_t block_size;      /* default size of a new block */
  size_t limit;           /* 0: unlimited */
  size_t total;           /* bytes held in blocks */
} tq_arena_t;

/* Initializes an empty arena in caller storage; block_size 0 picks 64 KiB. */
void tq_arena_init(tq_arena_t *arena, size_t block_size, size_t limit);

/* Frees every block; the arena may be reused after another tq_arena_init(). */
void tq_arena_deinit(tq_arena_t *arena);

/* Returns `size` bytes aligned for any type (16), valid until deinit; NULL when memory or the
 * limit runs out. Zero-size requests return a valid unique pointer. */
void *tq_arena_alloc(tq_arena_t *arena, size_t size);

/* As tq_arena_alloc, zero-filled, for count*size bytes with overflow checked. */
void *tq_arena_calloc(tq_arena_t *arena, size_t count, size_t size);

/* Copies `len` bytes and a NUL into the arena. */
char *tq_arena_strndup(tq_arena_t *arena, const char *s, size_t len);

#endif
