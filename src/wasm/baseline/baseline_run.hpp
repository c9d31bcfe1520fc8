// The run loop of baseline units on the cpu device: compiled_run.glsl's dispatch loop over a
// unit's blocks, with the block step of a generated unit's runs (unit_codegen.cpp) written once
// in C++ over the same device library: credit, fuel and quantum counted alike, calls, returns
// and branches made by frames.glsl, call and bulk blocks run as generated units run them. So
// results, fuel, traps and the places a dispatch stops are those of every other tier.
#pragma once

#include <cstdint>

#include "wasm/baseline/baseline_unit.hpp"

namespace wavestack::wasm::baseline {

// compiled_run(quantum, budget) of `unit` over one instance's buffers (a CpuUnitFunction with
// the unit as a sixth argument; compile_unit's entry thunk supplies it).
std::uint32_t baseline_unit_run(const std::uint32_t* program, std::uint32_t* state, std::uint32_t* memory,
                                std::uint32_t quantum, std::uint32_t budget, const BaselineUnit* unit);

// The same, going on from unit to unit while the units control reaches are baseline units too
// (`links`), as the host would run them one after another: no registers stored and reloaded,
// no return to the host's loop at each crossing (graphviz.wasm's calls cross units often).
std::uint32_t baseline_linked_run(const std::uint32_t* program, std::uint32_t* state, std::uint32_t* memory,
                                  std::uint32_t quantum, std::uint32_t budget, const BaselineUnit* unit,
                                  const UnitLinks& links);

}  // namespace wavestack::wasm::baseline
