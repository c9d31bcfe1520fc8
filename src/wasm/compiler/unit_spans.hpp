// Spans: the cpu device's optimising tiers build a function too large for one unit as one
// piece of up to kMaxSpanInstructions records, its consecutive units together, where the layout
// (shared with Vulkan, whose drivers need units of at most compile_limit) cuts it into units.
// Control moving between the units of a span stays in one run of generated code, its locals in
// variables: crossing from one unit to the next took a spill of the run's locals, a return to
// the host's loop and a reload (docs/decisions/0017-wasmgpu-cpu-unit-spans.md).
#pragma once

#include <cstdint>
#include <vector>

#include "wasm/compiler/compiled_layout.hpp"

namespace wavestack::wasm::compiler {

inline constexpr std::uint32_t kMaxSpanInstructions = 1024;

// Units [first, end) of the layout.
struct UnitSpan {
  std::uint32_t first = 0;
  std::uint32_t end = 0;

  [[nodiscard]] std::uint32_t size() const { return end - first; }
  bool operator==(const UnitSpan&) const = default;
};

// Each unit's span: consecutive units that each hold blocks of one and the same function only
// (a function larger than a unit has units of its own), whose block ids follow on, taken
// greedily from the function's first unit while their instructions total at most
// kMaxSpanInstructions; every other unit is a span of its own.
[[nodiscard]] std::vector<UnitSpan> unit_spans(const CompiledLayout& layout);

// The span's units as one unit: their blocks in order, the function, the instruction count.
[[nodiscard]] Unit span_unit(const CompiledLayout& layout, UnitSpan span);

}  // namespace wavestack::wasm::compiler
