/* The XLSX workbook of the annotation, written directly: the sheet's XML is formatted into a
 * buffer and deflated as it grows (ISA-L's igzip, level 1), straight into the zip, so a million
 * rows need neither a million cells in memory nor a temporary copy of the sheet.
 *
 * The parts are the ones libxlsxwriter wrote for this workbook in constant-memory mode (inline
 * strings, the same XML byte for byte, ECMA-376 SpreadsheetML), less its theme part, which no
 * cell of ours refers to. The zip (PKWARE's APPNOTE) has one deflated entry per part, each
 * followed by a data descriptor (general purpose flag bit 3: its CRC-32 and sizes are known only
 * once the part is written), then the central directory.
 *
 * Most parts are the same in every workbook of a run (the styles, the relationships), and a test
 * repeated gives the same sheet: a small part already deflated in this process is emitted again
 * from a memo of its text and bytes. Deflate's output depends only on its input and settings, so
 * the file is byte for byte the one deflating again would give; for a small profile that saves
 * most of the file's cost (one Huffman table per part). */
#include <ctype.h>
#include <pthread.h>
#include <stdarg.h>
#include <isa-l/crc.h>
#include <isa-l/igzip_lib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "annotate_internal.h"
#include "torq/base/alloc.h"
#include "torq/harness/annotate.h"
#include "torq/harness/files.h"

#define NCOLS 15
/* Excel's limit, header row included. */
#define XLSX_MAX_ROWS 1048576u
/* Excel's limit on the characters of a cell (libxlsxwriter counts bytes). */
#define XLSX_MAX_STRING 32767u
#define MAX_WIDTH 100.0
/* The sheet's XML is deflated in pieces of this size. */
#define XML_CHUNK ((size_t)256 << 10)
#define MAX_ZIP 0xFFFFFFFEu

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

#define XML_DECL "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n"
#define NS_MAIN "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
#define NS_REL "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
#define NS_PKG_REL "http://schemas.openxmlformats.org/package/2006/relationships"
#define CT_OFFICE "application/vnd.openxmlformats-officedocument."

/* ---- The zip ------------------------------------------------------------------------------- */

typedef struct {
  char *name;
  uint32_t crc, packed, size, offset;
} entry_t;

typedef struct {
  tqh_out_file_t out;
  const char *path;
  uint64_t offset; /* bytes written to the archive so far */
  entry_t *entries;
  size_t num_entries, cap_entries;
  /* The part being written. */
  struct isal_zstream zs;
  uint8_t *level_buf;
  uint32_t crc;
  uint64_t size, packed;
  tq_buf_t xml; /* its pending text */
} zip_t;

static void put16(unsigned char *p, unsigned v) {
  p[0] = (unsigned char)v;
  p[1] = (unsigned char)(v >> 8);
}

static void put32(unsigned char *p, uint32_t v) {
  put16(p, v & 0xFFFF);
  put16(p + 2, v >> 16);
}

static tq_status_t zip_emit(zip_t *z, const void *data, size_t len) {
  if (z->offset + len > MAX_ZIP)
    return TQ_STATUS(TQ_LIMIT, "cannot write %s: larger than a zip without its 64-bit extension "
                     "holds", z->path);
  z->offset += len;
  TQ_TRY(tq_buf_append(&z->out.buf, data, len));
  return tqh_out_file_maybe_flush(&z->out);
}

/* The fields a local header and a central record share, from "version needed" on (30 - 4 and
 * 46 - 20 bytes before the name); CRC and sizes are 0 in a local header (bit 3). */
static void fixed_fields(unsigned char *p, const entry_t *e, size_t name_len) {
  put16(p, 20);                     /* version needed: 2.0, deflate */
  put16(p + 2, (1u << 3));          /* flags: sizes in the data descriptor */
  put16(p + 4, 8);                  /* deflated */
  put16(p + 6, 0);                  /* time 00:00 */
  put16(p + 8, 0x21);               /* date 1980-01-01 */
  put32(p + 10, e ? e->crc : 0);
  put32(p + 14, e ? e->packed : 0);
  put32(p + 18, e ? e->size : 0);
  put16(p + 22, (unsigned)name_len);
  put16(p + 24, 0); /* extra field */
}

/* ---- The memo of small parts ------------------------------------------------------------- */

/* Parts of at most MEMO_MAX_TEXT bytes, the MEMO_SLOTS used last (a workbook has 8 parts, 5 of
 * them the same in every one of a run): at most 16 x 2 x 16 KiB. */
#define MEMO_SLOTS 16
#define MEMO_MAX_TEXT ((size_t)16 << 10)

typedef struct {
  char *text; /* the part's XML, then its deflated bytes */
  size_t len, packed;
  uint32_t crc;
  uint64_t used; /* when it last served, for replacement */
} memo_t;

static memo_t g_memo[MEMO_SLOTS];
static uint64_t g_memo_clock, g_memo_served;
static pthread_mutex_t g_memo_mu = PTHREAD_MUTEX_INITIALIZER;

/* The deflated bytes (appended to `out`) and CRC-32 of text `xml` when the memo has them: 1,
 * else 0. */
static int memo_lookup(const tq_buf_t *xml, uint32_t *crc, tq_buf_t *out) {
  int found = 0;
  pthread_mutex_lock(&g_memo_mu);
  for (size_t i = 0; i < MEMO_SLOTS; i++) {
    memo_t *m = &g_memo[i];
    if (!m->text || m->len != xml->len || memcmp(m->text, xml->data, xml->len) != 0) continue;
    found = tq_buf_append(out, m->text + m->len, m->packed) == NULL;
    if (found) {
      m->used = ++g_memo_clock;
      *crc = m->crc;
      g_memo_served++;
    }
    break;
  }
  pthread_mutex_unlock(&g_memo_mu);
  return found;
}

uint64_t tqh__xlsx_memo_served(void) {
  pthread_mutex_lock(&g_memo_mu);
  uint64_t n = g_memo_served;
  pthread_mutex_unlock(&g_memo_mu);
  return n;
}

/* Keeps text `xml` and its deflated bytes in the slot used longest ago (when memory allows). */
static void memo_keep(const tq_buf_t *xml, const tq_buf_t *packed, uint32_t crc) {
  char *copy = tq_malloc(xml->len + packed->len + 1);
  if (!copy) return;
  memcpy(copy, xml->data, xml->len);
  if (packed->len) memcpy(copy + xml->len, packed->data, packed->len);
  pthread_mutex_lock(&g_memo_mu);
  memo_t *victim = &g_memo[0];
  for (size_t i = 1; i < MEMO_SLOTS; i++)
    if (g_memo[i].used < victim->used) victim = &g_memo[i];
  tq_free(victim->text);
  *victim = (memo_t){copy, xml->len, packed->len, crc, ++g_memo_clock};
  pthread_mutex_unlock(&g_memo_mu);
}

/* ---- The zip (continued) ------------------------------------------------------------------- */

static tq_status_t zip_begin(zip_t *z, const char *name) {
  if (z->num_entries == z->cap_entries) {
    size_t cap = z->cap_entries ? z->cap_entries * 2 : 16;
    entry_t *grown = tq_realloc(z->entries, cap * sizeof(*grown));
    if (!grown) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory writing %s", z->path);
    z->entries = grown;
    z->cap_entries = cap;
  }
  entry_t *e = &z->entries[z->num_entries];
  memset(e, 0, sizeof(*e));
  size_t name_len = strlen(name);
  e->name = tq_malloc(name_len + 1);
  if (!e->name) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory writing %s", z->path);
  memcpy(e->name, name, name_len + 1);
  z->num_entries++;
  e->offset = (uint32_t)z->offset;
  unsigned char h[30];
  put32(h, 0x04034b50);
  fixed_fields(h + 4, NULL, name_len);
  TQ_TRY(zip_emit(z, h, sizeof(h)));
  TQ_TRY(zip_emit(z, name, name_len));
  isal_deflate_init(&z->zs);
  z->zs.level = 1;
  z->zs.gzip_flag = IGZIP_DEFLATE;
  z->crc = 0;
  z->size = z->packed = 0;
  tq_buf_clear(&z->xml);
  return NULL;
}

/* Deflates the pending text (all of it, and the stream's end when `last`); the bytes made are
 * also appended to `copy` when given. */
static tq_status_t zip_deflate(zip_t *z, int last, tq_buf_t *copy) {
  unsigned char out[64 << 10];
  /* Its working memory (270 KiB) only when something is deflated: a workbook made from the memo
   * needs none. */
  if (!z->level_buf && !(z->level_buf = tq_malloc(ISAL_DEF_LVL1_DEFAULT)))
    return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory writing %s", z->path);
  z->zs.level_buf = z->level_buf;
  z->zs.level_buf_size = ISAL_DEF_LVL1_DEFAULT;
  z->crc = crc32_gzip_refl(z->crc, (const unsigned char *)z->xml.data, z->xml.len);
  z->size += z->xml.len;
  if (z->size > MAX_ZIP)
    return TQ_STATUS(TQ_LIMIT, "cannot write %s: a part is larger than a zip without its 64-bit "
                     "extension holds", z->path);
  z->zs.next_in = (uint8_t *)z->xml.data;
  z->zs.avail_in = (uint32_t)z->xml.len;
  z->zs.end_of_stream = (uint16_t)last;
  z->zs.flush = NO_FLUSH;
  for (;;) {
    z->zs.next_out = out;
    z->zs.avail_out = sizeof(out);
    if (isal_deflate(&z->zs) != COMP_OK)
      return TQ_STATUS(TQ_INTERNAL, "cannot write %s: deflate failed", z->path);
    size_t made = sizeof(out) - z->zs.avail_out;
    z->packed += made;
    if (made) TQ_TRY(zip_emit(z, out, made));
    if (made && copy) TQ_TRY(tq_buf_append(copy, out, made));
    if (last ? z->zs.internal_state.state == ZSTATE_END : z->zs.avail_in == 0) break;
  }
  tq_buf_clear(&z->xml);
  return NULL;
}

/* A part whole in its pending text (none of it deflated yet) and small goes by the memo. */
static tq_status_t zip_end_part(zip_t *z) {
  if (z->size != 0 || !z->xml.len || z->xml.len > MEMO_MAX_TEXT) return zip_deflate(z, 1, NULL);
  tq_buf_t bytes;
  tq_buf_init(&bytes, 0);
  uint32_t crc = 0;
  tq_status_t st = NULL;
  if (memo_lookup(&z->xml, &crc, &bytes)) {
    st = zip_emit(z, bytes.data, bytes.len);
    z->crc = crc;
    z->size = z->xml.len;
    z->packed = bytes.len;
    tq_buf_clear(&z->xml);
  } else {
    /* zip_deflate consumes the pending text: a copy is kept for the memo first. */
    tq_buf_t text;
    tq_buf_init(&text, 0);
    st = tq_buf_append(&text, z->xml.data, z->xml.len);
    if (!st) st = zip_deflate(z, 1, &bytes);
    if (!st) memo_keep(&text, &bytes, z->crc);
    tq_buf_deinit(&text);
  }
  tq_buf_deinit(&bytes);
  return st;
}

static tq_status_t zip_end(zip_t *z) {
  TQ_TRY(zip_end_part(z));
  entry_t *e = &z->entries[z->num_entries - 1];
  e->crc = z->crc;
  e->size = (uint32_t)z->size;
  e->packed = (uint32_t)z->packed;
  unsigned char d[16];
  put32(d, 0x08074b50);
  put32(d + 4, e->crc);
  put32(d + 8, e->packed);
  put32(d + 12, e->size);
  return zip_emit(z, d, sizeof(d));
}

static tq_status_t zip_finish(zip_t *z) {
  uint64_t dir_offset = z->offset;
  for (size_t i = 0; i < z->num_entries; i++) {
    const entry_t *e = &z->entries[i];
    size_t name_len = strlen(e->name);
    unsigned char c[46];
    put32(c, 0x02014b50);
    put16(c + 4, 20); /* made by: MS-DOS-compatible, 2.0 */
    fixed_fields(c + 6, e, name_len);
    put16(c + 32, 0); /* comment */
    put16(c + 34, 0); /* disk */
    put16(c + 36, 0); /* internal attributes */
    put32(c + 38, 0); /* external attributes */
    put32(c + 42, e->offset);
    TQ_TRY(zip_emit(z, c, sizeof(c)));
    TQ_TRY(zip_emit(z, e->name, name_len));
  }
  unsigned char end[22];
  put32(end, 0x06054b50);
  put16(end + 4, 0); /* this disk */
  put16(end + 6, 0); /* the directory's disk */
  put16(end + 8, (unsigned)z->num_entries);
  put16(end + 10, (unsigned)z->num_entries);
  put32(end + 12, (uint32_t)(z->offset - dir_offset));
  put32(end + 16, (uint32_t)dir_offset);
  put16(end + 20, 0); /* comment */
  return zip_emit(z, end, sizeof(end));
}

/* ---- XML ----------------------------------------------------------------------------------- */

static tq_status_t xml_n(zip_t *z, const char *s, size_t n) {
  TQ_TRY(tq_buf_append(&z->xml, s, n));
  return z->xml.len >= XML_CHUNK ? zip_deflate(z, 0, NULL) : NULL;
}

static tq_status_t xml(zip_t *z, const char *s) { return xml_n(z, s, strlen(s)); }

static tq_status_t xml_printf(zip_t *z, const char *fmt, ...) TQ_PRINTF(2, 3);
static tq_status_t xml_printf(zip_t *z, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tq_status_t st = tq_buf_vprintf(&z->xml, fmt, ap);
  va_end(ap);
  return st ? st : z->xml.len >= XML_CHUNK ? zip_deflate(z, 0, NULL) : NULL;
}

/* A whole small part. */
static tq_status_t part(zip_t *z, const char *name, const char *text) {
  TQ_TRY(zip_begin(z, name));
  TQ_TRY(xml(z, text));
  return zip_end(z);
}

/* `<c r="` and the cell reference of column `col` (0-based, < 26) and row `row` (1-based). */
static char *cell_open(char *p, int col, uint64_t row) {
  p = tqh__put(p, "<c r=\"", 6);
  *p++ = (char)('A' + col);
  return tqh__put_u64(p, row);
}

/* A number cell as libxlsxwriter writes it ("%.16G"), integers by hand. */
static void cell_number(tq_buf_t *b, int col, uint64_t row, uint64_t v) {
  char *p = tqh__put(cell_open(b->data + b->len, col, row), "\"><v>", 5);
  if (v < 1000000000000000ull)
    p = tqh__put_u64(p, v);
  else
    p += snprintf(p, 32, "%.16G", (double)v);
  p = tqh__put(p, "</v></c>", 8);
  b->len = (size_t)(p - b->data);
}

static void cell_bool(tq_buf_t *b, int col, uint64_t row, int v) {
  char *p = tqh__put(cell_open(b->data + b->len, col, row), "\" t=\"b\"><v>", 11);
  *p++ = v ? '1' : '0';
  p = tqh__put(p, "</v></c>", 8);
  b->len = (size_t)(p - b->data);
}

/* 1: the byte needs escaping in a cell's text (&, <, >, control characters but tab and LF). */
static int needs_escape(unsigned char c) {
  return c == '&' || c == '<' || c == '>' || (c < 0x20 && c != '\t' && c != '\n');
}

/* An inline string cell (`style` 0: none), escaped as libxlsxwriter does: &, <, > as entities,
 * other control characters as _xHHHH_, and xml:space="preserve" for text that begins or ends
 * in white space. */
static tq_status_t cell_text(zip_t *z, int col, uint64_t row, const char *s, int style) {
  size_t len = strlen(s);
  if (len > XLSX_MAX_STRING)
    return TQ_STATUS(TQ_LIMIT, "cannot write %s: cell %c%llu: %zu bytes of text, more than "
                     "Excel's limit of %u", z->path, 'A' + col, (unsigned long long)row, len,
                     XLSX_MAX_STRING);
  TQ_TRY(tq_buf_reserve(&z->xml, 96 + len * 7));
  tq_buf_t *b = &z->xml;
  char *p = cell_open(b->data + b->len, col, row);
  if (style) {
    memcpy(p, "\" s=\"1", 6);
    p += 6;
  }
  static const char open[] = "\" t=\"inlineStr\"><is><t";
  memcpy(p, open, sizeof(open) - 1);
  p += sizeof(open) - 1;
  if (len && (isspace((unsigned char)s[0]) || isspace((unsigned char)s[len - 1]))) {
    static const char preserve[] = " xml:space=\"preserve\"";
    memcpy(p, preserve, sizeof(preserve) - 1);
    p += sizeof(preserve) - 1;
  }
  *p++ = '>';
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)s[i];
    if (!needs_escape(c)) {
      *p++ = (char)c;
    } else if (c == '&') {
      memcpy(p, "&amp;", 5);
      p += 5;
    } else if (c == '<' || c == '>') {
      memcpy(p, c == '<' ? "&lt;" : "&gt;", 4);
      p += 4;
    } else {
      p += snprintf(p, 8, "_x%04X_", c);
    }
  }
  static const char close[] = "</t></is></c>";
  memcpy(p, close, sizeof(close) - 1);
  p += sizeof(close) - 1;
  b->len = (size_t)(p - b->data);
  return NULL;
}

/* The width of a column of `chars` characters as Excel stores it (Calibri 11: a digit is 7
 * pixels, 5 of padding, in 1/256ths of a character). */
static double stored_width(double w) {
  unsigned pixels = (unsigned)(w * 7 + 0.5) + 5;
  return (double)(unsigned)(pixels / 7.0 * 256.0) / 256.0;
}

static tq_status_t sheet(zip_t *z, const tqh_annotation_t *ann, size_t first, size_t n,
                         const double *widths, int number) {
  char name[40];
  snprintf(name, sizeof(name), "xl/worksheets/sheet%d.xml", number);
  TQ_TRY(zip_begin(z, name));
  TQ_TRY(xml_printf(z, XML_DECL "<worksheet xmlns=\"" NS_MAIN "\" xmlns:r=\"" NS_REL "\">"
                    "<dimension ref=\"A1:O%zu\"/><sheetViews><sheetView %sworkbookViewId=\"0\">"
                    "<pane ySplit=\"1\" topLeftCell=\"A2\" activePane=\"bottomLeft\" "
                    "state=\"frozen\"/><selection pane=\"bottomLeft\"/></sheetView></sheetViews>"
                    "<sheetFormatPr defaultRowHeight=\"15\"/><cols>",
                    n + 1, number == 1 ? "tabSelected=\"1\" " : ""));
  for (int c = 0; c < NCOLS; c++)
    TQ_TRY(xml_printf(z, "<col min=\"%d\" max=\"%d\" width=\"%.16g\" customWidth=\"1\"/>", c + 1,
                      c + 1, stored_width(widths[c])));
  TQ_TRY(xml(z, "</cols><sheetData><row r=\"1\">"));
  for (int c = 0; c < NCOLS; c++) TQ_TRY(cell_text(z, c, 1, headers[c], 1));
  TQ_TRY(xml(z, "</row>"));
  for (size_t k = 0; k < n; k++) {
    const tqh_row_t *r = &ann->rows[first + k];
    uint64_t row = k + 2;
    /* Room for everything but the three free texts. */
    TQ_TRY(tq_buf_reserve(&z->xml, 1024));
    tq_buf_t *b = &z->xml;
    b->len += (size_t)snprintf(b->data + b->len, 32, "<row r=\"%llu\">", (unsigned long long)row);
    cell_number(b, 0, row, (uint64_t)r->action_id);
    if (r->job_id >= 0) cell_number(b, 1, row, (uint64_t)r->job_id);
    TQ_TRY(cell_text(z, 2, row, tqh_event_kind_name(r->kind), 0));
    if (*r->invocation_names) TQ_TRY(cell_text(z, 3, row, r->invocation_names, 0));
    if (*r->original_operators) TQ_TRY(cell_text(z, 4, row, r->original_operators, 0));
    TQ_TRY(tq_buf_reserve(&z->xml, 1024));
    b = &z->xml;
    cell_number(b, 5, row, r->end_us - r->start_us);
    for (int f = 0; f < 6; f++)
      cell_bool(b, 6 + f, row, (r->units & TQH_UNIT_BIT(flag_units[f])) != 0);
    cell_number(b, 12, row, r->start_us);
    cell_number(b, 13, row, r->end_us);
    if (*r->location) TQ_TRY(cell_text(z, 14, row, r->location, 0));
    TQ_TRY(xml(z, "</row>"));
  }
  TQ_TRY(xml_printf(z, "</sheetData><autoFilter ref=\"A1:O%zu\"/><pageMargins left=\"0.7\" "
                    "right=\"0.7\" top=\"0.75\" bottom=\"0.75\" header=\"0.3\" footer=\"0.3\"/>"
                    "</worksheet>", n + 1));
  return zip_end(z);
}

/* The sheet names: TQH_XLSX_SHEET, then "TQH_XLSX_SHEET (2)", ... */
static void sheet_name(char *out, size_t size, int number) {
  if (number == 1)
    snprintf(out, size, "%s", TQH_XLSX_SHEET);
  else
    snprintf(out, size, "%s (%d)", TQH_XLSX_SHEET, number);
}

/* The parts around the sheets, as libxlsxwriter lays them out for `sheets` sheets. */
static tq_status_t package(zip_t *z, int sheets, const size_t *rows) {
  TQ_TRY(zip_begin(z, "[Content_Types].xml"));
  TQ_TRY(xml(z, XML_DECL "<Types xmlns=\"http://schemas.openxmlformats.org/package/2006/"
             "content-types\"><Default Extension=\"rels\" ContentType=\"application/"
             "vnd.openxmlformats-package.relationships+xml\"/><Default Extension=\"xml\" "
             "ContentType=\"application/xml\"/><Override PartName=\"/docProps/app.xml\" "
             "ContentType=\"" CT_OFFICE "extended-properties+xml\"/><Override "
             "PartName=\"/docProps/core.xml\" ContentType=\"application/"
             "vnd.openxmlformats-package.core-properties+xml\"/><Override "
             "PartName=\"/xl/styles.xml\" ContentType=\"" CT_OFFICE
             "spreadsheetml.styles+xml\"/><Override PartName=\"/xl/workbook.xml\" "
             "ContentType=\"" CT_OFFICE "spreadsheetml.sheet.main+xml\"/>"));
  for (int s = 1; s <= sheets; s++)
    TQ_TRY(xml_printf(z, "<Override PartName=\"/xl/worksheets/sheet%d.xml\" ContentType=\""
                      CT_OFFICE "spreadsheetml.worksheet+xml\"/>", s));
  TQ_TRY(xml(z, "</Types>"));
  TQ_TRY(zip_end(z));

  TQ_TRY(part(z, "_rels/.rels",
              XML_DECL "<Relationships xmlns=\"" NS_PKG_REL "\"><Relationship Id=\"rId1\" "
              "Type=\"" NS_REL "/officeDocument\" Target=\"xl/workbook.xml\"/><Relationship "
              "Id=\"rId2\" Type=\"http://schemas.openxmlformats.org/package/2006/relationships/"
              "metadata/core-properties\" Target=\"docProps/core.xml\"/><Relationship "
              "Id=\"rId3\" Type=\"" NS_REL "/extended-properties\" "
              "Target=\"docProps/app.xml\"/></Relationships>"));

  TQ_TRY(zip_begin(z, "docProps/app.xml"));
  TQ_TRY(xml_printf(z, XML_DECL "<Properties xmlns=\"http://schemas.openxmlformats.org/"
                    "officeDocument/2006/extended-properties\" xmlns:vt=\"http://"
                    "schemas.openxmlformats.org/officeDocument/2006/docPropsVTypes\">"
                    "<Application>Microsoft Excel</Application><DocSecurity>0</DocSecurity>"
                    "<ScaleCrop>false</ScaleCrop><HeadingPairs><vt:vector size=\"2\" "
                    "baseType=\"variant\"><vt:variant><vt:lpstr>Worksheets</vt:lpstr>"
                    "</vt:variant><vt:variant><vt:i4>%d</vt:i4></vt:variant></vt:vector>"
                    "</HeadingPairs><TitlesOfParts><vt:vector size=\"%d\" baseType=\"lpstr\">",
                    sheets, sheets));
  for (int s = 1; s <= sheets; s++) {
    char name[48];
    sheet_name(name, sizeof(name), s);
    TQ_TRY(xml_printf(z, "<vt:lpstr>%s</vt:lpstr>", name));
  }
  TQ_TRY(xml(z, "</vt:vector></TitlesOfParts><Company></Company><LinksUpToDate>false"
             "</LinksUpToDate><SharedDoc>false</SharedDoc><HyperlinksChanged>false"
             "</HyperlinksChanged><AppVersion>12.0000</AppVersion></Properties>"));
  TQ_TRY(zip_end(z));

  char now[32];
  time_t t = time(NULL);
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(now, sizeof(now), "%Y-%m-%dT%H:%M:%SZ", &tm);
  TQ_TRY(zip_begin(z, "docProps/core.xml"));
  TQ_TRY(xml_printf(z, XML_DECL "<cp:coreProperties xmlns:cp=\"http://schemas.openxmlformats.org/"
                    "package/2006/metadata/core-properties\" xmlns:dc=\"http://purl.org/dc/"
                    "elements/1.1/\" xmlns:dcterms=\"http://purl.org/dc/terms/\" "
                    "xmlns:dcmitype=\"http://purl.org/dc/dcmitype/\" xmlns:xsi=\"http://"
                    "www.w3.org/2001/XMLSchema-instance\"><dc:creator></dc:creator>"
                    "<cp:lastModifiedBy></cp:lastModifiedBy><dcterms:created "
                    "xsi:type=\"dcterms:W3CDTF\">%s</dcterms:created><dcterms:modified "
                    "xsi:type=\"dcterms:W3CDTF\">%s</dcterms:modified></cp:coreProperties>",
                    now, now));
  TQ_TRY(zip_end(z));

  TQ_TRY(zip_begin(z, "xl/_rels/workbook.xml.rels"));
  TQ_TRY(xml(z, XML_DECL "<Relationships xmlns=\"" NS_PKG_REL "\">"));
  for (int s = 1; s <= sheets; s++)
    TQ_TRY(xml_printf(z, "<Relationship Id=\"rId%d\" Type=\"" NS_REL "/worksheet\" "
                      "Target=\"worksheets/sheet%d.xml\"/>", s, s));
  TQ_TRY(xml_printf(z, "<Relationship Id=\"rId%d\" Type=\"" NS_REL "/styles\" "
                    "Target=\"styles.xml\"/></Relationships>", sheets + 1));
  TQ_TRY(zip_end(z));

  TQ_TRY(zip_begin(z, "xl/workbook.xml"));
  TQ_TRY(xml(z, XML_DECL "<workbook xmlns=\"" NS_MAIN "\" xmlns:r=\"" NS_REL "\"><fileVersion "
             "appName=\"xl\" lastEdited=\"4\" lowestEdited=\"4\" rupBuild=\"4505\"/>"
             "<workbookPr defaultThemeVersion=\"124226\"/><bookViews><workbookView "
             "xWindow=\"240\" yWindow=\"15\" windowWidth=\"16095\" windowHeight=\"9660\"/>"
             "</bookViews><sheets>"));
  for (int s = 1; s <= sheets; s++) {
    char name[48];
    sheet_name(name, sizeof(name), s);
    TQ_TRY(xml_printf(z, "<sheet name=\"%s\" sheetId=\"%d\" r:id=\"rId%d\"/>", name, s, s));
  }
  TQ_TRY(xml(z, "</sheets><definedNames>"));
  for (int s = 1; s <= sheets; s++) {
    char name[48];
    sheet_name(name, sizeof(name), s);
    TQ_TRY(xml_printf(z, "<definedName name=\"_xlnm._FilterDatabase\" localSheetId=\"%d\" "
                      "hidden=\"1\">'%s'!$A$1:$O$%zu</definedName>", s - 1, name, rows[s - 1] + 1));
  }
  TQ_TRY(xml(z, "</definedNames><calcPr calcId=\"124519\" fullCalcOnLoad=\"1\"/></workbook>"));
  TQ_TRY(zip_end(z));

  return part(z, "xl/styles.xml",
              XML_DECL "<styleSheet xmlns=\"" NS_MAIN "\"><fonts count=\"2\"><font><sz "
              "val=\"11\"/><color theme=\"1\"/><name val=\"Calibri\"/><family val=\"2\"/><scheme "
              "val=\"minor\"/></font><font><b/><sz val=\"11\"/><color theme=\"1\"/><name "
              "val=\"Calibri\"/><family val=\"2\"/><scheme val=\"minor\"/></font></fonts><fills "
              "count=\"2\"><fill><patternFill patternType=\"none\"/></fill><fill><patternFill "
              "patternType=\"gray125\"/></fill></fills><borders count=\"1\"><border><left/>"
              "<right/><top/><bottom/><diagonal/></border></borders><cellStyleXfs count=\"1\">"
              "<xf numFmtId=\"0\" fontId=\"0\" fillId=\"0\" borderId=\"0\"/></cellStyleXfs>"
              "<cellXfs count=\"2\"><xf numFmtId=\"0\" fontId=\"0\" fillId=\"0\" borderId=\"0\" "
              "xfId=\"0\"/><xf numFmtId=\"0\" fontId=\"1\" fillId=\"0\" borderId=\"0\" "
              "xfId=\"0\" applyFont=\"1\"/></cellXfs><cellStyles count=\"1\"><cellStyle "
              "name=\"Normal\" xfId=\"0\" builtinId=\"0\"/></cellStyles><dxfs count=\"0\"/>"
              "<tableStyles count=\"0\" defaultTableStyle=\"TableStyleMedium9\" "
              "defaultPivotStyle=\"PivotStyleLight16\"/></styleSheet>");
}

/* ---- The workbook -------------------------------------------------------------------------- */

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

/* Column widths that fit every cell (rows repeat their texts: a text is measured when it
 * differs from the previous row's). */
static void column_widths(const tqh_annotation_t *ann, double *widths) {
  for (int c = 0; c < NCOLS; c++) widths[c] = 0;
  for (int c = 0; c < NCOLS; c++) fit(&widths[c], text_width(headers[c]) + 2 /* filter button */);
  const char *last[3] = {NULL, NULL, NULL};
  for (size_t i = 0; i < ann->num_rows; i++) {
    const tqh_row_t *r = &ann->rows[i];
    fit(&widths[0], digits((uint64_t)r->action_id));
    if (r->job_id >= 0) fit(&widths[1], digits((uint64_t)r->job_id));
    fit(&widths[2], strlen(tqh_event_kind_name(r->kind)));
    const char *texts[3] = {r->invocation_names, r->original_operators, r->location};
    static const int cols[3] = {3, 4, 14};
    for (int t = 0; t < 3; t++) {
      if (texts[t] == last[t]) continue;
      last[t] = texts[t];
      fit(&widths[cols[t]], text_width(texts[t]));
    }
    fit(&widths[5], digits(r->end_us - r->start_us));
    fit(&widths[12], digits(r->start_us));
    fit(&widths[13], digits(r->end_us));
  }
}

tq_status_t tqh_annotation_write_xlsx(const tqh_annotation_t *ann, const char *path) {
  double widths[NCOLS];
  column_widths(ann, widths);
  const size_t per_sheet = XLSX_MAX_ROWS - 1;
  int sheets = ann->num_rows ? (int)((ann->num_rows + per_sheet - 1) / per_sheet) : 1;
  size_t *rows = tq_calloc((size_t)sheets, sizeof(*rows));
  zip_t z;
  memset(&z, 0, sizeof(z));
  z.path = path;
  tq_buf_init(&z.xml, 0);
  tq_status_t st = NULL;
  if (!rows) st = TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory writing %s", path);
  if (!st) st = tqh_out_file_open(&z.out, path);
  int opened = !st;
  if (!st) st = tq_buf_reserve(&z.xml, XML_CHUNK + 4096);
  for (int s = 0; !st && s < sheets; s++) {
    size_t first = (size_t)s * per_sheet;
    rows[s] = ann->num_rows - first < per_sheet ? ann->num_rows - first : per_sheet;
    st = sheet(&z, ann, first, rows[s], widths, s + 1);
  }
  if (!st) st = package(&z, sheets, rows);
  if (!st) st = zip_finish(&z);
  if (!st) st = tqh_out_file_commit(&z.out);
  else if (opened) tqh_out_file_abort(&z.out);
  for (size_t i = 0; i < z.num_entries; i++) tq_free(z.entries[i].name);
  tq_free(z.entries);
  tq_free(z.level_buf);
  tq_free(rows);
  tq_buf_deinit(&z.xml);
  return st;
}
