/* torq-test's command line (torq_test.h): one table of subcommands and one of options, so that
 * every subcommand has its own --help, options are parsed wherever they are (`compare --json A
 * B`), an option a subcommand does not take is named as such, and an unknown option or
 * subcommand gets a "did you mean" (the suite checker's, diag.h). A new subcommand is a row of
 * k_commands (and its options name it in their `commands` mask). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "torq_test.h"
#include "torq/base/alloc.h"
#include "torq/harness/board.h"
#include "torq/harness/diag.h"
#include "torq/harness/upload.h"

#define B(c) (1u << (c))
#define RUN B(TT_RUN)
#define REPORT B(TT_REPORT)
#define COMPARE B(TT_COMPARE)
#define MERGE B(TT_MERGE)
#define UPLOAD B(TT_UPLOAD)
#define CONFIG B(TT_CONFIG)
#define INIT B(TT_INIT)
#define HISTORY B(TT_HISTORY)
#define TRENDS B(TT_TRENDS)
#define ALL (B(TT_COMMAND_COUNT) - 1u)

typedef struct command_s {
  const char *name;
  const char *usage;   /* after "torq-test " */
  const char *summary; /* one line, for the list of subcommands */
  const char *help;    /* what it does, for its --help */
  size_t min_args, max_args;
  int (*run)(const cli_t *cli, int argc, char **argv);
  const char *missing; /* what it says with fewer than min_args; NULL: the count and the usage */
} command_t;

static const command_t k_commands[TT_COMMAND_COUNT] = {
    [TT_RUN] = {"run", "[run] [SUITE.yaml ...] [options]",
                "compile, run, check and profile the tests of suites (the default)",
                "Compiles, runs (on the simulator or boards), checks and profiles the tests of YAML\n"
                "suites, and writes results/<run-id>/ with junit.xml, summary.txt, index.html (the\n"
                "HTML report) and one folder per test. Without a suite, runs the project's\n"
                "suites/smoke.yaml.\n",
                0, SIZE_MAX, tt_run_tests},
    [TT_REPORT] = {"report", "report RUN_DIR [--baseline=RUN_DIR] [options]",
                   "rebuild junit.xml, summary.txt and index.html of a run from its journal",
                   "Rebuilds RUN_DIR/junit.xml, summary.txt and index.html from RUN_DIR/journal.jsonl\n"
                   "(also of a run that was killed) and prints the summary.\n",
                   1, 1, tt_run_report,
                    "'report' needs the run folder: report RUN_DIR"},
    [TT_COMPARE] = {"compare", "compare RUN_A RUN_B [options]",
                    "compare the metrics of two runs (B against the baseline A)",
                    "Compares every test of RUN_B with the same test of RUN_A (the baseline), metric\n"
                    "by metric, and exits 1 when a test of RUN_B regressed.\n",
                    2, 2, tt_run_compare},
    [TT_MERGE] = {"merge",
                  "merge RUN_DIR... [--results-dir=DIR] [--upload=" TQH_DASHBOARD_SCHEME "URL]",
                  "merge shard runs into one new run",
                  "Makes one new run under the results folder from shard runs: their journals\n"
                  "concatenated, their test folders linked, the reports rebuilt. A test found in\n"
                  "two runs is an error. Exits 1 when a merged test failed. With the Torq\n"
                  "dashboard's --upload, closes the shards' session there (and sends the tests of\n"
                  "shards that uploaded nothing).\n",
                  1, SIZE_MAX, tt_run_merge,
                    "'merge' needs the run folders: merge RUN_DIR..."},
    [TT_UPLOAD] = {"upload", "upload RUN_DIR [--upload=URL]",
                   "send a run's upload backlog to the results server",
                   "Sends what a run could not upload (RUN_DIR/upload/), in order, to the recorded\n"
                   "URL or --upload=URL; for a run made without --upload, queues its tests first.\n"
                   "Exits 0 when nothing is left, 3 otherwise.\n",
                   1, 1, tt_run_upload,
                    "'upload' needs the run folder: upload RUN_DIR"},
    [TT_CONFIG] = {"config", "config [SUITE.yaml ...] [options]",
                   "print the effective configuration and where each value came from",
                   "Prints the configuration a run with the same arguments would use: the project\n"
                   "it found (from the suite's folder upwards, else the working directory), the\n"
                   "files it read (configs/, TORQ_CONFIG, --config), and every setting with its\n"
                   "layer and source (a file and line, a variable, an option); with suites, what\n"
                   "their defaults: change.\n",
                   0, SIZE_MAX, tt_run_config},
    [TT_INIT] = {"init", "init [DIR]",
                 "write a commented starter suite and configuration",
                 "Writes DIR/configs/default.yaml, DIR/suites/example.yaml and a small model\n"
                 "DIR/suites/models/example_add.mlir (DIR: the working directory), each commented,\n"
                 "so that `torq-test DIR/suites/example.yaml` runs at once. Existing files are\n"
                 "kept unless --force.\n",
                 0, 1, tt_run_init},
    [TT_HISTORY] = {"history", "history import RUN_DIR... | list | show SUITE/TEST [options]",
                    "the run history: backfill runs, list them, show a test's metrics",
                    "The run history (SQLite; RESULTS_DIR/history.sqlite by default) records every\n"
                    "finished run. `history import RUN_DIR...` backfills runs made before it (or\n"
                    "without it); `history list` lists the runs; `history show SUITE/TEST` prints a\n"
                    "test's metrics run by run (--metric M for more; --last N runs).\n",
                    1, SIZE_MAX, tt_run_history,
                    "'history' needs a command: history import RUN_DIR..., history list, "
                    "history show SUITE/TEST"},
    [TT_TRENDS] = {"trends", "trends [--last N] [-k EXPR] [-o FILE]",
                   "write the trends page: every test's metrics over the last runs",
                   "Writes a static HTML page (trends.html beside the history, or -o FILE): per test\n"
                   "and metric a chart of the last N runs (default 30) with its change points\n"
                   "(E-divisive means, permutation test), and the largest recent changes with the\n"
                   "run and git revision where each began.\n",
                   0, 0, tt_run_trends},
};

typedef enum kind_e {
  FLAG,     /* sets an int to `value` */
  VALUE,    /* --name=V, --name V, -nV, -n V */
  OPTIONAL, /* --name or --name=V ("" when absent) */
  LIST,     /* VALUE, repeatable: appended to an owned array */
} kind_t;

typedef struct option_s {
  const char *name;  /* "--jobs" */
  const char *alias; /* "-j", or NULL */
  kind_t kind;
  size_t offset; /* into cli_t */
  int value;     /* FLAG */
  unsigned commands;
  const char *group; /* the help's heading (the run's help only) */
  const char *syntax; /* the help's left column */
  const char *help;   /* may hold "\n" for more lines */
} option_t;

#define AT(f) offsetof(cli_t, f)

static const option_t k_options[] = {
    /* Selection */
    {"-k", NULL, VALUE, AT(keyword), 0, RUN | CONFIG | TRENDS, "Selection", "-k EXPR",
     "tests whose id contains the words of EXPR (and, or, not,\n"
     "parentheses; case-insensitive): -k 'conv and not i16'"},
    {"-m", NULL, VALUE, AT(marker), 0, RUN | CONFIG, "Selection", "-m TAG-EXPR",
     "tests whose tags satisfy TAG-EXPR: -m 'smoke and not slow'"},
    {"--list", "--collect-only", FLAG, AT(list), 1, RUN, "Selection", "--list, --collect-only",
     "print the selected tests and exit"},
    {"--lf", "--last-failed", FLAG, AT(last_failed), 1, RUN, "Selection", "--lf, --last-failed",
     "run only the tests that failed in the last run of the\n"
     "results folder (all of them when none failed)"},
    {"--ff", "--failed-first", FLAG, AT(failed_first), 1, RUN, "Selection",
     "--ff, --failed-first", "run the last run's failures first, then the rest"},
    {"--shard", NULL, VALUE, AT(shard), 0, RUN, "Selection", "--shard=K/N",
     "run only shard K (1..N) of the selected tests\n"
     "(default: CI_NODE_INDEX/CI_NODE_TOTAL when set)"},
    {"--shard-durations", NULL, VALUE, AT(shard_durations), 0, RUN, "Selection",
     "--shard-durations=RUN_DIR", "balance the shards by that run's test durations"},
    /* Running */
    {"--jobs", "-j", VALUE, AT(jobs), 0, RUN | CONFIG, "Running", "-j, --jobs N|auto",
     "run N tests at once (default 1; auto: one per processor)"},
    {"--repeat", NULL, VALUE, AT(repeat), 0, RUN | CONFIG, "Running", "--repeat N",
     "timed runs per test (default 1)"},
    {"--warmup", NULL, VALUE, AT(warmup), 0, RUN | CONFIG, "Running", "--warmup N",
     "untimed runs before them (default 0)"},
    {"--exitfirst", "-x", FLAG, AT(exitfirst), 1, RUN, "Running", "-x, --exitfirst",
     "stop after the first failed test (the rest: not run)"},
    {"--maxfail", NULL, VALUE, AT(maxfail), 0, RUN, "Running", "--maxfail=N",
     "stop after N failed tests"},
    {"--recompute-cache", NULL, FLAG, AT(recompute_cache), 1, RUN, "Running", "--recompute-cache",
     "compile every model, even when the cache has it"},
    {"--strict", NULL, FLAG, AT(strict), 1, RUN, "Running", "--strict",
     "an expected failure that passes fails the run"},
    {"--no-profiling", NULL, FLAG, AT(no_profiling), 1, RUN, "Running", "--no-profiling",
     "no runtime profile, annotation or overview (faster)"},
    {"--torq-runtime-hw-type", NULL, VALUE, AT(hw_type), 0, RUN, "Running",
     "--torq-runtime-hw-type=sim|astra_machina",
     "where models run (default sim, the embedded simulator;\n"
     "astra_machina: the boards of --torq-addr, else those of\n"
     "configs/*.yaml, one worker per board)"},
    /* Toolchain */
    {"--toolchain-compile", NULL, VALUE, AT(tool_compile), 0, RUN | CONFIG, "Toolchain",
     "--toolchain-compile=PATH",
     "an external torq-compile instead of the built-in compiler\n"
     "(compiled through the cache; its SHA-256 and --version are\n"
     "in the key)"},
    {"--toolchain-run", NULL, VALUE, AT(tool_run), 0, RUN | CONFIG, "Toolchain",
     "--toolchain-run=PATH",
     "an external torq-run-module (run as a process, or on the\n"
     "boards; --update-astra-runtime copies it there)"},
    {"--toolchain-annotate", NULL, VALUE, AT(tool_annotate), 0, RUN | CONFIG, "Toolchain",
     "--toolchain-annotate=PATH", "an external annotator (DEBUG_DIR PROFILE.csv OUT)"},
    {"--toolchain", NULL, VALUE, AT(toolchain), 0, RUN | CONFIG, "Toolchain",
     "--toolchain=builtin", "the built-in libraries, whatever configs and suites say"},
    /* Boards */
    {"--torq-addr", NULL, LIST, AT(addrs), 0, RUN, "Boards", "--torq-addr=user@host[:port]",
     "a board; repeat it (or separate with commas) for a pool"},
    {"--torq-port", NULL, VALUE, AT(port), 0, RUN, "Boards", "--torq-port=N",
     "the port when --torq-addr gives none (default 22)"},
    {"--update-astra-runtime", NULL, FLAG, AT(update_astra_runtime), 1, RUN, "Boards",
     "--update-astra-runtime",
     "copy this build's torq-run-module to\nBOARD_ROOT/<you>/torq-run-module when it differs"},
    {"--torq-run-module", NULL, VALUE, AT(run_module), 0, RUN, "Boards", "--torq-run-module=FILE",
     "the runtime to copy (default: beside torq-test)"},
    {"--torq-board-root", NULL, VALUE, AT(board_root), 0, RUN, "Boards", "--torq-board-root=DIR",
     "the harness's folder on the boards\n(default " TQH_BOARD_ROOT_DEFAULT ")"},
    {"--torq-ssh-key", NULL, VALUE, AT(ssh_key), 0, RUN, "Boards", "--torq-ssh-key=FILE",
     "the private key (default: ssh-agent, ~/.ssh/id_*)"},
    {"--torq-known-hosts", NULL, VALUE, AT(known_hosts), 0, RUN, "Boards",
     "--torq-known-hosts=FILE", "the known_hosts file (default ~/.ssh/known_hosts)"},
    {"--torq-accept-new-host-key", NULL, FLAG, AT(accept_new_host_key), 1, RUN, "Boards",
     "--torq-accept-new-host-key", "accept (and remember) a board's unknown host key"},
    {"--torq-lease-ttl", NULL, VALUE, AT(lease_ttl), 0, RUN, "Boards", "--torq-lease-ttl=S",
     "a lease lasts S seconds unless renewed (default 60)"},
    {"--torq-lease-renew", NULL, VALUE, AT(lease_renew), 0, RUN, "Boards", "--torq-lease-renew=S",
     "renew it every S seconds (default 10)"},
    {"--torq-lease-wait", NULL, VALUE, AT(lease_wait), 0, RUN, "Boards", "--torq-lease-wait=S",
     "wait S seconds for a board another run holds (600)"},
    /* Output */
    {"--results-dir", NULL, VALUE, AT(results_dir), 0,
     RUN | REPORT | COMPARE | MERGE | CONFIG | HISTORY | TRENDS, "Output",
     "--results-dir=DIR",
     "where runs are written (default: the project's results/)"},
    {"--junitxml", NULL, VALUE, AT(junitxml), 0, RUN, "Output", "--junitxml=FILE",
     "also write the JUnit XML report to FILE"},
    {"--json", NULL, OPTIONAL, AT(json), 0, RUN | REPORT | COMPARE | CONFIG, "Output",
     "--json[=FILE]",
     "one JSON document (README, \"JSON output\") on stdout, the\n"
     "rest of the output on stderr; or written to FILE"},
    {"--quiet", "-q", FLAG, AT(verbosity), -1, RUN | REPORT | MERGE | UPLOAD, "Output",
     "-q, --quiet", "only failures and one summary line"},
    {"--verbose", "-v", FLAG, AT(verbosity), 1, RUN, "Output", "-v, --verbose",
     "every test and its log (Wall time: ...)"},
    {"--overview", NULL, VALUE, AT(overview), 0, RUN | REPORT, "Output",
     "--overview=all|failed|none",
     "the Host Profile Overview blocks printed at the end\n(default all; none with -q)"},
    {"--sort", NULL, VALUE, AT(sort), 0, RUN | REPORT, "Output",
     "--sort=run|id|duration|outcome",
     "the summary's order (default run: as the tests started)"},
    {"--durations", NULL, VALUE, AT(durations), 0, RUN | REPORT, "Output", "--durations=N",
     "also list the N slowest tests with their compile/run\nsplit (0: all)"},
    {"--no-color", NULL, FLAG, AT(no_color), 1, RUN, "Output", "--no-color",
     "no colors (also when NO_COLOR is set)"},
    {"--torq-runtime-profiling-output-dir", NULL, VALUE, AT(profile_dir), 0, RUN, "Output",
     "--torq-runtime-profiling-output-dir=DIR",
     "also copy each test's profile files to DIR/<test>/"},
    /* Baseline */
    {"--baseline", NULL, VALUE, AT(baseline), 0, RUN | REPORT, "Baseline and history",
     "--baseline=RUN_DIR",
     "compare every test with the same test of that run\n"
     "(or a saved journal.jsonl); a regression fails it;\n"
     "--baseline=history[:K]: with its last K runs in the\n"
     "history (default 10)"},
    {"--baseline-floor", NULL, VALUE, AT(baseline_floor), 0, RUN | REPORT | COMPARE | CONFIG,
     "Baseline and history", "--baseline-floor=PCT",
     "the smallest change that is a verdict (default 5;\n"
     "TORQ_BASELINE_FLOOR; beats a suite's baseline: floor);\n"
     "measured times also need a U test (p < 0.01) and a\n"
     "median beyond the earlier runs' 99% prediction interval"},
    {"--history", NULL, VALUE, AT(history), 0,
     RUN | REPORT | COMPARE | MERGE | CONFIG | HISTORY | TRENDS, "Baseline and history",
     "--history=PATH",
     "the run history (default RESULTS_DIR/history.sqlite;\n"
     "history: in configs/*.yaml, TORQ_HISTORY)"},
    {"--no-history", NULL, FLAG, AT(no_history), 1, RUN | REPORT | COMPARE | MERGE | CONFIG,
     "Baseline and history", "--no-history", "record nothing, read no history"},
    {"--last", NULL, VALUE, AT(last), 0, HISTORY | TRENDS, "Baseline and history", "--last N",
     "the last N runs"},
    {"--metric", NULL, LIST, AT(metrics), 0, HISTORY, "Baseline and history", "--metric M",
     "history show: also this metric (repeatable)"},
    {"--output", "-o", VALUE, AT(output), 0, TRENDS, "Baseline and history", "-o, --output FILE",
     "the page (default trends.html beside the history)"},
    /* Upload */
    {"--upload", NULL, VALUE, AT(upload), 0, RUN | UPLOAD | MERGE, "Upload", "--upload=URL",
     "POST each test's report.json to URL/runs/RUN/tests/TEST\n"
     "as it finishes, then URL/runs/RUN/complete; what is not\n"
     "sent stays in RUN_DIR/upload/ for `upload RUN_DIR`.\n"
     "--upload=" TQH_DASHBOARD_SCHEME "URL: the Torq performance dashboard\n"
     "instead: the tests in batches to\n"
     "URL/api/test-sessions/upload_zip/, the session closed at\n"
     "the end (by `merge` for shards); also when\n"
     TQH_DASHBOARD_SERVER_ENV "=URL is set (token: " TQH_DASHBOARD_TOKEN_ENV ")"},
    {"--upload-batch", NULL, VALUE, AT(upload_batch), 0, RUN | UPLOAD | MERGE, "Upload",
     "--upload-batch=N",
     "the dashboard's batches: N tests at most (default 8), or\n"
     "what finished within 10 s"},
    {"--upload-profiles", NULL, FLAG, AT(upload_profiles), 1, RUN | UPLOAD, "Upload",
     "--upload-profiles", "also POST the profile files of each test"},
    {"--upload-token-env", NULL, VALUE, AT(upload_token_env), 0, RUN | UPLOAD | MERGE, "Upload",
     "--upload-token-env=NAME",
     "the bearer token's environment variable\n(default " TQH_UPLOAD_TOKEN_ENV
     "; the dashboard's: " TQH_DASHBOARD_TOKEN_ENV ")"},
    {"--upload-timeout", NULL, VALUE, AT(upload_timeout), 0, RUN | UPLOAD | MERGE, "Upload",
     "--upload-timeout=S",
     "the longest one request may take (default 30); also\n"
     "how long the backlog may take once the run is over"},
    /* Configuration */
    {"--config", NULL, LIST, AT(configs), 0, ALL & ~INIT, "Configuration", "--config=FILE",
     "also read FILE (or every *.yaml of a folder) after the\n"
     "project's configs/ and TORQ_CONFIG; repeatable"},
    {"--force", NULL, FLAG, AT(force), 1, INIT, "Configuration", "--force",
     "overwrite existing files"},
    {"--help", "-h", FLAG, AT(help), 1, ALL, NULL, "-h, --help", "this help"},
    {"--version", NULL, FLAG, AT(version), 1, ALL, NULL, "--version", "the version"},
};
#define NUM_OPTIONS (sizeof(k_options) / sizeof(k_options[0]))

int tt_dispatch(const cli_t *cli, int argc, char **argv) {
  return k_commands[cli->command].run(cli, argc, argv);
}

const char *tt_command_name(tt_command_t command) {
  return command < TT_COMMAND_COUNT ? k_commands[command].name : "?";
}

/* Prints `text` (lines split at "\n") in the help's right column. */
static void column(FILE *f, const char *syntax, const char *text) {
  int pad = 28 - 2 - (int)strlen(syntax);
  fprintf(f, "  %s", syntax);
  if (pad < 1) {
    fprintf(f, "\n%28s", "");
  } else {
    fprintf(f, "%*s", pad, "");
  }
  for (const char *p = text; *p;) {
    size_t n = strcspn(p, "\n");
    fprintf(f, "%.*s\n", (int)n, p);
    p += n;
    if (*p) {
      p++;
      fprintf(f, "%28s", "");
    }
  }
}

static void options_of(FILE *f, tt_command_t command) {
  const char *group = "";
  for (size_t i = 0; i < NUM_OPTIONS; i++) {
    const option_t *o = &k_options[i];
    if (!(o->commands & B(command))) continue;
    const char *g = command == TT_RUN && o->group ? o->group : "Options";
    if (strcmp(g, group) != 0) {
      fprintf(f, "%s:\n", g);
      group = g;
    }
    column(f, o->syntax, o->help);
  }
}

void tt_print_help(FILE *f, tt_command_t command) {
  const command_t *c = &k_commands[command];
  if (command == TT_RUN) {
    for (size_t i = 0; i < TT_COMMAND_COUNT; i++)
      fprintf(f, "%s " TOOL " %s\n", i ? "      " : "usage:", k_commands[i].usage);
  } else {
    fprintf(f, "usage: " TOOL " %s\n", c->usage);
  }
  fprintf(f, "\n%s", c->help);
  if (command == TT_RUN) {
    fputs("\nSubcommands (each has its own --help: " TOOL " compare --help):\n", f);
    for (size_t i = 1; i < TT_COMMAND_COUNT; i++) column(f, k_commands[i].name, k_commands[i].summary);
  }
  fputc('\n', f);
  options_of(f, command);
  if (command == TT_RUN)
    fputs("\n"
          "Compiled models are kept in a content-addressed cache (key: the model's bytes, the\n"
          "compile options and the compiler build), the project's build/cache by default\n"
          "(cache_dir in configs/*.yaml, TORQ_CACHE_DIR); the summary counts its hits and misses.\n"
          "\n"
          "Configuration, each overriding the one before: built-in < the project's\n"
          "configs/*.yaml (the project: the nearest folder upwards from the suite with configs/)\n"
          "< TORQ_CONFIG < --config < the suite < TORQ_* environment < command line;\n"
          "`" TOOL " config` shows the result and where each value came from.\n"
          "Environment: TORQ_REPEAT, TORQ_WARMUP, TORQ_JOBS, TORQ_RESULTS_DIR, TORQ_CACHE_DIR, ...\n"
          "(see the README); for boards TORQ_BOARD_ROOT, TORQ_SSH_KEY, TORQ_KNOWN_HOSTS,\n"
          "TORQ_RUN_MODULE, TORQ_LEASE_TTL, TORQ_LEASE_RENEW, TORQ_LEASE_WAIT (options win).\n"
          "Configuration files: configs/*.yaml (boards: name, host, port, user, key_file,\n"
          "known_hosts, board_root).\n"
          "\n"
          "Exit status: 0 all passed, 1 tests failed, 2 bad usage or configuration,\n"
          "3 infrastructure fault (a board unreachable, ...), 5 no test selected,\n"
          "130 interrupted.\n",
          f);
}

/* The option that `arg` names: "--name", "--name=V", or for a one-letter short option "-nV".
 * Sets *out_value to what follows '=' (or the short option's attached value), else NULL. */
static const option_t *lookup(const char *arg, const char **out_value) {
  *out_value = NULL;
  for (size_t i = 0; i < NUM_OPTIONS; i++) {
    const option_t *o = &k_options[i];
    const char *names[2] = {o->name, o->alias};
    for (int k = 0; k < 2; k++) {
      const char *n = names[k];
      if (!n) continue;
      size_t len = strlen(n);
      if (strncmp(arg, n, len) != 0) continue;
      if (arg[len] == 0) return o;
      if (arg[len] == '=' && n[1] == '-') {
        *out_value = arg + len + 1;
        return o;
      }
      if (len == 2 && n[1] != '-' && o->kind == VALUE) { /* -j4, -kconv */
        *out_value = arg + 2;
        return o;
      }
    }
  }
  return NULL;
}

/* "unknown option '--repat' (did you mean '--repeat'?)" */
static int unknown_option(const char *arg) {
  const char *names[2 * NUM_OPTIONS + 1];
  size_t n = 0;
  for (size_t i = 0; i < NUM_OPTIONS; i++) {
    names[n++] = k_options[i].name;
    if (k_options[i].alias) names[n++] = k_options[i].alias;
  }
  names[n] = NULL;
  char word[128];
  snprintf(word, sizeof(word), "%.*s", (int)strcspn(arg, "="), arg);
  const char *near = tqh_did_you_mean(word, names);
  if (near) return bad_usage("unknown option '%s' (did you mean '%s'?)", arg, near);
  return bad_usage("unknown option '%s'", arg);
}

/* Appends to a LIST option's array (sized for every argument by tt_parse_args). */
static void append(cli_t *cli, const option_t *o, const char *value) {
  const char ***arr = (const char ***)(void *)((char *)cli + o->offset);
  size_t *count = o->offset == AT(addrs)     ? &cli->num_addrs
                  : o->offset == AT(metrics) ? &cli->num_metrics
                                             : &cli->num_configs;
  (*arr)[(*count)++] = value;
}

/* Keeps the first mention of each option given, to check it against the subcommand. */
typedef struct seen_s {
  const option_t *option;
  const char *as; /* as typed */
} seen_t;

int tt_parse_args(int argc, char **argv, cli_t *cli) {
  memset(cli, 0, sizeof(*cli));
  size_t room = (size_t)argc + 1;
  cli->args = tq_calloc(room, sizeof(*cli->args));
  cli->addrs = tq_calloc(room, sizeof(*cli->addrs));
  cli->configs = tq_calloc(room, sizeof(*cli->configs));
  cli->metrics = tq_calloc(room, sizeof(*cli->metrics));
  seen_t *seen = tq_calloc(room, sizeof(*seen));
  if (!cli->args || !cli->addrs || !cli->configs || !cli->metrics || !seen) {
    tq_free(seen);
    return bad_usage("out of memory");
  }
  size_t num_seen = 0;
  int rc = 0, positional_only = 0;
  for (int i = 1; i < argc && !rc; i++) {
    const char *a = argv[i];
    if (positional_only || a[0] != '-' || !a[1]) {
      cli->args[cli->num_args++] = a;
      continue;
    }
    if (!strcmp(a, "--")) {
      positional_only = 1;
      continue;
    }
    const char *value = NULL;
    const option_t *o = lookup(a, &value);
    if (!o) {
      rc = unknown_option(a);
      break;
    }
    seen[num_seen++] = (seen_t){o, a};
    char *field = (char *)cli + o->offset;
    switch (o->kind) {
      case FLAG:
        if (value) rc = bad_usage("option '%s' takes no value", o->name);
        else *(int *)(void *)field = o->value;
        break;
      case OPTIONAL:
        *(const char **)(void *)field = value ? value : "";
        break;
      case VALUE:
      case LIST:
        if (!value) {
          if (i + 1 >= argc) {
            rc = bad_usage("option '%s' needs a value", a);
            break;
          }
          value = argv[++i];
        }
        if (!*value) {
          rc = bad_usage("option '%s' needs a non-empty value", o->name);
          break;
        }
        if (o->kind == LIST) append(cli, o, value);
        else *(const char **)(void *)field = value;
        break;
    }
  }
  /* The subcommand: the first positional, when it names one. */
  if (!rc && cli->num_args && !positional_only) {
    for (size_t c = 1; c < TT_COMMAND_COUNT; c++)
      if (!strcmp(cli->args[0], k_commands[c].name)) cli->command = (tt_command_t)c;
    if (cli->command != TT_RUN || !strcmp(cli->args[0], "run")) {
      memmove(cli->args, cli->args + 1, (cli->num_args - 1) * sizeof(*cli->args));
      cli->num_args--;
    } else if (!strchr(cli->args[0], '.') && !strchr(cli->args[0], '/')) {
      /* Not a file name either: a misspelt subcommand? */
      const char *names[TT_COMMAND_COUNT + 1];
      for (size_t c = 0; c < TT_COMMAND_COUNT; c++) names[c] = k_commands[c].name;
      names[TT_COMMAND_COUNT] = NULL;
      const char *near = tqh_did_you_mean(cli->args[0], names);
      if (near)
        rc = bad_usage("'%s' is neither a subcommand nor a suite file (did you mean '%s'?)",
                       cli->args[0], near);
    }
  }
  const command_t *cmd = &k_commands[cli->command];
  for (size_t i = 0; !rc && i < num_seen; i++) {
    if (seen[i].option->commands & B(cli->command)) continue;
    rc = bad_usage("option '%s' does not apply to '%s' (see " TOOL " %s%s--help)", seen[i].as,
                   cmd->name, cli->command == TT_RUN ? "" : cmd->name,
                   cli->command == TT_RUN ? "" : " ");
  }
  tq_free(seen);
  if (rc || cli->help || cli->version) return rc;
  if (cli->num_args < cmd->min_args) {
    if (cmd->missing) return bad_usage("%s", cmd->missing);
    return bad_usage("'%s' needs %zu argument%s: " TOOL " %s", cmd->name, cmd->min_args,
                     cmd->min_args == 1 ? "" : "s", cmd->usage);
  }
  if (cli->num_args > cmd->max_args)
    return bad_usage("unexpected argument '%s': " TOOL " %s", cli->args[cmd->max_args],
                     cmd->usage);
  if (cli->command == TT_HISTORY) {
    const char *what = cli->args[0];
    if (strcmp(what, "import") && strcmp(what, "list") && strcmp(what, "show"))
      return bad_usage("'history %s': expected history import RUN_DIR..., history list, history "
                       "show SUITE/TEST",
                       what);
    cli->history_cmd = what;
    memmove(cli->args, cli->args + 1, (cli->num_args - 1) * sizeof(*cli->args));
    cli->num_args--;
    if (!strcmp(what, "import") && !cli->num_args)
      return bad_usage("'history import' needs the run folders: history import RUN_DIR...");
    if (!strcmp(what, "show") && cli->num_args != 1)
      return bad_usage("'history show' needs one test: history show SUITE/TEST");
    if (!strcmp(what, "list") && cli->num_args)
      return bad_usage("unexpected argument '%s' after history list", cli->args[0]);
    if (cli->num_metrics && strcmp(what, "show"))
      return bad_usage("--metric: only 'history show' takes it");
  }
  if (cli->no_history && cli->history)
    return bad_usage("--history and --no-history contradict each other");
  cli->suites = cli->args;
  cli->num_suites = cli->num_args;
  if (cli->command == TT_REPORT) cli->report_dir = cli->args[0];
  if (cli->command == TT_UPLOAD) cli->upload_dir = cli->args[0];
  if (cli->command == TT_COMPARE) cli->compare_a = cli->args[0], cli->compare_b = cli->args[1];
  return 0;
}

void tt_cli_free(cli_t *cli) {
  tq_free(cli->args);
  tq_free(cli->addrs);
  tq_free(cli->configs);
  tq_free(cli->metrics);
  memset(cli, 0, sizeof(*cli));
}
