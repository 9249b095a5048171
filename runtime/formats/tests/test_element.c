/* Tests for element.h: every type's facts, the name and NumPy lookups, integer access. */
#include <stdint.h>
#include <string.h>

#include "helpers.h"
#include "torq/formats/element.h"

static const struct {
  Torq__ElementType type;
  const char *name, *schema_name, *npy;
  unsigned size, bits, wrap_bits, is_float, is_unsigned, slice_int;
  int64_t min, max;
} th_types[] = {
    {TORQ__ELEMENT_TYPE__ELEMENT_TYPE_UNSPECIFIED, "?", "UNSPECIFIED", NULL, 0, 0, 0, 0, 0, 0, 0,
     0},
    {TORQ__ELEMENT_TYPE__I1, "i1", "I1", "|b1", 1, 1, 1, 0, 1, 0, 0, 1},
    {TORQ__ELEMENT_TYPE__I8, "i8", "I8", "|i1", 1, 8, 8, 0, 0, 1, -128, 127},
    {TORQ__ELEMENT_TYPE__I16, "i16", "I16", "<i2", 2, 16, 16, 0, 0, 1, -32768, 32767},
    {TORQ__ELEMENT_TYPE__I32, "i32", "I32", "<i4", 4, 32, 32, 0, 0, 1, INT32_MIN, INT32_MAX},
    {TORQ__ELEMENT_TYPE__I64, "i64", "I64", "<i8", 8, 64, 64, 0, 0, 1, INT64_MIN, INT64_MAX},
    {TORQ__ELEMENT_TYPE__U8, "ui8", "U8", "|u1", 1, 8, 8, 0, 1, 1, 0, 255},
    {TORQ__ELEMENT_TYPE__BF16, "bf16", "BF16", "<u2", 2, 16, 16, 1, 0, 0, 0, 0},
    {TORQ__ELEMENT_TYPE__F16, "f16", "F16", "<f2", 2, 16, 16, 1, 0, 0, 0, 0},
    {TORQ__ELEMENT_TYPE__F32, "f32", "F32", "<f4", 4, 32, 32, 1, 0, 0, 0, 0},
    {TORQ__ELEMENT_TYPE__INDEX, "index", "INDEX", "<i8", 8, 64, 64, 0, 0, 0, INT64_MIN, INT64_MAX},
    {TORQ__ELEMENT_TYPE__I48, "i48", "I48", "<i8", 8, 48, 64, 0, 0, 1, -(INT64_C(1) << 47),
     (INT64_C(1) << 47) - 1},
    {(Torq__ElementType)12, "?", "UNSPECIFIED", NULL, 0, 0, 0, 0, 0, 0, 0, 0},
    {(Torq__ElementType)-1, "?", "UNSPECIFIED", NULL, 0, 0, 0, 0, 0, 0, 0, 0},
};

START_TEST(element_table_holds_each_types_facts) {
  const tqf_element_info_t *e = tqf_element_info(th_types[_i].type);
  ck_assert_str_eq(e->name, th_types[_i].name);
  ck_assert_str_eq(e->schema_name, th_types[_i].schema_name);
  if (th_types[_i].npy)
    ck_assert_str_eq(e->npy_descr, th_types[_i].npy);
  else
    ck_assert_ptr_null(e->npy_descr);
  ck_assert_uint_eq(e->size, th_types[_i].size);
  ck_assert_uint_eq(e->bits, th_types[_i].bits);
  ck_assert_uint_eq(e->wrap_bits, th_types[_i].wrap_bits);
  ck_assert_uint_eq(e->is_float, th_types[_i].is_float);
  ck_assert_uint_eq(e->is_unsigned, th_types[_i].is_unsigned);
  ck_assert_uint_eq(e->slice_int, th_types[_i].slice_int);
  ck_assert_int_eq(e->min, th_types[_i].min);
  ck_assert_int_eq(e->max, th_types[_i].max);
  ck_assert_uint_eq(tqf_element_size(th_types[_i].type), th_types[_i].size);
  ck_assert_str_eq(tqf_element_name(th_types[_i].type), th_types[_i].name);
  ck_assert_int_eq(tqf_element_is_float(th_types[_i].type), (int)th_types[_i].is_float);
}
END_TEST

START_TEST(element_parse_reads_every_mlir_name_back) {
  Torq__ElementType t = TORQ__ELEMENT_TYPE__ELEMENT_TYPE_UNSPECIFIED;
  if (th_types[_i].size == 0) {
    ck_assert_int_eq(tqf_element_parse(tq_sv_cstr(th_types[_i].name), &t), 0);
    ck_assert_int_eq(t, TORQ__ELEMENT_TYPE__ELEMENT_TYPE_UNSPECIFIED);
    return;
  }
  ck_assert_int_eq(tqf_element_parse(tq_sv_cstr(th_types[_i].name), &t), 1);
  ck_assert_int_eq(t, th_types[_i].type);
}
END_TEST

START_TEST(element_parse_refuses_other_text) {
  static const char *const bad[] = {"", "i4", "ui16", "si8", "f64", "I8", "i8 ", "bf1", "index2"};
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    Torq__ElementType t = TORQ__ELEMENT_TYPE__F32;
    ck_assert_int_eq(tqf_element_parse(tq_sv_cstr(bad[i]), &t), 0);
    ck_assert_int_eq(t, TORQ__ELEMENT_TYPE__F32);
  }
  /* A view is compared by its length, not up to a NUL. */
  Torq__ElementType t = TORQ__ELEMENT_TYPE__ELEMENT_TYPE_UNSPECIFIED;
  ck_assert_int_eq(tqf_element_parse(tq_sv("i16x", 3), &t), 1);
  ck_assert_int_eq(t, TORQ__ELEMENT_TYPE__I16);
}
END_TEST

START_TEST(element_npy_codes_read_as_the_first_type_written_so) {
  static const struct {
    const char *code;
    Torq__ElementType type;
  } cases[] = {
      {"b1", TORQ__ELEMENT_TYPE__I1},
      {"i1", TORQ__ELEMENT_TYPE__I8},
      {"u1", TORQ__ELEMENT_TYPE__U8},
      {"i2", TORQ__ELEMENT_TYPE__I16},
      {"i4", TORQ__ELEMENT_TYPE__I32},
      {"i8", TORQ__ELEMENT_TYPE__I64},
      {"u2", TORQ__ELEMENT_TYPE__BF16},
      {"f2", TORQ__ELEMENT_TYPE__F16},
      {"f4", TORQ__ELEMENT_TYPE__F32},
      {"f8", TORQ__ELEMENT_TYPE__ELEMENT_TYPE_UNSPECIFIED},
      {"u4", TORQ__ELEMENT_TYPE__ELEMENT_TYPE_UNSPECIFIED},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
    ck_assert_int_eq(tqf_element_of_npy_code(cases[i].code), cases[i].type);
}
END_TEST

START_TEST(element_integers_load_extended_and_store_their_low_bits) {
  static const struct {
    Torq__ElementType type;
    int64_t stored, loaded;
  } cases[] = {
      {TORQ__ELEMENT_TYPE__I8, -1, -1},
      {TORQ__ELEMENT_TYPE__I8, 0x17f, 127},
      {TORQ__ELEMENT_TYPE__U8, -1, 255},
      {TORQ__ELEMENT_TYPE__I1, 1, 1},
      {TORQ__ELEMENT_TYPE__I16, 0x18000, -32768},
      {TORQ__ELEMENT_TYPE__I32, INT64_C(0x180000000), INT32_MIN},
      {TORQ__ELEMENT_TYPE__I48, INT64_C(1) << 50, INT64_C(1) << 50}, /* held as int64 */
      {TORQ__ELEMENT_TYPE__I64, INT64_MIN, INT64_MIN},
      {TORQ__ELEMENT_TYPE__INDEX, -5, -5},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    uint8_t buf[16];
    memset(buf, 0xa5, sizeof(buf));
    size_t size = tqf_element_size(cases[i].type);
    tqf_element_store_int(buf, cases[i].type, cases[i].stored);
    ck_assert_int_eq(tqf_element_load_int(buf, cases[i].type), cases[i].loaded);
    ck_assert_uint_eq(buf[size], 0xa5); /* nothing written past the element */
  }
}
END_TEST

Suite *element_suite(void) {
  Suite *s = suite_create("element");
  TCase *tc = tcase_create("element");
  int n = (int)(sizeof(th_types) / sizeof(th_types[0]));
  tcase_add_loop_test(tc, element_table_holds_each_types_facts, 0, n);
  tcase_add_loop_test(tc, element_parse_reads_every_mlir_name_back, 0, n);
  tcase_add_test(tc, element_parse_refuses_other_text);
  tcase_add_test(tc, element_npy_codes_read_as_the_first_type_written_so);
  tcase_add_test(tc, element_integers_load_extended_and_store_their_low_bits);
  suite_add_tcase(s, tc);
  return s;
}
