// Which communication backends a build offers, and the errors for the others. The answer
// depends on the build's features only (passed in, so the CUDA build's answers are unit-tested
// in the CPU-only build too): MPI backends always; the NCCL ones when the CUDA backend is built
// (on device buffers only); NVSHMEM never (enum values accepted, NOT_SUPPORTED).
#pragma once

#include <string>
#include <vector>

#include "cudecomp.h"

namespace wavestack::decomp {

struct BuildFeatures {
  bool cuda = false;  // device buffers, CUDA-aware MPI and NCCL backends
};

// The features of the library as compiled (device_dispatch.hpp): the CUDA build offers the NCCL
// backends, which run on device buffers only.
BuildFeatures this_build();

std::vector<cudecompTransposeCommBackend_t> offered_transpose_backends(const BuildFeatures& build);
std::vector<cudecompHaloCommBackend_t> offered_halo_backends(const BuildFeatures& build);

// Unknown values are INVALID_USAGE; known ones the build does not offer are NOT_SUPPORTED. The
// message starts with `argument` and lists what the build offers.
void check_transpose_backend(cudecompTransposeCommBackend_t backend, const char* argument, const BuildFeatures& build);
void check_halo_backend(cudecompHaloCommBackend_t backend, const char* argument, const BuildFeatures& build);

// "MPI_P2P, MPI_P2P_PL, MPI_A2A": the tokens of a backend list, for messages.
std::string transpose_backend_list(const std::vector<cudecompTransposeCommBackend_t>& backends);
std::string halo_backend_list(const std::vector<cudecompHaloCommBackend_t>& backends);

}  // namespace wavestack::decomp
