/* The journal of a run and the records read back from it (component results/,
 * harness/src/results/): journal.jsonl, one JSON line per finished test, is the run's source of
 * truth (results.h); the reports, baselines, shards, merges, the HTML report and the upload all
 * read it through this header.
 *
 * Ownership: a tqh_records_t in caller storage owns its records (their strings live in its
 * arena); a tqh_journal_t owns its descriptor and path.
 */
#ifndef TORQ_HARNESS_JOURNAL_H
#define TORQ_HARNESS_JOURNAL_H

#include <stddef.h>
#include <stdint.h>

#include "torq/base/arena.h"
#include "torq/base/status.h"
#include "torq/harness/diag.h"
#include "torq/harness/results.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Records -------------------------------------------------------------------------------- */

/* A list of records whose strings and arrays live in `arena`. */
typedef struct tqh_records_s {
  tq_arena_t arena;
  tqh_test_record_t *items; /* owned (tq_malloc) */
  size_t count, cap;
} tqh_records_t;

void tqh_records_init(tqh_records_t *list);
void tqh_records_deinit(tqh_records_t *list);

/* The indexes of the last record of each id, in journal order (a test recorded twice, e.g. by a
 * rerun appended to the journal, counts once, as its last line says): *out_order (tq_free) holds
 * *out_count of them. */
tq_status_t tqh_records_latest(const tqh_records_t *list, size_t **out_order,
                               size_t *out_count) TQ_MUST_USE;

/* The records of a list by id (the last record of each id), for lookups in O(log n). The list
 * must outlive the index and not change. */
typedef struct tqh_records_index_s {
  const tqh_records_t *list;
  size_t *by_id; /* owned: indexes into list->items, sorted by id */
  size_t count;
} tqh_records_index_t;
tq_status_t tqh_records_index(const tqh_records_t *list, tqh_records_index_t *out) TQ_MUST_USE;
void tqh_records_index_deinit(tqh_records_index_t *index);
/* The last record of `id`, or NULL. */
const tqh_test_record_t *tqh_records_find(const tqh_records_index_t *index, const char *id);

/* Parses the JSON text of one record (a journal line, or a report.json, which holds the same
 * fields) and appends it to `list`. TQ_INVALID_INPUT says what is wrong with it. */
tq_status_t tqh_record_parse(tqh_records_t *list, const char *text, size_t len) TQ_MUST_USE;

/* ---- The journal ---------------------------------------------------------------------------- */

typedef struct tqh_journal_s {
  int fd;
  int sync;                  /* 0: never fsync; otherwise see sync_interval_ms */
  unsigned sync_interval_ms; /* fsync when this long has passed since the last one (0: always) */
  uint64_t last_sync_ns;     /* CLOCK_MONOTONIC of the last fsync (or of opening) */
  int unsynced;              /* lines appended since the last fsync */
  char *path;                /* owned */
} tqh_journal_t;

/* Opens (creating if needed) `path` for appending. */
tq_status_t tqh_journal_open(tqh_journal_t *journal, const char *path, int sync,
                             unsigned sync_interval_ms) TQ_MUST_USE;
/* Closes it, with a last fsync of unsynced lines; accepts a journal that never opened (fd -1). */
void tqh_journal_close(tqh_journal_t *journal);

/* Appends `len` bytes and a newline with one write() (a short write is completed and the line
 * may then be torn by a crash, which readers name), then fsyncs when the interval has passed. A
 * failed write or fsync (a full disk, EIO) is undone: the file is truncated back to where the
 * line began, and TQ_IO names the path and the error. `line` must not hold a newline
 * (TQ_INVALID_ARGUMENT). */
tq_status_t tqh_journal_append(tqh_journal_t *journal, const char *line, size_t len) TQ_MUST_USE;

/* What reading a journal found besides its records. */
typedef struct tqh_journal_read_s {
  size_t lines;   /* complete lines seen (blank ones included) */
  size_t corrupt; /* lines skipped as not a valid record */
  int torn_tail;  /* the file ended in a line without newline that was not a valid record */
} tqh_journal_read_t;

/* Reads the records of the journal text `data` (named `name` in diagnostics) into `list`: one
 * record per line; blank lines are ignored; a corrupt line is skipped and reported in `diags` as
 * an error "NAME:LINE: ..." (the others are kept); a last line without newline is a record when
 * it parses, otherwise a torn append, skipped and reported as an error too (its test's record is
 * lost). Every reader shows these to the user: none is dropped silently. Only TQ_OUT_OF_MEMORY
 * fails. */
tq_status_t tqh_journal_parse(const char *name, const char *data, size_t len, tqh_records_t *list,
                              tqh_diags_t *diags, tqh_journal_read_t *out_info) TQ_MUST_USE;

/* Reads the file `path` with tqh_journal_parse (diagnostics name `path` as given). */
tq_status_t tqh_journal_read(const char *path, tqh_records_t *list, tqh_diags_t *diags,
                             tqh_journal_read_t *out_info) TQ_MUST_USE;

#ifdef __cplusplus
}
#endif
#endif
