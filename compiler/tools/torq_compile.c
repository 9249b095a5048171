/* torq-compile: the command-line client of libtorq-compiler. It compiles a TOSA model into a
 * Torq module (.vmfb) with, on request, the compile-time trace and the debug-info directory; or,
 * with --compile-to=input, stops after parsing and verifying and prints the generic form.
 *
 * Exit status: 0 success, 1 invalid input (the diagnostic goes to stderr), 2 bad usage. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "torq/base/file.h"
#include "torq/base/status.h"
#include "torq/base/usage.h"
#include "torq/base/version.h"
#include "torq/base/str.h"
#include "torq/compiler/compile.h"
#include "torq/compiler/mlir.h"
#include "torq/sim/hw.h"


typedef struct config_s {
  const char *model;  /* path, or "-" for stdin */
  const char *output; /* NULL or "-": stdout */
  const char *compile_to; /* "input" or "module" (the default) */
  const char *hw_spec;    /* --torq-hw */
  const char *trace_path; /* --torq-dump-profiling */
  const char *debug_dir;  /* --torq-debug-info */
  int profiling;          /* --torq-enable-profiling */
  int help, version;
} config_t;

static void usage(FILE *f) {
  fputs("usage: torq-compile MODEL.mlir -o model.vmfb [--torq-enable-profiling]\n"
        "                    [--torq-dump-profiling=trace.csv] [--torq-debug-info=DIR]\n"
        "                    [--torq-hw=SPEC]\n"
        "       torq-compile MODEL.mlir --compile-to=input [-o OUT]\n"
        "\n"
        "Compiles a TOSA model (MLIR) for the Torq NPU into a module for torq-run-module.\n"
        "\n"
        "  MODEL.mlir                  the model; '-' reads standard input\n"
        "  -o, --output FILE           the module (written atomically); '-' is standard output\n"
        "  --torq-enable-profiling     write the compile-time trace (timeline.csv unless\n"
        "                              --torq-dump-profiling names the file)\n"
        "  --torq-dump-profiling=FILE  the compile-time trace: ID,Start,End,Location,Op Type\n"
        "                              (cycles)\n"
        "  --torq-debug-info=DIR       the debug-info directory torq-annotate reads\n"
        "  --torq-hw=SPEC              the hardware: sl2610 (default), optionally with\n"
        "                              overrides: sl2610,lram=256K,slices=1,clock=600M\n"
        "  --compile-to=input          stop after parsing and verifying; print the MLIR\n"
        "                              generic form\n"
        "  --help                      this text\n"
        "  --version                   the version\n"
        "\n"
        "Exit status: 0 success, 1 invalid input, 2 bad usage.\n",
        f);
}

#define bad_usage(...) tq_usage_error(stderr, "torq-compile", __VA_ARGS__)

/* Matches `--name=VALUE` or `--name VALUE` at argv[*i] (advancing *i past a separate value).
 * Returns the value, or NULL when argv[*i] is another option; *out_rc is set to a usage error's
 * exit status when the value is missing or empty. */
static const char *option_value(int argc, char **argv, int *i, const char *name, int *out_rc) {
  const char *a = argv[*i];
  size_t n = strlen(name);
  *out_rc = 0;
  if (strncmp(a, name, n) != 0) return NULL;
  const char *value = NULL;
  if (a[n] == '=') {
    value = a + n + 1;
  } else if (a[n] == 0) {
    if (*i + 1 >= argc) {
      *out_rc = bad_usage("option '%s' needs a value", name);
      return NULL;
    }
    value = argv[++*i];
  } else {
    return NULL;
  }
  if (!*value) {
    *out_rc = bad_usage("option '%s' needs a non-empty value", name);
    return NULL;
  }
  return value;
}

/* Parses argv into `cfg`; returns 0, or the exit status of a usage error. */
static int parse_args(int argc, char **argv, config_t *cfg) {
  memset(cfg, 0, sizeof(*cfg));
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *value;
    int rc = 0;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      cfg->help = 1;
    } else if (!strcmp(a, "--version")) {
      cfg->version = 1;
    } else if (!strcmp(a, "--torq-enable-profiling")) {
      cfg->profiling = 1;
    } else if ((value = option_value(argc, argv, &i, "--compile-to", &rc)) || rc) {
      if (rc) return rc;
      cfg->compile_to = value;
    } else if ((value = option_value(argc, argv, &i, "--torq-hw", &rc)) || rc) {
      if (rc) return rc;
      cfg->hw_spec = value;
    } else if ((value = option_value(argc, argv, &i, "--torq-dump-profiling", &rc)) || rc) {
      if (rc) return rc;
      cfg->trace_path = value;
    } else if ((value = option_value(argc, argv, &i, "--torq-debug-info", &rc)) || rc) {
      if (rc) return rc;
      cfg->debug_dir = value;
    } else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
      if (i + 1 >= argc) return bad_usage("option '%s' needs a file name", a);
      cfg->output = argv[++i];
    } else if (!strncmp(a, "-o=", 3) || !strncmp(a, "--output=", 9)) {
      cfg->output = strchr(a, '=') + 1;
    } else if (a[0] == '-' && a[1] != 0) {
      return bad_usage("unknown option '%s'", a);
    } else if (cfg->model) {
      return bad_usage("more than one model given ('%s')", a);
    } else {
      cfg->model = a;
    }
  }
  return 0;
}

static int report(tq_status_t st) {
  int code = tq_status_exit_code(st);
  if (tq_status_code(st) == TQ_INVALID_INPUT) {
    /* Already a complete compiler-style diagnostic. */
    fprintf(stderr, "%s\n", tq_status_message(st));
  } else {
    char *text = tq_status_format(st, 0);
    fprintf(stderr, "torq-compile: %s\n", text ? text : tq_status_message(st));
    free(text);
  }
  tq_status_free(st);
  return code == 0 || code == 3 ? 1 : code;
}

static tq_status_t read_stdin(tq_buf_t *buf, size_t limit) {
  char chunk[65536];
  for (;;) {
    ssize_t n = read(STDIN_FILENO, chunk, sizeof(chunk));
    if (n < 0) return TQ_STATUS(TQ_IO, "reading standard input failed");
    if (n == 0) return NULL;
    if (limit && buf->len + (size_t)n > limit) {
      return TQ_STATUS(TQ_LIMIT, "standard input is larger than %zu bytes", limit);
    }
    TQ_TRY(tq_buf_append(buf, chunk, (size_t)n));
  }
}

/* Writes `len` bytes to `path` atomically, or to standard output for NULL or "-". */
static tq_status_t write_output(const char *path, const char *data, size_t len) {
  if (path && strcmp(path, "-") != 0) return tq_file_write_atomic(path, data ? data : "", len);
  if (len && fwrite(data, 1, len, stdout) != len) {
    return TQ_STATUS(TQ_IO, "writing standard output failed");
  }
  if (fflush(stdout) != 0) return TQ_STATUS(TQ_IO, "writing standard output failed");
  return NULL;
}

static tq_status_t parse_model(const config_t *cfg, tqc_module_t **out_module) {
  tqc_parse_options_t options;
  tqc_parse_options_initialize(&options);
  if (!strcmp(cfg->model, "-")) {
    tq_buf_t in;
    tq_buf_init(&in, 0);
    tq_status_t st = read_stdin(&in, options.max_file_size);
    if (!st) st = tqc_module_parse("<stdin>", in.data ? in.data : "", in.len, &options, out_module);
    tq_buf_deinit(&in);
    TQ_TRY(st);
  } else {
    TQ_TRY(tqc_module_parse_file(cfg->model, &options, out_module));
  }
  return tqc_module_verify(*out_module);
}

/* Everything a compilation writes: the module, then the trace and the debug info. Each file is
 * written atomically, so a failure never leaves a partial module at the output path. */
static tq_status_t compile_and_write(const config_t *cfg, const tqc_module_t *module) {
  tqc_compile_options_t options;
  tqc_compile_options_initialize(&options);
  if (cfg->hw_spec) {
    TQ_TRY(tqs_hw_parse(cfg->hw_spec, &options.hw));
    options.hw_spec = cfg->hw_spec;
  }
  tqc_compiled_t *compiled = NULL;
  TQ_TRY(tqc_compile(module, &options, &compiled));
  tq_buf_t out;
  tq_buf_init(&out, 0);
  tq_status_t st = tqc_compiled_pack(compiled, &out);
  if (!st) st = write_output(cfg->output, out.data, out.len);
  const char *trace = cfg->trace_path ? cfg->trace_path : cfg->profiling ? "timeline.csv" : NULL;
  if (!st && trace) {
    tq_buf_clear(&out);
    st = tqc_compiled_trace_csv(compiled, &out);
    if (!st) st = tq_file_write_atomic(trace, out.data ? out.data : "", out.len);
    if (st) st = tq_status_annotate(st, "while writing the trace %s", trace);
  }
  if (!st && cfg->debug_dir) {
    st = tqc_compiled_write_debug_info(compiled, cfg->debug_dir);
    if (st) st = tq_status_annotate(st, "while writing the debug info %s", cfg->debug_dir);
  }
  tq_buf_deinit(&out);
  tqc_compiled_destroy(compiled);
  return st;
}

static tq_status_t run(const config_t *cfg) {
  tqc_module_t *module = NULL;
  tq_status_t st = parse_model(cfg, &module);
  if (!st && !strcmp(cfg->compile_to, "input")) {
    tq_buf_t out;
    tq_buf_init(&out, 0);
    st = tqc_module_print(module, &out);
    if (!st) st = write_output(cfg->output, out.data, out.len);
    tq_buf_deinit(&out);
  } else if (!st) {
    st = compile_and_write(cfg, module);
  }
  tqc_module_destroy(module);
  return st;
}

int main(int argc, char **argv) {
  config_t cfg;
  int rc = parse_args(argc, argv, &cfg);
  if (rc) return rc;
  if (cfg.help) {
    usage(stdout);
    return 0;
  }
  if (cfg.version) {
    puts("torq-compile " TQ_VERSION);
    return 0;
  }
  if (!cfg.model) return bad_usage("%s", "no model given");
  if (!cfg.compile_to) cfg.compile_to = "module";
  if (strcmp(cfg.compile_to, "input") != 0 && strcmp(cfg.compile_to, "module") != 0) {
    return bad_usage("unknown --compile-to value '%s' (expected 'input' or 'module')",
                     cfg.compile_to);
  }
  if (!strcmp(cfg.compile_to, "module") && (!cfg.output || !strcmp(cfg.output, "-")) &&
      isatty(STDOUT_FILENO)) {
    return bad_usage("%s", "no output file: give -o model.vmfb (a module is binary)");
  }
  tq_status_t st = run(&cfg);
  return st ? report(st) : 0;
}
