// Source generation for one compilation unit: its blocks' functions (block_codegen.hpp) and
// compiled_unit_step, which selects the block at r.pc by its id. The text is in the device
// subset and has no entry point of its own: the Vulkan shader (interpreter_vulkan_main.glsl, RUN_LOOP compiled_run)
// and the cpu device's shared library (cpu_unit_library.hpp) wrap the same text.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "wasm/compiler/compiled_layout.hpp"
#include "wasm/module/program.hpp"

namespace wavestack::wasm::compiler {

struct UnitSource {
  std::string text;               // the blocks and compiled_unit_step
  std::string prefix_text;        // the blocks' prefixes and compiled_prefix_step (exact fuel)
  std::uint32_t first_block = 0;  // the unit's blocks have ids first_block .. + block_count
  std::uint32_t block_count = 0;
};

// Upper bounds of the text a unit adds around its blocks' own (for the partition's size
// estimate, compiled_module.cpp): a call or bulk block's spill of the run's written locals at
// its site, for a function of `locals` locals; a function's case in the unit's entry switch;
// and the unit's fixed text (the entry switch's frame and the step's search).
[[nodiscard]] std::size_t resumable_site_bytes(std::uint32_t locals);
inline constexpr std::size_t kEntryCaseBytes = 128;
inline constexpr std::size_t kUnitFixedBytes = 1024;

// Throws std::out_of_range for a unit index outside the layout.
[[nodiscard]] UnitSource generate_unit(const Program& program, const CompiledLayout& layout, std::uint32_t unit);

// The same for any blocks of the layout with contiguous ids (a unit, or the cpu device's span of
// consecutive units of one function: compiled_module.hpp's cpu_span); `name` heads its texts.
[[nodiscard]] UnitSource generate_unit_blocks(const Program& program, const CompiledLayout& layout, const Unit& blocks,
                                              const std::string& name);

}  // namespace wavestack::wasm::compiler
