/* Tests for tosa.rescale and tosa.table against values worked out from the TOSA 1.0
 * pseudo-code:
 *   v = in - in_zp;  round = 1 << (shift - 1);
 *   DOUBLE_ROUND and shift > 31: round += (v >= 0) ? 1 << 30 : -(1 << 30);
 *   r = (v * multiplier + round) >> shift;  out = clip(r + out_zp). */
#include <stdint.h>

#include "helpers.h"

#define M30 (INT64_C(1) << 30)

typedef struct th_rescale_case_s {
  const char *what;
  tqs_type_t in_type, out_type, zp_in_type, zp_out_type;
  int64_t in, multiplier, shift, in_zp, out_zp;
  int scale32;
  const char *mode;
  int in_unsigned, out_unsigned;
  int64_t want;
} th_rescale_case_t;

static const th_rescale_case_t th_rescale_cases[] = {
    /* 100 * 2^30 / 2^31 = 50 exactly: (100*2^30 + 2^30) >> 31 = floor(50.5) = 50. */
    {"exact half scale", TQS_I32, TQS_I8, TQS_I32, TQS_I8, 100, M30, 31, 0, 0, 1, "SINGLE_ROUND", 0,
     0, 50},
    /* 3 * 0.5 = 1.5: (3*2^30 + 2^30) >> 31 = 2: halves round up. */
    {"+1.5 rounds up", TQS_I32, TQS_I8, TQS_I32, TQS_I8, 3, M30, 31, 0, 0, 1, "SINGLE_ROUND", 0, 0,
     2},
    /* -3 * 0.5 = -1.5: (-3*2^30 + 2^30) >> 31 = -2^31 >> 31 = -1: towards +inf. */
    {"-1.5 rounds up", TQS_I32, TQS_I8, TQS_I32, TQS_I8, -3, M30, 31, 0, 0, 1, "SINGLE_ROUND", 0, 0,
     -1},
    /* shift <= 31: DOUBLE_ROUND is the same as SINGLE_ROUND. */
    {"double, shift 31", TQS_I32, TQS_I8, TQS_I32, TQS_I8, -3, M30, 31, 0, 0, 1, "DOUBLE_ROUND", 0,
     0, -1},
    /* 5 * 2^30 / 2^32 = 1.25. SINGLE: (5*2^30 + 2^31) >> 32 = floor(7/4) = 1. */
    {"1.25 single", TQS_I32, TQS_I32, TQS_I32, TQS_I32, 5, M30, 32, 0, 0, 1, "SINGLE_ROUND", 0, 0,
     1},
    /* DOUBLE: round = 2^31 + 2^30: (5 + 3) * 2^30 >> 32 = 2 (2.5 -> 3, then 1.5 -> 2). */
    {"1.25 double", TQS_I32, TQS_I32, TQS_I32, TQS_I32, 5, M30, 32, 0, 0, 1, "DOUBLE_ROUND", 0, 0,
     2},
    /* -6 * 2^30 / 2^32 = -1.5. SINGLE: (-6*2^30 + 2^31) >> 32 = -2^32 >> 32 = -1. */
    {"-1.5 single", TQS_I32, TQS_I32, TQS_I32, TQS_I32, -6, M30, 32, 0, 0, 1, "SINGLE_ROUND", 0, 0,
     -1},
    /* DOUBLE: round = 2^31 - 2^30 = 2^30: (-6 + 1) * 2^30 >> 32 = floor(-5/4) = -2. */
    {"-1.5 double", TQS_I32, TQS_I32, TQS_I32, TQS_I32, -6, M30, 32, 0, 0, 1, "DOUBLE_ROUND", 0, 0,
     -2},
    /* INEXACT_ROUND is computed as SINGLE_ROUND. */
    {"inexact", TQS_I32, TQS_I32, TQS_I32, TQS_I32, 5, M30, 32, 0, 0, 1, "INEXACT_ROUND", 0, 0, 1},
    /* 10^6 * 1717986918 / 2^40 = 1562.49999964. SINGLE: 1717986918000000 + 2^39
     * = 1718536673813888, >> 40 = 1562. DOUBLE adds 2^30 more: 1718537747555712 >> 40 = 1563. */
    {"large shift single", TQS_I32, TQS_I32, TQS_I32, TQS_I32, 1000000, 1717986918, 40, 0, 0, 1,
     "SINGLE_ROUND", 0, 0, 1562},
    {"large shift double", TQS_I32, TQS_I32, TQS_I32, TQS_I32, 1000000, 1717986918, 40, 0, 0, 1,
     "DOUBLE_ROUND", 0, 0, 1563},
    {"large shift double negative", TQS_I32, TQS_I32, TQS_I32, TQS_I32, -1000000, 1717986918, 40, 0,
     0, 1, "DOUBLE_ROUND", 0, 0, -1563},
    /* 100 * 1518500250 = 151850025000; + 2^30 = 152923766824; / 2^31 = 71.2 -> 71. */
    {"sqrt(1/2) scale", TQS_I16, TQS_I8, TQS_I16, TQS_I8, 100, 1518500250, 31, 0, 0, 1,
     "DOUBLE_ROUND", 0, 0, 71},
    /* Scale 1 (2^30 >> 30): 1000 saturates to 127, -1000 to -128, 40000 to 32767 in i16. */
    {"saturate i8 high", TQS_I32, TQS_I8, TQS_I32, TQS_I8, 1000, M30, 30, 0, 0, 1, "SINGLE_ROUND",
     0, 0, 127},
    {"saturate i8 low", TQS_I32, TQS_I8, TQS_I32, TQS_I8, -1000, M30, 30, 0, 0, 1, "SINGLE_ROUND",
     0, 0, -128},
    {"saturate i16 high", TQS_I32, TQS_I16, TQS_I32, TQS_I16, 40000, M30, 30, 0, 0, 1,
     "SINGLE_ROUND", 0, 0, 32767},
    {"saturate i16 low", TQS_I32, TQS_I16, TQS_I32, TQS_I16, -40000, M30, 30, 0, 0, 1,
     "SINGLE_ROUND", 0, 0, -32768},
    /* Negative zero points: v = -100 - (-128) = 28; scale 1; 28 + (-5) = 23. */
    {"negative zero points", TQS_I8, TQS_I8, TQS_I8, TQS_I8, -100, M30, 30, -128, -5, 1,
     "DOUBLE_ROUND", 0, 0, 23},
    /* i8 -> i32 with input zp -128: -128 - (-128) = 0. */
    {"i8 to i32 zp", TQS_I8, TQS_I32, TQS_I8, TQS_I32, -128, M30, 30, -128, 0, 1, "DOUBLE_ROUND", 0,
     0, 0},
    /* Output zp -128 with v = -10: -10 - 128 = -138 saturates to -128. */
    {"output zp saturates", TQS_I32, TQS_I8, TQS_I32, TQS_I8, -10, M30, 30, 0, -128, 1,
     "SINGLE_ROUND", 0, 0, -128},
    /* input_unsigned: the i8 bits 0xc8 read as 200; zp i8 -128 read as 128: 200 - 128 = 72. */
    {"unsigned input in i8", TQS_I8, TQS_I8, TQS_I8, TQS_I8, -56, M30, 30, -128, 0, 1,
     "SINGLE_ROUND", 1, 0, 72},
    /* A ui8 tensor is unsigned by type: 200 - 128 = 72. */
    {"ui8 input", TQS_U8, TQS_I8, TQS_I8, TQS_I8, 200, M30, 30, -128, 0, 1, "SINGLE_ROUND", 1, 0,
     72},
    /* output_unsigned into ui8: -100 + zp (i8 -128 read as 128) = 28. */
    {"ui8 output", TQS_I8, TQS_U8, TQS_I8, TQS_I8, -100, M30, 30, 0, -128, 1, "SINGLE_ROUND", 0, 1,
     28},
    /* Unsigned outputs clip to 0..255: -120 -> 0; 127 + 200 (i8 -56 read as 200) = 327 -> 255. */
    {"ui8 output low", TQS_I8, TQS_U8, TQS_I8, TQS_I8, -120, M30, 30, 0, 0, 1, "SINGLE_ROUND", 0, 1,
     0},
    {"ui8 output high", TQS_I8, TQS_U8, TQS_I8, TQS_I8, 127, M30, 30, 0, -56, 1, "SINGLE_ROUND", 0,
     1, 255},
    /* output_unsigned into an i8 container: 100 + 128 = 228 is stored as the bits 0xe4 (-28). */
    {"unsigned bits in i8", TQS_I8, TQS_I8, TQS_I8, TQS_I8, 100, M30, 30, 0, -128, 1,
     "SINGLE_ROUND", 0, 1, -28},
    /* scale32 false: 16-bit multiplier 2^14, shift 15 (x0.5): (3*2^14 + 2^14) >> 15 = 2 and
     * (-3*2^14 + 2^14) >> 15 = -1. */
    {"scale16 +1.5", TQS_I16, TQS_I16, TQS_I16, TQS_I16, 3, 16384, 15, 0, 0, 0, "SINGLE_ROUND", 0,
     0, 2},
    {"scale16 -1.5", TQS_I16, TQS_I16, TQS_I16, TQS_I16, -3, 16384, 15, 0, 0, 0, "DOUBLE_ROUND", 0,
     0, -1},
};

START_TEST(rescale_matches_hand_computed_values) {
  const th_rescale_case_t *c = &th_rescale_cases[_i];
  tqs_tensor_t *x = th_tensor_i(c->in_type, TH_SHAPE(1), &c->in);
  tqs_tensor_t *y = th_tensor_i(c->out_type, TH_SHAPE(1), NULL);
  tqs_tensor_t *m = th_one(c->scale32 ? TQS_I32 : TQS_I16, c->multiplier);
  tqs_tensor_t *s = th_one(TQS_I8, c->shift);
  tqs_tensor_t *izp = th_one(c->zp_in_type, c->in_zp);
  tqs_tensor_t *ozp = th_one(c->zp_out_type, c->out_zp);
  TH_OK(tqs_ref_run(
      "tosa.rescale",
      TH_ATTRS(TQS_ATTR_I("scale32", c->scale32), TQS_ATTR_S("rounding_mode", c->mode),
               TQS_ATTR_I("per_channel", 0), TQS_ATTR_I("input_unsigned", c->in_unsigned),
               TQS_ATTR_I("output_unsigned", c->out_unsigned)),
      TH_INS(x, m, s, izp, ozp), TH_OUTS(y)));
  ck_assert_msg(tqs_tensor_get_i64(y, 0) == c->want, "%s: got %lld, want %lld", c->what,
                (long long)tqs_tensor_get_i64(y, 0), (long long)c->want);
}
END_TEST

/* Channels are the last dim. Multipliers 2^30, 2^30, 3*2^28 with shifts 30, 31, 30 scale by
 * 1, 0.5, 0.75:
 *   ch0: 10, -7
 *   ch1: (10*2^30 + 2^30) >> 31 = 5;  (-7*2^30 + 2^30) >> 31 = -6*2^30 >> 31 = -3
 *   ch2: (30*2^28 + 2*2^28) >> 30 = 8 (7.5 up);  (-21*2^28 + 2*2^28) >> 30 = floor(-19/4) = -5 */
START_TEST(rescale_per_channel_uses_the_last_dim) {
  tqs_tensor_t *x = th_tensor_i(TQS_I32, TH_SHAPE(2, 3), TH_I(10, 10, 10, -7, -7, -7));
  tqs_tensor_t *y = th_tensor_i(TQS_I8, TH_SHAPE(2, 3), NULL);
  tqs_tensor_t *m = th_tensor_i(TQS_I32, TH_SHAPE(3), TH_I(M30, M30, 3 * (M30 / 4)));
  tqs_tensor_t *s = th_tensor_i(TQS_I8, TH_SHAPE(3), TH_I(30, 31, 30));
  TH_OK(tqs_ref_run("rescale",
                    TH_ATTRS(TQS_ATTR_I("scale32", 1), TQS_ATTR_S("rounding_mode", "DOUBLE_ROUND"),
                             TQS_ATTR_I("per_channel", 1)),
                    TH_INS(x, m, s, th_one(TQS_I32, 0), th_one(TQS_I8, 0)), TH_OUTS(y)));
  TH_EXPECT_I(y, 10, 5, 8, -7, -3, -5);
}
END_TEST

START_TEST(rescale_rejects_shift_out_of_range_and_bad_channel_count) {
  tqs_tensor_t *x = th_tensor_i(TQS_I32, TH_SHAPE(2, 3), NULL);
  tqs_tensor_t *y = th_tensor_i(TQS_I8, TH_SHAPE(2, 3), NULL);
  tqs_tensor_t *zi = th_one(TQS_I32, 0), *zo = th_one(TQS_I8, 0);
  TH_ERROR(
      tqs_ref_run("tosa.rescale",
                  TH_ATTRS(TQS_ATTR_I("scale32", 1), TQS_ATTR_S("rounding_mode", "SINGLE_ROUND"),
                           TQS_ATTR_I("per_channel", 0)),
                  TH_INS(x, th_one(TQS_I32, M30), th_one(TQS_I8, 64), zi, zo), TH_OUTS(y)),
      TQ_INVALID_ARGUMENT, "tosa.rescale", "shift 64");
  TH_ERROR(
      tqs_ref_run("tosa.rescale",
                  TH_ATTRS(TQS_ATTR_I("scale32", 1), TQS_ATTR_S("rounding_mode", "SINGLE_ROUND"),
                           TQS_ATTR_I("per_channel", 1)),
                  TH_INS(x, th_one(TQS_I32, M30), th_one(TQS_I8, 30), zi, zo), TH_OUTS(y)),
      TQ_INVALID_ARGUMENT, "tosa.rescale", "expected 3 values");
  TH_ERROR(tqs_ref_run("tosa.rescale",
                       TH_ATTRS(TQS_ATTR_I("scale32", 1), TQS_ATTR_S("rounding_mode", "HALF_UP"),
                                TQS_ATTR_I("per_channel", 0)),
                       TH_INS(x, th_one(TQS_I32, M30), th_one(TQS_I8, 30), zi, zo), TH_OUTS(y)),
           TQ_INVALID_ARGUMENT, "tosa.rescale", "HALF_UP");
}
END_TEST

/* i8 table: out = table[in + 128]. With table[k] = k/2 - 64 (C division):
 * -128 -> table[0] = -64; -1 -> table[127] = 63 - 64 = -1; 0 -> table[128] = 0;
 * 127 -> table[255] = 127 - 64 = 63. */
START_TEST(table_i8_is_a_direct_lookup) {
  tqs_tensor_t *table = th_tensor_i(TQS_I8, TH_SHAPE(256), NULL);
  for (int k = 0; k < 256; k++) tqs_tensor_set_i64(table, (size_t)k, k / 2 - 64);
  tqs_tensor_t *x = th_tensor_i(TQS_I8, TH_SHAPE(4), TH_I(-128, -1, 0, 127));
  tqs_tensor_t *y = th_tensor_i(TQS_I8, TH_SHAPE(4), NULL);
  TH_OK(tqs_ref_run("tosa.table", TH_NO_ATTRS, TH_INS(x, table), TH_OUTS(y)));
  TH_EXPECT_I(y, -64, -1, 0, 63);
}
END_TEST

/* i16 table of 513 entries, table[j] = 10*j - 2560 except table[256] = 5:
 * index = (v + 32768) >> 7, fraction = v & 0x7f, out = base * 128 + (next - base) * fraction.
 *   -32768: index 0, fraction 0: -2560 * 128 = -327680
 *   0: index 256, fraction 0: 5 * 128 = 640
 *   64: index 256, fraction 64: 640 + (10 - 5) * 64 = 960
 *   -1: index 255 (32767 >> 7), fraction 127: -10 * 128 + (5 - -10) * 127 = -1280 + 1905 = 625
 *   200: index 257 (32968 >> 7), fraction 72: 10 * 128 + (20 - 10) * 72 = 2000
 *   32767: index 511, fraction 127: 2550 * 128 + 10 * 127 = 327670 */
START_TEST(table_i16_interpolates_to_i32) {
  tqs_tensor_t *table = th_tensor_i(TQS_I16, TH_SHAPE(513), NULL);
  for (int j = 0; j < 513; j++) tqs_tensor_set_i64(table, (size_t)j, 10 * j - 2560);
  tqs_tensor_set_i64(table, 256, 5);
  tqs_tensor_t *x = th_tensor_i(TQS_I16, TH_SHAPE(6), TH_I(-32768, 0, 64, -1, 200, 32767));
  tqs_tensor_t *y = th_tensor_i(TQS_I32, TH_SHAPE(6), NULL);
  TH_OK(tqs_ref_run("tosa.table", TH_NO_ATTRS, TH_INS(x, table), TH_OUTS(y)));
  TH_EXPECT_I(y, -327680, 640, 960, 625, 2000, 327670);
}
END_TEST

Suite *rescale_suite(void) {
  Suite *s = suite_create("rescale");
  TCase *tc = th_tcase("rescale");
  tcase_add_loop_test(tc, rescale_matches_hand_computed_values, 0,
                      sizeof th_rescale_cases / sizeof th_rescale_cases[0]);
  tcase_add_test(tc, rescale_per_channel_uses_the_last_dim);
  tcase_add_test(tc, rescale_rejects_shift_out_of_range_and_bad_channel_count);
  tcase_add_test(tc, table_i8_is_a_direct_lookup);
  tcase_add_test(tc, table_i16_interpolates_to_i32);
  suite_add_tcase(s, tc);
  return s;
}
