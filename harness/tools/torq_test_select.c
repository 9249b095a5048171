/* Which tests a torq-test run takes (torq_test.h): the suites loaded and checked all at once, a
 * warning for an -m name no suite uses, and pytest's --lf / --ff from the last run's journal. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "torq_test.h"
#include "torq/base/alloc.h"
#include "torq/base/file.h"
#include "torq/harness/diag.h"
#include "torq/harness/journal.h"

int tt_load_suites(const cli_t *cli, const tqh_config_t *cfg, tqh_suite_t ***out_suites,
                   size_t *out_count) {
  *out_suites = NULL;
  *out_count = 0;
  tqh_suite_t **suites = tq_calloc(cli->num_suites + 1, sizeof(*suites));
  if (!suites) return tt_fail(TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory"), EXIT_INFRA);
  tq_buf_t errors;
  tq_buf_init(&errors, 0);
  size_t n = 0;
  int bad = 0;
  for (size_t i = 0; i < cli->num_suites; i++) {
    tqh_suite_options_t so;
    tqh_suite_options_initialize(&so);
    so.config = cfg;
    tq_status_t s = tqh_suite_load(cli->suites[i], &so, &suites[n]);
    if (s) {
      bad = 1;
      const char *m = tq_status_message(s);
      tq_status_free(
          tq_buf_printf(&errors, "%s%s", m, *m && m[strlen(m) - 1] == '\n' ? "" : "\n"));
      tq_status_free(s);
      continue;
    }
    for (size_t k = 0; k < n; k++) {
      if (strcmp(suites[k]->name, suites[n]->name) != 0) continue;
      bad = 1;
      tq_status_free(tq_buf_printf(&errors,
                                   "%s: error: suite name '%s' is already used by %s; test ids "
                                   "must be unique in a run (give one a `suite:` name)\n",
                                   cli->suites[i], suites[k]->name, suites[k]->path));
    }
    n++;
  }
  *out_suites = suites;
  *out_count = n;
  if (bad) {
    fputs(errors.data ? errors.data : "", stderr);
    fprintf(stderr, TOOL ": bad suite%s: no test was run\n", cli->num_suites == 1 ? "" : "s");
  }
  tq_buf_deinit(&errors);
  return bad ? EXIT_USAGE : 0;
}

void tt_warn_unused_tags(const tqh_select_t *marker, tqh_suite_t *const *suites, size_t n) {
  size_t names = tqh_select_name_count(marker);
  if (!names) return;
  /* Every tag of the suites, once, for the check and the "did you mean". */
  size_t cap = 1;
  for (size_t i = 0; i < n; i++)
    for (size_t k = 0; k < suites[i]->test_count; k++) cap += suites[i]->tests[k].tag_count;
  const char **tags = tq_calloc(cap, sizeof(*tags));
  if (!tags) return;
  size_t count = 0;
  for (size_t i = 0; i < n; i++)
    for (size_t k = 0; k < suites[i]->test_count; k++)
      for (size_t t = 0; t < suites[i]->tests[k].tag_count; t++) {
        const char *tag = suites[i]->tests[k].tags[t];
        size_t j = 0;
        while (j < count && strcmp(tags[j], tag) != 0) j++;
        if (j == count) tags[count++] = tag;
      }
  for (size_t w = 0; w < names; w++) {
    char name[256];
    tqh_select_name(marker, w, name, sizeof(name));
    size_t j = 0;
    while (j < count && strcmp(tags[j], name) != 0) j++;
    if (j < count) continue;
    const char *near = tqh_did_you_mean(name, tags);
    fprintf(stderr, TOOL ": warning: -m: no test has the tag '%s'%s%s%s\n", name,
            near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
  }
  tq_free(tags);
}

/* The newest run folder under `root` with a journal (run ids sort by time), or NULL. */
static char *last_run(const char *root) {
  char **names = NULL;
  size_t n = 0;
  tq_status_t st = tq_dir_list(root, NULL, &names, &n);
  if (st) {
    tq_status_free(st);
    return NULL;
  }
  char *found = NULL;
  for (size_t i = n; i-- > 0 && !found;) {
    if (names[i][0] == '.') continue;
    size_t len = strlen(root) + strlen(names[i]) + 32;
    char *journal = tq_malloc(len);
    if (!journal) break;
    snprintf(journal, len, "%s/%s/journal.jsonl", root, names[i]);
    struct stat sb;
    if (stat(journal, &sb) == 0 && S_ISREG(sb.st_mode)) {
      snprintf(journal, len, "%s/%s", root, names[i]);
      found = journal;
    } else {
      tq_free(journal);
    }
  }
  tq_dir_list_free(names, n);
  return found;
}

int tt_select_last_failed(const cli_t *cli, FILE *out, const char *results_dir,
                          tqh_test_t **selected, size_t *num_selected) {
  const char *option = cli->last_failed ? "--lf" : "--ff";
  char *run = last_run(results_dir);
  if (!run) {
    if (cli->verbosity >= 0)
      fprintf(out, TOOL ": %s: no earlier run in %s; running the %zu selected test%s\n", option,
            results_dir, *num_selected, *num_selected == 1 ? "" : "s");
    return 0;
  }
  tqh_records_t list;
  tqh_records_init(&list);
  tqh_records_index_t index;
  memset(&index, 0, sizeof(index));
  tq_buf_t path;
  tq_buf_init(&path, 0);
  tqh_journal_read_t info;
  tq_status_t st = tq_buf_printf(&path, "%s/journal.jsonl", run);
  if (!st) st = tqh_journal_read(path.data, &list, NULL, &info);
  if (!st) st = tqh_records_index(&list, &index);
  tq_buf_deinit(&path);
  size_t n = *num_selected;
  tqh_test_t **sorted = st ? NULL : tq_calloc(n + 1, sizeof(*sorted));
  if (!st && !sorted) st = TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  if (st) {
    tq_free(run);
    tqh_records_index_deinit(&index);
    tqh_records_deinit(&list);
    return tt_fail(tq_status_annotate(st, "%s: the last run", option), EXIT_INFRA);
  }
  /* The tests that failed (or errored) there first, each group in its order. */
  size_t failed = 0, k = 0;
  for (int pass = 0; pass < 2; pass++)
    for (size_t i = 0; i < n; i++) {
      const tqh_test_record_t *r = tqh_records_find(&index, selected[i]->id);
      int bad = r && (r->outcome == TQH_OUTCOME_FAILED || r->outcome == TQH_OUTCOME_ERROR);
      if (bad != (pass == 0)) continue;
      sorted[k++] = selected[i];
      failed += bad;
    }
  if (!failed) {
    if (cli->verbosity >= 0)
      fprintf(out, TOOL ": %s: no selected test failed in the last run (%s); running all %zu\n",
            option, run, n);
  } else {
    if (cli->verbosity >= 0)
      fprintf(out, TOOL ": %s: %zu selected test%s failed in the last run (%s)%s\n", option, failed,
            failed == 1 ? "" : "s", run,
            cli->last_failed ? "; running only those" : "; running them first");
    memcpy(selected, sorted, n * sizeof(*selected));
    if (cli->last_failed) *num_selected = failed;
  }
  tq_free(sorted);
  tqh_records_index_deinit(&index);
  tqh_records_deinit(&list);
  tq_free(run);
  return 0;
}
