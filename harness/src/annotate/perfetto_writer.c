/* The Perfetto writer (annotate_internal.h): TracePackets encoded by hand, with Perfetto's
 * interning of event names. Shared by the annotation's trace (perfetto.c) and the compile-time
 * trace (compile_trace.c). */
#include <stdint.h>
#include <string.h>

#include "annotate_internal.h"
#include "torq/base/alloc.h"

static tq_status_t oom(void) {
  return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory writing a Perfetto trace");
}

void tqh__pf_init(tqh__pf_writer_t *w) {
  memset(w, 0, sizeof(*w));
  tq_buf_init(&w->out, 0);
  tq_buf_init(&w->names, 0);
  w->first_packet = 1;
}

void tqh__pf_deinit(tqh__pf_writer_t *w) {
  tq_buf_deinit(&w->out);
  tq_buf_deinit(&w->names);
  tq_free(w->slots);
  w->slots = NULL;
}

/* The packets are encoded here rather than with protobuf-c's pack: packing a message per event
 * (sizing it, then walking its descriptor) cost more than everything else in writing a trace.
 * Fields go in field-number order with minimal varints, as protobuf-c writes them, so the bytes
 * are the same; the reader (perfetto.c) decodes with protobuf-c. Tags are field << 3 | wire type
 * (0 varint, 2 length-delimited), numbers from harness/formats/perfetto_trace.proto. */
enum {
  TAG_TRACE_PACKET = 1 << 3 | 2,
  TAG_TIMESTAMP = 8 << 3 | 0,
  TAG_SEQUENCE_ID = 10 << 3 | 0,
  TAG_TRACK_EVENT = 11 << 3 | 2,
  TAG_INTERNED_DATA = 12 << 3 | 2,
  TAG_SEQUENCE_FLAGS = 13 << 3 | 0,
  TAG_TRACK_DESCRIPTOR = 60 << 3 | 2,
  TAG_TD_UUID = 1 << 3 | 0,
  TAG_TD_NAME = 2 << 3 | 2,
  TAG_TD_PARENT_UUID = 5 << 3 | 0,
  TAG_TD_CHILD_ORDERING = 11 << 3 | 0,
  TAG_ID_EVENT_NAMES = 2 << 3 | 2, /* InternedData */
  TAG_EN_IID = 1 << 3 | 0,         /* EventName */
  TAG_EN_NAME = 2 << 3 | 2,
  TAG_EV_TYPE = 9 << 3 | 0,
  TAG_EV_NAME_IID = 10 << 3 | 0,
  TAG_EV_TRACK_UUID = 11 << 3 | 0,
  TAG_EV_CATEGORIES = 22 << 3 | 2,
  TAG_EV_NAME = 23 << 3 | 2,
};

enum { EV_SLICE_BEGIN = 1, EV_SLICE_END = 2 };
#define SEQUENCE_ID 1
#define SEQ_INCREMENTAL_STATE_CLEARED 1
#define SEQ_NEEDS_INCREMENTAL_STATE 2
#define MAX_VARINT 10

static size_t varint_size(uint64_t v) {
  size_t n = 1;
  for (; v >= 0x80; v >>= 7) n++;
  return n;
}

static uint8_t *put_varint(uint8_t *p, uint64_t v) {
  for (; v >= 0x80; v >>= 7) *p++ = (uint8_t)(v | 0x80);
  *p++ = (uint8_t)v;
  return p;
}

/* A length-delimited field's bytes: tag, length, data. */
static size_t bytes_size(uint64_t tag, size_t len) {
  return varint_size(tag) + varint_size(len) + len;
}

static uint8_t *put_bytes(uint8_t *p, uint64_t tag, const void *data, size_t len) {
  p = put_varint(p, tag);
  p = put_varint(p, len);
  memcpy(p, data, len);
  return p + len;
}

/* Room for a `Trace.packet` record whose packet is `size` bytes; *out_p is where the packet
 * goes, after its record header. */
static tq_status_t packet_begin(tqh__pf_writer_t *w, size_t size, uint8_t **out_p) {
  tq_buf_t *out = w->streaming ? &w->file.buf : &w->out;
  TQ_TRY(tq_buf_reserve(out, 1 + MAX_VARINT + size));
  uint8_t *p = (uint8_t *)out->data + out->len;
  *p++ = TAG_TRACE_PACKET;
  *out_p = put_varint(p, size);
  return NULL;
}

/* Ends the record that packet_begin started; `end` is one past its last byte. */
static tq_status_t packet_end(tqh__pf_writer_t *w, uint8_t *end) {
  tq_buf_t *out = w->streaming ? &w->file.buf : &w->out;
  out->len = (size_t)((char *)end - out->data);
  out->data[out->len] = 0;
  return w->streaming ? tqh_out_file_maybe_flush(&w->file) : NULL;
}

/* Every packet is on sequence 1; the first one says that the sequence starts there. */
static int take_first(tqh__pf_writer_t *w) {
  int first = w->first_packet;
  w->first_packet = 0;
  return first;
}

/* In the sizes below, the tags are one byte (bytes_size counts the two-byte ones), and so are the
 * values of the type, the ordering, the sequence id and the flags. */
tq_status_t tqh__pf_track_ordered(tqh__pf_writer_t *w, tqh__pf_track_t *track, uint64_t uuid,
                                  uint64_t parent_uuid, const char *name, int child_ordering) {
  track->uuid = uuid;
  track->last_end = 0;
  size_t name_len = name ? strlen(name) : 0;
  size_t td = 1 + varint_size(uuid) + (name ? bytes_size(TAG_TD_NAME, name_len) : 0) +
              (parent_uuid ? 1 + varint_size(parent_uuid) : 0) + (child_ordering ? 2 : 0);
  int first = take_first(w);
  size_t size = 2 + (first ? 2 : 0) + bytes_size(TAG_TRACK_DESCRIPTOR, td);
  uint8_t *p;
  TQ_TRY(packet_begin(w, size, &p));
  *p++ = TAG_SEQUENCE_ID;
  *p++ = SEQUENCE_ID;
  if (first) {
    *p++ = TAG_SEQUENCE_FLAGS;
    *p++ = SEQ_INCREMENTAL_STATE_CLEARED;
  }
  p = put_varint(p, TAG_TRACK_DESCRIPTOR);
  p = put_varint(p, td);
  *p++ = TAG_TD_UUID;
  p = put_varint(p, uuid);
  if (name) p = put_bytes(p, TAG_TD_NAME, name, name_len);
  if (parent_uuid) {
    *p++ = TAG_TD_PARENT_UUID;
    p = put_varint(p, parent_uuid);
  }
  if (child_ordering) {
    *p++ = TAG_TD_CHILD_ORDERING;
    *p++ = (uint8_t)child_ordering;
  }
  return packet_end(w, p);
}

tq_status_t tqh__pf_track(tqh__pf_writer_t *w, tqh__pf_track_t *track, uint64_t uuid,
                          uint64_t parent_uuid, const char *name) {
  return tqh__pf_track_ordered(w, track, uuid, parent_uuid, name, 0);
}

/* A TrackEvent packet; `name` NULL: none (SLICE_END); `category` NULL: none. */
/* ---- Interning (TracePacket.interned_data, TrackEvent.name_iid) ------------------------------
 * A name given for interning is written inline the first time, as before, and interned the second
 * time: that packet carries InternedData.event_names {iid, name} and uses name_iid, and so do the
 * later ones. Names used once (the overview's, a phase's "DISPATCH #7") stay inline, so a small
 * trace keeps its bytes; a million repeated action, program and estimate names cost a few bytes
 * each. Packets that use an iid say so (SEQ_NEEDS_INCREMENTAL_STATE); all are on one sequence,
 * cleared by its first packet. */
typedef struct tqh__pf_slot_s {
  uint64_t hash;   /* 0: empty */
  size_t off, len; /* of the name in w->names */
  uint64_t iid;    /* 0: seen once, not interned yet */
} tqh__pf_slot_t;

static uint64_t name_hash(const char *s, size_t n) {
  uint64_t h = 1469598103934665603u; /* FNV-1a */
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211u;
  return h ? h : 1;
}

static tq_status_t grow_slots(tqh__pf_writer_t *w) {
  size_t n = w->num_slots ? w->num_slots * 2 : 256;
  tqh__pf_slot_t *s = tq_calloc(n, sizeof(*s));
  if (!s) return oom();
  for (size_t i = 0; i < w->num_slots; i++) {
    if (!w->slots[i].hash) continue;
    size_t k = (size_t)w->slots[i].hash & (n - 1);
    while (s[k].hash) k = (k + 1) & (n - 1);
    s[k] = w->slots[i];
  }
  tq_free(w->slots);
  w->slots = s;
  w->num_slots = n;
  return NULL;
}

/* The name's slot; a new name is added (iid 0) and *out is NULL. */
static tq_status_t intern_slot(tqh__pf_writer_t *w, const char *name, size_t len,
                               tqh__pf_slot_t **out) {
  if (2 * (w->used_slots + 1) > w->num_slots) TQ_TRY(grow_slots(w));
  uint64_t h = name_hash(name, len);
  size_t k = (size_t)h & (w->num_slots - 1);
  for (;; k = (k + 1) & (w->num_slots - 1)) {
    tqh__pf_slot_t *s = &w->slots[k];
    if (!s->hash) break;
    if (s->hash == h && s->len == len && memcmp(w->names.data + s->off, name, len) == 0) {
      *out = s;
      return NULL;
    }
  }
  size_t off = w->names.len;
  TQ_TRY(tq_buf_append(&w->names, name, len));
  w->slots[k] = (tqh__pf_slot_t){h, off, len, 0};
  w->used_slots++;
  *out = NULL;
  return NULL;
}

/* A TrackEvent packet; `name` NULL: none (SLICE_END); `category` NULL: none; `iid` nonzero: the
 * name by its iid, defined in this packet when `define`. */
static tq_status_t event(tqh__pf_writer_t *w, uint64_t track_uuid, uint64_t ts, uint8_t type,
                         const char *name, size_t name_len, const char *category, uint64_t iid,
                         int define) {
  size_t cat_len = category ? strlen(category) : 0;
  size_t ev =
      2 + 1 + varint_size(track_uuid) + (category ? bytes_size(TAG_EV_CATEGORIES, cat_len) : 0);
  if (iid)
    ev += 1 + varint_size(iid);
  else if (name)
    ev += bytes_size(TAG_EV_NAME, name_len);
  size_t interned = 0, entry = 0;
  if (define) {
    entry = 1 + varint_size(iid) + bytes_size(TAG_EN_NAME, name_len);
    interned = bytes_size(TAG_ID_EVENT_NAMES, entry);
  }
  int first = take_first(w);
  uint8_t flags = (uint8_t)((first ? SEQ_INCREMENTAL_STATE_CLEARED : 0) |
                            (iid ? SEQ_NEEDS_INCREMENTAL_STATE : 0));
  size_t size = 1 + varint_size(ts) + 2 + bytes_size(TAG_TRACK_EVENT, ev) + (flags ? 2 : 0) +
                (define ? bytes_size(TAG_INTERNED_DATA, interned) : 0);
  uint8_t *p;
  TQ_TRY(packet_begin(w, size, &p));
  *p++ = TAG_TIMESTAMP;
  p = put_varint(p, ts);
  *p++ = TAG_SEQUENCE_ID;
  *p++ = SEQUENCE_ID;
  *p++ = TAG_TRACK_EVENT;
  p = put_varint(p, ev);
  *p++ = TAG_EV_TYPE;
  *p++ = type;
  if (iid) {
    *p++ = TAG_EV_NAME_IID;
    p = put_varint(p, iid);
  }
  *p++ = TAG_EV_TRACK_UUID;
  p = put_varint(p, track_uuid);
  if (category) p = put_bytes(p, TAG_EV_CATEGORIES, category, cat_len);
  if (name && !iid) p = put_bytes(p, TAG_EV_NAME, name, name_len);
  if (define) {
    *p++ = TAG_INTERNED_DATA;
    p = put_varint(p, interned);
    *p++ = TAG_ID_EVENT_NAMES;
    p = put_varint(p, entry);
    *p++ = TAG_EN_IID;
    p = put_varint(p, iid);
    p = put_bytes(p, TAG_EN_NAME, name, name_len);
  }
  if (flags) {
    *p++ = TAG_SEQUENCE_FLAGS;
    *p++ = flags;
  }
  return packet_end(w, p);
}

tq_status_t tqh__pf_slice_n(tqh__pf_writer_t *w, tqh__pf_track_t *track, uint64_t start_ns,
                            uint64_t end_ns, const char *name, size_t name_len,
                            const char *category, int intern) {
  if (start_ns < track->last_end) start_ns = track->last_end;
  if (end_ns < start_ns) end_ns = start_ns;
  track->last_end = end_ns;
  uint64_t iid = 0;
  int define = 0;
  if (intern && name) {
    tqh__pf_slot_t *s;
    TQ_TRY(intern_slot(w, name, name_len, &s));
    if (s && s->iid) {
      iid = s->iid;
    } else if (s) { /* the second use: interned from here on */
      iid = s->iid = ++w->next_iid;
      define = 1;
    }
  }
  TQ_TRY(event(w, track->uuid, start_ns, EV_SLICE_BEGIN, name, name_len, category, iid, define));
  return event(w, track->uuid, end_ns, EV_SLICE_END, NULL, 0, NULL, 0, 0);
}

tq_status_t tqh__pf_slice(tqh__pf_writer_t *w, tqh__pf_track_t *track, uint64_t start_ns,
                          uint64_t end_ns, const char *name) {
  return tqh__pf_slice_n(w, track, start_ns, end_ns, name, name ? strlen(name) : 0, NULL, 0);
}

tq_status_t tqh__pf_slice_cat(tqh__pf_writer_t *w, tqh__pf_track_t *track, uint64_t start_ns,
                              uint64_t end_ns, const char *name, const char *category) {
  return tqh__pf_slice_n(w, track, start_ns, end_ns, name, name ? strlen(name) : 0, category, 0);
}
