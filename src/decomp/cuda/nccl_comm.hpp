// NCCL communicators for the NCCL backends. A handle has one over all its ranks: rank 0 creates
// the unique id and MPI broadcasts it, so creation is collective over the handle's MPI
// communicator. A grid's row and column groups get theirs from it with ncclCommSplit (NCCL
// 2.18+), which reuses the parent's bootstrap instead of a new unique id per group. Both are
// created lazily, on the first NCCL operation (device_dispatch.cpp).
#pragma once

#include <mpi.h>
#include <nccl.h>

#include <memory>

namespace wavestack::decomp::cuda {

// Whether the NCCL this is compiled against has ncclCommSplit; without it each group's
// communicator is created over the group's MPI communicator instead.
inline constexpr bool kNcclHasCommSplit = NCCL_VERSION_CODE >= NCCL_VERSION(2, 18, 0);

class NcclComm {
 public:
  // Over the ranks of `comm`, in their order there. Collective over `comm`.
  explicit NcclComm(MPI_Comm comm);
  // The ranks of `parent` that pass the same `color`, ordered by `key`. Collective over all of
  // parent's ranks. NOT_SUPPORTED where kNcclHasCommSplit is false.
  NcclComm(std::shared_ptr<const NcclComm> parent, int color, int key);
  ~NcclComm();
  NcclComm(const NcclComm&) = delete;
  NcclComm& operator=(const NcclComm&) = delete;

  ncclComm_t get() const { return comm_; }

 private:
  ncclComm_t comm_ = nullptr;
  // A split communicator keeps its parent alive, so the parent is destroyed after it.
  std::shared_ptr<const NcclComm> parent_;
};

// Throws DecompError (NCCL_ERROR) naming `call` when `status` is not ncclSuccess.
void check_nccl(ncclResult_t status, const char* call);

}  // namespace wavestack::decomp::cuda
