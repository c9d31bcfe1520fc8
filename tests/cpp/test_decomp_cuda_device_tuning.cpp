// The GPU autotuner and the per-handle NCCL communicator on a real GPU; part of
// decomp_cuda_device_tests (scripts/gpu-check.sh under mpirun with 1, 2 and 4 ranks; never run
// by ctest, and not yet run at all: written on a machine without a GPU).
#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "cudecomp.h"
#include "decomp/autotune.hpp"
#include "decomp/config.hpp"
#include "decomp/cuda/cuda_check.hpp"
#include "decomp/cuda/device_mover.hpp"
#include "decomp/device_dispatch.hpp"
#include "decomp/grid_desc.hpp"
#include "decomp/handle.hpp"
#include "decomp/mpi_device_support.hpp"

namespace wavestack::decomp::cuda {
namespace {

int ranks() {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

// MPI backends run on device buffers with one rank, or over an MPI that takes device buffers
// (mpi_device_support.hpp); otherwise the autotuner leaves them out and says so.
bool mpi_runs_on_device() {
  return ranks() == 1 || this_mpi_takes_device_buffers();
}

cudecompGridDescConfig_t cube_config() {
  cudecompGridDescConfig_t config = default_config();
  config.gdims[0] = config.gdims[1] = config.gdims[2] = 16;
  return config;
}

cudecompGridDescAutotuneOptions_t quick_options() {
  cudecompGridDescAutotuneOptions_t options = default_autotune_options();
  options.n_warmup_trials = 1;
  options.n_trials = 2;
  options.autotune_transpose_backend = true;
  return options;
}

TEST(DeviceAutotune, TimesTheNcclBackendsOnDeviceBuffers) {
  const Handle handle(MPI_COMM_WORLD);
  ASSERT_TRUE(device_available()) << "this program needs a GPU";
  // NCCL refuses two ranks on one GPU: an oversubscribed run (the one-GPU check with 2 and 4
  // ranks) times the MPI backends only, and says so; with an MPI that is not CUDA-aware as well,
  // nothing is left to time.
  const bool nccl_runs = !handle.device_shared_by_ranks();
  if (!nccl_runs && !mpi_runs_on_device()) {
    EXPECT_THROW((void)autotune(handle, cube_config(), quick_options()), DecompError);
    return;
  }
  const AutotuneChoice choice = autotune(handle, cube_config(), quick_options());
  EXPECT_EQ(choice.report.rfind("CUDECOMP: Autotuning on device buffers", 0), 0u) << choice.report;
  for (const char* backend : {"backend: MPI_P2P\n", "backend: MPI_A2A\n"}) {
    EXPECT_EQ(choice.report.find(backend) != std::string::npos, mpi_runs_on_device()) << backend << " in\n"
                                                                                      << choice.report;
  }
  EXPECT_EQ(choice.report.find("MPI is not CUDA-aware") != std::string::npos, !mpi_runs_on_device()) << choice.report;
  EXPECT_EQ(choice.report.find("Ranks share a GPU") != std::string::npos, !nccl_runs) << choice.report;
  for (const char* backend : {"backend: NCCL\n", "backend: NCCL (pipelined)\n"}) {
    EXPECT_EQ(choice.report.find(backend) != std::string::npos, nccl_runs) << backend << " in\n" << choice.report;
  }
  EXPECT_EQ(choice.pdims[0] * choice.pdims[1], ranks());
}

TEST(DeviceAutotune, DisabledNcclBackendsAreNotTimed) {
  const Handle handle(MPI_COMM_WORLD);
  auto options = quick_options();
  options.disable_nccl_backends = true;
  if (mpi_runs_on_device()) {
    const AutotuneChoice choice = autotune(handle, cube_config(), options);
    EXPECT_EQ(choice.report.find("NCCL"), std::string::npos) << choice.report;
  } else {  // nothing is left to time
    EXPECT_THROW((void)autotune(handle, cube_config(), options), DecompError);
  }
  options.disable_nccl_backends = false;
  options.disable_mpi_backends = true;
  if (handle.device_shared_by_ranks()) {  // NCCL cannot run: nothing is left to time
    EXPECT_THROW((void)autotune(handle, cube_config(), options), DecompError);
    return;
  }
  const AutotuneChoice nccl_only = autotune(handle, cube_config(), options);
  EXPECT_EQ(nccl_only.report.find("backend: MPI"), std::string::npos) << nccl_only.report;
  EXPECT_TRUE(nccl_only.transpose_backend == CUDECOMP_TRANSPOSE_COMM_NCCL ||
              nccl_only.transpose_backend == CUDECOMP_TRANSPOSE_COMM_NCCL_PL);
}

// Runs the four transposes of a cycle on `grid` with device buffers (values do not matter here:
// the transposes' results are checked in test_decomp_cuda_device.cpp).
void transpose_cycle(const GridDesc& grid, cudaStream_t stream) {
  int64_t largest = 0;
  for (int axis = 0; axis < 3; ++axis) largest = std::max(largest, grid.layout(axis, {}, {}).size);
  const auto a = allocate_device(static_cast<size_t>(largest) * sizeof(double) + 8);
  const auto b = allocate_device(static_cast<size_t>(largest) * sizeof(double) + 8);
  const auto work = allocate_device(static_cast<size_t>(grid.transpose_workspace_size()) * sizeof(double) + 8);
  const DeviceMover mover(stream);
  for (const TransposeOp op : {TransposeOp::kXToY, TransposeOp::kYToZ, TransposeOp::kZToY, TransposeOp::kYToX}) {
    TransposeArgs args;
    args.input = a.get();
    args.output = b.get();
    args.work = work.get();
    args.mover = &mover;
    grid.transpose(op, args);
  }
  check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
}

TEST(DeviceNcclComm, OnePerHandleCreatedOnFirstUseAndSharedByItsGrids) {
  const Handle handle(MPI_COMM_WORLD);
  if (handle.device_shared_by_ranks()) GTEST_SKIP() << "NCCL not run: the ranks share a GPU (NCCL needs one per rank)";
  EXPECT_FALSE(handle.nccl_comm_cache());
  cudecompGridDescConfig_t config = cube_config();
  config.pdims[0] = 1;
  config.pdims[1] = ranks();
  config.transpose_comm_backend = CUDECOMP_TRANSPOSE_COMM_NCCL;
  const void* first = nullptr;
  {
    const GridDesc grid(handle, config);
    transpose_cycle(grid, nullptr);
    first = handle.nccl_comm_cache().get();
    // One rank: every group has one rank, so no NCCL call and no communicator.
    EXPECT_EQ(first != nullptr, ranks() > 1);
  }
  config.transpose_comm_backend = CUDECOMP_TRANSPOSE_COMM_NCCL_PL;
  const GridDesc second(handle, config);
  transpose_cycle(second, nullptr);
  EXPECT_EQ(handle.nccl_comm_cache().get(), first) << "a second grid must split from the same communicator";
}

}  // namespace
}  // namespace wavestack::decomp::cuda
