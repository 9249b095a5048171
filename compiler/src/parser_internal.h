/* The parser's shared state and helpers (private to compiler/src). The parser is split by
 * concept: parser.c (module, ops, regions, names), parse_custom.c and parse_linalg.c (custom op
 * forms),
 * parse_type.c, parse_attr.c (attributes and dense literals), parse_loc.c (locations). */
#ifndef TORQ_COMPILER_PARSER_INTERNAL_H
#define TORQ_COMPILER_PARSER_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "lexer.h"
#include "torq/base/status.h"
#include "torq/base/str.h"
#include "torq/compiler/ir.h"

/* ---- A string-keyed hash map (heap memory, open addressing) -------------------------------- */

typedef struct tqc_map_slot_s {
  tq_sv_t key;
  size_t value;
  int used;
} tqc_map_slot_t;

typedef struct tqc_map_s {
  tqc_map_slot_t *slots;
  size_t cap; /* power of two or 0 */
  size_t count;
} tqc_map_t;

void tqc__map_deinit(tqc_map_t *map);
/* The value slot of `key`, or NULL. */
size_t *tqc__map_find(const tqc_map_t *map, tq_sv_t key);
/* Inserts or replaces; the key's bytes must outlive the map. */
tq_status_t tqc__map_put(tqc_map_t *map, tq_sv_t key, size_t value) TQ_MUST_USE;

/* ---- Diagnostics ---------------------------------------------------------------------------- */

/* Makes the TQ_INVALID_INPUT status `path:line:col: error: message`, the source line and a caret
 * line. `text` is the whole source (for the line). */
tq_status_t tqc__diag(const char *path, const char *text, size_t text_len, uint32_t line,
                      uint32_t col, const char *fmt, ...) TQ_PRINTF(6, 7) TQ_MUST_USE;
tq_status_t tqc__diagv(const char *path, const char *text, size_t text_len, uint32_t line,
                       uint32_t col, const char *fmt, va_list ap) TQ_MUST_USE;

/* ---- The parser ----------------------------------------------------------------------------- */

/* An SSA value or block name visible in some scope. Entries form a stack; a popped scope drops
 * its entries and uncovers the ones they shadowed. */
typedef struct tqc_name_entry_s {
  size_t key;   /* index into the `names` map's value array (the head of this name) */
  size_t prev;  /* the entry this one shadows, or SIZE_MAX */
  size_t level; /* scope level */
  void *ptr;    /* tqc_value_t * or tqc_block_t * */
  int forward;  /* used before defined */
  tqc_srcpos_t pos; /* first use of a forward reference */
  tq_sv_t name;
} tqc_name_entry_t;

typedef struct tqc_scope_s {
  size_t entries_start;
  size_t barrier; /* lowest level whose names are visible here (isolated-from-above ops) */
} tqc_scope_t;

typedef struct tqc_parser_s {
  tqc_module_t *module;
  tq_arena_t *arena;
  const char *path;
  const char *text;
  size_t text_len;
  tqc_lexer_t lex;
  tqc_token_t tok; /* the current token; the lexer stands right after it */
  size_t max_nesting;
  size_t depth;

  /* SSA and block names: map from name text to an index into heads[]. */
  tqc_map_t names;
  size_t *heads; /* per key: the visible entry or SIZE_MAX */
  size_t num_heads, cap_heads;
  tqc_name_entry_t *entries;
  size_t num_entries, cap_entries;
  tqc_scope_t *scopes;
  size_t num_scopes, cap_scopes;

  tqc_map_t attr_aliases; /* #name -> const tqc_attr_t * */
  tqc_map_t type_aliases; /* !name -> const tqc_type_t * */
  tqc_map_t loc_aliases;  /* #name -> const tqc_loc_t * */
  tqc_loc_t **pending_locs; /* TQC_LOC_ALIAS placeholders to resolve after parsing */
  size_t num_pending_locs, cap_pending_locs;

  /* LIFO scratch for lists whose length is not known in advance (copied to the arena). */
  tq_buf_t scratch;

  const tqc_type_t *int_cache[65]; /* signless iN */
  const tqc_type_t *index_type, *none_type, *float_cache[4];
} tqc_parser_t;

/* Errors at a token or a position of the text. */
tq_status_t tqc__error_at(tqc_parser_t *p, uint32_t line, uint32_t col, const char *fmt, ...)
    TQ_PRINTF(4, 5) TQ_MUST_USE;
tq_status_t tqc__error(tqc_parser_t *p, const char *fmt, ...) TQ_PRINTF(2, 3) TQ_MUST_USE;
/* A dense constant of `count` elements of `elem_size` bytes, written at `at`: an error there when
 * it is larger than one buffer of a module may be (TQF_BUFFER_MAX_BYTES), checked before any of
 * it is built. */
tq_status_t tqc__check_constant_size(tqc_parser_t *p, tqc_srcpos_t at, const tqc_type_t *type,
                                     size_t count, size_t elem_size) TQ_MUST_USE;
/* "expected WHAT" at the current token (or the lexer's error for an invalid token). */
tq_status_t tqc__expected(tqc_parser_t *p, const char *what) TQ_MUST_USE;
/* A failed arena allocation: out of memory or past max_arena_bytes. */
tq_status_t tqc__nomem(tqc_parser_t *p) TQ_MUST_USE;

void tqc__advance(tqc_parser_t *p);
int tqc__is(const tqc_parser_t *p, tqc_tok_kind_t kind);
int tqc__is_keyword(const tqc_parser_t *p, const char *word);
int tqc__accept(tqc_parser_t *p, tqc_tok_kind_t kind);
int tqc__accept_keyword(tqc_parser_t *p, const char *word);
tq_status_t tqc__expect(tqc_parser_t *p, tqc_tok_kind_t kind, const char *what) TQ_MUST_USE;
/* The raw byte right after the current token (0 at the end), for adjacency checks. */
int tqc__next_char(const tqc_parser_t *p);

/* Nesting guard: every recursive parse function enters and leaves. */
tq_status_t tqc__enter(tqc_parser_t *p) TQ_MUST_USE;
static inline void tqc__leave(tqc_parser_t *p) { p->depth--; }

/* Arena helpers (NULL on failure; callers report tqc__nomem). */
void *tqc__alloc(tqc_parser_t *p, size_t size);
void *tqc__calloc(tqc_parser_t *p, size_t count, size_t size);
tq_sv_t tqc__strdup(tqc_parser_t *p, const char *s, size_t len); /* data NULL on failure */
/* A string token's decoded contents, in the arena. */
tq_status_t tqc__string_value(tqc_parser_t *p, const tqc_token_t *tok, tq_sv_t *out) TQ_MUST_USE;

/* Scratch: push `size` bytes; pop everything since `mark` into a fresh arena array. */
tq_status_t tqc__push(tqc_parser_t *p, const void *item, size_t size) TQ_MUST_USE;
tq_status_t tqc__pop_to_arena(tqc_parser_t *p, size_t mark, void **out, size_t *out_bytes)
    TQ_MUST_USE;

/* Types (parse_type.c). */
tq_status_t tqc__parse_type(tqc_parser_t *p, const tqc_type_t **out) TQ_MUST_USE;
/* A comma-separated type list, the parens already consumed by the caller or not. */
tq_status_t tqc__parse_function_type(tqc_parser_t *p, const tqc_type_t **out) TQ_MUST_USE;
const tqc_type_t *tqc__int_type(tqc_parser_t *p, uint32_t width, tqc_signedness_t sign);
const tqc_type_t *tqc__index_type(tqc_parser_t *p);
const tqc_type_t *tqc__float_type(tqc_parser_t *p, tqc_float_kind_t kind);
const tqc_type_t *tqc__make_function_type(tqc_parser_t *p, size_t num_inputs,
                                          const tqc_type_t *const *inputs, size_t num_results,
                                          const tqc_type_t *const *results);
/* Scans a balanced <...> starting at the lexer position (the byte after the current token) and
 * returns its end offset; used for verbatim dialect types and attributes. */
tq_status_t tqc__scan_balanced(tqc_parser_t *p, size_t *out_end) TQ_MUST_USE;

/* Attributes (parse_attr.c). `enum_op` non-NULL: a custom-form TOSA op, whose bare enum keywords
 * (rounding_mode = DOUBLE_ROUND) become dialect attributes. */
tq_status_t tqc__parse_attr(tqc_parser_t *p, const tqc_attr_t **out) TQ_MUST_USE;
tq_status_t tqc__parse_dict(tqc_parser_t *p, const char *enum_op, tqc_dict_t *out) TQ_MUST_USE;
/* The enum attributes of TOSA ops by key, with the dialect attribute MLIR 22 makes of them:
 * rounding_mode -> "tosa.rounding_mode", mode -> "tosa.resize_mode", nan_mode ->
 * "tosa.nan_mode"; NULL for any other key. */
const char *tqc__enum_attr_name(tq_sv_t key);
/* Sorts by name and rejects duplicates (reported at `at`). */
tq_status_t tqc__dict_finish(tqc_parser_t *p, tqc_named_attr_t *entries, size_t count,
                             tqc_srcpos_t at, tqc_dict_t *out) TQ_MUST_USE;
const tqc_attr_t *tqc__make_type_attr(tqc_parser_t *p, const tqc_type_t *type);
const tqc_attr_t *tqc__make_string_attr(tqc_parser_t *p, tq_sv_t s);
const tqc_attr_t *tqc__make_dialect_attr(tqc_parser_t *p, const char *name, tq_sv_t body);
const tqc_attr_t *tqc__make_array_attr(tqc_parser_t *p, size_t count,
                                       const tqc_attr_t *const *items);
const tqc_attr_t *tqc__make_dict_attr(tqc_parser_t *p, tqc_dict_t dict);
const tqc_attr_t *tqc__make_dense_array(tqc_parser_t *p, const tqc_type_t *element,
                                        const int64_t *values, size_t count);

/* Locations (parse_loc.c): `loc(...)` with the current token at `loc`. */
tq_status_t tqc__parse_loc(tqc_parser_t *p, const tqc_loc_t **out) TQ_MUST_USE;
/* The body of a location, inside loc(...). */
tq_status_t tqc__parse_loc_inner(tqc_parser_t *p, const tqc_loc_t **out) TQ_MUST_USE;
/* loc("path":line:col) for a position of the parsed text. */
const tqc_loc_t *tqc__make_file_loc(tqc_parser_t *p, uint32_t line, uint32_t col);
tq_status_t tqc__resolve_locs(tqc_parser_t *p) TQ_MUST_USE;

/* Names (parse_names.c). A scope for a region; `isolated`: names outside are not visible. */
tq_status_t tqc__push_scope(tqc_parser_t *p, int isolated) TQ_MUST_USE;
/* Drops the current scope's names, uncovering the ones they shadowed. */
void tqc__pop_scope(tqc_parser_t *p);
tqc_block_t *tqc__new_block(tqc_parser_t *p);
/* The block of a label `^name` used at the current token (a forward placeholder when not yet
 * defined); advances past it. */
tq_status_t tqc__parse_block_use(tqc_parser_t *p, tqc_block_t **out) TQ_MUST_USE;
/* Defines block label `name` (the current token, at `pos`) in the current scope: the forward
 * placeholder of that name, or a new block, in *out; an error for a second definition. *out is
 * NULL when no block could be had. */
tq_status_t tqc__define_block(tqc_parser_t *p, tq_sv_t name, tqc_srcpos_t pos,
                              tqc_block_t **out) TQ_MUST_USE;
tqc_value_t *tqc__new_value(tqc_parser_t *p);

/* Ops (parser.c, parse_custom.c). */
tqc_op_t *tqc__new_op(tqc_parser_t *p, const char *name, tqc_srcpos_t pos);
/* Resolves a use of `%name` (or `%name#N`) at the current token and advances past it. */
tq_status_t tqc__parse_value_use(tqc_parser_t *p, tqc_value_t **out_value,
                                 tqc_srcpos_t *out_pos) TQ_MUST_USE;
/* Defines a name in the current scope; a forward placeholder of that name becomes `*io_value`
 * (the placeholder object is returned in its place). */
tq_status_t tqc__define_value(tqc_parser_t *p, tq_sv_t name, tqc_srcpos_t pos,
                              tqc_value_t **io_value) TQ_MUST_USE;
/* A region `{ ... }`. `entry_args`: values for the entry block, named (value->name) where
 * `entry_pos` says (custom func.func), or NULL. `isolated`: names outside are not visible. */
tq_status_t tqc__parse_region(tqc_parser_t *p, tqc_op_t *parent, tqc_region_t *region,
                              tqc_value_t *const *entry_args, const tqc_srcpos_t *entry_pos,
                              size_t num_entry_args, int isolated) TQ_MUST_USE;
/* An operand as parsed: the value and where it was written. */
typedef struct tqc_operand_ref_s {
  tqc_value_t *value;
  tqc_srcpos_t pos;
} tqc_operand_ref_t;
tq_status_t tqc__set_operands(tqc_parser_t *p, tqc_op_t *op, const tqc_operand_ref_t *refs,
                              size_t count) TQ_MUST_USE;
/* Sets the declared operand types and makes the results from a function type. */
tq_status_t tqc__finish_op_types(tqc_parser_t *p, tqc_op_t *op, const tqc_type_t *fn) TQ_MUST_USE;
/* Parses a custom-form op whose name is the current token. */
tq_status_t tqc__parse_custom_op(tqc_parser_t *p, tqc_op_t **out) TQ_MUST_USE;
/* Custom-form helpers (parse_custom.c): `%a, %b` (possibly none) as the op's operands; the op's
 * type from its operand and result types (both copied); a property added to the op's sorted
 * properties. */
tq_status_t tqc__parse_operand_list(tqc_parser_t *p, tqc_op_t *op) TQ_MUST_USE;
tq_status_t tqc__set_op_types(tqc_parser_t *p, tqc_op_t *op, size_t num_inputs,
                              const tqc_type_t *const *inputs, size_t num_results,
                              const tqc_type_t *const *results) TQ_MUST_USE;
tq_status_t tqc__add_prop(tqc_parser_t *p, tqc_op_t *op, const char *name,
                          const tqc_attr_t *value) TQ_MUST_USE;
/* parse_linalg.c: the canonical name of an op whose custom form it parses (tensor.empty,
 * linalg.fill, linalg.matmul, linalg.generic, linalg.yield, the scalar arith and math ops of a
 * linalg body), else NULL; and the parse of that form after the op's name. */
const char *tqc__linalg_form_name(tq_sv_t name);
tq_status_t tqc__parse_linalg_form(tqc_parser_t *p, tqc_op_t *op) TQ_MUST_USE;
/* Splits a custom-form attribute dictionary into properties (inherent) and attributes, and adds
 * the defaults MLIR adds. */
tq_status_t tqc__split_inherent(tqc_parser_t *p, tqc_op_t *op, tqc_dict_t dict) TQ_MUST_USE;
tq_status_t tqc__add_default_attrs(tqc_parser_t *p, tqc_op_t *op) TQ_MUST_USE;
/* 1 for ops whose regions cannot see values defined outside them. */
int tqc__op_is_isolated(tq_sv_t name);

#endif
