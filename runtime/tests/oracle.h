/* The independent oracle of the runtime tests: ../shared/tools/mlir_oracle.py, which computes a
 * model's outputs for given inputs with MLIR 22's own TOSA lowering (mlir-opt-22, then the
 * mlir-runner-22 JIT), behind a cache.
 *
 * The oracle takes about a second per model, so its answers are kept: an entry of the cache
 * folder is named by the SHA-256 of the oracle script, the model's text and each input .npy file
 * (in order, each with its length), and holds out0.npy, out1.npy, ... A test that finds every
 * answer in the cache runs no oracle at all. Answers are written to a temporary folder and
 * renamed into place, so an interrupted run leaves no torn entry; failures are not cached. The
 * cache folder is $TORQ_ORACLE_CACHE, else build/oracle-cache of the repository: `make check`
 * points both build flavours (plain and sanitizers) at that one folder, so the second pass reuses
 * the first one's answers.
 *
 * The misses run in parallel: $TORQ_ORACLE_JOBS processes at once, else one per online CPU. */
#ifndef TORQ_RUNTIME_TESTS_ORACLE_H
#define TORQ_RUNTIME_TESTS_ORACLE_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "torq/base/sha256.h"

#define ORACLE_MAX_IO 16

typedef struct oracle_s {
  const char *python; /* a Python 3 that imports numpy (static storage of tq_test) */
  char script[PATH_MAX];
  char cache[PATH_MAX];
  uint8_t script_digest[TQ_SHA256_SIZE];
  int jobs;
} oracle_t;

/* One question: a model and its input files. */
typedef struct oracle_job_s {
  char model[PATH_MAX];
  char inputs[ORACLE_MAX_IO][PATH_MAX];
  size_t n_inputs;
  char key[TQ_SHA256_HEX_SIZE]; /* set by oracle_prepare */
  char entry[PATH_MAX];         /* the cache entry: <cache>/<key> */
  int cached;                   /* the answer was in the cache before oracle_answer ran */
  int answered;                 /* the entry holds the outputs */
  char error[512];              /* why the oracle gave no answer (one line) */
} oracle_job_t;

/* Finds the oracle and its prerequisites through tq_test (the script, a Python 3 with numpy,
 * mlir-opt-22 and mlir-runner-22) and sets up the cache folder. Returns 0 after tq_test_missing
 * (the caller returns: the test is skipped, or failed under CI). */
int oracle_init(oracle_t *o);

/* Computes job->key and job->entry from the files the job names; sets job->cached. */
void oracle_prepare(const oracle_t *o, oracle_job_t *job);

/* Runs the oracle for every prepared job whose answer is not cached, o->jobs at a time, and
 * stores each answer in the cache. Afterwards job->answered says whether the entry holds the
 * outputs; when not, job->error says why (the oracle's own one-line reason). */
void oracle_answer(const oracle_t *o, oracle_job_t *jobs, size_t n);

/* The path of output `k` of an answered job in `out` (PATH_MAX). */
void oracle_output_path(const oracle_job_t *job, size_t k, char *out);

#endif
