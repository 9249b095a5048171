/* The upload's pieces that need no server: URL checks, the URL as shown, and reading an outbox
 * back (the end-to-end tests send to a real server on loopback). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "suites.h"
#include "torq/base/alloc.h"
#include "torq/harness/upload.h"
#include "tq_test.h"
#include "transfer/transfer_internal.h"

START_TEST(urls_are_checked_and_shown_without_their_password) {
  const char *good[] = {"http://127.0.0.1:8080", "https://dash.example/api/", "http://h/x/y"};
  for (size_t i = 0; i < sizeof(good) / sizeof(*good); i++) TH_OK(tqh_upload_check_url(good[i]));
  const char *bad[] = {"ftp://h/x", "127.0.0.1:80", "http://", "http:///x", "http://h/a b",
                       "http://h/x?q=1", "http://h/x#f", "http://h/\x01"};
  for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
    tq_status_t st = tqh_upload_check_url(bad[i]);
    ck_assert_msg(st != NULL, "'%s' was accepted", bad[i]);
    ck_assert_int_eq(tq_status_code(st), TQ_INVALID_ARGUMENT);
    tq_status_free(st);
  }
  char *shown = tqh_upload_display_url("https://bot:hunter2@dash.example:8443/api/x@y");
  ck_assert_str_eq(shown, "https://dash.example:8443/api/x@y");
  tq_free(shown);
  shown = tqh_upload_display_url("http://dash/a@b");
  ck_assert_str_eq(shown, "http://dash/a@b");
  tq_free(shown);
  /* The Torq dashboard: a prefix before the server's URL. */
  const char *base = NULL;
  ck_assert_int_eq(tqh_upload_protocol("torq-dashboard+http://h:8080/", &base),
                   TQH_UPLOAD_DASHBOARD);
  ck_assert_str_eq(base, "http://h:8080/");
  ck_assert_int_eq(tqh_upload_protocol("http://h/", &base), TQH_UPLOAD_RESULTS);
  ck_assert_str_eq(base, "http://h/");
  TH_OK(tqh_upload_check_url("torq-dashboard+https://dash.example"));
  const char *bad_dash[] = {"torq-dashboard+", "torq-dashboard+ftp://h", "torq-dashboard+h:1"};
  for (size_t i = 0; i < sizeof(bad_dash) / sizeof(*bad_dash); i++) {
    tq_status_t st = tqh_upload_check_url(bad_dash[i]);
    ck_assert_msg(st != NULL, "'%s' was accepted", bad_dash[i]);
    tq_status_free(st);
  }
  shown = tqh_upload_display_url("torq-dashboard+https://u:p@dash/x");
  ck_assert_str_eq(shown, "torq-dashboard+https://dash/x");
  tq_free(shown);
}
END_TEST

/* The zip the dashboard's batches travel in: CRC-32 as zip computes it, and an archive that
 * Python's zipfile reads back entry by entry. */
START_TEST(a_zip_of_stored_entries_reads_back) {
  ck_assert_uint_eq(tqh__crc32("123456789", 9), 0xCBF43926u);
  ck_assert_uint_eq(tqh__crc32("", 0), 0);
  tqh__zip_t z;
  tqh__zip_init(&z);
  TH_OK(tqh__zip_add(&z, "test_session.json", "{\"a\": 1}", 8));
  TH_OK(tqh__zip_add(&z, "profiles/s+t.pb", "\x0a\x00\xff", 3));
  TH_OK(tqh__zip_add(&z, "failure_logs/empty.log", "", 0));
  tq_status_t st = tqh__zip_add(&z, "../escape", "x", 1);
  ck_assert_ptr_nonnull(st);
  tq_status_free(st);
  TH_OK(tqh__zip_finish(&z));
  ck_assert_uint_eq(z.entries, 3);
  ck_assert_mem_eq(z.out.data, "PK\x03\x04", 4);
  ck_assert_mem_eq(z.out.data + z.out.len - 22, "PK\x05\x06", 4);
  char *dir = th_tmpdir();
  char *zip = th_path(dir, "b.zip"), *py = th_path(dir, "check.py");
  FILE *f = fopen(zip, "wb");
  ck_assert_uint_eq(fwrite(z.out.data, 1, z.out.len, f), z.out.len);
  fclose(f);
  const char *python = tq_test_python_module("zipfile", "python3");
  if (python) {
    th_write(py, "import sys, zipfile\n"
                 "z = zipfile.ZipFile(sys.argv[1])\n"
                 "assert z.testzip() is None\n"
                 "assert z.namelist() == ['test_session.json', 'profiles/s+t.pb', "
                 "'failure_logs/empty.log'], z.namelist()\n"
                 "assert z.read('test_session.json') == b'{\"a\": 1}'\n"
                 "assert z.read('profiles/s+t.pb') == b'\\x0a\\x00\\xff'\n"
                 "assert z.read('failure_logs/empty.log') == b''\n");
    char cmd[8192];
    snprintf(cmd, sizeof(cmd), "'%s' '%s' '%s'", python, py, zip);
    ck_assert_msg(th_shell_ok(cmd), "python's zipfile rejects the archive");
  }
  tqh__zip_deinit(&z);
  free(zip);
  free(py);
  th_rmtree(dir);
}
END_TEST

START_TEST(an_outbox_is_read_back_skipping_bad_and_torn_lines) {
  char *dir = th_tmpdir();
  tqh_upload_options_t oo;
  tqh_upload_options_initialize(&oo);
  oo.url = "http://127.0.0.1:1/r";
  oo.profiles = 1;
  TH_OK(tqh_upload_outbox_create(dir, &oo));
  char *url = NULL;
  int profiles = 0;
  TH_OK(tqh_upload_outbox_url(dir, &url, &profiles));
  ck_assert_str_eq(url, "http://127.0.0.1:1/r");
  ck_assert_int_eq(profiles, 1);
  tq_free(url);
  char *up = th_path(dir, "upload");
  char *queue = th_path(up, "queue"), *sent = th_path(up, "sent"), *log = th_path(up, "log");
  /* Item 1 sent; a garbage line, a bad id and a zero sequence are not items; 4 is torn. */
  th_write(queue,
           "1 test s+a\n"
           "garbage\n"
           "2 test ../etc\n"
           "0 test s+z\n"
           "3 complete -\n"
           "4 test s+b");
  const char *id = strrchr(dir, '/') + 1;
  char text[512];
  /* Sent under this run id: 1 and 7; under another id, or an unknown one (a line without an id,
   * from an older outbox): 3, which is still to send. */
  snprintf(text, sizeof(text), "1 %s\n7 %s\nxx\n3 %s-old\n3\n3 \n", id, id, id);
  th_write(sent, text);
  th_write(log, "2026-12-02T10:00:00Z item 3 (run complete): HTTP 401: no; rejected, not retried\n");
  tqh_upload_report_t r;
  TH_OK(tqh__upload_status(dir, &r));
  ck_assert_uint_eq(r.remaining, 1);
  ck_assert_int_eq(r.rejected, 1);
  ck_assert_str_eq(r.last_error, "item 3 (run complete): HTTP 401: no; rejected, not retried");
  /* Everything sent: nothing remains and no error is reported. */
  snprintf(text, sizeof(text), "1 %s\n3 %s\n", id, id);
  th_write(sent, text);
  TH_OK(tqh__upload_status(dir, &r));
  ck_assert_uint_eq(r.remaining, 0);
  ck_assert_str_eq(r.last_error, "");
  /* Enqueued items append whole lines; an id with a space is refused. */
  tqh_journal_t q;
  TH_OK(tqh__upload_queue_open(dir, &q));
  TH_OK(tqh__upload_enqueue(&q, 5, "test", "s+c"));
  tq_status_t st = tqh__upload_enqueue(&q, 6, "test", "s c");
  ck_assert_ptr_nonnull(st);
  tq_status_free(st);
  tqh_journal_close(&q);
  TH_OK(tqh__upload_status(dir, &r));
  ck_assert_uint_eq(r.remaining, 0); /* "4 test s+b" was torn; "5 test s+c" joined it */
  /* A kept outbox reads only what the queue gained: one new item is one more remaining. */
  tqh__upload_outbox_t *box = tqh__upload_outbox_new();
  ck_assert_ptr_nonnull(box);
  tqh__upload_ctl_t ctl;
  memset(&ctl, 0, sizeof(ctl));
  ctl.box = box;
  ctl.deadline_ns = 1; /* already past: the pass sends nothing */
  tqh_upload_options_t o;
  tqh_upload_options_initialize(&o);
  o.url = "http://127.0.0.1:1";
  TH_OK(tqh__upload_pass(dir, &o, &ctl, &r));
  ck_assert_uint_eq(r.remaining, 0);
  char *test_dir = th_path(dir, "s+d"); /* an item without its report is skipped as sent */
  ck_assert_int_eq(mkdir(test_dir, 0755), 0);
  char *report = th_path(test_dir, "report.json");
  th_write(report, "{}");
  free(report);
  free(test_dir);
  TH_OK(tqh__upload_queue_open(dir, &q));
  TH_OK(tqh__upload_enqueue(&q, 7, "test", "s+d"));
  tqh_journal_close(&q);
  TH_OK(tqh__upload_pass(dir, &o, &ctl, &r));
  ck_assert_uint_eq(r.remaining, 1);
  ck_assert_uint_eq(r.sent, 0);
  tqh__upload_outbox_free(box);
  free(queue);
  free(sent);
  free(log);
  free(up);
  th_rmtree(dir);
}
END_TEST

/* The run id is the run folder's own name, however the folder is written. */
START_TEST(the_run_id_is_the_run_folders_name_however_it_is_written) {
  char *dir = th_tmpdir();
  char *run = th_path(dir, "20260102T030405Z-abcd");
  ck_assert_int_eq(mkdir(run, 0755), 0);
  char *link = th_path(dir, "latest");
  ck_assert_int_eq(symlink(run, link), 0);
  char cwd[4096];
  ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
  ck_assert_int_eq(chdir(dir), 0);
  char abs_slash[4200], abs_dot[4200];
  snprintf(abs_slash, sizeof(abs_slash), "%s//", run);
  snprintf(abs_dot, sizeof(abs_dot), "%s/./.", run);
  const char *const forms[] = {run,
                               abs_slash,
                               abs_dot,
                               "20260102T030405Z-abcd",
                               "20260102T030405Z-abcd/",
                               "./20260102T030405Z-abcd",
                               "./20260102T030405Z-abcd/.",
                               "latest",
                               "latest/"};
  tq_buf_t id;
  tq_buf_init(&id, 0);
  for (size_t i = 0; i < sizeof(forms) / sizeof(*forms); i++) {
    TH_OK(tqh__upload_run_id(forms[i], &id));
    ck_assert_msg(!strcmp(id.data, "20260102T030405Z-abcd"), "%s: '%s'", forms[i], id.data);
  }
  /* A folder that does not exist (yet): its name as written. */
  TH_OK(tqh__upload_run_id("results/20990101T000000Z-ffff//./", &id));
  ck_assert_str_eq(id.data, "20990101T000000Z-ffff");
  /* No name at all is refused, never sent as a path. */
  const char *const nameless[] = {"/", "//", "/..", "/."};
  for (size_t i = 0; i < sizeof(nameless) / sizeof(*nameless); i++) {
    tq_status_t st = tqh__upload_run_id(nameless[i], &id);
    ck_assert_msg(st != NULL, "%s gave '%s'", nameless[i], id.data);
    tq_status_free(st);
  }
  tq_buf_deinit(&id);
  ck_assert_int_eq(chdir(cwd), 0);
  free(link);
  free(run);
  th_rmtree(dir);
}
END_TEST

Suite *upload_suite(void) {
  Suite *s = suite_create("upload");
  TCase *tc = tcase_create("upload");
  tcase_add_test(tc, urls_are_checked_and_shown_without_their_password);
  tcase_add_test(tc, an_outbox_is_read_back_skipping_bad_and_torn_lines);
  tcase_add_test(tc, a_zip_of_stored_entries_reads_back);
  tcase_add_test(tc, the_run_id_is_the_run_folders_name_however_it_is_written);
  suite_add_tcase(s, tc);
  return s;
}
