/* The walk over the entry function: values to buffers, fusion groups, actions, and the choice
 * between an NSS program and a host program for each operator. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lower_internal.h"
#include "print_internal.h"
#include "parser_internal.h"
#include "torq/base/alloc.h"
#include "torq/base/checked.h"

int tqc__ptrvec_push(tq_arena_t *arena, tqc_ptrvec_t *vec, void *item) {
  if (vec->count == vec->cap) {
    size_t cap = vec->cap ? vec->cap * 2 : 8;
    void **items = tq_arena_calloc(arena, cap, sizeof(*items));
    if (!items) return 0;
    if (vec->count) memcpy(items, vec->items, vec->count * sizeof(*items));
    vec->items = items;
    vec->cap = cap;
  }
  vec->items[vec->count++] = item;
  return 1;
}

/* ---- Small helpers -------------------------------------------------------------------------- */

const tqc_type_t *tqc__elem(const tqc_type_t *tensor) {
  if (!tensor || tensor->kind != TQC_TYPE_TENSOR) return NULL;
  return tensor->tensor.element;
}

int tqc__is_int_tensor(const tqc_type_t *type, unsigned widths) {
  const tqc_type_t *e = tqc__elem(type);
  size_t n;
  if (!e || e->kind != TQC_TYPE_INTEGER || e->integer.signedness == TQC_UNSIGNED) return 0;
  if (!type->tensor.ranked || !tqc_type_element_count(type, &n)) return 0;
  switch (e->integer.width) {
    case 8:
      return (widths & TQC_W8) != 0;
    case 16:
      return (widths & TQC_W16) != 0;
    case 32:
      return (widths & TQC_W32) != 0;
    case 48:
      return (widths & TQC_W48) != 0;
    default:
      return 0;
  }
}

Torq__ElementType tqc__element_type(const tqc_type_t *t) {
  /* The module type of the same MLIR name (element.h); signed integers count as signless. */
  char name[16];
  if (!t) return TORQ__ELEMENT_TYPE__ELEMENT_TYPE_UNSPECIFIED;
  if (t->kind == TQC_TYPE_INDEX) {
    snprintf(name, sizeof(name), "index");
  } else if (t->kind == TQC_TYPE_FLOAT) {
    snprintf(name, sizeof(name), "%s", tqc__float_name(t->flt.fkind));
  } else if (t->kind == TQC_TYPE_INTEGER) {
    snprintf(name, sizeof(name), "%si%u", t->integer.signedness == TQC_UNSIGNED ? "u" : "",
             (unsigned)t->integer.width);
  } else {
    return TORQ__ELEMENT_TYPE__ELEMENT_TYPE_UNSPECIFIED;
  }
  Torq__ElementType type;
  return tqf_element_parse(tq_sv_cstr(name), &type) ? type
                                                    : TORQ__ELEMENT_TYPE__ELEMENT_TYPE_UNSPECIFIED;
}

void tqc__int_range(const tqc_type_t *t, int64_t *out_min, int64_t *out_max) {
  uint32_t w = t && t->kind == TQC_TYPE_INTEGER ? t->integer.width : 64;
  if (w >= 64) {
    *out_min = INT64_MIN;
    *out_max = INT64_MAX;
  } else if (t->integer.signedness == TQC_UNSIGNED) {
    *out_min = 0;
    *out_max = (int64_t)((UINT64_C(1) << w) - 1);
  } else {
    *out_min = -(INT64_C(1) << (w - 1));
    *out_max = (INT64_C(1) << (w - 1)) - 1;
  }
}

int64_t *tqc__i64s(tqc_lower_t *L, size_t n, const int64_t *src) {
  int64_t *p = tq_arena_calloc(L->arena, n ? n : 1, sizeof(*p));
  if (p && src && n) memcpy(p, src, n * sizeof(*p));
  return p;
}

Torq__KernelParams *tqc__params_new(tqc_lower_t *L) {
  Torq__KernelParams *p = tq_arena_alloc(L->arena, sizeof(*p));
  if (p) {
    Torq__KernelParams init = TORQ__KERNEL_PARAMS__INIT;
    *p = init;
  }
  return p;
}

Torq__Region *tqc__lram_region(tqc_lower_t *L, uint64_t addr, uint64_t size) {
  Torq__Region *r = tq_arena_alloc(L->arena, sizeof(*r));
  if (r) {
    Torq__Region init = TORQ__REGION__INIT;
    *r = init;
    r->memory = TORQ__MEMORY__LRAM;
    r->offset = addr;
    r->size = size;
  }
  return r;
}

const char *tqc__op_location(tqc_lower_t *L, const tqc_op_t *op) {
  const tqc_loc_t *f = tqc_loc_first_file(op->loc);
  const char *file = f ? f->file.file.data : L->src->path;
  size_t flen = f ? f->file.file.len : strlen(L->src->path ? L->src->path : "");
  uint32_t line = f ? f->file.line : op->pos.line, col = f ? f->file.col : op->pos.col;
  tq_buf_t b;
  tq_buf_init(&b, 0);
  tq_status_t st = tq_buf_append_cstr(&b, "loc(");
  if (!st) st = tqc__print_string(tq_sv(file ? file : "", flen), &b);
  if (!st) st = tq_buf_printf(&b, ":%" PRIu32 ":%" PRIu32 ")", line, col);
  char *s = st ? NULL : tq_arena_strndup(L->arena, b.data, b.len);
  tq_status_free(st);
  tq_buf_deinit(&b);
  return s ? s : "";
}

tq_status_t tqc__op_error(tqc_lower_t *L, const tqc_op_t *op, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  return tqc__diag(L->src->path ? L->src->path : "<input>", L->src->text, L->src->text_len,
                   op->pos.line, op->pos.col, "%s", msg);
}

tq_status_t tqc__lram_too_small(tqc_lower_t *L, const tqc_op_t *op, uint64_t need) {
  return tqc__op_error(L, op,
                       "LRAM of %" PRIu64
                       " bytes is too small for any tile of %.*s (needs at least %" PRIu64 ")",
                       L->hw->lram_bytes, (int)op->name.len, op->name.data, need);
}

int tqc__const_int(const tqc_value_t *value, int64_t *out) {
  const tqc_attr_t *d = tqc_value_const_dense(value);
  const tqc_type_t *e = d ? tqc__elem(d->dense.type) : NULL;
  if (!d || d->dense.count < 1 || !e || e->kind != TQC_TYPE_INTEGER) return 1;
  *out = tqc_dense_get_int(d, 0);
  return 0;
}

char **tqc__op_names(tqc_lower_t *L, const tqc_op_t *const *ops, size_t n) {
  char **names = tq_arena_calloc(L->arena, n + 1, sizeof(*names));
  if (!names) return NULL;
  for (size_t i = 0; i < n; i++) {
    const tqc_loc_t *f = tqc_loc_first_file(ops[i]->loc);
    uint32_t line = f ? f->file.line : ops[i]->pos.line;
    char *s = tq_arena_alloc(L->arena, ops[i]->name.len + 24);
    if (!s) return NULL;
    snprintf(s, ops[i]->name.len + 24, "%.*s@L%" PRIu32, (int)ops[i]->name.len, ops[i]->name.data,
             line);
    names[i] = s;
  }
  return names;
}

/* ---- Buffers -------------------------------------------------------------------------------- */

static tq_status_t touch(tqc_lower_t *L, uint32_t id) {
  for (size_t i = 0; i < L->n_touched; i++)
    if (L->touched[i] == id) return NULL;
  if (L->n_touched == L->cap_touched) {
    size_t cap = L->cap_touched ? L->cap_touched * 2 : 16;
    uint32_t *t = tq_realloc(L->touched, cap * sizeof(*t));
    if (!t) return TQC_OOM("while lowering");
    L->touched = t;
    L->cap_touched = cap;
  }
  L->touched[L->n_touched++] = id;
  return NULL;
}

static Torq__TensorType *tensor_type(tqc_lower_t *L, Torq__ElementType et, const int64_t *dims,
                                     size_t rank) {
  Torq__TensorType *t = tq_arena_alloc(L->arena, sizeof(*t));
  if (!t) return NULL;
  Torq__TensorType init = TORQ__TENSOR_TYPE__INIT;
  *t = init;
  t->element_type = et;
  t->n_dims = rank;
  t->dims = tqc__i64s(L, rank, dims);
  return t->dims ? t : NULL;
}

/* An error about `value`, where it is written: at the op that makes it, or, for an argument, at
 * its type. */
static tq_status_t value_error(tqc_lower_t *L, const tqc_value_t *value, const char *fmt, ...)
    TQ_PRINTF(3, 4);
static tq_status_t value_error(tqc_lower_t *L, const tqc_value_t *value, const char *fmt, ...) {
  char msg[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  if (value->def) return tqc__op_error(L, value->def, "%s", msg);
  tqc_srcpos_t at = value->type_pos.line ? value->type_pos : value->pos;
  if (!at.line) at = L->src->op->pos;
  return tqc__diag(L->src->path ? L->src->path : "<input>", L->src->text, L->src->text_len, at.line,
                   at.col, "%s", msg);
}

/* A TensorType for `value`'s buffer, of `type`; an error at the value when unsupported. */
static tq_status_t tensor_type_of(tqc_lower_t *L, const tqc_value_t *value, const tqc_type_t *type,
                                  Torq__TensorType **out) {
  size_t n;
  const tqc_type_t *e = tqc__elem(type);
  if (!e || !type->tensor.ranked || !tqc_type_element_count(type, &n))
    return value_error(L, value, "unsupported type for a buffer (need a static tensor)");
  Torq__ElementType et = tqc__element_type(e);
  if (et == TORQ__ELEMENT_TYPE__ELEMENT_TYPE_UNSPECIFIED)
    return value_error(L, value, "element type not supported by the Torq module");
  *out = tensor_type(L, et, type->tensor.dims, type->tensor.rank);
  return *out ? NULL : TQC_OOM("while lowering");
}

/* Appends a buffer and its bookkeeping; NULL when memory runs out. */
static Torq__Buffer *add_buffer(tqc_lower_t *L, uint64_t size, Torq__TensorType *type) {
  Torq__Buffer *b = tq_arena_alloc(L->arena, sizeof(*b));
  if (!b) return NULL;
  Torq__Buffer init = TORQ__BUFFER__INIT;
  *b = init;
  b->id = (uint32_t)L->buffers.count;
  b->size = size;
  b->memory = TORQ__MEMORY__XRAM;
  b->type = type;
  if (!tqc__ptrvec_push(L->arena, &L->buffers, b)) return NULL;
  if (L->buffers.count > L->bufs_cap) {
    size_t cap = L->bufs_cap ? L->bufs_cap * 2 : 32;
    tqc_lbuf_t *nb = tq_realloc(L->bufs, cap * sizeof(*nb));
    if (!nb) return NULL;
    L->bufs = nb;
    L->bufs_cap = cap;
  }
  memset(&L->bufs[b->id], 0, sizeof(L->bufs[b->id]));
  return b;
}

static tq_status_t add_constant(tqc_lower_t *L, Torq__TensorType *type, const void *data,
                                size_t size, int expand_from, size_t elem, uint32_t *out_cid) {
  Torq__Constant *c = tq_arena_alloc(L->arena, sizeof(*c));
  uint8_t *bytes = tq_arena_alloc(L->arena, size ? size : 1);
  if (!c || !bytes) return TQC_OOM("while lowering");
  Torq__Constant init = TORQ__CONSTANT__INIT;
  *c = init;
  if (expand_from && elem) {
    for (size_t off = 0; off + elem <= size; off += elem) memcpy(bytes + off, data, elem);
  } else if (size) {
    memcpy(bytes, data, size);
  }
  c->id = (uint32_t)L->constants.count;
  c->type = type;
  c->data.data = bytes;
  c->data.len = size;
  if (!tqc__ptrvec_push(L->arena, &L->constants, c)) return TQC_OOM("while lowering");
  *out_cid = c->id;
  return NULL;
}

tq_status_t tqc__new_constant(tqc_lower_t *L, Torq__ElementType et, const int64_t *dims,
                              size_t rank, const void *data, size_t size, uint32_t *out_id) {
  Torq__TensorType *t = tensor_type(L, et, dims, rank);
  if (!t) return TQC_OOM("while lowering");
  uint32_t cid = 0, bid = 0;
  Torq__Buffer *b = NULL;
  TQ_TRY(add_constant(L, t, data, size, 0, 0, &cid));
  if (!(b = add_buffer(L, size, t))) return TQC_OOM("while lowering");
  bid = b->id;
  b->contents_case = TORQ__BUFFER__CONTENTS_CONSTANT_ID;
  b->constant_id = cid;
  L->bufs[bid].last_use = L->op_index;
  *out_id = bid;
  return touch(L, bid);
}

tq_status_t tqc__value_buffer(tqc_lower_t *L, const tqc_value_t *value, uint32_t *out_id) {
  tqc_lval_t *lv = &L->vals[value->id];
  if (lv->buffer >= 0) {
    uint32_t id = (uint32_t)lv->buffer;
    Torq__Buffer *b = L->buffers.items[id];
    if (b->contents_case == TORQ__BUFFER__CONTENTS_VIEW) TQ_TRY(touch(L, b->view->buffer_id));
    *out_id = id;
    return touch(L, id);
  }
  tqc_lval_t *rv = &L->vals[lv->root->id];
  uint32_t id = 0;
  Torq__Buffer *b = NULL;
  if (lv->root != value) {
    uint32_t root_id = 0;
    TQ_TRY(tqc__value_buffer(L, lv->root, &root_id));
    Torq__TensorType *t = NULL;
    TQ_TRY(tensor_type_of(L, value, value->type, &t));
    Torq__View *v = tq_arena_alloc(L->arena, sizeof(*v));
    if (!v) return TQC_OOM("while lowering");
    Torq__View vinit = TORQ__VIEW__INIT;
    *v = vinit;
    v->buffer_id = root_id;
    v->offset = 0;
    size_t size = 0;
    if (!tqc_type_byte_size(value->type, &size)) size = 0;
    if (!(b = add_buffer(L, size, t))) return TQC_OOM("while lowering");
    id = b->id;
    b->contents_case = TORQ__BUFFER__CONTENTS_VIEW;
    b->view = v;
    L->bufs[id].is_view = 1;
  } else {
    const tqc_attr_t *dense = tqc_value_const_dense(value);
    const tqc_type_t *type = dense ? dense->dense.type : value->type;
    Torq__TensorType *t = NULL;
    TQ_TRY(tensor_type_of(L, value, type, &t));
    size_t size = 0;
    if (!tqc_type_byte_size(type, &size))
      return value_error(L, value, "tensor too large for a buffer");
    if (!(b = add_buffer(L, size, t))) return TQC_OOM("while lowering");
    id = b->id;
    if (dense) {
      uint32_t cid = 0;
      TQ_TRY(add_constant(L, t, dense->dense.data, size, dense->dense.splat, dense->dense.elem_size,
                          &cid));
      b->contents_case = TORQ__BUFFER__CONTENTS_CONSTANT_ID;
      b->constant_id = cid;
    }
    L->bufs[id].is_input = rv->is_input;
  }
  L->bufs[id].keep = rv->keep;
  L->bufs[id].last_use = rv->last_use;
  lv->buffer = id;
  *out_id = id;
  return touch(L, id);
}

/* ---- Actions -------------------------------------------------------------------------------- */

tq_status_t tqc__emit_action(tqc_lower_t *L, Torq__ActionKind kind, uint32_t arg,
                             const char *location) {
  Torq__Action *a = tq_arena_alloc(L->arena, sizeof(*a));
  if (!a) return TQC_OOM("while lowering");
  Torq__Action init = TORQ__ACTION__INIT;
  *a = init;
  a->action_id = (uint32_t)L->actions.count;
  a->kind = kind;
  switch (kind) {
    case TORQ__ACTION_KIND__ALLOC:
    case TORQ__ACTION_KIND__DEALLOC:
      a->buffer_id = arg;
      break;
    case TORQ__ACTION_KIND__NSS_START:
    case TORQ__ACTION_KIND__NSS_WAIT:
      a->job_id = arg;
      break;
    default:
      a->host_program_id = arg;
      break;
  }
  a->location = (char *)location;
  return tqc__ptrvec_push(L->arena, &L->actions, a) ? NULL : TQC_OOM("while lowering");
}

tq_status_t tqc__emit_allocs(tqc_lower_t *L, const char *location) {
  for (size_t i = 0; i < L->n_touched; i++) {
    tqc_lbuf_t *b = &L->bufs[L->touched[i]];
    if (b->is_view || b->is_input || b->allocated) continue;
    b->allocated = 1;
    TQ_TRY(tqc__emit_action(L, TORQ__ACTION_KIND__ALLOC, L->touched[i], location));
  }
  return NULL;
}

tq_status_t tqc__emit_deallocs(tqc_lower_t *L, const char *location) {
  for (size_t i = 0; i < L->n_touched; i++) {
    tqc_lbuf_t *b = &L->bufs[L->touched[i]];
    if (b->is_view || b->is_input || b->keep || !b->allocated || b->freed) continue;
    if (b->last_use > L->op_index) continue;
    b->freed = 1;
    TQ_TRY(tqc__emit_action(L, TORQ__ACTION_KIND__DEALLOC, L->touched[i], location));
  }
  L->n_touched = 0;
  return NULL;
}

/* ---- Fusion and the walk -------------------------------------------------------------------- */

static int is_view_op(const tqc_op_t *op) {
  if (op->num_results != 1 || op->num_operands < 1) return 0;
  if (!tqc_op_is(op, "tosa.reshape") && !tqc_op_is(op, "tosa.identity")) return 0;
  size_t a, b;
  return op->operands[0]->type && tqc_type_byte_size(op->operands[0]->type, &a) &&
         tqc_type_byte_size(op->results[0]->type, &b) && a == b;
}

static int is_accumulating(const tqc_op_t *op) {
  return tqc_op_is(op, "tosa.conv2d") || tqc_op_is(op, "tosa.depthwise_conv2d") ||
         tqc_op_is(op, "tosa.matmul");
}

/* The result of an accumulating op has the accumulator type of its kernel (lower_internal.h:
 * i32 for 8-bit input, i48 for 16-bit input), so a rescale can be fused after it: the kernel
 * wraps the accumulator to that type before scaling, as the unfused result would be. */
static int result_is_accumulator(const tqc_op_t *op) {
  const tqc_type_t *in = op->num_operands ? tqc__elem(op->operands[0]->type) : NULL;
  const tqc_type_t *out = op->num_results ? tqc__elem(op->results[0]->type) : NULL;
  if (!in || !out || in->kind != TQC_TYPE_INTEGER || out->kind != TQC_TYPE_INTEGER) return 0;
  uint32_t want = in->integer.width == 8 ? 32 : in->integer.width == 16 ? 48 : 0;
  return want && out->integer.width == want;
}

int tqc__npu_supports(const tqc_op_t *op) {
  return tqc__band_supports(op) || tqc__matmul_supports(op) || tqc__eltwise_supports(op);
}

/* ---- Elementwise chains --------------------------------------------------------------------- */

static size_t result_elements(const tqc_op_t *op) {
  size_t n = 0;
  const tqc_type_t *t = op->num_results ? op->results[0]->type : NULL;
  if (!t || t->kind != TQC_TYPE_TENSOR || !tqc_type_element_count(t, &n)) return 0;
  return n;
}

/* Marks the members whose result something outside the chain reads (views of it included: their
 * readers read its root), or nothing at all. */
static void chain_outputs(const tqc_lower_t *L, const tqc_op_t *const *ops, size_t n_ops,
                          tqc_chain_t *c) {
  memset(c->is_output, 0, sizeof(c->is_output));
  for (size_t k = 0; k < n_ops; k++) {
    const tqc_op_t *op = ops[k];
    int member = 0;
    for (size_t m = 0; m < c->n && !member; m++) member = c->ops[m] == op;
    if (member || is_view_op(op)) continue;
    for (size_t o = 0; o < op->num_operands; o++) {
      const tqc_value_t *root = L->vals[op->operands[o]->id].root;
      for (size_t m = 0; m < c->n; m++)
        if (c->ops[m]->results[0] == root) c->is_output[m] = 1;
    }
  }
  /* A result nothing reads is still written out, as an unfused op's would be. */
  for (size_t m = 0; m < c->n; m++)
    if (L->vals[c->ops[m]->results[0]->id].uses == 0) c->is_output[m] = 1;
}

/* The chain that starts at ops[i]: the following elementwise ops of the same element count (and,
 * for per-channel rescales, the same channels), skipping constants and views, as long as a tile
 * can hold it. Ops already fused elsewhere (emit[j] != j) end it. */
static void chain_from(const tqc_lower_t *L, const tqc_op_t *const *ops, size_t n_ops,
                       const size_t *emit, size_t i, tqc_chain_t *c) {
  memset(c, 0, sizeof(*c));
  c->ops[c->n++] = ops[i];
  size_t count = result_elements(ops[i]);
  int channels = tqc__eltwise_channels(ops[i]);
  for (size_t j = i + 1; j < n_ops && c->n < TQC_CHAIN_MAX; j++) {
    const tqc_op_t *op = ops[j];
    if (tqc_op_const_attr_name(op) || is_view_op(op)) continue;
    if (emit[j] != j || !tqc__eltwise_supports(op) || result_elements(op) != count) break;
    int ch = tqc__eltwise_channels(op);
    if (ch && channels && ch != channels) break;
    c->ops[c->n++] = op;
    chain_outputs(L, ops, n_ops, c);
    if (!tqc__chain_fits_tile(L, c)) {
      c->n--;
      break;
    }
    if (ch) channels = ch;
  }
  chain_outputs(L, ops, n_ops, c);
}

const tqc_value_t *tqc__group_result(const tqc_group_t *g) {
  const tqc_op_t *last = g->clamp ? g->clamp : g->rescale ? g->rescale : g->main;
  return last->results[0];
}

/* The limits of a module (TQF_*) for one tensor with its own bytes, `value` (a constant's
 * from its literal), and for all of them so far. */
static tq_status_t check_limits(tqc_lower_t *L, const tqc_value_t *value) {
  const tqc_attr_t *dense = tqc_value_const_dense(value);
  const tqc_type_t *type = dense ? dense->dense.type : value->type;
  size_t size = 0;
  if (!type || !tqc_type_byte_size(type, &size)) return NULL; /* not a buffer: said later */
  char text[160] = "the tensor";
  tq_buf_t b;
  tq_buf_init(&b, 0);
  tq_status_t pst = tqc__print_type(type, &b);
  if (!pst && b.data) snprintf(text, sizeof(text), "%s", b.data);
  tq_status_free(pst);
  tq_buf_deinit(&b);
  if (size > TQF_BUFFER_MAX_BYTES)
    return value_error(L, value,
                       "tensor too large: %s is %zu bytes, above the limit of %" PRIu64
                       " bytes for one tensor (the runtime loads no larger buffer)",
                       text, size, TQF_BUFFER_MAX_BYTES);
  L->tensor_bytes += size;
  if (L->tensor_bytes > TQF_MODULE_MAX_TENSOR_BYTES)
    return value_error(L, value,
                       "the model's tensors are too large: with %s they hold %" PRIu64
                       " bytes, above the limit of %" PRIu64
                       " bytes for all the tensors of a model",
                       text, L->tensor_bytes, TQF_MODULE_MAX_TENSOR_BYTES);
  if (dense && (L->constant_bytes += size) > TQF_MODULE_MAX_BYTES)
    return value_error(L, value,
                       "the model's constants are too large: with %s they hold %" PRIu64
                       " bytes, above the limit of %" PRIu64
                       " bytes for a module (the runtime loads no larger file)",
                       text, L->constant_bytes, TQF_MODULE_MAX_BYTES);
  return NULL;
}

tq_status_t tqc__lower(tqc_lower_t *L, const tqc_op_t *func) {
  const tqc_block_t *block = func->regions[0].blocks[0];
  size_t n = block->num_ops;
  const tqc_op_t **ops = tq_calloc(n ? n : 1, sizeof(const tqc_op_t *));
  size_t *emit = tq_calloc(n ? n : 1, sizeof(*emit));
  tqc_group_t *groups = tq_calloc(n ? n : 1, sizeof(*groups));
  size_t *chain_at = tq_calloc(n ? n : 1, sizeof(*chain_at)); /* 1 + index into chains, or 0 */
  tqc_chain_t *chains = NULL;
  size_t n_chains = 0, cap_chains = 0;
  tq_status_t st = NULL;
  if (!ops || !emit || !groups || !chain_at) {
    st = TQC_OOM("while lowering");
    goto done;
  }
  size_t i = 0;
  for (const tqc_op_t *op = block->first; op; op = op->next) ops[i++] = op;

  /* Roots, use counts. */
  for (size_t a = 0; a < block->num_args; a++) {
    tqc_lval_t *lv = &L->vals[block->args[a]->id];
    lv->root = block->args[a];
    lv->is_input = 1;
  }
  for (i = 0; i < n; i++) {
    const tqc_op_t *op = ops[i];
    for (size_t r = 0; r < op->num_results; r++) L->vals[op->results[r]->id].root = op->results[r];
    if (is_view_op(op)) L->vals[op->results[0]->id].root = L->vals[op->operands[0]->id].root;
    for (size_t o = 0; o < op->num_operands; o++) {
      tqc_lval_t *lv = &L->vals[op->operands[o]->id];
      lv->uses++;
      lv->user = (tqc_op_t *)op;
    }
    emit[i] = i;
  }
  /* The module's limits, before anything is built: every tensor with its own bytes. */
  for (size_t a = 0; !st && a < block->num_args; a++) st = check_limits(L, block->args[a]);
  for (i = 0; !st && i < n; i++)
    for (size_t r = 0; !st && r < ops[i]->num_results; r++)
      if (L->vals[ops[i]->results[r]->id].root == ops[i]->results[r])
        st = check_limits(L, ops[i]->results[r]);
  if (st) goto done;
  /* Fusion: conv2d / depthwise_conv2d / matmul -> rescale -> clamp. */
  for (i = 0; i < n; i++) {
    const tqc_op_t *op = ops[i];
    groups[i].main = op;
    if (!is_accumulating(op) || !tqc__npu_supports(op) || !result_is_accumulator(op)) continue;
    tqc_lval_t *acc = &L->vals[op->results[0]->id];
    const tqc_op_t *rs = acc->user;
    if (acc->uses != 1 || !tqc_op_is(rs, "tosa.rescale") || rs->operands[0] != op->results[0] ||
        !tqc__rescale_foldable(rs))
      continue;
    groups[i].rescale = rs;
    tqc_lval_t *q = &L->vals[rs->results[0]->id];
    const tqc_op_t *cl = q->user;
    if (q->uses == 1 && tqc_op_is(cl, "tosa.clamp") && cl->operands[0] == rs->results[0] &&
        tqc__clamp_foldable(cl)) {
      groups[i].clamp = cl;
    }
    for (size_t j = i + 1; j < n; j++)
      if (ops[j] == groups[i].rescale || ops[j] == groups[i].clamp) emit[j] = i;
  }
  /* Fusion: runs of elementwise ops into chains, emitted where their first op is. */
  for (i = 0; i < n; i++) {
    const tqc_op_t *op = ops[i];
    if (emit[i] != i || tqc_op_const_attr_name(op) || is_view_op(op) || !tqc__eltwise_supports(op))
      continue;
    if (n_chains == cap_chains) {
      size_t cap = cap_chains ? cap_chains * 2 : 8;
      tqc_chain_t *nc = tq_realloc(chains, cap * sizeof(*nc));
      if (!nc) {
        st = TQC_OOM("while lowering");
        goto done;
      }
      chains = nc;
      cap_chains = cap;
    }
    tqc_chain_t *c = &chains[n_chains++];
    chain_from(L, ops, n, emit, i, c);
    chain_at[i] = n_chains;
    for (size_t m = 1; m < c->n; m++)
      for (size_t j = i + 1; j < n; j++)
        if (ops[j] == c->ops[m]) emit[j] = i;
  }
  /* Last uses by emission index; outputs keep their roots alive. */
  for (i = 0; i < n; i++) {
    const tqc_op_t *op = ops[i];
    for (size_t r = 0; r < op->num_results; r++) {
      tqc_lval_t *lv = &L->vals[op->results[r]->id];
      if (lv->root == op->results[r]) lv->last_use = emit[i];
    }
    for (size_t o = 0; o < op->num_operands; o++) {
      tqc_lval_t *root = &L->vals[L->vals[op->operands[o]->id].root->id];
      if (emit[i] > root->last_use) root->last_use = emit[i];
      if (tqc_op_is(op, "func.return")) root->keep = 1;
    }
  }

  /* Inputs. */
  Torq__Function *fn = L->module->function;
  fn->n_input_buffers = block->num_args;
  fn->input_buffers = tq_arena_calloc(L->arena, block->num_args + 1, sizeof(uint32_t));
  fn->n_inputs = block->num_args;
  fn->inputs = tq_arena_calloc(L->arena, block->num_args + 1, sizeof(Torq__TensorType *));
  if (!fn->input_buffers || !fn->inputs) {
    st = TQC_OOM("while lowering");
    goto done;
  }
  for (size_t a = 0; a < block->num_args; a++) {
    if ((st = tqc__value_buffer(L, block->args[a], &fn->input_buffers[a]))) goto done;
    fn->inputs[a] = ((Torq__Buffer *)L->buffers.items[fn->input_buffers[a]])->type;
  }
  L->n_touched = 0;

  for (i = 0; i < n; i++) {
    const tqc_op_t *op = ops[i];
    L->op_index = i;
    if (emit[i] != i || tqc_op_const_attr_name(op) || is_view_op(op)) continue;
    if (tqc_op_is(op, "func.return")) {
      fn->n_output_buffers = fn->n_outputs = op->num_operands;
      fn->output_buffers = tq_arena_calloc(L->arena, op->num_operands + 1, sizeof(uint32_t));
      fn->outputs = tq_arena_calloc(L->arena, op->num_operands + 1, sizeof(Torq__TensorType *));
      if (!fn->output_buffers || !fn->outputs) {
        st = TQC_OOM("while lowering");
        goto done;
      }
      for (size_t o = 0; o < op->num_operands; o++) {
        if ((st = tqc__value_buffer(L, op->operands[o], &fn->output_buffers[o]))) goto done;
        fn->outputs[o] = ((Torq__Buffer *)L->buffers.items[fn->output_buffers[o]])->type;
      }
      if ((st = tqc__emit_allocs(L, tqc__op_location(L, op)))) goto done;
      L->n_touched = 0;
      break;
    }
    if (tqc__band_supports(op)) {
      st = tqc__lower_band(L, &groups[i]);
    } else if (tqc__matmul_supports(op)) {
      st = tqc__lower_matmul(L, &groups[i]);
    } else if (chain_at[i]) {
      st = tqc__lower_chain(L, &chains[chain_at[i] - 1]);
    } else {
      st = tqc__lower_host(L, op);
    }
    if (st) goto done;
  }
done:
  tq_free(ops);
  tq_free(emit);
  tq_free(groups);
  tq_free(chain_at);
  tq_free(chains);
  return st;
}

/* ---- Attribute and dense helpers ------------------------------------------------------------ */

int tqc__attr_i64s(const tqc_op_t *op, const char *name, int64_t *out, size_t n) {
  const tqc_attr_t *a = tqc_op_attr(op, name);
  if (!a) return 1;
  if (a->kind == TQC_ATTR_DENSE_ARRAY) {
    const tqc_type_t *e = a->dense_array.element;
    size_t es = tqc_type_storage_size(e);
    if (a->dense_array.count != n || !e || e->kind != TQC_TYPE_INTEGER || es == 0 || es > 8)
      return 1;
    for (size_t i = 0; i < n; i++) out[i] = tqc_dense_array_get_int(a, i);
    return 0;
  }
  if (a->kind == TQC_ATTR_ARRAY) {
    if (a->array.count != n) return 1;
    for (size_t i = 0; i < n; i++) {
      if (a->array.items[i]->kind != TQC_ATTR_INTEGER) return 1;
      out[i] = a->array.items[i]->integer.value;
    }
    return 0;
  }
  return 1;
}

void tqc__dense_copy(const tqc_attr_t *dense, size_t first, size_t n, uint8_t *dst) {
  size_t es = dense->dense.elem_size;
  if (dense->dense.splat) {
    for (size_t i = 0; i < n; i++) memcpy(dst + i * es, dense->dense.data, es);
  } else {
    memcpy(dst, dense->dense.data + first * es, n * es);
  }
}

size_t tqc__esz(const tqc_type_t *tensor) {
  return tqc_type_storage_size(tqc__elem(tensor));
}

uint32_t tqc__bits(const tqc_type_t *tensor) {
  return tqc_type_bit_width(tqc__elem(tensor));
}

const int64_t *tqc__dims(const tqc_type_t *tensor, size_t rank) {
  if (!tensor || tensor->kind != TQC_TYPE_TENSOR || !tensor->tensor.ranked ||
      tensor->tensor.rank != rank)
    return NULL;
  for (size_t i = 0; i < rank; i++)
    if (tensor->tensor.dims[i] < 0) return NULL;
  return tensor->tensor.dims;
}
