/* Test helpers for libtorq-sim. */
#include "helpers.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TH_MAX_TENSORS 128

static tqs_tensor_t *th_tensors[TH_MAX_TENSORS];
static size_t th_n_tensors;

void th_free_all(void) {
  for (size_t i = 0; i < th_n_tensors; i++) tqs_tensor_destroy(th_tensors[i]);
  th_n_tensors = 0;
}

TCase *th_tcase(const char *name) {
  TCase *tc = tcase_create(name);
  tcase_add_checked_fixture(tc, NULL, th_free_all);
  return tc;
}

static tqs_tensor_t *th_make(tqs_type_t type, size_t rank, const int64_t *dims) {
  ck_assert_msg(th_n_tensors < TH_MAX_TENSORS, "too many tensors in one test");
  tqs_tensor_t *t = NULL;
  TH_OK(tqs_tensor_create(type, rank, dims, &t));
  th_tensors[th_n_tensors++] = t;
  return t;
}

static size_t th_count(const tqs_tensor_t *t) {
  size_t n = 0;
  TH_OK(tqs_tensor_count(t, &n));
  return n;
}

tqs_tensor_t *th_tensor_i(tqs_type_t type, size_t rank, const int64_t *dims,
                          const int64_t *values) {
  tqs_tensor_t *t = th_make(type, rank, dims);
  if (values) {
    for (size_t i = 0, n = th_count(t); i < n; i++) tqs_tensor_set_i64(t, i, values[i]);
  }
  return t;
}

tqs_tensor_t *th_tensor_f(tqs_type_t type, size_t rank, const int64_t *dims, const double *values) {
  tqs_tensor_t *t = th_make(type, rank, dims);
  if (values) {
    for (size_t i = 0, n = th_count(t); i < n; i++) tqs_tensor_set_f64(t, i, values[i]);
  }
  return t;
}

tqs_tensor_t *th_one(tqs_type_t type, int64_t value) {
  return th_tensor_i(type, 1, (const int64_t[]){1}, &value);
}

tqs_tensor_t *th_index(size_t n, const int64_t *values) {
  return th_tensor_i(TQS_INDEX, 1, (const int64_t[]){(int64_t)n}, values);
}

void th_ok(tq_status_t status, const char *file, int line) {
  if (!status) return;
  char message[1024];
  char *text = tq_status_format(status, 1);
  snprintf(message, sizeof message, "%s", text ? text : "(oom)");
  free(text);
  tq_status_free(status);
  ck_abort_msg("%s:%d: unexpected status: %s", file, line, message);
}

void th_error(tq_status_t status, tq_status_code_t code, const char *needle, const char *needle2,
              const char *file, int line) {
  ck_assert_msg(status != NULL, "%s:%d: expected %s, got OK", file, line,
                tq_status_code_name(code));
  char message[1024];
  snprintf(message, sizeof message, "%s", tq_status_message(status));
  tq_status_code_t got = tq_status_code(status);
  tq_status_free(status);
  ck_assert_msg(got == code, "%s:%d: expected %s, got %s: %s", file, line,
                tq_status_code_name(code), tq_status_code_name(got), message);
  ck_assert_msg(strstr(message, needle) != NULL, "%s:%d: message \"%s\" lacks \"%s\"", file, line,
                message, needle);
  if (needle2) {
    ck_assert_msg(strstr(message, needle2) != NULL, "%s:%d: message \"%s\" lacks \"%s\"", file,
                  line, message, needle2);
  }
}

void th_expect_i(const tqs_tensor_t *t, size_t n, const int64_t *want, const char *file, int line) {
  ck_assert_msg(th_count(t) == n, "%s:%d: tensor has %zu elements, expected %zu", file, line,
                th_count(t), n);
  for (size_t i = 0; i < n; i++) {
    int64_t got = tqs_tensor_get_i64(t, i);
    ck_assert_msg(got == want[i], "%s:%d: element %zu is %lld, expected %lld", file, line, i,
                  (long long)got, (long long)want[i]);
  }
}

void th_expect_f(const tqs_tensor_t *t, size_t n, const double *want, double tol, const char *file,
                 int line) {
  ck_assert_msg(th_count(t) == n, "%s:%d: tensor has %zu elements, expected %zu", file, line,
                th_count(t), n);
  for (size_t i = 0; i < n; i++) {
    double got = tqs_tensor_get_f64(t, i);
    int same = (isnan(want[i]) && isnan(got)) || fabs(got - want[i]) <= tol ||
               (isinf(want[i]) && got == want[i]);
    ck_assert_msg(same, "%s:%d: element %zu is %.9g, expected %.9g", file, line, i, got, want[i]);
  }
}

uint16_t th_bits16(const tqs_tensor_t *t, size_t i) {
  return ((const uint16_t *)t->data)[i];
}
