// Conversions (src/wasm/device/convert.glsl, compiled as C++) against native C++ casts, which
// on x86-64 are correctly rounded to nearest even: f32 <-> f64, every integer -> float
// conversion, and the trapping and saturating float -> integer truncations, whose expected
// range checks are computed with exact double comparisons.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <functional>
#include <limits>
#include <vector>

#include "numerics_test_support.hpp"

namespace {

using namespace wavestack::numerics_test;
namespace device = wavestack::wasm::device;

// Integers: the specials and random ones of random widths.
std::vector<uint64_t> integer_inputs() {
  std::vector<uint64_t> values = int_specials();
  RandomFloats random(test_seed());
  for (int i = 0; i < kRandomCases; ++i) values.push_back(random.integer());
  return values;
}

// Floats for truncation: specials, random, and many with exponents around the integer
// ranges (|x| from 1/4 to 2^66), where the range checks decide.
std::vector<uint64_t> f64_truncation_inputs() {
  std::vector<uint64_t> values = f64_specials();
  RandomFloats random(test_seed());
  for (int i = 0; i < kRandomCases; ++i) {
    uint64_t v = random.f64();
    if (i % 2 == 0) {
      const uint64_t e = 1021 + random.bits64() % 68;
      v = (v & 0x800FFFFFFFFFFFFFull) | (e << 52);
    }
    values.push_back(v);
  }
  return values;
}

std::vector<uint> f32_truncation_inputs() {
  std::vector<uint> values = f32_specials();
  RandomFloats random(test_seed());
  for (int i = 0; i < kRandomCases; ++i) {
    uint v = random.f32();
    if (i % 2 == 0) {
      const uint e = 125 + random.bits32() % 68;
      v = (v & 0x807FFFFFu) | (e << 23);
    }
    values.push_back(v);
  }
  return values;
}

TEST(NumericsConvert, PromoteF32ToF64IsExact) {
  Mismatches mismatches("f64.promote_f32");
  std::vector<uint> inputs = f32_specials();
  RandomFloats random(test_seed());
  for (int i = 0; i < kRandomCases; ++i) inputs.push_back(i % 2 == 0 ? random.f32() : random.bits32());
  for (uint a : inputs) {
    const uint64_t got = to_u64(device::f64_promote_f32(a));
    const uint64_t want = bits_of(static_cast<double>(as_float(a)));
    NUMERICS_CHECK(mismatches, f64_nan(want) ? (got == kF64CanonicalNan && f64_nan(got)) : got == want,
                   hex32(a) + " -> " + hex64(got) + ", native " + hex64(want));
  }
}

TEST(NumericsConvert, DemoteF64ToF32Rounds) {
  Mismatches mismatches("f32.demote_f64");
  std::vector<uint64_t> inputs = f64_specials();
  RandomFloats random(test_seed());
  for (int i = 0; i < kRandomCases; ++i) {
    uint64_t v = random.f64();
    // Half of them in and around binary32's range, subnormals and overflow included.
    if (i % 2 == 0) v = (v & 0x800FFFFFFFFFFFFFull) | ((uint64_t{1023 - 160} + random.bits64() % 300) << 52);
    inputs.push_back(v);
  }
  for (uint64_t a : inputs) {
    const uint got = device::f32_demote_f64(to_uvec2(a));
    const uint want = bits_of(static_cast<float>(as_double(a)));
    NUMERICS_CHECK(mismatches, f32_nan(want) ? got == kF32CanonicalNan : got == want,
                   hex64(a) + " -> " + hex32(got) + ", native " + hex32(want));
  }
}

TEST(NumericsConvert, IntegersToF32) {
  Mismatches mismatches("f32.convert_*");
  for (uint64_t v : integer_inputs()) {
    const auto low = static_cast<uint32_t>(v);
    const uvec2 wide = to_uvec2(v);
    NUMERICS_CHECK(mismatches, device::f32_convert_i32_u(low) == bits_of(static_cast<float>(low)),
                   "i32_u " + hex32(low));
    NUMERICS_CHECK(mismatches,
                   device::f32_convert_i32_s(low) == bits_of(static_cast<float>(std::bit_cast<int32_t>(low))),
                   "i32_s " + hex32(low));
    NUMERICS_CHECK(mismatches, device::f32_convert_i64_u(wide) == bits_of(static_cast<float>(v)), "i64_u " + hex64(v));
    NUMERICS_CHECK(mismatches,
                   device::f32_convert_i64_s(wide) == bits_of(static_cast<float>(std::bit_cast<int64_t>(v))),
                   "i64_s " + hex64(v));
  }
}

TEST(NumericsConvert, IntegersToF64) {
  Mismatches mismatches("f64.convert_*");
  for (uint64_t v : integer_inputs()) {
    const auto low = static_cast<uint32_t>(v);
    const uvec2 wide = to_uvec2(v);
    NUMERICS_CHECK(mismatches, to_u64(device::f64_convert_i32_u(low)) == bits_of(static_cast<double>(low)),
                   "i32_u " + hex32(low));
    NUMERICS_CHECK(mismatches,
                   to_u64(device::f64_convert_i32_s(low)) == bits_of(static_cast<double>(std::bit_cast<int32_t>(low))),
                   "i32_s " + hex32(low));
    NUMERICS_CHECK(mismatches, to_u64(device::f64_convert_i64_u(wide)) == bits_of(static_cast<double>(v)),
                   "i64_u " + hex64(v));
    NUMERICS_CHECK(mismatches,
                   to_u64(device::f64_convert_i64_s(wide)) == bits_of(static_cast<double>(std::bit_cast<int64_t>(v))),
                   "i64_s " + hex64(v));
  }
}

// --- truncation -----------------------------------------------------------------------------
enum class Kind { I32S, I32U, I64S, I64U };

struct Expected {
  uint trap;       // for the trapping form
  uint64_t value;  // the trapping form's result when it does not trap
  uint64_t saturated;
};

// The reference: the range of each kind as exact double bounds on trunc(x) (every bound is a
// power of two or its negation, or -1, so it is exact), the native cast inside the range,
// and the wasm saturation rule outside it.
Expected reference_truncation(double x, Kind kind) {
  if (std::isnan(x)) return {device::WASM_TRAP_INVALID_CONVERSION_TO_INTEGER, 0, 0};
  const double t = std::trunc(x);
  double low = 0;  // exclusive bounds
  double high = 0;
  uint64_t min_value = 0;
  uint64_t max_value = 0;
  switch (kind) {
    case Kind::I32S:
      low = -2147483649.0, high = 2147483648.0, min_value = 0x80000000u, max_value = 0x7FFFFFFFu;
      break;
    case Kind::I32U:
      low = -1.0, high = 4294967296.0, min_value = 0, max_value = 0xFFFFFFFFu;
      break;
    case Kind::I64S:
      low = -9223372036854777856.0, high = 9223372036854775808.0;  // next double below -2^63
      min_value = 0x8000000000000000ull, max_value = 0x7FFFFFFFFFFFFFFFull;
      break;
    case Kind::I64U:
      low = -1.0, high = 18446744073709551616.0, min_value = 0, max_value = ~0ull;
      break;
  }
  if (t <= low) return {device::WASM_TRAP_INTEGER_OVERFLOW, 0, min_value};
  if (t >= high) return {device::WASM_TRAP_INTEGER_OVERFLOW, 0, max_value};
  uint64_t value = 0;
  switch (kind) {
    case Kind::I32S:
      value = std::bit_cast<uint32_t>(static_cast<int32_t>(t));
      break;
    case Kind::I32U:
      value = static_cast<uint32_t>(t);
      break;
    case Kind::I64S:
      value = std::bit_cast<uint64_t>(static_cast<int64_t>(t));
      break;
    case Kind::I64U:
      value = static_cast<uint64_t>(t);
      break;
  }
  return {device::WASM_TRAP_NONE, value, value};
}

struct Truncation {
  const char* name;
  Kind kind;
  std::function<uint64_t(uvec2, uint&)> trapping;  // operand as bit pattern (f32 in .x)
  std::function<uint64_t(uvec2)> saturating;
};

void check_truncation(Mismatches& mismatches, const Truncation& op, uvec2 operand, double x) {
  const Expected want = reference_truncation(x, op.kind);
  uint trap = 99u;
  const uint64_t got = op.trapping(operand, trap);
  NUMERICS_CHECK(mismatches, trap == want.trap && (trap != device::WASM_TRAP_NONE || got == want.value),
                 std::string(op.name) + " " + hex64(to_u64(operand)) + " -> " + hex64(got) + " trap " +
                     std::to_string(trap) + ", expected " + hex64(want.value) + " trap " + std::to_string(want.trap));
  const uint64_t saturated = op.saturating(operand);
  NUMERICS_CHECK(mismatches, saturated == want.saturated,
                 std::string(op.name) + " sat " + hex64(to_u64(operand)) + " -> " + hex64(saturated) + ", expected " +
                     hex64(want.saturated));
}

TEST(NumericsConvert, TruncateF32) {
  const Truncation ops[] = {
      {"i32.trunc_f32_s", Kind::I32S, [](uvec2 a, uint& t) { return uint64_t{device::i32_trunc_f32_s(a.x, t)}; },
       [](uvec2 a) { return uint64_t{device::i32_trunc_sat_f32_s(a.x)}; }},
      {"i32.trunc_f32_u", Kind::I32U, [](uvec2 a, uint& t) { return uint64_t{device::i32_trunc_f32_u(a.x, t)}; },
       [](uvec2 a) { return uint64_t{device::i32_trunc_sat_f32_u(a.x)}; }},
      {"i64.trunc_f32_s", Kind::I64S, [](uvec2 a, uint& t) { return to_u64(device::i64_trunc_f32_s(a.x, t)); },
       [](uvec2 a) { return to_u64(device::i64_trunc_sat_f32_s(a.x)); }},
      {"i64.trunc_f32_u", Kind::I64U, [](uvec2 a, uint& t) { return to_u64(device::i64_trunc_f32_u(a.x, t)); },
       [](uvec2 a) { return to_u64(device::i64_trunc_sat_f32_u(a.x)); }},
  };
  const std::vector<uint> inputs = f32_truncation_inputs();
  for (const Truncation& op : ops) {
    Mismatches mismatches(op.name);
    for (uint a : inputs) check_truncation(mismatches, op, uvec2(a, 0u), static_cast<double>(as_float(a)));
  }
}

TEST(NumericsConvert, TruncateF64) {
  const Truncation ops[] = {
      {"i32.trunc_f64_s", Kind::I32S, [](uvec2 a, uint& t) { return uint64_t{device::i32_trunc_f64_s(a, t)}; },
       [](uvec2 a) { return uint64_t{device::i32_trunc_sat_f64_s(a)}; }},
      {"i32.trunc_f64_u", Kind::I32U, [](uvec2 a, uint& t) { return uint64_t{device::i32_trunc_f64_u(a, t)}; },
       [](uvec2 a) { return uint64_t{device::i32_trunc_sat_f64_u(a)}; }},
      {"i64.trunc_f64_s", Kind::I64S, [](uvec2 a, uint& t) { return to_u64(device::i64_trunc_f64_s(a, t)); },
       [](uvec2 a) { return to_u64(device::i64_trunc_sat_f64_s(a)); }},
      {"i64.trunc_f64_u", Kind::I64U, [](uvec2 a, uint& t) { return to_u64(device::i64_trunc_f64_u(a, t)); },
       [](uvec2 a) { return to_u64(device::i64_trunc_sat_f64_u(a)); }},
  };
  const std::vector<uint64_t> inputs = f64_truncation_inputs();
  for (const Truncation& op : ops) {
    Mismatches mismatches(op.name);
    for (uint64_t a : inputs) check_truncation(mismatches, op, to_uvec2(a), as_double(a));
  }
}

// The boundaries themselves, spelled out (the randomized tests reach them only by chance).
TEST(NumericsConvert, TruncationBoundaries) {
  uint trap = 99u;
  EXPECT_EQ(device::i32_trunc_f64_s(to_uvec2(bits_of(-2147483648.9)), trap), 0x80000000u);
  EXPECT_EQ(trap, device::WASM_TRAP_NONE);
  (void)device::i32_trunc_f64_s(to_uvec2(bits_of(-2147483649.0)), trap);
  EXPECT_EQ(trap, device::WASM_TRAP_INTEGER_OVERFLOW);
  EXPECT_EQ(device::i32_trunc_f64_s(to_uvec2(bits_of(2147483647.9)), trap), 0x7FFFFFFFu);
  EXPECT_EQ(trap, device::WASM_TRAP_NONE);
  EXPECT_EQ(device::i32_trunc_f32_u(bits_of(-0.99F), trap), 0u);  // truncates to -0, in range
  EXPECT_EQ(trap, device::WASM_TRAP_NONE);
  (void)device::i64_trunc_f64_u(to_uvec2(bits_of(18446744073709551616.0)), trap);
  EXPECT_EQ(trap, device::WASM_TRAP_INTEGER_OVERFLOW);
  (void)device::i64_trunc_f32_s(0x7FC00000u, trap);
  EXPECT_EQ(trap, device::WASM_TRAP_INVALID_CONVERSION_TO_INTEGER);
  EXPECT_EQ(to_u64(device::i64_trunc_sat_f64_s(to_uvec2(bits_of(-std::numeric_limits<double>::infinity())))),
            0x8000000000000000ull);
  EXPECT_EQ(to_u64(device::i64_trunc_sat_f64_u(to_uvec2(bits_of(std::numeric_limits<double>::infinity())))), ~0ull);
  EXPECT_EQ(device::i32_trunc_sat_f32_s(0xFFC00000u), 0u);  // NaN saturates to 0
}

}  // namespace
