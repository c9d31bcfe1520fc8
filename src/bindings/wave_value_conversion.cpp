#include "bindings/wave_value_conversion.hpp"

#include <cstdint>

#include "runtime/error.hpp"

namespace nb = nanobind;

namespace wavestack::bindings {

wave::Value python_to_wave_value(wave::ScalarType type, nb::handle object, const std::string& argument) {
  using wave::ScalarType;
  wave::Value v{};
  try {
    switch (type) {
      case ScalarType::Bool:
        v.b = nb::cast<bool>(object);
        break;
      case ScalarType::I32:
        v.i32 = nb::cast<int32_t>(object);
        break;
      case ScalarType::U32:
        v.u32 = nb::cast<uint32_t>(object);
        break;
      case ScalarType::I64:
        v.i64 = nb::cast<int64_t>(object);
        break;
      case ScalarType::U64:
        v.u64 = nb::cast<uint64_t>(object);
        break;
      case ScalarType::F64:
        v.f64 = nb::cast<double>(object);
        break;
      default:
        v.f32 = static_cast<float>(nb::cast<double>(object));
        break;
    }
  } catch (const nb::cast_error&) {
    throw runtime::InvalidArgument(argument, "cannot be converted to " + std::string(wave::type_name(type)));
  }
  return v;
}

}  // namespace wavestack::bindings
