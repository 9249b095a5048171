/* Perfetto traces: the annotation's trace read back by our schema and by `protoc --decode_raw`
 * (the overview's 16 threads of the Torq tools and ours, their slices and category), every slice
 * closed, estimates on their own tracks; the reader's rejections; the compile-time-only mode. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "annotate/annotate_internal.h"
#include "perfetto_trace.pb-c.h"
#include "suites.h"
#include "torq/base/alloc.h"
#include "torq/harness/perfetto.h"
#include "torq/harness/overview.h"
#include "tq_test.h"

static const tqh_trace_slice_t *find_slice(const tqh_trace_t *t, const char *track,
                                           const char *name) {
  for (size_t i = 0; i < t->num_tracks; i++) {
    if (strcmp(t->tracks[i].name, track) != 0) continue;
    for (size_t k = 0; k < t->num_slices; k++)
      if (t->slices[k].track_uuid == t->tracks[i].uuid && strcmp(t->slices[k].name, name) == 0)
        return &t->slices[k];
  }
  return NULL;
}

static void check_slice(const tqh_trace_t *t, const char *track, const char *name,
                        unsigned long long start, unsigned long long end) {
  const tqh_trace_slice_t *s = find_slice(t, track, name);
  ck_assert_msg(s != NULL, "no slice '%s' on track '%s'", name, track);
  ck_assert_msg(s->start_ns == start && s->end_ns == end, "%s/%s: [%llu, %llu], expected [%llu, %llu]",
                track, name, (unsigned long long)s->start_ns, (unsigned long long)s->end_ns, start,
                end);
}

/* The overview's threads as the Torq tools name them (the first 16), then ours, with the
 * fixture's slices (test_overview.c works out the numbers; OVERALL 80 µs). */
static const struct {
  const char *thread, *slice;
  unsigned long long ns;
} overview_threads[] = {
    {"00 OVERVIEW DMA COMBINED", "DMA+CDMA union: 40.000µs (50.00%)", 40000},
    {"01 OVERVIEW COMPUTE COMBINED", "SLICE+CSS union: 48.000µs (60.00%)", 48000},
    {"02 OVERVIEW DMA", "DMA total: 30.000µs (37.50%)", 30000},
    {"03 OVERVIEW CDMA", "CDMA total: 10.000µs (12.50%)", 10000},
    {"04 OVERVIEW SLICE", "SLICE 0 + 1 union: 48.000µs (60.00%)", 48000},
    {"05 OVERVIEW SLICE 0", "SLICE 0: 10.000µs (12.50%)", 10000},
    {"06 OVERVIEW SLICE 1", "SLICE 1: 38.000µs (47.50%)", 38000},
    {"07 OVERVIEW CSS", "CSS: 38.000µs (47.50%)", 38000},
    {"08 OVERVIEW DMA ONLY", "DMA/CDMA ONLY (no compute): 2.000µs (2.50%)", 2000},
    {"09 OVERVIEW COMPUTE ONLY", "COMPUTE ONLY (no DMA/CDMA): 10.000µs (12.50%)", 10000},
    {"10 OVERVIEW DMA COMPUTE OVERLAP", "DMA/CDMA<->COMPUTE overlap: 38.000µs (47.50%)", 38000},
    {"11 OVERVIEW HAL", "HAL total: 0ns (0.00%)", 0},
    {"12 OVERVIEW HOST", "HOST total: 20.000µs (25.00%)", 20000},
    {"13 OVERVIEW HOST COPY", "HOST COPY total: 10.000µs (12.50%)", 10000},
    {"14 OVERVIEW IDLE", "IDLE: 0ns (0.00%)", 0},
    {"15 OVERALL", "OVERALL: 80.000µs", 80000},
    {"16 OVERVIEW DMA IN", "DMA IN total: 30.000µs (37.50%)", 30000},
    {"17 OVERVIEW DMA OUT", "DMA OUT total: 30.000µs (37.50%)", 30000},
    {"18 OVERVIEW TOTAL NPU OPERATIONS", "TOTAL NPU OPERATIONS: 50.000µs (62.50%)", 50000},
};
#define N_OVERVIEW (sizeof(overview_threads) / sizeof(overview_threads[0]))

/* `s` as protoc --decode_raw prints a string: bytes outside ASCII as \ooo. */
static void raw_escaped(const char *s, char *out, size_t size) {
  size_t n = 0;
  for (const unsigned char *p = (const unsigned char *)s; *p && n + 6 < size; p++)
    n += (size_t)(*p < 0x80 ? snprintf(out + n, size - n, "%c", *p)
                            : snprintf(out + n, size - n, "\\%03o", *p));
  out[n] = 0;
}

START_TEST(perfetto_trace_of_the_fixture_reads_back_with_every_slice_closed) {
  char *dir = th_tmpdir();
  char *dbg = th_path(dir, "dbg");
  th_fixture_debug_info(dbg);
  tqh_annotation_t *ann = th_annotate_text(dir, dbg, TH_FIXTURE_PROFILE);
  char *pb = th_path(dir, "t.pb");
  TH_OK(tqh_annotation_write_perfetto(ann, pb));
  tqh_trace_t t;
  TH_OK(tqh_trace_read(pb, &t));
  ck_assert_uint_eq(t.begins, t.ends);
  ck_assert_uint_eq(t.num_slices, t.begins);
  /* The track tree of DESIGN 5.5. */
  const tqh_trace_track_t *host = tqh_trace_find(&t, "Host", 0);
  const tqh_trace_track_t *npu = tqh_trace_find(&t, "NPU Task Breakdown", 0);
  const tqh_trace_track_t *ovw = tqh_trace_find(&t, "Host Profile Overview", 0);
  ck_assert(host && npu && ovw);
  static const char *const host_children[] = {"NSS Programs", "Host Programs", "HAL",
                                              "Host Copy",    "Alloc",         "Dispatch"};
  for (size_t i = 0; i < 6; i++)
    ck_assert_ptr_nonnull(tqh_trace_find(&t, host_children[i], host->uuid));
  static const char *const npu_children[] = {
      "NDMA In",           "NDMA Out",           "CDMA",
      "Slice 0",           "Slice 1",            "CSS",
      "NSS CFG Tasks (Compile)", "NDMA In (Compile)", "NDMA Out (Compile)",
      "CDMA (Compile)",    "Slice 0 (Compile)",  "Slice 1 (Compile)",
      "CSS (Compile)"};
  for (size_t i = 0; i < 13; i++)
    ck_assert_msg(tqh_trace_find(&t, npu_children[i], npu->uuid) != NULL, "no track %s",
                  npu_children[i]);
  /* Measured: ns = µs × 1000. Programs run from their START's BEGIN; job 1 [12, 50] overlaps
   * job 0 on the program track, where a slice starts when the one before it ends. */
  check_slice(&t, "NSS Programs", "job 0", 10000, 40000);
  check_slice(&t, "NSS Programs", "job 1: add", 40000, 50000);
  check_slice(&t, "Host Programs", "host 0: tosa.cast", 60000, 80000);
  check_slice(&t, "Host Copy", "HOST_COPY 4", 50000, 60000);
  check_slice(&t, "Alloc", "ALLOC 9", 90000, 91000);
  check_slice(&t, "Dispatch", "DISPATCH #0", 10000, 100000);
  /* The NPU's units: the measured programs that use them. */
  check_slice(&t, "NDMA In", "job 0", 10000, 40000);
  check_slice(&t, "Slice 1", "job 1: add", 12000, 50000);
  check_slice(&t, "CSS", "job 1: add", 12000, 50000);
  check_slice(&t, "CDMA", "job 2: conv2d", 80000, 90000);
  /* Estimates at 800 MHz (1.25 ns a cycle) on their own tracks, from the END of the program's
   * START, as long as estimated (job 1's 20 µs estimate is longer than its run: kept). */
  check_slice(&t, "NDMA In (Compile)", "DI0", 12000, 17000);
  check_slice(&t, "NDMA Out (Compile)", "DO0", 17000, 22000);
  check_slice(&t, "Slice 1 (Compile)", "S0 add", 14000, 24000);
  check_slice(&t, "CSS (Compile)", "CSS0 softmax", 14000, 34000);
  check_slice(&t, "Slice 0 (Compile)", "S1 conv2d", 81000, 82000);
  check_slice(&t, "CDMA (Compile)", "CDMA0", 81000, 81500);
  check_slice(&t, "NSS CFG Tasks (Compile)", "job 0 task 1", 17000, 22000);
  /* Overview: the threads in order, one slice each from the run's start (10 µs), category
   * `overview`. */
  size_t k = 0;
  for (size_t i = 0; i < t.num_tracks; i++) {
    if (t.tracks[i].parent_uuid != ovw->uuid) continue;
    ck_assert_uint_lt(k, N_OVERVIEW);
    ck_assert_str_eq(t.tracks[i].name, overview_threads[k].thread);
    check_slice(&t, overview_threads[k].thread, overview_threads[k].slice, 10000,
                10000 + overview_threads[k].ns);
    for (size_t j = 0; j < t.num_slices; j++)
      if (t.slices[j].track_uuid == t.tracks[i].uuid)
        ck_assert_str_eq(t.slices[j].category ? t.slices[j].category : "", "overview");
    k++;
  }
  ck_assert_uint_eq(k, N_OVERVIEW);
  /* No other slice has a category. */
  size_t categorized = 0;
  for (size_t j = 0; j < t.num_slices; j++) categorized += t.slices[j].category != NULL;
  ck_assert_uint_eq(categorized, N_OVERVIEW);
  tqh_trace_deinit(&t);
  /* protoc decodes it; a truncated copy fails there and in our reader. */
  size_t len;
  char *bytes = th_read(pb, &len);
  char *cut = th_path(dir, "cut.pb");
  FILE *f = fopen(cut, "wb");
  ck_assert_uint_eq(fwrite(bytes, 1, len - 3, f), len - 3);
  fclose(f);
  tq_status_t st = tqh_trace_read(cut, &t);
  ck_assert_ptr_nonnull(st);
  ck_assert_ptr_nonnull(strstr(tq_status_message(st), "truncated"));
  tq_status_free(st);
  tqh_trace_deinit(&t);
  /* Without protoc (outside CI) the rest runs and the decode_raw check is the skip. */
  const char *protoc = tq_test_tool("TORQ_PROTOC", "protoc", "apt-get install protobuf-compiler");
  if (protoc) {
    char cmd[8192];
    snprintf(cmd, sizeof(cmd), "'%s' --decode_raw < '%s' > '%s/raw.txt'", protoc, pb, dir);
    ck_assert_msg(th_shell_ok(cmd), "protoc --decode_raw rejects %s", pb);
    char *raw_path = th_path(dir, "raw.txt");
    char *raw = th_read(raw_path, NULL);
    ck_assert_ptr_nonnull(strstr(raw, "2: \"NDMA In (Compile)\""));
    ck_assert_ptr_nonnull(strstr(raw, "23: \"job 1: add\""));
    free(raw);
    free(raw_path);
    /* Decoded with Perfetto's field numbers (our schema's subset, harness/formats/): the process
     * and its 19 threads in order, their slices' names and category. (decode_raw alone cannot
     * say: it reads some thread names as nested messages.) */
    snprintf(cmd, sizeof(cmd),
             "'%s' --proto_path='%s/harness/formats' --decode=tqh_pf.Trace perfetto_trace.proto "
             "< '%s' > '%s/decoded.txt'",
             protoc, tq_test_top(), pb, dir);
    ck_assert_msg(th_shell_ok(cmd), "protoc --decode=tqh_pf.Trace rejects %s", pb);
    raw_path = th_path(dir, "decoded.txt");
    raw = th_read(raw_path, NULL);
    const char *at = strstr(raw, "name: \"Host Profile Overview\"");
    ck_assert_ptr_nonnull(at);
    ck_assert_ptr_nonnull(strstr(at, "child_ordering: CHRONOLOGICAL"));
    for (size_t i = 0; i < N_OVERVIEW; i++) {
      char want[400], esc[300];
      snprintf(want, sizeof(want), "name: \"%s\"", overview_threads[i].thread);
      const char *next = strstr(at, want);
      ck_assert_msg(next != NULL, "decoded: no thread '%s' after the ones before", want);
      at = next;
      /* protoc prints UTF-8 as it is or as octal escapes, by version. */
      raw_escaped(overview_threads[i].slice, esc, sizeof(esc));
      char want_raw[400];
      snprintf(want, sizeof(want), "categories: \"overview\"\n    name: \"%s\"",
               overview_threads[i].slice);
      snprintf(want_raw, sizeof(want_raw), "categories: \"overview\"\n    name: \"%s\"", esc);
      ck_assert_msg(strstr(raw, want) || strstr(raw, want_raw), "decoded: no slice '%s'", want);
    }
    size_t overview_categories = 0;
    for (const char *c = strstr(raw, "categories: \"overview\""); c;
         c = strstr(c + 1, "categories: \"overview\""))
      overview_categories++;
    ck_assert_uint_eq(overview_categories, N_OVERVIEW);
    free(raw);
    free(raw_path);
    snprintf(cmd, sizeof(cmd), "'%s' --decode_raw < '%s' >/dev/null 2>&1", protoc, cut);
    ck_assert_msg(!th_shell_ok(cmd), "protoc accepts a truncated trace");
  }
  free(cut);
  free(bytes);
  tqh_annotation_destroy(ann);
  free(pb);
  free(dbg);
  th_rmtree(dir);
}
END_TEST

START_TEST(perfetto_estimates_stay_as_estimated_beside_what_was_measured) {
  char *dir = th_tmpdir();
  char *dbg = th_path(dir, "dbg");
  th_fixture_debug_info(dbg);
  /* Job 0 now ends 3 µs after the device could start it, but its estimate is 10 µs. */
  char *p = strdup(TH_FIXTURE_PROFILE);
  char *w = strstr(p, "0,2,40,NSS_WAIT_END");
  memcpy(w + 4, "15", 2);
  w = strstr(p, "0,3,40,NSS_WAIT_BEGIN");
  memcpy(w + 4, "15", 2);
  tqh_annotation_t *ann = th_annotate_text(dir, dbg, p);
  ck_assert_uint_eq(ann->diags.count, 0);
  char *pb = th_path(dir, "t.pb");
  TH_OK(tqh_annotation_write_perfetto(ann, pb));
  tqh_trace_t t;
  TH_OK(tqh_trace_read(pb, &t));
  check_slice(&t, "NSS Programs", "job 0", 10000, 15000);
  check_slice(&t, "NDMA In", "job 0", 10000, 15000);
  check_slice(&t, "NDMA In (Compile)", "DI0", 12000, 17000);
  check_slice(&t, "NDMA Out (Compile)", "DO0", 17000, 22000);
  tqh_trace_deinit(&t);
  tqh_annotation_destroy(ann);
  free(pb);
  free(p);
  free(dbg);
  th_rmtree(dir);
}
END_TEST

/* The writer encodes packets by hand; protobuf-c's pack of the same messages is the reference. */
typedef struct ref_trace_s {
  uint8_t bytes[8192];
  size_t len;
  int first;
} ref_trace_t;

static void ref_put(ref_trace_t *r, TqhPf__TracePacket *pkt) {
  pkt->has_trusted_packet_sequence_id = 1;
  pkt->trusted_packet_sequence_id = 1;
  if (r->first) {
    pkt->has_sequence_flags = 1;
    pkt->sequence_flags = 1;
    r->first = 0;
  }
  size_t size = protobuf_c_message_get_packed_size(&pkt->base);
  ck_assert_uint_lt(r->len + 11 + size, sizeof(r->bytes));
  r->bytes[r->len++] = 0x0A;
  uint64_t v = size;
  for (; v >= 0x80; v >>= 7) r->bytes[r->len++] = (uint8_t)(v | 0x80);
  r->bytes[r->len++] = (uint8_t)v;
  r->len += protobuf_c_message_pack(&pkt->base, r->bytes + r->len);
}

static void ref_track(ref_trace_t *r, uint64_t uuid, uint64_t parent, const char *name) {
  TqhPf__TrackDescriptor td = TQH_PF__TRACK_DESCRIPTOR__INIT;
  td.has_uuid = 1;
  td.uuid = uuid;
  td.name = (char *)name;
  td.has_parent_uuid = parent != 0;
  td.parent_uuid = parent;
  TqhPf__TracePacket pkt = TQH_PF__TRACE_PACKET__INIT;
  pkt.track_descriptor = &td;
  ref_put(r, &pkt);
}

static void ref_event(ref_trace_t *r, uint64_t track, uint64_t ts, TqhPf__TrackEvent__Type type,
                      const char *name) {
  TqhPf__TrackEvent ev = TQH_PF__TRACK_EVENT__INIT;
  ev.has_type = ev.has_track_uuid = 1;
  ev.type = type;
  ev.track_uuid = track;
  ev.name = (char *)name;
  TqhPf__TracePacket pkt = TQH_PF__TRACE_PACKET__INIT;
  pkt.has_timestamp = 1;
  pkt.timestamp = ts;
  pkt.track_event = &ev;
  ref_put(r, &pkt);
}

START_TEST(perfetto_writer_bytes_equal_protobuf_c_pack) {
  /* Varints of 1, 2 and 10 bytes; names empty, absent, multi-byte UTF-8 and longer than 127
   * bytes (a two-byte length). */
  char long_name[300];
  memset(long_name, 'x', sizeof(long_name) - 1);
  long_name[sizeof(long_name) - 1] = 0;
  static const struct {
    uint64_t uuid, parent;
    int name; /* into names */
  } tracks[] = {
      {1, 0, 0}, {127, 1, 1}, {128, 0, 2}, {UINT64_MAX, 128, 3}, {(uint64_t)1 << 63, 1, 4}};
  const char *names[] = {"Host", "", "Sl\xc3\xa9 0", long_name, NULL};
  static const struct {
    int track;
    uint64_t start, end;
    int name;
  } slices[] = {{0, 0, 0, 0},
                {1, 5, 127, 1},
                {2, 128, 16384, 2},
                {3, 1000, UINT64_MAX - 1, 3},
                {4, (uint64_t)1 << 40, ((uint64_t)1 << 40) + 1, 4}};
  ref_trace_t *ref = calloc(1, sizeof(*ref));
  ck_assert_ptr_nonnull(ref);
  ref->first = 1;
  tqh__pf_writer_t w;
  tqh__pf_init(&w);
  tqh__pf_track_t tr[5];
  for (size_t i = 0; i < 5; i++) {
    TH_OK(tqh__pf_track(&w, &tr[i], tracks[i].uuid, tracks[i].parent, names[tracks[i].name]));
    ref_track(ref, tracks[i].uuid, tracks[i].parent, names[tracks[i].name]);
  }
  for (size_t i = 0; i < 5; i++) {
    uint64_t uuid = tracks[slices[i].track].uuid;
    TH_OK(tqh__pf_slice(&w, &tr[slices[i].track], slices[i].start, slices[i].end,
                        names[slices[i].name]));
    ref_event(ref, uuid, slices[i].start, TQH_PF__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN,
              names[slices[i].name]);
    ref_event(ref, uuid, slices[i].end, TQH_PF__TRACK_EVENT__TYPE__TYPE_SLICE_END, NULL);
  }
  ck_assert_uint_eq(w.out.len, ref->len);
  ck_assert_msg(memcmp(w.out.data, ref->bytes, ref->len) == 0,
                "the writer's bytes differ from protobuf-c's pack");
  /* And our reader takes them. */
  tqh_trace_t t;
  TH_OK(tqh_trace_parse("w.pb", w.out.data, w.out.len, &t));
  ck_assert_uint_eq(t.num_tracks, 5);
  ck_assert_uint_eq(t.num_slices, 5);
  ck_assert_uint_eq(t.slices[3].end_ns, UINT64_MAX - 1);
  ck_assert_str_eq(t.slices[3].name, long_name);
  tqh_trace_deinit(&t);
  tqh__pf_deinit(&w);
  free(ref);
}
END_TEST

/* Packs hand-made packets into a trace. */
static void *pack(TqhPf__TracePacket **packets, size_t n, size_t *out_len) {
  TqhPf__Trace tr = TQH_PF__TRACE__INIT;
  tr.n_packet = n;
  tr.packet = packets;
  *out_len = tqh_pf__trace__get_packed_size(&tr);
  void *buf = malloc(*out_len + 1);
  ck_assert_ptr_nonnull(buf);
  tqh_pf__trace__pack(&tr, buf);
  return buf;
}

START_TEST(perfetto_reader_rejects_what_the_trace_processor_lets_pass) {
  TqhPf__TrackDescriptor td = TQH_PF__TRACK_DESCRIPTOR__INIT;
  td.has_uuid = 1;
  td.uuid = 7;
  td.name = "T";
  TqhPf__TracePacket desc = TQH_PF__TRACE_PACKET__INIT;
  desc.track_descriptor = &td;
  TqhPf__TrackEvent b = TQH_PF__TRACK_EVENT__INIT, e = TQH_PF__TRACK_EVENT__INIT,
                    other = TQH_PF__TRACK_EVENT__INIT;
  b.has_type = e.has_type = other.has_type = 1;
  b.type = other.type = TQH_PF__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN;
  e.type = TQH_PF__TRACK_EVENT__TYPE__TYPE_SLICE_END;
  b.has_track_uuid = e.has_track_uuid = other.has_track_uuid = 1;
  b.track_uuid = e.track_uuid = 7;
  other.track_uuid = 8;
  b.name = "s";
  TqhPf__TracePacket pb = TQH_PF__TRACE_PACKET__INIT, pe = TQH_PF__TRACE_PACKET__INIT,
                     po = TQH_PF__TRACE_PACKET__INIT, pnots = TQH_PF__TRACE_PACKET__INIT;
  pb.has_timestamp = pe.has_timestamp = po.has_timestamp = 1;
  pb.timestamp = 10;
  pe.timestamp = 20;
  pb.has_trusted_packet_sequence_id = pe.has_trusted_packet_sequence_id =
      po.has_trusted_packet_sequence_id = pnots.has_trusted_packet_sequence_id = 1;
  pb.trusted_packet_sequence_id = pe.trusted_packet_sequence_id =
      po.trusted_packet_sequence_id = pnots.trusted_packet_sequence_id = 1;
  pb.track_event = &b;
  pe.track_event = &e;
  po.track_event = &other;
  pnots.track_event = &b;
  static const struct {
    int packets[4];
    size_t n;
    const char *needle;
  } cases[] = {
      {{0, 1, 2}, 3, NULL},
      {{0, 1}, 2, "slice 's' on track 'T' never ends"},
      {{0, 2}, 2, "SLICE_END without SLICE_BEGIN on track 'T'"},
      {{0, 3}, 2, "an event on an undeclared track"},
      {{0, 4, 2}, 3, "a track event without timestamp"},
      {{0, 0}, 2, "two track descriptors with uuid 7"},
  };
  TqhPf__TracePacket *all[] = {&desc, &pb, &pe, &po, &pnots};
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    TqhPf__TracePacket *packets[4];
    for (size_t k = 0; k < cases[i].n; k++) packets[k] = all[cases[i].packets[k]];
    size_t len;
    void *bytes = pack(packets, cases[i].n, &len);
    tqh_trace_t t;
    tq_status_t st = tqh_trace_parse("t.pb", bytes, len, &t);
    if (!cases[i].needle) {
      ck_assert_msg(st == NULL, "case %zu: %s", i, st ? tq_status_message(st) : "");
      ck_assert_uint_eq(t.num_slices, 1);
      ck_assert_uint_eq(t.slices[0].end_ns, 20);
    } else {
      ck_assert_msg(st != NULL, "case %zu accepted", i);
      ck_assert_msg(strstr(tq_status_message(st), cases[i].needle) != NULL,
                    "case %zu: '%s' lacks '%s'", i, tq_status_message(st), cases[i].needle);
      tq_status_free(st);
    }
    tqh_trace_deinit(&t);
    free(bytes);
  }
  /* Not a trace at all. */
  tqh_trace_t t;
  tq_status_t st = tqh_trace_parse("t.pb", "\x0a\xff\xff\xff", 4, &t);
  ck_assert_ptr_nonnull(st);
  tq_status_free(st);
  tqh_trace_deinit(&t);
}
END_TEST

START_TEST(perfetto_compile_time_trace_puts_each_unit_on_its_track) {
  char *dir = th_tmpdir();
  char *csv = th_path(dir, "trace.csv");
  char *pb = th_path(dir, "trace.pb");
  th_write(csv, "ID,Start,End,Location,Op Type\n"
                "DI0,0,800,\"loc(\"\"m.mlir\"\":7:10)\",DMA_IN\n"
                "DI1,800,1600,\"loc(\"\"m.mlir\"\":7:10)\",DMA_IN\n"
                "S0,800,1200,\"loc(\"\"m.mlir\"\":7:10)\",conv2d\n"
                "S1,800,1000,\"loc(\"\"m.mlir\"\":7:10)\",conv2d\n"
                "S2,1200,1600,\"loc(\"\"m.mlir\"\":7:10)\",conv2d\n"
                "DO0,1600,2400,,DMA_OUT\n"
                "CSS0,1600,9600,,CSS\n"
                "CDMA0,1600,1700,,CDMA\n"
                "X9,1,2,,what\n"
                "DO1,5,4,,DMA_OUT\n");
  tqh_diags_t d;
  tqh_diags_init(&d);
  TH_OK(tqh_compile_trace_to_perfetto(csv, 800000000, pb, &d));
  ck_assert_uint_eq(d.errors, 2);
  ck_assert_uint_eq(d.items[0].line, 10);
  ck_assert_ptr_nonnull(strstr(d.items[0].message, "unknown ID 'X9'"));
  ck_assert_uint_eq(d.items[1].line, 11);
  tqh_trace_t t;
  TH_OK(tqh_trace_read(pb, &t));
  ck_assert_ptr_nonnull(tqh_trace_find(&t, "NPU Task Breakdown", 0));
  check_slice(&t, "NDMA In", "DI1", 1000, 2000);
  check_slice(&t, "Slice 0", "S0 conv2d", 1000, 1500);
  check_slice(&t, "Slice 1", "S1 conv2d", 1000, 1250);
  check_slice(&t, "Slice 0", "S2 conv2d", 1500, 2000);
  check_slice(&t, "CSS", "CSS0", 2000, 12000);
  check_slice(&t, "CDMA", "CDMA0", 2000, 2125);
  ck_assert_uint_eq(t.num_slices, 8);
  tqh_trace_deinit(&t);
  tqh_diags_deinit(&d);
  free(csv);
  free(pb);
  th_rmtree(dir);
}
END_TEST


/* Interning: a name given for interning is inline at its first use, defined (InternedData
 * event_names) at its second and used by iid from then on, those packets flagged
 * SEQ_NEEDS_INCREMENTAL_STATE; protobuf-c's pack of the same messages is the reference, and our
 * reader gives every slice its name back. */
static void ref_interned_begin(ref_trace_t *r, uint64_t track, uint64_t ts, uint64_t iid,
                               const char *define) {
  TqhPf__TrackEvent ev = TQH_PF__TRACK_EVENT__INIT;
  ev.has_type = ev.has_track_uuid = ev.has_name_iid = 1;
  ev.type = TQH_PF__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN;
  ev.track_uuid = track;
  ev.name_iid = iid;
  TqhPf__EventName en = TQH_PF__EVENT_NAME__INIT;
  TqhPf__EventName *ens[1] = {&en};
  TqhPf__InternedData id = TQH_PF__INTERNED_DATA__INIT;
  TqhPf__TracePacket pkt = TQH_PF__TRACE_PACKET__INIT;
  if (define) {
    en.has_iid = 1;
    en.iid = iid;
    en.name = (char *)define;
    id.n_event_names = 1;
    id.event_names = ens;
    pkt.interned_data = &id;
  }
  pkt.has_timestamp = 1;
  pkt.timestamp = ts;
  pkt.track_event = &ev;
  pkt.has_sequence_flags = 1;
  pkt.sequence_flags = 2;
  ref_put(r, &pkt);
}

START_TEST(perfetto_interned_names_bytes_equal_protobuf_c_pack) {
  ref_trace_t *ref = calloc(1, sizeof(*ref));
  ck_assert_ptr_nonnull(ref);
  ref->first = 1;
  tqh__pf_writer_t w;
  tqh__pf_init(&w);
  tqh__pf_track_t a, b;
  TH_OK(tqh__pf_track(&w, &a, 1, 0, "Alloc"));
  ref_track(ref, 1, 0, "Alloc");
  TH_OK(tqh__pf_track(&w, &b, 300, 1, "NSS Actions"));
  ref_track(ref, 300, 1, "NSS Actions");
  /* ALLOC 0 three times, NSS_START 1 twice, a phase name (not for interning) twice, across
   * both tracks; then 200 distinct names used twice each, so that iids take two bytes. */
  static const struct {
    int track, intern;
    const char *name;
    uint64_t iid; /* 0: inline */
    int define;
  } uses[] = {
      {0, 1, "ALLOC 0", 0, 0},       {1, 1, "NSS_START 1", 0, 0}, {0, 1, "ALLOC 0", 1, 1},
      {0, 0, "DISPATCH #1", 0, 0},   {1, 1, "ALLOC 0", 1, 0},     {1, 1, "NSS_START 1", 2, 1},
      {0, 0, "DISPATCH #1", 0, 0},   {0, 1, "ALLOC 0", 1, 0},
  };
  uint64_t ts = 0;
  for (size_t i = 0; i < sizeof(uses) / sizeof(uses[0]); i++, ts += 10) {
    tqh__pf_track_t *t = uses[i].track ? &b : &a;
    uint64_t uuid = uses[i].track ? 300 : 1;
    TH_OK(tqh__pf_slice_n(&w, t, ts, ts + 5, uses[i].name, strlen(uses[i].name), NULL,
                          uses[i].intern));
    if (uses[i].iid)
      ref_interned_begin(ref, uuid, ts, uses[i].iid, uses[i].define ? uses[i].name : NULL);
    else
      ref_event(ref, uuid, ts, TQH_PF__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN, uses[i].name);
    ref_event(ref, uuid, ts + 5, TQH_PF__TRACK_EVENT__TYPE__TYPE_SLICE_END, NULL);
  }
  ck_assert_uint_eq(w.out.len, ref->len);
  ck_assert_msg(memcmp(w.out.data, ref->bytes, ref->len) == 0,
                "the writer's interned packets differ from protobuf-c's pack");
  tqh_trace_t t;
  TH_OK(tqh_trace_parse("w.pb", w.out.data, w.out.len, &t));
  ck_assert_uint_eq(t.num_slices, sizeof(uses) / sizeof(uses[0]));
  for (size_t i = 0; i < t.num_slices; i++) {
    ck_assert_str_eq(t.slices[i].name, uses[i].name);
    ck_assert_uint_eq(t.slices[i].track_uuid, uses[i].track ? 300 : 1);
    ck_assert_uint_eq(t.slices[i].start_ns, 10 * i);
  }
  tqh_trace_deinit(&t);
  tqh__pf_deinit(&w);
  /* Many names: iids past 127 (two-byte varints) and the hash set's growth. */
  tqh__pf_init(&w);
  TH_OK(tqh__pf_track(&w, &a, 1, 0, "Alloc"));
  char name[32];
  for (int round = 0; round < 3; round++)
    for (int i = 0; i < 1000; i++) {
      snprintf(name, sizeof(name), "ALLOC %d", i);
      TH_OK(tqh__pf_slice_n(&w, &a, 0, 0, name, strlen(name), NULL, 1));
    }
  ck_assert_uint_eq(w.next_iid, 1000);
  TH_OK(tqh_trace_parse("w.pb", w.out.data, w.out.len, &t));
  ck_assert_uint_eq(t.num_slices, 3000);
  for (size_t i = 0; i < t.num_slices; i++) {
    snprintf(name, sizeof(name), "ALLOC %zu", i % 1000);
    ck_assert_str_eq(t.slices[i].name, name);
  }
  tqh_trace_deinit(&t);
  tqh__pf_deinit(&w);
  free(ref);
}
END_TEST

/* The reader: category iids, an iid defined after its use or never, a cleared sequence that
 * forgets its names. */
START_TEST(perfetto_reader_resolves_iids_and_refuses_undefined_ones) {
  ref_trace_t *ref = calloc(1, sizeof(*ref));
  ck_assert_ptr_nonnull(ref);
  ref->first = 1;
  ref_track(ref, 1, 0, "T");
  /* A packet defining name 7 and category 3, used by the same event. */
  TqhPf__EventName en = TQH_PF__EVENT_NAME__INIT;
  en.has_iid = 1;
  en.iid = 7;
  en.name = "named";
  TqhPf__EventCategory ec = TQH_PF__EVENT_CATEGORY__INIT;
  ec.has_iid = 1;
  ec.iid = 3;
  ec.name = "overview";
  TqhPf__EventName *ens[1] = {&en};
  TqhPf__EventCategory *ecs[1] = {&ec};
  TqhPf__InternedData id = TQH_PF__INTERNED_DATA__INIT;
  id.n_event_names = 1;
  id.event_names = ens;
  id.n_event_categories = 1;
  id.event_categories = ecs;
  uint64_t cats[1] = {3};
  TqhPf__TrackEvent ev = TQH_PF__TRACK_EVENT__INIT;
  ev.has_type = ev.has_track_uuid = ev.has_name_iid = 1;
  ev.type = TQH_PF__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN;
  ev.track_uuid = 1;
  ev.name_iid = 7;
  ev.n_category_iids = 1;
  ev.category_iids = cats;
  TqhPf__TracePacket pkt = TQH_PF__TRACE_PACKET__INIT;
  pkt.has_timestamp = 1;
  pkt.timestamp = 5;
  pkt.track_event = &ev;
  pkt.interned_data = &id;
  ref_put(ref, &pkt);
  ref_event(ref, 1, 9, TQH_PF__TRACK_EVENT__TYPE__TYPE_SLICE_END, NULL);
  size_t good = ref->len;
  tqh_trace_t t;
  TH_OK(tqh_trace_parse("r.pb", ref->bytes, good, &t));
  ck_assert_uint_eq(t.num_slices, 1);
  ck_assert_str_eq(t.slices[0].name, "named");
  ck_assert_str_eq(t.slices[0].category, "overview");
  tqh_trace_deinit(&t);
  /* Name 8, never defined. */
  pkt.interned_data = NULL;
  ev.n_category_iids = 0;
  ev.name_iid = 8;
  ref_put(ref, &pkt);
  tq_status_t st = tqh_trace_parse("r.pb", ref->bytes, ref->len, &t);
  ck_assert_ptr_nonnull(st);
  ck_assert_msg(strstr(tq_status_message(st), "packet 3: event name iid 8 that no packet before "
                                              "it defined") != NULL,
                "%s", tq_status_message(st));
  tq_status_free(st);
  tqh_trace_deinit(&t);
  /* Name 7 after a packet that clears the sequence's state: forgotten. */
  ref->len = good;
  pkt.has_sequence_flags = 1;
  pkt.sequence_flags = 1;
  ev.name_iid = 7;
  ref_put(ref, &pkt);
  st = tqh_trace_parse("r.pb", ref->bytes, ref->len, &t);
  ck_assert_ptr_nonnull(st);
  ck_assert_ptr_nonnull(strstr(tq_status_message(st), "event name iid 7 that no packet"));
  tq_status_free(st);
  tqh_trace_deinit(&t);
  /* An iid of 0 in interned data is refused. */
  ref->len = good;
  pkt.has_sequence_flags = 0;
  en.iid = 0;
  pkt.interned_data = &id;
  ref_put(ref, &pkt);
  st = tqh_trace_parse("r.pb", ref->bytes, ref->len, &t);
  ck_assert_ptr_nonnull(st);
  ck_assert_ptr_nonnull(strstr(tq_status_message(st), "an interned event name with iid 0"));
  tq_status_free(st);
  tqh_trace_deinit(&t);
  free(ref);
}
END_TEST

/* The fixture's dispatch run `n` times (invocations 1 to n, 100 µs apart). */
static char *repeated_profile(int n) {
  const char *body = strstr(TH_FIXTURE_PROFILE, "main_dispatch_0,0,-1,10,DISPATCH_BEGIN");
  size_t cap = strlen(TH_FIXTURE_PROFILE) * (size_t)(n + 1) + 64;
  char *out = malloc(cap), *o = out;
  o += sprintf(o, "%s", TQH_PROFILE_HEADER "\n");
  for (int k = 1; k <= n; k++) {
    char line[128];
    for (const char *c = body; *c;) {
      const char *nl = strchr(c, '\n');
      memcpy(line, c, (size_t)(nl - c));
      line[nl - c] = 0;
      char d[64];
      int inv, action;
      unsigned ts;
      char ev[64];
      ck_assert_int_eq(sscanf(line, "%63[^,],%d,%d,%u,%63s", d, &inv, &action, &ts, ev), 5);
      o += sprintf(o, "%s,%d,%d,%u,%s\n", d, k, action, ts + 100u * (unsigned)k, ev);
      c = nl + 1;
    }
  }
  return out;
}

static size_t slices_on(const tqh_trace_t *t, const char *track) {
  const tqh_trace_track_t *tr = NULL;
  for (size_t i = 0; i < t->num_tracks && !tr; i++)
    if (strcmp(t->tracks[i].name, track) == 0) tr = &t->tracks[i];
  ck_assert_msg(tr != NULL, "no track %s", track);
  size_t n = 0;
  for (size_t i = 0; i < t->num_slices; i++) n += t->slices[i].track_uuid == tr->uuid;
  return n;
}

/* --max-detail-invocations: the estimates of the first N invocations only; every measured slice
 * of every invocation, by its name, and the same overview, whatever N. */
START_TEST(perfetto_detail_is_bounded_by_invocations_and_the_rest_is_not) {
  char *dir = th_tmpdir();
  char *dbg = th_path(dir, "dbg");
  th_fixture_debug_info(dbg);
  char *text = repeated_profile(5);
  tqh_annotation_t *ann = th_annotate_text(dir, dbg, text);
  ck_assert_uint_eq(ann->diags.count, 0);
  char *pb = th_path(dir, "t.pb");
  static const size_t limits[] = {0, 2, 5, SIZE_MAX};
  size_t tasks_per_run = 0, overview_ns[64], n_overview = 0;
  for (size_t l = 0; l < 4; l++) {
    tqh_perfetto_options_t po;
    tqh_perfetto_options_initialize(&po);
    ck_assert_uint_eq(po.max_detail_invocations, TQH_DEFAULT_MAX_DETAIL_INVOCATIONS);
    po.max_detail_invocations = limits[l];
    TH_OK(tqh_annotation_write_perfetto_opt(ann, pb, &po));
    size_t drawn = limits[l] < 5 ? limits[l] : 5;
    /* The fixture's run has 3 NSS programs. */
    ck_assert_uint_eq(po.omitted_detail_runs, (5 - drawn) * 3);
    tqh_trace_t t;
    TH_OK(tqh_trace_read(pb, &t));
    if (l == 3) ck_assert_uint_eq(slices_on(&t, "NSS CFG Tasks (Compile)"), 5 * tasks_per_run);
    if (l == 1) tasks_per_run = slices_on(&t, "NSS CFG Tasks (Compile)") / 2;
    if (l == 0) ck_assert_uint_eq(slices_on(&t, "NSS CFG Tasks (Compile)"), 0);
    if (l == 2) ck_assert_uint_eq(slices_on(&t, "NSS CFG Tasks (Compile)"), 5 * tasks_per_run);
    /* Measured: all of them, named as inline names would be. */
    ck_assert_uint_eq(slices_on(&t, "NSS Programs"), 15);
    ck_assert_uint_eq(slices_on(&t, "NSS Actions"), 5 * 6);
    ck_assert_uint_eq(slices_on(&t, "Dispatch"), 5);
    size_t start1 = 0, alloc9 = 0, job1 = 0;
    for (size_t i = 0; i < t.num_slices; i++) {
      start1 += strcmp(t.slices[i].name, "NSS_START 1") == 0;
      alloc9 += strcmp(t.slices[i].name, "ALLOC 9") == 0;
      job1 += strcmp(t.slices[i].name, "job 1: add") == 0;
    }
    ck_assert_uint_eq(start1, 5);
    ck_assert_uint_eq(alloc9, 5);
    ck_assert_uint_eq(job1, 5 * 3); /* NSS Programs, Slice 1, CSS */
    check_slice(&t, "Dispatch", "DISPATCH #5", 510000, 600000);
    /* The overview: the same whatever the limit. */
    size_t k = 0;
    for (size_t i = 0; i < t.num_slices; i++) {
      if (!t.slices[i].category) continue;
      if (l == 0) overview_ns[n_overview++] = t.slices[i].end_ns - t.slices[i].start_ns;
      else ck_assert_uint_eq(t.slices[i].end_ns - t.slices[i].start_ns, overview_ns[k]);
      k++;
    }
    ck_assert_uint_eq(k, n_overview);
    tqh_trace_deinit(&t);
  }
  ck_assert_uint_gt(tasks_per_run, 0);
  ck_assert_uint_eq(n_overview, N_OVERVIEW);
  tqh_annotation_destroy(ann);
  free(text);
  free(pb);
  free(dbg);
  th_rmtree(dir);
}
END_TEST

/* The overview the writer hands back is the one tqh_overview_read reads from the file, metric
 * for metric and in its order, whether it was worked out on a thread of its own or not (the
 * files are the same); a trace that cannot be written hands back none, and out of memory at any
 * allocation on either thread is reported. */
START_TEST(perfetto_writer_gives_the_overview_the_trace_holds) {
  char *dir = th_tmpdir();
  char *dbg = th_path(dir, "dbg");
  th_fixture_debug_info(dbg);
  char *text = repeated_profile(3);
  tqh_annotation_t *ann = th_annotate_text(dir, dbg, text);
  ck_assert_uint_eq(ann->diags.count, 0);
  char *pb = th_path(dir, "t.pb"), *pb_threaded = th_path(dir, "t2.pb");
  tqh_overview_t written, back;
  tqh_perfetto_options_t po;
  tqh_perfetto_options_initialize(&po);
  po.overview = &written;
  size_t saved = tqh__overview_thread_rows;
  tqh__overview_thread_rows = 1;
  TH_OK(tqh_annotation_write_perfetto_opt(ann, pb_threaded, &po));
  tqh_overview_deinit(&written);
  int succeeded = 0;
  for (long n = 0; n < 5000 && !succeeded; n++) {
    tq_alloc_fail_after(n);
    tq_status_t st = tqh_annotation_write_perfetto_opt(ann, pb_threaded, &po);
    tq_alloc_fail_after(-1);
    if (st) {
      ck_assert_msg(tq_status_code(st) == TQ_OUT_OF_MEMORY, "after %ld: %s", n,
                    tq_status_message(st));
      ck_assert_uint_eq(written.count, 0);
      tq_status_free(st);
    } else {
      succeeded = 1;
      tqh_overview_deinit(&written);
    }
  }
  ck_assert(succeeded);
  tqh__overview_thread_rows = SIZE_MAX;
  TH_OK(tqh_annotation_write_perfetto_opt(ann, pb, &po));
  tqh__overview_thread_rows = saved;
  size_t len1 = 0, len2 = 0;
  char *b1 = th_read(pb, &len1), *b2 = th_read(pb_threaded, &len2);
  ck_assert_uint_eq(len1, len2);
  ck_assert(memcmp(b1, b2, len1) == 0);
  free(b1);
  free(b2);
  free(pb_threaded);
  const char *paths[1] = {pb};
  TH_OK(tqh_overview_read(paths, 1, &back));
  ck_assert_uint_eq(written.count, N_OVERVIEW);
  ck_assert_uint_eq(back.count, written.count);
  uint64_t sum = 0;
  for (size_t i = 0; i < back.count; i++) {
    ck_assert_str_eq(written.metrics[i].name, back.metrics[i].name);
    ck_assert_str_eq(written.metrics[i].key, back.metrics[i].key);
    ck_assert_uint_eq(written.metrics[i].ns, back.metrics[i].ns);
    sum += written.metrics[i].ns;
  }
  ck_assert_uint_gt(sum, 0);
  tqh_overview_deinit(&back);
  tqh_overview_deinit(&written);
  char *bad = th_path(dir, "no/such/folder/t.pb");
  tq_status_t st = tqh_annotation_write_perfetto_opt(ann, bad, &po);
  ck_assert_ptr_nonnull(st);
  tq_status_free(st);
  ck_assert_uint_eq(written.count, 0);
  ck_assert_ptr_null(written.metrics);
  tqh_annotation_destroy(ann);
  free(bad);
  free(text);
  free(pb);
  free(dbg);
  th_rmtree(dir);
}
END_TEST

Suite *perfetto_suite(void) {
  Suite *s = suite_create("perfetto");
  TCase *tc = tcase_create("perfetto");
  tcase_add_test(tc, perfetto_trace_of_the_fixture_reads_back_with_every_slice_closed);
  tcase_add_test(tc, perfetto_estimates_stay_as_estimated_beside_what_was_measured);
  tcase_add_test(tc, perfetto_reader_rejects_what_the_trace_processor_lets_pass);
  tcase_add_test(tc, perfetto_compile_time_trace_puts_each_unit_on_its_track);
  tcase_add_test(tc, perfetto_writer_bytes_equal_protobuf_c_pack);
  tcase_add_test(tc, perfetto_interned_names_bytes_equal_protobuf_c_pack);
  tcase_add_test(tc, perfetto_reader_resolves_iids_and_refuses_undefined_ones);
  tcase_add_test(tc, perfetto_detail_is_bounded_by_invocations_and_the_rest_is_not);
  tcase_add_test(tc, perfetto_writer_gives_the_overview_the_trace_holds);
  suite_add_tcase(s, tc);
  return s;
}
