// The one entry point for loading: decode, validate, then check the imports against what
// the host provides. Imports are the only part of a valid module whose support depends on
// the embedding, so the caller names the host modules it provides (WASI, the spec tests'
// `spectest`); anything imported from another module would need module linking.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "wasm/module/module.hpp"

namespace wavestack::wasm {

struct LoadOptions {
  // Module names whose imports the host provides (their names and types are checked when
  // instances are created, as the spec's linking step does).
  std::vector<std::string> host_modules{"wasi_snapshot_preview1"};
};

[[nodiscard]] Module load_module(const std::uint8_t* data, std::size_t size, const LoadOptions& options);

// Throws UnsupportedFeature for the first import that does not come from a host module.
void check_imports(const Module& module, const LoadOptions& options);

}  // namespace wavestack::wasm
