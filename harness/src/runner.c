/* The runner's parent process: hands tests to forked workers (worker.c, execute.c), waits for
 * them with one ppoll() over their pipes, turns what they report (or how they died) into test
 * records, and is the only writer of the results (results.h).
 *
 * Signals: SIGINT, SIGTERM and SIGHUP are blocked except inside ppoll(), which unblocks them
 * atomically; so the tool's handler (which sets *options->cancel) can only run while the parent
 * waits, and a report is never interrupted half-way.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "runner_internal.h"
#include "torq/base/alloc.h"
#include "torq/harness/stats.h"

void tqh_runner_options_initialize(tqh_runner_options_t *options) {
  memset(options, 0, sizeof(*options));
  options->jobs = 1;
  options->color = -1;
  options->tty = -1;
  options->profiling = 1;
  options->print_summary = 1;
}

int tqh_runner_exit_code(const tqh_runner_summary_t *summary) {
  if (summary->cancelled) return 130;
  if (summary->infrastructure_errors) return 3;
  if (summary->counts[TQH_OUTCOME_FAILED] || summary->counts[TQH_OUTCOME_ERROR]) return 1;
  return 0;
}

typedef struct pending_s {
  size_t test;
  tqh__result_t result;
} pending_t;

typedef struct run_s {
  const tqh_runner_options_t *options;
  const tqh_test_t *const *tests;
  size_t num_tests;
  tqh_results_t *results;
  tqh_runner_summary_t *summary;
  tqh__progress_t progress;
  tqh__exec_ctx_t exec;
  tqh__cache_t cache;
  tqh__worker_t *workers;
  size_t num_workers, running;
  pending_t *pending; /* finished, not yet recorded: at most one per worker */
  size_t num_pending;
  double *started_at; /* CLOCK_REALTIME per test */
  uint64_t *started_ns;
} run_t;

static double realtime_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* "conv2d[board1]" from the id "smoke/conv2d[board1]": the JUnit name within its suite. */
static const char *case_name(const tqh_test_t *t) {
  size_t n = strlen(t->suite->name);
  if (!strncmp(t->id, t->suite->name, n) && t->id[n] == '/') return t->id + n + 1;
  return t->id;
}

/* The model's file name without its folder and .mlir: the overview block's title. */
static void model_title(const tqh_test_t *t, char *buf, size_t size) {
  const char *p = t->model.kind == TQH_MODEL_PATH ? t->model.path : t->model.url;
  if (!p) p = t->name;
  const char *slash = strrchr(p, '/');
  const char *base = slash ? slash + 1 : p;
  size_t len = strlen(base);
  if (len > 5 && !strcmp(base + len - 5, ".mlir")) len -= 5;
  snprintf(buf, size, "%.*s", (int)len, base);
}

/* The last lines of the test's stderr.txt (what a crashing worker printed last), or NULL. */
static char *stderr_tail(const char *dir) {
  char path[4096];
  snprintf(path, sizeof(path), "%s/stderr.txt", dir);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return NULL;
  struct stat sb;
  char *text = NULL;
  if (fstat(fd, &sb) == 0 && sb.st_size > 0) {
    off_t want = sb.st_size > 4096 ? 4096 : sb.st_size;
    text = tq_malloc((size_t)want + 1);
    ssize_t n = text ? pread(fd, text, (size_t)want, sb.st_size - want) : -1;
    if (n > 0) {
      text[n] = 0;
    } else {
      tq_free(text);
      text = NULL;
    }
  }
  close(fd);
  return text;
}

/* Applies the expected-failure rules to a worker's outcome. A crash counts as a failure here
 * (a model known to crash the runtime can be marked); a timeout or an infrastructure error
 * stays an error. */
static void apply_xfail(const run_t *run, const tqh_test_t *t, tqh__result_t *r) {
  if (!t->xfail.expected) return;
  int strict = t->xfail.strict || run->options->strict;
  if (r->outcome == TQH_OUTCOME_PASSED) {
    if (strict) {
      r->outcome = TQH_OUTCOME_FAILED;
      tq_free(r->failure_type);
      r->failure_type = tq_strndup("xpass_strict", 12);
      tq_free(r->message);
      tq_buf_t b;
      tq_buf_init(&b, 0);
      tq_status_free(tq_buf_printf(&b, "[XPASS(strict)] %s", t->xfail.reason));
      r->message = tq_buf_detach(&b);
      tq_buf_deinit(&b);
    } else {
      r->outcome = TQH_OUTCOME_XPASSED;
      tq_free(r->message);
      r->message = tq_strndup(t->xfail.reason, strlen(t->xfail.reason));
    }
    return;
  }
  int crash = r->failure_type && !strcmp(r->failure_type, "crash");
  if (r->outcome == TQH_OUTCOME_FAILED || (r->outcome == TQH_OUTCOME_ERROR && crash)) {
    r->outcome = TQH_OUTCOME_XFAILED;
    tq_buf_t b;
    tq_buf_init(&b, 0);
    tq_status_free(tq_buf_printf(&b, "expected failure: %s (%s)", t->xfail.reason,
                                 r->message ? r->message : ""));
    tq_free(r->message);
    r->message = tq_buf_detach(&b);
    tq_buf_deinit(&b);
  }
}

/* Records a finished (or never run) test: the results, the progress, the summary. */
static tq_status_t record(run_t *run, size_t i, tqh__result_t *r, const char *dir) {
  const tqh_test_t *t = run->tests[i];
  char model[256];
  model_title(t, model, sizeof(model));
  tqh_stats_t stats;
  memset(&stats, 0, sizeof(stats));
  if (r->num_samples) tq_status_free(tqh_stats_compute(r->samples, r->num_samples, &stats));

  tqh_record_metric_t *metrics = tq_calloc(r->num_metrics + 1, sizeof(*metrics));
  if (!metrics) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  for (size_t m = 0; m < r->num_metrics; m++) {
    metrics[m].name = r->metric_names[m];
    metrics[m].us = r->metric_us[m];
  }
  tq_buf_t tags;
  tq_buf_init(&tags, 0);
  tq_status_t st = NULL;
  for (size_t k = 0; k < t->tag_count && !st; k++)
    st = tq_buf_printf(&tags, "%s%s", k ? "," : "", t->tags[k]);
  tqh_property_t props[3];
  size_t np = 0;
  props[np++] = (tqh_property_t){"target", t->target ? t->target : "sim"};
  if (t->tag_count && tags.data) props[np++] = (tqh_property_t){"tags", tags.data};
  if (t->model.kind == TQH_MODEL_PATH) props[np++] = (tqh_property_t){"model_path", t->model.path};

  double now = realtime_now();
  tqh_test_record_t rec;
  memset(&rec, 0, sizeof(rec));
  rec.id = t->fs_id;
  rec.name = case_name(t);
  rec.classname = t->suite->name;
  rec.model = model;
  rec.outcome = r->outcome;
  rec.message = r->message;
  rec.failure_type = r->failure_type;
  rec.text = r->text;
  rec.started_at = run->started_at[i];
  rec.duration_s = run->started_ns[i] ? (double)(tqh__now_ns() - run->started_ns[i]) / 1e9 : 0;
  if (!run->started_ns[i]) rec.started_at = now;
  rec.has_wall_time = r->has_wall_time && r->num_samples > 0;
  rec.wall_time_s = stats.median;
  rec.wall_stats = stats;
  rec.wall_samples = r->samples;
  rec.wall_sample_count = r->num_samples;
  rec.cache = r->cache;
  rec.compile_s = r->compile_s;
  rec.run_s = r->run_s;
  rec.metrics = metrics;
  rec.metric_count = r->num_metrics;
  rec.properties = props;
  rec.property_count = np;
  rec.files = (const char *const *)r->files;
  rec.file_count = r->num_files;
  uint64_t t0 = tqh__now_ns();
  if (!st) st = tqh_results_test_finished(run->results, &rec);
  run->summary->record_s += (double)(tqh__now_ns() - t0) / 1e9;
  tq_free(metrics);
  tq_buf_deinit(&tags);

  tqh_runner_summary_t *s = run->summary;
  if ((unsigned)r->outcome < TQH_OUTCOME_COUNT) s->counts[r->outcome]++;
  if (r->cache == TQH_CACHE_HIT) s->cache_hits++;
  if (r->cache == TQH_CACHE_MISS) s->cache_misses++;
  if (r->infrastructure) s->infrastructure_errors++;
  s->compile_s += r->compile_s;
  s->run_s += r->run_s;
  (void)dir;
  tqh__progress_test(&run->progress, t->id, r->outcome, rec.has_wall_time ? stats.median : -1,
                     r->outcome == TQH_OUTCOME_PASSED ? NULL : r->message);
  return st;
}

static tq_status_t record_simple(run_t *run, size_t i, tqh_outcome_t outcome, const char *type,
                                 const char *message) {
  tqh__result_t r;
  tqh__result_init(&r);
  r.outcome = outcome;
  r.failure_type = type ? tq_strndup(type, strlen(type)) : NULL;
  r.message = message ? tq_strndup(message, strlen(message)) : NULL;
  tq_status_t st = record(run, i, &r, NULL);
  tqh__result_deinit(&r);
  return st;
}

static int cancelled(const run_t *run) {
  return run->options->cancel && *run->options->cancel;
}

/* The test of worker `w` is over: by its RESULT (`status` < 0; the worker lives on), or because
 * the worker died (`status`: its wait status). Queues the test's result, which is recorded after
 * the next test has started, so that writing the reports overlaps that test's work. */
static void finish_test(run_t *run, tqh__worker_t *w, int status) {
  size_t i = w->test;
  const tqh_test_t *t = run->tests[i];
  tqh__result_t *r = &w->result;
  char sig[32];
  int interrupted = status >= 0 && WIFSIGNALED(status) &&
                    (WTERMSIG(status) == SIGINT || WTERMSIG(status) == SIGTERM ||
                     WTERMSIG(status) == SIGHUP);
  if (w->have_result) {
    /* Done, whatever happened after (a kill at the deadline that came too late). */
  } else if (w->cancelled || (interrupted && cancelled(run))) {
    tqh__result_deinit(r);
    tqh__result_init(r);
    r->outcome = TQH_OUTCOME_NOT_RUN;
    r->message = tq_strndup("interrupted while running", 25);
  } else if (w->timed_out) {
    tqh__result_deinit(r);
    tqh__result_init(r);
    tqh__result_fail(r, TQH_OUTCOME_ERROR, "timeout", "timeout: the %s phase took longer than %gs",
                     w->phase, w->phase_s);
  } else {
    tqh__result_deinit(r);
    tqh__result_init(r);
    if (status >= 0 && WIFSIGNALED(status)) {
      tqh__result_fail(r, TQH_OUTCOME_ERROR, "crash", "crashed with %s in the %s phase",
                       tqh__signal_name(WTERMSIG(status), sig), w->phase);
    } else {
      tqh__result_fail(r, TQH_OUTCOME_ERROR, "crash",
                       "the worker exited with status %d without a result",
                       status >= 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    }
    r->text = stderr_tail(run->exec.test_dirs[i]);
    tq_status_free(tqh__result_add_file(r, "stdout.txt"));
    tq_status_free(tqh__result_add_file(r, "stderr.txt"));
  }
  /* A fresh worker after anything but a pass, so that whatever a failing test did to its
   * process cannot reach the next test; and now and then anyway. */
  w->tests_run++;
  if (w->pid > 0 && (r->outcome != TQH_OUTCOME_PASSED || w->tests_run >= TQH__WORKER_MAX_TESTS))
    tqh__worker_retire(w);
  apply_xfail(run, t, r);
  run->pending[run->num_pending].test = i;
  run->pending[run->num_pending].result = *r;
  run->num_pending++;
  tqh__result_init(r);
  w->busy = 0;
  w->have_result = 0;
  w->deadline_ns = 0;
  run->running--;
}

/* Records the queued results, in the order their tests finished. */
static tq_status_t record_pending(run_t *run) {
  tq_status_t st = NULL;
  for (size_t k = 0; k < run->num_pending; k++) {
    pending_t *p = &run->pending[k];
    if (!st) st = record(run, p->test, &p->result, run->exec.test_dirs[p->test]);
    tqh__result_deinit(&p->result);
  }
  run->num_pending = 0;
  return st;
}

/* Takes every whole message out of a worker's buffer. */
static tq_status_t drain(run_t *run, tqh__worker_t *w) {
  for (;;) {
    uint32_t type;
    const char *data;
    size_t len;
    int got;
    TQ_TRY(tqh__worker_next_msg(w, &type, &data, &len, &got));
    if (!got) return NULL;
    if (!w->busy) continue; /* nothing is expected from an idle worker */
    if (type == TQH__MSG_LOG) {
      tqh__progress_log(&run->progress, run->tests[w->test]->id, data, len);
    } else if (type == TQH__MSG_PHASE && len >= sizeof(double)) {
      double limit;
      memcpy(&limit, data, sizeof(double));
      snprintf(w->phase, sizeof(w->phase), "%.*s",
               (int)strnlen(data + sizeof(double), len - sizeof(double)), data + sizeof(double));
      w->phase_s = limit;
      w->deadline_ns = limit > 0 ? tqh__now_ns() + (uint64_t)(limit * 1e9) : 0;
    } else if (type == TQH__MSG_RESULT) {
      TQ_TRY(tqh__result_decode(data, len, &w->result));
      w->have_result = 1;
      finish_test(run, w, -1);
    }
  }
}

/* Forks a worker into the free slot `w`. */
static tq_status_t spawn(run_t *run, tqh__worker_t *w) {
  int fds[2 * 64];
  size_t nfds = 0;
  for (size_t k = 0; k < run->num_workers; k++) {
    if (run->workers[k].pid <= 0) continue;
    fds[nfds++] = run->workers[k].fd;
    fds[nfds++] = run->workers[k].cmd_fd;
  }
  uint64_t t0 = tqh__now_ns();
  tq_status_t st = tqh__worker_spawn(w, fds, nfds, tqh__exec_main, &run->exec);
  run->summary->spawn_s += (double)(tqh__now_ns() - t0) / 1e9;
  return st;
}

/* Hands test `i` to an idle worker, forking one when needed. */
static tq_status_t start_test(run_t *run, size_t i) {
  const tqh_test_t *t = run->tests[i];
  tqh__worker_t *idle = NULL, *free_slot = NULL;
  for (size_t k = 0; k < run->num_workers; k++) {
    tqh__worker_t *w = &run->workers[k];
    if (w->pid > 0 && !w->busy && !w->retiring && w->fd >= 0 && !idle) idle = w;
    if (w->pid == 0 && !free_slot) free_slot = w;
  }
  if (!idle) {
    if (!free_slot) return TQ_STATUS(TQ_INTERNAL, "no worker slot is free");
    TQ_TRY(spawn(run, free_slot));
    idle = free_slot;
  }
  run->started_at[i] = realtime_now();
  run->started_ns[i] = tqh__now_ns();
  /* Until the worker says which phase it is in, it has the compile phase's time. */
  tq_status_t st = tqh__worker_assign(idle, i, t->settings.compile_timeout_s);
  if (st) {
    /* The worker died while idle: a fresh one gets the test. */
    tq_status_free(st);
    tqh__worker_kill(idle);
    tqh__worker_reap(idle);
    tqh__result_deinit(&idle->result);
    TQ_TRY(spawn(run, idle));
    TQ_TRY(tqh__worker_assign(idle, i, t->settings.compile_timeout_s));
  }
  run->running++;
  return NULL;
}

/* Whether a test can start now: a live idle worker, or a free slot for a new one. */
static int can_start(const run_t *run) {
  for (size_t k = 0; k < run->num_workers; k++) {
    const tqh__worker_t *w = &run->workers[k];
    if (w->pid == 0 || (!w->busy && !w->retiring && w->fd >= 0)) return 1;
  }
  return 0;
}

/* Stops every worker: kills the busy ones, retires the idle ones, and reaps them all. */
static void stop_workers(run_t *run) {
  for (size_t k = 0; k < run->num_workers; k++) {
    tqh__worker_t *w = &run->workers[k];
    if (w->pid <= 0) continue;
    if (w->busy) tqh__worker_kill(w);
    tqh__worker_retire(w);
  }
  for (size_t k = 0; k < run->num_workers; k++) {
    tqh__worker_t *w = &run->workers[k];
    if (w->pid <= 0) continue;
    tqh__worker_reap(w);
    tqh__result_deinit(&w->result);
  }
}

static tq_status_t loop(run_t *run, const sigset_t *wait_mask) {
  size_t next = 0;
  tq_status_t st = NULL;
  struct pollfd *pfds = tq_calloc(run->num_workers + 1, sizeof(*pfds));
  tqh__worker_t **owners = tq_calloc(run->num_workers + 1, sizeof(*owners));
  if (!pfds || !owners) st = TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  int stopping = 0;
  while (!st) {
    if (!stopping && cancelled(run)) {
      stopping = 1;
      run->summary->cancelled = 1;
      tqh__progress_print(&run->progress,
                          "\ntorq-test: interrupted: stopping the running tests; "
                          "the reports of finished tests are kept\n");
      for (size_t k = 0; k < run->num_workers; k++) {
        tqh__worker_t *w = &run->workers[k];
        if (w->pid <= 0) continue;
        if (w->busy) {
          w->cancelled = 1;
          tqh__worker_kill(w);
        }
        tqh__worker_retire(w);
      }
    }
    while (!st && !stopping && next < run->num_tests && can_start(run)) {
      const tqh_test_t *t = run->tests[next];
      if (t->skip) {
        run->started_at[next] = realtime_now();
        st = record_simple(run, next, TQH_OUTCOME_SKIPPED, "skip", t->skip);
      } else {
        st = start_test(run, next);
      }
      next++;
    }
    if (!st) st = record_pending(run);
    if (st || (run->running == 0 && (stopping || next >= run->num_tests))) break;

    size_t n = 0;
    uint64_t now = tqh__now_ns(), wake = 0;
    for (size_t k = 0; k < run->num_workers; k++) {
      tqh__worker_t *w = &run->workers[k];
      if (w->pid <= 0 || w->fd < 0) continue;
      pfds[n].fd = w->fd;
      pfds[n].events = POLLIN;
      pfds[n].revents = 0;
      owners[n++] = w;
      if (w->busy && w->deadline_ns && !w->timed_out && (!wake || w->deadline_ns < wake))
        wake = w->deadline_ns;
    }
    struct timespec ts, *tsp = NULL;
    uint64_t wait_ns = UINT64_MAX;
    if (wake) wait_ns = wake > now ? wake - now : 0;
    if (run->progress.tty && wait_ns > 100000000u) wait_ns = 100000000u;
    if (wait_ns != UINT64_MAX) {
      ts.tv_sec = (time_t)(wait_ns / 1000000000u);
      ts.tv_nsec = (long)(wait_ns % 1000000000u);
      tsp = &ts;
    }
    int rc = ppoll(pfds, n, tsp, wait_mask);
    if (rc < 0 && errno != EINTR) {
      st = TQ_STATUS(TQ_UNAVAILABLE, "poll failed: %s", strerror(errno));
      break;
    }
    for (size_t k = 0; rc > 0 && k < n && !st; k++) {
      if (!pfds[k].revents) continue;
      tqh__worker_t *w = owners[k];
      st = tqh__worker_read(w);
      if (!st) st = drain(run, w);
      if (st) {
        /* A worker that talks nonsense is killed; its test is an error. */
        tqh__worker_kill(w);
        tq_status_free(st);
        st = NULL;
      }
    }
    /* End of file: the worker is gone (retired, crashed or killed). */
    for (size_t k = 0; k < run->num_workers; k++) {
      tqh__worker_t *w = &run->workers[k];
      if (w->pid <= 0 || w->fd >= 0) continue;
      int status = tqh__worker_reap(w);
      if (w->busy) finish_test(run, w, status);
      tqh__result_deinit(&w->result);
    }
    now = tqh__now_ns();
    for (size_t k = 0; k < run->num_workers; k++) {
      tqh__worker_t *w = &run->workers[k];
      if (w->pid > 0 && w->busy && w->deadline_ns && !w->timed_out && now >= w->deadline_ns) {
        w->timed_out = 1;
        tqh__worker_kill(w);
      }
    }
    tqh__progress_tick(&run->progress, run->running);
  }
  for (size_t k = 0; k < run->num_pending; k++) tqh__result_deinit(&run->pending[k].result);
  run->num_pending = 0;
  stop_workers(run);
  run->running = 0;
  /* Whatever did not start is recorded as not run. */
  for (; !st && next < run->num_tests; next++)
    st = record_simple(run, next, TQH_OUTCOME_NOT_RUN, "not_run",
                       run->summary->cancelled ? "not run: the run was interrupted" : "not run");
  tq_free(pfds);
  tq_free(owners);
  return st;
}

static int auto_tty(const tqh_runner_options_t *o, FILE *out) {
  if (o->tty >= 0) return o->tty;
  return isatty(fileno(out));
}

static int auto_color(const tqh_runner_options_t *o, int tty) {
  if (o->color >= 0) return o->color;
  const char *nc = getenv("NO_COLOR");
  if (nc && *nc) return 0;
  const char *term = getenv("TERM");
  if (term && !strcmp(term, "dumb")) return 0;
  return tty;
}

tq_status_t tqh_runner_run(const tqh_runner_options_t *options, const tqh_test_t *const *tests,
                           size_t num_tests, tqh_results_t *results,
                           tqh_runner_summary_t *out_summary) {
  memset(out_summary, 0, sizeof(*out_summary));
  if (!options->cache_dir) return TQ_STATUS(TQ_INVALID_ARGUMENT, "no cache folder given");
  uint64_t t0 = tqh__now_ns();
  run_t run;
  memset(&run, 0, sizeof(run));
  run.options = options;
  run.tests = tests;
  run.num_tests = num_tests;
  run.results = results;
  run.summary = out_summary;
  run.num_workers = options->jobs ? options->jobs : 1;
  if (run.num_workers > 64) run.num_workers = 64;
  FILE *out = options->out ? options->out : stdout;
  int tty = auto_tty(options, out);
  tqh__progress_init(&run.progress, out, tty, auto_color(options, tty), options->verbosity,
                     num_tests);

  for (size_t i = 0; i < num_tests; i++)
    if (!tqh_results_id_is_safe(tests[i]->fs_id))
      return TQ_STATUS(TQ_INVALID_ARGUMENT, "test '%s': '%s' is not a safe folder name",
                       tests[i]->id, tests[i]->fs_id);
  tq_status_t st = tqh__cache_init(&run.cache, options->cache_dir, options->recompute_cache);
  if (st) return st;
  int fetching = 0;
  for (size_t i = 0; i < num_tests && !fetching; i++)
    fetching = tests[i]->model.kind == TQH_MODEL_URL && !tests[i]->skip;
  if (fetching && (st = tqh__fetch_global_init())) {
    tqh__cache_deinit(&run.cache);
    return st;
  }
  run.exec.options = options;
  run.exec.tests = tests;
  run.exec.cache = &run.cache;
  run.exec.test_dirs = tq_calloc(num_tests + 1, sizeof(char *));
  run.started_at = tq_calloc(num_tests + 1, sizeof(double));
  run.started_ns = tq_calloc(num_tests + 1, sizeof(uint64_t));
  run.workers = tq_calloc(run.num_workers, sizeof(tqh__worker_t));
  run.pending = tq_calloc(run.num_workers, sizeof(pending_t));
  if (!run.exec.test_dirs || !run.started_at || !run.started_ns || !run.workers || !run.pending)
    st = TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  for (size_t k = 0; !st && k < run.num_workers; k++) {
    run.workers[k].fd = -1;
    run.workers[k].cmd_fd = -1;
  }
  /* Every test's folder path, before any worker is forked (workers inherit them). The worker
   * makes the folder: one file-system operation less in the parent, the runner's bottleneck. */
  for (size_t i = 0; !st && i < num_tests; i++) {
    tq_buf_t dir;
    tq_buf_init(&dir, 0);
    st = tq_buf_printf(&dir, "%s/%s", tqh_results_run_dir(results), tests[i]->fs_id);
    if (!st && !(run.exec.test_dirs[i] = tq_buf_detach(&dir)))
      st = TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
    tq_buf_deinit(&dir);
  }

  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  sigaddset(&block, SIGTERM);
  sigaddset(&block, SIGHUP);
  sigprocmask(SIG_BLOCK, &block, &old);
  sigset_t wait_mask = old;
  sigdelset(&wait_mask, SIGINT);
  sigdelset(&wait_mask, SIGTERM);
  sigdelset(&wait_mask, SIGHUP);

  /* A worker that died while idle must not kill the parent with SIGPIPE when it is handed a
   * test: the write fails instead, and a fresh worker takes the test. */
  struct sigaction ign, old_pipe;
  memset(&ign, 0, sizeof(ign));
  ign.sa_handler = SIG_IGN;
  sigemptyset(&ign.sa_mask);
  sigaction(SIGPIPE, &ign, &old_pipe);
  if (!st) st = loop(&run, &wait_mask);
  sigaction(SIGPIPE, &old_pipe, NULL);
  tqh__progress_clear(&run.progress);
  if (!st) st = tqh_results_finish(results);
  out_summary->elapsed_s = (double)(tqh__now_ns() - t0) / 1e9;
  if (!st && options->print_summary) {
    char *text = NULL;
    st = tqh_results_summary(results, &text);
    if (!st && text) {
      fputs(text, out);
      fflush(out);
    }
    tq_free(text);
  }
  sigprocmask(SIG_SETMASK, &old, NULL);

  for (size_t i = 0; run.exec.test_dirs && i < num_tests; i++) tq_free(run.exec.test_dirs[i]);
  tq_free(run.exec.test_dirs);
  tq_free(run.started_at);
  tq_free(run.started_ns);
  tq_free(run.workers);
  tq_free(run.pending);
  tqh__cache_deinit(&run.cache);
  if (fetching) tqh__fetch_global_cleanup();
  return st;
}
