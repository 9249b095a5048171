/* Sharding the selected tests (shard.h). */
#include "torq/harness/shard.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "results_internal.h"
#include "torq/base/alloc.h"

#define SHARD_MAX 100000

static int parse_count(const char *s, size_t len, size_t *out) {
  if (!len || len > 6) return 0;
  size_t v = 0;
  for (size_t i = 0; i < len; i++) {
    if (s[i] < '0' || s[i] > '9') return 0;
    v = v * 10 + (size_t)(s[i] - '0');
  }
  *out = v;
  return 1;
}

tq_status_t tqh_shard_parse(const char *text, const char *what, size_t *out_index,
                            size_t *out_total) {
  const char *slash = text ? strchr(text, '/') : NULL;
  size_t k = 0, n = 0;
  if (!slash || !parse_count(text, (size_t)(slash - text), &k) ||
      !parse_count(slash + 1, strlen(slash + 1), &n))
    return TQ_STATUS(TQ_INVALID_ARGUMENT, "%s=%s: expected K/N, e.g. 2/3", what,
                     text ? text : "");
  if (n < 1 || n > SHARD_MAX || k < 1 || k > n)
    return TQ_STATUS(TQ_INVALID_ARGUMENT,
                     "%s=%s: expected 1 <= K <= N <= %d (shards are numbered from 1)", what, text,
                     SHARD_MAX);
  *out_index = k;
  *out_total = n;
  return NULL;
}

tq_status_t tqh_shard_from_env(size_t *out_index, size_t *out_total, int *out_set) {
  *out_set = 0;
  const char *k = getenv("CI_NODE_INDEX"), *n = getenv("CI_NODE_TOTAL");
  if (!k || !*k || !n || !*n) return NULL;
  tq_buf_t text;
  tq_buf_init(&text, 0);
  tq_status_t s = tq_buf_printf(&text, "%s/%s", k, n);
  if (!s) s = tqh_shard_parse(text.data, "CI_NODE_INDEX/CI_NODE_TOTAL", out_index, out_total);
  tq_buf_deinit(&text);
  if (!s) *out_set = 1;
  return s;
}

typedef struct item_s {
  size_t pos;      /* index in the caller's array */
  const char *id;
  double duration; /* < 0: unknown */
} item_t;

static int by_id(const void *a, const void *b) {
  return strcmp(((const item_t *)a)->id, ((const item_t *)b)->id);
}

static int by_duration_desc(const void *a, const void *b) {
  const item_t *x = a, *y = b;
  if (x->duration > y->duration) return -1;
  if (x->duration < y->duration) return 1;
  return strcmp(x->id, y->id);
}

/* Durations of the journal's records, matched by result folder name (fs_id). */
static tq_status_t load_durations(const char *run_dir, item_t *items, size_t n,
                                  tqh_test_t *const *tests, tqh_diags_t *out_diags) {
  tq_buf_t path;
  tq_buf_init(&path, 0);
  tq_status_t s = tq_buf_printf(&path, "%s/journal.jsonl", run_dir);
  tqh_records_t list;
  tqh_records_init(&list);
  tqh_diags_t diags;
  tqh_diags_init(&diags);
  tqh_journal_read_t info;
  if (!s) s = tqh_journal_read(path.data, &list, out_diags ? out_diags : &diags, &info);
  tqh_records_index_t index; /* the last record of a test wins (a journal holds one per test) */
  memset(&index, 0, sizeof(index));
  if (!s) s = tqh_records_index(&list, &index);
  if (s) s = tq_status_annotate(s, "--shard-durations=%s", run_dir);
  double sum = 0;
  size_t known = 0;
  for (size_t i = 0; !s && i < n; i++) {
    const tqh_test_t *t = tests[items[i].pos];
    const tqh_test_record_t *r = tqh_records_find(&index, t->id);
    if (r) {
      items[i].duration = r->duration_s > 0 ? r->duration_s : 0;
      sum += items[i].duration;
      known++;
    }
  }
  double fill = known ? sum / (double)known : 1.0;
  for (size_t i = 0; !s && i < n; i++)
    if (items[i].duration < 0) items[i].duration = fill;
  tqh_records_index_deinit(&index);
  tqh_diags_deinit(&diags);
  tqh_records_deinit(&list);
  tq_buf_deinit(&path);
  return s;
}

tq_status_t tqh_shard_select(tqh_test_t **tests, size_t *count, size_t index, size_t total,
                             const char *durations_run_dir, tqh_diags_t *diags) {
  if (total < 1 || index < 1 || index > total)
    return TQ_STATUS(TQ_INVALID_ARGUMENT, "shard %zu/%zu: expected 1 <= K <= N", index, total);
  size_t n = *count;
  if (!n) return NULL;
  item_t *items = tq_calloc(n, sizeof(*items));
  unsigned char *keep = tq_calloc(n, 1);
  double *load = durations_run_dir ? tq_calloc(total, sizeof(*load)) : NULL;
  tq_status_t s = (!items || !keep || (durations_run_dir && !load))
                      ? TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory")
                      : NULL;
  for (size_t i = 0; !s && i < n; i++) items[i] = (item_t){i, tests[i]->id, -1.0};
  if (!s) qsort(items, n, sizeof(*items), by_id);
  if (!s && durations_run_dir) {
    s = load_durations(durations_run_dir, items, n, tests, diags);
    if (!s) qsort(items, n, sizeof(*items), by_duration_desc);
    for (size_t i = 0; !s && i < n; i++) {
      size_t best = 0;
      for (size_t k = 1; k < total; k++)
        if (load[k] < load[best]) best = k;
      load[best] += items[i].duration;
      if (best + 1 == index) keep[items[i].pos] = 1;
    }
  } else if (!s) {
    for (size_t i = 0; i < n; i++)
      if (i % total + 1 == index) keep[items[i].pos] = 1;
  }
  if (!s) {
    size_t out = 0;
    for (size_t i = 0; i < n; i++)
      if (keep[i]) tests[out++] = tests[i];
    *count = out;
  }
  tq_free(load);
  tq_free(keep);
  tq_free(items);
  return s;
}
