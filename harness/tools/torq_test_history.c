/* torq-test's run history (history.h): `history import|list|show`, `trends`, and what a run does
 * with the history when it ends (torq_test.h). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "torq_test.h"
#include "torq/base/alloc.h"
#include "torq/harness/select.h"
#include "torq/harness/trends.h"

tq_status_t tt_open_history(const tqh_config_t *cfg, int write, tqh_history_t **out) {
  *out = NULL;
  char *path = tqh_config_history_path(cfg);
  if (!path) return NULL; /* off */
  struct stat sb;
  if (!write && stat(path, &sb) != 0) {
    tq_free(path);
    return NULL;
  }
  tqh_history_options_t o;
  tqh_history_options_initialize(&o);
  o.read_only = !write;
  tq_status_t st = tqh_history_open(path, &o, out);
  tq_free(path);
  return st;
}

/* The trends page beside the history (heap). */
static char *trends_path(const char *history_path) {
  const char *slash = strrchr(history_path, '/');
  if (!slash) return tq_strdup_printf("%s", TQH_TRENDS_FILE);
  return tq_strdup_printf("%.*s/%s", (int)(slash - history_path), history_path, TQH_TRENDS_FILE);
}

/* `to` (a file) as a link from the folder `from`: relative when both resolve, else absolute. */
static char *href_from(const char *from, const char *to) {
  char a[PATH_MAX], b[PATH_MAX];
  const char *slash = strrchr(to, '/');
  char *dir = slash ? tq_strndup(to, (size_t)(slash - to)) : tq_strdup_printf(".");
  const char *name = slash ? slash + 1 : to;
  char *href = NULL;
  if (dir && realpath(from, a) && realpath(*dir ? dir : "/", b)) {
    size_t i = 0, common = 0;
    while (a[i] && a[i] == b[i]) {
      if (a[i] == '/') common = i;
      i++;
    }
    if (!a[i] && (!b[i] || b[i] == '/')) common = i; /* `to` is inside `from` */
    else if (!b[i] && a[i] == '/') common = i;
    tq_buf_t h;
    tq_buf_init(&h, 0);
    tq_status_t st = NULL;
    for (const char *p = a + common; *p && !st; p++)
      if (*p == '/') st = tq_buf_append_cstr(&h, "../");
    if (!st && b[common]) st = tq_buf_printf(&h, "%s/", b + common + 1);
    if (!st) st = tq_buf_append_cstr(&h, name);
    if (!st) href = tq_buf_detach(&h);
    tq_status_free(st);
    tq_buf_deinit(&h);
  }
  tq_free(dir);
  return href ? href : tq_strdup_printf("%s", to);
}

char *tt_trends_href(const tqh_config_t *cfg, const char *run_dir) {
  char *history = tqh_config_history_path(cfg);
  char *page = history ? trends_path(history) : NULL;
  struct stat sb;
  char *href = page && stat(page, &sb) == 0 ? href_from(run_dir, page) : NULL;
  tq_free(history);
  tq_free(page);
  return href;
}

char *tt_trends_href_of(tqh_history_t *history, const char *run_dir) {
  char *page = trends_path(tqh_history_path(history));
  char *href = page ? href_from(run_dir, page) : NULL;
  tq_free(page);
  return href;
}

static void report(const char *what, tq_status_t st) {
  char *text = tq_status_format(st, 0);
  fprintf(stderr, TOOL ": %s: %s\n", what, text ? text : tq_status_message(st));
  tq_free(text);
  tq_status_free(st);
}

static void after_run(const cli_t *cli, tqh_history_t *history, const char *run_dir,
                      const tqh_records_t *records, const char *const *shard_dirs,
                      size_t count, char **out_href) {
  *out_href = NULL;
  if (!history) return;
  int added = 0;
  size_t tests = 0;
  tq_status_t st = shard_dirs ? tqh_history_record_merged(history, run_dir, shard_dirs, count,
                                                          &added, &tests)
                              : tqh_history_record_run(history, run_dir, records, &added,
                                                       &tests);
  if (st) {
    report("history: this run is not recorded", st);
    return;
  }
  char *page = trends_path(tqh_history_path(history));
  tqh_trends_summary_t sum;
  st = page ? tqh_trends_write(history, NULL, page, &sum)
            : TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  if (st) {
    report("the trends page was not written", st);
  } else {
    *out_href = href_from(run_dir, page);
    /* With --json on stdout, stdout holds the document alone. */
    if (cli->verbosity >= 0)
      fprintf(cli->json && !*cli->json ? stderr : stdout,
              "History: %zu test%s recorded in %s; trends: %s\n", tests, tests == 1 ? "" : "s",
             tqh_history_path(history), page);
  }
  tq_free(page);
}

void tt_history_after_run(const cli_t *cli, tqh_history_t *history, const char *run_dir,
                          const tqh_records_t *records, char **out_href) {
  after_run(cli, history, run_dir, records, NULL, 0, out_href);
}

void tt_history_after_merge(const cli_t *cli, tqh_history_t *history, const char *run_dir,
                            const char *const *shard_dirs, size_t count, char **out_href) {
  after_run(cli, history, run_dir, NULL, shard_dirs, count, out_href);
}

/* --last N: 0 when not given. */
static int parse_last(const cli_t *cli, size_t *out) {
  *out = 0;
  if (!cli->last) return 0;
  char *end = NULL;
  errno = 0;
  long long v = strtoll(cli->last, &end, 10);
  if (*end || errno || v < 1 || v > 1000000)
    return bad_usage("--last=%s: expected a number of runs from 1 to 1000000", cli->last);
  *out = (size_t)v;
  return 0;
}

static void date_of(double t, char out[32]) {
  time_t s = (time_t)t;
  struct tm tm;
  if (t > 0 && gmtime_r(&s, &tm))
    strftime(out, 32, "%Y-%m-%d %H:%M:%S", &tm);
  else
    snprintf(out, 32, "-");
}

/* ---- A small aligned table ------------------------------------------------------------------ */

/* Width in characters, not bytes ("±", "µs"). */
static size_t chars(const char *s) {
  size_t w = 0;
  for (; *s; s++) w += ((unsigned char)*s & 0xC0) != 0x80;
  return w;
}

/* The cells are borrowed. One line buffer for the whole table. */
static void print_table(const char *const *cells, size_t rows, size_t cols, const int *right) {
  size_t w[20] = {0};
  for (size_t r = 0; r < rows; r++)
    for (size_t c = 0; c < cols; c++) {
      size_t n = chars(cells[r * cols + c] ? cells[r * cols + c] : "");
      if (n > w[c]) w[c] = n;
    }
  tq_buf_t line;
  tq_buf_init(&line, 0);
  for (size_t r = 0; r < rows; r++) {
    tq_buf_clear(&line);
    for (size_t c = 0; c < cols; c++) {
      const char *s = cells[r * cols + c] ? cells[r * cols + c] : "";
      size_t pad = w[c] - chars(s);
      tq_status_free(tq_buf_printf(&line, "%s%*s%s%*s", c ? "  " : "", right[c] ? (int)pad : 0,
                                   "", s, right[c] || c + 1 == cols ? 0 : (int)pad, ""));
    }
    while (line.len && line.data[line.len - 1] == ' ') line.data[--line.len] = 0;
    fwrite(line.data ? line.data : "", 1, line.len, stdout);
    fputc('\n', stdout);
  }
  tq_buf_deinit(&line);
}

/* ---- history list ----------------------------------------------------------------------------- */

static int history_list(const cli_t *cli, tqh_history_t *h) {
  size_t last = 0;
  int rc = parse_last(cli, &last);
  if (rc) return rc;
  tq_arena_t a;
  tq_arena_init(&a, 0, 0);
  tqh_history_run_t *runs = NULL;
  size_t n = 0;
  tq_status_t st = tqh_history_list_runs(h, last, &a, &runs, &n);
  if (st) {
    tq_arena_deinit(&a);
    return tt_fail(st, EXIT_INFRA);
  }
  enum { COLS = 8 };
  static const int right[COLS] = {0, 0, 0, 0, 1, 1, 1, 0};
  char **cells = tq_calloc((n + 1) * COLS, sizeof(char *));
  static const char *const heads[COLS] = {"RUN",    "STARTED", "REVISION", "TARGET",
                                          "TESTS",  "PASSED",  "FAILED",   "SUITES"};
  for (size_t c = 0; cells && c < COLS; c++) cells[c] = tq_strdup_printf("%s", heads[c]);
  for (size_t i = 0; cells && i < n; i++) {
    char d[32];
    date_of(runs[i].started_at, d);
    char **row = cells + (i + 1) * COLS;
    row[0] = tq_strdup_printf("%s", runs[i].run_id);
    row[1] = tq_strdup_printf("%s", d);
    row[2] = tq_strdup_printf("%.12s", runs[i].git_revision ? runs[i].git_revision : "-");
    row[3] = tq_strdup_printf("%s", runs[i].target ? runs[i].target : "-");
    row[4] = tq_strdup_printf("%zu", runs[i].tests);
    row[5] = tq_strdup_printf("%zu", runs[i].counts[TQH_OUTCOME_PASSED]);
    row[6] = tq_strdup_printf("%zu", runs[i].counts[TQH_OUTCOME_FAILED] +
                                         runs[i].counts[TQH_OUTCOME_ERROR]);
    row[7] = tq_strdup_printf("%s", runs[i].suites ? runs[i].suites : "");
  }
  if (cells) print_table((const char *const *)cells, n + 1, COLS, right);
  for (size_t i = 0; cells && i < (n + 1) * COLS; i++) tq_free(cells[i]);
  tq_free(cells);
  printf("%zu run%s in %s\n", n, n == 1 ? "" : "s", tqh_history_path(h));
  tq_arena_deinit(&a);
  return 0;
}

/* ---- history show ----------------------------------------------------------------------------- */

/* A metric's cell, in the arena: its value, and for a measured time "± MAD (n=...)". */
static const char *value_cell(tq_arena_t *a, const tqh_history_entry_t *e, const char *metric) {
  const tqh_history_metric_t *m = tqh_history_entry_metric(e, metric);
  if (!m) return tq_arena_strndup(a, "-", 1);
  char v[48], cell[128];
  tqh_baseline_format_value(m->value, m->unit, v);
  int len = snprintf(cell, sizeof(cell), "%s", v);
  if (m->sample_count > 1) {
    double local[64];
    double *c = m->sample_count <= 64 ? local : tq_calloc(m->sample_count, sizeof(double));
    if (c) {
      for (size_t i = 0; i < m->sample_count; i++) c[i] = fabs(m->samples[i] - m->value);
      double mad = tqh_stats_median_inplace(c, m->sample_count);
      if (c != local) tq_free(c);
      char d[48];
      tqh_baseline_format_value(mad, m->unit, d);
      len = snprintf(cell, sizeof(cell), "%s ±%s (n=%zu)", v, d, m->sample_count);
    }
  }
  return tq_arena_strndup(a, cell, len > 0 ? (size_t)len : 0);
}

static int show_one(const cli_t *cli, tqh_history_t *h, const tqh_history_key_t *key,
                    size_t last) {
  tq_arena_t a;
  tq_arena_init(&a, 0, 0);
  /* The latest run with all its metrics (what else there is to ask for), then every run with
   * the table's: the measured times and each --metric. */
  tqh_history_entry_t *latest = NULL, *e = NULL;
  size_t nl = 0, n = 0;
  const char *want[16] = {"wall_time", "device_time"};
  size_t nwant = 2;
  for (size_t k = 0; k < cli->num_metrics && nwant < 14; k++) want[nwant++] = cli->metrics[k];
  tq_status_t st = tqh_history_entries(h, key, 1, 0, NULL, NULL, 0, &a, &latest, &nl);
  if (!st) st = tqh_history_entries(h, key, last, 0, NULL, want, nwant, &a, &e, &n);
  if (st) {
    tq_arena_deinit(&a);
    return tt_fail(st, EXIT_INFRA);
  }
  /* Columns: the run, then the measured times it has, then each --metric. */
  const char *cols_metric[16];
  size_t nm = 0;
  for (size_t t = 0; t < 2; t++)
    for (size_t i = 0; i < n; i++)
      if (tqh_history_entry_metric(&e[i], want[t])) {
        cols_metric[nm++] = want[t];
        break;
      }
  for (size_t k = 2; k < nwant; k++) cols_metric[nm++] = want[k];
  size_t cols = 4 + nm;
  int right[20] = {0};
  for (size_t c = 4; c < cols; c++) right[c] = 1;
  /* The cells live in the arena (the entries' own strings where they can). */
  const char **cells = tq_arena_calloc(&a, (n + 1) * cols, sizeof(char *));
  static const char *const heads[4] = {"RUN", "STARTED", "REVISION", "OUTCOME"};
  for (size_t c = 0; cells && c < cols; c++) cells[c] = c < 4 ? heads[c] : cols_metric[c - 4];
  for (size_t i = 0; cells && i < n; i++) {
    char d[32];
    date_of(e[i].run.started_at, d);
    const char **row = cells + (i + 1) * cols;
    const char *rev = e[i].run.git_revision ? e[i].run.git_revision : "-";
    row[0] = e[i].run.run_id;
    row[1] = tq_arena_strndup(&a, d, strlen(d));
    row[2] = tq_arena_strndup(&a, rev, strnlen(rev, 12));
    row[3] = e[i].outcome;
    for (size_t m = 0; m < nm; m++) row[4 + m] = value_cell(&a, &e[i], cols_metric[m]);
  }
  printf("%s/%s on %s: %zu run%s\n", key->suite, key->name, key->target, n, n == 1 ? "" : "s");
  if (cells) print_table(cells, n + 1, cols, right);
  tq_buf_t names;
  tq_buf_init(&names, 0);
  for (size_t m = 0; nl && m < latest[0].metric_count; m++)
    tq_status_free(tq_buf_printf(&names, "%s%s", m ? ", " : "", latest[0].metrics[m].name));
  int missing = 0;
  for (size_t k = 2; k < nwant; k++) {
    int seen = 0;
    for (size_t i = 0; i < n && !seen; i++) seen = tqh_history_entry_metric(&e[i], want[k]) != NULL;
    if (!seen) {
      fprintf(stderr, TOOL ": history show: %s/%s has no metric '%s' (it has: %s)\n", key->suite,
              key->name, want[k], names.data ? names.data : "none");
      missing = 1;
    }
  }
  if (names.len) printf("metrics: %s (add one with --metric NAME)\n", names.data);
  tq_buf_deinit(&names);
  tq_arena_deinit(&a);
  return missing ? EXIT_USAGE : 0;
}

static int history_show(const cli_t *cli, tqh_history_t *h) {
  size_t last = 0;
  int rc = parse_last(cli, &last);
  if (rc) return rc;
  const char *id = cli->suites[0];
  tq_arena_t a;
  tq_arena_init(&a, 0, 0);
  tqh_history_key_t *keys = NULL;
  size_t n = 0;
  tq_status_t st = tqh_history_find_tests(h, id, &a, &keys, &n);
  if (st) {
    tq_arena_deinit(&a);
    return tt_fail(st, EXIT_INFRA);
  }
  if (!n) {
    fprintf(stderr, TOOL ": history show: no test '%s' in %s (give SUITE/TEST; `" TOOL
                    " history list` lists the runs)\n",
            id, tqh_history_path(h));
    tq_arena_deinit(&a);
    return EXIT_USAGE;
  }
  for (size_t i = 1; i < n; i++) {
    if (strcmp(keys[i].suite, keys[0].suite) != 0) {
      fprintf(stderr, TOOL ": history show: '%s' is in more than one suite; give one of:\n", id);
      for (size_t k = 0; k < n; k++) fprintf(stderr, "  %s/%s\n", keys[k].suite, keys[k].name);
      tq_arena_deinit(&a);
      return EXIT_USAGE;
    }
  }
  for (size_t i = 0; i < n && !rc; i++) {
    if (i) printf("\n");
    rc = show_one(cli, h, &keys[i], last);
  }
  tq_arena_deinit(&a);
  return rc;
}

/* ---- history import, the dispatch ------------------------------------------------------------ */

static int history_import(const cli_t *cli, tqh_history_t *h) {
  int rc = 0;
  for (size_t i = 0; i < cli->num_suites; i++) {
    int added = 0;
    size_t tests = 0;
    tq_status_t st = tqh_history_record_dir(h, cli->suites[i], &added, &tests);
    if (st) {
      tq_status_code_t code = tq_status_code(st);
      report("history import", st);
      int worst = code == TQ_NOT_FOUND || code == TQ_INVALID_INPUT ? EXIT_USAGE : EXIT_INFRA;
      if (worst > rc) rc = worst;
      continue;
    }
    if (added)
      printf("Imported %s: %zu test%s\n", cli->suites[i], tests, tests == 1 ? "" : "s");
    else
      printf("Skipped %s: that run is in the history already\n", cli->suites[i]);
  }
  char *page = trends_path(tqh_history_path(h));
  tq_status_t st = page ? tqh_trends_write(h, NULL, page, NULL) : NULL;
  if (st) report("the trends page was not written", st);
  tq_free(page);
  return rc;
}

/* Opens the history for a subcommand: a missing one is usage (nothing to show yet). */
static int open_for(const cli_t *cli, int write, tqh_config_t **cfg, tqh_history_t **h) {
  *cfg = NULL;
  *h = NULL;
  tq_status_t st = tt_build_config(cli, cfg);
  if (st) return tt_fail(st, EXIT_USAGE);
  if ((st = tt_open_history(*cfg, write, h))) return tt_fail(st, EXIT_USAGE);
  if (!*h) {
    char *path = tqh_config_history_path(*cfg);
    fprintf(stderr,
            TOOL ": no run history at %s yet: runs record themselves there, and `" TOOL
                 " history import RUN_DIR...` adds earlier ones\n",
            path ? path : "(off)");
    tq_free(path);
    return EXIT_USAGE;
  }
  return 0;
}

int tt_run_history(const cli_t *cli, int argc, char **argv) {
  (void)argc, (void)argv;
  tqh_config_t *cfg = NULL;
  tqh_history_t *h = NULL;
  int write = !strcmp(cli->history_cmd, "import");
  int rc = open_for(cli, write, &cfg, &h);
  if (!rc) {
    if (write)
      rc = history_import(cli, h);
    else if (!strcmp(cli->history_cmd, "list"))
      rc = history_list(cli, h);
    else
      rc = history_show(cli, h);
  }
  tqh_history_close(h);
  tqh_config_destroy(cfg);
  return rc;
}

int tt_run_trends(const cli_t *cli, int argc, char **argv) {
  (void)argc, (void)argv;
  tqh_trends_options_t o;
  tqh_trends_options_initialize(&o);
  size_t last = 0;
  int rc = parse_last(cli, &last);
  if (rc) return rc;
  if (last) o.last = last;
  tqh_select_t *keyword = NULL;
  tq_status_t st = NULL;
  if (cli->keyword && (st = tqh_select_parse(cli->keyword, TQH_SELECT_KEYWORD, "-k", &keyword)))
    return tt_fail(st, EXIT_USAGE);
  o.keyword = keyword;
  tqh_config_t *cfg = NULL;
  tqh_history_t *h = NULL;
  rc = open_for(cli, 0, &cfg, &h);
  char *page = NULL;
  if (!rc) page = cli->output ? tq_strdup_printf("%s", cli->output) : trends_path(tqh_history_path(h));
  tqh_trends_summary_t sum;
  if (!rc && page && (st = tqh_trends_write(h, &o, page, &sum))) rc = tt_fail(st, EXIT_INFRA);
  if (!rc && page)
    printf("Trends of %zu test%s (%zu charts, %zu change point%s): %s\n", sum.tests,
           sum.tests == 1 ? "" : "s", sum.charts, sum.change_points,
           sum.change_points == 1 ? "" : "s", page);
  if (!rc && !sum.tests && cli->keyword)
    fprintf(stderr, TOOL ": trends: no test of the history matches -k '%s'\n", cli->keyword);
  tq_free(page);
  tqh_select_destroy(keyword);
  tqh_history_close(h);
  tqh_config_destroy(cfg);
  return rc;
}
