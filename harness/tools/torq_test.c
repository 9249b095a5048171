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
 *
 * Exit status: 0 all passed, 1 tests failed, 2 bad usage or configuration, 3 infrastructure,
 * 130 interrupted. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "torq/base/alloc.h"
#include "torq/base/file.h"
#include "torq/base/status.h"
#include "torq/base/usage.h"
#include "torq/base/str.h"
#include "torq/harness/baseline.h"
#include "torq/harness/board.h"
#include "torq/harness/config.h"
#include "torq/harness/html_report.h"
#include "torq/harness/results.h"
#include "torq/harness/runner.h"
#include "torq/harness/select.h"
#include "torq/harness/shard.h"
#include "torq/harness/suite.h"
#include "torq/harness/upload.h"
#include "torq/runtime/runtime.h"
#include "torq/sim/hw.h"

#define TOOL "torq-test"
#define DEFAULT_SUITE "suites/smoke.yaml"
#define EXIT_FAILED 1
#define EXIT_USAGE 2
#define EXIT_INFRA 3

typedef struct cli_s {
  const char **suites; /* owned array, borrowed strings */
  size_t num_suites;
  const char *keyword;      /* -k */
  const char *marker;       /* -m */
  const char *jobs;         /* -j */
  const char *repeat;       /* --repeat */
  const char *warmup;       /* --warmup */
  const char *junitxml;     /* --junitxml */
  const char *results_dir;  /* --results-dir */
  const char *hw_type;      /* --torq-runtime-hw-type */
  const char **addrs;       /* --torq-addr (repeatable, or comma separated): owned array */
  size_t num_addrs;
  const char *port;         /* --torq-port */
  const char *ssh_key;      /* --torq-ssh-key */
  const char *known_hosts;  /* --torq-known-hosts */
  const char *board_root;   /* --torq-board-root */
  const char *run_module;   /* --torq-run-module */
  const char *lease_ttl;    /* --torq-lease-ttl */
  const char *lease_renew;  /* --torq-lease-renew */
  const char *lease_wait;   /* --torq-lease-wait */
  const char *profile_dir;  /* --torq-runtime-profiling-output-dir */
  const char *report_dir;   /* `report RUN_DIR` */
  const char *baseline;       /* --baseline */
  const char *baseline_floor; /* --baseline-floor */
  const char *compare_a, *compare_b; /* `compare RUN_A RUN_B` */
  const char *shard;        /* --shard K/N */
  const char *shard_durations; /* --shard-durations RUN_DIR */
  int merge;                /* `merge RUN_DIR...`: the folders are in suites[] */
  const char *upload;           /* --upload URL */
  const char *upload_token_env; /* --upload-token-env NAME */
  const char *upload_timeout;   /* --upload-timeout S */
  int upload_profiles;          /* --upload-profiles */
  const char *upload_dir;       /* `upload RUN_DIR` */
  int list, recompute_cache, update_astra_runtime, strict, no_color, no_profiling, help, version;
  int accept_new_host_key;
  int verbosity; /* -1 -q, 0, 1 -v */
} cli_t;

static void usage(FILE *f) {
  fputs("usage: " TOOL " [SUITE.yaml ...] [options]\n"
        "       " TOOL " report RUN_DIR [--baseline=RUN_DIR]\n"
        "       " TOOL " compare RUN_A RUN_B\n"
        "       " TOOL " merge RUN_DIR... [--results-dir=DIR]\n"
        "       " TOOL " upload RUN_DIR [--upload=URL]\n"
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
        "Baseline:\n"
        "  --baseline=RUN_DIR          compare every test with the same test of that run\n"
        "                              (or a saved journal.jsonl); a regression fails it\n"
        "  --baseline-floor=PCT        the smallest regression threshold (default 5;\n"
        "                              TORQ_BASELINE_FLOOR; beats a suite's baseline: floor);\n"
        "                              wall time also uses 3*MAD/median\n"
        "  --torq-runtime-profiling-output-dir=DIR\n"
        "                              also copy each test's profile files to DIR/<test>/\n"
        "Upload (to a results server; a server that is down never fails nor stalls the run):\n"
        "  --upload=URL                POST each test's report.json to URL/runs/RUN/tests/TEST\n"
        "                              as it finishes, then URL/runs/RUN/complete; what is not\n"
        "                              sent stays in RUN_DIR/upload/ for `upload RUN_DIR`\n"
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

#define bad_usage(...) tq_usage_error(TOOL, __VA_ARGS__)

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
  if (!cli->suites || !cli->addrs) return bad_usage("out of memory");
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
      cli->suites[cli->num_suites++] = a;
      continue;
    }
    if (!strcmp(a, "--")) {
      positional_only = 1;
      continue;
    }
    int matched = 0;
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
  return 0;
}

/* Prints a status that ends the program and returns the exit status for it. */
static int fail(tq_status_t st, int code) {
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

static void on_signal(int sig) {
  (void)sig;
  g_cancel = 1;
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

static tq_status_t build_config(const cli_t *cli, tqh_config_t **out_cfg) TQ_MUST_USE;
static void baseline_options(const tqh_config_t *cfg, tqh_baseline_options_t *o);

/* Writes RUN_DIR/index.html (html_report.h). The run's results are complete without it, so a
 * failure is reported and leaves the exit status alone; 1 when it was written. */
static int write_html_report(const char *run_dir, const tqh_baseline_t *baseline) {
  tqh_diags_t diags;
  tqh_diags_init(&diags);
  tq_status_t st = tqh_html_report_write(run_dir, baseline, &diags);
  tqh_diags_deinit(&diags);
  if (!st) return 1;
  char *text = tq_status_format(st, 0);
  fprintf(stderr, TOOL ": the HTML report was not written: %s\n",
          text ? text : tq_status_message(st));
  free(text);
  tq_status_free(st);
  return 0;
}

static int run_report(const cli_t *cli) {
  tqh_baseline_t *baseline = NULL;
  char *problems = NULL;
  tq_status_t st = NULL;
  if (cli->baseline) {
    tqh_config_t *cfg = NULL;
    if ((st = build_config(cli, &cfg))) return fail(st, EXIT_USAGE);
    tqh_baseline_options_t bo;
    baseline_options(cfg, &bo);
    tqh_config_destroy(cfg);
    if ((st = tqh_baseline_load(cli->baseline, &bo, &baseline))) return fail(st, EXIT_USAGE);
  }
  st = tqh_results_rebuild(cli->report_dir, NULL, &problems);
  if (problems) {
    fputs(problems, stderr);
    tq_free(problems);
  }
  int html = !st && write_html_report(cli->report_dir, baseline);
  tqh_baseline_destroy(baseline);
  if (st) return fail(st, tq_status_code(st) == TQ_NOT_FOUND ? EXIT_USAGE : EXIT_INFRA);
  tq_buf_t path, text;
  tq_buf_init(&path, 0);
  st = tq_buf_printf(&path, "%s/summary.txt", cli->report_dir);
  if (!st) st = tq_file_read(path.data, 0, &text);
  if (!st && text.data) fputs(text.data, stdout);
  if (!st) tq_buf_deinit(&text);
  tq_buf_deinit(&path);
  if (st) return fail(st, EXIT_INFRA);
  printf("Rebuilt %s/junit.xml, %s/summary.txt%s%s%s from the journal.\n", cli->report_dir,
         cli->report_dir, html ? " and " : "", html ? cli->report_dir : "",
         html ? "/" TQH_HTML_REPORT_FILE : "");
  return html ? 0 : EXIT_INFRA;
}

static tq_status_t parse_seconds(const char *option, const char *env, const char *text,
                                 double *out) TQ_MUST_USE;

/* The upload options of the command line; `url` overrides --upload. Bad values are usage. */
static int upload_options(const cli_t *cli, const char *url, tqh_upload_options_t *o) {
  tqh_upload_options_initialize(o);
  o->url = url;
  o->profiles = cli->upload_profiles;
  tq_status_t st = tqh_upload_check_url(url);
  if (st) {
    int rc = bad_usage("--upload: %s", tq_status_message(st));
    tq_status_free(st);
    return rc;
  }
  if (cli->upload_timeout) {
    if ((st = parse_seconds("--upload-timeout", NULL, cli->upload_timeout, &o->timeout_s)))
      return fail(st, EXIT_USAGE);
    o->grace_s = o->timeout_s;
  }
  const char *env = cli->upload_token_env ? cli->upload_token_env : TQH_UPLOAD_TOKEN_ENV;
  o->token = getenv(env);
  if (cli->upload_token_env && (!o->token || !*o->token))
    return bad_usage("--upload-token-env=%s: that variable is not set", env);
  return 0;
}

/* One line about what an upload left (never the token; the URL without its password). */
static void print_upload_report(const char *run_dir, const char *url,
                                const tqh_upload_report_t *r) {
  char *shown = tqh_upload_display_url(url);
  if (!r->remaining)
    printf("Upload: everything sent to %s\n", shown ? shown : "the server");
  else
    fprintf(stderr,
            TOOL ": upload: %zu item%s not sent to %s (%s); they are kept: " TOOL
                 " upload %s\n",
            r->remaining, r->remaining == 1 ? "" : "s", shown ? shown : "the server",
            r->last_error[0] ? r->last_error : "no time left", run_dir);
  tq_free(shown);
}

/* `torq-test upload RUN_DIR`: sends the backlog (made from the journal for a run that had no
 * --upload). 0 when nothing is left, EXIT_INFRA otherwise. */
static int run_upload(const cli_t *cli) {
  char *recorded = NULL;
  int profiles = 0;
  tq_status_t st = tqh_upload_outbox_url(cli->upload_dir, &recorded, &profiles);
  if (st) return fail(st, EXIT_INFRA);
  const char *url = cli->upload ? cli->upload : recorded;
  if (!url) {
    tq_free(recorded);
    return bad_usage("%s/upload/url names no server: give --upload=URL", cli->upload_dir);
  }
  tqh_upload_options_t o;
  int rc = upload_options(cli, url, &o);
  o.profiles = o.profiles || (profiles && !cli->upload);
  tq_buf_t journal;
  tq_buf_init(&journal, 0);
  if (!rc && !(st = tq_buf_printf(&journal, "%s/journal.jsonl", cli->upload_dir)) &&
      access(journal.data, R_OK) != 0)
    rc = bad_usage("%s is not a run folder (no journal.jsonl)", cli->upload_dir);
  tq_buf_deinit(&journal);
  if (!rc && !st && cli->upload) st = tqh_upload_outbox_create(cli->upload_dir, url, o.profiles);
  if (!rc && !st) st = tqh_upload_outbox_fill(cli->upload_dir);
  tqh_upload_report_t r;
  if (!rc && !st && !(st = tqh_upload_send_backlog(cli->upload_dir, &o, 0, &r))) {
    if (cli->verbosity >= 0 || r.remaining)
      printf("Upload: %zu item%s sent\n", r.sent, r.sent == 1 ? "" : "s");
    print_upload_report(cli->upload_dir, url, &r);
    rc = r.remaining ? EXIT_INFRA : 0;
  }
  tq_free(recorded);
  if (st) return fail(st, EXIT_INFRA);
  return rc;
}

/* The configuration: built-in, configs/, environment, then the command line. */
static tq_status_t build_config(const cli_t *cli, tqh_config_t **out_cfg) {
  *out_cfg = NULL;
  tqh_config_t *cfg = NULL;
  TQ_TRY(tqh_config_create(&cfg));
  tqh_errors_t errors;
  tqh_errors_init(&errors, 0);
  tq_status_t st1 = tqh_config_load_dir(cfg, "configs", &errors);
  tq_status_t st2 = tqh_config_apply_env(cfg, NULL, &errors);
  tq_status_t st = NULL;
  /* All configuration errors at once: the files', the environment's, then the options'. */
  if (st1 || st2) {
    tq_buf_t text;
    tq_buf_init(&text, 0);
    tq_status_t fst = tqh_errors_format(&errors, &text);
    st = fst ? fst : TQ_STATUS(TQ_INVALID_ARGUMENT, "%s", text.data ? text.data : "");
    tq_buf_deinit(&text);
  }
  tq_status_free(st1);
  tq_status_free(st2);
  tqh_errors_deinit(&errors);
  const struct {
    const char *key, *value, *option;
  } sets[] = {{"repeat", cli->repeat, "--repeat"},
              {"warmup", cli->warmup, "--warmup"},
              {"jobs", cli->jobs, "-j"},
              {"results_dir", cli->results_dir, "--results-dir"},
              {"baseline_floor", cli->baseline_floor, "--baseline-floor"}};
  for (size_t i = 0; !st && i < sizeof(sets) / sizeof(sets[0]); i++) {
    if (!sets[i].value) continue;
    tq_status_t s = tqh_config_set(cfg, TQH_LAYER_CLI, sets[i].key, sets[i].value);
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
static void baseline_options(const tqh_config_t *cfg, tqh_baseline_options_t *o) {
  tqh_baseline_options_initialize(o);
  o->floor_pct = cfg->defaults.baseline_floor_pct;
}

static int run_compare(const cli_t *cli) {
  tqh_config_t *cfg = NULL;
  tq_status_t st = build_config(cli, &cfg);
  if (st) return fail(st, EXIT_USAGE);
  tqh_baseline_options_t o;
  baseline_options(cfg, &o);
  tqh_config_destroy(cfg);
  tq_buf_t text;
  tq_buf_init(&text, 0);
  size_t regressions = 0;
  st = tqh_baseline_compare_runs(cli->compare_a, cli->compare_b, &o, &text, &regressions);
  if (text.data) fputs(text.data, stdout);
  tq_buf_deinit(&text);
  if (st) return fail(st, tq_status_code(st) == TQ_NOT_FOUND ? EXIT_USAGE : EXIT_INFRA);
  return regressions ? EXIT_FAILED : 0;
}

/* ---- Boards ------------------------------------------------------------------------------- */

/* The boards of the run and the strings their specs point to. */
typedef struct boards_s {
  tqh_runner_boards_t run;
  tqh_board_spec_t *specs;
  size_t count;
  char **strings; /* owned */
  size_t num_strings, cap_strings;
  int on_boards; /* --torq-runtime-hw-type=astra_machina */
} boards_t;

static void boards_free(boards_t *b) {
  for (size_t i = 0; i < b->num_strings; i++) tq_free(b->strings[i]);
  tq_free(b->strings);
  tq_free(b->specs);
  memset(b, 0, sizeof(*b));
}

/* Keeps a copy of `s` for the life of `b`; NULL stays NULL. */
static const char *keep(boards_t *b, const char *s) {
  if (!s) return NULL;
  if (b->num_strings == b->cap_strings) {
    size_t cap = b->cap_strings ? b->cap_strings * 2 : 16;
    char **n = tq_realloc(b->strings, cap * sizeof(char *));
    if (!n) return NULL;
    b->strings = n;
    b->cap_strings = cap;
  }
  char *c = tq_strndup(s, strlen(s));
  if (c) b->strings[b->num_strings++] = c;
  return c;
}

static tq_status_t add_spec(boards_t *b, const tqh_board_spec_t *spec) {
  for (size_t i = 0; i < b->count; i++)
    if (!strcmp(b->specs[i].name, spec->name))
      return TQ_STATUS(TQ_INVALID_ARGUMENT, TOOL ": board '%s' is given twice", spec->name);
  tqh_board_spec_t *n = tq_realloc(b->specs, (b->count + 1) * sizeof(*n));
  if (!n) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  b->specs = n;
  b->specs[b->count++] = *spec;
  return NULL;
}

/* A board's settings: the command line, else the environment, else configs/. */
static const char *pick(const char *cli, const char *env_name, const char *config) {
  if (cli) return cli;
  const char *e = getenv(env_name);
  if (e && *e) return e;
  return config;
}

static tq_status_t spec_from_config(const cli_t *cli, boards_t *b, const tqh_board_t *cb,
                                    tqh_board_spec_t *out) {
  memset(out, 0, sizeof(*out));
  tqh_ssh_options_initialize(&out->ssh);
  out->name = keep(b, cb->name);
  out->ssh.host = keep(b, cb->host);
  out->ssh.port = cb->port ? cb->port : 22;
  out->ssh.user = keep(b, cb->user);
  out->ssh.key_file = keep(b, pick(cli->ssh_key, "TORQ_SSH_KEY", cb->key_file));
  out->ssh.known_hosts = keep(b, pick(cli->known_hosts, "TORQ_KNOWN_HOSTS", cb->known_hosts));
  out->ssh.accept_new_host_key = cli->accept_new_host_key;
  out->board_root = keep(b, pick(cli->board_root, "TORQ_BOARD_ROOT", cb->board_root));
  if (!out->name || !out->ssh.host) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  return NULL;
}

/* A --torq-addr board; settings it does not give come from a configs/ board with the same host
 * and port (and user, when both name one). */
static tq_status_t spec_from_addr(const cli_t *cli, const tqh_config_t *cfg, boards_t *b,
                                  const char *text, unsigned default_port,
                                  tqh_board_spec_t *out) {
  tqh_board_addr_t a;
  tq_status_t st = tqh_board_addr_parse(text, &a);
  if (st) {
    tq_status_t u = TQ_STATUS(TQ_INVALID_ARGUMENT, TOOL ": --torq-addr=%s: %s", text,
                              tq_status_message(st));
    tq_status_free(st);
    return u;
  }
  unsigned port = a.port ? a.port : default_port ? default_port : 22;
  const tqh_board_t *match = NULL;
  for (size_t i = 0; i < cfg->board_count && !match; i++) {
    const tqh_board_t *cb = &cfg->boards[i];
    if (strcasecmp(cb->host, a.host) != 0 || (cb->port ? cb->port : 22) != port) continue;
    if (a.user[0] && cb->user && strcmp(a.user, cb->user) != 0) continue;
    match = cb;
  }
  if (match) {
    TQ_TRY(spec_from_config(cli, b, match, out));
  } else {
    memset(out, 0, sizeof(*out));
    tqh_ssh_options_initialize(&out->ssh);
    out->ssh.key_file = keep(b, pick(cli->ssh_key, "TORQ_SSH_KEY", NULL));
    out->ssh.known_hosts = keep(b, pick(cli->known_hosts, "TORQ_KNOWN_HOSTS", NULL));
    out->ssh.accept_new_host_key = cli->accept_new_host_key;
    out->board_root = keep(b, pick(cli->board_root, "TORQ_BOARD_ROOT", NULL));
  }
  char name[512];
  snprintf(name, sizeof(name), "%s%s%s:%u", a.user, a.user[0] ? "@" : "", a.host, port);
  out->name = keep(b, match ? match->name : name);
  out->ssh.host = keep(b, a.host);
  out->ssh.port = port;
  if (a.user[0]) out->ssh.user = keep(b, a.user);
  if (!out->name || !out->ssh.host || (a.user[0] && !out->ssh.user))
    return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  return NULL;
}

static tq_status_t parse_seconds(const char *option, const char *env, const char *text,
                                 double *out) {
  char *end = NULL;
  errno = 0;
  double v = strtod(text, &end);
  if (!*text || *end || errno || !(v > 0) || v > 1e7)
    return TQ_STATUS(TQ_INVALID_ARGUMENT, TOOL ": %s=%s: expected seconds, a number above 0",
                     option ? option : env, text);
  *out = v;
  return NULL;
}

/* This program's folder + "/torq-run-module": the runtime built with it. */
static const char *default_runtime(boards_t *b) {
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 32);
  if (n <= 0) return keep(b, "torq-run-module");
  self[n] = 0;
  char *slash = strrchr(self, '/');
  if (!slash) return keep(b, "torq-run-module");
  snprintf(slash + 1, sizeof(self) - (size_t)(slash + 1 - self), "torq-run-module");
  return keep(b, self);
}

/* The boards of the run, from the command line and configs/, and every board problem of the
 * selected tests (all at once). */
static tq_status_t build_boards(const cli_t *cli, const tqh_config_t *cfg,
                                tqh_test_t *const *tests, size_t n, boards_t *b) {
  memset(b, 0, sizeof(*b));
  tqh_board_options_initialize(&b->run.options);
  b->on_boards = (cli->hw_type && !strcmp(cli->hw_type, "astra_machina")) ||
                 (!cli->hw_type && cli->num_addrs);
  unsigned default_port = 0;
  if (cli->port) {
    char *end = NULL;
    long v = strtol(cli->port, &end, 10);
    if (*end || v < 1 || v > 65535)
      return TQ_STATUS(TQ_INVALID_ARGUMENT, TOOL ": --torq-port=%s: expected 1 to 65535",
                       cli->port);
    default_port = (unsigned)v;
  }
  const struct {
    const char *cli, *env, *option;
    double *out;
  } times[] = {{cli->lease_ttl, "TORQ_LEASE_TTL", "--torq-lease-ttl", &b->run.options.lease_ttl_s},
               {cli->lease_renew, "TORQ_LEASE_RENEW", "--torq-lease-renew",
                &b->run.options.lease_renew_s},
               {cli->lease_wait, "TORQ_LEASE_WAIT", "--torq-lease-wait",
                &b->run.options.lease_wait_s}};
  for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++) {
    const char *v = pick(times[i].cli, times[i].env, NULL);
    if (v) TQ_TRY(parse_seconds(times[i].cli ? times[i].option : NULL, times[i].env, v,
                                times[i].out));
  }
  b->run.options.update_runtime = cli->update_astra_runtime;
  const char *rt = pick(cli->run_module, "TORQ_RUN_MODULE", NULL);
  b->run.options.runtime_path = rt ? keep(b, rt) : default_runtime(b);

  if (b->on_boards) {
    for (size_t i = 0; i < cli->num_addrs; i++) {
      /* "a,b" is two boards. */
      char *list = tq_strndup(cli->addrs[i], strlen(cli->addrs[i]));
      if (!list) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
      tq_status_t st = NULL;
      char *save = NULL;
      for (char *a = strtok_r(list, ",", &save); a && !st; a = strtok_r(NULL, ",", &save)) {
        tqh_board_spec_t spec;
        st = spec_from_addr(cli, cfg, b, a, default_port, &spec);
        if (!st) st = add_spec(b, &spec);
      }
      tq_free(list);
      TQ_TRY(st);
    }
    if (!cli->num_addrs) {
      for (size_t i = 0; i < cfg->board_count; i++) {
        tqh_board_spec_t spec;
        TQ_TRY(spec_from_config(cli, b, &cfg->boards[i], &spec));
        TQ_TRY(add_spec(b, &spec));
      }
    }
    if (!b->count)
      return TQ_STATUS(TQ_INVALID_ARGUMENT,
                       TOOL ": --torq-runtime-hw-type=astra_machina needs a board: "
                            "--torq-addr=user@host[:port], or boards in configs/*.yaml");
    b->run.all_tests = 1;
  } else {
    /* On the simulator, unless a test's target names a board of configs/. */
    tq_buf_t text;
    tq_buf_init(&text, 0);
    size_t errors = 0;
    for (size_t i = 0; i < n; i++) {
      const tqh_test_t *t = tests[i];
      const char *target = t->target ? t->target : "sim";
      if (!strcmp(target, "sim")) continue;
      const tqh_board_t *cb = tqh_config_find_board(cfg, target);
      if (!cb) {
        errors++;
        tq_status_free(tq_buf_printf(&text,
                                     "%s:%u:%u: error: test '%s': target '%s' is not a board "
                                     "of configs/*.yaml (nor 'sim')\n",
                                     t->loc.file ? t->loc.file : t->suite->path, t->loc.line,
                                     t->loc.col, t->id, target));
        continue;
      }
      int have = 0;
      for (size_t k = 0; k < b->count && !have; k++) have = !strcmp(b->specs[k].name, target);
      if (have) continue;
      tqh_board_spec_t spec;
      tq_status_t st = spec_from_config(cli, b, cb, &spec);
      if (!st) st = add_spec(b, &spec);
      if (st) {
        tq_buf_deinit(&text);
        return st;
      }
    }
    if (errors) {
      tq_status_t st = TQ_STATUS(TQ_INVALID_ARGUMENT, "%s%zu error%s", text.data, errors,
                                 errors == 1 ? "" : "s");
      tq_buf_deinit(&text);
      return st;
    }
    tq_buf_deinit(&text);
    if (cli->update_astra_runtime && !b->count)
      return TQ_STATUS(TQ_INVALID_ARGUMENT,
                       TOOL ": --update-astra-runtime needs a board: "
                            "--torq-runtime-hw-type=astra_machina --torq-addr=user@host[:port]");
  }
  if (b->count && !b->run.options.runtime_path) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  b->run.boards = b->specs;
  b->run.count = b->count;
  return NULL;
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
                        size_t total) {
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
  if ((st = tqh_shard_select(selected, num_selected, k, n, cli->shard_durations)))
    return fail(st, EXIT_USAGE);
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

/* `merge RUN_DIR...`: a new run under the results folder holding the runs' tests. */
static int run_merge(const cli_t *cli, int argc, char **argv) {
  tq_buf_t cmdline;
  tq_buf_init(&cmdline, 0);
  for (int i = 0; i < argc; i++)
    tq_status_free(tq_buf_printf(&cmdline, "%s%s", i ? " " : "", argv[i]));
  tqh_config_t *cfg = NULL;
  tq_status_t st = build_config(cli, &cfg);
  if (st) {
    tq_buf_deinit(&cmdline);
    return fail(st, EXIT_USAGE);
  }
  tqh_results_options_t ro;
  tqh_results_options_initialize(&ro);
  ro.root = cfg->results_dir;
  tqh_run_info_t info;
  memset(&info, 0, sizeof(info));
  info.tool_version = TOOL " " TQH_RUNNER_VERSION;
  info.target = "merged";
  info.command_line = cmdline.data;
  char *run_dir = NULL;
  size_t counts[TQH_OUTCOME_COUNT];
  st = tqh_merge_runs(cli->suites, cli->num_suites, &ro, &info, &run_dir, counts);
  tq_buf_deinit(&cmdline);
  tqh_config_destroy(cfg);
  if (st) {
    tq_status_code_t code = tq_status_code(st);
    return fail(st, code == TQ_INVALID_ARGUMENT || code == TQ_NOT_FOUND ? EXIT_USAGE : EXIT_INFRA);
  }
  tq_buf_t path, text;
  tq_buf_init(&path, 0);
  tq_status_free(tq_buf_printf(&path, "%s/summary.txt", run_dir));
  if (path.data && !(st = tq_file_read(path.data, 0, &text))) {
    if (text.data) fputs(text.data, stdout);
    tq_buf_deinit(&text);
  }
  tq_status_free(st);
  tq_buf_deinit(&path);
  write_html_report(run_dir, NULL);
  printf("Merged %zu run%s into %s/\n", cli->num_suites, cli->num_suites == 1 ? "" : "s",
         run_dir);
  tq_free(run_dir);
  return counts[TQH_OUTCOME_FAILED] || counts[TQH_OUTCOME_ERROR] ? EXIT_FAILED : 0;
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
  tqh_uploader_t *uploader = NULL;
  boards_t boards;
  memset(&boards, 0, sizeof(boards));
  char *git = NULL;
  tq_buf_t cmdline, config_text, errors_text, board_text;
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
    printf(TOOL " " TQH_RUNNER_VERSION " (runtime " TQR_VERSION ", module format %u)\n",
           TQR_MODULE_FORMAT_VERSION);
    goto done;
  }
  if (cli.report_dir) {
    rc = run_report(&cli);
    goto done;
  }
  if (cli.compare_a) {
    rc = run_compare(&cli);
    goto done;
  }
  if (cli.merge) {
    rc = run_merge(&cli, argc, argv);
    goto done;
  }
  if (cli.upload_dir) {
    rc = run_upload(&cli);
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
    rc = fail(st, EXIT_USAGE);
    goto done;
  }
  if (cli.marker && (st = tqh_select_parse(cli.marker, TQH_SELECT_MARKER, "-m", &marker))) {
    rc = fail(st, EXIT_USAGE);
    goto done;
  }
  if ((st = build_config(&cli, &cfg))) {
    rc = fail(st, EXIT_USAGE);
    goto done;
  }

  /* Every suite is loaded and checked before any test runs; all their errors are printed. */
  if (!cli.num_suites) cli.suites[cli.num_suites++] = DEFAULT_SUITE;
  suites = tq_calloc(cli.num_suites + 1, sizeof(*suites));
  if (!suites) {
    rc = fail(TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory"), EXIT_INFRA);
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
    rc = fail(TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory"), EXIT_INFRA);
    goto done;
  }
  for (size_t i = 0; i < num_suites; i++)
    for (size_t k = 0; k < suites[i]->test_count; k++)
      if (tqh_select_test(keyword, marker, &suites[i]->tests[k]))
        selected[num_selected++] = &suites[i]->tests[k];
  if ((rc = select_shard(&cli, selected, &num_selected, total))) {
    if (rc < 0) rc = 0; /* an empty shard */
    goto done;
  }
  if ((st = build_boards(&cli, cfg, selected, num_selected, &boards))) {
    rc = fail(st, EXIT_USAGE);
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
  if (cli.upload && (rc = upload_options(&cli, cli.upload, &upload))) goto done;
  if (cli.baseline) { /* a missing or unreadable baseline is usage: no run folder is made */
    tqh_baseline_options_t bo;
    baseline_options(cfg, &bo);
    if ((st = tqh_baseline_load(cli.baseline, &bo, &baseline))) {
      rc = fail(st, EXIT_USAGE);
      goto done;
    }
  }

  /* The run folder. */
  for (int i = 0; i < argc; i++)
    tq_status_free(tq_buf_printf(&cmdline, "%s%s", i ? " " : "", argv[i]));
  tq_status_free(tqh_config_describe(cfg, &config_text));
  git = git_revision();
  char compiler_version[64];
  snprintf(compiler_version, sizeof(compiler_version), "torq-compiler %s", TQR_VERSION);
  tqh_property_t config_props[2] = {{"configuration", config_text.data ? config_text.data : ""},
                                    {"cache_dir", cfg->cache_dir}};
  tqh_run_info_t info;
  memset(&info, 0, sizeof(info));
  info.tool_version = TOOL " " TQH_RUNNER_VERSION;
  info.compiler_version = compiler_version;
  info.runtime_version = "torq-runtime " TQR_VERSION;
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
  info.config_count = 2;
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
      rc = fail(tq_status_annotate(st, "--junitxml=%s", cli.junitxml), EXIT_INFRA);
      goto done;
    }
  }
  tqh_results_options_t ro;
  tqh_results_options_initialize(&ro);
  ro.root = cfg->results_dir;
  ro.junit_copy = cli.junitxml;
  if ((st = tqh_results_create(&ro, &info, &results))) {
    rc = fail(tq_status_annotate(st, "while creating the run folder under %s", cfg->results_dir),
              EXIT_INFRA);
    goto done;
  }

  tqh_runner_options_t opts;
  tqh_runner_options_initialize(&opts);
  opts.jobs = cfg->jobs;
  opts.strict = cli.strict;
  opts.verbosity = cli.verbosity;
  if (cli.no_color) opts.color = 0;
  opts.cache_dir = cfg->cache_dir;
  opts.recompute_cache = cli.recompute_cache;
  opts.profile_copy_dir = cli.profile_dir;
  opts.profiling = !cli.no_profiling;
  opts.cancel = &g_cancel;
  opts.baseline = baseline;
  if (cli.upload && (st = tqh_uploader_create(tqh_results_run_dir(results), &upload, &uploader))) {
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
  if (!st) write_html_report(tqh_results_run_dir(results), baseline);
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
      print_upload_report(tqh_results_run_dir(results), cli.upload, &ur);
    }
  }
  if (st) {
    rc = fail(st, EXIT_INFRA);
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
  boards_free(&boards);
  tq_buf_deinit(&board_text);
  tq_free(cli.addrs);
  tq_free(git);
  tq_buf_deinit(&cmdline);
  tq_buf_deinit(&config_text);
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
