// wasm_numeric (src/wasm/device/numeric_dispatch.glsl): the i32 instructions it computes
// with native operators against native int32_t arithmetic, every other opcode against a
// direct call of the library function the wasm spec names for it (those functions are checked
// against native IEEE and integer arithmetic by the other numerics tests), and the arity of
// every opcode.
#include <gtest/gtest.h>

#include <bit>
#include <functional>
#include <vector>

#include "numerics_test_support.hpp"

namespace {

using namespace wavestack::numerics_test;
namespace d = wavestack::wasm::device;

enum class Operand { N, I32, I64, F32, F64 };
constexpr Operand N = Operand::N;
constexpr Operand I32 = Operand::I32;
constexpr Operand I64 = Operand::I64;
constexpr Operand F32 = Operand::F32;
constexpr Operand F64 = Operand::F64;

// An i32/f32 result as a 64-bit slot.
uvec2 w(uint v) {
  return uvec2(v, 0u);
}

uvec2 random_operand(RandomFloats& random, Operand kind) {
  switch (kind) {
    case Operand::I32:
      return uvec2(static_cast<uint>(random.integer()), random.bits32());  // .y must be ignored
    case Operand::I64:
      return to_uvec2(random.integer());
    case Operand::F32:
      return uvec2(random.f32(), random.bits32());
    case Operand::F64:
      return to_uvec2(random.f64());
    case Operand::N:
      break;
  }
  return uvec2(0u, 0u);
}

constexpr int kCases = 1 << 14;

uvec2 eval(uint opcode, uvec2 a, uvec2 b, uint& trap) {
  trap = 99u;
  return d::wasm_numeric(opcode, a, b, trap);
}

TEST(NumericsDispatch, I32InstructionsMatchNativeInt32) {
  using Native = std::function<uint(uint, uint)>;
  auto s = [](uint v) { return std::bit_cast<int32_t>(v); };
  const std::vector<std::pair<uint, Native>> ops = {
      {0x45, [](uint a, uint) { return a == 0 ? 1u : 0u; }},
      {0x46, [](uint a, uint b) { return a == b ? 1u : 0u; }},
      {0x47, [](uint a, uint b) { return a != b ? 1u : 0u; }},
      {0x48, [s](uint a, uint b) { return s(a) < s(b) ? 1u : 0u; }},
      {0x49, [](uint a, uint b) { return a < b ? 1u : 0u; }},
      {0x4A, [s](uint a, uint b) { return s(a) > s(b) ? 1u : 0u; }},
      {0x4B, [](uint a, uint b) { return a > b ? 1u : 0u; }},
      {0x4C, [s](uint a, uint b) { return s(a) <= s(b) ? 1u : 0u; }},
      {0x4D, [](uint a, uint b) { return a <= b ? 1u : 0u; }},
      {0x4E, [s](uint a, uint b) { return s(a) >= s(b) ? 1u : 0u; }},
      {0x4F, [](uint a, uint b) { return a >= b ? 1u : 0u; }},
      {0x67, [](uint a, uint) { return static_cast<uint>(std::countl_zero(a)); }},
      {0x68, [](uint a, uint) { return static_cast<uint>(std::countr_zero(a)); }},
      {0x69, [](uint a, uint) { return static_cast<uint>(std::popcount(a)); }},
      {0x6A, [](uint a, uint b) { return a + b; }},
      {0x6B, [](uint a, uint b) { return a - b; }},
      {0x6C, [](uint a, uint b) { return static_cast<uint>(uint64_t{a} * b); }},
      {0x71, [](uint a, uint b) { return a & b; }},
      {0x72, [](uint a, uint b) { return a | b; }},
      {0x73, [](uint a, uint b) { return a ^ b; }},
      {0x74, [](uint a, uint b) { return a << (b % 32); }},
      {0x75, [s](uint a, uint b) { return std::bit_cast<uint>(s(a) >> (b % 32)); }},
      {0x76, [](uint a, uint b) { return a >> (b % 32); }},
      {0x77, [](uint a, uint b) { return std::rotl(a, static_cast<int>(b % 32)); }},
      {0x78, [](uint a, uint b) { return std::rotr(a, static_cast<int>(b % 32)); }},
      {0xBC, [](uint a, uint) { return a; }},  // i32.reinterpret_f32
      {0xBE, [](uint a, uint) { return a; }},  // f32.reinterpret_i32
      {0xC0, [](uint a, uint) { return std::bit_cast<uint>(int32_t{static_cast<int8_t>(a)}); }},
      {0xC1, [](uint a, uint) { return std::bit_cast<uint>(int32_t{static_cast<int16_t>(a)}); }},
  };
  RandomFloats random(test_seed());
  const auto specials = int_specials();
  for (const auto& entry : ops) {
    const uint opcode = entry.first;  // (clang before 16 cannot capture structured bindings)
    const Native& native = entry.second;
    Mismatches mismatches("opcode " + hex32(opcode));
    auto check = [&](uint a, uint b) {
      uint trap = 0u;
      const uvec2 got = eval(opcode, uvec2(a, random.bits32()), uvec2(b, random.bits32()), trap);
      const uint want = native(a, b);
      NUMERICS_CHECK(mismatches, got == uvec2(want, 0u) && trap == d::WASM_TRAP_NONE,
                     hex32(a) + ", " + hex32(b) + " -> " + hex64(to_u64(got)) + ", native " + hex32(want));
    };
    for (uint64_t a : specials) {
      for (uint64_t b : specials) check(static_cast<uint>(a), static_cast<uint>(b));
    }
    for (int i = 0; i < kCases; ++i) check(static_cast<uint>(random.integer()), static_cast<uint>(random.integer()));
  }
}

struct Direct {
  uint opcode;
  Operand a;
  Operand b;
  uvec2 (*call)(uvec2, uvec2, uint&);
};

TEST(NumericsDispatch, EveryOtherOpcodeCallsTheFunctionOfItsName) {
  const Direct ops[] = {
      {0x50, I64, N, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return w(d::i64_eqz(a)); }},
      {0x51, I64, I64, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return w(d::i64_eq(a, b)); }},
      {0x52, I64, I64, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return w(d::i64_ne(a, b)); }},
      {0x53, I64, I64, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return w(d::i64_lt_s(a, b)); }},
      {0x54, I64, I64, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return w(d::i64_lt_u(a, b)); }},
      {0x55, I64, I64, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return w(d::i64_gt_s(a, b)); }},
      {0x56, I64, I64, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return w(d::i64_gt_u(a, b)); }},
      {0x57, I64, I64, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return w(d::i64_le_s(a, b)); }},
      {0x58, I64, I64, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return w(d::i64_le_u(a, b)); }},
      {0x59, I64, I64, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return w(d::i64_ge_s(a, b)); }},
      {0x5A, I64, I64, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return w(d::i64_ge_u(a, b)); }},
      {0x5B, F32, F32, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return w(d::f32_eq(a.x, b.x)); }},
      {0x5C, F32, F32, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return w(d::f32_ne(a.x, b.x)); }},
      {0x5D, F32, F32, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return w(d::f32_lt(a.x, b.x)); }},
      {0x5E, F32, F32, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return w(d::f32_gt(a.x, b.x)); }},
      {0x5F, F32, F32, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return w(d::f32_le(a.x, b.x)); }},
      {0x60, F32, F32, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return w(d::f32_ge(a.x, b.x)); }},
      {0x61, F64, F64, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return w(d::f64_eq(a, b)); }},
      {0x62, F64, F64, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return w(d::f64_ne(a, b)); }},
      {0x63, F64, F64, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return w(d::f64_lt(a, b)); }},
      {0x64, F64, F64, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return w(d::f64_gt(a, b)); }},
      {0x65, F64, F64, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return w(d::f64_le(a, b)); }},
      {0x66, F64, F64, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return w(d::f64_ge(a, b)); }},
      {0x6D, I32, I32, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return w(d::i32_div_s(a.x, b.x, trap)); }},
      {0x6E, I32, I32, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return w(d::i32_div_u(a.x, b.x, trap)); }},
      {0x6F, I32, I32, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return w(d::i32_rem_s(a.x, b.x, trap)); }},
      {0x70, I32, I32, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return w(d::i32_rem_u(a.x, b.x, trap)); }},
      {0x79, I64, N, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return d::i64_clz(a); }},
      {0x7A, I64, N, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return d::i64_ctz(a); }},
      {0x7B, I64, N, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return d::i64_popcnt(a); }},
      {0x7C, I64, I64, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return d::i64_add(a, b); }},
      {0x7D, I64, I64, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return d::i64_sub(a, b); }},
      {0x7E, I64, I64, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return d::i64_mul(a, b); }},
      {0x7F, I64, I64, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return d::i64_div_s(a, b, trap); }},
      {0x80, I64, I64, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return d::i64_div_u(a, b, trap); }},
      {0x81, I64, I64, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return d::i64_rem_s(a, b, trap); }},
      {0x82, I64, I64, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return d::i64_rem_u(a, b, trap); }},
      {0x83, I64, I64, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return d::i64_and(a, b); }},
      {0x84, I64, I64, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return d::i64_or(a, b); }},
      {0x85, I64, I64, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return d::i64_xor(a, b); }},
      {0x86, I64, I64, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return d::i64_shl(a, b); }},
      {0x87, I64, I64, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return d::i64_shr_s(a, b); }},
      {0x88, I64, I64, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return d::i64_shr_u(a, b); }},
      {0x89, I64, I64, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return d::i64_rotl(a, b); }},
      {0x8A, I64, I64, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return d::i64_rotr(a, b); }},
      {0x8B, F32, N, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return w(d::f32_abs(a.x)); }},
      {0x8C, F32, N, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return w(d::f32_neg(a.x)); }},
      {0x8D, F32, N, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return w(d::f32_ceil(a.x)); }},
      {0x8E, F32, N, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return w(d::f32_floor(a.x)); }},
      {0x8F, F32, N, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return w(d::f32_trunc(a.x)); }},
      {0x90, F32, N, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return w(d::f32_nearest(a.x)); }},
      {0x91, F32, N, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return w(d::f32_sqrt(a.x)); }},
      {0x92, F32, F32, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return w(d::f32_add(a.x, b.x)); }},
      {0x93, F32, F32, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return w(d::f32_sub(a.x, b.x)); }},
      {0x94, F32, F32, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return w(d::f32_mul(a.x, b.x)); }},
      {0x95, F32, F32, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return w(d::f32_div(a.x, b.x)); }},
      {0x96, F32, F32, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return w(d::f32_min(a.x, b.x)); }},
      {0x97, F32, F32, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return w(d::f32_max(a.x, b.x)); }},
      {0x98, F32, F32, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return w(d::f32_copysign(a.x, b.x)); }},
      {0x99, F64, N, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return d::f64_abs(a); }},
      {0x9A, F64, N, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return d::f64_neg(a); }},
      {0x9B, F64, N, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return d::f64_ceil(a); }},
      {0x9C, F64, N, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return d::f64_floor(a); }},
      {0x9D, F64, N, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return d::f64_trunc(a); }},
      {0x9E, F64, N, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return d::f64_nearest(a); }},
      {0x9F, F64, N, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return d::f64_sqrt(a); }},
      {0xA0, F64, F64, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return d::f64_add(a, b); }},
      {0xA1, F64, F64, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return d::f64_sub(a, b); }},
      {0xA2, F64, F64, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return d::f64_mul(a, b); }},
      {0xA3, F64, F64, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return d::f64_div(a, b); }},
      {0xA4, F64, F64, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return d::f64_min(a, b); }},
      {0xA5, F64, F64, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return d::f64_max(a, b); }},
      {0xA6, F64, F64, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return d::f64_copysign(a, b); }},
      {0xA7, I64, N, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return w(d::i32_wrap_i64(a)); }},
      {0xA8, F32, N, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return w(d::i32_trunc_f32_s(a.x, trap)); }},
      {0xA9, F32, N, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return w(d::i32_trunc_f32_u(a.x, trap)); }},
      {0xAA, F64, N, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return w(d::i32_trunc_f64_s(a, trap)); }},
      {0xAB, F64, N, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return w(d::i32_trunc_f64_u(a, trap)); }},
      {0xAC, I32, N, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return d::i64_extend_i32_s(a.x); }},
      {0xAD, I32, N, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return d::i64_extend_i32_u(a.x); }},
      {0xAE, F32, N, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return d::i64_trunc_f32_s(a.x, trap); }},
      {0xAF, F32, N, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return d::i64_trunc_f32_u(a.x, trap); }},
      {0xB0, F64, N, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return d::i64_trunc_f64_s(a, trap); }},
      {0xB1, F64, N, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return d::i64_trunc_f64_u(a, trap); }},
      {0xB2, I32, N, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return w(d::f32_convert_i32_s(a.x)); }},
      {0xB3, I32, N, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return w(d::f32_convert_i32_u(a.x)); }},
      {0xB4, I64, N, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return w(d::f32_convert_i64_s(a)); }},
      {0xB5, I64, N, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return w(d::f32_convert_i64_u(a)); }},
      {0xB6, F64, N, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return w(d::f32_demote_f64(a)); }},
      {0xB7, I32, N, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return d::f64_convert_i32_s(a.x); }},
      {0xB8, I32, N, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return d::f64_convert_i32_u(a.x); }},
      {0xB9, I64, N, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return d::f64_convert_i64_s(a); }},
      {0xBA, I64, N, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return d::f64_convert_i64_u(a); }},
      {0xBB, F32, N, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return d::f64_promote_f32(a.x); }},
      {0xC2, I64, N, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return d::i64_extend8_s(a); }},
      {0xC3, I64, N, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return d::i64_extend16_s(a); }},
      {0xC4, I64, N, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return d::i64_extend32_s(a); }},
      {0x100, F32, N, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return w(d::i32_trunc_sat_f32_s(a.x)); }},
      {0x101, F32, N, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return w(d::i32_trunc_sat_f32_u(a.x)); }},
      {0x102, F64, N, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return w(d::i32_trunc_sat_f64_s(a)); }},
      {0x103, F64, N, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return w(d::i32_trunc_sat_f64_u(a)); }},
      {0x104, F32, N, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return d::i64_trunc_sat_f32_s(a.x); }},
      {0x105, F32, N, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return d::i64_trunc_sat_f32_u(a.x); }},
      {0x106, F64, N, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return d::i64_trunc_sat_f64_s(a); }},
      {0x107, F64, N, [](uvec2 a, uvec2 b, uint& trap) { (void)b; (void)trap; return d::i64_trunc_sat_f64_u(a); }},
  };
  RandomFloats random(test_seed());
  for (const Direct& op : ops) {
    EXPECT_EQ(d::wasm_numeric_arity(op.opcode), op.b == N ? 1u : 2u) << hex32(op.opcode);
    Mismatches mismatches("opcode " + hex32(op.opcode));
    for (int i = 0; i < kCases; ++i) {
      const uvec2 a = random_operand(random, op.a);
      const uvec2 b = random_operand(random, op.b);
      uint trap = 0u;
      const uvec2 got = eval(op.opcode, a, b, trap);
      uint want_trap = 0u;
      const uvec2 want = op.call(a, b, want_trap);
      NUMERICS_CHECK(mismatches, got == want && trap == want_trap,
                     hex64(to_u64(a)) + ", " + hex64(to_u64(b)) + " -> " + hex64(to_u64(got)) + " trap " +
                         std::to_string(trap) + ", direct " + hex64(to_u64(want)) + " trap " +
                         std::to_string(want_trap));
    }
  }
}

TEST(NumericsDispatch, ArityAndNonNumericOpcodes) {
  int numeric = 0;
  for (uint opcode = 0; opcode < 0x300; ++opcode) {
    const uint arity = d::wasm_numeric_arity(opcode);
    const bool is_numeric = (opcode >= 0x45 && opcode <= 0xC4) || (opcode >= 0x100 && opcode <= 0x107);
    EXPECT_EQ(arity != 0u, is_numeric) << hex32(opcode);
    numeric += arity != 0u ? 1 : 0;
    if (!is_numeric) {
      uint trap = 99u;
      EXPECT_EQ(d::wasm_numeric(opcode, uvec2(5u, 6u), uvec2(7u, 8u), trap), uvec2(0u, 0u)) << hex32(opcode);
      EXPECT_EQ(trap, d::WASM_TRAP_NONE);
    }
  }
  EXPECT_EQ(numeric, 0xC4 - 0x45 + 1 + 8);
  for (uint opcode :
       {0x45u, 0x50u, 0x67u, 0x69u, 0x79u, 0x7Bu, 0x8Bu, 0x91u, 0x99u, 0x9Fu, 0xA7u, 0xBFu, 0xC4u, 0x107u}) {
    EXPECT_EQ(d::wasm_numeric_arity(opcode), 1u) << hex32(opcode);
  }
  for (uint opcode : {0x46u, 0x4Fu, 0x51u, 0x66u, 0x6Au, 0x78u, 0x7Cu, 0x8Au, 0x92u, 0x98u, 0xA0u, 0xA6u}) {
    EXPECT_EQ(d::wasm_numeric_arity(opcode), 2u) << hex32(opcode);
  }
  // Traps come through with a zero result.
  uint trap = 0u;
  EXPECT_EQ(d::wasm_numeric(0x6D, uvec2(1u, 0u), uvec2(0u, 0u), trap), uvec2(0u, 0u));
  EXPECT_EQ(trap, d::WASM_TRAP_INTEGER_DIVIDE_BY_ZERO);
  EXPECT_EQ(d::wasm_numeric(0xB0, to_uvec2(0x7FF8000000000000ull), uvec2(0u, 0u), trap), uvec2(0u, 0u));
  EXPECT_EQ(trap, d::WASM_TRAP_INVALID_CONVERSION_TO_INTEGER);
  // Reinterpretations of 64-bit values are the identity on the slot.
  EXPECT_EQ(d::wasm_numeric(0xBD, to_uvec2(0x7FF4000000000001ull), uvec2(0u, 0u), trap),
            to_uvec2(0x7FF4000000000001ull));
  EXPECT_EQ(d::wasm_numeric(0xBF, to_uvec2(0xFFF0000000000001ull), uvec2(0u, 0u), trap),
            to_uvec2(0xFFF0000000000001ull));
}

}  // namespace
