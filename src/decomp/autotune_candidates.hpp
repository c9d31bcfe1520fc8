// Which communication backends the autotuner times, and in which order: a pure function of the
// build, whether a CUDA device is there, the autotune options and the environment's lists, so
// the CPU-only CI checks the CUDA build's choices too (tests/cpp/test_decomp_gpu_logic.cpp).
// Only the timing itself (autotune.cpp, through device_dispatch.hpp) touches CUDA.
#pragma once

#include <string>
#include <vector>

#include "cudecomp.h"

namespace wavestack::decomp {

// Where the autotuner's trials run. On the host (the CPU-only build, or a CUDA build without a
// device) only the MPI backends can move host buffers. On a device (a CUDA build that sees a
// CUDA device, where cudecompMalloc hands out device memory) the trials use device buffers, as
// upstream cuDecomp's do, and NCCL joins the MPI backends (CUDA-aware MPI).
struct TuneTarget {
  bool cuda_build = false;
  bool device = false;  // a CUDA device is present (meaningful only in a CUDA build)
  // Two ranks use one device: NCCL refuses such a communicator, so its backends are left out.
  bool shared_device = false;
  // MPI may be handed device buffers (mpi_device_support.hpp), or there is one rank and it never
  // is: where not, the MPI backends are left out on a device.
  bool mpi_device_buffers = true;
  bool on_device() const { return cuda_build && device; }
};

// The transpose backends to time. Without options.autotune_transpose_backend: the configured
// one alone. Otherwise upstream's order (MPI_P2P, MPI_P2P_PL, MPI_A2A, then NCCL, NCCL_PL on a
// device) less what options.disable_mpi_backends / disable_nccl_backends remove (NVSHMEM is
// never a candidate: not implemented, so disable_nvshmem_backends changes nothing), then
// filtered by `env_list` (CUDECOMP_AUTOTUNE_TRANSPOSE_BACKENDS; null or "" when unset): "A,B"
// keeps the named backends, "^A,B" drops them. NOT_SUPPORTED when the options leave nothing,
// INVALID_USAGE for an unknown name or a list that leaves nothing.
std::vector<cudecompTransposeCommBackend_t> transpose_backend_candidates(
    const cudecompGridDescConfig_t& config, const cudecompGridDescAutotuneOptions_t& options, const TuneTarget& target,
    const char* env_list);

// The same for halo backends: MPI, MPI_BLOCKING, then NCCL on a device;
// env_list is CUDECOMP_AUTOTUNE_HALO_BACKENDS.
std::vector<cudecompHaloCommBackend_t> halo_backend_candidates(const cudecompGridDescConfig_t& config,
                                                               const cudecompGridDescAutotuneOptions_t& options,
                                                               const TuneTarget& target, const char* env_list);

// "a, b ,,c" -> {"a", "b", "c"}: the comma lists of the CUDECOMP_AUTOTUNE_* variables.
std::vector<std::string> split_env_list(const std::string& text);

}  // namespace wavestack::decomp
