// The C++ types of compiled units' f64 variables on the cpu device (F64_VARIABLE, F64_RAW;
// GLSL uses uvec2 for both, compiled_blocks.glsl). The generated C++ of every unit includes
// this text after the numerics (compiled_glsl.cpp); tests include it after numerics.hpp.
//
// HostF64: an f64 local or temporary as a double, so that it stays in a floating-point
// register (as a uvec2, the f64's bit pattern, GCC keeps it in an integer register and moves it
// to and from the FPU around every operation, on a loop's chain of dependent operations).
// Conversions copy bits: a NaN's payload is kept, as local.get/set, loads, stores and the
// reinterpretations require. It converts to a uvec2 implicitly and from one only explicitly or
// by assignment, so that mixing it with a uvec2 in a conditional expression has one meaning.
//
// HostF64Raw (host IEEE only): the result of f64 add, sub, mul, div or sqrt before the
// canonical-NaN rule is applied. host_ieee.hpp applies the rule after every operation (a
// compare and a branch each, most of the instructions of an f64 loop besides the arithmetic).
// Deferring it is exact because a NaN operand of these five operations, whatever its payload,
// gives a NaN result, and every non-NaN result is the same either way: a chain of raw
// operations is a NaN exactly where the library's chain is, and equal to it elsewhere. The rule
// is applied where a raw value meets anything else, by its conversions, so the C++ type
// system finds every such place: an assignment to a local, a store, a spill to the value
// stack, a call, the other numeric functions. The comparisons take raw operands as they are:
// IEEE comparisons treat every NaN alike.
#pragma once

#include <bit>
#include <concepts>

// Every operation here is one or two instructions on a loop's chain: always inlined, whatever
// the compiler's inlining heuristics at the units' -O1 (out of line, each costs a call and two
// moves between register files on the chain).
#define HOST_F64_INLINE __attribute__((always_inline)) inline

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__

#if defined(WASM_HOST_IEEE)
struct HostF64Raw;
#endif

struct HostF64 {
  double value = 0.0;
  HostF64() = default;
  explicit HostF64(uvec2 bits) : value(std::bit_cast<double>(bits)) {}
  HostF64& operator=(uvec2 bits) {
    value = std::bit_cast<double>(bits);
    return *this;
  }
#if defined(WASM_HOST_IEEE)
  // Implicit, and exact for a raw value (so no conversion through uvec2 competes with it).
  // NOLINTNEXTLINE(google-explicit-constructor)
  HostF64(HostF64Raw raw);
  HostF64& operator=(HostF64Raw raw);
#endif
  // NOLINTNEXTLINE(google-explicit-constructor): implicit by design (see above)
  operator uvec2() const {
    return std::bit_cast<uvec2>(value);
  }
};
#define F64_VARIABLE HostF64

#if defined(WASM_HOST_IEEE)
struct HostF64Raw {
  double value;
  // Only the raw operations below make one (explicit: a uvec2 never becomes raw implicitly).
  explicit HostF64Raw(double hardware_result) : value(host_ieee_rounded(hardware_result)) {}
  // The canonical-NaN rule, applied once where the value meets anything but a raw operation.
  double canonical() const {
    double v = value;
    if (__builtin_isnan(v)) [[unlikely]]
      v = f64_canonical_nan_host();
    return v;
  }
  // NOLINTNEXTLINE(google-explicit-constructor): implicit, so every use applies the rule
  operator uvec2() const { return std::bit_cast<uvec2>(canonical()); }
};
inline HostF64::HostF64(HostF64Raw raw) : value(raw.canonical()) {}
inline HostF64& HostF64::operator=(HostF64Raw raw) {
  value = raw.canonical();
  return *this;
}
#define F64_RAW HostF64Raw

// An operand of a raw operation or comparison, as the hardware double it holds.
HOST_F64_INLINE double host_f64_operand(uvec2 bits) {
  return f64_to_host(bits);
}
HOST_F64_INLINE double host_f64_operand(HostF64 v) {
  return v.value;
}
HOST_F64_INLINE double host_f64_operand(HostF64Raw v) {
  return v.value;
}
template <class T>
concept HostF64Operand = std::same_as<T, uvec2> || std::same_as<T, HostF64> || std::same_as<T, HostF64Raw>;

template <HostF64Operand A, HostF64Operand B>
HOST_F64_INLINE HostF64Raw f64_add_raw(A a, B b) {
  return HostF64Raw(host_f64_operand(a) + host_f64_operand(b));
}
template <HostF64Operand A, HostF64Operand B>
HOST_F64_INLINE HostF64Raw f64_sub_raw(A a, B b) {
  return HostF64Raw(host_f64_operand(a) - host_f64_operand(b));
}
template <HostF64Operand A, HostF64Operand B>
HOST_F64_INLINE HostF64Raw f64_mul_raw(A a, B b) {
  return HostF64Raw(host_f64_operand(a) * host_f64_operand(b));
}
template <HostF64Operand A, HostF64Operand B>
HOST_F64_INLINE HostF64Raw f64_div_raw(A a, B b) {
  return HostF64Raw(host_f64_operand(a) / host_f64_operand(b));
}
template <HostF64Operand A>
HOST_F64_INLINE HostF64Raw f64_sqrt_raw(A a) {
  return HostF64Raw(__builtin_sqrt(host_f64_operand(a)));
}

// The comparisons with a raw operand (the library's f64_eq .. f64_ge take uvec2s, and would
// apply the NaN rule first, for nothing).
template <class A, class B>
concept HasRawOperand = HostF64Operand<A> && HostF64Operand<B> &&
    (std::same_as<A, HostF64Raw> || std::same_as<B, HostF64Raw>);
template <class A, class B>
requires HasRawOperand<A, B> HOST_F64_INLINE uint f64_eq(A a, B b) {
  return host_f64_operand(a) == host_f64_operand(b) ? 1u : 0u;
}
template <class A, class B>
requires HasRawOperand<A, B> HOST_F64_INLINE uint f64_ne(A a, B b) {
  return host_f64_operand(a) != host_f64_operand(b) ? 1u : 0u;
}
template <class A, class B>
requires HasRawOperand<A, B> HOST_F64_INLINE uint f64_lt(A a, B b) {
  return host_f64_operand(a) < host_f64_operand(b) ? 1u : 0u;
}
template <class A, class B>
requires HasRawOperand<A, B> HOST_F64_INLINE uint f64_gt(A a, B b) {
  return host_f64_operand(a) > host_f64_operand(b) ? 1u : 0u;
}
template <class A, class B>
requires HasRawOperand<A, B> HOST_F64_INLINE uint f64_le(A a, B b) {
  return host_f64_operand(a) <= host_f64_operand(b) ? 1u : 0u;
}
template <class A, class B>
requires HasRawOperand<A, B> HOST_F64_INLINE uint f64_ge(A a, B b) {
  return host_f64_operand(a) >= host_f64_operand(b) ? 1u : 0u;
}
#endif  // WASM_HOST_IEEE

#endif  // little-endian
