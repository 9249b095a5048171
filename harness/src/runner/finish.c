/* What a finished test becomes (runner_internal.h): the expected-failure rules applied to its
 * result, its record in the results (results.h; the baseline's verdict first, the upload's queue
 * after), the progress and the summary's counts; a crashed or killed worker's test gets its
 * verdict here, and a board's test that met an infrastructure fault is queued once more. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runner_internal.h"
#include "torq/base/alloc.h"
#include "torq/harness/baseline.h"
#include "torq/harness/files.h"
#include "torq/harness/process.h"
#include "torq/harness/stats.h"
#include "torq/harness/upload.h"

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
static void apply_xfail(const tqh__run_t *run, const tqh_test_t *t, tqh_test_result_t *r) {
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

/* Where test `i` was to run, for a test no board ran (not run, its board down): its board, the
 * pool's boards ("b1,b2"), or its own target ("sim" by default). */
static void planned_target(const tqh__run_t *run, size_t i, tq_buf_t *out) {
  const tqh_test_t *t = run->tests[i];
  size_t cls = run->test_class ? run->test_class[i] : TQH__CLASS_SIM;
  tq_status_t st = NULL;
  if (!run->boards || cls == TQH__CLASS_SIM) {
    st = tq_buf_append_cstr(out, t->target ? t->target : "sim");
  } else if (cls != run->pool_class) {
    st = tq_buf_append_cstr(out, run->boards->boards[cls - 1].name);
  } else {
    for (size_t b = 0; b < run->num_boards && !st; b++)
      st = tq_buf_printf(out, "%s%s", b ? "," : "", run->boards->boards[b].name);
  }
  tq_status_free(st);
}

/* Records a finished (or never run) test, over at `ended_ns` (0: now): the results, the
 * progress, the summary. */
static tq_status_t record(tqh__run_t *run, size_t i, tqh_test_result_t *r, uint64_t ended_ns) {
  const tqh_test_t *t = run->tests[i];
  char model[256];
  model_title(t, model, sizeof(model));
  /* An overview without an annotator says so in its title (an external toolchain's). */
  for (size_t k = 0; k < r->num_properties; k++)
    if (!strcmp(r->property_keys[k], "overview")) {
      size_t used = strlen(model);
      snprintf(model + used, sizeof(model) - used, " (profile.csv alone: no annotator)");
    }
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
  tqh_stats_t device;
  memset(&device, 0, sizeof(device));
  if (r->num_device_samples)
    tq_status_free(tqh_stats_compute(r->device_samples, r->num_device_samples, &device));
  tqh_property_t props[5 + TQH_RESULT_MAX_PROPERTIES];
  size_t np = 0;
  tq_buf_t target;
  tq_buf_init(&target, 0);
  if (!r->board) planned_target(run, i, &target);
  props[np++] = (tqh_property_t){"target", r->board ? r->board : target.data ? target.data : "sim"};
  if (r->board) props[np++] = (tqh_property_t){"board", r->board};
  if (run->retry_note && run->retry_note[i]) {
    /* The first attempt's fault, before whatever the last attempt said. */
    tq_buf_t text;
    tq_buf_init(&text, 0);
    tq_status_t tst =
        tq_buf_printf(&text, "first attempt: %s\n%s", run->retry_note[i], r->text ? r->text : "");
    if (!tst) {
      tq_free(r->text);
      r->text = tq_buf_detach(&text);
    }
    tq_status_free(tst);
    tq_buf_deinit(&text);
  }
  if (t->tag_count && tags.data) props[np++] = (tqh_property_t){"tags", tags.data};
  if (t->model.kind == TQH_MODEL_PATH) props[np++] = (tqh_property_t){"model_path", t->model.path};
  for (size_t k = 0; k < r->num_properties; k++)
    props[np++] = (tqh_property_t){r->property_keys[k], r->property_values[k]};

  double now = tqh_now_unix();
  tqh_test_record_t rec;
  memset(&rec, 0, sizeof(rec));
  rec.id = t->fs_id;
  rec.test_id = t->id;
  rec.host = r->board;
  rec.name = case_name(t);
  rec.classname = t->suite->name;
  rec.model = model;
  rec.outcome = r->outcome;
  rec.message = r->message;
  rec.failure_type = r->failure_type;
  rec.text = r->text;
  rec.started_at = run->started_at[i];
  if (!ended_ns) ended_ns = tqh_now_ns();
  rec.duration_s = run->started_ns[i] && ended_ns > run->started_ns[i]
                       ? (double)(ended_ns - run->started_ns[i]) / 1e9
                       : 0;
  if (!run->started_ns[i]) rec.started_at = now;
  rec.has_wall_time = r->has_wall_time && r->num_samples > 0;
  rec.wall_time_s = stats.median;
  rec.wall_stats = stats;
  rec.wall_samples = r->samples;
  rec.wall_sample_count = r->num_samples;
  rec.has_device_time = r->num_device_samples > 0;
  rec.device_stats = device;
  rec.device_samples = r->device_samples;
  rec.device_sample_count = r->num_device_samples;
  rec.cache = r->cache;
  rec.compile_s = r->compile_s;
  rec.run_s = r->run_s;
  rec.has_estimated_cycles = r->has_estimated_cycles;
  rec.estimated_cycles = r->estimated_cycles;
  rec.metrics = metrics;
  rec.metric_count = r->num_metrics;
  rec.recon = r->recon;
  rec.recon_count = r->num_recon;
  rec.clock_hz = r->clock_hz;
  rec.properties = props;
  rec.property_count = np;
  rec.files = (const char *const *)r->files;
  rec.file_count = r->num_files;
  tqh_baseline_verdict_t bv; /* --baseline: may turn a passed test into a regression */
  tqh_baseline_verdict_init(&bv);
  if (!st && run->options->baseline)
    st = tqh_baseline_apply(run->options->baseline, t->settings.baseline_floor_pct,
                            t->settings.baseline_gate, t->settings.baseline_gate_count, &rec, &bv);
  if (r->outcome == TQH_OUTCOME_PASSED && rec.outcome == TQH_OUTCOME_FAILED) run->failures++;
  r->outcome = rec.outcome;
  uint64_t t0 = tqh_now_ns();
  /* A test that found a local disk full (its folder, the compile cache): the next ones would
   * too. */
  if (!st && !r->board && r->outcome != TQH_OUTCOME_PASSED && r->message &&
      tqh_text_says_disk_full(r->message))
    tqh__run_fault(run, r->message);
  int recorded = 0;
  for (int attempt = 0; !st && !recorded && attempt < 2; attempt++) {
    tq_status_t rst = tqh_results_test_finished(run->results, &rec);
    if (!rst) {
      recorded = 1;
    } else if (tq_status_code(rst) == TQ_OUT_OF_MEMORY) {
      st = rst;
    } else {
      /* The results cannot be written: the run stops. Once more with the reserve freed (a full
       * disk), then the record is given up (counted, and said at the end). */
      char *text = tq_status_format(rst, 0);
      int had_fault = run->fault != NULL;
      tqh__run_fault(run, text ? text : tq_status_message(rst));
      free(text);
      tq_status_free(rst);
      if (had_fault || attempt) run->unrecorded++;
      if (had_fault) break;
    }
  }
  if (!st && recorded) st = tqh_uploader_test_finished(run->options->uploader, t->fs_id);
  run->summary->record_s += (double)(tqh_now_ns() - t0) / 1e9;
  tq_free(metrics);
  tq_buf_deinit(&tags);
  tq_buf_deinit(&target);

  tqh_runner_summary_t *s = run->summary;
  if ((unsigned)r->outcome < TQH_OUTCOME_COUNT) s->counts[r->outcome]++;
  if (r->cache == TQH_CACHE_HIT) s->cache_hits++;
  if (r->cache == TQH_CACHE_MISS) s->cache_misses++;
  if (r->infrastructure) s->infrastructure_errors++;
  s->compile_s += r->compile_s;
  s->run_s += r->run_s;
  tqh__progress_test(&run->progress, t->id, r->outcome, rec.has_wall_time ? stats.median : -1,
                     r->outcome == TQH_OUTCOME_PASSED ? NULL : rec.message);
  if (bv.log && run->options->verbosity >= 0) tqh__progress_print(&run->progress, bv.log);
  tqh_baseline_verdict_deinit(&bv);
  return st;
}

tq_status_t tqh__run_record_simple(tqh__run_t *run, size_t i, tqh_outcome_t outcome,
                                   const char *type, const char *message) {
  tqh_test_result_t r;
  tqh_test_result_init(&r);
  r.outcome = outcome;
  r.infrastructure = type && !strncmp(type, "infra_", 6);
  r.failure_type = type ? tq_strndup(type, strlen(type)) : NULL;
  r.message = message ? tq_strndup(message, strlen(message)) : NULL;
  run->failures += outcome == TQH_OUTCOME_FAILED || outcome == TQH_OUTCOME_ERROR;
  tq_status_t st = record(run, i, &r, 0);
  tqh_test_result_deinit(&r);
  return st;
}

/* Whether another attempt of test `i` can be made: first attempt, and a live board for it. */
static int can_retry(const tqh__run_t *run, size_t i) {
  if (run->attempts[i] >= 2) return 0;
  size_t cls = run->test_class[i];
  if (cls == run->pool_class) return tqh__run_any_board_alive(run);
  return cls > TQH__CLASS_SIM && !run->board_dead[cls - 1];
}

/* The test of worker `w` is over: by its RESULT (`status` < 0; the worker lives on), or because
 * the worker died (`status`: its wait status). Queues the test's result, which is recorded after
 * the next test has started, so that writing the reports overlaps that test's work; or queues
 * the test again after an infrastructure fault on a board. */
void tqh__run_finish_test(tqh__run_t *run, tqh__worker_t *w, int status) {
  size_t i = w->test;
  const tqh_test_t *t = run->tests[i];
  tqh_test_result_t *r = &w->result;
  int board = tqh__run_worker_board(run, w);
  char sig[32];
  int interrupted =
      status >= 0 && WIFSIGNALED(status) &&
      (WTERMSIG(status) == SIGINT || WTERMSIG(status) == SIGTERM || WTERMSIG(status) == SIGHUP);
  if (w->have_result) {
    /* Done, whatever happened after (a kill at the deadline that came too late). */
  } else if (w->cancelled || (interrupted && tqh__run_cancelled(run))) {
    tqh_test_result_deinit(r);
    tqh_test_result_init(r);
    r->outcome = TQH_OUTCOME_NOT_RUN;
    r->message = tqh__run_not_run_message(run, 1);
    if (board >= 0)
      r->board =
          tq_strndup(run->boards->boards[board].name, strlen(run->boards->boards[board].name));
  } else if (w->timed_out) {
    tqh_test_result_deinit(r);
    tqh_test_result_init(r);
    if (board >= 0) {
      /* The transport bounds every remote step itself: a worker past the deadline is stuck on
       * the board's side (a connection that hangs). */
      tqh_test_result_fail(r, TQH_OUTCOME_ERROR, "infra_timeout",
                           "timeout: the %s phase on board %s took longer than %gs", w->phase,
                           run->boards->boards[board].name, w->phase_s);
      r->infrastructure = 1;
      r->board =
          tq_strndup(run->boards->boards[board].name, strlen(run->boards->boards[board].name));
    } else {
      tqh_test_result_fail(r, TQH_OUTCOME_ERROR, "timeout",
                           "timeout: the %s phase took longer than %gs", w->phase, w->phase_s);
    }
  } else {
    tqh_test_result_deinit(r);
    tqh_test_result_init(r);
    if (status >= 0 && WIFSIGNALED(status)) {
      tqh_test_result_fail(r, TQH_OUTCOME_ERROR, "crash", "crashed with %s in the %s phase",
                           tqh_signal_name(WTERMSIG(status), sig), w->phase);
    } else {
      tqh_test_result_fail(r, TQH_OUTCOME_ERROR, "crash",
                           "the worker exited with status %d without a result",
                           status >= 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    }
    r->text = stderr_tail(run->exec.test_dirs[i]);
    tq_status_free(tqh_test_result_add_file(r, "stdout.txt"));
    tq_status_free(tqh_test_result_add_file(r, "stderr.txt"));
  }
  w->tests_run++;
  if (board >= 0) {
    /* A board's worker holds its session and lease for the run; it goes only when its board
     * is down (it then releases what it can and exits). */
    if (r->board_down && !run->board_dead[board]) {
      run->board_dead[board] = 1;
      char line[1200];
      snprintf(line, sizeof(line), "torq-test: board %s is down; it takes no more tests: %s\n",
               run->boards->boards[board].name, r->message ? r->message : "");
      if (run->options->verbosity >= 0) tqh__progress_print(&run->progress, line);
    }
    if (w->pid > 0 && r->board_down) tqh__worker_retire(w);
  } else if (w->pid > 0 &&
             (r->outcome != TQH_OUTCOME_PASSED || w->tests_run >= TQH__WORKER_MAX_TESTS)) {
    /* A fresh worker after anything but a pass, so that whatever a failing test did to its
     * process cannot reach the next test; and now and then anyway. */
    tqh__worker_retire(w);
  }
  w->busy = 0;
  w->have_result = 0;
  w->deadline_ns = 0;
  run->running--;
  if (board >= 0 && r->infrastructure && r->outcome == TQH_OUTCOME_ERROR && can_retry(run, i)) {
    tq_buf_t note;
    tq_buf_init(&note, 0);
    tq_status_free(tq_buf_printf(&note, "%s on board %s: %s",
                                 r->failure_type ? r->failure_type : "infrastructure",
                                 run->boards->boards[board].name, r->message ? r->message : ""));
    tq_free(run->retry_note[i]);
    run->retry_note[i] = tq_buf_detach(&note);
    tq_buf_deinit(&note);
    if (run->options->verbosity >= 0) {
      char line[1400];
      snprintf(line, sizeof(line), "torq-test: %s: %s; trying once more\n", t->id,
               run->retry_note[i] ? run->retry_note[i] : "infrastructure fault");
      tqh__progress_print(&run->progress, line);
    }
    tqh__run_queue_push_front(run, run->test_class[i], i);
    tqh_test_result_deinit(r);
    tqh_test_result_init(r);
    return;
  }
  apply_xfail(run, t, r);
  run->failures += r->outcome == TQH_OUTCOME_FAILED || r->outcome == TQH_OUTCOME_ERROR;
  run->pending[run->num_pending].test = i;
  run->pending[run->num_pending].ended_ns = tqh_now_ns();
  run->pending[run->num_pending].result = *r;
  run->num_pending++;
  tqh_test_result_init(r);
}

void tqh__run_fault(tqh__run_t *run, const char *why) {
  if (run->fault) return;
  run->fault = tq_strdup_printf("%s", why);
  run->summary->infrastructure_errors++;
  int full = tqh_text_says_disk_full(why);
  int freed = full && tqh_results_release_reserve(run->results);
  char line[1400];
  snprintf(line, sizeof(line),
           "torq-test: the run stops: %s%.1100s; the tests not run are recorded as such%s\n",
           full ? "a disk is full: " : "the results cannot be written: ", why,
           freed ? " (in the space the run had set aside)" : "");
  tqh__progress_print(&run->progress, line);
}

char *tqh__run_not_run_message(const tqh__run_t *run, int was_running) {
  if (run->fault)
    return tq_strdup_printf("not run: the run stopped%s: %s%.400s",
                            was_running ? " while it was running" : "",
                            tqh_text_says_disk_full(run->fault) ? "a disk is full: "
                                                                : "the results cannot be written: ",
                            run->fault);
  return tq_strdup_printf(
      "%s", was_running ? "interrupted while running" : "not run: the run was interrupted");
}

/* The tests that only dead boards could run end as errors. */
tq_status_t tqh__run_fail_orphans(tqh__run_t *run) {
  int alive = tqh__run_any_board_alive(run);
  tq_status_t st = NULL;
  for (size_t b = 0; b < run->num_boards && !st; b++) {
    size_t cls = 1 + b, i;
    if (!run->board_dead[b]) continue;
    while (!st && tqh__run_queue_pop(run, cls, &i)) {
      char msg[512];
      snprintf(msg, sizeof(msg), "not run: board %s is down", run->boards->boards[b].name);
      run->started_at[i] = tqh_now_unix();
      st = tqh__run_record_simple(run, i, TQH_OUTCOME_ERROR, "infra_board_down", msg);
    }
  }
  if (!alive && run->num_boards) {
    size_t i;
    while (!st && tqh__run_queue_pop(run, run->pool_class, &i)) {
      run->started_at[i] = tqh_now_unix();
      st = tqh__run_record_simple(run, i, TQH_OUTCOME_ERROR, "infra_board_down",
                                  "not run: every board of the pool is down");
    }
  }
  return st;
}

/* Records the queued results, in the order their tests finished. */
tq_status_t tqh__run_record_pending(tqh__run_t *run) {
  tq_status_t st = NULL;
  for (size_t k = 0; k < run->num_pending; k++) {
    tqh__pending_t *p = &run->pending[k];
    if (!st) st = record(run, p->test, &p->result, p->ended_ns);
    tqh_test_result_deinit(&p->result);
  }
  run->num_pending = 0;
  return st;
}
