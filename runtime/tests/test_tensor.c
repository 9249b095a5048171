/* Tensors: sizes, and printing like iree-run-module. */
#include <string.h>

#include "helpers.h"
#include "suites.h"

typedef struct format_case_s {
  const char *input;
  size_t max;
  const char *expected;
} format_case_t;

static const format_case_t format_cases[] = {
    {"1x4xi8=1,2,3,4", 1024, "1x4xi8=[1 2 3 4]"},
    {"4xi8=1,-2,3,4", 1024, "4xi8=1 -2 3 4"},
    {"2x2xi32=1,2,3,4", 1024, "2x2xi32=[1 2][3 4]"},
    {"2x2x2xi16=1,2,3,4,5,6,7,8", 1024, "2x2x2xi16=[[1 2][3 4]][[5 6][7 8]]"},
    {"i32=5", 1024, "i32=5"},
    {"3xui8=0,255,7", 1024, "3xui8=0 255 7"},
    {"2xi1=1,0", 1024, "2xi1=1 0"},
    {"3xf32=1.5,-2,0.1", 1024, "3xf32=1.5 -2 0.1"},
    {"2xbf16=1,-0.5", 1024, "2xbf16=1 -0.5"},
    {"1xi64=-9223372036854775808", 1024, "1xi64=-9223372036854775808"},
    {"6xi8=1", 4, "6xi8=1 1 1 1..."},
    {"3x3xi8=1", 4, "3x3xi8=[1 1 1][1...][...]"},
    {"0x3xi8=", 4, "0x3xi8="},
};

START_TEST(tensor_formats_like_iree) {
  const format_case_t *c = &format_cases[_i];
  tqr_tensor_t *t;
  TQ_CK(tqr_input_parse(c->input, NULL, &t));
  tq_buf_t b;
  tq_buf_init(&b, 0);
  TQ_CK(tqr_tensor_format(t, c->max, &b));
  ck_assert_str_eq(b.data, c->expected);
  tq_buf_deinit(&b);
  tqr_tensor_destroy(t);
}
END_TEST

START_TEST(tensor_sizes_are_checked) {
  size_t size;
  TQ_CK(tqr_tensor_byte_size(TORQ__ELEMENT_TYPE__I48, 2, (const int64_t[]){2, 3}, &size));
  ck_assert_uint_eq(size, 48);
  ck_status(tqr_tensor_byte_size(TORQ__ELEMENT_TYPE__I8, 2, (const int64_t[]){2, -1}, &size),
            TQ_INVALID_ARGUMENT, "dim 1 is negative");
  ck_status(tqr_tensor_byte_size(TORQ__ELEMENT_TYPE__I32, 3,
                                 (const int64_t[]){INT64_MAX, INT64_MAX, 2}, &size),
            TQ_LIMIT, "overflows");
  ck_status(tqr_tensor_byte_size((Torq__ElementType)99, 0, NULL, &size), TQ_INVALID_ARGUMENT,
            "unknown element type 99");
  ck_assert_str_eq(tqf_element_name(TORQ__ELEMENT_TYPE__U8), "ui8");
  Torq__ElementType t;
  ck_assert_int_eq(tqr_element_parse(tq_sv_cstr("bf16"), &t), 1);
  ck_assert_int_eq(t, TORQ__ELEMENT_TYPE__BF16);
  ck_assert_int_eq(tqr_element_parse(tq_sv_cstr("index"), &t), 0);
}
END_TEST

Suite *tensor_suite(void) {
  Suite *s = suite_create("tensor");
  TCase *tc = tcase_create("format");
  tcase_add_loop_test(tc, tensor_formats_like_iree, 0,
                      sizeof(format_cases) / sizeof(format_cases[0]));
  tcase_add_test(tc, tensor_sizes_are_checked);
  suite_add_tcase(s, tc);
  return s;
}
