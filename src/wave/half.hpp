// IEEE 754 binary16 <-> binary32, round to nearest even (f16 is a storage type in WAVE).
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

namespace wavestack::wave {

inline uint16_t float_to_half(float value) noexcept {
  const uint32_t x = std::bit_cast<uint32_t>(value);
  const uint32_t sign = (x >> 16) & 0x8000U;
  const uint32_t exponent = (x >> 23) & 0xFFU;
  uint32_t mantissa = x & 0x7FFFFFU;
  if (exponent == 0xFFU) {  // inf stays inf; NaN stays a quiet NaN
    return static_cast<uint16_t>(sign | 0x7C00U | (mantissa != 0 ? 0x200U | (mantissa >> 13) : 0U));
  }
  const int32_t e = static_cast<int32_t>(exponent) - 127 + 15;
  if (e >= 31) return static_cast<uint16_t>(sign | 0x7C00U);
  if (e <= 0) {  // a half subnormal (or zero): shift the full significand into place
    if (e < -10) return static_cast<uint16_t>(sign);
    mantissa |= 0x800000U;
    const auto shift = static_cast<uint32_t>(14 - e);
    uint32_t half = mantissa >> shift;
    const uint32_t rest = mantissa & ((1U << shift) - 1U);
    const uint32_t halfway = 1U << (shift - 1U);
    if (rest > halfway || (rest == halfway && (half & 1U) != 0)) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = sign | (static_cast<uint32_t>(e) << 10) | (mantissa >> 13);
  const uint32_t rest = mantissa & 0x1FFFU;
  // A carry out of the mantissa correctly bumps the exponent (up to inf).
  if (rest > 0x1000U || (rest == 0x1000U && (half & 1U) != 0)) ++half;
  return static_cast<uint16_t>(half);
}

inline float half_to_float(uint16_t half) noexcept {
  const uint32_t sign = static_cast<uint32_t>(half & 0x8000U) << 16;
  const uint32_t exponent = (half >> 10) & 0x1FU;
  const uint32_t mantissa = half & 0x3FFU;
  if (exponent == 0) {
    const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign != 0 ? -magnitude : magnitude;
  }
  if (exponent == 31) return std::bit_cast<float>(sign | 0x7F800000U | (mantissa << 13));
  return std::bit_cast<float>(sign | ((exponent + 112U) << 23) | (mantissa << 13));
}

}  // namespace wavestack::wave
