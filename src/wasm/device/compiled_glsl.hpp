// The complete sources a generated compiled unit (compiler/unit_codegen.hpp) is built from:
// the device library (numeric functions, memory, tables, frames, bulk operations), the
// compiled-block helpers, the unit's text and the dispatch loop, wrapped for a device. Neither
// holds the interpreter or the numeric opcode dispatcher.
#pragma once

#include <string>
#include <string_view>

namespace wavestack::wasm::device {

// A Vulkan compute shader running `unit_text` (compiled_vulkan_main.glsl is its entry point).
[[nodiscard]] std::string compiled_shader_source(std::string_view unit_text);

// A C++ translation unit for the cpu device's shared library, exporting
//   extern "C" uint32_t wasmgpu_unit_run(const uint32_t* program, uint32_t* state,
//                                        uint32_t* memory, uint32_t quantum, uint32_t budget)
// (compiled_run on one instance's buffers). It includes only standard headers.
[[nodiscard]] std::string compiled_cpu_source(std::string_view unit_text);

// The name the cpu source exports.
inline constexpr const char* kCompiledUnitSymbol = "wasmgpu_unit_run";

}  // namespace wavestack::wasm::device
