/* The runtime profile CSV reader: one pass over the bytes, fields split by hand (no stdio, no
 * locale), so that a profile of a million events reads in about the time of reading the file. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "annotate_internal.h"
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

void tqh_event_name(uint8_t kind, uint8_t edge, char out[TQR_EVENT_NAME_SIZE]) {
  const char *k = tqh_event_kind_name(kind);
  if (edge == TQR_EDGE_BEGIN)
    snprintf(out, TQR_EVENT_NAME_SIZE, "%s_BEGIN", k);
  else if (edge == TQR_EDGE_END)
    snprintf(out, TQR_EVENT_NAME_SIZE, "%s_END", k);
  else
    snprintf(out, TQR_EVENT_NAME_SIZE, "%s", k);
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

/* What the event column holds. */
typedef enum event_text_e {
  EVENT_KNOWN,   /* a kind and an edge */
  EVENT_UNKNOWN, /* NAME_BEGIN, NAME_END or NAME of a type we do not know: *out_type is NAME */
  EVENT_BAD,     /* anything else: a known type with a wrong suffix, lower case, ... */
} event_text_t;

/* The event column: a kind and an edge, or the type name (its length in *out_type_len) of an
 * event type we do not know. */
static event_text_t parse_event(const char *s, size_t n, uint8_t *kind, uint8_t *edge,
                                size_t *out_type_len) {
  size_t base = n;
  uint8_t e = TQR_EDGE_POINT;
  if (n > 6 && memcmp(s + n - 6, "_BEGIN", 6) == 0) {
    base = n - 6;
    e = TQR_EDGE_BEGIN;
  } else if (n > 4 && memcmp(s + n - 4, "_END", 4) == 0) {
    base = n - 4;
    e = TQR_EDGE_END;
  }
  for (size_t i = 0; i < n; i++) /* the whole text, suffix included: A-Z, 0-9 and '_' */
    if (!((s[i] >= 'A' && s[i] <= 'Z') || s[i] == '_' || (s[i] >= '0' && s[i] <= '9')))
      return EVENT_BAD;
  if (!n || s[0] == '_') return EVENT_BAD;
  /* Most rows are told apart by the first byte, before any length is taken. */
  for (uint8_t k = 1; k < TQR_EVENT_KIND_COUNT; k++) {
    const char *name = tqr_event_kind_name(k);
    if (!name || name[0] != s[0]) continue;
    size_t len = strlen(name);
    if (len == n && e == TQR_EDGE_POINT && k != TQR_EVENT_ERROR && !memcmp(s, name, n))
      return EVENT_BAD; /* a known type without its _BEGIN or _END */
    if (len != base || memcmp(s, name, len) != 0) continue;
    if ((k == TQR_EVENT_ERROR) != (e == TQR_EDGE_POINT)) return EVENT_BAD;
    *kind = k;
    *edge = e;
    return EVENT_KNOWN;
  }
  *out_type_len = base;
  return EVENT_UNKNOWN;
}

/* What parse_event said of the event texts seen so far: a profile holds a few dozen distinct ones
 * on a million rows, so each is parsed once. Direct-mapped by a hash of the text; a text longer
 * than an entry holds is parsed every time. */
#define EVENT_CACHE_SIZE 256
#define EVENT_CACHE_TEXT 40
typedef struct event_cache_s {
  struct {
    uint8_t len; /* 0: empty */
    uint8_t kind, edge, result;
    uint8_t type_len;
    char text[EVENT_CACHE_TEXT];
  } e[EVENT_CACHE_SIZE];
} event_cache_t;

static event_text_t parse_event_cached(event_cache_t *cache, const char *s, size_t n,
                                       uint8_t *kind, uint8_t *edge, size_t *out_type_len) {
  if (n == 0 || n >= EVENT_CACHE_TEXT) return parse_event(s, n, kind, edge, out_type_len);
  unsigned h = (unsigned)n * 31u + (unsigned char)s[0] * 7u + (unsigned char)s[n / 2] * 13u +
               (unsigned char)s[n - 1] * 3u + (unsigned char)s[n - 2 < n ? n - 2 : 0];
  h &= EVENT_CACHE_SIZE - 1;
  if (cache->e[h].len == n && memcmp(cache->e[h].text, s, n) == 0) {
    *kind = cache->e[h].kind;
    *edge = cache->e[h].edge;
    *out_type_len = cache->e[h].type_len;
    return (event_text_t)cache->e[h].result;
  }
  size_t type_len = 0;
  event_text_t r = parse_event(s, n, kind, edge, &type_len);
  *out_type_len = type_len;
  cache->e[h].len = (uint8_t)n;
  cache->e[h].kind = r == EVENT_KNOWN ? *kind : 0;
  cache->e[h].edge = r == EVENT_KNOWN ? *edge : 0;
  cache->e[h].result = (uint8_t)r;
  cache->e[h].type_len = (uint8_t)type_len; /* < n < EVENT_CACHE_TEXT */
  memcpy(cache->e[h].text, s, n);
  return r;
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

/* What a parse carries from row to row. */
typedef struct parse_state_s {
  event_cache_t events;
  int last_dispatch; /* -1: none yet; rows of one dispatch run come together */
  size_t last_dispatch_len;
  tqh__profile_stream_t *stream; /* NULL, or the annotation reading the events as they come */
  size_t consumed;               /* the stream's, when last seen */
} parse_state_t;

static int dispatch_index(tqh_profile_t *p, parse_state_t *ps, const char *s, size_t n,
                          int *out_index) {
  if (ps->last_dispatch >= 0 && ps->last_dispatch_len == n &&
      memcmp(p->dispatch_names[ps->last_dispatch], s, n) == 0) {
    *out_index = ps->last_dispatch;
    return 1;
  }
  for (size_t i = p->num_dispatches; i-- > 0;) {
    if (strlen(p->dispatch_names[i]) == n && memcmp(p->dispatch_names[i], s, n) == 0) {
      *out_index = ps->last_dispatch = (int)i;
      ps->last_dispatch_len = n;
      return 1;
    }
  }
  if (p->num_dispatches == TQH_PROFILE_MAX_DISPATCHES) return 0;
  char *copy = tq_strndup(s, n);
  if (!copy) return -1;
  p->dispatch_names[p->num_dispatches] = copy;
  *out_index = ps->last_dispatch = (int)p->num_dispatches++;
  ps->last_dispatch_len = n;
  return 1;
}

size_t tqh__stream_ring = (size_t)1 << 18;

/* Waits for a free place in the ring (publishing what is there first); an error when the
 * annotation stopped. */
/* Publishes the events parsed so far (all of them with `done`): with `wait`, then waits for a
 * free place in the ring (ps->consumed is then the stream's). 1 when the annotation wants no
 * more. */
static int publish(tqh__profile_stream_t *s, size_t count, int done, int wait,
                   size_t *consumed) {
  pthread_mutex_lock(&s->mu);
  s->published = count;
  s->done = done;
  pthread_cond_signal(&s->cv);
  while (wait && count - s->consumed >= tqh__stream_ring && !s->stop)
    pthread_cond_wait(&s->room, &s->mu);
  if (consumed) *consumed = s->consumed;
  int stop = s->stop;
  pthread_mutex_unlock(&s->mu);
  return stop;
}

static tq_status_t push(tqh_profile_t *p, parse_state_t *ps, const tqh_profile_event_t *e) {
  if (ps->stream) {
    if (p->count - ps->consumed >= tqh__stream_ring &&
        publish(ps->stream, p->count, 0, 1, &ps->consumed))
      return TQ_STATUS(TQ_CANCELLED, "the annotation of %s stopped", p->path);
    p->events[p->count++ % tqh__stream_ring] = *e;
    return NULL;
  }
  if (p->count == p->cap) {
    size_t cap = p->cap ? p->cap * 2 : 1024;
    if (cap > SIZE_MAX / sizeof(*p->events)) return oom();
    tqh_profile_event_t *ev = tq_realloc_huge(p->events, cap * sizeof(*ev));
    if (!ev) return oom();
    p->events = ev;
    p->cap = cap;
  }
  p->events[p->count++] = *e;
  return NULL;
}

/* The event types a profile holds that we do not know: counted, and reported once (a newer
 * runtime's profile has them on every row). */
#define MAX_UNKNOWN_NAMED 8
typedef struct unknown_s {
  char names[MAX_UNKNOWN_NAMED][40];
  size_t counts[MAX_UNKNOWN_NAMED];
  size_t named;
  uint32_t first_line;
} unknown_t;

static void count_unknown(tqh_profile_t *p, unknown_t *u, uint32_t line, const char *type,
                          size_t len) {
  if (!p->unknown_rows++) u->first_line = line;
  char name[40];
  size_t m = len < sizeof(name) - 1 ? len : sizeof(name) - 1;
  memcpy(name, type, m);
  name[m] = 0;
  for (size_t i = 0; i < u->named; i++)
    if (!strcmp(u->names[i], name)) {
      u->counts[i]++;
      return;
    }
  if (u->named < MAX_UNKNOWN_NAMED) {
    memcpy(u->names[u->named], name, m + 1);
    u->counts[u->named++] = 1;
  }
}

static void report_unknown(tqh_profile_t *p, const unknown_t *u, tqh_diags_t *d) {
  if (!p->unknown_rows) return;
  char list[512];
  size_t pos = 0, listed = 0;
  list[0] = 0;
  for (size_t i = 0; i < u->named && pos < sizeof(list); i++) {
    int w = snprintf(list + pos, sizeof(list) - pos, "%s%s (%zu)", i ? ", " : "", u->names[i],
                     u->counts[i]);
    if (w < 0) break;
    pos += (size_t)w;
    listed += u->counts[i];
  }
  tqh_diags_add(d, TQH_WARNING, p->path, u->first_line,
                "%zu row%s of event types this reader does not know ignored: %s%s",
                p->unknown_rows, p->unknown_rows == 1 ? "" : "s", list,
                listed < p->unknown_rows ? ", and others" : "");
}

/* The digits of s from *i up to the next ',' (or the end): 1 when there are 1 to 18 of them and
 * nothing else; *i is then at the ','. */
static int fast_u64(const char *s, size_t n, size_t *i, uint64_t *out) {
  size_t k = *i;
  uint64_t v = 0;
  for (; k < n && s[k] != ','; k++) {
    unsigned d = (unsigned)(unsigned char)s[k] - '0';
    if (d > 9 || k - *i >= 18) return 0;
    v = v * 10 + d;
  }
  if (k == *i) return 0;
  *i = k;
  *out = v;
  return 1;
}

/* The common row, `name,123,45,678,EVENT_END` with every number within its range, split and
 * parsed in one go: 1 when it is one (fields in f and len, numbers in e); else the general path
 * of parse_row says what is wrong. */
static int fast_split(const char *s, size_t n, const char **f, size_t *len,
                      tqh_profile_event_t *e) {
  const char *c = memchr(s, ',', n);
  if (!c || c == s) return 0;
  size_t i = (size_t)(c - s) + 1;
  uint64_t inv, action, ts;
  f[1] = s + i;
  if (!fast_u64(s, n, &i, &inv) || inv > UINT32_MAX || i == n) return 0;
  i++;
  f[2] = s + i;
  int negative = i < n && s[i] == '-';
  if (negative) {
    if (i + 2 > n || s[i + 1] != '1' || (i + 2 < n && s[i + 2] != ',')) return 0;
    i += 2;
    action = 0;
  } else if (!fast_u64(s, n, &i, &action) || action > INT32_MAX) {
    return 0;
  }
  if (i == n) return 0;
  i++;
  f[3] = s + i;
  if (!fast_u64(s, n, &i, &ts) || ts > UINT64_MAX / 1000 || i == n) return 0;
  i++;
  if (memchr(s + i, ',', n - i)) return 0;
  f[0] = s;
  len[0] = (size_t)(c - s);
  f[4] = s + i;
  len[4] = n - i;
  e->invocation_id = (uint32_t)inv;
  e->action_id = negative ? -1 : (int32_t)action;
  e->timestamp_us = ts;
  return 1;
}

static tq_status_t parse_checked(tqh_profile_t *p, parse_state_t *ps, tqh_diags_t *d,
                                 unknown_t *u, tqh_profile_event_t *ev, const char *const *f,
                                 const size_t *len);

/* Parses one data line (without its end of line). Bad rows are reported and dropped. */
static tq_status_t parse_row(tqh_profile_t *p, parse_state_t *ps, tqh_diags_t *d, unknown_t *u,
                             uint32_t line, const char *s, size_t n) {
  const char *f[6];
  size_t len[6];
  tqh_profile_event_t e;
  memset(&e, 0, sizeof(e));
  e.line = line;
  if (fast_split(s, n, f, len, &e)) return parse_checked(p, ps, d, u, &e, f, len);
  size_t nf = 0;
  const char *start = s, *end = s + n;
  for (;;) {
    const char *c = memchr(start, ',', (size_t)(end - start));
    if (!c) c = end;
    if (nf < 6) {
      f[nf] = start;
      len[nf] = (size_t)(c - start);
    }
    nf++;
    if (c == end) break;
    start = c + 1;
  }
  char a[112];
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
  return parse_checked(p, ps, d, u, &e, f, len);
}

/* The rest of a row whose numbers are parsed: the event and the dispatch. */
static tq_status_t parse_checked(tqh_profile_t *p, parse_state_t *ps, tqh_diags_t *d,
                                 unknown_t *u, tqh_profile_event_t *ev, const char *const *f,
                                 const size_t *len) {
  tqh_profile_event_t e = *ev;
  uint32_t line = e.line;
  char a[112], b[112];
  size_t type_len = 0;
  event_text_t et = parse_event_cached(&ps->events, f[4], len[4], &e.kind, &e.edge, &type_len);
  if (et == EVENT_UNKNOWN) {
    count_unknown(p, u, line, f[4], type_len);
    return NULL;
  }
  if (et == EVENT_BAD) {
    shown(f[4], len[4], a);
    tqh_diags_add(d, TQH_ERROR, p->path, line,
                  "unknown event '%s' (expected <TYPE>_BEGIN or <TYPE>_END, TYPE in capitals, or "
                  "ERROR); row skipped",
                  a);
    return NULL;
  }
  tqr_event_class_t cls = tqr_event_kind_class(e.kind);
  if (cls == TQR_EVENT_CLASS_PHASE && e.action_id != -1) {
    tqh_diags_add(d, TQH_ERROR, p->path, line, "phase event %s with action_id %d, expected -1; "
                  "row skipped", tqh_event_kind_name(e.kind), (int)e.action_id);
    return NULL;
  }
  if (cls == TQR_EVENT_CLASS_ACTION && e.action_id < 0) {
    tqh_diags_add(d, TQH_ERROR, p->path, line,
                  "action event %s with action_id -1, expected an action id; row skipped",
                  tqh_event_kind_name(e.kind));
    return NULL;
  }
  int idx = 0;
  int r = dispatch_index(p, ps, f[0], len[0], &idx);
  if (r < 0) return oom();
  if (r == 0) {
    shown(f[0], len[0], b);
    tqh_diags_add(d, TQH_ERROR, p->path, line,
                  "dispatch '%s': more than %d dispatch names in one profile; row skipped", b,
                  TQH_PROFILE_MAX_DISPATCHES);
    return NULL;
  }
  e.dispatch = (uint16_t)idx;
  return push(p, ps, &e);
}

/* A parse in progress: fed the file's bytes in pieces (tqh_profile_read reads it in chunks, so
 * that a million-event profile is never all in memory) or all at once (tqh_profile_parse). */
typedef struct parser_s {
  tqh_profile_t *out;
  tqh_diags_t *diags;
  parse_state_t state;
  unknown_t unknown;
  uint32_t line;
  int started;  /* the first bytes were seen (a byte order mark skipped) */
  int nonblank; /* a byte other than whitespace was seen: lines are parsed */
  tq_buf_t carry; /* a line not ended yet; before `nonblank`, everything so far */
} parser_t;

static int is_space(char c) {
  return c == '\n' || c == '\r' || c == ' ' || c == '\t';
}

/* The line p[0, n) (without its LF; `ended`: an LF followed it). */
static tq_status_t parse_line(parser_t *ps, const char *p, size_t n, int ended) {
  tqh_profile_t *out = ps->out;
  tqh_diags_t *diags = ps->diags;
  if (n && p[n - 1] == '\r') n--;
  if (ps->line < UINT32_MAX) ps->line++;
  uint32_t line = ps->line;
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
                      "no header: expected '%s'; reading this line as a row", TQH_PROFILE_HEADER);
        return parse_row(out, &ps->state, diags, &ps->unknown, line, p, n);
      }
    }
  } else if (ended || n) {
    return parse_row(out, &ps->state, diags, &ps->unknown, line, p, n);
  }
  return NULL;
}

/* The complete lines of p[0, len), and with `eof` the rest; *used: the bytes parsed. */
static tq_status_t parse_lines(parser_t *ps, const char *p, size_t len, int eof, size_t *used) {
  const char *s = p, *end = p + len;
  while (s < end) {
    const char *nl = memchr(s, '\n', (size_t)(end - s));
    if (!nl && !eof) break;
    TQ_TRY(parse_line(ps, s, (size_t)((nl ? nl : end) - s), nl != NULL));
    s = nl ? nl + 1 : end;
  }
  *used = (size_t)(s - p);
  return NULL;
}

static void parser_begin(parser_t *ps, tqh_profile_t *out, tqh_diags_t *diags) {
  memset(ps, 0, sizeof(*ps));
  ps->out = out;
  ps->diags = diags;
  ps->state.last_dispatch = -1;
  tq_buf_init(&ps->carry, 0);
}

/* The next `len` bytes of the file; `eof`: the last ones. */
static tq_status_t parser_feed(parser_t *ps, const char *p, size_t len, int eof) {
  if (!ps->started) {
    ps->started = 1;
    if (len >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0) {
      p += 3;
      len -= 3;
    }
  }
  if (!ps->nonblank) { /* a file of whitespace only is one message, not one per line */
    for (size_t i = 0; i < len && !ps->nonblank; i++) ps->nonblank = !is_space(p[i]);
    if (!ps->nonblank) {
      if (!eof) return tq_buf_append(&ps->carry, p, len);
      tqh_diags_add(ps->diags, TQH_ERROR, ps->out->path, 1,
                    "empty file: expected the header '%s' and events (was the run profiled "
                    "with --torq_profile_host?)",
                    TQH_PROFILE_HEADER);
      return NULL;
    }
  }
  size_t used;
  if (ps->carry.len) { /* what came before, up to the end of its line */
    const char *nl = memchr(p, '\n', len);
    size_t take = nl ? (size_t)(nl - p) + 1 : len;
    TQ_TRY(tq_buf_append(&ps->carry, p, take));
    p += take;
    len -= take;
    TQ_TRY(parse_lines(ps, ps->carry.data, ps->carry.len, eof && !len, &used));
    memmove(ps->carry.data, ps->carry.data + used, ps->carry.len - used);
    ps->carry.len -= used;
    if (ps->carry.len) return NULL; /* no LF in p: all of it is in the carry */
  }
  TQ_TRY(parse_lines(ps, p, len, eof, &used));
  return tq_buf_append(&ps->carry, p + used, len - used);
}

static tq_status_t parser_end(parser_t *ps, tq_status_t st) {
  tq_buf_deinit(&ps->carry);
  if (st || !ps->nonblank) return st;
  tqh_profile_t *out = ps->out;
  out->lines = ps->line;
  report_unknown(out, &ps->unknown, ps->diags);
  if (out->count == 0 && ps->diags->errors == 0 && !out->unknown_rows)
    tqh_diags_add(ps->diags, TQH_WARNING, out->path, 0, "the profile holds no events");
  return NULL;
}

static tq_status_t set_path(tqh_profile_t *out, const char *name) {
  const char *nm = name ? name : "<profile>";
  out->path = tq_strndup(nm, strlen(nm));
  return out->path ? NULL : oom();
}

tq_status_t tqh_profile_parse(const char *name, const char *data, size_t len, tqh_diags_t *diags,
                              tqh_profile_t *out) {
  tqh_profile_init(out);
  TQ_TRY(set_path(out, name));
  parser_t *ps = tq_malloc(sizeof(*ps));
  if (!ps) return oom();
  parser_begin(ps, out, diags);
  tq_status_t st = parser_end(ps, parser_feed(ps, data ? data : "", data ? len : 0, 1));
  tq_free(ps);
  return st;
}

/* Reads `fd` into buf[0, size) until it is full or the file ends; *got: the bytes read. */
static tq_status_t read_full(int fd, const char *path, char *buf, size_t size, size_t *got) {
  *got = 0;
  while (*got < size) {
    ssize_t n = read(fd, buf + *got, size - *got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return TQ_STATUS(TQ_IO, "%s: read failed: %s", path, strerror(errno));
    if (n == 0) break;
    *got += (size_t)n;
  }
  return NULL;
}

#define TQH_PROFILE_CHUNK ((size_t)1 << 20)

/* Room for the events of a file of `bytes`, taken at once: a row is rarely shorter than 20 bytes,
 * and pages of the room never used are never touched (no memory). Growing from nothing instead
 * copied the array at each doubling and faulted its pages in again. Without the room (malloc
 * refused it), events grow as they come. */
static void reserve_events(tqh_profile_t *p, size_t bytes) {
  size_t cap = bytes / 20 + 64;
  if (cap > SIZE_MAX / sizeof(*p->events)) return;
  p->events = tq_malloc_huge(cap * sizeof(*p->events));
  p->cap = p->events ? cap : 0;
}

static tq_status_t read_profile(const char *path, tqh_diags_t *diags, tqh_profile_t *out,
                                tqh__profile_stream_t *stream) {
  tqh_profile_init(out);
  /* A regular file is read in chunks; anything else (and every error) through tq_file_read,
   * which says what is wrong with it. */
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  struct stat sb;
  if (fd < 0 || fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) ||
      (uintmax_t)sb.st_size > TQH_PROFILE_MAX_BYTES) {
    if (fd >= 0) close(fd);
    tq_buf_t buf;
    tq_status_t st = tq_file_read(path, TQH_PROFILE_MAX_BYTES, &buf);
    if (!st) st = tqh_profile_parse(path, buf.data, buf.len, diags, out);
    tq_buf_deinit(&buf);
    return st;
  }
  tq_status_t st = set_path(out, path);
  parser_t *ps = st ? NULL : tq_malloc(sizeof(*ps));
  char *chunk = ps ? tq_malloc(TQH_PROFILE_CHUNK) : NULL;
  if (!st && !chunk) st = oom();
  if (!st) {
    parser_begin(ps, out, diags);
    ps->state.stream = stream;
    if (!stream) {
      reserve_events(out, (size_t)sb.st_size);
    } else if ((out->events = tq_malloc_huge(tqh__stream_ring * sizeof(*out->events)))) {
      out->cap = tqh__stream_ring;
    } else {
      st = oom();
    }
    size_t total = 0, got;
    int eof = 0;
    while (!st && !eof && !(stream && publish(stream, out->count, 0, 0, NULL))) {
      st = read_full(fd, path, chunk, TQH_PROFILE_CHUNK, &got);
      eof = got < TQH_PROFILE_CHUNK;
      total += got;
      if (!st && total > TQH_PROFILE_MAX_BYTES)
        st = TQ_STATUS(TQ_LIMIT, "%s: larger than the limit of %zu bytes", path,
                       TQH_PROFILE_MAX_BYTES);
      if (!st) st = parser_feed(ps, chunk, got, eof);
    }
    st = parser_end(ps, st);
  }
  close(fd);
  tq_free(chunk);
  tq_free(ps);
  return st;
}

tq_status_t tqh_profile_read(const char *path, tqh_diags_t *diags, tqh_profile_t *out) {
  return read_profile(path, diags, out, NULL);
}

tq_status_t tqh__profile_read_stream(const char *path, tqh_diags_t *diags, tqh_profile_t *out,
                                     tqh__profile_stream_t *stream) {
  tq_status_t st = read_profile(path, diags, out, stream);
  (void)publish(stream, out->count, 1, 0, NULL);
  return st;
}

int tqh__profile_stream_init(tqh__profile_stream_t *s) {
  memset(s, 0, sizeof(*s));
  if (pthread_mutex_init(&s->mu, NULL) != 0) return 0;
  if (pthread_cond_init(&s->cv, NULL) == 0) {
    if (pthread_cond_init(&s->room, NULL) == 0) return 1;
    pthread_cond_destroy(&s->cv);
  }
  pthread_mutex_destroy(&s->mu);
  return 0;
}

void tqh__profile_stream_deinit(tqh__profile_stream_t *s) {
  pthread_cond_destroy(&s->room);
  pthread_cond_destroy(&s->cv);
  pthread_mutex_destroy(&s->mu);
}
