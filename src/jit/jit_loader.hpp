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

// The compiler when cxx_jit() has loaded it already, else null (never loads it).
[[nodiscard]] CxxJit* cxx_jit_if_loaded();

// What the compiler's identity (CxxJit::identity) is a function of, found without loading it
// (loading LLVM costs a warm start a few hundredths of a second): the library that would be
// loaded (its path, size and modification time) and, on x86-64, the processor's CPUID words
// that name its model and features. Empty where this build has no compiler, its library is
// missing, or the processor cannot be identified this way. Found once per process.
[[nodiscard]] const std::string& cxx_jit_identity_inputs();

}  // namespace wavestack::jit
