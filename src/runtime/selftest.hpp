// The smoke dispatch that `make demo` and `python -m wave_gpu selftest` run on a device: a
// float vector add through the whole runtime (compile, cache, upload, dispatch, download).
#pragma once

#include <string_view>
#include <vector>

#include "runtime/compute_context.hpp"

namespace wavestack::runtime {

// GLSL of the vector add: out[i] = a[i] + b[i] for i < n (push constant), workgroup size
// from specialization constant 0.
[[nodiscard]] std::string_view vector_add_shader_source();

// Runs out = a + b on the context and returns out. `a` and `b` must have equal sizes.
[[nodiscard]] std::vector<float> run_vector_add(ComputeContext& context, const std::vector<float>& a,
                                                const std::vector<float>& b, uint32_t workgroup_size = 64);

}  // namespace wavestack::runtime
