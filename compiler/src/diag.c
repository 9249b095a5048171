/* Compiler-style diagnostics and the parser's small containers (a string-keyed hash map). */
#include <string.h>

#include "parser_internal.h"
#include "torq/base/alloc.h"
#include "torq/base/diag.h"

tq_status_t tqc__diagv(const char *path, const char *text, size_t text_len, uint32_t line,
                       uint32_t col, const char *fmt, va_list ap) {
  tq_buf_t msg;
  tq_buf_init(&msg, 0);
  tq_status_t st = tq_buf_printf(&msg, "%s:%u:%u: error: ", path, line, col);
  if (!st) st = tq_buf_vprintf(&msg, fmt, ap);
  /* Byte columns and "\n" lines, as the lexer counts them (a NULL style). */
  if (!st) st = tq_diag_append_snippet(&msg, text, text_len, line, col, NULL);
  if (st) {
    tq_buf_deinit(&msg);
    return st;
  }
  st = tq_status_make(TQ_INVALID_INPUT, __FILE__, __LINE__, "%s", msg.data);
  tq_buf_deinit(&msg);
  return st;
}

tq_status_t tqc__diag(const char *path, const char *text, size_t text_len, uint32_t line,
                      uint32_t col, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tq_status_t st = tqc__diagv(path, text, text_len, line, col, fmt, ap);
  va_end(ap);
  return st;
}

/* ---- Hash map ------------------------------------------------------------------------------- */

static size_t hash_sv(tq_sv_t s) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < s.len; i++) {
    h ^= (unsigned char)s.data[i];
    h *= 1099511628211ull;
  }
  return (size_t)(h ^ (h >> 29));
}

void tqc__map_deinit(tqc_map_t *map) {
  tq_free(map->slots);
  memset(map, 0, sizeof(*map));
}

size_t *tqc__map_find(const tqc_map_t *map, tq_sv_t key) {
  if (map->cap == 0) return NULL;
  size_t mask = map->cap - 1;
  for (size_t i = hash_sv(key) & mask;; i = (i + 1) & mask) {
    tqc_map_slot_t *s = &map->slots[i];
    if (!s->used) return NULL;
    if (tq_sv_eq(s->key, key)) return &s->value;
  }
}

static tq_status_t map_grow(tqc_map_t *map) {
  size_t cap = map->cap ? map->cap * 2 : 64;
  if (cap < map->cap || cap > SIZE_MAX / sizeof(tqc_map_slot_t)) {
    return TQ_STATUS(TQ_OUT_OF_MEMORY, "name table too large");
  }
  tqc_map_slot_t *slots = tq_calloc(cap, sizeof(*slots));
  if (!slots) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory growing a name table");
  for (size_t i = 0; i < map->cap; i++) {
    if (!map->slots[i].used) continue;
    size_t j = hash_sv(map->slots[i].key) & (cap - 1);
    while (slots[j].used) j = (j + 1) & (cap - 1);
    slots[j] = map->slots[i];
  }
  tq_free(map->slots);
  map->slots = slots;
  map->cap = cap;
  return NULL;
}

tq_status_t tqc__map_put(tqc_map_t *map, tq_sv_t key, size_t value) {
  size_t *existing = tqc__map_find(map, key);
  if (existing) {
    *existing = value;
    return NULL;
  }
  if ((map->count + 1) * 2 > map->cap) TQ_TRY(map_grow(map));
  size_t mask = map->cap - 1;
  size_t i = hash_sv(key) & mask;
  while (map->slots[i].used) i = (i + 1) & mask;
  map->slots[i].used = 1;
  map->slots[i].key = key;
  map->slots[i].value = value;
  map->count++;
  return NULL;
}
