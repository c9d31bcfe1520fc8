#include "wasm/compiler/unit_codegen.hpp"

#include <stdexcept>
#include <vector>

#include "wasm/compiler/block_codegen.hpp"

namespace wavestack::wasm::compiler {

UnitSource generate_unit(const Program& program, const CompiledLayout& layout, std::uint32_t unit) {
  const Unit& blocks = layout.units.at(unit);
  UnitSource source;
  source.first_block = blocks.blocks.empty() ? 0U : blocks.blocks.front().id;
  source.block_count = static_cast<std::uint32_t>(blocks.blocks.size());
  source.text = "// compiled unit " + std::to_string(unit) + "\n";
  source.prefix_text = "// prefixes of compiled unit " + std::to_string(unit) + "\n";
  std::vector<bool> has_prefix;
  for (std::size_t k = 0; k < blocks.blocks.size(); ++k) {
    // Ids are contiguous per unit, which makes the step below a dense switch.
    if (blocks.blocks[k].id != source.first_block + k)
      throw std::logic_error("compiler: unit block ids not contiguous");
    BlockSource block = generate_block(program, blocks.blocks[k]);
    has_prefix.push_back(!block.prefix.empty());
    source.text += block.body;
    source.prefix_text += block.prefix;
  }
  source.prefix_text += "uint compiled_prefix_step(INOUT(Regs) r, uint left) {\n";
  source.prefix_text += "  uint n = 0u;\n";
  source.prefix_text += "  switch (r.pc - " + std::to_string(source.first_block) + "u) {\n";
  for (std::uint32_t k = 0; k < source.block_count; ++k) {
    if (!has_prefix[k]) continue;  // call and bulk blocks check their one record's fuel themselves
    source.prefix_text += "    case " + std::to_string(k) + "u: n = " + block_function_name(source.first_block + k) +
                          "_p(r, left, 0u); break;\n";
  }
  source.prefix_text += "    default: break;\n  }\n  return n;\n}\n";
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
