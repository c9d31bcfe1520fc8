// Whether MPI may be handed device pointers. The MPI backends on device buffers pass device
// memory to MPI, as upstream cuDecomp does; an MPI built without CUDA support (Debian's and
// Ubuntu's Open MPI) then reads it as host memory and crashes in MPI_Isend. Where the MPI can
// say it lacks CUDA support, those backends are refused before any work starts (and left out
// of autotuning), and NCCL, host buffers or a CUDA-aware MPI are the ways on.
#pragma once

#include <string>

namespace wavestack::decomp {

// What the MPI library reports: 1 CUDA-aware, 0 not, -1 it cannot say (no Open MPI CUDA
// extension: MPICH, MVAPICH, ...). Open MPI's MPIX_Query_cuda_support, read at run time since
// the library loaded may differ from the headers built against.
int mpi_reported_cuda_support();

// The decision, from the WAVESTACK_MPI_CUDA_AWARE override ("1": trust MPI with device
// buffers, e.g. Open MPI whose UCX layer was built with CUDA while MPIX_Query_cuda_support says
// 0; "0": never; null or empty: no override) and what MPI reports. An MPI that cannot say is
// trusted, as upstream trusts every MPI. INVALID_USAGE naming the variable for any other text.
bool mpi_takes_device_buffers(const char* override_value, int reported);

// NOT_SUPPORTED naming `backend` (an MPI backend about to run on device buffers with remote
// peers) when this process's MPI does not take device buffers (the environment and the MPI as
// above); nothing otherwise.
void require_mpi_device_buffers(const std::string& backend);

// The same decision for this process, for the autotuner's candidates.
bool this_mpi_takes_device_buffers();

}  // namespace wavestack::decomp
