/* Suites: the YAML schema, its checks, glob expansion and the resolved tests (suite.h). */
#include <errno.h>
#include <glob.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "suite_internal.h"
#include "torq/base/alloc.h"
#include "torq/base/file.h"
#include "torq/base/sha256.h"

#define SUITE_MAX_BYTES (16u << 20)
#define SUITE_MAX_TESTS 100000
#define NAME_MAX_BYTES 200

static const char *const suite_keys[] = {"suite", "description", "defaults", "tests", NULL};
static const char *const test_keys[] = {
    "name",   "description", "model",     "inputs", "targets",         "repeat",
    "warmup", "timeout",     "reference", "seed",   "compile_options", "function",
    "tags",   "expect",      "baseline",  "memory", "xfail",           "skip",
    "toolchain", NULL};
static const char *const defaults_keys[] = {
    "inputs",          "targets",  "repeat", "warmup", "timeout",  "reference", "seed",
    "compile_options", "function", "tags",   "expect", "baseline", "memory",    "toolchain",
    NULL};

/* ---- Small helpers --------------------------------------------------------------------------- */

int tqh_suite_name_valid(const char *name) {
  size_t n = strlen(name);
  if (n == 0 || n > 100 || name[0] == '.' || name[0] == '-') return 0;
  return strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") == n;
}

const char *tqh__arena_printf(tqh__loader_t *L, const char *fmt, ...) {
  tq_buf_t b;
  tq_buf_init(&b, 0);
  va_list ap;
  va_start(ap, fmt);
  tq_status_t st = tq_buf_vprintf(&b, fmt, ap);
  va_end(ap);
  const char *out = st ? NULL : tq_arena_strndup(L->arena, b.data ? b.data : "", b.len);
  tq_status_free(st);
  tq_buf_deinit(&b);
  if (!out) tqh__error(L->rep, 0, 0, "out of memory");
  return out;
}

/* `path` resolved against the suite's folder. */
const char *tqh__resolve(tqh__loader_t *L, const char *path) {
  if (path[0] == '/' || !strcmp(L->suite->dir, ".")) return path;
  return tqh__arena_printf(L, "%s/%s", L->suite->dir, path);
}

int tqh__is_regular_file(const char *path) {
  return tqh__file_problem(path) == NULL;
}

const char *tqh__file_problem(const char *path) {
  struct stat st;
  if (stat(path, &st) != 0)
    return errno == ENOENT || errno == ENOTDIR ? "not found" : strerror(errno);
  if (S_ISREG(st.st_mode)) return NULL;
  if (S_ISDIR(st.st_mode)) return "a folder, not a file";
  if (S_ISFIFO(st.st_mode)) return "a FIFO (named pipe), not a file";
  if (S_ISCHR(st.st_mode)) return "a character device, not a file";
  if (S_ISBLK(st.st_mode)) return "a block device, not a file";
  if (S_ISSOCK(st.st_mode)) return "a socket, not a file";
  return "not a regular file";
}

static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

/* The file name without its last extension. */
static const char *stem_of(tqh__loader_t *L, const char *path) {
  const char *b = base_name(path);
  const char *dot = strrchr(b, '.');
  size_t n = dot && dot != b ? (size_t)(dot - b) : strlen(b);
  const char *s = tq_arena_strndup(L->arena, b, n);
  if (!s) tqh__error(L->rep, 0, 0, "out of memory");
  return s;
}

/* A test name: printable, no brackets (they mark targets in ids), no edge spaces. */
static const char *name_problem(const char *name) {
  size_t n = strlen(name);
  if (n == 0) return "is empty";
  if (n > NAME_MAX_BYTES) return "is longer than 200 bytes";
  if (name[0] == ' ' || name[n - 1] == ' ') return "starts or ends with a space";
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)name[i];
    if (c < 0x20 || c == 0x7F) return "holds a control character";
    if (c == '[' || c == ']') return "holds '[' or ']' (they mark targets in test ids)";
  }
  if (name[0] == '/' || name[n - 1] == '/' || strstr(name, "//"))
    return "has an empty part between '/'";
  return NULL;
}

/* ---- Entries --------------------------------------------------------------------------------- */

static void parse_entry(tqh__loader_t *L, const tqh__ynode_t *node, int is_defaults,
                        tqh__entry_t *e) {
  memset(e, 0, sizeof(*e));
  e->node = node;
  tqh__ycheck_keys(L->rep, node, is_defaults ? "defaults" : "a test",
                   is_defaults ? defaults_keys : test_keys);
  tqh_layer_t layer = is_defaults ? TQH_LAYER_SUITE : TQH_LAYER_TEST;
  for (size_t i = 0; i < node->count; i++) {
    const tqh__ynode_t *k = node->keys[i], *v = node->items[i];
    if (k->kind != TQH__Y_SCALAR) continue;
    const char *key = k->str;
    int allowed = 0;
    for (const char *const *a = is_defaults ? defaults_keys : test_keys; *a; a++)
      allowed |= !strcmp(*a, key);
    if (!allowed) continue;
    if (tqh__settings_parse_key(L->rep, L->arena, L->opt->env, key, v, layer, &e->settings))
      continue;
    if (!strcmp(key, "name")) {
      if (tqh__ystr(L->rep, v, "name", &e->name)) e->name_node = v;
    } else if (!strcmp(key, "description")) {
      tqh__ystr(L->rep, v, "description", &e->description);
    } else if (!strcmp(key, "model")) {
      tqh__parse_model(L, e, v);
    } else if (!strcmp(key, "inputs")) {
      tqh__parse_inputs(L, e, v);
    } else if (!strcmp(key, "tags")) {
      tqh__parse_tags(L, e, v);
    } else if (!strcmp(key, "expect")) {
      tqh__parse_expect(L, e, v);
    } else if (!strcmp(key, "xfail")) {
      tqh__parse_xfail(L, e, v);
    } else if (!strcmp(key, "skip")) {
      tqh__parse_skip(L, e, v);
    }
  }
}

/* ---- Building tests -------------------------------------------------------------------------- */

/* The name template with {stem} replaced. */
static const char *expand_name(tqh__loader_t *L, const char *tmpl, const char *stem) {
  tq_buf_t b;
  tq_buf_init(&b, 4096);
  tq_status_t st = NULL;
  for (const char *p = tmpl; *p && !st;) {
    if (!strncmp(p, "{stem}", 6)) {
      st = tq_buf_append_cstr(&b, stem);
      p += 6;
    } else {
      st = tq_buf_putc(&b, *p++);
    }
  }
  const char *out = st ? NULL : tq_arena_strndup(L->arena, b.data ? b.data : "", b.len);
  tq_status_free(st);
  tq_buf_deinit(&b);
  return out;
}

static int add_name(tqh__loader_t *L, const char *name, uint32_t line, uint32_t col) {
  if (L->name_count == L->name_cap) {
    size_t cap = L->name_cap ? L->name_cap * 2 : 32;
    tqh__named_t *n = tq_realloc(L->names, cap * sizeof(*n));
    if (!n) return 0;
    L->names = n;
    L->name_cap = cap;
  }
  L->names[L->name_count] = (tqh__named_t){name, line, col, L->name_count};
  L->name_count++;
  return 1;
}

static tqh_test_t *new_test(tqh__loader_t *L) {
  if (L->count >= SUITE_MAX_TESTS) {
    if (!L->too_many) tqh__error(L->rep, 0, 0, "the suite has more than %d tests", SUITE_MAX_TESTS);
    L->too_many = 1;
    return NULL;
  }
  if (L->count == L->cap) {
    size_t cap = L->cap ? L->cap * 2 : 16;
    tqh_test_t *t = tq_realloc(L->tests, cap * sizeof(*t));
    if (!t) {
      tqh__error(L->rep, 0, 0, "out of memory");
      return NULL;
    }
    L->tests = t;
    L->cap = cap;
  }
  tqh_test_t *t = &L->tests[L->count++];
  memset(t, 0, sizeof(*t));
  return t;
}

/* Tags of defaults then of the test, without duplicates. */
static void merge_tags(tqh__loader_t *L, const tqh__entry_t *e, tqh_test_t *t) {
  size_t n = L->defaults.tag_count + e->tag_count;
  const char **tags = tq_arena_calloc(L->arena, n ? n : 1, sizeof(*tags));
  if (!tags) return;
  size_t k = 0;
  for (int pass = 0; pass < 2; pass++) {
    const tqh__entry_t *src = pass ? e : &L->defaults;
    for (size_t i = 0; i < src->tag_count; i++) {
      int dup = 0;
      for (size_t j = 0; j < k; j++) dup |= !strcmp(tags[j], src->tags[i]);
      if (!dup) tags[k++] = src->tags[i];
    }
  }
  t->tags = tags;
  t->tag_count = k;
}

/* Defaults' expectations, replaced metric by metric by the test's. */
static void merge_expects(tqh__loader_t *L, const tqh__entry_t *e, tqh_test_t *t) {
  size_t n = L->defaults.expect_count + e->expect_count;
  tqh_expect_t *x = tq_arena_calloc(L->arena, n ? n : 1, sizeof(*x));
  if (!x) return;
  size_t k = 0;
  for (size_t i = 0; i < L->defaults.expect_count; i++) {
    int replaced = 0;
    for (size_t j = 0; j < e->expect_count; j++)
      replaced |= !strcmp(e->expects[j].metric, L->defaults.expects[i].metric);
    if (!replaced) x[k++] = L->defaults.expects[i];
  }
  for (size_t j = 0; j < e->expect_count; j++) x[k++] = e->expects[j];
  t->expects = x;
  t->expect_count = k;
}

/* The tests of one entry for one model file (or URL). */
/* The test name of an entry for a model stem, checked and registered for the duplicate check;
 * NULL after an error. */
static const char *entry_name(tqh__loader_t *L, const tqh__entry_t *e, const char *stem) {
  const tqh__ynode_t *where = e->name_node ? e->name_node : e->node;
  const char *tmpl = e->name ? e->name : "{stem}";
  const char *name = expand_name(L, tmpl, stem);
  if (!name) return NULL;
  const char *problem = name_problem(name);
  if (problem) {
    tqh__error(L->rep, where->line, where->col, "test name \"%.80s\" %s", name, problem);
    return NULL;
  }
  if (!add_name(L, name, where->line, where->col)) return NULL;
  return name;
}

static void build(tqh__loader_t *L, const tqh__entry_t *e, const char *path, const char *name,
                  const char *glob) {
  tqh_settings_t s = L->base;
  tqh_settings_merge(&s, &L->defaults.settings);
  tqh_settings_merge(&s, &e->settings);

  const tqh__entry_t *in = e->has_inputs ? e : L->defaults.has_inputs ? &L->defaults : NULL;
  tqh_input_t *inputs = NULL;
  size_t input_count = 0;
  int inputs_random = !in || in->inputs_random;
  uint64_t random_seed = in && in->random_has_seed ? in->random_seed : s.seed;
  if (!inputs_random) {
    input_count = in->input_count;
    inputs = tq_arena_calloc(L->arena, input_count ? input_count : 1, sizeof(*inputs));
    if (!inputs) return;
    for (size_t i = 0; i < input_count; i++) {
      inputs[i] = in->inputs[i].in;
      if (!in->inputs[i].has_seed) inputs[i].seed = s.seed;
    }
  }
  for (size_t ti = 0; ti < s.target_count; ti++) {
    tqh_test_t *t = new_test(L);
    if (!t) return;
    t->name = name;
    t->description = e->description;
    t->target = s.targets[ti];
    t->id = s.target_count > 1 ? tqh__arena_printf(L, "%s/%s[%s]", L->suite->name, name, t->target)
                               : tqh__arena_printf(L, "%s/%s", L->suite->name, name);
    if (!t->id) return;
    tq_buf_t fs;
    tq_buf_init(&fs, 0);
    tq_status_t st = tqh_test_fs_id(t->id, &fs);
    t->fs_id = st ? NULL : tq_arena_strndup(L->arena, fs.data, fs.len);
    tq_status_free(st);
    tq_buf_deinit(&fs);
    if (!t->fs_id) {
      tqh__error(L->rep, 0, 0, "out of memory");
      return;
    }
    t->model.kind = e->model_form == TQH__MODEL_URL ? TQH_MODEL_URL : TQH_MODEL_PATH;
    t->model.path = e->model_form == TQH__MODEL_URL ? NULL : path;
    t->model.url = e->model_form == TQH__MODEL_URL ? e->model_text : NULL;
    t->model.sha256 = e->sha256;
    t->model.glob = glob;
    t->model.loc = (tqh_loc_t){L->file, e->model_node->line, e->model_node->col};
    t->inputs_random = inputs_random;
    t->random_seed = random_seed;
    t->inputs = inputs;
    t->input_count = input_count;
    t->settings = s;
    t->xfail = e->xfail;
    t->skip = e->skip;
    merge_tags(L, e, t);
    merge_expects(L, e, t);
    t->loc = (tqh_loc_t){L->file, e->node->line, e->node->col};
  }
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static void expand_glob(tqh__loader_t *L, const tqh__entry_t *e) {
  const tqh__ynode_t *m = e->model_node;
  const char *pattern = tqh__resolve(L, e->model_text);
  if (!pattern) return;
  if (e->name && !strstr(e->name, "{stem}")) {
    tqh__error(L->rep, e->name_node->line, e->name_node->col,
               "a test with a glob model gets one test per file: its name needs {stem} "
               "(e.g. \"tosa/{stem}\"), or leave name: out");
    return;
  }
  if (L->opt->no_filesystem) {
    const char *stem = stem_of(L, pattern);
    const char *name = stem ? entry_name(L, e, stem) : NULL;
    if (name) build(L, e, pattern, name, pattern);
    return;
  }
  glob_t g;
  memset(&g, 0, sizeof(g));
  int rc = glob(pattern, GLOB_NOSORT, NULL, &g);
  if (rc != 0 && rc != GLOB_NOMATCH) {
    tqh__error(L->rep, m->line, m->col, "model: cannot expand the glob \"%.100s\" (%s)", pattern,
               rc == GLOB_NOSPACE ? "out of memory" : "read error");
    globfree(&g);
    return;
  }
  /* Only regular files, in byte order, so that ids do not depend on the locale. */
  char **files = tq_calloc(g.gl_pathc ? g.gl_pathc : 1, sizeof(*files));
  size_t n = 0;
  for (size_t i = 0; files && i < g.gl_pathc; i++)
    if (tqh__is_regular_file(g.gl_pathv[i])) files[n++] = g.gl_pathv[i];
  if (!files) {
    tqh__error(L->rep, m->line, m->col, "out of memory");
  } else if (n == 0) {
    tqh__error(L->rep, m->line, m->col, "model: the glob \"%.100s\" matches no file%s%.200s%s",
               e->model_text, strcmp(pattern, e->model_text) ? " (looked for " : "",
               strcmp(pattern, e->model_text) ? pattern : "",
               strcmp(pattern, e->model_text) ? ")" : "");
  } else {
    qsort(files, n, sizeof(*files), cmp_str);
    for (size_t i = 0; i < n && !L->too_many; i++) {
      const char *path = tq_arena_strndup(L->arena, files[i], strlen(files[i]));
      const char *stem = path ? stem_of(L, path) : NULL;
      const char *name = stem ? entry_name(L, e, stem) : NULL;
      if (name) build(L, e, path, name, pattern);
    }
  }
  tq_free(files);
  globfree(&g);
}

static void build_entry(tqh__loader_t *L, const tqh__entry_t *e) {
  if (!e->model_node) {
    tqh__error(L->rep, e->node->line, e->node->col,
               "a test needs a model: (a path, a glob, or {url: URL, sha256: HEX})");
    if (e->name && !strstr(e->name, "{stem}")) entry_name(L, e, "model");
    return;
  }
  if (e->model_form == TQH__MODEL_GLOB) {
    expand_glob(L, e);
    return;
  }
  /* The name is registered even when the model is wrong, so that duplicates show as well. */
  const char *stem = NULL;
  if (e->model_form == TQH__MODEL_URL) {
    /* The last part of the URL's path, without query or extension. */
    const char *u = e->model_text;
    size_t end = strcspn(u, "?#");
    const char *tail = u;
    for (size_t i = 0; i < end; i++)
      if (u[i] == '/') tail = u + i + 1;
    const char *stem_src = tq_arena_strndup(L->arena, tail, (size_t)(u + end - tail));
    stem = stem_src && *stem_src ? stem_of(L, stem_src) : "model";
  } else if (e->model_text) {
    stem = stem_of(L, e->model_text);
  } else if (e->name && !strstr(e->name, "{stem}")) {
    stem = "model";
  }
  const char *name = stem ? entry_name(L, e, stem) : NULL;
  if (!e->model_text || !name) return; /* reported */
  if (e->model_form == TQH__MODEL_URL) {
    build(L, e, NULL, name, NULL);
    return;
  }
  const char *path = tqh__resolve(L, e->model_text);
  if (!path) return;
  const char *problem = L->opt->no_filesystem ? NULL : tqh__file_problem(path);
  if (problem) {
    const tqh__ynode_t *m = e->model_node;
    const char *is = strcmp(problem, "not found") ? "is " : "";
    if (strcmp(path, e->model_text) != 0)
      tqh__error(L->rep, m->line, m->col, "model file \"%.100s\" %s%s (looked for %.200s)",
                 e->model_text, is, problem, path);
    else
      tqh__error(L->rep, m->line, m->col, "model file \"%.100s\" %s%s", path, is, problem);
    return;
  }
  build(L, e, path, name, NULL);
}

static int named_cmp(const void *pa, const void *pb) {
  const tqh__named_t *a = pa, *b = pb;
  int c = strcmp(a->name, b->name);
  if (c) return c;
  return a->order < b->order ? -1 : a->order > b->order;
}

static void check_duplicates(tqh__loader_t *L) {
  if (L->name_count > 1) qsort(L->names, L->name_count, sizeof(*L->names), named_cmp);
  for (size_t i = 1; i < L->name_count; i++) {
    const tqh__named_t *n = &L->names[i];
    size_t j = i;
    while (j > 0 && !strcmp(L->names[j - 1].name, n->name)) j--;
    if (j == i) continue;
    const tqh__named_t *first = &L->names[j];
    tqh__error_note(L->rep, n->line, n->col, first->line, first->col, "first defined here",
                    "duplicate test name \"%.100s\"", n->name);
  }
}

/* ---- The suite ------------------------------------------------------------------------------- */

static const char *suite_name_from_file(tqh__loader_t *L, const char *path) {
  const char *b = base_name(path);
  size_t n = strlen(b);
  if (n > 5 && !strcmp(b + n - 5, ".yaml"))
    n -= 5;
  else if (n > 4 && !strcmp(b + n - 4, ".yml"))
    n -= 4;
  return tq_arena_strndup(L->arena, b, n);
}

static void load_root(tqh__loader_t *L, const tqh__ynode_t *root) {
  tqh__report_t *rep = L->rep;
  tqh_suite_t *suite = L->suite;
  if (root->kind != TQH__Y_MAP) {
    tqh__error(rep, root->line, root->col,
               "a suite is a mapping with suite:, description:, defaults: and tests:, found %s",
               tqh__ydescribe(root));
    return;
  }
  tqh__ycheck_keys(rep, root, "a suite", suite_keys);
  const tqh__ynode_t *v;
  if ((v = tqh__yget(root, "suite", NULL))) {
    const char *name;
    if (tqh__ystr(rep, v, "suite", &name)) {
      if (tqh_suite_name_valid(name))
        suite->name = name;
      else
        tqh__error(rep, v->line, v->col,
                   "suite: \"%.60s\" is not a suite name ([A-Za-z0-9_][A-Za-z0-9_.-]*, at most "
                   "100 bytes)",
                   name);
    }
  } else {
    const char *name = suite_name_from_file(L, L->file);
    if (name && tqh_suite_name_valid(name))
      suite->name = name;
    else
      tqh__error(rep, root->line, root->col,
                 "the file name does not make a suite name; add suite: NAME "
                 "([A-Za-z0-9_][A-Za-z0-9_.-]*)");
  }
  if (!suite->name) suite->name = "suite";
  if ((v = tqh__yget(root, "description", NULL)))
    tqh__ystr(rep, v, "description", &suite->description);
  if ((v = tqh__yget(root, "defaults", NULL))) {
    if (v->kind == TQH__Y_MAP)
      parse_entry(L, v, 1, &L->defaults);
    else if (!(v->kind == TQH__Y_SCALAR && v->scalar == TQH__S_NULL))
      tqh__error(rep, v->line, v->col, "defaults: expected a mapping of test settings, found %s",
                 tqh__ydescribe(v));
  }
  v = tqh__yget(root, "tests", NULL);
  if (!v) {
    tqh__error(rep, root->line, root->col, "a suite needs tests: (a list of tests)");
    return;
  }
  if (v->kind != TQH__Y_SEQ) {
    tqh__error(rep, v->line, v->col, "tests: expected a list of tests, found %s",
               tqh__ydescribe(v));
    return;
  }
  if (v->count == 0) {
    tqh__error(rep, v->line, v->col, "tests: the list is empty");
    return;
  }
  for (size_t i = 0; i < v->count && !L->too_many; i++) {
    const tqh__ynode_t *item = v->items[i];
    if (item->kind != TQH__Y_MAP) {
      tqh__error(rep, item->line, item->col,
                 "tests: each test is a mapping with model: and its settings, found %s",
                 tqh__ydescribe(item));
      continue;
    }
    tqh__entry_t e;
    parse_entry(L, item, 0, &e);
    build_entry(L, &e);
  }
  check_duplicates(L);
}

void tqh_suite_options_initialize(tqh_suite_options_t *options) {
  memset(options, 0, sizeof(*options));
}

tq_status_t tqh_suite_load_buffer(const char *path, const char *data, size_t len,
                                  const tqh_suite_options_t *options, tqh_suite_t **out_suite) {
  *out_suite = NULL;
  tqh_suite_options_t defaults;
  if (!options) {
    tqh_suite_options_initialize(&defaults);
    options = &defaults;
  }
  tqh_suite_t *suite = tq_calloc(1, sizeof(*suite));
  if (!suite) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory loading %s", path);
  tq_arena_init(&suite->arena, (size_t)64 * 1024, 0);
  tqh__loader_t L;
  memset(&L, 0, sizeof(L));
  L.suite = suite;
  L.arena = &suite->arena;
  L.opt = options;
  tqh__report_t rep;
  L.rep = &rep;
  L.file = tq_arena_strndup(&suite->arena, path, strlen(path));
  tqh__report_init(&rep, L.file ? L.file : path, data, len, options->max_errors);
  if (options->config)
    L.base = options->config->defaults;
  else
    tqh__settings_builtin(&L.base);
  suite->path = L.file;
  const char *slash = L.file ? strrchr(L.file, '/') : NULL;
  suite->dir = !L.file  ? NULL
               : !slash ? "."
               : slash == L.file
                   ? "/"
                   : tq_arena_strndup(&suite->arena, L.file, (size_t)(slash - L.file));
  if (!L.file || !suite->dir) {
    tqh__report_deinit(&rep);
    tqh_suite_destroy(suite);
    return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory loading %s", path);
  }
  tqh__ynode_t *root = tqh__yaml_parse(&suite->arena, &rep, data, len);
  if (root) load_root(&L, root);
  if (rep.errors.errors == 0) {
    suite->tests = tq_arena_calloc(&suite->arena, L.count ? L.count : 1, sizeof(*suite->tests));
    if (!suite->tests) {
      tqh__error(&rep, 0, 0, "out of memory");
    } else {
      if (L.count) memcpy(suite->tests, L.tests, L.count * sizeof(*suite->tests));
      suite->test_count = L.count;
      for (size_t i = 0; i < L.count; i++) {
        suite->tests[i].suite = suite;
        suite->tests[i].index = i;
      }
    }
  }
  tq_free(L.tests);
  tq_free(L.names);
  tq_status_t st = tqh__report_finish(&rep, options->errors);
  tqh__report_deinit(&rep);
  if (st) {
    tqh_suite_destroy(suite);
    return st;
  }
  *out_suite = suite;
  return NULL;
}

tq_status_t tqh_suite_load(const char *path, const tqh_suite_options_t *options,
                           tqh_suite_t **out_suite) {
  *out_suite = NULL;
  tq_buf_t buf;
  tq_status_t st = tq_file_read(path, SUITE_MAX_BYTES, &buf);
  if (st) {
    tqh__report_t rep;
    tqh__report_init(&rep, path, NULL, 0, options ? options->max_errors : 0);
    tqh__error(&rep, 0, 0, "cannot read the suite: %s", tq_status_message(st));
    tq_status_free(st);
    st = tqh__report_finish(&rep, options ? options->errors : NULL);
    tqh__report_deinit(&rep);
    tq_buf_deinit(&buf);
    return st;
  }
  st = tqh_suite_load_buffer(path, buf.data ? buf.data : "", buf.len, options, out_suite);
  tq_buf_deinit(&buf);
  return st;
}

void tqh_suite_destroy(tqh_suite_t *suite) {
  if (!suite) return;
  tq_arena_deinit(&suite->arena);
  tq_free(suite);
}

/* ---- File-system-safe ids -------------------------------------------------------------------- */

tq_status_t tqh_test_fs_id(const char *id, tq_buf_t *out) {
  static const char hex[] = "0123456789ABCDEF";
  size_t start = out->len;
  /* Where each source byte's output ends, to cut between escapes. */
  size_t cut = start;
  for (const char *p = id; *p; p++) {
    unsigned char c = (unsigned char)*p;
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
        c == '_' || c == '-') {
      TQ_TRY(tq_buf_putc(out, (char)c));
    } else if (c == '/') {
      TQ_TRY(tq_buf_putc(out, '+'));
    } else {
      char esc[3] = {'%', hex[c >> 4], hex[c & 15]};
      TQ_TRY(tq_buf_append(out, esc, 3));
    }
    if (out->len - start <= TQH_FS_ID_MAX - 17) cut = out->len;
  }
  if (out->len - start <= TQH_FS_ID_MAX) return NULL;
  uint8_t digest[TQ_SHA256_SIZE];
  char digest_hex[TQ_SHA256_HEX_SIZE];
  TQ_TRY(tq_sha256(id, strlen(id), digest));
  tq_sha256_hex(digest, digest_hex);
  out->len = cut;
  out->data[cut] = '\0';
  return tq_buf_printf(out, "~%.16s", digest_hex);
}
