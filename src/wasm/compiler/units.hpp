// Partitions every defined function's basic blocks into bounded compilation units.
// Small functions share a unit; a function too large for one unit gets units of its own
// (contiguous in unit order, for locality); an oversized block is split. Every function is
// always compiled: `compile_functions` only decides which are grouped first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "wasm/compiler/block_split.hpp"
#include "wasm/compiler/compiled_layout.hpp"
#include "wasm/module/module.hpp"

namespace wavestack::wasm::compiler {

inline constexpr std::uint32_t kMaxCompileLimit = 256;

struct UnitOptions {
  std::uint32_t compile_limit = kMaxCompileLimit;  // lowered instructions per unit, 1..256
  std::size_t max_source_bytes = 65536;            // estimated generated source per unit
  // Function indices in the module's index space (imports first) to group first, in this
  // order; each must name a defined function. Repeats after the first are ignored.
  std::vector<std::uint32_t> compile_functions;
  // Called for many blocks at once, on the runtime's thread pool: must be thread-safe.
  SourceEstimate estimate_source;  // empty: default_source_estimate
};

// A stand-in until source generation exists: 120 bytes per instruction, 40 per block.
[[nodiscard]] std::size_t default_source_estimate(const Block& block);

// Throws std::invalid_argument for a compile limit outside 1..256 or a compile_functions
// entry that is not a defined function, and std::length_error when one record cannot fit
// the source limit. Deterministic: equal inputs give equal layouts.
[[nodiscard]] CompiledLayout partition_units(const Module& module, const UnitOptions& options = {});

}  // namespace wavestack::wasm::compiler
