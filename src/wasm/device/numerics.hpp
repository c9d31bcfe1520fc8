// The device numerics compiled as C++ for the `cpu` device and the tests: the prelude, then
// the same .glsl files the Vulkan device compiles, in dependency order (numerics_glsl() lists
// the same order for shaders).
//
// The functions land in an unnamed namespace inside wavestack::wasm::device: GLSL has no
// `inline`, and internal linkage lets every translation unit that includes this header (the
// cpu interpreter, the tests) hold its own copy without violating the one-definition rule.
// Device code written in the subset (the interpreter) is included the same way, after this.
//
// Host IEEE fast path (host_ieee.hpp): on x86-64 with SSE2 and on AArch64 the float
// arithmetic, comparisons, min/max, rounding and float conversions run on the host's FPU,
// with identical results (NaNs included: a NaN result is the software function's). The
// software functions are then compiled as <name>_soft by renaming them with macros while
// f32.glsl, f64.glsl and convert.glsl are included; host_ieee.hpp defines the public names
// and calls the _soft twins for NaN results. Renaming here, rather than guarding the .glsl
// files, leaves the GLSL text (and so every shader) untouched, and calls inside the library
// (f64_sub -> f64_add, the truncations -> f64_promote_f32) stay on the software path, which
// gives the same bits. Define WAVESTACK_SOFT_FLOAT to build the software path only (the
// tests build both: numerics_tests and numerics_tests_soft).
#pragma once

#include "wasm/device/prelude.hpp"

#if !defined(WAVESTACK_SOFT_FLOAT) && ((defined(__x86_64__) && defined(__SSE2__)) || defined(__aarch64__))
#define WASM_HOST_IEEE 1
#endif

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
#if defined(WASM_HOST_IEEE)
#include "wasm/device/host_ieee_rename.hpp"
#endif
#include "wasm/device/f32.glsl"
#include "wasm/device/f64.glsl"
#include "wasm/device/convert.glsl"
#if defined(WASM_HOST_IEEE)
#include "wasm/device/host_ieee_restore.hpp"
#include "wasm/device/host_ieee.hpp"
#endif
#include "wasm/device/numeric_dispatch.glsl"
// clang-format on
#pragma GCC diagnostic pop

}  // namespace
}  // namespace wavestack::wasm::device
