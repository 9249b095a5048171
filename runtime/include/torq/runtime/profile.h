/* The runtime profile (DESIGN 5.4): events recorded while a session runs, and their CSV, in the
 * Torq runtime's shape.
 *
 *     dispatch_name,invocation_id,action_id,timestamp_us,event
 *     main_dispatch_0,0,-1,0,INIT_BEGIN
 *     main_dispatch_0,0,-1,0,INIT_COMPUTE_XRAM_FOOTPRINT_BEGIN
 *     ...
 *     main_dispatch_0,0,-1,10,INIT_END
 *     main_dispatch_0,1,-1,10,DISPATCH_BEGIN
 *     main_dispatch_0,1,-1,10,DISPATCH_SYNC_BINDINGS_IN_BEGIN
 *     ...
 *     main_dispatch_0,1,0,10,ALLOC_BEGIN
 *
 * Event types (the `event` column is <TYPE>_BEGIN or <TYPE>_END), those of the Torq runtime:
 *   actions, with the action's id: ALLOC DEALLOC HOST_COPY NSS_START NSS_WAIT HOST_START
 *     HOST_WAIT;
 *   phases, with action_id -1: INIT and its parts INIT_PREPARE_OUTPUT_DIRS,
 *     INIT_COMPUTE_XRAM_FOOTPRINT, INIT_HW_OPEN, INIT_CLEAR_MEMORY, INIT_LOAD_CODE_SEGMENTS,
 *     INIT_LOAD_HOST_CODE; DISPATCH and its parts DISPATCH_SYNC_BINDINGS_IN,
 *     DISPATCH_SYNC_BINDINGS_OUT, DISPATCH_ACQUIRE_HW_RESOURCES, DISPATCH_RELEASE_HW_RESOURCES,
 *     DISPATCH_EXECUTE_ACTIONS;
 *   HAL calls, under dispatch names __HAL_<NAME>__: HAL_CALL (the scope), HAL_QUEUE_WAIT,
 *     HAL_QUEUE_APPLY_DEFERRED, HAL_QUEUE_SIGNAL, HAL_COMMAND_BUFFER_COPY_BUFFER,
 *     HAL_COMMAND_BUFFER_PUSH_DESCRIPTOR_SET (action_id -1, or the index the HAL gives).
 * Our own addition, which Torq's readers count as an unknown type: ERROR (no suffix), the run
 * failed. Its action_id is the failing action's (whose BEGIN row precedes it and which has no END
 * row), or -1 when the failure was outside an action. It is the last row of its dispatch run or
 * INIT: no _END of the open phases follows.
 *
 * Invocation ids count up through the process, as the Torq runtime's dispatch index does: INIT
 * has its own (a session's creation), each dispatch run (one execution of the function) and
 * each HAL scope theirs. A profile hands them out (tqr_profile_next_invocation), so that several
 * sessions writing one profile never reuse one.
 *
 * timestamp_us is an integer (floor of the event's nanoseconds / 1000): simulated time on the
 * simulator, CLOCK_MONOTONIC on hardware (device.h, TQR_DEVICE_REAL_TIME). No quoting: dispatch
 * names are function names, which hold no commas.
 *
 * Recording does not allocate and does no I/O: events go into an array sized in advance
 * (tqr_profile_reserve; a session reserves what one invocation needs when it is created). The
 * CSV is written by tqr_profile_flush, which a session calls at the end of INIT, of every
 * invocation and right after a failure, so the file holds whole rows and is a valid CSV at every
 * flush, also when the run fails half-way.
 *
 * Ownership: the caller owns a tqr_profile_t (create/destroy) and lends it to sessions, which
 * must be destroyed before it. Events borrow their dispatch name from the module (valid while the
 * module lives); flush before destroying the module.
 */
#ifndef TORQ_RUNTIME_PROFILE_H
#define TORQ_RUNTIME_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "torq/base/status.h"
#include "torq/base/str.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TQR_PROFILE_CSV_HEADER "dispatch_name,invocation_id,action_id,timestamp_us,event\n"

/* What happened. The action kinds have the values of Torq__ActionKind (1..7); the others follow
 * in no particular order (the CSV names them, never by number). */
typedef enum tqr_event_kind_e {
  TQR_EVENT_ALLOC = 1,
  TQR_EVENT_DEALLOC = 2,
  TQR_EVENT_HOST_COPY = 3,
  TQR_EVENT_NSS_START = 4,
  TQR_EVENT_NSS_WAIT = 5,
  TQR_EVENT_HOST_START = 6,
  TQR_EVENT_HOST_WAIT = 7,
  TQR_EVENT_INIT = 8,
  TQR_EVENT_DISPATCH = 9,
  TQR_EVENT_ERROR = 10,
  TQR_EVENT_INIT_PREPARE_OUTPUT_DIRS,
  TQR_EVENT_INIT_COMPUTE_XRAM_FOOTPRINT,
  TQR_EVENT_INIT_HW_OPEN,
  TQR_EVENT_INIT_CLEAR_MEMORY,
  TQR_EVENT_INIT_LOAD_CODE_SEGMENTS,
  TQR_EVENT_INIT_LOAD_HOST_CODE,
  TQR_EVENT_DISPATCH_SYNC_BINDINGS_IN,
  TQR_EVENT_DISPATCH_SYNC_BINDINGS_OUT,
  TQR_EVENT_DISPATCH_ACQUIRE_HW_RESOURCES,
  TQR_EVENT_DISPATCH_RELEASE_HW_RESOURCES,
  TQR_EVENT_DISPATCH_EXECUTE_ACTIONS,
  TQR_EVENT_HAL_CALL,
  TQR_EVENT_HAL_QUEUE_WAIT,
  TQR_EVENT_HAL_QUEUE_APPLY_DEFERRED,
  TQR_EVENT_HAL_QUEUE_SIGNAL,
  TQR_EVENT_HAL_COMMAND_BUFFER_COPY_BUFFER,
  TQR_EVENT_HAL_COMMAND_BUFFER_PUSH_DESCRIPTOR_SET,
  TQR_EVENT_KIND_COUNT
} tqr_event_kind_t;

/* The families of event kinds. */
typedef enum tqr_event_class_e {
  TQR_EVENT_CLASS_NONE,   /* not a kind */
  TQR_EVENT_CLASS_ACTION, /* ALLOC .. HOST_WAIT: with the action's id */
  TQR_EVENT_CLASS_PHASE,  /* INIT, DISPATCH and their parts: action_id -1 */
  TQR_EVENT_CLASS_HAL,    /* HAL_*: HAL calls, under __HAL_<NAME>__ dispatch names */
  TQR_EVENT_CLASS_ERROR,  /* ERROR */
} tqr_event_class_t;

tqr_event_class_t tqr_event_kind_class(uint8_t kind);

/* The name prefix and suffix of the dispatch names of HAL scopes: __HAL_<NAME>__. */
#define TQR_HAL_DISPATCH_PREFIX "__HAL_"
#define TQR_HAL_DISPATCH_SUFFIX "__"

typedef enum tqr_event_edge_e {
  TQR_EDGE_BEGIN,
  TQR_EDGE_END,
  TQR_EDGE_POINT, /* ERROR: no suffix */
} tqr_event_edge_t;

typedef struct tqr_event_s {
  const char *dispatch; /* borrowed (see above) */
  uint64_t timestamp_ns;
  uint32_t invocation_id;
  int32_t action_id; /* -1 for phases */
  uint8_t kind;      /* tqr_event_kind_t */
  uint8_t edge;      /* tqr_event_edge_t */
} tqr_event_t;

/* Room for the longest `event` column text and its NUL. */
#define TQR_EVENT_NAME_SIZE 64

/* The `event` column text of an event ("NSS_WAIT_END", "INIT_BEGIN", "ERROR") into `out`.
 * Unknown kinds give "UNKNOWN". */
void tqr_event_name(const tqr_event_t *event, char out[TQR_EVENT_NAME_SIZE]);

/* The CSV spelling of an event kind ("NSS_START"), or NULL for a kind that does not exist. The
 * profile's writer and its readers share this one table. */
const char *tqr_event_kind_name(uint8_t kind);

typedef struct tqr_profile_s tqr_profile_t;

/* An empty profile with room for `capacity` events (more with tqr_profile_reserve). */
tq_status_t tqr_profile_create(size_t capacity, tqr_profile_t **out_profile) TQ_MUST_USE;

/* Frees the profile; closes its CSV file (without reporting errors: call tqr_profile_close
 * first to know). Accepts NULL. */
void tqr_profile_destroy(tqr_profile_t *profile);

/* The next invocation id of the process (0, 1, 2, ...): a session takes one for its INIT and
 * one for every dispatch run. */
uint32_t tqr_profile_next_invocation(tqr_profile_t *profile);

/* Makes room for at least `count` unflushed events. Not for the hot path. */
tq_status_t tqr_profile_reserve(tqr_profile_t *profile, size_t count) TQ_MUST_USE;

/* Creates (truncates) `path`, writes the header and flushes it. From now on tqr_profile_flush
 * writes the recorded events there. TQ_IO (naming the path) when it cannot be opened or
 * written; TQ_FAILED_PRECONDITION when a file is already open. */
tq_status_t tqr_profile_open_csv(tqr_profile_t *profile, const char *path) TQ_MUST_USE;

/* Records an event. Never allocates, never fails: when the array is full the event is dropped
 * and counted (tqr_profile_dropped), and the next flush reports TQ_LIMIT. */
void tqr_profile_record(tqr_profile_t *profile, const tqr_event_t *event);

/* Writes the recorded events to the CSV file as rows, fflush()es it and empties the array.
 * Without an open file it does nothing (the events stay, for tqr_profile_events). TQ_IO on a
 * write error; TQ_LIMIT when events were dropped since the last flush (the rows that were kept
 * are written first). */
tq_status_t tqr_profile_flush(tqr_profile_t *profile) TQ_MUST_USE;

/* Flushes and closes the CSV file; errors as tqr_profile_flush, and TQ_IO when closing fails. */
tq_status_t tqr_profile_close(tqr_profile_t *profile) TQ_MUST_USE;

/* The recorded, unflushed events (borrowed; valid until the next record/flush/reserve). */
const tqr_event_t *tqr_profile_events(const tqr_profile_t *profile, size_t *out_count);
size_t tqr_profile_dropped(const tqr_profile_t *profile);

/* Appends `count` events as CSV rows (no header) to `out`. */
tq_status_t tqr_profile_format_rows(const tqr_event_t *events, size_t count,
                                    tq_buf_t *out) TQ_MUST_USE;

#ifdef __cplusplus
}
#endif
#endif
