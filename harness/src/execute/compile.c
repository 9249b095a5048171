/* The compile phase (execute.h): the model's bytes (fetched when it is a URL), its cache key
 * (the bytes, the compile options, the compiler build), the cache entry (compiled in-process on
 * a miss), the loaded module, and the compile outputs linked into the test's folder. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "execute_internal.h"
#include "torq/base/alloc.h"
#include "torq/base/file.h"
#include "torq/harness/annotate.h"
#include "torq/harness/fetch.h"
#include "torq/harness/files.h"
#include "torq/harness/process.h"
#include "torq/sim/hw.h"

/* The largest model file a test reads (as the compiler's parser allows). */
#define MAX_MODEL_BYTES ((size_t)256 << 20)

/* Applies the test's compile options; TQ_INVALID_ARGUMENT for one that torq-compile does not
 * know. Options about outputs are accepted and ignored: the runner always writes the module, the
 * trace and the debug info. */
static tq_status_t compile_options(tqh_execution_t *e, tq_buf_t *canonical) {
  tqc_compile_options_initialize(&e->compile_options);
  const tqh_settings_t *s = &e->test->settings;
  for (size_t i = 0; i < s->compile_option_count; i++) {
    const char *o = s->compile_options[i];
    if (!strncmp(o, "--torq-hw=", 10)) {
      TQ_TRY(tqs_hw_parse(o + 10, &e->compile_options.hw));
      e->compile_options.hw_spec = o + 10;
    } else if (strcmp(o, "--torq-enable-profiling") != 0 &&
               strncmp(o, "--torq-dump-profiling=", 22) != 0 &&
               strncmp(o, "--torq-debug-info=", 18) != 0) {
      return TQ_STATUS(TQ_INVALID_ARGUMENT,
                       "unknown compile option '%s' (torq-compile takes --torq-hw=SPEC)", o);
    }
  }
  return tq_buf_printf(canonical, "hw=%s\n",
                       e->compile_options.hw_spec ? e->compile_options.hw_spec : "sl2610");
}

tq_status_t tqh__exec_parse_model(tqh_execution_t *e) {
  if (e->parsed) return NULL;
  TQ_TRY(tqc_module_parse(e->model_path, e->model_text.data ? e->model_text.data : "",
                          e->model_text.len, NULL, &e->parsed));
  tq_status_t st = tqc_module_verify(e->parsed);
  if (st) {
    tqc_module_destroy(e->parsed);
    e->parsed = NULL;
  }
  return st;
}

/* tqh_compile_cache_fill_fn: compiles into a fresh cache entry. */
static tq_status_t fill_entry(void *vctx, const char *dir, tq_buf_t *info) {
  tqh_execution_t *e = vctx;
  uint64_t t0 = tqh_now_ns();
  TQ_TRY(tq_buf_printf(info, "model %s\nhw %s\n", e->model_path,
                       e->compile_options.hw_spec ? e->compile_options.hw_spec : "sl2610"));
  tqc_compiled_t *compiled = NULL;
  tq_status_t pst = tqh__exec_parse_model(e);
  if (!pst) pst = tqc_compile(e->parsed, &e->compile_options, &compiled);
  if (pst) {
    e->compile_s = tqh__exec_seconds_since(t0);
    return pst;
  }
  tq_buf_t out, path;
  tq_buf_init(&out, 0);
  tq_buf_init(&path, 0);
  tq_status_t st = tqc_compiled_pack(compiled, &out);
  if (!st) st = tq_buf_printf(&path, "%s/model.vmfb", dir);
  if (!st) st = tqh_write_plain(path.data, out.data, out.len);
  if (!st) {
    tq_buf_clear(&out);
    tq_buf_clear(&path);
    st = tqc_compiled_trace_csv(compiled, &out);
  }
  if (!st) st = tq_buf_printf(&path, "%s/trace.csv", dir);
  if (!st) st = tqh_write_plain(path.data, out.data ? out.data : "", out.len);
  if (!st) {
    tq_buf_clear(&path);
    st = tq_buf_printf(&path, "%s/debug", dir);
  }
  if (!st) st = tqc_compiled_write_debug_info(compiled, path.data);
  tq_buf_deinit(&out);
  tq_buf_deinit(&path);
  tqc_compiled_destroy(compiled);
  e->compile_s = tqh__exec_seconds_since(t0);
  return st;
}

static const char *const k_compile_outputs[] = {"model.vmfb", "trace.csv", "debug"};
#define NUM_COMPILE_OUTPUTS (sizeof(k_compile_outputs) / sizeof(k_compile_outputs[0]))

/* What a worker keeps of the files its last test read, for the next test of the same model: a
 * tiny test's own cost is mostly system calls, and these are most of them. The model's bytes are
 * kept with the file's identity (a changed file is read again); a cache entry's trees and module
 * are kept by its folder, since an entry's files never change once it is published (a damaged
 * entry that is rebuilt is forgotten, tqh__exec_files_forget). */
struct tqh_executor_files_s {
  char *model_path;
  struct stat model_stat;
  tq_buf_t model_text;
  char *entry_dir; /* the entry of `trees` and `vmfb` */
  int optional;    /* the trees were read for an entry whose trace and debug info may be absent */
  int present[NUM_COMPILE_OUTPUTS];
  tqh_tree_t trees[NUM_COMPILE_OUTPUTS];
  int have_trees;
  tq_buf_t vmfb; /* model.vmfb's bytes, once they loaded */
  /* The entry's debug info, once it was annotated with no diagnostic (a holder of it), and the
   * identity of the manifest.json it was read from; its `dir` is the test folder's copy of the
   * test using it (debug_dir). */
  tqh_debug_info_t *debug_info;
  struct stat manifest_stat;
  tq_buf_t debug_dir;
};

static struct tqh_executor_files_s *files_of(tqh_executor_t *exec) {
  if (!exec->files) {
    struct tqh_executor_files_s *f = tq_calloc(1, sizeof(*f));
    if (!f) return NULL;
    tq_buf_init(&f->model_text, 0);
    tq_buf_init(&f->vmfb, 0);
    tq_buf_init(&f->debug_dir, 0);
    for (size_t i = 0; i < NUM_COMPILE_OUTPUTS; i++) tqh_tree_init(&f->trees[i]);
    exec->files = f;
  }
  return exec->files;
}

static void forget_debug_info(struct tqh_executor_files_s *f) {
  tqh_debug_info_destroy(f->debug_info);
  f->debug_info = NULL;
  tq_buf_deinit(&f->debug_dir);
}

/* Forgets the entry's trees, module and debug info (not the model's bytes). */
static void forget_entry(struct tqh_executor_files_s *f) {
  tq_free(f->entry_dir);
  f->entry_dir = NULL;
  f->have_trees = 0;
  for (size_t i = 0; i < NUM_COMPILE_OUTPUTS; i++) tqh_tree_deinit(&f->trees[i]);
  tq_buf_deinit(&f->vmfb);
  forget_debug_info(f);
}

void tqh__exec_files_forget(tqh_executor_t *exec) {
  struct tqh_executor_files_s *f = exec ? exec->files : NULL;
  if (!f) return;
  forget_entry(f);
  tq_free(f->model_path);
  tq_buf_deinit(&f->model_text);
  tq_free(f);
  exec->files = NULL;
}

/* The kept files are of `entry_dir` (forgets them if they are another entry's). */
static int same_entry(struct tqh_executor_files_s *f, const char *entry_dir) {
  if (f->entry_dir && !strcmp(f->entry_dir, entry_dir)) return 1;
  forget_entry(f);
  f->entry_dir = tq_strdup_printf("%s", entry_dir);
  return 0;
}

/* The same file, unchanged (`changed`: by its ctime too, which a new link of it changes). */
static int same_file_as(const struct stat *a, const struct stat *b, int changed) {
  return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
         a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
         (!changed ||
          (a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec));
}

static int same_file(const struct stat *a, const struct stat *b) { return same_file_as(a, b, 1); }

/* The manifest.json of debug-info folder `dir`: 1 with its identity in *sb, else 0. */
static int stat_manifest(const char *dir, struct stat *sb) {
  tq_buf_t path;
  tq_buf_init(&path, 0);
  int ok = !tq_buf_printf(&path, "%s/manifest.json", dir) && stat(path.data, sb) == 0;
  tq_buf_deinit(&path);
  return ok;
}

/* The files kept are those of the test's cache entry, its trees read. */
static struct tqh_executor_files_s *kept_entry(tqh_execution_t *e) {
  struct tqh_executor_files_s *f = e->exec->files;
  return f && f->have_trees && e->entry_dir && f->entry_dir && !strcmp(f->entry_dir, e->entry_dir)
             ? f
             : NULL;
}

tqh_debug_info_t *tqh__exec_kept_debug_info(tqh_execution_t *e, const char *dir) {
  struct tqh_executor_files_s *f = kept_entry(e);
  if (!f || !f->debug_info) return NULL;
  /* The test's copy links the same manifest.json (a rebuilt entry has new files). */
  struct stat sb;
  int same = stat_manifest(dir, &sb) && same_file_as(&sb, &f->manifest_stat, 0);
  tq_status_t st = NULL;
  if (same) {
    tq_buf_clear(&f->debug_dir);
    st = tq_buf_append_cstr(&f->debug_dir, dir);
  }
  if (!same || st) {
    tq_status_free(st);
    forget_debug_info(f);
    return NULL;
  }
  f->debug_info->dir = f->debug_dir.data;
  return f->debug_info;
}

void tqh__exec_keep_debug_info(tqh_execution_t *e, tqh_debug_info_t *info, const char *dir) {
  struct tqh_executor_files_s *f = kept_entry(e);
  if (!f) return;
  forget_debug_info(f);
  /* Its `dir` (this test's copy, in its arena) is replaced by that of each test using it. */
  if (stat_manifest(dir, &f->manifest_stat)) f->debug_info = tqh_debug_info_ref(info);
}

/* e->model_text: the model's bytes, the kept ones while the file is the one they came from. */
static tq_status_t read_model(tqh_execution_t *e) {
  struct tqh_executor_files_s *f = files_of(e->exec);
  struct stat sb;
  /* The identity before the read: a change during the read makes the next test read again. */
  int known = f && stat(e->model_path, &sb) == 0 && S_ISREG(sb.st_mode);
  if (known && f->model_path && !strcmp(f->model_path, e->model_path) &&
      same_file(&sb, &f->model_stat))
    return tq_buf_append(&e->model_text, f->model_text.data ? f->model_text.data : "",
                         f->model_text.len);
  tq_buf_deinit(&e->model_text);
  TQ_TRY(tq_file_read(e->model_path, MAX_MODEL_BYTES, &e->model_text));
  if (!known) return NULL;
  tq_free(f->model_path);
  f->model_path = tq_strdup_printf("%s", e->model_path);
  f->model_stat = sb;
  tq_buf_clear(&f->model_text);
  tq_status_t st = tq_buf_append(&f->model_text, e->model_text.data ? e->model_text.data : "",
                                 e->model_text.len);
  if (st || !f->model_path) {
    /* Nothing kept: the next test reads the file again. */
    tq_status_free(st);
    tq_free(f->model_path);
    f->model_path = NULL;
  }
  return NULL;
}

/* Loads the entry's model.vmfb (`path`), from the kept bytes when they are this entry's. */
static tq_status_t load_module(tqh_execution_t *e, const char *path) {
  struct tqh_executor_files_s *f = files_of(e->exec);
  if (f && same_entry(f, e->entry_dir) && f->vmfb.len)
    return tqr_module_load(path, f->vmfb.data, f->vmfb.len, NULL, &e->module);
  tqr_module_options_t options;
  tqr_module_options_initialize(&options);
  tq_buf_t bytes;
  TQ_TRY(tq_file_read(path, options.max_file_bytes, &bytes));
  tq_status_t st = tqr_module_load(path, bytes.data, bytes.len, &options, &e->module);
  if (!st && f && f->entry_dir) {
    tq_buf_deinit(&f->vmfb);
    f->vmfb = bytes; /* kept only once it loaded */
    tq_buf_init(&bytes, 0);
  }
  tq_buf_deinit(&bytes);
  return st;
}

/* Reads the trees of the entry's compile outputs into `f` (those absent when optional). */
static tq_status_t read_trees(tqh_execution_t *e, struct tqh_executor_files_s *f, int optional) {
  forget_debug_info(f);
  tq_buf_t from;
  tq_buf_init(&from, 0);
  tq_status_t st = NULL;
  for (size_t i = 0; !st && i < NUM_COMPILE_OUTPUTS; i++) {
    tq_buf_clear(&from);
    st = tq_buf_printf(&from, "%s/%s", e->entry_dir, k_compile_outputs[i]);
    f->present[i] = !(optional && i > 0 && access(from.data, F_OK) != 0);
    if (!st && f->present[i]) st = tqh_tree_read(from.data, &f->trees[i]);
  }
  tq_buf_deinit(&from);
  f->optional = optional;
  f->have_trees = !st;
  return st;
}

/* Links the kept trees into the test's folder. */
static tq_status_t link_trees(tqh_execution_t *e, const struct tqh_executor_files_s *f) {
  tq_buf_t from, to;
  tq_buf_init(&from, 0);
  tq_buf_init(&to, 0);
  tq_status_t st = NULL;
  for (size_t i = 0; !st && i < NUM_COMPILE_OUTPUTS; i++) {
    if (!f->present[i]) continue;
    tq_buf_clear(&from);
    st = tq_buf_printf(&from, "%s/%s", e->entry_dir, k_compile_outputs[i]);
    if (!st) st = tqh__exec_path_in(e, k_compile_outputs[i], &to);
    if (!st) st = tqh_tree_link(&f->trees[i], from.data, to.data);
  }
  tq_buf_deinit(&from);
  tq_buf_deinit(&to);
  return st;
}

/* The compile-time estimate, read from the loaded module: each NSS program carries the cycles
 * the compiler estimated for it, so a cache hit gives the same number as compiling
 * (tqc_compiled_estimated_cycles) without a cache format of its own. */
static void record_estimate(tqh_execution_t *e) {
  e->r->has_estimated_cycles = 1;
  e->r->estimated_cycles = tqc_module_estimated_cycles(tqr_module_proto(e->module));
}

tq_status_t tqh__exec_link_compile_outputs(tqh_execution_t *e, int optional) {
  struct tqh_executor_files_s *f = files_of(e->exec);
  int keep = f != NULL;
  if (keep) {
    same_entry(f, e->entry_dir);
    keep = f->entry_dir != NULL;
  }
  struct tqh_executor_files_s mine; /* nothing can be kept (out of memory): this test's alone */
  if (!keep) {
    memset(&mine, 0, sizeof(mine));
    f = &mine;
  }
  tq_status_t st = NULL;
  int linked = 0;
  if (keep && f->have_trees && f->optional == optional) {
    st = link_trees(e, f);
    linked = !st;
    /* Kept trees that no longer match the entry (rebuilt meanwhile): read it again. */
    tq_status_free(st);
    st = NULL;
  }
  if (!linked) {
    st = read_trees(e, f, optional);
    if (!st) st = link_trees(e, f);
  }
  for (size_t i = 0; !st && i < NUM_COMPILE_OUTPUTS; i++)
    if (f->present[i]) st = tqh_test_result_add_file(e->r, k_compile_outputs[i]);
  if (!keep) {
    for (size_t i = 0; i < NUM_COMPILE_OUTPUTS; i++) tqh_tree_deinit(&mine.trees[i]);
  } else if (st) {
    f->have_trees = 0;
  }
  return st;
}

/* Model bytes → cache entry → links in the test's folder → loaded module. */
int tqh_execute_compile(tqh_execution_t *e) {
  tqh_test_result_t *r = e->r;
  const tqh_test_t *t = e->test;
  tq_status_t st = NULL;
  if (t->model.kind == TQH_MODEL_URL) {
    tqh__exec_phase(e, "fetch", t->settings.compile_timeout_s);
    uint64_t t0 = tqh_now_ns();
    st = tqh_fetch_model(e->exec->cache->root, t->model.url, t->model.sha256,
                         t->settings.compile_timeout_s, &e->fetched_path);
    if (st) {
      int infra = tq_status_code(st) != TQ_INVALID_INPUT;
      r->infrastructure = infra;
      tqh_test_result_fail_status(r, infra ? TQH_OUTCOME_ERROR : TQH_OUTCOME_FAILED, "fetch", st);
      return 0;
    }
    tqh__exec_log(e, "fetch: %s (%.3fs)", t->model.url, tqh__exec_seconds_since(t0));
    e->model_path = e->fetched_path;
  } else {
    e->model_path = t->model.path;
  }
  st = read_model(e);
  if (st) {
    tqh_test_result_fail_status(r, TQH_OUTCOME_FAILED, "compile_error", st);
    return 0;
  }
  if (tqh_toolchain_is_external(&t->settings)) return tqh__external_compile(e);
  tq_buf_t canonical;
  tq_buf_init(&canonical, 0);
  st = compile_options(e, &canonical);
  if (!st)
    st = tqh_compile_cache_key(e->exec->cache, e->model_text.data ? e->model_text.data : "",
                               e->model_text.len, canonical.data, e->cache_key);
  tq_buf_deinit(&canonical);
  if (st) {
    tqh_test_result_fail_status(r, TQH_OUTCOME_FAILED, "compile_error", st);
    return 0;
  }
  tqh__exec_phase(e, "compile", t->settings.compile_timeout_s);
  for (int attempt = 0; attempt < 2; attempt++) {
    int hit = 0;
    tq_free(e->entry_dir);
    e->entry_dir = NULL;
    e->compile_s = 0;
    st = tqh_compile_cache_fetch(e->exec->cache, e->cache_key, fill_entry, e, &e->entry_dir, &hit);
    if (st) {
      /* The compiler ran (and refused the model): a miss, with its time. */
      r->cache = TQH_CACHE_MISS;
      r->compile_s = e->compile_s;
      /* An error with a location is the compiler's diagnostic; anything else is ours. */
      tq_status_code_t code = tq_status_code(st);
      int ours = code == TQ_IO || code == TQ_OUT_OF_MEMORY;
      r->infrastructure = ours;
      tqh_test_result_fail_status(r, ours ? TQH_OUTCOME_ERROR : TQH_OUTCOME_FAILED,
                                  ours ? "infrastructure" : "compile_error", st);
      return 0;
    }
    r->cache = hit ? TQH_CACHE_HIT : TQH_CACHE_MISS;
    r->compile_s = e->compile_s;
    tqh__exec_log(e, "compile: %s (%s)", hit ? "cache hit" : "compiled", e->cache_key);
    /* A fresh entry replaces whatever was kept under its folder. */
    if (!hit && e->exec->files) forget_entry(e->exec->files);
    tq_buf_t path;
    tq_buf_init(&path, 0);
    st = tq_buf_printf(&path, "%s/model.vmfb", e->entry_dir);
    uint64_t t0 = tqh_now_ns();
    if (!st) st = load_module(e, path.data);
    r->run_s += tqh__exec_seconds_since(t0);
    tq_buf_deinit(&path);
    if (!st) break;
    if (hit && attempt == 0) {
      /* A damaged entry (a power loss while it was written): rebuild it once. */
      tqh__exec_log(e, "cache entry %s is damaged (%s); compiling again", e->cache_key,
                    tq_status_message(st));
      tq_status_free(st);
      tq_status_free(tqh_compile_cache_evict(e->exec->cache, e->cache_key));
      if (e->exec->files) forget_entry(e->exec->files);
      continue;
    }
    tqh_test_result_fail_status(r, TQH_OUTCOME_FAILED, "runtime_error", st);
    return 0;
  }
  record_estimate(e);
  st = tqh__exec_recon_init(e);
  if (!st) st = tqh__exec_link_compile_outputs(e, 0);
  if (st) {
    r->infrastructure = 1;
    tqh_test_result_fail_status(r, TQH_OUTCOME_ERROR, "infrastructure", st);
    return 0;
  }
  return 1;
}
