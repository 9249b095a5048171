/* Compile-time-only mode of torq-annotate: the compile-time trace CSV (DESIGN 5.2) as a Perfetto
 * trace (perfetto.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "annotate_internal.h"
#include "torq/base/alloc.h"
#include "torq/base/file.h"
#include "torq/formats/module.h"
#include "torq/harness/perfetto.h"

#define MAX_LANES 8
#define TRACE_CSV_HEADER "ID,Start,End,Location,Op Type"

enum { K_DI, K_DO, K_CDMA, K_CSS, K_S, K_COUNT };
static const char *const kind_prefix[K_COUNT] = {"DI", "DO", "CDMA", "CSS", "S"};
static const char *const kind_track[K_COUNT] = {"NDMA In", "NDMA Out", "CDMA", "CSS", NULL};

typedef struct row_s {
  char name[96];
  uint64_t start, end;
  int kind, lane;
} row_t;

/* Splits one CSV record (RFC 4180 quoting, no embedded line breaks) into up to `max` fields,
 * unquoted in place into `buf`. Returns the field count, or -1 for a malformed quote. */
static int split(const char *s, size_t n, char *buf, char **fields, int max) {
  int nf = 0;
  size_t i = 0, o = 0;
  for (;;) {
    if (nf < max) fields[nf] = buf + o;
    if (i < n && s[i] == '"') {
      i++;
      for (;;) {
        if (i >= n) return -1;
        if (s[i] == '"') {
          if (i + 1 < n && s[i + 1] == '"') {
            buf[o++] = '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        buf[o++] = s[i++];
      }
      if (i < n && s[i] != ',') return -1;
    } else {
      while (i < n && s[i] != ',') buf[o++] = s[i++];
    }
    buf[o++] = 0;
    nf++;
    if (i >= n) break;
    i++; /* the comma */
  }
  return nf;
}

static int id_kind(const char *id) {
  size_t p = 0;
  while (id[p] >= 'A' && id[p] <= 'Z') p++;
  if (!id[p]) return -1;
  for (int k = 0; k < K_COUNT; k++)
    if (strlen(kind_prefix[k]) == p && memcmp(id, kind_prefix[k], p) == 0) return k;
  return -1;
}

static tq_status_t parse(const char *path, const char *data, size_t len, tqh_diags_t *diags,
                         row_t **out_rows, size_t *out_count) {
  row_t *rows = NULL;
  size_t count = 0, cap = 0;
  char *buf = tq_malloc(len + 8);
  if (!buf) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory reading %s", path);
  const char *p = data, *end = data + len;
  uint32_t line = 0;
  tq_status_t st = NULL;
  while (p < end && !st) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t n = (size_t)((nl ? nl : end) - p);
    if (n && p[n - 1] == '\r') n--;
    line++;
    const char *s = p;
    p = nl ? nl + 1 : end;
    if (line == 1) {
      if (n != strlen(TRACE_CSV_HEADER) || memcmp(s, TRACE_CSV_HEADER, n) != 0)
        tqh_diags_add(diags, TQH_ERROR, path, 1, "expected the header '%s'", TRACE_CSV_HEADER);
      else
        continue;
    }
    if (n == 0) continue;
    char *f[6];
    int nf = split(s, n, buf, f, 6);
    if (nf != 5) {
      if (nf < 0)
        tqh_diags_add(diags, TQH_ERROR, path, line, "malformed quoted field; row skipped");
      else
        tqh_diags_add(diags, TQH_ERROR, path, line, "%d columns, expected 5 (%s); row skipped",
                      nf, TRACE_CSV_HEADER);
      continue;
    }
    row_t r;
    memset(&r, 0, sizeof(r));
    r.kind = id_kind(f[0]);
    if (r.kind < 0) {
      tqh_diags_add(diags, TQH_ERROR, path, line,
                    "unknown ID '%.40s' (expected DI<n>, DO<n>, S<n>, CDMA<n> or CSS<n>); row "
                    "skipped", f[0]);
      continue;
    }
    if (!tq_parse_u64(f[1], 10, &r.start) || !tq_parse_u64(f[2], 10, &r.end) || r.end < r.start) {
      tqh_diags_add(diags, TQH_ERROR, path, line,
                    "Start '%.24s' and End '%.24s' must be cycles with End >= Start; row skipped",
                    f[1], f[2]);
      continue;
    }
    int unit_op = !strcmp(f[4], tqf_unit_name(TORQ__UNIT__DMA_IN)) ||
                  !strcmp(f[4], tqf_unit_name(TORQ__UNIT__DMA_OUT)) ||
                  !strcmp(f[4], tqf_unit_name(TORQ__UNIT__CDMA)) ||
                  !strcmp(f[4], tqf_unit_name(TORQ__UNIT__CSS)) || !*f[4];
    if (!unit_op)
      snprintf(r.name, sizeof(r.name), "%.40s %.40s", f[0], f[4]);
    else
      snprintf(r.name, sizeof(r.name), "%.40s", f[0]);
    if (count == cap) {
      size_t ncap = cap ? cap * 2 : 256;
      row_t *nr = tq_realloc(rows, ncap * sizeof(*nr));
      if (!nr) {
        st = TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory reading %s", path);
        break;
      }
      rows = nr;
      cap = ncap;
    }
    rows[count++] = r;
  }
  tq_free(buf);
  if (st) {
    tq_free(rows);
    return st;
  }
  if (line == 0) tqh_diags_add(diags, TQH_ERROR, path, 1, "empty file: expected '%s'", TRACE_CSV_HEADER);
  *out_rows = rows;
  *out_count = count;
  return NULL;
}

static uint64_t to_ns(uint64_t cycles, uint64_t clock_hz) {
  return (uint64_t)(((unsigned __int128)cycles * 1000000000u + clock_hz / 2) / clock_hz);
}

tq_status_t tqh_compile_trace_to_perfetto(const char *csv_path, uint64_t clock_hz,
                                          const char *out_path, tqh_diags_t *diags) {
  if (clock_hz == 0) clock_hz = 800000000u;
  tq_buf_t text;
  tq_status_t st = tq_file_read(csv_path, (size_t)1 << 31, &text);
  row_t *rows = NULL;
  size_t count = 0;
  if (!st) st = parse(csv_path, text.data ? text.data : "", text.len, diags, &rows, &count);
  tq_buf_deinit(&text);
  if (st) return st;
  /* Slice rows go to the lowest lane free at their start. */
  uint64_t lane_end[MAX_LANES] = {0};
  int lanes = 0;
  for (size_t i = 0; i < count; i++) {
    if (rows[i].kind != K_S) continue;
    int l = 0;
    while (l < lanes && lane_end[l] > rows[i].start) l++;
    if (l == MAX_LANES) l = MAX_LANES - 1;
    if (l == lanes) lanes++;
    lane_end[l] = rows[i].end;
    rows[i].lane = l;
  }
  tqh__pf_writer_t w;
  tqh__pf_init(&w);
  tqh__pf_track_t root, unit[K_COUNT], slice[MAX_LANES];
  st = tqh__pf_track(&w, &root, 1, 0, TQH_TRACK_NPU);
  for (int k = 0; !st && k < K_S; k++) st = tqh__pf_track(&w, &unit[k], 10 + (uint64_t)k, 1, kind_track[k]);
  for (int l = 0; !st && l < lanes; l++) {
    char name[32];
    snprintf(name, sizeof(name), "Slice %d", l);
    st = tqh__pf_track(&w, &slice[l], 100 + (uint64_t)l, 1, name);
  }
  for (size_t i = 0; !st && i < count; i++) {
    const row_t *r = &rows[i];
    tqh__pf_track_t *t = r->kind == K_S ? &slice[r->lane] : &unit[r->kind];
    st = tqh__pf_slice(&w, t, to_ns(r->start, clock_hz), to_ns(r->end, clock_hz), r->name);
  }
  if (!st) st = tqh__write_file(out_path, w.out.data, w.out.len);
  tqh__pf_deinit(&w);
  tq_free(rows);
  return st;
}
