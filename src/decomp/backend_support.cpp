#include "decomp/backend_support.hpp"

#include <algorithm>

#include "decomp/config.hpp"
#include "decomp/device_dispatch.hpp"
#include "decomp/error.hpp"

namespace wavestack::decomp {
namespace {

bool is_nvshmem(cudecompTransposeCommBackend_t backend) {
  return backend == CUDECOMP_TRANSPOSE_COMM_NVSHMEM || backend == CUDECOMP_TRANSPOSE_COMM_NVSHMEM_PL ||
         backend == CUDECOMP_TRANSPOSE_COMM_NVSHMEM_SM;
}

bool is_nvshmem(cudecompHaloCommBackend_t backend) {
  return backend == CUDECOMP_HALO_COMM_NVSHMEM || backend == CUDECOMP_HALO_COMM_NVSHMEM_BLOCKING;
}

// Why a known backend is missing: NVSHMEM is never built; anything else needs the CUDA build.
template <typename Backend>
std::string missing_reason(Backend backend, const BuildFeatures& build, const std::string& offered) {
  if (is_nvshmem(backend)) return "NVSHMEM backends are not implemented; this build offers " + offered;
  return build.cuda ? "this build offers " + offered : "CPU-only: " + offered;
}

}  // namespace

BuildFeatures this_build() {
  return {device_backend_built()};
}

std::vector<cudecompTransposeCommBackend_t> offered_transpose_backends(const BuildFeatures& build) {
  std::vector<cudecompTransposeCommBackend_t> backends = {
      CUDECOMP_TRANSPOSE_COMM_MPI_P2P, CUDECOMP_TRANSPOSE_COMM_MPI_P2P_PL, CUDECOMP_TRANSPOSE_COMM_MPI_A2A};
  if (build.cuda) {
    backends.push_back(CUDECOMP_TRANSPOSE_COMM_NCCL);
    backends.push_back(CUDECOMP_TRANSPOSE_COMM_NCCL_PL);
  }
  return backends;
}

std::vector<cudecompHaloCommBackend_t> offered_halo_backends(const BuildFeatures& build) {
  std::vector<cudecompHaloCommBackend_t> backends = {CUDECOMP_HALO_COMM_MPI, CUDECOMP_HALO_COMM_MPI_BLOCKING};
  if (build.cuda) backends.push_back(CUDECOMP_HALO_COMM_NCCL);
  return backends;
}

std::string transpose_backend_list(const std::vector<cudecompTransposeCommBackend_t>& backends) {
  std::string text;
  for (const auto backend : backends) text += (text.empty() ? "" : ", ") + std::string(transpose_backend_name(backend));
  return text;
}

std::string halo_backend_list(const std::vector<cudecompHaloCommBackend_t>& backends) {
  std::string text;
  for (const auto backend : backends) text += (text.empty() ? "" : ", ") + std::string(halo_backend_name(backend));
  return text;
}

void check_transpose_backend(cudecompTransposeCommBackend_t backend, const char* argument, const BuildFeatures& build) {
  const char* name = transpose_backend_name(backend);
  if (name == nullptr) {
    invalid_argument(argument, "unknown transpose backend value " + std::to_string(static_cast<int>(backend)));
  }
  const auto offered = offered_transpose_backends(build);
  if (std::find(offered.begin(), offered.end(), backend) != offered.end()) return;
  not_supported(std::string(argument) + ": transpose backend " + name + " is not supported in this build (" +
                missing_reason(backend, build, transpose_backend_list(offered)) + ")");
}

void check_halo_backend(cudecompHaloCommBackend_t backend, const char* argument, const BuildFeatures& build) {
  const char* name = halo_backend_name(backend);
  if (name == nullptr) {
    invalid_argument(argument, "unknown halo backend value " + std::to_string(static_cast<int>(backend)));
  }
  const auto offered = offered_halo_backends(build);
  if (std::find(offered.begin(), offered.end(), backend) != offered.end()) return;
  not_supported(std::string(argument) + ": halo backend " + name + " is not supported in this build (" +
                missing_reason(backend, build, halo_backend_list(offered)) + ")");
}

}  // namespace wavestack::decomp
