// Ranks that disagree about seeing a CUDA device (device_agreement.hpp), under mpiexec with 1, 2
// and 4 ranks: the census is taken with rank-dependent local answers, and every rank must get
// the same verdict, "every rank has a device" only when all of them said so.
#include <gtest/gtest.h>
#include <mpi.h>

#include <array>
#include <string>

#include "decomp/device_agreement.hpp"
#include "decomp/device_dispatch.hpp"
#include "decomp/handle.hpp"
#include "mpi_test_support.hpp"

namespace wavestack::decomp {
namespace {

using wavestack::testing::world_rank;
using wavestack::testing::world_size;

// The lowest and highest of `value` over the ranks: equal when every rank has the same.
std::array<int, 2> lowest_and_highest(int value) {
  std::array<int, 2> result{};
  MPI_Allreduce(&value, &result[0], 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&value, &result[1], 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return result;
}

TEST(DecompDeviceAgreement, EveryRankGetsTheSameCensus) {
  const int rank = world_rank();
  const int size = world_size();
  struct Pattern {
    const char* name;
    bool (*local)(int rank, int size);
    int (*with_device)(int size);
  };
  const Pattern patterns[] = {
      {"all see a device", [](int, int) { return true; }, [](int n) { return n; }},
      {"none sees a device", [](int, int) { return false; }, [](int) { return 0; }},
      {"even ranks only", [](int r, int) { return r % 2 == 0; }, [](int n) { return (n + 1) / 2; }},
      {"all but the last", [](int r, int n) { return r != n - 1; }, [](int n) { return n - 1; }},
      {"only rank 0", [](int r, int) { return r == 0; }, [](int) { return 1; }},
  };
  for (const Pattern& pattern : patterns) {
    const DeviceCensus census = take_device_census(MPI_COMM_WORLD, pattern.local(rank, size));
    EXPECT_EQ(census.ranks, size) << pattern.name;
    EXPECT_EQ(census.with_device, pattern.with_device(size)) << pattern.name;
    // The verdict is the same on every rank...
    const auto every = lowest_and_highest(census.every_rank() ? 1 : 0);
    EXPECT_EQ(every[0], every[1]) << pattern.name;
    const auto disagree = lowest_and_highest(census.ranks_disagree() ? 1 : 0);
    EXPECT_EQ(disagree[0], disagree[1]) << pattern.name;
    // ...and true only when every rank said true: a logical AND over the ranks.
    int all_said_true = 0;
    const int mine = pattern.local(rank, size) ? 1 : 0;
    MPI_Allreduce(&mine, &all_said_true, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    EXPECT_EQ(census.every_rank(), all_said_true == 1) << pattern.name;
    EXPECT_EQ(census.ranks_disagree(), census.with_device > 0 && census.with_device < size) << pattern.name;
  }
}

TEST(DecompDeviceAgreement, AnyRankWithoutADeviceMakesTheAnswerFalse) {
  const int size = world_size();
  // Each rank in turn is the one without a device; every rank must answer false.
  for (int blind = 0; blind < size; ++blind) {
    const DeviceCensus census = take_device_census(MPI_COMM_WORLD, world_rank() != blind);
    EXPECT_FALSE(census.every_rank()) << "rank " << blind << " sees no device";
    EXPECT_EQ(census.ranks_disagree(), size > 1);
  }
  EXPECT_TRUE(take_device_census(MPI_COMM_WORLD, true).every_rank());
}

TEST(DecompDeviceAgreement, RepeatedDeviceNamesAreSharedDevices) {
  EXPECT_FALSE(any_name_repeated({}));
  EXPECT_FALSE(any_name_repeated({"a/0000:41:00.0", "a/0000:42:00.0", "b/0000:41:00.0"}));
  EXPECT_TRUE(any_name_repeated({"a/0000:41:00.0", "b/0000:41:00.0", "a/0000:41:00.0"}));
  EXPECT_FALSE(any_name_repeated({"", ""}));  // ranks without a device share nothing
}

// Every rank gets the same answer, true exactly when two ranks name the same device (this
// test's ranks all run on one host, so the device names alone decide).
TEST(DecompDeviceAgreement, RanksNamingTheSameDeviceShareIt) {
  const int rank = world_rank();
  const int size = world_size();
  EXPECT_FALSE(ranks_share_a_device(MPI_COMM_WORLD, "gpu" + std::to_string(rank)));
  EXPECT_EQ(ranks_share_a_device(MPI_COMM_WORLD, "gpu" + std::to_string(rank / 2)), size > 1);
  EXPECT_EQ(ranks_share_a_device(MPI_COMM_WORLD, "gpu0"), size > 1);
  // Only the last two ranks on one device; the others have none (an empty name).
  const std::string last_two = rank >= size - 2 ? "gpu-last" : "";
  EXPECT_EQ(ranks_share_a_device(MPI_COMM_WORLD, last_two), size > 1);
  EXPECT_FALSE(ranks_share_a_device(MPI_COMM_WORLD, ""));
  // A name longer than the record keeps its first 63 characters: still compared, still equal.
  EXPECT_EQ(ranks_share_a_device(MPI_COMM_WORLD, std::string(200, 'x')), size > 1);
}

TEST(DecompDeviceAgreement, TheWarningSaysWhatWasSeenAndWhatHappens) {
  const std::string warning = device_disagreement_warning({.ranks = 4, .with_device = 3});
  EXPECT_EQ(warning.rfind("CUDECOMP:WARN: 3 of 4 ranks see a CUDA device;", 0), 0u) << warning;
  EXPECT_NE(warning.find("cudecompMalloc returns host memory"), std::string::npos) << warning;
  EXPECT_NE(warning.find("times the MPI backends on host buffers on every rank"), std::string::npos) << warning;
  EXPECT_EQ(warning.back(), '\n');
}

// The handle takes the census when it is created, and its answer is the census's on every rank
// (on CI: false, as no rank sees a device).
TEST(DecompDeviceAgreement, TheHandleAgreesWithTheCensusOfItsRanks) {
  const Handle handle(MPI_COMM_WORLD);
  const DeviceCensus census = take_device_census(MPI_COMM_WORLD, device_available());
  EXPECT_EQ(handle.device_on_every_rank(), census.every_rank());
  const auto answers = lowest_and_highest(handle.device_on_every_rank() ? 1 : 0);
  EXPECT_EQ(answers[0], answers[1]);
  if (!device_backend_built()) {
    EXPECT_FALSE(handle.device_on_every_rank());
  }
  if (!handle.device_on_every_rank()) {
    EXPECT_FALSE(handle.device_shared_by_ranks());
  }
  if (!device_available()) {
    EXPECT_EQ(current_device_identity(), "");
  }
}

}  // namespace
}  // namespace wavestack::decomp
