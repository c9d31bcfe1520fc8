// Scalar types of the WAVE IR and the per-lane value slot the emulator computes with.
// f16 exists only as a storage type: loads widen it to f32 and stores narrow f32 to it,
// exactly what GLSL does with 16-bit storage buffers and no float16 arithmetic.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace wavestack::wave {

enum class ScalarType : uint8_t { Bool, I32, U32, I64, U64, F16, F32, F64 };

[[nodiscard]] std::string_view type_name(ScalarType type) noexcept;
[[nodiscard]] std::optional<ScalarType> type_from_name(std::string_view name) noexcept;
// Bytes one element occupies in a buffer or a shared array (bool: 4, as in GLSL).
[[nodiscard]] uint32_t type_size(ScalarType type) noexcept;
[[nodiscard]] bool is_float(ScalarType type) noexcept;    // f16, f32, f64
[[nodiscard]] bool is_integer(ScalarType type) noexcept;  // i32, u32, i64, u64
[[nodiscard]] bool is_signed(ScalarType type) noexcept;
// The type a register holding an element of `element` has: f16 widens to f32.
[[nodiscard]] ScalarType register_type_of_element(ScalarType element) noexcept;

// One lane's value. Registers are typed, so a slot is always read through the member it was
// written through; bit reinterpretation (f16 storage) goes through std::bit_cast.
union Value {
  bool b;
  int32_t i32;
  uint32_t u32;
  int64_t i64;
  uint64_t u64;
  float f32;
  double f64;
};
static_assert(sizeof(Value) == 8);

template <class T>
T& as(Value& value) noexcept;
template <>
inline bool& as<bool>(Value& value) noexcept {
  return value.b;
}
template <>
inline int32_t& as<int32_t>(Value& value) noexcept {
  return value.i32;
}
template <>
inline uint32_t& as<uint32_t>(Value& value) noexcept {
  return value.u32;
}
template <>
inline int64_t& as<int64_t>(Value& value) noexcept {
  return value.i64;
}
template <>
inline uint64_t& as<uint64_t>(Value& value) noexcept {
  return value.u64;
}
template <>
inline float& as<float>(Value& value) noexcept {
  return value.f32;
}
template <>
inline double& as<double>(Value& value) noexcept {
  return value.f64;
}

template <class T>
T get(const Value& value) noexcept {
  return as<T>(const_cast<Value&>(value));
}

// Calls visitor.template operator()<T>() with the C++ type of a register type (f16 has none).
template <class Visitor>
decltype(auto) visit_register_type(ScalarType type, Visitor&& visitor) {
  switch (type) {
    case ScalarType::Bool:
      return visitor.template operator()<bool>();
    case ScalarType::I32:
      return visitor.template operator()<int32_t>();
    case ScalarType::U32:
      return visitor.template operator()<uint32_t>();
    case ScalarType::I64:
      return visitor.template operator()<int64_t>();
    case ScalarType::U64:
      return visitor.template operator()<uint64_t>();
    case ScalarType::F16:
    case ScalarType::F32:
      return visitor.template operator()<float>();
    case ScalarType::F64:
      return visitor.template operator()<double>();
  }
  return visitor.template operator()<float>();
}

}  // namespace wavestack::wave
