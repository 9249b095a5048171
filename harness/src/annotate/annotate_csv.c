/* The annotated CSV (annotate.h), and writing outputs by their extension. */
#include <string.h>

#include "annotate_internal.h"
#include "torq/base/file.h"
#include "torq/harness/annotate.h"
#include "torq/harness/files.h"

tq_status_t tqh__write_file(const char *path, const void *data, size_t len) {
  tq_status_t st = tq_file_write_atomic(path, data ? data : "", len);
  return st ? tq_status_annotate(st, "while writing %s", path) : NULL;
}

/* A text column: rows borrow their strings from the debug info, and a run of rows often has the
 * same one, so its length and whether it needs quotes are worked out once per string. */
typedef struct text_col_s {
  const char *last;
  size_t len;
  int plain; /* no comma, quote, CR or LF */
} text_col_t;

static void text_col_see(text_col_t *c, const char *s) {
  if (s == c->last) return;
  c->last = s;
  c->len = strlen(s);
  c->plain = strcspn(s, ",\"\r\n") == c->len;
}

/* Copies an RFC 4180 field to `p`: quoted when it holds a comma, a quote, CR or LF (quotes
 * doubled). `p` has room for 2 * strlen(s) + 2 bytes. */
static char *field(char *p, const text_col_t *c) {
  const char *s = c->last;
  size_t n = c->len;
  if (c->plain) {
    memcpy(p, s, n);
    return p + n;
  }
  *p++ = '"';
  for (; *s; s++) {
    if (*s == '"') *p++ = '"';
    *p++ = *s;
  }
  *p++ = '"';
  return p;
}

static char *u64(char *p, uint64_t v) {
  char tmp[24];
  size_t n = 0;
  do {
    tmp[sizeof(tmp) - 1 - n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  memcpy(p, tmp + sizeof(tmp) - n, n);
  return p + n;
}

static char *flag(char *p, unsigned units, tqs_unit_t u) {
  if (units & TQH_UNIT_BIT(u)) {
    memcpy(p, ",true", 5);
    return p + 5;
  }
  memcpy(p, ",false", 6);
  return p + 6;
}

/* Appends the rows to `buf`; with `out`, hands full chunks to it as it goes. */
static tq_status_t format_rows(const tqh_annotation_t *ann, tq_buf_t *buf, tqh_out_file_t *out) {
  TQ_TRY(tq_buf_append_cstr(buf, TQH_ANNOTATED_CSV_HEADER "\n"));
  text_col_t names = {NULL, 0, 0}, ops = {NULL, 0, 0}, loc = {NULL, 0, 0};
  for (size_t i = 0; i < ann->num_rows; i++) {
    const tqh_row_t *r = &ann->rows[i];
    const char *kind = tqh_event_kind_name(r->kind);
    text_col_see(&names, r->invocation_names);
    text_col_see(&ops, r->original_operators);
    text_col_see(&loc, r->location);
    size_t kn = strlen(kind);
    size_t room = 2 * (names.len + ops.len + loc.len) + kn + 6 * 6 + 5 * 21 + 32;
    TQ_TRY(tq_buf_reserve(buf, room));
    char *p = buf->data + buf->len;
    p = u64(p, (uint64_t)r->action_id);
    *p++ = ',';
    if (r->job_id >= 0) p = u64(p, (uint64_t)r->job_id);
    *p++ = ',';
    memcpy(p, kind, kn);
    p += kn;
    *p++ = ',';
    p = field(p, &names);
    *p++ = ',';
    p = field(p, &ops);
    *p++ = ',';
    p = u64(p, r->end_us - r->start_us);
    p = flag(p, r->units, TQS_UNIT_SLICE0);
    p = flag(p, r->units, TQS_UNIT_SLICE1);
    p = flag(p, r->units, TQS_UNIT_DMA_IN);
    p = flag(p, r->units, TQS_UNIT_DMA_OUT);
    p = flag(p, r->units, TQS_UNIT_CDMA);
    p = flag(p, r->units, TQS_UNIT_CSS);
    *p++ = ',';
    p = u64(p, r->start_us);
    *p++ = ',';
    p = u64(p, r->end_us);
    *p++ = ',';
    p = field(p, &loc);
    *p++ = '\n';
    buf->len = (size_t)(p - buf->data);
    buf->data[buf->len] = 0;
    if (out) TQ_TRY(tqh_out_file_maybe_flush(out));
  }
  return NULL;
}

tq_status_t tqh_annotation_format_csv(const tqh_annotation_t *ann, tq_buf_t *out) {
  return format_rows(ann, out, NULL);
}

tq_status_t tqh_annotation_write_csv(const tqh_annotation_t *ann, const char *path) {
  tqh_out_file_t out;
  TQ_TRY(tqh_out_file_open(&out, path));
  tq_status_t st = format_rows(ann, &out.buf, &out);
  if (st) {
    tqh_out_file_abort(&out);
    return st;
  }
  return tqh_out_file_commit(&out);
}

static int ends_with(const char *s, const char *suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a > b && strcmp(s + a - b, suffix) == 0;
}

int tqh_output_kind_known(const char *path) {
  return ends_with(path, ".csv") || ends_with(path, ".xlsx") || ends_with(path, ".pb");
}

tq_status_t tqh_annotation_write(const tqh_annotation_t *ann, const char *path) {
  if (ends_with(path, ".csv")) return tqh_annotation_write_csv(ann, path);
  if (ends_with(path, ".xlsx")) return tqh_annotation_write_xlsx(ann, path);
  if (ends_with(path, ".pb")) return tqh_annotation_write_perfetto(ann, path);
  return TQ_STATUS(TQ_INVALID_ARGUMENT,
                   "%s: unknown output kind (the extension must be .csv, .xlsx or .pb)", path);
}
