/* The loader never crashes: truncations at every offset and seeded random byte flips of real
 * modules (our models compiled by make into $TORQ_TEST_MODULES, and the hand-made tiny one). Each is a clear
 * error or a valid load; a valid load is also run on the fake device. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "helpers.h"
#include "suites.h"
#include "torq/base/alloc.h"

/* Modules that make check compiles from suites/models into $TORQ_TEST_MODULES. */
static const char *const seed_files[] = {
    "softmax_exp_f32_host", "conv2d_3x3_16x16x8_i8", "add_rescaled_28x28x32_i8",
    NULL, /* the tiny hand-made module */
};
#define N_SEEDS (sizeof(seed_files) / sizeof(seed_files[0]))

static char *seed_bytes(size_t i, size_t *out_len) {
  if (seed_files[i]) {
    char path[PATH_MAX];
    test_module_path(seed_files[i], path);
    char *data = slurp(path, out_len);
    ck_assert_msg(data != NULL, "cannot read %s (make check compiles it)", path);
    return data;
  }
  tb_t tb;
  tb_tiny(&tb);
  tq_buf_t b;
  tb_pack(&tb, &b);
  tb_deinit(&tb);
  *out_len = b.len;
  char *data = tq_buf_detach(&b);
  tq_buf_deinit(&b);
  return data;
}

/* Loads `data`; an error must be TQ_INVALID_INPUT naming the module; a success is run once. */
static int try_load(const void *data, size_t len, size_t *runs_ok) {
  tqr_module_options_t o;
  tqr_module_options_initialize(&o);
  o.max_buffer_bytes = 1 << 20;
  tqr_module_t *m;
  tq_status_t st = tqr_module_load("fuzz.vmfb", data, len, &o, &m);
  if (st) {
    ck_assert_msg(tq_status_code(st) == TQ_INVALID_INPUT, "code %s: %s",
                  tq_status_code_name(tq_status_code(st)), tq_status_message(st));
    ck_assert_msg(strncmp(tq_status_message(st), "fuzz.vmfb: ", 11) == 0, "%s",
                  tq_status_message(st));
    tq_status_free(st);
    return 0;
  }
  fake_device_t *dev = fake_device_create(0);
  tqr_session_t *s = NULL;
  st = tqr_session_create(m, &dev->base, NULL, &s);
  const Torq__Function *fn = tqr_module_proto(m)->function;
  tqr_tensor_t *in[8] = {0}, *out[8] = {0};
  ck_assert_uint_le(fn->n_inputs, 8);
  ck_assert_uint_le(fn->n_outputs, 8);
  for (size_t i = 0; i < fn->n_inputs && !st; i++)
    st = tqr_tensor_create(fn->inputs[i]->element_type, fn->inputs[i]->n_dims, fn->inputs[i]->dims,
                           &in[i]);
  if (!st)
    st = tqr_session_invoke(s, (const tqr_tensor_t *const *)in, fn->n_inputs, out, fn->n_outputs);
  if (!st) ++*runs_ok;
  tq_status_free(st);
  for (size_t i = 0; i < 8; i++) {
    tqr_tensor_destroy(in[i]);
    tqr_tensor_destroy(out[i]);
  }
  tqr_session_destroy(s);
  tqr_device_destroy(&dev->base);
  tqr_module_destroy(m);
  return 1;
}

START_TEST(robust_truncation_at_every_offset) {
  size_t len;
  char *data = seed_bytes((size_t)_i, &len);
  size_t runs = 0;
  ck_assert_int_eq(try_load(data, len, &runs), 1);
  ck_assert_uint_eq(runs, 1);
  size_t loaded = 0;
  for (size_t cut = 0; cut < len; cut++) {
    /* A fresh heap copy of exactly `cut` bytes, so that ASan sees any read past the end. */
    char *part = tq_malloc(cut ? cut : 1);
    memcpy(part, data, cut);
    loaded += (size_t)try_load(part, cut, &runs);
    tq_free(part);
  }
  /* Protobuf can stop at a field boundary and still parse; validation must catch the rest. Only
   * a few cuts can leave a module whose every reference still holds. */
  ck_assert_uint_lt(loaded, len / 4 + 1);
  tq_free(data);
}
END_TEST

static uint64_t next_random(uint64_t *s) {
  uint64_t z = (*s += UINT64_C(0x9E3779B97F4A7C15));
  z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
  return z ^ (z >> 31);
}

START_TEST(robust_random_byte_flips) {
  size_t len;
  char *data = seed_bytes((size_t)_i, &len);
  uint64_t state = 12345 + (uint64_t)_i;
  size_t runs = 0, loaded = 0;
  for (int k = 0; k < 500; k++) {
    char *copy = tq_malloc(len);
    memcpy(copy, data, len);
    int flips = 1 + (int)(next_random(&state) % 3);
    for (int f = 0; f < flips; f++) {
      uint64_t r = next_random(&state);
      copy[r % len] ^= (char)(1 + (r >> 32) % 255);
    }
    loaded += (size_t)try_load(copy, len, &runs);
    tq_free(copy);
  }
  ck_assert_uint_le(runs, loaded);
  tq_free(data);
}
END_TEST

Suite *robust_suite(void) {
  Suite *s = suite_create("robust");
  TCase *tc = tcase_create("bytes");
  tcase_set_timeout(tc, 600);
  tcase_add_loop_test(tc, robust_truncation_at_every_offset, 0, (int)N_SEEDS);
  tcase_add_loop_test(tc, robust_random_byte_flips, 0, (int)N_SEEDS);
  suite_add_tcase(s, tc);
  return s;
}
