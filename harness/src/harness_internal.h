/* Private helpers of libtorq-harness shared between its files. */
#ifndef TORQ_HARNESS_SRC_HARNESS_INTERNAL_H
#define TORQ_HARNESS_SRC_HARNESS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "torq/base/arena.h"
#include "torq/base/status.h"
#include "torq/base/str.h"

/* ---- A small JSON reader (manifest.json) ----------------------------------------------------- */

typedef enum tqh__json_kind_e {
  TQH__JSON_NULL,
  TQH__JSON_BOOL,
  TQH__JSON_NUMBER,
  TQH__JSON_STRING,
  TQH__JSON_ARRAY,
  TQH__JSON_OBJECT,
} tqh__json_kind_t;

typedef struct tqh__json_s tqh__json_t;
struct tqh__json_s {
  tqh__json_kind_t kind;
  int boolean;
  double number;
  const char *string; /* NUL-terminated, in the arena (may hold NULs of its own: see len) */
  size_t len;         /* string length; items of an array or object */
  tqh__json_t **items;
  const char **keys; /* objects: one per item */
  uint32_t line, col;
};

/* Parses `text` (named `path` in errors) into a tree in `arena`. Errors: TQ_INVALID_INPUT
 * "path:line:col: error: ..."; TQ_LIMIT past 64 levels of nesting. */
tq_status_t tqh__json_parse(tq_arena_t *arena, const char *path, const char *text, size_t len,
                            tqh__json_t **out_value) TQ_MUST_USE;

/* A member of an object by key, or NULL (also when `object` is not an object). */
const tqh__json_t *tqh__json_get(const tqh__json_t *object, const char *key);

/* ---- Clocks (worker.c) ----------------------------------------------------------------------- */

/* CLOCK_MONOTONIC in nanoseconds: for durations and deadlines. */
uint64_t tqh__now_ns(void);

/* CLOCK_REALTIME in seconds since the Unix epoch: for the times written into results. */
double tqh__now_unix(void);

/* ---- Shared by the writers ------------------------------------------------------------------ */

/* Writes `len` bytes to `path` atomically (tq_file_write_atomic), naming the path on error. */
tq_status_t tqh__write_file(const char *path, const void *data, size_t len) TQ_MUST_USE;

/* Writes `len` bytes to `path` (create or truncate), without fsync (cache.c). */
tq_status_t tqh__write_plain(const char *path, const void *data, size_t len) TQ_MUST_USE;

/* Writes to a temporary name beside `path` and renames it into place: never torn by a killed
 * process (no fsync: not durable across a power loss). On error the temporary is removed and
 * `path` is as it was (cache.c). */
tq_status_t tqh__write_quick_atomic(const char *path, const void *data, size_t len) TQ_MUST_USE;

/* Mirrors `from` (a file or a folder tree) at `to` with hard links, copying where linking fails
 * (another file system; the copy keeps the file's permission bits). Symbolic links are recreated;
 * other special files are left out. Existing files and links at `to` are replaced (cache.c). */
tq_status_t tqh__link_tree(const char *from, const char *to) TQ_MUST_USE;

/* rm -rf `path`; a missing path is fine (cache.c). */
tq_status_t tqh__remove_tree(const char *path) TQ_MUST_USE;


/* ---- Streaming atomic file output ------------------------------------------------------------ */

/* Writes a file through a buffer into `path`.tmp<pid>, renamed over `path` on commit, so large
 * outputs need no memory of their size and a failure leaves no torn file. */
typedef struct tqh__out_s {
  tq_buf_t buf; /* pending bytes; flushed past TQH__OUT_CHUNK */
  void *file;   /* FILE * */
  char *path, *tmp;
  int failed; /* errno of the first failed write, or 0 */
} tqh__out_t;

#define TQH__OUT_CHUNK ((size_t)1 << 20)

tq_status_t tqh__out_open(tqh__out_t *out, const char *path) TQ_MUST_USE;
/* Writes out the buffer when it holds TQH__OUT_CHUNK bytes or more (call between records). */
tq_status_t tqh__out_maybe_flush(tqh__out_t *out) TQ_MUST_USE;
/* Flushes, fsyncs, closes and renames into place. */
tq_status_t tqh__out_commit(tqh__out_t *out) TQ_MUST_USE;
/* Closes and removes the temporary (after an error, or without commit); accepts a closed one. */
void tqh__out_abort(tqh__out_t *out);

/* ---- The Perfetto writer (perfetto.c), shared by the annotation and the compile-time trace --- */

typedef struct tqh__pf_track_s {
  uint64_t uuid;
  uint64_t last_end; /* slices on one track never overlap: later ones start here at the earliest */
} tqh__pf_track_t;

typedef struct tqh__pf_writer_s {
  tq_buf_t out; /* the packets, unless streaming */
  int first_packet;
  int streaming;    /* 1: packets go to `file` (opened by the caller) instead */
  tqh__out_t file;
} tqh__pf_writer_t;

void tqh__pf_init(tqh__pf_writer_t *w);
void tqh__pf_deinit(tqh__pf_writer_t *w);
/* A track descriptor; parent_uuid 0 = a top-level track (a "process" of DESIGN 5.5). */
tq_status_t tqh__pf_track(tqh__pf_writer_t *w, tqh__pf_track_t *track, uint64_t uuid,
                          uint64_t parent_uuid, const char *name) TQ_MUST_USE;
/* A slice [start, end) ns on `track`, as SLICE_BEGIN and SLICE_END events. A slice that would
 * overlap the previous one of the track starts at its end (clamped), so every track nests. */
tq_status_t tqh__pf_slice(tqh__pf_writer_t *w, tqh__pf_track_t *track, uint64_t start_ns,
                          uint64_t end_ns, const char *name) TQ_MUST_USE;

#endif
