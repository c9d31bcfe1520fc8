// Software IEEE 754 binary32 on raw bit patterns (uint), bit-exact with WebAssembly 2.0:
// round to nearest, ties to even; subnormals kept (never flushed); signed zeros; and the NaN
// rule of the library: every arithmetic operation that returns a NaN returns the positive
// canonical NaN 0x7FC00000. (Wasm allows any canonical NaN when all NaN operands are
// canonical and any arithmetic NaN otherwise; one fixed answer satisfies both and is the
// same on every device.) abs, neg and copysign are bit operations and keep NaN payloads.
//
// Internal significand convention ("sig"): a uint whose bit 30 is the units bit of a normal
// result, with 7 bits below the result's last bit for rounding; a value is
// sig * 2^(e - 127 - 30) for a biased exponent e.

const uint F32_SIGN = 0x80000000u;
const uint F32_MAGNITUDE = 0x7FFFFFFFu;
const uint F32_INFINITY = 0x7F800000u;
const uint F32_CANONICAL_NAN = 0x7FC00000u;
const uint F32_ONE = 0x3F800000u;

WASM_LEAF bool f32_is_nan(uint a) { return (a & F32_MAGNITUDE) > F32_INFINITY; }

// Right shift by any n with the shifted-out bits ORed into bit 0 (see u64_shr_jam).
uint u32_shr_jam(uint a, uint n) {
  if (n == 0u) return a;
  if (n >= 32u) return a != 0u ? 1u : 0u;
  return (a >> n) | ((a << (32u - n)) != 0u ? 1u : 0u);
}

// Rounds sig * 2^(e - 157) to binary32 with the given sign bit. sig's top bit must be bit 30
// whenever e >= 1; below that the value is denormalized first (with jamming, so the one
// rounding below is the only rounding, as IEEE requires for subnormal results).
uint f32_round_pack(uint sign, int e, uint sig) {
  if (e < 1) {
    sig = u32_shr_jam(sig, uint(1 - e));
    e = 1;
  }
  uint rest = sig & 0x7Fu;
  sig = sig >> 7;
  if (rest > 0x40u || (rest == 0x40u && (sig & 1u) != 0u)) sig += 1u;
  // The significand's bit 23 (and a rounding carry into bit 24) adds to the exponent field;
  // the same addition turns a rounded-up subnormal into the smallest normal number.
  if (e - 1 + int(sig >> 23) >= 255) return sign | F32_INFINITY;
  return sign | ((uint(e - 1) << 23) + sig);
}

// Splits a finite nonzero magnitude into a significand with its top bit at bit 23 and the
// matching biased exponent (below 1 for subnormals, which get normalized here).
uint f32_normalized_significand(uint magnitude, OUT(int) e) {
  e = int(magnitude >> 23);
  uint f = magnitude & 0x007FFFFFu;
  if (e != 0) return f | 0x00800000u;
  int shift = 23 - findMSB(f);
  e = 1 - shift;
  return f << uint(shift);
}

// --- arithmetic ---------------------------------------------------------------------------
uint f32_add(uint a, uint b) {
  if (f32_is_nan(a) || f32_is_nan(b)) return F32_CANONICAL_NAN;
  uint ma = a & F32_MAGNITUDE;
  uint mb = b & F32_MAGNITUDE;
  if (ma == F32_INFINITY) return (mb == F32_INFINITY && a != b) ? F32_CANONICAL_NAN : a;
  if (mb == F32_INFINITY) return b;
  if (mb == 0u) return ma == 0u ? (a & b) : a;  // -0 + -0 = -0; -0 + +0 = +0
  if (ma == 0u) return b;
  if (mb > ma) {  // make a the operand of larger magnitude; it gives the result's sign
    uint t = a;
    a = b;
    b = t;
    t = ma;
    ma = mb;
    mb = t;
  }
  int ea = int(ma >> 23);
  int eb = int(mb >> 23);
  uint fa = ma & 0x007FFFFFu;
  uint fb = mb & 0x007FFFFFu;
  if (ea == 0) {  // subnormal: no hidden bit, exponent as for the smallest normal
    ea = 1;
  } else {
    fa |= 0x00800000u;
  }
  if (eb == 0) {
    eb = 1;
  } else {
    fb |= 0x00800000u;
  }
  // Top bit at 29, so a carry fits below bit 31; 6 spare bits make the alignment exact
  // whenever the difference can cancel more than one leading bit.
  fa <<= 6u;
  fb = u32_shr_jam(fb << 6u, uint(ea - eb));
  uint sig = 0u;
  if (((a ^ b) & F32_SIGN) == 0u) {
    sig = fa + fb;
  } else {
    sig = fa - fb;
    if (sig == 0u) return 0u;  // exact cancellation gives +0 in round-to-nearest
  }
  int shift = 30 - findMSB(sig);
  return f32_round_pack(a & F32_SIGN, ea + 1 - shift, sig << uint(shift));
}

WASM_LEAF uint f32_sub(uint a, uint b) { return f32_add(a, b ^ F32_SIGN); }

uint f32_mul(uint a, uint b) {
  if (f32_is_nan(a) || f32_is_nan(b)) return F32_CANONICAL_NAN;
  uint sign = (a ^ b) & F32_SIGN;
  uint ma = a & F32_MAGNITUDE;
  uint mb = b & F32_MAGNITUDE;
  if (ma == F32_INFINITY || mb == F32_INFINITY) {
    return (ma == 0u || mb == 0u) ? F32_CANONICAL_NAN : (sign | F32_INFINITY);
  }
  if (ma == 0u || mb == 0u) return sign;
  int ea = 0;
  int eb = 0;
  uint fa = f32_normalized_significand(ma, ea);
  uint fb = f32_normalized_significand(mb, eb);
  // 24 x 24 bits: the high word of (fa << 7) * (fb << 8) has its top bit at 30 or 29.
  uint hi = 0u;
  uint lo = 0u;
  umulExtended(fa << 7u, fb << 8u, hi, lo);
  int e = ea + eb - 126;
  if (hi < 0x40000000u) {
    hi = (hi << 1u) | (lo >> 31u);
    lo <<= 1u;
    e -= 1;
  }
  return f32_round_pack(sign, e, hi | (lo != 0u ? 1u : 0u));
}

uint f32_div(uint a, uint b) {
  if (f32_is_nan(a) || f32_is_nan(b)) return F32_CANONICAL_NAN;
  uint sign = (a ^ b) & F32_SIGN;
  uint ma = a & F32_MAGNITUDE;
  uint mb = b & F32_MAGNITUDE;
  if (ma == F32_INFINITY) return mb == F32_INFINITY ? F32_CANONICAL_NAN : (sign | F32_INFINITY);
  if (mb == F32_INFINITY) return sign;
  if (mb == 0u) return ma == 0u ? F32_CANONICAL_NAN : (sign | F32_INFINITY);
  if (ma == 0u) return sign;
  int ea = 0;
  int eb = 0;
  uint fa = f32_normalized_significand(ma, ea);
  uint fb = f32_normalized_significand(mb, eb);
  int e = ea - eb + 127;
  if (fa < fb) {  // keep the quotient in [1, 2) so that it fills all 31 bits
    fa <<= 1u;
    e -= 1;
  }
  // Now fb <= fa < 2 * fb.
  // Long division by native 32-bit division (exact here: fb < 2^24, and the partial
  // remainder stays below fb, so remainder << 8 fits in a word): the integer bit is 1, then
  // 30 fraction bits as digits of 8, 8, 8 and 6 bits; a nonzero final remainder is the
  // sticky bit.
  uint r = fa - fb;
  uint q = 1u;
  for (int i = 0; i < 4; ++i) {
    uint k = i == 3 ? 6u : 8u;
    uint numerator = r << k;
    uint digit = numerator / fb;
    r = numerator - digit * fb;
    q = (q << k) | digit;
  }
  return f32_round_pack(sign, e, q | (r != 0u ? 1u : 0u));
}

uint f32_sqrt(uint a) {
  if (f32_is_nan(a)) return F32_CANONICAL_NAN;
  if ((a & F32_MAGNITUDE) == 0u) return a;  // sqrt(-0) = -0
  if ((a & F32_SIGN) != 0u) return F32_CANONICAL_NAN;
  if (a == F32_INFINITY) return a;
  int e = 0;
  uint f = f32_normalized_significand(a, e);
  // a = f * 2^(E - 23) with E unbiased. The radicand R = f << k (k = 27 or 28, chosen so
  // E - 23 - k is even) lies in [2^50, 2^52), so its integer root has 26 bits: 24 for the
  // result, one rounding bit, one spare; a nonzero remainder is the sticky bit.
  int unbiased = e - 127;
  int k = ((unbiased - 23 - 27) & 1) == 0 ? 27 : 28;
  // Digit-by-digit square root, two radicand bits per step, taken from the top of `bits`
  // (R >> 20, which holds all of R's nonzero bits).
  uint bits = f << uint(k - 20);
  uint root = 0u;
  uint rem = 0u;
  for (int i = 0; i < 26; ++i) {
    rem = (rem << 2u) | (bits >> 30u);
    bits <<= 2u;
    uint trial = (root << 2u) | 1u;
    root <<= 1u;
    if (rem >= trial) {
      rem -= trial;
      root |= 1u;
    }
  }
  uint sig = (root << 5u) | (rem != 0u ? 1u : 0u);
  // (The exponent difference is even, so the arithmetic shift halves it exactly.)
  return f32_round_pack(0u, 152 + ((unbiased - 23 - k) >> 1), sig);
}

// --- comparisons (i32 results 0 or 1; false whenever an operand is NaN) --------------------
bool f32_equal(uint a, uint b) {
  if (f32_is_nan(a) || f32_is_nan(b)) return false;
  return a == b || ((a | b) & F32_MAGNITUDE) == 0u;
}

bool f32_less(uint a, uint b) {
  if (f32_is_nan(a) || f32_is_nan(b)) return false;
  if (((a | b) & F32_MAGNITUDE) == 0u) return false;  // -0 == +0
  bool a_negative = (a & F32_SIGN) != 0u;
  bool b_negative = (b & F32_SIGN) != 0u;
  if (a_negative != b_negative) return a_negative;
  // Same sign: magnitudes order like their bit patterns, reversed for negatives.
  return a_negative ? a > b : a < b;
}

WASM_LEAF uint f32_eq(uint a, uint b) { return f32_equal(a, b) ? 1u : 0u; }

WASM_LEAF uint f32_ne(uint a, uint b) { return f32_equal(a, b) ? 0u : 1u; }

WASM_LEAF uint f32_lt(uint a, uint b) { return f32_less(a, b) ? 1u : 0u; }

WASM_LEAF uint f32_gt(uint a, uint b) { return f32_less(b, a) ? 1u : 0u; }

WASM_LEAF uint f32_le(uint a, uint b) { return (f32_less(a, b) || f32_equal(a, b)) ? 1u : 0u; }

WASM_LEAF uint f32_ge(uint a, uint b) { return (f32_less(b, a) || f32_equal(a, b)) ? 1u : 0u; }

// wasm min/max: NaN if either operand is NaN, and -0 < +0.
uint f32_min(uint a, uint b) {
  if (f32_is_nan(a) || f32_is_nan(b)) return F32_CANONICAL_NAN;
  if (f32_less(a, b)) return a;
  if (f32_less(b, a)) return b;
  return a | b;  // equal: identical bits, or zeros where -0 wins
}

uint f32_max(uint a, uint b) {
  if (f32_is_nan(a) || f32_is_nan(b)) return F32_CANONICAL_NAN;
  if (f32_less(a, b)) return b;
  if (f32_less(b, a)) return a;
  return a & b;  // equal: identical bits, or zeros where +0 wins
}

// --- sign operations (bit operations: NaN payloads pass through unchanged) ----------------
WASM_LEAF uint f32_abs(uint a) { return a & F32_MAGNITUDE; }

WASM_LEAF uint f32_neg(uint a) { return a ^ F32_SIGN; }

WASM_LEAF uint f32_copysign(uint a, uint b) { return (a & F32_MAGNITUDE) | (b & F32_SIGN); }

// --- rounding to an integral value ----------------------------------------------------------
const uint ROUND_NEAREST_EVEN = 0u;
const uint ROUND_FLOOR = 1u;
const uint ROUND_CEIL = 2u;
const uint ROUND_TRUNC = 3u;

// Clears the fraction bits of the pattern and, when the mode rounds the magnitude up, adds
// one unit in the last integer place; a carry out of the significand correctly bumps the
// exponent (1.5 -> 2.0).
uint f32_round_to_integral(uint a, uint mode) {
  if (f32_is_nan(a)) return F32_CANONICAL_NAN;
  uint m = a & F32_MAGNITUDE;
  uint sign = a & F32_SIGN;
  int e = int(m >> 23);
  if (e >= 150 || m == 0u) return a;  // already integral (this includes infinity) or zero
  bool negative = sign != 0u;
  if (e < 127) {  // 0 < |a| < 1: the result is 0 or 1 with a's sign
    bool to_one = mode == ROUND_FLOOR ? negative
                  : mode == ROUND_CEIL ? !negative
                  : mode == ROUND_NEAREST_EVEN ? m > 0x3F000000u  // |a| > 0.5; 0.5 ties to 0
                                               : false;
    return sign | (to_one ? F32_ONE : 0u);
  }
  uint fraction_mask = 0x007FFFFFu >> uint(e - 127);
  uint fraction = m & fraction_mask;
  if (fraction == 0u) return a;
  uint whole = m & ~fraction_mask;
  uint unit = fraction_mask + 1u;
  bool up = false;
  if (mode == ROUND_NEAREST_EVEN) {
    uint half_unit = unit >> 1u;
    // The integer's last bit is bit `unit` of the pattern; for e == 127 that is the
    // exponent's lowest bit, set because 127 is odd, matching the integer part 1.
    up = fraction > half_unit || (fraction == half_unit && (whole & unit) != 0u);
  } else if (mode == ROUND_FLOOR) {
    up = negative;
  } else if (mode == ROUND_CEIL) {
    up = !negative;
  }
  return sign | (up ? whole + unit : whole);
}

WASM_LEAF uint f32_nearest(uint a) { return f32_round_to_integral(a, ROUND_NEAREST_EVEN); }

WASM_LEAF uint f32_floor(uint a) { return f32_round_to_integral(a, ROUND_FLOOR); }

WASM_LEAF uint f32_ceil(uint a) { return f32_round_to_integral(a, ROUND_CEIL); }

WASM_LEAF uint f32_trunc(uint a) { return f32_round_to_integral(a, ROUND_TRUNC); }
