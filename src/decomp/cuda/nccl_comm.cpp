#include "decomp/cuda/nccl_comm.hpp"

#include <utility>

#include "decomp/device_support.hpp"
#include "decomp/error.hpp"

namespace wavestack::decomp::cuda {

void check_nccl(ncclResult_t status, const char* call) {
  if (status != ncclSuccess) throw nccl_failure(call, ncclGetErrorString(status));
}

NcclComm::NcclComm(MPI_Comm comm) {
  int rank = 0, size = 1;
  check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  ncclUniqueId id{};
  if (rank == 0) check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
  check_mpi(MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, comm), "MPI_Bcast");
  check_nccl(ncclCommInitRank(&comm_, size, id, rank), "ncclCommInitRank");
}

NcclComm::NcclComm(std::shared_ptr<const NcclComm> parent, int color, int key) : parent_(std::move(parent)) {
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 18, 0)
  // Default configuration (null): blocking, and no resources shared with the parent.
  check_nccl(ncclCommSplit(parent_->get(), color, key, &comm_, nullptr), "ncclCommSplit");
#else
  (void)color;
  (void)key;
  not_supported("ncclCommSplit needs NCCL 2.18 or newer");
#endif
}

NcclComm::~NcclComm() {
  // Destruction is collective for NCCL as for MPI; errors cannot be reported from here.
  if (comm_ != nullptr) ncclCommDestroy(comm_);
}

}  // namespace wavestack::decomp::cuda
