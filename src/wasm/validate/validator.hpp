// Validation of a decoded module against WebAssembly 2.0 for the supported profile.
// Throws InvalidModule (with the spec's reason) or UnsupportedFeature; on success fills
// module.program with the executable form of every function.
#pragma once

#include "wasm/module/module.hpp"

namespace wavestack::wasm {

void validate_module(Module& module);

}  // namespace wavestack::wasm
