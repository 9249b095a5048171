/* The boards of a torq-test run: from --torq-addr or configs/NAME.yaml, with the SSH, lease and
 * runtime settings of the command line, the environment and the configuration (torq_test.h). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "torq_test.h"
#include "torq/base/alloc.h"
#include "torq/runtime/runtime.h"
void tt_boards_free(boards_t *b) {
  for (size_t i = 0; i < b->num_strings; i++) tq_free(b->strings[i]);
  tq_free(b->strings);
  tq_free(b->specs);
  memset(b, 0, sizeof(*b));
}

/* Keeps a copy of `s` for the life of `b`; NULL stays NULL. */
static const char *keep(boards_t *b, const char *s) {
  if (!s) return NULL;
  if (b->num_strings == b->cap_strings) {
    size_t cap = b->cap_strings ? b->cap_strings * 2 : 16;
    char **n = tq_realloc(b->strings, cap * sizeof(char *));
    if (!n) return NULL;
    b->strings = n;
    b->cap_strings = cap;
  }
  char *c = tq_strndup(s, strlen(s));
  if (c) b->strings[b->num_strings++] = c;
  return c;
}

static tq_status_t add_spec(boards_t *b, const tqh_board_spec_t *spec) {
  for (size_t i = 0; i < b->count; i++)
    if (!strcmp(b->specs[i].name, spec->name))
      return TQ_STATUS(TQ_INVALID_ARGUMENT, TOOL ": board '%s' is given twice", spec->name);
  tqh_board_spec_t *n = tq_realloc(b->specs, (b->count + 1) * sizeof(*n));
  if (!n) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  b->specs = n;
  b->specs[b->count++] = *spec;
  return NULL;
}

/* A board's settings: the command line, else the environment, else configs/. */
static const char *pick(const char *cli, const char *env_name, const char *config) {
  if (cli) return cli;
  const char *e = getenv(env_name);
  if (e && *e) return e;
  return config;
}

static tq_status_t spec_from_config(const cli_t *cli, boards_t *b, const tqh_board_t *cb,
                                    tqh_board_spec_t *out) {
  memset(out, 0, sizeof(*out));
  tqh_ssh_options_initialize(&out->ssh);
  out->name = keep(b, cb->name);
  out->ssh.host = keep(b, cb->host);
  out->ssh.port = cb->port ? cb->port : 22;
  out->ssh.user = keep(b, cb->user);
  out->ssh.key_file = keep(b, pick(cli->ssh_key, "TORQ_SSH_KEY", cb->key_file));
  out->ssh.known_hosts = keep(b, pick(cli->known_hosts, "TORQ_KNOWN_HOSTS", cb->known_hosts));
  out->ssh.accept_new_host_key = cli->accept_new_host_key;
  out->board_root = keep(b, pick(cli->board_root, "TORQ_BOARD_ROOT", cb->board_root));
  if (!out->name || !out->ssh.host) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  return NULL;
}

/* A --torq-addr board; settings it does not give come from a configs/ board with the same host
 * and port (and user, when both name one). */
static tq_status_t spec_from_addr(const cli_t *cli, const tqh_config_t *cfg, boards_t *b,
                                  const char *text, unsigned default_port, tqh_board_spec_t *out) {
  tqh_board_addr_t a;
  tq_status_t st = tqh_board_addr_parse(text, &a);
  if (st) {
    tq_status_t u =
        TQ_STATUS(TQ_INVALID_ARGUMENT, TOOL ": --torq-addr=%s: %s", text, tq_status_message(st));
    tq_status_free(st);
    return u;
  }
  unsigned port = a.port ? a.port : default_port ? default_port : 22;
  const tqh_board_t *match = NULL;
  for (size_t i = 0; i < cfg->board_count && !match; i++) {
    const tqh_board_t *cb = &cfg->boards[i];
    if (strcasecmp(cb->host, a.host) != 0 || (cb->port ? cb->port : 22) != port) continue;
    if (a.user[0] && cb->user && strcmp(a.user, cb->user) != 0) continue;
    match = cb;
  }
  if (match) {
    TQ_TRY(spec_from_config(cli, b, match, out));
  } else {
    memset(out, 0, sizeof(*out));
    tqh_ssh_options_initialize(&out->ssh);
    out->ssh.key_file = keep(b, pick(cli->ssh_key, "TORQ_SSH_KEY", NULL));
    out->ssh.known_hosts = keep(b, pick(cli->known_hosts, "TORQ_KNOWN_HOSTS", NULL));
    out->ssh.accept_new_host_key = cli->accept_new_host_key;
    out->board_root = keep(b, pick(cli->board_root, "TORQ_BOARD_ROOT", NULL));
  }
  char name[512];
  snprintf(name, sizeof(name), "%s%s%s:%u", a.user, a.user[0] ? "@" : "", a.host, port);
  out->name = keep(b, match ? match->name : name);
  out->ssh.host = keep(b, a.host);
  out->ssh.port = port;
  if (a.user[0]) out->ssh.user = keep(b, a.user);
  if (!out->name || !out->ssh.host || (a.user[0] && !out->ssh.user))
    return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  return NULL;
}

/* This program's folder + "/torq-run-module": the runtime built with it. */
static const char *default_runtime(boards_t *b) {
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 32);
  if (n <= 0) return keep(b, "torq-run-module");
  self[n] = 0;
  char *slash = strrchr(self, '/');
  if (!slash) return keep(b, "torq-run-module");
  snprintf(slash + 1, sizeof(self) - (size_t)(slash + 1 - self), "torq-run-module");
  return keep(b, self);
}

/* The boards of the run, from the command line and configs/, and every board problem of the
 * selected tests (all at once). */
tq_status_t tt_build_boards(const cli_t *cli, const tqh_config_t *cfg, tqh_test_t *const *tests,
                            size_t n, boards_t *b) {
  memset(b, 0, sizeof(*b));
  tqh_board_options_initialize(&b->run.options);
  b->on_boards =
      (cli->hw_type && !strcmp(cli->hw_type, "astra_machina")) || (!cli->hw_type && cli->num_addrs);
  unsigned default_port = 0;
  if (cli->port) {
    char *end = NULL;
    long v = strtol(cli->port, &end, 10);
    if (*end || v < 1 || v > 65535)
      return TQ_STATUS(TQ_INVALID_ARGUMENT, TOOL ": --torq-port=%s: expected 1 to 65535",
                       cli->port);
    default_port = (unsigned)v;
  }
  const struct {
    const char *cli, *env, *option;
    double *out;
  } times[] = {
      {cli->lease_ttl, "TORQ_LEASE_TTL", "--torq-lease-ttl", &b->run.options.lease_ttl_s},
      {cli->lease_renew, "TORQ_LEASE_RENEW", "--torq-lease-renew", &b->run.options.lease_renew_s},
      {cli->lease_wait, "TORQ_LEASE_WAIT", "--torq-lease-wait", &b->run.options.lease_wait_s}};
  for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++) {
    const char *v = pick(times[i].cli, times[i].env, NULL);
    if (v)
      TQ_TRY(
          tt_parse_seconds(times[i].cli ? times[i].option : NULL, times[i].env, v, times[i].out));
  }
  b->run.options.update_runtime = cli->update_astra_runtime;
  const char *rt = pick(cli->run_module, "TORQ_RUN_MODULE", NULL);
  b->run.options.runtime_path = rt ? keep(b, rt) : default_runtime(b);

  if (b->on_boards) {
    for (size_t i = 0; i < cli->num_addrs; i++) {
      /* "a,b" is two boards. */
      char *list = tq_strndup(cli->addrs[i], strlen(cli->addrs[i]));
      if (!list) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
      tq_status_t st = NULL;
      char *save = NULL;
      for (char *a = strtok_r(list, ",", &save); a && !st; a = strtok_r(NULL, ",", &save)) {
        tqh_board_spec_t spec;
        st = spec_from_addr(cli, cfg, b, a, default_port, &spec);
        if (!st) st = add_spec(b, &spec);
      }
      tq_free(list);
      TQ_TRY(st);
    }
    if (!cli->num_addrs) {
      for (size_t i = 0; i < cfg->board_count; i++) {
        tqh_board_spec_t spec;
        TQ_TRY(spec_from_config(cli, b, &cfg->boards[i], &spec));
        TQ_TRY(add_spec(b, &spec));
      }
    }
    if (!b->count)
      return TQ_STATUS(TQ_INVALID_ARGUMENT, TOOL
                       ": --torq-runtime-hw-type=astra_machina needs a board: "
                       "--torq-addr=user@host[:port], or boards in configs/*.yaml");
    b->run.all_tests = 1;
  } else {
    /* On the simulator, unless a test's target names a board of configs/. */
    tq_buf_t text;
    tq_buf_init(&text, 0);
    size_t errors = 0;
    for (size_t i = 0; i < n; i++) {
      const tqh_test_t *t = tests[i];
      const char *target = t->target ? t->target : "sim";
      if (!strcmp(target, "sim")) continue;
      const tqh_board_t *cb = tqh_config_find_board(cfg, target);
      if (!cb) {
        errors++;
        tq_status_free(tq_buf_printf(&text,
                                     "%s:%u:%u: error: test '%s': target '%s' is not a board "
                                     "of configs/*.yaml (nor 'sim')\n",
                                     t->loc.file ? t->loc.file : t->suite->path, t->loc.line,
                                     t->loc.col, t->id, target));
        continue;
      }
      int have = 0;
      for (size_t k = 0; k < b->count && !have; k++) have = !strcmp(b->specs[k].name, target);
      if (have) continue;
      tqh_board_spec_t spec;
      tq_status_t st = spec_from_config(cli, b, cb, &spec);
      if (!st) st = add_spec(b, &spec);
      if (st) {
        tq_buf_deinit(&text);
        return st;
      }
    }
    if (errors) {
      tq_status_t st = TQ_STATUS(TQ_INVALID_ARGUMENT, "%s%zu error%s", text.data, errors,
                                 errors == 1 ? "" : "s");
      tq_buf_deinit(&text);
      return st;
    }
    tq_buf_deinit(&text);
    if (cli->update_astra_runtime && !b->count)
      return TQ_STATUS(TQ_INVALID_ARGUMENT, TOOL
                       ": --update-astra-runtime needs a board: "
                       "--torq-runtime-hw-type=astra_machina --torq-addr=user@host[:port]");
  }
  if (b->count && !b->run.options.runtime_path) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  b->run.boards = b->specs;
  b->run.count = b->count;
  return NULL;
}
