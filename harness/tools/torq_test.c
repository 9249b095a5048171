/* torq-test: the command-line client of the runner (runner.h). It parses every option into one
 * plain struct before doing any work, builds the configuration (built-in < configs/ *.yaml < suite
 * < TORQ_* environment < command line), loads and checks every suite (all errors printed before
 * any test runs), selects tests with -k / -m, and runs them.
 *
 *   torq-test [SUITE.yaml ...] [options]      run (default suite: suites/smoke.yaml)
 *   torq-test report RUN_DIR [--baseline=RUN_DIR]  rebuild junit.xml, summary.txt and index.html
 *   torq-test compare RUN_A RUN_B             compare two runs' metrics (baseline.h)
 *   torq-test merge RUN_DIR... [--results-dir=DIR]  merge shard runs into a new run
 *   torq-test upload RUN_DIR [--upload=URL]   send a run's upload backlog (upload.h)
 *   torq-test history import RUN_DIR... | list | show TEST   the run history (history.h)
 *   torq-test trends [--last N] [-k EXPR] [-o FILE]          the trends page (trends.h)
 *
 * Exit status: 0 all passed, 1 tests failed, 2 bad usage or configuration, 3 infrastructure,
 * 130 interrupted. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "torq_test.h"
#include "torq/base/alloc.h"
#include "torq/base/file.h"
#include "torq/base/version.h"
#include "torq/harness/select.h"
#include "torq/harness/shard.h"
#include "torq/runtime/runtime.h"
static void usage(FILE *f) {
  fputs("usage: " TOOL " [SUITE.yaml ...] [options]\n"
        "       " TOOL " report RUN_DIR [--baseline=RUN_DIR]\n"
        "       " TOOL " compare RUN_A RUN_B\n"
        "       " TOOL " merge RUN_DIR... [--results-dir=DIR]\n"
        "       " TOOL " upload RUN_DIR [--upload=URL]\n"
        "       " TOOL " history import RUN_DIR... | history list [--last N]\n"
        "       " TOOL " history show TEST [--metric M]... [--last N]\n"
        "       " TOOL " trends [--last N] [-k EXPR] [-o FILE]\n"
        "\n"
        "Compiles, runs (on the simulator), checks and profiles the tests of YAML suites, and\n"
        "writes results/<run-id>/ with junit.xml, summary.txt, index.html (the HTML report)\n"
        "and one folder per test.\n"
        "Without a suite, runs " DEFAULT_SUITE ".\n"
        "\n"
        "Selection:\n"
        "  -k EXPR                     tests whose id contains the words of EXPR (and, or, not,\n"
        "                              parentheses; case-insensitive): -k 'conv and not i16'\n"
        "  -m TAG-EXPR                 tests whose tags satisfy TAG-EXPR: -m 'smoke and not slow'\n"
        "  --list                      print the selected tests and exit\n"
        "  --shard=K/N                 run only shard K (1..N) of the selected tests\n"
        "                              (default: CI_NODE_INDEX/CI_NODE_TOTAL when set)\n"
        "  --shard-durations=RUN_DIR   balance the shards by that run's test durations\n"
        "Running:\n"
        "  -j, --jobs N                run N tests at once (default 1)\n"
        "  --repeat N                  timed runs per test (default 1)\n"
        "  --warmup N                  untimed runs before them (default 0)\n"
        "  --recompute-cache           compile every model, even when the cache has it\n"
        "  --strict                    an expected failure that passes fails the run\n"
        "  --no-profiling              no runtime profile, annotation or overview (faster)\n"
        "  --torq-runtime-hw-type=sim|astra_machina\n"
        "                              where models run (default sim, the embedded simulator;\n"
        "                              astra_machina: the boards of --torq-addr, else those of\n"
        "                              configs/*.yaml, one worker per board)\n"
        "Toolchain (default: the built-in compiler, simulator and annotator):\n"
        "  --toolchain-compile=PATH    an external torq-compile (compiled through the cache;\n"
        "                              its SHA-256 and --version are in the key)\n"
        "  --toolchain-run=PATH        an external torq-run-module (run as a process, or on\n"
        "                              the boards; --update-astra-runtime copies it there)\n"
        "  --toolchain-annotate=PATH   an external annotator (DEBUG_DIR PROFILE.csv OUT)\n"
        "  --toolchain=builtin         the built-in libraries, whatever configs and suites say\n"
        "Boards (over SSH; keys from ssh-agent or ~/.ssh, host keys from ~/.ssh/known_hosts):\n"
        "  --torq-addr=user@host[:port]  a board; repeat it (or separate with commas) for a pool\n"
        "  --torq-port=N               the port when --torq-addr gives none (default 22)\n"
        "  --update-astra-runtime      copy this build's torq-run-module to\n"
        "                              BOARD_ROOT/<you>/torq-run-module when it differs\n"
        "  --torq-run-module=FILE      the runtime to copy (default: beside torq-test)\n"
        "  --torq-board-root=DIR       the harness's folder on the boards\n"
        "                              (default " TQH_BOARD_ROOT_DEFAULT ")\n"
        "  --torq-ssh-key=FILE         the private key (default: ssh-agent, ~/.ssh/id_*)\n"
        "  --torq-known-hosts=FILE     the known_hosts file (default ~/.ssh/known_hosts)\n"
        "  --torq-accept-new-host-key  accept (and remember) a board's unknown host key\n"
        "  --torq-lease-ttl=S          a lease lasts S seconds unless renewed (default 60)\n"
        "  --torq-lease-renew=S        renew it every S seconds (default 10)\n"
        "  --torq-lease-wait=S         wait S seconds for a board another run holds (600)\n"
        "Output:\n"
        "  --results-dir=DIR           where runs are written (default results)\n"
        "  --junitxml=FILE             also write the JUnit XML report to FILE\n"
        "Baseline and history:\n"
        "  --baseline=RUN_DIR          compare every test with the same test of that run\n"
        "                              (or a saved journal.jsonl); a regression fails it\n"
        "  --baseline=history[:K]      ... with its last K runs in the history (default 10)\n"
        "  --baseline-floor=PCT        the smallest change that is a verdict (default 5;\n"
        "                              TORQ_BASELINE_FLOOR; beats a suite's baseline: floor);\n"
        "                              measured times also need a U test (p < 0.01) and a\n"
        "                              change beyond the spread of earlier runs\n"
        "  --history=PATH              the run history (default RESULTS_DIR/history.sqlite;\n"
        "                              history: in configs/*.yaml, TORQ_HISTORY)\n"
        "  --no-history                record nothing, read no history\n"
        "  --last N                    history list/show, trends: the last N runs\n"
        "  --metric M                  history show: also this metric (repeatable)\n"
        "  -o FILE                     trends: the page (default trends.html beside the\n"
        "                              history)\n"
        "  --torq-runtime-profiling-output-dir=DIR\n"
        "                              also copy each test's profile files to DIR/<test>/\n"
        "Upload (to a results server; a server that is down never fails nor stalls the run):\n"
        "  --upload=URL                POST each test's report.json to URL/runs/RUN/tests/TEST\n"
        "                              as it finishes, then URL/runs/RUN/complete; what is not\n"
        "                              sent stays in RUN_DIR/upload/ for `upload RUN_DIR`\n"
        "  --upload=torq-dashboard+URL  the Torq performance dashboard instead: the tests in\n"
        "                              batches to URL/api/test-sessions/upload_zip/, the session\n"
        "                              closed at the end (by `merge` for shards); also when\n"
        "                              " TQH_DASHBOARD_SERVER_ENV "=URL is set (token: "
        TQH_DASHBOARD_TOKEN_ENV ")\n"
        "  --upload-batch=N            the dashboard's batches: N tests at most (default 8), or\n"
        "                              what finished within 10 s\n"
        "  --upload-profiles           also POST the profile files of each test\n"
        "  --upload-token-env=NAME     the bearer token's environment variable\n"
        "                              (default " TQH_UPLOAD_TOKEN_ENV ")\n"
        "  --upload-timeout=S          the longest one request may take (default 30); also\n"
        "                              how long the backlog may take once the run is over\n"
        "  -q, --quiet                 only failures and the summary\n"
        "  -v, --verbose               every test and its log (Wall time: ...)\n"
        "  --no-color                  no colors (also when NO_COLOR is set)\n"
        "  --help, --version\n"
        "\n"
        "Compiled models are kept in a content-addressed cache (key: the model's bytes, the\n"
        "compile options and the compiler build), build/cache by default (cache_dir in\n"
        "configs/*.yaml, TORQ_CACHE_DIR); the summary counts its hits and misses.\n"
        "\n"
        "Environment: TORQ_REPEAT, TORQ_WARMUP, TORQ_JOBS, TORQ_RESULTS_DIR, TORQ_CACHE_DIR, ...\n"
        "(see the README); for boards TORQ_BOARD_ROOT, TORQ_SSH_KEY, TORQ_KNOWN_HOSTS,\n"
        "TORQ_RUN_MODULE, TORQ_LEASE_TTL, TORQ_LEASE_RENEW, TORQ_LEASE_WAIT (options win).\n"
        "Configuration files: configs/*.yaml (boards: name, host, port, user, key_file,\n"
        "known_hosts, board_root).\n"
        "\n"
        "Exit status: 0 all passed, 1 tests failed, 2 bad usage or configuration,\n"
        "3 infrastructure fault (a board unreachable, ...), 130 interrupted.\n",
        f);
}


/* Matches "--name=VALUE" or "--name VALUE" (and, for a one-letter "-k", "-kVALUE") at argv[*i].
 * Returns 1 with *value set, 0 when argv[*i] is something else, -1 when the value is missing. */
static int option(int argc, char **argv, int *i, const char *name, const char **value) {
  const char *a = argv[*i];
  size_t n = strlen(name);
  if (strncmp(a, name, n) != 0) return 0;
  if (a[n] == '=' && n > 2) {
    *value = a + n + 1;
    return 1;
  }
  if (a[n] != 0) {
    if (n == 2 && a[1] != '-') { /* -j4, -kconv */
      *value = a + 2;
      return 1;
    }
    return 0;
  }
  if (*i + 1 >= argc) return -1;
  *value = argv[++*i];
  return 1;
}

/* Parses argv into `cli`; returns 0, or the exit status of a usage error. */
static int parse_args(int argc, char **argv, cli_t *cli) {
  memset(cli, 0, sizeof(*cli));
  cli->suites = tq_calloc((size_t)argc + 1, sizeof(*cli->suites));
  cli->addrs = tq_calloc((size_t)argc + 1, sizeof(*cli->addrs));
  cli->metrics = tq_calloc((size_t)argc + 1, sizeof(*cli->metrics));
  if (!cli->suites || !cli->addrs || !cli->metrics) return bad_usage("out of memory");
  static const struct {
    const char *name;
    size_t offset;
  } valued[] = {
      {"-k", offsetof(cli_t, keyword)},
      {"-m", offsetof(cli_t, marker)},
      {"-j", offsetof(cli_t, jobs)},
      {"--jobs", offsetof(cli_t, jobs)},
      {"--repeat", offsetof(cli_t, repeat)},
      {"--warmup", offsetof(cli_t, warmup)},
      {"--junitxml", offsetof(cli_t, junitxml)},
      {"--results-dir", offsetof(cli_t, results_dir)},
      {"--torq-runtime-hw-type", offsetof(cli_t, hw_type)},
      {"--torq-port", offsetof(cli_t, port)},
      {"--torq-ssh-key", offsetof(cli_t, ssh_key)},
      {"--torq-known-hosts", offsetof(cli_t, known_hosts)},
      {"--torq-board-root", offsetof(cli_t, board_root)},
      {"--torq-run-module", offsetof(cli_t, run_module)},
      {"--toolchain-compile", offsetof(cli_t, tool_compile)},
      {"--toolchain-run", offsetof(cli_t, tool_run)},
      {"--toolchain-annotate", offsetof(cli_t, tool_annotate)},
      {"--toolchain", offsetof(cli_t, toolchain)},
      {"--torq-lease-ttl", offsetof(cli_t, lease_ttl)},
      {"--torq-lease-renew", offsetof(cli_t, lease_renew)},
      {"--torq-lease-wait", offsetof(cli_t, lease_wait)},
      {"--torq-runtime-profiling-output-dir", offsetof(cli_t, profile_dir)},
      {"--baseline", offsetof(cli_t, baseline)},
      {"--baseline-floor", offsetof(cli_t, baseline_floor)},
      {"--shard-durations", offsetof(cli_t, shard_durations)},
      {"--shard", offsetof(cli_t, shard)},
      {"--upload", offsetof(cli_t, upload)},
      {"--upload-token-env", offsetof(cli_t, upload_token_env)},
      {"--upload-timeout", offsetof(cli_t, upload_timeout)},
      {"--upload-batch", offsetof(cli_t, upload_batch)},
      {"--history", offsetof(cli_t, history)},
      {"--last", offsetof(cli_t, last)},
      {"-o", offsetof(cli_t, output)},
      {"--output", offsetof(cli_t, output)},
  };
  static const struct {
    const char *name;
    size_t offset;
    int value;
  } flags[] = {
      {"--list", offsetof(cli_t, list), 1},
      {"--recompute-cache", offsetof(cli_t, recompute_cache), 1},
      {"--update-astra-runtime", offsetof(cli_t, update_astra_runtime), 1},
      {"--torq-accept-new-host-key", offsetof(cli_t, accept_new_host_key), 1},
      {"--strict", offsetof(cli_t, strict), 1},
      {"--no-color", offsetof(cli_t, no_color), 1},
      {"--no-profiling", offsetof(cli_t, no_profiling), 1},
      {"--upload-profiles", offsetof(cli_t, upload_profiles), 1},
      {"--no-history", offsetof(cli_t, no_history), 1},
      {"--help", offsetof(cli_t, help), 1},
      {"-h", offsetof(cli_t, help), 1},
      {"--version", offsetof(cli_t, version), 1},
      {"-q", offsetof(cli_t, verbosity), -1},
      {"--quiet", offsetof(cli_t, verbosity), -1},
      {"-v", offsetof(cli_t, verbosity), 1},
      {"--verbose", offsetof(cli_t, verbosity), 1},
  };
  int positional_only = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (positional_only || a[0] != '-' || !a[1]) {
      if (cli->num_suites == 0 && !cli->report_dir && !strcmp(a, "report") && !positional_only) {
        if (i + 1 >= argc) return bad_usage("'report' needs the run folder: report RUN_DIR");
        cli->report_dir = argv[++i];
        continue;
      }
      if (cli->report_dir) return bad_usage("unexpected argument '%s' after report RUN_DIR", a);
      if (cli->num_suites == 0 && !cli->compare_a && !strcmp(a, "compare") && !positional_only) {
        if (i + 2 >= argc) return bad_usage("'compare' needs two run folders: compare RUN_A RUN_B");
        cli->compare_a = argv[++i];
        cli->compare_b = argv[++i];
        continue;
      }
      if (cli->compare_a) return bad_usage("unexpected argument '%s' after compare RUN_A RUN_B", a);
      if (cli->num_suites == 0 && !cli->upload_dir && !strcmp(a, "upload") && !positional_only) {
        if (i + 1 >= argc) return bad_usage("'upload' needs the run folder: upload RUN_DIR");
        cli->upload_dir = argv[++i];
        continue;
      }
      if (cli->upload_dir) return bad_usage("unexpected argument '%s' after upload RUN_DIR", a);
      if (cli->num_suites == 0 && !cli->merge && !strcmp(a, "merge") && !positional_only) {
        cli->merge = 1;
        continue;
      }
      if (cli->num_suites == 0 && !cli->history_cmd && !cli->trends && !cli->merge &&
          !strcmp(a, "history") && !positional_only) {
        if (i + 1 >= argc || (strcmp(argv[i + 1], "import") && strcmp(argv[i + 1], "list") &&
                              strcmp(argv[i + 1], "show")))
          return bad_usage("'history' needs a command: history import RUN_DIR..., history list, "
                           "history show TEST");
        cli->history_cmd = argv[++i];
        continue;
      }
      if (cli->num_suites == 0 && !cli->history_cmd && !cli->trends && !cli->merge &&
          !strcmp(a, "trends") && !positional_only) {
        cli->trends = 1;
        continue;
      }
      if (cli->trends) return bad_usage("unexpected argument '%s' after trends", a);
      cli->suites[cli->num_suites++] = a;
      continue;
    }
    if (!strcmp(a, "--")) {
      positional_only = 1;
      continue;
    }
    int matched = 0;
    const char *metric = NULL;
    int mr = option(argc, argv, &i, "--metric", &metric);
    if (mr < 0) return bad_usage("option '--metric' needs a value");
    if (mr > 0) {
      if (!*metric) return bad_usage("option '--metric' needs a non-empty value");
      cli->metrics[cli->num_metrics++] = metric;
      continue;
    }
    const char *addr = NULL;
    int ar = option(argc, argv, &i, "--torq-addr", &addr);
    if (ar < 0) return bad_usage("option '--torq-addr' needs a value");
    if (ar > 0) {
      if (!*addr) return bad_usage("option '--torq-addr' needs a non-empty value");
      cli->addrs[cli->num_addrs++] = addr;
      continue;
    }
    for (size_t k = 0; k < sizeof(flags) / sizeof(flags[0]) && !matched; k++) {
      if (strcmp(a, flags[k].name) != 0) continue;
      *(int *)(void *)((char *)cli + flags[k].offset) = flags[k].value;
      matched = 1;
    }
    for (size_t k = 0; k < sizeof(valued) / sizeof(valued[0]) && !matched; k++) {
      const char *v = NULL;
      int r = option(argc, argv, &i, valued[k].name, &v);
      if (r < 0) return bad_usage("option '%s' needs a value", valued[k].name);
      if (r == 0) continue;
      if (!*v) return bad_usage("option '%s' needs a non-empty value", valued[k].name);
      *(const char **)(void *)((char *)cli + valued[k].offset) = v;
      matched = 1;
    }
    if (!matched) {
      if (!strncmp(a, "--", 2)) {
        const char *eq = strchr(a, '=');
        for (size_t k = 0; k < sizeof(flags) / sizeof(flags[0]); k++) {
          size_t n = strlen(flags[k].name);
          if (eq && (size_t)(eq - a) == n && !strncmp(a, flags[k].name, n))
            return bad_usage("option '%s' takes no value", flags[k].name);
        }
      }
      return bad_usage("unknown option '%s'", a);
    }
  }
  if (cli->report_dir && (cli->keyword || cli->marker || cli->list))
    return bad_usage("'report' takes only the run folder");
  if (cli->merge && !cli->num_suites)
    return bad_usage("'merge' needs the run folders: merge RUN_DIR...");
  if (cli->history_cmd && !strcmp(cli->history_cmd, "import") && !cli->num_suites)
    return bad_usage("'history import' needs the run folders: history import RUN_DIR...");
  if (cli->history_cmd && !strcmp(cli->history_cmd, "show") && cli->num_suites != 1)
    return bad_usage("'history show' needs one test: history show SUITE/TEST");
  if (cli->history_cmd && !strcmp(cli->history_cmd, "list") && cli->num_suites)
    return bad_usage("unexpected argument '%s' after history list", cli->suites[0]);
  if (cli->no_history && cli->history)
    return bad_usage("--history and --no-history contradict each other");
  if ((cli->history_cmd || cli->trends) && cli->no_history)
    return bad_usage("--no-history: '%s' needs the history", cli->trends ? "trends" : "history");
  return 0;
}

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

/* The runner's progress and summary (tqh_output_fn): on stdout, at once. */
static void to_stdout(void *ctx, const char *text, size_t len) {
  (void)ctx;
  fwrite(text, 1, len, stdout);
  fflush(stdout);
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
static int select_shard(const cli_t *cli, tqh_test_t **selected, size_t *num_selected,
                        size_t total, char *shard, size_t shard_size) {
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
    printf(TOOL ": shard %zu/%zu: %zu of %zu selected test%s\n", k, n, *num_selected, before,
           before == 1 ? "" : "s");
  if (!*num_selected && before && !cli->list) {
    printf(TOOL ": shard %zu/%zu has no test (of %zu in the suite%s); nothing to run\n", k, n,
           total, total == 1 ? "" : "s");
    return -1;
  }
  return 0;
}

int main(int argc, char **argv) {
  cli_t cli;
  int rc = parse_args(argc, argv, &cli);
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
  char *git = NULL;
  tq_buf_t cmdline, config_text, errors_text, board_text, upload_env, toolchain_text;
  tq_buf_init(&upload_env, 0);
  tq_buf_init(&toolchain_text, 0);
  tq_buf_init(&cmdline, 0);
  tq_buf_init(&config_text, 0);
  tq_buf_init(&errors_text, 0);
  tq_buf_init(&board_text, 0);
  tq_status_t st = NULL;
  if (rc) goto done;
  if (cli.help) {
    usage(stdout);
    goto done;
  }
  if (cli.version) {
    printf(TOOL " " TQ_VERSION " (runtime " TQ_VERSION ", module format %u)\n",
           TQF_MODULE_FORMAT_VERSION);
    goto done;
  }
  if (cli.report_dir) {
    rc = tt_run_report(&cli);
    goto done;
  }
  if (cli.compare_a) {
    rc = tt_run_compare(&cli);
    goto done;
  }
  if (cli.merge) {
    rc = tt_run_merge(&cli, argc, argv);
    goto done;
  }
  if (cli.upload_dir) {
    rc = tt_run_upload(&cli);
    goto done;
  }
  if (cli.history_cmd) {
    rc = tt_run_history(&cli);
    goto done;
  }
  if (cli.trends) {
    rc = tt_run_trends(&cli);
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
  if ((st = tt_build_config(&cli, &cfg))) {
    rc = tt_fail(st, EXIT_USAGE);
    goto done;
  }

  /* Every suite is loaded and checked before any test runs; all their errors are printed. */
  if (!cli.num_suites) cli.suites[cli.num_suites++] = DEFAULT_SUITE;
  suites = tq_calloc(cli.num_suites + 1, sizeof(*suites));
  if (!suites) {
    rc = tt_fail(TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory"), EXIT_INFRA);
    goto done;
  }
  int bad_suites = 0;
  for (size_t i = 0; i < cli.num_suites; i++) {
    tqh_suite_options_t so;
    tqh_suite_options_initialize(&so);
    so.config = cfg;
    tq_status_t s = tqh_suite_load(cli.suites[i], &so, &suites[num_suites]);
    if (s) {
      bad_suites = 1;
      const char *m = tq_status_message(s);
      tq_status_free(tq_buf_printf(&errors_text, "%s%s", m,
                                   *m && m[strlen(m) - 1] == '\n' ? "" : "\n"));
      tq_status_free(s);
      continue;
    }
    for (size_t k = 0; k < num_suites; k++) {
      if (!strcmp(suites[k]->name, suites[num_suites]->name)) {
        bad_suites = 1;
        tq_status_free(tq_buf_printf(&errors_text,
                                     "%s: error: suite name '%s' is already used by %s; test ids "
                                     "must be unique in a run (give one a `suite:` name)\n",
                                     cli.suites[i], suites[k]->name, suites[k]->path));
      }
    }
    num_suites++;
  }
  if (bad_suites) {
    fputs(errors_text.data ? errors_text.data : "", stderr);
    fprintf(stderr, TOOL ": bad suite%s: no test was run\n", cli.num_suites == 1 ? "" : "s");
    rc = EXIT_USAGE;
    goto done;
  }

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
  char shard[64] = "";
  if ((rc = select_shard(&cli, selected, &num_selected, total, shard, sizeof(shard)))) {
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
      printf("%s", t->id);
      for (size_t k = 0; k < t->tag_count; k++) printf("%s%s", k ? "," : "  [", t->tags[k]);
      printf("%s\n", t->tag_count ? "]" : "");
    }
    printf("%zu of %zu test%s selected\n", num_selected, total, total == 1 ? "" : "s");
    goto done;
  }
  if (num_selected == 0) {
    fprintf(stderr, TOOL ": no test selected (%zu in the suite%s)\n", total,
            num_suites == 1 ? "" : "s");
    rc = EXIT_USAGE;
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
  tq_status_free(tqh_config_describe(cfg, &config_text));
  git = git_revision();
  char compiler_version[64];
  snprintf(compiler_version, sizeof(compiler_version), "torq-compiler %s", TQ_VERSION);
  tt_toolchain_provenance(cfg, &toolchain_text);
  tqh_property_t config_props[3] = {
      {"configuration", config_text.data ? config_text.data : ""},
      {"cache_dir", cfg->cache_dir},
      {"toolchain", toolchain_text.data ? toolchain_text.data : "builtin"}};
  tqh_run_info_t info;
  memset(&info, 0, sizeof(info));
  info.tool_version = TOOL " " TQ_VERSION;
  info.compiler_version = compiler_version;
  info.runtime_version = "torq-runtime " TQ_VERSION;
  info.target = boards.on_boards ? "astra_machina" : boards.count ? "sim+boards" : "sim";
  for (size_t i = 0; i < boards.count; i++) {
    const tqh_board_spec_t *b = &boards.specs[i];
    tq_status_free(tq_buf_printf(&board_text, "%s%s=%s%s%s:%u", i ? ", " : "", b->name,
                                 b->ssh.user ? b->ssh.user : "", b->ssh.user ? "@" : "",
                                 b->ssh.host, b->ssh.port));
  }
  info.board = boards.count ? board_text.data : NULL;
  info.git_revision = git;
  info.command_line = cmdline.data;
  info.config = config_props;
  info.config_count = 3;
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
  opts.verbosity = cli.verbosity;
  if (cli.no_color) opts.color = 0;
  opts.tty = isatty(STDOUT_FILENO);
  opts.output = to_stdout;
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
    printf(TOOL ": %zu test%s from %zu suite%s on %zu board%s (%s), results in %s\n",
           num_selected, num_selected == 1 ? "" : "s", num_suites, num_suites == 1 ? "" : "s",
           boards.count, boards.count == 1 ? "" : "s", board_text.data,
           tqh_results_run_dir(results));
  else if (cli.verbosity >= 0)
    printf(TOOL ": %zu test%s from %zu suite%s, %zu worker%s%s%s, results in %s\n", num_selected,
           num_selected == 1 ? "" : "s", num_suites, num_suites == 1 ? "" : "s", opts.jobs,
           opts.jobs == 1 ? "" : "s", boards.count ? " and boards " : "",
           boards.count ? board_text.data : "", tqh_results_run_dir(results));
  tqh_runner_summary_t summary;
  st = tqh_runner_run_boards(&opts, boards.count ? &boards.run : NULL,
                             (const tqh_test_t *const *)selected, num_selected, results, &summary);
  if (!st) tt_history_after_run(&cli, history, tqh_results_run_dir(results), &trends_href);
  if (!st) tt_write_html_report(tqh_results_run_dir(results), baseline, trends_href);
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
    printf("Results: %s/\n", tqh_results_run_dir(results));
  if (cli.verbosity > 0 && num_selected) {
    /* With -v, where the time went, per test (scripts/bench-runner reads this line). */
    double n = (double)num_selected;
    printf("Runner: %.3f s for %zu tests; per test: compile %.3f ms, run %.3f ms; parent: "
           "starting workers %.3f ms, recording results %.3f ms\n",
           summary.elapsed_s, num_selected, summary.compile_s / n * 1e3, summary.run_s / n * 1e3,
           summary.spawn_s / n * 1e3, summary.record_s / n * 1e3);
  }
  rc = tqh_runner_exit_code(&summary);

done:
  tqh_uploader_destroy(uploader);
  tqh_results_destroy(results);
  tqh_baseline_destroy(baseline);
  tt_boards_free(&boards);
  tq_buf_deinit(&board_text);
  tq_buf_deinit(&upload_env);
  tq_free(cli.addrs);
  tq_free(cli.metrics);
  tq_free(trends_href);
  tqh_history_close(history);
  tq_free(git);
  tq_buf_deinit(&cmdline);
  tq_buf_deinit(&config_text);
  tq_buf_deinit(&toolchain_text);
  tq_buf_deinit(&errors_text);
  tq_free(selected);
  for (size_t i = 0; i < num_suites; i++) tqh_suite_destroy(suites[i]);
  tq_free(suites);
  tqh_select_destroy(keyword);
  tqh_select_destroy(marker);
  tqh_config_destroy(cfg);
  tq_free(cli.suites);
  return rc;
}
