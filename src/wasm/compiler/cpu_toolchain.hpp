// The cpu device's native code path for compiled mode: the host's C++ compiler turns a
// unit's generated C++ (device/compiled_glsl.hpp) into a shared library, cached on disk under
// the runtime's cache directory and keyed by the source, the compiler and its flags, then
// loaded into the process. This makes the cpu device an ahead-of-time compiler whose output
// is ordinary, debuggable (and sanitizable) C++.
#pragma once

#include <optional>
#include <string>

#include "wasm/instances/compiled_code.hpp"

namespace wavestack::wasm::compiler {

struct CpuToolchain {
  std::string compiler;  // an executable path
  std::string version;   // the first line of `compiler --version` (part of the cache key)
  std::string flags;     // extra flags from WAVESTACK_UNIT_CXXFLAGS (sanitizers, -O0 -g ...)
};

// $WAVESTACK_CXX, else $CXX, else c++, g++ or clang++ on PATH; nullopt when none runs.
[[nodiscard]] std::optional<CpuToolchain> find_cpu_toolchain();

struct LoadedUnit {
  void* entry = nullptr;   // the library's `symbol`
  void* second = nullptr;  // its `second_symbol`, when asked for
  bool from_cache = false;
};

// Builds (or finds in the cache) and loads the shared library of `source`, and finds `symbol`
// (and `second_symbol` unless null). Throws
// std::runtime_error with the compiler's messages when the build fails. Libraries stay
// loaded for the life of the process (instances may still run their code).
[[nodiscard]] LoadedUnit load_cpu_unit(const CpuToolchain& toolchain, const std::string& source, const char* symbol,
                                       const char* second_symbol = nullptr);

}  // namespace wavestack::wasm::compiler
