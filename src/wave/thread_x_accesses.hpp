// Which registers only ever hold thread_id(0), and which buffers loads and stores index with
// them: both backends' proof that removes those accesses' bounds checks starts here (the
// native cpu device per workgroup, cpp_emitter.cpp; Vulkan per launch, glsl_bounds_proofs.cpp).
#pragma once

#include <cstdint>
#include <set>

#include "wave/ir.hpp"

namespace wavestack::wave {

struct ThreadXAccesses {
  std::set<Reg> registers;     // registers holding only thread_id(0) (or the zero they start at)
  std::set<uint32_t> buffers;  // buffers some load or store indexes with one of them
};

[[nodiscard]] ThreadXAccesses find_thread_x_accesses(const Module& module);

}  // namespace wavestack::wave
