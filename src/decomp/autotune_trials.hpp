// The timed trials of one autotuning candidate (a grid with its backends), run the way upstream
// cuDecomp runs them: n_warmup_trials untimed, then n_trials timed, each trial started together
// on all ranks (a barrier) and each rank's times pooled over ranks by autotune_timing.hpp.
// Transposes: each trial is the cycle X->Y->Z->Y->X with one time per transpose, taken back to
// back (no barrier between them); transposes of weight 0 are not run. Halos: each trial is the
// update of all three dims, timed from the barrier before it to the barrier after it. On the
// host, MPI_Wtime; on a device (every rank sees one), CUDA events on the default stream for
// transposes and the host clock after waiting for the stream for halos, as upstream.
#pragma once

#include <array>

#include "cudecomp.h"
#include "decomp/autotune_timing.hpp"
#include "decomp/grid_desc.hpp"
#include "decomp/handle.hpp"

namespace wavestack::decomp {

struct TransposeTrials {
  bool skipped = false;           // by skip_threshold after the first trial; no statistics then
  TrialStats total;               // the whole cycle, unweighted
  TrialStats weighted;            // with options.transpose_op_weights: what ranks candidates
  std::array<TrialStats, 4> ops;  // XToY, YToZ, ZToY, YToX (zeros for a transpose of weight 0)
};

struct HaloTrials {
  bool skipped = false;
  TrialStats total;  // the three dims' updates: what ranks candidates
};

class TrialRunner {
 public:
  TrialRunner(const Handle& handle, const cudecompGridDescAutotuneOptions_t& options, bool on_device)
      : handle_(handle), options_(options), on_device_(on_device) {}

  // `best_avg`: the best candidate's average so far (seconds; +inf before the first), for
  // skip_threshold. Collective over the handle's ranks.
  TransposeTrials transposes(const GridDesc& grid, double best_avg) const;
  HaloTrials halos(const GridDesc& grid, double best_avg) const;

 private:
  bool skip(double first_trial_seconds, double best_avg) const;

  const Handle& handle_;
  const cudecompGridDescAutotuneOptions_t& options_;
  bool on_device_ = false;
};

}  // namespace wavestack::decomp
