// The autotuner's selection statistic and report with invented timings (autotune_timing.hpp,
// autotune_report.hpp), under mpiexec with 1, 2 and 4 ranks. As upstream cuDecomp, a candidate's
// time is the average over all ranks' trials and the smallest average wins; these tests pick
// timings for which the slowest rank (our earlier statistic) would choose differently.
#include <gtest/gtest.h>
#include <mpi.h>

#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "decomp/autotune.hpp"
#include "decomp/autotune_report.hpp"
#include "decomp/autotune_timing.hpp"
#include "decomp/config.hpp"
#include "decomp/error.hpp"
#include "mpi_test_support.hpp"

namespace wavestack::decomp {
namespace {

using wavestack::testing::world_rank;
using wavestack::testing::world_size;

// Which of the candidates, each given as every rank's trials rank after rank, the autotuner's
// rules choose (-1: none), as autotune.cpp applies them.
int chosen(const std::vector<std::vector<double>>& candidates, int ranks) {
  double best = std::numeric_limits<double>::infinity();
  int choice = -1;
  for (size_t c = 0; c < candidates.size(); ++c) {
    const double avg = series_stats(candidates[c], ranks, 1, 0).avg;
    if (faster_than_best(avg, best)) {
      best = avg;
      choice = static_cast<int>(c);
    }
  }
  return choice;
}

TEST(DecompAutotuneTiming, StatisticsPoolEveryRanksTrials) {
  // Two ranks, three trials each: rank 0 {1, 2, 3}, rank 1 {5, 6, 7}.
  const std::vector<double> gathered = {1, 2, 3, 5, 6, 7};
  const TrialStats s = series_stats(gathered, 2, 1, 0);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 7);
  EXPECT_DOUBLE_EQ(s.avg, 4);
  // Deviations from 4: 9, 4, 1, 1, 4, 9 -> mean 14/3.
  EXPECT_DOUBLE_EQ(s.std, std::sqrt(28.0 / 6.0));
}

TEST(DecompAutotuneTiming, SeriesAreReadFromEachRanksBlock) {
  // Two ranks, two series of two trials: rank r's block is {series 0: a, b; series 1: c, d}.
  const std::vector<double> gathered = {1, 3, 10, 30, 5, 7, 50, 70};
  const TrialStats first = series_stats(gathered, 2, 2, 0);
  EXPECT_DOUBLE_EQ(first.min, 1);
  EXPECT_DOUBLE_EQ(first.max, 7);
  EXPECT_DOUBLE_EQ(first.avg, 4);
  const TrialStats second = series_stats(gathered, 2, 2, 1);
  EXPECT_DOUBLE_EQ(second.min, 10);
  EXPECT_DOUBLE_EQ(second.max, 70);
  EXPECT_DOUBLE_EQ(second.avg, 40);
  const TrialStats none = series_stats({}, 2, 1, 0);
  EXPECT_EQ(none.avg, 0);
}

TEST(DecompAutotuneTiming, TheLowestAverageWinsNotTheLowestMaximum) {
  // A: one fast and one slow rank (average 3 ms, slowest 5 ms); B: both ranks at 4 ms. The
  // average over ranks picks A, as upstream; the slowest rank would have picked B.
  const std::vector<double> a = {1e-3, 1e-3, 5e-3, 5e-3};
  const std::vector<double> b = {4e-3, 4e-3, 4e-3, 4e-3};
  EXPECT_EQ(chosen({a, b}, 2), 0);
  EXPECT_EQ(chosen({b, a}, 2), 1);
  EXPECT_GT(series_stats(a, 2, 1, 0).max, series_stats(b, 2, 1, 0).max);
  // Trials too are averaged, not minimized: C's best trial beats D's, its average does not.
  const std::vector<double> c = {1e-3, 9e-3};
  const std::vector<double> d = {4e-3, 4e-3};
  EXPECT_EQ(chosen({c, d}, 1), 1);
}

TEST(DecompAutotuneTiming, OfEqualAveragesTheFirstCandidateStays) {
  const std::vector<double> same = {2e-3, 2e-3};
  EXPECT_EQ(chosen({same, same, same}, 1), 0);
  EXPECT_FALSE(faster_than_best(2.0, 2.0));
  EXPECT_TRUE(faster_than_best(1.0, std::numeric_limits<double>::infinity()));
}

// Ties go to the grid tried first, so the order is part of the choice: upstream's, Pcols ascending.
TEST(DecompAutotuneTiming, GridsAreTriedInUpstreamsOrder) {
  for (const char* variable :
       {"CUDECOMP_AUTOTUNE_PDIMS", "CUDECOMP_AUTOTUNE_P_ROW_RANGE", "CUDECOMP_AUTOTUNE_P_COL_RANGE"}) {
    ASSERT_EQ(std::getenv(variable), nullptr) << variable << " is set in this test's environment";
  }
  cudecompGridDescConfig_t config = default_config();
  config.gdims[0] = config.gdims[1] = config.gdims[2] = 12;
  const auto grids = pdims_candidates(12, config, true);
  const std::vector<std::array<int, 2>> expected = {{12, 1}, {6, 2}, {4, 3}, {3, 4}, {2, 6}, {1, 12}};
  EXPECT_EQ(grids, expected);
  const auto even = pdims_candidates(4, config, false);
  EXPECT_EQ(even, (std::vector<std::array<int, 2>>{{4, 1}, {2, 2}, {1, 4}}));
}

// Grids that would leave some rank's pencil empty are not tried (upstream's rule: more rows than
// the X or Y extent, more columns than the Y or Z extent); gdims_dist takes gdims' place when set.
TEST(DecompAutotuneTiming, GridsWithEmptyPencilsAreNotTried) {
  cudecompGridDescConfig_t config = default_config();
  config.gdims[0] = 2;
  config.gdims[1] = config.gdims[2] = 12;
  EXPECT_EQ(pdims_candidates(12, config, true), (std::vector<std::array<int, 2>>{{2, 6}, {1, 12}}));
  config.gdims[0] = config.gdims[1] = 12;
  config.gdims[2] = 3;
  EXPECT_EQ(pdims_candidates(12, config, true), (std::vector<std::array<int, 2>>{{12, 1}, {6, 2}, {4, 3}}));
  config.gdims_dist[0] = config.gdims_dist[1] = 12;
  config.gdims_dist[2] = 2;  // the distribution's extents decide, not gdims'
  EXPECT_EQ(pdims_candidates(12, config, true), (std::vector<std::array<int, 2>>{{12, 1}, {6, 2}}));
  config.gdims[0] = config.gdims[1] = config.gdims[2] = 2;
  config.gdims_dist[0] = config.gdims_dist[1] = config.gdims_dist[2] = 0;
  EXPECT_THROW(pdims_candidates(12, config, true), DecompError);  // 12 ranks, 2x2x2 elements
}

TEST(DecompAutotuneTiming, SkipThresholdComparesTheFirstTrialWithTheBestAverage) {
  const double best = 4e-3;
  EXPECT_FALSE(skip_after_first_trial(0.0, 1.0, best));   // the default never skips
  EXPECT_FALSE(skip_after_first_trial(0.5, 8e-3, best));  // 0.5 * 8 = 4, not above 4
  EXPECT_TRUE(skip_after_first_trial(0.5, 9e-3, best));
  EXPECT_FALSE(skip_after_first_trial(0.5, 1.0, std::numeric_limits<double>::infinity()));
}

// The gather: rank-dependent invented times; every rank must compute bit-identical statistics
// (so all skip and choose alike), and they must be the pooled ones.
TEST(DecompAutotuneTiming, EveryRankComputesTheSameStatisticsFromTheGather) {
  const int rank = world_rank();
  const int size = world_size();
  // Rank r's trials: 0.1 * (r + 1) and 0.3 * (r + 1) seconds; awkward binary fractions on purpose.
  const std::vector<double> local = {0.1 * (rank + 1), 0.3 * (rank + 1)};
  const std::vector<double> all = gather_from_all_ranks(MPI_COMM_WORLD, local);
  ASSERT_EQ(all.size(), 2u * static_cast<size_t>(size));
  for (int r = 0; r < size; ++r) {
    EXPECT_EQ(all[2 * r], 0.1 * (r + 1));
    EXPECT_EQ(all[2 * r + 1], 0.3 * (r + 1));
  }
  const TrialStats stats = series_stats(all, size, 1, 0);
  // avg = 0.2 * (1 + ... + size) / size = 0.1 * (size + 1)
  EXPECT_NEAR(stats.avg, 0.1 * (size + 1), 1e-12);
  EXPECT_DOUBLE_EQ(stats.min, 0.1);
  EXPECT_DOUBLE_EQ(stats.max, 0.3 * size);
  std::array<long long, 4> bits{};
  const std::array<double, 4> values = {stats.min, stats.max, stats.avg, stats.std};
  std::memcpy(bits.data(), values.data(), sizeof(bits));
  std::array<long long, 4> lowest{}, highest{};
  MPI_Allreduce(bits.data(), lowest.data(), 4, MPI_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(bits.data(), highest.data(), 4, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_EQ(lowest, highest);
}

TEST(DecompAutotuneTiming, ReportLinesCarryUpstreamsFields) {
  TransposeTrials trials;
  trials.total = {.min = 1e-3, .max = 4e-3, .avg = 2.5e-3, .std = 0.5e-3};
  trials.weighted = {.min = 0.5e-3, .max = 2e-3, .avg = 1.25e-3, .std = 0.25e-3};
  trials.ops[0] = {.min = 0.25e-3, .max = 1e-3, .avg = 0.5e-3, .std = 0.125e-3};
  const double weights[4] = {1.0, 0.0, 0.5, 1.0};
  const std::string lines = transpose_candidate_lines({2, 2}, CUDECOMP_TRANSPOSE_COMM_MPI_P2P_PL, trials, weights);
  EXPECT_EQ(lines,
            "CUDECOMP:       grid: 2 x 2, backend: MPI_P2P (pipelined)\n"
            "CUDECOMP:       Total time min/max/avg/std [ms]: 1.000000/4.000000/2.500000/0.500000\n"
            "CUDECOMP:                  min/max/avg/std [ms]: 0.500000/2.000000/1.250000/0.250000 (weighted)\n"
            "CUDECOMP:       TransposeXY time min/max/avg/std [ms]: 0.250000/1.000000/0.500000/0.125000\n"
            "CUDECOMP:       TransposeYZ time min/max/avg/std [ms]: 0.000000/0.000000/0.000000/0.000000 (skipped)\n"
            "CUDECOMP:       TransposeZY time min/max/avg/std [ms]: 0.000000/0.000000/0.000000/0.000000\n"
            "CUDECOMP:       TransposeYX time min/max/avg/std [ms]: 0.000000/0.000000/0.000000/0.000000\n");
  trials.skipped = true;
  EXPECT_EQ(transpose_candidate_lines({1, 4}, CUDECOMP_TRANSPOSE_COMM_MPI_A2A, trials, weights),
            "CUDECOMP:       grid: 1 x 4, backend: MPI_A2A\nCUDECOMP:       (skipped)\n");
  HaloTrials halo;
  halo.total = {.min = 2e-3, .max = 2e-3, .avg = 2e-3, .std = 0};
  EXPECT_EQ(halo_candidate_lines({4, 1}, CUDECOMP_HALO_COMM_MPI_BLOCKING, halo),
            "CUDECOMP:       grid: 4 x 1, halo backend: MPI (blocking)\n"
            "CUDECOMP:       Total time min/max/avg/std [ms]: 2.000000/2.000000/2.000000/0.000000\n");
  EXPECT_EQ(transpose_selected_line({2, 2}, CUDECOMP_TRANSPOSE_COMM_MPI_A2A, 1.5e-3),
            "CUDECOMP: SELECTED: grid: 2 x 2, backend: MPI_A2A, Avg. time (weighted) [ms]: 1.500000\n");
  EXPECT_EQ(halo_selected_line({1, 4}, CUDECOMP_HALO_COMM_MPI, 0.25e-3),
            "CUDECOMP: SELECTED: grid: 1 x 4, halo backend: MPI, Avg. time [ms]: 0.250000\n");
  EXPECT_EQ(autotune_seconds_text(1.5), "1.500000");
}

}  // namespace
}  // namespace wavestack::decomp
