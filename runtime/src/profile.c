/* The runtime profile: a preallocated event array (recording never allocates) and the CSV
 * writer (DESIGN 5.4). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "torq/base/alloc.h"
#include "torq/formats/module.h"
#include "torq/runtime/profile.h"

struct tqr_profile_s {
  tqr_event_t *events;
  size_t count, capacity;
  size_t dropped;
  FILE *csv; /* owned */
  char *path;
  uint32_t next_invocation;
};

/* Every kind but the actions, which the module schema names (tqf_action_kind_name). */
static const char *const other_names[TQR_EVENT_KIND_COUNT] = {
    [TQR_EVENT_INIT] = "INIT",
    [TQR_EVENT_DISPATCH] = "DISPATCH",
    [TQR_EVENT_ERROR] = "ERROR",
    [TQR_EVENT_INIT_PREPARE_OUTPUT_DIRS] = "INIT_PREPARE_OUTPUT_DIRS",
    [TQR_EVENT_INIT_COMPUTE_XRAM_FOOTPRINT] = "INIT_COMPUTE_XRAM_FOOTPRINT",
    [TQR_EVENT_INIT_HW_OPEN] = "INIT_HW_OPEN",
    [TQR_EVENT_INIT_CLEAR_MEMORY] = "INIT_CLEAR_MEMORY",
    [TQR_EVENT_INIT_LOAD_CODE_SEGMENTS] = "INIT_LOAD_CODE_SEGMENTS",
    [TQR_EVENT_INIT_LOAD_HOST_CODE] = "INIT_LOAD_HOST_CODE",
    [TQR_EVENT_DISPATCH_SYNC_BINDINGS_IN] = "DISPATCH_SYNC_BINDINGS_IN",
    [TQR_EVENT_DISPATCH_SYNC_BINDINGS_OUT] = "DISPATCH_SYNC_BINDINGS_OUT",
    [TQR_EVENT_DISPATCH_ACQUIRE_HW_RESOURCES] = "DISPATCH_ACQUIRE_HW_RESOURCES",
    [TQR_EVENT_DISPATCH_RELEASE_HW_RESOURCES] = "DISPATCH_RELEASE_HW_RESOURCES",
    [TQR_EVENT_DISPATCH_EXECUTE_ACTIONS] = "DISPATCH_EXECUTE_ACTIONS",
    [TQR_EVENT_HAL_CALL] = "HAL_CALL",
    [TQR_EVENT_HAL_QUEUE_WAIT] = "HAL_QUEUE_WAIT",
    [TQR_EVENT_HAL_QUEUE_APPLY_DEFERRED] = "HAL_QUEUE_APPLY_DEFERRED",
    [TQR_EVENT_HAL_QUEUE_SIGNAL] = "HAL_QUEUE_SIGNAL",
    [TQR_EVENT_HAL_COMMAND_BUFFER_COPY_BUFFER] = "HAL_COMMAND_BUFFER_COPY_BUFFER",
    [TQR_EVENT_HAL_COMMAND_BUFFER_PUSH_DESCRIPTOR_SET] = "HAL_COMMAND_BUFFER_PUSH_DESCRIPTOR_SET",
};

const char *tqr_event_kind_name(uint8_t kind) {
  if (kind >= TQR_EVENT_ALLOC && kind <= TQR_EVENT_HOST_WAIT)
    return tqf_action_kind_name((Torq__ActionKind)kind);
  return kind < TQR_EVENT_KIND_COUNT ? other_names[kind] : NULL;
}

tqr_event_class_t tqr_event_kind_class(uint8_t kind) {
  if (kind >= TQR_EVENT_ALLOC && kind <= TQR_EVENT_HOST_WAIT) return TQR_EVENT_CLASS_ACTION;
  if (kind == TQR_EVENT_ERROR) return TQR_EVENT_CLASS_ERROR;
  if (kind >= TQR_EVENT_HAL_CALL && kind < TQR_EVENT_KIND_COUNT) return TQR_EVENT_CLASS_HAL;
  if (kind == TQR_EVENT_INIT || kind == TQR_EVENT_DISPATCH ||
      (kind >= TQR_EVENT_INIT_PREPARE_OUTPUT_DIRS && kind <= TQR_EVENT_DISPATCH_EXECUTE_ACTIONS))
    return TQR_EVENT_CLASS_PHASE;
  return TQR_EVENT_CLASS_NONE;
}

void tqr_event_name(const tqr_event_t *event, char out[TQR_EVENT_NAME_SIZE]) {
  const char *kind = tqr_event_kind_name(event->kind);
  if (!kind) {
    snprintf(out, TQR_EVENT_NAME_SIZE, "UNKNOWN");
  } else if (event->edge == TQR_EDGE_BEGIN) {
    snprintf(out, TQR_EVENT_NAME_SIZE, "%s_BEGIN", kind);
  } else if (event->edge == TQR_EDGE_END) {
    snprintf(out, TQR_EVENT_NAME_SIZE, "%s_END", kind);
  } else {
    snprintf(out, TQR_EVENT_NAME_SIZE, "%s", kind);
  }
}

tq_status_t tqr_profile_create(size_t capacity, tqr_profile_t **out_profile) {
  *out_profile = NULL;
  tqr_profile_t *p = tq_calloc(1, sizeof(*p));
  if (!p) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory for a profile");
  tq_status_t st = tqr_profile_reserve(p, capacity);
  if (st) {
    tq_free(p);
    return st;
  }
  *out_profile = p;
  return NULL;
}

void tqr_profile_destroy(tqr_profile_t *profile) {
  if (!profile) return;
  if (profile->csv) fclose(profile->csv);
  tq_free(profile->events);
  tq_free(profile->path);
  tq_free(profile);
}

uint32_t tqr_profile_next_invocation(tqr_profile_t *profile) {
  return profile->next_invocation++;
}

tq_status_t tqr_profile_reserve(tqr_profile_t *profile, size_t count) {
  if (count <= profile->capacity) return NULL;
  if (count > SIZE_MAX / sizeof(tqr_event_t))
    return TQ_STATUS(TQ_LIMIT, "profile of %zu events is too large", count);
  tqr_event_t *e = tq_realloc(profile->events, count * sizeof(*e));
  if (!e) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory for %zu profile events", count);
  profile->events = e;
  profile->capacity = count;
  return NULL;
}

tq_status_t tqr_profile_open_csv(tqr_profile_t *profile, const char *path) {
  if (profile->csv)
    return TQ_STATUS(TQ_FAILED_PRECONDITION, "the profile already writes to %s", profile->path);
  FILE *f = fopen(path, "w");
  if (!f) return TQ_STATUS(TQ_IO, "cannot create profile file %s: %s", path, strerror(errno));
  if (fputs(TQR_PROFILE_CSV_HEADER, f) == EOF || fflush(f) != 0) {
    int err = errno;
    fclose(f);
    return TQ_STATUS(TQ_IO, "cannot write profile file %s: %s", path, strerror(err));
  }
  profile->path = tq_strndup(path, strlen(path));
  if (!profile->path) {
    fclose(f);
    return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  }
  profile->csv = f;
  return NULL;
}

void tqr_profile_record(tqr_profile_t *profile, const tqr_event_t *event) {
  if (profile->count < profile->capacity)
    profile->events[profile->count++] = *event;
  else
    profile->dropped++;
}

tq_status_t tqr_profile_format_rows(const tqr_event_t *events, size_t count, tq_buf_t *out) {
  char name[TQR_EVENT_NAME_SIZE];
  for (size_t i = 0; i < count; i++) {
    const tqr_event_t *e = &events[i];
    tqr_event_name(e, name);
    TQ_TRY(tq_buf_printf(out, "%s,%" PRIu32 ",%" PRId32 ",%" PRIu64 ",%s\n",
                         e->dispatch ? e->dispatch : "", e->invocation_id, e->action_id,
                         e->timestamp_ns / 1000, name));
  }
  return NULL;
}

tq_status_t tqr_profile_flush(tqr_profile_t *profile) {
  if (!profile->csv) return NULL;
  tq_buf_t rows;
  tq_buf_init(&rows, 0);
  tq_status_t st = tqr_profile_format_rows(profile->events, profile->count, &rows);
  if (!st && rows.len &&
      (fwrite(rows.data, 1, rows.len, profile->csv) != rows.len || fflush(profile->csv) != 0))
    st = TQ_STATUS(TQ_IO, "cannot write profile file %s: %s", profile->path, strerror(errno));
  tq_buf_deinit(&rows);
  if (st) return st;
  profile->count = 0;
  if (profile->dropped) {
    size_t n = profile->dropped;
    profile->dropped = 0;
    return TQ_STATUS(TQ_LIMIT, "profile %s: %zu events were dropped (the event array was full)",
                     profile->path, n);
  }
  return NULL;
}

tq_status_t tqr_profile_close(tqr_profile_t *profile) {
  if (!profile->csv) return NULL;
  tq_status_t st = tqr_profile_flush(profile);
  if (fclose(profile->csv) != 0 && !st)
    st = TQ_STATUS(TQ_IO, "cannot close profile file %s: %s", profile->path, strerror(errno));
  profile->csv = NULL;
  return st;
}

const tqr_event_t *tqr_profile_events(const tqr_profile_t *profile, size_t *out_count) {
  *out_count = profile->count;
  return profile->events;
}

size_t tqr_profile_dropped(const tqr_profile_t *profile) {
  return profile->dropped;
}
