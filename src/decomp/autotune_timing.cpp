#include "decomp/autotune_timing.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "decomp/error.hpp"

namespace wavestack::decomp {

std::vector<double> gather_from_all_ranks(MPI_Comm comm, const std::vector<double>& local) {
  int ranks = 1;
  check_mpi(MPI_Comm_size(comm, &ranks), "MPI_Comm_size");
  std::vector<double> all(local.size() * static_cast<size_t>(ranks));
  const int count = static_cast<int>(local.size());
  check_mpi(MPI_Allgather(local.data(), count, MPI_DOUBLE, all.data(), count, MPI_DOUBLE, comm), "MPI_Allgather");
  return all;
}

TrialStats series_stats(std::span<const double> gathered, int ranks, int series_count, int series) {
  TrialStats stats;
  if (gathered.empty() || ranks <= 0 || series_count <= 0) return stats;
  const size_t block = gathered.size() / static_cast<size_t>(ranks);  // one rank's values
  const size_t trials = block / static_cast<size_t>(series_count);
  if (trials == 0) return stats;
  const auto each = [&](auto&& visit) {
    for (size_t rank = 0; rank < static_cast<size_t>(ranks); ++rank) {
      const size_t first = rank * block + static_cast<size_t>(series) * trials;
      for (size_t trial = 0; trial < trials; ++trial) visit(gathered[first + trial]);
    }
  };
  const double count = static_cast<double>(trials) * ranks;
  stats.min = gathered[static_cast<size_t>(series) * trials];
  stats.max = stats.min;
  double sum = 0;
  each([&](double t) {
    stats.min = std::min(stats.min, t);
    stats.max = std::max(stats.max, t);
    sum += t;
  });
  stats.avg = sum / count;
  // Every rank runs the same number of trials, so upstream's mean over ranks of each rank's
  // mean square deviation is the mean over all samples.
  double squares = 0;
  each([&](double t) { squares += (t - stats.avg) * (t - stats.avg); });
  stats.std = std::sqrt(squares / count);
  return stats;
}

bool skip_after_first_trial(double skip_threshold, double first_trial_avg, double best_avg) {
  return skip_threshold * first_trial_avg > best_avg;
}

bool faster_than_best(double avg, double best_avg) {
  return avg < best_avg;
}

}  // namespace wavestack::decomp
