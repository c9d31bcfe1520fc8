// Builds one cpu unit's code at a tier (cpu_tiers.hpp) and loads it: through the in-process
// compiler (the unit's text against the precompiled freestanding preamble; objects cached on
// disk as `cpu-jit` entries, checksummed) or through the host's compiler (the standard
// preamble and the text as one translation unit, a shared library: cpu_toolchain.hpp).
#pragma once

#include <string>

#include "wasm/compiler/cpu_tiers.hpp"

namespace wavestack::wasm::compiler {

struct BuiltUnit {
  void* entry = nullptr;   // `symbol`
  void* second = nullptr;  // `second_symbol`, when asked for
  bool from_cache = false;
};

// `text`: device::compiled_cpu_unit_text or compiled_cpu_prefix_text. Throws
// std::runtime_error with the compiler's messages when the build fails, and when the tier's
// compiler is missing (no host C++ compiler, or no in-process compiler in this build).
[[nodiscard]] BuiltUnit build_cpu_unit(CpuTier tier, const std::string& text, const char* symbol,
                                       const char* second_symbol = nullptr);

}  // namespace wavestack::wasm::compiler
