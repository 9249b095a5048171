/* torq-test: the command-line client of the runner (runner.h). It parses every option into one
 * plain struct before doing any work (torq_test_cli.c, where the subcommands are listed), builds
 * the configuration (built-in < the project's configs/ *.yaml < TORQ_CONFIG < --config < suite <
 * TORQ_* environment < command line), loads and checks every suite (all errors printed before
 * any test runs), selects tests with -k / -m (and --lf, --ff, --shard), and runs them.
 *
 * Exit status: 0 all passed, 1 tests failed, 2 bad usage or configuration, 3 infrastructure,
 * 5 no test selected, 130 interrupted. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "torq_test.h"
#include "torq/base/alloc.h"
#include "torq/base/file.h"
#include "torq/base/version.h"
#include "torq/harness/process.h"
#include "torq/harness/select.h"
#include "torq/harness/shard.h"
#include "torq/runtime/runtime.h"
/* Prints a status that ends the program and returns the exit status for it. */
int tt_fail(tq_status_t st, int code) {
  if (tq_status_code(st) == TQ_INVALID_ARGUMENT || tq_status_code(st) == TQ_INVALID_INPUT) {
    /* Located, compiler-style diagnostics: printed as they are. */
    const char *m = tq_status_message(st);
    fputs(m, stderr);
    if (*m && m[strlen(m) - 1] != '\n') fputc('\n', stderr);
  } else {
    char *text = tq_status_format(st, 0);
    fprintf(stderr, TOOL ": %s\n", text ? text : tq_status_message(st));
    free(text);
  }
  tq_status_free(st);
  return code;
}

static volatile sig_atomic_t g_cancel;

/* The first SIGINT, SIGTERM or SIGHUP stops the run in order (the runner takes it only while it
 * waits); a second one ends the process at once, like SIGKILL: what is on disk stays valid (the
 * journal's lines are whole, the reports follow each test), a board's lease expires by itself. */
static void on_signal(int sig) {
  (void)sig;
  if (g_cancel) {
    static const char msg[] = "\n" TOOL ": interrupted again: exiting now\n";
    ssize_t n = write(STDERR_FILENO, msg, sizeof(msg) - 1);
    (void)n;
    _exit(130);
  }
  g_cancel = 1;
}

/* The runner's progress and summary (tqh_output_fn): on `ctx` (stdout, or stderr when --json
 * prints the run's document on stdout), at once. */
static void to_stream(void *ctx, const char *text, size_t len) {
  fwrite(text, 1, len, ctx);
  fflush(ctx);
}

static void install_signals(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);
}

static char *git_revision(void) {
  FILE *p = popen("git rev-parse HEAD 2>/dev/null", "r");
  if (!p) return NULL;
  char line[128] = {0};
  char *got = fgets(line, sizeof(line), p);
  pclose(p);
  if (!got) return NULL;
  line[strcspn(line, "\r\n")] = 0;
  return line[0] ? tq_strndup(line, strlen(line)) : NULL;
}

/* --shard (or CI_NODE_INDEX/CI_NODE_TOTAL): keeps the shard's tests of `selected`. Returns 0,
 * or an exit status (a usage error; an empty shard is a green run with nothing to do: -1 → 0). */
static int select_shard(const cli_t *cli, FILE *out, tqh_test_t **selected,
                        size_t *num_selected, size_t total, char *shard, size_t shard_size) {
  size_t k = 0, n = 0;
  int set = 0;
  tq_status_t st = NULL;
  if (cli->shard) {
    st = tqh_shard_parse(cli->shard, "--shard", &k, &n);
    set = 1;
  } else {
    st = tqh_shard_from_env(&k, &n, &set);
  }
  if (st) {
    const char *m = tq_status_message(st);
    int r = bad_usage("%s", m);
    tq_status_free(st);
    return r;
  }
  if (!set) {
    if (cli->shard_durations) return bad_usage("--shard-durations needs --shard=K/N");
    return 0;
  }
  size_t before = *num_selected;
  snprintf(shard, shard_size, "%zu/%zu", k, n);
  tqh_diags_t diags;
  tqh_diags_init(&diags);
  st = tqh_shard_select(selected, num_selected, k, n, cli->shard_durations, &diags);
  tt_print_journal_problems("--shard-durations", &diags);
  tqh_diags_deinit(&diags);
  if (st) return tt_fail(st, EXIT_USAGE);
  if (cli->verbosity >= 0 && !cli->list)
    fprintf(out, TOOL ": shard %zu/%zu: %zu of %zu selected test%s\n", k, n, *num_selected,
            before, before == 1 ? "" : "s");
  if (!*num_selected && before && !cli->list) {
    fprintf(out, TOOL ": shard %zu/%zu has no test (of %zu in the suite%s); nothing to run\n", k,
            n, total, total == 1 ? "" : "s");
    return -1;
  }
  return 0;
}

/* A count option: an integer from `min` up; 0 and sets *out, else a usage error's exit status. */
static int count_option(const char *option, const char *text, size_t min, size_t *out) {
  char *end = NULL;
  unsigned long long v = strtoull(text, &end, 10);
  if (!*text || *end || text[0] == '-' || v < min || v > 1000000000ull)
    return bad_usage("%s=%s: expected a whole number from %zu", option, text, min);
  *out = (size_t)v;
  return 0;
}

/* How the run ends its output: -q, --overview, --sort, --durations. */
static int summary_options(const cli_t *cli, tqh_summary_options_t *o) {
  tqh_summary_options_initialize(o);
  o->brief = cli->verbosity < 0;
  o->overview = cli->verbosity < 0 ? TQH_OVERVIEW_NONE : TQH_OVERVIEW_ALL;
  if (cli->overview && !tqh_overview_shown_parse(cli->overview, &o->overview))
    return bad_usage("--overview=%s: expected all, failed or none", cli->overview);
  if (cli->sort && !tqh_summary_order_parse(cli->sort, &o->order))
    return bad_usage("--sort=%s: expected run, id, duration or outcome", cli->sort);
  /* -q with an explicit --overview or --sort asks for the summary they shape. */
  if (o->brief && (cli->overview || cli->sort)) o->brief = 0;
  if (cli->durations) {
    int rc = count_option("--durations", cli->durations, 0, &o->durations);
    if (rc) return rc;
    if (!o->durations) o->durations = SIZE_MAX;
  }
  return 0;
}

int main(int argc, char **argv) {
  cli_t cli;
  int rc = tt_parse_args(argc, argv, &cli);
  if (!rc && cli.help) {
    tt_print_help(stdout, cli.command);
  } else if (!rc && cli.version) {
    printf(TOOL " " TQ_VERSION " (runtime " TQ_VERSION ", module format %u)\n",
           TQF_MODULE_FORMAT_VERSION);
  } else if (!rc) {
    rc = tt_dispatch(&cli, argc, argv);
  }
  tt_cli_free(&cli);
  return rc;
}

/* The suites of the run: those given, else the project's smoke suite. */
static const char *default_suite(char **keep) {
  *keep = NULL;
  char *project = NULL;
  tq_status_free(tqh_config_find_project(".", &project));
  if (project && strcmp(project, ".") != 0) {
    size_t n = strlen(project) + sizeof("/" DEFAULT_SUITE);
    *keep = tq_malloc(n);
    if (*keep) snprintf(*keep, n, "%s/" DEFAULT_SUITE, project);
  }
  tq_free(project);
  return *keep ? *keep : DEFAULT_SUITE;
}

/* ---- After the run: the HTML report beside the history and the trends page ---------------- */

/* Both only read the run's records, and write files of their own: the report is written on a
 * thread of its own meanwhile, with the link to the trends page it will have. Not with a
 * baseline, which may read the history (its noise, its runs) through the connection the
 * history is written with. */
typedef struct after_s {
  const char *run_dir; /* NULL: nothing to write (the run failed) */
  const tqh_records_t *records;
  tqh_baseline_t *baseline;
  char *href; /* the trends link the report was written with */
  pthread_t thread;
  int threaded;
  tq_status_t st;
  uint64_t ns;
} after_t;

static void *after_html_main(void *arg) {
  after_t *a = arg;
  uint64_t t0 = tqh_now_ns();
  a->st = tt_html_report(a->run_dir, a->records, a->baseline, a->href);
  a->ns = tqh_now_ns() - t0;
  return NULL;
}

static void after_start(after_t *a, const char *run_dir, const tqh_records_t *records,
                        tqh_baseline_t *baseline, tqh_history_t *history) {
  memset(a, 0, sizeof(*a));
  a->run_dir = run_dir;
  a->records = records;
  a->baseline = baseline;
  if (!run_dir || baseline) return;
  a->href = history ? tt_trends_href_of(history, run_dir) : NULL;
  if (history && !a->href) return; /* out of memory: the report comes after, serially */
  a->threaded = pthread_create(&a->thread, NULL, after_html_main, a) == 0;
}

static int same_href(const char *a, const char *b) {
  return a == b || (a && b && strcmp(a, b) == 0);
}

/* Waits for the report (or writes it now), again when its link turned out otherwise (the trends
 * page was not written), and reports its failure; the time it took. */
static uint64_t after_finish(after_t *a, const char *trends_href) {
  if (!a->run_dir) return 0;
  if (a->threaded) pthread_join(a->thread, NULL);
  if (!a->threaded || !same_href(a->href, trends_href)) {
    tq_status_free(a->st);
    uint64_t t0 = tqh_now_ns();
    a->st = tt_html_report(a->run_dir, a->records, a->baseline, trends_href);
    a->ns += tqh_now_ns() - t0;
  }
  tt_html_report_done(a->st);
  a->st = NULL;
  tq_free(a->href);
  a->href = NULL;
  return a->ns;
}

int tt_run_tests(const cli_t *cli_in, int argc, char **argv) {
  cli_t cli = *cli_in;
  int rc = 0;
  tqh_config_t *cfg = NULL;
  tqh_suite_t **suites = NULL;
  size_t num_suites = 0;
  tqh_test_t **selected = NULL;
  size_t num_selected = 0;
  tqh_select_t *keyword = NULL, *marker = NULL;
  tqh_results_t *results = NULL;
  tqh_baseline_t *baseline = NULL;
  tqh_history_t *history = NULL;
  char *trends_href = NULL;
  tqh_uploader_t *uploader = NULL;
  boards_t boards;
  memset(&boards, 0, sizeof(boards));
  char *git = NULL, *default_path = NULL;
  const char *one_suite[1];
  tq_buf_t cmdline, config_json, board_text, upload_env, toolchain_text;
  tq_buf_init(&upload_env, 0);
  tq_buf_init(&toolchain_text, 0);
  tq_buf_init(&cmdline, 0);
  tq_buf_init(&config_json, 0);
  tq_buf_init(&board_text, 0);
  tq_status_t st = NULL;
  /* With --json and no file, stdout holds the JSON document alone. */
  FILE *out = cli.json && !*cli.json ? stderr : stdout;
  tqh_summary_options_t summary_opts;
  size_t maxfail = 0;
  if ((rc = summary_options(&cli, &summary_opts))) goto done;
  if (cli.maxfail && (rc = count_option("--maxfail", cli.maxfail, 1, &maxfail))) goto done;
  if (cli.exitfirst) maxfail = 1;
  if (cli.last_failed && cli.failed_first) {
    rc = bad_usage("--lf runs only the last failures and --ff runs them first: give one");
    goto done;
  }
  if (cli.hw_type && strcmp(cli.hw_type, "sim") != 0 && strcmp(cli.hw_type, "astra_machina") != 0) {
    rc = bad_usage("--torq-runtime-hw-type=%s: expected 'sim' or 'astra_machina'", cli.hw_type);
    goto done;
  }
  if (cli.hw_type && !strcmp(cli.hw_type, "sim") && cli.num_addrs) {
    rc = bad_usage("--torq-addr names a board, but --torq-runtime-hw-type=sim runs on the "
                   "simulator");
    goto done;
  }

  /* Selection expressions are usage: checked before anything is read. */
  if (cli.keyword && (st = tqh_select_parse(cli.keyword, TQH_SELECT_KEYWORD, "-k", &keyword))) {
    rc = tt_fail(st, EXIT_USAGE);
    goto done;
  }
  if (cli.marker && (st = tqh_select_parse(cli.marker, TQH_SELECT_MARKER, "-m", &marker))) {
    rc = tt_fail(st, EXIT_USAGE);
    goto done;
  }
  if (!cli.num_suites) {
    one_suite[0] = default_suite(&default_path);
    cli.suites = one_suite;
    cli.num_suites = 1;
  }
  if ((st = tt_build_config(&cli, &cfg))) {
    rc = tt_fail(st, EXIT_USAGE);
    goto done;
  }

  /* Every suite is loaded and checked before any test runs; all their errors are printed. */
  if ((rc = tt_load_suites(&cli, cfg, &suites, &num_suites))) goto done;

  size_t total = 0;
  for (size_t i = 0; i < num_suites; i++) total += suites[i]->test_count;
  selected = tq_calloc(total + 1, sizeof(*selected));
  if (!selected) {
    rc = tt_fail(TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory"), EXIT_INFRA);
    goto done;
  }
  for (size_t i = 0; i < num_suites; i++)
    for (size_t k = 0; k < suites[i]->test_count; k++)
      if (tqh_select_test(keyword, marker, &suites[i]->tests[k]))
        selected[num_selected++] = &suites[i]->tests[k];
  tt_warn_unused_tags(marker, suites, num_suites);
  if ((cli.last_failed || cli.failed_first) &&
      (rc = tt_select_last_failed(&cli, out, cfg->results_dir, selected, &num_selected)))
    goto done;
  char shard[64] = "";
  if ((rc = select_shard(&cli, out, selected, &num_selected, total, shard, sizeof(shard)))) {
    if (rc < 0) rc = 0; /* an empty shard */
    goto done;
  }
  if ((st = tt_build_boards(&cli, cfg, selected, num_selected, &boards))) {
    rc = tt_fail(st, EXIT_USAGE);
    goto done;
  }

  if (cli.list) {
    for (size_t i = 0; i < num_selected; i++) {
      const tqh_test_t *t = selected[i];
      fprintf(out, "%s", t->id);
      for (size_t k = 0; k < t->tag_count; k++) fprintf(out, "%s%s", k ? "," : "  [", t->tags[k]);
      fprintf(out, "%s\n", t->tag_count ? "]" : "");
    }
    fprintf(out, "%zu of %zu test%s selected\n", num_selected, total, total == 1 ? "" : "s");
    if (!num_selected) rc = EXIT_NOTHING_SELECTED;
    goto done;
  }
  if (num_selected == 0) {
    fprintf(stderr, TOOL ": no test selected (%zu in the suite%s)\n", total,
            num_suites == 1 ? "" : "s");
    rc = EXIT_NOTHING_SELECTED;
    goto done;
  }

  tqh_upload_options_t upload;
  const char *upload_spec = tt_upload_spec(&cli, &upload_env);
  if (upload_spec && (rc = tt_upload_options(&cli, upload_spec, &upload))) goto done;
  if (upload_spec && shard[0]) upload.shard = shard;
  /* The run history: the baselines' earlier runs, and where this run is recorded. One that
   * cannot be opened leaves the run without it, unless the baseline is the history. */
  if ((st = tt_open_history(cfg, 1, &history))) {
    if (cli.baseline && !strncmp(cli.baseline, "history", 7)) {
      rc = tt_fail(st, EXIT_USAGE);
      goto done;
    }
    char *text = tq_status_format(st, 0);
    fprintf(stderr, TOOL ": history: %s; the run goes on without it\n", text ? text : "error");
    tq_free(text);
    tq_status_free(st);
    st = NULL;
  }
  if (cli.baseline) { /* a missing or unreadable baseline is usage: no run folder is made */
    tqh_baseline_options_t bo;
    tt_baseline_options(cfg, &bo);
    if ((st = tqh_baseline_load(cli.baseline, &bo, history, &baseline))) {
      rc = tt_fail(st, EXIT_USAGE);
      goto done;
    }
    tt_print_baseline_problems(baseline);
  }

  /* The run folder. */
  for (int i = 0; i < argc; i++)
    tq_status_free(tq_buf_printf(&cmdline, "%s%s", i ? " " : "", argv[i]));
  if ((st = tqh_config_to_json(cfg, &config_json))) {
    rc = tt_fail(st, EXIT_INFRA);
    goto done;
  }
  git = git_revision();
  char compiler_version[64];
  snprintf(compiler_version, sizeof(compiler_version), "torq-compiler %s", TQ_VERSION);
  tt_toolchain_provenance(cfg, &toolchain_text);
  tqh_run_info_t info;
  memset(&info, 0, sizeof(info));
  info.tool_version = TOOL " " TQ_VERSION;
  info.compiler_version = compiler_version;
  info.runtime_version = "torq-runtime " TQ_VERSION;
  info.target = boards.on_boards ? "astra_machina" : boards.count ? "sim+boards" : "sim";
  for (size_t i = 0; i < boards.count; i++) {
    /* "astra1=root@10.0.0.4:22"; a board named by its address (--torq-addr) once. */
    const tqh_board_spec_t *b = &boards.specs[i];
    char addr[512];
    snprintf(addr, sizeof(addr), "%s%s%s:%u", b->ssh.user ? b->ssh.user : "",
             b->ssh.user ? "@" : "", b->ssh.host, b->ssh.port);
    int same = !strcmp(addr, b->name);
    tq_status_free(tq_buf_printf(&board_text, "%s%s%s%s", i ? ", " : "", same ? "" : b->name,
                                 same ? "" : "=", addr));
  }
  info.board = boards.count ? board_text.data : NULL;
  info.git_revision = git;
  info.command_line = cmdline.data;
  info.config_json = config_json.data;
  info.toolchain = toolchain_text.data ? toolchain_text.data : "builtin";
  if (cli.junitxml) {
    /* --junitxml=reports/junit.xml: the folder is made, as CI scripts expect. */
    char *dir = tq_strndup(cli.junitxml, strlen(cli.junitxml));
    char *slash = dir ? strrchr(dir, '/') : NULL;
    if (slash && slash != dir) {
      *slash = 0;
      st = tq_file_mkdirs(dir);
    }
    tq_free(dir);
    if (st) {
      rc = tt_fail(tq_status_annotate(st, "--junitxml=%s", cli.junitxml), EXIT_INFRA);
      goto done;
    }
  }
  tqh_results_options_t ro;
  tqh_results_options_initialize(&ro);
  ro.root = cfg->results_dir;
  ro.junit_copy = cli.junitxml;
  if ((st = tqh_results_create(&ro, &info, &results))) {
    rc = tt_fail(tq_status_annotate(st, "while creating the run folder under %s", cfg->results_dir),
                 EXIT_INFRA);
    goto done;
  }
  /* The run is not its own history (its tests are recorded there when it ends). */
  if (baseline && (st = tqh_baseline_set_now(baseline, 0, tqh_results_run_id(results)))) {
    rc = tt_fail(st, EXIT_INFRA);
    goto done;
  }

  tqh_runner_options_t opts;
  tqh_runner_options_initialize(&opts);
  opts.jobs = cfg->jobs;
  opts.strict = cli.strict;
  opts.maxfail = maxfail;
  opts.verbosity = cli.verbosity;
  opts.summary = summary_opts;
  if (cli.no_color) opts.color = 0;
  opts.tty = isatty(fileno(out));
  opts.output = to_stream;
  opts.output_ctx = out;
  opts.cache_dir = cfg->cache_dir;
  opts.recompute_cache = cli.recompute_cache;
  opts.profile_copy_dir = cli.profile_dir;
  opts.profiling = !cli.no_profiling;
  opts.cancel = &g_cancel;
  opts.baseline = baseline;
  if (upload_spec &&
      (st = tqh_uploader_create(tqh_results_run_dir(results), &upload, &uploader))) {
    /* The run goes on: its results are there, and `torq-test upload` can send them later. */
    char *text = tq_status_format(st, 0);
    fprintf(stderr, TOOL ": upload: %s; the run goes on without it\n", text ? text : "error");
    tq_free(text);
    tq_status_free(st);
    st = NULL;
  }
  opts.uploader = uploader;
  install_signals();
  if (cli.verbosity >= 0 && boards.on_boards)
    fprintf(out, TOOL ": %zu test%s from %zu suite%s on %zu board%s (%s), results in %s\n",
            num_selected, num_selected == 1 ? "" : "s", num_suites, num_suites == 1 ? "" : "s",
            boards.count, boards.count == 1 ? "" : "s", board_text.data,
            tqh_results_run_dir(results));
  else if (cli.verbosity >= 0)
    fprintf(out, TOOL ": %zu test%s from %zu suite%s, %zu worker%s%s%s, results in %s\n",
            num_selected, num_selected == 1 ? "" : "s", num_suites, num_suites == 1 ? "" : "s",
            opts.jobs, opts.jobs == 1 ? "" : "s", boards.count ? " and boards " : "",
            boards.count ? board_text.data : "", tqh_results_run_dir(results));
  tqh_runner_summary_t summary;
  st = tqh_runner_run_boards(&opts, boards.count ? &boards.run : NULL,
                             (const tqh_test_t *const *)selected, num_selected, results, &summary);
  uint64_t after_t0 = tqh_now_ns();
  /* Both read the run's records as it wrote them, not its journal again. */
  after_t after;
  after_start(&after, st ? NULL : tqh_results_run_dir(results), tqh_results_records(results),
              baseline, history);
  if (!st) tt_history_after_run(&cli, history, tqh_results_run_dir(results), after.records,
                                &trends_href);
  uint64_t after_t1 = tqh_now_ns();
  uint64_t html_ns = after_finish(&after, trends_href);
  uint64_t after_t2 = tqh_now_ns();
  if (uploader) {
    /* Even after a failed run: what was recorded is worth sending. */
    tqh_upload_report_t ur;
    tq_status_t ust = tqh_uploader_finish(uploader, &ur);
    if (ust) {
      char *text = tq_status_format(ust, 0);
      fprintf(stderr, TOOL ": upload: %s\n", text ? text : "error");
      tq_free(text);
      tq_status_free(ust);
    } else if (cli.verbosity >= 0 || ur.remaining) {
      tt_print_upload_report(tqh_results_run_dir(results), upload_spec, &ur);
    }
  }
  if (st) {
    rc = tt_fail(st, EXIT_INFRA);
    goto done;
  }
  if (cli.verbosity >= 0 || summary.cancelled)
    fprintf(out, "Results: %s/\n", tqh_results_run_dir(results));
  if (cli.verbosity > 0 && num_selected) {
    /* With -v, where the time went, per test (scripts/bench-runner reads this line). */
    double n = (double)num_selected;
    fprintf(out,
            "Runner: %.3f s for %zu tests; per test: compile %.3f ms, run %.3f ms; parent: "
            "starting workers %.3f ms, recording results %.3f ms\n",
            summary.elapsed_s, num_selected, summary.compile_s / n * 1e3,
            summary.run_s / n * 1e3, summary.spawn_s / n * 1e3, summary.record_s / n * 1e3);
    /* Once per run, not per test. */
    fprintf(out,
            "After the run: history and trends %.3f ms, HTML report %.3f ms; %.3f ms in all\n",
            (double)(after_t1 - after_t0) / 1e6, (double)html_ns / 1e6,
            (double)(after_t2 - after_t0) / 1e6);
  }
  rc = tqh_runner_exit_code(&summary);
  if (cli.json) {
    int jrc = tt_write_json(cli.json, tqh_results_run_dir(results), baseline);
    if (jrc && !rc) rc = jrc;
  }

done:
  tqh_uploader_destroy(uploader);
  tqh_results_destroy(results);
  tqh_baseline_destroy(baseline);
  tt_boards_free(&boards);
  tq_buf_deinit(&board_text);
  tq_buf_deinit(&upload_env);
  tq_free(trends_href);
  tqh_history_close(history);
  tq_free(git);
  tq_free(default_path);
  tq_buf_deinit(&cmdline);
  tq_buf_deinit(&config_json);
  tq_buf_deinit(&toolchain_text);
  tq_free(selected);
  for (size_t i = 0; i < num_suites; i++) tqh_suite_destroy(suites[i]);
  tq_free(suites);
  tqh_select_destroy(keyword);
  tqh_select_destroy(marker);
  tqh_config_destroy(cfg);
  return rc;
}
