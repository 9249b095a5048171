/* torq-test: the command-line client of the runner (runner.h). It parses every option into one
 * plain struct before doing any work, builds the configuration (built-in < configs/ *.yaml < suite
 * < TORQ_* environment < command line), loads and checks every suite (all errors printed before
 * any test runs), selects tests with -k / -m, and runs them.
 *
 *   torq-test [SUITE.yaml ...] [options]      run (default suite: suites/smoke.yaml)
 *   torq-test report RUN_DIR                  rebuild junit.xml and summary.txt from the journal
 *
 * Exit status: 0 all passed, 1 tests failed, 2 bad usage or configuration, 3 infrastructure,
 * 130 interrupted. */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "torq/base/alloc.h"
#include "torq/base/file.h"
#include "torq/base/status.h"
#include "torq/base/str.h"
#include "torq/harness/config.h"
#include "torq/harness/results.h"
#include "torq/harness/runner.h"
#include "torq/harness/select.h"
#include "torq/harness/suite.h"
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
  const char *addr;         /* --torq-addr */
  const char *profile_dir;  /* --torq-runtime-profiling-output-dir */
  const char *report_dir;   /* `report RUN_DIR` */
  int list, recompute_cache, update_astra_runtime, strict, no_color, no_profiling, help, version;
  int verbosity; /* -1 -q, 0, 1 -v */
} cli_t;

static void usage(FILE *f) {
  fputs("usage: " TOOL " [SUITE.yaml ...] [options]\n"
        "       " TOOL " report RUN_DIR\n"
        "\n"
        "Compiles, runs (on the simulator), checks and profiles the tests of YAML suites, and\n"
        "writes results/<run-id>/ with junit.xml, summary.txt and one folder per test.\n"
        "Without a suite, runs " DEFAULT_SUITE ".\n"
        "\n"
        "Selection:\n"
        "  -k EXPR                     tests whose id contains the words of EXPR (and, or, not,\n"
        "                              parentheses; case-insensitive): -k 'conv and not i16'\n"
        "  -m TAG-EXPR                 tests whose tags satisfy TAG-EXPR: -m 'smoke and not slow'\n"
        "  --list                      print the selected tests and exit\n"
        "Running:\n"
        "  -j, --jobs N                run N tests at once (default 1)\n"
        "  --repeat N                  timed runs per test (default 1)\n"
        "  --warmup N                  untimed runs before them (default 0)\n"
        "  --recompute-cache           compile every model, even when the cache has it\n"
        "  --strict                    an expected failure that passes fails the run\n"
        "  --no-profiling              no runtime profile, annotation or overview (faster)\n"
        "  --torq-runtime-hw-type=sim|astra_machina\n"
        "                              where models run (default sim, the embedded simulator)\n"
        "  --torq-addr=user@host[:port]  the board (astra_machina)\n"
        "  --update-astra-runtime      copy torq-run-module to the board first\n"
        "Output:\n"
        "  --results-dir=DIR           where runs are written (default results)\n"
        "  --junitxml=FILE             also write the JUnit XML report to FILE\n"
        "  --torq-runtime-profiling-output-dir=DIR\n"
        "                              also copy each test's profile files to DIR/<test>/\n"
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
        "(see the README); configuration files: configs/*.yaml.\n"
        "\n"
        "Exit status: 0 all passed, 1 tests failed, 2 bad usage or configuration,\n"
        "3 infrastructure fault, 130 interrupted.\n",
        f);
}

static int bad_usage(const char *fmt, ...) TQ_PRINTF(1, 2);
static int bad_usage(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs(TOOL ": ", stderr);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputs("\nTry '" TOOL " --help' for more information.\n", stderr);
  return EXIT_USAGE;
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
  if (!cli->suites) return bad_usage("out of memory");
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
      {"--torq-addr", offsetof(cli_t, addr)},
      {"--torq-runtime-profiling-output-dir", offsetof(cli_t, profile_dir)},
  };
  static const struct {
    const char *name;
    size_t offset;
    int value;
  } flags[] = {
      {"--list", offsetof(cli_t, list), 1},
      {"--recompute-cache", offsetof(cli_t, recompute_cache), 1},
      {"--update-astra-runtime", offsetof(cli_t, update_astra_runtime), 1},
      {"--strict", offsetof(cli_t, strict), 1},
      {"--no-color", offsetof(cli_t, no_color), 1},
      {"--no-profiling", offsetof(cli_t, no_profiling), 1},
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
      cli->suites[cli->num_suites++] = a;
      continue;
    }
    if (!strcmp(a, "--")) {
      positional_only = 1;
      continue;
    }
    int matched = 0;
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

static int run_report(const cli_t *cli) {
  char *problems = NULL;
  tq_status_t st = tqh_results_rebuild(cli->report_dir, NULL, &problems);
  if (problems) {
    fputs(problems, stderr);
    tq_free(problems);
  }
  if (st) return fail(st, tq_status_code(st) == TQ_NOT_FOUND ? EXIT_USAGE : EXIT_INFRA);
  tq_buf_t path, text;
  tq_buf_init(&path, 0);
  st = tq_buf_printf(&path, "%s/summary.txt", cli->report_dir);
  if (!st) st = tq_file_read(path.data, 0, &text);
  if (!st && text.data) fputs(text.data, stdout);
  if (!st) tq_buf_deinit(&text);
  tq_buf_deinit(&path);
  if (st) return fail(st, EXIT_INFRA);
  printf("Rebuilt %s/junit.xml and %s/summary.txt from the journal.\n", cli->report_dir,
         cli->report_dir);
  return 0;
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
              {"results_dir", cli->results_dir, "--results-dir"}};
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

/* Checks what this step cannot do yet: tests on boards. All problems at once. */
static tq_status_t check_tests(tqh_test_t *const *tests, size_t n) {
  tq_buf_t text;
  tq_buf_init(&text, 0);
  size_t errors = 0;
  for (size_t i = 0; i < n; i++) {
    const tqh_test_t *t = tests[i];
    if (strcmp(t->target ? t->target : "sim", "sim") != 0) {
      errors++;
      tq_status_free(tq_buf_printf(&text,
                                   "%s:%u:%u: error: test '%s': target '%s': boards are not "
                                   "supported yet (only 'sim')\n",
                                   t->loc.file ? t->loc.file : t->suite->path, t->loc.line,
                                   t->loc.col, t->id, t->target));
    }
  }
  tq_status_t st = NULL;
  if (errors) st = TQ_STATUS(TQ_INVALID_ARGUMENT, "%s%zu error%s", text.data, errors,
                             errors == 1 ? "" : "s");
  tq_buf_deinit(&text);
  return st;
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
  char *git = NULL;
  tq_buf_t cmdline, config_text, errors_text;
  tq_buf_init(&cmdline, 0);
  tq_buf_init(&config_text, 0);
  tq_buf_init(&errors_text, 0);
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
  if (cli.hw_type && strcmp(cli.hw_type, "sim") != 0 && strcmp(cli.hw_type, "astra_machina") != 0) {
    rc = bad_usage("--torq-runtime-hw-type=%s: expected 'sim' or 'astra_machina'", cli.hw_type);
    goto done;
  }
  if ((cli.hw_type && !strcmp(cli.hw_type, "astra_machina")) || cli.addr ||
      cli.update_astra_runtime) {
    fprintf(stderr, TOOL ": boards are not supported yet: --torq-runtime-hw-type=astra_machina, "
                    "--torq-addr and --update-astra-runtime come with board support; run on the "
                    "simulator (--torq-runtime-hw-type=sim, the default)\n");
    rc = EXIT_USAGE;
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
  if ((st = check_tests(selected, num_selected))) {
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
  info.target = "sim";
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
  install_signals();
  if (cli.verbosity >= 0)
    printf(TOOL ": %zu test%s from %zu suite%s, %zu worker%s, results in %s\n", num_selected,
           num_selected == 1 ? "" : "s", num_suites, num_suites == 1 ? "" : "s", opts.jobs,
           opts.jobs == 1 ? "" : "s", tqh_results_run_dir(results));
  tqh_runner_summary_t summary;
  st = tqh_runner_run(&opts, (const tqh_test_t *const *)selected, num_selected, results, &summary);
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
  tqh_results_destroy(results);
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
