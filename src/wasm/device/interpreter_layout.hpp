// The interpreter's layout constants (interpreter_layout.glsl) for host code that builds the
// program image and the instance state. Same unnamed-namespace convention as numerics.hpp.
#pragma once

#include "wasm/device/prelude.hpp"

namespace wavestack::wasm::device {
namespace {

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-variable"
// clang-format off
#include "wasm/device/interpreter_layout.glsl"
// clang-format on
#pragma GCC diagnostic pop

}  // namespace
}  // namespace wavestack::wasm::device
