/* The Torq performance dashboard (upload.h): the session a run's batches share, a batch of tests
 * as the zip the dashboard takes (test_session.json, failure logs, profiles), the completion,
 * and the outbox of a merged run that closes its shards' session. */
#include <math.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "torq/base/alloc.h"
#include "torq/base/file.h"
#include "torq/harness/json.h"
#include "torq/harness/overview.h"
#include "transfer_internal.h"

#define SESSION_FILE "session.json"
#define RUN_FILE_MAX ((size_t)16 << 20)
/* A batch stops growing past this many bytes of profiles; a larger profile goes without. */
#define BATCH_MAX_BYTES ((size_t)64 << 20)
#define LOG_MAX_BYTES ((size_t)1 << 20)
#define TEST_PLAN "torq"

/* ---- JSON files --------------------------------------------------------------------------- */

/* RUN_DIR[/ID]/NAME parsed into `arena`; *out NULL when the file is absent. */
static tq_status_t read_json(tq_arena_t *arena, const char *run_dir, const char *id,
                             const char *name, const tqh_json_t **out) {
  *out = NULL;
  tq_buf_t text;
  tq_buf_init(&text, 0);
  int found = 0;
  tq_status_t st = tqh__upload_read_run_file(run_dir, id, name, RUN_FILE_MAX, &text, &found);
  tqh_json_t *v = NULL;
  if (!st && found) st = tqh_json_parse(arena, name, text.data ? text.data : "", text.len, &v);
  if (!st) *out = v;
  tq_buf_deinit(&text);
  return st;
}

/* A string member, or NULL (absent, null or not a string). */
static const char *str_of(const tqh_json_t *obj, const char *key) {
  const tqh_json_t *v = tqh_json_get(obj, key);
  return v && v->kind == TQH_JSON_STRING ? v->string : NULL;
}

/* The first of the environment variables `names` (NULL-terminated) set and not empty. */
static const char *env_first(const char *const *names) {
  for (; *names; names++) {
    const char *v = getenv(*names);
    if (v && *v) return v;
  }
  return NULL;
}

/* ---- The session ---------------------------------------------------------------------------- */

/* The run's workflow_url, what ties its batches (and a sharded run's shards) to one session:
 * TORQ_PERF_WORKFLOW_URL; else the CI's own run (GitHub Actions' run and attempt, as the Torq
 * framework builds it; GitLab's pipeline; Jenkins' build); else this run alone. */
static tq_status_t workflow_url(const tqh_json_t *run, const char *run_dir, tq_buf_t *out) {
  const char *mine = getenv("TORQ_PERF_WORKFLOW_URL"), *gh = getenv("GITHUB_RUN_ID");
  if (mine && *mine) return tq_buf_append_cstr(out, mine);
  if (gh && *gh) {
    const char *server = getenv("GITHUB_SERVER_URL"), *repo = getenv("GITHUB_REPOSITORY");
    const char *attempt = getenv("GITHUB_RUN_ATTEMPT");
    return tq_buf_printf(out, "%s/%s/actions/runs/%s/attempts/%s",
                         server && *server ? server : "https://github.com", repo ? repo : "", gh,
                         attempt && *attempt ? attempt : "1");
  }
  static const char *const ci[] = {"CI_PIPELINE_URL", "BUILD_URL", NULL};
  const char *url = env_first(ci);
  if (url) return tq_buf_append_cstr(out, url);
  const char *host = run ? str_of(run, "hostname") : NULL, *id = run ? str_of(run, "run_id") : NULL;
  if (id) return tq_buf_printf(out, "torq-test://%s/%s", host ? host : "localhost", id);
  /* The run folder's own name, never the path it was given as (upload.h). */
  tq_buf_t name;
  tq_buf_init(&name, 0);
  tq_status_t st = tqh__upload_run_id(run_dir, &name);
  if (!st) st = tq_buf_printf(out, "torq-test://%s/%s", host ? host : "localhost", name.data);
  tq_buf_deinit(&name);
  return st;
}

static const char *owner(void) {
  static const char *const names[] = {"TORQ_PERF_OWNER", "GITHUB_ACTOR", "GITLAB_USER_LOGIN",
                                      "BUILD_USER_ID", "USER", NULL};
  const char *o = env_first(names);
  if (o) return o;
  struct passwd *pw = getpwuid(geteuid());
  return pw ? pw->pw_name : NULL;
}

/* session.json: what every batch and the completion of this run carry. */
static tq_status_t write_session(const char *run_dir, const char *workflow,
                                 const char *const *close, size_t num_close, const char *shard,
                                 const tqh_json_t *run) {
  static const char *const commit_env[] = {"GITHUB_SHA", "CI_COMMIT_SHA", "GIT_COMMIT", NULL};
  static const char *const branch_env[] = {"GITHUB_HEAD_REF", "GITHUB_REF_NAME",
                                           "CI_COMMIT_REF_NAME", "BRANCH_NAME", "GIT_BRANCH",
                                           NULL};
  const char *commit = run ? str_of(run, "git_revision") : NULL;
  if (!commit) commit = env_first(commit_env);
  tq_buf_t text, path;
  tq_buf_init(&text, 0);
  tq_buf_init(&path, 0);
  tqh_jw_t w;
  tqh_jw_init(&w, &text, 1);
  tqh_jw_object_begin(&w);
  tqh_jw_key(&w, "workflow_url");
  tqh_jw_string(&w, workflow);
  tqh_jw_key(&w, "close");
  tqh_jw_array_begin(&w);
  for (size_t i = 0; i < num_close; i++) tqh_jw_string(&w, close[i]);
  tqh_jw_array_end(&w);
  tqh_jw_key(&w, "shard");
  tqh_jw_string(&w, shard);
  tqh_jw_key(&w, "git_commit");
  tqh_jw_string(&w, commit);
  tqh_jw_key(&w, "git_branch");
  tqh_jw_string(&w, env_first(branch_env));
  tqh_jw_key(&w, "owner");
  tqh_jw_string(&w, owner());
  tqh_jw_key(&w, "batch_name");
  tqh_jw_string(&w, getenv("TORQ_PERF_BATCH_NAME"));
  tqh_jw_object_end(&w);
  tq_status_t st = tqh_jw_finish(&w);
  if (!st) st = tq_buf_printf(&path, "%s/upload/" SESSION_FILE, run_dir);
  if (!st) st = tq_file_write_atomic(path.data, text.data, text.len);
  tq_buf_deinit(&text);
  tq_buf_deinit(&path);
  return st;
}

tq_status_t tqh__dashboard_session_create(const char *run_dir, const char *shard) {
  tq_buf_t path, url;
  tq_buf_init(&path, 0);
  tq_buf_init(&url, 0);
  tq_arena_t arena;
  tq_arena_init(&arena, 0, 0);
  const tqh_json_t *run = NULL;
  tq_status_t st = tq_buf_printf(&path, "%s/upload/" SESSION_FILE, run_dir);
  if (!st && access(path.data, F_OK) != 0) {
    st = read_json(&arena, run_dir, NULL, "run.json", &run);
    if (!st) st = workflow_url(run, run_dir, &url);
    const char *close[1] = {url.data};
    if (!st) st = write_session(run_dir, url.data, close, shard ? 0 : 1, shard, run);
  }
  tq_arena_deinit(&arena);
  tq_buf_deinit(&path);
  tq_buf_deinit(&url);
  return st;
}

/* ---- A batch -------------------------------------------------------------------------------- */

/* The dashboard's outcomes: ours, with xfailed as xfail, xpassed as nxpass (not expected to
 * pass) and a test that never ran as skipped. */
static const char *outcome_of(tqh_outcome_t o) {
  switch (o) {
    case TQH_OUTCOME_PASSED: return "passed";
    case TQH_OUTCOME_FAILED: return "failed";
    case TQH_OUTCOME_ERROR: return "error";
    case TQH_OUTCOME_XFAILED: return "xfail";
    case TQH_OUTCOME_XPASSED: return "nxpass";
    default: return "skipped";
  }
}

/* Where a failure happened, in pytest's phases: setting the test up (its model would not compile
 * or load), the call, or what followed it (the profile's annotation). */
static const char *phase_of(const char *failure_type) {
  static const char *const setup[] = {"compile_error", "compile_timeout", "compile_options",
                                      "input_error",   "inputs",          "function",
                                      NULL};
  if (!failure_type) return "call";
  for (size_t i = 0; setup[i]; i++)
    if (!strcmp(failure_type, setup[i])) return "setup";
  return strcmp(failure_type, "annotation_error") ? "call" : "teardown";
}

static const char *property(const tqh_test_record_t *r, const char *key) {
  for (size_t i = 0; i < r->property_count; i++)
    if (r->properties[i].key && !strcmp(r->properties[i].key, key)) return r->properties[i].value;
  return NULL;
}

typedef struct batch_s {
  tqh__pass_t *p;
  tq_arena_t arena;
  const tqh_json_t *run, *session;
  tqh_records_t records;
  tqh__zip_t zip;
  tq_buf_t tmp, tmp2;
  size_t profile_bytes;
} batch_t;

/* The metrics the batch measures: the overview's, the percentages, ours, and any other metric
 * a record of the batch holds. */
static tq_status_t declare_metrics(batch_t *b, tqh_jw_t *w) {
  size_t n;
  const tqh_metric_info_t *known = tqh_overview_metrics(&n);
  tqh_jw_array_begin(w);
#define METRIC(NAME, UNIT, DESC)      \
  do {                                \
    tqh_jw_object_begin(w);           \
    tqh_jw_key(w, "name");            \
    tqh_jw_string(w, (NAME));         \
    tqh_jw_key(w, "unit");            \
    tqh_jw_string(w, (UNIT));         \
    tqh_jw_key(w, "description");     \
    tqh_jw_string(w, (DESC));         \
    tqh_jw_object_end(w);             \
  } while (0)
  for (size_t i = 0; i < n; i++) {
    METRIC(known[i].key, "ns", known[i].description);
    if (tqh_overview_percent_key(known[i].key, &b->tmp)) {
      tq_buf_clear(&b->tmp2);
      TQ_TRY(tq_buf_printf(&b->tmp2, "%s in percent of total_duration", known[i].key));
      METRIC(b->tmp.data, "%", b->tmp2.data);
    }
  }
  METRIC("wall_time", "ns", "Wall time of one invocation measured by torq-test (median)");
  METRIC("device_time", "ns", "Time of the invocations as the runtime measured it on the device");
  METRIC("estimated_cycles", "cycles", "The compiler's estimate of the model's NSS cycles");
  /* Metrics of the traces the overview does not know, each once. */
  for (size_t r = 0; r < b->records.count; r++) {
    const tqh_test_record_t *rec = &b->records.items[r];
    for (size_t m = 0; m < rec->metric_count; m++) {
      const char *key = rec->metrics[m].key;
      if (!key || tqh_overview_metric_find(rec->metrics[m].name)) continue;
      int seen = 0;
      for (size_t q = 0; q <= r && !seen; q++)
        for (size_t k = 0; k < b->records.items[q].metric_count && !seen; k++)
          seen = (q < r || k < m) && b->records.items[q].metrics[k].key &&
                 !strcmp(b->records.items[q].metrics[k].key, key);
      if (seen) continue;
      tq_buf_clear(&b->tmp2);
      TQ_TRY(tq_buf_printf(&b->tmp2, "Host Profile Overview metric '%s'", rec->metrics[m].name));
      METRIC(key, "ns", b->tmp2.data);
      if (tqh_overview_percent_key(key, &b->tmp)) {
        tq_buf_clear(&b->tmp2);
        TQ_TRY(tq_buf_printf(&b->tmp2, "%s in percent of total_duration", key));
        METRIC(b->tmp.data, "%", b->tmp2.data);
      }
    }
  }
#undef METRIC
  tqh_jw_array_end(w);
  return NULL;
}

static void measurements(batch_t *b, const tqh_test_record_t *r, tqh_jw_t *w) {
  tqh_jw_object_begin(w);
  double overall_us = -1;
  for (size_t m = 0; m < r->metric_count; m++)
    if (r->metrics[m].key && !strcmp(r->metrics[m].key, "total_duration"))
      overall_us = r->metrics[m].us;
  for (size_t m = 0; m < r->metric_count; m++) {
    const char *key = r->metrics[m].key;
    if (!key) continue;
    tqh_jw_key(w, key);
    tqh_jw_uint(w, r->metrics[m].us > 0 ? (uint64_t)llround(r->metrics[m].us * 1000) : 0);
    if (overall_us > 0 && tqh_overview_percent_key(key, &b->tmp)) {
      tqh_jw_key(w, b->tmp.data);
      tqh_jw_number(w, round(r->metrics[m].us / overall_us * 10000) / 100);
    }
  }
  if (r->has_wall_time && r->wall_time_s >= 0) {
    tqh_jw_key(w, "wall_time");
    tqh_jw_uint(w, (uint64_t)llround(r->wall_time_s * 1e9));
  }
  /* On a board: the median of the runtime's own device time of each repetition. */
  if (r->has_device_time && r->device_stats.median >= 0) {
    tqh_jw_key(w, "device_time");
    tqh_jw_uint(w, (uint64_t)llround(r->device_stats.median * 1e9));
  }
  if (r->has_estimated_cycles) {
    tqh_jw_key(w, "estimated_cycles");
    tqh_jw_uint(w, r->estimated_cycles);
  }
  tqh_jw_object_end(w);
}

/* The failure log of a test that failed: its message, the details, what it printed. */
static tq_status_t add_failure_log(batch_t *b, const tqh_test_record_t *r, const char *name) {
  tq_buf_t *log = &b->tmp2;
  tq_buf_clear(log);
  TQ_TRY(tq_buf_printf(log, "%s: %s\n", r->failure_type ? r->failure_type : "failure",
                       r->message ? r->message : ""));
  if (r->text && *r->text) TQ_TRY(tq_buf_printf(log, "\n%s\n", r->text));
  static const char *const outputs[] = {"stdout.txt", "stderr.txt"};
  for (size_t i = 0; i < 2; i++) {
    int found = 0;
    tq_status_t st =
        tqh__upload_read_run_file(b->p->run_dir, r->id, outputs[i], LOG_MAX_BYTES, &b->tmp, &found);
    if (st && tq_status_code(st) == TQ_LIMIT) {
      tq_status_free(st);
      TQ_TRY(tq_buf_printf(log, "\n--- %s: larger than %zu bytes, left out ---\n", outputs[i],
                           LOG_MAX_BYTES));
      continue;
    }
    TQ_TRY(st);
    if (found && b->tmp.len)
      TQ_TRY(tq_buf_printf(log, "\n--- %s ---\n%.*s", outputs[i], (int)b->tmp.len, b->tmp.data));
  }
  return tqh__zip_add(&b->zip, name, log->data, log->len);
}

/* The name of the test, and its parameters: `conv2d[astra1]` is conv2d with astra1. */
static void split_name(const tqh_test_record_t *r, char *name, size_t name_size, char *params,
                       size_t params_size) {
  const char *n = r->name && *r->name ? r->name : r->id;
  size_t len = strlen(n);
  const char *open = len && n[len - 1] == ']' ? strrchr(n, '[') : NULL;
  if (open && open > n) {
    snprintf(name, name_size, "%.*s", (int)(open - n), n);
    snprintf(params, params_size, "%.*s", (int)(n + len - 1 - open - 1), open + 1);
  } else {
    snprintf(name, name_size, "%s", n);
    params[0] = 0;
  }
}

static tq_status_t test_run(batch_t *b, const tqh_test_record_t *r, tqh_jw_t *w) {
  char name[256], params[128], file[320];
  split_name(r, name, sizeof(name), params, sizeof(params));
  const char *target = property(r, "target");
  const tqh_json_t *manifest = NULL;
  TQ_TRY(read_json(&b->arena, b->p->run_dir, r->id, "debug/manifest.json", &manifest));
  const char *hw = str_of(tqh_json_get(manifest, "hardware"), "spec");
  tqh_jw_object_begin(w);
  tqh_jw_key(w, "module");
  tqh_jw_string(w, r->classname && *r->classname ? r->classname : TEST_PLAN);
  tqh_jw_key(w, "name");
  tqh_jw_string(w, name);
  tqh_jw_key(w, "parameters");
  tqh_jw_string(w, params);
  tqh_jw_key(w, "outcome");
  tqh_jw_string(w, outcome_of(r->outcome));
  tqh_jw_key(w, "measurements");
  measurements(b, r, w);
  tqh_jw_key(w, "metadata");
  tqh_jw_object_begin(w);
  const struct {
    const char *key, *value;
  } meta[] = {
      {"compiler", str_of(b->run, "compiler_version")},
      {"compiler_input", property(r, "model_path")},
      {"compiler_target", hw},
      {"compiler_options", NULL},
      {"runtime", str_of(b->run, "runtime_version")},
      {"runtime_target", target},
      {"runtime_hw_type", !target ? NULL : strcmp(target, "sim") ? "astra_machina" : "sim"},
      {"runtime_options", NULL},
      {"runtime_input", NULL},
  };
  for (size_t i = 0; i < sizeof(meta) / sizeof(meta[0]); i++) {
    tqh_jw_key(w, meta[i].key);
    tqh_jw_string(w, meta[i].value);
  }
  tqh_jw_object_end(w);
  if (r->outcome == TQH_OUTCOME_FAILED || r->outcome == TQH_OUTCOME_ERROR) {
    tqh_jw_key(w, "failed_phase");
    tqh_jw_string(w, phase_of(r->failure_type));
    snprintf(file, sizeof(file), "failure_logs/%s.log", r->id);
    TQ_TRY(add_failure_log(b, r, file));
    tqh_jw_key(w, "failure_log_file");
    tqh_jw_string(w, file);
  }
  int found = 0;
  tq_status_t st =
      tqh__upload_read_run_file(b->p->run_dir, r->id, "profile.pb", BATCH_MAX_BYTES, &b->tmp, &found);
  if (st && tq_status_code(st) == TQ_LIMIT) {
    tqh__upload_log(b->p, "test %s: profile.pb is larger than %zu bytes; sent without it", r->id,
                    BATCH_MAX_BYTES);
    tq_status_free(st);
    st = NULL;
    found = 0;
  }
  TQ_TRY(st);
  if (found) {
    snprintf(file, sizeof(file), "profiles/%s.pb", r->id);
    TQ_TRY(tqh__zip_add(&b->zip, file, b->tmp.data, b->tmp.len));
    b->profile_bytes += b->tmp.len;
    tqh_jw_key(w, "profiling_file");
    tqh_jw_string(w, file);
  }
  tqh_jw_object_end(w);
  return NULL;
}

/* test_session.json of the batch's records, then the zip. */
static tq_status_t build(batch_t *b) {
  tq_buf_t json;
  tq_buf_init(&json, 0);
  tqh_jw_t w;
  tqh_jw_init(&w, &json, 0);
  tqh_jw_object_begin(&w);
  static const char *const fields[] = {"git_commit", "git_branch", "workflow_url", "owner",
                                       "batch_name"};
  for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
    tqh_jw_key(&w, fields[i]);
    tqh_jw_string(&w, str_of(b->session, fields[i]));
  }
  tqh_jw_key(&w, "test_plan");
  tqh_jw_string(&w, TEST_PLAN);
  tqh_jw_key(&w, "metrics");
  tq_status_t st = declare_metrics(b, &w);
  tqh_jw_key(&w, "test_runs");
  tqh_jw_array_begin(&w);
  for (size_t i = 0; !st && i < b->records.count; i++) st = test_run(b, &b->records.items[i], &w);
  tqh_jw_array_end(&w);
  tqh_jw_object_end(&w);
  tq_status_t jst = tqh_jw_finish(&w);
  if (!st) st = jst;
  else tq_status_free(jst);
  if (!st) st = tqh__zip_add(&b->zip, "test_session.json", json.data, json.len);
  if (!st) st = tqh__zip_finish(&b->zip);
  tq_buf_deinit(&json);
  return st;
}

tqh__verdict_t tqh__dashboard_send_batch(tqh__pass_t *p, const char *const *ids, size_t count,
                                         unsigned long first_seq, unsigned long last_seq) {
  batch_t b;
  memset(&b, 0, sizeof(b));
  b.p = p;
  tq_arena_init(&b.arena, 0, 0);
  tqh_records_init(&b.records);
  tqh__zip_init(&b.zip);
  tq_buf_init(&b.tmp, 0);
  tq_buf_init(&b.tmp2, 0);
  char what[160];
  snprintf(what, sizeof(what), "items %lu-%lu (%zu test%s)", first_seq, last_seq, count,
           count == 1 ? "" : "s");
  tq_status_t st = read_json(&b.arena, p->run_dir, NULL, "run.json", &b.run);
  if (!st) st = read_json(&b.arena, p->run_dir, NULL, "upload/" SESSION_FILE, &b.session);
  if (!st && !b.session)
    st = TQ_STATUS(TQ_NOT_FOUND, "%s/upload/" SESSION_FILE " is missing", p->run_dir);
  for (size_t i = 0; !st && i < count; i++) {
    int found = 0;
    st = tqh__upload_read_run_file(p->run_dir, ids[i], "report.json", RUN_FILE_MAX, &b.tmp, &found);
    if (!st && !found) {
      /* Nothing to send will ever appear: say so and let the others go. */
      tqh__upload_log(p, "%s: %s/report.json is missing; skipped", what, ids[i]);
      continue;
    }
    if (!st) st = tqh_record_parse(&b.records, b.tmp.data, b.tmp.len);
  }
  tqh__verdict_t v = TQH__SENT;
  if (!st && b.records.count) st = build(&b);
  if (!st && b.records.count) {
    tq_buf_t url, key, file;
    tq_buf_init(&url, 0);
    tq_buf_init(&key, 0);
    tq_buf_init(&file, 0);
    st = tq_buf_printf(&url, "%.*s/api/test-sessions/upload_zip/", (int)p->base_len, p->base);
    if (!st) st = tq_buf_printf(&key, "%s/%lu-%lu", p->run_id, first_seq, last_seq);
    if (!st) st = tq_buf_printf(&file, "%s-%lu-%lu.zip", p->run_id, first_seq, last_seq);
    tqh__request_t rq = {url.data,   "application/zip", key.data, first_seq, b.zip.out.data,
                         b.zip.out.len, "file",           file.data, NULL,   0};
    if (!st) v = tqh__upload_send(p, &rq, what);
    tq_buf_deinit(&url);
    tq_buf_deinit(&key);
    tq_buf_deinit(&file);
  }
  if (st) v = tqh__upload_local_fault(p, what, st);
  tq_buf_deinit(&b.tmp);
  tq_buf_deinit(&b.tmp2);
  tqh__zip_deinit(&b.zip);
  tqh_records_deinit(&b.records);
  tq_arena_deinit(&b.arena);
  return v;
}

/* ---- The completion ------------------------------------------------------------------------- */

tqh__verdict_t tqh__dashboard_complete(tqh__pass_t *p, unsigned long seq) {
  tq_arena_t arena;
  tq_arena_init(&arena, 0, 0);
  const tqh_json_t *session = NULL;
  char what[96];
  snprintf(what, sizeof(what), "item %lu (session complete)", seq);
  tq_status_t st = read_json(&arena, p->run_dir, NULL, "upload/" SESSION_FILE, &session);
  const tqh_json_t *close = tqh_json_get(session, "close");
  if (!st && (!close || close->kind != TQH_JSON_ARRAY))
    st = TQ_STATUS(TQ_INVALID_INPUT, "%s/upload/" SESSION_FILE ": no \"close\" list", p->run_dir);
  tqh__verdict_t v = TQH__SENT;
  if (!st && close->len == 0)
    tqh__upload_log(p, "%s: a shard (%s): `torq-test merge` closes the session", what,
                    str_of(session, "shard") ? str_of(session, "shard") : "?");
  tq_buf_t url, key;
  tq_buf_init(&url, 0);
  tq_buf_init(&key, 0);
  if (!st) st = tq_buf_printf(&url, "%.*s/api/test-sessions/mark_complete/", (int)p->base_len,
                              p->base);
  for (size_t i = 0; !st && v == TQH__SENT && i < close->len; i++) {
    const tqh_json_t *wf = close->items[i];
    if (wf->kind != TQH_JSON_STRING) continue;
    tq_buf_clear(&key);
    st = tq_buf_printf(&key, "%s/%lu/%zu", p->run_id, seq, i);
    tqh__request_t rq = {url.data, "text/plain", key.data, seq, wf->string, wf->len,
                         "workflow_url", NULL, NULL, 0};
    if (!st) v = tqh__upload_send(p, &rq, what);
  }
  if (st) v = tqh__upload_local_fault(p, what, st);
  tq_buf_deinit(&url);
  tq_buf_deinit(&key);
  tq_arena_deinit(&arena);
  return v;
}

/* ---- A merged run ----------------------------------------------------------------------------- */

/* The workflow_url the shard at `dir` uploaded to, into `out` (cleared); 0 when it did not
 * upload to the dashboard. *io_spec gets its URL when it has none yet. */
static tq_status_t shard_workflow(const char *dir, char **io_spec, tq_buf_t *out, int *out_found) {
  *out_found = 0;
  tq_buf_clear(out);
  char *recorded = NULL;
  int profiles = 0;
  TQ_TRY(tqh_upload_outbox_url(dir, &recorded, &profiles));
  tq_status_t st = NULL;
  if (recorded && tqh_upload_protocol(recorded, NULL) == TQH_UPLOAD_DASHBOARD) {
    tq_arena_t arena;
    tq_arena_init(&arena, 0, 0);
    const tqh_json_t *session = NULL;
    st = read_json(&arena, dir, NULL, "upload/" SESSION_FILE, &session);
    const char *wf = session ? str_of(session, "workflow_url") : NULL;
    if (!st && wf) {
      *out_found = 1;
      st = tq_buf_append_cstr(out, wf);
      if (!st && !*io_spec) {
        *io_spec = recorded;
        recorded = NULL;
      }
    }
    tq_arena_deinit(&arena);
  }
  tq_free(recorded);
  return st;
}

/* Queues the tests of the shard at `dir` (its journal's, each once) in the merged run's queue. */
static tq_status_t queue_shard_tests(const char *dir, tqh_journal_t *queue, unsigned long *seq) {
  tq_buf_t path;
  tq_buf_init(&path, 0);
  tqh_records_t records;
  tqh_records_init(&records);
  size_t *latest = NULL, count = 0;
  tqh_journal_read_t info;
  tq_status_t st = tq_buf_printf(&path, "%s/journal.jsonl", dir);
  if (!st) st = tqh_journal_read(path.data, &records, NULL, &info);
  if (!st) st = tqh_records_latest(&records, &latest, &count);
  for (size_t i = 0; !st && i < count; i++) {
    const char *id = records.items[latest[i]].id;
    if (tqh_results_id_is_safe(id)) st = tqh__upload_enqueue(queue, ++*seq, "test", id);
  }
  tq_free(latest);
  tqh_records_deinit(&records);
  tq_buf_deinit(&path);
  return st;
}

tq_status_t tqh_upload_merge(const char *merged_dir, const char *const *shard_dirs, size_t count,
                             const char *url, char **out_url) {
  *out_url = NULL;
  char *spec = NULL;
  const char *env = getenv(TQH_DASHBOARD_SERVER_ENV);
  tq_status_t st = NULL;
  if (url) {
    spec = tq_strndup(url, strlen(url));
  } else if (env && *env) {
    tq_buf_t b;
    tq_buf_init(&b, 0);
    if (!(st = tq_buf_printf(&b, TQH_DASHBOARD_SCHEME "%s", env))) spec = tq_buf_detach(&b);
    tq_buf_deinit(&b);
  }
  if (!st && (url || (env && *env)) && !spec) st = TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  /* The workflows the shards uploaded to, each once, and which shards uploaded nothing. */
  char **close = tq_calloc(count + 1, sizeof(*close));
  int *uploaded = tq_calloc(count + 1, sizeof(*uploaded));
  size_t num_close = 0;
  tq_buf_t wf;
  tq_buf_init(&wf, 0);
  if (!st && (!close || !uploaded)) st = TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  for (size_t i = 0; !st && i < count; i++) {
    st = shard_workflow(shard_dirs[i], &spec, &wf, &uploaded[i]);
    int seen = 0;
    for (size_t k = 0; !st && uploaded[i] && k < num_close && !seen; k++)
      seen = !strcmp(close[k], wf.data);
    if (!st && uploaded[i] && !seen && !(close[num_close++] = tq_strndup(wf.data, wf.len)))
      st = TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  }
  if (!st && spec && tqh_upload_protocol(spec, NULL) == TQH_UPLOAD_DASHBOARD) {
    tqh_upload_options_t o;
    tqh_upload_options_initialize(&o);
    o.url = spec;
    tq_buf_t path;
    tq_buf_init(&path, 0);
    /* The outbox's url file, then a session that closes the shards' workflows (or, when no shard
     * uploaded, this run's own). */
    st = tq_buf_printf(&path, "%s/upload", merged_dir);
    if (!st) st = tq_file_mkdirs(path.data);
    tq_buf_clear(&path);
    if (!st) st = tq_buf_printf(&path, "%s/upload/url", merged_dir);
    tq_buf_t text;
    tq_buf_init(&text, 0);
    if (!st) st = tq_buf_printf(&text, "%s\n", spec);
    if (!st) st = tq_file_write_atomic(path.data, text.data, text.len);
    tq_buf_deinit(&text);
    tq_arena_t arena;
    tq_arena_init(&arena, 0, 0);
    const tqh_json_t *run = NULL;
    if (!st) st = read_json(&arena, merged_dir, NULL, "run.json", &run);
    tq_buf_clear(&wf);
    if (!st && !num_close) st = workflow_url(run, merged_dir, &wf);
    if (!st && !num_close && !(close[num_close++] = tq_strndup(wf.data, wf.len)))
      st = TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
    if (!st)
      st = write_session(merged_dir, close[0], (const char *const *)close, num_close, NULL, run);
    tq_arena_deinit(&arena);
    tqh_journal_t queue;
    int open = 0;
    if (!st) open = !(st = tqh__upload_queue_open(merged_dir, &queue));
    unsigned long seq = 0;
    for (size_t i = 0; !st && i < count; i++)
      if (!uploaded[i]) st = queue_shard_tests(shard_dirs[i], &queue, &seq);
    if (!st) st = tqh__upload_enqueue(&queue, ++seq, "complete", "-");
    if (open) tqh_journal_close(&queue);
    tq_buf_deinit(&path);
    if (!st) {
      *out_url = spec;
      spec = NULL;
    }
  }
  for (size_t i = 0; close && i < num_close; i++) tq_free(close[i]);
  tq_free(close);
  tq_free(uploaded);
  tq_free(spec);
  tq_buf_deinit(&wf);
  return st;
}
