#include "decomp/mpi_device_support.hpp"

#include <mpi.h>

#include <cstdlib>
#include <string_view>

#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

#include "decomp/error.hpp"

namespace wavestack::decomp {

namespace {
constexpr const char* kOverride = "WAVESTACK_MPI_CUDA_AWARE";
}  // namespace

int mpi_reported_cuda_support() {
#if defined(OMPI_HAVE_MPI_EXT_CUDA) && OMPI_HAVE_MPI_EXT_CUDA
  return MPIX_Query_cuda_support() == 1 ? 1 : 0;
#else
  return -1;
#endif
}

bool mpi_takes_device_buffers(const char* override_value, int reported) {
  if (override_value != nullptr && *override_value != '\0') {
    const std::string_view text = override_value;
    if (text == "1") return true;
    if (text == "0") return false;
    invalid_argument(kOverride,
                     "must be 1 (MPI takes device buffers) or 0 (it does not), got '" + std::string(text) + "'");
  }
  return reported != 0;
}

bool this_mpi_takes_device_buffers() {
  const char* override_value = std::getenv(kOverride);
  // The override decides alone; MPI is asked only without one.
  if (override_value != nullptr && *override_value != '\0') return mpi_takes_device_buffers(override_value, -1);
  return mpi_takes_device_buffers(nullptr, mpi_reported_cuda_support());
}

void require_mpi_device_buffers(const std::string& backend) {
  if (this_mpi_takes_device_buffers()) return;
  not_supported(
      "backend " + backend +
      " would hand device buffers to MPI, and this MPI is not CUDA-aware (MPIX_Query_cuda_support() is 0, or " +
      kOverride + "=0); use an NCCL backend, host buffers or a CUDA-aware MPI (set " + kOverride +
      "=1 if it is CUDA-aware although it reports otherwise)");
}

}  // namespace wavestack::decomp
