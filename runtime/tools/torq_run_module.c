/* torq-run-module: runs a Torq module's function on the embedded simulator, the way
 * iree-run-module runs an IREE module, and writes the runtime profile (DESIGN 3, 5.4).
 *
 * After the invocations it prints one line on stderr for the harness:
 *     torq-run-module: device_wall_time_us=<integer>
 * the CLOCK_MONOTONIC microseconds around all invocations (input binding, the action lists and
 * reading the outputs back; not loading the module, creating the session, parsing inputs or
 * writing outputs), measured on the host running this process. It is printed whenever at least
 * one invocation started, also when one failed.
 *
 * Exit status: 0 success; 1 a runtime failure, or an invalid module, input file or input tensor
 * (wrong shape or type for the function); 2 bad usage (unknown option, malformed --input syntax,
 * unknown --function). */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "torq/base/alloc.h"
#include "torq/base/file.h"
#include "torq/base/status.h"
#include "torq/base/usage.h"
#include "torq/base/version.h"
#include "torq/runtime/runtime.h"

#define TOOL "torq-run-module"
#define EXIT_RUNTIME 1
#define EXIT_USAGE 2

typedef struct config_s {
  const char *module;
  const char *function;
  const char **inputs;
  size_t n_inputs;
  const char **outputs;
  size_t n_outputs;
  const char *profile;
  uint64_t seed;
  uint64_t repeat;
  uint64_t print_max;
  int help, version;
} config_t;

static void usage(FILE *f) {
  fputs("usage: " TOOL
        " --module=FILE [--input=VALUE ...] [options]\n"
        "\n"
        "Runs the function of a Torq module (.vmfb) on the embedded NPU simulator.\n"
        "\n"
        "  --module=FILE              the module, from torq-compile\n"
        "  --function=NAME            the function to run (default: the module's, e.g. main)\n"
        "  --input=VALUE              one per function input, in order, in IREE syntax:\n"
        "                               1x56x56x24xi8=1        splat\n"
        "                               2x2xi32=1,2,3,4        all values\n"
        "                               @in.npy  (or =@in.npy, 1x4xi8=@in.npy)\n"
        "                               1x4xi8=@in.bin         raw bytes\n"
        "                               1x4xi8=@random         seeded random values\n"
        "                             types: i1 i8 i16 i32 i64 ui8 bf16 f16 f32\n"
        "  --seed=N                   seed of @random inputs (default 0)\n"
        "  --output=@FILE.npy|@FILE.bin|-|\n"
        "                             one per function result, in order: write it to a file,\n"
        "                             print it (-) or skip it (empty); results without an\n"
        "                             --output are printed\n"
        "  --print_max_element_count=N  elements printed per result (default 1024)\n"
        "  --torq_profile_host=FILE   write the runtime profile CSV (simulated microseconds)\n"
        "  --repeat=N                 run the function N times (invocation_id 1..N; INIT is\n"
        "                             0); the outputs are those of the last run\n"
        "  --device=NAME              accepted for compatibility; the device is the simulator\n"
        "  --help, --version\n"
        "\n"
        "After the runs, stderr gets the line\n"
        "  " TOOL
        ": device_wall_time_us=<integer>\n"
        "(CLOCK_MONOTONIC around the invocations on this host).\n"
        "\n"
        "Exit status: 0 success, 1 runtime failure or invalid module/input, 2 bad usage.\n",
        f);
}

#define bad_usage(...) tq_usage_error(stderr, TOOL, __VA_ARGS__)

/* Prints a status and returns the exit code it maps to. */
static int report(tq_status_t st, int code) {
  char *text = tq_status_format(st, 0);
  fprintf(stderr, TOOL ": %s\n", text ? text : "error (out of memory formatting it)");
  free(text);
  tq_status_free(st);
  return code;
}

/* Matches "--name=value" or "--name value"; returns 1 and sets *value, 0 if `arg` is another
 * option, -1 when the value is missing. */
static int option(int argc, char **argv, int *i, const char *name, const char **value) {
  const char *a = argv[*i];
  size_t n = strlen(name);
  if (strncmp(a, name, n) != 0) return 0;
  if (a[n] == '=') {
    *value = a + n + 1;
    return 1;
  }
  if (a[n] != 0) return 0;
  if (*i + 1 >= argc) return -1;
  *value = argv[++*i];
  return 1;
}

static int parse_args(int argc, char **argv, config_t *cfg) {
  cfg->repeat = 1;
  cfg->print_max = 1024;
  cfg->inputs = tq_calloc((size_t)argc + 1, sizeof(*cfg->inputs));
  cfg->outputs = tq_calloc((size_t)argc + 1, sizeof(*cfg->outputs));
  if (!cfg->inputs || !cfg->outputs) return bad_usage("out of memory");
  static const char *const names[] = {"--module",
                                      "--function",
                                      "--input",
                                      "--output",
                                      "--torq_profile_host",
                                      "--seed",
                                      "--repeat",
                                      "--print_max_element_count",
                                      "--device"};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      cfg->help = 1;
      continue;
    }
    if (!strcmp(a, "--version")) {
      cfg->version = 1;
      continue;
    }
    const char *v = NULL;
    int which = -1;
    for (size_t k = 0; k < sizeof(names) / sizeof(names[0]) && which < 0; k++) {
      int r = option(argc, argv, &i, names[k], &v);
      if (r < 0) return bad_usage("option '%s' needs a value", names[k]);
      if (r > 0) which = (int)k;
    }
    switch (which) {
      case 0:
        cfg->module = v;
        break;
      case 1:
        cfg->function = v;
        break;
      case 2:
        cfg->inputs[cfg->n_inputs++] = v;
        break;
      case 3:
        cfg->outputs[cfg->n_outputs++] = v;
        break;
      case 4:
        cfg->profile = v;
        break;
      case 5:
        if (!tq_parse_u64(v, 10, &cfg->seed))
          return bad_usage("--seed needs a non-negative integer, not '%s'", v);
        break;
      case 6:
        if (!tq_parse_u64(v, 10, &cfg->repeat) || cfg->repeat == 0 || cfg->repeat > UINT32_MAX)
          return bad_usage("--repeat needs an integer from 1 to %" PRIu32 ", not '%s'", UINT32_MAX,
                           v);
        break;
      case 7:
        if (!tq_parse_u64(v, 10, &cfg->print_max))
          return bad_usage("--print_max_element_count needs a non-negative integer, not '%s'", v);
        break;
      case 8:
        break;
      default:
        if (a[0] == '-') return bad_usage("unknown option '%s'", a);
        return bad_usage("unexpected argument '%s' (the module is given with --module=FILE)", a);
    }
  }
  for (size_t o = 0; o < cfg->n_outputs; o++) {
    const char *v = cfg->outputs[o];
    if (*v && strcmp(v, "-") != 0 && (v[0] != '@' || !v[1]))
      return bad_usage("--output=%s: expected @FILE.npy, @FILE.bin, '-' (print) or nothing (skip)",
                       v);
  }
  return 0;
}

static uint64_t monotonic_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static tq_status_t print_result(size_t index, const tqr_tensor_t *t, uint64_t max) {
  tq_buf_t b;
  tq_buf_init(&b, 0);
  tq_status_t st = tq_buf_printf(&b, "result[%zu]: hal.buffer_view\n", index);
  if (!st) st = tqr_tensor_format(t, max > SIZE_MAX ? SIZE_MAX : (size_t)max, &b);
  if (!st) st = tq_buf_putc(&b, '\n');
  if (!st && fwrite(b.data, 1, b.len, stdout) != b.len)
    st = TQ_STATUS(TQ_IO, "cannot write to standard output: %s", strerror(errno));
  tq_buf_deinit(&b);
  return st;
}

static tq_status_t write_outputs(const config_t *cfg, const char *function, tqr_tensor_t **outs,
                                 size_t n) {
  printf("EXEC @%s\n", function);
  for (size_t o = 0; o < n; o++) {
    const char *spec = o < cfg->n_outputs ? cfg->outputs[o] : "-";
    if (!*spec) continue;
    if (!strcmp(spec, "-")) {
      TQ_TRY(print_result(o, outs[o], cfg->print_max));
      continue;
    }
    const char *path = spec + 1;
    size_t len = strlen(path);
    tq_status_t st;
    if (len >= 4 && !strcmp(path + len - 4, ".npy"))
      st = tqr_npy_write(path, outs[o]);
    else
      st = tq_file_write_atomic(path, outs[o]->data ? (const void *)outs[o]->data : "",
                                outs[o]->size);
    if (st) return tq_status_annotate(st, "while writing result %zu", o);
  }
  if (fflush(stdout) != 0)
    return TQ_STATUS(TQ_IO, "cannot write to standard output: %s", strerror(errno));
  return NULL;
}

int main(int argc, char **argv) {
  config_t cfg;
  memset(&cfg, 0, sizeof(cfg));
  int rc = parse_args(argc, argv, &cfg);
  tqr_tensor_t **inputs = NULL, **outputs = NULL;
  tqr_module_t *module = NULL;
  tqr_device_t *device = NULL;
  tqr_profile_t *profile = NULL;
  tqr_session_t *session = NULL;
  size_t n_out = 0;
  if (rc) goto done;
  if (cfg.help) {
    usage(stdout);
    goto done;
  }
  if (cfg.version) {
    printf(TOOL " " TQ_VERSION " (module format %u)\n", TQF_MODULE_FORMAT_VERSION);
    goto done;
  }
  if (!cfg.module) {
    rc = bad_usage("missing --module=FILE");
    goto done;
  }

  inputs = tq_calloc(cfg.n_inputs + 1, sizeof(tqr_tensor_t *));
  if (!inputs) {
    rc = report(TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory"), EXIT_RUNTIME);
    goto done;
  }
  for (size_t i = 0; i < cfg.n_inputs; i++) {
    tqr_input_options_t io;
    tqr_input_options_initialize(&io);
    io.seed = cfg.seed;
    io.index = i;
    tq_status_t st = tqr_input_parse(cfg.inputs[i], &io, &inputs[i]);
    if (st) {
      int code = tq_status_code(st) == TQ_INVALID_ARGUMENT ? EXIT_USAGE : EXIT_RUNTIME;
      rc = report(tq_status_annotate(st, "input %zu", i), code);
      goto done;
    }
  }

  tq_status_t st = tqr_module_load_file(cfg.module, NULL, &module);
  if (st) {
    rc = report(st, EXIT_RUNTIME);
    goto done;
  }
  const char *fname = tqr_module_function_name(module);
  if (cfg.function) {
    const char *want = cfg.function[0] == '@' ? cfg.function + 1 : cfg.function;
    if (strcmp(want, fname) != 0) {
      rc = bad_usage("%s has no function '%s'; its function is '%s'", cfg.module, want, fname);
      goto done;
    }
  }
  n_out = tqr_module_proto(module)->function->n_outputs;
  if (cfg.n_outputs > n_out) {
    rc = bad_usage("%zu --output given, but function %s has %zu result%s", cfg.n_outputs, fname,
                   n_out, n_out == 1 ? "" : "s");
    goto done;
  }
  outputs = tq_calloc(n_out + 1, sizeof(tqr_tensor_t *));
  if (!outputs) {
    rc = report(TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory"), EXIT_RUNTIME);
    goto done;
  }
  if ((st = tqr_device_sim_create(&device))) {
    rc = report(st, EXIT_RUNTIME);
    goto done;
  }
  tqr_session_options_t so;
  tqr_session_options_initialize(&so);
  if (cfg.profile) {
    if (!(st = tqr_profile_create(0, &profile))) st = tqr_profile_open_csv(profile, cfg.profile);
    if (st) {
      rc = report(st, EXIT_RUNTIME);
      goto done;
    }
    so.profile = profile;
  }
  if ((st = tqr_session_create(module, device, &so, &session))) {
    rc = report(st, EXIT_RUNTIME);
    goto done;
  }

  uint64_t t0 = monotonic_ns();
  for (uint64_t r = 0; r < cfg.repeat && !st; r++) {
    for (size_t o = 0; o < n_out; o++) {
      tqr_tensor_destroy(outputs[o]);
      outputs[o] = NULL;
    }
    st = tqr_session_invoke(session, (const tqr_tensor_t *const *)inputs, cfg.n_inputs, outputs,
                            n_out);
  }
  uint64_t wall_us = (monotonic_ns() - t0) / 1000;
  tqr_session_stats_t stats;
  tqr_session_stats(session, &stats);
  if (stats.invocations) fprintf(stderr, TOOL ": device_wall_time_us=%" PRIu64 "\n", wall_us);
  if (st) {
    rc = report(st, EXIT_RUNTIME);
    goto done;
  }
  if ((st = write_outputs(&cfg, fname, outputs, n_out))) {
    rc = report(st, EXIT_RUNTIME);
    goto done;
  }

done: /* the profile is closed (and a failure to write it reported) once, below */
  tqr_session_destroy(session);
  if (profile) {
    tq_status_t cst = tqr_profile_close(profile);
    if (cst && !rc)
      rc = report(cst, EXIT_RUNTIME);
    else
      tq_status_free(cst);
    tqr_profile_destroy(profile);
  }
  tqr_device_destroy(device);
  tqr_module_destroy(module);
  for (size_t i = 0; inputs && i < cfg.n_inputs; i++) tqr_tensor_destroy(inputs[i]);
  for (size_t o = 0; outputs && o < n_out; o++) tqr_tensor_destroy(outputs[o]);
  tq_free(inputs);
  tq_free(outputs);
  tq_free(cfg.inputs);
  tq_free(cfg.outputs);
  return rc;
}
