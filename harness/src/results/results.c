/* The results directory of a run (results.h): run folder and id, run.json, per-test folders,
 * report.json and wall_time.txt, the journal, and the reports regenerated from it. */
#include "torq/harness/files.h"
#include "torq/harness/json.h"
#include "torq/harness/process.h"
#include "torq/harness/results.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "results_internal.h"
#include "torq/base/alloc.h"
#include "torq/base/arena.h"
#include "torq/base/file.h"
#include "torq/harness/junit.h"

#define MAX_ID_LEN 200

static const char *const outcome_names[] = {
#define TQH__OUTCOME_NAME(name, text) text,
    TQH_OUTCOMES(TQH__OUTCOME_NAME)
#undef TQH__OUTCOME_NAME
};

const char *tqh_outcome_name(tqh_outcome_t outcome) {
  return (unsigned)outcome < TQH_OUTCOME_COUNT ? outcome_names[outcome] : "unknown";
}

int tqh_outcome_parse(tq_sv_t name, tqh_outcome_t *out_outcome) {
  for (int i = 0; i < TQH_OUTCOME_COUNT; i++) {
    if (tq_sv_eq_cstr(name, outcome_names[i])) {
      *out_outcome = (tqh_outcome_t)i;
      return 1;
    }
  }
  return 0;
}

/* The run's own files: a test may not take their names. */
static const char *const reserved_names[] = {"run.json", "journal.jsonl", "junit.xml",
                                             "summary.txt"};

static int is_safe_byte(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         (c != 0 && strchr("._+=,@-%~", c) != NULL); /* % and ~: the escapes of suite ids */
}

static int is_reserved(const char *s, size_t len) {
  for (size_t i = 0; i < sizeof(reserved_names) / sizeof(reserved_names[0]); i++)
    if (strlen(reserved_names[i]) == len && memcmp(reserved_names[i], s, len) == 0) return 1;
  return 0;
}

int tqh_results_id_is_safe(const char *id) {
  if (!id) return 0;
  size_t n = strlen(id);
  if (n == 0 || n > MAX_ID_LEN || id[0] == '.') return 0;
  for (size_t i = 0; i < n; i++)
    if (!is_safe_byte((unsigned char)id[i])) return 0;
  return !is_reserved(id, n);
}

tq_status_t tqh_results_make_safe_id(const char *name, tq_buf_t *out) {
  size_t n = name ? strlen(name) : 0;
  if (n > MAX_ID_LEN - 1) n = MAX_ID_LEN - 1;
  if (n == 0) return tq_buf_putc(out, '_');
  size_t start = out->len;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)name[i];
    TQ_TRY(tq_buf_putc(out, (i == 0 && c == '.') || !is_safe_byte(c) ? '_' : (char)c));
  }
  if (is_reserved(out->data + start, out->len - start)) TQ_TRY(tq_buf_putc(out, '_'));
  return NULL;
}

void tqh_results_format_run_id(int64_t unix_seconds, uint32_t random, char *out, size_t out_size) {
  time_t t = (time_t)unix_seconds;
  struct tm tm;
  char stamp[24] = "19700101T000000Z";
  if (gmtime_r(&t, &tm)) strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
  snprintf(out, out_size, "%s-%04x", stamp, (unsigned)(random & 0xFFFF));
}

void tqh_results_options_initialize(tqh_results_options_t *options) {
  memset(options, 0, sizeof(*options));
  options->root = "results";
  options->throttle_after = 1000;
  options->throttle_ms = 1000;
  options->regen_share_pct = 5;
  options->sync = 1;
  options->sync_interval_ms = 1000;
}

/* The run: its folders, a deep copy of the options and run info (in `arena`), the journal and
 * the records read back from it. */
struct tqh_results_s {
  tq_arena_t arena;  /* the copied options and run info */
  char *run_dir;     /* as given: ROOT/RUN-ID */
  int run_fd;        /* the run folder, open (O_PATH) for the tests' files; -1: by path */
  char *abs_run_dir; /* absolute, for attachments */
  char *run_id;
  char *hostname;
  const char *junit_copy;
  size_t throttle_after;
  unsigned throttle_ms;
  unsigned regen_share_pct;
  int fsync_files;
  tqh_run_info_t info;
  double started_at;

  pthread_mutex_t mu; /* guards what follows */
  tqh_journal_t journal;
  tqh_records_t records; /* the journal's lines as read back */
  size_t counts[TQH_OUTCOME_COUNT];
  uint64_t last_regen_ns; /* when the last regeneration ended */
  uint64_t regen_cost_ns; /* and how long it took */
  size_t regen_records;   /* the records it rendered */
  tqh__pieces_t junit_pieces, summary_pieces;
  tq_buf_t line, render;
  char *reserve; /* RUN_DIR/.torq-reserve while it holds space, else NULL */
};

static tq_status_t oom(void) {
  return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory (results)");
}

static char *dup_str(tq_arena_t *arena, const char *s) {
  return s ? tq_arena_strndup(arena, s, strlen(s)) : NULL;
}

/* Copies `s` into the arena; *ok becomes 0 when memory runs out (NULL stays NULL). */
static const char *copy(tq_arena_t *arena, const char *s, int *ok) {
  if (!s) return NULL;
  char *d = dup_str(arena, s);
  if (!d) *ok = 0;
  return d;
}

static char *join(const char *a, const char *b) {
  return tq_strdup_printf("%s/%s", a, b);
}

static char *host_name(void) {
  char host[256] = "localhost";
  if (gethostname(host, sizeof(host) - 1) != 0 || !host[0]) strcpy(host, "localhost");
  host[sizeof(host) - 1] = 0;
  return tq_strndup(host, strlen(host));
}

static uint32_t random_u32(void) {
  uint32_t r = 0;
  if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r))
    r = (uint32_t)getpid() * 2654435761u ^ (uint32_t)tqh_now_ns();
  return r;
}

/* Writes `path` atomically, so that readers and a crash see the old file or the new one, never a
 * torn one. With `fsync_files`, through tq_file_write_atomic (fsync of the file and the folder:
 * survives power loss). */
static tq_status_t put_file(const tqh_results_t *r, const char *path, const void *data,
                            size_t len) {
  if (r->fsync_files) return tq_file_write_atomic(path, data, len);
  return tqh_write_quick_atomic(path, data, len);
}

/* put_file for a file of a test's folder, `path` + `rel_at` being its path within the run folder:
 * there relative to the open run folder, which spares the kernel the walk from the root. */
static tq_status_t put_test_file(const tqh_results_t *r, const char *path, size_t rel_at,
                                 const void *data, size_t len) {
  if (r->fsync_files || r->run_fd < 0) return put_file(r, path, data, len);
  return tqh_write_quick_atomic_at(r->run_fd, path + rel_at, path, data, len);
}

static tq_status_t write_iso_time(tqh_jw_t *w, double unix_seconds) {
  time_t t = (time_t)unix_seconds;
  struct tm tm;
  char text[32];
  if (!gmtime_r(&t, &tm) || !strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &tm))
    strcpy(text, "1970-01-01T00:00:00Z");
  tqh_jw_string(w, text);
  return NULL;
}

static tq_status_t write_run_json(tqh_results_t *r, int finished) {
  tq_buf_t buf;
  tq_buf_init(&buf, 0);
  tqh_jw_t w;
  tqh_jw_init(&w, &buf, 1);
  const tqh_run_info_t *in = &r->info;
  tqh_jw_object_begin(&w);
  tqh_jw_key(&w, "run_id");
  tqh_jw_string(&w, r->run_id);
  tqh_jw_key(&w, "started_at");
  (void)write_iso_time(&w, r->started_at);
  tqh_jw_key(&w, "hostname");
  tqh_jw_string(&w, r->hostname);
  struct {
    const char *key, *value;
  } fields[] = {{"tool_version", in->tool_version},
                {"compiler_version", in->compiler_version},
                {"runtime_version", in->runtime_version},
                {"target", in->target},
                {"board", in->board},
                {"git_revision", in->git_revision},
                {"command_line", in->command_line},
                {"toolchain", in->toolchain}};
  for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
    if (!fields[i].value) continue;
    tqh_jw_key(&w, fields[i].key);
    tqh_jw_string(&w, fields[i].value);
  }
  tqh_jw_key(&w, "config");
  tq_arena_t arena;
  tq_arena_init(&arena, 0, 0);
  tqh_json_t *config = NULL;
  if (in->config_json && !in->config_count) {
    tq_status_t ps = tqh_json_parse(&arena, "config", in->config_json, strlen(in->config_json),
                                    &config);
    if (ps) config = NULL;
    tq_status_free(ps);
  }
  if (config) {
    /* The configuration as structured JSON (config.h: tqh_config_to_json), indented as the
     * rest (it was checked to parse when the run was created). */
    tqh_jw_value(&w, config);
  } else {
    tqh_jw_object_begin(&w);
    for (size_t i = 0; i < in->config_count; i++) {
      tqh_jw_key(&w, in->config[i].key ? in->config[i].key : "");
      tqh_jw_string(&w, in->config[i].value ? in->config[i].value : "");
    }
    tqh_jw_object_end(&w);
  }
  tq_arena_deinit(&arena);
  if (in->config_json && in->config_count) {
    tqh_jw_key(&w, "config_json");
    tqh_jw_raw(&w, in->config_json, strlen(in->config_json));
  }
  if (finished) {
    tqh_jw_key(&w, "finished_at");
    (void)write_iso_time(&w, tqh_now_unix());
    tqh_jw_key(&w, "tests");
    tqh_jw_uint(&w, r->records.count);
    tqh_jw_key(&w, "outcomes");
    tqh_jw_object_begin(&w);
    for (int i = 0; i < TQH_OUTCOME_COUNT; i++) {
      tqh_jw_key(&w, outcome_names[i]);
      tqh_jw_uint(&w, r->counts[i]);
    }
    tqh_jw_object_end(&w);
  }
  tqh_jw_object_end(&w);
  tq_status_t s = tqh_jw_finish(&w);
  if (!s) s = tq_buf_putc(&buf, '\n');
  char *path = s ? NULL : join(r->run_dir, "run.json");
  if (!s && !path) s = oom();
  if (!s) s = put_file(r, path, buf.data, buf.len);
  tq_free(path);
  tq_buf_deinit(&buf);
  return s;
}

/* Checks that `json` is one valid JSON value. */
static tq_status_t check_json(const char *json) {
  tq_arena_t arena;
  tq_arena_init(&arena, 0, 0);
  tqh_json_t *v;
  tq_status_t s = tqh_json_parse(&arena, "config_json", json, strlen(json), &v);
  tq_arena_deinit(&arena);
  if (s && tq_status_code(s) != TQ_OUT_OF_MEMORY) {
    tq_status_t e = TQ_STATUS(TQ_INVALID_ARGUMENT, "run info: config_json is not valid JSON: %s",
                              tq_status_message(s));
    tq_status_free(s);
    return e;
  }
  return s;
}

/* Makes ROOT/<id> as a new folder, generating ids until one is free. */
static tq_status_t make_run_dir(tqh_results_t *r, const char *root, const char *fixed_id) {
  TQ_TRY(tq_file_mkdirs(root));
  for (int attempt = 0; attempt < 16; attempt++) {
    char id[64];
    if (fixed_id)
      snprintf(id, sizeof(id), "%s", fixed_id);
    else
      tqh_results_format_run_id((int64_t)time(NULL), random_u32(), id, sizeof(id));
    char *dir = join(root, fixed_id ? fixed_id : id);
    if (!dir) return oom();
    if (mkdir(dir, 0777) == 0) {
      r->run_dir = dir;
      r->run_fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
      r->run_id = dup_str(&r->arena, fixed_id ? fixed_id : id);
      return r->run_id ? NULL : oom();
    }
    int e = errno;
    tq_status_t s = (e == EEXIST && fixed_id)
                        ? TQ_STATUS(TQ_FAILED_PRECONDITION,
                                    "%s: the run folder exists already; choose another run id", dir)
                        : (e != EEXIST ? TQ_STATUS(TQ_IO, "%s: cannot create the run folder: %s",
                                                   dir, strerror(e))
                                       : NULL);
    tq_free(dir);
    if (s) return s;
  }
  return TQ_STATUS(TQ_IO, "%s: could not find a free run id", root);
}

tq_status_t tqh_results_create(const tqh_results_options_t *options, const tqh_run_info_t *info,
                               tqh_results_t **out_results) {
  *out_results = NULL;
  tqh_results_options_t o;
  if (options)
    o = *options;
  else
    tqh_results_options_initialize(&o);
  if (!o.root || !*o.root) o.root = "results";
  if (o.run_id && (strlen(o.run_id) > 63 || !tqh_results_id_is_safe(o.run_id)))
    return TQ_STATUS(TQ_INVALID_ARGUMENT, "'%s' is not a valid run id (letters, digits, ._+=,@-)",
                     o.run_id);
  if (info && info->config_json) TQ_TRY(check_json(info->config_json));

  tqh_results_t *r = tq_calloc(1, sizeof(*r));
  if (!r) return oom();
  r->run_fd = -1;
  tq_arena_init(&r->arena, 0, 0);
  pthread_mutex_init(&r->mu, NULL);
  r->journal.fd = -1;
  tqh_records_init(&r->records);
  tq_buf_init(&r->line, 0);
  tq_buf_init(&r->render, 0);
  r->throttle_after = o.throttle_after;
  r->throttle_ms = o.throttle_ms;
  r->regen_share_pct = o.regen_share_pct < 1     ? 1
                       : o.regen_share_pct > 100 ? 100
                                                 : o.regen_share_pct;
  r->fsync_files = o.fsync_files;
  tqh__pieces_init(&r->junit_pieces);
  tqh__pieces_init(&r->summary_pieces);
  r->started_at = tqh_now_unix();

  int ok = 1;
  if (info) {
    tqh_run_info_t *c = &r->info;
    c->tool_version = copy(&r->arena, info->tool_version, &ok);
    c->compiler_version = copy(&r->arena, info->compiler_version, &ok);
    c->runtime_version = copy(&r->arena, info->runtime_version, &ok);
    c->target = copy(&r->arena, info->target, &ok);
    c->board = copy(&r->arena, info->board, &ok);
    c->git_revision = copy(&r->arena, info->git_revision, &ok);
    c->command_line = copy(&r->arena, info->command_line, &ok);
    c->toolchain = copy(&r->arena, info->toolchain, &ok);
    c->config_json = copy(&r->arena, info->config_json, &ok);
    if (info->config_count) {
      tqh_property_t *p = tq_arena_calloc(&r->arena, info->config_count, sizeof(*p));
      if (!p) ok = 0;
      for (size_t i = 0; p && i < info->config_count; i++) {
        p[i].key = copy(&r->arena, info->config[i].key ? info->config[i].key : "", &ok);
        p[i].value = copy(&r->arena, info->config[i].value ? info->config[i].value : "", &ok);
      }
      c->config = p;
      c->config_count = p ? info->config_count : 0;
    }
  }
  r->hostname = o.hostname ? dup_str(&r->arena, o.hostname) : NULL;
  if (!o.hostname) {
    char *h = host_name();
    r->hostname = h ? dup_str(&r->arena, h) : NULL;
    tq_free(h);
  }
  if (!r->hostname) ok = 0;
  if (o.junit_copy) r->junit_copy = copy(&r->arena, o.junit_copy, &ok);

  tq_status_t s = ok ? NULL : oom();
  if (!s) s = make_run_dir(r, o.root, o.run_id);
  if (!s) {
    char resolved[PATH_MAX];
    if (!realpath(r->run_dir, resolved))
      s = TQ_STATUS(TQ_IO, "%s: cannot resolve the path: %s", r->run_dir, strerror(errno));
    else if (!(r->abs_run_dir = tq_strndup(resolved, strlen(resolved))))
      s = oom();
  }
  if (!s) s = write_run_json(r, 0);
  if (!s) {
    char *jpath = join(r->run_dir, "journal.jsonl");
    s = jpath ? tqh_journal_open(&r->journal, jpath, o.sync, o.sync_interval_ms) : oom();
    tq_free(jpath);
  }
  if (s) {
    tqh_results_destroy(r);
    return s;
  }
  *out_results = r;
  return NULL;
}

const char *tqh_results_run_dir(const tqh_results_t *results) {
  return results->run_dir;
}
const char *tqh_results_run_id(const tqh_results_t *results) {
  return results->run_id;
}

const tqh_records_t *tqh_results_records(const tqh_results_t *results) {
  return &results->records;
}

static tq_status_t check_id(const char *id) {
  if (!tqh_results_id_is_safe(id))
    return TQ_STATUS(TQ_INVALID_ARGUMENT,
                     "test id '%s' is not a safe folder name (1-%d of [A-Za-z0-9._+=,@-], not "
                     "starting with '.', not a run file's name)",
                     id ? id : "(null)", MAX_ID_LEN);
  return NULL;
}

static tq_status_t make_dir(const char *path) {
  if (mkdir(path, 0777) == 0 || errno == EEXIST) return NULL;
  return TQ_STATUS(TQ_IO, "%s: cannot create the folder: %s", path, strerror(errno));
}

tq_status_t tqh_results_test_dir(tqh_results_t *results, const char *test_id, char **out_path) {
  *out_path = NULL;
  TQ_TRY(check_id(test_id));
  char *dir = join(results->run_dir, test_id);
  if (!dir) return oom();
  tq_status_t s = make_dir(dir);
  if (s) {
    tq_free(dir);
    return s;
  }
  *out_path = dir;
  return NULL;
}

/* A relative path of non-empty components, none of them "." or "..". */
static int is_relative_name(const char *name) {
  if (!name || !*name || name[0] == '/') return 0;
  const char *p = name;
  while (*p) {
    const char *slash = strchr(p, '/');
    size_t n = slash ? (size_t)(slash - p) : strlen(p);
    if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.')) return 0;
    p += n + (slash ? 1 : 0);
    if (slash && !*p) return 0;
  }
  return 1;
}

tq_status_t tqh_results_write_file(tqh_results_t *results, const char *test_id, const char *name,
                                   const void *data, size_t len) {
  if (!is_relative_name(name))
    return TQ_STATUS(TQ_INVALID_ARGUMENT, "'%s' is not a relative file name inside a test folder",
                     name ? name : "(null)");
  TQ_TRY(check_id(test_id));
  char *dir = join(results->run_dir, test_id);
  char *path = dir ? join(dir, name) : NULL;
  if (!path) {
    tq_free(dir);
    return oom();
  }
  /* The test's folder is there already, mostly (its worker made it): the folders are made only
   * when the file cannot be, which saves two system calls per file of every test. */
  size_t rel_at = strlen(results->run_dir) + 1; /* `path` within the run folder */
  tq_status_t s = put_test_file(results, path, rel_at, data, len);
  if (s && tq_status_code(s) == TQ_NOT_FOUND) {
    tq_status_free(s);
    s = make_dir(dir);
    char *slash = strrchr(path, '/');
    if (!s && strchr(name, '/')) {
      *slash = 0;
      s = tq_file_mkdirs(path);
      *slash = '/';
    }
    if (!s) s = put_test_file(results, path, rel_at, data, len);
  }
  tq_free(dir);
  tq_free(path);
  return s;
}

static void junit_options(const tqh_results_t *r, tqh_junit_options_t *jo) {
  tqh_junit_options_initialize(jo);
  jo->run_dir = r->abs_run_dir;
  jo->hostname = r->hostname;
}

/* Record i's pieces of junit.xml and summary.txt, rendered as soon as it is recorded: a test's
 * pieces never change, every regeneration (the last one, at the end of the run, at least) needs
 * them, and rendered here they are made while the next test runs, not at the end. Called with
 * the lock held. */
static tq_status_t render_pieces(tqh_results_t *r, size_t i) {
  tqh_junit_options_t jo;
  junit_options(r, &jo);
  const tqh_test_record_t *rec = &r->records.items[i];
  TQ_TRY(tqh__junit_piece(rec, i, &jo, &r->junit_pieces, &r->render));
  return tqh__summary_piece(rec, i, &r->summary_pieces, &r->render);
}

/* Renders and writes junit.xml, summary.txt (and the JUnit copy). Called with the lock held. */
static tq_status_t regenerate(tqh_results_t *r) {
  uint64_t start = tqh_now_ns();
  tqh_junit_options_t jo;
  junit_options(r, &jo);
  tq_buf_clear(&r->render);
  TQ_TRY(tqh__junit_render(r->records.items, r->records.count, &jo, &r->junit_pieces, &r->render));
  char *path = join(r->run_dir, "junit.xml");
  if (!path) return oom();
  tq_status_t s = put_file(r, path, r->render.data, r->render.len);
  tq_free(path);
  if (!s && r->junit_copy) s = put_file(r, r->junit_copy, r->render.data, r->render.len);
  TQ_TRY(s);
  tq_buf_clear(&r->render);
  TQ_TRY(tqh__summary_render(r->records.items, r->records.count, NULL, &r->summary_pieces,
                             &r->render));
  path = join(r->run_dir, "summary.txt");
  if (!path) return oom();
  s = put_file(r, path, r->render.data ? r->render.data : "", r->render.len);
  tq_free(path);
  TQ_TRY(s);
  r->last_regen_ns = tqh_now_ns();
  r->regen_cost_ns = r->last_regen_ns - start;
  r->regen_records = r->records.count;
  return NULL;
}

int tqh__regeneration_due(uint64_t since_ns, uint64_t last_cost_ns, size_t last_records,
                          size_t records, unsigned share_pct) {
  /* What the next one will take: the last one's cost grows with the records rendered (the
   * last cost alone let a run's regenerations take 2.5 times the share). */
  double next = (double)last_cost_ns * (double)records / (double)(last_records ? last_records : 1);
  return (double)since_ns * share_pct >= next * (100u - share_pct);
}

/* The throttle of tqh_results_options_t. */
static int regeneration_due(const tqh_results_t *r) {
  uint64_t since = tqh_now_ns() - r->last_regen_ns;
  if (r->records.count > r->throttle_after && since < (uint64_t)r->throttle_ms * 1000000u) return 0;
  return tqh__regeneration_due(since, r->regen_cost_ns, r->regen_records, r->records.count,
                               r->regen_share_pct);
}

/* report.json and wall_time.txt: the test's own files (outside the lock: one folder per test). */
static tq_status_t write_test_files(tqh_results_t *r, const tqh_test_record_t *rec) {
  tq_buf_t buf;
  tq_buf_init(&buf, 0);
  tq_status_t s = NULL;
  if (rec->has_wall_time) {
    s = tqh_format_fixed(&buf, rec->wall_time_s > 0 ? rec->wall_time_s : 0.0, 9);
    if (!s) s = tq_buf_putc(&buf, '\n');
    if (!s) s = tqh_results_write_file(r, rec->id, "wall_time.txt", buf.data, buf.len);
  }
  tq_buf_clear(&buf);
  if (!s) s = tqh__record_to_json(rec, 1, &buf);
  if (!s) s = tq_buf_putc(&buf, '\n');
  if (!s) s = tqh_results_write_file(r, rec->id, "report.json", buf.data, buf.len);
  tq_buf_deinit(&buf);
  return s;
}

tq_status_t tqh_results_test_finished(tqh_results_t *results, const tqh_test_record_t *record) {
  TQ_TRY(check_id(record->id));
  if (!record->name || !*record->name)
    return TQ_STATUS(TQ_INVALID_ARGUMENT, "test '%s' has no name", record->id);
  if ((unsigned)record->outcome >= TQH_OUTCOME_COUNT)
    return TQ_STATUS(TQ_INVALID_ARGUMENT, "test '%s' has an invalid outcome %d", record->id,
                     (int)record->outcome);
  tqh_test_record_t rec = *record;
  if (!rec.host || !*rec.host) rec.host = results->hostname;
  TQ_TRY(write_test_files(results, &rec));

  pthread_mutex_lock(&results->mu);
  tq_buf_clear(&results->line);
  tq_status_t s = tqh__record_to_json(&rec, 0, &results->line);
  if (!s) s = tqh_journal_append(&results->journal, results->line.data, results->line.len);
  if (!s) {
    s = tqh__record_parse(&results->records, results->line.data, results->line.len);
    if (s && tq_status_code(s) != TQ_OUT_OF_MEMORY)
      s = tq_status_annotate(s, "internal error: a journal line does not read back");
  }
  if (!s) {
    results->counts[rec.outcome]++;
    /* The record is in the journal: reports that cannot be written now are written by
     * tqh_results_finish (whose error is the caller's), not reported against this test; pieces
     * not rendered now are rendered then. */
    tq_status_t ps = render_pieces(results, results->records.count - 1);
    if (ps && tq_status_code(ps) == TQ_OUT_OF_MEMORY)
      s = ps;
    else
      tq_status_free(ps);
  }
  if (!s) {
    if (regeneration_due(results)) {
      tq_status_t rs = regenerate(results);
      if (rs && tq_status_code(rs) == TQ_OUT_OF_MEMORY)
        s = rs;
      else
        tq_status_free(rs);
    }
  }
  pthread_mutex_unlock(&results->mu);
  return s;
}

size_t tqh_results_count(tqh_results_t *results, size_t *out_counts) {
  pthread_mutex_lock(&results->mu);
  size_t n = results->records.count;
  if (out_counts) memcpy(out_counts, results->counts, sizeof(results->counts));
  pthread_mutex_unlock(&results->mu);
  return n;
}

int tqh_results_reserve(tqh_results_t *results, uint64_t bytes) {
  tqh_results_release_reserve(results);
  char *path = join(results->run_dir, TQH_RESULTS_RESERVE_FILE);
  int fd = path ? open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600) : -1;
  if (fd < 0) {
    tq_free(path);
    return 0;
  }
  int ok = bytes > 0 && posix_fallocate(fd, 0, (off_t)bytes) == 0;
  close(fd);
  if (!ok) {
    unlink(path);
    tq_free(path);
    return 0;
  }
  results->reserve = path;
  return 1;
}

int tqh_results_release_reserve(tqh_results_t *results) {
  if (!results || !results->reserve) return 0;
  unlink(results->reserve);
  tq_free(results->reserve);
  results->reserve = NULL;
  return 1;
}

tq_status_t tqh_results_finish(tqh_results_t *results) {
  tqh_results_release_reserve(results);
  pthread_mutex_lock(&results->mu);
  tq_status_t s = regenerate(results);
  if (!s) s = write_run_json(results, 1);
  pthread_mutex_unlock(&results->mu);
  return s;
}

tq_status_t tqh_results_summary(tqh_results_t *results, char **out_text) {
  return tqh_results_summary_with(results, NULL, out_text);
}

tq_status_t tqh_results_summary_with(tqh_results_t *results, const tqh_summary_options_t *options,
                                     char **out_text) {
  *out_text = NULL;
  tq_buf_t buf;
  tq_buf_init(&buf, 0);
  pthread_mutex_lock(&results->mu);
  tq_status_t s = tqh__summary_render(results->records.items, results->records.count, options,
                                      &results->summary_pieces, &buf);
  pthread_mutex_unlock(&results->mu);
  if (!s) {
    *out_text = tq_buf_detach(&buf);
    if (!*out_text) s = oom();
  }
  tq_buf_deinit(&buf);
  return s;
}

void tqh_results_destroy(tqh_results_t *results) {
  if (!results) return;
  tqh_results_release_reserve(results);
  tqh_journal_close(&results->journal);
  tqh_records_deinit(&results->records);
  tq_buf_deinit(&results->line);
  tq_buf_deinit(&results->render);
  tqh__pieces_deinit(&results->junit_pieces);
  tqh__pieces_deinit(&results->summary_pieces);
  pthread_mutex_destroy(&results->mu);
  if (results->run_fd >= 0) close(results->run_fd);
  tq_free(results->run_dir);
  tq_free(results->abs_run_dir);
  tq_arena_deinit(&results->arena);
  tq_free(results);
}

tq_status_t tqh_results_rebuild(const char *run_dir, const char *hostname, char **out_problems) {
  if (out_problems) *out_problems = NULL;
  char resolved[PATH_MAX];
  if (!realpath(run_dir, resolved)) {
    int e = errno;
    return TQ_STATUS(e == ENOENT ? TQ_NOT_FOUND : TQ_IO, "%s: %s", run_dir, strerror(e));
  }
  tqh_results_t r;
  memset(&r, 0, sizeof(r));
  r.run_fd = -1;
  tqh_records_init(&r.records);
  tq_buf_init(&r.render, 0);
  tqh__pieces_init(&r.junit_pieces);
  tqh__pieces_init(&r.summary_pieces);
  tqh_diags_t diags;
  tqh_diags_init(&diags);
  char *host = hostname ? tq_strndup(hostname, strlen(hostname)) : host_name();
  r.run_dir = (char *)run_dir;
  r.abs_run_dir = resolved;
  r.hostname = host;
  char *jpath = join(run_dir, "journal.jsonl");
  tq_status_t s = (!host || !jpath) ? oom() : NULL;
  tqh_journal_read_t info;
  if (!s) s = tqh_journal_read(jpath, &r.records, &diags, &info);
  if (!s) s = regenerate(&r);
  if (!s && out_problems && diags.errors) {
    tq_buf_t text;
    tq_buf_init(&text, 0);
    tqh_diags_t errors_only;
    tqh_diags_init(&errors_only);
    for (size_t i = 0; i < diags.count; i++)
      if (diags.items[i].severity == TQH_ERROR)
        tqh_diags_add(&errors_only, TQH_ERROR, diags.items[i].file, diags.items[i].line, "%s",
                      diags.items[i].message);
    errors_only.dropped += diags.dropped;
    s = tqh_diags_format(&errors_only, &text);
    tqh_diags_deinit(&errors_only);
    if (!s && !(*out_problems = tq_buf_detach(&text))) s = oom();
    tq_buf_deinit(&text);
  }
  tqh_diags_deinit(&diags);
  tq_free(jpath);
  tq_free(host);
  tq_buf_deinit(&r.render);
  tqh__pieces_deinit(&r.junit_pieces);
  tqh__pieces_deinit(&r.summary_pieces);
  tqh_records_deinit(&r.records);
  return s;
}
