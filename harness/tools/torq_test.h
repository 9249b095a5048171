/* torq-test's parts (torq_test_cli.c: the command line, its subcommands and their help;
 * torq_test.c: the run; torq_test_commands.c: report, compare, merge, upload and the
 * configuration; torq_test_init.c: config and init; torq_test_boards.c: the boards of a run;
 * torq_test_history.c: the run history and the trends page). Private to the tool. */
#ifndef TORQ_HARNESS_TOOLS_TORQ_TEST_H
#define TORQ_HARNESS_TOOLS_TORQ_TEST_H

#include <stddef.h>
#include <stdio.h>

#include "torq/base/status.h"
#include "torq/base/usage.h"
#include "torq/harness/baseline.h"
#include "torq/harness/board.h"
#include "torq/harness/config.h"
#include "torq/harness/history.h"
#include "torq/harness/runner.h"
#include "torq/harness/select.h"
#include "torq/harness/suite.h"
#include "torq/harness/upload.h"

#define TOOL "torq-test"
#define DEFAULT_SUITE "suites/smoke.yaml"
#define EXIT_FAILED 1
#define EXIT_USAGE 2
#define EXIT_INFRA 3
#define EXIT_NOTHING_SELECTED 5 /* pytest's "no tests collected" */

#define bad_usage(...) tq_usage_error(stderr, TOOL, __VA_ARGS__)

/* The subcommands (torq_test_cli.c has their table: names, usage, help, positionals). */
typedef enum tt_command_e {
  TT_RUN, /* the default: torq-test [SUITE.yaml ...] */
  TT_REPORT,
  TT_COMPARE,
  TT_MERGE,
  TT_UPLOAD,
  TT_CONFIG,
  TT_INIT,
  TT_HISTORY,
  TT_TRENDS,
  TT_COMMAND_COUNT
} tt_command_t;

/* Every option of the command line, parsed before any work. */
typedef struct cli_s {
  tt_command_t command;
  const char **args; /* the positionals after the subcommand: owned array, borrowed strings */
  size_t num_args;
  const char **suites; /* TT_RUN and TT_CONFIG: the suites (args); merge: the run folders */
  size_t num_suites;
  const char *keyword;     /* -k */
  const char *marker;      /* -m */
  const char *jobs;        /* -j */
  const char *repeat;      /* --repeat */
  const char *warmup;      /* --warmup */
  const char *junitxml;    /* --junitxml */
  const char *results_dir; /* --results-dir */
  const char *hw_type;     /* --torq-runtime-hw-type */
  const char **addrs;      /* --torq-addr (repeatable, or comma separated): owned array */
  size_t num_addrs;
  const char **configs; /* --config FILE (repeatable): owned array */
  size_t num_configs;
  const char *port;                  /* --torq-port */
  const char *ssh_key;               /* --torq-ssh-key */
  const char *known_hosts;           /* --torq-known-hosts */
  const char *board_root;            /* --torq-board-root */
  const char *run_module;            /* --torq-run-module */
  const char *toolchain;             /* --toolchain=builtin */
  const char *tool_compile, *tool_run, *tool_annotate; /* --toolchain-compile, -run, -annotate */
  const char *lease_ttl;             /* --torq-lease-ttl */
  const char *lease_renew;           /* --torq-lease-renew */
  const char *lease_wait;            /* --torq-lease-wait */
  const char *profile_dir;           /* --torq-runtime-profiling-output-dir */
  const char *report_dir;            /* `report RUN_DIR` */
  const char *baseline;              /* --baseline */
  const char *baseline_floor;        /* --baseline-floor */
  const char *compare_a, *compare_b; /* `compare RUN_A RUN_B` */
  const char *shard;                 /* --shard K/N */
  const char *shard_durations;       /* --shard-durations RUN_DIR */
  const char *upload;                /* --upload URL */
  const char *upload_token_env;      /* --upload-token-env NAME */
  const char *upload_timeout;        /* --upload-timeout S */
  const char *upload_batch;          /* --upload-batch N */
  int upload_profiles;               /* --upload-profiles */
  const char *upload_dir;            /* `upload RUN_DIR` */
  const char *history;               /* --history PATH */
  int no_history;                    /* --no-history */
  const char *history_cmd;           /* `history import|list|show`: the rest in suites[] */
  const char *last;                  /* --last N (history list, history show, trends) */
  const char *output;                /* -o FILE (trends) */
  const char **metrics;              /* --metric M (history show; repeatable): owned array */
  size_t num_metrics;
  const char *maxfail;               /* --maxfail N */
  const char *durations;             /* --durations N */
  const char *overview;              /* --overview all|failed|none */
  const char *sort;                  /* --sort run|id|duration|outcome */
  const char *json;                  /* --json[=FILE]: "" for stdout; NULL when not given */
  int exitfirst;                     /* -x */
  int last_failed, failed_first;     /* --lf, --ff */
  int force;                         /* init --force */
  int list, recompute_cache, update_astra_runtime, strict, no_color, no_profiling, help, version;
  int accept_new_host_key;
  int verbosity; /* -1 -q, 0, 1 -v */
} cli_t;

/* ---- torq_test_cli.c ---- */

/* Parses argv into `cli` (every option, wherever it is, before the positionals are looked at);
 * returns 0, or the exit status of a usage error (already reported on stderr). */
int tt_parse_args(int argc, char **argv, cli_t *cli);
void tt_cli_free(cli_t *cli);
/* Runs the subcommand the command line names; returns its exit status. */
int tt_dispatch(const cli_t *cli, int argc, char **argv);
/* Prints the help of a subcommand (TT_RUN: the whole tool's). */
void tt_print_help(FILE *f, tt_command_t command);
/* The name of a subcommand ("run" for TT_RUN). */
const char *tt_command_name(tt_command_t command);

/* The boards of the run and the strings their specs point to. */
typedef struct boards_s {
  tqh_runner_boards_t run;
  tqh_board_spec_t *specs;
  size_t count;
  char **strings; /* owned */
  size_t num_strings, cap_strings;
  int on_boards; /* --torq-runtime-hw-type=astra_machina */
} boards_t;

/* Prints a status that ends the program and returns the exit status `code` for it. */
int tt_fail(tq_status_t st, int code);

/* ---- torq_test_commands.c ---- */

/* "S" (--option=S, or the environment variable `env`) as seconds above 0. */
tq_status_t tt_parse_seconds(const char *option, const char *env, const char *text,
                             double *out) TQ_MUST_USE;
/* The configuration: built-in, the project's configs/, TORQ_CONFIG, --config, the environment,
 * then the command line. */
tq_status_t tt_build_config(const cli_t *cli, tqh_config_t **out_cfg) TQ_MUST_USE;
/* The run-wide baseline options from the configuration. */
void tt_baseline_options(const tqh_config_t *cfg, tqh_baseline_options_t *o);
/* Writes RUN_DIR/index.html (with a link to the trends page when `trends_href`); reports a
 * failure on stderr. 1 when written. `records`: the run's journal when the caller holds it
 * (tqh_results_records), NULL to read RUN_DIR/journal.jsonl. */
int tt_write_html_report(const char *run_dir, const tqh_records_t *records,
                         tqh_baseline_t *baseline, const char *trends_href);
/* The same in two steps: the writing (no output; safe beside other work on the run's records)
 * and the report of its failure on stderr (takes `st`; 1 when there was none). */
tq_status_t tt_html_report(const char *run_dir, const tqh_records_t *records,
                           tqh_baseline_t *baseline, const char *trends_href) TQ_MUST_USE;
int tt_html_report_done(tq_status_t st);
/* Names on stderr, after "torq-test: WHAT: ", the journal lines a reader could not read (the
 * diagnostics in `diags`); the number of them. */
size_t tt_print_journal_problems(const char *what, const tqh_diags_t *diags);
/* The same for a loaded baseline (tqh_baseline_problems). */
void tt_print_baseline_problems(const tqh_baseline_t *baseline);
/* The upload options of the command line for `url`; an exit status for bad ones, else 0. */
int tt_upload_options(const cli_t *cli, const char *url, tqh_upload_options_t *o);
/* The upload a run makes: --upload, else the dashboard of TORQ_PERF_SERVER (into `buf`), else
 * none (NULL). */
const char *tt_upload_spec(const cli_t *cli, tq_buf_t *buf);
/* One line about what an upload left. */
void tt_print_upload_report(const char *run_dir, const char *url, const tqh_upload_report_t *r);
/* The subcommands; each returns the exit status. */
/* The run-wide external toolchain's programs, one "role: PATH (sha256 HEX, version V)" line each,
 * for run.json; "" for the built-in toolchain. */
void tt_toolchain_provenance(const tqh_config_t *cfg, tq_buf_t *out);
int tt_run_tests(const cli_t *cli, int argc, char **argv);
int tt_run_report(const cli_t *cli, int argc, char **argv);
int tt_run_compare(const cli_t *cli, int argc, char **argv);
int tt_run_merge(const cli_t *cli, int argc, char **argv);
int tt_run_upload(const cli_t *cli, int argc, char **argv);

/* Writes the run's JSON document (results.h: tqh_run_json) to `path` ("": stdout); a failure is
 * reported on stderr and gives EXIT_INFRA, else 0. */
int tt_write_json(const char *path, const char *run_dir, tqh_baseline_t *baseline);

/* ---- torq_test_select.c ---- */

/* Loads and checks every suite of cli->suites with `cfg` (all errors printed, then a usage error:
 * no test runs); *out_suites (tq_free; each tqh_suite_destroy) holds *out_count of them. */
int tt_load_suites(const cli_t *cli, const tqh_config_t *cfg, tqh_suite_t ***out_suites,
                   size_t *out_count);
/* A warning on stderr for each name of -m that no test of the suites has as a tag. */
void tt_warn_unused_tags(const tqh_select_t *marker, tqh_suite_t *const *suites, size_t n);
/* --lf keeps the selected tests that failed in the last run under `results_dir`, --ff puts them
 * first; all of them when none failed or there is no earlier run (said on `out`). 0, or an exit
 * status. */
int tt_select_last_failed(const cli_t *cli, FILE *out, const char *results_dir,
                          tqh_test_t **selected, size_t *num_selected);

/* ---- torq_test_init.c ---- */

int tt_run_config(const cli_t *cli, int argc, char **argv);
int tt_run_init(const cli_t *cli, int argc, char **argv);
/* The project of the run: found from the first suite's folder upwards, else from the working
 * directory; NULL when there is none (heap string, tq_free). */
char *tt_project_of(const cli_t *cli);

/* ---- torq_test_history.c ---- */

/* Opens the run history the configuration names (--history, configs/ history:, else
 * RESULTS_DIR/history.sqlite): for writing (`write`: made when missing) or for reading (NULL and
 * no error when there is none, or when it is off). A history that cannot be opened is a status. */
tq_status_t tt_open_history(const tqh_config_t *cfg, int write, tqh_history_t **out) TQ_MUST_USE;
/* After a run or a merge: records RUN_DIR in the history (when there is one) and writes the
 * trends page beside it; *out_href (tq_free; NULL when none) is the page's link from RUN_DIR.
 * Problems are reported on stderr and change no exit status. `records`: the run's journal, as
 * the run wrote it (tqh_results_records). */
void tt_history_after_run(const cli_t *cli, tqh_history_t *history, const char *run_dir,
                          const tqh_records_t *records, char **out_href);
/* The same for a merged run, which replaces in the history the runs it was merged from
 * (`shard_dirs`). */
void tt_history_after_merge(const cli_t *cli, tqh_history_t *history, const char *run_dir,
                            const char *const *shard_dirs, size_t count, char **out_href);
/* The trends page's link from RUN_DIR when one exists beside the configuration's history
 * (tq_free; NULL when none). */
char *tt_trends_href(const tqh_config_t *cfg, const char *run_dir);
/* The link from RUN_DIR that tt_history_after_run gives when it writes the trends page of
 * `history` (tq_free; NULL when out of memory). */
char *tt_trends_href_of(tqh_history_t *history, const char *run_dir);
int tt_run_history(const cli_t *cli, int argc, char **argv);
int tt_run_trends(const cli_t *cli, int argc, char **argv);

/* ---- torq_test_boards.c ---- */

/* The boards of the run (--torq-addr, configs/NAME.yaml) for the selected tests. */
tq_status_t tt_build_boards(const cli_t *cli, const tqh_config_t *cfg, tqh_test_t *const *tests,
                            size_t n, boards_t *b) TQ_MUST_USE;
void tt_boards_free(boards_t *b);

#endif
