// Makes the device-code subset of GLSL compile as C++20 (the `cpu` device and the tests).
//
// Device code (numerics, interpreter, WASI) is written once in a C-like subset of GLSL 4.50:
// `uint`, `int`, `bool`, `uvec2`, structs, fixed-size arrays, `out`/`inout` parameters spelled
// OUT(T)/INOUT(T), and the few GLSL integer builtins defined below. This header supplies
// exactly those names with GLSL's semantics, so the same text means the same thing on every
// device. No floating-point type appears here or in the numerics: floats are raw bit patterns
// (f32 = uint, f64 = uvec2 {x = low word, y = high word}).
//
// Include device .glsl files inside namespace wavestack::wasm::device (see numerics.hpp).
#pragma once

#include <bit>
#include <cstdint>

// A helper of a few instructions that compiled units call in every block: always inlined,
// since the cpu device's fast tier runs no inliner. As calls, `a + b` was a call and every
// uvec2 temporary stayed in memory (its constructor took its address): the fast tier's code
// ran 3 to 20 times slower than with them inlined, which costs that tier's builds about half
// again as long (docs/PERFORMANCE.md). prelude.glsl defines it empty.
#define WASM_LEAF [[gnu::always_inline]] inline

namespace wavestack::wasm::device {

using uint = std::uint32_t;

// GLSL's uvec2 and uvec4, reduced to what the subset uses: construction from all components,
// the component members, and == / != on whole vectors (GLSL compares all components).
// Swizzles and component-wise arithmetic are not part of the subset.
struct uvec2 {
  uint x = 0;
  uint y = 0;
  WASM_LEAF constexpr uvec2() = default;
  WASM_LEAF constexpr uvec2(uint x_value, uint y_value) : x(x_value), y(y_value) {}
  friend constexpr bool operator==(uvec2 a, uvec2 b) = default;
};

struct uvec4 {
  uint x = 0;
  uint y = 0;
  uint z = 0;
  uint w = 0;
  WASM_LEAF constexpr uvec4() = default;
  WASM_LEAF constexpr uvec4(uint x_value, uint y_value, uint z_value, uint w_value)
      : x(x_value), y(y_value), z(z_value), w(w_value) {}
  friend constexpr bool operator==(uvec4 a, uvec4 b) = default;
};

// Integer builtins of GLSL 4.50 (section 8.8), with GLSL's signatures: results through out
// parameters, bit indices as int, -1 when there is no set bit.
WASM_LEAF uint uaddCarry(uint x, uint y, uint& carry) {
  const uint sum = x + y;
  carry = sum < x ? 1u : 0u;
  return sum;
}

WASM_LEAF uint usubBorrow(uint x, uint y, uint& borrow) {
  borrow = x < y ? 1u : 0u;
  return x - y;
}

WASM_LEAF void umulExtended(uint x, uint y, uint& msb, uint& lsb) {
  const std::uint64_t product = std::uint64_t{x} * y;
  msb = static_cast<uint>(product >> 32);
  lsb = static_cast<uint>(product);
}

WASM_LEAF int findMSB(uint value) {
  return value == 0u ? -1 : 31 - std::countl_zero(value);
}
WASM_LEAF int findLSB(uint value) {
  return value == 0u ? -1 : std::countr_zero(value);
}
WASM_LEAF int bitCount(uint value) {
  return std::popcount(value);
}
WASM_LEAF uint bitfieldReverse(uint value) {
  uint result = 0u;
  for (int i = 0; i < 32; ++i) result |= ((value >> i) & 1u) << (31 - i);
  return result;
}

// bitfieldExtract/Insert: GLSL leaves offset < 0, bits < 0 and offset + bits > 32 undefined;
// within that range these match it, including bits == 0 (result 0 / base unchanged) and
// bits == 32 (where a shift by 32 must be avoided).
WASM_LEAF uint bitfield_mask(int bits) {
  return bits >= 32 ? 0xFFFFFFFFu : (1u << bits) - 1u;
}
WASM_LEAF uint bitfieldExtract(uint value, int offset, int bits) {
  return bits == 0 ? 0u : (value >> offset) & bitfield_mask(bits);
}
// The signed form sign-extends the field from its top bit.
WASM_LEAF int bitfieldExtract(int value, int offset, int bits) {
  if (bits == 0) return 0;
  const uint field = (static_cast<uint>(value) >> offset) & bitfield_mask(bits);
  const uint sign = bits >= 32 ? 0u : ~bitfield_mask(bits);
  return static_cast<int>(((field >> (bits - 1)) & 1u) != 0u ? (field | sign) : field);
}
WASM_LEAF uint bitfieldInsert(uint base, uint insert, int offset, int bits) {
  if (bits == 0) return base;
  const uint mask = bitfield_mask(bits) << offset;
  return (base & ~mask) | ((insert << offset) & mask);
}

// min/max/clamp for the two integer types (GLSL's overloads; mixing uint and int is a
// compile error in C++ and needs an explicit conversion in GLSL anyway).
WASM_LEAF uint min(uint a, uint b) {
  return a < b ? a : b;
}
WASM_LEAF uint max(uint a, uint b) {
  return a > b ? a : b;
}
WASM_LEAF int min(int a, int b) {
  return a < b ? a : b;
}
WASM_LEAF int max(int a, int b) {
  return a > b ? a : b;
}
WASM_LEAF uint clamp(uint value, uint low, uint high) {
  return min(max(value, low), high);
}
WASM_LEAF int clamp(int value, int low, int high) {
  return min(max(value, low), high);
}

}  // namespace wavestack::wasm::device

// GLSL `out T` / `inout T` parameters become references. prelude.glsl defines the GLSL side.
#if defined(OUT) || defined(INOUT)
#error "OUT/INOUT are already defined (some platform headers define OUT); include device code first"
#endif
#define OUT(T) T&
#define INOUT(T) T&
