// Software IEEE 754 binary64 on raw bit patterns: uvec2 {x = low word, y = high word (sign,
// exponent, top 20 fraction bits)}. Same rules as f32.glsl: round to nearest even, subnormals
// kept, every NaN result is the positive canonical NaN 0x7FF8000000000000, and abs, neg,
// copysign are bit operations. Only 32-bit integer operations are used (via u64.glsl), so
// no device needs shaderFloat64 or shaderInt64.
//
// Internal significand convention: a uvec2 whose bit 62 is the units bit of a normal result,
// with 10 bits below the result's last bit for rounding; a value is
// sig * 2^(e - 1023 - 62) for a biased exponent e.

const uint F64_SIGN = 0x80000000u;  // in the high word
const uvec2 F64_INFINITY = uvec2(0u, 0x7FF00000u);
const uvec2 F64_CANONICAL_NAN = uvec2(0u, 0x7FF80000u);
const uvec2 F64_ONE = uvec2(0u, 0x3FF00000u);

WASM_LEAF uvec2 f64_magnitude(uvec2 a) { return uvec2(a.x, a.y & 0x7FFFFFFFu); }

bool f64_is_nan(uvec2 a) {
  uint hi = a.y & 0x7FFFFFFFu;
  return hi > 0x7FF00000u || (hi == 0x7FF00000u && a.x != 0u);
}

WASM_LEAF bool f64_is_infinite(uvec2 a) { return (a.y & 0x7FFFFFFFu) == 0x7FF00000u && a.x == 0u; }

WASM_LEAF bool f64_is_zero(uvec2 a) { return ((a.y & 0x7FFFFFFFu) | a.x) == 0u; }

// Rounds sig * 2^(e - 1085) to binary64 with the given sign bit (high-word position). sig's
// top bit must be bit 62 whenever e >= 1; below that the value is denormalized first.
uvec2 f64_round_pack(uint sign, int e, uvec2 sig) {
  if (e < 1) {
    sig = u64_shr_jam(sig, uint(1 - e));
    e = 1;
  }
  uint rest = sig.x & 0x3FFu;
  sig = u64_shr(sig, 10u);
  if (rest > 0x200u || (rest == 0x200u && (sig.x & 1u) != 0u)) sig = u64_add(sig, uvec2(1u, 0u));
  // As in f32_round_pack: the significand's bit 52 (and a rounding carry into bit 53) adds
  // to the exponent field.
  if (e - 1 + int(sig.y >> 20) >= 2047) return uvec2(0u, sign | F64_INFINITY.y);
  return uvec2(sig.x, sign | ((uint(e - 1) << 20) + sig.y));
}

// Splits a finite nonzero magnitude into a significand with its top bit at bit 52 and the
// matching biased exponent (below 1 for subnormals, which get normalized here).
uvec2 f64_normalized_significand(uvec2 magnitude, OUT(int) e) {
  e = int(magnitude.y >> 20);
  uvec2 f = uvec2(magnitude.x, magnitude.y & 0x000FFFFFu);
  if (e != 0) return uvec2(f.x, f.y | 0x00100000u);
  int shift = int(u64_clz(f)) - 11;
  e = 1 - shift;
  return u64_shl(f, uint(shift));
}

// --- arithmetic ---------------------------------------------------------------------------
uvec2 f64_add(uvec2 a, uvec2 b) {
  if (f64_is_nan(a) || f64_is_nan(b)) return F64_CANONICAL_NAN;
  uvec2 ma = f64_magnitude(a);
  uvec2 mb = f64_magnitude(b);
  if (f64_is_infinite(a)) return (f64_is_infinite(b) && !u64_eq(a, b)) ? F64_CANONICAL_NAN : a;
  if (f64_is_infinite(b)) return b;
  if (u64_is_zero(mb)) return u64_is_zero(ma) ? u64_and(a, b) : a;  // -0 + -0 = -0 only
  if (u64_is_zero(ma)) return b;
  if (u64_lt(ma, mb)) {  // make a the operand of larger magnitude; it gives the result's sign
    uvec2 t = a;
    a = b;
    b = t;
    t = ma;
    ma = mb;
    mb = t;
  }
  int ea = int(ma.y >> 20);
  int eb = int(mb.y >> 20);
  uvec2 fa = uvec2(ma.x, ma.y & 0x000FFFFFu);
  uvec2 fb = uvec2(mb.x, mb.y & 0x000FFFFFu);
  if (ea == 0) {  // subnormal: no hidden bit, exponent as for the smallest normal
    ea = 1;
  } else {
    fa.y |= 0x00100000u;
  }
  if (eb == 0) {
    eb = 1;
  } else {
    fb.y |= 0x00100000u;
  }
  // Top bit at 61, so a carry fits below bit 63; 9 spare bits make the alignment exact
  // whenever the difference can cancel more than one leading bit.
  fa = u64_shl(fa, 9u);
  fb = u64_shr_jam(u64_shl(fb, 9u), uint(ea - eb));
  uvec2 sig = uvec2(0u, 0u);
  if (((a.y ^ b.y) & F64_SIGN) == 0u) {
    sig = u64_add(fa, fb);
  } else {
    sig = u64_sub(fa, fb);
    if (u64_is_zero(sig)) return uvec2(0u, 0u);  // exact cancellation gives +0
  }
  int shift = int(u64_clz(sig)) - 1;
  return f64_round_pack(a.y & F64_SIGN, ea + 1 - shift, u64_shl(sig, uint(shift)));
}

WASM_LEAF uvec2 f64_sub(uvec2 a, uvec2 b) { return f64_add(a, uvec2(b.x, b.y ^ F64_SIGN)); }

uvec2 f64_mul(uvec2 a, uvec2 b) {
  if (f64_is_nan(a) || f64_is_nan(b)) return F64_CANONICAL_NAN;
  uint sign = (a.y ^ b.y) & F64_SIGN;
  bool a_zero = f64_is_zero(a);
  bool b_zero = f64_is_zero(b);
  if (f64_is_infinite(a) || f64_is_infinite(b)) {
    return (a_zero || b_zero) ? F64_CANONICAL_NAN : uvec2(0u, sign | F64_INFINITY.y);
  }
  if (a_zero || b_zero) return uvec2(0u, sign);
  int ea = 0;
  int eb = 0;
  uvec2 fa = f64_normalized_significand(f64_magnitude(a), ea);
  uvec2 fb = f64_normalized_significand(f64_magnitude(b), eb);
  // 53 x 53 bits: the high half of (fa << 10) * (fb << 11) has its top bit at 62 or 61.
  uvec2 hi = uvec2(0u, 0u);
  uvec2 lo = uvec2(0u, 0u);
  u64_mul_wide(u64_shl(fa, 10u), u64_shl(fb, 11u), hi, lo);
  int e = ea + eb - 1022;
  if ((hi.y >> 30) == 0u) {
    hi = u64_or(u64_shl(hi, 1u), uvec2(lo.y >> 31, 0u));
    lo = u64_shl(lo, 1u);
    e -= 1;
  }
  return f64_round_pack(sign, e, uvec2(hi.x | (u64_is_zero(lo) ? 0u : 1u), hi.y));
}

uvec2 f64_div(uvec2 a, uvec2 b) {
  if (f64_is_nan(a) || f64_is_nan(b)) return F64_CANONICAL_NAN;
  uint sign = (a.y ^ b.y) & F64_SIGN;
  uvec2 signed_zero = uvec2(0u, sign);
  uvec2 signed_infinity = uvec2(0u, sign | F64_INFINITY.y);
  if (f64_is_infinite(a)) return f64_is_infinite(b) ? F64_CANONICAL_NAN : signed_infinity;
  if (f64_is_infinite(b)) return signed_zero;
  if (f64_is_zero(b)) return f64_is_zero(a) ? F64_CANONICAL_NAN : signed_infinity;
  if (f64_is_zero(a)) return signed_zero;
  int ea = 0;
  int eb = 0;
  uvec2 fa = f64_normalized_significand(f64_magnitude(a), ea);
  uvec2 fb = f64_normalized_significand(f64_magnitude(b), eb);
  int e = ea - eb + 1023;
  if (u64_lt(fa, fb)) {  // keep the quotient in [1, 2) so that it fills all 63 bits
    fa = u64_shl(fa, 1u);
    e -= 1;
  }
  // Long division with 11-bit digits (fa < 2 * fb): the integer bit is 1, then 62
  // fraction bits as five 11-bit digits and one 7-bit digit. A digit is estimated with a
  // native 32-bit division of the partial remainder's top bits by fb's top 16 bits plus one,
  // which never overestimates and (with fb's top 16 bits >= 2^15 and the numerator < 2^27)
  // falls short by at most one, so one conditional correction makes it exact. The
  // remainder stays below fb < 2^53, so remainder << 11 fits in 64 bits.
  uvec2 r = u64_sub(fa, fb);
  uvec2 q = uvec2(1u, 0u);
  uint divisor_top = (fb.y >> 5) + 1u;  // fb >> 37, plus one
  for (int i = 0; i < 6; ++i) {
    uint k = i == 5 ? 7u : 11u;
    r = u64_shl(r, k);
    uvec2 numerator_top = u64_shr(r, 37u);  // below 2^27: fits in .x
    uint digit = numerator_top.x / divisor_top;
    uint product_hi = 0u;
    uint product_lo = 0u;
    umulExtended(fb.x, digit, product_hi, product_lo);
    r = u64_sub(r, uvec2(product_lo, product_hi + fb.y * digit));
    if (!u64_lt(r, fb)) {
      r = u64_sub(r, fb);
      digit += 1u;
    }
    q = u64_or(u64_shl(q, k), uvec2(digit, 0u));
  }
  return f64_round_pack(sign, e, uvec2(q.x | (u64_is_zero(r) ? 0u : 1u), q.y));
}

uvec2 f64_sqrt(uvec2 a) {
  if (f64_is_nan(a)) return F64_CANONICAL_NAN;
  if (f64_is_zero(a)) return a;  // sqrt(-0) = -0
  if ((a.y & F64_SIGN) != 0u) return F64_CANONICAL_NAN;
  if (f64_is_infinite(a)) return a;
  int e = 0;
  uvec2 f = f64_normalized_significand(a, e);
  // a = f * 2^(E - 52) with E unbiased. The radicand R = f << k (k = 56 or 57, chosen so
  // E - 52 - k is even) lies in [2^108, 2^110), so its integer root has 55 bits: 53 for the
  // result, one rounding bit, one spare; a nonzero remainder is the sticky bit.
  int unbiased = e - 1023;
  int k = ((unbiased - 52 - 56) & 1) == 0 ? 56 : 57;
  // Digit-by-digit square root, two radicand bits per step from the top of R >> 46 (which
  // holds all of R's nonzero bits). While the root has at most 26 bits the remainder (at
  // most 2 * root) fits in 32 bits, so the first 26 steps use plain uint arithmetic, reading
  // the radicand's high word and then its low word; the last 29 steps use 64-bit pairs.
  uvec2 bits = u64_shl(f, uint(k - 46));
  uint root32 = 0u;
  uint rem32 = 0u;
  uint word = bits.y;
  for (int i = 0; i < 26; ++i) {
    if (i == 16) word = bits.x;
    rem32 = (rem32 << 2u) | (word >> 30u);
    word <<= 2u;
    uint trial32 = (root32 << 2u) | 1u;
    root32 <<= 1u;
    if (rem32 >= trial32) {
      rem32 -= trial32;
      root32 |= 1u;
    }
  }
  uvec2 root = uvec2(root32, 0u);
  uvec2 rem = uvec2(rem32, 0u);
  for (int i = 26; i < 55; ++i) {  // `word` still holds the low word's last 12 bits, then 0
    rem = u64_or(u64_shl(rem, 2u), uvec2(word >> 30u, 0u));
    word <<= 2u;
    uvec2 trial = u64_or(u64_shl(root, 2u), uvec2(1u, 0u));
    root = u64_shl(root, 1u);
    if (!u64_lt(rem, trial)) {
      rem = u64_sub(rem, trial);
      root.x |= 1u;
    }
  }
  uvec2 sig = u64_shl(root, 8u);
  sig.x |= u64_is_zero(rem) ? 0u : 1u;
  // (The exponent difference is even, so the arithmetic shift halves it exactly.)
  return f64_round_pack(0u, 1077 + ((unbiased - 52 - k) >> 1), sig);
}

// --- comparisons (i32 results 0 or 1; false whenever an operand is NaN) --------------------
bool f64_equal(uvec2 a, uvec2 b) {
  if (f64_is_nan(a) || f64_is_nan(b)) return false;
  return u64_eq(a, b) || (f64_is_zero(a) && f64_is_zero(b));
}

bool f64_less(uvec2 a, uvec2 b) {
  if (f64_is_nan(a) || f64_is_nan(b)) return false;
  if (f64_is_zero(a) && f64_is_zero(b)) return false;  // -0 == +0
  bool a_negative = (a.y & F64_SIGN) != 0u;
  bool b_negative = (b.y & F64_SIGN) != 0u;
  if (a_negative != b_negative) return a_negative;
  // Same sign: magnitudes order like their bit patterns, reversed for negatives.
  return a_negative ? u64_lt(b, a) : u64_lt(a, b);
}

WASM_LEAF uint f64_eq(uvec2 a, uvec2 b) { return f64_equal(a, b) ? 1u : 0u; }

WASM_LEAF uint f64_ne(uvec2 a, uvec2 b) { return f64_equal(a, b) ? 0u : 1u; }

WASM_LEAF uint f64_lt(uvec2 a, uvec2 b) { return f64_less(a, b) ? 1u : 0u; }

WASM_LEAF uint f64_gt(uvec2 a, uvec2 b) { return f64_less(b, a) ? 1u : 0u; }

WASM_LEAF uint f64_le(uvec2 a, uvec2 b) { return (f64_less(a, b) || f64_equal(a, b)) ? 1u : 0u; }

WASM_LEAF uint f64_ge(uvec2 a, uvec2 b) { return (f64_less(b, a) || f64_equal(a, b)) ? 1u : 0u; }

// wasm min/max: NaN if either operand is NaN, and -0 < +0.
uvec2 f64_min(uvec2 a, uvec2 b) {
  if (f64_is_nan(a) || f64_is_nan(b)) return F64_CANONICAL_NAN;
  if (f64_less(a, b)) return a;
  if (f64_less(b, a)) return b;
  return u64_or(a, b);  // equal: identical bits, or zeros where -0 wins
}

uvec2 f64_max(uvec2 a, uvec2 b) {
  if (f64_is_nan(a) || f64_is_nan(b)) return F64_CANONICAL_NAN;
  if (f64_less(a, b)) return b;
  if (f64_less(b, a)) return a;
  return u64_and(a, b);  // equal: identical bits, or zeros where +0 wins
}

// --- sign operations (bit operations: NaN payloads pass through unchanged) ----------------
WASM_LEAF uvec2 f64_abs(uvec2 a) { return uvec2(a.x, a.y & 0x7FFFFFFFu); }

WASM_LEAF uvec2 f64_neg(uvec2 a) { return uvec2(a.x, a.y ^ F64_SIGN); }

WASM_LEAF uvec2 f64_copysign(uvec2 a, uvec2 b) { return uvec2(a.x, (a.y & 0x7FFFFFFFu) | (b.y & F64_SIGN)); }

// --- rounding to an integral value (modes as in f32.glsl) ---------------------------------
uvec2 f64_round_to_integral(uvec2 a, uint mode) {
  if (f64_is_nan(a)) return F64_CANONICAL_NAN;
  uvec2 m = f64_magnitude(a);
  uint sign = a.y & F64_SIGN;
  int e = int(m.y >> 20);
  if (e >= 1075 || u64_is_zero(m)) return a;  // already integral (this includes infinity) or zero
  bool negative = sign != 0u;
  if (e < 1023) {  // 0 < |a| < 1: the result is 0 or 1 with a's sign
    bool to_one = mode == ROUND_FLOOR ? negative
                  : mode == ROUND_CEIL ? !negative
                  : mode == ROUND_NEAREST_EVEN ? u64_lt(uvec2(0u, 0x3FE00000u), m)  // |a| > 0.5
                                               : false;
    return uvec2(0u, sign | (to_one ? F64_ONE.y : 0u));
  }
  uvec2 fraction_mask = u64_shr(uvec2(0xFFFFFFFFu, 0x000FFFFFu), uint(e - 1023));
  uvec2 fraction = u64_and(m, fraction_mask);
  if (u64_is_zero(fraction)) return a;
  uvec2 whole = uvec2(m.x & ~fraction_mask.x, m.y & ~fraction_mask.y);
  uvec2 unit = u64_add(fraction_mask, uvec2(1u, 0u));
  bool up = false;
  if (mode == ROUND_NEAREST_EVEN) {
    uvec2 half_unit = u64_shr(unit, 1u);
    // For e == 1023 the integer's last bit is the exponent's lowest bit, set because 1023 is
    // odd, matching the integer part 1.
    bool odd = !u64_is_zero(u64_and(whole, unit));
    up = u64_lt(half_unit, fraction) || (u64_eq(fraction, half_unit) && odd);
  } else if (mode == ROUND_FLOOR) {
    up = negative;
  } else if (mode == ROUND_CEIL) {
    up = !negative;
  }
  uvec2 result = up ? u64_add(whole, unit) : whole;
  return uvec2(result.x, result.y | sign);
}

WASM_LEAF uvec2 f64_nearest(uvec2 a) { return f64_round_to_integral(a, ROUND_NEAREST_EVEN); }

WASM_LEAF uvec2 f64_floor(uvec2 a) { return f64_round_to_integral(a, ROUND_FLOOR); }

WASM_LEAF uvec2 f64_ceil(uvec2 a) { return f64_round_to_integral(a, ROUND_CEIL); }

WASM_LEAF uvec2 f64_trunc(uvec2 a) { return f64_round_to_integral(a, ROUND_TRUNC); }
