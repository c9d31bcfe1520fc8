// Unsigned 64-bit building blocks on uvec2 {x = low word, y = high word}, using only 32-bit
// integer operations so that no device needs shaderInt64. Shared by i64.glsl (the wasm i64
// instructions) and f64.glsl (the binary64 significands).

WASM_LEAF bool u64_is_zero(uvec2 a) { return (a.x | a.y) == 0u; }

WASM_LEAF bool u64_eq(uvec2 a, uvec2 b) { return a.x == b.x && a.y == b.y; }

WASM_LEAF bool u64_lt(uvec2 a, uvec2 b) { return a.y < b.y || (a.y == b.y && a.x < b.x); }

uvec2 u64_add(uvec2 a, uvec2 b) {
  uint carry = 0u;
  uint lo = uaddCarry(a.x, b.x, carry);
  return uvec2(lo, a.y + b.y + carry);
}

uvec2 u64_sub(uvec2 a, uvec2 b) {
  uint borrow = 0u;
  uint lo = usubBorrow(a.x, b.x, borrow);
  return uvec2(lo, a.y - b.y - borrow);
}

WASM_LEAF uvec2 u64_negate(uvec2 a) { return u64_sub(uvec2(0u, 0u), a); }

WASM_LEAF uvec2 u64_or(uvec2 a, uvec2 b) { return uvec2(a.x | b.x, a.y | b.y); }

WASM_LEAF uvec2 u64_and(uvec2 a, uvec2 b) { return uvec2(a.x & b.x, a.y & b.y); }

// Shifts for 0 <= n < 64. (GLSL and C++ leave a 32-bit shift by >= 32 undefined, so each
// case keeps its word shifts below 32.)
uvec2 u64_shl(uvec2 a, uint n) {
  if (n == 0u) return a;
  if (n >= 32u) return uvec2(0u, a.x << (n - 32u));
  return uvec2(a.x << n, (a.y << n) | (a.x >> (32u - n)));
}

uvec2 u64_shr(uvec2 a, uint n) {
  if (n == 0u) return a;
  if (n >= 32u) return uvec2(a.y >> (n - 32u), 0u);
  return uvec2((a.x >> n) | (a.y << (32u - n)), a.y >> n);
}

// Right shift by any n that ORs every shifted-out bit into bit 0 ("jamming"). The result is
// the exact quotient rounded to odd, which keeps later round-to-nearest-even decisions
// correct as long as at least two bits separate bit 0 from the rounding position.
uvec2 u64_shr_jam(uvec2 a, uint n) {
  if (n == 0u) return a;
  if (n >= 64u) return uvec2(u64_is_zero(a) ? 0u : 1u, 0u);
  uvec2 kept = u64_shr(a, n);
  bool lost = !u64_eq(u64_shl(kept, n), a);
  return uvec2(kept.x | (lost ? 1u : 0u), kept.y);
}

// Number of leading zero bits (64 for zero).
uint u64_clz(uvec2 a) {
  if (a.y != 0u) return uint(31 - findMSB(a.y));
  if (a.x != 0u) return uint(63 - findMSB(a.x));
  return 64u;
}

// Full 128-bit product a * b as two 64-bit halves: four 32x32 partial products, summed
// column by column with their carries.
void u64_mul_wide(uvec2 a, uvec2 b, OUT(uvec2) high, OUT(uvec2) low) {
  uint p00_hi = 0u;
  uint p00_lo = 0u;
  uint p01_hi = 0u;
  uint p01_lo = 0u;
  uint p10_hi = 0u;
  uint p10_lo = 0u;
  uint p11_hi = 0u;
  uint p11_lo = 0u;
  umulExtended(a.x, b.x, p00_hi, p00_lo);
  umulExtended(a.x, b.y, p01_hi, p01_lo);
  umulExtended(a.y, b.x, p10_hi, p10_lo);
  umulExtended(a.y, b.y, p11_hi, p11_lo);
  uint c1 = 0u;
  uint c2 = 0u;
  uint w1 = uaddCarry(p00_hi, p01_lo, c1);
  w1 = uaddCarry(w1, p10_lo, c2);
  uint c3 = 0u;
  uint c4 = 0u;
  uint w2 = uaddCarry(p11_lo, p01_hi, c3);
  w2 = uaddCarry(w2, p10_hi, c4);
  uint c5 = 0u;
  w2 = uaddCarry(w2, c1 + c2, c5);
  low = uvec2(p00_lo, w1);
  high = uvec2(w2, p11_hi + c3 + c4 + c5);
}

// Unsigned division with remainder; d must not be zero. Shift-and-subtract long division:
// d is first aligned with n's top bit, so the loop runs once per quotient bit that can be
// set (1 + the difference of the operands' bit lengths, at most 64), and a native 32-bit
// division serves operands that both fit in a word.
uvec2 u64_divmod(uvec2 n, uvec2 d, OUT(uvec2) remainder) {
  if (n.y == 0u && d.y == 0u) {
    remainder = uvec2(n.x % d.x, 0u);
    return uvec2(n.x / d.x, 0u);
  }
  if (u64_lt(n, d)) {
    remainder = n;
    return uvec2(0u, 0u);
  }
  uint shift = u64_clz(d) - u64_clz(n);  // n >= d, so d's top bit is at or below n's
  uvec2 aligned = u64_shl(d, shift);
  uvec2 q = uvec2(0u, 0u);
  uvec2 r = n;
  for (int i = int(shift); i >= 0; --i) {
    q = u64_shl(q, 1u);
    if (!u64_lt(r, aligned)) {
      r = u64_sub(r, aligned);
      q.x |= 1u;
    }
    aligned = u64_shr(aligned, 1u);
  }
  remainder = r;
  return q;
}
