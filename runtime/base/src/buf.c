/* Growable NUL-terminated byte buffers. */
#include <stdio.h>
#include <string.h>

#include "torq/base/alloc.h"
#include "torq/base/checked.h"
#include "torq/base/str.h"

#define TQ_BUF_MIN_CAP ((size_t)64)

void tq_buf_init(tq_buf_t *buf, size_t limit) {
  buf->data = NULL;
  buf->len = 0;
  buf->cap = 0;
  buf->limit = limit;
}

void tq_buf_deinit(tq_buf_t *buf) {
  tq_free(buf->data);
  buf->data = NULL;
  buf->len = 0;
  buf->cap = 0;
}

void tq_buf_clear(tq_buf_t *buf) {
  buf->len = 0;
  if (buf->data) buf->data[0] = '\0';
}

/* `filled`: the room is to be written now. */
static tq_status_t reserve(tq_buf_t *buf, size_t extra, int filled) {
  size_t need;
  if (!tq_size_add(buf->len, extra, &need) || (buf->limit && need > buf->limit))
    return TQ_STATUS(TQ_LIMIT, "buffer of %zu bytes cannot grow by %zu: over the limit of %zu bytes",
                     buf->len, extra, buf->limit);
  if (!tq_size_add(need, 1, &need))
    return TQ_STATUS(TQ_LIMIT, "buffer size overflows");
  if (need <= buf->cap) return NULL;
  /* Doubling keeps appends amortized O(1); the limit bounds the slack, not just the length. */
  size_t cap = buf->cap < TQ_BUF_MIN_CAP ? TQ_BUF_MIN_CAP : buf->cap;
  while (cap < need) {
    if (!tq_size_mul(cap, 2, &cap)) {
      cap = need;
      break;
    }
  }
  if (buf->limit && cap - 1 > buf->limit) cap = buf->limit + 1;
  /* On huge pages (tq_realloc_huge) when it is written from its start: its bytes are coming now,
   * or it grows as they come (a quarter of the new room written already: appends, which double
   * it when it is full). Room taken ahead of its bytes (an empty buffer's) is not. */
  int huge = filled || buf->len >= cap / 4;
  char *data = huge ? tq_realloc_huge(buf->data, cap) : tq_realloc(buf->data, cap);
  if (!data)
    return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory growing a buffer to %zu bytes", cap);
  data[buf->len] = '\0';
  buf->data = data;
  buf->cap = cap;
  return NULL;
}

tq_status_t tq_buf_reserve(tq_buf_t *buf, size_t extra) { return reserve(buf, extra, 0); }

tq_status_t tq_buf_reserve_filled(tq_buf_t *buf, size_t extra) { return reserve(buf, extra, 1); }

tq_status_t tq_buf_append(tq_buf_t *buf, const void *data, size_t len) {
  TQ_TRY(tq_buf_reserve_filled(buf, len));
  if (len) memcpy(buf->data + buf->len, data, len);
  buf->len += len;
  buf->data[buf->len] = '\0';
  return NULL;
}

tq_status_t tq_buf_append_cstr(tq_buf_t *buf, const char *s) {
  return tq_buf_append(buf, s, strlen(s));
}

tq_status_t tq_buf_putc(tq_buf_t *buf, char c) { return tq_buf_append(buf, &c, 1); }

/* Room for a short formatted text without a sizing pass (within the limit, if any). */
#define TQ_BUF_PRINTF_ROOM ((size_t)128)

tq_status_t tq_buf_vprintf(tq_buf_t *buf, const char *fmt, va_list ap) {
  /* Formats once, into the room there is (made at least TQ_BUF_PRINTF_ROOM bytes where the
   * limit allows); only a text that does not fit is formatted again, after growing. */
  size_t room = buf->cap > buf->len ? buf->cap - buf->len : 0;
  if (room < TQ_BUF_PRINTF_ROOM && (!buf->limit || buf->len + TQ_BUF_PRINTF_ROOM <= buf->limit)) {
    TQ_TRY(tq_buf_reserve(buf, TQ_BUF_PRINTF_ROOM));
    room = buf->cap - buf->len;
  }
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(room ? buf->data + buf->len : NULL, room, fmt, ap2);
  va_end(ap2);
  if (n < 0) {
    if (buf->data) buf->data[buf->len] = '\0';
    return TQ_STATUS(TQ_INVALID_ARGUMENT, "cannot format \"%s\"", fmt);
  }
  if ((size_t)n < room) {
    buf->len += (size_t)n;
    return NULL;
  }
  /* It did not fit: what was written past the end is not the buffer's. */
  if (buf->data) buf->data[buf->len] = '\0';
  TQ_TRY(tq_buf_reserve_filled(buf, (size_t)n));
  va_copy(ap2, ap);
  vsnprintf(buf->data + buf->len, (size_t)n + 1, fmt, ap2);
  va_end(ap2);
  buf->len += (size_t)n;
  return NULL;
}

tq_status_t tq_buf_printf(tq_buf_t *buf, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tq_status_t s = tq_buf_vprintf(buf, fmt, ap);
  va_end(ap);
  return s;
}

char *tq_vstrdup_printf(const char *fmt, va_list ap) {
  tq_buf_t buf;
  tq_buf_init(&buf, 0);
  tq_status_t st = tq_buf_vprintf(&buf, fmt, ap);
  char *s = st ? NULL : tq_buf_detach(&buf);
  tq_status_free(st);
  tq_buf_deinit(&buf);
  return s;
}

char *tq_strdup_printf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *s = tq_vstrdup_printf(fmt, ap);
  va_end(ap);
  return s;
}

char *tq_buf_detach(tq_buf_t *buf) {
  if (!buf->data) return tq_strndup("", 0);
  char *data = buf->data;
  buf->data = NULL;
  buf->len = 0;
  buf->cap = 0;
  return data;
}

int tq_parse_u64(const char *s, unsigned base, uint64_t *out) {
  if (!s || !*s || base < 2 || base > 16) return 0;
  uint64_t v = 0;
  for (; *s; s++) {
    unsigned d;
    if (*s >= '0' && *s <= '9')
      d = (unsigned)(*s - '0');
    else if (*s >= 'a' && *s <= 'f')
      d = (unsigned)(*s - 'a') + 10;
    else if (*s >= 'A' && *s <= 'F')
      d = (unsigned)(*s - 'A') + 10;
    else
      return 0;
    if (d >= base || v > (UINT64_MAX - d) / base) return 0;
    v = v * base + d;
  }
  *out = v;
  return 1;
}
