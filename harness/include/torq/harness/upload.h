/* Results upload (`torq-test --upload=URL`, `torq-test upload RUN_DIR`): every finished test's
 * report.json (and, on request, its profile files) is POSTed to a results server while the run
 * goes on, and the run is marked complete at the end. The same outbox, retries and backlog carry
 * the results to the Torq performance dashboard instead (below).
 *
 * The outbox of a run is RUN_DIR/upload/: `queue` (one line per item, "SEQ test ID" or
 * "SEQ complete -", appended by the runner in the order the tests finished), `sent` (one line
 * "SEQ RUN_ID" per item the server accepted under that run id), `url` (where the run uploads)
 * and `log` (one line per failed attempt or rejection; never the token). Items are sent strictly in queue order, so the
 * server sees the tests in the order they finished and the completion last. What is in `queue`
 * but not in `sent` is the backlog: a server that is down or slow never fails nor stalls the run,
 * and `torq-test upload RUN_DIR` sends the backlog later.
 *
 * The requests (URL is the base given by --upload, without a trailing slash):
 *   POST URL/runs/RUN_ID/tests/TEST_ID              report.json    (application/json)
 *   POST URL/runs/RUN_ID/tests/TEST_ID/files/NAME   a profile file (application/octet-stream)
 *   POST URL/runs/RUN_ID/complete                   run.json       (application/json)
 * with "Authorization: Bearer TOKEN" when a token is given, "X-Torq-Run: RUN_ID",
 * "X-Torq-Sequence: SEQ" and "Idempotency-Key: RUN_ID/SEQ[/NAME]" (a retried request repeats
 * it: a server that got a request but whose answer was lost can drop the copy). A 2xx answer is
 * success; a transport error, 408, 425, 429 and 5xx are retried with exponential backoff; any
 * other answer (401, 404, ...) is a rejection: nothing more is sent until the next
 * `torq-test upload`. RUN_ID is always the run folder's own name, however RUN_DIR is written.
 *
 * At the end of a run the backlog has grace_s, and a server that does not answer has at most
 * stall_s of it in all: a request that moves no byte for stall_s once the run is over is given
 * up, and so is the rest of the pass (the items stay in the backlog).
 *
 * The Torq performance dashboard (--upload=torq-dashboard+URL, or TORQ_PERF_SERVER=URL without
 * --upload; the token from TORQ_PERF_SERVER_TOKEN): the tests go in batches, each a zip POSTed
 * as the multipart field `file` (a name ending in .zip) to URL/api/test-sessions/upload_zip/,
 * holding test_session.json at its root (the session's fields, the metrics it declares, one
 * test run per test), failure_logs/<id>.log and profiles/<id>.pb; a 201 answers the session's
 * id. Batches of one run share its workflow_url, so they add to one session; the completion is
 * POST URL/api/test-sessions/mark_complete/ with the multipart field `workflow_url`. A batch is
 * sent when options.batch_tests tests wait, when the first of them has waited options.batch_s,
 * or when the run is over; a shard's completion closes nothing (`torq-test merge` closes the
 * session, tqh_upload_merge). The queue, the sent list, the log, the retries and the backlog are
 * those above; the items of a batch become sent together. RUN_DIR/upload/session.json keeps
 * what the batches share (workflow_url, git_commit, git_branch, owner, batch_name, the shard).
 *
 * The transfer component (harness/src/transfer/) owns the results upload and the fetch of models
 * by URL (fetch.h).
 */
#ifndef TORQ_HARNESS_UPLOAD_H
#define TORQ_HARNESS_UPLOAD_H

#include <stddef.h>

#include "torq/base/status.h"
#include "torq/harness/diag.h"

/* The environment variable that holds the token unless --upload-token-env names another. */
#define TQH_UPLOAD_TOKEN_ENV "TORQ_UPLOAD_TOKEN"

/* The Torq dashboard: the prefix of --upload that names it, the Torq framework's variables of
 * its URL and token. */
#define TQH_DASHBOARD_SCHEME "torq-dashboard+"
#define TQH_DASHBOARD_SERVER_ENV "TORQ_PERF_SERVER"
#define TQH_DASHBOARD_TOKEN_ENV "TORQ_PERF_SERVER_TOKEN"

typedef enum tqh_upload_protocol_e {
  TQH_UPLOAD_RESULTS,   /* our results server */
  TQH_UPLOAD_DASHBOARD, /* the Torq performance dashboard */
} tqh_upload_protocol_t;

/* The protocol of an --upload value and, in *out_base, where its server's URL starts in it. */
tqh_upload_protocol_t tqh_upload_protocol(const char *spec, const char **out_base);

typedef struct tqh_upload_options_s {
  const char *url;       /* the --upload value: the server's base URL, or torq-dashboard+URL */
  const char *token;     /* the bearer token, or NULL; never logged nor written */
  int profiles;          /* also POST the profile files of each test */
  double timeout_s;      /* one request, connecting included (default 30) */
  unsigned max_attempts; /* per item and pass (default 5) */
  double backoff_s;      /* the first retry's delay, doubled up to backoff_max_s (0.5, 8) */
  double backoff_max_s;
  double grace_s; /* at the end of a run, how long the backlog may still take (default 30) */
  /* The dashboard: tests per batch at most, and how long the first one may wait for the
   * others while the run goes on (default 8 and 10 s). */
  unsigned batch_tests;
  double batch_s;
  const char *shard; /* "K/N" when the run is a shard of a sharded run, else NULL */
  double stall_s; /* at the end of a run, how long a request may move no byte (default
                   * TQH_UPLOAD_STALL_S) */
} tqh_upload_options_t;

/* The end-of-run wait for a server that does not answer, in seconds (README: Results upload). */
#define TQH_UPLOAD_STALL_S 5.0

/* Fills the defaults above (url and token NULL). */
void tqh_upload_options_initialize(tqh_upload_options_t *options);

/* Checks a --upload URL: http:// or https:// (after torq-dashboard+ for the dashboard), a host,
 * no spaces nor control bytes. */
tq_status_t tqh_upload_check_url(const char *url) TQ_MUST_USE;

/* `url` without its user:password@ part, for messages (heap; tq_free). NULL without memory. */
char *tqh_upload_display_url(const char *url);

/* What a pass over the backlog did. */
typedef struct tqh_upload_report_s {
  size_t sent;      /* items the server accepted in this pass */
  size_t remaining; /* items still in the backlog */
  int rejected;     /* the server refused an item (an answer that a retry will not change) */
  size_t held;      /* items kept back to fill a batch (the dashboard, while the run goes on) */
  char last_error[512]; /* the last failure, "" when none */
} tqh_upload_report_t;

/* Starts the outbox of RUN_DIR for options->url: makes RUN_DIR/upload/ and writes the URL (and
 * whether profiles go too) to RUN_DIR/upload/url, which `torq-test upload` reads back; for the
 * dashboard also session.json (options->shard marks a shard), unless it exists. */
tq_status_t tqh_upload_outbox_create(const char *run_dir,
                                     const tqh_upload_options_t *options) TQ_MUST_USE;

/* What RUN_DIR/upload/url records: the URL (heap, in *out_url; NULL when there is none) and
 * whether profiles go too. */
tq_status_t tqh_upload_outbox_url(const char *run_dir, char **out_url,
                                  int *out_profiles) TQ_MUST_USE;

/* Fills RUN_DIR/upload/queue from the run's journal (every test once, in journal order, then the
 * completion when run.json says the run finished), for a run made without --upload. Does nothing
 * when the queue exists. The journal's lines that cannot be read (their tests are not queued)
 * are named in `diags` (may be NULL). */
tq_status_t tqh_upload_outbox_fill(const char *run_dir, tqh_diags_t *diags) TQ_MUST_USE;

/* Sends the backlog of RUN_DIR in order, each item up to options->max_attempts times, until it is
 * empty, an item fails every attempt, the server rejects one, or CLOCK_MONOTONIC passes
 * `deadline_ns` (0: none). */
tq_status_t tqh_upload_send_backlog(const char *run_dir, const tqh_upload_options_t *options,
                                    unsigned long long deadline_ns,
                                    tqh_upload_report_t *out_report) TQ_MUST_USE;

/* `torq-test merge` and the dashboard: the merged run MERGED_DIR closes the session its shards'
 * batches went to. Its outbox is made for `url` (a torq-dashboard+ value; NULL: TORQ_PERF_SERVER,
 * else the dashboard the shards recorded; none of them: nothing is done, *out_url NULL), its
 * session closes every workflow_url the shards used, and its queue holds the tests of the shards
 * that uploaded nothing, then the completion. *out_url (heap, tq_free) is the URL used; send
 * the backlog with tqh_upload_send_backlog. */
tq_status_t tqh_upload_merge(const char *merged_dir, const char *const *shard_dirs,
                             size_t count, const char *url, char **out_url) TQ_MUST_USE;

/* ---- The uploader of a running run ----------------------------------------------------------- */

/* A child process that sends the outbox while the run goes on (libcurl and its waits stay out of
 * the runner's loop, and out of the test workers' forks). */
typedef struct tqh_uploader_s tqh_uploader_t;

/* Creates the outbox of RUN_DIR (run id `run_id`) and forks the uploader. The options' strings
 * are copied. Call before any test worker is forked; workers must close
 * tqh_uploader_fd(). */
tq_status_t tqh_uploader_create(const char *run_dir, const tqh_upload_options_t *options,
                                tqh_uploader_t **out_uploader) TQ_MUST_USE;

/* The descriptor the runner's forked workers must close (-1 for NULL). */
int tqh_uploader_fd(const tqh_uploader_t *uploader);

/* A test finished and its report.json is written: queue it and wake the uploader. Never blocks;
 * an error only means this item is not queued (the caller reports it). */
tq_status_t tqh_uploader_test_finished(tqh_uploader_t *uploader, const char *test_id) TQ_MUST_USE;

/* The run is over and run.json written: queues the completion, lets the uploader send the
 * backlog for at most grace_s, then stops it (killing it when it overstays) and reports what is
 * left in *out_report. */
tq_status_t tqh_uploader_finish(tqh_uploader_t *uploader,
                                tqh_upload_report_t *out_report) TQ_MUST_USE;

/* Stops the uploader if it runs (no completion queued) and frees it. Accepts NULL. */
void tqh_uploader_destroy(tqh_uploader_t *uploader);

#endif
