// WebAssembly i32 instructions as functions: the ones that need more than one GLSL operator
// (shift counts taken modulo 32, rotations, bit counts, signed comparisons, sign extension)
// and the divisions, which trap. An interpreter may equally use the operators directly for
// add, sub, mul, and, or, xor and the unsigned comparisons. Needs traps.glsl.
//
// Operands and results are uint bit patterns; comparisons return 0 or 1.

WASM_LEAF uint i32_eqz(uint a) { return a == 0u ? 1u : 0u; }
WASM_LEAF uint i32_eq(uint a, uint b) { return a == b ? 1u : 0u; }
WASM_LEAF uint i32_ne(uint a, uint b) { return a != b ? 1u : 0u; }
WASM_LEAF uint i32_lt_u(uint a, uint b) { return a < b ? 1u : 0u; }
WASM_LEAF uint i32_gt_u(uint a, uint b) { return a > b ? 1u : 0u; }
WASM_LEAF uint i32_le_u(uint a, uint b) { return a <= b ? 1u : 0u; }
WASM_LEAF uint i32_ge_u(uint a, uint b) { return a >= b ? 1u : 0u; }
WASM_LEAF uint i32_lt_s(uint a, uint b) { return int(a) < int(b) ? 1u : 0u; }
WASM_LEAF uint i32_gt_s(uint a, uint b) { return int(a) > int(b) ? 1u : 0u; }
WASM_LEAF uint i32_le_s(uint a, uint b) { return int(a) <= int(b) ? 1u : 0u; }
WASM_LEAF uint i32_ge_s(uint a, uint b) { return int(a) >= int(b) ? 1u : 0u; }

WASM_LEAF uint i32_clz(uint a) { return a == 0u ? 32u : uint(31 - findMSB(a)); }
WASM_LEAF uint i32_ctz(uint a) { return a == 0u ? 32u : uint(findLSB(a)); }
WASM_LEAF uint i32_popcnt(uint a) { return uint(bitCount(a)); }

WASM_LEAF uint i32_add(uint a, uint b) { return a + b; }
WASM_LEAF uint i32_sub(uint a, uint b) { return a - b; }
WASM_LEAF uint i32_mul(uint a, uint b) { return a * b; }
WASM_LEAF uint i32_and(uint a, uint b) { return a & b; }
WASM_LEAF uint i32_or(uint a, uint b) { return a | b; }
WASM_LEAF uint i32_xor(uint a, uint b) { return a ^ b; }

// Counts modulo 32: both GLSL and C++ leave a shift by 32 or more undefined.
WASM_LEAF uint i32_shl(uint a, uint count) { return a << (count & 31u); }
WASM_LEAF uint i32_shr_u(uint a, uint count) { return a >> (count & 31u); }
// An int's right shift is arithmetic (sign-filling) in GLSL and in C++20.
WASM_LEAF uint i32_shr_s(uint a, uint count) { return uint(int(a) >> int(count & 31u)); }

uint i32_rotl(uint a, uint count) {
  uint n = count & 31u;
  return n == 0u ? a : ((a << n) | (a >> (32u - n)));
}

uint i32_rotr(uint a, uint count) {
  uint n = count & 31u;
  return n == 0u ? a : ((a >> n) | (a << (32u - n)));
}

WASM_LEAF uint i32_extend8_s(uint a) { return (a & 0x80u) != 0u ? (a | 0xFFFFFF00u) : (a & 0xFFu); }

WASM_LEAF uint i32_extend16_s(uint a) { return (a & 0x8000u) != 0u ? (a | 0xFFFF0000u) : (a & 0xFFFFu); }

// --- i32 division (native 32-bit ops, with the wasm traps) ---------------------------------
uint i32_div_u(uint a, uint b, OUT(uint) trap) {
  if (b == 0u) {
    trap = WASM_TRAP_INTEGER_DIVIDE_BY_ZERO;
    return 0u;
  }
  trap = WASM_TRAP_NONE;
  return a / b;
}

uint i32_rem_u(uint a, uint b, OUT(uint) trap) {
  if (b == 0u) {
    trap = WASM_TRAP_INTEGER_DIVIDE_BY_ZERO;
    return 0u;
  }
  trap = WASM_TRAP_NONE;
  return a % b;
}

// Signed i32 division works on magnitudes: GLSL leaves the sign of `%` on negative
// operands undefined, so no signed division or remainder is used anywhere.
uint i32_div_s(uint a, uint b, OUT(uint) trap) {
  if (b == 0u) {
    trap = WASM_TRAP_INTEGER_DIVIDE_BY_ZERO;
    return 0u;
  }
  if (a == 0x80000000u && b == 0xFFFFFFFFu) {
    trap = WASM_TRAP_INTEGER_OVERFLOW;
    return 0u;
  }
  trap = WASM_TRAP_NONE;
  uint ma = (a >> 31) != 0u ? 0u - a : a;
  uint mb = (b >> 31) != 0u ? 0u - b : b;
  uint q = ma / mb;
  return ((a ^ b) >> 31) != 0u ? 0u - q : q;
}

uint i32_rem_s(uint a, uint b, OUT(uint) trap) {
  if (b == 0u) {
    trap = WASM_TRAP_INTEGER_DIVIDE_BY_ZERO;
    return 0u;
  }
  trap = WASM_TRAP_NONE;
  uint ma = (a >> 31) != 0u ? 0u - a : a;
  uint mb = (b >> 31) != 0u ? 0u - b : b;
  uint r = ma % mb;
  return (a >> 31) != 0u ? 0u - r : r;
}
