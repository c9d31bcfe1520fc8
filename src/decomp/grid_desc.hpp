// A grid descriptor: the process grid, its row and column communicators, and the transposes
// and halo updates on pencils of that grid. Arguments are checked before any communication.
#pragma once

#include <mpi.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "cudecomp.h"
#include "decomp/device_dispatch.hpp"
#include "decomp/geometry.hpp"
#include "decomp/pencil_layout.hpp"
#include "decomp/performance_report.hpp"
#include "decomp/transpose_plan.hpp"

namespace wavestack::decomp {

class BlockMover;
class Handle;

struct TransposeArgs {
  const void* input = nullptr;
  void* output = nullptr;
  void* work = nullptr;
  cudecompDataType_t dtype = CUDECOMP_DOUBLE;
  Int3 input_halo{0, 0, 0};
  Int3 output_halo{0, 0, 0};
  Int3 input_padding{0, 0, 0};
  Int3 output_padding{0, 0, 0};
  const BlockMover* mover = nullptr;  // where copies run; null: host memory (host_mover())
};

struct HaloArgs {
  int axis = 0;
  void* data = nullptr;
  void* work = nullptr;
  cudecompDataType_t dtype = CUDECOMP_DOUBLE;
  Int3 halo{0, 0, 0};
  std::array<bool, 3> periods{false, false, false};
  int dim = 0;
  Int3 padding{0, 0, 0};
  const BlockMover* mover = nullptr;  // where copies run; null: host memory (host_mover())
};

class GridDesc {
 public:
  // Collective over the handle's communicator (splits it into rows and columns). `config` must
  // be valid (validate_config) with pdims set and matching the communicator size.
  GridDesc(const Handle& handle, const cudecompGridDescConfig_t& config);
  ~GridDesc();
  GridDesc(const GridDesc&) = delete;
  GridDesc& operator=(const GridDesc&) = delete;

  const Handle& handle() const { return handle_; }
  const cudecompGridDescConfig_t& config() const { return config_; }
  void set_config_backends(cudecompTransposeCommBackend_t transpose, cudecompHaloCommBackend_t halo);
  // The autotuner's log ("" when the grid was not autotuned).
  const std::string& autotune_report() const { return autotune_report_; }
  void set_autotune_report(std::string report) { autotune_report_ = std::move(report); }
  const ProcessGrid& grid() const { return grid_; }
  std::array<int, 2> coords() const { return coords_; }
  const Int3& gdims() const { return gdims_; }
  const Int3& gdims_dist() const { return gdims_dist_; }

  Box box(int axis, std::array<int, 2> coords) const;
  // Whether pdims leave some rank an empty share of gdims_dist (geometry.hpp's
  // leaves_a_pencil_empty). The same answer on every rank, without communication.
  bool any_pencil_empty() const;
  PencilLayout layout(int axis, const Int3& halo, const Int3& padding) const;
  // Elements of the largest pencil of this axis over all ranks, for choices every rank must make alike.
  int64_t largest_layout_size(int axis, const Int3& halo, const Int3& padding) const;
  cudecompPencilInfo_t pencil_info(int axis, const Int3& halo, const Int3& padding) const;

  // Elements; the largest over all ranks, so every rank may allocate the same size.
  int64_t transpose_workspace_size() const;
  int64_t halo_workspace_size(int axis, const Int3& halo) const;

  // Global rank of the neighbour `displacement` steps along global `dim` of the `axis` pencil;
  // -1 outside a non-periodic domain.
  int shifted_rank(int axis, int dim, int displacement, bool periodic) const;

  // Throw DecompError (naming the argument) when the call cannot run; no communication.
  void check_transpose(TransposeOp op, const TransposeArgs& args) const;
  void check_halo(const HaloArgs& args) const;
  bool transpose_needs_work(TransposeOp op, const TransposeArgs& args) const;

  // With the handle's performance report enabled, each call is also timed and kept as a sample.
  void transpose(TransposeOp op, const TransposeArgs& args) const;
  void update_halos(const HaloArgs& args) const;
  // cuDecomp's report of the samples (performance_report.hpp); collective over the handle's
  // communicator, nothing when the report is disabled. cudecompGridDescDestroy calls it.
  void print_performance_report() const;

 private:
  // Where the NCCL communicator of group g comes from (device_dispatch.hpp).
  NcclGroup nccl_group(int g) const;
  bool is_noop(TransposeOp op, const TransposeArgs& args, const PencilLayout& in, const PencilLayout& out) const;
  // The operations themselves; `comm` collects the time spent in MPI and the bytes sent.
  void run_transpose(TransposeOp op, const TransposeArgs& args, CommTally& comm) const;
  void run_update_halos(const HaloArgs& args, CommTally& comm) const;

  const Handle& handle_;
  cudecompGridDescConfig_t config_;
  Int3 gdims_{}, gdims_dist_{};
  ProcessGrid grid_;
  std::array<int, 2> coords_{0, 0};
  // group_comms_[g]: the ranks that share this rank's coordinate in the other grid dimension,
  // ranked by their coordinate along g.
  std::array<MPI_Comm, 2> group_comms_{MPI_COMM_NULL, MPI_COMM_NULL};
  // NCCL communicators of group_comms_' ranks (CUDA build), split from the handle's NCCL
  // communicator by the first NCCL operation on the group; they keep that one alive.
  mutable std::array<std::shared_ptr<void>, 2> nccl_comms_;
  std::string autotune_report_;
  mutable PerformanceRecorder performance_;
};

}  // namespace wavestack::decomp
