/* The settings keys that suites (defaults:, tests) and configs share, ${VAR} substitution, and the
 * checks of names and compile options. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suite_internal.h"
#include "torq/base/alloc.h"
#include "torq/harness/baseline.h"
#include "torq/sim/hw.h"

extern char **environ;

#define MAX_REPEAT 1000000
#define SUBST_MAX_DEPTH 8

const char *const tqh__settings_keys[] = {
    "targets",         "repeat",   "warmup",   "timeout", "reference", "seed",
    "compile_options", "function", "baseline", "memory",  "toolchain", NULL};

void tqh__settings_builtin(tqh_settings_t *out) {
  static const char *const targets[] = {"sim"};
  memset(out, 0, sizeof(*out));
  out->targets = targets;
  out->target_count = 1;
  out->repeat = 1;
  out->warmup = 0;
  out->compile_timeout_s = 300;
  out->run_timeout_s = 60;
  out->reference = 1;
  out->atol = 1e-5;
  out->rtol = 1e-3;
  out->seed = 0;
  out->function = "main";
  out->baseline_floor_pct = 5.0;
  out->memory_bytes = TQH_MEMORY_DEFAULT;
  for (size_t i = 0; i < TQH_SETTING_COUNT; i++) out->layer[i] = TQH_LAYER_BUILTIN;
}

const char *tqh__getenv(const char *const *env, const char *name) {
  if (!env) env = (const char *const *)environ;
  if (!env) return NULL;
  size_t n = strlen(name);
  for (size_t i = 0; env[i]; i++)
    if (!strncmp(env[i], name, n) && env[i][n] == '=') return env[i] + n + 1;
  return NULL;
}

int tqh__target_name_valid(const char *name) {
  size_t n = strlen(name);
  if (n == 0 || n > 64) return 0;
  for (size_t i = 0; i < n; i++) {
    char c = name[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
          c == '.' || c == '-'))
      return 0;
  }
  return 1;
}

static int function_name_valid(const char *name) {
  size_t n = strlen(name);
  if (n == 0 || n > 128) return 0;
  for (size_t i = 0; i < n; i++) {
    char c = name[i];
    int alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    if (!(alpha || (i > 0 && ((c >= '0' && c <= '9') || c == '.' || c == '$' || c == '-'))))
      return 0;
  }
  return 1;
}

int tqh__compile_option_check(const char *option, char *msg, size_t cap) {
  static const char allowed[] = "--torq-hw=SPEC, --torq-enable-profiling";
  if (strncmp(option, "--", 2) != 0) {
    snprintf(msg, cap, "compile options start with \"--\" (e.g. --torq-hw=sl2610); found \"%.60s\"",
             option);
    return 0;
  }
  if (!strncmp(option, "--torq-hw=", 10)) {
    tqs_hw_t hw;
    tq_status_t st = tqs_hw_parse(option + 10, &hw);
    if (!st) return 1;
    const char *m = tq_status_message(st);
    size_t first = strcspn(m, "\n");
    snprintf(msg, cap, "%.*s", (int)(first > 400 ? 400 : first), m);
    tq_status_free(st);
    return 0;
  }
  if (!strcmp(option, "--torq-hw")) {
    snprintf(msg, cap, "--torq-hw needs its value in the same item: --torq-hw=SPEC");
    return 0;
  }
  if (!strcmp(option, "--torq-enable-profiling")) return 1;
  static const char *const runner_set[] = {"--torq-dump-profiling", "--torq-debug-info"};
  for (size_t i = 0; i < sizeof(runner_set) / sizeof(runner_set[0]); i++) {
    size_t n = strlen(runner_set[i]);
    if (!strncmp(option, runner_set[i], n) && (option[n] == '\0' || option[n] == '=')) {
      snprintf(msg, cap, "%s is set by torq-test for every test (in its result folder); remove it",
               runner_set[i]);
      return 0;
    }
  }
  snprintf(msg, cap, "unknown compile option \"%.60s\"; allowed: %s", option, allowed);
  return 0;
}

/* ---- ${VAR} substitution --------------------------------------------------------------------- */

/* The column of byte `offset` of a scalar's value, when it maps to the source (a plain scalar on
 * one line); else the node's column. */
static uint32_t value_col(const tqh__ynode_t *node, size_t offset) {
  if (!node->plain || memchr(node->str, '\n', node->len)) return node->col;
  uint32_t c = node->col;
  for (size_t i = 0; i < offset && i < node->len; i++)
    if (((unsigned char)node->str[i] & 0xC0) != 0x80) c++;
  return c;
}

static int name_char(char c, int first) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
         (!first && c >= '0' && c <= '9');
}

/* Substitutes text[0..len) into b. `base` is the offset of text in the node's value, for columns.
 * Returns 0 after reporting an error. */
static int subst_into(tqh__report_t *rep, const char *const *env, const tqh__ynode_t *node,
                      const char *text, size_t len, size_t base, int depth, tq_buf_t *b) {
  tq_status_t st = NULL;
  for (size_t i = 0; i < len && !st; i++) {
    if (text[i] != '$' || i + 1 >= len || (text[i + 1] != '$' && text[i + 1] != '{')) {
      st = tq_buf_putc(b, text[i]);
      continue;
    }
    if (text[i + 1] == '$') {
      st = tq_buf_putc(b, '$');
      i++;
      continue;
    }
    uint32_t col = value_col(node, base + i);
    size_t n = i + 2;
    while (n < len && name_char(text[n], n == i + 2)) n++;
    if (n == i + 2) {
      tqh__error(rep, node->line, col,
                 "bad variable: expected a name after \"${\" ([A-Za-z_][A-Za-z0-9_]*); write $$ "
                 "for a literal $");
      return 0;
    }
    char name[128];
    if (n - (i + 2) >= sizeof(name)) {
      tqh__error(rep, node->line, col, "variable name longer than %zu characters",
                 sizeof(name) - 1);
      return 0;
    }
    memcpy(name, text + i + 2, n - (i + 2));
    name[n - (i + 2)] = '\0';
    size_t def_start = 0, def_end = 0, close;
    int has_default = 0;
    if (n < len && text[n] == '}') {
      close = n;
    } else if (n + 1 < len && text[n] == ':' && text[n + 1] == '-') {
      has_default = 1;
      def_start = n + 2;
      size_t nest = 0, j = def_start;
      for (; j < len; j++) {
        if (text[j] == '$' && j + 1 < len && text[j + 1] == '{') {
          nest++;
          j++;
        } else if (text[j] == '}') {
          if (nest == 0) break;
          nest--;
        }
      }
      if (j >= len) {
        tqh__error(rep, node->line, col, "unterminated \"${%s:-\": missing '}'", name);
        return 0;
      }
      def_end = close = j;
    } else {
      tqh__error(rep, node->line, col,
                 n < len ? "bad variable \"${%s\": expected '}' or ':-DEFAULT}' after the name"
                         : "unterminated \"${%s\": missing '}'",
                 name);
      return 0;
    }
    const char *value = tqh__getenv(env, name);
    if (value && *value) {
      st = tq_buf_append_cstr(b, value);
    } else if (has_default) {
      if (depth >= SUBST_MAX_DEPTH) {
        tqh__error(rep, node->line, col, "variables nested deeper than %d levels", SUBST_MAX_DEPTH);
        return 0;
      }
      if (!subst_into(rep, env, node, text + def_start, def_end - def_start, base + def_start,
                      depth + 1, b))
        return 0;
    } else {
      tqh__error(rep, node->line, col,
                 "environment variable %s is not set (set it, or give a default: ${%s:-VALUE})",
                 name, name);
      return 0;
    }
    i = close;
  }
  if (st) {
    tqh__error(rep, node->line, node->col, "out of memory substituting variables");
    tq_status_free(st);
    return 0;
  }
  return 1;
}

const char *tqh__subst(tqh__report_t *rep, tq_arena_t *arena, const char *const *env,
                       const tqh__ynode_t *node, const char *text) {
  if (!text) text = node->str;
  if (!strchr(text, '$')) return text;
  tq_buf_t b;
  tq_buf_init(&b, 1 << 20);
  const char *out = NULL;
  if (subst_into(rep, env, node, text, strlen(text), 0, 0, &b)) {
    out = tq_arena_strndup(arena, b.data ? b.data : "", b.len);
    if (!out) tqh__error(rep, node->line, node->col, "out of memory substituting variables");
  }
  tq_buf_deinit(&b);
  return out;
}

/* ---- Settings keys --------------------------------------------------------------------------- */

/* A string or a list of strings, each through `check` (which reports); duplicates are errors.
 * Returns the arena array, or NULL after an error. */
static const char **read_string_list(tqh__report_t *rep, tq_arena_t *arena, const char *const *env,
                                     const tqh__ynode_t *value, const char *key, int subst,
                                     size_t *out_count,
                                     int (*check)(tqh__report_t *, const tqh__ynode_t *,
                                                  const char *)) {
  size_t n = value->kind == TQH__Y_SEQ ? value->count : 1;
  if (value->kind == TQH__Y_MAP || (value->kind == TQH__Y_SCALAR && value->scalar == TQH__S_NULL)) {
    tqh__error(rep, value->line, value->col, "%s: expected a string or a list of strings, found %s",
               key, tqh__ydescribe(value));
    return NULL;
  }
  const char **out = tq_arena_calloc(arena, n ? n : 1, sizeof(*out));
  if (!out) {
    tqh__error(rep, value->line, value->col, "out of memory");
    return NULL;
  }
  int ok = 1;
  for (size_t i = 0; i < n; i++) {
    const tqh__ynode_t *item = value->kind == TQH__Y_SEQ ? value->items[i] : value;
    const char *s;
    if (!tqh__ystr(rep, item, key, &s)) {
      ok = 0;
      continue;
    }
    if (subst && !(s = tqh__subst(rep, arena, env, item, s))) {
      ok = 0;
      continue;
    }
    if (check && !check(rep, item, s)) {
      ok = 0;
      continue;
    }
    for (size_t j = 0; j < i; j++) {
      if (out[j] && !strcmp(out[j], s)) {
        const tqh__ynode_t *first = value->items[j];
        tqh__error_note(rep, item->line, item->col, first->line, first->col, "first given here",
                        "%s: \"%.60s\" is listed twice", key, s);
        ok = 0;
      }
    }
    out[i] = s;
  }
  *out_count = n;
  return ok ? out : NULL;
}

static int check_target(tqh__report_t *rep, const tqh__ynode_t *item, const char *s) {
  if (tqh__target_name_valid(s)) return 1;
  tqh__error(rep, item->line, item->col,
             "targets: \"%.60s\" is not a target: \"sim\" or a board name ([A-Za-z0-9_.-]+)", s);
  return 0;
}

static int check_option(tqh__report_t *rep, const tqh__ynode_t *item, const char *s) {
  char msg[512];
  if (tqh__compile_option_check(s, msg, sizeof(msg))) return 1;
  tqh__error(rep, item->line, item->col, "compile_options: %s", msg);
  return 0;
}

static void set_layer(tqh_settings_t *s, tqh_setting_t which, tqh_layer_t layer) {
  s->layer[which] = (uint8_t)layer;
}

/* `baseline: {gate: [METRIC, ...]}`: metric names (any the records hold: wall_time, OVERALL,
 * "Dma In", ...), a string or a list of them. */
static void parse_gate(tqh__report_t *rep, tq_arena_t *arena, const tqh__ynode_t *g,
                       tqh_layer_t layer, tqh_settings_t *s) {
  size_t n = g->kind == TQH__Y_SEQ ? g->count : 1;
  const char **names = tq_arena_calloc(arena, n + 1, sizeof(*names));
  if (!names) {
    tqh__error(rep, g->line, g->col, "out of memory");
    return;
  }
  for (size_t i = 0; i < n; i++) {
    const tqh__ynode_t *item = g->kind == TQH__Y_SEQ ? g->items[i] : g;
    if (item->kind != TQH__Y_SCALAR || item->scalar != TQH__S_STRING || !*item->str ||
        strlen(item->str) > 60) {
      tqh__error(rep, item->line, item->col,
                 "baseline.gate: expected metric names (wall_time, OVERALL, ...), found %s",
                 tqh__ydescribe(item));
      return;
    }
    names[i] = item->str;
  }
  s->baseline_gate = names;
  s->baseline_gate_count = g->kind == TQH__Y_SEQ ? g->count : 1;
  set_layer(s, TQH_SET_BASELINE_GATE, layer);
}

/* `baseline: {floor: PCT, gate: [METRIC, ...]}`: the floor is a number (5, 2.5) or a string with
 * a percent sign ("5%"), from 0 to 10000, as --baseline-floor takes it. */
static void parse_baseline(tqh__report_t *rep, tq_arena_t *arena, const tqh__ynode_t *value,
                           tqh_layer_t layer, tqh_settings_t *s) {
  static const char *const keys[] = {"floor", "gate", NULL};
  if (value->kind != TQH__Y_MAP) {
    tqh__error(rep, value->line, value->col,
               "baseline: expected {floor: PERCENT, gate: [METRIC, ...]}, found %s",
               tqh__ydescribe(value));
    return;
  }
  if (tqh__ycheck_keys(rep, value, "baseline", keys)) return;
  const tqh__ynode_t *g = tqh__yget(value, "gate", NULL);
  if (g) parse_gate(rep, arena, g, layer, s);
  const tqh__ynode_t *f = tqh__yget(value, "floor", NULL);
  if (!f) {
    if (!g)
      tqh__error(rep, value->line, value->col,
                 "baseline: expected {floor: PERCENT} and/or {gate: [METRIC, ...]}");
    return;
  }
  double pct;
  if (f->kind == TQH__Y_SCALAR && f->scalar == TQH__S_STRING) {
    tq_status_t st = tqh_baseline_parse_floor(f->str, &pct);
    if (st) {
      tqh__error(rep, f->line, f->col, "baseline.floor: %s", tq_status_message(st));
      tq_status_free(st);
      return;
    }
  } else if (!tqh__ynum(rep, f, "baseline.floor", 0, 0, &pct)) {
    return;
  } else if (pct > 10000) {
    tqh__error(rep, f->line, f->col, "baseline.floor must be <= 10000 (percent), found %.40s",
               f->str);
    return;
  }
  s->baseline_floor_pct = pct;
  set_layer(s, TQH_SET_BASELINE_FLOOR, layer);
}

int tqh_parse_memory(const char *text, uint64_t *out_bytes, char *msg, size_t msg_size) {
  *out_bytes = 0;
  if (!strcmp(text, "none")) return 0;
  char *end = NULL;
  double v = strtod(text, &end);
  double unit = 1;
  if (end != text && *end) {
    const char *u = "kmgt", *hit = strchr(u, tolower((unsigned char)*end));
    if (hit && *hit) {
      for (const char *q = u; q <= hit; q++) unit *= 1024;
      end++;
      if (*end == 'i' || *end == 'I') end++;
      if (*end == 'b' || *end == 'B') end++;
    } else if (*end == 'b' || *end == 'B') {
      end++;
    }
  }
  double bytes = v * unit;
  if (end == text || *end || !(bytes >= 0) || bytes >= 18446744073709551615.0 || text[0] == '-' ||
      text[0] == '+' || (text[0] < '0' || text[0] > '9')) {
    snprintf(msg, msg_size,
             "expected a size (bytes, or a number with K, M, G or T: 512M, 8GiB) or \"none\", "
             "found \"%.40s\"",
             text);
    return -1;
  }
  if (bytes > 0 && bytes < (double)TQH_MEMORY_MIN) {
    snprintf(msg, msg_size, "%.40s is below the smallest limit, 16M (0 or \"none\": no limit)",
             text);
    return -1;
  }
  *out_bytes = (uint64_t)bytes;
  return 0;
}

int tqh__settings_parse_key(tqh__report_t *rep, tq_arena_t *arena, const char *const *env,
                            const char *key, const tqh__ynode_t *value, tqh_layer_t layer,
                            tqh_settings_t *s) {
  if (!strcmp(key, "targets")) {
    size_t n = 0;
    const char **v = read_string_list(rep, arena, env, value, key, 0, &n, check_target);
    if (v && n == 0) {
      tqh__error(rep, value->line, value->col,
                 "targets: the list is empty; name \"sim\" or a board");
    } else if (v) {
      s->targets = v;
      s->target_count = n;
      set_layer(s, TQH_SET_TARGETS, layer);
    }
  } else if (!strcmp(key, "repeat") || !strcmp(key, "warmup")) {
    int64_t v;
    int repeat = key[0] == 'r';
    if (tqh__yint(rep, value, key, repeat ? 1 : 0, MAX_REPEAT, &v)) {
      if (repeat) {
        s->repeat = (uint32_t)v;
        set_layer(s, TQH_SET_REPEAT, layer);
      } else {
        s->warmup = (uint32_t)v;
        set_layer(s, TQH_SET_WARMUP, layer);
      }
    }
  } else if (!strcmp(key, "timeout")) {
    double v;
    if (value->kind == TQH__Y_MAP) {
      static const char *const keys[] = {"compile", "run", NULL};
      tqh__ycheck_keys(rep, value, "timeout", keys);
      const tqh__ynode_t *c = tqh__yget(value, "compile", NULL);
      const tqh__ynode_t *r = tqh__yget(value, "run", NULL);
      if (c && tqh__ynum(rep, c, "timeout.compile", 0, 1, &v)) {
        s->compile_timeout_s = v;
        set_layer(s, TQH_SET_COMPILE_TIMEOUT, layer);
      }
      if (r && tqh__ynum(rep, r, "timeout.run", 0, 1, &v)) {
        s->run_timeout_s = v;
        set_layer(s, TQH_SET_RUN_TIMEOUT, layer);
      }
    } else if (value->kind == TQH__Y_SCALAR &&
               (value->scalar == TQH__S_INT || value->scalar == TQH__S_FLOAT)) {
      if (tqh__ynum(rep, value, "timeout", 0, 1, &v)) {
        s->compile_timeout_s = s->run_timeout_s = v;
        set_layer(s, TQH_SET_COMPILE_TIMEOUT, layer);
        set_layer(s, TQH_SET_RUN_TIMEOUT, layer);
      }
    } else {
      tqh__error(rep, value->line, value->col,
                 "timeout: expected seconds (60) or {compile: SECONDS, run: SECONDS}, found %s",
                 tqh__ydescribe(value));
    }
  } else if (!strcmp(key, "reference")) {
    int b;
    double v;
    if (value->kind == TQH__Y_MAP) {
      static const char *const keys[] = {"compare", "atol", "rtol", "golden", NULL};
      tqh__ycheck_keys(rep, value, "reference", keys);
      const tqh__ynode_t *g = tqh__yget(value, "golden", NULL);
      if (g) tqh__golden_parse(rep, arena, env, g, layer, s);
      const tqh__ynode_t *c = tqh__yget(value, "compare", NULL);
      const tqh__ynode_t *a = tqh__yget(value, "atol", NULL);
      const tqh__ynode_t *r = tqh__yget(value, "rtol", NULL);
      if (c && tqh__ybool(rep, c, "reference.compare", &b)) {
        s->reference = b;
        set_layer(s, TQH_SET_REFERENCE, layer);
      }
      if (a && tqh__ynum(rep, a, "reference.atol", 0, 0, &v)) {
        s->atol = v;
        set_layer(s, TQH_SET_ATOL, layer);
      }
      if (r && tqh__ynum(rep, r, "reference.rtol", 0, 0, &v)) {
        s->rtol = v;
        set_layer(s, TQH_SET_RTOL, layer);
      }
    } else if (value->kind == TQH__Y_SCALAR && value->scalar == TQH__S_BOOL) {
      if (tqh__ybool(rep, value, "reference", &b)) {
        s->reference = b;
        set_layer(s, TQH_SET_REFERENCE, layer);
      }
    } else {
      tqh__error(rep, value->line, value->col,
                 "reference: expected true, false or {compare: BOOL, atol: X, rtol: Y, "
                 "golden: [...]}, found %s",
                 tqh__ydescribe(value));
    }
  } else if (!strcmp(key, "seed")) {
    uint64_t v;
    if (tqh__yu64(rep, value, "seed", &v)) {
      s->seed = v;
      set_layer(s, TQH_SET_SEED, layer);
    }
  } else if (!strcmp(key, "compile_options")) {
    size_t n = 0;
    const char **v = read_string_list(rep, arena, env, value, key, 1, &n, check_option);
    if (v) {
      s->compile_options = v;
      s->compile_option_count = n;
      set_layer(s, TQH_SET_COMPILE_OPTIONS, layer);
    }
  } else if (!strcmp(key, "baseline")) {
    parse_baseline(rep, arena, value, layer, s);
  } else if (!strcmp(key, "memory")) {
    char msg[256];
    uint64_t v;
    if (value->kind != TQH__Y_SCALAR || value->scalar == TQH__S_BOOL ||
        value->scalar == TQH__S_NULL) {
      tqh__error(rep, value->line, value->col,
                 "memory: expected a size (512M, 8GiB) or \"none\", found %s",
                 tqh__ydescribe(value));
    } else if (tqh_parse_memory(value->str, &v, msg, sizeof(msg)) != 0) {
      tqh__error(rep, value->line, value->col, "memory: %s", msg);
    } else {
      s->memory_bytes = v;
      set_layer(s, TQH_SET_MEMORY, layer);
    }
  } else if (!strcmp(key, "toolchain")) {
    tqh__toolchain_parse(rep, arena, env, value, layer, s);
  } else if (!strcmp(key, "function")) {
    const char *f;
    if (tqh__ystr(rep, value, "function", &f)) {
      if (!function_name_valid(f)) {
        tqh__error(rep, value->line, value->col,
                   "function: \"%.60s\" is not a function name ([A-Za-z_][A-Za-z0-9_.$-]*)", f);
      } else {
        s->function = f;
        set_layer(s, TQH_SET_FUNCTION, layer);
      }
    }
  } else {
    return 0;
  }
  return 1;
}
