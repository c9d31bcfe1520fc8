#include "wasm/compiler/unit_codegen.hpp"

#include <stdexcept>

#include "wasm/compiler/block_codegen.hpp"

namespace wavestack::wasm::compiler {

UnitSource generate_unit(const Program& program, const CompiledLayout& layout, std::uint32_t unit) {
  const Unit& blocks = layout.units.at(unit);
  UnitSource source;
  source.first_block = blocks.blocks.empty() ? 0U : blocks.blocks.front().id;
  source.block_count = static_cast<std::uint32_t>(blocks.blocks.size());
  source.text = "// compiled unit " + std::to_string(unit) + "\n";
  for (std::size_t k = 0; k < blocks.blocks.size(); ++k) {
    // Ids are contiguous per unit, which makes the step below a dense switch.
    if (blocks.blocks[k].id != source.first_block + k) throw std::logic_error("compiler: unit block ids not contiguous");
    source.text += generate_block(program, blocks.blocks[k]);
  }
  source.text += "uint compiled_unit_step(INOUT(Regs) r, uint left, uint room) {\n";
  source.text += "  uint n = COMPILED_LEAVE;\n";
  source.text += "  switch (r.pc - " + std::to_string(source.first_block) + "u) {\n";
  for (std::uint32_t k = 0; k < source.block_count; ++k) {
    source.text += "    case " + std::to_string(k) + "u: n = " + block_function_name(source.first_block + k) +
                   "(r, left, room); break;\n";
  }
  source.text += "    default: break;\n  }\n  return n;\n}\n";
  return source;
}

}  // namespace wavestack::wasm::compiler
