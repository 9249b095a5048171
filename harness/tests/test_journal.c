/* The journal and the JSON it holds: the writer's exact output, records that read back equal,
 * appends, and a reader that keeps the valid lines of a damaged journal. */
#include <check.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "results/results_internal.h"
#include "results_testutil.h"
#include "torq/base/alloc.h"
#include "torq/harness/json.h"
#include "tq_test.h"

Suite *journal_suite(void);

/* ---- The JSON writer ------------------------------------------------------------------------ */

static char *write_json(int pretty, void (*fill)(tqh_jw_t *)) {
  tq_buf_t buf;
  tq_buf_init(&buf, 0);
  tqh_jw_t w;
  tqh_jw_init(&w, &buf, pretty);
  fill(&w);
  RT_OK(tqh_jw_finish(&w));
  char *s = tq_buf_detach(&buf);
  tq_buf_deinit(&buf);
  return s;
}

static void fill_mixed(tqh_jw_t *w) {
  tqh_jw_object_begin(w);
  tqh_jw_key(w, "s");
  tqh_jw_string(w, "a\"b\\c\nd\te\x01\x7f/\xc3\xa9");
  tqh_jw_key(w, "bad");
  tqh_jw_stringn(w, "x\xff\xc3y", 4);
  tqh_jw_key(w, "n");
  tqh_jw_array_begin(w);
  tqh_jw_number(w, 0.1);
  tqh_jw_number(w, 0.207123);
  tqh_jw_number(w, -0.0);
  tqh_jw_number(w, 3);
  tqh_jw_number(w, 1e300);
  tqh_jw_number(w, NAN);
  tqh_jw_number(w, 1.0 / 3.0);
  tqh_jw_array_end(w);
  tqh_jw_key(w, "e");
  tqh_jw_object_begin(w);
  tqh_jw_object_end(w);
  tqh_jw_key(w, "t");
  tqh_jw_bool(w, 1);
  tqh_jw_key(w, "z");
  tqh_jw_null(w);
  tqh_jw_key(w, "u");
  tqh_jw_uint(w, 18446744073709551615u);
  tqh_jw_object_end(w);
}

START_TEST(json_writer_escapes_and_formats_numbers_exactly) {
  char *s = write_json(0, fill_mixed);
  ck_assert_str_eq(s, "{\"s\":\"a\\\"b\\\\c\\nd\\te\\u0001\\u007f/\xc3\xa9\","
                      "\"bad\":\"x\xef\xbf\xbd\xef\xbf\xbdy\","
                      "\"n\":[0.1,0.207123,0,3,1e+300,null,0.33333333333333331],"
                      "\"e\":{},\"t\":true,\"z\":null,\"u\":18446744073709551615}");
  tq_free(s);
}
END_TEST

/* The text printf gives: the oracle of tqh_format_double, which writes most numbers without it. */
static void printf_double(double v, char *text, size_t size) {
  if (v == 0) v = 0;
  snprintf(text, size, "%.15g", v);
  if (strtod(text, NULL) != v) snprintf(text, size, "%.17g", v);
}

static uint64_t xorshift(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

/* Doubles of every kind a run writes and the kinds next to them: times in ns as seconds,
 * decimals of up to 12 digits, ratios, halfway decimals (ties at 15 digits), 16-digit integers,
 * the doubles next to powers of ten, powers of two, random bit patterns. */
static double number_of_kind(int kind, uint64_t *s) {
  uint64_t r = xorshift(s), q = xorshift(s);
  double x;
  switch (kind) {
    case 0:
      return (double)(r % 100000000000u) / 1e9;
    case 1:
      return (double)(r % 1000000000000u) / pow(10, (double)(q % 23)) - 1e-3;
    case 2:
      return (double)(r % 1000000) / 1e6 / (double)(q % 97 + 1);
    case 3:
      return ((double)(r % 2000000) + 0.5) / pow(10, (double)(q % 17));
    case 4:
      return (double)(r % 10000000000000000u);
    case 5:
      x = pow(10, (double)(q % 30) - 13);
      memcpy(&r, &x, sizeof(r));
      r += q % 7 - 3;
      memcpy(&x, &r, sizeof(x));
      return x;
    case 6:
      return ldexp(q & 1 ? -1.0 : 1.0, (int)(r % 110) - 55);
    case 7:
      return ldexp((double)(r >> 11), (int)(q % 100) - 90);
    default:
      memcpy(&x, &r, sizeof(x));
      return x;
  }
}

START_TEST(numbers_are_written_as_printf_writes_them) {
  uint64_t seed = 0x9E3779B97F4A7C15u;
  char want[40];
  tq_buf_t got;
  tq_buf_init(&got, 0);
  int kinds = 9, per_kind = 30000, checked = 0;
  for (int kind = 0; kind < kinds; kind++) {
    for (int i = 0; i < per_kind; i++) {
      double v = number_of_kind(kind, &seed);
      if (i & 1) v = -v;
      if (!isfinite(v)) continue;
      printf_double(v, want, sizeof(want));
      tq_buf_clear(&got);
      RT_OK(tqh_format_double(&got, v));
      ck_assert_msg(!strcmp(got.data, want), "%a (kind %d): wrote %s, printf %s", v, kind, got.data,
                    want);
      checked++;
    }
  }
  /* The edges of the range written without printf, and of the rounding up to a power of ten. */
  const double edges[] = {1e-10,
                          9.9999999999999994e-11,
                          1e15,
                          999999999999999.88,
                          0.99999999999999989,
                          9.9999999999999995e-5,
                          1e-4,
                          99999.999999999985,
                          123456789012345.6,
                          0.30000000000000004,
                          5e-324,
                          1.7976931348623157e308};
  for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++) {
    printf_double(edges[i], want, sizeof(want));
    tq_buf_clear(&got);
    RT_OK(tqh_format_double(&got, edges[i]));
    ck_assert_msg(!strcmp(got.data, want), "%a: wrote %s, printf %s", edges[i], got.data, want);
  }
  ck_assert_int_gt(checked, kinds * per_kind * 9 / 10);
  tq_buf_deinit(&got);
}
END_TEST

START_TEST(seconds_are_written_as_printf_writes_them) {
  uint64_t seed = 0xD1B54A32D192ED03u;
  char want[400];
  tq_buf_t got;
  tq_buf_init(&got, 0);
  const int decimals[] = {0, 3, 6, 9};
  for (int kind = 0; kind < 9; kind++) {
    for (int i = 0; i < 20000; i++) {
      double v = number_of_kind(kind, &seed);
      if (i & 1) v = -v;
      int d = decimals[i % 4];
      snprintf(want, sizeof(want), "%.*f", d, v);
      tq_buf_clear(&got);
      RT_OK(tqh_format_fixed(&got, v, d));
      ck_assert_msg(!strcmp(got.data, want), "%a (kind %d) to %d decimals: wrote %s, printf %s", v,
                    kind, d, got.data, want);
    }
  }
  /* Halfway at 9 and 6 decimals (printf rounds those), zeros, the edges, not finite. */
  const double edges[] = {0.0,   -0.0,   0.0000000005,    0.0000005, 2.5e-7, 999999999.9999999995,
                          1e9,   1e300,  -1e-300,         5e-324,    NAN,    INFINITY,
                          0.125, 1.0625, 123.456789012345};
  for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++) {
    for (int d = 0; d <= 12; d++) {
      snprintf(want, sizeof(want), "%.*f", d, edges[i]);
      tq_buf_clear(&got);
      RT_OK(tqh_format_fixed(&got, edges[i], d));
      ck_assert_msg(!strcmp(got.data, want), "%a to %d decimals: wrote %s, printf %s", edges[i], d,
                    got.data, want);
    }
  }
  tq_buf_deinit(&got);
}
END_TEST

static void fill_nested(tqh_jw_t *w) {
  tqh_jw_object_begin(w);
  tqh_jw_key(w, "a");
  tqh_jw_array_begin(w);
  tqh_jw_number(w, 1);
  tqh_jw_string(w, "x");
  tqh_jw_array_end(w);
  tqh_jw_key(w, "b");
  tqh_jw_array_begin(w);
  tqh_jw_array_end(w);
  tqh_jw_object_end(w);
}

START_TEST(json_writer_pretty_prints_with_two_spaces) {
  char *s = write_json(1, fill_nested);
  ck_assert_str_eq(s, "{\n  \"a\": [\n    1,\n    \"x\"\n  ],\n  \"b\": []\n}");
  tq_free(s);
}
END_TEST

START_TEST(json_writer_reports_unbalanced_nesting) {
  tq_buf_t buf;
  tq_buf_init(&buf, 0);
  tqh_jw_t w;
  tqh_jw_init(&w, &buf, 0);
  tqh_jw_object_begin(&w);
  RT_FAILS(tqh_jw_finish(&w), TQ_INTERNAL);
  tqh_jw_init(&w, &buf, 0);
  tqh_jw_array_end(&w);
  RT_FAILS(tqh_jw_finish(&w), TQ_INTERNAL);
  tq_buf_deinit(&buf);
}
END_TEST

/* ---- Records as JSON ------------------------------------------------------------------------ */

static const tqh_record_metric_t metrics[] = {
    {"OVERALL", 12845.0, NULL}, {"Dma Only", 453.001, NULL}, {"Custom thing", 1.5, "my_key"}};
static const tqh_property_t props[] = {{"target", "sim"}, {"tags", "conv,\"smoke\""}};
static const char *const files[] = {"profile.pb", "debug/program.txt"};
static const double samples[] = {0.21, 0.207123, 0.2};

static tqh_test_record_t full_record(void) {
  tqh_test_record_t r;
  memset(&r, 0, sizeof(r));
  r.id = "conv2d_f4";
  r.name = "conv2d \"f4\"\x01";
  r.classname = "smoke";
  r.model = "conv2d_f4_s4_64x64x16_i16";
  r.host = "builder";
  r.outcome = TQH_OUTCOME_FAILED;
  r.message = "mismatch at [0,1]: 3 != 4";
  r.failure_type = "mismatch";
  r.text = "line 1\nline 2 <&>\n";
  r.started_at = 1796223301.5;
  r.duration_s = 1.25;
  r.has_wall_time = 1;
  r.wall_time_s = 0.207123;
  RT_OK(tqh_stats_compute(samples, 3, &r.wall_stats));
  r.wall_samples = samples;
  r.wall_sample_count = 3;
  r.cache = TQH_CACHE_MISS;
  r.compile_s = 0.5;
  r.run_s = 0.7;
  r.metrics = metrics;
  r.metric_count = 3;
  r.properties = props;
  r.property_count = 2;
  r.files = files;
  r.file_count = 2;
  return r;
}

static void assert_same_record(const tqh_test_record_t *a, const tqh_test_record_t *b) {
  ck_assert_str_eq(a->id, b->id);
  ck_assert_str_eq(a->name, b->name);
  ck_assert_str_eq(a->classname, b->classname);
  ck_assert_str_eq(a->model, b->model);
  ck_assert_str_eq(a->host, b->host);
  ck_assert_int_eq(a->outcome, b->outcome);
  ck_assert_str_eq(a->message, b->message);
  ck_assert_str_eq(a->failure_type, b->failure_type);
  ck_assert_str_eq(a->text, b->text);
  ck_assert(a->started_at == b->started_at && a->duration_s == b->duration_s);
  ck_assert_int_eq(a->has_wall_time, b->has_wall_time);
  ck_assert(a->wall_time_s == b->wall_time_s);
  ck_assert(memcmp(&a->wall_stats, &b->wall_stats, sizeof(a->wall_stats)) == 0);
  ck_assert_uint_eq(a->wall_sample_count, b->wall_sample_count);
  for (size_t i = 0; i < a->wall_sample_count; i++)
    ck_assert(a->wall_samples[i] == b->wall_samples[i]);
  ck_assert_int_eq(a->cache, b->cache);
  ck_assert(a->compile_s == b->compile_s && a->run_s == b->run_s);
  ck_assert_uint_eq(a->metric_count, b->metric_count);
  for (size_t i = 0; i < a->metric_count; i++) {
    ck_assert_str_eq(a->metrics[i].name, b->metrics[i].name);
    ck_assert(a->metrics[i].us == b->metrics[i].us);
  }
  /* Keys: the given one, else the label's (what the journal wrote). */
  ck_assert_str_eq(b->metrics[0].key, "total_duration");
  ck_assert_str_eq(b->metrics[1].key, "dma_only_time");
  ck_assert_str_eq(b->metrics[2].key, "my_key");
  ck_assert_uint_eq(a->property_count, b->property_count);
  for (size_t i = 0; i < a->property_count; i++) {
    ck_assert_str_eq(a->properties[i].key, b->properties[i].key);
    ck_assert_str_eq(a->properties[i].value, b->properties[i].value);
  }
  ck_assert_uint_eq(a->file_count, b->file_count);
  for (size_t i = 0; i < a->file_count; i++) ck_assert_str_eq(a->files[i], b->files[i]);
}

START_TEST(record_reads_back_equal_to_what_was_written) {
  tqh_test_record_t r = full_record();
  tq_buf_t buf;
  tq_buf_init(&buf, 0);
  RT_OK(tqh__record_to_json(&r, 0, &buf));
  ck_assert_ptr_null(memchr(buf.data, '\n', buf.len));
  tqh_records_t list;
  tqh_records_init(&list);
  RT_OK(tqh__record_parse(&list, buf.data, buf.len));
  ck_assert_uint_eq(list.count, 1);
  assert_same_record(&r, &list.items[0]);
  /* Pretty (report.json) reads back the same too. */
  tq_buf_clear(&buf);
  RT_OK(tqh__record_to_json(&r, 1, &buf));
  RT_OK(tqh__record_parse(&list, buf.data, buf.len));
  assert_same_record(&r, &list.items[1]);
  tqh_records_deinit(&list);
  tq_buf_deinit(&buf);
}
END_TEST

START_TEST(record_without_optional_fields_reads_back_with_defaults) {
  tqh_test_record_t r;
  memset(&r, 0, sizeof(r));
  r.id = "a";
  r.name = "a";
  r.outcome = TQH_OUTCOME_NOT_RUN;
  tq_buf_t buf;
  tq_buf_init(&buf, 0);
  RT_OK(tqh__record_to_json(&r, 0, &buf));
  ck_assert_str_eq(
      buf.data,
      "{\"id\":\"a\",\"test_id\":\"a\",\"name\":\"a\",\"classname\":null,\"model\":null,"
      "\"host\":null,"
      "\"outcome\":\"not_run\",\"message\":null,\"failure_type\":null,\"text\":null,"
      "\"started_at\":0,\"duration\":0,\"wall_time\":null,\"wall_time_stats\":{\"n\":0,"
      "\"min\":0,\"max\":0,\"median\":0,\"mean\":0,\"stddev\":0,\"mad\":0,"
      "\"ci95_low\":0,\"ci95_high\":0},\"wall_time_samples\":[],\"cache\":\"none\","
      "\"compile_time\":0,\"run_time\":0,\"estimated_cycles\":null,\"metrics\":{},"
      "\"metric_keys\":{},\"reconciliation\":null,\"properties\":{},\"files\":[]}");
  tqh_records_t list;
  tqh_records_init(&list);
  RT_OK(tqh__record_parse(&list, "{\"id\":\"x\",\"name\":\"y\",\"outcome\":\"passed\"}", 40));
  const tqh_test_record_t *p = &list.items[0];
  ck_assert_str_eq(p->id, "x");
  ck_assert_ptr_null(p->classname);
  ck_assert_int_eq(p->has_wall_time, 0);
  ck_assert_int_eq(p->cache, TQH_CACHE_NONE);
  ck_assert_uint_eq(p->metric_count + p->property_count + p->file_count, 0);
  ck_assert_int_eq(p->has_estimated_cycles, 0); /* a record from before the estimate */

  /* The estimate is a number of cycles that reads back exactly. */
  r.has_estimated_cycles = 1;
  r.estimated_cycles = 123456789;
  tq_buf_clear(&buf);
  RT_OK(tqh__record_to_json(&r, 0, &buf));
  ck_assert_ptr_nonnull(strstr(buf.data, "\"estimated_cycles\":123456789,\"metrics\""));
  RT_OK(tqh__record_parse(&list, buf.data, buf.len));
  ck_assert_int_eq(list.items[1].has_estimated_cycles, 1);
  ck_assert_uint_eq(list.items[1].estimated_cycles, 123456789);

  /* A journal line from before the keys: its labels, old ones too, get theirs. */
  const char *old = "{\"id\":\"o\",\"name\":\"o\",\"outcome\":\"passed\",\"metrics\":{\"OVERALL\":206,"
                    "\"DMA\":12,\"DMA Total\":12,\"CSS\":0,\"Idle\":21,\"Odd one\":3}}";
  RT_OK(tqh__record_parse(&list, old, strlen(old)));
  const tqh_test_record_t *o = &list.items[2];
  ck_assert_uint_eq(o->metric_count, 6);
  static const char *const old_keys[] = {"total_duration", "dma_time", "dma_total_time",
                                         "css_time",       "idle_time", "odd_one_time"};
  for (size_t i = 0; i < 6; i++) ck_assert_str_eq(o->metrics[i].key, old_keys[i]);
  ck_assert(o->metrics[0].us == 206);
  tqh_records_deinit(&list);
  tq_buf_deinit(&buf);
}
END_TEST

/* The reconciliation of a record: written with each program's error, read back the same. */
START_TEST(record_reconciliation_reads_back) {
  static const tqh_recon_t programs[3] = {
      /* simulated: DMA 1,000 cycles, compute 400, both at once 300 */
      /* a pipeline's three stage programs, jobs 0..2, reconciled together */
      {0, "loc(\"m.mlir\":4:5)", "tosa.rescale@L4 tosa.add@L5", 1000, 1, 1250, 0, 0, 1000, 400,
       300, 3},
      {3, "", "", 800, 0, 0, 1, 2.0, 0, 0, 0, 1}, /* a board: 2 µs measured, 800 cycles = 1 µs */
      {4, "loc(\"m.mlir\":9:5)", "tosa.conv2d@L9", 77, 0, 0, 0, 0, 0, 0, 0, 0}, /* none measured */
  };
  tqh_test_record_t r;
  memset(&r, 0, sizeof(r));
  r.id = "a";
  r.name = "a";
  r.outcome = TQH_OUTCOME_PASSED;
  r.recon = programs;
  r.recon_count = 3;
  r.clock_hz = 800000000u;
  tq_buf_t buf;
  tq_buf_init(&buf, 0);
  RT_OK(tqh__record_to_json(&r, 0, &buf));
  ck_assert_msg(
      strstr(buf.data,
             "\"reconciliation\":{\"clock_hz\":800000000,\"programs\":[{\"job\":0,\"jobs\":3,"
             "\"location\":\"loc(\\\"m.mlir\\\":4:5)\",\"operators\":[\"tosa.rescale@L4\","
             "\"tosa.add@L5\"],\"estimated_cycles\":1000,\"simulated_cycles\":1250,"
             "\"simulated_units\":{\"dma\":1000,\"compute\":400,\"overlap\":300,"
             "\"dma_only\":700,\"compute_only\":100},\"device_us\":null,\"error\":0.2}") != NULL,
      "%s", buf.data);
  ck_assert_ptr_nonnull(strstr(buf.data, "\"device_us\":2,\"error\":0.5}"));
  ck_assert_ptr_nonnull(
      strstr(buf.data,
             "\"simulated_cycles\":null,\"simulated_units\":null,\"device_us\":null,"
             "\"error\":null}"));
  tqh_records_t list;
  tqh_records_init(&list);
  RT_OK(tqh__record_parse(&list, buf.data, buf.len));
  const tqh_test_record_t *b = &list.items[0];
  ck_assert_uint_eq(b->recon_count, 3);
  ck_assert_uint_eq(b->clock_hz, 800000000u);
  for (size_t i = 0; i < 3; i++) {
    ck_assert_uint_eq(b->recon[i].job_id, programs[i].job_id);
    /* written as "jobs", at least 1 */
    ck_assert_uint_eq(b->recon[i].programs, programs[i].programs ? programs[i].programs : 1);
    ck_assert_str_eq(b->recon[i].location, programs[i].location);
    ck_assert_str_eq(b->recon[i].operators, programs[i].operators);
    ck_assert_uint_eq(b->recon[i].estimated_cycles, programs[i].estimated_cycles);
    ck_assert_int_eq(b->recon[i].has_simulated, programs[i].has_simulated);
    ck_assert_uint_eq(b->recon[i].simulated_cycles, programs[i].simulated_cycles);
    ck_assert_uint_eq(b->recon[i].sim_dma_cycles, programs[i].sim_dma_cycles);
    ck_assert_uint_eq(b->recon[i].sim_compute_cycles, programs[i].sim_compute_cycles);
    ck_assert_uint_eq(b->recon[i].sim_overlap_cycles, programs[i].sim_overlap_cycles);
    ck_assert_int_eq(b->recon[i].has_device, programs[i].has_device);
    ck_assert_double_eq(b->recon[i].device_us, programs[i].device_us);
  }
  /* A journal from before pipeline stages has no "jobs": each entry is one program. */
  char *old = strdup(buf.data), *jobs = strstr(old, "\"jobs\":3,");
  ck_assert_ptr_nonnull(jobs);
  memmove(jobs, jobs + strlen("\"jobs\":3,"), strlen(jobs + strlen("\"jobs\":3,")) + 1);
  tqh_records_t before;
  tqh_records_init(&before);
  RT_OK(tqh__record_parse(&before, old, strlen(old)));
  ck_assert_uint_eq(before.items[0].recon[0].programs, 1);
  ck_assert_uint_eq(before.items[0].recon[0].estimated_cycles, 1000);
  tqh_records_deinit(&before);
  free(old);
  double e;
  ck_assert(tqh_recon_error(&b->recon[0], b->clock_hz, &e));
  ck_assert_double_eq_tol(e, 0.2, 1e-12);
  ck_assert(tqh_recon_error(&b->recon[1], b->clock_hz, &e));
  ck_assert_double_eq_tol(e, 0.5, 1e-12);
  ck_assert(!tqh_recon_error(&b->recon[2], b->clock_hz, &e));
  ck_assert(!tqh_recon_error(&b->recon[1], 0, &e)); /* a device time needs the clock */
  /* A record without programs writes null and reads back none. */
  r.recon_count = 0;
  tq_buf_clear(&buf);
  RT_OK(tqh__record_to_json(&r, 0, &buf));
  ck_assert_ptr_nonnull(strstr(buf.data, "\"reconciliation\":null"));
  RT_OK(tqh__record_parse(&list, buf.data, buf.len));
  ck_assert_uint_eq(list.items[1].recon_count, 0);
  tqh_records_deinit(&list);
  tq_buf_deinit(&buf);
}
END_TEST

/* Median (the lower of an even count) and 90th percentile by nearest rank. */
START_TEST(recon_percentiles_are_the_median_and_nearest_rank_p90) {
  double e[10] = {0.9, 0.1, 0.5, 0.3, 0.7, 0.2, 0.4, 0.8, 0.6, 1.0};
  double median, p90;
  tqh_recon_percentiles(e, 10, &median, &p90);
  ck_assert_double_eq(median, 0.5);
  ck_assert_double_eq(p90, 0.9);
  ck_assert_double_eq(e[0], 0.1); /* sorted in place */
  double one[1] = {0.25};
  tqh_recon_percentiles(one, 1, &median, &p90);
  ck_assert_double_eq(median, 0.25);
  ck_assert_double_eq(p90, 0.25);
  double eleven[11] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  tqh_recon_percentiles(eleven, 11, &median, &p90);
  ck_assert_double_eq(median, 5);
  ck_assert_double_eq(p90, 9); /* ceil(9.9) = 10th smallest */
  tqh_recon_percentiles(NULL, 0, &median, &p90);
  ck_assert_double_eq(median + p90, 0);
}
END_TEST

static const struct {
  const char *line;
  const char *message; /* start of the expected message */
} bad_records[] = {
    {"{\"id\":\"i\",\"name\":\"n\",\"outcome\":\"passed\",\"reconciliation\":[]}",
     "\"reconciliation\": expected an object"},
    {"{\"id\":\"i\",\"name\":\"n\",\"outcome\":\"passed\",\"reconciliation\":"
     "{\"programs\":[{\"job\":-1}]}}",
     "\"job\": expected a whole number"},
    {"{\"id\":\"i\",\"name\":\"n\",\"outcome\":\"passed\",\"reconciliation\":"
     "{\"programs\":[{\"operators\":[1]}]}}",
     "\"operators\": expected strings"},
    {"[1,2]", "expected a JSON object"},
    {"{\"name\":\"n\",\"outcome\":\"passed\"}", "missing \"id\""},
    {"{\"id\":\"\",\"name\":\"n\",\"outcome\":\"passed\"}", "empty \"id\""},
    {"{\"id\":\"i\",\"name\":\"n\",\"outcome\":\"great\"}", "unknown outcome \"great\""},
    {"{\"id\":\"i\",\"name\":\"n\",\"outcome\":\"passed\",\"duration\":\"1\"}",
     "\"duration\": expected a number"},
    {"{\"id\":\"i\",\"name\":\"n\",\"outcome\":\"passed\",\"metrics\":[]}",
     "\"metrics\": expected an object"},
    {"{\"id\":\"i\",\"name\":\"n\",\"outcome\":\"passed\",\"properties\":{\"a\":1}}",
     "\"properties\": expected string values"},
    {"{\"id\":\"i\",\"name\":\"n\",\"outcome\":\"passed\",\"cache\":\"warm\"}",
     "unknown cache \"warm\""},
    {"{\"id\":\"i\",\"name\":\"n\",\"outcome\":\"passed\",\"wall_time_stats\":{\"n\":-1}}",
     "\"n\": expected a count"},
    {"{\"id\":\"i\",\"name\":\"n\",\"outcome\":\"passed\",\"estimated_cycles\":\"9\"}",
     "\"estimated_cycles\": expected a number"},
    {"{\"id\":\"i\",\"name\":\"n\",\"outcome\":\"passed\",\"estimated_cycles\":-1}",
     "\"estimated_cycles\": expected a whole number of cycles"},
    {"{\"id\":\"i\",\"name\":\"n\",\"outcome\":\"passed\",\"estimated_cycles\":1.5}",
     "\"estimated_cycles\": expected a whole number of cycles"},
    {"{\"id\":\"i\",", ":1:11: error: expected a string key"},
};

START_TEST(record_parse_rejects_invalid_lines) {
  tqh_records_t list;
  tqh_records_init(&list);
  tq_status_t s = tqh__record_parse(&list, bad_records[_i].line, strlen(bad_records[_i].line));
  ck_assert_ptr_nonnull(s);
  ck_assert_int_eq(tq_status_code(s), TQ_INVALID_INPUT);
  const char *msg = tq_status_message(s);
  ck_assert_msg(strncmp(msg, bad_records[_i].message, strlen(bad_records[_i].message)) == 0,
                "message '%s', expected '%s...'", msg, bad_records[_i].message);
  tq_status_free(s);
  ck_assert_uint_eq(list.count, 0);
  tqh_records_deinit(&list);
}
END_TEST

/* ---- The journal file ----------------------------------------------------------------------- */

static void append_line(tqh_journal_t *j, const char *id, const char *outcome) {
  char line[256];
  snprintf(line, sizeof line, "{\"id\":\"%s\",\"name\":\"test %s\",\"outcome\":\"%s\"}", id, id,
           outcome);
  RT_OK(tqh_journal_append(j, line, strlen(line)));
}

START_TEST(journal_appends_lines_that_read_back) {
  char *dir = rt_tmpdir();
  char *path = rt_path(dir, "journal.jsonl");
  tqh_journal_t j;
  RT_OK(tqh_journal_open(&j, path, 1, 0));
  append_line(&j, "a", "passed");
  ck_assert_int_eq(j.unsynced, 0); /* interval 0: an fsync after every line */
  append_line(&j, "b", "failed");
  RT_FAILS(tqh_journal_append(&j, "{}\n{}", 5), TQ_INVALID_ARGUMENT);
  tqh_journal_close(&j);
  /* Reopening appends after what is there. */
  RT_OK(tqh_journal_open(&j, path, 1, 60000));
  append_line(&j, "c", "xpassed");
  ck_assert_int_eq(j.unsynced, 1); /* within the interval: written, fsync deferred to close */
  tqh_journal_close(&j);
  tqh_journal_close(&j); /* closing twice is harmless */

  char *text = rt_read(path);
  ck_assert_str_eq(text,
                   "{\"id\":\"a\",\"name\":\"test a\",\"outcome\":\"passed\"}\n"
                   "{\"id\":\"b\",\"name\":\"test b\",\"outcome\":\"failed\"}\n"
                   "{\"id\":\"c\",\"name\":\"test c\",\"outcome\":\"xpassed\"}\n");
  tq_free(text);

  tqh_records_t list;
  tqh_records_init(&list);
  tqh_diags_t diags;
  tqh_diags_init(&diags);
  tqh_journal_read_t info;
  RT_OK(tqh_journal_read(path, &list, &diags, &info));
  ck_assert_uint_eq(list.count, 3);
  ck_assert_str_eq(list.items[2].id, "c");
  ck_assert_int_eq(list.items[2].outcome, TQH_OUTCOME_XPASSED);
  ck_assert_uint_eq(info.lines, 3);
  ck_assert_uint_eq(info.corrupt, 0);
  ck_assert_int_eq(info.torn_tail, 0);
  ck_assert_uint_eq(diags.count, 0);
  tqh_diags_deinit(&diags);
  tqh_records_deinit(&list);
  free(path);
  rt_tmpdir_remove(dir);
}
END_TEST

START_TEST(journal_reader_keeps_good_lines_around_a_corrupt_one_and_a_torn_tail) {
  /* Line 2 holds a NUL (a corrupt disk block), line 3 is blank, line 5 lacks its id, line 7 is a
   * torn append. */
  static const char *const pieces[] = {
      "{\"id\":\"a\",\"name\":\"A\",\"outcome\":\"passed\"}\n",
      "{\"id\":\"b\",\"name\":\"B\",\"outc", "me\":\n",
      "\n",
      "{\"id\":\"c\",\"name\":\"C\",\"outcome\":\"skipped\"}\n",
      "{\"name\":\"D\",\"outcome\":\"passed\"}\n",
      "{\"id\":\"e\",\"name\":\"E\",\"outcome\":\"passed\"}\n",
      "{\"id\":\"f\",\"name\":\"F\",\"outco",
  };
  char text[512];
  size_t len = 0;
  for (size_t i = 0; i < sizeof(pieces) / sizeof(pieces[0]); i++) {
    memcpy(text + len, pieces[i], strlen(pieces[i]));
    len += strlen(pieces[i]);
    if (i == 1) text[len++] = 0;
  }
  tqh_records_t list;
  tqh_records_init(&list);
  tqh_diags_t diags;
  tqh_diags_init(&diags);
  tqh_journal_read_t info;
  RT_OK(tqh_journal_parse("journal.jsonl", text, len, &list, &diags, &info));
  ck_assert_uint_eq(list.count, 3);
  ck_assert_str_eq(list.items[0].id, "a");
  ck_assert_str_eq(list.items[1].id, "c");
  ck_assert_str_eq(list.items[2].id, "e");
  ck_assert_uint_eq(info.lines, 6);
  ck_assert_uint_eq(info.corrupt, 2);
  ck_assert_int_eq(info.torn_tail, 1);
  /* The torn tail is named as an error too: its test's record is lost. */
  ck_assert_uint_eq(diags.errors, 3);
  ck_assert_uint_eq(diags.warnings, 0);
  tq_buf_t out;
  tq_buf_init(&out, 0);
  RT_OK(tqh_diags_format(&diags, &out));
  ck_assert_msg(strstr(out.data, "journal.jsonl:2: error: not a valid test record (column 27: "
                                 "control character in a string); skipped\n") != NULL,
                "%s", out.data);
  ck_assert_msg(strstr(out.data, "journal.jsonl:5: error: not a valid test record (missing "
                                 "\"id\"); skipped\n") != NULL,
                "%s", out.data);
  ck_assert_msg(strstr(out.data,
                       "journal.jsonl:7: error: the last line is cut short (27 bytes "
                       "without a newline") != NULL,
                "%s", out.data);
  tq_buf_deinit(&out);
  tqh_diags_deinit(&diags);
  tqh_records_deinit(&list);
}
END_TEST

START_TEST(journal_reader_accepts_a_complete_last_line_without_newline) {
  const char *text = "{\"id\":\"a\",\"name\":\"A\",\"outcome\":\"passed\"}";
  tqh_records_t list;
  tqh_records_init(&list);
  tqh_journal_read_t info;
  RT_OK(tqh_journal_parse("j", text, strlen(text), &list, NULL, &info));
  ck_assert_uint_eq(list.count, 1);
  ck_assert_int_eq(info.torn_tail, 0);
  ck_assert_uint_eq(info.lines, 0);
  tqh_records_deinit(&list);
}
END_TEST

START_TEST(records_by_id_keep_the_last_line_of_each_test) {
  const char *text =
      "{\"id\":\"b\",\"name\":\"B\",\"outcome\":\"failed\"}\n"
      "{\"id\":\"a\",\"name\":\"A\",\"outcome\":\"passed\"}\n"
      "{\"id\":\"c\",\"name\":\"C\",\"outcome\":\"passed\"}\n"
      "{\"id\":\"b\",\"name\":\"B2\",\"outcome\":\"passed\"}\n";
  tqh_records_t list;
  tqh_records_init(&list);
  tqh_journal_read_t info;
  RT_OK(tqh_journal_parse("j", text, strlen(text), &list, NULL, &info));
  ck_assert_uint_eq(list.count, 4);
  /* In journal order, each test once, where its last line is. */
  size_t *order = NULL, count = 0;
  RT_OK(tqh_records_latest(&list, &order, &count));
  ck_assert_uint_eq(count, 3);
  ck_assert_uint_eq(order[0], 1);
  ck_assert_uint_eq(order[1], 2);
  ck_assert_uint_eq(order[2], 3);
  tq_free(order);
  /* By id: the last line wins; an unknown id is NULL. */
  tqh_records_index_t index;
  RT_OK(tqh_records_index(&list, &index));
  ck_assert_uint_eq(index.count, 3);
  ck_assert_ptr_eq(tqh_records_find(&index, "b"), &list.items[3]);
  ck_assert_ptr_eq(tqh_records_find(&index, "a"), &list.items[1]);
  ck_assert_ptr_eq(tqh_records_find(&index, "c"), &list.items[2]);
  ck_assert_ptr_null(tqh_records_find(&index, "d"));
  ck_assert_ptr_null(tqh_records_find(&index, ""));
  tqh_records_index_deinit(&index);
  tqh_records_deinit(&list);
}
END_TEST

/* A test is known by its id, suite/test, never by its folder; a journal written before records
 * carried test_id (an old run, an old baseline) gets it from the suite and the name. */
START_TEST(records_are_found_by_test_id_also_in_an_old_journal) {
  const char *text =
      "{\"id\":\"smoke+tosa+add%20i8\",\"name\":\"tosa/add i8\",\"classname\":\"smoke\","
      "\"outcome\":\"passed\"}\n"
      "{\"id\":\"smoke+conv\",\"test_id\":\"smoke/conv\",\"name\":\"conv\","
      "\"classname\":\"smoke\",\"outcome\":\"failed\"}\n";
  tqh_records_t list;
  tqh_records_init(&list);
  tqh_journal_read_t info;
  RT_OK(tqh_journal_parse("j", text, strlen(text), &list, NULL, &info));
  ck_assert_uint_eq(list.count, 2);
  ck_assert_str_eq(list.items[0].test_id, "smoke/tosa/add i8");
  ck_assert_str_eq(tqh_record_test_id(&list.items[1]), "smoke/conv");
  tqh_records_index_t index;
  RT_OK(tqh_records_index(&list, &index));
  ck_assert_ptr_eq(tqh_records_find(&index, "smoke/tosa/add i8"), &list.items[0]);
  ck_assert_ptr_eq(tqh_records_find(&index, "smoke/conv"), &list.items[1]);
  ck_assert_ptr_null(tqh_records_find(&index, "smoke+conv"));
  tqh_records_index_deinit(&index);
  /* Written again, the old record carries its test id. */
  tq_buf_t buf;
  tq_buf_init(&buf, 0);
  list.items[0].test_id = NULL;
  RT_OK(tqh__record_to_json(&list.items[0], 0, &buf));
  ck_assert_ptr_nonnull(strstr(buf.data, "\"test_id\":\"smoke/tosa/add i8\""));
  tq_buf_deinit(&buf);
  tqh_records_deinit(&list);
}
END_TEST

START_TEST(journal_read_of_a_missing_file_is_not_found) {
  tqh_records_t list;
  tqh_records_init(&list);
  tqh_journal_read_t info;
  RT_FAILS(tqh_journal_read("/nonexistent/journal.jsonl", &list, NULL, &info), TQ_NOT_FOUND);
  tqh_records_deinit(&list);
}
END_TEST

START_TEST(journal_open_in_a_missing_folder_fails_with_the_path) {
  tqh_journal_t j;
  tq_status_t s = tqh_journal_open(&j, "/nonexistent/dir/journal.jsonl", 1, 1000);
  ck_assert_int_eq(tq_status_code(s), TQ_IO);
  ck_assert_ptr_nonnull(strstr(tq_status_message(s), "/nonexistent/dir/journal.jsonl"));
  tq_status_free(s);
  tqh_journal_close(&j);
}
END_TEST

/* An append that fails partway (RLIMIT_FSIZE stands in for a full disk here: the write stops at
 * the limit with EFBIG, as one stops at a full disk with ENOSPC) leaves no partial line: the file
 * is as it was, the error names the journal, and the next append that fits is whole. Runs in
 * Check's forked child (the limit and SIGXFSZ are this process's). */
START_TEST(journal_append_that_fails_partway_leaves_no_partial_line) {
  if (getenv("TORQ_VALGRIND")) {
    tq_test_skip("RLIMIT_FSIZE under valgrind");
    return;
  }
  char *dir = rt_tmpdir();
  char *path = rt_path(dir, "journal.jsonl");
  tqh_journal_t j;
  RT_OK(tqh_journal_open(&j, path, 0, 0));
  const char first[] = "{\"id\":\"a\",\"name\":\"A\",\"outcome\":\"passed\"}";
  RT_OK(tqh_journal_append(&j, first, strlen(first)));
  size_t before = strlen(first) + 1;
  signal(SIGXFSZ, SIG_IGN);
  struct rlimit rl = {(rlim_t)before + 100, RLIM_INFINITY};
  ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &rl), 0);
  /* 4000 bytes do not fit in the 100 that are left. */
  char big[4100];
  int n = snprintf(big, sizeof(big),
                   "{\"id\":\"b\",\"name\":\"B\",\"outcome\":\"failed\",\"message\":\"");
  while (n < 4000) big[n++] = 'x';
  n += snprintf(big + n, sizeof(big) - (size_t)n, "\"}");
  tq_status_t st = tqh_journal_append(&j, big, (size_t)n);
  ck_assert_ptr_nonnull(st);
  ck_assert_int_eq(tq_status_code(st), TQ_IO);
  ck_assert_msg(
      strstr(tq_status_message(st), path) && strstr(tq_status_message(st), "File too large"), "%s",
      tq_status_message(st));
  tq_status_free(st);
  char *text = rt_read(path);
  ck_assert_uint_eq(strlen(text), before);
  ck_assert_int_eq(memcmp(text, first, strlen(first)), 0);
  ck_assert_int_eq(text[before - 1], '\n');
  tq_free(text);
  /* A line that fits still goes in, whole, right after the first. */
  const char small[] = "{\"id\":\"c\",\"name\":\"C\",\"outcome\":\"passed\"}";
  RT_OK(tqh_journal_append(&j, small, strlen(small)));
  tqh_journal_close(&j);
  tqh_records_t list;
  tqh_records_init(&list);
  tqh_diags_t diags;
  tqh_diags_init(&diags);
  tqh_journal_read_t info;
  RT_OK(tqh_journal_read(path, &list, &diags, &info));
  ck_assert_uint_eq(list.count, 2);
  ck_assert_str_eq(list.items[1].id, "c");
  ck_assert_uint_eq(diags.count, 0);
  tqh_diags_deinit(&diags);
  tqh_records_deinit(&list);
  free(path);
  rt_tmpdir_remove(dir);
}
END_TEST

Suite *journal_suite(void) {
  Suite *s = suite_create("journal");
  TCase *tc = tcase_create("json");
  tcase_add_test(tc, json_writer_escapes_and_formats_numbers_exactly);
  tcase_add_test(tc, numbers_are_written_as_printf_writes_them);
  tcase_add_test(tc, seconds_are_written_as_printf_writes_them);
  tcase_add_test(tc, json_writer_pretty_prints_with_two_spaces);
  tcase_add_test(tc, json_writer_reports_unbalanced_nesting);
  tcase_add_test(tc, record_reads_back_equal_to_what_was_written);
  tcase_add_test(tc, record_without_optional_fields_reads_back_with_defaults);
  tcase_add_test(tc, record_reconciliation_reads_back);
  tcase_add_test(tc, recon_percentiles_are_the_median_and_nearest_rank_p90);
  tcase_add_loop_test(tc, record_parse_rejects_invalid_lines, 0,
                      (int)(sizeof(bad_records) / sizeof(bad_records[0])));
  suite_add_tcase(s, tc);
  tc = tcase_create("journal");
  tcase_add_test(tc, journal_appends_lines_that_read_back);
  tcase_add_test(tc, journal_append_that_fails_partway_leaves_no_partial_line);
  tcase_add_test(tc, journal_reader_keeps_good_lines_around_a_corrupt_one_and_a_torn_tail);
  tcase_add_test(tc, journal_reader_accepts_a_complete_last_line_without_newline);
  tcase_add_test(tc, records_by_id_keep_the_last_line_of_each_test);
  tcase_add_test(tc, records_are_found_by_test_id_also_in_an_old_journal);
  tcase_add_test(tc, journal_read_of_a_missing_file_is_not_found);
  tcase_add_test(tc, journal_open_in_a_missing_folder_fails_with_the_path);
  suite_add_tcase(s, tc);
  return s;
}
