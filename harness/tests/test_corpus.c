/* The whole pipeline on every corpus model: compile (libtorq-compiler, in-process), run on the
 * simulator (libtorq-runtime, seeded random inputs), annotate into CSV, XLSX and Perfetto, and
 * check the outputs against the module: the CSV header, one row per executed action, each NSS
 * row's job id and unit flags, total_time = end - start; every trace slice closed; the overview
 * readable. On a handful of models the XLSX is read back with openpyxl and compared cell by cell
 * with the CSV (python3-openpyxl: missing, a failure under CI, a counted skip otherwise). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "module.pb-c.h"
#include "suites.h"
#include "torq/base/file.h"
#include "torq/compiler/compile.h"
#include "torq/compiler/mlir.h"
#include "torq/harness/overview.h"
#include "torq/harness/perfetto.h"
#include "torq/runtime/runtime.h"
#include "tq_test.h"

#define MAX_MODELS 4096
/* Models whose XLSX is compared with openpyxl: one in XLSX_EVERY (Python start-up is ~0.2 s). */
#define XLSX_EVERY 40

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The corpus's models, sorted; none, after tq_test_missing, when the corpus is missing. */
static size_t corpus(char ***out) {
  *out = NULL;
  const char *dir = tq_test_corpus();
  if (!dir) return 0;
  DIR *d = opendir(dir);
  ck_assert_msg(d != NULL, "cannot open %s", dir);
  char **paths = calloc(MAX_MODELS, sizeof(*paths));
  ck_assert_ptr_nonnull(paths);
  size_t n = 0;
  struct dirent *e;
  while ((e = readdir(d)) && n < MAX_MODELS) {
    size_t len = strlen(e->d_name);
    if (len < 6 || strcmp(e->d_name + len - 5, ".mlir") != 0) continue;
    paths[n++] = th_path(dir, e->d_name);
  }
  closedir(d);
  qsort(paths, n, sizeof(*paths), cmp_str);
  *out = paths;
  return n;
}

static unsigned module_units(const Torq__NssProgram *p) {
  unsigned u = 0;
  for (size_t t = 0; t < p->n_tasks; t++)
    for (size_t w = 0; w < p->tasks[t]->n_work; w++) {
      switch (p->tasks[t]->work[w]->unit) {
        case TORQ__UNIT__DMA_IN: u |= TQH_UNIT_BIT(TQS_UNIT_DMA_IN); break;
        case TORQ__UNIT__DMA_OUT: u |= TQH_UNIT_BIT(TQS_UNIT_DMA_OUT); break;
        case TORQ__UNIT__SLICE0: u |= TQH_UNIT_BIT(TQS_UNIT_SLICE0); break;
        case TORQ__UNIT__SLICE1: u |= TQH_UNIT_BIT(TQS_UNIT_SLICE1); break;
        case TORQ__UNIT__CDMA: u |= TQH_UNIT_BIT(TQS_UNIT_CDMA); break;
        case TORQ__UNIT__CSS: u |= TQH_UNIT_BIT(TQS_UNIT_CSS); break;
        default: break;
      }
    }
  return u;
}

/* Compiles `model` into dir/dbg and returns the loaded module. */
static tqr_module_t *compile(const char *model, const char *dbg) {
  tqc_module_t *src = NULL;
  tqc_compiled_t *compiled = NULL;
  tqc_compile_options_t options;
  tqc_compile_options_initialize(&options);
  TH_OK(tqc_module_parse_file(model, NULL, &src));
  TH_OK(tqc_module_verify(src));
  TH_OK(tqc_compile(src, &options, &compiled));
  TH_OK(tqc_compiled_write_debug_info(compiled, dbg));
  tq_buf_t vmfb;
  tq_buf_init(&vmfb, 0);
  TH_OK(tqc_compiled_pack(compiled, &vmfb));
  tqr_module_t *m = NULL;
  TH_OK(tqr_module_load(model, vmfb.data, vmfb.len, NULL, &m));
  tq_buf_deinit(&vmfb);
  tqc_compiled_destroy(compiled);
  tqc_module_destroy(src);
  return m;
}

/* Runs the module once with seeded random inputs, profiling into `csv`. 1 when it succeeded.
 * `jobs`, when not NULL, receives what each NSS program took (n_nss_programs entries). */
static int run_jobs(const tqr_module_t *m, const char *csv, uint64_t seed, tqr_nss_result_t *jobs) {
  const Torq__Function *fn = tqr_module_proto(m)->function;
  tqr_tensor_t **in = calloc(fn->n_inputs + 1, sizeof(*in));
  tqr_tensor_t **out = calloc(fn->n_outputs + 1, sizeof(*out));
  ck_assert(in && out);
  for (size_t i = 0; i < fn->n_inputs; i++) {
    char text[512];
    size_t k = 0;
    for (size_t d = 0; d < fn->inputs[i]->n_dims; d++)
      k += (size_t)snprintf(text + k, sizeof(text) - k, "%lldx", (long long)fn->inputs[i]->dims[d]);
    snprintf(text + k, sizeof(text) - k, "%s=@random", tqf_element_name(fn->inputs[i]->element_type));
    tqr_input_options_t io;
    tqr_input_options_initialize(&io);
    io.seed = seed;
    io.index = i;
    TH_OK(tqr_input_parse(text, &io, &in[i]));
  }
  tqr_profile_t *prof = NULL;
  tqr_device_t *dev = NULL;
  tqr_session_t *s = NULL;
  TH_OK(tqr_profile_create(256, &prof));
  TH_OK(tqr_profile_open_csv(prof, csv));
  TH_OK(tqr_device_sim_create(&dev));
  tqr_session_options_t so;
  tqr_session_options_initialize(&so);
  so.profile = prof;
  TH_OK(tqr_session_create(m, dev, &so, &s));
  tq_status_t st = tqr_session_invoke(s, (const tqr_tensor_t *const *)in, fn->n_inputs, out,
                                      fn->n_outputs);
  int ok = st == NULL;
  tq_status_free(st);
  for (size_t j = 0; jobs && j < tqr_module_proto(m)->n_nss_programs; j++)
    ck_assert(tqr_session_job_result(s, (uint32_t)j, &jobs[j]) || !ok);
  tqr_session_destroy(s);
  TH_OK(tqr_profile_close(prof));
  tqr_profile_destroy(prof);
  tqr_device_destroy(dev);
  for (size_t i = 0; i < fn->n_inputs; i++) tqr_tensor_destroy(in[i]);
  for (size_t i = 0; i < fn->n_outputs; i++) tqr_tensor_destroy(out[i]);
  free(in);
  free(out);
  return ok;
}

static int run(const tqr_module_t *m, const char *csv, uint64_t seed) {
  return run_jobs(m, csv, seed, NULL);
}

/* Splits a CSV line of the annotated CSV: 14 bare fields, then the quoted location. */
static int split_row(char *line, char **f) {
  for (int i = 0; i < 14; i++) {
    f[i] = line;
    char *c = strchr(line, ',');
    if (!c) return 0;
    *c = 0;
    line = c + 1;
  }
  f[14] = line;
  return 1;
}

static void check_csv(const char *model, const char *csv, const tqr_module_t *mod, int ok) {
  const Torq__Module *m = tqr_module_proto(mod);
  char *text = th_read(csv, NULL);
  char *line = text, *nl = strchr(line, '\n');
  ck_assert_ptr_nonnull(nl);
  *nl = 0;
  ck_assert_str_eq(line, TQH_ANNOTATED_CSV_HEADER);
  size_t rows = 0;
  for (line = nl + 1; *line; line = nl + 1, rows++) {
    nl = strchr(line, '\n');
    ck_assert_ptr_nonnull(nl);
    *nl = 0;
    char *f[15];
    ck_assert_msg(split_row(line, f), "%s: row %zu malformed", model, rows);
    size_t id = strtoul(f[0], NULL, 10);
    ck_assert_msg(id == rows, "%s: row %zu is action %zu", model, rows, id);
    ck_assert_uint_lt(id, m->n_actions);
    const Torq__Action *a = m->actions[id];
    int nss = a->kind == TORQ__ACTION_KIND__NSS_START || a->kind == TORQ__ACTION_KIND__NSS_WAIT;
    unsigned units = 0;
    if (nss) {
      ck_assert_msg(strtoul(f[1], NULL, 10) == a->job_id && *f[1], "%s: action %zu job '%s', "
                    "module %u", model, id, f[1], a->job_id);
      units = module_units(m->nss_programs[a->job_id]);
    } else {
      ck_assert_msg(*f[1] == 0, "%s: action %zu (no NSS) has job '%s'", model, id, f[1]);
    }
    static const tqs_unit_t order[6] = {TQS_UNIT_SLICE0, TQS_UNIT_SLICE1, TQS_UNIT_DMA_IN,
                                        TQS_UNIT_DMA_OUT, TQS_UNIT_CDMA,  TQS_UNIT_CSS};
    for (int u = 0; u < 6; u++)
      ck_assert_msg(strcmp(f[6 + u], units & TQH_UNIT_BIT(order[u]) ? "true" : "false") == 0,
                    "%s: action %zu flag %d is %s", model, id, u, f[6 + u]);
    unsigned long long total = strtoull(f[5], NULL, 10), start = strtoull(f[12], NULL, 10),
                       end = strtoull(f[13], NULL, 10);
    ck_assert_msg(total == end - start && end >= start, "%s: action %zu total %llu != %llu - %llu",
                  model, id, total, end, start);
    ck_assert_msg(*f[4], "%s: action %zu has no original_operators", model, id);
  }
  if (ok) ck_assert_msg(rows == m->n_actions, "%s: %zu rows, %zu actions", model, rows, m->n_actions);
  free(text);
}

static const char xlsx_check_py[] =
    "import csv, sys, openpyxl\n"
    "x, c = sys.argv[1], sys.argv[2]\n"
    "ws = openpyxl.load_workbook(x)['Detailed Performance Data']\n"
    "rows = list(ws.iter_rows(values_only=True))\n"
    "data = list(csv.reader(open(c, newline='')))\n"
    "assert len(rows) == len(data), (len(rows), len(data))\n"
    "assert ws.freeze_panes == 'A2', ws.freeze_panes\n"
    "assert ws.auto_filter.ref == 'A1:O%d' % len(data), ws.auto_filter.ref\n"
    "assert rows[0][0] == 'Action ID' and rows[0][5] == 'Total Time [us]', rows[0]\n"
    "for i in range(1, len(data)):\n"
    "    assert len(data[i]) == 15 and len(rows[i]) == 15\n"
    "    for j, (cv, xv) in enumerate(zip(data[i], rows[i])):\n"
    "        if cv == '': ok = xv is None\n"
    "        elif cv in ('true', 'false'): ok = xv is (cv == 'true')\n"
    "        elif cv.isdigit(): ok = type(xv) in (int, float) and xv == int(cv)\n"
    "        else: ok = xv == cv\n"
    "        assert ok, (i, j, cv, xv)\n"
    "    w = ws.column_dimensions['O'].width\n"
    "    assert w and w >= min(len(data[i][14]), 98), (w, data[i][14])\n"
    "print('ok', len(data) - 1)\n";

START_TEST(corpus_compile_run_annotate_every_model) {
  char **paths;
  size_t n = corpus(&paths);
  if (n == 0) return;
  /* Without openpyxl (outside CI) the rest runs and the read-back is the skip. */
  const char *python = tq_test_python_module("openpyxl", "python3-openpyxl");
  int xlsx_oracle = python != NULL;
  char *dir = th_tmpdir();
  char *py = th_path(dir, "xlsx_check.py");
  th_write(py, xlsx_check_py);
  size_t failed_runs = 0, rows = 0, nss_rows = 0, xlsx_checked = 0, slices = 0, no_units = 0;
  for (size_t i = 0; i < n; i++) {
    char *dbg = th_path(dir, "dbg"), *p = th_path(dir, "p.csv"), *csv = th_path(dir, "a.csv"),
         *xlsx = th_path(dir, "a.xlsx"), *pb = th_path(dir, "a.pb");
    tqr_module_t *m = compile(paths[i], dbg);
    int ok = run(m, p, 0x5eed + i);
    failed_runs += !ok;
    tqh_annotation_t *ann = NULL;
    TH_OK(tqh_annotate(dbg, p, NULL, &ann));
    char *diags = th_diags_text(ann);
    ck_assert_msg(ann->diags.errors == 0, "%s: %s", paths[i], diags);
    free(diags);
    TH_OK(tqh_annotation_write(ann, csv));
    TH_OK(tqh_annotation_write(ann, xlsx));
    /* The overview the trace's writer gives is the one read back from it. */
    tqh_overview_t written;
    tqh_perfetto_options_t po;
    tqh_perfetto_options_initialize(&po);
    po.overview = &written;
    TH_OK(tqh_annotation_write_perfetto_opt(ann, pb, &po));
    check_csv(paths[i], csv, m, ok);
    rows += ann->num_rows;
    for (size_t r = 0; r < ann->num_rows; r++) nss_rows += ann->rows[r].job_id >= 0;
    tqh_trace_t t;
    TH_OK(tqh_trace_read(pb, &t));
    ck_assert_uint_eq(t.begins, t.ends);
    slices += t.num_slices;
    tqh_trace_deinit(&t);
    tqh_overview_t ov;
    const char *pbs[1] = {pb};
    TH_OK(tqh_overview_read(pbs, 1, &ov));
    ck_assert_msg(ov.count == written.count && ov.count > 0, "%s: %zu metrics written, %zu read",
                  paths[i], written.count, ov.count);
    for (size_t k = 0; k < ov.count; k++) {
      ck_assert_str_eq(written.metrics[k].name, ov.metrics[k].name);
      ck_assert_str_eq(written.metrics[k].key, ov.metrics[k].key);
      ck_assert_msg(written.metrics[k].ns == ov.metrics[k].ns, "%s: %s %llu ns written, %llu read",
                    paths[i], ov.metrics[k].name, (unsigned long long)written.metrics[k].ns,
                    (unsigned long long)ov.metrics[k].ns);
    }
    tqh_overview_deinit(&written);
    uint64_t overall = 0;
    ck_assert(tqh_overview_get(&ov, "OVERALL", &overall));
    /* OVERALL spans the work units: none (a model of views alone) gives 0. */
    tqh_work_unit_t *units = NULL;
    size_t num_units = 0;
    TH_OK(tqh_annotation_work_units(ann, &units, &num_units));
    ck_assert_msg((overall > 0) == (num_units > 0), "%s: OVERALL %llu ns, %zu work units",
                  paths[i], (unsigned long long)overall, num_units);
    no_units += num_units == 0;
    free(units);
    tqh_overview_deinit(&ov);
    if (xlsx_oracle && i % XLSX_EVERY == 0) {
      char cmd[16384];
      snprintf(cmd, sizeof(cmd), "'%s' '%s' '%s' '%s' >/dev/null", python, py, xlsx, csv);
      ck_assert_msg(th_shell_ok(cmd), "%s: the XLSX differs from the CSV (%s)", paths[i], cmd);
      xlsx_checked++;
    }
    tqh_annotation_destroy(ann);
    tqr_module_destroy(m);
    char cmd[8192];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dbg);
    ck_assert(th_shell_ok(cmd));
    free(dbg);
    free(p);
    free(csv);
    free(xlsx);
    free(pb);
  }
  fprintf(stderr,
          "annotate_corpus: %zu models (%zu runs failed, %zu without work units), %zu rows (%zu "
          "NSS), %zu trace slices, %zu XLSX compared with openpyxl\n",
          n, failed_runs, no_units, rows, nss_rows, slices, xlsx_checked);
  if (xlsx_oracle) ck_assert_uint_eq(xlsx_checked, (n + XLSX_EVERY - 1) / XLSX_EVERY);
  for (size_t i = 0; i < n; i++) free(paths[i]);
  free(paths);
  free(py);
  th_rmtree(dir);
}
END_TEST

/* The printed Host Profile Overview of one smoke model, as torq-test prints it (from the
 * profile.pb of a simulated run, with a WALL_TIME given here, as the harness measures its own),
 * byte for byte against harness/tests/golden/; TORQ_UPDATE_GOLDEN=1 (`make golden`) rewrites
 * it. The numbers are the simulator's: deterministic, and what the Torq tools compute from the
 * same profile (OVERALL 194 µs, Idle 5 µs). */
#define OVERVIEW_GOLDEN_MODEL "add_rescaled_28x28x32_i8"

/* Annotates profile `csv` with the debug info `dbg` (no diagnostic), writes the trace `pb` and
 * reads its overview back into *ov; returns the annotation. */
static tqh_annotation_t *overview_of(const char *dbg, const char *csv, const char *pb,
                                     tqh_overview_t *ov) {
  tqh_annotation_t *ann = NULL;
  TH_OK(tqh_annotate(dbg, csv, NULL, &ann));
  ck_assert_uint_eq(ann->diags.count, 0);
  TH_OK(tqh_annotation_write(ann, pb));
  const char *pbs[1] = {pb};
  TH_OK(tqh_overview_read(pbs, 1, ov));
  return ann;
}

START_TEST(overview_golden_of_a_smoke_model) {
  char *dir = th_tmpdir();
  char *model = th_path(tq_test_top(), "suites/models/" OVERVIEW_GOLDEN_MODEL ".mlir");
  char *dbg = th_path(dir, "dbg"), *p = th_path(dir, "profile.csv"), *pb = th_path(dir, "p.pb");
  tqr_module_t *m = compile(model, dbg);
  ck_assert(run(m, p, 1));
  tqh_overview_t ov;
  tqh_annotation_t *ann = overview_of(dbg, p, pb, &ov);
  tq_buf_t got;
  tq_buf_init(&got, 0);
  TH_OK(tqh_overview_format(&ov, ann->model_name, 207000000, &got));
  char *golden = th_path(tq_test_top(), "harness/tests/golden/overview_" OVERVIEW_GOLDEN_MODEL ".txt");
  const char *update = getenv("TORQ_UPDATE_GOLDEN");
  if (update && !strcmp(update, "1")) {
    TH_OK(tq_file_write_atomic(golden, got.data, got.len));
    fprintf(stderr, "golden: rewrote %s\n", golden);
  } else {
    char *want = th_read(golden, NULL);
    ck_assert_msg(!strcmp(want, got.data),
                  "%s differs (TORQ_UPDATE_GOLDEN=1, `make golden`, rewrites it); now:\n%s",
                  golden, got.data);
    free(want);
  }
  tq_buf_deinit(&got);
  tqh_overview_deinit(&ov);
  tqh_annotation_destroy(ann);
  tqr_module_destroy(m);
  free(golden);
  free(pb);
  free(p);
  free(dbg);
  free(model);
  th_rmtree(dir);
}
END_TEST

/* The corpus's add.mlir (issue 16): its fused chain is one layer in three NSS programs, a
 * software pipeline's prologue (the first tile's DMA in), steady state (compute of tile n while
 * the DMA moves tiles n + 1 in and n - 1 out) and epilogue (the last tile's DMA out). The
 * overview, by the Torq tools' definitions (whole NSS programs per unit they use), then shows
 * the DMA-only stages apart: Overlap below Dma Total and Dma Only above 0, by what the
 * simulator's split and the session's clock say. */
static uint64_t ov_get(const tqh_overview_t *ov, const char *name) {
  uint64_t ns = 0;
  ck_assert_msg(tqh_overview_get(ov, name, &ns), "no %s in the overview", name);
  return ns;
}

/* A program's slot in the profile, in ns, by the session's clock (session.h): its NSS_START
 * action, then the program, then its NSS_WAIT action. */
static uint64_t slot_ns(const tqr_nss_result_t *r, uint64_t clock_hz) {
  return 2 * TQR_SIM_ACTION_NS + (r->cycles * 1000000000u + clock_hz - 1) / clock_hz;
}

START_TEST(overview_of_add_shows_overlap_below_dma_total) {
  const char *corpus = tq_test_corpus();
  if (!corpus) return;
  char *dir = th_tmpdir();
  char *model = th_path(corpus, "add.mlir");
  char *dbg = th_path(dir, "dbg"), *p = th_path(dir, "profile.csv"), *pb = th_path(dir, "p.pb");
  tqr_module_t *m = compile(model, dbg);
  const Torq__Module *mod = tqr_module_proto(m);
  ck_assert_uint_eq(mod->n_nss_programs, 3);
  ck_assert_int_eq(mod->nss_programs[0]->stage, TORQ__STAGE__PROLOGUE);
  ck_assert_int_eq(mod->nss_programs[1]->stage, TORQ__STAGE__STEADY);
  ck_assert_int_eq(mod->nss_programs[2]->stage, TORQ__STAGE__EPILOGUE);
  ck_assert_uint_eq(module_units(mod->nss_programs[0]), TQH_UNIT_BIT(TQS_UNIT_DMA_IN));
  ck_assert_uint_eq(module_units(mod->nss_programs[2]), TQH_UNIT_BIT(TQS_UNIT_DMA_OUT));
  tqr_nss_result_t jobs[3];
  ck_assert(run_jobs(m, p, 1, jobs));

  /* The simulator's split of the layer: DMA 21,292 cycles, compute 18,084, both at once 17,942,
   * so DMA alone 3,350 and compute alone 142; the prologue and the epilogue are DMA alone. */
  uint64_t dma = 0, compute = 0, both = 0;
  for (int j = 0; j < 3; j++) {
    dma += jobs[j].dma_cycles;
    compute += jobs[j].compute_cycles;
    both += jobs[j].overlap_cycles;
  }
  ck_assert_uint_eq(dma, 21292);
  ck_assert_uint_eq(compute, 18084);
  ck_assert_uint_eq(both, 17942);
  for (int j = 0; j < 3; j += 2) {
    ck_assert_uint_eq(jobs[j].compute_cycles, 0);
    ck_assert_uint_eq(jobs[j].dma_cycles, jobs[j].cycles);
  }

  tqh_overview_t ov;
  tqh_annotation_t *ann = overview_of(dbg, p, pb, &ov);
  uint64_t dma_total = ov_get(&ov, "Dma Total"), overlap = ov_get(&ov, "Overlap");
  uint64_t dma_only = ov_get(&ov, "Dma Only"), compute_ns = ov_get(&ov, "Compute");
  ck_assert_msg(overlap < dma_total, "Overlap %llu ns, Dma Total %llu ns",
                (unsigned long long)overlap, (unsigned long long)dma_total);
  ck_assert_uint_gt(dma_only, 0);
  ck_assert_uint_eq(dma_only + overlap, dma_total);
  ck_assert_uint_eq(ov_get(&ov, "Compute Only"), 0); /* the steady state moves data too */
  ck_assert_uint_eq(compute_ns, overlap);
  /* By the session's clock: Dma Only is the prologue's and the epilogue's slots, Overlap the
   * steady state's (profile rows are whole µs, floored: each end within 1 µs). */
  uint64_t clock_hz = mod->hardware->clock_hz;
  uint64_t want_only = slot_ns(&jobs[0], clock_hz) + slot_ns(&jobs[2], clock_hz);
  uint64_t want_overlap = slot_ns(&jobs[1], clock_hz);
  ck_assert_msg(dma_only + 2000 >= want_only && dma_only <= want_only + 2000,
                "Dma Only %llu ns, the DMA-only stages' slots %llu ns",
                (unsigned long long)dma_only, (unsigned long long)want_only);
  ck_assert_msg(overlap + 1000 >= want_overlap && overlap <= want_overlap + 1000,
                "Overlap %llu ns, the steady state's slot %llu ns", (unsigned long long)overlap,
                (unsigned long long)want_overlap);
  /* What the printed block says (issue 14's labels and format). */
  tq_buf_t got;
  tq_buf_init(&got, 0);
  TH_OK(tqh_overview_format(&ov, ann->model_name, -1, &got));
  ck_assert_msg(strstr(got.data, "  Dma Only                          7.000µs  (21.21%)") &&
                    strstr(got.data, "  Dma Total                        33.000µs  (100.00%)") &&
                    strstr(got.data, "  Overlap                          26.000µs  (78.79%)"),
                "%s", got.data);
  tq_buf_deinit(&got);
  tqh_overview_deinit(&ov);
  tqh_annotation_destroy(ann);
  tqr_module_destroy(m);
  free(pb);
  free(p);
  free(dbg);
  free(model);
  th_rmtree(dir);
}
END_TEST

Suite *overview_golden_suite(void) {
  Suite *s = suite_create("overview_golden");
  TCase *tc = tcase_create("overview_golden");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, overview_golden_of_a_smoke_model);
  tcase_add_test(tc, overview_of_add_shows_overlap_below_dma_total);
  suite_add_tcase(s, tc);
  return s;
}

Suite *annotate_corpus_suite(void) {
  Suite *s = suite_create("annotate_corpus");
  TCase *tc = tcase_create("annotate_corpus");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, corpus_compile_run_annotate_every_model);
  suite_add_tcase(s, tc);
  return s;
}
