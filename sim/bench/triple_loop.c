/* torq-bench-loop: the host baseline for torq-bench-sim, a plain C loop nest doing the MACs of
 * one op (int8 operands, an int32 accumulator, the op's own layouts), nothing else.
 *
 *   torq-bench-loop [-n REPS] conv2d    N IH IW IC OC KH KW SY SX DY DX PT PB PL PR
 *   torq-bench-loop [-n REPS] depthwise N IH IW C  M  KH KW SY SX DY DX PT PB PL PR
 *   torq-bench-loop [-n REPS] matmul    B M N K
 *
 * conv2d: input NHWC, weights OHWI, output [N, OH, OW, OC]; depthwise: weights HWCM, output
 * channel c * M + m; matmul: A [B, M, K] times B [B, K, N]. The input is zero-padded once,
 * before timing, so the timed nest does every tap (OH*OW*OC*KH*KW*IC MACs, padding included, as
 * the compiler counts them) without bounds tests: output pixels x output channels x taps x
 * input channels for a convolution, M x N x K for a matmul. The matmul's B is transposed once,
 * before timing, so the innermost loop reads both operands along K (the naive triple loop over
 * contiguous rows, as a convolution's OHWI weights are).
 *
 * scripts/bench-sim builds this file twice: with the project's flags (torq-bench-loop) and, in
 * the same run as its measurements, with -O3 -march=native (the anchor of issue 18).
 *
 * Operands are seeded random. One untimed run, then REPS timed runs. The result is checked
 * against a separate int64 computation (with bounds tests instead of padding) at sampled
 * outputs, and its checksum is printed, so the compiler cannot drop the nest. Prints one
 * tab-separated line (peak_rss_kb: this process's peak resident set, getrusage):
 *
 *   macs  best_s  median_s  checksum  peak_rss_kb
 *
 * Exits 0, 1 when the check fails or memory runs out, 2 on bad usage.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#define MAX_REPS 100000
#define SAMPLES 256

typedef enum op_kind_e { OP_CONV, OP_DEPTHWISE, OP_MATMUL } op_kind_t;

/* conv2d/depthwise use every field (c1, c2 = IC, OC or C, M); matmul uses n (batch), m, n_cols,
 * k. */
typedef struct op_s {
  op_kind_t kind;
  long n, ih, iw, c1, c2, kh, kw, sy, sx, dy, dx, pt, pb, pl, pr;
  long m, n_cols, k;
  long oh, ow, oc; /* derived */
} op_t;

typedef struct data_s {
  int8_t *in;  /* conv: padded input; matmul: A */
  int8_t *raw; /* conv: the unpadded input (for the check); matmul: unused */
  int8_t *w;   /* weights or B */
  int8_t *wt;  /* matmul: B transposed, [B, N, K]; else unused */
  int32_t *out;
  long ph, pw; /* padded input rows and columns */
} data_t;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static uint64_t xorshift(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

/* ---- The timed nests --------------------------------------------------------------------------- */

static void conv2d_loop(const op_t *op, const data_t *d) {
  for (long n = 0; n < op->n; n++)
    for (long oy = 0; oy < op->oh; oy++)
      for (long ox = 0; ox < op->ow; ox++) {
        int32_t *out = d->out + ((n * op->oh + oy) * op->ow + ox) * op->oc;
        for (long oc = 0; oc < op->oc; oc++) {
          int32_t acc = 0;
          for (long ky = 0; ky < op->kh; ky++)
            for (long kx = 0; kx < op->kw; kx++) {
              const int8_t *ip =
                  d->in + ((n * d->ph + oy * op->sy + ky * op->dy) * d->pw + ox * op->sx +
                           kx * op->dx) * op->c1;
              const int8_t *wp = d->w + ((oc * op->kh + ky) * op->kw + kx) * op->c1;
              for (long ic = 0; ic < op->c1; ic++) acc += (int32_t)ip[ic] * (int32_t)wp[ic];
            }
          out[oc] = acc;
        }
      }
}

static void depthwise_loop(const op_t *op, const data_t *d) {
  for (long n = 0; n < op->n; n++)
    for (long oy = 0; oy < op->oh; oy++)
      for (long ox = 0; ox < op->ow; ox++) {
        int32_t *out = d->out + ((n * op->oh + oy) * op->ow + ox) * op->oc;
        for (long c = 0; c < op->c1; c++)
          for (long m = 0; m < op->c2; m++) {
            int32_t acc = 0;
            for (long ky = 0; ky < op->kh; ky++)
              for (long kx = 0; kx < op->kw; kx++) {
                int8_t x = d->in[((n * d->ph + oy * op->sy + ky * op->dy) * d->pw + ox * op->sx +
                                  kx * op->dx) * op->c1 + c];
                int8_t w = d->w[((ky * op->kw + kx) * op->c1 + c) * op->c2 + m];
                acc += (int32_t)x * (int32_t)w;
              }
            out[c * op->c2 + m] = acc;
          }
      }
}

static void matmul_loop(const op_t *op, const data_t *d) {
  for (long b = 0; b < op->n; b++) {
    const int8_t *a = d->in + b * op->m * op->k, *bt = d->wt + b * op->n_cols * op->k;
    int32_t *out = d->out + b * op->m * op->n_cols;
    for (long i = 0; i < op->m; i++)
      for (long j = 0; j < op->n_cols; j++) {
        int32_t acc = 0;
        for (long k = 0; k < op->k; k++)
          acc += (int32_t)a[i * op->k + k] * (int32_t)bt[j * op->k + k];
        out[i * op->n_cols + j] = acc;
      }
  }
}

static void run_loop(const op_t *op, const data_t *d) {
  switch (op->kind) {
    case OP_CONV: conv2d_loop(op, d); break;
    case OP_DEPTHWISE: depthwise_loop(op, d); break;
    case OP_MATMUL: matmul_loop(op, d); break;
  }
}

/* ---- The check: one output element, in int64, from the unpadded operands ---------------------- */

static int64_t reference_at(const op_t *op, const data_t *d, long index) {
  int64_t acc = 0;
  if (op->kind == OP_MATMUL) {
    long j = index % op->n_cols, i = index / op->n_cols % op->m, b = index / op->n_cols / op->m;
    for (long k = 0; k < op->k; k++)
      acc += (int64_t)d->in[(b * op->m + i) * op->k + k] *
             d->w[(b * op->k + k) * op->n_cols + j];
    return acc;
  }
  long oc = index % op->oc, pix = index / op->oc;
  long ox = pix % op->ow, oy = pix / op->ow % op->oh, n = pix / op->ow / op->oh;
  long cin0 = op->kind == OP_CONV ? 0 : oc / op->c2;
  long cin1 = op->kind == OP_CONV ? op->c1 : cin0 + 1;
  for (long ky = 0; ky < op->kh; ky++)
    for (long kx = 0; kx < op->kw; kx++) {
      long y = oy * op->sy - op->pt + ky * op->dy, x = ox * op->sx - op->pl + kx * op->dx;
      if (y < 0 || y >= op->ih || x < 0 || x >= op->iw) continue;
      for (long c = cin0; c < cin1; c++) {
        int64_t v = d->raw[((n * op->ih + y) * op->iw + x) * op->c1 + c];
        int64_t w = op->kind == OP_CONV ? d->w[((oc * op->kh + ky) * op->kw + kx) * op->c1 + c]
                                        : d->w[((ky * op->kw + kx) * op->c1 + c) * op->c2 +
                                               oc % op->c2];
        acc += v * w;
      }
    }
  return acc;
}

/* ---- Set-up ------------------------------------------------------------------------------------ */

static int parse_long(const char *s, long lo, long *out) {
  char *end;
  long v = strtol(s, &end, 10);
  if (*s == '\0' || *end || v < lo || v > (1L << 24)) return 0;
  *out = v;
  return 1;
}

/* Fills `op` from the words after the op name; 0 on a bad count or value. */
static int parse_op(const char *name, char **args, int nargs, op_t *op) {
  memset(op, 0, sizeof(*op));
  if (strcmp(name, "matmul") == 0) {
    op->kind = OP_MATMUL;
    return nargs == 4 && parse_long(args[0], 1, &op->n) && parse_long(args[1], 1, &op->m) &&
           parse_long(args[2], 1, &op->n_cols) && parse_long(args[3], 1, &op->k);
  }
  if (strcmp(name, "conv2d") == 0)
    op->kind = OP_CONV;
  else if (strcmp(name, "depthwise") == 0)
    op->kind = OP_DEPTHWISE;
  else
    return 0;
  long *f[15] = {&op->n,  &op->ih, &op->iw, &op->c1, &op->c2, &op->kh, &op->kw, &op->sy,
                 &op->sx, &op->dy, &op->dx, &op->pt, &op->pb, &op->pl, &op->pr};
  if (nargs != 15) return 0;
  for (int i = 0; i < 15; i++)
    if (!parse_long(args[i], i >= 11 ? 0 : 1, f[i])) return 0;
  long eh = op->ih + op->pt + op->pb - (op->kh - 1) * op->dy - 1;
  long ew = op->iw + op->pl + op->pr - (op->kw - 1) * op->dx - 1;
  if (eh < 0 || ew < 0) return 0;
  op->oh = eh / op->sy + 1;
  op->ow = ew / op->sx + 1;
  op->oc = op->kind == OP_CONV ? op->c2 : op->c1 * op->c2;
  return 1;
}

static uint64_t op_macs(const op_t *op) {
  if (op->kind == OP_MATMUL)
    return (uint64_t)op->n * (uint64_t)op->m * (uint64_t)op->n_cols * (uint64_t)op->k;
  return (uint64_t)op->n * (uint64_t)op->oh * (uint64_t)op->ow * (uint64_t)op->oc *
         (uint64_t)op->kh * (uint64_t)op->kw * (uint64_t)(op->kind == OP_CONV ? op->c1 : 1);
}

static size_t op_outputs(const op_t *op) {
  if (op->kind == OP_MATMUL) return (size_t)(op->n * op->m * op->n_cols);
  return (size_t)(op->n * op->oh * op->ow * op->oc);
}

static void fill_random(int8_t *p, size_t n, uint64_t *s) {
  for (size_t i = 0; i < n; i++) p[i] = (int8_t)xorshift(s);
}

static void data_free(data_t *d) {
  free(d->in);
  free(d->raw);
  free(d->w);
  free(d->wt);
  free(d->out);
}

/* Allocates and fills the operands; 0 when memory runs out. */
static int data_init(const op_t *op, data_t *d) {
  memset(d, 0, sizeof(*d));
  uint64_t s = 0x2545f4914f6cdd1du;
  size_t nw, nin;
  if (op->kind == OP_MATMUL) {
    nin = (size_t)(op->n * op->m * op->k);
    nw = (size_t)(op->n * op->k * op->n_cols);
  } else {
    d->ph = op->ih + op->pt + op->pb;
    d->pw = op->iw + op->pl + op->pr;
    nin = (size_t)(op->n * op->ih * op->iw * op->c1);
    nw = (size_t)(op->kh * op->kw * op->c1 * op->c2);
    d->raw = malloc(nin);
    d->in = calloc((size_t)(op->n * d->ph * d->pw * op->c1), 1);
  }
  if (op->kind == OP_MATMUL) d->in = malloc(nin);
  d->w = malloc(nw);
  if (op->kind == OP_MATMUL) d->wt = malloc(nw);
  d->out = calloc(op_outputs(op), sizeof(*d->out));
  if (!d->in || !d->w || !d->out || (op->kind != OP_MATMUL && !d->raw) ||
      (op->kind == OP_MATMUL && !d->wt))
    return 0;
  fill_random(op->kind == OP_MATMUL ? d->in : d->raw, nin, &s);
  fill_random(d->w, nw, &s);
  if (op->kind == OP_MATMUL)
    for (long b = 0; b < op->n; b++)
      for (long k = 0; k < op->k; k++)
        for (long j = 0; j < op->n_cols; j++)
          d->wt[(b * op->n_cols + j) * op->k + k] = d->w[(b * op->k + k) * op->n_cols + j];
  if (op->kind != OP_MATMUL) {
    size_t row = (size_t)(op->iw * op->c1);
    for (long n = 0; n < op->n; n++)
      for (long y = 0; y < op->ih; y++)
        memcpy(d->in + ((n * d->ph + y + op->pt) * d->pw + op->pl) * op->c1,
               d->raw + (n * op->ih + y) * (long)row, row);
  }
  return 1;
}

int main(int argc, char **argv) {
  long reps = 10;
  int first = 1;
  if (argc > 2 && strcmp(argv[1], "-n") == 0) {
    if (!parse_long(argv[2], 1, &reps) || reps > MAX_REPS) {
      fprintf(stderr, "torq-bench-loop: -n wants a count from 1 to %d, not '%s'\n", MAX_REPS,
              argv[2]);
      return 2;
    }
    first = 3;
  }
  op_t op;
  if (first >= argc || !parse_op(argv[first], argv + first + 1, argc - first - 1, &op)) {
    fprintf(stderr,
            "usage: torq-bench-loop [-n REPS] conv2d|depthwise N IH IW C1 C2 KH KW SY SX DY DX PT "
            "PB PL PR\n"
            "       torq-bench-loop [-n REPS] matmul B M N K\n");
    return 2;
  }
  data_t d;
  double *times = calloc((size_t)reps, sizeof(*times));
  if (!data_init(&op, &d) || !times) {
    fprintf(stderr, "torq-bench-loop: out of memory\n");
    data_free(&d);
    free(times);
    return 1;
  }
  run_loop(&op, &d);
  for (long r = 0; r < reps; r++) {
    double t0 = now_s();
    run_loop(&op, &d);
    times[r] = now_s() - t0;
  }
  size_t outs = op_outputs(&op);
  uint64_t checksum = 0, s = 0x853c49e6748fea9bu;
  for (size_t i = 0; i < outs; i++) checksum = checksum * 31 + (uint32_t)d.out[i];
  int rc = 0;
  for (int i = 0; i < SAMPLES && rc == 0; i++) {
    long at = i == 0 ? 0 : i == 1 ? (long)outs - 1 : (long)(xorshift(&s) % outs);
    int64_t want = reference_at(&op, &d, at);
    if (want != d.out[at]) {
      fprintf(stderr, "torq-bench-loop: output %ld is %" PRId32 ", the reference says %" PRId64 "\n",
              at, d.out[at], want);
      rc = 1;
    }
  }
  if (rc == 0) {
    qsort(times, (size_t)reps, sizeof(*times), cmp_double);
    double median = reps % 2 ? times[reps / 2] : (times[reps / 2 - 1] + times[reps / 2]) / 2;
    struct rusage ru;
    long rss = getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : 0;
    printf("%" PRIu64 "\t%.6f\t%.6f\t%016" PRIx64 "\t%ld\n", op_macs(&op), times[0], median,
           checksum, rss);
  }
  data_free(&d);
  free(times);
  return rc;
}
