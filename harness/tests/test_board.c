/* Boards without a board: addresses, the fault taxonomy, the lease owner text. (The boards
 * themselves are tested end to end, harness/e2e/test_boards.c.) */
#include <string.h>

#include "suites.h"
#include "torq/base/alloc.h"
#include "torq/harness/board.h"

static const struct {
  const char *text;
  const char *user, *host;
  unsigned port;
} k_addrs[] = {
    {"board", "", "board", 0},
    {"root@10.0.0.2", "root", "10.0.0.2", 0},
    {"root@10.0.0.2:2222", "root", "10.0.0.2", 2222},
    {"astra:22", "", "astra", 22},
    {"me@[::1]:2200", "me", "::1", 2200},
    {"[fe80::1]", "", "fe80::1", 0},
    {"a@b@host:1", "a@b", "host", 1},
    {"u@h:65535", "u", "h", 65535},
};

START_TEST(addresses_split_into_user_host_and_port) {
  tqh_board_addr_t a;
  TH_OK(tqh_board_addr_parse(k_addrs[_i].text, &a));
  ck_assert_str_eq(a.user, k_addrs[_i].user);
  ck_assert_str_eq(a.host, k_addrs[_i].host);
  ck_assert_uint_eq(a.port, k_addrs[_i].port);
}
END_TEST

static const struct {
  const char *text;
  const char *says;
} k_bad_addrs[] = {
    {"", "empty board address"},  {"root@", "host is empty"},     {"@host", "user name is empty"},
    {"host:", "port must be"},    {"host:0", "port must be"},     {"host:65536", "port must be"},
    {"host:22x", "port must be"}, {"host:-1", "port must be"},    {"::1", "brackets"},
    {"[::1", "without ']'"},      {"[::1]x", "expected ':PORT'"}, {"ro ot@host", "no blanks"},
};

START_TEST(bad_addresses_say_what_is_wrong) {
  tqh_board_addr_t a;
  tq_status_t st = tqh_board_addr_parse(k_bad_addrs[_i].text, &a);
  ck_assert_ptr_nonnull(st);
  ck_assert_int_eq(tq_status_code(st), TQ_INVALID_ARGUMENT);
  ck_assert_msg(strstr(tq_status_message(st), k_bad_addrs[_i].says), "'%s': %s",
                k_bad_addrs[_i].text, tq_status_message(st));
  tq_status_free(st);
}
END_TEST

static const struct {
  tq_status_code_t code;
  const char *message;
  const char *type;
  int transient;
} k_faults[] = {
    {TQ_UNAVAILABLE, "connection refused", "infra_connection", 1},
    {TQ_UNAVAILABLE, "write: No space left on device", "infra_disk_full", 1},
    {TQ_IO, "sftp: no space left on the board", "infra_disk_full", 1},
    {TQ_DEADLINE_EXCEEDED, "timed out after 1000 ms", "infra_timeout", 1},
    {TQ_FAILED_PRECONDITION, "the host key of [h]:22 changed (fingerprint SHA256:x)",
     "infra_host_key", 0},
    {TQ_FAILED_PRECONDITION, "authentication as 'root' failed", "infra_auth", 0},
    {TQ_FAILED_PRECONDITION, "board b has no runtime at /x", "infra_setup", 0},
    {TQ_UNAVAILABLE, "board b is leased by user=a host=h pid=1 run=r (for 5 s more)", "infra_lease",
     0},
    {TQ_IO, "permission denied", "infra_setup", 0},
};

START_TEST(faults_have_a_type_and_only_passing_ones_are_retried) {
  tq_status_t st =
      tq_status_make(k_faults[_i].code, __FILE__, __LINE__, "%s", k_faults[_i].message);
  const char *type = tqh_board_fault_type(st);
  ck_assert_str_eq(type, k_faults[_i].type);
  ck_assert_int_eq(tqh_board_fault_is_transient(type), k_faults[_i].transient);
  tq_status_free(st);
}
END_TEST

START_TEST(a_note_about_the_disk_counts_as_much_as_the_message) {
  tq_status_t st = TQ_STATUS(TQ_IO, "upload failed");
  st = tq_status_annotate(st, "Disk quota exceeded");
  ck_assert_str_eq(tqh_board_fault_type(st), "infra_disk_full");
  tq_status_free(st);
  ck_assert(tqh_board_text_says_disk_full("mkdir: cannot create: No space left on device\n"));
  ck_assert(!tqh_board_text_says_disk_full("all fine"));
  ck_assert(!tqh_board_text_says_disk_full(NULL));
}
END_TEST

START_TEST(the_lease_owner_names_user_host_pid_and_run_in_one_line) {
  char *owner = tqh_board_lease_owner("20261202T1Z-ab12");
  ck_assert_ptr_nonnull(owner);
  ck_assert_msg(!strncmp(owner, "user=", 5), "%s", owner);
  ck_assert_msg(
      strstr(owner, " host=") && strstr(owner, " pid=") && strstr(owner, " run=20261202T1Z-ab12"),
      "%s", owner);
  ck_assert_msg(!strchr(owner, '\n') && !strstr(owner, "expiry="), "%s", owner);
  tq_free(owner);
}
END_TEST

START_TEST(options_default_to_a_minute_lease_renewed_every_ten_seconds) {
  tqh_board_options_t o;
  tqh_board_options_initialize(&o);
  ck_assert(o.lease_ttl_s == 60 && o.lease_renew_s == 10 && o.lease_wait_s == 600);
  ck_assert(!o.update_runtime && !o.runtime_path && !o.log);
}
END_TEST

Suite *board_suite(void) {
  Suite *s = suite_create("board");
  TCase *tc = tcase_create("board");
  tcase_add_loop_test(tc, addresses_split_into_user_host_and_port, 0,
                      (int)(sizeof(k_addrs) / sizeof(k_addrs[0])));
  tcase_add_loop_test(tc, bad_addresses_say_what_is_wrong, 0,
                      (int)(sizeof(k_bad_addrs) / sizeof(k_bad_addrs[0])));
  tcase_add_loop_test(tc, faults_have_a_type_and_only_passing_ones_are_retried, 0,
                      (int)(sizeof(k_faults) / sizeof(k_faults[0])));
  tcase_add_test(tc, a_note_about_the_disk_counts_as_much_as_the_message);
  tcase_add_test(tc, the_lease_owner_names_user_host_pid_and_run_in_one_line);
  tcase_add_test(tc, options_default_to_a_minute_lease_renewed_every_ten_seconds);
  suite_add_tcase(s, tc);
  return s;
}
