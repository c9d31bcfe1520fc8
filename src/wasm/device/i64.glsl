// The WebAssembly i64 instructions on uvec2 {x = low word, y = high word}, with 32-bit
// operations only. Needs traps.glsl, u64.glsl and i32.glsl.
//
// Types follow the wasm signatures: i32 operands and results are uint, i64 are uvec2,
// comparisons return an i32 0/1. Shift and rotate counts are taken modulo 64 as wasm says.

const uvec2 I64_MIN = uvec2(0u, 0x80000000u);

WASM_LEAF bool i64_is_negative(uvec2 a) { return (a.y >> 31) != 0u; }

WASM_LEAF uvec2 i64_abs_bits(uvec2 a) { return i64_is_negative(a) ? u64_negate(a) : a; }

// --- arithmetic ---------------------------------------------------------------------------
WASM_LEAF uvec2 i64_add(uvec2 a, uvec2 b) { return u64_add(a, b); }

WASM_LEAF uvec2 i64_sub(uvec2 a, uvec2 b) { return u64_sub(a, b); }

// The low 64 bits of the product are the same for signed and unsigned operands.
uvec2 i64_mul(uvec2 a, uvec2 b) {
  uint hi = 0u;
  uint lo = 0u;
  umulExtended(a.x, b.x, hi, lo);
  return uvec2(lo, hi + a.x * b.y + a.y * b.x);
}

uvec2 i64_div_u(uvec2 a, uvec2 b, OUT(uint) trap) {
  uvec2 r = uvec2(0u, 0u);
  if (u64_is_zero(b)) {
    trap = WASM_TRAP_INTEGER_DIVIDE_BY_ZERO;
    return uvec2(0u, 0u);
  }
  trap = WASM_TRAP_NONE;
  return u64_divmod(a, b, r);
}

uvec2 i64_rem_u(uvec2 a, uvec2 b, OUT(uint) trap) {
  uvec2 r = uvec2(0u, 0u);
  if (u64_is_zero(b)) {
    trap = WASM_TRAP_INTEGER_DIVIDE_BY_ZERO;
    return uvec2(0u, 0u);
  }
  trap = WASM_TRAP_NONE;
  u64_divmod(a, b, r);
  return r;
}

// Signed division truncates toward zero: divide the magnitudes, then negate when the signs
// differ. INT64_MIN / -1 is the one quotient that does not fit.
uvec2 i64_div_s(uvec2 a, uvec2 b, OUT(uint) trap) {
  uvec2 r = uvec2(0u, 0u);
  if (u64_is_zero(b)) {
    trap = WASM_TRAP_INTEGER_DIVIDE_BY_ZERO;
    return uvec2(0u, 0u);
  }
  if (u64_eq(a, I64_MIN) && u64_eq(b, uvec2(0xFFFFFFFFu, 0xFFFFFFFFu))) {
    trap = WASM_TRAP_INTEGER_OVERFLOW;
    return uvec2(0u, 0u);
  }
  trap = WASM_TRAP_NONE;
  uvec2 q = u64_divmod(i64_abs_bits(a), i64_abs_bits(b), r);
  return i64_is_negative(a) != i64_is_negative(b) ? u64_negate(q) : q;
}

// The remainder takes the dividend's sign; INT64_MIN % -1 is 0 and does not trap.
uvec2 i64_rem_s(uvec2 a, uvec2 b, OUT(uint) trap) {
  uvec2 r = uvec2(0u, 0u);
  if (u64_is_zero(b)) {
    trap = WASM_TRAP_INTEGER_DIVIDE_BY_ZERO;
    return uvec2(0u, 0u);
  }
  trap = WASM_TRAP_NONE;
  u64_divmod(i64_abs_bits(a), i64_abs_bits(b), r);
  return i64_is_negative(a) ? u64_negate(r) : r;
}

// --- bitwise ------------------------------------------------------------------------------
WASM_LEAF uvec2 i64_and(uvec2 a, uvec2 b) { return uvec2(a.x & b.x, a.y & b.y); }

WASM_LEAF uvec2 i64_or(uvec2 a, uvec2 b) { return uvec2(a.x | b.x, a.y | b.y); }

WASM_LEAF uvec2 i64_xor(uvec2 a, uvec2 b) { return uvec2(a.x ^ b.x, a.y ^ b.y); }

WASM_LEAF uvec2 i64_shl(uvec2 a, uvec2 count) { return u64_shl(a, count.x & 63u); }

WASM_LEAF uvec2 i64_shr_u(uvec2 a, uvec2 count) { return u64_shr(a, count.x & 63u); }

// Arithmetic shift: the logical shift, with the vacated top bits filled by the sign.
uvec2 i64_shr_s(uvec2 a, uvec2 count) {
  uint n = count.x & 63u;
  uvec2 shifted = u64_shr(a, n);
  if (n == 0u || !i64_is_negative(a)) return shifted;
  uvec2 fill = u64_shl(uvec2(0xFFFFFFFFu, 0xFFFFFFFFu), 64u - n);
  return u64_or(shifted, fill);
}

uvec2 i64_rotl(uvec2 a, uvec2 count) {
  uint n = count.x & 63u;
  if (n == 0u) return a;
  return u64_or(u64_shl(a, n), u64_shr(a, 64u - n));
}

uvec2 i64_rotr(uvec2 a, uvec2 count) {
  uint n = count.x & 63u;
  if (n == 0u) return a;
  return u64_or(u64_shr(a, n), u64_shl(a, 64u - n));
}

WASM_LEAF uvec2 i64_clz(uvec2 a) { return uvec2(u64_clz(a), 0u); }

uvec2 i64_ctz(uvec2 a) {
  if (a.x != 0u) return uvec2(uint(findLSB(a.x)), 0u);
  if (a.y != 0u) return uvec2(32u + uint(findLSB(a.y)), 0u);
  return uvec2(64u, 0u);
}

WASM_LEAF uvec2 i64_popcnt(uvec2 a) { return uvec2(uint(bitCount(a.x) + bitCount(a.y)), 0u); }

// --- comparisons (i32 results 0 or 1) -----------------------------------------------------
WASM_LEAF uint i64_eqz(uvec2 a) { return u64_is_zero(a) ? 1u : 0u; }

WASM_LEAF uint i64_eq(uvec2 a, uvec2 b) { return u64_eq(a, b) ? 1u : 0u; }

WASM_LEAF uint i64_ne(uvec2 a, uvec2 b) { return u64_eq(a, b) ? 0u : 1u; }

WASM_LEAF uint i64_lt_u(uvec2 a, uvec2 b) { return u64_lt(a, b) ? 1u : 0u; }

// Signed order is unsigned order after flipping both sign bits.
uint i64_lt_s(uvec2 a, uvec2 b) {
  return u64_lt(uvec2(a.x, a.y ^ 0x80000000u), uvec2(b.x, b.y ^ 0x80000000u)) ? 1u : 0u;
}

WASM_LEAF uint i64_gt_u(uvec2 a, uvec2 b) { return i64_lt_u(b, a); }

WASM_LEAF uint i64_gt_s(uvec2 a, uvec2 b) { return i64_lt_s(b, a); }

WASM_LEAF uint i64_le_u(uvec2 a, uvec2 b) { return 1u - i64_lt_u(b, a); }

WASM_LEAF uint i64_le_s(uvec2 a, uvec2 b) { return 1u - i64_lt_s(b, a); }

WASM_LEAF uint i64_ge_u(uvec2 a, uvec2 b) { return 1u - i64_lt_u(a, b); }

WASM_LEAF uint i64_ge_s(uvec2 a, uvec2 b) { return 1u - i64_lt_s(a, b); }

// --- width changes and sign extension -----------------------------------------------------
WASM_LEAF uint i32_wrap_i64(uvec2 a) { return a.x; }

WASM_LEAF uvec2 i64_extend_i32_u(uint a) { return uvec2(a, 0u); }

WASM_LEAF uvec2 i64_extend_i32_s(uint a) { return uvec2(a, (a >> 31) != 0u ? 0xFFFFFFFFu : 0u); }

WASM_LEAF uvec2 i64_extend8_s(uvec2 a) { return i64_extend_i32_s(i32_extend8_s(a.x)); }

WASM_LEAF uvec2 i64_extend16_s(uvec2 a) { return i64_extend_i32_s(i32_extend16_s(a.x)); }

WASM_LEAF uvec2 i64_extend32_s(uvec2 a) { return i64_extend_i32_s(a.x); }
