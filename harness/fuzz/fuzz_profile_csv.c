/* libFuzzer target: the runtime profile CSV reader must never crash, whatever the bytes, and
 * what it returns must be consistent (events in file order, lines within the file, known kinds,
 * a diagnostic count that matches what was kept and dropped). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "torq/harness/profile_csv.h"
#include "torq/runtime/profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tqh_diags_t diags;
  tqh_diags_init(&diags);
  tqh_profile_t p;
  tq_status_t st = tqh_profile_parse("fuzz.csv", (const char *)data, size, &diags, &p);
  if (st) {
    /* Only running out of memory may stop the reader. */
    if (tq_status_code(st) != TQ_OUT_OF_MEMORY) abort();
    tq_status_free(st);
  }
  for (size_t i = 0; i < p.count; i++) {
    const tqh_profile_event_t *e = &p.events[i];
    if (e->line == 0 || e->line > p.lines) abort();
    if (i && e->line <= p.events[i - 1].line) abort();
    if (e->kind == 0 || e->kind >= TQR_EVENT_KIND_COUNT || e->edge > TQR_EDGE_POINT) abort();
    if (e->dispatch >= p.num_dispatches || e->action_id < -1) abort();
  }
  if (diags.count + diags.dropped != diags.errors + diags.warnings) abort();
  tqh_profile_deinit(&p);
  tqh_diags_deinit(&diags);
  return 0;
}
