/* Private to the transfer component: a pass over the results upload's outbox (upload.h,
 * upload.c) as the uploader process (uploader.c) drives it. */
#ifndef TORQ_HARNESS_SRC_TRANSFER_INTERNAL_H
#define TORQ_HARNESS_SRC_TRANSFER_INTERNAL_H

#include <stdint.h>

#include "torq/harness/journal.h"
#include "torq/harness/upload.h"

/* The outbox as read back: its items, which are sent, how many remain. A pass given one (the
 * uploader's, kept for the whole run) reads only what the queue gained since the last pass. */
typedef struct tqh__upload_outbox_s tqh__upload_outbox_t;
tqh__upload_outbox_t *tqh__upload_outbox_new(void); /* NULL without memory */
void tqh__upload_outbox_free(tqh__upload_outbox_t *box);

/* How a pass waits and when it ends. */
typedef struct tqh__upload_ctl_s {
  uint64_t deadline_ns; /* CLOCK_MONOTONIC; 0: none. `wait` may set it. */
  /* The run is over: a transport failure (no server answering) ends the pass at once instead of
   * being retried. `wait` may set it. */
  int finishing;
  /* Waits `seconds` between attempts (or less, when something happened); NULL: sleeps. */
  void (*wait)(struct tqh__upload_ctl_s *ctl, double seconds);
  void *ctx;
  tqh__upload_outbox_t *box; /* NULL: the pass reads the whole outbox afresh */
  /* Out: the last failure was a transport error (no HTTP answer). */
  int transport_failure;
} tqh__upload_ctl_t;

/* One pass over the backlog of `run_dir` (see tqh_upload_send_backlog). */
tq_status_t tqh__upload_pass(const char *run_dir, const tqh_upload_options_t *options,
                             tqh__upload_ctl_t *ctl, tqh_upload_report_t *out_report) TQ_MUST_USE;

/* What is left in the backlog of `run_dir`, and the last failure the log recorded (rejected
 * when that failure was a rejection); sends nothing. */
tq_status_t tqh__upload_status(const char *run_dir, tqh_upload_report_t *out_report) TQ_MUST_USE;

/* Opens RUN_DIR/upload/queue for appending. */
tq_status_t tqh__upload_queue_open(const char *run_dir, tqh_journal_t *out_queue) TQ_MUST_USE;

/* Appends "SEQ KIND ID" to the queue, with one write(). */
tq_status_t tqh__upload_enqueue(tqh_journal_t *queue, unsigned long seq, const char *kind,
                                const char *id) TQ_MUST_USE;

#endif
