/* torq-compile: the command-line client of libtorq-compiler. For now it parses, verifies and
 * prints a model in MLIR generic form (--compile-to=input); lowering comes in later steps.
 *
 * Exit status: 0 success, 1 invalid input (the diagnostic goes to stderr), 2 bad usage. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "torq/base/file.h"
#include "torq/base/status.h"
#include "torq/base/str.h"
#include "torq/compiler/mlir.h"

#define TQC_VERSION "0.1.0"

typedef struct config_s {
  const char *model;  /* path, or "-" for stdin */
  const char *output; /* NULL or "-": stdout */
  const char *compile_to;
  int help, version;
} config_t;

static void usage(FILE *f) {
  fputs("usage: torq-compile MODEL.mlir --compile-to=input [-o OUT]\n"
        "\n"
        "Parses and verifies an MLIR model (TOSA) and writes it in MLIR generic form.\n"
        "\n"
        "  MODEL.mlir            the model; '-' reads standard input\n"
        "  --compile-to=input    stop after parsing and verifying; print the generic form\n"
        "  -o, --output FILE     write to FILE (atomically) instead of standard output\n"
        "  --help                this text\n"
        "  --version             the version\n"
        "\n"
        "Exit status: 0 success, 1 invalid input, 2 bad usage.\n",
        f);
}

static int bad_usage(const char *fmt, ...) TQ_PRINTF(1, 2);
static int bad_usage(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("torq-compile: ", stderr);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputs("\nTry 'torq-compile --help' for more information.\n", stderr);
  return 2;
}

/* Parses argv into `cfg`; returns 0, or the exit status of a usage error. */
static int parse_args(int argc, char **argv, config_t *cfg) {
  memset(cfg, 0, sizeof(*cfg));
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      cfg->help = 1;
    } else if (!strcmp(a, "--version")) {
      cfg->version = 1;
    } else if (!strncmp(a, "--compile-to=", 13)) {
      cfg->compile_to = a + 13;
    } else if (!strcmp(a, "--compile-to")) {
      if (i + 1 >= argc) return bad_usage("option '%s' needs a value", a);
      cfg->compile_to = argv[++i];
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

static tq_status_t run(const config_t *cfg) {
  tqc_parse_options_t options;
  tqc_parse_options_initialize(&options);
  tqc_module_t *module = NULL;
  if (!strcmp(cfg->model, "-")) {
    tq_buf_t in;
    tq_buf_init(&in, 0);
    tq_status_t st = read_stdin(&in, options.max_file_size);
    if (!st) st = tqc_module_parse("<stdin>", in.data ? in.data : "", in.len, &options, &module);
    tq_buf_deinit(&in);
    TQ_TRY(st);
  } else {
    TQ_TRY(tqc_module_parse_file(cfg->model, &options, &module));
  }
  tq_buf_t out;
  tq_buf_init(&out, 0);
  tq_status_t st = tqc_module_verify(module);
  if (!st) st = tqc_module_print(module, &out);
  if (!st) {
    if (!cfg->output || !strcmp(cfg->output, "-")) {
      if (out.len && fwrite(out.data, 1, out.len, stdout) != out.len) {
        st = TQ_STATUS(TQ_IO, "writing standard output failed");
      }
      if (!st && fflush(stdout) != 0) st = TQ_STATUS(TQ_IO, "writing standard output failed");
    } else {
      st = tq_file_write_atomic(cfg->output, out.data ? out.data : "", out.len);
    }
  }
  tq_buf_deinit(&out);
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
    puts("torq-compile " TQC_VERSION);
    return 0;
  }
  if (!cfg.model) return bad_usage("%s", "no model given");
  if (!cfg.compile_to) {
    fputs("torq-compile: lowering to a module is not implemented yet (use --compile-to=input)\n",
          stderr);
    return 2;
  }
  if (strcmp(cfg.compile_to, "input") != 0) {
    return bad_usage("unknown --compile-to value '%s' (only 'input' is supported)",
                     cfg.compile_to);
  }
  tq_status_t st = run(&cfg);
  return st ? report(st) : 0;
}
