/* Private to the execute component: the state of one test between its phases (execute.c,
 * compile.c, run.c, check.c, profile.c), the comparison of outputs (compare.c) and the run on
 * a board (board_exec.c). Tests include this header to test them directly. */
#ifndef TORQ_HARNESS_SRC_EXECUTE_INTERNAL_H
#define TORQ_HARNESS_SRC_EXECUTE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "torq/base/sha256.h"
#include "torq/base/status.h"
#include "torq/base/str.h"
#include "torq/compiler/compile.h"
#include "torq/compiler/mlir.h"
#include "torq/harness/execute.h"
#include "torq/harness/toolchain.h"
#include "torq/runtime/runtime.h"

/* ---- One test between its phases ------------------------------------------------------------ */

struct tqh_execution_s {
  tqh_executor_t *exec;
  const tqh_test_t *test;
  const char *dir; /* the test's folder */
  const tqh_execute_io_t *io;
  tqh_test_result_t *r;

  tq_buf_t model_text;    /* the model's bytes */
  const char *model_path; /* the file compiled */
  tqc_module_t *parsed;   /* parsed model (for the reference), or NULL */
  tqc_compile_options_t compile_options;
  double compile_s;

  tqr_module_t *module;
  tqr_tensor_t **inputs;
  size_t num_inputs;
  tqr_tensor_t **outputs;
  size_t num_outputs;
  char *entry_dir;    /* the cache entry */
  char *fetched_path; /* a URL model's downloaded file */
  char cache_key[TQ_SHA256_HEX_SIZE];

  /* An external toolchain (external.c): its programs, and how its compile failed. */
  int external;
  tqh_tool_identity_t tools[TQH_TOOL_COUNT];
  tqh_outcome_t ext_outcome;
  const char *ext_type;
};

/* A log line (io->log), at most 1023 bytes. */
void tqh__exec_log(tqh_execution_t *e, const char *fmt, ...) TQ_PRINTF(2, 3);
/* The phase that starts now (io->phase). */
void tqh__exec_phase(tqh_execution_t *e, const char *name, double limit_s);
/* Text for the test's stdout.txt (stream 1) or stderr.txt (2) (io->output). */
void tqh__exec_output(const tqh_execute_io_t *io, int stream, const char *data, size_t len);
/* Seconds since the CLOCK_MONOTONIC time `t0` (tqh_now_ns). */
double tqh__exec_seconds_since(uint64_t t0);
/* `out` = the test's folder + "/" + name. */
tq_status_t tqh__exec_path_in(const tqh_execution_t *e, const char *name,
                              tq_buf_t *out) TQ_MUST_USE;
/* The entry function the settings ask for, or NULL for the model's entry point. */
const char *tqh__exec_function_wanted(const tqh_test_t *t);
/* Parses and verifies the model (once; the compile and the reference share it). */
tq_status_t tqh__exec_parse_model(tqh_execution_t *e) TQ_MUST_USE;
/* One invocation of the module in `session`: the outputs replace e->outputs. */
tq_status_t tqh__exec_invoke(tqh_execution_t *e, tqr_session_t *session) TQ_MUST_USE;

/* Makes a random input tensor of the model's input `index` (shape and type from its signature). */
typedef tq_status_t (*tqh__random_input_fn)(const void *signature, size_t index,
                                            tqr_tensor_t **out);
/* e->inputs: `n` of them, the suite's (`inputs:` text, parsed) or seeded random ones made by
 * `make_random` from `signature` (NULL: unknown, then a random input is an error). When the model's
 * input count is known (`model_inputs`, SIZE_MAX: unknown), the suite's count must match it;
 * `callee` names the model in that message. */
tq_status_t tqh__exec_make_inputs(tqh_execution_t *e, size_t n, size_t model_inputs,
                                  const char *callee, const void *signature,
                                  tqh__random_input_fn make_random) TQ_MUST_USE;
/* The timed runs on the board (board_exec.c): e->outputs (made for the module's outputs unless
 * already there) get the downloaded outputs and, with profiling, the test's folder gets
 * profile.csv. `runtime_path`: the local runtime the board gets (an external toolchain's), or
 * NULL for the options'. */
int tqh__exec_run_on_board(tqh_execution_t *e, const char *runtime_path);
/* Links the compile outputs of the cache entry (model.vmfb, trace.csv, debug/) into the test's
 * folder; with `optional`, a trace or debug folder the entry lacks is left out. */
tq_status_t tqh__exec_link_compile_outputs(tqh_execution_t *e, int optional) TQ_MUST_USE;
/* Frees what the executor kept of the last test's files (compile.c; part of
 * tqh_executor_forget). */
void tqh__exec_files_forget(tqh_executor_t *exec);
/* Destroys the outputs (the array stays). */
void tqh__exec_free_outputs(tqh_execution_t *e);

/* ---- The reconciliation (reconcile.c) ------------------------------------------------------- */

struct tqh_annotation_s;

/* Fills the result's reconciliation from the loaded module (estimates, locations, clock) and the
 * cache entry's debug info (the source operators, when it can be read). TQ_OUT_OF_MEMORY. */
tq_status_t tqh__exec_recon_init(tqh_execution_t *e) TQ_MUST_USE;
/* The cycles each program took in `session`'s last invocation (the simulator's). */
void tqh__exec_recon_simulated(tqh_execution_t *e, const tqr_session_t *session);
/* Each program's measured slot in a board's annotated profile, the mean over its runs. */
void tqh__exec_recon_device(tqh_execution_t *e, const struct tqh_annotation_s *ann);

/* The debug info of the test's cache entry that an earlier test of this worker annotated with
 * no diagnostic, now with `dir` (the test's copy of it, which links the same manifest.json) as
 * its folder; or NULL. Borrowed (compile.c). */
struct tqh_debug_info_s *tqh__exec_kept_debug_info(tqh_execution_t *e, const char *dir);
/* Keeps `info`, read from `dir` (the test's copy), for the next tests of the same entry. */
void tqh__exec_keep_debug_info(tqh_execution_t *e, struct tqh_debug_info_s *info, const char *dir);

/* The overview metrics read back from a Perfetto trace (another tool's) into the result
 * (profile.c). */
tq_status_t tqh__exec_read_overview(const char *pb_path, tqh_test_result_t *r) TQ_MUST_USE;
/* Copies the profile files to --torq-runtime-profiling-output-dir/<test folder>/ (profile.c). */
void tqh__exec_copy_profiles(tqh_execution_t *e);
/* A note in the log and in stderr.txt ("torq-test: " + text). */
void tqh__exec_note(tqh_execution_t *e, const char *fmt, ...) TQ_PRINTF(2, 3);

/* ---- An external toolchain (external.c) ----------------------------------------------------- */

/* The phases with the external programs: compile through the cache (the key holds the
 * compiler's SHA-256 and --version; the module is never loaded), run as a local subprocess or on
 * the board, the outputs read back from .npy; the profile annotated by the external annotator
 * or summed up from the CSV alone. Each returns as the phase it replaces. */
int tqh__external_compile(tqh_execution_t *e);
int tqh__external_run(tqh_execution_t *e);
int tqh__external_profile(tqh_execution_t *e);

/* Outputs against the golden files of `reference: {golden: [...]}` (golden.c); as
 * tqh_execute_check. */
int tqh__check_golden(tqh_execution_t *e);

/* ---- Outputs against the reference (compare.c) ---------------------------------------------- */

struct tqs_tensor_s;

/* A view (tqs_tensor_init, borrowing the data) of a runtime tensor for the reference
 * interpreter: the same storage. TQ_UNIMPLEMENTED for an element type it does not have. */
tq_status_t tqh__as_sim_tensor(const struct tqr_tensor_s *t, struct tqs_tensor_s *out) TQ_MUST_USE;

/* Compares output `o` with its reference: 1 when equal within the tolerance; else 0 with the
 * verdict in `msg` (how many elements differ, the first one's index and values, the largest
 * difference). Integer types compare exactly; floats pass when |got - want| <= atol + rtol *
 * |want|, NaN matches NaN and an infinity only itself. Types and shapes must agree. */
int tqh__compare_output(size_t o, const struct tqs_tensor_s *got, const struct tqs_tensor_s *want,
                        double atol, double rtol, char *msg, size_t size);
/* The same against `against` ("the reference", "golden file out0.npy"). The message holds
 * "Number of differences: N". */
int tqh__compare_output_with(size_t o, const struct tqs_tensor_s *got,
                             const struct tqs_tensor_s *want, double atol, double rtol,
                             const char *against, char *msg, size_t size);

/* ---- One test on a board, in a board's worker (board_exec.c) -------------------------------- */

/* What the run phase hands the board: the compiled model and the inputs it made. Borrowed. */
typedef struct tqh__board_test_s {
  const tqh_test_t *test; /* its id names the work folder on the board */
  const char *dir;        /* the test's local folder */
  const char *model_path; /* the local model.vmfb */
  struct tqr_tensor_s *const *inputs;
  size_t num_inputs;
  size_t num_outputs;
  const char *function; /* NULL: the module's entry point */
  uint32_t warmup, repeat;
  double run_timeout_s;
  int profile; /* ask the runtime for profile.csv and download it */
  const char *runtime_path; /* an external toolchain's runtime to sync, or NULL */
} tqh__board_test_t;

/* The board worker of `exec` (made on first use, in the worker process). NULL without memory. */
tqh_board_worker_t *tqh__board_worker(tqh_executor_t *exec);

/* Runs the test on the board: connects (once per worker), takes the lease and checks or syncs the
 * runtime (once per connection), puts the model and inputs in the board's cache, runs warm-up
 * and timed invocations (wall time by CLOCK_MONOTONIC around each remote command; device time
 * from the runtime's stderr), and downloads profile.csv and the outputs (*out_outputs,
 * num_outputs tensors the caller destroys) into the test's folder. Returns 1 when the outputs
 * are there; else 0 with `r` failed: an infrastructure fault as ERROR with its fault type (after
 * which the worker reconnects, or marks r->board_down), a runtime failure as FAILED. `io`
 * receives log lines, notes, phases and what the runtime printed. */
int tqh__board_run_test(tqh_board_worker_t *bw, const tqh__board_test_t *bt,
                        const tqh_execute_io_t *io, tqh_test_result_t *r,
                        struct tqr_tensor_s **out_outputs);

/* Idle and exit work of a board worker (tqh_executor_board_idle, tqh_executor_board_exit). */
void tqh__board_worker_idle(tqh_board_worker_t *bw, const tqh_execute_io_t *io);
void tqh__board_worker_exit(tqh_board_worker_t *bw, const tqh_execute_io_t *io);
void tqh__board_worker_cleanup(tqh_executor_t *exec, const tqh_execute_io_t *io);

#endif
