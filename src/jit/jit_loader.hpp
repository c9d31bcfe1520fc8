// Finds and loads the in-process compiler (cxx_jit.hpp) once per process: its shared library
// lies beside the module that links this loader (the Python extension), or at the path this
// build gave it (the C++ tests), or at $WAVESTACK_JIT_LIBRARY.
#pragma once

#include <string>

#include "jit/cxx_jit.hpp"

namespace wavestack::jit {

// The compiler, or null when this build has none or its library does not load; `why_not`
// (when given) then says which. Thread-safe; loads at most once.
[[nodiscard]] CxxJit* cxx_jit(std::string* why_not = nullptr);

}  // namespace wavestack::jit
