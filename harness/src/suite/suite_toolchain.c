/* The toolchain setting and golden outputs (config.h): `toolchain: builtin` or {compile, run,
 * annotate} (each a path or an argv list) in suites and configs, toolchain / toolchain_compile /
 * toolchain_run / toolchain_annotate from the environment and the command line, and
 * `reference: {golden: [out0.npy, ...]}`. Relative paths are resolved against the folder of the
 * file that names them. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "suite_internal.h"
#include "torq/base/alloc.h"

static const char *const k_role_keys[TQH_TOOL_COUNT] = {"compile", "run", "annotate"};

/* `path` against the folder of the file `rep` reads, when it is relative; in `arena`. */
static const char *resolve(tqh__report_t *rep, tq_arena_t *arena, const char *path) {
  const char *slash = rep->path ? strrchr(rep->path, '/') : NULL;
  if (path[0] == '/' || !slash) return path;
  size_t dl = (size_t)(slash - rep->path);
  size_t pl = strlen(path);
  char *out = tq_arena_alloc(arena, dl + pl + 2);
  if (!out) return NULL;
  memcpy(out, rep->path, dl);
  out[dl] = '/';
  memcpy(out + dl + 1, path, pl + 1);
  return out;
}

/* A path, or a non-empty list of strings; argv[0] resolved when it holds a '/'. 0 after an
 * error (reported). */
static int read_argv(tqh__report_t *rep, tq_arena_t *arena, const char *const *env,
                     const tqh__ynode_t *v, const char *what, tqh_tool_t *out) {
  size_t n = v->kind == TQH__Y_SEQ ? v->count : 1;
  if (v->kind == TQH__Y_MAP || n == 0) {
    tqh__error(rep, v->line, v->col,
               "%s: expected a path or a list [PROGRAM, ARGUMENT, ...], found %s", what,
               n == 0 ? "an empty list" : tqh__ydescribe(v));
    return 0;
  }
  const char **argv = tq_arena_calloc(arena, n + 1, sizeof(*argv));
  if (!argv) {
    tqh__error(rep, v->line, v->col, "out of memory");
    return 0;
  }
  for (size_t i = 0; i < n; i++) {
    const tqh__ynode_t *item = v->kind == TQH__Y_SEQ ? v->items[i] : v;
    const char *s;
    if (!tqh__ystr(rep, item, what, &s) || !(s = tqh__subst(rep, arena, env, item, s))) return 0;
    if (!*s) {
      tqh__error(rep, item->line, item->col, "%s: an empty %s", what, i ? "argument" : "program");
      return 0;
    }
    if (i == 0 && strchr(s, '/') && !(s = resolve(rep, arena, s))) {
      tqh__error(rep, item->line, item->col, "out of memory");
      return 0;
    }
    argv[i] = s;
  }
  out->argv = argv;
  out->argc = n;
  return 1;
}

int tqh__toolchain_parse(tqh__report_t *rep, tq_arena_t *arena, const char *const *env,
                         const tqh__ynode_t *value, tqh_layer_t layer, tqh_settings_t *s) {
  tqh_tool_t tools[TQH_TOOL_COUNT];
  memset(tools, 0, sizeof(tools));
  if (value->kind == TQH__Y_SCALAR && value->str && !strcmp(value->str, "builtin")) {
    /* every tool back to the built-in libraries */
  } else if (value->kind == TQH__Y_MAP) {
    static const char *const keys[] = {"compile", "run", "annotate", NULL};
    if (tqh__ycheck_keys(rep, value, "toolchain", keys)) return 0;
    for (int r = 0; r < TQH_TOOL_COUNT; r++) {
      const tqh__ynode_t *v = tqh__yget(value, k_role_keys[r], NULL);
      char what[32];
      snprintf(what, sizeof(what), "toolchain.%s", k_role_keys[r]);
      if (v && !read_argv(rep, arena, env, v, what, &tools[r])) return 0;
    }
    if (!tools[TQH_TOOL_COMPILE].argc || !tools[TQH_TOOL_RUN].argc) {
      tqh__error(rep, value->line, value->col,
                 "toolchain: an external toolchain needs both compile (torq-compile) and run "
                 "(torq-run-module); annotate is optional");
      return 0;
    }
  } else {
    tqh__error(rep, value->line, value->col,
               "toolchain: expected builtin or {compile: PATH, run: PATH, annotate: PATH}, "
               "found %s",
               tqh__ydescribe(value));
    return 0;
  }
  for (int r = 0; r < TQH_TOOL_COUNT; r++) {
    s->tools[r] = tools[r];
    s->layer[TQH_SET_TOOL_COMPILE + r] = (uint8_t)layer;
  }
  return 1;
}

int tqh__golden_parse(tqh__report_t *rep, tq_arena_t *arena, const char *const *env,
                      const tqh__ynode_t *value, tqh_layer_t layer, tqh_settings_t *s) {
  size_t n = value->kind == TQH__Y_SEQ ? value->count : 0;
  if (value->kind != TQH__Y_SEQ || n == 0) {
    tqh__error(rep, value->line, value->col,
               "reference.golden: expected a list of .npy files, one per output, found %s",
               n == 0 && value->kind == TQH__Y_SEQ ? "an empty list" : tqh__ydescribe(value));
    return 0;
  }
  const char **paths = tq_arena_calloc(arena, n + 1, sizeof(*paths));
  if (!paths) return 0;
  int ok = 1;
  for (size_t i = 0; i < n; i++) {
    const tqh__ynode_t *item = value->items[i];
    const char *p;
    if (!tqh__ystr(rep, item, "reference.golden", &p) ||
        !(p = tqh__subst(rep, arena, env, item, p))) {
      ok = 0;
      continue;
    }
    if (!(p = resolve(rep, arena, p))) return 0;
    struct stat sb;
    if (stat(p, &sb) != 0 || !S_ISREG(sb.st_mode)) {
      tqh__error(rep, item->line, item->col, "reference.golden: no file %s", p);
      ok = 0;
      continue;
    }
    paths[i] = p;
  }
  if (!ok) return 0;
  s->golden = paths;
  s->golden_count = n;
  s->layer[TQH_SET_GOLDEN] = (uint8_t)layer;
  return 1;
}

int tqh__toolchain_set(tq_arena_t *arena, tqh_layer_t layer, const char *key, const char *value,
                       tqh_settings_t *s, tq_status_t *out_status) {
  *out_status = NULL;
  if (!strcmp(key, "toolchain")) {
    if (strcmp(value, "builtin") != 0) {
      *out_status = TQ_STATUS(TQ_INVALID_ARGUMENT,
                              "toolchain: expected builtin, found \"%.60s\" (name the external "
                              "programs with toolchain_compile, toolchain_run, toolchain_annotate)",
                              value);
      return 1;
    }
    for (int r = 0; r < TQH_TOOL_COUNT; r++) s->layer[TQH_SET_TOOL_COMPILE + r] = (uint8_t)layer;
    return 1;
  }
  for (int r = 0; r < TQH_TOOL_COUNT; r++) {
    char name[32];
    snprintf(name, sizeof(name), "toolchain_%s", k_role_keys[r]);
    if (strcmp(key, name) != 0) continue;
    if (!*value) {
      *out_status = TQ_STATUS(TQ_INVALID_ARGUMENT, "%s: expected a path, found nothing", key);
      return 1;
    }
    const char **argv = tq_arena_calloc(arena, 2, sizeof(*argv));
    if (!argv || !(argv[0] = tq_arena_strndup(arena, value, strlen(value)))) {
      *out_status = TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
      return 1;
    }
    s->tools[r].argv = argv;
    s->tools[r].argc = 1;
    s->layer[TQH_SET_TOOL_COMPILE + r] = (uint8_t)layer;
    return 1;
  }
  return 0;
}

void tqh__toolchain_merge(tqh_settings_t *dst, const tqh_settings_t *src, int which) {
  if (which == TQH_SET_GOLDEN) {
    dst->golden = src->golden;
    dst->golden_count = src->golden_count;
  } else if (which >= TQH_SET_TOOL_COMPILE && which < TQH_SET_TOOL_COMPILE + TQH_TOOL_COUNT) {
    dst->tools[which - TQH_SET_TOOL_COMPILE] = src->tools[which - TQH_SET_TOOL_COMPILE];
  }
}

tq_status_t tqh__toolchain_describe(const tqh_settings_t *s, tq_buf_t *out) {
  for (int r = 0; r < TQH_TOOL_COUNT; r++) {
    const tqh_tool_t *t = &s->tools[r];
    TQ_TRY(tq_buf_printf(out, "toolchain_%s = ", k_role_keys[r]));
    if (!t->argc) TQ_TRY(tq_buf_printf(out, "builtin"));
    for (size_t i = 0; i < t->argc; i++)
      TQ_TRY(tq_buf_printf(out, "%s%s", i ? " " : "", t->argv[i]));
    TQ_TRY(tq_buf_printf(out, "  (%s)\n",
                         tqh_layer_name((tqh_layer_t)s->layer[TQH_SET_TOOL_COMPILE + r])));
  }
  return NULL;
}
