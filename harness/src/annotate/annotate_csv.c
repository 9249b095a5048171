/* The annotated CSV (annotate.h), and writing outputs by their extension. */
#include <stdint.h>
#include <string.h>

#include "annotate_internal.h"
#include "torq/base/alloc.h"
#include "torq/base/file.h"
#include "torq/harness/annotate.h"
#include "torq/harness/files.h"

tq_status_t tqh__write_file(const char *path, const void *data, size_t len) {
  tq_status_t st = tq_file_write_atomic(path, data ? data : "", len);
  return st ? tq_status_annotate(st, "while writing %s", path) : NULL;
}

/* The text fields as written (quoted when they hold a comma, a quote, CR or LF; quotes doubled,
 * RFC 4180). Rows borrow their strings from the debug info: a few hundred distinct ones on a
 * million rows, so each is escaped once, into a cache keyed by its address (direct-mapped;
 * emptied between rows when its bytes pass a limit). */
#define FIELD_SLOTS 512
#define FIELD_BYTES ((size_t)1 << 20)
typedef struct field_cache_s {
  struct {
    const char *s;
    size_t off, len;
  } slot[FIELD_SLOTS];
  tq_buf_t bytes;
} field_cache_t;

static void field_row_begin(field_cache_t *c) {
  if (c->bytes.len > FIELD_BYTES) {
    memset(c->slot, 0, sizeof(c->slot));
    tq_buf_clear(&c->bytes);
  }
}

/* The escaped field of `s`: *out_off and *out_len in c->bytes (offsets: a later miss may move
 * the bytes). */
static tq_status_t field_get(field_cache_t *c, const char *s, size_t *out_off, size_t *out_len) {
  size_t h = ((uintptr_t)s >> 3) % FIELD_SLOTS;
  if (c->slot[h].s != s) {
    size_t n = strlen(s), off = c->bytes.len;
    if (strcspn(s, ",\"\r\n") == n) {
      TQ_TRY(tq_buf_append(&c->bytes, s, n));
    } else {
      TQ_TRY(tq_buf_reserve(&c->bytes, 2 * n + 2));
      char *p = c->bytes.data + c->bytes.len;
      *p++ = '"';
      for (; *s; s++) {
        if (*s == '"') *p++ = '"';
        *p++ = *s;
      }
      *p++ = '"';
      c->bytes.len = (size_t)(p - c->bytes.data);
      s -= n;
    }
    c->slot[h].s = s;
    c->slot[h].off = off;
    c->slot[h].len = c->bytes.len - off;
  }
  *out_off = c->slot[h].off;
  *out_len = c->slot[h].len;
  return NULL;
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
  field_cache_t *fc = tq_calloc(1, sizeof(*fc));
  if (!fc) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory writing the annotated CSV");
  tq_buf_init(&fc->bytes, 0);
  tq_status_t st = NULL;
  for (size_t i = 0; !st && i < ann->num_rows; i++) {
    const tqh_row_t *r = &ann->rows[i];
    const char *kind = tqh_event_kind_name(r->kind);
    size_t names_off, names_len, ops_off, ops_len, loc_off, loc_len;
    field_row_begin(fc);
    st = field_get(fc, r->invocation_names, &names_off, &names_len);
    if (!st) st = field_get(fc, r->original_operators, &ops_off, &ops_len);
    if (!st) st = field_get(fc, r->location, &loc_off, &loc_len);
    size_t kn = strlen(kind);
    size_t room = names_len + ops_len + loc_len + kn + 6 * 6 + 5 * 21 + 32;
    if (!st) st = tq_buf_reserve(buf, room);
    if (st) break;
    const char *texts = fc->bytes.data;
    char *p = buf->data + buf->len;
    p = tqh__put_u64(p, (uint64_t)r->action_id);
    *p++ = ',';
    if (r->job_id >= 0) p = tqh__put_u64(p, (uint64_t)r->job_id);
    *p++ = ',';
    memcpy(p, kind, kn);
    p += kn;
    *p++ = ',';
    p = tqh__put(p, texts + names_off, names_len);
    *p++ = ',';
    p = tqh__put(p, texts + ops_off, ops_len);
    *p++ = ',';
    p = tqh__put_u64(p, r->end_us - r->start_us);
    p = flag(p, r->units, TQS_UNIT_SLICE0);
    p = flag(p, r->units, TQS_UNIT_SLICE1);
    p = flag(p, r->units, TQS_UNIT_DMA_IN);
    p = flag(p, r->units, TQS_UNIT_DMA_OUT);
    p = flag(p, r->units, TQS_UNIT_CDMA);
    p = flag(p, r->units, TQS_UNIT_CSS);
    *p++ = ',';
    p = tqh__put_u64(p, r->start_us);
    *p++ = ',';
    p = tqh__put_u64(p, r->end_us);
    *p++ = ',';
    p = tqh__put(p, texts + loc_off, loc_len);
    *p++ = '\n';
    buf->len = (size_t)(p - buf->data);
    buf->data[buf->len] = 0;
    if (out) st = tqh_out_file_maybe_flush(out);
  }
  tq_buf_deinit(&fc->bytes);
  tq_free(fc);
  return st;
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
