/* Configuration: built-in defaults, configs/NAME.yaml, TORQ_* variables and command-line values,
 * each remembered with its layer (config.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "suite_internal.h"
#include "torq/base/alloc.h"
#include "torq/base/file.h"
#include "torq/harness/baseline.h"
#include "torq/harness/history.h"
#include "torq/harness/config.h"

#define CONFIG_MAX_BYTES (4u << 20)
#define MAX_JOBS 1024
#define MAX_REPEAT 1000000

const char *tqh_layer_name(tqh_layer_t layer) {
  switch (layer) {
    case TQH_LAYER_UNSET:
      return "unset";
    case TQH_LAYER_BUILTIN:
      return "built-in";
    case TQH_LAYER_CONFIG:
      return "config";
    case TQH_LAYER_SUITE:
      return "suite";
    case TQH_LAYER_TEST:
      return "test";
    case TQH_LAYER_ENV:
      return "environment";
    case TQH_LAYER_CLI:
      return "command line";
  }
  return "unset";
}

void tqh_settings_merge(tqh_settings_t *dst, const tqh_settings_t *src) {
  for (int i = 0; i < TQH_SETTING_COUNT; i++) {
    if (src->layer[i] == TQH_LAYER_UNSET || src->layer[i] < dst->layer[i]) continue;
    dst->layer[i] = src->layer[i];
    switch ((tqh_setting_t)i) {
      case TQH_SET_TARGETS:
        dst->targets = src->targets;
        dst->target_count = src->target_count;
        break;
      case TQH_SET_REPEAT:
        dst->repeat = src->repeat;
        break;
      case TQH_SET_WARMUP:
        dst->warmup = src->warmup;
        break;
      case TQH_SET_COMPILE_TIMEOUT:
        dst->compile_timeout_s = src->compile_timeout_s;
        break;
      case TQH_SET_RUN_TIMEOUT:
        dst->run_timeout_s = src->run_timeout_s;
        break;
      case TQH_SET_REFERENCE:
        dst->reference = src->reference;
        break;
      case TQH_SET_ATOL:
        dst->atol = src->atol;
        break;
      case TQH_SET_RTOL:
        dst->rtol = src->rtol;
        break;
      case TQH_SET_SEED:
        dst->seed = src->seed;
        break;
      case TQH_SET_COMPILE_OPTIONS:
        dst->compile_options = src->compile_options;
        dst->compile_option_count = src->compile_option_count;
        break;
      case TQH_SET_FUNCTION:
        dst->function = src->function;
        break;
      case TQH_SET_MEMORY:
        dst->memory_bytes = src->memory_bytes;
        break;
      case TQH_SET_BASELINE_FLOOR:
        dst->baseline_floor_pct = src->baseline_floor_pct;
        break;
      case TQH_SET_BASELINE_GATE:
        dst->baseline_gate = src->baseline_gate;
        dst->baseline_gate_count = src->baseline_gate_count;
        break;
      case TQH_SET_TOOL_COMPILE:
      case TQH_SET_TOOL_RUN:
      case TQH_SET_TOOL_ANNOTATE:
      case TQH_SET_GOLDEN:
        tqh__toolchain_merge(dst, src, i);
        break;
      case TQH_SETTING_COUNT:
        break;
    }
  }
}

tq_status_t tqh_config_create(tqh_config_t **out_config) {
  *out_config = NULL;
  tqh_config_t *c = tq_calloc(1, sizeof(*c));
  if (!c) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory making the configuration");
  tq_arena_init(&c->arena, (size_t)16 * 1024, 0);
  tqh__settings_builtin(&c->defaults);
  c->results_dir = "results";
  c->cache_dir = "build/cache";
  c->jobs = 1;
  c->results_dir_layer = c->cache_dir_layer = c->jobs_layer = c->history_layer = TQH_LAYER_BUILTIN;
  *out_config = c;
  return NULL;
}

void tqh_config_destroy(tqh_config_t *config) {
  if (!config) return;
  tq_free(config->files);
  tq_arena_deinit(&config->arena);
  tq_free(config);
}

char *tqh_config_history_path(const tqh_config_t *config) {
  if (config->history && !*config->history) return NULL;
  if (config->history) return tq_strndup(config->history, strlen(config->history));
  return tq_strdup_printf("%s/" TQH_HISTORY_FILE, config->results_dir);
}

const tqh_board_t *tqh_config_find_board(const tqh_config_t *config, const char *name) {
  for (size_t i = 0; i < config->board_count; i++)
    if (!strcmp(config->boards[i].name, name)) return &config->boards[i];
  return NULL;
}

/* ---- YAML files ------------------------------------------------------------------------------ */

static const char *const config_keys[] = {
    "results_dir",     "cache_dir", "jobs",     "boards",    "targets",
    "repeat",          "warmup",    "timeout",  "reference", "seed",
    "compile_options", "function",  "baseline", "memory",    "history", "toolchain",
    NULL};
static const char *const board_keys[] = {"name",     "host",        "port",       "user",
                                         "key_file", "known_hosts", "board_root", NULL};

/* What a file changes, applied to the configuration only when the file has no error. */
typedef struct pending_s {
  tqh_settings_t defaults;
  const char *results_dir, *cache_dir, *history;
  uint32_t jobs;
  tqh_layer_t results_dir_layer, cache_dir_layer, jobs_layer, history_layer;
  const char *sources[TQH_SETTING_COUNT];
  const char *results_dir_source, *cache_dir_source, *jobs_source, *history_source;
  tqh_board_t *boards; /* arena */
  size_t board_count;
} pending_t;

/* "FILE:LINE" in the arena (NULL without memory: the value stays, its source is unknown). */
static const char *where(tq_arena_t *arena, const char *file, uint32_t line) {
  char buf[64];
  int n = snprintf(buf, sizeof(buf), ":%u", (unsigned)line);
  size_t fl = strlen(file);
  char *s = tq_arena_alloc(arena, fl + (size_t)n + 1);
  if (!s) return NULL;
  memcpy(s, file, fl);
  memcpy(s + fl, buf, (size_t)n + 1);
  return s;
}

const char *tqh__path_against(tq_arena_t *arena, const char *base, const char *path) {
  if (!path || !base || path[0] == '/' || !strcmp(base, ".")) return path;
  size_t bl = strlen(base), pl = strlen(path);
  char *s = tq_arena_alloc(arena, bl + pl + 2);
  if (!s) return NULL;
  memcpy(s, base, bl);
  s[bl] = '/';
  memcpy(s + bl + 1, path, pl + 1);
  return s;
}

/* The processors online: what `jobs: auto` and `-j auto` mean. */
static uint32_t auto_jobs(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : n > MAX_JOBS ? MAX_JOBS : (uint32_t)n;
}

static const char *read_path(tqh__report_t *rep, tq_arena_t *arena, const tqh__ynode_t *v,
                             const char *key) {
  const char *s;
  if (!tqh__ystr(rep, v, key, &s)) return NULL;
  if (!(s = tqh__subst(rep, arena, NULL, v, s))) return NULL;
  if (!*s) {
    tqh__error(rep, v->line, v->col, "%s: the path is empty", key);
    return NULL;
  }
  return s;
}

static void read_board(tqh__report_t *rep, tqh_config_t *config, const tqh__ynode_t *node,
                       const char *file, pending_t *p) {
  if (node->kind != TQH__Y_MAP) {
    tqh__error(rep, node->line, node->col,
               "boards: each board is a mapping {name, host, port, user, ...}, found %s",
               tqh__ydescribe(node));
    return;
  }
  for (size_t i = 0; i < node->count; i++) {
    const tqh__ynode_t *k = node->keys[i];
    if (k->kind == TQH__Y_SCALAR && (!strcmp(k->str, "password") || !strcmp(k->str, "passphrase")))
      tqh__error(rep, k->line, k->col,
                 "secrets never go in configs: use key_file (a file) or an ssh-agent");
  }
  tqh__ycheck_keys(rep, node, "a board", board_keys);
  tqh_board_t b;
  memset(&b, 0, sizeof(b));
  b.port = 22;
  b.loc = (tqh_loc_t){file, node->line, node->col};
  const tqh__ynode_t *name_key;
  const tqh__ynode_t *v = tqh__yget(node, "name", &name_key);
  if (!v) {
    tqh__error(rep, node->line, node->col, "a board needs a name: (what targets: name)");
  } else if (tqh__ystr(rep, v, "name", &b.name)) {
    if (!tqh__target_name_valid(b.name) || !strcmp(b.name, "sim")) {
      tqh__error(rep, v->line, v->col,
                 "board name \"%.60s\" must match [A-Za-z0-9_.-]+ and not be \"sim\"", b.name);
      b.name = NULL;
    }
  }
  if (!(v = tqh__yget(node, "host", NULL))) {
    tqh__error(rep, node->line, node->col, "a board needs a host:");
  } else if ((b.host = read_path(rep, &config->arena, v, "host"))) {
    for (const char *c = b.host; *c; c++)
      if (isspace((unsigned char)*c) || *c == '@') {
        tqh__error(rep, v->line, v->col,
                   "host: \"%.60s\" is not a host name (give the user in user:)", b.host);
        b.host = NULL;
        break;
      }
  }
  int64_t port;
  if ((v = tqh__yget(node, "port", NULL)) && tqh__yint(rep, v, "port", 1, 65535, &port))
    b.port = (uint16_t)port;
  if ((v = tqh__yget(node, "user", NULL))) b.user = read_path(rep, &config->arena, v, "user");
  if ((v = tqh__yget(node, "key_file", NULL)))
    b.key_file = read_path(rep, &config->arena, v, "key_file");
  if ((v = tqh__yget(node, "known_hosts", NULL)))
    b.known_hosts = read_path(rep, &config->arena, v, "known_hosts");
  if ((v = tqh__yget(node, "board_root", NULL)))
    b.board_root = read_path(rep, &config->arena, v, "board_root");
  if (!b.name) return;
  for (size_t i = 0; i < p->board_count; i++) {
    if (strcmp(p->boards[i].name, b.name) != 0) continue;
    const tqh_loc_t *first = &p->boards[i].loc;
    if (first->file == file)
      tqh__error_note(rep, name_key->line, name_key->col, first->line, first->col,
                      "first defined here", "board \"%s\" is defined twice", b.name);
    else
      tqh__error(rep, name_key->line, name_key->col, "board \"%s\" is already defined at %s:%u:%u",
                 b.name, first->file, first->line, first->col);
    return;
  }
  tqh_board_t *boards = tq_arena_alloc(&config->arena, (p->board_count + 1) * sizeof(*boards));
  if (!boards) {
    tqh__error(rep, node->line, node->col, "out of memory");
    return;
  }
  if (p->board_count) memcpy(boards, p->boards, p->board_count * sizeof(*boards));
  boards[p->board_count] = b;
  p->boards = boards;
  p->board_count++;
}

static void read_config(tqh__report_t *rep, tqh_config_t *config, const tqh__ynode_t *root,
                        const char *file, const char *base_dir, pending_t *p) {
  if (root->kind != TQH__Y_MAP) {
    tqh__error(rep, root->line, root->col, "a configuration is a mapping of settings, found %s",
               tqh__ydescribe(root));
    return;
  }
  tqh__ycheck_keys(rep, root, "a configuration", config_keys);
  tqh_settings_t s;
  memset(&s, 0, sizeof(s));
  const char *key_source[TQH_SETTING_COUNT] = {0};
  for (size_t i = 0; i < root->count; i++) {
    const tqh__ynode_t *k = root->keys[i], *v = root->items[i];
    if (k->kind != TQH__Y_SCALAR) continue;
    uint8_t before[TQH_SETTING_COUNT];
    memcpy(before, s.layer, sizeof(before));
    if (tqh__settings_parse_key(rep, &config->arena, NULL, k->str, v, TQH_LAYER_CONFIG, &s)) {
      for (int j = 0; j < TQH_SETTING_COUNT; j++)
        if (s.layer[j] != before[j]) key_source[j] = where(&config->arena, file, k->line);
      continue;
    }
    if (!strcmp(k->str, "results_dir")) {
      const char *d = read_path(rep, &config->arena, v, "results_dir");
      if (d) {
        p->results_dir = tqh__path_against(&config->arena, base_dir, d);
        p->results_dir_layer = TQH_LAYER_CONFIG;
        p->results_dir_source = where(&config->arena, file, k->line);
      }
    } else if (!strcmp(k->str, "cache_dir")) {
      const char *d = read_path(rep, &config->arena, v, "cache_dir");
      if (d) {
        p->cache_dir = tqh__path_against(&config->arena, base_dir, d);
        p->cache_dir_layer = TQH_LAYER_CONFIG;
        p->cache_dir_source = where(&config->arena, file, k->line);
      }
    } else if (!strcmp(k->str, "history")) {
      /* A path, or false: no history. */
      int on = 1;
      if (v->kind == TQH__Y_SCALAR && v->scalar == TQH__S_BOOL && tqh__parse_bool(v->str, &on)) {
        if (on) {
          tqh__error(rep, v->line, v->col, "history: expected a path, or false for none");
        } else {
          p->history = "", p->history_layer = TQH_LAYER_CONFIG;
          p->history_source = where(&config->arena, file, k->line);
        }
        continue;
      }
      const char *d = read_path(rep, &config->arena, v, "history");
      if (d) {
        p->history = tqh__path_against(&config->arena, base_dir, d);
        p->history_layer = TQH_LAYER_CONFIG;
        p->history_source = where(&config->arena, file, k->line);
      }
    } else if (!strcmp(k->str, "jobs")) {
      int64_t j;
      if (v->kind == TQH__Y_SCALAR && v->scalar == TQH__S_STRING && !strcmp(v->str, "auto")) {
        p->jobs = auto_jobs(), p->jobs_layer = TQH_LAYER_CONFIG;
        p->jobs_source = where(&config->arena, file, k->line);
      } else if (tqh__yint(rep, v, "jobs", 1, MAX_JOBS, &j)) {
        p->jobs = (uint32_t)j, p->jobs_layer = TQH_LAYER_CONFIG;
        p->jobs_source = where(&config->arena, file, k->line);
      }
    } else if (!strcmp(k->str, "boards")) {
      if (v->kind == TQH__Y_SCALAR && v->scalar == TQH__S_NULL) continue;
      if (v->kind != TQH__Y_SEQ) {
        tqh__error(rep, v->line, v->col, "boards: expected a list of boards, found %s",
                   tqh__ydescribe(v));
        continue;
      }
      for (size_t b = 0; b < v->count; b++) read_board(rep, config, v->items[b], file, p);
    }
  }
  for (int j = 0; j < TQH_SETTING_COUNT; j++)
    if (s.layer[j] != TQH_LAYER_UNSET && s.layer[j] >= p->defaults.layer[j])
      p->sources[j] = key_source[j];
  tqh_settings_merge(&p->defaults, &s);
}

static int layer_allows(tqh_layer_t current, tqh_layer_t layer) {
  return layer >= current;
}

tq_status_t tqh_config_load_file(tqh_config_t *config, const char *path, tqh_diags_t *errors) {
  return tqh_config_load_file_at(config, path, NULL, errors);
}

tq_status_t tqh_config_load_file_at(tqh_config_t *config, const char *path, const char *base_dir,
                                    tqh_diags_t *errors) {
  /* The path is kept for locations. */
  char **files = tq_realloc(config->files, (config->file_count + 1) * sizeof(*files));
  if (!files) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory reading %s", path);
  config->files = files;
  char *file = tq_arena_strndup(&config->arena, path, strlen(path));
  if (!file) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory reading %s", path);
  files[config->file_count++] = file;

  tq_buf_t buf;
  tq_status_t st = tq_file_read(path, CONFIG_MAX_BYTES, &buf);
  tqh__report_t rep;
  tqh__report_init(&rep, file, buf.data, buf.len, 0);
  if (st) {
    tqh__error(&rep, 0, 0, "cannot read the configuration: %s", tq_status_message(st));
    tq_status_free(st);
  } else {
    pending_t p;
    memset(&p, 0, sizeof(p));
    p.defaults = config->defaults;
    p.results_dir = config->results_dir;
    p.cache_dir = config->cache_dir;
    p.jobs = config->jobs;
    p.results_dir_layer = config->results_dir_layer;
    p.cache_dir_layer = config->cache_dir_layer;
    p.jobs_layer = config->jobs_layer;
    p.history = config->history;
    p.history_layer = config->history_layer;
    memcpy(p.sources, config->sources, sizeof(p.sources));
    p.results_dir_source = config->results_dir_source;
    p.cache_dir_source = config->cache_dir_source;
    p.jobs_source = config->jobs_source;
    p.history_source = config->history_source;
    p.boards = config->boards;
    p.board_count = config->board_count;
    tqh__ynode_t *root = tqh__yaml_parse(&config->arena, &rep, buf.data ? buf.data : "", buf.len);
    if (root) read_config(&rep, config, root, file, base_dir, &p);
    if (rep.errors.errors == 0) {
      config->defaults = p.defaults;
      memcpy(config->sources, p.sources, sizeof(p.sources));
      /* A file never overrides the environment or the command line. */
      if (layer_allows(config->results_dir_layer, p.results_dir_layer) && p.results_dir) {
        config->results_dir = p.results_dir, config->results_dir_layer = p.results_dir_layer;
        config->results_dir_source = p.results_dir_source;
      }
      if (layer_allows(config->cache_dir_layer, p.cache_dir_layer) && p.cache_dir) {
        config->cache_dir = p.cache_dir, config->cache_dir_layer = p.cache_dir_layer;
        config->cache_dir_source = p.cache_dir_source;
      }
      if (layer_allows(config->jobs_layer, p.jobs_layer)) {
        config->jobs = p.jobs, config->jobs_layer = p.jobs_layer;
        config->jobs_source = p.jobs_source;
      }
      if (layer_allows(config->history_layer, p.history_layer) && p.history) {
        config->history = p.history, config->history_layer = p.history_layer;
        config->history_source = p.history_source;
      }
      config->boards = p.boards;
      config->board_count = p.board_count;
    }
  }
  st = tqh__report_finish(&rep, errors);
  tqh__report_deinit(&rep);
  tq_buf_deinit(&buf);
  return st;
}

static int is_yaml_name(const char *n) {
  size_t l = strlen(n);
  return n[0] != '.' &&
         ((l > 5 && !strcmp(n + l - 5, ".yaml")) || (l > 4 && !strcmp(n + l - 4, ".yml")));
}

tq_status_t tqh_config_load_dir(tqh_config_t *config, const char *dir, tqh_diags_t *errors) {
  return tqh__config_load_dir_at(config, dir, NULL, errors);
}

tq_status_t tqh__config_load_dir_at(tqh_config_t *config, const char *dir, const char *base_dir,
                                    tqh_diags_t *errors) {
  /* stat first: a missing folder is no configuration, and tq_dir_list's errors do not tell it
   * apart from a path that is not a folder. */
  struct stat sb;
  int err = stat(dir, &sb) != 0 ? errno : S_ISDIR(sb.st_mode) ? 0 : ENOTDIR;
  if (err == ENOENT) return NULL;
  if (err)
    return TQ_STATUS(TQ_INVALID_ARGUMENT, "cannot open the configuration folder %s: %s", dir,
                     strerror(err));
  char **names;
  size_t n;
  TQ_TRY(tq_dir_list(dir, NULL, &names, &n));
  /* Every file is read, so that all their errors show at once. */
  tq_status_t st = NULL;
  tq_buf_t msgs, path;
  tq_buf_init(&msgs, 0);
  tq_buf_init(&path, 0);
  for (size_t i = 0; !st && i < n; i++) {
    if (!is_yaml_name(names[i])) continue;
    tq_buf_clear(&path);
    st = tq_buf_printf(&path, "%s/%s", dir, names[i]);
    if (st) break;
    tq_status_t fst = tqh_config_load_file_at(config, path.data, base_dir, errors);
    if (!fst) continue;
    if (tq_status_code(fst) != TQ_INVALID_ARGUMENT) {
      st = fst;
      break;
    }
    tq_status_t ast = tq_buf_printf(&msgs, "%s%s", msgs.len ? "\n" : "", tq_status_message(fst));
    tq_status_free(fst);
    if (ast) st = ast;
  }
  if (!st && msgs.len) st = TQ_STATUS(TQ_INVALID_ARGUMENT, "%s", msgs.data);
  tq_buf_deinit(&msgs);
  tq_buf_deinit(&path);
  tq_dir_list_free(names, n);
  return st;
}

/* ---- Text values: environment and command line ---------------------------------------------- */

static tq_status_t bad_value(const char *key, const char *value, const char *expected) {
  return TQ_STATUS(TQ_INVALID_ARGUMENT, "%s: expected %s, found \"%.80s\"", key, expected, value);
}

static tq_status_t parse_count(const char *key, const char *value, uint64_t min, uint64_t max,
                               uint32_t *out) {
  uint64_t v;
  if (!tqh__parse_u64(value, &v) || v < min || v > max) {
    char expected[96];
    snprintf(expected, sizeof(expected), "an integer from %llu to %llu", (unsigned long long)min,
             (unsigned long long)max);
    return bad_value(key, value, expected);
  }
  *out = (uint32_t)v;
  return NULL;
}

static tq_status_t parse_seconds(const char *key, const char *value, double *out) {
  double v;
  if (!tqh__parse_double(value, &v) || !(v > 0))
    return bad_value(key, value, "a number of seconds > 0");
  *out = v;
  return NULL;
}

/* Splits `value` at any of `seps`, dropping empty items, into an arena array. */
static tq_status_t split(tq_arena_t *arena, const char *value, const char *seps, const char ***out,
                         size_t *out_n) {
  size_t n = 0;
  for (const char *p = value; *p;) {
    p += strspn(p, seps);
    if (!*p) break;
    n++;
    p += strcspn(p, seps);
  }
  const char **v = tq_arena_calloc(arena, n ? n : 1, sizeof(*v));
  if (!v) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  size_t i = 0;
  for (const char *p = value; *p;) {
    p += strspn(p, seps);
    if (!*p) break;
    size_t l = strcspn(p, seps);
    if (!(v[i++] = tq_arena_strndup(arena, p, l)))
      return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
    p += l;
  }
  *out = v;
  *out_n = n;
  return NULL;
}

static const char *const settable_keys[] = {
    "targets",     "repeat",    "warmup", "timeout",        "compile_timeout", "run_timeout",
    "reference",   "atol",      "rtol",   "seed",           "compile_options", "function",
    "results_dir", "cache_dir", "jobs",   "baseline_floor", "memory",          "baseline_gate",
    "history",     "toolchain", "toolchain_compile", "toolchain_run", "toolchain_annotate",
    NULL};

static int settable(const char *key) {
  for (size_t i = 0; settable_keys[i]; i++)
    if (!strcmp(settable_keys[i], key)) return 1;
  return 0;
}

tq_status_t tqh_config_set(tqh_config_t *config, tqh_layer_t layer, const char *key,
                           const char *value) {
  return tqh_config_set_from(config, layer, key, value, NULL);
}

tq_status_t tqh_config_set_from(tqh_config_t *config, tqh_layer_t layer, const char *key,
                                const char *value, const char *source) {
  if (!settable(key)) {
    tq_buf_t list;
    tq_buf_init(&list, 0);
    tq_status_t st = NULL;
    for (size_t i = 0; !st && settable_keys[i]; i++)
      st = tq_buf_printf(&list, "%s%s", i ? ", " : "", settable_keys[i]);
    if (!st)
      st = TQ_STATUS(TQ_INVALID_ARGUMENT, "unknown setting \"%.60s\" (settings: %s)", key,
                     list.data);
    tq_buf_deinit(&list);
    return st;
  }
  tqh_settings_t s;
  memset(&s, 0, sizeof(s));
  tq_arena_t *arena = &config->arena;
  const char *src = source ? tq_arena_strndup(arena, source, strlen(source)) : NULL;
  if (source && !src) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  tq_status_t tool_st = NULL;
  if (tqh__toolchain_set(arena, layer, key, value, &s, &tool_st)) {
    TQ_TRY(tool_st);
  } else if (!strcmp(key, "targets")) {
    const char **v = NULL;
    size_t n = 0;
    TQ_TRY(split(arena, value, ", \t", &v, &n));
    if (n == 0) return bad_value(key, value, "\"sim\" or board names, comma separated");
    for (size_t i = 0; i < n; i++) {
      if (!tqh__target_name_valid(v[i]))
        return bad_value(key, v[i], "\"sim\" or a board name ([A-Za-z0-9_.-]+)");
      for (size_t j = 0; j < i; j++)
        if (!strcmp(v[i], v[j]))
          return TQ_STATUS(TQ_INVALID_ARGUMENT, "%s: \"%s\" is listed twice", key, v[i]);
    }
    s.targets = v;
    s.target_count = n;
    s.layer[TQH_SET_TARGETS] = (uint8_t)layer;
  } else if (!strcmp(key, "repeat")) {
    TQ_TRY(parse_count(key, value, 1, MAX_REPEAT, &s.repeat));
    s.layer[TQH_SET_REPEAT] = (uint8_t)layer;
  } else if (!strcmp(key, "warmup")) {
    TQ_TRY(parse_count(key, value, 0, MAX_REPEAT, &s.warmup));
    s.layer[TQH_SET_WARMUP] = (uint8_t)layer;
  } else if (!strcmp(key, "timeout") || !strcmp(key, "compile_timeout") ||
             !strcmp(key, "run_timeout")) {
    double v = 0;
    TQ_TRY(parse_seconds(key, value, &v));
    if (key[0] != 'r') {
      s.compile_timeout_s = v;
      s.layer[TQH_SET_COMPILE_TIMEOUT] = (uint8_t)layer;
    }
    if (key[0] != 'c') {
      s.run_timeout_s = v;
      s.layer[TQH_SET_RUN_TIMEOUT] = (uint8_t)layer;
    }
  } else if (!strcmp(key, "reference")) {
    if (!tqh__parse_bool(value, &s.reference)) return bad_value(key, value, "true or false");
    s.layer[TQH_SET_REFERENCE] = (uint8_t)layer;
  } else if (!strcmp(key, "atol") || !strcmp(key, "rtol")) {
    double v;
    if (!tqh__parse_double(value, &v) || v < 0) return bad_value(key, value, "a number >= 0");
    if (key[0] == 'a') {
      s.atol = v;
      s.layer[TQH_SET_ATOL] = (uint8_t)layer;
    } else {
      s.rtol = v;
      s.layer[TQH_SET_RTOL] = (uint8_t)layer;
    }
  } else if (!strcmp(key, "seed")) {
    if (!tqh__parse_u64(value, &s.seed)) return bad_value(key, value, "an integer >= 0");
    s.layer[TQH_SET_SEED] = (uint8_t)layer;
  } else if (!strcmp(key, "compile_options")) {
    const char **v = NULL;
    size_t n = 0;
    TQ_TRY(split(arena, value, " \t\n", &v, &n));
    for (size_t i = 0; i < n; i++) {
      char msg[512];
      if (!tqh__compile_option_check(v[i], msg, sizeof(msg)))
        return TQ_STATUS(TQ_INVALID_ARGUMENT, "%s: %s", key, msg);
    }
    s.compile_options = v;
    s.compile_option_count = n;
    s.layer[TQH_SET_COMPILE_OPTIONS] = (uint8_t)layer;
  } else if (!strcmp(key, "function")) {
    if (!*value ||
        strspn(value, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.$-") !=
            strlen(value) ||
        (value[0] >= '0' && value[0] <= '9'))
      return bad_value(key, value, "a function name");
    if (!(s.function = tq_arena_strndup(arena, value, strlen(value))))
      return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
    s.layer[TQH_SET_FUNCTION] = (uint8_t)layer;
  } else if (!strcmp(key, "memory")) {
    char msg[256];
    if (tqh_parse_memory(value, &s.memory_bytes, msg, sizeof(msg)) != 0)
      return TQ_STATUS(TQ_INVALID_ARGUMENT, "%s: %s", key, msg);
    s.layer[TQH_SET_MEMORY] = (uint8_t)layer;
  } else if (!strcmp(key, "baseline_floor")) {
    tq_status_t st = tqh_baseline_parse_floor(value, &s.baseline_floor_pct);
    if (st) {
      tq_status_t bad = bad_value(key, value, "a percentage from 0 to 10000 (5, 2.5 or 5%)");
      tq_status_free(st);
      return bad;
    }
    s.layer[TQH_SET_BASELINE_FLOOR] = (uint8_t)layer;
  } else if (!strcmp(key, "baseline_gate")) {
    /* Metric names hold spaces ("Dma In"): only commas separate them. */
    const char **v = NULL;
    size_t n = 0;
    TQ_TRY(split(arena, value, ",", &v, &n));
    for (size_t i = 0; i < n; i++) {
      const char *b = v[i];
      while (*b == ' ' || *b == '\t') b++;
      size_t len = strlen(b);
      while (len && (b[len - 1] == ' ' || b[len - 1] == '\t')) len--;
      if (!len || len > 60) return bad_value(key, value, "metric names, comma separated");
      if (!(v[i] = tq_arena_strndup(arena, b, len))) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
    }
    s.baseline_gate = v;
    s.baseline_gate_count = n;
    s.layer[TQH_SET_BASELINE_GATE] = (uint8_t)layer;
  } else if (!strcmp(key, "history")) {
    int on = 1;
    const char *copy = !*value || !strcmp(value, "off") || (tqh__parse_bool(value, &on) && !on)
                           ? ""
                           : tq_arena_strndup(arena, value, strlen(value));
    if (!copy) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
    if (layer_allows(config->history_layer, layer))
      config->history = copy, config->history_layer = layer, config->history_source = src;
    return NULL;
  } else if (!strcmp(key, "results_dir") || !strcmp(key, "cache_dir")) {
    if (!*value) return bad_value(key, value, "a folder");
    const char *copy = tq_arena_strndup(arena, value, strlen(value));
    if (!copy) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
    if (key[0] == 'r' && layer_allows(config->results_dir_layer, layer))
      config->results_dir = copy, config->results_dir_layer = layer, config->results_dir_source = src;
    if (key[0] == 'c' && layer_allows(config->cache_dir_layer, layer))
      config->cache_dir = copy, config->cache_dir_layer = layer, config->cache_dir_source = src;
    return NULL;
  } else if (!strcmp(key, "jobs")) {
    uint32_t j = 0;
    if (!strcmp(value, "auto"))
      j = auto_jobs();
    else
      TQ_TRY(parse_count(key, value, 1, MAX_JOBS, &j));
    if (layer_allows(config->jobs_layer, layer))
      config->jobs = j, config->jobs_layer = layer, config->jobs_source = src;
    return NULL;
  }
  for (int i = 0; i < TQH_SETTING_COUNT; i++)
    if (s.layer[i] != TQH_LAYER_UNSET && s.layer[i] >= config->defaults.layer[i])
      config->sources[i] = src;
  tqh_settings_merge(&config->defaults, &s);
  return NULL;
}

tq_status_t tqh_config_apply_env(tqh_config_t *config, const char *const *env,
                                 tqh_diags_t *errors) {
  extern char **environ;
  if (!env) env = (const char *const *)environ;
  tqh__report_t rep;
  tqh__report_init(&rep, "environment", NULL, 0, 0);
  for (size_t i = 0; env && env[i]; i++) {
    if (strncmp(env[i], "TORQ_", 5) != 0) continue;
    const char *eq = strchr(env[i], '=');
    if (!eq || (size_t)(eq - env[i]) - 5 >= 32) continue;
    char key[32];
    size_t n = (size_t)(eq - env[i]) - 5;
    for (size_t j = 0; j < n; j++) key[j] = (char)tolower((unsigned char)env[i][5 + j]);
    key[n] = '\0';
    if (!settable(key)) continue;
    char name[40];
    snprintf(name, sizeof(name), "%.*s", (int)(eq - env[i]), env[i]);
    tq_status_t st = tqh_config_set_from(config, TQH_LAYER_ENV, key, eq + 1, name);
    if (st) {
      tqh__error(&rep, 0, 0, "%.*s: %s", (int)(eq - env[i]), env[i], tq_status_message(st));
      tq_status_free(st);
    }
  }
  tq_status_t st = tqh__report_finish(&rep, errors);
  tqh__report_deinit(&rep);
  return st;
}

/* Declared in baseline.h; defined here because the floor is a setting, and the configuration
 * and suite loaders (built alone for the fuzzer) parse it. */
tq_status_t tqh_baseline_parse_floor(const char *text, double *out_pct) {
  char *end = NULL;
  errno = 0;
  double v = strtod(text, &end);
  if (end && *end == '%') end++;
  if (!*text || !end || *end || errno || !(v >= 0) || v > 10000)
    return TQ_STATUS(TQ_INVALID_ARGUMENT, "'%s': expected a percentage from 0 to 10000", text);
  *out_pct = v;
  return NULL;
}
