/* Models given by URL, served by a real HTTP server on loopback that the test starts and stops
 * (Python's http.server; a missing Python, e2e_server_start, fails the test under CI and is a
 * counted skip otherwise). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "e2e.h"

/* Serves DIR on 127.0.0.1 at a free port, writes the port to DIR/.port (atomically), logs
 * requests to stderr. */
static const char k_server_py[] =
    "import http.server, functools, os, sys\n"
    "d = sys.argv[1]\n"
    "h = functools.partial(http.server.SimpleHTTPRequestHandler, directory=d)\n"
    "s = http.server.HTTPServer(('127.0.0.1', 0), h)\n"
    "open(os.path.join(d, '.port.tmp'), 'w').write(str(s.server_address[1]))\n"
    "os.rename(os.path.join(d, '.port.tmp'), os.path.join(d, '.port'))\n"
    "s.serve_forever()\n";

START_TEST(url_models_are_fetched_once_checked_and_failures_stay_in_their_test) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  char *www = e2e_path("%s/www", s.dir);
  char *model = e2e_path("%s/www/add.mlir", s.dir);
  e2e_write_add_model(model);
  e2e_server_t srv;
  if (!e2e_server_start(&s, k_server_py, www, NULL, &srv)) {
    free(model);
    free(www);
    e2e_scratch_free(&s);
    return;
  }
  char *sha = e2e_sha256_file(model);
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
  e2e_server_stop(&srv);
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
