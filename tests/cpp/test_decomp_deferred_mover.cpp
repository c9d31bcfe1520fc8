// The device data flow of transposes and halo updates, checked on the CPU under real ranks.
// DeferredMover behaves like a CUDA stream as the MPI backends see one: copies are queued and run
// only when before_communication() synchronizes or when the stream is drained at the end, and it
// reports device memory (so every message is packed, as on a GPU). If a backend handed MPI a
// packed buffer before synchronizing, or reused a receive area before its unpack ran, elements
// would come out wrong; every element is checked against a function of its global index.
#include <gtest/gtest.h>
#include <mpi.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <vector>

#include "decomp/block_copy.hpp"
#include "decomp/block_mover.hpp"
#include "decomp/config.hpp"
#include "decomp/grid_desc.hpp"
#include "decomp/handle.hpp"
#include "mpi_test_support.hpp"

namespace wavestack::decomp {
namespace {

class DeferredMover final : public BlockMover {
 public:
  void copy(const void* src, int64_t src_offset, void* dst, int64_t dst_offset, size_t element_bytes,
            const StridedBlock& block) const override {
    queue_.emplace_back([=] { copy_block(src, src_offset, dst, dst_offset, element_bytes, block); });
  }
  void before_communication() const override {
    drain();
    ++synchronizations_;
  }
  bool host_memory() const override { return false; }
  // The end of the stream: everything queued runs.
  void drain() const {
    for (const auto& step : queue_) step();
    queue_.clear();
  }
  int synchronizations() const { return synchronizations_; }
  size_t pending() const { return queue_.size(); }

 private:
  mutable std::vector<std::function<void()>> queue_;
  mutable int synchronizations_ = 0;
};

using wavestack::testing::world_size;

double value_at(const Int3& global) {
  return static_cast<double>(global[0] + 100 * global[1] + 10000 * global[2]) + 0.5;
}

constexpr double kSentinel = -7.25;

// Fills the owned elements of `layout` with value_at, everything else with the sentinel.
std::vector<double> filled(const PencilLayout& layout) {
  std::vector<double> data(static_cast<size_t>(layout.size), kSentinel);
  const Box& b = layout.box;
  for (int64_t z = b.lo[2]; z < b.lo[2] + b.count[2]; ++z) {
    for (int64_t y = b.lo[1]; y < b.lo[1] + b.count[1]; ++y) {
      for (int64_t x = b.lo[0]; x < b.lo[0] + b.count[0]; ++x) {
        data[static_cast<size_t>(layout.offset(layout.local_index({x, y, z})))] = value_at({x, y, z});
      }
    }
  }
  return data;
}

// Number of owned elements of `layout` in `data` that differ from value_at.
int64_t wrong_owned(const PencilLayout& layout, const double* data) {
  int64_t wrong = 0;
  const Box& b = layout.box;
  for (int64_t z = b.lo[2]; z < b.lo[2] + b.count[2]; ++z) {
    for (int64_t y = b.lo[1]; y < b.lo[1] + b.count[1]; ++y) {
      for (int64_t x = b.lo[0]; x < b.lo[0] + b.count[0]; ++x) {
        wrong += data[layout.offset(layout.local_index({x, y, z}))] != value_at({x, y, z}) ? 1 : 0;
      }
    }
  }
  return wrong;
}

class DeferredMoverTest : public ::testing::Test {
 protected:
  // The mover's buffers are host memory that calls itself device memory, which MPI may take
  // whatever its CUDA support: without this, an MPI that is not CUDA-aware (Debian's) would have
  // the library refuse the MPI backends here (mpi_device_support.hpp).
  static void SetUpTestSuite() { ASSERT_EQ(setenv("WAVESTACK_MPI_CUDA_AWARE", "1", 1), 0); }
  static void TearDownTestSuite() { unsetenv("WAVESTACK_MPI_CUDA_AWARE"); }
  GridDesc make_grid(cudecompTransposeCommBackend_t transpose, cudecompHaloCommBackend_t halo) const {
    cudecompGridDescConfig_t config = default_config();
    config.gdims[0] = 9;
    config.gdims[1] = 7;
    config.gdims[2] = 5;
    config.pdims[0] = world_size() >= 4 ? 2 : 1;
    config.pdims[1] = world_size() / config.pdims[0];
    config.transpose_axis_contiguous[1] = true;  // Y pencils stored Y-fastest: a real reordering
    config.transpose_comm_backend = transpose;
    config.halo_comm_backend = halo;
    return GridDesc(handle_, config);
  }
  Handle handle_{MPI_COMM_WORLD};
};

TEST_F(DeferredMoverTest, TransposesEveryBackendInAndOutOfPlace) {
  const std::array<TransposeOp, 4> ops = {TransposeOp::kXToY, TransposeOp::kYToZ, TransposeOp::kZToY,
                                          TransposeOp::kYToX};
  for (const auto backend :
       {CUDECOMP_TRANSPOSE_COMM_MPI_P2P, CUDECOMP_TRANSPOSE_COMM_MPI_P2P_PL, CUDECOMP_TRANSPOSE_COMM_MPI_A2A}) {
    const GridDesc grid = make_grid(backend, CUDECOMP_HALO_COMM_MPI);
    for (const bool in_place : {false, true}) {
      for (const TransposeOp op : ops) {
        const Int3 in_halo{1, 0, 1}, out_pad{0, 2, 1};
        const PencilLayout in = grid.layout(input_axis(op), in_place ? Int3{} : in_halo, Int3{});
        const PencilLayout out = grid.layout(output_axis(op), Int3{}, in_place ? Int3{} : out_pad);
        std::vector<double> input = filled(in);
        input.resize(std::max(input.size(), static_cast<size_t>(out.size)), kSentinel);
        std::vector<double> output(static_cast<size_t>(out.size), kSentinel);
        std::vector<double> work(static_cast<size_t>(grid.transpose_workspace_size()), kSentinel);
        const DeferredMover mover;
        TransposeArgs args;
        args.input = input.data();
        args.output = in_place ? input.data() : output.data();
        args.work = work.data();
        args.dtype = CUDECOMP_DOUBLE;
        if (!in_place) {
          args.input_halo = in_halo;
          args.output_padding = out_pad;
        }
        args.mover = &mover;
        grid.transpose(op, args);
        // When MPI took part (an exchange group of more than one rank), nothing may still be
        // queued: the next operation's receives would overwrite the workspace under pending unpacks.
        const TransposePlan plan = make_transpose_plan(grid.gdims(), grid.gdims_dist(), grid.grid(), grid.coords(), op);
        if (plan.group_size() > 1) {
          EXPECT_EQ(mover.pending(), 0u) << transpose_backend_name(backend) << " " << op_name(op);
        }
        mover.drain();
        const double* result = in_place ? input.data() : output.data();
        EXPECT_EQ(wrong_owned(out, result), 0)
            << transpose_backend_name(backend) << " " << op_name(op) << (in_place ? " in place" : "");
      }
    }
  }
}

TEST_F(DeferredMoverTest, PeriodicHalosFillEveryHaloElement) {
  for (const auto backend : {CUDECOMP_HALO_COMM_MPI, CUDECOMP_HALO_COMM_MPI_BLOCKING}) {
    const GridDesc grid = make_grid(CUDECOMP_TRANSPOSE_COMM_MPI_P2P, backend);
    for (int axis = 0; axis < 3; ++axis) {
      const Int3 halo{1, 2, 1};
      const PencilLayout layout = grid.layout(axis, halo, Int3{});
      std::vector<double> data = filled(layout);
      std::vector<double> work(static_cast<size_t>(grid.halo_workspace_size(axis, halo)), kSentinel);
      const DeferredMover mover;
      for (int dim = 0; dim < 3; ++dim) {
        HaloArgs args;
        args.axis = axis;
        args.data = data.data();
        args.work = work.data();
        args.dtype = CUDECOMP_DOUBLE;
        args.halo = halo;
        args.periods = {true, true, true};
        args.dim = dim;
        args.mover = &mover;
        grid.update_halos(args);
      }
      mover.drain();
      // Every allocated element, halos and corners included, holds its periodic global value.
      int64_t wrong = 0;
      const Box& b = layout.box;
      for (int64_t z = -halo[2]; z < b.count[2] + halo[2]; ++z) {
        for (int64_t y = -halo[1]; y < b.count[1] + halo[1]; ++y) {
          for (int64_t x = -halo[0]; x < b.count[0] + halo[0]; ++x) {
            const Int3 global{b.lo[0] + x, b.lo[1] + y, b.lo[2] + z};
            const Int3 wrapped{(global[0] + 9) % 9, (global[1] + 7) % 7, (global[2] + 5) % 5};
            wrong += data[layout.offset(layout.local_index(global))] != value_at(wrapped) ? 1 : 0;
          }
        }
      }
      EXPECT_EQ(wrong, 0) << halo_backend_name(backend) << " axis " << axis;
    }
  }
}

// MPI_A2A picks MPI_Alltoallw or MPI_Alltoallv from the largest pencil's bytes; on an uneven grid
// every rank must compute the same largest pencil, which is the maximum of the ranks' own sizes.
TEST_F(DeferredMoverTest, LargestPencilIsTheMaximumOverRanksOnEveryRank) {
  const GridDesc grid = make_grid(CUDECOMP_TRANSPOSE_COMM_MPI_A2A, CUDECOMP_HALO_COMM_MPI);
  const Int3 halo{1, 0, 2};
  const Int3 padding{0, 3, 1};
  for (int axis = 0; axis < 3; ++axis) {
    int64_t own = grid.layout(axis, halo, padding).size;
    int64_t largest_over_ranks = 0;
    MPI_Allreduce(&own, &largest_over_ranks, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    EXPECT_EQ(grid.largest_layout_size(axis, halo, padding), largest_over_ranks) << "axis " << axis;
  }
}

}  // namespace
}  // namespace wavestack::decomp
