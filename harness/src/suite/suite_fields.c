/* The parsers of a test's keys: model, inputs, tags, expectations, xfail and skip (the loader
 * is suite.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suite_internal.h"
#include "torq/base/alloc.h"
#include "torq/runtime/input.h"
#include "torq/runtime/tensor.h"

static int has_glob_chars(const char *s) {
  return strpbrk(s, "*?[") != NULL;
}

/* Inputs up to this size are checked by building them with the runtime's parser. */
#define INPUT_CHECK_BYTES (1u << 20)

const char *tqh_stat_name(tqh_stat_t stat) {
  switch (stat) {
    case TQH_STAT_MEDIAN:
      return "median";
    case TQH_STAT_MEAN:
      return "mean";
    case TQH_STAT_MIN:
      return "min";
    case TQH_STAT_MAX:
      return "max";
  }
  return "median";
}

static int tag_valid(const char *t) {
  size_t n = strlen(t);
  if (n == 0 || n > 64 || !strcmp(t, "and") || !strcmp(t, "or") || !strcmp(t, "not")) return 0;
  return strspn(t, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:/+-") == n;
}

/* ---- Model ----------------------------------------------------------------------------------- */

static int hex64(const char *s) {
  if (strlen(s) != 64) return 0;
  return strspn(s, "0123456789abcdefABCDEF") == 64;
}

static int url_valid(const char *u) {
  const char *rest;
  if (!strncmp(u, "https://", 8))
    rest = u + 8;
  else if (!strncmp(u, "http://", 7))
    rest = u + 7;
  else
    return 0;
  if (!*rest || *rest == '/' || strlen(u) > 2048) return 0;
  for (const char *c = u; *c; c++)
    if ((unsigned char)*c <= 0x20 || *c == 0x7F) return 0;
  return 1;
}

void tqh__parse_model(tqh__loader_t *L, tqh__entry_t *e, const tqh__ynode_t *v) {
  tqh__report_t *rep = L->rep;
  e->model_node = v;
  const char *s;
  if (v->kind == TQH__Y_SCALAR) {
    if (!tqh__ystr(rep, v, "model", &s) || !(s = tqh__subst(rep, L->arena, L->opt->env, v, s)))
      return;
    if (!*s) {
      tqh__error(rep, v->line, v->col, "model: the path is empty");
      return;
    }
    e->model_text = s;
    e->model_form = has_glob_chars(s) ? TQH__MODEL_GLOB : TQH__MODEL_PATH;
    return;
  }
  if (v->kind != TQH__Y_MAP) {
    tqh__error(rep, v->line, v->col,
               "model: expected a path, a glob or {url: URL, sha256: HEX}, found %s",
               tqh__ydescribe(v));
    return;
  }
  static const char *const keys[] = {"path", "glob", "url", "sha256", NULL};
  tqh__ycheck_keys(rep, v, "model", keys);
  const tqh__ynode_t *path = tqh__yget(v, "path", NULL), *glob = tqh__yget(v, "glob", NULL),
                     *url = tqh__yget(v, "url", NULL), *sha = tqh__yget(v, "sha256", NULL);
  int forms = !!path + !!glob + !!url;
  if (forms != 1) {
    tqh__error(rep, v->line, v->col, "model: give exactly one of path:, glob: or url: (found %d)",
               forms);
    return;
  }
  const tqh__ynode_t *which = path ? path : glob ? glob : url;
  const char *key = path ? "model.path" : glob ? "model.glob" : "model.url";
  if (!tqh__ystr(rep, which, key, &s) || !(s = tqh__subst(rep, L->arena, L->opt->env, which, s)))
    return;
  e->model_node = which;
  if (!*s) {
    tqh__error(rep, which->line, which->col, "%s: empty", key);
    return;
  }
  if (url) {
    if (!url_valid(s)) {
      tqh__error(rep, url->line, url->col,
                 "model.url: \"%.80s\" is not an http:// or https:// URL with a host", s);
      return;
    }
    if (!sha) {
      tqh__error(rep, v->line, v->col,
                 "model: a url: needs its sha256: (64 hex digits), so that what is fetched can "
                 "be checked");
      return;
    }
    const char *h;
    if (!tqh__ystr(rep, sha, "model.sha256", &h)) return;
    if (!hex64(h)) {
      tqh__error(rep, sha->line, sha->col,
                 "model.sha256: expected 64 hex digits, found %zu characters \"%.70s\"", strlen(h),
                 h);
      return;
    }
    char *lower = tq_arena_strndup(L->arena, h, 64);
    if (!lower) return;
    for (char *c = lower; *c; c++)
      if (*c >= 'A' && *c <= 'F') *c = (char)(*c - 'A' + 'a');
    e->sha256 = lower;
    e->model_form = TQH__MODEL_URL;
  } else {
    if (sha) {
      tqh__error(rep, sha->line, sha->col, "model.sha256: only a url: model has a sha256");
      return;
    }
    e->model_form = path ? TQH__MODEL_PATH : TQH__MODEL_GLOB;
  }
  e->model_text = s;
}

/* ---- Inputs ---------------------------------------------------------------------------------- */

/* Parses SHAPExTYPE in [spec, end): 1 and the byte size, or 0. */
static int shape_size(const char *spec, const char *end, size_t *out_bytes) {
  int64_t dims[TQR_MAX_RANK];
  size_t rank = 0;
  const char *c = spec;
  while (c < end && *c >= '0' && *c <= '9') {
    int64_t v = 0;
    for (; c < end && *c >= '0' && *c <= '9'; c++) {
      if (v > (INT64_MAX - 9) / 10) return 0;
      v = v * 10 + (*c - '0');
    }
    if (c == end || *c != 'x' || rank == TQR_MAX_RANK) return 0;
    dims[rank++] = v;
    c++;
  }
  Torq__ElementType type;
  if (!tqr_element_parse(tq_sv(c, (size_t)(end - c)), &type)) return 0;
  tq_status_t st = tqr_tensor_byte_size(type, rank, dims, out_bytes);
  if (st) {
    tq_status_free(st);
    return 0;
  }
  return 1;
}

static void input_error(tqh__loader_t *L, const tqh__ynode_t *v, size_t index, const char *msg) {
  tqh__error(L->rep, v->line, v->col, "inputs[%zu]: bad input spec: %s", index, msg);
}

static void input_error_hint(tqh__loader_t *L, const tqh__ynode_t *v, size_t index, const char *msg,
                             const char *hint) {
  tqh__error(L->rep, v->line, v->col, "inputs[%zu]: bad input spec: %s%s", index, msg, hint);
}

/* Runs the runtime's parser on `text` (small tensors only) and reports its error. */
static int runtime_check_hint(tqh__loader_t *L, const tqh__ynode_t *v, size_t index,
                              const char *text, const char *hint) {
  tqr_input_options_t o;
  tqr_input_options_initialize(&o);
  o.max_file_bytes = INPUT_CHECK_BYTES;
  tqr_tensor_t *t = NULL;
  tq_status_t st = tqr_input_parse(text, &o, &t);
  tqr_tensor_destroy(t);
  if (!st) return 1;
  input_error_hint(L, v, index, tq_status_message(st), hint);
  tq_status_free(st);
  return 0;
}

static int runtime_check(tqh__loader_t *L, const tqh__ynode_t *v, size_t index, const char *text) {
  return runtime_check_hint(L, v, index, text, "");
}

/* Checks one IREE input text and resolves its @FILE. */
static int parse_input_text(tqh__loader_t *L, const tqh__ynode_t *v, size_t index, const char *text,
                            tqh_input_t *out) {
  out->kind = TQH_INPUT_TEXT;
  out->text = text;
  const char *eq = text[0] == '@' ? text : strchr(text, '=');
  if (!eq) {
    /* "expected SHAPExTYPE=VALUE ..."; a bare value is often what is left of a list of values
     * that YAML split at its commas. */
    runtime_check_hint(L, v, index, text,
                       " (in a [...] list, quote an input whose values hold commas)");
    return 0;
  }
  const char *value = text[0] == '@' ? text : eq + 1;
  int typed = eq > text;
  size_t bytes = 0;
  if (typed && !shape_size(text, eq, &bytes)) {
    /* The runtime's parser names the problem (it fails before making any tensor); a file is not
     * read by it, it is probed with @random in its place. */
    const char *probe =
        value[0] != '@' ? text : tqh__arena_printf(L, "%.*s=@random", (int)(eq - text), text);
    if (!probe) return 0;
    if (runtime_check(L, v, index, probe))
      input_error(L, v, index, "the SHAPExTYPE before '=' is not valid (e.g. 1x16x16x8xi8)");
    return 0;
  }
  if (value[0] != '@') {
    if (!typed || bytes <= INPUT_CHECK_BYTES) return runtime_check(L, v, index, text);
    /* A large tensor: check the value as a splat of the type. */
    const char *type = eq;
    while (type > text && type[-1] != 'x') type--;
    if (strpbrk(value, ", \t[]")) {
      input_error(L, v, index,
                  "a list of values for a tensor this large; give one value (a splat) or a file");
      return 0;
    }
    const char *probe = tqh__arena_printf(L, "%.*s=%s", (int)(eq - type), type, value);
    return probe && runtime_check(L, v, index, probe);
  }
  const char *path = value + 1;
  if (!*path) return runtime_check(L, v, index, text);
  if (!strcmp(path, "random")) {
    if (!typed) {
      input_error(L, v, index, "@random needs a SHAPExTYPE before '=' (e.g. 1x4xi8=@random)");
      return 0;
    }
    return 1;
  }
  size_t plen = strlen(path);
  int npy = plen > 4 && !strcmp(path + plen - 4, ".npy");
  if (!typed && !npy) {
    char msg[256];
    snprintf(msg, sizeof(msg),
             "a raw file needs its SHAPExTYPE before '=' (e.g. 1x4xi8=@%.60s); only .npy files "
             "carry their own",
             path);
    input_error(L, v, index, msg);
    return 0;
  }
  const char *file = tqh__resolve(L, path);
  if (!file) return 0;
  const char *problem = L->opt->no_filesystem ? NULL : tqh__file_problem(file);
  if (problem) {
    tqh__error(L->rep, v->line, v->col,
               "inputs[%zu]: input file \"%.100s\" %s%s (looked for %.200s)", index, path,
               strcmp(problem, "not found") ? "is " : "", problem, file);
    return 0;
  }
  out->file = file;
  out->text = typed ? tqh__arena_printf(L, "%.*s=@%s", (int)(eq - text), text, file)
                    : tqh__arena_printf(L, "@%s", file);
  return out->text != NULL;
}

static int is_random_word(const tqh__ynode_t *v) {
  return v->kind == TQH__Y_SCALAR && v->scalar == TQH__S_STRING && !strcmp(v->str, "random") &&
         v->len == 6;
}

/* {random: SEED}: 1 with the seed, 0 after an error. */
static int random_map(tqh__loader_t *L, const tqh__ynode_t *v, const char *what, uint64_t *seed) {
  static const char *const keys[] = {"random", NULL};
  const tqh__ynode_t *r = tqh__yget(v, "random", NULL);
  if (tqh__ycheck_keys(L->rep, v, what, keys) || !r) {
    if (!r) tqh__error(L->rep, v->line, v->col, "%s: expected {random: SEED}", what);
    return 0;
  }
  return tqh__yu64(L->rep, r, "random", seed);
}

void tqh__parse_inputs(tqh__loader_t *L, tqh__entry_t *e, const tqh__ynode_t *v) {
  e->has_inputs = 1;
  if (is_random_word(v)) {
    e->inputs_random = 1;
    return;
  }
  if (v->kind == TQH__Y_MAP) {
    if (random_map(L, v, "inputs", &e->random_seed)) e->inputs_random = e->random_has_seed = 1;
    return;
  }
  if (v->kind != TQH__Y_SEQ) {
    tqh__error(L->rep, v->line, v->col,
               "inputs: expected random, {random: SEED} or a list of inputs (\"1x4xi8=1\", "
               "\"@in.npy\", random ...), found %s",
               tqh__ydescribe(v));
    return;
  }
  e->inputs = tq_arena_calloc(L->arena, v->count ? v->count : 1, sizeof(*e->inputs));
  if (!e->inputs) {
    tqh__error(L->rep, v->line, v->col, "out of memory");
    return;
  }
  e->input_count = v->count;
  for (size_t i = 0; i < v->count; i++) {
    const tqh__ynode_t *item = v->items[i];
    tqh__input_spec_t *spec = &e->inputs[i];
    spec->in.loc = (tqh_loc_t){L->file, item->line, item->col};
    if (is_random_word(item)) {
      spec->in.kind = TQH_INPUT_RANDOM;
    } else if (item->kind == TQH__Y_MAP) {
      char what[32];
      snprintf(what, sizeof(what), "inputs[%zu]", i);
      if (random_map(L, item, what, &spec->in.seed)) {
        spec->in.kind = TQH_INPUT_RANDOM;
        spec->has_seed = 1;
      }
    } else {
      const char *s;
      char what[32];
      snprintf(what, sizeof(what), "inputs[%zu]", i);
      if (!tqh__ystr(L->rep, item, what, &s) ||
          !(s = tqh__subst(L->rep, L->arena, L->opt->env, item, s)))
        continue;
      parse_input_text(L, item, i, s, &spec->in);
    }
  }
}

/* ---- Tags, expectations, xfail --------------------------------------------------------------- */

void tqh__parse_tags(tqh__loader_t *L, tqh__entry_t *e, const tqh__ynode_t *v) {
  size_t n = v->kind == TQH__Y_SEQ ? v->count : 1;
  if (v->kind == TQH__Y_MAP || (v->kind == TQH__Y_SCALAR && v->scalar == TQH__S_NULL)) {
    tqh__error(L->rep, v->line, v->col, "tags: expected a tag or a list of tags, found %s",
               tqh__ydescribe(v));
    return;
  }
  e->tags = tq_arena_calloc(L->arena, n ? n : 1, sizeof(*e->tags));
  if (!e->tags) return;
  e->has_tags = 1;
  for (size_t i = 0; i < n; i++) {
    const tqh__ynode_t *item = v->kind == TQH__Y_SEQ ? v->items[i] : v;
    const char *t;
    if (!tqh__ystr(L->rep, item, "tags", &t)) continue;
    if (!tag_valid(t)) {
      tqh__error(L->rep, item->line, item->col,
                 "tags: \"%.60s\" is not a tag: [A-Za-z0-9_.:/+-]+, at most 64 bytes, not "
                 "and/or/not",
                 t);
      continue;
    }
    int dup = 0;
    for (size_t j = 0; j < e->tag_count; j++) dup |= !strcmp(e->tags[j], t);
    if (!dup) e->tags[e->tag_count++] = t;
  }
}

static const struct {
  const char *suffix;
  tqh_unit_t unit;
  double scale;
} units[] = {{"_ns", TQH_UNIT_TIME, 1e-9},
             {"_us", TQH_UNIT_TIME, 1e-6},
             {"_ms", TQH_UNIT_TIME, 1e-3},
             {"_s", TQH_UNIT_TIME, 1.0},
             {"_pct", TQH_UNIT_PERCENT, 1.0}};

static int parse_tolerance(tqh__loader_t *L, const tqh__ynode_t *v, double *out) {
  if (v->kind == TQH__Y_SCALAR && v->scalar == TQH__S_STRING) {
    size_t n = v->len;
    double pct;
    char num[64];
    if (n >= 2 && n < sizeof(num) && v->str[n - 1] == '%') {
      memcpy(num, v->str, n - 1);
      num[n - 1] = '\0';
      if (tqh__parse_double(num, &pct) && pct >= 0) {
        *out = pct / 100.0;
        return 1;
      }
    }
    tqh__error(L->rep, v->line, v->col,
               "tolerance: expected a fraction (0.1) or a percentage (\"10%%\"), found \"%.40s\"",
               v->str);
    return 0;
  }
  return tqh__ynum(L->rep, v, "tolerance", 0, 0, out);
}

void tqh__parse_expect(tqh__loader_t *L, tqh__entry_t *e, const tqh__ynode_t *v) {
  tqh__report_t *rep = L->rep;
  if (v->kind != TQH__Y_MAP) {
    tqh__error(rep, v->line, v->col,
               "expect: expected a mapping of metrics ({overall_us: {max: 1200}}), found %s",
               tqh__ydescribe(v));
    return;
  }
  e->expects = tq_arena_calloc(L->arena, v->count ? v->count : 1, sizeof(*e->expects));
  if (!e->expects) return;
  e->has_expect = 1;
  for (size_t i = 0; i < v->count; i++) {
    const tqh__ynode_t *k = v->keys[i], *val = v->items[i];
    if (k->kind != TQH__Y_SCALAR) continue;
    tqh_expect_t x;
    memset(&x, 0, sizeof(x));
    x.key = k->str;
    x.loc = (tqh_loc_t){L->file, k->line, k->col};
    size_t n = strlen(k->str), u = 0, ulen = 0;
    for (; u < sizeof(units) / sizeof(units[0]); u++) {
      ulen = strlen(units[u].suffix);
      if (n > ulen && !strcmp(k->str + n - ulen, units[u].suffix)) break;
    }
    int name_ok = n <= 64 && k->len == n && k->str[0] >= 'a' && k->str[0] <= 'z' &&
                  strspn(k->str, "abcdefghijklmnopqrstuvwxyz0123456789_") == n;
    if (!name_ok || u == sizeof(units) / sizeof(units[0])) {
      tqh__error(rep, k->line, k->col,
                 "expect: \"%.60s\" is not a metric: a lower-case name with a unit suffix _s, "
                 "_ms, _us, _ns or _pct (wall_time_s, overall_us, dma_total_pct)",
                 k->str);
      continue;
    }
    x.metric = tq_arena_strndup(L->arena, k->str, n - ulen);
    x.unit = units[u].unit;
    x.scale = units[u].scale;
    if (!x.metric) continue;
    int ok = 1;
    if (val->kind == TQH__Y_SCALAR && val->scalar != TQH__S_STRING && val->scalar != TQH__S_NULL &&
        val->scalar != TQH__S_BOOL) {
      ok = tqh__ynum(rep, val, k->str, 0, 0, &x.max);
      x.has_max = 1;
    } else if (val->kind == TQH__Y_MAP) {
      static const char *const keys[] = {"min", "max", "baseline", "tolerance", "stat", NULL};
      if (tqh__ycheck_keys(rep, val, "an expectation", keys)) ok = 0;
      const tqh__ynode_t *mn = tqh__yget(val, "min", NULL), *mx = tqh__yget(val, "max", NULL),
                         *bl = tqh__yget(val, "baseline", NULL),
                         *tol = tqh__yget(val, "tolerance", NULL),
                         *st = tqh__yget(val, "stat", NULL);
      if (mn) ok &= x.has_min = tqh__ynum(rep, mn, "min", 0, 0, &x.min);
      if (mx) ok &= x.has_max = tqh__ynum(rep, mx, "max", 0, 0, &x.max);
      if (bl) ok &= x.has_baseline = tqh__ynum(rep, bl, "baseline", 0, 0, &x.baseline);
      if (tol) ok &= parse_tolerance(L, tol, &x.tolerance);
      if (st) {
        const char *s;
        if (!tqh__ystr(rep, st, "stat", &s)) {
          ok = 0;
        } else if (!strcmp(s, "median")) {
          x.stat = TQH_STAT_MEDIAN;
        } else if (!strcmp(s, "mean")) {
          x.stat = TQH_STAT_MEAN;
        } else if (!strcmp(s, "min")) {
          x.stat = TQH_STAT_MIN;
        } else if (!strcmp(s, "max")) {
          x.stat = TQH_STAT_MAX;
        } else {
          tqh__error(rep, st->line, st->col,
                     "stat: \"%.40s\" is not a statistic (median, mean, min, max)", s);
          ok = 0;
        }
      }
      if (ok && bl && !tol) {
        tqh__error(rep, bl->line, bl->col, "%s: a baseline needs a tolerance (e.g. \"10%%\")",
                   k->str);
        ok = 0;
      } else if (ok && tol && !bl) {
        tqh__error(rep, tol->line, tol->col, "%s: a tolerance needs a baseline", k->str);
        ok = 0;
      }
      if (ok && x.has_baseline) {
        double m = x.baseline * (1.0 + x.tolerance);
        if (!x.has_max || m < x.max) x.max = m;
        x.has_max = 1;
      }
      if (ok && !x.has_min && !x.has_max) {
        tqh__error(rep, val->line, val->col,
                   "%s: give max:, min: or baseline: with tolerance:", k->str);
        ok = 0;
      }
      if (ok && x.has_min && x.has_max && x.min > x.max) {
        tqh__error(rep, val->line, val->col, "%s: min (%g) is above max (%g)", k->str, x.min,
                   x.max);
        ok = 0;
      }
    } else {
      tqh__error(rep, val->line, val->col,
                 "%s: expected a maximum (1200) or {min, max, baseline, tolerance, stat}, found %s",
                 k->str, tqh__ydescribe(val));
      ok = 0;
    }
    if (!ok) continue;
    for (size_t j = 0; j < e->expect_count; j++) {
      if (strcmp(e->expects[j].metric, x.metric) != 0) continue;
      tqh__error_note(rep, k->line, k->col, e->expects[j].loc.line, e->expects[j].loc.col,
                      "first given here", "expect: metric \"%s\" is given twice", x.metric);
      ok = 0;
    }
    if (ok) e->expects[e->expect_count++] = x;
  }
}

/* A number in plain decimal notation with six significant digits, never an exponent (so that a
 * value and its bound read alike: "0.00325711, above max 0.000001"); %g only beyond 1e15. */
static void plain(double v, char out[48]) {
  double a = fabs(v);
  if (v == 0 || !isfinite(v) || a >= 1e15) {
    snprintf(out, 48, "%.6g", v);
    return;
  }
  int e = (int)floor(log10(a));
  int decimals = 5 - e;
  if (decimals < 0) decimals = 0;
  if (decimals > 24) decimals = 24;
  snprintf(out, 48, "%.*f", decimals, v);
  if (strchr(out, '.')) {
    size_t n = strlen(out);
    while (n && out[n - 1] == '0') out[--n] = 0;
    if (n && out[n - 1] == '.') out[--n] = 0;
  }
}

int tqh_expect_check(const tqh_expect_t *expect, double value, char *msg, size_t cap) {
  double v = value / expect->scale;
  const char *stat = tqh_stat_name(expect->stat);
  if (isnan(v)) {
    if (msg && cap) snprintf(msg, cap, "%s (%s) is not a number", expect->key, stat);
    return 0;
  }
  char vs[48], bs[48], base[48], tol[48];
  plain(v, vs);
  if (expect->has_max && v > expect->max) {
    if (msg && cap) {
      plain(expect->max, bs);
      plain(expect->baseline, base);
      plain(expect->tolerance * 100.0, tol);
      if (expect->has_baseline)
        snprintf(msg, cap, "%s (%s) = %s, above max %s (baseline %s + %s%%)", expect->key, stat, vs,
                 bs, base, tol);
      else
        snprintf(msg, cap, "%s (%s) = %s, above max %s", expect->key, stat, vs, bs);
    }
    return 0;
  }
  if (expect->has_min && v < expect->min) {
    if (msg && cap) {
      plain(expect->min, bs);
      snprintf(msg, cap, "%s (%s) = %s, below min %s", expect->key, stat, vs, bs);
    }
    return 0;
  }
  if (msg && cap) msg[0] = '\0';
  return 1;
}

void tqh__parse_xfail(tqh__loader_t *L, tqh__entry_t *e, const tqh__ynode_t *v) {
  tqh__report_t *rep = L->rep;
  e->xfail.loc = (tqh_loc_t){L->file, v->line, v->col};
  const tqh__ynode_t *reason = v;
  if (v->kind == TQH__Y_MAP) {
    static const char *const keys[] = {"reason", "strict", NULL};
    tqh__ycheck_keys(rep, v, "xfail", keys);
    const tqh__ynode_t *strict = tqh__yget(v, "strict", NULL);
    if (strict && !tqh__ybool(rep, strict, "xfail.strict", &e->xfail.strict)) return;
    reason = tqh__yget(v, "reason", NULL);
    if (!reason) {
      tqh__error(rep, v->line, v->col,
                 "xfail needs a reason: {reason: \"why it fails\", strict: true}");
      return;
    }
  } else if (v->kind != TQH__Y_SCALAR || v->scalar == TQH__S_BOOL || v->scalar == TQH__S_NULL) {
    tqh__error(rep, v->line, v->col,
               "xfail needs a reason: xfail: \"why it fails\" (or {reason: ..., strict: true}), "
               "found %s",
               tqh__ydescribe(v));
    return;
  }
  const char *r;
  if (!tqh__ystr(rep, reason, "xfail.reason", &r)) return;
  if (!*r) {
    tqh__error(rep, reason->line, reason->col, "xfail: the reason is empty; say why it fails");
    return;
  }
  e->xfail.reason = r;
  e->xfail.expected = 1;
}

void tqh__parse_skip(tqh__loader_t *L, tqh__entry_t *e, const tqh__ynode_t *v) {
  const char *r;
  if (v->kind != TQH__Y_SCALAR || v->scalar == TQH__S_BOOL || v->scalar == TQH__S_NULL) {
    tqh__error(L->rep, v->line, v->col, "skip needs a reason: skip: \"why\", found %s",
               tqh__ydescribe(v));
    return;
  }
  if (!tqh__ystr(L->rep, v, "skip", &r)) return;
  if (!*r) {
    tqh__error(L->rep, v->line, v->col, "skip: the reason is empty; say why");
    return;
  }
  e->skip = r;
}
