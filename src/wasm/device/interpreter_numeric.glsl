// The interpreter's numeric instructions (opcodes 0x45..0xC4 and the saturating truncations
// 0x100..0x107): i32 on native uint, everything else through the numerics library. Operands
// and results are 64-bit slots (i32/f32 in x with y = 0). No `return` inside the switch
// (lavapipe 22.3 miscompiles it): every case assigns and breaks.

bool interp_is_numeric(uint op) { return (op >= 0x45u && op <= 0xC4u) || (op >= 0x100u && op <= 0x107u); }

// One operand: the eqz tests, clz/ctz/popcnt, float unary ops, every conversion.
bool interp_numeric_is_unary(uint op) {
  return op == 0x45u || op == 0x50u || (op >= 0x67u && op <= 0x69u) || (op >= 0x79u && op <= 0x7Bu) ||
         (op >= 0x8Bu && op <= 0x91u) || (op >= 0x99u && op <= 0x9Fu) || op >= 0xA7u;
}

uint i32_rotl(uint a, uint count) {
  uint k = count & 31u;
  return k == 0u ? a : ((a << k) | (a >> (32u - k)));
}

uint i32_rotr(uint a, uint count) {
  uint k = count & 31u;
  return k == 0u ? a : ((a >> k) | (a << (32u - k)));
}

uint b2u(bool b) { return b ? 1u : 0u; }

uvec2 interp_numeric(uint op, uvec2 a, uvec2 b, OUT(uint) trap) {
  trap = WASM_TRAP_NONE;
  uint r = 0u;         // i32/f32 results
  uvec2 w = uvec2(0u, 0u);  // i64/f64 results
  bool wide = false;
  switch (op) {
    case 0x45u: r = b2u(a.x == 0u); break;
    case 0x46u: r = b2u(a.x == b.x); break;
    case 0x47u: r = b2u(a.x != b.x); break;
    case 0x48u: r = b2u(int(a.x) < int(b.x)); break;
    case 0x49u: r = b2u(a.x < b.x); break;
    case 0x4Au: r = b2u(int(a.x) > int(b.x)); break;
    case 0x4Bu: r = b2u(a.x > b.x); break;
    case 0x4Cu: r = b2u(int(a.x) <= int(b.x)); break;
    case 0x4Du: r = b2u(a.x <= b.x); break;
    case 0x4Eu: r = b2u(int(a.x) >= int(b.x)); break;
    case 0x4Fu: r = b2u(a.x >= b.x); break;
    case 0x50u: r = i64_eqz(a); break;
    case 0x51u: r = i64_eq(a, b); break;
    case 0x52u: r = i64_ne(a, b); break;
    case 0x53u: r = i64_lt_s(a, b); break;
    case 0x54u: r = i64_lt_u(a, b); break;
    case 0x55u: r = i64_gt_s(a, b); break;
    case 0x56u: r = i64_gt_u(a, b); break;
    case 0x57u: r = i64_le_s(a, b); break;
    case 0x58u: r = i64_le_u(a, b); break;
    case 0x59u: r = i64_ge_s(a, b); break;
    case 0x5Au: r = i64_ge_u(a, b); break;
    case 0x5Bu: r = f32_eq(a.x, b.x); break;
    case 0x5Cu: r = f32_ne(a.x, b.x); break;
    case 0x5Du: r = f32_lt(a.x, b.x); break;
    case 0x5Eu: r = f32_gt(a.x, b.x); break;
    case 0x5Fu: r = f32_le(a.x, b.x); break;
    case 0x60u: r = f32_ge(a.x, b.x); break;
    case 0x61u: r = f64_eq(a, b); break;
    case 0x62u: r = f64_ne(a, b); break;
    case 0x63u: r = f64_lt(a, b); break;
    case 0x64u: r = f64_gt(a, b); break;
    case 0x65u: r = f64_le(a, b); break;
    case 0x66u: r = f64_ge(a, b); break;
    case 0x67u: r = uint(31 - findMSB(a.x)); break;  // findMSB(0) = -1 gives 32
    case 0x68u: r = a.x == 0u ? 32u : uint(findLSB(a.x)); break;
    case 0x69u: r = uint(bitCount(a.x)); break;
    case 0x6Au: r = a.x + b.x; break;
    case 0x6Bu: r = a.x - b.x; break;
    case 0x6Cu: r = a.x * b.x; break;
    case 0x6Du: r = i32_div_s(a.x, b.x, trap); break;
    case 0x6Eu: r = i32_div_u(a.x, b.x, trap); break;
    case 0x6Fu: r = i32_rem_s(a.x, b.x, trap); break;
    case 0x70u: r = i32_rem_u(a.x, b.x, trap); break;
    case 0x71u: r = a.x & b.x; break;
    case 0x72u: r = a.x | b.x; break;
    case 0x73u: r = a.x ^ b.x; break;
    case 0x74u: r = a.x << (b.x & 31u); break;
    case 0x75u: r = uint(int(a.x) >> int(b.x & 31u)); break;
    case 0x76u: r = a.x >> (b.x & 31u); break;
    case 0x77u: r = i32_rotl(a.x, b.x); break;
    case 0x78u: r = i32_rotr(a.x, b.x); break;
    case 0x79u: wide = true; w = i64_clz(a); break;
    case 0x7Au: wide = true; w = i64_ctz(a); break;
    case 0x7Bu: wide = true; w = i64_popcnt(a); break;
    case 0x7Cu: wide = true; w = i64_add(a, b); break;
    case 0x7Du: wide = true; w = i64_sub(a, b); break;
    case 0x7Eu: wide = true; w = i64_mul(a, b); break;
    case 0x7Fu: wide = true; w = i64_div_s(a, b, trap); break;
    case 0x80u: wide = true; w = i64_div_u(a, b, trap); break;
    case 0x81u: wide = true; w = i64_rem_s(a, b, trap); break;
    case 0x82u: wide = true; w = i64_rem_u(a, b, trap); break;
    case 0x83u: wide = true; w = i64_and(a, b); break;
    case 0x84u: wide = true; w = i64_or(a, b); break;
    case 0x85u: wide = true; w = i64_xor(a, b); break;
    case 0x86u: wide = true; w = i64_shl(a, b); break;
    case 0x87u: wide = true; w = i64_shr_s(a, b); break;
    case 0x88u: wide = true; w = i64_shr_u(a, b); break;
    case 0x89u: wide = true; w = i64_rotl(a, b); break;
    case 0x8Au: wide = true; w = i64_rotr(a, b); break;
    case 0x8Bu: r = f32_abs(a.x); break;
    case 0x8Cu: r = f32_neg(a.x); break;
    case 0x8Du: r = f32_ceil(a.x); break;
    case 0x8Eu: r = f32_floor(a.x); break;
    case 0x8Fu: r = f32_trunc(a.x); break;
    case 0x90u: r = f32_nearest(a.x); break;
    case 0x91u: r = f32_sqrt(a.x); break;
    case 0x92u: r = f32_add(a.x, b.x); break;
    case 0x93u: r = f32_sub(a.x, b.x); break;
    case 0x94u: r = f32_mul(a.x, b.x); break;
    case 0x95u: r = f32_div(a.x, b.x); break;
    case 0x96u: r = f32_min(a.x, b.x); break;
    case 0x97u: r = f32_max(a.x, b.x); break;
    case 0x98u: r = f32_copysign(a.x, b.x); break;
    case 0x99u: wide = true; w = f64_abs(a); break;
    case 0x9Au: wide = true; w = f64_neg(a); break;
    case 0x9Bu: wide = true; w = f64_ceil(a); break;
    case 0x9Cu: wide = true; w = f64_floor(a); break;
    case 0x9Du: wide = true; w = f64_trunc(a); break;
    case 0x9Eu: wide = true; w = f64_nearest(a); break;
    case 0x9Fu: wide = true; w = f64_sqrt(a); break;
    case 0xA0u: wide = true; w = f64_add(a, b); break;
    case 0xA1u: wide = true; w = f64_sub(a, b); break;
    case 0xA2u: wide = true; w = f64_mul(a, b); break;
    case 0xA3u: wide = true; w = f64_div(a, b); break;
    case 0xA4u: wide = true; w = f64_min(a, b); break;
    case 0xA5u: wide = true; w = f64_max(a, b); break;
    case 0xA6u: wide = true; w = f64_copysign(a, b); break;
    case 0xA7u: r = i32_wrap_i64(a); break;
    case 0xA8u: r = i32_trunc_f32_s(a.x, trap); break;
    case 0xA9u: r = i32_trunc_f32_u(a.x, trap); break;
    case 0xAAu: r = i32_trunc_f64_s(a, trap); break;
    case 0xABu: r = i32_trunc_f64_u(a, trap); break;
    case 0xACu: wide = true; w = i64_extend_i32_s(a.x); break;
    case 0xADu: wide = true; w = i64_extend_i32_u(a.x); break;
    case 0xAEu: wide = true; w = i64_trunc_f32_s(a.x, trap); break;
    case 0xAFu: wide = true; w = i64_trunc_f32_u(a.x, trap); break;
    case 0xB0u: wide = true; w = i64_trunc_f64_s(a, trap); break;
    case 0xB1u: wide = true; w = i64_trunc_f64_u(a, trap); break;
    case 0xB2u: r = f32_convert_i32_s(a.x); break;
    case 0xB3u: r = f32_convert_i32_u(a.x); break;
    case 0xB4u: r = f32_convert_i64_s(a); break;
    case 0xB5u: r = f32_convert_i64_u(a); break;
    case 0xB6u: r = f32_demote_f64(a); break;
    case 0xB7u: wide = true; w = f64_convert_i32_s(a.x); break;
    case 0xB8u: wide = true; w = f64_convert_i32_u(a.x); break;
    case 0xB9u: wide = true; w = f64_convert_i64_s(a); break;
    case 0xBAu: wide = true; w = f64_convert_i64_u(a); break;
    case 0xBBu: wide = true; w = f64_promote_f32(a.x); break;
    case 0xBCu: r = a.x; break;  // reinterpretations: the bits are already the value
    case 0xBDu: wide = true; w = a; break;
    case 0xBEu: r = a.x; break;
    case 0xBFu: wide = true; w = a; break;
    case 0xC0u: r = i32_extend8_s(a.x); break;
    case 0xC1u: r = i32_extend16_s(a.x); break;
    case 0xC2u: wide = true; w = i64_extend8_s(a); break;
    case 0xC3u: wide = true; w = i64_extend16_s(a); break;
    case 0xC4u: wide = true; w = i64_extend32_s(a); break;
    case 0x100u: r = i32_trunc_sat_f32_s(a.x); break;
    case 0x101u: r = i32_trunc_sat_f32_u(a.x); break;
    case 0x102u: r = i32_trunc_sat_f64_s(a); break;
    case 0x103u: r = i32_trunc_sat_f64_u(a); break;
    case 0x104u: wide = true; w = i64_trunc_sat_f32_s(a.x); break;
    case 0x105u: wide = true; w = i64_trunc_sat_f32_u(a.x); break;
    case 0x106u: wide = true; w = i64_trunc_sat_f64_s(a); break;
    case 0x107u: wide = true; w = i64_trunc_sat_f64_u(a); break;
    default: break;
  }
  return wide ? w : uvec2(r, 0u);
}
