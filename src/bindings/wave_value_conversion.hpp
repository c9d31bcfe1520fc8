// Python numbers as WAVE register values, shared by the emulator and the Vulkan launch paths
// so that both accept and reject exactly the same scalar arguments.
#pragma once

#include <nanobind/nanobind.h>

#include <string>

#include "wave/types.hpp"

namespace wavestack::bindings {

// Converts `object` to a value of `type` (integers range-checked by nanobind's casts).
// Throws runtime::InvalidArgument naming `argument` when it does not convert.
wave::Value python_to_wave_value(wave::ScalarType type, nanobind::handle object, const std::string& argument);

}  // namespace wavestack::bindings
