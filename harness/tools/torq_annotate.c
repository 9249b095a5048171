/* torq-annotate: annotates a runtime profile with the compiler's debug info (DESIGN 3, 5.5):
 *
 *     torq-annotate DEBUG_INFO_DIR PROFILE.csv OUT.{csv,xlsx,pb} ...
 *     torq-annotate --trace trace.csv OUT.pb
 *
 * Bad input is reported with its file and line, and the outputs are written with what could be
 * annotated. Exit status: 0 success (warnings allowed), 1 invalid input (an error diagnostic, or
 * an output that could not be written), 2 bad usage. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "torq/base/alloc.h"
#include "torq/base/sha256.h"
#include "torq/base/status.h"
#include "torq/base/usage.h"
#include "torq/base/version.h"
#include "torq/harness/annotate.h"
#include "torq/harness/overview.h"
#include "torq/harness/perfetto.h"

#define TOOL "torq-annotate"
#define EXIT_INPUT 1
#define EXIT_USAGE 2
#define MAX_ARGS 64

typedef struct config_s {
  const char *args[MAX_ARGS]; /* positional */
  size_t n_args;
  const char *trace;
  const char *model;
  uint64_t clock_hz;
  size_t max_detail; /* --max-detail-invocations */
  int overview, help, version;
} config_t;

static void usage(FILE *f) {
  fputs("usage: " TOOL " DEBUG_INFO_DIR PROFILE.csv OUT... [options]\n"
        "       " TOOL " --trace trace.csv OUT.pb [--clock-hz=N]\n"
        "\n"
        "Annotates a runtime profile (torq-run-module --torq_profile_host=PROFILE.csv) with the\n"
        "debug info of its model (torq-compile --torq-debug-info=DEBUG_INFO_DIR). Each OUT is\n"
        "written by its extension:\n"
        "  .csv    the annotated CSV: one row per executed action per invocation\n"
        "  .xlsx   the same table, sheet 'Detailed Performance Data'\n"
        "  .pb     a Perfetto trace (ui.perfetto.dev): host actions and NSS program slots as\n"
        "          measured, the compiler's per-unit estimates inside each NSS program, and the\n"
        "          Host Profile Overview\n"
        "\n"
        "  --model=FILE       check that the debug info is of this model (source sha256)\n"
        "  --overview         print the Host Profile Overview of the run on stdout\n"
        "  --max-detail-invocations=N|all\n"
        "                     draw the compiler's per-task estimates in the .pb for the NSS\n"
        "                     programs of the first N invocations only (default 100; 0: none);\n"
        "                     what was measured, and the overview, always use every invocation\n"
        "  --trace=FILE       compile-time-only mode: the compile-time trace CSV\n"
        "                     (torq-compile --torq-dump-profiling) as a Perfetto trace\n"
        "  --clock-hz=N       the NPU clock for --trace (default 800000000)\n"
        "  --help, --version\n"
        "\n"
        "Problems in the inputs are printed as FILE:LINE: error: ... and the outputs are still\n"
        "written with what could be annotated.\n"
        "\n"
        "Exit status: 0 success, 1 invalid input or an output not written, 2 bad usage.\n",
        f);
}

#define usage_error(...) tq_usage_error(stderr, TOOL, __VA_ARGS__)

/* Value of --name=V or --name V; NULL when `arg` is not this option. */
static const char *opt_value(const char *arg, const char *name, int argc, char **argv, int *i,
                             int *missing) {
  size_t n = strlen(name);
  if (strncmp(arg, name, n) != 0) return NULL;
  if (arg[n] == '=') return arg + n + 1;
  if (arg[n] != 0) return NULL;
  if (*i + 1 >= argc) {
    *missing = 1;
    return NULL;
  }
  return argv[++*i];
}

static int parse_args(int argc, char **argv, config_t *c) {
  memset(c, 0, sizeof(*c));
  c->max_detail = TQH_DEFAULT_MAX_DETAIL_INVOCATIONS;
  int only_positional = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int missing = 0;
    const char *v;
    if (only_positional || a[0] != '-' || a[1] == 0) {
      if (c->n_args == MAX_ARGS) return usage_error("too many arguments (at most %s)", "64");
      c->args[c->n_args++] = a;
    } else if (strcmp(a, "--") == 0) {
      only_positional = 1;
    } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      c->help = 1;
    } else if (strcmp(a, "--version") == 0) {
      c->version = 1;
    } else if (strcmp(a, "--overview") == 0) {
      c->overview = 1;
    } else if ((v = opt_value(a, "--trace", argc, argv, &i, &missing))) {
      c->trace = v;
    } else if ((v = opt_value(a, "--model", argc, argv, &i, &missing))) {
      c->model = v;
    } else if ((v = opt_value(a, "--clock-hz", argc, argv, &i, &missing))) {
      char *end;
      unsigned long long hz = strtoull(v, &end, 10);
      if (!*v || *end || hz == 0 || hz > 100000000000ull)
        return usage_error("--clock-hz: '%s' is not a clock in Hz", v);
      c->clock_hz = hz;
    } else if ((v = opt_value(a, "--max-detail-invocations", argc, argv, &i, &missing))) {
      char *end;
      unsigned long long n = strtoull(v, &end, 10);
      if (strcmp(v, "all") == 0)
        c->max_detail = SIZE_MAX;
      else if (!*v || *end || *v == '-' || n >= SIZE_MAX)
        return usage_error("--max-detail-invocations: '%s' is not a count (or all)", v);
      else
        c->max_detail = (size_t)n;
    } else if (missing) {
      return usage_error("%s needs a value", a);
    } else {
      return usage_error("unknown option '%s'", a);
    }
  }
  return 0;
}

static void print_status(tq_status_t st) {
  char *text = tq_status_format(st, 0);
  fprintf(stderr, "%s: %s\n", TOOL, text ? text : "out of memory");
  free(text);
}

static void print_diags(const tqh_diags_t *d) {
  tq_buf_t buf;
  tq_buf_init(&buf, 0);
  tq_status_t st = tqh_diags_format(d, &buf);
  if (st) {
    print_status(st);
    tq_status_free(st);
  } else if (buf.len) {
    fwrite(buf.data, 1, buf.len, stderr);
  }
  tq_buf_deinit(&buf);
}

static int check_outputs(const config_t *c, size_t first) {
  if (c->n_args <= first) return usage_error("%s", "no output given (OUT.csv, OUT.xlsx or OUT.pb)");
  for (size_t i = first; i < c->n_args; i++)
    if (!tqh_output_kind_known(c->args[i]))
      return usage_error("output '%s': the extension must be .csv, .xlsx or .pb", c->args[i]);
  return 0;
}

static int run_trace_mode(const config_t *c) {
  if (check_outputs(c, 0)) return EXIT_USAGE;
  for (size_t i = 0; i < c->n_args; i++) {
    size_t n = strlen(c->args[i]);
    if (n < 3 || strcmp(c->args[i] + n - 3, ".pb") != 0)
      return usage_error("--trace writes only Perfetto traces (.pb), not '%s'", c->args[i]);
  }
  int rc = 0;
  for (size_t i = 0; i < c->n_args; i++) {
    tqh_diags_t d;
    tqh_diags_init(&d);
    tq_status_t st = tqh_compile_trace_to_perfetto(c->trace, c->clock_hz, c->args[i], &d);
    if (i == 0) print_diags(&d);
    if (d.errors) rc = EXIT_INPUT;
    tqh_diags_deinit(&d);
    if (st) {
      print_status(st);
      tq_status_free(st);
      return EXIT_INPUT;
    }
  }
  return rc;
}

int main(int argc, char **argv) {
  config_t c;
  int rc = parse_args(argc, argv, &c);
  if (rc) return rc;
  if (c.help) {
    usage(stdout);
    return 0;
  }
  if (c.version) {
    printf(TOOL " %s\n", TQ_VERSION);
    return 0;
  }
  if (c.trace) return run_trace_mode(&c);
  if (c.n_args < 2) return usage_error("%s", "expected DEBUG_INFO_DIR PROFILE.csv OUT...");
  if (check_outputs(&c, 2)) return EXIT_USAGE;

  tqh_annotate_options_t options;
  tqh_annotate_options_initialize(&options);
  char hex[TQ_SHA256_HEX_SIZE];
  if (c.model) {
    uint8_t digest[TQ_SHA256_SIZE];
    tq_status_t st = tq_sha256_file(c.model, digest);
    if (st) {
      print_status(st);
      tq_status_free(st);
      return EXIT_USAGE;
    }
    tq_sha256_hex(digest, hex);
    options.expected_source_sha256 = hex;
  }
  tqh_annotation_t *ann = NULL;
  tq_status_t st = tqh_annotate(c.args[0], c.args[1], &options, &ann);
  if (st) {
    print_status(st);
    rc = tq_status_exit_code(st) == EXIT_USAGE ? EXIT_INPUT : tq_status_exit_code(st);
    tq_status_free(st);
    return rc ? rc : EXIT_INPUT;
  }
  print_diags(&ann->diags);
  rc = ann->diags.errors ? EXIT_INPUT : 0;
  for (size_t i = 2; i < c.n_args; i++) {
    size_t n = strlen(c.args[i]);
    if (n > 3 && strcmp(c.args[i] + n - 3, ".pb") == 0) {
      tqh_perfetto_options_t po;
      tqh_perfetto_options_initialize(&po);
      po.max_detail_invocations = c.max_detail;
      st = tqh_annotation_write_perfetto_opt(ann, c.args[i], &po);
      if (!st && po.omitted_detail_runs)
        fprintf(stderr,
                TOOL ": note: %s: the compiler's per-task estimates are drawn for the NSS "
                "programs of the first %zu invocations; %zu later program runs are drawn "
                "without them (--max-detail-invocations=N|all)\n",
                c.args[i], c.max_detail, po.omitted_detail_runs);
    } else {
      st = tqh_annotation_write(ann, c.args[i]);
    }
    if (st) {
      print_status(st);
      tq_status_free(st);
      rc = EXIT_INPUT;
    }
  }
  if (c.overview) {
    tqh_overview_t ov;
    tqh_overview_init(&ov);
    tq_buf_t out;
    tq_buf_init(&out, 0);
    st = tqh_overview_compute(ann, &ov);
    if (!st) st = tqh_overview_format(&ov, ann->model_name, -1, &out);
    if (st) {
      print_status(st);
      tq_status_free(st);
      rc = EXIT_INPUT;
    } else {
      fwrite(out.data, 1, out.len, stdout);
    }
    tq_buf_deinit(&out);
    tqh_overview_deinit(&ov);
  }
  if (ann->diags.errors)
    fprintf(stderr, TOOL ": %zu error(s) in the inputs; the outputs hold what could be annotated\n",
            ann->diags.errors);
  tqh_annotation_destroy(ann);
  return rc;
}
