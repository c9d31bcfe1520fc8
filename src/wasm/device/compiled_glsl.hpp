// The complete sources a generated compiled unit (compiler/unit_codegen.hpp) is built from:
// the device library (numeric functions, memory, tables, frames, bulk operations), the
// compiled-block helpers, the unit's text and the dispatch loop, wrapped for a device. Neither
// holds the interpreter or the numeric opcode dispatcher.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace wavestack::wasm::device {

// A Vulkan compute shader running a unit (interpreter_vulkan_main.glsl, with RUN_LOOP
// compiled_run, is its entry point). A block whose prefix must run makes the run return
// STATUS_COMPILED_PREFIX, as on the cpu device. It does not make the host's call of a function
// (an instance at the ENTRY id leaves it at once): compiled_entry_shader_source does; and it
// leaves only the status in an instance's outcome: compiled_outcome_shader_source writes the rest.
[[nodiscard]] std::string compiled_shader_source(std::string_view unit_text);

// The Vulkan compute shader of the host's call of a function in compiled mode, for every module:
// it makes the callee's frame (or its import's call) and stops where the callee's entry block
// is, the ENTRY id being the only one it runs. The host dispatches it before the unit of that
// block, so that a unit whose blocks make no calls leaves the frame code out of its shader.
[[nodiscard]] std::string compiled_entry_shader_source();

// The Vulkan compute shader that ends every step of compiled mode, for every module: the runs
// before it leave only each instance's status in its outcome (the shader's assembler defines
// RUN_OUTCOME_BY_STEP); it writes the other outcome words from the state and, where the push
// constants ask, sums the group up (interpreter_vulkan_outcome.glsl).
[[nodiscard]] std::string compiled_outcome_shader_source();

// The unit's prefixes as a Vulkan compute shader (compiled_prefix_vulkan_main.glsl): runs the
// prefix of every instance whose outcome says STATUS_COMPILED_PREFIX at one of the unit's
// blocks, ids [first_block, first_block + blocks).
[[nodiscard]] std::string compiled_prefix_shader_source(std::string_view prefix_text, std::uint32_t first_block,
                                                        std::uint32_t blocks);

// The cpu device's C++ in two parts, so that the part every unit shares can be compiled once
// (the in-process compiler precompiles it, src/jit): the preamble (prelude, layout, numerics,
// and `struct UnitRuntime` holding one instance's buffers, their accessors and the runtime:
// memory, tables, frames, bulk operations, compiled-block helpers) and a unit's text after it
// (`struct UnitContext : UnitRuntime` holding the unit, and its extern "C" entries).
// kHostCompiler includes standard headers; kInProcess includes none and takes the few standard
// names it uses from compiler builtins (jit_std_subset.hpp). kInProcessShared is kInProcess
// with its declarations in a named (inline) namespace instead of an anonymous one, so that
// their functions have external linkage: the in-process compiler's fast tier compiles them
// once into an object every unit links against (src/jit, PreambleCode::kShared).
enum class CpuPreamble : std::uint8_t { kHostCompiler, kInProcess, kInProcessShared };
[[nodiscard]] const std::string& compiled_cpu_preamble(CpuPreamble kind);

// A unit's text after the preamble, exporting
//   extern "C" uint32_t wasmgpu_unit_run(const uint32_t* program, uint32_t* state,
//                                        uint32_t* memory, uint32_t quantum, uint32_t budget)
// (compiled_run on one instance's buffers). A block whose prefix must run makes it return
// STATUS_COMPILED_PREFIX. It also exports
//   extern "C" uint32_t wasmgpu_unit_run_group(const uint32_t* program, uint32_t* const* states,
//                                              uint32_t* const* memories, uint32_t quantum,
//                                              uint32_t budget, uint32_t* statuses)
// (compiled_run_group: compiled_lane_group.hpp), built from `lane_group_text`
// (compiler/lane_group_codegen.hpp), which defines COMPILED_LANES; without it (nullopt) the unit
// has no lane groups and exports only wasmgpu_unit_run (the fast tier: the group machinery
// was 30% of an average unit's build).
[[nodiscard]] std::string compiled_cpu_unit_text(std::string_view unit_text,
                                                 std::optional<std::string_view> lane_group_text);

// The unit's prefixes' text after the preamble, exporting
//   extern "C" uint32_t wasmgpu_unit_prefix(const uint32_t* program, uint32_t* state, uint32_t* memory)
// (compiled_run_prefix): built only when fuel first runs out inside one of the unit's blocks.
[[nodiscard]] std::string compiled_cpu_prefix_text(std::string_view prefix_text);

// Whole translation units for a host compiler: the standard preamble and the text after it.
[[nodiscard]] std::string compiled_cpu_source(std::string_view unit_text, std::string_view lane_group_text);
[[nodiscard]] std::string compiled_cpu_prefix_source(std::string_view prefix_text);

// The names the cpu sources export.
inline constexpr const char* kCompiledUnitSymbol = "wasmgpu_unit_run";
inline constexpr const char* kCompiledPrefixSymbol = "wasmgpu_unit_prefix";
inline constexpr const char* kCompiledGroupSymbol = "wasmgpu_unit_run_group";

}  // namespace wavestack::wasm::device
