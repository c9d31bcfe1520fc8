// The WASI region's layout constants (wasi_layout.glsl) for host code. Same unnamed-namespace
// convention as interpreter_layout.hpp.
#pragma once

#include "wasm/device/prelude.hpp"

namespace wavestack::wasm::device {
namespace {

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-variable"
// clang-format off
#include "wasm/device/wasi_layout.glsl"
// clang-format on
#pragma GCC diagnostic pop

}  // namespace
}  // namespace wavestack::wasm::device
