/* The XLSX workbook of the annotation (libxlsxwriter, constant-memory mode: rows stream to a
 * temporary file, so a million rows do not need a million cells in memory). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <xlsxwriter.h>

#include "torq/base/alloc.h"
#include "torq/harness/annotate.h"

#define NCOLS 15
/* Excel's limit, header row included. */
#define XLSX_MAX_ROWS 1048576u
#define MAX_WIDTH 100.0

static const char *const headers[NCOLS] = {
    "Action ID",
    "Job ID",
    "Operation",
    "Invocation Names",
    "Original Operators",
    "Total Time [us]",
    "Slice 0 Used in Program",
    "Slice 1 Used in Program",
    "DMA In Used in Program",
    "DMA Out Used in Program",
    "CDMA Used in Program",
    "CSS Used in Program",
    "Timestamp Start [us]",
    "Timestamp End [us]",
    "Location",
};

static const tqs_unit_t flag_units[6] = {TQS_UNIT_SLICE0, TQS_UNIT_SLICE1, TQS_UNIT_DMA_IN,
                                         TQS_UNIT_DMA_OUT, TQS_UNIT_CDMA,  TQS_UNIT_CSS};

static size_t digits(uint64_t v) {
  size_t n = 1;
  while (v >= 10) {
    v /= 10;
    n++;
  }
  return n;
}

/* Display width of UTF-8 text: code points, not bytes. */
static size_t text_width(const char *s) {
  size_t n = 0;
  for (; *s; s++) n += ((unsigned char)*s & 0xC0) != 0x80;
  return n;
}

static void fit(double *w, size_t chars) {
  double c = (double)chars + 2;
  if (c > *w) *w = c > MAX_WIDTH ? MAX_WIDTH : c;
}

static tq_status_t xlsx_error(const char *path, const char *what, lxw_error err) {
  return TQ_STATUS(TQ_IO, "cannot write %s: %s: %s", path, what, lxw_strerror(err));
}

/* Adds a sheet with its header, widths, frozen header and autofilter over `rows` data rows. */
static tq_status_t add_sheet(lxw_workbook *wb, const char *path, int number, size_t rows,
                             const double *widths, lxw_format *bold, lxw_worksheet **out) {
  char name[48];
  if (number == 1)
    snprintf(name, sizeof(name), "%s", TQH_XLSX_SHEET);
  else
    snprintf(name, sizeof(name), "%s (%d)", TQH_XLSX_SHEET, number);
  lxw_worksheet *ws = workbook_add_worksheet(wb, name);
  if (!ws) return TQ_STATUS(TQ_IO, "cannot write %s: cannot add sheet '%s'", path, name);
  for (int c = 0; c < NCOLS; c++) {
    lxw_error e = worksheet_set_column(ws, (lxw_col_t)c, (lxw_col_t)c, widths[c], NULL);
    if (e) return xlsx_error(path, "column width", e);
  }
  worksheet_freeze_panes(ws, 1, 0);
  lxw_error e = worksheet_autofilter(ws, 0, 0, (lxw_row_t)rows, NCOLS - 1);
  if (e) return xlsx_error(path, "autofilter", e);
  for (int c = 0; c < NCOLS; c++) {
    e = worksheet_write_string(ws, 0, (lxw_col_t)c, headers[c], bold);
    if (e) return xlsx_error(path, "header", e);
  }
  *out = ws;
  return NULL;
}

static lxw_error write_text(lxw_worksheet *ws, lxw_row_t r, lxw_col_t c, const char *s) {
  return *s ? worksheet_write_string(ws, r, c, s, NULL) : LXW_NO_ERROR;
}

static tq_status_t write_rows(lxw_workbook *wb, const tqh_annotation_t *ann, const char *path) {
  double widths[NCOLS];
  for (int c = 0; c < NCOLS; c++) widths[c] = 0;
  for (int c = 0; c < NCOLS; c++) fit(&widths[c], text_width(headers[c]) + 2 /* filter button */);
  for (size_t i = 0; i < ann->num_rows; i++) {
    const tqh_row_t *r = &ann->rows[i];
    fit(&widths[0], digits((uint64_t)r->action_id));
    if (r->job_id >= 0) fit(&widths[1], digits((uint64_t)r->job_id));
    fit(&widths[2], strlen(tqh_event_kind_name(r->kind)));
    fit(&widths[3], text_width(r->invocation_names));
    fit(&widths[4], text_width(r->original_operators));
    fit(&widths[5], digits(r->end_us - r->start_us));
    fit(&widths[12], digits(r->start_us));
    fit(&widths[13], digits(r->end_us));
    fit(&widths[14], text_width(r->location));
  }
  lxw_format *bold = workbook_add_format(wb);
  if (!bold) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory writing %s", path);
  format_set_bold(bold);
  const size_t per_sheet = XLSX_MAX_ROWS - 1;
  size_t done = 0;
  int sheet = 1;
  do {
    size_t n = ann->num_rows - done < per_sheet ? ann->num_rows - done : per_sheet;
    lxw_worksheet *ws;
    TQ_TRY(add_sheet(wb, path, sheet++, n, widths, bold, &ws));
    for (size_t k = 0; k < n; k++) {
      const tqh_row_t *r = &ann->rows[done + k];
      lxw_row_t row = (lxw_row_t)(k + 1);
      lxw_error e = worksheet_write_number(ws, row, 0, (double)r->action_id, NULL);
      if (!e && r->job_id >= 0) e = worksheet_write_number(ws, row, 1, (double)r->job_id, NULL);
      if (!e) e = worksheet_write_string(ws, row, 2, tqh_event_kind_name(r->kind), NULL);
      if (!e) e = write_text(ws, row, 3, r->invocation_names);
      if (!e) e = write_text(ws, row, 4, r->original_operators);
      if (!e) e = worksheet_write_number(ws, row, 5, (double)(r->end_us - r->start_us), NULL);
      for (int f = 0; f < 6 && !e; f++)
        e = worksheet_write_boolean(ws, row, (lxw_col_t)(6 + f),
                                    (r->units & TQH_UNIT_BIT(flag_units[f])) != 0, NULL);
      if (!e) e = worksheet_write_number(ws, row, 12, (double)r->start_us, NULL);
      if (!e) e = worksheet_write_number(ws, row, 13, (double)r->end_us, NULL);
      if (!e) e = write_text(ws, row, 14, r->location);
      if (e) return xlsx_error(path, "a row", e);
    }
    done += n;
  } while (done < ann->num_rows);
  return NULL;
}

tq_status_t tqh_annotation_write_xlsx(const tqh_annotation_t *ann, const char *path) {
  /* libxlsxwriter writes the file at close; write it beside the target and rename, so a failure
   * never leaves a torn workbook at `path`. */
  size_t n = strlen(path) + 32;
  char *tmp = tq_malloc(n);
  if (!tmp) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory writing %s", path);
  snprintf(tmp, n, "%s.tmp%ld", path, (long)getpid());
  lxw_workbook_options options = {.constant_memory = LXW_TRUE, .tmpdir = NULL, .use_zip64 = 0};
  lxw_workbook *wb = workbook_new_opt(tmp, &options);
  tq_status_t st = NULL;
  if (!wb) {
    st = TQ_STATUS(TQ_IO, "cannot create %s", tmp);
  } else {
    st = write_rows(wb, ann, path);
    lxw_error e = workbook_close(wb);
    if (!st && e) st = xlsx_error(path, "closing the workbook", e);
  }
  if (!st && rename(tmp, path) != 0) st = TQ_STATUS(TQ_IO, "cannot rename %s to %s", tmp, path);
  if (st) remove(tmp);
  tq_free(tmp);
  return st;
}
