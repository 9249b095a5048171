/* The outbox of a run and the passes that send it (upload.h). A pass reads RUN_DIR/upload/queue
 * and RUN_DIR/upload/sent, and sends the first unsent item, then the next, in order: an item is
 * marked sent only when the server accepted every request of it, so a pass that stops halfway
 * resends the whole item later (with the same Idempotency-Key). The queue and the sent list are
 * appended with one write() per line (journal.c), so that a crash tears at most a last line,
 * which readers ignore. libcurl's errors become text here, and only here. */
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
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
/* What a response body may add to a message. */
#define ANSWER_MAX 160

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
}

tq_status_t tqh_upload_check_url(const char *url) {
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

char *tqh_upload_display_url(const char *url) {
  const char *host = strstr(url, "://");
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

/* Appends one line to RUN_DIR/upload/NAME. */
static tq_status_t outbox_append(const char *run_dir, const char *name, const char *line) {
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

tq_status_t tqh_upload_outbox_create(const char *run_dir, const char *url, int profiles) {
  tq_buf_t path, text;
  tq_buf_init(&path, 0);
  tq_buf_init(&text, 0);
  tq_status_t st = outbox_path(run_dir, "", &path);
  if (!st) st = tq_file_mkdirs(path.data);
  if (!st) st = outbox_path(run_dir, "url", &path);
  if (!st) st = tq_buf_printf(&text, "%s\n%s", url, profiles ? "profiles\n" : "");
  if (!st) st = tq_file_write_atomic(path.data, text.data, text.len);
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
  if (!st) st = tq_buf_reserve(out, size + 1);
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
  int complete; /* the completion; otherwise a test */
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
    st = outbox_read(run_dir, "sent", 0, &text, &found);
    pos = 0;
    unsigned long seq;
    while (!st && next_line(&text, &pos, &line, &len))
      if (parse_seq(line, len, &seq) && seq <= o->max_seq) o->sent[seq] = 1;
    o->sent_loaded = !st;
  }
  for (size_t i = old_count; !st && i < o->count; i++) o->remaining += !o->sent[o->items[i].seq];
  tq_buf_deinit(&text);
  return st;
}

/* ---- HTTP ------------------------------------------------------------------------------------ */

typedef struct answer_s {
  char text[ANSWER_MAX + 1];
  size_t len;
} answer_t;

static size_t on_answer(char *data, size_t size, size_t count, void *user) {
  answer_t *a = user;
  size_t n = size * count;
  for (size_t i = 0; i < n && a->len < ANSWER_MAX; i++) {
    char c = data[i];
    if (c == '\n' || c == '\r') {
      if (a->len) a->len = ANSWER_MAX; /* the first line only */
      continue;
    }
    a->text[a->len++] = (unsigned char)c < ' ' || c == 0x7f ? '?' : c;
  }
  a->text[a->len < ANSWER_MAX ? a->len : ANSWER_MAX] = '\0';
  return n;
}

typedef enum verdict_e { SENT = 0, RETRY = 1, REJECTED = 2 } verdict_t;

typedef struct request_s {
  const char *url, *content_type, *idempotency_key, *run_id;
  unsigned long seq;
  const void *body;
  size_t len;
} request_t;

/* One POST. Fills `err` on failure; *out_retry_after is the server's Retry-After (s) or 0. */
static verdict_t post(CURL *curl, const tqh_upload_options_t *o, const request_t *rq,
                      double timeout_s, int *out_transport, double *out_retry_after, char *err,
                      size_t err_size) {
  *out_transport = 0;
  *out_retry_after = 0;
  struct curl_slist *headers = NULL, *h;
  char line[512];
  int ok = 1;
#define ADD_HEADER(...)                                      \
  do {                                                       \
    snprintf(line, sizeof(line), __VA_ARGS__);               \
    if (ok && (h = curl_slist_append(headers, line))) {      \
      headers = h;                                           \
    } else {                                                 \
      ok = 0;                                                \
    }                                                        \
  } while (0)
  ADD_HEADER("Content-Type: %s", rq->content_type);
  ADD_HEADER("X-Torq-Run: %s", rq->run_id);
  ADD_HEADER("X-Torq-Sequence: %lu", rq->seq);
  ADD_HEADER("Idempotency-Key: %s", rq->idempotency_key);
  ADD_HEADER("Expect:"); /* no 100-continue round trip */
#undef ADD_HEADER
  if (ok && o->token && *o->token) {
    /* Built apart: the token never goes through `line`, which may end in a message. */
    tq_buf_t auth;
    tq_buf_init(&auth, 0);
    tq_status_t st = tq_buf_printf(&auth, "Authorization: Bearer %s", o->token);
    if (!st && (h = curl_slist_append(headers, auth.data))) headers = h;
    else ok = 0;
    tq_status_free(st);
    if (auth.data) memset(auth.data, 0, auth.len);
    tq_buf_deinit(&auth);
  }
  if (!ok) {
    curl_slist_free_all(headers);
    snprintf(err, err_size, "out of memory");
    return RETRY;
  }
  char errbuf[CURL_ERROR_SIZE] = {0};
  answer_t answer = {{0}, 0};
  curl_easy_reset(curl);
  curl_easy_setopt(curl, CURLOPT_URL, rq->url);
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_POST, 1L);
  curl_easy_setopt(curl, CURLOPT_POSTFIELDS, rq->len ? rq->body : "");
  curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)rq->len);
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  long ms = (long)(timeout_s * 1000);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, ms > 1 ? ms : 1L);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, ms > 1 ? ms : 1L);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_answer);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &answer);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf);
  curl_easy_setopt(curl, CURLOPT_USERAGENT, "torq-test/0.1");
  CURLcode rc = curl_easy_perform(curl);
  curl_slist_free_all(headers);
  if (rc != CURLE_OK) {
    *out_transport = 1;
    snprintf(err, err_size, "%s", errbuf[0] ? errbuf : curl_easy_strerror(rc));
    return RETRY;
  }
  long code = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &code);
  if (code >= 200 && code < 300) return SENT;
  curl_off_t retry_after = 0;
  if (curl_easy_getinfo(curl, CURLINFO_RETRY_AFTER, &retry_after) == CURLE_OK && retry_after > 0)
    *out_retry_after = (double)retry_after;
  snprintf(err, err_size, "HTTP %ld%s%s", code, answer.text[0] ? ": " : "", answer.text);
  if (code == 408 || code == 425 || code == 429 || code >= 500) return RETRY;
  return REJECTED;
}

static void sleep_s(tqh__upload_ctl_t *ctl, double seconds) {
  (void)ctl;
  if (seconds <= 0) return;
  struct timespec ts = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

/* A pass's state. */
typedef struct pass_s {
  const char *run_dir, *run_id;
  const tqh_upload_options_t *o;
  tqh__upload_ctl_t *ctl;
  CURL *curl;
  tqh_upload_report_t *report;
} pass_t;

static void log_line(pass_t *p, const char *fmt, ...) TQ_PRINTF(2, 3);
static void log_line(pass_t *p, const char *fmt, ...) {
  char text[768], stamp[32];
  time_t t = time(NULL);
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
  va_list ap;
  va_start(ap, fmt);
  int n = snprintf(text, sizeof(text), "%s ", stamp);
  vsnprintf(text + n, sizeof(text) - (size_t)n, fmt, ap);
  va_end(ap);
  for (char *c = text; *c; c++)
    if (*c == '\n') *c = ' ';
  tq_status_free(outbox_append(p->run_dir, "log", text));
}

/* Sends one request, retrying as the options and the control say: SENT, RETRY (gave up for
 * this pass) or REJECTED. */
static verdict_t send_request(pass_t *p, const request_t *rq, const char *what) {
  const tqh_upload_options_t *o = p->o;
  double delay = o->backoff_s;
  unsigned attempts = o->max_attempts ? o->max_attempts : 1;
  for (unsigned a = 1;; a++) {
    double timeout = o->timeout_s > 0 ? o->timeout_s : 30;
    if (p->ctl->deadline_ns) {
      uint64_t now = tqh_now_ns();
      if (now >= p->ctl->deadline_ns) {
        snprintf(p->report->last_error, sizeof(p->report->last_error),
                 "%s: no time left to send it", what);
        return RETRY;
      }
      double left = (double)(p->ctl->deadline_ns - now) / 1e9;
      if (left < timeout) timeout = left;
    }
    int transport;
    double retry_after;
    char err[sizeof(p->report->last_error) - 64];
    verdict_t v = post(p->curl, o, rq, timeout, &transport, &retry_after, err, sizeof(err));
    if (v == SENT) return SENT;
    p->ctl->transport_failure = transport;
    snprintf(p->report->last_error, sizeof(p->report->last_error), "%s: %s", what, err);
    if (v == REJECTED) {
      log_line(p, "%s: %s; rejected, not retried", what, err);
      return REJECTED;
    }
    int last = a >= attempts || (transport && p->ctl->finishing);
    if (last) {
      log_line(p, "%s: %s (attempt %u of %u); left in the backlog", what, err, a, attempts);
      return RETRY;
    }
    double wait = retry_after > delay ? retry_after : delay;
    if (wait > o->backoff_max_s && o->backoff_max_s > 0) wait = o->backoff_max_s;
    log_line(p, "%s: %s (attempt %u of %u); again in %.1f s", what, err, a, attempts, wait);
    if (p->ctl->wait) p->ctl->wait(p->ctl, wait);
    else sleep_s(p->ctl, wait);
    delay *= 2;
    if (o->backoff_max_s > 0 && delay > o->backoff_max_s) delay = o->backoff_max_s;
  }
}

/* RUN_DIR/NAME (or RUN_DIR/ID/NAME) read into `out`; *out_found 0 when absent. */
static tq_status_t read_run_file(const char *run_dir, const char *id, const char *name,
                                 tq_buf_t *out, int *out_found) {
  tq_buf_t path;
  tq_buf_init(&path, 0);
  tq_status_t st = id ? tq_buf_printf(&path, "%s/%s/%s", run_dir, id, name)
                      : tq_buf_printf(&path, "%s/%s", run_dir, name);
  if (!st) st = read_optional(path.data, 0, BODY_MAX_BYTES, out, out_found);
  tq_buf_deinit(&path);
  return st;
}

/* Sends every request of one item. */
static verdict_t send_item(pass_t *p, const item_t *it) {
  tq_buf_t url, key, body;
  tq_buf_init(&url, 0);
  tq_buf_init(&key, 0);
  tq_buf_init(&body, 0);
  char what[320];
  verdict_t v = SENT;
  int found = 0;
  size_t base_len = strlen(p->o->url);
  while (base_len && p->o->url[base_len - 1] == '/') base_len--;
  tq_status_t st = tq_buf_printf(&url, "%.*s/runs/%s/", (int)base_len, p->o->url, p->run_id);
  if (!st) st = tq_buf_printf(&key, "%s/%lu", p->run_id, it->seq);
  size_t url_len = url.len, key_len = key.len;
  if (it->complete) {
    snprintf(what, sizeof(what), "item %lu (run complete)", it->seq);
    if (!st) st = tq_buf_append_cstr(&url, "complete");
    if (!st) st = read_run_file(p->run_dir, NULL, "run.json", &body, &found);
  } else {
    snprintf(what, sizeof(what), "item %lu (test %s)", it->seq, it->id);
    if (!st) st = tq_buf_printf(&url, "tests/%s", it->id);
    if (!st) st = read_run_file(p->run_dir, it->id, "report.json", &body, &found);
  }
  if (!st && !found) {
    /* Nothing to send will ever appear: say so and let the items after it go. */
    log_line(p, "%s: %s is missing; skipped", what, it->complete ? "run.json" : "report.json");
    goto done;
  }
  request_t rq = {url.data, "application/json", key.data, p->run_id, it->seq, body.data, body.len};
  if (!st) v = send_request(p, &rq, what);
  for (size_t f = 0; !st && v == SENT && !it->complete && p->o->profiles &&
                     f < sizeof(k_profile_files) / sizeof(*k_profile_files);
       f++) {
    const char *name = k_profile_files[f];
    tq_buf_clear(&body);
    st = read_run_file(p->run_dir, it->id, name, &body, &found);
    if (st || !found) continue;
    url.len = url_len;
    key.len = key_len;
    st = tq_buf_printf(&url, "tests/%s/files/%s", it->id, name);
    if (!st) st = tq_buf_printf(&key, "/%s", name);
    char part[400];
    snprintf(part, sizeof(part), "%s %s", what, name);
    request_t frq = {url.data, "application/octet-stream", key.data, p->run_id, it->seq,
                     body.data, body.len};
    if (!st) v = send_request(p, &frq, part);
  }
done:
  if (st) {
    /* A local fault (memory, a file that cannot be read): the item stays for a later pass. */
    char *text = tq_status_format(st, 0);
    snprintf(p->report->last_error, sizeof(p->report->last_error), "%s: %s", what,
             text ? text : "error");
    log_line(p, "%s: %s", what, text ? text : "error");
    tq_free(text);
    tq_status_free(st);
    v = RETRY;
  }
  tq_buf_deinit(&url);
  tq_buf_deinit(&key);
  tq_buf_deinit(&body);
  return v;
}

tq_status_t tqh__upload_pass(const char *run_dir, const tqh_upload_options_t *options,
                             tqh__upload_ctl_t *ctl, tqh_upload_report_t *out_report) {
  memset(out_report, 0, sizeof(*out_report));
  ctl->transport_failure = 0;
  outbox_t local;
  memset(&local, 0, sizeof(local));
  outbox_t *box = ctl->box ? ctl->box : &local;
  tq_buf_t problems;
  tq_buf_init(&problems, 0);
  tq_status_t st = outbox_refresh(run_dir, box, &problems);
  tq_buf_deinit(&problems);
  const char *slash = strrchr(run_dir, '/');
  pass_t p = {run_dir, slash && slash[1] ? slash + 1 : run_dir, options, ctl, NULL, out_report};
  if (!st && box->remaining && !(p.curl = curl_easy_init()))
    st = TQ_STATUS(TQ_UNAVAILABLE, "libcurl cannot make a handle");
  for (; !st && box->first < box->count; box->first++) {
    const item_t *it = &box->items[box->first];
    if (box->sent[it->seq]) continue;
    verdict_t v = send_item(&p, it);
    if (v != SENT) {
      out_report->rejected = v == REJECTED;
      break;
    }
    char line[32];
    snprintf(line, sizeof(line), "%lu", it->seq);
    st = outbox_append(run_dir, "sent", line);
    if (!st) {
      box->sent[it->seq] = 1;
      box->remaining--;
      out_report->sent++;
    }
  }
  out_report->remaining = box->remaining;
  if (p.curl) curl_easy_cleanup(p.curl);
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

tq_status_t tqh_upload_outbox_fill(const char *run_dir) {
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
  if (!st) st = tqh_journal_read(path.data, &records, NULL, &info);
  if (!st) st = tqh_records_latest(&records, &latest, &count);
  /* The run finished when run.json has its finishing time. */
  if (!st) st = read_run_file(run_dir, NULL, "run.json", &text, &found);
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
