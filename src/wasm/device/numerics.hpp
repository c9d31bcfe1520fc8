// The device numerics compiled as C++ for the `cpu` device and the tests: the prelude, then
// the same .glsl files the Vulkan device compiles, in dependency order (numerics_glsl() lists
// the same order for shaders).
//
// The functions land in an unnamed namespace inside wavestack::wasm::device: GLSL has no
// `inline`, and internal linkage lets every translation unit that includes this header (the
// cpu interpreter, the tests) hold its own copy without violating the one-definition rule.
// Device code written in the subset (the interpreter) is included the same way, after this.
#pragma once

#include "wasm/device/prelude.hpp"

namespace wavestack::wasm::device {
namespace {

#pragma GCC diagnostic push
// A translation unit uses only some of the functions.
#pragma GCC diagnostic ignored "-Wunused-function"
// clang-format off
#include "wasm/device/traps.glsl"
#include "wasm/device/u64.glsl"
#include "wasm/device/i32.glsl"
#include "wasm/device/i64.glsl"
#include "wasm/device/f32.glsl"
#include "wasm/device/f64.glsl"
#include "wasm/device/convert.glsl"
#include "wasm/device/numeric_dispatch.glsl"
// clang-format on
#pragma GCC diagnostic pop

}  // namespace
}  // namespace wavestack::wasm::device
