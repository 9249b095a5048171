/* linalg on tensors end to end: a model mixing tensor.empty, linalg.fill and linalg.matmul
 * (compiler/tests/models/linalg_matmul_i8_i32.mlir) compiles to host programs, which the
 * simulator device's session runs on the reference interpreter; the result is checked against
 * the product computed here, and the compiler's reference evaluator gives the same. */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "helpers.h"
#include "suites.h"
#include "torq/compiler/compile.h"
#include "torq/compiler/mlir.h"
#include "torq/compiler/reference.h"
#include "torq/runtime/runtime.h"
#include "tq_test.h"

START_TEST(linalg_model_runs_as_host_programs_and_matches_the_product) {
  char path[PATH_MAX];
  snprintf(path, sizeof(path), "%.*s/compiler/tests/models/linalg_matmul_i8_i32.mlir",
           PATH_MAX - 64, tq_test_top());
  tqc_module_t *src = NULL;
  tqc_compiled_t *compiled = NULL;
  tq_buf_t packed;
  tq_buf_init(&packed, 0);
  tqr_module_t *mod = NULL;
  TQ_CK(tqc_module_parse_file(path, NULL, &src));
  TQ_CK(tqc_module_verify(src));
  TQ_CK(tqc_compile(src, NULL, &compiled));
  TQ_CK(tqc_compiled_pack(compiled, &packed));
  TQ_CK(tqr_module_load("linalg", packed.data, packed.len, NULL, &mod));
  const Torq__Module *proto = tqr_module_proto(mod);
  ck_assert_uint_eq(proto->n_nss_programs, 0);
  ck_assert_uint_eq(proto->n_host_programs, 3); /* tensor.empty, linalg.fill, linalg.matmul */
  ck_assert_str_eq(proto->host_programs[2]->op, "linalg.matmul");

  tqr_tensor_t *in[2] = {NULL, NULL}, *out = NULL;
  TQ_CK(tqr_tensor_create(TORQ__ELEMENT_TYPE__I8, 2, (const int64_t[]){5, 17}, &in[0]));
  TQ_CK(tqr_tensor_create(TORQ__ELEMENT_TYPE__I8, 2, (const int64_t[]){17, 3}, &in[1]));
  int8_t *a = (int8_t *)in[0]->data, *b = (int8_t *)in[1]->data;
  for (int i = 0; i < 5 * 17; i++) a[i] = (int8_t)(i * 37 - 128);
  for (int i = 0; i < 17 * 3; i++) b[i] = (int8_t)(i * 91 + 5);
  tqr_device_t *dev = NULL;
  tqr_session_t *session = NULL;
  TQ_CK(tqr_device_sim_create(&dev));
  TQ_CK(tqr_session_create(mod, dev, NULL, &session));
  TQ_CK(tqr_session_invoke(session, (const tqr_tensor_t *const *)in, 2, &out, 1));
  ck_assert_uint_eq(out->type, TORQ__ELEMENT_TYPE__I32);
  const int32_t *y = (const int32_t *)out->data;
  for (int i = 0; i < 5; i++) {
    for (int j = 0; j < 3; j++) {
      int32_t want = 7; /* the fill value */
      for (int k = 0; k < 17; k++) want += a[i * 17 + k] * b[k * 3 + j];
      ck_assert_msg(y[i * 3 + j] == want, "y[%d][%d] = %d, want %d", i, j, y[i * 3 + j], want);
    }
  }

  tqs_tensor_t views[2], *ref = NULL;
  const tqs_tensor_t *vp[2] = {&views[0], &views[1]};
  TQ_CK(tqs_tensor_init(&views[0], TQS_I8, 2, in[0]->dims, in[0]->data));
  TQ_CK(tqs_tensor_init(&views[1], TQS_I8, 2, in[1]->dims, in[1]->data));
  TQ_CK(tqc_reference_run(src, NULL, vp, 2, &ref, 1));
  ck_assert_int_eq(memcmp(ref->data, out->data, out->size), 0);

  tqs_tensor_destroy(ref);
  tqr_tensor_destroy(out);
  tqr_tensor_destroy(in[0]);
  tqr_tensor_destroy(in[1]);
  tqr_session_destroy(session);
  tqr_device_destroy(dev);
  tqr_module_destroy(mod);
  tq_buf_deinit(&packed);
  tqc_compiled_destroy(compiled);
  tqc_module_destroy(src);
}
END_TEST

Suite *host_linalg_suite(void) {
  Suite *s = suite_create("host_linalg");
  TCase *tc = tcase_create("models");
  tcase_add_test(tc, linalg_model_runs_as_host_programs_and_matches_the_product);
  suite_add_tcase(s, tc);
  return s;
}
