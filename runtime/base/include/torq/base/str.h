/* String views (pointer + length, not NUL-terminated, borrowed) and growable buffers. */
#ifndef TORQ_BASE_STR_H
#define TORQ_BASE_STR_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "torq/base/status.h"

typedef struct tq_sv_s {
  const char *data; /* borrowed */
  size_t len;
} tq_sv_t;

static inline tq_sv_t tq_sv(const char *data, size_t len) {
  tq_sv_t v = {data, len};
  return v;
}
static inline tq_sv_t tq_sv_cstr(const char *s) { return tq_sv(s, strlen(s)); }
static inline int tq_sv_eq(tq_sv_t a, tq_sv_t b) {
  return a.len == b.len && (a.len == 0 || memcmp(a.data, b.data, a.len) == 0);
}
static inline int tq_sv_eq_cstr(tq_sv_t a, const char *b) { return tq_sv_eq(a, tq_sv_cstr(b)); }
static inline int tq_sv_starts_with(tq_sv_t a, const char *prefix) {
  size_t n = strlen(prefix);
  return a.len >= n && memcmp(a.data, prefix, n) == 0;
}

/* A growable byte buffer, always NUL-terminated once anything was appended (data may be NULL
 * before). `limit` (0 = none) caps len; appends past it fail with TQ_LIMIT and leave the buffer
 * unchanged. Owns `data`; release with tq_buf_deinit(). */
typedef struct tq_buf_s {
  char *data;
  size_t len;
  size_t cap;
  size_t limit;
} tq_buf_t;

void tq_buf_init(tq_buf_t *buf, size_t limit);
void tq_buf_deinit(tq_buf_t *buf);
void tq_buf_clear(tq_buf_t *buf); /* len = 0, keeps the memory */

/* Ensures room for `extra` more bytes (plus the NUL). A buffer that grows as its bytes come (a
 * quarter of its new room written already) takes the room with tq_realloc_huge (alloc.h); room
 * taken ahead of its bytes (an empty buffer's, for a chunk of output) with tq_realloc. */
tq_status_t tq_buf_reserve(tq_buf_t *buf, size_t extra) TQ_MUST_USE;
/* The same for `extra` bytes about to be written (a file's; what tq_buf_append and tq_buf_printf
 * add): always with tq_realloc_huge. */
tq_status_t tq_buf_reserve_filled(tq_buf_t *buf, size_t extra) TQ_MUST_USE;
tq_status_t tq_buf_append(tq_buf_t *buf, const void *data, size_t len) TQ_MUST_USE;
tq_status_t tq_buf_append_cstr(tq_buf_t *buf, const char *s) TQ_MUST_USE;
tq_status_t tq_buf_putc(tq_buf_t *buf, char c) TQ_MUST_USE;
tq_status_t tq_buf_printf(tq_buf_t *buf, const char *fmt, ...) TQ_PRINTF(2, 3) TQ_MUST_USE;
tq_status_t tq_buf_vprintf(tq_buf_t *buf, const char *fmt, va_list ap) TQ_MUST_USE;

/* Parses the whole of `s`, digits of `base` (2..16, either case) and nothing else, into *out.
 * Returns 0 for an empty string, another byte, or a value beyond UINT64_MAX. */
int tq_parse_u64(const char *s, unsigned base, uint64_t *out);

/* Hands the data to the caller (free() with tq_free) and empties the buffer. Returns an empty
 * heap string when nothing was appended; NULL only when memory runs out. */
char *tq_buf_detach(tq_buf_t *buf);

/* A printf into a new heap string, which the caller frees with tq_free. NULL when memory runs
 * out (or the C library cannot format `fmt`); nothing to free then. */
char *tq_strdup_printf(const char *fmt, ...) TQ_PRINTF(1, 2);
char *tq_vstrdup_printf(const char *fmt, va_list ap);

#endif
