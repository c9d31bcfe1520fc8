// Software binary64 (src/wasm/device/f64.glsl, compiled as C++) against the host's native
// IEEE arithmetic (x86-64 SSE2: correctly rounded, subnormals kept): every special value
// crossed with every other, then seeded random operands.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "numerics_test_support.hpp"

namespace {

using namespace wavestack::numerics_test;
namespace device = wavestack::wasm::device;

using Binary = uvec2 (*)(uvec2, uvec2);
using Unary = uvec2 (*)(uvec2);
using Compare = uint (*)(uvec2, uvec2);

void check_binary(const char* name, Binary ours, const std::function<double(double, double)>& native) {
  Mismatches mismatches(name);
  auto check = [&](uint64_t a, uint64_t b) {
    const uint64_t got = to_u64(ours(to_uvec2(a), to_uvec2(b)));
    const uint64_t want = bits_of(native(as_double(a), as_double(b)));
    NUMERICS_CHECK(mismatches, f64_result_ok(got, want, {a, b}),
                   hex64(a) + ", " + hex64(b) + " -> " + hex64(got) + ", native " + hex64(want));
  };
  const auto specials = f64_specials();
  for (uint64_t a : specials) {
    for (uint64_t b : specials) check(a, b);
  }
  RandomFloats random(test_seed());
  for (int i = 0; i < kRandomCases; ++i) {
    const uint64_t a = random.f64();
    check(a, random.f64_partner(a));
  }
}

void check_unary(const char* name, Unary ours, const std::function<double(double)>& native) {
  Mismatches mismatches(name);
  auto check = [&](uint64_t a) {
    const uint64_t got = to_u64(ours(to_uvec2(a)));
    const uint64_t want = bits_of(native(as_double(a)));
    NUMERICS_CHECK(mismatches, f64_result_ok(got, want, {a}),
                   hex64(a) + " -> " + hex64(got) + ", native " + hex64(want));
  };
  for (uint64_t a : f64_specials()) check(a);
  RandomFloats random(test_seed());
  for (int i = 0; i < kRandomCases; ++i) check(random.f64());
}

void check_compare(const char* name, Compare ours, const std::function<bool(double, double)>& native) {
  Mismatches mismatches(name);
  auto check = [&](uint64_t a, uint64_t b) {
    const uint got = ours(to_uvec2(a), to_uvec2(b));
    const uint want = native(as_double(a), as_double(b)) ? 1u : 0u;
    NUMERICS_CHECK(mismatches, got == want, hex64(a) + ", " + hex64(b) + " -> " + std::to_string(got));
  };
  const auto specials = f64_specials();
  for (uint64_t a : specials) {
    for (uint64_t b : specials) check(a, b);
  }
  RandomFloats random(test_seed());
  for (int i = 0; i < kRandomCases; ++i) {
    const uint64_t a = random.f64();
    check(a, i % 4 == 0 ? a : random.f64_partner(a));
  }
}

// wasm min/max: NaN when either operand is NaN, and -0 < +0 (std::fmin does neither).
double wasm_min(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return NAN;
  if (a == 0.0 && b == 0.0) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}
double wasm_max(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return NAN;
  if (a == 0.0 && b == 0.0) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

TEST(NumericsF64, Add) {
  check_binary("f64.add", device::f64_add, [](double a, double b) { return a + b; });
}
TEST(NumericsF64, Sub) {
  check_binary("f64.sub", device::f64_sub, [](double a, double b) { return a - b; });
}
TEST(NumericsF64, Mul) {
  check_binary("f64.mul", device::f64_mul, [](double a, double b) { return a * b; });
}
TEST(NumericsF64, Div) {
  check_binary("f64.div", device::f64_div, [](double a, double b) { return a / b; });
}
TEST(NumericsF64, Min) {
  check_binary("f64.min", device::f64_min, wasm_min);
}
TEST(NumericsF64, Max) {
  check_binary("f64.max", device::f64_max, wasm_max);
}

TEST(NumericsF64, Sqrt) {
  check_unary("f64.sqrt", device::f64_sqrt, [](double a) { return std::sqrt(a); });
}
// Exact squares and their neighbours, where the remainder (sticky bit) decides: m^2 for
// m < 2^26 is exact in binary64, scaled by an even power of two (subnormal range included),
// then one unit up and down.
TEST(NumericsF64, SqrtOfSquaresAndTheirNeighbours) {
  Mismatches mismatches("f64.sqrt squares");
  RandomFloats random(test_seed());
  for (int i = 0; i < kRandomCases / 4; ++i) {
    const uint64_t m = random.bits64() >> 38;
    const int scale = 2 * static_cast<int>(random.bits64() % 1100) - 1100;
    const uint64_t square = bits_of(std::ldexp(static_cast<double>(m * m), scale));
    for (uint64_t a : {square, square + 1, square - 1}) {
      const uint64_t got = to_u64(device::f64_sqrt(to_uvec2(a)));
      const uint64_t want = bits_of(std::sqrt(as_double(a)));
      NUMERICS_CHECK(mismatches, f64_result_ok(got, want, {a}),
                     hex64(a) + " -> " + hex64(got) + ", native " + hex64(want));
    }
  }
}

TEST(NumericsF64, Ceil) {
  check_unary("f64.ceil", device::f64_ceil, [](double a) { return std::ceil(a); });
}
TEST(NumericsF64, Floor) {
  check_unary("f64.floor", device::f64_floor, [](double a) { return std::floor(a); });
}
TEST(NumericsF64, Trunc) {
  check_unary("f64.trunc", device::f64_trunc, [](double a) { return std::trunc(a); });
}
// nearbyint rounds in the current mode, which is the default round-to-nearest-even.
TEST(NumericsF64, Nearest) {
  check_unary("f64.nearest", device::f64_nearest, [](double a) { return std::nearbyint(a); });
}

TEST(NumericsF64, Comparisons) {
  check_compare("f64.eq", device::f64_eq, [](double a, double b) { return a == b; });
  check_compare("f64.ne", device::f64_ne, [](double a, double b) { return a != b; });
  check_compare("f64.lt", device::f64_lt, [](double a, double b) { return a < b; });
  check_compare("f64.gt", device::f64_gt, [](double a, double b) { return a > b; });
  check_compare("f64.le", device::f64_le, [](double a, double b) { return a <= b; });
  check_compare("f64.ge", device::f64_ge, [](double a, double b) { return a >= b; });
}

// abs, neg and copysign are bit operations: exact bits even for NaNs, payload and sign kept.
TEST(NumericsF64, SignOperationsKeepNanPayloads) {
  Mismatches mismatches("f64 sign operations");
  RandomFloats random(test_seed());
  constexpr uint64_t kSign = 0x8000000000000000ull;
  for (int i = 0; i < kRandomCases; ++i) {
    const uint64_t a = random.bits64();
    const uint64_t b = random.bits64();
    NUMERICS_CHECK(mismatches, to_u64(device::f64_abs(to_uvec2(a))) == (a & ~kSign), "abs " + hex64(a));
    NUMERICS_CHECK(mismatches, to_u64(device::f64_neg(to_uvec2(a))) == (a ^ kSign), "neg " + hex64(a));
    const uint64_t copied = to_u64(device::f64_copysign(to_uvec2(a), to_uvec2(b)));
    NUMERICS_CHECK(mismatches, copied == ((a & ~kSign) | (b & kSign)), "copysign " + hex64(a) + ", " + hex64(b));
    if (!f64_nan(a) && !f64_nan(b)) {
      NUMERICS_CHECK(mismatches, copied == bits_of(std::copysign(as_double(a), as_double(b))),
                     "native copysign " + hex64(a) + ", " + hex64(b));
    }
  }
}

// The documented NaN policy, spelled out: canonical NaN operands (of either sign) and
// non-canonical ones alike give exactly the positive canonical NaN.
TEST(NumericsF64, NanResultsArePositiveCanonical) {
  const uint64_t nans[] = {0x7FF8000000000000ull, 0xFFF8000000000000ull, 0x7FF0000000000001ull, 0xFFF4000000000005ull,
                           0x7FFFFFFFFFFFFFFFull};
  const uvec2 one = to_uvec2(0x3FF0000000000000ull);
  for (uint64_t nan : nans) {
    EXPECT_EQ(to_u64(device::f64_add(to_uvec2(nan), one)), kF64CanonicalNan) << hex64(nan);
    EXPECT_EQ(to_u64(device::f64_mul(one, to_uvec2(nan))), kF64CanonicalNan) << hex64(nan);
    EXPECT_EQ(to_u64(device::f64_sqrt(to_uvec2(nan))), kF64CanonicalNan) << hex64(nan);
    EXPECT_EQ(to_u64(device::f64_ceil(to_uvec2(nan))), kF64CanonicalNan) << hex64(nan);
    EXPECT_EQ(to_u64(device::f64_max(to_uvec2(nan), one)), kF64CanonicalNan) << hex64(nan);
  }
  const uvec2 infinity = to_uvec2(0x7FF0000000000000ull);
  EXPECT_EQ(to_u64(device::f64_sub(infinity, infinity)), kF64CanonicalNan);
  EXPECT_EQ(to_u64(device::f64_mul(infinity, to_uvec2(0x8000000000000000ull))), kF64CanonicalNan);
  EXPECT_EQ(to_u64(device::f64_sqrt(to_uvec2(0xBFF0000000000000ull))), kF64CanonicalNan);
}

}  // namespace
