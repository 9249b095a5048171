/* Reading the debug-info directory (DESIGN 5.3; layout in the README and in
 * compiler/src/debug_info.c): manifest.json, the lowered program of each dispatch in MLIR generic
 * form (read with the compiler's own parser), and the copy of the source, whose operators give
 * the `original_operators` of actions that run no program. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "torq/base/alloc.h"
#include "torq/base/file.h"
#include "torq/base/sha256.h"
#include "torq/compiler/ir.h"
#include "torq/compiler/mlir.h"
#include "torq/harness/annotate.h"
#include "torq/harness/json.h"
#include "torq/runtime/profile.h"

/* Ids index tables; this bounds them so that a hostile file cannot ask for gigabytes. */
#define TQH_MAX_ID (1u << 24)
#define TQH_MANIFEST_MAX_BYTES ((size_t)16 << 20)

typedef struct loader_s {
  tqh_debug_info_t *info;
  tqh_diags_t *diags;
  const char *path; /* of the program file being read */
} loader_t;

static tq_status_t oom(void) {
  return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory while reading debug info");
}

static char *dup_sv(tqh_debug_info_t *info, const char *s, size_t n) {
  return tq_arena_strndup(&info->arena, s ? s : "", s ? n : 0);
}

static char *join_path(tqh_debug_info_t *info, const char *dir, const char *name) {
  size_t a = strlen(dir), b = strlen(name);
  char *s = tq_arena_alloc(&info->arena, a + b + 2);
  if (!s) return NULL;
  memcpy(s, dir, a);
  s[a] = '/';
  memcpy(s + a + 1, name, b + 1);
  return s;
}

static tq_status_t located(const loader_t *L, const tqc_op_t *op, const char *what) {
  return TQ_STATUS(TQ_INVALID_INPUT, "%s:%u:%u: error: %s", L->path, (unsigned)op->pos.line,
                   (unsigned)op->pos.col, what);
}

static int attr_int(const tqc_op_t *op, const char *name, int64_t *out) {
  const tqc_attr_t *a = tqc_op_attr(op, name);
  if (!a || a->kind != TQC_ATTR_INTEGER) return 0;
  *out = a->integer.value;
  return 1;
}

static tq_sv_t attr_str(const tqc_op_t *op, const char *name) {
  const tqc_attr_t *a = tqc_op_attr(op, name);
  if (!a || a->kind != TQC_ATTR_STRING) return tq_sv(NULL, 0);
  return a->string;
}

/* A string-array attribute joined with spaces (into the arena); "" when absent. */
static const char *attr_joined(tqh_debug_info_t *info, const tqc_op_t *op, const char *name) {
  const tqc_attr_t *a = tqc_op_attr(op, name);
  if (!a || a->kind != TQC_ATTR_ARRAY) return "";
  size_t n = 0;
  for (size_t i = 0; i < a->array.count; i++)
    if (a->array.items[i]->kind == TQC_ATTR_STRING) n += a->array.items[i]->string.len + 1;
  char *s = tq_arena_alloc(&info->arena, n + 1);
  if (!s) return NULL;
  size_t k = 0;
  for (size_t i = 0; i < a->array.count; i++) {
    const tqc_attr_t *it = a->array.items[i];
    if (it->kind != TQC_ATTR_STRING) continue;
    if (k) s[k++] = ' ';
    memcpy(s + k, it->string.data, it->string.len);
    k += it->string.len;
  }
  s[k] = 0;
  return s;
}

/* loc("file":L:C) of an op, or "". */
static const char *loc_text(tqh_debug_info_t *info, const tqc_op_t *op) {
  const tqc_loc_t *f = tqc_loc_first_file(op->loc);
  if (!f) return "";
  size_t n = f->file.file.len + 48;
  char *s = tq_arena_alloc(&info->arena, n);
  if (!s) return NULL;
  snprintf(s, n, "loc(\"%.*s\":%u:%u)", (int)f->file.file.len, f->file.file.data,
           (unsigned)f->file.line, (unsigned)f->file.col);
  return s;
}

static int unit_parse(tq_sv_t s, tqs_unit_t *out) {
  for (int u = 0; u < TQS_UNIT_COUNT; u++)
    if (tq_sv_eq_cstr(s, tqs_unit_name((tqs_unit_t)u))) {
      *out = (tqs_unit_t)u;
      return 1;
    }
  return 0;
}

static int kind_parse(tq_sv_t s, uint8_t *out) {
  for (uint8_t k = TQR_EVENT_ALLOC; k <= TQR_EVENT_HOST_WAIT; k++)
    if (tq_sv_eq_cstr(s, tqh_event_kind_name(k))) {
      *out = k;
      return 1;
    }
  return 0;
}

static const tqc_op_t *region_first(const tqc_op_t *op) {
  if (op->num_regions < 1 || op->regions[0].num_blocks < 1) return NULL;
  return op->regions[0].blocks[0]->first;
}

/* Grows a table indexed by id so that `id` fits: returns the table (moved when it grew), or NULL
 * when `id` is out of range or memory ran out. */
static void *table_fit(tqh_debug_info_t *info, void *table, size_t *count, size_t elem,
                       int64_t id) {
  if (id < 0 || id >= (int64_t)TQH_MAX_ID) return NULL;
  if ((size_t)id < *count) return table;
  size_t n = *count ? *count : 16;
  while (n <= (size_t)id) n *= 2;
  void *t = tq_arena_calloc(&info->arena, n, elem);
  if (!t) return NULL;
  if (*count) memcpy(t, table, *count * elem);
  *count = n;
  return t;
}

static tq_status_t read_program(loader_t *L, tqh_dispatch_t *d, const tqc_op_t *op) {
  tqh_debug_info_t *info = L->info;
  int64_t job;
  if (!attr_int(op, "torq-job-id", &job)) return located(L, op, "torq.nss_program without torq-job-id");
  tqh_nss_program_t *grown = table_fit(info, d->programs, &d->num_programs, sizeof(*grown), job);
  if (!grown) return located(L, op, "torq-job-id out of range (0 to 16777215), or out of memory");
  d->programs = grown;
  tqh_nss_program_t *p = &d->programs[job];
  if (p->present) return located(L, op, "two torq.nss_program with the same torq-job-id");
  p->present = 1;
  p->job_id = (uint32_t)job;
  int64_t cycles = 0;
  attr_int(op, "cycles", &cycles);
  p->cycles = cycles > 0 ? (uint64_t)cycles : 0;
  p->original_operators = attr_joined(info, op, "original_operators");
  if (!p->original_operators) return oom();
  const tqc_attr_t *units = tqc_op_attr(op, "units");
  if (units && units->kind == TQC_ATTR_ARRAY) {
    for (size_t i = 0; i < units->array.count; i++) {
      tqs_unit_t u;
      if (units->array.items[i]->kind == TQC_ATTR_STRING && unit_parse(units->array.items[i]->string, &u))
        p->units |= TQH_UNIT_BIT(u);
    }
  }
  /* Tasks and their unit work. */
  size_t ntasks = 0, nwork = 0;
  for (const tqc_op_t *t = region_first(op); t; t = t->next) {
    if (!tqc_op_is(t, "torq.task")) continue;
    ntasks++;
    for (const tqc_op_t *u = region_first(t); u; u = u->next) nwork += tqc_op_is(u, "torq.unit");
  }
  tqh_task_t *tasks = tq_arena_calloc(&info->arena, ntasks ? ntasks : 1, sizeof(*tasks));
  tqh_unit_work_t *work = tq_arena_calloc(&info->arena, nwork ? nwork : 1, sizeof(*work));
  /* Distinct slice kernels, in order: at most the length of all kernel names. */
  size_t klen = 1;
  for (const tqc_op_t *t = region_first(op); t; t = t->next)
    for (const tqc_op_t *u = region_first(t); u && tqc_op_is(t, "torq.task"); u = u->next)
      klen += attr_str(u, "kernel").len + 1;
  char *kernels = tq_arena_alloc(&info->arena, klen);
  if (!tasks || !work || !kernels) return oom();
  size_t kn = 0, ti = 0, wi = 0;
  kernels[0] = 0;
  for (const tqc_op_t *t = region_first(op); t; t = t->next) {
    if (!tqc_op_is(t, "torq.task")) continue;
    int64_t s = 0, e = 0;
    attr_int(t, "start", &s);
    attr_int(t, "end", &e);
    tasks[ti].start = s > 0 ? (uint64_t)s : 0;
    tasks[ti].end = e > s ? (uint64_t)e : tasks[ti].start;
    tasks[ti].work = &work[wi];
    for (const tqc_op_t *u = region_first(t); u; u = u->next) {
      if (!tqc_op_is(u, "torq.unit")) continue;
      tqh_unit_work_t *w = &work[wi];
      if (!unit_parse(attr_str(u, "unit"), &w->unit))
        return located(L, u, "torq.unit with an unknown unit (expected DMA_IN, DMA_OUT, SLICE0, "
                             "SLICE1, CDMA or CSS)");
      tq_sv_t id = attr_str(u, "id"), kernel = attr_str(u, "kernel");
      w->id = dup_sv(info, id.data, id.len);
      w->kernel = dup_sv(info, kernel.data, kernel.len);
      if (!w->id || !w->kernel) return oom();
      attr_int(u, "start", &s);
      attr_int(u, "end", &e);
      w->start = s > 0 ? (uint64_t)s : 0;
      w->end = e > s ? (uint64_t)e : w->start;
      p->units |= TQH_UNIT_BIT(w->unit);
      if ((w->unit == TQS_UNIT_SLICE0 || w->unit == TQS_UNIT_SLICE1) && kernel.len) {
        /* Append when not yet listed (whole-word match). */
        int seen = 0;
        for (const char *k = kernels; *k && !seen;) {
          const char *sp = strchr(k, ' ');
          size_t n = sp ? (size_t)(sp - k) : strlen(k);
          seen = n == kernel.len && memcmp(k, kernel.data, n) == 0;
          k += n + (sp != NULL);
        }
        if (!seen) {
          if (kn) kernels[kn++] = ' ';
          memcpy(kernels + kn, kernel.data, kernel.len);
          kn += kernel.len;
          kernels[kn] = 0;
        }
      }
      wi++;
      tasks[ti].num_work++;
    }
    ti++;
  }
  if (kn == 0) {
    tq_sv_t k = attr_str(op, "kernel");
    p->kernels = dup_sv(info, k.data, k.len);
    if (!p->kernels) return oom();
  } else {
    p->kernels = kernels;
  }
  p->tasks = tasks;
  p->num_tasks = ntasks;
  return NULL;
}

static tq_status_t read_dispatch(loader_t *L, tqh_dispatch_t *d, const tqc_op_t *op) {
  tqh_debug_info_t *info = L->info;
  for (const tqc_op_t *o = region_first(op); o; o = o->next) {
    if (tqc_op_is(o, "torq.action")) {
      int64_t id, v;
      if (!attr_int(o, "torq-action-id", &id))
        return located(L, o, "torq.action without torq-action-id");
      tqh_action_t *grown = table_fit(info, d->actions, &d->num_actions, sizeof(*grown), id);
      if (!grown)
        return located(L, o, "torq-action-id out of range (0 to 16777215), or out of memory");
      d->actions = grown;
      tqh_action_t *a = &d->actions[id];
      if (a->present) return located(L, o, "two torq.action with the same torq-action-id");
      if (!kind_parse(attr_str(o, "kind"), &a->kind))
        return located(L, o, "torq.action with an unknown kind");
      a->present = 1;
      a->job_id = attr_int(o, "torq-job-id", &v) ? v : -1;
      a->host_program_id = attr_int(o, "torq-host-program-id", &v) ? v : -1;
      a->location = loc_text(info, o);
      a->original_operators = "";
      if (!a->location) return oom();
    } else if (tqc_op_is(o, "torq.nss_program")) {
      TQ_TRY(read_program(L, d, o));
    } else if (tqc_op_is(o, "torq.host_program")) {
      int64_t id;
      if (!attr_int(o, "torq-host-program-id", &id) && !attr_int(o, "id", &id))
        return located(L, o, "torq.host_program without torq-host-program-id");
      tqh_host_program_t *grown =
          table_fit(info, d->host_programs, &d->num_host_programs, sizeof(*grown), id);
      if (!grown)
        return located(L, o, "torq-host-program-id out of range (0 to 16777215), or out of memory");
      d->host_programs = grown;
      tqh_host_program_t *h = &d->host_programs[id];
      tq_sv_t opname = attr_str(o, "op");
      h->present = 1;
      h->op = dup_sv(info, opname.data, opname.len);
      h->original_operators = attr_joined(info, o, "original_operators");
      if (!h->op || !h->original_operators) return oom();
    }
  }
  /* Trim the tables to the ids that exist. */
  while (d->num_actions && !d->actions[d->num_actions - 1].present) d->num_actions--;
  while (d->num_programs && !d->programs[d->num_programs - 1].present) d->num_programs--;
  while (d->num_host_programs && !d->host_programs[d->num_host_programs - 1].present)
    d->num_host_programs--;
  return NULL;
}

/* ---- Source operators ---------------------------------------------------------------------- */

typedef struct src_op_s {
  uint32_t line, col;
  const char *name; /* "tosa.add@L18" */
  int tosa;
} src_op_t;

typedef struct src_ops_s {
  src_op_t *items;
  size_t count, cap;
} src_ops_t;

static tq_status_t collect_ops(tqh_debug_info_t *info, const tqc_op_t *op, src_ops_t *out, int depth) {
  for (; op; op = op->next) {
    const tqc_loc_t *f = tqc_loc_first_file(op->loc);
    uint32_t line = f ? f->file.line : op->pos.line, col = f ? f->file.col : op->pos.col;
    if (out->count == out->cap) {
      size_t cap = out->cap ? out->cap * 2 : 64;
      src_op_t *it = tq_realloc(out->items, cap * sizeof(*it));
      if (!it) return oom();
      out->items = it;
      out->cap = cap;
    }
    size_t n = op->name.len + 24;
    char *name = tq_arena_alloc(&info->arena, n);
    if (!name) return oom();
    snprintf(name, n, "%.*s@L%u", (int)op->name.len, op->name.data, (unsigned)line);
    out->items[out->count++] = (src_op_t){line, col, name, tq_sv_starts_with(op->name, "tosa.")};
    if (depth < 64)
      for (size_t r = 0; r < op->num_regions; r++)
        for (size_t b = 0; b < op->regions[r].num_blocks; b++)
          TQ_TRY(collect_ops(info, op->regions[r].blocks[b]->first, out, depth + 1));
  }
  return NULL;
}

static int src_cmp(const void *pa, const void *pb) {
  const src_op_t *a = pa, *b = pb;
  if (a->line != b->line) return a->line < b->line ? -1 : 1;
  return (a->col > b->col) - (a->col < b->col);
}

/* The line and column of loc("...":L:C). */
static int loc_line_col(const char *loc, uint32_t *line, uint32_t *col) {
  const char *q = strrchr(loc, ')');
  if (!q) return 0;
  const char *c2 = q;
  while (c2 > loc && c2[-1] != ':') c2--;
  if (c2 <= loc + 1) return 0;
  const char *c1 = c2 - 1;
  while (c1 > loc && c1[-1] != ':') c1--;
  if (c1 <= loc) return 0;
  *line = (uint32_t)strtoul(c1, NULL, 10);
  *col = (uint32_t)strtoul(c2, NULL, 10);
  return *line > 0;
}

static const char *resolve(const src_ops_t *ops, const char *location) {
  uint32_t line, col;
  if (!location || !loc_line_col(location, &line, &col)) return "";
  size_t lo = 0, hi = ops->count;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (ops->items[mid].line < line) lo = mid + 1;
    else hi = mid;
  }
  const char *any = "";
  for (size_t i = lo; i < ops->count && ops->items[i].line == line; i++) {
    if (ops->items[i].col == col) return ops->items[i].name;
    if (ops->items[i].tosa && !*any) any = ops->items[i].name;
  }
  return any;
}

/* Fills original_operators of every action: its program's, else the source operator at its
 * location. */
static tq_status_t resolve_operators(tqh_debug_info_t *info, tqh_diags_t *diags) {
  src_ops_t ops = {0};
  tqc_module_t *src = NULL;
  tq_buf_t text;
  tq_status_t st = tq_file_read(info->source, 256u << 20, &text);
  if (!st) st = tqc_module_parse(info->source, text.data ? text.data : "", text.len, NULL, &src);
  tq_buf_deinit(&text);
  if (st) {
    char *msg = tq_status_format(st, 0);
    tq_status_free(st);
    if (diags)
      tqh_diags_add(diags, TQH_WARNING, info->source, 0,
                    "cannot read the source copy, original_operators of actions that run no "
                    "program stay empty: %s", msg ? msg : "out of memory");
    tq_free(msg);
  } else {
    st = collect_ops(info, tqc_module_op(src), &ops, 0);
    if (!st && ops.count) qsort(ops.items, ops.count, sizeof(*ops.items), src_cmp);
  }
  tqc_module_destroy(src);
  for (size_t di = 0; !st && di < info->num_dispatches; di++) {
    tqh_dispatch_t *d = &info->dispatches[di];
    for (size_t i = 0; i < d->num_actions; i++) {
      tqh_action_t *a = &d->actions[i];
      if (!a->present) continue;
      if (a->job_id >= 0 && (size_t)a->job_id < d->num_programs && d->programs[a->job_id].present)
        a->original_operators = d->programs[a->job_id].original_operators;
      else if (a->host_program_id >= 0 && (size_t)a->host_program_id < d->num_host_programs &&
               d->host_programs[a->host_program_id].present)
        a->original_operators = d->host_programs[a->host_program_id].original_operators;
      else
        a->original_operators = resolve(&ops, a->location);
    }
  }
  tq_free(ops.items);
  return st;
}

/* ---- Manifest ------------------------------------------------------------------------------- */

static const char *json_str(const tqh_json_t *obj, const char *key) {
  const tqh_json_t *v = tqh_json_get(obj, key);
  return v && v->kind == TQH_JSON_STRING ? v->string : NULL;
}

static tq_status_t bad_manifest(const char *path, const char *what) {
  return TQ_STATUS(TQ_INVALID_INPUT, "%s: %s (not a manifest written by torq-compile "
                   "--torq-debug-info?)", path, what);
}

static tq_status_t load(tqh_debug_info_t *info, const char *dir, tqh_diags_t *diags) {
  info->dir = dup_sv(info, dir, strlen(dir));
  char *mpath = join_path(info, dir, "manifest.json");
  if (!info->dir || !mpath) return oom();
  tq_buf_t text;
  tq_status_t st = tq_file_read(mpath, TQH_MANIFEST_MAX_BYTES, &text);
  if (st) {
    tq_buf_deinit(&text);
    if (tq_status_code(st) == TQ_NOT_FOUND) {
      tq_status_free(st);
      return TQ_STATUS(TQ_NOT_FOUND, "debug-info directory %s: no manifest.json there (give the "
                       "directory written by torq-compile --torq-debug-info=DIR)", dir);
    }
    return tq_status_annotate(st, "while reading the debug-info directory %s", dir);
  }
  tqh_json_t *m = NULL;
  st = tqh_json_parse(&info->arena, mpath, text.data ? text.data : "", text.len, &m);
  tq_buf_deinit(&text);
  TQ_TRY(st);
  if (m->kind != TQH_JSON_OBJECT) return bad_manifest(mpath, "not a JSON object");
  const tqh_json_t *format = tqh_json_get(m, "format");
  if (!format || format->kind != TQH_JSON_NUMBER || format->number != 1)
    return bad_manifest(mpath, "\"format\" is not 1");
  info->model = json_str(m, "model");
  const char *source = json_str(m, "source");
  info->source_sha256 = json_str(m, "source_sha256");
  if (!info->model) info->model = "";
  if (!source || !info->source_sha256) return bad_manifest(mpath, "no \"source\" or \"source_sha256\"");
  info->source = join_path(info, dir, source);
  if (!info->source) return oom();
  const tqh_json_t *hw = tqh_json_get(m, "hardware");
  info->hw_spec = json_str(hw, "spec");
  if (!info->hw_spec) info->hw_spec = "";
  const tqh_json_t *clock = tqh_json_get(hw, "clock_hz");
  info->clock_hz =
      clock && clock->kind == TQH_JSON_NUMBER && clock->number >= 1 && clock->number < 1e12
          ? (uint64_t)clock->number
          : 800000000u;
  const tqh_json_t *ds = tqh_json_get(m, "dispatches");
  if (!ds || ds->kind != TQH_JSON_ARRAY || ds->len == 0)
    return bad_manifest(mpath, "no \"dispatches\"");
  info->dispatches = tq_arena_calloc(&info->arena, ds->len, sizeof(*info->dispatches));
  if (!info->dispatches) return oom();
  for (size_t i = 0; i < ds->len; i++) {
    tqh_dispatch_t *d = &info->dispatches[i];
    d->name = json_str(ds->items[i], "name");
    const char *prog = json_str(ds->items[i], "program");
    if (!d->name || !prog) return bad_manifest(mpath, "a dispatch without \"name\" or \"program\"");
    d->program = join_path(info, dir, prog);
    if (!d->program) return oom();
    info->num_dispatches++;
    tqc_module_t *pm = NULL;
    TQ_TRY(tqc_module_parse_file(d->program, NULL, &pm));
    loader_t L = {info, diags, d->program};
    st = NULL;
    const tqc_op_t *top = tqc_module_op(pm);
    int found = 0;
    for (const tqc_op_t *o = top ? region_first(top) : NULL; o && !st; o = o->next) {
      if (!tqc_op_is(o, "torq.dispatch")) continue;
      tq_sv_t name = attr_str(o, "name");
      if (!tq_sv_eq_cstr(name, d->name)) continue;
      found = 1;
      st = read_dispatch(&L, d, o);
    }
    tqc_module_destroy(pm);
    TQ_TRY(st);
    if (!found)
      return TQ_STATUS(TQ_INVALID_INPUT, "%s: no torq.dispatch named '%s' (the manifest lists it)",
                       d->program, d->name);
  }
  /* The source copy must be the one the manifest describes. */
  uint8_t digest[TQ_SHA256_SIZE];
  char hex[TQ_SHA256_HEX_SIZE];
  st = tq_sha256_file(info->source, digest);
  if (st) {
    char *msg = tq_status_format(st, 0);
    tq_status_free(st);
    if (diags)
      tqh_diags_add(diags, TQH_ERROR, info->source, 0, "the source copy cannot be read: %s",
                    msg ? msg : "out of memory");
    tq_free(msg);
  } else {
    tq_sha256_hex(digest, hex);
    if (strcmp(hex, info->source_sha256) != 0 && diags)
      tqh_diags_add(diags, TQH_ERROR, info->source, 0,
                    "sha256 %s differs from the manifest's %s: the debug-info directory was "
                    "changed after torq-compile wrote it; compile again",
                    hex, info->source_sha256);
  }
  return resolve_operators(info, diags);
}

tq_status_t tqh_debug_info_load(const char *dir, tqh_diags_t *diags, tqh_debug_info_t **out) {
  *out = NULL;
  tqh_debug_info_t *info = tq_calloc(1, sizeof(*info));
  if (!info) return oom();
  tq_arena_init(&info->arena, 0, 0);
  info->refs = 1;
  tq_status_t st = load(info, dir, diags);
  if (st) {
    tqh_debug_info_destroy(info);
    return st;
  }
  *out = info;
  return NULL;
}

tqh_debug_info_t *tqh_debug_info_ref(tqh_debug_info_t *info) {
  if (info) info->refs++;
  return info;
}

void tqh_debug_info_destroy(tqh_debug_info_t *info) {
  if (!info || --info->refs > 0) return;
  tq_arena_deinit(&info->arena);
  tq_free(info);
}

const tqh_dispatch_t *tqh_debug_info_dispatch(const tqh_debug_info_t *info, const char *name) {
  for (size_t i = 0; info && i < info->num_dispatches; i++)
    if (strcmp(info->dispatches[i].name, name) == 0) return &info->dispatches[i];
  return NULL;
}
