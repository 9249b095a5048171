/* .npy read/write: round trips for every type, NumPy's own bytes, malformed headers. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "helpers.h"
#include "suites.h"

static const char *const roundtrip_inputs[] = {
    "1x56x56x24xi8=@random", "2x3xi1=@random", "5xi16=@random",    "2x2xi32=@random",
    "3xi64=@random",         "4xui8=@random",  "2x2xbf16=@random", "7xf16=@random",
    "1x3x2xf32=@random",     "i32=7",          "0x2xf32=",
};

START_TEST(npy_round_trips_every_type) {
  tqr_tensor_t *t, *back;
  TQ_CK(tqr_input_parse(roundtrip_inputs[_i], NULL, &t));
  tq_buf_t b;
  tq_buf_init(&b, 0);
  TQ_CK(tqr_npy_encode(t, &b));
  /* Data starts at a multiple of 64, after a header ending in '\n'. */
  size_t hlen = (size_t)(uint8_t)b.data[8] | (size_t)(uint8_t)b.data[9] << 8;
  ck_assert_uint_eq((10 + hlen) % 64, 0);
  ck_assert_int_eq(b.data[10 + hlen - 1], '\n');
  ck_assert_uint_eq(b.len, 10 + hlen + t->size);
  TQ_CK(tqr_npy_decode("rt.npy", b.data, b.len, &back));
  ck_assert_int_eq(back->type, t->type);
  ck_assert_uint_eq(back->rank, t->rank);
  for (size_t i = 0; i < t->rank; i++) ck_assert_int_eq(back->dims[i], t->dims[i]);
  ck_assert_uint_eq(back->size, t->size);
  if (t->size) ck_assert_mem_eq(back->data, t->data, t->size);
  tq_buf_deinit(&b);
  tqr_tensor_destroy(t);
  tqr_tensor_destroy(back);
}
END_TEST

START_TEST(npy_header_text_matches_numpy) {
  tqr_tensor_t *t;
  TQ_CK(tqr_input_parse("1x56x56x24xi8=0", NULL, &t));
  tq_buf_t b;
  tq_buf_init(&b, 0);
  TQ_CK(tqr_npy_encode(t, &b));
  const char *want = "{'descr': '|i1', 'fortran_order': False, 'shape': (1, 56, 56, 24), }";
  ck_assert_mem_eq(b.data + 10, want, strlen(want));
  ck_assert_mem_eq(b.data, "\x93NUMPY\x01\x00\x76\x00", 10);
  tq_buf_deinit(&b);
  tqr_tensor_destroy(t);
  const char *descrs[][2] = {{"4xi1=1", "'|b1'"},    {"4xi16=1", "'<i2'"}, {"4xi32=1", "'<i4'"},
                             {"4xi64=1", "'<i8'"},   {"4xui8=1", "'|u1'"}, {"4xbf16=1", "'<u2'"},
                             {"4xf16=1", "'<f2'"},   {"4xf32=1", "'<f4'"}, {"4xi8=1", "(4,)"},
                             {"i8=1", "'shape': ()"}};
  for (size_t i = 0; i < sizeof(descrs) / sizeof(descrs[0]); i++) {
    TQ_CK(tqr_input_parse(descrs[i][0], NULL, &t));
    tq_buf_init(&b, 0);
    TQ_CK(tqr_npy_encode(t, &b));
    ck_assert_msg(strstr(b.data + 10, descrs[i][1]) != NULL, "%s: %s", descrs[i][0], b.data + 10);
    tq_buf_deinit(&b);
    tqr_tensor_destroy(t);
  }
}
END_TEST

/* Bytes as numpy 1.x writes them (np.save of np.arange(6, dtype='<i2').reshape(2, 3)), and a
 * version 2.0 header with the keys in another order. */
START_TEST(npy_reads_numpy_files) {
  char v1[128];
  const char *h1 = "{'descr': '<i2', 'fortran_order': False, 'shape': (2, 3), }";
  size_t n = strlen(h1);
  memcpy(v1, "\x93NUMPY\x01\x00\x76\x00", 10);
  memcpy(v1 + 10, h1, n);
  memset(v1 + 10 + n, ' ', 118 - n - 1);
  v1[127] = '\n';
  char file[128 + 12];
  memcpy(file, v1, 128);
  const int16_t data[6] = {0, 1, 2, 3, 4, 5};
  memcpy(file + 128, data, 12);
  tqr_tensor_t *t;
  TQ_CK(tqr_npy_decode("np.npy", file, sizeof(file), &t));
  ck_assert_int_eq(t->type, TORQ__ELEMENT_TYPE__I16);
  ck_assert_int_eq(t->dims[0], 2);
  ck_assert_int_eq(t->dims[1], 3);
  ck_assert_mem_eq(t->data, data, 12);
  tqr_tensor_destroy(t);

  const char *h2 = "{\"shape\": (3L,), \"fortran_order\": False, \"descr\": \"<f4\"}\n";
  size_t n2 = strlen(h2);
  char v2[256];
  memcpy(v2, "\x93NUMPY\x02\x00", 8);
  v2[8] = (char)n2;
  v2[9] = v2[10] = v2[11] = 0;
  memcpy(v2 + 12, h2, n2);
  const float f[3] = {1.0f, -2.0f, 0.5f};
  memcpy(v2 + 12 + n2, f, 12);
  TQ_CK(tqr_npy_decode("v2.npy", v2, 12 + n2 + 12, &t));
  ck_assert_int_eq(t->type, TORQ__ELEMENT_TYPE__F32);
  ck_assert_uint_eq(t->rank, 1);
  ck_assert_mem_eq(t->data, f, 12);
  tqr_tensor_destroy(t);
}
END_TEST

typedef struct npy_bad_s {
  const char *header; /* dict text; NULL: `raw` is the whole file */
  const char *raw;
  size_t raw_len;
  size_t data_len;
  const char *needle;
} npy_bad_t;

static const npy_bad_t npy_bad[] = {
    {NULL, "\x93NUMPX\x01\x00\x00\x00", 10, 0, "offset 0: not an npy file"},
    {NULL, "\x93NUMPY\x01", 7, 0, "offset 0: not an npy file"},
    {NULL, "\x93NUMPY\x04\x00\x00\x00", 10, 0, "offset 6: npy format version 4.0 is not supported"},
    {NULL, "\x93NUMPY\x01\x00\xff\x00{}", 12, 0, "offset 8: header length 255 runs past the end"},
    {"['descr']", NULL, 0, 0, "offset 10: expected '{' to open the header dict, found '['"},
    {"{'descr': '<i4', 'fortran_order': True, 'shape': (1,), }", NULL, 0, 4,
     "fortran_order True is not supported"},
    {"{'descr': '>i4', 'fortran_order': False, 'shape': (1,), }", NULL, 0, 4,
     "offset 20: big-endian data ('>i4') is not supported"},
    {"{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", NULL, 0, 8,
     "descr '<c8' is not supported"},
    {"{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }", NULL, 0, 4,
     "4 bytes of data, but the shape and descr need 8"},
    {"{'descr': '<i4', 'fortran_order': False, 'shape': (1,), }", NULL, 0, 8,
     "8 bytes of data, but the shape and descr need 4"},
    {"{'descr': '<i4', 'fortran_order': False, }", NULL, 0, 4, "the header has no 'shape'"},
    {"{'fortran_order': False, 'shape': (1,), }", NULL, 0, 4, "the header has no 'descr'"},
    {"{'descr': '<i4', 'shape': (1,), }", NULL, 0, 4, "the header has no 'fortran_order'"},
    {"{'descr': '<i4', 'descr': '<i4', }", NULL, 0, 4, "key 'descr' appears twice"},
    {"{'descr': '<i4', 'fortran_order': False, 'shape': (1, -2), }", NULL, 0, 4,
     "offset 64: expected a dim"},
    {"{'descr': '<i4', 'fortran_order': False, 'shape': (1 2), }", NULL, 0, 4,
     "expected ',' or ')' in the shape tuple"},
    {"{'descr': '<i4' 'fortran_order': False}", NULL, 0, 4, "expected ',' or '}' after a value"},
    {"{'descr': '<i4", NULL, 0, 0, "offset 20: unterminated string"},
    {"{'descr': '<i4', 'fortran_order': Maybe, 'shape': (1,), }", NULL, 0, 4,
     "fortran_order must be True or False"},
    {"{'descr': '<i4', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1), }", NULL, 0, 4,
     "more than 8 dims"},
    {"{'descr': '<i4', 'fortran_order': False, 'shape': (1,), } x", NULL, 0, 4,
     "unexpected text after the header dict"},
    {"{'descr': '<i4', 'fortran_order': False, 'shape': (99999999999999999999,), }", NULL, 0, 4,
     "dim is too large"},
    {"{'descr': '<i4', 'fortran_order': False, 'shape': (4611686018427387904, 4), }", NULL, 0, 4,
     "byte size overflows"},
    {"{'descr': '<i4', 'fortran_order': False, 'shape': (1,)", NULL, 0, 0,
     "offset 64: header ends where ',' or '}' was expected"},
};

START_TEST(npy_rejects_malformed_files_with_offsets) {
  const npy_bad_t *c = &npy_bad[_i];
  tq_buf_t b;
  tq_buf_init(&b, 0);
  if (c->header) {
    size_t n = strlen(c->header);
    uint8_t pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (uint8_t)(n & 0xff), (uint8_t)(n >> 8)};
    TQ_CK(tq_buf_append(&b, pre, 10));
    TQ_CK(tq_buf_append(&b, c->header, n));
    for (size_t i = 0; i < c->data_len; i++) TQ_CK(tq_buf_putc(&b, 0));
  } else {
    TQ_CK(tq_buf_append(&b, c->raw, c->raw_len));
  }
  tqr_tensor_t *t = (tqr_tensor_t *)1;
  ck_status(tqr_npy_decode("bad.npy", b.data, b.len, &t), TQ_INVALID_INPUT, c->needle);
  ck_assert_ptr_null(t);
  tq_buf_deinit(&b);
}
END_TEST

/* A descr with a NUL or another non-ASCII byte is named as such, at the byte's offset, instead of
 * being shown cut short at the NUL (which reads as another dtype). */
START_TEST(npy_names_a_nul_or_control_byte_in_the_descr) {
  static const struct {
    const char *descr; /* 4 bytes, quoted in the header */
    size_t at;         /* the bad byte's file offset */
    const char *needle;
  } cases[] = {
      {"<i4\0", 24, "descr holds a NUL byte (at its byte 3)"},
      {"<i\0"
       "4",
       23, "descr holds a NUL byte (at its byte 2)"},
      {"\0<i4", 21, "descr holds a NUL byte (at its byte 0)"},
      {"<i4\x01", 24, "descr holds the byte 0x01 (at its byte 3)"},
      {"<i4\xe9", 24, "descr holds the byte 0xe9"},
  };
  for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
    char header[80];
    int n = snprintf(header, sizeof(header),
                     "{'descr': 'XXXX', 'fortran_order': False, 'shape': (1,), }");
    memcpy(header + 11, cases[k].descr, 4);
    tq_buf_t b;
    tq_buf_init(&b, 0);
    uint8_t pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (uint8_t)n, 0};
    TQ_CK(tq_buf_append(&b, pre, 10));
    TQ_CK(tq_buf_append(&b, header, (size_t)n));
    for (int i = 0; i < 4; i++) TQ_CK(tq_buf_putc(&b, 0));
    char needle[128];
    snprintf(needle, sizeof(needle), "offset %zu: %s", cases[k].at, cases[k].needle);
    tqr_tensor_t *t = (tqr_tensor_t *)1;
    ck_status(tqr_npy_decode("bad.npy", b.data, b.len, &t), TQ_INVALID_INPUT, needle);
    ck_assert_ptr_null(t);
    tq_buf_deinit(&b);
  }
}
END_TEST

START_TEST(npy_writes_i48_as_i8_and_names_missing_files) {
  tqr_tensor_t *t, *back;
  TQ_CK(tqr_tensor_create(TORQ__ELEMENT_TYPE__I48, 1, (const int64_t[]){2}, &t));
  const int64_t v[2] = {-(INT64_C(1) << 47), (INT64_C(1) << 47) - 1};
  memcpy(t->data, v, sizeof(v));
  tq_buf_t b;
  tq_buf_init(&b, 0);
  TQ_CK(tqr_npy_encode(t, &b));
  ck_assert_ptr_nonnull(strstr(b.data + 10, "'descr': '<i8'"));
  TQ_CK(tqr_npy_decode("i48.npy", b.data, b.len, &back));
  ck_assert_int_eq(back->type, TORQ__ELEMENT_TYPE__I64);
  ck_assert_mem_eq(back->data, v, sizeof(v));
  tq_buf_deinit(&b);
  tqr_tensor_destroy(t);
  tqr_tensor_destroy(back);
  ck_status(tqr_npy_read("/nonexistent/dir/a.npy", 0, &t), TQ_NOT_FOUND, "/nonexistent/dir/a.npy");
}
END_TEST

START_TEST(npy_write_is_read_back_from_disk) {
  char dir[PATH_MAX], path[PATH_MAX + 16];
  tmpdir_make(dir);
  snprintf(path, sizeof(path), "%s/x.npy", dir);
  tqr_tensor_t *t, *back;
  TQ_CK(tqr_input_parse("2x3xf32=@random", NULL, &t));
  TQ_CK(tqr_npy_write(path, t));
  TQ_CK(tqr_npy_read(path, 0, &back));
  ck_assert_mem_eq(back->data, t->data, t->size);
  tqr_tensor_destroy(t);
  tqr_tensor_destroy(back);
  tmpdir_remove(dir);
}
END_TEST

Suite *npy_suite(void) {
  Suite *s = suite_create("npy");
  TCase *tc = tcase_create("npy");
  tcase_add_loop_test(tc, npy_round_trips_every_type, 0,
                      sizeof(roundtrip_inputs) / sizeof(roundtrip_inputs[0]));
  tcase_add_test(tc, npy_header_text_matches_numpy);
  tcase_add_test(tc, npy_reads_numpy_files);
  tcase_add_loop_test(tc, npy_rejects_malformed_files_with_offsets, 0,
                      sizeof(npy_bad) / sizeof(npy_bad[0]));
  tcase_add_test(tc, npy_names_a_nul_or_control_byte_in_the_descr);
  tcase_add_test(tc, npy_writes_i48_as_i8_and_names_missing_files);
  tcase_add_test(tc, npy_write_is_read_back_from_disk);
  suite_add_tcase(s, tc);
  return s;
}
