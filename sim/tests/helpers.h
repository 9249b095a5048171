/* Shared by the libtorq-sim tests: suite constructors, tensor builders that free themselves, and
 * assertions on values and statuses. */
#ifndef TORQ_SIM_TESTS_HELPERS_H
#define TORQ_SIM_TESTS_HELPERS_H

#include <check.h>
#include <stddef.h>
#include <stdint.h>

#include "torq/base/status.h"
#include "torq/sim/ref.h"
#include "torq/sim/tensor.h"

Suite *tensor_suite(void);
Suite *rescale_suite(void);
Suite *elementwise_suite(void);
Suite *cast_suite(void);
Suite *conv_suite(void);
Suite *pool_suite(void);
Suite *data_suite(void);
Suite *reduce_suite(void);
Suite *linalg_suite(void);
Suite *errors_suite(void);
Suite *cost_model_suite(void);
Suite *npu_suite(void);

/* Checked fixture teardown: destroys every tensor the th_ builders made in the test. */
void th_free_all(void);
/* A TCase with th_free_all as its checked teardown. */
TCase *th_tcase(const char *name);

/* A shape argument list: TH_SHAPE(1, 4, 4, 1) expands to `rank, dims`. */
#define TH_SHAPE(...)                                                           \
  sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t), (const int64_t[]) { \
    __VA_ARGS__                                                                 \
  }
#define TH_SCALAR 0, NULL

/* Tensors filled from integer or double values (set_i64 / set_f64); `values` NULL or holding
 * every element. Freed by th_free_all. */
tqs_tensor_t *th_tensor_i(tqs_type_t type, size_t rank, const int64_t *dims, const int64_t *values);
tqs_tensor_t *th_tensor_f(tqs_type_t type, size_t rank, const int64_t *dims, const double *values);
#define TH_I(...) ((const int64_t[]){__VA_ARGS__})
#define TH_F(...) ((const double[]){__VA_ARGS__})
/* A one-element rank-1 tensor (zero points, shifts, multipliers). */
tqs_tensor_t *th_one(tqs_type_t type, int64_t value);
/* A rank-1 index tensor of n values (compile-time shapes). */
tqs_tensor_t *th_index(size_t n, const int64_t *values);

/* Runs an op with arrays of attributes, inputs and outputs. */
#define TH_ATTRS(...) \
  (const tqs_attr_t[]){__VA_ARGS__}, sizeof((const tqs_attr_t[]){__VA_ARGS__}) / sizeof(tqs_attr_t)
#define TH_NO_ATTRS NULL, 0
#define TH_INS(...)                           \
  (const tqs_tensor_t *const[]){__VA_ARGS__}, \
      sizeof((const tqs_tensor_t *const[]){__VA_ARGS__}) / sizeof(void *)
#define TH_OUTS(...)                    \
  (tqs_tensor_t *const[]){__VA_ARGS__}, \
      sizeof((tqs_tensor_t *const[]){__VA_ARGS__}) / sizeof(void *)

/* Fails the test with the formatted status when it is not OK. */
void th_ok(tq_status_t status, const char *file, int line);
#define TH_OK(status) th_ok((status), __FILE__, __LINE__)

/* Asserts the code, and that the message contains `needle` (and `needle2` when not NULL). */
void th_error(tq_status_t status, tq_status_code_t code, const char *needle, const char *needle2,
              const char *file, int line);
#define TH_ERROR(status, code, needle, needle2) \
  th_error((status), (code), (needle), (needle2), __FILE__, __LINE__)

/* Asserts every element (get_i64), or every element within `tol` (get_f64). */
void th_expect_i(const tqs_tensor_t *t, size_t n, const int64_t *want, const char *file, int line);
void th_expect_f(const tqs_tensor_t *t, size_t n, const double *want, double tol, const char *file,
                 int line);
#define TH_EXPECT_I(t, ...)                                                  \
  th_expect_i((t), sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t), \
              (const int64_t[]){__VA_ARGS__}, __FILE__, __LINE__)
#define TH_EXPECT_F(t, tol, ...)                                           \
  th_expect_f((t), sizeof((const double[]){__VA_ARGS__}) / sizeof(double), \
              (const double[]){__VA_ARGS__}, (tol), __FILE__, __LINE__)

/* The raw 16-bit pattern of element i of a bf16/f16 tensor. */
uint16_t th_bits16(const tqs_tensor_t *t, size_t i);

#endif
