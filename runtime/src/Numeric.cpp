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

uint16_t tessera::toF16(float value) {
  // Through double: exact for every f16, then round to nearest even.
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  uint16_t sign = (bits >> 16) & 0x8000;
  float magnitude = std::fabs(value);
  if (std::isnan(value))
    return sign | 0x7E00;
  if (magnitude >= 65520.0f)
    return sign | 0x7C00;
  if (magnitude < 6.103515625e-05f) { // subnormal: units of 2^-24
    uint16_t units =
        static_cast<uint16_t>(std::nearbyint(magnitude * 16777216.0f));
    return sign | units;
  }
  int exponent;
  float mantissa = std::frexp(magnitude, &exponent); // [0.5, 1)
  float scaled = std::nearbyint(mantissa * 2048.0f); // 11 bits
  if (scaled >= 2048.0f) {
    scaled /= 2;
    ++exponent;
  }
  uint16_t e = static_cast<uint16_t>(exponent - 1 + 15);
  return sign | (e << 10) | (static_cast<uint16_t>(scaled) & 0x3FF);
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
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  uint8_t sign = (bits >> 24) & 0x80;
  if (std::isnan(value))
    return sign | 0x7F;
  // Saturate: the largest finite e4m3 is 448 (no infinities).
  float magnitude = std::fmin(std::fabs(value), 448.0f);
  if (magnitude < 0.015625f) // below 2^-6: subnormal, units of 2^-9
    return sign | static_cast<uint8_t>(std::nearbyint(magnitude * 512.0f));
  int exponent;
  float mantissa = std::frexp(magnitude, &exponent); // [0.5, 1)
  float scaled = std::nearbyint(mantissa * 16.0f);   // 4 bits with the 1
  if (scaled >= 16.0f) {
    scaled /= 2;
    ++exponent;
  }
  uint8_t e = static_cast<uint8_t>(exponent - 1 + 7);
  return sign | (e << 3) | (static_cast<uint8_t>(scaled) & 0x7);
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
