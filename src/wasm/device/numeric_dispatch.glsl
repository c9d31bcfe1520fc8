// Every WebAssembly numeric instruction behind one call, for an interpreter's operand stack
// of 64-bit slots (uvec2): opcodes as the executable form numbers them (docs/ARCHITECTURE.md,
// "Executable form"): 0x45..0xC4 as in the binary format, and 0xFC n (the saturating
// truncations) as 0x100 + n. i32 and f32 operands are read from .x; i32 and f32 results are
// returned in .x with .y = 0. Needs every other file of the library.

// How many operands `opcode` pops (1 or 2), or 0 when it is not a numeric instruction.
uint wasm_numeric_arity(uint opcode) {
  if (opcode >= 0x100u) return opcode <= 0x107u ? 1u : 0u;
  if (opcode < 0x45u || opcode > 0xC4u) return 0u;
  if (opcode == 0x45u || opcode == 0x50u) return 1u;                      // eqz
  if ((opcode >= 0x67u && opcode <= 0x69u) || (opcode >= 0x79u && opcode <= 0x7Bu)) return 1u;  // clz ctz popcnt
  if ((opcode >= 0x8Bu && opcode <= 0x91u) || (opcode >= 0x99u && opcode <= 0x9Fu)) return 1u;  // float unary
  if (opcode >= 0xA7u) return 1u;  // conversions, reinterpretations, sign extensions
  return 2u;
}

// Evaluates numeric instruction `opcode` (wasm_numeric_arity(opcode) != 0) on `a` (the first,
// deeper operand) and `b` (the second, top of stack; ignored by unary instructions). `trap`
// is written on every path: WASM_TRAP_NONE, or the trap of a division or truncation, in
// which case the result is 0. Opcodes that are not numeric instructions return 0.
//
// (Every case assigns and breaks rather than returning: lavapipe miscompiled returns inside
// a large switch; see the device-numerics notes in docs/ARCHITECTURE.md.)
uvec2 wasm_numeric(uint opcode, uvec2 a, uvec2 b, OUT(uint) trap) {
  trap = WASM_TRAP_NONE;
  uvec2 r = uvec2(0u, 0u);
  switch (opcode) {
    case 0x45u: r.x = i32_eqz(a.x); break;
    case 0x46u: r.x = i32_eq(a.x, b.x); break;
    case 0x47u: r.x = i32_ne(a.x, b.x); break;
    case 0x48u: r.x = i32_lt_s(a.x, b.x); break;
    case 0x49u: r.x = i32_lt_u(a.x, b.x); break;
    case 0x4Au: r.x = i32_gt_s(a.x, b.x); break;
    case 0x4Bu: r.x = i32_gt_u(a.x, b.x); break;
    case 0x4Cu: r.x = i32_le_s(a.x, b.x); break;
    case 0x4Du: r.x = i32_le_u(a.x, b.x); break;
    case 0x4Eu: r.x = i32_ge_s(a.x, b.x); break;
    case 0x4Fu: r.x = i32_ge_u(a.x, b.x); break;
    case 0x50u: r.x = i64_eqz(a); break;
    case 0x51u: r.x = i64_eq(a, b); break;
    case 0x52u: r.x = i64_ne(a, b); break;
    case 0x53u: r.x = i64_lt_s(a, b); break;
    case 0x54u: r.x = i64_lt_u(a, b); break;
    case 0x55u: r.x = i64_gt_s(a, b); break;
    case 0x56u: r.x = i64_gt_u(a, b); break;
    case 0x57u: r.x = i64_le_s(a, b); break;
    case 0x58u: r.x = i64_le_u(a, b); break;
    case 0x59u: r.x = i64_ge_s(a, b); break;
    case 0x5Au: r.x = i64_ge_u(a, b); break;
    case 0x5Bu: r.x = f32_eq(a.x, b.x); break;
    case 0x5Cu: r.x = f32_ne(a.x, b.x); break;
    case 0x5Du: r.x = f32_lt(a.x, b.x); break;
    case 0x5Eu: r.x = f32_gt(a.x, b.x); break;
    case 0x5Fu: r.x = f32_le(a.x, b.x); break;
    case 0x60u: r.x = f32_ge(a.x, b.x); break;
    case 0x61u: r.x = f64_eq(a, b); break;
    case 0x62u: r.x = f64_ne(a, b); break;
    case 0x63u: r.x = f64_lt(a, b); break;
    case 0x64u: r.x = f64_gt(a, b); break;
    case 0x65u: r.x = f64_le(a, b); break;
    case 0x66u: r.x = f64_ge(a, b); break;
    case 0x67u: r.x = i32_clz(a.x); break;
    case 0x68u: r.x = i32_ctz(a.x); break;
    case 0x69u: r.x = i32_popcnt(a.x); break;
    case 0x6Au: r.x = i32_add(a.x, b.x); break;
    case 0x6Bu: r.x = i32_sub(a.x, b.x); break;
    case 0x6Cu: r.x = i32_mul(a.x, b.x); break;
    case 0x6Du: r.x = i32_div_s(a.x, b.x, trap); break;
    case 0x6Eu: r.x = i32_div_u(a.x, b.x, trap); break;
    case 0x6Fu: r.x = i32_rem_s(a.x, b.x, trap); break;
    case 0x70u: r.x = i32_rem_u(a.x, b.x, trap); break;
    case 0x71u: r.x = i32_and(a.x, b.x); break;
    case 0x72u: r.x = i32_or(a.x, b.x); break;
    case 0x73u: r.x = i32_xor(a.x, b.x); break;
    case 0x74u: r.x = i32_shl(a.x, b.x); break;
    case 0x75u: r.x = i32_shr_s(a.x, b.x); break;
    case 0x76u: r.x = i32_shr_u(a.x, b.x); break;
    case 0x77u: r.x = i32_rotl(a.x, b.x); break;
    case 0x78u: r.x = i32_rotr(a.x, b.x); break;
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
    case 0x8Bu: r.x = f32_abs(a.x); break;
    case 0x8Cu: r.x = f32_neg(a.x); break;
    case 0x8Du: r.x = f32_ceil(a.x); break;
    case 0x8Eu: r.x = f32_floor(a.x); break;
    case 0x8Fu: r.x = f32_trunc(a.x); break;
    case 0x90u: r.x = f32_nearest(a.x); break;
    case 0x91u: r.x = f32_sqrt(a.x); break;
    case 0x92u: r.x = f32_add(a.x, b.x); break;
    case 0x93u: r.x = f32_sub(a.x, b.x); break;
    case 0x94u: r.x = f32_mul(a.x, b.x); break;
    case 0x95u: r.x = f32_div(a.x, b.x); break;
    case 0x96u: r.x = f32_min(a.x, b.x); break;
    case 0x97u: r.x = f32_max(a.x, b.x); break;
    case 0x98u: r.x = f32_copysign(a.x, b.x); break;
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
    case 0xA7u: r.x = i32_wrap_i64(a); break;
    case 0xA8u: r.x = i32_trunc_f32_s(a.x, trap); break;
    case 0xA9u: r.x = i32_trunc_f32_u(a.x, trap); break;
    case 0xAAu: r.x = i32_trunc_f64_s(a, trap); break;
    case 0xABu: r.x = i32_trunc_f64_u(a, trap); break;
    case 0xACu: r = i64_extend_i32_s(a.x); break;
    case 0xADu: r = i64_extend_i32_u(a.x); break;
    case 0xAEu: r = i64_trunc_f32_s(a.x, trap); break;
    case 0xAFu: r = i64_trunc_f32_u(a.x, trap); break;
    case 0xB0u: r = i64_trunc_f64_s(a, trap); break;
    case 0xB1u: r = i64_trunc_f64_u(a, trap); break;
    case 0xB2u: r.x = f32_convert_i32_s(a.x); break;
    case 0xB3u: r.x = f32_convert_i32_u(a.x); break;
    case 0xB4u: r.x = f32_convert_i64_s(a); break;
    case 0xB5u: r.x = f32_convert_i64_u(a); break;
    case 0xB6u: r.x = f32_demote_f64(a); break;
    case 0xB7u: r = f64_convert_i32_s(a.x); break;
    case 0xB8u: r = f64_convert_i32_u(a.x); break;
    case 0xB9u: r = f64_convert_i64_s(a); break;
    case 0xBAu: r = f64_convert_i64_u(a); break;
    case 0xBBu: r = f64_promote_f32(a.x); break;
    case 0xBCu: r.x = a.x; break;
    case 0xBDu: r = a; break;
    case 0xBEu: r.x = a.x; break;
    case 0xBFu: r = a; break;
    case 0xC0u: r.x = i32_extend8_s(a.x); break;
    case 0xC1u: r.x = i32_extend16_s(a.x); break;
    case 0xC2u: r = i64_extend8_s(a); break;
    case 0xC3u: r = i64_extend16_s(a); break;
    case 0xC4u: r = i64_extend32_s(a); break;
    case 0x100u: r.x = i32_trunc_sat_f32_s(a.x); break;
    case 0x101u: r.x = i32_trunc_sat_f32_u(a.x); break;
    case 0x102u: r.x = i32_trunc_sat_f64_s(a); break;
    case 0x103u: r.x = i32_trunc_sat_f64_u(a); break;
    case 0x104u: r = i64_trunc_sat_f32_s(a.x); break;
    case 0x105u: r = i64_trunc_sat_f32_u(a.x); break;
    case 0x106u: r = i64_trunc_sat_f64_s(a); break;
    case 0x107u: r = i64_trunc_sat_f64_u(a); break;
    default: break;
  }
  return r;
}
