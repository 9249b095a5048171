/* Annotation of runtime profiles (DESIGN 5.3 to 5.5): the runtime profile CSV of a run joined
 * with the debug-info directory that torq-compile wrote for the model, and the three outputs made
 * from it: the annotated CSV, the XLSX workbook and the Perfetto trace.
 *
 *   tqh_debug_info_load     reads DIR/manifest.json, the source copy and the lowered program
 *   tqh_annotate            pairs every <KIND>_BEGIN with its <KIND>_END and gives each executed
 *                           action a row: job, kernels, source operators, units, times
 *   tqh_annotation_write    writes OUT by its extension: .csv, .xlsx or .pb
 *
 * Annotated CSV (RFC 4180, LF line ends), one row per executed action per invocation, in the
 * order the actions began:
 *   action_id                the action (position in the module's action list)
 *   job_id                   NSS_START / NSS_WAIT: the NSS program's job id; empty for every
 *                            other action (they run no NSS program; -1 would read as a job)
 *   operation                the action kind: ALLOC DEALLOC HOST_COPY NSS_START NSS_WAIT
 *                            HOST_START HOST_WAIT
 *   invocation_names         NSS actions: the slice kernels the program runs (distinct, in order,
 *                            space-separated: "conv2d add"); host programs: the operator they
 *                            run (tosa.cast); otherwise empty
 *   original_operators       the source operators, space-separated, as `tosa.conv2d@L12`: from
 *                            the program for NSS and host actions; for the others, the operator
 *                            at the action's location, found in the debug info's copy of the
 *                            source
 *   total_time               timestamp_end - timestamp_start
 *   slice_used_0_in_program .. css_used_in_program   true/false: the units the NSS program uses
 *                            (from its units in the debug info); false for non-NSS actions
 *   timestamp_start, timestamp_end   the action's BEGIN and END, µs as in the profile
 *   location                 the action's source location, loc("model.mlir":12:5)
 * An action that failed (an ERROR row follows its BEGIN) gets a row ending at the ERROR.
 *
 * Work units (overview.h): an NSS program runs from the BEGIN of its NSS_START to the END of its
 * NSS_WAIT, a host program from HOST_START's BEGIN to HOST_WAIT's END; a START and its WAIT are
 * paired by dispatch, invocation and program (the job or host program id of the debug info; in
 * order of start when the debug info does not know them), so programs may overlap. Every pair
 * of HAL_*_BEGIN and _END (the HAL scopes, under __HAL_<NAME>__ dispatch names) is a HAL call.
 * INIT, DISPATCH and their parts are phases. Invocations may interleave (the Torq runtime writes
 * rows in time order across its dispatch runs and HAL scopes): BEGIN and END are paired by
 * dispatch, invocation and action (or event type, for phases and HAL calls).
 *
 * Bad input never stops annotation: every problem goes to `diags` with its file and line and the
 * rest is annotated (rows that cannot be annotated keep their profile fields and empty debug
 * fields). Checked: the profile rows (profile_csv.h); END without BEGIN; BEGIN without END (also
 * when its invocation's DISPATCH, INIT or HAL_CALL ends first); timestamps going backwards; an
 * action id the debug info does not know or whose kind differs (stale debug info or another
 * model's); a dispatch name that holds actions but that the debug info does not have (HAL scopes
 * need none); a missing or malformed debug-info directory; a source copy whose sha256 differs
 * from the manifest, or from options.expected_source_sha256.
 *
 * Ownership: a tqh_debug_info_t owns everything it points to (one arena). A tqh_annotation_t owns
 * its rows, spans and diagnostics, and holds its debug info (freed with the last holder); rows
 * borrow strings from the debug info.
 *
 * The annotate component (harness/src/annotate/) owns annotation and everything about
 * profiles: this header, profile_csv.h, perfetto.h, overview.h and intervals.h.
 */
#ifndef TORQ_HARNESS_ANNOTATE_H
#define TORQ_HARNESS_ANNOTATE_H

#include <stddef.h>
#include <stdint.h>

#include "torq/base/arena.h"
#include "torq/base/status.h"
#include "torq/harness/diag.h"
#include "torq/harness/profile_csv.h"
#include "torq/sim/hw.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The annotated CSV's header line (without its LF). */
#define TQH_ANNOTATED_CSV_HEADER                                                                    \
  "action_id,job_id,operation,invocation_names,original_operators,total_time,"                     \
  "slice_used_0_in_program,slice_used_1_in_program,dma_in_used_in_program,"                        \
  "dma_out_used_in_program,cdma_used_in_program,css_used_in_program,timestamp_start,"              \
  "timestamp_end,location"

/* The XLSX sheet. */
#define TQH_XLSX_SHEET "Detailed Performance Data"

/* Bit of a unit in a units mask: 1u << tqs_unit_t. */
#define TQH_UNIT_BIT(unit) (1u << (unsigned)(unit))
#define TQH_UNITS_DMA (TQH_UNIT_BIT(TQS_UNIT_DMA_IN) | TQH_UNIT_BIT(TQS_UNIT_DMA_OUT))

/* ---- Debug info ----------------------------------------------------------------------------- */

typedef struct tqh_unit_work_s {
  tqs_unit_t unit;
  const char *id;     /* trace ID: DI0, S3, ... */
  const char *kernel; /* slices and CSS: the kernel; else the unit name */
  uint64_t start, end; /* estimated cycles from the program's start */
} tqh_unit_work_t;

typedef struct tqh_task_s {
  uint64_t start, end; /* estimated cycles */
  const tqh_unit_work_t *work;
  size_t num_work;
} tqh_task_t;

typedef struct tqh_nss_program_s {
  int present;
  uint32_t job_id;
  uint64_t cycles;                /* estimated */
  unsigned units;                 /* TQH_UNIT_BIT mask */
  const char *kernels;            /* distinct slice kernels, space-separated */
  const char *original_operators; /* space-separated */
  const tqh_task_t *tasks;
  size_t num_tasks;
} tqh_nss_program_t;

typedef struct tqh_host_program_s {
  int present;
  const char *op;                 /* tosa.cast */
  const char *original_operators; /* space-separated */
} tqh_host_program_t;

typedef struct tqh_action_s {
  int present;
  uint8_t kind;            /* tqr_event_kind_t 1..7 */
  int64_t job_id;          /* NSS actions; else -1 */
  int64_t host_program_id; /* host actions; else -1 */
  const char *location;    /* loc("file":L:C), or "" */
  const char *original_operators;
} tqh_action_t;

typedef struct tqh_dispatch_s {
  const char *name;     /* main_dispatch_0 */
  const char *program;  /* path of its .torq.mlir */
  tqh_action_t *actions; /* indexed by action id; `present` marks the ids that exist */
  size_t num_actions;
  tqh_nss_program_t *programs; /* indexed by job id */
  size_t num_programs;
  tqh_host_program_t *host_programs; /* indexed by host program id */
  size_t num_host_programs;
} tqh_dispatch_t;

typedef struct tqh_debug_info_s {
  tq_arena_t arena;
  const char *dir;
  const char *model;         /* the model path as compiled */
  const char *source;        /* path of the source copy */
  const char *source_sha256; /* from the manifest */
  const char *hw_spec;
  uint64_t clock_hz;
  tqh_dispatch_t *dispatches;
  size_t num_dispatches;
  size_t refs; /* holders: 1 from tqh_debug_info_load, +1 per tqh_debug_info_ref */
} tqh_debug_info_t;

/* Loads DIR. Errors (the directory or manifest missing: TQ_NOT_FOUND; malformed manifest or
 * program: TQ_INVALID_INPUT, located) are returned; softer problems (a source copy that is
 * missing or does not match its sha256, operators that cannot be resolved) go to `diags`
 * (may be NULL). The caller owns *out (tqh_debug_info_destroy). */
tq_status_t tqh_debug_info_load(const char *dir, tqh_diags_t *diags,
                                tqh_debug_info_t **out) TQ_MUST_USE;
/* One holder less; the last one frees it (accepts NULL). */
void tqh_debug_info_destroy(tqh_debug_info_t *info);
/* One holder more (a process that annotates profiles of one model again and again keeps its
 * debug info, and each annotation holds it too); returns `info`. Not thread-safe. */
tqh_debug_info_t *tqh_debug_info_ref(tqh_debug_info_t *info);

/* The dispatch named `name`, or NULL. */
const tqh_dispatch_t *tqh_debug_info_dispatch(const tqh_debug_info_t *info, const char *name);

/* ---- Annotation ----------------------------------------------------------------------------- */

typedef struct tqh_annotate_options_s {
  /* When set (64 lower-case hex digits), the debug info must be of the model with this source
   * sha256; a mismatch is an error diagnostic ("debug info from another model"). */
  const char *expected_source_sha256;
} tqh_annotate_options_t;

void tqh_annotate_options_initialize(tqh_annotate_options_t *options);

typedef struct tqh_row_s {
  uint32_t invocation_id;
  int32_t action_id;
  int64_t job_id; /* -1: none (written as an empty field) */
  uint8_t kind;   /* tqr_event_kind_t, from the profile */
  unsigned units; /* TQH_UNIT_BIT mask; 0 for non-NSS actions */
  const char *invocation_names;   /* borrowed; "" when none */
  const char *original_operators; /* borrowed; "" when none */
  const char *location;           /* borrowed; "" when unknown */
  uint64_t start_us, end_us;
  uint32_t line; /* of the BEGIN row */
} tqh_row_t;

/* A measured interval: a program (a work unit), a HAL call or a phase. */
typedef struct tqh_span_s {
  uint64_t start_us, end_us;
  uint64_t ready_us;                 /* NSS programs: the END of their START (device start) */
  uint32_t invocation_id;
  uint16_t dispatch;                 /* index into tqh_annotation_t.dispatch_names */
  int64_t id;                        /* job id, host program id (-1 unknown); HAL: the action id */
  uint8_t kind;                      /* NSS_WAIT, HOST_WAIT (programs), a HAL or a phase kind */
  unsigned units;                    /* NSS programs: TQH_UNIT_BIT mask */
  const tqh_nss_program_t *program;  /* NSS programs with debug info; borrowed */
  const char *name;                  /* borrowed: kernels, host op, or the event type */
} tqh_span_t;

typedef struct tqh_annotation_s {
  tqh_debug_info_t *debug_info; /* owned; NULL when it could not be loaded */
  char *model_name;             /* owned: the model's file name without .mlir, or "" */
  char **dispatch_names;        /* owned: the profile's dispatch names */
  size_t num_dispatches;
  tqh_row_t *rows;
  size_t num_rows;
  tqh_span_t *nss_runs; /* NSS programs (work units), in the order they ended */
  size_t num_nss_runs;
  tqh_span_t *host_runs; /* host programs */
  size_t num_host_runs;
  tqh_span_t *hal_calls; /* HAL calls */
  size_t num_hal_calls;
  tqh_span_t *phases; /* INIT, DISPATCH and their parts */
  size_t num_phases;
  uint64_t first_us, last_us; /* the first and last timestamp of the run; valid if has_time */
  int has_time;
  uint64_t clock_hz; /* to place compile-time estimates: the debug info's, else 800 MHz */
  tqh_diags_t diags;
  size_t cap_rows, cap_nss, cap_host, cap_hal, cap_phases;
} tqh_annotation_t;

/* Annotates the profile CSV at `profile_path` with the debug-info directory `debug_dir`.
 * Returns an error only when no annotation can be made at all (the profile cannot be read, out
 * of memory); everything else goes to (*out)->diags. `options` may be NULL. The caller owns
 * *out (tqh_annotation_destroy). */
tq_status_t tqh_annotate(const char *debug_dir, const char *profile_path,
                         const tqh_annotate_options_t *options,
                         tqh_annotation_t **out) TQ_MUST_USE;
/* The same with debug info already loaded (tqh_debug_info_load), which the annotation holds
 * (tqh_debug_info_ref): (*out)->diags then holds only the profile's and the annotation's. */
tq_status_t tqh_annotate_with(tqh_debug_info_t *debug_info, const char *profile_path,
                              const tqh_annotate_options_t *options,
                              tqh_annotation_t **out) TQ_MUST_USE;

/* As tqh_annotate, from a parsed profile and loaded debug info (taken over: destroyed with the
 * annotation; may be NULL). Profile diagnostics should already be in `diags`, which is moved
 * into the annotation (and left empty). */
tq_status_t tqh_annotate_parsed(tqh_debug_info_t *debug_info, const tqh_profile_t *profile,
                                const tqh_annotate_options_t *options, tqh_diags_t *diags,
                                tqh_annotation_t **out) TQ_MUST_USE;

void tqh_annotation_destroy(tqh_annotation_t *annotation);

struct tqh_work_unit_s;
/* The work units of the annotation (overview.h): its NSS programs, host programs, host copies
 * and HAL calls, in ns, in *out_units (heap, tq_free; NULL when there are none). */
tq_status_t tqh_annotation_work_units(const tqh_annotation_t *annotation,
                                      struct tqh_work_unit_s **out_units,
                                      size_t *out_count) TQ_MUST_USE;

/* Calls fn(ctx, unit) for each of those work units, in the same order, without an array of them;
 * stops at (and returns) the first error fn returns. */
typedef tq_status_t (*tqh_work_unit_fn)(void *ctx, const struct tqh_work_unit_s *unit);
tq_status_t tqh_annotation_each_work_unit(const tqh_annotation_t *annotation, tqh_work_unit_fn fn,
                                          void *ctx) TQ_MUST_USE;

/* The annotated CSV (above), appended to `out`. */
tq_status_t tqh_annotation_format_csv(const tqh_annotation_t *annotation,
                                      tq_buf_t *out) TQ_MUST_USE;

/* Writers. Each writes its file atomically (temporary name, then rename), so a failure leaves
 * no torn file. Errors: TQ_IO naming the path; TQ_OUT_OF_MEMORY. */
tq_status_t tqh_annotation_write_csv(const tqh_annotation_t *annotation,
                                     const char *path) TQ_MUST_USE;
/* Sheet TQH_XLSX_SHEET (continued in "... (2)" past Excel's 1048576 rows): readable headers,
 * numbers as numbers, flags as booleans, fitted widths, frozen header, autofilter. */
tq_status_t tqh_annotation_write_xlsx(const tqh_annotation_t *annotation,
                                      const char *path) TQ_MUST_USE;
/* The Perfetto trace (perfetto.h), with the default options. */
tq_status_t tqh_annotation_write_perfetto(const tqh_annotation_t *annotation,
                                          const char *path) TQ_MUST_USE;

/* The compiler's per-task estimates (the "(Compile)" tracks: a few slices per task and unit of
 * every NSS program run, thousands for a many-tile model) are drawn for the NSS programs of the
 * first TQH_DEFAULT_MAX_DETAIL_INVOCATIONS invocations, so that a profile of thousands of
 * invocations gives a trace of the profile's order of size. Everything measured, and the
 * overview, uses every invocation. */
#define TQH_DEFAULT_MAX_DETAIL_INVOCATIONS 100

typedef struct tqh_perfetto_options_s {
  /* The first N distinct invocations (dispatch, invocation id; in the order their programs
   * ended) get the estimates; 0: none; SIZE_MAX: all. */
  size_t max_detail_invocations;
  /* Out: the NSS program runs of later invocations, drawn without their estimates. */
  size_t omitted_detail_runs;
  /* Out, when set (initialized by the call; the caller deinitializes it): the metrics of the
   * trace's `Host Profile Overview`, as tqh_overview_read would read them back from the file
   * written, without reading it. Empty when the trace could not be written. */
  struct tqh_overview_s *overview;
} tqh_perfetto_options_t;

void tqh_perfetto_options_initialize(tqh_perfetto_options_t *options);
tq_status_t tqh_annotation_write_perfetto_opt(const tqh_annotation_t *annotation,
                                              const char *path,
                                              tqh_perfetto_options_t *options) TQ_MUST_USE;

/* Writes by extension (.csv, .xlsx, .pb); TQ_INVALID_ARGUMENT for any other. */
tq_status_t tqh_annotation_write(const tqh_annotation_t *annotation,
                                 const char *path) TQ_MUST_USE;

/* 1 when `path` ends in an extension tqh_annotation_write knows. */
int tqh_output_kind_known(const char *path);

#ifdef __cplusplus
}
#endif
#endif
