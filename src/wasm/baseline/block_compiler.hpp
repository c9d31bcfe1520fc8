// The baseline compiler: one unit of a compiled layout into machine code for the cpu device
// (x86-64), a block at a time in one pass over its records, with no optimisation: each record
// becomes a few instructions over the value stack's slots (or a call of a runtime helper for
// the rare and the intricate ones: float arithmetic, division, conversions, tables, globals).
// It builds a unit in microseconds where the in-process C++ compiler takes tens of
// milliseconds, so a program's first run waits for no compiler; hot units are rebuilt by the
// optimising tier in the background (cpu_tiers.hpp).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>

#include "wasm/baseline/baseline_unit.hpp"
#include "wasm/compiler/compiled_layout.hpp"
#include "wasm/module/program.hpp"

namespace wavestack::wasm::baseline {

// The baseline cannot compile here (another processor, or no executable memory to be had: a
// kernel that refuses writable-and-executable mappings, the arena full): the caller builds the
// unit another way.
class BaselineUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Whether this build and processor run baseline code (x86-64 only).
[[nodiscard]] bool baseline_supported();

// The unit's blocks, their code in the process's code arena (kept for the process's life).
// `function_entries`: the layout's entry block per defined function. Throws std::logic_error
// for a record the compiler does not know (the validator admits none) and BaselineUnavailable
// when it cannot compile here.
[[nodiscard]] std::unique_ptr<BaselineUnit> compile_unit(const Program& program, const compiler::CompiledLayout& layout,
                                                         std::uint32_t unit);

}  // namespace wavestack::wasm::baseline
