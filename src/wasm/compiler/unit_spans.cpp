#include "wasm/compiler/unit_spans.hpp"

namespace wavestack::wasm::compiler {
namespace {

bool single_function(const Unit& unit) {
  return unit.functions.size() == 1 && !unit.blocks.empty();
}

// Whether `next` continues `previous`'s function with the block ids after its last.
bool continues(const Unit& previous, const Unit& next) {
  return single_function(previous) && single_function(next) && previous.functions.front() == next.functions.front() &&
         next.blocks.front().id == previous.blocks.back().id + 1U;
}

}  // namespace

std::vector<UnitSpan> unit_spans(const CompiledLayout& layout) {
  const auto count = static_cast<std::uint32_t>(layout.units.size());
  std::vector<UnitSpan> spans(count);
  std::uint32_t first = 0;
  std::uint32_t instructions = 0;
  for (std::uint32_t unit = 0; unit < count; ++unit) {
    const Unit& current = layout.units[unit];
    const bool extends = unit > first && continues(layout.units[unit - 1], current) &&
                         instructions + current.instruction_count <= kMaxSpanInstructions;
    if (!extends) {
      first = unit;
      instructions = 0;
    }
    instructions += current.instruction_count;
    for (std::uint32_t member = first; member <= unit; ++member) spans[member] = UnitSpan{first, unit + 1};
  }
  return spans;
}

Unit span_unit(const CompiledLayout& layout, UnitSpan span) {
  Unit merged;
  for (std::uint32_t unit = span.first; unit < span.end; ++unit) {
    const Unit& part = layout.units.at(unit);
    for (const std::uint32_t function : part.functions) {
      if (merged.functions.empty() || merged.functions.back() != function) merged.functions.push_back(function);
    }
    merged.blocks.insert(merged.blocks.end(), part.blocks.begin(), part.blocks.end());
    merged.instruction_count += part.instruction_count;
    merged.source_bytes += part.source_bytes;
  }
  return merged;
}

}  // namespace wavestack::wasm::compiler
