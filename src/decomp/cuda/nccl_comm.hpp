// An NCCL communicator over the ranks of an MPI communicator, for the NCCL backends: rank 0
// creates the unique id and MPI broadcasts it, so creation is collective over that
// communicator. Created lazily, on the first NCCL operation of a grid's row or column.
#pragma once

#include <mpi.h>
#include <nccl.h>

namespace wavestack::decomp::cuda {

class NcclComm {
 public:
  explicit NcclComm(MPI_Comm comm);
  ~NcclComm();
  NcclComm(const NcclComm&) = delete;
  NcclComm& operator=(const NcclComm&) = delete;

  ncclComm_t get() const { return comm_; }

 private:
  ncclComm_t comm_ = nullptr;
};

// Throws DecompError (NCCL_ERROR) naming `call` when `status` is not ncclSuccess.
void check_nccl(ncclResult_t status, const char* call);

}  // namespace wavestack::decomp::cuda
