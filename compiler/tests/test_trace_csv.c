/* Tests for trace_csv.h: the compile-time trace of DESIGN 5.2 (IDs, sorting, RFC 4180 quoting). */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "torq/base/alloc.h"
#include "torq/base/status.h"
#include "torq/base/str.h"
#include "torq/sim/cost_model.h"
#include "torq/sim/hw.h"
#include "torq/compiler/trace_csv.h"

Suite *trace_csv_suite(void);

#define TC_ASSERT_OK(expr)                                                  \
  do {                                                                      \
    tq_status_t tc__s = (expr);                                             \
    if (tc__s) {                                                            \
      char *tc__text = tq_status_format(tc__s, 1);                          \
      ck_abort_msg("unexpected status: %s", tc__text ? tc__text : "(oom)"); \
    }                                                                       \
  } while (0)

/* Asserts the code of a status, then frees it. */
#define TC_ASSERT_CODE(expr, want)                   \
  do {                                               \
    tq_status_t tc__s = (expr);                      \
    ck_assert_ptr_nonnull(tc__s);                    \
    ck_assert_int_eq(tq_status_code(tc__s), (want)); \
    tq_status_free(tc__s);                           \
  } while (0)

#define HEADER "ID,Start,End,Location,Op Type\n"

/* Disarms the failing-allocator hook, so that an OOM test cannot leak it into the next test when
 * running with CK_FORK=no. */
static void alloc_reset(void) {
  tq_alloc_fail_after(-1);
}

/* The CSV text of `trace`, owned by the caller (tq_free). */
static char *csv_of(tqc_trace_t *trace) {
  tq_buf_t buf;
  tq_buf_init(&buf, 0);
  TC_ASSERT_OK(tqc_trace_write_csv(trace, &buf));
  return tq_buf_detach(&buf);
}

START_TEST(empty_trace_is_just_the_header) {
  tqc_trace_t t;
  tqc_trace_init(&t);
  char *csv = csv_of(&t);
  ck_assert_str_eq(csv, HEADER);
  tq_free(csv);
  tqc_trace_deinit(&t);
}
END_TEST

START_TEST(mlir_location_is_quoted_with_doubled_quotes) {
  tqc_trace_t t;
  tqc_trace_init(&t);
  TC_ASSERT_OK(tqc_trace_add(&t, "DI0", 0, 15831, "loc(\"model.mlir\":12:5)", "DMA_IN"));
  char *csv = csv_of(&t);
  ck_assert_str_eq(csv, HEADER "DI0,0,15831,\"loc(\"\"model.mlir\"\":12:5)\",DMA_IN\n");
  tq_free(csv);
  tqc_trace_deinit(&t);
}
END_TEST

static const struct {
  const char *field;
  const char *written;
} quoting[] = {
    {"plain", "plain"},
    {"", ""},
    {" spaced out ", " spaced out "}, /* spaces are data in RFC 4180, no quotes needed */
    {"a,b", "\"a,b\""},
    {"say \"hi\"", "\"say \"\"hi\"\"\""},
    {"\"", "\"\"\"\""},
    {"\"\"", "\"\"\"\"\"\""},
    {"two\nlines", "\"two\nlines\""},
    {"cr\r", "\"cr\r\""},
    {"tab\there", "tab\there"},
    {"loc(\"a.mlir\":1:2)", "\"loc(\"\"a.mlir\"\":1:2)\""},
};

START_TEST(fields_are_quoted_only_when_they_need_it) {
  tqc_trace_t t;
  tqc_trace_init(&t);
  /* The same text as ID, Location and Op Type (an empty ID or Op Type is refused). */
  const char *f = quoting[_i].field, *w = quoting[_i].written;
  const char *id = *f ? f : "S0", *op = *f ? f : "add";
  const char *wid = *f ? w : "S0", *wop = *f ? w : "add";
  TC_ASSERT_OK(tqc_trace_add(&t, id, 3, 9, f, op));
  char want[256];
  snprintf(want, sizeof(want), HEADER "%s,3,9,%s,%s\n", wid, w, wop);
  char *csv = csv_of(&t);
  ck_assert_str_eq(csv, want);
  tq_free(csv);
  tqc_trace_deinit(&t);
}
END_TEST

static const struct {
  const char *a;
  const char *b;
  int sign;
} id_order[] = {
    {"S2", "S10", -1},
    {"S10", "S2", 1},
    {"S1", "S1", 0},
    {"DI9", "DI10", -1},
    {"CDMA0", "CSS0", -1}, /* prefixes bytewise: CDMA < CSS < DI < DO < S */
    {"CSS5", "DI0", -1},
    {"DI99", "DO0", -1},
    {"DO99", "S0", -1},
    {"S0", "DO0", 1},
    {"S01", "S1", -1}, /* equal numbers: bytewise, so the order stays total */
    {"S007", "S7", -1},
    {"S", "S0", -1},
    {"", "S0", -1},
    {"S99999999999999999999999", "S100000000000000000000000", -1}, /* longer than uint64_t */
    {"A1B2", "A1B10", -1},                                         /* only trailing digits */
    {"A2B1", "A10B1", 1}, /* prefixes "A2B" vs "A10B": bytewise, '2' > '1' */
};

START_TEST(ids_compare_by_prefix_then_number) {
  int c = tqc_trace_id_compare(id_order[_i].a, id_order[_i].b);
  ck_assert_msg(c == id_order[_i].sign, "%s vs %s: %d", id_order[_i].a, id_order[_i].b, c);
  ck_assert_int_eq(tqc_trace_id_compare(id_order[_i].b, id_order[_i].a), -id_order[_i].sign);
}
END_TEST

START_TEST(rows_sort_by_start_then_id_then_insertion) {
  tqc_trace_t t;
  tqc_trace_init(&t);
  TC_ASSERT_OK(tqc_trace_add(&t, "S10", 100, 200, "", "conv2d"));
  TC_ASSERT_OK(tqc_trace_add(&t, "DO0", 300, 400, "", "DMA_OUT"));
  TC_ASSERT_OK(tqc_trace_add(&t, "S2", 100, 150, "", "conv2d"));
  TC_ASSERT_OK(tqc_trace_add(&t, "DI1", 100, 120, "", "DMA_IN"));
  TC_ASSERT_OK(tqc_trace_add(&t, "CSS0", 100, 8100, "", "CSS"));
  TC_ASSERT_OK(tqc_trace_add(&t, "DI0", 0, 90, "", "DMA_IN"));
  TC_ASSERT_OK(tqc_trace_add(&t, "CDMA0", 100, 110, "first", "CDMA"));
  TC_ASSERT_OK(tqc_trace_add(&t, "CDMA0", 100, 110, "second", "CDMA")); /* duplicate: kept */
  /* Start 2^63 sorts after smaller starts, not before them as a signed compare would. */
  TC_ASSERT_OK(tqc_trace_add(&t, "S0", UINT64_C(1) << 63, UINT64_C(1) << 63, "", "add"));
  char *csv = csv_of(&t);
  ck_assert_str_eq(csv, HEADER
                   "DI0,0,90,,DMA_IN\n"
                   "CDMA0,100,110,first,CDMA\n"
                   "CDMA0,100,110,second,CDMA\n"
                   "CSS0,100,8100,,CSS\n"
                   "DI1,100,120,,DMA_IN\n"
                   "S2,100,150,,conv2d\n"
                   "S10,100,200,,conv2d\n"
                   "DO0,300,400,,DMA_OUT\n"
                   "S0,9223372036854775808,9223372036854775808,,add\n");
  tq_free(csv);
  /* Writing twice gives the same text. */
  csv = csv_of(&t);
  ck_assert_str_eq(strstr(csv, "S10"),
                   "S10,100,200,,conv2d\nDO0,300,400,,DMA_OUT\n"
                   "S0,9223372036854775808,9223372036854775808,,add\n");
  tq_free(csv);
  tqc_trace_deinit(&t);
}
END_TEST

START_TEST(id_allocator_numbers_each_prefix_from_zero) {
  tqc_trace_ids_t ids;
  tqc_trace_ids_init(&ids);
  char id[TQC_TRACE_ID_MAX];
  ck_assert_str_eq(tqc_trace_ids_next(&ids, TQS_UNIT_DMA_IN, id), "DI0");
  ck_assert_str_eq(tqc_trace_ids_next(&ids, TQS_UNIT_DMA_IN, id), "DI1");
  ck_assert_str_eq(tqc_trace_ids_next(&ids, TQS_UNIT_SLICE0, id), "S0");
  ck_assert_str_eq(tqc_trace_ids_next(&ids, TQS_UNIT_SLICE1, id), "S1"); /* shared with slice 0 */
  ck_assert_str_eq(tqc_trace_ids_next(&ids, TQS_UNIT_SLICE0, id), "S2");
  ck_assert_str_eq(tqc_trace_ids_next(&ids, TQS_UNIT_DMA_OUT, id), "DO0");
  ck_assert_str_eq(tqc_trace_ids_next(&ids, TQS_UNIT_CDMA, id), "CDMA0");
  ck_assert_str_eq(tqc_trace_ids_next(&ids, TQS_UNIT_CSS, id), "CSS0");
  ck_assert_str_eq(tqc_trace_ids_next(&ids, TQS_UNIT_CSS, id), "CSS1");
  ck_assert_str_eq(tqc_trace_ids_next(&ids, TQS_UNIT_DMA_IN, id), "DI2");
  ids.next[TQS_UNIT_DMA_OUT] = UINT64_MAX;
  ck_assert_str_eq(tqc_trace_ids_next(&ids, TQS_UNIT_DMA_OUT, id), "DO18446744073709551615");
  ck_assert_str_eq(tqc_unit_trace_prefix(TQS_UNIT_COUNT), "?");
}
END_TEST

START_TEST(add_unit_names_dma_rows_by_unit_and_slice_rows_by_kernel) {
  tqc_trace_t t;
  tqc_trace_init(&t);
  tqc_trace_ids_t ids;
  tqc_trace_ids_init(&ids);
  const char *loc = "loc(\"m.mlir\":3:7)";
  TC_ASSERT_OK(tqc_trace_add_unit(&t, &ids, TQS_UNIT_DMA_IN, 0, 5, loc, "ignored"));
  TC_ASSERT_OK(tqc_trace_add_unit(&t, &ids, TQS_UNIT_SLICE0, 21, 30, loc, "add"));
  TC_ASSERT_OK(tqc_trace_add_unit(&t, &ids, TQS_UNIT_SLICE1, 21, 29, loc, "add"));
  /* A slice without a kernel name is refused and does not use up an ID. */
  TC_ASSERT_CODE(tqc_trace_add_unit(&t, &ids, TQS_UNIT_SLICE1, 21, 29, loc, NULL),
                 TQ_INVALID_ARGUMENT);
  TC_ASSERT_CODE(tqc_trace_add_unit(&t, &ids, TQS_UNIT_SLICE0, 21, 29, loc, ""),
                 TQ_INVALID_ARGUMENT);
  TC_ASSERT_CODE(tqc_trace_add_unit(&t, &ids, TQS_UNIT_DMA_OUT, 50, 40, loc, NULL),
                 TQ_INVALID_ARGUMENT);
  TC_ASSERT_CODE(tqc_trace_add_unit(&t, &ids, TQS_UNIT_COUNT, 0, 1, loc, NULL),
                 TQ_INVALID_ARGUMENT);
  TC_ASSERT_OK(tqc_trace_add_unit(&t, &ids, TQS_UNIT_DMA_OUT, 46, 50, loc, NULL));
  TC_ASSERT_OK(tqc_trace_add_unit(&t, &ids, TQS_UNIT_CDMA, 46, 48, NULL, NULL));
  TC_ASSERT_OK(tqc_trace_add_unit(&t, &ids, TQS_UNIT_CSS, 46, 8046, NULL, "softmax"));
  ck_assert_uint_eq(t.count, 6);
  char *csv = csv_of(&t);
  ck_assert_str_eq(csv, HEADER
                   "DI0,0,5,\"loc(\"\"m.mlir\"\":3:7)\",DMA_IN\n"
                   "S0,21,30,\"loc(\"\"m.mlir\"\":3:7)\",add\n"
                   "S1,21,29,\"loc(\"\"m.mlir\"\":3:7)\",add\n"
                   "CDMA0,46,48,,CDMA\n"
                   "CSS0,46,8046,,CSS\n"
                   "DO0,46,50,\"loc(\"\"m.mlir\"\":3:7)\",DMA_OUT\n");
  tq_free(csv);
  tqc_trace_deinit(&t);
}
END_TEST

START_TEST(add_refuses_bad_rows_and_copies_its_strings) {
  tqc_trace_t t;
  tqc_trace_init(&t);
  TC_ASSERT_CODE(tqc_trace_add(&t, NULL, 0, 1, "", "add"), TQ_INVALID_ARGUMENT);
  TC_ASSERT_CODE(tqc_trace_add(&t, "", 0, 1, "", "add"), TQ_INVALID_ARGUMENT);
  TC_ASSERT_CODE(tqc_trace_add(&t, "S0", 0, 1, "", NULL), TQ_INVALID_ARGUMENT);
  TC_ASSERT_CODE(tqc_trace_add(&t, "S0", 0, 1, "", ""), TQ_INVALID_ARGUMENT);
  tq_status_t st = tqc_trace_add(&t, "S0", 10, 9, "", "add");
  ck_assert_ptr_nonnull(st);
  ck_assert_str_eq(tq_status_message(st), "trace row S0 ends at cycle 9, before its start at 10");
  tq_status_free(st);
  ck_assert_uint_eq(t.count, 0);

  char id[8] = "S0", loc[32] = "loc(\"x.mlir\":1:1)", op[8] = "add";
  TC_ASSERT_OK(tqc_trace_add(&t, id, 4, 4, loc, op));
  memset(id, 'X', sizeof(id) - 1);
  memset(loc, 'X', sizeof(loc) - 1);
  memset(op, 'X', sizeof(op) - 1);
  char *csv = csv_of(&t);
  ck_assert_str_eq(csv, HEADER "S0,4,4,\"loc(\"\"x.mlir\"\":1:1)\",add\n");
  tq_free(csv);
  tqc_trace_deinit(&t);
  tqc_trace_deinit(&t); /* deinit twice is harmless */
}
END_TEST

START_TEST(write_appends_and_restores_the_buffer_on_failure) {
  tqc_trace_t t;
  tqc_trace_init(&t);
  for (int k = 0; k < 40; k++) {
    char id[16];
    snprintf(id, sizeof(id), "S%d", 39 - k);
    TC_ASSERT_OK(tqc_trace_add(&t, id, 0, (uint64_t)k, "", "add"));
  }
  tq_buf_t buf;
  tq_buf_init(&buf, 200);
  TC_ASSERT_OK(tq_buf_append_cstr(&buf, "kept"));
  TC_ASSERT_CODE(tqc_trace_write_csv(&t, &buf), TQ_LIMIT);
  ck_assert_uint_eq(buf.len, 4);
  ck_assert_str_eq(buf.data, "kept");
  tq_buf_deinit(&buf);

  tq_buf_init(&buf, 0);
  TC_ASSERT_OK(tq_buf_append_cstr(&buf, "kept\n"));
  TC_ASSERT_OK(tqc_trace_write_csv(&t, &buf));
  ck_assert_int_eq(strncmp(buf.data, "kept\n" HEADER "S0,0,39,,add\nS1,0,38,,add\n", 52), 0);
  ck_assert_str_eq(buf.data + buf.len - 13, "S39,0,0,,add\n");
  tq_buf_deinit(&buf);
  tqc_trace_deinit(&t);
}
END_TEST

START_TEST(out_of_memory_is_reported_and_leaves_trace_and_buffer_unchanged) {
  tqc_trace_t t;
  tqc_trace_init(&t);
  /* The first allocation (the row array) fails. */
  tq_alloc_fail_after(0);
  tq_status_t st = tqc_trace_add(&t, "S0", 0, 1, "loc", "add");
  tq_alloc_fail_after(-1);
  ck_assert_ptr_nonnull(st);
  ck_assert_int_eq(tq_status_code(st), TQ_OUT_OF_MEMORY);
  tq_status_free(st);
  ck_assert_uint_eq(t.count, 0);
  /* The row array succeeds, the strings' arena block fails. */
  tq_alloc_fail_after(1);
  st = tqc_trace_add(&t, "S0", 0, 1, "loc", "add");
  tq_alloc_fail_after(-1);
  ck_assert_ptr_nonnull(st);
  ck_assert_int_eq(tq_status_code(st), TQ_OUT_OF_MEMORY);
  tq_status_free(st);
  ck_assert_uint_eq(t.count, 0);

  TC_ASSERT_OK(tqc_trace_add(&t, "S0", 0, 1, "loc", "add"));
  tq_buf_t buf;
  tq_buf_init(&buf, 0);
  tq_alloc_fail_after(0);
  st = tqc_trace_write_csv(&t, &buf);
  tq_alloc_fail_after(-1);
  ck_assert_ptr_nonnull(st);
  ck_assert_int_eq(tq_status_code(st), TQ_OUT_OF_MEMORY);
  tq_status_free(st);
  ck_assert_uint_eq(buf.len, 0);
  tq_buf_deinit(&buf);
  char *csv = csv_of(&t);
  ck_assert_str_eq(csv, HEADER "S0,0,1,loc,add\n");
  tq_free(csv);
  tqc_trace_deinit(&t);
}
END_TEST

/* The whole path: costs, schedule, IDs, CSV, for a hand-worked elementwise add of two
 * 1x56x56x24 i8 tensors on the SL2610. */
START_TEST(trace_of_a_scheduled_add_matches_the_hand_worked_csv) {
  tqs_hw_t hw;
  tqs_hw_initialize_sl2610(&hw);
  tqs_task_timing_t tasks[3];
  memset(tasks, 0, sizeof(tasks));
  /* Task 0: DMA in operand A, 75,264 bytes: ceil(75,264 * 175 / 832) = 15,831 cycles, plus 40
   * of set-up: 15,871.
   * Task 1: DMA in operand B (15,871); the slices cannot start before both are in LRAM.
   * Task 2: add on both slices, 37,632 elements each: 37,632 / 64 + 64 = 652 cycles.
   * Task 3 would DMA out; it is left out to keep three tasks. */
  tasks[0].cycles[TQS_UNIT_DMA_IN] = tqs_cost_dma(&hw, 75264);
  tasks[1].cycles[TQS_UNIT_DMA_IN] = tqs_cost_dma(&hw, 75264);
  tasks[2].cycles[TQS_UNIT_SLICE0] = tqs_cost_slice_elementwise(&hw, 37632, 8);
  tasks[2].cycles[TQS_UNIT_SLICE1] = tqs_cost_slice_elementwise(&hw, 37632, 8);
  /* Starts: 0; 15,871 + 16 = 15,887; 15,887 + 15,871 + 16 = 31,774. Ends: 15,871; 31,758;
   * 31,774 + 652 = 32,426. */
  ck_assert_uint_eq(tqs_task_schedule(&hw, tasks, 3), 32426);

  tqc_trace_t t;
  tqc_trace_init(&t);
  tqc_trace_ids_t ids;
  tqc_trace_ids_init(&ids);
  const char *loc = "loc(\"add.mlir\":4:10)";
  /* In program order, as the lowering will: task by task, unit by unit. */
  for (int k = 0; k < 3; k++) {
    for (int u = 0; u < TQS_UNIT_COUNT; u++) {
      if (!tasks[k].cycles[u]) continue;
      TC_ASSERT_OK(tqc_trace_add_unit(&t, &ids, (tqs_unit_t)u, tasks[k].start, tasks[k].unit_end[u],
                                      loc, "add"));
    }
  }
  char *csv = csv_of(&t);
  ck_assert_str_eq(csv, HEADER
                   "DI0,0,15871,\"loc(\"\"add.mlir\"\":4:10)\",DMA_IN\n"
                   "DI1,15887,31758,\"loc(\"\"add.mlir\"\":4:10)\",DMA_IN\n"
                   "S0,31774,32426,\"loc(\"\"add.mlir\"\":4:10)\",add\n"
                   "S1,31774,32426,\"loc(\"\"add.mlir\"\":4:10)\",add\n");
  tq_free(csv);
  tqc_trace_deinit(&t);
}
END_TEST

Suite *trace_csv_suite(void) {
  Suite *s = suite_create("trace_csv");
  TCase *tc = tcase_create("csv");
  tcase_add_checked_fixture(tc, NULL, alloc_reset);
  tcase_add_test(tc, empty_trace_is_just_the_header);
  tcase_add_test(tc, mlir_location_is_quoted_with_doubled_quotes);
  tcase_add_loop_test(tc, fields_are_quoted_only_when_they_need_it, 0,
                      (int)(sizeof(quoting) / sizeof(quoting[0])));
  tcase_add_loop_test(tc, ids_compare_by_prefix_then_number, 0,
                      (int)(sizeof(id_order) / sizeof(id_order[0])));
  tcase_add_test(tc, rows_sort_by_start_then_id_then_insertion);
  tcase_add_test(tc, id_allocator_numbers_each_prefix_from_zero);
  tcase_add_test(tc, add_unit_names_dma_rows_by_unit_and_slice_rows_by_kernel);
  tcase_add_test(tc, add_refuses_bad_rows_and_copies_its_strings);
  tcase_add_test(tc, write_appends_and_restores_the_buffer_on_failure);
  tcase_add_test(tc, out_of_memory_is_reported_and_leaves_trace_and_buffer_unchanged);
  tcase_add_test(tc, trace_of_a_scheduled_add_matches_the_hand_worked_csv);
  suite_add_tcase(s, tc);
  return s;
}
