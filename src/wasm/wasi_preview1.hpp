// The 46 functions of `wasi_snapshot_preview1` with their core WebAssembly signatures (as
// the WASI preview-1 witx lowers them: pointers, sizes, fds and errnos are i32; offsets,
// rights, timestamps and cookies are i64). Imports from that module are checked against
// this table at load, so a program built for another WASI version fails before any work.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "wasm/module.hpp"

namespace wavestack::wasm {

inline constexpr std::string_view kWasiModule = "wasi_snapshot_preview1";

struct WasiFunction {
  std::string_view name;
  std::vector<ValType> params;
  std::vector<ValType> results;
};

// In the witx order; the index is the function's id on the device.
[[nodiscard]] std::span<const WasiFunction> wasi_preview1_functions();

// The entry named `name`, or nullptr.
[[nodiscard]] const WasiFunction* find_wasi_function(std::string_view name);

// Throws UnsupportedFeature (feature "WASI") for an import from wasi_snapshot_preview1 that
// is not a function, has an unknown name or another signature; the message names the import.
void check_wasi_imports(const Module& module);

}  // namespace wavestack::wasm
