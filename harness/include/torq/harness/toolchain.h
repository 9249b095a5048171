/* The Torq toolchain's external programs (component execute/, harness/src/execute/): what one
 * is (its path, SHA-256 and `--version`), for the compile cache's key and the provenance that
 * run.json and report.json record. The setting itself (`toolchain:`) is config.h's tqh_tool_t.
 */
#ifndef TORQ_HARNESS_TOOLCHAIN_H
#define TORQ_HARNESS_TOOLCHAIN_H

#include "torq/base/sha256.h"
#include "torq/base/status.h"
#include "torq/base/str.h"
#include "torq/harness/config.h"

#ifdef __cplusplus
extern "C" {
#endif

/* "torq-compile", "torq-run-module", "annotator": the role's name in messages. */
const char *tqh_tool_role_name(tqh_tool_role_t role);

/* 1 when the settings name an external toolchain (a compile program). */
int tqh_toolchain_is_external(const tqh_settings_t *settings);

typedef struct tqh_tool_identity_s {
  char *path;    /* argv[0] as found (through $PATH when it holds no '/'); NULL: not found */
  char *error;   /* why the program cannot run (not found, not executable), or NULL */
  char *version; /* the first line `ARGV... --version` printed, or "unknown (...)" */
  /* SHA-256 of the program's file; with arguments that name files (a script an interpreter
   * runs), of the lines "HEX  NAME\n" of the program and of each such file. "" when not found. */
  char sha256[TQ_SHA256_HEX_SIZE];
} tqh_tool_identity_t;

/* Finds and identifies `tool` (argc >= 1) into `out` (owned by the caller:
 * tqh_tool_identity_deinit). Remembered per process for as long as the program's file is the
 * same (device, inode, size, modification time). A program not found is not an error of this
 * call (out->error). Errors: TQ_OUT_OF_MEMORY, TQ_IO. */
tq_status_t tqh_tool_identify(const tqh_tool_t *tool, tqh_tool_identity_t *out) TQ_MUST_USE;
void tqh_tool_identity_deinit(tqh_tool_identity_t *id);

/* Appends "PATH (sha256 HEX, version TEXT)" (or "PATH: ERROR") to `out`. */
tq_status_t tqh_tool_identity_format(const tqh_tool_identity_t *id, tq_buf_t *out) TQ_MUST_USE;

#ifdef __cplusplus
}
#endif
#endif
