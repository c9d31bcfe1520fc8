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
// Every public name that host_ieee.hpp defines (the list must match it: a name missing here is
// a redefinition error, a name missing there leaves numeric_dispatch.glsl without it).
#define f32_add f32_add_soft
#define f32_sub f32_sub_soft
#define f32_mul f32_mul_soft
#define f32_div f32_div_soft
#define f32_sqrt f32_sqrt_soft
#define f32_min f32_min_soft
#define f32_max f32_max_soft
#define f32_eq f32_eq_soft
#define f32_ne f32_ne_soft
#define f32_lt f32_lt_soft
#define f32_gt f32_gt_soft
#define f32_le f32_le_soft
#define f32_ge f32_ge_soft
#define f32_ceil f32_ceil_soft
#define f32_floor f32_floor_soft
#define f32_trunc f32_trunc_soft
#define f32_nearest f32_nearest_soft
#define f64_add f64_add_soft
#define f64_sub f64_sub_soft
#define f64_mul f64_mul_soft
#define f64_div f64_div_soft
#define f64_sqrt f64_sqrt_soft
#define f64_min f64_min_soft
#define f64_max f64_max_soft
#define f64_eq f64_eq_soft
#define f64_ne f64_ne_soft
#define f64_lt f64_lt_soft
#define f64_gt f64_gt_soft
#define f64_le f64_le_soft
#define f64_ge f64_ge_soft
#define f64_ceil f64_ceil_soft
#define f64_floor f64_floor_soft
#define f64_trunc f64_trunc_soft
#define f64_nearest f64_nearest_soft
#define f64_promote_f32 f64_promote_f32_soft
#define f32_demote_f64 f32_demote_f64_soft
#define f32_convert_i32_s f32_convert_i32_s_soft
#define f32_convert_i32_u f32_convert_i32_u_soft
#define f32_convert_i64_s f32_convert_i64_s_soft
#define f32_convert_i64_u f32_convert_i64_u_soft
#define f64_convert_i32_s f64_convert_i32_s_soft
#define f64_convert_i32_u f64_convert_i32_u_soft
#define f64_convert_i64_s f64_convert_i64_s_soft
#define f64_convert_i64_u f64_convert_i64_u_soft
#endif
#include "wasm/device/f32.glsl"
#include "wasm/device/f64.glsl"
#include "wasm/device/convert.glsl"
#if defined(WASM_HOST_IEEE)
#undef f32_add
#undef f32_sub
#undef f32_mul
#undef f32_div
#undef f32_sqrt
#undef f32_min
#undef f32_max
#undef f32_eq
#undef f32_ne
#undef f32_lt
#undef f32_gt
#undef f32_le
#undef f32_ge
#undef f32_ceil
#undef f32_floor
#undef f32_trunc
#undef f32_nearest
#undef f64_add
#undef f64_sub
#undef f64_mul
#undef f64_div
#undef f64_sqrt
#undef f64_min
#undef f64_max
#undef f64_eq
#undef f64_ne
#undef f64_lt
#undef f64_gt
#undef f64_le
#undef f64_ge
#undef f64_ceil
#undef f64_floor
#undef f64_trunc
#undef f64_nearest
#undef f64_promote_f32
#undef f32_demote_f64
#undef f32_convert_i32_s
#undef f32_convert_i32_u
#undef f32_convert_i64_s
#undef f32_convert_i64_u
#undef f64_convert_i32_s
#undef f64_convert_i32_u
#undef f64_convert_i64_s
#undef f64_convert_i64_u
#include "wasm/device/host_ieee.hpp"
#endif
#include "wasm/device/numeric_dispatch.glsl"
// clang-format on
#pragma GCC diagnostic pop

}  // namespace
}  // namespace wavestack::wasm::device
