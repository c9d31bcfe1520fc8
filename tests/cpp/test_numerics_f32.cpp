// Software binary32 (src/wasm/device/f32.glsl, compiled as C++) against the host's native
// IEEE arithmetic (x86-64 SSE: correctly rounded, subnormals kept): every special value
// crossed with every other, then seeded random operands.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "numerics_test_support.hpp"

namespace {

using namespace wavestack::numerics_test;
namespace device = wavestack::wasm::device;

using Binary = uint (*)(uint, uint);
using Unary = uint (*)(uint);

// Checks `ours` against `native` on all special pairs and kRandomCases random pairs.
void check_binary(const char* name, Binary ours, const std::function<float(float, float)>& native) {
  Mismatches mismatches(name);
  auto check = [&](uint a, uint b) {
    const uint got = ours(a, b);
    const uint want = bits_of(native(as_float(a), as_float(b)));
    NUMERICS_CHECK(mismatches, f32_result_ok(got, want, {a, b}),
                   hex32(a) + ", " + hex32(b) + " -> " + hex32(got) + ", native " + hex32(want));
  };
  const auto specials = f32_specials();
  for (uint a : specials) {
    for (uint b : specials) check(a, b);
  }
  RandomFloats random(test_seed());
  for (int i = 0; i < kRandomCases; ++i) {
    const uint a = random.f32();
    check(a, random.f32_partner(a));
  }
}

void check_unary(const char* name, Unary ours, const std::function<float(float)>& native) {
  Mismatches mismatches(name);
  auto check = [&](uint a) {
    const uint got = ours(a);
    const uint want = bits_of(native(as_float(a)));
    NUMERICS_CHECK(mismatches, f32_result_ok(got, want, {a}),
                   hex32(a) + " -> " + hex32(got) + ", native " + hex32(want));
  };
  for (uint a : f32_specials()) check(a);
  RandomFloats random(test_seed());
  for (int i = 0; i < kRandomCases; ++i) check(random.f32());
}

using Compare = uint (*)(uint, uint);

void check_compare(const char* name, Compare ours, const std::function<bool(float, float)>& native) {
  Mismatches mismatches(name);
  auto check = [&](uint a, uint b) {
    const uint got = ours(a, b);
    const uint want = native(as_float(a), as_float(b)) ? 1u : 0u;
    NUMERICS_CHECK(mismatches, got == want, hex32(a) + ", " + hex32(b) + " -> " + std::to_string(got));
  };
  const auto specials = f32_specials();
  for (uint a : specials) {
    for (uint b : specials) check(a, b);
  }
  RandomFloats random(test_seed());
  for (int i = 0; i < kRandomCases; ++i) {
    const uint a = random.f32();
    // Equal operands are rare at random; make every fourth pair equal.
    check(a, i % 4 == 0 ? a : random.f32_partner(a));
  }
}

// wasm min/max: NaN when either operand is NaN, and -0 < +0 (std::fmin does neither).
float wasm_min(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return NAN;
  if (a == 0.0F && b == 0.0F) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}
float wasm_max(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return NAN;
  if (a == 0.0F && b == 0.0F) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

TEST(NumericsF32, Add) {
  check_binary("f32.add", device::f32_add, [](float a, float b) { return a + b; });
}
TEST(NumericsF32, Sub) {
  check_binary("f32.sub", device::f32_sub, [](float a, float b) { return a - b; });
}
TEST(NumericsF32, Mul) {
  check_binary("f32.mul", device::f32_mul, [](float a, float b) { return a * b; });
}
TEST(NumericsF32, Div) {
  check_binary("f32.div", device::f32_div, [](float a, float b) { return a / b; });
}
TEST(NumericsF32, Min) {
  check_binary("f32.min", device::f32_min, wasm_min);
}
TEST(NumericsF32, Max) {
  check_binary("f32.max", device::f32_max, wasm_max);
}

TEST(NumericsF32, Sqrt) {
  check_unary("f32.sqrt", device::f32_sqrt, [](float a) { return std::sqrt(a); });
}
// Exhaustive where it proves the whole operation: sqrt(m * 4^k) = sqrt(m) * 2^k and a root of
// a normal or subnormal binary32 is always normal, so the significand bits and the exponent's
// parity alone decide the rounding. Every input in [1, 4) (both parities, every significand)
// and every subnormal (where normalization runs) therefore covers all rounding cases; the
// random tests cover the exponent arithmetic.
TEST(NumericsF32, SqrtExhaustiveOverTwoBinadesAndAllSubnormals) {
  Mismatches mismatches("f32.sqrt exhaustive");
  auto check = [&](uint a) {
    const uint got = device::f32_sqrt(a);
    const uint want = bits_of(std::sqrt(as_float(a)));
    NUMERICS_CHECK(mismatches, got == want, hex32(a) + " -> " + hex32(got) + ", native " + hex32(want));
  };
  for (uint f = 0; f < (1u << 23); ++f) {
    check(0x3F800000u | f);  // [1, 2)
    check(0x40000000u | f);  // [2, 4)
    check(f);                // +0 and the subnormals
  }
  EXPECT_EQ(mismatches.checked(), 3u << 23);
}

// Division rounds on the significands alone (while the result is normal), so every dividend
// of one binade against a few divisors reaches every remainder pattern those divisors
// produce; the last divisor makes every quotient subnormal, where the denormalizing shift
// takes part in the rounding.
TEST(NumericsF32, DivExhaustiveOverOneBinadeOfDividends) {
  Mismatches mismatches("f32.div exhaustive dividends");
  const uint divisors[] = {0x40400000u /* 3 */, 0x41200000u /* 10 */, 0x3F8CCCCDu /* 1.1 */, 0x7F000001u};
  for (uint divisor : divisors) {
    for (uint f = 0; f < (1u << 23); ++f) {
      const uint a = 0x3F800000u | f;  // [1, 2)
      const uint got = device::f32_div(a, divisor);
      const uint want = bits_of(as_float(a) / as_float(divisor));
      NUMERICS_CHECK(mismatches, got == want,
                     hex32(a) + " / " + hex32(divisor) + " -> " + hex32(got) + ", native " + hex32(want));
    }
  }
}

TEST(NumericsF32, Ceil) {
  check_unary("f32.ceil", device::f32_ceil, [](float a) { return std::ceil(a); });
}
TEST(NumericsF32, Floor) {
  check_unary("f32.floor", device::f32_floor, [](float a) { return std::floor(a); });
}
TEST(NumericsF32, Trunc) {
  check_unary("f32.trunc", device::f32_trunc, [](float a) { return std::trunc(a); });
}
// nearbyint rounds in the current mode, which is the default round-to-nearest-even.
TEST(NumericsF32, Nearest) {
  check_unary("f32.nearest", device::f32_nearest, [](float a) { return std::nearbyint(a); });
}

TEST(NumericsF32, Comparisons) {
  check_compare("f32.eq", device::f32_eq, [](float a, float b) { return a == b; });
  check_compare("f32.ne", device::f32_ne, [](float a, float b) { return a != b; });
  check_compare("f32.lt", device::f32_lt, [](float a, float b) { return a < b; });
  check_compare("f32.gt", device::f32_gt, [](float a, float b) { return a > b; });
  check_compare("f32.le", device::f32_le, [](float a, float b) { return a <= b; });
  check_compare("f32.ge", device::f32_ge, [](float a, float b) { return a >= b; });
}

// abs, neg and copysign are bit operations: exact bits even for NaNs, payload and sign kept.
TEST(NumericsF32, SignOperationsKeepNanPayloads) {
  Mismatches mismatches("f32 sign operations");
  RandomFloats random(test_seed());
  for (int i = 0; i < kRandomCases; ++i) {
    const uint a = random.bits32();
    const uint b = random.bits32();
    NUMERICS_CHECK(mismatches, device::f32_abs(a) == (a & 0x7FFFFFFFu), "abs " + hex32(a));
    NUMERICS_CHECK(mismatches, device::f32_neg(a) == (a ^ 0x80000000u), "neg " + hex32(a));
    NUMERICS_CHECK(mismatches, device::f32_copysign(a, b) == ((a & 0x7FFFFFFFu) | (b & 0x80000000u)),
                   "copysign " + hex32(a) + ", " + hex32(b));
    if (!f32_nan(a) && !f32_nan(b)) {
      NUMERICS_CHECK(mismatches, device::f32_copysign(a, b) == bits_of(std::copysign(as_float(a), as_float(b))),
                     "native copysign " + hex32(a) + ", " + hex32(b));
    }
  }
}

// The documented NaN policy, spelled out: canonical NaN operands (of either sign) and
// non-canonical ones alike give exactly the positive canonical NaN.
TEST(NumericsF32, NanResultsArePositiveCanonical) {
  const uint nans[] = {0x7FC00000u, 0xFFC00000u, 0x7F800001u, 0xFFA00005u, 0x7FFFFFFFu};
  for (uint nan : nans) {
    EXPECT_EQ(device::f32_add(nan, 0x3F800000u), kF32CanonicalNan) << hex32(nan);
    EXPECT_EQ(device::f32_mul(0x3F800000u, nan), kF32CanonicalNan) << hex32(nan);
    EXPECT_EQ(device::f32_sqrt(nan), kF32CanonicalNan) << hex32(nan);
    EXPECT_EQ(device::f32_floor(nan), kF32CanonicalNan) << hex32(nan);
    EXPECT_EQ(device::f32_min(nan, 0xFF800000u), kF32CanonicalNan) << hex32(nan);
  }
  EXPECT_EQ(device::f32_sub(0x7F800000u, 0x7F800000u), kF32CanonicalNan);  // inf - inf
  EXPECT_EQ(device::f32_div(0x00000000u, 0x80000000u), kF32CanonicalNan);  // 0 / -0
  EXPECT_EQ(device::f32_sqrt(0xBF800000u), kF32CanonicalNan);              // sqrt(-1)
}

}  // namespace
