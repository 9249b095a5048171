/* The requests of an upload pass (transfer_internal.h): one POST with libcurl (a body as it is,
 * or a one-field multipart form), its retries with exponential backoff, and the outbox's log of
 * failed attempts. libcurl's errors become text here, and only here; the token never reaches the
 * log. */
#include <curl/curl.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "torq/base/alloc.h"
#include "torq/harness/process.h"
#include "transfer_internal.h"

/* What a response body may add to a message. */
#define ANSWER_MAX 160

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

/* Watches a request: once the run is over, one that moves no byte (sent or received) for the
 * stall limit is abandoned, however long its own timeout. */
typedef struct watch_s {
  tqh__upload_ctl_t *ctl;
  double stall_s;
  curl_off_t moved;
  uint64_t last_ns; /* when a byte last moved (or the request started) */
  int stalled;
} watch_t;

static int on_progress(void *user, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
                       curl_off_t ulnow) {
  (void)dltotal;
  (void)ultotal;
  watch_t *w = user;
  uint64_t now = tqh_now_ns();
  if (dlnow + ulnow != w->moved) {
    w->moved = dlnow + ulnow;
    w->last_ns = now;
  }
  if (!w->ctl) return 0;
  if (!w->ctl->finishing && w->ctl->poll) w->ctl->poll(w->ctl);
  if (!w->ctl->finishing) return 0;
  uint64_t since = w->last_ns > w->ctl->finishing_ns ? w->last_ns : w->ctl->finishing_ns;
  w->stalled = now > since && (double)(now - since) / 1e9 >= w->stall_s;
  if (w->stalled) w->ctl->stalled = 1;
  return w->stalled;
}

/* Any answer from the server counts as a moved byte. */
static size_t on_header(char *data, size_t size, size_t count, void *user) {
  (void)data;
  watch_t *w = user;
  w->last_ns = tqh_now_ns();
  return size * count;
}

/* The multipart form of the request, or NULL without memory. */
static curl_mime *form_of(CURL *curl, const tqh__request_t *rq) {
  curl_mime *mime = curl_mime_init(curl);
  curl_mimepart *part = mime ? curl_mime_addpart(mime) : NULL;
  int ok = part && curl_mime_name(part, rq->form_field) == CURLE_OK &&
           curl_mime_data(part, rq->len ? rq->body : "", rq->len) == CURLE_OK;
  if (ok && rq->form_filename)
    ok = curl_mime_filename(part, rq->form_filename) == CURLE_OK &&
         curl_mime_type(part, rq->content_type) == CURLE_OK;
  if (!ok) {
    curl_mime_free(mime);
    return NULL;
  }
  return mime;
}

/* One POST. Fills `err` on failure; *out_retry_after is the server's Retry-After (s) or 0. */
static tqh__verdict_t post(tqh__pass_t *p, tqh__request_t *rq, double timeout_s,
                           int *out_transport, double *out_retry_after, char *err,
                           size_t err_size) {
  CURL *curl = p->curl;
  const tqh_upload_options_t *o = p->o;
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
  if (!rq->form_field) ADD_HEADER("Content-Type: %s", rq->content_type);
  ADD_HEADER("X-Torq-Run: %s", p->run_id);
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
  curl_easy_reset(curl);
  curl_mime *mime = ok && rq->form_field ? form_of(curl, rq) : NULL;
  if (!ok || (rq->form_field && !mime)) {
    curl_slist_free_all(headers);
    snprintf(err, err_size, "out of memory");
    return TQH__RETRY;
  }
  char errbuf[CURL_ERROR_SIZE] = {0};
  answer_t answer = {{0}, 0};
  curl_easy_setopt(curl, CURLOPT_URL, rq->url);
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  if (mime) {
    curl_easy_setopt(curl, CURLOPT_MIMEPOST, mime);
  } else {
    curl_easy_setopt(curl, CURLOPT_POST, 1L);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, rq->len ? rq->body : "");
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)rq->len);
  }
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  long ms = (long)(timeout_s * 1000);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, ms > 1 ? ms : 1L);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, ms > 1 ? ms : 1L);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_answer);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &answer);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf);
  curl_easy_setopt(curl, CURLOPT_USERAGENT, "torq-test/0.1");
  watch_t watch = {p->ctl, o->stall_s > 0 ? o->stall_s : TQH_UPLOAD_STALL_S, 0, tqh_now_ns(), 0};
  curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, on_progress);
  curl_easy_setopt(curl, CURLOPT_XFERINFODATA, &watch);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &watch);
  CURLcode rc = curl_easy_perform(curl);
  curl_slist_free_all(headers);
  curl_mime_free(mime);
  if (rc != CURLE_OK) {
    *out_transport = 1;
    if (watch.stalled)
      snprintf(err, err_size, "no answer for %.0f s after the run ended", watch.stall_s);
    else
      snprintf(err, err_size, "%s", errbuf[0] ? errbuf : curl_easy_strerror(rc));
    return TQH__RETRY;
  }
  long code = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &code);
  if (code >= 200 && code < 300) {
    if (rq->answer && rq->answer_size) snprintf(rq->answer, rq->answer_size, "%s", answer.text);
    return TQH__SENT;
  }
  curl_off_t retry_after = 0;
  if (curl_easy_getinfo(curl, CURLINFO_RETRY_AFTER, &retry_after) == CURLE_OK && retry_after > 0)
    *out_retry_after = (double)retry_after;
  snprintf(err, err_size, "HTTP %ld%s%s", code, answer.text[0] ? ": " : "", answer.text);
  if (code == 408 || code == 425 || code == 429 || code >= 500) return TQH__RETRY;
  return TQH__REJECTED;
}

static void sleep_s(double seconds) {
  if (seconds <= 0) return;
  struct timespec ts = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

void tqh__upload_log(tqh__pass_t *p, const char *fmt, ...) {
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
  tq_status_free(tqh__upload_outbox_append(p->run_dir, "log", text));
}

tqh__verdict_t tqh__upload_local_fault(tqh__pass_t *p, const char *what, tq_status_t st) {
  char *text = tq_status_format(st, 0);
  snprintf(p->report->last_error, sizeof(p->report->last_error), "%s: %s", what,
           text ? text : "error");
  tqh__upload_log(p, "%s: %s", what, text ? text : "error");
  tq_free(text);
  tq_status_free(st);
  return TQH__RETRY;
}

tqh__verdict_t tqh__upload_send(tqh__pass_t *p, tqh__request_t *rq, const char *what) {
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
        return TQH__RETRY;
      }
      double left = (double)(p->ctl->deadline_ns - now) / 1e9;
      if (left < timeout) timeout = left;
    }
    int transport;
    double retry_after;
    char err[sizeof(p->report->last_error) - 64];
    tqh__verdict_t v = post(p, rq, timeout, &transport, &retry_after, err, sizeof(err));
    if (v == TQH__SENT) return TQH__SENT;
    p->ctl->transport_failure = transport;
    snprintf(p->report->last_error, sizeof(p->report->last_error), "%s: %s", what, err);
    if (v == TQH__REJECTED) {
      tqh__upload_log(p, "%s: %s; rejected, not retried", what, err);
      return TQH__REJECTED;
    }
    int last = a >= attempts || (transport && p->ctl->finishing);
    if (last) {
      tqh__upload_log(p, "%s: %s (attempt %u of %u); left in the backlog", what, err, a, attempts);
      return TQH__RETRY;
    }
    double wait = retry_after > delay ? retry_after : delay;
    if (wait > o->backoff_max_s && o->backoff_max_s > 0) wait = o->backoff_max_s;
    tqh__upload_log(p, "%s: %s (attempt %u of %u); again in %.1f s", what, err, a, attempts,
                    wait);
    if (p->ctl->wait) p->ctl->wait(p->ctl, wait);
    else sleep_s(wait);
    delay *= 2;
    if (o->backoff_max_s > 0 && delay > o->backoff_max_s) delay = o->backoff_max_s;
  }
}
