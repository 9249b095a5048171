/* The fault hook of torq-test-faults: the test-only build of torq-test (the same tool sources
 * plus this object; harness/runner.mk) that the end-to-end tests run where they need a worker to
 * misbehave, to prove crash isolation, timeouts and interruption on the real binary. The shipped
 * torq-test has no such code and ignores the variable.
 *
 * TORQ_TEST_FAULT, read in the worker after a test's compile phase: items separated by ';',
 *   crash:WORD     tests whose id contains WORD die of SIGSEGV in the run phase
 *   hang:WORD      tests whose id contains WORD hang in the run phase (until the timeout)
 *   sleep:SECONDS  every test sleeps that long in the run phase
 *   trail:PATH     every test appends a line to PATH: its id and its worker's pid (put it first)
 *   nap:WORD       tests whose id contains WORD sleep 2 s in the run phase
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "torq/harness/execute.h"

static void run_phase(const tqh_execute_io_t *io, double limit_s) {
  if (io && io->phase) io->phase(io->ctx, "run", limit_s);
}

/* The run phase, `s` seconds longer than the test's run timeout, spent asleep. */
static void sleep_in_run_phase(const tqh_test_t *test, const tqh_execute_io_t *io, double s) {
  struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
  run_phase(io, test->settings.run_timeout_s + s);
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

static void inject_faults(const tqh_test_t *test, const tqh_execute_io_t *io) {
  const char *spec = getenv("TORQ_TEST_FAULT");
  if (!spec || !*spec) return;
  char buf[512];
  snprintf(buf, sizeof(buf), "%s", spec);
  char *save = NULL;
  for (char *item = strtok_r(buf, ";", &save); item; item = strtok_r(NULL, ";", &save)) {
    char *arg = strchr(item, ':');
    if (!arg) continue;
    *arg++ = 0;
    if (!strcmp(item, "trail")) {
      int fd = open(arg, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
      if (fd >= 0) {
        dprintf(fd, "%s %ld\n", test->id, (long)getpid());
        close(fd);
      }
    } else if (!strcmp(item, "nap") && strstr(test->id, arg)) {
      sleep_in_run_phase(test, io, 2);
    } else if (!strcmp(item, "sleep")) {
      sleep_in_run_phase(test, io, atof(arg));
    } else if (!strcmp(item, "crash") && strstr(test->id, arg)) {
      static const char says[] = "torq-test: TORQ_TEST_FAULT: crashing on purpose\n";
      run_phase(io, test->settings.run_timeout_s);
      if (io && io->output) io->output(io->ctx, 2, says, sizeof(says) - 1);
      signal(SIGSEGV, SIG_DFL); /* a plain crash, also when a sanitizer would catch it */
      raise(SIGSEGV);
    } else if (!strcmp(item, "hang") && strstr(test->id, arg)) {
      run_phase(io, test->settings.run_timeout_s);
      for (;;) pause();
    }
  }
}

__attribute__((constructor)) static void install_fault_hook(void) {
  tqh_execute_set_hook(inject_faults);
}
