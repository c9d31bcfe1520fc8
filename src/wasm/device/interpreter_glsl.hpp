// The interpreter as one GLSL compute shader for the Vulkan device: the numerics library,
// the interpreter's .glsl files (the same text the cpu device compiles as C++) and the
// Vulkan entry point (interpreter_vulkan.glsl).
#pragma once

#include <string>

namespace wavestack::wasm::device {

[[nodiscard]] std::string interpreter_shader_source();

// The instantiation shader: the bindings and vulkan_instantiate_main.glsl (template copies).
[[nodiscard]] std::string instantiation_shader_source();

// The WASI service shader: the same bindings and push constants, makes the pending WASI calls
// (interpreter_wasi.glsl, wasi_vulkan_main.glsl).
[[nodiscard]] std::string wasi_service_shader_source();

}  // namespace wavestack::wasm::device
