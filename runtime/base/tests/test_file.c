/* Tests for file.h: reads with limits, atomic writes, mkdir -p and folder listings, in a fresh
 * folder under /tmp. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"
#include "torq/base/alloc.h"
#include "torq/base/file.h"
#include "tq_test.h"

START_TEST(file_read_returns_the_whole_content) {
  char path[TH_PATH_MAX];
  th_write_file(th_path(path, "a.txt"), "hello\nworld\n", 12);
  tq_buf_t b;
  TH_ASSERT_OK(tq_file_read(path, 0, &b));
  ck_assert_uint_eq(b.len, 12);
  ck_assert_str_eq(b.data, "hello\nworld\n");
  tq_buf_deinit(&b);
}
END_TEST

START_TEST(file_read_of_a_file_larger_than_the_chunk_is_exact) {
  size_t n = 300 * 1024 + 7;
  unsigned char *data = malloc(n);
  for (size_t k = 0; k < n; k++) data[k] = (unsigned char)(k * 31 + k / 251);
  char path[TH_PATH_MAX];
  th_write_file(th_path(path, "big.bin"), data, n);
  tq_buf_t b;
  TH_ASSERT_OK(tq_file_read(path, n, &b));
  ck_assert_uint_eq(b.len, n);
  ck_assert_int_eq(memcmp(b.data, data, n), 0);
  ck_assert_int_eq(b.data[n], '\0');
  tq_buf_deinit(&b);
  free(data);
}
END_TEST

START_TEST(file_read_of_an_empty_file_gives_an_empty_string) {
  char path[TH_PATH_MAX];
  th_write_file(th_path(path, "empty"), "", 0);
  tq_buf_t b;
  TH_ASSERT_OK(tq_file_read(path, 10, &b));
  ck_assert_uint_eq(b.len, 0);
  ck_assert_ptr_nonnull(b.data);
  ck_assert_str_eq(b.data, "");
  tq_buf_deinit(&b);
}
END_TEST

START_TEST(file_read_of_a_missing_file_is_not_found_naming_the_path) {
  char path[TH_PATH_MAX], want[TH_PATH_MAX + 32];
  th_path(path, "missing.yaml");
  snprintf(want, sizeof(want), "%s: no such file", path);
  tq_buf_t b;
  TH_ASSERT_STATUS(tq_file_read(path, 0, &b), TQ_NOT_FOUND, want);
  tq_buf_deinit(&b);
  /* A missing folder in the middle is the same error. */
  th_path(path, "nodir/x");
  snprintf(want, sizeof(want), "%s: no such file", path);
  TH_ASSERT_STATUS(tq_file_read(path, 0, &b), TQ_NOT_FOUND, want);
  tq_buf_deinit(&b);
}
END_TEST

START_TEST(file_read_of_a_directory_is_invalid_argument) {
  char want[TH_PATH_MAX + 32];
  snprintf(want, sizeof(want), "%s: is a directory", th_tmpdir());
  tq_buf_t b;
  TH_ASSERT_STATUS(tq_file_read(th_tmpdir(), 0, &b), TQ_INVALID_ARGUMENT, want);
  tq_buf_deinit(&b);
}
END_TEST

START_TEST(file_read_of_a_fifo_is_rejected_without_blocking) {
  char path[TH_PATH_MAX], want[TH_PATH_MAX + 32];
  ck_assert_int_eq(mkfifo(th_path(path, "pipe"), 0600), 0);
  snprintf(want, sizeof(want), "%s: not a regular file", path);
  tq_buf_t b;
  TH_ASSERT_STATUS(tq_file_read(path, 0, &b), TQ_INVALID_ARGUMENT, want);
  tq_buf_deinit(&b);
}
END_TEST

START_TEST(file_read_over_the_limit_is_limit_naming_path_and_limit) {
  char path[TH_PATH_MAX], want[TH_PATH_MAX + 64];
  char data[100];
  memset(data, 'd', sizeof(data));
  th_write_file(th_path(path, "hundred"), data, sizeof(data));
  snprintf(want, sizeof(want), "%s: 100 bytes is larger than the limit of 99 bytes", path);
  tq_buf_t b;
  TH_ASSERT_STATUS(tq_file_read(path, 99, &b), TQ_LIMIT, want);
  tq_buf_deinit(&b);
  TH_ASSERT_OK(tq_file_read(path, 100, &b));
  ck_assert_uint_eq(b.len, 100);
  tq_buf_deinit(&b);
}
END_TEST

START_TEST(file_read_of_a_proc_file_reads_past_its_zero_size) {
  struct stat st;
  TQ_TEST_REQUIRE(stat("/proc/self/status", &st) == 0, "procfs (/proc/self/status)",
                  "mount proc on /proc");
  ck_assert_int_eq(st.st_size, 0);
  tq_buf_t b;
  TH_ASSERT_OK(tq_file_read("/proc/self/status", 0, &b));
  ck_assert_uint_gt(b.len, 0);
  ck_assert_int_eq(strncmp(b.data, "Name:", 5), 0);
  ck_assert_uint_eq(strlen(b.data), b.len);
  tq_buf_deinit(&b);
}
END_TEST

START_TEST(file_read_under_oom_returns_out_of_memory) {
  char path[TH_PATH_MAX];
  th_write_file(th_path(path, "a.txt"), "abc", 3);
  tq_buf_t b;
  tq_alloc_fail_after(0);
  tq_status_t s = tq_file_read(path, 0, &b);
  tq_alloc_fail_after(-1);
  ck_assert_int_eq(tq_status_code(s), TQ_OUT_OF_MEMORY);
  tq_status_free(s);
  tq_buf_deinit(&b);
}
END_TEST

static void th_assert_file_is(const char *path, const char *want) {
  tq_buf_t b;
  TH_ASSERT_OK(tq_file_read(path, 0, &b));
  ck_assert_str_eq(b.data, want);
  ck_assert_uint_eq(b.len, strlen(want));
  tq_buf_deinit(&b);
}

START_TEST(file_write_atomic_creates_the_file_and_leaves_no_temporary) {
  char path[TH_PATH_MAX];
  TH_ASSERT_OK(tq_file_write_atomic(th_path(path, "out.csv"), "a,b\n1,2\n", 8));
  th_assert_file_is(path, "a,b\n1,2\n");
  ck_assert_int_eq(th_count_entries(th_tmpdir()), 1);
}
END_TEST

START_TEST(file_write_atomic_replaces_existing_content) {
  char path[TH_PATH_MAX];
  th_write_file(th_path(path, "cache.json"), "old and much longer content", 27);
  TH_ASSERT_OK(tq_file_write_atomic(path, "new", 3));
  th_assert_file_is(path, "new");
  TH_ASSERT_OK(tq_file_write_atomic(path, NULL, 0));
  th_assert_file_is(path, "");
  ck_assert_int_eq(th_count_entries(th_tmpdir()), 1);
}
END_TEST

START_TEST(file_write_atomic_into_a_missing_folder_fails_and_creates_nothing) {
  char path[TH_PATH_MAX];
  tq_status_t s = tq_file_write_atomic(th_path(path, "nodir/out.txt"), "x", 1);
  ck_assert_int_eq(tq_status_code(s), TQ_NOT_FOUND);
  ck_assert_ptr_nonnull(strstr(tq_status_message(s), path));
  tq_status_free(s);
  ck_assert_int_eq(th_count_entries(th_tmpdir()), 0);
}
END_TEST

START_TEST(file_write_atomic_over_a_directory_fails_and_removes_the_temporary) {
  char path[TH_PATH_MAX];
  ck_assert_int_eq(mkdir(th_path(path, "sub"), 0700), 0);
  tq_status_t s = tq_file_write_atomic(path, "x", 1);
  ck_assert_ptr_nonnull(s);
  ck_assert_int_eq(tq_status_code(s), TQ_IO);
  ck_assert_ptr_nonnull(strstr(tq_status_message(s), path));
  tq_status_free(s);
  ck_assert_int_eq(th_count_entries(th_tmpdir()), 1);
  ck_assert_int_eq(th_count_entries(path), 0);
}
END_TEST

START_TEST(file_write_atomic_of_a_folder_name_is_invalid_argument) {
  char path[TH_PATH_MAX];
  tq_status_t s = tq_file_write_atomic(th_path(path, "dir/"), "x", 1);
  ck_assert_int_eq(tq_status_code(s), TQ_INVALID_ARGUMENT);
  tq_status_free(s);
  ck_assert_int_eq(th_count_entries(th_tmpdir()), 0);
}
END_TEST

START_TEST(file_write_atomic_gives_new_files_the_umask_mode) {
  char path[TH_PATH_MAX];
  mode_t old = umask(027);
  tq_status_t s = tq_file_write_atomic(th_path(path, "new.txt"), "x", 1);
  umask(old);
  TH_ASSERT_OK(s);
  struct stat st;
  ck_assert_int_eq(stat(path, &st), 0);
  ck_assert_uint_eq(st.st_mode & 07777, 0640);
}
END_TEST

START_TEST(file_write_atomic_keeps_the_mode_of_the_replaced_file) {
  char path[TH_PATH_MAX];
  th_write_file(th_path(path, "secret"), "old", 3);
  ck_assert_int_eq(chmod(path, 0600), 0);
  TH_ASSERT_OK(tq_file_write_atomic(path, "new", 3));
  struct stat st;
  ck_assert_int_eq(stat(path, &st), 0);
  ck_assert_uint_eq(st.st_mode & 07777, 0600);
  th_assert_file_is(path, "new");
}
END_TEST

START_TEST(file_write_atomic_under_oom_returns_out_of_memory_and_writes_nothing) {
  char path[TH_PATH_MAX];
  tq_alloc_fail_after(0);
  tq_status_t s = tq_file_write_atomic(th_path(path, "x"), "x", 1);
  tq_alloc_fail_after(-1);
  ck_assert_int_eq(tq_status_code(s), TQ_OUT_OF_MEMORY);
  tq_status_free(s);
  ck_assert_int_eq(th_count_entries(th_tmpdir()), 0);
}
END_TEST

static void th_assert_is_dir(const char *path) {
  struct stat st;
  ck_assert_msg(stat(path, &st) == 0 && S_ISDIR(st.st_mode), "%s is not a folder", path);
}

START_TEST(file_mkdirs_creates_nested_folders) {
  char path[TH_PATH_MAX];
  TH_ASSERT_OK(tq_file_mkdirs(th_path(path, "a/b//c/d")));
  th_assert_is_dir(th_path(path, "a"));
  th_assert_is_dir(th_path(path, "a/b"));
  th_assert_is_dir(th_path(path, "a/b/c"));
  th_assert_is_dir(th_path(path, "a/b/c/d"));
  ck_assert_int_eq(th_count_entries(th_path(path, "a/b/c/d")), 0);
}
END_TEST

START_TEST(file_mkdirs_accepts_existing_folders_and_trailing_slashes) {
  char path[TH_PATH_MAX];
  TH_ASSERT_OK(tq_file_mkdirs(th_path(path, "x/y/")));
  TH_ASSERT_OK(tq_file_mkdirs(path));
  TH_ASSERT_OK(tq_file_mkdirs(th_path(path, "x")));
  TH_ASSERT_OK(tq_file_mkdirs(th_tmpdir()));
  TH_ASSERT_OK(tq_file_mkdirs("/"));
  th_assert_is_dir(th_path(path, "x/y"));
}
END_TEST

START_TEST(file_mkdirs_with_a_file_in_the_way_fails_naming_it) {
  char file[TH_PATH_MAX], path[TH_PATH_MAX], want[TH_PATH_MAX + 40];
  th_write_file(th_path(file, "f"), "x", 1);
  snprintf(want, sizeof(want), "%s: exists and is not a folder", file);
  TH_ASSERT_STATUS(tq_file_mkdirs(th_path(path, "f/sub/deeper")), TQ_INVALID_ARGUMENT, want);
  TH_ASSERT_STATUS(tq_file_mkdirs(file), TQ_INVALID_ARGUMENT, want);
}
END_TEST

START_TEST(file_mkdirs_of_an_empty_path_is_invalid_argument) {
  tq_status_t s = tq_file_mkdirs("");
  ck_assert_int_eq(tq_status_code(s), TQ_INVALID_ARGUMENT);
  tq_status_free(s);
}
END_TEST

/* ---- tq_dir_list ---------------------------------------------------------------------------- */

START_TEST(dir_list_gives_the_matching_names_sorted_with_strcmp) {
  /* Written out of order; 20 matches so that the array grows past its first size. */
  char path[TH_PATH_MAX], name[32];
  for (int i = 19; i >= 0; i--) {
    snprintf(name, sizeof(name), "m%d.mlir", i);
    th_write_file(th_path(path, name), "", 0);
  }
  th_write_file(th_path(path, "B.mlir"), "", 0);
  th_write_file(th_path(path, ".mlir"), "", 0);      /* no longer than the suffix */
  th_write_file(th_path(path, "a.mlir.bak"), "", 0); /* does not end in it */
  th_write_file(th_path(path, "notes.txt"), "", 0);
  ck_assert_int_eq(mkdir(th_path(path, "sub.mlir"), 0777), 0); /* any type of entry */
  char **names = NULL;
  size_t n = 99;
  TH_ASSERT_OK(tq_dir_list(th_tmpdir(), ".mlir", &names, &n));
  ck_assert_uint_eq(n, 22);
  ck_assert_str_eq(names[0], "B.mlir"); /* strcmp: upper case first, "m10" before "m2" */
  ck_assert_str_eq(names[1], "m0.mlir");
  ck_assert_str_eq(names[2], "m1.mlir");
  ck_assert_str_eq(names[3], "m10.mlir");
  ck_assert_str_eq(names[12], "m19.mlir");
  ck_assert_str_eq(names[13], "m2.mlir");
  ck_assert_str_eq(names[20], "m9.mlir");
  ck_assert_str_eq(names[21], "sub.mlir");
  for (size_t i = 1; i < n; i++) ck_assert_int_lt(strcmp(names[i - 1], names[i]), 0);
  tq_dir_list_free(names, n);
}
END_TEST

START_TEST(dir_list_without_a_suffix_gives_every_entry_but_dot_and_dot_dot) {
  char path[TH_PATH_MAX];
  th_write_file(th_path(path, "b"), "", 0);
  th_write_file(th_path(path, ".hidden"), "", 0);
  th_write_file(th_path(path, "a"), "", 0);
  const char *suffixes[] = {NULL, ""};
  for (size_t k = 0; k < 2; k++) {
    char **names = NULL;
    size_t n = 0;
    TH_ASSERT_OK(tq_dir_list(th_tmpdir(), suffixes[k], &names, &n));
    ck_assert_uint_eq(n, 3);
    ck_assert_str_eq(names[0], ".hidden");
    ck_assert_str_eq(names[1], "a");
    ck_assert_str_eq(names[2], "b");
    tq_dir_list_free(names, n);
  }
}
END_TEST

START_TEST(dir_list_of_an_empty_folder_gives_no_names) {
  char **names = NULL;
  size_t n = 99;
  TH_ASSERT_OK(tq_dir_list(th_tmpdir(), ".mlir", &names, &n));
  ck_assert_uint_eq(n, 0);
  tq_dir_list_free(names, n);
  tq_dir_list_free(NULL, 0);
}
END_TEST

START_TEST(dir_list_of_a_missing_folder_is_not_found_naming_it) {
  char path[TH_PATH_MAX], want[TH_PATH_MAX + 64];
  th_path(path, "missing");
  snprintf(want, sizeof(want), "%s: cannot list folder: No such file or directory", path);
  char **names = (char **)1;
  size_t n = 99;
  TH_ASSERT_STATUS(tq_dir_list(path, ".mlir", &names, &n), TQ_NOT_FOUND, want);
  ck_assert_ptr_null(names);
  ck_assert_uint_eq(n, 0);
}
END_TEST

START_TEST(dir_list_of_a_file_is_not_found_naming_it) {
  char path[TH_PATH_MAX], want[TH_PATH_MAX + 64];
  th_write_file(th_path(path, "plain"), "x", 1);
  snprintf(want, sizeof(want), "%s: cannot list folder: Not a directory", path);
  char **names = NULL;
  size_t n = 0;
  TH_ASSERT_STATUS(tq_dir_list(path, NULL, &names, &n), TQ_NOT_FOUND, want);
  ck_assert_ptr_null(names);
}
END_TEST

START_TEST(dir_list_under_oom_returns_out_of_memory_and_leaks_nothing) {
  char path[TH_PATH_MAX];
  for (int i = 0; i < 40; i++) {
    char name[16];
    snprintf(name, sizeof(name), "f%02d", i);
    th_write_file(th_path(path, name), "", 0);
  }
  /* Every allocation in turn fails: the array, a growth, a name; nothing leaks (valgrind). The
   * message cannot be checked: with allocation still failing, the status is the shared static
   * out-of-memory one. */
  int failed = 0;
  for (long k = 0; k < 200; k++) {
    char **names = (char **)1;
    size_t n = 99;
    tq_alloc_fail_after(k);
    tq_status_t s = tq_dir_list(th_tmpdir(), NULL, &names, &n);
    tq_alloc_fail_after(-1);
    if (!s) {
      ck_assert_uint_eq(n, 40);
      tq_dir_list_free(names, n);
      break;
    }
    failed++;
    ck_assert_ptr_null(names);
    ck_assert_uint_eq(n, 0);
    ck_assert_int_eq(tq_status_code(s), TQ_OUT_OF_MEMORY);
    tq_status_free(s);
  }
  ck_assert_int_ge(failed, 40 + 1); /* at least each name and the array */
}
END_TEST

Suite *file_suite(void) {
  Suite *s = suite_create("file");
  TCase *tc = tcase_create("read");
  tcase_add_checked_fixture(tc, th_tmpdir_setup, th_tmpdir_teardown);
  tcase_add_checked_fixture(tc, NULL, th_alloc_reset);
  tcase_add_test(tc, file_read_returns_the_whole_content);
  tcase_add_test(tc, file_read_of_a_file_larger_than_the_chunk_is_exact);
  tcase_add_test(tc, file_read_of_an_empty_file_gives_an_empty_string);
  tcase_add_test(tc, file_read_of_a_missing_file_is_not_found_naming_the_path);
  tcase_add_test(tc, file_read_of_a_directory_is_invalid_argument);
  tcase_add_test(tc, file_read_of_a_fifo_is_rejected_without_blocking);
  tcase_add_test(tc, file_read_over_the_limit_is_limit_naming_path_and_limit);
  tcase_add_test(tc, file_read_of_a_proc_file_reads_past_its_zero_size);
  tcase_add_test(tc, file_read_under_oom_returns_out_of_memory);
  suite_add_tcase(s, tc);

  tc = tcase_create("write_atomic");
  tcase_add_checked_fixture(tc, th_tmpdir_setup, th_tmpdir_teardown);
  tcase_add_checked_fixture(tc, NULL, th_alloc_reset);
  tcase_add_test(tc, file_write_atomic_creates_the_file_and_leaves_no_temporary);
  tcase_add_test(tc, file_write_atomic_replaces_existing_content);
  tcase_add_test(tc, file_write_atomic_into_a_missing_folder_fails_and_creates_nothing);
  tcase_add_test(tc, file_write_atomic_over_a_directory_fails_and_removes_the_temporary);
  tcase_add_test(tc, file_write_atomic_of_a_folder_name_is_invalid_argument);
  tcase_add_test(tc, file_write_atomic_gives_new_files_the_umask_mode);
  tcase_add_test(tc, file_write_atomic_keeps_the_mode_of_the_replaced_file);
  tcase_add_test(tc, file_write_atomic_under_oom_returns_out_of_memory_and_writes_nothing);
  suite_add_tcase(s, tc);

  tc = tcase_create("mkdirs");
  tcase_add_checked_fixture(tc, th_tmpdir_setup, th_tmpdir_teardown);
  tcase_add_test(tc, file_mkdirs_creates_nested_folders);
  tcase_add_test(tc, file_mkdirs_accepts_existing_folders_and_trailing_slashes);
  tcase_add_test(tc, file_mkdirs_with_a_file_in_the_way_fails_naming_it);
  tcase_add_test(tc, file_mkdirs_of_an_empty_path_is_invalid_argument);
  suite_add_tcase(s, tc);

  tc = tcase_create("dir_list");
  tcase_add_checked_fixture(tc, th_tmpdir_setup, th_tmpdir_teardown);
  tcase_add_checked_fixture(tc, NULL, th_alloc_reset);
  tcase_add_test(tc, dir_list_gives_the_matching_names_sorted_with_strcmp);
  tcase_add_test(tc, dir_list_without_a_suffix_gives_every_entry_but_dot_and_dot_dot);
  tcase_add_test(tc, dir_list_of_an_empty_folder_gives_no_names);
  tcase_add_test(tc, dir_list_of_a_missing_folder_is_not_found_naming_it);
  tcase_add_test(tc, dir_list_of_a_file_is_not_found_naming_it);
  tcase_add_test(tc, dir_list_under_oom_returns_out_of_memory_and_leaks_nothing);
  suite_add_tcase(s, tc);
  return s;
}
