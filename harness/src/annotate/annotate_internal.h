/* Private to the annotate component: what its files share (the Perfetto writer, perfetto.c, used
 * by the annotation and the compile-time trace; whole-file writes). */
#ifndef TORQ_HARNESS_SRC_ANNOTATE_INTERNAL_H
#define TORQ_HARNESS_SRC_ANNOTATE_INTERNAL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "torq/base/arena.h"
#include "torq/base/status.h"
#include "torq/base/str.h"
#include "torq/harness/files.h"
#include "torq/harness/profile_csv.h"

/* Text formatting into a buffer with room reserved (annotate_csv.c, annotate_xlsx.c): copies `n`
 * bytes, or the decimal digits of `v`, to `p` and returns the end. */
static inline char *tqh__put(char *p, const char *s, size_t n) {
  memcpy(p, s, n);
  return p + n;
}

static inline char *tqh__put_u64(char *p, uint64_t v) {
  char digits[24], *d = digits + sizeof(digits);
  do {
    *--d = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  return tqh__put(p, d, (size_t)(digits + sizeof(digits) - d));
}

/* Writes `len` bytes to `path` atomically (tq_file_write_atomic), naming the path on error
 * (annotate_csv.c). */
tq_status_t tqh__write_file(const char *path, const void *data, size_t len) TQ_MUST_USE;

/* The parts of workbooks this process emitted from annotate_xlsx.c's memo (for its tests). */
uint64_t tqh__xlsx_memo_served(void);

/* ---- A profile annotated while it is read (csv_reader.c, annotate.c) --------------------------- */

/* The reader's thread parses; the annotating one reads the events parsed so far. The events go
 * round a ring of tqh__stream_ring (2^18; tests make it small) events (a million-event
 * profile's 24 MB of events, each page zeroed by the kernel on first touch, were a quarter of
 * the memory an annotation touched): event i is at events[i % ring], and the reader waits while
 * the ring is full. */
extern size_t tqh__stream_ring;
typedef struct tqh__profile_stream_s {
  pthread_mutex_t mu;  /* all of the below */
  pthread_cond_t cv;   /* more events published, or the read is done */
  pthread_cond_t room; /* events consumed, or stop */
  size_t published;    /* events [0, published) are complete */
  size_t consumed;     /* events [0, consumed) are done with: their places may be reused */
  int done;            /* the read is over: every event is published */
  int stop;            /* the annotation wants no more (it failed) */
} tqh__profile_stream_t;

/* Profiles of this many bytes or more are annotated while they are read (annotate.c; tests set
 * it), and the number of annotations made so (for tests). */
extern size_t tqh__annotate_stream_min_bytes;
uint64_t tqh__annotate_streamed(void);

/* An idle stream (1), or 0 when its lock or conditions cannot be made; and its end. */
int tqh__profile_stream_init(tqh__profile_stream_t *s);
void tqh__profile_stream_deinit(tqh__profile_stream_t *s);

/* tqh_profile_read, publishing to `stream` after each chunk, and done at the end. */
tq_status_t tqh__profile_read_stream(const char *path, tqh_diags_t *diags, tqh_profile_t *out,
                                     tqh__profile_stream_t *stream) TQ_MUST_USE;

/* Annotations of this many rows or more have their overview worked out on a thread while their
 * trace is written (perfetto.c; tests set it). */
extern size_t tqh__overview_thread_rows;

/* ---- The Perfetto writer (perfetto_writer.c), shared by the annotation and the compile-time trace --- */

typedef struct tqh__pf_track_s {
  uint64_t uuid;
  uint64_t last_end; /* slices on one track never overlap: later ones start here at the earliest */
} tqh__pf_track_t;

typedef struct tqh__pf_slot_s tqh__pf_slot_t;

typedef struct tqh__pf_writer_s {
  tq_buf_t out; /* the packets, unless streaming */
  int first_packet;
  int streaming; /* 1: packets go to `file` (opened by the caller) instead */
  tqh_out_file_t file;
  /* Names given for interning (perfetto_writer.c): a hash set over the bytes in `names`. */
  tqh__pf_slot_t *slots;
  size_t num_slots, used_slots;
  tq_buf_t names;
  uint64_t next_iid;
} tqh__pf_writer_t;

void tqh__pf_init(tqh__pf_writer_t *w);
void tqh__pf_deinit(tqh__pf_writer_t *w);
/* A track descriptor; parent_uuid 0 = a top-level track (a "process" of DESIGN 5.5). */
tq_status_t tqh__pf_track(tqh__pf_writer_t *w, tqh__pf_track_t *track, uint64_t uuid,
                          uint64_t parent_uuid, const char *name) TQ_MUST_USE;
/* The same with the order of its children (TrackDescriptor.child_ordering; 0 leaves it out). */
#define TQH__PF_CHRONOLOGICAL 2
tq_status_t tqh__pf_track_ordered(tqh__pf_writer_t *w, tqh__pf_track_t *track, uint64_t uuid,
                                  uint64_t parent_uuid, const char *name,
                                  int child_ordering) TQ_MUST_USE;
/* A slice [start, end) ns on `track`, as SLICE_BEGIN and SLICE_END events. A slice that would
 * overlap the previous one of the track starts at its end (clamped), so every track nests. */
tq_status_t tqh__pf_slice(tqh__pf_writer_t *w, tqh__pf_track_t *track, uint64_t start_ns,
                          uint64_t end_ns, const char *name) TQ_MUST_USE;
/* The same with a category (TrackEvent.categories) on its SLICE_BEGIN. */
tq_status_t tqh__pf_slice_cat(tqh__pf_writer_t *w, tqh__pf_track_t *track, uint64_t start_ns,
                              uint64_t end_ns, const char *name,
                              const char *category) TQ_MUST_USE;
/* The same with a name of `name_len` bytes (NULL: none) and a category (NULL: none); `intern`:
 * a name that repeats, interned from its second use (perfetto_writer.c). */
tq_status_t tqh__pf_slice_n(tqh__pf_writer_t *w, tqh__pf_track_t *track, uint64_t start_ns,
                            uint64_t end_ns, const char *name, size_t name_len,
                            const char *category, int intern) TQ_MUST_USE;

#endif
