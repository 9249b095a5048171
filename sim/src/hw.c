/* The Torq NPU hardware description and the `--torq-hw=SPEC` parser. */
#include "torq/sim/hw.h"

#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <strings.h>

#include "torq/base/checked.h"
#include "torq/base/str.h"

static const Torq__Unit tqs__module_units[TQS_UNIT_COUNT] = {
    [TQS_UNIT_DMA_IN] = TORQ__UNIT__DMA_IN, [TQS_UNIT_DMA_OUT] = TORQ__UNIT__DMA_OUT,
    [TQS_UNIT_SLICE0] = TORQ__UNIT__SLICE0, [TQS_UNIT_SLICE1] = TORQ__UNIT__SLICE1,
    [TQS_UNIT_CDMA] = TORQ__UNIT__CDMA,     [TQS_UNIT_CSS] = TORQ__UNIT__CSS,
};

Torq__Unit tqs_unit_to_module(tqs_unit_t unit) {
  if ((unsigned)unit >= (unsigned)TQS_UNIT_COUNT) return TORQ__UNIT__UNIT_UNSPECIFIED;
  return tqs__module_units[unit];
}

int tqs_unit_from_module(Torq__Unit unit, tqs_unit_t *out_unit) {
  for (int u = 0; u < TQS_UNIT_COUNT; u++) {
    if (unit != TORQ__UNIT__UNIT_UNSPECIFIED && tqs__module_units[u] == unit) {
      *out_unit = (tqs_unit_t)u;
      return 1;
    }
  }
  return 0;
}

const char *tqs_unit_name(tqs_unit_t unit) {
  return tqf_unit_name(tqs_unit_to_module(unit));
}

void tqs_hw_initialize_sl2610(tqs_hw_t *hw) {
  memset(hw, 0, sizeof(*hw));
  hw->clock_hz = 800000000u;
  hw->lram_bytes = 512ull * 1024;
  hw->slices = 2;
  hw->macs_per_slice = 256;
  hw->elementwise_lanes_per_slice = 64;
  hw->slice_task_overhead_cycles = 64;
  hw->nss_task_overhead_cycles = 16;
  hw->dma_bytes_per_cycle = 8;
  hw->dma_efficiency = 0.65;
  hw->dma_mtu_log2 = 4;
  hw->dma_setup_cycles = 40;
  hw->dma_desc_cycles = 40;
  hw->xram_bytes_per_cycle = 8;
  hw->lram_banks = 8;
  hw->cdma_bytes_per_cycle = 4;
  hw->itcm_bytes = 8ull * 1024;
  hw->dtcm_bytes = 32ull * 1024;
  hw->css_call_cycles = 8000;
}

/* ---- The spec parser ------------------------------------------------------------------------ */

typedef enum tqs__hw_value_kind_e {
  TQS__HW_COUNT,    /* integer, K/M/G = 10^3/10^6/10^9 */
  TQS__HW_BYTES,    /* integer, K/M/G = 2^10/2^20/2^30 */
  TQS__HW_FRACTION, /* decimal fraction in (0, 1], stored as a double */
} tqs__hw_value_kind_t;

typedef struct tqs__hw_key_s {
  const char *name;
  tqs__hw_value_kind_t kind;
  size_t field; /* offsetof(tqs_hw_t, ...) */
  size_t width; /* sizeof the field: 4 or 8 for integers */
  uint64_t min;
  uint64_t max;
} tqs__hw_key_t;

#define TQS__HW_FIELD(f) offsetof(tqs_hw_t, f), sizeof(((tqs_hw_t *)0)->f)

static const tqs__hw_key_t tqs__hw_keys[] = {
    {"clock", TQS__HW_COUNT, TQS__HW_FIELD(clock_hz), 1, UINT64_MAX},
    {"lram", TQS__HW_BYTES, TQS__HW_FIELD(lram_bytes), 1, UINT64_MAX},
    {"slices", TQS__HW_COUNT, TQS__HW_FIELD(slices), 1, TQS_HW_MAX_SLICES},
    {"macs", TQS__HW_COUNT, TQS__HW_FIELD(macs_per_slice), 1, UINT32_MAX},
    {"lanes", TQS__HW_COUNT, TQS__HW_FIELD(elementwise_lanes_per_slice), 1, UINT32_MAX},
    {"slice_overhead", TQS__HW_COUNT, TQS__HW_FIELD(slice_task_overhead_cycles), 0, UINT64_MAX},
    {"task_overhead", TQS__HW_COUNT, TQS__HW_FIELD(nss_task_overhead_cycles), 0, UINT64_MAX},
    {"dma_bpc", TQS__HW_COUNT, TQS__HW_FIELD(dma_bytes_per_cycle), 1, UINT32_MAX},
    {"dma_eff", TQS__HW_FRACTION, TQS__HW_FIELD(dma_efficiency), 0, 0},
    {"mtu", TQS__HW_COUNT, TQS__HW_FIELD(dma_mtu_log2), 0, 16},
    {"dma_setup", TQS__HW_COUNT, TQS__HW_FIELD(dma_setup_cycles), 0, UINT64_MAX},
    {"dma_desc", TQS__HW_COUNT, TQS__HW_FIELD(dma_desc_cycles), 0, UINT64_MAX},
    {"xram_bpc", TQS__HW_COUNT, TQS__HW_FIELD(xram_bytes_per_cycle), 1, UINT32_MAX},
    {"lram_banks", TQS__HW_COUNT, TQS__HW_FIELD(lram_banks), 0, 1024},
    {"cdma_bpc", TQS__HW_COUNT, TQS__HW_FIELD(cdma_bytes_per_cycle), 1, UINT32_MAX},
    {"itcm", TQS__HW_BYTES, TQS__HW_FIELD(itcm_bytes), 1, UINT64_MAX},
    {"dtcm", TQS__HW_BYTES, TQS__HW_FIELD(dtcm_bytes), 1, UINT64_MAX},
    {"css", TQS__HW_COUNT, TQS__HW_FIELD(css_call_cycles), 0, UINT64_MAX},
};
#define TQS__HW_KEY_COUNT (sizeof(tqs__hw_keys) / sizeof(tqs__hw_keys[0]))
#define TQS__HW_KEY_LIST                                                                     \
  "clock, lram, slices, macs, lanes, slice_overhead, task_overhead, dma_bpc, dma_eff, mtu, " \
  "dma_setup, dma_desc, xram_bpc, lram_banks, cdma_bpc, itcm, dtcm, css"

typedef struct tqs__hw_preset_s {
  const char *name;
  void (*initialize)(tqs_hw_t *hw);
} tqs__hw_preset_t;

static const tqs__hw_preset_t tqs__hw_presets[] = {
    {"sl2610", tqs_hw_initialize_sl2610},
};
#define TQS__HW_PRESET_COUNT (sizeof(tqs__hw_presets) / sizeof(tqs__hw_presets[0]))
#define TQS__HW_PRESET_LIST "sl2610"

/* "--torq-hw: MESSAGE", then the spec and a caret under byte `offset`, as compiler diagnostics
 * show a source line. */
TQ_PRINTF(3, 4)
static tq_status_t tqs__hw_error(const char *spec, size_t offset, const char *fmt, ...) {
  tq_buf_t msg;
  tq_buf_init(&msg, 0);
  va_list ap;
  va_start(ap, fmt);
  tq_status_t st = tq_buf_append_cstr(&msg, "--torq-hw: ");
  if (!st) st = tq_buf_vprintf(&msg, fmt, ap);
  va_end(ap);
  if (!st) st = tq_buf_printf(&msg, "\n  %s\n  ", spec);
  for (size_t i = 0; !st && i < offset; i++) st = tq_buf_putc(&msg, ' ');
  if (!st) st = tq_buf_putc(&msg, '^');
  if (!st) st = TQ_STATUS(TQ_INVALID_ARGUMENT, "%s", msg.data);
  tq_buf_deinit(&msg);
  return st;
}

/* Parses digits and an optional K/M/G suffix. Returns 1 with *out set, 0 when malformed or
 * overflowing. */
static int tqs__hw_parse_integer(tq_sv_t text, int binary, uint64_t *out) {
  size_t i = 0;
  uint64_t v = 0;
  while (i < text.len && text.data[i] >= '0' && text.data[i] <= '9') {
    if (!tq_u64_mul(v, 10, &v) || !tq_u64_add(v, (uint64_t)(text.data[i] - '0'), &v)) return 0;
    i++;
  }
  if (i == 0) return 0;
  if (i < text.len) {
    if (i + 1 != text.len) return 0;
    uint64_t scale;
    switch (text.data[i]) {
      case 'k':
      case 'K':
        scale = binary ? (1ull << 10) : 1000ull;
        break;
      case 'm':
      case 'M':
        scale = binary ? (1ull << 20) : 1000000ull;
        break;
      case 'g':
      case 'G':
        scale = binary ? (1ull << 30) : 1000000000ull;
        break;
      default:
        return 0;
    }
    if (!tq_u64_mul(v, scale, &v)) return 0;
  }
  *out = v;
  return 1;
}

/* Parses DIGITS[.DIGITS] or .DIGITS with at most 15 significant digits, locale-independent.
 * The quotient of two exactly representable doubles is correctly rounded, so "0.65" gives the
 * same double as the literal 0.65. */
static int tqs__hw_parse_fraction(tq_sv_t text, double *out) {
  uint64_t mantissa = 0;
  int digits = 0, fraction_digits = 0, seen_point = 0;
  for (size_t i = 0; i < text.len; i++) {
    char c = text.data[i];
    if (c == '.' && !seen_point) {
      seen_point = 1;
    } else if (c >= '0' && c <= '9') {
      if (++digits > 15) return 0;
      mantissa = mantissa * 10 + (uint64_t)(c - '0');
      if (seen_point) fraction_digits++;
    } else {
      return 0;
    }
  }
  if (digits == 0) return 0;
  double scale = 1.0;
  for (int k = 0; k < fraction_digits; k++) scale *= 10.0;
  *out = (double)mantissa / scale;
  return 1;
}

static tq_status_t tqs__hw_apply(const char *spec, size_t item_offset, tq_sv_t item, tqs_hw_t *hw) {
  const char *eq = memchr(item.data, '=', item.len);
  if (!eq)
    return tqs__hw_error(spec, item_offset, "expected KEY=VALUE, got \"%.*s\" at offset %zu",
                         (int)item.len, item.data, item_offset);
  tq_sv_t key = tq_sv(item.data, (size_t)(eq - item.data));
  tq_sv_t value = tq_sv(eq + 1, item.len - key.len - 1);
  size_t value_offset = item_offset + key.len + 1;
  const tqs__hw_key_t *k = NULL;
  for (size_t i = 0; i < TQS__HW_KEY_COUNT && !k; i++)
    if (tq_sv_eq_cstr(key, tqs__hw_keys[i].name)) k = &tqs__hw_keys[i];
  if (!k)
    return tqs__hw_error(spec, item_offset, "unknown key \"%.*s\" at offset %zu (keys: %s)",
                         (int)key.len, key.data, item_offset, TQS__HW_KEY_LIST);

  unsigned char *field = (unsigned char *)hw + k->field;
  if (k->kind == TQS__HW_FRACTION) {
    double x;
    if (!tqs__hw_parse_fraction(value, &x) || !(x > 0.0 && x <= 1.0))
      return tqs__hw_error(spec, value_offset,
                           "bad value \"%.*s\" for key \"%s\" at offset %zu: expected a decimal "
                           "fraction in (0, 1], such as 0.65",
                           (int)value.len, value.data, k->name, value_offset);
    memcpy(field, &x, sizeof(x));
    return NULL;
  }
  uint64_t v;
  if (!tqs__hw_parse_integer(value, k->kind == TQS__HW_BYTES, &v))
    return tqs__hw_error(spec, value_offset,
                         "bad value \"%.*s\" for key \"%s\" at offset %zu: expected digits with "
                         "an optional K, M or G suffix",
                         (int)value.len, value.data, k->name, value_offset);
  if (v < k->min || v > k->max)
    return tqs__hw_error(spec, value_offset,
                         "value %llu for key \"%s\" at offset %zu is out of range: must be at %s "
                         "%llu",
                         (unsigned long long)v, k->name, value_offset,
                         v < k->min ? "least" : "most",
                         (unsigned long long)(v < k->min ? k->min : k->max));
  if (k->width == sizeof(uint32_t)) {
    uint32_t v32 = (uint32_t)v;
    memcpy(field, &v32, sizeof(v32));
  } else {
    memcpy(field, &v, sizeof(v));
  }
  return NULL;
}

tq_status_t tqs_hw_parse(const char *spec, tqs_hw_t *out_hw) {
  memset(out_hw, 0, sizeof(*out_hw));
  if (!spec || !*spec)
    return tqs__hw_error(spec ? spec : "", 0,
                         "empty spec at offset 0: expected a preset (" TQS__HW_PRESET_LIST
                         ") or KEY=VALUE overrides");
  tqs_hw_t hw;
  tqs_hw_initialize_sl2610(&hw);
  size_t len = strlen(spec);
  size_t pos = 0;
  for (int first = 1;; first = 0) {
    const char *comma = memchr(spec + pos, ',', len - pos);
    size_t end = comma ? (size_t)(comma - spec) : len;
    tq_sv_t item = tq_sv(spec + pos, end - pos);
    if (item.len == 0) return tqs__hw_error(spec, pos, "empty item at offset %zu", pos);
    if (first && !memchr(item.data, '=', item.len)) {
      const tqs__hw_preset_t *preset = NULL;
      for (size_t i = 0; i < TQS__HW_PRESET_COUNT && !preset; i++) {
        if (item.len == strlen(tqs__hw_presets[i].name) &&
            strncasecmp(item.data, tqs__hw_presets[i].name, item.len) == 0)
          preset = &tqs__hw_presets[i];
      }
      if (!preset)
        return tqs__hw_error(
            spec, pos, "unknown preset \"%.*s\" at offset %zu (presets: " TQS__HW_PRESET_LIST ")",
            (int)item.len, item.data, pos);
      preset->initialize(&hw);
    } else {
      TQ_TRY(tqs__hw_apply(spec, pos, item, &hw));
    }
    if (!comma) break;
    pos = end + 1;
  }
  *out_hw = hw;
  return NULL;
}
