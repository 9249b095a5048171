/* JUnit XML from test records (junit.h). The records come from the journal, so that a run and a
 * rebuild render the same bytes; nothing here reads clocks or the environment. */
#include "torq/harness/json.h"
#include "torq/harness/junit.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "results_internal.h"
#include "torq/base/alloc.h"
#include "torq/harness/overview.h"

void tqh_junit_options_initialize(tqh_junit_options_t *options) {
  options->name = "torq-test";
  options->hostname = "localhost";
  options->run_dir = NULL;
}

tq_status_t tqh_xml_escape(const char *text, size_t len, int attribute, tq_buf_t *out) {
  const unsigned char *p = (const unsigned char *)text;
  size_t i = 0, run = 0; /* bytes [i - run, i) are plain and not yet copied */
  while (i < len) {
    unsigned char c = p[i];
    const char *rep = NULL;
    size_t adv = 1;
    switch (c) {
      case '&':
        rep = "&amp;";
        break;
      case '<':
        rep = "&lt;";
        break;
      case '>':
        rep = "&gt;";
        break;
      case '"':
        rep = "&quot;";
        break;
      case '\'':
        rep = "&apos;";
        break;
      case '\r':
        rep = "&#13;";
        break; /* a raw CR is normalized away by parsers */
      case '\t':
        rep = attribute ? "&#9;" : NULL;
        break;
      case '\n':
        rep = attribute ? "&#10;" : NULL;
        break;
      default:
        if (c < 0x20 || c == 0x7F) {
          rep = "\xEF\xBF\xBD"; /* XML 1.0 cannot hold these even as references */
        } else if (c >= 0x80) {
          uint32_t cp;
          adv = tqh_utf8_decode(p + i, len - i, &cp);
          if (!adv || cp == 0xFFFE || cp == 0xFFFF) {
            rep = "\xEF\xBF\xBD";
            if (!adv) adv = 1;
          }
        }
    }
    if (!rep) {
      run += adv;
      i += adv;
      continue;
    }
    TQ_TRY(tq_buf_append(out, text + i - run, run));
    run = 0;
    TQ_TRY(tq_buf_append_cstr(out, rep));
    i += adv;
  }
  return tq_buf_append(out, text + i - run, run);
}

static tq_status_t esc(tq_buf_t *out, const char *s, int attribute) {
  return s ? tqh_xml_escape(s, strlen(s), attribute, out) : NULL;
}

/* ` name="value"` */
/* ` name="`: an attribute up to its value. */
static tq_status_t attr_open(tq_buf_t *out, const char *name) {
  TQ_TRY(tq_buf_putc(out, ' '));
  TQ_TRY(tq_buf_append_cstr(out, name));
  return tq_buf_append(out, "=\"", 2);
}

static tq_status_t attr(tq_buf_t *out, const char *name, const char *value) {
  TQ_TRY(attr_open(out, name));
  TQ_TRY(esc(out, value ? value : "", 1));
  return tq_buf_putc(out, '"');
}

static double nonneg(double v) {
  return isfinite(v) && v > 0 ? v : 0;
}

/* Seconds for people: "207.123ms" (overview.h's format; negative shows as 0ns). */
typedef struct dur_s {
  char text[32];
} dur_t;

static dur_t dur(double seconds) {
  dur_t d;
  double ns = nonneg(seconds) * 1e9;
  tqh_format_duration(ns >= 1.8e19 ? UINT64_MAX : (uint64_t)llround(ns), d.text);
  return d;
}

static tq_status_t attr_seconds(tq_buf_t *out, const char *name, double seconds) {
  TQ_TRY(attr_open(out, name));
  TQ_TRY(tqh_format_fixed(out, nonneg(seconds), 6));
  return tq_buf_putc(out, '"');
}

static tq_status_t attr_count(tq_buf_t *out, const char *name, size_t n) {
  return tq_buf_printf(out, " %s=\"%zu\"", name, n);
}

typedef struct counts_s {
  size_t tests, failures, errors, skipped;
  double time;
} counts_t;

static void count(counts_t *c, const tqh_test_record_t *r) {
  c->tests++;
  c->time += nonneg(r->duration_s);
  switch (r->outcome) {
    case TQH_OUTCOME_FAILED:
      c->failures++;
      break;
    case TQH_OUTCOME_ERROR:
      c->errors++;
      break;
    case TQH_OUTCOME_SKIPPED:
    case TQH_OUTCOME_XFAILED:
    case TQH_OUTCOME_NOT_RUN:
      c->skipped++;
      break;
    default:
      break;
  }
}

static tq_status_t counts_attrs(tq_buf_t *out, const counts_t *c) {
  TQ_TRY(attr_count(out, "tests", c->tests));
  TQ_TRY(attr_count(out, "failures", c->failures));
  TQ_TRY(attr_count(out, "errors", c->errors));
  TQ_TRY(attr_count(out, "skipped", c->skipped));
  return attr_seconds(out, "time", c->time);
}

static tq_status_t property(tq_buf_t *out, const char *name, const char *value) {
  TQ_TRY(tq_buf_append_cstr(out, "        <property"));
  TQ_TRY(attr(out, "name", name));
  TQ_TRY(attr(out, "value", value));
  return tq_buf_append_cstr(out, "/>\n");
}

/* A property of seconds, "%.9f" (its digits need no escaping). */
static tq_status_t property_seconds(tq_buf_t *out, const char *name, double v) {
  TQ_TRY(tq_buf_append_cstr(out, "        <property"));
  TQ_TRY(attr(out, "name", name));
  TQ_TRY(attr_open(out, "value"));
  TQ_TRY(tqh_format_fixed(out, isfinite(v) ? v : 0.0, 9));
  return tq_buf_append_cstr(out, "\"/>\n");
}

/* KEY (the median), KEY_n, KEY_min, ... KEY_ci95_high of a measured time. */
static tq_status_t time_properties(tq_buf_t *out, const char *key, double median,
                                   const tqh_stats_t *st) {
  TQ_TRY(property_seconds(out, key, median));
  char name[64], n[32];
  snprintf(n, sizeof(n), "%zu", st->n);
  snprintf(name, sizeof(name), "%s_n", key);
  TQ_TRY(property(out, name, n));
  const struct {
    const char *suffix;
    double v;
  } f[] = {{"min", st->min},
           {"median", st->median},
           {"mean", st->mean},
           {"stddev", st->stddev},
           {"mad", st->mad},
           {"ci95_low", st->ci95_low},
           {"ci95_high", st->ci95_high}};
  for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
    snprintf(name, sizeof(name), "%s_%s", key, f[i].suffix);
    TQ_TRY(property_seconds(out, name, f[i].v));
  }
  return NULL;
}

static const char *cache_text(tqh_cache_t c) {
  return c == TQH_CACHE_HIT ? "hit" : c == TQH_CACHE_MISS ? "miss" : "none";
}

static tq_status_t properties(tq_buf_t *out, const tqh_test_record_t *r) {
  TQ_TRY(tq_buf_append_cstr(out, "      <properties>\n"));
  TQ_TRY(property(out, "outcome", tqh_outcome_name(r->outcome)));
  if (r->has_wall_time) TQ_TRY(time_properties(out, "wall_time", r->wall_time_s, &r->wall_stats));
  if (r->has_device_time)
    TQ_TRY(time_properties(out, "device_time", r->device_stats.median, &r->device_stats));
  TQ_TRY(property(out, "cache", cache_text(r->cache)));
  TQ_TRY(property_seconds(out, "compile_time", r->compile_s));
  TQ_TRY(property_seconds(out, "run_time", r->run_s));
  if (r->has_estimated_cycles) {
    char cycles[32];
    snprintf(cycles, sizeof(cycles), "%" PRIu64, r->estimated_cycles);
    TQ_TRY(property(out, "estimated_cycles", cycles));
  }
  tq_buf_t tmp;
  tq_buf_init(&tmp, 0);
  tq_status_t s = NULL;
  for (size_t i = 0; !s && i < r->metric_count; i++) {
    tq_buf_clear(&tmp);
    s = tq_buf_printf(&tmp, "overview.%s_us", r->metrics[i].name);
    size_t name_len = tmp.len;
    if (!s) s = tq_buf_putc(&tmp, 0);
    if (!s) s = tqh_format_double(&tmp, r->metrics[i].us);
    if (!s) s = property(out, tmp.data, tmp.data + name_len + 1);
  }
  tq_buf_deinit(&tmp);
  TQ_TRY(s);
  for (size_t i = 0; i < r->property_count; i++)
    TQ_TRY(property(out, r->properties[i].key, r->properties[i].value));
  return tq_buf_append_cstr(out, "      </properties>\n");
}

/* The verdict element: <failure>, <error> or <skipped>; nothing for passes. */
static tq_status_t verdict(tq_buf_t *out, const tqh_test_record_t *r) {
  const char *elem = NULL, *type = r->failure_type, *msg = r->message;
  switch (r->outcome) {
    case TQH_OUTCOME_FAILED:
      elem = "failure";
      if (!type || !*type) type = "failure";
      if (!msg || !*msg) msg = "failed";
      break;
    case TQH_OUTCOME_ERROR:
      elem = "error";
      if (!type || !*type) type = "error";
      if (!msg || !*msg) msg = "error";
      break;
    case TQH_OUTCOME_SKIPPED:
    case TQH_OUTCOME_XFAILED:
    case TQH_OUTCOME_NOT_RUN:
      type = tqh_outcome_name(r->outcome);
      if (!msg || !*msg)
        msg = r->outcome == TQH_OUTCOME_NOT_RUN   ? "not run"
              : r->outcome == TQH_OUTCOME_XFAILED ? "expected failure"
                                                  : "skipped";
      TQ_TRY(tq_buf_append_cstr(out, "      <skipped"));
      TQ_TRY(attr(out, "message", msg));
      TQ_TRY(attr(out, "type", type));
      return tq_buf_append_cstr(out, "/>\n");
    default:
      return NULL;
  }
  /* GitLab shows only the message: repeat the key figure there. */
  TQ_TRY(tq_buf_printf(out, "      <%s message=\"", elem));
  TQ_TRY(esc(out, msg, 1));
  if (r->has_wall_time) TQ_TRY(tq_buf_printf(out, " (wall time %s)", dur(r->wall_time_s).text));
  TQ_TRY(tq_buf_putc(out, '"'));
  TQ_TRY(attr(out, "type", type));
  TQ_TRY(tq_buf_putc(out, '>'));
  TQ_TRY(esc(out, r->text && *r->text ? r->text : msg, 0));
  return tq_buf_printf(out, "</%s>\n", elem);
}

static tq_status_t system_out(tq_buf_t *out, const tqh_test_record_t *r,
                              const tqh_junit_options_t *o) {
  TQ_TRY(tq_buf_append_cstr(out, "      <system-out>"));
  TQ_TRY(tq_buf_printf(out, "outcome: %s\n", tqh_outcome_name(r->outcome)));
  if (r->has_wall_time) {
    const tqh_stats_t *st = &r->wall_stats;
    TQ_TRY(tq_buf_printf(out, "Wall time: %s", dur(r->wall_time_s).text));
    if (st->n > 1)
      TQ_TRY(tq_buf_printf(out,
                           " (median of %zu; min %s, mean %s, stddev %s, MAD %s, "
                           "95%% CI [%s, %s])",
                           st->n, dur(st->min).text, dur(st->mean).text, dur(st->stddev).text,
                           dur(st->mad).text, dur(st->ci95_low).text, dur(st->ci95_high).text));
    TQ_TRY(tq_buf_putc(out, '\n'));
  }
  TQ_TRY(tq_buf_printf(out, "Compile: %s (cache %s), run: %s, total: %s\n", dur(r->compile_s).text,
                       cache_text(r->cache), dur(r->run_s).text, dur(r->duration_s).text));
  for (size_t i = 0; i < r->metric_count; i++) {
    if (strcmp(r->metrics[i].name, TQH_METRIC_OVERALL) != 0) continue;
    TQ_TRY(tq_buf_printf(out, "OVERALL: %s\n", dur(r->metrics[i].us * 1e-6).text));
  }
  for (size_t i = 0; o->run_dir && i < r->file_count; i++) {
    TQ_TRY(tq_buf_append_cstr(out, "[[ATTACHMENT|"));
    TQ_TRY(esc(out, o->run_dir, 0));
    TQ_TRY(tq_buf_putc(out, '/'));
    TQ_TRY(esc(out, r->id, 0));
    TQ_TRY(tq_buf_putc(out, '/'));
    TQ_TRY(esc(out, r->files[i], 0));
    TQ_TRY(tq_buf_append_cstr(out, "]]\n"));
  }
  return tq_buf_append_cstr(out, "</system-out>\n");
}

static tq_status_t testcase(tq_buf_t *out, const tqh_test_record_t *r, const char *classname,
                            const tqh_junit_options_t *o) {
  TQ_TRY(tq_buf_append_cstr(out, "    <testcase"));
  TQ_TRY(attr(out, "classname", classname));
  TQ_TRY(attr(out, "name", r->name));
  TQ_TRY(attr_seconds(out, "time", r->duration_s));
  TQ_TRY(tq_buf_append_cstr(out, ">\n"));
  TQ_TRY(properties(out, r));
  TQ_TRY(verdict(out, r));
  TQ_TRY(system_out(out, r, o));
  return tq_buf_append_cstr(out, "    </testcase>\n");
}

/* Grouping by classname in order of first appearance, in O(n log n): sort (classname, index),
 * then order the groups by their first index. */
typedef struct ix_s {
  const char *classname;
  size_t index;
} ix_t;

static int cmp_ix(const void *a, const void *b) {
  const ix_t *x = a, *y = b;
  int c = strcmp(x->classname, y->classname);
  if (c) return c;
  return (x->index > y->index) - (x->index < y->index);
}

typedef struct group_s {
  size_t first; /* position in the sorted index array */
  size_t count;
  size_t order; /* the record index of the group's first test */
} group_t;

static int cmp_group(const void *a, const void *b) {
  size_t x = ((const group_t *)a)->order, y = ((const group_t *)b)->order;
  return (x > y) - (x < y);
}

static tq_status_t suite(tq_buf_t *out, const tqh_test_record_t *records, const ix_t *ix,
                         const group_t *g, const tqh_junit_options_t *o, tqh__pieces_t *cache) {
  counts_t c = {0};
  double started = 0;
  const char *host = NULL;
  for (size_t k = 0; k < g->count; k++) {
    const tqh_test_record_t *r = &records[ix[g->first + k].index];
    count(&c, r);
    if (r->started_at > 0 && (started == 0 || r->started_at < started)) started = r->started_at;
    if (!host && r->host && *r->host) host = r->host;
  }
  const char *name = ix[g->first].classname;
  TQ_TRY(tq_buf_append_cstr(out, "  <testsuite"));
  TQ_TRY(attr(out, "name", name));
  TQ_TRY(counts_attrs(out, &c));
  if (started > 0 && started < 1e15) {
    time_t t = (time_t)started;
    struct tm tm;
    char text[32];
    if (gmtime_r(&t, &tm) && strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%S", &tm))
      TQ_TRY(attr(out, "timestamp", text));
  }
  TQ_TRY(attr(out, "hostname", host ? host : o->hostname));
  TQ_TRY(tq_buf_append_cstr(out, ">\n"));
  for (size_t k = 0; k < g->count; k++) {
    size_t i = ix[g->first + k].index;
    tq_status_t s;
    if (cache && tqh__pieces_get(cache, i, out, &s)) {
      TQ_TRY(s);
      continue;
    }
    size_t start = out->len;
    TQ_TRY(testcase(out, &records[i], name, o));
    if (cache) TQ_TRY(tqh__pieces_put(cache, i, out, start));
  }
  return tq_buf_append_cstr(out, "  </testsuite>\n");
}

/* `options` (may be NULL) over the defaults. */
static void options_or_defaults(const tqh_junit_options_t *options, tqh_junit_options_t *o) {
  tqh_junit_options_initialize(o);
  if (!options) return;
  if (options->name) o->name = options->name;
  if (options->hostname) o->hostname = options->hostname;
  o->run_dir = options->run_dir;
}

tq_status_t tqh__junit_piece(const tqh_test_record_t *record, size_t i,
                             const tqh_junit_options_t *options, tqh__pieces_t *cache,
                             tq_buf_t *scratch) {
  if (i < cache->count && cache->len[i] != SIZE_MAX) return NULL;
  tqh_junit_options_t o;
  options_or_defaults(options, &o);
  /* The group's name, as tqh__junit_render gives it (the record's classname, else the run's). */
  const char *name = record->classname && *record->classname ? record->classname : o.name;
  tq_buf_clear(scratch);
  TQ_TRY(testcase(scratch, record, name, &o));
  return tqh__pieces_put(cache, i, scratch, 0);
}

tq_status_t tqh_junit_render(const tqh_test_record_t *records, size_t count,
                             const tqh_junit_options_t *options, tq_buf_t *out) {
  return tqh__junit_render(records, count, options, NULL, out);
}

tq_status_t tqh__junit_render(const tqh_test_record_t *records, size_t count_,
                              const tqh_junit_options_t *options, tqh__pieces_t *cache,
                              tq_buf_t *out) {
  tqh_junit_options_t o;
  options_or_defaults(options, &o);
  counts_t total = {0};
  for (size_t i = 0; i < count_; i++) count(&total, &records[i]);
  TQ_TRY(tq_buf_append_cstr(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites"));
  TQ_TRY(attr(out, "name", o.name));
  TQ_TRY(counts_attrs(out, &total));
  TQ_TRY(tq_buf_append_cstr(out, ">\n"));
  if (count_ == 0) return tq_buf_append_cstr(out, "</testsuites>\n");

  ix_t *ix = tq_calloc(count_, sizeof(*ix));
  group_t *groups = tq_calloc(count_, sizeof(*groups));
  tq_status_t s = NULL;
  if (!ix || !groups) s = TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory rendering JUnit XML");
  size_t ngroups = 0;
  if (!s) {
    for (size_t i = 0; i < count_; i++) {
      const char *cn = records[i].classname;
      ix[i].classname = cn && *cn ? cn : o.name;
      ix[i].index = i;
    }
    qsort(ix, count_, sizeof(*ix), cmp_ix);
    for (size_t i = 0; i < count_; i++) {
      if (i == 0 || strcmp(ix[i].classname, ix[i - 1].classname) != 0)
        groups[ngroups++] = (group_t){i, 0, ix[i].index};
      groups[ngroups - 1].count++;
    }
    qsort(groups, ngroups, sizeof(*groups), cmp_group);
  }
  for (size_t g = 0; !s && g < ngroups; g++) s = suite(out, records, ix, &groups[g], &o, cache);
  tq_free(ix);
  tq_free(groups);
  TQ_TRY(s);
  return tq_buf_append_cstr(out, "</testsuites>\n");
}
