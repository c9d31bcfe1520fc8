// Test harness in the device subset: evaluates one numeric instruction, named by its
// WebAssembly opcode (0xFC00 + n for the 0xFC-prefixed saturating truncations), on operands
// held as uvec2 (i32 and f32 in .x with .y = 0). The GPU differential test runs this same text
// in a compute shader and as C++, and requires identical results.
//
// Every case assigns and breaks instead of returning: Mesa's lavapipe (22.3, LLVM 15)
// miscompiles `return` inside a large switch (it took the wrong case), so device code keeps
// switches free of returns.
uvec2 numerics_eval(uint op, uvec2 a, uvec2 b, OUT(uint) trap) {
  trap = WASM_TRAP_NONE;
  uvec2 r = uvec2(0u, 0u);
  switch (op) {
    // i32 operations the library provides (the rest are native uint arithmetic)
    case 0x6Du: r = uvec2(i32_div_s(a.x, b.x, trap), 0u); break;
    case 0x6Eu: r = uvec2(i32_div_u(a.x, b.x, trap), 0u); break;
    case 0x6Fu: r = uvec2(i32_rem_s(a.x, b.x, trap), 0u); break;
    case 0x70u: r = uvec2(i32_rem_u(a.x, b.x, trap), 0u); break;
    case 0xC0u: r = uvec2(i32_extend8_s(a.x), 0u); break;
    case 0xC1u: r = uvec2(i32_extend16_s(a.x), 0u); break;
    // i64 comparisons
    case 0x50u: r = uvec2(i64_eqz(a), 0u); break;
    case 0x51u: r = uvec2(i64_eq(a, b), 0u); break;
    case 0x52u: r = uvec2(i64_ne(a, b), 0u); break;
    case 0x53u: r = uvec2(i64_lt_s(a, b), 0u); break;
    case 0x54u: r = uvec2(i64_lt_u(a, b), 0u); break;
    case 0x55u: r = uvec2(i64_gt_s(a, b), 0u); break;
    case 0x56u: r = uvec2(i64_gt_u(a, b), 0u); break;
    case 0x57u: r = uvec2(i64_le_s(a, b), 0u); break;
    case 0x58u: r = uvec2(i64_le_u(a, b), 0u); break;
    case 0x59u: r = uvec2(i64_ge_s(a, b), 0u); break;
    case 0x5Au: r = uvec2(i64_ge_u(a, b), 0u); break;
    // f32 and f64 comparisons
    case 0x5Bu: r = uvec2(f32_eq(a.x, b.x), 0u); break;
    case 0x5Cu: r = uvec2(f32_ne(a.x, b.x), 0u); break;
    case 0x5Du: r = uvec2(f32_lt(a.x, b.x), 0u); break;
    case 0x5Eu: r = uvec2(f32_gt(a.x, b.x), 0u); break;
    case 0x5Fu: r = uvec2(f32_le(a.x, b.x), 0u); break;
    case 0x60u: r = uvec2(f32_ge(a.x, b.x), 0u); break;
    case 0x61u: r = uvec2(f64_eq(a, b), 0u); break;
    case 0x62u: r = uvec2(f64_ne(a, b), 0u); break;
    case 0x63u: r = uvec2(f64_lt(a, b), 0u); break;
    case 0x64u: r = uvec2(f64_gt(a, b), 0u); break;
    case 0x65u: r = uvec2(f64_le(a, b), 0u); break;
    case 0x66u: r = uvec2(f64_ge(a, b), 0u); break;
    // i64 arithmetic
    case 0x79u: r = i64_clz(a); break;
    case 0x7Au: r = i64_ctz(a); break;
    case 0x7Bu: r = i64_popcnt(a); break;
    case 0x7Cu: r = i64_add(a, b); break;
    case 0x7Du: r = i64_sub(a, b); break;
    case 0x7Eu: r = i64_mul(a, b); break;
    case 0x7Fu: r = i64_div_s(a, b, trap); break;
    case 0x80u: r = i64_div_u(a, b, trap); break;
    case 0x81u: r = i64_rem_s(a, b, trap); break;
    case 0x82u: r = i64_rem_u(a, b, trap); break;
    case 0x83u: r = i64_and(a, b); break;
    case 0x84u: r = i64_or(a, b); break;
    case 0x85u: r = i64_xor(a, b); break;
    case 0x86u: r = i64_shl(a, b); break;
    case 0x87u: r = i64_shr_s(a, b); break;
    case 0x88u: r = i64_shr_u(a, b); break;
    case 0x89u: r = i64_rotl(a, b); break;
    case 0x8Au: r = i64_rotr(a, b); break;
    // f32 arithmetic
    case 0x8Bu: r = uvec2(f32_abs(a.x), 0u); break;
    case 0x8Cu: r = uvec2(f32_neg(a.x), 0u); break;
    case 0x8Du: r = uvec2(f32_ceil(a.x), 0u); break;
    case 0x8Eu: r = uvec2(f32_floor(a.x), 0u); break;
    case 0x8Fu: r = uvec2(f32_trunc(a.x), 0u); break;
    case 0x90u: r = uvec2(f32_nearest(a.x), 0u); break;
    case 0x91u: r = uvec2(f32_sqrt(a.x), 0u); break;
    case 0x92u: r = uvec2(f32_add(a.x, b.x), 0u); break;
    case 0x93u: r = uvec2(f32_sub(a.x, b.x), 0u); break;
    case 0x94u: r = uvec2(f32_mul(a.x, b.x), 0u); break;
    case 0x95u: r = uvec2(f32_div(a.x, b.x), 0u); break;
    case 0x96u: r = uvec2(f32_min(a.x, b.x), 0u); break;
    case 0x97u: r = uvec2(f32_max(a.x, b.x), 0u); break;
    case 0x98u: r = uvec2(f32_copysign(a.x, b.x), 0u); break;
    // f64 arithmetic
    case 0x99u: r = f64_abs(a); break;
    case 0x9Au: r = f64_neg(a); break;
    case 0x9Bu: r = f64_ceil(a); break;
    case 0x9Cu: r = f64_floor(a); break;
    case 0x9Du: r = f64_trunc(a); break;
    case 0x9Eu: r = f64_nearest(a); break;
    case 0x9Fu: r = f64_sqrt(a); break;
    case 0xA0u: r = f64_add(a, b); break;
    case 0xA1u: r = f64_sub(a, b); break;
    case 0xA2u: r = f64_mul(a, b); break;
    case 0xA3u: r = f64_div(a, b); break;
    case 0xA4u: r = f64_min(a, b); break;
    case 0xA5u: r = f64_max(a, b); break;
    case 0xA6u: r = f64_copysign(a, b); break;
    // conversions
    case 0xA7u: r = uvec2(i32_wrap_i64(a), 0u); break;
    case 0xA8u: r = uvec2(i32_trunc_f32_s(a.x, trap), 0u); break;
    case 0xA9u: r = uvec2(i32_trunc_f32_u(a.x, trap), 0u); break;
    case 0xAAu: r = uvec2(i32_trunc_f64_s(a, trap), 0u); break;
    case 0xABu: r = uvec2(i32_trunc_f64_u(a, trap), 0u); break;
    case 0xACu: r = i64_extend_i32_s(a.x); break;
    case 0xADu: r = i64_extend_i32_u(a.x); break;
    case 0xAEu: r = i64_trunc_f32_s(a.x, trap); break;
    case 0xAFu: r = i64_trunc_f32_u(a.x, trap); break;
    case 0xB0u: r = i64_trunc_f64_s(a, trap); break;
    case 0xB1u: r = i64_trunc_f64_u(a, trap); break;
    case 0xB2u: r = uvec2(f32_convert_i32_s(a.x), 0u); break;
    case 0xB3u: r = uvec2(f32_convert_i32_u(a.x), 0u); break;
    case 0xB4u: r = uvec2(f32_convert_i64_s(a), 0u); break;
    case 0xB5u: r = uvec2(f32_convert_i64_u(a), 0u); break;
    case 0xB6u: r = uvec2(f32_demote_f64(a), 0u); break;
    case 0xB7u: r = f64_convert_i32_s(a.x); break;
    case 0xB8u: r = f64_convert_i32_u(a.x); break;
    case 0xB9u: r = f64_convert_i64_s(a); break;
    case 0xBAu: r = f64_convert_i64_u(a); break;
    case 0xBBu: r = f64_promote_f32(a.x); break;
    case 0xC2u: r = i64_extend8_s(a); break;
    case 0xC3u: r = i64_extend16_s(a); break;
    case 0xC4u: r = i64_extend32_s(a); break;
    // 0xFC-prefixed saturating truncations
    case 0xFC00u: r = uvec2(i32_trunc_sat_f32_s(a.x), 0u); break;
    case 0xFC01u: r = uvec2(i32_trunc_sat_f32_u(a.x), 0u); break;
    case 0xFC02u: r = uvec2(i32_trunc_sat_f64_s(a), 0u); break;
    case 0xFC03u: r = uvec2(i32_trunc_sat_f64_u(a), 0u); break;
    case 0xFC04u: r = i64_trunc_sat_f32_s(a.x); break;
    case 0xFC05u: r = i64_trunc_sat_f32_u(a.x); break;
    case 0xFC06u: r = i64_trunc_sat_f64_s(a); break;
    case 0xFC07u: r = i64_trunc_sat_f64_u(a); break;
    // The GLSL integer builtins that prelude.hpp reimplements for C++ (harness-only ids
    // 0x1000+), so the device's own builtins check the prelude's semantics.
    case 0x1000u: {
      uint carry = 0u;
      uint sum = uaddCarry(a.x, b.x, carry);
      r = uvec2(sum, carry);
    } break;
    case 0x1001u: {
      uint borrow = 0u;
      uint difference = usubBorrow(a.x, b.x, borrow);
      r = uvec2(difference, borrow);
    } break;
    case 0x1002u: {
      uint msb = 0u;
      uint lsb = 0u;
      umulExtended(a.x, b.x, msb, lsb);
      r = uvec2(lsb, msb);
    } break;
    case 0x1003u: r = uvec2(uint(findMSB(a.x)), uint(findMSB(a.y & b.y))); break;
    case 0x1004u: r = uvec2(uint(findLSB(a.x)), uint(findLSB(a.y & b.y))); break;
    case 0x1005u: r = uvec2(uint(bitCount(a.x)), uint(bitCount(a.y))); break;
    case 0x1006u: r = uvec2(bitfieldReverse(a.x), bitfieldReverse(a.y)); break;
    case 0x1007u: r = uvec2(min(a.x, b.x), max(a.x, b.x)); break;
    case 0x1008u: r = uvec2(uint(min(int(a.x), int(b.x))), uint(max(int(a.x), int(b.x)))); break;
    case 0x1009u: {
      uint low = min(b.x, b.y);
      uint high = max(b.x, b.y);
      int signed_low = min(int(b.x), int(b.y));
      int signed_high = max(int(b.x), int(b.y));
      r = uvec2(clamp(a.x, low, high), uint(clamp(int(a.x), signed_low, signed_high)));
    } break;
    case 0x100Au: {  // offset and bits within GLSL's defined range: offset + bits <= 32
      int offset = int(b.x % 33u);
      int bits = int(b.y % uint(33 - offset));
      r = uvec2(bitfieldExtract(a.x, offset, bits), uint(bitfieldExtract(int(a.x), offset, bits)));
    } break;
    case 0x100Bu: {
      int offset = int(b.x % 33u);
      int bits = int(b.y % uint(33 - offset));
      r = uvec2(bitfieldInsert(a.x, a.y, offset, bits), 0u);
    } break;
    default: trap = 0xFFFFFFFFu; break;  // unknown opcode: a harness error, never a numerics result
  }
  return r;
}
