/* Streaming atomic file output (files.h): a file of many chunks, written by its background
 * writer, is exactly the bytes given; until commit the old file stays; a failed write is
 * reported with the path and leaves the old file and no temporary. */
#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "suites.h"
#include "torq/base/alloc.h"
#include "torq/harness/files.h"
#include "tq_test.h"

/* Records of 1 to 4000 bytes, each a different pattern, as a caller appends them between
 * flushes: `total` bytes in all, also appended to `expect`. */
static tq_status_t write_records(tqh_out_file_t *out, size_t total, tq_buf_t *expect) {
  uint32_t x = 12345;
  size_t done = 0;
  while (done < total) {
    x = x * 1103515245u + 12345u;
    size_t n = 1 + (x >> 8) % 4000;
    if (n > total - done) n = total - done;
    TQ_TRY(tq_buf_reserve(&out->buf, n));
    for (size_t i = 0; i < n; i++) out->buf.data[out->buf.len + i] = (char)('a' + (x + i) % 26);
    if (expect) TQ_TRY(tq_buf_append(expect, out->buf.data + out->buf.len, n));
    out->buf.len += n;
    done += n;
    TQ_TRY(tqh_out_file_maybe_flush(out));
  }
  return NULL;
}

/* The entries of `dir` other than . and .. */
static int entries(const char *dir) {
  DIR *d = opendir(dir);
  ck_assert_ptr_nonnull(d);
  int n = 0;
  for (struct dirent *e; (e = readdir(d));) n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
  closedir(d);
  return n;
}

/* `dir` holds `path` alone, as it was ("old"): no new file, no temporary. */
static void assert_only_the_old_file(const char *dir, const char *path) {
  size_t len = 0;
  char *got = th_read(path, &len);
  ck_assert_str_eq(got, "old");
  ck_assert_int_eq(entries(dir), 1);
  tq_free(got);
}

START_TEST(file_of_many_chunks_is_exactly_its_bytes) {
  char *dir = th_tmpdir();
  char *path = th_path(dir, "big.csv");
  th_write(path, "the last run's output\n");
  /* 9.3 chunks: the writer takes eight of them while records are still added. */
  size_t sizes[] = {TQH_OUT_FILE_CHUNK * 9 + TQH_OUT_FILE_CHUNK / 3, 100, TQH_OUT_FILE_CHUNK,
                    TQH_OUT_FILE_CHUNK + 1};
  for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
    tq_buf_t expect;
    tq_buf_init(&expect, 0);
    tqh_out_file_t out;
    TH_OK(tqh_out_file_open(&out, path));
    TH_OK(write_records(&out, sizes[k], &expect));
    /* Until commit, the file is the old one, and the temporary is beside it. */
    ck_assert_int_eq(entries(dir), 2);
    TH_OK(tqh_out_file_commit(&out));
    ck_assert_ptr_null(out.writer);
    size_t len = 0;
    char *got = th_read(path, &len);
    ck_assert_uint_eq(len, sizes[k]);
    ck_assert_uint_eq(expect.len, sizes[k]);
    ck_assert_msg(memcmp(got, expect.data, len) == 0, "%zu bytes differ", sizes[k]);
    ck_assert_int_eq(entries(dir), 1);
    tq_free(got);
    tq_buf_deinit(&expect);
  }
  tq_free(path);
  th_rmtree(dir);
}
END_TEST

START_TEST(aborted_file_leaves_the_old_one_and_no_temporary) {
  char *dir = th_tmpdir();
  char *path = th_path(dir, "out.pb");
  th_write(path, "old");
  tqh_out_file_t out;
  TH_OK(tqh_out_file_open(&out, path));
  TH_OK(write_records(&out, TQH_OUT_FILE_CHUNK * 4, NULL));
  ck_assert_ptr_nonnull(out.writer);
  tqh_out_file_abort(&out);
  tqh_out_file_abort(&out); /* a closed one is fine */
  assert_only_the_old_file(dir, path);
  tq_free(path);
  th_rmtree(dir);
}
END_TEST

/* RLIMIT_FSIZE stands in for a full disk (the write stops at the limit with EFBIG, as one stops
 * at a full disk with ENOSPC); the writer thread meets it. Runs in Check's forked child (the
 * limit and SIGXFSZ are this process's); restored all the same. */
START_TEST(failed_write_names_the_file_and_keeps_the_old_one) {
  if (getenv("TORQ_VALGRIND")) {
    tq_test_skip("RLIMIT_FSIZE under valgrind");
    return;
  }
  char *dir = th_tmpdir();
  char *path = th_path(dir, "annotated.csv");
  th_write(path, "old");
  struct rlimit saved;
  ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &saved), 0);
  void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
  struct rlimit rl = {(rlim_t)TQH_OUT_FILE_CHUNK * 3, saved.rlim_max};
  ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &rl), 0);
  tqh_out_file_t out;
  TH_OK(tqh_out_file_open(&out, path));
  tq_status_t st = write_records(&out, TQH_OUT_FILE_CHUNK * 8, NULL);
  if (!st) st = tqh_out_file_commit(&out);
  else tqh_out_file_abort(&out);
  ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &saved), 0);
  signal(SIGXFSZ, old_handler);
  ck_assert_ptr_nonnull(st);
  ck_assert_int_eq(tq_status_code(st), TQ_IO);
  ck_assert_msg(strstr(tq_status_message(st), path) &&
                    strstr(tq_status_message(st), "File too large"),
                "%s", tq_status_message(st));
  tq_status_free(st);
  assert_only_the_old_file(dir, path);
  tq_free(path);
  th_rmtree(dir);
}
END_TEST

Suite *out_file_suite(void) {
  Suite *s = suite_create("out_file");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, file_of_many_chunks_is_exactly_its_bytes);
  tcase_add_test(tc, aborted_file_leaves_the_old_one_and_no_temporary);
  tcase_add_test(tc, failed_write_names_the_file_and_keeps_the_old_one);
  suite_add_tcase(s, tc);
  return s;
}
