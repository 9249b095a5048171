/* The Torq performance dashboard against scripts/dashboard-server on loopback (a server of its
 * upload API that checks every field and keeps what it accepts): a run uploads its tests in
 * batches and closes its session; every test arrives once with its measurements (checked by a
 * Python oracle against the run's journal and files); a server that dies in the middle leaves a
 * backlog that `torq-test upload` sends; shards upload into one session that `merge` closes,
 * once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e.h"

#define WORKFLOW "https://ci.example/group/torq/-/pipelines/77"

/* Checks the server's sessions.json against the runs: one session of WORKFLOW, closed CLOSES
 * times; batches of at most BATCH tests, none after the close; every test of the runs' journals
 * once, its outcome, its measurements (the overview's in ns under their keys, percentages of
 * total_duration, wall_time, estimated_cycles), declared metrics, failure logs holding the
 * message, profiles byte for byte. argv: SERVER_DIR BATCH CLOSES RUN... */
static const char oracle_py[] =
    "import json, os, sys, zipfile\n"
    "srv, batch, closes, runs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]\n"
    "sessions = json.load(open(os.path.join(srv, 'sessions.json')))['sessions']\n"
    "assert len(sessions) == 1, [s['workflow_url'] for s in sessions]\n"
    "s = sessions[0]\n"
    "assert s['workflow_url'] == '" WORKFLOW "', s['workflow_url']\n"
    "assert s['mark_complete_calls'] == closes and s['completed'] == (closes > 0), s\n"
    "assert s['test_plan'] == 'torq' and s['batch_name'] == 'nightly', s\n"
    "assert s['batches_after_complete'] == 0\n"
    "for b in s['batches']:\n"
    "    assert 1 <= b['test_runs'] <= batch, b\n"
    "    assert b['measurements_dropped'] == 0, b\n"
    "records = []\n"
    "for run in runs:\n"
    "    for line in open(os.path.join(run, 'journal.jsonl')):\n"
    "        records.append((run, json.loads(line)))\n"
    "got = {(t['module'], t['name']): t for t in s['test_runs']}\n"
    "assert len(got) == len(s['test_runs']) == len(records), (len(s['test_runs']), len(records))\n"
    "names = {'passed': 'passed', 'failed': 'failed', 'error': 'error', 'skipped': 'skipped',\n"
    "         'xfailed': 'xfail', 'xpassed': 'nxpass', 'not_run': 'skipped'}\n"
    "phases = {'compile_error': 'setup', 'expectation': 'call'}\n"
    "for run, rec in records:\n"
    "    t = got[(rec['classname'], rec['name'])]\n"
    "    assert t['outcome'] == names[rec['outcome']], (t['outcome'], rec['outcome'])\n"
    "    m = t['measurements']\n"
    "    for label, us in rec['metrics'].items():\n"
    "        key = rec['metric_keys'][label]\n"
    "        assert m[key] == round(us * 1000), (key, m.get(key), us)\n"
    "        overall = rec['metrics']['OVERALL']\n"
    "        if key != 'total_duration' and overall:\n"
    "            pct = key[:-5] + '_percent' if key.endswith('_time') else key + '_percent'\n"
    "            assert abs(m[pct] - us / overall * 100) <= 0.005 + 1e-9, (pct, m[pct])\n"
    "    if rec['metrics']:\n"
    "        assert m['total_duration'] > 0 and 'dma_in_time' in m and 'hal_time' in m, m\n"
    "    if rec['wall_time'] is not None:\n"
    "        assert m['wall_time'] == round(rec['wall_time'] * 1e9), m\n"
    "    if rec.get('device_time') is not None:\n"
    "        assert m['device_time'] == round(rec['device_time_stats']['median'] * 1e9), m\n"
    "    else:\n"
    "        assert 'device_time' not in m, m\n"
    "    if rec['estimated_cycles'] is not None:\n"
    "        assert m['estimated_cycles'] == rec['estimated_cycles'], m\n"
    "    z = zipfile.ZipFile(os.path.join(srv, s['batches'][t['batch'] - 1]['zip']))\n"
    "    doc = json.loads(z.read('test_session.json'))\n"
    "    declared = {d['name']: d for d in doc['metrics']}\n"
    "    assert all(k in declared for k in m), [k for k in m if k not in declared]\n"
    "    assert declared['dma_time']['unit'] == 'ns' and declared['dma_percent']['unit'] == '%'\n"
    "    assert declared['estimated_cycles']['unit'] == 'cycles'\n"
    "    md = t['metadata']\n"
    "    assert md['compiler'].startswith('torq-compiler') and md['runtime_hw_type'] == 'sim', md\n"
    "    if rec['outcome'] in ('failed', 'error'):\n"
    "        log = z.read(t['failure_log_file']).decode()\n"
    "        assert rec['message'] in log, (rec['message'], log)\n"
    "        assert t['failed_phase'] == phases[rec['failure_type']], t\n"
    "    else:\n"
    "        assert 'failure_log_file' not in t and 'failed_phase' not in t, t\n"
    "    pb = os.path.join(run, rec['id'], 'profile.pb')\n"
    "    if os.path.exists(pb):\n"
    "        assert z.read(t['profiling_file']) == open(pb, 'rb').read()\n"
    "    else:\n"
    "        assert 'profiling_file' not in t\n"
    "print('ok', len(records), 'tests', len(s['batches']), 'batches')\n";

/* Runs the oracle; fails the test with its output when it does not hold. */
static void check_server(const e2e_scratch_t *s, const char *srv, int batch, int closes,
                         const char *const *runs) {
  char *py = e2e_path("%s/oracle.py", s->dir), *out = e2e_path("%s/oracle.txt", s->dir);
  e2e_write(py, oracle_py);
  char cmd[16384];
  int n = snprintf(cmd, sizeof(cmd), "'%s' '%s' '%s' %d %d", tq_test_python(), py, srv, batch,
                   closes);
  for (size_t i = 0; runs[i]; i++) n += snprintf(cmd + n, sizeof(cmd) - (size_t)n, " '%s'", runs[i]);
  snprintf(cmd + n, sizeof(cmd) - (size_t)n, " > '%s' 2>&1", out);
  int rc = system(cmd);
  char *text = e2e_read(out);
  ck_assert_msg(rc == 0, "the dashboard's contents do not match the runs:\n%s", text);
  free(text);
  free(py);
  free(out);
}

static int start(const e2e_scratch_t *s, const char *dir, int port, const char *const *extra,
                 e2e_server_t *srv) {
  char p[16];
  snprintf(p, sizeof(p), "%d", port);
  const char *args[12] = {"--port", p, "--token", "d4sh-t0ken"};
  size_t n = 4;
  for (size_t i = 0; extra && extra[i]; i++) {
    ck_assert_uint_lt(n, 11);
    args[n++] = extra[i];
  }
  args[n] = NULL;
  char *script = e2e_path("%s/scripts/dashboard-server", e2e_top());
  int started = e2e_server_start_file(s, script, dir, args, srv);
  free(script);
  return started;
}

/* Five tests: three that pass, one that does not compile (setup), one over its gate (call). */
static char *write_suite(const e2e_scratch_t *s) {
  char *model = e2e_path("%s/add.mlir", s->dir), *broken = e2e_path("%s/broken.mlir", s->dir);
  e2e_write_add_model(model);
  e2e_write_broken_model(broken);
  char *suite = e2e_path("%s/dash.yaml", s->dir);
  e2e_write(suite,
            "suite: dash\n"
            "tests:\n"
            "  - {name: one, model: add.mlir}\n"
            "  - {name: two, model: add.mlir}\n"
            "  - {name: three, model: add.mlir}\n"
            "  - {name: broken, model: broken.mlir}\n"
            "  - name: gated\n"
            "    model: add.mlir\n"
            "    expect: {overall_us: 0.5}\n");
  free(model);
  free(broken);
  return suite;
}

static char *run_of(const e2e_proc_t *p) {
  const char *r = strstr(p->out, "Results: ");
  ck_assert_msg(r != NULL, "no Results line:\n%s\n%s", p->out, p->err);
  r += 9;
  size_t n = strcspn(r, "\n");
  if (n && r[n - 1] == '/') n--;
  return strndup(r, n);
}

/* The environment of a run that uploads to the server on `port`. */
typedef struct env_s {
  char server[64];
  const char *v[6];
} env_t;

static void dashboard_env(env_t *e, int port) {
  snprintf(e->server, sizeof(e->server), "TORQ_PERF_SERVER=http://127.0.0.1:%d", port);
  e->v[0] = e->server;
  e->v[1] = "TORQ_PERF_SERVER_TOKEN=d4sh-t0ken";
  e->v[2] = "TORQ_PERF_WORKFLOW_URL=" WORKFLOW;
  e->v[3] = "TORQ_PERF_BATCH_NAME=nightly";
  e->v[4] = NULL;
}

/* `torq-test upload RUN` sends the backlog to the server `srv` (then stopped): every test of the
 * run is there once, in batches of the default size (8: the backlog in one), the session closed
 * once. */
static void send_backlog(const e2e_scratch_t *s, const char *const *env, const char *run,
                         e2e_server_t *srv, const char *www) {
  e2e_proc_t up;
  e2e_run(s, e2e_top(), env, (const char *const[]){"upload", run, NULL}, &up);
  ck_assert_msg(up.exit_code == 0, "exit %d\n%s\n%s", up.exit_code, up.out, up.err);
  ck_assert_ptr_nonnull(strstr(up.out, "Upload: everything sent"));
  e2e_server_stop(srv);
  check_server(s, www, 8, 1, (const char *const[]){run, NULL});
  e2e_proc_free(&up);
}

START_TEST(a_run_uploads_its_tests_in_batches_and_closes_the_session) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  char *www = e2e_path("%s/dash", s.dir);
  e2e_server_t srv;
  if (!start(&s, www, 0, NULL, &srv)) {
    free(www);
    e2e_scratch_free(&s);
    return;
  }
  char *suite = write_suite(&s);
  char url[128];
  snprintf(url, sizeof(url), "--upload=torq-dashboard+http://127.0.0.1:%d/", srv.port);
  const char *env[] = {"TORQ_PERF_SERVER_TOKEN=d4sh-t0ken", "TORQ_PERF_WORKFLOW_URL=" WORKFLOW,
                       "TORQ_PERF_BATCH_NAME=nightly", NULL};
  e2e_proc_t p;
  e2e_run(&s, e2e_top(), env, (const char *const[]){suite, url, "--upload-batch=2", NULL}, &p);
  ck_assert_msg(p.exit_code == 1, "exit %d\n%s\n%s", p.exit_code, p.out, p.err);
  ck_assert_msg(strstr(p.out, "Upload: everything sent to torq-dashboard+http://127.0.0.1:") != NULL,
                "%s\n%s", p.out, p.err);
  char *run = run_of(&p);
  check_server(&s, www, 2, 1, (const char *const[]){run, NULL});
  /* Batches as tests finish (at most two each, so at least three), then the close; every request
   * with the token, and the token in no file of the run. */
  char *log_path = e2e_path("%s/requests.log", www);
  char *log = e2e_read(log_path);
  ck_assert_uint_ge(e2e_count(log, "201|/api/test-sessions/upload_zip/|Bearer d4sh-t0ken|"), 3);
  ck_assert_uint_eq(e2e_count(log, "200|/api/test-sessions/mark_complete/|Bearer d4sh-t0ken|"), 1);
  ck_assert_uint_eq(e2e_count(log, "\n"), e2e_count(log, "|Bearer d4sh-t0ken|"));
  const char *close = strstr(log, "mark_complete");
  ck_assert_ptr_null(strstr(close, "upload_zip"));
  static const char *const files[] = {"upload/queue", "upload/sent", "upload/url",
                                      "upload/log", "upload/session.json", "run.json"};
  for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++) {
    char *fp = e2e_path("%s/%s", run, files[i]);
    char *text = e2e_read(fp);
    if (text) ck_assert_msg(strstr(text, "d4sh") == NULL, "the token is in %s", files[i]);
    free(text);
    free(fp);
  }
  ck_assert_ptr_null(strstr(p.out, "d4sh"));
  ck_assert_ptr_null(strstr(p.err, "d4sh"));
  /* Nothing left: `torq-test upload` sends nothing more. */
  e2e_upload_sends_nothing(&s, env, run, log_path, log);
  /* A bad TORQ_PERF_SERVER is a usage error before anything runs. */
  e2e_proc_t bad;
  e2e_run(&s, e2e_top(), (const char *const[]){"TORQ_PERF_SERVER=ftp://x", NULL},
          (const char *const[]){suite, NULL}, &bad);
  ck_assert_int_eq(bad.exit_code, 2);
  ck_assert_ptr_nonnull(strstr(bad.err, "TORQ_PERF_SERVER"));
  e2e_proc_free(&bad);
  e2e_server_stop(&srv);
  free(log);
  free(log_path);
  free(run);
  free(suite);
  free(www);
  e2e_proc_free(&p);
  e2e_scratch_free(&s);
}
END_TEST

START_TEST(a_server_that_dies_mid_run_leaves_a_backlog_that_torq_test_upload_sends) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  char *www = e2e_path("%s/dash", s.dir);
  e2e_server_t srv;
  /* It stores one batch (of one test), then is gone. */
  if (!start(&s, www, 0, (const char *const[]){"--exit-after", "1", NULL}, &srv)) {
    free(www);
    e2e_scratch_free(&s);
    return;
  }
  int port = srv.port;
  char *suite = write_suite(&s);
  env_t env;
  dashboard_env(&env, port);
  e2e_proc_t p;
  e2e_run(&s, e2e_top(), env.v, (const char *const[]){suite, "--upload-batch=1", NULL}, &p);
  e2e_server_stop(&srv);
  /* The run's own outcome; what was not sent is kept and named. */
  ck_assert_msg(p.exit_code == 1, "exit %d\n%s\n%s", p.exit_code, p.out, p.err);
  ck_assert_msg(strstr(p.err, "not sent to torq-dashboard+http://127.0.0.1:") != NULL, "%s",
                p.err);
  ck_assert_ptr_nonnull(strstr(p.err, "torq-test upload "));
  char *run = run_of(&p);
  char *log_path = e2e_path("%s/requests.log", www);
  char *log = e2e_read(log_path);
  ck_assert_uint_eq(e2e_count(log, "201|"), 1);
  free(log);
  /* The server comes back on its port, with what it had stored; the backlog goes. */
  if (!start(&s, www, port, NULL, &srv)) {
    free(log_path);
    free(run);
    free(suite);
    free(www);
    e2e_proc_free(&p);
    e2e_scratch_free(&s);
    return;
  }
  send_backlog(&s, env.v, run, &srv, www);
  free(log_path);
  free(run);
  free(suite);
  free(www);
  e2e_proc_free(&p);
  e2e_scratch_free(&s);
}
END_TEST

/* A board's records hold the runtime's device time as a statistic (issue 13): the dashboard
 * gets its median. The run is the simulator's, its journal given the device times a board run
 * records (the oracle checks every test's measurement against its record). */
static const char add_device_py[] =
    "import json, os, sys\n"
    "run = sys.argv[1]\n"
    "def add(r, i):\n"
    "    if r['wall_time'] is not None:\n"
    "        samples = [0.000100 + 0.000001 * (i + k) for k in range(5)]\n"
    "        r['device_time'] = samples[2]\n"
    "        r['device_time_stats'] = dict(r['wall_time_stats'], n=5, min=samples[0],\n"
    "                                      max=samples[4], median=samples[2], mean=samples[2])\n"
    "        r['device_time_samples'] = samples\n"
    "    return r\n"
    "lines = []\n"
    "for i, line in enumerate(open(os.path.join(run, 'journal.jsonl'))):\n"
    "    r = add(json.loads(line), i)\n"
    "    lines.append(json.dumps(r) + '\\n')\n"
    "    report = os.path.join(run, r['id'], 'report.json')\n"
    "    json.dump(add(json.load(open(report)), i), open(report, 'w'), indent=2)\n"
    "open(os.path.join(run, 'journal.jsonl'), 'w').write(''.join(lines))\n";

START_TEST(device_time_goes_up_as_its_median) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  char *www = e2e_path("%s/dash", s.dir);
  e2e_server_t srv;
  if (!start(&s, www, 0, NULL, &srv)) {
    free(www);
    e2e_scratch_free(&s);
    return;
  }
  char *suite = write_suite(&s);
  e2e_proc_t p;
  e2e_run(&s, e2e_top(), NULL, (const char *const[]){suite, "-q", NULL}, &p);
  ck_assert_msg(p.exit_code == 1, "exit %d\n%s\n%s", p.exit_code, p.out, p.err);
  e2e_proc_free(&p);
  char *run = e2e_only_run(&s);
  char *py = e2e_path("%s/add_device.py", s.dir), *journal = e2e_path("%s/journal.jsonl", run);
  e2e_write(py, add_device_py);
  char cmd[8192];
  snprintf(cmd, sizeof(cmd), "'%s' '%s' '%s'", tq_test_python(), py, run);
  ck_assert_int_eq(system(cmd), 0);
  char *text = e2e_read(journal);
  ck_assert_uint_eq(e2e_count(text, "\"device_time_samples\""), 4); /* the four that ran */
  free(text);
  env_t env;
  dashboard_env(&env, srv.port);
  send_backlog(&s, env.v, run, &srv, www);
  free(journal);
  free(py);
  free(run);
  free(suite);
  free(www);
  e2e_scratch_free(&s);
}
END_TEST

START_TEST(shards_upload_into_one_session_that_merge_closes_once) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  char *www = e2e_path("%s/dash", s.dir);
  e2e_server_t srv;
  if (!start(&s, www, 0, NULL, &srv)) {
    free(www);
    e2e_scratch_free(&s);
    return;
  }
  char *suite = write_suite(&s);
  env_t env;
  dashboard_env(&env, srv.port);
  char *runs[3] = {NULL, NULL, NULL};
  for (int k = 1; k <= 2; k++) {
    char shard[32], dir[64];
    snprintf(shard, sizeof(shard), "--shard=%d/2", k);
    snprintf(dir, sizeof(dir), "--results-dir=%s/shard-%d", s.dir, k);
    e2e_proc_t p;
    e2e_run(&s, e2e_top(), env.v, (const char *const[]){suite, shard, dir, NULL}, &p);
    ck_assert_msg(p.exit_code <= 1, "exit %d\n%s\n%s", p.exit_code, p.out, p.err);
    ck_assert_ptr_nonnull(strstr(p.out, "Upload: everything sent"));
    runs[k - 1] = run_of(&p);
    e2e_proc_free(&p);
  }
  /* Both shards' tests in one session, which neither closed. */
  check_server(&s, www, 8, 0, (const char *const[]){runs[0], runs[1], NULL});
  char *merged = e2e_path("--results-dir=%s/merged", s.dir);
  e2e_proc_t m;
  e2e_run(&s, e2e_top(), env.v, (const char *const[]){"merge", runs[0], runs[1], merged, NULL},
          &m);
  ck_assert_msg(m.exit_code == 1, "exit %d\n%s\n%s", m.exit_code, m.out, m.err);
  ck_assert_ptr_nonnull(strstr(m.out, "Upload: everything sent"));
  /* Closed once, and no test sent twice. */
  check_server(&s, www, 8, 1, (const char *const[]){runs[0], runs[1], NULL});
  e2e_server_stop(&srv);
  free(merged);
  e2e_proc_free(&m);
  free(runs[0]);
  free(runs[1]);
  free(suite);
  free(www);
  e2e_scratch_free(&s);
}
END_TEST

/* Posts to the server on PORT what breaks each rule of the protocol, and checks the 400 and its
 * detail, that nothing of a refused upload is kept, that undeclared measurements are dropped,
 * and the token and the close. argv: PORT TOKEN SERVER_DIR */
static const char probe_py[] =
    "import io, json, os, sys, urllib.request, urllib.error, zipfile\n"
    "port, token, srv = sys.argv[1], sys.argv[2], sys.argv[3]\n"
    "def form(fields):\n"
    "    b = b'----torqprobe'\n"
    "    out = b''\n"
    "    for name, filename, data in fields:\n"
    "        out += b'--' + b + b'\\r\\nContent-Disposition: form-data; name=\"' + name.encode() + b'\"'\n"
    "        if filename is not None:\n"
    "            out += b'; filename=\"' + filename.encode() + b'\"'\n"
    "        out += b'\\r\\n\\r\\n' + data + b'\\r\\n'\n"
    "    return out + b'--' + b + b'--\\r\\n', 'multipart/form-data; boundary=' + b.decode()\n"
    "def post(path, fields, auth=True):\n"
    "    body, ctype = form(fields)\n"
    "    rq = urllib.request.Request('http://127.0.0.1:%s%s' % (port, path), data=body, method='POST')\n"
    "    rq.add_header('Content-Type', ctype)\n"
    "    if auth:\n"
    "        rq.add_header('Authorization', 'Bearer ' + token)\n"
    "    try:\n"
    "        with urllib.request.urlopen(rq) as r:\n"
    "            return r.status, json.loads(r.read())\n"
    "    except urllib.error.HTTPError as e:\n"
    "        return e.code, json.loads(e.read())\n"
    "def zipped(doc, extra=()):\n"
    "    f = io.BytesIO()\n"
    "    with zipfile.ZipFile(f, 'w') as z:\n"
    "        if doc is not None:\n"
    "            z.writestr('test_session.json', json.dumps(doc))\n"
    "        for name in extra:\n"
    "            z.writestr(name, 'log')\n"
    "    return f.getvalue()\n"
    "def session(**over):\n"
    "    run = {'module': 'smoke', 'name': 'add', 'parameters': '', 'outcome': 'passed',\n"
    "           'measurements': {'dma_time': 453000, 'not_declared': 1},\n"
    "           'metadata': {'compiler': 'torq-compiler 0.1', 'runtime_input': None}}\n"
    "    run.update(over.pop('run', {}))\n"
    "    doc = {'git_commit': 'abc', 'git_branch': None, 'workflow_url': 'wf-1', 'test_plan': 'torq',\n"
    "           'owner': 'ci', 'batch_name': 'nightly',\n"
    "           'metrics': [{'name': 'dma_time', 'unit': 'ns', 'description': 'DMA'}],\n"
    "           'test_runs': [run]}\n"
    "    doc.update(over)\n"
    "    return doc\n"
    "UP = '/api/test-sessions/upload_zip/'\n"
    "def stored():\n"
    "    p = os.path.join(srv, 'sessions.json')\n"
    "    if not os.path.exists(p):\n"
    "        return 0\n"
    "    return sum(len(s['test_runs']) for s in json.load(open(p))['sessions'])\n"
    "bad = [\n"
    "    ('a metric without its unit', [('file', 'b.zip', zipped(session(metrics=[{'name': 'dma_time', 'description': 'DMA'}])))], 'unit is required'),\n"
    "    ('a metric without its description', [('file', 'b.zip', zipped(session(metrics=[{'name': 'x', 'unit': 'ns'}])))], 'description is required'),\n"
    "    ('an outcome of no kind', [('file', 'b.zip', zipped(session(run={'outcome': 'fine'})))], \"outcome 'fine'\"),\n"
    "    ('an empty module', [('file', 'b.zip', zipped(session(run={'module': ''})))], 'module must be'),\n"
    "    ('a name that is no string', [('file', 'b.zip', zipped(session(run={'name': 3})))], 'name must be'),\n"
    "    ('parameters that are no string', [('file', 'b.zip', zipped(session(run={'parameters': []})))], 'parameters must be'),\n"
    "    ('a measurement that is no number', [('file', 'b.zip', zipped(session(run={'measurements': {'dma_time': '1'}})))], 'must be a number'),\n"
    "    ('metadata of a number', [('file', 'b.zip', zipped(session(run={'metadata': {'runtime': 1}})))], 'metadata runtime'),\n"
    "    ('a failed phase of no kind', [('file', 'b.zip', zipped(session(run={'failed_phase': 'later'})))], \"failed_phase 'later'\"),\n"
    "    ('a failure log not in the zip', [('file', 'b.zip', zipped(session(run={'failure_log_file': 'failure_logs/x.log'})))], 'not in the zip'),\n"
    "    ('a git_commit of a number', [('file', 'b.zip', zipped(session(git_commit=7)))], 'git_commit must be'),\n"
    "    ('a zip without test_session.json', [('file', 'b.zip', zipped(None, ['x.txt']))], 'no test_session.json'),\n"
    "    ('a file whose name is not .zip', [('file', 'b.tar', zipped(session()))], 'must end in .zip'),\n"
    "    ('no field file', [('upload', 'b.zip', zipped(session()))], \"no field 'file'\"),\n"
    "    ('bytes that are no zip', [('file', 'b.zip', b'PK not really')], 'not a valid zip'),\n"
    "]\n"
    "for what, fields, detail in bad:\n"
    "    code, answer = post(UP, fields)\n"
    "    assert code == 400, (what, code, answer)\n"
    "    assert detail in answer['detail'], (what, answer)\n"
    "    assert stored() == 0, what\n"
    "code, answer = post(UP, [('file', 'b.zip', zipped(session()))], auth=False)\n"
    "assert code == 401 and stored() == 0, (code, answer)\n"
    "code, answer = post(UP, [('file', 'b.zip', zipped(session(run={'outcome': 'failed', 'failed_phase': 'setup', 'failure_log_file': 'failure_logs/a.log'}), ['failure_logs/a.log']))])\n"
    "assert code == 201 and answer['id'] == 1, (code, answer)\n"
    "code, again = post(UP, [('file', 'c.zip', zipped(session()))])\n"
    "assert code == 201 and again['id'] == 1 and again['batch'] == 2, again\n"
    "s = json.load(open(os.path.join(srv, 'sessions.json')))['sessions'][0]\n"
    "assert [r['measurements'] for r in s['test_runs']] == [{'dma_time': 453000}] * 2, s['test_runs']\n"
    "assert s['batches'][0]['measurements_dropped'] == 1 and not s['completed'], s\n"
    "code, answer = post('/api/test-sessions/mark_complete/', [('workflow_url', None, b'wf-2')])\n"
    "assert code == 400 and 'wf-2' in answer['detail'], answer\n"
    "code, answer = post('/api/test-sessions/mark_complete/', [('workflow_url', None, b'wf-1')])\n"
    "assert code == 200 and answer == {'id': 1, 'completed': True}, answer\n"
    "print('ok', len(bad), 'refusals')\n";

START_TEST(the_server_refuses_what_breaks_a_rule_and_keeps_nothing_of_it) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  char *www = e2e_path("%s/dash", s.dir);
  e2e_server_t srv;
  if (!start(&s, www, 0, NULL, &srv)) {
    free(www);
    e2e_scratch_free(&s);
    return;
  }
  char *py = e2e_path("%s/probe.py", s.dir), *out = e2e_path("%s/probe.txt", s.dir);
  e2e_write(py, probe_py);
  char cmd[4096];
  snprintf(cmd, sizeof(cmd), "'%s' '%s' %d d4sh-t0ken '%s' > '%s' 2>&1", tq_test_python(), py,
           srv.port, www, out);
  int rc = system(cmd);
  char *text = e2e_read(out);
  ck_assert_msg(rc == 0, "scripts/dashboard-server:\n%s", text);
  ck_assert_ptr_nonnull(strstr(text, "ok 15 refusals"));
  free(text);
  e2e_server_stop(&srv);
  free(py);
  free(out);
  free(www);
  e2e_scratch_free(&s);
}
END_TEST

/* A batch the dashboard refuses (400 and its detail): the run says so, names the detail, keeps
 * the tests, and `torq-test upload` sends them once the server takes them. */
START_TEST(a_refused_batch_is_named_with_its_detail_and_kept_for_torq_test_upload) {
  e2e_scratch_t s;
  e2e_scratch_init(&s);
  char *www = e2e_path("%s/dash", s.dir);
  e2e_server_t srv;
  if (!start(&s, www, 0, (const char *const[]){"--fail", "1", "--code", "400", NULL}, &srv)) {
    free(www);
    e2e_scratch_free(&s);
    return;
  }
  char *suite = write_suite(&s);
  env_t env;
  dashboard_env(&env, srv.port);
  e2e_proc_t p;
  e2e_run(&s, e2e_top(), env.v, (const char *const[]){suite, NULL}, &p);
  ck_assert_msg(p.exit_code == 1, "exit %d\n%s\n%s", p.exit_code, p.out, p.err);
  ck_assert_msg(strstr(p.err, "not sent to torq-dashboard+http://127.0.0.1:") != NULL, "%s", p.err);
  ck_assert_msg(strstr(p.err, "HTTP 400") && strstr(p.err, "try later"), "%s", p.err);
  char *run = run_of(&p);
  char *log_path = e2e_path("%s/upload/log", run);
  char *log = e2e_read(log_path);
  ck_assert_msg(log && strstr(log, "rejected, not retried"), "%s", log ? log : "(no log)");
  free(log);
  send_backlog(&s, env.v, run, &srv, www);
  free(log_path);
  free(run);
  free(suite);
  free(www);
  e2e_proc_free(&p);
  e2e_scratch_free(&s);
}
END_TEST

Suite *e2e_suite_dashboard(void) {
  Suite *s = suite_create("dashboard");
  TCase *tc = tcase_create("dashboard");
  tcase_set_timeout(tc, 180);
  tcase_add_test(tc, a_run_uploads_its_tests_in_batches_and_closes_the_session);
  tcase_add_test(tc, a_server_that_dies_mid_run_leaves_a_backlog_that_torq_test_upload_sends);
  tcase_add_test(tc, shards_upload_into_one_session_that_merge_closes_once);
  tcase_add_test(tc, device_time_goes_up_as_its_median);
  tcase_add_test(tc, the_server_refuses_what_breaks_a_rule_and_keeps_nothing_of_it);
  tcase_add_test(tc, a_refused_batch_is_named_with_its_detail_and_kept_for_torq_test_upload);
  suite_add_tcase(s, tc);
  return s;
}
