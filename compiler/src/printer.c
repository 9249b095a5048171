/* The generic-form printer. Output follows mlir-opt --mlir-print-op-generic
 * --mlir-print-debuginfo --mlir-print-local-scope: values renumbered as MLIR does (%N for op
 * results and %argN for entry block arguments; number_regions), locations inline, dense literals
 * over 100 elements as hex. Floats print in the shortest of MLIR's forms that reads back to the
 * same bits.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "torq/base/alloc.h"
#include "torq/compiler/ir.h"
#include "torq/compiler/mlir.h"
#include "print_internal.h"

#define HEX_THRESHOLD 100

typedef struct printer_s {
  tq_buf_t *out;
  tq_status_t st;
  size_t *num;  /* per value id: its number */
  uint8_t *arg; /* per value id: 1 = %argN, 2 = numbered, 0 = not numbered */
} printer_t;

static void put(printer_t *pr, const char *s, size_t n) {
  if (!pr->st) pr->st = tq_buf_append(pr->out, s, n);
}
static void puts_(printer_t *pr, const char *s) { put(pr, s, strlen(s)); }
static void putsv(printer_t *pr, tq_sv_t s) { put(pr, s.data, s.len); }

static void printf_(printer_t *pr, const char *fmt, ...) TQ_PRINTF(2, 3);
static void printf_(printer_t *pr, const char *fmt, ...) {
  if (pr->st) return;
  va_list ap;
  va_start(ap, fmt);
  pr->st = tq_buf_vprintf(pr->out, fmt, ap);
  va_end(ap);
}

static void indent(printer_t *pr, size_t n) {
  static const char spaces[] = "                                                                ";
  while (n > 0) {
    size_t k = n < sizeof(spaces) - 1 ? n : sizeof(spaces) - 1;
    put(pr, spaces, k);
    n -= k;
  }
}

static void put_string(printer_t *pr, tq_sv_t s) {
  if (!pr->st) pr->st = tqc__print_string(s, pr->out);
}

static int is_bare_id(tq_sv_t s) {
  if (s.len == 0) return 0;
  unsigned char c = (unsigned char)s.data[0];
  if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_')) return 0;
  for (size_t i = 1; i < s.len; i++) {
    c = (unsigned char)s.data[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
          c == '_' || c == '$' || c == '.')) {
      return 0;
    }
  }
  return 1;
}

/* ---- Types ---------------------------------------------------------------------------------- */

static void print_attr(printer_t *pr, const tqc_attr_t *a);

const char *tqc__float_name(tqc_float_kind_t kind) {
  static const char *const names[] = {[TQC_BF16] = "bf16", [TQC_F16] = "f16", [TQC_F32] = "f32",
                                      [TQC_F64] = "f64"};
  return (unsigned)kind < sizeof(names) / sizeof(names[0]) ? names[kind] : "?";
}

static void print_type(printer_t *pr, const tqc_type_t *t) {
  if (!t) {
    puts_(pr, "<<unknown type>>");
    return;
  }
  switch (t->kind) {
  case TQC_TYPE_INTEGER:
    printf_(pr, "%s%u",
            t->integer.signedness == TQC_SIGNED     ? "si"
            : t->integer.signedness == TQC_UNSIGNED ? "ui"
                                                    : "i",
            t->integer.width);
    break;
  case TQC_TYPE_INDEX: puts_(pr, "index"); break;
  case TQC_TYPE_NONE: puts_(pr, "none"); break;
  case TQC_TYPE_FLOAT: puts_(pr, tqc__float_name(t->flt.fkind)); break;
  case TQC_TYPE_TENSOR:
    puts_(pr, "tensor<");
    if (!t->tensor.ranked) puts_(pr, "*x");
    for (size_t i = 0; i < t->tensor.rank; i++) {
      if (t->tensor.dims[i] == TQC_DYNAMIC) {
        puts_(pr, "?x");
      } else {
        printf_(pr, "%lldx", (long long)t->tensor.dims[i]);
      }
    }
    print_type(pr, t->tensor.element);
    if (t->tensor.encoding) {
      puts_(pr, ", ");
      print_attr(pr, t->tensor.encoding);
    }
    puts_(pr, ">");
    break;
  case TQC_TYPE_SHAPE: printf_(pr, "!tosa.shape<%zu>", t->shape.rank); break;
  case TQC_TYPE_FUNCTION: {
    puts_(pr, "(");
    for (size_t i = 0; i < t->function.num_inputs; i++) {
      if (i) puts_(pr, ", ");
      print_type(pr, t->function.inputs[i]);
    }
    puts_(pr, ") -> ");
    int paren = t->function.num_results != 1 ||
                t->function.results[0]->kind == TQC_TYPE_FUNCTION;
    if (paren) puts_(pr, "(");
    for (size_t i = 0; i < t->function.num_results; i++) {
      if (i) puts_(pr, ", ");
      print_type(pr, t->function.results[i]);
    }
    if (paren) puts_(pr, ")");
    break;
  }
  case TQC_TYPE_OPAQUE: putsv(pr, t->opaque.text); break;
  }
}

/* ---- Numbers -------------------------------------------------------------------------------- */

/* MLIR's float forms (its printFloatValue over APFloat::toString): six digits in exponent form
 * when that reads back to the same bits, else the type's natural precision in plain or "E"
 * notation; if that has no '.', or the value is NaN or infinite, the hex bit pattern. */
static int reads_back(tqc_float_kind_t kind, const char *text, uint64_t bits) {
  return tqc_float_encode(kind, strtod(text, NULL)) == bits;
}

static void print_float(printer_t *pr, tqc_float_kind_t kind, uint64_t bits) {
  static const int hex_digits[4] = {4, 4, 8, 16};
  static const int precision_bits[4] = {8, 11, 24, 53};
  double v = tqc_float_decode(kind, bits);
  char buf[96];
  if (isfinite(v)) {
    char e6[48];
    snprintf(e6, sizeof(e6), "%.5e", v);
    char *e = strchr(e6, 'e');
    if (e) {
      /* Six significant digits, zero-padded to six decimals: "6.000000e+00". */
      snprintf(buf, sizeof(buf), "%.*s0%s", (int)(e - e6), e6, e);
      if (reads_back(kind, buf, bits)) {
        puts_(pr, buf);
        return;
      }
    }
    int prec = 2 + precision_bits[kind] * 59 / 196;
    char sci[64];
    snprintf(sci, sizeof(sci), "%.*e", prec - 1, fabs(v));
    /* Digits without the point, the decimal exponent of the first digit. */
    char digits[32];
    size_t nd = 0;
    const char *c = sci;
    for (; *c && *c != 'e' && nd < sizeof(digits) - 1; c++) {
      if (*c >= '0' && *c <= '9') digits[nd++] = *c;
    }
    long e10 = *c == 'e' ? strtol(c + 1, NULL, 10) : 0;
    while (nd > 1 && digits[nd - 1] == '0') nd--;
    digits[nd] = 0;
    long exp = e10 - (long)(nd - 1); /* exponent of the last digit */
    int scientific;
    if (exp >= 0) {
      scientific = exp > 3 || (long)nd + exp > prec;
    } else {
      scientific = e10 < 0 && -e10 > 3;
    }
    size_t o = 0;
    if (signbit(v)) buf[o++] = '-';
    if (scientific) {
      buf[o++] = digits[0];
      buf[o++] = '.';
      if (nd == 1) buf[o++] = '0';
      for (size_t i = 1; i < nd; i++) buf[o++] = digits[i];
      snprintf(buf + o, sizeof(buf) - o, "E%c%ld", e10 < 0 ? '-' : '+', e10 < 0 ? -e10 : e10);
    } else if (exp >= 0) {
      for (size_t i = 0; i < nd; i++) buf[o++] = digits[i];
      for (long i = 0; i < exp; i++) buf[o++] = '0';
      buf[o] = 0;
    } else {
      long whole = e10 + 1;
      size_t i = 0;
      if (whole > 0) {
        for (; i < (size_t)whole; i++) buf[o++] = digits[i];
        buf[o++] = '.';
      } else {
        buf[o++] = '0';
        buf[o++] = '.';
        for (long z = 0; z < -whole; z++) buf[o++] = '0';
      }
      for (; i < nd; i++) buf[o++] = digits[i];
      buf[o] = 0;
    }
    if (strchr(buf, '.') && reads_back(kind, buf, bits)) {
      puts_(pr, buf);
      return;
    }
  }
  printf_(pr, "0x%0*llX", hex_digits[kind], (unsigned long long)bits);
}

static void print_scalar(printer_t *pr, const tqc_type_t *t, uint64_t bits) {
  if (t->kind == TQC_TYPE_FLOAT) {
    print_float(pr, t->flt.fkind, bits);
    return;
  }
  uint32_t w = tqc_type_bit_width(t);
  if (w < 64) bits &= ((uint64_t)1 << w) - 1;
  if (w == 1 && t->kind == TQC_TYPE_INTEGER && t->integer.signedness == TQC_SIGNLESS) {
    puts_(pr, bits ? "true" : "false");
  } else if (t->kind == TQC_TYPE_INTEGER && t->integer.signedness == TQC_UNSIGNED) {
    printf_(pr, "%llu", (unsigned long long)bits);
  } else {
    uint64_t s = w < 64 ? (uint64_t)1 << (w - 1) : 0;
    int64_t v = w < 64 ? (int64_t)((bits ^ s) - s) : (int64_t)bits;
    printf_(pr, "%lld", (long long)v);
  }
}

/* ---- Attributes ----------------------------------------------------------------------------- */

static void print_dict_body(printer_t *pr, const tqc_dict_t *d) {
  for (size_t i = 0; i < d->count; i++) {
    if (i) puts_(pr, ", ");
    const tqc_named_attr_t *e = &d->entries[i];
    if (is_bare_id(e->name)) {
      putsv(pr, e->name);
    } else {
      put_string(pr, e->name);
    }
    if (e->value->kind != TQC_ATTR_UNIT) {
      puts_(pr, " = ");
      print_attr(pr, e->value);
    }
  }
}

static void print_dense(printer_t *pr, const tqc_attr_t *a) {
  const tqc_type_t *type = a->dense.type;
  const tqc_type_t *et = type->tensor.element;
  size_t count = a->dense.count;
  int is_i1 = et->kind == TQC_TYPE_INTEGER && et->integer.width == 1;
  puts_(pr, "dense<");
  if (a->dense.splat) {
    print_scalar(pr, et, tqc_dense_get_bits(a, 0));
  } else if (count > HEX_THRESHOLD) {
    static const char hex[] = "0123456789ABCDEF";
    puts_(pr, "\"0x");
    if (is_i1) {
      /* MLIR packs i1 hex literals, eight elements a byte, lowest first. */
      for (size_t i = 0; i < count; i += 8) {
        unsigned byte = 0;
        for (size_t j = 0; j < 8 && i + j < count; j++) byte |= (a->dense.data[i + j] & 1u) << j;
        char h[2] = {hex[byte >> 4], hex[byte & 15]};
        put(pr, h, 2);
      }
    } else if (!pr->st) {
      pr->st = tq_buf_reserve_filled(pr->out, a->dense.size * 2);
      for (size_t i = 0; i < a->dense.size && !pr->st; i++) {
        char h[2] = {hex[a->dense.data[i] >> 4], hex[a->dense.data[i] & 15]};
        put(pr, h, 2);
      }
    }
    puts_(pr, "\"");
  } else if (count > 0) {
    size_t rank = type->tensor.rank;
    size_t strides[64];
    /* Nesting deeper than 64 dims prints flat per row; such tensors do not occur. */
    size_t r = rank < 64 ? rank : 64;
    size_t s = 1;
    for (size_t k = r; k-- > 0;) {
      s *= (size_t)type->tensor.dims[k];
      strides[k] = s;
    }
    for (size_t k = 0; k < r; k++) puts_(pr, "[");
    for (size_t i = 0; i < count; i++) {
      if (i > 0) {
        size_t closes = 0;
        for (size_t k = 1; k < r; k++) closes += i % strides[k] == 0;
        for (size_t k = 0; k < closes; k++) puts_(pr, "]");
        puts_(pr, ", ");
        for (size_t k = 0; k < closes; k++) puts_(pr, "[");
      }
      print_scalar(pr, et, tqc_dense_get_bits(a, i));
    }
    for (size_t k = 0; k < r; k++) puts_(pr, "]");
  }
  puts_(pr, "> : ");
  print_type(pr, type);
}

static void print_attr_in(printer_t *pr, const tqc_attr_t *a, int in_array);

static void print_attr(printer_t *pr, const tqc_attr_t *a) {
  print_attr_in(pr, a, 0);
}

/* `in_array`: an element of an array attribute. */
static void print_attr_in(printer_t *pr, const tqc_attr_t *a, int in_array) {
  switch (a->kind) {
  case TQC_ATTR_INTEGER: {
    const tqc_type_t *t = a->integer.type;
    print_scalar(pr, t, (uint64_t)a->integer.value);
    /* MLIR leaves out the type of an i64 integer in an array ([3, 4]), not elsewhere
     * (predicate = 2 : i64). */
    if (!(in_array && t->kind == TQC_TYPE_INTEGER && t->integer.width == 64 &&
          t->integer.signedness == TQC_SIGNLESS)) {
      puts_(pr, " : ");
      print_type(pr, t);
    }
    break;
  }
  case TQC_ATTR_FLOAT:
    /* Unlike i64 for integers, MLIR always writes the type, f64 included. */
    print_float(pr, a->flt.type->flt.fkind, a->flt.bits);
    puts_(pr, " : ");
    print_type(pr, a->flt.type);
    break;
  case TQC_ATTR_BOOL: puts_(pr, a->boolean ? "true" : "false"); break;
  case TQC_ATTR_UNIT: puts_(pr, "unit"); break;
  case TQC_ATTR_STRING: put_string(pr, a->string); break;
  case TQC_ATTR_TYPE: print_type(pr, a->type); break;
  case TQC_ATTR_ARRAY:
    puts_(pr, "[");
    for (size_t i = 0; i < a->array.count; i++) {
      if (i) puts_(pr, ", ");
      print_attr_in(pr, a->array.items[i], 1);
    }
    puts_(pr, "]");
    break;
  case TQC_ATTR_DICT:
    puts_(pr, "{");
    print_dict_body(pr, &a->dict);
    puts_(pr, "}");
    break;
  case TQC_ATTR_DENSE: print_dense(pr, a); break;
  case TQC_ATTR_DENSE_ARRAY: {
    const tqc_type_t *et = a->dense_array.element;
    puts_(pr, "array<");
    print_type(pr, et);
    for (size_t i = 0; i < a->dense_array.count; i++) {
      puts_(pr, i ? ", " : ": ");
      print_scalar(pr, et, tqc_dense_array_get_bits(a, i));
    }
    puts_(pr, ">");
    break;
  }
  case TQC_ATTR_SYMBOL_REF:
    for (size_t i = 0; i < a->symbol_ref.count; i++) {
      puts_(pr, i ? "::@" : "@");
      if (is_bare_id(a->symbol_ref.names[i])) {
        putsv(pr, a->symbol_ref.names[i]);
      } else {
        put_string(pr, a->symbol_ref.names[i]);
      }
    }
    break;
  case TQC_ATTR_DIALECT: putsv(pr, a->dialect.text); break;
  case TQC_ATTR_OPAQUE: putsv(pr, a->opaque.text); break;
  }
}

/* ---- Locations ------------------------------------------------------------------------------ */

/* The parser bounds how deep a location nests and rejects alias cycles; IR built by other code
 * is bounded here too, so that a cyclic location cannot recurse until the stack runs out. */
#define MAX_LOC_DEPTH 10000

static void print_loc_inner(printer_t *pr, const tqc_loc_t *l, size_t depth) {
  if (pr->st) return;
  if (depth > MAX_LOC_DEPTH) {
    pr->st =
        TQ_STATUS(TQ_LIMIT, "a location nests deeper than %d levels (a cycle?)", MAX_LOC_DEPTH);
    return;
  }
  switch (l->kind) {
  case TQC_LOC_UNKNOWN:
  case TQC_LOC_ALIAS: puts_(pr, "unknown"); break;
  case TQC_LOC_FILE:
    put_string(pr, l->file.file);
    printf_(pr, ":%u:%u", l->file.line, l->file.col);
    break;
  case TQC_LOC_NAME:
    put_string(pr, l->name.name);
    if (l->name.child) {
      puts_(pr, "(");
      print_loc_inner(pr, l->name.child, depth + 1);
      puts_(pr, ")");
    }
    break;
  case TQC_LOC_CALLSITE:
    puts_(pr, "callsite(");
    print_loc_inner(pr, l->callsite.callee, depth + 1);
    puts_(pr, " at ");
    print_loc_inner(pr, l->callsite.caller, depth + 1);
    puts_(pr, ")");
    break;
  case TQC_LOC_FUSED:
    puts_(pr, "fused");
    if (l->fused.metadata) {
      puts_(pr, "<");
      print_attr(pr, l->fused.metadata);
      puts_(pr, ">");
    }
    puts_(pr, "[");
    for (size_t i = 0; i < l->fused.count; i++) {
      if (i) puts_(pr, ", ");
      print_loc_inner(pr, l->fused.locs[i], depth + 1);
    }
    puts_(pr, "]");
    break;
  }
}

static void print_loc(printer_t *pr, const tqc_loc_t *l) {
  puts_(pr, "loc(");
  if (l) {
    print_loc_inner(pr, l, 0);
  } else {
    puts_(pr, "unknown");
  }
  puts_(pr, ")");
}

/* ---- Names ---------------------------------------------------------------------------------- */

/* MLIR's numbering in generic form (which prints unique SSA ids): one counter of values and one
 * of entry-block arguments for the whole module. A region's values are numbered (its entry
 * block's arguments as %argN, other block arguments and op results as %N) before the regions
 * nested in its ops, and those are taken from a stack: the last op's regions first. */
typedef struct counters_s {
  size_t arg, value;
} counters_t;

static void number_one(printer_t *pr, const tqc_region_t *r, counters_t *c) {
  for (size_t b = 0; b < r->num_blocks; b++) {
    const tqc_block_t *blk = r->blocks[b];
    for (size_t i = 0; i < blk->num_args; i++) {
      size_t id = blk->args[i]->id;
      pr->arg[id] = b == 0 ? 1 : 2;
      pr->num[id] = b == 0 ? c->arg++ : c->value++;
    }
    for (const tqc_op_t *op = blk->first; op; op = op->next) {
      if (op->num_results == 0) continue;
      size_t n = c->value++;
      for (size_t i = 0; i < op->num_results; i++) {
        pr->arg[op->results[i]->id] = 2;
        pr->num[op->results[i]->id] = n;
      }
    }
  }
}

static int number_regions(printer_t *pr, const tqc_op_t *top) {
  size_t cap = 16, n = 0;
  const tqc_region_t **stack = tq_malloc(cap * sizeof(*stack));
  if (!stack) return 0;
  for (size_t i = 0; i < top->num_regions; i++) stack[n++] = &top->regions[i];
  counters_t c = {0, 0};
  while (n > 0) {
    const tqc_region_t *r = stack[--n];
    number_one(pr, r, &c);
    for (size_t b = 0; b < r->num_blocks; b++) {
      for (const tqc_op_t *op = r->blocks[b]->first; op; op = op->next) {
        for (size_t i = 0; i < op->num_regions; i++) {
          if (n == cap) {
            const tqc_region_t **more = tq_realloc(stack, 2 * cap * sizeof(*stack));
            if (!more) {
              tq_free(stack);
              return 0;
            }
            stack = more;
            cap *= 2;
          }
          stack[n++] = &op->regions[i];
        }
      }
    }
  }
  tq_free(stack);
  return 1;
}

static void print_value(printer_t *pr, const tqc_value_t *v) {
  if (pr->arg[v->id] == 1) {
    printf_(pr, "%%arg%zu", pr->num[v->id]);
  } else if (pr->arg[v->id] == 2) {
    printf_(pr, "%%%zu", pr->num[v->id]);
    if (v->def && v->def->num_results > 1) printf_(pr, "#%zu", v->index);
  } else {
    /* A value that was never defined (the module did not verify): keep its written name. */
    putsv(pr, v->name.len ? v->name : tq_sv_cstr("%undefined"));
  }
}

static size_t block_index(const tqc_block_t *b) {
  const tqc_region_t *r = b->parent;
  for (size_t i = 0; r && i < r->num_blocks; i++) {
    if (r->blocks[i] == b) return i;
  }
  return 0;
}

/* ---- Ops ------------------------------------------------------------------------------------ */

static void print_op(printer_t *pr, const tqc_op_t *op, size_t ind);

static void print_region(printer_t *pr, const tqc_region_t *r, size_t ind) {
  puts_(pr, "{\n");
  for (size_t b = 0; b < r->num_blocks; b++) {
    const tqc_block_t *blk = r->blocks[b];
    if (b > 0 || blk->num_args > 0) {
      indent(pr, ind);
      printf_(pr, "^bb%zu", b);
      if (blk->num_args > 0) {
        puts_(pr, "(");
        for (size_t i = 0; i < blk->num_args; i++) {
          if (i) puts_(pr, ", ");
          print_value(pr, blk->args[i]);
          puts_(pr, ": ");
          print_type(pr, blk->args[i]->type);
          puts_(pr, " ");
          print_loc(pr, blk->args[i]->loc);
        }
        puts_(pr, ")");
      }
      puts_(pr, ":\n");
    }
    for (const tqc_op_t *op = blk->first; op && !pr->st; op = op->next) {
      print_op(pr, op, ind + 2);
    }
  }
  indent(pr, ind);
  puts_(pr, "}");
}

static void print_op(printer_t *pr, const tqc_op_t *op, size_t ind) {
  indent(pr, ind);
  if (op->num_results > 0) {
    printf_(pr, "%%%zu", pr->num[op->results[0]->id]);
    if (op->num_results > 1) printf_(pr, ":%zu", op->num_results);
    puts_(pr, " = ");
  }
  put_string(pr, op->name);
  puts_(pr, "(");
  for (size_t i = 0; i < op->num_operands; i++) {
    if (i) puts_(pr, ", ");
    print_value(pr, op->operands[i]);
  }
  puts_(pr, ")");
  if (op->num_successors > 0) {
    puts_(pr, "[");
    for (size_t i = 0; i < op->num_successors; i++) {
      if (i) puts_(pr, ", ");
      printf_(pr, "^bb%zu", block_index(op->successors[i]));
    }
    puts_(pr, "]");
  }
  if (op->properties.count > 0) {
    puts_(pr, " <{");
    print_dict_body(pr, &op->properties);
    puts_(pr, "}>");
  }
  if (op->num_regions > 0) {
    puts_(pr, " (");
    for (size_t i = 0; i < op->num_regions; i++) {
      if (i) puts_(pr, ", ");
      print_region(pr, &op->regions[i], ind);
    }
    puts_(pr, ")");
  }
  if (op->attributes.count > 0) {
    puts_(pr, " {");
    print_dict_body(pr, &op->attributes);
    puts_(pr, "}");
  }
  puts_(pr, " : (");
  for (size_t i = 0; i < op->num_operand_types; i++) {
    if (i) puts_(pr, ", ");
    print_type(pr, op->operand_types[i]);
  }
  puts_(pr, ") -> ");
  int paren = op->num_results != 1 || (op->results[0]->type &&
                                       op->results[0]->type->kind == TQC_TYPE_FUNCTION);
  if (paren) puts_(pr, "(");
  for (size_t i = 0; i < op->num_results; i++) {
    if (i) puts_(pr, ", ");
    print_type(pr, op->results[i]->type);
  }
  if (paren) puts_(pr, ")");
  puts_(pr, " ");
  print_loc(pr, op->loc);
  puts_(pr, "\n");
}

tq_status_t tqc__print_string(tq_sv_t s, tq_buf_t *out) {
  static const char hex[] = "0123456789ABCDEF";
  TQ_TRY(tq_buf_putc(out, '"'));
  size_t run = 0;
  for (size_t i = 0; i < s.len; i++) {
    unsigned char c = (unsigned char)s.data[i];
    if (c >= 0x20 && c < 0x7F && c != '"' && c != '\\') continue;
    TQ_TRY(tq_buf_append(out, s.data + run, i - run));
    run = i + 1;
    if (c == '\\') {
      TQ_TRY(tq_buf_append_cstr(out, "\\\\"));
    } else {
      char e[3] = {'\\', hex[c >> 4], hex[c & 15]};
      TQ_TRY(tq_buf_append(out, e, 3));
    }
  }
  TQ_TRY(tq_buf_append(out, s.data + run, s.len - run));
  return tq_buf_putc(out, '"');
}

tq_status_t tqc__print_type(const tqc_type_t *type, tq_buf_t *out) {
  printer_t pr;
  memset(&pr, 0, sizeof(pr));
  pr.out = out;
  print_type(&pr, type);
  return pr.st;
}

tq_status_t tqc_module_print(const tqc_module_t *module, tq_buf_t *out) {
  printer_t pr;
  memset(&pr, 0, sizeof(pr));
  pr.out = out;
  size_t n = module->num_values ? module->num_values : 1;
  pr.num = tq_calloc(n, sizeof(*pr.num));
  pr.arg = tq_calloc(n, 1);
  if (!pr.num || !pr.arg) {
    tq_free(pr.num);
    tq_free(pr.arg);
    return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory printing %s", module->path);
  }
  const tqc_op_t *top = module->op;
  if (!number_regions(&pr, top)) {
    tq_free(pr.num);
    tq_free(pr.arg);
    return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory printing %s", module->path);
  }
  print_op(&pr, top, 0);
  if (module->metadata.len) {
    puts_(&pr, "\n");
    putsv(&pr, module->metadata);
    puts_(&pr, "\n");
  }
  tq_free(pr.num);
  tq_free(pr.arg);
  return pr.st;
}
