// The text every kernel of the native cpu device is compiled after (cxx_jit.hpp's preamble):
// the launch records of cpu_abi.hpp, the C library's math functions, and the helpers that
// give each operation the emulator's semantics (emulator_handlers.cpp) in plain C++.
#pragma once

#include <string>

namespace wavestack::wave {

// One string for the process's life (the compiler finds its precompiled header by address).
[[nodiscard]] const std::string& cpu_preamble();

}  // namespace wavestack::wave
