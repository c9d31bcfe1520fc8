// The autotuner's log lines (rank 0 prints them; the grid keeps them as its autotune report), in
// the fields and words upstream cuDecomp prints: per candidate the grid, the backend's display
// name and min/max/avg/std of its trials in milliseconds (transposes: the whole cycle, weighted
// and each transpose); per phase the selection with its average time. Pure text, so the format
// is tested without MPI.
#pragma once

#include <array>
#include <string>

#include "cudecomp.h"
#include "decomp/autotune_trials.hpp"

namespace wavestack::decomp {

std::string transpose_candidate_lines(const std::array<int, 2>& pdims, cudecompTransposeCommBackend_t backend,
                                      const TransposeTrials& trials, const double weights[4]);
std::string halo_candidate_lines(const std::array<int, 2>& pdims, cudecompHaloCommBackend_t backend,
                                 const HaloTrials& trials);

// `avg_seconds`: the chosen candidate's average (weighted, for transposes).
std::string transpose_selected_line(const std::array<int, 2>& pdims, cudecompTransposeCommBackend_t backend,
                                    double avg_seconds);
std::string halo_selected_line(const std::array<int, 2>& pdims, cudecompHaloCommBackend_t backend, double avg_seconds);

// Seconds with six decimals, as upstream prints the duration of a phase.
std::string autotune_seconds_text(double seconds);

}  // namespace wavestack::decomp
