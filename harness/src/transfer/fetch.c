/* Models given by URL: fetched with libcurl into the compile cache's downloads/ folder, named by
 * their SHA-256, and checked against it. A model already there (and still matching) is not
 * fetched again. libcurl's error buffer is converted to a status here, and only here. */
#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "torq/base/alloc.h"
#include "torq/base/file.h"
#include "torq/base/sha256.h"
#include "torq/harness/fetch.h"
#include "torq/harness/files.h"

/* The largest model a URL may give (as the compiler's parser allows). */
#define MAX_FETCH_BYTES ((size_t)256 << 20)

tq_status_t tqh_fetch_global_init(void) {
  CURLcode rc = curl_global_init(CURL_GLOBAL_DEFAULT);
  if (rc != CURLE_OK)
    return TQ_STATUS(TQ_UNAVAILABLE, "libcurl cannot start: %s", curl_easy_strerror(rc));
  return NULL;
}

void tqh_fetch_global_cleanup(void) {
  curl_global_cleanup();
}

typedef struct sink_s {
  tq_buf_t *buf;
  int too_big;
} sink_t;

static size_t on_data(char *data, size_t size, size_t count, void *user) {
  sink_t *sink = user;
  size_t n = size * count;
  if (sink->buf->len + n > MAX_FETCH_BYTES) {
    sink->too_big = 1;
    return 0;
  }
  tq_status_t st = tq_buf_append(sink->buf, data, n);
  if (st) {
    tq_status_free(st);
    return 0;
  }
  return n;
}

/* Whether the file at `path` has the digest `sha256` (hex). */
static int matches(const char *path, const char *sha256) {
  uint8_t digest[TQ_SHA256_SIZE];
  char hex[TQ_SHA256_HEX_SIZE];
  tq_status_t st = tq_sha256_file(path, digest);
  if (st) {
    tq_status_free(st);
    return 0;
  }
  tq_sha256_hex(digest, hex);
  return !strcmp(hex, sha256);
}

tq_status_t tqh_fetch_model(const char *cache_root, const char *url, const char *sha256,
                            double timeout_s, char **out_path) {
  *out_path = NULL;
  tq_buf_t path, data;
  tq_buf_init(&path, 0);
  tq_buf_init(&data, 0);
  tq_status_t st = tq_buf_printf(&path, "%s/downloads", cache_root);
  if (!st) st = tq_file_mkdirs(path.data);
  if (!st) st = tq_buf_printf(&path, "/%s.mlir", sha256);
  if (!st && access(path.data, R_OK) == 0 && matches(path.data, sha256)) goto done;

  if (!st) {
    CURL *curl = curl_easy_init();
    if (!curl) {
      st = TQ_STATUS(TQ_UNAVAILABLE, "%s: libcurl cannot make a handle", url);
      goto done;
    }
    char errbuf[CURL_ERROR_SIZE] = {0};
    sink_t sink = {&data, 0};
    curl_easy_setopt(curl, CURLOPT_URL, url);
    curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(curl, CURLOPT_MAXREDIRS, 5L);
    curl_easy_setopt(curl, CURLOPT_FAILONERROR, 1L);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, 30L);
    if (timeout_s > 0) curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, (long)(timeout_s * 1000));
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &sink);
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf);
    CURLcode rc = curl_easy_perform(curl);
    curl_easy_cleanup(curl);
    if (sink.too_big) {
      st = TQ_STATUS(TQ_LIMIT, "%s: the model is larger than %zu bytes", url, MAX_FETCH_BYTES);
    } else if (rc != CURLE_OK) {
      st = TQ_STATUS(TQ_UNAVAILABLE, "%s: cannot fetch the model: %s", url,
                     errbuf[0] ? errbuf : curl_easy_strerror(rc));
    }
  }
  if (!st) {
    uint8_t digest[TQ_SHA256_SIZE];
    char hex[TQ_SHA256_HEX_SIZE];
    st = tq_sha256(data.data ? data.data : "", data.len, digest);
    if (!st) {
      tq_sha256_hex(digest, hex);
      if (strcmp(hex, sha256) != 0)
        st = TQ_STATUS(TQ_INVALID_INPUT,
                       "%s: the fetched model has sha256 %s, but the suite says %s (the file "
                       "changed, or the suite's sha256 is wrong)",
                       url, hex, sha256);
    }
  }
  if (!st) st = tqh_write_quick_atomic(path.data, data.data ? data.data : "", data.len);
done:
  if (!st) {
    *out_path = tq_buf_detach(&path);
    if (!*out_path) st = TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  }
  tq_buf_deinit(&path);
  tq_buf_deinit(&data);
  return st;
}
