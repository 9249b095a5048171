/* The IR of libtorq-compiler: an MLIR module as the parser builds it.
 *
 * Ownership: every object below (types, attributes, locations, values, ops, blocks, regions, and
 * every string they point to) lives in the arena of the module that holds it and is freed by
 * tqc_module_destroy(). Pointers into a module are borrowed and valid until then. Users treat the
 * IR as read-only.
 *
 * Shape of the IR: a module holds one `builtin.module` op. An op has operands (values), results
 * (values), a properties dictionary (MLIR's inherent attributes, `<{...}>`), a dictionary of
 * discardable attributes (`{...}`), regions, successors and a location. A region holds blocks; a
 * block holds typed arguments (values with their own locations) and a list of ops.
 *
 * Strings are tq_sv_t views into the arena; each is also NUL-terminated there, so `.data` may be
 * passed where a C string is expected (a string attribute may hold NULs of its own).
 */
#ifndef TORQ_COMPILER_IR_H
#define TORQ_COMPILER_IR_H

#include <stddef.h>
#include <stdint.h>

#include "torq/base/arena.h"
#include "torq/base/str.h"
#include "torq/compiler/mlir.h"

typedef struct tqc_type_s tqc_type_t;
typedef struct tqc_attr_s tqc_attr_t;
typedef struct tqc_loc_s tqc_loc_t;
typedef struct tqc_value_s tqc_value_t;
typedef struct tqc_op_s tqc_op_t;
typedef struct tqc_block_s tqc_block_t;
typedef struct tqc_region_s tqc_region_t;

/* ---- Types ---------------------------------------------------------------------------------- */

/* A dynamic tensor dimension (`?`), as MLIR's ShapedType::kDynamic. */
#define TQC_DYNAMIC INT64_MIN

typedef enum tqc_type_kind_e {
  TQC_TYPE_INTEGER,  /* iN, siN, uiN */
  TQC_TYPE_INDEX,    /* index */
  TQC_TYPE_FLOAT,    /* bf16, f16, f32, f64 */
  TQC_TYPE_NONE,     /* none */
  TQC_TYPE_TENSOR,   /* tensor<AxBx?xT>, tensor<*xT> */
  TQC_TYPE_SHAPE,    /* !tosa.shape<N> */
  TQC_TYPE_FUNCTION, /* (A, B) -> (C) */
  TQC_TYPE_OPAQUE,   /* any other !dialect.type, kept verbatim */
} tqc_type_kind_t;

typedef enum tqc_signedness_e { TQC_SIGNLESS, TQC_SIGNED, TQC_UNSIGNED } tqc_signedness_t;

typedef enum tqc_float_kind_e { TQC_BF16, TQC_F16, TQC_F32, TQC_F64 } tqc_float_kind_t;

struct tqc_type_s {
  tqc_type_kind_t kind;
  union {
    struct {
      uint32_t width; /* 1..64 */
      tqc_signedness_t signedness;
    } integer;
    struct {
      tqc_float_kind_t fkind;
      uint32_t width; /* 16, 32 or 64 */
    } flt;
    struct {
      int ranked;          /* 0 for tensor<*xT> */
      size_t rank;         /* number of dims when ranked */
      const int64_t *dims; /* rank entries, >= 0 or TQC_DYNAMIC */
      const tqc_type_t *element;
      const tqc_attr_t *encoding; /* NULL when absent */
    } tensor;
    struct {
      size_t rank;
    } shape;
    struct {
      size_t num_inputs;
      const tqc_type_t *const *inputs;
      size_t num_results;
      const tqc_type_t *const *results;
    } function;
    struct {
      tq_sv_t text; /* the whole type as written, with its leading '!' */
    } opaque;
  };
};

/* Structural equality (opaque types compare by text). NULL equals only NULL. */
int tqc_type_equal(const tqc_type_t *a, const tqc_type_t *b);

/* 1 for integer, index, float types. */
int tqc_type_is_scalar(const tqc_type_t *type);

/* Bits of a scalar type (index: 64); 0 for anything else. */
uint32_t tqc_type_bit_width(const tqc_type_t *type);

/* Bytes one element of a scalar type takes in dense storage: i1 takes one byte, bf16 two, index
 * eight; 0 for anything else. */
size_t tqc_type_storage_size(const tqc_type_t *type);

/* Number of elements of a ranked, static tensor type (1 for a rank-0 tensor, the scalar itself
 * for a scalar type). Returns 1 and stores it, or 0 when the type is unranked, dynamic, not a
 * tensor/scalar, or the product overflows size_t. */
int tqc_type_element_count(const tqc_type_t *type, size_t *out_count);

/* Bytes of dense storage of a tensor type (elements * storage size), with the same failures as
 * tqc_type_element_count. */
int tqc_type_byte_size(const tqc_type_t *type, size_t *out_size);

/* ---- Attributes ----------------------------------------------------------------------------- */

typedef enum tqc_attr_kind_e {
  TQC_ATTR_INTEGER,     /* 5 : i32 */
  TQC_ATTR_FLOAT,       /* 1.5 : f32 */
  TQC_ATTR_BOOL,        /* true, false (an i1 integer in MLIR) */
  TQC_ATTR_UNIT,        /* unit, or a dictionary key without value */
  TQC_ATTR_STRING,      /* "..." */
  TQC_ATTR_TYPE,        /* a type used as an attribute: acc_type = i32 */
  TQC_ATTR_ARRAY,       /* [a, b] */
  TQC_ATTR_DICT,        /* {a = 1, b} */
  TQC_ATTR_DENSE,       /* dense<...> : tensor<...> */
  TQC_ATTR_DENSE_ARRAY, /* array<i64: 1, 2> */
  TQC_ATTR_SYMBOL_REF,  /* @a::@b */
  TQC_ATTR_DIALECT,     /* #tosa.rounding_mode<DOUBLE_ROUND>, #tosa.pad_quant<...> */
  TQC_ATTR_OPAQUE,      /* affine_map<...> and other builtin forms kept as text */
} tqc_attr_kind_t;

typedef struct tqc_named_attr_s {
  tq_sv_t name;
  const tqc_attr_t *value;
} tqc_named_attr_t;

/* A dictionary, sorted by name (bytewise) with unique names, as MLIR keeps it. */
typedef struct tqc_dict_s {
  size_t count;
  const tqc_named_attr_t *entries;
} tqc_dict_t;

struct tqc_attr_s {
  tqc_attr_kind_t kind;
  union {
    struct {
      const tqc_type_t *type; /* integer or index type */
      int64_t value;          /* sign-extended (signless, signed) or zero-extended (unsigned) */
    } integer;
    struct {
      const tqc_type_t *type; /* float type */
      double value;           /* exact value of `bits` */
      uint64_t bits;          /* the value in the type's own format */
    } flt;
    int boolean;
    tq_sv_t string; /* decoded bytes */
    const tqc_type_t *type;
    struct {
      size_t count;
      const tqc_attr_t *const *items;
    } array;
    tqc_dict_t dict;
    struct {
      const tqc_type_t *type; /* the tensor type (static shape) */
      int splat;              /* 1: data holds one element that fills the tensor */
      size_t count;           /* elements of the tensor type */
      size_t elem_size;       /* tqc_type_storage_size of the element type */
      const uint8_t *data;    /* elem_size bytes when splat, else count * elem_size; little
                                 endian; i1 one byte (0/1) per element, floats as bit patterns */
      size_t size;            /* bytes in data */
    } dense;
    struct {
      const tqc_type_t *element; /* integer or float type */
      size_t count;
      const uint8_t *data; /* count * storage size bytes, as for dense */
    } dense_array;
    struct {
      size_t count;         /* >= 1: the root and nested references */
      const tq_sv_t *names; /* without '@' */
    } symbol_ref;
    struct {
      tq_sv_t name; /* "tosa.rounding_mode" */
      tq_sv_t body; /* "DOUBLE_ROUND": the text between the outer <>; empty when none */
      tq_sv_t text; /* "#tosa.rounding_mode<DOUBLE_ROUND>", verbatim */
    } dialect;
    struct {
      tq_sv_t text; /* verbatim */
    } opaque;
  };
};

/* Looks a name up in a dictionary; NULL when absent. */
const tqc_attr_t *tqc_dict_get(const tqc_dict_t *dict, const char *name);

/* The element `index` of a dense attribute (splats repeat their one element), read as an integer
 * (sign- or zero-extended by the element type; i1 is 0/1) or as a double (floats exactly; integers
 * converted). `index` must be < count. */
int64_t tqc_dense_get_int(const tqc_attr_t *dense, size_t index);
double tqc_dense_get_float(const tqc_attr_t *dense, size_t index);

/* The raw bits of element `index` of a dense attribute (splats repeat their one element), as
 * stored: little-endian, the low tqc_type_storage_size bytes. `index` must be < count. */
uint64_t tqc_dense_get_bits(const tqc_attr_t *dense, size_t index);

/* The element `index` of a dense array attribute (`array<i64: 1, 2>`): its raw bits as
 * tqc_dense_get_bits, or read as an integer as tqc_dense_get_int does. `index` must be < count. */
uint64_t tqc_dense_array_get_bits(const tqc_attr_t *array, size_t index);
int64_t tqc_dense_array_get_int(const tqc_attr_t *array, size_t index);

/* The body of a dialect attribute named `name` (e.g. "tosa.rounding_mode"), or an empty view with
 * NULL data when `attr` is NULL or something else. */
tq_sv_t tqc_attr_dialect_body(const tqc_attr_t *attr, const char *name);

/* Float encodings: the exact value of `bits` in format `kind`, and the nearest value of `value`
 * in that format (round to nearest even, overflow to infinity, NaN stays NaN). */
double tqc_float_decode(tqc_float_kind_t kind, uint64_t bits);
uint64_t tqc_float_encode(tqc_float_kind_t kind, double value);

/* ---- Locations ------------------------------------------------------------------------------ */

typedef enum tqc_loc_kind_e {
  TQC_LOC_UNKNOWN,  /* loc(unknown) */
  TQC_LOC_FILE,     /* loc("file":line:col) */
  TQC_LOC_NAME,     /* loc("name") or loc("name"(child)) */
  TQC_LOC_CALLSITE, /* loc(callsite(callee at caller)) */
  TQC_LOC_FUSED,    /* loc(fused[a, b]) or loc(fused<#meta>[a, b]) */
  TQC_LOC_ALIAS,    /* loc(#name): only while parsing; a parsed module holds none */
} tqc_loc_kind_t;

struct tqc_loc_s {
  tqc_loc_kind_t kind;
  union {
    struct {
      tq_sv_t file;
      uint32_t line, col;
    } file;
    struct {
      tq_sv_t name;
      const tqc_loc_t *child; /* NULL when absent */
    } name;
    struct {
      const tqc_loc_t *callee, *caller;
    } callsite;
    struct {
      size_t count;
      const tqc_loc_t *const *locs;
      const tqc_attr_t *metadata; /* NULL when absent */
    } fused;
    struct {
      tq_sv_t name;       /* with the '#' */
      uint32_t line, col; /* where the reference was written */
    } alias;
  };
};

/* ---- Values, ops, blocks, regions ----------------------------------------------------------- */

/* A position in the parsed text, 1-based (columns in bytes). */
typedef struct tqc_srcpos_s {
  uint32_t line, col;
} tqc_srcpos_t;

struct tqc_value_s {
  const tqc_type_t *type; /* NULL only for a value used but never defined (see the verifier) */
  tqc_op_t *def;          /* defining op; NULL for block arguments and undefined values */
  tqc_block_t *block;     /* owning block of a block argument; NULL otherwise */
  size_t index;           /* result or argument number */
  const tqc_loc_t *loc;   /* block arguments: their location; NULL for results */
  size_t id;              /* unique in the module, from 0 to module->num_values - 1 */
  tq_sv_t name;           /* the name in the parsed text ("%0", "%arg1"), for diagnostics */
  tqc_srcpos_t pos;       /* where it was defined (or first used, if never defined) */
  tqc_srcpos_t type_pos;  /* block arguments: where their type was written (0:0 if unknown) */
};

struct tqc_op_s {
  tq_sv_t name; /* "tosa.add" */
  size_t num_operands;
  tqc_value_t *const *operands;
  const tqc_srcpos_t *operand_pos; /* where each operand was written */
  size_t num_operand_types;        /* declared operand types (the op's written type) */
  const tqc_type_t *const *operand_types;
  size_t num_results; /* one per declared result type */
  tqc_value_t *const *results;
  size_t num_bound_results; /* results named in the text (`%0:2 =`); 0 when none were */
  size_t num_successors;
  tqc_block_t *const *successors;
  tqc_dict_t properties; /* inherent attributes, <{...}> */
  tqc_dict_t attributes; /* discardable attributes, {...} */
  size_t num_regions;
  tqc_region_t *regions;
  const tqc_loc_t *loc;
  tqc_srcpos_t pos; /* where the op's name was written */
  tqc_block_t *parent;
  tqc_op_t *next; /* next op in the parent block */
};

struct tqc_block_s {
  tqc_region_t *parent;
  size_t num_args;
  tqc_value_t *const *args;
  tqc_op_t *first, *last;
  size_t num_ops;
};

struct tqc_region_s {
  tqc_op_t *parent;
  size_t num_blocks;
  tqc_block_t *const *blocks;
};

/* A parsed module. Read-only for users. */
struct tqc_module_s {
  tq_arena_t arena;
  tqc_op_t *op;       /* the builtin.module op */
  const char *path;   /* as given to the parser */
  const char *text;   /* a copy of the parsed text, for diagnostics */
  size_t text_len;
  size_t num_values;
  tq_sv_t metadata;   /* a `{-# ... #-}` block, verbatim (empty when none) */
};

/* The module's top-level op (builtin.module). */
const tqc_op_t *tqc_module_op(const tqc_module_t *module);

/* 1 when the op is named `name`. */
int tqc_op_is(const tqc_op_t *op, const char *name);

/* An attribute of `op` by name, from its properties or else its discardable attributes. */
const tqc_attr_t *tqc_op_attr(const tqc_op_t *op, const char *name);

/* The name of the property that holds a constant op's value: "values" for tosa.const and
 * tosa.const_shape, "value" for arith.constant; NULL for any other op. The one place that says
 * which ops are constants. */
const char *tqc_op_const_attr_name(const tqc_op_t *op);

/* The dense value of `value` when a constant op (see tqc_op_const_attr_name) defines it, looked up
 * with tqc_op_attr; NULL when `value` is NULL, has no defining op, is defined by another op, or
 * the constant's value is not a dense attribute. Borrowed from the module. */
const tqc_attr_t *tqc_value_const_dense(const tqc_value_t *value);

/* A func.func directly inside the module by symbol name; NULL when absent. */
const tqc_op_t *tqc_module_lookup_func(const tqc_module_t *module, const char *name);

/* The entry point: @main, else the first public func.func with a body; NULL when none. */
const tqc_op_t *tqc_module_entry(const tqc_module_t *module);

/* The function type of a func.func (its function_type property), or NULL. */
const tqc_type_t *tqc_func_type(const tqc_op_t *func);

/* The symbol name of an op (its sym_name property), or an empty view. */
tq_sv_t tqc_op_sym_name(const tqc_op_t *op);

/* The first `loc("file":line:col)` inside `loc` (itself, or through names, callsites (the callee)
 * and fused locations, in order), or NULL when it holds none. Borrowed from the module. */
const tqc_loc_t *tqc_loc_first_file(const tqc_loc_t *loc);

#endif
