/* The time of a test by source operator, from its annotated CSV (operators.h). */
#include "torq/harness/operators.h"

#include <stdlib.h>
#include <string.h>

#include "torq/base/alloc.h"
#include "torq/base/file.h"
#include "torq/base/str.h"
#include "torq/runtime/profile.h"

#define MAX_FIELDS 64
#define MAX_CSV (256u << 20)

void tqh_op_table_init(tqh_op_table_t *table) {
  memset(table, 0, sizeof(*table));
}

void tqh_op_table_deinit(tqh_op_table_t *table) {
  for (size_t i = 0; i < table->count; i++) tq_free(table->ops[i].name);
  tq_free(table->ops);
  memset(table, 0, sizeof(*table));
}

tq_status_t tqh_op_table_add(tqh_op_table_t *table, const char *name, double us, size_t count) {
  table->total_us += us;
  for (size_t i = 0; i < table->count; i++) {
    if (strcmp(table->ops[i].name, name) != 0) continue;
    table->ops[i].us += us;
    table->ops[i].count += count;
    return NULL;
  }
  if (table->count == table->cap) {
    size_t cap = table->cap ? table->cap * 2 : 16;
    tqh_op_time_t *ops = tq_realloc(table->ops, cap * sizeof(*ops));
    if (!ops) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
    table->ops = ops;
    table->cap = cap;
  }
  char *copy = tq_strndup(name, strlen(name));
  if (!copy) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  table->ops[table->count++] = (tqh_op_time_t){copy, us, count};
  return NULL;
}

static int by_time(const void *a, const void *b) {
  const tqh_op_time_t *x = a, *y = b;
  if (x->us != y->us) return x->us > y->us ? -1 : 1;
  return strcmp(x->name, y->name);
}

void tqh_op_table_sort(tqh_op_table_t *table) {
  if (table->count) qsort(table->ops, table->count, sizeof(*table->ops), by_time);
}

/* One CSV record (RFC 4180) from *pos: its fields, unquoted, into `row` (cleared). Returns the
 * number of fields, 0 at the end of the data. Lines counted in *line. */
static size_t record(const char *data, size_t len, size_t *pos, size_t *line, tq_buf_t *row,
                     size_t start[MAX_FIELDS]) {
  size_t p = *pos, n = 0;
  tq_buf_clear(row);
  if (p >= len) return 0;
  for (;;) {
    if (n < MAX_FIELDS) start[n] = row->len;
    n++;
    if (p < len && data[p] == '"') {
      p++;
      while (p < len) {
        if (data[p] == '"' && p + 1 < len && data[p + 1] == '"') {
          tq_status_free(tq_buf_putc(row, '"'));
          p += 2;
        } else if (data[p] == '"') {
          p++;
          break;
        } else {
          if (data[p] == '\n') (*line)++;
          tq_status_free(tq_buf_putc(row, data[p++]));
        }
      }
    }
    while (p < len && data[p] != ',' && data[p] != '\n') {
      if (data[p] != '\r') tq_status_free(tq_buf_putc(row, data[p]));
      p++;
    }
    tq_status_free(tq_buf_putc(row, '\0'));
    if (p < len && data[p] == ',') {
      p++;
      continue;
    }
    if (p < len) p++; /* the newline */
    (*line)++;
    break;
  }
  *pos = p;
  return row->data ? n : 0; /* no memory: as the end */
}

/* "tosa.conv2d@L9 tosa.rescale@L14" -> "tosa.conv2d+tosa.rescale" into `out`. */
static tq_status_t chain(const char *ops, tq_buf_t *out) {
  tq_buf_clear(out);
  for (const char *p = ops; *p;) {
    p += strspn(p, " ");
    size_t n = strcspn(p, " ");
    if (!n) break;
    const char *at = memchr(p, '@', n);
    size_t keep = at ? (size_t)(at - p) : n;
    if (out->len) TQ_TRY(tq_buf_putc(out, '+'));
    TQ_TRY(tq_buf_append(out, p, keep));
    p += n;
  }
  return tq_buf_putc(out, '\0');
}

static int is_kind(const char *op, tqr_event_kind_t kind) {
  return !strcmp(op, tqr_event_kind_name(kind));
}

/* A row of a whole NSS or host program (its operators in original_operators). */
static int is_program(const char *op) {
  return is_kind(op, TQR_EVENT_NSS_START) || is_kind(op, TQR_EVENT_NSS_WAIT) ||
         is_kind(op, TQR_EVENT_HOST_START) || is_kind(op, TQR_EVENT_HOST_WAIT);
}

tq_status_t tqh_op_table_parse(tqh_op_table_t *table, const char *name, const char *data,
                               size_t len, tqh_diags_t *diags) {
  tq_buf_t row, key;
  tq_buf_init(&row, 256);
  tq_buf_init(&key, 64);
  size_t start[MAX_FIELDS], pos = 0, line = 0;
  size_t n = record(data, len, &pos, &line, &row, start);
  int col_op = -1, col_orig = -1, col_time = -1;
  for (size_t i = 0; i < n && i < MAX_FIELDS; i++) {
    const char *f = row.data + start[i];
    if (!strcmp(f, "operation")) col_op = (int)i;
    if (!strcmp(f, "original_operators")) col_orig = (int)i;
    if (!strcmp(f, "total_time")) col_time = (int)i;
  }
  tq_status_t st = NULL;
  if (col_op < 0 || col_orig < 0 || col_time < 0)
    st = TQ_STATUS(TQ_INVALID_INPUT,
                   "%s: not an annotated CSV (no operation, original_operators and total_time "
                   "columns in its header)",
                   name);
  size_t need = 1 + (size_t)(col_op > col_orig ? (col_op > col_time ? col_op : col_time)
                                               : (col_orig > col_time ? col_orig : col_time));
  while (!st) {
    size_t at = line + 1;
    n = record(data, len, &pos, &line, &row, start);
    if (!n) break;
    if (n == 1 && !row.data[0]) continue; /* a blank line */
    if (n < need || n > MAX_FIELDS) {
      if (diags) tqh_diags_add(diags, TQH_WARNING, name, (uint32_t)at, "%zu columns: row skipped", n);
      continue;
    }
    const char *op = row.data + start[col_op], *orig = row.data + start[col_orig];
    char *end = NULL;
    double us = strtod(row.data + start[col_time], &end);
    if (!*op || end == row.data + start[col_time] || *end || !(us >= 0)) {
      if (diags) tqh_diags_add(diags, TQH_WARNING, name, (uint32_t)at, "no operation or time: row skipped");
      continue;
    }
    int program = is_program(op);
    if (program && *orig) st = chain(orig, &key);
    else st = tq_buf_printf(&key, "%s%c", op, '\0');
    if (!st) {
      size_t runs =
          !program || is_kind(op, TQR_EVENT_NSS_START) || is_kind(op, TQR_EVENT_HOST_START);
      st = tqh_op_table_add(table, key.data, us, runs);
    }
    tq_buf_clear(&key);
  }
  tq_buf_deinit(&row);
  tq_buf_deinit(&key);
  return st;
}

tq_status_t tqh_op_table_read(tqh_op_table_t *table, const char *path, tqh_diags_t *diags) {
  tq_buf_t buf;
  TQ_TRY(tq_file_read(path, MAX_CSV, &buf));
  tq_status_t st = tqh_op_table_parse(table, path, buf.data ? buf.data : "", buf.len, diags);
  tq_buf_deinit(&buf);
  return st;
}
