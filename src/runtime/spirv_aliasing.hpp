// SPIR-V's aliasing rule for buffers that share a binding. GLSL lets several buffer blocks name
// one binding (wasmgpu's shaders read an instance's state and memory as 32-bit words, as 64-bit
// value-stack slots and as quads of control words), and GLSL's rule is that buffer variables
// without `restrict` may alias; but SPIR-V lets a driver assume that two memory object
// declarations without the Aliased decoration do not, and glslang does not emit it. So a write
// through one view followed by a read of the same word through another could be reordered by
// a driver that uses the rule. The compiler adds the decoration to every variable that shares
// its descriptor set and binding with another.
#pragma once

#include <cstdint>
#include <vector>

namespace wavestack::runtime {

// Adds `OpDecorate %var Aliased` for each variable decorated with the same DescriptorSet and
// Binding as another, unless the variable itself is decorated Restrict or Aliased already
// (glslang puts a block's `restrict` on its member: such a block is marked); returns how many
// it added.
// Throws std::invalid_argument when `words` is not a SPIR-V module.
std::size_t mark_shared_bindings_aliased(std::vector<uint32_t>& words);

}  // namespace wavestack::runtime
