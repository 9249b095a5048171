/* What the user sees while a run goes on.
 *
 * On a terminal: one live line, redrawn in place at most ten times a second,
 *     [ 37/208] 35 passed, 1 failed, 1 error · running tosa/conv2d_big (00:04) and 1 more ·
 *     00:12 elapsed, ETA 00:55
 * naming the test that has been running longest; the ETA counts down from the pace of the tests
 * so far and is left out once a long test has overtaken it (never "ETA 00:00" while a test
 * runs),
 * with the failures (and, with -v, every test and its log lines) printed above it as they
 * happen. Not on a terminal (CI logs): one plain line per finished test, nothing redrawn,
 *     PASSED   conv2d_3x3 (0.207s)
 *     FAILED   broken_model: compile: error: ... [3/208]
 *
 * The text goes to the output callback that the tool installs, in the pieces a user should see
 * at once (a redrawn line, a test's line and the live line after it).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "runner_internal.h"
#include "torq/harness/overview.h"
#include "torq/harness/process.h"

#define GREEN "\033[32m"
#define RED "\033[31m"
#define YELLOW "\033[33m"
#define BOLD_RED "\033[1;31m"
#define DIM "\033[2m"
#define RESET "\033[0m"

void tqh__progress_init(tqh__progress_t *p, tqh_output_fn output, void *output_ctx, int tty,
                        int color, int verbosity, size_t total) {
  memset(p, 0, sizeof(*p));
  p->output = output;
  p->output_ctx = output_ctx;
  tq_buf_init(&p->pending, 0);
  p->tty = tty;
  p->color = color;
  p->verbosity = verbosity;
  p->total = total;
  p->start_ns = p->last_done_ns = tqh_now_ns();
}

void tqh__progress_deinit(tqh__progress_t *p) {
  tq_buf_deinit(&p->pending);
}

/* Appends to what the user sees next; without memory the text is lost, as a failed write to a
 * terminal would be. */
static void put(tqh__progress_t *p, const char *fmt, ...) TQ_PRINTF(2, 3);
static void put(tqh__progress_t *p, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tq_status_free(tq_buf_vprintf(&p->pending, fmt, ap));
  va_end(ap);
}

void tqh__progress_flush(tqh__progress_t *p) {
  if (p->pending.len && p->output) p->output(p->output_ctx, p->pending.data, p->pending.len);
  tq_buf_clear(&p->pending);
}

const char *tqh__outcome_word(tqh_outcome_t outcome, int color, const char **out_reset) {
  static const char *const words[TQH_OUTCOME_COUNT] = {"PASSED",  "FAILED",  "ERROR",  "SKIPPED",
                                                       "XFAILED", "XPASSED", "NOT RUN"};
  static const char *const colored[TQH_OUTCOME_COUNT] = {
      GREEN "PASSED",   RED "FAILED",     BOLD_RED "ERROR", YELLOW "SKIPPED",
      YELLOW "XFAILED", YELLOW "XPASSED", DIM "NOT RUN"};
  *out_reset = color ? RESET : "";
  if ((unsigned)outcome >= TQH_OUTCOME_COUNT) return "?";
  return color ? colored[outcome] : words[outcome];
}

static void clock_text(double s, char *buf, size_t size) {
  if (s < 0) s = 0;
  unsigned long t = (unsigned long)(s + 0.5);
  if (t >= 3600)
    snprintf(buf, size, "%lu:%02lu:%02lu", t / 3600, t / 60 % 60, t % 60);
  else
    snprintf(buf, size, "%02lu:%02lu", t / 60, t % 60);
}

void tqh__progress_clear(tqh__progress_t *p) {
  if (p->tty && p->line_shown) {
    put(p, "\r\033[K");
    p->line_shown = 0;
  }
}

static void draw(tqh__progress_t *p) {
  const uint64_t now = tqh_now_ns();
  double elapsed = (double)(now - p->start_ns) / 1e9;
  char el[32], eta[32];
  clock_text(elapsed, el, sizeof(el));
  int width = 1;
  for (size_t t = p->total; t >= 10; t /= 10) width++;
  const char *g = p->color ? GREEN : "", *r = p->color ? RED : "", *z = p->color ? RESET : "";
  put(p, "\r\033[K[%*zu/%zu] %s%zu passed%s", width, p->done, p->total, g,
      p->counts[TQH_OUTCOME_PASSED] + p->counts[TQH_OUTCOME_XFAILED], z);
  if (p->counts[TQH_OUTCOME_FAILED])
    put(p, ", %s%zu failed%s", r, p->counts[TQH_OUTCOME_FAILED], z);
  if (p->counts[TQH_OUTCOME_ERROR])
    put(p, ", %s%zu error%s%s", r, p->counts[TQH_OUTCOME_ERROR],
        p->counts[TQH_OUTCOME_ERROR] == 1 ? "" : "s", z);
  if (p->counts[TQH_OUTCOME_SKIPPED]) put(p, ", %zu skipped", p->counts[TQH_OUTCOME_SKIPPED]);
  if (p->running && p->running_id) {
    char age[32];
    clock_text((double)(now - p->running_since_ns) / 1e9, age, sizeof(age));
    put(p, " · running %s (%s)", p->running_id, age);
    if (p->running > 1) put(p, " and %zu more", p->running - 1);
  } else if (p->running) {
    put(p, " · %zu running", p->running);
  }
  put(p, " · %s elapsed", el);
  if (p->done && p->done < p->total) {
    /* The pace of the tests so far, counted down since the last one finished. */
    double per_test = ((double)p->last_done_ns - (double)p->start_ns) / 1e9 / (double)p->done;
    double left = per_test * (double)(p->total - p->done) -
                  ((double)now - (double)p->last_done_ns) / 1e9;
    if (left >= 0.5) {
      clock_text(left, eta, sizeof(eta));
      put(p, ", ETA %s", eta);
    }
  }
  tqh__progress_flush(p);
  p->line_shown = 1;
  p->last_draw_ns = now;
}

void tqh__progress_tick(tqh__progress_t *p, size_t running, const char *oldest_id,
                        uint64_t oldest_since_ns) {
  p->running = running;
  p->running_id = running ? oldest_id : NULL;
  p->running_since_ns = oldest_since_ns;
  if (!p->tty || p->verbosity < 0) return;
  if (p->line_shown && tqh_now_ns() - p->last_draw_ns < 100000000u) return;
  draw(p);
}

void tqh__progress_write(tqh__progress_t *p, const char *text) {
  put(p, "%s", text);
}

void tqh__progress_print(tqh__progress_t *p, const char *text) {
  tqh__progress_clear(p);
  put(p, "%s", text);
  if (p->tty && p->verbosity >= 0)
    draw(p);
  else
    tqh__progress_flush(p);
}

void tqh__progress_log(tqh__progress_t *p, const char *name, const char *text, size_t len) {
  if (p->verbosity < 1) return;
  tqh__progress_clear(p);
  while (len && (text[len - 1] == '\n')) len--;
  put(p, "%s%s:%s %.*s\n", p->color ? DIM : "", name, p->color ? RESET : "", (int)len, text);
  if (p->tty)
    draw(p);
  else
    tqh__progress_flush(p);
}

void tqh__progress_test(tqh__progress_t *p, const char *name, tqh_outcome_t outcome, double seconds,
                        const char *message) {
  p->done++;
  p->last_done_ns = tqh_now_ns();
  if (p->running_id && !strcmp(p->running_id, name)) p->running_id = NULL; /* it is over */
  if ((unsigned)outcome < TQH_OUTCOME_COUNT) p->counts[outcome]++;
  int bad = outcome == TQH_OUTCOME_FAILED || outcome == TQH_OUTCOME_ERROR;
  /* On a terminal the live line carries the good news; not on one, every test gets a line. */
  int show =
      p->verbosity >= 1 || (p->verbosity == 0 && (!p->tty || bad)) || (p->verbosity < 0 && bad);
  if (show) {
    tqh__progress_clear(p);
    const char *reset;
    const char *word = tqh__outcome_word(outcome, p->color, &reset);
    const char *plain = tqh__outcome_word(outcome, 0, &reset);
    /* Padded by hand, so that the escapes do not count toward the width. */
    int pad = 8 - (int)strlen(plain);
    put(p, "%s%s%*s %s", word, p->color ? RESET : "", pad > 0 ? pad : 0, "", name);
    if (seconds >= 0) {
      char d[32];
      tqh_format_duration((uint64_t)(seconds * 1e9 + 0.5), d);
      put(p, " (%s)", d);
    }
    if (message && *message) {
      const char *nl = strchr(message, '\n');
      put(p, ": %.*s", (int)(nl ? (size_t)(nl - message) : strlen(message)), message);
    }
    if (!p->tty) put(p, " [%zu/%zu]", p->done, p->total);
    put(p, "\n");
  }
  if (p->tty && p->verbosity >= 0)
    draw(p);
  else
    tqh__progress_flush(p);
}
