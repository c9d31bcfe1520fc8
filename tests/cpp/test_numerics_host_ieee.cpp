// The host IEEE fast path (src/wasm/device/host_ieee.hpp) against the software library it
// replaces, bit for bit: every fast function equals its <name>_soft twin on every special value
// crossed with every other, on 2^20 seeded random operands (pairs) per operation drawn to reach
// cancellation, ties, subnormals and overflow, on uniformly random bit patterns (NaN payloads of
// every kind), and for f32 unary operations on a stride through all 2^32 patterns. NaN results
// are compared as bits too: the fast path must return exactly the library's NaN, not merely an
// allowed one. Also: chains of operations stay separately rounded (no fused multiply-add), and
// host_ieee_environment_is_default() notices a changed rounding mode or flush-to-zero.
#include <gtest/gtest.h>

#include <cfenv>
#include <cstdint>
#include <string>
#include <vector>

#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

#include "numerics_test_support.hpp"

namespace {

using namespace wavestack::numerics_test;
namespace device = wavestack::wasm::device;

#if defined(WASM_HOST_IEEE)

// Operands for one operation: specials, then seeded random ones; `raw` bit patterns are mixed
// in so that NaNs with arbitrary payloads and signs reach every operation.
std::vector<uint64_t> f64_operands() {
  std::vector<uint64_t> values = f64_specials();
  RandomFloats random(test_seed());
  for (int i = 0; i < kRandomCases; ++i) values.push_back(i % 8 == 0 ? random.bits64() : random.f64());
  return values;
}

std::vector<uint> f32_operands() {
  std::vector<uint> values = f32_specials();
  RandomFloats random(test_seed());
  for (int i = 0; i < kRandomCases; ++i) values.push_back(i % 8 == 0 ? random.bits32() : random.f32());
  return values;
}

// Pairs: every special with every special, then random pairs (partners with nearby exponents,
// equal operands for the comparisons and min/max, raw bit patterns).
template <typename Check>
void f64_pairs(Check check) {
  const auto specials = f64_specials();
  for (uint64_t a : specials) {
    for (uint64_t b : specials) check(a, b);
  }
  RandomFloats random(test_seed());
  for (int i = 0; i < kRandomCases; ++i) {
    const uint64_t a = i % 8 == 0 ? random.bits64() : random.f64();
    const uint64_t b = i % 16 == 1 ? a : i % 8 == 3 ? random.bits64() : random.f64_partner(a);
    check(a, b);
  }
}

template <typename Check>
void f32_pairs(Check check) {
  const auto specials = f32_specials();
  for (uint a : specials) {
    for (uint b : specials) check(a, b);
  }
  RandomFloats random(test_seed());
  for (int i = 0; i < kRandomCases; ++i) {
    const uint a = i % 8 == 0 ? random.bits32() : random.f32();
    const uint b = i % 16 == 1 ? a : i % 8 == 3 ? random.bits32() : random.f32_partner(a);
    check(a, b);
  }
}

template <typename Fast, typename Soft>
void f64_binary(const char* name, Fast fast, Soft soft) {
  Mismatches mismatches(name);
  f64_pairs([&](uint64_t a, uint64_t b) {
    const uint64_t got = to_u64(fast(to_uvec2(a), to_uvec2(b)));
    const uint64_t want = to_u64(soft(to_uvec2(a), to_uvec2(b)));
    NUMERICS_CHECK(mismatches, got == want, hex64(a) + ", " + hex64(b) + " -> " + hex64(got) + ", soft " + hex64(want));
  });
}

template <typename Fast, typename Soft>
void f32_binary(const char* name, Fast fast, Soft soft) {
  Mismatches mismatches(name);
  f32_pairs([&](uint a, uint b) {
    const uint got = fast(a, b);
    const uint want = soft(a, b);
    NUMERICS_CHECK(mismatches, got == want, hex32(a) + ", " + hex32(b) + " -> " + hex32(got) + ", soft " + hex32(want));
  });
}

template <typename Fast, typename Soft>
void f64_compare(const char* name, Fast fast, Soft soft) {
  Mismatches mismatches(name);
  f64_pairs([&](uint64_t a, uint64_t b) {
    const uint got = fast(to_uvec2(a), to_uvec2(b));
    const uint want = soft(to_uvec2(a), to_uvec2(b));
    NUMERICS_CHECK(mismatches, got == want, hex64(a) + ", " + hex64(b) + " -> " + std::to_string(got));
  });
}

template <typename Fast, typename Soft>
void f32_compare(const char* name, Fast fast, Soft soft) {
  Mismatches mismatches(name);
  f32_pairs([&](uint a, uint b) {
    const uint got = fast(a, b);
    const uint want = soft(a, b);
    NUMERICS_CHECK(mismatches, got == want, hex32(a) + ", " + hex32(b) + " -> " + std::to_string(got));
  });
}

template <typename Fast, typename Soft>
void f64_unary(const char* name, Fast fast, Soft soft) {
  Mismatches mismatches(name);
  for (uint64_t a : f64_operands()) {
    const uint64_t got = to_u64(fast(to_uvec2(a)));
    const uint64_t want = to_u64(soft(to_uvec2(a)));
    NUMERICS_CHECK(mismatches, got == want, hex64(a) + " -> " + hex64(got) + ", soft " + hex64(want));
  }
}

// f32 unary operations also see every 251st of all 2^32 bit patterns (a prime stride, so the
// low fraction bits vary too): about 17 million operands spread over every exponent.
constexpr uint64_t kF32Stride = 251;

template <typename Fast, typename Soft>
void f32_unary(const char* name, Fast fast, Soft soft) {
  Mismatches mismatches(name);
  auto check = [&](uint a) {
    const uint got = fast(a);
    const uint want = soft(a);
    NUMERICS_CHECK(mismatches, got == want, hex32(a) + " -> " + hex32(got) + ", soft " + hex32(want));
  };
  for (uint a : f32_operands()) check(a);
  for (uint64_t a = 0; a <= 0xFFFFFFFFull; a += kF32Stride) check(static_cast<uint>(a));
}

TEST(NumericsHostIeee, F64Arithmetic) {
  f64_binary("f64.add", device::f64_add, device::f64_add_soft);
  f64_binary("f64.sub", device::f64_sub, device::f64_sub_soft);
  f64_binary("f64.mul", device::f64_mul, device::f64_mul_soft);
  f64_binary("f64.div", device::f64_div, device::f64_div_soft);
  f64_binary("f64.min", device::f64_min, device::f64_min_soft);
  f64_binary("f64.max", device::f64_max, device::f64_max_soft);
}

TEST(NumericsHostIeee, F32Arithmetic) {
  f32_binary("f32.add", device::f32_add, device::f32_add_soft);
  f32_binary("f32.sub", device::f32_sub, device::f32_sub_soft);
  f32_binary("f32.mul", device::f32_mul, device::f32_mul_soft);
  f32_binary("f32.div", device::f32_div, device::f32_div_soft);
  f32_binary("f32.min", device::f32_min, device::f32_min_soft);
  f32_binary("f32.max", device::f32_max, device::f32_max_soft);
}

TEST(NumericsHostIeee, Comparisons) {
  f64_compare("f64.eq", device::f64_eq, device::f64_eq_soft);
  f64_compare("f64.ne", device::f64_ne, device::f64_ne_soft);
  f64_compare("f64.lt", device::f64_lt, device::f64_lt_soft);
  f64_compare("f64.gt", device::f64_gt, device::f64_gt_soft);
  f64_compare("f64.le", device::f64_le, device::f64_le_soft);
  f64_compare("f64.ge", device::f64_ge, device::f64_ge_soft);
  f32_compare("f32.eq", device::f32_eq, device::f32_eq_soft);
  f32_compare("f32.ne", device::f32_ne, device::f32_ne_soft);
  f32_compare("f32.lt", device::f32_lt, device::f32_lt_soft);
  f32_compare("f32.gt", device::f32_gt, device::f32_gt_soft);
  f32_compare("f32.le", device::f32_le, device::f32_le_soft);
  f32_compare("f32.ge", device::f32_ge, device::f32_ge_soft);
}

TEST(NumericsHostIeee, F64Unary) {
  f64_unary("f64.sqrt", device::f64_sqrt, device::f64_sqrt_soft);
  f64_unary("f64.ceil", device::f64_ceil, device::f64_ceil_soft);
  f64_unary("f64.floor", device::f64_floor, device::f64_floor_soft);
  f64_unary("f64.trunc", device::f64_trunc, device::f64_trunc_soft);
  f64_unary("f64.nearest", device::f64_nearest, device::f64_nearest_soft);
}

TEST(NumericsHostIeee, F32Unary) {
  f32_unary("f32.sqrt", device::f32_sqrt, device::f32_sqrt_soft);
  f32_unary("f32.ceil", device::f32_ceil, device::f32_ceil_soft);
  f32_unary("f32.floor", device::f32_floor, device::f32_floor_soft);
  f32_unary("f32.trunc", device::f32_trunc, device::f32_trunc_soft);
  f32_unary("f32.nearest", device::f32_nearest, device::f32_nearest_soft);
}

TEST(NumericsHostIeee, FloatConversions) {
  Mismatches promote("f64.promote_f32");
  auto check_promote = [&](uint a) {
    const uint64_t got = to_u64(device::f64_promote_f32(a));
    const uint64_t want = to_u64(device::f64_promote_f32_soft(a));
    NUMERICS_CHECK(promote, got == want, hex32(a) + " -> " + hex64(got) + ", soft " + hex64(want));
  };
  for (uint a : f32_operands()) check_promote(a);
  for (uint64_t a = 0; a <= 0xFFFFFFFFull; a += kF32Stride) check_promote(static_cast<uint>(a));

  Mismatches demote("f32.demote_f64");
  std::vector<uint64_t> inputs = f64_operands();
  // Around binary32's rounding points: halfway and next to it, in the normal and subnormal
  // ranges (demotion to a subnormal rounds at a higher bit).
  RandomFloats random(test_seed());
  for (int i = 0; i < kRandomCases; ++i) {
    const uint64_t e = 1023 - 155 + random.bits64() % 290;  // binary32 subnormals to overflow
    const uint64_t f = (random.bits64() & 0xFFFFFE0000000ull) | (i % 2 == 0 ? 0x10000000ull : 0x0FFFFFFFull);
    inputs.push_back((random.bits64() & 0x8000000000000000ull) | (e << 52) | f);
  }
  for (uint64_t a : inputs) {
    const uint got = device::f32_demote_f64(to_uvec2(a));
    const uint want = device::f32_demote_f64_soft(to_uvec2(a));
    NUMERICS_CHECK(demote, got == want, hex64(a) + " -> " + hex32(got) + ", soft " + hex32(want));
  }
}

TEST(NumericsHostIeee, IntegerConversions) {
  std::vector<uint64_t> inputs = int_specials();
  RandomFloats random(test_seed());
  for (int i = 0; i < kRandomCases; ++i) inputs.push_back(i % 4 == 0 ? random.bits64() : random.integer());
  Mismatches mismatches("integer -> float conversions");
  for (uint64_t v : inputs) {
    const uvec2 wide = to_uvec2(v);
    const uint narrow = wide.x;
    auto check32 = [&](const char* name, uint got, uint want) {
      NUMERICS_CHECK(mismatches, got == want, std::string(name) + " " + hex64(v) + " -> " + hex32(got));
    };
    auto check64 = [&](const char* name, uvec2 got, uvec2 want) {
      NUMERICS_CHECK(mismatches, got == want, std::string(name) + " " + hex64(v) + " -> " + hex64(to_u64(got)));
    };
    check32("f32.convert_i32_s", device::f32_convert_i32_s(narrow), device::f32_convert_i32_s_soft(narrow));
    check32("f32.convert_i32_u", device::f32_convert_i32_u(narrow), device::f32_convert_i32_u_soft(narrow));
    check32("f32.convert_i64_s", device::f32_convert_i64_s(wide), device::f32_convert_i64_s_soft(wide));
    check32("f32.convert_i64_u", device::f32_convert_i64_u(wide), device::f32_convert_i64_u_soft(wide));
    check64("f64.convert_i32_s", device::f64_convert_i32_s(narrow), device::f64_convert_i32_s_soft(narrow));
    check64("f64.convert_i32_u", device::f64_convert_i32_u(narrow), device::f64_convert_i32_u_soft(narrow));
    check64("f64.convert_i64_s", device::f64_convert_i64_s(wide), device::f64_convert_i64_s_soft(wide));
    check64("f64.convert_i64_u", device::f64_convert_i64_u(wide), device::f64_convert_i64_u_soft(wide));
  }
}

// a * b + c as two library calls must round twice, as the software library (and every other
// device) does. With c = -(a * b) rounded, two roundings give exactly 0 while a fused
// multiply-add would give the product's rounding error, so any fusion shows. (The build with
// -march=x86-64-v3 -ffp-contract=fast, numerics_host_ieee_tests_x86_64_v3, is where a
// compiler could fuse.)
TEST(NumericsHostIeee, ChainsRoundEveryOperation) {
  Mismatches mismatches("mul then add");
  RandomFloats random(test_seed());
  for (int i = 0; i < kRandomCases; ++i) {
    const uvec2 a = to_uvec2(random.f64());
    const uvec2 b = to_uvec2(random.f64_partner(to_u64(a)));
    const uvec2 c = i % 2 == 0 ? device::f64_neg(device::f64_mul_soft(a, b)) : to_uvec2(random.f64());
    const uint64_t got = to_u64(device::f64_add(device::f64_mul(a, b), c));
    const uint64_t want = to_u64(device::f64_add_soft(device::f64_mul_soft(a, b), c));
    const uint a32 = random.f32();
    const uint b32 = random.f32_partner(a32);
    const uint c32 = i % 2 == 0 ? device::f32_neg(device::f32_mul_soft(a32, b32)) : random.f32();
    const uint got32 = device::f32_sub(c32, device::f32_mul(a32, b32));
    const uint want32 = device::f32_sub_soft(c32, device::f32_mul_soft(a32, b32));
    NUMERICS_CHECK(mismatches, got == want && got32 == want32,
                   hex64(to_u64(a)) + " * " + hex64(to_u64(b)) + " + " + hex64(to_u64(c)) + " -> " + hex64(got) +
                       ", soft " + hex64(want) + "; f32 " + hex32(got32) + ", soft " + hex32(want32));
  }
}

// The check the cpu device can make before trusting the hardware: true in the default
// environment, false under each other rounding mode and under flush-to-zero (x86-64: FTZ or
// DAZ in MXCSR; AArch64: FPCR.FZ).
TEST(NumericsHostIeee, EnvironmentCheck) {
  EXPECT_TRUE(device::host_ieee_environment_is_default());
  for (int mode : {FE_UPWARD, FE_DOWNWARD, FE_TOWARDZERO}) {
    ASSERT_EQ(std::fesetround(mode), 0);
    const bool is_default = device::host_ieee_environment_is_default();
    std::fesetround(FE_TONEAREST);
    EXPECT_FALSE(is_default) << "rounding mode " << mode;
  }
#if defined(__x86_64__)
  const unsigned int saved = _mm_getcsr();
  for (unsigned int flag : {0x8000u /* FTZ */, 0x0040u /* DAZ */}) {
    _mm_setcsr(saved | flag);
    const bool is_default = device::host_ieee_environment_is_default();
    _mm_setcsr(saved);
    EXPECT_FALSE(is_default) << "MXCSR flag " << flag;
  }
#elif defined(__aarch64__)
  std::uint64_t saved = 0;
  asm volatile("mrs %0, fpcr" : "=r"(saved));
  const std::uint64_t flush_to_zero = saved | (std::uint64_t{1} << 24);  // FPCR.FZ
  asm volatile("msr fpcr, %0" : : "r"(flush_to_zero));
  const bool is_default = device::host_ieee_environment_is_default();
  asm volatile("msr fpcr, %0" : : "r"(saved));
  EXPECT_FALSE(is_default) << "FPCR.FZ";
#endif
  EXPECT_TRUE(device::host_ieee_environment_is_default());
}

#else

TEST(NumericsHostIeee, NotBuilt) {
  GTEST_SKIP() << "WASM_HOST_IEEE is not defined (WAVESTACK_SOFT_FLOAT, or a host without the fast path)";
}

#endif

}  // namespace
