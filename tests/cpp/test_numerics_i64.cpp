// 64-bit integer instructions on uvec2 pairs (src/wasm/device/i64.glsl, compiled as C++)
// against native uint64_t/int64_t arithmetic, including every trap, plus the i32 divisions
// and sign extensions.
#include <gtest/gtest.h>

#include <bit>
#include <functional>
#include <limits>

#include "numerics_test_support.hpp"

namespace {

using namespace wavestack::numerics_test;
namespace device = wavestack::wasm::device;

constexpr uint kNoTrap = device::WASM_TRAP_NONE;
constexpr uint kDivideByZero = device::WASM_TRAP_INTEGER_DIVIDE_BY_ZERO;
constexpr uint kOverflow = device::WASM_TRAP_INTEGER_OVERFLOW;

int64_t as_signed(uint64_t v) {
  return std::bit_cast<int64_t>(v);
}
uint64_t as_unsigned(int64_t v) {
  return std::bit_cast<uint64_t>(v);
}

// Every pair of special integers, then random pairs of random widths.
void for_pairs(const std::function<void(uint64_t, uint64_t)>& check) {
  const auto specials = int_specials();
  for (uint64_t a : specials) {
    for (uint64_t b : specials) check(a, b);
  }
  RandomFloats random(test_seed());
  for (int i = 0; i < kRandomCases; ++i) {
    const uint64_t a = random.integer();
    check(a, random.integer());
  }
}

using Binary = uvec2 (*)(uvec2, uvec2);

void check_binary(const char* name, Binary ours, const std::function<uint64_t(uint64_t, uint64_t)>& native) {
  Mismatches mismatches(name);
  for_pairs([&](uint64_t a, uint64_t b) {
    const uint64_t got = to_u64(ours(to_uvec2(a), to_uvec2(b)));
    const uint64_t want = native(a, b);
    NUMERICS_CHECK(mismatches, got == want,
                   hex64(a) + ", " + hex64(b) + " -> " + hex64(got) + ", native " + hex64(want));
  });
}

using Compare = uint (*)(uvec2, uvec2);

void check_compare(const char* name, Compare ours, const std::function<bool(uint64_t, uint64_t)>& native) {
  Mismatches mismatches(name);
  for_pairs([&](uint64_t a, uint64_t b) {
    for (uint64_t second : {b, a}) {  // also equal operands
      const uint got = ours(to_uvec2(a), to_uvec2(second));
      NUMERICS_CHECK(mismatches, got == (native(a, second) ? 1u : 0u), hex64(a) + ", " + hex64(second));
    }
  });
}

using Trapping = uvec2 (*)(uvec2, uvec2, uint&);

// `native` returns the expected trap code and writes the expected value when there is none.
void check_trapping(const char* name, Trapping ours, const std::function<uint(uint64_t, uint64_t, uint64_t&)>& native) {
  Mismatches mismatches(name);
  for_pairs([&](uint64_t a, uint64_t b) {
    uint trap = 99u;
    const uint64_t got = to_u64(ours(to_uvec2(a), to_uvec2(b), trap));
    uint64_t want = 0;
    const uint want_trap = native(a, b, want);
    const bool ok = trap == want_trap && (trap != kNoTrap || got == want);
    NUMERICS_CHECK(mismatches, ok,
                   hex64(a) + ", " + hex64(b) + " -> " + hex64(got) + " trap " + std::to_string(trap) + ", native " +
                       hex64(want) + " trap " + std::to_string(want_trap));
  });
}

TEST(NumericsI64, Arithmetic) {
  check_binary("i64.add", device::i64_add, [](uint64_t a, uint64_t b) { return a + b; });
  check_binary("i64.sub", device::i64_sub, [](uint64_t a, uint64_t b) { return a - b; });
  check_binary("i64.mul", device::i64_mul, [](uint64_t a, uint64_t b) { return a * b; });
}

TEST(NumericsI64, Division) {
  check_trapping("i64.div_u", device::i64_div_u, [](uint64_t a, uint64_t b, uint64_t& q) {
    if (b == 0) return kDivideByZero;
    q = a / b;
    return kNoTrap;
  });
  check_trapping("i64.rem_u", device::i64_rem_u, [](uint64_t a, uint64_t b, uint64_t& r) {
    if (b == 0) return kDivideByZero;
    r = a % b;
    return kNoTrap;
  });
  check_trapping("i64.div_s", device::i64_div_s, [](uint64_t a, uint64_t b, uint64_t& q) {
    if (b == 0) return kDivideByZero;
    if (as_signed(a) == std::numeric_limits<int64_t>::min() && as_signed(b) == -1) return kOverflow;
    q = as_unsigned(as_signed(a) / as_signed(b));
    return kNoTrap;
  });
  check_trapping("i64.rem_s", device::i64_rem_s, [](uint64_t a, uint64_t b, uint64_t& r) {
    if (b == 0) return kDivideByZero;
    r = as_signed(b) == -1 ? 0 : as_unsigned(as_signed(a) % as_signed(b));  // INT64_MIN % -1 is 0
    return kNoTrap;
  });
}

TEST(NumericsI64, Bitwise) {
  check_binary("i64.and", device::i64_and, [](uint64_t a, uint64_t b) { return a & b; });
  check_binary("i64.or", device::i64_or, [](uint64_t a, uint64_t b) { return a | b; });
  check_binary("i64.xor", device::i64_xor, [](uint64_t a, uint64_t b) { return a ^ b; });
}

// Counts are taken modulo 64, including counts above 2^32 (only the low word matters).
TEST(NumericsI64, ShiftsAndRotations) {
  check_binary("i64.shl", device::i64_shl, [](uint64_t a, uint64_t b) { return a << (b % 64); });
  check_binary("i64.shr_u", device::i64_shr_u, [](uint64_t a, uint64_t b) { return a >> (b % 64); });
  check_binary("i64.shr_s", device::i64_shr_s,
               [](uint64_t a, uint64_t b) { return as_unsigned(as_signed(a) >> (b % 64)); });
  check_binary("i64.rotl", device::i64_rotl,
               [](uint64_t a, uint64_t b) { return std::rotl(a, static_cast<int>(b % 64)); });
  check_binary("i64.rotr", device::i64_rotr,
               [](uint64_t a, uint64_t b) { return std::rotr(a, static_cast<int>(b % 64)); });
  // Every count for a few values, so each branch of the word-pair shifts is reached.
  Mismatches mismatches("i64 shifts by every count");
  for (uint64_t a : {0x8123456789ABCDEFull, 0x0123456789ABCDEFull, ~0ull, 1ull}) {
    for (uint64_t n = 0; n < 130; ++n) {
      const uvec2 va = to_uvec2(a);
      const uvec2 vn = to_uvec2(n);
      NUMERICS_CHECK(mismatches, to_u64(device::i64_shl(va, vn)) == a << (n % 64),
                     "shl " + hex64(a) + " " + std::to_string(n));
      NUMERICS_CHECK(mismatches, to_u64(device::i64_shr_u(va, vn)) == a >> (n % 64), "shr_u " + std::to_string(n));
      NUMERICS_CHECK(mismatches, to_u64(device::i64_shr_s(va, vn)) == as_unsigned(as_signed(a) >> (n % 64)),
                     "shr_s " + hex64(a) + " " + std::to_string(n));
      NUMERICS_CHECK(mismatches, to_u64(device::i64_rotl(va, vn)) == std::rotl(a, static_cast<int>(n % 64)), "rotl");
      NUMERICS_CHECK(mismatches, to_u64(device::i64_rotr(va, vn)) == std::rotr(a, static_cast<int>(n % 64)), "rotr");
    }
  }
}

TEST(NumericsI64, BitCounts) {
  Mismatches mismatches("i64 clz/ctz/popcnt");
  for_pairs([&](uint64_t a, uint64_t) {
    const uvec2 v = to_uvec2(a);
    NUMERICS_CHECK(mismatches, to_u64(device::i64_clz(v)) == static_cast<uint64_t>(std::countl_zero(a)),
                   "clz " + hex64(a));
    NUMERICS_CHECK(mismatches, to_u64(device::i64_ctz(v)) == static_cast<uint64_t>(std::countr_zero(a)),
                   "ctz " + hex64(a));
    NUMERICS_CHECK(mismatches, to_u64(device::i64_popcnt(v)) == static_cast<uint64_t>(std::popcount(a)),
                   "popcnt " + hex64(a));
    NUMERICS_CHECK(mismatches, device::i64_eqz(v) == (a == 0 ? 1u : 0u), "eqz " + hex64(a));
  });
}

TEST(NumericsI64, Comparisons) {
  check_compare("i64.eq", device::i64_eq, [](uint64_t a, uint64_t b) { return a == b; });
  check_compare("i64.ne", device::i64_ne, [](uint64_t a, uint64_t b) { return a != b; });
  check_compare("i64.lt_u", device::i64_lt_u, [](uint64_t a, uint64_t b) { return a < b; });
  check_compare("i64.gt_u", device::i64_gt_u, [](uint64_t a, uint64_t b) { return a > b; });
  check_compare("i64.le_u", device::i64_le_u, [](uint64_t a, uint64_t b) { return a <= b; });
  check_compare("i64.ge_u", device::i64_ge_u, [](uint64_t a, uint64_t b) { return a >= b; });
  check_compare("i64.lt_s", device::i64_lt_s, [](uint64_t a, uint64_t b) { return as_signed(a) < as_signed(b); });
  check_compare("i64.gt_s", device::i64_gt_s, [](uint64_t a, uint64_t b) { return as_signed(a) > as_signed(b); });
  check_compare("i64.le_s", device::i64_le_s, [](uint64_t a, uint64_t b) { return as_signed(a) <= as_signed(b); });
  check_compare("i64.ge_s", device::i64_ge_s, [](uint64_t a, uint64_t b) { return as_signed(a) >= as_signed(b); });
}

TEST(NumericsI64, WidthChangesAndSignExtension) {
  Mismatches mismatches("i64 extend/wrap");
  for_pairs([&](uint64_t a, uint64_t) {
    const uvec2 v = to_uvec2(a);
    const auto low = static_cast<uint32_t>(a);
    NUMERICS_CHECK(mismatches, device::i32_wrap_i64(v) == low, "wrap " + hex64(a));
    NUMERICS_CHECK(mismatches, to_u64(device::i64_extend_i32_u(low)) == low, "extend_i32_u " + hex64(a));
    NUMERICS_CHECK(mismatches, to_u64(device::i64_extend_i32_s(low)) == as_unsigned(std::bit_cast<int32_t>(low)),
                   "extend_i32_s " + hex64(a));
    NUMERICS_CHECK(mismatches, to_u64(device::i64_extend8_s(v)) == as_unsigned(static_cast<int8_t>(a)),
                   "extend8_s " + hex64(a));
    NUMERICS_CHECK(mismatches, to_u64(device::i64_extend16_s(v)) == as_unsigned(static_cast<int16_t>(a)),
                   "extend16_s " + hex64(a));
    NUMERICS_CHECK(mismatches, to_u64(device::i64_extend32_s(v)) == as_unsigned(static_cast<int32_t>(a)),
                   "extend32_s " + hex64(a));
    NUMERICS_CHECK(mismatches, device::i32_extend8_s(low) == std::bit_cast<uint32_t>(int32_t{static_cast<int8_t>(a)}),
                   "i32.extend8_s " + hex64(a));
    NUMERICS_CHECK(mismatches, device::i32_extend16_s(low) == std::bit_cast<uint32_t>(int32_t{static_cast<int16_t>(a)}),
                   "i32.extend16_s " + hex64(a));
  });
}

TEST(NumericsI32, DivisionWithTraps) {
  Mismatches mismatches("i32 div/rem");
  for_pairs([&](uint64_t wide_a, uint64_t wide_b) {
    const auto a = static_cast<uint32_t>(wide_a ^ (wide_a >> 32));
    const auto b = static_cast<uint32_t>(wide_b ^ (wide_b >> 32));
    const auto sa = std::bit_cast<int32_t>(a);
    const auto sb = std::bit_cast<int32_t>(b);
    const std::string operands = hex32(a) + ", " + hex32(b);
    uint trap = 99u;
    if (b == 0) {
      for (auto op : {device::i32_div_u, device::i32_rem_u, device::i32_div_s, device::i32_rem_s}) {
        trap = 99u;
        (void)op(a, b, trap);
        NUMERICS_CHECK(mismatches, trap == kDivideByZero, "divide by zero " + operands);
      }
      return;
    }
    NUMERICS_CHECK(mismatches, device::i32_div_u(a, b, trap) == a / b && trap == kNoTrap, "div_u " + operands);
    NUMERICS_CHECK(mismatches, device::i32_rem_u(a, b, trap) == a % b && trap == kNoTrap, "rem_u " + operands);
    const bool overflow = sa == std::numeric_limits<int32_t>::min() && sb == -1;
    const uint q = device::i32_div_s(a, b, trap);
    NUMERICS_CHECK(mismatches,
                   overflow ? trap == kOverflow : (trap == kNoTrap && q == std::bit_cast<uint32_t>(sa / sb)),
                   "div_s " + operands);
    const uint r = device::i32_rem_s(a, b, trap);
    NUMERICS_CHECK(mismatches, trap == kNoTrap && r == (overflow ? 0u : std::bit_cast<uint32_t>(sa % sb)),
                   "rem_s " + operands);
  });
}

}  // namespace
