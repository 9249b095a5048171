/* Models given by URL, served by a real HTTP server on loopback that the test starts and stops
 * (Python's http.server; the test is skipped when /usr/bin/python3 is missing). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "e2e.h"
#include "torq/base/sha256.h"

/* Serves DIR on 127.0.0.1 at a free port, writes the port to DIR/.port, logs requests to stderr. */
static const char k_server_py[] =
    "import http.server, functools, os, sys\n"
    "d = sys.argv[1]\n"
    "h = functools.partial(http.server.SimpleHTTPRequestHandler, directory=d)\n"
    "s = http.server.HTTPServer(('127.0.0.1', 0), h)\n"
    "open(os.path.join(d, '.port.tmp'), 'w').write(str(s.server_address[1]))\n"
    "os.rename(os.path.join(d, '.port.tmp'), os.path.join(d, '.port'))\n"
    "s.serve_forever()\n";

typedef struct server_s {
  pid_t pid;
  int port;
  char *log;
} server_t;

static int start_server(const e2e_scratch_t *s, const char *dir, server_t *out) {
  if (access("/usr/bin/python3", X_OK) != 0) return 0;
  char *script = e2e_path("%s/server.py", s->dir);
  e2e_write(script, k_server_py);
  out->log = e2e_path("%s/server.log", s->dir);
  fflush(NULL);
  out->pid = fork();
  ck_assert_int_ge(out->pid, 0);
  if (out->pid == 0) {
    FILE *log = freopen(out->log, "w", stderr);
    (void)log;
    execl("/usr/bin/python3", "python3", script, dir, (char *)NULL);
    _exit(127);
  }
  char *portfile = e2e_path("%s/.port", dir);
  char *text = NULL;
  for (int i = 0; i < 1000 && !text; i++) {
    text = e2e_read(portfile);
    if (!text) {
      struct timespec ts = {0, 10000000};
      nanosleep(&ts, NULL);
    }
  }
  ck_assert_msg(text != NULL, "the HTTP server did not start");
  out->port = atoi(text);
  free(text);
  free(portfile);
  free(script);
  return 1;
}

static void stop_server(server_t *srv) {
  kill(srv->pid, SIGTERM);
  e2e_wait(srv->pid);
  free(srv->log);
}

static char *sha256_hex_of(const char *path) {
  uint8_t d[TQ_SHA256_SIZE];
  char hex[TQ_SHA256_HEX_SIZE];
  tq_status_t st = tq_sha256_file(path, d);
  ck_assert_ptr_null(st);
  tq_sha256_hex(d, hex);
  return strdup(hex);
}

START_TEST(url_models_are_fetched_once_checked_and_failures_stay_in_their_test) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  char *www = e2e_path("%s/www", s.dir);
  char *model = e2e_path("%s/www/add.mlir", s.dir);
  e2e_write_add_model(model);
  server_t srv;
  if (!start_server(&s, www, &srv)) {
    e2e_scratch_free(&s);
    return;
  }
  char *sha = sha256_hex_of(model);
  char *suite = e2e_path("%s/url.yaml", s.dir);
  char text[4096];
  snprintf(text, sizeof(text),
           "suite: url\n"
           "tests:\n"
           "  - name: first\n"
           "    model: {url: 'http://127.0.0.1:%d/add.mlir', sha256: %s}\n"
           "  - name: again\n"
           "    model: {url: 'http://127.0.0.1:%d/add.mlir', sha256: %s}\n"
           "  - name: wrong_sha\n"
           "    model: {url: 'http://127.0.0.1:%d/add.mlir', sha256: %064d}\n"
           /* Another digest: a download is found by its digest, whatever its URL. */
           "  - name: missing\n"
           "    model: {url: 'http://127.0.0.1:%d/nothing.mlir', sha256: %s}\n",
           srv.port, sha, srv.port, sha, srv.port, 0, srv.port,
           "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
  e2e_write(suite, text);
  e2e_proc_t p;
  e2e_run(&s, e2e_top(), NULL, (const char *const[]){suite, "--no-profiling", NULL}, &p);
  stop_server(&srv);
  /* A server that answers 404 is an infrastructure fault: exit 3, not "the model failed". */
  ck_assert_msg(p.exit_code == 3, "exit %d\n%s\n%s", p.exit_code, p.out, p.err);
  char *run = e2e_only_run(&s);
  ck_assert_uint_eq(e2e_journal_count(run, "passed"), 2);
  ck_assert_uint_eq(e2e_journal_count(run, "failed"), 1);
  ck_assert_uint_eq(e2e_journal_count(run, "error"), 1);
  char *jp = e2e_path("%s/journal.jsonl", run);
  char *journal = e2e_read(jp);
  ck_assert_ptr_nonnull(strstr(journal, "the fetched model has sha256"));
  ck_assert_ptr_nonnull(strstr(journal, "404"));
  free(journal);
  free(jp);
  /* Fetched once: the second test found it in the cache's downloads. */
  char *logp = e2e_path("%s/server.log", s.dir);
  char *served = e2e_read(logp);
  ck_assert_uint_eq(e2e_count(served, "GET /add.mlir"), 2); /* first, and wrong_sha's check */
  free(served);
  free(logp);
  free(run);
  free(suite);
  free(sha);
  free(model);
  free(www);
  e2e_proc_free(&p);
  e2e_scratch_free(&s);
}
END_TEST

Suite *e2e_suite_fetch(void) {
  Suite *s = suite_create("fetch");
  TCase *tc = tcase_create("fetch");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, url_models_are_fetched_once_checked_and_failures_stay_in_their_test);
  suite_add_tcase(s, tc);
  return s;
}
