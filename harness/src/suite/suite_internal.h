/* Private to suites and configuration: located error reporting (suite_diag.c), a YAML tree with
 * locations (yaml_doc.c), the settings that suites and configs share and ${VAR} (suite_schema.c),
 * and the suite loader's types (suite.c, suite_fields.c). */
#ifndef TORQ_HARNESS_SRC_SUITE_INTERNAL_H
#define TORQ_HARNESS_SRC_SUITE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "torq/base/arena.h"
#include "torq/base/status.h"
#include "torq/harness/config.h"
#include "torq/harness/suite.h"

/* ---- Located errors ------------------------------------------------------------------------ */

/* Where errors of one file go: the text is kept to show the line under each message. */
typedef struct tqh__report_s {
  const char *path; /* borrowed */
  const char *text; /* borrowed: the file's bytes, for the source lines */
  size_t len;
  tqh_diags_t errors; /* owned: errors only */
} tqh__report_t;

void tqh__report_init(tqh__report_t *rep, const char *path, const char *text, size_t len,
                      size_t max_errors);
void tqh__report_deinit(tqh__report_t *rep);

/* Adds an error at line:col (1-based; line 0: no place). Never fails: without memory the error
 * is only counted. */
void tqh__error(tqh__report_t *rep, uint32_t line, uint32_t col, const char *fmt, ...)
    TQ_PRINTF(4, 5);
/* The same with a note at a second place ("first defined here"). */
void tqh__error_note(tqh__report_t *rep, uint32_t line, uint32_t col, uint32_t note_line,
                     uint32_t note_col, const char *note, const char *fmt, ...) TQ_PRINTF(7, 8);

/* NULL when no error was reported; else TQ_INVALID_ARGUMENT holding every error's text, and
 * the errors are copied to `out` (if non-NULL). */
tq_status_t tqh__report_finish(tqh__report_t *rep, tqh_diags_t *out) TQ_MUST_USE;

/* ---- The YAML tree -------------------------------------------------------------------------- */

typedef enum tqh__ykind_e { TQH__Y_SCALAR, TQH__Y_SEQ, TQH__Y_MAP } tqh__ykind_t;

/* What a plain scalar resolves to (YAML 1.2 core schema); quoted scalars are strings. */
typedef enum tqh__yscalar_e {
  TQH__S_STRING,
  TQH__S_NULL,
  TQH__S_BOOL,
  TQH__S_INT,
  TQH__S_FLOAT,
} tqh__yscalar_t;

typedef struct tqh__ynode_s tqh__ynode_t;
struct tqh__ynode_s {
  tqh__ykind_t kind;
  tqh__yscalar_t scalar; /* SCALAR: its resolved type */
  int plain;             /* SCALAR: written without quotes (offsets into it are columns) */
  const char *str;       /* SCALAR: the value, NUL-terminated (may hold NULs: see len) */
  size_t len;
  size_t count;         /* SEQ: items; MAP: pairs */
  tqh__ynode_t **items; /* SEQ: the items; MAP: the values */
  tqh__ynode_t **keys;  /* MAP: the keys (scalars) */
  uint32_t line, col;   /* 1-based */
  size_t weight;        /* nodes under it, aliases expanded (bounded) */
};

/* Parses one YAML document into a tree in `arena`. Syntax errors (libyaml's), more than one
 * document, aliases to unknown or unfinished anchors, non-scalar or duplicate keys, nesting past
 * 256 levels and alias expansion past 100000 nodes are reported to `rep`; then NULL is returned.
 * An empty document gives NULL with an error "the file is empty". */
tqh__ynode_t *tqh__yaml_parse(tq_arena_t *arena, tqh__report_t *rep, const char *data, size_t len);

/* "a mapping", "a list", "a string", "null", "true", "an integer", "a number". */
const char *tqh__ydescribe(const tqh__ynode_t *node);

/* The value of `key` in a mapping, or NULL. The key node through out_key when non-NULL. */
const tqh__ynode_t *tqh__yget(const tqh__ynode_t *map, const char *key,
                              const tqh__ynode_t **out_key);

/* Reports every key of `map` that is not in `allowed` (NULL-terminated) as "unknown key "K" in
 * WHAT; allowed keys: ..." (with a "did you mean" for a near miss). Returns the number of
 * unknown keys. */
size_t tqh__ycheck_keys(tqh__report_t *rep, const tqh__ynode_t *map, const char *what,
                        const char *const *allowed);

/* Typed reads. Each reports "KEY: expected T, found D" at the node and returns 0 on a mismatch;
 * returns 1 and sets *out otherwise. Strings: any non-null, non-boolean scalar without NUL
 * bytes (a plain 12 is the string "12"); the result is borrowed from the tree. */
int tqh__ystr(tqh__report_t *rep, const tqh__ynode_t *node, const char *key, const char **out);
int tqh__ybool(tqh__report_t *rep, const tqh__ynode_t *node, const char *key, int *out);
/* An integer in [min, max]; out-of-range values say "KEY must be between ..." or ">= min". */
int tqh__yint(tqh__report_t *rep, const tqh__ynode_t *node, const char *key, int64_t min,
              int64_t max, int64_t *out);
int tqh__yu64(tqh__report_t *rep, const tqh__ynode_t *node, const char *key, uint64_t *out);
/* A finite number (integer or float) >= min; `exclusive` makes it > min. */
int tqh__ynum(tqh__report_t *rep, const tqh__ynode_t *node, const char *key, double min,
              int exclusive, double *out);

/* ---- Text values (YAML scalars, the environment, the command line) -------------------------- */

int tqh__parse_u64(const char *s, uint64_t *out);  /* decimal or 0x hex, no sign */
int tqh__parse_i64(const char *s, int64_t *out);   /* decimal or 0x hex, optional sign */
int tqh__parse_double(const char *s, double *out); /* finite */
int tqh__parse_bool(const char *s, int *out);      /* true/false (any case), yes/no, on/off, 1/0 */

/* A target or board name: [A-Za-z0-9_.-]+, at most 64 bytes. */
int tqh__target_name_valid(const char *name);

/* Checks one compile option; on error writes a message into msg and returns 0. */
int tqh__compile_option_check(const char *option, char *msg, size_t cap);

/* ---- Settings: the keys suites and configs share ------------------------------------------ */

/* The built-in defaults (static storage). */
void tqh__settings_builtin(tqh_settings_t *out);

/* `path` joined to `base` ("BASE/PATH", in the arena) when it is relative and `base` is neither
 * NULL nor "."; else `path` itself. NULL without memory (config.c). */
const char *tqh__path_against(tq_arena_t *arena, const char *base, const char *path);

/* tqh_config_load_dir with relative results_dir and cache_dir joined to `base_dir` (NULL: as
 * written) (config.c). */
tq_status_t tqh__config_load_dir_at(tqh_config_t *config, const char *dir, const char *base_dir,
                                    tqh_diags_t *errors) TQ_MUST_USE;

/* The YAML keys of settings: targets, repeat, warmup, timeout, reference, seed, compile_options,
 * function, baseline (NULL-terminated). */
extern const char *const tqh__settings_keys[];

/* Parses one settings key of a YAML mapping into `s` at `layer`, copying strings into `arena`.
 * Returns 0 when `key` is not a settings key; 1 when it is (errors, if any, reported). `env` is
 * for ${VAR} in compile options; NULL means the process environment. */
int tqh__settings_parse_key(tqh__report_t *rep, tq_arena_t *arena, const char *const *env,
                            const char *key, const tqh__ynode_t *value, tqh_layer_t layer,
                            tqh_settings_t *s);

/* The toolchain setting and golden outputs (suite_toolchain.c). `toolchain:` of a YAML mapping
 * and `golden:` of `reference:` (reported errors: 0); one setting from its text for
 * tqh_config_set (1 when `key` is one of toolchain, toolchain_compile, toolchain_run,
 * toolchain_annotate, with *out_status set on a bad value; else 0); the merge of setting `which`;
 * the lines of tqh_config_describe. */
int tqh__toolchain_parse(tqh__report_t *rep, tq_arena_t *arena, const char *const *env,
                         const tqh__ynode_t *value, tqh_layer_t layer, tqh_settings_t *s);
int tqh__golden_parse(tqh__report_t *rep, tq_arena_t *arena, const char *const *env,
                      const tqh__ynode_t *value, tqh_layer_t layer, tqh_settings_t *s);
int tqh__toolchain_set(tq_arena_t *arena, tqh_layer_t layer, const char *key, const char *value,
                       tqh_settings_t *s, tq_status_t *out_status);
void tqh__toolchain_merge(tqh_settings_t *dst, const tqh_settings_t *src, int which);
tq_status_t tqh__toolchain_describe(const tqh_settings_t *s, tq_buf_t *out) TQ_MUST_USE;

/* Substitutes ${NAME}, ${NAME:-DEFAULT} and $$ in the scalar `node` (or `text` when given).
 * Errors at the node: an unset variable without a default, a bad name, an unterminated ${.
 * Returns the new string in `arena`, or NULL after an error. */
const char *tqh__subst(tqh__report_t *rep, tq_arena_t *arena, const char *const *env,
                       const tqh__ynode_t *node, const char *text);

/* The value of an environment variable from `env` (NULL: the process environment). */
const char *tqh__getenv(const char *const *env, const char *name);


/* ---- The suite loader (suite.c) and the parsers of a test's keys (suite_fields.c) ---------- */

typedef enum tqh__model_form_e {
  TQH__MODEL_NONE,
  TQH__MODEL_PATH,
  TQH__MODEL_GLOB,
  TQH__MODEL_URL
} tqh__model_form_t;

typedef struct tqh__input_spec_s {
  tqh_input_t in;
  int has_seed;
} tqh__input_spec_t;

/* One entry of tests: (or defaults:) as written, before inheritance. */
typedef struct tqh__entry_s {
  const tqh__ynode_t *node;
  const char *name;
  const tqh__ynode_t *name_node;
  const char *description;
  tqh__model_form_t model_form;
  const char *model_text; /* path, pattern or URL after ${VAR} */
  const char *sha256;
  const tqh__ynode_t *model_node;
  int has_inputs, inputs_random, random_has_seed;
  uint64_t random_seed;
  tqh__input_spec_t *inputs;
  size_t input_count;
  tqh_settings_t settings;
  tqh_xfail_t xfail;
  const char *skip;
  int has_tags;
  const char **tags;
  size_t tag_count;
  int has_expect;
  tqh_expect_t *expects;
  size_t expect_count;
} tqh__entry_t;

/* A test name with its place, for the duplicate check. */
typedef struct tqh__named_s {
  const char *name;
  uint32_t line, col;
  size_t order;
} tqh__named_t;

typedef struct tqh__loader_s {
  tqh_suite_t *suite;
  tq_arena_t *arena;
  tqh__report_t *rep;
  const tqh_suite_options_t *opt;
  const char *file;
  tqh_settings_t base;
  tqh__entry_t defaults;
  tqh_test_t *tests; /* heap while loading */
  size_t count, cap;
  tqh__named_t *names; /* heap */
  size_t name_count, name_cap;
  int too_many;
} tqh__loader_t;

/* printf into the suite's arena; NULL (reported) when memory runs out. */
const char *tqh__arena_printf(tqh__loader_t *L, const char *fmt, ...) TQ_PRINTF(2, 3);
/* `path` resolved against the suite's folder. */
const char *tqh__resolve(tqh__loader_t *L, const char *path);
int tqh__is_regular_file(const char *path);
/* What keeps `path` from being read as a file: NULL when it is a regular file; otherwise "not
 * found", "a folder", "a FIFO (named pipe)", "a character device", ... or the error that stat
 * gave (static text). */
const char *tqh__file_problem(const char *path);

/* Each parses one key of a test (or of defaults:) into the entry, reporting errors. */
void tqh__parse_model(tqh__loader_t *L, tqh__entry_t *e, const tqh__ynode_t *v);
void tqh__parse_inputs(tqh__loader_t *L, tqh__entry_t *e, const tqh__ynode_t *v);
void tqh__parse_tags(tqh__loader_t *L, tqh__entry_t *e, const tqh__ynode_t *v);
void tqh__parse_expect(tqh__loader_t *L, tqh__entry_t *e, const tqh__ynode_t *v);
void tqh__parse_xfail(tqh__loader_t *L, tqh__entry_t *e, const tqh__ynode_t *v);
void tqh__parse_skip(tqh__loader_t *L, tqh__entry_t *e, const tqh__ynode_t *v);

#endif
