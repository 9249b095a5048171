/* The HTML report end to end: a run of a passing and a failing test writes index.html, `torq-test
 * report` writes it again, `merge` writes one for the merged run, and headless Chromium renders
 * it: the DOM after the page's script ran holds every test id, the timeline's SVG, the tables of
 * time by operator and links to the test's files, the filter hides what it should (preset from
 * the address), and a screenshot is a real PNG. Chromium is $TORQ_CHROMIUM, else /usr/bin/chromium
 * (scripts/install-test-tools installs it): missing, it fails the test under CI; otherwise the
 * rendering is a counted skip. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "e2e.h"

#define CHROMIUM_ENV "TORQ_CHROMIUM"
#define CHROMIUM "/usr/bin/chromium"
#define CHROMIUM_TIMEOUT_S 60

/* Runs Chromium (`bin`) headless on `page` (with "#fragment" when `fragment` is not NULL) with
 * one more argument (`what`) and a fresh profile folder, stdout to `out_path`; kills its process
 * group after CHROMIUM_TIMEOUT_S. Returns its exit status, or -1 when it was killed. */
static int chromium(const char *bin, const char *scratch, const char *what, const char *page,
                    const char *fragment, const char *out_path) {
  char *profile = e2e_path("%s/chromium-XXXXXX", scratch);
  ck_assert_ptr_nonnull(mkdtemp(profile));
  char *user_data = e2e_path("--user-data-dir=%s", profile);
  char *url = e2e_path("file://%s%s%s", page, fragment ? "#" : "", fragment ? fragment : "");
  const char *argv[] = {bin,
                        "--headless",
                        "--no-sandbox",
                        "--disable-gpu",
                        "--disable-quic",
                        "--no-first-run",
                        "--disable-background-networking",
                        "--disable-component-update",
                        "--disable-sync",
                        user_data,
                        "--window-size=1280,2000",
                        what,
                        url,
                        NULL};
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    setpgid(0, 0);
    FILE *out = freopen(out_path, "w", stdout);
    FILE *err = freopen("/dev/null", "w", stderr);
    if (out && err) execv(bin, (char *const *)argv);
    _exit(127);
  }
  setpgid(pid, pid);
  int status = 0, killed = 0;
  struct timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  for (;;) {
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid || (r < 0 && errno != EINTR)) break;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (!killed && now.tv_sec - start.tv_sec >= CHROMIUM_TIMEOUT_S) {
      kill(-pid, SIGKILL);
      killed = 1;
    }
    usleep(50 * 1000);
  }
  free(profile);
  free(user_data);
  free(url);
  if (killed) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static size_t file_size(const char *path) {
  struct stat sb;
  return stat(path, &sb) == 0 ? (size_t)sb.st_size : 0;
}

START_TEST(run_writes_index_html_that_chromium_renders) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  char *add = e2e_path("%s/add.mlir", s.dir), *broken = e2e_path("%s/broken.mlir", s.dir);
  e2e_write_add_model(add);
  e2e_write_broken_model(broken);
  char *suite = e2e_path("%s/h.yaml", s.dir);
  e2e_write(suite,
            "suite: h\ntests:\n  - name: a\n    model: add.mlir\n    repeat: 3\n"
            "  - name: broken\n    model: broken.mlir\n");
  e2e_proc_t p;
  e2e_run(&s, e2e_top(), NULL, (const char *const[]){suite, "-q", NULL}, &p);
  ck_assert_msg(p.exit_code == 1, "exit %d\n%s%s", p.exit_code, p.out, p.err);
  ck_assert_msg(strstr(p.err, "HTML report") == NULL, "%s", p.err);
  e2e_proc_free(&p);
  char *run = e2e_only_run(&s);
  char *page = e2e_path("%s/index.html", run);
  char *html = e2e_read(page);
  ck_assert_msg(html != NULL, "no %s", page);
  ck_assert_ptr_nonnull(strstr(html, "id=\"t-h/a\""));
  ck_assert_ptr_nonnull(strstr(html, "id=\"t-h/broken\""));

  /* `report` writes it again, from the journal, byte for byte as the run wrote it from the
   * records it held. */
  ck_assert_int_eq(unlink(page), 0);
  e2e_run(&s, e2e_top(), NULL, (const char *const[]){"report", run, NULL}, &p);
  ck_assert_msg(p.exit_code == 0, "exit %d\n%s%s", p.exit_code, p.out, p.err);
  ck_assert_ptr_nonnull(strstr(p.out, "/index.html from the journal"));
  e2e_proc_free(&p);
  char *again = e2e_read(page);
  ck_assert_msg(again && !strcmp(again, html), "index.html rewritten from the journal differs");
  free(again);
  free(html);

  /* The history the run recorded from its records is the one an import of its journal makes. */
  char *imported = e2e_path("--history=%s/imported.sqlite", s.dir);
  e2e_run(&s, e2e_top(), NULL, (const char *const[]){"history", "import", run, imported, NULL},
          &p);
  ck_assert_msg(p.exit_code == 0, "exit %d\n%s%s", p.exit_code, p.out, p.err);
  e2e_proc_free(&p);
  for (int i = 0; i < 2; i++) {
    /* h/a with its profile's OVERALL, h/broken (no metric) with its outcome. */
    const char *test = i ? "h/broken" : "h/a", *metric = i ? NULL : "--metric=OVERALL";
    e2e_proc_t ran, imp;
    e2e_run(&s, e2e_top(), NULL, (const char *const[]){"history", "show", test, metric, NULL},
            &ran);
    e2e_run(&s, e2e_top(), NULL,
            (const char *const[]){"history", "show", test, imported, metric, NULL}, &imp);
    ck_assert_msg(ran.exit_code == 0 && strstr(ran.out, " 1 run"), "%s%s", ran.out, ran.err);
    ck_assert_msg(!strcmp(ran.out, imp.out), "%s: recorded\n%s\nimported\n%s", test, ran.out,
                  imp.out);
    e2e_proc_free(&ran);
    e2e_proc_free(&imp);
  }
  free(imported);

  /* So does `merge`, for the merged run. */
  char *merged_root = e2e_path("--results-dir=%s/merged", s.dir);
  e2e_run(&s, e2e_top(), NULL, (const char *const[]){"merge", run, merged_root, NULL}, &p);
  ck_assert_msg(p.exit_code == 1, "exit %d\n%s%s", p.exit_code, p.out, p.err);
  const char *into = strstr(p.out, " into ");
  ck_assert_msg(into != NULL, "%s", p.out);
  char *merged_page = e2e_path("%.*sindex.html", (int)strcspn(into + 6, "\n"), into + 6);
  ck_assert_msg(e2e_exists(merged_page), "no %s", merged_page);
  free(merged_page);
  free(merged_root);
  e2e_proc_free(&p);

  /* Without chromium (outside CI) the page's own checks above stand and the rendering is the
   * skip. */
  const char *chromium_bin =
      tq_test_tool(CHROMIUM_ENV, CHROMIUM, "apt-get install chromium (scripts/install-test-tools)");
  if (chromium_bin) {
    char *dom_path = e2e_path("%s/dom.html", s.dir);
    int rc = chromium(chromium_bin, s.dir, "--dump-dom", page, NULL, dom_path);
    ck_assert_msg(rc == 0, "chromium --dump-dom: %d", rc);
    char *dom = e2e_read(dom_path);
    ck_assert_ptr_nonnull(dom);
    ck_assert_msg(strstr(dom, "id=\"t-h/a\"") && strstr(dom, "id=\"t-h/broken\""),
                  "a test id is missing from the DOM");
    ck_assert_uint_eq(e2e_count(dom, "<svg class=\"timeline\""), 1);
    ck_assert_uint_gt(e2e_count(dom, "<rect "), 5);
    ck_assert_uint_gt(e2e_count(dom, "title=\"Click to sort\""), 5); /* the script ran */
    /* h/a's time by operator, the run's, and links to its files that resolve from the page. */
    const char *a = strstr(dom, "id=\"t-h/a\"");
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(strstr(a, "<table class=\"ops\">"));
    ck_assert_ptr_nonnull(strstr(a, "<tr><td>tosa.add</td>"));
    ck_assert_uint_eq(e2e_count(dom, "<table class=\"ops\">"), 2);
    ck_assert_ptr_nonnull(strstr(a, "<a href=\"h+a/profile.pb\">profile.pb</a>"));
    char *linked = e2e_path("%s/h+a/profile.pb", run);
    ck_assert(e2e_exists(linked));
    free(linked);
    ck_assert_ptr_nonnull(strstr(dom, "2 of 2 tests shown"));
    free(dom);
    /* The filter, preset from the address as a user's bookmark would: the failed tests only,
     * then a text. A hidden row or section carries the hidden attribute. */
    rc = chromium(chromium_bin, s.dir, "--dump-dom", page, "outcome=failed", dom_path);
    ck_assert_msg(rc == 0, "chromium --dump-dom: %d", rc);
    dom = e2e_read(dom_path);
    ck_assert_ptr_nonnull(strstr(dom, "1 of 2 tests shown"));
    ck_assert_ptr_nonnull(strstr(dom, "<tr data-outcome=\"passed\" data-f=\"h/a\" hidden=\"\">"));
    const char *broken_row = strstr(dom, "<tr data-outcome=\"failed\" data-f=\"h/broken ");
    ck_assert_ptr_nonnull(broken_row);
    const char *hidden = strstr(broken_row, " hidden=");
    ck_assert(!hidden || hidden > strchr(broken_row, '>')); /* its own tag is not hidden */
    ck_assert_ptr_nonnull(strstr(dom, "<section data-outcome=\"passed\" data-f=\"h/a\" "
                                      "class=\"test\" id=\"t-h/a\" hidden=\"\">"));
    free(dom);
    rc = chromium(chromium_bin, s.dir, "--dump-dom", page, "q=H/A", dom_path);
    ck_assert_msg(rc == 0, "chromium --dump-dom: %d", rc);
    dom = e2e_read(dom_path);
    ck_assert_ptr_nonnull(strstr(dom, "1 of 2 tests shown"));
    ck_assert_ptr_nonnull(strstr(dom, "<tr data-outcome=\"passed\" data-f=\"h/a\">"));
    ck_assert_uint_eq(e2e_count(dom, "\" hidden=\"\">"), 2); /* h/broken's row and section */
    free(dom);
    free(dom_path);

    char *png = e2e_path("%s/index.png", run), *shot = e2e_path("--screenshot=%s", png);
    char *log = e2e_path("%s/screenshot.log", s.dir);
    rc = chromium(chromium_bin, s.dir, shot, page, NULL, log);
    ck_assert_msg(rc == 0, "chromium --screenshot: %d", rc);
    FILE *f = fopen(png, "rb");
    ck_assert_msg(f != NULL, "no screenshot %s", png);
    unsigned char sig[8] = {0};
    ck_assert_uint_eq(fread(sig, 1, 8, f), 8);
    fclose(f);
    ck_assert(memcmp(sig, "\x89PNG\r\n\x1a\n", 8) == 0);
    ck_assert_uint_gt(file_size(png), 20000);
    free(png);
    free(shot);
    free(log);
  }
  free(page);
  free(run);
  free(suite);
  free(add);
  free(broken);
  e2e_scratch_free(&s);
}
END_TEST

/* The trends page of the run history: three runs of three tests, then `trends -k` selecting two
 * of them; headless Chromium renders it and its DOM has a section and charts for each selected
 * test and none for the other. */
START_TEST(trends_page_renders_every_selected_test) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  char *suite = e2e_path("%s/tr.yaml", s.dir);
  const char *names[] = {"alpha", "beta", "gamma"};
  for (int i = 0; i < 3; i++) {
    char *model = e2e_path("%s/%s.mlir", s.dir, names[i]);
    e2e_write_add_model(model);
    free(model);
  }
  e2e_write(suite, "suite: tr\ndefaults:\n  repeat: 5\ntests:\n  - model: alpha.mlir\n"
                   "  - model: beta.mlir\n  - model: gamma.mlir\n");
  e2e_proc_t p;
  for (int k = 0; k < 3; k++) {
    e2e_run(&s, e2e_top(), NULL, (const char *const[]){suite, "-q", NULL}, &p);
    ck_assert_msg(p.exit_code == 0, "%s%s", p.out, p.err);
    e2e_proc_free(&p);
  }
  char *page = e2e_path("%s/trends-ag.html", s.dir), *out = e2e_path("-o%s", page);
  e2e_run(&s, e2e_top(), NULL,
          (const char *const[]){"trends", "-k", "alpha or gamma", out, "--last", "10", NULL}, &p);
  ck_assert_msg(p.exit_code == 0 && strstr(p.out, "Trends of 2 tests"), "%s%s", p.out, p.err);
  e2e_proc_free(&p);
  char *html = e2e_read(page);
  ck_assert_ptr_nonnull(html);
  ck_assert_msg(strstr(html, "id=\"t-tr/alpha\"") && strstr(html, "id=\"t-tr/gamma\"") &&
                    !strstr(html, "id=\"t-tr/beta\""),
                "%.2000s", html);
  ck_assert_msg(strstr(html, "E-divisive means"), "the page names its method");
  /* Nothing fetched: no script, stylesheet or image from anywhere. */
  ck_assert_ptr_null(strstr(html, "http://"));
  ck_assert_ptr_null(strstr(html, "https://"));
  ck_assert_ptr_null(strstr(html, "<script src"));
  free(html);
  /* Every run also rewrote the default page beside the history, which index.html links to. */
  char *beside = e2e_path("%s/trends.html", s.results);
  ck_assert_msg(e2e_exists(beside), "no %s", beside);
  const char *chromium_bin =
      tq_test_tool(CHROMIUM_ENV, CHROMIUM, "apt-get install chromium (scripts/install-test-tools)");
  if (chromium_bin) {
    char *dom_path = e2e_path("%s/trends-dom.html", s.dir);
    int rc = chromium(chromium_bin, s.dir, "--dump-dom", page, NULL, dom_path);
    ck_assert_msg(rc == 0, "chromium --dump-dom: %d", rc);
    char *dom = e2e_read(dom_path);
    ck_assert_ptr_nonnull(dom);
    ck_assert_msg(strstr(dom, "id=\"t-tr/alpha\"") && strstr(dom, "id=\"t-tr/gamma\"") &&
                      !strstr(dom, "id=\"t-tr/beta\""),
                  "the DOM misses a selected test");
    /* A chart per metric of each test: wall_time, estimated_cycles and the overview's. */
    ck_assert_uint_ge(e2e_count(dom, "<figure data-metric=\"wall_time\""), 2);
    ck_assert_uint_ge(e2e_count(dom, "<figure data-metric=\"OVERALL\""), 2);
    ck_assert_uint_ge(e2e_count(dom, "<polyline points=\""), 2 * 10);
    free(dom);
    free(dom_path);
    char *png = e2e_path("%s/trends.png", s.dir), *shot = e2e_path("--screenshot=%s", png);
    char *log = e2e_path("%s/trends-shot.log", s.dir);
    rc = chromium(chromium_bin, s.dir, shot, beside, NULL, log);
    ck_assert_msg(rc == 0, "chromium --screenshot: %d", rc);
    ck_assert_uint_gt(file_size(png), 20000);
    free(png);
    free(shot);
    free(log);
  }
  free(beside);
  free(out);
  free(page);
  free(suite);
  e2e_scratch_free(&s);
}
END_TEST

/* The run's index.html is written while the history and the trends page are: it links to the
 * trends page when that was written, and not when it could not be (a folder in its place), the
 * run's result the same either way. */
START_TEST(run_report_links_the_trends_page_only_when_it_was_written) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  char *suite = e2e_path("%s/ln.yaml", s.dir), *model = e2e_path("%s/add.mlir", s.dir);
  e2e_write_add_model(model);
  e2e_write(suite, "suite: ln\ntests:\n  - model: add.mlir\n");
  char *beside = e2e_path("%s/trends.html", s.results);
  ck_assert_int_eq(mkdir(s.results, 0777), 0);
  ck_assert_int_eq(mkdir(beside, 0777), 0);
  e2e_proc_t p;
  for (int k = 0; k < 2; k++) {
    e2e_run(&s, e2e_top(), NULL, (const char *const[]){suite, NULL}, &p);
    ck_assert_msg(p.exit_code == 0, "%s%s", p.out, p.err);
    ck_assert_msg((strstr(p.err, "the trends page was not written") != NULL) == (k == 0),
                  "run %d: %s", k, p.err);
    char *run = e2e_run_folder(&p);
    char *index = e2e_path("%s/index.html", run);
    char *html = e2e_read(index);
    ck_assert_msg(html && strstr(html, "ln/add"), "run %d: no report", k);
    ck_assert_msg((strstr(html, "href=\"../trends.html\"") != NULL) == (k == 1),
                  "run %d: the link to the trends page", k);
    free(html);
    free(index);
    free(run);
    e2e_proc_free(&p);
    if (k == 0) ck_assert_int_eq(rmdir(beside), 0);
  }
  ck_assert(e2e_exists(beside));
  free(beside);
  free(model);
  free(suite);
  e2e_scratch_free(&s);
}
END_TEST

Suite *e2e_suite_html(void) {
  Suite *s = suite_create("html");
  TCase *tc = tcase_create("html");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, run_writes_index_html_that_chromium_renders);
  tcase_add_test(tc, trends_page_renders_every_selected_test);
  tcase_add_test(tc, run_report_links_the_trends_page_only_when_it_was_written);
  suite_add_tcase(s, tc);
  return s;
}
