/* Perfetto traces (.pb) of annotated profiles, and reading them back (DESIGN 5.5).
 *
 * What the writer produces (tqh_annotation_write_perfetto): a stream of TracePackets, every one on
 * trusted_packet_sequence_id 1 (the first with sequence_flags = SEQ_INCREMENTAL_STATE_CLEARED):
 * first the TrackDescriptors, then TrackEvent SLICE_BEGIN / SLICE_END pairs with ns timestamps
 * (the profile's µs × 1000). Tracks are a two-level tree (top-level tracks are what the Torq tools
 * call processes, with child_ordering CHRONOLOGICAL as theirs; their children are threads):
 *   Host                   Dispatch (INIT, DISPATCH and their parts), NSS Programs and Host
 *                          Programs (the work units of annotate.h), HAL (HAL calls), NSS Actions
 *                          (NSS_START / NSS_WAIT), Host Actions (HOST_START / HOST_WAIT), Host
 *                          Copy, Alloc (ALLOC, DEALLOC)
 *   NPU Task Breakdown     NDMA In, NDMA Out, CDMA, Slice 0, Slice 1, CSS: the measured NSS
 *                          programs that use the unit; then NSS CFG Tasks (Compile), NDMA In
 *                          (Compile), ..., CSS (Compile): the compiler's estimates of each task
 *                          and unit at the debug info's clock, from the moment the device could
 *                          start their program (the END of its NSS_START), as long as estimated
 *   Host Profile Overview  one thread per metric (overview.h: `00 OVERVIEW DMA COMBINED` ...
 *                          `15 OVERALL`, then ours), one slice each from the run's start that
 *                          lasts the metric, named `<label>: <duration> (<pct>%)`, category
 *                          `overview`
 * Every slice is closed; slices of one track never overlap (a slice that would overlap the one
 * before it on its track starts where that one ends). Names that repeat (actions', programs',
 * estimates') are interned: inline at their first use; at the second, the packet defines them in
 * interned_data.event_names {iid, name} and from then on events carry name_iid; packets that use
 * an iid have sequence_flags SEQ_NEEDS_INCREMENTAL_STATE (2). Names used once (phases, HAL calls,
 * the overview) stay inline. The estimates are drawn for the first max_detail_invocations
 * invocations only (annotate.h: tqh_perfetto_options_t).
 *
 * The reader takes names and categories inline or by iid (interned_data of an earlier packet of
 * the sequence; a packet with SEQ_INCREMENTAL_STATE_CLEARED forgets them), so traces written
 * before interning read as before; an iid no packet defined is an error.
 *
 * The reader checks what Perfetto's trace processor lets pass silently: a truncated last packet,
 * an event on an undeclared track, a slice left open (dur -1), an END without BEGIN, an event
 * without timestamp.
 *
 * Ownership: a tqh_trace_t in caller storage owns its tracks, slices and their names.
 *
 * Part of the annotate component (harness/src/annotate/README.md).
 */
#ifndef TORQ_HARNESS_PERFETTO_H
#define TORQ_HARNESS_PERFETTO_H

#include <stddef.h>
#include <stdint.h>

#include "torq/base/status.h"
#include "torq/harness/diag.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TQH_TRACK_HOST "Host"
#define TQH_TRACK_NPU "NPU Task Breakdown"
#define TQH_TRACK_OVERVIEW "Host Profile Overview"
/* What the tracks of the compiler's estimates add to the unit's name: "Slice 0 (Compile)". */
#define TQH_TRACK_COMPILE_SUFFIX " (Compile)"

typedef struct tqh_trace_track_s {
  uint64_t uuid;
  uint64_t parent_uuid; /* 0 for top-level tracks */
  char *name;           /* owned */
} tqh_trace_track_t;

typedef struct tqh_trace_slice_s {
  uint64_t track_uuid;
  uint64_t start_ns, end_ns;
  char *name;     /* owned */
  char *category; /* owned: the first of its SLICE_BEGIN's categories; NULL when none */
} tqh_trace_slice_t;

typedef struct tqh_trace_s {
  tqh_trace_track_t *tracks; /* in the order of their descriptors */
  size_t num_tracks;
  tqh_trace_slice_t *slices; /* in the order they ended */
  size_t num_slices;
  size_t packets;
  size_t begins, ends; /* SLICE_BEGIN and SLICE_END events */
} tqh_trace_t;

/* The largest trace file tqh_trace_read reads. */
#define TQH_TRACE_MAX_BYTES ((size_t)4 << 30)

/* Parses and checks a trace (above) named `name`. TQ_INVALID_INPUT says what is wrong and at
 * which packet; *out is initialized by the call and freed with tqh_trace_deinit (also on error). */
tq_status_t tqh_trace_parse(const char *name, const void *data, size_t len,
                            tqh_trace_t *out) TQ_MUST_USE;
tq_status_t tqh_trace_read(const char *path, tqh_trace_t *out) TQ_MUST_USE;
void tqh_trace_deinit(tqh_trace_t *trace);

/* The first track named `name` whose parent is `parent_uuid` (0: top-level), or NULL. */
const tqh_trace_track_t *tqh_trace_find(const tqh_trace_t *trace, const char *name,
                                        uint64_t parent_uuid);

/* Compile-time-only mode: the compile-time trace CSV (DESIGN 5.2) at `csv_path` as a Perfetto
 * trace at `out_path` with one top-level track, NPU Task Breakdown, and its unit tracks (NDMA
 * In, NDMA Out, CDMA, CSS, and Slice 0, Slice 1, ... for the S rows: a slice row goes on the
 * lowest-numbered slice track free at its start). Cycles become ns at `clock_hz` (0: 800 MHz).
 * Bad rows go to `diags` with their line and are skipped; a missing file is an error. */
tq_status_t tqh_compile_trace_to_perfetto(const char *csv_path, uint64_t clock_hz,
                                          const char *out_path, tqh_diags_t *diags) TQ_MUST_USE;

#ifdef __cplusplus
}
#endif
#endif
