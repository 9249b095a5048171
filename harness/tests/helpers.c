/* Helpers of the harness tests: temporary folders, files, the hand-made debug-info fixture. */
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "suites.h"
#include "torq/base/sha256.h"

char *th_tmpdir(void) {
  const char *base = getenv("TMPDIR");
  char tmpl[4096];
  snprintf(tmpl, sizeof(tmpl), "%s/torq-harness-XXXXXX", base && *base ? base : "/tmp");
  ck_assert_ptr_nonnull(mkdtemp(tmpl));
  char *s = strdup(tmpl);
  ck_assert_ptr_nonnull(s);
  return s;
}

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
  (void)sb;
  (void)flag;
  (void)ftw;
  return remove(path);
}

void th_rmtree(char *path) {
  if (!path) return;
  nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
  free(path);
}

char *th_path(const char *dir, const char *name) {
  size_t n = strlen(dir) + strlen(name) + 2;
  char *s = malloc(n);
  ck_assert_ptr_nonnull(s);
  snprintf(s, n, "%s/%s", dir, name);
  return s;
}

void th_write(const char *path, const char *text) {
  FILE *f = fopen(path, "wb");
  ck_assert_msg(f != NULL, "cannot create %s", path);
  size_t n = strlen(text);
  ck_assert_uint_eq(fwrite(text, 1, n, f), n);
  ck_assert_int_eq(fclose(f), 0);
}

char *th_read(const char *path, size_t *out_len) {
  FILE *f = fopen(path, "rb");
  ck_assert_msg(f != NULL, "cannot open %s", path);
  size_t cap = 4096, len = 0;
  char *s = malloc(cap);
  ck_assert_ptr_nonnull(s);
  size_t n;
  while ((n = fread(s + len, 1, cap - len - 1, f)) > 0) {
    len += n;
    if (cap - len < 2) {
      cap *= 2;
      s = realloc(s, cap);
      ck_assert_ptr_nonnull(s);
    }
  }
  fclose(f);
  s[len] = 0;
  if (out_len) *out_len = len;
  return s;
}

static const char fixture_source[] =
    "func.func @main(%arg0: tensor<4xi8>) -> tensor<4xi8> {\n"
    "  %0 = \"tosa.abs\"(%arg0) : (tensor<4xi8>) -> tensor<4xi8>\n"
    "  return %0 : tensor<4xi8>\n"
    "}\n";

#define LOC "loc(\"m.mlir\":2:8)"
#define ACTION(id, kind, extra) \
  "    \"torq.action\"() {\"torq-action-id\" = " #id " : i64, kind = \"" kind "\"" extra \
  "} : () -> () " LOC "\n"
#define JOB(j) ", \"torq-job-id\" = " #j " : i64"
#define UNIT(id, unit, kernel, s, e)                                                              \
  "        \"torq.unit\"() {id = \"" id "\", unit = \"" unit "\", kernel = \"" kernel             \
  "\", start = " #s " : i64, end = " #e " : i64, bytes = 8 : i64} : () -> () " LOC "\n"
#define TASK(i, s, e, units)                                                                      \
  "      \"torq.task\"() ({\n" units "      }) {index = " #i " : i64, start = " #s             \
  " : i64, end = " #e " : i64} : () -> () loc(unknown)\n"
#define PROGRAM(j, a, cycles, ops, units, tasks)                                                  \
  "    \"torq.nss_program\"() ({\n" tasks "    }) {\"torq-job-id\" = " #j                       \
  " : i64, \"torq-action-id\" = " #a " : i64, cycles = " #cycles                                 \
  " : i64, kernel = \"\", original_operators = " ops ", units = " units "} : () -> () " LOC "\n"

static const char fixture_program[] =
    "\"builtin.module\"() ({\n"
    "  \"torq.dispatch\"() ({\n"
    ACTION(0, "NSS_START", JOB(0))
    ACTION(1, "NSS_START", JOB(1))
    ACTION(2, "NSS_WAIT", JOB(0))
    ACTION(3, "NSS_WAIT", JOB(1))
    ACTION(4, "HOST_COPY", ", buffer = 1 : i64")
    ACTION(5, "HOST_START", ", \"torq-host-program-id\" = 0 : i64")
    ACTION(6, "HOST_WAIT", ", \"torq-host-program-id\" = 0 : i64")
    ACTION(7, "NSS_START", JOB(2))
    ACTION(8, "NSS_WAIT", JOB(2))
    ACTION(9, "ALLOC", ", buffer = 2 : i64")
    PROGRAM(0, 0, 8000, "[\"tosa.abs@L2\"]", "[\"DMA_IN\", \"DMA_OUT\"]",
            TASK(0, 0, 4000, UNIT("DI0", "DMA_IN", "DMA_IN", 0, 4000))
            TASK(1, 4000, 8000, UNIT("DO0", "DMA_OUT", "DMA_OUT", 4000, 8000)))
    PROGRAM(1, 1, 16000, "[\"tosa.add@L9\", \"tosa.abs@L2\"]", "[\"SLICE1\", \"CSS\"]",
            TASK(0, 0, 16000, UNIT("S0", "SLICE1", "add", 0, 8000)
                 UNIT("CSS0", "CSS", "softmax", 0, 16000)))
    PROGRAM(2, 7, 800, "[\"tosa.conv2d@L3\"]", "[\"CDMA\", \"SLICE0\"]",
            TASK(0, 0, 800, UNIT("CDMA0", "CDMA", "CDMA", 0, 400)
                 UNIT("S1", "SLICE0", "conv2d", 0, 800)))
    "    \"torq.host_program\"() {id = 0 : i64, \"torq-host-program-id\" = 0 : i64, "
    "\"torq-action-id\" = 5 : i64, op = \"tosa.cast\", original_operators = "
    "[\"tosa.cast@L2\"]} : () -> () " LOC "\n"
    "  }) {name = \"main_dispatch_0\", function = \"main\"} : () -> () loc(unknown)\n"
    "}) : () -> () loc(unknown)\n";

/* Times chosen for the overview test (see test_overview.c for the arithmetic). */
const char TH_FIXTURE_PROFILE[] =
    "dispatch_name,invocation_id,action_id,timestamp_us,event\n"
    "main_dispatch_0,0,-1,0,INIT_BEGIN\n"
    "main_dispatch_0,0,-1,10,INIT_END\n"
    "main_dispatch_0,0,-1,10,DISPATCH_BEGIN\n"
    "main_dispatch_0,0,0,10,NSS_START_BEGIN\n"
    "main_dispatch_0,0,0,12,NSS_START_END\n"
    "main_dispatch_0,0,1,12,NSS_START_BEGIN\n"
    "main_dispatch_0,0,1,14,NSS_START_END\n"
    "main_dispatch_0,0,2,14,NSS_WAIT_BEGIN\n"
    "main_dispatch_0,0,2,40,NSS_WAIT_END\n"
    "main_dispatch_0,0,3,40,NSS_WAIT_BEGIN\n"
    "main_dispatch_0,0,3,50,NSS_WAIT_END\n"
    "main_dispatch_0,0,4,50,HOST_COPY_BEGIN\n"
    "main_dispatch_0,0,4,60,HOST_COPY_END\n"
    "main_dispatch_0,0,5,60,HOST_START_BEGIN\n"
    "main_dispatch_0,0,5,62,HOST_START_END\n"
    "main_dispatch_0,0,6,62,HOST_WAIT_BEGIN\n"
    "main_dispatch_0,0,6,80,HOST_WAIT_END\n"
    "main_dispatch_0,0,7,80,NSS_START_BEGIN\n"
    "main_dispatch_0,0,7,81,NSS_START_END\n"
    "main_dispatch_0,0,8,81,NSS_WAIT_BEGIN\n"
    "main_dispatch_0,0,8,90,NSS_WAIT_END\n"
    "main_dispatch_0,0,9,90,ALLOC_BEGIN\n"
    "main_dispatch_0,0,9,91,ALLOC_END\n"
    "main_dispatch_0,0,-1,100,DISPATCH_END\n";

void th_fixture_debug_info(const char *dir) {
  char *src_dir = th_path(dir, "source");
  mkdir(dir, 0777);
  ck_assert_int_eq(mkdir(src_dir, 0777), 0);
  char *src = th_path(src_dir, "m.mlir");
  th_write(src, fixture_source);
  uint8_t digest[TQ_SHA256_SIZE];
  char hex[TQ_SHA256_HEX_SIZE];
  TH_OK(tq_sha256(fixture_source, strlen(fixture_source), digest));
  tq_sha256_hex(digest, hex);
  char manifest[2048];
  snprintf(manifest, sizeof(manifest),
           "{\n  \"format\": 1,\n  \"model\": \"m.mlir\",\n  \"source\": \"source/m.mlir\",\n"
           "  \"source_sha256\": \"%s\",\n  \"function\": \"main\",\n"
           "  \"hardware\": {\"spec\": \"sl2610\", \"clock_hz\": 800000000, \"lram_bytes\": "
           "524288, \"slices\": 2},\n  \"dispatches\": [{\"name\": \"main_dispatch_0\", "
           "\"program\": \"main_dispatch_0.torq.mlir\"}]\n}\n",
           hex);
  char *m = th_path(dir, "manifest.json");
  th_write(m, manifest);
  char *prog = th_path(dir, "main_dispatch_0.torq.mlir");
  th_write(prog, fixture_program);
  free(prog);
  free(m);
  free(src);
  free(src_dir);
}

tqh_annotation_t *th_annotate_text(const char *dir, const char *debug_dir, const char *profile) {
  char *p = th_path(dir, "p.csv");
  th_write(p, profile);
  tqh_annotation_t *ann = NULL;
  TH_OK(tqh_annotate(debug_dir, p, NULL, &ann));
  free(p);
  ck_assert_ptr_nonnull(ann);
  return ann;
}

int th_has_diag(const tqh_annotation_t *ann, tqh_severity_t severity, unsigned line,
                const char *needle) {
  for (size_t i = 0; i < ann->diags.count; i++) {
    const tqh_diag_t *d = &ann->diags.items[i];
    if (d->severity == severity && d->line == line && strstr(d->message, needle)) return 1;
  }
  return 0;
}

char *th_diags_text(const tqh_annotation_t *ann) {
  tq_buf_t b;
  tq_buf_init(&b, 0);
  TH_OK(tqh_diags_format(&ann->diags, &b));
  char *s = strdup(b.data ? b.data : "(none)");
  tq_buf_deinit(&b);
  return s;
}

int th_shell_ok(const char *cmd) {
  int rc = system(cmd);
  return rc != -1 && WIFEXITED(rc) && WEXITSTATUS(rc) == 0;
}
