/* The runtime profile CSV reader: one pass over the bytes, fields split by hand (no stdio, no
 * locale), so that a profile of a million events reads in about the time of reading the file. */
#include <stdio.h>
#include <string.h>

#include "torq/base/alloc.h"
#include "torq/base/file.h"
#include "torq/harness/profile_csv.h"
#include "torq/runtime/profile.h"

/* Profiles are text files of a few bytes per event; this only refuses the absurd. */
#define TQH_PROFILE_MAX_BYTES ((size_t)4 << 30)

const char *tqh_event_kind_name(uint8_t kind) {
  const char *name = tqr_event_kind_name(kind); /* the runtime writes the CSV: its names */
  return name ? name : "?";
}

void tqh_event_name(uint8_t kind, uint8_t edge, char out[32]) {
  const char *k = tqh_event_kind_name(kind);
  if (edge == TQR_EDGE_BEGIN)
    snprintf(out, 32, "%s_BEGIN", k);
  else if (edge == TQR_EDGE_END)
    snprintf(out, 32, "%s_END", k);
  else
    snprintf(out, 32, "%s", k);
}

void tqh_profile_init(tqh_profile_t *profile) {
  memset(profile, 0, sizeof(*profile));
}

void tqh_profile_deinit(tqh_profile_t *profile) {
  tq_free(profile->path);
  tq_free(profile->events);
  for (size_t i = 0; i < profile->num_dispatches; i++) tq_free(profile->dispatch_names[i]);
  tqh_profile_init(profile);
}

static tq_status_t oom(void) {
  return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory while reading a profile");
}

/* Parses an unsigned decimal that fits `max`; 1 on success. */
static int parse_u64(const char *s, size_t n, uint64_t max, uint64_t *out) {
  if (n == 0 || n > 20) return 0;
  uint64_t v = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned d = (unsigned)(unsigned char)s[i] - '0';
    if (d > 9 || d > max) return 0;
    if (v > (max - d) / 10) return 0;
    v = v * 10 + d;
  }
  *out = v;
  return 1;
}

/* The event column: a kind and an edge. 1 on success, 0 unknown; *out_phase_like is set when the
 * text has the form NAME_BEGIN / NAME_END of an unknown phase. */
static int parse_event(const char *s, size_t n, uint8_t *kind, uint8_t *edge, int *phase_like) {
  *phase_like = 0;
  size_t base = n;
  uint8_t e = TQR_EDGE_POINT;
  if (n > 6 && memcmp(s + n - 6, "_BEGIN", 6) == 0) {
    base = n - 6;
    e = TQR_EDGE_BEGIN;
  } else if (n > 4 && memcmp(s + n - 4, "_END", 4) == 0) {
    base = n - 4;
    e = TQR_EDGE_END;
  }
  for (uint8_t k = 1; k < TQR_EVENT_KIND_COUNT; k++) {
    const char *name = tqr_event_kind_name(k);
    size_t len = name ? strlen(name) : 0;
    if (!name || len != base || memcmp(s, name, len) != 0) continue;
    if ((k == TQR_EVENT_ERROR) != (e == TQR_EDGE_POINT)) return 0;
    *kind = k;
    *edge = e;
    return 1;
  }
  if (e != TQR_EDGE_POINT && base > 0) {
    *phase_like = 1;
    for (size_t i = 0; i < base; i++)
      if (!((s[i] >= 'A' && s[i] <= 'Z') || s[i] == '_' || (s[i] >= '0' && s[i] <= '9')))
        *phase_like = 0;
  }
  return 0;
}

/* A field for a message: at most 100 bytes, control bytes as '?'. */
static void shown(const char *s, size_t n, char out[112]) {
  size_t m = n > 100 ? 100 : n;
  for (size_t i = 0; i < m; i++) {
    unsigned char c = (unsigned char)s[i];
    out[i] = c < 0x20 || c == 0x7F ? '?' : (char)c;
  }
  if (n > 100) {
    memcpy(out + m, "...", 3);
    m += 3;
  }
  out[m] = 0;
}

static int dispatch_index(tqh_profile_t *p, const char *s, size_t n, int *out_index) {
  for (size_t i = p->num_dispatches; i-- > 0;) {
    if (strlen(p->dispatch_names[i]) == n && memcmp(p->dispatch_names[i], s, n) == 0) {
      *out_index = (int)i;
      return 1;
    }
  }
  if (p->num_dispatches == TQH_PROFILE_MAX_DISPATCHES) return 0;
  char *copy = tq_strndup(s, n);
  if (!copy) return -1;
  p->dispatch_names[p->num_dispatches] = copy;
  *out_index = (int)p->num_dispatches++;
  return 1;
}

static tq_status_t push(tqh_profile_t *p, const tqh_profile_event_t *e) {
  if (p->count == p->cap) {
    size_t cap = p->cap ? p->cap * 2 : 1024;
    if (cap > SIZE_MAX / sizeof(*p->events)) return oom();
    tqh_profile_event_t *ev = tq_realloc(p->events, cap * sizeof(*ev));
    if (!ev) return oom();
    p->events = ev;
    p->cap = cap;
  }
  p->events[p->count++] = *e;
  return NULL;
}

/* Parses one data line (without its end of line). Bad rows are reported and dropped. */
static tq_status_t parse_row(tqh_profile_t *p, tqh_diags_t *d, uint32_t line, const char *s,
                             size_t n) {
  const char *f[6];
  size_t len[6];
  size_t nf = 0;
  const char *start = s, *end = s + n;
  for (const char *c = s;; c++) {
    if (c == end || *c == ',') {
      if (nf < 6) {
        f[nf] = start;
        len[nf] = (size_t)(c - start);
      }
      nf++;
      start = c + 1;
      if (c == end) break;
    }
  }
  char a[112], b[112];
  if (n == 0) {
    tqh_diags_add(d, TQH_ERROR, p->path, line, "empty line: expected 5 columns (%s)",
                  TQH_PROFILE_HEADER);
    return NULL;
  }
  if (nf != 5) {
    tqh_diags_add(d, TQH_ERROR, p->path, line, "%zu columns, expected 5 (%s); row skipped", nf,
                  TQH_PROFILE_HEADER);
    return NULL;
  }
  tqh_profile_event_t e;
  memset(&e, 0, sizeof(e));
  e.line = line;
  uint64_t v;
  if (len[0] == 0) {
    tqh_diags_add(d, TQH_ERROR, p->path, line, "empty dispatch_name; row skipped");
    return NULL;
  }
  if (!parse_u64(f[1], len[1], UINT32_MAX, &v)) {
    shown(f[1], len[1], a);
    tqh_diags_add(d, TQH_ERROR, p->path, line,
                  "invocation_id '%s' is not an unsigned 32-bit integer; row skipped", a);
    return NULL;
  }
  e.invocation_id = (uint32_t)v;
  int negative = len[2] > 0 && f[2][0] == '-';
  if (!parse_u64(f[2] + negative, len[2] - (size_t)negative, negative ? 1 : INT32_MAX, &v) ||
      (negative && v != 1)) {
    shown(f[2], len[2], a);
    tqh_diags_add(d, TQH_ERROR, p->path, line,
                  "action_id '%s' is not -1 or an action id (0 to 2147483647); row skipped", a);
    return NULL;
  }
  e.action_id = negative ? -1 : (int32_t)v;
  if (!parse_u64(f[3], len[3], UINT64_MAX / 1000, &e.timestamp_us)) {
    shown(f[3], len[3], a);
    tqh_diags_add(d, TQH_ERROR, p->path, line,
                  "timestamp_us '%s' is not an unsigned integer of microseconds; row skipped", a);
    return NULL;
  }
  int phase_like;
  if (!parse_event(f[4], len[4], &e.kind, &e.edge, &phase_like)) {
    shown(f[4], len[4], a);
    if (phase_like && e.action_id == -1)
      tqh_diags_add(d, TQH_WARNING, p->path, line, "unknown phase event '%s' ignored", a);
    else
      tqh_diags_add(d, TQH_ERROR, p->path, line,
                    "unknown event '%s' (expected <KIND>_BEGIN or <KIND>_END for an action kind "
                    "or phase, or ERROR); row skipped",
                    a);
    return NULL;
  }
  int is_phase = e.kind == TQR_EVENT_INIT || e.kind == TQR_EVENT_DISPATCH;
  if (is_phase && e.action_id != -1) {
    tqh_diags_add(d, TQH_ERROR, p->path, line, "phase event %s with action_id %d, expected -1; "
                  "row skipped", tqh_event_kind_name(e.kind), (int)e.action_id);
    return NULL;
  }
  if (!is_phase && e.kind != TQR_EVENT_ERROR && e.action_id < 0) {
    tqh_diags_add(d, TQH_ERROR, p->path, line,
                  "action event %s with action_id -1, expected an action id; row skipped",
                  tqh_event_kind_name(e.kind));
    return NULL;
  }
  int idx = 0;
  int r = dispatch_index(p, f[0], len[0], &idx);
  if (r < 0) return oom();
  if (r == 0) {
    shown(f[0], len[0], b);
    tqh_diags_add(d, TQH_ERROR, p->path, line,
                  "dispatch '%s': more than %d dispatch names in one profile; row skipped", b,
                  TQH_PROFILE_MAX_DISPATCHES);
    return NULL;
  }
  e.dispatch = (uint16_t)idx;
  return push(p, &e);
}

tq_status_t tqh_profile_parse(const char *name, const char *data, size_t len, tqh_diags_t *diags,
                              tqh_profile_t *out) {
  tqh_profile_init(out);
  const char *nm = name ? name : "<profile>";
  out->path = tq_strndup(nm, strlen(nm));
  if (!out->path) return oom();
  const char *p = data ? data : "", *end = p + (data ? len : 0);
  if (end - p >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0) p += 3;
  int blank = 1;
  for (const char *c = p; c < end; c++)
    if (*c != '\n' && *c != '\r' && *c != ' ' && *c != '\t') {
      blank = 0;
      break;
    }
  if (blank) {
    tqh_diags_add(diags, TQH_ERROR, out->path, 1, "empty file: expected the header '%s' and "
                  "events (was the run profiled with --torq_profile_host?)", TQH_PROFILE_HEADER);
    return NULL;
  }
  uint32_t line = 0;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *eol = nl ? nl : end;
    size_t n = (size_t)(eol - p);
    if (n && p[n - 1] == '\r') n--;
    if (line < UINT32_MAX) line++;
    if (memchr(p, '\0', n)) {
      tqh_diags_add(diags, TQH_ERROR, out->path, line, "NUL byte in a text file; row skipped");
    } else if (line == 1) {
      size_t hl = strlen(TQH_PROFILE_HEADER);
      if (n != hl || memcmp(p, TQH_PROFILE_HEADER, hl) != 0) {
        char a[112];
        shown(p, n, a);
        size_t cols = 1;
        for (size_t i = 0; i < n; i++) cols += p[i] == ',';
        if (n >= 15 && memcmp(p, "dispatch_name,", 14) == 0) {
          tqh_diags_add(diags, TQH_ERROR, out->path, 1,
                        "header '%s' (%zu columns) differs from '%s'; reading the rows as "
                        "those 5 columns",
                        a, cols, TQH_PROFILE_HEADER);
        } else {
          tqh_diags_add(diags, TQH_ERROR, out->path, 1,
                        "no header: expected '%s'; reading this line as a row",
                        TQH_PROFILE_HEADER);
          TQ_TRY(parse_row(out, diags, line, p, n));
        }
      }
    } else if (!(nl == NULL && n == 0)) {
      TQ_TRY(parse_row(out, diags, line, p, n));
    }
    if (!nl) break;
    p = nl + 1;
  }
  out->lines = line;
  if (out->count == 0 && diags->errors == 0)
    tqh_diags_add(diags, TQH_WARNING, out->path, 0, "the profile holds no events");
  return NULL;
}

tq_status_t tqh_profile_read(const char *path, tqh_diags_t *diags, tqh_profile_t *out) {
  tqh_profile_init(out);
  tq_buf_t buf;
  tq_status_t st = tq_file_read(path, TQH_PROFILE_MAX_BYTES, &buf);
  if (!st) st = tqh_profile_parse(path, buf.data, buf.len, diags, out);
  tq_buf_deinit(&buf);
  return st;
}
