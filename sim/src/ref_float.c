/* bf16 and f16 conversions: the bit patterns <-> f32 and f64, rounding to nearest even. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ref_internal.h"
#include "torq/sim/tensor.h"

float tqs_bf16_to_f32(uint16_t bits) {
  uint32_t wide = (uint32_t)bits << 16;
  float value;
  memcpy(&value, &wide, sizeof value);
  return value;
}

/* Adding 0x7fff plus the lowest kept bit rounds to nearest even; a carry out of the mantissa
 * moves into the exponent, which turns the largest values into infinity as IEEE requires. */
uint16_t tqs_f32_to_bf16(float value) {
  uint32_t bits;
  memcpy(&bits, &value, sizeof bits);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((bits >> 16) | 0x0040u);
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return (uint16_t)(bits >> 16);
}

/* Rounds `x` to the nearest value (ties to even) of a binary format with `mant_bits` fraction
 * bits and normal exponents emin..emax, subnormals included; beyond the largest finite value it
 * returns an infinity. Scaling by a power of two is exact, so nearbyint sees the exact value. */
static double tqs__round_to_format(double x, int mant_bits, int emin, int emax) {
  if (x == 0.0 || isnan(x) || isinf(x)) return x;
  int e = ilogb(x);
  if (e < emin) e = emin;
  double quantum = ldexp(1.0, e - mant_bits);
  double rounded = nearbyint(x / quantum) * quantum;
  double max_finite = ldexp(2.0 - ldexp(1.0, -mant_bits), emax);
  if (fabs(rounded) > max_finite) return copysign(INFINITY, x);
  return rounded;
}

uint16_t tqs_f64_to_bf16(double value) {
  if (isnan(value)) return signbit(value) ? 0xffc0u : 0x7fc0u;
  /* The rounded value is a bf16 number, hence exactly a float. */
  float exact = (float)tqs__round_to_format(value, 7, -126, 127);
  uint32_t bits;
  memcpy(&bits, &exact, sizeof bits);
  return (uint16_t)(bits >> 16);
}

float tqs_f16_to_f32(uint16_t bits) {
  uint32_t sign = (uint32_t)(bits & 0x8000u) << 16;
  uint32_t exponent = (bits >> 10) & 0x1fu;
  uint32_t mantissa = bits & 0x3ffu;
  if (exponent == 0) {
    float magnitude = ldexpf((float)mantissa, -24);
    return sign ? -magnitude : magnitude;
  }
  uint32_t wide;
  if (exponent == 0x1f) {
    wide = sign | 0x7f800000u | (mantissa << 13) | (mantissa ? 0x00400000u : 0);
  } else {
    wide = sign | ((exponent - 15 + 127) << 23) | (mantissa << 13);
  }
  float value;
  memcpy(&value, &wide, sizeof value);
  return value;
}

uint16_t tqs_f64_to_f16(double value) {
  uint16_t sign = signbit(value) ? 0x8000u : 0;
  if (isnan(value)) return (uint16_t)(sign | 0x7e00u);
  double r = tqs__round_to_format(value, 10, -14, 15);
  if (isinf(r)) return (uint16_t)(sign | 0x7c00u);
  double a = fabs(r);
  if (a == 0.0) return sign;
  int e = ilogb(a);
  if (e < -14) return (uint16_t)(sign | (uint16_t)ldexp(a, 24));
  uint16_t mantissa = (uint16_t)(ldexp(a, 10 - e) - 1024.0);
  return (uint16_t)(sign | (uint16_t)((e + 15) << 10) | mantissa);
}

uint16_t tqs_f32_to_f16(float value) {
  return tqs_f64_to_f16((double)value);
}

float tqs__round_float(tqs_type_t type, float value) {
  switch (type) {
    case TQS_BF16:
      return tqs_bf16_to_f32(tqs_f32_to_bf16(value));
    case TQS_F16:
      return tqs_f16_to_f32(tqs_f32_to_f16(value));
    default:
      return value;
  }
}
