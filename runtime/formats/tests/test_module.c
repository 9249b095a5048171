/* Tests for module.h: the magic and version a module carries, and the schema's names. */
#include <string.h>

#include "helpers.h"
#include "torq/formats/module.h"

START_TEST(module_magic_is_the_first_field_of_every_module) {
  /* A module that holds only its magic packs to 0A 08 "TORQVMFB": what a reader checks first. */
  Torq__Module m = TORQ__MODULE__INIT;
  m.magic = TQF_MODULE_MAGIC;
  uint8_t buf[32];
  size_t n = torq__module__pack(&m, buf);
  ck_assert_uint_eq(n, 10);
  ck_assert_mem_eq(buf, "\x0a\x08TORQVMFB", 10);
  ck_assert_uint_eq(TQF_MODULE_FORMAT_VERSION, 1);
}
END_TEST

static const struct {
  Torq__Unit unit;
  const char *name;
} th_units[] = {
    {TORQ__UNIT__DMA_IN, "DMA_IN"},
    {TORQ__UNIT__DMA_OUT, "DMA_OUT"},
    {TORQ__UNIT__SLICE0, "SLICE0"},
    {TORQ__UNIT__SLICE1, "SLICE1"},
    {TORQ__UNIT__CDMA, "CDMA"},
    {TORQ__UNIT__CSS, "CSS"},
    {TORQ__UNIT__UNIT_UNSPECIFIED, "?"},
    {(Torq__Unit)7, "?"},
    {(Torq__Unit)-1, "?"},
};

START_TEST(module_unit_names_are_the_schema_names) {
  ck_assert_str_eq(tqf_unit_name(th_units[_i].unit), th_units[_i].name);
}
END_TEST

static const struct {
  Torq__ActionKind kind;
  const char *name;
} th_kinds[] = {
    {TORQ__ACTION_KIND__ALLOC, "ALLOC"},         {TORQ__ACTION_KIND__DEALLOC, "DEALLOC"},
    {TORQ__ACTION_KIND__HOST_COPY, "HOST_COPY"}, {TORQ__ACTION_KIND__NSS_START, "NSS_START"},
    {TORQ__ACTION_KIND__NSS_WAIT, "NSS_WAIT"},   {TORQ__ACTION_KIND__HOST_START, "HOST_START"},
    {TORQ__ACTION_KIND__HOST_WAIT, "HOST_WAIT"},
};

START_TEST(module_action_kind_names_are_the_schema_names) {
  ck_assert_str_eq(tqf_action_kind_name(th_kinds[_i].kind), th_kinds[_i].name);
}
END_TEST

START_TEST(module_action_kind_name_is_null_outside_the_enum) {
  ck_assert_ptr_null(tqf_action_kind_name(TORQ__ACTION_KIND__ACTION_KIND_UNSPECIFIED));
  ck_assert_ptr_null(tqf_action_kind_name((Torq__ActionKind)8));
  ck_assert_ptr_null(tqf_action_kind_name((Torq__ActionKind)-1));
}
END_TEST

Suite *module_suite(void) {
  Suite *s = suite_create("module");
  TCase *tc = tcase_create("module");
  tcase_add_test(tc, module_magic_is_the_first_field_of_every_module);
  tcase_add_loop_test(tc, module_unit_names_are_the_schema_names, 0,
                      (int)(sizeof(th_units) / sizeof(th_units[0])));
  tcase_add_loop_test(tc, module_action_kind_names_are_the_schema_names, 0,
                      (int)(sizeof(th_kinds) / sizeof(th_kinds[0])));
  tcase_add_test(tc, module_action_kind_name_is_null_outside_the_enum);
  suite_add_tcase(s, tc);
  return s;
}
