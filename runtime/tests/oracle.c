/* The MLIR oracle behind a cache (oracle.h). */
#include "oracle.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"
#include "torq/base/file.h"
#include "tq_test.h"

#define ORACLE_CK(expr)                                              \
  do {                                                               \
    tq_status_t ck__st = (expr);                                     \
    if (ck__st) {                                                    \
      char *ck__msg = tq_status_format(ck__st, 0);                   \
      ck_abort_msg("%s failed: %s", #expr, ck__msg ? ck__msg : "?"); \
    }                                                                \
  } while (0)

int oracle_init(oracle_t *o) {
  memset(o, 0, sizeof(*o));
  const char *script = tq_test_mlir_oracle();
  if (!script) return 0;
  snprintf(o->script, sizeof(o->script), "%s", script);
  o->python = tq_test_python();
  if (!o->python) return 0;
  ORACLE_CK(tq_sha256_file(o->script, o->script_digest));
  const char *cache = getenv("TORQ_ORACLE_CACHE");
  if (cache && *cache)
    snprintf(o->cache, sizeof(o->cache), "%s", cache);
  else
    snprintf(o->cache, sizeof(o->cache), "%.*s/build/oracle-cache", PATH_MAX - 32, tq_test_top());
  ORACLE_CK(tq_file_mkdirs(o->cache));
  const char *jobs = getenv("TORQ_ORACLE_JOBS");
  long n = jobs && *jobs ? strtol(jobs, NULL, 10) : sysconf(_SC_NPROCESSORS_ONLN);
  o->jobs = n < 1 ? 1 : n > 64 ? 64 : (int)n;
  return 1;
}

/* Feeds the length (8 bytes, little-endian) and then the bytes of `path` to `h`. */
static void hash_file(tq_sha256_t *h, const char *path) {
  tq_buf_t b;
  ORACLE_CK(tq_file_read(path, 0, &b));
  uint8_t len[8];
  for (int i = 0; i < 8; i++) len[i] = (uint8_t)((uint64_t)b.len >> (8 * i));
  ORACLE_CK(tq_sha256_update(h, len, sizeof(len)));
  ORACLE_CK(tq_sha256_update(h, b.data, b.len));
  tq_buf_deinit(&b);
}

static int is_dir(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

void oracle_prepare(const oracle_t *o, oracle_job_t *job) {
  tq_sha256_t h;
  ORACLE_CK(tq_sha256_init(&h));
  ORACLE_CK(tq_sha256_update(&h, o->script_digest, sizeof(o->script_digest)));
  hash_file(&h, job->model);
  for (size_t i = 0; i < job->n_inputs; i++) hash_file(&h, job->inputs[i]);
  uint8_t digest[TQ_SHA256_SIZE];
  ORACLE_CK(tq_sha256_final(&h, digest));
  tq_sha256_hex(digest, job->key);
  snprintf(job->entry, sizeof(job->entry), "%.*s/%s", PATH_MAX - 80, o->cache, job->key);
  char first[PATH_MAX];
  oracle_output_path(job, 0, first);
  job->cached = job->answered = is_dir(job->entry) && access(first, R_OK) == 0;
  job->error[0] = 0;
}

void oracle_output_path(const oracle_job_t *job, size_t k, char *out) {
  snprintf(out, PATH_MAX, "%.*s/out%zu.npy", PATH_MAX - 32, job->entry, k);
}

/* A running oracle. */
typedef struct running_s {
  pid_t pid;
  size_t job;
  char tmp[PATH_MAX]; /* its output folder, renamed to the entry on success */
  char stderr_path[PATH_MAX];
} running_t;

static void start(const oracle_t *o, oracle_job_t *job, size_t index, running_t *r) {
  snprintf(r->tmp, sizeof(r->tmp), "%.*s.tmp.%ld.%zu", PATH_MAX - 64, job->entry, (long)getpid(),
           index);
  tmpdir_remove(r->tmp);
  snprintf(r->stderr_path, sizeof(r->stderr_path), "%.*s.stderr", PATH_MAX - 16, r->tmp);
  const char *argv[ORACLE_MAX_IO + 6];
  size_t a = 0;
  argv[a++] = o->python;
  argv[a++] = o->script;
  argv[a++] = job->model;
  argv[a++] = r->tmp;
  for (size_t i = 0; i < job->n_inputs; i++) argv[a++] = job->inputs[i];
  argv[a] = NULL;
  fflush(NULL);
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    int null = open("/dev/null", O_RDWR);
    int err = open(r->stderr_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (null >= 0) {
      dup2(null, 0);
      dup2(null, 1);
    }
    if (err >= 0) dup2(err, 2);
    execv(argv[0], (char *const *)argv);
    _exit(127);
  }
  r->pid = pid;
  r->job = index;
}

/* The last non-empty line of a file, in `out` (`cap` bytes). */
static void last_line(const char *path, char *out, size_t cap) {
  tq_buf_t b;
  out[0] = 0;
  tq_status_t st = tq_file_read(path, 1 << 20, &b);
  if (st) {
    tq_status_free(st);
    tq_buf_deinit(&b);
    return;
  }
  size_t end = b.len;
  while (end && (b.data[end - 1] == '\n' || b.data[end - 1] == ' ')) end--;
  size_t begin = end;
  while (begin && b.data[begin - 1] != '\n') begin--;
  snprintf(out, cap, "%.*s", (int)(end - begin), b.data + begin);
  tq_buf_deinit(&b);
}

static void finish(oracle_job_t *job, running_t *r, int status) {
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    /* Another process may have answered the same question meanwhile: either copy will do. */
    if (rename(r->tmp, job->entry) != 0) tmpdir_remove(r->tmp);
    char first[PATH_MAX];
    oracle_output_path(job, 0, first);
    job->answered = access(first, R_OK) == 0;
    if (!job->answered) snprintf(job->error, sizeof(job->error), "the oracle wrote no out0.npy");
  } else {
    char line[400];
    last_line(r->stderr_path, line, sizeof(line));
    if (WIFSIGNALED(status))
      snprintf(job->error, sizeof(job->error), "the oracle was killed by signal %d: %s",
               WTERMSIG(status), line);
    else
      snprintf(job->error, sizeof(job->error), "the oracle exited %d: %s",
               WIFEXITED(status) ? WEXITSTATUS(status) : -1, line);
    tmpdir_remove(r->tmp);
  }
  unlink(r->stderr_path);
}

void oracle_answer(const oracle_t *o, oracle_job_t *jobs, size_t n) {
  running_t *run = calloc((size_t)o->jobs, sizeof(*run));
  ck_assert_ptr_nonnull(run);
  size_t active = 0, next = 0;
  for (;;) {
    while (active < (size_t)o->jobs && next < n) {
      oracle_job_t *job = &jobs[next];
      if (!job->answered) {
        size_t slot = 0;
        while (run[slot].pid) slot++;
        start(o, job, next, &run[slot]);
        active++;
      }
      next++;
    }
    if (active == 0) break;
    int status;
    pid_t pid = waitpid(-1, &status, 0);
    if (pid < 0) {
      ck_assert_msg(errno == EINTR, "waitpid: %s", strerror(errno));
      continue;
    }
    for (int s = 0; s < o->jobs; s++) {
      if (run[s].pid != pid) continue;
      finish(&jobs[run[s].job], &run[s], status);
      run[s].pid = 0;
      active--;
    }
  }
  free(run);
}
