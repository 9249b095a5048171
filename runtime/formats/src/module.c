/* The module format's names (module.h). */
#include "torq/formats/module.h"

const char *tqf_action_kind_name(Torq__ActionKind kind) {
  static const char *const names[] = {
      [TORQ__ACTION_KIND__ALLOC] = "ALLOC",         [TORQ__ACTION_KIND__DEALLOC] = "DEALLOC",
      [TORQ__ACTION_KIND__HOST_COPY] = "HOST_COPY", [TORQ__ACTION_KIND__NSS_START] = "NSS_START",
      [TORQ__ACTION_KIND__NSS_WAIT] = "NSS_WAIT",   [TORQ__ACTION_KIND__HOST_START] = "HOST_START",
      [TORQ__ACTION_KIND__HOST_WAIT] = "HOST_WAIT",
  };
  if ((unsigned)kind >= sizeof(names) / sizeof(names[0])) return NULL;
  return names[kind];
}

const char *tqf_unit_name(Torq__Unit unit) {
  static const char *const names[] = {
      [TORQ__UNIT__DMA_IN] = "DMA_IN", [TORQ__UNIT__DMA_OUT] = "DMA_OUT",
      [TORQ__UNIT__SLICE0] = "SLICE0", [TORQ__UNIT__SLICE1] = "SLICE1",
      [TORQ__UNIT__CDMA] = "CDMA",     [TORQ__UNIT__CSS] = "CSS",
  };
  if ((unsigned)unit >= sizeof(names) / sizeof(names[0]) || !names[unit]) return "?";
  return names[unit];
}
