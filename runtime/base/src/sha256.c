/* SHA-256 through OpenSSL's EVP interface. */
#include "torq/base/sha256.h"

#include <openssl/err.h>
#include <openssl/evp.h>
#include <unistd.h>

#include "file_internal.h"
#include "torq/base/alloc.h"

#define TQ_SHA256_CHUNK ((size_t)64 * 1024)

/* OpenSSL reports failures through its thread-local error queue; this is the one place that turns
 * that queue into a status, and drains it so that stale errors do not surface later. */
static tq_status_t tq__openssl_status(const char *what, const char *file, int line) {
  unsigned long e = ERR_get_error();
  char text[256] = "unknown OpenSSL error";
  if (e) ERR_error_string_n(e, text, sizeof(text));
  ERR_clear_error();
  return tq_status_make(TQ_INTERNAL, file, line, "%s: %s", what, text);
}
#define TQ__OPENSSL_STATUS(what) tq__openssl_status((what), __FILE__, __LINE__)

tq_status_t tq_sha256_init(tq_sha256_t *h) {
  h->ctx = NULL;
  EVP_MD_CTX *ctx = EVP_MD_CTX_new();
  if (!ctx) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory for a SHA-256 context");
  if (EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1) {
    EVP_MD_CTX_free(ctx);
    return TQ__OPENSSL_STATUS("SHA-256 init failed");
  }
  h->ctx = ctx;
  return NULL;
}

tq_status_t tq_sha256_update(tq_sha256_t *h, const void *data, size_t len) {
  if (!h->ctx) return TQ_STATUS(TQ_FAILED_PRECONDITION, "SHA-256 update on a hasher not started");
  if (len == 0) return NULL;
  if (EVP_DigestUpdate(h->ctx, data, len) != 1) return TQ__OPENSSL_STATUS("SHA-256 update failed");
  return NULL;
}

tq_status_t tq_sha256_final(tq_sha256_t *h, uint8_t out_digest[TQ_SHA256_SIZE]) {
  if (!h->ctx) return TQ_STATUS(TQ_FAILED_PRECONDITION, "SHA-256 final on a hasher not started");
  unsigned int n = 0;
  tq_status_t s = NULL;
  if (EVP_DigestFinal_ex(h->ctx, out_digest, &n) != 1)
    s = TQ__OPENSSL_STATUS("SHA-256 final failed");
  else if (n != TQ_SHA256_SIZE)
    s = TQ_STATUS(TQ_INTERNAL, "SHA-256 digest of %u bytes, expected %d", n, TQ_SHA256_SIZE);
  tq_sha256_deinit(h);
  return s;
}

void tq_sha256_deinit(tq_sha256_t *h) {
  EVP_MD_CTX_free(h->ctx);
  h->ctx = NULL;
}

tq_status_t tq_sha256(const void *data, size_t len, uint8_t out_digest[TQ_SHA256_SIZE]) {
  unsigned int n = 0;
  if (EVP_Digest(len ? data : "", len, out_digest, &n, EVP_sha256(), NULL) != 1)
    return TQ__OPENSSL_STATUS("SHA-256 failed");
  if (n != TQ_SHA256_SIZE)
    return TQ_STATUS(TQ_INTERNAL, "SHA-256 digest of %u bytes, expected %d", n, TQ_SHA256_SIZE);
  return NULL;
}

tq_status_t tq_sha256_file(const char *path, uint8_t out_digest[TQ_SHA256_SIZE]) {
  int fd;
  size_t size;
  TQ_TRY(tq__file_open_read(path, &fd, &size));
  tq_sha256_t h = {NULL};
  unsigned char *chunk = tq_malloc(TQ_SHA256_CHUNK);
  tq_status_t s = chunk ? tq_sha256_init(&h)
                        : TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory hashing %s", path);
  while (!s) {
    size_t n;
    s = tq__file_read_some(fd, path, chunk, TQ_SHA256_CHUNK, &n);
    if (s || n == 0) break;
    s = tq_sha256_update(&h, chunk, n);
  }
  if (!s) s = tq_sha256_final(&h, out_digest);
  if (s) s = tq_status_annotate(s, "while hashing %s", path);
  tq_sha256_deinit(&h);
  tq_free(chunk);
  close(fd);
  return s;
}

void tq_sha256_hex(const uint8_t digest[TQ_SHA256_SIZE], char out[TQ_SHA256_HEX_SIZE]) {
  static const char digits[] = "0123456789abcdef";
  for (int i = 0; i < TQ_SHA256_SIZE; i++) {
    out[2 * i] = digits[digest[i] >> 4];
    out[2 * i + 1] = digits[digest[i] & 0xf];
  }
  out[2 * TQ_SHA256_SIZE] = '\0';
}
