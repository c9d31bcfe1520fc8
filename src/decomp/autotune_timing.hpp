// How the autotuner turns trial times into a choice, as upstream cuDecomp does: every rank's
// trials of a candidate are pooled, the candidate's time is their average (over ranks and
// trials), and the smallest average wins; min, max and standard deviation are reported beside
// it. The pure part is here so that tests can feed it invented timings; the only communication
// is gather_from_all_ranks.
#pragma once

#include <mpi.h>

#include <span>
#include <vector>

namespace wavestack::decomp {

struct TrialStats {
  double min = 0;
  double max = 0;
  double avg = 0;  // over all ranks' trials: the statistic that ranks candidates
  double std = 0;  // population standard deviation about avg, over all ranks' trials
};

// Every rank's `local` values (the same number on every rank), rank after rank, on every rank.
// An MPI_Allgather rather than sums reduced by MPI: every rank then computes the statistics
// from the same numbers in the same order and gets bit-identical results, so no rank can skip
// or choose a candidate that another does not.
std::vector<double> gather_from_all_ranks(MPI_Comm comm, const std::vector<double>& local);

// The statistics of one series of `gathered` (gather_from_all_ranks' result), where every rank
// contributed `series_count` series of equally many trials back to back. Empty input: zeros.
TrialStats series_stats(std::span<const double> gathered, int ranks, int series_count, int series);

// upstream's skip_threshold rule: after its first trial (averaged over ranks), a candidate is
// dropped when skip_threshold times that trial exceeds the best average so far. 0 never skips.
bool skip_after_first_trial(double skip_threshold, double first_trial_avg, double best_avg);

// Whether a candidate with average `avg` replaces the best so far: strictly faster only, so of
// equal averages the first candidate tried (upstream's order) stays.
bool faster_than_best(double avg, double best_avg);

}  // namespace wavestack::decomp
