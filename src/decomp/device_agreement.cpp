#include "decomp/device_agreement.hpp"

#include "decomp/error.hpp"

namespace wavestack::decomp {

DeviceCensus take_device_census(MPI_Comm comm, bool local_device) {
  DeviceCensus census;
  check_mpi(MPI_Comm_size(comm, &census.ranks), "MPI_Comm_size");
  const int mine = local_device ? 1 : 0;
  check_mpi(MPI_Allreduce(&mine, &census.with_device, 1, MPI_INT, MPI_SUM, comm), "MPI_Allreduce");
  return census;
}

std::string device_disagreement_warning(const DeviceCensus& census) {
  return "CUDECOMP:WARN: " + std::to_string(census.with_device) + " of " + std::to_string(census.ranks) +
         " ranks see a CUDA device; for agreement across ranks, cudecompMalloc returns host memory and the "
         "autotuner times the MPI backends on host buffers on every rank (check CUDA_VISIBLE_DEVICES and the "
         "drivers of the nodes)\n";
}

}  // namespace wavestack::decomp
