//===- Numeric.cpp - bf16, f16 and fp8 storage conversions ------*- C++ -*-===//

#include "tessera/runtime/quantize.hpp"

#include <cmath>
#include <cstring>

uint16_t tessera::toBF16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  if (std::isnan(value))
    return 0x7FC0;
  uint32_t rounding = 0x7FFF + ((bits >> 16) & 1);
  return static_cast<uint16_t>((bits + rounding) >> 16);
}

float tessera::fromBF16(uint16_t bits) {
  uint32_t wide = uint32_t(bits) << 16;
  float value;
  std::memcpy(&value, &wide, 4);
  return value;
}

/// The exponent and mantissa bits of a finite non-negative `magnitude` in a
/// binary format with `mantissaBits` and exponent `bias`, rounded to nearest
/// even; below the smallest normal, 2^(1 - bias), in subnormal units.
static uint32_t encodeMagnitude(float magnitude, int mantissaBits, int bias) {
  if (magnitude < std::ldexp(1.0f, 1 - bias))
    return static_cast<uint32_t>(
        std::nearbyint(std::ldexp(magnitude, bias - 1 + mantissaBits)));
  int exponent;
  float mantissa = std::frexp(magnitude, &exponent); // [0.5, 1)
  float scaled = std::nearbyint(std::ldexp(mantissa, mantissaBits + 1));
  if (scaled >= std::ldexp(1.0f, mantissaBits + 1)) { // rounded up to 2^e
    scaled /= 2;
    ++exponent;
  }
  return static_cast<uint32_t>(exponent - 1 + bias) << mantissaBits |
         (static_cast<uint32_t>(scaled) & ((1u << mantissaBits) - 1));
}

uint16_t tessera::toF16(float value) {
  uint16_t sign = std::signbit(value) ? 0x8000 : 0;
  if (std::isnan(value))
    return sign | 0x7E00;
  float magnitude = std::fabs(value);
  if (magnitude >= 65520.0f) // rounds past the largest finite f16
    return sign | 0x7C00;
  return sign | static_cast<uint16_t>(encodeMagnitude(magnitude, 10, 15));
}

float tessera::fromF16(uint16_t bits) {
  float sign = (bits & 0x8000) ? -1.0f : 1.0f;
  int e = (bits >> 10) & 0x1F, m = bits & 0x3FF;
  if (e == 0)
    return sign * std::ldexp(float(m), -24);
  if (e == 31)
    return m ? NAN : sign * INFINITY;
  return sign * std::ldexp(float(m | 0x400), e - 25);
}

uint8_t tessera::toE4M3(float value) {
  uint8_t sign = std::signbit(value) ? 0x80 : 0;
  if (std::isnan(value))
    return sign | 0x7F;
  // Saturate: the largest finite e4m3 is 448 (no infinities).
  float magnitude = std::fmin(std::fabs(value), 448.0f);
  return sign | static_cast<uint8_t>(encodeMagnitude(magnitude, 3, 7));
}

float tessera::fromE4M3(uint8_t bits) {
  float sign = (bits & 0x80) ? -1.0f : 1.0f;
  int e = (bits >> 3) & 0xF, m = bits & 0x7;
  if (e == 15 && m == 7)
    return NAN;
  if (e == 0)
    return sign * std::ldexp(float(m), -9);
  return sign * std::ldexp(float(m | 0x8), e - 10);
}
