// Builds one cpu unit's code at a tier (cpu_tiers.hpp) and loads it: through the in-process
// compiler (the unit's text against the precompiled freestanding preamble; objects cached on
// disk as `cpu-jit` entries under the unit's key, checksummed and holding their key) or through
// the host's compiler (the standard preamble and the text as one translation unit, a shared
// library keyed by its source: cpu_toolchain.hpp).
#pragma once

#include <optional>
#include <string>

#include "wasm/compiler/cpu_tiers.hpp"

namespace wavestack::wasm::baseline {
struct BaselineUnit;
}

namespace wavestack::wasm::compiler {

struct BuiltUnit {
  void* entry = nullptr;   // `symbol`
  void* second = nullptr;  // `second_symbol`, when asked for
  bool from_cache = false;
  const baseline::BaselineUnit* baseline = nullptr;  // the baseline tier's unit behind `entry`
};

struct UnitSymbols {
  const char* symbol = nullptr;
  const char* second_symbol = nullptr;  // optional
};

// The unit's code at an in-process tier from the disk cache, or nullopt (a miss, a damaged
// entry, an entry of another unit, a host tier). `unit_key`: what identifies the unit's text
// (CompiledModule: the module's code key, the unit and the kind); the tier, the compiler's
// identity and the preamble are added here.
[[nodiscard]] std::optional<BuiltUnit> load_cached_cpu_unit(CpuTier tier, const std::string& unit_key,
                                                            UnitSymbols symbols);

// Builds `text` (device::compiled_cpu_unit_text or compiled_cpu_prefix_text) at `tier`,
// stores it in the cache (in-process tiers, under `unit_key`) and loads it. Throws
// std::runtime_error with the compiler's messages when the build fails, and when the tier's
// compiler is missing (no host C++ compiler, or no in-process compiler in this build).
[[nodiscard]] BuiltUnit build_cpu_unit(CpuTier tier, const std::string& unit_key, const std::string& text,
                                       UnitSymbols symbols);

}  // namespace wavestack::wasm::compiler
