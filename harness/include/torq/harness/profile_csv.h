/* Reading the runtime profile CSV (DESIGN 5.4) written by torq-run-module:
 *
 *     dispatch_name,invocation_id,action_id,timestamp_us,event
 *     main_dispatch_0,0,-1,0,INIT_BEGIN
 *
 * The reader knows every event type of the Torq runtime (torq/runtime/profile.h). It is strict
 * about each row and lenient about the file: a row with missing or extra columns, a non-numeric
 * or out-of-range field, a malformed event (lower case, a known type without _BEGIN or _END), an
 * action event with action_id -1 or a phase with an action id is reported in `diags` (with its
 * line number) and skipped, and reading goes on. HAL events may carry any action id. Rows of an
 * event type the reader does not know (in capitals, a newer runtime's) are counted and reported
 * once, as a warning naming the types and how many rows each had, not per row. An empty file, a missing or different header are reported too. Only what
 * stops reading altogether (the file cannot be read, memory runs out) is a returned status.
 * Lines end in LF (a CR before it is accepted); fields are never quoted.
 *
 * What it does not judge: the order of events (END without BEGIN, timestamps going backwards),
 * which needs the pairing of annotate.h.
 *
 * Ownership: a tqh_profile_t in caller storage owns its events and names; tqh_profile_deinit
 * frees them (also after a failed read).
 *
 * Part of the annotate component (harness/src/annotate/README.md).
 */
#ifndef TORQ_HARNESS_PROFILE_CSV_H
#define TORQ_HARNESS_PROFILE_CSV_H

#include <stddef.h>
#include <stdint.h>

#include "torq/base/status.h"
#include "torq/harness/diag.h"
#include "torq/runtime/profile.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TQH_PROFILE_HEADER "dispatch_name,invocation_id,action_id,timestamp_us,event"

/* Distinct dispatch names a profile may hold; rows past it are reported and skipped. */
#define TQH_PROFILE_MAX_DISPATCHES 64

typedef struct tqh_profile_event_s {
  uint64_t timestamp_us;
  uint32_t line; /* 1-based line in the file */
  uint32_t invocation_id;
  int32_t action_id; /* -1 for phases */
  uint16_t dispatch; /* index into tqh_profile_t.dispatch_names */
  uint8_t kind;      /* tqr_event_kind_t (torq/runtime/profile.h) */
  uint8_t edge;      /* tqr_event_edge_t */
} tqh_profile_event_t;

typedef struct tqh_profile_s {
  char *path;                  /* owned; the name given to the reader, for messages */
  tqh_profile_event_t *events; /* owned; in file order */
  size_t count, cap;
  char *dispatch_names[TQH_PROFILE_MAX_DISPATCHES]; /* owned */
  size_t num_dispatches;
  uint32_t lines;      /* lines in the file */
  size_t unknown_rows; /* rows of unknown event types, ignored */
} tqh_profile_t;

void tqh_profile_init(tqh_profile_t *profile);
void tqh_profile_deinit(tqh_profile_t *profile);

/* Parses `len` bytes of profile CSV named `name` (for messages) into `out` (initialized by the
 * call), reporting bad rows in `diags`. TQ_OUT_OF_MEMORY is the only error. */
tq_status_t tqh_profile_parse(const char *name, const char *data, size_t len, tqh_diags_t *diags,
                              tqh_profile_t *out) TQ_MUST_USE;

/* Reads the file at `path` and parses it. File errors (TQ_NOT_FOUND, TQ_IO, ...) name the path. */
tq_status_t tqh_profile_read(const char *path, tqh_diags_t *diags,
                             tqh_profile_t *out) TQ_MUST_USE;

/* The `event` column text of a kind and edge ("NSS_WAIT_END", "ERROR") into out. */
void tqh_event_name(uint8_t kind, uint8_t edge, char out[TQR_EVENT_NAME_SIZE]);

/* The event type's name ("ALLOC", ..., "HAL_CALL", "INIT", "DISPATCH", "ERROR"); "?" else. */
const char *tqh_event_kind_name(uint8_t kind);

#ifdef __cplusplus
}
#endif
#endif
