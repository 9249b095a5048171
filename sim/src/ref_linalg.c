/* tensor.empty and the linalg structured ops on tensors (linalg.generic, linalg.matmul,
 * linalg.fill): a loop nest over the iteration space that runs the op's body, given as scalar
 * instructions (ref.h, "linalg"), once per point. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref_widen.h"
#include "torq/base/alloc.h"

#define TQS__L_MAX_OPERANDS 16
#define TQS__L_MAX_LOOPS 16
#define TQS__L_MAX_ARGS 8

/* ---- Scalars -------------------------------------------------------------------------------- */

typedef struct tqs__sv_s {
  int64_t i; /* integers, sign-extended from their width (i1: 0 or 1) */
  float f;   /* floats, already rounded to their type */
} tqs__sv_t;

static int tqs__scalar_type(tqs_type_t t) {
  return t == TQS_I1 || t == TQS_I8 || t == TQS_I16 || t == TQS_I32 || t == TQS_I64 ||
         t == TQS_BF16 || t == TQS_F16 || t == TQS_F32;
}

/* The scalar type a body names (its element type name: i1 i8 i16 i32 i64 bf16 f16 f32). */
static int tqs__stype(const char *s, size_t len, tqs_type_t *out) {
  char name[16];
  if (len >= sizeof name) return 0;
  memcpy(name, s, len);
  name[len] = 0;
  return tqs_type_parse(name, out) && tqs__scalar_type(*out);
}

static int tqs__bits(tqs_type_t t) {
  return t == TQS_I1 ? 1 : (int)tqs_type_bits(t);
}

/* v wrapped to the integer type t (two's complement; i1 keeps its low bit). */
static int64_t tqs__wrap(int64_t v, tqs_type_t t) {
  int bits = tqs__bits(t);
  if (bits >= 64) return v;
  if (bits == 1) return v & 1;
  uint64_t m = (uint64_t)1 << (bits - 1);
  uint64_t u = (uint64_t)v & ((m << 1) - 1);
  return (int64_t)((u ^ m) - m);
}

/* v's bits of the integer type t, zero-extended. */
static uint64_t tqs__ubits(int64_t v, tqs_type_t t) {
  int bits = tqs__bits(t);
  return bits >= 64 ? (uint64_t)v : (uint64_t)v & (((uint64_t)1 << bits) - 1);
}

/* ---- Instructions --------------------------------------------------------------------------- */

enum {
  TQS__L_ADDF,
  TQS__L_SUBF,
  TQS__L_MULF,
  TQS__L_DIVF,
  TQS__L_MAXIMUMF,
  TQS__L_MINIMUMF,
  TQS__L_MAXNUMF,
  TQS__L_MINNUMF,
  TQS__L_NEGF,
  TQS__L_ADDI,
  TQS__L_SUBI,
  TQS__L_MULI,
  TQS__L_DIVSI,
  TQS__L_DIVUI,
  TQS__L_REMSI,
  TQS__L_REMUI,
  TQS__L_MAXSI,
  TQS__L_MINSI,
  TQS__L_MAXUI,
  TQS__L_MINUI,
  TQS__L_ANDI,
  TQS__L_ORI,
  TQS__L_XORI,
  TQS__L_SHLI,
  TQS__L_SHRSI,
  TQS__L_SHRUI,
  TQS__L_EXTF,
  TQS__L_TRUNCF,
  TQS__L_EXTSI,
  TQS__L_EXTUI,
  TQS__L_TRUNCI,
  TQS__L_SITOFP,
  TQS__L_UITOFP,
  TQS__L_FPTOSI,
  TQS__L_FPTOUI,
  TQS__L_BITCAST,
  TQS__L_CMPF,
  TQS__L_CMPI,
  TQS__L_SELECT,
  TQS__L_EXP,
  TQS__L_LOG,
  TQS__L_TANH,
  TQS__L_SQRT,
  TQS__L_RSQRT,
  TQS__L_ABSF,
  TQS__L_CONSTANT,
  TQS__L_YIELD,
  TQS__L_COUNT
};

/* Names and operand counts, in enum order. */
static const struct {
  const char *name;
  int args;
} tqs__l_ops[TQS__L_COUNT] = {
    {"arith.addf", 2},     {"arith.subf", 2},     {"arith.mulf", 2},    {"arith.divf", 2},
    {"arith.maximumf", 2}, {"arith.minimumf", 2}, {"arith.maxnumf", 2}, {"arith.minnumf", 2},
    {"arith.negf", 1},     {"arith.addi", 2},     {"arith.subi", 2},    {"arith.muli", 2},
    {"arith.divsi", 2},    {"arith.divui", 2},    {"arith.remsi", 2},   {"arith.remui", 2},
    {"arith.maxsi", 2},    {"arith.minsi", 2},    {"arith.maxui", 2},   {"arith.minui", 2},
    {"arith.andi", 2},     {"arith.ori", 2},      {"arith.xori", 2},    {"arith.shli", 2},
    {"arith.shrsi", 2},    {"arith.shrui", 2},    {"arith.extf", 1},    {"arith.truncf", 1},
    {"arith.extsi", 1},    {"arith.extui", 1},    {"arith.trunci", 1},  {"arith.sitofp", 1},
    {"arith.uitofp", 1},   {"arith.fptosi", 1},   {"arith.fptoui", 1},  {"arith.bitcast", 1},
    {"arith.cmpf", 2},     {"arith.cmpi", 2},     {"arith.select", 3},  {"math.exp", 1},
    {"math.log", 1},       {"math.tanh", 1},      {"math.sqrt", 1},     {"math.rsqrt", 1},
    {"math.absf", 1},      {"arith.constant", 0}, {"linalg.yield", -1},
};

static const char *const tqs__cmpf[] = {"false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord",
                                        "ueq",   "ugt", "uge", "ult", "ule", "une", "uno", "true"};
static const char *const tqs__cmpi[] = {"eq",  "ne",  "slt", "sle", "sgt",
                                        "sge", "ult", "ule", "ugt", "uge"};

typedef struct tqs__instr_s {
  int op;
  tqs_type_t type; /* of the result */
  int n_args, pred;
  uint16_t args[TQS__L_MAX_ARGS];
  tqs__sv_t constant;
} tqs__instr_t;

/* A whitespace-separated word of `line` from *pos; its length (0 at the end). */
static size_t tqs__word(const char *line, size_t len, size_t *pos, const char **out) {
  while (*pos < len && line[*pos] == ' ') (*pos)++;
  *out = line + *pos;
  size_t start = *pos;
  while (*pos < len && line[*pos] != ' ') (*pos)++;
  return *pos - start;
}

/* Parses one body line; `n_vals` values are defined before it. */
static tq_status_t tqs__parse_line(const tqs__op_t *op, const char *line, size_t len, size_t n_vals,
                                   const tqs_type_t *val_types, tqs__instr_t *in) {
  size_t pos = 0;
  const char *w;
  size_t wl = tqs__word(line, len, &pos, &w);
  memset(in, 0, sizeof(*in));
  in->op = -1;
  for (int k = 0; k < TQS__L_COUNT; k++)
    if (strlen(tqs__l_ops[k].name) == wl && memcmp(tqs__l_ops[k].name, w, wl) == 0) in->op = k;
  if (in->op < 0) return TQS_FAIL(op, "body: unknown instruction '%.*s'", (int)wl, w);
  if (in->op != TQS__L_YIELD) {
    wl = tqs__word(line, len, &pos, &w);
    if (!tqs__stype(w, wl, &in->type))
      return TQS_FAIL(op, "body: unknown type '%.*s' in '%.*s'", (int)wl, w, (int)len, line);
  }
  in->pred = -1;
  if (in->op == TQS__L_CONSTANT) {
    wl = tqs__word(line, len, &pos, &w);
    char buf[64];
    snprintf(buf, sizeof buf, "%.*s", (int)(wl < 63 ? wl : 63), w);
    char *end = NULL;
    if (tqs_type_is_float(in->type)) {
      in->constant.f = tqs__round_float(in->type, strtof(buf, &end));
    } else {
      in->constant.i = tqs__wrap(strtoll(buf, &end, 10), in->type);
    }
    if (!wl || !end || *end) return TQS_FAIL(op, "body: bad constant '%.*s'", (int)len, line);
    return NULL;
  }
  for (;;) {
    wl = tqs__word(line, len, &pos, &w);
    if (!wl) break;
    if (w[0] < '0' || w[0] > '9') {
      const char *const *preds = in->op == TQS__L_CMPF ? tqs__cmpf : tqs__cmpi;
      int np = in->op == TQS__L_CMPF ? 16 : in->op == TQS__L_CMPI ? 10 : 0;
      in->pred = -1;
      for (int k = 0; k < np; k++)
        if (strlen(preds[k]) == wl && memcmp(preds[k], w, wl) == 0) in->pred = k;
      if (in->pred < 0) return TQS_FAIL(op, "body: bad predicate in '%.*s'", (int)len, line);
      continue;
    }
    unsigned long v = strtoul(w, NULL, 10);
    if (v >= n_vals || in->n_args == TQS__L_MAX_ARGS)
      return TQS_FAIL(op, "body: operand %lu of '%.*s' is not defined before it", v, (int)len,
                      line);
    in->args[in->n_args++] = (uint16_t)v;
  }
  if ((in->op == TQS__L_CMPF || in->op == TQS__L_CMPI) && in->pred < 0)
    return TQS_FAIL(op, "body: '%.*s' names no predicate", (int)len, line);
  int want = tqs__l_ops[in->op].args;
  if (want >= 0 && in->n_args != want)
    return TQS_FAIL(op, "body: '%.*s' takes %d operands", (int)len, line, want);
  (void)val_types;
  return NULL;
}

/* ---- Evaluation ----------------------------------------------------------------------------- */

static float tqs__maxf(float a, float b, int propagate) {
  if (isnan(a) || isnan(b)) return propagate ? NAN : (isnan(a) ? b : a);
  if (a == b) return signbit(a) ? b : a; /* +0 is above -0 */
  return a > b ? a : b;
}

static float tqs__minf(float a, float b, int propagate) {
  if (isnan(a) || isnan(b)) return propagate ? NAN : (isnan(a) ? b : a);
  if (a == b) return signbit(a) ? a : b;
  return a < b ? a : b;
}

static int tqs__cmpf_eval(int pred, float a, float b) {
  int unordered = isnan(a) || isnan(b);
  int lt = !unordered && a < b, eq = !unordered && a == b, gt = !unordered && a > b;
  switch (pred) {
    case 0:
      return 0;
    case 1:
      return eq;
    case 2:
      return gt;
    case 3:
      return gt || eq;
    case 4:
      return lt;
    case 5:
      return lt || eq;
    case 6:
      return lt || gt;
    case 7:
      return !unordered;
    case 8:
      return unordered || eq;
    case 9:
      return unordered || gt;
    case 10:
      return unordered || gt || eq;
    case 11:
      return unordered || lt;
    case 12:
      return unordered || lt || eq;
    case 13:
      return unordered || !eq;
    case 14:
      return unordered;
    default:
      return 1;
  }
}

static int tqs__cmpi_eval(int pred, int64_t a, int64_t b, uint64_t ua, uint64_t ub) {
  switch (pred) {
    case 0:
      return a == b;
    case 1:
      return a != b;
    case 2:
      return a < b;
    case 3:
      return a <= b;
    case 4:
      return a > b;
    case 5:
      return a >= b;
    case 6:
      return ua < ub;
    case 7:
      return ua <= ub;
    case 8:
      return ua > ub;
    default:
      return ua >= ub;
  }
}

/* A float to an integer type: toward zero, saturated, NaN to 0. */
static int64_t tqs__f_to_i(float f, tqs_type_t t, int is_unsigned) {
  if (isnan(f)) return 0;
  int bits = tqs__bits(t);
  double lo = is_unsigned ? 0.0 : -ldexp(1.0, bits - 1);
  double hi = is_unsigned ? ldexp(1.0, bits) - 1 : ldexp(1.0, bits - 1) - 1;
  double d = trunc((double)f);
  if (d <= lo) return is_unsigned ? 0 : (bits >= 64 ? INT64_MIN : (int64_t)lo);
  if (d >= hi) return is_unsigned ? tqs__wrap((int64_t)(uint64_t)hi, t) : (int64_t)hi;
  return tqs__wrap(is_unsigned ? (int64_t)(uint64_t)d : (int64_t)d, t);
}

static tq_status_t tqs__exec(const tqs__op_t *op, const tqs__instr_t *in, const tqs_type_t *vt,
                             tqs__sv_t *v, tqs__sv_t *out) {
  tqs__sv_t a = in->n_args > 0 ? v[in->args[0]] : (tqs__sv_t){0, 0};
  tqs__sv_t b = in->n_args > 1 ? v[in->args[1]] : (tqs__sv_t){0, 0};
  tqs_type_t at = in->n_args > 0 ? vt[in->args[0]] : in->type, t = in->type;
  uint64_t ua = tqs__ubits(a.i, at), ub = tqs__ubits(b.i, at);
  int bits = tqs__bits(at);
  float f = 0;
  int64_t i = 0;
  switch (in->op) {
    case TQS__L_ADDF:
      f = a.f + b.f;
      break;
    case TQS__L_SUBF:
      f = a.f - b.f;
      break;
    case TQS__L_MULF:
      f = a.f * b.f;
      break;
    case TQS__L_DIVF:
      f = a.f / b.f;
      break;
    case TQS__L_MAXIMUMF:
      f = tqs__maxf(a.f, b.f, 1);
      break;
    case TQS__L_MINIMUMF:
      f = tqs__minf(a.f, b.f, 1);
      break;
    case TQS__L_MAXNUMF:
      f = tqs__maxf(a.f, b.f, 0);
      break;
    case TQS__L_MINNUMF:
      f = tqs__minf(a.f, b.f, 0);
      break;
    case TQS__L_NEGF:
      f = -a.f;
      break;
    case TQS__L_EXP:
      f = expf(a.f);
      break;
    case TQS__L_LOG:
      f = logf(a.f);
      break;
    case TQS__L_TANH:
      f = tanhf(a.f);
      break;
    case TQS__L_SQRT:
      f = sqrtf(a.f);
      break;
    case TQS__L_RSQRT:
      f = 1.0f / sqrtf(a.f);
      break;
    case TQS__L_ABSF:
      f = fabsf(a.f);
      break;
    case TQS__L_EXTF:
    case TQS__L_TRUNCF:
      f = a.f;
      break;
    case TQS__L_SITOFP:
      f = (float)a.i;
      break;
    case TQS__L_UITOFP:
      f = (float)ua;
      break;
    case TQS__L_ADDI:
      i = tqs__wrap_add(a.i, b.i);
      break;
    case TQS__L_SUBI:
      i = tqs__wrap_sub(a.i, b.i);
      break;
    case TQS__L_MULI:
      i = tqs__wrap_mul(a.i, b.i);
      break;
    case TQS__L_DIVSI:
    case TQS__L_REMSI:
      if (b.i == 0) return TQS_FAIL(op, "body: %s by zero", tqs__l_ops[in->op].name);
      if (b.i == -1) { /* the only overflow, INT_MIN / -1, wraps */
        i = in->op == TQS__L_DIVSI ? tqs__wrap_sub(0, a.i) : 0;
      } else {
        i = in->op == TQS__L_DIVSI ? a.i / b.i : a.i % b.i;
      }
      break;
    case TQS__L_DIVUI:
    case TQS__L_REMUI:
      if (ub == 0) return TQS_FAIL(op, "body: %s by zero", tqs__l_ops[in->op].name);
      i = (int64_t)(in->op == TQS__L_DIVUI ? ua / ub : ua % ub);
      break;
    case TQS__L_MAXSI:
      i = a.i > b.i ? a.i : b.i;
      break;
    case TQS__L_MINSI:
      i = a.i < b.i ? a.i : b.i;
      break;
    case TQS__L_MAXUI:
      i = ua > ub ? a.i : b.i;
      break;
    case TQS__L_MINUI:
      i = ua < ub ? a.i : b.i;
      break;
    case TQS__L_ANDI:
      i = a.i & b.i;
      break;
    case TQS__L_ORI:
      i = a.i | b.i;
      break;
    case TQS__L_XORI:
      i = a.i ^ b.i;
      break;
    /* A shift by the width or more: 0 for shli and shrui, the sign for shrsi. */
    case TQS__L_SHLI:
      i = ub >= (uint64_t)bits ? 0 : (int64_t)(ua << ub);
      break;
    case TQS__L_SHRUI:
      i = ub >= (uint64_t)bits ? 0 : (int64_t)(ua >> ub);
      break;
    case TQS__L_SHRSI:
      i = a.i >> (ub >= (uint64_t)bits ? bits - 1 : (int)ub);
      break;
    case TQS__L_EXTSI:
      i = at == TQS_I1 ? -a.i : a.i;
      break;
    case TQS__L_EXTUI:
      i = (int64_t)ua;
      break;
    case TQS__L_TRUNCI:
      i = a.i;
      break;
    case TQS__L_FPTOSI:
      i = tqs__f_to_i(a.f, t, 0);
      break;
    case TQS__L_FPTOUI:
      i = tqs__f_to_i(a.f, t, 1);
      break;
    case TQS__L_BITCAST: {
      uint32_t u32;
      if (tqs_type_is_float(at) && tqs_type_is_float(t)) {
        f = a.f;
      } else if (tqs_type_is_float(at)) {
        if (at == TQS_F32) {
          memcpy(&u32, &a.f, 4);
          i = (int32_t)u32;
        } else {
          i = (int16_t)(at == TQS_BF16 ? tqs_f32_to_bf16(a.f) : tqs_f32_to_f16(a.f));
        }
      } else if (t == TQS_F32) {
        u32 = (uint32_t)a.i;
        memcpy(&f, &u32, 4);
      } else {
        f = t == TQS_BF16 ? tqs_bf16_to_f32((uint16_t)a.i) : tqs_f16_to_f32((uint16_t)a.i);
      }
      break;
    }
    case TQS__L_CMPF:
      i = tqs__cmpf_eval(in->pred, a.f, b.f);
      break;
    case TQS__L_CMPI:
      i = tqs__cmpi_eval(in->pred, a.i, b.i, ua, ub);
      break;
    case TQS__L_SELECT:
      *out = v[in->args[0]].i ? b : v[in->args[2]];
      return NULL;
    case TQS__L_CONSTANT:
      *out = in->constant;
      return NULL;
    default:
      return TQS_FAIL(op, "body: internal: instruction %d", in->op);
  }
  if (tqs_type_is_float(t)) {
    out->f = tqs__round_float(t, f);
    out->i = 0;
  } else {
    out->i = tqs__wrap(i, t);
    out->f = 0;
  }
  return NULL;
}

/* ---- The loop nest -------------------------------------------------------------------------- */

tq_status_t tqs__k_empty(const tqs__op_t *op, int variant) {
  (void)variant;
  TQ_TRY(tqs__check_arity(op, 0, 0, 1));
  size_t bytes = 0;
  TQ_TRY(tqs_tensor_byte_size(op->out[0], &bytes));
  if (bytes) memset(op->out[0]->data, 0, bytes); /* contents are unspecified: we choose 0 */
  return NULL;
}

/* The iteration of one linalg op: its operands, maps as strides and the body. */
typedef struct tqs__lin_s {
  size_t n_in, n_ops, n_loops, n_instr, n_vals;
  const tqs_tensor_t *t[TQS__L_MAX_OPERANDS]; /* inputs, then the results (read and written) */
  int64_t bound[TQS__L_MAX_LOOPS];
  int64_t stride[TQS__L_MAX_OPERANDS][TQS__L_MAX_LOOPS];
  tqs__instr_t *instr;
  tqs_type_t *vt; /* per value */
  tqs__sv_t *v;
} tqs__lin_t;

static tq_status_t tqs__lin_maps(const tqs__op_t *op, tqs__lin_t *L) {
  const tqs_attr_t *maps = tqs__attr_find(op, "linalg.maps");
  const tqs_attr_t *loops = tqs__attr_find(op, "linalg.loops");
  if (!maps || maps->kind != TQS_ATTR_INTS || !loops || loops->kind != TQS_ATTR_INTS)
    return TQS_FAIL(op, "needs the integer attributes linalg.maps and linalg.loops");
  if (loops->count > TQS__L_MAX_LOOPS) return TQS_FAIL(op, "more than 16 loops");
  L->n_loops = loops->count;
  for (size_t l = 0; l < L->n_loops; l++) L->bound[l] = -1;
  size_t at = 0;
  for (size_t k = 0; k < L->n_ops; k++) {
    const tqs_tensor_t *t = L->t[k];
    if (at >= maps->count || maps->ints[at] != (int64_t)t->rank)
      return TQS_FAIL(op, "linalg.maps: the map of operand %zu does not have its rank %zu", k,
                      t->rank);
    at++;
    int64_t strides[TQS_MAX_RANK];
    tqs__strides(t, strides);
    for (size_t d = 0; d < t->rank; d++, at++) {
      if (at >= maps->count) return TQS_FAIL(op, "linalg.maps is too short");
      int64_t l = maps->ints[at];
      if (l == -1) continue; /* the constant 0 */
      if (l < 0 || (size_t)l >= L->n_loops)
        return TQS_FAIL(op, "linalg.maps: loop %lld of operand %zu is out of range", (long long)l,
                        k);
      if (L->bound[l] >= 0 && L->bound[l] != t->dims[d])
        return TQS_FAIL(op, "loop %lld runs to %lld for one operand and %lld for operand %zu",
                        (long long)l, (long long)L->bound[l], (long long)t->dims[d], k);
      L->bound[l] = t->dims[d];
      L->stride[k][l] += strides[d];
    }
  }
  if (at != maps->count) return TQS_FAIL(op, "linalg.maps is too long");
  for (size_t l = 0; l < L->n_loops; l++)
    if (L->bound[l] < 0) return TQS_FAIL(op, "loop %zu is read by no operand", l);
  return NULL;
}

static tq_status_t tqs__lin_body(const tqs__op_t *op, tqs__lin_t *L, void **scratch) {
  const char *body = NULL;
  TQ_TRY(tqs__attr_string(op, "linalg.body", &body));
  size_t lines = 0;
  for (const char *s = body; *s; s++) lines += *s == '\n';
  L->n_vals = L->n_ops + lines;
  /* One block: the instructions, the values, their types (in decreasing alignment). */
  size_t bytes =
      lines * sizeof(tqs__instr_t) + L->n_vals * (sizeof(tqs_type_t) + sizeof(tqs__sv_t));
  TQ_TRY(tqs__scratch(op, bytes, 1, scratch));
  L->instr = *scratch;
  L->v = (tqs__sv_t *)(L->instr + lines);
  L->vt = (tqs_type_t *)(L->v + L->n_vals);
  for (size_t k = 0; k < L->n_ops; k++) L->vt[k] = L->t[k]->type;
  size_t n_vals = L->n_ops;
  const char *s = body;
  for (size_t i = 0; i < lines; i++) {
    const char *e = strchr(s, '\n');
    tqs__instr_t *in = &L->instr[i];
    TQ_TRY(tqs__parse_line(op, s, (size_t)(e - s), n_vals, L->vt, in));
    if (in->op == TQS__L_YIELD) {
      if (i + 1 != lines || (size_t)in->n_args != L->n_ops - L->n_in)
        return TQS_FAIL(op, "body: the last line must yield one value per output");
    } else {
      L->vt[n_vals++] = in->type;
    }
    s = e + 1;
  }
  L->n_instr = lines;
  if (!lines || L->instr[lines - 1].op != TQS__L_YIELD)
    return TQS_FAIL(op, "body: must end with linalg.yield");
  return NULL;
}

tq_status_t tqs__k_linalg(const tqs__op_t *op, int variant) {
  (void)variant;
  int64_t n_in = -1;
  TQ_TRY(tqs__attr_int(op, "linalg.inputs", &n_in));
  if (n_in < 0 || (size_t)n_in > op->n_in || op->n_in - (size_t)n_in != op->n_out ||
      op->n_in + 0 > TQS__L_MAX_OPERANDS || op->n_out < 1)
    return TQS_FAIL(op, "expects linalg.inputs inputs, then one init operand per result");
  tqs__lin_t L;
  memset(&L, 0, sizeof L);
  L.n_in = (size_t)n_in;
  L.n_ops = op->n_in;
  for (size_t k = 0; k < L.n_ops; k++) {
    L.t[k] = k < L.n_in ? op->in[k] : op->out[k - L.n_in];
    if (!tqs__scalar_type(L.t[k]->type))
      return TQS_FAIL(op,
                      "operand %zu has elements of %s, not of i1, i8, i16, i32, i64, bf16, "
                      "f16 or f32",
                      k, tqs_type_name(L.t[k]->type));
  }
  /* Each result starts as its init operand. */
  for (size_t r = 0; r < op->n_out; r++) {
    TQ_TRY(
        tqs__check_same_type(op, op->in[L.n_in + r], "an init operand", op->out[r], "its result"));
    TQ_TRY(
        tqs__check_same_shape(op, op->in[L.n_in + r], "an init operand", op->out[r], "its result"));
    size_t bytes = 0;
    TQ_TRY(tqs_tensor_byte_size(op->out[r], &bytes));
    if (bytes) memcpy(op->out[r]->data, op->in[L.n_in + r]->data, bytes);
  }
  TQ_TRY(tqs__lin_maps(op, &L));
  void *scratch = NULL;
  tq_status_t st = tqs__lin_body(op, &L, &scratch);
  int64_t idx[TQS__L_MAX_LOOPS] = {0};
  int empty = 0;
  for (size_t l = 0; l < L.n_loops; l++) empty |= L.bound[l] == 0;
  while (!st && !empty) {
    size_t off[TQS__L_MAX_OPERANDS];
    for (size_t k = 0; k < L.n_ops; k++) {
      int64_t o = 0;
      for (size_t l = 0; l < L.n_loops; l++) o += idx[l] * L.stride[k][l];
      off[k] = (size_t)o;
      if (tqs_type_is_float(L.t[k]->type)) {
        L.v[k].f = tqs__ld_f(L.t[k], off[k]);
      } else {
        L.v[k].i = tqs__ld_i(L.t[k], off[k]);
      }
    }
    size_t nv = L.n_ops;
    for (size_t i = 0; i + 1 < L.n_instr && !st; i++)
      st = tqs__exec(op, &L.instr[i], L.vt, L.v, &L.v[nv++]);
    const tqs__instr_t *y = &L.instr[L.n_instr - 1];
    for (size_t r = 0; r < op->n_out && !st; r++) {
      tqs_tensor_t *res = op->out[r];
      const tqs__sv_t *val = &L.v[y->args[r]];
      if (tqs_type_is_float(res->type))
        tqs__st_f(res, off[L.n_in + r], val->f);
      else
        tqs__st_i(res, off[L.n_in + r], val->i);
    }
    size_t l = L.n_loops;
    while (l > 0 && ++idx[l - 1] == L.bound[l - 1]) idx[--l] = 0;
    if (l == 0) break;
  }
  tq_free(scratch);
  return st;
}
