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

/* The Torq runtime's shape (test_overview.c works out its metrics): INIT with every part
 * (invocation 0), a HAL scope (1), a dispatch run (2) during whose end a second HAL scope begins
 * (3, with a HAL event that carries an action id), a second dispatch run (4), rows in time order
 * across them. */
const char TH_FIXTURE_TORQ_PROFILE[] =
    "dispatch_name,invocation_id,action_id,timestamp_us,event\n"
    "main_dispatch_0,0,-1,0,INIT_BEGIN\n"
    "main_dispatch_0,0,-1,0,INIT_PREPARE_OUTPUT_DIRS_BEGIN\n"
    "main_dispatch_0,0,-1,1,INIT_PREPARE_OUTPUT_DIRS_END\n"
    "main_dispatch_0,0,-1,1,INIT_COMPUTE_XRAM_FOOTPRINT_BEGIN\n"
    "main_dispatch_0,0,-1,2,INIT_COMPUTE_XRAM_FOOTPRINT_END\n"
    "main_dispatch_0,0,-1,2,INIT_HW_OPEN_BEGIN\n"
    "main_dispatch_0,0,-1,5,INIT_HW_OPEN_END\n"
    "main_dispatch_0,0,-1,5,INIT_CLEAR_MEMORY_BEGIN\n"
    "main_dispatch_0,0,-1,6,INIT_CLEAR_MEMORY_END\n"
    "main_dispatch_0,0,-1,6,INIT_LOAD_CODE_SEGMENTS_BEGIN\n"
    "main_dispatch_0,0,-1,8,INIT_LOAD_CODE_SEGMENTS_END\n"
    "main_dispatch_0,0,-1,8,INIT_LOAD_HOST_CODE_BEGIN\n"
    "main_dispatch_0,0,-1,9,INIT_LOAD_HOST_CODE_END\n"
    "main_dispatch_0,0,-1,10,INIT_END\n"
    "__HAL_QUEUE_ALLOCA__,1,-1,20,HAL_CALL_BEGIN\n"
    "__HAL_QUEUE_ALLOCA__,1,-1,21,HAL_QUEUE_WAIT_BEGIN\n"
    "__HAL_QUEUE_ALLOCA__,1,-1,23,HAL_QUEUE_WAIT_END\n"
    "__HAL_QUEUE_ALLOCA__,1,-1,24,HAL_CALL_END\n"
    "main_dispatch_0,2,-1,30,DISPATCH_BEGIN\n"
    "main_dispatch_0,2,-1,30,DISPATCH_ACQUIRE_HW_RESOURCES_BEGIN\n"
    "main_dispatch_0,2,-1,31,DISPATCH_ACQUIRE_HW_RESOURCES_END\n"
    "main_dispatch_0,2,-1,31,DISPATCH_SYNC_BINDINGS_IN_BEGIN\n"
    "main_dispatch_0,2,-1,33,DISPATCH_SYNC_BINDINGS_IN_END\n"
    "main_dispatch_0,2,-1,35,DISPATCH_EXECUTE_ACTIONS_BEGIN\n"
    "main_dispatch_0,2,0,35,NSS_START_BEGIN\n"
    "main_dispatch_0,2,0,36,NSS_START_END\n"
    "main_dispatch_0,2,1,36,NSS_START_BEGIN\n"
    "main_dispatch_0,2,1,37,NSS_START_END\n"
    "main_dispatch_0,2,2,37,NSS_WAIT_BEGIN\n"
    "main_dispatch_0,2,2,45,NSS_WAIT_END\n"
    "main_dispatch_0,2,3,45,NSS_WAIT_BEGIN\n"
    "main_dispatch_0,2,3,50,NSS_WAIT_END\n"
    "main_dispatch_0,2,4,50,HOST_COPY_BEGIN\n"
    "main_dispatch_0,2,4,52,HOST_COPY_END\n"
    "main_dispatch_0,2,5,52,HOST_START_BEGIN\n"
    "main_dispatch_0,2,5,53,HOST_START_END\n"
    "main_dispatch_0,2,6,53,HOST_WAIT_BEGIN\n"
    "main_dispatch_0,2,6,60,HOST_WAIT_END\n"
    "main_dispatch_0,2,7,60,NSS_START_BEGIN\n"
    "main_dispatch_0,2,7,61,NSS_START_END\n"
    "main_dispatch_0,2,8,61,NSS_WAIT_BEGIN\n"
    "main_dispatch_0,2,8,66,NSS_WAIT_END\n"
    "main_dispatch_0,2,9,66,ALLOC_BEGIN\n"
    "main_dispatch_0,2,9,67,ALLOC_END\n"
    "main_dispatch_0,2,-1,67,DISPATCH_EXECUTE_ACTIONS_END\n"
    "main_dispatch_0,2,-1,67,DISPATCH_SYNC_BINDINGS_OUT_BEGIN\n"
    "main_dispatch_0,2,-1,68,DISPATCH_SYNC_BINDINGS_OUT_END\n"
    "main_dispatch_0,2,-1,68,DISPATCH_RELEASE_HW_RESOURCES_BEGIN\n"
    "__HAL_QUEUE_EXECUTE__,3,-1,68,HAL_CALL_BEGIN\n"
    "main_dispatch_0,2,-1,69,DISPATCH_RELEASE_HW_RESOURCES_END\n"
    "main_dispatch_0,2,-1,70,DISPATCH_END\n"
    "__HAL_QUEUE_EXECUTE__,3,0,72,HAL_COMMAND_BUFFER_COPY_BUFFER_BEGIN\n"
    "__HAL_QUEUE_EXECUTE__,3,0,75,HAL_COMMAND_BUFFER_COPY_BUFFER_END\n"
    "__HAL_QUEUE_EXECUTE__,3,-1,76,HAL_QUEUE_SIGNAL_BEGIN\n"
    "__HAL_QUEUE_EXECUTE__,3,-1,78,HAL_QUEUE_SIGNAL_END\n"
    "__HAL_QUEUE_EXECUTE__,3,-1,80,HAL_CALL_END\n"
    "main_dispatch_0,4,-1,100,DISPATCH_BEGIN\n"
    "main_dispatch_0,4,-1,100,DISPATCH_ACQUIRE_HW_RESOURCES_BEGIN\n"
    "main_dispatch_0,4,-1,101,DISPATCH_ACQUIRE_HW_RESOURCES_END\n"
    "main_dispatch_0,4,-1,101,DISPATCH_SYNC_BINDINGS_IN_BEGIN\n"
    "main_dispatch_0,4,-1,103,DISPATCH_SYNC_BINDINGS_IN_END\n"
    "main_dispatch_0,4,-1,105,DISPATCH_EXECUTE_ACTIONS_BEGIN\n"
    "main_dispatch_0,4,0,105,NSS_START_BEGIN\n"
    "main_dispatch_0,4,0,106,NSS_START_END\n"
    "main_dispatch_0,4,1,106,NSS_START_BEGIN\n"
    "main_dispatch_0,4,1,107,NSS_START_END\n"
    "main_dispatch_0,4,2,107,NSS_WAIT_BEGIN\n"
    "main_dispatch_0,4,2,115,NSS_WAIT_END\n"
    "main_dispatch_0,4,3,115,NSS_WAIT_BEGIN\n"
    "main_dispatch_0,4,3,120,NSS_WAIT_END\n"
    "main_dispatch_0,4,4,120,HOST_COPY_BEGIN\n"
    "main_dispatch_0,4,4,122,HOST_COPY_END\n"
    "main_dispatch_0,4,5,122,HOST_START_BEGIN\n"
    "main_dispatch_0,4,5,123,HOST_START_END\n"
    "main_dispatch_0,4,6,123,HOST_WAIT_BEGIN\n"
    "main_dispatch_0,4,6,130,HOST_WAIT_END\n"
    "main_dispatch_0,4,7,130,NSS_START_BEGIN\n"
    "main_dispatch_0,4,7,131,NSS_START_END\n"
    "main_dispatch_0,4,8,131,NSS_WAIT_BEGIN\n"
    "main_dispatch_0,4,8,136,NSS_WAIT_END\n"
    "main_dispatch_0,4,9,136,ALLOC_BEGIN\n"
    "main_dispatch_0,4,9,137,ALLOC_END\n"
    "main_dispatch_0,4,-1,137,DISPATCH_EXECUTE_ACTIONS_END\n"
    "main_dispatch_0,4,-1,137,DISPATCH_SYNC_BINDINGS_OUT_BEGIN\n"
    "main_dispatch_0,4,-1,138,DISPATCH_SYNC_BINDINGS_OUT_END\n"
    "main_dispatch_0,4,-1,138,DISPATCH_RELEASE_HW_RESOURCES_BEGIN\n"
    "main_dispatch_0,4,-1,139,DISPATCH_RELEASE_HW_RESOURCES_END\n"
    "main_dispatch_0,4,-1,140,DISPATCH_END\n";

void th_fixture_debug_info_dispatches(const char *dir, int dispatches) {
  char *src_dir = th_path(dir, "source");
  mkdir(dir, 0777);
  ck_assert_int_eq(mkdir(src_dir, 0777), 0);
  char *src = th_path(src_dir, "m.mlir");
  th_write(src, fixture_source);
  uint8_t digest[TQ_SHA256_SIZE];
  char hex[TQ_SHA256_HEX_SIZE];
  TH_OK(tq_sha256(fixture_source, strlen(fixture_source), digest));
  tq_sha256_hex(digest, hex);
  char list[512] = "";
  for (int d = 0; d < dispatches; d++) {
    size_t n = strlen(list);
    snprintf(list + n, sizeof(list) - n,
             "%s{\"name\": \"main_dispatch_%d\", \"program\": \"main_dispatch_%d.torq.mlir\"}",
             d ? ", " : "", d, d);
    /* The same program under each name. */
    char name[64], *prog_text = strdup(fixture_program);
    ck_assert_ptr_nonnull(prog_text);
    char *at = strstr(prog_text, "name = \"main_dispatch_0\"");
    ck_assert_ptr_nonnull(at);
    at[strlen("name = \"main_dispatch_")] = (char)('0' + d);
    snprintf(name, sizeof(name), "main_dispatch_%d.torq.mlir", d);
    char *prog = th_path(dir, name);
    th_write(prog, prog_text);
    free(prog);
    free(prog_text);
  }
  char manifest[2048];
  snprintf(manifest, sizeof(manifest),
           "{\n  \"format\": 1,\n  \"model\": \"m.mlir\",\n  \"source\": \"source/m.mlir\",\n"
           "  \"source_sha256\": \"%s\",\n  \"function\": \"main\",\n"
           "  \"hardware\": {\"spec\": \"sl2610\", \"clock_hz\": 800000000, \"lram_bytes\": "
           "524288, \"slices\": 2},\n  \"dispatches\": [%s]\n}\n",
           hex, list);
  char *m = th_path(dir, "manifest.json");
  th_write(m, manifest);
  free(m);
  free(src);
  free(src_dir);
}

void th_fixture_debug_info(const char *dir) {
  th_fixture_debug_info_dispatches(dir, 1);
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
