#include "wasm/compiler/numeric_lowering.hpp"

#include <array>

namespace wavestack::wasm::compiler {
namespace {

// In opcode order: 0x45..0xC4, then the saturating truncations 0x100..0x107.
constexpr std::array kLowerings = {
    NumericLowering{0x45, 1, false, "uvec2(i32_eqz($a.x), 0u)"},
    NumericLowering{0x46, 2, false, "uvec2(i32_eq($a.x, $b.x), 0u)"},
    NumericLowering{0x47, 2, false, "uvec2(i32_ne($a.x, $b.x), 0u)"},
    NumericLowering{0x48, 2, false, "uvec2(i32_lt_s($a.x, $b.x), 0u)"},
    NumericLowering{0x49, 2, false, "uvec2(i32_lt_u($a.x, $b.x), 0u)"},
    NumericLowering{0x4A, 2, false, "uvec2(i32_gt_s($a.x, $b.x), 0u)"},
    NumericLowering{0x4B, 2, false, "uvec2(i32_gt_u($a.x, $b.x), 0u)"},
    NumericLowering{0x4C, 2, false, "uvec2(i32_le_s($a.x, $b.x), 0u)"},
    NumericLowering{0x4D, 2, false, "uvec2(i32_le_u($a.x, $b.x), 0u)"},
    NumericLowering{0x4E, 2, false, "uvec2(i32_ge_s($a.x, $b.x), 0u)"},
    NumericLowering{0x4F, 2, false, "uvec2(i32_ge_u($a.x, $b.x), 0u)"},
    NumericLowering{0x50, 1, false, "uvec2(i64_eqz($a), 0u)"},
    NumericLowering{0x51, 2, false, "uvec2(i64_eq($a, $b), 0u)"},
    NumericLowering{0x52, 2, false, "uvec2(i64_ne($a, $b), 0u)"},
    NumericLowering{0x53, 2, false, "uvec2(i64_lt_s($a, $b), 0u)"},
    NumericLowering{0x54, 2, false, "uvec2(i64_lt_u($a, $b), 0u)"},
    NumericLowering{0x55, 2, false, "uvec2(i64_gt_s($a, $b), 0u)"},
    NumericLowering{0x56, 2, false, "uvec2(i64_gt_u($a, $b), 0u)"},
    NumericLowering{0x57, 2, false, "uvec2(i64_le_s($a, $b), 0u)"},
    NumericLowering{0x58, 2, false, "uvec2(i64_le_u($a, $b), 0u)"},
    NumericLowering{0x59, 2, false, "uvec2(i64_ge_s($a, $b), 0u)"},
    NumericLowering{0x5A, 2, false, "uvec2(i64_ge_u($a, $b), 0u)"},
    NumericLowering{0x5B, 2, false, "uvec2(f32_eq($a.x, $b.x), 0u)"},
    NumericLowering{0x5C, 2, false, "uvec2(f32_ne($a.x, $b.x), 0u)"},
    NumericLowering{0x5D, 2, false, "uvec2(f32_lt($a.x, $b.x), 0u)"},
    NumericLowering{0x5E, 2, false, "uvec2(f32_gt($a.x, $b.x), 0u)"},
    NumericLowering{0x5F, 2, false, "uvec2(f32_le($a.x, $b.x), 0u)"},
    NumericLowering{0x60, 2, false, "uvec2(f32_ge($a.x, $b.x), 0u)"},
    NumericLowering{0x61, 2, false, "uvec2(f64_eq($a, $b), 0u)"},
    NumericLowering{0x62, 2, false, "uvec2(f64_ne($a, $b), 0u)"},
    NumericLowering{0x63, 2, false, "uvec2(f64_lt($a, $b), 0u)"},
    NumericLowering{0x64, 2, false, "uvec2(f64_gt($a, $b), 0u)"},
    NumericLowering{0x65, 2, false, "uvec2(f64_le($a, $b), 0u)"},
    NumericLowering{0x66, 2, false, "uvec2(f64_ge($a, $b), 0u)"},
    NumericLowering{0x67, 1, false, "uvec2(i32_clz($a.x), 0u)"},
    NumericLowering{0x68, 1, false, "uvec2(i32_ctz($a.x), 0u)"},
    NumericLowering{0x69, 1, false, "uvec2(i32_popcnt($a.x), 0u)"},
    NumericLowering{0x6A, 2, false, "uvec2(i32_add($a.x, $b.x), 0u)"},
    NumericLowering{0x6B, 2, false, "uvec2(i32_sub($a.x, $b.x), 0u)"},
    NumericLowering{0x6C, 2, false, "uvec2(i32_mul($a.x, $b.x), 0u)"},
    NumericLowering{0x6D, 2, true, "uvec2(i32_div_s($a.x, $b.x, $t), 0u)"},
    NumericLowering{0x6E, 2, true, "uvec2(i32_div_u($a.x, $b.x, $t), 0u)"},
    NumericLowering{0x6F, 2, true, "uvec2(i32_rem_s($a.x, $b.x, $t), 0u)"},
    NumericLowering{0x70, 2, true, "uvec2(i32_rem_u($a.x, $b.x, $t), 0u)"},
    NumericLowering{0x71, 2, false, "uvec2(i32_and($a.x, $b.x), 0u)"},
    NumericLowering{0x72, 2, false, "uvec2(i32_or($a.x, $b.x), 0u)"},
    NumericLowering{0x73, 2, false, "uvec2(i32_xor($a.x, $b.x), 0u)"},
    NumericLowering{0x74, 2, false, "uvec2(i32_shl($a.x, $b.x), 0u)"},
    NumericLowering{0x75, 2, false, "uvec2(i32_shr_s($a.x, $b.x), 0u)"},
    NumericLowering{0x76, 2, false, "uvec2(i32_shr_u($a.x, $b.x), 0u)"},
    NumericLowering{0x77, 2, false, "uvec2(i32_rotl($a.x, $b.x), 0u)"},
    NumericLowering{0x78, 2, false, "uvec2(i32_rotr($a.x, $b.x), 0u)"},
    NumericLowering{0x79, 1, false, "i64_clz($a)"},
    NumericLowering{0x7A, 1, false, "i64_ctz($a)"},
    NumericLowering{0x7B, 1, false, "i64_popcnt($a)"},
    NumericLowering{0x7C, 2, false, "i64_add($a, $b)"},
    NumericLowering{0x7D, 2, false, "i64_sub($a, $b)"},
    NumericLowering{0x7E, 2, false, "i64_mul($a, $b)"},
    NumericLowering{0x7F, 2, true, "i64_div_s($a, $b, $t)"},
    NumericLowering{0x80, 2, true, "i64_div_u($a, $b, $t)"},
    NumericLowering{0x81, 2, true, "i64_rem_s($a, $b, $t)"},
    NumericLowering{0x82, 2, true, "i64_rem_u($a, $b, $t)"},
    NumericLowering{0x83, 2, false, "i64_and($a, $b)"},
    NumericLowering{0x84, 2, false, "i64_or($a, $b)"},
    NumericLowering{0x85, 2, false, "i64_xor($a, $b)"},
    NumericLowering{0x86, 2, false, "i64_shl($a, $b)"},
    NumericLowering{0x87, 2, false, "i64_shr_s($a, $b)"},
    NumericLowering{0x88, 2, false, "i64_shr_u($a, $b)"},
    NumericLowering{0x89, 2, false, "i64_rotl($a, $b)"},
    NumericLowering{0x8A, 2, false, "i64_rotr($a, $b)"},
    NumericLowering{0x8B, 1, false, "uvec2(f32_abs($a.x), 0u)"},
    NumericLowering{0x8C, 1, false, "uvec2(f32_neg($a.x), 0u)"},
    NumericLowering{0x8D, 1, false, "uvec2(f32_ceil($a.x), 0u)"},
    NumericLowering{0x8E, 1, false, "uvec2(f32_floor($a.x), 0u)"},
    NumericLowering{0x8F, 1, false, "uvec2(f32_trunc($a.x), 0u)"},
    NumericLowering{0x90, 1, false, "uvec2(f32_nearest($a.x), 0u)"},
    NumericLowering{0x91, 1, false, "uvec2(f32_sqrt($a.x), 0u)"},
    NumericLowering{0x92, 2, false, "uvec2(f32_add($a.x, $b.x), 0u)"},
    NumericLowering{0x93, 2, false, "uvec2(f32_sub($a.x, $b.x), 0u)"},
    NumericLowering{0x94, 2, false, "uvec2(f32_mul($a.x, $b.x), 0u)"},
    NumericLowering{0x95, 2, false, "uvec2(f32_div($a.x, $b.x), 0u)"},
    NumericLowering{0x96, 2, false, "uvec2(f32_min($a.x, $b.x), 0u)"},
    NumericLowering{0x97, 2, false, "uvec2(f32_max($a.x, $b.x), 0u)"},
    NumericLowering{0x98, 2, false, "uvec2(f32_copysign($a.x, $b.x), 0u)"},
    NumericLowering{0x99, 1, false, "f64_abs($a)"},
    NumericLowering{0x9A, 1, false, "f64_neg($a)"},
    NumericLowering{0x9B, 1, false, "f64_ceil($a)"},
    NumericLowering{0x9C, 1, false, "f64_floor($a)"},
    NumericLowering{0x9D, 1, false, "f64_trunc($a)"},
    NumericLowering{0x9E, 1, false, "f64_nearest($a)"},
    NumericLowering{0x9F, 1, false, "f64_sqrt_raw($a)"},
    NumericLowering{0xA0, 2, false, "f64_add_raw($a, $b)"},
    NumericLowering{0xA1, 2, false, "f64_sub_raw($a, $b)"},
    NumericLowering{0xA2, 2, false, "f64_mul_raw($a, $b)"},
    NumericLowering{0xA3, 2, false, "f64_div_raw($a, $b)"},
    NumericLowering{0xA4, 2, false, "f64_min($a, $b)"},
    NumericLowering{0xA5, 2, false, "f64_max($a, $b)"},
    NumericLowering{0xA6, 2, false, "f64_copysign($a, $b)"},
    NumericLowering{0xA7, 1, false, "uvec2(i32_wrap_i64($a), 0u)"},
    NumericLowering{0xA8, 1, true, "uvec2(i32_trunc_f32_s($a.x, $t), 0u)"},
    NumericLowering{0xA9, 1, true, "uvec2(i32_trunc_f32_u($a.x, $t), 0u)"},
    NumericLowering{0xAA, 1, true, "uvec2(i32_trunc_f64_s($a, $t), 0u)"},
    NumericLowering{0xAB, 1, true, "uvec2(i32_trunc_f64_u($a, $t), 0u)"},
    NumericLowering{0xAC, 1, false, "i64_extend_i32_s($a.x)"},
    NumericLowering{0xAD, 1, false, "i64_extend_i32_u($a.x)"},
    NumericLowering{0xAE, 1, true, "i64_trunc_f32_s($a.x, $t)"},
    NumericLowering{0xAF, 1, true, "i64_trunc_f32_u($a.x, $t)"},
    NumericLowering{0xB0, 1, true, "i64_trunc_f64_s($a, $t)"},
    NumericLowering{0xB1, 1, true, "i64_trunc_f64_u($a, $t)"},
    NumericLowering{0xB2, 1, false, "uvec2(f32_convert_i32_s($a.x), 0u)"},
    NumericLowering{0xB3, 1, false, "uvec2(f32_convert_i32_u($a.x), 0u)"},
    NumericLowering{0xB4, 1, false, "uvec2(f32_convert_i64_s($a), 0u)"},
    NumericLowering{0xB5, 1, false, "uvec2(f32_convert_i64_u($a), 0u)"},
    NumericLowering{0xB6, 1, false, "uvec2(f32_demote_f64($a), 0u)"},
    NumericLowering{0xB7, 1, false, "f64_convert_i32_s($a.x)"},
    NumericLowering{0xB8, 1, false, "f64_convert_i32_u($a.x)"},
    NumericLowering{0xB9, 1, false, "f64_convert_i64_s($a)"},
    NumericLowering{0xBA, 1, false, "f64_convert_i64_u($a)"},
    NumericLowering{0xBB, 1, false, "f64_promote_f32($a.x)"},
    NumericLowering{0xBC, 1, false, "uvec2($a.x, 0u)"},
    NumericLowering{0xBD, 1, false, "$a"},
    NumericLowering{0xBE, 1, false, "uvec2($a.x, 0u)"},
    NumericLowering{0xBF, 1, false, "$a"},
    NumericLowering{0xC0, 1, false, "uvec2(i32_extend8_s($a.x), 0u)"},
    NumericLowering{0xC1, 1, false, "uvec2(i32_extend16_s($a.x), 0u)"},
    NumericLowering{0xC2, 1, false, "i64_extend8_s($a)"},
    NumericLowering{0xC3, 1, false, "i64_extend16_s($a)"},
    NumericLowering{0xC4, 1, false, "i64_extend32_s($a)"},
    NumericLowering{0x100, 1, false, "uvec2(i32_trunc_sat_f32_s($a.x), 0u)"},
    NumericLowering{0x101, 1, false, "uvec2(i32_trunc_sat_f32_u($a.x), 0u)"},
    NumericLowering{0x102, 1, false, "uvec2(i32_trunc_sat_f64_s($a), 0u)"},
    NumericLowering{0x103, 1, false, "uvec2(i32_trunc_sat_f64_u($a), 0u)"},
    NumericLowering{0x104, 1, false, "i64_trunc_sat_f32_s($a.x)"},
    NumericLowering{0x105, 1, false, "i64_trunc_sat_f32_u($a.x)"},
    NumericLowering{0x106, 1, false, "i64_trunc_sat_f64_s($a)"},
    NumericLowering{0x107, 1, false, "i64_trunc_sat_f64_u($a)"},
};

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

}  // namespace

const NumericLowering* find_numeric_lowering(std::uint16_t opcode) {
  std::size_t index = 0;
  if (opcode >= 0x45 && opcode <= 0xC4) {
    index = opcode - 0x45U;
  } else if (opcode >= 0x100 && opcode <= 0x107) {
    index = 0x80U + (opcode - 0x100U);
  } else {
    return nullptr;
  }
  return &kLowerings.at(index);
}

bool numeric_result_is_f64(std::uint16_t opcode) {
  // f64.abs .. f64.copysign, f64.convert_i32_s .. f64.promote_f32, f64.reinterpret_i64.
  return (opcode >= 0x99 && opcode <= 0xA6) || (opcode >= 0xB7 && opcode <= 0xBB) || opcode == 0xBF;
}

bool numeric_result_is_raw_f64(std::uint16_t opcode) {
  // f64.sqrt, f64.add, f64.sub, f64.mul, f64.div.
  return opcode >= 0x9F && opcode <= 0xA3;
}

std::string instantiate_numeric(const NumericLowering& lowering, const std::string& a, const std::string& b,
                                const std::string& trap) {
  return replace_all(replace_all(replace_all(lowering.expression, "$a", a), "$b", b), "$t", trap);
}

}  // namespace wavestack::wasm::compiler
