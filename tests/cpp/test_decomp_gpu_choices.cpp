// The CUDA build's host-side choices, run on the CPU in every build: which backends the
// autotuner times for each target and set of options (autotune_candidates.hpp), and how a grid's
// ranks form the row and column groups its MPI and NCCL communicators are split into
// (group_split.hpp). Expected values are written out by hand, not recomputed.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "decomp/autotune_candidates.hpp"
#include "decomp/backend_support.hpp"
#include "decomp/config.hpp"
#include "decomp/error.hpp"
#include "decomp/group_split.hpp"
#include "decomp/mpi_device_support.hpp"

namespace wavestack::decomp {
namespace {

constexpr TuneTarget kCpuBuild{false, false};
constexpr TuneTarget kCudaBuildNoDevice{true, false};
constexpr TuneTarget kDevice{true, true};
constexpr TuneTarget kSharedDevice{true, true, true};  // more ranks than GPUs
constexpr TuneTarget kDeviceMpiNotCudaAware{true, true, false, false};

std::pair<cudecompResult_t, std::string> outcome(const std::function<void()>& call) {
  try {
    call();
  } catch (const DecompError& error) {
    return {error.code(), error.what()};
  }
  return {CUDECOMP_RESULT_SUCCESS, ""};
}

cudecompGridDescConfig_t config_with(cudecompTransposeCommBackend_t t, cudecompHaloCommBackend_t h) {
  cudecompGridDescConfig_t config{};
  config.transpose_comm_backend = t;
  config.halo_comm_backend = h;
  return config;
}

cudecompGridDescAutotuneOptions_t tuning_both() {
  cudecompGridDescAutotuneOptions_t options = default_autotune_options();
  options.autotune_transpose_backend = true;
  options.autotune_halo_backend = true;
  return options;
}

std::string transposes(const TuneTarget& target, const cudecompGridDescAutotuneOptions_t& options,
                       const char* env = nullptr) {
  const auto config = config_with(CUDECOMP_TRANSPOSE_COMM_MPI_A2A, CUDECOMP_HALO_COMM_MPI_BLOCKING);
  return transpose_backend_list(transpose_backend_candidates(config, options, target, env));
}

std::string halos(const TuneTarget& target, const cudecompGridDescAutotuneOptions_t& options,
                  const char* env = nullptr) {
  const auto config = config_with(CUDECOMP_TRANSPOSE_COMM_MPI_A2A, CUDECOMP_HALO_COMM_MPI_BLOCKING);
  return halo_backend_list(halo_backend_candidates(config, options, target, env));
}

TEST(DecompAutotuneCandidates, HostTargetsTimeTheMpiBackendsOnly) {
  auto options = tuning_both();
  for (const auto& target : {kCpuBuild, kCudaBuildNoDevice}) {
    EXPECT_EQ(transposes(target, options), "MPI_P2P, MPI_P2P_PL, MPI_A2A");
    EXPECT_EQ(halos(target, options), "MPI, MPI_BLOCKING");
  }
  // The NCCL and NVSHMEM flags have nothing to remove on the host.
  options.disable_nccl_backends = true;
  options.disable_nvshmem_backends = true;
  EXPECT_EQ(transposes(kCpuBuild, options), "MPI_P2P, MPI_P2P_PL, MPI_A2A");
  EXPECT_EQ(halos(kCudaBuildNoDevice, options), "MPI, MPI_BLOCKING");
}

TEST(DecompAutotuneCandidates, DeviceTargetAddsNcclAfterMpiInUpstreamOrder) {
  auto options = tuning_both();
  EXPECT_EQ(transposes(kDevice, options), "MPI_P2P, MPI_P2P_PL, MPI_A2A, NCCL, NCCL_PL");
  EXPECT_EQ(halos(kDevice, options), "MPI, MPI_BLOCKING, NCCL");
  options.disable_nvshmem_backends = true;  // NVSHMEM is never a candidate
  EXPECT_EQ(transposes(kDevice, options), "MPI_P2P, MPI_P2P_PL, MPI_A2A, NCCL, NCCL_PL");
  options.disable_nccl_backends = true;
  EXPECT_EQ(transposes(kDevice, options), "MPI_P2P, MPI_P2P_PL, MPI_A2A");
  EXPECT_EQ(halos(kDevice, options), "MPI, MPI_BLOCKING");
  options.disable_nccl_backends = false;
  options.disable_mpi_backends = true;
  EXPECT_EQ(transposes(kDevice, options), "NCCL, NCCL_PL");
  EXPECT_EQ(halos(kDevice, options), "NCCL");
}

// NCCL refuses two ranks on one GPU: where ranks share one, only the MPI backends are timed,
// and options that disable those leave nothing.
TEST(DecompAutotuneCandidates, RanksSharingAGpuTimeNoNcclBackend) {
  auto options = tuning_both();
  EXPECT_EQ(transposes(kSharedDevice, options), "MPI_P2P, MPI_P2P_PL, MPI_A2A");
  EXPECT_EQ(halos(kSharedDevice, options), "MPI, MPI_BLOCKING");
  EXPECT_EQ(transposes(kSharedDevice, options, "^MPI_A2A"), "MPI_P2P, MPI_P2P_PL");
  const auto only_nccl = outcome([&] { transposes(kSharedDevice, options, "NCCL,NCCL_PL"); });
  EXPECT_EQ(only_nccl.first, CUDECOMP_RESULT_INVALID_USAGE) << only_nccl.second;
  options.disable_mpi_backends = true;
  const auto nothing = outcome([&] { halos(kSharedDevice, options); });
  EXPECT_EQ(nothing.first, CUDECOMP_RESULT_NOT_SUPPORTED);
  EXPECT_NE(nothing.second.find("ranks share a GPU, where NCCL cannot run"), std::string::npos) << nothing.second;
}

// An MPI that cannot take device buffers (Debian's Open MPI) would crash in MPI_Isend on them:
// on a device only NCCL is timed; host targets are unaffected.
TEST(DecompAutotuneCandidates, AnMpiWithoutCudaSupportTimesOnlyNcclOnADevice) {
  auto options = tuning_both();
  EXPECT_EQ(transposes(kDeviceMpiNotCudaAware, options), "NCCL, NCCL_PL");
  EXPECT_EQ(halos(kDeviceMpiNotCudaAware, options), "NCCL");
  constexpr TuneTarget kHostMpiNotCudaAware{true, false, false, false};
  EXPECT_EQ(transposes(kHostMpiNotCudaAware, options), "MPI_P2P, MPI_P2P_PL, MPI_A2A");
  options.disable_nccl_backends = true;
  const auto nothing = outcome([&] { transposes(kDeviceMpiNotCudaAware, options); });
  EXPECT_EQ(nothing.first, CUDECOMP_RESULT_NOT_SUPPORTED);
  EXPECT_NE(nothing.second.find("this MPI is not CUDA-aware"), std::string::npos) << nothing.second;
  EXPECT_NE(nothing.second.find("WAVESTACK_MPI_CUDA_AWARE"), std::string::npos) << nothing.second;
}

TEST(DecompMpiDeviceSupport, TheOverrideDecidesElseWhatMpiReports) {
  EXPECT_TRUE(mpi_takes_device_buffers(nullptr, 1));
  EXPECT_FALSE(mpi_takes_device_buffers(nullptr, 0));
  EXPECT_TRUE(mpi_takes_device_buffers(nullptr, -1));  // an MPI that cannot say is trusted, as upstream does
  EXPECT_FALSE(mpi_takes_device_buffers("", 0));
  EXPECT_TRUE(mpi_takes_device_buffers("1", 0));
  EXPECT_FALSE(mpi_takes_device_buffers("0", 1));
  const auto bad = outcome([] { (void)mpi_takes_device_buffers("yes", 1); });
  EXPECT_EQ(bad.first, CUDECOMP_RESULT_INVALID_USAGE);
  EXPECT_NE(bad.second.find("WAVESTACK_MPI_CUDA_AWARE"), std::string::npos) << bad.second;
  EXPECT_NE(bad.second.find("'yes'"), std::string::npos) << bad.second;
}

TEST(DecompMpiDeviceSupport, RefusalNamesTheBackendAndTheWaysOn) {
  ASSERT_EQ(setenv("WAVESTACK_MPI_CUDA_AWARE", "0", 1), 0);
  const auto refused = outcome([] { require_mpi_device_buffers("MPI_P2P_PL"); });
  ASSERT_EQ(setenv("WAVESTACK_MPI_CUDA_AWARE", "1", 1), 0);
  const auto allowed = outcome([] { require_mpi_device_buffers("MPI_P2P_PL"); });
  ASSERT_EQ(unsetenv("WAVESTACK_MPI_CUDA_AWARE"), 0);
  EXPECT_EQ(refused.first, CUDECOMP_RESULT_NOT_SUPPORTED);
  EXPECT_NE(refused.second.find("backend MPI_P2P_PL"), std::string::npos) << refused.second;
  EXPECT_NE(refused.second.find("NCCL backend"), std::string::npos) << refused.second;
  EXPECT_EQ(allowed.first, CUDECOMP_RESULT_SUCCESS) << allowed.second;
}

TEST(DecompAutotuneCandidates, OptionsThatLeaveNothingAreNotSupported) {
  auto options = tuning_both();
  options.disable_mpi_backends = true;
  const auto cpu = outcome([&] { transposes(kCpuBuild, options); });
  EXPECT_EQ(cpu.first, CUDECOMP_RESULT_NOT_SUPPORTED);
  // The CPU-only build's message as it was before device tuning existed.
  EXPECT_EQ(cpu.second,
            "options.disable_mpi_backends is set, which leaves no transpose backend to autotune in this build "
            "(CPU-only: MPI backends only)");
  // A CUDA build without a device answers as the host build always has.
  const auto no_device = outcome([&] { transposes(kCudaBuildNoDevice, options); });
  EXPECT_EQ(no_device, cpu);
  options.disable_nccl_backends = true;
  const auto device = outcome([&] { halos(kDevice, options); });
  EXPECT_EQ(device.first, CUDECOMP_RESULT_NOT_SUPPORTED);
  EXPECT_EQ(device.second.rfind("options.disable_mpi_backends and options.disable_nccl_backends are both set", 0), 0u)
      << device.second;
}

TEST(DecompAutotuneCandidates, WithoutBackendTuningTheConfiguredBackendIsTheOnlyOne) {
  cudecompGridDescAutotuneOptions_t options = default_autotune_options();
  options.disable_mpi_backends = true;  // ignored: nothing is tuned
  options.disable_nccl_backends = true;
  for (const auto& target : {kCpuBuild, kDevice}) {
    EXPECT_EQ(transposes(target, options, "NCCL"), "MPI_A2A");
    EXPECT_EQ(halos(target, options, "^MPI_BLOCKING"), "MPI_BLOCKING");
  }
}

TEST(DecompAutotuneCandidates, EnvironmentListsKeepOrDropNamedBackends) {
  const auto options = tuning_both();
  // Kept in the candidates' order, whatever the list's order.
  EXPECT_EQ(transposes(kDevice, options, "NCCL_PL, MPI_P2P"), "MPI_P2P, NCCL_PL");
  EXPECT_EQ(transposes(kDevice, options, "^NCCL_PL,MPI_A2A"), "MPI_P2P, MPI_P2P_PL, NCCL");
  EXPECT_EQ(halos(kDevice, options, "^MPI,MPI_BLOCKING"), "NCCL");
  EXPECT_EQ(transposes(kDevice, options, ""), "MPI_P2P, MPI_P2P_PL, MPI_A2A, NCCL, NCCL_PL");  // unset
  // On the host an NCCL name is accepted and changes nothing...
  EXPECT_EQ(transposes(kCpuBuild, options, "^NCCL"), "MPI_P2P, MPI_P2P_PL, MPI_A2A");
  EXPECT_EQ(halos(kCudaBuildNoDevice, options, "MPI,NCCL"), "MPI");
  // ...but a list that keeps nothing, or an unknown name, is an error.
  const auto none = outcome([&] { halos(kCpuBuild, options, "NCCL"); });
  EXPECT_EQ(none.first, CUDECOMP_RESULT_INVALID_USAGE);
  EXPECT_NE(none.second.find("CUDECOMP_AUTOTUNE_HALO_BACKENDS"), std::string::npos) << none.second;
  const auto unknown = outcome([&] { transposes(kDevice, options, "MPI_P2P,NCCL_FAST"); });
  EXPECT_EQ(unknown.first, CUDECOMP_RESULT_INVALID_USAGE);
  EXPECT_NE(unknown.second.find("unknown backend name 'NCCL_FAST'"), std::string::npos) << unknown.second;
  // Options and list together: NCCL disabled, the list keeps only NCCL.
  auto no_nccl = options;
  no_nccl.disable_nccl_backends = true;
  EXPECT_EQ(outcome([&] { transposes(kDevice, no_nccl, "NCCL,NCCL_PL"); }).first, CUDECOMP_RESULT_INVALID_USAGE);
}

TEST(DecompAutotuneCandidates, EnvListsSplitOnCommasAndTrim) {
  EXPECT_EQ(split_env_list(" a, b ,,\tc "), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_TRUE(split_env_list(" , ").empty());
}

TEST(DecompGroupSplit, RowMajorGridGroupsByHand) {
  // 2 x 3, row-major: rank = row * 3 + col. Rank 4 is at (1, 1).
  const ProcessGrid grid{{2, 3}, CUDECOMP_RANK_ORDER_ROW_MAJOR};
  EXPECT_EQ(group_members(grid, 4, 0), (std::vector<int>{1, 4}));     // column 1
  EXPECT_EQ(group_members(grid, 4, 1), (std::vector<int>{3, 4, 5}));  // row 1
  EXPECT_EQ(group_split(grid, 4, 0).color, 1);
  EXPECT_EQ(group_split(grid, 4, 0).key, 1);
  EXPECT_EQ(group_split(grid, 2, 1).color, 0);
  EXPECT_EQ(group_split(grid, 2, 1).key, 2);
}

TEST(DecompGroupSplit, ColumnMajorGridGroupsByHand) {
  // 2 x 3, column-major: rank = col * 2 + row. Rank 3 is at (1, 1).
  const ProcessGrid grid{{2, 3}, CUDECOMP_RANK_ORDER_COL_MAJOR};
  EXPECT_EQ(group_members(grid, 3, 0), (std::vector<int>{2, 3}));
  EXPECT_EQ(group_members(grid, 3, 1), (std::vector<int>{1, 3, 5}));
}

TEST(DecompGroupSplit, ColoursPartitionTheRanksAndKeysNumberEachGroup) {
  // What MPI_Comm_split and ncclCommSplit build from the colours and keys must be the groups
  // group_members names, each rank at the index of its key.
  for (const auto order : {CUDECOMP_RANK_ORDER_ROW_MAJOR, CUDECOMP_RANK_ORDER_COL_MAJOR}) {
    for (const auto& pdims : {std::array<int, 2>{1, 4}, std::array<int, 2>{4, 1}, std::array<int, 2>{3, 4}}) {
      const ProcessGrid grid{pdims, order};
      for (int g = 0; g < 2; ++g) {
        std::set<int> colours;
        for (int rank = 0; rank < grid.size(); ++rank) {
          const GroupSplit split = group_split(grid, rank, g);
          colours.insert(split.color);
          std::vector<int> same_colour;
          for (int other = 0; other < grid.size(); ++other) {
            if (group_split(grid, other, g).color == split.color) same_colour.push_back(other);
          }
          std::sort(same_colour.begin(), same_colour.end(),
                    [&](int a, int b) { return group_split(grid, a, g).key < group_split(grid, b, g).key; });
          EXPECT_EQ(same_colour, group_members(grid, rank, g));
          ASSERT_EQ(static_cast<int>(same_colour.size()), pdims[g]);
          EXPECT_EQ(same_colour[static_cast<size_t>(split.key)], rank);
        }
        EXPECT_EQ(static_cast<int>(colours.size()), pdims[1 - g]);
      }
    }
  }
}

}  // namespace
}  // namespace wavestack::decomp
