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

namespace wavestack::wasm::device {

using uint = std::uint32_t;

// GLSL's uvec2, reduced to what the subset uses: construction from two components, the .x/.y
// members, and == / != on whole vectors (GLSL compares all components).
struct uvec2 {
  uint x = 0;
  uint y = 0;
  constexpr uvec2() = default;
  constexpr uvec2(uint x_value, uint y_value) : x(x_value), y(y_value) {}
  friend constexpr bool operator==(uvec2 a, uvec2 b) = default;
};

// Integer builtins of GLSL 4.50 (section 8.8), with GLSL's signatures: results through out
// parameters, bit indices as int, -1 when there is no set bit.
inline uint uaddCarry(uint x, uint y, uint& carry) {
  const uint sum = x + y;
  carry = sum < x ? 1u : 0u;
  return sum;
}

inline uint usubBorrow(uint x, uint y, uint& borrow) {
  borrow = x < y ? 1u : 0u;
  return x - y;
}

inline void umulExtended(uint x, uint y, uint& msb, uint& lsb) {
  const std::uint64_t product = std::uint64_t{x} * y;
  msb = static_cast<uint>(product >> 32);
  lsb = static_cast<uint>(product);
}

inline int findMSB(uint value) {
  return value == 0u ? -1 : 31 - std::countl_zero(value);
}
inline int findLSB(uint value) {
  return value == 0u ? -1 : std::countr_zero(value);
}
inline int bitCount(uint value) {
  return std::popcount(value);
}

}  // namespace wavestack::wasm::device

// GLSL `out T` / `inout T` parameters become references. prelude.glsl defines the GLSL side.
#if defined(OUT) || defined(INOUT)
#error "OUT/INOUT are already defined (some platform headers define OUT); include device code first"
#endif
#define OUT(T) T&
#define INOUT(T) T&
