/* The time of one task's work items in the NPU model: what each unit really takes in the task,
 * with the effects the cost model (the compile-time estimate) leaves out. npu.h ("Time") says
 * what is modelled and the hardware description (hw.h) holds the numbers.
 *
 * DMA: each channel runs its transfers one after the other; a transfer first spends
 * dma_desc_cycles on its descriptor, then moves its XRAM blocks in whole beats and bursts
 * (tqs_cost_dma_blocks). While DMA in and DMA out both move data they share XRAM: when their
 * full rates add up to more than xram_bytes_per_cycle, both slow down in proportion. The model
 * steps from one event (a set-up or a transfer ending) to the next, so the shares follow what
 * really overlaps.
 *
 * Slices: each item takes the cost model's cycles plus the LRAM bank cycles it loses: every
 * 64-byte line a DMA transfer or a CDMA copy moves in a bank the item works in, while the item
 * works, takes the bank's port for a cycle. A transfer's lines are spread evenly over the time it
 * moves data, across its LRAM extent.
 *
 * Everything is computed in doubles from integers in a fixed order, so the result is the same on
 * every run; item ends are rounded up to whole cycles.
 */
#include <math.h>
#include <stdlib.h>

#include "npu_internal.h"
#include "torq/base/checked.h"

#define TQS__LINE_BYTES 64.0

/* Rounds a non-negative time up to whole cycles, forgiving the last bits of rounding. */
static uint64_t tqs__cycles(double t) {
  if (!(t > 1e-9)) return 0;
  double c = ceil(t - 1e-9 * (t > 1.0 ? t : 1.0));
  return c >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)c;
}

/* ---- DMA channels ---------------------------------------------------------------------------- */

typedef struct tqs__chan_s {
  tqs__item_t *item; /* NULL: the channel is idle in this task */
  size_t next;       /* its next transfer (index into its item's transfers) */
  int phase;         /* 0 done, 1 descriptor set-up, 2 moving data */
  double left;       /* set-up cycles left, or data cycles left at the channel's full rate */
  double rate;       /* bytes per cycle of the current transfer at full rate */
  double end;
} tqs__chan_t;

/* Starts the channel's next non-empty transfer at time t, or ends the channel. */
static void tqs__chan_next(const tqs_hw_t *hw, tqs__chan_t *c, tqs__xfer_t *xfers, double t) {
  tqs__item_t *it = c->item;
  while (c->next < it->n_xfers && xfers[it->xfer0 + c->next].bytes == 0) c->next++;
  if (c->next >= it->n_xfers) {
    c->phase = 0;
    c->end = t;
    return;
  }
  tqs__xfer_t *x = &xfers[it->xfer0 + c->next];
  double work = tqs_cost_dma_blocks(hw, x->blocks, x->block_bytes);
  c->rate = work > 0.0 ? (double)x->bytes / work : 0.0;
  x->t0 = x->t1 = t;
  if (hw->dma_desc_cycles) {
    c->phase = 1;
    c->left = (double)hw->dma_desc_cycles;
  } else {
    c->phase = 2;
    c->left = work;
  }
}

/* Runs DMA in and DMA out of the task together; sets each transfer's data window [t0, t1) and
 * each channel item's end. */
static void tqs__dma_time(const tqs_hw_t *hw, tqs__chan_t *ch, tqs__xfer_t *xfers) {
  double t = 0.0, cap = hw->xram_bytes_per_cycle ? (double)hw->xram_bytes_per_cycle : 1.0;
  for (int i = 0; i < 2; i++)
    if (ch[i].item) tqs__chan_next(hw, &ch[i], xfers, 0.0);
  for (;;) {
    double demand = 0.0;
    for (int i = 0; i < 2; i++)
      if (ch[i].item && ch[i].phase == 2) demand += ch[i].rate;
    double speed = demand > cap ? cap / demand : 1.0;
    double dt = INFINITY;
    int first = -1;
    for (int i = 0; i < 2; i++) {
      if (!ch[i].item || ch[i].phase == 0) continue;
      double d = ch[i].phase == 1 ? ch[i].left : ch[i].left / speed;
      if (d < dt) dt = d, first = i;
    }
    if (first < 0) return;
    t += dt;
    for (int i = 0; i < 2; i++) {
      tqs__chan_t *c = &ch[i];
      if (!c->item || c->phase == 0) continue;
      c->left -= c->phase == 1 ? dt : dt * speed;
      if (i != first && c->left > 1e-9 * (c->left > 1.0 ? c->left : 1.0)) continue;
      tqs__xfer_t *x = &xfers[c->item->xfer0 + c->next];
      if (c->phase == 1) {
        c->phase = 2;
        c->left = tqs_cost_dma_blocks(hw, x->blocks, x->block_bytes);
        x->t0 = t;
      } else {
        x->t1 = t;
        c->next++;
        tqs__chan_next(hw, c, xfers, t);
      }
    }
  }
}

/* ---- LRAM banks ------------------------------------------------------------------------------ */

/* 1 when the item works in bank [b0, b1). */
static int tqs__item_in_bank(const tqs__item_t *it, uint64_t b0, uint64_t b1) {
  for (size_t r = 0; r < it->n_ranges; r++)
    if (it->lo[r] < b1 && b0 < it->hi[r]) return 1;
  return 0;
}

/* The lines of `bytes` spread over the LRAM extent [lo, hi) that land in the item's banks. */
static double tqs__lines_in_banks(const tqs_hw_t *hw, const tqs__item_t *it, uint64_t bytes,
                                  uint64_t lo, uint64_t hi) {
  if (bytes == 0 || hi <= lo || hw->lram_banks == 0) return 0.0;
  uint64_t banks = hw->lram_banks;
  uint64_t size = hw->lram_bytes / banks ? hw->lram_bytes / banks : 1;
  uint64_t shared = 0;
  for (uint64_t b = lo / size; b * size < hi; b++) {
    uint64_t b0 = b * size, b1 = b0 + size;
    if (!tqs__item_in_bank(it, b0, b1)) continue;
    uint64_t a = lo > b0 ? lo : b0, z = hi < b1 ? hi : b1;
    shared += z - a;
  }
  return (double)bytes / TQS__LINE_BYTES * ((double)shared / (double)(hi - lo));
}

/* The share of [t0, t1) that falls in [s0, s1). */
static double tqs__overlap(double s0, double s1, double t0, double t1) {
  double a = s0 > t0 ? s0 : t0, z = s1 < t1 ? s1 : t1;
  return z > a && t1 > t0 ? (z - a) / (t1 - t0) : 0.0;
}

/* Bank cycles a slice item working over [s0, s1) loses to the task's DMA and CDMA lines. */
static double tqs__stall(const tqs_hw_t *hw, const tqs__item_t *it, double s0, double s1,
                         const tqs__item_t *items, size_t n, const tqs__xfer_t *xfers) {
  double lost = 0.0;
  for (size_t i = 0; i < n; i++) {
    const tqs__item_t *o = &items[i];
    tqs_unit_t u = o->where.unit;
    if (u == TQS_UNIT_DMA_IN || u == TQS_UNIT_DMA_OUT) {
      for (size_t k = 0; k < o->n_xfers; k++) {
        const tqs__xfer_t *x = &xfers[o->xfer0 + k];
        double share = tqs__overlap(s0, s1, x->t0, x->t1);
        if (share > 0.0)
          lost += share * tqs__lines_in_banks(hw, it, x->bytes, x->lram_lo, x->lram_hi);
      }
    } else if (u == TQS_UNIT_CDMA) {
      double share = tqs__overlap(s0, s1, 0.0, (double)o->cycles);
      for (size_t r = 0; share > 0.0 && r < o->n_ranges; r++) {
        uint64_t extent = o->hi[r] - o->lo[r];
        lost += share * tqs__lines_in_banks(hw, it, extent, o->lo[r], o->hi[r]);
      }
    }
  }
  return lost;
}

/* ---- The task -------------------------------------------------------------------------------- */

void tqs__task_time(const tqs_hw_t *hw, tqs__item_t *items, size_t n, tqs__xfer_t *xfers) {
  tqs__chan_t ch[2];
  memset(ch, 0, sizeof(ch));
  for (size_t i = 0; i < n; i++) {
    tqs__item_t *it = &items[i];
    it->start = it->end = 0;
    if (it->where.unit == TQS_UNIT_DMA_IN) ch[0].item = it;
    if (it->where.unit == TQS_UNIT_DMA_OUT) ch[1].item = it;
  }
  tqs__dma_time(hw, ch, xfers);
  for (int c = 0; c < 2; c++)
    if (ch[c].item) ch[c].item->end = tqs__cycles(ch[c].end);

  uint64_t at[TQS_HW_MAX_SLICES] = {0, 0};
  for (size_t i = 0; i < n; i++) {
    tqs__item_t *it = &items[i];
    tqs_unit_t u = it->where.unit;
    if (u == TQS_UNIT_SLICE0 || u == TQS_UNIT_SLICE1) {
      uint64_t *s = &at[u == TQS_UNIT_SLICE0 ? 0 : 1];
      it->start = *s;
      if (it->cycles) {
        double s0 = (double)*s, s1 = s0 + (double)it->cycles;
        uint64_t lost = tqs__cycles(tqs__stall(hw, it, s0, s1, items, n, xfers));
        it->end = tq_u64_add_sat(tq_u64_add_sat(*s, it->cycles), lost);
      } else {
        it->end = *s;
      }
      *s = it->end;
    } else if (u == TQS_UNIT_CDMA || u == TQS_UNIT_CSS) {
      it->end = it->cycles;
    }
  }
}

/* ---- Where the DMA and the compute units work ------------------------------------------------ */

typedef struct tqs__edge_s {
  uint64_t t;
  int8_t dma, compute; /* +1 an item starts, -1 it ends */
} tqs__edge_t;

static int tqs__edge_cmp(const void *a, const void *b) {
  const tqs__edge_t *x = a, *y = b;
  return x->t < y->t ? -1 : x->t > y->t;
}

void tqs__task_busy(const tqs__item_t *items, size_t n, uint64_t *dma, uint64_t *compute,
                    uint64_t *both) {
  tqs__edge_t edges[2 * TQS_NPU_MAX_TASK_ITEMS];
  size_t m = 0;
  for (size_t i = 0; i < n && i < TQS_NPU_MAX_TASK_ITEMS; i++) {
    const tqs__item_t *it = &items[i];
    if (it->end <= it->start) continue;
    tqs_unit_t u = it->where.unit;
    int is_dma = u == TQS_UNIT_DMA_IN || u == TQS_UNIT_DMA_OUT || u == TQS_UNIT_CDMA;
    edges[m++] = (tqs__edge_t){it->start, (int8_t)is_dma, (int8_t)!is_dma};
    edges[m++] = (tqs__edge_t){it->end, (int8_t)-is_dma, (int8_t) - !is_dma};
  }
  qsort(edges, m, sizeof(edges[0]), tqs__edge_cmp);
  *dma = *compute = *both = 0;
  int in_dma = 0, in_compute = 0;
  for (size_t k = 0; k < m; k++) {
    if (k) {
      uint64_t len = edges[k].t - edges[k - 1].t;
      if (in_dma) *dma += len;
      if (in_compute) *compute += len;
      if (in_dma && in_compute) *both += len;
    }
    in_dma += edges[k].dma;
    in_compute += edges[k].compute;
  }
}
