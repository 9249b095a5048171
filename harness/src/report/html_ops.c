/* The tables of the time by operator in the HTML report (report_internal.h), per test and over
 * the run. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report_internal.h"
#include "torq/harness/html_report.h"
#include "torq/harness/overview.h"

static tq_status_t row(const tqh_op_time_t *op, double total, tq_buf_t *out) {
  char d[32], share[32];
  double ns = op->us * 1e3;
  tqh_format_duration(isfinite(ns) && ns > 0 ? (uint64_t)llround(ns) : 0, d);
  double pct = total > 0 ? op->us / total * 100 : 0;
  snprintf(share, sizeof(share), "%.1f%%", pct);
  TQ_TRY(tq_buf_append_cstr(out, "<tr><td>"));
  TQ_TRY(tqh_html_escape(op->name, strlen(op->name), out));
  return tq_buf_printf(out,
                       "</td><td class=\"n\">%s</td><td class=\"n\"><span class=\"share\">"
                       "<i style=\"width:%.1f%%\"></i></span> %s</td><td class=\"n\">%zu</td>"
                       "</tr>\n",
                       d, pct > 100 ? 100 : pct < 0 ? 0 : pct, share, op->count);
}

static tq_status_t rows(const tqh_op_table_t *t, size_t from, size_t to, tq_buf_t *out) {
  TQ_TRY(tq_buf_append_cstr(out,
                            "<table class=\"ops\"><thead><tr><th>Operator</th>"
                            "<th class=\"n\">Time</th><th class=\"n\">Share</th>"
                            "<th class=\"n\">Count</th></tr></thead><tbody>\n"));
  for (size_t i = from; i < to; i++) TQ_TRY(row(&t->ops[i], t->total_us, out));
  return tq_buf_append_cstr(out, "</tbody></table>\n");
}

tq_status_t tqh__html_ops(const tqh_op_table_t *table, const char *empty, tq_buf_t *out) {
  if (!table->count) {
    TQ_TRY(tq_buf_append_cstr(out, "<p class=\"note\">"));
    TQ_TRY(tqh_html_escape(empty, strlen(empty), out));
    return tq_buf_append_cstr(out, "</p>\n");
  }
  size_t top = table->count < TQH__HTML_TOP_OPERATORS ? table->count : TQH__HTML_TOP_OPERATORS;
  TQ_TRY(rows(table, 0, top, out));
  if (top == table->count) return NULL;
  size_t more = table->count - top;
  TQ_TRY(tq_buf_printf(out, "<details class=\"more\"><summary>%zu more operator%s</summary>\n",
                       more, more == 1 ? "" : "s"));
  TQ_TRY(rows(table, top, table->count, out));
  return tq_buf_append_cstr(out, "</details>\n");
}
