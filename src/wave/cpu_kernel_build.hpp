// Compiles a kernel's C++ (cpp_emitter.hpp) with the in-process compiler (src/jit, -O3, after
// the precompiled cpu_preamble) and links it, or loads its object from the disk cache: kind
// `wave-cpu`, keyed by the compiler's identity, the preamble and the kernel's text (which holds
// the IR and the code generator's choices); an entry holds its key before the object, so a
// damaged or misplaced entry is a miss, never loaded. A kernel is linked once per process.
#pragma once

#include <string>

#include "wave/cpu_abi.hpp"

namespace wavestack::wave {

struct BuiltCpuKernel {
  cpu_abi::KernelEntry entry = nullptr;
  bool from_cache = false;  // linked from the disk or process cache, not compiled now
};

// Throws std::runtime_error when this build or machine has no in-process compiler (naming
// why) or the text does not compile (the compiler's messages).
[[nodiscard]] BuiltCpuKernel build_cpu_kernel(const std::string& source);

}  // namespace wavestack::wave
