/* Tests for sha256.h against the FIPS 180-2 example digests. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "torq/base/alloc.h"
#include "torq/base/sha256.h"

static const struct {
  const char *message;
  const char *hex;
} th_vectors[] = {
    {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
    {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
    {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
     "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
};

#define TH_MILLION_A_HEX "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"

static void th_assert_digest_hex(const uint8_t digest[TQ_SHA256_SIZE], const char *want) {
  char hex[TQ_SHA256_HEX_SIZE];
  tq_sha256_hex(digest, hex);
  ck_assert_str_eq(hex, want);
}

START_TEST(sha256_one_shot_matches_the_fips_vectors) {
  uint8_t d[TQ_SHA256_SIZE];
  TH_ASSERT_OK(tq_sha256(th_vectors[_i].message, strlen(th_vectors[_i].message), d));
  th_assert_digest_hex(d, th_vectors[_i].hex);
}
END_TEST

START_TEST(sha256_streaming_matches_the_fips_vectors_at_every_split) {
  const char *m = th_vectors[_i].message;
  size_t len = strlen(m);
  for (size_t split = 0; split <= len; split++) {
    tq_sha256_t h;
    uint8_t d[TQ_SHA256_SIZE];
    TH_ASSERT_OK(tq_sha256_init(&h));
    TH_ASSERT_OK(tq_sha256_update(&h, m, split));
    TH_ASSERT_OK(tq_sha256_update(&h, m + split, len - split));
    TH_ASSERT_OK(tq_sha256_final(&h, d));
    ck_assert_ptr_null(h.ctx);
    th_assert_digest_hex(d, th_vectors[_i].hex);
  }
}
END_TEST

START_TEST(sha256_of_a_million_a_matches_both_ways) {
  size_t n = 1000000;
  char *a = malloc(n);
  memset(a, 'a', n);
  uint8_t one[TQ_SHA256_SIZE], streamed[TQ_SHA256_SIZE];
  TH_ASSERT_OK(tq_sha256(a, n, one));
  th_assert_digest_hex(one, TH_MILLION_A_HEX);
  tq_sha256_t h;
  TH_ASSERT_OK(tq_sha256_init(&h));
  for (size_t k = 0; k < n; k += 1000) TH_ASSERT_OK(tq_sha256_update(&h, a + k, 1000));
  TH_ASSERT_OK(tq_sha256_final(&h, streamed));
  th_assert_digest_hex(streamed, TH_MILLION_A_HEX);
  free(a);
}
END_TEST

START_TEST(sha256_streaming_in_uneven_pieces_equals_one_shot) {
  size_t n = 10007;
  unsigned char *data = malloc(n);
  for (size_t k = 0; k < n; k++) data[k] = (unsigned char)(k * 7 + 3);
  uint8_t want[TQ_SHA256_SIZE], got[TQ_SHA256_SIZE];
  TH_ASSERT_OK(tq_sha256(data, n, want));
  tq_sha256_t h;
  TH_ASSERT_OK(tq_sha256_init(&h));
  size_t piece = 1;
  for (size_t k = 0; k < n; k += piece, piece = piece * 3 % 97 + 1)
    TH_ASSERT_OK(tq_sha256_update(&h, data + k, piece < n - k ? piece : n - k));
  TH_ASSERT_OK(tq_sha256_final(&h, got));
  ck_assert_mem_eq(got, want, TQ_SHA256_SIZE);
  free(data);
}
END_TEST

START_TEST(sha256_file_digest_equals_buffer_digest) {
  /* Not a multiple of the 64 KiB read chunk, so the last read is short. */
  size_t n = 3 * 64 * 1024 + 123;
  unsigned char *data = malloc(n);
  for (size_t k = 0; k < n; k++) data[k] = (unsigned char)(k ^ (k >> 9));
  char path[TH_PATH_MAX];
  th_write_file(th_path(path, "blob.bin"), data, n);
  uint8_t want[TQ_SHA256_SIZE], got[TQ_SHA256_SIZE];
  TH_ASSERT_OK(tq_sha256(data, n, want));
  TH_ASSERT_OK(tq_sha256_file(path, got));
  ck_assert_mem_eq(got, want, TQ_SHA256_SIZE);
  free(data);

  th_write_file(th_path(path, "empty"), "", 0);
  TH_ASSERT_OK(tq_sha256_file(path, got));
  th_assert_digest_hex(got, th_vectors[0].hex);
}
END_TEST

START_TEST(sha256_file_of_a_missing_file_or_folder_fails) {
  char path[TH_PATH_MAX], want[TH_PATH_MAX + 32];
  uint8_t d[TQ_SHA256_SIZE];
  th_path(path, "missing");
  snprintf(want, sizeof(want), "%s: no such file", path);
  TH_ASSERT_STATUS(tq_sha256_file(path, d), TQ_NOT_FOUND, want);
  snprintf(want, sizeof(want), "%s: is a directory", th_tmpdir());
  TH_ASSERT_STATUS(tq_sha256_file(th_tmpdir(), d), TQ_INVALID_ARGUMENT, want);
}
END_TEST

START_TEST(sha256_file_under_oom_returns_out_of_memory) {
  char path[TH_PATH_MAX];
  th_write_file(th_path(path, "x"), "abc", 3);
  uint8_t d[TQ_SHA256_SIZE];
  tq_alloc_fail_after(0);
  tq_status_t s = tq_sha256_file(path, d);
  tq_alloc_fail_after(-1);
  ck_assert_int_eq(tq_status_code(s), TQ_OUT_OF_MEMORY);
  tq_status_free(s);
}
END_TEST

START_TEST(sha256_hasher_not_started_fails_with_failed_precondition) {
  tq_sha256_t h = {NULL};
  uint8_t d[TQ_SHA256_SIZE];
  tq_status_t s = tq_sha256_update(&h, "x", 1);
  ck_assert_int_eq(tq_status_code(s), TQ_FAILED_PRECONDITION);
  tq_status_free(s);
  TH_ASSERT_OK(tq_sha256_init(&h));
  TH_ASSERT_OK(tq_sha256_final(&h, d));
  s = tq_sha256_final(&h, d);
  ck_assert_int_eq(tq_status_code(s), TQ_FAILED_PRECONDITION);
  tq_status_free(s);
  tq_sha256_deinit(&h);
  tq_sha256_deinit(&h);
}
END_TEST

START_TEST(sha256_deinit_releases_an_unfinished_hasher) {
  tq_sha256_t h;
  TH_ASSERT_OK(tq_sha256_init(&h));
  TH_ASSERT_OK(tq_sha256_update(&h, "abc", 3));
  ck_assert_ptr_nonnull(h.ctx);
  tq_sha256_deinit(&h);
  ck_assert_ptr_null(h.ctx);
}
END_TEST

START_TEST(sha256_hex_is_lower_case_and_terminated) {
  uint8_t d[TQ_SHA256_SIZE];
  for (int k = 0; k < TQ_SHA256_SIZE; k++) d[k] = (uint8_t)(k * 8 + 0x0a);
  char hex[TQ_SHA256_HEX_SIZE];
  memset(hex, '#', sizeof(hex));
  tq_sha256_hex(d, hex);
  ck_assert_uint_eq(strlen(hex), 64);
  ck_assert_int_eq(strncmp(hex, "0a121a222a323a424a525a626a727a82", 32), 0);
  ck_assert_str_eq(hex + 56, "eaf2fa02");
}
END_TEST

Suite *sha256_suite(void) {
  Suite *s = suite_create("sha256");
  TCase *tc = tcase_create("digest");
  tcase_add_loop_test(tc, sha256_one_shot_matches_the_fips_vectors, 0,
                      (int)(sizeof(th_vectors) / sizeof(th_vectors[0])));
  tcase_add_loop_test(tc, sha256_streaming_matches_the_fips_vectors_at_every_split, 0,
                      (int)(sizeof(th_vectors) / sizeof(th_vectors[0])));
  tcase_add_test(tc, sha256_of_a_million_a_matches_both_ways);
  tcase_add_test(tc, sha256_streaming_in_uneven_pieces_equals_one_shot);
  tcase_add_test(tc, sha256_hasher_not_started_fails_with_failed_precondition);
  tcase_add_test(tc, sha256_deinit_releases_an_unfinished_hasher);
  tcase_add_test(tc, sha256_hex_is_lower_case_and_terminated);
  suite_add_tcase(s, tc);

  tc = tcase_create("file");
  tcase_add_checked_fixture(tc, th_tmpdir_setup, th_tmpdir_teardown);
  tcase_add_checked_fixture(tc, NULL, th_alloc_reset);
  tcase_add_test(tc, sha256_file_digest_equals_buffer_digest);
  tcase_add_test(tc, sha256_file_of_a_missing_file_or_folder_fails);
  tcase_add_test(tc, sha256_file_under_oom_returns_out_of_memory);
  suite_add_tcase(s, tc);
  return s;
}
