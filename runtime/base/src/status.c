/* The status type: code, message, origin and a chain of context notes. */
#include "torq/base/status.h"

#include <stdio.h>
#include <string.h>

#include "torq/base/alloc.h"
#include "torq/base/checked.h"
#include "torq/base/str.h"

typedef struct tq_status_note_s {
  struct tq_status_note_s *next;
  char text[];
} tq_status_note_t;

/* The message is stored right after the struct, in the same allocation, so that making a status
 * costs one allocation and the static out-of-memory status needs no special free path for it. */
struct tq_status_s {
  tq_status_code_t code;
  int line;
  const char *file; /* borrowed: callers pass __FILE__, a string literal */
  const char *message;
  tq_status_note_t *notes; /* oldest first */
  tq_status_note_t *notes_tail;
};

/* Returned when a status cannot be allocated. Shared and immutable: free and annotate leave it
 * alone, so an out-of-memory path never needs memory to report itself. */
static struct tq_status_s tq__oom_status = {
    .code = TQ_OUT_OF_MEMORY,
    .line = 0,
    .file = "",
    .message = "out of memory",
    .notes = NULL,
    .notes_tail = NULL,
};

static const char *const tq__code_names[] = {
#define TQ__CODE_NAME(name, text) text,
    TQ_STATUS_CODES(TQ__CODE_NAME)
#undef TQ__CODE_NAME
};

const char *tq_status_code_name(tq_status_code_t code) {
  if ((unsigned)code >= (unsigned)TQ_STATUS_CODE_COUNT) return "unknown";
  return tq__code_names[code];
}

/* Formats into a fresh tq_malloc'd string placed `prefix` bytes into the allocation. Returns the
 * allocation, or NULL when memory runs out; a bad format string yields a fixed text. */
static void *tq__vformat_alloc(size_t prefix, const char *fmt, va_list ap, char **out_text) {
  va_list ap2;
  va_copy(ap2, ap);
  int n = fmt ? vsnprintf(NULL, 0, fmt, ap2) : -1;
  va_end(ap2);
  const char *fallback = fmt ? "(unformattable message)" : "(no message)";
  size_t len = n < 0 ? strlen(fallback) : (size_t)n;
  size_t total;
  if (!tq_size_add(prefix, len, &total) || !tq_size_add(total, 1, &total)) return NULL;
  char *mem = tq_malloc(total);
  if (!mem) return NULL;
  char *text = mem + prefix;
  if (n < 0) {
    memcpy(text, fallback, len + 1);
  } else {
    va_copy(ap2, ap);
    vsnprintf(text, len + 1, fmt, ap2);
    va_end(ap2);
  }
  *out_text = text;
  return mem;
}

tq_status_t tq_status_makev(tq_status_code_t code, const char *file, int line, const char *fmt,
                            va_list ap) {
  /* TQ_OK or an out-of-range code is a programming error; it still must not read as success. */
  if (code == TQ_OK || (unsigned)code >= (unsigned)TQ_STATUS_CODE_COUNT) code = TQ_INTERNAL;
  char *text = NULL;
  struct tq_status_s *s = tq__vformat_alloc(sizeof(*s), fmt, ap, &text);
  if (!s) return &tq__oom_status;
  s->code = code;
  s->line = line;
  s->file = file ? file : "";
  s->message = text;
  s->notes = NULL;
  s->notes_tail = NULL;
  return s;
}

tq_status_t tq_status_make(tq_status_code_t code, const char *file, int line, const char *fmt,
                           ...) {
  va_list ap;
  va_start(ap, fmt);
  tq_status_t s = tq_status_makev(code, file, line, fmt, ap);
  va_end(ap);
  return s;
}

tq_status_t tq_status_annotate(tq_status_t status, const char *fmt, ...) {
  if (!status || status == &tq__oom_status) return status;
  va_list ap;
  va_start(ap, fmt);
  char *text = NULL;
  tq_status_note_t *note = tq__vformat_alloc(sizeof(*note), fmt, ap, &text);
  va_end(ap);
  /* Without memory for the note, the original error is still the more useful thing to return. */
  if (!note) return status;
  note->next = NULL;
  if (status->notes_tail)
    status->notes_tail->next = note;
  else
    status->notes = note;
  status->notes_tail = note;
  return status;
}

tq_status_code_t tq_status_code(const struct tq_status_s *status) {
  return status ? status->code : TQ_OK;
}

const char *tq_status_message(const struct tq_status_s *status) {
  return status ? status->message : "ok";
}

const char *tq_status_file(const struct tq_status_s *status) { return status ? status->file : ""; }

int tq_status_line(const struct tq_status_s *status) { return status ? status->line : 0; }

char *tq_status_format(const struct tq_status_s *status, int with_origin) {
  if (!status) return tq_strndup("ok", 2);
  tq_buf_t buf;
  tq_buf_init(&buf, 0);
  tq_status_t err = tq_buf_printf(&buf, "error: %s", status->message);
  if (!err && with_origin && status->file[0])
    err = tq_buf_printf(&buf, " [%s:%d]", status->file, status->line);
  for (const tq_status_note_t *n = status->notes; n && !err; n = n->next)
    err = tq_buf_printf(&buf, "\n  note: %s", n->text);
  if (err) {
    tq_status_free(err);
    tq_buf_deinit(&buf);
    return NULL;
  }
  return tq_buf_detach(&buf);
}

void tq_status_free(tq_status_t status) {
  if (!status || status == &tq__oom_status) return;
  tq_status_note_t *n = status->notes;
  while (n) {
    tq_status_note_t *next = n->next;
    tq_free(n);
    n = next;
  }
  tq_free(status);
}

int tq_status_exit_code(const struct tq_status_s *status) {
  if (!status) return 0;
  switch (status->code) {
    case TQ_OK:
      return 0;
    case TQ_INVALID_ARGUMENT:
      return 2;
    case TQ_UNAVAILABLE:
    case TQ_DEADLINE_EXCEEDED:
      return 3;
    case TQ_CANCELLED:
      return 130; /* as a shell reports a process stopped by SIGINT */
    default:
      return 1;
  }
}
