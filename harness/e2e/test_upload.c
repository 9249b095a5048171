/* Results upload against a real HTTP server on loopback, scripts/results-server, written for
 * these tests (and for trying uploads by hand): it stores every request it gets (status it
 * answered, path, sequence, Authorization, body hash) and can answer with errors first. The tests check that uploads arrive complete and in order, that
 * errors are retried, and that a server that is down neither fails nor stalls the run, whose
 * backlog `torq-test upload` sends later. */
#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "e2e.h"

/* Three tiny tests; two workers so that they finish in any order. */
static char *write_suite(const e2e_scratch_t *s) {
  char *model = e2e_path("%s/add.mlir", s->dir);
  e2e_write_add_model(model);
  char *suite = e2e_path("%s/up.yaml", s->dir);
  e2e_write(suite,
            "suite: up\n"
            "tests:\n"
            "  - {name: one, model: add.mlir}\n"
            "  - {name: two, model: add.mlir}\n"
            "  - {name: three, model: add.mlir}\n");
  free(model);
  return suite;
}

/* SCRATCH/NAME, made; free(). */
static char *server_dir(const e2e_scratch_t *s, const char *name) {
  char *keep = e2e_path("%s/%s/.keep", s->dir, name);
  e2e_write(keep, "");
  free(keep);
  return e2e_path("%s/%s", s->dir, name);
}

static int start(const e2e_scratch_t *s, const char *dir, int port, int fails, int code,
                 e2e_server_t *srv) {
  char p[16], f[16], c[16];
  snprintf(p, sizeof(p), "%d", port);
  snprintf(f, sizeof(f), "%d", fails);
  snprintf(c, sizeof(c), "%d", code);
  char *script = e2e_path("%s/scripts/results-server", e2e_top());
  int started = e2e_server_start_file(
      s, script, dir, (const char *const[]){"--port", p, "--fail", f, "--code", c, NULL}, srv);
  free(script);
  return started;
}

/* A port nothing listens on (bound, then closed). */
static int free_port(void) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  ck_assert_int_ge(fd, 0);
  struct sockaddr_in a;
  memset(&a, 0, sizeof(a));
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(a);
  ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
  ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
  close(fd);
  return ntohs(a.sin_port);
}

/* The test ids of the run's journal, in order (one per line), and the run id. */
static char *journal_ids(const char *run) {
  char *path = e2e_path("%s/journal.jsonl", run);
  char *j = e2e_read(path);
  ck_assert_ptr_nonnull(j);
  char *out = calloc(1, strlen(j) + 1);
  for (char *p = strstr(j, "{\"id\":\""); p; p = strstr(p + 1, "{\"id\":\"")) {
    char id[256];
    ck_assert_int_eq(sscanf(p + 7, "%255[^\"]", id), 1);
    strcat(out, id);
    strcat(out, "\n");
  }
  free(j);
  free(path);
  return out;
}

static const char *run_id(const char *run) { return strrchr(run, '/') + 1; }

/* The requests the server accepted (status 200), and checks each body against the run's file:
 * the expected sequence is, per test in journal order, its report then (with `profiles`) its
 * profile files that exist, then the completion with run.json. `auth` is the expected
 * Authorization header ("" when none). Returns the number of accepted requests. */
static size_t check_uploads(const char *log_path, const char *run, int profiles, const char *auth) {
  static const char *const files[] = {"profile.csv", "annotated.csv", "profile.pb",
                                      "profile.xlsx", "trace.csv"};
  char *log = e2e_read(log_path);
  ck_assert_msg(log != NULL, "the server got nothing");
  char *ids = journal_ids(run);
  /* The expected lines, built in order. */
  char *want = calloc(1, 1 << 16);
  size_t seq = 0;
  for (char *id = strtok(ids, "\n"); id; id = strtok(NULL, "\n")) {
    seq++;
    char *path = e2e_path("%s/%s/report.json", run, id);
    char *sha = e2e_sha256_file(path);
    char line[1024];
    snprintf(line, sizeof(line), "200|/runs/%s/tests/%s|%zu|%s|%s/%zu|%s\n", run_id(run), id, seq,
             auth, run_id(run), seq, sha);
    strcat(want, line);
    free(sha);
    free(path);
    for (size_t f = 0; profiles && f < sizeof(files) / sizeof(*files); f++) {
      char *fp = e2e_path("%s/%s/%s", run, id, files[f]);
      if (e2e_exists(fp)) {
        char *fsha = e2e_sha256_file(fp);
        snprintf(line, sizeof(line), "200|/runs/%s/tests/%s/files/%s|%zu|%s|%s/%zu/%s|%s\n",
                 run_id(run), id, files[f], seq, auth, run_id(run), seq, files[f], fsha);
        strcat(want, line);
        free(fsha);
      }
      free(fp);
    }
  }
  seq++;
  char *rj = e2e_path("%s/run.json", run);
  char *rsha = e2e_sha256_file(rj);
  char line[1024];
  snprintf(line, sizeof(line), "200|/runs/%s/complete|%zu|%s|%s/%zu|%s\n", run_id(run), seq, auth,
           run_id(run), seq, rsha);
  strcat(want, line);
  /* What was accepted, in order. */
  char *got = calloc(1, strlen(log) + 1);
  size_t accepted = 0;
  for (char *l = strtok(log, "\n"); l; l = strtok(NULL, "\n")) {
    if (strncmp(l, "200|", 4) != 0) continue;
    strcat(got, l);
    strcat(got, "\n");
    accepted++;
  }
  ck_assert_str_eq(got, want);
  free(got);
  free(rsha);
  free(rj);
  free(want);
  free(ids);
  free(log);
  return accepted;
}

START_TEST(uploads_arrive_complete_in_order_with_the_token_and_no_token_in_any_file) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  char *www = server_dir(&s, "server");
  e2e_server_t srv;
  if (!start(&s, www, 0, 0, 200, &srv)) {
    free(www);
    e2e_scratch_free(&s);
    return;
  }
  char *suite = write_suite(&s);
  char url[128];
  snprintf(url, sizeof(url), "--upload=http://127.0.0.1:%d/api/", srv.port);
  e2e_proc_t p;
  e2e_run(&s, e2e_top(), (const char *const[]){"TORQ_UPLOAD_TOKEN=s3cret-t0ken", NULL},
          (const char *const[]){suite, url, "--upload-profiles", "-j", "2", NULL}, &p);
  ck_assert_msg(p.exit_code == 0, "exit %d\n%s\n%s", p.exit_code, p.out, p.err);
  ck_assert_ptr_nonnull(strstr(p.out, "Upload: everything sent"));
  char *run = e2e_only_run(&s);
  char *log = e2e_path("%s/requests.log", www);
  /* The base URL's trailing slash is not doubled: paths start with /api/runs/. */
  char *raw = e2e_read(log);
  ck_assert_uint_eq(e2e_count(raw, "|/api/runs/"), e2e_count(raw, "\n"));
  /* Compare without the /api prefix. */
  char *fixed = calloc(1, strlen(raw) + 1);
  for (char *a = raw, *o = fixed; *a;) {
    if (!strncmp(a, "|/api/", 6)) {
      *o++ = '|';
      a += 5;
    } else {
      *o++ = *a++;
    }
  }
  char *log2 = e2e_path("%s/requests2.log", www);
  e2e_write(log2, fixed);
  size_t n = check_uploads(log2, run, 1, "Bearer s3cret-t0ken");
  ck_assert_uint_ge(n, 3 * 2 + 1); /* reports, at least profile.csv each, the completion */
  /* The token is in no output and no file the run wrote. */
  ck_assert_ptr_null(strstr(p.out, "s3cret"));
  ck_assert_ptr_null(strstr(p.err, "s3cret"));
  const char *const names[] = {"run.json", "journal.jsonl", "junit.xml", "summary.txt",
                               "upload/queue", "upload/sent", "upload/url", "upload/log"};
  for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
    char *fp = e2e_path("%s/%s", run, names[i]);
    char *text = e2e_read(fp);
    if (text) ck_assert_msg(strstr(text, "s3cret") == NULL, "the token is in %s", names[i]);
    free(text);
    free(fp);
  }
  /* Nothing left: `torq-test upload` sends nothing more. */
  e2e_upload_sends_nothing(&s, NULL, run, log, raw);
  e2e_server_stop(&srv);
  free(log2);
  free(fixed);
  free(raw);
  free(log);
  free(run);
  free(suite);
  free(www);
  e2e_proc_free(&p);
  e2e_scratch_free(&s);
}
END_TEST

START_TEST(a_server_that_fails_twice_with_500_then_answers_gets_everything) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  char *www = server_dir(&s, "server");
  e2e_server_t srv;
  if (!start(&s, www, 0, 2, 500, &srv)) {
    free(www);
    e2e_scratch_free(&s);
    return;
  }
  char *suite = write_suite(&s);
  char url[128];
  snprintf(url, sizeof(url), "--upload=http://127.0.0.1:%d", srv.port);
  e2e_proc_t p;
  e2e_run(&s, e2e_top(), NULL, (const char *const[]){suite, url, "--no-profiling", NULL}, &p);
  e2e_server_stop(&srv);
  ck_assert_msg(p.exit_code == 0, "exit %d\n%s\n%s", p.exit_code, p.out, p.err);
  char *run = e2e_only_run(&s);
  char *log = e2e_path("%s/requests.log", www);
  ck_assert_uint_eq(check_uploads(log, run, 0, ""), 4);
  /* The two failures were the first test's report, retried under the same key. */
  char *raw = e2e_read(log);
  ck_assert_uint_eq(e2e_count(raw, "500|"), 2);
  ck_assert_ptr_eq(strstr(raw, "500|"), raw);
  char first[256];
  ck_assert_int_eq(sscanf(raw, "500|%255[^|]", first), 1);
  ck_assert_uint_eq(e2e_count(raw, first), 3);
  char *ulog_path = e2e_path("%s/upload/log", run);
  char *ulog = e2e_read(ulog_path);
  ck_assert_ptr_nonnull(ulog);
  ck_assert_uint_eq(e2e_count(ulog, "HTTP 500: try later (attempt "), 2);
  free(ulog);
  free(ulog_path);
  free(raw);
  free(log);
  free(run);
  free(suite);
  free(www);
  e2e_proc_free(&p);
  e2e_scratch_free(&s);
}
END_TEST

START_TEST(a_server_that_is_down_leaves_a_backlog_that_torq_test_upload_sends_later) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  char *www = server_dir(&s, "server");
  int port = free_port();
  char *suite = write_suite(&s);
  char url[128];
  snprintf(url, sizeof(url), "--upload=http://127.0.0.1:%d", port);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  e2e_proc_t p;
  e2e_run(&s, e2e_top(), NULL,
          (const char *const[]){suite, url, "--no-profiling", "--upload-profiles", NULL}, &p);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  /* The run's own outcome, and no waiting for the server: the end of the run tries each item
   * once and gives up on a refused connection (30 s of grace would be the stall). */
  ck_assert_msg(p.exit_code == 0, "exit %d\n%s\n%s", p.exit_code, p.out, p.err);
  double took = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  ck_assert_msg(took < 20, "the run took %.1f s with the server down", took);
  ck_assert_ptr_nonnull(strstr(p.err, "4 items not sent"));
  ck_assert_ptr_nonnull(strstr(p.err, "torq-test upload "));
  char *run = e2e_only_run(&s);
  ck_assert_uint_eq(e2e_journal_count(run, "passed"), 3);

  /* The server comes up on that port; the backlog goes, profiles included (as the run asked). */
  e2e_server_t srv;
  if (!start(&s, www, port, 0, 200, &srv)) {
    free(run);
    free(suite);
    free(www);
    e2e_proc_free(&p);
    e2e_scratch_free(&s);
    return;
  }
  e2e_proc_t up;
  e2e_run(&s, e2e_top(), NULL, (const char *const[]){"upload", run, NULL}, &up);
  ck_assert_msg(up.exit_code == 0, "exit %d\n%s\n%s", up.exit_code, up.out, up.err);
  ck_assert_ptr_nonnull(strstr(up.out, "Upload: 4 items sent"));
  char *log = e2e_path("%s/requests.log", www);
  ck_assert_uint_eq(check_uploads(log, run, 1, ""), 4 + 3); /* + trace.csv of each test */
  /* Sent once: a second call finds nothing to send. */
  e2e_proc_t again;
  e2e_run(&s, e2e_top(), NULL, (const char *const[]){"upload", run, NULL}, &again);
  ck_assert_int_eq(again.exit_code, 0);
  ck_assert_ptr_nonnull(strstr(again.out, "Upload: 0 items sent"));
  e2e_server_stop(&srv);
  e2e_proc_free(&again);
  e2e_proc_free(&up);
  free(log);
  free(run);
  free(suite);
  free(www);
  e2e_proc_free(&p);
  e2e_scratch_free(&s);
}
END_TEST

START_TEST(a_rejecting_server_and_a_run_without_upload_and_bad_options) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  char *www = server_dir(&s, "server");
  char *suite = write_suite(&s);
  /* Bad options are usage, before any run folder exists. */
  e2e_proc_t bad;
  e2e_run(&s, e2e_top(), NULL, (const char *const[]){suite, "--upload=ftp://127.0.0.1/x", NULL},
          &bad);
  ck_assert_int_eq(bad.exit_code, 2);
  ck_assert_ptr_nonnull(strstr(bad.err, "not an http:// or https:// URL"));
  ck_assert_uint_eq(e2e_num_runs(&s), 0);
  e2e_proc_free(&bad);
  e2e_run(&s, e2e_top(), NULL,
          (const char *const[]){suite, "--upload=http://127.0.0.1:9", "--upload-token-env=NOPE_X",
                                NULL},
          &bad);
  ck_assert_int_eq(bad.exit_code, 2);
  ck_assert_ptr_nonnull(strstr(bad.err, "NOPE_X: that variable is not set"));
  e2e_proc_free(&bad);

  /* A server that answers 401 rejects: the run still passes, and the items stay. */
  e2e_server_t srv;
  if (!start(&s, www, 0, 1000, 401, &srv)) {
    free(suite);
    free(www);
    e2e_scratch_free(&s);
    return;
  }
  char url[128];
  snprintf(url, sizeof(url), "--upload=http://127.0.0.1:%d", srv.port);
  e2e_proc_t p;
  e2e_run(&s, e2e_top(), NULL, (const char *const[]){suite, url, "--no-profiling", NULL}, &p);
  ck_assert_msg(p.exit_code == 0, "exit %d\n%s\n%s", p.exit_code, p.out, p.err);
  ck_assert_ptr_nonnull(strstr(p.err, "4 items not sent"));
  ck_assert_ptr_nonnull(strstr(p.err, "HTTP 401"));
  char *log = e2e_path("%s/requests.log", www);
  char *raw = e2e_read(log);
  ck_assert_uint_eq(e2e_count(raw, "\n"), 1); /* a rejection is not retried */
  free(raw);
  char *run = e2e_only_run(&s);
  e2e_server_stop(&srv);

  /* A run made without --upload is sent by `upload RUN_DIR --upload=URL`, from its journal. */
  char *www2 = server_dir(&s, "server2");
  e2e_proc_t plain;
  e2e_run(&s, e2e_top(), NULL, (const char *const[]){suite, "--no-profiling", NULL}, &plain);
  ck_assert_int_eq(plain.exit_code, 0);
  e2e_server_t srv2;
  ck_assert(start(&s, www2, 0, 0, 200, &srv2));
  /* The other run folder. */
  char *run2 = NULL;
  DIR *dir = opendir(s.results);
  ck_assert_ptr_nonnull(dir);
  for (struct dirent *e; (e = readdir(dir));) {
    if (e->d_name[0] == '.' || !strcmp(e->d_name, run_id(run))) continue;
    if (strncmp(e->d_name, "history.sqlite", 14) == 0 || !strcmp(e->d_name, "trends.html"))
      continue; /* the run history and its trends page live beside the runs */
    ck_assert_ptr_null(run2);
    run2 = e2e_path("%s/%s", s.results, e->d_name);
  }
  closedir(dir);
  ck_assert_ptr_nonnull(run2);
  snprintf(url, sizeof(url), "--upload=http://127.0.0.1:%d", srv2.port);
  e2e_proc_t up;
  e2e_run(&s, e2e_top(), NULL, (const char *const[]){"upload", run2, url, NULL}, &up);
  ck_assert_msg(up.exit_code == 0, "exit %d\n%s\n%s", up.exit_code, up.out, up.err);
  e2e_server_stop(&srv2);
  char *log2 = e2e_path("%s/requests.log", www2);
  ck_assert_uint_eq(check_uploads(log2, run2, 0, ""), 4);
  free(log2);
  e2e_proc_free(&up);
  free(run2);
  e2e_proc_free(&plain);
  free(www2);
  free(run);
  free(log);
  free(suite);
  free(www);
  e2e_proc_free(&p);
  e2e_scratch_free(&s);
}
END_TEST

/* Lines of the server's log that are accepted requests under run id `id` (path and
 * Idempotency-Key), and all its lines. */
static void count_under(const char *log_path, const char *id, size_t *out_ok, size_t *out_all) {
  char *log = e2e_read(log_path);
  *out_ok = *out_all = 0;
  char *path = e2e_path("200|/runs/%s/", id), *key = e2e_path("|%s/", id);
  for (char *l = log ? strtok(log, "\n") : NULL; l; l = strtok(NULL, "\n")) {
    (*out_all)++;
    const char *rest = !strncmp(l, path, strlen(path)) ? l + strlen(path) : NULL;
    const char *k = strstr(l, key);
    if (rest && (!strncmp(rest, "tests/", 6) || !strncmp(rest, "complete|", 9)) && k &&
        k[strlen(key)] >= '1' && k[strlen(key)] <= '9')
      (*out_ok)++;
  }
  free(key);
  free(path);
  free(log);
}

/* `torq-test upload` with the run folder written in every usual way sends under the folder's
 * own name; an item sent under another run id (the folder renamed, or an outbox whose `sent`
 * names no run id) is sent again under the right one. */
START_TEST(upload_uses_the_run_folders_name_however_it_is_written) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  char *www = server_dir(&s, "server");
  e2e_server_t srv;
  if (!start(&s, www, 0, 0, 200, &srv)) {
    free(www);
    e2e_scratch_free(&s);
    return;
  }
  char *suite = write_suite(&s);
  e2e_proc_t p;
  e2e_run(&s, e2e_top(), NULL, (const char *const[]){suite, "--no-profiling", NULL}, &p);
  ck_assert_msg(p.exit_code == 0, "exit %d\n%s\n%s", p.exit_code, p.out, p.err);
  e2e_proc_free(&p);
  char *run = e2e_only_run(&s);
  const char *id = run_id(run);
  char url[128];
  snprintf(url, sizeof(url), "--upload=http://127.0.0.1:%d", srv.port);
  char *slash = e2e_path("%s/", id), *dot = e2e_path("./%s", id), *rel = e2e_path("results/%s", id);
  char *rel_dot = e2e_path("results/%s/.", id), *abs_slash = e2e_path("%s//", run);
  const struct {
    const char *cwd, *path;
  } forms[] = {{s.results, slash}, {s.results, dot}, {s.dir, rel},
               {s.dir, rel_dot},   {"/", abs_slash}, {s.results, id}};
  char *log = e2e_path("%s/requests.log", www);
  char *outbox = e2e_path("rm -rf '%s/upload'", run);
  size_t ok, all;
  for (size_t i = 0; i < sizeof(forms) / sizeof(*forms); i++) {
    ck_assert_int_eq(system(outbox), 0);
    e2e_run(&s, forms[i].cwd, NULL, (const char *const[]){"upload", forms[i].path, url, NULL}, &p);
    ck_assert_msg(p.exit_code == 0, "%s: exit %d\n%s\n%s", forms[i].path, p.exit_code, p.out,
                  p.err);
    ck_assert_msg(strstr(p.out, "Upload: 4 items sent"), "%s: %s", forms[i].path, p.out);
    e2e_proc_free(&p);
    count_under(log, id, &ok, &all);
    ck_assert_msg(ok == 4 * (i + 1) && all == ok, "%s: %zu of %zu requests under /runs/%s/",
                  forms[i].path, ok, all, id);
  }
  /* Sent under this id: nothing more to send, whatever the path. */
  e2e_run(&s, s.results, NULL, (const char *const[]){"upload", slash, NULL}, &p);
  ck_assert_msg(p.exit_code == 0 && strstr(p.out, "Upload: 0 items sent"), "%s%s", p.out, p.err);
  e2e_proc_free(&p);

  /* The folder renamed: its items were sent as the old id, not as the new one. */
  char *moved = e2e_path("%s-renamed", run);
  ck_assert_int_eq(rename(run, moved), 0);
  e2e_run(&s, e2e_top(), NULL, (const char *const[]){"upload", moved, NULL}, &p);
  ck_assert_msg(p.exit_code == 0 && strstr(p.out, "Upload: 4 items sent"), "%s%s", p.out, p.err);
  e2e_proc_free(&p);
  size_t renamed_ok, renamed_all;
  count_under(log, run_id(moved), &renamed_ok, &renamed_all);
  ck_assert_uint_eq(renamed_ok, 4);
  ck_assert_uint_eq(renamed_all, all + 4);
  /* An outbox whose `sent` names no run id (an older torq-test, maybe sent under a wrong id): its
   * items go again (the server drops copies by their Idempotency-Key). */
  char *sent = e2e_path("%s/upload/sent", moved);
  e2e_write(sent, "1\n2\n3\n4\n");
  e2e_run(&s, e2e_top(), NULL, (const char *const[]){"upload", moved, NULL}, &p);
  ck_assert_msg(p.exit_code == 0 && strstr(p.out, "Upload: 4 items sent"), "%s%s", p.out, p.err);
  e2e_proc_free(&p);
  count_under(log, run_id(moved), &renamed_ok, &renamed_all);
  ck_assert_uint_eq(renamed_ok, 8);
  e2e_server_stop(&srv);
  free(sent);
  free(moved);
  free(outbox);
  free(log);
  free(slash);
  free(dot);
  free(rel);
  free(rel_dot);
  free(abs_slash);
  free(run);
  free(suite);
  free(www);
  e2e_scratch_free(&s);
}
END_TEST

/* A server that takes connections and requests but never answers holds the end of the run a few
 * seconds at most (TQH_UPLOAD_STALL_S, 5 s), not --upload-timeout: the backlog stays, and the run
 * says how to send it. */
START_TEST(a_server_that_never_answers_holds_the_end_of_the_run_a_few_seconds_at_most) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  char *www = server_dir(&s, "server");
  e2e_server_t srv;
  char *script = e2e_path("%s/scripts/results-server", e2e_top());
  int started = e2e_server_start_file(&s, script, www, (const char *const[]){"--hang", NULL}, &srv);
  free(script);
  if (!started) {
    free(www);
    e2e_scratch_free(&s);
    return;
  }
  char *suite = write_suite(&s);
  char url[128];
  snprintf(url, sizeof(url), "--upload=http://127.0.0.1:%d", srv.port);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  e2e_proc_t p;
  e2e_run(&s, e2e_top(), NULL, (const char *const[]){suite, url, "--no-profiling", NULL}, &p);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double took = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  ck_assert_msg(p.exit_code == 0, "exit %d\n%s\n%s", p.exit_code, p.out, p.err);
  /* Three tiny tests take well under a second; the rest is the wait for the server (35 s before:
   * the 30 s grace and 5 s more). */
  ck_assert_msg(took < 5.0 + 10.0, "the run took %.1f s with a server that never answers", took);
  ck_assert_msg(strstr(p.err, "4 items not sent") && strstr(p.err, "no answer for 5 s"), "%s",
                p.err);
  char *run = e2e_only_run(&s);
  char *cmd = e2e_path("torq-test upload %s", run);
  ck_assert_msg(strstr(p.err, cmd), "%s", p.err);
  char *log = e2e_path("%s/requests.log", www);
  char *raw = e2e_read(log);
  ck_assert_msg(raw && strstr(raw, "0|/runs/"), "the server never got the request");
  e2e_server_stop(&srv);
  free(raw);
  free(log);
  free(cmd);
  free(run);
  free(suite);
  free(www);
  e2e_proc_free(&p);
  e2e_scratch_free(&s);
}
END_TEST

Suite *e2e_suite_upload(void) {
  Suite *s = suite_create("upload");
  TCase *tc = tcase_create("upload");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, uploads_arrive_complete_in_order_with_the_token_and_no_token_in_any_file);
  tcase_add_test(tc, a_server_that_fails_twice_with_500_then_answers_gets_everything);
  tcase_add_test(tc, a_server_that_is_down_leaves_a_backlog_that_torq_test_upload_sends_later);
  tcase_add_test(tc, a_rejecting_server_and_a_run_without_upload_and_bad_options);
  tcase_add_test(tc, upload_uses_the_run_folders_name_however_it_is_written);
  tcase_add_test(tc, a_server_that_never_answers_holds_the_end_of_the_run_a_few_seconds_at_most);
  suite_add_tcase(s, tc);
  return s;
}
