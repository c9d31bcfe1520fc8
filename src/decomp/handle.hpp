// The library handle of cudecompInit: a private duplicate of the user's communicator (so our
// messages never match the user's) and the MPI element types used by every grid.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <memory>

#include "decomp/performance_report.hpp"

namespace wavestack::decomp {

class Handle {
 public:
  // Collective over `comm`. Throws DecompError when MPI is not initialized or comm is invalid.
  explicit Handle(MPI_Comm comm);
  ~Handle();
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;

  MPI_Comm comm() const { return comm_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  // A contiguous MPI type of 4, 8 or 16 bytes, so message counts are in elements.
  MPI_Datatype element_type(size_t element_bytes) const;
  // The handle's NCCL communicator over comm() (CUDA build): empty until the first NCCL
  // operation of any of its grids creates it; the grids' row and column communicators are
  // split from it. A cache, so it may be filled through a const handle.
  std::shared_ptr<void>& nccl_comm_cache() const { return nccl_comm_; }
  // Whether every rank of comm() sees a CUDA device (always false in the CPU-only build),
  // decided once, collectively, by the constructor (device_agreement.hpp): the autotuner times
  // on device buffers and cudecompMalloc returns device memory only where this holds, so that
  // all ranks take the same side. Rank 0 prints a warning when the ranks disagree.
  bool device_on_every_rank() const { return device_on_every_rank_; }
  // Whether, with a device on every rank, two ranks use the same one (an oversubscribed GPU):
  // NCCL cannot run there, so the autotuner leaves its backends out. Decided once, collectively.
  bool device_shared_by_ranks() const { return device_shared_by_ranks_; }
  // CUDECOMP_ENABLE_PERFORMANCE_REPORT and its settings, read once by the constructor
  // (performance_report.hpp).
  const PerformanceReportSettings& performance_report() const { return performance_report_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  mutable std::shared_ptr<void> nccl_comm_;
  int rank_ = 0;
  int size_ = 1;
  bool device_on_every_rank_ = false;
  bool device_shared_by_ranks_ = false;
  PerformanceReportSettings performance_report_;
  MPI_Datatype types_[3] = {MPI_DATATYPE_NULL, MPI_DATATYPE_NULL, MPI_DATATYPE_NULL};
};

}  // namespace wavestack::decomp
