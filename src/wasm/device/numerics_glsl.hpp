// The device numerics as GLSL text for the Vulkan device: the files of numerics.hpp, embedded
// at build time (embed_glsl.cmake), to be pasted into a compute shader after its #version line.
#pragma once

#include <string>
#include <string_view>

namespace wavestack::wasm::device {

// The library in dependency order: prelude.glsl, traps, u64, i32, i64, f32, f64, convert,
// numeric_dispatch. Needs
// only 32-bit integer arithmetic (no shaderInt64, no shaderFloat64).
[[nodiscard]] std::string numerics_glsl();

// The same code without comments, indentation and blank lines (a third smaller), for
// generated shaders whose source size matters. Valid because the library uses only `//`
// comments and no string literals (checked by the tests).
[[nodiscard]] std::string numerics_glsl_compact();

// The numeric functions alone (traps.glsl .. convert.glsl): no prelude and no opcode
// dispatcher, for compiled code, which calls each function by name.
[[nodiscard]] std::string numeric_functions_glsl();

// One embedded file by its name ("f64.glsl"); empty when there is no such file.
[[nodiscard]] std::string_view numerics_glsl_file(std::string_view name);

}  // namespace wavestack::wasm::device
