/* The content-addressed compile cache of torq-test (cache.h).
 *
 * Files inside an entry are written without fsync: the rename that publishes an entry protects
 * against a killed process (a reader never sees half an entry; the loser of two concurrent fills
 * throws its copy away); after a power loss a damaged entry fails to load and is rebuilt.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "torq/base/alloc.h"
#include "torq/base/file.h"
#include "torq/base/version.h"
#include "torq/base/sha256.h"
#include "torq/harness/cache.h"
#include "torq/harness/files.h"
#include "torq/runtime/runtime.h"

#define CACHE_LAYOUT "v1"

/* ---- Compiler identity ------------------------------------------------------------------------
 */

typedef struct build_id_s {
  char hex[2 * 64 + 1];
} build_id_t;

/* dl_iterate_phdr callback: the NT_GNU_BUILD_ID note of the main program (the first object). */
static int find_build_id(struct dl_phdr_info *info, size_t size, void *data) {
  build_id_t *out = data;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_NOTE) continue;
    const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr);
    const char *end = p + ph->p_memsz;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
      const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)(const void *)p;
      size_t name_sz = (nh->n_namesz + 3u) & ~3u, desc_sz = (nh->n_descsz + 3u) & ~3u;
      const char *name = p + sizeof(*nh), *desc = name + name_sz;
      if (desc + desc_sz > end) break;
      if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && !memcmp(name, "GNU", 4) &&
          nh->n_descsz <= 64) {
        for (size_t k = 0; k < nh->n_descsz; k++)
          snprintf(out->hex + 2 * k, 3, "%02x", (unsigned char)desc[k]);
        return 1;
      }
      p = desc + desc_sz;
    }
  }
  return 1; /* only the main program */
}

/* The compiler is linked into this program, so the program's identity is the compiler's: its GNU
 * build id when it has one (any rebuild changes it), else the SHA-256 of /proc/self/exe. */
tq_status_t tqh_compiler_identity(char *out, size_t size) {
  static char cached[256];
  if (!cached[0]) {
    build_id_t id;
    memset(&id, 0, sizeof(id));
    dl_iterate_phdr(find_build_id, &id);
    if (!id.hex[0]) {
      uint8_t digest[TQ_SHA256_SIZE];
      char hex[TQ_SHA256_HEX_SIZE];
      TQ_TRY(tq_sha256_file("/proc/self/exe", digest));
      tq_sha256_hex(digest, hex);
      snprintf(id.hex, sizeof(id.hex), "sha256-%s", hex);
    }
    snprintf(cached, sizeof(cached), "torq-compiler %s module-format %u build %s", TQ_VERSION,
             TQF_MODULE_FORMAT_VERSION, id.hex);
  }
  snprintf(out, size, "%s", cached);
  return NULL;
}

/* ---- The cache --------------------------------------------------------------------------------
 */

tq_status_t tqh_compile_cache_init(tqh_compile_cache_t *cache, const char *root, int recompute) {
  memset(cache, 0, sizeof(*cache));
  cache->recompute = recompute;
  TQ_TRY(tqh_compiler_identity(cache->identity, sizeof(cache->identity)));
  /* One digest now, so that libcrypto's one-time set-up (it reads openssl.cnf) happens here and
   * the forked workers inherit it instead of each doing it again. */
  uint8_t warm[TQ_SHA256_SIZE];
  TQ_TRY(tq_sha256("", 0, warm));
  tq_buf_t b;
  tq_buf_init(&b, 0);
  tq_status_t st = tq_buf_printf(&b, "%s/%s", root, CACHE_LAYOUT);
  if (!st) st = tq_file_mkdirs(b.data);
  if (!st) {
    tq_buf_clear(&b);
    st = tq_buf_printf(&b, "%s/tmp", root);
  }
  if (!st) st = tq_file_mkdirs(b.data);
  if (!st) {
    cache->root = tq_strndup(root, strlen(root));
    if (!cache->root) st = TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  }
  tq_buf_deinit(&b);
  if (st) st = tq_status_annotate(st, "while preparing the compile cache %s", root);
  return st;
}

void tqh_compile_cache_deinit(tqh_compile_cache_t *cache) {
  tq_free(cache->root);
  cache->root = NULL;
}

tq_status_t tqh_compile_cache_key(const tqh_compile_cache_t *cache, const void *model, size_t len,
                                  const char *options, char out_key[TQ_SHA256_HEX_SIZE]) {
  out_key[0] = 0;
  tq_sha256_t h;
  uint8_t digest[TQ_SHA256_SIZE];
  /* Each part is prefixed by its length, so that no two different triples hash alike. */
  char head[64];
  TQ_TRY(tq_sha256_init(&h));
  tq_status_t st = NULL;
  const void *parts[3] = {model, options, cache->identity};
  size_t lens[3] = {len, strlen(options), strlen(cache->identity)};
  for (int i = 0; i < 3 && !st; i++) {
    int n = snprintf(head, sizeof(head), "%zu:", lens[i]);
    st = tq_sha256_update(&h, head, (size_t)n);
    if (!st && lens[i]) st = tq_sha256_update(&h, parts[i], lens[i]);
  }
  if (st) {
    tq_sha256_deinit(&h);
    return st;
  }
  TQ_TRY(tq_sha256_final(&h, digest));
  tq_sha256_hex(digest, out_key);
  return NULL;
}

static tq_status_t entry_path(const tqh_compile_cache_t *cache, const char *key, tq_buf_t *out) {
  return tq_buf_printf(out, "%s/" CACHE_LAYOUT "/%.2s/%s", cache->root, key, key);
}

/* Moves the finished temporary entry `tmp` to `final`. When another process got there first
 * (and we are not replacing on purpose), its entry is kept and ours removed. */
static tq_status_t publish(const tqh_compile_cache_t *cache, const char *tmp, const char *final) {
  char parent[4096];
  snprintf(parent, sizeof(parent), "%s", final);
  char *slash = strrchr(parent, '/');
  if (slash) *slash = 0;
  TQ_TRY(tq_file_mkdirs(parent));
  if (rename(tmp, final) == 0) return NULL;
  if (errno != EEXIST && errno != ENOTEMPTY)
    return tqh_errno_status(errno, final, "cannot publish");
  if (!cache->recompute) return tqh_remove_tree(tmp);
  /* Replace: move the old entry aside first (a reader at that moment sees a miss, never a mix). */
  char trash[4200];
  snprintf(trash, sizeof(trash), "%s/tmp/old-%ld-%ld", cache->root, (long)getpid(),
           (long)time(NULL));
  if (rename(final, trash) != 0 && errno != ENOENT)
    return tqh_errno_status(errno, final, "cannot replace");
  tq_status_t st = NULL;
  if (rename(tmp, final) != 0) {
    if (errno == EEXIST || errno == ENOTEMPTY)
      st = tqh_remove_tree(tmp); /* a concurrent worker published a fresh one meanwhile */
    else
      st = tqh_errno_status(errno, final, "cannot publish");
  }
  tq_status_free(tqh_remove_tree(trash));
  return st;
}

tq_status_t tqh_compile_cache_fetch(tqh_compile_cache_t *cache, const char *key,
                                    tqh_compile_cache_fill_fn fill, void *ctx, char **out_dir,
                                    int *out_hit) {
  *out_dir = NULL;
  *out_hit = 0;
  tq_buf_t final, tmp, probe;
  tq_buf_init(&final, 0);
  tq_buf_init(&tmp, 0);
  tq_buf_init(&probe, 0);
  tq_status_t st = entry_path(cache, key, &final);
  if (!st) st = tq_buf_printf(&probe, "%s/model.vmfb", final.data);
  if (!st && !cache->recompute && access(probe.data, R_OK) == 0) {
    *out_hit = 1;
  } else if (!st) {
    static unsigned counter;
    st = tq_buf_printf(&tmp, "%s/tmp/%s.%ld.%u", cache->root, key, (long)getpid(), counter++);
    if (!st) {
      tq_status_free(tqh_remove_tree(tmp.data));
      if (mkdir(tmp.data, 0777) != 0) st = tqh_errno_status(errno, tmp.data, "cannot create");
    }
    if (!st) {
      tq_buf_t info;
      tq_buf_init(&info, 0);
      st = tq_buf_printf(&info, "key %s\ncompiler %s\n", key, cache->identity);
      if (!st) st = fill(ctx, tmp.data, &info);
      if (!st) {
        tq_buf_clear(&probe);
        st = tq_buf_printf(&probe, "%s/key.txt", tmp.data);
      }
      if (!st) st = tqh_write_plain(probe.data, info.data, info.len);
      tq_buf_deinit(&info);
      if (!st) st = publish(cache, tmp.data, final.data);
      if (st) tq_status_free(tqh_remove_tree(tmp.data));
    }
  }
  if (!st) {
    *out_dir = tq_buf_detach(&final);
    if (!*out_dir) st = TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  }
  tq_buf_deinit(&final);
  tq_buf_deinit(&tmp);
  tq_buf_deinit(&probe);
  return st;
}

tq_status_t tqh_compile_cache_evict(tqh_compile_cache_t *cache, const char *key) {
  tq_buf_t path;
  tq_buf_init(&path, 0);
  tq_status_t st = entry_path(cache, key, &path);
  if (!st) st = tqh_remove_tree(path.data);
  tq_buf_deinit(&path);
  return st;
}
