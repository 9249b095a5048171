/* The content-addressed compile cache of torq-test (component runner/, harness/src/runner/).
 *
 * Layout: ROOT/v1/<first two hex digits>/<64 hex digits>/ holding model.vmfb, trace.csv, debug/
 * and key.txt (what went into the key, for people). An entry is built in ROOT/tmp/ and renamed
 * into place in one step, so an entry that exists is complete, and two workers that compile the
 * same model at once both succeed. The runner creates the cache; a test's compile phase
 * (execute.h) fetches its entry.
 */
#ifndef TORQ_HARNESS_CACHE_H
#define TORQ_HARNESS_CACHE_H

#include <stddef.h>

#include "torq/base/sha256.h"
#include "torq/base/status.h"
#include "torq/base/str.h"

#ifdef __cplusplus
extern "C" {
#endif

/* "torq-compiler VERSION module-format 1 build <GNU build id of this program>": the compiler is
 * linked in, so any rebuild changes the identity and invalidates the cache. */
tq_status_t tqh_compiler_identity(char *out, size_t size) TQ_MUST_USE;

typedef struct tqh_compile_cache_s {
  char *root; /* owned */
  int recompute;
  char identity[256];
} tqh_compile_cache_t;

/* Fills an entry: writes model.vmfb, trace.csv and debug/ into the (empty) folder `dir`, and may
 * append "key value" lines describing the inputs of the key to `info` (key.txt). */
typedef tq_status_t (*tqh_compile_cache_fill_fn)(void *ctx, const char *dir, tq_buf_t *info);

/* Creates ROOT/v1 and ROOT/tmp. */
tq_status_t tqh_compile_cache_init(tqh_compile_cache_t *cache, const char *root,
                                   int recompute) TQ_MUST_USE;
void tqh_compile_cache_deinit(tqh_compile_cache_t *cache);

/* The key of a model (its bytes) compiled with `options` (canonical text) by this compiler. */
tq_status_t tqh_compile_cache_key(const tqh_compile_cache_t *cache, const void *model, size_t len,
                                  const char *options,
                                  char out_key[TQ_SHA256_HEX_SIZE]) TQ_MUST_USE;

/* The entry folder of `key` in *out_dir (heap; tq_free). On a miss (or with recompute) calls
 * `fill` on a fresh temporary folder and publishes it atomically; *out_hit says which. */
tq_status_t tqh_compile_cache_fetch(tqh_compile_cache_t *cache, const char *key,
                                    tqh_compile_cache_fill_fn fill, void *ctx, char **out_dir,
                                    int *out_hit) TQ_MUST_USE;

/* Removes the entry of `key` (a damaged entry, found when loading it). */
tq_status_t tqh_compile_cache_evict(tqh_compile_cache_t *cache, const char *key) TQ_MUST_USE;

#ifdef __cplusplus
}
#endif
#endif
