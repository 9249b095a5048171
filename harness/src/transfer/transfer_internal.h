/* Private to the transfer component: a pass over the upload's outbox (upload.h, upload.c) as the
 * uploader process (uploader.c) drives it, its HTTP requests (upload_http.c), the Torq
 * dashboard's batches (dashboard.c) and the zip they travel in (zip.c). */
#ifndef TORQ_HARNESS_SRC_TRANSFER_INTERNAL_H
#define TORQ_HARNESS_SRC_TRANSFER_INTERNAL_H

#include <stdint.h>

#include "torq/base/str.h"
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
  /* The run goes on: the dashboard's batches wait to be full (options.batch_tests), or
   * options.batch_s after their first test was queued, unless `finishing`. */
  int hold_batches;
  uint64_t finishing_ns; /* CLOCK_MONOTONIC when `finishing` was set */
  /* Waits `seconds` between attempts (or less, when something happened); NULL: sleeps. */
  void (*wait)(struct tqh__upload_ctl_s *ctl, double seconds);
  /* Takes in what happened meanwhile without waiting (it may set `finishing`), during a
   * request; NULL: nothing can happen. */
  void (*poll)(struct tqh__upload_ctl_s *ctl);
  void *ctx;
  tqh__upload_outbox_t *box; /* NULL: the pass reads the whole outbox afresh */
  /* Out: the last failure was a transport error (no HTTP answer). */
  int transport_failure;
  /* Out: when items were held back (report.held), how long until their batch is due. */
  double hold_s;
  /* Out: once the run was over, a request moved no byte for stall_s (the server does not
   * answer): nothing more should be tried. */
  int stalled;
} tqh__upload_ctl_t;

/* One pass over the backlog of `run_dir` (see tqh_upload_send_backlog). */
tq_status_t tqh__upload_pass(const char *run_dir, const tqh_upload_options_t *options,
                             tqh__upload_ctl_t *ctl, tqh_upload_report_t *out_report) TQ_MUST_USE;

/* What is left in the backlog of `run_dir`, and the last failure the log recorded (rejected
 * when that failure was a rejection); sends nothing. */
tq_status_t tqh__upload_status(const char *run_dir, tqh_upload_report_t *out_report) TQ_MUST_USE;

/* The run id of `run_dir`: always the run folder's own name (of its real path when it exists),
 * whatever form the path was given in ("RUN/", "./RUN", "/abs/RUN/."), so that no local path
 * reaches the server. TQ_INVALID_ARGUMENT when the path names no folder ("/", ".."). */
tq_status_t tqh__upload_run_id(const char *run_dir, tq_buf_t *out) TQ_MUST_USE;

/* Opens RUN_DIR/upload/queue for appending. */
tq_status_t tqh__upload_queue_open(const char *run_dir, tqh_journal_t *out_queue) TQ_MUST_USE;

/* Appends "SEQ KIND ID" to the queue, with one write(). */
tq_status_t tqh__upload_enqueue(tqh_journal_t *queue, unsigned long seq, const char *kind,
                                const char *id) TQ_MUST_USE;

/* RUN_DIR/NAME (id NULL) or RUN_DIR/ID/NAME read into `out` (at most `limit` bytes, else
 * TQ_LIMIT); *out_found 0 when absent. */
tq_status_t tqh__upload_read_run_file(const char *run_dir, const char *id, const char *name,
                                      size_t limit, tq_buf_t *out, int *out_found) TQ_MUST_USE;

/* Appends one line to RUN_DIR/upload/NAME. */
tq_status_t tqh__upload_outbox_append(const char *run_dir, const char *name,
                                      const char *line) TQ_MUST_USE;

/* ---- A pass's requests (upload_http.c) ------------------------------------------------------- */

typedef struct tqh__pass_s {
  const char *run_dir, *run_id;
  const tqh_upload_options_t *o;
  const char *base; /* the server's URL: without the torq-dashboard+ prefix, trailing '/' */
  size_t base_len;
  tqh__upload_ctl_t *ctl;
  void *curl; /* CURL * */
  tqh_upload_report_t *report;
} tqh__pass_t;

typedef enum tqh__verdict_e { TQH__SENT = 0, TQH__RETRY = 1, TQH__REJECTED = 2 } tqh__verdict_t;

typedef struct tqh__request_s {
  const char *url, *content_type, *idempotency_key;
  unsigned long seq;
  const void *body;
  size_t len;
  /* A multipart form (multipart/form-data) of one field named so, whose value is the body;
   * with a file name, the field is a file of `content_type`. NULL: the body as it is. */
  const char *form_field, *form_filename;
  /* Out: the first line of a successful answer (NULL: not wanted). */
  char *answer;
  size_t answer_size;
} tqh__request_t;

/* Sends one request, retrying as the options and the pass's control say: TQH__SENT,
 * TQH__RETRY (gave up for this pass) or TQH__REJECTED (an answer a retry would not change). Every
 * failed attempt is a line of the outbox's log; `what` names the item there. */
tqh__verdict_t tqh__upload_send(tqh__pass_t *p, tqh__request_t *rq, const char *what);

/* A line "TIME TEXT" in RUN_DIR/upload/log (never the token). */
void tqh__upload_log(tqh__pass_t *p, const char *fmt, ...) TQ_PRINTF(2, 3);

/* A local fault while preparing `what` (memory, a file that cannot be read): recorded as the
 * pass's last error and logged; `st` is freed. The items stay for a later pass: TQH__RETRY. */
tqh__verdict_t tqh__upload_local_fault(tqh__pass_t *p, const char *what, tq_status_t st);

/* ---- The Torq dashboard (dashboard.c) -------------------------------------------------------- */

/* RUN_DIR/upload/session.json: what the batches of this run share (the workflow_url and the
 * session's fields), written once, when the outbox is made, from run.json and the environment;
 * an existing one is kept. `shard` ("K/N") marks a shard, whose completion closes nothing. */
tq_status_t tqh__dashboard_session_create(const char *run_dir, const char *shard) TQ_MUST_USE;

/* One batch: the tests `ids` (their report.json, failure log and profile.pb) in one zip, POSTed
 * to URL/api/test-sessions/upload_zip/. `first_seq`..`last_seq` name the items. */
tqh__verdict_t tqh__dashboard_send_batch(tqh__pass_t *p, const char *const *ids, size_t count,
                                         unsigned long first_seq, unsigned long last_seq);

/* The completion: POST URL/api/test-sessions/mark_complete/ for each workflow the session
 * closes; nothing (and sent) for a shard's. */
tqh__verdict_t tqh__dashboard_complete(tqh__pass_t *p, unsigned long seq);

/* ---- Zip (zip.c) ----------------------------------------------------------------------------- */

typedef struct tqh__zip_s {
  tq_buf_t out;     /* the archive: entries, then (after finish) the directory and its end */
  tq_buf_t central; /* the central directory as it grows */
  size_t entries;
} tqh__zip_t;

void tqh__zip_init(tqh__zip_t *zip);
void tqh__zip_deinit(tqh__zip_t *zip);
/* Adds a stored entry `name` (a relative path, '/' between folders). TQ_LIMIT past 4 GiB. */
tq_status_t tqh__zip_add(tqh__zip_t *zip, const char *name, const void *data,
                         size_t len) TQ_MUST_USE;
/* Writes the central directory: zip->out is the whole archive. */
tq_status_t tqh__zip_finish(tqh__zip_t *zip) TQ_MUST_USE;
/* CRC-32 (IEEE 802.3, as zip uses it). */
uint32_t tqh__crc32(const void *data, size_t len);

#endif
