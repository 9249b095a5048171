/* Private parts of the run history (history.h): the handle, SQLite's errors, the metric names'
 * cache. */
#ifndef TORQ_HARNESS_SRC_HISTORY_INTERNAL_H
#define TORQ_HARNESS_SRC_HISTORY_INTERNAL_H

#include <sqlite3.h>
#include <stdint.h>
#include <string.h>

#include "torq/base/status.h"
#include "torq/harness/history.h"

/* A metric name and its id in metric_names. */
typedef struct tqh__history_name_s {
  int64_t id;
  char *name, *unit; /* owned */
} tqh__history_name_t;

struct tqh_history_s {
  sqlite3 *db;
  char *path;                   /* owned */
  tqh__history_name_t *names;   /* the metric names read or written so far, owned */
  size_t name_count, name_cap;
  sqlite3_stmt *entries_all;    /* tqh_history_entries without a metric filter, kept prepared */
};

/* SQLite's result code `rc` as a status naming the database and what was being done. */
tq_status_t tqh__history_error(tqh_history_t *h, int rc, const char *what) TQ_MUST_USE;
tq_status_t tqh__history_exec(tqh_history_t *h, const char *sql) TQ_MUST_USE;
tq_status_t tqh__history_prepare(tqh_history_t *h, const char *sql,
                                 sqlite3_stmt **out) TQ_MUST_USE;

/* The id of a metric name; with `create`, made when missing (inside the caller's transaction).
 * Without, *out_id = 0 when there is none. */
tq_status_t tqh__history_name_id(tqh_history_t *h, const char *name, const char *unit, int create,
                                 int64_t *out_id) TQ_MUST_USE;
/* The name and unit of a metric id (reading the table again when it is not known); NULL when
 * there is no such id. Borrowed until the cache is cleared. */
const tqh__history_name_t *tqh__history_name_of(tqh_history_t *h, int64_t id);
void tqh__history_names_clear(tqh_history_t *h);

/* Samples are stored as IEEE 754 doubles, little-endian, whatever the host. */
static inline void tqh__history_put_le64(unsigned char *p, double v) {
  uint64_t u;
  memcpy(&u, &v, 8);
  for (int i = 0; i < 8; i++) p[i] = (unsigned char)(u >> (8 * i));
}
static inline double tqh__history_get_le64(const unsigned char *p) {
  uint64_t u = 0;
  for (int i = 0; i < 8; i++) u |= (uint64_t)p[i] << (8 * i);
  double v;
  memcpy(&v, &u, 8);
  return v;
}

#endif
