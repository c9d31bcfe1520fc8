#include "decomp/handle.hpp"

#include <cstdio>
#include <string>

#include "decomp/device_agreement.hpp"
#include "decomp/device_dispatch.hpp"
#include "decomp/error.hpp"

namespace wavestack::decomp {

void check_mpi(int status, const char* call) {
  if (status == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(status, text, &length);
  throw DecompError(CUDECOMP_RESULT_MPI_ERROR, std::string(call) + " failed: " + std::string(text, length));
}

Handle::Handle(MPI_Comm comm) {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (!initialized || finalized) invalid_argument("mpi_comm", "MPI is not initialized (or already finalized)");
  if (comm == MPI_COMM_NULL) invalid_argument("mpi_comm", "MPI_COMM_NULL is not a communicator");
  int inter = 0;
  check_mpi(MPI_Comm_test_inter(comm, &inter), "MPI_Comm_test_inter");
  if (inter) invalid_argument("mpi_comm", "intercommunicators are not supported");
  // Errors come back as codes so they become exceptions instead of aborting the job.
  check_mpi(MPI_Comm_dup(comm, &comm_), "MPI_Comm_dup");
  MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  DeviceCensus census;
  try {
    census = take_device_census(comm_, device_available());
  } catch (const DecompError&) {
    MPI_Comm_free(&comm_);  // the destructor does not run for a constructor that throws
    throw;
  }
  device_on_every_rank_ = census.every_rank();
  // (The same on every rank, so every rank takes part in the gather or none does.)
  if (device_on_every_rank_) {
    try {
      device_shared_by_ranks_ = ranks_share_a_device(comm_, current_device_identity());
    } catch (const DecompError&) {
      MPI_Comm_free(&comm_);
      throw;
    }
  }
  if (census.ranks_disagree() && rank_ == 0) {
    std::fputs(device_disagreement_warning(census).c_str(), stdout);
    std::fflush(stdout);
  }
  performance_report_ = PerformanceReportSettings::from_environment(rank_);
  const int sizes[3] = {4, 8, 16};
  for (int i = 0; i < 3; ++i) {
    MPI_Type_contiguous(sizes[i], MPI_BYTE, &types_[i]);
    MPI_Type_commit(&types_[i]);
  }
}

Handle::~Handle() {
  // The NCCL communicator goes with the handle (grids that split from it keep it alive).
  nccl_comm_.reset();
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;  // nothing can be freed after MPI_Finalize
  for (auto& type : types_) {
    if (type != MPI_DATATYPE_NULL) MPI_Type_free(&type);
  }
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

MPI_Datatype Handle::element_type(size_t element_bytes) const {
  switch (element_bytes) {
    case 4:
      return types_[0];
    case 8:
      return types_[1];
    case 16:
      return types_[2];
    default:
      throw DecompError(CUDECOMP_RESULT_INTERNAL_ERROR, "no MPI type for this element size");
  }
}

}  // namespace wavestack::decomp
