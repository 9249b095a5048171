/* The runner's own parts, tested directly: the compile cache, the worker protocol and process
 * handling, the progress lines. (The rest of this binary runs the real torq-test.) */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "e2e.h"
#include "torq/base/str.h"
#include "execute/execute_internal.h"
#include "runner/runner_internal.h"
#include "torq/base/alloc.h"
#include "torq/base/file.h"
#include "torq/harness/files.h"
#include "torq/harness/process.h"
#include "torq/runtime/tensor.h"
#include "torq/sim/tensor.h"

/* ---- Cache ---------------------------------------------------------------------------------- */

typedef struct fill_count_s {
  int calls;
  const char *content;
} fill_count_t;

static tq_status_t fake_fill(void *ctx, const char *dir, tq_buf_t *info) {
  fill_count_t *fc = ctx;
  fc->calls++;
  char *p = e2e_path("%s/model.vmfb", dir);
  tq_status_t st = tqh_write_plain(p, fc->content, strlen(fc->content));
  free(p);
  if (!st) st = tq_buf_append_cstr(info, "fake 1\n");
  return st;
}

static tq_status_t failing_fill(void *ctx, const char *dir, tq_buf_t *info) {
  (void)ctx;
  (void)dir;
  (void)info;
  return TQ_STATUS(TQ_INVALID_INPUT, "model.mlir:1:1: error: no");
}

START_TEST(cache_key_depends_on_model_options_and_compiler) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  tqh_compile_cache_t c;
  ck_assert_ptr_null(tqh_compile_cache_init(&c, s.cache, 0));
  char a[TQ_SHA256_HEX_SIZE], b[TQ_SHA256_HEX_SIZE], d[TQ_SHA256_HEX_SIZE],
      e[TQ_SHA256_HEX_SIZE];
  ck_assert_ptr_null(tqh_compile_cache_key(&c, "abc", 3, "hw=sl2610\n", a));
  ck_assert_ptr_null(tqh_compile_cache_key(&c, "abc", 3, "hw=sl2610\n", b));
  ck_assert_str_eq(a, b);
  ck_assert_uint_eq(strlen(a), 64);
  ck_assert_ptr_null(tqh_compile_cache_key(&c, "abd", 3, "hw=sl2610\n", d));
  ck_assert_str_ne(a, d);
  ck_assert_ptr_null(tqh_compile_cache_key(&c, "abc", 3, "hw=sl2610,lram=256K\n", e));
  ck_assert_str_ne(a, e);
  /* Another compiler build: another key. */
  snprintf(c.identity, sizeof(c.identity), "torq-compiler other");
  ck_assert_ptr_null(tqh_compile_cache_key(&c, "abc", 3, "hw=sl2610\n", e));
  ck_assert_str_ne(a, e);
  /* Length prefixes: moving bytes between model and options changes the key. */
  ck_assert_ptr_null(tqh_compile_cache_key(&c, "ab", 2, "chw=sl2610\n", d));
  ck_assert_ptr_null(tqh_compile_cache_key(&c, "abc", 3, "hw=sl2610\n", e));
  ck_assert_str_ne(d, e);
  char id[256];
  ck_assert_ptr_null(tqh_compiler_identity(id, sizeof(id)));
  ck_assert_msg(strstr(id, "torq-compiler ") == id && strstr(id, " build "), "%s", id);
  tqh_compile_cache_deinit(&c);
  e2e_scratch_free(&s);
}
END_TEST

START_TEST(cache_fills_once_then_hits_and_recompute_replaces) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  tqh_compile_cache_t c;
  ck_assert_ptr_null(tqh_compile_cache_init(&c, s.cache, 0));
  char key[TQ_SHA256_HEX_SIZE];
  ck_assert_ptr_null(tqh_compile_cache_key(&c, "m", 1, "", key));
  fill_count_t fc = {0, "first"};
  char *dir = NULL;
  int hit = -1;
  ck_assert_ptr_null(tqh_compile_cache_fetch(&c, key, fake_fill, &fc, &dir, &hit));
  ck_assert_int_eq(hit, 0);
  ck_assert_int_eq(fc.calls, 1);
  char *expect = e2e_path("%s/v1/%.2s/%s", s.cache, key, key);
  ck_assert_str_eq(dir, expect);
  char *vmfb = e2e_path("%s/model.vmfb", dir);
  char *text = e2e_read(vmfb);
  ck_assert_str_eq(text, "first");
  free(text);
  char *keytxt = e2e_path("%s/key.txt", dir);
  text = e2e_read(keytxt);
  ck_assert_ptr_nonnull(strstr(text, key));
  ck_assert_ptr_nonnull(strstr(text, "fake 1"));
  free(text);
  tq_free(dir);

  ck_assert_ptr_null(tqh_compile_cache_fetch(&c, key, fake_fill, &fc, &dir, &hit));
  ck_assert_int_eq(hit, 1);
  ck_assert_int_eq(fc.calls, 1);
  tq_free(dir);
  tqh_compile_cache_deinit(&c);

  /* --recompute-cache: compiled again, the entry replaced. */
  ck_assert_ptr_null(tqh_compile_cache_init(&c, s.cache, 1));
  fc.content = "second";
  ck_assert_ptr_null(tqh_compile_cache_fetch(&c, key, fake_fill, &fc, &dir, &hit));
  ck_assert_int_eq(hit, 0);
  ck_assert_int_eq(fc.calls, 2);
  text = e2e_read(vmfb);
  ck_assert_str_eq(text, "second");
  free(text);
  tq_free(dir);

  /* A failed fill leaves nothing behind, and the error comes back as it was. */
  char key2[TQ_SHA256_HEX_SIZE];
  ck_assert_ptr_null(tqh_compile_cache_key(&c, "x", 1, "", key2));
  tq_status_t st = tqh_compile_cache_fetch(&c, key2, failing_fill, NULL, &dir, &hit);
  ck_assert_ptr_nonnull(st);
  ck_assert_int_eq(tq_status_code(st), TQ_INVALID_INPUT);
  tq_status_free(st);
  ck_assert_ptr_null(dir);
  char *entry2 = e2e_path("%s/v1/%.2s/%s", s.cache, key2, key2);
  ck_assert(!e2e_exists(entry2));
  char *tmpdir = e2e_path("%s/tmp", s.cache);
  char *ls = e2e_path("ls -A '%s' | wc -l", tmpdir);
  FILE *p = popen(ls, "r");
  int n = -1;
  ck_assert_int_eq(fscanf(p, "%d", &n), 1);
  pclose(p);
  ck_assert_int_eq(n, 0);
  free(ls);
  free(tmpdir);
  free(entry2);
  tqh_compile_cache_deinit(&c);
  free(expect);
  free(vmfb);
  free(keytxt);
  e2e_scratch_free(&s);
}
END_TEST

START_TEST(cache_concurrent_fills_of_one_key_all_succeed) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  tqh_compile_cache_t c;
  ck_assert_ptr_null(tqh_compile_cache_init(&c, s.cache, 0));
  char key[TQ_SHA256_HEX_SIZE];
  ck_assert_ptr_null(tqh_compile_cache_key(&c, "race", 4, "", key));
  pid_t pids[4];
  for (int i = 0; i < 4; i++) {
    fflush(NULL);
    pids[i] = fork();
    if (pids[i] == 0) {
      fill_count_t fc = {0, "same bytes"};
      char *dir = NULL;
      int hit;
      tq_status_t st = tqh_compile_cache_fetch(&c, key, fake_fill, &fc, &dir, &hit);
      char *v = dir ? e2e_path("%s/model.vmfb", dir) : NULL;
      char *text = v ? e2e_read(v) : NULL;
      int rc = st || !text || strcmp(text, "same bytes") != 0 ? 1 : 0;
      tq_status_free(st);
      free(text);
      free(v);
      tq_free(dir);
      tqh_compile_cache_deinit(&c);
      free(s.dir);
      free(s.results);
      free(s.cache);
      _exit(rc);
    }
  }
  for (int i = 0; i < 4; i++) ck_assert_int_eq(e2e_wait(pids[i]), 0);
  tqh_compile_cache_deinit(&c);
  e2e_scratch_free(&s);
}
END_TEST

START_TEST(link_tree_mirrors_files_and_folders) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  char *a = e2e_path("%s/a/sub/x.txt", s.dir);
  e2e_write(a, "x");
  char *b = e2e_path("%s/a/y.txt", s.dir);
  e2e_write(b, "yy");
  char *from = e2e_path("%s/a", s.dir), *to = e2e_path("%s/b", s.dir);
  ck_assert_ptr_null(tqh_link_tree(from, to));
  char *bx = e2e_path("%s/b/sub/x.txt", s.dir), *by = e2e_path("%s/b/y.txt", s.dir);
  char *t1 = e2e_read(bx), *t2 = e2e_read(by);
  ck_assert_str_eq(t1, "x");
  ck_assert_str_eq(t2, "yy");
  struct stat s1, s2;
  ck_assert_int_eq(stat(a, &s1), 0);
  ck_assert_int_eq(stat(bx, &s2), 0);
  ck_assert(s1.st_ino == s2.st_ino); /* a hard link, not a copy */
  ck_assert_ptr_null(tqh_remove_tree(to));
  ck_assert(!e2e_exists(to));
  free(t1);
  free(t2);
  free(a);
  free(b);
  free(from);
  free(to);
  free(bx);
  free(by);
  e2e_scratch_free(&s);
}
END_TEST

START_TEST(link_tree_recreates_symlinks_and_replaces_existing_targets) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  char *x = e2e_path("%s/a/x.txt", s.dir), *lnk = e2e_path("%s/a/l", s.dir);
  e2e_write(x, "new");
  ck_assert_int_eq(symlink("x.txt", lnk), 0);
  char *bx = e2e_path("%s/b/x.txt", s.dir), *bl = e2e_path("%s/b/l", s.dir);
  e2e_write(bx, "old");
  ck_assert_int_eq(symlink("elsewhere", bl), 0);
  char *from = e2e_path("%s/a", s.dir), *to = e2e_path("%s/b", s.dir);
  ck_assert_ptr_null(tqh_link_tree(from, to));
  char *text = e2e_read(bx);
  ck_assert_str_eq(text, "new");
  char target[64];
  ssize_t n = readlink(bl, target, sizeof(target) - 1);
  ck_assert_int_eq(n, 5);
  target[n] = 0;
  ck_assert_str_eq(target, "x.txt");
  free(text);
  free(x);
  free(lnk);
  free(bx);
  free(bl);
  free(from);
  free(to);
  e2e_scratch_free(&s);
}
END_TEST

/* A tree read once mirrors the same files again (a cache entry linked into each test's folder)
 * without reading the folders again; once the source lost a file, the replay fails naming it,
 * which is what tells the runner to read the tree again. */
START_TEST(tree_read_once_is_linked_again_and_fails_once_the_source_changed) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  char *x = e2e_path("%s/a/sub/x.txt", s.dir), *lnk = e2e_path("%s/a/l", s.dir);
  e2e_write(x, "x");
  ck_assert_int_eq(symlink("sub/x.txt", lnk), 0);
  char *from = e2e_path("%s/a", s.dir);
  tqh_tree_t tree;
  tqh_tree_init(&tree);
  ck_assert_ptr_null(tqh_tree_read(from, &tree));
  ck_assert_uint_eq(tree.count, 4); /* a, a/sub, a/sub/x.txt, a/l in readdir's order */
  ck_assert_str_eq(tree.entries[0].path, "");
  ck_assert_int_eq(tree.entries[0].kind, TQH_TREE_DIR);
  for (int k = 0; k < 2; k++) {
    char *to = e2e_path("%s/b%d", s.dir, k), *bx = e2e_path("%s/b%d/sub/x.txt", s.dir, k);
    char *bl = e2e_path("%s/b%d/l", s.dir, k);
    ck_assert_ptr_null(tqh_tree_link(&tree, from, to));
    struct stat s1, s2;
    ck_assert_int_eq(stat(x, &s1), 0);
    ck_assert_int_eq(stat(bx, &s2), 0);
    ck_assert(s1.st_ino == s2.st_ino);
    char target[64];
    ssize_t n = readlink(bl, target, sizeof(target) - 1);
    ck_assert_int_eq(n, 9);
    target[n] = 0;
    ck_assert_str_eq(target, "sub/x.txt");
    free(to);
    free(bx);
    free(bl);
  }
  ck_assert_int_eq(unlink(x), 0);
  char *to = e2e_path("%s/b2", s.dir);
  tq_status_t st = tqh_tree_link(&tree, from, to);
  ck_assert_ptr_nonnull(st);
  ck_assert_ptr_nonnull(strstr(tq_status_message(st), "x.txt"));
  tq_status_free(st);
  /* Read again, the tree is what the source holds now. */
  ck_assert_ptr_null(tqh_tree_read(from, &tree));
  ck_assert_uint_eq(tree.count, 3);
  ck_assert_ptr_null(tqh_tree_link(&tree, from, to));
  tqh_tree_deinit(&tree);
  ck_assert_uint_eq(tree.count, 0);
  free(to);
  free(x);
  free(lnk);
  free(from);
  e2e_scratch_free(&s);
}
END_TEST

/* Both ways of writing (by path, and relative to an open folder) leave the old file and no
 * temporary when the write fails, and say which file; the relative one writes the same file. A
 * file size limit of one byte makes the write of the temporary fail (EFBIG, with SIGXFSZ ignored)
 * after the temporary exists. */
START_TEST(quick_atomic_write_that_fails_leaves_no_temporary) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  char *path = e2e_path("%s/w/t/out.txt", s.dir), *dir = e2e_path("%s/w/t", s.dir);
  char *top = e2e_path("%s/w", s.dir);
  e2e_write(path, "old");
  int top_fd = open(top, O_PATH | O_DIRECTORY | O_CLOEXEC);
  ck_assert_int_ge(top_fd, 0);
  for (int relative = 0; relative < 2; relative++) {
    struct rlimit saved, lim;
    ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &saved), 0);
    lim = saved;
    lim.rlim_cur = 1;
    void (*saved_handler)(int) = signal(SIGXFSZ, SIG_IGN);
    ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
    tq_status_t st = relative
                         ? tqh_write_quick_atomic_at(top_fd, "t/out.txt", path, "new content", 11)
                         : tqh_write_quick_atomic(path, "new content", 11);
    ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &saved), 0);
    signal(SIGXFSZ, saved_handler);
    ck_assert_ptr_nonnull(st);
    /* The message names the temporary by its whole path either way. */
    char *tmp_prefix = e2e_path("%s/.out.txt.tmp.", dir);
    ck_assert_msg(strstr(tq_status_message(st), tmp_prefix), "%s", tq_status_message(st));
    free(tmp_prefix);
    tq_status_free(st);
    char **names;
    size_t count;
    ck_assert_ptr_null(tq_dir_list(dir, NULL, &names, &count));
    ck_assert_uint_eq(count, 1);
    ck_assert_str_eq(names[0], "out.txt");
    tq_dir_list_free(names, count);
    char *text = e2e_read(path);
    ck_assert_str_eq(text, "old");
    free(text);
  }
  ck_assert_ptr_null(tqh_write_quick_atomic_at(top_fd, "t/out.txt", path, "new content", 11));
  char *text = e2e_read(path);
  ck_assert_str_eq(text, "new content");
  free(text);
  /* `path` must end in `rel`, whole components. */
  static const char *const wrong[] = {"out.txt2", "/out.txt", "ut.txt", ""};
  for (size_t i = 0; i < sizeof(wrong) / sizeof(wrong[0]); i++) {
    tq_status_t st = tqh_write_quick_atomic_at(top_fd, wrong[i], path, "x", 1);
    ck_assert_ptr_nonnull(st);
    ck_assert_int_eq(tq_status_code(st), TQ_INVALID_ARGUMENT);
    tq_status_free(st);
  }
  close(top_fd);
  free(path);
  free(dir);
  free(top);
  e2e_scratch_free(&s);
}
END_TEST

/* ---- Worker protocol ------------------------------------------------------------------------ */

START_TEST(result_roundtrips_through_encoding) {
  tqh_test_result_t r, back;
  tqh_test_result_init(&r);
  tqh_test_result_fail(&r, TQH_OUTCOME_FAILED, "mismatch", "output %d differs", 0);
  tqh_test_result_fail(&r, TQH_OUTCOME_ERROR, "later", "ignored: the first failure wins");
  r.cache = TQH_CACHE_HIT;
  r.compile_s = 0.25;
  r.run_s = 1.5;
  r.has_wall_time = 1;
  r.samples = tq_calloc(2, sizeof(double));
  r.samples[0] = 0.1;
  r.samples[1] = 0.2;
  r.num_samples = 2;
  ck_assert_ptr_null(tqh_test_result_add_metric(&r, "OVERALL", 12.5));
  ck_assert_ptr_null(tqh_test_result_add_metric(&r, "Dma Total", 3));
  ck_assert_ptr_null(tqh_test_result_add_file(&r, "profile.pb"));
  r.clock_hz = 800000000u;
  r.recon = tq_calloc(2, sizeof(*r.recon));
  r.num_recon = 2;
  r.recon[0] = (tqh_recon_t){3,
                             tq_strdup_printf("loc(\"m.mlir\":4:5)"),
                             tq_strdup_printf("tosa.rescale@L4 tosa.add@L5"),
                             1000,
                             1,
                             1100,
                             0,
                             0,
                             900,
                             700,
                             600,
                             3};
  r.recon[1] = (tqh_recon_t){
      6, tq_strdup_printf("%s", ""), tq_strdup_printf("%s", ""), 50, 0, 0, 1, 0.125, 0, 0, 0, 1};
  tq_buf_t b;
  tq_buf_init(&b, 0);
  ck_assert_ptr_null(tqh__result_encode(&r, &b));
  ck_assert_ptr_null(tqh__result_decode(b.data, b.len, &back));
  ck_assert_int_eq(back.outcome, TQH_OUTCOME_FAILED);
  ck_assert_str_eq(back.message, "output 0 differs");
  ck_assert_str_eq(back.failure_type, "mismatch");
  ck_assert_ptr_null(back.text);
  ck_assert_int_eq(back.cache, TQH_CACHE_HIT);
  ck_assert_double_eq(back.compile_s, 0.25);
  ck_assert_uint_eq(back.num_samples, 2);
  ck_assert_double_eq(back.samples[1], 0.2);
  ck_assert_uint_eq(back.num_metrics, 2);
  ck_assert_str_eq(back.metric_names[1], "Dma Total");
  ck_assert_double_eq(back.metric_us[0], 12.5);
  ck_assert_uint_eq(back.num_files, 1);
  ck_assert_str_eq(back.files[0], "profile.pb");
  ck_assert_uint_eq(back.clock_hz, 800000000u);
  ck_assert_uint_eq(back.num_recon, 2);
  ck_assert_uint_eq(back.recon[0].job_id, 3);
  ck_assert_uint_eq(back.recon[0].programs, 3);
  ck_assert_str_eq(back.recon[0].location, "loc(\"m.mlir\":4:5)");
  ck_assert_str_eq(back.recon[0].operators, "tosa.rescale@L4 tosa.add@L5");
  ck_assert_uint_eq(back.recon[0].estimated_cycles, 1000);
  ck_assert_int_eq(back.recon[0].has_simulated, 1);
  ck_assert_uint_eq(back.recon[0].simulated_cycles, 1100);
  ck_assert_uint_eq(back.recon[0].sim_dma_cycles, 900);
  ck_assert_uint_eq(back.recon[0].sim_compute_cycles, 700);
  ck_assert_uint_eq(back.recon[0].sim_overlap_cycles, 600);
  ck_assert_int_eq(back.recon[1].has_device, 1);
  ck_assert_double_eq(back.recon[1].device_us, 0.125);
  tqh_test_result_deinit(&back);
  /* Every truncation is refused, never read past. */
  for (size_t len = 0; len < b.len; len++) {
    tq_status_t st = tqh__result_decode(b.data, len, &back);
    ck_assert_ptr_nonnull(st);
    ck_assert_int_eq(tq_status_code(st), TQ_INVALID_INPUT);
    tq_status_free(st);
    tqh_test_result_deinit(&back);
  }
  tq_buf_deinit(&b);
  tqh_test_result_deinit(&r);
}
END_TEST

static void child_talks(void *ctx, size_t test, int fd) {
  (void)ctx;
  tq_status_free(tqh__msg_send(fd, TQH__MSG_LOG, "Wall time: 0.001s", 17));
  if (test == 1) {
    signal(SIGSEGV, SIG_DFL); /* a plain crash, also under a sanitizer or valgrind */
    raise(SIGSEGV);
  }
  if (test == 2) pause();
  tqh_test_result_t r;
  tqh_test_result_init(&r);
  tq_status_free(tqh_test_result_add_file(&r, "stdout.txt"));
  tq_buf_t b;
  tq_buf_init(&b, 0);
  tq_status_free(tqh__result_encode(&r, &b));
  tq_status_free(tqh__msg_send(fd, TQH__MSG_RESULT, b.data, b.len));
  tq_buf_deinit(&b);
  tqh_test_result_deinit(&r);
}

/* Reads a worker until its test is over (a RESULT) or it is gone (end of file); counts its
 * messages. Returns -1 while the worker lives on, else its wait status. */
static int pump(tqh__worker_t *w, int *logs, int *results) {
  *logs = *results = 0;
  while (w->fd >= 0 && !*results) {
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
    ck_assert_ptr_null(tqh__worker_read(w));
    for (;;) {
      uint32_t type;
      const char *data;
      size_t len;
      int got;
      ck_assert_ptr_null(tqh__worker_next_msg(w, &type, &data, &len, &got));
      if (!got) break;
      if (type == TQH__MSG_LOG) {
        ck_assert_uint_eq(len, 17);
        ck_assert(!memcmp(data, "Wall time: 0.001s", 17));
        (*logs)++;
      }
      if (type == TQH__MSG_RESULT) {
        tqh_test_result_t r;
        ck_assert_ptr_null(tqh__result_decode(data, len, &r));
        ck_assert_str_eq(r.files[0], "stdout.txt");
        tqh_test_result_deinit(&r);
        (*results)++;
      }
    }
    if (w->deadline_ns && tqh_now_ns() > w->deadline_ns && !w->timed_out) {
      w->timed_out = 1;
      tqh__worker_kill(w);
    }
  }
  return w->fd >= 0 ? -1 : tqh__worker_reap(w);
}

START_TEST(worker_pool_runs_tests_and_reports_crash_and_timeout) {
  tqh__worker_t w;
  int logs, results;
  ck_assert_ptr_null(tqh__worker_spawn(&w, NULL, 0, child_talks, NULL));
  pid_t first = w.pid;
  /* One worker, two tests in a row. */
  for (int round = 0; round < 2; round++) {
    ck_assert_ptr_null(tqh__worker_assign(&w, 0, 10));
    ck_assert_int_eq(pump(&w, &logs, &results), -1);
    ck_assert_int_eq(logs, 1);
    ck_assert_int_eq(results, 1);
    ck_assert_int_eq(w.pid, first);
  }
  /* Retired: it exits cleanly at end of file. */
  tqh__worker_retire(&w);
  int status = pump(&w, &logs, &results);
  ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  tqh_test_result_deinit(&w.result);

  ck_assert_ptr_null(tqh__worker_spawn(&w, NULL, 0, child_talks, NULL));
  ck_assert_ptr_null(tqh__worker_assign(&w, 1, 10));
  status = pump(&w, &logs, &results);
  ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV);
  ck_assert_int_eq(logs, 1);
  ck_assert_int_eq(results, 0);
  tqh_test_result_deinit(&w.result);

  ck_assert_ptr_null(tqh__worker_spawn(&w, NULL, 0, child_talks, NULL));
  ck_assert_ptr_null(tqh__worker_assign(&w, 2, 0.05));
  status = pump(&w, &logs, &results);
  ck_assert(w.timed_out);
  ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  tqh_test_result_deinit(&w.result);

  /* A worker that died while idle: handing it a test fails instead of hanging. */
  signal(SIGPIPE, SIG_IGN);
  ck_assert_ptr_null(tqh__worker_spawn(&w, NULL, 0, child_talks, NULL));
  tqh__worker_kill(&w);
  waitpid(w.pid, NULL, 0);
  w.pid = -w.pid; /* reaped by hand above */
  tq_status_t st = tqh__worker_assign(&w, 0, 1);
  ck_assert_ptr_nonnull(st);
  ck_assert_int_eq(tq_status_code(st), TQ_UNAVAILABLE);
  tq_status_free(st);
  w.pid = 0;
  tqh__worker_reap(&w);
  tqh_test_result_deinit(&w.result);
  signal(SIGPIPE, SIG_DFL);
  char buf[32];
  ck_assert_str_eq(tqh_signal_name(SIGSEGV, buf), "SIGSEGV");
  ck_assert_str_eq(tqh_signal_name(63, buf), "signal 63");
}
END_TEST

/* In a worker: sends an empty RESULT (the test is over). */
static void report_done(int fd) {
  tqh_test_result_t r;
  tqh_test_result_init(&r);
  tq_buf_t b;
  tq_buf_init(&b, 0);
  tq_status_free(tqh__result_encode(&r, &b));
  tq_status_free(tqh__msg_send(fd, TQH__MSG_RESULT, b.data, b.len));
  tq_buf_deinit(&b);
  tqh_test_result_deinit(&r);
}

/* A worker that enters two phases once the test hands it a byte on `*ctx`, then reports. */
static void child_phases(void *ctx, size_t test, int fd) {
  (void)test;
  char go;
  if (read(*(const int *)ctx, &go, 1) != 1) _exit(3);
  tq_status_free(tqh__worker_phase(fd, "compile", 100));
  tq_status_free(tqh__worker_phase(fd, "run", 0.25));
  report_done(fd);
}

/* Reads `w` until `results` RESULTs came; appends what its LOGs said to `logs` (may be NULL).
 * Returns the PHASE messages among them. */
static int read_results(tqh__worker_t *w, int results, tq_buf_t *logs) {
  int phases = 0;
  while (results > 0) {
    struct pollfd pfd = {w->fd, POLLIN, 0};
    ck_assert_int_eq(poll(&pfd, 1, 10000), 1);
    ck_assert_ptr_null(tqh__worker_read(w));
    ck_assert_int_ge(w->fd, 0);
    for (;;) {
      uint32_t type;
      const char *data;
      size_t len;
      int got;
      ck_assert_ptr_null(tqh__worker_next_msg(w, &type, &data, &len, &got));
      if (!got) break;
      if (type == TQH__MSG_LOG && logs)
        ck_assert_ptr_null(tq_buf_printf(logs, "%.*s;", (int)len, data));
      phases += type == TQH__MSG_PHASE;
      results -= type == TQH__MSG_RESULT;
    }
  }
  return phases;
}

/* Retires `w`, whose test is over, and lets it go: it exits cleanly; its board goes with it. */
static void end_worker(tqh__worker_t *w, int go[2]) {
  tqh__worker_retire(w);
  close(go[1]);
  int logs, results;
  int status = pump(w, &logs, &results);
  ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  ck_assert_ptr_null(w->board);
  tqh_test_result_deinit(&w->result);
  close(go[0]);
}

/* The phases of a test reach the parent through the board they share: a message is sent only
 * when the phase's deadline comes before the parent's next look; the board of an earlier test
 * does not count for the next. */
START_TEST(worker_phases_go_through_the_board_and_wake_the_parent_only_when_due) {
  int go[2];
  ck_assert_int_eq(pipe(go), 0);
  tqh__worker_t w;
  ck_assert_ptr_null(tqh__worker_spawn(&w, NULL, 0, child_phases, &go[0]));
  ck_assert_ptr_nonnull(w.board);
  for (int round = 0; round < 2; round++) {
    uint64_t handed = tqh_now_ns();
    ck_assert_ptr_null(tqh__worker_assign(&w, 0, 10));
    uint64_t assigned = tqh_now_ns();
    /* Before the worker enters a phase of this test, the parent keeps the one it set. */
    tqh__worker_sync_phase(&w);
    ck_assert_str_eq(w.phase, "start");
    ck_assert_uint_ge(w.deadline_ns, assigned + 9000000000ull);
    /* A look due in 0.1 s comes before either deadline (100 s, 0.25 s): no message. The second
     * time the parent may sleep without end: each phase wakes it. */
    tqh__worker_look_by(&w, round == 0 ? tqh_now_ns() + 100000000u : UINT64_MAX);
    uint64_t go_ns = tqh_now_ns();
    ck_assert_int_eq(write(go[1], "g", 1), 1);
    ck_assert_int_eq(read_results(&w, 1, NULL), round == 0 ? 0 : 2);
    uint64_t done = tqh_now_ns();
    tqh__worker_sync_phase(&w);
    ck_assert_str_eq(w.phase, "run");
    ck_assert_double_eq(w.phase_s, 0.25);
    ck_assert_uint_ge(w.deadline_ns, go_ns + 250000000u);
    ck_assert_uint_le(w.deadline_ns, done + 250000000u);
    /* When the worker took the test: after the parent handed it over, before it reported. */
    uint64_t begun = tqh__worker_begun_ns(&w, w.gen);
    ck_assert_uint_ge(begun, handed);
    ck_assert_uint_le(begun, done);
  }
  end_worker(&w, go);
}
END_TEST

/* A worker that says which test it runs (a LOG of its index); tests 0 and 1 once it is let go
 * (a byte each). */
static void child_claims(void *ctx, size_t test, int fd) {
  char go;
  if (test <= 1 && read(*(const int *)ctx, &go, 1) != 1) _exit(3);
  char line[32];
  int n = snprintf(line, sizeof(line), "ran %zu", test);
  tq_status_free(tqh__msg_send(fd, TQH__MSG_LOG, line, (size_t)n));
  report_done(fd);
}

/* Sends test `test` ahead to busy `w`, as the runner does (w->next); returns its command. */
static uint64_t send_ahead_by_hand(tqh__worker_t *w, size_t test) {
  uint64_t seq;
  ck_assert_ptr_null(tqh__worker_send(w, test, &seq));
  w->next[w->num_next].test = test;
  w->next[w->num_next++].seq = seq;
  return seq;
}

/* Waits until `w`'s worker has taken command `seq`. */
static void wait_begun(const tqh__worker_t *w, uint64_t seq) {
  while (tqh__worker_begun_ns(w, seq) == 0) {
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
  }
}

/* Commands sent ahead to a busy worker can be taken back before it comes to them: it skips
 * them and runs what comes after; one it has taken cannot be. */
START_TEST(tests_sent_ahead_are_taken_back_before_the_worker_comes_to_them) {
  int go[2];
  ck_assert_int_eq(pipe(go), 0);
  tqh__worker_t w;
  ck_assert_ptr_null(tqh__worker_spawn(&w, NULL, 0, child_claims, &go[0]));
  ck_assert_ptr_nonnull(w.board);
  ck_assert_ptr_null(tqh__worker_assign(&w, 0, 10));
  /* Test 0 is taken (the worker waits in it); 1 and 2 are sent ahead. */
  wait_begun(&w, w.gen);
  send_ahead_by_hand(&w, 1);
  send_ahead_by_hand(&w, 2);
  size_t kept = 99;
  ck_assert_int_eq(tqh__worker_take_back(&w, &kept), 1);
  ck_assert_uint_eq(kept, 0);
  w.num_next = 0;
  /* Test 3 is sent ahead after that, and taken back too (the range grows). */
  send_ahead_by_hand(&w, 3);
  ck_assert_int_eq(tqh__worker_take_back(&w, &kept), 1);
  ck_assert_uint_eq(kept, 0);
  w.num_next = 0;
  /* Test 4 is not taken back: the worker runs 0, skips 1 to 3, runs 4. */
  uint64_t seq4;
  ck_assert_ptr_null(tqh__worker_send(&w, 4, &seq4));
  ck_assert_int_eq(write(go[1], "g", 1), 1);
  tq_buf_t ran;
  tq_buf_init(&ran, 0);
  read_results(&w, 2, &ran);
  ck_assert_str_eq(ran.data, "ran 0;ran 4;");
  /* Once the worker has taken a test, it cannot be had back. */
  tqh__worker_begin(&w, 4, seq4, tqh_now_ns(), 10);
  ck_assert_uint_eq(tqh__worker_begun_ns(&w, seq4) != 0, 1);
  uint64_t seq5;
  ck_assert_ptr_null(tqh__worker_send(&w, 5, &seq5));
  read_results(&w, 1, &ran);
  w.next[0].test = 5;
  w.next[0].seq = seq5;
  w.num_next = 1;
  ck_assert_int_eq(tqh__worker_take_back(&w, &kept), 0);
  ck_assert_str_eq(ran.data, "ran 0;ran 4;ran 5;");
  tq_buf_deinit(&ran);
  end_worker(&w, go);
}
END_TEST

/* A test the worker has taken while the parent has not yet read the result before it is never
 * taken back, not by a second taking back either. */
START_TEST(a_test_the_worker_took_is_not_taken_back) {
  int go[2];
  ck_assert_int_eq(pipe(go), 0);
  tqh__worker_t w;
  ck_assert_ptr_null(tqh__worker_spawn(&w, NULL, 0, child_claims, &go[0]));
  ck_assert_ptr_nonnull(w.board);
  ck_assert_ptr_null(tqh__worker_assign(&w, 0, 10));
  uint64_t seq1 = send_ahead_by_hand(&w, 1);
  send_ahead_by_hand(&w, 2);
  /* The worker runs test 0 and takes test 1 (and waits in it); the parent has read nothing. */
  ck_assert_int_eq(write(go[1], "g", 1), 1);
  wait_begun(&w, seq1);
  size_t kept = 99;
  ck_assert_int_eq(tqh__worker_take_back(&w, &kept), 1);
  ck_assert_uint_eq(kept, 1); /* test 1 is the worker's; test 2 is taken back */
  w.num_next = kept;
  ck_assert_int_eq(tqh__worker_taking_back(&w), 1);
  ck_assert_int_eq(tqh__worker_take_back(&w, &kept), 0);
  ck_assert_uint_eq(w.num_next, 1);
  /* Test 1 goes on and ends; 2 is skipped; 3 runs. */
  ck_assert_int_eq(write(go[1], "g", 1), 1);
  uint64_t seq3;
  ck_assert_ptr_null(tqh__worker_send(&w, 3, &seq3));
  tq_buf_t ran;
  tq_buf_init(&ran, 0);
  read_results(&w, 3, &ran);
  ck_assert_str_eq(ran.data, "ran 0;ran 1;ran 3;");
  ck_assert_int_eq(tqh__worker_taking_back(&w), 0);
  tq_buf_deinit(&ran);
  end_worker(&w, go);
}
END_TEST

START_TEST(message_longer_than_limit_is_refused) {
  tqh__worker_t w;
  memset(&w, 0, sizeof(w));
  tq_buf_init(&w.in, 0);
  uint32_t head[2] = {TQH__MSG_LOG, (uint32_t)TQH__MSG_MAX + 1};
  ck_assert_ptr_null(tq_buf_append(&w.in, head, sizeof(head)));
  uint32_t type;
  const char *data;
  size_t len;
  int got;
  tq_status_t st = tqh__worker_next_msg(&w, &type, &data, &len, &got);
  ck_assert_ptr_nonnull(st);
  ck_assert_int_eq(got, 0);
  tq_status_free(st);
  tq_buf_deinit(&w.in);
}
END_TEST

/* ---- Comparison with the reference ------------------------------------------------------------ */

START_TEST(compare_integers_exactly_and_floats_within_tolerance) {
  int64_t dims[2] = {2, 3};
  int32_t a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {1, 2, 3, 4, 5, 6};
  tqs_tensor_t ta, tb;
  ck_assert_ptr_null(tqs_tensor_init(&ta, TQS_I32, 2, dims, a));
  ck_assert_ptr_null(tqs_tensor_init(&tb, TQS_I32, 2, dims, b));
  char msg[512];
  ck_assert_int_eq(tqh__compare_output(0, &ta, &tb, 100, 100, msg, sizeof(msg)), 1);
  b[4] = 6; /* off by one: a mismatch whatever the float tolerance */
  ck_assert_int_eq(tqh__compare_output(0, &ta, &tb, 100, 100, msg, sizeof(msg)), 0);
  ck_assert_msg(strstr(msg, "Number of differences: 1 (of 6 elements); first at [1,1]: got 5, "
                           "expected 6"),
                "%s", msg);

  float fa[3] = {1.0f, NAN, INFINITY}, fb[3] = {1.0005f, NAN, INFINITY};
  int64_t d3[1] = {3};
  ck_assert_ptr_null(tqs_tensor_init(&ta, TQS_F32, 1, d3, fa));
  ck_assert_ptr_null(tqs_tensor_init(&tb, TQS_F32, 1, d3, fb));
  ck_assert_int_eq(tqh__compare_output(1, &ta, &tb, 1e-5, 1e-3, msg, sizeof(msg)), 1);
  ck_assert_int_eq(tqh__compare_output(1, &ta, &tb, 1e-5, 1e-4, msg, sizeof(msg)), 0);
  ck_assert_msg(strstr(msg, "output 1 differs") && strstr(msg, "first at [0]") &&
                    strstr(msg, "Number of differences: 1 (of 3 elements out of tolerance"),
                "%s", msg);
  fb[2] = -INFINITY;
  ck_assert_int_eq(tqh__compare_output(1, &ta, &tb, 1, 1, msg, sizeof(msg)), 0);
  fb[2] = INFINITY;
  fb[1] = 0;
  ck_assert_int_eq(tqh__compare_output(1, &ta, &tb, 1, 1, msg, sizeof(msg)), 0);

  /* Shapes and types must agree. */
  int64_t d6[1] = {6};
  ck_assert_ptr_null(tqs_tensor_init(&ta, TQS_I32, 2, dims, a));
  ck_assert_ptr_null(tqs_tensor_init(&tb, TQS_I32, 1, d6, b));
  ck_assert_int_eq(tqh__compare_output(0, &ta, &tb, 0, 0, msg, sizeof(msg)), 0);
  ck_assert_ptr_nonnull(strstr(msg, "shape"));

  /* The runtime's tensors are seen with the same bytes. */
  tqr_tensor_t *rt = NULL;
  int64_t d4[1] = {4};
  ck_assert_ptr_null(tqr_tensor_create(TORQ__ELEMENT_TYPE__I8, 1, d4, &rt));
  rt->data[2] = (uint8_t)-7;
  tqs_tensor_t view;
  ck_assert_ptr_null(tqh__as_sim_tensor(rt, &view));
  ck_assert_int_eq(view.type, TQS_I8);
  ck_assert_int_eq(tqs_tensor_get_i64(&view, 2), -7);
  tqr_tensor_destroy(rt);
}
END_TEST

/* ---- Progress ------------------------------------------------------------------------------- */

/* The progress's output callback (tqh_output_fn), into a memory stream. */
static void to_stream(void *ctx, const char *text, size_t len) {
  fwrite(text, 1, len, (FILE *)ctx);
}

START_TEST(progress_prints_one_plain_line_per_test_without_a_tty) {
  char *buf = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&buf, &size);
  tqh__progress_t p;
  tqh__progress_init(&p, to_stream, f, 0, 0, 0, 3);
  tqh__progress_test(&p, "s/a", TQH_OUTCOME_PASSED, 0.207, NULL);
  tqh__progress_test(&p, "s/b", TQH_OUTCOME_FAILED, -1, "compile: bad\nmore");
  tqh__progress_log(&p, "s/c", "Wall time: 1s\n", 14); /* not shown without -v */
  tqh__progress_tick(&p, 1, "s/c", tqh_now_ns());       /* nothing drawn without a TTY */
  tqh__progress_deinit(&p);
  fclose(f);
  ck_assert_str_eq(buf, "PASSED   s/a (207.000ms) [1/3]\n"
                        "FAILED   s/b: compile: bad [2/3]\n");
  free(buf);

  f = open_memstream(&buf, &size);
  tqh__progress_init(&p, to_stream, f, 1, 0, 0, 3);
  p.start_ns -= 20000000000ull; /* the run began 20 s ago */
  tqh__progress_test(&p, "s/a", TQH_OUTCOME_PASSED, 0.5, NULL);
  fflush(f);
  /* A terminal: no line for a pass, the live line instead, in place; the pace so far (20 s a
   * test) gives the ETA of the two left. */
  ck_assert_ptr_null(strstr(buf, "s/a"));
  ck_assert_ptr_nonnull(strstr(buf, "\r\033[K[1/3] "));
  ck_assert_ptr_nonnull(strstr(buf, "1 passed"));
  ck_assert_msg(strstr(buf, ", ETA 00:40") || strstr(buf, ", ETA 00:39"), "%s", buf);
  /* The running test is named with its time; once it has overtaken the ETA, no ETA (never
   * "ETA 00:00" while a test still runs). */
  uint64_t now = tqh_now_ns();
  p.start_ns = now - 65000000000ull; /* s/a took 20 s and ended 45 s ago */
  p.last_done_ns = now - 45000000000ull;
  p.last_draw_ns = 0;
  size_t before = size;
  tqh__progress_tick(&p, 1, "s/long", now - 45000000000ull);
  fflush(f);
  const char *line = buf + before;
  ck_assert_msg(strstr(line, " · running s/long (00:45) · ") != NULL, "%s", line);
  ck_assert_msg(strstr(line, "ETA") == NULL, "%s", line);
  p.last_draw_ns = 0;
  before = size;
  tqh__progress_tick(&p, 3, "s/long", now - 45000000000ull);
  fflush(f);
  ck_assert_ptr_nonnull(strstr(buf + before, "running s/long (00:45) and 2 more"));
  tqh__progress_deinit(&p);
  fclose(f);
  free(buf);
}
END_TEST

Suite *e2e_suite_internals(void) {
  Suite *s = suite_create("internals");
  TCase *tc = tcase_create("cache");
  tcase_add_test(tc, cache_key_depends_on_model_options_and_compiler);
  tcase_add_test(tc, cache_fills_once_then_hits_and_recompute_replaces);
  tcase_add_test(tc, cache_concurrent_fills_of_one_key_all_succeed);
  tcase_add_test(tc, link_tree_mirrors_files_and_folders);
  tcase_add_test(tc, link_tree_recreates_symlinks_and_replaces_existing_targets);
  tcase_add_test(tc, tree_read_once_is_linked_again_and_fails_once_the_source_changed);
  tcase_add_test(tc, quick_atomic_write_that_fails_leaves_no_temporary);
  suite_add_tcase(s, tc);
  tc = tcase_create("worker");
  tcase_add_test(tc, result_roundtrips_through_encoding);
  tcase_add_test(tc, worker_pool_runs_tests_and_reports_crash_and_timeout);
  tcase_add_test(tc, worker_phases_go_through_the_board_and_wake_the_parent_only_when_due);
  tcase_add_test(tc, tests_sent_ahead_are_taken_back_before_the_worker_comes_to_them);
  tcase_add_test(tc, a_test_the_worker_took_is_not_taken_back);
  tcase_add_test(tc, message_longer_than_limit_is_refused);
  suite_add_tcase(s, tc);
  tc = tcase_create("compare");
  tcase_add_test(tc, compare_integers_exactly_and_floats_within_tolerance);
  suite_add_tcase(s, tc);
  tc = tcase_create("progress");
  tcase_add_test(tc, progress_prints_one_plain_line_per_test_without_a_tty);
  suite_add_tcase(s, tc);
  return s;
}
