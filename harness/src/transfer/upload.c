/* The outbox of a run and the passes that send it (upload.h). A pass reads RUN_DIR/upload/queue
 * and RUN_DIR/upload/sent, and sends the first unsent item, then the next, in order: an item is
 * marked sent only when the server accepted every request of it, so a pass that stops halfway
 * resends the whole item later (with the same Idempotency-Key). For the Torq dashboard the
 * tests that follow each other go in batches (dashboard.c), marked sent together. The queue and
 * the sent list are appended with one write() per line (journal.c), so that a crash tears at
 * most a last line, which readers ignore. The requests themselves are upload_http.c's. */
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "torq/base/alloc.h"
#include "torq/base/file.h"
#include "torq/harness/process.h"
#include "transfer_internal.h"

#define OUTBOX_MAX_BYTES ((size_t)64 << 20)
#define BODY_MAX_BYTES ((size_t)1 << 30)
#define MAX_ITEMS ((size_t)10 << 20)

/* The profile files a test may have, sent with --upload-profiles when present. */
static const char *const k_profile_files[] = {"profile.csv", "annotated.csv", "profile.pb",
                                              "profile.xlsx", "trace.csv"};

void tqh_upload_options_initialize(tqh_upload_options_t *o) {
  memset(o, 0, sizeof(*o));
  o->timeout_s = 30;
  o->max_attempts = 5;
  o->backoff_s = 0.5;
  o->backoff_max_s = 8;
  o->grace_s = 30;
  o->stall_s = TQH_UPLOAD_STALL_S;
  o->batch_tests = 8;
  o->batch_s = 10;
}

tqh_upload_protocol_t tqh_upload_protocol(const char *spec, const char **out_base) {
  size_t n = strlen(TQH_DASHBOARD_SCHEME);
  int dashboard = !strncmp(spec, TQH_DASHBOARD_SCHEME, n);
  if (out_base) *out_base = dashboard ? spec + n : spec;
  return dashboard ? TQH_UPLOAD_DASHBOARD : TQH_UPLOAD_RESULTS;
}

tq_status_t tqh_upload_check_url(const char *spec) {
  const char *url;
  tqh_upload_protocol(spec, &url);
  const char *rest = NULL;
  if (!strncmp(url, "http://", 7)) rest = url + 7;
  if (!strncmp(url, "https://", 8)) rest = url + 8;
  if (!rest) return TQ_STATUS(TQ_INVALID_ARGUMENT, "'%s' is not an http:// or https:// URL", url);
  if (!*rest || *rest == '/')
    return TQ_STATUS(TQ_INVALID_ARGUMENT, "'%s' names no host", url);
  for (const char *p = url; *p; p++)
    if ((unsigned char)*p <= ' ' || *p == 0x7f || *p == '?' || *p == '#')
      return TQ_STATUS(TQ_INVALID_ARGUMENT,
                       "'%s': a space, control byte, query or fragment in the URL", url);
  return NULL;
}

char *tqh_upload_display_url(const char *spec) {
  const char *url = spec, *host = strstr(url, "://");
  host = host ? host + 3 : url;
  size_t end = strcspn(host, "/");
  const char *at = memchr(host, '@', end);
  if (!at) return tq_strndup(url, strlen(url));
  tq_buf_t b;
  tq_buf_init(&b, 0);
  tq_status_t st = tq_buf_append(&b, url, (size_t)(host - url));
  if (!st) st = tq_buf_append_cstr(&b, at + 1);
  char *out = st ? NULL : tq_buf_detach(&b);
  tq_status_free(st);
  tq_buf_deinit(&b);
  return out;
}

static tq_status_t outbox_path(const char *run_dir, const char *name, tq_buf_t *out) {
  tq_buf_clear(out);
  return tq_buf_printf(out, "%s/upload%s%s", run_dir, *name ? "/" : "", name);
}

tq_status_t tqh__upload_run_id(const char *run_dir, tq_buf_t *out) {
  tq_buf_clear(out);
  char resolved[PATH_MAX];
  const char *path = realpath(run_dir, resolved) ? resolved : run_dir;
  /* Without the folder (a run folder being made, say): its name as written, whatever trailing
   * slashes or "." parts it has. */
  size_t end = strlen(path);
  for (;;) {
    while (end > 1 && path[end - 1] == '/') end--;
    if (end >= 2 && path[end - 1] == '.' && path[end - 2] == '/')
      end -= 2;
    else
      break;
  }
  size_t start = end;
  while (start && path[start - 1] != '/') start--;
  if (start == end || (end - start == 1 && path[start] == '.') ||
      (end - start == 2 && !memcmp(path + start, "..", 2)))
    return TQ_STATUS(TQ_INVALID_ARGUMENT, "%s: not a run folder (it has no name)", run_dir);
  return tq_buf_append(out, path + start, end - start);
}

tq_status_t tqh__upload_outbox_append(const char *run_dir, const char *name, const char *line) {
  tq_buf_t path;
  tq_buf_init(&path, 0);
  tq_status_t st = outbox_path(run_dir, name, &path);
  tqh_journal_t j;
  if (!st) st = tqh_journal_open(&j, path.data, 0, 0);
  if (!st) {
    st = tqh_journal_append(&j, line, strlen(line));
    tqh_journal_close(&j);
  }
  tq_buf_deinit(&path);
  return st;
}

tq_status_t tqh__upload_queue_open(const char *run_dir, tqh_journal_t *out_queue) {
  tq_buf_t path;
  tq_buf_init(&path, 0);
  tq_status_t st = outbox_path(run_dir, "queue", &path);
  if (!st) st = tqh_journal_open(out_queue, path.data, 0, 0);
  tq_buf_deinit(&path);
  return st;
}

tq_status_t tqh__upload_enqueue(tqh_journal_t *queue, unsigned long seq, const char *kind,
                                const char *id) {
  char line[320];
  int n = snprintf(line, sizeof(line), "%lu %s %s", seq, kind, id);
  if (n < 0 || (size_t)n >= sizeof(line) || strpbrk(id, " \n"))
    return TQ_STATUS(TQ_INVALID_ARGUMENT, "'%s' cannot be an upload item", id);
  return tqh_journal_append(queue, line, (size_t)n);
}

tq_status_t tqh_upload_outbox_create(const char *run_dir, const tqh_upload_options_t *o) {
  tq_buf_t path, text;
  tq_buf_init(&path, 0);
  tq_buf_init(&text, 0);
  tq_status_t st = outbox_path(run_dir, "", &path);
  if (!st) st = tq_file_mkdirs(path.data);
  if (!st) st = outbox_path(run_dir, "url", &path);
  if (!st) st = tq_buf_printf(&text, "%s\n%s", o->url, o->profiles ? "profiles\n" : "");
  if (!st) st = tq_file_write_atomic(path.data, text.data, text.len);
  if (!st && tqh_upload_protocol(o->url, NULL) == TQH_UPLOAD_DASHBOARD)
    st = tqh__dashboard_session_create(run_dir, o->shard);
  tq_buf_deinit(&path);
  tq_buf_deinit(&text);
  return st;
}

/* The bytes of `path` from offset `from` on into `out` (at most `limit`); *out_found 0 when
 * the file does not exist. */
static tq_status_t read_optional(const char *path, size_t from, size_t limit, tq_buf_t *out,
                                 int *out_found) {
  *out_found = 0;
  tq_buf_clear(out);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) return NULL;
  if (fd < 0) return TQ_STATUS(TQ_IO, "%s: cannot open: %s", path, strerror(errno));
  *out_found = 1;
  struct stat sb;
  tq_status_t st = NULL;
  if (fstat(fd, &sb) != 0) st = TQ_STATUS(TQ_IO, "%s: %s", path, strerror(errno));
  size_t size = !st && (size_t)sb.st_size > from ? (size_t)sb.st_size - from : 0;
  if (!st && size > limit) st = TQ_STATUS(TQ_LIMIT, "%s: larger than %zu bytes", path, limit);
  if (!st) st = tq_buf_reserve_filled(out, size + 1);
  while (!st && out->len < size) {
    ssize_t n = pread(fd, out->data + out->len, size - out->len, (off_t)(from + out->len));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) st = TQ_STATUS(TQ_IO, "%s: cannot read: %s", path, strerror(errno));
    if (n <= 0) break; /* shorter than it was: what was read is what there is */
    out->len += (size_t)n;
  }
  if (!st) out->data[out->len] = '\0';
  close(fd);
  return st;
}

/* RUN_DIR/upload/NAME from offset `from` on (see read_optional). */
static tq_status_t outbox_read(const char *run_dir, const char *name, size_t from, tq_buf_t *out,
                               int *out_found) {
  tq_buf_t path;
  tq_buf_init(&path, 0);
  tq_status_t st = outbox_path(run_dir, name, &path);
  if (!st) st = read_optional(path.data, from, OUTBOX_MAX_BYTES, out, out_found);
  tq_buf_deinit(&path);
  return st;
}

tq_status_t tqh_upload_outbox_url(const char *run_dir, char **out_url, int *out_profiles) {
  *out_url = NULL;
  *out_profiles = 0;
  tq_buf_t text;
  tq_buf_init(&text, 0);
  int found;
  tq_status_t st = outbox_read(run_dir, "url", 0, &text, &found);
  if (!st && found && text.len) {
    size_t len = strcspn(text.data, "\r\n");
    if (!(*out_url = tq_strndup(text.data, len))) st = TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
    *out_profiles = strstr(text.data + len, "\nprofiles\n") != NULL;
  }
  tq_buf_deinit(&text);
  return st;
}

/* ---- The queue as read back ------------------------------------------------------------------ */

typedef struct item_s {
  unsigned long seq;
  int complete;       /* the completion; otherwise a test */
  uint64_t queued_ns; /* when this pass's reader first saw it (CLOCK_MONOTONIC) */
  char id[256];
} item_t;

struct tqh__upload_outbox_s {
  item_t *items;
  size_t count, cap;
  unsigned char *sent; /* by seq, [0, max_seq] */
  unsigned long max_seq;
  size_t sent_size; /* bytes of `sent` */
  size_t first;     /* items before it are all sent */
  size_t remaining; /* items not sent */
  size_t queue_pos; /* the bytes of the queue read so far (whole lines) */
  size_t lineno;
  int sent_loaded;
};
typedef tqh__upload_outbox_t outbox_t;

tqh__upload_outbox_t *tqh__upload_outbox_new(void) { return tq_calloc(1, sizeof(outbox_t)); }

static void outbox_deinit(outbox_t *o) {
  tq_free(o->items);
  tq_free(o->sent);
  memset(o, 0, sizeof(*o));
}

void tqh__upload_outbox_free(tqh__upload_outbox_t *o) {
  if (!o) return;
  outbox_deinit(o);
  tq_free(o);
}

/* Complete lines of `text` (a torn last line is ignored), one at a time. */
static int next_line(const tq_buf_t *text, size_t *pos, const char **out_line, size_t *out_len) {
  if (!text->data || *pos >= text->len) return 0;
  const char *start = text->data + *pos;
  const char *nl = memchr(start, '\n', text->len - *pos);
  if (!nl) return 0;
  *out_line = start;
  *out_len = (size_t)(nl - start);
  *pos += *out_len + 1;
  return 1;
}

static int parse_seq(const char *s, size_t len, unsigned long *out) {
  if (!len || len > 9) return 0;
  unsigned long v = 0;
  for (size_t i = 0; i < len; i++) {
    if (s[i] < '0' || s[i] > '9') return 0;
    v = v * 10 + (unsigned long)(s[i] - '0');
  }
  *out = v;
  return v > 0;
}

/* One queue line as an item; 0 when it is not one. */
static int parse_item(const char *line, size_t len, item_t *it) {
  memset(it, 0, sizeof(*it));
  const char *sp1 = memchr(line, ' ', len);
  const char *sp2 = sp1 ? memchr(sp1 + 1, ' ', len - (size_t)(sp1 + 1 - line)) : NULL;
  size_t idlen = sp2 ? len - (size_t)(sp2 + 1 - line) : 0;
  if (!sp2 || !parse_seq(line, (size_t)(sp1 - line), &it->seq) || !idlen ||
      idlen >= sizeof(it->id) || it->seq > MAX_ITEMS)
    return 0;
  memcpy(it->id, sp2 + 1, idlen);
  size_t kl = (size_t)(sp2 - sp1 - 1);
  it->complete = kl == 8 && !memcmp(sp1 + 1, "complete", 8);
  return it->complete || (kl == 4 && !memcmp(sp1 + 1, "test", 4) && tqh_results_id_is_safe(it->id));
}

/* Reads what the queue gained since the last call (all of it, and the sent list, the first
 * time): a long run's uploader reads each line once. A line that is not an item is skipped and
 * named in `problems`. */
static tq_status_t outbox_refresh(const char *run_dir, outbox_t *o, tq_buf_t *problems) {
  tq_buf_t text;
  tq_buf_init(&text, 0);
  int found;
  size_t pos = 0, len, old_count = o->count;
  const char *line;
  tq_status_t st = outbox_read(run_dir, "queue", o->queue_pos, &text, &found);
  uint64_t now = tqh_now_ns();
  while (!st && next_line(&text, &pos, &line, &len)) {
    o->lineno++;
    item_t it;
    if (!parse_item(line, len, &it)) {
      st = tq_buf_printf(problems, "upload/queue:%zu: not an upload item; skipped\n", o->lineno);
      continue;
    }
    if (o->count == o->cap) {
      size_t ncap = o->cap ? o->cap * 2 : 64;
      item_t *n = tq_realloc(o->items, ncap * sizeof(*n));
      if (!n) {
        st = TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
        break;
      }
      o->items = n;
      o->cap = ncap;
    }
    it.queued_ns = now;
    o->items[o->count++] = it;
    if (it.seq > o->max_seq) o->max_seq = it.seq;
  }
  o->queue_pos += pos;
  unsigned char *sent = st ? NULL : tq_realloc(o->sent, o->max_seq + 1);
  if (!st && !sent) st = TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  if (!st) {
    /* New sequence numbers start unsent. */
    size_t had = o->sent ? o->sent_size : 0;
    memset(sent + had, 0, o->max_seq + 1 - had);
    o->sent = sent;
    o->sent_size = o->max_seq + 1;
  }
  if (!st && !o->sent_loaded) {
    /* "SEQ RUN_ID": sent under that run id. Only this run id counts, so that an item sent under
     * another one (a renamed or copied run folder, or an upload that took its id from a wrong
     * path) is sent again; a line without a run id (older outboxes) is of unknown id. */
    tq_buf_t id;
    tq_buf_init(&id, 0);
    st = tqh__upload_run_id(run_dir, &id);
    if (!st) st = outbox_read(run_dir, "sent", 0, &text, &found);
    pos = 0;
    unsigned long seq;
    while (!st && next_line(&text, &pos, &line, &len)) {
      const char *sp = memchr(line, ' ', len);
      if (sp && parse_seq(line, (size_t)(sp - line), &seq) && seq <= o->max_seq &&
          (size_t)(line + len - sp - 1) == id.len && !memcmp(sp + 1, id.data, id.len))
        o->sent[seq] = 1;
    }
    tq_buf_deinit(&id);
    o->sent_loaded = !st;
  }
  for (size_t i = old_count; !st && i < o->count; i++) o->remaining += !o->sent[o->items[i].seq];
  tq_buf_deinit(&text);
  return st;
}

tq_status_t tqh__upload_read_run_file(const char *run_dir, const char *id, const char *name,
                                      size_t limit, tq_buf_t *out, int *out_found) {
  tq_buf_t path;
  tq_buf_init(&path, 0);
  tq_status_t st = id ? tq_buf_printf(&path, "%s/%s/%s", run_dir, id, name)
                      : tq_buf_printf(&path, "%s/%s", run_dir, name);
  if (!st) st = read_optional(path.data, 0, limit, out, out_found);
  tq_buf_deinit(&path);
  return st;
}

/* Sends every request of one item to our results server. */
static tqh__verdict_t send_item(tqh__pass_t *p, const item_t *it) {
  tq_buf_t url, key, body;
  tq_buf_init(&url, 0);
  tq_buf_init(&key, 0);
  tq_buf_init(&body, 0);
  char what[320];
  tqh__verdict_t v = TQH__SENT;
  int found = 0;
  tq_status_t st = tq_buf_printf(&url, "%.*s/runs/%s/", (int)p->base_len, p->base, p->run_id);
  if (!st) st = tq_buf_printf(&key, "%s/%lu", p->run_id, it->seq);
  size_t url_len = url.len, key_len = key.len;
  if (it->complete) {
    snprintf(what, sizeof(what), "item %lu (run complete)", it->seq);
    if (!st) st = tq_buf_append_cstr(&url, "complete");
    if (!st)
      st = tqh__upload_read_run_file(p->run_dir, NULL, "run.json", BODY_MAX_BYTES, &body, &found);
  } else {
    snprintf(what, sizeof(what), "item %lu (test %s)", it->seq, it->id);
    if (!st) st = tq_buf_printf(&url, "tests/%s", it->id);
    if (!st)
      st = tqh__upload_read_run_file(p->run_dir, it->id, "report.json", BODY_MAX_BYTES, &body,
                                     &found);
  }
  if (!st && !found) {
    /* Nothing to send will ever appear: say so and let the items after it go. */
    tqh__upload_log(p, "%s: %s is missing; skipped", what,
                    it->complete ? "run.json" : "report.json");
    goto done;
  }
  tqh__request_t rq = {url.data, "application/json", key.data, it->seq, body.data, body.len,
                       NULL, NULL, NULL, 0};
  if (!st) v = tqh__upload_send(p, &rq, what);
  for (size_t f = 0; !st && v == TQH__SENT && !it->complete && p->o->profiles &&
                     f < sizeof(k_profile_files) / sizeof(*k_profile_files);
       f++) {
    const char *name = k_profile_files[f];
    tq_buf_clear(&body);
    st = tqh__upload_read_run_file(p->run_dir, it->id, name, BODY_MAX_BYTES, &body, &found);
    if (st || !found) continue;
    url.len = url_len;
    key.len = key_len;
    st = tq_buf_printf(&url, "tests/%s/files/%s", it->id, name);
    if (!st) st = tq_buf_printf(&key, "/%s", name);
    char part[400];
    snprintf(part, sizeof(part), "%s %s", what, name);
    tqh__request_t frq = {url.data, "application/octet-stream", key.data, it->seq, body.data,
                          body.len, NULL, NULL, NULL, 0};
    if (!st) v = tqh__upload_send(p, &frq, part);
  }
done:
  if (st) v = tqh__upload_local_fault(p, what, st);
  tq_buf_deinit(&url);
  tq_buf_deinit(&key);
  tq_buf_deinit(&body);
  return v;
}

/* Marks items[from, to) sent under the pass's run id (the unsent ones). */
static tq_status_t mark_sent(const tqh__pass_t *p, outbox_t *box, size_t from, size_t to,
                             tqh_upload_report_t *report) {
  for (size_t i = from; i < to; i++) {
    const item_t *it = &box->items[i];
    if (box->sent[it->seq]) continue;
    char line[320];
    snprintf(line, sizeof(line), "%lu %s", it->seq, p->run_id);
    TQ_TRY(tqh__upload_outbox_append(p->run_dir, "sent", line));
    box->sent[it->seq] = 1;
    box->remaining--;
    report->sent++;
  }
  return NULL;
}

/* The dashboard: the unsent tests from box->first on, at most batch_tests of them and never
 * past a completion, into one batch; items[first, *out_end) are the ones it covers. 0 when the
 * batch should wait for more tests (and ctl->hold_s says how long). */
static int dashboard_batch(const tqh__pass_t *p, const outbox_t *box, const char **ids,
                           size_t *out_n, size_t *out_end) {
  size_t max = p->o->batch_tests ? p->o->batch_tests : 1, n = 0, i = box->first;
  for (; i < box->count && n < max && !box->items[i].complete; i++)
    if (!box->sent[box->items[i].seq]) ids[n++] = box->items[i].id;
  *out_n = n;
  *out_end = i;
  int more_coming = i == box->count; /* no completion after it yet: the run goes on */
  if (!p->ctl->hold_batches || p->ctl->finishing || n >= max || !more_coming || !n) return 1;
  uint64_t waited = tqh_now_ns() - box->items[box->first].queued_ns;
  uint64_t limit = (uint64_t)(p->o->batch_s * 1e9);
  if (waited >= limit) return 1;
  p->ctl->hold_s = (double)(limit - waited) / 1e9;
  return 0;
}

tq_status_t tqh__upload_pass(const char *run_dir, const tqh_upload_options_t *options,
                             tqh__upload_ctl_t *ctl, tqh_upload_report_t *out_report) {
  memset(out_report, 0, sizeof(*out_report));
  ctl->transport_failure = 0;
  ctl->hold_s = 0;
  outbox_t local;
  memset(&local, 0, sizeof(local));
  outbox_t *box = ctl->box ? ctl->box : &local;
  tq_buf_t problems;
  tq_buf_init(&problems, 0);
  tq_status_t st = outbox_refresh(run_dir, box, &problems);
  tq_buf_deinit(&problems);
  tq_buf_t run_id;
  tq_buf_init(&run_id, 0);
  if (!st) st = tqh__upload_run_id(run_dir, &run_id);
  tqh__pass_t p = {run_dir, run_id.data ? run_id.data : "", options, NULL, 0, ctl, NULL,
                   out_report};
  int dashboard = tqh_upload_protocol(options->url, &p.base) == TQH_UPLOAD_DASHBOARD;
  p.base_len = strlen(p.base);
  while (p.base_len && p.base[p.base_len - 1] == '/') p.base_len--;
  const char **ids = NULL;
  if (!st && dashboard &&
      !(ids = tq_calloc(options->batch_tests ? options->batch_tests : 1, sizeof(*ids))))
    st = TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  if (!st && box->remaining && !(p.curl = curl_easy_init()))
    st = TQ_STATUS(TQ_UNAVAILABLE, "libcurl cannot make a handle");
  while (!st && box->first < box->count) {
    const item_t *it = &box->items[box->first];
    if (box->sent[it->seq]) {
      box->first++;
      continue;
    }
    size_t end = box->first + 1, n = 0;
    tqh__verdict_t v;
    if (!dashboard) {
      v = send_item(&p, it);
    } else if (it->complete) {
      v = tqh__dashboard_complete(&p, it->seq);
    } else if (dashboard_batch(&p, box, ids, &n, &end)) {
      v = tqh__dashboard_send_batch(&p, ids, n, it->seq, box->items[end - 1].seq);
    } else {
      out_report->held = n;
      break;
    }
    if (v != TQH__SENT) {
      out_report->rejected = v == TQH__REJECTED;
      break;
    }
    st = mark_sent(&p, box, box->first, end, out_report);
    if (!st) box->first = end;
  }
  out_report->remaining = box->remaining;
  if (p.curl) curl_easy_cleanup(p.curl);
  tq_free(ids);
  tq_buf_deinit(&run_id);
  if (box == &local) outbox_deinit(&local);
  return st;
}

tq_status_t tqh__upload_status(const char *run_dir, tqh_upload_report_t *out_report) {
  memset(out_report, 0, sizeof(*out_report));
  outbox_t box;
  memset(&box, 0, sizeof(box));
  tq_buf_t text;
  tq_buf_init(&text, 0);
  tq_status_t st = outbox_refresh(run_dir, &box, &text);
  out_report->remaining = box.remaining;
  outbox_deinit(&box);
  int found;
  if (!st && out_report->remaining) st = outbox_read(run_dir, "log", 0, &text, &found);
  if (!st && out_report->remaining && text.len) {
    /* The last complete line, without its time stamp. */
    size_t end = text.len;
    while (end && text.data[end - 1] == '\n') end--;
    size_t start = end;
    while (start && text.data[start - 1] != '\n') start--;
    const char *sp = memchr(text.data + start, ' ', end - start);
    if (sp) start = (size_t)(sp + 1 - text.data);
    snprintf(out_report->last_error, sizeof(out_report->last_error), "%.*s", (int)(end - start),
             text.data + start);
    out_report->rejected = strstr(out_report->last_error, "; rejected, not retried") != NULL;
  }
  tq_buf_deinit(&text);
  return st;
}

tq_status_t tqh_upload_send_backlog(const char *run_dir, const tqh_upload_options_t *options,
                                    unsigned long long deadline_ns,
                                    tqh_upload_report_t *out_report) {
  tqh__upload_ctl_t ctl;
  memset(&ctl, 0, sizeof(ctl));
  ctl.deadline_ns = deadline_ns;
  return tqh__upload_pass(run_dir, options, &ctl, out_report);
}

tq_status_t tqh_upload_outbox_fill(const char *run_dir, tqh_diags_t *diags) {
  tq_buf_t path, text;
  tq_buf_init(&path, 0);
  tq_buf_init(&text, 0);
  tqh_records_t records;
  tqh_records_init(&records);
  size_t *latest = NULL, count = 0; /* a test recorded twice is sent once */
  int found = 0, open = 0;
  tqh_journal_t queue;
  tq_status_t st = outbox_path(run_dir, "queue", &path);
  if (st || access(path.data, F_OK) == 0) goto done;
  if (!st) st = outbox_path(run_dir, "", &path);
  if (!st) st = tq_file_mkdirs(path.data);
  tq_buf_clear(&path);
  if (!st) st = tq_buf_printf(&path, "%s/journal.jsonl", run_dir);
  tqh_journal_read_t info;
  if (!st) st = tqh_journal_read(path.data, &records, diags, &info);
  if (!st) st = tqh_records_latest(&records, &latest, &count);
  /* The run finished when run.json has its finishing time. */
  if (!st) st = tqh__upload_read_run_file(run_dir, NULL, "run.json", BODY_MAX_BYTES, &text, &found);
  if (!st) open = !(st = tqh__upload_queue_open(run_dir, &queue));
  unsigned long seq = 0;
  for (size_t i = 0; !st && i < count; i++) {
    const char *id = records.items[latest[i]].id;
    if (tqh_results_id_is_safe(id)) st = tqh__upload_enqueue(&queue, ++seq, "test", id);
  }
  if (!st && found && text.data && strstr(text.data, "\"finished_at\""))
    st = tqh__upload_enqueue(&queue, ++seq, "complete", "-");
done:
  if (open) tqh_journal_close(&queue);
  tq_free(latest);
  tqh_records_deinit(&records);
  tq_buf_deinit(&path);
  tq_buf_deinit(&text);
  return st;
}
