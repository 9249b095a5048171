/* torq-test's subcommands (report, compare, merge, upload), the configuration it builds, and the
 * upload, HTML report and JSON document around a run (torq_test.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "torq_test.h"
#include "torq/base/alloc.h"
#include "torq/base/file.h"
#include "torq/base/version.h"
#include "torq/harness/html_report.h"
#include "torq/harness/journal.h"
#include "torq/harness/run_json.h"
#include "torq/harness/shard.h"
#include "torq/harness/toolchain.h"
/* Writes RUN_DIR/index.html (html_report.h). The run's results are complete without it, so a
 * failure is reported and leaves the exit status alone; 1 when it was written. */
tq_status_t tt_html_report(const char *run_dir, const tqh_records_t *records,
                           tqh_baseline_t *baseline, const char *trends_href) {
  tqh_diags_t diags;
  tqh_diags_init(&diags);
  tq_status_t st = tqh_html_report_write_records(run_dir, records, baseline, trends_href, &diags);
  tqh_diags_deinit(&diags);
  return st;
}

int tt_html_report_done(tq_status_t st) {
  if (!st) return 1;
  char *text = tq_status_format(st, 0);
  fprintf(stderr, TOOL ": the HTML report was not written: %s\n",
          text ? text : tq_status_message(st));
  free(text);
  tq_status_free(st);
  return 0;
}

int tt_write_html_report(const char *run_dir, const tqh_records_t *records,
                         tqh_baseline_t *baseline, const char *trends_href) {
  return tt_html_report_done(tt_html_report(run_dir, records, baseline, trends_href));
}

/* Each line of `text` on stderr after "torq-test: WHAT: "; the number of lines. */
static size_t print_lines(const char *what, const char *text) {
  size_t n = 0;
  for (const char *line = text; line && *line;) {
    const char *nl = strchr(line, '\n');
    size_t len = nl ? (size_t)(nl - line) : strlen(line);
    fprintf(stderr, TOOL ": %s: %.*s\n", what, (int)len, line);
    n++;
    line += len + (nl ? 1 : 0);
  }
  return n;
}

size_t tt_print_journal_problems(const char *what, const tqh_diags_t *diags) {
  if (!diags || !diags->count) return 0;
  tq_buf_t text;
  tq_buf_init(&text, 0);
  tq_status_t st = tqh_diags_format(diags, &text);
  size_t n = st ? 0 : print_lines(what, text.data);
  tq_status_free(st);
  tq_buf_deinit(&text);
  return n;
}

void tt_print_baseline_problems(const tqh_baseline_t *baseline) {
  if (baseline) print_lines("baseline", tqh_baseline_problems(baseline));
}

/* The run id in RUN_DIR/run.json, as the folder's name says it (heap). */
static char *run_id_of_dir(const char *run_dir) {
  const char *slash = strrchr(run_dir, '/');
  while (slash && !slash[1] && slash > run_dir) { /* "results/RUN/" */
    const char *p = slash - 1;
    while (p > run_dir && *p != '/') p--;
    if (*p == '/') return tq_strndup(p + 1, (size_t)(slash - p - 1));
    return tq_strndup(run_dir, (size_t)(slash - run_dir));
  }
  return tq_strdup_printf("%s", slash ? slash + 1 : run_dir);
}

/* Writes `text` to `path`, or to stdout when `path` is "". 0, or EXIT_INFRA (reported). */
static int put_json(const char *path, const tq_buf_t *text) {
  if (!*path) {
    fwrite(text->data ? text->data : "", 1, text->len, stdout);
    fflush(stdout);
    return 0;
  }
  tq_status_t st = tq_file_write_atomic(path, text->data ? text->data : "", text->len);
  if (st) return tt_fail(tq_status_annotate(st, "--json=%s", path), EXIT_INFRA);
  return 0;
}

int tt_write_json(const char *path, const char *run_dir, tqh_baseline_t *baseline) {
  tq_buf_t text;
  tq_buf_init(&text, 0);
  tq_status_t st = tqh_run_json(run_dir, baseline, NULL, &text);
  int rc = st ? tt_fail(st, EXIT_INFRA) : put_json(path, &text);
  tq_buf_deinit(&text);
  return rc;
}

int tt_run_report(const cli_t *cli, int argc, char **argv) {
  (void)argc, (void)argv;
  tqh_baseline_t *baseline = NULL;
  tqh_history_t *history = NULL;
  char *problems = NULL, *href = NULL;
  tqh_config_t *cfg = NULL;
  tqh_summary_options_t so;
  tqh_summary_options_initialize(&so);
  so.brief = cli->verbosity < 0;
  if (cli->overview && !tqh_overview_shown_parse(cli->overview, &so.overview))
    return bad_usage("--overview=%s: expected all, failed or none", cli->overview);
  if (cli->sort && !tqh_summary_order_parse(cli->sort, &so.order))
    return bad_usage("--sort=%s: expected run, id, duration or outcome", cli->sort);
  if (cli->durations) {
    char *end = NULL;
    unsigned long long n = strtoull(cli->durations, &end, 10);
    if (!*cli->durations || *end || cli->durations[0] == '-')
      return bad_usage("--durations=%s: expected a whole number", cli->durations);
    so.durations = n ? (size_t)n : SIZE_MAX;
  }
  FILE *out = cli->json && !*cli->json ? stderr : stdout;
  tq_status_t st = tt_build_config(cli, &cfg);
  if (st) return tt_fail(st, EXIT_USAGE);
  if (cli->baseline) {
    tqh_baseline_options_t bo;
    tt_baseline_options(cfg, &bo);
    st = tt_open_history(cfg, 0, &history);
    if (!st) st = tqh_baseline_load(cli->baseline, &bo, history, &baseline);
    char *id = st ? NULL : run_id_of_dir(cli->report_dir);
    if (!st) st = tqh_baseline_set_now(baseline, 0, id);
    tq_free(id);
    if (st) {
      tqh_baseline_destroy(baseline);
      tqh_history_close(history);
      tqh_config_destroy(cfg);
      return tt_fail(st, EXIT_USAGE);
    }
    tt_print_baseline_problems(baseline);
  }
  href = tt_trends_href(cfg, cli->report_dir);
  st = tqh_results_rebuild(cli->report_dir, NULL, &problems);
  size_t bad = 0; /* journal lines that could not be read: named, and the exit status says so */
  if (problems) {
    fputs(problems, stderr);
    for (const char *c = problems; *c; c++) bad += *c == '\n';
    tq_free(problems);
  }
  int html = !st && tt_write_html_report(cli->report_dir, NULL, baseline, href);
  tq_free(href);
  if (st) {
    tqh_baseline_destroy(baseline);
    tqh_history_close(history);
    tqh_config_destroy(cfg);
    return tt_fail(st, tq_status_code(st) == TQ_NOT_FOUND ? EXIT_USAGE : EXIT_INFRA);
  }
  /* The summary as asked (by default, summary.txt's text). */
  tq_buf_t path, text;
  tq_buf_init(&path, 0);
  tq_buf_init(&text, 0);
  tqh_records_t list;
  tqh_records_init(&list);
  tqh_journal_read_t ji;
  size_t *order = NULL, count = 0;
  st = tq_buf_printf(&path, "%s/journal.jsonl", cli->report_dir);
  if (!st) st = tqh_journal_read(path.data, &list, NULL, &ji);
  if (!st) st = tqh_records_latest(&list, &order, &count);
  tqh_test_record_t *shown = st ? NULL : tq_calloc(count + 1, sizeof(*shown));
  for (size_t k = 0; shown && k < count; k++) shown[k] = list.items[order[k]];
  if (!st) st = shown ? tqh_summary_render(shown, count, &so, &text)
                      : TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  if (!st && text.data) fputs(text.data, out);
  tq_free(shown);
  tq_free(order);
  tqh_records_deinit(&list);
  tq_buf_deinit(&text);
  tq_buf_deinit(&path);
  if (st) {
    tqh_baseline_destroy(baseline);
    tqh_history_close(history);
    tqh_config_destroy(cfg);
    return tt_fail(st, EXIT_INFRA);
  }
  if (cli->verbosity >= 0)
    fprintf(out, "Rebuilt %s/junit.xml, %s/summary.txt%s%s%s from the journal.\n",
            cli->report_dir, cli->report_dir, html ? " and " : "", html ? cli->report_dir : "",
            html ? "/" TQH_HTML_REPORT_FILE : "");
  if (bad)
    fprintf(stderr,
            TOOL
            ": report: %zu line%s of the journal could not be read (named above): the "
            "reports hold the other tests, and not %s\n",
            bad, bad == 1 ? "" : "s", bad == 1 ? "that one" : "those");
  int rc = html && !bad ? 0 : EXIT_INFRA;
  if (cli->json) {
    int jrc = tt_write_json(cli->json, cli->report_dir, baseline);
    if (jrc && !rc) rc = jrc;
  }
  tqh_baseline_destroy(baseline);
  tqh_history_close(history);
  tqh_config_destroy(cfg);
  return rc;
}

const char *tt_upload_spec(const cli_t *cli, tq_buf_t *buf) {
  if (cli->upload) return cli->upload;
  const char *server = getenv(TQH_DASHBOARD_SERVER_ENV);
  if (!server || !*server) return NULL;
  tq_buf_clear(buf);
  tq_status_t st = tq_buf_printf(buf, TQH_DASHBOARD_SCHEME "%s", server);
  if (st) {
    tq_status_free(st);
    return NULL;
  }
  return buf->data;
}

/* The upload options of the command line; `url` overrides --upload. Bad values are usage. */
int tt_upload_options(const cli_t *cli, const char *url, tqh_upload_options_t *o) {
  tqh_upload_options_initialize(o);
  o->url = url;
  o->profiles = cli->upload_profiles;
  int dashboard = tqh_upload_protocol(url, NULL) == TQH_UPLOAD_DASHBOARD;
  tq_status_t st = tqh_upload_check_url(url);
  if (st) {
    int rc = cli->upload ? bad_usage("--upload: %s", tq_status_message(st))
                         : bad_usage(TQH_DASHBOARD_SERVER_ENV ": %s", tq_status_message(st));
    tq_status_free(st);
    return rc;
  }
  if (cli->upload_timeout) {
    if ((st = tt_parse_seconds("--upload-timeout", NULL, cli->upload_timeout, &o->timeout_s)))
      return tt_fail(st, EXIT_USAGE);
    o->grace_s = o->timeout_s;
  }
  if (cli->upload_batch) {
    char *end = NULL;
    unsigned long n = strtoul(cli->upload_batch, &end, 10);
    if (!*cli->upload_batch || *end || n < 1 || n > 10000 || cli->upload_batch[0] == '-')
      return bad_usage("--upload-batch=%s: expected a number of tests from 1 to 10000",
                       cli->upload_batch);
    o->batch_tests = (unsigned)n;
  }
  const char *env = cli->upload_token_env ? cli->upload_token_env
                    : dashboard           ? TQH_DASHBOARD_TOKEN_ENV
                                          : TQH_UPLOAD_TOKEN_ENV;
  o->token = getenv(env);
  if (cli->upload_token_env && (!o->token || !*o->token))
    return bad_usage("--upload-token-env=%s: that variable is not set", env);
  return 0;
}

/* One line about what an upload left (never the token; the URL without its password). */
void tt_print_upload_report(const char *run_dir, const char *url, const tqh_upload_report_t *r) {
  char *shown = tqh_upload_display_url(url);
  if (!r->remaining)
    printf("Upload: everything sent to %s\n", shown ? shown : "the server");
  else
    fprintf(stderr,
            TOOL ": upload: %zu item%s not sent to %s (%s); they are kept: " TOOL " upload %s\n",
            r->remaining, r->remaining == 1 ? "" : "s", shown ? shown : "the server",
            r->last_error[0] ? r->last_error : "no time left", run_dir);
  tq_free(shown);
}

/* `torq-test upload RUN_DIR`: sends the backlog (made from the journal for a run that had no
 * --upload). 0 when nothing is left, EXIT_INFRA otherwise. */
int tt_run_upload(const cli_t *cli, int argc, char **argv) {
  (void)argc, (void)argv;
  char *recorded = NULL;
  int profiles = 0;
  tq_status_t st = tqh_upload_outbox_url(cli->upload_dir, &recorded, &profiles);
  if (st) return tt_fail(st, EXIT_INFRA);
  /* --upload, else where the run uploads, else TORQ_PERF_SERVER's dashboard. */
  tq_buf_t env_spec;
  tq_buf_init(&env_spec, 0);
  const char *url = cli->upload ? cli->upload : recorded ? recorded : tt_upload_spec(cli, &env_spec);
  if (!url) {
    tq_free(recorded);
    return bad_usage("%s/upload/url names no server: give --upload=URL", cli->upload_dir);
  }
  tqh_upload_options_t o;
  int rc = tt_upload_options(cli, url, &o);
  o.profiles = o.profiles || (profiles && !cli->upload);
  tq_buf_t journal;
  tq_buf_init(&journal, 0);
  if (!rc && !(st = tq_buf_printf(&journal, "%s/journal.jsonl", cli->upload_dir)) &&
      access(journal.data, R_OK) != 0)
    rc = bad_usage("%s is not a run folder (no journal.jsonl)", cli->upload_dir);
  tq_buf_deinit(&journal);
  if (!rc && !st && (cli->upload || !recorded)) st = tqh_upload_outbox_create(cli->upload_dir, &o);
  tqh_diags_t diags;
  tqh_diags_init(&diags);
  if (!rc && !st) st = tqh_upload_outbox_fill(cli->upload_dir, &diags);
  tt_print_journal_problems("upload", &diags);
  tqh_diags_deinit(&diags);
  tqh_upload_report_t r;
  if (!rc && !st && !(st = tqh_upload_send_backlog(cli->upload_dir, &o, 0, &r))) {
    if (cli->verbosity >= 0 || r.remaining)
      printf("Upload: %zu item%s sent\n", r.sent, r.sent == 1 ? "" : "s");
    tt_print_upload_report(cli->upload_dir, url, &r);
    rc = r.remaining ? EXIT_INFRA : 0;
  }
  tq_free(recorded);
  tq_buf_deinit(&env_spec);
  if (st) return tt_fail(st, EXIT_INFRA);
  return rc;
}

/* `merge --upload=`: the Torq dashboard alone takes a merged run. A usage status, else 0. */
static int merge_upload_check(const cli_t *cli) {
  if (!cli->upload) return 0;
  if (tqh_upload_protocol(cli->upload, NULL) != TQH_UPLOAD_DASHBOARD)
    return bad_usage("merge --upload=%s: only the Torq dashboard (--upload=" TQH_DASHBOARD_SCHEME
                     "URL) takes a merged run", cli->upload);
  tq_status_t st = tqh_upload_check_url(cli->upload);
  if (!st) return 0;
  int rc = bad_usage("--upload: %s", tq_status_message(st));
  tq_status_free(st);
  return rc;
}

/* After `merge`: the Torq dashboard's session of the shards is closed (tqh_upload_merge), and
 * the tests of shards that uploaded nothing are sent. Returns 0, or EXIT_INFRA when something is
 * left in the merged run's backlog (reported). */
static int merge_upload(const cli_t *cli, const char *run_dir) {
  char *url = NULL;
  tq_status_t st = tqh_upload_merge(run_dir, cli->suites, cli->num_suites, cli->upload, &url);
  if (st) {
    char *text = tq_status_format(st, 0);
    fprintf(stderr, TOOL ": upload: %s\n", text ? text : "error");
    tq_free(text);
    tq_status_free(st);
    return EXIT_INFRA;
  }
  if (!url) return 0;
  tqh_upload_options_t o;
  int rc = tt_upload_options(cli, url, &o);
  tqh_upload_report_t r;
  if (!rc && !(st = tqh_upload_send_backlog(run_dir, &o, 0, &r))) {
    tt_print_upload_report(run_dir, url, &r);
    rc = r.remaining ? EXIT_INFRA : 0;
  } else if (st) {
    rc = tt_fail(st, EXIT_INFRA);
  }
  tq_free(url);
  return rc;
}

/* A --config or TORQ_CONFIG path (`from`); one that cannot be read is an error in `errors`. */
static tq_status_t load_config_path(tqh_config_t *cfg, const char *path, const char *from,
                                    tqh_diags_t *errors) {
  struct stat sb;
  if (stat(path, &sb) != 0) {
    tqh_diags_add(errors, TQH_ERROR, path, 0, "cannot read this configuration (%s): %s", from,
                  strerror(errno));
    return TQ_STATUS(TQ_INVALID_ARGUMENT, "%s: cannot read %s", from, path);
  }
  return tqh_config_load_path(cfg, path, errors);
}

char *tt_project_of(const cli_t *cli) {
  char *project = NULL;
  tq_status_t st = tqh_config_find_project(cli->num_suites && cli->command != TT_MERGE &&
                                                   cli->command != TT_REPORT &&
                                                   cli->command != TT_COMPARE &&
                                                   cli->command != TT_UPLOAD
                                               ? cli->suites[0]
                                               : ".",
                                           &project);
  tq_status_free(st);
  return project;
}

/* The configuration: built-in, the project's configs/, TORQ_CONFIG, --config, the environment,
 * then the command line. */
tq_status_t tt_build_config(const cli_t *cli, tqh_config_t **out_cfg) {
  *out_cfg = NULL;
  tqh_config_t *cfg = NULL;
  TQ_TRY(tqh_config_create(&cfg));
  tqh_diags_t errors;
  tqh_diags_init_max(&errors, TQH_ERRORS_DEFAULT_MAX);
  tq_status_t st1 = NULL, st2 = NULL;
  char *project = tt_project_of(cli);
  if (project) st1 = tqh_config_load_project(cfg, project, &errors);
  tq_free(project);
  /* TORQ_CONFIG: files or folders, ':'-separated; then each --config. */
  const char *env = getenv("TORQ_CONFIG");
  char *list = env && *env ? tq_strndup(env, strlen(env)) : NULL;
  char *save = NULL;
  for (char *p = list ? strtok_r(list, ":", &save) : NULL; p; p = strtok_r(NULL, ":", &save)) {
    tq_status_t s = load_config_path(cfg, p, "TORQ_CONFIG", &errors);
    if (!st1) st1 = s;
    else tq_status_free(s);
  }
  tq_free(list);
  for (size_t i = 0; i < cli->num_configs; i++) {
    tq_status_t s = load_config_path(cfg, cli->configs[i], "--config", &errors);
    if (!st1) st1 = s;
    else tq_status_free(s);
  }
  st2 = tqh_config_apply_env(cfg, NULL, &errors);
  tq_status_t st = NULL;
  /* All configuration errors at once: the files', the environment's, then the options'. */
  if (st1 && tq_status_code(st1) != TQ_INVALID_ARGUMENT) {
    st = st1;
    st1 = NULL;
  } else if (st1 || st2) {
    tq_buf_t text;
    tq_buf_init(&text, 0);
    tq_status_t fst = tqh_diags_format_report(&errors, &text);
    st = fst ? fst : TQ_STATUS(TQ_INVALID_ARGUMENT, "%s", text.data ? text.data : "");
    tq_buf_deinit(&text);
  }
  tq_status_free(st1);
  tq_status_free(st2);
  tqh_diags_deinit(&errors);
  const struct {
    const char *key, *value, *option;
  } sets[] = {{"repeat", cli->repeat, "--repeat"},
              {"warmup", cli->warmup, "--warmup"},
              {"jobs", cli->jobs, "-j"},
              {"results_dir", cli->results_dir, "--results-dir"},
              {"baseline_floor", cli->baseline_floor, "--baseline-floor"},
              {"history", cli->history, "--history"},
              {"history", cli->no_history ? "off" : NULL, "--no-history"},
              {"toolchain", cli->toolchain, "--toolchain"},
              {"toolchain_compile", cli->tool_compile, "--toolchain-compile"},
              {"toolchain_run", cli->tool_run, "--toolchain-run"},
              {"toolchain_annotate", cli->tool_annotate, "--toolchain-annotate"}};
  for (size_t i = 0; !st && i < sizeof(sets) / sizeof(sets[0]); i++) {
    if (!sets[i].value) continue;
    tq_status_t s =
        tqh_config_set_from(cfg, TQH_LAYER_CLI, sets[i].key, sets[i].value, sets[i].option);
    if (s) {
      st = TQ_STATUS(TQ_INVALID_ARGUMENT, TOOL ": %s %s: %s", sets[i].option, sets[i].value,
                     tq_status_message(s));
      tq_status_free(s);
    }
  }
  if (st) {
    tqh_config_destroy(cfg);
    return st;
  }
  *out_cfg = cfg;
  return NULL;
}

/* The run-wide baseline options: the configuration's floor (built-in 5 < configs/NAME.yaml <
 * TORQ_BASELINE_FLOOR < --baseline-floor); a suite or a test may set its own (runner.c). */
void tt_baseline_options(const tqh_config_t *cfg, tqh_baseline_options_t *o) {
  tqh_baseline_options_initialize(o);
  o->floor_pct = cfg->defaults.baseline_floor_pct;
  o->gate = cfg->defaults.baseline_gate;
  o->gate_count = cfg->defaults.baseline_gate_count;
}

int tt_run_compare(const cli_t *cli, int argc, char **argv) {
  (void)argc, (void)argv;
  tqh_config_t *cfg = NULL;
  tq_status_t st = tt_build_config(cli, &cfg);
  if (st) return tt_fail(st, EXIT_USAGE);
  tqh_baseline_options_t o;
  tt_baseline_options(cfg, &o);
  /* The history gives the between-run noise (and is the baseline of `compare history B`). */
  tqh_history_t *history = NULL;
  st = tt_open_history(cfg, 0, &history);
  if (st) {
    tqh_config_destroy(cfg);
    return tt_fail(st, EXIT_USAGE);
  }
  tq_buf_t text;
  tq_buf_init(&text, 0);
  size_t regressions = 0;
  if (cli->json)
    st = tqh_compare_json(cli->compare_a, cli->compare_b, &o, history, &text, &regressions);
  else
    st = tqh_baseline_compare_runs(cli->compare_a, cli->compare_b, &o, history, &text,
                                   &regressions);
  int rc = 0;
  if (!st && cli->json) rc = put_json(cli->json, &text);
  else if (text.data) fputs(text.data, stdout);
  tq_buf_deinit(&text);
  tqh_history_close(history);
  tqh_config_destroy(cfg);
  if (st)
    return tt_fail(st, tq_status_code(st) == TQ_NOT_FOUND ||
                               tq_status_code(st) == TQ_INVALID_ARGUMENT
                           ? EXIT_USAGE
                           : EXIT_INFRA);
  return rc ? rc : regressions ? EXIT_FAILED : 0;
}

tq_status_t tt_parse_seconds(const char *option, const char *env, const char *text, double *out) {
  char *end = NULL;
  errno = 0;
  double v = strtod(text, &end);
  if (!*text || *end || errno || !(v > 0) || v > 1e7)
    return TQ_STATUS(TQ_INVALID_ARGUMENT, TOOL ": %s=%s: expected seconds, a number above 0",
                     option ? option : env, text);
  *out = v;
  return NULL;
}

/* `merge RUN_DIR...`: a new run under the results folder holding the runs' tests. */
int tt_run_merge(const cli_t *cli, int argc, char **argv) {
  int rc = merge_upload_check(cli);
  if (rc) return rc;
  tq_buf_t cmdline;
  tq_buf_init(&cmdline, 0);
  for (int i = 0; i < argc; i++)
    tq_status_free(tq_buf_printf(&cmdline, "%s%s", i ? " " : "", argv[i]));
  tqh_config_t *cfg = NULL;
  tq_status_t st = tt_build_config(cli, &cfg);
  if (st) {
    tq_buf_deinit(&cmdline);
    return tt_fail(st, EXIT_USAGE);
  }
  tqh_results_options_t ro;
  tqh_results_options_initialize(&ro);
  ro.root = cfg->results_dir;
  tqh_run_info_t info;
  memset(&info, 0, sizeof(info));
  info.tool_version = TOOL " " TQ_VERSION;
  info.target = "merged";
  info.command_line = cmdline.data;
  char *run_dir = NULL;
  size_t counts[TQH_OUTCOME_COUNT];
  tqh_diags_t diags;
  tqh_diags_init(&diags);
  st = tqh_merge_runs(cli->suites, cli->num_suites, &ro, &info, &run_dir, counts, &diags);
  size_t skipped = tt_print_journal_problems("merge", &diags);
  tqh_diags_deinit(&diags);
  tq_buf_deinit(&cmdline);
  tqh_config_destroy(cfg);
  if (st) {
    tq_status_code_t code = tq_status_code(st);
    return tt_fail(st,
                   code == TQ_INVALID_ARGUMENT || code == TQ_NOT_FOUND ? EXIT_USAGE : EXIT_INFRA);
  }
  tq_buf_t path, text;
  tq_buf_init(&path, 0);
  tq_status_free(tq_buf_printf(&path, "%s/summary.txt", run_dir));
  if (cli->verbosity >= 0 && path.data && !(st = tq_file_read(path.data, 0, &text))) {
    if (text.data) fputs(text.data, stdout);
    tq_buf_deinit(&text);
  }
  tq_status_free(st);
  tq_buf_deinit(&path);
  /* A merged run is a run: it goes into the history like any other, in place of its shards
   * (each recorded itself when it finished), so that no test counts twice. */
  tqh_history_t *history = NULL;
  char *href = NULL;
  tqh_config_t *hcfg = NULL;
  st = tt_build_config(cli, &hcfg);
  if (!st) st = tt_open_history(hcfg, 1, &history);
  if (st) {
    char *msg = tq_status_format(st, 0);
    fprintf(stderr, TOOL ": history: %s; the merged run is not recorded\n", msg ? msg : "error");
    tq_free(msg);
    tq_status_free(st);
  }
  tt_history_after_merge(cli, history, run_dir, (const char *const *)cli->suites, cli->num_suites,
                         &href);
  tt_write_html_report(run_dir, NULL, NULL, href);
  tq_free(href);
  tqh_history_close(history);
  tqh_config_destroy(hcfg);
  printf("Merged %zu run%s into %s/\n", cli->num_suites, cli->num_suites == 1 ? "" : "s", run_dir);
  /* The merged run's upload leaves its exit status alone, as a run's does: what it could not
   * send is kept for `torq-test upload`, and said. */
  merge_upload(cli, run_dir);
  tq_free(run_dir);
  if (skipped) {
    fprintf(stderr,
            TOOL ": merge: %zu journal line%s could not be read (named above) and %s left out\n",
            skipped, skipped == 1 ? "" : "s", skipped == 1 ? "was" : "were");
    return EXIT_INFRA;
  }
  return counts[TQH_OUTCOME_FAILED] || counts[TQH_OUTCOME_ERROR] ? EXIT_FAILED : 0;
}

void tt_toolchain_provenance(const tqh_config_t *cfg, tq_buf_t *out) {
  for (int role = 0; role < TQH_TOOL_COUNT; role++) {
    const tqh_tool_t *tool = &cfg->defaults.tools[role];
    if (!tool->argc) continue;
    tqh_tool_identity_t id;
    tq_status_t st = tqh_tool_identify(tool, &id);
    if (st) {
      tq_status_free(st);
      continue;
    }
    st = tq_buf_printf(out, "%s: ", tqh_tool_role_name((tqh_tool_role_t)role));
    if (!st) st = tqh_tool_identity_format(&id, out);
    if (!st) st = tq_buf_printf(out, "\n");
    tqh_tool_identity_deinit(&id);
    tq_status_free(st);
  }
}
