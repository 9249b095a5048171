/* The runner's parent process: hands tests to forked workers (worker.c, worker_main.c), waits
 * for them with one ppoll() over their pipes, turns what they report (or how they died) into test
 * records (finish.c), and is the only writer of the results (results.h).
 *
 * Slots: `jobs` simulator workers, then one worker per board (board.h). Tests wait in queues: one
 * for the simulator, one per board (tests whose target names it), one for the pool (every test
 * with --torq-runtime-hw-type=astra_machina); a board's worker takes from its own queue, then
 * from the pool's, so tests go out as boards free up. A board worker keeps its process (and so its
 * SSH session and lease) for the whole run unless it crashes: a product failure on a board leaves
 * nothing behind in the worker. A board test that ended in an infrastructure fault is queued once
 * more (first in line: the same board after its worker reconnected, or another of the pool); a
 * board that cannot be reached again takes no more tests, and the tests only it could run end as
 * infra_board_down errors.
 *
 * Signals: SIGINT, SIGTERM and SIGHUP are blocked except inside ppoll(), which unblocks them
 * atomically; so the tool's handler (which sets *options->cancel) can only run while the parent
 * waits, and a report is never interrupted half-way. Every wait after the first signal is a ppoll
 * too (the workers' last words, a board's cleanup), so that the tool's handler can end the
 * process at a second one. A board whose worker was killed mid-test is cleaned up by a fresh
 * process of its slot (clean_boards).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "runner_internal.h"
#include "torq/base/alloc.h"
#include "torq/harness/fetch.h"
#include "torq/harness/process.h"
#include "torq/harness/upload.h"

void tqh_runner_options_initialize(tqh_runner_options_t *options) {
  memset(options, 0, sizeof(*options));
  options->jobs = 1;
  options->color = -1;
  options->profiling = 1;
  options->print_summary = 1;
  tqh_summary_options_initialize(&options->summary);
}

int tqh_runner_exit_code(const tqh_runner_summary_t *summary) {
  if (summary->cancelled) return 130;
  if (summary->infrastructure_errors) return 3;
  if (summary->counts[TQH_OUTCOME_FAILED] || summary->counts[TQH_OUTCOME_ERROR]) return 1;
  return 0;
}

/* ---- The next tests, sent ahead -------------------------------------------------------------
 * In a run on the simulator alone, the parent puts each worker's next tests (TQH__AHEAD) in its
 * command pipe while its current one runs: the worker starts the next as soon as it has sent its
 * result, without waiting for the parent to take it, and the parent records the previous tests
 * meanwhile (two, so that a late wake-up of the parent does not stall the worker). A worker that
 * is free while the queue is empty takes over the tests sent ahead to another that has not begun
 * them (tqh__worker_take_back), so that none waits behind a long test. A simulator worker exits
 * after a test that did not pass (worker_main.c), just as the parent retires it then: its tests
 * sent ahead go back in front of the queue, as they do whenever the worker does not run them. */

/* The tests sent ahead to `w` after the first `keep` go back in front of their queues (keep 0:
 * all of them, when the worker will not run them). */
static void give_back(tqh__run_t *run, tqh__worker_t *w, size_t keep) {
  while (w->num_next > keep) {
    size_t j = w->next[--w->num_next].test;
    tqh__run_queue_push_front(run, run->test_class[j], j);
  }
}

/* Test `i` starts as command `seq` of worker `w`, at `start_ns` (0: now): its start time and
 * attempt; its deadline counts from then. */
static void test_begins(tqh__run_t *run, size_t i, tqh__worker_t *w, uint64_t seq,
                        uint64_t start_ns) {
  uint64_t now = tqh_now_ns();
  if (!start_ns || start_ns > now) start_ns = now;
  run->started_at[i] = tqh_now_unix() - (double)(now - start_ns) / 1e9;
  run->started_ns[i] = start_ns;
  run->attempts[i]++;
  tqh__worker_begin(w, i, seq, start_ns, run->tests[i]->settings.compile_timeout_s);
  run->running++;
}

/* The test of `w` is over (its RESULT): the first test sent ahead is now the one it runs, unless
 * the worker does not run them (retired, or killed). */
static void begin_next(tqh__run_t *run, tqh__worker_t *w) {
  if (!w->num_next) return;
  if (w->pid <= 0 || w->busy || w->retiring || w->timed_out || w->cancelled) {
    give_back(run, w, 0);
    return;
  }
  size_t j = w->next[0].test;
  uint64_t seq = w->next[0].seq;
  w->num_next--;
  memmove(w->next, w->next + 1, w->num_next * sizeof(w->next[0]));
  /* The worker took it when it sent its last result, mostly before the parent read that: it
   * began then. */
  test_begins(run, j, w, seq, tqh__worker_begun_ns(w, seq));
}

/* Records test `i`, which is to be skipped, as such. */
static tq_status_t record_skip(tqh__run_t *run, size_t i) {
  run->started_at[i] = tqh_now_unix();
  return tqh__run_record_simple(run, i, TQH_OUTCOME_SKIPPED, "skip", run->tests[i]->skip);
}

/* Tests are sent ahead to the workers of a run on the simulator alone: a board's worker keeps its
 * own pace (connections, leases), and without a board to share the worker could not give its
 * tests back. One worker needs no board for that: there is no other to give them to. */
static int sends_ahead(const tqh__run_t *run, const tqh__worker_t *w) {
  return !run->num_boards && (w->board || run->num_workers == 1);
}

static tq_status_t send_ahead(tqh__run_t *run) {
  for (size_t k = 0; k < run->num_workers; k++) {
    tqh__worker_t *w = &run->workers[k];
    /* The worker must live to run them, and not be replaced before (TQH__WORKER_MAX_TESTS);
     * one whose tests were taken back is held up in a long test. */
    if (!sends_ahead(run, w) || w->pid <= 0 || !w->busy || w->retiring || w->fd < 0 ||
        w->timed_out || w->cancelled || tqh__worker_taking_back(w))
      continue;
    size_t i;
    while (w->num_next < TQH__AHEAD &&
           w->tests_run + 1 + w->num_next + 1 <= TQH__WORKER_MAX_TESTS &&
           tqh__run_queue_pop(run, TQH__CLASS_SIM, &i)) {
      if (run->tests[i]->skip) {
        TQ_TRY(record_skip(run, i));
        continue;
      }
      uint64_t seq;
      tq_status_t st = tqh__worker_send(w, i, &seq);
      if (st) {
        /* The worker is gone: its end of file comes next, and the test waits for another. */
        tq_status_free(st);
        tqh__run_queue_push_front(run, TQH__CLASS_SIM, i);
        break;
      }
      w->next[w->num_next].test = i;
      w->next[w->num_next++].seq = seq;
    }
  }
  return NULL;
}

/* Takes back from worker `w` the tests sent ahead that it has not begun, into the front of the
 * simulator's queue; whether any were. */
static int take_back_unbegun(tqh__run_t *run, tqh__worker_t *w) {
  size_t kept;
  if (w->pid <= 0 || !w->busy || !w->num_next || !tqh__worker_take_back(w, &kept)) return 0;
  give_back(run, w, kept);
  return 1;
}

/* The simulator's queue is empty and a slot is free: the tests one worker was sent ahead and has
 * not begun go to the queue. */
static void take_back_for_free_slot(tqh__run_t *run) {
  for (size_t k = 0; k < run->num_workers; k++)
    if (take_back_unbegun(run, &run->workers[k])) return;
}

/* Takes every whole message out of a worker's buffer. */
static tq_status_t drain(tqh__run_t *run, tqh__worker_t *w) {
  for (;;) {
    uint32_t type;
    const char *data;
    size_t len;
    int got;
    TQ_TRY(tqh__worker_next_msg(w, &type, &data, &len, &got));
    if (!got) return NULL;
    if (type == TQH__MSG_NOTE) {
      if (run->options->verbosity >= 0) {
        char line[1200];
        snprintf(line, sizeof(line), "torq-test: %.*s\n", (int)(len < 1100 ? len : 1100), data);
        tqh__progress_print(&run->progress, line);
      }
      continue;
    }
    if (!w->busy) continue; /* nothing else is expected from an idle worker */
    if (type == TQH__MSG_LOG) {
      tqh__progress_log(&run->progress, run->tests[w->test]->id, data, len);
    } else if (type == TQH__MSG_PHASE && w->board) {
      tqh__worker_sync_phase(w); /* the board says more than the message: it may be newer */
    } else if (type == TQH__MSG_PHASE && len >= sizeof(double)) {
      double limit;
      memcpy(&limit, data, sizeof(double));
      snprintf(w->phase, sizeof(w->phase), "%.*s",
               (int)strnlen(data + sizeof(double), len - sizeof(double)), data + sizeof(double));
      w->phase_s = limit;
      w->deadline_ns = limit > 0 ? tqh_now_ns() + (uint64_t)(limit * 1e9) : 0;
    } else if (type == TQH__MSG_RESULT) {
      TQ_TRY(tqh__result_decode(data, len, &w->result));
      w->have_result = 1;
      tqh__run_finish_test(run, w, -1);
      begin_next(run, w);
    }
  }
}

/* Forks a process running `main_fn` (and `hooks`) into the free slot `w`. */
static tq_status_t spawn_main(tqh__run_t *run, tqh__worker_t *w, tqh__worker_main_fn main_fn,
                              const tqh__worker_hooks_t *hooks) {
  int *fds = tq_calloc(2 * run->num_workers + 2, sizeof(int));
  if (!fds) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  size_t nfds = 0;
  if (tqh_uploader_fd(run->options->uploader) >= 0)
    fds[nfds++] = tqh_uploader_fd(run->options->uploader);
  for (size_t k = 0; k < run->num_workers; k++) {
    if (run->workers[k].pid <= 0) continue;
    fds[nfds++] = run->workers[k].fd;
    fds[nfds++] = run->workers[k].cmd_fd;
  }
  size_t slot = (size_t)(w - run->workers);
  uint64_t t0 = tqh_now_ns();
  tq_status_t st = tqh__worker_spawn_hooks(w, fds, nfds, main_fn, &run->ctxs[slot], hooks);
  run->summary->spawn_s += (double)(tqh_now_ns() - t0) / 1e9;
  tq_free(fds);
  return st;
}

/* Forks a worker into the free slot `w`. */
static tq_status_t spawn(tqh__run_t *run, tqh__worker_t *w) {
  int board = tqh__run_worker_board(run, w);
  return spawn_main(run, w, tqh__worker_test_main, board >= 0 ? &run->board_hooks : NULL);
}

/* Hands test `i` to the worker of slot `k`, forking one when needed. */
static tq_status_t start_test(tqh__run_t *run, size_t i, size_t k) {
  tqh__worker_t *w = &run->workers[k];
  if (w->pid == 0) TQ_TRY(spawn(run, w));
  uint64_t seq;
  tq_status_t st = tqh__worker_send(w, i, &seq);
  if (st) {
    /* The worker died while idle: a fresh one gets the test. */
    tq_status_free(st);
    tqh__worker_kill(w);
    tqh__worker_reap(w);
    tqh_test_result_deinit(&w->result);
    TQ_TRY(spawn(run, w));
    TQ_TRY(tqh__worker_send(w, i, &seq));
  }
  /* Until the worker says which phase it is in, it has the compile phase's time. */
  test_begins(run, i, w, seq, 0);
  return NULL;
}

/* Whether slot `k` can take a test now: a live idle worker, or no worker yet (and a live
 * board). */
static int slot_free(const tqh__run_t *run, size_t k) {
  const tqh__worker_t *w = &run->workers[k];
  int board = tqh__run_slot_board(run, k);
  if (board >= 0 && run->board_dead[board]) return 0;
  return w->pid == 0 || (!w->busy && !w->retiring && w->fd >= 0);
}

/* The next test for slot `k`: its board's own tests first, then the pool's. */
static int next_for_slot(tqh__run_t *run, size_t k, size_t *out_test) {
  int board = tqh__run_slot_board(run, k);
  if (board < 0) return tqh__run_queue_pop(run, TQH__CLASS_SIM, out_test);
  return tqh__run_queue_pop(run, 1 + (size_t)board, out_test) ||
         tqh__run_queue_pop(run, run->pool_class, out_test);
}

/* Starts what can start: every free slot gets the next test of its queues (skipped tests are
 * recorded on the way). */
static tq_status_t start_tests(tqh__run_t *run) {
  tq_status_t st = NULL;
  for (size_t k = 0; k < run->num_workers && !st; k++) {
    size_t i;
    if (slot_free(run, k) && tqh__run_slot_board(run, k) < 0 &&
        run->queues[TQH__CLASS_SIM].head == run->queues[TQH__CLASS_SIM].tail)
      take_back_for_free_slot(run);
    while (!st && slot_free(run, k) && next_for_slot(run, k, &i))
      st = run->tests[i]->skip ? record_skip(run, i) : start_test(run, i, k);
  }
  return st;
}

/* Waits in ppoll (the only place the parent takes signals: a second one ends the runner at
 * once, by the tool's handler) until the workers of `slots` are gone or `give_up` passes (then
 * kills them), showing their notes; reaps them. */
static void wait_gone(tqh__run_t *run, const size_t *slots, size_t n, uint64_t give_up,
                      const sigset_t *wait_mask) {
  struct pollfd *pfds = tq_calloc(n + 1, sizeof(*pfds));
  tqh__worker_t **owners = tq_calloc(n + 1, sizeof(*owners));
  for (;;) {
    size_t m = 0;
    for (size_t i = 0; pfds && owners && i < n; i++) {
      tqh__worker_t *w = &run->workers[slots[i]];
      if (w->pid <= 0 || w->fd < 0) continue;
      pfds[m] = (struct pollfd){w->fd, POLLIN, 0};
      owners[m++] = w;
    }
    uint64_t now = tqh_now_ns();
    if (m == 0 || now >= give_up) break;
    uint64_t left = give_up - now;
    struct timespec ts = {(time_t)(left / 1000000000u), (long)(left % 1000000000u)};
    int rc = ppoll(pfds, m, &ts, wait_mask);
    if (rc < 0 && errno != EINTR) break;
    for (size_t i = 0; rc > 0 && i < m; i++) {
      if (!pfds[i].revents) continue;
      tq_status_t st = tqh__worker_read(owners[i]);
      if (!st) st = drain(run, owners[i]);
      if (st) {
        tq_status_free(st);
        tqh__worker_kill(owners[i]);
        close(owners[i]->fd);
        owners[i]->fd = -1;
      }
    }
  }
  for (size_t i = 0; i < n; i++) {
    tqh__worker_t *w = &run->workers[slots[i]];
    if (w->pid <= 0) continue;
    if (w->fd >= 0) tqh__worker_kill(w);
    tqh__worker_reap(w);
    tqh_test_result_deinit(&w->result);
  }
  tq_free(pfds);
  tq_free(owners);
}

/* A board's worker killed in the middle of a test left the lease (it names the runner, not the
 * worker), the run's work folder and maybe the runtime running on its board: a fresh process per
 * such board, in the worker's slot, stops what runs there, removes the folder and gives the lease
 * back, so that the next run neither waits for the lease to expire nor finds our leftovers. */
static void clean_boards(tqh__run_t *run, const sigset_t *wait_mask) {
  size_t *slots = tq_calloc(run->num_boards + 1, sizeof(size_t)), n = 0;
  double limit_s = 0;
  for (size_t b = 0; slots && b < run->num_boards; b++) {
    size_t k = run->num_sim + b;
    tqh__worker_t *w = &run->workers[k];
    if (!run->board_dirty[b] || run->board_dead[b] || w->pid > 0) continue;
    const tqh_board_spec_t *spec = &run->boards->boards[b];
    if (run->options->verbosity >= 0) {
      char line[600];
      snprintf(line, sizeof(line),
               "torq-test: board %s: stopping what this run left running there, removing its "
               "work folder and giving back its lease (interrupt again to leave it)\n",
               spec->name);
      tqh__progress_print(&run->progress, line);
    }
    tq_status_t st = spawn_main(run, w, tqh__worker_board_cleanup, NULL);
    if (!st) st = tqh__worker_assign(w, 0, 0);
    w->busy = 0; /* its notes are shown; it has no test */
    tqh__worker_retire(w);
    if (st) {
      tq_status_free(st);
      if (w->pid > 0) tqh__worker_kill(w);
    }
    slots[n++] = k;
    /* Connect (twice the timeout: the address may need a retry), the cleaning script, the
     * lease script (which may wait out a mutex left by the killed worker). */
    double connect = (spec->ssh.connect_timeout_ms ? spec->ssh.connect_timeout_ms : 10000) / 1e3;
    if (connect * 2 + 60 > limit_s) limit_s = connect * 2 + 60;
  }
  if (n) wait_gone(run, slots, n, tqh_now_ns() + (uint64_t)(limit_s * 1e9), wait_mask);
  tq_free(slots);
}

/* Stops every worker: kills the busy ones, retires the idle ones, and reaps them all. A board
 * worker that was retired gets time to release its lease; its notes are still shown. Then the
 * boards whose worker was killed mid-test are cleaned up. */
static void stop_workers(tqh__run_t *run, const sigset_t *wait_mask) {
  size_t *boards = tq_calloc(run->num_workers + 1, sizeof(size_t)), n = 0;
  for (size_t k = 0; k < run->num_workers; k++) {
    tqh__worker_t *w = &run->workers[k];
    give_back(run, w, 0);
    if (w->pid <= 0) continue;
    int board = tqh__run_slot_board(run, k);
    if (w->busy) {
      tqh__worker_kill(w);
      if (board >= 0) run->board_dirty[board] = 1;
    }
    tqh__worker_retire(w);
    if (board >= 0 && !w->busy && boards) boards[n++] = k;
  }
  if (n) wait_gone(run, boards, n, tqh_now_ns() + 60ull * 1000000000u, wait_mask);
  tq_free(boards);
  for (size_t k = 0; k < run->num_workers; k++) {
    tqh__worker_t *w = &run->workers[k];
    if (w->pid <= 0) continue;
    tqh__worker_reap(w);
    tqh_test_result_deinit(&w->result);
  }
  clean_boards(run, wait_mask);
}

static tq_status_t loop(tqh__run_t *run, const sigset_t *wait_mask) {
  tq_status_t st = NULL;
  struct pollfd *pfds = tq_calloc(run->num_workers + 1, sizeof(*pfds));
  tqh__worker_t **owners = tq_calloc(run->num_workers + 1, sizeof(*owners));
  if (!pfds || !owners) st = TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  int stopping = 0;
  while (!st) {
    if (!stopping && (tqh__run_cancelled(run) || run->fault)) {
      stopping = 1;
      if (!run->fault) {
        run->summary->cancelled = 1;
        tqh__progress_print(&run->progress,
                            "\ntorq-test: interrupted: stopping the running tests; "
                            "the reports of finished tests are kept\n");
      }
      for (size_t k = 0; k < run->num_workers; k++) {
        tqh__worker_t *w = &run->workers[k];
        if (w->pid <= 0) continue;
        if (w->busy) {
          w->cancelled = 1;
          tqh__worker_kill(w);
          int board = tqh__run_slot_board(run, k);
          if (board >= 0) run->board_dirty[board] = 1;
        }
        tqh__worker_retire(w);
        give_back(run, w, 0);
      }
    }
    if (!stopping && run->options->maxfail && run->failures >= run->options->maxfail &&
        !run->summary->stopped) {
      run->summary->stopped = 1;
      char line[160];
      snprintf(line, sizeof(line),
               "torq-test: stopping after %zu failed test%s (%s): no further test starts\n",
               run->failures, run->failures == 1 ? "" : "s",
               run->options->maxfail == 1 ? "-x" : "--maxfail");
      if (run->options->verbosity >= 0) tqh__progress_print(&run->progress, line);
    }
    int halted = stopping || run->summary->stopped;
    /* No test starts any more: what the workers were sent ahead and have not begun is not run. */
    for (size_t k = 0; halted && k < run->num_workers; k++)
      take_back_unbegun(run, &run->workers[k]);
    if (!st && !halted) st = tqh__run_fail_orphans(run);
    if (!st && !halted) st = start_tests(run);
    if (!st && !halted) st = send_ahead(run);
    if (!st) st = tqh__run_record_pending(run);
    if (st || (run->running == 0 && (halted || run->queued == 0))) break;

    size_t n = 0;
    uint64_t now = tqh_now_ns(), wake = 0;
    int boards = 0;
    for (size_t k = 0; k < run->num_workers; k++) {
      tqh__worker_t *w = &run->workers[k];
      if (w->pid <= 0 || w->fd < 0) continue;
      pfds[n].fd = w->fd;
      pfds[n].events = POLLIN;
      pfds[n].revents = 0;
      owners[n++] = w;
      tqh__worker_sync_phase(w);
      boards |= w->busy && w->board;
      if (w->busy && w->deadline_ns && !w->timed_out && (!wake || w->deadline_ns < wake))
        wake = w->deadline_ns;
    }
    /* A look at the boards every TQH__PHASE_LOOK_NS spares the workers a wake-up message for
     * every phase of a longer limit. A phase entered from here on is seen by the look or woken
     * for (tqh__worker_look_by). */
    if (boards) {
      if (!wake || wake > now + TQH__PHASE_LOOK_NS) wake = now + TQH__PHASE_LOOK_NS;
      uint64_t look_by = wake;
      for (size_t k = 0; k < run->num_workers; k++) {
        tqh__worker_t *w = &run->workers[k];
        if (w->pid <= 0 || w->fd < 0) continue;
        tqh__worker_look_by(w, look_by);
        if (w->busy && w->deadline_ns && !w->timed_out && w->deadline_ns < wake)
          wake = w->deadline_ns;
      }
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
      tqh__worker_sync_phase(w); /* the phase a crash is named by */
      int status = tqh__worker_reap(w);
      if (w->busy) tqh__run_finish_test(run, w, status);
      give_back(run, w, 0);
      tqh_test_result_deinit(&w->result);
    }
    now = tqh_now_ns();
    for (size_t k = 0; k < run->num_workers; k++) {
      tqh__worker_t *w = &run->workers[k];
      tqh__worker_sync_phase(w);
      if (w->pid > 0 && w->busy && w->deadline_ns && !w->timed_out && now >= w->deadline_ns) {
        w->timed_out = 1;
        tqh__worker_kill(w);
      }
    }
    const tqh__worker_t *oldest = NULL;
    for (size_t k = 0; k < run->num_workers; k++) {
      const tqh__worker_t *w = &run->workers[k];
      if (w->pid > 0 && w->busy && (!oldest || w->started_ns < oldest->started_ns)) oldest = w;
    }
    tqh__progress_tick(&run->progress, run->running, oldest ? run->tests[oldest->test]->id : NULL,
                       oldest ? oldest->started_ns : 0);
  }
  for (size_t k = 0; k < run->num_pending; k++) tqh_test_result_deinit(&run->pending[k].result);
  run->num_pending = 0;
  stop_workers(run, wait_mask);
  run->running = 0;
  /* Whatever did not start is recorded as not run. */
  char *why = run->summary->cancelled || run->fault ? tqh__run_not_run_message(run, 0) : NULL;
  for (size_t c = 0; c < run->num_queues; c++) {
    size_t i;
    while (!st && tqh__run_queue_pop(run, c, &i))
      st = tqh__run_record_simple(run, i, TQH_OUTCOME_NOT_RUN, "not_run",
                                  why                   ? why
                                  : run->summary->stopped ? "not run: the run stopped after its "
                                                            "first failures (-x, --maxfail)"
                                                          : "not run");
  }
  tq_free(why);
  if (run->unrecorded) {
    char line[200];
    snprintf(line, sizeof(line),
             "torq-test: %zu test record%s could not be written (no room left); the journal holds "
             "the others\n",
             run->unrecorded, run->unrecorded == 1 ? "" : "s");
    tqh__progress_print(&run->progress, line);
  }
  tq_free(pfds);
  tq_free(owners);
  return st;
}

/* The results' reserve for `n` tests: 64 KiB, and 16 KiB a test (its not-run record and report,
 * its part of junit.xml and index.html twice over while they are replaced), at most 64 MiB. */
static uint64_t reserve_bytes(size_t n) {
  uint64_t bytes = ((uint64_t)64 << 10) + (uint64_t)n * (16u << 10);
  return bytes < ((uint64_t)64 << 20) ? bytes : (uint64_t)64 << 20;
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
  return tqh_runner_run_boards(options, NULL, tests, num_tests, results, out_summary);
}

/* Which queue each test waits in; how many simulator workers there are. */
static tq_status_t plan(tqh__run_t *run) {
  const tqh_runner_boards_t *boards = run->boards;
  size_t *counts = tq_calloc(run->num_queues, sizeof(size_t));
  if (!counts) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  for (size_t i = 0; i < run->num_tests; i++) {
    const tqh_test_t *t = run->tests[i];
    const char *target = t->target ? t->target : "sim";
    size_t cls = TQH__CLASS_SIM;
    if (boards && boards->all_tests) {
      cls = run->pool_class;
    } else if (strcmp(target, "sim") != 0) {
      size_t b = 0;
      while (b < run->num_boards && strcmp(boards->boards[b].name, target) != 0) b++;
      if (b == run->num_boards) {
        tq_free(counts);
        return TQ_STATUS(TQ_INVALID_ARGUMENT,
                         "test '%s': target '%s' is neither 'sim' nor a board of the run",
                         t->id, target);
      }
      cls = 1 + b;
    }
    run->test_class[i] = cls;
    counts[cls]++;
  }
  tq_status_t st = NULL;
  for (size_t c = 0; c < run->num_queues && !st; c++) {
    /* Room for each test once more in front (a retry) and once at the back. */
    run->queues[c].items = tq_calloc(2 * counts[c] + 1, sizeof(size_t));
    if (!run->queues[c].items) st = TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
    run->queues[c].head = run->queues[c].tail = counts[c];
  }
  size_t jobs = run->options->jobs ? run->options->jobs : 1;
  if (jobs > 64) jobs = 64;
  run->num_sim = counts[TQH__CLASS_SIM] || run->num_boards == 0 ? jobs : 0;
  tq_free(counts);
  for (size_t i = 0; !st && i < run->num_tests; i++)
    tqh__run_queue_push(run, run->test_class[i], i);
  return st;
}

tq_status_t tqh_runner_run_boards(const tqh_runner_options_t *options,
                                  const tqh_runner_boards_t *boards,
                                  const tqh_test_t *const *tests, size_t num_tests,
                                  tqh_results_t *results, tqh_runner_summary_t *out_summary) {
  memset(out_summary, 0, sizeof(*out_summary));
  if (!options->cache_dir) return TQ_STATUS(TQ_INVALID_ARGUMENT, "no cache folder given");
  if (boards && boards->all_tests && boards->count == 0)
    return TQ_STATUS(TQ_INVALID_ARGUMENT, "no board to run the tests on");
  if (boards && boards->count > 256)
    return TQ_STATUS(TQ_LIMIT, "%zu boards: at most 256 in one run", boards->count);
  uint64_t t0 = tqh_now_ns();
  tqh__run_t run;
  memset(&run, 0, sizeof(run));
  run.options = options;
  run.tests = tests;
  run.num_tests = num_tests;
  run.results = results;
  run.summary = out_summary;
  run.boards = boards && boards->count ? boards : NULL;
  run.num_boards = run.boards ? boards->count : 0;
  run.num_queues = run.num_boards + 2;
  run.pool_class = run.num_boards + 1;
  int tty = options->tty > 0;
  tqh__progress_init(&run.progress, options->output, options->output_ctx, tty,
                     auto_color(options, tty), options->verbosity, num_tests);

  for (size_t i = 0; i < num_tests; i++)
    if (!tqh_results_id_is_safe(tests[i]->fs_id))
      return TQ_STATUS(TQ_INVALID_ARGUMENT, "test '%s': '%s' is not a safe folder name",
                       tests[i]->id, tests[i]->fs_id);
  tq_status_t st = NULL;
  run.queues = tq_calloc(run.num_queues, sizeof(tqh__queue_t));
  run.test_class = tq_calloc(num_tests + 1, sizeof(size_t));
  run.attempts = tq_calloc(num_tests + 1, 1);
  run.retry_note = tq_calloc(num_tests + 1, sizeof(char *));
  run.board_dead = tq_calloc(run.num_boards + 1, sizeof(int));
  run.board_dirty = tq_calloc(run.num_boards + 1, sizeof(int));
  if (!run.queues || !run.test_class || !run.attempts || !run.retry_note || !run.board_dead ||
      !run.board_dirty)
    st = TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  if (!st) st = plan(&run);
  run.num_workers = run.num_sim + run.num_boards;
  if (!st) st = tqh_compile_cache_init(&run.cache, options->cache_dir, options->recompute_cache);
  int cache_ready = !st;
  int fetching = 0;
  for (size_t i = 0; !st && i < num_tests && !fetching; i++)
    fetching = tests[i]->model.kind == TQH_MODEL_URL && !tests[i]->skip;
  if (fetching && (st = tqh_fetch_global_init())) fetching = 0;
  run.exec.tests = tests;
  run.exec.exec.cache = &run.cache;
  run.exec.exec.run_dir = tqh_results_run_dir(results);
  run.exec.exec.run_id = tqh_results_run_id(results);
  run.exec.exec.profiling = options->profiling;
  run.exec.exec.profile_copy_dir = options->profile_copy_dir;
  run.exec.logs = options->verbosity >= 1; /* as tqh__progress_log shows them */
  run.exec.test_dirs = tq_calloc(num_tests + 1, sizeof(char *));
  run.started_at = tq_calloc(num_tests + 1, sizeof(double));
  run.started_ns = tq_calloc(num_tests + 1, sizeof(uint64_t));
  run.workers = tq_calloc(run.num_workers + 1, sizeof(tqh__worker_t));
  run.pending = tq_calloc(run.num_workers * (1 + TQH__AHEAD) + 1, sizeof(tqh__pending_t));
  run.ctxs = tq_calloc(run.num_workers + 1, sizeof(tqh__worker_ctx_t));
  if (!st && (!run.exec.test_dirs || !run.started_at || !run.started_ns || !run.workers ||
              !run.pending || !run.ctxs))
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
  if (!st && run.num_boards) {
    /* The lease names this runner (its pid) and this run, so that a worker restarted after a
     * crash takes the lease back at once, and another runner waits. */
    run.board_options = boards->options;
    run.lease_owner = tqh_board_lease_owner(run.exec.exec.run_id);
    if (!run.lease_owner) st = TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
    run.board_options.lease_owner = run.lease_owner;
    run.board_options.log = NULL;
    run.board_options.log_ctx = NULL;
    run.board_hooks.idle = tqh__worker_board_idle;
    run.board_hooks.exit = tqh__worker_board_exit;
    double renew = run.board_options.lease_renew_s > 0 ? run.board_options.lease_renew_s : 10;
    run.board_hooks.idle_s = renew / 2 < 5 ? renew / 2 : 5;
  }
  for (size_t k = 0; !st && k < run.num_workers; k++) {
    run.ctxs[k] = run.exec;
    int b = tqh__run_slot_board(&run, k);
    if (b >= 0) {
      run.ctxs[k].exec.board = &boards->boards[b];
      run.ctxs[k].exec.board_options = &run.board_options;
    }
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
  /* Room for the records of the tests not run and the reports, should the disk fill up. */
  if (!st) (void)tqh_results_reserve(results, reserve_bytes(num_tests));
  if (!st) st = loop(&run, &wait_mask);
  sigaction(SIGPIPE, &old_pipe, NULL);
  tqh__progress_clear(&run.progress);
  if (!st) st = tqh_results_finish(results);
  out_summary->elapsed_s = (double)(tqh_now_ns() - t0) / 1e9;
  if (!st && options->print_summary) {
    char *text = NULL;
    tqh_summary_options_t so = options->summary;
    so.elapsed_s = out_summary->elapsed_s;
    if (so.brief && !so.run_dir) so.run_dir = tqh_results_run_dir(results);
    st = tqh_results_summary_with(results, &so, &text);
    if (!st && text) tqh__progress_write(&run.progress, text);
    tq_free(text);
  }
  tqh__progress_flush(&run.progress);
  tqh__progress_deinit(&run.progress);
  sigprocmask(SIG_SETMASK, &old, NULL);

  for (size_t i = 0; run.exec.test_dirs && i < num_tests; i++) tq_free(run.exec.test_dirs[i]);
  for (size_t i = 0; run.retry_note && i < num_tests; i++) tq_free(run.retry_note[i]);
  for (size_t c = 0; run.queues && c < run.num_queues; c++) tq_free(run.queues[c].items);
  tq_free(run.queues);
  tq_free(run.test_class);
  tq_free(run.attempts);
  tq_free(run.retry_note);
  tq_free(run.board_dead);
  tq_free(run.board_dirty);
  tq_free(run.lease_owner);
  tq_free(run.fault);
  tq_free(run.ctxs);
  tq_free(run.exec.test_dirs);
  tq_free(run.started_at);
  tq_free(run.started_ns);
  tq_free(run.workers);
  tq_free(run.pending);
  if (cache_ready) tqh_compile_cache_deinit(&run.cache);
  if (fetching) tqh_fetch_global_cleanup();
  return st;
}
