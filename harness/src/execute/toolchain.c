/* The external toolchain's programs (toolchain.h): found through $PATH, hashed, asked for their
 * `--version`, remembered per process while their files stay the same. */
#include "torq/harness/toolchain.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "torq/base/alloc.h"
#include "torq/harness/subprocess.h"

/* Seconds `--version` may take. */
#define VERSION_TIMEOUT_S 30.0

const char *tqh_tool_role_name(tqh_tool_role_t role) {
  switch (role) {
    case TQH_TOOL_COMPILE:
      return "torq-compile";
    case TQH_TOOL_RUN:
      return "torq-run-module";
    default:
      return "annotator";
  }
}

int tqh_toolchain_is_external(const tqh_settings_t *s) {
  return s->tools[TQH_TOOL_COMPILE].argc > 0;
}

void tqh_tool_identity_deinit(tqh_tool_identity_t *id) {
  tq_free(id->path);
  tq_free(id->error);
  tq_free(id->version);
  memset(id, 0, sizeof(*id));
}

static char *dup_cstr(const char *s) {
  return tq_strndup(s, strlen(s));
}

/* The program file of `name`: itself when it holds a '/', else the first executable in $PATH. */
static char *find_program(const char *name) {
  if (strchr(name, '/')) return dup_cstr(name);
  const char *path = getenv("PATH");
  if (!path || !*path) path = "/usr/local/bin:/usr/bin:/bin";
  for (const char *p = path; *p;) {
    size_t n = strcspn(p, ":");
    char *cand = tq_strdup_printf("%.*s/%s", (int)n, n ? p : ".", name);
    struct stat sb;
    if (cand && stat(cand, &sb) == 0 && S_ISREG(sb.st_mode) && access(cand, X_OK) == 0) return cand;
    tq_free(cand);
    p += n;
    if (*p == ':') p++;
  }
  return NULL;
}

/* ---- The per-process memory ----------------------------------------------------------------- */

typedef struct memo_s {
  char *argv_key; /* the argv, NUL-separated, as text */
  struct stat sb;
  tqh_tool_identity_t id;
} memo_t;

static memo_t g_memo[8];
static size_t g_memo_next;

static int same_file(const struct stat *a, const struct stat *b) {
  return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
         a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

static tq_status_t copy_identity(const tqh_tool_identity_t *from, tqh_tool_identity_t *to) {
  memset(to, 0, sizeof(*to));
  memcpy(to->sha256, from->sha256, sizeof(to->sha256));
  if ((from->path && !(to->path = dup_cstr(from->path))) ||
      (from->error && !(to->error = dup_cstr(from->error))) ||
      (from->version && !(to->version = dup_cstr(from->version)))) {
    tqh_tool_identity_deinit(to);
    return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  }
  return NULL;
}

/* ---- Identify -------------------------------------------------------------------------------- */

static tq_status_t hash_files(const tqh_tool_t *tool, const char *program, char out[65]) {
  uint8_t digest[TQ_SHA256_SIZE];
  char hex[TQ_SHA256_HEX_SIZE];
  TQ_TRY(tq_sha256_file(program, digest));
  tq_sha256_hex(digest, out);
  tq_buf_t lines;
  tq_buf_init(&lines, 0);
  tq_status_t st = tq_buf_printf(&lines, "%s  %s\n", out, tool->argv[0]);
  size_t files = 0;
  for (size_t i = 1; !st && i < tool->argc; i++) {
    struct stat sb;
    if (stat(tool->argv[i], &sb) != 0 || !S_ISREG(sb.st_mode)) continue;
    st = tq_sha256_file(tool->argv[i], digest);
    if (!st) tq_sha256_hex(digest, hex);
    if (!st) st = tq_buf_printf(&lines, "%s  %s\n", hex, tool->argv[i]);
    files++;
  }
  if (!st && files) st = tq_sha256(lines.data, lines.len, digest);
  if (!st && files) tq_sha256_hex(digest, out);
  tq_buf_deinit(&lines);
  return st;
}

static tq_status_t ask_version(const tqh_tool_t *tool, tqh_tool_identity_t *id) {
  const char **argv = tq_calloc(tool->argc + 2, sizeof(*argv));
  if (!argv) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  for (size_t i = 0; i < tool->argc; i++) argv[i] = tool->argv[i];
  argv[tool->argc] = "--version";
  tqh_subprocess_options_t o;
  tqh_subprocess_options_initialize(&o);
  o.timeout_s = VERSION_TIMEOUT_S;
  o.output_limit = 64 << 10;
  tqh_subprocess_result_t res;
  tqh_subprocess_result_init(&res);
  tq_status_t st = tqh_subprocess_run(argv, &o, &res);
  tq_free(argv);
  if (!st) {
    char line[256];
    const tq_buf_t *b = res.out.len ? &res.out : &res.err;
    /* the first line */
    size_t n = 0;
    const char *text = b->data ? b->data : "";
    while (n < b->len && text[n] != '\n' && n < sizeof(line) - 1) n++;
    memcpy(line, text, n);
    line[n] = 0;
    if (res.start_errno)
      id->version = tq_strdup_printf("unknown (cannot start: %s)", strerror(res.start_errno));
    else if (res.timed_out || res.signal || res.exit_status)
      id->version = tq_strdup_printf("unknown (--version: %s %d)",
                                     res.timed_out ? "timed out after"
                                     : res.signal  ? "signal"
                                                   : "exit status",
                                     res.timed_out ? (int)VERSION_TIMEOUT_S
                                     : res.signal  ? res.signal
                                                   : res.exit_status);
    else
      id->version = tq_strdup_printf("%s", n ? line : "unknown (--version printed nothing)");
    if (!id->version) st = TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  }
  tqh_subprocess_result_deinit(&res);
  return st;
}

tq_status_t tqh_tool_identify(const tqh_tool_t *tool, tqh_tool_identity_t *out) {
  memset(out, 0, sizeof(*out));
  tq_buf_t key;
  tq_buf_init(&key, 0);
  tq_status_t st = NULL;
  for (size_t i = 0; !st && i < tool->argc; i++)
    st = tq_buf_append(&key, tool->argv[i], strlen(tool->argv[i]) + 1);
  char *program = st ? NULL : find_program(tool->argv[0]);
  struct stat sb;
  memset(&sb, 0, sizeof(sb));
  int found = program && stat(program, &sb) == 0;
  if (!st && found) {
    for (size_t m = 0; m < sizeof(g_memo) / sizeof(g_memo[0]); m++) {
      memo_t *e = &g_memo[m];
      if (e->argv_key && !memcmp(e->argv_key, key.data, key.len) && same_file(&e->sb, &sb)) {
        st = copy_identity(&e->id, out);
        tq_free(program);
        tq_buf_deinit(&key);
        return st;
      }
    }
  }
  if (!st && !found) {
    out->error =
        tq_strdup_printf("%s: %s", tool->argv[0],
                         strchr(tool->argv[0], '/') ? strerror(errno) : "not found in $PATH");
  } else if (!st && (!S_ISREG(sb.st_mode) || access(program, X_OK) != 0)) {
    out->error = tq_strdup_printf("%s: not an executable file", program);
  }
  if (!st) {
    out->path = program;
    program = NULL;
  }
  if (!st && !out->error) st = hash_files(tool, out->path, out->sha256);
  if (!st && !out->error) st = ask_version(tool, out);
  tq_free(program);
  if (!st && !out->error) {
    memo_t *e = &g_memo[g_memo_next++ % (sizeof(g_memo) / sizeof(g_memo[0]))];
    tq_free(e->argv_key);
    tqh_tool_identity_deinit(&e->id);
    e->argv_key = tq_buf_detach(&key);
    e->sb = sb;
    tq_status_t cst = e->argv_key ? copy_identity(out, &e->id) : NULL;
    if (!e->argv_key || cst) {
      tq_free(e->argv_key);
      e->argv_key = NULL;
    }
    tq_status_free(cst);
  }
  tq_buf_deinit(&key);
  if (st) tqh_tool_identity_deinit(out);
  return st;
}

tq_status_t tqh_tool_identity_format(const tqh_tool_identity_t *id, tq_buf_t *out) {
  if (id->error) return tq_buf_printf(out, "%s", id->error);
  return tq_buf_printf(out, "%s (sha256 %s, version %s)", id->path, id->sha256,
                       id->version ? id->version : "unknown");
}
