#include "wave/types.hpp"

#include <array>

namespace wavestack::wave {
namespace {
constexpr std::array<std::string_view, 8> kNames = {"bool", "i32", "u32", "i64", "u64", "f16", "f32", "f64"};
}  // namespace

std::string_view type_name(ScalarType type) noexcept {
  return kNames[static_cast<size_t>(type)];
}

std::optional<ScalarType> type_from_name(std::string_view name) noexcept {
  for (size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i] == name) return static_cast<ScalarType>(i);
  }
  return std::nullopt;
}

uint32_t type_size(ScalarType type) noexcept {
  switch (type) {
    case ScalarType::F16:
      return 2;
    case ScalarType::I64:
    case ScalarType::U64:
    case ScalarType::F64:
      return 8;
    default:
      return 4;
  }
}

bool is_float(ScalarType type) noexcept {
  return type == ScalarType::F16 || type == ScalarType::F32 || type == ScalarType::F64;
}

bool is_integer(ScalarType type) noexcept {
  return type == ScalarType::I32 || type == ScalarType::U32 || type == ScalarType::I64 || type == ScalarType::U64;
}

bool is_signed(ScalarType type) noexcept {
  return type == ScalarType::I32 || type == ScalarType::I64;
}

ScalarType register_type_of_element(ScalarType element) noexcept {
  return element == ScalarType::F16 ? ScalarType::F32 : element;
}

}  // namespace wavestack::wave
