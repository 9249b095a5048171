/* Tests for contract.h: the kernels' names, regions and accumulators, and the NSS task rule. */
#include <stdint.h>

#include "helpers.h"
#include "torq/formats/contract.h"

static const struct {
  tqf_kernel_t kernel;
  const char *name;
  size_t regions;
} th_kernels[] = {
    {TQF_KERNEL_CONV2D, "conv2d", 4},
    {TQF_KERNEL_DEPTHWISE_CONV2D, "depthwise_conv2d", 4},
    {TQF_KERNEL_FULLY_CONNECTED, "fully_connected", 3},
    {TQF_KERNEL_MAX_POOL2D, "max_pool2d", 2},
    {TQF_KERNEL_AVG_POOL2D, "avg_pool2d", 2},
    {TQF_KERNEL_ADD, "add", 3},
    {TQF_KERNEL_SUB, "sub", 3},
    {TQF_KERNEL_MUL, "mul", 3},
    {TQF_KERNEL_RESCALE, "rescale", 2},
    {TQF_KERNEL_CLAMP, "clamp", 2},
};

START_TEST(contract_kernels_have_a_name_and_their_regions) {
  ck_assert_str_eq(tqf_kernel_name(th_kernels[_i].kernel), th_kernels[_i].name);
  ck_assert_int_eq(tqf_kernel_lookup(th_kernels[_i].name), th_kernels[_i].kernel);
  ck_assert_uint_eq(tqf_kernel_regions(th_kernels[_i].kernel), th_kernels[_i].regions);
}
END_TEST

START_TEST(contract_unknown_kernels_are_refused) {
  ck_assert_uint_eq(sizeof(th_kernels) / sizeof(th_kernels[0]), TQF_KERNEL_COUNT);
  ck_assert_int_eq(tqf_kernel_lookup("conv3d"), TQF_KERNEL_COUNT);
  ck_assert_int_eq(tqf_kernel_lookup(""), TQF_KERNEL_COUNT);
  ck_assert_int_eq(tqf_kernel_lookup("Conv2d"), TQF_KERNEL_COUNT);
  ck_assert_str_eq(tqf_kernel_name(TQF_KERNEL_COUNT), "?");
  ck_assert_str_eq(tqf_kernel_name((tqf_kernel_t)-1), "?");
  ck_assert_uint_eq(tqf_kernel_regions(TQF_KERNEL_COUNT), 0);
}
END_TEST

START_TEST(contract_mac_kernels_accumulate_i8_in_i32_and_i16_in_i48) {
  ck_assert_int_eq(tqf_kernel_acc_type(TORQ__ELEMENT_TYPE__I8), TORQ__ELEMENT_TYPE__I32);
  ck_assert_int_eq(tqf_kernel_acc_type(TORQ__ELEMENT_TYPE__I16), TORQ__ELEMENT_TYPE__I48);
}
END_TEST

START_TEST(contract_clock_starts_units_together_and_tasks_after_the_overhead) {
  tqf_nss_clock_t c;
  tqf_nss_clock_init(&c, 16);
  ck_assert_uint_eq(c.end, 0); /* a program without tasks takes no time */
  ck_assert_uint_eq(tqf_nss_task_begin(&c), 0);
  ck_assert_uint_eq(tqf_nss_unit(&c, 100), 100);
  ck_assert_uint_eq(tqf_nss_unit(&c, 40), 40);
  ck_assert_uint_eq(c.end, 100); /* the task ends with its last unit */
  ck_assert_uint_eq(tqf_nss_task_begin(&c), 116);
  ck_assert_uint_eq(c.end, 116); /* a task without units ends where it starts */
  ck_assert_uint_eq(tqf_nss_task_begin(&c), 132);
  ck_assert_uint_eq(tqf_nss_unit(&c, 0), 132);
  ck_assert_uint_eq(tqf_nss_unit(&c, 8), 140);
  ck_assert_uint_eq(c.end, 140);
  ck_assert_uint_eq(c.tasks, 3);
}
END_TEST

/* A pipeline's steady state continues its prologue, its epilogue the steady state; a whole
 * program and a prologue continue nothing; a value outside the enum is refused. */
START_TEST(contract_stages_continue_the_stage_before_them) {
  Torq__Stage before = TORQ__STAGE__WHOLE;
  ck_assert_int_eq(tqf_nss_stage_continues(TORQ__STAGE__WHOLE, &before), 0);
  ck_assert_int_eq(tqf_nss_stage_continues(TORQ__STAGE__PROLOGUE, &before), 0);
  ck_assert_int_eq(before, TORQ__STAGE__WHOLE);
  ck_assert_int_eq(tqf_nss_stage_continues(TORQ__STAGE__STEADY, &before), 1);
  ck_assert_int_eq(before, TORQ__STAGE__PROLOGUE);
  ck_assert_int_eq(tqf_nss_stage_continues(TORQ__STAGE__EPILOGUE, &before), 1);
  ck_assert_int_eq(before, TORQ__STAGE__STEADY);
  ck_assert_int_eq(tqf_nss_stage_continues((Torq__Stage)4, &before), -1);
  ck_assert_int_eq(before, TORQ__STAGE__STEADY);
  ck_assert_str_eq(tqf_nss_stage_name(TORQ__STAGE__WHOLE), "whole program");
  ck_assert_str_eq(tqf_nss_stage_name(TORQ__STAGE__PROLOGUE), "prologue");
  ck_assert_str_eq(tqf_nss_stage_name(TORQ__STAGE__STEADY), "steady state");
  ck_assert_str_eq(tqf_nss_stage_name(TORQ__STAGE__EPILOGUE), "epilogue");
  ck_assert_str_eq(tqf_nss_stage_name((Torq__Stage)-1), "?");
}
END_TEST

START_TEST(contract_clock_saturates_instead_of_wrapping) {
  tqf_nss_clock_t c;
  tqf_nss_clock_init(&c, UINT64_MAX);
  tqf_nss_task_begin(&c);
  ck_assert_uint_eq(tqf_nss_unit(&c, UINT64_MAX - 1), UINT64_MAX - 1);
  ck_assert_uint_eq(tqf_nss_task_begin(&c), UINT64_MAX);
  ck_assert_uint_eq(tqf_nss_unit(&c, 5), UINT64_MAX);
  ck_assert_uint_eq(c.end, UINT64_MAX);
}
END_TEST

Suite *contract_suite(void) {
  Suite *s = suite_create("contract");
  TCase *tc = tcase_create("contract");
  tcase_add_loop_test(tc, contract_kernels_have_a_name_and_their_regions, 0,
                      (int)(sizeof(th_kernels) / sizeof(th_kernels[0])));
  tcase_add_test(tc, contract_unknown_kernels_are_refused);
  tcase_add_test(tc, contract_mac_kernels_accumulate_i8_in_i32_and_i16_in_i48);
  tcase_add_test(tc, contract_clock_starts_units_together_and_tasks_after_the_overhead);
  tcase_add_test(tc, contract_clock_saturates_instead_of_wrapping);
  tcase_add_test(tc, contract_stages_continue_the_stage_before_them);
  suite_add_tcase(s, tc);
  return s;
}
