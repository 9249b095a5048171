/* Where configuration is found and how it is shown (config.h): the project that holds a suite,
 * TORQ_CONFIG and --config paths, and the effective settings with the source of each, as text
 * (`torq-test config`) and as JSON (run.json). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "suite_internal.h"
#include "torq/base/alloc.h"
#include "torq/harness/config.h"
#include "torq/harness/json.h"

static int is_dir(const char *path) {
  struct stat sb;
  return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

tq_status_t tqh_config_find_project(const char *start, char **out_dir) {
  *out_dir = NULL;
  /* The folder the search starts in: `start` itself when it is one, else its folder. */
  char dir[PATH_MAX];
  if (is_dir(start)) {
    snprintf(dir, sizeof(dir), "%s", start);
  } else {
    const char *slash = strrchr(start, '/');
    if (!slash) snprintf(dir, sizeof(dir), ".");
    else if (slash == start) snprintf(dir, sizeof(dir), "/");
    else snprintf(dir, sizeof(dir), "%.*s", (int)(slash - start), start);
  }
  char abs[PATH_MAX], cwd[PATH_MAX];
  if (!realpath(dir, abs)) return NULL; /* a folder that does not exist is in no project */
  if (!getcwd(cwd, sizeof(cwd))) cwd[0] = 0;
  for (;;) {
    char probe[PATH_MAX + 16];
    snprintf(probe, sizeof(probe), "%s/configs", strcmp(abs, "/") ? abs : "");
    if (is_dir(probe)) {
      const char *found = !strcmp(abs, cwd) ? "." : abs;
      *out_dir = tq_strndup(found, strlen(found));
      return *out_dir ? NULL : TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
    }
    char *slash = strrchr(abs, '/');
    if (!slash || !strcmp(abs, "/")) return NULL;
    if (slash == abs) slash[1] = 0;
    else *slash = 0;
  }
}

tq_status_t tqh_config_load_project(tqh_config_t *config, const char *project_dir,
                                    tqh_diags_t *errors) {
  config->project_dir = tq_arena_strndup(&config->arena, project_dir, strlen(project_dir));
  const char *results = tqh__path_against(&config->arena, project_dir, "results");
  const char *cache = tqh__path_against(&config->arena, project_dir, "build/cache");
  if (!config->project_dir || !results || !cache)
    return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  if (config->results_dir_layer <= TQH_LAYER_BUILTIN) config->results_dir = results;
  if (config->cache_dir_layer <= TQH_LAYER_BUILTIN) config->cache_dir = cache;
  const char *dir = tqh__path_against(&config->arena, project_dir, "configs");
  if (!dir) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  return tqh__config_load_dir_at(config, dir, project_dir, errors);
}

tq_status_t tqh_config_load_path(tqh_config_t *config, const char *path, tqh_diags_t *errors) {
  struct stat sb;
  if (stat(path, &sb) != 0)
    return TQ_STATUS(TQ_INVALID_ARGUMENT, "cannot read the configuration %s: %s", path,
                     strerror(errno));
  if (S_ISDIR(sb.st_mode)) return tqh__config_load_dir_at(config, path, path, errors);
  const char *slash = strrchr(path, '/');
  char base[PATH_MAX];
  if (!slash) snprintf(base, sizeof(base), ".");
  else snprintf(base, sizeof(base), "%.*s", (int)(slash == path ? 1 : slash - path), path);
  return tqh_config_load_file_at(config, path, base, errors);
}

/* ---- The effective settings --------------------------------------------------------------- */

const char *const tqh_config_keys[] = {
    "targets",           "repeat",        "warmup",
    "compile_timeout",   "run_timeout",   "reference",
    "atol",              "rtol",          "seed",
    "compile_options",   "function",      "baseline_floor",
    "memory",            "baseline_gate", "toolchain_compile",
    "toolchain_run",     "toolchain_annotate", "golden",
    "results_dir",       "cache_dir",     "jobs",
    "history",           NULL};
_Static_assert(sizeof tqh_config_keys / sizeof tqh_config_keys[0] == TQH_SETTING_COUNT + 5,
               "tqh_config_keys: one key per setting, then results_dir, cache_dir, jobs, history");

/* The keys of tqh_config_keys stand for the settings in the order of tqh_setting_t, then the
 * run-wide four. */
const char *tqh_setting_key(tqh_setting_t setting) {
  return (unsigned)setting < TQH_SETTING_COUNT ? tqh_config_keys[setting] : "?";
}

static void join(char *text, size_t size, const char *const *v, size_t n, const char *sep) {
  size_t used = 0;
  text[0] = 0;
  for (size_t i = 0; i < n && used < size; i++)
    used += (size_t)snprintf(text + used, size - used, "%s%s", i ? sep : "", v[i]);
}

void tqh_settings_format(const tqh_settings_t *s, tqh_setting_t setting, char *text,
                         size_t size) {
  if (!size) return;
  text[0] = 0;
  switch (setting) {
    case TQH_SET_TARGETS:
      join(text, size, s->targets, s->target_count, ",");
      break;
    case TQH_SET_REPEAT:
      snprintf(text, size, "%u", s->repeat);
      break;
    case TQH_SET_WARMUP:
      snprintf(text, size, "%u", s->warmup);
      break;
    case TQH_SET_COMPILE_TIMEOUT:
      snprintf(text, size, "%g", s->compile_timeout_s);
      break;
    case TQH_SET_RUN_TIMEOUT:
      snprintf(text, size, "%g", s->run_timeout_s);
      break;
    case TQH_SET_REFERENCE:
      snprintf(text, size, "%s", s->reference ? "true" : "false");
      break;
    case TQH_SET_ATOL:
      snprintf(text, size, "%g", s->atol);
      break;
    case TQH_SET_RTOL:
      snprintf(text, size, "%g", s->rtol);
      break;
    case TQH_SET_SEED:
      snprintf(text, size, "%llu", (unsigned long long)s->seed);
      break;
    case TQH_SET_COMPILE_OPTIONS:
      join(text, size, s->compile_options, s->compile_option_count, " ");
      break;
    case TQH_SET_FUNCTION:
      snprintf(text, size, "%s", s->function ? s->function : "");
      break;
    case TQH_SET_BASELINE_FLOOR:
      snprintf(text, size, "%g", s->baseline_floor_pct);
      break;
    case TQH_SET_MEMORY: /* bytes, as tqh_parse_memory reads them back; 0 is no limit */
      if (s->memory_bytes) snprintf(text, size, "%llu", (unsigned long long)s->memory_bytes);
      else snprintf(text, size, "none");
      break;
    case TQH_SET_BASELINE_GATE:
      join(text, size, s->baseline_gate, s->baseline_gate_count, ",");
      break;
    case TQH_SET_TOOL_COMPILE:
    case TQH_SET_TOOL_RUN:
    case TQH_SET_TOOL_ANNOTATE: { /* the program and its arguments; "builtin" for the library */
      const tqh_tool_t *t = &s->tools[setting - TQH_SET_TOOL_COMPILE];
      if (t->argc) join(text, size, t->argv, t->argc, " ");
      else snprintf(text, size, "builtin");
      break;
    }
    case TQH_SET_GOLDEN:
      join(text, size, s->golden, s->golden_count, ",");
      break;
    case TQH_SETTING_COUNT:
      break;
  }
}

int tqh_config_get(const tqh_config_t *config, const char *key, char *text, size_t size,
                   tqh_layer_t *out_layer, const char **out_source) {
  size_t k = 0;
  while (tqh_config_keys[k] && strcmp(tqh_config_keys[k], key) != 0) k++;
  if (!tqh_config_keys[k] || !size) return 0;
  tqh_layer_t layer;
  const char *source;
  if (k < TQH_SETTING_COUNT) {
    layer = (tqh_layer_t)config->defaults.layer[k];
    source = config->sources[k];
    tqh_settings_format(&config->defaults, (tqh_setting_t)k, text, size);
  } else if (!strcmp(key, "results_dir")) {
    layer = config->results_dir_layer, source = config->results_dir_source;
    snprintf(text, size, "%s", config->results_dir);
  } else if (!strcmp(key, "cache_dir")) {
    layer = config->cache_dir_layer, source = config->cache_dir_source;
    snprintf(text, size, "%s", config->cache_dir);
  } else if (!strcmp(key, "history")) {
    layer = config->history_layer, source = config->history_source;
    char *h = tqh_config_history_path(config);
    snprintf(text, size, "%s", h ? h : "off");
    tq_free(h);
  } else {
    layer = config->jobs_layer, source = config->jobs_source;
    snprintf(text, size, "%u", config->jobs);
  }
  if (out_layer) *out_layer = layer;
  if (out_source) *out_source = source;
  return 1;
}

tq_status_t tqh_config_describe(const tqh_config_t *config, tq_buf_t *out) {
  char text[4096];
  for (size_t k = 0; tqh_config_keys[k]; k++) {
    tqh_layer_t layer;
    const char *source;
    tqh_config_get(config, tqh_config_keys[k], text, sizeof(text), &layer, &source);
    TQ_TRY(tq_buf_printf(out, "%s = %s  (%s%s%s)\n", tqh_config_keys[k], text,
                         tqh_layer_name(layer), source ? ": " : "", source ? source : ""));
  }
  for (size_t i = 0; i < config->board_count; i++) {
    const tqh_board_t *b = &config->boards[i];
    TQ_TRY(tq_buf_printf(out, "board %s = %s%s%s:%u  (%s:%u)\n", b->name, b->user ? b->user : "",
                         b->user ? "@" : "", b->host, b->port, b->loc.file, b->loc.line));
  }
  return NULL;
}

/* A setting's value as JSON: numbers, booleans, lists of strings or strings, as it is. */
static void json_value(tqh_jw_t *w, const tqh_config_t *c, size_t k) {
  const tqh_settings_t *s = &c->defaults;
  switch (k < TQH_SETTING_COUNT ? (int)k : -1) {
    case TQH_SET_TARGETS:
    case TQH_SET_COMPILE_OPTIONS: {
      int t = k == TQH_SET_TARGETS;
      const char *const *v = t ? s->targets : s->compile_options;
      size_t n = t ? s->target_count : s->compile_option_count;
      tqh_jw_array_begin(w);
      for (size_t i = 0; i < n; i++) tqh_jw_string(w, v[i]);
      tqh_jw_array_end(w);
      return;
    }
    case TQH_SET_REPEAT:
      tqh_jw_uint(w, s->repeat);
      return;
    case TQH_SET_WARMUP:
      tqh_jw_uint(w, s->warmup);
      return;
    case TQH_SET_COMPILE_TIMEOUT:
      tqh_jw_number(w, s->compile_timeout_s);
      return;
    case TQH_SET_RUN_TIMEOUT:
      tqh_jw_number(w, s->run_timeout_s);
      return;
    case TQH_SET_REFERENCE:
      tqh_jw_bool(w, s->reference);
      return;
    case TQH_SET_ATOL:
      tqh_jw_number(w, s->atol);
      return;
    case TQH_SET_RTOL:
      tqh_jw_number(w, s->rtol);
      return;
    case TQH_SET_SEED:
      tqh_jw_uint(w, s->seed);
      return;
    case TQH_SET_FUNCTION:
      tqh_jw_string(w, s->function);
      return;
    case TQH_SET_BASELINE_FLOOR:
      tqh_jw_number(w, s->baseline_floor_pct);
      return;
    case TQH_SET_MEMORY: /* bytes; null for no limit */
      if (s->memory_bytes) tqh_jw_uint(w, s->memory_bytes);
      else tqh_jw_string(w, NULL);
      return;
    case TQH_SET_BASELINE_GATE:
    case TQH_SET_GOLDEN: {
      int g = k == TQH_SET_GOLDEN;
      const char *const *v = g ? s->golden : s->baseline_gate;
      size_t n = g ? s->golden_count : s->baseline_gate_count;
      tqh_jw_array_begin(w);
      for (size_t i = 0; i < n; i++) tqh_jw_string(w, v[i]);
      tqh_jw_array_end(w);
      return;
    }
    case TQH_SET_TOOL_COMPILE:
    case TQH_SET_TOOL_RUN:
    case TQH_SET_TOOL_ANNOTATE: { /* its argv; null for the built-in library */
      const tqh_tool_t *t = &s->tools[k - TQH_SET_TOOL_COMPILE];
      if (!t->argc) {
        tqh_jw_string(w, NULL);
        return;
      }
      tqh_jw_array_begin(w);
      for (size_t i = 0; i < t->argc; i++) tqh_jw_string(w, t->argv[i]);
      tqh_jw_array_end(w);
      return;
    }
    default:
      if (!strcmp(tqh_config_keys[k], "results_dir")) {
        tqh_jw_string(w, c->results_dir);
      } else if (!strcmp(tqh_config_keys[k], "cache_dir")) {
        tqh_jw_string(w, c->cache_dir);
      } else if (!strcmp(tqh_config_keys[k], "history")) {
        char *h = tqh_config_history_path(c);
        tqh_jw_string(w, h); /* null: no history */
        tq_free(h);
      } else {
        tqh_jw_uint(w, c->jobs);
      }
  }
}

tq_status_t tqh_config_to_json(const tqh_config_t *config, tq_buf_t *out) {
  tqh_jw_t w;
  tqh_jw_init(&w, out, 0);
  tqh_jw_object_begin(&w);
  tqh_jw_key(&w, "project");
  char here[PATH_MAX];
  if (config->project_dir && !strcmp(config->project_dir, ".") && getcwd(here, sizeof(here)))
    tqh_jw_string(&w, here); /* "." says nothing once the run is over */
  else
    tqh_jw_string(&w, config->project_dir);
  tqh_jw_key(&w, "files");
  tqh_jw_array_begin(&w);
  for (size_t i = 0; i < config->file_count; i++) tqh_jw_string(&w, config->files[i]);
  tqh_jw_array_end(&w);
  tqh_jw_key(&w, "settings");
  tqh_jw_object_begin(&w);
  char text[16];
  for (size_t k = 0; tqh_config_keys[k]; k++) {
    tqh_layer_t layer;
    const char *source;
    tqh_config_get(config, tqh_config_keys[k], text, sizeof(text), &layer, &source);
    tqh_jw_key(&w, tqh_config_keys[k]);
    tqh_jw_object_begin(&w);
    tqh_jw_key(&w, "value");
    json_value(&w, config, k);
    tqh_jw_key(&w, "layer");
    tqh_jw_string(&w, tqh_layer_name(layer));
    tqh_jw_key(&w, "source");
    tqh_jw_string(&w, source);
    tqh_jw_object_end(&w);
  }
  tqh_jw_object_end(&w);
  tqh_jw_key(&w, "boards");
  tqh_jw_array_begin(&w);
  for (size_t i = 0; i < config->board_count; i++) {
    const tqh_board_t *b = &config->boards[i];
    tqh_jw_object_begin(&w);
    const struct {
      const char *key, *value;
    } f[] = {{"name", b->name},         {"host", b->host},
             {"user", b->user},         {"key_file", b->key_file},
             {"known_hosts", b->known_hosts}, {"board_root", b->board_root}};
    for (size_t j = 0; j < sizeof(f) / sizeof(f[0]); j++) {
      tqh_jw_key(&w, f[j].key);
      tqh_jw_string(&w, f[j].value);
      if (j == 1) {
        tqh_jw_key(&w, "port");
        tqh_jw_uint(&w, b->port);
      }
    }
    char src[PATH_MAX + 32];
    snprintf(src, sizeof(src), "%s:%u", b->loc.file ? b->loc.file : "", (unsigned)b->loc.line);
    tqh_jw_key(&w, "source");
    tqh_jw_string(&w, src);
    tqh_jw_object_end(&w);
  }
  tqh_jw_array_end(&w);
  tqh_jw_object_end(&w);
  return tqh_jw_finish(&w);
}
