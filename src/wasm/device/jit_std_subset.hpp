// The few standard-library names the cpu device's unit sources use (compiled_glsl.hpp),
// defined from compiler builtins, so that the in-process compiler (src/jit) needs no system
// headers: it compiles the freestanding preamble, which replaces the preamble's #include lines
// with this text. Each definition means what the standard's does for the types used here.
#pragma once

namespace std {

using uint8_t = __UINT8_TYPE__;
using uint16_t = __UINT16_TYPE__;
using uint32_t = __UINT32_TYPE__;
using uint64_t = __UINT64_TYPE__;
using int8_t = __INT8_TYPE__;
using int16_t = __INT16_TYPE__;
using int32_t = __INT32_TYPE__;
using int64_t = __INT64_TYPE__;
using size_t = __SIZE_TYPE__;
using uintptr_t = __UINTPTR_TYPE__;

template <class A, class B>
inline constexpr bool is_same_v = false;
template <class A>
inline constexpr bool is_same_v<A, A> = true;
template <class A, class B>
concept same_as = is_same_v<A, B> && is_same_v<B, A>;

// Every function here is always inlined: the fast tier runs no inliner, and a memcpy of a
// constant size becomes one load or store only where the size is seen (through a call it was
// a call of the C library's memcpy per value-stack access).
template <class To, class From>
[[gnu::always_inline]] constexpr To bit_cast(const From& from) noexcept {
  return __builtin_bit_cast(To, from);
}

[[gnu::always_inline]] inline void* memcpy(void* to, const void* from, size_t bytes) noexcept {
  return __builtin_memcpy(to, from, bytes);
}

// For the unsigned types the units pass (uint32_t and uint64_t): zero has all bits clear.
[[gnu::always_inline]] constexpr int countl_zero(uint32_t value) noexcept {
  return value == 0 ? 32 : __builtin_clz(value);
}
[[gnu::always_inline]] constexpr int countl_zero(uint64_t value) noexcept {
  return value == 0 ? 64 : __builtin_clzll(value);
}
[[gnu::always_inline]] constexpr int countr_zero(uint32_t value) noexcept {
  return value == 0 ? 32 : __builtin_ctz(value);
}
[[gnu::always_inline]] constexpr int countr_zero(uint64_t value) noexcept {
  return value == 0 ? 64 : __builtin_ctzll(value);
}
[[gnu::always_inline]] constexpr int popcount(uint32_t value) noexcept {
  return __builtin_popcount(value);
}
[[gnu::always_inline]] constexpr int popcount(uint64_t value) noexcept {
  return __builtin_popcountll(value);
}

}  // namespace std
