/* What the execution of one test found (execute.h): the outcome (the first failure wins), its
 * message and text, the files and metrics it produced. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "torq/base/alloc.h"
#include "torq/base/checked.h"
#include "torq/base/str.h"
#include "torq/harness/execute.h"

void tqh_test_result_init(tqh_test_result_t *r) {
  memset(r, 0, sizeof(*r));
  r->outcome = TQH_OUTCOME_PASSED;
}

static void free_strings(char **v, size_t n) {
  for (size_t i = 0; v && i < n; i++) tq_free(v[i]);
  tq_free(v);
}

void tqh_test_result_deinit(tqh_test_result_t *r) {
  tq_free(r->message);
  tq_free(r->failure_type);
  tq_free(r->text);
  tq_free(r->samples);
  tq_free(r->device_samples);
  free_strings(r->metric_names, r->num_metrics);
  tq_free(r->metric_us);
  free_strings(r->files, r->num_files);
  for (size_t i = 0; r->recon && i < r->num_recon; i++) {
    tq_free((char *)r->recon[i].location);
    tq_free((char *)r->recon[i].operators);
  }
  tq_free(r->recon);
  tq_free(r->board);
  free_strings(r->property_keys, r->num_properties);
  free_strings(r->property_values, r->num_properties);
  memset(r, 0, sizeof(*r));
}

static char *dup_cstr(const char *s) {
  return s ? tq_strndup(s, strlen(s)) : NULL;
}

void tqh_test_result_fail(tqh_test_result_t *r, tqh_outcome_t outcome, const char *type,
                          const char *fmt, ...) {
  if (r->outcome != TQH_OUTCOME_PASSED) return;
  r->outcome = outcome;
  r->failure_type = dup_cstr(type);
  va_list ap;
  va_start(ap, fmt);
  r->message = tq_vstrdup_printf(fmt, ap);
  va_end(ap);
}

void tqh_test_result_fail_status(tqh_test_result_t *r, tqh_outcome_t outcome, const char *type,
                                 tq_status_t status) {
  if (r->outcome != TQH_OUTCOME_PASSED) {
    tq_status_free(status);
    return;
  }
  char *text = tq_status_format(status, 0);
  const char *full = text ? text : tq_status_message(status);
  /* Without the "error: " that tq_status_format puts first: the JUnit element says that, and a
   * located diagnostic ("model.mlir:4:5: error: ...") reads as the compiler printed it. */
  if (!strncmp(full, "error: ", 7)) full += 7;
  /* The verdict is the first line; the whole text (source line, caret, notes) goes to `text`. */
  const char *nl = strchr(full, '\n');
  tqh_test_result_fail(r, outcome, type, "%.*s", (int)(nl ? (size_t)(nl - full) : strlen(full)),
                       full);
  if (nl) r->text = dup_cstr(full);
  free(text);
  tq_status_free(status);
}

static tq_status_t grow_strings(char ***v, size_t n, const char *s) {
  size_t bytes;
  if (!tq_size_mul(n + 1, sizeof(char *), &bytes)) return TQ_STATUS(TQ_LIMIT, "too many");
  char **nv = tq_realloc(*v, bytes);
  if (!nv) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  *v = nv;
  nv[n] = dup_cstr(s);
  if (!nv[n]) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  return NULL;
}

tq_status_t tqh_test_result_add_file(tqh_test_result_t *r, const char *name) {
  TQ_TRY(grow_strings(&r->files, r->num_files, name));
  r->num_files++;
  return NULL;
}

tq_status_t tqh_test_result_add_metric(tqh_test_result_t *r, const char *name, double us) {
  double *nu = tq_realloc(r->metric_us, (r->num_metrics + 1) * sizeof(double));
  if (!nu) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  r->metric_us = nu;
  TQ_TRY(grow_strings(&r->metric_names, r->num_metrics, name));
  nu[r->num_metrics++] = us;
  return NULL;
}

tq_status_t tqh_test_result_add_property(tqh_test_result_t *r, const char *key, const char *value) {
  if (r->num_properties >= TQH_RESULT_MAX_PROPERTIES)
    return TQ_STATUS(TQ_LIMIT, "more than %d properties", TQH_RESULT_MAX_PROPERTIES);
  if (!r->property_keys) {
    r->property_keys = tq_calloc(TQH_RESULT_MAX_PROPERTIES, sizeof(char *));
    r->property_values = tq_calloc(TQH_RESULT_MAX_PROPERTIES, sizeof(char *));
  }
  char *k = dup_cstr(key), *v = dup_cstr(value);
  if (!r->property_keys || !r->property_values || !k || !v) {
    tq_free(k);
    tq_free(v);
    return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  }
  r->property_keys[r->num_properties] = k;
  r->property_values[r->num_properties++] = v;
  return NULL;
}
