// WebAssembly conversions between f32, f64 and integers, on raw bit patterns (f32 = uint,
// f64 = uvec2, i32 = uint, i64 = uvec2). Needs traps.glsl, u64.glsl, f32.glsl, f64.glsl.
// Every conversion to a float is correctly rounded (nearest, ties to even); NaN results are
// the positive canonical NaN, as everywhere in the library.

// --- f32 <-> f64 --------------------------------------------------------------------------
// Exact: every binary32 value is a binary64 value (subnormals become normal numbers).
uvec2 f64_promote_f32(uint a) {
  if (f32_is_nan(a)) return F64_CANONICAL_NAN;
  uint sign = a & F32_SIGN;
  uint m = a & F32_MAGNITUDE;
  if (m == 0u) return uvec2(0u, sign);
  if (m == F32_INFINITY) return uvec2(0u, sign | F64_INFINITY.y);
  int e = 0;
  uint f = f32_normalized_significand(m, e);  // top bit at 23
  // 23 fraction bits become the top of binary64's 52: 20 in the high word, 3 in the low.
  uint hi = sign | (uint(e - 127 + 1023) << 20) | ((f >> 3u) & 0x000FFFFFu);
  return uvec2(f << 29u, hi);
}

uint f32_demote_f64(uvec2 a) {
  if (f64_is_nan(a)) return F32_CANONICAL_NAN;
  uint sign = a.y & F64_SIGN;
  if (f64_is_zero(a)) return sign;
  if (f64_is_infinite(a)) return sign | F32_INFINITY;
  int e = 0;
  uvec2 f = f64_normalized_significand(f64_magnitude(a), e);  // top bit at 52
  // To the binary32 convention (top bit at 30): drop 22 bits, jamming them into bit 0.
  uint sig = u64_shr_jam(f, 22u).x;
  return f32_round_pack(sign, e - 1023 + 127, sig);
}

// --- integers to floats -------------------------------------------------------------------
// An unsigned 64-bit magnitude to binary32: keep 31 bits (top bit at 30) and jam the rest.
uint f32_from_u64_magnitude(uint sign, uvec2 v) {
  if (u64_is_zero(v)) return sign;
  int top = 63 - int(u64_clz(v));
  uint sig = top <= 30 ? (v.x << uint(30 - top)) : u64_shr_jam(v, uint(top - 30)).x;
  return f32_round_pack(sign, 127 + top, sig);
}

// An unsigned 64-bit magnitude to binary64: top bit to bit 62, jamming bit 0 when the top
// bit is 63 (the only case that loses a bit).
uvec2 f64_from_u64_magnitude(uint sign, uvec2 v) {
  if (u64_is_zero(v)) return uvec2(0u, sign);
  int top = 63 - int(u64_clz(v));
  uvec2 sig = top <= 62 ? u64_shl(v, uint(62 - top)) : u64_shr_jam(v, 1u);
  return f64_round_pack(sign, 1023 + top, sig);
}

WASM_LEAF uint f32_convert_i32_u(uint a) { return f32_from_u64_magnitude(0u, uvec2(a, 0u)); }

uint f32_convert_i32_s(uint a) {
  bool negative = (a >> 31) != 0u;
  return f32_from_u64_magnitude(negative ? F32_SIGN : 0u, uvec2(negative ? 0u - a : a, 0u));
}

WASM_LEAF uint f32_convert_i64_u(uvec2 a) { return f32_from_u64_magnitude(0u, a); }

// The magnitude of INT64_MIN is 2^63, which the unsigned magnitude represents exactly.
uint f32_convert_i64_s(uvec2 a) {
  return f32_from_u64_magnitude(i64_is_negative(a) ? F32_SIGN : 0u, i64_abs_bits(a));
}

WASM_LEAF uvec2 f64_convert_i32_u(uint a) { return f64_from_u64_magnitude(0u, uvec2(a, 0u)); }

uvec2 f64_convert_i32_s(uint a) {
  bool negative = (a >> 31) != 0u;
  return f64_from_u64_magnitude(negative ? F64_SIGN : 0u, uvec2(negative ? 0u - a : a, 0u));
}

WASM_LEAF uvec2 f64_convert_i64_u(uvec2 a) { return f64_from_u64_magnitude(0u, a); }

uvec2 f64_convert_i64_s(uvec2 a) {
  return f64_from_u64_magnitude(i64_is_negative(a) ? F64_SIGN : 0u, i64_abs_bits(a));
}

// --- floats to integers -------------------------------------------------------------------
// Integer kinds of the truncations.
const uint INT_KIND_I32_S = 0u;
const uint INT_KIND_I32_U = 1u;
const uint INT_KIND_I64_S = 2u;
const uint INT_KIND_I64_U = 3u;

// |a| truncated toward zero, for a finite non-NaN binary64; `too_big` when |a| >= 2^64.
uvec2 f64_truncated_magnitude(uvec2 a, OUT(bool) too_big) {
  too_big = false;
  int e = int((a.y >> 20) & 0x7FFu);
  if (e < 1023) return uvec2(0u, 0u);
  if (e >= 1023 + 64) {
    too_big = true;
    return uvec2(0u, 0u);
  }
  uvec2 f = uvec2(a.x, (a.y & 0x000FFFFFu) | 0x00100000u);  // value f * 2^(e - 1075)
  return e >= 1075 ? u64_shl(f, uint(e - 1075)) : u64_shr(f, uint(1075 - e));
}

// Truncation of a binary64 (binary32 operands are promoted first, exactly) to an integer
// kind. Out of range: the trapping form reports "integer overflow" (NaN: "invalid conversion
// to integer") and returns 0; the saturating form clamps, and NaN gives 0. An i32 result is
// in .x with .y = 0.
uvec2 f64_to_int(uvec2 a, uint kind, bool saturate, OUT(uint) trap) {
  trap = WASM_TRAP_NONE;
  if (f64_is_nan(a)) {
    if (!saturate) trap = WASM_TRAP_INVALID_CONVERSION_TO_INTEGER;
    return uvec2(0u, 0u);
  }
  bool negative = (a.y & F64_SIGN) != 0u;
  bool too_big = false;
  uvec2 magnitude = f64_truncated_magnitude(a, too_big);
  // The largest magnitude allowed on each side, and the value that saturation clamps to.
  uvec2 limit = uvec2(0u, 0u);
  uvec2 clamped = uvec2(0u, 0u);
  if (kind == INT_KIND_I32_S) {
    limit = negative ? uvec2(0x80000000u, 0u) : uvec2(0x7FFFFFFFu, 0u);
    clamped = negative ? uvec2(0x80000000u, 0u) : uvec2(0x7FFFFFFFu, 0u);
  } else if (kind == INT_KIND_I32_U) {
    limit = negative ? uvec2(0u, 0u) : uvec2(0xFFFFFFFFu, 0u);
    clamped = limit;
  } else if (kind == INT_KIND_I64_S) {
    limit = negative ? uvec2(0u, 0x80000000u) : uvec2(0xFFFFFFFFu, 0x7FFFFFFFu);
    clamped = negative ? uvec2(0u, 0x80000000u) : uvec2(0xFFFFFFFFu, 0x7FFFFFFFu);
  } else {
    limit = negative ? uvec2(0u, 0u) : uvec2(0xFFFFFFFFu, 0xFFFFFFFFu);
    clamped = limit;
  }
  if (too_big || u64_lt(limit, magnitude)) {
    if (!saturate) {
      trap = WASM_TRAP_INTEGER_OVERFLOW;
      return uvec2(0u, 0u);
    }
    return clamped;
  }
  if (!negative) return magnitude;
  uvec2 value = u64_negate(magnitude);
  // An i32 result lives in the low word only.
  return (kind == INT_KIND_I32_S || kind == INT_KIND_I32_U) ? uvec2(value.x, 0u) : value;
}

uint i32_trunc_f32_s(uint a, OUT(uint) trap) { return f64_to_int(f64_promote_f32(a), INT_KIND_I32_S, false, trap).x; }
uint i32_trunc_f32_u(uint a, OUT(uint) trap) { return f64_to_int(f64_promote_f32(a), INT_KIND_I32_U, false, trap).x; }
uint i32_trunc_f64_s(uvec2 a, OUT(uint) trap) { return f64_to_int(a, INT_KIND_I32_S, false, trap).x; }
uint i32_trunc_f64_u(uvec2 a, OUT(uint) trap) { return f64_to_int(a, INT_KIND_I32_U, false, trap).x; }
uvec2 i64_trunc_f32_s(uint a, OUT(uint) trap) { return f64_to_int(f64_promote_f32(a), INT_KIND_I64_S, false, trap); }
uvec2 i64_trunc_f32_u(uint a, OUT(uint) trap) { return f64_to_int(f64_promote_f32(a), INT_KIND_I64_U, false, trap); }
uvec2 i64_trunc_f64_s(uvec2 a, OUT(uint) trap) { return f64_to_int(a, INT_KIND_I64_S, false, trap); }
uvec2 i64_trunc_f64_u(uvec2 a, OUT(uint) trap) { return f64_to_int(a, INT_KIND_I64_U, false, trap); }

// The saturating forms never trap (the trap code they would see is always 0).
uint i32_trunc_sat_f32_s(uint a) {
  uint unused_trap = 0u;
  return f64_to_int(f64_promote_f32(a), INT_KIND_I32_S, true, unused_trap).x;
}
uint i32_trunc_sat_f32_u(uint a) {
  uint unused_trap = 0u;
  return f64_to_int(f64_promote_f32(a), INT_KIND_I32_U, true, unused_trap).x;
}
uint i32_trunc_sat_f64_s(uvec2 a) {
  uint unused_trap = 0u;
  return f64_to_int(a, INT_KIND_I32_S, true, unused_trap).x;
}
uint i32_trunc_sat_f64_u(uvec2 a) {
  uint unused_trap = 0u;
  return f64_to_int(a, INT_KIND_I32_U, true, unused_trap).x;
}
uvec2 i64_trunc_sat_f32_s(uint a) {
  uint unused_trap = 0u;
  return f64_to_int(f64_promote_f32(a), INT_KIND_I64_S, true, unused_trap);
}
uvec2 i64_trunc_sat_f32_u(uint a) {
  uint unused_trap = 0u;
  return f64_to_int(f64_promote_f32(a), INT_KIND_I64_U, true, unused_trap);
}
uvec2 i64_trunc_sat_f64_s(uvec2 a) {
  uint unused_trap = 0u;
  return f64_to_int(a, INT_KIND_I64_S, true, unused_trap);
}
uvec2 i64_trunc_sat_f64_u(uvec2 a) {
  uint unused_trap = 0u;
  return f64_to_int(a, INT_KIND_I64_U, true, unused_trap);
}

// --- reinterpretations are the identity on bit patterns -------------------------------------
// (i32.reinterpret_f32, f32.reinterpret_i32, i64.reinterpret_f64, f64.reinterpret_i64 need no
// code: the interpreter keeps every value as its bit pattern.)
