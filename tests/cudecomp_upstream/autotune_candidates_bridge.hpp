// wavestack's autotuner candidates, for autotune_internals_upstream.cpp: that file is compiled
// against upstream's headers and answers upstream's internal candidate functions with these.
// "cudecomp.h" is upstream's header there and wavestack's here (identical ABI, checked by
// tests/cudecomp_upstream/decomp_header_abi_test.c); nothing else of either header crosses this seam. A test
// helper, not part of the product.
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "cudecomp.h"

namespace wavestack::upstream_tests {

// A refusal of wavestack's candidate functions, with its cudecompResult_t.
class CandidateError : public std::runtime_error {
 public:
  CandidateError(cudecompResult_t result, const std::string& message) : std::runtime_error(message), result_(result) {}
  cudecompResult_t result() const noexcept { return result_; }

 private:
  cudecompResult_t result_;
};

// The backend families of a CUDA build on a GPU (MPI, then NCCL; no NVSHMEM), less what the
// options disable, filtered by CUDECOMP_AUTOTUNE_TRANSPOSE_BACKENDS / _HALO_BACKENDS, whatever the
// options' autotune_*_backend flags say (upstream's functions list the candidates of a tuning run).
std::vector<cudecompTransposeCommBackend_t> gpu_transpose_backend_candidates(
    const cudecompGridDescAutotuneOptions_t& options);
std::vector<cudecompHaloCommBackend_t> gpu_halo_backend_candidates(const cudecompGridDescAutotuneOptions_t& options);

// Every Prows x Pcols of `nranks` that CUDECOMP_AUTOTUNE_PDIMS and the _P_ROW_RANGE/_P_COL_RANGE
// variables leave, on a grid large enough that none leaves a pencil empty (upstream's function
// knows no gdims).
std::vector<std::array<int32_t, 2>> pdims_candidates(int nranks);

}  // namespace wavestack::upstream_tests
