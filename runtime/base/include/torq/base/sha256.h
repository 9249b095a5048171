/* SHA-256 through OpenSSL's libcrypto. */
#ifndef TORQ_BASE_SHA256_H
#define TORQ_BASE_SHA256_H

#include <stddef.h>
#include <stdint.h>

#include "torq/base/status.h"

#define TQ_SHA256_SIZE 32
#define TQ_SHA256_HEX_SIZE 65 /* 64 hex digits and a NUL */

/* An incremental hasher in caller storage. */
typedef struct tq_sha256_s {
  void *ctx; /* EVP_MD_CTX, owned */
} tq_sha256_t;

tq_status_t tq_sha256_init(tq_sha256_t *h) TQ_MUST_USE;
tq_status_t tq_sha256_update(tq_sha256_t *h, const void *data, size_t len) TQ_MUST_USE;
/* Writes the digest and releases the context (also on error). */
tq_status_t tq_sha256_final(tq_sha256_t *h, uint8_t out_digest[TQ_SHA256_SIZE]) TQ_MUST_USE;
/* Releases the context without a digest; accepts a finished or never-started hasher. */
void tq_sha256_deinit(tq_sha256_t *h);

/* One-shot digest of a buffer. */
tq_status_t tq_sha256(const void *data, size_t len, uint8_t out_digest[TQ_SHA256_SIZE]) TQ_MUST_USE;
/* Digest of a file, streamed. */
tq_status_t tq_sha256_file(const char *path, uint8_t out_digest[TQ_SHA256_SIZE]) TQ_MUST_USE;
/* Lower-case hex of a digest into `out` (TQ_SHA256_HEX_SIZE bytes). */
void tq_sha256_hex(const uint8_t digest[TQ_SHA256_SIZE], char out[TQ_SHA256_HEX_SIZE]);

#endif
