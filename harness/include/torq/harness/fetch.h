/* Models given by URL (component transfer/, harness/src/transfer/): fetched with libcurl into a
 * downloads/ folder of the compile cache, named by their SHA-256 and checked against it. */
#ifndef TORQ_HARNESS_FETCH_H
#define TORQ_HARNESS_FETCH_H

#include "torq/base/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* libcurl's process-wide set-up: once, in the parent, before any worker is forked. */
tq_status_t tqh_fetch_global_init(void) TQ_MUST_USE;
void tqh_fetch_global_cleanup(void);

/* The model at `url` as a file, CACHE_ROOT/downloads/<sha256>.mlir (heap path in *out_path,
 * tq_free): reused when present and matching, else fetched (redirects followed; `timeout_s` > 0
 * bounds the transfer) and checked. Errors: TQ_UNAVAILABLE (the network, the server: an
 * infrastructure fault), TQ_INVALID_INPUT (the bytes do not have `sha256`), TQ_LIMIT, TQ_IO. */
tq_status_t tqh_fetch_model(const char *cache_root, const char *url, const char *sha256,
                            double timeout_s, char **out_path) TQ_MUST_USE;

#ifdef __cplusplus
}
#endif
#endif
