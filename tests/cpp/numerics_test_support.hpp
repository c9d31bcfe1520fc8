// Helpers of the device-numerics tests: bit-pattern conversions, the special values every
// operation is crossed with, seeded random operands that reach the hard cases (cancellation,
// ties, subnormals, overflow), the WebAssembly NaN rule, and a mismatch reporter that stops
// after a few failures and names the seed.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "wasm/device/numerics.hpp"

namespace wavestack::numerics_test {

using wavestack::wasm::device::uint;
using wavestack::wasm::device::uvec2;

// --- bit patterns -------------------------------------------------------------------------
inline uvec2 to_uvec2(uint64_t v) {
  return uvec2(static_cast<uint>(v), static_cast<uint>(v >> 32));
}
inline uint64_t to_u64(uvec2 v) {
  return (uint64_t{v.y} << 32) | v.x;
}
inline float as_float(uint bits) {
  return std::bit_cast<float>(bits);
}
inline uint bits_of(float value) {
  return std::bit_cast<uint>(value);
}
inline double as_double(uint64_t bits) {
  return std::bit_cast<double>(bits);
}
inline uint64_t bits_of(double value) {
  return std::bit_cast<uint64_t>(value);
}

inline std::string hex32(uint v) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08X", v);
  return text;
}
inline std::string hex64(uint64_t v) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%016llX", static_cast<unsigned long long>(v));
  return text;
}

// --- the WebAssembly NaN rule (spec 4.3.3) and the library's policy -------------------------
constexpr uint kF32CanonicalNan = 0x7FC00000u;
constexpr uint64_t kF64CanonicalNan = 0x7FF8000000000000ull;

inline bool f32_nan(uint v) {
  return (v & 0x7FFFFFFFu) > 0x7F800000u;
}
inline bool f64_nan(uint64_t v) {
  return (v & 0x7FFFFFFFFFFFFFFFull) > 0x7FF0000000000000ull;
}
inline bool f32_canonical_nan(uint v) {
  return (v & 0x7FFFFFFFu) == kF32CanonicalNan;
}
inline bool f64_canonical_nan(uint64_t v) {
  return (v & 0x7FFFFFFFFFFFFFFFull) == kF64CanonicalNan;
}
inline bool f32_arithmetic_nan(uint v) {
  return f32_nan(v) && (v & 0x00400000u) != 0u;
}
inline bool f64_arithmetic_nan(uint64_t v) {
  return f64_nan(v) && (v & 0x0008000000000000ull) != 0u;
}

// Whether `result` is a NaN the spec allows for an operation whose NaN operands are `inputs`:
// canonical when every NaN operand is canonical (or there is none), otherwise arithmetic.
inline bool f32_wasm_nan_allowed(uint result, std::initializer_list<uint> inputs) {
  bool all_canonical = true;
  for (uint v : inputs) all_canonical = all_canonical && (!f32_nan(v) || f32_canonical_nan(v));
  return all_canonical ? f32_canonical_nan(result) : f32_arithmetic_nan(result);
}
inline bool f64_wasm_nan_allowed(uint64_t result, std::initializer_list<uint64_t> inputs) {
  bool all_canonical = true;
  for (uint64_t v : inputs) all_canonical = all_canonical && (!f64_nan(v) || f64_canonical_nan(v));
  return all_canonical ? f64_canonical_nan(result) : f64_arithmetic_nan(result);
}

// Compares a float result with the native one: equal bits, or, when the native result is a
// NaN (whose payload IEEE leaves open), a NaN allowed by the wasm rule that is also exactly
// the library's documented NaN (the positive canonical one).
inline bool f32_result_ok(uint ours, uint native, std::initializer_list<uint> inputs) {
  if (f32_nan(native)) return f32_wasm_nan_allowed(ours, inputs) && ours == kF32CanonicalNan;
  return ours == native;
}
inline bool f64_result_ok(uint64_t ours, uint64_t native, std::initializer_list<uint64_t> inputs) {
  if (f64_nan(native)) return f64_wasm_nan_allowed(ours, inputs) && ours == kF64CanonicalNan;
  return ours == native;
}

// --- seeds and failure reporting ----------------------------------------------------------
// WAVESTACK_NUMERICS_SEED overrides the fixed default, to reproduce or widen a run.
inline uint64_t test_seed() {
  if (const char* text = std::getenv("WAVESTACK_NUMERICS_SEED")) return std::strtoull(text, nullptr, 0);
  return 0x5EEDF00Dull;
}

// Counts mismatches of one operation; reports the first few with the seed, then fails once
// with the total, so a broken operation does not print a million lines.
class Mismatches {
 public:
  explicit Mismatches(std::string operation, uint64_t seed = test_seed())
      : operation_(std::move(operation)), seed_(seed) {}
  Mismatches(const Mismatches&) = delete;
  Mismatches& operator=(const Mismatches&) = delete;
  ~Mismatches() {
    if (count_ > 0) {
      ADD_FAILURE() << operation_ << ": " << count_ << " mismatches of " << checked_ << " (seed " << hex64(seed_)
                    << ", set WAVESTACK_NUMERICS_SEED to reproduce)";
    }
  }
  // Use through NUMERICS_CHECK, which builds the detail text only for a mismatch.
  void pass() { ++checked_; }
  void fail(const std::string& detail) {
    ++checked_;
    if (++count_ <= 8) ADD_FAILURE() << operation_ << " (seed " << hex64(seed_) << "): " << detail;
  }
  [[nodiscard]] uint64_t checked() const { return checked_; }

 private:
  std::string operation_;
  uint64_t seed_;
  uint64_t checked_ = 0;
  uint64_t count_ = 0;
};

// Records one case: `ok`, or a mismatch described by the remaining arguments (a string
// expression evaluated only then, so millions of passing cases cost no formatting).
#define NUMERICS_CHECK(mismatches, ok, ...) \
  do {                                      \
    if (ok) {                               \
      (mismatches).pass();                  \
    } else {                                \
      (mismatches).fail(__VA_ARGS__);       \
    }                                       \
  } while (false)

// --- special values -----------------------------------------------------------------------
// Zeros, infinities, NaNs with several payloads and both signs (canonical, other quiet,
// signalling), the subnormal and normal extremes, and for a spread of exponents (including
// those where conversions to 32/64-bit integers change behaviour) significands at and next to
// powers of two and at halfway points; all with both signs.
inline std::vector<uint> f32_specials() {
  std::vector<uint> values = {0x7FC00000u, 0x7FC00001u, 0x7FFFFFFFu, 0x7F800001u, 0x7FA00000u, 0x7FBFFFFFu};
  const int exponents[] = {0,   1,   2,   3,   22,  23,  24,  25,  60,  100, 103, 104, 125, 126, 127, 128, 129,
                           149, 150, 151, 152, 157, 158, 159, 180, 189, 190, 191, 200, 252, 253, 254, 255};
  const uint significands[] = {0u, 1u, 2u, 3u, 0x400000u, 0x400001u, 0x3FFFFFu, 0x7FFFFEu, 0x7FFFFFu, 0x200000u};
  for (int e : exponents) {
    for (uint f : significands) {
      if (e == 255 && f != 0u) continue;  // NaNs are listed above
      values.push_back((static_cast<uint>(e) << 23) | f);
    }
  }
  const size_t positive = values.size();
  for (size_t i = 0; i < positive; ++i) values.push_back(values[i] | 0x80000000u);
  return values;
}

inline std::vector<uint64_t> f64_specials() {
  std::vector<uint64_t> values = {0x7FF8000000000000ull, 0x7FF8000000000001ull, 0x7FFFFFFFFFFFFFFFull,
                                  0x7FF0000000000001ull, 0x7FF4000000000000ull, 0x7FF7FFFFFFFFFFFFull};
  const int exponents[] = {0,    1,    2,    3,    51,   52,   53,   54,   500,  970,  971,
                           1021, 1022, 1023, 1024, 1025, 1074, 1075, 1076, 1077, 1085, 1086,
                           1087, 1116, 1117, 1118, 1119, 1150, 1400, 1900, 2045, 2046, 2047};
  const uint64_t significands[] = {0ull,
                                   1ull,
                                   2ull,
                                   3ull,
                                   0x8000000000000ull,
                                   0x8000000000001ull,
                                   0x7FFFFFFFFFFFFull,
                                   0xFFFFFFFFFFFFEull,
                                   0xFFFFFFFFFFFFFull,
                                   0x4000000000000ull,
                                   0x0000000100000000ull,
                                   0x00000000FFFFFFFFull,
                                   0x0000020000000000ull,  // bits that f32 demotion must round
                                   0x0000010000000000ull,
                                   0x000001FFFFFFFFFFull};
  for (int e : exponents) {
    for (uint64_t f : significands) {
      if (e == 2047 && f != 0u) continue;
      values.push_back((static_cast<uint64_t>(e) << 52) | f);
    }
  }
  const size_t positive = values.size();
  for (size_t i = 0; i < positive; ++i) values.push_back(values[i] | 0x8000000000000000ull);
  return values;
}

// Integers where integer operations and int->float conversions change behaviour.
inline std::vector<uint64_t> int_specials() {
  std::vector<uint64_t> values;
  for (int bit = 0; bit < 64; ++bit) {
    const uint64_t p = uint64_t{1} << bit;
    for (uint64_t v : {p, p - 1, p + 1, ~p, -p, -p + 1, -p - 1}) values.push_back(v);
  }
  for (uint64_t v : {0ull, 0xFFFFFFFFull, 0x7FFFFFFFull, 0x80000000ull, 0x8000000000000000ull, 0x7FFFFFFFFFFFFFFFull,
                     0x1000001ull, 0x1000003ull, 0x20000000000001ull, 0x20000000000003ull, 0xFFFFFFFFFFFFF800ull,
                     0xFFFFFF80ull, 0xFFFFFFFFFFFFFC00ull, 0x8000000000000400ull, 0x8000000000000401ull}) {
    values.push_back(v);
  }
  return values;
}

// --- random operands ----------------------------------------------------------------------
// Mixes uniform bit patterns with the distributions where rounding is hard: exponents near
// the subnormal range and the overflow threshold, few significant bits (exact results and
// ties), and (for pairs) a second operand whose exponent is within a few of the first, so
// additions cancel and alignment shifts stay small.
class RandomFloats {
 public:
  explicit RandomFloats(uint64_t seed) : engine_(seed) {}

  uint64_t bits64() { return engine_(); }
  uint bits32() { return static_cast<uint>(engine_()); }

  uint f32() { return f32_with_exponent(f32_exponent()); }
  uint64_t f64() { return f64_with_exponent(f64_exponent()); }

  // A partner for `a`: independent, or with a nearby exponent.
  uint f32_partner(uint a) {
    if (engine_() % 2 == 0) return f32();
    const int e = static_cast<int>((a >> 23) & 0xFF) + static_cast<int>(engine_() % 7) - 3;
    return f32_with_exponent(std::clamp(e, 0, 255));
  }
  uint64_t f64_partner(uint64_t a) {
    if (engine_() % 2 == 0) return f64();
    const int e = static_cast<int>((a >> 52) & 0x7FF) + static_cast<int>(engine_() % 7) - 3;
    return f64_with_exponent(std::clamp(e, 0, 2047));
  }

  // Integers with a random bit width, so small and large magnitudes are equally common.
  uint64_t integer() {
    const uint64_t v = engine_();
    const unsigned width = static_cast<unsigned>(engine_() % 64);
    return (engine_() % 4 == 0) ? v : (v >> width);
  }

 private:
  int f32_exponent() {
    switch (engine_() % 6) {
      case 0:
        return static_cast<int>(engine_() % 256);
      case 1:
        return static_cast<int>(engine_() % 8);  // subnormal and tiny
      case 2:
        return 247 + static_cast<int>(engine_() % 9);  // near overflow, infinity, NaN
      default:
        return 100 + static_cast<int>(engine_() % 60);  // ordinary
    }
  }
  int f64_exponent() {
    switch (engine_() % 6) {
      case 0:
        return static_cast<int>(engine_() % 2048);
      case 1:
        return static_cast<int>(engine_() % 8);
      case 2:
        return 2039 + static_cast<int>(engine_() % 9);
      default:
        return 960 + static_cast<int>(engine_() % 140);
    }
  }
  // Significand: uniform, or with only a few top bits (exact results and halfway cases).
  uint64_t significand_bits() {
    uint64_t f = engine_();
    if (engine_() % 3 == 0) f &= ~uint64_t{0} << (52 + engine_() % 12);  // keep 1..12 top bits
    return f;
  }
  uint f32_with_exponent(int e) {
    const uint f = static_cast<uint>(significand_bits() >> 41);
    return (static_cast<uint>(engine_() % 2) << 31) | (static_cast<uint>(e) << 23) | f;
  }
  uint64_t f64_with_exponent(int e) {
    const uint64_t f = significand_bits() >> 12;
    return ((engine_() % 2) << 63) | (static_cast<uint64_t>(e) << 52) | f;
  }

  std::mt19937_64 engine_;
};

// How many random operands (or pairs) each operation sees in the C++ tests.
constexpr int kRandomCases = 1 << 20;

}  // namespace wavestack::numerics_test
