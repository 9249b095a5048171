/* One status type for every Torq library.
 *
 * libtorq-base (runtime/base) is the bottom layer, with libtorq-formats above it, that every
 * library uses: base -> formats -> sim -> compiler, runtime -> harness. It depends on no other
 * library of ours; status.h is its core, and the rest of include/torq/base/ builds on it.
 *
 * A status is NULL when all went well; otherwise it is a heap object that carries a code, a
 * message, the source file and line where it was made, and a chain of context lines added as it
 * travels up ("while parsing X", "in test Y"). Whoever receives a non-NULL status owns it and must
 * either return it further or free it with tq_status_free(). Libraries never print a status; tools
 * format it with tq_status_format() and map its code to an exit status.
 */
#ifndef TORQ_BASE_STATUS_H
#define TORQ_BASE_STATUS_H

#include <stdarg.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TQ_MUST_USE __attribute__((warn_unused_result))
#define TQ_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))

/* The codes and their names, in one table (libuv style). */
#define TQ_STATUS_CODES(X)                                                                          \
  X(OK, "ok")                                                                                       \
  X(INVALID_ARGUMENT, "invalid argument") /* bad usage or configuration */                         \
  X(INVALID_INPUT, "invalid input")       /* malformed file content: MLIR, YAML, CSV, module */    \
  X(NOT_FOUND, "not found")                                                                         \
  X(IO, "i/o error")                                                                                \
  X(OUT_OF_MEMORY, "out of memory")                                                                 \
  X(LIMIT, "limit exceeded") /* a size or depth limit that protects the process */                 \
  X(UNIMPLEMENTED, "unimplemented")                                                                 \
  X(FAILED_PRECONDITION, "failed precondition")                                                     \
  X(UNAVAILABLE, "unavailable") /* infrastructure: a board or server that cannot be reached */    \
  X(DEADLINE_EXCEEDED, "deadline exceeded")                                                         \
  X(CANCELLED, "cancelled")                                                                         \
  X(INTERNAL, "internal error")

typedef enum tq_status_code_e {
#define TQ__CODE_ENUM(name, text) TQ_##name,
  TQ_STATUS_CODES(TQ__CODE_ENUM)
#undef TQ__CODE_ENUM
      TQ_STATUS_CODE_COUNT
} tq_status_code_t;

typedef struct tq_status_s *tq_status_t;

/* The name of a code ("invalid input"); never NULL. */
const char *tq_status_code_name(tq_status_code_t code);

/* Makes a status. Never returns NULL: when memory runs out it returns a shared, static
 * out-of-memory status (which tq_status_free() accepts). `code` must not be TQ_OK. */
tq_status_t tq_status_make(tq_status_code_t code, const char *file, int line, const char *fmt, ...)
    TQ_PRINTF(4, 5) TQ_MUST_USE __attribute__((returns_nonnull));
tq_status_t tq_status_makev(tq_status_code_t code, const char *file, int line, const char *fmt,
                            va_list ap) TQ_MUST_USE __attribute__((returns_nonnull));

#define TQ_STATUS(code, ...) tq_status_make((code), __FILE__, __LINE__, __VA_ARGS__)

/* Adds a line of context to `status` and returns it (NULL stays NULL). */
tq_status_t tq_status_annotate(tq_status_t status, const char *fmt, ...) TQ_PRINTF(2, 3)
    TQ_MUST_USE;

/* Accessors. tq_status_code(NULL) is TQ_OK; the message is borrowed and lives as long as the
 * status. */
tq_status_code_t tq_status_code(const struct tq_status_s *status);
const char *tq_status_message(const struct tq_status_s *status);
const char *tq_status_file(const struct tq_status_s *status);
int tq_status_line(const struct tq_status_s *status);

/* Formats the whole status as text: "error: MESSAGE" followed by one "  note: CONTEXT" line per
 * annotation, innermost first. The result is heap-allocated, owned by the caller (free()); NULL
 * only when memory runs out. A NULL status formats as "ok". `with_origin` appends the source
 * file:line that made the status (for developers). */
char *tq_status_format(const struct tq_status_s *status, int with_origin);

/* Frees a status and its chain; accepts NULL. */
void tq_status_free(tq_status_t status);

/* Returns early with the status of `expr` when it is not OK. */
#define TQ_TRY(expr)                                                                                \
  do {                                                                                              \
    tq_status_t tq__try_status = (expr);                                                            \
    if (tq__try_status) return tq__try_status;                                                      \
  } while (0)

/* The exit status a tool returns for a code (DESIGN section 3): 0 OK, 2 bad usage or
 * configuration (INVALID_ARGUMENT), 3 infrastructure (UNAVAILABLE, DEADLINE_EXCEEDED), 130
 * CANCELLED (as after SIGINT), 1 otherwise. */
int tq_status_exit_code(const struct tq_status_s *status);

#ifdef __cplusplus
}
#endif
#endif
