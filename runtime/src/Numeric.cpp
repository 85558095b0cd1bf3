//===- Numeric.cpp - bf16 and f16 storage conversions -----------*- C++ -*-===//

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
