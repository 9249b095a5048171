/* Leases (board.h): a one-line file on the board, "<owner> expiry=<epoch seconds>", changed only
 * by the script below under a mkdir mutex and judged by the board's clock. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "board_internal.h"
#include "torq/base/alloc.h"
#include "torq/harness/process.h"

/* $1 op (acquire, release, break), $2 the lease file, $3 our owner text, $4 seconds.
 * acquire renews our own lease, takes a missing or expired one, or says who holds it. Prints one
 * line: a word saying what happened (renewed, acquired, taken-over, held, released, not-held),
 * then fields. Exit status: 0 done, 3 the file cannot be written, 4 the mutex is busy (try
 * again), 5 held by another. */
static const char k_script[] =
    "op=$1 f=$2 me=$3 ttl=$4\n"
    "l=$f.lock\n"
    "if [ \"$op\" = break ]; then rm -rf -- \"$l\"; echo broken; exit 0; fi\n"
    "mkdir -p -- \"${f%/*}\" || exit 3\n"
    "mkdir -- \"$l\" 2>/dev/null || { echo busy; exit 4; }\n"
    "trap 'rmdir -- \"$l\" 2>/dev/null' EXIT\n"
    "now=$(date +%s)\n"
    "cur=\n"
    "if [ -f \"$f\" ]; then cur=$(cat -- \"$f\"); fi\n"
    "who=${cur% expiry=*}\n"
    "exp=${cur##* expiry=}\n"
    "case $exp in ''|*[!0-9]*) exp=0;; esac\n"
    "put() { printf '%s expiry=%s\\n' \"$me\" $((now + ttl)) > \"$f.tmp\" && "
    "mv -f -- \"$f.tmp\" \"$f\"; }\n"
    "case $op in\n"
    "acquire)\n"
    "  if [ -n \"$cur\" ] && [ \"$who\" = \"$me\" ]; then put || exit 3;"
    " echo \"renewed now=$now expiry=$((now + ttl))\";\n"
    "  elif [ -z \"$cur\" ]; then put || exit 3;"
    " echo \"acquired now=$now expiry=$((now + ttl))\";\n"
    "  elif [ \"$exp\" -le \"$now\" ]; then put || exit 3;"
    " echo \"taken-over now=$now expiry=$((now + ttl)) was=$exp by=$who\";\n"
    "  else echo \"held now=$now expiry=$exp by=$who\"; exit 5; fi;;\n"
    "release)\n"
    "  if [ -n \"$cur\" ] && [ \"$who\" = \"$me\" ]; then rm -f -- \"$f\";"
    " echo \"released now=$now\"; else echo \"not-held now=$now\"; fi;;\n"
    "*) echo \"unknown op\"; exit 2;;\n"
    "esac\n";

/* A mutex held this long was left by a process killed inside the script. */
#define MUTEX_STALE_S 10.0

static void sleep_s(double s) {
  if (s <= 0) return;
  struct timespec ts = {(time_t)s, (long)((s - floor(s)) * 1e9)};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

static double since_s(uint64_t t0) {
  return (double)(tqh_now_ns() - t0) / 1e9;
}

/* The value of "key=" in the script's line (up to the next blank; "by=" to the end). */
static void field(const char *line, const char *key, char *out, size_t size) {
  out[0] = 0;
  size_t k = strlen(key);
  for (const char *p = line; p && *p; p++) {
    if ((p == line || p[-1] == ' ') && !strncmp(p, key, k) && p[k] == '=') {
      const char *v = p + k + 1;
      size_t n = !strcmp(key, "by") ? strcspn(v, "\n") : strcspn(v, " \n");
      snprintf(out, size, "%.*s", (int)n, v);
      return;
    }
  }
}

static long field_long(const char *line, const char *key) {
  char buf[32];
  field(line, key, buf, sizeof(buf));
  return buf[0] ? strtol(buf, NULL, 10) : 0;
}

/* Runs one operation, retrying while the mutex is busy (and breaking a stale one). The script's
 * line goes to `line`; *out_rc is its exit status (never 4). */
static tq_status_t lease_op(tqh_board_conn_t *c, const char *op, double ttl_s, char *line,
                            size_t size, int *out_rc) {
  char ttl[32];
  snprintf(ttl, sizeof(ttl), "%ld", (long)ceil(ttl_s < 1 ? 1 : ttl_s));
  const char *argv[] = {"sh",          "-c",           k_script, "torq-lease", op,
                        c->lease_path, c->lease_owner, ttl,      NULL};
  uint64_t busy_since = 0;
  for (;;) {
    tqh_exec_result_t res;
    tqh_exec_result_init(&res);
    tq_status_t st = tqh__board_exec(c, argv, 30000, &res);
    if (st) {
      tqh_exec_result_deinit(&res);
      return st;
    }
    snprintf(line, size, "%s", res.out.data ? res.out.data : "");
    line[strcspn(line, "\n")] = 0;
    int rc = res.exit_status;
    if (rc == 4) {
      tqh_exec_result_deinit(&res);
      if (!busy_since) busy_since = tqh_now_ns();
      if (since_s(busy_since) > MUTEX_STALE_S) {
        tqh_board_log(c, 1, "breaking the lease mutex %s.lock, busy for %.0fs", c->lease_path,
                      MUTEX_STALE_S);
        const char *brk[] = {"sh",          "-c",           k_script, "torq-lease", "break",
                             c->lease_path, c->lease_owner, ttl,      NULL};
        tqh_exec_result_init(&res);
        st = tqh__board_exec(c, brk, 30000, &res);
        tqh_exec_result_deinit(&res);
        if (st) return st;
        busy_since = 0;
      }
      sleep_s(0.05);
      continue;
    }
    if (rc != 0 && rc != 5) {
      st = tqh__board_command_failed(c, "the lease script", &res);
      tqh_exec_result_deinit(&res);
      return tq_status_annotate(st, "while changing the lease %s", c->lease_path);
    }
    tqh_exec_result_deinit(&res);
    *out_rc = rc;
    return NULL;
  }
}

/* A time the board gave (epoch seconds) for people: "2026-12-03 16:12:31 UTC". */
static void when(long epoch, char out[48]) {
  time_t t = (time_t)epoch;
  struct tm tm;
  if (epoch <= 0 || !gmtime_r(&t, &tm) || !strftime(out, 48, "%Y-%m-%d %H:%M:%S UTC", &tm))
    snprintf(out, 48, "an unknown time");
}

static void bought(tqh_board_conn_t *c, double ttl_s) {
  c->leased = 1;
  c->lease_renewed_ns = tqh_now_ns();
  c->lease_until_ns = c->lease_renewed_ns + (uint64_t)(ceil(ttl_s) * 1e9);
}

/* Makes the lease ours for `ttl_s` more seconds: renews it, takes it when free or expired, or
 * waits up to lease_wait_s while another runner holds it (which happens when it expired while
 * this run was busy elsewhere, a long compile say: the board then serves the other run first). */
static tq_status_t take(tqh_board_conn_t *conn, double ttl_s, int may_wait) {
  double wait = may_wait ? conn->options.lease_wait_s : 0;
  double poll = conn->options.lease_ttl_s / 4;
  if (poll > 1) poll = 1;
  if (poll < 0.1) poll = 0.1;
  uint64_t t0 = tqh_now_ns();
  int told = 0, had = conn->leased;
  char line[1024], by[512];
  for (;;) {
    int rc = 0;
    TQ_TRY(lease_op(conn, "acquire", ttl_s, line, sizeof(line), &rc));
    field(line, "by", by, sizeof(by));
    if (rc == 0) {
      bought(conn, ttl_s);
      /* Times as the board's clock has them, readable; and how long that is. */
      char until[48], was[48];
      long expiry = field_long(line, "expiry"), now = field_long(line, "now");
      when(expiry, until);
      if (!strncmp(line, "renewed", 7)) {
        tqh_board_log(conn, 0, "lease renewed until %s on the board's clock (%ld s)", until,
                      expiry - now);
        return NULL;
      }
      if (!strncmp(line, "taken-over", 10)) {
        when(field_long(line, "was"), was);
        tqh_board_log(conn, 1, "lease taken over: the lease of %s expired at %s (%ld s ago)", by,
                      was, now - field_long(line, "was"));
      }
      tqh_board_log(conn, 1, "lease acquired until %s on the board's clock (%ld s)%s", until,
                    expiry - now, told ? " after waiting" : "");
      return NULL;
    }
    long left = field_long(line, "expiry") - field_long(line, "now");
    if (!may_wait) {
      conn->leased = 0;
      tqh_board_log(conn, 1, "the lease expired while this run was idle and is held by %s now", by);
      return NULL;
    }
    if (since_s(t0) >= wait) {
      conn->leased = 0;
      return TQ_STATUS(TQ_UNAVAILABLE,
                       "board %s is leased by %s (for %ld s more); gave up waiting after %.0f s "
                       "(lease_wait: --torq-lease-wait, TORQ_LEASE_WAIT)",
                       conn->name, by, left, wait);
    }
    if (!told) {
      tqh_board_log(conn, 1, "%s: held by %s for %ld s more",
                    had ? "the lease expired while this run was busy and was taken; waiting"
                        : "waiting for the lease",
                    by, left);
      told = 1;
    }
    double rest = wait - since_s(t0);
    sleep_s(rest < poll ? rest : poll);
  }
}

tq_status_t tqh_board_lease_acquire(tqh_board_conn_t *conn) {
  if (conn->leased) return tqh_board_lease_keep(conn, 0);
  return take(conn, conn->options.lease_ttl_s, 1);
}

/* Whether the held lease needs renewing before a step of `need_s`. */
static int due(const tqh_board_conn_t *conn, double need_s) {
  uint64_t now = tqh_now_ns();
  double renew = conn->options.lease_renew_s;
  double age = (double)(now - conn->lease_renewed_ns) / 1e9;
  double left = conn->lease_until_ns > now ? (double)(conn->lease_until_ns - now) / 1e9 : 0;
  return age >= renew || left <= need_s + renew;
}

tq_status_t tqh_board_lease_touch(tqh_board_conn_t *conn) {
  if (!conn->leased || !due(conn, 0)) return NULL;
  return take(conn, conn->options.lease_ttl_s, 0);
}

tq_status_t tqh_board_lease_keep(tqh_board_conn_t *conn, double need_s) {
  if (!conn->leased) return NULL;
  if (need_s < 0) need_s = 0;
  if (!due(conn, need_s)) return NULL;
  tq_status_t st = take(conn, need_s + conn->options.lease_ttl_s, 1);
  if (st) return tq_status_annotate(st, "while renewing the lease of board %s", conn->name);
  return NULL;
}

/* Removes the lease file when it names this runner; says whether it did. */
static tq_status_t give_back(tqh_board_conn_t *conn) {
  conn->leased = 0;
  char line[1024];
  int rc = 0;
  TQ_TRY(lease_op(conn, "release", 1, line, sizeof(line), &rc));
  char at[48];
  when(field_long(line, "now"), at);
  if (!strncmp(line, "released", 8))
    tqh_board_log(conn, 1, "lease released at %s on the board's clock", at);
  else
    tqh_board_log(conn, 0, "no lease of this run to release (%s on the board's clock)", at);
  return NULL;
}

tq_status_t tqh_board_lease_release(tqh_board_conn_t *conn) {
  if (!conn->leased) return NULL;
  return give_back(conn);
}

tq_status_t tqh_board_lease_give_back(tqh_board_conn_t *conn) {
  return give_back(conn);
}

int tqh_board_lease_held(const tqh_board_conn_t *conn) {
  return conn->leased;
}
