// Load-time checking of a module's imports from `wasi_snapshot_preview1` against the 46
// preview-1 signatures (wasi_signatures.hpp), so a program built for another WASI version, or
// one that imports a wrong signature, fails before any work.
#pragma once

#include "wasm/module/module.hpp"

namespace wavestack::wasm {

// Throws UnsupportedFeature (feature "WASI") for an import from wasi_snapshot_preview1 that
// is not a function, has an unknown name or another signature; the message names the import.
void check_wasi_imports(const Module& module);

}  // namespace wavestack::wasm
