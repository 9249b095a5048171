/* JSON for the harness's files (component common/, harness/src/common/): a small reader (the
 * debug info's manifest.json, journal lines, run.json) and a small writer (report.json, journal
 * lines, run.json), and the UTF-8 decoder that the writers of text formats share.
 *
 * Not a general-purpose library: the reader has no streaming and no duplicate-key policy (the
 * first key wins in tqh_json_get); the writer writes one value into a buffer.
 */
#ifndef TORQ_HARNESS_JSON_H
#define TORQ_HARNESS_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "torq/base/arena.h"
#include "torq/base/status.h"
#include "torq/base/str.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Reading: RFC 8259 values, \u escapes (surrogate pairs combined), numbers as doubles ---- */

typedef enum tqh_json_kind_e {
  TQH_JSON_NULL,
  TQH_JSON_BOOL,
  TQH_JSON_NUMBER,
  TQH_JSON_STRING,
  TQH_JSON_ARRAY,
  TQH_JSON_OBJECT,
} tqh_json_kind_t;

typedef struct tqh_json_s tqh_json_t;
struct tqh_json_s {
  tqh_json_kind_t kind;
  int boolean;
  double number;
  const char *string; /* NUL-terminated, in the arena (may hold NULs of its own: see len) */
  size_t len;         /* string length; items of an array or object */
  tqh_json_t **items;
  const char **keys; /* objects: one per item */
  uint32_t line, col;
};

/* Parses `text` (named `path` in errors) into a tree in `arena` (which owns every node and
 * string). Errors: TQ_INVALID_INPUT "path:line:col: error: ..."; TQ_LIMIT past 64 levels of
 * nesting. */
tq_status_t tqh_json_parse(tq_arena_t *arena, const char *path, const char *text, size_t len,
                           tqh_json_t **out_value) TQ_MUST_USE;

/* A member of an object by key, or NULL (also when `object` is not an object). */
const tqh_json_t *tqh_json_get(const tqh_json_t *object, const char *key);

/* ---- Writing ---------------------------------------------------------------------------------
 * Calls append to `out`; the first error sticks and later calls do nothing, so a writer is used
 * without checking every call and tqh_jw_finish returns the error. Strings are escaped per RFC
 * 8259 (malformed UTF-8 becomes U+FFFD, so the output is always valid JSON); numbers use the
 * shortest of %.15g/%.17g that reads back exactly; non-finite numbers are written as null. With
 * `pretty`, objects and arrays are indented by two spaces per level. */
#define TQH_JW_MAX_DEPTH 32

typedef struct tqh_jw_s {
  tq_buf_t *out; /* borrowed */
  int pretty;
  int depth;
  int count[TQH_JW_MAX_DEPTH]; /* values written at each level */
  int after_key;
  tq_status_t error; /* owned until tqh_jw_finish */
} tqh_jw_t;

void tqh_jw_init(tqh_jw_t *w, tq_buf_t *out, int pretty);
void tqh_jw_object_begin(tqh_jw_t *w);
void tqh_jw_object_end(tqh_jw_t *w);
void tqh_jw_array_begin(tqh_jw_t *w);
void tqh_jw_array_end(tqh_jw_t *w);
void tqh_jw_key(tqh_jw_t *w, const char *key);
void tqh_jw_string(tqh_jw_t *w, const char *s); /* NULL writes null */
void tqh_jw_stringn(tqh_jw_t *w, const char *s, size_t len);
void tqh_jw_number(tqh_jw_t *w, double v);
void tqh_jw_uint(tqh_jw_t *w, uint64_t v);
void tqh_jw_bool(tqh_jw_t *w, int v);
void tqh_jw_null(tqh_jw_t *w);
void tqh_jw_raw(tqh_jw_t *w, const char *json, size_t len); /* an already valid JSON value */
void tqh_jw_value(tqh_jw_t *w, const tqh_json_t *v); /* a value read by tqh_json_parse, again */
/* Returns the sticky error (or TQ_INTERNAL for unbalanced nesting); the writer is done. */
tq_status_t tqh_jw_finish(tqh_jw_t *w) TQ_MUST_USE;

/* Appends `v` formatted as the writer does, to other text formats. */
tq_status_t tqh_format_double(tq_buf_t *out, double v) TQ_MUST_USE;
/* Appends `v` as printf's "%.{decimals}f" writes it (decimals <= 9: the seconds of the reports). */
tq_status_t tqh_format_fixed(tq_buf_t *out, double v, int decimals) TQ_MUST_USE;

/* ---- UTF-8 ---------------------------------------------------------------------------------- */

/* Decodes one well-formed UTF-8 sequence (no overlongs, no surrogates, <= U+10FFFF) at `s`
 * (`len` > 0 bytes available). Returns its length and sets *out_cp, or 0 when malformed. */
size_t tqh_utf8_decode(const unsigned char *s, size_t len, uint32_t *out_cp);

#ifdef __cplusplus
}
#endif
#endif
