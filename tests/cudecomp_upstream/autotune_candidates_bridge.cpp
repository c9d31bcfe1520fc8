#include "autotune_candidates_bridge.hpp"

#include <cstdlib>

#include "decomp/autotune.hpp"
#include "decomp/autotune_candidates.hpp"
#include "decomp/config.hpp"
#include "decomp/error.hpp"

namespace wavestack::upstream_tests {
namespace decomp = wavestack::decomp;
namespace {

// Upstream's candidate functions answer for its build, a GPU one with NCCL: the same target in
// ours (a CUDA build on a device of its own, CUDA-aware MPI).
constexpr decomp::TuneTarget kGpuBuild{true, true, false, true};

template <typename Candidates>
auto translating_errors(Candidates&& candidates) {
  try {
    return candidates();
  } catch (const decomp::DecompError& error) {
    throw CandidateError(error.code(), error.what());
  }
}

cudecompGridDescAutotuneOptions_t tuning_backends(const cudecompGridDescAutotuneOptions_t& options) {
  auto tuning = options;
  tuning.autotune_transpose_backend = true;
  tuning.autotune_halo_backend = true;
  return tuning;
}

}  // namespace

std::vector<cudecompTransposeCommBackend_t> gpu_transpose_backend_candidates(
    const cudecompGridDescAutotuneOptions_t& options) {
  return translating_errors([&] {
    return decomp::transpose_backend_candidates(decomp::default_config(), tuning_backends(options), kGpuBuild,
                                                std::getenv("CUDECOMP_AUTOTUNE_TRANSPOSE_BACKENDS"));
  });
}

std::vector<cudecompHaloCommBackend_t> gpu_halo_backend_candidates(const cudecompGridDescAutotuneOptions_t& options) {
  return translating_errors([&] {
    return decomp::halo_backend_candidates(decomp::default_config(), tuning_backends(options), kGpuBuild,
                                           std::getenv("CUDECOMP_AUTOTUNE_HALO_BACKENDS"));
  });
}

std::vector<std::array<int32_t, 2>> pdims_candidates(int nranks) {
  return translating_errors([&] {
    cudecompGridDescConfig_t config = decomp::default_config();
    for (auto& extent : config.gdims) extent = nranks;
    std::vector<std::array<int32_t, 2>> result;
    for (const auto& pdims : decomp::pdims_candidates(nranks, config, true)) result.push_back({pdims[0], pdims[1]});
    return result;
  });
}

}  // namespace wavestack::upstream_tests
