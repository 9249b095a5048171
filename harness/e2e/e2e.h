/* End-to-end tests of torq-test: helpers that run the real binary ($TORQ_BIN/torq-test) as a
 * process in a scratch folder and read what it wrote. */
#ifndef TORQ_HARNESS_E2E_E2E_H
#define TORQ_HARNESS_E2E_E2E_H

#include <check.h>
#include <stddef.h>
#include <sys/types.h>

#include "tq_test.h"

/* What a finished process gave. Owned strings (free with e2e_proc_free). */
typedef struct e2e_proc_s {
  int exit_code; /* 128 + signal when killed */
  char *out;     /* stdout */
  char *err;     /* stderr */
} e2e_proc_t;

/* A scratch folder for one test: results/, cache/ and suites go here. Removed by e2e_scratch_free
 * unless TORQ_E2E_KEEP is set. */
typedef struct e2e_scratch_s {
  char *dir;
  char *results; /* dir/results */
  char *cache;   /* dir/cache */
} e2e_scratch_t;

void e2e_scratch_init(e2e_scratch_t *s);
void e2e_scratch_free(e2e_scratch_t *s);

/* The torq-test binary (tq_test_bin: $TORQ_BIN, else this build's bin folder); the repository's
 * top folder (tq_test_top: $TORQ_TOP, else found from the test binary), whatever the working
 * directory. Static strings. */
const char *e2e_bin(void);
const char *e2e_top(void);
/* torq-test-faults, the test-only build of torq-test with the fault hook (fault_hook.c:
 * TORQ_TEST_FAULT makes chosen tests crash, hang or sleep), in this build's tests/ folder
 * (<tq_test_bin()>/../tests). Static string. */
const char *e2e_bin_faults(void);

/* Whether heavy tests should be skipped (under valgrind); a test that skips says so with
 * tq_test_skip. */
int e2e_light(void);

/* Runs torq-test with `args` (NULL-terminated) in `cwd`, with TORQ_CACHE_DIR and
 * TORQ_RESULTS_DIR pointing into the scratch folder and `env` ("NAME=VALUE", NULL-terminated,
 * may be NULL) added (a bare "NAME" leaves that variable unset: "TORQ_RESULTS_DIR" lets the run
 * find its folder itself); waits for it. */
void e2e_run(const e2e_scratch_t *s, const char *cwd, const char *const *env,
             const char *const *args, e2e_proc_t *out);

/* Starts torq-test as above without waiting; stdout and stderr go to files in the scratch
 * folder. Returns its pid. */
pid_t e2e_spawn(const e2e_scratch_t *s, const char *cwd, const char *const *env,
                const char *const *args);
/* e2e_run and e2e_spawn with torq-test-faults instead of torq-test. */
void e2e_run_faults(const e2e_scratch_t *s, const char *cwd, const char *const *env,
                    const char *const *args, e2e_proc_t *out);
pid_t e2e_spawn_faults(const e2e_scratch_t *s, const char *cwd, const char *const *env,
                       const char *const *args);

/* e2e_run with another program (its absolute path) in place of torq-test, in the same
 * environment. */
void e2e_run_program(const char *program, const e2e_scratch_t *s, const char *cwd,
                     const char *const *env, const char *const *args, e2e_proc_t *out);

/* Waits for a spawned process and returns its exit code (128 + signal when killed). */
int e2e_wait(pid_t pid);

void e2e_proc_free(e2e_proc_t *p);

/* Files. */
char *e2e_read(const char *path);                 /* whole file or NULL; free() */
void e2e_write(const char *path, const char *text); /* creates parents */
char *e2e_path(const char *fmt, ...) __attribute__((format(printf, 1, 2))); /* free() */
int e2e_exists(const char *path);
size_t e2e_count(const char *haystack, const char *needle);
char *e2e_sha256_file(const char *path); /* lowercase hex; free() */

/* The only run folder under the scratch results (fails the test when there is not exactly one);
 * free(). */
char *e2e_only_run(const e2e_scratch_t *s);
/* The run folder named on the "Results: DIR/" line of a run's output, without the slash (fails the
 * test when there is none); free(). */
char *e2e_run_folder(const e2e_proc_t *p);
/* Number of run folders under the scratch results. */
size_t e2e_num_runs(const e2e_scratch_t *s);

/* Lines of the journal that hold "outcome":"<outcome>" (NULL: all lines). */
size_t e2e_journal_count(const char *run_dir, const char *outcome);

/* Validates junit.xml with Debian's python3-junitparser and returns the counts it finds: test
 * cases, failures, errors, skipped. Fails the test when the file is not valid. Without
 * junitparser: a failure under CI; otherwise a counted skip and a structural check of our own.
 * `*out_parser` says which check ran. */
void e2e_junit_counts(const char *path, size_t *tests, size_t *failures, size_t *errors,
                      size_t *skipped, const char **out_parser);

/* A server written for the tests: `script` (Python) runs as `python3 SCRIPT DIR ARGS...` and
 * writes the port it listens on (127.0.0.1 only) to DIR/.port, atomically; its stderr goes to
 * SCRATCH/server.log. Python is tq_test_python() ($TORQ_PYTHON3, else /usr/bin/python3); returns 0
 * when it is missing, after tq_test_missing (a failure under CI): the caller returns. */
typedef struct e2e_server_s {
  pid_t pid;
  int port;
  char *log;
} e2e_server_t;
int e2e_server_start(const e2e_scratch_t *s, const char *script, const char *dir,
                     const char *const *args, e2e_server_t *out);
/* The same with a script file (`path`) instead of its text. */
int e2e_server_start_file(const e2e_scratch_t *s, const char *path, const char *dir,
                          const char *const *args, e2e_server_t *out);
void e2e_server_stop(e2e_server_t *srv);

/* `torq-test upload RUN` (environment `env`) finds nothing left: exit 0, "Upload: 0 items sent",
 * and the server's request log at `log_path` still reads `log`. */
void e2e_upload_sends_nothing(const e2e_scratch_t *s, const char *const *env, const char *run,
                              const char *log_path, const char *log);

/* Writes a tiny model: a 4-element i32 add; or one that does not compile. */
void e2e_write_add_model(const char *path);
void e2e_write_broken_model(const char *path);

/* Suites of this binary. */
Suite *e2e_suite_cli(void);
Suite *e2e_suite_run(void);
Suite *e2e_suite_signals(void);
Suite *e2e_suite_corpus(void);
Suite *e2e_suite_fetch(void);
Suite *e2e_suite_internals(void);
Suite *e2e_suite_boards(void);
Suite *e2e_suite_baseline(void);
Suite *e2e_suite_shard(void);
Suite *e2e_suite_upload(void);
Suite *e2e_suite_dashboard(void);
Suite *e2e_suite_html(void);
Suite *e2e_suite_limits(void);
Suite *e2e_suite_verdicts(void);
Suite *e2e_suite_toolchain(void);
Suite *e2e_suite_usability(void);

#endif
