/* The MLIR front end of libtorq-compiler: parse, verify and print MLIR modules as MLIR tools
 * write them (custom and generic op forms).
 *
 * A module owns all of its IR in one arena; tqc_module_destroy() frees it in one call. The IR
 * itself is described in torq/compiler/ir.h.
 *
 * Errors from the parser and verifier are TQ_INVALID_INPUT statuses whose message is a complete
 * compiler-style diagnostic:
 *
 *     path:line:col: error: message
 *     <the source line>
 *          ^
 *
 * A file that cannot be read gives TQ_NOT_FOUND / TQ_INVALID_ARGUMENT / TQ_IO naming the path.
 */
#ifndef TORQ_COMPILER_MLIR_H
#define TORQ_COMPILER_MLIR_H

#include <stddef.h>

#include "torq/base/status.h"
#include "torq/base/str.h"

typedef struct tqc_module_s tqc_module_t;

/* Limits that keep a hostile input from exhausting the process. */
typedef struct tqc_parse_options_s {
  size_t max_file_size;   /* bytes; default 256 MiB */
  size_t max_nesting;     /* regions, brackets, attributes; default 1000 */
  size_t max_arena_bytes; /* IR memory; default 4 GiB */
} tqc_parse_options_t;

/* Fills `options` with the defaults. */
void tqc_parse_options_initialize(tqc_parse_options_t *options);

/* Parses `len` bytes of MLIR text. `path` names the text in diagnostics and in the locations of
 * ops that have no explicit loc(...). `options` may be NULL (defaults). The text is copied where
 * needed; it need not outlive the module. On success *out_module is owned by the caller. */
tq_status_t tqc_module_parse(const char *path, const char *text, size_t len,
                             const tqc_parse_options_t *options,
                             tqc_module_t **out_module) TQ_MUST_USE;

/* Reads and parses a file. */
tq_status_t tqc_module_parse_file(const char *path, const tqc_parse_options_t *options,
                                  tqc_module_t **out_module) TQ_MUST_USE;

/* Checks what the parser alone cannot: every value defined before use (and once), operand and
 * result counts and types consistent with each op's declared type and with the enclosing
 * function's signature. */
tq_status_t tqc_module_verify(const tqc_module_t *module) TQ_MUST_USE;

/* Appends the module in MLIR generic form, with locations, to `out`. The text is valid MLIR
 * (mlir-opt accepts it) and parsing it again prints the same text. */
tq_status_t tqc_module_print(const tqc_module_t *module, tq_buf_t *out) TQ_MUST_USE;

/* Frees the module; accepts NULL. */
void tqc_module_destroy(tqc_module_t *module);

#endif
