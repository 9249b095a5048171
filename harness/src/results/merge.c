/* Merging finished runs into one (shard.h: tqh_merge_runs, for `torq-test merge`). */
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "results_internal.h"
#include "torq/base/alloc.h"
#include "torq/base/file.h"
#include "torq/harness/files.h"
#include "torq/harness/shard.h"

static tq_status_t oom(void) { return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory"); }

typedef struct shard_run_s {
  tq_buf_t text; /* journal.jsonl */
  tqh_records_t records;
} shard_run_t;

tq_status_t tqh_merge_runs(const char *const *run_dirs, size_t num_runs,
                           const tqh_results_options_t *options, const tqh_run_info_t *info,
                           char **out_run_dir, size_t *out_counts, tqh_diags_t *out_diags) {
  *out_run_dir = NULL;
  if (out_counts) memset(out_counts, 0, TQH_OUTCOME_COUNT * sizeof(*out_counts));
  if (!num_runs) return TQ_STATUS(TQ_INVALID_ARGUMENT, "merge: no run folder given");
  shard_run_t *runs = tq_calloc(num_runs, sizeof(*runs));
  if (!runs) return oom();
  tq_status_t s = NULL;
  tq_buf_t path, journal, dups;
  tq_buf_init(&path, 0);
  tq_buf_init(&journal, 0);
  tq_buf_init(&dups, 0);
  size_t num_dups = 0;
  tqh_results_t *results = NULL;
  char *run_dir = NULL;
  for (size_t i = 0; i < num_runs; i++) tqh_records_init(&runs[i].records);

  /* Read every journal, and find duplicates, before creating anything. */
  for (size_t i = 0; !s && i < num_runs; i++) {
    tq_buf_clear(&path);
    s = tq_buf_printf(&path, "%s/journal.jsonl", run_dirs[i]);
    if (!s) {
      s = tq_file_read(path.data, 0, &runs[i].text);
      if (s) s = tq_status_annotate(s, "merge: %s is not a run folder", run_dirs[i]);
    }
    tqh_diags_t diags;
    tqh_diags_init(&diags);
    tqh_journal_read_t ji;
    if (!s)
      s = tqh_journal_parse(path.data, runs[i].text.data ? runs[i].text.data : "", runs[i].text.len,
                            &runs[i].records, out_diags ? out_diags : &diags, &ji);
    tqh_diags_deinit(&diags);
  }
  for (size_t i = 0; !s && i < num_runs; i++) {
    for (size_t r = 0; !s && r < runs[i].records.count; r++) {
      const char *id = tqh_record_test_id(&runs[i].records.items[r]);
      for (size_t j = 0; !s && j <= i; j++) {
        size_t end = j == i ? r : runs[j].records.count;
        size_t hit = SIZE_MAX;
        for (size_t q = 0; q < end && hit == SIZE_MAX; q++)
          if (!strcmp(tqh_record_test_id(&runs[j].records.items[q]), id)) hit = q;
        if (hit == SIZE_MAX) continue;
        num_dups++;
        s = tq_buf_printf(&dups, "\n  %s (in %s and %s)", id, run_dirs[j], run_dirs[i]);
        break;
      }
    }
  }
  if (!s && num_dups)
    s = TQ_STATUS(TQ_INVALID_ARGUMENT,
                  "merge: %zu test id%s recorded by more than one run (shards must not "
                  "overlap):%s",
                  num_dups, num_dups == 1 ? " is" : "s are", dups.data);

  /* The new run: its folder and run.json, the tests' folders, the journal, the reports. */
  if (!s) s = tqh_results_create(options, info, &results);
  if (!s && !(run_dir = tq_strndup(tqh_results_run_dir(results),
                                   strlen(tqh_results_run_dir(results)))))
    s = oom();
  tqh_results_destroy(results);
  for (size_t i = 0; !s && i < num_runs; i++) {
    /* The lines that are records, whole: a corrupt or torn one (named above) is left out. */
    const char *t = runs[i].text.data;
    size_t len = runs[i].text.len;
    for (size_t pos = 0; !s && pos < len;) {
      const char *nl = memchr(t + pos, '\n', len - pos);
      size_t n = nl ? (size_t)(nl - (t + pos)) : len - pos;
      tqh_records_t one;
      tqh_records_init(&one);
      tq_status_t ps = n ? tqh__record_parse(&one, t + pos, n) : NULL;
      if (n && !ps) s = tq_buf_append(&journal, t + pos, n);
      if (n && !ps && !s) s = tq_buf_putc(&journal, '\n');
      if (ps && tq_status_code(ps) == TQ_OUT_OF_MEMORY)
        s = ps;
      else
        tq_status_free(ps);
      tqh_records_deinit(&one);
      pos += n + (nl ? 1 : 0);
    }
    for (size_t r = 0; !s && r < runs[i].records.count; r++) {
      const tqh_test_record_t *rec = &runs[i].records.items[r];
      if (out_counts && rec->outcome < TQH_OUTCOME_COUNT) out_counts[rec->outcome]++;
      tq_buf_t from, to;
      tq_buf_init(&from, 0);
      tq_buf_init(&to, 0);
      s = tq_buf_printf(&from, "%s/%s", run_dirs[i], rec->id);
      if (!s) s = tq_buf_printf(&to, "%s/%s", run_dir, rec->id);
      struct stat st;
      if (!s && tqh_results_id_is_safe(rec->id) && lstat(from.data, &st) == 0)
        s = tqh_link_tree(from.data, to.data);
      tq_buf_deinit(&from);
      tq_buf_deinit(&to);
    }
  }
  if (!s) {
    tq_buf_clear(&path);
    s = tq_buf_printf(&path, "%s/journal.jsonl", run_dir);
  }
  if (!s) s = tq_file_write_atomic(path.data, journal.data ? journal.data : "", journal.len);
  if (!s) {
    char *problems = NULL;
    s = tqh_results_rebuild(run_dir, options ? options->hostname : NULL, &problems);
    tq_free(problems);
  }
  if (!s) {
    *out_run_dir = run_dir;
    run_dir = NULL;
  }
  tq_free(run_dir);
  for (size_t i = 0; i < num_runs; i++) {
    tq_buf_deinit(&runs[i].text);
    tqh_records_deinit(&runs[i].records);
  }
  tq_free(runs);
  tq_buf_deinit(&path);
  tq_buf_deinit(&journal);
  tq_buf_deinit(&dups);
  return s;
}
