/* Test support shared by every Check test binary (base-tests, formats-tests, sim-tests,
 * compiler-tests, runtime-tests, harness-tests, torq-test-e2e). It is linked into the test
 * binaries only, never into a library.
 *
 * The one way a test skips. A test that needs what a machine may lack (a tool such as mlir-opt-22,
 * a Python module, the TOSA corpus, sshd) asks for it here and returns when it is not given it:
 *
 *   const char *mlir_opt = tq_test_tool("TORQ_MLIR_OPT", "/usr/lib/llvm-22/bin/mlir-opt",
 *                                       "apt-get install mlir-22-tools");
 *   if (!mlir_opt) return;
 *
 * - With the environment variable CI set (non-empty, not "0" nor "false"), a missing prerequisite
 *   FAILS the test, naming what is missing and how to install it: CI never passes a test it did
 *   not run.
 * - Without CI the test is skipped, visibly: the skip is printed at once, appended to the file
 *   that $TORQ_SKIP_LOG names (Check runs tests in forked children, so the count goes through a
 *   file), and tq_test_run ends the binary's output with "N tests skipped:" and the list
 *   (binary: test: reason); `make check` does the same for all the binaries together.
 *
 * A deliberate skip (a heavy test under valgrind, an opt-out variable) uses tq_test_skip: it is
 * counted and printed the same way, and is no failure under CI.
 *
 * What a test needs from this repository (its models, golden files, scripts, the tools this
 * build makes) is no prerequisite: it is found from $TORQ_TOP / $TORQ_BIN (which `make check`
 * sets) or from where the test binary is, whatever the working directory, and a test fails when
 * it is not there.
 */
#ifndef TORQ_TESTING_TQ_TEST_H
#define TORQ_TESTING_TQ_TEST_H

#include <check.h>

/* Whether this is a CI run: $CI is set, non-empty, and neither "0" nor "false" (any case). */
int tq_test_ci(void);

/* Runs every suite of `sr` (Check's CK_NORMAL output), frees it, and prints the skips this binary
 * recorded ("N tests skipped:" and one line per skip). Sets $TORQ_SKIP_LOG to a file of its own
 * while it runs when the caller gave none. Returns the process exit status: 1 when a test failed,
 * else 0. */
int tq_test_run(SRunner *sr);

/* A missing prerequisite of the running test: `what` is missing (say where it was looked for and
 * which variable overrides that), `how` installs it. Fails the test under CI (does not return);
 * otherwise records the skip and returns, and the caller returns (or leaves out only the part of
 * the test that needs it). */
#define tq_test_missing(what, how) tq_test__missing(__FILE__, __LINE__, (what), (how))

/* A deliberate skip (printf-style reason): recorded and printed; never a failure. The caller
 * returns after it. */
void tq_test_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Returns from the calling test (a void function) after tq_test_missing when `ok` is false. */
#define TQ_TEST_REQUIRE(ok, what, how) \
  do {                                 \
    if (!(ok)) {                       \
      tq_test_missing((what), (how));  \
      return;                          \
    }                                  \
  } while (0)

/* ---- Prerequisites: each gives what it found, or NULL after tq_test_missing ---------------- */

/* An executable: $ENV when set and non-empty, else `fallback` (a path, or a bare name looked up
 * in $PATH, then /usr/local/sbin, /usr/sbin and /sbin). Static storage (one slot per `env`). */
#define tq_test_tool(env, fallback, how) tq_test__tool(__FILE__, __LINE__, (env), (fallback), (how))

/* Where tq_test_tool would find the tool, recording nothing: NULL when it is missing. For
 * fixtures that run outside a test (a test then asks with tq_test_tool). */
const char *tq_test_which(const char *env, const char *fallback);

/* Python 3: $TORQ_PYTHON3, else /usr/bin/python3. */
#define tq_test_python() tq_test_tool("TORQ_PYTHON3", "/usr/bin/python3", "apt-get install python3")

/* A Python 3 (from $TORQ_PYTHON3, else /usr/bin/python3) that can import `module`, which Debian's
 * `package` installs. Returns the interpreter's path. */
#define tq_test_python_module(module, package) \
  tq_test__python_module(__FILE__, __LINE__, (module), (package))

/* The TOSA corpus folder, $TORQ_TESTDATA/tosa_ops (default: the shared test data beside the
 * repository, ../shared/testdata), when it holds at least one *.mlir model. */
#define tq_test_corpus() tq_test__corpus(__FILE__, __LINE__)

/* The independent TOSA oracle the oracle tests run: the script $TORQ_MLIR_ORACLE, else
 * <testdata>/../tools/mlir_oracle.py (the shared tools beside the shared test data), with what it
 * needs: a Python 3 that imports numpy (Debian python3-numpy) and mlir-opt and mlir-runner in
 * $MLIR_ORACLE_LLVM/bin (default /usr/lib/llvm-22, Debian mlir-22-tools). Returns the script's
 * path (static storage); the Python is tq_test_python()'s. */
#define tq_test_mlir_oracle() tq_test__mlir_oracle(__FILE__, __LINE__)

/* ---- Paths of this repository (never a skip) ------------------------------------------------ */

/* The repository's top folder: $TORQ_TOP, else the folder above the test binary (or the working
 * directory) that holds this header. Static storage. */
const char *tq_test_top(void);

/* The folder of the tools this build made (torq-compile, torq-test, ...): $TORQ_BIN, else the
 * test binary's ../bin (build/<flavour>/tests -> build/<flavour>/bin). Static storage. */
const char *tq_test_bin(void);

/* The shared test data folder: $TORQ_TESTDATA, else <top>/../shared/testdata. Static storage. */
const char *tq_test_testdata(void);

/* The path of a tool of this build ("<tq_test_bin()>/NAME"); fails the test when it is not an
 * executable (build it with make). Static storage, valid until the next call. */
#define tq_test_own_tool(name) tq_test__own_tool(__FILE__, __LINE__, (name))

/* Implementation of the macros above (file and line are the caller's, for failure messages). */
void tq_test__missing(const char *file, int line, const char *what, const char *how);
const char *tq_test__tool(const char *file, int line, const char *env, const char *fallback,
                          const char *how);
const char *tq_test__python_module(const char *file, int line, const char *module,
                                   const char *package);
const char *tq_test__corpus(const char *file, int line);
const char *tq_test__mlir_oracle(const char *file, int line);
const char *tq_test__own_tool(const char *file, int line, const char *name);

#endif
