/* The reconciliation in the HTML report (report_internal.h): per test, a table of its layers
 * (an NSS program, or a pipeline's stage programs: "Job" 0&ndash;2) with the compiler's estimate, the simulated cycles and where in them the DMA and the
 * compute worked (DMA alone, both, compute alone), the board's device time and the error; for
 * the run, the median and 90th percentile of the errors. */
#include <stdio.h>
#include <string.h>

#include "report_internal.h"
#include "torq/base/alloc.h"
#include "torq/harness/html_report.h"
#include "torq/harness/overview.h"

static tq_status_t esc(tq_buf_t *out, const char *s) {
  return s ? tqh_html_escape(s, strlen(s), out) : NULL;
}

tq_status_t tqh__html_recon_summary(const tqh_test_record_t *const *records, size_t n,
                                    tq_buf_t *out) {
  size_t layers = 0, programs = 0;
  for (size_t i = 0; i < n; i++) {
    layers += records[i]->recon_count;
    for (size_t k = 0; k < records[i]->recon_count; k++)
      programs += records[i]->recon[k].programs ? records[i]->recon[k].programs : 1;
  }
  if (!layers) return NULL;
  double *errors = tq_calloc(layers, sizeof(double));
  if (!errors) return TQ_STATUS(TQ_OUT_OF_MEMORY, "out of memory");
  size_t counted = 0, simulated = 0;
  for (size_t i = 0; i < n; i++)
    for (size_t k = 0; k < records[i]->recon_count; k++) {
      const tqh_recon_t *p = &records[i]->recon[k];
      simulated += p->has_simulated;
      if (tqh_recon_error(p, records[i]->clock_hz, &errors[counted])) counted++;
    }
  double median, p90;
  tqh_recon_percentiles(errors, counted, &median, &p90);
  tq_free(errors);
  const char *against = simulated == counted ? "simulated" : "measured";
  if (!counted)
    return tq_buf_printf(out,
                         "<p class=\"recon\">Estimate against measurement: %zu layer%s (%zu NSS "
                         "program%s), none measured.</p>\n",
                         layers, layers == 1 ? "" : "s", programs, programs == 1 ? "" : "s");
  return tq_buf_printf(out,
                       "<p class=\"recon\">Estimate against measurement: %zu layer%s (%zu NSS "
                       "program%s), |estimate &minus; %s| / %s: median %.1f%%, 90th percentile "
                       "%.1f%%.</p>\n",
                       counted, counted == 1 ? "" : "s", programs, programs == 1 ? "" : "s",
                       against, against, 100 * median, 100 * p90);
}

static tq_status_t cycles_cell(tq_buf_t *out, int has, uint64_t cycles) {
  if (!has) return tq_buf_append_cstr(out, "<td class=\"n\"></td>");
  return tq_buf_printf(out, "<td class=\"n\">%llu</td>", (unsigned long long)cycles);
}

tq_status_t tqh__html_recon_table(const tqh_test_record_t *r, tq_buf_t *out) {
  if (!r->recon_count) return NULL;
  TQ_TRY(tq_buf_append_cstr(out,
                            "<h3>Estimate against measurement</h3>\n<table class=\"recon\"><thead>"
                            "<tr><th class=\"n\">Job</th><th>Operators</th><th>Location</th>"
                            "<th class=\"n\">Estimated (cycles)</th>"
                            "<th class=\"n\">Simulated (cycles)</th>"
                            "<th class=\"n\">DMA only</th><th class=\"n\">Overlap</th>"
                            "<th class=\"n\">Compute only</th><th class=\"n\">Device</th>"
                            "<th class=\"n\">Error</th></tr></thead><tbody>\n"));
  for (size_t k = 0; k < r->recon_count; k++) {
    const tqh_recon_t *p = &r->recon[k];
    if (p->programs > 1)
      TQ_TRY(tq_buf_printf(out, "<tr><td class=\"n\">%u&ndash;%u</td><td>", (unsigned)p->job_id,
                           (unsigned)(p->job_id + p->programs - 1)));
    else
      TQ_TRY(tq_buf_printf(out, "<tr><td class=\"n\">%u</td><td>", (unsigned)p->job_id));
    TQ_TRY(esc(out, p->operators));
    TQ_TRY(tq_buf_append_cstr(out, "</td><td>"));
    TQ_TRY(esc(out, p->location));
    TQ_TRY(tq_buf_append_cstr(out, "</td>"));
    TQ_TRY(cycles_cell(out, 1, p->estimated_cycles));
    TQ_TRY(cycles_cell(out, p->has_simulated, p->simulated_cycles));
    uint64_t both = p->sim_overlap_cycles;
    TQ_TRY(cycles_cell(out, p->has_simulated,
                       p->sim_dma_cycles > both ? p->sim_dma_cycles - both : 0));
    TQ_TRY(cycles_cell(out, p->has_simulated, both));
    TQ_TRY(cycles_cell(out, p->has_simulated,
                       p->sim_compute_cycles > both ? p->sim_compute_cycles - both : 0));
    if (p->has_device) {
      char d[32];
      tqh_format_duration((uint64_t)(p->device_us * 1e3 + 0.5), d);
      TQ_TRY(tq_buf_printf(out, "<td class=\"n\">%s</td>", d));
    } else {
      TQ_TRY(tq_buf_append_cstr(out, "<td class=\"n\"></td>"));
    }
    double error;
    if (tqh_recon_error(p, r->clock_hz, &error))
      TQ_TRY(tq_buf_printf(out, "<td class=\"n\">%.1f%%</td></tr>\n", 100 * error));
    else
      TQ_TRY(tq_buf_append_cstr(out, "<td class=\"n\"></td></tr>\n"));
  }
  return tq_buf_append_cstr(out, "</tbody></table>\n");
}
