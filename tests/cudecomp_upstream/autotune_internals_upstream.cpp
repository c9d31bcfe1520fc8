// Upstream cuDecomp's internal autotuner functions (include/internal/autotune.h of
// ../shared/cudecomp-upstream), which its api_tests.cc calls directly, answered with
// wavestack's candidate functions (autotune_candidates_bridge.hpp); their refusals become
// upstream's exceptions (internal/exceptions.h), which the tests expect. Compiled against
// upstream's headers. A test helper, not part of the product: the library exports no C++ API.
#include <array>
#include <cstdint>
#include <vector>

#include "autotune_candidates_bridge.hpp"
#include "cudecomp.h"
#include "internal/autotune.h"
#include "internal/exceptions.h"

// CUDECOMP_STRUCT_SIZE is wavestack's: the include path must have found upstream's header.
#ifdef CUDECOMP_STRUCT_SIZE
#error "compiled against wavestack's cudecomp.h; upstream's was meant"
#endif

namespace {

template <typename Candidates>
auto as_upstream(Candidates&& candidates) {
  try {
    return candidates();
  } catch (const wavestack::upstream_tests::CandidateError& error) {
    if (error.result() == CUDECOMP_RESULT_NOT_SUPPORTED) throw cudecomp::NotSupported(__FILE__, __LINE__, error.what());
    throw cudecomp::InvalidUsage(__FILE__, __LINE__, error.what());
  }
}

}  // namespace

namespace cudecomp {

std::vector<cudecompTransposeCommBackend_t> getAutotuneTransposeBackendCandidates(
    const cudecompGridDescAutotuneOptions_t* options) {
  return as_upstream([&] { return wavestack::upstream_tests::gpu_transpose_backend_candidates(*options); });
}

std::vector<cudecompHaloCommBackend_t> getAutotuneHaloBackendCandidates(
    const cudecompGridDescAutotuneOptions_t* options) {
  return as_upstream([&] { return wavestack::upstream_tests::gpu_halo_backend_candidates(*options); });
}

// The rank order places ranks on a grid; it changes no candidate in wavestack's autotuner.
std::vector<std::array<int32_t, 2>> getAutotunePdimCandidates(int nranks, cudecompRankOrder_t /*rank_order*/) {
  return as_upstream([&] { return wavestack::upstream_tests::pdims_candidates(nranks); });
}

}  // namespace cudecomp
