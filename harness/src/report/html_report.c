/* The HTML report of a run (html_report.h): the page, its summary table, the filter and the
 * tests' sections; the timelines are drawn by html_svg.c, the operator tables by html_ops.c. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "report_internal.h"
#include "torq/base/alloc.h"
#include "torq/base/file.h"
#include "torq/harness/files.h"
#include "torq/harness/html_report.h"
#include "torq/harness/journal.h"
#include "torq/harness/json.h"
#include "torq/harness/junit.h"
#include "torq/harness/overview.h"
#include "torq/harness/perfetto.h"

#define MAX_TEXT 16384          /* a failure's text shown in the page */
#define MAX_RUN_JSON (1u << 20) /* run.json is small; a larger one is not ours */
#define OPEN_SECTIONS 50        /* beyond this many tests, only failed tests' sections are open */

tq_status_t tqh_html_escape(const char *text, size_t len, tq_buf_t *out) {
  return tqh_xml_escape(text, len, 1, out);
}

static tq_status_t esc(tq_buf_t *out, const char *s) {
  return s ? tqh_html_escape(s, strlen(s), out) : NULL;
}

typedef struct page_s {
  const char *run_dir;
  tqh_baseline_t *baseline;
  const char *trends; /* the trends page's link, or NULL */
  tqh_diags_t *diags; /* may be NULL */
  const tqh_records_t *records; /* the journal's: `own`, or the caller's */
  tqh_records_t own;
  size_t *order; /* the records shown: the last of each id, in journal order */
  size_t count;
  tq_arena_t arena;
  const tqh_json_t *run; /* run.json, or NULL */
  /* With a baseline, per shown test (as `order`): its comparison, when compared[k]. */
  tqh_baseline_comparison_t *cmp;
  unsigned char *compared;
  tqh_op_table_t *ops;   /* per shown test: its time by operator (annotated.csv) */
  unsigned char *no_ops; /* per shown test: 1 when it has no annotated.csv, 2 when unreadable */
  tqh_op_table_t run_ops; /* summed over the run */
  /* The last timeline drawn and the profile.pb bytes it came from: the tests of one model make
   * the same profile, which is then drawn once (a timeline depends on its bytes alone). */
  tq_buf_t last_pb, last_svg;
  int have_last;
} page_t;

static void warn(page_t *p, const char *file, const char *fmt, ...) TQ_PRINTF(3, 4);
static void warn(page_t *p, const char *file, const char *fmt, ...) {
  if (!p->diags) return;
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  tqh_diags_add(p->diags, TQH_WARNING, file, 0, "%s", msg);
}

static void read_run_json(page_t *p) {
  tq_buf_t path, text;
  tq_buf_init(&path, 0);
  tq_buf_init(&text, 0);
  tqh_json_t *v = NULL;
  tq_status_t st = tq_buf_printf(&path, "%s/run.json", p->run_dir);
  if (!st) st = tq_file_read(path.data, MAX_RUN_JSON, &text);
  if (!st) st = tqh_json_parse(&p->arena, "run.json", text.data ? text.data : "", text.len, &v);
  if (st) {
    warn(p, "run.json", "%s (the page's header shows less)", tq_status_message(st));
    tq_status_free(st);
  } else if (v->kind == TQH_JSON_OBJECT) {
    p->run = v;
  }
  tq_buf_deinit(&path);
  tq_buf_deinit(&text);
}

/* A string member of run.json, or NULL. */
static const char *run_str(const page_t *p, const char *key) {
  const tqh_json_t *v = p->run ? tqh_json_get(p->run, key) : NULL;
  return v && v->kind == TQH_JSON_STRING ? v->string : NULL;
}

static const char *page_css =
    "body{font:14px/1.4 system-ui,sans-serif;margin:16px 24px;color:#222}"
    "h1{font-size:22px;margin:0 0 8px}h2{font-size:17px;margin:0 0 6px}"
    "h3{font-size:14px;margin:12px 0 4px}"
    "table{border-collapse:collapse}td,th{padding:2px 8px;border-bottom:1px solid #ddd;"
    "text-align:left;vertical-align:top}"
    "th{background:#f3f3f3}table.sortable th{cursor:pointer}td.n{text-align:right}"
    "dl{display:grid;grid-template-columns:max-content auto;gap:0 12px;margin:0}dt{color:#666}"
    "dd{margin:0}section.test{border-top:2px solid #ccc;padding:12px 0;margin-top:12px}"
    ".o-passed,.o-xfailed{color:#17702b}.o-failed,.o-error{color:#b3261e}"
    ".o-skipped,.o-not_run,.o-xpassed{color:#8a6d00}.chip{margin-right:12px;font-weight:600}"
    ".note{color:#8a6d00;font-style:italic}.msg{white-space:pre-wrap}"
    "pre{background:#f7f7f7;padding:6px;overflow:auto;max-height:320px}"
    ".m{display:grid;grid-template-columns:120px 420px auto;gap:8px;align-items:center}"
    ".bar{background:#eee;height:10px}.bar i{display:block;height:10px;background:#3b6ea8}"
    ".stack{display:flex;width:560px;height:12px;background:#eee}.stack i{display:block}"
    ".k0{background:#7e57c2}.k1{background:#3b6ea8}.k2{background:#9e9e9e}"
    ".v-regression{color:#b3261e;font-weight:600}.v-improvement{color:#17702b;font-weight:600}"
    ".v-unchanged{color:#666}"
    "svg.timeline{display:block;margin:4px 0}svg text{font:11px sans-serif}"
    "svg .th{font-weight:bold}svg .tl{text-anchor:middle;fill:#555}svg .tick{stroke:#ddd}"
    ".c0{fill:#3b6ea8}.c1{fill:#e07b39}.c2{fill:#4caf50}.c3{fill:#c2185b}.c4{fill:#7e57c2}"
    ".c5{fill:#00897b}.c6{fill:#8d6e63}.c7{fill:#5c6bc0}"
    ".legend{margin:4px 0 8px}.legend span{margin-right:14px}.legend i{display:inline-block;"
    "width:10px;height:10px;margin-right:4px;vertical-align:middle}"
    ".share{display:inline-block;width:60px;height:8px;background:#eee;vertical-align:middle}"
    ".share i{display:block;height:8px;background:#e07b39}"
    "#filter{position:sticky;top:0;background:#fff;padding:6px 0;border-bottom:1px solid #ddd;"
    "z-index:1}#filter label{margin-right:10px}#filter input[type=search]{width:260px}"
    "details.t>summary{list-style:none;cursor:pointer}details.t>summary h2{display:inline}"
    "details.t>summary::before{content:'\\25B8 ';color:#888}"
    "details.t[open]>summary::before{content:'\\25BE ';color:#888}"
    "ul.files{margin:4px 0;padding-left:18px;columns:3}";

/* Sorts the table whose header is clicked: numeric columns (class "n") by their cells'
 * data-v, the others as text; a second click reverses. The headers get a tooltip saying so. */
static const char *page_js =
    "document.querySelectorAll('table.sortable th').forEach(function(th,i){"
    "th.title='Click to sort';th.addEventListener('click',function(){var "
    "b=th.closest('table').tBodies[0],"
    "d=th.dataset.dir==='a'?-1:1,num=th.classList.contains('n');th.dataset.dir=d>0?'a':'d';"
    "function v(r){var c=r.cells[i];if(!num)return c.textContent;var x=parseFloat(c.dataset.v);"
    "return isNaN(x)?-Infinity:x;}"
    "Array.from(b.rows).sort(function(x,y){var a=v(x),c=v(y);"
    "return d*(num?(a<c?-1:a>c?1:0):a.localeCompare(c));})"
    ".forEach(function(r){b.appendChild(r);});});});"
    /* The filter: the outcomes ticked and the text typed hide the other rows and sections;
     * #q=TEXT&outcome=failed,error in the address presets it, #t-ID opens that test. */
    "var q=document.getElementById('q'),boxes=document.querySelectorAll('input.fo'),"
    "shown=document.getElementById('shown');"
    "function apply(){var t=q.value.toLowerCase(),on={},n=0,all=0;"
    "boxes.forEach(function(b){on[b.value]=b.checked;});"
    "document.querySelectorAll('[data-outcome]').forEach(function(e){"
    "var ok=on[e.dataset.outcome]!==false&&e.dataset.f.toLowerCase().indexOf(t)>=0;e.hidden=!ok;"
    "if(e.tagName==='TR'){all++;n+=ok?1:0;}});"
    "shown.textContent=n+' of '+all+' tests shown';}"
    "function preset(){var h=decodeURIComponent(location.hash.slice(1));"
    "if(h.indexOf('t-')===0){var s=document.getElementById(h);"
    "var d=s&&s.querySelector('details.t');if(d)d.open=true;return;}"
    "h.split('&').forEach(function(kv){var i=kv.indexOf('='),k=kv.slice(0,i),x=kv.slice(i+1);"
    "if(k==='q')q.value=x;if(k==='outcome'){var w=x.split(',');"
    "boxes.forEach(function(b){b.checked=w.indexOf(b.value)>=0;});}});apply();}"
    "q.addEventListener('input',apply);boxes.forEach(function(b){b.addEventListener('change',apply);});"
    "window.addEventListener('hashchange',preset);preset();";

static double metric_us(const tqh_test_record_t *r, const char *name, int *found) {
  for (size_t i = 0; i < r->metric_count; i++)
    if (r->metrics[i].name && !strcmp(r->metrics[i].name, name)) {
      *found = 1;
      return r->metrics[i].us;
    }
  *found = 0;
  return 0;
}

static uint64_t ns_of(double v, double scale) {
  double ns = v * scale;
  if (!isfinite(ns) || ns <= 0) return 0;
  return ns >= 1.8e19 ? UINT64_MAX : (uint64_t)llround(ns);
}

static tq_status_t duration(tq_buf_t *out, double v, double scale) {
  char d[32];
  tqh_format_duration(ns_of(v, scale), d);
  return esc(out, d);
}

static const char *cache_name(tqh_cache_t c) {
  return c == TQH_CACHE_HIT ? "hit" : c == TQH_CACHE_MISS ? "miss" : "";
}

/* The verdict of one baseline row in the page's words, also its CSS class. */
static const char *verdict(tqh_baseline_change_t c) {
  return c == TQH_BASELINE_REGRESSED  ? "regression"
         : c == TQH_BASELINE_IMPROVED ? "improvement"
                                      : "unchanged";
}

/* Compares every shown test with the baseline, once: the summary row and the test's section
 * both show it. A test has no comparison when it is not in the baseline or did not run. */
static tq_status_t compare_all(page_t *p) {
  if (!p->baseline) return NULL;
  p->cmp = tq_calloc(p->count + 1, sizeof(*p->cmp));
  p->compared = tq_calloc(p->count + 1, 1);
  if (!p->cmp || !p->compared) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  for (size_t k = 0; k < p->count; k++) {
    const tqh_test_record_t *r = &p->records->items[p->order[k]];
    if (r->outcome == TQH_OUTCOME_SKIPPED || r->outcome == TQH_OUTCOME_NOT_RUN) continue;
    int found = 0;
    TQ_TRY(tqh_baseline_compare_record(p->baseline, r, -1, NULL, 0, &p->cmp[k], &found));
    p->compared[k] = (unsigned char)found;
  }
  return NULL;
}

static tq_status_t header(page_t *p, tq_buf_t *out) {
  const char *id = run_str(p, "run_id");
  const char *slash = strrchr(p->run_dir, '/');
  if (!id) id = slash && slash[1] ? slash + 1 : p->run_dir;
  TQ_TRY(tq_buf_append_cstr(out,
                            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                            "<title>Torq bench run "));
  TQ_TRY(esc(out, id));
  TQ_TRY(
      tq_buf_printf(out, "</title><style>%s</style></head>\n<body>\n<header><h1>Run ", page_css));
  TQ_TRY(esc(out, id));
  TQ_TRY(tq_buf_append_cstr(out, "</h1><dl>"));
  static const char *const fields[][2] = {
      {"started_at", "Started"}, {"finished_at", "Finished"},
      {"hostname", "Host"},      {"target", "Target"},
      {"board", "Board"},        {"tool_version", "Tool"},
      {"git_revision", "Git"},   {"command_line", "Command line"}};
  for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
    const char *v = run_str(p, fields[i][0]);
    if (!v) continue;
    TQ_TRY(tq_buf_printf(out, "<dt>%s</dt><dd>", fields[i][1]));
    TQ_TRY(esc(out, v));
    TQ_TRY(tq_buf_append_cstr(out, "</dd>"));
  }
  if (p->baseline) {
    TQ_TRY(tq_buf_append_cstr(out, "<dt>Baseline</dt><dd>"));
    TQ_TRY(esc(out, tqh_baseline_describe(p->baseline)));
    TQ_TRY(tq_buf_printf(out, " (floor %.1f%%)</dd>", tqh_baseline_options(p->baseline)->floor_pct));
  }
  if (p->trends) {
    TQ_TRY(tq_buf_append_cstr(out, "<dt>Trends</dt><dd><a id=\"trends\" href=\""));
    TQ_TRY(esc(out, p->trends));
    TQ_TRY(tq_buf_append_cstr(out, "\">across the run history</a></dd>"));
  }
  size_t counts[TQH_OUTCOME_COUNT] = {0};
  for (size_t i = 0; i < p->count; i++) {
    tqh_outcome_t o = p->records->items[p->order[i]].outcome;
    if (o < TQH_OUTCOME_COUNT) counts[o]++;
  }
  TQ_TRY(tq_buf_printf(out, "</dl>\n<p class=\"counts\"><span class=\"chip\">%zu test%s</span>",
                       p->count, p->count == 1 ? "" : "s"));
  for (int o = 0; o < TQH_OUTCOME_COUNT; o++) {
    if (!counts[o]) continue;
    const char *name = tqh_outcome_name((tqh_outcome_t)o);
    TQ_TRY(tq_buf_printf(out, "<span class=\"chip o-%s\">%zu %s</span>", name, counts[o], name));
  }
  return tq_buf_append_cstr(out, "</p></header>\n");
}

/* What the filter reads: data-outcome and data-f (the id and the message, searched as text). */
static tq_status_t filter_attrs(const tqh_test_record_t *r, tq_buf_t *out) {
  TQ_TRY(tq_buf_printf(out, " data-outcome=\"%s\" data-f=\"", tqh_outcome_name(r->outcome)));
  TQ_TRY(esc(out, tqh_record_test_id(r)));
  if (r->message) {
    TQ_TRY(tq_buf_putc(out, ' '));
    TQ_TRY(esc(out, r->message));
  }
  return tq_buf_putc(out, '"');
}

static tq_status_t summary_row(const page_t *p, size_t k, tq_buf_t *out) {
  const tqh_test_record_t *r = &p->records->items[p->order[k]];
  const char *o = tqh_outcome_name(r->outcome);
  TQ_TRY(tq_buf_append_cstr(out, "<tr"));
  TQ_TRY(filter_attrs(r, out));
  TQ_TRY(tq_buf_append_cstr(out, "><td><a href=\"#t-"));
  TQ_TRY(esc(out, tqh_record_test_id(r)));
  TQ_TRY(tq_buf_append_cstr(out, "\">"));
  TQ_TRY(esc(out, tqh_record_test_id(r)));
  TQ_TRY(tq_buf_append_cstr(out, "</a></td><td>"));
  TQ_TRY(esc(out, r->classname));
  TQ_TRY(tq_buf_printf(out, "</td><td class=\"o-%s\">%s</td>", o, o));
  if (r->has_wall_time) {
    TQ_TRY(tq_buf_printf(out, "<td class=\"n\" data-v=\"%.9g\">", r->wall_time_s));
    TQ_TRY(duration(out, r->wall_time_s, 1e9));
  } else {
    TQ_TRY(tq_buf_append_cstr(out, "<td class=\"n\" data-v=\"\">"));
  }
  int has = 0;
  double overall = metric_us(r, TQH_METRIC_OVERALL, &has);
  if (has) {
    TQ_TRY(tq_buf_printf(out, "</td><td class=\"n\" data-v=\"%.9g\">", overall));
    TQ_TRY(duration(out, overall, 1e3));
  } else {
    TQ_TRY(tq_buf_append_cstr(out, "</td><td class=\"n\" data-v=\"\">"));
  }
  TQ_TRY(tq_buf_printf(out, "</td><td>%s</td>", cache_name(r->cache)));
  if (p->baseline) {
    const tqh_baseline_comparison_t *c = &p->cmp[k];
    const char *v = "not in the baseline";
    if (p->compared[k])
      v = c->regressions ? "regression" : c->improvements ? "improvement" : "unchanged";
    TQ_TRY(tq_buf_printf(out, "<td class=\"v-%s\">%s</td>", v[0] == 'n' ? "none" : v, v));
  }
  TQ_TRY(tq_buf_append_cstr(out, "<td class=\"msg\">"));
  TQ_TRY(esc(out, r->message));
  return tq_buf_append_cstr(out, "</td></tr>\n");
}

/* The filter: a checkbox per outcome present, a text box, and how many tests are shown. */
static tq_status_t filter_bar(const page_t *p, tq_buf_t *out) {
  size_t counts[TQH_OUTCOME_COUNT] = {0};
  for (size_t k = 0; k < p->count; k++) {
    tqh_outcome_t o = p->records->items[p->order[k]].outcome;
    if ((unsigned)o < TQH_OUTCOME_COUNT) counts[o]++;
  }
  TQ_TRY(tq_buf_append_cstr(out, "<div id=\"filter\">Show: "));
  for (int o = 0; o < TQH_OUTCOME_COUNT; o++) {
    if (!counts[o]) continue;
    const char *name = tqh_outcome_name((tqh_outcome_t)o);
    TQ_TRY(tq_buf_printf(out,
                         "<label class=\"o-%s\"><input type=\"checkbox\" class=\"fo\" "
                         "value=\"%s\" checked> %s (%zu)</label>",
                         name, name, name, counts[o]));
  }
  return tq_buf_printf(out,
                       " <input type=\"search\" id=\"q\" placeholder=\"filter by test id or "
                       "message\"> <span id=\"shown\">%zu of %zu tests shown</span></div>\n",
                       p->count, p->count);
}

/* The time by operator summed over every test of the run. */
static tq_status_t run_ops(const page_t *p, tq_buf_t *out) {
  TQ_TRY(tq_buf_append_cstr(out,
                            "<h2>Where the time went, by operator (all tests)</h2>\n<p>The "
                            "profiled invocation of each test (its annotated.csv), summed: a "
                            "fused NPU program counts once, under its chain of operators.</p>\n"));
  return tqh__html_ops(&p->run_ops, "No test of this run has an annotated profile.", out);
}

static tq_status_t summary_table(const page_t *p, tq_buf_t *out) {
  TQ_TRY(filter_bar(p, out));
  TQ_TRY(tq_buf_printf(out,
                       "<h2>Tests</h2>\n<table class=\"sortable\" id=\"summary\"><thead><tr>"
                       "<th>Test</th><th>Suite</th><th>Outcome</th><th class=\"n\">Wall time "
                       "(median)</th><th class=\"n\">OVERALL</th><th>Cache</th>%s"
                       "<th>Message</th></tr></thead><tbody>\n",
                       p->baseline ? "<th>Baseline</th>" : ""));
  for (size_t k = 0; k < p->count; k++) TQ_TRY(summary_row(p, k, out));
  TQ_TRY(tq_buf_append_cstr(out, "</tbody></table>\n"));
  const tqh_test_record_t **shown = tq_calloc(p->count + 1, sizeof(*shown));
  if (!shown) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  for (size_t k = 0; k < p->count; k++) shown[k] = &p->records->items[p->order[k]];
  tq_status_t st = tqh__html_recon_summary(shown, p->count, out);
  tq_free((void *)shown);
  return st ? st : run_ops(p, out);
}

static tq_status_t fact(tq_buf_t *out, const char *name, const char *value) {
  if (!value || !*value) return NULL;
  TQ_TRY(tq_buf_printf(out, "<dt>%s</dt><dd>", name));
  TQ_TRY(esc(out, value));
  return tq_buf_append_cstr(out, "</dd>");
}

static tq_status_t facts(const tqh_test_record_t *r, tq_buf_t *out) {
  TQ_TRY(tq_buf_append_cstr(out, "<dl>"));
  TQ_TRY(fact(out, "Suite", r->classname));
  TQ_TRY(fact(out, "Model", r->model));
  TQ_TRY(fact(out, "Host", r->host));
  TQ_TRY(fact(out, "Failure type", r->failure_type));
  if (r->has_wall_time) {
    char med[32], mad[32];
    tqh_format_duration(ns_of(r->wall_time_s, 1e9), med);
    tqh_format_duration(ns_of(r->wall_stats.mad, 1e9), mad);
    TQ_TRY(tq_buf_printf(out, "<dt>Wall time</dt><dd>median %s, MAD %s, %zu run%s</dd>", med, mad,
                         r->wall_stats.n, r->wall_stats.n == 1 ? "" : "s"));
  }
  TQ_TRY(fact(out, "Cache", cache_name(r->cache)));
  for (size_t i = 0; i < r->property_count; i++)
    TQ_TRY(fact(out, r->properties[i].key, r->properties[i].value));
  return tq_buf_append_cstr(out, "</dl>\n");
}

/* Where the test's time went: compile, run, and the rest (annotation, reports). */
static tq_status_t test_time(const tqh_test_record_t *r, tq_buf_t *out) {
  double total = r->duration_s;
  if (!(total > 0)) return NULL;
  double part[3] = {r->compile_s > 0 ? r->compile_s : 0, r->run_s > 0 ? r->run_s : 0, 0};
  part[2] = total - part[0] - part[1];
  if (part[2] < 0) part[2] = 0;
  static const char *const names[3] = {"compile", "run", "other"};
  double sum = part[0] + part[1] + part[2];
  TQ_TRY(tq_buf_append_cstr(out, "<h3>Test time</h3><div class=\"stack\">"));
  for (int k = 0; k < 3; k++) {
    char d[32];
    tqh_format_duration(ns_of(part[k], 1e9), d);
    TQ_TRY(tq_buf_printf(out, "<i class=\"k%d\" style=\"width:%.2f%%\" title=\"%s %s\"></i>", k,
                         sum > 0 ? part[k] / sum * 100 : 0, names[k], d));
  }
  /* The legend: each color, what it is, how long. */
  TQ_TRY(tq_buf_append_cstr(out, "</div><div class=\"legend\">"));
  static const char *const what[3] = {"in the compiler (0 on a cache hit)",
                                      "running: inputs, module, invocations, reference",
                                      "the rest: profile, annotation, reports"};
  for (int k = 0; k < 3; k++) {
    TQ_TRY(tq_buf_printf(out, "<span title=\"%s\"><i class=\"k%d\"></i>%s ", what[k], k,
                         names[k]));
    TQ_TRY(duration(out, part[k], 1e9));
    TQ_TRY(tq_buf_append_cstr(out, "</span>"));
  }
  return tq_buf_append_cstr(out, "</div>\n");
}

static tq_status_t overview_bars(const tqh_test_record_t *r, tq_buf_t *out) {
  if (!r->metric_count) return NULL;
  int has = 0;
  double whole = metric_us(r, TQH_METRIC_OVERALL, &has);
  for (size_t i = 0; !(whole > 0) && i < r->metric_count; i++)
    if (r->metrics[i].us > whole) whole = r->metrics[i].us;
  TQ_TRY(tq_buf_append_cstr(out, "<h3>Host Profile Overview</h3>\n"));
  for (size_t i = 0; i < r->metric_count; i++) {
    double us = r->metrics[i].us, pct = whole > 0 ? us / whole * 100 : 0;
    if (!(pct >= 0)) pct = 0;
    if (pct > 100) pct = 100;
    TQ_TRY(tq_buf_append_cstr(out, "<div class=\"m\"><span>"));
    TQ_TRY(esc(out, r->metrics[i].name));
    TQ_TRY(tq_buf_printf(out,
                         "</span><span class=\"bar\"><i style=\"width:%.2f%%\"></i></span>"
                         "<span>",
                         pct));
    TQ_TRY(duration(out, us, 1e3));
    if (has && strcmp(r->metrics[i].name, TQH_METRIC_OVERALL) != 0) {
      char share[32];
      tqh_format_percent(ns_of(us, 1e3), ns_of(whole, 1e3), share);
      TQ_TRY(tq_buf_printf(out, " (%s)", share));
    }
    TQ_TRY(tq_buf_append_cstr(out, "</span></div>\n"));
  }
  return NULL;
}

static tq_status_t value(tq_buf_t *out, double v, const char *unit) {
  char text[48];
  tqh_baseline_format_value(v, unit, text);
  return esc(out, text);
}

static tq_status_t baseline_table(const page_t *p, size_t k, tq_buf_t *out) {
  if (!p->baseline) return NULL;
  TQ_TRY(tq_buf_append_cstr(out, "<h3>Against the baseline</h3>\n"));
  if (!p->compared[k])
    return tq_buf_append_cstr(out, "<p class=\"note\">Not in the baseline.</p>\n");
  const tqh_baseline_comparison_t *c = &p->cmp[k];
  tq_status_t st = tq_buf_append_cstr(out,
                          "<table class=\"baseline\"><thead><tr><th>Metric</th>"
                          "<th class=\"n\">Baseline</th><th class=\"n\">Now</th>"
                          "<th class=\"n\">Change</th><th>Verdict</th><th>Why</th></tr>"
                          "</thead><tbody>\n");
  for (size_t i = 0; !st && i < c->count; i++) {
    const tqh_baseline_row_t *row = &c->rows[i];
    const char *v = verdict(row->change);
    st = tq_buf_append_cstr(out, "<tr><td>");
    if (!st) st = esc(out, row->metric);
    if (!st) st = tq_buf_append_cstr(out, "</td><td class=\"n\">");
    if (!st) st = value(out, row->base, row->unit);
    if (!st) st = tq_buf_append_cstr(out, "</td><td class=\"n\">");
    if (!st) st = value(out, row->now, row->unit);
    if (!st && isinf(row->change_pct))
      st = tq_buf_printf(out, "</td><td class=\"n v-%s\">%s", v,
                         row->change_pct > 0 ? "+inf%" : "-inf%");
    else if (!st)
      st = tq_buf_printf(out, "</td><td class=\"n v-%s\">%+.1f%%", v, row->change_pct);
    if (!st)
      st = tq_buf_printf(out, "</td><td class=\"v-%s\">%s</td><td class=\"why\">", v,
                         tqh_baseline_change_name(row->change));
    if (!st) {
      tq_buf_t why;
      tq_buf_init(&why, 0);
      st = tqh_baseline_row_why(row, &why);
      if (!st) st = esc(out, why.data ? why.data : "");
      tq_buf_deinit(&why);
    }
    if (!st) st = tq_buf_append_cstr(out, "</td></tr>\n");
  }
  if (!st) st = tq_buf_append_cstr(out, "</tbody></table>\n");
  return st;
}

static int listed(const tqh_test_record_t *r, const char *file) {
  for (size_t i = 0; i < r->file_count; i++)
    if (r->files[i] && !strcmp(r->files[i], file)) return 1;
  return 0;
}

/* The timeline from RUN_DIR/<id>/profile.pb, or a note saying why there is none. */
static tq_status_t timeline(page_t *p, const tqh_test_record_t *r, tq_buf_t *out) {
  TQ_TRY(tq_buf_append_cstr(out, "<h3>Timeline</h3>\n"));
  tq_buf_t path;
  tq_buf_init(&path, 0);
  tq_status_t st = tq_buf_printf(&path, "%s/%s/profile.pb", p->run_dir, r->id);
  struct stat sb;
  if (!st && !tqh_results_id_is_safe(r->id)) {
    st = tq_buf_append_cstr(out,
                            "<p class=\"note\">No profile (the test id is not a folder "
                            "name).</p>\n");
  } else if (!st && stat(path.data, &sb) != 0) {
    st = tq_buf_append_cstr(out, "<p class=\"note\">No profile");
    if (!st && listed(r, "profile.pb")) {
      warn(p, path.data, "recorded in the journal, but missing");
      st = tq_buf_append_cstr(out, ": profile.pb is recorded but missing");
    } else if (!st && r->outcome == TQH_OUTCOME_PASSED) {
      st = tq_buf_append_cstr(out, " (profiling was off)");
    }
    if (!st) st = tq_buf_append_cstr(out, ".</p>\n");
  } else if (!st) {
    tq_buf_t bytes;
    tq_status_t rs = tq_file_read(path.data, TQH_TRACE_MAX_BYTES, &bytes);
    if (!rs && p->have_last && bytes.len == p->last_pb.len &&
        (!bytes.len || !memcmp(bytes.data, p->last_pb.data, bytes.len))) {
      st = tq_buf_append(out, p->last_svg.data ? p->last_svg.data : "", p->last_svg.len);
    } else if (!rs) {
      tqh_trace_t trace;
      rs = tqh_trace_parse(path.data, bytes.data ? bytes.data : "", bytes.len, &trace);
      if (!rs) {
        p->have_last = 0;
        tq_buf_clear(&p->last_svg);
        st = tqh__html_timeline(&trace, TQH_HTML_MAX_RECTS, &p->last_svg);
        if (!st) st = tq_buf_append(out, p->last_svg.data ? p->last_svg.data : "",
                                    p->last_svg.len);
        if (!st) {
          tq_buf_deinit(&p->last_pb);
          p->last_pb = bytes; /* kept for the next test */
          tq_buf_init(&bytes, 0);
          p->have_last = 1;
        }
      }
      tqh_trace_deinit(&trace);
    }
    tq_buf_deinit(&bytes);
    if (rs) {
      warn(p, path.data, "%s (no timeline in the report)", tq_status_message(rs));
      st = tq_buf_append_cstr(out, "<p class=\"note\">The profile could not be read: ");
      if (!st) st = esc(out, tq_status_message(rs));
      if (!st) st = tq_buf_append_cstr(out, "</p>\n");
      tq_status_free(rs);
    }
  }
  tq_buf_deinit(&path);
  return st;
}

/* `s` escaped for a path in a URL: the bytes of a folder name but letters, digits and ._~-+ as
 * %XX (its own '%' too), then escaped for HTML. */
static tq_status_t url_path(tq_buf_t *out, const char *s) {
  for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
    if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
        strchr("._~-+", *c))
      TQ_TRY(tq_buf_putc(out, (char)*c));
    else
      TQ_TRY(tq_buf_printf(out, "%%%02X", *c));
  }
  return NULL;
}

static tq_status_t file_link(tq_buf_t *out, const tqh_test_record_t *r, const char *file) {
  TQ_TRY(tq_buf_append_cstr(out, "<li><a href=\""));
  TQ_TRY(url_path(out, r->id));
  TQ_TRY(tq_buf_putc(out, '/'));
  TQ_TRY(url_path(out, file));
  TQ_TRY(tq_buf_append_cstr(out, "\">"));
  TQ_TRY(esc(out, file));
  return tq_buf_append_cstr(out, "</a></li>");
}

/* Links to every file of the test (its folder, relative to index.html), and how to open the
 * profile in Perfetto. */
static tq_status_t files(const tqh_test_record_t *r, tq_buf_t *out) {
  if (!tqh_results_id_is_safe(r->id)) return NULL;
  TQ_TRY(tq_buf_append_cstr(out, "<h3>Files</h3><ul class=\"files\">"));
  TQ_TRY(file_link(out, r, "report.json"));
  if (r->has_wall_time) TQ_TRY(file_link(out, r, "wall_time.txt"));
  for (size_t i = 0; i < r->file_count; i++)
    if (r->files[i] && *r->files[i]) TQ_TRY(file_link(out, r, r->files[i]));
  TQ_TRY(tq_buf_append_cstr(out, "</ul>\n"));
  if (!listed(r, "profile.pb")) return NULL;
  return tq_buf_append_cstr(out,
                            "<p class=\"hint\">profile.pb is a Perfetto trace: open "
                            "<a href=\"https://ui.perfetto.dev\">ui.perfetto.dev</a>, choose "
                            "<i>Open trace file</i> and pick it (the trace is read in your browser, "
                            "not uploaded). profile.xlsx is the same table as annotated.csv.</p>\n");
}

/* The test's time by operator, from its annotated.csv. */
static tq_status_t test_ops(const page_t *p, size_t k, tq_buf_t *out) {
  if (p->no_ops[k] == 1) return NULL; /* no profile: the timeline says why */
  TQ_TRY(tq_buf_append_cstr(out, "<h3>Where the time went, by operator</h3>\n"));
  return tqh__html_ops(&p->ops[k],
                       p->no_ops[k] == 2 ? "annotated.csv could not be read (see the run's output)"
                                         : "The annotated profile has no action.",
                       out);
}

static tq_status_t section(page_t *p, size_t k, tq_buf_t *out) {
  const tqh_test_record_t *r = &p->records->items[p->order[k]];
  const char *o = tqh_outcome_name(r->outcome);
  int bad = r->outcome == TQH_OUTCOME_FAILED || r->outcome == TQH_OUTCOME_ERROR;
  /* Collapsed beyond OPEN_SECTIONS tests, but for the failed ones (which come first). */
  int open = k < OPEN_SECTIONS && (p->count <= OPEN_SECTIONS || bad);
  TQ_TRY(tq_buf_append_cstr(out, "<section"));
  TQ_TRY(filter_attrs(r, out));
  TQ_TRY(tq_buf_append_cstr(out, " class=\"test\" id=\"t-"));
  TQ_TRY(esc(out, tqh_record_test_id(r)));
  TQ_TRY(tq_buf_printf(out, "\"><details class=\"t\"%s><summary><h2>", open ? " open" : ""));
  TQ_TRY(esc(out, tqh_record_test_id(r)));
  TQ_TRY(tq_buf_printf(out, " <span class=\"o-%s\">%s</span></h2></summary>\n", o, o));
  if (r->message && *r->message) {
    TQ_TRY(tq_buf_append_cstr(out, "<p class=\"msg\">"));
    TQ_TRY(esc(out, r->message));
    TQ_TRY(tq_buf_append_cstr(out, "</p>\n"));
  }
  if (r->text && *r->text) {
    size_t n = strlen(r->text);
    TQ_TRY(tq_buf_append_cstr(out, "<details><summary>Details</summary><pre>"));
    TQ_TRY(tqh_html_escape(r->text, n > MAX_TEXT ? MAX_TEXT : n, out));
    TQ_TRY(tq_buf_printf(out, "%s</pre></details>\n", n > MAX_TEXT ? "\n[...]" : ""));
  }
  TQ_TRY(facts(r, out));
  TQ_TRY(files(r, out));
  TQ_TRY(test_time(r, out));
  TQ_TRY(test_ops(p, k, out));
  TQ_TRY(timeline(p, r, out));
  TQ_TRY(overview_bars(r, out));
  TQ_TRY(tqh__html_recon_table(r, out));
  TQ_TRY(baseline_table(p, k, out));
  return tq_buf_append_cstr(out, "</details></section>\n");
}

/* Failed and errored tests first, then as they started (run order). */
static int shown_order(const void *a, const void *b, void *ctx) {
  const tqh_test_record_t *items = ctx;
  const tqh_test_record_t *x = &items[*(const size_t *)a], *y = &items[*(const size_t *)b];
  int bx = x->outcome == TQH_OUTCOME_FAILED || x->outcome == TQH_OUTCOME_ERROR;
  int by = y->outcome == TQH_OUTCOME_FAILED || y->outcome == TQH_OUTCOME_ERROR;
  if (bx != by) return bx ? -1 : 1;
  if (x->started_at != y->started_at) return x->started_at < y->started_at ? -1 : 1;
  size_t i = *(const size_t *)a, j = *(const size_t *)b;
  return (i > j) - (i < j);
}

/* Every shown test's time by operator, and their sum over the run. */
static tq_status_t read_ops(page_t *p) {
  p->ops = tq_calloc(p->count + 1, sizeof(*p->ops));
  p->no_ops = tq_calloc(p->count + 1, 1);
  if (!p->ops || !p->no_ops) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  tq_buf_t path;
  tq_buf_init(&path, 0);
  tq_status_t st = NULL;
  for (size_t k = 0; !st && k < p->count; k++) {
    const tqh_test_record_t *r = &p->records->items[p->order[k]];
    tqh_op_table_init(&p->ops[k]);
    if (!listed(r, "annotated.csv") || !tqh_results_id_is_safe(r->id)) {
      p->no_ops[k] = 1;
      continue;
    }
    tq_buf_clear(&path);
    st = tq_buf_printf(&path, "%s/%s/annotated.csv", p->run_dir, r->id);
    tq_status_t rs = st ? NULL : tqh_op_table_read(&p->ops[k], path.data, p->diags);
    if (rs && tq_status_code(rs) == TQ_OUT_OF_MEMORY) {
      st = rs;
    } else if (rs) {
      warn(p, path.data, "%s (no operator table in the report)", tq_status_message(rs));
      tq_status_free(rs);
      p->no_ops[k] = 2;
    }
    tqh_op_table_sort(&p->ops[k]);
    for (size_t i = 0; !st && i < p->ops[k].count; i++)
      st = tqh_op_table_add(&p->run_ops, p->ops[k].ops[i].name, p->ops[k].ops[i].us,
                            p->ops[k].ops[i].count);
  }
  tqh_op_table_sort(&p->run_ops);
  tq_buf_deinit(&path);
  return st;
}

static tq_status_t render(page_t *p, tqh_out_file_t *file) {
  tq_buf_t *out = &file->buf;
  TQ_TRY(header(p, out));
  TQ_TRY(summary_table(p, out));
  for (size_t k = 0; k < p->count; k++) {
    TQ_TRY(section(p, k, out));
    TQ_TRY(tqh_out_file_maybe_flush(file));
  }
  return tq_buf_printf(out, "<script>%s</script>\n</body></html>\n", page_js);
}

/* `given`: the journal's records when the caller has them, else NULL (read here). */
static tq_status_t write_page(const char *run_dir, const tqh_records_t *given,
                              tqh_baseline_t *baseline, const char *trends_href,
                              tqh_diags_t *diags) {
  page_t p;
  memset(&p, 0, sizeof(p));
  p.run_dir = run_dir;
  p.baseline = baseline;
  p.trends = trends_href;
  p.diags = diags;
  tqh_records_init(&p.own);
  p.records = given ? given : &p.own;
  tq_arena_init(&p.arena, 0, 0);
  tq_buf_init(&p.last_pb, 0);
  tq_buf_init(&p.last_svg, 0);
  tq_buf_t path;
  tq_buf_init(&path, 0);
  tq_status_t st = NULL;
  if (!given) {
    st = tq_buf_printf(&path, "%s/journal.jsonl", run_dir);
    struct stat sb;
    if (!st && stat(path.data, &sb) != 0)
      st = TQ_STATUS(TQ_NOT_FOUND, "%s: no journal (%s): %s", run_dir, path.data,
                     strerror(errno));
    tqh_journal_read_t info;
    if (!st) st = tqh_journal_read(path.data, &p.own, diags, &info);
  }
  if (!st) st = tqh_records_latest(p.records, &p.order, &p.count);
  if (!st) qsort_r(p.order, p.count, sizeof(*p.order), shown_order, p.records->items);
  if (!st) st = compare_all(&p);
  if (!st) st = read_ops(&p);
  if (!st) read_run_json(&p);
  tq_buf_clear(&path);
  if (!st) st = tq_buf_printf(&path, "%s/" TQH_HTML_REPORT_FILE, run_dir);
  tqh_out_file_t file;
  if (!st) st = tqh_out_file_open(&file, path.data);
  if (!st) {
    st = render(&p, &file);
    if (st)
      tqh_out_file_abort(&file);
    else
      st = tqh_out_file_commit(&file);
  }
  if (st) st = tq_status_annotate(st, "while writing the HTML report of %s", run_dir);
  tq_buf_deinit(&path);
  for (size_t k = 0; p.cmp && k < p.count; k++) tqh_baseline_comparison_deinit(&p.cmp[k]);
  tq_free(p.cmp);
  tq_free(p.compared);
  for (size_t k = 0; p.ops && k < p.count; k++) tqh_op_table_deinit(&p.ops[k]);
  tq_free(p.ops);
  tq_free(p.no_ops);
  tqh_op_table_deinit(&p.run_ops);
  tq_buf_deinit(&p.last_pb);
  tq_buf_deinit(&p.last_svg);
  tq_free(p.order);
  tq_arena_deinit(&p.arena);
  tqh_records_deinit(&p.own);
  return st;
}

tq_status_t tqh_html_report_write(const char *run_dir, tqh_baseline_t *baseline,
                                  const char *trends_href, tqh_diags_t *diags) {
  return write_page(run_dir, NULL, baseline, trends_href, diags);
}

tq_status_t tqh_html_report_write_records(const char *run_dir, const tqh_records_t *records,
                                          tqh_baseline_t *baseline, const char *trends_href,
                                          tqh_diags_t *diags) {
  return write_page(run_dir, records, baseline, trends_href, diags);
}
