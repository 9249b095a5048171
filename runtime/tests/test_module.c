/* Module loading: a valid module loads; each broken cross reference is an error that names the
 * file and the element. The modules are hand-made protobuf structs (helpers.c). */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "helpers.h"
#include "suites.h"
#include "torq/base/file.h"

START_TEST(module_loads_a_valid_module) {
  tb_t tb;
  tb_tiny(&tb);
  tqr_module_t *m;
  TQ_CK(tb_load(&tb, &m));
  ck_assert_str_eq(tqr_module_name(m), "test.vmfb");
  ck_assert_str_eq(tqr_module_function_name(m), "main");
  ck_assert_str_eq(tqr_module_dispatch_name(m), "main_dispatch_0");
  ck_assert_uint_eq(tqr_module_hw(m)->lram_bytes, 512 * 1024);
  ck_assert_uint_eq(tqr_module_proto(m)->n_actions, 10);
  tqr_module_destroy(m);
  tb_deinit(&tb);
}
END_TEST

typedef struct mutation_s {
  const char *name;
  void (*apply)(tb_t *tb);
  const char *needle;
} mutation_t;

#define MUT(fn, ...)         \
  static void fn(tb_t *tb) { \
    __VA_ARGS__;             \
  }

MUT(m_magic, tb->m.magic = "NOTTORQ!")
MUT(m_version, tb->m.format_version = 2)
MUT(m_action_buffer, tb->actions[0]->buffer_id = 40)
MUT(m_view_outside, tb_view(tb, 2, 2, TORQ__ELEMENT_TYPE__I8, TB_DIMS(4)))
MUT(m_view_of_view, {
  uint32_t v = tb_view(tb, 2, 0, TORQ__ELEMENT_TYPE__I8, TB_DIMS(4));
  tb_view(tb, v, 0, TORQ__ELEMENT_TYPE__I8, TB_DIMS(2));
})
MUT(m_view_base_missing, tb_view(tb, 30, 0, TORQ__ELEMENT_TYPE__I8, TB_DIMS(4)))
MUT(m_const_size, tb->constants[0]->data.len = 3)
MUT(m_const_id, tb->constants[0]->id = 5)
MUT(m_buffer_size, tb->buffers[2]->size = 5)
MUT(m_buffer_const_id, tb->buffers[1]->constant_id = 7)
MUT(m_buffer_id, tb->buffers[3]->id = 0)
MUT(m_region_lram, tb_region(tb, 0, 0, 0, 1)->offset = 512 * 1024)
MUT(m_region_xram, tb_region(tb, 0, 0, 0, 0)->offset = 1)
MUT(m_region_buffer, tb_region(tb, 0, 1, 0, 1)->buffer_id = 9)
MUT(m_region_strides, {
  Torq__Region *r = tb_region(tb, 0, 0, 0, 0);
  static uint64_t counts[1] = {2};
  r->n_counts = 1;
  r->counts = counts;
})
MUT(m_region_overflow, {
  Torq__Region *r = tb_region(tb, 0, 0, 0, 0);
  static uint64_t counts[1] = {3}, strides[1] = {UINT64_MAX / 2};
  r->n_counts = r->n_strides = 1;
  r->counts = counts;
  r->strides = strides;
})
MUT(m_region_memory, tb_region(tb, 0, 0, 0, 1)->memory = TORQ__MEMORY__MEMORY_UNSPECIFIED)
MUT(m_unit, tb->programs[0]->tasks[0]->work[0]->unit = 9)
MUT(m_slice1, {
  tb->hw.spec = "sl2610,slices=1";
  tb->hw.slices = 1;
  tb->programs[0]->tasks[0]->work[0]->unit = TORQ__UNIT__SLICE1;
})
MUT(m_job_id, tb->programs[0]->job_id = 3)
/* A pipeline's steady state or epilogue continues the LRAM of the program before it. */
MUT(m_stage_alone, tb->programs[0]->stage = TORQ__STAGE__STEADY)
MUT(m_stage_unknown, tb->programs[0]->stage = (Torq__Stage)9)
MUT(m_host_op, tb->hosts[0]->op = "tosa.frobnicate")
MUT(m_host_operand, tb->hosts[0]->operand_buffers[1] = 12)
MUT(m_host_overlap, tb->hosts[0]->result_buffers[0] = 0)
MUT(m_host_id, tb->hosts[0]->id = 1)
MUT(m_input_size, tb->in_types[0] = tb_type(tb, TORQ__ELEMENT_TYPE__I8, TB_DIMS(1, 8)))
MUT(m_output_buffer, tb->out_bufs[0] = 17)
MUT(m_input_constant, tb->in_bufs[0] = 1)
MUT(m_input_count, tb->fn.n_input_buffers = 0)
MUT(m_inputs_share, {
  tb->in_types[1] = tb->in_types[0];
  tb->in_bufs[1] = 0;
  tb->fn.n_inputs = tb->fn.n_input_buffers = 2;
})
MUT(m_dealloc_unallocated, tb->actions[4]->buffer_id = 3)
MUT(m_alloc_twice, tb->actions[1]->buffer_id = 1)
MUT(m_use_unallocated, tb->actions[1]->buffer_id = 3)
MUT(m_wait_unstarted, tb->actions[6]->kind = TORQ__ACTION_KIND__NSS_WAIT)
MUT(m_never_waited, tb->m.n_actions = 7)
MUT(m_free_in_flight, {
  tb->actions[7]->kind = TORQ__ACTION_KIND__DEALLOC;
  tb->actions[7]->buffer_id = 2;
  tb->actions[9]->kind = TORQ__ACTION_KIND__NSS_WAIT;
  tb->actions[9]->job_id = 0;
  tb->actions[8]->src_buffer_id = 3;
})
MUT(m_output_freed, tb->actions[9]->buffer_id = 3)
MUT(m_alloc_input, tb->actions[0]->buffer_id = 0)
MUT(m_alloc_view, {
  uint32_t v = tb_view(tb, 2, 0, TORQ__ELEMENT_TYPE__I8, TB_DIMS(4));
  tb->actions[5]->buffer_id = v;
})
MUT(m_kind, tb->actions[3]->kind = 42)
MUT(m_action_job, tb->actions[6]->job_id = 5)
MUT(m_action_host, tb->actions[2]->host_program_id = 2)
MUT(m_action_id, tb->actions[5]->action_id = 6)
MUT(m_host_start_twice, tb->actions[3]->kind = TORQ__ACTION_KIND__HOST_START)
MUT(m_host_wait_unstarted, tb->actions[2]->kind = TORQ__ACTION_KIND__HOST_WAIT)
MUT(m_copy_outside, tb->actions[8]->size = 3)
MUT(m_copy_dst_buffer, tb->actions[8]->buffer_id = 99)
MUT(m_hw_mismatch, tb->hw.lram_bytes = 1024)
MUT(m_hw_spec, tb->hw.spec = "sl9999")
MUT(m_hw_missing, tb->m.hardware = NULL)
MUT(m_fn_missing, tb->m.function = NULL)
MUT(m_fn_name, tb->fn.name = "ma,in")
MUT(m_elem_type, tb->buffers[2]->type->element_type = 99)
MUT(m_rank, {
  static int64_t dims[9] = {1, 1, 1, 1, 1, 1, 1, 1, 4};
  tb->buffers[2]->type->n_dims = 9;
  tb->buffers[2]->type->dims = dims;
})
MUT(m_negative_dim, tb->buffers[2]->type->dims[1] = -4)
MUT(m_dims_overflow, {
  static int64_t dims[3] = {INT64_MAX, INT64_MAX, 4};
  tb->buffers[2]->type->n_dims = 3;
  tb->buffers[2]->type->dims = dims;
})
MUT(m_no_type, tb->buffers[2]->type = NULL)
MUT(m_memory, tb->buffers[2]->memory = TORQ__MEMORY__LRAM)
MUT(m_too_big, {
  uint32_t b = tb_buffer(tb, TORQ__ELEMENT_TYPE__I8, TB_DIMS(1, 4));
  tb->buffers[b]->type->dims[1] = (int64_t)1 << 31;
  tb->buffers[b]->size = (uint64_t)1 << 31;
})

/* Five buffers of 1 GiB each: each within its limit, 5 GiB together. */
MUT(m_too_much, {
  for (int i = 0; i < 5; i++) {
    uint32_t b = tb_buffer(tb, TORQ__ELEMENT_TYPE__I8, TB_DIMS(1, 4));
    tb->buffers[b]->type->dims[1] = (int64_t)1 << 30;
    tb->buffers[b]->size = (uint64_t)1 << 30;
  }
})

static const mutation_t mutations[] = {
    {"magic", m_magic,
     "test.vmfb: not a Torq module: magic is \"NOTTORQ!\", expected \"TORQVMFB\""},
    {"version", m_version,
     "test.vmfb: module format version 2 is not supported: this runtime reads version 1"},
    {"action buffer", m_action_buffer,
     "test.vmfb: action 0 refers to buffer 40, but the module has 4 buffers"},
    {"view outside", m_view_outside,
     "buffer 4 is a view of bytes [2, 2 + 4) of buffer 2, which has 4 bytes"},
    {"view of view", m_view_of_view, "buffer 5 is a view of buffer 4, which is a view itself"},
    {"view base", m_view_base_missing,
     "buffer 4 is a view of buffer 30, but the module has 5 buffers"},
    {"constant size", m_const_size, "constant 0 holds 3 bytes, but its type i8 needs 4"},
    {"constant id", m_const_id, "constant 0 has id 5 (ids are positions)"},
    {"buffer size", m_buffer_size, "buffer 2 has size 5, but its type needs 4 bytes"},
    {"buffer constant", m_buffer_const_id,
     "buffer 1 refers to constant 7, but the module has 1 constants"},
    {"buffer id", m_buffer_id, "buffer 3 has id 0"},
    {"region lram", m_region_lram,
     "NSS program 0 task 0 work 0 region 1 ends at LRAM byte 524292, but the LRAM has 524288 "
     "bytes"},
    {"region xram", m_region_xram,
     "NSS program 0 task 0 work 0 region 0 ends at byte 5 of buffer 2, which has 4 bytes"},
    {"region buffer", m_region_buffer,
     "NSS program 0 task 1 work 0 region 1 refers to buffer 9, but the module has 4 buffers"},
    {"region strides", m_region_strides, "region 0 has 1 counts but 0 strides"},
    {"region overflow", m_region_overflow, "region 0: its extent overflows"},
    {"region memory", m_region_memory, "region 1 has an invalid memory (0)"},
    {"unit", m_unit, "NSS program 0 task 0 work 0 has an invalid unit (9)"},
    {"slice1", m_slice1, "uses SLICE1, but the hardware has 1 slice"},
    {"job id", m_job_id, "NSS program 0 has job_id 3"},
    {"stage alone", m_stage_alone,
     "starts NSS program 0 (a steady state), which must follow its prologue, program -1, right "
     "after that one"},
    {"stage unknown", m_stage_unknown, "NSS program 0 has an unknown stage (9)"},
    {"host op", m_host_op,
     "host program 0: operator \"tosa.frobnicate\" is not supported by the reference kernels"},
    {"host operand", m_host_operand,
     "host program 0 operand 1 refers to buffer 12, but the module has 4 buffers"},
    {"host overlap", m_host_overlap,
     "host program 0: result 0 (buffer 0) overlaps operand 0 (buffer 0)"},
    {"host id", m_host_id, "host program 0 has id 1"},
    {"input size", m_input_size, "function input 0 has 8 bytes, but its buffer 0 has 4"},
    {"output buffer", m_output_buffer,
     "function output 0 refers to buffer 17, but the module has 4 buffers"},
    {"input constant", m_input_constant, "function input 0 uses buffer 1, which is a constant"},
    {"input count", m_input_count, "the function has 1 inputs but 0 input buffers"},
    {"inputs share", m_inputs_share, "function inputs 0 and 1 share buffer 0"},
    {"dealloc unallocated", m_dealloc_unallocated,
     "action 4 frees buffer 3, which is not allocated"},
    {"alloc twice", m_alloc_twice, "action 1 allocates buffer 1, which is already allocated"},
    {"use unallocated", m_use_unallocated,
     "action 2 (HOST_START) uses result buffer 2, which is not allocated at that point"},
    {"wait unstarted", m_wait_unstarted, "action 6 waits for NSS program 0, which was not started"},
    {"never waited", m_never_waited, "NSS program 0 is started by action 6 but never waited for"},
    {"free in flight", m_free_in_flight,
     "action 7 frees buffer 2 while NSS program 0 (started by action 6) still uses it"},
    {"output freed", m_output_freed,
     "function output 0 (buffer 3) is not allocated when the actions end"},
    {"alloc input", m_alloc_input, "action 0 (ALLOC) names buffer 0, which holds function input 0"},
    {"alloc view", m_alloc_view, "action 5 (ALLOC) names buffer 4, which is a view"},
    {"kind", m_kind, "action 3 has an invalid kind (42)"},
    {"action job", m_action_job, "action 6 refers to NSS program 5, but the module has 1"},
    {"action host", m_action_host, "action 2 refers to host program 2, but the module has 1"},
    {"action id", m_action_id, "action 5 has action_id 6 (ids are positions)"},
    {"host start twice", m_host_start_twice,
     "action 3 starts host program 0, already started by action 2 and not waited for"},
    {"host wait unstarted", m_host_wait_unstarted,
     "action 2 waits for host program 0, which was not started"},
    {"copy outside", m_copy_outside,
     "action 8 (HOST_COPY) source bytes [2, 2 + 3) lie outside buffer 2 (4 bytes)"},
    {"copy dst", m_copy_dst_buffer, "action 8 refers to buffer 99, but the module has 4 buffers"},
    {"hw mismatch", m_hw_mismatch,
     "hardware spec \"sl2610\" means clock 800000000 Hz, LRAM 524288 bytes, 2 slices, but the "
     "module records clock 800000000 Hz, LRAM 1024 bytes, 2 slices"},
    {"hw spec", m_hw_spec, "hardware spec \"sl9999\" is invalid"},
    {"hw missing", m_hw_missing, "the module has no hardware description"},
    {"fn missing", m_fn_missing, "the module has no function"},
    {"fn name", m_fn_name, "function name \"ma,in\" is not a valid symbol name"},
    {"element type", m_elem_type, "buffer 2 has an invalid element type (99)"},
    {"rank", m_rank, "buffer 2 has rank 9, above the limit of 8"},
    {"negative dim", m_negative_dim, "buffer 2 has a negative dim 1 (-4)"},
    {"dims overflow", m_dims_overflow, "buffer 2: the element count overflows"},
    {"no type", m_no_type, "buffer 2 has no tensor type"},
    {"memory", m_memory, "buffer 2 is not in XRAM (memory 2)"},
    {"too big", m_too_big, "buffer 4 has 2147483648 bytes, above the limit of 1073741824"},
    {"too much", m_too_much, "buffers 0 to 7 hold 4294967312 bytes, above the limit of 4294967296"},
};

START_TEST(module_rejects_broken_references) {
  const mutation_t *mu = &mutations[_i];
  tb_t tb;
  tb_tiny(&tb);
  mu->apply(&tb);
  tqr_module_t *m = (tqr_module_t *)1;
  tq_status_t st = tb_load(&tb, &m);
  ck_assert_msg(st != NULL, "mutation '%s' loaded", mu->name);
  ck_status(st, TQ_INVALID_INPUT, mu->needle);
  ck_assert_ptr_null(m);
  tb_deinit(&tb);
}
END_TEST

START_TEST(module_rejects_bytes_that_are_no_module) {
  tqr_module_t *m;
  ck_status(tqr_module_load("x.vmfb", "", 0, NULL, &m), TQ_INVALID_INPUT,
            "x.vmfb: empty file: not a Torq module");
  ck_status(tqr_module_load("x.vmfb", "\xff\xff\xff\xff hello", 10, NULL, &m), TQ_INVALID_INPUT,
            "x.vmfb: not a Torq module or truncated (protobuf unpack failed)");
  /* A valid protobuf that is something else: no magic. */
  ck_status(tqr_module_load("x.vmfb", "\x10\x01", 2, NULL, &m), TQ_INVALID_INPUT,
            "x.vmfb: not a Torq module: magic is \"\"");
}
END_TEST

START_TEST(module_load_file_names_the_path_and_limits_size) {
  char dir[PATH_MAX], path[PATH_MAX + 16];
  tmpdir_make(dir);
  snprintf(path, sizeof(path), "%s/model.vmfb", dir);
  tb_t tb;
  tb_tiny(&tb);
  tb.actions[0]->buffer_id = 40;
  tq_buf_t b;
  tb_pack(&tb, &b);
  write_file(path, b.data, b.len);
  tqr_module_t *m;
  char want[PATH_MAX + 128];
  snprintf(want, sizeof(want), "%s: action 0 refers to buffer 40, but the module has 4 buffers",
           path);
  ck_status(tqr_module_load_file(path, NULL, &m), TQ_INVALID_INPUT, want);
  tqr_module_options_t o;
  tqr_module_options_initialize(&o);
  o.max_file_bytes = 16;
  ck_status(tqr_module_load_file(path, &o, &m), TQ_LIMIT, path);
  ck_status(tqr_module_load_file("/nonexistent/m.vmfb", NULL, &m), TQ_NOT_FOUND,
            "/nonexistent/m.vmfb");
  tq_buf_deinit(&b);
  tb_deinit(&tb);
  tmpdir_remove(dir);
}
END_TEST

START_TEST(module_accepts_views_of_inputs_and_outputs_that_are_views) {
  tb_t tb;
  tb_init(&tb);
  uint32_t in = tb_buffer(&tb, TORQ__ELEMENT_TYPE__I8, TB_DIMS(1, 8));
  uint32_t v = tb_view(&tb, in, 4, TORQ__ELEMENT_TYPE__I8, TB_DIMS(4));
  uint32_t o = tb_buffer(&tb, TORQ__ELEMENT_TYPE__I8, TB_DIMS(2, 4));
  uint32_t ov = tb_view(&tb, o, 0, TORQ__ELEMENT_TYPE__I8, TB_DIMS(8));
  tb_input(&tb, in);
  tb_output(&tb, ov);
  uint32_t j = tb_dma_program(&tb, v, o, 4);
  tb_action(&tb, TORQ__ACTION_KIND__ALLOC, o);
  tb_action(&tb, TORQ__ACTION_KIND__NSS_START, j);
  tb_action(&tb, TORQ__ACTION_KIND__NSS_WAIT, j);
  tqr_module_t *m;
  TQ_CK(tb_load(&tb, &m));
  tqr_module_destroy(m);
  tb_deinit(&tb);
}
END_TEST

START_TEST(module_skips_raw_attributes) {
  tb_t tb;
  tb_tiny(&tb);
  /* Raw (dense data) attributes have no reference-kernel form; they are left out, also when
   * they come last. */
  const int64_t axis = 1;
  tb_host_attr_ints(&tb, 0, "axis", 1, &axis);
  tb_host_attr_str(&tb, 0, "raw", "x");
  Torq__Attribute *raw = tb.hosts[0]->attributes[1];
  raw->value_case = TORQ__ATTRIBUTE__VALUE_RAW;
  raw->raw.data = (uint8_t *)"\x01\x02";
  raw->raw.len = 2;
  tqr_module_t *m;
  TQ_CK(tb_load(&tb, &m));
  fake_device_t *dev = fake_device_create(0);
  run_and_expect(m, &dev->base, NULL, "1x4xi8=10,20,30,40", "1x4xi8=[33 44 33 44]");
  tqr_device_destroy(&dev->base);
  tqr_module_destroy(m);
  tb_deinit(&tb);
}
END_TEST

/* A compiled module with host programs only (softmax: reduce_max with axis and nan_mode
 * attributes, sub, exp, reduce_sum, reciprocal, mul): the attributes reach the reference
 * kernels and the result is a softmax. */
START_TEST(module_compiled_host_programs_run) {
  tqr_module_t *m;
  char path[PATH_MAX];
  test_module_path("softmax_exp_f32_host", path);
  TQ_CK(tqr_module_load_file(path, NULL, &m));
  fake_device_t *dev = fake_device_create(0);
  tqr_session_t *s;
  TQ_CK(tqr_session_create(m, &dev->base, NULL, &s));
  tqr_tensor_t *in, *out;
  TQ_CK(tqr_input_parse("1x100xf32=@random", NULL, &in));
  TQ_CK(tqr_session_invoke(s, (const tqr_tensor_t *const *)&in, 1, &out, 1));
  double sum = 0;
  for (size_t i = 0; i < 100; i++) {
    float v;
    memcpy(&v, out->data + 4 * i, 4);
    ck_assert(v > 0.0f && v < 1.0f);
    sum += v;
  }
  ck_assert_double_eq_tol(sum, 1.0, 1e-5);
  tqr_tensor_destroy(in);
  tqr_tensor_destroy(out);
  tqr_session_destroy(s);
  tqr_device_destroy(&dev->base);
  tqr_module_destroy(m);
}
END_TEST

Suite *module_suite(void) {
  Suite *s = suite_create("module");
  TCase *tc = tcase_create("validation");
  tcase_add_test(tc, module_loads_a_valid_module);
  tcase_add_loop_test(tc, module_rejects_broken_references, 0,
                      sizeof(mutations) / sizeof(mutations[0]));
  tcase_add_test(tc, module_rejects_bytes_that_are_no_module);
  tcase_add_test(tc, module_load_file_names_the_path_and_limits_size);
  tcase_add_test(tc, module_accepts_views_of_inputs_and_outputs_that_are_views);
  tcase_add_test(tc, module_skips_raw_attributes);
  tcase_add_test(tc, module_compiled_host_programs_run);
  suite_add_tcase(s, tc);
  return s;
}
